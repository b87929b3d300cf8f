//! Reading one block of PGN on several threads: the block is cut into
//! chunks at game boundaries ([`crate::pgn::split`]), rayon workers
//! tokenize and replay chunks independently, and the results come back in
//! input order. Memory stays bounded: only a window of a few chunks per
//! thread is in flight at a time.

use std::ops::ControlFlow;

use rayon::prelude::*;

use super::replay::{GameRecord, ReplayOptions, Replayer};
use crate::pgn::{split, LineIndex, Reader};

/// A game with its chunk-local locations.
#[derive(Debug)]
pub struct LocatedGame {
    /// The replayed game (offsets relative to its chunk).
    pub record: GameRecord,
    /// Line (within the chunk, from 1) and column of the game's error.
    pub error_at: Option<(usize, usize)>,
    /// Warnings inside the game or before it: line, column, message.
    pub warnings: Vec<(usize, usize, String)>,
}

/// The games of one chunk, in order.
#[derive(Debug)]
pub struct Chunk {
    /// Byte offset of the chunk in the block.
    pub offset: usize,
    /// Its length in bytes.
    pub len: usize,
    /// Line breaks in the chunk (to number the lines of the next one).
    pub line_breaks: usize,
    /// The games.
    pub games: Vec<LocatedGame>,
}

/// Reads and replays every game of `data` (which holds whole games).
pub fn read_chunk(data: &[u8], offset: usize, options: ReplayOptions) -> Chunk {
    let mut lines = LineIndex::new(data);
    let mut reader = Reader::new(data);
    let mut replayer = Replayer::new(options);
    let mut games = Vec::new();
    while let Some(record) = reader.read_game(&mut replayer) {
        let mut warnings = Vec::new();
        for (at, len) in reader.skipped() {
            let (l, c) = lines.locate(at);
            let text = String::from_utf8_lossy(&data[at..at + len.min(40)]).into_owned();
            warnings.push((l, c, format!("skipped text between games: '{text}'")));
        }
        for problem in &record.syntax {
            let (l, c) = lines.locate(problem.offset);
            warnings.push((l, c, problem.message.to_string()));
        }
        let error_at = record.error.as_ref().map(|e| lines.locate(e.offset));
        games.push(LocatedGame { record, error_at, warnings });
    }
    let line_breaks = lines.locate(data.len()).0 - 1;
    Chunk { offset, len: data.len(), line_breaks, games }
}

/// Reads `block` on `pool`, calling `emit` with each chunk
/// in input order. `chunk_size` is the target chunk length; each window
/// holds about two chunks per thread. `emit` returning `Break` stops.
pub fn read_block(
    pool: &rayon::ThreadPool,
    block: &[u8],
    options: ReplayOptions,
    chunk_size: usize,
    mut emit: impl FnMut(Chunk) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let threads = pool.current_num_threads();
    if threads <= 1 {
        // Same chunks, read in turn: memory stays bounded by one chunk.
        let mut start = 0;
        while start < block.len() {
            let end = split::next_boundary_after(block, start, chunk_size);
            emit(read_chunk(&block[start..end], start, options))?;
            start = end;
        }
        return ControlFlow::Continue(());
    }
    let window = 2 * threads;
    let mut start = 0;
    while start < block.len() {
        let mut ranges = Vec::with_capacity(window);
        while ranges.len() < window && start < block.len() {
            let end = split::next_boundary_after(block, start, chunk_size);
            ranges.push(start..end);
            start = end;
        }
        let chunks: Vec<Chunk> = pool.install(|| {
            ranges
                .into_par_iter()
                .map(|r| read_chunk(&block[r.clone()], r.start, options))
                .collect()
        });
        for chunk in chunks {
            emit(chunk)?;
        }
    }
    ControlFlow::Continue(())
}
