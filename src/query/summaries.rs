//! The columns the explorer reads of each game (result, ratings, date)
//! held in memory, 8 bytes a game, for a process that answers many
//! explorer requests (`pgnindex serve`): a position reached by tens of
//! thousands of games then costs as many array reads instead of as many
//! seeks in `games_summary`.
//!
//! A stored game's row changes only when the game is deleted, and ids are
//! never reused, so the table is read once, then only for the games stored
//! since ([`Summaries::refreshed`]); a deleted game is never asked for (the
//! position index leaves it out). Rows are kept in chunks shared between
//! the snapshots, so a refresh copies at most one chunk. A game whose
//! columns do not fit (a date kept as written, a rating outside 0–65,534)
//! is not held: the search reads it from the database.

use std::sync::Arc;

use rusqlite::Connection;

use super::search::Outcome;
use crate::db::{GameId, Speed};

/// Games held at most (256 MiB): the games past it are read from the
/// database.
pub const MAX_GAMES: i64 = 1 << 25;

/// Rows per chunk.
const CHUNK: usize = 1 << 16;

/// `white_elo`, `black_elo`, `year` (each [`NONE`] when absent) and the
/// other bits: month (4), day (5), result (2), held (1), speed (3).
type Packed = [u16; 4];

/// An absent rating or year.
const NONE: u16 = u16::MAX;
/// The bit of a row that is held.
const HELD: u16 = 1 << 11;
/// Where the speed's bits start: 0 when not read, else 1 + its place in
/// [`Speed::ALL`], or [`NO_SPEED`].
const SPEED_SHIFT: u16 = 12;
/// The speed bits of a game without a speed.
const NO_SPEED: u16 = 7;

/// One game's columns, as the explorer reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// The result, if decisive or drawn.
    pub result: Option<Outcome>,
    /// White's rating.
    pub white_elo: Option<i64>,
    /// Black's rating.
    pub black_elo: Option<i64>,
    /// Year, month and day of the date, when its year is known (an unknown
    /// month or day is `None`).
    pub date: Option<(u16, Option<u8>, Option<u8>)>,
    /// The speed, when the summaries hold it: `Some(None)` for a game
    /// without one; `None` on a database whose summary index lacks it
    /// (schema before 27), where it is read from the game's row.
    pub speed: Option<Option<Speed>>,
}

impl Summary {
    /// The date as the database writes it (`2024.03.??`), written into
    /// `out` (no allocation once `out` has room).
    pub fn write_date<'a>(&self, out: &'a mut String) -> Option<&'a str> {
        let (year, month, day) = self.date?;
        let parts = (Some(i64::from(year)), month.map(i64::from), day.map(i64::from));
        crate::db::dates::write_written(out, parts.0, parts.1, parts.2).then_some(out.as_str())
    }
}

/// The games' summaries held, by id from 1.
#[derive(Debug, Clone, Default)]
pub struct Summaries {
    chunks: Vec<Arc<Vec<Packed>>>,
    /// Every id up to this one was read.
    read_to: i64,
}

impl Summaries {
    /// The summaries as of `conn`'s snapshot: `self` when no game was
    /// stored since it was read, else a new snapshot with the games past
    /// `read_to` added (up to [`MAX_GAMES`]). Empty for a database before
    /// schema 19, whose dates the table cannot hold, or without its
    /// `games_summary` index: every game is read from the database then.
    ///
    /// # Errors
    /// SQLite's.
    pub fn refreshed(self: &Arc<Self>, conn: &Connection) -> rusqlite::Result<Arc<Summaries>> {
        let schema = crate::db::schema::Schema::of(conn)?;
        let indexed: bool = conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'games_summary' \
             AND tbl_name = 'game_rows'",
            [],
            |r| r.get(0),
        )?;
        if !schema.has(crate::db::schema::Schema::COMPACT_ROWS) || !indexed {
            return Ok(Arc::clone(self));
        }
        let last: i64 =
            conn.query_row("SELECT coalesce(max(id), 0) FROM game_rows", [], |r| r.get(0))?;
        let last = last.min(MAX_GAMES);
        if last <= self.read_to {
            return Ok(Arc::clone(self));
        }
        let mut next = Summaries::clone(self);
        // The speeds by their text's id; the column is read only where the
        // index holds it.
        let speeds = if schema.has(crate::db::schema::Schema::SUMMARY_SPEED) {
            let mut st = conn.prepare(
                "SELECT id, text FROM game_texts WHERE text IN (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            let names = Speed::ALL.map(Speed::as_str);
            let found =
                st.query_map(names, |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
            let mut speeds = Vec::new();
            for row in found {
                let (id, text) = row?;
                speeds.extend(Speed::from_name(&text).map(|speed| (id, speed)));
            }
            Some(speeds)
        } else {
            None
        };
        let speed_column = if speeds.is_some() { "speed_id" } else { "NULL" };
        let mut st = conn.prepare(&format!(
            "SELECT id, result, white_elo, black_elo, date IS NULL, year, month, day, {speed_column} \
             FROM game_rows INDEXED BY games_summary WHERE id > ?1 AND id <= ?2 ORDER BY id"
        ))?;
        let mut rows = st.query([self.read_to, last])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            let speed = speeds.as_ref().map(|speeds| {
                let text_id: Option<i64> = r.get(8)?;
                Ok::<_, rusqlite::Error>(
                    text_id.and_then(|t| speeds.iter().find(|(id, _)| *id == t).map(|&(_, s)| s)),
                )
            });
            let packed = pack(
                r.get_ref(1)?.as_str_or_null()?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                [r.get(5)?, r.get(6)?, r.get(7)?],
                speed.transpose()?,
            );
            next.set(id, packed);
        }
        next.read_to = last;
        Ok(Arc::new(next))
    }

    /// Stores row `id` (from 1), the rows before it not held unless set.
    fn set(&mut self, id: i64, packed: Packed) {
        let Ok(index) = usize::try_from(id - 1) else { return };
        let (chunk, at) = (index / CHUNK, index % CHUNK);
        while self.chunks.len() <= chunk {
            self.chunks.push(Arc::new(Vec::new()));
        }
        let rows = Arc::make_mut(&mut self.chunks[chunk]);
        if rows.len() <= at {
            rows.resize(at + 1, [0; 4]);
        }
        rows[at] = packed;
    }

    /// The game's summary, if held.
    pub fn get(&self, id: GameId) -> Option<Summary> {
        let index = usize::try_from(i64::from(id) - 1).ok()?;
        let packed = *self.chunks.get(index / CHUNK)?.get(index % CHUNK)?;
        let bits = packed[3];
        if bits & HELD == 0 {
            return None;
        }
        let elo = |v: u16| (v != NONE).then_some(i64::from(v));
        let part = |v: u16| (v != 0).then_some(v as u8);
        Some(Summary {
            result: match bits >> 9 & 3 {
                1 => Some(Outcome::WhiteWins),
                2 => Some(Outcome::Draw),
                3 => Some(Outcome::BlackWins),
                _ => None,
            },
            white_elo: elo(packed[0]),
            black_elo: elo(packed[1]),
            date: (packed[2] != NONE).then(|| (packed[2], part(bits & 15), part(bits >> 4 & 31))),
            speed: match bits >> SPEED_SHIFT {
                0 => None,
                NO_SPEED => Some(None),
                n => Some(Speed::ALL.get(usize::from(n) - 1).copied()),
            },
        })
    }

    /// The games held.
    pub fn len(&self) -> usize {
        self.chunks.iter().map(|c| c.iter().filter(|p| p[3] & HELD != 0).count()).sum()
    }

    /// `true` if no game is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A row packed, or not held (all zeros) when a column does not fit:
/// `date_from_parts` is `false` when the date is kept as written; `speed`
/// is `None` when not read.
fn pack(
    result: Option<&str>,
    white_elo: Option<i64>,
    black_elo: Option<i64>,
    date_from_parts: bool,
    [year, month, day]: [Option<i64>; 3],
    speed: Option<Option<Speed>>,
) -> Packed {
    const NOT_HELD: Packed = [0; 4];
    let elo = |v: Option<i64>| match v {
        None => Some(NONE),
        Some(v) => u16::try_from(v).ok().filter(|&v| v != NONE),
    };
    let (Some(white), Some(black)) = (elo(white_elo), elo(black_elo)) else { return NOT_HELD };
    if !date_from_parts {
        return NOT_HELD;
    }
    // The parts as the importer stores them: a year 0–9999, a month 1–12,
    // a day 1–31; any other value is read from the database.
    let year = match year {
        None => NONE,
        Some(y) if (0..=9999).contains(&y) => y as u16,
        Some(_) => return NOT_HELD,
    };
    let part = |v: Option<i64>, max: i64| match v {
        None => Some(0),
        Some(v) if (1..=max).contains(&v) => Some(v as u16),
        Some(_) => None,
    };
    let (Some(month), Some(day)) = (part(month, 12), part(day, 31)) else { return NOT_HELD };
    let result = match result.and_then(Outcome::from_result) {
        None => 0,
        Some(Outcome::WhiteWins) => 1,
        Some(Outcome::Draw) => 2,
        Some(Outcome::BlackWins) => 3,
    };
    let speed = match speed {
        None => 0,
        Some(None) => NO_SPEED,
        Some(Some(speed)) => 1 + Speed::ALL.iter().position(|&s| s == speed).unwrap_or(0) as u16,
    };
    [white, black, year, speed << SPEED_SHIFT | HELD | result << 9 | day << 4 | month]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refresh_reads_the_games_stored_since() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        // The date's parts as the importer gives them with the date.
        let insert = |id: i64,
                      result: &str,
                      elo: Option<i64>,
                      date: &str,
                      parts: [Option<i64>; 3],
                      speed: Option<&str>| {
            conn.execute(
                "INSERT INTO games (id, ply_count, moves, movetext, dedupe_key, result, \
                 white_elo, date, year, month, day, speed) \
                 VALUES (?1, 0, '', '', 0, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                rusqlite::params![id, result, elo, date, parts[0], parts[1], parts[2], speed],
            )
            .unwrap();
        };
        insert(1, "1-0", Some(2400), "2024.03.??", [Some(2024), Some(3), None], Some("blitz"));
        insert(2, "0-1", None, "2024.3.9", [Some(2024), Some(3), Some(9)], None);
        let first = Arc::new(Summaries::default()).refreshed(&conn).unwrap();
        let one = first.get(GameId::new(1)).unwrap();
        assert_eq!((one.result, one.white_elo), (Some(Outcome::WhiteWins), Some(2400)));
        assert_eq!(one.write_date(&mut String::new()), Some("2024.03.??"));
        assert_eq!(one.speed, Some(Some(Speed::Blitz)));
        assert_eq!(first.get(GameId::new(2)), None, "a date kept as written is read from SQLite");
        assert!(Arc::ptr_eq(&first, &first.refreshed(&conn).unwrap()), "nothing new");
        insert(3, "1/2-1/2", None, "????.??.??", [None, None, None], Some("classical"));
        insert(4, "*", Some(1500), "1999.12.31", [Some(1999), Some(12), Some(31)], None);
        let next = first.refreshed(&conn).unwrap();
        assert_eq!(next.get(GameId::new(4)).unwrap().black_elo, None);
        assert_eq!(next.get(GameId::new(4)).unwrap().speed, Some(None));
        assert_eq!(next.len(), 2, "games 1 and 4");
        assert_eq!(first.len(), 1, "a snapshot does not change");
        // Without the summary index nothing is held.
        conn.execute_batch("DROP INDEX games_summary").unwrap();
        assert!(Arc::new(Summaries::default()).refreshed(&conn).unwrap().is_empty());
    }

    #[test]
    fn rows_read_back_as_stored_and_the_odd_ones_are_not_held() {
        let mut s = Summaries::default();
        s.set(1, pack(Some("1-0"), Some(2400), None, true, [Some(2024), Some(3), None], None));
        s.set(3, pack(Some("*"), None, Some(0), true, [None, None, None], Some(None)));
        s.set(4, pack(Some("0-1"), Some(70_000), None, true, [None, None, None], None));
        s.set(5, pack(Some("1/2-1/2"), None, None, false, [Some(2024), Some(3), Some(9)], None));
        s.set(
            CHUNK as i64 + 2,
            pack(
                Some("1/2-1/2"),
                Some(65_534),
                None,
                true,
                [Some(0), Some(12), Some(31)],
                Some(Some(Speed::Correspondence)),
            ),
        );
        let g = |id| s.get(GameId::new(id));
        let first = g(1).unwrap();
        assert_eq!(first.result, Some(Outcome::WhiteWins));
        assert_eq!((first.white_elo, first.black_elo), (Some(2400), None));
        let mut out = String::new();
        assert_eq!(first.write_date(&mut out), Some("2024.03.??"));
        assert_eq!(first.speed, None, "a speed not read");
        assert_eq!(g(2), None, "a gap");
        let third = g(3).unwrap();
        assert_eq!((third.result, third.black_elo, third.date), (None, Some(0), None));
        assert_eq!(third.speed, Some(None), "a game without a speed");
        assert_eq!(g(4), None, "a rating past 16 bits");
        assert_eq!(g(5), None, "a date kept as written");
        let far = g(CHUNK as u32 + 2).unwrap();
        assert_eq!(far.write_date(&mut out), Some("0000.12.31"));
        assert_eq!((far.result, far.white_elo), (Some(Outcome::Draw), Some(65_534)));
        assert_eq!(far.speed, Some(Some(Speed::Correspondence)));
        assert_eq!(g(CHUNK as u32 + 3), None);
        assert_eq!(s.len(), 3);
    }
}
