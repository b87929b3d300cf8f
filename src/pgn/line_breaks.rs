//! Counting line breaks: `\n`, and a `\r` not followed by `\n` (so that
//! `\r\n` counts once), in one pass over the bytes. Every chunk of an input
//! is counted whole so that the next one can number its lines: on files of
//! long comments this was a tenth of reading them, in two passes (`\n`
//! counted, then each `\r` looked at), one search per line on `\r\n` files.

/// Line breaks that end a line in `data[from..to]`. A `\r` is told from the
/// `\r` of a `\r\n` by the byte after it, even when that byte is at `to`
/// (outside the range).
pub(crate) fn count(data: &[u8], from: usize, to: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is available, as just checked.
            return unsafe { avx2::count(data, from, to) };
        }
    }
    count_with_memchr(data, from, to)
}

/// [`count`] with `memchr`: `\n` counted, then each `\r` looked at.
fn count_with_memchr(data: &[u8], from: usize, to: usize) -> usize {
    let part = &data[from..to];
    let lf = memchr::memchr_iter(b'\n', part).count();
    let lone_cr = memchr::memchr_iter(b'\r', part)
        .filter(|&i| data.get(from + i + 1) != Some(&b'\n'))
        .count();
    lf + lone_cr
}

/// [`count`] one byte at a time, for the bytes past the last whole vector.
fn count_bytes(data: &[u8], from: usize, to: usize) -> usize {
    (from..to)
        .filter(|&i| match data[i] {
            b'\n' => true,
            b'\r' => data.get(i + 1) != Some(&b'\n'),
            _ => false,
        })
        .count()
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_andnot_si256, _mm256_cmpeq_epi8, _mm256_extract_epi64, _mm256_loadu_si256,
        _mm256_sad_epu8, _mm256_set1_epi8, _mm256_setzero_si256, _mm256_sub_epi8,
    };

    /// Vectors counted into byte lanes before the lanes are summed: a
    /// byte is a `\n` or a `\r`, so each vector adds at most 1 to a lane.
    const ROUNDS: usize = 255;

    /// [`super::count`] 32 bytes at a time: a lane of `\n` marks, and one of
    /// `\r` marks whose next byte (the same bytes loaded one further on) is
    /// not `\n`.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn count(data: &[u8], from: usize, to: usize) -> usize {
        assert!(from <= to && to <= data.len());
        let lf = _mm256_set1_epi8(b'\n' as i8);
        let cr = _mm256_set1_epi8(b'\r' as i8);
        let mut total = 0usize;
        let mut i = from;
        // The load one byte further on must stay inside `data`.
        while i + 32 <= to && i + 33 <= data.len() {
            let mut lanes = _mm256_setzero_si256();
            let mut rounds = 0;
            while rounds < ROUNDS && i + 32 <= to && i + 33 <= data.len() {
                // SAFETY: `i + 33 <= data.len()`, so both 32-byte loads, at
                // `i` and `i + 1`, read inside `data`; `loadu` needs no
                // alignment.
                let (here, next) = unsafe {
                    let p = data.as_ptr().add(i);
                    (
                        _mm256_loadu_si256(p.cast::<__m256i>()),
                        _mm256_loadu_si256(p.add(1).cast::<__m256i>()),
                    )
                };
                let newline = _mm256_cmpeq_epi8(here, lf);
                let lone_cr =
                    _mm256_andnot_si256(_mm256_cmpeq_epi8(next, lf), _mm256_cmpeq_epi8(here, cr));
                // A match is -1 in its lane: subtracting counts it.
                lanes = _mm256_sub_epi8(_mm256_sub_epi8(lanes, newline), lone_cr);
                i += 32;
                rounds += 1;
            }
            let sums = _mm256_sad_epu8(lanes, _mm256_setzero_si256());
            total += (_mm256_extract_epi64::<0>(sums)
                + _mm256_extract_epi64::<1>(sums)
                + _mm256_extract_epi64::<2>(sums)
                + _mm256_extract_epi64::<3>(sums)) as usize;
        }
        total + super::count_bytes(data, i, to)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn agrees_with_counting_byte_by_byte(
            data in proptest::collection::vec(
                prop::sample::select(vec![b'\n', b'\r', b'x', b' ']), 0..400),
            a in 0usize..400,
            b in 0usize..400,
        ) {
            let (from, to) = (a.min(b).min(data.len()), a.max(b).min(data.len()));
            let expected = count_bytes(&data, from, to);
            prop_assert_eq!(count(&data, from, to), expected);
            prop_assert_eq!(count_with_memchr(&data, from, to), expected);
        }
    }

    #[test]
    fn a_crlf_split_by_the_range_end_counts_at_its_lf() {
        // The `\r` at the end of the range is the start of a `\r\n`.
        let data = [b"x".repeat(40), b"\r\n".to_vec(), b"y".repeat(40)].concat();
        assert_eq!(count(&data, 0, 41), 0);
        assert_eq!(count(&data, 0, 42), 1);
        // A lone `\r` at the very end of the data ends a line.
        let data = [b"x".repeat(70), b"\r".to_vec()].concat();
        assert_eq!(count(&data, 0, data.len()), 1);
        // Long runs: more than the 255 vectors a lane holds.
        let data = b"\r\n\r\r\n\n".repeat(2000);
        assert_eq!(count(&data, 0, data.len()), count_bytes(&data, 0, data.len()));
        assert_eq!(count(&data, 0, data.len()), 4 * 2000);
    }
}
