//! `export --format parquet`: the files DuckDB reads give the answers
//! SQLite gives on the database, row for row (`tests/parquet_compare.py`,
//! with DuckDB's Python package), for a whole database, a subset, and
//! shards of several databases in one lake (a folder per table); shards
//! holding the same games answer as one database through the views of
//! docs/scale.md; files cut at their bound; the errors.
//! `import --parquet`: the same files, byte for byte, as an import into a
//! new database and its export, with runs small enough that the
//! positions' sort and the dedupe keys go through many run files.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{arg, games_dir, import, python_with, run, scratch, Python};

/// Runs the comparison script; panics with its output if an answer
/// differs.
#[track_caller]
fn compare(python: &Python, db: &Path, dir: &Path, extra: &[&str]) -> String {
    let script = common::repo("tests/parquet_compare.py");
    let out = python
        .command()
        .arg(&script)
        .args(["--db", arg(db), "--parquet", arg(dir)])
        .args(extra)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

/// A DuckDB query over the lake `dir` (views named as the tables, each
/// over its folder), its rows as lines of `|`-separated values.
fn duckdb(python: &Python, dir: &Path, sql: &str) -> Vec<String> {
    let program = format!(
        "import duckdb, sys\n\
         c = duckdb.connect()\n\
         for t in ['games', 'plies', 'tags', 'positions', 'sources']:\n\
         \x20   c.execute(f\"CREATE VIEW {{t}} AS SELECT * FROM read_parquet('{}/{{t}}/*.parquet')\")\n\
         for row in c.execute(sys.argv[1]).fetchall():\n\
         \x20   print('|'.join('' if v is None else str(v) for v in row))\n",
        arg(dir)
    );
    let out = python.command().args(["-c", &program, sql]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect()
}

/// Every game's movetext as `pgnindex sql` shows it (written back where
/// stored NULL), as the JSON object the script reads.
fn movetexts(db: &Path, into: &Path) {
    let conn = pgnindex::db::open_read_only(db).unwrap();
    pgnindex::query::functions::register(&conn, db).unwrap();
    pgnindex::query::functions::create_views(&conn).unwrap();
    let rows: BTreeMap<String, String> = conn
        .prepare("SELECT game_id, movetext FROM movetexts")
        .unwrap()
        .query_map([], |r| Ok((r.get::<_, i64>(0)?.to_string(), r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    std::fs::write(into, serde_json::to_string(&rows).unwrap()).unwrap();
}

fn export(db: &Path, dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["export", "--db", arg(db), "--format", "parquet", "-o", arg(dir)];
    all.extend_from_slice(args);
    run(all)
}

/// The files of `table` in the lake `dir`.
fn files(dir: &Path, table: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir.join(table)).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

#[test]
fn the_files_answer_as_the_database_does() {
    let Some(python) = python_with("duckdb") else { return };
    let tmp = scratch();
    let db = tmp.join("t.db");
    import(&db, &[arg(&games_dir())]).success();
    // Deleted games leave rows in the position segments: never exported.
    run(["sql", "--write", "--db", arg(&db), "DELETE FROM games WHERE id IN (2, 700)"]).success();
    let dir = tmp.join("out");
    let out = export(&db, &dir, &["--file-size", "64K"]).success();
    assert!(out.stderr.contains("1,089 games"), "{}", out.stderr);
    assert_eq!(names(&dir), ["games", "plies", "positions", "sources", "tags"], "a folder a table");
    // Cut at the bound: several files, none far past it (a row group of
    // at most the bound, and the footer).
    for table in ["games", "plies", "positions"] {
        let files = files(&dir, table);
        assert!(files.len() > 2, "{table}: {files:?}");
        for (i, file) in files.iter().enumerate() {
            let name = file.file_name().unwrap().to_str().unwrap();
            assert_eq!(name, format!("s0-{:05}.parquet", i + 1));
            let len = std::fs::metadata(file).unwrap().len();
            assert!(len < 3 * 65536, "{name}: {len} bytes");
        }
    }
    let json = tmp.join("movetexts.json");
    movetexts(&db, &json);
    let report = compare(&python, &db, &dir, &["--movetexts", arg(&json)]);
    assert!(report.contains("equal positions: every row"), "{report}");
    assert!(report.contains(" 0 failed"), "{report}");
    let deleted = duckdb(
        &python,
        &dir,
        "SELECT count(*) FROM positions WHERE game_id IN (2, 700) \
         UNION ALL SELECT count(*) FROM plies WHERE game_id IN (2, 700)",
    );
    assert_eq!(deleted, ["0", "0"]);
    // Typed as the schema says, the hash signed as SQLite stores it.
    let types = duckdb(
        &python,
        &dir,
        "SELECT typeof(id), typeof(ply_count), typeof(white_elo), typeof(movetext) FROM games LIMIT 1",
    );
    assert_eq!(types, ["BIGINT|INTEGER|BIGINT|VARCHAR"]);
    let start = "SELECT count(*) FROM positions WHERE hash = 5060803636482931868";
    let in_sqlite = common::count(&common::open(&db), start);
    assert!(in_sqlite > 1000, "the start position's key, as docs/schema.md gives it");
    assert_eq!(duckdb(&python, &dir, start), [in_sqlite.to_string()]);
}

/// The same on the whole shared corpus (17,000 games of every origin,
/// with clocks, evaluations, NAGs and comments in their plies).
#[test]
#[ignore = "reads ../shared/corpus (run by .ci/run)"]
fn the_corpus_files_answer_as_the_database_does() {
    let Some(python) = python_with("duckdb") else { return };
    let Some(corpus) = common::corpus_games() else { return };
    let tmp = scratch();
    let db = tmp.join("corpus.db");
    import(&db, &["--quiet", arg(&corpus)]);
    let dir = tmp.join("out");
    export(&db, &dir, &["--file-size", "4M"]).success();
    let json = tmp.join("movetexts.json");
    movetexts(&db, &json);
    let report = compare(&python, &db, &dir, &["--movetexts", arg(&json)]);
    assert!(report.contains(" 0 failed"), "{report}");
    let notes = duckdb(
        &python,
        &dir,
        "SELECT count(clock) > 0 AND count(eval) > 0 AND count(mate) > 0 \
         AND count(nags) > 0 AND count(comment) > 0 FROM plies",
    );
    assert_eq!(notes, ["True"], "clocks, evaluations, mates, NAGs and comments are compared");
}

/// Rewrites the first position segment of `db` in the layout written
/// before schema 12, `(hash, game_id, ply_move)`; with `schema_10`, every
/// segment, and the database as schema 10 left it (no `layout` column,
/// every movetext stored).
fn split_segments(db: &Path, schema_10: bool) {
    if schema_10 {
        run([
            "sql",
            "--write",
            "--db",
            arg(db),
            "UPDATE games SET movetext = (SELECT m.movetext FROM movetexts AS m \
             WHERE m.game_id = games.id) WHERE movetext IS NULL",
        ])
        .success();
        common::notes_as_schema_17(&common::open(db));
    }
    let conn = common::open(db);
    if schema_10 {
        // Before schema 16, `games` was a table.
        common::games_as_schema_15(&conn);
    }
    let names: Vec<String> =
        common::column(&conn, "SELECT name FROM position_segments ORDER BY id");
    assert!(names.len() >= 2, "{names:?}");
    let split = if schema_10 { &names[..] } else { &names[..1] };
    conn.execute_batch("DROP VIEW positions").unwrap();
    for name in split {
        conn.execute_batch(&format!(
            "CREATE TABLE split (hash INTEGER NOT NULL, game_id INTEGER NOT NULL, \
             ply_move INTEGER NOT NULL, PRIMARY KEY (hash, game_id, ply_move)) WITHOUT ROWID; \
             INSERT INTO split SELECT hash, gpm >> 24 & 4294967295, \
             ((gpm >> 15 & 511) | (gpm >> 56 << 9)) << 15 | (gpm & 32767) FROM {name}; \
             DROP TABLE {name}; ALTER TABLE split RENAME TO {name}; \
             UPDATE position_segments SET layout = 0 WHERE name = '{name}';"
        ))
        .unwrap();
    }
    if schema_10 {
        let arms: Vec<String> = names
            .iter()
            .map(|name| {
                format!(
                    "SELECT hash, game_id, ply_move >> 15, nullif(ply_move & 32767, 32767), NULL \
                     FROM {name} WHERE game_id NOT IN (SELECT game_id FROM deleted_games)"
                )
            })
            .collect();
        conn.execute_batch(&format!(
            "CREATE VIEW positions (hash, game_id, ply, next_move, fen) AS {}; \
             ALTER TABLE position_segments DROP COLUMN layout; \
             ALTER TABLE ply_data DROP COLUMN notes_form; PRAGMA user_version = 10;",
            arms.join(" UNION ALL ")
        ))
        .unwrap();
    } else {
        pgnindex::store::segments::refresh_view(&conn).unwrap();
    }
}

#[test]
fn older_segment_layouts_export_alike() {
    let Some(python) = python_with("duckdb") else { return };
    for schema_10 in [false, true] {
        let tmp = scratch();
        let db = tmp.join("t.db");
        let dirs = ["lichess", "otb", "tcec"].map(|d| games_dir().join(d));
        import(&db, &[arg(&dirs[0]), arg(&dirs[1]), arg(&dirs[2])]).success();
        split_segments(&db, schema_10);
        run(["sql", "--write", "--db", arg(&db), "DELETE FROM games WHERE id = 3"]).success();
        let dir = tmp.join("out");
        export(&db, &dir, &[]).success();
        let report = compare(&python, &db, &dir, &[]);
        assert!(report.contains("equal positions: every row"), "{report}");
        assert!(report.contains(" 0 failed"), "{report}");
    }
}

#[test]
fn a_subset_by_filters_and_position() {
    let Some(python) = python_with("duckdb") else { return };
    let tmp = scratch();
    let db = tmp.join("t.db");
    import(&db, &[arg(&games_dir())]).success();
    let ids = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["find", "--db", arg(&db), "--format", "csv", "--limit", "0"];
        all.extend_from_slice(args);
        let out = run(all).success();
        let mut ids: Vec<String> =
            out.stdout.lines().skip(1).map(|l| l.split(',').next().unwrap().to_string()).collect();
        ids.sort();
        ids
    };
    for (name, args) in [
        ("player", &["--player", "schmitz874", "--result", "1-0"][..]),
        ("position", &["--moves", "1. e4 c5 2. Nf3", "--since", "2020"][..]),
    ] {
        let dir = tmp.join(name);
        export(&db, &dir, args).success();
        let expected = ids(args);
        assert!(expected.len() > 5, "{name}: {expected:?}");
        let sorted = |sql: &str| {
            let mut rows = duckdb(&python, &dir, sql);
            rows.sort();
            rows
        };
        assert_eq!(sorted("SELECT id FROM games"), expected, "{name}");
        for table in ["plies", "positions", "tags"] {
            assert_eq!(
                sorted(&format!("SELECT DISTINCT game_id FROM {table}")),
                expected,
                "{name}: {table}"
            );
        }
        let plies = duckdb(
            &python,
            &dir,
            "SELECT (SELECT sum(ply_count) FROM games) = (SELECT count(*) FROM plies)",
        );
        assert_eq!(plies, ["True"], "{name}");
    }
}

#[test]
fn shards_share_no_id_and_answer_as_one_database() {
    let Some(python) = python_with("duckdb") else { return };
    let tmp = scratch();
    let lichess = games_dir().join("lichess");
    let otb = games_dir().join("otb");
    let (a, b, both) = (tmp.join("a.db"), tmp.join("b.db"), tmp.join("both.db"));
    import(&a, &[arg(&lichess)]).success();
    import(&b, &[arg(&otb)]).success();
    import(&both, &[arg(&lichess), arg(&otb)]).success();
    let lake = tmp.join("lake");
    export(&a, &lake, &["--shard", "1"]).success();
    export(&b, &lake, &["--shard", "2"]).success();
    let report = compare(&python, &both, &lake, &["--shards"]);
    assert!(report.contains("equal game ids"), "{report}");
    assert!(report.contains("equal explorer 5060803636482931868"), "{report}");
    assert!(report.contains(" 0 failed"), "{report}");
    // The shard in the high 32 bits, the database's id in the low ones.
    let ids = duckdb(
        &python,
        &lake,
        "SELECT id >> 32, min(id & 4294967295), max(id & 4294967295), count(*) FROM games \
         GROUP BY 1 ORDER BY 1",
    );
    let count = |db: &Path| common::count(&common::open(db), "SELECT count(*) FROM games");
    assert_eq!(ids, [format!("1|1|{0}|{0}", count(&a)), format!("2|1|{0}|{0}", count(&b))]);
    let orphans = duckdb(
        &python,
        &lake,
        "SELECT count(*) FROM positions WHERE game_id NOT IN (SELECT id FROM games)",
    );
    assert_eq!(orphans, ["0"]);
}

#[test]
fn errors_are_one_line() {
    let Some(python) = python_with("duckdb") else { return };
    let tmp = scratch();
    let db = tmp.join("t.db");
    import(&db, &[arg(&games_dir().join("otb"))]).success();
    let one_line = |run: common::Run, code: i32, says: &str| {
        assert_eq!(run.code, code, "{}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(run.stderr.starts_with("pgnindex: error: "), "{}", run.stderr);
        assert!(run.stderr.contains(says), "{}", run.stderr);
    };
    let dir = tmp.join("out");
    export(&db, &dir, &[]).success();
    let before = names(&dir.join("games"));
    one_line(export(&db, &dir, &[]), 2, "shard 0 is in the lake already");
    one_line(export(&db, &dir, &["--shard", "0"]), 2, "s0-00001.parquet");
    // Another shard goes beside it.
    export(&db, &dir, &["--shard", "5"]).success();
    assert_eq!(
        names(&dir.join("games")),
        [&before[..], &["s5-00001.parquet".to_string()]].concat()
    );
    assert_eq!(
        duckdb(&python, &dir, "SELECT count(DISTINCT id >> 32), count(DISTINCT path) FROM sources"),
        ["2|1"]
    );
    // A directory of the flat layout, a table's files side by side: refused,
    // and left as it was.
    let flat = tmp.join("flat");
    std::fs::create_dir(&flat).unwrap();
    std::fs::write(flat.join("games-00001.parquet"), "x").unwrap();
    one_line(export(&db, &flat, &[]), 2, "flat/games-00001.parquet: a table file directly");
    assert_eq!(names(&flat), ["games-00001.parquet"]);
    // A killed run's working directory: refused until deleted.
    std::fs::create_dir(dir.join(".pgnindex-work-s6")).unwrap();
    one_line(export(&db, &dir, &["--shard", "6"]), 2, "shard 6 is being written");
    let file = tmp.write("file", "x");
    one_line(export(&db, &file.join("sub"), &[]), 2, "file/sub");
    one_line(run(["export", "--db", arg(&db), "--format", "parquet"]), 2, "-o DIR");
    one_line(run(["export", "--db", arg(&db), "--shard", "2"]), 2, "--format parquet");
    let empty = tmp.join("empty");
    export(&db, &empty, &["--player", "nobody at all"]).success();
    // Every table has its file, without rows.
    assert_eq!(
        duckdb(
            &python,
            &empty,
            "SELECT (SELECT count(*) FROM games) + (SELECT count(*) FROM positions) \
             + (SELECT count(*) FROM plies) + (SELECT count(*) FROM tags)"
        ),
        ["0"]
    );
}

/// `import --parquet DIR ARGS…`.
fn import_parquet(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["import", "--parquet", arg(dir)];
    all.extend_from_slice(args);
    run(all)
}

/// Every name in `dir`, sorted (hidden ones too).
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Asserts that the lake `direct` holds the files of `exported`, byte for
/// byte.
#[track_caller]
fn same_files(direct: &Path, exported: &Path) {
    let tables = ["games", "plies", "positions", "sources", "tags"];
    assert_eq!(names(direct), tables, "a folder a table, no working directory left");
    assert_eq!(names(exported), tables);
    for table in tables {
        let (a, b) = (names(&direct.join(table)), names(&exported.join(table)));
        assert_eq!(a, b, "{table}: the same files");
        for name in &a {
            let (x, y) = (
                std::fs::read(direct.join(table).join(name)).unwrap(),
                std::fs::read(exported.join(table).join(name)).unwrap(),
            );
            assert!(
                x == y,
                "{table}/{name}: {} bytes written directly, {} exported",
                x.len(),
                y.len()
            );
        }
    }
}

/// Tiny runs: 1,000 position rows (the sample's 82,000 rows make more runs
/// than one merge takes) and 100 dedupe keys.
const SMALL_RUNS: [&str; 4] = ["--sort-run-rows", "1000", "--dedupe-run-keys", "100"];

#[test]
fn import_parquet_writes_what_import_and_export_write() {
    let Some(python) = python_with("duckdb") else { return };
    let tmp = scratch();
    let games = games_dir();
    let lichess = games.join("lichess/chessjs-benchmark-lichess-2013.pgn");
    // The same games again in a file of other content: duplicates, found
    // in the dedupe runs.
    let mut again = std::fs::read(&lichess).unwrap();
    again.extend_from_slice(b"\n\n");
    let again = tmp.write("again.pgn", again);
    let variants = [
        ("dedupe", &[][..]),
        ("keep", &["--keep-duplicates"][..]),
        ("short", &["--max-ply", "12"][..]),
    ];
    for (name, extra) in variants {
        let inputs = [arg(&games), arg(&again)];
        let db = tmp.join(format!("{name}.db"));
        let mut args = inputs.to_vec();
        args.extend_from_slice(extra);
        let imported = import(&db, &args).success();
        let exported = tmp.join(format!("{name}-exported"));
        export(&db, &exported, &["--file-size", "64K", "--shard", "3"]).success();
        let direct = tmp.join(format!("{name}-direct"));
        let mut args = args.clone();
        args.extend_from_slice(&SMALL_RUNS);
        args.extend_from_slice(&["--file-size", "64K", "--shard", "3"]);
        let out = import_parquet(&direct, &args).success();
        // The same summary line, and the tables written.
        let summary =
            |stderr: &str| stderr.lines().next().unwrap().split(" in ").next().unwrap().to_string();
        assert_eq!(summary(&out.stderr), summary(&imported.stderr), "{name}");
        // The second file's games are all duplicates, or all kept.
        assert_eq!(out.stderr.contains(" 0 duplicates"), name == "keep", "{name}: {}", out.stderr);
        if name == "short" {
            let plies = duckdb(&python, &direct, "SELECT max(ply) FROM positions");
            assert_eq!(plies, ["12"], "--max-ply applies");
        }
        assert!(out.stderr.contains("written to"), "{}", out.stderr);
        if name != "short" {
            assert!(files(&direct, "positions").len() > 2, "{name}: positions cut at 64K");
        }
        same_files(&direct, &exported);
    }
    // And DuckDB over the files answers as SQLite over the database.
    let db = tmp.join("plain.db");
    import(&db, &[arg(&games)]).success();
    let direct = tmp.join("plain");
    import_parquet(&direct, &[arg(&games), "--sort-run-rows", "5000"]).success();
    let json = tmp.join("movetexts.json");
    movetexts(&db, &json);
    let report = compare(&python, &db, &direct, &["--movetexts", arg(&json)]);
    assert!(report.contains("equal positions: every row"), "{report}");
    assert!(report.contains(" 0 failed"), "{report}");
}

/// The same on the whole shared corpus.
#[test]
#[ignore = "reads ../shared/corpus (run by .ci/run)"]
fn import_parquet_writes_what_export_writes_for_the_corpus() {
    let Some(corpus) = common::corpus_games() else { return };
    let tmp = scratch();
    let db = tmp.join("corpus.db");
    import(&db, &["--quiet", arg(&corpus)]).success();
    let exported = tmp.join("exported");
    export(&db, &exported, &["--file-size", "4M"]).success();
    let direct = tmp.join("direct");
    import_parquet(
        &direct,
        &["--quiet", arg(&corpus), "--file-size", "4M", "--sort-run-rows", "100000"],
    )
    .success();
    same_files(&direct, &exported);
}

#[test]
fn import_parquet_shards_answer_as_one_database() {
    let Some(python) = python_with("duckdb") else { return };
    let tmp = scratch();
    let lichess = games_dir().join("lichess");
    let otb = games_dir().join("otb");
    let both = tmp.join("both.db");
    import(&both, &[arg(&lichess), arg(&otb)]).success();
    let lake = tmp.join("lake");
    import_parquet(&lake, &[arg(&lichess), "--shard", "1"]).success();
    import_parquet(&lake, &[arg(&otb), "--shard", "2", "--sort-run-rows", "999"]).success();
    // A shard exported from a database mixes with them.
    let tcec = games_dir().join("tcec");
    let db = tmp.join("tcec.db");
    import(&db, &[arg(&tcec)]).success();
    export(&db, &lake, &["--shard", "3"]).success();
    import(&both, &[arg(&tcec)]).success();
    let report = compare(&python, &both, &lake, &["--shards"]);
    assert!(report.contains("equal game ids"), "{report}");
    assert!(report.contains("equal explorer 5060803636482931868"), "{report}");
    assert!(report.contains(" 0 failed"), "{report}");
    let ids = duckdb(
        &python,
        &lake,
        "SELECT id >> 32, min(id & 4294967295), count(*) FROM games GROUP BY 1 ORDER BY 1",
    );
    assert_eq!(ids.len(), 3, "{ids:?}");
    for (i, shard) in ids.iter().enumerate() {
        assert!(shard.starts_with(&format!("{}|1|", i + 1)), "{ids:?}");
    }
}

#[test]
fn import_parquet_errors() {
    let Some(python) = python_with("duckdb") else { return };
    let tmp = scratch();
    let otb = games_dir().join("otb");
    let one_line = |run: common::Run, code: i32, says: &str| {
        assert_eq!(run.code, code, "{}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(run.stderr.starts_with("pgnindex: error: "), "{}", run.stderr);
        assert!(run.stderr.contains(says), "{}", run.stderr);
    };
    let dir = tmp.join("out");
    import_parquet(&dir, &[arg(&otb)]).success();
    let before = names(&dir.join("games"));
    one_line(import_parquet(&dir, &[arg(&otb)]), 2, "shard 0 is in the lake already");
    assert_eq!(names(&dir.join("games")), before, "the files already there are left alone");
    assert_eq!(names(&dir).len(), 5, "no working directory left");
    let flat = tmp.join("flat");
    std::fs::create_dir(&flat).unwrap();
    std::fs::write(flat.join("positions-00002.parquet.partial"), "x").unwrap();
    one_line(import_parquet(&flat, &[arg(&otb)]), 2, "a table file directly");
    let file = tmp.write("file", "x");
    one_line(import_parquet(&file.join("sub"), &[arg(&otb)]), 2, "file/sub");
    let usage = |args: &[&str], says: &str| {
        let run = run(args);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains(says), "{}", run.stderr);
    };
    let out = tmp.join("never");
    usage(&["import", "--parquet", arg(&out), "--db", "x.db", arg(&otb)], "--db");
    usage(&["import", "--parquet", arg(&out), "--with-fens", arg(&otb)], "--with-fens");
    usage(&["import", "--db", "x.db", "--shard", "1", arg(&otb)], "--parquet");
    assert!(!out.exists(), "a refused command line creates nothing");

    // A bad move and another variant among good games: reported with
    // their place, the good games (and the bad game up to its bad move)
    // kept and numbered as an import numbers them.
    let pgn = tmp.write(
        "mixed.pgn",
        "[White \"a\"]\n\n1. e4 e5 *\n\n[White \"b\"]\n\n1. e4 e5 2. Ke3 *\n\n\
         [Variant \"Atomic\"]\n\n1. e4 *\n\n[White \"c\"]\n\n1. d4 d5 *\n",
    );
    let direct = tmp.join("mixed");
    let out = import_parquet(&direct, &[arg(&pgn)]).success();
    assert!(out.stderr.contains("mixed.pgn:7:"), "{}", out.stderr);
    assert!(out.stderr.contains("Ke3"), "{}", out.stderr);
    assert!(out.stderr.contains("'Atomic'"), "{}", out.stderr);
    assert!(out.stderr.contains("3 games imported"), "{}", out.stderr);
    let db = tmp.join("mixed.db");
    import(&db, &[arg(&pgn)]).success();
    let exported = tmp.join("mixed-exported");
    export(&db, &exported, &[]).success();
    same_files(&direct, &exported);
    assert_eq!(
        duckdb(&python, &direct, "SELECT id, white, ply_count FROM games ORDER BY id"),
        ["1|a|2", "2|b|2", "3|c|2"]
    );
    // --strict stops before the bad game: the games before it are written,
    // exit status 1, as `import --strict` does.
    let strict = tmp.join("strict");
    let out = import_parquet(&strict, &[arg(&pgn), "--strict"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("Ke3"), "{}", out.stderr);
    assert_eq!(duckdb(&python, &strict, "SELECT id, white FROM games"), ["1|a"]);
}

/// The SQL of the fenced block of docs/scale.md that holds `marker`.
fn doc_sql(marker: &str) -> String {
    let doc = std::fs::read_to_string(common::repo("docs/scale.md")).unwrap();
    let block = doc
        .split("```sql\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .find(|b| b.contains(marker));
    block.unwrap_or_else(|| panic!("docs/scale.md: no SQL block holds {marker}")).to_string()
}

/// `sql` reading the views of one game per dedupe key in place of the
/// tables, as parquet_compare.py's `--unique` does.
fn through_unique(sql: &str) -> String {
    let mut out = sql.to_string();
    for table in ["games", "plies", "tags", "positions"] {
        for word in ["FROM", "JOIN"] {
            out = out.replace(&format!("{word} {table} "), &format!("{word} unique_{table} "));
            out = out.replace(&format!("{word} {table}\n"), &format!("{word} unique_{table}\n"));
        }
    }
    out
}

#[test]
fn shards_of_the_same_games_answer_as_one_database_through_the_unique_views() {
    let Some(python) = python_with("duckdb") else { return };
    let tmp = scratch();
    let games = games_dir();
    let (lichess, otb, tcec) = (games.join("lichess"), games.join("otb"), games.join("tcec"));
    // The same games again in a file of other content: shard 2 holds
    // every game of otb/ a second time. And games with one rating only.
    let mut again = std::fs::read(otb.join("twic-01-232games.pgn")).unwrap();
    again.extend_from_slice(b"\n\n");
    let again = tmp.write("again.pgn", again);
    let one_rated = tmp.write(
        "one-rated.pgn",
        "[White \"a\"]\n[Black \"b\"]\n[WhiteElo \"1000\"]\n\n1. e4 e5 1-0\n\n\
         [White \"c\"]\n[Black \"d\"]\n[BlackElo \"3000\"]\n\n1. e4 c5 2. Nf3 d6 0-1\n\n\
         [White \"e\"]\n[Black \"f\"]\n\n1. e4 c5 2. Nf3 Nc6 1/2-1/2\n",
    );
    let lake = tmp.join("lake");
    import_parquet(&lake, &[arg(&lichess), arg(&otb), "--shard", "1"]).success();
    let db = tmp.join("2.db");
    import(&db, &[arg(&tcec), arg(&again), arg(&one_rated)]).success();
    export(&db, &lake, &["--shard", "2"]).success();
    let both = tmp.join("both.db");
    import(&both, &[arg(&lichess), arg(&otb), arg(&tcec), arg(&again), arg(&one_rated)]).success();
    let again_duplicates = "SELECT duplicates FROM sources WHERE path LIKE '%again.pgn'";
    assert_eq!(common::count(&common::open(&both), again_duplicates), 232);
    // Read as they are, the tables count the 232 games twice.
    let sqlite = common::count(&common::open(&both), "SELECT count(*) FROM games");
    assert_eq!(duckdb(&python, &lake, "SELECT count(*) FROM games"), [(sqlite + 232).to_string()]);
    // Through the documented views, every answer is the database's.
    let views = doc_sql("VIEW unique_games AS");
    let file = tmp.write("unique.sql", &views);
    let report = compare(&python, &both, &lake, &["--shards", "--unique", arg(&file)]);
    assert!(report.contains("equal games: rows"), "{report}");
    assert!(report.contains("equal explorer 5060803636482931868"), "{report}");
    assert!(report.contains("equal player scores by year"), "{report}");
    assert!(report.contains(" 0 failed"), "{report}");
    // The copy kept is the one of the lower shard, as the database keeps
    // the first.
    let kept = duckdb(
        &python,
        &lake,
        &format!("{views}; SELECT id >> 32, count(*) FROM unique_games GROUP BY 1 ORDER BY 1"),
    );
    let shard_1 =
        common::count(&common::open(&both), "SELECT count(*) FROM games WHERE source_id <= 3");
    assert_eq!(kept[0], format!("1|{shard_1}"), "{kept:?}");
    // The explorer's move table of the docs, through the views, is
    // `explore`'s: games, results and the average rating of the rated
    // players.
    let explorer = doc_sql("AS avg_elo");
    for (key, position) in [
        ("5060803636482931868", ["--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"]),
        ("-4672020583340299306", ["--moves", "1. e4 c5 2. Nf3"]),
    ] {
        assert!(explorer.contains("-4672020583340299306"), "{explorer}");
        let sql = through_unique(&explorer.replace("-4672020583340299306", key));
        let mut got: Vec<String> = duckdb(&python, &lake, &format!("{views}; {sql}"))
            .into_iter()
            .map(|row| {
                // The average as DuckDB prints a double: 2401.0.
                row.strip_suffix(".0").map_or(row.clone(), str::to_string)
            })
            .collect();
        let out = run(["explore", "--db", arg(&both), position[0], position[1], "--format", "csv"])
            .success();
        let mut want: Vec<String> = out
            .stdout
            .lines()
            .skip(1)
            .map(|line| {
                let f: Vec<&str> = line.split(',').collect();
                [f[1], f[2], f[3], f[4], f[5], f[9]].join("|")
            })
            .collect();
        got.sort();
        want.sort();
        assert!(want.len() > 3, "{want:?}");
        assert_eq!(got, want, "{key}");
    }
}
