//! `pgnindex perft FEN DEPTH [--divide]`.

use std::io::{self, Write};

use anyhow::Context;
use clap::Args;

use pgnindex::chess::perft;
use pgnindex::notation::{fen, uci};

use super::exit::Exit;

/// Arguments of `perft`.
#[derive(Debug, Args)]
pub struct PerftArgs {
    /// Start position as FEN (six fields, or four as in EPD); `startpos` for
    /// the standard start.
    fen: String,
    /// Number of plies to search.
    depth: u32,
    /// Also print each legal move (UCI) with the nodes below it.
    #[arg(long)]
    divide: bool,
}

pub fn run(args: &PerftArgs) -> anyhow::Result<Exit> {
    let pos = if args.fen == "startpos" {
        pgnindex::chess::Position::new()
    } else {
        fen::parse_position(&args.fen).with_context(|| format!("FEN argument '{}'", args.fen))?
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    if args.divide {
        let mut total = 0;
        for (m, n) in perft::divide(&pos, args.depth) {
            writeln!(out, "{} {n}", uci::to_uci(&pos, m))?;
            total += n;
        }
        writeln!(out)?;
        writeln!(out, "{total}")?;
    } else {
        writeln!(out, "{}", perft::perft(&pos, args.depth))?;
    }
    out.flush()?;
    Ok(Exit::Success)
}
