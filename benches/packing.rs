//! The packing of what every imported game stores packed: its final
//! position ([`pgnindex::db::packed_fen::pack`]) and its mainline
//! ([`pgnindex::db::packed_moves::pack`]), as does each principal
//! variation an engine's comments give (the same packing), on the games of
//! `fixtures/pgn/games` (or the first 256 MiB of `PGNINDEX_BENCH_FILE`).
//!
//! Each text is packed in two orders, nanoseconds a text, the median of
//! five runs, each on a thread of its own (its caches start empty):
//! - `file`: every game's, in the input's order (a file's repeats found
//!   in the cache, as an import finds them);
//! - `distinct`: each distinct text once, in a shuffled order (the work
//!   of a text met for the first time).
//!
//! `cargo bench --bench packing`.

use std::io::Read;
use std::time::Instant;

use pgnindex::db::{packed_fen, packed_moves};
use pgnindex::notation::fen;
use pgnindex::pgn::Reader;
use pgnindex::replay::{ReplayOptions, Replayer};

mod common;

/// The input: the fixtures' games, or the bench file's first 256 MiB.
fn input() -> Vec<u8> {
    if let Some(path) = std::env::var_os("PGNINDEX_BENCH_FILE") {
        let mut data = Vec::new();
        std::fs::File::open(&path)
            .and_then(|f| f.take(256 << 20).read_to_end(&mut data))
            .unwrap_or_else(|e| panic!("PGNINDEX_BENCH_FILE: {e}"));
        return data;
    }
    common::fixture_games()
}

/// Each game's final FEN and mainline, and the principal variations of
/// its comments.
fn texts(data: &[u8]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let options = ReplayOptions { san: true, commands: true, ..ReplayOptions::default() };
    let mut replayer = Replayer::new(options);
    let mut reader = Reader::new(data);
    let (mut fens, mut moves, mut pvs) = (Vec::new(), Vec::new(), Vec::new());
    while let Some(record) = reader.read_game(&mut replayer) {
        fens.push(fen::write(&record.final_position));
        pvs.extend(record.notes.pvs().map(|(_, pv)| pv.to_string()));
        moves.push(record.san);
    }
    (fens, moves, pvs)
}

/// `texts` without repeats, in an order shuffled by a fixed generator.
fn distinct(texts: &[String]) -> Vec<String> {
    let mut once = texts.to_vec();
    once.sort();
    once.dedup();
    let mut state = 1u64;
    let mut keyed: Vec<(u64, String)> = once
        .into_iter()
        .map(|t| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state, t)
        })
        .collect();
    keyed.sort();
    keyed.into_iter().map(|(_, t)| t).collect()
}

/// Median nanoseconds a text of `pack` over `texts`, each run on a new
/// thread.
fn time(texts: &[String], pack: fn(&str) -> String) -> f64 {
    let mut runs: Vec<f64> = (0..5)
        .map(|_| {
            std::thread::scope(|s| {
                s.spawn(|| {
                    let start = Instant::now();
                    let bytes: usize = texts.iter().map(|t| pack(t).len()).sum();
                    std::hint::black_box(bytes);
                    start.elapsed().as_nanos() as f64 / texts.len().max(1) as f64
                })
                .join()
                .unwrap()
            })
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: nothing to do.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let (fens, moves, pvs) = texts(&input());
    for (name, all, pack) in [
        ("final FEN", &fens, packed_fen::pack as fn(&str) -> String),
        ("mainline", &moves, packed_moves::pack as fn(&str) -> String),
        ("principal variation", &pvs, packed_moves::pack as fn(&str) -> String),
    ] {
        if all.is_empty() {
            println!("{name}: none in the input");
            continue;
        }
        let once = distinct(all);
        println!(
            "{name}: file {:.0} ns ({} texts), distinct {:.0} ns ({} texts)",
            time(all, pack),
            all.len(),
            time(&once, pack),
            once.len()
        );
    }
}
