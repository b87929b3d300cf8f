//! Hostile inputs, faults during an import, and readers during an import,
//! each run on the real binary with its peak memory measured.
//!
//! Inputs are generated here, never committed. By default they are scaled
//! down to keep the suite short; `PGNINDEX_FULL_SIZE=1` runs the full sizes
//! (1 GB line, 100 MB comment, 1 000 000 tags, 50 GB zstd bomb…), as
//! `benches/reliability.sh` does. Every run prints one line
//! (`reliability: …`) with its exit code, time and peak RSS: run with
//! `--nocapture` to see them.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;

use common::{
    arg, bin, column, command, count, games_dir, gzip, import_command, integrity, open, scratch,
    text_rows, twic, xorshift, Run, Scratch,
};
use rusqlite::{Connection, OpenFlags};

/// Whether to run the full sizes rather than the CI ones.
fn full_size() -> bool {
    std::env::var_os("PGNINDEX_FULL_SIZE").is_some_and(|v| v != "0")
}

/// `full` with `PGNINDEX_FULL_SIZE`, else `ci`.
fn size(full: u64, ci: u64) -> u64 {
    if full_size() {
        full
    } else {
        ci
    }
}

const MIB: u64 = 1 << 20;

/// Runs `command` to the end with its output in files; what it did and its
/// peak RSS in MiB. Prints a `reliability:` line named `what`.
///
/// The peak comes from GNU time (`/usr/bin/time -f %M`), which forks
/// before it runs the command: `wait4` on a child of this process would
/// count this process's own memory, shared by the child until its `exec`.
/// Without GNU time that upper bound is what is reported.
#[allow(clippy::zombie_processes, reason = "reaped by wait4")]
fn measure(what: &str, command: &mut Command) -> (Run, u64) {
    let out = tempfile::tempfile().unwrap();
    let err = tempfile::tempfile().unwrap();
    let rss_file = tempfile::NamedTempFile::new().unwrap();
    let time = Path::new("/usr/bin/time");
    let mut command = if time.exists() {
        let mut timed = Command::new(time);
        timed.arg("-f").arg("%M").arg("-o").arg(rss_file.path());
        timed.arg(command.get_program()).args(command.get_args());
        for (key, value) in command.get_envs() {
            match value {
                Some(value) => timed.env(key, value),
                None => timed.env_remove(key),
            };
        }
        timed
    } else {
        std::mem::replace(command, Command::new("true"))
    };
    let started = Instant::now();
    let child = command
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(err.try_clone().unwrap())
        .spawn()
        .unwrap();
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    let pid = child.id() as libc::pid_t;
    // SAFETY: waits for our own child, whose Child handle is not used again.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    let seconds = started.elapsed().as_secs_f64();
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    let read = |mut file: File| {
        use std::io::{Read, Seek};
        let mut text = String::new();
        file.seek(std::io::SeekFrom::Start(0)).unwrap();
        file.read_to_string(&mut text).unwrap();
        text
    };
    let timed_kib = std::fs::read_to_string(rss_file.path())
        .ok()
        .and_then(|text| text.lines().last()?.trim().parse::<u64>().ok());
    let rss_mib = timed_kib.unwrap_or(usage.ru_maxrss as u64) / 1024;
    eprintln!("reliability: {what}: exit {code}, {seconds:.1} s, peak RSS {rss_mib} MiB");
    (Run { code, stdout: read(out), stderr: read(err) }, rss_mib)
}

/// `pgnindex import --db DB ARGS…`, measured.
fn import(what: &str, db: &Path, args: &[&str]) -> (Run, u64) {
    measure(what, &mut import_command(db, args))
}

/// Every game has all its positions: no half-stored game.
fn assert_whole_games(conn: &Connection) {
    assert_eq!(count(conn, PARTIAL_GAMES), 0, "games without all their positions");
}

/// Counts the stored games that lack some of their positions (one pass over
/// the positions: `game_id` is no key of the view).
const PARTIAL_GAMES: &str = "SELECT count(*) FROM games g LEFT JOIN \
     (SELECT game_id, count(*) AS n FROM positions GROUP BY game_id) p ON p.game_id = g.id \
     WHERE g.ply_count + 1 <> coalesce(p.n, 0)";

/// Starts `pgnindex import --db DB ARGS…` in the background (stderr
/// discarded).
fn spawn_import(db: &Path, args: &[&str]) -> std::process::Child {
    import_command(db, args).stderr(Stdio::null()).spawn().unwrap()
}

/// The fixture games as one text.
fn fixture_text() -> String {
    let mut text = String::new();
    for file in ["otb/twic-01-232games.pgn", "chesscom/schmitz874-chesscom-live.pgn"] {
        text += &std::fs::read_to_string(games_dir().join(file)).unwrap();
        text += "\n";
    }
    text
}

/// Writes `total` bytes to `path`, `piece` repeated and the last one cut.
fn write_repeated(path: &Path, piece: &[u8], total: u64) {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path).unwrap());
    let mut left = total;
    while left > 0 {
        let n = left.min(piece.len() as u64) as usize;
        out.write_all(&piece[..n]).unwrap();
        left -= n as u64;
    }
    out.flush().unwrap();
}

/// Counts `[Event ` in `text`: the games of the fixture text.
fn games_in(text: &str) -> u64 {
    text.matches("[Event ").count() as u64
}

// ---------------------------------------------------------------------------
// Adversarial inputs

#[test]
fn a_long_input_without_any_newline() {
    let dir = scratch();
    let text = fixture_text();
    // Every game on one line: tags, moves, comments and all.
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ") + " ";
    let total = size(1 << 30, 48 * MIB);
    let copies = total / line.len() as u64;
    let pgn = dir.join("one-line.pgn");
    write_repeated(&pgn, line.as_bytes(), copies * line.len() as u64);
    let db = dir.join("t.db");
    let (run, rss_mib) = import(
        &format!("{} MiB without a newline", total >> 20),
        &db,
        &["--quiet", "--keep-duplicates", arg(&pgn)],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let conn = open(&db);
    let stored = count(&conn, "SELECT count(*) FROM games") as u64;
    let expected = games_in(&text) * copies;
    // Every game is read: with no line end to cut at, blocks and chunks
    // are cut before the tags that follow a result.
    assert_eq!(stored, expected);
    assert!(rss_mib < 800, "{rss_mib} MiB");
}

#[test]
fn a_hundred_thousand_nested_variations() {
    let dir = scratch();
    let depth = 100_000;
    let mut text = String::from("[Event \"nested\"]\n\n1. e4 ");
    for _ in 0..depth {
        text += "(1. d4 ";
    }
    for _ in 0..depth {
        text += ") ";
    }
    text += "e5 2. Nf3 *\n";
    let pgn = dir.write("nested.pgn", &text);
    let db = dir.join("t.db");
    let (run, rss_mib) = import("100 000 nested variations", &db, &[arg(&pgn)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let conn = open(&db);
    let (plies, error): (i64, Option<String>) = conn
        .query_row("SELECT ply_count, error FROM games", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((plies, error), (3, None));
    // The variations are kept as written after their move, and exported.
    let tails: String = conn.query_row("SELECT tails FROM ply_data", [], |r| r.get(0)).unwrap();
    assert_eq!(tails.matches('(').count(), depth);
    assert!(rss_mib < 200, "{rss_mib} MiB");
    let exported = common::run(["export", "--db", arg(&db)]).success().stdout;
    assert_eq!(exported.matches('(').count(), depth);
}

#[test]
fn a_huge_comment() {
    let dir = scratch();
    let len = size(100 << 20, 16 << 20);
    let pgn = dir.join("comment.pgn");
    let mut out = BufWriter::new(File::create(&pgn).unwrap());
    out.write_all(b"[Event \"comment\"]\n\n1. e4 {").unwrap();
    // Single spaces: the comment is stored as its words.
    let words = b"a long comment, with nothing { special ".to_vec();
    for _ in 0..len / words.len() as u64 {
        out.write_all(&words).unwrap();
    }
    out.write_all(b"} e5 1-0\n\n[Event \"after\"]\n\n1. d4 d5 0-1\n").unwrap();
    out.flush().unwrap();
    drop(out);
    let db = dir.join("t.db");
    let (run, rss_mib) = import(&format!("a {} MiB comment", len >> 20), &db, &[arg(&pgn)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let conn = open(&db);
    // The comment is kept whole: in the movetext, or in `ply_data` for a
    // game stored without one.
    let rows: Vec<(i64, Option<i64>)> = conn
        .prepare(
            "SELECT g.ply_count, length(coalesce(g.movetext, d.comments)) \
             FROM games g LEFT JOIN ply_data d ON d.game_id = g.id ORDER BY g.id",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].0, 2);
    assert!(rows[0].1.unwrap() as u64 >= len - words.len() as u64, "{rows:?}");
    assert_eq!(rows[1].0, 2);
    // The mapped text, the comment read, its stored form, its record and
    // the record's overflow pages can all be resident at once (a 16 MiB
    // comment peaked at 86 to 105 MiB from one run to the next): five
    // times the comment at most, over the process's own.
    assert!(rss_mib < 32 + 5 * (len >> 20), "{rss_mib} MiB");
}

#[test]
fn a_game_longer_than_a_block_in_a_stream_is_reported_and_skipped() {
    let dir = scratch();
    let mut text = b"[Event \"before\"]\n\n1. e4 e5 1-0\n\n[Event \"long\"]\n\n1. e4 {".to_vec();
    let words = b"a long comment, with nothing { special\nand [brackets] ";
    while text.len() < 65 * MIB as usize {
        text.extend_from_slice(words);
    }
    text.extend_from_slice(b"} e5 1-0\n\n[Event \"after\"]\n\n1. d4 d5 2. Ke3 0-1\n");
    let after_line = text.iter().filter(|&&b| b == b'\n').count();
    let gz = dir.join("long.pgn.gz");
    std::fs::write(&gz, gzip(&text)).unwrap();
    drop(text);
    let db = dir.join("t.db");
    let (run, rss_mib) = import("a 65 MiB game in a stream", &db, &[arg(&gz)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("long.pgn.gz:5:1: game 2: game longer than 64 MiB not stored"),
        "{}",
        run.stderr
    );
    // The game after it is read from its first line, its lines counted.
    let bad_move = format!("long.pgn.gz:{after_line}:");
    assert!(run.stderr.contains(&bad_move), "{bad_move} in {}", run.stderr);
    let conn = open(&db);
    let events: Vec<String> = column(&conn, "SELECT event FROM games ORDER BY id");
    assert_eq!(events, ["before", "after"]);
    // Blocks of at most 64 MiB: the one read, the one cut, one waiting.
    assert!(rss_mib < 320, "{rss_mib} MiB");
}

#[test]
fn a_million_tags_in_one_game() {
    let dir = scratch();
    let tags = size(1_000_000, 200_000);
    let pgn = dir.join("tags.pgn");
    let mut out = BufWriter::new(File::create(&pgn).unwrap());
    writeln!(out, "[Event \"tags\"]").unwrap();
    for i in 0..tags - 1 {
        writeln!(out, "[Tag{i} \"value {i}\"]").unwrap();
    }
    out.write_all(b"\n1. e4 e5 *\n").unwrap();
    out.flush().unwrap();
    drop(out);
    let db = dir.join("t.db");
    let (run, rss_mib) = import(&format!("{tags} tags in one game"), &db, &[arg(&pgn)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let conn = open(&db);
    // Event has a column; the others are tag pairs.
    assert_eq!(count(&conn, "SELECT count(*) FROM tags") as u64, tags - 1);
    let last = format!("SELECT value FROM tags WHERE name = 'Tag{}'", tags - 2);
    let value: String = conn.query_row(&last, [], |r| r.get(0)).unwrap();
    assert_eq!(value, format!("value {}", tags - 2));
    assert_eq!(count(&conn, "SELECT ply_count FROM games"), 2);
    assert!(rss_mib < 600, "{rss_mib} MiB");
}

/// A game whose Annotator tag holds `bytes` (quote and backslash escaped).
fn game_with_tag_bytes(bytes: impl Iterator<Item = u8>) -> Vec<u8> {
    let mut pgn = b"[Event \"bytes\"]\n[Annotator \"".to_vec();
    for byte in bytes {
        match byte {
            b'"' | b'\\' => pgn.extend_from_slice(&[b'\\', byte]),
            _ => pgn.push(byte),
        }
    }
    pgn.extend_from_slice(b"\"]\n\n1. e4 e5 *\n");
    pgn
}

#[test]
fn a_tag_value_with_every_byte() {
    let dir = scratch();
    // Every byte but the line ends: kept, one character per byte.
    let path = dir
        .write("bytes.pgn", game_with_tag_bytes((0..=255).filter(|b| !matches!(b, b'\n' | b'\r'))));
    let db = dir.join("t.db");
    let (run, _) = import("a tag value with every byte but line ends", &db, &[arg(&path)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let conn = open(&db);
    assert_eq!(count(&conn, "SELECT count(*) FROM games WHERE ply_count = 2 AND error IS NULL"), 1);
    let value: String = conn
        .query_row("SELECT value FROM tags WHERE name = 'Annotator'", [], |r| r.get(0))
        .unwrap();
    let chars: Vec<char> = value.chars().collect();
    assert_eq!(chars.len(), 254, "one character per byte");
    let ascii: Vec<u8> = (0..0x80u8).filter(|b| !matches!(b, b'\n' | b'\r')).collect();
    assert_eq!(value.as_bytes()[..126], ascii[..], "ASCII as is, NUL included");
    assert_eq!(chars[126], '€', "0x80 read as Windows-1252");
    let latin1: String = (0xA0..=0xFFu8).map(char::from).collect();
    assert!(value.ends_with(&latin1), "0xA0-0xFF read as Latin-1");

    // With the line ends too: a string may not hold a line end (PGN
    // standard, 7), so the tag is malformed; that is reported with its line
    // and the game's moves are still stored.
    std::fs::write(&path, game_with_tag_bytes(0..=255)).unwrap();
    let db = dir.join("t2.db");
    let (run, _) = import("a tag value with every byte", &db, &[arg(&path)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let conn = open(&db);
    let warning = count(
        &conn,
        "SELECT count(*) FROM import_errors WHERE line = 2 AND message LIKE '%malformed tag pair%'",
    );
    assert_eq!(warning, 1, "{}", run.stderr);
    let moves = count(&conn, "SELECT count(*) FROM games WHERE moves = 'e4 e5'");
    assert_eq!(moves, 1);
}

#[test]
fn twenty_thousand_plies() {
    let dir = scratch();
    let plies = 20_000;
    let mut text = String::from("[Event \"long\"]\n[Result \"1/2-1/2\"]\n\n");
    let moves = ["Nf3", "Nf6", "Ng1", "Ng8"];
    for ply in 0..plies {
        if ply % 2 == 0 {
            text += &format!("{}. ", ply / 2 + 1);
        }
        text += moves[ply % 4];
        text += if ply % 12 == 11 { "\n" } else { " " };
    }
    text += "1/2-1/2\n";
    let pgn = dir.write("long.pgn", &text);
    let db = dir.join("t.db");
    let (run, rss_mib) = import("a game of 20 000 plies", &db, &[arg(&pgn)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let conn = open(&db);
    assert_eq!(count(&conn, "SELECT ply_count FROM games"), plies as i64);
    assert_eq!(count(&conn, "SELECT count(*) FROM positions"), plies as i64 + 1);
    // The start position comes back every four plies.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (found, _) = measure(
        "find in a game of 20 000 plies",
        command().args(["find", "--fen", start, "--count", "--db", arg(&db)]),
    );
    assert_eq!((found.code, found.stdout.trim()), (0, "1"), "{}", found.stderr);
    assert!(rss_mib < 200, "{rss_mib} MiB");
}

#[test]
fn truncated_compressed_streams() {
    let dir = scratch();
    let text = fixture_text();
    let gz = gzip(text.as_bytes());
    let zst = zstd::stream::encode_all(text.as_bytes(), 3).unwrap();
    for (name, bytes, kind) in [("cut.pgn.gz", gz, "gzip"), ("cut.pgn.zst", zst, "zstd")] {
        let path = dir.write(name, &bytes[..bytes.len() * 2 / 3]);
        let db = dir.join(format!("{name}.db"));
        let (run, _) = import(&format!("a truncated {kind} stream"), &db, &[arg(&path)]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        let error = run.stderr.lines().find(|l| l.starts_with("pgnindex: error:")).unwrap();
        assert!(error.contains(name) && error.contains(&format!("corrupt {kind} data")), "{error}");
        assert_eq!(integrity(&db), "ok");
        let conn = open(&db);
        let stored = count(&conn, "SELECT count(*) FROM games") as u64;
        assert!(stored > 0 && stored < games_in(&text), "{kind}: {stored}");
        assert_whole_games(&conn);
    }
}

#[test]
fn a_zstd_bomb() {
    let dir = scratch();
    // Frames of 64 MiB of spaces, one after the other: 50 GB from 1.6 MB
    // (640 MiB in CI). (Zeros are refused at once as binary data.)
    let frame = zstd::stream::encode_all(&vec![b' '; 64 << 20][..], 19).unwrap();
    let frames = size(50_000 / 64, 10);
    let path = dir.join("bomb.pgn.zst");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    for _ in 0..frames {
        out.write_all(&frame).unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let expands = frames * 64;
    // With a limit: stopped there.
    let db = dir.join("limited.db");
    let (run, rss_mib) = import(
        &format!("a zstd bomb of {expands} MiB, --max-input-size 256M"),
        &db,
        &["--max-input-size", "256M", arg(&path)],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("larger than the input size limit of 268435456 bytes"),
        "{}",
        run.stderr
    );
    // Blocks of at most 256 MiB when nothing cuts the input.
    assert!(rss_mib < 800, "{rss_mib} MiB");
    // Without: streamed to the end in bounded memory, nothing stored.
    let db = dir.join("unlimited.db");
    let (run, rss_mib) = import(&format!("a zstd bomb of {expands} MiB"), &db, &[arg(&path)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("0 games imported"), "{}", run.stderr);
    assert!(rss_mib < 800, "{rss_mib} MiB");
}

#[test]
fn directories_with_symlink_loops() {
    let dir = scratch();
    let games = dir.join("games");
    std::fs::create_dir_all(games.join("sub")).unwrap();
    std::fs::copy(twic(), games.join("sub/twic.pgn")).unwrap();
    // Links back up the tree, and to themselves.
    std::os::unix::fs::symlink("..", games.join("sub/up")).unwrap();
    std::os::unix::fs::symlink(".", games.join("self")).unwrap();
    std::os::unix::fs::symlink("self-loop.pgn", games.join("self-loop.pgn.d")).unwrap();
    let db = dir.join("t.db");
    let (run, _) = import("a directory with symlink loops", &db, &[arg(&games)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("232 games imported"), "{}", run.stderr);
    // Links with PGN names that loop: named in a one-line error, nothing done.
    std::os::unix::fs::symlink("b.pgn", games.join("a.pgn")).unwrap();
    std::os::unix::fs::symlink("a.pgn", games.join("b.pgn")).unwrap();
    let db = dir.join("t2.db");
    let (run, _) = import("a directory with looping PGN links", &db, &[arg(&games)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("a.pgn") && run.stderr.contains("symbolic links"),
        "{}",
        run.stderr
    );
    assert!(!db.exists());
}

#[test]
fn binary_files_named_pgn() {
    let dir = scratch();
    // The program itself (left out: an executable is no PGN), and random
    // bytes (left out: binary data), between two real files.
    let elf = dir.join("b-program.pgn");
    std::fs::copy(bin(), &elf).unwrap();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let bytes: Vec<u8> =
        (0..size(64 << 20, 8 << 20)).map(|_| (xorshift(&mut x) >> 32) as u8).collect();
    dir.write("c-random.pgn", bytes);
    std::fs::copy(twic(), dir.join("a.pgn")).unwrap();
    std::fs::copy(games_dir().join("chesscom/schmitz874-chesscom-live.pgn"), dir.join("d.pgn"))
        .unwrap();
    let db = dir.join("t.db");
    let (run, rss_mib) = import("binary files named .pgn", &db, &["--quiet", arg(dir.path())]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("; 2 files skipped (not PGN)"), "{}", run.stderr);
    let conn = open(&db);
    let good = games_in(&fixture_text()) as i64;
    // The good games are all there; whatever the binary files hold is not
    // stored as games unless it replays as one.
    assert_eq!(
        count(&conn, "SELECT count(*) FROM games WHERE error IS NULL AND ply_count > 0"),
        good
    );
    let junk = count(&conn, "SELECT count(*) FROM games") - good;
    let skipped = count(&conn, "SELECT count(*) FROM import_errors WHERE kind = 'skipped'");
    eprintln!("reliability: binary files: {junk} junk games stored, {skipped} skipped");
    assert!(rss_mib < 600, "{rss_mib} MiB");
}

// ---------------------------------------------------------------------------
// Faults during an import

/// A big input made of the fixture games, repeated with a distinct Round
/// tag each time so that no game is a duplicate.
fn big_input(path: &Path, copies: usize) -> u64 {
    let text = fixture_text();
    let mut out = String::with_capacity(text.len() * copies);
    for i in 0..copies {
        out += &text.replace("[Round \"", &format!("[Round \"{i}."));
    }
    std::fs::write(path, out).unwrap();
    games_in(&text) * copies as u64
}

/// What differs between the databases at `a` and `b` in games, tags,
/// positions and sources counters, compared inside SQLite: per table, up to
/// five rows of each that the other lacks, and the row counts when they
/// differ (sets hide repeated rows). Empty when they hold the same.
fn differences(a: &Path, b: &Path) -> Vec<String> {
    let conn = Connection::open_with_flags(a, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.execute("ATTACH ?1 AS other", [arg(b)]).unwrap();
    let mut out = Vec::new();
    for select in [
        "SELECT id, white, black, round, result, ply_count, movetext, final_fen, error FROM {}games",
        "SELECT game_id, ord, name, value FROM {}tags",
        "SELECT hash, game_id, ply, next_move FROM {}positions",
        "SELECT path, size, fingerprint, games, duplicates, errors, positions, resume_offset \
         FROM {}sources",
    ] {
        let (mine, theirs) = (select.replace("{}", "main."), select.replace("{}", "other."));
        for (only, one, other) in [(a, &mine, &theirs), (b, &theirs, &mine)] {
            let sql = format!("SELECT * FROM ({one} EXCEPT {other}) LIMIT 5");
            let rows = text_rows(&conn, &sql);
            out.extend(rows.into_iter().map(|row| format!("only in {}: {row}", only.display())));
        }
        let more = format!(
            "SELECT (SELECT count(*) FROM ({mine})) - (SELECT count(*) FROM ({theirs}))"
        );
        let more = count(&conn, &more);
        if more != 0 {
            out.push(format!("{}: {more} rows more than {}: {select}", a.display(), b.display()));
        }
    }
    out
}

/// Asserts that the databases at `a` and `b` hold the same (see
/// [`differences`]).
#[track_caller]
fn assert_same_contents(a: &Path, b: &Path, message: &str) {
    let differences = differences(a, b);
    assert!(differences.is_empty(), "{message}:\n{}", differences.join("\n"));
}

#[test]
fn kill_nine_at_twenty_moments() {
    let interrupted = kill_nine_at_moments(20, &["--shared"]);
    // In WAL mode only the journal-mode switches (creating the file, and
    // back to a rollback journal once every game is committed) go through
    // a rollback journal; a kill there leaves one, never in between.
    assert_eq!(interrupted.midway, 0, "a query found a WAL import interrupted midway");
}

/// `--exclusive` writes through a rollback journal: a kill in the middle of
/// a transaction leaves a journal. A query rolls it back and answers from
/// the committed batches; the next import resumes.
#[test]
fn kill_nine_during_exclusive_imports() {
    let interrupted = kill_nine_at_moments(16, &["--exclusive"]).total;
    eprintln!("reliability: kill -9 --exclusive: {interrupted} of 16 left a journal to roll back");
    assert!(interrupted > 0, "no kill left a journal: the message was not checked");
}

/// A first import into a new database takes it alone (rollback journal);
/// killed, it is run again on a database that now exists, which the
/// default shares (write-ahead log): the second run rolls the first one's
/// journal back and resumes.
#[test]
fn kill_nine_during_first_imports() {
    let interrupted = kill_nine_at_moments(8, &[]).total;
    eprintln!("reliability: kill -9 of a first import: {interrupted} of 8 left a journal");
}

/// How many kills left a journal that a query rolled back before
/// answering: in all, and with only some of the games committed.
#[derive(Debug, Default)]
struct Interrupted {
    total: usize,
    midway: usize,
}

/// Kills `pgnindex import ARGS…` at `kills` seeded moments, each followed
/// by the same command: the database is never damaged, never holds part of
/// a game, and ends equal to a clean import.
fn kill_nine_at_moments(kills: usize, extra: &[&str]) -> Interrupted {
    let dir = scratch();
    let pgn = dir.join("big.pgn");
    let games = big_input(&pgn, 4);
    let pgn = arg(&pgn);
    let mut args = vec!["--quiet", "--batch-games", "300", pgn];
    args.extend_from_slice(extra);
    let clean = dir.join("clean.db");
    let started = Instant::now();
    let (run, _) = import("clean import for the kills", &clean, &args);
    let clean_time = started.elapsed();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let clean_size = std::fs::metadata(&clean).unwrap().len();
    let db = dir.join("killed.db");
    let (mut midway, mut interrupted, mut x) =
        (0, Interrupted::default(), 0x2545_f491_4f6c_dd1du64);
    for _ in 0..kills {
        xorshift(&mut x);
        // From nothing: a kill anywhere between the start and the end of a
        // whole import.
        for suffix in ["", "-wal", "-shm", "-journal"] {
            std::fs::remove_file(format!("{}{suffix}", db.display())).ok();
        }
        let fraction = 0.2 + 0.8 * (x % 1000) as f64 / 1000.0;
        let mut child = spawn_import(&db, &args);
        if x % 2 == 0 {
            std::thread::sleep(clean_time.mul_f64(fraction));
        } else {
            // A moment by progress, not by the clock, which a loaded
            // machine stretches: once the files hold that fraction of a
            // whole import's bytes, batches have been committed.
            wait_for_bytes(&db, &mut child, (clean_size as f64 * fraction) as u64);
        }
        child.kill().ok(); // SIGKILL
        let status = child.wait().unwrap();
        if db.exists() {
            // A query reads the database, its unfinished batch rolled back
            // if the kill left one in a journal, and says once that an
            // import has not finished.
            let journal =
                std::fs::metadata(format!("{}-journal", db.display())).is_ok_and(|m| m.len() > 0);
            let info = command().arg("find").arg("--count").arg("--db").arg(&db).output().unwrap();
            let stderr = String::from_utf8_lossy(&info.stderr);
            let counted: u64 = String::from_utf8_lossy(&info.stdout).trim().parse().unwrap_or(0);
            let has_games = info.status.success() && counted > 0;
            if has_games {
                let unfinished =
                    count(&open(&db), "SELECT count(*) FROM sources WHERE finished_at IS NULL");
                let noted = stderr.contains("an import has not finished");
                assert_eq!(noted, unfinished > 0, "{stderr}");
                assert_eq!(stderr.lines().count(), usize::from(noted), "{stderr}");
            }
            let cut = journal && has_games;
            if cut {
                interrupted.total += 1;
            }
            // A writer rolls back what the kill left unfinished.
            let conn = open(&db);
            count(&conn, "SELECT count(*) FROM sqlite_master");
            assert_eq!(integrity(&db), "ok");
            let has_schema =
                count(&conn, "SELECT count(*) FROM sqlite_master WHERE name = 'games'");
            if has_schema == 1 {
                assert_whole_games(&conn);
                let stored = count(&conn, "SELECT count(*) FROM games") as u64;
                if !status.success() && stored > 0 && stored < games {
                    midway += 1;
                }
                if cut && stored < games {
                    interrupted.midway += 1;
                }
            }
        }
        // Each re-run resumes what the killed ones left.
        let (run, _) = import("re-run after kill -9", &db, &args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_same_contents(&db, &clean, "a resumed import equals a clean one");
    }
    eprintln!(
        "reliability: kill -9 {extra:?}: {kills} kills, {midway} with some games committed, \
         0 games lost"
    );
    assert!(midway > 0, "no kill landed in the middle of the import");
    interrupted
}

/// Waits until the database at `db` and its write-ahead log hold `bytes`
/// together, or the import `child` has ended.
fn wait_for_bytes(db: &Path, child: &mut std::process::Child, bytes: u64) {
    let size = |suffix: &str| {
        std::fs::metadata(format!("{}{suffix}", db.display())).map_or(0, |m| m.len())
    };
    while size("") + size("-wal") < bytes && child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Ctrl-C (SIGINT) and SIGTERM at seeded moments of imports (new
/// databases, and `--shared`), once, twice together or twice apart: each
/// run ends with exit status 130 and one line (how many games it stored,
/// or, for a second signal apart, that it stopped at once), leaves a
/// database that queries read holding whole games, and the same command,
/// run again, finishes with the rows of a clean import.
#[test]
fn ctrl_c_and_sigterm_stop_an_import_cleanly_and_the_next_run_resumes_it() {
    let dir = scratch();
    let pgn = dir.join("big.pgn");
    let games = big_input(&pgn, 4);
    let pgn = arg(&pgn);
    let clean = dir.join("clean.db");
    let started = Instant::now();
    let (run, _) = import("clean import for the interrupts", &clean, &["--quiet", pgn]);
    let clean_time = started.elapsed();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let clean_size = std::fs::metadata(&clean).unwrap().len();
    let db = dir.join("interrupted.db");
    let (mut midway, mut x) = (0, 0x9e37_79b9_7f4a_7c15u64);
    let moments = 12;
    for moment in 0..moments {
        xorshift(&mut x);
        for suffix in ["", "-wal", "-shm", "-journal"] {
            std::fs::remove_file(format!("{}{suffix}", db.display())).ok();
        }
        let mut args = vec!["--quiet", "--batch-games", "300", pgn];
        if moment % 4 >= 2 {
            // An existing database, shared with readers (write-ahead log).
            import("a database to share", &db, &["--quiet", arg(&games_dir().join("tcec"))])
                .0
                .success();
            args.push("--shared");
        }
        let before = if db.exists() { count(&open(&db), "SELECT count(*) FROM games") } else { 0 };
        // The bytes this import writes are counted past the database's own.
        let size_before = std::fs::metadata(&db).map_or(0, |m| m.len());
        let signal = if moment % 2 == 0 { libc::SIGINT } else { libc::SIGTERM };
        // Once; twice together (as a shell's Ctrl-C, or `timeout`, sends
        // it to the process and its group): one interruption; twice apart:
        // the second stops it at once.
        let (twice, apart) = (moment % 3 != 0, moment % 3 == 2);
        let mut child = import_command(&db, &args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let fraction = 0.1 + 0.8 * (x % 1000) as f64 / 1000.0;
        if x % 2 == 0 {
            std::thread::sleep(clean_time.mul_f64(fraction));
        } else {
            wait_for_bytes(&db, &mut child, size_before + (clean_size as f64 * fraction) as u64);
        }
        let pid = child.id() as libc::pid_t;
        // SAFETY: signals our own child, not yet waited for.
        unsafe {
            libc::kill(pid, signal);
            if apart {
                std::thread::sleep(Duration::from_millis(400));
            }
            if twice {
                libc::kill(pid, signal);
            }
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let what = format!("moment {moment} ({signal}, twice: {twice}, apart: {apart})");
        if db.exists() {
            // Committed, or rolled back by the query: queries answer.
            let info = command().arg("info").arg("--db").arg(&db).output().unwrap();
            assert!(info.status.success(), "{what}: {}", String::from_utf8_lossy(&info.stderr));
        }
        let stored = if db.exists() {
            // A writer rolls back what an exit at the second signal left.
            let conn = open(&db);
            let tables = count(&conn, "SELECT count(*) FROM sqlite_master WHERE name = 'games'");
            assert_eq!(integrity(&db), "ok", "{what}");
            if tables == 1 {
                assert_whole_games(&conn);
                count(&conn, "SELECT count(*) FROM games") - before
            } else {
                0
            }
        } else {
            0
        };
        match out.status.code() {
            Some(0) => assert_eq!(stored as u64, games, "{what}: ended before the signal"),
            Some(130) if stderr.starts_with("pgnindex: interrupted again:") => {
                // The second signal ended it at once, as a kill does.
                assert!(apart, "{what}: signals sent together are one: {stderr}");
                assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
            }
            Some(130) => {
                assert_eq!(
                    stderr,
                    format!(
                        "pgnindex: interrupted: {} game{} stored; run the same command \
                         again to resume\n",
                        grouped(stored),
                        if stored == 1 { "" } else { "s" }
                    ),
                    "{what}"
                );
                if stored > 0 && (stored as u64) < games {
                    midway += 1;
                }
            }
            other => panic!("{what}: exit {other:?}: {stderr}"),
        }
        let (run, _) = import("re-run after an interrupt", &db, &args);
        assert_eq!(run.code, 0, "{what}: {}", run.stderr);
        if before == 0 {
            assert_same_contents(&db, &clean, "a resumed import equals a clean one");
        } else {
            let conn = open(&db);
            assert_eq!(count(&conn, "SELECT count(*) FROM games") - before, games as i64, "{what}");
            assert_whole_games(&conn);
        }
    }
    eprintln!("reliability: {moments} interrupts, {midway} with some games stored, 0 games lost");
    assert!(midway > 0, "no interrupt landed in the middle of the import");
}

/// Ctrl-C during `export -o FILE`: exit status 130, one line, and neither
/// FILE nor its partial file left; an export that finished first wrote
/// the whole file.
#[test]
fn ctrl_c_during_an_export_to_a_file_leaves_no_file() {
    let dir = scratch();
    let pgn = dir.join("big.pgn");
    big_input(&pgn, 4);
    let db = dir.join("t.db");
    let (run, _) = import("import for the export", &db, &["--quiet", arg(&pgn)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let whole = dir.join("whole.pgn");
    let started = Instant::now();
    let exported = command().args(["export", "--db", arg(&db), "-o", arg(&whole)]).output();
    assert!(exported.unwrap().status.success());
    let export_time = started.elapsed();
    let whole = std::fs::read(&whole).unwrap();
    let mut interrupted = 0;
    for moment in 1..=8 {
        let out = dir.join(format!("{moment}.pgn"));
        let child = command()
            .args(["export", "--db", arg(&db), "-o", arg(&out)])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(export_time.mul_f64(moment as f64 / 10.0));
        // SAFETY: signals our own child, not yet waited for.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
        let run = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.contains(&format!("{moment}.pgn")))
            .collect();
        match run.status.code() {
            Some(130) => {
                assert_eq!(
                    stderr,
                    format!("pgnindex: interrupted: {} not written\n", out.display())
                );
                assert!(left.is_empty(), "moment {moment}: {left:?} left");
                interrupted += 1;
            }
            Some(0) => {
                assert_eq!(left, [format!("{moment}.pgn")], "moment {moment}");
                assert!(std::fs::read(&out).unwrap() == whole, "moment {moment}: a whole file");
            }
            // Killed before its handler was in place: it had written nothing.
            None => assert!(left.is_empty(), "moment {moment}: {left:?} left"),
            other => panic!("moment {moment}: exit {other:?}: {stderr}"),
        }
    }
    assert!(interrupted > 0, "no interrupt landed during the export");
}

/// `n` with its digits grouped by three, as the summaries write counts.
fn grouped(n: i64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `pgnindex import` with the file size limit set (`RLIMIT_FSIZE`, the
/// system's way of saying "no room") and `SIGXFSZ` ignored, so that writes
/// beyond it fail with `EFBIG` as on a full disk.
fn import_with_file_limit(db: &Path, limit: u64, args: &[&str]) -> Run {
    let mut command = import_command(db, args);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let rlimit = libc::rlimit { rlim_cur: limit, rlim_max: libc::RLIM_INFINITY };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &rlimit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command.output().unwrap().into()
}

/// A tmpfs of `mib` MiB mounted on a new directory, unmounted on drop.
struct SmallFileSystem {
    dir: Scratch,
}

impl SmallFileSystem {
    /// `None` where mounting is not allowed (not root).
    fn mount(mib: u32) -> Option<SmallFileSystem> {
        let dir = scratch();
        let options = format!("size={mib}m");
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &options, "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .ok()?;
        status.success().then_some(SmallFileSystem { dir })
    }

    fn grow(&self, mib: u32) {
        let options = format!("remount,size={mib}m");
        let status = Command::new("mount").args(["-o", &options]).arg(self.dir.path()).status();
        assert!(status.unwrap().success());
    }
}

impl Drop for SmallFileSystem {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Runs an import that fills the disk, checks what it left, gives room
/// (`room`) and checks that the same command finishes the job.
fn fill_the_disk(what: &str, db: &Path, clean: &Path, args: &[&str], run: Run, room: impl Fn()) {
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!("pgnindex: error: {}: ", db.display())),
        "{}",
        run.stderr
    );
    eprintln!("reliability: {what}: {}", run.stderr.trim());
    assert_eq!(integrity(db), "ok");
    let conn = open(db);
    assert_whole_games(&conn);
    let stored = count(&conn, "SELECT count(*) FROM games");
    assert!(stored > 0, "some batches were committed before the disk filled");
    drop(conn);
    assert!(!differences(db, clean).is_empty(), "not all games are there yet");
    room();
    let (run, _) = import("import after the disk had room again", db, args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_same_contents(db, clean, "the import finished the job");
}

#[test]
fn a_full_file_system() {
    let dir = scratch();
    let pgn = dir.join("big.pgn");
    big_input(&pgn, 5);
    let pgn = arg(&pgn);
    let args = ["--quiet", "--batch-games", "300", pgn];
    let clean = dir.join("clean.db");
    import("clean import", &clean, &args).0.success();
    // Files limited in size (any user): writes beyond fail with EFBIG.
    let db = dir.join("full.db");
    let run = import_with_file_limit(&db, 6 << 20, &args);
    fill_the_disk("file size limit", &db, &clean, &args, run, || {});
    // A real small file system (root only): writes fail with ENOSPC.
    if let Some(fs) = SmallFileSystem::mount(5) {
        let db = fs.dir.join("full.db");
        let (run, _) = import("import onto a 5 MiB tmpfs", &db, &args);
        fill_the_disk("full tmpfs", &db, &clean, &args, run, || fs.grow(256));
    }
}

/// Runs `command` to the end, as `nobody` when the tests run as root (who
/// writes to read-only files).
fn run_unprivileged(mut command: Command) -> Run {
    if unsafe { libc::geteuid() } == 0 {
        command.uid(65534).gid(65534);
    }
    command.output().unwrap().into()
}

#[test]
fn a_read_only_database_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let db = dir.join("t.db");
    import("first import", &db, &[arg(&twic())]).0.success();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read(&db).unwrap();
    let second = games_dir().join("chesscom/schmitz874-chesscom-live.pgn");
    let out = run_unprivileged(import_command(&db, &[arg(&second)]));
    let stderr = out.stderr;
    assert_eq!(out.code, 2, "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(&db.display().to_string()) && stderr.contains("read"), "{stderr}");
    eprintln!("reliability: read-only database: {}", stderr.trim());
    assert!(std::fs::read(&db).unwrap() == before, "the file is unchanged");

    // Queries read a database at rest even in a directory they cannot
    // write to (read-only media, another user's files).
    let shelf = dir.join("shelf");
    std::fs::create_dir(&shelf).unwrap();
    let db = shelf.join("t.db");
    std::fs::copy(dir.join("t.db"), &db).unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(&shelf, std::fs::Permissions::from_mode(0o555)).unwrap();
    for args in [
        &["find", "--moves", "1. e4", "--count"][..],
        &["explore", "--moves", "1. d4"],
        &["show", "1"],
        &["info"],
        &["sql", "SELECT count(*) FROM games"],
        &["export", "--white", "Carlsen"],
    ] {
        let mut query = command();
        query.args(args).arg("--db").arg(&db);
        let out = run_unprivileged(query);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
    assert!(std::fs::read(&db).unwrap() == before, "the file is unchanged");
    std::fs::set_permissions(&shelf, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn two_imports_at_once() {
    let dir = scratch();
    let pgn = dir.join("big.pgn");
    big_input(&pgn, 4);
    let other = twic();
    let db = dir.join("t.db");
    let args = ["--quiet", "--batch-games", "300", arg(&pgn)];
    let mut first = spawn_import(&db, &args);
    // Once the first holds the database, start the second.
    while !db.exists() {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    let second = command()
        .args(["import", "--quiet", "--keep-duplicates", "--db"])
        .arg(&db)
        .arg(&other)
        .output()
        .unwrap();
    let first_status = first.wait().unwrap();
    assert!(first_status.success());
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("another pgnindex import, delete or vacuum is writing"), "{stderr}");
    assert_eq!(integrity(&db), "ok");
    let clean = dir.join("clean.db");
    import("clean", &clean, &args).0.success();
    assert_same_contents(&db, &clean, "the refused import changed nothing");
}

#[test]
fn readers_during_an_import() {
    let dir = scratch();
    let pgn = dir.join("big.pgn");
    let games = big_input(&pgn, 6);
    let db = dir.join("t.db");
    // A first file, so that readers find a database from the start.
    let first = twic();
    import("first", &db, &["--quiet", arg(&first)]).0.success();
    let alone = dir.join("alone.db");
    let started = Instant::now();
    let args = ["--quiet", "--batch-games", "300", arg(&pgn)];
    import("the same import without readers", &alone, &args).0.success();
    let alone_time = started.elapsed();
    let started = Instant::now();
    let mut import = spawn_import(&db, &args);
    let db_arg = arg(&db);
    let (mut answers, mut last) = (0, 0i64);
    loop {
        let done = import.try_wait().unwrap().is_some();
        let sql = command()
            .args(["sql", "--db", db_arg, "--format", "csv"])
            .arg(format!("SELECT (SELECT count(*) FROM games) AS n, ({PARTIAL_GAMES}) AS partial"))
            .output()
            .unwrap();
        assert!(sql.status.success(), "{}", String::from_utf8_lossy(&sql.stderr));
        let text = String::from_utf8_lossy(&sql.stdout).into_owned();
        let row: Vec<i64> =
            text.lines().nth(1).unwrap().split(',').map(|v| v.parse().unwrap()).collect();
        assert_eq!(row[1], 0, "a reader saw a half-stored game");
        assert!(row[0] >= last, "the count went back: {text}");
        last = row[0];
        for args in
            [&["find", "--moves", "1. e4 e5", "--count"][..], &["explore", "--moves", "1. d4"]]
        {
            let out = command().args(args).args(["--db", db_arg]).output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
        answers += 1;
        if done {
            break;
        }
    }
    let status = import.wait().unwrap();
    let with_readers = started.elapsed();
    assert!(status.success(), "the import finished despite the readers");
    eprintln!(
        "reliability: import with readers {:.2} s, alone {:.2} s",
        with_readers.as_secs_f64(),
        alone_time.as_secs_f64()
    );
    assert_eq!(last as u64, games + 232, "the last answer saw every game");
    eprintln!("reliability: readers during an import: {answers} rounds of sql, find and explore");
    assert!(answers > 2);
}

/// During an `--exclusive` import a query waits for the import to end
/// (SQLite's lock, up to 30 seconds), then sees every game.
#[test]
fn a_query_during_an_exclusive_import_waits_for_it() {
    let dir = scratch();
    let pgn = dir.join("big.pgn");
    let games = big_input(&pgn, 4);
    let db = dir.join("t.db");
    let mut import = spawn_import(&db, &["--quiet", "--exclusive", arg(&pgn)]);
    let db_arg = arg(&db);
    // Whether the answer came while the import still held the database.
    let waited = loop {
        let import_done = import.try_wait().unwrap().is_some();
        let sql = command()
            .args(["sql", "--db", db_arg, "--format", "csv", "SELECT count(*) FROM games"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&sql.stderr);
        if !sql.status.success() {
            // Before the import created the database and took its lock.
            assert!(!import_done, "{stderr}");
            assert!(
                stderr.contains("no such database") || stderr.contains("not a pgnindex"),
                "{stderr}"
            );
            std::thread::sleep(Duration::from_millis(20));
            continue;
        }
        let text = String::from_utf8_lossy(&sql.stdout).into_owned();
        let n: u64 = text.lines().nth(1).unwrap().parse().unwrap();
        assert_eq!(n, games, "a query saw part of an exclusive import");
        break !import_done;
    };
    assert!(import.wait().unwrap().success());
    assert!(waited, "the query never ran while the import held the database");
}

#[test]
fn columns_stay_true_across_forced_cuts() {
    let dir = scratch();
    let game = "[Event \"x\"] [Result \"1-0\"] 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0 ";
    let bad = "[Event \"bad\"] [Result \"1-0\"] 1. e4 e5 2. Ke3 1-0 ";
    let copies = (24 << 20) / game.len();
    let mut line = game.repeat(copies / 2);
    let bad_at = line.len() + bad.find("Ke3").unwrap();
    line += bad;
    line += &game.repeat(copies / 2);
    let pgn = dir.write("line.pgn", &line);
    let db = dir.join("t.db");
    let (run, _) =
        import("24 MiB line with one bad move", &db, &["--quiet", "--keep-duplicates", arg(&pgn)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let conn = open(&db);
    assert_eq!(count(&conn, "SELECT count(*) FROM games") as usize, copies / 2 * 2 + 1);
    let (line_no, column): (i64, i64) = conn
        .query_row("SELECT line, column FROM import_errors WHERE kind = 'error'", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((line_no, column as usize), (1, bad_at + 1));
}

#[test]
fn terminal_escapes_in_names_are_not_printed() {
    let dir = scratch();
    let pgn = dir.write(
        "evil\x1b[2J\x1b]0;title\x07.pgn",
        "[Event \"x\"]\n[White \"Bad\x1b[31mGuy\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n",
    );
    let db = dir.join("t.db");
    import("a file name with escapes", &db, &[arg(&pgn)]).0.success();
    for args in [&["info"][..], &["find", "--white", "Bad"], &["explore"]] {
        let out: Run = command().args(args).arg("--db").arg(&db).output().unwrap().into();
        assert_eq!(out.code, 0, "{args:?}");
        let text = out.stdout;
        assert!(
            !text.is_empty() && !text.contains('\x1b') && !text.contains('\x07'),
            "{args:?}: {text:?}"
        );
    }
}

/// A query that finds the database file empty, as a first import leaves
/// it for a moment before it locks it, reads it again once it holds a
/// database; a file that stays empty is no database.
#[test]
fn a_query_reads_a_database_file_found_empty_again() {
    let dir = scratch();
    let pgn = dir.write(
        "g.pgn",
        "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n",
    );
    let made = dir.join("made.db");
    import("a small database", &made, &["--exclusive", arg(&pgn)]).0.success();
    let bytes = std::fs::read(&made).unwrap();
    let db = dir.join("late.db");
    File::create(&db).unwrap();
    let filled = {
        let db = db.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            // Into the same file, as the import writes into the one it made.
            let mut file = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
            file.write_all(&bytes).unwrap();
        })
    };
    let out: Run = command().args(["find", "--count", "--db", arg(&db)]).output().unwrap().into();
    filled.join().unwrap();
    assert_eq!((out.code, out.stdout.trim()), (0, "1"), "{}", out.stderr);
    let empty = dir.join("empty.db");
    File::create(&empty).unwrap();
    let out: Run =
        command().args(["find", "--count", "--db", arg(&empty)]).output().unwrap().into();
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("not a pgnindex database"), "{}", out.stderr);
}

/// A query started during a first import (which holds the database alone)
/// waits for it, and once it has waited a second says why, once. The
/// import reads its games from a pipe the test holds open, so that it lasts
/// as long as the test needs whatever the machine's speed.
#[test]
fn a_query_waiting_for_a_first_import_says_why() {
    let dir = scratch();
    let db = dir.join("first.db");
    let mut child = import_command(&db, &["--quiet", "--batch-games", "300", "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(fixture_text().as_bytes()).unwrap();
    input.flush().unwrap();
    // Once the import has the file.
    while !db.exists() && child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(child.try_wait().unwrap().is_none(), "the import ended before the query started");
    let query = {
        let db = db.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            let out = command().args(["find", "--count", "--db", arg(&db)]).output().unwrap();
            (out, started.elapsed())
        })
    };
    std::thread::sleep(Duration::from_millis(2000));
    assert!(!query.is_finished(), "the query did not wait for the import");
    drop(input);
    let (out, waited) = query.join().unwrap();
    assert!(child.wait().unwrap().success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let said = stderr.matches("waiting for a writer that holds the database alone").count();
    assert!(waited >= Duration::from_millis(2000), "waited {waited:?}");
    assert_eq!(said, 1, "waited {waited:?}: {stderr}");
    let games = String::from_utf8_lossy(&out.stdout).trim().parse::<u64>().unwrap();
    assert_eq!(games, games_in(&fixture_text()), "{stderr}");
}
