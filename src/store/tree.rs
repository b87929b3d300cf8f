//! The explorer's opening tree (`explorer_tree`, schema in
//! `migrations/`): for every stored game and every position it reaches
//! within its first [`State::max_ply`] plies, the game counted once, at its
//! first occurrence of the position, with the move it played there, summed
//! by (position, move). The explorer answers a position the tree has from
//! it, plus the few games that reach the position only later, instead of
//! reading every game that reaches it.
//!
//! Deep positions (`explorer_deep`) extend the tree past its plies where
//! many games go: a position that one batch finds at its first occurrence
//! within [`DEEP_PLY`] (past the plies whose positions `explorer_late`
//! lists by their reach) in at least [`State::deep_games`] games is counted
//! to [`DEEP_PLY`] for every later game, and the games that reach it only
//! past [`DEEP_PLY`] are listed in `explorer_late`. The set of deep
//! positions lives in the writer's memory ([`DEEP_KEYS_CAP`] at most).
//!
//! `explorer_masters` counts the masters games
//! ([`crate::store::format::explorer::is_masters`]) as the tree counts
//! every game, over the same visits, so that their explorer answers from
//! counts too.
//!
//! The writer adds each batch's games in the batch's transaction
//! ([`TreeBatch`]); [`remove_games`] takes games out before a delete. A
//! game deleted any other way marks the tree incomplete (a trigger), and
//! the next import or delete rebuilds it from the position index
//! ([`ensure_complete`]).

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::Arc;

use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};

use super::encode::rows::PositionRow;
use super::encode::visits::{ChunkTree, DeepKeys, SharedDeep, TreeShape, TreeVisits, Visit};
use crate::chess::zobrist::BuildKeyHasher;
use crate::chess::Color;
use crate::db::GameId;
use crate::store::format::explorer::{
    deep_from, is_masters, known_year_sql, masters_sql, state, white_moves_sql, Counts, State,
    DEEP_KEYS_CAP, DEEP_PLY, ENDED,
};
use crate::store::format::positions;

/// Rebuilds the tree from the position index if it is not complete, in
/// its own transaction (the caller holds the import lock): its state
/// afterwards, `None` without a tree.
///
/// # Errors
/// Database errors; the tree is left as it was then.
pub fn ensure_complete(conn: &Connection) -> rusqlite::Result<Option<State>> {
    let Some(state) = state(conn)? else { return Ok(None) };
    if state.complete {
        return Ok(Some(state));
    }
    // The rebuild sorts the first rows of every game (7 a game at 6
    // plies): in temporary files, not in memory, whatever the caller set.
    let temp_store: i64 = conn.query_row("PRAGMA temp_store", [], |r| r.get(0))?;
    conn.pragma_update(None, "temp_store", "FILE")?;
    let rebuilt = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
        .and_then(|tx| rebuild(&tx, state).and_then(|()| tx.commit()));
    conn.pragma_update(None, "temp_store", temp_store)?;
    rebuilt?;
    Ok(Some(State { complete: true, ..state }))
}

/// Fills the tree (and the masters' tree) from the `positions` view and
/// the games, and marks it complete. Runs inside the caller's transaction.
fn rebuild(conn: &Connection, state: State) -> rusqlite::Result<()> {
    // A deep position's games from its `deep_from` count to DEEP_PLY.
    let (deep_rows, deep_games) = match state.deep_games {
        Some(_) => (
            format!(" OR ply <= {DEEP_PLY} AND hash IN (SELECT hash FROM explorer_deep)"),
            " OR f.game_id >= (SELECT deep_from FROM explorer_deep AS d WHERE d.hash = f.hash)",
        ),
        None => (String::new(), ""),
    };
    let white = white_moves_sql("g.start_fen", "f.ply");
    // The columns of the tables, summed over the games where `m` holds.
    let sums = |m: &str, prefix: &str| {
        format!(
            "count(CASE WHEN {m} THEN 1 END) AS {prefix}games, \
             count(CASE WHEN {m} AND g.result = '1-0' THEN 1 END) AS {prefix}white_wins, \
             count(CASE WHEN {m} AND g.result = '1/2-1/2' THEN 1 END) AS {prefix}draws, \
             count(CASE WHEN {m} AND g.result = '0-1' THEN 1 END) AS {prefix}black_wins, \
             coalesce(sum(CASE WHEN {m} THEN CASE WHEN {white} THEN g.white_elo \
             ELSE g.black_elo END END), 0) AS {prefix}mover_elo_sum, \
             count(CASE WHEN {m} THEN CASE WHEN {white} THEN g.white_elo \
             ELSE g.black_elo END END) AS {prefix}mover_elo_count, \
             max(CASE WHEN {m} AND {} THEN g.date END) AS {prefix}last_date",
            known_year_sql("g.date"),
        )
    };
    let columns = "games, white_wins, draws, black_wins, mover_elo_sum, mover_elo_count, last_date";
    let masters = match state.masters {
        true => {
            conn.execute_batch(&format!(
                "DELETE FROM explorer_masters; \
                 CREATE TEMP TABLE masters_ids (id INTEGER PRIMARY KEY); \
                 INSERT INTO masters_ids SELECT g.id FROM games AS g WHERE {};",
                masters_sql("g")
            ))?;
            format!(", {}", sums("f.game_id IN temp.masters_ids", "m_"))
        }
        false => String::new(),
    };
    // The first occurrence of each position in each game (SQLite takes a
    // bare column from the row of the group's min()), then summed by move,
    // of every game and of the masters games in one reading of the index.
    conn.execute_batch(&format!(
        "DELETE FROM explorer_tree; \
         CREATE TEMP TABLE explorer_sums AS \
         SELECT f.hash AS hash, coalesce(f.next_move, {ENDED}) AS next_move, {all}{masters} \
         FROM (SELECT hash, game_id, min(ply) AS ply, next_move FROM positions \
               WHERE ply <= {max_ply}{deep_rows} GROUP BY hash, game_id) AS f \
         JOIN games AS g ON g.id = f.game_id \
         WHERE f.ply <= {max_ply}{deep_games} \
         GROUP BY f.hash, coalesce(f.next_move, {ENDED}); \
         INSERT INTO explorer_tree (hash, next_move, {columns}) \
         SELECT hash, next_move, {columns} FROM explorer_sums;",
        all = sums("1", ""),
        max_ply = state.max_ply,
    ))?;
    if state.masters {
        let m_columns =
            columns.split(", ").map(|c| format!("m_{c}")).collect::<Vec<_>>().join(", ");
        conn.execute_batch(&format!(
            "INSERT INTO explorer_masters (hash, next_move, {columns}) \
             SELECT hash, next_move, {m_columns} FROM explorer_sums WHERE m_games > 0; \
             DROP TABLE temp.masters_ids;"
        ))?;
    }
    conn.execute_batch(
        "DROP TABLE temp.explorer_sums; UPDATE explorer_tree_state SET complete = 1;",
    )
}

/// The tree rows of one batch of games, summed in memory, and their late
/// visits, added to the tree in the batch's transaction
/// ([`TreeBatch::write`]).
#[derive(Debug)]
pub struct TreeBatch {
    shape: TreeShape,
    rows: Rows,
    /// The rows of `explorer_masters`; `None` for a database without it.
    masters: Option<Rows>,
    /// `explorer_late` rows, `(hash, game_id, next_move)`; `None` for a
    /// database without the table.
    late: Option<Vec<(i64, i64, i64)>>,
    /// `None` for a tree without deep positions.
    deep: Option<Deep>,
}

/// Tree rows summed by (position, move).
type Rows = HashMap<(i64, i64), Counts, foldhash::fast::RandomState>;

/// The writer's deep positions, and the batch's candidates.
#[derive(Debug, Default)]
struct Deep {
    /// [`State::deep_games`].
    games: u32,
    /// The deep positions the database holds.
    keys: Arc<DeepKeys>,
    /// The same, for the workers.
    shared: Arc<SharedDeep>,
    /// The batch's games at their first occurrence of a position that is
    /// not deep, past ply `late_reach`, to [`DEEP_PLY`], and that
    /// `explorer_late` does not list by its reach.
    candidates: HashMap<i64, u32, BuildKeyHasher>,
    /// The positions this batch made deep, until its commit.
    added: Vec<i64>,
    /// The batch's last game.
    last_id: Option<GameId>,
}

impl TreeBatch {
    /// An empty batch for a tree of `state`, with the deep positions
    /// `conn` holds.
    ///
    /// # Errors
    /// Database errors.
    pub fn new(conn: &Connection, state: State) -> rusqlite::Result<TreeBatch> {
        let deep = match state.deep_games() {
            Some(games) => {
                let keys = conn
                    .prepare("SELECT hash FROM explorer_deep")?
                    .query_map([], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()?;
                let keys = Arc::new(DeepKeys::new(keys));
                let shared = Arc::new(SharedDeep::default());
                shared.set(Arc::clone(&keys));
                Some(Deep { games, keys, shared, ..Deep::default() })
            }
            None => None,
        };
        Ok(TreeBatch {
            shape: TreeShape::of(&state),
            rows: HashMap::default(),
            masters: state.masters.then(HashMap::default),
            late: state.late_listed_from().map(|_| Vec::new()),
            deep,
        })
    }

    /// The shape of this tree, for the workers' [`TreeVisits::of`].
    pub fn shape(&self) -> TreeShape {
        self.shape
    }

    /// The deep positions as committed, for the workers to look up; `None`
    /// for a tree without deep positions.
    pub fn shared_deep(&self) -> Option<Arc<SharedDeep>> {
        self.deep.as_ref().map(|deep| Arc::clone(&deep.shared))
    }

    /// Counts a stored game: its id, visits and position rows (in ply
    /// order).
    pub fn add(&mut self, id: GameId, visits: &TreeVisits, positions: &[PositionRow]) {
        self.add_rows(visits);
        self.add_visits(id, visits, positions);
    }

    /// Counts a stored game's visits within the tree's plies: the part of
    /// [`TreeBatch::add`] that a [`ChunkTree`] sums.
    pub fn add_rows(&mut self, visits: &TreeVisits) {
        for &(key, mover) in &visits.tree {
            self.rows.entry(key).or_default().merge(&visits.counts[mover as usize]);
        }
        if let Some(masters) = self.masters.as_mut().filter(|_| visits.masters) {
            for &(key, mover) in &visits.tree {
                masters.entry(key).or_default().merge(&visits.counts[mover as usize]);
            }
        }
        if let (Some(_), Some(deep)) = (&self.late, &mut self.deep) {
            for ((hash, _), _) in &visits.tree[visits.tree_late..] {
                if !deep.holds(*hash) {
                    *deep.candidates.entry(*hash).or_default() += 1;
                }
            }
        }
    }

    /// Counts the sums of a chunk's games, every one of them stored: what
    /// [`TreeBatch::add_rows`] of each would count.
    pub fn add_chunk(&mut self, chunk: ChunkTree) {
        add_sums(&mut self.rows, chunk.rows);
        if let Some(masters) = &mut self.masters {
            add_sums(masters, chunk.masters);
        }
        if let (Some(_), Some(deep)) = (&self.late, &mut self.deep) {
            for (hash, games) in chunk.late {
                if !deep.holds(hash) {
                    *deep.candidates.entry(hash).or_default() += games;
                }
            }
        }
    }

    /// Counts the rest of a stored game's part past [`TreeBatch::add_rows`]:
    /// its late visits and those of deep positions.
    pub fn add_visits(&mut self, id: GameId, visits: &TreeVisits, positions: &[PositionRow]) {
        let Some(late) = &mut self.late else { return };
        let late_row = |(hash, next_move): Visit| (hash, i64::from(id), next_move);
        late.extend(visits.listed.iter().copied().map(late_row));
        let Some(deep) = &mut self.deep else { return };
        // What a worker found, if it looked in the set as it is.
        let found = visits.deep.as_ref().filter(|found| found.version == deep.keys.version());
        for (k, &(key, mover, listed)) in visits.near.iter().enumerate() {
            // Deep first: a rebuild and a delete count a deep position's
            // games to DEEP_PLY whatever its reach.
            let holds = match found {
                Some(found) => found.near[k],
                None => deep.holds(key.0),
            };
            if holds {
                self.rows.entry(key).or_default().merge(&visits.counts[mover as usize]);
                if let Some(masters) = self.masters.as_mut().filter(|_| visits.masters) {
                    masters.entry(key).or_default().merge(&visits.counts[mover as usize]);
                }
            } else if listed {
                late.push(late_row(key));
            } else {
                *deep.candidates.entry(key.0).or_default() += 1;
            }
        }
        // A deep position first reached past DEEP_PLY (a listed one is
        // among the visits already).
        match found {
            Some(found) => late.extend(found.far.iter().copied().map(late_row)),
            None => late.extend(visits.far_deep(positions, &deep.keys, self.shape).map(late_row)),
        }
        deep.last_id = Some(id);
    }

    /// Adds the batch to the tree (one statement per row) and empties it.
    /// Runs inside the batch's transaction.
    ///
    /// # Errors
    /// Database errors.
    pub fn write(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        if let Some(deep) = &mut self.deep {
            deep.write(conn)?;
        }
        if let Some(late) = &mut self.late {
            late.sort_unstable();
            let mut st = conn.prepare_cached(
                "INSERT OR IGNORE INTO explorer_late (hash, game_id, next_move) VALUES (?1, ?2, ?3)",
            )?;
            for (hash, game_id, next_move) in late.drain(..) {
                st.execute(params![hash, game_id, next_move])?;
            }
        }
        write_rows(conn, "explorer_tree", &mut self.rows)?;
        match &mut self.masters {
            Some(masters) => write_rows(conn, "explorer_masters", masters),
            None => Ok(()),
        }
    }

    /// Forgets the batch (its transaction was rolled back).
    pub fn clear(&mut self) {
        self.rows.clear();
        if let Some(masters) = &mut self.masters {
            masters.clear();
        }
        if let Some(late) = &mut self.late {
            late.clear();
        }
        if let Some(deep) = &mut self.deep {
            deep.candidates.clear();
            deep.added.clear();
        }
    }

    /// The batch's transaction committed: the positions it made deep are
    /// counted to [`DEEP_PLY`] from the next batch on.
    pub fn committed(&mut self) {
        if let Some(deep) = &mut self.deep {
            if !deep.added.is_empty() {
                let mut keys = deep.keys.keys().clone();
                keys.extend(deep.added.drain(..));
                deep.keys = Arc::new(DeepKeys::new(keys));
                deep.shared.set(Arc::clone(&deep.keys));
            }
        }
    }
}

/// Adds a chunk's sums to a batch's rows.
fn add_sums(rows: &mut Rows, sums: Vec<((i64, i64), Counts)>) {
    for (key, counts) in sums {
        match rows.entry(key) {
            Entry::Occupied(mut row) => row.get_mut().merge(&counts),
            Entry::Vacant(row) => {
                row.insert(counts);
            }
        }
    }
}

/// A tree row's columns in table order, as statement parameters `?1` to
/// `?9`.
fn row_params<'a>(key: &'a (i64, i64), c: &'a Counts) -> [&'a dyn rusqlite::ToSql; 9] {
    let Counts { games, white_wins, draws, black_wins, mover_elo_sum, mover_elo_count, last_date } =
        c;
    [
        &key.0,
        &key.1,
        games,
        white_wins,
        draws,
        black_wins,
        mover_elo_sum,
        mover_elo_count,
        last_date,
    ]
}

/// Adds `rows` to `table` (the tree or the masters' tree), one statement
/// per row, and empties them.
fn write_rows(conn: &Connection, table: &str, rows: &mut Rows) -> rusqlite::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let mut rows: Vec<((i64, i64), Counts)> = rows.drain().collect();
    // In key order: each row's B-tree page is visited once.
    rows.sort_unstable_by_key(|r| r.0);
    let mut st = conn.prepare_cached(&format!(
        "INSERT INTO {table} (hash, next_move, games, white_wins, draws, black_wins, \
         mover_elo_sum, mover_elo_count, last_date) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
         ON CONFLICT (hash, next_move) DO UPDATE SET games = games + excluded.games, \
         white_wins = white_wins + excluded.white_wins, draws = draws + excluded.draws, \
         black_wins = black_wins + excluded.black_wins, \
         mover_elo_sum = mover_elo_sum + excluded.mover_elo_sum, \
         mover_elo_count = mover_elo_count + excluded.mover_elo_count, \
         last_date = CASE WHEN last_date IS NULL OR excluded.last_date > last_date \
         THEN excluded.last_date ELSE last_date END"
    ))?;
    for (key, counts) in &rows {
        st.execute(&row_params(key, counts)[..])?;
    }
    Ok(())
}

impl Deep {
    /// `true` if `key` is a deep position.
    fn holds(&self, key: i64) -> bool {
        self.keys.holds(key)
    }

    /// Makes deep the candidates with enough games, from the game after the
    /// batch's last (the batch's late visits of them are not listed), and
    /// empties the candidates.
    fn write(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let games = self.games;
        let room = DEEP_KEYS_CAP.saturating_sub(self.keys.keys().len());
        let mut chosen: Vec<(i64, u32)> =
            self.candidates.drain().filter(|&(_, n)| n >= games).collect();
        // The most played first, should the cap leave room for some only.
        if chosen.len() > room {
            chosen.sort_unstable_by_key(|&(hash, n)| (std::cmp::Reverse(n), hash));
            chosen.truncate(room);
        }
        self.added = chosen.into_iter().map(|(hash, _)| hash).collect();
        self.added.sort_unstable();
        let Some(last) = self.last_id.filter(|_| !self.added.is_empty()) else { return Ok(()) };
        let mut st = conn.prepare_cached(
            "INSERT OR IGNORE INTO explorer_deep (hash, deep_from) VALUES (?1, ?2)",
        )?;
        for &hash in &self.added {
            st.execute(params![hash, i64::from(last) + 1])?;
        }
        Ok(())
    }
}

/// Takes the games `ids` out of the tree, before they are deleted in the
/// same transaction (`conn`'s), and marks the tree complete once the
/// delete's trigger has marked it otherwise: call [`DeletedGames::finish`]
/// after the delete. Each game's positions within the tree's plies are
/// found by replaying its moves, and its rows of them read from the
/// position index (what the import counted); a game that does not replay
/// leaves the tree incomplete, to be rebuilt by the next import or delete.
///
/// # Errors
/// Database errors.
pub fn remove_games(conn: &Connection, ids: &[GameId]) -> rusqlite::Result<DeletedGames> {
    let Some(state) = state(conn)? else { return Ok(DeletedGames::default()) };
    let mut removed = DeletedGames { state: Some(state), ..DeletedGames::default() };
    if !state.complete {
        return Ok(removed);
    }
    let Some(hits_sql) = positions::game_hits_sql(conn)? else { return Ok(removed) };
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let mut hits = conn.prepare(&hits_sql)?;
    // Past the tree's plies, a deep position's games from its `deep_from`.
    let deep_ply = if state.deep_games().is_some() { DEEP_PLY } else { state.max_ply };
    let mut game = conn.prepare(
        "SELECT start_fen, moves, result, white_elo, black_elo, date, site, event FROM games \
         WHERE id = ?1 AND final_fen IS NOT NULL",
    )?;
    /// The columns of a game that the tree reads.
    struct Row {
        start_fen: Option<String>,
        moves: String,
        result: Option<String>,
        white_elo: Option<i64>,
        black_elo: Option<i64>,
        date: Option<String>,
        site: Option<String>,
        event: Option<String>,
    }
    for id in ids {
        let row: Option<Row> = game
            .query_row([id], |r| {
                Ok(Row {
                    start_fen: r.get(0)?,
                    moves: r.get(1)?,
                    result: r.get(2)?,
                    white_elo: r.get(3)?,
                    black_elo: r.get(4)?,
                    date: r.get(5)?,
                    site: r.get(6)?,
                    event: r.get(7)?,
                })
            })
            .optional()?;
        // No such game, or one whose FEN tag could not be read: no rows.
        let Some(Row { start_fen, moves, result, white_elo, black_elo, date, site, event }) = row
        else {
            continue;
        };
        let masters =
            state.masters && is_masters(white_elo, black_elo, site.as_deref(), event.as_deref());
        let Some(keys) = keys(start_fen.as_deref(), &moves, deep_ply) else {
            removed.exact = false;
            continue;
        };
        for (key, mover) in keys {
            let first = hits
                .query_map(params![key, id], |r| r.get::<_, i64>(0))?
                .map(|gpm| gpm.map(positions::unpack_gpm))
                .collect::<rusqlite::Result<Vec<_>>>()?
                .into_iter()
                .min_by_key(|&(_, ply, _)| ply);
            let Some((_, ply, next_move)) = first else { continue };
            if u32::from(ply) > state.max_ply
                && (u32::from(ply) > deep_ply
                    || deep_from(conn, &state, key)?.is_none_or(|from| id < from))
            {
                continue;
            }
            let next_move = next_move.map_or(ENDED, i64::from);
            let mover_elo = if mover.is_white() { white_elo } else { black_elo };
            let mut counts = Counts::default();
            counts.add_game(result.as_deref(), mover_elo, date.as_deref());
            if masters {
                removed.masters.entry((key, next_move)).or_default().merge(&counts);
            }
            removed.rows.entry((key, next_move)).or_default().merge(&counts);
        }
    }
    Ok(removed)
}

/// The distinct keys of a stored game's positions up to ply `max_ply`,
/// each with its side to move; `None` if it does not replay.
fn keys(start_fen: Option<&str>, moves: &str, max_ply: u32) -> Option<Vec<(i64, Color)>> {
    let mut replay = crate::replay::stored::Replay::new(start_fen, moves).ok()?;
    let mut keys: Vec<(i64, Color)> = Vec::new();
    loop {
        let key = replay.position().zobrist().as_i64();
        if !keys.iter().any(|&(k, _)| k == key) {
            keys.push((key, replay.position().turn()));
        }
        if replay.ply() >= max_ply || replay.step().ok()?.is_none() {
            return Some(keys);
        }
    }
}

/// The tree rows of games about to be deleted ([`remove_games`]).
#[derive(Debug)]
pub struct DeletedGames {
    state: Option<State>,
    rows: HashMap<(i64, i64), Counts>,
    /// The masters games' part of `rows`.
    masters: HashMap<(i64, i64), Counts>,
    /// `false` if a game's rows could not be found.
    exact: bool,
}

impl Default for DeletedGames {
    fn default() -> DeletedGames {
        DeletedGames { state: None, rows: HashMap::new(), masters: HashMap::new(), exact: true }
    }
}

impl DeletedGames {
    /// Subtracts the games from the tree, after their delete in the same
    /// transaction: rows left without games are dropped, and a row's
    /// `last_date` that was a deleted game's is read again from the games
    /// left. Marks the tree complete if it was and every game was found.
    ///
    /// # Errors
    /// Database errors.
    pub fn finish(self, conn: &Connection) -> rusqlite::Result<()> {
        let Some(state) = self.state.filter(|s| s.complete) else { return Ok(()) };
        subtract(conn, &state, "explorer_tree", &self.rows, "")?;
        if state.masters {
            let masters = format!(" AND {}", masters_sql("g"));
            subtract(conn, &state, "explorer_masters", &self.masters, &masters)?;
        }
        if self.exact {
            conn.execute("UPDATE explorer_tree_state SET complete = 1", [])?;
        }
        Ok(())
    }
}

/// Subtracts `rows` from `table` (the tree or the masters' tree), whose
/// games pass `games_sql` (a condition on the `games` view `g`, after
/// `AND`): rows left without games are dropped, and a `last_date` that
/// may have been a deleted game's is read again from the games left.
fn subtract(
    conn: &Connection,
    state: &State,
    table: &str,
    rows: &HashMap<(i64, i64), Counts>,
    games_sql: &str,
) -> rusqlite::Result<()> {
    let mut subtract = conn.prepare(&format!(
        "UPDATE {table} SET games = games - ?3, white_wins = white_wins - ?4, \
         draws = draws - ?5, black_wins = black_wins - ?6, \
         mover_elo_sum = mover_elo_sum - ?7, mover_elo_count = mover_elo_count - ?8 \
         WHERE hash = ?1 AND next_move = ?2 \
         RETURNING games, last_date"
    ))?;
    let mut drop_row =
        conn.prepare(&format!("DELETE FROM {table} WHERE hash = ?1 AND next_move = ?2"))?;
    // The games left that count in the row, by their first occurrence.
    let mut last_date = conn.prepare(&format!(
        "SELECT max(CASE WHEN {} THEN g.date END) \
         FROM (SELECT game_id, min(ply) AS ply, next_move FROM positions WHERE hash = ?1 \
               GROUP BY game_id) AS f JOIN games AS g ON g.id = f.game_id \
         WHERE (f.ply <= ?3 OR f.ply <= {DEEP_PLY} AND f.game_id >= ?4) \
         AND coalesce(f.next_move, {ENDED}) = ?2{games_sql}",
        known_year_sql("g.date")
    ))?;
    let mut set_date = conn.prepare(&format!(
        "UPDATE {table} SET last_date = ?3 WHERE hash = ?1 AND next_move = ?2"
    ))?;
    for (key @ (hash, next_move), c) in rows {
        // All but the date, which is read again below when it may change.
        let left: Option<(i64, Option<String>)> = subtract
            .query_row(&row_params(key, c)[..8], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((games, last)) = left else { continue };
        if games <= 0 {
            drop_row.execute(params![hash, next_move])?;
        } else if c.last_date.is_some() && c.last_date >= last {
            let deep_from = deep_from(conn, state, *hash)?.map_or(i64::MAX, i64::from);
            let date: Option<String> = last_date
                .query_row(params![hash, next_move, state.max_ply, deep_from], |r| r.get(0))?;
            set_date.execute(params![hash, next_move, date])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Header;
    use crate::store::format::explorer::{known_year, LATE_AFTER};

    /// A tree of [`LATE_AFTER`] plies listing from the first game the late
    /// visits of reach 3 and under, whose positions two games of a batch
    /// make deep.
    fn deep_state() -> State {
        State {
            max_ply: LATE_AFTER,
            complete: true,
            late_from: Some(GameId::new(1)),
            late_reach: 3,
            deep_games: Some(2),
            masters: true,
        }
    }

    /// Adds a game to `batch` as the writer does, its visits found as the
    /// workers find them.
    fn add(batch: &mut TreeBatch, id: GameId, positions: &[PositionRow], header: &Header) {
        batch.add(id, &TreeVisits::of(positions, header, Color::White, batch.shape()), positions);
    }

    #[test]
    fn known_years_match_in_rust_and_sql() {
        let conn = Connection::open_in_memory().unwrap();
        for date in ["2020.01.01", "1999", "199", "????.??.??", "20x0.01.01", "", "2021.??.??"] {
            let sql: bool = conn
                .query_row(&format!("SELECT {}", known_year_sql("?1")), [date], |r| r.get(0))
                .unwrap();
            assert_eq!(sql, known_year(date), "{date:?}");
        }
    }

    #[test]
    fn a_game_counts_once_per_position_at_its_first_occurrence() {
        let header = Header {
            result: Some("1-0".into()),
            white_elo: Some(2500),
            black_elo: Some(2400),
            date: Some("2020.??.??".into()),
            ..Header::default()
        };
        let row = |hash, ply, next_move| PositionRow { hash, ply, next_move, reach: 0 };
        let state = State {
            max_ply: LATE_AFTER,
            complete: true,
            late_from: Some(GameId::new(1)),
            late_reach: 3,
            deep_games: None,
            masters: false,
        };
        let conn = Connection::open_in_memory().unwrap();
        let mut batch = TreeBatch::new(&conn, state).unwrap();
        // Position 7 again at ply 2 and at ply 8 (past the tree's plies).
        let mut game = vec![row(7, 0, Some(1)), row(8, 1, Some(2)), row(7, 2, Some(3))];
        game.extend([row(9, 3, Some(4)), row(20, 4, Some(5)), row(21, 5, Some(6))]);
        game.extend([row(22, 6, Some(7)), row(11, 7, Some(6)), row(7, 8, Some(7))]);
        // 11 again, then 12, which no game from the start reaches so early.
        game.extend([row(11, 9, Some(8)), PositionRow { reach: 4, ..row(12, 10, None) }]);
        add(&mut batch, GameId::new(1), &game, &header);
        add(
            &mut batch,
            GameId::new(2),
            &[row(7, 0, Some(1)), row(10, 7, Some(5))],
            &Header::default(),
        );
        let mut keys: Vec<_> = batch.rows.keys().copied().collect();
        keys.sort_unstable();
        assert_eq!(keys, [(7, 1), (8, 2), (9, 4), (20, 5), (21, 6), (22, 7)]);
        let c = &batch.rows[&(7, 1)];
        // The ratings of the side to move: White's at ply 0, Black's at 1.
        assert_eq!((c.games, c.white_wins, c.mover_elo_sum, c.mover_elo_count), (2, 1, 2500, 1));
        let c = &batch.rows[&(8, 2)];
        assert_eq!((c.games, c.mover_elo_sum, c.mover_elo_count), (1, 2400, 1));
        assert_eq!(c.last_date.as_deref(), Some("2020.??.??"));
        // Late: each position past the tree's plies, once, at its first
        // occurrence, unless the game had it earlier.
        assert_eq!(batch.late.as_deref(), Some(&[(11, 1, 6), (10, 2, 5)][..]));
        // A tree of fewer plies than the reach was taken past lists none.
        let shallow = TreeBatch::new(&conn, State { max_ply: 3, ..state }).unwrap();
        assert!(shallow.late.is_none());
        assert_eq!(shallow.shape, TreeShape::of(&State { max_ply: 3, ..state }));
    }

    #[test]
    fn a_position_two_games_of_a_batch_reach_past_the_plies_is_counted_from_the_next_batch() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE explorer_deep (hash INTEGER PRIMARY KEY, deep_from); \
             CREATE TABLE explorer_late (hash, game_id, next_move, PRIMARY KEY (hash, game_id)); \
             CREATE TABLE explorer_tree (hash, next_move, games, white_wins, draws, black_wins, \
             mover_elo_sum, mover_elo_count, last_date, PRIMARY KEY (hash, next_move))",
        )
        .unwrap();
        let state = deep_state();
        let mut batch = TreeBatch::new(&conn, state).unwrap();
        let row = |hash, ply| PositionRow { hash, ply, next_move: Some(ply as u16), reach: 5 };
        // 50 at ply 8 in two games, 51 at ply 9 in one, 50 again at ply 13.
        let game = |late: i64| -> Vec<PositionRow> {
            let mut rows: Vec<_> = (0..=6).map(|ply| row(100 + i64::from(ply), ply)).collect();
            rows.extend([row(60, 7), row(50, 8), row(late, 9), row(61, 10), row(62, 11)]);
            rows.extend([row(63, 12), row(50, 13), row(64, 14)]);
            rows
        };
        add(&mut batch, GameId::new(1), &game(51), &Header::default());
        add(&mut batch, GameId::new(2), &game(52), &Header::default());
        // Before its batch commits, no position is deep.
        assert_eq!(batch.rows.len(), 7);
        batch.write(&conn).unwrap();
        let deep: Vec<(i64, i64)> = conn
            .prepare("SELECT hash, deep_from FROM explorer_deep ORDER BY hash")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        // And the positions of plies 4 to 6, past the reach listed.
        let mut made: Vec<(i64, i64)> = [50, 60, 61, 62, 63, 104, 105, 106].map(|h| (h, 3)).into();
        made.sort_unstable();
        assert_eq!(deep, made);
        let before = batch.shared_deep().unwrap().get();
        batch.committed();
        // A later game counts 50 at ply 8, and lists its late visit of 62
        // (reached first at ply 14) and not that of 50 (ply 13, counted):
        // also when a worker looked in the set before the commit.
        let mut later: Vec<_> = (0..=6).map(|ply| row(200 + i64::from(ply), ply)).collect();
        later.extend([row(50, 7), row(70, 8), row(50, 13), row(62, 14), row(62, 15)]);
        let shape = batch.shape();
        let found = |deep: &DeepKeys| {
            let mut visits = TreeVisits::of(&later, &Header::default(), Color::White, shape);
            visits.find_deep(&later, deep, shape);
            visits
        };
        let stale = found(&before);
        assert!(stale.deep.as_ref().is_some_and(|d| d.far.is_empty() && !d.near.contains(&true)));
        batch.add(GameId::new(3), &stale, &later);
        assert_eq!(batch.rows[&(50, 7)].games, 1);
        assert!(!batch.rows.contains_key(&(70, 8)));
        assert_eq!(batch.late.as_deref(), Some(&[(62, 3, 14)][..]));
        // Found on a worker in the set as committed: the same rows.
        let current = found(&batch.shared_deep().unwrap().get());
        let deep = current.deep.as_ref().unwrap();
        assert_eq!(
            (deep.near.as_slice(), deep.far.as_slice()),
            (&[true, false][..], &[(62, 14)][..])
        );
        batch.add(GameId::new(6), &current, &later);
        assert_eq!(batch.rows[&(50, 7)].games, 2);
        assert_eq!(batch.late.as_deref(), Some(&[(62, 3, 14), (62, 6, 14)][..]));
        // A rolled-back batch makes nothing deep.
        add(&mut batch, GameId::new(4), &later, &Header::default());
        add(&mut batch, GameId::new(5), &later, &Header::default());
        batch.clear();
        batch.committed();
        assert_eq!(batch.deep.as_ref().unwrap().keys.keys().len(), 8);
        // Without the schema's column, no position is deep.
        let old = TreeBatch::new(&conn, State { deep_games: None, ..state }).unwrap();
        assert!(old.deep.is_none());
    }

    #[test]
    fn a_chunk_s_sums_count_as_its_games_one_by_one() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute("CREATE TABLE explorer_deep (hash INTEGER PRIMARY KEY, deep_from)", [])
            .unwrap();
        let state = deep_state();
        let row = |hash, ply| PositionRow { hash, ply, next_move: Some(ply as u16), reach: 5 };
        let header = |result: &str, elo, date: &str| Header {
            result: Some(result.into()),
            white_elo: Some(elo),
            black_elo: Some(elo + 1),
            date: Some(date.into()),
            ..Header::default()
        };
        // Games sharing their first plies, one repeating a position.
        let games: Vec<(Vec<PositionRow>, Header)> = (0..6)
            .map(|g: i64| {
                let rows: Vec<_> =
                    (0..=8).map(|ply| row(10 * i64::from(ply) + g % 3, ply)).collect();
                let result = ["1-0", "0-1", "1/2-1/2"][g as usize % 3];
                (rows, header(result, 1500 + g, &format!("20{:02}.01.01", 20 - g)))
            })
            .chain([(vec![row(1, 0), row(1, 2), row(2, 3)], Header::default())])
            .collect();
        let mut one_by_one = TreeBatch::new(&conn, state).unwrap();
        let mut summed = TreeBatch::new(&conn, state).unwrap();
        let visits: Vec<TreeVisits> = games
            .iter()
            .map(|(rows, h)| TreeVisits::of(rows, h, Color::White, one_by_one.shape()))
            .collect();
        for (id, ((rows, _), v)) in games.iter().zip(&visits).enumerate() {
            let id = GameId::new(id as u32 + 1);
            one_by_one.add(id, v, rows);
            summed.add_visits(id, v, rows);
        }
        let sums = ChunkTree::of(&visits);
        assert_eq!(sums.games, games.len());
        assert!(sums.rows.len() < visits.iter().map(|v| v.tree.len()).sum());
        summed.add_chunk(sums);
        let sorted = |b: &TreeBatch| {
            let mut rows: Vec<_> = b.rows.iter().map(|(k, c)| (*k, c.clone())).collect();
            rows.sort_unstable_by_key(|r| r.0);
            rows
        };
        assert_eq!(sorted(&summed), sorted(&one_by_one));
        let (a, b) = (summed.deep.unwrap(), one_by_one.deep.unwrap());
        assert!(!b.candidates.is_empty());
        assert_eq!(a.candidates, b.candidates);
        assert_eq!(summed.late, one_by_one.late);
    }
}
