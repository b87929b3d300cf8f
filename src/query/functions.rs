//! SQL functions that `pgnindex sql` adds to its connection. The schema
//! never needs them: the database stays usable from any SQLite tool.
//!
//! - `polyglot_key(fen)` → the INTEGER stored in `positions.hash` (full or
//!   four-field FEN; an unreadable FEN, or one of fewer than four fields, is
//!   an error);
//! - `fen_at(game_id, ply)` → the FEN after `ply` moves of the game, by
//!   replay; NULL if there is no such game or ply;
//! - `material_at(game_id, ply)` → the material there as a `--material`
//!   spec (`KRP-KR`: kings, then Q R B N P); NULL as for `fen_at`;
//! - `piece_at(game_id, ply, square)` → the piece on a square (`'a1'` to
//!   `'h8'`) there as its FEN letter (`'N'`, `'p'`), NULL for an empty
//!   square, no such game or ply; a bad square is an error;
//! - `san_to_uci(fen, san)` → the UCI of a move (SAN in any dialect the
//!   core reads); NULL if the move cannot be read or played there; the FEN
//!   is read as for `polyglot_key`.
//! - `written_movetext(moves, result, start_fen, clocks, emts, evals, nags,
//!   comments, notes_form[, depths, seldepths, nodes, notes_layout, tails,
//!   pvs])` → the movetext of a game stored without one
//!   (`games.movetext` NULL), from its `games` and `ply_data` columns;
//!   NULL when `moves` is; NULL `ply_data` columns are plies without
//!   notes, a NULL result is `*`, a NULL start FEN the standard start; a
//!   `ply_data` column not as the import writes it is an error.
//!
//! Any other NULL argument gives NULL.
//!
//! [`create_views`] adds the TEMP view `movetexts(game_id, movetext)`: every
//! game's movetext, as stored or written back.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::game::written_back;
use crate::chess::{Material, Position, Square};
use crate::db::schema::Schema;
use crate::db::GameId;
use crate::notation::fen;
use crate::notation::material::write_material;
use crate::notation::san;
use crate::notation::uci::Uci;
use crate::replay::stored::position_at;
use crate::store::format::plies::PlyData;

/// The names of the functions [`register`] adds.
pub const NAMES: [&str; 6] =
    ["polyglot_key", "fen_at", "material_at", "piece_at", "san_to_uci", "written_movetext"];

fn user_error(message: String) -> rusqlite::Error {
    rusqlite::Error::UserFunctionError(message.into())
}

/// A text argument; `None` for NULL. A BLOB is read as its bytes' text
/// (the packed `ply_data` columns are BLOBs).
fn text_arg(ctx: &Context<'_>, i: usize) -> rusqlite::Result<Option<String>> {
    match ctx.get_raw(i) {
        rusqlite::types::ValueRef::Blob(bytes) => String::from_utf8(bytes.to_vec())
            .map(Some)
            .map_err(|e| rusqlite::Error::UserFunctionError(Box::new(e))),
        _ => ctx.get::<Option<String>>(i),
    }
}

/// Adds the functions to `conn`. `fen_at` reads games through a second,
/// read-only connection to `path` (opened at its first call), so it sees
/// committed games.
///
/// # Errors
/// SQLite's error if a function cannot be created.
pub fn register(conn: &Connection, path: &Path) -> rusqlite::Result<()> {
    let pure = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("polyglot_key", 1, pure, |ctx| {
        let Some(text) = text_arg(ctx, 0)? else { return Ok(None) };
        let pos = fen::parse_position_strict(text.trim())
            .map_err(|e| user_error(format!("polyglot_key: {e}")))?;
        Ok(Some(pos.zobrist().as_i64()))
    })?;
    conn.create_scalar_function("san_to_uci", 2, pure, |ctx| {
        let (Some(fen_text), Some(move_text)) = (text_arg(ctx, 0)?, text_arg(ctx, 1)?) else {
            return Ok(None);
        };
        let pos = fen::parse_position_strict(fen_text.trim())
            .map_err(|e| user_error(format!("san_to_uci: {e}")))?;
        let replay = san::replay(&pos, &[move_text.trim().as_bytes()], None);
        if replay.error.is_some() {
            return Ok(None);
        }
        Ok(replay.moves.first().map(|m| m.map_or(Uci::Null, Uci::from_move).to_string()))
    })?;
    for arity in [9, 15] {
        conn.create_scalar_function("written_movetext", arity, pure, written_movetext)?;
    }
    let reader = Arc::new(GameReader { path: path.to_path_buf(), conn: Mutex::new(None) });
    let (fens, materials, pieces) = (reader.clone(), reader.clone(), reader);
    conn.create_scalar_function("fen_at", 2, FunctionFlags::SQLITE_UTF8, move |ctx| {
        let pos = fens.position_at(ctx, "fen_at")?;
        Ok(pos.map(|p| fen::write(&p)))
    })?;
    conn.create_scalar_function("material_at", 2, FunctionFlags::SQLITE_UTF8, move |ctx| {
        let pos = materials.position_at(ctx, "material_at")?;
        Ok(pos.map(|p| write_material(&Material::of(p.board()))))
    })?;
    conn.create_scalar_function("piece_at", 3, FunctionFlags::SQLITE_UTF8, move |ctx| {
        let Some(text) = text_arg(ctx, 2)? else { return Ok(None) };
        let square = Square::from_ascii(text.trim().as_bytes())
            .ok_or_else(|| user_error(format!("piece_at: '{text}' is not a square (a1 to h8)")))?;
        let pos = pieces.position_at(ctx, "piece_at")?;
        Ok(pos.and_then(|p| p.board().piece_at(square)).map(|p| p.char().to_string()))
    })?;
    Ok(())
}

/// `written_movetext(…)` of [`register`]: 9 arguments (the columns before
/// the engine notes) or 15.
fn written_movetext(ctx: &Context<'_>) -> rusqlite::Result<Option<String>> {
    let Some(moves) = text_arg(ctx, 0)? else { return Ok(None) };
    let result = text_arg(ctx, 1)?;
    let start_fen = text_arg(ctx, 2)?;
    let mut notes = PlyData {
        clocks: text_arg(ctx, 3)?,
        emts: text_arg(ctx, 4)?,
        evals: text_arg(ctx, 5)?,
        nags: text_arg(ctx, 6)?,
        comments: text_arg(ctx, 7)?,
        notes_form: ctx.get::<Option<i64>>(8)?,
        ..PlyData::default()
    };
    if ctx.len() == 15 {
        notes.depths = text_arg(ctx, 9)?;
        notes.seldepths = text_arg(ctx, 10)?;
        notes.nodes = text_arg(ctx, 11)?;
        notes.notes_layout = text_arg(ctx, 12)?;
        notes.tails = text_arg(ctx, 13)?;
        if let Some(pvs) = text_arg(ctx, 14)? {
            let bad = || user_error("written_movetext: pvs is not as pgnindex writes it".into());
            let object: std::collections::BTreeMap<String, String> =
                serde_json::from_str(&pvs).map_err(|_| bad())?;
            notes.pvs = object
                .into_iter()
                .map(|(ply, pv)| Ok((ply.parse().map_err(|_| bad())?, pv)))
                .collect::<rusqlite::Result<_>>()?;
        }
    }
    let text = written_back(&moves, start_fen.as_deref(), result.as_deref().unwrap_or("*"), &notes)
        .map_err(|column| {
            user_error(format!("written_movetext: {column} is not as pgnindex writes it"))
        })?;
    Ok(Some(text))
}

/// The SQL expression of a game's movetext, as stored or written back by
/// `written_movetext`, over `games AS g LEFT JOIN ply_data AS d` in a
/// database of `schema` ([`Schema::WRITTEN_BACK`] or later).
pub fn movetext_sql(schema: Schema) -> &'static str {
    if schema.has(Schema::ENGINE_NOTES) {
        "coalesce(g.movetext, written_movetext(g.moves, g.result, g.start_fen, d.clocks, \
         d.emts, d.evals, d.nags, d.comments, d.notes_form, d.depths, d.seldepths, d.nodes, \
         d.notes_layout, d.tails, CASE WHEN d.notes_layout IS NOT NULL THEN \
         (SELECT json_group_object(p.id & 16777215, p.pv) FROM ply_pvs AS p \
          WHERE p.id BETWEEN g.id * 16777216 AND g.id * 16777216 + 16777215) END))"
    } else {
        "coalesce(g.movetext, written_movetext(g.moves, g.result, g.start_fen, d.clocks, \
         d.emts, d.evals, d.nags, d.comments, d.notes_form))"
    }
}

/// Adds the TEMP view `movetexts(game_id, movetext)` to `conn` (with the
/// functions of [`register`]): each game's movetext as stored, or written
/// back by `written_movetext` when stored NULL.
///
/// # Errors
/// SQLite's error if the view cannot be created.
pub fn create_views(conn: &Connection) -> rusqlite::Result<()> {
    let schema = Schema::of(conn)?;
    let sql = if schema.has(Schema::WRITTEN_BACK) {
        format!(
            "CREATE TEMP VIEW movetexts AS SELECT g.id AS game_id, {} AS movetext \
             FROM games AS g LEFT JOIN ply_data AS d ON d.game_id = g.id",
            movetext_sql(schema)
        )
    } else {
        // Every game of an older database has its movetext.
        "CREATE TEMP VIEW movetexts AS SELECT id AS game_id, movetext FROM games".to_string()
    };
    conn.execute_batch(&sql)
}

/// Reads games for `fen_at`, `material_at` and `piece_at` through its own
/// connection.
struct GameReader {
    path: PathBuf,
    conn: Mutex<Option<Connection>>,
}

impl GameReader {
    /// The position of arguments 0 (game id) and 1 (ply) of `ctx`, for the
    /// function `name`; `None` for NULL arguments, no such game or ply.
    fn position_at(&self, ctx: &Context<'_>, name: &str) -> rusqlite::Result<Option<Position>> {
        let (Some(id), Some(ply)) = (ctx.get::<Option<i64>>(0)?, ctx.get::<Option<i64>>(1)?) else {
            return Ok(None);
        };
        // No game has an id out of range.
        let Ok(id) = GameId::try_from(id) else { return Ok(None) };
        let Ok(ply) = u32::try_from(ply) else { return Ok(None) };
        let mut guard = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            *guard = Some(Connection::open_with_flags(&self.path, flags)?);
        }
        let conn = guard.as_ref().expect("opened above");
        let game: Option<(Option<String>, String)> = conn
            .prepare_cached("SELECT start_fen, moves FROM games WHERE id = ?1")?
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((start_fen, moves)) = game else { return Ok(None) };
        position_at(start_fen.as_deref(), &moves, ply)
            .map_err(|e| user_error(format!("{name}: game {id}: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_work_in_sql() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE games (id INTEGER PRIMARY KEY, start_fen TEXT, moves TEXT NOT NULL);
             INSERT INTO games VALUES (1, NULL, 'e4 e5 Nf3'), (2, '8/8/8/8/8/8/8/K6k w - - 0 1', 'Kb2');",
        )
        .unwrap();
        register(&conn, &path).unwrap();
        let q = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, rusqlite::types::Value>(0));
        use rusqlite::types::Value::{Integer, Null, Text};
        assert_eq!(
            q("SELECT polyglot_key('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1')")
                .unwrap(),
            Integer(0x823c9b50fd114196_u64 as i64)
        );
        assert_eq!(q("SELECT polyglot_key(NULL)").unwrap(), Null);
        let err = q("SELECT polyglot_key('nonsense')").unwrap_err().to_string();
        assert!(err.contains("polyglot_key: invalid FEN"), "{err}");
        let err = q(&format!("SELECT san_to_uci('{}', 'Nf3')", "8/8/8/8/8/8/8/K6k w"));
        let err = err.unwrap_err().to_string();
        assert!(err.ends_with("the castling and en-passant fields are missing"), "{err}");
        assert_eq!(
            q("SELECT fen_at(1, 3)").unwrap(),
            Text("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2".into())
        );
        assert_eq!(q("SELECT fen_at(2, 1)").unwrap(), Text("8/8/8/8/8/8/1K6/7k b - - 1 1".into()));
        assert_eq!(q("SELECT fen_at(1, 4)").unwrap(), Null);
        assert_eq!(q("SELECT fen_at(9, 0)").unwrap(), Null);
        assert_eq!(q("SELECT fen_at(1, -1)").unwrap(), Null);
        assert_eq!(q("SELECT fen_at(-1, 0)").unwrap(), Null);
        assert_eq!(q("SELECT fen_at(4294967297, 0)").unwrap(), Null, "not game 1");
        let full = "KQRRBBNNPPPPPPPP";
        assert_eq!(q("SELECT material_at(1, 3)").unwrap(), Text(format!("{full}-{full}")));
        assert_eq!(q("SELECT material_at(2, 1)").unwrap(), Text("K-K".into()));
        assert_eq!(q("SELECT material_at(2, 2)").unwrap(), Null);
        assert_eq!(q("SELECT piece_at(1, 3, 'f3')").unwrap(), Text("N".into()));
        assert_eq!(q("SELECT piece_at(1, 3, 'e5')").unwrap(), Text("p".into()));
        assert_eq!(q("SELECT piece_at(1, 3, 'g1')").unwrap(), Null);
        assert_eq!(q("SELECT piece_at(1, 3, NULL)").unwrap(), Null);
        let err = q("SELECT piece_at(1, 3, 'i9')").unwrap_err().to_string();
        assert!(err.contains("piece_at: 'i9' is not a square"), "{err}");
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let uci = |san: &str| q(&format!("SELECT san_to_uci('{start}', '{san}')")).unwrap();
        assert_eq!(uci("Nf3"), Text("g1f3".into()));
        assert_eq!(uci("Cf3"), Text("g1f3".into()), "French letters");
        assert_eq!(uci("e2e4"), Text("e2e4".into()));
        assert_eq!(uci("Nf4"), Null);
        assert_eq!(uci("xyz"), Null);
        assert_eq!(
            q("SELECT polyglot_key(fen_at(1, 1)) = (SELECT 0x823c9b50fd114196)").unwrap(),
            Integer(1)
        );
    }
}
