//! The stored mainlines that header filters select, in id order, for
//! whatever plays them from their start (`book`): each game's result,
//! start position and moves, read from `game_rows` without the `games`
//! view's decoding of the moves in SQL.

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use super::error::QueryError;
use super::filter::Filters;
use crate::db::move_codes;
use crate::db::packed_moves;
use crate::db::GameId;

/// One stored game's mainline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mainline {
    /// `games.id`.
    pub id: GameId,
    /// `games.result`: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// `games.start_fen`: `None` for the standard start.
    pub start_fen: Option<String>,
    /// The moves.
    pub moves: StoredMoves,
}

/// A mainline's moves as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredMoves {
    /// Two bytes a move ([`move_codes`]).
    Codes(Vec<u8>),
    /// Canonical SAN, space separated.
    Text(String),
}

impl StoredMoves {
    /// The SAN of each move in order; `None` for a code that stands for
    /// no text (a database changed by hand).
    pub fn sans(&self) -> impl Iterator<Item = Option<&str>> {
        self.coded_sans().map(|m| m.map(|(san, _)| san))
    }

    /// [`StoredMoves::sans`] with each move's [`move_codes`] code (`None`
    /// for a text without one): read from the codes as stored, looked up
    /// only for moves stored as text.
    pub fn coded_sans(&self) -> impl Iterator<Item = Option<(&str, Option<u16>)>> {
        let (codes, text): (&[u8], &str) = match self {
            StoredMoves::Codes(codes) => (codes, ""),
            StoredMoves::Text(text) => (&[], text),
        };
        let coded = codes.chunks_exact(2).map(|c| {
            let code = u16::from_be_bytes([c[0], c[1]]);
            move_codes::san(code).map(|san| (san, Some(code)))
        });
        coded.chain(text.split_ascii_whitespace().map(|san| Some((san, move_codes::code(san)))))
    }
}

/// Reads the mainlines of the games `filters` select, in id order, `batch`
/// at a time, and gives each batch to `each`, which returns `false` to
/// stop. Returns the number of games read.
///
/// # Errors
/// [`QueryError::Sqlite`]; [`QueryError::Predates`] for a filter the
/// database predates.
pub fn read_mainlines(
    conn: &Connection,
    filters: &Filters,
    batch: usize,
    mut each: impl FnMut(Vec<Mainline>) -> bool,
) -> Result<u64, QueryError> {
    let filter = filters.sql_for(conn)?;
    let moves = if filter.table == "game_rows" { "g.packed_moves" } else { "g.moves" };
    let sql = format!(
        "SELECT g.id, g.result, g.start_fen, {moves} FROM {} AS g WHERE 1 {} ORDER BY g.id",
        filter.table, filter.sql
    );
    let e = QueryError::sqlite(conn);
    let mut statement = conn.prepare(&sql).map_err(&e)?;
    let mut rows = statement.query(rusqlite::params_from_iter(filter.params.iter())).map_err(&e)?;
    let mut games = Vec::with_capacity(batch);
    let mut read = 0;
    while let Some(row) = rows.next().map_err(&e)? {
        let moves = match row.get_ref(3).map_err(&e)? {
            ValueRef::Blob(codes) => StoredMoves::Codes(codes.to_vec()),
            ValueRef::Text(text) if filter.table == "game_rows" => {
                StoredMoves::Text(packed_moves::unpack(&String::from_utf8_lossy(text)))
            }
            ValueRef::Text(text) => StoredMoves::Text(String::from_utf8_lossy(text).into_owned()),
            _ => StoredMoves::Text(String::new()),
        };
        games.push(Mainline {
            id: row.get(0).map_err(&e)?,
            result: row.get::<_, Option<String>>(1).map_err(&e)?.unwrap_or_default(),
            start_fen: row.get(2).map_err(&e)?,
            moves,
        });
        read += 1;
        if games.len() == batch && !each(std::mem::replace(&mut games, Vec::with_capacity(batch))) {
            return Ok(read);
        }
    }
    if !games.is_empty() {
        each(games);
    }
    Ok(read)
}
