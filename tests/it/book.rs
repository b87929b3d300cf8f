//! `pgnindex book`: Polyglot books checked against `polyglot make-book`
//! and python-chess, `--probe`, and the errors.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{self, arg, fixture, run, scratch, Scratch};

/// Real over-the-board games, all from the standard start: polyglot
/// reads nothing else.
fn otb_games(dir: &Scratch) -> PathBuf {
    let text =
        [fixture("serve/carlsen-otb-150.pgn"), fixture("pgn/games/otb/twic-01-232games.pgn")]
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect::<Vec<_>>()
            .join("\n");
    dir.write("otb.pgn", text)
}

fn imported(dir: &Scratch, pgn: &Path) -> PathBuf {
    let db = dir.join("games.db");
    if !db.exists() {
        common::import(&db, &["--quiet", "--keep-duplicates", arg(pgn)]).success();
    }
    db
}

/// A book's entries as (key, move, weight, learn), those of one key and
/// weight put in move order: polyglot's sort leaves their order open.
fn entries(path: &Path) -> Vec<(u64, u16, u16, u32)> {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(bytes.len() % 16, 0, "{}", path.display());
    let mut entries: Vec<(u64, u16, u16, u32)> = bytes
        .chunks_exact(16)
        .map(|e| {
            (
                u64::from_be_bytes(e[..8].try_into().unwrap()),
                u16::from_be_bytes([e[8], e[9]]),
                u16::from_be_bytes([e[10], e[11]]),
                u32::from_be_bytes(e[12..].try_into().unwrap()),
            )
        })
        .collect();
    let file_order: Vec<u64> = entries.iter().map(|e| e.0).collect();
    assert!(file_order.is_sorted(), "{}: keys out of order", path.display());
    entries.sort_by_key(|&(key, mv, weight, _)| (key, std::cmp::Reverse(weight), mv));
    entries
}

fn book(db: &Path, out: &Path, options: &[&str]) {
    let mut args = vec!["book", "--db", arg(db), "-o", arg(out)];
    args.extend_from_slice(options);
    run(args).success();
}

/// polyglot's options for ours.
fn polyglot_options(options: &[&str]) -> Vec<String> {
    options
        .iter()
        .map(|o| match *o {
            "--min-games" => "-min-game".to_string(),
            other => other.strip_prefix('-').unwrap_or(other).to_string(),
        })
        .collect()
}

#[test]
fn a_book_is_the_one_polyglot_make_book_writes_from_the_same_games() {
    let Some(polyglot) = common::polyglot() else { return };
    let dir = scratch();
    let pgn = otb_games(&dir);
    let db = imported(&dir, &pgn);
    let cases: [&[&str]; 6] = [
        &["--max-ply", "1024"],
        &["--max-ply", "16", "--min-games", "1"],
        &["--max-ply", "30", "--min-score", "60"],
        &["--max-ply", "20", "--only-white", "--uniform"],
        &["--max-ply", "20", "--only-black", "--min-games", "2"],
        &["--max-ply", "1024", "--min-games", "1"],
    ];
    for options in cases {
        let ours = dir.join("ours.bin");
        let theirs = dir.join("theirs.bin");
        book(&db, &ours, options);
        let out = Command::new(&polyglot)
            .args(["make-book", "-pgn", arg(&pgn), "-bin", arg(&theirs)])
            .args(polyglot_options(options))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
        let (ours, theirs) = (entries(&ours), entries(&theirs));
        assert!(ours.len() > 100, "{options:?}: {} entries", ours.len());
        assert_eq!(ours.len(), theirs.len(), "{options:?}");
        let first = ours.iter().zip(&theirs).find(|(a, b)| a != b);
        assert_eq!(first, None, "{options:?}: the first entry that differs");
    }
}

#[test]
fn a_filtered_book_is_polyglots_book_of_the_exported_games() {
    let Some(polyglot) = common::polyglot() else { return };
    let dir = scratch();
    let db = imported(&dir, &otb_games(&dir));
    let filters = ["--min-elo", "2600", "--result", "1-0"];
    let ours = dir.join("ours.bin");
    book(&db, &ours, &[&filters[..], &["--max-ply", "12", "--min-games", "2"]].concat());
    let exported = dir.join("wins.pgn");
    let mut export = vec!["export", "--db", arg(&db), "-o", arg(&exported)];
    export.extend_from_slice(&filters);
    run(export).success();
    let theirs = dir.join("theirs.bin");
    let out = Command::new(&polyglot)
        .args(["make-book", "-pgn", arg(&exported), "-bin", arg(&theirs)])
        .args(["-max-ply", "12", "-min-game", "2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let ours = entries(&ours);
    assert!(ours.len() > 20, "{} entries", ours.len());
    assert_eq!(ours, entries(&theirs));
}

fn python_reference(pgn: &Path, book: &Path, options: &[&str]) {
    let Some(python) = common::python_with("chess") else { return };
    let out = python
        .command()
        .arg(common::repo("tests/book_reference.py"))
        .args([arg(pgn), arg(book)])
        .args(options)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{options:?}: {stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.starts_with("ok: "), "{stdout}");
}

#[test]
fn python_chess_reads_the_book_and_finds_what_the_rules_give() {
    if common::python_with("chess").is_none() {
        return;
    }
    let dir = scratch();
    let pgn = otb_games(&dir);
    let db = imported(&dir, &pgn);
    let cases: [&[&str]; 3] = [
        &[],
        &["--max-ply", "24", "--min-games", "1", "--only-black"],
        &["--max-ply", "40", "--min-score", "55", "--uniform"],
    ];
    for options in cases {
        let out = dir.join("book.bin");
        book(&db, &out, options);
        python_reference(&pgn, &out, options);
    }
}

#[test]
fn chess960_and_setup_games_add_their_positions_under_their_keys() {
    if common::python_with("chess").is_none() {
        return;
    }
    let dir = scratch();
    let text = [
        "pgn/edge/python-chess/cutechess-fischerrandom.pgn",
        "pgn/edge/pgn-extract/test-setup-in.pgn",
    ]
    .iter()
    .map(|p| std::fs::read_to_string(fixture(p)).unwrap())
    .collect::<Vec<_>>()
    .join("\n");
    let pgn = dir.write("setups.pgn", text);
    let db = imported(&dir, &pgn);
    let out = dir.join("setups.bin");
    let options = ["--max-ply", "200", "--min-games", "1"];
    book(&db, &out, &options);
    python_reference(&pgn, &out, &options);
    // Each setup that White did not lose: its first move is in the book
    // (a lost game's scores 0, which no book keeps).
    let conn = common::open(&db);
    let starts: Vec<(String, String)> = common::rows(
        &conn,
        "SELECT start_fen, substr(moves, 1, instr(moves || ' ', ' ') - 1) FROM games \
         WHERE start_fen LIKE '% w %' AND result IN ('1-0', '1/2-1/2') AND moves <> '' ORDER BY id",
    );
    assert!(starts.len() >= 2, "{starts:?}");
    for (fen, first) in starts {
        let probe = run(["book", "--probe", arg(&out), "--fen", &fen, "--format", "csv"]).success();
        let moves: Vec<&str> =
            probe.stdout.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
        assert!(moves.contains(&first.as_str()), "{fen}: {}", probe.stdout);
    }
}

#[test]
fn probe_lists_the_moves_counts_tell_the_games() {
    let dir = scratch();
    let db = imported(&dir, &otb_games(&dir));
    let out = dir.join("book.bin");
    let counts = dir.join("counts.csv");
    run(["book", "--db", arg(&db), "-o", arg(&out), "--counts", arg(&counts)]).success();
    let probe =
        run(["book", "--probe", arg(&out), "--moves", "1. e4", "--format", "json"]).success();
    let rows: Vec<serde_json::Value> = serde_json::from_str(&probe.stdout).unwrap();
    assert!(rows.len() >= 3, "{}", probe.stdout);
    let share: f64 = rows.iter().map(|r| r["share_pct"].as_f64().unwrap()).sum();
    assert!((share - 100.0).abs() < 0.5, "{share}");
    let weights: Vec<u64> = rows.iter().map(|r| r["weight"].as_u64().unwrap()).collect();
    assert!(weights.is_sorted_by(|a, b| a >= b), "{weights:?}");
    // The counts of the same moves: the weight is 2 a win of the side
    // that moved (Black here), 1 a draw.
    let csv = std::fs::read_to_string(&counts).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("key,hash,move,book_move,weight,games,white_wins,draws,black_wins")
    );
    let key = "823c9b50fd114196"; // the published Polyglot key after 1. e4
    let rows_after_e4: Vec<Vec<&str>> =
        lines.map(|l| l.split(',').collect::<Vec<_>>()).filter(|f| f[0] == key).collect();
    assert_eq!(rows_after_e4.len(), rows.len(), "{csv}");
    for (json, csv) in rows.iter().zip(&rows_after_e4) {
        assert_eq!(json["move"], csv[2]);
        let n = |i: usize| csv[i].parse::<u64>().unwrap();
        assert_eq!(n(4), 2 * n(8) + n(7), "{csv:?}: weight");
        assert!(n(5) >= n(6) + n(7) + n(8), "{csv:?}");
        assert_eq!(json["weight"].as_u64().unwrap(), n(4));
    }
    // The games of 1. e4 among them, from the database.
    let e4_games = common::count(
        &common::open(&db),
        "SELECT count(*) FROM games WHERE moves LIKE 'e4 %' OR moves = 'e4'",
    );
    let e4_csv = std::fs::read_to_string(&counts)
        .unwrap()
        .lines()
        .find(|l| l.starts_with("463b96181691fc9c,") && l.contains(",e4,"))
        .map(|l| l.split(',').nth(5).unwrap().parse::<i64>().unwrap());
    assert_eq!(e4_csv, Some(e4_games));
    // A table says how many moves it lists.
    let table = run(["book", "--probe", arg(&out), "--moves", "1. e4"]).success();
    assert!(table.stdout.contains(&format!("{} moves in ", rows.len())), "{}", table.stdout);
}

#[test]
fn misuse_and_broken_books_get_one_line_errors() {
    let dir = scratch();
    let db = imported(&dir, &otb_games(&dir));
    let out = dir.join("book.bin");
    let one_line = |args: &[&str], code: i32, says: &str| {
        let r = run(args);
        assert_eq!(r.code, code, "{args:?}: {}", r.stderr);
        assert_eq!(r.stderr.trim_end().lines().count(), 1, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
    };
    one_line(&["book", "--db", arg(&db), "-o", arg(&out), "--max-ply", "0"], 2, "--max-ply");
    one_line(&["book", "--db", arg(&db), "-o", arg(&out), "--min-score", "101"], 2, "--min-score");
    one_line(&["book", "--db", arg(&db), "-o", arg(&out), "--moves", "e4"], 2, "--probe");
    assert!(!out.exists(), "no book is written after an error");
    let short = dir.write("short.bin", [0u8; 20]);
    one_line(&["book", "--probe", arg(&short)], 2, "20 bytes is not a multiple of 16");
    let mut swapped = vec![0u8; 32];
    swapped[0] = 1;
    let swapped = dir.write("swapped.bin", swapped);
    one_line(&["book", "--probe", arg(&swapped)], 2, "entry 1 (byte 16) has a key below");
    one_line(&["book", "--probe", arg(&swapped), "--db", arg(&db)], 2, "--probe reads the book");
    let missing = dir.join("missing.bin");
    one_line(&["book", "--probe", arg(&missing)], 2, "missing.bin");
}
