//! [`Speed`]: a game's speed class, `games.speed` (filled by the import
//! from the time control, see `store::analysis`; filtered on by the
//! queries).

use std::fmt;
use std::str::FromStr;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// A speed class, stored as its lower-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Speed {
    /// Under 30 estimated seconds.
    UltraBullet,
    /// Under 3 estimated minutes.
    Bullet,
    /// Under 8 estimated minutes.
    Blitz,
    /// Under 25 estimated minutes.
    Rapid,
    /// 25 estimated minutes or more.
    Classical,
    /// Days per move.
    Correspondence,
}

impl Speed {
    /// Every speed, fastest first.
    pub const ALL: [Speed; 6] = [
        Speed::UltraBullet,
        Speed::Bullet,
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
    ];

    /// The name stored in `games.speed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Speed::UltraBullet => "ultrabullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }

    /// The speed of a name [`Speed::as_str`] gives.
    pub fn from_name(name: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Lichess's class of a clock of `base` seconds plus `increment` per
    /// move: by the estimated time for 40 moves, `base + 40 × increment`.
    pub fn of_clock(base: i64, increment: i64) -> Speed {
        match base + 40 * increment {
            ..30 => Speed::UltraBullet,
            30..180 => Speed::Bullet,
            180..480 => Speed::Blitz,
            480..1500 => Speed::Rapid,
            _ => Speed::Classical,
        }
    }
}

impl FromStr for Speed {
    type Err = UnknownSpeed;

    /// A name [`Speed::as_str`] gives, in any letter case.
    fn from_str(text: &str) -> Result<Speed, UnknownSpeed> {
        Speed::from_name(&text.trim().to_ascii_lowercase())
            .ok_or_else(|| UnknownSpeed(text.to_string()))
    }
}

/// Text that names no [`Speed`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a speed (ultrabullet, bullet, blitz, rapid, classical or correspondence)")]
pub struct UnknownSpeed(pub String);

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ToSql for Speed {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for Speed {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Speed> {
        let name = value.as_str()?;
        Speed::from_name(name)
            .ok_or_else(|| FromSqlError::Other(format!("no speed {name:?}").into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for speed in Speed::ALL {
            assert_eq!(Speed::from_name(speed.as_str()), Some(speed));
            assert_eq!(speed.to_string().to_uppercase().parse(), Ok(speed));
        }
        assert_eq!("fast".parse::<Speed>(), Err(UnknownSpeed("fast".into())));
    }
}
