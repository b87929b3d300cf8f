//! The stored player names that contain a part of a name, matched as
//! `--player` matches it (case-insensitive, ASCII letters only, as SQLite's
//! `LIKE` folds them): what a search box offers before a name is whole.
//!
//! Spellings that differ only in letter case are one name, written as most
//! of its games write it, since a whole-name match (`--exact-names`, the
//! explorer's `/player`) treats them as one.

use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};

use super::error::QueryError;
use super::filter::Filters;

/// A stored name and its games, either colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerName {
    /// The name as most of its games write it.
    pub name: String,
    /// The games with it on either side, in any letter case.
    pub games: u64,
}

/// At most `limit` names containing `part`, most games first (ties by
/// name). Names that are empty or only `?` and `-` are no player.
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn matching(
    conn: &Connection,
    part: &str,
    limit: usize,
) -> Result<Vec<PlayerName>, QueryError> {
    let e = QueryError::sqlite(conn);
    // Each side's condition is the one `--white` and `--black` use.
    let white = Filters { white: Some(part.to_string()), ..Filters::default() }.sql_for(conn)?;
    let black = Filters { black: Some(part.to_string()), ..Filters::default() }.sql_for(conn)?;
    let sql = format!(
        "WITH sides (name) AS ( \
           SELECT g.white FROM games AS g WHERE g.id IN (SELECT g.id FROM {} AS g WHERE 1{}) \
           UNION ALL \
           SELECT g.black FROM games AS g WHERE g.id IN (SELECT g.id FROM {} AS g WHERE 1{})), \
         spellings AS ( \
           SELECT name, count(*) AS n FROM sides WHERE trim(name, '?- ') <> '' GROUP BY name), \
         ranked AS ( \
           SELECT name, sum(n) OVER (PARTITION BY lower(name)) AS games, \
                  row_number() OVER (PARTITION BY lower(name) ORDER BY n DESC, name) AS place \
           FROM spellings) \
         SELECT name, games FROM ranked WHERE place = 1 ORDER BY games DESC, name LIMIT ?",
        white.table, white.sql, black.table, black.sql
    );
    let mut params = white.params;
    params.extend(black.params);
    params.push(Value::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
    let mut st = conn.prepare(&sql).map_err(&e)?;
    let rows = st
        .query_map(params_from_iter(&params), |r| {
            Ok(PlayerName { name: r.get(0)?, games: r.get::<_, i64>(1)?.try_into().unwrap_or(0) })
        })
        .map_err(&e)?;
    rows.collect::<Result<_, _>>().map_err(&e)
}
