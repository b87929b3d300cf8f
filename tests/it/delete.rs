//! Deleting games: a database where games were deleted answers every
//! query as a database imported without them, before and after `pgnindex
//! vacuum`, and later imports neither trip over the deleted games nor
//! give their ids to new ones.

use crate::common;

use std::path::Path;

use common::{arg, games_dir, import, open, run, scratch};
use similar_asserts::assert_eq;

/// Positions the comparisons look up: the start, common openings, and a
/// position reached only by longer games.
const POSITIONS: [&[&str]; 5] = [
    &[],
    &["--moves", "1. e4"],
    &["--moves", "1. e4 c5"],
    &["--moves", "1. d4"],
    &["--moves", "1. e4 e5 2. Nf3 Nc6"],
];

/// `pgnindex ARGS --db DB`, which must succeed: its stdout.
fn query(db: &Path, args: &[&str]) -> String {
    let out = run(args.iter().copied().chain(["--db", arg(db)]));
    assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    assert_eq!(out.stderr, "", "{args:?}");
    out.stdout
}

/// A `find` CSV listing without its id column (ids differ between the
/// databases compared; the order is the same).
fn without_ids(csv: &str) -> Vec<String> {
    csv.lines().map(|l| l.split_once(',').unwrap().1.to_string()).collect()
}

/// The games and positions `info` reports.
fn info_figures(db: &Path) -> (u64, u64) {
    let info: serde_json::Value =
        serde_json::from_str(&query(db, &["info", "--format", "json"])).unwrap();
    (info["games"].as_u64().unwrap(), info["positions"].as_u64().unwrap())
}

/// Every query of `db` equals the same query of `expected`.
fn assert_same_answers(db: &Path, expected: &Path) {
    for position in POSITIONS {
        // `COMMAND POSITION ARGS…`
        let ask = |db: &Path, command: &str, args: &[&str]| {
            query(db, &[&[command], position, args].concat())
        };
        let both =
            |command: &str, args: &[&str]| (ask(db, command, args), ask(expected, command, args));
        if !position.is_empty() {
            for filters in [&[][..], &["--result", "1-0"][..]] {
                let (got, want) = both("find", &[&["--count"][..], filters].concat());
                assert_eq!(got, want, "find --count {position:?} {filters:?}");
            }
        }
        let (got, want) = both("find", &["--limit", "0", "--format", "csv"]);
        assert_eq!(without_ids(&got), without_ids(&want), "find {position:?}");
        for filters in [&[][..], &["--min-elo", "1500"][..]] {
            let (got, want) = both("explore", &[&["--format", "csv"][..], filters].concat());
            assert_eq!(got, want, "explore {position:?} {filters:?}");
        }
        let (got, want) = both("export", &[]);
        assert_eq!(got, want, "export {position:?}");
    }
    assert_eq!(info_figures(db), info_figures(expected));
}

#[test]
fn deleted_games_are_gone_from_every_answer_before_and_after_vacuum() {
    let dir = scratch();
    let db = dir.join("all.db");
    import(&db, &["--quiet", arg(&games_dir())]).success();
    // The same games less the short ones, through an import of their
    // export from an untouched database.
    let kept = dir.join("kept.pgn");
    let out = run(["export", "--db", arg(&db), "--min-plies", "10", "-o", arg(&kept)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let expected = dir.join("kept.db");
    import(&expected, &["--quiet", arg(&kept)]).success();

    let out = run(["sql", "--write", "--db", arg(&db), "DELETE FROM games WHERE ply_count < 10"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, "pgnindex: 27 rows changed\n"));
    let conn = open(&db);
    assert_eq!(
        common::count(
            &conn,
            "SELECT count(*) FROM game_tags WHERE game_id NOT IN (SELECT id FROM games)"
        ),
        0
    );
    // The guide's fast count of the index agrees with the view's.
    let count = |sql: &str| common::count(&conn, sql);
    assert_eq!(
        count("SELECT sum(positions) FROM sources"),
        count("SELECT count(*) FROM positions")
    );
    assert!(count("SELECT count(*) FROM deleted_games") > 0);
    drop(conn);
    assert_same_answers(&db, &expected);

    let before = std::fs::metadata(&db).unwrap().len();
    let out = run(["vacuum", "--db", arg(&db)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_same_answers(&db, &expected);
    assert!(std::fs::metadata(&db).unwrap().len() <= before, "vacuum grew the file");
    assert_eq!(common::integrity(&db), "ok");
    // The index holds exactly the kept games' rows now.
    let rows = |db: &Path| {
        let conn = open(db);
        let segments = "SELECT sum(rows) FROM position_segments";
        (common::count(&conn, segments), common::count(&conn, "SELECT count(*) FROM positions"))
    };
    assert_eq!(rows(&db), rows(&expected));
}

#[test]
fn an_import_after_a_delete_stores_the_deleted_games_again_under_new_ids() {
    let dir = scratch();
    let db = dir.join("t.db");
    let pgn = dir.write(
        "a.pgn",
        "[White \"A\"]\n\n1. e4 e5 2. Nf3 *\n\n[White \"B\"]\n\n1. d4 d5 2. c4 *\n",
    );
    import(&db, &["--quiet", arg(&pgn)]).success();
    let delete = "DELETE FROM games WHERE white = 'B'";
    assert_eq!(run(["sql", "--write", "--db", arg(&db), delete]).code, 0);
    let qgd = ["find", "--moves", "1. d4 d5 2. c4", "--count", "--db", arg(&db)];
    assert_eq!(run(qgd).stdout, "0\n");

    // Another game gets a new id, not the deleted one's: the deleted game's
    // index rows must not become its rows.
    let other = dir.write("b.pgn", "[White \"C\"]\n\n1. c4 *\n");
    import(&db, &["--quiet", arg(&other)]).success();
    let conn = open(&db);
    assert_eq!(common::column::<i64>(&conn, "SELECT id FROM games ORDER BY id"), [1, 3]);
    drop(conn);
    assert_eq!(run(qgd).stdout, "0\n");

    // Importing the file again: the deleted game is stored again, the
    // other one is a duplicate.
    import(&db, &["--quiet", "--force", arg(&pgn)]).success();
    assert_eq!(run(qgd).stdout, "1\n");
    let found = run(["find", "--moves", "1. d4", "--format", "csv", "--db", arg(&db)]);
    assert_eq!(
        found.stdout.lines().nth(1).unwrap().split(',').take(2).collect::<Vec<_>>(),
        ["4", "B"]
    );
    let (games, _) = info_figures(&db);
    assert_eq!(games, 3);

    // Deleted last, and vacuumed: still no new game gets its id, which its
    // `import_errors` row names.
    let bad = dir.write("bad.pgn", "[White \"D\"]\n\n1. e4 e5 2. Ke3 *\n");
    import(&db, &["--quiet", arg(&bad)]).success();
    let conn = open(&db);
    assert_eq!(common::count(&conn, "SELECT game_id FROM import_errors"), 5);
    drop(conn);
    let delete = "DELETE FROM games WHERE white = 'D'";
    assert_eq!(run(["sql", "--write", "--db", arg(&db), delete]).code, 0);
    assert_eq!(run(["vacuum", "--db", arg(&db)]).code, 0);
    import(&db, &["--quiet", arg(&dir.write("e.pgn", "[White \"E\"]\n\n1. b3 *\n"))]).success();
    let conn = open(&db);
    assert_eq!(common::column::<i64>(&conn, "SELECT id FROM games ORDER BY id"), [1, 3, 4, 6]);
}

#[test]
fn delete_removes_the_games_find_lists_and_refuses_to_delete_everything() {
    let dir = scratch();
    let db = dir.join("t.db");
    import(&db, &["--quiet", arg(&games_dir())]).success();
    let count = |args: &[&str]| query(&db, &[&["find", "--count"][..], args].concat());
    let sicilian = ["--moves", "1. e4 c5"];
    let (all, sicilians) = (count(&[]), count(&sicilian));

    let out = run(["delete", "--db", arg(&db)]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr,
        "pgnindex: error: delete needs a position or a filter (to delete every game, remove \
         the database file)\n"
    );
    assert_eq!(count(&[]), all, "nothing deleted");

    let out = run([&["delete", "--db", arg(&db)][..], &sicilian].concat());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.ends_with(&format!(": {} games deleted\n", sicilians.trim())),
        "{}",
        out.stderr
    );
    assert_eq!(count(&sicilian), "0\n");
    let left = all.trim().parse::<u64>().unwrap() - sicilians.trim().parse::<u64>().unwrap();
    assert_eq!(count(&[]), format!("{left}\n"));
    assert_eq!(info_figures(&db).0, left);
    let text = query(&db, &["info"]);
    assert!(text.contains(&format!("deleted    {} games,", sicilians.trim())), "{text}");
}
