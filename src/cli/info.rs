//! `pgnindex info`: what a database holds.

use std::io::Write;

use clap::{Args, ValueEnum};
use serde_json::Value;

use pgnindex::query::format::json_object;
use pgnindex::query::info::{info, Info};

use super::exit::Exit;
use super::query_args::{self, DbArgs};

/// Output formats of `info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InfoFormat {
    /// Lines for people.
    Text,
    /// One JSON object.
    Json,
}

/// Arguments of `info`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex info --db sample.db
  pgnindex info --db sample.db --format json

sample.db is the bundled sample, as `pgnindex import --help` imports it.")]
pub struct InfoArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = InfoFormat::Text)]
    format: InfoFormat,
}

/// Sources listed one by one in text output; more are summed up.
const SHOWN_SOURCES: usize = 10;

/// Runs `info`.
pub fn run(args: &InfoArgs) -> anyhow::Result<Exit> {
    let (conn, path) = args.db.open()?;
    let info = info(&conn, &path)?;
    let mut out = query_args::stdout();
    match args.format {
        InfoFormat::Text => write_text(&mut out, &info)?,
        InfoFormat::Json => writeln!(out, "{}", to_json(&info))?,
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `1234567` → `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn write_text(out: &mut impl Write, info: &Info) -> std::io::Result<()> {
    writeln!(
        out,
        "database   {} ({}, schema version {})",
        info.path,
        size(info.file_size),
        info.schema_version
    )?;
    if info.games == 0 && info.sources.is_empty() {
        writeln!(out, "games      0 (nothing imported yet)")?;
    } else {
        writeln!(out, "games      {}", thousands(info.games))?;
    }
    writeln!(out, "positions  {}", thousands(info.positions))?;
    let unfinished = info.sources.iter().filter(|s| !s.finished).count();
    let state = if unfinished > 0 {
        format!(" ({unfinished} not finished: importing them again resumes)")
    } else {
        String::new()
    };
    writeln!(out, "sources    {}{state}", info.sources.len())?;
    for s in info.sources.iter().take(SHOWN_SOURCES) {
        writeln!(
            out,
            "  {}: {} games, {} duplicates, {} errors ({})",
            printable(&s.path),
            thousands(s.games),
            thousands(s.duplicates),
            thousands(s.errors),
            s.started_at
        )?;
    }
    if info.sources.len() > SHOWN_SOURCES {
        writeln!(out, "  … and {} more", info.sources.len() - SHOWN_SOURCES)?;
    }
    let problems: Vec<String> =
        info.problems.iter().map(|(kind, n)| format!("{} {kind}", thousands(*n))).collect();
    let problems = if problems.is_empty() { "none".to_string() } else { problems.join(", ") };
    writeln!(out, "problems   {problems} (see the import_errors table)")?;
    match &info.dates {
        Some((first, last)) => {
            writeln!(out, "dates      {} to {}", printable(first), printable(last))?;
        }
        None => writeln!(out, "dates      none known")?,
    }
    let top = |list: &[(String, u64)]| {
        if list.is_empty() {
            return "none known".to_string();
        }
        let top = list.iter().map(|(v, n)| format!("{} ({})", printable(v), thousands(*n)));
        top.collect::<Vec<_>>().join(", ")
    };
    writeln!(out, "events     {}", top(&info.events))?;
    writeln!(out, "ECO        {}", top(&info.ecos))?;
    Ok(())
}

fn to_json(info: &Info) -> String {
    let pairs = |list: &[(String, u64)], key: &str| -> Value {
        list.iter()
            .map(|(v, n)| {
                let mut m = serde_json::Map::new();
                m.insert(key.to_string(), v.as_str().into());
                m.insert("games".into(), (*n).into());
                Value::Object(m)
            })
            .collect()
    };
    let sources: Value = info
        .sources
        .iter()
        .map(|s| {
            serde_json::json!({
                "path": s.path, "games": s.games, "duplicates": s.duplicates,
                "errors": s.errors, "positions": s.positions,
                "started_at": s.started_at, "finished": s.finished,
            })
        })
        .collect();
    let problems: serde_json::Map<String, Value> =
        info.problems.iter().map(|(k, n)| (k.clone(), (*n).into())).collect();
    let (first, last) = match &info.dates {
        Some((a, b)) => (Value::from(a.as_str()), Value::from(b.as_str())),
        None => (Value::Null, Value::Null),
    };
    json_object(&[
        ("path", info.path.as_str().into()),
        ("file_size", info.file_size.into()),
        ("schema_version", info.schema_version.into()),
        ("games", info.games.into()),
        ("positions", info.positions.into()),
        ("sources", sources),
        ("problems", Value::Object(problems)),
        ("first_date", first),
        ("last_date", last),
        ("events", pairs(&info.events, "event")),
        ("ecos", pairs(&info.ecos, "eco")),
    ])
}

/// `text` with control characters (a terminal's escape sequences, which a
/// file name may hold) shown as `\u{FFFD}`: the database's text never
/// drives the terminal.
fn printable(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { '\u{FFFD}' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(100), "100");
        assert_eq!(size(999), "999 B");
        assert_eq!(size(12_345_678), "12.3 MB");
    }
}
