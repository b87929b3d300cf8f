//! Engine benchmarks: perft (move generation + make-move) and SAN replay
//! (parse + legality + make-move + Zobrist update) over the real moves of
//! the shared corpus, as stored in `fixtures/groundtruth/games` (python-chess
//! SAN of 17,375 games, 1.42 M plies).
//!
//! `cargo bench --bench movegen`; throughput is reported per element
//! (nodes for perft, moves for SAN replay).

use std::io::Read;
use std::path::Path;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use pgnindex::chess::perft::perft;
use pgnindex::chess::Position;
use pgnindex::notation::fen;
use pgnindex::notation::lang::Lang;
use pgnindex::notation::san::{self, San};

mod common;

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, fen, depth, nodes) in
        [("startpos", None, 5, 4_865_609u64), ("kiwipete", Some(KIWIPETE), 4, 4_085_603)]
    {
        let pos = fen.map_or_else(Position::new, |f| fen::parse_position(f).unwrap());
        group.throughput(Throughput::Elements(nodes));
        group.bench_with_input(BenchmarkId::new(name, depth), &pos, |b, pos| {
            b.iter(|| assert_eq!(perft(pos, depth), nodes))
        });
    }
    group.finish();
}

/// Games of the corpus: start position and SAN moves.
pub fn corpus_games() -> Vec<(Position, Vec<String>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/groundtruth/games");
    let mut games = Vec::new();
    for path in common::files_below(&root) {
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        for line in text.lines() {
            let rec: serde_json::Value = serde_json::from_str(line).unwrap();
            let Ok(pos) = fen::parse_position(rec["start_fen"].as_str().unwrap()) else { continue };
            let Some(sans) = rec["moves_san"].as_str() else { continue };
            games.push((pos, sans.split_whitespace().map(str::to_owned).collect()));
        }
    }
    games
}

fn bench_san_replay(c: &mut Criterion) {
    let games = corpus_games();
    let moves: usize = games.iter().map(|g| g.1.len()).sum();
    assert!(moves > 1_000_000, "ground truth lacks moves_san");
    let mut group = c.benchmark_group("san_replay");
    group.sample_size(10);
    group.throughput(Throughput::Elements(moves as u64));
    group.bench_function("corpus", |b| b.iter(|| replay(&games)));
    group.finish();
}

/// Replays every move of `games` (SAN parse, resolution, make-move, key)
/// the way `replay::Replayer` does: the quick shapes first, then the
/// general path.
#[inline(never)]
fn replay(games: &[(Position, Vec<String>)]) -> u64 {
    let mut keys = 0u64;
    for (start, sans) in games {
        let mut pos = start.clone();
        for s in sans {
            if let Some(m) = san::quick_move(&pos, s.as_bytes(), Lang::English) {
                pos.play_unchecked(m);
                keys ^= pos.zobrist().0;
                continue;
            }
            match San::from_ascii(s.as_bytes()).unwrap() {
                San::Null => pos.play_null().unwrap(),
                san => {
                    let m = san.to_move(&pos).unwrap();
                    pos.play_unchecked(m);
                }
            }
            keys ^= pos.zobrist().0;
        }
    }
    keys
}

criterion_group!(benches, bench_perft, bench_san_replay);

/// The criterion benches; with `PGNINDEX_REPLAY_ONCE` set, one SAN replay
/// of the corpus instead, for instruction counts:
///
/// ```sh
/// PGNINDEX_REPLAY_ONCE=1 valgrind --tool=callgrind --toggle-collect='*movegen::replay*' \
///     target/release/deps/movegen-HASH --bench
/// ```
///
/// (instructions per move = the total callgrind reports / the moves printed).
fn main() {
    if std::env::var_os("PGNINDEX_REPLAY_ONCE").is_some() {
        let games = corpus_games();
        let moves: usize = games.iter().map(|g| g.1.len()).sum();
        let keys = replay(&games);
        println!("{moves} moves replayed (keys {keys:016x})");
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
