//! `pgnindex novelty` against python-chess, transpositions included.

use std::collections::BTreeMap;

use crate::common::{self, arg, fixture, run, scratch};

/// Three games: the third follows the first's moves, then the second's
/// position by another move order (3. Bc4), and only then plays a move
/// no game played from its position (3... Nf6).
const TRANSPOSED: &str = r#"[Event "A"]
[Date "2020.01.01"]
[White "a"]
[Black "b"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Event "C"]
[Date "2021.01.01"]
[White "c"]
[Black "d"]
[Result "1/2-1/2"]

1. Nf3 Nc6 2. e4 e5 3. Bc4 Bc5 1/2-1/2

[Event "B"]
[Date "2022.01.01"]
[White "e"]
[Black "f"]
[Result "0-1"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 0-1
"#;

fn novelties(db: &std::path::Path, ids: &[usize], extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["novelty".to_string(), "--db".into(), arg(db).into()];
    for id in ids {
        args.extend(["--game".to_string(), id.to_string()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["--format".into(), "json".into()]);
    serde_json::from_str(&run(&args).success().stdout).unwrap()
}

#[test]
fn novelties_are_where_python_chess_finds_a_position_no_other_game_reached() {
    let Some(python) = common::python_with("chess") else { return };
    let dir = scratch();
    let twic = std::fs::read_to_string(fixture("pgn/games/otb/twic-01-232games.pgn")).unwrap();
    let pgn = dir.write("games.pgn", format!("{TRANSPOSED}\n{twic}"));
    let db = dir.join("games.db");
    common::import(&db, &["--quiet", "--keep-duplicates", arg(&pgn)]).success();
    let out = python
        .command()
        .arg(common::repo("tests/novelty_reference.py"))
        .arg(&pgn)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<usize> = (1..=want.len()).collect();
    let got = novelties(&db, &ids, &[]);
    assert_eq!(got.len(), want.len());
    let mut left = 0;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g["game"], (i + 1).to_string());
        assert_eq!((&g["ply"], &g["move"]), (&w["ply"], &w["move"]), "game {}", i + 1);
        if w["ply"].is_null() {
            continue;
        }
        left += 1;
        assert_eq!(g["games_before"], w["games_before"], "game {}", i + 1);
        let moves: BTreeMap<String, Vec<u64>> = g["moves_before"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let n = |k: &str| m[k].as_u64().unwrap();
                let counts = vec![n("games"), n("white_wins"), n("draws"), n("black_wins")];
                (m["move"].as_str().unwrap().to_string(), counts)
            })
            .collect();
        let want_moves: BTreeMap<String, Vec<u64>> =
            serde_json::from_value(w["moves_before"].clone()).unwrap();
        assert_eq!(moves, want_moves, "game {}", i + 1);
    }
    assert!(left > 200, "{left} games leave the database");
}

#[test]
fn before_a_date_and_pgn_files_judge_a_game_against_what_was_known() {
    let dir = scratch();
    let pgn = dir.write("three.pgn", TRANSPOSED);
    let db = dir.join("three.db");
    common::import(&db, &["--quiet", arg(&pgn)]).success();
    // The transposition: by move order the third game leaves at 3. Bc4,
    // by position only at 3... Nf6.
    let all = novelties(&db, &[3], &[]);
    assert_eq!(
        (&all[0]["ply"], &all[0]["move"]),
        (&serde_json::json!(6), &serde_json::json!("Nf6"))
    );
    assert_eq!(all[0]["games_before"], 1, "the second game's position, by another order");
    // Before 2021 only the first game counts: 3. Bc4 leaves it.
    let before = novelties(&db, &[3], &["--before", "2021"]);
    assert_eq!(
        (&before[0]["ply"], &before[0]["move"]),
        (&serde_json::json!(5), &serde_json::json!("Bc4"))
    );
    assert_eq!(before[0]["last_game"], 1);
    // The file's third game is the stored third game: not another game.
    let from_file = run(["novelty", "--db", arg(&db), arg(&pgn), "--format", "json"]).success();
    let from_file: Vec<serde_json::Value> = serde_json::from_str(&from_file.stdout).unwrap();
    assert_eq!(from_file.len(), 3);
    assert_eq!(from_file[2]["ply"], 6);
    assert_eq!(from_file[2]["game"], "three.pgn #3");
    // A game the database holds whole, from another file: it never leaves.
    let copy = dir.write("copy.pgn", TRANSPOSED.replace("[White \"e\"]", "[White \"x\"]"));
    let out = run(["novelty", "--db", arg(&db), arg(&copy), "--format", "csv"]).success();
    let third = out.stdout.lines().nth(3).unwrap();
    assert!(third.starts_with("copy.pgn #3,x,f,,,"), "{third}");
    let table = run(["novelty", "--db", arg(&db), arg(&copy)]).success();
    assert!(
        table.stdout.lines().nth(4).unwrap().ends_with("never leaves the database"),
        "{}",
        table.stdout
    );
    // Nothing to look at, or no such game: one line, exit 2 and 1.
    let r = run(["novelty", "--db", arg(&db)]);
    assert_eq!((r.code, r.stderr.lines().count()), (2, 1), "{}", r.stderr);
    let r = run(["novelty", "--db", arg(&db), "--game", "99"]);
    assert_eq!((r.code, r.stderr.lines().count()), (1, 1), "{}", r.stderr);
}
