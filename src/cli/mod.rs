//! Command-line interface: clap argument structs (pure data) and the glue
//! that runs each subcommand. No chess rules or SQL here.

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
}

/// Runs the command line and maps the result to an exit code: 0 on success,
/// 2 on a usage or input error (printed as one line on stderr). A closed
/// stdout (as with `| head`) is not an error.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => perft::run(&args),
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
