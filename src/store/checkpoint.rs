//! [`Checkpointer`]: folds the write-ahead log into the database file on a
//! thread of its own while the writer goes on.
//!
//! In WAL mode every page is written twice: into the log at commit, then
//! into the database file by a checkpoint. SQLite's automatic checkpoint
//! runs on the committing connection, so the writer — the import's one
//! serial stage — used to spend a quarter of its time copying pages. Here
//! the writer's automatic checkpoint is off, and after each commit it asks
//! this thread, which runs a PASSIVE checkpoint on its own connection
//! (checkpoints and writers do not block each other in WAL mode).
//!
//! The log restarts from its beginning only when a write transaction starts
//! with every frame already copied; with the copying running alongside,
//! that never happens by itself. So once the log passes [`WAL_LIMIT`], the
//! writer waits for the running checkpoint, copies what is left (the last
//! commit, typically) and the next transaction restarts the log: its size
//! stays bounded. But a transaction that restarted the log holds it as a
//! reader of the database file alone (SQLite's read lock 0), and no other
//! checkpoint can copy anything until it ends: the thread copies a commit
//! only while the next one is written. So the writer copies only once the
//! log holds two commits since it restarted: the thread copies the first
//! while the writer writes the second, and the writer copies the second:
//! half the copying where each batch alone fills the log.
//!
//! A checkpoint that fails here (a reader holding an old snapshot, say)
//! costs nothing: the frames stay in the log, and the next checkpoint —
//! at the latest the writer's final one — copies them.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::Connection;

use super::background::Background;
use crate::timings::{self, Span, Stage};

/// Log size past which the writer copies the rest itself so that the log
/// restarts: in practice after every batch. A log that restarts is
/// written over pages the system already holds, about seven times cheaper
/// than growing a file (system time per gigabyte written, measured with
/// `dd`); with a 1 GiB limit an import without positions was a sixth
/// slower.
pub const WAL_LIMIT: u64 = 64 << 20;

/// The background checkpoint thread.
pub struct Checkpointer {
    wal: PathBuf,
    /// [`WAL_LIMIT`], or less in tests.
    limit: u64,
    thread: Background,
    /// Held while a checkpoint runs, by either side.
    running: Arc<Mutex<()>>,
    /// Commits since the writer last copied the whole log.
    commits: std::cell::Cell<u32>,
}

impl Checkpointer {
    /// Starts the thread for the database at `path` (already in WAL mode).
    /// `None` if its connection cannot be opened or the thread not started:
    /// the writer then checkpoints as SQLite does by default.
    pub fn start(path: &Path) -> Option<Checkpointer> {
        Checkpointer::with_limit(path, WAL_LIMIT)
    }

    /// [`Checkpointer::start`] with another log size limit.
    pub fn with_limit(path: &Path, limit: u64) -> Option<Checkpointer> {
        let conn = Connection::open(path).ok()?;
        // As the writer's: the pages reach the disk through the sync thread
        // and the import's final, synced checkpoint, not one sync per copy
        // (with one, the writer waited on the thread's syncs).
        conn.execute_batch("PRAGMA synchronous = OFF").ok()?;
        let running = Arc::new(Mutex::new(()));
        let lock = Arc::clone(&running);
        let stage = (Stage::Checkpoint, Span::Checkpointing);
        let thread = Background::start("pgnindex-checkpoint", stage, move || {
            let _held = lock.lock().unwrap_or_else(PoisonError::into_inner);
            // See the module documentation: a failure is harmless.
            let _ = conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE)");
        })?;
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let commits = std::cell::Cell::new(0);
        Some(Checkpointer { wal: PathBuf::from(wal), limit, thread, running, commits })
    }

    /// After a commit of the writer's connection `conn`: asks the thread
    /// for a checkpoint, or — past [`WAL_LIMIT`], with two commits or more
    /// in the log since it restarted — waits for the running one and copies
    /// the rest on `conn`, so that the next transaction restarts the log.
    ///
    /// # Errors
    /// The writer's checkpoint failing.
    pub fn after_commit(&self, conn: &Connection) -> rusqlite::Result<()> {
        let wal_size = std::fs::metadata(&self.wal).map_or(0, |m| m.len());
        self.commits.set(self.commits.get().saturating_add(1));
        if wal_size > self.limit && self.commits.get() >= 2 {
            timings::timed(Span::WriterCheckpoint, || {
                let _held = self.running.lock().unwrap_or_else(PoisonError::into_inner);
                conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE)")
            })?;
            self.commits.set(0);
        } else {
            self.thread.request();
        }
        Ok(())
    }

    /// Stops the thread (after its running checkpoint).
    pub fn stop(self) {
        self.thread.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database `t.db` in WAL mode without automatic checkpoints, with a
    /// table `t`.
    fn wal_database() -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::open(dir.path().join("t.db")).unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; \
             CREATE TABLE t (x BLOB);",
        )
        .unwrap();
        (dir, conn)
    }

    /// Commits a row of 100 kB, as the writer does a batch.
    fn commit_100_kb(conn: &Connection, checkpointer: &Checkpointer) {
        conn.execute_batch("BEGIN; INSERT INTO t VALUES (randomblob(100000)); COMMIT;").unwrap();
        checkpointer.after_commit(conn).unwrap();
    }

    #[test]
    fn checkpoints_in_the_background_and_bounds_the_log() {
        let (dir, conn) = wal_database();
        let (path, wal) = (dir.path().join("t.db"), dir.path().join("t.db-wal"));
        let limit = 500_000;
        let checkpointer = Checkpointer::with_limit(&path, limit).unwrap();
        let mut largest_wal = 0;
        for _ in 0..40 {
            commit_100_kb(&conn, &checkpointer);
            largest_wal = largest_wal.max(std::fs::metadata(&wal).unwrap().len());
        }
        checkpointer.stop();
        // The thread copied every commit (its last request came after the
        // last one) into the database file; the writer's connection never
        // checkpointed by itself below the limit.
        let db_size = std::fs::metadata(&path).unwrap().len();
        assert!(db_size > 40 * 100_000, "database file holds the rows: {db_size}");
        // Without restarts the log would hold all 4 MB.
        assert!(largest_wal < limit + 3 * 110_000, "log bounded: {largest_wal}");
        let (busy, log, copied): (i64, i64, i64) = conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .unwrap();
        assert_eq!((busy, log), (0, copied));
        let n: i64 = conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 40);
    }

    /// Commits each larger than the limit: the writer copies every second
    /// one (the thread the first, while the second is written), and the
    /// log holds two commits at most.
    #[test]
    fn the_writer_copies_every_second_commit_of_a_full_log() {
        let (dir, conn) = wal_database();
        let (path, wal) = (dir.path().join("t.db"), dir.path().join("t.db-wal"));
        let checkpointer = Checkpointer::with_limit(&path, 50_000).unwrap();
        let mut pending = Vec::new();
        let mut largest_wal = 0;
        for _ in 0..12 {
            commit_100_kb(&conn, &checkpointer);
            pending.push(checkpointer.commits.get());
            largest_wal = largest_wal.max(std::fs::metadata(&wal).unwrap().len());
        }
        checkpointer.stop();
        assert_eq!(pending, [1, 0].repeat(6), "commits left to the thread after each");
        assert!(largest_wal < 2 * 110_000 + 50_000, "two commits at most: {largest_wal}");
        let n: i64 = conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 12);
    }
}
