//! What a database's schema holds, by its version (`PRAGMA user_version`):
//! the one place that names the version each part came with. Queries, the
//! server and the Parquet export read a database's [`Schema`] and ask it.

use rusqlite::Connection;

/// A database's schema version, and what it holds. Versions compare in
/// order: a database has every part of the versions up to its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Schema(i64);

impl Schema {
    /// `games.speed` and the time-control columns.
    pub const SPEED: Schema = Schema(7);
    /// The opening by position: `games.opening_eco`, `opening_name`.
    pub const OPENINGS: Schema = Schema(9);
    /// `ply_data` and the `plies` view.
    pub const PLIES: Schema = Schema(10);
    /// Movetexts stored NULL, written back from the moves and notes.
    pub const WRITTEN_BACK: Schema = Schema(11);
    /// `game_rows` under the `games` view, few-valued texts by id.
    pub const GAME_ROWS: Schema = Schema(16);
    /// `game_rows.packed_moves`.
    pub const PACKED_MOVES: Schema = Schema(17);
    /// The engine notes: depths, node counts, principal variations.
    pub const ENGINE_NOTES: Schema = Schema(18);
    /// Player and site names by id, dates by their parts, packed final
    /// FENs.
    pub const COMPACT_ROWS: Schema = Schema(19);
    /// Moves as two-byte codes (`move_codes`), the packed clocks, times and
    /// evaluations as BLOBs.
    pub const MOVE_CODES: Schema = Schema(23);
    /// The players stored (`player_rows`) under the `players` view.
    pub const PLAYER_ROWS: Schema = Schema(24);
    /// The speed in the `games_summary` index.
    pub const SUMMARY_SPEED: Schema = Schema(27);
    /// `explorer_masters`, the tree of the masters games.
    pub const MASTERS_TREE: Schema = Schema(28);
    /// The players' tallies (`player_rows.scored`, `player_spellings`),
    /// so that an import adds its games' players to the stored ones.
    pub const PLAYER_TALLIES: Schema = Schema(29);
    /// The schema this binary writes.
    pub const CURRENT: Schema = Schema(super::SCHEMA_VERSION);

    /// The schema of version `version`.
    pub const fn new(version: i64) -> Schema {
        Schema(version)
    }

    /// The schema of `conn`'s main database.
    ///
    /// # Errors
    /// SQLite's.
    pub fn of(conn: &Connection) -> rusqlite::Result<Schema> {
        conn.prepare_cached("PRAGMA main.user_version")?.query_row([], |r| r.get(0)).map(Schema)
    }

    /// Its version number.
    pub const fn version(self) -> i64 {
        self.0
    }

    /// `true` if the database holds what version `part` brought.
    pub fn has(self, part: Schema) -> bool {
        self >= part
    }
}

impl std::fmt::Display for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "schema version {}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_has_the_parts_of_its_version_and_before() {
        let conn = Connection::open_in_memory().unwrap();
        assert_eq!(Schema::of(&conn).unwrap(), Schema::new(0));
        conn.pragma_update(None, "user_version", 18).unwrap();
        let schema = Schema::of(&conn).unwrap();
        assert!(schema.has(Schema::ENGINE_NOTES) && schema.has(Schema::SPEED));
        assert!(!schema.has(Schema::COMPACT_ROWS));
        assert!(Schema::CURRENT.has(Schema::COMPACT_ROWS));
        assert_eq!(schema.to_string(), "schema version 18");
    }
}
