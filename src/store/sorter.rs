//! [`PositionSorter`]: a batch's position rows sorted by key on a thread of
//! their own, beside the writer.
//!
//! The writer thread is what bounds a full import, and sorting a batch of
//! eight million rows at its commit took about a tenth of that thread's
//! time. Here the rows are cut into runs as they come and the sorting
//! thread sorts each run while the writer goes on storing games; at the
//! commit the thread merges the runs and streams the merged rows to the
//! writer in chunks, so that the writer inserts one chunk while the next
//! is merged.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

use super::segments::PendingPosition;

/// Rows per run handed to the sorting thread.
const RUN: usize = 1 << 20;
/// Merged rows per chunk sent back to the writer.
const CHUNK: usize = 1 << 16;

/// What the writer sends to the sorting thread.
enum Request {
    /// Rows to sort into the batch.
    Run(Vec<PendingPosition>),
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
    run: Vec<PendingPosition>,
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
        PositionSorter { run: Vec::new(), len: 0, thread: Thread::start() }
    }

    /// Adds a row to the batch.
    pub fn push(&mut self, row: PendingPosition) {
        self.run.push(row);
        self.len += 1;
        if self.run.len() >= RUN {
            if let Some(thread) = &self.thread {
                let run = std::mem::replace(&mut self.run, Vec::with_capacity(RUN));
                thread.send(Request::Run(run));
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
        let mut run = std::mem::take(&mut self.run);
        match &self.thread {
            Some(thread) => {
                if !run.is_empty() {
                    thread.send(Request::Run(run));
                }
                thread.send(Request::Finish);
                SortedRows { left: len, chunk: Vec::new(), at: 0, chunks: Some(&thread.chunks) }
            }
            None => {
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
            Request::Run(mut run) => {
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
    use crate::db::GameId;

    fn row(hash: i64, game: i64, ply: u16) -> PendingPosition {
        PendingPosition { hash, game_id: GameId::try_from(game).unwrap(), ply, next_move: ply }
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
            for &r in &input {
                sorter.push(r);
            }
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
        for r in rows(RUN * 3 + 10, 9) {
            sorter.push(r);
        }
        let first: Vec<_> = sorter.take_sorted().take(CHUNK + 5).collect();
        assert_eq!(first.len(), CHUNK + 5);
        sorter.push(row(5, 1, 0));
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
        for r in rows(RUN * 2, 11) {
            sorter.push(r);
        }
        let mut sorted = sorter.take_sorted();
        assert!(sorted.next().is_some());
        std::mem::forget(sorted);
        drop(sorter);
    }
}
