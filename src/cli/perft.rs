//! `pgnindex perft FEN DEPTH [--divide]`.

use std::io::{self, Write};

use anyhow::Context;
use clap::Args;

use pgnindex::chess::perft;
use pgnindex::notation::{fen, uci};

use super::exit::Exit;

/// The deepest perft counted. Beyond it no count ends in a useful time: at
/// ten legal moves a ply, 15 plies are already 10^15 leaves (two weeks at
/// the engine's 10^8 positions a second, the last ply counted in bulk), and
/// every ply more multiplies that; the start position's count overflows
/// 64 bits from 14 plies. Positions that could go deeper have almost no
/// moves and check nothing.
pub const MAX_DEPTH: u32 = 15;

/// Arguments of `perft`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex perft startpos 5
  pgnindex perft \"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -\" 3 --divide

The first counts 4865609 leaves; the second, from the position known as
Kiwipete, 97862, after each move's count.")]
pub struct PerftArgs {
    /// Start position as FEN (six fields, or four as in EPD); `startpos` for
    /// the standard start.
    fen: String,
    /// Number of plies to search (at most 15).
    depth: u32,
    /// Also print each legal move (UCI) with the nodes below it.
    #[arg(long)]
    divide: bool,
}

/// Runs `perft`: a depth beyond [`MAX_DEPTH`] is refused before any work.
pub fn run(args: &PerftArgs) -> anyhow::Result<Exit> {
    if args.depth > MAX_DEPTH {
        anyhow::bail!(
            "depth {}: perft counts at most {MAX_DEPTH} plies (at ten moves a ply, \
             {MAX_DEPTH} plies are already 10^{MAX_DEPTH} leaves, weeks of counting)",
            args.depth
        );
    }
    let pos = if args.fen == "startpos" {
        pgnindex::chess::Position::new()
    } else {
        fen::parse_position_strict(&args.fen)
            .with_context(|| format!("FEN argument '{}'", args.fen))?
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
