//! What the integration tests share: the `pgnindex` binary run in
//! throw-away directories, the fixtures and python-chess's reference data
//! for them, and a database read back.
//!
//! The test modules each use part of it.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pgnindex::replay::VariantKind;
use rusqlite::{Connection, OpenFlags, Row};

// ---------------------------------------------------------------------------
// The repository's files

/// `rel` in the repository (`README.md`, `fixtures/…`).
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The shared corpus's games beside the repository
/// (`../shared/corpus/games`), or `None`, said on stderr, where it is not:
/// the corpus comparisons then do not run.
pub fn corpus_games() -> Option<PathBuf> {
    let dir = repo("../shared/corpus/games");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("../shared/corpus/games not found: the corpus comparison did not run");
        None
    }
}

/// `rel` below `fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    repo("fixtures").join(rel)
}

/// `fixtures/pgn/games`: 1,091 games in seven files, every one of them in
/// the python-chess reference.
pub fn games_dir() -> PathBuf {
    fixture("pgn/games")
}

/// One file of [`games_dir`]: 232 over-the-board games, no duplicates.
pub fn twic() -> PathBuf {
    games_dir().join("otb/twic-01-232games.pgn")
}

/// `path` as a command-line argument (the tests' paths are UTF-8).
pub fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The files below `dir`, at any depth, that `keep` accepts, sorted.
pub fn files_under(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    fn walk(dir: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, keep, out);
            } else if keep(&path) {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &keep, &mut files);
    files.sort();
    files
}

// ---------------------------------------------------------------------------
// Input files

/// A throw-away directory, removed with everything in it on drop.
pub struct Scratch(tempfile::TempDir);

/// A new [`Scratch`] directory.
pub fn scratch() -> Scratch {
    Scratch(tempfile::tempdir().unwrap())
}

impl Scratch {
    /// The directory.
    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// `name` in the directory (nothing is created).
    pub fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.path().join(name)
    }

    /// Writes `bytes` to `name` in the directory; its path.
    pub fn write(&self, name: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

/// `data` gzipped.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(data).unwrap();
    gz.finish().unwrap()
}

/// One step of xorshift64 (13, 7, 17): deterministic pseudo-random numbers
/// from a non-zero seed.
pub fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

// ---------------------------------------------------------------------------
// The binary

/// The `pgnindex` binary Cargo built for these tests.
pub fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_pgnindex"))
}

/// `pgnindex`, without the variables of the environment that runs the tests
/// that change what it does (`PGNINDEX_DB`, `NO_COLOR`).
pub fn command() -> Command {
    let mut command = Command::new(bin());
    command.env_remove("PGNINDEX_DB").env_remove("NO_COLOR");
    command
}

/// [`command`] for assertions on its output.
pub fn pgnindex() -> assert_cmd::Command {
    assert_cmd::Command::from_std(command())
}

/// What a run of the binary printed, and its exit code.
#[derive(Debug)]
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// Standard output, decoded lossily.
    pub stdout: String,
    /// Standard error, decoded lossily.
    pub stderr: String,
}

impl Run {
    /// Asserts that the run exited 0 (showing its stderr if not).
    #[track_caller]
    pub fn success(self) -> Run {
        assert_eq!(self.code, 0, "{}", self.stderr);
        self
    }
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code().expect("killed by a signal"),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// Runs `pgnindex ARGS…` to the end.
pub fn run<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    command().args(args).output().unwrap().into()
}

/// Runs `command` to the end with its stdout on a new pseudo-terminal of
/// `cols` columns (and 40 lines), stderr piped; what it printed there (line
/// ends as `\n`). Panics if it fails.
pub fn on_terminal(mut command: Command, cols: u16) -> String {
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize { ws_row: 40, ws_col: cols, ws_xpixel: 0, ws_ypixel: 0 };
    // Safety: openpty writes the two descriptors it opens into the two
    // integers; the names and termios pointers may be null.
    let done = unsafe {
        libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &size)
    };
    assert_eq!(done, 0, "openpty: {}", std::io::Error::last_os_error());
    // Safety: both descriptors were just opened and are owned here alone.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    command.stdout(slave).stderr(std::process::Stdio::piped());
    let child = command.spawn().unwrap();
    // The command above held the only copy of the terminal's side: once
    // the child ends, reading the master side ends (EIO on Linux).
    drop(command);
    let mut master = std::fs::File::from(master);
    let mut bytes = Vec::new();
    let mut buf = [0; 4096];
    while let Ok(n) = master.read(&mut buf) {
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n]);
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(bytes).unwrap().replace("\r\n", "\n")
}

/// `pgnindex import --db DB ARGS…`, not started.
pub fn import_command(db: &Path, args: &[&str]) -> Command {
    let mut command = command();
    command.arg("import").arg("--db").arg(db).args(args);
    command
}

/// Runs `pgnindex import --db DB ARGS…` to the end.
pub fn import(db: &Path, args: &[&str]) -> Run {
    import_command(db, args).output().unwrap().into()
}

// ---------------------------------------------------------------------------
// A database read back

/// Opens the database at `db` for reading and writing.
pub fn open(db: &Path) -> Connection {
    Connection::open(db).unwrap()
}

/// The one value `sql` selects (a count, say).
pub fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// The first column of every row `sql` selects.
pub fn column<T: rusqlite::types::FromSql>(conn: &Connection, sql: &str) -> Vec<T> {
    rows(conn, sql).into_iter().map(|(value,)| value).collect()
}

/// Every row `sql` selects, as tuples.
pub fn rows<T>(conn: &Connection, sql: &str) -> Vec<T>
where
    T: for<'r> TryFrom<&'r Row<'r>, Error = rusqlite::Error>,
{
    let mut st = conn.prepare(sql).unwrap();
    let rows = st.query_map([], |r| T::try_from(r)).unwrap();
    rows.map(Result::unwrap).collect()
}

/// Every row `sql` selects, its cells as SQLite holds them (`Integer(3)`,
/// `Text("…")`, `Null`) joined by `|`: rows of any shape, as text.
pub fn text_rows(conn: &Connection, sql: &str) -> Vec<String> {
    let mut st = conn.prepare(sql).unwrap();
    let n = st.column_count();
    let rows = st
        .query_map([], |r| {
            let cells = (0..n).map(|i| Ok(format!("{:?}", r.get_ref(i)?)));
            cells.collect::<rusqlite::Result<Vec<String>>>().map(|cells| cells.join("|"))
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// Puts the tag pairs of a database back as schemas 3 to 12 stored them:
/// `[[name, value], …]`, no `tag_names`, those schemas' `tags` view.
pub fn tags_as_schema_12(conn: &Connection) {
    dedupe_as_schema_30(conn);
    conn.execute_batch(
        "CREATE TEMP TABLE old_tags AS
             SELECT game_id, json_group_array(json_array(name, value) ORDER BY ord) AS pairs
             FROM tags GROUP BY game_id;
         UPDATE game_tags SET pairs = (SELECT o.pairs FROM old_tags AS o WHERE o.game_id = game_tags.game_id);
         DROP TABLE old_tags;
         DROP VIEW tags;
         DROP TABLE tag_names;
         CREATE VIEW tags (game_id, ord, name, value) AS
             SELECT t.game_id, j.key, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]')
             FROM game_tags AS t, json_each(t.pairs) AS j;",
    )
    .unwrap();
}

/// Applies the repository's first `version` migrations to `conn`, as a
/// pgnindex of that schema version would have, with its `user_version`.
pub fn migrate_to(conn: &Connection, version: usize) {
    let migrations =
        files_under(&repo("migrations"), |p| p.extension().is_some_and(|e| e == "sql"));
    assert!(migrations.len() >= version, "only {} migrations", migrations.len());
    for (i, path) in migrations.iter().take(version).enumerate() {
        conn.execute_batch(&std::fs::read_to_string(path).unwrap()).unwrap();
        conn.pragma_update(None, "user_version", i as i64 + 1).unwrap();
    }
}

/// Takes out what schema 32 added (each side's clock use in `ply_data`,
/// its triggers) and sets `user_version` 31 if it was later.
pub fn clock_use_as_schema_31(conn: &Connection) {
    let column =
        "SELECT count(*) FROM pragma_table_info('ply_data') WHERE name = 'white_clock_moves'";
    if conn.query_row(column, [], |r| r.get::<_, i64>(0)).unwrap() == 0 {
        return;
    }
    conn.execute_batch(
        "DROP TRIGGER ply_data_clock_use_insert;
         DROP TRIGGER ply_data_clock_use_update;
         DROP TRIGGER ply_data_clock_use_game;",
    )
    .unwrap();
    for side in ["white", "black"] {
        for value in ["moves", "drop_ms", "max_drop_ms"] {
            conn.execute_batch(&format!("ALTER TABLE ply_data DROP COLUMN {side}_clock_{value}"))
                .unwrap();
        }
    }
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    if version > 31 {
        conn.pragma_update(None, "user_version", 31).unwrap();
    }
}

/// Takes out what schemas 31 and later added (the dedupe filter kept
/// between imports), for a database put back to an older schema.
pub fn dedupe_as_schema_30(conn: &Connection) {
    clock_use_as_schema_31(conn);
    let column =
        "SELECT count(*) FROM pragma_table_info('dedupe_segments') WHERE name = 'in_filter'";
    if conn.query_row(column, [], |r| r.get::<_, i64>(0)).unwrap() == 1 {
        conn.execute_batch("ALTER TABLE dedupe_segments DROP COLUMN in_filter").unwrap();
    }
    conn.execute_batch("DROP TABLE IF EXISTS dedupe_filter").unwrap();
}

/// Puts the players of a database back as schema 23 had them: the
/// `players` view grouping the games when read, no `player_rows`, its
/// views and triggers; `user_version` 23 (for a database of schema 24 or
/// later).
pub fn players_as_schema_23(conn: &Connection) {
    dedupe_as_schema_30(conn);
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    if version < 24 {
        return;
    }
    let v23 = Connection::open_in_memory().unwrap();
    pgnindex::db::move_codes::register_migration_functions(&v23).unwrap();
    migrate_to(&v23, 23);
    let players: String = v23
        .query_row("SELECT sql FROM sqlite_master WHERE name = 'players'", [], |r| r.get(0))
        .unwrap();
    if version >= 29 {
        conn.execute_batch(
            "DROP TRIGGER player_tallies_after_insert; DROP TRIGGER player_tallies_after_update;
             DROP TRIGGER player_tallies_after_delete; DROP TABLE player_spellings;",
        )
        .unwrap();
    }
    conn.execute_batch(&format!(
        "DROP TRIGGER player_rows_before_delete; DROP TRIGGER player_rows_before_update;
         DROP TRIGGER player_rows_after_insert; DROP TRIGGER player_rows_after_update;
         DROP TRIGGER player_rows_after_delete;
         DROP VIEW players; DROP VIEW players_live; DROP VIEW player_sides;
         DROP TABLE player_rows; DROP TABLE player_rows_state; DROP TABLE player_keys_changed;
         {players};
         DROP TABLE IF EXISTS explorer_masters; PRAGMA user_version = 23;"
    ))
    .unwrap();
}

/// Puts the moves and notes of a database back as schema 22 stored them:
/// moves as packed text, the packed clocks and times as TEXT, evaluations
/// as JSON arrays; that schema's views and triggers, no `move_codes`;
/// `user_version` 22 (for a database of schema 23 or later).
pub fn moves_as_schema_22(conn: &Connection) {
    dedupe_as_schema_30(conn);
    use pgnindex::db::{move_codes, packed_moves};
    players_as_schema_23(conn);
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    if version < 23 {
        return;
    }
    let coded: Vec<(i64, Vec<u8>)> =
        rows(conn, "SELECT id, packed_moves FROM game_rows WHERE typeof(packed_moves) = 'blob'");
    for (id, codes) in coded {
        let packed = packed_moves::pack(&move_codes::decode(&codes).unwrap());
        conn.execute("UPDATE game_rows SET packed_moves = ?2 WHERE id = ?1", (id, packed)).unwrap();
    }
    let v22 = Connection::open_in_memory().unwrap();
    migrate_to(&v22, 22);
    let sql_of = |name: &str| -> String {
        v22.query_row("SELECT sql FROM sqlite_master WHERE name = ?1", [name], |r| r.get(0))
            .unwrap()
    };
    conn.execute_batch(&format!(
        "UPDATE ply_data SET clocks = CAST(clocks AS TEXT) WHERE typeof(clocks) = 'blob';
         UPDATE ply_data SET emts = CAST(emts AS TEXT) WHERE typeof(emts) = 'blob';
         UPDATE ply_data SET evals = (
             SELECT '[' || group_concat(CASE WHEN eval IS NOT NULL THEN CAST(round(eval * 100) AS INTEGER)
                                             WHEN mate IS NOT NULL THEN '\"#' || mate || '\"'
                                             ELSE 'null' END, ',' ORDER BY ply) || ']'
             FROM plies AS p
             WHERE p.game_id = ply_data.game_id
               AND p.ply <= (SELECT max(q.ply) FROM plies AS q WHERE q.game_id = ply_data.game_id
                             AND (q.eval IS NOT NULL OR q.mate IS NOT NULL)))
         WHERE typeof(evals) = 'blob';
         DROP VIEW plies; DROP VIEW games; DROP TABLE move_codes;
         {}; {}; {}; {}; {};
         DROP TABLE IF EXISTS explorer_masters; PRAGMA user_version = 22;",
        sql_of("games"),
        sql_of("games_insert"),
        sql_of("games_update"),
        sql_of("games_delete_row"),
        sql_of("plies"),
    ))
    .unwrap();
}

/// Puts the notes of a database back as schema 17 stored them: no engine
/// columns in `ply_data`, no `ply_pvs`, that schema's `plies` view and
/// delete trigger; `user_version` 17 (for a database of schema 18 or
/// later whose games have no engine notes or kept text).
pub fn notes_as_schema_17(conn: &Connection) {
    dedupe_as_schema_30(conn);
    moves_as_schema_22(conn);
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    if version < 18 {
        return;
    }
    let v17 = Connection::open_in_memory().unwrap();
    migrate_to(&v17, 17);
    let sql_of = |name: &str| -> String {
        v17.query_row("SELECT sql FROM sqlite_master WHERE name = ?1", [name], |r| r.get(0))
            .unwrap()
    };
    // Games whose notes need the engine columns or text kept by move: their
    // movetext stored whole, as schema 17 kept it.
    pgnindex::query::functions::register(conn, Path::new("unused.db")).unwrap();
    let kept = format!(
        "UPDATE game_rows SET movetext = (SELECT {} FROM games AS g \
         LEFT JOIN ply_data AS d ON d.game_id = g.id WHERE g.id = game_rows.id) \
         WHERE movetext IS NULL AND (id IN (SELECT game_id FROM ply_data WHERE tails IS NOT NULL \
         OR notes_layout IS NOT NULL OR depths IS NOT NULL OR seldepths IS NOT NULL \
         OR nodes IS NOT NULL OR notes_form > 1) OR id IN (SELECT id >> 24 FROM ply_pvs))",
        pgnindex::query::functions::movetext_sql(pgnindex::db::schema::Schema::ENGINE_NOTES)
    );
    conn.execute_batch(&kept).unwrap();
    // Comments as an object by ply, the one form of schema 17.
    conn.execute_batch(
        "UPDATE ply_data SET comments = (SELECT json_group_object(j.key + 1, j.value) \
         FROM json_each(ply_data.comments) AS j WHERE j.type <> 'null') \
         WHERE comments LIKE '[%'",
    )
    .unwrap();
    conn.execute_batch(&format!(
        "DROP VIEW plies; DROP TRIGGER games_delete; DROP TABLE ply_pvs;
         ALTER TABLE ply_data DROP COLUMN depths; ALTER TABLE ply_data DROP COLUMN seldepths;
         ALTER TABLE ply_data DROP COLUMN nodes; ALTER TABLE ply_data DROP COLUMN notes_layout;
         ALTER TABLE ply_data DROP COLUMN tails;
         {}; {};
         DROP TABLE IF EXISTS explorer_masters; PRAGMA user_version = 17;",
        sql_of("plies"),
        sql_of("games_delete")
    ))
    .unwrap();
}

/// Puts the games of a database back as schemas 1 to 15 stored them: the
/// table `games` (with its index and triggers of schema 15, taken from a
/// database migrated to 15) instead of the view over `game_rows` and
/// `game_texts`; `user_version` 15.
pub fn games_as_schema_15(conn: &Connection) {
    dedupe_as_schema_30(conn);
    notes_as_schema_17(conn);
    let v15 = Connection::open_in_memory().unwrap();
    migrate_to(&v15, 15);
    let schema: Vec<String> = rows::<(String,)>(
        &v15,
        "SELECT sql FROM sqlite_master WHERE tbl_name = 'games' AND sql IS NOT NULL \
         ORDER BY type = 'table' DESC, rowid",
    )
    .into_iter()
    .map(|(sql,)| sql)
    .collect();
    conn.execute_batch(&format!(
        "PRAGMA foreign_keys = OFF;
         CREATE TEMP TABLE old_games AS SELECT * FROM games;
         DROP VIEW games;
         DROP TABLE game_rows;
         DROP TABLE game_texts;
         {};
         INSERT INTO games SELECT * FROM temp.old_games;
         DROP TABLE temp.old_games;
         PRAGMA writable_schema = ON;
         UPDATE sqlite_master SET sql = replace(sql, 'REFERENCES game_rows(id)', 'REFERENCES games(id)')
         WHERE type = 'table';
         PRAGMA writable_schema = OFF;
         DROP TABLE IF EXISTS explorer_masters; PRAGMA user_version = 15;
         PRAGMA foreign_keys = ON;",
        schema.join(";\n")
    ))
    .unwrap();
}

/// Puts the clocks and times of a database back as schemas 10 to 12
/// stored them: JSON arrays of seconds ending at the last ply that has
/// one; those schemas' `plies` view.
pub fn times_as_schema_12(conn: &Connection) {
    dedupe_as_schema_30(conn);
    let seconds = |v: &str| {
        format!("CASE WHEN {v} = CAST({v} AS INTEGER) THEN CAST({v} AS INTEGER) ELSE {v} END")
    };
    conn.execute_batch(&format!(
        "CREATE TEMP TABLE old_times AS
             WITH p AS (SELECT game_id, ply, clock, emt FROM plies
                        WHERE game_id IN (SELECT game_id FROM ply_data)),
                  last AS (SELECT game_id, max(CASE WHEN clock IS NOT NULL THEN ply END) AS clock,
                                  max(CASE WHEN emt IS NOT NULL THEN ply END) AS emt
                           FROM p GROUP BY game_id)
             SELECT p.game_id,
                    CASE WHEN last.clock IS NOT NULL THEN json_group_array({clock} ORDER BY p.ply)
                         FILTER (WHERE p.ply <= last.clock) END AS clocks,
                    CASE WHEN last.emt IS NOT NULL THEN json_group_array({emt} ORDER BY p.ply)
                         FILTER (WHERE p.ply <= last.emt) END AS emts
             FROM p JOIN last USING (game_id) GROUP BY p.game_id;
         UPDATE ply_data SET
             clocks = (SELECT o.clocks FROM old_times AS o WHERE o.game_id = ply_data.game_id),
             emts = (SELECT o.emts FROM old_times AS o WHERE o.game_id = ply_data.game_id);
         DROP TABLE old_times;
         DROP VIEW plies;",
        clock = seconds("p.clock"),
        emt = seconds("p.emt"),
    ))
    .unwrap();
    let v10 = include_str!("../../../migrations/0010_ply_data.sql");
    let view = &v10[v10.find("CREATE VIEW plies").unwrap()..];
    conn.execute_batch(&view[..=view.find(';').unwrap()]).unwrap();
}

/// SQLite's `PRAGMA integrity_check` of the database at `db` (`ok` when
/// sound), read without writing.
pub fn integrity(db: &Path) -> String {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap()
}

// ---------------------------------------------------------------------------
// Python references

/// The variable that makes a missing Python reference fail the test
/// instead of skipping it (CI sets it).
pub const REQUIRE_REFERENCES: &str = "PGNINDEX_REQUIRE_REFERENCES";

/// `python3` found able to import a module ([`python_with`]).
#[derive(Debug)]
pub struct Python(());

impl Python {
    /// `python3`, not started.
    pub fn command(&self) -> Command {
        Command::new("python3")
    }
}

/// `python3` if it can import `module` (`chess`, `duckdb` or `berserk`), else `None`
/// after one line on stderr naming the package and its `pip install`: the
/// comparison with that reference is skipped. With
/// `PGNINDEX_REQUIRE_REFERENCES` set (not `0`), a missing one fails the test
/// instead.
#[track_caller]
pub fn python_with(module: &str) -> Option<Python> {
    let (package, pip) = match module {
        "chess" => ("python-chess", "chess"),
        "duckdb" => ("DuckDB's Python package", "duckdb"),
        "berserk" => ("berserk, the Python client of lichess's API", "berserk"),
        "selenium" => ("selenium (with Debian's chromium and chromium-driver)", "selenium"),
        "jsonschema" => ("the Python package jsonschema", "jsonschema"),
        _ => panic!("{module}: no package known for this module"),
    };
    let import = Command::new("python3").arg("-c").arg(format!("import {module}")).output();
    let missing = match import {
        Ok(out) if out.status.success() => return Some(Python(())),
        Ok(_) => format!("{package} is not installed (pip install {pip})"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            format!("python3 is not installed (then: pip install {pip})")
        }
        Err(e) => format!("python3 does not run ({e})"),
    };
    skip_without_reference(&missing);
    None
}

/// Says on one line that the comparison with a reference that is
/// `missing` is skipped, or fails the test under
/// [`REQUIRE_REFERENCES`].
#[track_caller]
fn skip_without_reference(missing: &str) {
    let required = std::env::var_os(REQUIRE_REFERENCES).is_some_and(|v| !v.is_empty() && v != "0");
    assert!(!required, "{missing}, and {REQUIRE_REFERENCES} is set");
    // Straight to the process's stderr: the test harness shows what a
    // passing test prints with `eprintln!` to no one.
    let test = std::thread::current().name().filter(|n| *n != "main").map(str::to_string);
    let test = test.map_or(String::new(), |name| format!("{name}: "));
    let _ = writeln!(std::io::stderr(), "{test}skipped: {missing}");
}

/// The `polyglot` program (Debian's package `polyglot` installs it in
/// `/usr/games`), whose `make-book` the books are compared with; `None`
/// after one line on stderr when it is not installed.
#[track_caller]
pub fn polyglot() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).map(|d| d.join("polyglot")).collect::<Vec<_>>())
        .unwrap_or_default();
    let found =
        on_path.into_iter().chain([PathBuf::from("/usr/games/polyglot")]).find(|p| p.is_file());
    if found.is_none() {
        skip_without_reference("polyglot is not installed (apt-get install polyglot)");
    }
    found
}

// ---------------------------------------------------------------------------
// python-chess's reference (`fixtures/groundtruth/`)

/// The records of a `.jsonl.gz` reference file, one a game.
pub fn read_reference(path: &Path) -> Vec<serde_json::Value> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The records of the corpus file `rel` (`games/…` or `edge/…`).
pub fn reference(rel: &str) -> Vec<serde_json::Value> {
    read_reference(&fixture(&format!("groundtruth/{rel}.jsonl.gz")))
}

/// What a record's `Variant` tag makes of its game, by the importer's
/// rule: only [`VariantKind::Other`] games are skipped.
pub fn variant(record: &serde_json::Value) -> VariantKind {
    record["variant"].as_str().map_or(VariantKind::Standard, VariantKind::from_tag)
}

/// The digest of a game's Polyglot keys as a record's `keys_fnv` gives it
/// (FNV-1a over their little-endian bytes, in hex).
pub fn keys_fnv(keys: impl IntoIterator<Item = u64>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for k in keys {
        for b in k.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The tag sections of the games of a PGN file, as a plain line scan
/// (independent of the reader under test): a game starts at its `[Event `
/// line; `[Name "value"]` lines are tags, the first value of a repeated
/// name kept, as the columns keep it.
pub fn tag_sections(path: &Path) -> Vec<HashMap<String, String>> {
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
    let mut games: Vec<HashMap<String, String>> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.starts_with("[Event ") {
            games.push(HashMap::new());
        }
        let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix("\"]")) else {
            continue;
        };
        let Some((name, value)) = inner.split_once(" \"") else { continue };
        if let Some(game) = games.last_mut() {
            game.entry(name.to_string()).or_insert_with(|| value.to_string());
        }
    }
    games
}
