//! `pgnindex import` given what it cannot use: each misuse gets a one-line
//! error and a non-zero exit with nothing written, or the right answer.

use crate::common;

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
    let error = "games.pgn:7:13: game 2: 2. Ke3: illegal move";
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
            "pgnindex: error: {}: no PGN files (.pgn, .pgn.gz, .pgn.zst, .pgn.bz2, .pgn.xz) below it\n",
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
            "pgnindex: error: {}, {}: no PGN files (.pgn, .pgn.gz, .pgn.zst, .pgn.bz2, .pgn.xz) below them\n",
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

#[test]
fn a_database_given_as_an_input_is_refused_with_a_hint_and_nothing_is_created() {
    let dir = scratch();
    let pgn = dir.write("games.pgn", BAD_SECOND.replace("Ke3", "Ke2"));
    let db = dir.join("my.db");
    import(&db, &[arg(&pgn)]).success();
    // `--db` forgotten: the database is the first input.
    let run = common::command()
        .current_dir(dir.path())
        .args(["import", "my.db", "games.pgn"])
        .output()
        .unwrap();
    let run = common::Run::from(run);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "pgnindex: error: my.db is a SQLite database, not PGN: did you mean --db my.db?\n"
    );
    assert!(!dir.join("pgnindex.db").exists());
    // Other binary files named on the command line: refused, nothing created.
    let other = dir.join("other.db");
    let elf = dir.write("program.pgn", b"\x7fELF\x02\x01\x01\x00 and more bytes");
    let pdf = dir.write("paper.pgn", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n");
    for (file, what) in [(&elf, "an ELF executable"), (&pdf, "a PDF document")] {
        let run = import(&other, &[arg(&pgn), arg(file)]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert_eq!(run.stderr, format!("pgnindex: error: {} is {what}, not PGN\n", file.display()));
        assert!(!other.exists());
    }
    // Found below a directory, they are left out with a warning.
    let games = dir.join("games");
    std::fs::create_dir(&games).unwrap();
    std::fs::copy(&pgn, games.join("a.pgn")).unwrap();
    std::fs::copy(&db, games.join("b.pgn")).unwrap();
    std::fs::copy(&elf, games.join("c.pgn")).unwrap();
    let run = import(&other, &[arg(&games)]).success();
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stderr);
    assert_eq!(
        lines[..2],
        [
            format!(
                "pgnindex: warning: {} is a SQLite database, not PGN; skipped",
                games.join("b.pgn").display()
            ),
            format!(
                "pgnindex: warning: {} is an ELF executable, not PGN; skipped",
                games.join("c.pgn").display()
            ),
        ]
    );
    assert!(lines[2].contains(": 3 games imported"), "{}", lines[2]);
    assert!(lines[2].contains("; 2 files skipped (not PGN)"), "{}", lines[2]);
    let white: Vec<String> = column(&open(&other), "SELECT white FROM games ORDER BY id");
    assert_eq!(white, ["a", "b", "c"]);
    // `check` reads inputs the same way.
    let run = common::run(["check", "--threads", "1", arg(&db)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!("pgnindex: error: {} is a SQLite database, not PGN\n", db.display())
    );
}

/// `data` compressed with xz.
fn xz(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = xz2::write::XzEncoder::new(Vec::new(), 6);
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn xz_files_are_read_and_other_compressions_are_refused_by_name() {
    let dir = scratch();
    let text = BAD_SECOND.replace("Ke3", "Ke2");
    // Two xz streams one after the other, as `xz` appends them.
    let mut bytes = xz(&text.as_bytes()[..40]);
    bytes.extend(xz(&text.as_bytes()[40..]));
    let games = dir.join("games");
    std::fs::create_dir(&games).unwrap();
    let file = dir.write("games/a.PGN.XZ", bytes);
    let db = dir.join("t.db");
    let run = import(&db, &[arg(&games)]).success();
    assert!(run.stderr.contains(": 3 games imported, 0 duplicates, 0 errors"), "{}", run.stderr);
    let white: Vec<String> = column(&open(&db), "SELECT white FROM games ORDER BY id");
    assert_eq!(white, ["a", "b", "c"]);
    let run = common::run(["check", arg(&file)]).success();
    assert!(run.stdout.starts_with("games 3, ok 3,"), "{}", run.stdout);

    let other = dir.join("other.db");
    for (name, bytes, what) in [
        (
            "g.pgn.7z",
            &b"7z\xbc\xaf\x27\x1c\x00\x04 and more"[..],
            "a 7-Zip archive, not PGN: extract it first",
        ),
        ("g.pgn.rar", b"Rar!\x1a\x07\x01\x00 and more", "a RAR archive, not PGN: extract it first"),
        (
            "g.pgn.zip",
            b"PK\x03\x04\x14\x00\x00\x00 and more",
            "a zip archive, not PGN: extract it first",
        ),
        (
            "g.pgn.lz4",
            b"\x04\x22\x4d\x18\x64\x40\xa7 and more",
            "LZ4-compressed, not PGN: decompress it first",
        ),
        (
            "g.pgn.Z",
            b"\x1f\x9d\x90\x5b\x45 and more",
            "compressed with compress (.Z), not PGN: decompress it first",
        ),
    ] {
        let path = dir.write(name, bytes);
        let run = import(&other, &[arg(&path)]);
        assert_eq!(run.code, 2, "{name}: {}", run.stderr);
        assert_eq!(run.stderr, format!("pgnindex: error: {} is {what}\n", path.display()));
        assert!(!other.exists(), "{name}");
    }
}

#[test]
fn the_summary_agrees_in_number_and_counts_warnings() {
    let dir = scratch();
    let one = dir.write("one.pgn", "[White \"a\"]\n\n1. e4 e5 2. Ke3 *\n");
    let db = dir.join("t.db");
    let run = import(&db, &["--no-positions", arg(&one)]).success();
    let summary = run.stderr.lines().last().unwrap();
    assert!(
        summary.starts_with("1 file: 1 game imported, 0 duplicates, 1 error, 0 positions in "),
        "{summary}"
    );
    // Text skipped between games is a warning: the summary says so.
    let slip = dir.write(
        "slip.pgn",
        "[White \"b\"]\n\n1. d4 d5 *\n\njunk } here\n\n[White \"c\"]\n\n1. c4 *\n",
    );
    let run = import(&db, &[arg(&slip)]).success();
    let summary = run.stderr.lines().last().unwrap();
    assert!(
        summary.starts_with(
            "1 file: 2 games imported, 0 duplicates, 0 errors, 1 warning, 5 positions in "
        ),
        "{summary}"
    );
    assert_eq!(count(&open(&db), "SELECT count(*) FROM import_errors WHERE kind = 'warning'"), 1);
}

#[test]
fn a_database_that_cannot_be_created_says_why_in_one_line() {
    let dir = scratch();
    let pgn = dir.write("games.pgn", BAD_SECOND.replace("Ke3", "Ke2"));
    let db = dir.join("missing/t.db");
    let run = import(&db, &[arg(&pgn)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "pgnindex: error: {}: cannot create the database: No such file or directory (os error 2)\n",
            db.display()
        )
    );
    let file = dir.write("file", "");
    let db = file.join("t.db");
    let run = import(&db, &[arg(&pgn)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "pgnindex: error: {}: cannot create the database: Not a directory (os error 20)\n",
            db.display()
        )
    );
}

/// Segment table names are read from the database and spliced into SQL
/// text: a database whose bookkeeping names something else (made by hand,
/// or by someone else) is refused in one line, and the text never runs.
#[test]
fn a_segment_name_that_is_not_ours_is_refused_and_never_run() {
    let dir = scratch();
    let first = dir.write("a.pgn", "[White \"a\"]\n\n1. e4 e5 *\n");
    let second = dir.write("b.pgn", "[White \"b\"]\n\n1. d4 d5 *\n");
    let db = dir.join("t.db");
    import(&db, &[arg(&first)]).success();
    let canary = dir.join("canary.db");
    let crafted =
        format!("positions_000001; ATTACH '{}' AS c; CREATE TABLE c.t (x); --", canary.display());
    open(&db).execute("UPDATE position_segments SET name = ?1", [&crafted]).unwrap();
    let run = import(&db, &[arg(&second)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("is not the name of a pgnindex positions segment"),
        "{}",
        run.stderr
    );
    assert!(!canary.exists(), "the crafted name ran as SQL");
}

/// `len` bytes of a fixed pseudo-random sequence (xorshift).
fn random_bytes(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}

#[test]
fn binary_data_is_refused_with_its_offset_and_nothing_is_stored() {
    let dir = scratch();
    let noise = random_bytes(5 << 20);
    let first_nul = noise.iter().position(|&b| b == 0).unwrap();
    let bin = dir.write("noise.pgn", &noise);
    let gz = dir.write("noise.pgn.gz", common::gzip(&noise));
    for (input, name) in [(&bin, "noise.pgn"), (&gz, "noise.pgn.gz")] {
        let db = dir.join(format!("{name}.db"));
        let run = import(&db, &[arg(input)]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert_eq!(
            run.stderr.lines().find(|l| l.contains("error")).unwrap_or_default(),
            format!(
                "pgnindex: error: {}: binary data, not PGN text: a NUL byte at byte {first_nul}",
                input.display()
            ),
            "{}",
            run.stderr
        );
        assert!(!db.exists(), "{name}: no database is left behind");
    }
    // A database that existed before stays, with what it held.
    let kept = dir.join("kept.db");
    let game = dir.write("game.pgn", b"[White \"a\"]\n\n1. e4 e5 *\n");
    import(&kept, &[arg(&game)]).success();
    assert_eq!(import(&kept, &[arg(&gz)]).code, 2);
    assert_eq!(count(&open(&kept), "SELECT count(*) FROM games"), 1);
    // UTF-16 text is named as such.
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain("[White \"a\"]\n\n1. e4 *\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let wide = dir.write("wide.pgn", &utf16);
    let run = import(&dir.join("wide.db"), &[arg(&wide)]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("UTF-16 text: convert it to UTF-8"), "{}", run.stderr);
    // A few escape bytes in a tag are text, and a binary file in a
    // directory is left out with a warning.
    let shelf = dir.join("shelf");
    std::fs::create_dir(&shelf).unwrap();
    std::fs::write(shelf.join("noise.pgn"), &noise).unwrap();
    std::fs::write(shelf.join("game.pgn"), "[Event \"\x1b[31m\x07\"]\n\n1. e4 e5 *\n").unwrap();
    let db = dir.join("shelf.db");
    let run = import(&db, &[arg(&shelf)]).success();
    assert!(run.stderr.contains("noise.pgn: binary data, not PGN text"), "{}", run.stderr);
    assert_eq!(count(&open(&db), "SELECT count(*) FROM games"), 1);
}

#[test]
fn text_without_a_game_is_an_error_and_an_empty_file_a_warning() {
    let dir = scratch();
    let text = dir.write("notes.pgn", b"root:x:0:0:root:/root:/bin/bash\nnot a game at all\n");
    let empty = dir.write("empty.pgn", b"");
    let db = dir.join("text.db");
    let run = import(&db, &[arg(&text)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("pgnindex: error: {}: no PGN game in it", text.display())),
        "{}",
        run.stderr
    );
    assert!(!db.exists(), "a first import that stores nothing leaves no database");
    let run = import(&db, &[arg(&empty)]).success();
    assert!(
        run.stderr
            .contains(&format!("pgnindex: warning: {}: empty, no game in it", empty.display())),
        "{}",
        run.stderr
    );
    assert!(!db.exists());
    // Beside good games: those are stored, the text is still an error,
    // and it is not recorded as imported (once fixed, it is read).
    let game = dir.write("game.pgn", b"[White \"a\"]\n\n1. e4 e5 *\n");
    let run = import(&db, &[arg(&game), arg(&text), arg(&empty)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(count(&open(&db), "SELECT count(*) FROM games"), 1);
    std::fs::write(&text, b"[White \"b\"]\n\n1. d4 d5 *\n").unwrap();
    import(&db, &[arg(&text)]).success();
    assert_eq!(count(&open(&db), "SELECT count(*) FROM games"), 2);
}
