//! What the benchmarks share: the fixtures they read.

// Each benchmark uses a part.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Every file below `dir`, in path order.
pub fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The directory of the PGN fixtures.
pub fn games_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pgn/games")
}

/// Every file of [`games_dir`], concatenated in path order with an empty
/// line between files (some end without a line end, or without an empty
/// line: the separator keeps the next file's tags on a line of their own).
pub fn fixture_games() -> Vec<u8> {
    let mut data = Vec::new();
    for path in files_below(&games_dir()) {
        data.extend_from_slice(&std::fs::read(path).unwrap());
        data.extend_from_slice(b"\n\n");
    }
    data
}
