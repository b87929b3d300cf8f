//! Games stored without their movetext (`games.movetext` NULL) when
//! pgnindex writes it back from the moves, the notes and the result: the
//! export of a database reads, for python-chess, as the imported files do
//! (`fixtures/compact/compare.py`: tags, moves and variations, comments,
//! NAGs, clocks, times and evaluations); the games that cannot be written
//! back keep their movetext; `pgnindex sql` reads every movetext through
//! the `movetexts` view; a database of schema 10 is read, then upgraded by
//! the next import.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{arg, column, count, fixture, import, open, python_with, run, scratch, Python};
use similar_asserts::assert_eq;

/// Imports `file` into `db` (duplicates kept, so that the games pair up),
/// exports it, and compares the two with python-chess when `python` has
/// it: the comparison's summary line.
fn export_reads_as_imported(
    python: Option<&Python>,
    dir: &Path,
    db: &Path,
    file: &Path,
) -> Option<String> {
    import(db, &["--quiet", "--keep-duplicates", arg(file)]).success();
    let out = dir.join("out.pgn");
    run(["export", "--db", arg(db), "-o", arg(&out)]).success();
    // The export imported and exported again: the same bytes.
    let again = dir.join("again.db");
    let _ = std::fs::remove_file(&again);
    import(&again, &["--quiet", "--keep-duplicates", arg(&out)]).success();
    let exported = run(["export", "--db", arg(&again)]).success().stdout;
    assert!(
        exported == std::fs::read_to_string(&out).unwrap(),
        "{}: exported again",
        file.display()
    );
    let compare = python?
        .command()
        .arg(fixture("compact/compare.py"))
        .arg(file)
        .arg(&out)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&compare.stdout).into_owned();
    assert!(
        compare.status.success(),
        "{}: {stdout}{}",
        file.display(),
        String::from_utf8_lossy(&compare.stderr)
    );
    Some(stdout)
}

/// `(games, games stored without their movetext)` of `db`.
fn compacted(db: &Path) -> (i64, i64) {
    let conn = open(db);
    (
        count(&conn, "SELECT count(*) FROM games"),
        count(&conn, "SELECT count(*) FROM games WHERE movetext IS NULL"),
    )
}

#[test]
fn fixtures_export_as_python_chess_reads_them() {
    let Some(python) = python_with("chess") else { return };
    let dir = scratch();
    for (i, name) in
        ["plies/lichess.pgn", "plies/chesscom.pgn", "plies/engine.pgn", "compact/forms.pgn"]
            .into_iter()
            .enumerate()
    {
        let db = dir.join(format!("{i}.db"));
        let summary = export_reads_as_imported(Some(&python), dir.path(), &db, &fixture(name))
            .expect("compared");
        let (games, without) = compacted(&db);
        assert!(summary.starts_with(&format!("games {games} ")), "{name}: {summary}");
        // The online games write back; the engine-match forms with a
        // depth, and the odd ones, do not.
        match name {
            "plies/lichess.pgn" | "plies/chesscom.pgn" => assert_eq!(without, games, "{name}"),
            "plies/engine.pgn" => assert!(without > 0 && without < games, "{name}"),
            _ => {}
        }
    }
}

#[test]
fn each_form_is_written_back_or_kept() {
    let dir = scratch();
    let db = dir.join("forms.db");
    let python = python_with("chess");
    export_reads_as_imported(python.as_ref(), dir.path(), &db, &fixture("compact/forms.pgn"));
    // Keyed comments with no depth, score or line are not in the form
    // the writer gives.
    let out = std::fs::read_to_string(dir.path().join("out.pgn")).unwrap();
    assert!(
        out.contains("1. e4 { n=3 } 1... e5 { n=4, tb=0 } 2. Nf3 { d=12, n=4000, wv=0.20 } *"),
        "{out}"
    );
    let conn = open(&db);
    // `kept`: the movetext stored whole; `by move`: written back, with
    // some moves' text kept as written; `compact`: written back whole.
    let kept: Vec<(String, bool, bool)> = common::rows(
        &conn,
        "SELECT g.event, g.movetext IS NOT NULL, d.tails IS NOT NULL FROM games AS g \
         LEFT JOIN ply_data AS d ON d.game_id = g.id ORDER BY g.id",
    );
    assert_eq!(kept.len(), 19);
    for (event, has_movetext, has_tails) in kept {
        assert_eq!(has_movetext, event.starts_with("kept"), "{event}");
        assert_eq!(has_tails, event.starts_with("by move"), "{event}");
    }
    // The forms recorded: commands (NULL), the score alone, cutechess,
    // Arena, TCEC's keyed comments with their layout.
    let forms: Vec<(String, Option<i64>, Option<String>)> = common::rows(
        &conn,
        "SELECT g.event, d.notes_form, d.notes_layout FROM games g \
         JOIN ply_data d ON d.game_id = g.id WHERE g.event LIKE 'compact:%' ORDER BY g.id",
    );
    let form = |event: &str, code: Option<i64>, layout: Option<&str>| {
        (format!("compact: {event}"), code, layout.map(str::to_string))
    };
    assert_eq!(
        forms,
        [
            form("clocks", None, None),
            form("lichess evaluations", None, None),
            form("engine scores", Some(1), None),
            form("from a position", None, None),
            form("cutechess", Some(2), None),
            form("arena", Some(3), None),
            form("tcec season 10", Some(4), Some("d,pd,mt:,tl:,s,n,pv,tb,R50,wv,")),
            form("tcec", Some(4), Some("d,sd,mt,tl,s,n,pv,tb,h,ph,wv,R50,")),
            // A score a line break cut, written back whole.
            form("wrapped number", Some(3), None),
        ]
    );
}

#[test]
fn sql_reads_every_movetext_and_the_sqlite3_shell_the_moves() {
    let dir = scratch();
    let db = dir.join("forms.db");
    import(&db, &["--quiet", arg(&fixture("compact/forms.pgn"))]).success();
    // The view's text is the one `show` gives.
    for id in 1..=5 {
        let out = run([
            "sql",
            "--db",
            arg(&db),
            "--format",
            "csv",
            &format!("SELECT movetext FROM movetexts WHERE game_id = {id}"),
        ])
        .success();
        let viewed = out.stdout.lines().skip(1).collect::<Vec<_>>().join("\n");
        let shown = run(["show", "--db", arg(&db), "--format", "json", &id.to_string()]).success();
        let json: serde_json::Value = serde_json::from_str(&shown.stdout).unwrap();
        let movetext = json["movetext"].as_str().unwrap();
        assert!(!movetext.is_empty());
        let csv_quoted = format!("\"{}\"", movetext.replace('"', "\"\""));
        assert!(viewed == movetext || viewed == csv_quoted, "{id}: {viewed} != {movetext}");
    }
    let out = run(["sql", "--db", arg(&db), "SELECT movetext FROM movetexts WHERE game_id = 4"]);
    assert!(out.success().stdout.contains("30... Kd7 { [%clk 0:01:00] } 31. Kd2 $1 Ke6 *"));
    let out = run(["sql", "--db", arg(&db), "--format", "csv",
        "SELECT written_movetext('e4 e5', '1-0', NULL, '[180]', NULL, '[null,-120]', '{\"2\":\"$2\"}', NULL, NULL)"]);
    assert_eq!(
        out.success().stdout.lines().nth(1),
        Some("1. e4 { [%clk 0:03:00] } 1... e5 $2 { [%eval -1.2] } 1-0")
    );
    let out = run([
        "sql",
        "--db",
        arg(&db),
        "SELECT written_movetext('e4', '*', NULL, '[x]', NULL, NULL, NULL, NULL, NULL)",
    ]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("clocks is not as pgnindex writes it"), "{}", out.stderr);
    // Plain SQLite reads the moves and notes of a game stored without
    // its movetext.
    let Ok(out) = Command::new("sqlite3")
        .arg(&db)
        .arg("SELECT g.moves, p.clock FROM games g JOIN plies p ON p.game_id = g.id WHERE g.id = 1 AND p.ply = 2")
        .output()
    else {
        eprintln!("no sqlite3 shell: read through rusqlite only");
        return;
    };
    assert_eq!(String::from_utf8_lossy(&out.stdout), "e4 e5 Nf3 Nc6 Bb5|178.6\n");
}

/// A database of schema 10 holding one game.
fn schema_10(db: &Path) {
    let conn = open(db);
    for (i, name) in [
        "0001_init.sql",
        "0002_query_indexes.sql",
        "0003_game_tags.sql",
        "0004_dedupe_segments.sql",
        "0005_deleted_games.sql",
        "0006_source_indexing.sql",
        "0007_game_analysis_columns.sql",
        "0008_players_view.sql",
        "0009_game_openings.sql",
        "0010_ply_data.sql",
    ]
    .into_iter()
    .enumerate()
    {
        let sql = std::fs::read_to_string(common::repo("migrations").join(name)).unwrap();
        conn.execute_batch(&sql).unwrap();
        conn.pragma_update(None, "user_version", i as i64 + 1).unwrap();
    }
    conn.execute_batch(
        "INSERT INTO games (id, event, result, ply_count, final_fen, moves, movetext, dedupe_key) \
         VALUES (1, 'old', '*', 2, \
                 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2', \
                 'e4 e5', '1. e4 {[%clk 0:03:00]} e5 *', 1)",
    )
    .unwrap();
}

#[test]
fn a_schema_10_database_is_read_then_upgraded() {
    let dir = scratch();
    let db: PathBuf = dir.join("v10.db");
    schema_10(&db);
    let old = "1. e4 {[%clk 0:03:00]} e5 *";
    let out = run(["sql", "--db", arg(&db), "--format", "csv", "SELECT movetext FROM movetexts"]);
    assert_eq!(out.success().stdout.lines().nth(1), Some(old));
    // Exported re-flowed, the comment as export writes it.
    let exported = run(["export", "--db", arg(&db)]).success().stdout;
    assert!(exported.contains("1. e4 { [%clk 0:03:00] } e5 *"), "{exported}");
    import(&db, &["--quiet", arg(&fixture("compact/forms.pgn"))]).success();
    let conn = open(&db);
    assert_eq!(count(&conn, "PRAGMA user_version"), pgnindex::db::SCHEMA_VERSION);
    assert_eq!(
        column::<Option<String>>(&conn, "SELECT movetext FROM games WHERE id = 1"),
        [Some(old.to_string())]
    );
    assert_eq!(count(&conn, "SELECT count(*) FROM games WHERE movetext IS NULL"), 17);
    assert_eq!(common::integrity(&db), "ok");
    let python = python_with("chess");
    let again = dir.join("again.db");
    let forms = fixture("compact/forms.pgn");
    if let Some(summary) = export_reads_as_imported(python.as_ref(), dir.path(), &again, &forms) {
        assert!(summary.starts_with("games 19 "), "{summary}");
    }
}

#[test]
#[ignore = "the whole shared corpus, with python-chess: minutes"]
fn every_corpus_file_exports_as_python_chess_reads_it() {
    let Some(corpus) = common::corpus_games() else { return };
    let Some(python) = python_with("chess") else { return };
    let files = common::files_under(&corpus, |p| {
        p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"))
    });
    assert!(!files.is_empty());
    let dir = scratch();
    let (mut games, mut without) = (0, 0);
    for (i, file) in files.iter().enumerate() {
        let db = dir.join(format!("{i}.db"));
        let summary =
            export_reads_as_imported(Some(&python), dir.path(), &db, file).expect("compared");
        let (g, w) = compacted(&db);
        eprintln!("{}: {w} of {g} games without movetext; {}", file.display(), summary.trim());
        games += g;
        without += w;
    }
    eprintln!("{} files, {without} of {games} games stored without their movetext", files.len());
    // A movetext is kept whole only where its content cannot be written
    // back: at most 1 % of the games.
    assert!(100 * (games - without) <= games, "{} of {games} kept whole", games - without);
}
