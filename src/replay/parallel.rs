//! Reading one block of PGN on several threads: the block is cut into
//! chunks at game boundaries ([`crate::pgn::split`]), rayon workers
//! tokenize and replay chunks independently, and the results come back in
//! input order. Memory stays bounded: only a window of a few chunks per
//! thread is in flight at a time.

use std::ops::ControlFlow;

use std::collections::BTreeMap;

use super::{GameRecord, ReplayOptions, Replayer};
use crate::pgn::source::{Source, SourceError};
use crate::pgn::{split, LineIndex, Reader};

/// Streams are cut into blocks of about this size at game boundaries.
const BLOCK: usize = 8 << 20;
/// A block never grows beyond this: a game longer than that (a comment of
/// hundreds of megabytes) is cut, and reported broken.
const MAX_BLOCK: usize = 256 << 20;
/// Chunks handed to one worker at a time.
const CHUNK: usize = 1 << 20;
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

/// The games of one chunk, in order (as [`LocatedGame`]s, or whatever the
/// caller's per-game function made of them on the worker).
#[derive(Debug)]
pub struct Chunk<G = LocatedGame> {
    /// Byte offset of the chunk in the block.
    pub offset: usize,
    /// Its length in bytes.
    pub len: usize,
    /// Line breaks in the chunk (to number the lines of the next one).
    pub line_breaks: usize,
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
    map: &impl Fn(LocatedGame) -> G,
) -> Chunk<G> {
    read_chunk_at(data, offset, 0, options, map)
}

/// [`read_chunk_with`] for a chunk that starts `column_base` bytes into a
/// line (after a forced cut): columns on its first line count from the
/// line's start.
fn read_chunk_at<G>(
    data: &[u8],
    offset: usize,
    column_base: usize,
    options: ReplayOptions,
    map: &impl Fn(LocatedGame) -> G,
) -> Chunk<G> {
    let mut lines = LineIndex::continuing(data, column_base);
    let mut reader = Reader::new(data);
    let mut replayer = Replayer::new(options);
    let mut games = Vec::new();
    while let Some(record) = reader.read_game(&mut replayer) {
        let mut warnings = skipped_warnings(data, &mut reader, &mut lines);
        for problem in &record.syntax {
            let (l, c) = lines.locate(problem.offset);
            warnings.push((l, c, problem.message.to_string()));
        }
        let error_at = match (&record.error, &record.skipped_variant) {
            (Some(e), _) => Some(lines.locate(e.offset)),
            (None, Some(_)) => Some(lines.locate(record.offset)),
            (None, None) => None,
        };
        games.push(map(LocatedGame { record, error_at, warnings }));
    }
    // Text after the last game is skipped while looking for one more: it
    // is reported too, or a cut before the next game would hide it.
    let trailing = skipped_warnings(data, &mut reader, &mut lines);
    let line_breaks = lines.locate(data.len()).0 - 1;
    Chunk { offset, len: data.len(), line_breaks, games, trailing }
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
        let text = String::from_utf8_lossy(&data[at..at + len.min(40)]).into_owned();
        warnings.push((l, c, format!("skipped text between games: '{text}'")));
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
    map: &(impl Fn(LocatedGame) -> G + Sync),
    emit: impl FnMut(Chunk<G>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    read_block_cut(pool, block, None, column_base, options, chunk_size, map, emit)
}

/// [`read_block`] with the block's boundaries, if a scan found them all
/// already ([`block_end`]): chunks are cut there without scanning again.
#[allow(clippy::too_many_arguments)]
fn read_block_cut<G: Send>(
    pool: &rayon::ThreadPool,
    block: &[u8],
    boundaries: Option<&[usize]>,
    column_base: usize,
    options: ReplayOptions,
    chunk_size: usize,
    map: &(impl Fn(LocatedGame) -> G + Sync),
    mut emit: impl FnMut(Chunk<G>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let threads = pool.current_num_threads();
    if threads <= 1 {
        // Same chunks, read in turn: memory stays bounded by one chunk.
        let mut start = 0;
        while start < block.len() {
            let end = chunk_end(block, start, chunk_size, boundaries);
            let base = column_at(block, start, column_base);
            emit(read_chunk_at(&block[start..end], start, base, options, map))?;
            start = end;
        }
        return ControlFlow::Continue(());
    }
    let in_flight = 3 * threads;
    type Done<G> = (usize, std::thread::Result<Chunk<G>>);
    let (tx, rx) = std::sync::mpsc::channel::<Done<G>>();
    let mut flow = ControlFlow::Continue(());
    pool.in_place_scope(|scope| {
        let mut pending: BTreeMap<usize, Chunk<G>> = BTreeMap::new();
        let (mut spawned, mut emitted, mut start) = (0usize, 0usize, 0usize);
        loop {
            while flow.is_continue() && spawned - emitted < in_flight && start < block.len() {
                let end = chunk_end(block, start, chunk_size, boundaries);
                let tx = tx.clone();
                let (index, piece) = (spawned, &block[start..end]);
                let base = column_at(block, start, column_base);
                scope.spawn(move |_| {
                    // The receiver may be gone after a Break; nothing to do then.
                    // A panic is carried back and resumed on the calling
                    // thread, which would otherwise wait for it forever.
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        read_chunk_at(piece, start, base, options, map)
                    }));
                    let _ = tx.send((index, result));
                });
                spawned += 1;
                start = end;
            }
            if emitted == spawned || flow.is_break() {
                break;
            }
            let Ok((index, result)) = rx.recv() else { break };
            let chunk = result.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            pending.insert(index, chunk);
            while let Some(chunk) = pending.remove(&emitted) {
                emitted += 1;
                if emit(chunk).is_break() {
                    flow = ControlFlow::Break(());
                    break;
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
/// first boundary after `chunk_size` bytes; without one in the next
/// [`FORCE_AFTER`] chunk sizes (and more than two chunk sizes left), a
/// forced cut there; else the next boundary however far (or the block's
/// end). `boundaries`, when known, are every boundary of `block` in order:
/// then nothing is scanned.
fn chunk_end(block: &[u8], start: usize, chunk_size: usize, boundaries: Option<&[usize]>) -> usize {
    let window = start.saturating_add(chunk_size.saturating_mul(FORCE_AFTER)).min(block.len());
    let min = start.saturating_add(chunk_size);
    let first_after = |list: &[usize]| {
        list.get(list.partition_point(|&b| b < min)).copied().unwrap_or(block.len())
    };
    let end = match boundaries {
        Some(list) => first_after(list),
        None => split::next_boundary_after(&block[..window], start, chunk_size),
    };
    if end < window || block.len() - start <= 2 * chunk_size {
        return end;
    }
    split::forced_cut(block, min, window).unwrap_or_else(|| match boundaries {
        Some(_) => end,
        None => split::next_boundary_after(block, start, chunk_size),
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

/// Reads a whole input on `pool`: blocks cut at game boundaries
/// ([`Source::for_each_block`]), each read by [`read_block`] with `map` on
/// the workers. `emit(chunk, offset, lines)` gets the chunks in input
/// order with the chunk's offset in the (decompressed) input and the number
/// of lines before it (add it to the chunk's line numbers); `Break` stops.
///
/// # Errors
/// [`SourceError`] if reading fails; the chunks before were emitted.
pub fn read_source<G: Send>(
    source: Source,
    pool: &rayon::ThreadPool,
    options: ReplayOptions,
    map: &(impl Fn(LocatedGame) -> G + Sync),
    mut emit: impl FnMut(Chunk<G>, u64, usize) -> ControlFlow<()>,
) -> Result<(), SourceError> {
    let (mut lines_before, mut column_base) = (0usize, 0usize);
    // The boundaries the last cut found, scanning the buffer the next block
    // is cut from: its chunks are cut there (a second scan of every byte
    // was a tenth of an import's instructions).
    let boundaries = std::cell::RefCell::new(Vec::new());
    let cut = |buf: &[u8], eof| block_end(buf, eof, &mut boundaries.borrow_mut());
    source.for_each_block(BLOCK, MAX_BLOCK, cut, |block, block_offset| {
        let found = boundaries.borrow();
        // Empty: not scanned (a mapped input, the end of a stream).
        let known = (!found.is_empty()).then_some(&found[..]);
        let flow = read_block_cut(pool, block, known, column_base, options, CHUNK, map, |chunk| {
            let (offset, line_breaks) = (block_offset + chunk.offset as u64, chunk.line_breaks);
            let flow = emit(chunk, offset, lines_before);
            lines_before += line_breaks;
            flow
        });
        column_base = column_at(block, block.len(), column_base);
        flow
    })
}
