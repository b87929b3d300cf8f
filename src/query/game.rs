//! A stored game read back: [`Game`] holds the `games` columns (and, when
//! asked, its other tag pairs from `tags`), as `show`, `export` and `find`
//! need them. A game stored without its movetext (`games.movetext` NULL)
//! gets it written back from its moves, result and `ply_data` row
//! ([`crate::pgn::movetext`]), so that no reader sees the difference.

use std::sync::LazyLock;

use rusqlite::{Connection, OptionalExtension, Row};

use super::error::QueryError;
use crate::db::columns::{columns, select_list, Columns};
use crate::db::schema::Schema;
use crate::db::{GameId, Header};
use crate::pgn::movetext::{write_movetext, FirstMove, NotesForm, LINE_WIDTH};
use crate::store::format::plies::{PlyData, StoredNotes};

columns! {
    /// One stored game. Each field but `tags` is the `games` column of its
    /// name ([`GAME_COLUMNS`]).
    #[derive(Debug, Clone, Default, PartialEq, Eq)]
    pub struct Game {
        /// `games.id`.
        pub id: GameId,
        /// The tag columns.
        @flatten pub header: Header,
        /// Half-moves of the stored mainline.
        pub ply_count: u32,
        /// The start position, `None` for the standard one.
        pub start_fen: Option<String>,
        /// The final position (`None` when the FEN tag could not be read).
        pub final_fen: Option<String>,
        /// The mainline in canonical SAN, space separated.
        pub moves: String,
        /// The movetext as written, or written back when stored NULL (see
        /// [`Game::write_back_movetext`]).
        pub movetext: String,
        /// Why the replay stopped early, if it did.
        pub error: Option<String>,
        /// The other tag pairs, in stored order (empty unless loaded).
        @skip pub tags: Vec<(String, String)>,
        /// `games.movetext` is NULL: `movetext` is to be, or was, written
        /// back.
        @skip pub written_back: bool,
    }
}

/// The `games` columns of a [`Game`] for a query that names the table `g`,
/// read by [`Game::read_row`]: [`Columns::NAMES`] in order (a NULL
/// movetext read as empty), then whether the movetext is NULL.
pub static GAME_COLUMNS: LazyLock<String> = LazyLock::new(|| {
    let list = select_list::<Game>("g").replace("g.movetext", "ifnull(g.movetext, '')");
    format!("{list}, g.movetext IS NULL")
});

/// The number of columns in [`GAME_COLUMNS`].
pub const GAME_COLUMN_COUNT: usize = Game::NAMES.len() + 1;

/// The `ply_data` row of a game, for writing its movetext back.
const PLY_DATA: &str = "SELECT CAST(clocks AS TEXT), CAST(emts AS TEXT), CAST(evals AS TEXT), \
    nags, comments, notes_form, depths, \
    seldepths, nodes, notes_layout, tails FROM ply_data WHERE game_id = ?1";

/// [`PLY_DATA`] in a database before the engine notes.
const PLY_DATA_17: &str = "SELECT CAST(clocks AS TEXT), CAST(emts AS TEXT), CAST(evals AS TEXT), \
    nags, comments, notes_form, NULL, NULL, \
    NULL, NULL, NULL FROM ply_data WHERE game_id = ?1";

/// The principal variations of a game.
const PVS: &str = "SELECT id & 16777215, pv FROM ply_pvs \
    WHERE id BETWEEN ?1 * 16777216 AND ?1 * 16777216 + 16777215 ORDER BY id";

impl Game {
    /// Reads a row whose first columns are [`GAME_COLUMNS`]; a movetext
    /// stored NULL is left to [`Game::write_back_movetext`].
    ///
    /// # Errors
    /// SQLite's error for a column of an unexpected type.
    pub fn read_row(row: &Row<'_>) -> rusqlite::Result<Game> {
        let mut game = Game::from_row(row, 0)?;
        game.written_back = row.get(Game::NAMES.len())?;
        Ok(game)
    }

    /// Writes the movetext back into `movetext` for a game stored without
    /// it (nothing for the others): its moves, from its start position,
    /// with the notes of its `ply_data` row, and its result.
    ///
    /// # Errors
    /// [`QueryError::Sqlite`], or [`QueryError::Notes`] for a `ply_data`
    /// row that does not read back.
    pub fn write_back_movetext(&mut self, conn: &Connection) -> Result<(), QueryError> {
        if !self.written_back || !self.movetext.is_empty() {
            return Ok(());
        }
        let e = QueryError::sqlite(conn);
        let engine = Schema::of(conn).map_err(&e)?.has(Schema::ENGINE_NOTES);
        let mut row = conn
            .prepare_cached(if engine { PLY_DATA } else { PLY_DATA_17 })
            .and_then(|mut st| {
                st.query_row([self.id], |r| {
                    let data = PlyData {
                        clocks: r.get(0)?,
                        emts: r.get(1)?,
                        evals: r.get(2)?,
                        nags: r.get(3)?,
                        comments: r.get(4)?,
                        notes_form: r.get(5)?,
                        depths: r.get(6)?,
                        seldepths: r.get(7)?,
                        nodes: r.get(8)?,
                        notes_layout: r.get(9)?,
                        tails: r.get(10)?,
                        pvs: Vec::new(),
                        // Derived from the clocks: no movetext needs it.
                        clock_use: None,
                    };
                    Ok(data)
                })
                .optional()
            })
            .map_err(&e)?
            .unwrap_or_default();
        // Only a keyed comment writes its variation back.
        if row.notes_layout.is_some() {
            row.pvs = conn
                .prepare_cached(PVS)
                .and_then(|mut st| {
                    st.query_map([self.id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect()
                })
                .map_err(&e)?;
        }
        let result = self.header.result.as_deref().unwrap_or("*");
        self.movetext = written_back(&self.moves, self.start_fen.as_deref(), result, &row)
            .map_err(|column| QueryError::Notes { id: self.id, column })?;
        Ok(())
    }

    /// Loads the game's other tag pairs into `tags`.
    ///
    /// # Errors
    /// [`QueryError::Sqlite`].
    pub fn load_tags(&mut self, conn: &Connection) -> Result<(), QueryError> {
        let mut st = conn
            .prepare_cached("SELECT name, value FROM tags WHERE game_id = ?1 ORDER BY ord")
            .map_err(QueryError::sqlite(conn))?;
        self.tags = st
            .query_map([self.id], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(|rows| rows.collect())
            .map_err(QueryError::sqlite(conn))?;
        Ok(())
    }

    /// All tag pairs in export order: the seven-tag roster first (with the
    /// PGN placeholders `?`, `????.??.??` and `*` for missing ones), then
    /// the other columns that are set, then the stored tag pairs.
    pub fn tag_pairs(&self) -> Vec<(&str, String)> {
        let h = &self.header;
        let text = |v: &Option<String>, default: &str| v.clone().unwrap_or_else(|| default.into());
        let mut pairs = vec![
            ("Event", text(&h.event, "?")),
            ("Site", text(&h.site, "?")),
            ("Date", text(&h.date, "????.??.??")),
            ("Round", text(&h.round, "?")),
            ("White", text(&h.white, "?")),
            ("Black", text(&h.black, "?")),
            ("Result", text(&h.result, "*")),
        ];
        let optional = [
            ("WhiteElo", h.white_elo.map(|e| e.to_string())),
            ("BlackElo", h.black_elo.map(|e| e.to_string())),
            ("ECO", h.eco.clone()),
            ("Opening", h.opening.clone()),
            ("TimeControl", h.time_control.clone()),
            ("Termination", h.termination.clone()),
        ];
        pairs.extend(optional.into_iter().filter_map(|(name, v)| Some((name, v?))));
        pairs.extend(self.tags.iter().map(|(n, v)| (n.as_str(), v.clone())));
        pairs
    }
}

/// What a game says about one move of its mainline: a row of the `plies`
/// view less the game, ply and move.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlyNote {
    /// Seconds left on the mover's clock after the move.
    pub clock: Option<f64>,
    /// Seconds spent on the move.
    pub emt: Option<f64>,
    /// The evaluation in pawns, White's point of view.
    pub eval: Option<f64>,
    /// Moves to mate, positive when White mates.
    pub mate: Option<i64>,
    /// The NAGs, `$1 $18`.
    pub nags: Option<String>,
    /// The comment text, commands taken out.
    pub comment: Option<String>,
    /// The engine's search depth.
    pub depth: Option<i64>,
    /// The engine's selective depth.
    pub seldepth: Option<i64>,
    /// Nodes the engine searched.
    pub nodes: Option<i64>,
    /// The engine's principal variation, SAN.
    pub pv: Option<String>,
    /// `true` for a move its comment marks as a book move.
    pub book: bool,
}

/// The notes of each ply of game `id`'s mainline (index 0 = ply 1), read
/// from the `plies` view; empty when the game has none, or the database
/// predates the view (schema 10).
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn load_notes(conn: &Connection, id: GameId) -> Result<Vec<PlyNote>, QueryError> {
    let e = QueryError::sqlite(conn);
    let has_table: bool = conn
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ply_data')",
            [],
            |r| r.get(0),
        )
        .map_err(&e)?;
    let has_notes = has_table
        && conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM ply_data WHERE game_id = ?1)")
            .and_then(|mut st| st.query_row([id], |r| r.get(0)))
            .map_err(&e)?;
    if !has_notes {
        return Ok(Vec::new());
    }
    let engine = if Schema::of(conn).map_err(&e)?.has(Schema::ENGINE_NOTES) {
        "depth, seldepth, nodes, pv, book"
    } else {
        "NULL, NULL, NULL, NULL, NULL"
    };
    let sql = format!(
        "SELECT clock, emt, eval, mate, nags, comment, {engine} FROM plies \
         WHERE game_id = ?1 ORDER BY ply"
    );
    let mut st = conn.prepare_cached(&sql).map_err(&e)?;
    st.query_map([id], |r| {
        Ok(PlyNote {
            clock: r.get(0)?,
            emt: r.get(1)?,
            eval: r.get(2)?,
            mate: r.get(3)?,
            nags: r.get(4)?,
            comment: r.get(5)?,
            depth: r.get(6)?,
            seldepth: r.get(7)?,
            nodes: r.get(8)?,
            pv: r.get(9)?,
            book: r.get::<_, Option<i64>>(10)?.is_some(),
        })
    })
    .and_then(|rows| rows.collect())
    .map_err(&e)
}

/// The movetext of a game stored without it: `moves` (SAN, space
/// separated) from `start_fen` (the standard start for `None`), each with
/// its notes in `notes` (the game's `ply_data` row, empty for a game that
/// has none), then `result`; in lines as `export` writes them
/// ([`LINE_WIDTH`]).
///
/// # Errors
/// The name of the first `ply_data` column that is not as the import
/// writes it.
pub fn written_back(
    moves: &str,
    start_fen: Option<&str>,
    result: &str,
    notes: &PlyData,
) -> Result<String, &'static str> {
    let form = NotesForm::from_code(notes.notes_form, notes.notes_layout.as_deref())
        .ok_or("notes_form")?;
    let stored = StoredNotes::read(notes)?;
    let first = start_fen.map_or(FirstMove::STANDARD, FirstMove::of_fen);
    // Moves with their numbers, and a comment of about 20 bytes per note.
    let noted = [&notes.clocks, &notes.emts, &notes.evals]
        .iter()
        .map(|c| c.as_ref().map_or(0, String::len))
        .sum::<usize>();
    let mut text = String::with_capacity(2 * moves.len() + 4 * noted + 16);
    write_movetext(&mut text, LINE_WIDTH, moves, first, result, form, |ply| stored.ply(ply));
    Ok(text)
}

/// Reads game `id` with its tags; `None` if there is no such game.
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn load(conn: &Connection, id: GameId) -> Result<Option<Game>, QueryError> {
    let sql = format!("SELECT {} FROM games AS g WHERE g.id = ?1", *GAME_COLUMNS);
    let game =
        conn.query_row(&sql, [id], Game::read_row).optional().map_err(QueryError::sqlite(conn))?;
    match game {
        Some(mut game) => {
            game.write_back_movetext(conn)?;
            game.load_tags(conn)?;
            Ok(Some(game))
        }
        None => Ok(None),
    }
}

/// How much a stored game holds: what decides whether it can be answered
/// in one piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredSize {
    /// Its mainline's plies.
    pub plies: i64,
    /// The bytes of its stored texts: moves, movetext, tags and the notes
    /// of its plies.
    pub bytes: i64,
}

/// The size of game `id` as stored, read without loading its texts
/// (`octet_length` of a column reads no content); `None` if there is no
/// such game.
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn stored_size(conn: &Connection, id: GameId) -> Result<Option<StoredSize>, QueryError> {
    let e = QueryError::sqlite(conn);
    // Columns of a table (none for a view or a table this schema lacks).
    let columns = |table: &str| -> Result<Vec<String>, QueryError> {
        conn.prepare_cached(
            "SELECT p.name FROM sqlite_master AS m, pragma_table_info(m.name) AS p \
             WHERE m.type = 'table' AND m.name = ?1 AND p.name <> 'game_id'",
        )
        .and_then(|mut st| st.query_map([table], |r| r.get(0))?.collect())
        .map_err(QueryError::sqlite(conn))
    };
    // Schemas before the packed moves kept them in a `games` table.
    let mut base = "game_rows";
    let mut game_columns = columns(base)?;
    if game_columns.is_empty() {
        base = "games";
        game_columns = columns(base)?;
    }
    let mut parts: Vec<String> = ["movetext", "packed_moves", "moves"]
        .iter()
        .filter(|c| game_columns.iter().any(|g| g == *c))
        .map(|c| format!("coalesce(octet_length(r.{c}), 0)"))
        .collect();
    let text_columns = columns;
    let ply_data = text_columns("ply_data")?;
    if !ply_data.is_empty() {
        let sum: Vec<String> =
            ply_data.iter().map(|c| format!("coalesce(octet_length(\"{c}\"), 0)")).collect();
        parts.push(format!(
            "coalesce((SELECT {} FROM ply_data WHERE game_id = r.id), 0)",
            sum.join(" + ")
        ));
    }
    if !text_columns("game_tags")?.is_empty() {
        parts.push(
            "coalesce((SELECT octet_length(pairs) FROM game_tags WHERE game_id = r.id), 0)".into(),
        );
    }
    if !text_columns("ply_pvs")?.is_empty() {
        parts.push(
            "coalesce((SELECT sum(octet_length(pv)) FROM ply_pvs \
             WHERE id >= r.id << 24 AND id < (r.id + 1) << 24), 0)"
                .into(),
        );
    }
    parts.push("0".into());
    let sql = format!("SELECT r.ply_count, {} FROM {base} AS r WHERE r.id = ?1", parts.join(" + "));
    conn.prepare_cached(&sql)
        .and_then(|mut st| {
            st.query_row([id], |r| Ok(StoredSize { plies: r.get(0)?, bytes: r.get(1)? })).optional()
        })
        .map_err(e)
}
