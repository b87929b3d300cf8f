//! [`Header`]: the tag columns of a `games` row.

use super::columns::columns;

columns! {
    /// The tag pairs that have a column of their own in `games` (the import
    /// fills it from a game's tags, the queries read it back). Each field
    /// is the column of its name.
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
}
