//! `pgnindex vacuum`: the index rows of deleted games dropped from every
//! segment, then SQLite's `VACUUM`, which rewrites the file without its
//! free pages.
//!
//! A deleted game (schema version 5) leaves its rows in the position and
//! dedupe segments, which are not keyed by game: the `positions` view and
//! the importer's merges skip them by `deleted_games`. Here each segment
//! is read once and loses those rows, and `deleted_games` is emptied.

use std::path::Path;

use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::dedupe::DedupeIndex;
use super::format::positions::{self, checked_name};
use super::segments;
use super::writer::{import_lock, WriteError};
use crate::db::{self, DbError, Sharing};

/// What [`vacuum`] is doing, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Dropping the deleted games' rows from segment `done + 1` of `of`.
    Purging {
        /// Segments done.
        done: usize,
        /// Segments in all.
        of: usize,
    },
    /// SQLite's `VACUUM`: the file rewritten without its free pages.
    Compacting,
}

/// What [`vacuum`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Vacuumed {
    /// Deleted games whose rows were dropped.
    pub games: u64,
    /// Position rows dropped.
    pub positions: u64,
    /// The file's size before, in bytes.
    pub size_before: u64,
    /// The file's size after, in bytes.
    pub size_after: u64,
}

/// Drops the index rows of deleted games and compacts the database at
/// `path`, telling `step` what it is doing. Takes the import lock and
/// SQLite's exclusive lock (queries wait meanwhile); migrates the schema
/// first, as an import does.
///
/// # Errors
/// [`DbError::Missing`] if there is no database (none is created),
/// [`WriteError::Busy`] while an import runs, database errors otherwise.
pub fn vacuum(path: &Path, step: &mut dyn FnMut(Step)) -> Result<Vacuumed, WriteError> {
    if !path.exists() {
        return Err(DbError::Missing { path: path.to_path_buf() }.into());
    }
    let size = || std::fs::metadata(path).map_or(0, |m| m.len());
    let size_before = size();
    let _lock = import_lock(path)?;
    let conn = db::open_for_import(path, Sharing::Exclusive)?;
    let sqlite = |error| WriteError::Sqlite { path: path.to_path_buf(), error };
    let (games, positions) = purge(&conn, step).map_err(sqlite)?;
    db::players::ensure_current(&conn).map_err(sqlite)?;
    step(Step::Compacting);
    conn.execute_batch("VACUUM").map_err(sqlite)?;
    // Shared with readers in WAL mode, the log is folded into the file
    // before it is measured.
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").map_err(sqlite)?;
    db::rest(&conn).map_err(sqlite)?;
    drop(conn);
    Ok(Vacuumed { games, positions, size_before, size_after: size() })
}

/// Drops the rows of the games `deleted_games` lists from every segment
/// (and segments left empty), and empties it: the number of games and of
/// position rows. One transaction, after the leftovers of a cut merge are
/// dropped.
fn purge(conn: &Connection, step: &mut dyn FnMut(Step)) -> rusqlite::Result<(u64, u64)> {
    segments::drop_orphans(conn)?;
    DedupeIndex::open(conn)?;
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let games: i64 = tx.query_row("SELECT count(*) FROM deleted_games", [], |r| r.get(0))?;
    let mut positions = 0;
    if games > 0 {
        let positions_tables: Vec<(String, String)> = positions::segments(&tx, None)?
            .into_iter()
            .map(|s| (s.name, s.layout.game_id_sql()))
            .collect();
        let dedupe_tables: Vec<(String, String)> = tx
            .prepare("SELECT name FROM dedupe_segments ORDER BY id")?
            .query_map([], |r| Ok((checked_name("dedupe", r.get(0)?)?, "game_id".to_string())))?
            .collect::<Result<_, _>>()?;
        let of = positions_tables.len() + dedupe_tables.len();
        let mut done = 0;
        let mut each = || {
            step(Step::Purging { done, of });
            done += 1;
        };
        positions = purge_segments(&tx, "position_segments", &positions_tables, &mut each)?;
        purge_segments(&tx, "dedupe_segments", &dedupe_tables, &mut each)?;
        // The explorer's late visits are kept by game as well (no index on
        // the game: one pass over a small table).
        tx.execute(
            "DELETE FROM explorer_late WHERE game_id IN (SELECT game_id FROM deleted_games)",
            [],
        )?;
        tx.execute("DELETE FROM deleted_games", [])?;
        segments::rewrite_view(&tx)?;
    }
    tx.commit()?;
    segments::refresh_view(conn)?;
    Ok((games as u64, positions))
}

/// Deletes the deleted games' rows from each segment of `tables` (a
/// table that `registry` lists, and the SQL of its rows' game id), keeps
/// its row counts true, and drops the segments left empty: the rows
/// deleted. `each` is called before each table.
fn purge_segments(
    conn: &Connection,
    registry: &str,
    tables: &[(String, String)],
    each: &mut dyn FnMut(),
) -> rusqlite::Result<u64> {
    let mut total = 0;
    for (name, game_id) in tables {
        each();
        let n = conn.execute(
            &format!("DELETE FROM {name} WHERE {game_id} IN (SELECT game_id FROM deleted_games)"),
            [],
        )?;
        if n == 0 {
            continue;
        }
        total += n as u64;
        conn.execute(
            &format!("UPDATE {registry} SET rows = rows - ?2 WHERE name = ?1"),
            rusqlite::params![name, n as i64],
        )?;
        let left: i64 =
            conn.query_row(&format!("SELECT rows FROM {registry} WHERE name = ?1"), [name], |r| {
                r.get(0)
            })?;
        if left <= 0 {
            conn.execute(&format!("DELETE FROM {registry} WHERE name = ?1"), [name])?;
            conn.execute_batch(&format!("DROP TABLE {name}"))?;
        }
    }
    Ok(total)
}
