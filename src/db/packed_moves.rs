//! `game_rows.packed_moves` (schema [`super::schema::Schema::PACKED_MOVES`]): a game's
//! mainline, the `games.moves` text, in about half its bytes, still a text
//! that plain SQL turns back into SAN.
//!
//! SAN is written with 28 characters (`a`–`h`, `1`–`8`, `N B R Q K`, `x`,
//! `O`, `-`, `=`, `+`, `#` and the space between moves). The packing gives
//! 98 other ASCII characters (the control characters 1–31 and the printable
//! ones SAN does not use) a meaning each: code `i` stands for the pair of
//! symbols [`MERGES`]`[i]`, characters or earlier codes, so that `Nf3 ` is
//! `N` and `f` merged, `3 ` merged, then the two merged. The merges were
//! learnt once, by byte-pair encoding the mainlines of 17,354 real games
//! (lichess and chess.com exports, over-the-board collections, engine
//! games): the most frequent pair first, never a pair whose left symbol
//! ends with the space after a move, so that no merge spans two moves. They
//! are part of the schema and never change. A game's 329 bytes of SAN on
//! the benchmark input become 156.
//!
//! Packing applies the merges in order, each to every occurrence from left
//! to right without overlaps: exactly the chain of SQL `replace()` calls of
//! [`pack_sql`], which the migration and the triggers of the `games` view
//! run, so that the import and SQL write the same rows. Unpacking replaces
//! each code by its whole text ([`unpack_sql`] in SQL). A text with a
//! character outside SAN's (never one the import stores, but `UPDATE games
//! SET moves = …` may write any) is stored as it is after [`VERBATIM`].

use std::cell::RefCell;
use std::sync::LazyLock;

use rusqlite::OptionalExtension;

use super::packed_fen;

/// Starts a stored text that is not packed: the rest is `moves` as it is.
pub const VERBATIM: u8 = 0x7f;

/// The characters `games.moves` is written with in canonical SAN: a text
/// of only these is packed.
const SAN_CHARS: &[u8] = b" #+-12345678=BKNOQRabcdefghx";

/// The code of merge `i`.
const CODES: [u8; 98] = [
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
    0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x21,
    0x22, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2c, 0x2e, 0x2f, 0x30, 0x39, 0x3a, 0x3b, 0x3c,
    0x3e, 0x3f, 0x40, 0x41, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4c, 0x4d, 0x50, 0x53,
    0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x69, 0x6a, 0x6b,
    0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x79, 0x7a, 0x7b, 0x7c,
    0x7d, 0x7e,
];

/// The merges, in the order they apply: merge `i` replaces the pair of
/// symbols by [`CODES`]`[i]`.
#[rustfmt::skip]
pub const MERGES: [[u8; 2]; 98] = [
    [b'4', b' '], [b'5', b' '], [b'6', b' '], [b'3', b' '], [b'7', b' '], [b'2', b' '],
    [b'8', b' '], [b'+', b' '], [b'1', b' '], [b'x', b'd'], [b'x', b'e'], [b'N', b'f'],
    [b'x', b'f'], [b'x', b'c'], [b'N', b'c'], [b'B', b'e'], [b'O', b'-'], [b'K', b'f'],
    [b'd', 0x02], [b'K', b'g'], [b'R', b'a'], [b'd', 0x01], [b'e', 0x01], [0x11, b'O'],
    [0x18, b' '], [b'R', b'e'], [b'R', b'c'], [b'B', b'd'], [b'B', b'g'], [b'x', b'b'],
    [b'x', b'g'], [b'R', b'f'], [b'R', b'd'], [b'K', b'e'], [b'B', b'b'], [b'N', b'e'],
    [b'B', b'f'], [b'R', b'b'], [b'Q', b'e'], [b'K', b'h'], [b'B', b'c'], [b'Q', b'c'],
    [b'Q', b'd'], [0x0a, 0x02], [0x0c, 0x03], [b'N', b'b'], [b'N', b'd'], [0x0a, 0x01],
    [0x0b, 0x01], [0x0f, 0x04], [b'Q', b'f'], [b'x', b'a'], [b'K', b'd'], [b'h', 0x01],
    [0x0c, 0x04], [b'h', 0x02], [b'Q', b'b'], [b'K', b'c'], [0x0b, 0x02], [b'N', b'g'],
    [b'5', 0x08], [b'h', 0x03], [b'a', 0x02], [b'R', b'g'], [b'a', 0x01], [b'4', 0x08],
    [b'e', 0x02], [b'6', 0x08], [b'a', 0x03], [b'h', 0x04], [b'c', 0x01], [0x0f, 0x03],
    [0x0d, 0x04], [b'c', 0x02], [b'e', 0x03], [b'K', b'b'], [b'7', 0x08], [b'Q', b'g'],
    [b'3', 0x08], [b'B', 0x0e], [0x0d, 0x03], [b'R', b'h'], [b'a', 0x04], [b'8', 0x08],
    [b'2', 0x08], [b'1', 0x08], [0x10, 0x05], [b'f', 0x04], [b'g', 0x03], [b'b', 0x02],
    [0x1c, 0x04], [b'c', 0x03], [b'R', 0x0e], [0x10, 0x04], [b'f', 0x02], [b'b', 0x0e],
    [b'b', 0x01], [b'f', 0x01],
];

/// No merge: the rank of a pair that is none.
const NO_MERGE: u8 = u8::MAX;

/// The merges as lookup tables.
struct Tables {
    /// `rank[a][b]`: the index of the merge of the pair, or [`NO_MERGE`].
    rank: Box<[[u8; 128]; 128]>,
    /// The SAN a code stands for (empty for a character that is none).
    text: [&'static str; 128],
    /// `true` for the characters of SAN.
    san: [bool; 256],
    /// What each byte stands for, as a little-endian word padded with
    /// zeros, and its length: a code's text, any other byte itself.
    words: [(u64, u8); 256],
}

/// The longest text a code stands for.
const MAX_TEXT: usize = 8;

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let mut rank = Box::new([[NO_MERGE; 128]; 128]);
    let mut text: [&'static str; 128] = [""; 128];
    for (i, (&[a, b], &code)) in MERGES.iter().zip(&CODES).enumerate() {
        rank[usize::from(a)][usize::from(b)] = i as u8;
        let part = |c: u8| -> String {
            match text[usize::from(c)] {
                "" => char::from(c).to_string(),
                t => t.to_string(),
            }
        };
        // 98 short strings, made once and kept for the process.
        text[usize::from(code)] = Box::leak((part(a) + &part(b)).into_boxed_str());
    }
    let mut san = [false; 256];
    for &c in SAN_CHARS {
        san[usize::from(c)] = true;
    }
    let mut words = [(0, 1); 256];
    for (c, word) in words.iter_mut().enumerate() {
        let bytes = match text.get(c) {
            Some(t) if !t.is_empty() => t.as_bytes(),
            _ => &[c as u8][..],
        };
        let len = bytes.len().min(MAX_TEXT);
        let mut padded = [0u8; 8];
        padded[..len].copy_from_slice(&bytes[..len]);
        *word = (u64::from_le_bytes(padded), len as u8);
    }
    Tables { rank, text, san, words }
});

/// Slots of a thread's cache of packed moves (16 bytes each): a few
/// thousand distinct moves make most games, with few collisions.
const CACHE_SLOTS: usize = 1 << 14;

thread_local! {
    /// Moves of at most 8 bytes (with their space) and their packings, as
    /// little-endian numbers padded with zeros (no SAN character and no
    /// code is 0): a game has some 80 moves, of a few thousand distinct.
    static CACHE: RefCell<Vec<[u64; 2]>> = const { RefCell::new(Vec::new()) };
}

/// Appends `moves` packed to `out`.
fn pack_into(moves: &str, out: &mut Vec<u8>) {
    let bytes = moves.as_bytes();
    let start = out.len();
    // A NUL would make a move's cache key that of a shorter one; any
    // other character outside SAN is found when its move is packed.
    if memchr::memchr(0, bytes).is_some() || !pack_moves(bytes, out) {
        out.truncate(start);
        out.push(VERBATIM);
        out.extend_from_slice(bytes);
    }
}

/// Appends `bytes` packed to `out`; `false` (with `out` partly written)
/// if a move holds a character outside SAN.
fn pack_moves(bytes: &[u8], out: &mut Vec<u8>) -> bool {
    let start = out.len();
    // Room for every move's 8 bytes written whole, the excess cut after.
    out.resize(start + bytes.len() + 8, 0);
    // No merge spans the space after a move: each move (with its space)
    // packs alone. The moves are found 64 bytes at a time, as the bits of
    // a mask of spaces.
    let written = CACHE.with_borrow_mut(|cache| {
        if cache.is_empty() {
            cache.resize(CACHE_SLOTS, [0, 0]);
        }
        let mut packer =
            Packer { tables: &TABLES, cache, symbols: Vec::with_capacity(16), write: start };
        let mut from = 0;
        for (base, chunk) in (0..).step_by(64).zip(bytes.chunks(64)) {
            let mut spaces = space_mask(chunk);
            while spaces != 0 {
                let to = base + spaces.trailing_zeros() as usize + 1;
                spaces &= spaces - 1;
                if !packer.unit(bytes, from, to, out) {
                    return None;
                }
                from = to;
            }
        }
        if from < bytes.len() && !packer.unit(bytes, from, bytes.len(), out) {
            return None;
        }
        Some(packer.write)
    });
    out.truncate(written.unwrap_or(start));
    written.is_some()
}

/// Bit `j` set for each space `chunk[j]` (at most 64 bytes), eight bytes
/// at a time.
#[inline]
fn space_mask(chunk: &[u8]) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut mask = 0;
    for (i, word) in chunk.chunks(8).enumerate() {
        // A whole word read as one (a copy of a slice of unknown length
        // is a call to `memcpy`).
        let word = match <[u8; 8]>::try_from(word) {
            Ok(whole) => u64::from_le_bytes(whole),
            Err(_) => {
                let mut padded = [0u8; 8];
                padded[..word.len()].copy_from_slice(word);
                u64::from_le_bytes(padded)
            }
        };
        // A byte becomes zero where it was a space; its high bit is then
        // set in `zeros` and in no other byte (no carry crosses bytes).
        let x = word ^ 0x2020_2020_2020_2020;
        let zeros = !(((x & LOW7) + LOW7) | x | LOW7);
        // The eight high bits gathered into the top byte, in byte order.
        let bits = (zeros >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        mask |= bits << (8 * i);
    }
    mask
}

/// Packs moves one after the other into an output.
struct Packer<'a> {
    tables: &'a Tables,
    cache: &'a mut [[u64; 2]],
    /// Scratch room for one move's symbols.
    symbols: Vec<u8>,
    /// Where the next move's symbols go in the output.
    write: usize,
}

impl Packer<'_> {
    /// Writes the move `bytes[from..to]` (with its space) packed at
    /// `out[self.write..]`, which has room for 8 bytes more than the move;
    /// `false` if it holds a character outside SAN.
    #[inline(always)]
    fn unit(&mut self, bytes: &[u8], from: usize, to: usize, out: &mut [u8]) -> bool {
        let unit = &bytes[from..to];
        let len = unit.len();
        if len > 8 {
            if !unit.iter().all(|&c| self.tables.san[usize::from(c)]) {
                return false;
            }
            pack_unit(self.tables, unit, &mut self.symbols);
            out[self.write..self.write + self.symbols.len()].copy_from_slice(&self.symbols);
            self.write += self.symbols.len();
            return true;
        }
        let key = match bytes.get(from..from + 8) {
            Some(word) => {
                u64::from_le_bytes(word.try_into().unwrap_or_default())
                    & (u64::MAX >> (64 - 8 * len))
            }
            None => {
                let mut word = [0u8; 8];
                word[..len].copy_from_slice(unit);
                u64::from_le_bytes(word)
            }
        };
        let slot = slot_of(key);
        // Only moves of SAN's characters enter the cache.
        let packed = if self.cache[slot][0] == key {
            self.cache[slot][1]
        } else {
            if !unit.iter().all(|&c| self.tables.san[usize::from(c)]) {
                return false;
            }
            pack_unit(self.tables, unit, &mut self.symbols);
            let mut packed = [0u8; 8];
            packed[..self.symbols.len()].copy_from_slice(&self.symbols);
            let packed = u64::from_le_bytes(packed);
            self.cache[slot] = [key, packed];
            packed
        };
        out[self.write..self.write + 8].copy_from_slice(&packed.to_le_bytes());
        self.write += 8 - packed.leading_zeros() as usize / 8;
        true
    }
}

/// The cache slot of the move of key `key`.
#[inline]
fn slot_of(key: u64) -> usize {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 48) as usize % CACHE_SLOTS
}

/// Packs one move (with its space) into `symbols`: the lowest-ranked
/// pair present first, which is the order the merges apply in (a merge
/// only makes pairs of later rank).
fn pack_unit(tables: &Tables, unit: &[u8], symbols: &mut Vec<u8>) {
    symbols.clear();
    symbols.extend_from_slice(unit);
    loop {
        let best = symbols
            .windows(2)
            .map(|w| tables.rank[usize::from(w[0])][usize::from(w[1])])
            .min()
            .unwrap_or(NO_MERGE);
        if best == NO_MERGE {
            return;
        }
        let [a, b] = MERGES[usize::from(best)];
        let (mut read, mut write) = (0, 0);
        while read < symbols.len() {
            if read + 1 < symbols.len() && symbols[read] == a && symbols[read + 1] == b {
                symbols[write] = CODES[usize::from(best)];
                read += 2;
            } else {
                symbols[write] = symbols[read];
                read += 1;
            }
            write += 1;
        }
        symbols.truncate(write);
    }
}

/// `moves` packed.
pub fn pack(moves: &str) -> String {
    // Room for the packing's working space (the moves' length and a word),
    // or for the verbatim text: no reallocation on the way.
    let mut out = Vec::with_capacity(moves.len() + 9);
    pack_into(moves, &mut out);
    // ASCII, or the UTF-8 of `moves` after an ASCII byte.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The `moves` text of `packed`.
pub fn unpack(packed: &str) -> String {
    if let Some(text) = packed.strip_prefix(char::from(VERBATIM)) {
        return text.to_string();
    }
    let tables = &*TABLES;
    let length: usize = packed.bytes().map(|c| usize::from(tables.words[usize::from(c)].1)).sum();
    // Each byte's text written as a whole word of 8 bytes, the excess
    // overwritten by the next and cut at the end.
    let mut out = vec![0u8; length + 8];
    let mut write = 0;
    for &c in packed.as_bytes() {
        let (word, len) = tables.words[usize::from(c)];
        out[write..write + 8].copy_from_slice(&word.to_le_bytes());
        write += usize::from(len);
    }
    out.truncate(write);
    // Codes are ASCII and stand for ASCII: the other bytes, copied as they
    // are, stay valid UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Calls of `replace()` nested in one expression: SQLite's parser takes
/// about 32 before its stack runs out.
const NESTED: usize = 20;

/// The SQL expression that packs the text `expr` as [`pack`] does: the
/// merges' chain of `replace()` calls, in steps of a common table
/// expression (a single expression would nest too deep for SQLite's
/// parser).
pub fn pack_sql(expr: &str) -> String {
    let steps =
        MERGES.iter().zip(&CODES).map(|(&[a, b], &code)| format!("char({a}, {b}), char({code})"));
    let chain = chain_sql(expr, steps.collect());
    let san = "'*[^a-hx1-8NBRQKO=+# -]*'";
    format!("CASE WHEN {expr} GLOB {san} THEN char({VERBATIM}) || {expr} ELSE {chain} END")
}

/// The SQL expression that unpacks the stored text `expr` as [`unpack`]
/// does.
pub fn unpack_sql(expr: &str) -> String {
    let chain = unpack_chain_sql(expr);
    format!(
        "CASE WHEN substr({expr}, 1, 1) = char({VERBATIM}) THEN substr({expr}, 2) ELSE {chain} END"
    )
}

/// How the `plies` view (from schema 30) reads the base-64 digit of a
/// packed character `S`: `(instr(DIGITS, S) + 63) % 65`, where `~` and an
/// empty `S` (past the array's end) are digit 64. In Debian's `sqlite3`
/// 3.40, `unicode()` of a one-byte BLOB takes twice as long as `instr()`
/// over two BLOBs; in the bundled SQLite, `unicode()` is the faster.
const VIEW_DIGIT: [&str; 2] = [
    "(instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmno' AS BLOB), ",
    ") + 63) % 65",
];

/// [`VIEW_DIGIT`] as a pgnindex connection reads it: `unicode()`, with
/// `~` and an empty `S` as digit 78.
const SHADOW_DIGIT: [&str; 2] = ["coalesce(unicode(", ") - 48, 78)"];

/// The values of two and three no-value digits, in the view then in its
/// shadow: each ends a `nullif()`.
const NO_VALUE: [(&str, &str); 2] = [(", 4160)", ", 5070)"), (", 266304)", ", 324558)")];

/// Where the `plies` view finds its ply's `ply_pvs` row.
const PLY_PV_FROM: &str = "FROM ply_pvs AS p WHERE p.id = r.id * 16777216 + m.key + 1";

/// The `pv` column of the `plies` view (from schema 30): the ply's
/// `ply_pvs` row looked up and unpacked as [`unpack_sql`] does, in one
/// subquery that SQLite evaluates only where `pv` is read (a join would
/// look the row up for every ply).
pub fn ply_pv_sql() -> String {
    let chain = unpack_chain_sql("v");
    let last = chain.rfind(" SELECT x FROM s").expect("a chain ends with its select");
    let steps = &chain["(WITH ".len()..last];
    let end = &chain[last + " SELECT x FROM ".len()..chain.len() - 1];
    let steps = steps.replacen("), s1(x) AS", " FROM p0), s1(x) AS", 1);
    format!(
        "(WITH p0(v) AS (SELECT p.pv {PLY_PV_FROM}), {steps} SELECT CASE WHEN substr(v, 1, 1) = \
         char({VERBATIM}) THEN substr(v, 2) ELSE x END FROM p0, {end})"
    )
}

/// The chain of `replace()` calls ([`chain_sql`]) that puts back each
/// code's text in `expr`.
fn unpack_chain_sql(expr: &str) -> String {
    let tables = &*TABLES;
    let steps =
        CODES.iter().map(|&code| format!("char({code}), '{}'", tables.text[usize::from(code)]));
    chain_sql(expr, steps.collect())
}

/// `(WITH s0(x) AS (SELECT replace(…(expr, from, to)…)), s1(x) AS (SELECT
/// replace(…(x …)…) FROM s0), … SELECT x FROM sN)`: `replace(x, step)`
/// for each step in order.
pub(super) fn chain_sql(expr: &str, steps: Vec<String>) -> String {
    let mut parts = Vec::new();
    for (i, group) in steps.chunks(NESTED).enumerate() {
        let mut inner = if i == 0 { expr.to_string() } else { "x".to_string() };
        for step in group {
            inner = format!("replace({inner}, {step})");
        }
        let from = if i == 0 { String::new() } else { format!(" FROM s{}", i - 1) };
        parts.push(format!("s{i}(x) AS (SELECT {inner}{from})"));
    }
    format!("(WITH {} SELECT x FROM s{})", parts.join(", "), parts.len() - 1)
}

/// The SQL function a pgnindex connection unpacks with.
const UNPACK_FUNCTION: &str = "pgnindex_unpacked_moves";

/// The SQL function a pgnindex connection packs with.
const PACK_FUNCTION: &str = "pgnindex_packed_moves";

/// The SQL function a pgnindex connection unpacks a FEN with.
const UNPACK_FEN_FUNCTION: &str = "pgnindex_unpacked_fen";

/// The SQL function a pgnindex connection packs a FEN with.
const PACK_FEN_FUNCTION: &str = "pgnindex_packed_fen";

/// Shadows, for this connection, the views `games` and `plies` and the
/// triggers of `games` by TEMP copies that pack and unpack `moves` (and
/// `final_fen`, from [`super::schema::Schema::COMPACT_ROWS`]) with functions of
/// this program instead of the SQL chains of [`pack_sql`] and
/// [`unpack_sql`]: the same rows, without the chains' 30 µs or so a game.
/// Nothing changes in the file, and a database of an older schema (or
/// whose view was changed by hand) is left as it is.
///
/// # Errors
/// SQLite's.
pub fn shadow_views(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    if !super::schema::Schema::of(conn)?.has(super::schema::Schema::PACKED_MOVES) {
        return Ok(());
    }
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function(UNPACK_FUNCTION, 1, flags, |ctx| {
        Ok(super::move_codes::unpack_value(ctx.get_raw(0)))
    })?;
    conn.create_scalar_function(PACK_FUNCTION, 1, flags, |ctx| {
        Ok(ctx.get_raw(0).as_str_or_null()?.map(pack))
    })?;
    conn.create_scalar_function(UNPACK_FEN_FUNCTION, 1, flags, |ctx| {
        Ok(ctx.get_raw(0).as_str_or_null()?.map(packed_fen::unpack))
    })?;
    conn.create_scalar_function(PACK_FEN_FUNCTION, 1, flags, |ctx| {
        Ok(ctx.get_raw(0).as_str_or_null()?.map(packed_fen::pack))
    })?;
    let sql_of = |name: &str| -> rusqlite::Result<Option<String>> {
        conn.query_row("SELECT sql FROM main.sqlite_master WHERE name = ?1", [name], |r| r.get(0))
            .optional()
    };
    let Some(view) = sql_of("games")? else { return Ok(()) };
    let unpacked = unpack_sql("r.packed_moves");
    if !view.contains(&unpacked) {
        return Ok(());
    }
    let fen = packed_fen::unpack_sql("r.final_fen");
    // Either form of the moves (from schema MOVE_CODES), else the packed text.
    let moves = super::move_codes::moves_sql("r.packed_moves");
    let mut script = vec![temp(&view)
        .replace(&moves, &format!("{UNPACK_FUNCTION}(r.packed_moves)"))
        .replace(&unpacked, &format!("{UNPACK_FUNCTION}(r.packed_moves)"))
        .replace(&fen, &format!("{UNPACK_FEN_FUNCTION}(r.final_fen)"))];
    let packed = pack_sql("new.moves");
    let packed_fen = packed_fen::pack_sql("new.final_fen");
    let pv = unpack_sql("p.pv");
    let ply_pv = ply_pv_sql();
    for name in ["games_insert", "games_update", "games_delete_row", "plies"] {
        if let Some(sql) = sql_of(name)? {
            let mut sql = temp(&sql)
                .replace(&packed, &format!("{PACK_FUNCTION}(new.moves)"))
                .replace(&packed_fen, &format!("{PACK_FEN_FUNCTION}(new.final_fen)"))
                .replace(&pv, &format!("{UNPACK_FUNCTION}(p.pv)"))
                .replace(&unpacked, &format!("{UNPACK_FUNCTION}(r.packed_moves)"));
            if name == "plies" {
                sql = sql
                    .replace(&ply_pv, &format!("(SELECT {UNPACK_FUNCTION}(p.pv) {PLY_PV_FROM})"))
                    .replace(VIEW_DIGIT[0], SHADOW_DIGIT[0])
                    .replace(VIEW_DIGIT[1], SHADOW_DIGIT[1])
                    .replace(NO_VALUE[0].0, NO_VALUE[0].1)
                    .replace(NO_VALUE[1].0, NO_VALUE[1].1);
            }
            script.push(sql);
        }
    }
    conn.execute_batch(&script.join(";\n"))
}

/// `CREATE VIEW …` or `CREATE TRIGGER …` as a TEMP one.
fn temp(sql: &str) -> String {
    sql.replacen("CREATE VIEW", "CREATE TEMP VIEW", 1).replacen(
        "CREATE TRIGGER",
        "CREATE TEMP TRIGGER",
        1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_space_mask_has_a_bit_for_each_space(
            chunk in proptest::collection::vec(
                proptest::sample::select(b" !\x00\x1f\x20\x21\xa0\xffe4".to_vec()), 0..=64)
        ) {
            let expected = chunk
                .iter()
                .enumerate()
                .fold(0u64, |mask, (j, &c)| mask | u64::from(c == b' ') << j);
            prop_assert_eq!(space_mask(&chunk), expected);
        }
    }

    /// The merges applied as their definition says: each in turn, to the
    /// whole text, by `str::replace` (left to right, no overlaps).
    fn pack_by_definition(moves: &str) -> String {
        let mut text = moves.to_string();
        for (&[a, b], &code) in MERGES.iter().zip(&CODES) {
            let pair: String = [char::from(a), char::from(b)].into_iter().collect();
            text = text.replace(&pair, &char::from(code).to_string());
        }
        text
    }

    #[test]
    fn moves_of_one_cache_slot_pack_as_the_definition_says() {
        // More moves than slots: two share one.
        let slot = |m: &str| slot_of(m.bytes().rev().fold(0u64, |n, b| (n << 8) | u64::from(b)));
        let mut seen = std::collections::HashMap::new();
        let moves = (0..).map(|i: usize| {
            let file = char::from(b'a' + (i % 8) as u8);
            let rank = char::from(b'1' + (i / 8 % 8) as u8);
            let piece = ["N", "B", "R", "Q", "K", "Nx", "Bx", "Rx", "Qx", "Kx"][i / 64 % 10];
            let from = char::from(b'a' + (i / 640 % 8) as u8);
            let check = ["", "+", "#"][i / 5120 % 3];
            format!("{piece}{from}{file}{rank}{check} ")
        });
        let (a, b) = moves
            .take(CACHE_SLOTS + 1)
            .find_map(|m| seen.insert(slot(&m), m.clone()).map(|other| (other, m)))
            .expect("two moves of one slot");
        for text in [format!("{a}{b}{a}{b}{a}{b}{a}{b}{a}e4"), format!("{b}{a}{b}{a}e4 {a}{b}e5")] {
            for _ in 0..2 {
                assert_eq!(pack(&text), pack_by_definition(&text), "{text}");
            }
        }
    }

    #[test]
    fn codes_are_no_san_characters_and_merges_use_only_earlier_symbols() {
        let mut known: Vec<u8> = SAN_CHARS.to_vec();
        for (&[a, b], &code) in MERGES.iter().zip(&CODES) {
            assert!(known.contains(&a) && known.contains(&b), "merge of {a:#x}, {b:#x}");
            assert!(!known.contains(&code), "code {code:#x} used twice");
            assert!(code != 0 && code < VERBATIM, "code {code:#x}");
            assert!(TABLES.text[usize::from(code)].len() <= MAX_TEXT);
            // No merge spans the space after a move.
            assert!(!TABLES.text[usize::from(a)].ends_with(' ') && a != b' ');
            known.push(code);
        }
    }

    #[test]
    fn packs_a_game_to_fewer_bytes_and_back() {
        let moves = "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3 e5 Nb3 Be6 f3 Be7 Qd2 O-O O-O-O \
                     Nbd7 g4 b5 g5 b4 Ne2 Ne8 f4 a5 f5 a4 Nbd4 exd4 Nxd4 b3 Kb1 bxc2+ Nxc2 Bb3 \
                     axb3 axb3 Na3 Rxa3 bxa3 Qa5 Qb2 Qxa3 Qxa3 Bxa3 Rd3 Bb4 e8=Q#";
        let packed = pack(moves);
        assert!(packed.len() * 2 < moves.len() + 20, "{} of {} bytes", packed.len(), moves.len());
        assert_eq!(packed, pack_by_definition(moves));
        assert_eq!(unpack(&packed), moves);
        assert_eq!(pack(""), "");
        assert_eq!(unpack(""), "");
    }

    #[test]
    fn a_text_outside_san_is_kept_verbatim() {
        for text in [
            "P@e4",
            "e4 e5 \u{e9}",
            "1. e4",
            "e4\te5",
            "\u{7f}e4",
            "e4\0 e5",
            "e4 e5\0",
            "Nf3 Nf3\u{e9}",
        ] {
            let packed = pack(text);
            assert_eq!(packed.as_bytes()[0], VERBATIM, "{text:?}");
            assert_eq!(unpack(&packed), text);
        }
    }

    proptest! {
        #[test]
        fn any_san_text_packs_as_the_definition_says_and_back(
            moves in "[ #+=1-8a-hxNBRQKO-]{0,60}"
        ) {
            let packed = pack(&moves);
            prop_assert_eq!(&packed, &pack_by_definition(&moves));
            prop_assert_eq!(unpack(&packed), moves);
        }
    }

    #[test]
    fn the_migration_packs_and_unpacks_with_these_merges() {
        let migration = include_str!("../../migrations/0017_packed_moves.sql");
        for sql in [pack_sql("packed_moves"), pack_sql("new.moves"), unpack_sql("r.packed_moves")] {
            assert!(migration.contains(&sql), "{sql}");
        }
    }

    #[test]
    fn sql_packs_and_unpacks_as_rust_does() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let sql =
            format!("SELECT {}, {} FROM (SELECT ?1 AS m, ?2 AS p)", pack_sql("m"), unpack_sql("p"));
        let mut st = conn.prepare(&sql).unwrap();
        let texts = [
            "",
            "e4",
            "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7",
            "d4 d5 c4 dxc4 e4 b5 a4 c6 axb5 cxb5 Qf3 Nc6 Bxb5 Bd7 d5 Ne5 Qe2 a6 Bxd7+ Qxd7",
            "e4 -- d4 O-O-O+ exd8=N# h1=Q+",
            "P@e4 Nf3",
            "e4  e5 ",
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
