//! `pgnindex info`: what a database holds.

use std::io::Write;

use clap::{Args, ValueEnum};
use serde_json::Value;

use pgnindex::db::schema::Schema;
use pgnindex::query::format::json_object;
use pgnindex::query::info::{info, Info, OpeningCount, SourceInfo};

use super::exit::Exit;
use super::query_args::{self, printable, DbArgs};
use super::words::{counted, thousands};

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
    if info.deleted > 0 {
        writeln!(
            out,
            "deleted    {}, left out of every answer (`pgnindex vacuum` gives their space back)",
            counted(info.deleted, "game")
        )?;
    }
    let unfinished = info.sources.iter().filter(|s| !s.finished).count();
    let state = if unfinished > 0 {
        format!(" ({unfinished} not finished: importing them again resumes)")
    } else {
        String::new()
    };
    writeln!(out, "index      {}", indexing(info))?;
    writeln!(out, "sources    {}{state}", info.sources.len())?;
    for (s, name) in info.sources.iter().zip(source_names(&info.sources)).take(SHOWN_SOURCES) {
        let index = match (s.positions_indexed, s.max_ply) {
            (Some(false), _) => ", no position index".to_string(),
            (Some(true), Some(n)) => format!(", positions up to ply {n}"),
            _ => String::new(),
        };
        writeln!(
            out,
            "  {}: {}, {}, {}{index} ({})",
            printable(&name),
            counted(s.games, "game"),
            counted(s.duplicates, "duplicate"),
            counted(s.errors, "error"),
            s.started_at
        )?;
    }
    if info.sources.len() > SHOWN_SOURCES {
        writeln!(out, "  … and {} more", info.sources.len() - SHOWN_SOURCES)?;
    }
    let problems: Vec<String> = info.problems.iter().map(|(kind, n)| counted(*n, kind)).collect();
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
    if Schema::new(info.schema_version).has(Schema::SPEED) {
        writeln!(out, "speeds     {}", speeds(info))?;
    }
    if let Some(without) = info.without_opening {
        write_openings(out, &info.openings, without)?;
    }
    Ok(())
}

/// The openings by position: one line each, most played first, then the
/// games without one.
fn write_openings(
    out: &mut impl Write,
    openings: &[OpeningCount],
    without: u64,
) -> std::io::Result<()> {
    if openings.is_empty() {
        writeln!(out, "openings   none known")?;
    } else {
        writeln!(out, "openings   by position, the {} most played:", openings.len())?;
        for o in openings {
            writeln!(
                out,
                "  {} {} ({})",
                printable(&o.eco),
                printable(&o.name),
                thousands(o.games)
            )?;
        }
    }
    if without > 0 {
        writeln!(out, "  without one: {}", counted(without, "game"))?;
    }
    Ok(())
}

/// `blitz (62), rapid (594), unknown (293)`, or `none known`.
fn speeds(info: &Info) -> String {
    if info.speeds.is_empty() {
        return "none known".to_string();
    }
    let speeds = info.speeds.iter().map(|(speed, n)| {
        format!("{} ({})", speed.map_or("unknown", |s| s.as_str()), thousands(*n))
    });
    speeds.collect::<Vec<_>>().join(", ")
}

/// How the sources that hold games were indexed, in a few words: one
/// way for all of them, or each way with its number of sources.
fn indexing(info: &Info) -> String {
    // (order, alone, in a mix, sources): the deepest index first.
    let mut ways: Vec<(u64, String, String, usize)> = Vec::new();
    for s in info.sources.iter().filter(|s| s.games > 0) {
        let (order, alone, mixed) = match (s.positions_indexed, s.max_ply) {
            (Some(true), None) => (0, "every position".to_string(), "every position".to_string()),
            (Some(true), Some(n)) => (
                1 + u64::from(u32::MAX - n),
                format!("up to ply {n} (imported with --max-ply {n})"),
                format!("up to ply {n}"),
            ),
            (Some(false), _) => (
                1 << 33,
                "none (imported with --no-positions)".to_string(),
                "none (--no-positions)".to_string(),
            ),
            (None, _) => (
                1 << 34,
                "not recorded (imported by an older pgnindex)".to_string(),
                "not recorded".to_string(),
            ),
        };
        match ways.iter_mut().find(|w| w.0 == order) {
            Some(way) => way.3 += 1,
            None => ways.push((order, alone, mixed, 1)),
        }
    }
    ways.sort_unstable_by_key(|w| w.0);
    let ways: Vec<(String, String, usize)> = ways.into_iter().map(|w| (w.1, w.2, w.3)).collect();
    match ways.as_slice() {
        [] => "no games".to_string(),
        [(alone, _, _)] => alone.clone(),
        _ => {
            let parts: Vec<String> = ways
                .iter()
                .enumerate()
                .map(|(i, (_, mixed, n))| match (i, n) {
                    (0, 1) => format!("1 source {mixed}"),
                    (0, n) => format!("{n} sources {mixed}"),
                    (_, n) => format!("{n} {mixed}"),
                })
                .collect();
            format!("mixed: {}", parts.join(", "))
        }
    }
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
        .zip(source_names(&info.sources))
        .map(|(s, name)| {
            serde_json::json!({
                "path": s.path, "name": name, "games": s.games, "duplicates": s.duplicates,
                "errors": s.errors, "positions": s.positions,
                "started_at": s.started_at, "finished": s.finished,
                "positions_indexed": s.positions_indexed, "max_ply": s.max_ply,
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
        ("deleted_games", info.deleted.into()),
        ("index", indexing(info).into()),
        ("sources", sources),
        ("problems", Value::Object(problems)),
        ("first_date", first),
        ("last_date", last),
        ("events", pairs(&info.events, "event")),
        ("ecos", pairs(&info.ecos, "eco")),
        (
            "openings",
            info.openings
                .iter()
                .map(|o| serde_json::json!({"eco": o.eco, "name": o.name, "games": o.games}))
                .collect(),
        ),
        ("games_without_opening", info.without_opening.into()),
        (
            "speeds",
            info.speeds
                .iter()
                .map(|(speed, n)| serde_json::json!({"speed": speed.map(|s| s.as_str()), "games": n}))
                .collect(),
        ),
    ])
}

/// What each source is called: its path, or `standard input #N` for the
/// Nth import from standard input (whose path is `-`).
fn source_names(sources: &[SourceInfo]) -> Vec<String> {
    let mut stdin = 0;
    sources
        .iter()
        .map(|s| {
            if s.path == "-" {
                stdin += 1;
                format!("standard input #{stdin}")
            } else {
                s.path.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(size(999), "999 B");
        assert_eq!(size(12_345_678), "12.3 MB");
    }
}
