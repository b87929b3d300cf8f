//! [`QueryError`]: how a query fails, shared by every read-side module
//! (the search, the explorer, a game read back, `info`).

use std::io;

use rusqlite::Connection;

use super::replay::ReplayError;
use crate::db::GameId;

/// A query that failed.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// SQLite failed reading the database.
    #[error("{path}: {source}")]
    Sqlite {
        /// The database file.
        path: String,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// No game has this id (as the user gave it: it may be no id at all).
    #[error("no game with id {0}")]
    NoSuchGame(i64),
    /// A stored game does not replay.
    #[error("game {id}: {source}")]
    Replay {
        /// The game.
        id: GameId,
        /// What failed.
        source: ReplayError,
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
    #[error("game {id}: {source}")]
    Material {
        /// The game.
        id: GameId,
        /// Where the entry goes wrong.
        source: crate::store::material::DecodeError,
    },
    /// The position index cannot answer a position search.
    #[error(transparent)]
    Index(#[from] super::search::IndexError),
    /// Writing the results failed (a closed pipe, a full disk).
    #[error("writing the output")]
    Output(#[source] io::Error),
}

impl QueryError {
    /// Wraps SQLite errors of `conn` with its file name.
    pub fn sqlite(conn: &Connection) -> impl Fn(rusqlite::Error) -> QueryError + '_ {
        move |source| QueryError::Sqlite {
            path: conn.path().filter(|p| !p.is_empty()).unwrap_or(":memory:").to_string(),
            source,
        }
    }
}
