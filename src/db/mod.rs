//! The SQLite database: opening (read-only for queries, read-write for
//! imports), the schema in `migrations/`, and the pragmas of each mode.
//! SQL that belongs to one stage lives with that stage (`store::writer`,
//! the query commands); this module owns only the file, its schema, and
//! the vocabulary of its rows ([`columns`], [`Header`], [`GameId`],
//! [`Speed`]).

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

pub mod columns;
pub mod dates;
mod game_id;
mod header;
pub mod move_codes;
pub mod packed_fen;
pub mod packed_moves;
pub mod players;
pub mod schema;
mod speed;
pub mod texts;
pub use game_id::{GameId, GameIdError};
pub use header::Header;
pub use speed::{Speed, UnknownSpeed};

/// The schema, one SQL file per version, applied in order.
pub(crate) const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/0001_init.sql"),
    include_str!("../../migrations/0002_query_indexes.sql"),
    include_str!("../../migrations/0003_game_tags.sql"),
    include_str!("../../migrations/0004_dedupe_segments.sql"),
    include_str!("../../migrations/0005_deleted_games.sql"),
    include_str!("../../migrations/0006_source_indexing.sql"),
    include_str!("../../migrations/0007_game_analysis_columns.sql"),
    include_str!("../../migrations/0008_players_view.sql"),
    include_str!("../../migrations/0009_game_openings.sql"),
    include_str!("../../migrations/0010_ply_data.sql"),
    include_str!("../../migrations/0011_compact_movetext.sql"),
    include_str!("../../migrations/0012_packed_positions.sql"),
    include_str!("../../migrations/0013_compact_tags_and_times.sql"),
    include_str!("../../migrations/0014_material_index.sql"),
    include_str!("../../migrations/0015_explorer_tree.sql"),
    include_str!("../../migrations/0016_game_texts.sql"),
    include_str!("../../migrations/0017_packed_moves.sql"),
    include_str!("../../migrations/0018_engine_notes.sql"),
    include_str!("../../migrations/0019_compact_rows.sql"),
    include_str!("../../migrations/0020_explorer_late.sql"),
    include_str!("../../migrations/0021_explorer_deep.sql"),
    include_str!("../../migrations/0022_segment_names.sql"),
    include_str!("../../migrations/0023_move_codes.sql"),
    include_str!("../../migrations/0024_player_rows.sql"),
    include_str!("../../migrations/0025_previous_clock.sql"),
    include_str!("../../migrations/0026_mover_ratings.sql"),
    include_str!("../../migrations/0027_summary_speed.sql"),
    include_str!("../../migrations/0028_explorer_masters.sql"),
    include_str!("../../migrations/0029_player_tallies.sql"),
    include_str!("../../migrations/0030_plies_reads.sql"),
    include_str!("../../migrations/0031_dedupe_filter.sql"),
    include_str!("../../migrations/0032_clock_use.sql"),
];

/// The schema the migrations build, as one script: what a new file gets,
/// in one transaction, instead of 23 migrations and their commits (some
/// 50 ms an import). A test checks it against the migrations.
const SCHEMA: &str = include_str!("../../migrations/schema.sql");

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
    /// `--db` names a directory.
    #[error("{}: is a directory, not a database file", path.display())]
    IsDirectory {
        /// The path.
        path: PathBuf,
    },
    /// A database in WAL mode with changes in its `-wal` file, where this
    /// user cannot create the `-shm` file that reading them needs.
    #[error(
        "{}: its -wal file holds changes that only a user who can write beside the database can read; \
         have its owner fold them in (`sqlite3 DB 'PRAGMA wal_checkpoint'`), or copy the database somewhere writable",
        path.display()
    )]
    ReadOnlyWal {
        /// The path.
        path: PathBuf,
    },
    /// An exclusive import, a delete or a vacuum could not take the
    /// database.
    #[error(
        "{}: in use by another process; an --exclusive import, delete and vacuum need the database to themselves",
        path.display()
    )]
    InUse {
        /// The path.
        path: PathBuf,
    },
    /// An import was cut while writing in exclusive mode: its unfinished
    /// transaction must be rolled back by a writer first.
    #[error(
        "{}: an import was stopped in the middle of a batch, and this file cannot be written to roll the batch back: run the import again, or read a copy you can write",
        path.display()
    )]
    Interrupted {
        /// The path.
        path: PathBuf,
    },
    /// The file cannot be created (its directory is missing or not
    /// writable), or an existing one cannot be opened for writing.
    #[error("{}: cannot {} the database: {error}", path.display(), if *.created { "create" } else { "open" })]
    CannotOpen {
        /// The path.
        path: PathBuf,
        /// `true` if the file did not exist.
        created: bool,
        /// What the operating system said.
        error: std::io::Error,
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

/// How an import shares the database with queries while it runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sharing {
    /// Write-ahead log: queries read the committed games while the import
    /// runs, and neither waits for the other. Every page is written twice
    /// (into the log, then into the database file).
    #[default]
    Readers,
    /// Rollback journal and SQLite's exclusive locking: the import holds
    /// the database from start to end (queries meanwhile fail as "locked"),
    /// and every page is written once.
    Exclusive,
}

/// Opens (creating if needed) a database for writing with queries
/// reading alongside: [`open_for_import`] with [`Sharing::Readers`].
pub fn open_for_write(path: &Path) -> Result<Connection, DbError> {
    open_for_import(path, Sharing::Readers)
}

/// Opens (creating if needed) a database for an import: the journal and
/// locks of `sharing`, the schema brought up to date, foreign keys off (the
/// importer keeps them consistent itself; checking them per row costs
/// time).
///
/// # Errors
/// [`DbError::InUse`] if `sharing` is exclusive and another process keeps
/// using the database for 30 seconds; the other [`DbError`]s as for any
/// open.
pub fn open_for_import(path: &Path, sharing: Sharing) -> Result<Connection, DbError> {
    if path.is_dir() {
        return Err(DbError::IsDirectory { path: path.to_path_buf() });
    }
    let conn = Connection::open(path).map_err(|error| cannot_open(path, error))?;
    conn.busy_timeout(std::time::Duration::from_secs(30)).map_err(sqlite(path))?;
    check_is_sqlite(&conn, path)?;
    // 16 KiB pages: measured fastest for the import (fewer page splits and
    // log frames than 4 KiB; 32 and 64 KiB were slower) and smallest on disk.
    // Takes effect only when the file is created.
    conn.pragma_update(None, "page_size", PAGE_SIZE).map_err(sqlite(path))?;
    match sharing {
        Sharing::Readers => {
            conn.pragma_update(None, "journal_mode", "WAL").map_err(sqlite(path))?;
        }
        Sharing::Exclusive if !leave_wal(&conn).map_err(sqlite(path))? => {
            // Readers hold the file in WAL mode: shared, as they allow.
            conn.pragma_update(None, "journal_mode", "WAL").map_err(sqlite(path))?;
        }
        Sharing::Exclusive => {
            // The exclusive lock is taken now (an empty write transaction)
            // and kept until the connection closes; the journal is emptied,
            // not deleted, at each commit.
            conn.pragma_update(None, "locking_mode", "EXCLUSIVE").map_err(sqlite(path))?;
            conn.pragma_update(None, "journal_mode", "TRUNCATE").map_err(sqlite(path))?;
            conn.execute_batch("BEGIN EXCLUSIVE; COMMIT;").map_err(|error| {
                if error.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) {
                    DbError::InUse { path: path.to_path_buf() }
                } else {
                    sqlite(path)(error)
                }
            })?;
        }
    }
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(sqlite(path))?;
    // This SQLite enforces foreign keys by default (a build option of the
    // bundled library): a lookup per inserted row, for references the
    // importer makes consistent itself.
    conn.pragma_update(None, "foreign_keys", false).map_err(sqlite(path))?;
    migrate(&conn, path)?;
    packed_moves::shadow_views(&conn).map_err(sqlite(path))?;
    Ok(conn)
}

/// Takes the database out of WAL mode if it is in it: `false` when other
/// connections have it open in that mode (a server or a query reading
/// beside an import), which SQLite then refuses at once, without waiting.
fn leave_wal(conn: &Connection) -> rusqlite::Result<bool> {
    if sharing_of(conn)? != Sharing::Readers {
        return Ok(true);
    }
    match conn.pragma_update(None, "journal_mode", "DELETE") {
        Ok(()) => Ok(true),
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) => Ok(false),
        Err(e) => Err(e),
    }
}

/// `true` when the database at `path` is in WAL mode and other connections
/// have it open (a running `serve`, a query): an exclusive import, a
/// `delete` or a `vacuum` then shares the file with them instead of
/// taking it alone. `false` for a missing file or any other state; a file
/// in WAL mode that nobody else holds is left in rollback-journal mode,
/// as the exclusive import about to open it would leave it.
pub fn held_in_wal(path: &Path) -> bool {
    if !path.exists() {
        return false;
    }
    let Ok(conn) = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE) else {
        return false;
    };
    matches!(leave_wal(&conn), Ok(false))
}

/// The journal mode the connection's database is in: [`Sharing::Readers`]
/// for WAL.
///
/// # Errors
/// SQLite's, reading the mode.
pub fn sharing_of(conn: &Connection) -> rusqlite::Result<Sharing> {
    let mode: String = conn.pragma_query_value(None, "journal_mode", |r| r.get(0))?;
    Ok(if mode.eq_ignore_ascii_case("wal") { Sharing::Readers } else { Sharing::Exclusive })
}

/// Leaves the database at rest: one file in rollback-journal mode, which
/// readers can open where they may not create the `-shm` file of WAL mode
/// (a read-only directory or medium, another user's database). With
/// readers holding it in WAL mode the switch is skipped, not waited for;
/// the next writer that needs WAL turns it on again.
///
/// # Errors
/// SQLite's, setting the busy timeout.
pub fn rest(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::ZERO)?;
    let _ = conn.pragma_update(None, "journal_mode", "DELETE");
    Ok(())
}

/// An empty database in memory with the latest schema: what a fresh
/// import's file holds before its first game, for a writer that describes
/// the tables without creating a file (`import --parquet`).
///
/// # Errors
/// SQLite's error, as [`DbError::Sqlite`] on the path `:memory:`.
pub fn schema_in_memory() -> Result<Connection, DbError> {
    let path = Path::new(":memory:");
    let conn = Connection::open_in_memory().map_err(sqlite(path))?;
    migrate(&conn, path)?;
    Ok(conn)
}

/// SQLite's "unable to open database file" says neither why nor (beyond
/// the path) what: the file is opened with the standard library to get the
/// system's reason, [`DbError::CannotOpen`]. Other errors are kept.
fn cannot_open(path: &Path, error: rusqlite::Error) -> DbError {
    if error.sqlite_error_code() != Some(rusqlite::ErrorCode::CannotOpen) {
        return sqlite(path)(error);
    }
    let created = !path.exists();
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create_new(created);
    match options.open(path) {
        Err(error) => DbError::CannotOpen { path: path.to_path_buf(), created, error },
        Ok(file) => {
            // Opened after all: whatever SQLite met, it was not the file.
            drop(file);
            if created {
                let _ = std::fs::remove_file(path);
            }
            sqlite(path)(error)
        }
    }
}

/// Removes the database at `path` with its journal files: for a file the
/// same command created and stored nothing in, so that a refused input
/// leaves no empty database behind. Files already gone are not an error.
pub fn remove_created(path: &Path) {
    let name = path.as_os_str();
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let mut file = name.to_os_string();
        file.push(suffix);
        let _ = std::fs::remove_file(file);
    }
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
    if path.is_dir() {
        return Err(DbError::IsDirectory { path: path.to_path_buf() });
    }
    match open_existing_as(path, mode, false) {
        // A database in WAL mode that this user cannot write beside (a
        // read-only directory or file): SQLite cannot make the `-shm` file
        // its readers share. Nobody can be writing it then, unless a
        // `-wal` file holds changes, which reading the file alone would miss.
        Err(DbError::Sqlite { error, .. })
            if mode.contains(OpenFlags::SQLITE_OPEN_READ_ONLY)
                && error.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly) =>
        {
            if std::fs::metadata(suffixed(path, "-wal")).is_ok_and(|m| m.len() > 0) {
                return Err(DbError::ReadOnlyWal { path: path.to_path_buf() });
            }
            open_existing_as(path, mode, true)
        }
        // The journal of an import stopped at once (killed, or a second
        // Ctrl-C): a connection that may write rolls the unfinished batch
        // back, as the next import would; the reader then sees what the
        // committed batches hold. A file it cannot write stays refused.
        Err(error @ DbError::Interrupted { .. })
            if mode.contains(OpenFlags::SQLITE_OPEN_READ_ONLY) =>
        {
            match open_existing_as(path, OpenFlags::SQLITE_OPEN_READ_WRITE, false) {
                Ok(writer) => drop(writer),
                Err(_) => return Err(error),
            }
            open_existing_as(path, mode, false)
        }
        opened => opened,
    }
}

/// `path` with `suffix` added to its file name (`-wal`, `-shm`).
fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// `path` as an SQLite URI that opens it immutable: no lock and no
/// `-shm` file, the file read as it is.
fn immutable_uri(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().replace('\\', "/").into_bytes();
    let mut uri = String::from("file:");
    for b in bytes {
        match b {
            b'%' | b'?' | b'#' | 0x80.. | ..=0x20 => uri.push_str(&format!("%{b:02X}")),
            _ => uri.push(char::from(b)),
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// The busy handler of the existing databases this process opens, in
/// place of a 30 s busy timeout ([`set_busy_handler`]).
static BUSY_HANDLER: std::sync::OnceLock<fn(i32) -> bool> = std::sync::OnceLock::new();

/// Makes `handler` SQLite's busy handler (called with the number of tries
/// so far; `false` gives up) of every existing database this process opens
/// from now on: the query commands use one that says why they wait. The
/// first call decides.
pub fn set_busy_handler(handler: fn(i32) -> bool) {
    let _ = BUSY_HANDLER.set(handler);
}

/// How long an empty file is given to become a database: a first import
/// creates its file empty and takes its lock a moment later.
const EMPTY_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

fn open_existing_as(path: &Path, mode: OpenFlags, immutable: bool) -> Result<Connection, DbError> {
    let deadline = std::time::Instant::now() + EMPTY_WAIT;
    loop {
        match open_existing_once(path, mode, immutable) {
            // Read again once the import holds it: its busy handler then
            // waits for the import, saying why.
            Err(DbError::NotOurs { .. })
                if std::fs::metadata(path).is_ok_and(|m| m.len() == 0)
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            opened => return opened,
        }
    }
}

fn open_existing_once(
    path: &Path,
    mode: OpenFlags,
    immutable: bool,
) -> Result<Connection, DbError> {
    let flags = mode | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = if immutable {
        Connection::open_with_flags(immutable_uri(path), flags | OpenFlags::SQLITE_OPEN_URI)
    } else {
        Connection::open_with_flags(path, flags)
    }
    .map_err(sqlite(path))?;
    match BUSY_HANDLER.get() {
        Some(&handler) => conn.busy_handler(Some(handler)),
        None => conn.busy_timeout(std::time::Duration::from_secs(30)),
    }
    .map_err(sqlite(path))?;
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
    packed_moves::shadow_views(&conn).map_err(sqlite(path))?;
    Ok(conn)
}

/// Reads the header: a file that is not SQLite fails here with SQLite's
/// "file is not a database".
/// A read-only connection that finds the journal of an interrupted
/// exclusive import cannot roll it back: [`DbError::Interrupted`].
fn check_is_sqlite(conn: &Connection, path: &Path) -> Result<(), DbError> {
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0))
        .map(drop)
        .map_err(|error| match &error {
            rusqlite::Error::SqliteFailure(e, _)
                if e.extended_code == rusqlite::ffi::SQLITE_READONLY_ROLLBACK =>
            {
                DbError::Interrupted { path: path.to_path_buf() }
            }
            _ => sqlite(path)(error),
        })
}

/// The schema version stored in the file.
pub fn user_version(conn: &Connection, path: &Path) -> Result<i64, DbError> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(sqlite(path))
}

/// Applies the migrations the file lacks, each in its own transaction;
/// a file without tables gets [`SCHEMA`] whole.
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
                reason: if tables == 1 {
                    "it has a table but no pgnindex schema version".to_string()
                } else {
                    format!("it has {tables} tables but no pgnindex schema version")
                },
            });
        }
        return apply(conn, path, SCHEMA, SCHEMA_VERSION);
    }
    move_codes::register_migration_functions(conn).map_err(sqlite(path))?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        apply(conn, path, sql, i as i64 + 1)?;
    }
    Ok(())
}

/// Runs `sql` and sets `user_version` to `version` in one transaction,
/// rolled back whole if a statement fails.
fn apply(conn: &Connection, path: &Path, sql: &str, version: i64) -> Result<(), DbError> {
    let script = format!("BEGIN IMMEDIATE;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;");
    conn.execute_batch(&script).map_err(|e| {
        let _ = conn.execute_batch("ROLLBACK");
        sqlite(path)(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The script that rebuilds `conn`'s schema and rows: each object's SQL
    /// in the order it was made (a table before its indexes and triggers),
    /// then an `INSERT` per row of the tables that have rows.
    fn schema_script(conn: &Connection) -> String {
        let mut script = String::from(
            "-- pgnindex schema: what the migrations build, made whole for a new\n\
             -- file. Written by `PGNINDEX_WRITE_SCHEMA=1 cargo test --lib db::tests`.\n",
        );
        let mut objects = conn
            .prepare(
                "SELECT type, name, sql FROM sqlite_master \
                 WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
            )
            .unwrap();
        let objects: Vec<(String, String, String)> = objects
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for (_, _, sql) in &objects {
            script.push_str(sql);
            script.push_str(";\n");
        }
        for (kind, name, _) in &objects {
            if kind != "table" {
                continue;
            }
            let columns: Vec<String> = conn
                .prepare(&format!("SELECT name FROM pragma_table_info('{name}')"))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let values: Vec<String> = columns.iter().map(|c| format!("quote(\"{c}\")")).collect();
            let select = format!(
                "SELECT 'INSERT INTO \"{name}\" VALUES (' || {} || ');' FROM \"{name}\"",
                values.join(" || ', ' || ")
            );
            let rows: Vec<String> = conn
                .prepare(&select)
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            for row in rows {
                script.push_str(&row);
                script.push('\n');
            }
        }
        script
    }

    #[test]
    fn a_new_file_gets_the_schema_and_rows_the_migrations_build() {
        let migrated = Connection::open_in_memory().unwrap();
        move_codes::register_migration_functions(&migrated).unwrap();
        for sql in MIGRATIONS {
            migrated.execute_batch(sql).unwrap();
        }
        let expected = schema_script(&migrated);
        if std::env::var_os("PGNINDEX_WRITE_SCHEMA").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/schema.sql");
            std::fs::write(path, &expected).unwrap();
        }
        assert!(
            SCHEMA == expected,
            "migrations/schema.sql is not what the migrations build: \
             rewrite it with PGNINDEX_WRITE_SCHEMA=1 cargo test --lib db::tests"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.db");
        let conn = open_for_write(&path).unwrap();
        assert_eq!(user_version(&conn, &path).unwrap(), SCHEMA_VERSION);
        assert_eq!(schema_script(&conn), expected);
    }

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

    #[test]
    fn version_2_tags_move_into_game_tags_and_read_the_same() {
        // A version-2 database with tag rows (out of order, a quote, a
        // repeated name, non-ASCII), brought to the current version: the
        // `tags` view shows exactly the rows the table held.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v2.db");
        let conn = Connection::open(&path).unwrap();
        // No games rows: tags of deleted games must move too.
        conn.pragma_update(None, "foreign_keys", false).unwrap();
        for (i, sql) in MIGRATIONS[..2].iter().enumerate() {
            conn.execute_batch(sql).unwrap();
            conn.pragma_update(None, "user_version", i as i64 + 1).unwrap();
        }
        let rows: Vec<(i64, i64, String, String)> = vec![
            (1, 0, "Annotator".into(), "A \"B\" \\ C".into()),
            (1, 1, "UTCDate".into(), "2024.01.02".into()),
            (1, 2, "Annotator".into(), "Ünal".into()),
            (3, 0, "Link".into(), "https://x/\t1".into()),
        ];
        for (game, ord, name, value) in rows.iter().rev() {
            conn.execute(
                "INSERT INTO tags (game_id, ord, name, value) VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![game, ord, name, value],
            )
            .unwrap();
        }
        drop(conn);
        let conn = open_for_write(&path).unwrap();
        assert_eq!(user_version(&conn, &path).unwrap(), SCHEMA_VERSION);
        let read = |sql: &str| -> Vec<(i64, i64, String, String)> {
            let mut st = conn.prepare(sql).unwrap();
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)));
            rows.unwrap().collect::<Result<_, _>>().unwrap()
        };
        assert_eq!(read("SELECT game_id, ord, name, value FROM tags ORDER BY game_id, ord"), rows);
        assert_eq!(read("SELECT game_id, ord, name, value FROM tags WHERE game_id = 3"), rows[3..]);
        let games: i64 =
            conn.query_row("SELECT count(*) FROM game_tags", [], |r| r.get(0)).unwrap();
        assert_eq!(games, 2);
        // Found by the key of game_tags, not by reading every row.
        let plan: String = conn
            .query_row("EXPLAIN QUERY PLAN SELECT * FROM tags WHERE game_id = 3", [], |r| r.get(3))
            .unwrap();
        assert!(plan.contains("INTEGER PRIMARY KEY"), "{plan}");
    }

    #[test]
    fn version_3_dedupe_keys_move_into_a_segment_the_importer_searches() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v3.db");
        let conn = Connection::open(&path).unwrap();
        for (i, sql) in MIGRATIONS[..3].iter().enumerate() {
            conn.execute_batch(sql).unwrap();
            conn.pragma_update(None, "user_version", i as i64 + 1).unwrap();
        }
        conn.execute_batch(
            "INSERT INTO games (id, ply_count, moves, movetext, dedupe_key) VALUES \
             (1, 0, '', '', 42), (2, 0, '', '', -7), (3, 0, '', '', 42)",
        )
        .unwrap();
        drop(conn);
        let conn = open_for_write(&path).unwrap();
        assert_eq!(user_version(&conn, &path).unwrap(), SCHEMA_VERSION);
        let old_index: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master WHERE name = 'games_dedupe'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(old_index, 0);
        let mut index = crate::store::dedupe::DedupeIndex::open(&conn).unwrap();
        let mut ids = Vec::new();
        for (key, expected) in [(42, vec![1, 3]), (-7, vec![2]), (5, vec![])] {
            index.candidates(&conn, key, &mut ids).unwrap();
            ids.sort_unstable();
            let expected: Vec<GameId> = expected.into_iter().map(GameId::new).collect();
            assert_eq!(ids, expected, "key {key}");
        }
        // In a new database the migration's segment is empty, and dropped.
        let fresh = open_for_write(&dir.path().join("new.db")).unwrap();
        crate::store::dedupe::DedupeIndex::open(&fresh).unwrap();
        let segments: i64 = fresh
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name GLOB '*dedupe_[0-9]*'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(segments, 0);
    }

    #[test]
    fn version_4_gaps_are_recorded_as_deleted_and_a_delete_keeps_the_rows_consistent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v4.db");
        let conn = Connection::open(&path).unwrap();
        for (i, sql) in MIGRATIONS[..4].iter().enumerate() {
            conn.execute_batch(sql).unwrap();
            conn.pragma_update(None, "user_version", i as i64 + 1).unwrap();
        }
        // Game 3 was deleted by hand, as version 4 let one do.
        conn.execute_batch(
            "INSERT INTO sources (id, path, games, positions, started_at) VALUES (1, 'a', 3, 13, '');\
             INSERT INTO games (id, ply_count, final_fen, moves, movetext, dedupe_key, source_id) \
             VALUES (1, 4, 'x', '', '', 0, 1), (2, 6, 'x', '', '', 0, 1), (4, 0, NULL, '', '', 0, 1);\
             INSERT INTO game_tags (game_id, pairs) VALUES (2, '[]');",
        )
        .unwrap();
        drop(conn);
        open_for_write(&path).unwrap();
        let conn = open_read_write(&path).unwrap();
        let ids = |conn: &Connection| -> Vec<i64> {
            let mut st = conn.prepare("SELECT game_id FROM deleted_games ORDER BY 1").unwrap();
            st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
        };
        assert_eq!(ids(&conn), [3]);
        // Foreign keys on (as `sql --write` has them): the tag pairs go
        // with the game, and its source counts one game and 7 rows less.
        conn.execute("DELETE FROM games WHERE id IN (2, 4)", []).unwrap();
        assert_eq!(ids(&conn), [2, 3, 4]);
        let left: (i64, i64, i64) = conn
            .query_row(
                "SELECT (SELECT count(*) FROM game_tags), games, positions FROM sources",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(left, (0, 1, 6));
        // A new database records nothing.
        let fresh = open_for_write(&dir.path().join("new.db")).unwrap();
        assert!(ids(&fresh).is_empty());
    }

    #[test]
    fn version_9_games_get_plies_without_notes_and_a_delete_takes_the_notes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v9.db");
        let conn = Connection::open(&path).unwrap();
        for (i, sql) in MIGRATIONS[..9].iter().enumerate() {
            conn.execute_batch(sql).unwrap();
            conn.pragma_update(None, "user_version", i as i64 + 1).unwrap();
        }
        conn.execute_batch(
            "INSERT INTO sources (id, path, games, positions, started_at) VALUES (1, 'a', 2, 4, '');\
             INSERT INTO games (id, ply_count, final_fen, moves, movetext, dedupe_key, source_id) \
             VALUES (1, 2, 'x', 'e4 e5', '', 0, 1), (2, 0, 'x', '', '', 0, 1);",
        )
        .unwrap();
        drop(conn);
        open_for_write(&path).unwrap();
        let conn = open_read_write(&path).unwrap();
        let plies = |conn: &Connection| -> Vec<(i64, i64, String, Option<f64>)> {
            let mut st = conn
                .prepare("SELECT game_id, ply, san, clock FROM plies ORDER BY game_id, ply")
                .unwrap();
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        // Games stored before have their moves and no notes.
        assert_eq!(plies(&conn), [(1, 1, "e4".into(), None), (1, 2, "e5".into(), None)]);
        conn.execute("INSERT INTO ply_data (game_id, clocks) VALUES (1, '[null, 59.5]')", [])
            .unwrap();
        assert_eq!(plies(&conn)[1], (1, 2, "e5".into(), Some(59.5)));
        // Foreign keys on (as `sql --write` has them): the notes go with
        // the game.
        conn.execute("DELETE FROM games WHERE id = 1", []).unwrap();
        let left: i64 = conn.query_row("SELECT count(*) FROM ply_data", [], |r| r.get(0)).unwrap();
        assert_eq!(left, 0);
    }

    #[test]
    fn version_10_movetexts_stay_and_new_games_may_have_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v10.db");
        let conn = Connection::open(&path).unwrap();
        for (i, sql) in MIGRATIONS[..10].iter().enumerate() {
            conn.execute_batch(sql).unwrap();
            conn.pragma_update(None, "user_version", i as i64 + 1).unwrap();
        }
        conn.execute_batch(
            "INSERT INTO games (id, ply_count, final_fen, moves, movetext, dedupe_key) \
             VALUES (1, 1, 'x', 'e4', '1. e4 {hi} *', 0);",
        )
        .unwrap();
        // A connection that read the old definition before the upgrade.
        let early = open_read_write(&path).unwrap();
        early.query_row("SELECT count(*) FROM games", [], |r| r.get::<_, i64>(0)).unwrap();
        drop(conn);
        open_for_write(&path).unwrap();
        let conn = open_read_write(&path).unwrap();
        let movetext: String =
            conn.query_row("SELECT movetext FROM games WHERE id = 1", [], |r| r.get(0)).unwrap();
        assert_eq!(movetext, "1. e4 {hi} *");
        for (id, conn) in [(2, &conn), (3, &early)] {
            conn.execute(
                "INSERT INTO games (id, ply_count, moves, movetext, dedupe_key) \
                 VALUES (?1, 0, '', NULL, 0)",
                [id],
            )
            .unwrap();
        }
        conn.execute("INSERT INTO ply_data (game_id, notes_form) VALUES (2, 1)", []).unwrap();
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(check, "ok");
    }

    #[test]
    fn version_16_moves_are_packed_and_every_connection_reads_them_alike() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v16.db");
        let conn = Connection::open(&path).unwrap();
        for (i, sql) in MIGRATIONS[..16].iter().enumerate() {
            conn.execute_batch(sql).unwrap();
            conn.pragma_update(None, "user_version", i as i64 + 1).unwrap();
        }
        let texts =
            ["e4 e5 Nf3 Nc6 Bb5 a6 O-O Nf6 Re1 b5 Bb3 d6 c3 O-O h3 Nb8", "", "P@e4 x\u{7f}"];
        for (id, moves) in (1..).zip(texts) {
            conn.execute(
                "INSERT INTO games (id, ply_count, moves, dedupe_key) VALUES (?1, 0, ?2, 0)",
                rusqlite::params![id, moves],
            )
            .unwrap();
        }
        drop(conn);
        open_for_write(&path).unwrap();
        // Plain SQLite (the view's SQL), this program's read-only and
        // read-write connections (shadowed by functions).
        let plain = Connection::open(&path).unwrap();
        let connections =
            [&plain, &open_read_only(&path).unwrap(), &open_read_write(&path).unwrap()];
        for conn in connections {
            let read: Vec<(String, move_codes::Moves)> = conn
                .prepare("SELECT g.moves, r.packed_moves FROM games AS g JOIN game_rows AS r USING (id) ORDER BY id")
                .unwrap()
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let expected: Vec<(String, move_codes::Moves)> =
                texts.iter().map(|t| (t.to_string(), move_codes::Moves::of(t))).collect();
            assert_eq!(read, expected);
            // The migration to move codes coded what it could.
            assert_eq!(read[0].1.codes().map(<[u8]>::len), Some(32));
            assert_eq!(read[1].1.codes().map(<[u8]>::len), Some(0));
            assert!(matches!(read[2].1, move_codes::Moves::Packed(_)));
        }
        assert!(texts[0].len() > 2 * packed_moves::pack(texts[0]).len());
        // Writing through the view packs alike, with SQL or with the
        // functions; `plies` splits the same moves.
        for (id, conn) in [(10, connections[0]), (11, connections[2])] {
            conn.execute(
                "INSERT INTO games (id, ply_count, moves, dedupe_key) VALUES (?1, 2, 'd4 Nf6', 0)",
                [id],
            )
            .unwrap();
            conn.execute("UPDATE games SET moves = moves || ' c4' WHERE id = ?1", [id]).unwrap();
        }
        for conn in connections {
            let stored: Vec<String> = conn
                .prepare("SELECT packed_moves FROM game_rows WHERE id >= 10")
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(stored, [packed_moves::pack("d4 Nf6 c4"), packed_moves::pack("d4 Nf6 c4")]);
            let plies: String = conn
                .query_row("SELECT group_concat(san, ',') FROM plies WHERE game_id = 11", [], |r| {
                    r.get(0)
                })
                .unwrap();
            assert_eq!(plies, "d4,Nf6,c4");
        }
    }

    #[test]
    fn version_5_sources_get_the_indexing_their_counters_tell() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v5.db");
        let conn = Connection::open(&path).unwrap();
        for (i, sql) in MIGRATIONS[..5].iter().enumerate() {
            conn.execute_batch(sql).unwrap();
            conn.pragma_update(None, "user_version", i as i64 + 1).unwrap();
        }
        // Source 1 stored no rows, source 2 every row of its game (plies 0
        // to 4), source 3 fewer (--max-ply 2, say).
        conn.execute_batch(
            "INSERT INTO sources (id, path, games, positions, started_at) VALUES \
             (1, 'a', 1, 0, ''), (2, 'b', 1, 5, ''), (3, 'c', 1, 3, ''), (4, 'd', 0, 0, '');\
             INSERT INTO games (id, ply_count, final_fen, moves, movetext, dedupe_key, source_id) \
             VALUES (1, 4, 'x', '', '', 0, 1), (2, 4, 'x', '', '', 0, 2), (3, 4, 'x', '', '', 0, 3);",
        )
        .unwrap();
        drop(conn);
        open_for_write(&path).unwrap();
        let conn = open_read_write(&path).unwrap();
        let sources = |conn: &Connection| -> Vec<(Option<bool>, i64)> {
            let mut st = conn
                .prepare("SELECT positions_indexed, positions FROM sources ORDER BY id")
                .unwrap();
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
        };
        assert_eq!(sources(&conn), [(Some(false), 0), (Some(true), 5), (None, 3), (None, 0)]);
        conn.execute_batch(
            "UPDATE sources SET positions_indexed = 1, max_ply = 2 WHERE id = 3; \
             INSERT INTO sources (id, path, games, positions, started_at, positions_indexed) \
             VALUES (5, 'e', 1, 0, '', 0); \
             UPDATE games SET source_id = 5 WHERE id = 1; DELETE FROM games",
        )
        .unwrap();
        // A deleted game takes the rows its source indexed.
        assert_eq!(
            sources(&conn)[1..],
            [(Some(true), 0), (Some(true), 0), (None, 0), (Some(false), 0)]
        );
    }

    #[test]
    fn the_programs_connections_read_pvs_by_function_and_plain_sqlite_by_the_chain() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pv.db");
        let conn = open_for_write(&path).unwrap();
        conn.execute(
            "INSERT INTO games (id, ply_count, moves, dedupe_key) VALUES (1, 2, 'e4 e5', 0)",
            [],
        )
        .unwrap();
        let pvs = [packed_moves::pack("Nf3 d5 c4 e6 g3 Nf6"), "\u{7f}P@e4 Nf3".to_string()];
        for (ply, pv) in (1..).zip(&pvs) {
            conn.execute(
                "INSERT INTO ply_pvs (id, pv) VALUES (16777216 + ?1, ?2)",
                rusqlite::params![ply, pv],
            )
            .unwrap();
        }
        drop(conn);
        let plain = Connection::open(&path).unwrap();
        let view: String = plain
            .query_row("SELECT sql FROM sqlite_master WHERE name = 'plies'", [], |r| r.get(0))
            .unwrap();
        assert!(view.contains(&packed_moves::ply_pv_sql()), "{view}");
        let program = open_read_only(&path).unwrap();
        let shadow: String = program
            .query_row("SELECT sql FROM sqlite_temp_master WHERE name = 'plies'", [], |r| r.get(0))
            .unwrap();
        assert!(shadow.contains("pgnindex_unpacked_moves(p.pv)") && !shadow.contains("p0(v)"));
        assert!(shadow.contains("coalesce(unicode(") && !shadow.contains("instr(CAST("));
        for conn in [&plain, &program] {
            let read: Vec<Option<String>> = conn
                .prepare("SELECT pv FROM plies WHERE game_id = 1 ORDER BY ply")
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(read, [Some("Nf3 d5 c4 e6 g3 Nf6".into()), Some("P@e4 Nf3".into())]);
        }
    }
}
