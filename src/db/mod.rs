//! The SQLite database: opening (read-only for queries, read-write for
//! imports), the schema in `migrations/`, and the pragmas of each mode.
//! SQL that belongs to one stage lives with that stage (`import::writer`,
//! the query commands); this module owns only the file and its schema.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

mod header;
pub use header::Header;

/// The schema, one SQL file per version, applied in order.
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/0001_init.sql"),
    include_str!("../../migrations/0002_query_indexes.sql"),
];

/// Page size of new databases.
const PAGE_SIZE: i64 = 16384;

/// The schema version this binary writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// What went wrong with a database file.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The file does not exist (query commands never create one).
    #[error("{}: no such database (create it with `pgnindex import`)", path.display())]
    Missing {
        /// The path asked for.
        path: PathBuf,
    },
    /// The file is not a pgnindex database.
    #[error("{}: not a pgnindex database ({reason})", path.display())]
    NotOurs {
        /// The path.
        path: PathBuf,
        /// What is missing or unexpected.
        reason: String,
    },
    /// Written by a newer pgnindex.
    #[error(
        "{}: schema version {found} is newer than this pgnindex knows ({SCHEMA_VERSION}); upgrade pgnindex",
        path.display()
    )]
    TooNew {
        /// The path.
        path: PathBuf,
        /// The version found.
        found: i64,
    },
    /// An SQLite error, with the file it happened on.
    // SQLite's message is part of this one (not a `source`): printed once.
    #[error("{}: {error}", path.display())]
    Sqlite {
        /// The path.
        path: PathBuf,
        /// SQLite's error.
        error: rusqlite::Error,
    },
}

/// The database path: `--db` if given, else `$PGNINDEX_DB`, else
/// `pgnindex.db` in the current directory.
pub fn default_path(arg: Option<&Path>) -> PathBuf {
    match arg {
        Some(p) => p.to_path_buf(),
        None => std::env::var_os("PGNINDEX_DB")
            .filter(|v| !v.is_empty())
            .map_or_else(|| PathBuf::from("pgnindex.db"), PathBuf::from),
    }
}

fn sqlite(path: &Path) -> impl Fn(rusqlite::Error) -> DbError + '_ {
    move |error| DbError::Sqlite { path: path.to_path_buf(), error }
}

/// Opens (creating if needed) a database for writing: WAL journal, the
/// schema brought up to date, foreign keys off (the importer keeps them
/// consistent itself; checking them per row costs time).
pub fn open_for_write(path: &Path) -> Result<Connection, DbError> {
    let conn = Connection::open(path).map_err(sqlite(path))?;
    conn.busy_timeout(std::time::Duration::from_secs(30)).map_err(sqlite(path))?;
    check_is_sqlite(&conn, path)?;
    // 16 KiB pages: measured fastest for the import (fewer page splits and
    // log frames than 4 KiB; 32 and 64 KiB were slower) and smallest on disk.
    // Takes effect only when the file is created.
    conn.pragma_update(None, "page_size", PAGE_SIZE).map_err(sqlite(path))?;
    conn.pragma_update(None, "journal_mode", "WAL").map_err(sqlite(path))?;
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(sqlite(path))?;
    migrate(&conn, path)?;
    Ok(conn)
}

/// Opens an existing database read-only (query commands): never creates
/// a file, refuses a database of an unknown or newer schema.
pub fn open_read_only(path: &Path) -> Result<Connection, DbError> {
    open_existing(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
}

/// Opens an existing database read-write (`sql --write`): never creates a
/// file and never changes its schema; refuses a database of an unknown or
/// newer schema.
pub fn open_read_write(path: &Path) -> Result<Connection, DbError> {
    open_existing(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
}

fn open_existing(path: &Path, mode: OpenFlags) -> Result<Connection, DbError> {
    if !path.exists() {
        return Err(DbError::Missing { path: path.to_path_buf() });
    }
    let flags = mode | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(sqlite(path))?;
    conn.busy_timeout(std::time::Duration::from_secs(30)).map_err(sqlite(path))?;
    check_is_sqlite(&conn, path)?;
    let version = user_version(&conn, path)?;
    if version > SCHEMA_VERSION {
        return Err(DbError::TooNew { path: path.to_path_buf(), found: version });
    }
    if version < 1 {
        return Err(DbError::NotOurs {
            path: path.to_path_buf(),
            reason: "no pgnindex schema".to_string(),
        });
    }
    Ok(conn)
}

/// Reads the header: a file that is not SQLite fails here with SQLite's
/// "file is not a database".
fn check_is_sqlite(conn: &Connection, path: &Path) -> Result<(), DbError> {
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0))
        .map(drop)
        .map_err(sqlite(path))
}

/// The schema version stored in the file.
pub fn user_version(conn: &Connection, path: &Path) -> Result<i64, DbError> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(sqlite(path))
}

/// Applies the migrations the file lacks, each in its own transaction.
fn migrate(conn: &Connection, path: &Path) -> Result<(), DbError> {
    let version = user_version(conn, path)?;
    if version > SCHEMA_VERSION {
        return Err(DbError::TooNew { path: path.to_path_buf(), found: version });
    }
    if version == 0 {
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table'", [], |r| r.get(0))
            .map_err(sqlite(path))?;
        if tables > 0 {
            return Err(DbError::NotOurs {
                path: path.to_path_buf(),
                reason: format!("it has {tables} tables but no pgnindex schema version"),
            });
        }
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let script = format!("BEGIN IMMEDIATE;\n{sql}\nPRAGMA user_version = {};\nCOMMIT;", i + 1);
        if let Err(e) = conn.execute_batch(&script) {
            let _ = conn.execute_batch("ROLLBACK");
            return Err(sqlite(path)(e));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_then_reopen_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        assert!(matches!(open_read_only(&path), Err(DbError::Missing { .. })));
        assert!(!path.exists(), "a read-only open must not create the file");
        let conn = open_for_write(&path).unwrap();
        assert_eq!(user_version(&conn, &path).unwrap(), SCHEMA_VERSION);
        drop(conn);
        let conn = open_read_only(&path).unwrap();
        let n: i64 = conn.query_row("SELECT count(*) FROM games", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 0);
        let err = conn.execute("DELETE FROM games", []).unwrap_err();
        assert!(err.to_string().contains("readonly"), "{err}");
        // Opening again for writing applies nothing twice.
        drop(conn);
        open_for_write(&path).unwrap();
        // Read-write without creating: writes work, a missing file stays missing.
        let conn = open_read_write(&path).unwrap();
        conn.execute("DELETE FROM games", []).unwrap();
        let missing = dir.path().join("missing.db");
        assert!(matches!(open_read_write(&missing), Err(DbError::Missing { .. })));
        assert!(!missing.exists());
    }

    #[test]
    fn newer_schema_and_foreign_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        open_for_write(&path).unwrap().pragma_update(None, "user_version", 99).unwrap();
        let err = open_for_write(&path).unwrap_err().to_string();
        assert!(err.contains("schema version 99 is newer"), "{err}");
        assert!(open_read_only(&path).unwrap_err().to_string().contains("newer"));

        let other = dir.path().join("other.db");
        Connection::open(&other).unwrap().execute_batch("CREATE TABLE x(y)").unwrap();
        let err = open_for_write(&other).unwrap_err().to_string();
        assert!(err.contains("not a pgnindex database"), "{err}");

        let text = dir.path().join("text.db");
        std::fs::write(&text, "this is not sqlite, just text that is long enough........").unwrap();
        let err = open_read_only(&text).unwrap_err().to_string();
        assert!(err.contains("text.db") && err.contains("not a database"), "{err}");
    }
}
