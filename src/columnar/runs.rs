//! [`PositionRuns`]: position rows sorted by hash in bounded memory, for a
//! writer that gets them in game order. Rows are fixed-width records
//! (16 bytes: the hash, then game id, ply and next move packed as the
//! position index packs them, [`positions::pack_gpm`], so that their order
//! as integers is the export's: by hash, then by the packed rest); every
//! `run_rows` rows are sorted and written as a run file into a working
//! directory (on a thread of their own, while the next run fills), and
//! [`PositionRuns::finish`] merges the runs, [`MAX_FAN_IN`] at a time.
//! Memory: two runs' buffers and a read buffer per merged run.

use crate::store::format::positions;
use crate::timings::{self, Stage};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use super::ColumnarError;
use crate::db::GameId;

/// Rows per run by default: 32 MiB of records, two runs in memory (one
/// filling, one sorted and written). Up to 4,096 runs (8.6 billion rows),
/// a row is written to at most one intermediate run.
pub const RUN_ROWS: usize = 2 << 20;

/// Runs merged at once: the files a merge keeps open, each with a read
/// buffer of [`READ_BUFFER`] bytes. More runs are merged in steps, the
/// oldest first, into longer runs.
pub const MAX_FAN_IN: usize = 64;

/// The read buffer of each run during a merge.
const READ_BUFFER: usize = 256 << 10;

/// One position row, as [`PositionRuns`] sorts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PositionRecord {
    /// The Polyglot key, signed as SQLite stores it.
    pub hash: i64,
    /// The game.
    pub game_id: GameId,
    /// Half-moves before the position.
    pub ply: u16,
    /// The next move's code, `None` at the end of the game.
    pub next_move: Option<u16>,
}

impl PositionRecord {
    /// The record as one integer whose order is the order by (hash as a
    /// signed number, packed game, ply and move); the packed value is
    /// never negative.
    fn pack(self) -> u128 {
        let hash = (self.hash as u64) ^ (1 << 63);
        let gpm = positions::pack_gpm(self.game_id, self.ply, self.next_move);
        (u128::from(hash) << 64) | u128::from(gpm as u64)
    }

    fn unpack(packed: u128) -> PositionRecord {
        let hash = ((packed >> 64) as u64 ^ (1 << 63)) as i64;
        let (game_id, ply, next_move) = positions::unpack_gpm(packed as u64 as i64);
        PositionRecord { hash, game_id, ply, next_move }
    }
}

/// A run being sorted and written, with the buffer it hands back.
type Spill = JoinHandle<Result<(PathBuf, Vec<u128>), ColumnarError>>;

/// Position rows in, sorted by hash out; see the module's documentation.
#[derive(Debug)]
pub struct PositionRuns {
    work: PathBuf,
    run_rows: usize,
    buffer: Vec<u128>,
    /// A spare buffer, back from the last run written.
    spare: Option<Vec<u128>>,
    spill: Option<Spill>,
    runs: Vec<PathBuf>,
    /// Run files named so far.
    named: usize,
    rows: u64,
}

impl PositionRuns {
    /// Rows sorted in runs of `run_rows` (at least 1), written into the
    /// directory `work` (created at the first run). The caller removes
    /// `work`.
    pub fn new(work: &Path, run_rows: usize) -> PositionRuns {
        PositionRuns {
            work: work.to_path_buf(),
            run_rows: run_rows.max(1),
            buffer: Vec::new(),
            spare: None,
            spill: None,
            runs: Vec::new(),
            named: 0,
            rows: 0,
        }
    }

    /// Adds one row.
    ///
    /// # Errors
    /// [`ColumnarError::Io`] when a run cannot be written.
    pub fn push(&mut self, record: PositionRecord) -> Result<(), ColumnarError> {
        if self.buffer.len() >= self.run_rows {
            self.spill()?;
        }
        if self.buffer.capacity() == 0 {
            let want = self.run_rows.min(1 << 16);
            self.buffer = self.spare.take().unwrap_or_else(|| Vec::with_capacity(want));
        }
        self.buffer.push(record.pack());
        self.rows += 1;
        Ok(())
    }

    /// Rows pushed.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Runs written so far.
    pub fn runs(&self) -> usize {
        self.runs.len() + usize::from(self.spill.is_some())
    }

    /// Sorts the buffer and writes it as a run, on a thread, once the
    /// run before it is written.
    fn spill(&mut self) -> Result<(), ColumnarError> {
        self.wait()?;
        if self.named == 0 {
            std::fs::create_dir_all(&self.work).map_err(|e| ColumnarError::io(&self.work, e))?;
        }
        let path = self.next_name();
        let rows = std::mem::take(&mut self.buffer);
        let spawned = std::thread::Builder::new()
            .name("pgnindex-sort".into())
            .spawn(move || {
                let _clock = timings::ThreadClock::start(Stage::Sort);
                write_run(path, rows)
            })
            .map_err(|e| ColumnarError::io(&self.work, e))?;
        self.spill = Some(spawned);
        Ok(())
    }

    fn next_name(&mut self) -> PathBuf {
        self.named += 1;
        self.work.join(format!("positions-{:05}.run", self.named))
    }

    /// Waits for the run being written.
    fn wait(&mut self) -> Result<(), ColumnarError> {
        if let Some(spill) = self.spill.take() {
            let (path, mut rows) = match spill.join() {
                Ok(result) => result?,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            self.runs.push(path);
            rows.clear();
            self.spare = Some(rows);
        }
        Ok(())
    }

    /// Every row, sorted, to `emit`; the run files are removed as they
    /// are merged.
    ///
    /// # Errors
    /// [`ColumnarError::Io`] when a run cannot be written or read, or the
    /// first error of `emit`.
    pub fn finish(
        mut self,
        mut emit: impl FnMut(PositionRecord) -> Result<(), ColumnarError>,
    ) -> Result<(), ColumnarError> {
        self.wait()?;
        self.spare = None;
        let mut last = std::mem::take(&mut self.buffer);
        last.sort_unstable();
        while self.runs.len() > MAX_FAN_IN {
            // The oldest runs merged into one, written like the others.
            let group: Vec<PathBuf> = self.runs.drain(..MAX_FAN_IN).collect();
            let path = self.next_name();
            let mut out = BufWriter::with_capacity(
                READ_BUFFER,
                File::create(&path).map_err(|e| ColumnarError::io(&path, e))?,
            );
            merge(&group, &[], |packed| {
                out.write_all(&packed.to_le_bytes()).map_err(|e| ColumnarError::io(&path, e))
            })?;
            out.flush().map_err(|e| ColumnarError::io(&path, e))?;
            self.runs.push(path);
        }
        merge(&self.runs, &last, |packed| emit(PositionRecord::unpack(packed)))
    }
}

impl Drop for PositionRuns {
    /// A run being written is waited for: the caller may remove the
    /// working directory next.
    fn drop(&mut self) {
        if let Some(spill) = self.spill.take() {
            let _ = spill.join();
        }
    }
}

/// Sorts `rows` and writes them to `path`; hands the buffer back.
fn write_run(path: PathBuf, mut rows: Vec<u128>) -> Result<(PathBuf, Vec<u128>), ColumnarError> {
    rows.sort_unstable();
    let file = File::create(&path).map_err(|e| ColumnarError::io(&path, e))?;
    let mut out = BufWriter::with_capacity(READ_BUFFER, file);
    for row in &rows {
        out.write_all(&row.to_le_bytes()).map_err(|e| ColumnarError::io(&path, e))?;
    }
    out.flush().map_err(|e| ColumnarError::io(&path, e))?;
    Ok((path, rows))
}

/// The records of the run files `runs` and of the sorted `memory`,
/// merged in order, to `emit`; each file is removed once read.
fn merge(
    runs: &[PathBuf],
    memory: &[u128],
    mut emit: impl FnMut(u128) -> Result<(), ColumnarError>,
) -> Result<(), ColumnarError> {
    let mut readers = Vec::with_capacity(runs.len());
    for path in runs {
        let file = File::open(path).map_err(|e| ColumnarError::io(path, e))?;
        readers.push(BufReader::with_capacity(READ_BUFFER, file));
    }
    let read = |i: usize, reader: &mut BufReader<File>| -> Result<Option<u128>, ColumnarError> {
        let mut bytes = [0u8; 16];
        match reader.read_exact(&mut bytes) {
            Ok(()) => Ok(Some(u128::from_le_bytes(bytes))),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(ColumnarError::io(&runs[i], e)),
        }
    };
    // The sorted memory is source `runs.len()`.
    let mut heap = BinaryHeap::with_capacity(runs.len() + 1);
    for (i, reader) in readers.iter_mut().enumerate() {
        if let Some(row) = read(i, reader)? {
            heap.push(Reverse((row, i)));
        }
    }
    let mut in_memory = memory.iter();
    if let Some(&row) = in_memory.next() {
        heap.push(Reverse((row, runs.len())));
    }
    while let Some(Reverse((row, i))) = heap.pop() {
        emit(row)?;
        let next =
            if i == runs.len() { in_memory.next().copied() } else { read(i, &mut readers[i])? };
        if let Some(next) = next {
            heap.push(Reverse((next, i)));
        }
    }
    drop(readers);
    for path in runs {
        std::fs::remove_file(path).map_err(|e| ColumnarError::io(path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(hash: i64, game: u32, ply: u16, next_move: Option<u16>) -> PositionRecord {
        PositionRecord { hash, game_id: GameId::new(game), ply, next_move }
    }

    #[test]
    fn records_sort_by_signed_hash_then_as_the_index_packs_them() {
        let records = [
            record(i64::MIN, 1, 0, Some(0)),
            record(-1, 1, 3, None),
            record(-1, 2, 0, Some(7)),
            // The ply's high bits above the game id, as in the index.
            record(-1, 1, 512, Some(7)),
            record(0, 1, 0, Some(12)),
            record(5, 1, 2, None),
            record(5, 1, 4, Some(3)),
            record(i64::MAX, u32::MAX, u16::MAX, Some(32_766)),
        ];
        for pair in records.windows(2) {
            assert!(pair[0].pack() < pair[1].pack(), "{pair:?}");
        }
        for r in records {
            assert_eq!(PositionRecord::unpack(r.pack()), r);
        }
    }

    /// Many runs (merged in several steps past the fan-in), and the rows
    /// left in memory, give every row once, in order.
    #[test]
    fn runs_merge_in_order() {
        let tmp = std::env::temp_dir().join(format!("pgnindex-runs-{}", std::process::id()));
        let mut runs = PositionRuns::new(&tmp, 7);
        let mut expected = Vec::new();
        let mut x: u64 = 0x1234_5678;
        for game in 1..=100u32 {
            for ply in 0..10u16 {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                // Few distinct hashes: ties ordered by game and ply.
                let r = record((x >> 58) as i64 - 32, game, ply * 100, Some(ply));
                expected.push(r);
                runs.push(r).unwrap();
            }
        }
        assert!(runs.runs() > MAX_FAN_IN, "{} runs", runs.runs());
        assert_eq!(runs.rows(), 1000);
        expected.sort_by_key(|r| (r.hash, positions::pack_gpm(r.game_id, r.ply, r.next_move)));
        let mut got = Vec::new();
        runs.finish(|r| {
            got.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, expected);
        let left = std::fs::read_dir(&tmp).unwrap().count();
        assert_eq!(left, 0, "every run file is removed once merged");
        std::fs::remove_dir(&tmp).unwrap();
    }
}
