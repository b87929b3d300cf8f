//! What the query commands print at their edges: an empty database, SQL
//! that fails midway, tables wider than the terminal, the explorer's
//! columns and percentages, depths `perft` cannot finish, and the example
//! commands of the documentation and of `--help`.

use std::path::Path;

pub mod common;

use common::{arg, import, run, scratch};

/// `pgnindex info --db DB`'s stdout, the run checked for success.
fn info_text(db: &Path) -> String {
    run(["info", "--db", arg(db)]).success().stdout
}

#[test]
fn info_on_a_database_without_games_says_so_on_every_line() {
    let dir = scratch();
    let db = dir.join("empty.db");
    let empty = dir.write("empty.pgn", "");
    import(&db, &["--quiet", arg(&empty)]).success();
    let text = info_text(&db);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.iter().all(|l| !l.trim().is_empty()), "a blank line:\n{text}");
    for line in &lines {
        let (_, value) = line.split_once("  ").unwrap_or(("", line));
        assert!(!value.trim().is_empty(), "a line with a name and no value: {line:?}\n{text}");
    }
    assert!(lines.contains(&"games      0"), "{text}");
    assert!(lines.contains(&"events     none known"), "{text}");
    assert!(lines.contains(&"ECO        none known"), "{text}");

    // With no source at all either: the database as the first import
    // creates it, before any input is recorded.
    run(["sql", "--write", "--db", arg(&db), "DELETE FROM sources"]).success();
    let text = info_text(&db);
    assert!(text.contains("\ngames      0 (nothing imported yet)\n"), "{text}");
    assert!(text.contains("\nsources    0\n"), "{text}");
    assert!(text.lines().all(|l| !l.trim().is_empty() && !l.ends_with(' ')), "{text}");
}

/// A database with no games, imported from an empty file in `dir`.
fn empty_db(dir: &common::Scratch) -> std::path::PathBuf {
    let db = dir.join("empty.db");
    import(&db, &["--quiet", arg(&dir.write("empty.pgn", ""))]).success();
    db
}

#[test]
fn sql_that_fails_midway_prints_no_partial_table() {
    let dir = scratch();
    let db = empty_db(&dir);
    // The second row overflows: SQLite has stepped the first one already.
    let overflow = "SELECT 1 AS a UNION ALL SELECT abs(-9223372036854775808)";
    for format in ["table", "csv", "json"] {
        for sql in [overflow, "SELECT 1/0 AS a, abs(-9223372036854775808) AS b"] {
            let out = run(["sql", "--db", arg(&db), "--format", format, sql]);
            assert_eq!(out.code, 1, "{format} {sql}: {}", out.stderr);
            assert_eq!(out.stdout, "", "{format} {sql}");
            assert_eq!(out.stderr, "pgnindex: error: integer overflow\n", "{format} {sql}");
        }
    }
    // The statements before the one that fails have run, and their rows
    // are printed; nothing of the failing one is, not even the blank line
    // between tables.
    let out = run(["sql", "--db", arg(&db), &format!("SELECT 7 AS seven; {overflow}")]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "seven\n-----\n    7\n");
    let out = run(["sql", "--db", arg(&db), "--format", "json", "SELECT json('[') AS j"]);
    assert_eq!((out.code, out.stdout.as_str()), (1, ""), "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
}
