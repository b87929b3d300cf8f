//! From games to rows: replaying each game on the chess core on several
//! threads with results in input order (`replay`, `parallel`), building
//! the rows of each game (`rows`, with the tag pairs of `tags`), and storing them in SQLite with one
//! writer thread (`writer`, driven by `pipeline`).

mod background;
mod bloom;
mod checkpoint;
pub mod dedupe;
mod flush;
pub mod parallel;
pub mod pipeline;
pub mod replay;
pub mod rows;
pub mod segments;
pub mod tags;
pub mod writer;

pub use replay::{GameError, GameRecord, ReplayOptions, Replayer};
pub use tags::TagPairs;
