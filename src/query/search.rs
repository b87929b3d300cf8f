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

use rusqlite::fallible_streaming_iterator::FallibleStreamingIterator;
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection, OptionalExtension};

use super::error::{IndexError, QueryError};
use super::filter::Filters;
use super::game::{Game, GAME_COLUMNS};
use super::summaries::Summaries;
use super::target::Target;
use crate::chess::Position;
use crate::db::GameId;
use crate::notation::fen;
use crate::replay::stored::Replay;
use crate::store::format::explorer;
use crate::store::format::positions;
use std::sync::Arc;

/// What to look for.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// The position the games must pass through, if any.
    pub target: Option<Target>,
    /// Header conditions.
    pub filters: Filters,
    /// The games' result, ratings and date held in memory, read from
    /// there rather than from the database when held.
    pub summaries: Option<Arc<Summaries>>,
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

/// One read transaction around the statements of a search that reads
/// the list of position segments and then the segments it names: an
/// import that merges segments in between cannot drop one from under it.
/// Nothing when the caller's transaction is open already.
struct Snapshot<'c> {
    _tx: Option<rusqlite::Transaction<'c>>,
}

impl Snapshot<'_> {
    fn begin(conn: &Connection) -> Result<Snapshot<'_>, QueryError> {
        if !conn.is_autocommit() {
            return Ok(Snapshot { _tx: None });
        }
        conn.unchecked_transaction()
            .map(|tx| Snapshot { _tx: Some(tx) })
            .map_err(QueryError::sqlite(conn))
    }
}

/// A key hit: the game and the ply.
type KeyHit = (GameId, u32);

impl Search {
    /// The hits of the target (required) that pass the filters, ordered
    /// by game id: `(game_id, ply)` rows. Each segment yields its hits in
    /// game order, so SQLite merges them as a stream (ordering by ply too
    /// would sort within each game: the caller does that). The games are
    /// read afterwards, one by one. Since schema 12 the segments are read
    /// by their keys ([`positions::ordered_hits_sql`]) but for the plies
    /// from [`positions::LONG_PLY`] on, which their keys sort after the
    /// others: those few hits are read here, sorted, and returned third,
    /// for the caller to merge in.
    fn hits_sql(
        &self,
        conn: &Connection,
        target: &Target,
    ) -> Result<(String, Vec<Value>, Vec<KeyHit>), QueryError> {
        let e = QueryError::sqlite(conn);
        let filters = self.filters.sql_for(conn)?;
        let mut params = vec![Value::Integer(target.key)];
        params.extend(filters.params);
        let view_sql = if self.filters.is_empty() {
            "SELECT game_id, ply FROM positions WHERE hash = ? ORDER BY game_id".to_string()
        } else {
            format!(
                "SELECT p.game_id, p.ply FROM positions AS p JOIN {} AS g ON g.id = p.game_id \
                 WHERE p.hash = ?{} ORDER BY p.game_id",
                filters.table, filters.sql
            )
        };
        let Some((sql, long_sql, arms)) =
            positions::ordered_hits_sql(conn, filters.table, &filters.sql).map_err(&e)?
        else {
            return Ok((view_sql, params, Vec::new()));
        };
        let params: Vec<Value> = params.iter().cycle().take(params.len() * arms).cloned().collect();
        let mut long: Vec<KeyHit> = conn
            .prepare(&long_sql)
            .and_then(|mut st| {
                st.query_map(params_from_iter(&params), |r| Ok((r.get(0)?, r.get(1)?)))?.collect()
            })
            .map_err(&e)?;
        long.sort_unstable();
        Ok((sql, params, long))
    }

    /// Counts the matching games (by key, without replay: see the module
    /// docs).
    ///
    /// # Errors
    /// [`QueryError::Sqlite`].
    pub fn count(&self, conn: &Connection) -> Result<u64, QueryError> {
        let filters = self.filters.sql_for(conn)?;
        let mut params = Vec::new();
        let sql = match &self.target {
            None => format!("SELECT count(*) FROM {} AS g WHERE 1{}", filters.table, filters.sql),
            Some(t) => {
                params.push(Value::Integer(t.key));
                if self.filters.is_empty() {
                    "SELECT count(DISTINCT game_id) FROM positions WHERE hash = ?".to_string()
                } else {
                    format!(
                        "SELECT count(DISTINCT p.game_id) FROM positions AS p \
                         JOIN {} AS g ON g.id = p.game_id WHERE p.hash = ?{}",
                        filters.table, filters.sql
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
    /// their tag pairs and movetext, written back where it is not stored,
    /// when `whole`: what a PGN of the game needs). Hash hits are verified by replay;
    /// `offset` and `limit` count verified games only.
    ///
    /// # Errors
    /// [`QueryError::Sqlite`], or [`QueryError::Output`] when `each` fails.
    pub fn find(
        &self,
        conn: &Connection,
        page: Page,
        whole: bool,
        mut each: impl FnMut(Found) -> io::Result<()>,
    ) -> Result<FindStats, QueryError> {
        let e = QueryError::sqlite(conn);
        let mut stats = FindStats::default();
        let Some(target) = &self.target else {
            return self.find_by_headers(conn, page, whole, each);
        };
        let _snapshot = Snapshot::begin(conn)?;
        let (sql, params, long) = self.hits_sql(conn, target)?;
        let mut hits = conn.prepare(&sql).map_err(&e)?;
        let mut rows = hits.query(params_from_iter(&params)).map_err(&e)?;
        // The statement's hits and the long games' ones, merged in
        // (game, ply) order.
        let mut long = long.into_iter().peekable();
        let mut read: Option<KeyHit> = None;
        let mut next_hit = || -> Result<Option<KeyHit>, QueryError> {
            if read.is_none() {
                if let Some(r) = rows.next().map_err(&e)? {
                    read = Some((r.get(0).map_err(&e)?, r.get(1).map_err(&e)?));
                }
            }
            Ok(match (read, long.peek()) {
                (Some(hit), Some(first)) if *first < hit => long.next(),
                (Some(_), _) => read.take(),
                (None, _) => long.next(),
            })
        };
        let mut game_sql = conn
            .prepare(&format!("SELECT {} FROM games AS g WHERE g.id = ?1", *GAME_COLUMNS))
            .map_err(&e)?;
        let mut skip = page.offset;
        // The rows of one game are consecutive: gather its plies, then
        // verify.
        let mut next: Option<KeyHit> = None;
        loop {
            let (id, first) = match next.take() {
                Some(hit) => hit,
                None => match next_hit()? {
                    Some(hit) => hit,
                    None => break,
                },
            };
            let mut plies = vec![first];
            while let Some(hit) = next_hit()? {
                if hit.0 != id {
                    next = Some(hit);
                    break;
                }
                plies.push(hit.1);
            }
            plies.sort_unstable();
            if page.limit.is_some_and(|l| stats.returned >= l) {
                stats.more = true;
                break;
            }
            let game = game_sql.query_row([id], Game::read_row).optional().map_err(&e)?;
            let Some(mut game) = game else {
                // A position row of a game deleted without a record of it
                // (by hand, before schema version 5): no such game, and no
                // key collision either.
                continue;
            };
            let Some(ply) = verify(target, &game, &plies) else {
                stats.rejected += 1;
                continue;
            };
            if skip > 0 {
                skip -= 1;
                continue;
            }
            if whole {
                game.write_back_movetext(conn)?;
                game.load_tags(conn)?;
            }
            each(Found { game, ply: Some(ply) }).map_err(QueryError::Output)?;
            stats.returned += 1;
        }
        Ok(stats)
    }

    /// [`Search::find`] without a position: the games table in id order.
    fn find_by_headers(
        &self,
        conn: &Connection,
        page: Page,
        whole: bool,
        mut each: impl FnMut(Found) -> io::Result<()>,
    ) -> Result<FindStats, QueryError> {
        let e = QueryError::sqlite(conn);
        let filters = self.filters.sql_for(conn)?;
        let mut sql = if filters.sql.is_empty() || filters.table == "games" {
            format!("SELECT {} FROM games AS g WHERE 1{} ORDER BY g.id", *GAME_COLUMNS, filters.sql)
        } else {
            // The conditions on the table, the columns from the view.
            format!(
                "SELECT {} FROM games AS g WHERE g.id IN \
                 (SELECT g.id FROM {} AS g WHERE 1{}) ORDER BY g.id",
                *GAME_COLUMNS, filters.table, filters.sql
            )
        };
        let mut params = filters.params;
        // Fetch one more than the page to know whether more follow.
        sql += " LIMIT ? OFFSET ?";
        // Past SQLite's integers: no limit (-1), and an offset past every
        // game (a negative one would count from the first).
        let limit = page.limit.and_then(|l| i64::try_from(l.saturating_add(1)).ok());
        params.push(Value::Integer(limit.unwrap_or(-1)));
        params.push(Value::Integer(i64::try_from(page.offset).unwrap_or(i64::MAX)));
        let mut stats = FindStats::default();
        let mut st = conn.prepare(&sql).map_err(&e)?;
        let mut rows = st.query(params_from_iter(&params)).map_err(&e)?;
        while let Some(row) = rows.next().map_err(&e)? {
            if page.limit.is_some_and(|l| stats.returned >= l) {
                stats.more = true;
                break;
            }
            let mut game = Game::read_row(row).map_err(&e)?;
            if whole {
                game.write_back_movetext(conn)?;
                game.load_tags(conn)?;
            }
            each(Found { game, ply: None }).map_err(QueryError::Output)?;
            stats.returned += 1;
        }
        Ok(stats)
    }

    /// Calls `each` with every matching game's first hit of the target, in
    /// game id order: the move played from there and the columns the
    /// explorer counts. Not verified by replay (see the module docs).
    ///
    /// Without filters, the hits are read alone, sorted by (game, ply) and
    /// merged with the games' result, ratings and date read in id order
    /// from the narrow `games_summary` index (the `games` table on a
    /// database without it): the reading steps forward over short gaps
    /// between hit games and seeks over long ones, so a position reached
    /// by every game costs one pass over the index and a rare one a few
    /// seeks.
    ///
    /// # Errors
    /// [`QueryError::Sqlite`].
    pub fn for_each_hit(
        &self,
        conn: &Connection,
        each: impl FnMut(&Hit<'_>),
    ) -> Result<(), QueryError> {
        let e = QueryError::sqlite(conn);
        let Some(target) = &self.target else { return Ok(()) };
        if !self.filters.is_empty() {
            return self.for_each_filtered_hit(conn, target, each);
        }
        // Unordered: ordering the UNION ALL of the segments in SQLite costs
        // three times as much as reading it and sorting here.
        let snapshot = Snapshot::begin(conn)?;
        let mut hits: Vec<(GameId, u32, Option<u16>)> = match positions::packed_hits_sql(conn)
            .map_err(&e)?
        {
            Some(sql) => conn.prepare(&sql).and_then(|mut st| {
                st.query_map([target.key], |r| {
                    let (game_id, ply, next_move) = positions::unpack_gpm(r.get(0)?);
                    Ok((game_id, u32::from(ply), next_move))
                })?
                .collect()
            }),
            None => conn
                .prepare("SELECT game_id, ply, next_move FROM positions WHERE hash = ?1")
                .and_then(|mut st| {
                    st.query_map([target.key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect()
                }),
        }
        .map_err(&e)?;
        drop(snapshot);
        hits.sort_unstable();
        hits.dedup_by_key(|h| h.0);
        fold_summaries(
            conn,
            self.summaries.as_deref(),
            hits.into_iter().map(|(game_id, _, next_move)| (game_id, next_move)),
            each,
        )
    }

    /// The `n` games with the highest ids that reach the target and pass
    /// the filters, highest id first, each with its first hit of the
    /// target and the columns the explorer counts. Not verified by replay
    /// (see the module docs). Each segment is read backwards from the end
    /// of the key's rows, about `2n` rows: the cost does not grow with the
    /// games that reach the position. A game's hits from
    /// [`positions::LONG_PLY`] on are not read: such a game counts at its
    /// first hit below that ply, or not at all.
    ///
    /// # Errors
    /// [`QueryError::Sqlite`].
    pub fn last_hits(&self, conn: &Connection, n: usize) -> Result<Vec<OwnedHit>, QueryError> {
        let e = QueryError::sqlite(conn);
        let Some(target) = &self.target else { return Ok(Vec::new()) };
        if n == 0 {
            return Ok(Vec::new());
        }
        let filters = self.filters.sql_for(conn)?;
        let snapshot = Snapshot::begin(conn)?;
        let Some(statements) =
            positions::last_hits_sql(conn, filters.table, &filters.sql).map_err(&e)?
        else {
            // An old layout: every hit.
            drop(snapshot);
            let mut all = Vec::new();
            self.for_each_hit(conn, |hit| all.push(OwnedHit::from(hit)))?;
            all.reverse();
            all.truncate(n);
            return Ok(all);
        };
        // Room for games with the position more than once; the window's last
        // game is dropped when the window is full (its lower plies may lie
        // beyond it).
        let window = 2 * n + 8;
        // Each segment's highest game of the key first, by one seek: the
        // segments are read from the one with the highest, and the rest
        // are left once `n` games above their highest are found (a game's
        // rows are all in one segment).
        let mut order: Vec<(Option<GameId>, &str)> = Vec::with_capacity(statements.len());
        for segment in &statements {
            let highest = match &segment.highest {
                Some(sql) => {
                    let gpm: Option<i64> = conn
                        .prepare_cached(sql)
                        .and_then(|mut st| st.query_row([target.key], |r| r.get(0)))
                        .map_err(&e)?;
                    match gpm {
                        Some(gpm) => Some(positions::unpack_gpm(gpm).0),
                        None => continue,
                    }
                }
                None => None,
            };
            order.push((highest, segment.rows.as_str()));
        }
        // Unknown (`None`) first, as the highest.
        order.sort_by_key(|&(highest, _)| std::cmp::Reverse(highest.map_or(i64::MAX, i64::from)));
        let mut games: Vec<(GameId, Option<u16>)> = Vec::new();
        for (highest, sql) in order {
            if let Some(highest) = highest {
                if games.len() >= n {
                    games.sort_unstable_by_key(|g| std::cmp::Reverse(g.0));
                    games.truncate(n);
                    if games[n - 1].0 > highest {
                        break;
                    }
                }
            }
            let mut params = vec![Value::Integer(target.key)];
            params.extend(filters.params.iter().cloned());
            params.push(Value::Integer(window as i64));
            let rows: Vec<(GameId, u16, Option<u16>)> = conn
                .prepare_cached(sql)
                .and_then(|mut st| {
                    st.query_map(params_from_iter(&params), |r| {
                        Ok(positions::unpack_gpm(r.get(0)?))
                    })?
                    .collect()
                })
                .map_err(&e)?;
            let full = rows.len() == window;
            let cut = rows.last().map(|r| r.0).filter(|_| full);
            // Rows come highest ply first within a game: the last one kept
            // is the game's first hit.
            let mut segment_games: Vec<(GameId, Option<u16>)> = Vec::new();
            for (game_id, _, next_move) in rows {
                if Some(game_id) == cut {
                    break;
                }
                match segment_games.last_mut() {
                    Some(last) if last.0 == game_id => last.1 = next_move,
                    _ => segment_games.push((game_id, next_move)),
                }
            }
            games.extend(segment_games);
        }
        drop(snapshot);
        games.sort_unstable_by_key(|g| std::cmp::Reverse(g.0));
        games.dedup_by_key(|g| g.0);
        games.truncate(n);
        games.reverse();
        let mut hits = Vec::with_capacity(games.len());
        fold_summaries(conn, self.summaries.as_deref(), games.into_iter(), |hit| {
            hits.push(OwnedHit::from(hit));
        })?;
        hits.reverse();
        Ok(hits)
    }

    /// The explorer's tree for the target, when it can answer this search
    /// (no filters, or only [`Filters::masters`], whose games
    /// `explorer_masters` counts; a complete tree; rows for the target's
    /// key or a deep target): `row` is
    /// called with each tree row's move (`None`: the games end there) and
    /// counts, then `each` with the games whose first hit of the target is
    /// beyond the tree's plies, in game id order (the same hits as
    /// [`Search::for_each_hit`] gives for those games). No summary is read
    /// for the games the tree counts. `false`, having called neither, when
    /// the tree cannot answer.
    ///
    /// The late games come from `explorer_late` when the target is one a
    /// game from the standard start could reach within its `late_reach`
    /// plies ([`min_plies`]) and the game was stored with schema 20 or
    /// later, or when the target is a deep position (`explorer_deep`) and
    /// the game was stored from its `deep_from` on: one seek. The other
    /// games are searched in the position index (`scan_late`).
    ///
    /// # Errors
    /// [`QueryError::Sqlite`].
    pub fn for_each_tree_hit(
        &self,
        conn: &Connection,
        mut row: impl FnMut(Option<u16>, &explorer::Counts),
        each: impl FnMut(&Hit<'_>),
    ) -> Result<bool, QueryError> {
        let e = QueryError::sqlite(conn);
        let Some(target) = &self.target else { return Ok(false) };
        // The masters games alone are counted in a tree of their own.
        let masters = self.filters == Filters { masters: true, ..Filters::default() };
        if !self.filters.is_empty() && !masters {
            return Ok(false);
        }
        let _snapshot = Snapshot::begin(conn)?;
        let Some(state) =
            explorer::state(conn).map_err(&e)?.filter(|s| s.complete && (s.masters || !masters))
        else {
            return Ok(false);
        };
        let table = if masters { "explorer_masters" } else { "explorer_tree" };
        let rows: Vec<(i64, explorer::Counts)> = conn
            .prepare_cached(&format!(
                "SELECT next_move, games, white_wins, draws, black_wins, mover_elo_sum, \
                 mover_elo_count, last_date FROM {table} WHERE hash = ?1"
            ))
            .and_then(|mut st| {
                st.query_map([target.key], |r| {
                    let counts = explorer::Counts {
                        games: r.get(1)?,
                        white_wins: r.get(2)?,
                        draws: r.get(3)?,
                        black_wins: r.get(4)?,
                        mover_elo_sum: r.get(5)?,
                        mover_elo_count: r.get(6)?,
                        last_date: r.get(7)?,
                    };
                    Ok((r.get(0)?, counts))
                })?
                .collect()
            })
            .map_err(&e)?;
        // The games `explorer_late` lists, from `listed_from` on: a deep
        // position's from its `deep_from`, the others' by their reach.
        let deep_from = explorer::deep_from(conn, &state, target.key).map_err(&e)?;
        // A deep position is the tree's even before it counts a game; a
        // position of the tree may have no masters game in it.
        if rows.is_empty() && deep_from.is_none() && !(masters && in_tree(conn, target.key)?) {
            return Ok(false);
        }
        let listed_from = deep_from.or_else(|| {
            state
                .late_listed_from()
                .filter(|_| Reach::standard().min_plies(&target.position) <= state.late_reach)
        });
        let mut late: Vec<(GameId, Option<u16>)> = Vec::new();
        if let Some(from) = listed_from {
            let listed: Vec<(GameId, i64)> = conn
                .prepare_cached(&format!(
                    "SELECT game_id, next_move FROM explorer_late \
                     WHERE hash = ?1 AND game_id >= ?2 AND {}",
                    positions::live("game_id")
                ))
                .and_then(|mut st| {
                    st.query_map(rusqlite::params![target.key, from], |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })?
                    .collect()
                })
                .map_err(&e)?;
            late.extend(listed.into_iter().map(|(id, m)| (id, u16::try_from(m).ok())));
        }
        // The games stored before `listed_from` whose first hit of the key
        // lies past the tree's plies.
        if listed_from.is_none_or(|from| i64::from(from) > 1)
            && !self.scan_late(conn, &state, listed_from, deep_from.is_some(), &mut late)?
        {
            return Ok(false);
        }
        late.sort_unstable();
        if masters {
            late = self.passing(conn, late)?;
        }
        for (next_move, counts) in &rows {
            row(u16::try_from(*next_move).ok(), counts);
        }
        fold_summaries(conn, self.summaries.as_deref(), late.into_iter(), each).map(|()| true)
    }

    /// The games of `hits` (in id order) that pass the filters, in order.
    fn passing(
        &self,
        conn: &Connection,
        hits: Vec<(GameId, Option<u16>)>,
    ) -> Result<Vec<(GameId, Option<u16>)>, QueryError> {
        if hits.is_empty() {
            return Ok(hits);
        }
        let filters = self.filters.sql_for(conn)?;
        let sql = format!(
            "SELECT g.id FROM {} AS g WHERE g.id IN (SELECT value FROM json_each(?1)){} \
             ORDER BY g.id",
            filters.table, filters.sql
        );
        let ids = hits.iter().map(|h| u32::from(h.0).to_string()).collect::<Vec<_>>().join(",");
        let mut params = vec![Value::Text(format!("[{ids}]"))];
        params.extend(filters.params.iter().cloned());
        let passed: Vec<GameId> = conn
            .prepare_cached(&sql)
            .and_then(|mut st| st.query_map(params_from_iter(&params), |r| r.get(0))?.collect())
            .map_err(QueryError::sqlite(conn))?;
        let mut passed = passed.into_iter().peekable();
        Ok(hits
            .into_iter()
            .filter(|h| {
                while passed.next_if(|&id| id < h.0).is_some() {}
                passed.peek() == Some(&h.0)
            })
            .collect())
    }

    /// Adds to `late` the games below `below` (all without it) whose first
    /// hit of the target lies past the tree's plies, found in the position
    /// index; `false` for a position index too old to be read so.
    ///
    /// Below a deep position's `deep_from` (`every_ply`), few games reach
    /// it: all their rows are read, each game's first found among them.
    /// Otherwise SQLite passes the rows past the tree's plies only (of
    /// the millions of a popular position, the few of late games), and each
    /// of those games is looked up for a hit within the plies.
    fn scan_late(
        &self,
        conn: &Connection,
        state: &explorer::State,
        below: Option<GameId>,
        every_ply: bool,
        late: &mut Vec<(GameId, Option<u16>)>,
    ) -> Result<bool, QueryError> {
        let e = QueryError::sqlite(conn);
        let Some(target) = &self.target else { return Ok(false) };
        let after = Some(state.max_ply).filter(|_| !every_ply);
        let after_sql = positions::hits_after_sql(conn, after, below).map_err(&e)?;
        let long_sql = positions::long_hits_sql(conn, below).map_err(&e)?;
        let (Some(after_sql), Some(long_sql)) = (after_sql, long_sql) else { return Ok(false) };
        let first_hits = |sql: &str| -> Result<Vec<(GameId, u16, Option<u16>)>, QueryError> {
            let mut hits: Vec<(GameId, u16, Option<u16>)> = conn
                .prepare_cached(sql)
                .and_then(|mut st| {
                    st.query_map([target.key], |r| Ok(positions::unpack_gpm(r.get(0)?)))?.collect()
                })
                .map_err(&e)?;
            hits.sort_unstable();
            hits.dedup_by_key(|h| h.0);
            Ok(hits)
        };
        // Past the tree below `LONG_PLY` (or every ply), and from
        // `LONG_PLY` on (rare).
        let short = first_hits(&after_sql)?;
        let long = first_hits(&long_sql)?;
        let mut game_rows = match every_ply {
            true => None,
            false => match positions::game_hits_sql(conn).map_err(&e)? {
                Some(sql) => Some(conn.prepare_cached(&sql).map_err(&e)?),
                None => return Ok(false),
            },
        };
        // The lowest ply below `LONG_PLY` at which the game has the key.
        let mut lowest_short = |game_id: GameId| -> Result<Option<u16>, QueryError> {
            let Some(game_rows) = &mut game_rows else {
                // Every ply read: each game's first hit is in `short`.
                let i = short.binary_search_by_key(&game_id, |h| h.0).ok();
                return Ok(i.map(|i| short[i].1));
            };
            let rows = game_rows
                .query_map(rusqlite::params![target.key, i64::from(game_id)], |r| {
                    Ok(positions::unpack_gpm(r.get(0)?).1)
                })
                .and_then(|rows| rows.collect::<rusqlite::Result<Vec<u16>>>())
                .map_err(&e)?;
            Ok(rows.into_iter().min())
        };
        for &(game_id, _, next_move) in &short {
            if lowest_short(game_id)?.is_some_and(|ply| u32::from(ply) > state.max_ply) {
                late.push((game_id, next_move));
            }
        }
        for &(game_id, _, next_move) in &long {
            if lowest_short(game_id)?.is_none() {
                late.push((game_id, next_move));
            }
        }
        Ok(true)
    }

    /// [`Search::for_each_hit`] with filters: the hits joined with their
    /// games, first hit per game kept.
    fn for_each_filtered_hit(
        &self,
        conn: &Connection,
        target: &Target,
        mut each: impl FnMut(&Hit<'_>),
    ) -> Result<(), QueryError> {
        let filters = self.filters.sql_for(conn)?;
        let sql = format!(
            "SELECT p.game_id, p.ply, p.next_move, g.result, g.white_elo, g.black_elo, {} \
             FROM positions AS p JOIN {} AS g ON g.id = p.game_id WHERE p.hash = ?{}",
            summary_date(filters.table),
            filters.table,
            filters.sql
        );
        let mut params = vec![Value::Integer(target.key)];
        params.extend(filters.params);
        type Row =
            (GameId, u32, Option<u16>, Option<String>, Option<i64>, Option<i64>, Option<String>);
        let mut st = conn.prepare(&sql).map_err(QueryError::sqlite(conn))?;
        let mut rows: Vec<Row> = st
            .query_map(params_from_iter(&params), |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?))
            })
            .and_then(|rows| rows.collect())
            .map_err(QueryError::sqlite(conn))?;
        rows.sort_unstable_by_key(|r| (r.0, r.1));
        rows.dedup_by_key(|r| r.0);
        for (game_id, _, next_move, result, white_elo, black_elo, date) in &rows {
            each(&Hit {
                game_id: *game_id,
                next_move: *next_move,
                result: result.as_deref().and_then(Outcome::from_result),
                white_elo: *white_elo,
                black_elo: *black_elo,
                date: date.as_deref(),
            });
        }
        Ok(())
    }
}

/// `true` if the explorer's tree has rows of the position `key`.
fn in_tree(conn: &Connection, key: i64) -> Result<bool, QueryError> {
    conn.prepare_cached("SELECT 1 FROM explorer_tree WHERE hash = ?1 LIMIT 1")
        .and_then(|mut st| st.exists([key]))
        .map_err(QueryError::sqlite(conn))
}

/// Calls `each` with `hits` (in game id order) completed by their games'
/// result, ratings and date, from `held` for the games it holds, else read
/// in id order from the database ([`fold_read_summaries`]), in game id
/// order. A game missing from the summary is skipped.
fn fold_summaries(
    conn: &Connection,
    held: Option<&Summaries>,
    hits: impl Iterator<Item = (GameId, Option<u16>)>,
    mut each: impl FnMut(&Hit<'_>),
) -> Result<(), QueryError> {
    let Some(held) = held else { return fold_read_summaries(conn, hits, each) };
    // The games not held since the last one held, read before the next.
    let mut pending: Vec<(GameId, Option<u16>)> = Vec::new();
    let mut date = String::new();
    for (game_id, next_move) in hits {
        let Some(summary) = held.get(game_id) else {
            pending.push((game_id, next_move));
            continue;
        };
        if !pending.is_empty() {
            fold_read_summaries(conn, pending.drain(..), &mut each)?;
        }
        each(&Hit {
            game_id,
            next_move,
            result: summary.result,
            white_elo: summary.white_elo,
            black_elo: summary.black_elo,
            date: summary.write_date(&mut date),
        });
    }
    fold_read_summaries(conn, pending.into_iter(), each)
}

/// [`fold_summaries`] from the database: read in id order from the narrow
/// `games_summary` index (the `games` table on a database without it): the
/// reading steps forward over short gaps between hit games and seeks over
/// long ones.
fn fold_read_summaries(
    conn: &Connection,
    mut hits: impl Iterator<Item = (GameId, Option<u16>)>,
    mut each: impl FnMut(&Hit<'_>),
) -> Result<(), QueryError> {
    let e = QueryError::sqlite(conn);
    let from = summary_source(conn)?;
    // The date's parts as stored, written here for the hits only: SQLite
    // computes every column of each row the cursor steps over.
    let parts = from.starts_with("game_rows");
    let columns = if parts { "date, year, month, day" } else { "date" };
    let mut summary = conn
        .prepare_cached(&format!(
            "SELECT id, result, white_elo, black_elo, {columns} FROM {from} \
             WHERE id >= ?1 ORDER BY id"
        ))
        .map_err(&e)?;
    let mut pending = hits.next();
    // Each turn of the outer loop seeks; the inner one steps forward.
    'seek: while let Some((first, _)) = pending {
        let mut rows = summary.query([first]).map_err(&e)?;
        // The id of the summary row under the cursor.
        let mut at = i64::MIN;
        while let Some((game_id, next_move)) = pending {
            let id = i64::from(game_id);
            if at != i64::MIN && at < id && id - at > SEEK_GAP {
                continue 'seek;
            }
            while at < id {
                match rows.next().map_err(&e)? {
                    Some(r) => at = r.get(0).map_err(&e)?,
                    None => at = i64::MAX,
                }
            }
            // A game missing from the summary is skipped.
            if let Some(r) = rows.get().filter(|_| at == id) {
                let mut written = None;
                each(&summary_hit(game_id, next_move, r, parts, &mut written).map_err(&e)?);
            }
            pending = hits.next();
        }
    }
    Ok(())
}

/// A hit completed by a summary row (`id, result, white_elo, black_elo,
/// date`, and with `parts` the date's `year, month, day`).
fn summary_hit<'r>(
    game_id: GameId,
    next_move: Option<u16>,
    r: &'r rusqlite::Row<'_>,
    parts: bool,
    written: &'r mut Option<String>,
) -> rusqlite::Result<Hit<'r>> {
    let date = match r.get_ref(4)?.as_str_or_null()? {
        Some(date) => Some(date),
        None if parts => {
            *written = crate::db::dates::written(r.get(5)?, r.get(6)?, r.get(7)?);
            written.as_deref()
        }
        None => None,
    };
    Ok(Hit {
        game_id,
        next_move,
        result: r.get_ref(1)?.as_str_or_null()?.and_then(Outcome::from_result),
        white_elo: r.get(2)?,
        black_elo: r.get(3)?,
        date,
    })
}

/// Summary rows stepped over rather than sought past: a seek costs about as
/// much as reading this many narrow index rows.
const SEEK_GAP: i64 = 32;

/// The SQL of the date of the game `g` of `table` (`games` or
/// `game_rows`, perhaps `INDEXED BY`): a `game_rows` date may be NULL
/// where its parts write it ([`crate::db::dates`]).
pub(crate) fn summary_date(table: &str) -> String {
    if table.starts_with("game_rows") {
        crate::db::dates::date_sql("g")
    } else {
        "g.date".to_string()
    }
}

/// Where the summary columns (id, result, ratings, date, ECO and the
/// event, by its `game_texts` id from schema
/// [`crate::db::schema::Schema::GAME_ROWS`]) are read
/// from: the `games_summary` index of the table it is on, else the
/// `games` table (schema 1, which lacks the query indexes), as `g`.
pub(crate) fn summary_source(conn: &Connection) -> Result<&'static str, QueryError> {
    let table: Option<String> = conn
        .query_row(
            "SELECT tbl_name FROM sqlite_master WHERE type = 'index' AND name = 'games_summary'",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(QueryError::sqlite(conn))?;
    Ok(match table.as_deref() {
        Some("game_rows") => "game_rows AS g INDEXED BY games_summary",
        Some(_) => "games AS g INDEXED BY games_summary",
        None => "games AS g",
    })
}

/// How the sources that hold games were indexed (`sources.positions_indexed`
/// and `max_ply`), as far as a position search is concerned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Sources that hold games.
    pub sources: u64,
    /// Sources without a position index (`--no-positions`), and their games.
    pub unindexed: (u64, u64),
    /// Sources indexed up to a ply (`--max-ply`): the smallest and the
    /// largest such ply, and the number of sources.
    pub limited: Option<(u32, u32, u64)>,
    /// Sources imported before pgnindex recorded how (schema version 5 or
    /// older) whose counters do not tell: their number.
    pub unknown: u64,
    /// The fewest plies that reach the position from the standard start,
    /// when that is beyond every ply indexed (only games from another
    /// start can be counted).
    pub beyond: Option<u32>,
}

impl Coverage {
    /// One line for the user when a position search over this database may
    /// miss games; `None` when every game is fully indexed.
    pub fn note(&self) -> Option<String> {
        let of = |n: u64| {
            let verb = if n == 1 { ("is", "has", "its") } else { ("are", "have", "their") };
            (format!("{n} of {} sources", self.sources), verb)
        };
        let mut parts = Vec::new();
        if let Some((low, high, n)) = self.limited {
            let (sources, (is, _, _)) = of(n);
            let plies =
                if low == high { format!("ply {low}") } else { format!("plies {low} to {high}") };
            let flag = if low == high { format!("--max-ply {low}") } else { "--max-ply".into() };
            parts.push(format!(
                "{sources} {is} indexed up to {plies} only ({flag}): games that reach the \
                 position later are not counted"
            ));
        }
        if self.unindexed.0 > 0 {
            let (sources, (_, has, its)) = of(self.unindexed.0);
            parts.push(format!(
                "{sources} {has} no position index (--no-positions): {its} {} games are not \
                 counted",
                self.unindexed.1
            ));
        }
        if self.unknown > 0 {
            let (sources, (is, _, _)) = of(self.unknown);
            parts.push(format!(
                "{sources} {is} indexed to a depth pgnindex did not record (imported by an \
                 older version): if with --max-ply, games that reach the position later are \
                 not counted"
            ));
        }
        if let Some(needed) = self.beyond {
            parts.push(format!(
                "this position takes at least {needed} plies from the standard start: only games \
                 that start from a FEN tag can be counted"
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

impl Search {
    /// How the index covers the games for this search's position (empty
    /// without one), after refusing a search the index cannot answer: every
    /// game's source imported with `--no-positions`, or indexed only up to
    /// plies the position cannot be reached by (see [`min_plies`]). The
    /// query commands check this before a position search; a
    /// [`Coverage::note`] goes to the user with the answer.
    ///
    /// # Errors
    /// [`QueryError::Index`] as above; [`QueryError::Sqlite`].
    pub fn index_coverage(&self, conn: &Connection) -> Result<Coverage, QueryError> {
        let Some(target) = &self.target else { return Ok(Coverage::default()) };
        let e = QueryError::sqlite(conn);
        // Version 5 and older have no record: their counters tell none (no
        // row stored for any game) or unknown.
        let recorded =
            conn.prepare("SELECT positions_indexed, max_ply FROM sources LIMIT 0").is_ok();
        let sql = if recorded {
            "SELECT id, games, positions_indexed, max_ply FROM sources WHERE games > 0"
        } else {
            "SELECT id, games, CASE WHEN positions = 0 THEN 0 END, NULL FROM sources \
             WHERE games > 0"
        };
        let mut st = conn.prepare(sql).map_err(&e)?;
        let rows: Vec<(i64, u64, Option<bool>, Option<u32>)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .and_then(|rows| rows.collect())
            .map_err(&e)?;
        let mut coverage = Coverage { sources: rows.len() as u64, ..Coverage::default() };
        let mut full = 0;
        let mut limited_ids = Vec::new();
        for &(id, games, indexed, max_ply) in &rows {
            match (indexed, max_ply) {
                (Some(false), _) => {
                    coverage.unindexed.0 += 1;
                    coverage.unindexed.1 += games;
                }
                (Some(true), None) => full += 1,
                (Some(true), Some(n)) => {
                    limited_ids.push(id);
                    coverage.limited = Some(match coverage.limited {
                        None => (n, n, 1),
                        Some((low, high, k)) => (low.min(n), high.max(n), k + 1),
                    });
                }
                (None, _) => coverage.unknown += 1,
            }
        }
        if coverage.sources == 0 || full > 0 || coverage.unknown > 0 {
            return Ok(coverage);
        }
        let Some((_, deepest, _)) = coverage.limited else {
            return Err(IndexError::Missing.into());
        };
        // The fewest plies from any start of these sources' games: the
        // standard one, and each FEN tag (read by a scan, on this path only).
        let ids: Vec<String> = limited_ids.iter().map(i64::to_string).collect();
        let mut st = conn
            .prepare(&format!(
                "SELECT DISTINCT start_fen FROM games WHERE start_fen IS NOT NULL \
                 AND source_id IN ({})",
                ids.join(", ")
            ))
            .map_err(&e)?;
        let starts: Vec<String> =
            st.query_map([], |r| r.get(0)).and_then(|rows| rows.collect()).map_err(&e)?;
        let from_standard = min_plies(&Position::new(), &target.position);
        let mut needed = from_standard;
        for start in &starts {
            // A start that does not read back bounds nothing.
            let from =
                fen::parse_position(start).map_or(0, |start| min_plies(&start, &target.position));
            needed = needed.min(from);
        }
        if needed > deepest {
            return Err(IndexError::TooShallow { max_ply: deepest, needed }.into());
        }
        if from_standard > deepest {
            coverage.beyond = Some(from_standard);
        }
        Ok(coverage)
    }
}

pub use crate::chess::reach::min_plies;
use crate::chess::reach::Reach;

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
pub struct Hit<'a> {
    /// The game.
    pub game_id: GameId,
    /// The move played from the first occurrence (compact code), `None`
    /// when the game ends there.
    pub next_move: Option<u16>,
    /// The result, if decisive or drawn.
    pub result: Option<Outcome>,
    /// White's rating.
    pub white_elo: Option<i64>,
    /// Black's rating.
    pub black_elo: Option<i64>,
    /// The date as stored.
    pub date: Option<&'a str>,
}

/// A [`Hit`] that owns its date.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedHit {
    /// The game.
    pub game_id: GameId,
    /// The move played from the position (`None`: the game ends there).
    pub next_move: Option<u16>,
    /// The result, if decided.
    pub result: Option<Outcome>,
    /// White's rating.
    pub white_elo: Option<i64>,
    /// Black's rating.
    pub black_elo: Option<i64>,
    /// The date as stored.
    pub date: Option<String>,
}

impl From<&Hit<'_>> for OwnedHit {
    fn from(hit: &Hit<'_>) -> OwnedHit {
        OwnedHit {
            game_id: hit.game_id,
            next_move: hit.next_move,
            result: hit.result,
            white_elo: hit.white_elo,
            black_elo: hit.black_elo,
            date: hit.date.map(str::to_string),
        }
    }
}

/// The first of `plies` (ascending) where `game` really is at `target`;
/// `None` if none is (a key collision, or a game that does not replay).
fn verify(target: &Target, game: &Game, plies: &[u32]) -> Option<u32> {
    let mut replay = Replay::new(game.start_fen.as_deref(), &game.moves).ok()?;
    plies.iter().copied().find(|&ply| {
        matches!(replay.advance_to(ply), Ok(true)) && target.matches(replay.position())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_past_sqlite_integers_are_empty_or_unlimited() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        conn.execute_batch(
            "INSERT INTO games (id, ply_count, moves, movetext, dedupe_key) \
             VALUES (1, 0, '', '', 0), (2, 0, '', '', 0)",
        )
        .unwrap();
        let find = |offset, limit| {
            let mut ids = Vec::new();
            let page = Page { offset, limit };
            Search::default()
                .find(&conn, page, false, |found| {
                    ids.push(found.game.id.get());
                    Ok(())
                })
                .unwrap();
            ids
        };
        assert_eq!(find(1, Some(u64::MAX)), [2]);
        assert_eq!(find(0, Some(1 << 63)), [1, 2]);
        assert!(find(1 << 63, None).is_empty());
        assert!(find(u64::MAX, Some(1)).is_empty());
    }
}
