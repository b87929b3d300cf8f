//! `pgnindex import` given what it cannot use: each misuse gets a one-line
//! error and a non-zero exit with nothing written, or the right answer.

pub mod common;

use common::{arg, column, count, import, open, scratch};
use similar_asserts::assert_eq;

/// Three games, the second with an illegal move.
const BAD_SECOND: &str =
    "[White \"a\"]\n\n1. e4 e5 *\n\n[White \"b\"]\n\n1. e4 e5 2. Ke3 Nc6 *\n\n\
                          [White \"c\"]\n\n1. d4 *\n";

#[test]
fn strict_stores_nothing_of_the_bad_game_and_stops_there_again_until_it_is_fixed() {
    let dir = scratch();
    let pgn = dir.write("games.pgn", BAD_SECOND);
    let db = dir.join("t.db");
    let error = "games.pgn:7:13: game 2: move 2 (white): illegal move 'Ke3'";
    for _ in 0..2 {
        let run = import(&db, &["--strict", arg(&pgn)]);
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(run.stderr.contains(error), "{}", run.stderr);
        assert!(run.stderr.contains("stopped at the first bad game (--strict)"), "{}", run.stderr);
        let conn = open(&db);
        let white: Vec<String> = column(&conn, "SELECT white FROM games ORDER BY id");
        assert_eq!(white, ["a"], "the games before the bad one, not the bad one");
        assert_eq!(count(&conn, "SELECT count(*) FROM import_errors"), 0);
        assert_eq!(count(&conn, "SELECT count(*) FROM sources WHERE finished_at IS NOT NULL"), 0);
    }
    // Fixed, the file imports: its first game is stored already.
    std::fs::write(&pgn, BAD_SECOND.replace("Ke3", "Ke2")).unwrap();
    let run = import(&db, &["--strict", arg(&pgn)]).success();
    assert!(run.stderr.contains("2 games imported"), "{}", run.stderr);
    let white: Vec<String> = column(&open(&db), "SELECT white FROM games ORDER BY id");
    assert_eq!(white, ["a", "b", "c"]);
}

#[test]
fn a_directory_without_pgn_files_is_refused_and_no_database_is_created() {
    let dir = scratch();
    let empty = dir.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let notes = dir.join("notes");
    std::fs::create_dir(&notes).unwrap();
    dir.write("notes/readme.txt", "no games here");
    let db = dir.join("n.db");
    let run = import(&db, &[arg(&empty)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "pgnindex: error: {}: no PGN files (.pgn, .pgn.gz, .pgn.zst, .pgn.bz2) below it\n",
            empty.display()
        )
    );
    assert!(!db.exists());
    // Every argument expands to nothing.
    let run = import(&db, &[arg(&empty), arg(&notes)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "pgnindex: error: {}, {}: no PGN files (.pgn, .pgn.gz, .pgn.zst, .pgn.bz2) below them\n",
            empty.display(),
            notes.display()
        )
    );
    assert!(!db.exists());
    // `check` reads the same inputs the same way.
    let run = common::run(["check", arg(&empty)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no PGN files"), "{}", run.stderr);
}
