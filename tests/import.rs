//! `pgnindex import` end to end: the database it writes is checked
//! against python-chess's reference data (`fixtures/groundtruth/`), against
//! itself under other thread counts, after duplicates, re-imports, bad
//! inputs and a full database (kills: `tests/reliability.rs`).

use std::io::Read;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use pgnindex::replay::VariantKind;
use rusqlite::Connection;

fn pgnindex() -> Command {
    Command::cargo_bin("pgnindex").unwrap()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn games_dir() -> PathBuf {
    root().join("fixtures/pgn/games")
}

/// Runs `pgnindex import --db DB ARGS...` and returns (exit code, stderr).
fn import(db: &Path, args: &[&str]) -> (i32, String) {
    let out = pgnindex().arg("import").arg("--db").arg(db).args(args).output().unwrap();
    (out.status.code().unwrap(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn query<T: rusqlite::types::FromSql>(conn: &Connection, sql: &str) -> Vec<T> {
    let mut st = conn.prepare(sql).unwrap();
    let rows = st.query_map([], |r| r.get(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn fnv(keys: impl IntoIterator<Item = u64>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for k in keys {
        for b in k.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// The python-chess records of a file below a `games` directory (the
/// reference covers every file of the shared corpus's `games/`).
fn reference(games: &Path, pgn: &Path) -> Vec<serde_json::Value> {
    let rel = pgn.strip_prefix(games).unwrap();
    let path =
        root().join("fixtures/groundtruth/games").join(format!("{}.jsonl.gz", rel.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Every table's content in a canonical order, without the columns that
/// depend on time or paths.
fn dump(conn: &Connection) -> Vec<String> {
    let mut out = Vec::new();
    for sql in [
        "SELECT id, event, site, date, round, white, black, result, white_elo, black_elo, eco, \
         opening, time_control, termination, ply_count, start_fen, final_fen, moves, movetext, \
         source_id, source_offset, error, dedupe_key FROM games ORDER BY id",
        "SELECT game_id, ord, name, value FROM tags ORDER BY game_id, ord",
        "SELECT hash, game_id, ply, next_move, fen FROM positions ORDER BY hash, game_id, ply",
        "SELECT source_id, game_number, game_id, kind, byte_offset, line, \"column\", message \
         FROM import_errors ORDER BY id",
        "SELECT id, size, fingerprint, games, duplicates, errors, positions, resume_offset, \
         finished_at IS NOT NULL FROM sources ORDER BY id",
    ] {
        let mut st = conn.prepare(sql).unwrap();
        let n = st.column_count();
        let rows = st
            .query_map([], |r| {
                let cells: Vec<String> =
                    (0..n).map(|i| format!("{:?}", r.get_ref(i).unwrap())).collect();
                Ok(cells.join("|"))
            })
            .unwrap();
        out.extend(rows.map(Result::unwrap));
    }
    out
}

#[test]
fn fixture_games_match_python_chess_exactly() {
    let plies = import_matches_reference(&games_dir(), 7);
    assert!(plies > 80_000, "{plies}");
}

/// Imports the whole shared corpus (`../shared/corpus/games`, 17,375
/// games) and checks every game against the reference, as CI does.
#[test]
#[ignore = "reads ../shared/corpus (run by .ci/run)"]
fn shared_corpus_games_match_python_chess_exactly() {
    let games = root().join("../shared/corpus/games").canonicalize().expect("../shared/corpus");
    let plies = import_matches_reference(&games, 0);
    assert!(plies > 1_400_000, "{plies}");
}

/// Imports `games` (with `--keep-duplicates`, so that the database holds
/// every game the reference lists) and compares every stored game with
/// python-chess: headers, plies, final FEN, canonical SAN, the Polyglot key
/// of every ply and the UCI move played from it. Games of other variants
/// are not stored and are skipped in the reference. Returns the plies
/// checked. `files`, if not 0, is the number of input files expected.
fn import_matches_reference(games: &Path, files: usize) -> i64 {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let (code, stderr) = import(&db, &["--keep-duplicates", games.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let conn = Connection::open(&db).unwrap();
    let sources: Vec<(i64, String)> = {
        let mut st = conn.prepare("SELECT id, path FROM sources ORDER BY id").unwrap();
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        rows.map(Result::unwrap).collect()
    };
    if files > 0 {
        assert_eq!(sources.len(), files);
    }
    // Every position row, by game, in ply order.
    let mut positions: std::collections::HashMap<i64, Vec<(i64, Option<i64>)>> =
        std::collections::HashMap::new();
    {
        let mut st = conn
            .prepare("SELECT game_id, hash, next_move FROM positions ORDER BY game_id, ply")
            .unwrap();
        let mut rows = st.query([]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let id: i64 = r.get(0).unwrap();
            positions.entry(id).or_default().push((r.get(1).unwrap(), r.get(2).unwrap()));
        }
    }
    let mut checked_plies = 0;
    for (source_id, path) in sources {
        let expected: Vec<serde_json::Value> = reference(games, Path::new(&path))
            .into_iter()
            .filter(|r| {
                r["variant"].as_str().map(VariantKind::from_tag) != Some(VariantKind::Other)
            })
            .collect();
        let mut st = conn
            .prepare(
                "SELECT id, white, black, ply_count, final_fen, moves, error FROM games \
                 WHERE source_id = ?1 ORDER BY id",
            )
            .unwrap();
        type Row = (i64, Option<String>, Option<String>, i64, String, String, Option<String>);
        let games: Vec<Row> = st
            .query_map([source_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(games.len(), expected.len(), "{path}: game count");
        for (game, reference) in games.iter().zip(&expected) {
            let (id, white, black, plies, final_fen, moves, error) = game;
            let at = format!("{path} game {}", reference["index"]);
            assert_eq!(error, &None, "{at}");
            let header = |name: &str| reference["headers"][name].as_str().map(unescape);
            assert_eq!(white, &header("White"), "{at}");
            assert_eq!(black, &header("Black"), "{at}");
            assert_eq!(*plies, reference["plies"].as_i64().unwrap(), "{at}");
            assert_eq!(final_fen, reference["final_fen"].as_str().unwrap(), "{at}");
            assert_eq!(moves, reference["moves_san"].as_str().unwrap(), "{at}");
            let rows = positions.get(id).map_or(&[][..], Vec::as_slice);
            assert_eq!(rows.len() as i64, plies + 1, "{at}: one position per ply");
            let digest = format!("{:016x}", fnv(rows.iter().map(|&(h, _)| h as u64)));
            assert_eq!(digest, reference["keys_fnv"].as_str().unwrap(), "{at}: Polyglot keys");
            // next_move is the UCI move played from each position.
            let next: Vec<Option<i64>> = rows.iter().map(|&(_, m)| m).collect();
            let uci: Vec<String> = next
                .iter()
                .flatten()
                .map(|&code| {
                    let m = pgnindex::notation::uci::Uci::from_code(code as u16).unwrap();
                    m.to_string()
                })
                .collect();
            assert_eq!(uci.join(" "), reference["moves_uci"].as_str().unwrap(), "{at}");
            assert_eq!(next.last(), Some(&None), "{at}: no move from the final position");
            checked_plies += plies;
        }
    }
    // Lookups by hash use the primary key.
    let plan: Vec<String> = {
        let mut st = conn
            .prepare("EXPLAIN QUERY PLAN SELECT game_id FROM positions WHERE hash = 42")
            .unwrap();
        let rows = st.query_map([], |r| r.get::<_, String>(3)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    assert!(
        plan.iter().all(|p| !p.contains("SCAN positions_"))
            && plan.iter().any(|p| p.contains("USING PRIMARY KEY (hash=?)")),
        "{plan:?}"
    );
    checked_plies
}

/// A tag value as PGN means it: python-chess keeps `\\` and `\"` as
/// written; we unescape them.
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(next @ ('\\' | '"'))) => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// Any thread count, and `--exclusive` (rollback journal instead of the
/// write-ahead log), store the same rows; at rest the file is one
/// rollback-journal database either way.
#[test]
fn thread_counts_and_exclusive_mode_give_identical_databases() {
    let dir = tempfile::tempdir().unwrap();
    let mut dumps = Vec::new();
    let games = games_dir();
    for (name, extra) in [("1", None), ("2", None), ("3", None), ("2", Some("--exclusive"))] {
        let db = dir.path().join(format!("t{name}{}.db", extra.unwrap_or_default()));
        let mut args = vec!["--threads", name, "--with-fens", games.to_str().unwrap()];
        args.extend(extra);
        let (code, stderr) = import(&db, &args);
        assert_eq!(code, 0, "{stderr}");
        let conn = Connection::open(&db).unwrap();
        assert_eq!(query::<String>(&conn, "PRAGMA journal_mode"), ["delete"], "{args:?}");
        for suffix in ["-wal", "-shm", "-journal"] {
            let left = PathBuf::from(format!("{}{suffix}", db.display()));
            assert!(!left.exists(), "{} left after {args:?}", left.display());
        }
        dumps.push(dump(&conn));
    }
    assert!(dumps[0].len() > 80_000);
    assert!(dumps.iter().all(|d| *d == dumps[0]));
}

#[test]
fn duplicates_and_reimports() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let twic = games_dir().join("otb/twic-01-232games.pgn");
    let twic = twic.to_str().unwrap();
    let (code, stderr) = import(&db, &[twic]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("232 games imported, 0 duplicates"), "{stderr}");

    // Same content again: skipped as a whole.
    let (code, stderr) = import(&db, &[twic]);
    assert_eq!(code, 0);
    assert!(stderr.contains("already imported"), "{stderr}");
    assert!(stderr.contains("0 games imported"), "{stderr}");

    // Forced: every game is a duplicate.
    let (code, stderr) = import(&db, &["--force", twic]);
    assert_eq!(code, 0);
    assert!(stderr.contains("0 games imported, 232 duplicates"), "{stderr}");
    // The rate counts the games read, duplicates too.
    let rate: f64 = stderr
        .split_once(" s (")
        .and_then(|(_, rest)| rest.split_once(" games/s"))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("no games/s in {stderr}"));
    assert!(rate > 0.0, "{stderr}");

    // The same games under another name, with other spacing, case and
    // extra tags, are still duplicates; a changed move is not.
    let text = std::fs::read_to_string(twic).unwrap();
    let changed = text
        .replace("[White \"Carlsen,M\"]", "[White \"  carlsen,m \"]\n[Annotator \"me\"]")
        .replacen("1. e4 e5 2. Nf3", "1. e4 e5 2. Nc3", 1);
    let copy = dir.path().join("copy.pgn");
    std::fs::write(&copy, changed).unwrap();
    let (code, stderr) = import(&db, &[copy.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stderr.contains("1 games imported, 231 duplicates"), "{stderr}");

    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 233);
    assert_eq!(count(&conn, "SELECT max(id) FROM games"), 233, "ids stay dense");
    assert_eq!(count(&conn, "SELECT count(*) FROM sources"), 3);

    // --keep-duplicates stores them all.
    let (code, stderr) = import(&db, &["--force", "--keep-duplicates", twic]);
    assert_eq!(code, 0);
    assert!(stderr.contains("232 games imported, 0 duplicates"), "{stderr}");
}

#[test]
fn options_shape_the_position_index() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = games_dir().join("lichess/chessjs-benchmark-lichess-2013.pgn");
    let pgn = pgn.to_str().unwrap();

    let db = dir.path().join("none.db");
    assert_eq!(import(&db, &["--no-positions", pgn]).0, 0);
    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 100);
    assert_eq!(count(&conn, "SELECT count(*) FROM positions"), 0);
    assert!(count(&conn, "SELECT sum(length(moves)) FROM games") > 10_000);

    let db = dir.path().join("short.db");
    assert_eq!(import(&db, &["--max-ply", "4", "--with-fens", pgn]).0, 0);
    let conn = Connection::open(&db).unwrap();
    let short_games = count(&conn, "SELECT count(*) FROM games WHERE ply_count < 4");
    assert_eq!(count(&conn, "SELECT count(*) FROM positions"), 5 * 100 - short_games);
    assert_eq!(count(&conn, "SELECT max(ply) FROM positions"), 4);
    assert_eq!(count(&conn, "SELECT count(*) FROM positions WHERE fen IS NULL"), 0);
    let start: Vec<String> = query(&conn, "SELECT DISTINCT fen FROM positions WHERE ply = 0");
    assert_eq!(start, ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]);
}

#[test]
fn bad_games_are_stored_up_to_the_error_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("bad.pgn");
    std::fs::write(
        &pgn,
        "[White \"a\"]\n\n1. e4 e5 *\n\n[White \"b\"]\n\n1. e4 e5 2. Ke3 Nc6 *\n\n\
         [Variant \"Atomic\"]\n\n1. e4 *\n\n[White \"d\"]\n\n1. d4 *\n",
    )
    .unwrap();
    let db = dir.path().join("t.db");
    let (code, stderr) = import(&db, &[pgn.to_str().unwrap()]);
    assert_eq!(code, 0, "bad games do not fail the import: {stderr}");
    assert!(
        stderr.contains("bad.pgn:7:13: game 2: move 2 (white): illegal move 'Ke3'"),
        "{stderr}"
    );
    assert!(stderr.contains("3 games imported, 0 duplicates, 2 errors"), "{stderr}");
    let conn = Connection::open(&db).unwrap();
    let rows: Vec<String> = query(
        &conn,
        "SELECT white || ':' || moves || ':' || coalesce(error, '-') FROM games ORDER BY id",
    );
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0], "a:e4 e5:-");
    assert!(rows[1].starts_with("b:e4 e5:move 2 (white): illegal move 'Ke3'"), "{}", rows[1]);
    assert_eq!(rows[2], "d:d4:-");
    assert_eq!(count(&conn, "SELECT count(*) FROM positions WHERE game_id = 2"), 3);
    let errors: Vec<String> = query(
        &conn,
        "SELECT kind || ' ' || game_number || ' ' || coalesce(game_id, 0) || ' ' || line || ':' \
         || \"column\" FROM import_errors ORDER BY id",
    );
    assert_eq!(errors, ["error 2 2 7:13", "skipped 3 0 9:1"]);

    // --strict stops at the first bad game, after storing the ones before.
    let db = dir.path().join("strict.db");
    let (code, stderr) = import(&db, &["--strict", pgn.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("stopped at the first bad game"), "{stderr}");
    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 2);
    // A run without --strict goes on after it.
    assert_eq!(import(&db, &[pgn.to_str().unwrap()]).0, 0);
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 3);
}

#[test]
fn bad_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let empty = dir.path().join("empty.pgn");
    std::fs::write(&empty, "").unwrap();
    let binary = dir.path().join("binary.pgn");
    std::fs::write(&binary, (0..=255u8).cycle().take(100_000).collect::<Vec<u8>>()).unwrap();
    let twic = games_dir().join("otb/twic-01-232games.pgn");
    let missing = dir.path().join("missing.pgn");
    let inputs = [empty.to_str().unwrap(), binary.to_str().unwrap(), twic.to_str().unwrap()];
    // A missing argument stops the command before any work.
    let (code, stderr) = import(&db, &[inputs[2], missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("missing.pgn") && stderr.lines().count() == 1, "{stderr}");
    assert!(!db.exists(), "no database is created when an argument is missing");
    let (code, stderr) = import(&db, &inputs);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("232 games imported"), "{stderr}");
    let conn = Connection::open(&db).unwrap();
    let white: Vec<String> = query(&conn, "SELECT white FROM games WHERE id = 1");
    assert_eq!(white, ["Carlsen,M"], "nothing stored from the empty and binary files");

    // Not a database: refused without touching it.
    let text = dir.path().join("text.db");
    std::fs::write(&text, "just some text, not SQLite, long enough to have a header....").unwrap();
    let (code, stderr) = import(&text, &[twic.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not a database"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_second_import_is_refused_while_one_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let twic = games_dir().join("otb/twic-01-232games.pgn");
    assert_eq!(import(&db, &["--no-positions", twic.to_str().unwrap()]).0, 0);
    // Hold the import lock as a running import does.
    let lock = std::fs::File::open(&db).unwrap();
    lock.lock().unwrap();
    let (code, stderr) = import(&db, &["--force", twic.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("another pgnindex import is writing"), "{stderr}");
    drop(lock);
    assert_eq!(import(&db, &["--force", twic.to_str().unwrap()]).0, 0);
}

#[test]
fn compressed_files_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(games_dir().join("otb/twic-01-232games.pgn")).unwrap();
    let gz = dir.path().join("games.pgn.gz");
    let mut encoder =
        flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), Default::default());
    std::io::Write::write_all(&mut encoder, &text).unwrap();
    encoder.finish().unwrap();

    let db = dir.path().join("gz.db");
    let (code, stderr) = import(&db, &[gz.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("232 games imported"), "{stderr}");

    let db = dir.path().join("stdin.db");
    let out = pgnindex()
        .args(["import", "--db", db.to_str().unwrap(), "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("232 games imported"));
    let conn = Connection::open(&db).unwrap();
    let source: Vec<String> =
        query(&conn, "SELECT path || ' ' || coalesce(fingerprint, 'none') FROM sources");
    assert_eq!(source, ["- none"]);
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 232);
}

#[test]
fn a_full_disk_stops_the_import_with_whole_games_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("full.db");
    let games = games_dir();
    let args = ["--batch-games", "200", "--max-db-pages", "120", games.to_str().unwrap()];
    let (code, stderr) = import(&db, &args);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stderr.trim(),
        format!("pgnindex: error: {}: database or disk is full", db.display())
    );
    let conn = Connection::open(&db).unwrap();
    let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok");
    let stored = count(&conn, "SELECT count(*) FROM games");
    assert!(stored > 0 && stored < 1091, "{stored}");
    assert_eq!(
        count(&conn, "SELECT count(*) FROM positions"),
        count(&conn, "SELECT sum(ply_count + 1) FROM games"),
        "only whole games"
    );
    // With room again, the same command finishes the job.
    drop(conn);
    let (code, stderr) = import(&db, &["--batch-games", "200", games.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 1091);
}

#[test]
fn tag_pairs_keep_their_order_and_text() {
    // Tags without a `games` column, with PGN escapes, non-ASCII text, a
    // control character and a repeated name, read back through the `tags`
    // view and `show`; a game without other tags has no `game_tags` row.
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("tags.pgn");
    std::fs::write(
        &pgn,
        "[Event \"E\"]\n[Annotator \"A \\\"B\\\" \\\\ C\"]\n[Remark \"Ünal\tÖz\"]\n\
         [Annotator \"second\"]\n[Link \"https://x/y?a=1&b=[2]\"]\n\n1. e4 e5 1/2-1/2\n\n\
         [Event \"F\"]\n[White \"W\"]\n\n1. d4 1-0\n",
    )
    .unwrap();
    let db = dir.path().join("t.db");
    let (code, err) = import(&db, &[pgn.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let conn = Connection::open(&db).unwrap();
    let mut st = conn.prepare("SELECT game_id, ord, name, value FROM tags").unwrap();
    let rows: Vec<(i64, i64, String, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let expected = [
        (1, 0, "Annotator", "A \"B\" \\ C"),
        (1, 1, "Remark", "Ünal\tÖz"),
        (1, 2, "Annotator", "second"),
        (1, 3, "Link", "https://x/y?a=1&b=[2]"),
    ];
    let expected: Vec<(i64, i64, String, String)> =
        expected.iter().map(|&(g, o, n, v)| (g, o, n.to_string(), v.to_string())).collect();
    assert_eq!(rows, expected);
    assert_eq!(count(&conn, "SELECT count(*) FROM game_tags"), 1);
    let out = pgnindex().args(["show", "1", "--format", "json", "--db"]).arg(&db).output().unwrap();
    let game: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let shown: Vec<(String, String)> = serde_json::from_value(game["tags"].clone()).unwrap();
    for (_, _, name, value) in &expected {
        assert!(shown.contains(&(name.clone(), value.clone())), "{name} {value:?} in {shown:?}");
    }
}
