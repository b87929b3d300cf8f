//! Export then import keeps every value: a file imported, exported and
//! the export imported again gives the same rows in every view, column by
//! column (the columns that name the input file aside), on each kind of
//! file: the fixtures here, the whole shared corpus in an ignored test.

use crate::common;

use std::path::Path;

use common::{arg, fixture, import, open, run, scratch};
use rusqlite::types::Value;

/// The views a user queries, each with the order its rows are read in.
const VIEWS: &[(&str, &str)] = &[
    ("games", "id"),
    ("tags", "game_id, ord"),
    ("plies", "game_id, ply"),
    ("positions", "game_id, ply"),
    ("players", "name"),
];

/// Columns that name where a game was read, not what it holds.
const INPUT_COLUMNS: &[&str] = &["source_id", "source_offset", "movetext"];

/// The rows of `view` in `db`, every column but [`INPUT_COLUMNS`].
fn rows(db: &Path, view: &str, order: &str) -> (Vec<String>, Vec<Vec<Value>>) {
    let conn = open(db);
    let columns: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .unwrap()
        .query_map([view], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .filter(|c: &String| !INPUT_COLUMNS.contains(&c.as_str()))
        .collect();
    let sql = format!("SELECT {} FROM {view} ORDER BY {order}", columns.join(", "));
    let mut st = conn.prepare(&sql).unwrap();
    let rows = st
        .query_map([], |r| (0..columns.len()).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    (columns, rows)
}

/// Imports `file`, exports it, imports the export, and checks that every
/// view holds the same values; the games compared.
fn assert_views_survive(dir: &Path, name: &str, file: &Path) -> usize {
    let (first, second, out) =
        (dir.join(format!("{name}.db")), dir.join(format!("{name}-again.db")), dir.join("out.pgn"));
    import(&first, &["--quiet", "--keep-duplicates", arg(file)]).success();
    run(["export", "--db", arg(&first), "-o", arg(&out)]).success();
    import(&second, &["--quiet", "--keep-duplicates", arg(&out)]).success();
    let mut games = 0;
    for &(view, order) in VIEWS {
        let (columns, before) = rows(&first, view, order);
        let (_, after) = rows(&second, view, order);
        assert_eq!(before.len(), after.len(), "{}: rows of {view}", file.display());
        for (a, b) in before.iter().zip(&after) {
            for ((column, x), y) in columns.iter().zip(a).zip(b) {
                assert!(
                    x == y,
                    "{}: {view}.{column} differs after export and import: {x:?} became {y:?} \
                     (row {a:?})",
                    file.display()
                );
            }
        }
        if view == "games" {
            games = before.len();
        }
    }
    games
}

#[test]
fn every_view_survives_export_and_import_on_each_kind_of_file() {
    let dir = scratch();
    let mut files = common::files_under(&common::games_dir(), |p| {
        p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"))
    });
    // Engine matches and the comment forms of each engine.
    files.extend(["plies/engine.pgn", "plies/engines.pgn", "compact/forms.pgn"].map(fixture));
    files.sort();
    let mut games = 0;
    for (i, file) in files.iter().enumerate() {
        games += assert_views_survive(dir.path(), &i.to_string(), file);
    }
    assert!(games > 1_000, "{games} games compared");
}

#[test]
#[ignore = "the whole shared corpus: a minute"]
fn every_view_survives_export_and_import_on_the_corpus() {
    let Some(corpus) = common::corpus_games() else { return };
    let files = common::files_under(&corpus, |p| {
        p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"))
    });
    assert!(!files.is_empty());
    let dir = scratch();
    for (i, file) in files.iter().enumerate() {
        let games = assert_views_survive(dir.path(), &i.to_string(), file);
        eprintln!("{}: {games} games, every view the same", file.display());
    }
}
