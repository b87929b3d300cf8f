//! The explorer's opening tree: `explore` answers from it exactly what it
//! answers from the position index alone, for positions the tree holds
//! (reached early, by transposition, late by a repetition, at a game's
//! end) and positions beyond it; after deletes, after several imports,
//! and on a database upgraded from the schema before the tree. The tree
//! kept up by imports and deletes equals the tree rebuilt from scratch.

use crate::common;

use std::path::Path;

use common::{arg, games_dir, import, open, run, scratch, twic};
use pgnindex::db::GameId;
use pgnindex::query::explore::{explore, explore_without_tree, Explorer};
use pgnindex::query::filter::Filters;
use pgnindex::query::search::Search;
use pgnindex::query::target::Target;
use pgnindex::store::format::explorer;
use pgnindex::store::tree;
use rusqlite::Connection;
use similar_asserts::assert_eq;

/// Games that reach positions in the ways the tree must tell apart.
const CRAFTED: &str = r#"[Event "knights out and back, then 1. Nf3 Nf6 at ply 10"]
[Result "1-0"]
[WhiteElo "2400"]
[Date "2031.05.01"]

1. Nf3 Nc6 2. Ng1 Nb8 3. Nc3 Nf6 4. Nb1 Ng8 5. Nf3 Nf6 6. d4 d5 1-0

[Event "1. Nf3 Nf6 at ply 2"]
[Result "0-1"]
[BlackElo "2500"]
[Date "2030.??.??"]

1. Nf3 Nf6 2. d4 e6 0-1

[Event "ends in a position at ply 4"]
[Result "0-1"]
[Date "????.??.??"]

1. f3 e5 2. g4 Qh4# 0-1

[Event "no moves: ends at the start"]
[Result "1/2-1/2"]

1/2-1/2

[Event "the start position at ply 7, from a FEN"]
[Result "*"]
[SetUp "1"]
[FEN "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"]

1... Nc6 2. Nc3 Nb8 3. Nb1 Nf6 4. Ng1 Ng8 5. e4 *

[Event "the start position at ply 3, from a FEN"]
[Result "1-0"]
[WhiteElo "1700"]
[BlackElo "1900"]
[SetUp "1"]
[FEN "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"]

1... Nf6 2. Ng1 Ng8 3. d4 1-0

[Event "1. d4 Nf6 2. c4 e6 by transposition"]
[Result "1/2-1/2"]
[WhiteElo "2600"]
[BlackElo "2610"]
[Date "2029.01.01"]

1. c4 e6 2. d4 Nf6 3. Nc3 Bb4 1/2-1/2

"#;

/// Games of masters, and others as close to them as can be: online by
/// the site or the event, an average of exactly 2200.
const MASTERS: &str = r#"[Event "masters rated, but online"]
[Site "https://lichess.org/abcdefgh"]
[Result "0-1"]
[WhiteElo "2700"]
[BlackElo "2690"]
[Date "2032.01.01"]

1. d4 Nf6 2. c4 e6 3. Nc3 Bb4 0-1

[Event "Rated Classical game"]
[Site "Oslo"]
[Result "1-0"]
[WhiteElo "2700"]
[BlackElo "2690"]

1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3 Be7 1-0

[Event "Casual"]
[Site "Oslo NOR"]
[Result "0-1"]
[WhiteElo "2300"]
[BlackElo "2101"]
[Date "2028.03.04"]

1. d4 Nf6 2. c4 e6 3. Nc3 Bb4 4. e3 O-O 5. Nf3 d5 6. Bd3 c5 7. O-O Nc6 8. a3 Bxc3 0-1
"#;

/// Positions compared, as `--moves`: the start and every ply of one game
/// to beyond the tree, the crafted games' positions, common openings.
const POSITIONS: &[&str] = &[
    "",
    "1. e4",
    "1. e4 c5",
    "1. e4 c5 2. Nf3",
    "1. e4 c5 2. Nf3 d6",
    "1. e4 c5 2. Nf3 d6 3. d4",
    "1. e4 c5 2. Nf3 d6 3. d4 cxd4",
    "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4",
    "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6",
    "1. d4",
    "1. d4 Nf6 2. c4 e6",
    "1. c4 e6 2. d4 Nf6",
    "1. d4 Nf6 2. c4 e6 3. Nc3 Bb4",
    "1. Nf3",
    "1. Nf3 Nf6",
    "1. f3 e5 2. g4 Qh4#",
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6",
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4",
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6",
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7",
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5",
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3",
    "1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3",
    "1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3 Be7",
    "1. e4 c6 2. d4 d5 3. Nc3 dxe4 4. Nxe4",
    "1. d4 d5 2. e4 dxe4 3. Nc3 Nf6 4. f3",
];

/// `search` for the position after `moves`.
fn search(moves: &str) -> Search {
    let target = match moves {
        "" => Target::from_position(pgnindex::chess::Position::new()),
        moves => Target::from_moves(moves, None).unwrap(),
    };
    Search { target: Some(target), ..Search::default() }
}

/// [`search`] of the masters games only.
fn search_masters(moves: &str) -> Search {
    Search { filters: Filters { masters: true, ..Filters::default() }, ..search(moves) }
}

/// The explorer with the tree and without, which must agree; also whether
/// the tree answered, and how many games it left to the index.
fn compare(conn: &Connection, moves: &str) -> (Explorer, bool, u64) {
    compare_search(conn, moves, search(moves))
}

/// [`compare`] of `s`, a search for the position after `moves`.
fn compare_search(conn: &Connection, moves: &str, s: Search) -> (Explorer, bool, u64) {
    let with = explore(conn, &s).unwrap();
    let without = explore_without_tree(conn, &s).unwrap();
    assert_eq!(with, without, "after '{moves}'");
    let mut late = 0;
    let by_tree = s.for_each_tree_hit(conn, |_, _| {}, |_| late += 1).unwrap();
    (with, by_tree, late)
}

/// Compares every position of [`POSITIONS`]; the tree must answer those it
/// can reach (within its plies, or deep, with games): their number.
fn compare_all(db: &Path) -> usize {
    let conn = pgnindex::db::open_read_only(db).unwrap();
    let state = explorer::state(&conn).unwrap().unwrap();
    assert!(state.complete);
    let mut answered = 0;
    for moves in POSITIONS {
        let (explorer, by_tree, _) = compare(&conn, moves);
        let plies = moves.split_whitespace().filter(|w| !w.ends_with('.')).count() as u32;
        if (plies <= state.max_ply || is_deep(&conn, moves)) && explorer.games > 0 {
            assert!(by_tree, "the tree answers '{moves}'");
        }
        answered += usize::from(by_tree);
        // The masters' tree answers where the tree does.
        let (_, masters_by_tree, _) = compare_search(&conn, moves, search_masters(moves));
        assert_eq!(masters_by_tree, by_tree, "the masters' tree answers '{moves}'");
    }
    answered
}

/// `true` if the position after `moves` is deep (`explorer_deep`).
fn is_deep(conn: &Connection, moves: &str) -> bool {
    let key = search(moves).target.unwrap().key;
    conn.query_row("SELECT count(*) FROM explorer_deep WHERE hash = ?1", [key], |r| r.get(0))
        .unwrap_or(0)
        > 0
}

/// The tree's and the masters' tree's rows, in key order.
fn tree_rows(conn: &Connection) -> [Vec<String>; 2] {
    ["explorer_tree", "explorer_masters"]
        .map(|t| common::text_rows(conn, &format!("SELECT * FROM {t} ORDER BY hash, next_move")))
}

/// The tree as kept up equals the tree rebuilt from the position index.
fn assert_tree_rebuilds_the_same(db: &Path) {
    let conn = pgnindex::db::open_read_write(db).unwrap();
    let kept = tree_rows(&conn);
    assert!(!kept[0].is_empty());
    conn.execute("UPDATE explorer_tree_state SET complete = 0", []).unwrap();
    tree::ensure_complete(&conn).unwrap();
    assert_eq!(tree_rows(&conn), kept);
}

/// A database of the fixtures' games and the crafted ones, imported in
/// small batches (many segments, many tree updates).
fn corpus_db(dir: &common::Scratch) -> std::path::PathBuf {
    let db = dir.join("t.db");
    let crafted = dir.write("crafted.pgn", CRAFTED);
    let long = dir.write("long.pgn", long_game());
    let masters = dir.write("masters.pgn", MASTERS);
    let games = games_dir();
    let files = [arg(&crafted), arg(&long), arg(&games), arg(&masters), "--batch-games", "97"];
    import(&db, &files).success();
    db
}

/// A game whose knights go out and back 130 times (520 plies) before
/// 1. e4: the start position at plies 0, 4, … 520, the position after
/// 1. e4 first at ply 521, past the plies whose index rows sort by game.
fn long_game() -> String {
    let mut moves = String::new();
    for i in 0..130 {
        let n = 2 * i + 1;
        moves += &format!("{n}. Nf3 Nf6 {}. Ng1 Ng8 ", n + 1);
    }
    format!("[Event \"long\"]\n[Result \"1-0\"]\n\n{moves}261. e4 e5 1-0\n")
}

#[test]
fn the_tree_answers_as_the_index_does() {
    let dir = scratch();
    let db = corpus_db(&dir);
    assert!(compare_all(&db) >= 12);
    let conn = pgnindex::db::open_read_only(&db).unwrap();
    // The crafted games, counted by hand: 1. Nf3 Nf6 is reached at ply 2
    // and, by the knights' tour, first at ply 10, beyond the tree.
    // Black moves first in the FEN games: theirs are Black's ratings.
    let (nf3, by_tree, _) = compare(&conn, "1. Nf3");
    assert!(by_tree && nf3.moves.iter().any(|m| m.san == "Nf6" && m.avg_elo().is_some()));
    let (nf3_nf6, _, late) = compare(&conn, "1. Nf3 Nf6");
    assert!(late >= 1, "the game that reaches 1. Nf3 Nf6 at ply 10 is read from the index");
    assert!(nf3_nf6.moves.iter().any(|m| m.san == "d4" && m.games >= 2));
    // The start position: the FEN game that reaches it at ply 7 is late,
    // the one at ply 3 is in the tree, the game without moves ends there.
    let (start, by_tree, late) = compare(&conn, "");
    assert!(by_tree && late >= 1);
    assert!(start.ended >= 1);
    // The long game: late for 1. e4 (ply 521), early for the start.
    let (_, by_tree, late) = compare(&conn, "1. e4");
    assert!(by_tree && late >= 1);
    let (mate, by_tree, _) = compare(&conn, "1. f3 e5 2. g4 Qh4#");
    assert!(by_tree);
    assert_eq!((mate.games, mate.ended), (1, 1));
    drop(conn);
    assert_tree_rebuilds_the_same(&db);
}

/// The Polyglot key of the standard start position, as stored.
const START_KEY: i64 = 0x463b_9618_1691_fc9c;

#[test]
fn late_visits_are_listed_at_import_or_searched_in_the_index() {
    let dir = scratch();
    let db = corpus_db(&dir);
    let conn = pgnindex::db::open_read_write(&db).unwrap();
    // The FEN game reaches the start position late (ids count from the
    // crafted games, in order); the start position after the knights'
    // tour is no game's first occurrence.
    let late_games: Vec<i64> = common::column(
        &conn,
        &format!("SELECT game_id FROM explorer_late WHERE hash = {START_KEY} ORDER BY 1"),
    );
    assert_eq!(late_games, [5]);
    let e4 = Target::from_moves("1. e4", None).unwrap().key;
    let late_e4: Vec<i64> = common::column(
        &conn,
        &format!("SELECT game_id FROM explorer_late WHERE hash = {e4} ORDER BY 1"),
    );
    assert_eq!(late_e4, [5, 8], "the FEN game's last move, the long game's ply 521");
    // A position no game from the start reaches within the tree's plies
    // is never listed.
    let deep = Target::from_moves("1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4", None).unwrap().key;
    let listed: i64 = conn
        .query_row("SELECT count(*) FROM explorer_late WHERE hash = ?1", [deep], |r| r.get(0))
        .unwrap();
    assert_eq!(listed, 0);
    let (_, by_tree, late) = compare(&conn, "");
    assert!(by_tree && late == 1);

    // As a database upgraded with games stored: those before `late_from`
    // are searched in the index, the others listed; then none listed.
    let all: i64 = conn.query_row("SELECT max(id) + 1 FROM games", [], |r| r.get(0)).unwrap();
    drop(conn);
    for from in [6, all] {
        let conn = pgnindex::db::open_read_write(&db).unwrap();
        conn.execute("DELETE FROM explorer_late WHERE game_id < ?1", [from]).unwrap();
        conn.execute("UPDATE explorer_tree_state SET late_from = ?1", [from]).unwrap();
        let (_, by_tree, late) = compare(&conn, "");
        assert!(by_tree && late == 1, "late_from {from}");
        let (_, by_tree, late) = compare(&conn, "1. e4");
        assert!(by_tree && late >= 1, "late_from {from}");
        drop(conn);
        compare_all(&db);
    }
}

/// The Blackmar–Diemer gambit accepted, ply 8: reached at ply 8, at ply
/// 12 and at ply 16 (white's and black's knights out and back, once or
/// twice, before 6. f3 or 8. f3).
const GAMBIT: &str = "1. d4 d5 2. e4 dxe4 3. Nc3 Nf6 4. f3 exf3";

fn gambit_games(results: [&str; 3]) -> String {
    let lines = [
        "1. d4 d5 2. e4 dxe4 3. Nc3 Nf6 4. f3 exf3 5. Nxf3",
        "1. d4 d5 2. e4 dxe4 3. Nc3 Nf6 4. Nf3 Nc6 5. Ng1 Nb8 6. f3 exf3 7. Nxf3",
        "1. d4 d5 2. e4 dxe4 3. Nc3 Nf6 4. Nf3 Nc6 5. Ng1 Nb8 6. Nf3 Nc6 7. Ng1 Nb8 \
         8. f3 exf3 9. Qxf3",
    ];
    lines
        .iter()
        .zip(results)
        .map(|(moves, result)| format!("[Result \"{result}\"]\n\n{moves} {result}\n\n"))
        .collect()
}

#[test]
fn deep_positions_are_counted_past_the_tree_plies() {
    let dir = scratch();
    let db = dir.join("deep.db");
    let crafted = dir.write("crafted.pgn", CRAFTED);
    import(&db, &[arg(&crafted)]).success();
    let conn = pgnindex::db::open_read_write(&db).unwrap();
    assert_eq!(explorer::state(&conn).unwrap().unwrap().deep_games, Some(16));
    conn.execute("UPDATE explorer_tree_state SET deep_games = 2", []).unwrap();
    drop(conn);
    // Two games reach the gambit within 12 plies in this batch: it is deep
    // from the next game on. Those games and the one reaching it at ply 16
    // are left to the index.
    // And one reaches it at ply 528, where index rows sort by ply first.
    let knights =
        long_game().replace("261. e4 e5", "261. d4 d5 262. e4 dxe4 263. Nc3 Nf6 264. f3 exf3");
    let first = dir.write("first.pgn", gambit_games(["1-0", "0-1", "1-0"]) + &knights);
    import(&db, &[arg(&first)]).success();
    let gambit = search(GAMBIT).target.unwrap().key;
    let conn = pgnindex::db::open_read_only(&db).unwrap();
    let deep_from: i64 = conn
        .query_row("SELECT deep_from FROM explorer_deep WHERE hash = ?1", [gambit], |r| r.get(0))
        .unwrap();
    assert_eq!(deep_from, 12, "the crafted games and the batch's four before it");
    let (explorer, by_tree, late) = compare(&conn, GAMBIT);
    assert!(by_tree, "deep, no game counted yet");
    assert_eq!((explorer.games, late), (4, 4));
    drop(conn);
    // The next batch's games: two counted (plies 8 and 12), the third
    // listed late (ply 16).
    let second = dir.write("second.pgn", gambit_games(["1/2-1/2", "1-0", "0-1"]));
    import(&db, &[arg(&second)]).success();
    let conn = pgnindex::db::open_read_only(&db).unwrap();
    let counted: i64 = conn
        .query_row("SELECT sum(games) FROM explorer_tree WHERE hash = ?1", [gambit], |r| r.get(0))
        .unwrap();
    assert_eq!(counted, 2);
    let late: Vec<i64> =
        common::column(&conn, &format!("SELECT game_id FROM explorer_late WHERE hash = {gambit}"));
    assert_eq!(late, [14]);
    let (explorer, by_tree, late) = compare(&conn, GAMBIT);
    assert!(by_tree);
    assert_eq!((explorer.games, late), (7, 5), "4 before deep_from, 1 listed");
    drop(conn);
    assert_tree_rebuilds_the_same(&db);

    // Deletes take the counted games out again; the fixtures' games make
    // other positions deep, each answered as the index does.
    let deleter = pgnindex::store::delete::Deleter::open(&db).unwrap();
    assert_eq!(deleter.delete(&[GameId::new(12), GameId::new(14)]).unwrap(), 2);
    let conn = pgnindex::db::open_read_only(&db).unwrap();
    let (explorer, by_tree, late) = compare(&conn, GAMBIT);
    assert!(by_tree);
    assert_eq!((explorer.games, late), (5, 4));
    drop(conn);
    // 1. e4 reached at ply 5 in two games of a batch: deep, though
    // explorer_late lists it by its reach. The next batch's game reaching
    // it at ply 9 is counted, the one at ply 13 listed.
    let knights = |n: usize, from: usize| -> String {
        (0..n)
            .map(|i| format!("{}. Nf3 Nf6 {}. Ng1 Ng8 ", from + 2 * i, from + 2 * i + 1))
            .collect()
    };
    let e4 = |n| format!("[Result \"1-0\"]\n\n{}{}. e4 e5 1-0\n\n", knights(n, 1), 2 * n + 1);
    let early = dir.write("early.pgn", e4(1) + &e4(1));
    import(&db, &[arg(&early), "--keep-duplicates"]).success();
    let conn = pgnindex::db::open_read_only(&db).unwrap();
    assert!(is_deep(&conn, "1. e4"));
    drop(conn);
    let later = dir.write("later.pgn", e4(2) + &e4(3));
    import(&db, &[arg(&later)]).success();
    let conn = pgnindex::db::open_read_only(&db).unwrap();
    let (explorer, by_tree, late) = compare(&conn, "1. e4");
    assert!(by_tree);
    assert_eq!((explorer.games, late), (5, 2), "the FEN game's ply 8 searched, ply 13 listed");
    drop(conn);
    assert_tree_rebuilds_the_same(&db);
    import(&db, &[arg(&games_dir()), "--batch-games", "97"]).success();
    let conn = pgnindex::db::open_read_only(&db).unwrap();
    let deep: i64 = conn.query_row("SELECT count(*) FROM explorer_deep", [], |r| r.get(0)).unwrap();
    assert!(deep > 20, "{deep}");
    drop(conn);
    compare_all(&db);
    assert_tree_rebuilds_the_same(&db);
}

#[test]
fn deletes_keep_the_tree_exact() {
    let dir = scratch();
    let db = corpus_db(&dir);
    let deleter = pgnindex::store::delete::Deleter::open(&db).unwrap();
    // The crafted games and the long one (the first eight) and some others, among
    // them the games with the latest dates.
    let latest: Vec<u32> = common::column(
        deleter.connection(),
        "SELECT id FROM games WHERE date GLOB '[0-9][0-9][0-9][0-9]*' ORDER BY date DESC LIMIT 3",
    );
    let mut ids: Vec<GameId> = (1..=8).chain(100..160).chain(latest).map(GameId::new).collect();
    ids.push(GameId::new(1));
    let deleted = deleter.delete(&ids).unwrap();
    assert!(deleted >= 65);
    compare_all(&db);
    assert_tree_rebuilds_the_same(&db);
    // A game deleted by hand leaves the tree incomplete: the index answers,
    // and the next delete or import rebuilds the tree.
    let conn = pgnindex::db::open_read_write(&db).unwrap();
    conn.execute("DELETE FROM games WHERE id = 200", []).unwrap();
    assert!(!explorer::state(&conn).unwrap().unwrap().complete);
    let (_, by_tree, _) = compare(&conn, "1. e4");
    assert!(!by_tree);
    drop(conn);
    import(&db, &[arg(&twic())]).success();
    compare_all(&db);
    assert_tree_rebuilds_the_same(&db);
}

#[test]
fn imports_add_to_the_tree() {
    let dir = scratch();
    let db = dir.join("t.db");
    let crafted = dir.write("crafted.pgn", CRAFTED);
    import(&db, &[arg(&twic())]).success();
    import(&db, &[arg(&crafted), "--batch-games", "3"]).success();
    import(&db, &[arg(&games_dir()), "--keep-duplicates"]).success();
    compare_all(&db);
    assert_tree_rebuilds_the_same(&db);
}

#[test]
fn ratings_no_system_gives_are_not_averaged() {
    let dir = scratch();
    let db = dir.join("elo.db");
    let pgn = dir.write(
        "elo.pgn",
        "[WhiteElo \"9223372036854775807\"]\n[BlackElo \"9223372036854775807\"]\n\n1. e4 e5 1-0\n\n\
         [WhiteElo \"2400\"]\n[BlackElo \"2\"]\n\n1. e4 e5 2. Nf3 1-0\n",
    );
    // Twice: the tree's sums grow with every import.
    import(&db, &[arg(&pgn)]).success();
    import(&db, &[arg(&pgn), "--force", "--keep-duplicates"]).success();
    let out = run(["explore", "--db", arg(&db), "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(rows[0]["uci"], "e2e4", "{rows}");
    // White's: 2400 twice, the other out of any rating system's range.
    assert_eq!((rows[0]["games"].as_i64(), rows[0]["avg_elo"].as_i64()), (Some(4), Some(2400)));
    // Black's, after 1. e4: 2 twice.
    let out = run(["explore", "--db", arg(&db), "--moves", "e4", "--format", "json"]);
    let rows: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((rows[0]["games"].as_i64(), rows[0]["avg_elo"].as_i64()), (Some(4), Some(2)));
    assert_tree_rebuilds_the_same(&db);
}

#[test]
fn an_upgraded_database_gets_its_tree() {
    let dir = scratch();
    let db = corpus_db(&dir);
    // The database as the schema before the tree left it.
    let conn = open(&db);
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, pgnindex::db::SCHEMA_VERSION);
    common::games_as_schema_15(&conn);
    conn.execute_batch(
        "DROP TRIGGER explorer_tree_delete; DROP TABLE explorer_tree; DROP TABLE explorer_late; \
         DROP TABLE explorer_deep; \
         DROP TABLE explorer_tree_state;",
    )
    .unwrap();
    conn.pragma_update(None, "user_version", 14).unwrap();
    drop(conn);
    // Queries read the index; the next import upgrades and fills the tree.
    let conn = pgnindex::db::open_read_only(&db).unwrap();
    let (_, by_tree, _) = compare(&conn, "");
    assert!(!by_tree);
    drop(conn);
    let out = run(["delete", "--db", arg(&db), "--moves", "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    compare_all(&db);
    assert_tree_rebuilds_the_same(&db);
}

#[test]
fn the_games_stored_last_come_from_every_segment_that_may_hold_them() {
    let dir = scratch();
    let db = corpus_db(&dir);
    // A small import's segment, then batches enough to merge the ones
    // before it with the ones after: segments whose games interleave.
    let small = dir.write("small.pgn", CRAFTED);
    import(&db, &[arg(&small), "--keep-duplicates"]).success();
    import(&db, &[arg(&games_dir()), "--keep-duplicates", "--batch-games", "97"]).success();
    let conn = pgnindex::db::open_read_only(&db).unwrap();
    let segments: i64 =
        conn.query_row("SELECT count(*) FROM position_segments", [], |r| r.get(0)).unwrap();
    assert!(segments >= 3, "{segments} segments");
    let long: GameId = conn
        .query_row("SELECT id FROM games WHERE event = 'long'", [], |r| r.get::<_, u32>(0))
        .map(GameId::new)
        .unwrap();
    for moves in ["", "1. e4", "1. d4", "1. e4 c5", "1. d4 Nf6 2. c4", "1. e4 c6 2. d4 d5"] {
        let s = search(moves);
        let mut all: Vec<(GameId, Option<u16>)> = Vec::new();
        s.for_each_hit(&conn, |hit| all.push((hit.game_id, hit.next_move))).unwrap();
        // The long game reaches 1. e4 only past the plies the lists read.
        all.retain(|h| !(moves == "1. e4" && h.0 == long));
        all.sort_unstable_by_key(|h| std::cmp::Reverse(h.0));
        for n in [1, 5, 40, 100, 1000, 3000] {
            let last: Vec<(GameId, Option<u16>)> = s
                .last_hits(&conn, n)
                .unwrap()
                .iter()
                .map(|hit| (hit.game_id, hit.next_move))
                .collect();
            let expected: Vec<_> = all.iter().take(n).copied().collect();
            assert_eq!(last, expected, "the last {n} games after '{moves}'");
        }
    }
}

#[test]
fn the_masters_tree_counts_the_masters_games_only() {
    let dir = scratch();
    let db = dir.join("m.db");
    let crafted = dir.write("crafted.pgn", CRAFTED);
    let masters = dir.write("masters.pgn", MASTERS);
    import(&db, &[arg(&crafted), arg(&masters)]).success();
    let conn = pgnindex::db::open_read_only(&db).unwrap();
    // Four games reach it within the tree's plies: the transposition, the
    // two played online, the one averaging exactly 2200.
    let moves = "1. d4 Nf6 2. c4 e6";
    let (all, by_tree, _) = compare(&conn, moves);
    assert!(by_tree);
    assert_eq!(all.games, 4);
    let (masters, by_tree, late) = compare_search(&conn, moves, search_masters(moves));
    assert!(by_tree && late == 0);
    assert_eq!(masters.games, 2);
    let nc3: Vec<_> =
        masters.moves.iter().map(|m| (m.san.as_str(), m.draws, m.black_wins)).collect();
    assert_eq!(nc3, [("Nc3", 1, 1)]);
    assert_eq!(masters.moves[0].avg_elo(), Some(2450), "White's 2600 and 2300");
    // A position of the tree without a masters game: none, from the tree.
    let (none, by_tree, _) = compare_search(&conn, "1. f3 e5", search_masters("1. f3 e5"));
    assert!(by_tree);
    assert_eq!(none.games, 0);
    drop(conn);
    assert_tree_rebuilds_the_same(&db);
}
