//! `find --repertoire` and `explore --repertoire` against python-chess.

use crate::common::{self, arg, fixture, run, scratch};

/// A White repertoire against 1... c5 and 1... e5, with a line that
/// reaches the Two Knights by 3. Bc4 from 1. Nf3.
const REPERTOIRE: &str = "[Event \"rep\"]\n\n\
    1. e4 c5 (1... e5 2. Nf3 Nc6 3. Bb5 (3. Bc4 Nf6 4. d3)) (1... e6 2. d4 d5 3. Nc3) \
    2. Nf3 d6 (2... Nc6 3. d4) 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 *\n\n\
    [Event \"rep 2\"]\n\n1. Nf3 Nc6 2. e4 e5 3. Bc4 Bc5 4. c3 *\n";

#[test]
fn games_leave_a_repertoire_where_python_chess_finds_they_do() {
    let Some(python) = common::python_with("chess") else { return };
    let dir = scratch();
    let rep = dir.write("rep.pgn", REPERTOIRE);
    let games = fixture("pgn/games/chesscom/schmitz874-chesscom-live.pgn");
    let db = dir.join("games.db");
    common::import(&db, &["--quiet", "--keep-duplicates", arg(&games)]).success();
    let out = python
        .command()
        .arg(common::repo("tests/repertoire_reference.py"))
        .args([arg(&rep), arg(&games)])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let found = run([
        "find",
        "--db",
        arg(&db),
        "--repertoire",
        arg(&rep),
        "--limit",
        "0",
        "--format",
        "json",
    ])
    .success();
    let found: Vec<serde_json::Value> = serde_json::from_str(&found.stdout).unwrap();
    let mut by_id = std::collections::HashMap::new();
    for row in &found {
        by_id.insert(row["id"].as_u64().unwrap() as usize, row);
    }
    let mut left = 0;
    for (i, w) in want.iter().enumerate() {
        let got = by_id.get(&(i + 1));
        match (got, w["ply"].as_u64()) {
            (None, None) => {}
            (Some(g), Some(ply)) => {
                left += 1;
                assert_eq!(
                    (g["ply"].as_u64(), &g["move"]),
                    (Some(ply), &w["move"]),
                    "game {}",
                    i + 1
                );
            }
            _ => panic!("game {}: pgnindex {got:?}, python-chess {w}", i + 1),
        }
    }
    assert!(left > 100 && left < want.len(), "{left} of {} leave", want.len());
    // Grouped: the groups' games add up to the games that leave.
    let grouped = run([
        "explore",
        "--db",
        arg(&db),
        "--repertoire",
        arg(&rep),
        "--color",
        "white",
        "--format",
        "json",
    ])
    .success();
    let groups: Vec<serde_json::Value> = serde_json::from_str(&grouped.stdout).unwrap();
    let total: u64 = groups.iter().map(|g| g["games"].as_u64().unwrap()).sum();
    assert_eq!(total, left as u64);
    let counts: Vec<u64> = groups.iter().map(|g| g["games"].as_u64().unwrap()).collect();
    assert!(counts.is_sorted_by(|a, b| a >= b), "{counts:?}");
    assert!(groups.iter().all(|g| g["left_by"] == "ours" || g["left_by"] == "theirs"));
}

#[test]
fn a_transposition_stays_in_and_an_illegal_line_is_located() {
    let dir = scratch();
    let rep = dir.write("rep.pgn", REPERTOIRE);
    let games = dir.write(
        "games.pgn",
        "[Event \"t\"]\n[Result \"1-0\"]\n\n1. Nf3 Nc6 2. e4 e5 3. Bc4 Nf6 4. d3 Be7 1-0\n\n\
         [Event \"u\"]\n[Result \"0-1\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d4 0-1\n\n\
         [Event \"v\"]\n[Result \"0-1\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. b4 0-1\n",
    );
    let db = dir.join("t.db");
    common::import(&db, &["--quiet", arg(&games)]).success();
    let out =
        run(["find", "--db", arg(&db), "--repertoire", arg(&rep), "--format", "csv"]).success();
    // The first two games transpose into the other file's lines and stay
    // in; the third leaves at 4. b4, White's move.
    assert_eq!(out.stdout.lines().skip(1).collect::<Vec<_>>(), ["3,,,0-1,,7,b4,white"]);
    let bad = dir.write("bad.pgn", "[Event \"x\"]\n\n1. e4 e5 2. Nf3 (2. Ke3) Nc6 *\n");
    let r = run(["find", "--db", arg(&db), "--repertoire", arg(&bad)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(r.stderr.trim_end().lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr.trim_end().ends_with(
            "bad.pgn:3:21: 'Ke3' cannot be played here: illegal move: no white king can go to e3"
        ),
        "{}",
        r.stderr
    );
}
