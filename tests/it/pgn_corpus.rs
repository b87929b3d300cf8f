//! Reads real PGN files with our reader and replayer and compares every
//! game with python-chess's ground truth (`fixtures/groundtruth/`): game
//! count, plies, final FEN, every Polyglot key (FNV digest), and whether
//! the game has an error. Where python-chess is known to be wrong (see the
//! corpus SOURCES.md), the expected behaviour is stated here instead.
//!
//! The default run reads `fixtures/pgn/` (a copy of the edge corpus and a
//! few game files); `cargo test --test it -- --ignored pgn_corpus::` reads the
//! whole shared corpus at `../shared/corpus` (CI runs it).

use std::path::Path;

use crate::common;

use common::{files_under, fixture, keys_fnv, repo, variant};
use pgnindex::notation::fen;
use pgnindex::pgn::source::{InputName, Source};
use pgnindex::pgn::Reader;
use pgnindex::replay::{GameRecord, ReplayOptions, Replayer, VariantKind};

/// Files where python-chess splits games wrongly: our game count.
const TRUE_GAME_COUNTS: &[(&str, usize)] = &[
    // A comment between the tags and the moves after a blank line: python
    // ends the game at the comment.
    ("edge/pgn-extract/barnes-horton.pgn", 1),
    ("edge/pgn-extract/test-C.pgn", 1),
    ("edge/pgn-extract/test-F-text.pgn", 1),
    ("edge/pgn-extract/test-Ta.pgn", 1),
    ("edge/pgn-extract/test-checkmate.pgn", 2),
    ("edge/pgn-extract/test-nochecks.pgn", 2),
    ("edge/pgn-extract/test-stalemate.pgn", 3),
    // Games without tags, one per line: python merges them.
    ("edge/pgn-extract/test-fuzzydepth.pgn", 4),
    ("edge/pgn-extract/test-nobadresults.pgn", 9),
    // Tags and moves on one line; leading whitespace; a game without tags.
    ("edge/dartchess/headers-and-moves-on-the-same-line.pgn", 3),
    ("edge/dartchess/leading-whitespace.pgn", 4),
    // Header-only games (no movetext, no result): python merges them.
    ("edge/scalachess/FWWRC.pgn", 605),
    ("edge/scalachess/uzchesscup.pgn", 45),
    // HTML `<br />` instead of line ends: not PGN; we read what we can.
    ("edge/chess.js/0.pgn", 8),
];

/// Games where we differ from python-chess on purpose, by (file, index).
const EXPECTED_DIFFERENCES: &[(&str, usize, &str)] = &[
    // `{ a { nested } comment }` is not PGN: the comment ends at the first
    // `}` and the words after it are not moves (python reads `--nested…`
    // as a null move).
    ("edge/pgn-extract/nested-comment.pgn", 0, "error"),
    // German `Sf3` in an English game: python silently reads it as `f3`.
    ("edge/mliebelt-pgn-parser/sampleGameThrow.pgn", 0, "error"),
    // Tags and moves on one line: python reads 0 moves; we read all 149.
    ("edge/scid/res_gameLatin1.pgn", 0, "plies"),
];

fn read_games(path: &Path) -> Vec<GameRecord> {
    let source = Source::open(&InputName::Path(path.to_path_buf())).unwrap();
    let mut games = Vec::new();
    source
        .for_each_block(
            1 << 20,
            1 << 30,
            |b, _| b.len(),
            |block, _| {
                let mut reader = Reader::new(block);
                let mut replayer =
                    Replayer::new(ReplayOptions { keys: true, ..ReplayOptions::default() });
                while let Some(g) = reader.read_game(&mut replayer) {
                    games.push(g);
                }
                std::ops::ControlFlow::Continue(())
            },
        )
        .unwrap();
    games
}

/// Compares every PGN file under `root/{edge,games}`; returns (files, games).
fn compare_tree(root: &Path) -> (usize, usize) {
    let mut files = Vec::new();
    for sub in ["edge", "games"] {
        if root.join(sub).is_dir() {
            files.extend(files_under(&root.join(sub), |path| {
                path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"))
            }));
        }
    }
    assert!(!files.is_empty(), "no PGN files under {}", root.display());
    let mut failures = Vec::new();
    let mut games_checked = 0;
    for path in &files {
        let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        let ours = read_games(path);
        if let Some(&(_, n)) = TRUE_GAME_COUNTS.iter().find(|(f, _)| *f == rel) {
            if ours.len() != n {
                failures.push(format!("{rel}: {} games, expected {n}", ours.len()));
            }
            continue;
        }
        let reference = common::reference(&rel);
        if ours.len() != reference.len() {
            failures.push(format!("{rel}: {} games, python-chess {}", ours.len(), reference.len()));
            continue;
        }
        for (i, (game, r)) in ours.iter().zip(&reference).enumerate() {
            if variant(r) == VariantKind::Other {
                if game.skipped.is_none() {
                    failures.push(format!("{rel} game {i}: variant {} not skipped", r["variant"]));
                }
                continue;
            }
            let expected =
                EXPECTED_DIFFERENCES.iter().find(|(f, n, _)| *f == rel && *n == i).map(|d| d.2);
            let ours_error = game.error.is_some();
            let python_error = !r["error"].is_null();
            match expected {
                Some("error") => {
                    if !ours_error {
                        failures.push(format!("{rel} game {i}: expected an error"));
                    }
                    continue;
                }
                Some(_) => {
                    if ours_error {
                        failures.push(format!("{rel} game {i}: unexpected error {:?}", game.error));
                    }
                    continue;
                }
                None => {}
            }
            let here = format!("{rel} game {i}");
            if ours_error != python_error {
                failures.push(format!(
                    "{here}: our error {:?}, python-chess {}",
                    game.error, r["error"]
                ));
                continue;
            }
            if game.plies() != r["plies"].as_u64().unwrap() as usize {
                failures.push(format!(
                    "{here}: {} plies, python-chess {}",
                    game.plies(),
                    r["plies"]
                ));
                continue;
            }
            let final_fen = fen::write(&game.final_position);
            if final_fen != r["final_fen"].as_str().unwrap() {
                failures
                    .push(format!("{here}: final {final_fen}, python-chess {}", r["final_fen"]));
            }
            if keys_fnv(game.keys.iter().copied()) != r["keys_fnv"].as_str().unwrap() {
                failures.push(format!("{here}: Polyglot keys differ"));
            }
            games_checked += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
    (files.len(), games_checked)
}

#[test]
fn fixtures_match_python_chess() {
    let (files, games) = compare_tree(&fixture("pgn"));
    assert!(files >= 70, "{files} files");
    assert!(games >= 1000, "{games} games compared");
}

#[test]
#[ignore = "reads ../shared/corpus (31 MB); CI runs it with --ignored"]
fn shared_corpus_matches_python_chess() {
    let (files, games) = compare_tree(&repo("../shared/corpus"));
    assert!(files >= 90, "{files} files");
    assert!(games >= 17_375, "{games} games compared");
}
