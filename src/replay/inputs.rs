//! Reading a list of inputs, game by game: each input is opened as a
//! [`Source`] and read on a thread pool ([`parallel::read_source`]); its
//! chunks come back in input order, with where they stand (offset, lines
//! and games before them). An input that cannot be opened or read is
//! handed to the caller, and reading goes on with the next one.
//!
//! `fens`, `check` and the import share this loop; what each does with an
//! input (skip it, open it another way, store or print its games) is an
//! [`InputVisitor`]'s. Nothing here prints.

use std::ops::ControlFlow;

use super::parallel::{self, Chunk, GameMap};
use super::ReplayOptions;
use crate::pgn::source::{InputName, Source, SourceError};

/// What to do with an input about to be read ([`InputVisitor::begin`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputStart {
    /// Open and read it.
    Read,
    /// Go on with the next input.
    Skip,
    /// Read no more inputs.
    Stop,
}

/// Where a chunk stands among the inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkPlace {
    /// Byte offset of the chunk in its input (decompressed).
    pub offset: u64,
    /// Lines of the input before the chunk: add them to the chunk's line
    /// numbers for the input's own. Counted for a chunk with lines to
    /// place; for another, the lines up to the chunks before it that were
    /// not counted.
    pub lines_before: usize,
    /// Games of all inputs before the chunk's first game.
    pub games_before: u64,
}

/// What [`read_inputs`] read, over all inputs.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct InputTotals {
    /// Bytes of the chunks handed out (decompressed).
    pub bytes: u64,
    /// Games of the chunks handed out.
    pub games: u64,
}

/// What a caller of [`read_inputs`] does with each input; `G` is a game
/// as the caller's per-game function made it on the workers.
pub trait InputVisitor<G> {
    /// `name` is about to be opened. Default: read it.
    fn begin(&mut self, name: &InputName) -> InputStart {
        let _ = name;
        InputStart::Read
    }

    /// Opens `name` once [`begin`](Self::begin) said to read it. Default:
    /// [`Source::open`].
    ///
    /// # Errors
    /// [`SourceError`] if the input cannot be opened; it goes to
    /// [`unreadable`](Self::unreadable).
    fn open(&mut self, name: &InputName) -> Result<Source, SourceError> {
        Source::open(name)
    }

    /// `name` could not be opened, or failed while being read (after its
    /// chunks before the failure). `Break` reads no more inputs.
    fn unreadable(&mut self, name: &InputName, error: &SourceError) -> ControlFlow<()>;

    /// The next chunk of `name`, in input order. `Break` stops: neither
    /// [`end`](Self::end) nor any other input follows.
    fn chunk(&mut self, name: &InputName, chunk: Chunk<G>, place: ChunkPlace) -> ControlFlow<()>;

    /// `name` was read to its end. `Break` reads no more inputs. Default:
    /// go on.
    fn end(&mut self, name: &InputName) -> ControlFlow<()> {
        let _ = name;
        ControlFlow::Continue(())
    }
}

/// Reads `names` in order on `pool`, turning each game into `G` with
/// `build` on the workers, and hands every input's chunks to `visitor`.
/// For each input: [`InputVisitor::begin`], then
/// [`open`](InputVisitor::open), then its chunks and
/// [`end`](InputVisitor::end) — or [`unreadable`](InputVisitor::unreadable)
/// instead of `end` if opening or reading it fails. Returns what was read
/// (also when a hook stopped it).
pub fn read_inputs<G: Send>(
    names: &[InputName],
    pool: &rayon::ThreadPool,
    options: ReplayOptions,
    build: &impl GameMap<G>,
    visitor: &mut impl InputVisitor<G>,
) -> InputTotals {
    let mut totals = InputTotals::default();
    for name in names {
        match visitor.begin(name) {
            InputStart::Read => {}
            InputStart::Skip => continue,
            InputStart::Stop => break,
        }
        let source = match visitor.open(name) {
            Ok(source) => source,
            Err(e) => {
                if visitor.unreadable(name, &e).is_break() {
                    break;
                }
                continue;
            }
        };
        let mut stopped = false;
        let result = parallel::read_source(source, pool, options, build, |chunk, offset, lines| {
            let place = ChunkPlace { offset, lines_before: lines, games_before: totals.games };
            totals.bytes += chunk.len as u64;
            totals.games += chunk.games.len() as u64;
            let flow = visitor.chunk(name, chunk, place);
            stopped = flow.is_break();
            flow
        });
        if stopped {
            break;
        }
        let flow = match result {
            Ok(()) => visitor.end(name),
            Err(e) => visitor.unreadable(name, &e),
        };
        if flow.is_break() {
            break;
        }
    }
    totals
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;
    use crate::pgn::source::expand_inputs;
    use crate::replay::parallel::LocatedGame;

    /// Records every hook call as a line.
    #[derive(Default)]
    struct Log {
        lines: Vec<String>,
        skip: Option<&'static str>,
        stop_at_chunk: bool,
    }

    impl InputVisitor<LocatedGame> for Log {
        fn begin(&mut self, name: &InputName) -> InputStart {
            let file = file_name(name);
            self.lines.push(format!("begin {file}"));
            if self.skip == Some(file.as_str()) {
                InputStart::Skip
            } else {
                InputStart::Read
            }
        }

        fn unreadable(&mut self, name: &InputName, _error: &SourceError) -> ControlFlow<()> {
            self.lines.push(format!("unreadable {}", file_name(name)));
            ControlFlow::Continue(())
        }

        fn chunk(
            &mut self,
            name: &InputName,
            chunk: Chunk<LocatedGame>,
            place: ChunkPlace,
        ) -> ControlFlow<()> {
            self.lines.push(format!(
                "chunk {} at {} games {}+{}",
                file_name(name),
                place.offset,
                place.games_before,
                chunk.games.len()
            ));
            if self.stop_at_chunk {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }

        fn end(&mut self, name: &InputName) -> ControlFlow<()> {
            self.lines.push(format!("end {}", file_name(name)));
            ControlFlow::Continue(())
        }
    }

    fn file_name(name: &InputName) -> String {
        match name {
            InputName::Path(path) => path.file_name().unwrap().to_string_lossy().into_owned(),
            InputName::Stdin => "-".into(),
        }
    }

    const GAME: &str = "[Event \"x\"]\n\n1. e4 e5 *\n\n";

    fn run(log: &mut Log) -> InputTotals {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.pgn"), GAME.repeat(2)).unwrap();
        std::fs::write(dir.path().join("b.pgn"), GAME).unwrap();
        std::fs::write(dir.path().join("c.pgn"), GAME.repeat(3)).unwrap();
        let args: Vec<OsString> = ["a.pgn", "b.pgn", "c.pgn"]
            .iter()
            .map(|f| dir.path().join(f).into_os_string())
            .collect();
        let names = expand_inputs(&args).unwrap().names;
        // An input that vanished after the listing cannot be opened.
        std::fs::remove_file(dir.path().join("b.pgn")).unwrap();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        read_inputs(&names, &pool, ReplayOptions::default(), &|g| g, log)
    }

    #[test]
    fn every_input_is_begun_then_read_or_reported() {
        let mut log = Log::default();
        let totals = run(&mut log);
        assert_eq!(
            log.lines,
            [
                "begin a.pgn",
                "chunk a.pgn at 0 games 0+2",
                "end a.pgn",
                "begin b.pgn",
                "unreadable b.pgn",
                "begin c.pgn",
                "chunk c.pgn at 0 games 2+3",
                "end c.pgn",
            ]
        );
        let bytes = 5 * GAME.len() as u64;
        assert_eq!(totals, InputTotals { bytes, games: 5 });
    }

    #[test]
    fn a_skipped_input_is_not_opened_and_a_break_stops_everything() {
        let mut log = Log { skip: Some("a.pgn"), ..Log::default() };
        run(&mut log);
        assert_eq!(
            log.lines,
            [
                "begin a.pgn",
                "begin b.pgn",
                "unreadable b.pgn",
                "begin c.pgn",
                "chunk c.pgn at 0 games 0+3",
                "end c.pgn",
            ]
        );
        let mut log = Log { stop_at_chunk: true, ..Log::default() };
        let totals = run(&mut log);
        assert_eq!(log.lines, ["begin a.pgn", "chunk a.pgn at 0 games 0+2"]);
        assert_eq!(totals.games, 2);
    }
}
