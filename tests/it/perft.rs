//! Perft against the reference node counts in `fixtures/perft/` (copied
//! from the shared corpus: python-chess, shakmaty, pychess and Ethereal
//! suites, standard and Chess960). The regular run stops each position at a
//! node budget so the suite stays fast; `cargo test --release -- --ignored`
//! runs every depth given.

use crate::common;

use common::fixture;
use pgnindex::chess::perft::perft;
use pgnindex::notation::epd::Epd;
use pgnindex::notation::fen::{self, Fen};

/// One position with its expected counts by depth.
struct Case {
    file: String,
    line: usize,
    fen: String,
    counts: Vec<(u32, u64)>,
}

/// Reads both formats: `.perft` blocks (`id`, `epd`, `perft D N`) and `.epd`
/// lines (`FEN ;D1 n ;D2 n`).
fn load(name: &str) -> Vec<Case> {
    let text = std::fs::read_to_string(fixture("perft").join(name)).unwrap();
    let mut cases: Vec<Case> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with("id ") {
            continue;
        }
        let file = name.to_string();
        if let Some(epd) = line.strip_prefix("epd ") {
            cases.push(Case { file, line: i + 1, fen: epd.to_string(), counts: vec![] });
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut it = rest.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            let (d, n) = (it.next().unwrap(), it.next().unwrap());
            cases.last_mut().unwrap().counts.push((d as u32, n));
        } else {
            // The .epd suites go through our EPD reader: `Dn` opcodes.
            let epd = Epd::from_ascii(line.as_bytes())
                .unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1));
            let fen = Fen(epd.setup.clone()).to_string();
            let counts = epd
                .operations
                .iter()
                .filter_map(|op| {
                    let depth = op.opcode.strip_prefix('D')?.parse().ok()?;
                    Some((depth, op.operands.first()?.as_str().parse().ok()?))
                })
                .collect();
            cases.push(Case { file, line: i + 1, fen, counts });
        }
    }
    assert!(!cases.is_empty(), "{name} holds no positions");
    cases
}

/// Positions whose FEN we refuse on purpose, with the reason.
fn expected_refusal(fen: &str) -> Option<&'static str> {
    // 270 legal moves: more material than a game can reach.
    (fen.starts_with("kBQQQQQQ/")).then_some("more material than a game can reach")
}

/// Runs every case of `name` at each given depth whose count is at most
/// `budget` nodes; returns the number of (position, depth) pairs checked.
fn run(name: &str, budget: u64) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in load(name) {
        let pos = match fen::parse_position(&case.fen) {
            Ok(pos) => pos,
            Err(e) => {
                let why = expected_refusal(&case.fen)
                    .unwrap_or_else(|| panic!("{}:{}: {}: {e}", case.file, case.line, case.fen));
                assert!(e.to_string().contains(why), "{e}");
                continue;
            }
        };
        for &(depth, expected) in &case.counts {
            if expected > budget {
                continue;
            }
            let got = perft(&pos, depth);
            checked += 1;
            if got != expected {
                failures.push(format!(
                    "{}:{}: {} depth {depth}: got {got}, expected {expected}",
                    case.file, case.line, case.fen
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
    eprintln!("{name}: {checked} (position, depth) pairs checked");
    checked
}

#[test]
fn python_chess_tricky() {
    assert!(run("python-chess-tricky.perft", 20_000_000) >= 67);
}

#[test]
fn shakmaty_tricky() {
    assert!(run("shakmaty-tricky.perft", 20_000_000) >= 86);
}

#[test]
fn perftsuite_standard() {
    assert!(run("pychess-perftsuite.epd", 5_000_000) >= 635);
    assert!(run("pychess-perftsuite2.epd", 5_000_000) >= 16);
    assert!(run("ethereal-standard.epd", 5_000_000) >= 633);
}

#[test]
fn chess960_suites() {
    assert!(run("python-chess-chess960.perft", 1_000_000) >= 2880);
    assert!(run("ethereal-fischer.epd", 30_000) >= 2700);
    assert!(run("pychess-frc_perftsuite.epd", 5_000_000) >= 35);
}

#[test]
fn random_positions() {
    assert!(run("python-chess-random.perft", 50_000) >= 20_000);
}

/// Every depth up to `PERFT_BUDGET` nodes per (position, depth) pair
/// (default 100 million: about 235 G nodes in all, half an hour on two
/// cores). `PERFT_BUDGET=1e12 cargo test --release --test it -- --ignored perft::`
/// runs every depth the files give (days).
#[test]
#[ignore = "deep perft: PERFT_BUDGET=<nodes> cargo test --release --test it -- --ignored perft::"]
fn deep_perft() {
    let budget =
        std::env::var("PERFT_BUDGET").ok().and_then(|b| b.parse::<f64>().ok()).unwrap_or(1e8)
            as u64;
    for name in [
        "python-chess-tricky.perft",
        "shakmaty-tricky.perft",
        "pychess-perftsuite.epd",
        "pychess-perftsuite2.epd",
        "ethereal-standard.epd",
        "python-chess-chess960.perft",
        "ethereal-fischer.epd",
        "pychess-frc_perftsuite.epd",
        "python-chess-random.perft",
    ] {
        run(name, budget);
    }
}
