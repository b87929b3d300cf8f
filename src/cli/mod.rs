//! Command-line interface: clap argument structs (pure data) and the glue
//! that runs each subcommand. No chess rules or SQL here.

/// `eprintln!` for the commands' messages, except that a standard error no
/// one reads (a pipe closed early, as in `2>&1 | head -1`) is no failure:
/// the line is dropped, where `eprintln!` would panic. A closed
/// descriptor (`2>&-`) never gets here: Rust's runtime opens `/dev/null` in
/// its place at startup.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::say_line(format_args!($($arg)*))
    };
}

mod book;
mod delete;
mod exit;
mod explore;
mod export;
mod find;
mod games;
mod import;
mod info;
mod interrupt;
mod novelty;
mod output_file;
mod perft;
mod progress;
mod query_args;
mod repertoire;
mod serve;
mod show;
mod sql;
mod terminal;
mod timings;
mod vacuum;
mod words;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use exit::Exit;

/// Index chess games (PGN) into SQLite and query them by position, header and SQL.
#[derive(Debug, Parser)]
#[command(name = "pgnindex", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

// In `--help`'s order: the database's commands as a user meets them, then
// the tools that read PGN without one.
#[derive(Debug, Subcommand)]
enum Command {
    /// Import PGN files into the SQLite database (created if missing):
    /// headers, moves, and every position by Polyglot key.
    Import(Deferred<import::ImportArgs>),
    /// Find games by position (--fen, --epd, --moves) and headers; list
    /// them, count them or print them as PGN.
    Find(Deferred<find::FindArgs>),
    /// The moves played from a position (default: the start), with games,
    /// results, average rating and last date.
    Explore(Deferred<explore::ExploreArgs>),
    /// A Polyglot opening book from the games the filters select, by
    /// `polyglot make-book`'s rules; --probe lists a book's moves.
    Book(Deferred<book::BookArgs>),
    /// Where games leave the database's games: the first position no
    /// other game reached, the move, and what was known before it.
    Novelty(Deferred<novelty::NoveltyArgs>),
    /// One game as PGN (export format) or JSON.
    Show(Deferred<show::ShowArgs>),
    /// Every game that matches a position and filters, as PGN; or the
    /// database's tables as Parquet files (--format parquet).
    Export(Deferred<export::ExportArgs>),
    /// What a database holds: games, positions, sources, errors, dates.
    Info(Deferred<info::InfoArgs>),
    /// Run SQL on the database (read-only unless --write), with the
    /// functions polyglot_key(fen), fen_at(game_id, ply), material_at(game_id,
    /// ply), piece_at(game_id, ply, square), san_to_uci(fen, san).
    Sql(Deferred<sql::SqlArgs>),
    /// Delete the games `find` lists for a position and filters.
    Delete(Deferred<delete::DeleteArgs>),
    /// Drop the index rows of deleted games and compact the database file.
    Vacuum(Deferred<vacuum::VacuumArgs>),
    /// Answer lichess's opening explorer API from the database over HTTP
    /// (read-only, on 127.0.0.1:9002 unless --bind says otherwise).
    Serve(Deferred<serve::ServeArgs>),
    /// Count the leaf nodes of the legal-move tree (move-generator check).
    Perft(Deferred<perft::PerftArgs>),
    /// Replay every game; print `GAME PLIES FINAL_FEN [error]` per game, or
    /// every position with --every-ply.
    Fens(Deferred<games::FensArgs>),
    /// Validate PGN: print each error as FILE:LINE:COL: message, then a
    /// summary. Exit 0 if all games are good, 1 if any has an error, 2 if
    /// an input cannot be read.
    Check(Deferred<games::CheckArgs>),
}

/// A subcommand's arguments, added to its clap command only when that
/// subcommand runs or its help is shown: building every subcommand's
/// arguments took most of clap's part of each start.
#[derive(Debug)]
struct Deferred<T>(T);

impl<T: clap::Args> clap::Args for Deferred<T> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.defer(|cmd| keeping_about(cmd, T::augment_args))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        cmd.defer(|cmd| keeping_about(cmd, T::augment_args_for_update))
    }

    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
}

/// `augment(cmd)` with `cmd`'s descriptions kept: the subcommand's own, not
/// its arguments struct's, which deferred arguments would otherwise set
/// last.
fn keeping_about(cmd: clap::Command, augment: fn(clap::Command) -> clap::Command) -> clap::Command {
    let (about, long_about) = (cmd.get_about().cloned(), cmd.get_long_about().cloned());
    let cmd = augment(cmd);
    let cmd = match about {
        Some(about) => cmd.about(about),
        None => cmd.about(None::<&str>),
    };
    match long_about {
        Some(long_about) => cmd.long_about(long_about),
        None => cmd.long_about(None::<&str>),
    }
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }

    fn from_arg_matches_mut(matches: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Deferred)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(
        &mut self,
        matches: &mut clap::ArgMatches,
    ) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

/// Runs the command line and maps the result to an exit code: the
/// command's own [`Exit`]; on an error (printed as one line on stderr)
/// [`Exit::Failure`], except for the query commands' bad queries and
/// missing games ([`query_exit`]). A closed stdout (as with `| head`) is
/// not an error.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let (result, query) = match cli.command {
        Command::Perft(Deferred(args)) => (perft::run(&args), false),
        Command::Fens(Deferred(args)) => (games::run_fens(&args), false),
        Command::Check(Deferred(args)) => (games::run_check(&args), false),
        Command::Import(Deferred(args)) => (import::run(&args), false),
        Command::Find(Deferred(args)) => (find::run(&args), true),
        Command::Explore(Deferred(args)) => (explore::run(&args), true),
        Command::Book(Deferred(args)) => (book::run(&args), true),
        Command::Novelty(Deferred(args)) => (novelty::run(&args), true),
        Command::Show(Deferred(args)) => (show::run(&args), true),
        Command::Export(Deferred(args)) => (export::run(&args), true),
        Command::Info(Deferred(args)) => (info::run(&args), true),
        Command::Sql(Deferred(args)) => (sql::run(&args), true),
        Command::Delete(Deferred(args)) => (delete::run(&args), true),
        Command::Vacuum(Deferred(args)) => (vacuum::run(&args), false),
        Command::Serve(Deferred(args)) => (serve::run(&args), false),
    };
    match result {
        Ok(exit) => exit.into(),
        Err(err) => {
            if is_broken_pipe(&err) {
                return Exit::Success.into();
            }
            let _ = io::stdout().flush();
            say!("pgnindex: error: {err:#}");
            if query { query_exit(&err) } else { Exit::Failure }.into()
        }
    }
}

/// The exit of a failed query command: [`Exit::Failure`] when the
/// database is missing or cannot be read, or the output (PGN or Parquet)
/// cannot be written, a book cannot be read or is no Polyglot book, or
/// the command line is wrong ([`exit::UsageError`]);
/// [`Exit::Invalid`] for the rest (a bad position, filter or SQL
/// statement, no such game).
fn query_exit(err: &anyhow::Error) -> Exit {
    let database_or_io = err.chain().any(|e| {
        e.is::<pgnindex::db::DbError>()
            || e.is::<pgnindex::store::writer::WriteError>()
            || e.is::<io::Error>()
            || e.is::<pgnindex::columnar::ColumnarError>()
            || e.is::<pgnindex::book::BookError>()
            || e.is::<pgnindex::query::repertoire::RepertoireError>()
            || e.is::<exit::UsageError>()
            || matches!(
                e.downcast_ref::<pgnindex::query::QueryError>(),
                Some(pgnindex::query::QueryError::Sqlite { .. })
            )
    });
    if database_or_io {
        Exit::Failure
    } else {
        Exit::Invalid
    }
}

/// [`say!`]'s writer: one line on stderr, its failure ignored.
fn say_line(line: std::fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("pgnindex").chain(args.iter().copied()))
    }

    #[test]
    fn clap_definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn deferred_arguments_keep_each_subcommand_its_own_help() {
        let help = parse(&["check", "--help"]).unwrap_err();
        assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
        let text = help.to_string();
        assert!(text.starts_with("Validate PGN: print each error"), "{text}");
        assert!(text.contains("--threads"), "{text}");
        let top = parse(&["--help"]).unwrap_err().to_string();
        assert!(top.contains("Replay every game; print"), "{top}");
        assert!(!top.contains("Arguments of"), "{top}");
        // The arguments are there when the subcommand runs.
        assert!(parse(&["check", "--threads", "2", "a.pgn"]).is_ok());
        assert!(parse(&["check", "--no-such-flag", "a.pgn"]).is_err());
    }

    #[test]
    fn query_command_flags() {
        assert!(parse(&[
            "find", "--moves", "e4", "--limit", "5", "--offset", "10", "--format", "json"
        ])
        .is_ok());
        assert!(parse(&["find", "--count", "--limit", "5"]).is_err(), "--count lists nothing");
        assert!(parse(&["find", "--format", "xml"]).is_err());
        assert!(parse(&["explore", "--format", "pgn"]).is_err());
        assert!(parse(&["show"]).is_err(), "show needs an id");
        assert!(parse(&["show", "7", "--fens", "--format", "json"]).is_ok());
        assert!(parse(&["export", "-o", "x.pgn", "--eco", "B90"]).is_ok());
        assert!(parse(&["sql"]).is_err(), "sql needs a query");
        assert!(parse(&["sql", "SELECT 1", "--write", "--format", "csv"]).is_ok());
        assert!(parse(&["info", "--format", "json", "--db", "x.db"]).is_ok());
    }

    #[test]
    fn board_flags() {
        assert!(parse(&["find", "--moves", "e4", "--board", "--ascii", "--flip"]).is_ok());
        assert!(parse(&["find", "--moves", "e4", "--board", "--count"]).is_ok());
        assert!(
            parse(&["find", "--board", "--black", "Carlsen"]).is_ok(),
            "--black names a player"
        );
        assert!(parse(&["explore", "--board", "--flip", "--format", "json"]).is_ok());
        assert!(parse(&["explore", "--ascii"]).is_err(), "--ascii needs --board");
        assert!(parse(&["show", "7", "--board", "--ply", "0", "--fens"]).is_ok());
        assert!(parse(&["show", "7", "--ply", "3"]).is_err(), "--ply draws a board");
        assert!(parse(&["show", "7", "--board", "--ply", "-1"]).is_err());
        assert!(parse(&["find", "--ply", "3"]).is_err(), "only show has --ply");
    }

    #[test]
    fn query_errors_pick_their_exit_code() {
        use pgnindex::db::DbError;
        use pgnindex::query::QueryError;
        let missing = DbError::Missing { path: "x.db".into() };
        assert_eq!(query_exit(&anyhow::Error::from(missing)), Exit::Failure);
        assert_eq!(query_exit(&anyhow::Error::from(QueryError::NoSuchGame(3))), Exit::Invalid);
        let output = QueryError::Output(io::Error::other("disk full"));
        assert_eq!(query_exit(&anyhow::Error::from(output)), Exit::Failure);
        let bad_fen = pgnindex::query::target::Target::from_fen("x").unwrap_err();
        assert_eq!(query_exit(&anyhow::Error::from(bad_fen)), Exit::Invalid);
    }
}
