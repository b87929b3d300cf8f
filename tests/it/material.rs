//! Material and pattern searches (`--material`, `--pattern`,
//! `--either-color`, `--material-plies`) against python-chess: every stored
//! mainline replayed by `fixtures/material/reference.py`, every position
//! tested; the games found and the first ply of each must be the same.
//! Also with the material index missing (games stored before it, and a
//! database older than it: both replayed), and the bad specs' messages.

use std::path::Path;

use crate::common;

use common::{
    arg, count, files_under, games_dir, import, open, python_with, repo, run, scratch, Python,
};
use similar_asserts::assert_eq;

/// One search: `find` flags and the reference's query.
struct Query {
    material: Option<&'static str>,
    pattern: Option<&'static str>,
    either: bool,
    plies: u32,
}

const fn q(material: Option<&'static str>, pattern: Option<&'static str>) -> Query {
    Query { material, pattern, either: false, plies: 1 }
}

const QUERIES: [Query; 13] = [
    q(Some("KRP-KR"), None),
    Query { either: true, ..q(Some("KRP-KR"), None) },
    Query { plies: 3, ..q(Some("KR-KR"), None) },
    Query { plies: 3, either: true, ..q(Some("KR*P-KR*P"), None) },
    q(Some("KQ*P-KQ*P"), None),
    q(Some("K*P-K*P"), None),
    Query { either: true, ..q(Some("KQ-KRR"), None) },
    q(Some("KRRBBNNPPPPPP*P-KQRRBBNNPPPPPP"), None),
    q(None, Some("Nd5 pd6")),
    Query { either: true, ..q(None, Some("Nd5 pd6")) },
    q(None, Some("Bb5 nc6 .d7 .e4")),
    Query { either: true, plies: 2, ..q(Some("KR*P-KR*P"), Some("Ra7")) },
    q(Some("KQRRBBNNPPPPPPPP-KQRRBBNNPPPPPPPP"), Some(".e2 .e7")),
];

impl Query {
    fn args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(m) = self.material {
            args.extend(["--material".to_string(), m.to_string()]);
        }
        if let Some(p) = self.pattern {
            args.extend(["--pattern".to_string(), p.to_string()]);
        }
        if self.either {
            args.push("--either-color".into());
        }
        if self.plies != 1 {
            args.extend(["--material-plies".to_string(), self.plies.to_string()]);
        }
        args
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "material": self.material, "pattern": self.pattern,
            "either": self.either, "plies": self.plies,
        })
    }
}

/// python-chess's `(id, first ply)` lists, one per query.
fn reference(python: &Python, db: &Path) -> Vec<Vec<(i64, u32)>> {
    let queries = serde_json::Value::Array(QUERIES.iter().map(Query::json).collect());
    let out = python
        .command()
        .arg(repo("fixtures/material/reference.py"))
        .arg(db)
        .arg(queries.to_string())
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `find`'s `(id, ply)` rows and `--count` for a query.
fn ours(db: &Path, query: &Query) -> (Vec<(i64, u32)>, usize) {
    let mut args = vec!["find".to_string(), "--db".into(), arg(db).into()];
    args.extend(query.args());
    let listed =
        run(args.iter().chain(&["--format".into(), "json".into(), "--limit".into(), "0".into()]))
            .success();
    let rows: Vec<serde_json::Value> = serde_json::from_str(&listed.stdout).unwrap();
    let found = rows
        .iter()
        .map(|r| (r["id"].as_i64().unwrap(), r["ply"].as_u64().unwrap() as u32))
        .collect();
    let counted = run(args.iter().chain(&["--count".into()])).success();
    (found, counted.stdout.trim().parse().unwrap())
}

/// Every query's answer on `db` equals python-chess's; returns the number
/// of games each found.
fn compare(db: &Path, expected: &[Vec<(i64, u32)>]) -> Vec<usize> {
    QUERIES
        .iter()
        .zip(expected)
        .map(|(query, theirs)| {
            let (found, count) = ours(db, query);
            assert_eq!(found, *theirs, "{:?}", query.args());
            assert_eq!(count, theirs.len(), "--count {:?}", query.args());
            count
        })
        .collect()
}

#[test]
fn searches_find_what_python_chess_finds_with_the_index_or_by_replay() {
    let Some(python) = python_with("chess") else { return };
    let dir = scratch();
    let db = dir.join("games.db");
    import(&db, &["--quiet", arg(&games_dir())]).success();
    let conn = open(&db);
    assert_eq!(
        count(&conn, "SELECT count(*) FROM game_material"),
        count(&conn, "SELECT count(*) FROM games WHERE final_fen IS NOT NULL"),
        "a row for every game with a start position"
    );
    assert_eq!(count(&conn, "SELECT last_game_id FROM material_backlog"), 0);
    drop(conn);
    let expected = reference(&python, &db);
    let counts = compare(&db, &expected);
    println!("{counts:?}");
    assert!(counts.iter().filter(|&&n| n > 0).count() >= 11, "{counts:?}");

    // Games stored before the index: no row, replayed.
    let conn = open(&db);
    conn.execute_batch(
        "DELETE FROM game_material WHERE game_id % 3 = 0;
         UPDATE material_backlog SET last_game_id = (SELECT max(id) FROM games);",
    )
    .unwrap();
    drop(conn);
    compare(&db, &expected);
    let note =
        || run(["find", "--db", arg(&db), "--material", "KRP-KR", "--count"]).success().stderr;
    assert!(note()
        .starts_with("pgnindex: note: the games stored before the material index (ids up to "));
    // A database older than the index.
    open(&db).execute_batch("DROP TABLE game_material; DROP TABLE material_backlog;").unwrap();
    compare(&db, &expected);
    assert!(note().contains("predates the material index: every game is replayed"), "{}", note());
}

#[test]
fn headers_filter_material_searches() {
    let dir = scratch();
    let db = dir.join("games.db");
    import(&db, &["--quiet", arg(&games_dir())]).success();
    let count = |extra: &[&str]| -> i64 {
        let mut args = vec!["find", "--db", arg(&db), "--material", "K*P-K*P", "--count"];
        args.extend(extra);
        run(&args).success().stdout.trim().parse().unwrap()
    };
    let all = count(&[]);
    let (wins, draws) = (count(&["--result", "1-0"]), count(&["--result", "1/2-1/2"]));
    let (losses, none) = (count(&["--result", "0-1"]), count(&["--result", "*"]));
    assert!(wins > 0 && draws > 0 && losses > 0, "{wins} {draws} {losses}");
    assert_eq!(wins + draws + losses + none, all);

    // explore: the same games and results, in one row.
    let explore = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["explore", "--db", arg(&db), "--format", "json"];
        args.extend(extra);
        let out = run(&args).success();
        serde_json::from_str::<Vec<serde_json::Value>>(&out.stdout).unwrap().remove(0)
    };
    let row = explore(&["--material", "K*P-K*P"]);
    assert_eq!(row["condition"], "K*P-K*P");
    let n = |key: &str| row[key].as_i64().unwrap();
    assert_eq!(
        (n("games"), n("white_wins"), n("draws"), n("black_wins")),
        (all, wins, draws, losses)
    );
    assert!(row["avg_plies_after"].as_f64().unwrap() > 0.0);
    let elo = count(&["--min-elo", "2000"]);
    assert_eq!(explore(&["--material", "K*P-K*P", "--min-elo", "2000"])["games"], elo);
    // Either colour: a game counts once, its result from the spec's first side.
    let one_way = explore(&["--material", "KR*P-K*P", "--result", "1-0"]);
    let other_way = explore(&["--material", "K*P-KR*P", "--result", "0-1"]);
    let either = explore(&["--material", "KR*P-K*P", "--either-color"]);
    assert!(one_way["games"].as_i64().unwrap() > 0, "{one_way}");
    assert!(
        either["white_wins"].as_i64().unwrap()
            >= one_way["games"].as_i64().unwrap().max(other_way["games"].as_i64().unwrap()),
        "{either} {one_way} {other_way}"
    );

    // A deleted game leaves the index with its row.
    let first = |extra: &[&str]| -> i64 {
        let mut args = vec!["find", "--db", arg(&db), "--material", "K*P-K*P", "--format", "csv"];
        args.extend(extra);
        let out = run(&args).success().stdout;
        out.lines().nth(1).unwrap().split(',').next().unwrap().parse().unwrap()
    };
    let id = first(&[]);
    let conn = open(&db);
    conn.execute("DELETE FROM games WHERE id = ?1", [id]).unwrap();
    let rows = format!("SELECT count(*) FROM game_material WHERE game_id = {id}");
    assert_eq!(common::count(&conn, &rows), 0);
    drop(conn);
    assert_eq!(count(&[]), all - 1);
    assert!(first(&[]) > id);
}

#[test]
fn bad_specs_and_patterns_are_one_line_errors_with_the_column() {
    let dir = scratch();
    let db = dir.join("games.db");
    import(&db, &["--quiet", arg(&common::twic())]).success();
    for (flag, text, expected) in [
        ("--material", "KRP-KR-K", "--material: 'KRP-KR-K' column 7: a second '-'"),
        ("--material", "Xd5", "--material: 'Xd5' column 1: 'X' is not a piece letter"),
        ("--material", "KRP", "--material: 'KRP' column 4: no '-'"),
        ("--pattern", "Ni9", "--pattern: 'Ni9' column 2: 'i9' is not a square"),
        ("--pattern", "Nd5 Xd5", "--pattern: 'Nd5 Xd5' column 5: 'X' is not a piece letter"),
        ("--pattern", "Pe8", "--pattern: 'Pe8' column 1: a pawn cannot stand on e8"),
    ] {
        let out = run(["find", "--db", arg(&db), flag, text]);
        assert_eq!(out.code, 1, "{text}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
        assert!(out.stderr.starts_with(&format!("pgnindex: error: {expected}")), "{}", out.stderr);
    }
    let out = run(["find", "--db", arg(&db), "--either-color"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
}

/// The same comparison on every game of the shared corpus.
#[test]
#[ignore = "the whole shared corpus and python-chess: cargo test --test it -- --ignored material::"]
fn searches_find_what_python_chess_finds_on_the_shared_corpus() {
    let corpus = repo("../shared/corpus/games");
    assert!(corpus.is_dir(), "{}: not found (../shared beside the repository)", corpus.display());
    let Some(python) = python_with("chess") else { return };
    let files = files_under(&corpus, |p| {
        p.extension().is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case("pgn"))
    });
    let dir = scratch();
    let db = dir.join("corpus.db");
    let mut args = vec!["--quiet", "--no-positions"];
    args.extend(files.iter().map(|p| arg(p)));
    import(&db, &args).success();
    let expected = reference(&python, &db);
    let counts = compare(&db, &expected);
    println!("{counts:?}");
    assert!(counts.iter().all(|&n| n > 0), "{counts:?}");
}
