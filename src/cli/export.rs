//! `pgnindex export`: every matching game as PGN, streamed.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use pgnindex::query::pgn;
use pgnindex::query::search::{Page, Search};

use super::exit::Exit;
use super::query_args::{self, DbArgs, FilterArgs, MaterialArgs, PositionArgs};

/// Arguments of `export`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex export --player carlsen -o carlsen.pgn
  pgnindex export --moves \"1. d4 Nf6 2. c4 e6 3. Nc3 Bb4\" --since 2020 | gzip > nimzo.pgn.gz
  pgnindex export --material KQ-KRR --either-color -o q-vs-rr.pgn

Games are written in id (import) order, in export format (see `show`), one
at a time: memory stays constant whatever the number of games.")]
pub struct ExportArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    position: PositionArgs,
    #[command(flatten)]
    filters: FilterArgs,
    #[command(flatten)]
    material: MaterialArgs,
    /// Write to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// Runs `export`.
pub fn run(args: &ExportArgs) -> anyhow::Result<Exit> {
    let search = Search { target: args.position.target()?, filters: args.filters.filters()? };
    let material = args.material.search(&search.filters)?;
    let (conn, _) = match material {
        Some(_) => args.db.open_checked(&search)?,
        None => args.db.open_for(&search)?,
    };
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => query_args::create_output(path)?,
        None => Box::new(query_args::stdout()),
    };
    let each = |found: pgnindex::query::search::Found| pgn::write_game(&mut out, &found.game);
    let stats = match &material {
        Some(m) => m.find(&conn, Page::default(), true, each)?,
        None => search.find(&conn, Page::default(), true, each)?,
    };
    out.flush()?;
    if let Some(path) = &args.output {
        eprintln!("pgnindex: {} games written to {}", stats.returned, path.display());
    }
    if stats.rejected > 0 {
        eprintln!(
            "pgnindex: {} games left out: their key matches but they do not reach the position",
            stats.rejected
        );
    }
    Ok(Exit::Success)
}
