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
