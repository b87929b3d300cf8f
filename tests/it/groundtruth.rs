//! Replays every game of the shared corpus (its moves as python-chess read
//! them, stored with python-chess's FENs, SAN and Polyglot keys in
//! `fixtures/groundtruth/`) and checks our engine against that reference:
//! every Polyglot key (FNV digest of the whole sequence, plus the first
//! keys verbatim), the final FEN, and SAN both ways (our canonical SAN
//! equals python-chess's, and reading python-chess's SAN finds the same
//! move as its UCI).

use crate::common;

use common::{files_under, fixture, keys_fnv, read_reference, variant};
use pgnindex::chess::Position;
use pgnindex::notation::lang::Lang;
use pgnindex::notation::{fen, san, uci};
use pgnindex::replay::VariantKind;

#[derive(Default)]
struct Totals {
    games: usize,
    plies: usize,
    skipped_variants: usize,
    san_checked: usize,
}

fn check_record(name: &str, rec: &serde_json::Value, totals: &mut Totals) -> Result<(), String> {
    let idx = rec["index"].as_u64().unwrap();
    let at = format!("{name} game {idx}");
    if variant(rec) == VariantKind::Other {
        totals.skipped_variants += 1;
        return Ok(());
    }
    let start_fen = rec["start_fen"].as_str().unwrap();
    let mut pos =
        fen::parse_position(start_fen).map_err(|e| format!("{at}: start FEN {start_fen}: {e}"))?;
    let uci_moves: Vec<&str> = rec["moves_uci"].as_str().unwrap_or("").split_whitespace().collect();
    let san_moves: Option<Vec<&str>> =
        rec["moves_san"].as_str().map(|s| s.split_whitespace().collect());
    let plies = rec["plies"].as_u64().unwrap() as usize;
    if uci_moves.len() != plies {
        return Err(format!("{at}: {} UCI moves for {plies} plies", uci_moves.len()));
    }
    let mut keys = vec![pos.zobrist().0];
    for (ply, text) in uci_moves.iter().enumerate() {
        let here = format!("{at} ply {} ({text}) in {}", ply + 1, fen::write(&pos));
        if *text == "0000" {
            pos.play_null().map_err(|_| format!("{here}: null move in check"))?;
        } else {
            let m = uci::parse_move(&pos, text).map_err(|e| format!("{here}: {e}"))?;
            if let Some(sans) = &san_moves {
                let reference = sans[ply];
                let ours = san::to_san(&pos, m);
                if ours != reference {
                    return Err(format!("{here}: our SAN {ours}, python-chess {reference}"));
                }
                let read = san::parse_move(&pos, reference.as_bytes(), Lang::English)
                    .map_err(|e| format!("{here}: reading {reference}: {e}"))?;
                if read != m {
                    return Err(format!(
                        "{here}: SAN {reference} read as {read:?}, UCI gives {m:?}"
                    ));
                }
                totals.san_checked += 1;
            }
            pos.play_unchecked(m);
        }
        keys.push(pos.zobrist().0);
    }
    let first: Vec<String> = keys.iter().take(3).map(|k| format!("{k:016x}")).collect();
    let expected_first: Vec<&str> =
        rec["first_keys"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    if first != expected_first {
        return Err(format!("{at}: first keys {first:?}, expected {expected_first:?}"));
    }
    let digest = keys_fnv(keys.iter().copied());
    if digest != rec["keys_fnv"].as_str().unwrap() {
        // Find the first differing ply is not possible from a digest; say so.
        return Err(format!("{at}: Polyglot keys differ from python-chess (FNV {digest})"));
    }
    let final_fen = fen::write(&pos);
    if final_fen != rec["final_fen"].as_str().unwrap() {
        return Err(format!("{at}: final FEN {final_fen}, expected {}", rec["final_fen"]));
    }
    totals.games += 1;
    totals.plies += plies;
    Ok(())
}

fn run(subdir: &str) -> Totals {
    let root = fixture("groundtruth").join(subdir);
    let paths = files_under(&root, |path| path.to_string_lossy().ends_with(".jsonl.gz"));
    assert!(!paths.is_empty(), "no ground truth under {}", root.display());
    let mut totals = Totals::default();
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        for rec in read_reference(path) {
            if let Err(e) = check_record(&name, &rec, &mut totals) {
                failures.push(e);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} games differ:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    totals
}

#[test]
fn games_corpus_matches_python_chess() {
    let t = run("games");
    // SOURCES.md: 17,375 games / 1.42 M plies in games/.
    assert_eq!(t.games, 17_375);
    assert!(t.plies > 1_400_000, "{} plies", t.plies);
    assert!(t.san_checked > 1_400_000, "SAN compared on {} plies", t.san_checked);
}

#[test]
fn edge_corpus_matches_python_chess() {
    let t = run("edge");
    assert!(t.games > 300, "{} games", t.games);
    assert!(t.san_checked > 10_000, "SAN compared on {} plies", t.san_checked);
    assert!(t.skipped_variants >= 3, "crazyhouse/antichess games are skipped");
}

#[test]
fn published_polyglot_vectors() {
    let text = std::fs::read_to_string(fixture("groundtruth/polyglot_vectors.txt")).unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (moves, key) = line.split_once('\t').unwrap();
        let mut pos = Position::new();
        for m in moves.split_whitespace() {
            let m = uci::parse_move(&pos, m).unwrap();
            pos.play_unchecked(m);
        }
        assert_eq!(pos.zobrist().to_string(), key, "after '{moves}'");
        checked += 1;
    }
    assert_eq!(checked, 9);
}
