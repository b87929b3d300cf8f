//! [`QueryError`]: how a query fails, shared by every read-side module
//! (the search, the explorer, a game read back, `info`); and
//! [`IndexError`], why the position index cannot answer a search. Below
//! every other query module: it imports none of them but `replay`.

use std::io;

use rusqlite::Connection;

use crate::db::schema::Schema;
use crate::db::GameId;
use crate::replay::stored::ReplayError;

/// A query that failed.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// SQLite failed reading the database.
    #[error("{path}: {error}")]
    Sqlite {
        /// The database file.
        path: String,
        /// SQLite's error (part of the message, not a source: printed once).
        error: rusqlite::Error,
    },
    /// No game has this id (as the user gave it: it may be no id at all).
    #[error("no game with id {0}")]
    NoSuchGame(i64),
    /// A stored game does not replay.
    #[error("game {id}: {error}")]
    Replay {
        /// The game.
        id: GameId,
        /// What failed (part of the message).
        error: ReplayError,
    },
    /// A game stored without its movetext has notes that do not read
    /// back, so its movetext cannot be written.
    #[error(
        "game {id}: ply_data.{column} is not as pgnindex writes it: its movetext cannot be written back"
    )]
    Notes {
        /// The game.
        id: GameId,
        /// The `ply_data` column.
        column: &'static str,
    },
    /// A game's material index entry cannot be read.
    #[error("game {id}: {error}")]
    Material {
        /// The game.
        id: GameId,
        /// Where the entry goes wrong (part of the message).
        error: crate::store::format::material::DecodeError,
    },
    /// The position index cannot answer a position search.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A filter on a column the database's schema predates.
    #[error("{filter}: {path} has {schema}, without that column (it came with {part}); {advice}")]
    Predates {
        /// The database file.
        path: String,
        /// The filter.
        filter: &'static str,
        /// The database's schema.
        schema: Schema,
        /// The schema that brought the column.
        part: Schema,
        /// How to get the column.
        advice: &'static str,
    },
    /// Writing the results failed (a closed pipe, a full disk).
    #[error("writing the output")]
    Output(#[source] io::Error),
}

impl QueryError {
    /// Wraps SQLite errors of `conn` with its file name.
    pub fn sqlite(conn: &Connection) -> impl Fn(rusqlite::Error) -> QueryError + '_ {
        move |error| QueryError::Sqlite { path: path_of(conn), error }
    }
}

/// The file of `conn`'s main database, as messages name it.
pub(crate) fn path_of(conn: &Connection) -> String {
    conn.path().filter(|p| !p.is_empty()).unwrap_or(":memory:").to_string()
}

/// Why the position index cannot answer a position search.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    /// Every source that holds games was imported without positions.
    #[error(
        "this database has no position index (imported with --no-positions): position \
         searches need one; re-import without --no-positions"
    )]
    Missing,
    /// Every source that holds games was indexed only up to `max_ply`, and
    /// the position cannot occur that early in a game from the standard
    /// start (and no such source holds a game from another start).
    #[error(
        "this database's position index stops at ply {max_ply} (imported with --max-ply \
         {max_ply}), and this position takes at least {needed} plies from the standard start: \
         re-import without --max-ply, or with a larger one"
    )]
    TooShallow {
        /// The deepest ply indexed.
        max_ply: u32,
        /// The fewest plies that reach the position from the start.
        needed: u32,
    },
}
