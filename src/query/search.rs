//! A search: an optional [`Target`] position and header [`Filters`], run
//! as one SQL statement with bound parameters. [`Search::find`] streams
//! the matching games in id order, each hash hit verified by replaying
//! the game to that ply; [`Search::count`] counts games by key.
//!
//! Verification: a key hit is accepted only if the game replayed to that
//! ply is the target position (see [`Target::matches`]); otherwise the
//! game's later hits are tried, and a game with no true hit is left out
//! (a 64-bit collision, or a game that no longer replays). `count` does
//! not replay (that would read every game): it counts distinct games by
//! key, so it could only be wrong by a 64-bit key collision.

use std::io;
use std::ops::ControlFlow;

use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};

use super::filter::Filters;
use super::game::{Game, GAME_COLUMNS};
use super::replay::{Replay, ReplayError};
use super::target::Target;

/// A query that failed.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// SQLite failed reading the database.
    #[error("{path}: {source}")]
    Sqlite {
        /// The database file.
        path: String,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// No game has this id.
    #[error("no game with id {0}")]
    NoSuchGame(i64),
    /// A stored game does not replay.
    #[error("game {id}: {source}")]
    Replay {
        /// The game.
        id: i64,
        /// What failed.
        source: ReplayError,
    },
    /// Writing the results failed (a closed pipe, a full disk).
    #[error("writing the output")]
    Output(#[source] io::Error),
}

impl QueryError {
    /// Wraps SQLite errors of `conn` with its file name.
    pub fn sqlite(conn: &Connection) -> impl Fn(rusqlite::Error) -> QueryError + '_ {
        move |source| QueryError::Sqlite {
            path: conn.path().filter(|p| !p.is_empty()).unwrap_or(":memory:").to_string(),
            source,
        }
    }
}

/// What to look for.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// The position the games must pass through, if any.
    pub target: Option<Target>,
    /// Header conditions.
    pub filters: Filters,
}

/// Which of the matching games to return (default: all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Page {
    /// Matching games to skip first.
    pub offset: u64,
    /// At most this many games (`None`: all).
    pub limit: Option<u64>,
}

/// A matching game.
#[derive(Debug, Clone)]
pub struct Found {
    /// The game (with its tags if asked for).
    pub game: Game,
    /// The first ply where the target position occurs (`None` without a
    /// target).
    pub ply: Option<u32>,
}

/// What a [`Search::find`] saw besides the games it returned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FindStats {
    /// Games returned.
    pub returned: u64,
    /// `true` if the page ended before the matching games did.
    pub more: bool,
    /// Games with a key hit that did not replay to the target (left out).
    pub rejected: u64,
}

impl Search {
    /// The SQL of the games that match by key and filters, in id order,
    /// with the first ply of the hit as column 0 (NULL without a target)
    /// and [`GAME_COLUMNS`] after; and its parameters.
    fn games_sql(&self) -> (String, Vec<Value>) {
        let filters = self.filters.to_sql();
        let mut params = Vec::new();
        let sql = match &self.target {
            Some(t) => {
                params.push(Value::Integer(t.key));
                format!(
                    "SELECT min(p.ply), {GAME_COLUMNS} FROM positions AS p \
                     JOIN games AS g ON g.id = p.game_id WHERE p.hash = ?{} \
                     GROUP BY p.game_id ORDER BY p.game_id",
                    filters.sql
                )
            }
            None => format!(
                "SELECT NULL, {GAME_COLUMNS} FROM games AS g WHERE 1{} ORDER BY g.id",
                filters.sql
            ),
        };
        params.extend(filters.params);
        (sql, params)
    }

    /// Counts the matching games (by key, without replay: see the module
    /// docs).
    ///
    /// # Errors
    /// [`QueryError::Sqlite`].
    pub fn count(&self, conn: &Connection) -> Result<u64, QueryError> {
        let filters = self.filters.to_sql();
        let mut params = Vec::new();
        let sql = match &self.target {
            None => format!("SELECT count(*) FROM games AS g WHERE 1{}", filters.sql),
            Some(t) => {
                params.push(Value::Integer(t.key));
                if self.filters.is_empty() {
                    "SELECT count(*) FROM (SELECT DISTINCT game_id FROM positions WHERE hash = ?)"
                        .to_string()
                } else {
                    format!(
                        "SELECT count(*) FROM (SELECT p.game_id FROM positions AS p \
                         JOIN games AS g ON g.id = p.game_id WHERE p.hash = ?{} \
                         GROUP BY p.game_id)",
                        filters.sql
                    )
                }
            }
        };
        params.extend(filters.params);
        let n: i64 = conn
            .query_row(&sql, params_from_iter(&params), |r| r.get(0))
            .map_err(QueryError::sqlite(conn))?;
        Ok(n as u64)
    }

    /// Calls `each` for the matching games of `page`, in id order (with
    /// their tag pairs when `with_tags`). Hash hits are verified by replay;
    /// `offset` and `limit` count verified games only.
    ///
    /// # Errors
    /// [`QueryError::Sqlite`], or [`QueryError::Output`] when `each` fails.
    pub fn find(
        &self,
        conn: &Connection,
        page: Page,
        with_tags: bool,
        mut each: impl FnMut(Found) -> io::Result<()>,
    ) -> Result<FindStats, QueryError> {
        let (mut sql, mut params) = self.games_sql();
        let mut skip = page.offset;
        if self.target.is_none() && skip > 0 {
            // Nothing to verify: SQLite skips the rows itself.
            sql += " LIMIT -1 OFFSET ?";
            params.push(Value::Integer(skip as i64));
            skip = 0;
        }
        let mut stats = FindStats::default();
        let mut st = conn.prepare(&sql).map_err(QueryError::sqlite(conn))?;
        let mut rows = st.query(params_from_iter(&params)).map_err(QueryError::sqlite(conn))?;
        while let Some(row) = rows.next().map_err(QueryError::sqlite(conn))? {
            if page.limit.is_some_and(|l| stats.returned >= l) {
                stats.more = true;
                break;
            }
            let first: Option<u32> = row.get(0).map_err(QueryError::sqlite(conn))?;
            let mut game = Game::from_row(row, 1).map_err(QueryError::sqlite(conn))?;
            let ply = match (&self.target, first) {
                (Some(target), Some(first)) => match verify(conn, target, &game, first)? {
                    Some(ply) => Some(ply),
                    None => {
                        stats.rejected += 1;
                        continue;
                    }
                },
                _ => None,
            };
            if skip > 0 {
                skip -= 1;
                continue;
            }
            if with_tags {
                game.load_tags(conn)?;
            }
            each(Found { game, ply }).map_err(QueryError::Output)?;
            stats.returned += 1;
        }
        Ok(stats)
    }

    /// Calls `each` with every matching game's first hit: its id, the ply,
    /// the move played from there ([`crate::notation::uci::Uci::code`],
    /// `None` at the end of the game) and the columns the explorer counts.
    /// Not verified by replay (see the module docs).
    ///
    /// # Errors
    /// [`QueryError::Sqlite`].
    pub fn for_each_hit(
        &self,
        conn: &Connection,
        mut each: impl FnMut(Hit) -> ControlFlow<()>,
    ) -> Result<(), QueryError> {
        let Some(target) = &self.target else { return Ok(()) };
        let filters = self.filters.to_sql();
        // SQLite takes the bare columns of a min() query from the row with
        // the minimum: the move played the first time the game got there.
        let sql = format!(
            "SELECT p.game_id, min(p.ply), p.next_move, g.result, g.white_elo, g.black_elo, \
             g.date FROM positions AS p JOIN games AS g ON g.id = p.game_id \
             WHERE p.hash = ?{} GROUP BY p.game_id",
            filters.sql
        );
        let mut params = vec![Value::Integer(target.key)];
        params.extend(filters.params);
        let mut st = conn.prepare(&sql).map_err(QueryError::sqlite(conn))?;
        let mut rows = st.query(params_from_iter(&params)).map_err(QueryError::sqlite(conn))?;
        while let Some(row) = rows.next().map_err(QueryError::sqlite(conn))? {
            let hit = (|| {
                Ok::<_, rusqlite::Error>(Hit {
                    game_id: row.get(0)?,
                    ply: row.get(1)?,
                    next_move: row.get(2)?,
                    result: row.get_ref(3)?.as_str_or_null()?.and_then(Outcome::from_result),
                    white_elo: row.get(4)?,
                    black_elo: row.get(5)?,
                    date: row.get(6)?,
                })
            })()
            .map_err(QueryError::sqlite(conn))?;
            if each(hit).is_break() {
                break;
            }
        }
        Ok(())
    }
}

/// A game's result as the explorer counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// 1-0.
    WhiteWins,
    /// 1/2-1/2.
    Draw,
    /// 0-1.
    BlackWins,
}

impl Outcome {
    /// The outcome of a stored result; `None` for `*` and anything else.
    pub fn from_result(result: &str) -> Option<Outcome> {
        match result {
            "1-0" => Some(Outcome::WhiteWins),
            "1/2-1/2" => Some(Outcome::Draw),
            "0-1" => Some(Outcome::BlackWins),
            _ => None,
        }
    }
}

/// A game's first occurrence of the target, as the explorer reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The game.
    pub game_id: i64,
    /// The ply of the first occurrence.
    pub ply: u32,
    /// The move played from there (compact code), `None` at the game's end.
    pub next_move: Option<u16>,
    /// The result, if decisive or drawn.
    pub result: Option<Outcome>,
    /// White's rating.
    pub white_elo: Option<i64>,
    /// Black's rating.
    pub black_elo: Option<i64>,
    /// The date as stored.
    pub date: Option<String>,
}

/// The first ply, from `first` on, where `game` really is at `target`;
/// `None` if none of its key hits is.
fn verify(
    conn: &Connection,
    target: &Target,
    game: &Game,
    first: u32,
) -> Result<Option<u32>, QueryError> {
    let mut replay = match Replay::new(game.start_fen.as_deref(), &game.moves) {
        Ok(r) => r,
        Err(_) => return Ok(None),
    };
    let at = |replay: &mut Replay<'_>, ply: u32| -> bool {
        matches!(replay.advance_to(ply), Ok(true)) && target.matches(replay.position())
    };
    if at(&mut replay, first) {
        return Ok(Some(first));
    }
    // A collision at `first`: try the game's later hits, in order.
    let mut st = conn
        .prepare_cached(
            "SELECT ply FROM positions WHERE hash = ?1 AND game_id = ?2 AND ply > ?3 ORDER BY ply",
        )
        .map_err(QueryError::sqlite(conn))?;
    let plies: Vec<u32> = st
        .query_map((target.key, game.id, first), |r| r.get(0))
        .and_then(|rows| rows.collect())
        .map_err(QueryError::sqlite(conn))?;
    for ply in plies {
        if at(&mut replay, ply) {
            return Ok(Some(ply));
        }
    }
    Ok(None)
}
