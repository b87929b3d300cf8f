//! When the writer ends a batch of position rows (the unit it commits and
//! writes as one sorted segment).
//!
//! The writer inserts a batch's position rows only once the batch is
//! complete, and the readers run on the other core meanwhile. With equal
//! batches it waits, half idle, for the first batch of an input to fill,
//! and the readers wait, finished, while it inserts the input's last
//! batch. So a [`BatchPlan`] starts each input with smaller batches
//! (a quarter of a full one, then half), and, when the input's length is
//! known, ends a batch early once the rows still to come would fill less
//! than half of it: the readers read them while the writer inserts, and
//! the last batch, inserted with the readers done, is small.
//!
//! No batch is ended below a quarter of a full one, so that a batch's
//! segment is of the full batches' level ([`super::segments::level_for`])
//! and an input adds only a few segments to merge.
//!
//! The per-game rows a batch holds (their bytes) are planned alike: games
//! with long notes fill a batch's rows before its positions, and the same
//! ramp and early end keep the writer busy, and the memory first touched
//! by a small input small (the next batches reuse it).

/// The rows of the first batch of an input, as a right shift of a full
/// batch's: a quarter, then a half, then full ones.
const RAMP: u32 = 2;

/// Decides where the batches end.
#[derive(Debug, Clone)]
pub struct BatchPlan {
    /// Position rows of a full batch.
    full: usize,
    /// Bytes of per-game rows of a full batch.
    full_bytes: usize,
    /// Batches ended since the input began.
    ended: u32,
    /// Input bytes read into the current batch.
    bytes: u64,
}

impl BatchPlan {
    /// A plan with full batches of `full` position rows, or of
    /// `full_bytes` bytes of per-game rows.
    #[must_use]
    pub fn new(full: usize, full_bytes: usize) -> BatchPlan {
        BatchPlan { full, full_bytes, ended: 0, bytes: 0 }
    }

    /// A new input begins (its first batches are small again).
    pub fn begin_input(&mut self) {
        self.ended = 0;
        self.bytes = 0;
    }

    /// The batch was committed.
    pub fn ended(&mut self) {
        self.ended = self.ended.saturating_add(1);
        self.bytes = 0;
    }

    /// `bytes` more of the input were read into the batch.
    pub fn read(&mut self, bytes: u64) {
        self.bytes = self.bytes.saturating_add(bytes);
    }

    /// Whether a batch holding `rows` position rows and `row_bytes` bytes
    /// of per-game rows should end now, with `left` bytes of the input
    /// still to read (`None`: not known).
    #[must_use]
    pub fn is_full(&self, rows: usize, row_bytes: usize, left: Option<u64>) -> bool {
        self.measure_full(rows, self.full, left)
            || self.measure_full(row_bytes, self.full_bytes, left)
    }

    /// Whether a batch holding `held` of a measure whose full batch holds
    /// `full` should end now.
    fn measure_full(&self, held: usize, full: usize, left: Option<u64>) -> bool {
        let limit = full >> RAMP.saturating_sub(self.ended);
        if held >= limit {
            return true;
        }
        match left {
            // Never ended early below a quarter of a full batch.
            Some(left) if held >= full >> RAMP && self.bytes > 0 => {
                // What is still to come, at the batch's rate per byte.
                let to_come = left as f64 * held as f64 / self.bytes as f64;
                to_come <= held as f64 / 2.0
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The batch sizes a plan makes of an input of `bytes` bytes with
    /// `rows_per_byte` rows per byte, read in chunks of `chunk` bytes,
    /// its length known or not.
    fn batches(full: usize, bytes: u64, rows_per_byte: u64, chunk: u64, known: bool) -> Vec<usize> {
        let mut plan = BatchPlan::new(full, usize::MAX);
        let (mut read, mut rows, mut sizes) = (0u64, 0usize, Vec::new());
        while read < bytes {
            let n = chunk.min(bytes - read);
            read += n;
            rows += (n * rows_per_byte) as usize;
            plan.read(n);
            if plan.is_full(rows, 0, known.then_some(bytes - read)) {
                sizes.push(rows);
                rows = 0;
                plan.ended();
            }
        }
        if rows > 0 {
            sizes.push(rows);
        }
        sizes
    }

    #[test]
    fn an_input_starts_with_a_quarter_and_a_half_batch() {
        let sizes = batches(1000, 1_000_000, 1, 10, false);
        assert_eq!(&sizes[..4], &[250, 500, 1000, 1000]);
        assert_eq!(sizes.iter().sum::<usize>(), 1_000_000);
    }

    #[test]
    fn a_known_length_ends_with_a_small_batch_and_none_below_a_quarter() {
        // 4,750 rows: 250, 500, 1000, 1000, then 2,000 to share.
        let sizes = batches(1000, 4750, 1, 10, true);
        assert_eq!(&sizes[..4], &[250, 500, 1000, 1000]);
        let tail = &sizes[4..];
        assert_eq!(tail.iter().sum::<usize>(), 2000);
        let last = *tail.last().unwrap();
        assert!(last <= 500, "{sizes:?}");
        assert!(tail.iter().all(|&s| s >= 250 || s == last), "{sizes:?}");
        // Without the length, the last batch is what is left.
        assert_eq!(batches(1000, 4750, 1, 10, false), vec![250, 500, 1000, 1000, 1000, 1000]);
    }

    #[test]
    fn a_new_input_ramps_again() {
        let mut plan = BatchPlan::new(1000, 4000);
        plan.ended();
        plan.ended();
        assert!(!plan.is_full(999, 3999, None));
        plan.begin_input();
        assert!(plan.is_full(250, 0, None));
        assert!(!plan.is_full(249, 999, None));
        // The per-game rows' bytes ramp alike.
        assert!(plan.is_full(0, 1000, None));
        plan.ended();
        assert!(!plan.is_full(0, 1999, None));
        assert!(plan.is_full(0, 2000, None));
    }

    #[test]
    fn a_small_input_is_one_batch() {
        // Under a quarter of a full batch, the length changes nothing.
        assert_eq!(batches(1000, 200, 1, 10, true), vec![200]);
    }
}
