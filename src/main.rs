//! The `pgnindex` command. Parses arguments, runs the command, and owns the
//! exit codes; everything else lives in the library and in `cli`.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
