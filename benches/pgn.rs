//! PGN reader benchmarks on the committed fixtures, at three sizes:
//! - small: `lichess/chessjs-benchmark-lichess-2013.pgn` (100 games, 76 kB);
//! - medium: `otb/twic-01-232games.pgn` (232 games, 202 kB);
//! - large: every file of `fixtures/pgn/games`, concatenated in path order
//!   with an empty line between files (1,091 games, 1.4 MB).
//!
//! Each input is read four ways, throughput in bytes:
//! - `grep_event`: counting `[Event ` with `memchr::memmem`, the
//!   `grep -c '\[Event '` baseline that any reader is measured against;
//! - `skip_all`: tags only, every movetext skipped (`end_tags` → `Skip(true)`);
//! - `tokenize`: every mainline token handed to a visitor that counts SAN
//!   moves (variations skipped, the default);
//! - `replay_keys`: `Replayer` with Polyglot keys, i.e. tokenize + SAN
//!   resolution + make-move + Zobrist, one `GameRecord` per game.
//!
//! With `PGNINDEX_BENCH_FILE=PATH` a fourth input, `file`, is the first
//! 256 MiB of PATH (e.g. the bench input of `benches/bench-input.sh`, on
//! which docs/benchmarks.md states the reader's figures).
//!
//! `PGNINDEX_PGN_ONCE=tokenize` (or `skip_all`, `replay_keys`) reads the
//! last input once and exits, for `perf stat` or callgrind, whose counts
//! hold still on a noisy machine.
//!
//! `cargo bench --bench pgn`. Games per second are the byte throughput times
//! the games per byte printed for each input before the runs.

use std::io::Read;
use std::ops::ControlFlow;
use std::time::Duration;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use pgnindex::pgn::{Reader, Skip, Visitor};
use pgnindex::replay::{ReplayOptions, Replayer};

mod common;

/// The three inputs, by name.
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let dir = common::games_dir();
    let read = |rel: &str| std::fs::read(dir.join(rel)).unwrap();
    let large = common::fixture_games();
    let mut inputs = vec![
        ("small", read("lichess/chessjs-benchmark-lichess-2013.pgn")),
        ("medium", read("otb/twic-01-232games.pgn")),
        ("large", large),
    ];
    if let Some(path) = std::env::var_os("PGNINDEX_BENCH_FILE") {
        let mut data = Vec::new();
        std::fs::File::open(&path)
            .and_then(|f| f.take(FILE_LIMIT).read_to_end(&mut data))
            .unwrap_or_else(|e| panic!("PGNINDEX_BENCH_FILE: {e}"));
        // End at the last whole game (its `[Event ` line).
        if data.len() as u64 == FILE_LIMIT {
            let cut = memchr::memmem::rfind(&data, b"\n[Event ").map_or(data.len(), |i| i + 1);
            data.truncate(cut);
        }
        inputs.push(("file", data));
    }
    inputs
}

/// How much of `PGNINDEX_BENCH_FILE` is read.
const FILE_LIMIT: u64 = 256 << 20;

/// Reads tags and skips every movetext.
struct SkipAll;

impl Visitor<'_> for SkipAll {
    type Output = ();

    fn end_tags(&mut self) -> Skip {
        Skip(true)
    }

    fn end_game(&mut self) {}
}

/// Counts the mainline SAN tokens; everything else has its default.
struct CountSan(u64);

impl Visitor<'_> for CountSan {
    type Output = ();

    fn san(&mut self, _san: &[u8], _offset: usize) -> ControlFlow<()> {
        self.0 += 1;
        ControlFlow::Continue(())
    }

    fn end_game(&mut self) {}
}

/// Games read with `visitor`.
fn read_all<'a, V: Visitor<'a>>(data: &'a [u8], visitor: &mut V) -> u64 {
    let mut reader = Reader::new(data);
    let mut games = 0;
    while reader.read_game(visitor).is_some() {
        games += 1;
    }
    games
}

fn count_events(data: &[u8]) -> usize {
    memchr::memmem::find_iter(data, b"[Event ").count()
}

fn tokenize(data: &[u8]) -> (u64, u64) {
    let mut visitor = CountSan(0);
    let games = read_all(data, &mut visitor);
    (games, visitor.0)
}

/// Games, plies and games with an error, replayed with keys.
fn replay_keys(data: &[u8]) -> (u64, u64, u64) {
    let mut replayer = Replayer::new(ReplayOptions { keys: true, ..ReplayOptions::default() });
    let mut reader = Reader::new(data);
    let (mut games, mut plies, mut errors) = (0, 0, 0);
    while let Some(record) = reader.read_game(&mut replayer) {
        games += 1;
        plies += record.plies() as u64;
        errors += u64::from(record.error.is_some());
    }
    (games, plies, errors)
}

fn bench_pgn(c: &mut Criterion) {
    let inputs = inputs();
    let mut group = c.benchmark_group("pgn");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (name, data) in &inputs {
        let data = data.as_slice();
        // The four ways must agree on the input before they are timed.
        let events = count_events(data) as u64;
        let skipped = read_all(data, &mut SkipAll);
        let (games, sans) = tokenize(data);
        let (replayed, plies, errors) = replay_keys(data);
        assert_eq!((skipped, games, replayed), (events, events, events), "{name}: game counts");
        assert_eq!((plies, errors), (sans, 0), "{name}: replay");
        eprintln!(
            "pgn/{name}: {} bytes, {games} games, {plies} plies ({:.0} bytes per game)",
            data.len(),
            data.len() as f64 / games as f64
        );
        group.throughput(Throughput::Bytes(data.len() as u64));
        group.bench_with_input(BenchmarkId::new("grep_event", name), data, |b, data| {
            b.iter(|| count_events(data))
        });
        group.bench_with_input(BenchmarkId::new("skip_all", name), data, |b, data| {
            b.iter(|| read_all(data, &mut SkipAll))
        });
        group.bench_with_input(BenchmarkId::new("tokenize", name), data, |b, data| {
            b.iter(|| tokenize(data))
        });
        group.bench_with_input(BenchmarkId::new("replay_keys", name), data, |b, data| {
            b.iter(|| replay_keys(data))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_pgn);

fn main() {
    // One pass over the `file` input, untimed, for `perf stat` or
    // callgrind: PGNINDEX_PGN_ONCE=tokenize|skip_all|replay_keys.
    if let Some(mode) = std::env::var_os("PGNINDEX_PGN_ONCE") {
        let inputs = inputs();
        let (_, data) = inputs.last().expect("inputs");
        match mode.to_str() {
            Some("tokenize") => println!("{:?} games, SAN tokens", tokenize(data)),
            Some("skip_all") => println!("{} games", read_all(data, &mut SkipAll)),
            Some("replay_keys") => println!("{:?} games, plies, errors", replay_keys(data)),
            _ => panic!("PGNINDEX_PGN_ONCE: tokenize, skip_all or replay_keys"),
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
