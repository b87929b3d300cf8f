//! The opening columns of `games` (`opening_eco`, `opening_name`,
//! `opening_ply`): the import names every sample game as python-chess does
//! with the same data set and rule (`fixtures/openings/make.py` wrote the
//! reference, `fixtures/openings/games.tsv`).

pub mod common;

use common::{arg, fixture, games_dir, import, open, rows, scratch};
use similar_asserts::assert_eq;

/// The opening columns of one game.
type Opening = (Option<String>, Option<String>, Option<i64>);

const SELECT: &str = "SELECT opening_eco, opening_name, opening_ply FROM games ORDER BY id";

#[test]
fn every_sample_game_is_named_as_python_chess_names_it() {
    let reference = std::fs::read_to_string(fixture("openings/games.tsv")).unwrap();
    let mut by_file: Vec<(String, Vec<Opening>)> = Vec::new();
    for line in reference.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [file, _, _, eco, name, ply] = fields[..] else { panic!("{line:?}") };
        let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
        let opening = (some(eco), some(name), ply.parse().ok());
        match by_file.last_mut() {
            Some((f, games)) if f == file => games.push(opening),
            _ => by_file.push((file.to_string(), vec![opening])),
        }
    }
    assert_eq!(by_file.len(), 7);
    let dir = scratch();
    let mut named = 0;
    for (i, (file, expected)) in by_file.iter().enumerate() {
        let db = dir.join(format!("{i}.db"));
        import(&db, &["--quiet", "--keep-duplicates", arg(&games_dir().join(file))]).success();
        let stored: Vec<Opening> = rows(&open(&db), SELECT);
        assert_eq!(stored, *expected, "{file}");
        named += stored.iter().filter(|o| o.0.is_some()).count();
    }
    assert!(named > 1000, "{named}");
}

#[test]
fn set_up_positions_and_unnamed_lines_have_no_opening() {
    let dir = scratch();
    let pgn = dir.write(
        "t.pgn",
        "[Event \"a\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n\
         1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 *\n\n\
         [Event \"b\"]\n\n*\n\n\
         [Event \"c\"]\n\n1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Ke2 Qa5 *\n",
    );
    let db = dir.join("t.db");
    import(&db, &["--quiet", "--keep-duplicates", arg(&pgn)]).success();
    let stored: Vec<Opening> = rows(&open(&db), SELECT);
    assert_eq!(
        stored,
        [
            (None, None, None),
            (None, None, None),
            (Some("B90".into()), Some("Sicilian Defense: Najdorf Variation".into()), Some(10)),
        ]
    );
}
