//! From games to rows: replaying each game on the chess core. (The
//! parallel pipeline and the writer come with the import issue.)

pub mod replay;

pub use replay::{GameError, GameRecord, ReplayOptions, Replayer};
