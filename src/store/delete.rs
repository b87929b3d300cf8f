//! [`Deleter`]: deletes games by id, for `pgnindex delete`.
//!
//! The schema's trigger on `games` does the bookkeeping of each deleted
//! game (its tag pairs, its source's counters, `deleted_games`); the
//! deleter holds the import lock and SQLite's exclusive lock while the
//! caller picks the games on [`Deleter::connection`], so that nothing
//! changes between the choice and the delete.

use std::fs::File;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::writer::{import_lock, WriteError};
use super::{segments, tree};
use crate::db::{self, players, DbError, GameId, Sharing};

/// A database opened to delete games.
#[derive(Debug)]
pub struct Deleter {
    conn: Connection,
    path: PathBuf,
    _lock: File,
}

impl Deleter {
    /// Opens the existing database at `path` (migrated, as an import does),
    /// taking the import lock and SQLite's exclusive lock.
    ///
    /// # Errors
    /// [`DbError::Missing`] if there is no database (none is created),
    /// [`WriteError::Busy`] while an import runs, database errors otherwise.
    pub fn open(path: &Path) -> Result<Deleter, WriteError> {
        if !path.exists() {
            return Err(DbError::Missing { path: path.to_path_buf() }.into());
        }
        let lock = import_lock(path)?;
        let conn = db::open_for_import(path, Sharing::Exclusive)?;
        let sqlite = |error| WriteError::Sqlite { path: path.to_path_buf(), error };
        segments::refresh_view(&conn).map_err(sqlite)?;
        tree::ensure_complete(&conn).map_err(sqlite)?;
        Ok(Deleter { conn, path: path.to_path_buf(), _lock: lock })
    }

    /// The connection, to pick the games with (a query reads it as any).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Deletes the games `ids` in one transaction (taking them out of the
    /// explorer's tree), and leaves the file in
    /// rollback-journal mode: the number of games deleted.
    ///
    /// # Errors
    /// Database errors; nothing is deleted then.
    pub fn delete(self, ids: &[GameId]) -> Result<u64, WriteError> {
        let sqlite = |error| WriteError::Sqlite { path: self.path.clone(), error };
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(sqlite)?;
        let mut deleted = 0;
        let removed = tree::remove_games(&tx, ids).map_err(sqlite)?;
        // The players are counted once, after the deletes, not by the
        // triggers for each game: all of them (a delete adds none).
        let _all_counted_again = players::set_live(&tx).map_err(sqlite)?;
        {
            let mut st = tx.prepare("DELETE FROM game_rows WHERE id = ?1").map_err(sqlite)?;
            for id in ids {
                deleted += st.execute([id]).map_err(sqlite)? as u64;
            }
        }
        removed.finish(&tx).map_err(sqlite)?;
        players::rebuild(&tx).map_err(sqlite)?;
        tx.commit().map_err(sqlite)?;
        db::rest(&self.conn).map_err(sqlite)?;
        Ok(deleted)
    }
}
