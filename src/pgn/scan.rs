//! Byte searches tuned for the short stretches PGN is made of: a tag value
//! or a `{[%clk 0:03:00]}` comment is a few dozen bytes, where `memchr`'s
//! dispatch and setup cost more than the search. On x86-64 the first
//! [`HEAD`] bytes are searched sixteen at a time with SSE2; a haystack
//! shorter than sixteen bytes, or any on other processors, eight at a time
//! in a `u64` (SWAR) for its first [`SHORT`] bytes. Longer haystacks go on
//! with `memchr`.

/// Bytes searched word by word before handing over to `memchr` (where the
/// SSE2 search is not used): a clock comment or a tag value fits; an
/// engine's comment of hundreds of bytes goes on to `memchr` after four
/// words (at 64 bytes, eight words were a twentieth of reading such games).
const SHORT: usize = 32;

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` equal to `byte`, exact for the
/// lowest such byte (higher ones may be flagged falsely after a match:
/// only the lowest is ever used).
#[inline(always)]
fn matches(word: u64, byte: u8) -> u64 {
    let x = word ^ (LO * u64::from(byte));
    x.wrapping_sub(LO) & !x & HI
}

/// The eight bytes at `at` as a little-endian word (byte 0 lowest).
#[inline(always)]
fn word_at(hay: &[u8], at: usize) -> u64 {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&hay[at..at + 8]);
    u64::from_le_bytes(bytes)
}

/// Bytes searched sixteen at a time with SSE2 (every x86-64 processor has
/// it: no detection at run time, no setup) before handing over to `memchr`,
/// whose wider search pays for its dispatch on longer stretches only. Two
/// steps hold a clock comment; at four, an engine's comment of hundreds of
/// bytes paid for two more (32 took 1 to 2 % fewer instructions than 64
/// on lichess, chess.com and TCEC files).
#[cfg(target_arch = "x86_64")]
const HEAD: usize = 32;

/// Searches `hay` for the first byte among the needles: `head` searches
/// a stretch of at least 16 bytes (SSE2), `found` the SWAR mask of a word,
/// `is_needle` one byte, `long` (memchr) the rest.
#[inline(always)]
fn find_with(
    hay: &[u8],
    head: impl Fn(&[u8]) -> Option<usize>,
    found: impl Fn(u64) -> u64,
    is_needle: impl Fn(u8) -> bool,
    long: impl Fn(&[u8]) -> Option<usize>,
) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if hay.len() >= 16 {
        let n = hay.len().min(HEAD);
        if let Some(i) = head(&hay[..n]) {
            return Some(i);
        }
        return if hay.len() > n { long(&hay[n..]).map(|i| n + i) } else { None };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = &head;
    let mut i = 0;
    let words_end = hay.len().min(SHORT) & !7;
    while i < words_end {
        let mask = found(word_at(hay, i));
        if mask != 0 {
            return Some(i + (mask.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    if hay.len() > SHORT {
        return long(&hay[i..]).map(|n| i + n);
    }
    hay[i..].iter().position(|&b| is_needle(b)).map(|n| i + n)
}

#[cfg(target_arch = "x86_64")]
use memchr::arch::x86_64::sse2::memchr as sse2;

/// The index of the first `a` in `hay`.
#[inline]
pub(crate) fn find(a: u8, hay: &[u8]) -> Option<usize> {
    find_with(
        hay,
        |head| {
            #[cfg(target_arch = "x86_64")]
            return sse2::One::new(a).and_then(|s| s.find(head));
            #[cfg(not(target_arch = "x86_64"))]
            return memchr::memchr(a, head);
        },
        |w| matches(w, a),
        |b| b == a,
        |rest| memchr::memchr(a, rest),
    )
}

/// The index of the first `a` or `b` in `hay`.
#[inline]
pub(crate) fn find2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    find_with(
        hay,
        |head| {
            #[cfg(target_arch = "x86_64")]
            return sse2::Two::new(a, b).and_then(|s| s.find(head));
            #[cfg(not(target_arch = "x86_64"))]
            return memchr::memchr2(a, b, head);
        },
        |w| matches(w, a) | matches(w, b),
        |x| x == a || x == b,
        |rest| memchr::memchr2(a, b, rest),
    )
}

/// The index of the first `a`, `b` or `c` in `hay`.
#[inline]
pub(crate) fn find3(a: u8, b: u8, c: u8, hay: &[u8]) -> Option<usize> {
    find_with(
        hay,
        |head| {
            #[cfg(target_arch = "x86_64")]
            return sse2::Three::new(a, b, c).and_then(|s| s.find(head));
            #[cfg(not(target_arch = "x86_64"))]
            return memchr::memchr3(a, b, c, head);
        },
        |w| matches(w, a) | matches(w, b) | matches(w, c),
        |x| x == a || x == b || x == c,
        |rest| memchr::memchr3(a, b, c, rest),
    )
}

/// The high bit of each byte of `word` below `limit` (at most 128), exact
/// for the lowest such byte, as [`matches`] is.
#[inline(always)]
fn below(word: u64, limit: u8) -> u64 {
    word.wrapping_sub(LO * u64::from(limit)) & !word & HI
}

/// The index of the first byte of `hay` that is below `limit` (at most
/// 128) or is `a` or `b`, if one is among its first `max` bytes, searched
/// word by word: `None` also where a word would run past the end of `hay`
/// (the caller then reads byte by byte). What ends a tag name.
#[inline]
pub(crate) fn find_below_or2(limit: u8, a: u8, b: u8, hay: &[u8], max: usize) -> Option<usize> {
    let mut i = 0;
    while i < max && i + 8 <= hay.len() {
        let w = word_at(hay, i);
        let mask = below(w, limit) | matches(w, a) | matches(w, b);
        if mask != 0 {
            return Some(i + (mask.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    None
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn finds_the_first_match_at_every_offset_and_length() {
        for len in 0..150 {
            for at in 0..len {
                let mut hay = vec![b'x'; len];
                hay[at] = b'}';
                // A second match later must not be reported first.
                if at + 3 < len {
                    hay[at + 3] = b'{';
                }
                assert_eq!(find(b'}', &hay), Some(at), "len {len} at {at}");
                assert_eq!(find2(b'{', b'}', &hay), Some(at), "len {len} at {at}");
                assert_eq!(find3(b'"', b'{', b'}', &hay), Some(at), "len {len} at {at}");
            }
            assert_eq!(find(b'}', &vec![b'x'; len]), None);
        }
    }

    #[test]
    fn bytes_next_to_a_needle_are_not_taken_for_it() {
        // 0x7c and 0x7e differ from '}' (0x7d) by one; 0x00 and 0xff borrow.
        let hay = [0x7c, 0x7e, 0x00, 0xff, 0xfd, 0x7d ^ 0x80, 0x01, 0x7d];
        assert_eq!(find(b'}', &hay), Some(7));
        assert_eq!(find2(0x00, b'}', &hay[3..]), Some(4));
    }

    /// Bytes where borrows and neighbours matter, so matches are frequent.
    fn byte() -> impl Strategy<Value = u8> {
        prop::sample::select(vec![0x00, 0x01, 0x7c, 0x7d, 0x7e, 0x7f, 0x80, 0xfd, 0xfe, 0xff])
    }

    /// Bytes around the limits a tag name's search uses.
    fn name_byte() -> impl Strategy<Value = u8> {
        prop::sample::select(vec![
            0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, b'a', 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xff,
        ])
    }

    proptest! {
        #[test]
        fn find_below_or2_agrees_with_a_byte_by_byte_search(
            hay in proptest::collection::vec(name_byte(), 0..60),
            a in name_byte(), b in name_byte(), limit in 0u8..=128,
        ) {
            let first = hay.iter().position(|&x| x < limit || x == a || x == b);
            match find_below_or2(limit, a, b, &hay, 24) {
                Some(i) => prop_assert_eq!(Some(i), first),
                // Not found: none in the words searched.
                None => prop_assert!(first.is_none_or(|i| i >= 24.min(hay.len() & !7))),
            }
        }

        #[test]
        fn agrees_with_memchr(hay in proptest::collection::vec(byte(), 0..200),
                              a in byte(), b in byte(), c in byte()) {
            prop_assert_eq!(find(a, &hay), memchr::memchr(a, &hay));
            prop_assert_eq!(find2(a, b, &hay), memchr::memchr2(a, b, &hay));
            prop_assert_eq!(find3(a, b, c, &hay), memchr::memchr3(a, b, c, &hay));
        }
    }
}
