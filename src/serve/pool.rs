//! A bounded pool of read-only connections: at most `size` reads run at a
//! time, each on tokio's blocking threads with a connection of its own.
//! All `size` connections are opened at start, so that no request fails
//! later for want of a file.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::Connection;
use tokio::sync::Semaphore;

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
    idle: Mutex<Vec<Connection>>,
    permits: Semaphore,
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
        let mut idle = vec![conn];
        while idle.len() < size {
            idle.push(db::open_read_only(path)?);
        }
        Ok(Pool {
            path: path.to_path_buf(),
            idle: Mutex::new(idle),
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
        let conn = self.take()?;
        let out = {
            let tx = conn.unchecked_transaction().map_err(QueryError::sqlite(&conn))?;
            let out = read(&conn);
            drop(tx);
            out
        };
        self.give_back(conn);
        Ok(out?)
    }

    fn take(&self) -> Result<Connection, PoolError> {
        let idle = self.idle.lock().map_err(|_| PoolError::Busy)?.pop();
        match idle {
            Some(conn) => Ok(conn),
            None => Ok(db::open_read_only(&self.path)?),
        }
    }

    fn give_back(&self, conn: Connection) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(conn);
        }
    }
}
