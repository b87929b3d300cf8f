//! From games to rows: replaying each game on the chess core, on several
//! threads with results in input order. (The SQLite writer comes with the
//! import issue.)

pub mod parallel;
pub mod replay;

pub use replay::{GameError, GameRecord, ReplayOptions, Replayer};
