//! Novelties: where a game leaves the database's games. The first ply
//! whose position (by its key, whatever the move order) no other game
//! that the filters keep reached, the move that got there, and what was
//! known of the position before it: its games, their moves and results,
//! the last of them.

use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};

use super::error::QueryError;
use super::explore::{explore, MoveStats};
use super::filter::Filters;
use super::search::Search;
use super::target::Target;
use crate::chess::Position;
use crate::db::GameId;

/// A game's mainline as the search needs it.
#[derive(Debug, Clone)]
pub struct Line {
    /// Each position, the start first: one more than the moves.
    pub positions: Vec<Position>,
    /// Each position's key as the index holds it.
    pub keys: Vec<u64>,
    /// Each move in SAN.
    pub sans: Vec<String>,
}

/// The known position a game left the database from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// The games that reached it.
    pub games: u64,
    /// Their moves from there, most played first.
    pub moves: Vec<MoveStats>,
    /// The game with the highest id among them.
    pub last: Option<GameId>,
}

/// Where a game leaves the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Novelty {
    /// The 1-based ply of the move that reaches a position no other game
    /// reached; `None` when the game never leaves the database.
    pub ply: Option<u32>,
    /// That move in SAN.
    pub san: Option<String>,
    /// The position before it, as the database knows it.
    pub known: Option<Known>,
}

/// `true` if a game that `filters` keep reaches the position of `key`.
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn reached(conn: &Connection, key: u64, filters: &Filters) -> Result<bool, QueryError> {
    let sql = filters.sql_for(conn)?;
    let query = if filters.is_empty() {
        "SELECT 1 FROM positions WHERE hash = ? LIMIT 1".to_string()
    } else {
        format!(
            "SELECT 1 FROM positions AS p JOIN {} AS g ON g.id = p.game_id \
             WHERE p.hash = ?{} LIMIT 1",
            sql.table, sql.sql
        )
    };
    let mut params = vec![Value::Integer(key as i64)];
    params.extend(sql.params);
    let mut statement = conn.prepare_cached(&query).map_err(QueryError::sqlite(conn))?;
    statement.exists(params_from_iter(params)).map_err(QueryError::sqlite(conn))
}

/// The novelty of `line` against the games `filters` keep (which leave
/// the game itself out).
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn novelty(conn: &Connection, line: &Line, filters: &Filters) -> Result<Novelty, QueryError> {
    for ply in 1..line.keys.len() {
        if reached(conn, line.keys[ply], filters)? {
            continue;
        }
        let before = ply - 1;
        let target = Target {
            position: line.positions[before].clone(),
            key: line.keys[before] as i64,
            last_move: None,
        };
        let search = Search { target: Some(target), filters: filters.clone(), summaries: None };
        let explorer = explore(conn, &search)?;
        let last = search.last_hits(conn, 1)?.first().map(|hit| hit.game_id);
        return Ok(Novelty {
            ply: Some(ply as u32),
            san: line.sans.get(before).cloned(),
            known: Some(Known { games: explorer.games, moves: explorer.moves, last }),
        });
    }
    Ok(Novelty { ply: None, san: None, known: None })
}

/// The stored games that are `line` itself: the same moves between the
/// same players (`white` and `black` as stored), found among the games
/// that end in its last position. At most `limit` candidates are read.
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn copies(
    conn: &Connection,
    line: &Line,
    white: Option<&str>,
    black: Option<&str>,
    limit: usize,
) -> Result<Vec<GameId>, QueryError> {
    let e = QueryError::sqlite(conn);
    let Some(&last) = line.keys.last() else { return Ok(Vec::new()) };
    let moves = line.sans.join(" ");
    let candidates: Vec<GameId> = conn
        .prepare_cached("SELECT DISTINCT game_id FROM positions WHERE hash = ?1 LIMIT ?2")
        .and_then(|mut st| {
            st.query_map(rusqlite::params![last as i64, limit as i64], |r| r.get(0))?.collect()
        })
        .map_err(&e)?;
    let mut same = Vec::new();
    let mut read =
        conn.prepare_cached("SELECT white, black, moves FROM games WHERE id = ?1").map_err(&e)?;
    for id in candidates {
        let (w, b, m): (Option<String>, Option<String>, String) =
            read.query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).map_err(&e)?;
        if m == moves && w.as_deref() == white && b.as_deref() == black {
            same.push(id);
        }
    }
    Ok(same)
}
