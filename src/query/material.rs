//! Material and pattern searches: the games whose mainline reaches a
//! position with some material (`--material`) or some pieces on some
//! squares (`--pattern`), each with the first ply where it does.
//!
//! The material index ([`crate::store::format::material`]) answers a material
//! search alone: each game's stretches are read and matched here, in
//! Rust. A pattern search replays only the games, and within them only the
//! stretches, whose material can hold the pattern (and meets the material
//! condition, when both are given). Games stored before the index (ids up
//! to `material_backlog.last_game_id` without a row, or every game of a
//! database older than the index) are replayed whole.

use rayon::prelude::*;
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection, OptionalExtension};

use super::error::QueryError;
use super::filter::Filters;
use super::game::{Game, GAME_COLUMNS};
use super::search::{FindStats, Found, Outcome, Page};
use crate::chess::Material;
use crate::db::GameId;
use crate::notation::material::{MaterialSpec, Pattern};
use crate::replay::stored::Replay;
use crate::store::format::material::{self as stored, Stretch, StretchBuilder};

/// A material or pattern search (at least one of the two), with header
/// filters.
#[derive(Debug, Clone)]
pub struct MaterialSearch {
    /// The material the position has.
    pub spec: Option<MaterialSpec>,
    /// The pieces the position has on given squares.
    pub pattern: Option<Pattern>,
    /// Also match with the colours swapped (the pattern mirrored too).
    pub either_color: bool,
    /// The material condition holds for at least this many consecutive
    /// positions (1: any position).
    pub min_plies: u32,
    /// Header conditions.
    pub filters: Filters,
}

/// A game that meets the condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaterialHit {
    /// The game.
    pub id: GameId,
    /// The first ply where the condition holds.
    pub ply: u32,
    /// `true` when it holds there with the colours swapped
    /// (`--either-color`) and not as written.
    pub swapped: bool,
}

/// One way round of the condition: as written, or colours swapped.
#[derive(Debug, Clone)]
struct Side {
    spec: Option<MaterialSpec>,
    pattern: Option<Pattern>,
    least: Material,
}

impl Side {
    /// `true` if a position with material `m` meets the material
    /// condition, or may hold the pattern when there is none.
    fn admits(&self, m: &Material) -> bool {
        match &self.spec {
            Some(spec) => spec.matches(m),
            None => (0..10).all(|i| m.0[i] >= self.least.0[i]),
        }
    }
}

/// The stretches of a game that may hold a pattern: first and last ply,
/// and which sides (bit 0: as written, bit 1: swapped).
type Window = (u32, u32, u8);

/// The games up to this id may lack a `game_material` row: `None` when the
/// index covers every game, `Some(i64::MAX)` for a database older than
/// the index.
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn backlog(conn: &Connection) -> Result<Option<i64>, QueryError> {
    let e = QueryError::sqlite(conn);
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' \
             AND name IN ('game_material', 'material_backlog')",
            [],
            |r| r.get(0),
        )
        .map_err(&e)?;
    if tables < 2 {
        return Ok(Some(i64::MAX));
    }
    let last: Option<i64> = conn
        .query_row("SELECT max(last_game_id) FROM material_backlog", [], |r| r.get(0))
        .map_err(&e)?;
    Ok(last.filter(|&id| id > 0))
}

impl MaterialSearch {
    fn sides(&self) -> Vec<Side> {
        let least =
            |p: &Option<Pattern>| p.as_ref().map(Pattern::least_material).unwrap_or_default();
        let mut sides = vec![Side {
            spec: self.spec,
            pattern: self.pattern.clone(),
            least: least(&self.pattern),
        }];
        if self.either_color {
            let pattern = self.pattern.as_ref().map(Pattern::swapped);
            let least = least(&pattern);
            sides.push(Side { spec: self.spec.map(|s| s.swapped()), pattern, least });
        }
        sides
    }

    /// What the stretches of a game say: the first ply where the material
    /// condition holds (no pattern), or the windows to replay (pattern).
    /// The material condition holds in runs of consecutive stretches (one
    /// stretch for an exact spec, maybe more for one with `*`); a run
    /// counts when it has at least `min_plies` positions.
    fn judge(&self, sides: &[Side], stretches: &[Stretch]) -> Judgement {
        let mut windows: Vec<Window> = Vec::new();
        for (i, side) in sides.iter().enumerate() {
            let bit = 1 << i;
            let mut run: Option<(u32, u32)> = None;
            let close = |run: Option<(u32, u32)>, windows: &mut Vec<Window>| {
                if let Some((first, plies)) = run.filter(|r| r.1 >= self.min_plies) {
                    windows.push((first, first + plies - 1, bit));
                }
            };
            for s in stretches {
                if side.admits(&s.material) {
                    run = Some(match run {
                        Some((first, plies)) => (first, plies + s.plies),
                        None => (s.first_ply, s.plies),
                    });
                } else {
                    close(run.take(), &mut windows);
                }
            }
            close(run, &mut windows);
        }
        // The first window; as written before swapped at the same ply.
        match windows.iter().min_by_key(|w| (w.0, w.2)) {
            None => Judgement::No,
            Some(w) if self.pattern.is_none() => Judgement::At(w.0, w.2 != 1),
            Some(_) => Judgement::Replay(windows),
        }
    }

    /// Calls `each` with every matching game, in id order, until it
    /// returns `false`. The games to replay are replayed in batches on
    /// rayon's pool.
    ///
    /// # Errors
    /// [`QueryError::Sqlite`], [`QueryError::Replay`] for a stored game
    /// that does not replay where it must, [`QueryError::Material`] for a
    /// damaged index entry, or `each`'s error.
    pub fn for_each_hit(
        &self,
        conn: &Connection,
        mut each: impl FnMut(MaterialHit) -> Result<bool, QueryError>,
    ) -> Result<(), QueryError> {
        let e = QueryError::sqlite(conn);
        // One read transaction: the backlog's ids and the index rows are
        // read as of the same commit of a concurrent import.
        let _snapshot = if conn.is_autocommit() {
            Some(conn.unchecked_transaction().map_err(&e)?)
        } else {
            None
        };
        let sides = self.sides();
        let filters = self.filters.sql_for(conn)?;
        let mut moves_sql = conn
            .prepare(&format!(
                // `moves` by the view: `game_rows` holds it packed.
                "SELECT g.start_fen, (SELECT m.moves FROM games AS m WHERE m.id = g.id) \
                 FROM {} AS g WHERE g.id = ?{}",
                filters.table, filters.sql
            ))
            .map_err(&e)?;
        let mut pass_sql = conn
            .prepare(&format!("SELECT 1 FROM {} AS g WHERE g.id = ?{}", filters.table, filters.sql))
            .map_err(&e)?;
        // The games without an index row, replayed: a stream of ids merged
        // with the index's in id order.
        let mut backlog_ids: Vec<GameId> = Vec::new();
        let last = backlog(conn)?;
        if let Some(last) = last {
            let indexed = last != i64::MAX;
            let sql = format!(
                "SELECT g.id FROM {} AS g WHERE g.id <= ?1 AND g.final_fen IS NOT NULL{}{} \
                 ORDER BY g.id",
                filters.table,
                if indexed {
                    " AND NOT EXISTS (SELECT 1 FROM game_material AS m WHERE m.game_id = g.id)"
                } else {
                    ""
                },
                filters.sql
            );
            let mut params = vec![Value::Integer(last)];
            params.extend(filters.params.iter().cloned());
            backlog_ids = conn
                .prepare(&sql)
                .and_then(|mut st| st.query_map(params_from_iter(&params), |r| r.get(0))?.collect())
                .map_err(&e)?;
        }
        let mut backlog_ids = backlog_ids.into_iter().peekable();
        let mut batch: Vec<Pending> = Vec::new();
        // Settles the batch: the games read (and the filters checked) in
        // order, the replays run in parallel, the hits handed on in order.
        // `false` when `each` asked to stop.
        let mut flush = |batch: &mut Vec<Pending>| -> Result<bool, QueryError> {
            let params = |id: GameId| {
                let mut params = vec![Value::Integer(i64::from(id))];
                params.extend(filters.params.iter().cloned());
                params
            };
            let mut jobs: Vec<(GameId, Job)> = Vec::with_capacity(batch.len());
            for pending in batch.drain(..) {
                let job = match pending.work {
                    Work::Ready(swapped, ply) => {
                        if !self.filters.is_empty() {
                            let pass = pass_sql
                                .query_row(params_from_iter(&params(pending.id)), |_| Ok(()))
                                .optional()
                                .map_err(&e)?;
                            if pass.is_none() {
                                continue;
                            }
                        }
                        Job::Ready(ply, swapped)
                    }
                    work => {
                        let game: Option<(Option<String>, String)> = moves_sql
                            .query_row(params_from_iter(&params(pending.id)), |r| {
                                Ok((r.get(0)?, r.get(1)?))
                            })
                            .optional()
                            .map_err(&e)?;
                        let Some((start, moves)) = game else { continue };
                        match work {
                            Work::Windows(windows) => Job::Windows(start, moves, windows),
                            _ => Job::Whole(start, moves),
                        }
                    }
                };
                jobs.push((pending.id, job));
            }
            let run = |(id, job): &(GameId, Job)| -> Result<Option<MaterialHit>, QueryError> {
                let id = *id;
                let found = match job {
                    Job::Ready(ply, swapped) => Some((*ply, *swapped)),
                    Job::Windows(start, moves, windows) => {
                        first_pattern_ply(id, start.as_deref(), moves, &sides, windows)?
                    }
                    Job::Whole(start, moves) => {
                        let stretches = replay_stretches(id, start.as_deref(), moves)?;
                        match self.judge(&sides, &stretches) {
                            Judgement::No => None,
                            Judgement::At(ply, swapped) => Some((ply, swapped)),
                            Judgement::Replay(windows) => {
                                first_pattern_ply(id, start.as_deref(), moves, &sides, &windows)?
                            }
                        }
                    }
                };
                Ok(found.map(|(ply, swapped)| MaterialHit { id, ply, swapped }))
            };
            let results: Vec<Result<Option<MaterialHit>, QueryError>> =
                if jobs.iter().filter(|j| !matches!(j.1, Job::Ready(..))).count() > 1 {
                    jobs.par_iter().map(run).collect()
                } else {
                    jobs.iter().map(run).collect()
                };
            for result in results {
                if let Some(hit) = result? {
                    if !each(hit)? {
                        return Ok(false);
                    }
                }
            }
            Ok(true)
        };
        let mut replays = 0;
        let mut stretches = Vec::new();
        let mut scan = match last {
            Some(i64::MAX) => None,
            _ => Some(
                conn.prepare("SELECT game_id, stretches FROM game_material ORDER BY game_id")
                    .map_err(&e)?,
            ),
        };
        let mut rows = match &mut scan {
            Some(st) => Some(st.query([]).map_err(&e)?),
            None => None,
        };
        loop {
            let row = match &mut rows {
                Some(rows) => rows.next().map_err(&e)?,
                None => None,
            };
            let id: Option<GameId> = row.map(|r| r.get(0)).transpose().map_err(&e)?;
            while let Some(old) = backlog_ids.next_if(|&old| id.is_none_or(|id| old < id)) {
                batch.push(Pending { id: old, work: Work::Whole });
                replays += 1;
            }
            let (Some(id), Some(row)) = (id, row) else { break };
            let blob = row.get_ref(1).map_err(&e)?.as_blob().map_err(|x| {
                e(rusqlite::Error::FromSqlConversionFailure(
                    1,
                    rusqlite::types::Type::Blob,
                    x.into(),
                ))
            })?;
            stored::decode(blob, &mut stretches)
                .map_err(|error| QueryError::Material { id, error })?;
            match self.judge(&sides, &stretches) {
                Judgement::No => {}
                Judgement::At(ply, swapped) => {
                    batch.push(Pending { id, work: Work::Ready(swapped, ply) });
                }
                Judgement::Replay(windows) => {
                    batch.push(Pending { id, work: Work::Windows(windows) });
                    replays += 1;
                }
            }
            if replays >= REPLAY_BATCH || batch.len() >= READY_BATCH {
                replays = 0;
                if !flush(&mut batch)? {
                    return Ok(());
                }
            }
        }
        flush(&mut batch)?;
        Ok(())
    }

    /// The number of matching games.
    ///
    /// # Errors
    /// As [`MaterialSearch::for_each_hit`].
    pub fn count(&self, conn: &Connection) -> Result<u64, QueryError> {
        let mut n = 0;
        self.for_each_hit(conn, |_| {
            n += 1;
            Ok(true)
        })?;
        Ok(n)
    }

    /// Calls `each` for the matching games of `page`, in id order, with
    /// the first ply where the condition holds (with their tag pairs and
    /// movetext when `whole`, as [`super::search::Search::find`]).
    ///
    /// # Errors
    /// As [`MaterialSearch::for_each_hit`], and [`QueryError::Output`] when
    /// `each` fails.
    pub fn find(
        &self,
        conn: &Connection,
        page: Page,
        whole: bool,
        mut each: impl FnMut(Found) -> std::io::Result<()>,
    ) -> Result<FindStats, QueryError> {
        let e = QueryError::sqlite(conn);
        let mut game_sql = conn
            .prepare(&format!("SELECT {} FROM games AS g WHERE g.id = ?1", *GAME_COLUMNS))
            .map_err(&e)?;
        let mut stats = FindStats::default();
        let mut skip = page.offset;
        self.for_each_hit(conn, |MaterialHit { id, ply, .. }| {
            if skip > 0 {
                skip -= 1;
                return Ok(true);
            }
            if page.limit.is_some_and(|l| stats.returned >= l) {
                stats.more = true;
                return Ok(false);
            }
            let Some(mut game) = game_sql.query_row([id], Game::read_row).optional().map_err(&e)?
            else {
                return Ok(true);
            };
            if whole {
                game.write_back_movetext(conn)?;
                game.load_tags(conn)?;
            }
            each(Found { game, ply: Some(ply) }).map_err(QueryError::Output)?;
            stats.returned += 1;
            Ok(true)
        })?;
        Ok(stats)
    }
}

/// The practical results of a material (or pattern) condition: the games
/// that reach it, their results from the side of the spec's first
/// (White's) material, ratings, and the plies played after it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ending {
    /// Games that reach it.
    pub games: u64,
    /// Won by the side with the spec's first material (White, or Black
    /// in a game that reaches it with the colours swapped).
    pub first_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by the other side.
    pub second_wins: u64,
    /// Sum of the players' ratings (both players, where known).
    pub elo_sum: i64,
    /// Number of ratings summed.
    pub elo_count: u64,
    /// Sum of the plies played after the first position that meets it.
    pub plies_after: u64,
}

impl Ending {
    /// `part` of the games in percent, one decimal.
    pub fn percent(&self, part: u64) -> f64 {
        if self.games == 0 {
            return 0.0;
        }
        (part as f64 * 1000.0 / self.games as f64).round() / 10.0
    }

    /// The average rating, rounded; `None` without ratings.
    pub fn avg_elo(&self) -> Option<i64> {
        (self.elo_count > 0).then(|| {
            let n = self.elo_count as i64;
            self.elo_sum.saturating_add(n / 2).div_euclid(n)
        })
    }

    /// The average plies played after reaching it, one decimal.
    pub fn avg_plies_after(&self) -> Option<f64> {
        (self.games > 0)
            .then(|| (self.plies_after as f64 * 10.0 / self.games as f64).round() / 10.0)
    }
}

impl MaterialSearch {
    /// The [`Ending`] of the matching games.
    ///
    /// # Errors
    /// As [`MaterialSearch::for_each_hit`].
    pub fn ending(&self, conn: &Connection) -> Result<Ending, QueryError> {
        let e = QueryError::sqlite(conn);
        let mut st = conn
            .prepare("SELECT result, white_elo, black_elo, ply_count FROM games WHERE id = ?1")
            .map_err(&e)?;
        let mut ending = Ending::default();
        self.for_each_hit(conn, |hit| {
            type Row = (Option<String>, Option<i64>, Option<i64>, i64);
            let row: Option<Row> = st
                .query_row([hit.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .optional()
                .map_err(&e)?;
            let Some((result, white_elo, black_elo, ply_count)) = row else { return Ok(true) };
            ending.games += 1;
            let (first, second) = match hit.swapped {
                false => (Outcome::WhiteWins, Outcome::BlackWins),
                true => (Outcome::BlackWins, Outcome::WhiteWins),
            };
            match result.as_deref().and_then(Outcome::from_result) {
                Some(o) if o == first => ending.first_wins += 1,
                Some(o) if o == second => ending.second_wins += 1,
                Some(_) => ending.draws += 1,
                None => {}
            }
            for elo in [white_elo, black_elo].into_iter().flatten() {
                // Saturating: a database edited by hand may hold any integer.
                ending.elo_sum = ending.elo_sum.saturating_add(elo);
                ending.elo_count += 1;
            }
            ending.plies_after +=
                u64::try_from(ply_count).unwrap_or(0).saturating_sub(u64::from(hit.ply));
            Ok(true)
        })?;
        Ok(ending)
    }
}

/// Games replayed together on rayon's pool.
const REPLAY_BATCH: usize = 512;

/// Games whose hit is known gathered before they are handed on (the
/// filters are checked then).
const READY_BATCH: usize = 4096;

/// A game met in id order whose answer is settled with its batch.
struct Pending {
    id: GameId,
    work: Work,
}

/// What settling a [`Pending`] game takes.
enum Work {
    /// The index says: the first ply (colours swapped?) and ply.
    Ready(bool, u32),
    /// The pattern, replayed in these windows.
    Windows(Vec<Window>),
    /// A game without an index row: replayed whole.
    Whole,
}

/// A [`Work`] with the game read.
enum Job {
    Ready(u32, bool),
    Windows(Option<String>, String, Vec<Window>),
    Whole(Option<String>, String),
}

/// What a game's stretches say.
enum Judgement {
    /// The condition never holds.
    No,
    /// It holds first at this ply (`true`: with the colours swapped).
    At(u32, bool),
    /// A pattern may hold in these windows: replay to know.
    Replay(Vec<Window>),
}

/// A stored game's stretches, by replay.
fn replay_stretches(
    id: GameId,
    start: Option<&str>,
    moves: &str,
) -> Result<Vec<Stretch>, QueryError> {
    let to_error = |error| QueryError::Replay { id, error };
    let mut replay = Replay::new(start, moves).map_err(to_error)?;
    let mut built = StretchBuilder::default();
    built.push(Material::of(replay.position().board()));
    while replay.step().map_err(to_error)?.is_some() {
        built.push(Material::of(replay.position().board()));
    }
    Ok(built.stretches)
}

/// The first ply within `windows` where the pattern of a side whose
/// window it is holds, and whether that side is the swapped one.
fn first_pattern_ply(
    id: GameId,
    start: Option<&str>,
    moves: &str,
    sides: &[Side],
    windows: &[Window],
) -> Result<Option<(u32, bool)>, QueryError> {
    let to_error = |error| QueryError::Replay { id, error };
    let mut replay = Replay::new(start, moves).map_err(to_error)?;
    let mut next = windows.iter().map(|w| w.0).min();
    while let Some(ply) = next {
        let mask = windows.iter().filter(|w| w.0 <= ply && ply <= w.1).fold(0, |m, w| m | w.2);
        if mask == 0 {
            next = windows.iter().map(|w| w.0).filter(|&f| f > ply).min();
            continue;
        }
        if !replay.advance_to(ply).map_err(to_error)? {
            return Ok(None);
        }
        let board = replay.position().board();
        let hit = sides.iter().enumerate().position(|(i, side)| {
            mask & (1 << i) != 0 && side.pattern.as_ref().is_none_or(|p| p.matches(board))
        });
        if let Some(side) = hit {
            return Ok(Some((ply, side == 1)));
        }
        next = Some(ply + 1);
    }
    Ok(None)
}
