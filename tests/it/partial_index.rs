//! Databases whose position index does not cover every game (imported
//! with `--no-positions` or `--max-ply`): a position search that cannot
//! be answered is refused with the reason, one that is answered in part
//! says so, and `info` says how each input was indexed.

use crate::common;

use std::path::Path;

use common::{arg, games_dir, import, run, scratch, twic};
use similar_asserts::assert_eq;

/// `pgnindex ARGS --db DB`: exit code, stdout, stderr.
fn ask(db: &Path, args: &[&str]) -> (i32, String, String) {
    let out = run(args.iter().copied().chain(["--db", arg(db)]));
    (out.code, out.stdout, out.stderr)
}

const NO_INDEX: &str = "pgnindex: error: this database has no position index (imported with \
                        --no-positions): position searches need one; re-import without \
                        --no-positions\n";

#[test]
fn a_database_without_a_position_index_refuses_position_searches() {
    let dir = scratch();
    let db = dir.join("t.db");
    import(&db, &["--quiet", "--no-positions", arg(&games_dir())]).success();
    for args in [
        &["find", "--moves", "1. e4 c5", "--count"][..],
        &["find", "--moves", "1. e4 c5"],
        &["find", "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", "--count"],
        &["explore"],
        &["explore", "--moves", "1. d4", "--min-elo", "2000"],
        &["export", "--moves", "1. e4"],
        &["delete", "--moves", "1. e4"],
    ] {
        assert_eq!(ask(&db, args), (1, String::new(), NO_INDEX.to_string()), "{args:?}");
    }
    // Searches by header need no position index.
    assert_eq!(ask(&db, &["find", "--count"]), (0, "1091\n".into(), String::new()));
    let (code, info, _) = ask(&db, &["info"]);
    assert_eq!(code, 0);
    assert!(info.contains("\nindex      none (imported with --no-positions)\n"), "{info}");
}

#[test]
fn a_position_beyond_a_limited_index_is_refused_and_others_carry_a_note() {
    let dir = scratch();
    let (db, full) = (dir.join("t.db"), dir.join("full.db"));
    // Games from the standard start only.
    let inputs = ["chesscom", "lichess", "otb"].map(|d| games_dir().join(d));
    let inputs: Vec<&str> = inputs.iter().map(|p| arg(p)).collect();
    import(&db, &[&["--quiet", "--max-ply", "4"][..], &inputs].concat()).success();
    import(&full, &[&["--quiet"][..], &inputs].concat()).success();
    let ruy_lopez = ["find", "--moves", "1. e4 e5 2. Nf3 Nc6 3. Bb5", "--count"];
    let (code, out, err) = ask(&db, &ruy_lopez);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            1,
            "",
            "pgnindex: error: this database's position index stops at ply 4 (imported with \
             --max-ply 4), and this position takes at least 5 plies from the standard start: \
             re-import without --max-ply, or with a larger one\n"
        )
    );
    // Within the index: answered, with a note that games reaching the
    // position later (by another move order) are not counted.
    let note = "pgnindex: note: 4 of 4 sources are indexed up to ply 4 only (--max-ply 4): \
                games that reach the position later are not counted\n";
    let sicilian = ["find", "--moves", "1. e4 c5", "--count"];
    let (code, out, err) = ask(&db, &sicilian);
    assert_eq!((code, err.as_str()), (0, note));
    assert_eq!(out, ask(&full, &sicilian).1);
    let (code, _, err) = ask(&db, &["explore", "--moves", "1. e4"]);
    assert_eq!((code, err.as_str()), (0, note));
    let (code, info, _) = ask(&db, &["info"]);
    assert_eq!(code, 0);
    assert!(info.contains("\nindex      up to ply 4 (imported with --max-ply 4)\n"), "{info}");

    // A game from a FEN start may be at the position within its index:
    // counted, with the reason the others are not.
    let from_fen = dir.write(
        "from-fen.pgn",
        "[FEN \"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\"]\n\
         [SetUp \"1\"]\n\n3. Bb5 a6 *\n",
    );
    import(&db, &["--quiet", "--max-ply", "4", arg(&from_fen)]).success();
    let (code, out, err) = ask(&db, &ruy_lopez);
    assert_eq!((code, out.as_str()), (0, "1\n"), "{err}");
    assert_eq!(
        err,
        "pgnindex: note: 5 of 5 sources are indexed up to ply 4 only (--max-ply 4): games that \
         reach the position later are not counted; this position takes at least 5 plies from \
         the standard start: only games that start from a FEN tag can be counted\n"
    );
}

#[test]
fn a_mixed_database_answers_with_a_note_naming_what_is_left_out() {
    let dir = scratch();
    let db = dir.join("t.db");
    import(&db, &["--quiet", "--no-positions", arg(&twic())]).success();
    let lichess = games_dir().join("lichess");
    import(&db, &["--quiet", arg(&lichess)]).success();
    let (code, out, err) = ask(&db, &["find", "--moves", "1. e4", "--count"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err,
        "pgnindex: note: 1 of 3 sources has no position index (--no-positions): \
         its 232 games are not counted\n"
    );
    let full = dir.join("full.db");
    import(&full, &["--quiet", arg(&lichess)]).success();
    assert_eq!(out, ask(&full, &["find", "--moves", "1. e4", "--count"]).1);
    let (_, info, _) = ask(&db, &["info"]);
    assert!(
        info.contains("\nindex      mixed: 2 sources every position, 1 none (--no-positions)\n"),
        "{info}"
    );
    let (_, json, _) = ask(&db, &["info", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let first = &v["sources"][0];
    assert_eq!(
        (first["positions_indexed"].as_bool(), first["max_ply"].as_u64()),
        (Some(false), None)
    );
    let second = &v["sources"][1];
    assert_eq!(
        (second["positions_indexed"].as_bool(), second["max_ply"].as_u64()),
        (Some(true), None)
    );
}
