//! A bounded pool of read-only connections: at most `size` reads run at a
//! time, each on tokio's blocking threads with a connection of its own.
//! All `size` connections are opened at start, so that no request fails
//! later for want of a file; a database file replaced under the server is
//! opened anew.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::Connection;
use tokio::sync::Semaphore;

use super::cache::{self, FileId};
use crate::chess::Position;
use crate::db::{self, DbError};
use crate::query::search::Search;
use crate::query::target::Target;
use crate::query::QueryError;

/// Why a read failed.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// The database could not be opened.
    #[error(transparent)]
    Open(#[from] DbError),
    /// The query failed.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// The pool is closed (the server is stopping).
    #[error("the server is stopping")]
    Busy,
    /// The read stopped unexpectedly.
    #[error("the read stopped: {0}")]
    Stopped(String),
}

/// Read-only connections to one database.
#[derive(Debug)]
pub struct Pool {
    path: PathBuf,
    state: Mutex<State>,
    permits: Semaphore,
}

/// Which file the connections read, and those idle.
#[derive(Debug)]
struct State {
    /// The file's identity when the connections were opened.
    file: Option<FileId>,
    /// Counts the files read: a connection of an older one is dropped.
    generation: u64,
    idle: Vec<(u64, Connection)>,
}

/// The identity of the file at `path` now, if it can be read.
fn file_id(path: &Path) -> Option<FileId> {
    std::fs::metadata(path).ok().map(|m| cache::file_id(&m))
}

impl Pool {
    /// Opens `path` `size` times (at least once), having checked on the
    /// first connection that it can answer explorer queries (it exists, is
    /// a pgnindex database, and has a position index); at most `size`
    /// reads at a time.
    ///
    /// # Errors
    /// [`PoolError::Open`] or [`PoolError::Query`] naming the database.
    pub fn open(path: &Path, size: usize) -> Result<Pool, PoolError> {
        let conn = db::open_read_only(path)?;
        let start =
            Search { target: Some(Target::from_position(Position::new())), ..Search::default() };
        start.index_coverage(&conn)?;
        let file = file_id(path);
        let mut idle = vec![(0, conn)];
        while idle.len() < size {
            idle.push((0, db::open_read_only(path)?));
        }
        Ok(Pool {
            path: path.to_path_buf(),
            state: Mutex::new(State { file, generation: 0, idle }),
            permits: Semaphore::new(size.max(1)),
        })
    }

    /// Runs `read` on a connection of the pool, on a blocking thread, in
    /// one read transaction.
    ///
    /// # Errors
    /// [`PoolError`] from opening a connection, from `read`, or when the
    /// read stopped.
    pub async fn read<T, F>(self: &std::sync::Arc<Self>, read: F) -> Result<T, PoolError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, QueryError> + Send + 'static,
    {
        let _permit = self.permits.acquire().await.map_err(|_| PoolError::Busy)?;
        let pool = std::sync::Arc::clone(self);
        let task = tokio::task::spawn_blocking(move || pool.blocking(read));
        task.await.map_err(|e| PoolError::Stopped(e.to_string()))?
    }

    /// Runs `read` on a connection of the pool on this thread, in one read
    /// transaction ([`Pool::read`] runs it on a blocking thread).
    ///
    /// # Errors
    /// [`PoolError`] from opening a connection or from `read`.
    pub fn blocking<T>(
        &self,
        read: impl FnOnce(&Connection) -> Result<T, QueryError>,
    ) -> Result<T, PoolError> {
        let (generation, conn) = self.take()?;
        let out = {
            let tx = conn.unchecked_transaction().map_err(QueryError::sqlite(&conn))?;
            let out = read(&conn);
            drop(tx);
            out
        };
        self.give_back(generation, conn);
        Ok(out?)
    }

    /// Counts the files the pool has read: it grows when the database is
    /// replaced under the server, whose in-memory state of the old file
    /// must then be dropped.
    pub fn generation(&self) -> u64 {
        self.state().generation
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// An idle connection to the file at the path now, or a new one: a
    /// file replaced since (another inode at the path) drops the
    /// connections to the old one.
    fn take(&self) -> Result<(u64, Connection), PoolError> {
        let generation = {
            let mut state = self.state();
            let now = file_id(&self.path);
            if now.is_some() && now != state.file {
                state.file = now;
                state.generation += 1;
                state.idle.clear();
            }
            if let Some(idle) = state.idle.pop() {
                return Ok(idle);
            }
            state.generation
        };
        Ok((generation, db::open_read_only(&self.path)?))
    }

    fn give_back(&self, generation: u64, conn: Connection) {
        let mut state = self.state();
        if state.generation == generation {
            state.idle.push((generation, conn));
        }
    }
}
