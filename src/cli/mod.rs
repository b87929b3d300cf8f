//! Command-line interface: clap argument structs (pure data) and the glue
//! that runs each subcommand. No chess rules or SQL here.

mod games;
mod import;
mod perft;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Index chess games (PGN) into SQLite and query them by position, header and SQL.
#[derive(Debug, Parser)]
#[command(name = "pgnindex", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal-move tree (move-generator check).
    Perft(perft::PerftArgs),
    /// Replay every game; print `GAME PLIES FINAL_FEN [error]` per game, or
    /// every position with --every-ply.
    Fens(games::FensArgs),
    /// Validate PGN: print each error as FILE:LINE:COL: message, then a
    /// summary. Exit 0 if all games are good, 1 if any has an error, 2 if
    /// an input cannot be read.
    Check(games::CheckArgs),
    /// Import PGN files into the SQLite database (created if missing):
    /// headers, moves, and every position by Polyglot key.
    Import(import::ImportArgs),
}

/// Runs the command line and maps the result to an exit code: 0 on success,
/// 2 on a usage or input error (printed as one line on stderr). A closed
/// stdout (as with `| head`) is not an error.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => perft::run(&args),
        Command::Fens(args) => games::run_fens(&args),
        Command::Check(args) => games::run_check(&args),
        Command::Import(args) => import::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            let _ = io::stdout().flush();
            eprintln!("pgnindex: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
