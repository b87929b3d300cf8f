//! Move codes (schema [`super::schema::Schema::MOVE_CODES`]): a game's
//! mainline as two bytes a ply, so that plain SQL reads ply *k* at a fixed
//! offset (`substr(codes, 2 * k + 1, 2)` over a BLOB costs the same at
//! any ply) and finds its SAN in the table `move_codes`.
//!
//! A code stands for one SAN text of standard chess and Chess960, check
//! and mate marks included: every text a piece letter, a disambiguation
//! the piece's reach allows (a file, a rank or a square it could come
//! from on an empty board), an optional capture and a destination can
//! make; every pawn push, capture and promotion; the two castlings.
//! [`SANS`] lists them in a fixed order, 42,018 of the 65,536 codes; a
//! code is its place in that list, written big-endian (byte order is
//! number order). The list is part of the schema and never changes: a
//! test pins its size and a digest of it.
//!
//! A game whose moves include a text outside the list (a null move, a
//! text written by hand through SQL) keeps the packed text of
//! [`super::packed_moves`]; [`Moves`] is either form, as `game_rows`
//! stores it.

use std::sync::LazyLock;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSqlOutput, ValueRef};
use rusqlite::ToSql;

use super::packed_moves;
use crate::notation::san;

/// The SAN texts in code order, and the code of each.
struct Table {
    /// Text of each code.
    sans: Vec<Box<str>>,
    /// Code of each text without a mark, by [`key`] of its parts; `NONE`
    /// where no text is.
    codes: Box<[u16]>,
}

/// No code, in [`Table::codes`].
const NONE: u16 = u16::MAX;

/// Texts without a mark: the codes of those with `+` follow, then those
/// with `#`, in the same order.
const UNMARKED: u16 = 14_006;

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let sans = enumerate();
    let mut codes = vec![NONE; san::SAN_KEYS as usize].into_boxed_slice();
    for (code, san) in sans[..usize::from(UNMARKED)].iter().enumerate() {
        let at = key(san.as_bytes()).expect("a text of the list has parts");
        assert_eq!(codes[at], NONE, "{san} twice");
        codes[at] = code as u16;
    }
    Table { sans, codes }
});

/// Every SAN text that has a code, in code order.
pub fn sans() -> &'static [Box<str>] {
    &TABLE.sans
}

/// The parts of a SAN text without its mark as one number
/// ([`san::parts_key`], castlings as piece 6, destination 0 or 1); `None`
/// for a text that is no SAN. Reading the parts costs a few comparisons,
/// where hashing the text and looking it up in a map of the 42,018 texts
/// cost a cache miss a move.
fn key(text: &[u8]) -> Option<usize> {
    let (piece, dest, way, capture, promotion) = match text {
        b"O-O" => (6, 0, 0, false, 0),
        b"O-O-O" => (6, 1, 0, false, 0),
        _ => {
            let (piece, rest) = match text.first()? {
                b'N' => (1, &text[1..]),
                b'B' => (2, &text[1..]),
                b'R' => (3, &text[1..]),
                b'Q' => (4, &text[1..]),
                b'K' => (5, &text[1..]),
                _ => (0, text),
            };
            let (rest, promotion) = match rest {
                [head @ .., b'=', p] => (head, b"NBRQ".iter().position(|&c| c == *p)? as u32 + 1),
                _ => (rest, 0),
            };
            let [prefix @ .., f @ b'a'..=b'h', r @ b'1'..=b'8'] = rest else { return None };
            let dest = u32::from(r - b'1') * 8 + u32::from(f - b'a');
            let (prefix, capture) = match prefix {
                [head @ .., b'x'] => (head, true),
                _ => (prefix, false),
            };
            let way = match *prefix {
                [] => 0,
                [f @ b'a'..=b'h'] => 1 + u32::from(f - b'a'),
                [r @ b'1'..=b'8'] => 9 + u32::from(r - b'1'),
                [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
                    17 + u32::from(r - b'1') * 8 + u32::from(f - b'a')
                }
                _ => return None,
            };
            (piece, dest, way, capture, promotion)
        }
    };
    san::parts_key(piece, dest, way, capture, promotion).map(|k| k as usize)
}

/// The squares a piece (`N`, `B`, `R`, `Q`, `K`) reaches from `square`
/// (0 = a1, 7 = h1, 63 = h8) on an empty board, in square order.
fn reach(piece: u8, square: usize) -> Vec<usize> {
    let (file, rank) = ((square % 8) as i32, (square / 8) as i32);
    let on_board = |f: i32, r: i32| (0..8).contains(&f) && (0..8).contains(&r);
    let mut out = Vec::new();
    let steps: &[(i32, i32)] = match piece {
        b'N' => &[(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)],
        b'K' => &[(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)],
        _ => &[],
    };
    for &(df, dr) in steps {
        if on_board(file + df, rank + dr) {
            out.push(((rank + dr) * 8 + file + df) as usize);
        }
    }
    let mut rays: Vec<(i32, i32)> = Vec::new();
    if matches!(piece, b'R' | b'Q') {
        rays.extend([(1, 0), (-1, 0), (0, 1), (0, -1)]);
    }
    if matches!(piece, b'B' | b'Q') {
        rays.extend([(1, 1), (1, -1), (-1, 1), (-1, -1)]);
    }
    for (df, dr) in rays {
        let (mut f, mut r) = (file + df, rank + dr);
        while on_board(f, r) {
            out.push((r * 8 + f) as usize);
            f += df;
            r += dr;
        }
    }
    out.sort_unstable();
    out
}

fn square_name(square: usize) -> String {
    format!("{}{}", char::from(b'a' + (square % 8) as u8), square / 8 + 1)
}

/// The list of [`SANS`]: each text without a mark, then with `+`, then
/// with `#`, in this order of texts: the castlings; the pawn moves by
/// destination (a push, then the captures from the lower file, then the
/// higher; promotions to N, B, R, Q); the pieces N, B, R, Q, K by
/// destination, each without a disambiguation, then by file, by rank and
/// by square, each without then with a capture.
fn enumerate() -> Vec<Box<str>> {
    let mut texts: Vec<String> = vec!["O-O".into(), "O-O-O".into()];
    for dest in 0..64 {
        let (file, rank) = (dest % 8, dest / 8 + 1);
        let name = square_name(dest);
        let promotions: &[&str] =
            if rank == 1 || rank == 8 { &["=N", "=B", "=R", "=Q"] } else { &[""] };
        for promotion in promotions {
            texts.push(format!("{name}{promotion}"));
        }
        for from in [file.checked_sub(1), (file < 7).then_some(file + 1)].into_iter().flatten() {
            for promotion in promotions {
                texts.push(format!("{}x{name}{promotion}", char::from(b'a' + from as u8)));
            }
        }
    }
    for piece in [b'N', b'B', b'R', b'Q', b'K'] {
        let letter = char::from(piece);
        for dest in 0..64 {
            let name = square_name(dest);
            let origins = reach(piece, dest);
            let mut ways = vec![String::new()];
            if piece != b'K' {
                let mut files: Vec<usize> = origins.iter().map(|s| s % 8).collect();
                files.sort_unstable();
                files.dedup();
                let mut ranks: Vec<usize> = origins.iter().map(|s| s / 8).collect();
                ranks.sort_unstable();
                ranks.dedup();
                ways.extend(files.iter().map(|&f| char::from(b'a' + f as u8).to_string()));
                ways.extend(ranks.iter().map(|&r| (r + 1).to_string()));
                ways.extend(origins.iter().map(|&s| square_name(s)));
            }
            for way in &ways {
                for capture in ["", "x"] {
                    texts.push(format!("{letter}{way}{capture}{name}"));
                }
            }
        }
    }
    let mut sans = Vec::with_capacity(3 * texts.len());
    for mark in ["", "+", "#"] {
        sans.extend(texts.iter().map(|t| format!("{t}{mark}").into_boxed_str()));
    }
    sans
}

/// The code of a SAN text, `None` for a text outside the list.
pub fn code(san: &str) -> Option<u16> {
    code_of(san.as_bytes())
}

fn code_of(san: &[u8]) -> Option<u16> {
    let (text, mark) = match san {
        [text @ .., b'+'] => (text, 1),
        [text @ .., b'#'] => (text, 2),
        text => (text, 0),
    };
    match TABLE.codes[key(text)?] {
        NONE => None,
        code => Some(code + mark * UNMARKED),
    }
}

/// The code of a move's [`san::SanPlus::key`], `None` if its text has
/// none.
#[inline]
pub fn code_of_key(key: u32) -> Option<u16> {
    match *TABLE.codes.get((key / 3) as usize)? {
        NONE => None,
        code => Some(code + (key % 3) as u16 * UNMARKED),
    }
}

/// Slots of a thread's cache of codes: a few thousand distinct texts make
/// most games.
const CACHE_SLOTS: usize = 1 << 14;

thread_local! {
    /// Texts of 1 to 7 bytes as numbers, their bytes little-endian and
    /// their length in the top byte (so never 0, a slot never met), and
    /// their codes.
    static CACHE: std::cell::RefCell<Vec<(u64, u16)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The SAN text of a code, `None` for a code that stands for none.
pub fn san(code: u16) -> Option<&'static str> {
    TABLE.sans.get(usize::from(code)).map(|s| &**s)
}

/// The codes of `moves` (SAN texts separated by single spaces), two bytes
/// each; `None` if a text has no code.
pub fn encode(moves: &str) -> Option<Vec<u8>> {
    let bytes = moves.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 2 + 2);
    if bytes.is_empty() {
        return Some(out);
    }
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.is_empty() {
            cache.resize(CACHE_SLOTS, (0, 0));
        }
        // One pass: each text's number is built as its bytes go by (a
        // move is 2 to 7 bytes: a call to search for the space, or to
        // copy the text, would cost more than the move).
        let mut start = 0;
        while start <= bytes.len() {
            let mut end = start;
            let mut word = 0u64;
            while end < bytes.len() && bytes[end] != b' ' {
                if end - start < 7 {
                    word |= u64::from(bytes[end]) << (8 * (end - start));
                }
                end += 1;
            }
            let len = end - start;
            if len == 0 || len > 7 {
                return None;
            }
            word |= (len as u64) << 56;
            let slot = (word.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 50) as usize;
            let code = match cache[slot] {
                (held, code) if held == word => code,
                _ => {
                    let code = code_of(&bytes[start..end])?;
                    cache[slot] = (word, code);
                    code
                }
            };
            out.extend_from_slice(&code.to_be_bytes());
            start = end + 1;
        }
        Some(out)
    })
}

/// The moves text of `codes`, `None` for an odd length or a code that
/// stands for no text.
pub fn decode(codes: &[u8]) -> Option<String> {
    if !codes.len().is_multiple_of(2) {
        return None;
    }
    let mut out = String::with_capacity(codes.len() * 2);
    for (i, pair) in codes.chunks_exact(2).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(san(u16::from_be_bytes([pair[0], pair[1]]))?);
    }
    Some(out)
}

/// A game's mainline as `game_rows.packed_moves` holds it.
#[derive(Debug, Clone, Eq)]
pub enum Moves {
    /// Two bytes a ply ([`encode`]): a BLOB.
    Codes(Vec<u8>),
    /// The packed text of [`packed_moves`], for moves with a text that has
    /// no code.
    Packed(String),
}

impl Moves {
    /// `moves` (SAN separated by spaces) as the import stores it: codes
    /// when every text has one.
    pub fn of(moves: &str) -> Moves {
        encode(moves).map_or_else(|| Moves::Packed(packed_moves::pack(moves)), Moves::Codes)
    }

    /// The codes of a mainline of `plies` moves given as their
    /// [`san::SanPlus::key`]s, as the replay records them: `None` unless
    /// every move has a key with a code (then [`Moves::of`] its text).
    pub fn of_keys(keys: &[u32], plies: usize) -> Option<Moves> {
        if keys.len() != plies {
            return None;
        }
        let mut codes = vec![0u8; 2 * keys.len()];
        for (out, &key) in codes.chunks_exact_mut(2).zip(keys) {
            out.copy_from_slice(&code_of_key(key)?.to_be_bytes());
        }
        Some(Moves::Codes(codes))
    }

    /// The moves text; `None` for codes that stand for no text.
    pub fn text(&self) -> Option<String> {
        match self {
            Moves::Codes(codes) => decode(codes),
            Moves::Packed(text) => Some(packed_moves::unpack(text)),
        }
    }

    /// The codes, `None` for the packed text.
    pub fn codes(&self) -> Option<&[u8]> {
        match self {
            Moves::Codes(codes) => Some(codes),
            Moves::Packed(_) => None,
        }
    }
}

impl Default for Moves {
    /// No move.
    fn default() -> Moves {
        Moves::Codes(Vec::new())
    }
}

impl PartialEq for Moves {
    /// The same moves, whichever form holds them.
    fn eq(&self, other: &Moves) -> bool {
        match (self, other) {
            (Moves::Codes(a), Moves::Codes(b)) => a == b,
            (Moves::Packed(a), Moves::Packed(b)) => a == b,
            _ => self.text() == other.text(),
        }
    }
}

impl ToSql for Moves {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Moves::Codes(codes) => ToSqlOutput::from(codes.as_slice()),
            Moves::Packed(text) => ToSqlOutput::from(text.as_str()),
        })
    }
}

impl FromSql for Moves {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Moves> {
        match value {
            ValueRef::Blob(codes) => Ok(Moves::Codes(codes.to_vec())),
            ValueRef::Text(text) => std::str::from_utf8(text)
                .map(|t| Moves::Packed(t.to_string()))
                .map_err(|e| FromSqlError::Other(Box::new(e))),
            _ => Err(FromSqlError::InvalidType),
        }
    }
}

/// The moves text of a `packed_moves` value: codes (a BLOB) or the packed
/// text; `None` for NULL or codes that stand for no text.
pub fn unpack_value(value: ValueRef<'_>) -> Option<String> {
    match value {
        ValueRef::Blob(codes) => decode(codes),
        ValueRef::Text(text) => Some(packed_moves::unpack(std::str::from_utf8(text).ok()?)),
        _ => None,
    }
}

/// SQL for a JSON array of `n + 1` zeros, `n` an SQL expression: rows a
/// ply for `json_each` at some 16 M rows a second, the last one past the
/// end (`substr` there reads an empty BLOB).
pub fn rows_sql(n: &str) -> String {
    format!("'[' || replace(printf('%.*c', {n}, 'x'), 'x', '0,') || '0]'")
}

/// SQL for the SAN text of ply `key + 1` (`key` from 0) of the codes
/// `codes`: NULL past the end.
pub fn san_sql(codes: &str, key: &str) -> String {
    format!("(SELECT c.san FROM move_codes AS c WHERE c.code = substr({codes}, 2 * {key} + 1, 2))")
}

/// SQL for the moves text of a `packed_moves` value `expr`, either form.
/// The texts are concatenated in `json_each`'s order: one scan, no join.
pub fn moves_sql(expr: &str) -> String {
    format!(
        "CASE WHEN typeof({expr}) = 'blob' THEN coalesce((SELECT group_concat({san}, ' ') \
         FROM json_each({rows}) AS j WHERE j.key < length({expr}) / 2), '') ELSE {packed} END",
        san = san_sql(expr, "j.key"),
        rows = rows_sql(&format!("length({expr}) / 2")),
        packed = packed_moves::unpack_sql(expr),
    )
}

/// Which codes a database's `move_codes` table holds: one bit a code.
#[derive(Debug, Clone)]
pub struct CodeSet(Box<[u64; 1024]>);

impl Default for CodeSet {
    fn default() -> CodeSet {
        CodeSet(Box::new([0; 1024]))
    }
}

impl CodeSet {
    /// The codes `conn`'s `move_codes` table holds.
    ///
    /// # Errors
    /// SQLite's.
    pub fn stored(conn: &rusqlite::Connection) -> rusqlite::Result<CodeSet> {
        let mut set = CodeSet::default();
        let mut stmt = conn.prepare("SELECT code FROM move_codes")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            if let ValueRef::Blob(&[a, b]) = row.get_ref(0)? {
                set.insert(u16::from_be_bytes([a, b]));
            }
        }
        Ok(set)
    }

    /// Adds `code`: `true` if it was not there.
    pub fn insert(&mut self, code: u16) -> bool {
        let (word, bit) = (usize::from(code >> 6), 1u64 << (code & 63));
        let new = self.0[word] & bit == 0;
        self.0[word] |= bit;
        new
    }

    /// Takes `code` out.
    pub fn remove(&mut self, code: u16) {
        self.0[usize::from(code >> 6)] &= !(1u64 << (code & 63));
    }

    /// The codes of `moves` (two bytes each), each once, in order.
    pub fn distinct<'m>(moves: impl IntoIterator<Item = &'m [u8]>) -> Vec<u16> {
        let mut set = CodeSet::default();
        for codes in moves {
            for pair in codes.chunks_exact(2) {
                set.insert(u16::from_be_bytes([pair[0], pair[1]]));
            }
        }
        let mut out = Vec::new();
        for (i, &word) in set.0.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                out.push((i as u16) << 6 | word.trailing_zeros() as u16);
                word &= word - 1;
            }
        }
        out
    }

    /// Adds the codes of `codes` (two bytes each) that are not in the set
    /// to `new`, and to the set.
    pub fn add_new(&mut self, codes: &[u8], new: &mut Vec<u16>) {
        for pair in codes.chunks_exact(2) {
            let code = u16::from_be_bytes([pair[0], pair[1]]);
            if self.insert(code) {
                new.push(code);
            }
        }
    }
}

/// Writes the rows of `codes` into `conn`'s `move_codes` table (those it
/// holds already are left as they are).
///
/// # Errors
/// SQLite's.
pub fn store(conn: &rusqlite::Connection, codes: &[u16]) -> rusqlite::Result<()> {
    let mut stmt =
        conn.prepare_cached("INSERT OR IGNORE INTO move_codes (code, san) VALUES (?1, ?2)")?;
    for &code in codes {
        if let Some(san) = san(code) {
            stmt.execute(rusqlite::params![code.to_be_bytes().as_slice(), san])?;
        }
    }
    Ok(())
}

/// The SQL function the migration to move codes calls: a `packed_moves`
/// value (the packed text) → its codes (a BLOB); NULL for any other value,
/// or a text with a move that has no code (the migration keeps those).
pub const ENCODE_FUNCTION: &str = "pgnindex_move_codes";

/// Registers [`ENCODE_FUNCTION`] on `conn`, and `pgnindex_move_san(code)`
/// (a code's SAN text, NULL for none), which the migration fills
/// `move_codes` with.
///
/// # Errors
/// SQLite's.
pub fn register_migration_functions(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function(ENCODE_FUNCTION, 1, flags, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Text(text) => {
                std::str::from_utf8(text).ok().and_then(|p| encode(&packed_moves::unpack(p)))
            }
            _ => None,
        })
    })?;
    conn.create_scalar_function("pgnindex_move_san", 1, flags, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Blob(&[a, b]) => san(u16::from_be_bytes([a, b])).map(str::to_string),
            _ => None,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_pinned() {
        let sans = sans();
        assert_eq!(sans.len(), 42_018);
        assert_eq!(sans.len(), 3 * usize::from(UNMARKED));
        for (i, san) in sans.iter().enumerate() {
            assert_eq!(code(san), Some(i as u16), "{san}");
        }
        // FNV-1a over the texts and their separators: any change to the
        // list changes every database's meaning.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for san in sans {
            for &b in san.as_bytes().iter().chain(b"\n") {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        assert_eq!(hash, PINNED_DIGEST, "the list of move codes changed");
        assert_eq!(san(0), Some("O-O"));
        assert_eq!(code("e4"), Some(code("e4").unwrap()));
        assert_eq!(code("Nf3+").map(|c| san(c).unwrap()), Some("Nf3+"));
    }

    #[test]
    fn a_chunk_s_distinct_codes_are_each_game_s_once_in_order() {
        let games = [encode("e4 e5 Nf3").unwrap(), encode("d4 e5 e4 O-O").unwrap(), Vec::new()];
        let distinct = CodeSet::distinct(games.iter().map(Vec::as_slice));
        let mut expected: Vec<u16> = games
            .iter()
            .flat_map(|g| g.chunks_exact(2).map(|p| u16::from_be_bytes([p[0], p[1]])))
            .collect();
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(distinct, expected);
        assert_eq!(distinct.len(), 5);
        let far = [0xa4, 0x11, 0x00, 0x00];
        assert_eq!(CodeSet::distinct([&far[..]]), [0x0000, 0xa411]);
        assert!(CodeSet::distinct(std::iter::empty()).is_empty());
    }

    /// The digest of the list as first written.
    const PINNED_DIGEST: u64 = 14_420_555_508_954_862_591;

    #[test]
    fn every_text_is_distinct_short_and_of_san_characters() {
        let mut seen = std::collections::HashSet::new();
        for san in sans() {
            assert!(san.len() <= 7, "{san}");
            assert!(san.bytes().all(|b| b"abcdefgh12345678NBRQKOx=+#-".contains(&b)), "{san}");
            assert!(seen.insert(san.clone()), "{san} twice");
        }
    }

    #[test]
    fn moves_round_trip_through_codes_and_texts_outside_keep_the_packed_text() {
        let moves = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 \
                     exd5 R1e2 Qh4xe1# e8=Q+ fxg1=N O-O-O#";
        let codes = encode(moves).unwrap();
        assert_eq!(codes.len(), 2 * moves.split(' ').count());
        assert_eq!(decode(&codes).as_deref(), Some(moves));
        assert_eq!(encode(""), Some(Vec::new()));
        assert_eq!(decode(&[]).as_deref(), Some(""));
        for outside in ["e4 --", "e4  e5", "Kab1", "e9", "exe5", "e4 ", "e4\0", "Qa1xh8#+"] {
            assert_eq!(encode(outside), None, "{outside}");
            let stored = Moves::of(outside);
            assert!(matches!(stored, Moves::Packed(_)), "{outside}");
            assert_eq!(stored.text().as_deref(), Some(outside));
        }
        assert_eq!(decode(&[0xff, 0xff]), None);
        assert_eq!(decode(&[0]), None);
        assert_eq!(Moves::of("e4 e5"), Moves::Packed(packed_moves::pack("e4 e5")));
    }

    /// Every move of every position up to `depth` plies from `pos`, as
    /// SAN: each has a code that reads back as it.
    fn walk(pos: &crate::chess::position::Position, depth: u32, seen: &mut usize) {
        let mut moves = crate::chess::position::MoveList::new();
        pos.legal_moves(&mut moves);
        for &m in moves.iter() {
            let text = crate::notation::san::to_san(pos, m);
            let code = code(&text).unwrap_or_else(|| panic!("{text} has no code"));
            // The replay's way: the key of the move's parts.
            let plus = san::SanPlus::from_move(pos, m);
            assert_eq!(plus.key().and_then(code_of_key), Some(code), "{text}");
            assert_eq!(san(code), Some(text.as_str()));
            *seen += 1;
            if depth > 1 {
                let mut child = pos.clone();
                child.play_unchecked(m);
                walk(&child, depth - 1, seen);
            }
        }
    }

    #[test]
    fn every_move_san_writes_has_a_code() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // Kiwipete: castlings, captures, checks, pins.
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            // Promotions with and without capture, checks and mates.
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            // Three queens and knights: disambiguation by file, rank and square.
            "k7/8/3Q1Q2/8/3Q4/8/1N3N2/K7 w - - 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        ];
        let mut seen = 0;
        for fen in fens {
            let pos = crate::notation::fen::parse_position(fen).unwrap();
            walk(&pos, 3, &mut seen);
        }
        assert!(seen > 100_000, "{seen}");
    }

    #[test]
    fn the_migration_codes_what_it_can_and_keeps_every_other_text() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        register_migration_functions(&conn).unwrap();
        let coded = |value: &str| -> rusqlite::types::Value {
            conn.query_row(
                &format!("SELECT coalesce({ENCODE_FUNCTION}({value}), {value})"),
                [],
                |r| r.get(0),
            )
            .unwrap()
        };
        let packed = packed_moves::pack("e4 e5 Nf3");
        let read: rusqlite::types::Value = conn
            .query_row(&format!("SELECT {ENCODE_FUNCTION}(?1)"), [packed.as_str()], |r| r.get(0))
            .unwrap();
        assert_eq!(read, rusqlite::types::Value::Blob(encode("e4 e5 Nf3").unwrap()));
        // Invalid UTF-8, a move without a code: kept as they are.
        let invalid: Vec<u8> = conn
            .query_row(
                &format!("SELECT CAST(coalesce({ENCODE_FUNCTION}(CAST(X'65FF34' AS TEXT)), CAST(X'65FF34' AS TEXT)) AS BLOB)"),
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(invalid, b"e\xff4");
        // A text kept verbatim by the packing, with a move outside the list.
        let verbatim = format!("{}P@e4", char::from(packed_moves::VERBATIM));
        assert_eq!(coded("char(127) || 'P@e4'"), rusqlite::types::Value::Text(verbatim));
    }
}
