//! From a replayed game to the rows the database stores: the `games`
//! columns, the other tag pairs, one row per indexed position, and the key
//! that finds duplicates. Built on the worker threads, so the writer only
//! inserts.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::analysis::Analysis;
use crate::chess::Material;
use crate::db::columns::columns;
use crate::db::move_codes::Moves;
use crate::db::packed_fen;
pub use crate::db::Header;
use crate::notation::fen;
use crate::notation::uci::Uci;
use crate::pgn::movetext::NotesForm;
use crate::replay::openings::Openings;
use crate::replay::parallel::{LocatedGame, INDEXED_POSITIONS};
use crate::replay::{Skipped, TagPairs};
use crate::store::format::material;
use crate::store::format::plies::PlyData;

/// What to index besides the game itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowOptions {
    /// Build position rows at all (`--no-positions` turns this off).
    pub positions: bool,
    /// Index positions up to this ply only.
    pub max_ply: u32,
    /// Store the FEN of every indexed position.
    pub fens: bool,
}

impl Default for RowOptions {
    fn default() -> RowOptions {
        RowOptions { positions: true, max_ply: u32::MAX, fens: false }
    }
}

impl RowOptions {
    /// The `positions_indexed` and `max_ply` of a source imported with
    /// these options: `max_ply` only when it stops before the plies that
    /// are never indexed anyway (beyond 65,535).
    pub fn source_settings(&self) -> (bool, Option<u32>) {
        let max_ply =
            (self.positions && self.max_ply < u32::from(u16::MAX)).then_some(self.max_ply);
        (self.positions, max_ply)
    }
}

/// One `positions` row, less the game id (given by the writer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct PositionRow {
    /// The Polyglot key, as SQLite's signed INTEGER.
    pub hash: i64,
    /// Half-moves played before the position (0 = start).
    pub ply: u32,
    /// [`Uci::code`] of the move played from it, `None` at the end.
    pub next_move: Option<u16>,
    /// [`crate::chess::reach::Reach::reach_within`] of the position from the
    /// standard start, 255 for `None` and where it was not taken
    /// ([`crate::replay::ReplayOptions::reaches`]).
    pub reach: u8,
}

columns! {
    /// Everything the writer stores of one game. The fields not marked
    /// `@skip` are the `games` columns of their names; [`crate::store::writer`]
    /// fills the others: the id, the source, and `offset` as
    /// `source_offset`.
    #[derive(Debug, Clone)]
    pub struct GameRow {
        /// Byte offset of the game in its input (block offset added by the
        /// pipeline).
        @skip pub offset: u64,
        /// The `games` columns taken from tags.
        @flatten pub header: Header,
        /// The columns read from the date and time control.
        @flatten pub analysis: Analysis,
        /// The opening, by position.
        @flatten pub opening: GameOpening,
        /// The other tag pairs, in order (the writer stores them in
        /// `game_tags`, names by id); `None` when there are none.
        @skip pub tags: Option<TagPairs>,
        /// The `ply_data` row: what the mainline says about each move;
        /// `None` when it says nothing.
        @skip pub plies: Option<PlyData>,
        /// Half-moves replayed.
        pub ply_count: u64,
        /// The start position if not the standard one.
        pub start_fen: Option<String>,
        /// The final position (`None` when the FEN tag could not be read).
        pub final_fen: Option<String>,
        /// `final_fen` packed, as `game_rows.final_fen` stores it
        /// ([`crate::db::packed_fen`]); packed here, on the workers, not by
        /// the writer.
        @skip pub packed_final_fen: Option<String>,
        /// Mainline in canonical SAN.
        pub moves: String,
        /// `moves` as `game_rows.packed_moves` stores it
        /// ([`crate::db::move_codes`]); coded here, on the workers, not by
        /// the writer.
        @skip pub packed_moves: Moves,
        /// Movetext as written; `None` when the queries write it back from
        /// `moves`, the `ply_data` row and the result
        /// ([`crate::pgn::movetext`]).
        pub movetext: Option<String>,
        /// Why the replay stopped early.
        pub error: Option<String>,
        /// Byte offset of the text the error is about.
        @skip pub error_offset: Option<u64>,
        /// Why the game is reported and not stored, if it is not.
        @skip pub skipped: Option<Skipped>,
        /// The `game_material` row: the mainline's material stretches
        /// ([`crate::store::format::material`]); `None` for a game without a start
        /// position.
        @skip pub material: Option<Vec<u8>>,
        /// The indexed positions.
        @skip pub positions: Vec<PositionRow>,
        /// FENs of the indexed positions (same order), with `--with-fens`.
        @skip pub fens: Vec<String>,
        /// Hash of the identifying tags and the mainline.
        pub dedupe_key: i64,
        /// Line (within the chunk) and column of the error (of the game's
        /// start for a skipped variant).
        @skip pub error_at: Option<(usize, usize)>,
        /// Warnings: line (within the chunk), column, message.
        @skip pub warnings: Vec<(usize, usize, String)>,
        /// The rows as records, encoded on the workers
        /// ([`super::records::Encoder`]); `None`: the writer encodes them.
        @skip pub records: Option<super::records::GameRecords>,
        /// What the explorer's tree takes of the game, found on the
        /// workers ([`super::records::Encoder`]); `None`: the writer finds
        /// it.
        @skip pub visits: Option<super::visits::TreeVisits>,
        /// On the first game of a chunk: the sum of the tree visits of the
        /// chunk's games, made on the worker ([`super::visits::ChunkTree`]).
        @skip pub chunk_tree: Option<Box<super::visits::ChunkTree>>,
        /// On the first game of a chunk: the move codes its games use,
        /// each once, in order, found on the worker.
        @skip pub chunk_codes: Option<Box<[u16]>>,
    }
}

columns! {
    /// The opening of a game by position: the last position of its
    /// mainline that a row of the opening names data set
    /// ([`crate::replay::openings`]) names. All `None` for a game from a
    /// FEN tag or one that never reaches a named position.
    #[derive(Debug, Clone, Default, PartialEq, Eq)]
    pub struct GameOpening {
        /// The row's ECO code.
        pub opening_eco: Option<String>,
        /// The row's name.
        pub opening_name: Option<String>,
        /// The half-moves played to reach the position.
        pub opening_ply: Option<i64>,
    }
}

impl GameOpening {
    /// The columns of a game whose last named position is that of row
    /// `row` of [`Openings::rows`], reached at ply `ply`.
    pub fn new(opening: Option<(u32, u32)>) -> GameOpening {
        let Some((row, ply)) = opening else { return GameOpening::default() };
        let row = Openings::get().rows()[row as usize];
        GameOpening {
            opening_eco: Some(row.eco.to_string()),
            opening_name: Some(row.name.to_string()),
            opening_ply: Some(i64::from(ply)),
        }
    }
}

/// Parses an Elo tag: a rating from 1 to 9999, else `None`. No rating
/// system reaches five digits, and the bound keeps every sum of ratings
/// (the explorer's averages) far from overflowing.
fn elo(value: &str) -> Option<i64> {
    value.trim().parse::<i64>().ok().filter(|e| (1..=9999).contains(e))
}

impl GameRow {
    /// The rows of a game read with tags, keys, SAN and movetext recorded
    /// (and FENs when `options.fens`).
    pub fn build(game: LocatedGame, options: RowOptions) -> GameRow {
        let record = game.record;
        let mut header = Header::default();
        // Pairs without a column (or a column's repeated tag), by index.
        let mut others = vec![false; record.tags.len()];
        for (i, (name, value)) in record.tags.iter().enumerate() {
            // Tag names are matched without case (and without allocating
            // a lower-case copy per tag).
            let mut lower = [0u8; 12];
            let key = match name.as_bytes() {
                n if n.len() <= lower.len() => {
                    lower[..n.len()].copy_from_slice(n);
                    lower[..n.len()].make_ascii_lowercase();
                    &lower[..n.len()]
                }
                _ => &[][..],
            };
            let slot = match key {
                b"event" => &mut header.event,
                b"site" => &mut header.site,
                b"date" => &mut header.date,
                b"round" => &mut header.round,
                b"white" => &mut header.white,
                b"black" => &mut header.black,
                b"result" => &mut header.result,
                b"eco" => &mut header.eco,
                b"opening" => &mut header.opening,
                b"timecontrol" => &mut header.time_control,
                b"termination" => &mut header.termination,
                b"whiteelo" if header.white_elo.is_none() && elo(value).is_some() => {
                    header.white_elo = elo(value);
                    continue;
                }
                b"blackelo" if header.black_elo.is_none() && elo(value).is_some() => {
                    header.black_elo = elo(value);
                    continue;
                }
                _ => {
                    others[i] = true;
                    continue;
                }
            };
            // A repeated tag keeps its first value in the column; the
            // others are kept as tag pairs.
            if slot.is_none() {
                *slot = Some(value.to_string());
            } else {
                others[i] = true;
            }
        }
        // The standard's placeholders for an unknown value are no value:
        // stored as NULL, as for an absent tag, and written back as the
        // placeholder, so that an export imports back the same.
        for field in [
            &mut header.event,
            &mut header.site,
            &mut header.round,
            &mut header.white,
            &mut header.black,
        ] {
            if field.as_deref().is_some_and(|v| v.trim() == "?") {
                *field = None;
            }
        }
        if header.date.as_deref().is_some_and(|d| d.trim() == "????.??.??") {
            header.date = None;
        }
        if header.result.is_none() {
            header.result = record.outcome.map(|o| o.as_str().to_string());
        }
        // Games have no length limit (a mapped file is read whole): the
        // count is never cut to 32 bits.
        let ply_count = record.moves.len() as u64;
        let mut plies = PlyData::new(&record);
        // The result token written back is the `result` column's.
        let token = record.outcome.map(|o| o.as_str());
        let rebuild =
            record.rebuild.filter(|_| token.is_some() && header.result.as_deref() == token);
        if let Some(plies) = &mut plies {
            match rebuild {
                Some(form) => {
                    plies.notes_form = form.code();
                    if let NotesForm::Keyed(layout) = form {
                        plies.notes_layout = Some(layout.to_text());
                    }
                }
                // The movetext is stored: nothing of it a second time.
                None => plies.tails = None,
            }
        }
        let mut positions = Vec::new();
        let mut fens = Vec::new();
        if options.positions && record.skipped.is_none() {
            // Plies beyond 65,535 are not indexed ([`INDEXED_POSITIONS`]).
            let last = ply_count.min(u64::from(options.max_ply));
            let last = u16::try_from(last).unwrap_or(u16::MAX);
            debug_assert_eq!(usize::from(u16::MAX) + 1, INDEXED_POSITIONS);
            let indexed = record.keys.len().min(usize::from(last) + 1);
            let chess960 = record.chess960;
            let (moves, reaches) = (&record.moves, &record.reaches);
            // One pass of known length: no capacity check per row.
            positions.extend(record.keys[..indexed].iter().enumerate().map(|(ply, &key)| {
                let reach = reaches.get(ply).copied().unwrap_or(u8::MAX);
                let next_move = moves.get(ply).map(|m| match *m {
                    Some(m) => Uci::move_code(m, chess960),
                    None => Uci::Null.code(),
                });
                // `indexed` is at most 65,536: the ply fits.
                PositionRow { hash: key as i64, ply: ply as u32, next_move, reach }
            }));
            if options.fens {
                fens = record.fens.into_iter().take(positions.len()).collect();
            }
        }
        let analysis = Analysis::new(
            header.date.as_deref(),
            header.time_control.as_deref(),
            header.event.as_deref(),
        );
        let opening = GameOpening::new(record.opening);
        let tags = Some(record.tags.filtered(|i| others[i])).filter(|t| !t.is_empty());
        let final_fen = (!record.no_start).then(|| fen::write(&record.final_position));
        let packed_final_fen = final_fen.as_deref().map(packed_fen::pack);
        let material = (!record.no_start && record.skipped.is_none()).then(|| {
            let end = &record.final_position;
            material::encode(&record.moves, Material::of(end.board()), end.turn())
        });
        let dedupe_key = dedupe_key(&header, record.start_fen.as_deref(), &record.san);
        GameRow {
            offset: record.offset as u64,
            header,
            analysis,
            opening,
            tags,
            plies,
            ply_count,
            start_fen: record.start_fen,
            final_fen,
            packed_final_fen,
            packed_moves: Moves::of_keys(&record.san_keys, record.moves.len())
                .unwrap_or_else(|| Moves::of(&record.san)),
            moves: record.san,
            movetext: rebuild.is_none().then_some(record.movetext),
            error_offset: record.error.as_ref().map(|e| e.offset as u64),
            error: record.error.map(|e| e.message),
            skipped: record.skipped,
            material,
            positions,
            fens,
            dedupe_key,
            error_at: game.error_at,
            warnings: game.warnings,
            records: None,
            visits: None,
            chunk_tree: None,
            chunk_codes: None,
        }
    }

    /// `true` if this game and `other` are the same game for dedupe: same
    /// players, date, event, round, result (compared after
    /// [`normalise`]), start position and mainline.
    pub fn same_game(&self, other: &StoredGame) -> bool {
        let (h, o) = (&self.header, &other.header);
        let same = |a: &Option<String>, b: &Option<String>| {
            normalise(a.as_deref().unwrap_or("")) == normalise(b.as_deref().unwrap_or(""))
        };
        same(&h.white, &o.white)
            && same(&h.black, &o.black)
            && same(&h.date, &o.date)
            && same(&h.event, &o.event)
            && same(&h.round, &o.round)
            && same(&h.result, &o.result)
            && self.start_fen == other.start_fen
            && self.packed_moves == other.packed_moves
    }
}

columns! {
    /// The columns of a stored game that [`GameRow::same_game`] compares,
    /// read back to confirm a dedupe-key match.
    #[derive(Debug, Clone, Default)]
    pub struct StoredGame {
        /// The tag columns.
        @flatten pub header: Header,
        /// `start_fen`.
        pub start_fen: Option<String>,
        /// `game_rows.packed_moves`: `moves` in either form (equal moves
        /// compare equal).
        pub packed_moves: Moves,
    }
}

/// A tag value as dedupe compares it: trimmed, inner runs of white space
/// as one space, lower case, and the PGN "unknown" values (`?`, `??`,
/// `????.??.??`) the same as a missing tag.
pub fn normalise(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    normalise_into(value, &mut out);
    out
}

/// [`normalise`] into `out` (cleared first), reusing its buffer.
fn normalise_into(value: &str, out: &mut String) {
    if value.is_ascii() {
        return normalise_ascii_into(value, out);
    }
    normalise_unicode_into(value, out);
}

/// [`normalise_into`] for any text.
fn normalise_unicode_into(value: &str, out: &mut String) {
    out.clear();
    for word in value.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    if out.chars().all(|c| matches!(c, '?' | '.' | '-')) {
        out.clear();
    }
}

/// [`normalise_unicode_into`] for ASCII text (nearly every tag value),
/// word by word: the same output (the dedupe keys of stored games depend on
/// it), without decoding characters and their lower-case expansions.
fn normalise_ascii_into(value: &str, out: &mut String) {
    out.clear();
    // The ASCII characters `char::is_whitespace` accepts (vertical tab
    // included, unlike `u8::is_ascii_whitespace`).
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if space(bytes[i]) {
            i += 1;
            continue;
        }
        let word = i;
        while i < bytes.len() && !space(bytes[i]) {
            i += 1;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        // ASCII: every byte is a character's boundary.
        out.push_str(&value[word..i]);
    }
    out.make_ascii_lowercase();
    if out.bytes().all(|b| matches!(b, b'?' | b'.' | b'-')) {
        out.clear();
    }
}

/// The dedupe key: xxh3 of the normalised identifying tags, the start
/// position and the mainline. Equal games have equal keys; a key match is
/// confirmed with [`GameRow::same_game`].
fn dedupe_key(header: &Header, start_fen: Option<&str>, moves: &str) -> i64 {
    identity_hash(0, header, start_fen, moves) as i64
}

/// Seeds the second hash of a game's identity ([`GameRow::dedupe_check`]).
const CHECK_SEED: u64 = 0x7067_6e69_6e64_6578;

impl GameRow {
    /// Asks the processor to bring into its cache what the writer reads of
    /// the game first: the row, made on another core, and its `game_rows`
    /// record, while the writer stores the game before it.
    #[inline]
    pub fn prefetch(&self) {
        let row = std::ptr::from_ref(self).cast::<u8>();
        prefetch(row, std::mem::size_of::<GameRow>());
        if let Some(records) = &self.records {
            let body = records.rows.body();
            prefetch(body.as_ptr(), body.len().min(4096));
        }
    }

    /// Places a game read from a chunk in its input: the chunk starts at
    /// byte `offset` of the input, after `line` lines; the game's offsets
    /// and lines were counted from the chunk's start.
    pub fn locate(&mut self, offset: u64, line: usize) {
        self.offset += offset;
        if let Some(e) = &mut self.error_offset {
            *e += offset;
        }
        if let Some((l, _)) = &mut self.error_at {
            *l += line;
        }
        for w in &mut self.warnings {
            w.0 += line;
        }
    }

    /// A second 64-bit hash of what [`GameRow::same_game`] compares, with
    /// another seed than the dedupe key: two games whose keys and checks
    /// are both equal are the same game but for a chance of 2^-64, so a
    /// writer with no stored game to read back compares these instead.
    pub fn dedupe_check(&self) -> u64 {
        identity_hash(CHECK_SEED, &self.header, self.start_fen.as_deref(), &self.moves)
    }
}

/// The xxh3 of seed `seed` of the normalised identifying tags (each
/// ended by a 0), the start position, a 0 and the mainline: hashed at once
/// from one buffer, the number xxh3's streaming state gives piece by piece
/// (which sets up and buffers a state of some 600 bytes a game).
fn identity_hash(seed: u64, header: &Header, start_fen: Option<&str>, moves: &str) -> u64 {
    thread_local! {
        static BUFFERS: std::cell::RefCell<(Vec<u8>, String)> =
            const { std::cell::RefCell::new((Vec::new(), String::new())) };
    }
    BUFFERS.with_borrow_mut(|(bytes, text)| {
        bytes.clear();
        for field in [
            &header.white,
            &header.black,
            &header.date,
            &header.event,
            &header.round,
            &header.result,
        ] {
            normalise_into(field.as_deref().unwrap_or(""), text);
            bytes.extend_from_slice(text.as_bytes());
            bytes.push(0);
        }
        bytes.extend_from_slice(start_fen.unwrap_or("").as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(moves.as_bytes());
        xxh3_64_with_seed(bytes, seed)
    })
}

/// Prefetches the cache lines of `len` bytes from `start`.
#[inline]
fn prefetch(start: *const u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    for at in (0..len).step_by(64) {
        // SAFETY: a prefetch only hints the cache; it never faults, whatever
        // the address, and reads nothing the program sees.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                start.wrapping_add(at).cast::<i8>(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (start, len);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::parallel::read_chunk;
    use crate::replay::ReplayOptions;

    proptest::proptest! {
        /// The ASCII path writes exactly what the general one does: stored
        /// dedupe keys depend on it.
        #[test]
        fn ascii_normalisation_equals_the_general_one(
            value in r"[ \t\n\x0b\x0c\r?.\-aZ0éÉ]{0,12}"
        ) {
            let (mut fast, mut general) = (String::new(), String::new());
            normalise_into(&value, &mut fast);
            normalise_unicode_into(&value, &mut general);
            proptest::prop_assert_eq!(&fast, &general);
            if value.is_ascii() {
                normalise_ascii_into(&value, &mut fast);
                proptest::prop_assert_eq!(fast, general);
            }
        }
    }

    #[test]
    fn normalised_values() {
        for (value, expected) in [
            ("  Carlsen,\tMagnus \x0b ", "carlsen, magnus"),
            ("????.??.??", ""),
            (" ? ", ""),
            ("-", ""),
            ("? x", "? x"),
            ("2024.01.??", "2024.01.??"),
            ("Ünal  ÖZ", "ünal öz"),
        ] {
            assert_eq!(normalise(value), expected, "{value:?}");
        }
    }

    fn rows(text: &str, options: RowOptions) -> Vec<GameRow> {
        let replay = ReplayOptions {
            keys: true,
            tags: true,
            san: true,
            movetext: true,
            fens: options.fens,
            ..ReplayOptions::default()
        };
        read_chunk(text.as_bytes(), 0, replay)
            .games
            .into_iter()
            .map(|g| GameRow::build(g, options))
            .collect()
    }

    #[test]
    fn ratings_are_one_to_four_digits_and_other_values_stay_tags() {
        for (value, rating) in [
            ("2400", Some(2400)),
            (" 1 ", Some(1)),
            ("9999", Some(9999)),
            ("10000", None),
            ("0", None),
            ("-5", None),
            ("9223372036854775807", None),
            ("2400.5", None),
        ] {
            assert_eq!(elo(value), rating, "{value:?}");
        }
        let text = "[WhiteElo \"9223372036854775807\"]\n[BlackElo \"2710\"]\n\n1. e4 *\n";
        let g = &rows(text, RowOptions::default())[0];
        assert_eq!((g.header.white_elo, g.header.black_elo), (None, Some(2710)));
        assert_eq!(
            g.tags.as_ref().map(|t| t.iter().collect::<Vec<_>>()),
            Some(vec![("WhiteElo", "9223372036854775807")])
        );
    }

    #[test]
    fn columns_tags_and_positions() {
        let text = "[Event \"Ch\"]\n[White \"A\"]\n[Black \"B\"]\n[WhiteElo \"2400\"]\n\
                    [BlackElo \"?\"]\n[eco \"C20\"]\n[TERMINATION \"normal\"]\n[Annotator \"X\"]\n\
                    [TimeControlNote \"x\"]\n[Event \"again\"]\n\n\
                    1. e4 {hi} e5 2. Qh5 Nc6 3. Bc4 Nf6?? 4. Qxf7# 1-0\n";
        let g = &rows(text, RowOptions::default())[0];
        assert_eq!(g.header.event.as_deref(), Some("Ch"));
        assert_eq!(g.header.white_elo, Some(2400));
        assert_eq!(g.header.black_elo, None);
        assert_eq!(g.header.eco.as_deref(), Some("C20"));
        assert_eq!(g.header.termination.as_deref(), Some("normal"), "names match in any case");
        assert_eq!(g.header.result.as_deref(), Some("1-0"), "from the result token");
        assert_eq!(
            g.tags.as_ref().map(|t| t.iter().collect::<Vec<_>>()),
            Some(vec![
                ("BlackElo", "?"),
                ("Annotator", "X"),
                ("TimeControlNote", "x"),
                ("Event", "again")
            ])
        );
        assert_eq!(g.moves, "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#");
        assert_eq!(
            g.movetext.as_deref(),
            Some("1. e4 {hi} e5 2. Qh5 Nc6 3. Bc4 Nf6?? 4. Qxf7# 1-0")
        );
        assert_eq!(g.ply_count, 7);
        assert_eq!(g.positions.len(), 8);
        assert_eq!(g.positions[0].hash, 0x463b96181691fc9c_u64 as i64, "Polyglot start key");
        assert_eq!(g.positions[0].next_move, Some("e2e4".parse::<Uci>().unwrap().code()));
        assert_eq!(g.positions[7].next_move, None);
        assert_eq!(
            g.final_fen.as_deref(),
            Some("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4")
        );

        let limited = RowOptions { max_ply: 2, fens: true, ..RowOptions::default() };
        let g = &rows(text, limited)[0];
        assert_eq!(g.positions.iter().map(|p| p.ply).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(g.fens.len(), 3);
        assert_eq!(g.fens[1], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        let none = RowOptions { positions: false, ..RowOptions::default() };
        assert!(rows(text, none)[0].positions.is_empty());
    }

    #[test]
    fn bad_games_keep_what_was_read() {
        let text = "[FEN \"bad\"]\n1. e4 *\n\n[Variant \"Atomic\"]\n1. e4 *\n\n1. e4 e5 2. Ke3 *\n";
        let g = rows(text, RowOptions::default());
        assert!(g[0].error.is_some() && g[0].final_fen.is_none() && g[0].positions.is_empty());
        assert_eq!(g[1].skipped, Some(Skipped::Variant("Atomic".into())));
        assert!(g[1].positions.is_empty());
        assert!(g[2].error.as_deref().unwrap().contains("Ke3"));
        assert_eq!(g[2].moves, "e4 e5");
        assert_eq!(g[2].positions.len(), 3);
        assert!(g[2].final_fen.is_some());
    }

    #[test]
    fn dedupe_key_ignores_case_spacing_and_unknowns() {
        let a = rows(
            "[White \"Carlsen,  M\"]\n[Date \"????.??.??\"]\n1. e4 e5 *\n",
            RowOptions::default(),
        );
        let b = rows(
            "[White \" carlsen, m\"]\n[Site \"other\"]\n1. e4 e5 (1... c5) *\n",
            RowOptions::default(),
        );
        let c = rows("[White \"Carlsen, M\"]\n1. e4 c5 *\n", RowOptions::default());
        assert_eq!(a[0].dedupe_key, b[0].dedupe_key);
        assert_ne!(a[0].dedupe_key, c[0].dedupe_key);
        assert_eq!(a[0].dedupe_check(), b[0].dedupe_check());
        assert_ne!(a[0].dedupe_check(), c[0].dedupe_check());
        assert_ne!(a[0].dedupe_check(), a[0].dedupe_key as u64, "another hash than the key");
        let stored = StoredGame {
            header: Header {
                white: Some("CARLSEN, M".into()),
                result: Some("*".into()),
                ..Header::default()
            },
            packed_moves: Moves::of("e4 e5"),
            ..StoredGame::default()
        };
        assert!(a[0].same_game(&stored));
        assert!(!c[0].same_game(&stored));
    }

    #[test]
    fn dedupe_keys_are_those_stored_databases_hold() {
        // Stored keys were hashed piece by piece with xxh3's streaming
        // state; a key hashed at once must be the same number.
        let g = &rows(
            "[Event \"Open  A\"]\n[White \"Anand, V\"]\n[Black \"Kramnik\"]\n\
             [Round \"?\"]\n[Result \"1-0\"]\n[FEN \"8/8/4k3/8/8/8/4P3/4K3 w - - 0 1\"]\n\
             1. e4 Kd6 1-0\n",
            RowOptions::default(),
        )[0];
        for (seed, got) in [(0, g.dedupe_key as u64), (CHECK_SEED, g.dedupe_check())] {
            let mut h = xxhash_rust::xxh3::Xxh3::with_seed(seed);
            for part in ["anand, v", "kramnik", "", "open a", "", "1-0"] {
                h.update(part.as_bytes());
                h.update(&[0]);
            }
            h.update(b"8/8/4k3/8/8/8/4P3/4K3 w - - 0 1\0e4 Kd6");
            assert_eq!(got, h.digest(), "seed {seed}");
        }
    }
}
