//! [`GameId`]: the id of a stored game.

use std::fmt;
use std::str::FromStr;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// A game's id: `games.id` (and `game_id` wherever a row names a game),
/// 1.. in import order.
///
/// SQLite stores it as an INTEGER; pgnindex holds it in 32 bits, the width
/// the import packs it into while a batch's position rows wait for their
/// commit (`store::segments::PendingPosition`, 16 bytes a row). Every
/// conversion from a wider integer is checked: an id beyond that range is
/// an error, never a wrapped id of another game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GameId(u32);

/// An integer or text that is no [`GameId`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameIdError {
    /// An integer out of the ids' range.
    #[error("game id {0} is out of range (0 to {max})", max = GameId::MAX)]
    OutOfRange(i64),
    /// Text that is no integer.
    #[error(transparent)]
    Syntax(#[from] std::num::ParseIntError),
}

impl GameId {
    /// The largest id.
    pub const MAX: GameId = GameId(u32::MAX);

    /// The id `value`.
    pub const fn new(value: u32) -> GameId {
        GameId(value)
    }

    /// The id as a number.
    pub const fn get(self) -> u32 {
        self.0
    }
}

impl From<u32> for GameId {
    fn from(value: u32) -> GameId {
        GameId(value)
    }
}

impl From<GameId> for u32 {
    fn from(id: GameId) -> u32 {
        id.0
    }
}

impl From<GameId> for i64 {
    fn from(id: GameId) -> i64 {
        i64::from(id.0)
    }
}

impl TryFrom<i64> for GameId {
    type Error = GameIdError;

    fn try_from(value: i64) -> Result<GameId, GameIdError> {
        u32::try_from(value).map(GameId).map_err(|_| GameIdError::OutOfRange(value))
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for GameId {
    type Err = GameIdError;

    /// A decimal integer in range (`42`, `+42`).
    fn from_str(s: &str) -> Result<GameId, GameIdError> {
        GameId::try_from(s.parse::<i64>()?)
    }
}

impl ToSql for GameId {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(i64::from(self.0)))
    }
}

impl FromSql for GameId {
    /// An INTEGER in range; [`FromSqlError::OutOfRange`] for one beyond.
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<GameId> {
        let n = value.as_i64()?;
        GameId::try_from(n).map_err(|_| FromSqlError::OutOfRange(n))
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    #[test]
    fn conversions_are_checked() {
        assert_eq!(GameId::try_from(0_i64), Ok(GameId::new(0)));
        assert_eq!(GameId::try_from(4_294_967_295_i64), Ok(GameId::MAX));
        assert_eq!(
            GameId::try_from(4_294_967_296_i64),
            Err(GameIdError::OutOfRange(4_294_967_296))
        );
        assert_eq!(GameId::try_from(-1_i64), Err(GameIdError::OutOfRange(-1)));
        assert_eq!(i64::from(GameId::MAX), 4_294_967_295);
        assert_eq!("42".parse::<GameId>(), Ok(GameId::new(42)));
        assert_eq!(GameId::new(42).to_string(), "42");
        let err = "4294967296".parse::<GameId>().unwrap_err().to_string();
        assert_eq!(err, "game id 4294967296 is out of range (0 to 4294967295)");
        assert!(matches!("x".parse::<GameId>(), Err(GameIdError::Syntax(_))));
        assert_eq!(std::mem::size_of::<GameId>(), 4);
    }

    #[test]
    fn stored_as_an_integer_and_read_back_in_range_only() {
        let conn = Connection::open_in_memory().unwrap();
        let stored: (i64, String) = conn
            .query_row("SELECT ?1, typeof(?1)", [GameId::MAX], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!(stored, (4_294_967_295, "integer".into()));
        let read = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, GameId>(0));
        assert_eq!(read("SELECT 7").unwrap(), GameId::new(7));
        for beyond in ["SELECT 4294967296", "SELECT -1"] {
            let err = read(beyond).unwrap_err();
            assert!(
                matches!(err, rusqlite::Error::IntegralValueOutOfRange(0, _)),
                "{beyond}: {err}"
            );
        }
        assert!(read("SELECT 'x'").is_err());
    }
}
