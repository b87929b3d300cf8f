//! Reading one block of PGN on several threads: the block is cut into
//! chunks at game boundaries ([`crate::pgn::split`]), rayon workers
//! tokenize and replay chunks independently, and the results come back in
//! input order. Memory stays bounded: only a window of a few chunks per
//! thread is in flight at a time. No thread scans a mapped input whole: its
//! workers find their chunks' boundaries ([`read_block_guessed`]).

use std::collections::BTreeMap;
use std::ops::{ControlFlow, Range};
use std::sync::Arc;

use super::{GameRecord, ReplayOptions, Replayer, Skipped};
use crate::pgn::reader::is_space;
use crate::pgn::source::{Source, SourceError};
use crate::pgn::visitor::Visitor;
use crate::pgn::{split, LineIndex, Reader};
use crate::timings::{self, Stage};

/// Streams are cut into blocks of about this size at game boundaries.
const BLOCK: usize = 8 << 20;
/// A stream's block never grows beyond this, so that a stream's memory is
/// bounded: a game longer than that (a comment of hundreds of megabytes) is
/// reported and not stored ([`Skipped::TooLong`]), its text skipped to the
/// next game. A mapped input holds every game whole.
const MAX_BLOCK: usize = 64 << 20;
/// Chunks handed to one worker at a time.
const CHUNK: usize = 1 << 20;
/// Chunks handed out and not yet taken, at most, whatever the threads: an
/// import's chunk holds its games' rows (several MB) until the writer
/// takes it, so that a window of three a thread made `--threads 16` hold
/// 400 MB more than `--threads 2`.
const MAX_WINDOW: usize = 24;

/// Chunks handed out to a pool of `threads` and not yet taken: three a
/// thread, so that an uneven chunk does not idle the others, within
/// [`MAX_WINDOW`] but at least one a thread.
pub fn window(threads: usize) -> usize {
    (3 * threads).min(MAX_WINDOW).max(threads)
}
/// A chunk (block) with no boundary for this many times its target size is
/// cut at a forced cut ([`split::forced_cut`]) if there is one: text
/// without line breaks must not make one worker hold a whole block.
const FORCE_AFTER: usize = 8;

/// A game with its chunk-local locations.
#[derive(Debug)]
pub struct LocatedGame {
    /// The replayed game (offsets relative to its chunk).
    pub record: GameRecord,
    /// Line (within the chunk, from 1) and column of the game's error (of
    /// its start for a game skipped as another variant).
    pub error_at: Option<(usize, usize)>,
    /// Warnings inside the game or before it: line, column, message.
    pub warnings: Vec<(usize, usize, String)>,
}

/// What the workers make of each game read, and then of the games of a
/// chunk together: a function of the game, or a type with a chunk's step
/// too (sums over a chunk's games, so that the thread that takes the
/// chunks adds one sum, not every game).
pub trait GameMap<G>: Sync {
    /// The game as the caller keeps it.
    fn game(&self, game: LocatedGame) -> G;

    /// Called once a chunk's games are made, in order, on the same worker.
    fn chunk(&self, _games: &mut [G]) {}
}

impl<G, F: Fn(LocatedGame) -> G + Sync> GameMap<G> for F {
    fn game(&self, game: LocatedGame) -> G {
        self(game)
    }
}

/// The games of one chunk, in order (as [`LocatedGame`]s, or whatever the
/// caller's per-game function made of them on the worker).
#[derive(Debug)]
pub struct Chunk<G = LocatedGame> {
    /// Byte offset of the chunk in the block.
    pub offset: usize,
    /// Its length in bytes.
    pub len: usize,
    /// Line breaks in the chunk (to number the lines of the next one);
    /// `None` when they were not counted: a chunk cut on its worker from an
    /// input held whole ([`read_block`]) is counted only if it has a line
    /// to place, and the others only when a later chunk needs them.
    pub line_breaks: Option<usize>,
    /// The games.
    pub games: Vec<G>,
    /// Warnings after the last game (text skipped at the end of the chunk):
    /// line, column, message. They come after the games in input order.
    pub trailing: Vec<(usize, usize, String)>,
}

/// Reads and replays every game of `data` (which holds whole games).
pub fn read_chunk(data: &[u8], offset: usize, options: ReplayOptions) -> Chunk {
    read_chunk_with(data, offset, options, &|game| game)
}

/// [`read_chunk`], turning each game into `G` with `map` as soon as it is
/// read.
pub fn read_chunk_with<G>(
    data: &[u8],
    offset: usize,
    options: ReplayOptions,
    map: &impl GameMap<G>,
) -> Chunk<G> {
    read_chunk_at(data, offset, 0, Lines::All, options, map)
}

/// The positions of a game a database indexes: plies 0 to 65,535 (the
/// index stores a ply in 16 bits).
pub const INDEXED_POSITIONS: usize = 1 << 16;

/// The warning for a game of `plies` plies, longer than the index covers.
fn past_the_index(plies: usize) -> String {
    format!(
        "the game has {plies} plies: only its first {} positions (to ply {}) are indexed",
        INDEXED_POSITIONS,
        INDEXED_POSITIONS - 1
    )
}

/// [`read_chunk_with`] for a chunk that starts `column_base` bytes into a
/// line (after a forced cut): columns on its first line count from the
/// line's start.
fn read_chunk_at<G>(
    data: &[u8],
    offset: usize,
    column_base: usize,
    lines: Lines,
    options: ReplayOptions,
    map: &impl GameMap<G>,
) -> Chunk<G> {
    read_games(data, offset, column_base, None, lines, options, map).expect(UNCUT)
}

/// Which chunks' line breaks their worker counts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lines {
    /// Every chunk's.
    All,
    /// Only those of a chunk with a line to place: the rest are counted on
    /// the calling thread when a later chunk needs them (most inputs have
    /// none, and counting was a tenth of reading long comments).
    Placed,
}

/// Reads `data` on the calling thread in the chunks that cells of
/// `chunk_size` bytes make, each ended where its reading meets a boundary
/// past the next cell's start, however far: a mapped input's chunks where
/// no stretch is too long to cut. What `pgn` fuzzing compares with reading
/// `data` whole.
pub fn read_cut_while_reading(
    data: &[u8],
    chunk_size: usize,
    options: ReplayOptions,
) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < data.len() {
        let min = next_cell(start, chunk_size) - start;
        let cut = CutWhileReading { min, give_up: usize::MAX };
        let base = column_at(data, start, 0);
        let chunk = read_games(&data[start..], start, base, Some(cut), Lines::All, options, &|g| g);
        let chunk = chunk.expect(UNCUT);
        start += chunk.len;
        chunks.push(chunk);
    }
    chunks
}

/// A chunk read to the end of its bytes, or with no bound on its length,
/// is never given up.
const UNCUT: &str = "a chunk read to its end is read";

/// Where [`read_games`] cuts its chunk as it reads (offsets in its bytes).
#[derive(Clone, Copy)]
struct CutWhileReading {
    /// The chunk ends at the first boundary at or after this.
    min: usize,
    /// Past this without one, the reading is given up.
    give_up: usize,
}

/// The games of `data` as a chunk: all of them, or with `cut`, those
/// before the first boundary at or after `cut.min` that the reader meets
/// between games — the chunk's end found by the reading, with no scan of
/// its bytes before it; `None` if the reader passes `cut.give_up`
/// without one. The reader sees all of `data`, as a reader of the whole
/// input would: a comment that closes far on is read as one.
fn read_games<G>(
    data: &[u8],
    offset: usize,
    column_base: usize,
    cut: Option<CutWhileReading>,
    count: Lines,
    options: ReplayOptions,
    map: &impl GameMap<G>,
) -> Option<Chunk<G>> {
    // The chunk's CPU time, shared by what the map counts in it.
    let _stretch = timings::Stretch::begin();
    let mut lines = LineIndex::continuing(data, column_base);
    let mut reader = Reader::new(data);
    if let Some(cut) = cut {
        reader.stop_before_tags_from(cut.min);
    }
    let mut replayer = Replayer::new(options);
    // Room for a game in every 512 bytes (over-the-board collections hold
    // one in 600, lichess one in 1,500): the results seldom grow, each
    // growth a copy of every game so far, and the room past the last game
    // is never touched. Bounded for a chunk of one huge game.
    let expected = cut.map_or(data.len(), |cut| cut.min);
    let mut games = Vec::with_capacity((expected / 512 + 1).min(4096));
    let mut placed = false;
    let end = loop {
        let Some(record) = reader.read_game(&mut replayer) else {
            // The end of the data, or the reader stopped before tags: a cut
            // if the text around them makes a boundary, or a forced cut
            // (text without line breaks), here breaking no game.
            let at = reader.position();
            if at == data.len()
                || split::is_boundary_at(data, at)
                || split::is_forced_cut_at(data, at)
            {
                break at;
            }
            reader.stop_before_tags_from(at + 1);
            continue;
        };
        let mut warnings = skipped_warnings(data, &mut reader, &mut lines);
        if options.keys && record.moves.len() >= INDEXED_POSITIONS {
            let (l, c) = lines.locate(record.offset);
            warnings.push((l, c, past_the_index(record.moves.len())));
        }
        for problem in &record.syntax {
            let (l, c) = lines.locate(problem.offset);
            warnings.push((l, c, problem.message.to_string()));
        }
        let error_at = match (&record.error, &record.skipped) {
            (Some(e), _) => Some(lines.locate(e.offset)),
            (None, Some(_)) => Some(lines.locate(record.offset)),
            (None, None) => None,
        };
        placed |= error_at.is_some() || !warnings.is_empty();
        games.push(map.game(LocatedGame { record, error_at, warnings }));
        // Not given up when only spaces are left: the data ends there.
        let at = reader.position();
        if cut.is_some_and(|cut| at > cut.give_up) && !data[at..].iter().all(|&b| is_space(b)) {
            return None;
        }
    };
    // Text after the last game is skipped while looking for one more: it
    // is reported too, or a cut before the next game would hide it.
    let trailing = skipped_warnings(data, &mut reader, &mut lines);
    placed |= !trailing.is_empty();
    let line_breaks = (placed || count == Lines::All).then(|| lines.locate(end).0 - 1);
    map.chunk(&mut games);
    Some(Chunk { offset, len: end, line_breaks, games, trailing })
}

/// Warnings for the text `reader` skipped since the last call.
fn skipped_warnings(
    data: &[u8],
    reader: &mut Reader<'_>,
    lines: &mut LineIndex<'_>,
) -> Vec<(usize, usize, String)> {
    let mut warnings = Vec::new();
    for (at, len) in reader.skipped() {
        let (l, c) = lines.locate(at);
        let shown = &data[at..at + len];
        // A stretch spans lines only when it stands for the unlisted rest
        // of a long gap.
        let first_line = memchr::memchr2(b'\n', b'\r', shown).map_or(shown, |end| &shown[..end]);
        let text = String::from_utf8_lossy(&first_line[..first_line.len().min(40)]).into_owned();
        let message = if first_line.len() == len {
            format!("skipped text between games: '{text}'")
        } else {
            let last = lines.locate(at + len).0;
            format!("skipped text between games: '{text}', and every line up to line {last}")
        };
        warnings.push((l, c, message));
    }
    warnings
}

/// Reads `block` on `pool`, calling `emit` with each chunk in input order.
/// `column_base` is the column of the block's first byte minus one (bytes of
/// its line before it: 0 unless a forced cut ended the previous block).
/// `chunk_size` is the target chunk length. The calling thread cuts chunks
/// and hands each to the pool as soon as it is cut, keeps at most a few
/// chunks per thread in flight (memory stays bounded), and emits results in
/// order as they complete — no barrier between batches, so a slow chunk
/// does not idle the other workers. `map` runs on the workers, once per
/// game. `emit` returning `Break` stops.
pub fn read_block<G: Send>(
    pool: &rayon::ThreadPool,
    block: &[u8],
    column_base: usize,
    options: ReplayOptions,
    chunk_size: usize,
    map: &impl GameMap<G>,
    emit: impl FnMut(Chunk<G>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    read_block_cut(pool, block, None, Overlong::No, column_base, options, chunk_size, map, emit)
}

/// [`read_block`] with the block's boundaries, if a scan found them all
/// already ([`block_end`]): chunks are cut there without scanning again.
#[allow(clippy::too_many_arguments)]
fn read_block_cut<G: Send>(
    pool: &rayon::ThreadPool,
    block: &[u8],
    boundaries: Option<&[usize]>,
    overlong: Overlong,
    column_base: usize,
    options: ReplayOptions,
    chunk_size: usize,
    map: &impl GameMap<G>,
    mut emit: impl FnMut(Chunk<G>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let cut = Cut { block, boundaries, column_base, offset: 0, overlong };
    if pool.current_num_threads() <= 1 && boundaries.is_none() && overlong == Overlong::No {
        // The chunks of the cells, read in turn.
        let chunk_size = chunk_size.max(1);
        let mut start = 0;
        while start < block.len() {
            let cell = start / chunk_size;
            let job = Job::Cell { block, column_base, cell, start: Some(start), chunk_size };
            let chunk = job.read(options, map).1.expect(CUT);
            start = chunk.offset + chunk.len;
            emit(chunk)?;
        }
        return ControlFlow::Continue(());
    }
    if pool.current_num_threads() <= 1 {
        // Same chunks, read in turn: memory stays bounded by one chunk.
        let mut start = 0;
        while start < block.len() {
            let (job, end) = cut.job(start, chunk_size, |range| Bytes::Borrowed(&block[range]));
            emit(job.read(options, map).1.expect(CUT))?;
            start = end;
        }
        return ControlFlow::Continue(());
    }
    if boundaries.is_none() && overlong == Overlong::No {
        return read_block_guessed(pool, block, column_base, options, chunk_size, map, emit);
    }
    let mut start = 0;
    let next = |_wait| {
        if start >= block.len() {
            return Next::End;
        }
        let (job, end) = cut.job(start, chunk_size, |range| Bytes::Borrowed(&block[range]));
        start = end;
        Next::Job(job)
    };
    dispatch(pool, options, map, next, |_, chunk, _| Verdict::Take(emit(chunk.expect(CUT))))
}

/// A chunk cut before it was handed out is always read.
const CUT: &str = "a chunk cut on the calling thread is read";

/// [`read_block_cut`] for a block whose boundaries are not known, on
/// several threads: no thread scans the whole block. The block is seen as
/// cells of `chunk_size` bytes; the chunk of cell `k` runs from the first
/// boundary at or after the cell's start to the first at or after the next
/// cell's start (empty when one game covers the cell). Each worker guesses
/// where its chunk starts by scanning from a little before its cell — not
/// knowing whether that is inside a comment — and ends it where its
/// reading, from there, meets a boundary between games past the next
/// cell's start (so its bytes are not scanned twice). The calling thread
/// only checks, in input order, that each chunk starts where the one before
/// ended (which that chunk's worker found reading from a true boundary); a
/// chunk that does not is read again from there. One thread cuts the same
/// chunks.
fn read_block_guessed<G: Send>(
    pool: &rayon::ThreadPool,
    block: &[u8],
    column_base: usize,
    options: ReplayOptions,
    chunk_size: usize,
    map: &impl GameMap<G>,
    mut emit: impl FnMut(Chunk<G>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let chunk_size = chunk_size.max(1);
    let cell = |index: usize, start: Option<usize>| Job::Cell {
        block,
        column_base,
        cell: index,
        start,
        chunk_size,
    };
    let mut index = 0usize;
    let next = |_wait| {
        if index.saturating_mul(chunk_size) >= block.len() {
            return Next::End;
        }
        // The first chunk starts at the block's start, a boundary.
        let job = cell(index, (index == 0).then_some(0));
        index += 1;
        Next::Job(job)
    };
    let mut expected = 0;
    dispatch(pool, options, map, next, |index, chunk, _| match chunk {
        Some(chunk) if chunk.offset == expected => {
            expected += chunk.len;
            if chunk.len == 0 {
                Verdict::Take(ControlFlow::Continue(()))
            } else {
                Verdict::Take(emit(chunk))
            }
        }
        _ => Verdict::Redo(cell(index, Some(expected))),
    })
}

/// The bytes of a chunk to read: part of a block the caller holds, or of
/// a block the reading thread read ahead (shared by its chunks, freed with
/// the last).
enum Bytes<'a> {
    Borrowed(&'a [u8]),
    Shared(Arc<Recycled>, Range<usize>),
}

impl Bytes<'_> {
    fn get(&self) -> &[u8] {
        match self {
            Bytes::Borrowed(bytes) => bytes,
            Bytes::Shared(block, range) => &block.block()[range.clone()],
        }
    }
}

/// A chunk to hand to a worker.
enum Job<'a> {
    /// A chunk cut on the calling thread.
    Cut {
        bytes: Bytes<'a>,
        /// Byte offset of the chunk in its block.
        offset: usize,
        /// Bytes of the chunk's first line before it.
        column_base: usize,
        /// Byte offset of its block in the input.
        block_offset: u64,
        /// How it is read.
        kind: ChunkKind,
    },
    /// The chunk of one cell of a mapped block ([`read_block_guessed`]),
    /// cut on the worker.
    Cell {
        block: &'a [u8],
        /// Bytes of the block's first line before it.
        column_base: usize,
        /// The cell's index: it starts at `cell * chunk_size`.
        cell: usize,
        /// Where the chunk starts, if known: else the worker guesses.
        start: Option<usize>,
        chunk_size: usize,
    },
}

impl Job<'_> {
    /// Reads the chunk: `None` for a cell whose start could not be guessed,
    /// or whose guessed chunk would be unusually long (it is read again
    /// from a known start).
    fn read<G>(self, options: ReplayOptions, map: &impl GameMap<G>) -> (u64, Option<Chunk<G>>) {
        match self {
            Job::Cut { bytes, offset, column_base, block_offset, kind } => {
                let data = bytes.get();
                let chunk = match kind {
                    ChunkKind::Games => {
                        read_chunk_at(data, offset, column_base, Lines::All, options, map)
                    }
                    ChunkKind::TooLong | ChunkKind::Rest => {
                        let game = kind == ChunkKind::TooLong;
                        overlong_chunk(data, offset, column_base, game, options, map)
                    }
                };
                (block_offset, Some(chunk))
            }
            Job::Cell { block, column_base, cell, start, chunk_size } => {
                let from = cell * chunk_size;
                let limit = from.saturating_add(chunk_size.saturating_mul(FORCE_AFTER));
                let guessed = start.is_none();
                let Some(start) = start.or_else(|| guessed_start(block, from, limit)) else {
                    return (0, None);
                };
                let min = from.saturating_add(chunk_size);
                if start >= min {
                    let empty = Chunk {
                        offset: start,
                        len: 0,
                        line_breaks: Some(0),
                        games: Vec::new(),
                        trailing: Vec::new(),
                    };
                    return (0, Some(empty));
                }
                let base = column_at(block, start, column_base);
                let data = &block[start..];
                let window = chunk_size.saturating_mul(FORCE_AFTER);
                // As [`chunk_end`] cuts: past the window only when the
                // block goes on for more than two chunks.
                let give_up = if data.len() <= 2 * chunk_size { usize::MAX } else { window };
                let cut = CutWhileReading { min: min - start, give_up };
                let count = Lines::Placed;
                if let Some(chunk) = read_games(data, start, base, Some(cut), count, options, map) {
                    return (0, Some(chunk));
                }
                let end = chunk_end(block, start, min, chunk_size, None);
                if guessed && end - start > window {
                    return (0, None);
                }
                (0, Some(read_chunk_at(&block[start..end], start, base, count, options, map)))
            }
        }
    }
}

/// What a scan from a little before `at` takes for the first place at or
/// after it where a reading would end a chunk: a boundary, or tags right
/// after a result (text without line breaks); `None` if it finds neither
/// before `limit` (and the block goes on). Only a guess: the scan does not
/// know whether it starts in a comment.
fn guessed_start(block: &[u8], at: usize, limit: usize) -> Option<usize> {
    // Enough text before `at` for the rule that a boundary follows movetext.
    const LOOK_BACK: usize = 1024;
    let from = at.saturating_sub(LOOK_BACK);
    let to = limit.min(block.len());
    let found = from + split::next_boundary_after(&block[from..to], 0, at - from);
    let found = split::forced_cut(block, at, found).unwrap_or(found);
    (found < to || to == block.len()).then_some(found)
}

/// The start of the cell after the one holding `at`: a chunk that starts
/// at `at` ends at the first boundary from there.
fn next_cell(at: usize, chunk_size: usize) -> usize {
    (at / chunk_size.max(1)).saturating_add(1).saturating_mul(chunk_size.max(1))
}

/// A block as chunks are cut from it.
struct Cut<'b> {
    block: &'b [u8],
    /// Its boundaries, if they were all scanned.
    boundaries: Option<&'b [usize]>,
    /// Bytes of its first line before it.
    column_base: usize,
    /// Its offset in the input.
    offset: u64,
    /// What of it belongs to a game longer than a block.
    overlong: Overlong,
}

impl Cut<'_> {
    /// The chunk that starts at `start` (cut where [`chunk_end`] says, or
    /// at the end of an overlong game's text), its bytes made by `bytes`
    /// from its range; and where it ends.
    fn job<'a>(
        &self,
        start: usize,
        chunk_size: usize,
        bytes: impl FnOnce(Range<usize>) -> Bytes<'a>,
    ) -> (Job<'a>, usize) {
        let (kind, end) = match self.overlong {
            Overlong::Start => (ChunkKind::TooLong, self.block.len()),
            Overlong::Rest(rest) if start < rest => (ChunkKind::Rest, rest),
            _ => {
                let min = next_cell(start, chunk_size);
                (ChunkKind::Games, chunk_end(self.block, start, min, chunk_size, self.boundaries))
            }
        };
        let job = Job::Cut {
            bytes: bytes(start..end),
            offset: start,
            column_base: column_at(self.block, start, self.column_base),
            block_offset: self.offset,
            kind,
        };
        (job, end)
    }
}

/// What of a stream's block belongs to a game longer than [`MAX_BLOCK`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overlong {
    /// Nothing: the block holds whole games.
    No,
    /// The block is the first [`MAX_BLOCK`] bytes of such a game.
    Start,
    /// Its first bytes, to this offset, are the rest of such a game.
    Rest(usize),
}

/// Follows a stream's blocks through games longer than [`MAX_BLOCK`].
#[derive(Debug, Default)]
struct Overlongs {
    /// The last block ended inside such a game.
    inside: bool,
}

impl Overlongs {
    /// What of `block` belongs to an overlong game. `whole`: it was
    /// delivered uncut, at [`MAX_BLOCK`] with no boundary ([`block_end`]);
    /// `boundaries`: those its cut scanned (empty if none was scanned).
    fn next(&mut self, block: &[u8], boundaries: &[usize], whole: bool) -> Overlong {
        let was_inside = std::mem::replace(&mut self.inside, whole);
        match (whole, was_inside) {
            (true, false) => Overlong::Start,
            (true, true) => Overlong::Rest(block.len()),
            (false, false) => Overlong::No,
            // The scan started inside the game, perhaps inside a comment
            // that spans lines, after which it finds no boundary (it cannot
            // tell where such a comment started): the tags after a result
            // end the game too.
            (false, true) => {
                let scanned = boundaries.iter().copied().find(|&at| at > 0);
                let forced = split::forced_cut(block, 0, block.len());
                Overlong::Rest(scanned.into_iter().chain(forced).min().unwrap_or(block.len()))
            }
        }
    }
}

/// How a chunk is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChunkKind {
    /// Its games are read and replayed.
    Games,
    /// It is the start of a game longer than [`MAX_BLOCK`]: reported, not
    /// read.
    TooLong,
    /// It is the rest of such a game: only its lines are counted.
    Rest,
}

/// The chunk of a game longer than [`MAX_BLOCK`] read from a stream: the
/// game, reported and not stored, with no tags or moves read; or, for the
/// rest of its text (`game` false), nothing but the lines.
fn overlong_chunk<G>(
    data: &[u8],
    offset: usize,
    column_base: usize,
    game: bool,
    options: ReplayOptions,
    map: &impl GameMap<G>,
) -> Chunk<G> {
    let _stretch = timings::Stretch::begin();
    let mut lines = LineIndex::continuing(data, column_base);
    let mut games = Vec::new();
    if game {
        let mut replayer = Replayer::new(options);
        replayer.begin_game(0);
        let _ = replayer.end_tags();
        let mut record = replayer.end_game();
        record.skipped = Some(Skipped::TooLong { bytes: data.len() });
        let error_at = Some(lines.locate(0));
        games.push(map.game(LocatedGame { record, error_at, warnings: Vec::new() }));
    }
    let line_breaks = Some(lines.locate(data.len()).0 - 1);
    map.chunk(&mut games);
    Chunk { offset, len: data.len(), line_breaks, games, trailing: Vec::new() }
}

/// What [`dispatch`] does with a chunk that came back.
enum Verdict<'a> {
    /// It is in place: emitted (the flow says whether to go on), or
    /// dropped.
    Take(ControlFlow<()>),
    /// It is not: this job reads the chunk in its place.
    Redo(Job<'a>),
}

/// What the source of chunks of [`dispatch`] has next.
enum Next<'a> {
    Job(Job<'a>),
    /// Nothing yet (only when not asked to wait).
    Later,
    /// No more chunks.
    End,
}

/// What the workers finished, handed to the calling thread a few at a
/// time: it is woken once as many as it waits for are there, not by each.
struct Finished<T> {
    /// The results, and how many the calling thread waits for (none is
    /// woken while it does not wait).
    state: std::sync::Mutex<(Vec<T>, usize)>,
    ready: std::sync::Condvar,
}

impl<T> Default for Finished<T> {
    fn default() -> Self {
        Finished {
            state: std::sync::Mutex::new((Vec::new(), usize::MAX)),
            ready: std::sync::Condvar::new(),
        }
    }
}

impl<T> Finished<T> {
    /// Adds a result, waking the calling thread if it was the last it
    /// waited for.
    fn push(&self, item: T) {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        state.0.push(item);
        if state.0.len() == state.1 {
            self.ready.notify_one();
        }
    }

    /// Waits until at least `wanted` results are there, and moves them all
    /// to `into`.
    fn take(&self, wanted: usize, into: &mut Vec<T>) {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        state.1 = wanted;
        while state.0.len() < wanted {
            state = self.ready.wait(state).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        state.1 = usize::MAX;
        into.append(&mut state.0);
    }
}

/// Hands the chunks `next` gives to `pool`, a few per thread at a time
/// (memory stays bounded), and calls `emit` with each result and its
/// block's offset in input order as they complete: no barrier between
/// chunks, or between blocks, so a slow chunk does not idle the other
/// workers. `next(wait)` is asked for a chunk whenever the window has room;
/// with `wait` (nothing in flight) it blocks until it has one or knows
/// there are none. `emit(index, chunk, block_offset)` gets the chunks in
/// the order of their jobs; its verdict takes the chunk (and `Break`
/// stops) or hands out another job in the same place.
fn dispatch<'a, G: Send>(
    pool: &rayon::ThreadPool,
    options: ReplayOptions,
    map: &impl GameMap<G>,
    mut next: impl FnMut(bool) -> Next<'a>,
    mut emit: impl FnMut(usize, Option<Chunk<G>>, u64) -> Verdict<'a>,
) -> ControlFlow<()> {
    let in_flight = window(pool.current_num_threads());
    type Done<G> = (usize, std::thread::Result<(u64, Option<Chunk<G>>)>);
    let finished = Finished::<Done<G>>::default();
    let mut flow = ControlFlow::Continue(());
    pool.in_place_scope(|scope| {
        let mut pending: BTreeMap<usize, (u64, Option<Chunk<G>>)> = BTreeMap::new();
        let (mut spawned, mut emitted, mut ended) = (0usize, 0usize, false);
        let mut done = Vec::new();
        let finished = &finished;
        let spawn = |job: Job<'a>, index: usize| {
            scope.spawn(move |_| {
                // A panic is carried back and resumed on the calling
                // thread, which would otherwise wait for it forever.
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    job.read(options, map)
                }));
                finished.push((index, result));
            });
        };
        loop {
            // The next job is not ready yet (a stream's block): woken by
            // each chunk done, to ask again.
            let mut starved = false;
            while flow.is_continue() && !ended && spawned - emitted < in_flight {
                match next(spawned == emitted) {
                    Next::Job(job) => spawn(job, spawned),
                    Next::Later => {
                        starved = true;
                        break;
                    }
                    Next::End => {
                        ended = true;
                        break;
                    }
                }
                spawned += 1;
            }
            if flow.is_break() || (ended && emitted == spawned) {
                break;
            }
            if emitted == spawned {
                continue;
            }
            // Woken once half the window is done, not for every chunk: on
            // as many cores as workers, each wake takes a core from one.
            // Half the window still keeps every worker busy.
            let running = spawned - emitted - pending.len();
            let wanted = if starved { 1 } else { (in_flight / 2).clamp(1, running.max(1)) };
            finished.take(wanted, &mut done);
            for (index, result) in done.drain(..) {
                let chunk = result.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                pending.insert(index, chunk);
            }
            while let Some((block_offset, chunk)) = pending.remove(&emitted) {
                match emit(emitted, chunk, block_offset) {
                    Verdict::Take(taken) => {
                        emitted += 1;
                        if taken.is_break() {
                            flow = ControlFlow::Break(());
                            break;
                        }
                    }
                    Verdict::Redo(job) => {
                        spawn(job, emitted);
                        break;
                    }
                }
            }
        }
    });
    flow
}

/// Bytes between the start of the line holding `block[at]` and `at`;
/// `column_base` is that for the block's first byte.
fn column_at(block: &[u8], at: usize, column_base: usize) -> usize {
    match memchr::memrchr2(b'\n', b'\r', &block[..at]) {
        Some(line_break) => at - line_break - 1,
        None => column_base + at,
    }
}

/// The end of the chunk of `block` that starts at `start` (a boundary): the
/// first boundary at or after `min` (at most `chunk_size` bytes after
/// `start`, the start of the next cell); without one in the next
/// [`FORCE_AFTER`] chunk sizes (and more than two chunk sizes left), a
/// forced cut there; else the next boundary however far (or the block's
/// end). `boundaries`, when known, are every boundary of `block` in order:
/// then nothing is scanned.
fn chunk_end(
    block: &[u8],
    start: usize,
    min: usize,
    chunk_size: usize,
    boundaries: Option<&[usize]>,
) -> usize {
    let window = start.saturating_add(chunk_size.saturating_mul(FORCE_AFTER)).min(block.len());
    let first_after = |list: &[usize]| {
        list.get(list.partition_point(|&b| b < min)).copied().unwrap_or(block.len())
    };
    let end = match boundaries {
        Some(list) => first_after(list),
        None => split::next_boundary_after(&block[..window], start, min - start),
    };
    if end < window || block.len() - start <= 2 * chunk_size {
        return end;
    }
    split::forced_cut(block, min, window).unwrap_or_else(|| match boundaries {
        Some(_) => end,
        None => split::next_boundary_after(block, start, min - start),
    })
}

/// Where a stream's block may end (`cut` of [`Source::for_each_block`]):
/// everything at the end of the input, else the last boundary, else — in a
/// buffer already grown to [`FORCE_AFTER`] chunks — the last forced cut.
/// `boundaries` receives every boundary of `buf` when it is scanned (and
/// is left empty when it is not).
fn block_end(buf: &[u8], eof: bool, boundaries: &mut Vec<usize>) -> usize {
    boundaries.clear();
    if eof {
        return buf.len();
    }
    split::scan_boundaries(buf, |at| {
        boundaries.push(at);
        true
    });
    match boundaries.last().copied().unwrap_or(0) {
        0 if buf.len() >= CHUNK * FORCE_AFTER => split::last_forced_cut(buf).unwrap_or(0),
        n => n,
    }
}

/// [`block_end`], setting `whole` when the block is delivered uncut: a
/// buffer grown to `max_block` with no boundary, not at the end.
fn cut_block(
    buf: &[u8],
    eof: bool,
    max_block: usize,
    boundaries: &mut Vec<usize>,
    whole: &std::cell::Cell<bool>,
) -> usize {
    let n = block_end(buf, eof, boundaries);
    whole.set(!eof && n == 0 && buf.len() >= max_block);
    n
}

/// Reads a whole input on `pool`: blocks cut at game boundaries
/// ([`Source::for_each_block`]), each read by [`read_block`] with `map` on
/// the workers. `emit(chunk, offset, lines)` gets the chunks in input
/// order with the chunk's offset in the (decompressed) input and the number
/// of lines before it (add it to the chunk's line numbers; exact for a
/// chunk with lines to place, see [`Chunk::line_breaks`]); `Break` stops.
/// A stream is read (and decompressed, and scanned for boundaries) a block
/// ahead on a thread of its own, so that the workers never wait for it.
///
/// # Errors
/// [`SourceError`] if reading fails; the chunks before were emitted.
pub fn read_source<G: Send>(
    source: Source,
    pool: &rayon::ThreadPool,
    options: ReplayOptions,
    map: &impl GameMap<G>,
    emit: impl FnMut(Chunk<G>, u64, usize) -> ControlFlow<()>,
) -> Result<(), SourceError> {
    let reading =
        Reading { pool, options, block_size: BLOCK, chunk_size: CHUNK, max_block: MAX_BLOCK, map };
    read_source_sized(source, &reading, emit)
}

/// How an input is read: on which pool, recording what of each game, in
/// blocks and chunks of which sizes, and what the workers make of each
/// game.
struct Reading<'a, M> {
    pool: &'a rayon::ThreadPool,
    options: ReplayOptions,
    block_size: usize,
    chunk_size: usize,
    /// The longest block of a stream ([`MAX_BLOCK`]).
    max_block: usize,
    map: &'a M,
}

/// [`read_source`] as `reading` says.
fn read_source_sized<G: Send, M: GameMap<G>>(
    source: Source,
    reading: &Reading<'_, M>,
    mut emit: impl FnMut(Chunk<G>, u64, usize) -> ControlFlow<()>,
) -> Result<(), SourceError> {
    let Reading { pool, options, block_size, chunk_size, max_block, map } = *reading;
    let lines = std::cell::RefCell::new(LinesBefore::default());
    // Chunks come back in input order, and nothing reads a chunk's bytes
    // once it is emitted: the pages before its end can go.
    let mut release = source.releaser();
    let mut emit = |chunk: Chunk<G>, block: &[u8], block_offset: u64| {
        let offset = block_offset + chunk.offset as u64;
        let end = offset + chunk.len as u64;
        let before = lines.borrow_mut().take(&chunk, block);
        let flow = emit(chunk, offset, before);
        if let Some(release) = &mut release {
            release.release_to(end);
        }
        flow
    };
    if source.is_stream() && pool.current_num_threads() > 1 {
        // Its chunks are all cut before they are read, and counted.
        return read_ahead(source, reading, |chunk, offset| emit(chunk, &[], offset));
    }
    let stream = source.is_stream();
    let mut column_base = 0usize;
    // The boundaries the last cut found, scanning the buffer the next block
    // is cut from: its chunks are cut there (a second scan of every byte
    // was a tenth of an import's instructions).
    let boundaries = std::cell::RefCell::new(Vec::new());
    let whole = std::cell::Cell::new(false);
    let cut =
        |buf: &[u8], eof| cut_block(buf, eof, max_block, &mut boundaries.borrow_mut(), &whole);
    let mut overlongs = Overlongs::default();
    source.for_each_block(block_size, max_block, cut, |block, block_offset| {
        let found = boundaries.borrow();
        let overlong = overlongs.next(block, &found, whole.get());
        // Empty: not scanned (a mapped input, the end of a stream).
        let known = (!found.is_empty()).then_some(&found[..]);
        let flow = read_block_cut(
            pool,
            block,
            known,
            overlong,
            column_base,
            options,
            chunk_size,
            map,
            |c| emit(c, block, block_offset),
        );
        if stream {
            // The next block's lines come after these.
            lines.borrow_mut().end_block(block);
        }
        column_base = column_at(block, block.len(), column_base);
        flow
    })
}

/// The lines of an input before each of its chunks, taken in order.
#[derive(Default)]
struct LinesBefore {
    /// Line breaks before the first chunk not counted yet (or the next).
    counted: usize,
    /// Where the chunks not counted yet start in the current block; they
    /// run up to the next chunk.
    uncounted_from: Option<usize>,
}

impl LinesBefore {
    /// The lines before `chunk`, a chunk of `block`: exact when the chunk
    /// has lines to place (its own were counted), the lines of the chunks
    /// before it that were not counted being counted here then; for
    /// another chunk, the lines before the first of those.
    fn take<G>(&mut self, chunk: &Chunk<G>, block: &[u8]) -> usize {
        let Some(breaks) = chunk.line_breaks else {
            self.uncounted_from.get_or_insert(chunk.offset);
            return self.counted;
        };
        if let Some(from) = self.uncounted_from.take() {
            self.counted += breaks_between(block, from, chunk.offset);
        }
        let before = self.counted;
        self.counted += breaks;
        before
    }

    /// Counts what is left uncounted of `block`, for a block after it.
    fn end_block(&mut self, block: &[u8]) {
        if let Some(from) = self.uncounted_from.take() {
            self.counted += breaks_between(block, from, block.len());
        }
    }
}

/// The line breaks in `block[from..to]` as a worker reading from `from`
/// counts them.
fn breaks_between(block: &[u8], from: usize, to: usize) -> usize {
    LineIndex::new(&block[from..]).locate(to - from).0 - 1
}

/// A buffer holding a block, sent back to the reading thread when the last
/// chunk of the block is done with it: the next blocks are read into it,
/// with no new pages to fault in.
struct Recycled {
    buf: Vec<u8>,
    /// The block is `buf[..len]`.
    len: usize,
    home: std::sync::mpsc::Sender<Vec<u8>>,
}

impl Recycled {
    fn block(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl Drop for Recycled {
    fn drop(&mut self) {
        // The reading thread may be gone; the buffer is freed then.
        let _ = self.home.send(std::mem::take(&mut self.buf));
    }
}

/// A block of a stream, read ahead.
struct Block {
    data: Arc<Recycled>,
    /// Its boundaries if the cut scanned them all (else empty).
    boundaries: Vec<usize>,
    /// Its offset in the input.
    offset: u64,
    /// Bytes of its first line before it.
    column_base: usize,
    /// What of it belongs to a game longer than a block.
    overlong: Overlong,
}

/// [`read_source_sized`] for a stream on several threads: a thread reads
/// the blocks and cuts them at boundaries while the workers read the
/// block before; the chunks of consecutive blocks go through one window.
fn read_ahead<G: Send, M: GameMap<G>>(
    source: Source,
    reading: &Reading<'_, M>,
    mut emit: impl FnMut(Chunk<G>, u64) -> ControlFlow<()>,
) -> Result<(), SourceError> {
    let Reading { pool, options, block_size, chunk_size, max_block, map } = *reading;
    let (name, compression) = (source.name().clone(), source.compression());
    // One block waits while the workers read the one before: two blocks
    // (and the reader's buffer) in memory at most, beside the chunks still
    // in flight.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Block>(1);
    let reader = std::thread::Builder::new().name("pgnindex-read".into()).spawn(move || {
        let _clock = timings::ThreadClock::start(Stage::Read);
        let boundaries = std::cell::RefCell::new(Vec::new());
        let whole = std::cell::Cell::new(false);
        let cut =
            |buf: &[u8], eof| cut_block(buf, eof, max_block, &mut boundaries.borrow_mut(), &whole);
        let mut overlongs = Overlongs::default();
        let (home, returned) = std::sync::mpsc::channel();
        // A buffer grown for a long game is not kept: the blocks after it
        // are of the usual size again, and so is memory.
        let spare = || {
            returned
                .try_iter()
                .find(|buf: &Vec<u8>| buf.len() <= 2 * block_size)
                .unwrap_or_default()
        };
        let mut column_base = 0usize;
        source.for_each_owned_block(block_size, max_block, cut, spare, |buf, len, offset| {
            let found = std::mem::take(&mut *boundaries.borrow_mut());
            let overlong = overlongs.next(&buf[..len], &found, whole.get());
            let data = Arc::new(Recycled { buf, len, home: home.clone() });
            let next_base = column_at(data.block(), len, column_base);
            let block = Block { data, boundaries: found, offset, column_base, overlong };
            column_base = next_base;
            match tx.send(block) {
                Ok(()) => ControlFlow::Continue(()),
                Err(_) => ControlFlow::Break(()),
            }
        })
    });
    let reader =
        reader.map_err(|error| SourceError::Read { name, offset: 0, compression, error })?;
    let mut current: Option<(Block, usize)> = None;
    let next = move |wait: bool| loop {
        if let Some((block, start)) = &mut current {
            let bytes = block.data.block();
            if *start < bytes.len() {
                let cut = Cut {
                    block: bytes,
                    boundaries: (!block.boundaries.is_empty()).then_some(&block.boundaries[..]),
                    column_base: block.column_base,
                    offset: block.offset,
                    overlong: block.overlong,
                };
                let data = &block.data;
                let (job, end) =
                    cut.job(*start, chunk_size, |range| Bytes::Shared(Arc::clone(data), range));
                *start = end;
                return Next::Job(job);
            }
        }
        let received = if wait {
            rx.recv().ok()
        } else {
            match rx.try_recv() {
                Ok(block) => Some(block),
                Err(std::sync::mpsc::TryRecvError::Empty) => return Next::Later,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => None,
            }
        };
        match received {
            Some(block) => current = Some((block, 0)),
            None => return Next::End,
        }
    };
    // `next` owns the receiver: once `dispatch` returns it is gone, and a
    // reader stopped by a `Break` ends at its next block. It is not waited
    // for then: it may be blocked reading a terminal.
    let emit = |_, chunk: Option<Chunk<G>>, offset| Verdict::Take(emit(chunk.expect(CUT), offset));
    if dispatch(pool, options, map, next, emit).is_break() {
        return Ok(());
    }
    reader.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::Path;

    use super::*;
    use crate::pgn::source::InputName;

    #[test]
    fn the_window_gives_each_thread_a_chunk_and_stops_growing_with_the_threads() {
        assert_eq!(window(1), 3);
        assert_eq!(window(2), 6);
        assert_eq!(window(8), MAX_WINDOW);
        assert_eq!(window(16), MAX_WINDOW);
        assert_eq!(window(40), 40);
    }

    /// Every fixture game file, with text between games that is skipped
    /// with a warning, and a game that fails.
    fn corpus() -> Vec<u8> {
        let mut paths = Vec::new();
        let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pgn")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "pgn") {
                    paths.push(path);
                }
            }
        }
        paths.sort();
        let mut text = Vec::new();
        for (i, path) in paths.iter().enumerate() {
            text.extend_from_slice(&std::fs::read(path).unwrap());
            text.extend_from_slice(b"\n\n");
            if i % 5 == 0 {
                text.extend_from_slice(b"stray text\n\n[Event \"bad\"]\n\n1. e4 e5 2. Ke3 *\n\n");
            }
            if i % 7 == 0 {
                // Tag lines after text inside a comment: where a scan that
                // starts inside the comment sees a boundary.
                text.extend_from_slice(
                    b"[Event \"note\"]\n\n1. e4 { a note\nof text\n[Event \"inside\"]\n\
                      [Site \"a comment\"]\n\nand text\n[Event \"again\"]\n} e5 *\n\n",
                );
            }
        }
        text
    }

    /// What a reading reports, one line per game and warning, with
    /// locations in the whole input.
    fn report(source: Source, threads: usize, block_size: usize, chunk_size: usize) -> Vec<String> {
        report_with(source, threads, block_size, chunk_size, MAX_BLOCK)
    }

    /// [`report`] with streams' blocks at most `max_block` long.
    fn report_with(
        source: Source,
        threads: usize,
        block_size: usize,
        chunk_size: usize,
        max_block: usize,
    ) -> Vec<String> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let options = ReplayOptions { tags: true, san: true, ..ReplayOptions::default() };
        let mut lines = Vec::new();
        let at = |lines_before: usize, (l, c): (usize, usize)| format!("{}:{c}", l + lines_before);
        let reading =
            Reading { pool: &pool, options, block_size, chunk_size, max_block, map: &|g| g };
        let result = read_source_sized(source, &reading, |chunk, offset, before| {
            for game in &chunk.games {
                let r = &game.record;
                let error = game.error_at.map(|e| at(before, e));
                // Text skipped before a game is the game's warning, or
                // the last chunk's if a cut fell there: either way it
                // comes before the game.
                for (l, c, m) in &game.warnings {
                    lines.push(format!("warning {} {m}", at(before, (*l, *c))));
                }
                lines.push(format!(
                    "game at {}: {} moves, error {error:?} {:?}, {:?}{}",
                    offset + r.offset as u64,
                    r.moves.len(),
                    r.error.as_ref().map(|e| &e.message),
                    r.san,
                    r.skipped.as_ref().map_or(String::new(), |s| format!(", {s:?}")),
                ));
            }
            for (l, c, m) in &chunk.trailing {
                lines.push(format!("warning {} {m}", at(before, (*l, *c))));
            }
            ControlFlow::Continue(())
        });
        result.unwrap();
        lines
    }

    /// Fails with the first lines that differ if `got` is not `expect`.
    fn assert_same(got: &[String], expect: &[String], what: &str) {
        if got != expect {
            let diff: Vec<_> = got.iter().zip(expect).filter(|(a, b)| a != b).take(3).collect();
            panic!("{what}: {} lines, {} expected, {diff:#?}", got.len(), expect.len());
        }
    }

    fn gzip_file(dir: &Path, text: &[u8]) -> InputName {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(text).unwrap();
        let path = dir.join("corpus.pgn.gz");
        std::fs::write(&path, encoder.finish().unwrap()).unwrap();
        InputName::Path(path)
    }

    #[test]
    fn a_stream_read_ahead_reads_as_one_thread_does() {
        let text = corpus();
        let dir = tempfile::tempdir().unwrap();
        let name = gzip_file(dir.path(), &text);
        let plain = dir.path().join("corpus.pgn");
        std::fs::write(&plain, &text).unwrap();
        let whole = Source::open(&InputName::Path(plain)).unwrap();
        assert!(!whole.is_stream());
        let expect = report(whole, 1, BLOCK, CHUNK);
        assert!(expect.len() > 1000, "{}", expect.len());
        assert!(expect.iter().any(|l| l.contains("skipped text")));
        assert!(expect.iter().any(|l| l.contains("error Some")));
        // Blocks shorter than a game, and longer; chunks likewise.
        for (block_size, chunk_size) in [(4 << 10, 1 << 10), (64 << 10, 16 << 10), (1 << 20, 1)] {
            for threads in [1, 2, 3] {
                let source = Source::open(&name).unwrap();
                assert!(source.is_stream());
                let got = report(source, threads, block_size, chunk_size);
                assert_same(&got, &expect, &format!("{threads} threads, blocks of {block_size}"));
            }
        }
    }

    #[test]
    fn a_stream_skips_a_game_longer_than_a_block_and_keeps_the_rest() {
        let max_block = 64 << 10;
        // Games, some with an error or text between them, around the long
        // one (the fixtures hold stretches with no boundary longer than
        // these small blocks, that a forced cut ends in larger ones).
        let mut text = Vec::new();
        let mut long_at = 0;
        for i in 0..6000 {
            if i == 3000 {
                long_at = text.len();
            }
            let game = match i % 10 {
                3 => format!("[Event \"{i}\"]\n\n1. e4 e5 2. Ke3 Nc6 *\n\nnot a game\n\n"),
                _ => {
                    format!("[Event \"{i}\"]\n[Round \"{i}\"]\n\n1. e4 {{a}} e5 2. Nf3\nNc6 *\n\n")
                }
            };
            text.extend_from_slice(game.as_bytes());
        }
        let mut long = b"[Event \"long\"]\n\n1. e4 { ".to_vec();
        while long.len() < 3 * max_block + 100 {
            long.extend_from_slice(b"a long comment { [with] brackets\nand lines ");
        }
        long.extend_from_slice(b"} e5 *\n\n");
        text.splice(long_at..long_at, long);
        let dir = tempfile::tempdir().unwrap();
        let name = gzip_file(dir.path(), &text);
        let plain = dir.path().join("corpus.pgn");
        std::fs::write(&plain, &text).unwrap();
        // Held whole, the long game is read; streamed, it is skipped, and
        // every other game and location reads the same.
        let mapped = report(Source::open(&InputName::Path(plain)).unwrap(), 1, BLOCK, CHUNK);
        let long_line = format!("game at {long_at}: ");
        let position = mapped.iter().position(|l| l.starts_with(&long_line)).unwrap();
        assert!(mapped[position].contains(": 2 moves"), "{}", mapped[position]);
        for (block_size, chunk_size) in [(4 << 10, 1 << 10), (16 << 10, 100)] {
            for threads in [1, 2, 3] {
                let source = Source::open(&name).unwrap();
                let got = report_with(source, threads, block_size, chunk_size, max_block);
                let what = format!("{threads} threads, blocks of {block_size}");
                assert_eq!(got.len(), mapped.len(), "{what}");
                assert!(got[position].starts_with(&long_line), "{what}: {}", got[position]);
                assert!(got[position].contains("0 moves"), "{what}: {}", got[position]);
                assert!(got[position].contains("TooLong { bytes: 65536 }"), "{what}");
                let (mut got, mut expect) = (got, mapped.clone());
                got.remove(position);
                expect.remove(position);
                assert_same(&got, &expect, &what);
            }
        }
    }

    #[test]
    fn a_mapped_input_cut_by_guesses_reads_as_one_thread_does() {
        let text = corpus();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("corpus.pgn");
        std::fs::write(&path, &text).unwrap();
        let open = || Source::open(&InputName::Path(path.clone())).unwrap();
        let expect = report(open(), 1, BLOCK, CHUNK);
        // Cells shorter than a game (many empty chunks, guesses inside
        // comments and tag sections), and longer; one thread cuts where
        // its reading meets a boundary, as the workers do.
        for chunk_size in [64, 1000, 5 << 10, 64 << 10] {
            for threads in [1, 2, 3] {
                let got = report(open(), threads, BLOCK, chunk_size);
                assert_same(&got, &expect, &format!("{threads} threads, cells of {chunk_size}"));
            }
        }
    }

    #[test]
    fn a_reading_that_reaches_the_end_is_not_given_up() {
        // From its second chunk's start, more than the eight cells past
        // which a reading is given up: read to the end, the malformed tag
        // line and the one after it are one game, as when read whole; given
        // up, the forced cut after `*` would part them.
        let text: &[u8] = b"[Event \"?\"]\n\n1. e4 *\n[Result \"0-1\"] e4 *\n\
            [Result\xe0\xdd1/2-1/2\"] e4 *\n[Result \"1-0\"] e4 0-1\n\
            [Res.O-O Kf8 11.Bxf7 Kxf7 12.Bxf6 Bxf6 13.Qh5+ Kf8 \n14.Qh8+ 1-0\n";
        let options = ReplayOptions { tags: true, ..ReplayOptions::default() };
        let starts = |chunks: &[Chunk]| -> Vec<(usize, usize)> {
            let games = chunks.iter().flat_map(|c| c.games.iter().map(|g| (c.offset, g)));
            games.map(|(at, g)| (at + g.record.offset, g.record.tags.len())).collect()
        };
        let whole = starts(&[read_chunk(text, 0, options)]);
        assert_eq!(whole.len(), 4, "{whole:?}");
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let mut chunks = Vec::new();
        let flow = read_block(&pool, text, 0, options, 16, &|g| g, |chunk| {
            chunks.push(chunk);
            ControlFlow::Continue(())
        });
        assert!(flow.is_continue());
        assert!(chunks.len() >= 2, "{} chunks", chunks.len());
        assert_eq!(starts(&chunks), whole);
    }

    #[test]
    fn games_without_line_breaks_are_cut_between_games_only() {
        // No boundary anywhere: every cut is made after a result. One in
        // the comment, which a cut by text alone would take, is no cut.
        let game = "[Event \"g\"] 1. e4 { a note 1-0 [Event \"not a game\"] } e5 2. Nf3 1-0 ";
        let text = game.repeat(40);
        let text = text.as_bytes();
        let options = ReplayOptions { tags: true, ..ReplayOptions::default() };
        let whole: Vec<(usize, usize)> = read_chunk(text, 0, options)
            .games
            .iter()
            .map(|g| (g.record.offset, g.record.moves.len()))
            .collect();
        assert_eq!(whole.len(), 40);
        assert!(whole.iter().all(|&(_, moves)| moves == 3), "{whole:?}");
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let (mut games, mut chunks) = (Vec::new(), 0);
            let flow = read_block(&pool, text, 0, options, 64, &|g| g, |chunk| {
                chunks += 1;
                let at = chunk.offset;
                games.extend(
                    chunk.games.iter().map(|g| (at + g.record.offset, g.record.moves.len())),
                );
                ControlFlow::Continue(())
            });
            assert!(flow.is_continue());
            assert!(chunks > 10, "{threads} threads: {chunks} chunks");
            assert_eq!(games, whole, "{threads} threads");
        }
    }

    #[test]
    fn a_guess_inside_a_comment_is_not_taken() {
        // A note longer than the look-back: the scan starts inside it.
        let note = "a long note\n".repeat(200);
        let text = format!("[Event \"a\"]\n\n1. e4 {{ {note}of text\n[Event \"inside\"]\n}} e5 *\n\n[Event \"b\"]\n\n1. d4 *\n");
        let text = text.as_bytes();
        let at = text.windows(6).position(|w| w == b"of tex").unwrap();
        let guess = guessed_start(text, at, text.len()).unwrap();
        let inside = text.windows(15).position(|w| w == b"[Event \"inside\"").unwrap();
        assert_eq!(guess, inside, "the scan cannot know it is in a comment");
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let mut games = Vec::new();
        let flow = read_block(&pool, text, 0, ReplayOptions::default(), at, &|g| g, |chunk| {
            games.extend(
                chunk.games.iter().map(|g| (chunk.offset + g.record.offset, g.record.moves.len())),
            );
            ControlFlow::Continue(())
        });
        assert!(flow.is_continue());
        let second = text.windows(10).position(|w| w == b"[Event \"b\"").unwrap();
        assert_eq!(games, [(0, 2), (second, 1)]);
    }

    #[test]
    fn a_break_stops_a_stream_read_ahead() {
        let text = corpus();
        let dir = tempfile::tempdir().unwrap();
        let name = gzip_file(dir.path(), &text);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let mut chunks = 0;
        let source = Source::open(&name).unwrap();
        let options = ReplayOptions::default();
        let reading = Reading {
            pool: &pool,
            options,
            block_size: 4 << 10,
            chunk_size: 1 << 10,
            max_block: MAX_BLOCK,
            map: &|g| g,
        };
        let result = read_source_sized(source, &reading, |_, _, _| {
            chunks += 1;
            if chunks == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert!(result.is_ok());
        assert_eq!(chunks, 3);
    }
}
