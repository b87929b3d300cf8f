//! Reading and replaying games, with no database: each game's mainline is
//! played on the chess core as it is read ([`Replayer`] → [`GameRecord`]),
//! with its tag pairs decoded ([`TagPairs`]); [`parallel`] reads the
//! chunks of a source on a thread pool and hands the games back in input
//! order; [`inputs`] walks a list of inputs that way, one after the other.
//! `fens`, `check` and the import all read games this way. [`stored`]
//! replays a stored game (canonical SAN) for the queries and the explorer.

pub mod descriptive;
pub mod inputs;
mod notes;
pub mod openings;
pub mod parallel;
mod rebuild;
mod replayer;
pub mod stored;
mod tags;

pub use notes::Notes;
pub use replayer::{
    GameError, GameRecord, Reaches, ReplayOptions, Replayer, Skipped, VariantKind, MAX_SYNTAX,
    MORE_SYNTAX,
};
pub use tags::TagPairs;
