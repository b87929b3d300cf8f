//! `game_rows.final_fen` packed (schema [`super::schema::Schema::COMPACT_ROWS`]): a game's
//! final position, the `games.final_fen` text, in about half its bytes,
//! still a text that plain SQL turns back into FEN.
//!
//! FEN (and X-FEN's and Shredder-FEN's castling files) is written with 41
//! characters; the packing gives 84 others (control characters and
//! printable ones FEN does not use, no quote) a meaning each, as
//! [`super::packed_moves`] does for SAN: code `i` stands for the pair of
//! symbols [`MERGES`]`[i]`, characters or earlier codes (` w - - 0 ` is one
//! code, `ppp/` another). The merges were learnt once, by byte-pair
//! encoding the final positions of 16,981 distinct real games (lichess and
//! chess.com exports, over-the-board collections, engine games), the most
//! frequent pair first, never a pair across the `/` that ends a rank: learnt on
//! half of them, they packed the other half from 49.2 to 26.2 bytes a
//! position. They are part of the schema and never change.
//!
//! Packing applies the merges in order, each to every occurrence from left
//! to right without overlaps: exactly SQL's chain of `replace()` calls of
//! [`pack_sql`], which the migration and the triggers of the `games` view
//! run. A text with a character outside FEN's is stored as it is after
//! [`VERBATIM`].

use std::cell::RefCell;
use std::sync::LazyLock;

use super::packed_moves::chain_sql;

/// Starts a stored text that is not packed: the rest is the FEN as it is.
pub const VERBATIM: u8 = 0x7f;

/// The characters a FEN is written with: a text of only these is packed.
const FEN_CHARS: &[u8] = b" -/0123456789ABCDEFGHKNPQRabcdefghknpqrw";

/// The code of merge `i`.
const CODES: [u8; 84] = [
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
    0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x21,
    0x23, 0x24, 0x25, 0x26, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2e, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f,
    0x40, 0x49, 0x4a, 0x4c, 0x4d, 0x4f, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c,
    0x5d, 0x5e, 0x5f, 0x60, 0x69, 0x6a, 0x6c, 0x6d, 0x6f, 0x73, 0x74, 0x75, 0x76, 0x78, 0x79, 0x7a,
    0x7b, 0x7c, 0x7d, 0x7e,
];

/// The merges, in the order they apply: merge `i` replaces the pair of
/// symbols by [`CODES`]`[i]`.
#[rustfmt::skip]
pub const MERGES: [[u8; 2]; 84] = [
    [b' ', b'-'], [b'1', b'/'], [b'8', b'/'], [0x01, b' '], [0x01, 0x04], [b'1', b'p'],
    [b'2', b'/'], [b'P', b'P'], [b'1', b'P'], [b'p', b'p'], [b' ', b'b'], [b'3', b'/'],
    [0x0b, 0x05], [b'2', b'p'], [b' ', b'w'], [b'2', b'P'], [b'0', b' '], [0x0f, 0x05],
    [b'4', b'/'], [b'P', b'/'], [b'p', b'/'], [b'5', b'/'], [b'k', 0x02], [b'K', b'1'],
    [b'3', b'P'], [b'3', b'p'], [b'6', b'/'], [b'1', b'r'], [0x0d, 0x11], [b'p', 0x02],
    [b'P', 0x02], [b'1', b'b'], [b'1', b'B'], [b'1', b' '], [b'1', b'R'], [b'2', b'r'],
    [b'2', b'R'], [b'7', b'/'], [b'k', b'/'], [0x08, b'/'], [b'4', b'p'], [0x12, 0x11],
    [b'1', b'K'], [b'3', b'R'], [0x06, b'/'], [b'2', b' '], [b'2', b'K'], [b'1', b'n'],
    [b'3', b'r'], [b'4', b'P'], [0x09, b'/'], [b'8', 0x0d], [b'2', b'N'], [b'1', b'k'],
    [b'1', b'N'], [b'4', b'R'], [b'2', b'B'], [b'1', b'Q'], [b'1', b'q'], [b'5', b'p'],
    [b'2', b'k'], [0x08, b'P'], [b'5', b'P'], [b'2', b'Q'], [b'4', b'r'], [b'2', b'n'],
    [b'2', b'b'], [b'2', b'q'], [b'8', 0x12], [0x0a, b'/'], [0x18, 0x0d], [b'3', b'K'],
    [0x06, 0x02], [b'3', b'k'], [b'4', b' '], [b'3', b' '], [b'6', 0x1f], [b'7', 0x14],
    [b'5', b'R'], [0x08, 0x14], [0x0a, 0x15], [b'6', 0x17], [0x0e, b'/'], [b'3', b'B'],
];

/// No merge: the rank of a pair that is none.
const NO_MERGE: u8 = u8::MAX;

/// The merges as lookup tables.
struct Tables {
    /// `rank[a][b]`: the index of the merge of the pair, or [`NO_MERGE`].
    rank: Box<[[u8; 128]; 128]>,
    /// The FEN a code stands for (empty for a character that is none).
    text: [&'static str; 128],
    /// `true` for the characters of FEN.
    fen: [bool; 256],
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let mut text: [&'static str; 128] = [""; 128];
    let mut rank = Box::new([[NO_MERGE; 128]; 128]);
    for (i, (&[a, b], &code)) in MERGES.iter().zip(&CODES).enumerate() {
        rank[usize::from(a)][usize::from(b)] = i as u8;
        let part = |c: u8| -> String {
            match text[usize::from(c)] {
                "" => char::from(c).to_string(),
                t => t.to_string(),
            }
        };
        // 84 short strings, made once and kept for the process.
        text[usize::from(code)] = Box::leak((part(a) + &part(b)).into_boxed_str());
    }
    let mut fen = [false; 256];
    for &c in FEN_CHARS {
        fen[usize::from(c)] = true;
    }
    Tables { rank, text, fen }
});

/// Slots of a thread's cache of packed units (32 bytes each): the ranks
/// of final positions repeat (`8/`, `pp3ppp/`, `PP3PPP/`).
const CACHE_SLOTS: usize = 1 << CACHE_BITS;

/// The bits of a slot's number.
const CACHE_BITS: u32 = 14;

/// The longest unit the cache holds: its bytes are a key of 16 bytes.
const CACHED_UNIT: usize = 16;

thread_local! {
    /// Units of at most [`CACHED_UNIT`] bytes and their packings, as
    /// little-endian numbers padded with zeros (no FEN character and no
    /// code is 0).
    static CACHE: RefCell<Vec<[u128; 2]>> = const { RefCell::new(Vec::new()) };
}

/// Units looked up in the cache at once: a FEN has 8.
const BATCH: usize = 8;

/// The slot of a unit the cache does not hold.
const NOT_CACHED: usize = usize::MAX;

/// `fen` packed.
///
/// No merge's left symbol ends with `/` (none was learnt across one), so
/// no merge spans the end of a rank: each rank with its `/` (the last one
/// with the rest of the FEN) packs alone, and most are found in a cache.
/// The cache entries of a position's units are read before any is used,
/// so that their loads overlap: in an import, the cache is mostly out of
/// the processor's caches, and one load after the other waited for each.
///
/// Digits that end the text after a space (a FEN's move number) are no
/// part of any merge (no merge joins two digits, and the only merges of a
/// digit after a space take the space after it too): they are copied,
/// and the last unit ends before them, so that it is found in the cache
/// whatever the move number.
pub fn pack(fen: &str) -> String {
    let tables = &*TABLES;
    if !fen.bytes().all(|c| tables.fen[usize::from(c)]) {
        let mut out = String::with_capacity(fen.len() + 1);
        out.push(char::from(VERBATIM));
        out.push_str(fen);
        return out;
    }
    let digits = fen.bytes().rev().take_while(u8::is_ascii_digit).count();
    let (bytes, number) = match fen.as_bytes().split_at(fen.len() - digits) {
        (head, number) if head.ends_with(b" ") => (head, number),
        _ => (fen.as_bytes(), &[][..]),
    };
    let mut out = Vec::with_capacity(fen.len());
    CACHE.with_borrow_mut(|cache| {
        if cache.is_empty() {
            cache.resize(CACHE_SLOTS, [0, 0]);
        }
        let mut start = 0;
        while start < bytes.len() {
            // The next units: their bounds, and for those the cache may
            // hold, their key, slot, and whether the slot holds them, in
            // arrays of plain numbers (tuples moved through the stack
            // waited for their own stores).
            let mut bounds = [(0usize, 0usize); BATCH];
            let mut keys = [0u128; BATCH];
            let mut slots = [NOT_CACHED; BATCH];
            let mut hits = [false; BATCH];
            let mut n = 0;
            while n < BATCH && start < bytes.len() {
                let end = bytes[start..]
                    .iter()
                    .position(|&c| c == b'/')
                    .map_or(bytes.len(), |i| start + i + 1);
                if let Some(key) = unit_key(bytes, start, end) {
                    let slot = slot_of(key);
                    keys[n] = key;
                    slots[n] = slot;
                    hits[n] = cache[slot][0] == key;
                }
                bounds[n] = (start, end);
                n += 1;
                start = end;
            }
            for i in 0..n {
                let (from, to) = bounds[i];
                // A unit before it in the batch may have taken the slot.
                if hits[i] && cache[slots[i]][0] == keys[i] {
                    let packed = cache[slots[i]][1];
                    let len = 16 - packed.leading_zeros() as usize / 8;
                    out.extend_from_slice(&packed.to_le_bytes()[..len]);
                    continue;
                }
                let at = out.len();
                pack_unit(tables, &bytes[from..to], &mut out);
                if slots[i] != NOT_CACHED {
                    cache[slots[i]] = [keys[i], little_endian(&out[at..])];
                }
            }
        }
    });
    out.extend_from_slice(number);
    // Codes and FEN characters are ASCII.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The cache slot of the unit of key `key`.
#[inline]
fn slot_of(key: u128) -> usize {
    (((key ^ (key >> 64)) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - CACHE_BITS)) as usize
}

/// The cache key of the unit `bytes[from..to]`: its bytes as a
/// little-endian number padded with zeros; `None` for a unit longer than
/// [`CACHED_UNIT`].
#[inline]
fn unit_key(bytes: &[u8], from: usize, to: usize) -> Option<u128> {
    let len = to - from;
    if len > CACHED_UNIT {
        return None;
    }
    let key = match bytes.get(from..from + 16) {
        // One load, then the bytes past the unit cleared.
        Some(window) => {
            let word = u128::from_le_bytes(window.try_into().ok()?);
            if len == 16 {
                word
            } else {
                word & ((1u128 << (8 * len)) - 1)
            }
        }
        None => little_endian(&bytes[from..to]),
    };
    Some(key)
}

/// `bytes` (at most 16) as a little-endian number, built in a register:
/// bytes copied into an array and read back as one number wait for the
/// stores.
#[inline]
fn little_endian(bytes: &[u8]) -> u128 {
    bytes.iter().rev().fold(0, |n, &b| (n << 8) | u128::from(b))
}

/// Appends `unit` packed to `out`: on the stack in arrays of 16 or 32
/// bytes (a rank, or the last one with the rest of a FEN).
fn pack_unit(tables: &Tables, unit: &[u8], out: &mut Vec<u8>) {
    /// `unit` packed in arrays of `N` bytes.
    #[inline(always)]
    fn on_stack<const N: usize>(tables: &Tables, unit: &[u8], out: &mut Vec<u8>) {
        let mut symbols = [0u8; N];
        let mut ranks = [NO_MERGE; N];
        symbols[..unit.len()].copy_from_slice(unit);
        let n = merge(tables, &mut symbols, &mut ranks, unit.len());
        out.extend_from_slice(&symbols[..n]);
    }
    match unit.len() {
        0..=16 => on_stack::<16>(tables, unit, out),
        17..=32 => on_stack::<32>(tables, unit, out),
        _ => {
            let mut symbols = unit.to_vec();
            let mut ranks = vec![NO_MERGE; unit.len()];
            let n = merge(tables, &mut symbols, &mut ranks, unit.len());
            out.extend_from_slice(&symbols[..n]);
        }
    }
}

/// Merges the first `n` of `symbols` and returns how many are left;
/// `ranks` (as long) holds the ranks of their pairs. The lowest-ranked
/// pair present is merged first, every occurrence left to right: the
/// order of the merges, skipping the absent ones (a merge only makes
/// pairs with its code, of later rank). The ranks are kept beside the
/// symbols, so that only a merge's new pairs are looked up, and the
/// lowest is taken as they are written: read back from the array, it
/// waited for the bytes just stored.
#[inline(always)]
fn merge(tables: &Tables, symbols: &mut [u8], ranks: &mut [u8], mut n: usize) -> usize {
    let rank = |a: u8, b: u8| tables.rank[usize::from(a)][usize::from(b)];
    let mut best = NO_MERGE;
    for i in 1..n {
        ranks[i - 1] = rank(symbols[i - 1], symbols[i]);
        best = best.min(ranks[i - 1]);
    }
    while best != NO_MERGE {
        let code = CODES[usize::from(best)];
        let mut next = NO_MERGE;
        let (mut read, mut write) = (0, 0);
        // Whether the symbol last written was made by this pass.
        let mut made = false;
        while read < n {
            let merged = read + 1 < n && ranks[read] == best;
            let symbol = if merged { code } else { symbols[read] };
            if write > 0 {
                // An untouched pair keeps its rank (`write <= read`: the
                // rank at `read - 1` is not overwritten yet).
                let r =
                    if merged || made { rank(symbols[write - 1], symbol) } else { ranks[read - 1] };
                ranks[write - 1] = r;
                next = next.min(r);
            }
            symbols[write] = symbol;
            made = merged;
            read += if merged { 2 } else { 1 };
            write += 1;
        }
        n = write;
        best = next;
    }
    n
}

/// The FEN of `packed`.
pub fn unpack(packed: &str) -> String {
    if let Some(text) = packed.strip_prefix(char::from(VERBATIM)) {
        return text.to_string();
    }
    let tables = &*TABLES;
    let mut out = String::with_capacity(2 * packed.len());
    for c in packed.chars() {
        match tables.text.get(c as usize) {
            Some(t) if !t.is_empty() => out.push_str(t),
            _ => out.push(c),
        }
    }
    out
}

/// The SQL expression that packs the text `expr` as [`pack`] does.
pub fn pack_sql(expr: &str) -> String {
    let steps =
        MERGES.iter().zip(&CODES).map(|(&[a, b], &code)| format!("char({a}, {b}), char({code})"));
    let chain = chain_sql(expr, steps.collect());
    // `-` first in the class is the character, not a range.
    let fen = "'*[^-/ 0-9A-HKNPQRa-hknpqrw]*'";
    format!("CASE WHEN {expr} GLOB {fen} THEN char({VERBATIM}) || {expr} ELSE {chain} END")
}

/// The SQL expression that unpacks the stored text `expr` as [`unpack`]
/// does.
pub fn unpack_sql(expr: &str) -> String {
    let tables = &*TABLES;
    let steps =
        CODES.iter().map(|&code| format!("char({code}), '{}'", tables.text[usize::from(code)]));
    let chain = chain_sql(expr, steps.collect());
    format!(
        "CASE WHEN substr({expr}, 1, 1) = char({VERBATIM}) THEN substr({expr}, 2) ELSE {chain} END"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition: each merge in order, by `str::replace` (leftmost,
    /// without overlaps, as SQL's `replace()`).
    fn pack_by_definition(fen: &str) -> String {
        let mut text = fen.to_string();
        for (&[a, b], &code) in MERGES.iter().zip(&CODES) {
            let pair: String = [char::from(a), char::from(b)].into_iter().collect();
            text = text.replace(&pair, &char::from(code).to_string());
        }
        text
    }

    /// The FEN text of a symbol: a code's, or the character itself.
    fn symbol_text(c: u8) -> String {
        match TABLES.text[usize::from(c)] {
            "" => char::from(c).to_string(),
            text => text.to_string(),
        }
    }

    #[test]
    fn codes_are_no_fen_characters_and_merges_use_only_earlier_symbols() {
        for (i, (&[a, b], &code)) in MERGES.iter().zip(&CODES).enumerate() {
            assert!(!FEN_CHARS.contains(&code) && code != VERBATIM && code != 0, "{code}");
            for c in [a, b] {
                let earlier = CODES[..i].contains(&c);
                assert!(FEN_CHARS.contains(&c) || earlier, "merge {i} uses {c}");
            }
        }
    }

    #[test]
    fn no_merge_spans_the_end_of_a_rank() {
        for (i, &[a, _]) in MERGES.iter().enumerate() {
            assert!(!symbol_text(a).ends_with('/'), "merge {i}");
        }
    }

    #[test]
    fn no_merge_takes_digits_that_end_a_text_after_a_space() {
        // What `pack` copies as they are: no merge joins two digits, and
        // a merge of a space and a digit takes the space after the digit.
        for (i, &[a, b]) in MERGES.iter().enumerate() {
            let (a, b) = (symbol_text(a), symbol_text(b));
            let starts_digit = b.starts_with(|c: char| c.is_ascii_digit());
            assert!(!(a.ends_with(|c: char| c.is_ascii_digit()) && starts_digit), "merge {i}");
            if a.ends_with(' ') && starts_digit {
                assert_eq!(b.as_bytes().get(1), Some(&b' '), "merge {i}");
            }
        }
    }

    #[test]
    fn packs_positions_to_fewer_bytes_and_back() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "8/5pk1/6p1/3P4/8/6P1/5PK1/8 w - - 0 45",
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 1 9",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            // A merge that spans the space after the last rank: `K1 b - - `.
            "8/8/4k3/8/8/8/8/6K1 b - - 3 60",
        ];
        let (mut before, mut after) = (0, 0);
        for fen in fens {
            let packed = pack(fen);
            assert_eq!(packed, pack_by_definition(fen));
            assert_eq!(unpack(&packed), fen);
            before += fen.len();
            after += packed.len();
        }
        // Opening positions with castling rights pack least.
        assert!(10 * after < 7 * before, "{after} of {before}");
    }

    #[test]
    fn a_text_outside_fen_is_kept_verbatim() {
        for text in ["", "x", "8/8/8/8/8/8/8/8 w - - 0 1 ; note", "é/8", "8\u{0}8"] {
            let packed = pack(text);
            assert_eq!(unpack(&packed), text);
            if !text.is_empty() {
                assert_eq!(packed.as_bytes()[0], VERBATIM, "{text:?}");
            }
        }
        assert_eq!(pack(""), "");
    }

    proptest! {
        #[test]
        fn any_fen_text_packs_as_the_definition_says_and_back(
            fen in "[-/ 0-9A-HKNPQRa-hknpqrw]{0,80}"
        ) {
            let packed = pack(&fen);
            prop_assert_eq!(&packed, &pack_by_definition(&fen));
            prop_assert_eq!(unpack(&packed), fen);
        }
    }

    #[test]
    fn texts_of_many_units_pack_as_the_definition_says_found_in_the_cache_or_not() {
        // More units than one batch of lookups, units repeated within a
        // batch, units of 15, 16 and 17 bytes, texts that end in `/`.
        let texts = [
            "8/8/8/8/8/8/8/8/8/8/8/8/8/8/8/8/8/8/8/8",
            "pp3ppp/pp3ppp/PP3PPP/PP3PPP/pp3ppp/1p1p1p1p/1p1p1p1p/pp3ppp/PP3PPP/ w",
            "r1bq1rk1 b KQk/r1bq1rk1 b KQkq/r1bq1rk1 b KQkq-/8",
            "/",
            "//",
            "RNBQKBNR w KQkq - 0 1",
        ];
        for _ in 0..2 {
            for text in texts {
                let packed = pack(text);
                assert_eq!(packed, pack_by_definition(text), "{text}");
                assert_eq!(unpack(&packed), text);
            }
        }
    }

    #[test]
    fn units_of_one_slot_in_one_batch_pack_as_the_definition_says() {
        // More ranks than slots: two share one.
        let pieces = b"pPnNbBrRqQkK";
        let ranks = (0..pieces.len().pow(5)).map(|mut i| {
            let mut rank = String::new();
            for _ in 0..5 {
                rank.push(char::from(pieces[i % pieces.len()]));
                i /= pieces.len();
            }
            rank + "3/"
        });
        let mut seen = std::collections::HashMap::new();
        let (a, b) = ranks
            .take(CACHE_SLOTS + 1)
            .find_map(|rank| {
                let slot = slot_of(unit_key(rank.as_bytes(), 0, rank.len()).unwrap());
                seen.insert(slot, rank.clone()).map(|other| (other, rank))
            })
            .expect("two ranks of one slot");
        for text in [format!("{a}{b}{a}{b}8 w - - 0 1"), format!("{b}{a}{b}{a}{a}{b}{a}{b}{a}")] {
            for _ in 0..2 {
                assert_eq!(pack(&text), pack_by_definition(&text), "{text}");
            }
        }
    }

    #[test]
    fn the_migration_packs_and_unpacks_with_these_merges() {
        let migration = include_str!("../../migrations/0019_compact_rows.sql");
        for sql in [pack_sql("final_fen"), pack_sql("new.final_fen"), unpack_sql("r.final_fen")] {
            assert!(migration.contains(&sql), "{sql}");
        }
    }

    #[test]
    fn sql_packs_and_unpacks_as_rust_does() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let sql =
            format!("SELECT {}, {} FROM (SELECT ?1 AS f, ?2 AS p)", pack_sql("f"), unpack_sql("p"));
        let mut st = conn.prepare(&sql).unwrap();
        let texts = [
            "",
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 1 9",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "8/8/8/8 x ; 7",
            "-/-- 11 ppp PPP/",
        ];
        for text in texts {
            let packed = pack(text);
            let (by_sql, back): (String, String) =
                st.query_row([text, packed.as_str()], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
            assert_eq!(by_sql, packed, "{text:?}");
            assert_eq!(back, text);
        }
    }
}
