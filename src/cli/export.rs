//! `pgnindex export`: every matching game as PGN, streamed; or, with
//! `--format parquet`, the matching games' tables as Parquet files.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use anyhow::Context;
use clap::{Args, ValueEnum};

use pgnindex::columnar::export::{self as columnar_export, MAX_SHARD};
use pgnindex::columnar::lake::ShardDir;
use pgnindex::columnar::sink::{Limits, TableStats, FILE_BYTES};
use pgnindex::query::material::MaterialSearch;
use pgnindex::query::pgn;
use pgnindex::query::search::{FindStats, Found, Page, Search};
use pgnindex::query::QueryError;
use rusqlite::Connection;

use super::exit::{Exit, UsageError};
use super::interrupt::{self, Interrupted};
use super::output_file::OutputFile;
use super::progress;
use super::query_args::{self, DbArgs, FilterArgs, MaterialArgs, PositionArgs};
use super::words::counted;

/// Arguments of `export`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex export --player carlsen -o carlsen.pgn
  pgnindex export --moves \"1. d4 Nf6 2. c4 e6 3. Nc3 Bb4\" --since 2020 | gzip > nimzo.pgn.gz
  pgnindex export --format parquet -o lake --shard 1
  pgnindex export --material KQ-KRR --either-color -o q-vs-rr.pgn

Games are written in id (import) order, in export format (see `show`), one
at a time: memory stays constant whatever the number of games.

--format parquet writes the tables games, plies, tags, positions (sorted
by hash) and sources of the matching games as shard N (--shard, default 0)
of the lake DIR, created if missing: each table into a folder of its own,
DIR/games/, DIR/plies/, …, as sN-00001.parquet, sN-00002.parquet, … (zstd,
row groups of 128 MB). Each folder holds every shard's files of its
table: Spark reads spark.read.parquet('DIR/games'), DuckDB
read_parquet('DIR/games/*.parquet'). A shard already in DIR is refused.
See docs/scale.md.")]
pub struct ExportArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    position: PositionArgs,
    #[command(flatten)]
    filters: FilterArgs,
    #[command(flatten)]
    material: MaterialArgs,
    /// Write to FILE instead of standard output (the lake's directory,
    /// DIR, for --format parquet).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// PGN, or Parquet files (a folder per table) into the lake of -o.
    #[arg(long, value_enum, default_value_t = ExportFormat::Pgn)]
    format: ExportFormat,
    /// Parquet: close a file once it holds about SIZE bytes (suffix K, M
    /// or G for 2^10, 2^20, 2^30; at least 64K); default 1G.
    #[arg(long, value_name = "SIZE", value_parser = parse_file_size)]
    file_size: Option<u64>,
    /// Parquet: write shard N of the lake (files sN-00001.parquet, …) and
    /// add N << 32 to every game and source id, so that the files of
    /// databases exported as different shards share no id (0 to
    /// 2147483647; default 0).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_SHARD)))]
    shard: Option<u32>,
    /// No progress on the terminal: the summary line alone.
    #[arg(long)]
    quiet: bool,
}

/// What `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// PGN, in export format.
    Pgn,
    /// Apache Parquet files, a folder per table.
    Parquet,
}

/// A size in bytes: digits with an optional K, M or G (powers of 1024).
fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        _ => return Err(format!("'{text}': the unit is K, M or G")),
    };
    let n: u64 = digits.parse().map_err(|_| format!("'{text}' is not a size"))?;
    n.checked_mul(1 << shift)
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("'{text}': a size from 1 byte to 2^64"))
}

/// The smallest `--file-size`: smaller files would hold a few rows each.
const MIN_FILE_SIZE: u64 = 64 << 10;

/// A `--file-size`: [`parse_size`], at least [`MIN_FILE_SIZE`].
pub(super) fn parse_file_size(text: &str) -> Result<u64, String> {
    let size = parse_size(text)?;
    if size < MIN_FILE_SIZE {
        return Err(format!("'{text}': files of at least 64K"));
    }
    Ok(size)
}

/// Games written between two updates of the progress line.
const PROGRESS_EVERY: u64 = 256;

/// Runs `export`.
pub fn run(args: &ExportArgs) -> anyhow::Result<Exit> {
    let search = Search {
        target: args.position.target()?,
        filters: args.filters.filters()?,
        ..Search::default()
    };
    if args.format == ExportFormat::Parquet {
        if args.material.is_set() {
            return Err(UsageError(
                "--material and --pattern are not available with --format parquet",
            )
            .into());
        }
        return run_parquet(args, &search);
    }
    if args.file_size.is_some() || args.shard.is_some() {
        return Err(UsageError("--file-size and --shard are for --format parquet").into());
    }
    let material = args.material.search(&search.filters)?;
    let (conn, _) = match material {
        Some(_) => args.db.open_checked(&search)?,
        None => args.db.open_for(&search)?,
    };
    let bar = progress::spinner("exporting", args.quiet);
    let mut written = 0u64;
    let mut tick = || {
        written += 1;
        if written.is_multiple_of(PROGRESS_EVERY) {
            bar.set_message(format!(
                "{} ({})",
                counted(written, "game"),
                progress::rate(&bar, written, "games")
            ));
        }
    };
    let Some(path) = &args.output else {
        let mut out = query_args::stdout();
        let each = |found: Found| {
            tick();
            pgn::write_game(&mut out, &found.game)
        };
        let stats = find_games(&conn, &search, material.as_ref(), each);
        bar.finish_and_clear();
        let stats = stats?;
        out.flush()?;
        report_rejected(stats.rejected);
        return Ok(Exit::Success);
    };
    // To a file, Ctrl-C stops between games and leaves no file.
    let interrupt = interrupt::flag(
        "pgnindex: interrupted again: stopped at once; the output file is not written",
    )?;
    let mut out = OutputFile::create(path)?;
    let each = |found: Found| {
        if interrupt.load(Ordering::Relaxed) {
            return Err(io::Error::other(Interrupted));
        }
        tick();
        pgn::write_game(&mut out, &found.game)
    };
    let stats = find_games(&conn, &search, material.as_ref(), each);
    bar.finish_and_clear();
    if interrupt.load(Ordering::Relaxed) {
        drop(out);
        say!("pgnindex: interrupted: {} not written", path.display());
        return Ok(Exit::Interrupted);
    }
    let stats = stats?;
    out.finish()?;
    say!("pgnindex: {} written to {}", counted(stats.returned, "game"), path.display());
    report_rejected(stats.rejected);
    Ok(Exit::Success)
}

/// Every game the material search, else the position and filter search,
/// finds, whole and in id order, handed to `each`.
fn find_games(
    conn: &Connection,
    search: &Search,
    material: Option<&MaterialSearch>,
    each: impl FnMut(Found) -> io::Result<()>,
) -> Result<FindStats, QueryError> {
    match material {
        Some(m) => m.find(conn, Page::default(), true, each),
        None => search.find(conn, Page::default(), true, each),
    }
}

fn report_rejected(rejected: u64) {
    if rejected > 0 {
        say!(
            "pgnindex: {} left out: their key matches but they do not reach the position",
            counted(rejected, "game")
        );
    }
}

/// `export --format parquet -o DIR`.
fn run_parquet(args: &ExportArgs, search: &Search) -> anyhow::Result<Exit> {
    let Some(dir) = &args.output else {
        return Err(
            UsageError("--format parquet needs -o DIR, the directory the files go to").into()
        );
    };
    let (conn, path) = args.db.open_for(search)?;
    let lake = ShardDir::create(dir, args.shard.unwrap_or(0))?;
    let bar = progress::spinner("exporting", args.quiet);
    if search.target.is_some() {
        bar.set_message("finding the games");
        let mut ids = Vec::new();
        let stats = search.find(&conn, Page::default(), false, |found| {
            ids.push(found.game.id);
            Ok(())
        });
        let stats = stats.inspect_err(|_| bar.finish_and_clear())?;
        report_rejected(stats.rejected);
        columnar_export::select_games(&conn, ids)?;
    } else if !search.filters.is_empty() {
        columnar_export::select_by_filter(&conn, &search.filters.sql_for(&conn)?)?;
    }
    let limits = Limits::with_file_bytes(args.file_size.unwrap_or(FILE_BYTES));
    bar.set_message(format!("writing Parquet files into {}", dir.display()));
    let stats = columnar_export::export(&conn, &path, &lake, limits);
    bar.finish_and_clear();
    let mut stats = stats.with_context(|| format!("exporting {} as Parquet", path.display()))?;
    lake.publish(&mut stats)?;
    say!("pgnindex: {} written to {}", summary(&stats), dir.display());
    Ok(Exit::Success)
}

/// `123 games, 4,567 plies, … (8 files, 1.2 MB)`.
pub(super) fn summary(stats: &[TableStats]) -> String {
    let tables: Vec<String> = stats
        .iter()
        .map(|t| {
            let name = match t.table.as_str() {
                "games" => "games",
                "plies" => "plies",
                "tags" => "tag pairs",
                "sources" => "sources",
                _ => "positions",
            };
            format!("{} {name}", super::words::thousands(t.rows))
        })
        .collect();
    let files: usize = stats.iter().map(|t| t.files.len()).sum();
    let bytes: u64 = stats.iter().map(|t| t.bytes).sum();
    format!("{} ({files} files, {:.1} MB)", tables.join(", "), bytes as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("64K"), Ok(65536));
        assert_eq!(parse_size("2m"), Ok(2 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("1T").is_err());
        assert!(parse_size("K").is_err());
        assert!(parse_size("-1").is_err());
        assert_eq!(parse_file_size("64K"), Ok(65536));
        assert!(parse_file_size("1000").unwrap_err().contains("at least 64K"));
    }
}
