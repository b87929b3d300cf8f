//! The analysis columns of `games`, read from a game's tags: the parts of
//! its `Date` (`year`, `month`, `day`), the first period of its
//! `TimeControl` in seconds (`tc_base`, `tc_increment`) and its `speed`.
//!
//! Migration 0007 fills the same columns for games stored before it with
//! SQL that follows these rules to the letter (a test holds the two
//! together); a change here is a change there, in a new migration.
//!
//! - A date is read only in the PGN form `YYYY.MM.DD`, ten characters,
//!   each part digits or `?`s: a part is `NULL` when written with `?`, the
//!   year when it is `0000`, the month outside 1–12, the day outside 1–31
//!   (no calendar check). Any other form gives three `NULL`s.
//! - A time control's first period (the text before a `:`) is `S`, `S+I`,
//!   `M/S` or `M/S+I`, each number 1 to 9 ASCII digits: `S` seconds, `I`
//!   seconds added per move (0 when absent). `M/S` with `M` = 1 (`1/86400`,
//!   chess.com's daily games) is a correspondence control: no base, no
//!   increment. Every other form (`?`, `-`, `*180` sandclock, `G/60`,
//!   minutes written `90'`) gives no base and no increment.
//! - The speed is `correspondence` for a `1/S` control or when the `Event`
//!   or `TimeControl` tag says `correspondence` (any letter case, as lichess
//!   names such games); else lichess's rule on the estimated seconds
//!   `S + 40 × I`: under 30 `ultrabullet`, under 180 `bullet`, under 480
//!   `blitz`, under 1500 `rapid`, else `classical`; `NULL` without a base.

use crate::db::columns::columns;
pub use crate::db::Speed;

columns! {
    /// The analysis columns of a `games` row (see the module docs for the
    /// rules and what `NULL` means).
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct Analysis {
        /// The year of the `Date` tag.
        pub year: Option<i64>,
        /// The month of the `Date` tag, 1–12.
        pub month: Option<i64>,
        /// The day of the `Date` tag, 1–31.
        pub day: Option<i64>,
        /// The first time-control period's base time, in seconds.
        pub tc_base: Option<i64>,
        /// The first time-control period's increment per move, in seconds.
        pub tc_increment: Option<i64>,
        /// The speed class of the time control.
        pub speed: Option<Speed>,
    }
}

impl Analysis {
    /// The columns of a game with these `Date`, `TimeControl` and `Event`
    /// tag values.
    pub fn new(date: Option<&str>, time_control: Option<&str>, event: Option<&str>) -> Analysis {
        let (year, month, day) = date.map_or((None, None, None), date_parts);
        let control = time_control.map_or(Control::Unknown, Control::parse);
        let (tc_base, tc_increment) = match control {
            Control::Clock { base, increment } => (Some(base), Some(increment)),
            Control::Daily | Control::Unknown => (None, None),
        };
        let says_correspondence =
            [event, time_control].into_iter().flatten().any(mentions_correspondence);
        let speed = match control {
            _ if says_correspondence => Some(Speed::Correspondence),
            Control::Daily => Some(Speed::Correspondence),
            Control::Clock { base, increment } => Some(Speed::of_clock(base, increment)),
            Control::Unknown => None,
        };
        Analysis { year, month, day, tc_base, tc_increment, speed }
    }
}

/// The year, month and day of a `YYYY.MM.DD` date (module docs).
pub fn date_parts(date: &str) -> (Option<i64>, Option<i64>, Option<i64>) {
    let b = date.as_bytes();
    let shaped = b.len() == 10
        && b[4] == b'.'
        && b[7] == b'.'
        && b.iter().enumerate().all(|(i, &c)| i == 4 || i == 7 || c == b'?' || c.is_ascii_digit());
    if !shaped {
        return (None, None, None);
    }
    let part = |range: std::ops::Range<usize>, min: i64, max: i64| {
        let digits = &b[range];
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let n = digits.iter().fold(0, |n, &d| n * 10 + i64::from(d - b'0'));
        (min..=max).contains(&n).then_some(n)
    };
    (part(0..4, 1, 9999), part(5..7, 1, 12), part(8..10, 1, 31))
}

/// What the first period of a `TimeControl` value says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// A clock: `base` seconds, `increment` seconds added per move.
    Clock {
        /// Seconds on the clock at the start.
        base: i64,
        /// Seconds added per move.
        increment: i64,
    },
    /// One move per period (`1/86400`): days per move.
    Daily,
    /// No clock, or none this reading knows (`?`, `-`, `*180`, `G/60`).
    Unknown,
}

impl Control {
    /// Reads a `TimeControl` value's first period (module docs).
    pub fn parse(value: &str) -> Control {
        let period = value.split_once(':').map_or(value, |(first, _)| first);
        let (moves, rest) = match period.split_once('/') {
            Some((moves, rest)) => (Some(moves), rest),
            None => (None, period),
        };
        let (base, increment) = rest.split_once('+').unwrap_or((rest, "0"));
        let (Some(base), Some(increment)) = (number(base), number(increment)) else {
            return Control::Unknown;
        };
        match moves.map(number) {
            Some(None) => Control::Unknown,
            Some(Some(1)) => Control::Daily,
            _ => Control::Clock { base, increment },
        }
    }
}

/// A number of 1 to 9 ASCII digits.
fn number(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.is_empty() || b.len() > 9 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0, |n, &d| n * 10 + i64::from(d - b'0')))
}

/// `true` if `text` holds the word `correspondence` in any ASCII letter
/// case (as SQL's `LIKE '%correspondence%'` finds it).
fn mentions_correspondence(text: &str) -> bool {
    const WORD: &[u8] = b"correspondence";
    let text = text.as_bytes();
    // Checked from each `c` only: most events have none or few.
    memchr::memchr2_iter(b'c', b'C', text)
        .any(|at| text.get(at..at + WORD.len()).is_some_and(|w| w.eq_ignore_ascii_case(WORD)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::columns::Columns;

    #[test]
    fn dates() {
        for (date, expected) in [
            ("2020.05.17", (Some(2020), Some(5), Some(17))),
            ("2020.??.??", (Some(2020), None, None)),
            ("????.??.??", (None, None, None)),
            ("1851.07.??", (Some(1851), Some(7), None)),
            ("????.12.31", (None, Some(12), Some(31))),
            ("2020.13.32", (Some(2020), None, None)),
            ("2020.00.00", (Some(2020), None, None)),
            ("0000.01.01", (None, Some(1), Some(1))),
            ("20??.01.01", (None, Some(1), Some(1))),
            ("2020.02.31", (Some(2020), Some(2), Some(31))),
            ("2020", (None, None, None)),
            ("2020.5.17", (None, None, None)),
            ("2020-05-17", (None, None, None)),
            ("2020.05.17 ", (None, None, None)),
            ("2020.05.1é", (None, None, None)),
            ("", (None, None, None)),
            ("?", (None, None, None)),
        ] {
            assert_eq!(date_parts(date), expected, "{date:?}");
        }
    }

    #[test]
    fn time_controls() {
        let clock = |base, increment| Control::Clock { base, increment };
        for (value, expected) in [
            ("300+2", clock(300, 2)),
            ("600", clock(600, 0)),
            ("0+1", clock(0, 1)),
            ("15+10", clock(15, 10)),
            ("5400+30", clock(5400, 30)),
            ("40/7200:3600", clock(7200, 0)),
            ("40/5400+30:1800+30", clock(5400, 30)),
            ("1/86400", Control::Daily),
            ("1/259200", Control::Daily),
            ("?", Control::Unknown),
            ("-", Control::Unknown),
            ("", Control::Unknown),
            ("*180", Control::Unknown),
            ("G/60", Control::Unknown),
            ("90'+30\"", Control::Unknown),
            ("300+", Control::Unknown),
            ("+2", Control::Unknown),
            ("300+2+1", Control::Unknown),
            ("1234567890", Control::Unknown),
            ("123456789", clock(123_456_789, 0)),
            (" 300", Control::Unknown),
        ] {
            assert_eq!(Control::parse(value), expected, "{value:?}");
        }
    }

    #[test]
    fn speeds() {
        for (control, event, expected) in [
            ("0+1", None, Some(Speed::Bullet)),
            ("15+0", None, Some(Speed::UltraBullet)),
            ("29", None, Some(Speed::UltraBullet)),
            ("30", None, Some(Speed::Bullet)),
            ("60+0", None, Some(Speed::Bullet)),
            ("120+1", None, Some(Speed::Bullet)),
            ("180+0", None, Some(Speed::Blitz)),
            ("15+10", None, Some(Speed::Blitz)),
            ("180+2", None, Some(Speed::Blitz)),
            ("300+2", None, Some(Speed::Blitz)),
            ("479", None, Some(Speed::Blitz)),
            ("480", None, Some(Speed::Rapid)),
            ("600+5", None, Some(Speed::Rapid)),
            ("900+10", None, Some(Speed::Rapid)),
            ("1500", None, Some(Speed::Classical)),
            ("5400+30", None, Some(Speed::Classical)),
            ("40/7200:3600", None, Some(Speed::Classical)),
            ("1/86400", None, Some(Speed::Correspondence)),
            ("-", Some("Rated Correspondence game"), Some(Speed::Correspondence)),
            ("300+2", Some("ICCF CORRESPONDENCE ch"), Some(Speed::Correspondence)),
            ("correspondence", None, Some(Speed::Correspondence)),
            ("-", Some("Rated Blitz game"), None),
            ("?", None, None),
        ] {
            let a = Analysis::new(None, Some(control), event);
            assert_eq!(a.speed, expected, "{control:?} {event:?}");
        }
        let daily = Analysis::new(Some("2021.03.04"), Some("1/86400"), None);
        assert_eq!(
            daily,
            Analysis {
                year: Some(2021),
                month: Some(3),
                day: Some(4),
                speed: Some(Speed::Correspondence),
                ..Analysis::default()
            }
        );
        assert_eq!(Analysis::new(None, None, None), Analysis::default());
    }

    /// The migration's SQL fills the columns as the import does, for the
    /// values above and their neighbours in every combination.
    #[test]
    fn the_migration_agrees_with_the_import() {
        let dates = [
            "2020.05.17",
            "2020.??.??",
            "????.??.??",
            "1851.07.??",
            "????.12.31",
            "2020.13.32",
            "2020.00.00",
            "0000.01.01",
            "20??.01.01",
            "2020",
            "2020.5.17",
            "2020-05-17",
            "2020.05.17 ",
            "2020.05.1é",
            "é020.05.17",
            "",
            "?",
        ];
        let controls = [
            "300+2",
            "600",
            "0+1",
            "15+10",
            "5400+30",
            "40/7200:3600",
            "40/5400+30:1800+30",
            "1/86400",
            "01/259200",
            "1/86400+5",
            "0/300",
            "?",
            "-",
            "",
            "*180",
            "G/60",
            "90'+30\"",
            "300+",
            "+2",
            "300+2+1",
            "1234567890",
            "123456789",
            "999999999+999999999",
            " 300",
            "300+2:",
            ":300",
            "/300",
            "40/",
            "1/2/3",
            "3é0",
            "Correspondence",
            "1/x",
        ];
        let events = [
            None,
            Some("Rated Correspondence game"),
            Some("Rated Blitz game"),
            Some("é"),
            Some("cc correspondenc"),
            Some("xCORRESPONDENCE"),
        ];
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for sql in &crate::db::MIGRATIONS[..6] {
            conn.execute_batch(sql).unwrap();
        }
        let migration = crate::db::MIGRATIONS[6];
        let (alter, rest) = migration.split_at(migration.find("UPDATE games").unwrap());
        let update = &rest[..=rest.find(';').unwrap()];
        conn.execute_batch(alter).unwrap();
        let mut expected = Vec::new();
        let mut insert = conn
            .prepare(
                "INSERT INTO games (date, time_control, event, ply_count, moves, movetext, \
                 dedupe_key) VALUES (?1, ?2, ?3, 0, '', '', 0)",
            )
            .unwrap();
        let none = [None];
        for date in dates.iter().map(Some).chain(none) {
            for control in controls.iter().map(Some).chain(none) {
                for event in events {
                    insert.execute((date, control, event)).unwrap();
                    let date = date.copied();
                    let control = control.copied();
                    expected.push(Analysis::new(date, control, event));
                }
            }
        }
        drop(insert);
        conn.execute_batch(update).unwrap();
        let sql = format!(
            "SELECT {} FROM games ORDER BY id",
            crate::db::columns::select_list::<Analysis>("")
        );
        let mut st = conn.prepare(&sql).unwrap();
        let stored: Vec<Analysis> = st
            .query_map([], |r| Analysis::from_row(r, 0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(stored.len(), expected.len());
        for (i, (stored, expected)) in stored.iter().zip(&expected).enumerate() {
            let (date, control, event): (Option<String>, Option<String>, Option<String>) = conn
                .query_row(
                    "SELECT date, time_control, event FROM games WHERE id = ?1",
                    [i + 1],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .unwrap();
            assert_eq!(stored, expected, "{date:?} {control:?} {event:?}");
        }
    }
}
