//! The exit statuses of `pgnindex`, named once for every command.

use std::process::ExitCode;

/// How a command ends. The numbers are part of the interface (scripts
/// test them) and never change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    /// 0: the command did its work: every input was read (bad games
    /// or not, for `fens` and `import`), or a query ran (also when it
    /// matched nothing). A closed standard output (`| head`) ends this
    /// way too.
    Success = 0,
    /// 1: something given is bad: `check` found a bad game, `import
    /// --strict` stopped at one, or a query command got a bad position,
    /// filter or SQL statement, or no such game.
    Invalid = 1,
    /// 2: something could not be read or written: an input, the
    /// database, an output; or the command line is wrong (clap exits with
    /// 2 too). Any error of a command other than a query ends this way.
    Failure = 2,
    /// 130: stopped by Ctrl-C (SIGINT) or SIGTERM, cleanly: an import
    /// keeps what it committed and resumes on the next run; an export to
    /// a file leaves no file. (128 + SIGINT's number, as shells report a
    /// command killed by Ctrl-C.)
    Interrupted = 130,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}

/// A command line clap accepts that the command cannot run (a flag that
/// needs another): it ends with [`Exit::Failure`], as clap's own usage
/// errors do.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub &'static str);
