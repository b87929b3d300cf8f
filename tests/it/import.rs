//! `pgnindex import` end to end: the database it writes is checked
//! against python-chess's reference data (`fixtures/groundtruth/`), against
//! itself under other thread counts, after duplicates, re-imports, bad
//! inputs and a full database (kills: `tests/it/reliability.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::common;

use common::{
    arg, column, count, games_dir, gzip, import, integrity, keys_fnv, open, pgnindex, repo, rows,
    run, scratch, text_rows, twic, variant,
};
use pgnindex::replay::VariantKind;
use rusqlite::Connection;
use similar_asserts::assert_eq;

/// Every table's content in a canonical order, without the columns that
/// depend on time or paths.
fn dump(conn: &Connection) -> Vec<String> {
    [
        "SELECT id, event, site, date, round, white, black, result, white_elo, black_elo, eco, \
         opening, time_control, termination, ply_count, start_fen, final_fen, moves, movetext, \
         source_id, source_offset, error, dedupe_key FROM games ORDER BY id",
        "SELECT game_id, ord, name, value FROM tags ORDER BY game_id, ord",
        "SELECT hash, game_id, ply, next_move, fen FROM positions ORDER BY hash, game_id, ply",
        "SELECT source_id, game_number, game_id, kind, byte_offset, line, \"column\", message \
         FROM import_errors ORDER BY id",
        "SELECT id, size, fingerprint, games, duplicates, errors, positions, resume_offset, \
         finished_at IS NOT NULL FROM sources ORDER BY id",
    ]
    .iter()
    .flat_map(|sql| text_rows(conn, sql))
    .collect()
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
    let games = repo("../shared/corpus/games").canonicalize().expect("../shared/corpus");
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
    let dir = scratch();
    let db = dir.join("t.db");
    import(&db, &["--keep-duplicates", arg(games)]).success();
    let conn = open(&db);
    let sources: Vec<(i64, String)> = rows(&conn, "SELECT id, path FROM sources ORDER BY id");
    if files > 0 {
        assert_eq!(sources.len(), files);
    }
    // Every position row, by game, in ply order.
    let mut positions: HashMap<i64, Vec<(i64, Option<i64>)>> = HashMap::new();
    let sql = "SELECT game_id, hash, next_move FROM positions ORDER BY game_id, ply";
    for (id, hash, next) in rows::<(i64, i64, Option<i64>)>(&conn, sql) {
        positions.entry(id).or_default().push((hash, next));
    }
    let mut checked_plies = 0;
    for (source_id, path) in sources {
        let rel = Path::new(&path).strip_prefix(games).unwrap();
        let expected: Vec<serde_json::Value> =
            common::reference(&format!("games/{}", rel.display()))
                .into_iter()
                .filter(|r| variant(r) != VariantKind::Other)
                .collect();
        type Row = (i64, Option<String>, Option<String>, i64, String, String, Option<String>);
        let games: Vec<Row> = rows(
            &conn,
            &format!(
                "SELECT id, white, black, ply_count, final_fen, moves, error FROM games \
                 WHERE source_id = {source_id} ORDER BY id"
            ),
        );
        assert_eq!(games.len(), expected.len(), "{path}: game count");
        for (game, reference) in games.iter().zip(&expected) {
            let (id, white, black, plies, final_fen, moves, error) = game;
            let at = format!("{path} game {}", reference["index"]);
            assert_eq!(error, &None, "{at}");
            // The standard's "unknown" is no value: NULL.
            let header = |name: &str| {
                reference["headers"][name].as_str().map(unescape).filter(|v| v.trim() != "?")
            };
            assert_eq!(white, &header("White"), "{at}");
            assert_eq!(black, &header("Black"), "{at}");
            assert_eq!(*plies, reference["plies"].as_i64().unwrap(), "{at}");
            assert_eq!(final_fen, reference["final_fen"].as_str().unwrap(), "{at}");
            assert_eq!(moves, reference["moves_san"].as_str().unwrap(), "{at}");
            let rows = positions.get(id).map_or(&[][..], Vec::as_slice);
            assert_eq!(rows.len() as i64, plies + 1, "{at}: one position per ply");
            let digest = keys_fnv(rows.iter().map(|&(h, _)| h as u64));
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
    let plan: Vec<String> = rows::<(i64, i64, i64, String)>(
        &conn,
        "EXPLAIN QUERY PLAN SELECT game_id FROM positions WHERE hash = 42",
    )
    .into_iter()
    .map(|(_, _, _, detail)| detail)
    .collect();
    assert!(
        plan.iter().all(|p| !(p.contains("SCAN ") && p.contains("positions_")))
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
/// write-ahead log), store the same rows, as the views read them and as
/// the tables hold them (names by id or text, the dictionary's ids); at
/// rest the file is one rollback-journal database either way.
#[test]
fn thread_counts_and_exclusive_mode_give_identical_databases() {
    let dir = scratch();
    let games = games_dir();
    let mut first = None;
    for (name, extra) in [("1", None), ("2", None), ("7", None), ("2", Some("--exclusive"))] {
        let db = dir.join(format!("t{name}{}.db", extra.unwrap_or_default()));
        let mut args = vec!["--threads", name, "--with-fens", arg(&games)];
        args.extend(extra);
        import(&db, &args).success();
        let conn = open(&db);
        assert_eq!(column::<String>(&conn, "PRAGMA journal_mode"), ["delete"], "{args:?}");
        for suffix in ["-wal", "-shm", "-journal"] {
            let left = PathBuf::from(format!("{}{suffix}", db.display()));
            assert!(!left.exists(), "{} left after {args:?}", left.display());
        }
        let mut dump = dump(&conn);
        for table in ["game_rows", "game_texts", "ply_data", "game_tags", "game_material"] {
            dump.extend(text_rows(&conn, &format!("SELECT * FROM {table} ORDER BY 1")));
        }
        match &first {
            None => first = Some(dump),
            Some(first) => assert_eq!(&dump, first, "{args:?} vs --threads 1"),
        }
    }
    assert!(first.unwrap().len() > 80_000);
}

#[test]
fn duplicates_and_reimports() {
    let dir = scratch();
    let db = dir.join("t.db");
    let twic = twic();
    let twic = arg(&twic);
    let stderr = import(&db, &[twic]).success().stderr;
    assert!(stderr.contains("232 games imported, 0 duplicates"), "{stderr}");

    // Same content again: skipped as a whole.
    let stderr = import(&db, &[twic]).success().stderr;
    assert!(stderr.contains("already imported"), "{stderr}");
    assert!(stderr.contains("0 games imported"), "{stderr}");

    // Forced: every game is a duplicate.
    let stderr = import(&db, &["--force", twic]).success().stderr;
    assert!(stderr.contains("0 games imported, 232 duplicates"), "{stderr}");
    // The rate counts the games read, duplicates too.
    let rate: f64 = stderr
        .split_once(" s (")
        .and_then(|(_, rest)| rest.split_once(" games/s"))
        .and_then(|(n, _)| n.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("no games/s in {stderr}"));
    assert!(rate > 0.0, "{stderr}");

    // The same games under another name, with other spacing, case and
    // extra tags, are still duplicates; a changed move is not.
    let text = std::fs::read_to_string(twic).unwrap();
    let changed = text
        .replace("[White \"Carlsen,M\"]", "[White \"  carlsen,m \"]\n[Annotator \"me\"]")
        .replacen("1. e4 e5 2. Nf3", "1. e4 e5 2. Nc3", 1);
    let copy = dir.write("copy.pgn", changed);
    let stderr = import(&db, &[arg(&copy)]).success().stderr;
    assert!(stderr.contains("1 game imported, 231 duplicates"), "{stderr}");

    let conn = open(&db);
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 233);
    assert_eq!(count(&conn, "SELECT max(id) FROM games"), 233, "ids stay dense");
    assert_eq!(count(&conn, "SELECT count(*) FROM sources"), 3);

    // --keep-duplicates stores them all.
    let stderr = import(&db, &["--force", "--keep-duplicates", twic]).success().stderr;
    assert!(stderr.contains("232 games imported, 0 duplicates"), "{stderr}");

    // The segment tables, one or more per import, are listed (as the
    // `sqlite3` shell's `.tables` lists them) after what users query.
    let names: Vec<String> = column(
        &open(&db),
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') \
         AND name NOT LIKE 'sqlite_%' ORDER BY name",
    );
    let segments: Vec<&String> = names
        .iter()
        .filter(|n| n.trim_start_matches(|c: char| !c.is_ascii_digit()).len() == 6)
        .collect();
    assert!(segments.len() >= 4, "{names:?}");
    let first_segment = names.iter().position(|n| n.starts_with("z_")).unwrap();
    assert!(names[first_segment..].iter().all(|n| n.starts_with("z_")), "{names:?}");
    for view in ["games", "players", "plies", "positions", "tags"] {
        assert!(names[..first_segment].iter().any(|n| n == view), "{view} in {names:?}");
    }
}

#[test]
fn options_shape_the_position_index() {
    let dir = scratch();
    let pgn = games_dir().join("lichess/chessjs-benchmark-lichess-2013.pgn");
    let pgn = arg(&pgn);

    let db = dir.join("none.db");
    import(&db, &["--no-positions", pgn]).success();
    let conn = open(&db);
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 100);
    assert_eq!(count(&conn, "SELECT count(*) FROM positions"), 0);
    assert!(count(&conn, "SELECT sum(length(moves)) FROM games") > 10_000);

    let db = dir.join("short.db");
    import(&db, &["--max-ply", "4", "--with-fens", pgn]).success();
    let conn = open(&db);
    let short_games = count(&conn, "SELECT count(*) FROM games WHERE ply_count < 4");
    assert_eq!(count(&conn, "SELECT count(*) FROM positions"), 5 * 100 - short_games);
    assert_eq!(count(&conn, "SELECT max(ply) FROM positions"), 4);
    assert_eq!(count(&conn, "SELECT count(*) FROM positions WHERE fen IS NULL"), 0);
    let start: Vec<String> = column(&conn, "SELECT DISTINCT fen FROM positions WHERE ply = 0");
    assert_eq!(start, ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]);
}

#[test]
fn bad_games_are_stored_up_to_the_error_and_reported() {
    let dir = scratch();
    let pgn = dir.write(
        "bad.pgn",
        "[White \"a\"]\n\n1. e4 e5 *\n\n[White \"b\"]\n\n1. e4 e5 2. Ke3 Nc6 *\n\n\
         [Variant \"Atomic\"]\n\n1. e4 *\n\n[White \"d\"]\n\n1. d4 *\n",
    );
    let db = dir.join("t.db");
    let run = import(&db, &[arg(&pgn)]);
    let stderr = run.stderr;
    assert_eq!(run.code, 0, "bad games do not fail the import: {stderr}");
    assert!(stderr.contains("bad.pgn:7:13: game 2: 2. Ke3: illegal move"), "{stderr}");
    assert!(stderr.contains("3 games imported, 0 duplicates, 2 errors"), "{stderr}");
    let conn = open(&db);
    let rows: Vec<String> = column(
        &conn,
        "SELECT white || ':' || moves || ':' || coalesce(error, '-') FROM games ORDER BY id",
    );
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0], "a:e4 e5:-");
    assert!(rows[1].starts_with("b:e4 e5:2. Ke3: illegal move"), "{}", rows[1]);
    assert_eq!(rows[2], "d:d4:-");
    assert_eq!(count(&conn, "SELECT count(*) FROM positions WHERE game_id = 2"), 3);
    let errors: Vec<String> = column(
        &conn,
        "SELECT kind || ' ' || game_number || ' ' || coalesce(game_id, 0) || ' ' || line || ':' \
         || \"column\" FROM import_errors ORDER BY id",
    );
    assert_eq!(errors, ["error 2 2 7:13", "skipped 3 0 9:1"]);

    // --strict stops before the first bad game, after storing the ones before.
    let db = dir.join("strict.db");
    let run = import(&db, &["--strict", arg(&pgn)]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("stopped at the first bad game"), "{}", run.stderr);
    let conn = open(&db);
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 1);
    // A run without --strict goes on after it.
    import(&db, &[arg(&pgn)]).success();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 3);
}

#[test]
fn bad_inputs() {
    let dir = scratch();
    let db = dir.join("t.db");
    let empty = dir.write("empty.pgn", "");
    let binary = dir.write("binary.pgn", (0..=255u8).cycle().take(100_000).collect::<Vec<u8>>());
    let twic = twic();
    let missing = dir.join("missing.pgn");
    // Binary data is refused before any work, naming the file.
    let run = import(&db, &[arg(&empty), arg(&binary), arg(&twic)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("binary.pgn: binary data, not PGN text"), "{}", run.stderr);
    assert!(!db.exists(), "no database is created for binary data");
    let inputs = [arg(&empty), arg(&twic), arg(&twic)];
    // A missing argument stops the command before any work.
    let run = import(&db, &[inputs[2], arg(&missing)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("missing.pgn") && run.stderr.lines().count() == 1,
        "{}",
        run.stderr
    );
    assert!(!db.exists(), "no database is created when an argument is missing");
    let stderr = import(&db, &inputs).success().stderr;
    assert!(stderr.contains("232 games imported"), "{stderr}");
    let conn = open(&db);
    let white: Vec<String> = column(&conn, "SELECT white FROM games WHERE id = 1");
    assert_eq!(white, ["Carlsen,M"], "nothing stored from the empty file");

    // Not a database: refused without touching it.
    let text = dir.write("text.db", "just some text, not SQLite, long enough to have a header....");
    let run = import(&text, &[arg(&twic)]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("not a database"), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}

#[test]
fn a_second_import_is_refused_while_one_runs() {
    let dir = scratch();
    let db = dir.join("t.db");
    let twic = twic();
    import(&db, &["--no-positions", arg(&twic)]).success();
    // Hold the import lock as a running import does.
    let lock = std::fs::File::open(&db).unwrap();
    lock.lock().unwrap();
    let run = import(&db, &["--force", arg(&twic)]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("another pgnindex import, delete or vacuum is writing"),
        "{}",
        run.stderr
    );
    drop(lock);
    import(&db, &["--force", arg(&twic)]).success();
}

/// The stage lines of `import --timings`: name, threads, CPU seconds, share.
fn stage_lines(stderr: &str) -> Vec<(String, String, f64, f64)> {
    let start = stderr.find("where the time went").expect(stderr);
    stderr[start..]
        .lines()
        .skip(2)
        .take_while(|line| !line.trim_start().starts_with("bound by"))
        .filter(|line| line.contains(" %"))
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let percent = words.iter().position(|w| *w == "%").expect(line);
            let number = |i: usize| words[i].parse::<f64>().expect(line);
            let threads = words[1..percent - 2].join(" ");
            (words[0].to_owned(), threads, number(percent - 2), number(percent - 1))
        })
        .collect()
}

#[test]
fn timings_say_where_the_time_went() {
    let dir = scratch();
    let text = std::fs::read(twic()).unwrap();
    let gz = dir.write("games.pgn.gz", gzip(&text));
    // Every fixture file (enough work for the clocks), and a stream.
    for (input, read) in [(games_dir(), false), (gz, true)] {
        let db = dir.join(format!("t{read}.db"));
        let stderr = import(&db, &["--timings", "--threads", "2", arg(&input)]).success().stderr;
        let stages = stage_lines(&stderr);
        let names: Vec<&str> = stages.iter().map(|s| s.0.as_str()).collect();
        // Each file's fingerprint is computed beside its import.
        let expect: &[&str] = if read {
            &["fingerprint", "read", "split", "replay", "write", "sort", "sync", "free", "players"]
        } else {
            &["fingerprint", "split", "replay", "write", "sort", "sync", "free", "players"]
        };
        // A checkpoint thread runs only for a shared import.
        assert_eq!(
            names.iter().filter(|n| **n != "checkpoint").collect::<Vec<_>>(),
            expect.iter().collect::<Vec<_>>(),
            "{stderr}"
        );
        let replay = stages.iter().find(|s| s.0 == "replay").unwrap();
        assert_eq!(replay.1, "pgnindex-worker-N ×2", "{stderr}");
        assert!(read || replay.2 > 0.0, "{stderr}");
        let shares: f64 = stages.iter().map(|s| s.3).sum();
        assert!((shares - 100.0).abs() < 1.0, "{shares}: {stderr}");
        assert!(stderr.contains("bound by: "), "{stderr}");
        // The gain more cores would allow, bounded by a serial stage.
        let gains = stderr.lines().find(|l| l.contains("at most, on more cores")).expect(&stderr);
        assert!(gains.contains("32: ") && gains.contains("serial: the "), "{gains}");
        let summary = stderr.lines().position(|l| l.contains(" games imported"));
        let report = stderr.lines().position(|l| l.starts_with("where the time went"));
        assert!(summary < report, "{stderr}");
    }
    // Parquet files are written on threads of their own, one per table.
    let lake = dir.join("lake");
    let out = run(["import", "--timings", "--threads", "2", "--parquet", arg(&lake), arg(&twic())]);
    let stderr = out.success().stderr;
    let parquet = stage_lines(&stderr).into_iter().find(|s| s.0 == "parquet");
    assert_eq!(parquet.map(|s| s.1), Some("pgnindex-parquet ×5".to_string()), "{stderr}");
    // Without the flag, not a word of it.
    let stderr = import(&dir.join("quiet.db"), &[arg(&twic())]).success().stderr;
    assert!(!stderr.contains("where the time went"), "{stderr}");
}

#[test]
fn compressed_files_and_stdin() {
    let dir = scratch();
    let text = std::fs::read(twic()).unwrap();
    let gz = dir.write("games.pgn.gz", gzip(&text));

    let db = dir.join("gz.db");
    let stderr = import(&db, &[arg(&gz)]).success().stderr;
    assert!(stderr.contains("232 games imported"), "{stderr}");

    let db = dir.join("stdin.db");
    let out =
        pgnindex().args(["import", "--db", arg(&db), "-"]).write_stdin(text).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("232 games imported"));
    let conn = open(&db);
    let source: Vec<String> =
        column(&conn, "SELECT path || ' ' || coalesce(fingerprint, 'none') FROM sources");
    assert_eq!(source, ["- none"]);
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 232);
}

#[test]
fn a_full_disk_stops_the_import_with_whole_games_kept() {
    let dir = scratch();
    let db = dir.join("full.db");
    let games = games_dir();
    let args = ["--batch-games", "200", "--max-db-pages", "120", arg(&games)];
    let run = import(&db, &args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr.trim(),
        format!("pgnindex: error: {}: database or disk is full", db.display())
    );
    assert_eq!(integrity(&db), "ok");
    let conn = open(&db);
    let stored = count(&conn, "SELECT count(*) FROM games");
    assert!(stored > 0 && stored < 1091, "{stored}");
    assert_eq!(
        count(&conn, "SELECT count(*) FROM positions"),
        count(&conn, "SELECT sum(ply_count + 1) FROM games"),
        "only whole games"
    );
    // With room again, the same command finishes the job.
    drop(conn);
    import(&db, &["--batch-games", "200", arg(&games)]).success();
    let conn = open(&db);
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 1091);
}

#[test]
fn tag_pairs_keep_their_order_and_text() {
    // Tags without a `games` column, with PGN escapes, non-ASCII text, a
    // control character and a repeated name, read back through the `tags`
    // view and `show`; a game without other tags has no `game_tags` row.
    let dir = scratch();
    let pgn = dir.write(
        "tags.pgn",
        "[Event \"E\"]\n[Annotator \"A \\\"B\\\" \\\\ C\"]\n[Remark \"Ünal\tÖz\"]\n\
         [Annotator \"second\"]\n[Link \"https://x/y?a=1&b=[2]\"]\n\n1. e4 e5 1/2-1/2\n\n\
         [Event \"F\"]\n[White \"W\"]\n\n1. d4 1-0\n",
    );
    let db = dir.join("t.db");
    import(&db, &[arg(&pgn)]).success();
    let conn = open(&db);
    let rows: Vec<(i64, i64, String, String)> =
        rows(&conn, "SELECT game_id, ord, name, value FROM tags");
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
    let out = run(["show", "1", "--format", "json", "--db", arg(&db)]);
    let game: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let shown: Vec<(String, String)> = serde_json::from_value(game["tags"].clone()).unwrap();
    for (_, _, name, value) in &expected {
        assert!(shown.contains(&(name.clone(), value.clone())), "{name} {value:?} in {shown:?}");
    }
}

/// The tag pairs of a database as one JSON text, in (game, order).
const TAGS_JSON: &str = "SELECT json_group_array(json_array(game_id, ord, name, value)) \
    FROM (SELECT * FROM tags ORDER BY game_id, ord)";

/// The clocks, times and evaluations of the `plies` view as one JSON text.
const PLIES_JSON: &str =
    "SELECT json_group_array(json_array(game_id, ply, clock, emt, eval, mate)) \
    FROM (SELECT * FROM plies ORDER BY game_id, ply)";

/// The one text `sql` selects in the database at `db`.
fn text(db: &Path, sql: &str) -> String {
    open(db).query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn a_schema_12_database_reads_the_same_tags_and_plies_once_upgraded() {
    // The fixture games as schema 12 stored them: its migrations applied to
    // an empty file, and a fresh import's rows, put back in schema 12's
    // forms (tag pairs as `[[name, value], …]`, clocks as JSON), copied in.
    let dir = scratch();
    let fresh = dir.join("fresh.db");
    let options = ["--quiet", "--keep-duplicates", "--no-positions"];
    let plies_dir = common::fixture("plies");
    import(&fresh, &[&options[..], &[arg(&games_dir()), arg(&plies_dir)]].concat()).success();
    let evals = "SELECT json_group_array(json_array(game_id, CAST(evals AS TEXT))) \
                 FROM (SELECT * FROM ply_data ORDER BY game_id)";
    let imported_evals = text(&fresh, evals);
    assert!(imported_evals.contains(",\"a"), "some evaluations packed: {imported_evals:.300}");
    // As a pgnindex of schema 17 stored them.
    common::notes_as_schema_17(&open(&fresh));
    let (tags, plies) = (text(&fresh, TAGS_JSON), text(&fresh, PLIES_JSON));
    let times =
        "SELECT json_group_array(json_array(game_id, CAST(clocks AS TEXT), CAST(emts AS TEXT))) \
                 FROM (SELECT * FROM ply_data ORDER BY game_id)";
    let packed_times = text(&fresh, times);
    let packed = |c: &str| format!("SELECT count(*) FROM ply_data WHERE {c} GLOB '[abc]*'");
    assert!(count(&open(&fresh), &packed("clocks")) > 100);
    assert!(count(&open(&fresh), &packed("emts")) > 0);
    common::tags_as_schema_12(&open(&fresh));
    common::times_as_schema_12(&open(&fresh));
    assert_eq!(count(&open(&fresh), "SELECT count(*) FROM ply_data WHERE clocks NOT LIKE '[%'"), 0);
    let db = dir.join("v12.db");
    let conn = open(&db);
    common::migrate_to(&conn, 12);
    conn.execute("ATTACH ?1 AS fresh", [arg(&fresh)]).unwrap();
    conn.execute_batch(
        "INSERT INTO sources SELECT * FROM fresh.sources;
         INSERT INTO games SELECT * FROM fresh.games;
         INSERT INTO ply_data SELECT * FROM fresh.ply_data;
         INSERT INTO game_tags SELECT * FROM fresh.game_tags;
         DETACH fresh;",
    )
    .unwrap();
    assert!(count(&conn, "SELECT count(*) FROM tags") > 2000);
    drop(conn);
    let before = text(&db, TAGS_JSON);
    assert_eq!(before, tags, "schema 12's view reads what schema 13's did");
    assert_eq!(text(&db, PLIES_JSON), plies);
    let exported = |db: &Path| run(["export", "--db", arg(db)]).success().stdout;
    let export_before = exported(&db);

    // The next import upgrades it; a new name and a known one.
    let pgn = dir.write(
        "new.pgn",
        "[Event \"N\"]\n[UTCDate \"2024.01.02\"]\n[NewTag \"1:2 \\\"x\\\"\"]\n\n1. e4 *\n",
    );
    import(&db, &[&options[..], &[arg(&pgn)]].concat()).success();
    let conn = open(&db);
    assert_eq!(count(&conn, "PRAGMA user_version"), pgnindex::db::SCHEMA_VERSION);
    let old = count(&conn, "SELECT max(id) FROM games") - 1;
    let after: String = conn
        .query_row(
            "SELECT json_group_array(json_array(game_id, ord, name, value)) \
             FROM (SELECT * FROM tags WHERE game_id <= ?1 ORDER BY game_id, ord)",
            [old],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(after, before);
    let old_plies = PLIES_JSON.replace("FROM plies", &format!("FROM plies WHERE game_id <= {old}"));
    assert_eq!(text(&db, &old_plies), plies);
    let old_times =
        times.replace("FROM ply_data", &format!("FROM ply_data WHERE game_id <= {old}"));
    assert_eq!(text(&db, &old_times), packed_times, "packed by the upgrade as by an import");
    let old_evals =
        evals.replace("FROM ply_data", &format!("FROM ply_data WHERE game_id <= {old}"));
    assert_eq!(text(&db, &old_evals), imported_evals, "evaluations packed as by an import");
    let new: Vec<(i64, String, String)> =
        rows(&conn, &format!("SELECT ord, name, value FROM tags WHERE game_id = {}", old + 1));
    let new_pairs = [(0, "UTCDate", "2024.01.02"), (1, "NewTag", "1:2 \"x\"")];
    let new_pairs: Vec<(i64, String, String)> =
        new_pairs.iter().map(|&(o, n, v)| (o, n.to_string(), v.to_string())).collect();
    assert_eq!(new, new_pairs);
    // Each name stored once; no pair left in the old form.
    assert_eq!(
        count(&conn, "SELECT count(*) FROM tag_names"),
        count(&conn, "SELECT count(DISTINCT name) FROM tags")
    );
    assert_eq!(count(&conn, "SELECT count(*) FROM game_tags WHERE pairs LIKE '[[%'"), 0);
    assert_eq!(integrity(&db), "ok");
    drop(conn);
    let export_after = exported(&db);
    assert!(export_after.len() > export_before.len());
    assert_eq!(export_after[..export_before.len()], export_before);
    // The plain sqlite3 shell reads the views as well.
    let shell = |sql: &str| {
        let out = std::process::Command::new("sqlite3").arg(&db).arg(sql).output().ok()?;
        Some(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
    };
    let Some(shell_tags) = shell(TAGS_JSON) else {
        eprintln!("no sqlite3 shell: read through rusqlite only");
        return;
    };
    assert!(shell_tags.starts_with(&before[..before.len() - 1]), "{shell_tags:.200}");
    // Games imported again: their clocks packed.
    import(&db, &[&options[..], &["--force", arg(&plies_dir)]].concat()).success();
    // Packed: a BLOB, which the shell's GLOB reads as text only once cast.
    let games = "SELECT game_id FROM ply_data \
                 WHERE CAST(clocks AS TEXT) GLOB '[abc]*' OR CAST(emts AS TEXT) GLOB '[abc]*'";
    let packed_plies =
        PLIES_JSON.replace("FROM plies", &format!("FROM plies WHERE game_id IN ({games})"));
    let from_shell = shell(&packed_plies);
    let read = text(&db, &packed_plies);
    assert!(read.len() > 10_000, "{}", read.len());
    assert_eq!(from_shell.as_deref(), Some(read.as_str()));
}

/// Rewrites the position segments of `db` as schema 10 wrote them: tables
/// `(hash, game_id, ply_move)`, no `layout` column, that version's view;
/// every game's movetext stored, without `ply_data.notes_form`; the tag
/// pairs, clocks and times as schema 12 stored them; no material index.
fn as_schema_10(db: &Path) {
    run([
        "sql",
        "--write",
        "--db",
        arg(db),
        "UPDATE games SET movetext = (SELECT m.movetext FROM movetexts m WHERE m.game_id = games.id) \
         WHERE movetext IS NULL",
    ])
    .success();
    let conn = open(db);
    assert_eq!(count(&conn, "SELECT count(*) FROM games WHERE movetext IS NULL"), 0);
    common::games_as_schema_15(&conn);
    let names: Vec<String> = column(&conn, "SELECT name FROM position_segments ORDER BY id");
    conn.execute_batch("DROP VIEW positions").unwrap();
    let mut arms = Vec::new();
    for name in &names {
        conn.execute_batch(&format!(
            "CREATE TABLE split (hash INTEGER NOT NULL, game_id INTEGER NOT NULL, \
             ply_move INTEGER NOT NULL, PRIMARY KEY (hash, game_id, ply_move)) WITHOUT ROWID; \
             INSERT INTO split SELECT hash, gpm >> 24 & 4294967295, \
             ((gpm >> 15 & 511) | (gpm >> 56 << 9)) << 15 | (gpm & 32767) FROM {name}; \
             DROP TABLE {name}; ALTER TABLE split RENAME TO {name};"
        ))
        .unwrap();
        arms.push(format!(
            "SELECT hash, game_id, ply_move >> 15, nullif(ply_move & 32767, 32767), NULL \
             FROM {name} WHERE game_id NOT IN (SELECT game_id FROM deleted_games)"
        ));
    }
    common::tags_as_schema_12(&conn);
    common::times_as_schema_12(&conn);
    conn.execute_batch(&format!(
        "CREATE VIEW positions (hash, game_id, ply, next_move, fen) AS {}; \
         ALTER TABLE position_segments DROP COLUMN layout; \
         ALTER TABLE ply_data DROP COLUMN notes_form; DROP TRIGGER explorer_tree_delete; \
         DROP TABLE explorer_tree; DROP TABLE explorer_tree_state; DROP TABLE explorer_late; \
         DROP TABLE explorer_deep; \
         DROP TRIGGER games_delete_material; DROP TABLE game_material; DROP TABLE material_backlog; \
         PRAGMA user_version = 10;",
        arms.join(" UNION ALL ")
    ))
    .unwrap();
}

/// What the query commands answer about the positions of `db`.
fn position_answers(db: &Path) -> Vec<String> {
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let queries: [&[&str]; 7] = [
        &["sql", "SELECT * FROM positions ORDER BY hash, game_id, ply", "--format", "csv"],
        &["find", "--fen", fen, "--format", "csv"],
        &["find", "--moves", "1. d4 d5 2. c4", "--min-elo", "1500", "--format", "csv"],
        &["find", "--moves", "1. e4 c5", "--count"],
        &["explore", "--format", "csv"],
        &["explore", "--moves", "1. e4 e5", "--result", "1-0", "--format", "csv"],
        &["find", "--fen", "8/8/8/8/8/8/8/K1k5 w - - 0 1", "--count"],
    ];
    let answers: Vec<String> = queries
        .iter()
        .map(|args| run(args.iter().chain(&["--db", arg(db)])).success().stdout)
        .collect();
    for (args, answer) in queries.iter().zip(&answers).take(6) {
        assert!(answer.lines().count() > 1 || answer.trim() != "0", "{args:?}: {answer}");
    }
    answers
}

/// The games of `input` written to 16 files in `dir`, in order.
fn in_16_parts(dir: &Path, input: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(input).unwrap();
    let games: Vec<&str> = text.split("\n[Event ").collect();
    let mut inputs = Vec::new();
    for (i, chunk) in games.chunks(games.len().div_ceil(16)).enumerate() {
        let path = dir.join(format!("part-{i:02}.pgn"));
        let body: Vec<String> = chunk
            .iter()
            .map(|g| if g.starts_with("[Event ") { g.to_string() } else { format!("[Event {g}") })
            .collect();
        std::fs::write(&path, body.join("\n")).unwrap();
        inputs.push(path);
    }
    assert_eq!(inputs.len(), 16);
    inputs
}

#[test]
fn a_schema_10_database_reads_alike_and_takes_new_segments_and_merges() {
    let dir = scratch();
    let (old, fresh) = (dir.join("old.db"), dir.join("fresh.db"));
    // 16 inputs after the first: a merge of their level takes the first
    // 16 segments, the old one among them.
    let inputs =
        in_16_parts(dir.path(), &games_dir().join("chesscom/schmitz874-chesscom-live.pgn"));

    for db in [&old, &fresh] {
        import(db, &["--quiet", arg(&twic())]).success();
    }
    let expected = position_answers(&fresh);
    as_schema_10(&old);
    assert_eq!(position_answers(&old), expected, "read as schema 10 wrote it");

    let layouts = |db: &Path| column::<i64>(&open(db), "SELECT layout FROM position_segments");
    import(&old, &["--quiet", arg(&inputs[0])]).success();
    import(&fresh, &["--quiet", arg(&inputs[0])]).success();
    assert_eq!(layouts(&old), [0, 1], "the old segment stays, the new one is packed");
    // A segment's level is its size class, and segments merge within a
    // level: the old segment is put in the inputs' level, so that their
    // merge takes it.
    let levels =
        |db: &Path| column::<i64>(&open(db), "SELECT level FROM position_segments ORDER BY id");
    let small = levels(&old)[1];
    assert!(
        small < levels(&old)[0],
        "an input is smaller than the first import: {:?}",
        levels(&old)
    );
    open(&old).execute("UPDATE position_segments SET level = ?1", [small]).unwrap();
    let expected = position_answers(&fresh);
    assert_eq!(position_answers(&old), expected, "old and new segments together");

    let rest: Vec<&str> = inputs[1..].iter().map(|p| arg(p)).collect();
    for db in [&old, &fresh] {
        import(db, &[&["--quiet"], &rest[..]].concat()).success();
    }
    assert_eq!(layouts(&old), [1, 1], "merged, and the last input's segment");
    assert_eq!(position_answers(&old), position_answers(&fresh), "after the merge");
    assert_eq!(integrity(&old), "ok");
}

/// Segments merged by an import that holds the database alone (in a
/// rollback journal) and by one that shares it (in the write-ahead log)
/// store the positions one import of the whole stores, in sound files.
#[test]
fn segments_merged_alone_or_shared_store_the_same_positions() {
    let dir = scratch();
    let input = games_dir().join("chesscom/schmitz874-chesscom-live.pgn");
    let inputs = in_16_parts(dir.path(), &input);
    let whole = dir.join("whole.db");
    import(&whole, &["--quiet", arg(&input)]).success();
    let expected = position_answers(&whole);
    let segments = |db: &Path| count(&open(db), "SELECT count(*) FROM position_segments");
    let rest: Vec<&str> = inputs[1..].iter().map(|p| arg(p)).collect();
    for (name, mode) in [("alone.db", "--exclusive"), ("shared.db", "--shared")] {
        let db = dir.join(name);
        import(&db, &["--quiet", arg(&inputs[0])]).success();
        import(&db, &[&["--quiet", mode], &rest[..]].concat()).success();
        assert_eq!(segments(&db), 1, "{name}: the 16 inputs' segments merged");
        assert_eq!(position_answers(&db), expected, "{name}");
        assert_eq!(integrity(&db), "ok", "{name}");
    }
}

/// The raw per-game tables and dictionaries, ids as stored.
fn raw_game_tables(conn: &Connection) -> Vec<String> {
    ["game_rows", "game_tags", "ply_data", "ply_pvs", "game_material", "game_texts", "tag_names"]
        .iter()
        .flat_map(|table| text_rows(conn, &format!("SELECT * FROM {table} ORDER BY 1")))
        .collect()
}

/// The workers encode a game's records with the ids the dictionaries
/// have committed, and leave the others to the writer: however batches
/// and threads cut the work, every id and every byte stored is the same.
#[test]
fn records_encoded_on_the_workers_store_the_same_ids_for_any_batches_and_threads() {
    let dir = scratch();
    let games = games_dir();
    let mut first: Option<Vec<String>> = None;
    for (i, args) in [
        ["--threads", "1", "--batch-games", "100000"],
        ["--threads", "3", "--batch-games", "40"],
        ["--threads", "2", "--batch-games", "7"],
    ]
    .iter()
    .enumerate()
    {
        let db = dir.join(format!("{i}.db"));
        let mut all = args.to_vec();
        all.push(arg(&games));
        import(&db, &all).success();
        let conn = open(&db);
        let tables = raw_game_tables(&conn);
        assert!(tables.len() > 4_000, "{}", tables.len());
        match &first {
            None => first = Some(tables),
            Some(first) => assert_eq!(&tables, first, "{args:?}"),
        }
    }
}

/// Rows too long for a page of a batch's image — a 70 KB site and round,
/// a 20 KB date (in the index `games_summary`), a 100 KB comment — are
/// inserted whole beside the rows that fit, and a duplicate of such a game
/// is found within its batch and in the next.
#[test]
fn rows_too_long_for_a_batch_image_are_stored_whole() {
    let dir = scratch();
    let (site, round, comment) = ("s".repeat(70_000), "r".repeat(70_000), "c".repeat(100_000));
    let date = format!("2024.01.01 {}", "d".repeat(20_000));
    let long = format!(
        "[Event \"Long\"]\n[Site \"{site}\"]\n[Date \"{date}\"]\n[Round \"{round}\"]\n\
         [White \"Anand\"]\n[Black \"Kramnik\"]\n[Result \"1-0\"]\n\n1. e4 {{{comment}}} e5 2. Nf3 1-0\n\n"
    );
    let short =
        "[Event \"Short\"]\n[White \"Carlsen\"]\n[Black \"Nakamura\"]\n[Result \"0-1\"]\n\n\
                 1. d4 d5 0-1\n\n";
    // Two games a batch: the second of each pair is a duplicate found in
    // its batch, the last one in the database.
    let input = dir.write("long.pgn", format!("{long}{long}{short}{short}{long}"));
    let db = dir.join("t.db");
    import(&db, &["--batch-games", "2", arg(&input)]).success();
    let conn = open(&db);
    let stored: Vec<(String, i64, i64, i64)> = rows(
        &conn,
        "SELECT event, coalesce(length(site), 0), coalesce(length(round), 0), \
         coalesce(length(date), 0) FROM games ORDER BY id",
    );
    assert_eq!(
        stored,
        [("Long".to_string(), 70_000, 70_000, date.len() as i64), ("Short".to_string(), 0, 0, 0)]
    );
    assert_eq!(count(&conn, "SELECT duplicates FROM sources"), 3);
    assert_eq!(count(&conn, "SELECT length(comments) > 100000 FROM ply_data"), 1);
    assert_eq!(integrity(&db), "ok");
    // The summary index finds the long game by its date.
    let by_date = count(
        &conn,
        &format!("SELECT count(*) FROM game_rows INDEXED BY games_summary WHERE id > 0 AND date = '{date}'"),
    );
    assert_eq!(by_date, 1);
    let exported = run(["export", "--db", arg(&db), "--event", "Long"]).success().stdout;
    assert!(exported.contains(&comment) && exported.contains(&round), "{}", exported.len());
}

/// A row that only SQL can store (its `games_summary` row too long for an
/// index page) in a batch whose other rows continue the tables' last
/// leaves, before and after rows of the same batch.
#[test]
fn a_row_stored_by_sql_beside_rows_appended_as_pages() {
    let dir = scratch();
    let game = |event: &str, date: &str| {
        format!(
            "[Event \"{event}\"]\n[Date \"{date}\"]\n[White \"A\"]\n[Black \"B\"]\n\
             [Result \"1-0\"]\n\n1. e4 {{{event}}} e5 1-0\n\n"
        )
    };
    let long_date = format!("2024.01.01 {}", "d".repeat(9_000));
    let mut first = String::new();
    for i in 0..3_000 {
        first.push_str(&game(&format!("First {i}"), "2024.01.01"));
    }
    let db = dir.join("t.db");
    import(&db, &[arg(&dir.write("first.pgn", first))]).success();
    // In one batch: a row pushed, the long one, a row pushed; then a
    // batch that starts with the long one.
    let second = [
        game("Before", "2024.02.02"),
        game("Long 1", &long_date),
        game("After", "2024.03.03"),
        game("Long 2", &format!("{long_date}x")),
        game("Last", "2024.04.04"),
    ]
    .concat();
    import(&db, &["--batch-games", "3", arg(&dir.write("second.pgn", second))]).success();
    assert_eq!(integrity(&db), "ok");
    let conn = open(&db);
    let events: Vec<String> = column(&conn, "SELECT event FROM games WHERE id > 3000 ORDER BY id");
    assert_eq!(events, ["Before", "Long 1", "After", "Long 2", "Last"]);
    let indexed =
        count(&conn, "SELECT count(*) FROM game_rows INDEXED BY games_summary WHERE id > 0");
    assert_eq!(indexed, 3_005);
    let by_date = count(
        &conn,
        &format!(
            "SELECT count(*) FROM game_rows INDEXED BY games_summary \
             WHERE id > 0 AND date IN ('{long_date}', '{long_date}x')"
        ),
    );
    assert_eq!(by_date, 2);
    assert_eq!(count(&conn, "SELECT count(*) FROM ply_data WHERE comments LIKE '%Long%'"), 2);
}

/// `n` distinct games, `tag` in each White name.
fn distinct_games(tag: &str, n: usize) -> String {
    (0..n).map(|i| format!("[White \"{tag} {i}\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n")).collect()
}

/// The dedupe filter one import keeps is what the next one asks first:
/// every game it stored is found again, kept or built anew.
#[test]
fn the_dedupe_filter_kept_by_an_import_finds_its_games_in_the_next() {
    let dir = scratch();
    let db = dir.join("d.db");
    // Two files: the second one's games are looked up after a commit.
    let (one, two) = (distinct_games("first", 150), distinct_games("also first", 150));
    let first = format!("{one}{two}");
    let (a1, a2) = (dir.write("a1.pgn", &one), dir.write("a2.pgn", &two));
    import(&db, &["--no-positions", arg(&a1), arg(&a2)]).success();
    let conn = open(&db);
    assert_eq!(count(&conn, "SELECT count(*) FROM dedupe_filter WHERE length(words) >= 64"), 1);
    assert_eq!(count(&conn, "SELECT count(*) FROM dedupe_segments WHERE in_filter = 0"), 0);
    // A new file first: the next one's games are looked up after a commit,
    // in the kept filter.
    let b0 = dir.write("b0.pgn", distinct_games("second", 100));
    import(&db, &["--no-positions", arg(&b0), arg(&dir.write("b1.pgn", &first))]).success();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 400);
    assert_eq!(count(&conn, "SELECT duplicates FROM sources ORDER BY id DESC LIMIT 1"), 300);
    // A filter that reads as none is built again from the segments.
    conn.execute_batch("UPDATE dedupe_filter SET words = x'00'").unwrap();
    let c0 = dir.write("c0.pgn", distinct_games("third", 10));
    let again = format!("{}{first}", distinct_games("second", 100));
    import(&db, &["--no-positions", arg(&c0), arg(&dir.write("c1.pgn", again))]).success();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 410);
    assert_eq!(count(&conn, "SELECT duplicates FROM sources ORDER BY id DESC LIMIT 1"), 400);
    assert_eq!(count(&conn, "SELECT count(*) FROM dedupe_filter WHERE length(words) >= 64"), 1);
    assert_eq!(integrity(&db), "ok");
}

#[test]
fn an_import_that_fills_a_level_of_dedupe_segments_leaves_no_free_pages() {
    let dir = scratch();
    let db = dir.join("d.db");
    let fanout = pgnindex::store::dedupe::FANOUT;
    // A segment for each file: the import ends with a full level.
    let files: Vec<PathBuf> = (0..fanout)
        .map(|i| dir.write(format!("{i}.pgn"), distinct_games(&format!("file {i}"), 10)))
        .collect();
    let mut args: Vec<&str> = files.iter().map(|f| arg(f)).collect();
    args.push("--no-positions");
    import(&db, &args).success();
    let conn = open(&db);
    let levels = "SELECT level, count(*) FROM dedupe_segments GROUP BY level ORDER BY level";
    let full = rows::<(i64, i64)>(&conn, levels);
    let level = full[0].0;
    assert_eq!(full, [(level, fanout as i64)]);
    assert_eq!(count(&conn, "PRAGMA freelist_count"), 0);
    // The next import merges the full level before it stores its games.
    let more = dir.write("more.pgn", distinct_games("more", 10));
    import(&db, &[arg(&more), "--no-positions"]).success();
    assert_eq!(rows::<(i64, i64)>(&conn, levels), [(level, 1), (level + 1, 1)]);
    // Every game is still found by its key: an import of them all again
    // adds none.
    args.push(arg(&more));
    args.push("--force");
    import(&db, &args).success();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 10 * fanout as i64 + 10);
}
