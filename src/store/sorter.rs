//! [`PositionSorter`]: a batch's position rows sorted by key on a thread of
//! their own, beside the writer.
//!
//! The writer thread is what bounds a full import, and sorting a batch of
//! eight million rows at its commit took about a tenth of that thread's
//! time. Here the rows are cut into runs as they come and the sorting
//! thread sorts each run while the writer goes on storing games; at the
//! commit the thread merges the runs and streams the merged rows to the
//! writer in chunks, so that the writer inserts one chunk while the next
//! is merged. The writer hands over each game's rows as the game's own
//! vector, with its id: making the 16-byte rows, one per position, is
//! the sorting thread's work too.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

use super::rows::PositionRow;
use super::segments::{PendingPosition, NO_MOVE};
use crate::db::GameId;

/// Rows per run handed to the sorting thread.
const RUN: usize = 1 << 20;
/// Merged rows per chunk sent back to the writer.
const CHUNK: usize = 1 << 16;

/// Games and their position rows, as the writer hands them over.
type Games = Vec<(GameId, Vec<PositionRow>)>;

/// What the writer sends to the sorting thread.
enum Request {
    /// A run's rows, by game, to sort into the batch.
    Run(Games),
    /// Stream the batch's rows back, merged, and start a new batch.
    Finish,
}

/// Collects a batch's position rows and hands them back in
/// [`PendingPosition`]'s order (key, then game, then ply).
///
/// Without a thread (it could not be started) the rows are sorted in
/// [`PositionSorter::take_sorted`], on the caller's thread.
#[derive(Debug)]
pub struct PositionSorter {
    /// The games of the run being collected.
    run: Games,
    /// Rows in `run`.
    run_rows: usize,
    /// Rows pushed since the last [`PositionSorter::take_sorted`].
    len: usize,
    thread: Option<Thread>,
}

#[derive(Debug)]
struct Thread {
    requests: SyncSender<Request>,
    /// Chunks of merged rows, as many as the batch's rows fill.
    chunks: Receiver<Vec<PendingPosition>>,
    handle: JoinHandle<()>,
}

impl Default for PositionSorter {
    fn default() -> PositionSorter {
        PositionSorter::new()
    }
}

impl PositionSorter {
    /// A sorter with its thread started (or none, if it cannot be).
    pub fn new() -> PositionSorter {
        PositionSorter { run: Vec::new(), run_rows: 0, len: 0, thread: Thread::start() }
    }

    /// Adds the position rows of the game `game_id` to the batch. Plies
    /// fit the 16-byte row: those beyond 65,535 are not indexed (the rows
    /// stop there).
    pub fn push_game(&mut self, game_id: GameId, rows: Vec<PositionRow>) {
        if rows.is_empty() {
            return;
        }
        self.len += rows.len();
        self.run_rows += rows.len();
        self.run.push((game_id, rows));
        if self.run_rows >= RUN {
            if let Some(thread) = &self.thread {
                self.run_rows = 0;
                thread.send(Request::Run(std::mem::take(&mut self.run)));
            }
        }
    }

    /// Rows in the batch.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The batch's rows in order; the sorter starts a new, empty batch.
    pub fn take_sorted(&mut self) -> SortedRows<'_> {
        let len = std::mem::take(&mut self.len);
        self.run_rows = 0;
        let games = std::mem::take(&mut self.run);
        match &self.thread {
            Some(thread) => {
                if !games.is_empty() {
                    thread.send(Request::Run(games));
                }
                thread.send(Request::Finish);
                SortedRows { left: len, chunk: Vec::new(), at: 0, chunks: Some(&thread.chunks) }
            }
            None => {
                let mut run = pending_rows(games);
                run.sort_unstable();
                SortedRows { left: len, chunk: run, at: 0, chunks: None }
            }
        }
    }
}

impl Drop for PositionSorter {
    fn drop(&mut self) {
        if let Some(Thread { requests, chunks, handle }) = self.thread.take() {
            // Both channels closed: the thread stops whether it waits for
            // a request or to hand over a chunk.
            drop(requests);
            drop(chunks);
            let _ = handle.join();
        }
    }
}

/// A batch's rows in order, as [`PositionSorter::take_sorted`] gives them.
/// Dropping it before the end reads the rest (and drops it), so that the
/// next batch starts clean.
#[derive(Debug)]
pub struct SortedRows<'s> {
    left: usize,
    chunk: Vec<PendingPosition>,
    at: usize,
    chunks: Option<&'s Receiver<Vec<PendingPosition>>>,
}

impl Iterator for SortedRows<'_> {
    type Item = PendingPosition;

    fn next(&mut self) -> Option<PendingPosition> {
        if self.at == self.chunk.len() {
            if self.left == 0 {
                return None;
            }
            self.chunk = self.chunks.and_then(|c| c.recv().ok()).unwrap_or_default();
            self.at = 0;
            // A chunk missing before the batch's end: the thread is gone.
            assert!(!self.chunk.is_empty(), "the position sorting thread stopped");
        }
        let row = self.chunk[self.at];
        self.at += 1;
        self.left -= 1;
        Some(row)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for SortedRows<'_> {}

impl Drop for SortedRows<'_> {
    fn drop(&mut self) {
        if let Some(chunks) = self.chunks {
            self.left -= self.chunk.len() - self.at;
            while self.left > 0 {
                match chunks.recv() {
                    Ok(chunk) if !chunk.is_empty() => self.left -= chunk.len(),
                    _ => break,
                }
            }
        }
    }
}

impl Thread {
    fn start() -> Option<Thread> {
        // Two runs in flight: the writer waits only if the thread falls
        // behind by more than that.
        let (requests, incoming) = mpsc::sync_channel::<Request>(2);
        let (outgoing, chunks) = mpsc::sync_channel(4);
        let handle = std::thread::Builder::new()
            .name("pgnindex-sort".into())
            .spawn(move || sort_loop(&incoming, &outgoing))
            .ok()?;
        Some(Thread { requests, chunks, handle })
    }

    fn send(&self, request: Request) {
        // Only a panic on the thread closes the channel; the rows it held
        // are lost, which must not pass for a smaller batch.
        assert!(self.requests.send(request).is_ok(), "the position sorting thread stopped");
    }
}

/// The sorting thread: each run sorted as it comes, and the batch's runs
/// merged into chunks at its end.
fn sort_loop(incoming: &Receiver<Request>, outgoing: &SyncSender<Vec<PendingPosition>>) {
    let mut runs: Vec<Vec<PendingPosition>> = Vec::new();
    while let Ok(request) = incoming.recv() {
        match request {
            Request::Run(games) => {
                let mut run = pending_rows(games);
                run.sort_unstable();
                runs.push(run);
            }
            Request::Finish => {
                let sent = merge(&runs, CHUNK, |chunk| outgoing.send(chunk).is_ok());
                runs.clear();
                if !sent {
                    return;
                }
            }
        }
    }
}

/// The rows of `games`, each stamped with its game's id.
fn pending_rows(games: Games) -> Vec<PendingPosition> {
    let mut run = Vec::with_capacity(games.iter().map(|(_, rows)| rows.len()).sum());
    for (game_id, rows) in games {
        run.extend(rows.into_iter().map(|p| PendingPosition {
            hash: p.hash,
            game_id,
            ply: p.ply as u16,
            next_move: p.next_move.unwrap_or(NO_MOVE),
        }));
    }
    run
}

/// Merges the sorted `runs`, handing the rows to `send` in chunks of
/// `chunk` rows; false if `send` refused one.
fn merge(
    runs: &[Vec<PendingPosition>],
    chunk: usize,
    mut send: impl FnMut(Vec<PendingPosition>) -> bool,
) -> bool {
    let mut out = Vec::with_capacity(chunk);
    if let [run] = runs {
        for rows in run.chunks(chunk) {
            if !send(rows.to_vec()) {
                return false;
            }
        }
        return true;
    }
    // Each run's next row; ties cannot occur ((game, ply) is unique).
    let mut heads: BinaryHeap<Reverse<(PendingPosition, usize)>> =
        runs.iter().enumerate().filter_map(|(i, r)| r.first().map(|&p| Reverse((p, i)))).collect();
    let mut next = vec![1; runs.len()];
    while let Some(mut top) = heads.peek_mut() {
        let Reverse((row, i)) = *top;
        out.push(row);
        match runs[i].get(next[i]) {
            Some(&p) => {
                next[i] += 1;
                *top = Reverse((p, i));
            }
            None => {
                std::collections::binary_heap::PeekMut::pop(top);
            }
        }
        if out.len() == chunk && !send(std::mem::replace(&mut out, Vec::with_capacity(chunk))) {
            return false;
        }
    }
    out.is_empty() || send(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(hash: i64, game: i64, ply: u16) -> PendingPosition {
        PendingPosition { hash, game_id: GameId::try_from(game).unwrap(), ply, next_move: ply }
    }

    /// Pushes `rows`, each run of rows of one game as that game's.
    fn push_all(sorter: &mut PositionSorter, rows: &[PendingPosition]) {
        for game in rows.chunk_by(|a, b| a.game_id == b.game_id) {
            let positions = game
                .iter()
                .map(|p| PositionRow {
                    hash: p.hash,
                    ply: u32::from(p.ply),
                    next_move: (p.next_move != NO_MOVE).then_some(p.next_move),
                })
                .collect();
            sorter.push_game(game[0].game_id, positions);
        }
    }

    /// Rows in a pseudo-random order, with repeated keys as real batches
    /// have (the start position in every game).
    fn rows(n: usize, seed: u64) -> Vec<PendingPosition> {
        let mut x = seed;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let hash = if i % 7 == 0 { 42 } else { (x >> 40) as i64 - (1 << 23) };
                row(hash, (i / 50 + 1) as i64, (i % 50) as u16)
            })
            .collect()
    }

    #[test]
    fn batches_come_back_sorted_across_runs_and_batches() {
        let mut sorter = PositionSorter::new();
        for (n, seed) in [(RUN * 2 + 12_345, 1), (0, 2), (17, 3), (RUN, 4), (RUN + 1, 5)] {
            let input = rows(n, seed);
            push_all(&mut sorter, &input);
            assert_eq!(sorter.len(), n);
            let mut expected = input;
            expected.sort();
            let got = sorter.take_sorted();
            assert_eq!(got.len(), n);
            let got: Vec<_> = got.collect();
            assert_eq!(sorter.len(), 0);
            assert!(got == expected, "batch of {n} rows differs from a plain sort");
        }
    }

    #[test]
    fn a_batch_read_in_part_does_not_reach_the_next() {
        let mut sorter = PositionSorter::new();
        push_all(&mut sorter, &rows(RUN * 3 + 10, 9));
        let first: Vec<_> = sorter.take_sorted().take(CHUNK + 5).collect();
        assert_eq!(first.len(), CHUNK + 5);
        push_all(&mut sorter, &[row(5, 1, 0)]);
        assert_eq!(sorter.take_sorted().collect::<Vec<_>>(), vec![row(5, 1, 0)]);
    }

    #[test]
    fn merging_keeps_equal_keys_in_game_and_ply_order() {
        let runs = vec![
            vec![row(1, 1, 0), row(3, 1, 2), row(3, 4, 0)],
            vec![row(0, 2, 0), row(3, 2, 5), row(9, 3, 1)],
            vec![],
            vec![row(3, 3, 0)],
        ];
        let mut out = Vec::new();
        assert!(merge(&runs, 2, |c| {
            assert!(!c.is_empty() && c.len() <= 2);
            out.extend(c);
            true
        }));
        let mut expected = runs.concat();
        expected.sort();
        assert_eq!(out, expected);
    }

    #[test]
    fn a_sorter_dropped_while_its_rows_are_streamed_stops() {
        let mut sorter = PositionSorter::new();
        push_all(&mut sorter, &rows(RUN * 2, 11));
        let mut sorted = sorter.take_sorted();
        assert!(sorted.next().is_some());
        std::mem::forget(sorted);
        drop(sorter);
    }
}
