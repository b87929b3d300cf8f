//! The read side: what the query commands (`find`, `explore`, `show`,
//! `export`, `info`, `sql`) ask of a database.
//!
//! - [`target`]: the searched position from `--fen`/`--epd`/`--moves`;
//! - [`filter`]: header filters as SQL with bound parameters;
//! - [`search`]: position + filters → games in id order, hash hits
//!   verified by replay (`replay::stored`), and counts;
//! - [`material`]: material (`KRP-KR`) and piece pattern searches, from
//!   the material index;
//! - [`explore`]: the moves played from a position, aggregated;
//! - [`novelty`]: where a game leaves the database's games;
//! - [`repertoire`]: a PGN's lines, and where games leave them;
//! - [`mainlines`]: the selected games' results, starts and moves, in id
//!   order, for replaying them all;
//! - [`game`]: a stored game read back; [`pgn`]: written as export PGN;
//! - [`info`]: what a database holds;
//! - [`players`]: the stored names containing a part of one;
//! - [`sql`]: the user's SQL, with the [`functions`] it may call;
//! - [`format`](mod@format): rows as table, CSV or JSON;
//! - [`QueryError`]: how reading a database fails (search, explorer,
//!   stored games, `info`).
//!
//! Nothing here writes to the database (`sql` runs what it is given, on a
//! connection the caller opened read-only unless asked otherwise), and
//! nothing here prints: results go to callbacks and writers.

mod error;
pub mod explore;
pub mod filter;
pub mod format;
pub mod functions;
pub mod game;
pub mod info;
pub mod mainlines;
pub mod material;
pub mod novelty;
pub mod pgn;
pub mod players;
pub mod repertoire;
pub mod search;
pub mod sql;
pub mod summaries;
pub mod target;

pub use error::QueryError;
