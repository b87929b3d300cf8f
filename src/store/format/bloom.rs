//! [`Bloom`]: a blocked Bloom filter over 64-bit hashes, the importer's
//! first test of whether a game may already be stored.
//!
//! The keys it holds are already uniform hashes (xxh3), so no hashing is
//! done here: a key's bits choose one 512-bit block (a cache line) and six
//! bits in it, one memory access per test. With 16 bits per key about 0.1 %
//! of absent keys test positive, measured by the test below.

/// Bits per block: one 64-byte cache line.
const BLOCK_BITS: u64 = 512;
/// Bits set per key.
const PROBES: u32 = 6;
/// Bits of filter per key it is sized for.
pub const BITS_PER_KEY: u64 = 16;

/// A set of 64-bit hashes that answers "maybe" or "certainly not".
#[derive(Clone)]
pub struct Bloom {
    /// `blocks * 8` words.
    words: Vec<u64>,
    /// Number of blocks minus one (a power of two minus one).
    block_mask: u64,
    /// Keys inserted (repeats counted).
    inserted: u64,
}

impl std::fmt::Debug for Bloom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bloom")
            .field("bytes", &(self.words.len() * 8))
            .field("inserted", &self.inserted)
            .finish()
    }
}

impl Bloom {
    /// An empty filter of `bits` bits, rounded up to a power of two of at
    /// least one block.
    pub fn with_bits(bits: u64) -> Bloom {
        let blocks = bits.div_ceil(BLOCK_BITS).next_power_of_two().max(1);
        Bloom { words: vec![0; (blocks * 8) as usize], block_mask: blocks - 1, inserted: 0 }
    }

    /// Size of the filter in bits.
    pub fn bits(&self) -> u64 {
        self.words.len() as u64 * 64
    }

    /// Keys inserted (repeats counted).
    pub fn inserted(&self) -> u64 {
        self.inserted
    }

    /// The first word of `key`'s block and the mask of each of its eight
    /// words.
    #[inline]
    fn locate(&self, key: u64) -> (usize, [u64; 8]) {
        // The block from the high bits after a multiply (every key bit
        // counts), the six bit positions from the low 54 bits.
        let block = self.block_of(key);
        let mut masks = [0u64; 8];
        for i in 0..PROBES {
            let bit = (key >> (9 * i)) & (BLOCK_BITS - 1);
            masks[(bit >> 6) as usize] |= 1 << (bit & 63);
        }
        (block, masks)
    }

    /// The first word of `key`'s block.
    #[inline]
    fn block_of(&self, key: u64) -> usize {
        (((key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) & self.block_mask) * 8) as usize
    }

    /// Adds `key`.
    pub fn insert(&mut self, key: u64) {
        let (at, masks) = self.locate(key);
        for (word, mask) in self.words[at..at + 8].iter_mut().zip(masks) {
            *word |= mask;
        }
        self.inserted += 1;
    }

    /// Adds every key of `keys`. Each run of keys first reads its keys'
    /// blocks, loads that do not wait for each other, so that their cache
    /// misses overlap; then sets the bits in blocks now cached. One key at
    /// a time between other work, each key waits for its own miss.
    pub fn insert_all(&mut self, keys: &[u64]) {
        for run in keys.chunks(256) {
            let mut touched = 0u64;
            for &key in run {
                touched ^= self.words[self.block_of(key)];
            }
            std::hint::black_box(touched);
            for &key in run {
                self.insert(key);
            }
        }
    }

    /// The filter's words, as stored (each little-endian).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// A filter of [`Bloom::words`] read back, with its count of keys
    /// inserted; `None` if `words` is no whole power of two of blocks.
    pub fn from_words(words: Vec<u64>, inserted: u64) -> Option<Bloom> {
        let block_words = (BLOCK_BITS / 64) as usize;
        let blocks = words.len() / block_words;
        if !words.len().is_multiple_of(block_words) || !blocks.is_power_of_two() {
            return None;
        }
        Some(Bloom { words, block_mask: blocks as u64 - 1, inserted })
    }

    /// `false` if `key` was certainly never inserted.
    #[inline]
    pub fn may_contain(&self, key: u64) -> bool {
        let (at, masks) = self.locate(key);
        self.words[at..at + 8].iter().zip(masks).all(|(word, mask)| word & mask == mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(seed: u64, n: usize) -> impl Iterator<Item = u64> {
        (0..n as u64).map(move |i| {
            let mut bytes = [0u8; 16];
            bytes[..8].copy_from_slice(&seed.to_le_bytes());
            bytes[8..].copy_from_slice(&i.to_le_bytes());
            xxhash_rust::xxh3::xxh3_64(&bytes)
        })
    }

    #[test]
    fn inserted_keys_are_found_and_few_others_are() {
        let n = 100_000;
        let mut bloom = Bloom::with_bits(n as u64 * BITS_PER_KEY);
        assert_eq!(bloom.inserted(), 0);
        for k in keys(1, n) {
            bloom.insert(k);
        }
        assert_eq!(bloom.inserted(), n as u64);
        assert!(keys(1, n).all(|k| bloom.may_contain(k)), "no false negative");
        let false_positives = keys(2, n).filter(|&k| bloom.may_contain(k)).count();
        // About 0.1 % expected; 0.5 % would mean a broken bit choice.
        assert!(false_positives < n / 200, "{false_positives} false positives of {n}");
    }

    #[test]
    fn keys_inserted_in_runs_are_held_as_one_by_one() {
        let all: Vec<u64> = keys(3, 10_000).collect();
        let mut one = Bloom::with_bits(1 << 16);
        let mut runs = Bloom::with_bits(1 << 16);
        for &k in &all {
            one.insert(k);
        }
        runs.insert_all(&all[..777]);
        runs.insert_all(&all[777..]);
        assert_eq!(runs.words, one.words);
        assert_eq!(runs.inserted(), one.inserted());
    }

    #[test]
    fn a_filter_read_back_from_its_words_answers_the_same() {
        let all: Vec<u64> = keys(4, 5_000).collect();
        let mut bloom = Bloom::with_bits(1 << 17);
        bloom.insert_all(&all);
        let words = bloom.words().to_vec();
        assert_eq!(words.len() as u64 * 64, bloom.bits());
        let back = Bloom::from_words(words.clone(), bloom.inserted()).unwrap();
        assert_eq!(back.words, bloom.words);
        assert_eq!(back.inserted(), 5_000);
        assert!(all.iter().all(|&k| back.may_contain(k)));
        let others = keys(5, 5_000);
        assert!(others.filter(|&k| back.may_contain(k) != bloom.may_contain(k)).count() == 0);
        assert!(Bloom::from_words(words[..words.len() - 1].to_vec(), 0).is_none(), "a cut block");
        assert!(Bloom::from_words(words[..3 * 8].to_vec(), 0).is_none(), "three blocks");
        assert!(Bloom::from_words(Vec::new(), 0).is_none());
    }

    #[test]
    fn sizes_round_up_to_whole_blocks() {
        assert_eq!(Bloom::with_bits(0).bits(), 512);
        assert_eq!(Bloom::with_bits(513).bits(), 1024);
        assert_eq!(Bloom::with_bits(3 * 512).bits(), 4 * 512);
        let mut tiny = Bloom::with_bits(1);
        tiny.insert(7);
        assert!(tiny.may_contain(7));
    }
}
