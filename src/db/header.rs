//! [`Header`]: the tag columns of a `games` row.

/// The tag pairs that have a column of their own in `games` (the import
/// fills it from a game's tags, the queries read it back).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// `Event`.
    pub event: Option<String>,
    /// `Site`.
    pub site: Option<String>,
    /// `Date`.
    pub date: Option<String>,
    /// `Round`.
    pub round: Option<String>,
    /// `White`.
    pub white: Option<String>,
    /// `Black`.
    pub black: Option<String>,
    /// `Result`, else the result token.
    pub result: Option<String>,
    /// `WhiteElo` when it is a positive integer.
    pub white_elo: Option<i64>,
    /// `BlackElo` when it is a positive integer.
    pub black_elo: Option<i64>,
    /// `ECO`.
    pub eco: Option<String>,
    /// `Opening`.
    pub opening: Option<String>,
    /// `TimeControl`.
    pub time_control: Option<String>,
    /// `Termination`.
    pub termination: Option<String>,
}

impl Header {
    /// Reads a row whose columns `offset..offset + 13` are `event, site,
    /// date, round, white, black, result, white_elo, black_elo, eco,
    /// opening, time_control, termination`.
    ///
    /// # Errors
    /// SQLite's error for a column of an unexpected type.
    pub fn from_row(row: &rusqlite::Row<'_>, offset: usize) -> rusqlite::Result<Header> {
        let c = |i: usize| offset + i;
        Ok(Header {
            event: row.get(c(0))?,
            site: row.get(c(1))?,
            date: row.get(c(2))?,
            round: row.get(c(3))?,
            white: row.get(c(4))?,
            black: row.get(c(5))?,
            result: row.get(c(6))?,
            white_elo: row.get(c(7))?,
            black_elo: row.get(c(8))?,
            eco: row.get(c(9))?,
            opening: row.get(c(10))?,
            time_control: row.get(c(11))?,
            termination: row.get(c(12))?,
        })
    }
}
