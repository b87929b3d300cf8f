//! The integration tests, one module per subject, in one test binary:
//! each runs the `pgnindex` binary or the library on the fixtures, and
//! the references (python-chess, DuckDB, berserk, a browser) where they
//! apply. One binary links once.

pub mod common;

mod analysis;
mod board;
mod book;
mod cli;
mod closed_outputs;
mod compact;
mod compact_rows;
mod cookbook;
mod delete;
mod descriptive;
mod fuzz_regressions;
mod game_texts;
mod groundtruth;
mod import;
mod import_misuse;
mod material;
mod novelty;
mod openings;
mod output;
mod packed_moves;
mod parquet;
mod partial_index;
mod perft;
mod pgn_adversarial;
mod pgn_corpus;
mod plies;
mod progress;
mod query;
mod query_errors;
mod reliability;
mod repertoire;
mod roundtrip;
mod serve;
mod tour;
mod tree;
mod views_round_trip;
