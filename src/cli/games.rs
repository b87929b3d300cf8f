//! `pgnindex fens` and `pgnindex check`: read PGN inputs, replay every
//! game, and print per-game lines or located errors. No database.

use std::io::{self, Write};
use std::ops::ControlFlow;
use std::time::Instant;

use anyhow::Context;
use clap::Args;

use pgnindex::notation::fen;
use pgnindex::notation::moves::Notation;
use pgnindex::pgn::source::{expand_inputs, InputName, SourceError};
use pgnindex::replay::inputs::{read_inputs, ChunkPlace, InputVisitor};
use pgnindex::replay::parallel::{Chunk, LocatedGame};
use pgnindex::replay::{GameError, GameRecord, ReplayOptions, Skipped};

use super::exit::Exit;

/// Arguments of `fens`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex fens fixtures/pgn/games/otb/twic-01-232games.pgn
  pgnindex fens --every-ply fixtures/pgn/edge/pgn-extract/fools-mate.pgn

Both run from the repository root, on its bundled files.")]
pub struct FensArgs {
    /// PGN inputs: files (.pgn, .pgn.gz, .pgn.zst, .pgn.bz2, .pgn.xz), directories
    /// (every PGN file below), or `-` for standard input.
    #[arg(required = true)]
    inputs: Vec<std::ffi::OsString>,
    /// Print every position (`GAME PLY FEN KEY`) instead of one line per game.
    #[arg(long)]
    every_ply: bool,
    /// Read moves with this language's piece letters only (english, french,
    /// german, dutch, spanish, italian), or as English descriptive notation
    /// (descriptive: P-K4 N-KB3); default: English, with per-game detection
    /// of the others.
    #[arg(long)]
    lang: Option<Notation>,
    /// Worker threads (0: one per core). The output is the same for any
    /// number.
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

/// Arguments of `check`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex check fixtures/pgn/games
  pgnindex check --threads 1 fixtures/pgn/games/otb/twic-01-232games.pgn

Both run from the repository root, on its bundled files.")]
pub struct CheckArgs {
    /// PGN inputs, as for `fens`.
    #[arg(required = true)]
    inputs: Vec<std::ffi::OsString>,
    /// Piece-letter language, as for `fens`.
    #[arg(long)]
    lang: Option<Notation>,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

/// Counts over all inputs.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Stats {
    games: u64,
    errors: u64,
    skipped: u64,
    bytes: u64,
    unreadable: u64,
    /// The output's reader left (a broken pipe): reading stopped there.
    closed: bool,
}

/// A game with its location, handed to the printer: `R` is what the
/// workers kept of its record (the whole [`GameRecord`], or less).
pub(super) struct Located<'r, R = GameRecord> {
    pub(super) input: &'r InputName,
    pub(super) number: u64,
    pub(super) record: R,
    /// Line and column of the error, if any.
    pub(super) error_at: Option<(usize, usize)>,
}

/// A game as a worker hands it over: what `keep` made of its record, and
/// what the printer reports.
pub(super) struct Kept<R> {
    record: R,
    errors: bool,
    skipped: bool,
    error_at: Option<(usize, usize)>,
    warnings: Vec<(usize, usize, String)>,
}

/// Why a game was not read to its end, if it was not: all `check` keeps of
/// a game (the rest of its record is dropped on the worker that made it).
pub(super) struct Problems {
    skipped: Option<Skipped>,
    error: Option<GameError>,
}

/// Reads every input and calls `each` for every game in input order;
/// syntax warnings and skipped text go to `warn`. Games are read and
/// replayed on `pool`. Unreadable inputs are reported on
/// stderr and counted; reading goes on with the next input. Returns the
/// counts; the first error of `each` or `warn` stops, and is returned
/// unless it is a broken pipe (the counts so far, `closed`).
///
/// `keep` runs on the workers: what it makes of each record is what `each`
/// gets (the record is dropped there, not on the calling thread).
pub(super) fn for_each_game<R: Send>(
    pool: &rayon::ThreadPool,
    inputs: &[std::ffi::OsString],
    options: ReplayOptions,
    keep: impl Fn(GameRecord) -> R + Sync,
    each: impl FnMut(Located<'_, R>) -> io::Result<()>,
    warn: impl FnMut(&InputName, usize, usize, &str) -> io::Result<()>,
) -> anyhow::Result<Stats> {
    let inputs = expand_inputs(inputs)?;
    for skipped in &inputs.skipped {
        say!("pgnindex: warning: {skipped}; skipped");
    }
    let names = inputs.names;
    let mut printer = Printer { stats: Stats::default(), each, warn, io_error: None };
    let map = |game: LocatedGame| Kept {
        errors: game.record.error.is_some(),
        skipped: game.record.skipped.is_some(),
        record: keep(game.record),
        error_at: game.error_at,
        warnings: game.warnings,
    };
    let read = read_inputs(&names, pool, options, &map, &mut printer);
    let mut stats = Stats { games: read.games, bytes: read.bytes, ..printer.stats };
    match printer.io_error {
        Some(e) if e.kind() == io::ErrorKind::BrokenPipe => stats.closed = true,
        Some(e) => return Err(e.into()),
        None => {}
    }
    Ok(stats)
}

/// [`for_each_game`]'s visitor: counts, locates and hands on each game;
/// the first output error stops the reading.
struct Printer<E, W> {
    /// Errors, skipped games and unreadable inputs.
    stats: Stats,
    each: E,
    warn: W,
    io_error: Option<io::Error>,
}

impl<E, W> Printer<E, W> {
    fn print<R>(
        &mut self,
        name: &InputName,
        chunk: Chunk<Kept<R>>,
        place: ChunkPlace,
    ) -> io::Result<()>
    where
        E: FnMut(Located<'_, R>) -> io::Result<()>,
        W: FnMut(&InputName, usize, usize, &str) -> io::Result<()>,
    {
        // Lines before the chunk, for file-wide line numbers.
        let base_line = place.lines_before;
        for (number, game) in (place.games_before + 1..).zip(chunk.games) {
            for (l, c, message) in &game.warnings {
                (self.warn)(name, base_line + l, *c, message)?;
            }
            self.stats.errors += u64::from(game.errors);
            self.stats.skipped += u64::from(game.skipped);
            let error_at = game.error_at.map(|(l, c)| (base_line + l, c));
            (self.each)(Located { input: name, number, record: game.record, error_at })?;
        }
        for (l, c, message) in &chunk.trailing {
            (self.warn)(name, base_line + l, *c, message)?;
        }
        Ok(())
    }
}

impl<R, E, W> InputVisitor<Kept<R>> for Printer<E, W>
where
    E: FnMut(Located<'_, R>) -> io::Result<()>,
    W: FnMut(&InputName, usize, usize, &str) -> io::Result<()>,
{
    fn unreadable(&mut self, _name: &InputName, error: &SourceError) -> ControlFlow<()> {
        say!("pgnindex: error: {error}");
        self.stats.unreadable += 1;
        ControlFlow::Continue(())
    }

    fn chunk(
        &mut self,
        name: &InputName,
        chunk: Chunk<Kept<R>>,
        place: ChunkPlace,
    ) -> ControlFlow<()> {
        match self.print(name, chunk, place) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.io_error = Some(e);
                ControlFlow::Break(())
            }
        }
    }
}

/// A rayon pool of `threads` threads (0: one per core).
pub(super) fn thread_pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(worker_name)
        .build()
        .context("starting worker threads")
}

/// A worker thread's name, by its stage (Linux shows its first 15
/// characters, `pgnindex-worker`).
fn worker_name(index: usize) -> String {
    format!("pgnindex-worker-{index}")
}

/// A rayon pool of `threads` threads (0: one per core) that yield the
/// cores to the import's writer thread when both want them.
///
/// The writer is the one thread every game goes through: when the workers
/// took their share of the cores beside it, it fell behind while the
/// input was read and was left alone with a long backlog at the end.
/// Workers ten nice steps below it keep every core busy and the writer
/// on time: sharing a core with one, the writer gets about 90 % of it
/// (75 % at five steps, measurably slower). Where the kernel groups
/// scheduling by session (autogroup, the common default), the steps only
/// weigh the import's own threads against each other.
pub(super) fn thread_pool_below_writer(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(worker_name)
        .start_handler(|_| lower_priority())
        .build()
        .context("starting worker threads")
}

/// Lowers the calling thread's priority (on Linux, nice values are per
/// thread); a failure leaves it as it was.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: nice() only changes the calling thread's scheduling weight.
    unsafe {
        libc::nice(WORKER_NICE);
    }
}

/// Nice steps the import's workers run below the writer.
#[cfg(target_os = "linux")]
const WORKER_NICE: libc::c_int = 10;

impl Problems {
    fn of(record: GameRecord) -> Problems {
        Problems { skipped: record.skipped, error: record.error }
    }
}

/// The line `check` and `fens` print for a game not read to its end.
fn error_text<R>(
    game: &Located<'_, R>,
    skipped: Option<&Skipped>,
    error: Option<&GameError>,
) -> Option<String> {
    match skipped {
        Some(Skipped::Variant(variant)) => {
            return Some(format!("skipped: variant \"{variant}\" is not standard chess"));
        }
        Some(skipped) => return Some(format!("skipped: {skipped}")),
        None => {}
    }
    let e = error?;
    let (line, col) = game.error_at.unwrap_or((0, 0));
    Some(format!("{}:{line}:{col}: {}", game.input, e.message))
}

/// Runs `fens`.
pub fn run_fens(args: &FensArgs) -> anyhow::Result<Exit> {
    let options = ReplayOptions {
        keys: args.every_ply,
        fens: args.every_ply,
        notation: args.lang,
        ..ReplayOptions::default()
    };
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let every_ply = args.every_ply;
    let pool = thread_pool(args.threads)?;
    let stats = for_each_game(
        &pool,
        &args.inputs,
        options,
        |record| record,
        |game| {
            let n = game.number;
            if every_ply {
                for (ply, (f, k)) in game.record.fens.iter().zip(&game.record.keys).enumerate() {
                    writeln!(out, "{n}\t{ply}\t{f}\t{k:016x}")?;
                }
                let (skipped, error) = (game.record.skipped.as_ref(), game.record.error.as_ref());
                if let Some(e) = error_text(&game, skipped, error) {
                    writeln!(out, "{n}\terror: {e}")?;
                }
            } else {
                let final_fen = fen::write(&game.record.final_position);
                write!(out, "{n}\t{}\t{final_fen}", game.record.plies())?;
                let (skipped, error) = (game.record.skipped.as_ref(), game.record.error.as_ref());
                match error_text(&game, skipped, error) {
                    Some(e) => writeln!(out, "\terror: {e}")?,
                    None => writeln!(out)?,
                }
            }
            Ok(())
        },
        |_, _, _, _| Ok(()),
    )?;
    // A reader that left ends the command as having done its work (the
    // lines it wanted were written), with the status of the inputs read.
    if !stats.closed {
        ignore_closed(out.flush())?;
    }
    Ok(if stats.unreadable > 0 { Exit::Failure } else { Exit::Success })
}

/// Runs `check`.
pub fn run_check(args: &CheckArgs) -> anyhow::Result<Exit> {
    let started = Instant::now();
    let options = ReplayOptions { notation: args.lang, ..ReplayOptions::default() };
    let stdout = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    // Every game is checked whether or not the lines are read: the exit
    // status says whether all are good.
    let out = std::cell::RefCell::new(UntilClosed { out: stdout, closed: false });
    let pool = thread_pool(args.threads)?;
    let stats = for_each_game(
        &pool,
        &args.inputs,
        options,
        Problems::of,
        |game| {
            if game.record.error.is_some() {
                let (skipped, error) = (game.record.skipped.as_ref(), game.record.error.as_ref());
                if let Some(e) = error_text(&game, skipped, error) {
                    writeln!(out.borrow_mut(), "{e}")?;
                }
            }
            Ok(())
        },
        |input, line, col, message| {
            writeln!(out.borrow_mut(), "{input}:{line}:{col}: warning: {message}")
        },
    )?;
    let secs = started.elapsed().as_secs_f64();
    let mut out = out.into_inner();
    writeln!(
        out,
        "games {}, ok {}, with errors {}, skipped variants {}, bytes {}, time {:.2} s ({:.1} MB/s)",
        stats.games,
        stats.games - stats.errors - stats.skipped,
        stats.errors,
        stats.skipped,
        stats.bytes,
        secs,
        stats.bytes as f64 / 1e6 / secs.max(1e-9),
    )?;
    out.flush()?;
    Ok(if stats.unreadable > 0 {
        Exit::Failure
    } else if stats.errors > 0 {
        Exit::Invalid
    } else {
        Exit::Success
    })
}

/// `result`, with a broken pipe (the reader left) taken as done.
fn ignore_closed(result: io::Result<()>) -> io::Result<()> {
    match result {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// A writer that goes silent once its reader has left (a broken pipe):
/// what is written after is dropped, and other errors still fail.
struct UntilClosed<W> {
    out: W,
    closed: bool,
}

impl<W: Write> Write for UntilClosed<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.out.write(buf) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let flushed = self.out.flush();
        self.closed = flushed.as_ref().is_err_and(|e| e.kind() == io::ErrorKind::BrokenPipe);
        ignore_closed(flushed)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(target_os = "linux")]
    fn import_workers_run_below_the_calling_thread() {
        // SAFETY: getpriority only reads the calling thread's nice value.
        let nice = || unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        let pool = super::thread_pool_below_writer(1).unwrap();
        let worker = pool.install(nice);
        // Already at the lowest priority, a thread cannot go lower.
        let expected = (nice() + super::WORKER_NICE).min(19);
        assert_eq!(worker, expected);
        assert_eq!(super::thread_pool(1).unwrap().install(nice), nice());
    }
}
