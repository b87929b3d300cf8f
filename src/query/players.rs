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

/// Distinct names held at most by [`NameCounts`] (some 100 MB): past it,
/// the names are searched in the database.
pub const MAX_NAMES: usize = 1 << 21;

/// The games of every stored name, held in memory by a process that
/// answers many name searches (`serve`'s `/api/players`): the games are
/// read once, then only those stored since; all again when games went
/// away since (a delete, which `deleted_games` records and the sources'
/// game counts show, even after a `vacuum`). [`NameCounts::matching`]
/// answers as [`matching`] does, without reading every game each time.
#[derive(Debug, Clone, Default)]
pub struct NameCounts {
    /// Games by name as written; `None` past [`MAX_NAMES`] names.
    games: Option<std::collections::HashMap<String, u64>>,
    /// Every game up to this id was read.
    read_to: i64,
    /// The count and the largest id of `deleted_games` when read.
    deleted: (i64, i64),
    /// The sum of `sources.games` when read.
    live: i64,
}

impl NameCounts {
    /// Brings the counts up to `conn`'s snapshot.
    ///
    /// # Errors
    /// [`QueryError::Sqlite`].
    pub fn refresh(&mut self, conn: &Connection) -> Result<(), QueryError> {
        let e = QueryError::sqlite(conn);
        let (deleted, live, last): ((i64, i64), i64, i64) = conn
            .prepare_cached(
                "SELECT (SELECT count(*) FROM deleted_games), \
                        (SELECT coalesce(max(game_id), 0) FROM deleted_games), \
                        (SELECT coalesce(sum(games), 0) FROM sources), \
                        (SELECT coalesce(max(id), 0) FROM games)",
            )
            .and_then(|mut st| {
                st.query_row([], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?, r.get(3)?)))
            })
            .map_err(&e)?;
        if deleted != self.deleted || last < self.read_to {
            *self = NameCounts { deleted, ..NameCounts::default() };
        }
        let from_start = self.read_to == 0;
        let added = self.read(conn, last)?;
        // Games imported since add to their sources' counts; a count that
        // grew by less means games went away.
        if !from_start && self.live + added != live {
            *self = NameCounts { deleted, ..NameCounts::default() };
            self.read(conn, last)?;
        }
        self.live = live;
        Ok(())
    }

    /// Counts the names of the games past `read_to` up to `last`; the
    /// number of those games that have a source.
    fn read(&mut self, conn: &Connection, last: i64) -> Result<i64, QueryError> {
        let e = QueryError::sqlite(conn);
        if last == self.read_to {
            return Ok(0);
        }
        let mut games = match self.games.take() {
            Some(games) => games,
            None if self.read_to == 0 => std::collections::HashMap::new(),
            // Past the most held: stays so until read anew.
            None => {
                self.read_to = last;
                return Ok(0);
            }
        };
        let mut st = conn
            .prepare_cached(
                "SELECT white, black, source_id IS NOT NULL FROM games WHERE id > ?1 AND id <= ?2",
            )
            .map_err(&e)?;
        let mut rows = st.query([self.read_to, last]).map_err(&e)?;
        let (mut full, mut sourced) = (false, 0);
        while let Some(row) = rows.next().map_err(&e)? {
            sourced += row.get::<_, i64>(2).map_err(&e)?;
            for side in 0..2 {
                let Some(name) = row.get_ref(side).map_err(&e)?.as_str_or_null().ok().flatten()
                else {
                    continue;
                };
                let held = games.len();
                match games.get_mut(name) {
                    Some(n) => *n += 1,
                    None if held < MAX_NAMES => {
                        games.insert(name.to_string(), 1);
                    }
                    None => full = true,
                }
            }
            if full {
                break;
            }
        }
        self.read_to = last;
        self.games = (!full).then_some(games);
        Ok(sourced)
    }

    /// [`matching`] from the counts held, once [`NameCounts::refresh`]ed;
    /// `None` when they are not held (past [`MAX_NAMES`] names).
    pub fn matching(&self, part: &str, limit: usize) -> Option<Vec<PlayerName>> {
        // By name in lower case: the games, and the spelling most of them
        // write (ties: the first in byte order).
        let mut groups: std::collections::HashMap<String, (u64, &str, u64)> =
            std::collections::HashMap::new();
        let part = part.as_bytes();
        for (name, &n) in self.games.as_ref()? {
            // No allocation for the names that do not hold the part.
            let holds = part.is_empty()
                || name.as_bytes().windows(part.len()).any(|w| w.eq_ignore_ascii_case(part));
            if !holds || name.trim_matches(['?', '-', ' ']).is_empty() {
                continue;
            }
            let group = groups.entry(name.to_ascii_lowercase()).or_insert((0, name.as_str(), 0));
            group.0 += n;
            if n > group.2 || (n == group.2 && name.as_str() < group.1) {
                (group.1, group.2) = (name.as_str(), n);
            }
        }
        let mut names: Vec<PlayerName> = groups
            .into_values()
            .map(|(games, name, _)| PlayerName { name: name.to_string(), games })
            .collect();
        names.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.name.cmp(&b.name)));
        names.truncate(limit);
        Some(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inserts games `first..` with these players, through the `games` view.
    /// Inserts games `first..` with these players, through the `games` view,
    /// from source 1, whose game count they add to.
    fn insert(conn: &Connection, first: i64, pairs: &[(&str, &str)]) {
        conn.execute(
            "INSERT OR IGNORE INTO sources (id, path, started_at) VALUES (1, 'a.pgn', '')",
            [],
        )
        .unwrap();
        for (i, (white, black)) in pairs.iter().enumerate() {
            conn.execute(
                "INSERT INTO games (id, white, black, ply_count, moves, movetext, dedupe_key, \
                 source_id) VALUES (?1, ?2, ?3, 0, '', '', ?1, 1)",
                rusqlite::params![first + i as i64, white, black],
            )
            .unwrap();
        }
        conn.execute("UPDATE sources SET games = games + ?1", [pairs.len()]).unwrap();
    }

    #[test]
    fn the_counts_held_answer_as_the_database_does() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        let names = [
            "Carlsen, Magnus",
            "carlsen, magnus",
            "CARLSEN, MAGNUS",
            "Carlsen,M",
            "Kasparov",
            "?",
            "-",
            " ? ",
            "Anand",
            "anand",
            "Caruana",
            "Ding Liren",
            "Großmeister",
            "grOSSmeister",
            "Nakamura",
            "x",
        ];
        let mut pairs = Vec::new();
        for i in 0..120usize {
            pairs.push((names[i % names.len()], names[(i * 7 + 3) % names.len()]));
        }
        insert(&conn, 1, &pairs[..80]);
        let mut held = NameCounts::default();
        let check = |held: &mut NameCounts| {
            held.refresh(&conn).unwrap();
            for part in ["a", "carl", "CARL", "an", "?", "-", "ß", "oss", "x", "zz", "n, m"] {
                for limit in [1, 3, 100] {
                    let expected = matching(&conn, part, limit).unwrap();
                    assert_eq!(held.matching(part, limit).unwrap(), expected, "{part:?} {limit}");
                }
            }
        };
        check(&mut held);
        // Games stored since, then a delete: read on, then anew.
        insert(&conn, 81, &pairs[80..]);
        check(&mut held);
        assert_eq!(held.read_to, 120);
        // The delete trigger records them in `deleted_games`.
        conn.execute_batch("DELETE FROM game_rows WHERE id IN (3, 4, 90)").unwrap();
        check(&mut held);
        assert_eq!(held.read_to, 120);
        conn.execute_batch("DELETE FROM deleted_games").unwrap();
        check(&mut held);
        // A delete, then a vacuum emptying `deleted_games`, then as many
        // games again, all between two searches: the sources' count shows it.
        conn.execute_batch("DELETE FROM game_rows WHERE id = 7; DELETE FROM deleted_games")
            .unwrap();
        insert(&conn, 121, &pairs[..1]);
        check(&mut held);
    }
}
