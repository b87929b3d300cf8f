//! The `pgnindex` binary run end to end in throw-away directories.

use crate::common;

use common::{arg, fixture, gzip, pgnindex, run, scratch, twic};
use predicates::prelude::*;
use similar_asserts::assert_eq;

#[test]
fn perft_counts_and_divides() {
    pgnindex().args(["perft", "startpos", "3"]).assert().success().stdout("8902\n");
    let text = run([
        "perft",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -",
        "2",
        "--divide",
    ])
    .success()
    .stdout;
    assert_eq!(text.lines().filter(|l| l.contains(' ')).count(), 48);
    assert!(text.lines().any(|l| l == "e1g1 43"), "castling written as e1g1");
    assert!(text.trim_end().ends_with("2039"));
}

#[test]
fn perft_rejects_bad_fen_with_one_line() {
    pgnindex()
        .args(["perft", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq -", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "side-to-move field: expected 'w' or 'b', found 'x' at column 45",
        ))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
}

#[test]
fn perft_refuses_a_fen_without_its_four_position_fields() {
    // A placement alone would otherwise be counted as White to move
    // without castling rights: a count of some other position.
    pgnindex()
        .args(["perft", "r3k2r/8/8/8/8/8/8/R3K2R", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "1 of the 4 position fields; the side-to-move, castling and en-passant fields are missing",
        ))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    // Four fields, as in EPD, are a whole position.
    pgnindex()
        .args(["perft", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq -", "1"])
        .assert()
        .success()
        .stdout("26\n");
}

#[test]
fn fens_prints_one_line_per_game() {
    let fools_mate = fixture("pgn/edge/pgn-extract/fools-mate.pgn");
    assert_eq!(
        run(["fens", arg(&fools_mate)]).success().stdout,
        "1\t4\trnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n"
    );
}

#[test]
fn fens_every_ply_lists_positions_and_keys() {
    let fools_mate = fixture("pgn/edge/pgn-extract/fools-mate.pgn");
    let text = run(["fens", "--every-ply", arg(&fools_mate)]).success().stdout;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(
        lines[0],
        "1\t0\trnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\t463b96181691fc9c"
    );
}

#[test]
fn fens_reports_errors_in_a_fourth_column() {
    let dir = scratch();
    let path = dir
        .write("bad.pgn", "[Event \"x\"]\n\n1. e4 e5 2. Nf4 Nc6 *\n\n[Event \"y\"]\n\n1. d4 *\n");
    let text = run(["fens", arg(&path)]).success().stdout;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    let cols: Vec<&str> = lines[0].split('\t').collect();
    assert_eq!(cols[1], "2");
    assert_eq!(
        cols[3],
        format!(
            "error: {}:3:13: 2. Nf4: illegal move: no white knight can go to f4",
            path.display()
        )
    );
    assert!(lines[1].starts_with("2\t1\t"));
}

#[test]
fn check_exit_codes() {
    pgnindex()
        .args(["check", arg(&twic())])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("games 232, ok 232, with errors 0"));
    let dir = scratch();
    let path = dir.write("bad.pgn", "1. e4 e5 2. Ke3 *\n");
    pgnindex()
        .args(["check", arg(&path)])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(":1:13: 2. Ke3: illegal move"));
    pgnindex()
        .args(["check", arg(&dir.join("missing.pgn"))])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.pgn"));
}

#[test]
fn check_reads_directories_and_compressed_files() {
    let dir = scratch();
    let text = std::fs::read(fixture("pgn/edge/pgn-extract/fools-mate.pgn")).unwrap();
    dir.write("a.PGN", &text);
    dir.write("b.pgn.gz", gzip(&text));
    dir.write("notes.txt", "not a pgn");
    pgnindex()
        .args(["check", arg(dir.path())])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("games 2, ok 2"));
}

#[test]
fn stdin_is_read_with_dash() {
    pgnindex()
        .args(["fens", "-"])
        .write_stdin("1. e4 e5 *\n")
        .assert()
        .success()
        .stdout("1\t2\trnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n");
}

#[test]
fn output_is_the_same_for_any_thread_count() {
    // About 3 MB: several 1 MB chunks for the workers.
    let dir = scratch();
    let big = dir.write("big.pgn", std::fs::read(twic()).unwrap().repeat(15));
    let fens = |threads: &str| {
        run(["fens", "--every-ply", "--threads", threads, arg(&big)]).success().stdout
    };
    let single = fens("1");
    assert_eq!(single.lines().filter(|l| l.split('\t').nth(1) == Some("0")).count(), 232 * 15);
    assert_eq!(fens("2"), single, "--threads 2 differs from --threads 1");
    assert_eq!(fens("3"), single, "--threads 3 differs from --threads 1");
}

#[test]
fn a_tag_value_with_a_stray_quote_is_kept_with_a_warning() {
    let dir = scratch();
    let pgn = "[Event \"e\"]\n[TimeControl \"90' + 30' & 30\"\"]\n\n1. e4 e5 *\n";
    let path = dir.write("stray.pgn", pgn);
    let file = arg(&path);
    let checked = run(["check", file]).success();
    assert_eq!(
        checked.stdout.lines().next(),
        Some(format!("{file}:2:29: warning: stray '\"' kept in a tag value").as_str())
    );
    let db = dir.join("stray.db");
    let db = arg(&db);
    common::import(db.as_ref(), &["--quiet", file]).success();
    let sql = |query: &str| -> serde_json::Value {
        let out = run(["sql", "--db", db, "--format", "json", query]).success().stdout;
        serde_json::from_str(&out).unwrap()
    };
    assert_eq!(
        sql("SELECT time_control, event, moves FROM games"),
        serde_json::json!([{"time_control": "90' + 30' & 30\"", "event": "e", "moves": "e4 e5"}])
    );
    assert_eq!(
        sql("SELECT kind, line, \"column\", message FROM import_errors"),
        serde_json::json!([
            {"kind": "warning", "line": 2, "column": 29, "message": "stray '\"' kept in a tag value"}
        ])
    );
    // Written back escaped, it reads back without a warning.
    let exported = run(["export", "--db", db]).success().stdout;
    assert!(exported.contains("[TimeControl \"90' + 30' & 30\\\"\"]\n"), "{exported}");
    let again = dir.write("again.pgn", &exported);
    let checked = run(["check", arg(&again)]).success();
    assert!(checked.stdout.starts_with("games 1, ok 1,"), "{}", checked.stdout);
}

/// A game of 20 plies, each with its clock, in lichess's form, with
/// `variation` after the first move.
fn clocked_game(event: &str, variation: &str) -> String {
    let moves = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7";
    let mut text = format!("[Event \"{event}\"]\n[Result \"*\"]\n\n");
    for (i, san) in moves.split(' ').enumerate() {
        let number = i / 2 + 1;
        let seconds = 300 - 3 * i;
        let clock = format!("{{ [%clk 0:{:02}:{:02}] }}", seconds / 60, seconds % 60);
        match i {
            0 => text += &format!("{number}. {san} {clock} {variation} "),
            _ if i % 2 == 0 => text += &format!("{number}. {san} {clock} "),
            _ => text += &format!("{number}... {san} {clock} "),
        }
    }
    text + "*\n\n"
}

#[test]
fn export_keeps_each_comment_on_one_line() {
    let dir = scratch();
    // Written back from the clocks, and kept as written (a `;` comment).
    let pgn = clocked_game("back", "") + &clocked_game("kept", "; a line comment\n");
    let path = dir.write("clocks.pgn", &pgn);
    let db = dir.join("clocks.db");
    common::import(&db, &["--quiet", arg(&path)]).success();
    let stored = |db: &std::path::Path| {
        let sql = "SELECT event, movetext IS NULL FROM games ORDER BY id";
        run(["sql", "--db", arg(db), "--format", "csv", sql]).success().stdout
    };
    assert_eq!(stored(&db), "event,movetext IS NULL\nback,1\nkept,0\n");
    let exported = run(["export", "--db", arg(&db)]).success().stdout;
    for id in ["1", "2"] {
        let shown = run(["show", "--db", arg(&db), id]).success().stdout;
        assert!(exported.contains(&shown), "{shown}");
        let movetext = shown.split("\n\n").nth(1).unwrap();
        assert!(movetext.lines().count() > 3, "{movetext}");
        for line in movetext.lines() {
            assert!(line.chars().count() <= 80, "{movetext}");
            // Every comment whole on its line, as `{ [%clk H:MM:SS] }`.
            assert_eq!(line.matches("{ [%clk 0:0").count(), line.matches("] }").count(), "{line}");
            assert_eq!(line.matches('{').count(), line.matches('}').count(), "{line}");
        }
        assert!(movetext.starts_with("1. e4 { [%clk 0:05:00] } "), "{movetext}");
    }
    // Exported and imported again: the same games, exported the same; the
    // `;` comment came back as a brace comment, kept by move.
    let again = dir.write("again.pgn", &exported);
    let db2 = dir.join("again.db");
    common::import(&db2, &["--quiet", arg(&again)]).success();
    assert_eq!(stored(&db2), "event,movetext IS NULL\nback,1\nkept,1\n");
    assert_eq!(run(["export", "--db", arg(&db2)]).success().stdout, exported);
}

#[test]
fn a_truncated_gzip_names_its_offset_in_the_decompressed_stream() {
    let dir = scratch();
    let text = std::fs::read(twic()).unwrap();
    let compressed = gzip(&text);
    let cut = &compressed[..compressed.len() / 2];
    let path = dir.write("cut.pgn.gz", cut);
    let file = arg(&path);
    let db = dir.join("cut.db");
    let imported = common::import(&db, &["--quiet", file]);
    let checked = run(["check", file]);
    for out in [imported, checked] {
        assert_eq!(out.code, 2, "{}", out.stderr);
        let prefix = format!("pgnindex: error: {file}: corrupt gzip data at byte ");
        let line = out.stderr.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| {
            panic!("{}", out.stderr);
        });
        let (offset, rest) = line[prefix.len()..].split_once(' ').unwrap();
        let offset: usize = offset.parse().unwrap();
        // Past the compressed file's end: an offset in what it decompresses to.
        assert!(offset > cut.len() && offset < text.len(), "{line}");
        assert!(rest.starts_with("of the decompressed stream: "), "{line}");
    }
}
