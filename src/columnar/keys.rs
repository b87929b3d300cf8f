//! [`KeySet`]: the games an import without a database has kept, for
//! dedupe, in bounded memory. A game is its dedupe key and a second hash
//! of the same identity (`GameRow::dedupe_check`): equal pairs are the
//! same game, what the database's import confirms by reading the stored
//! game back.
//!
//! The newest games are a hash table of at most `run_keys` entries; a full
//! table is sorted and written as a run file of 16-byte records into the
//! working directory, with a Bloom filter of 16 bits a key
//! ([`crate::store::format::bloom`], about 0.1 % false positives) and the first key
//! of every [`BLOCK`] records kept in memory. A lookup tests each run's
//! filter and reads one block of a run whose filter says "maybe".
//!
//! Memory per kept game: the table's ≈ 20 bytes for the newest games,
//! 2.4 bytes of filter for the others (a run's filter is 8 MiB: 16 bits a
//! key rounded up to a power of two; 100 M games: 240 MB of filters);
//! disk: 16 bytes a game. Time: one filter test per run for each game,
//! one block read (4 KB, most often from the page cache) for 0.1 % of
//! them per run and for every duplicate.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::ColumnarError;
use crate::chess::zobrist::BuildKeyHasher;
use crate::store::format::bloom::{Bloom, BITS_PER_KEY};

/// Keys in the table before it is written as a run: 3.5 M entries fill a
/// table of 4 Mi slots (68 MB) to its load limit.
pub const RUN_KEYS: usize = 3_500_000;

/// Records per block of a run (4 KiB), the unit a lookup reads.
const BLOCK: usize = 256;

/// A run of keys on disk.
#[derive(Debug)]
struct Run {
    path: PathBuf,
    file: File,
    bloom: Bloom,
    /// The first key of each block.
    firsts: Vec<u64>,
    len: usize,
}

/// The kept games' `(key, check)` pairs; see the module's documentation.
#[derive(Debug)]
pub struct KeySet {
    work: PathBuf,
    run_keys: usize,
    newest: HashMap<u64, u64, BuildKeyHasher>,
    /// Pairs of a key the table holds already with another check (two
    /// games whose keys collide): never written to a run, so few.
    collided: Vec<(u64, u64)>,
    runs: Vec<Run>,
    block: Vec<u8>,
}

impl KeySet {
    /// An empty set whose runs go into `work` (created at the first run;
    /// the caller removes it), written every `run_keys` keys.
    pub fn new(work: &Path, run_keys: usize) -> KeySet {
        KeySet {
            work: work.to_path_buf(),
            run_keys: run_keys.max(1),
            newest: HashMap::default(),
            collided: Vec::new(),
            runs: Vec::new(),
            block: vec![0; BLOCK * 16],
        }
    }

    /// Adds the game `(key, check)`; `false` if it was there already.
    ///
    /// # Errors
    /// [`ColumnarError::Io`] when a run cannot be written or read.
    pub fn insert(&mut self, key: u64, check: u64) -> Result<bool, ColumnarError> {
        if self.contains(key, check)? {
            return Ok(false);
        }
        match self.newest.get(&key) {
            Some(_) => self.collided.push((key, check)),
            None => {
                self.newest.insert(key, check);
            }
        }
        if self.newest.len() + self.collided.len() >= self.run_keys {
            self.write_run()?;
        }
        Ok(true)
    }

    fn contains(&mut self, key: u64, check: u64) -> Result<bool, ColumnarError> {
        if self.newest.get(&key) == Some(&check) || self.collided.contains(&(key, check)) {
            return Ok(true);
        }
        for run in &mut self.runs {
            if run.bloom.may_contain(key) && run.contains(key, check, &mut self.block)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Runs written so far.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// The table, sorted, as a new run; the table is empty again.
    fn write_run(&mut self) -> Result<(), ColumnarError> {
        if self.runs.is_empty() {
            std::fs::create_dir_all(&self.work).map_err(|e| ColumnarError::io(&self.work, e))?;
        }
        let path = self.work.join(format!("keys-{:05}.run", self.runs.len() + 1));
        let mut pairs: Vec<(u64, u64)> = self.newest.drain().collect();
        pairs.append(&mut self.collided);
        pairs.sort_unstable();
        let io = |e| ColumnarError::io(&path, e);
        let file =
            File::options().read(true).write(true).create_new(true).open(&path).map_err(io)?;
        let mut out = BufWriter::with_capacity(1 << 20, &file);
        let mut bloom = Bloom::with_bits(pairs.len() as u64 * BITS_PER_KEY);
        let mut firsts = Vec::with_capacity(pairs.len().div_ceil(BLOCK));
        for (i, &(key, check)) in pairs.iter().enumerate() {
            if i % BLOCK == 0 {
                firsts.push(key);
            }
            bloom.insert(key);
            out.write_all(&key.to_le_bytes()).map_err(io)?;
            out.write_all(&check.to_le_bytes()).map_err(io)?;
        }
        out.flush().map_err(io)?;
        drop(out);
        self.newest = HashMap::default();
        self.runs.push(Run { path, file, bloom, firsts, len: pairs.len() });
        Ok(())
    }
}

impl Run {
    /// `true` if the run holds `(key, check)`: the blocks that may hold
    /// `key` are read and scanned.
    fn contains(&mut self, key: u64, check: u64, block: &mut [u8]) -> Result<bool, ColumnarError> {
        // The last block whose first key is below `key` may end with it.
        let mut b = self.firsts.partition_point(|&first| first < key).saturating_sub(1);
        while b < self.firsts.len() && self.firsts[b] <= key {
            let start = b * BLOCK;
            let n = BLOCK.min(self.len - start);
            let bytes = &mut block[..n * 16];
            let io = |e| ColumnarError::io(&self.path, e);
            (&self.file).seek(SeekFrom::Start(start as u64 * 16)).map_err(io)?;
            (&self.file).read_exact(bytes).map_err(io)?;
            for record in bytes.chunks_exact(16) {
                let k = u64::from_le_bytes(record[..8].try_into().expect("8 bytes"));
                if k == key && u64::from_le_bytes(record[8..].try_into().expect("8 bytes")) == check
                {
                    return Ok(true);
                }
                if k > key {
                    return Ok(false);
                }
            }
            b += 1;
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_found_in_the_table_and_in_the_runs() {
        let tmp = std::env::temp_dir().join(format!("pgnindex-keys-{}", std::process::id()));
        let mut set = KeySet::new(&tmp, 100);
        let key = |i: u64| xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes());
        for i in 0..1000 {
            assert!(set.insert(key(i), i).unwrap(), "{i} is new");
        }
        // Keys that repeat with another check: other games.
        for i in 0..1000 {
            assert!(set.insert(key(i), i + 1).unwrap(), "{i} with another check is new");
        }
        assert!(set.runs() >= 19, "{} runs", set.runs());
        for i in 0..1000 {
            assert!(!set.insert(key(i), i).unwrap(), "{i} is there");
            assert!(!set.insert(key(i), i + 1).unwrap(), "{i} + 1 is there");
            assert!(set.insert(key(i + 5000), i).unwrap(), "{i} + 5000 is new");
        }
        drop(set);
        // One key in many games, over several blocks of one run.
        let mut set = KeySet::new(&tmp.join("one"), 3 * BLOCK);
        for i in 0..(3 * BLOCK as u64 - 1) {
            assert!(set.insert(7, i).unwrap());
        }
        assert!(set.insert(key(1), 1).unwrap());
        assert_eq!(set.runs(), 1);
        for i in 0..(3 * BLOCK as u64 - 1) {
            assert!(!set.insert(7, i).unwrap(), "7 with {i}");
        }
        assert!(set.insert(7, 3 * BLOCK as u64).unwrap());
        assert!(!set.insert(key(1), 1).unwrap());
        drop(set);
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
