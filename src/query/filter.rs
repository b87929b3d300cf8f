//! Header filters ([`Filters`]) and their SQL: a `WHERE` fragment over the
//! games (alias `g`: the `games` table, or from schema 16 the `game_rows`
//! table behind the `games` view, its few-valued texts compared by id)
//! whose every value is a bound parameter, so a quote, `%` or `_` in a name
//! is matched as text.
//!
//! Matching rules:
//! - names (`white`, `black`, `player`, `event`, `site`): case-insensitive
//!   substring — `carlsen` matches `Carlsen, Magnus` and `MagnusCarlsen`.
//!   Case folding is SQLite's `LIKE`: ASCII letters only (`é` ≠ `É`);
//! - `eco`: one code (`B90`), a range (`A00-B99`, inclusive), or a prefix
//!   (`B` = `B00-B99`, `B9` = `B90-B99`); codes with a suffix (`B90a`)
//!   belong to their code. The `ECO` tag decides; a game without one
//!   (`NULL`, empty or `?`) is matched by the ECO code of its opening by
//!   position (`opening_eco`, schema version 9) instead;
//! - `opening`: case-insensitive substring of the name of the opening by
//!   position (`opening_name`, schema version 9), not of the `Opening` tag;
//! - `result`: `1-0`, `0-1`, `1/2-1/2` (also `1/2`, `½-½`, `draw`) or `*`,
//!   White's view;
//! - `outcome`: the result from the side of the `player` filter's player:
//!   won (`1-0` as White, `0-1` as Black), lost, or drew; it needs
//!   `player`. A game both of whose names match passes when either side
//!   has the outcome;
//! - `min_elo`/`max_elo`: both players' ratings within the bound; a game
//!   without both ratings never passes an Elo filter;
//! - `since`/`until`: PGN dates `YYYY`, `YYYY.MM` or `YYYY.MM.DD` (`-` or
//!   `/` also separate), inclusive; `until 2020` includes all of 2020.
//!   Unknown parts of a stored date (`2020.??.??`) count as the earliest
//!   value (`2020.00.00`), and a game without a known year never passes;
//! - `min_plies`: the mainline has at least this many half-moves;
//! - `speeds`: the game's `speed` column (read by the import from its time
//!   control) is one of them; a game of unknown speed never passes;
//! - `rating_groups`: lichess's rating groups (0, 1000, 1200, 1400, 1600,
//!   1800, 2000, 2200, 2500) of the two players' average rating, rounded
//!   down; a game without both ratings never passes;
//! - `exact_names`: the name filters match whole names (still
//!   case-insensitive) instead of substrings;
//! - `mode`: rated or casual, as lichess's events say (`Rated Blitz game`,
//!   `Casual Rapid game`); a game whose event says neither is rated when
//!   both players have a rating (an OTB game with Elos), casual otherwise
//!   ([`Mode::of_game`]);
//! - `masters`: lichess's masters games: both players rated, averaging at
//!   least 2200, not played online (by the site and the event).

use std::fmt::Write;

use rusqlite::types::Value;
use rusqlite::Connection;

use super::error::QueryError;

use crate::db::schema::Schema;
use crate::db::texts::{self, is_text_column};
use crate::db::GameId;
use crate::db::Speed;
use crate::store::format::explorer::{online_event_sql, online_site_sql, MASTERS_AVERAGE};

/// Why a filter value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    /// Not an ECO code, prefix or range.
    #[error("--eco: '{0}' is not an ECO code (A00 to E99), a prefix (B, B9) or a range (A00-B99)")]
    Eco(String),
    /// An ECO range whose start is after its end.
    #[error("--eco: the range '{0}' is empty (its start is after its end)")]
    EcoOrder(String),
    /// Not a result.
    #[error("--result: '{0}' is not a result (1-0, 0-1, 1/2-1/2 or *)")]
    Result(String),
    /// Not a PGN date.
    #[error("--{flag}: '{value}' is not a date (YYYY, YYYY.MM or YYYY.MM.DD)")]
    Date {
        /// `since` or `until`.
        flag: &'static str,
        /// The value given.
        value: String,
    },
    /// A result from a player's side without the player.
    #[error("--{0} needs --player NAME: it is the result from that player's side")]
    OutcomeWithoutPlayer(&'static str),
    /// An empty name.
    #[error("--{0}: the name is empty")]
    EmptyName(&'static str),
    /// Not a rating.
    #[error("--rating-group: '{0}' is not a rating (0, 1000, 1200, 1400, 1600, 1800, 2000, 2200 or 2500 name the groups)")]
    RatingGroup(String),
    /// Not a mode.
    #[error("--mode: '{0}' is not a mode (rated or casual)")]
    Mode(String),
}

/// An inclusive range of ECO codes, as the first three characters compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EcoRange {
    /// First code, e.g. `A00`.
    pub first: String,
    /// Last code, e.g. `B99`.
    pub last: String,
}

impl std::str::FromStr for EcoRange {
    type Err = FilterError;

    fn from_str(text: &str) -> Result<EcoRange, FilterError> {
        let err = || FilterError::Eco(text.to_string());
        let upper = text.trim().to_ascii_uppercase();
        let bounds = |part: &str| -> Option<(String, String)> {
            let b = part.as_bytes();
            let letter_ok = matches!(b.first(), Some(b'A'..=b'E'));
            if !letter_ok || !b[1..].iter().all(u8::is_ascii_digit) {
                return None;
            }
            match b.len() {
                1 => Some((format!("{part}00"), format!("{part}99"))),
                2 => Some((format!("{part}0"), format!("{part}9"))),
                3 => Some((part.to_string(), part.to_string())),
                _ => None,
            }
        };
        let (first, last) = match upper.split_once('-') {
            Some((a, b)) => {
                let (first, _) = bounds(a.trim()).ok_or_else(err)?;
                let (_, last) = bounds(b.trim()).ok_or_else(err)?;
                (first, last)
            }
            None => bounds(&upper).ok_or_else(err)?,
        };
        if first > last {
            return Err(FilterError::EcoOrder(text.to_string()));
        }
        Ok(EcoRange { first, last })
    }
}

/// A game's result from one player's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The player won.
    Won,
    /// The player lost.
    Lost,
    /// The game was drawn.
    Drew,
}

impl Outcome {
    /// The flag that asks for it: `won`, `lost` or `drew`.
    pub fn flag(self) -> &'static str {
        match self {
            Outcome::Won => "won",
            Outcome::Lost => "lost",
            Outcome::Drew => "drew",
        }
    }
}

/// A game result as stored in `games.result`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultFilter {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*`.
    Unknown,
}

impl ResultFilter {
    /// The stored text.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultFilter::WhiteWins => "1-0",
            ResultFilter::BlackWins => "0-1",
            ResultFilter::Draw => "1/2-1/2",
            ResultFilter::Unknown => "*",
        }
    }
}

impl std::str::FromStr for ResultFilter {
    type Err = FilterError;

    fn from_str(text: &str) -> Result<ResultFilter, FilterError> {
        Ok(match text.trim().to_ascii_lowercase().as_str() {
            "1-0" => ResultFilter::WhiteWins,
            "0-1" => ResultFilter::BlackWins,
            "1/2-1/2" | "1/2" | "½-½" | "draw" => ResultFilter::Draw,
            "*" => ResultFilter::Unknown,
            _ => return Err(FilterError::Result(text.to_string())),
        })
    }
}

/// A PGN date bound: `YYYY`, `YYYY.MM` or `YYYY.MM.DD`, kept in the stored
/// form (`.` separators, two-digit month and day).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateBound(String);

impl DateBound {
    /// Reads a date given to `--since` or `--until` (named `flag` in the
    /// error).
    ///
    /// # Errors
    /// [`FilterError::Date`] if it is not a date.
    pub fn parse(flag: &'static str, text: &str) -> Result<DateBound, FilterError> {
        let err = || FilterError::Date { flag, value: text.to_string() };
        let parts: Vec<&str> = text.trim().split(['.', '-', '/']).collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(err());
        }
        let number = |s: &str, len: std::ops::RangeInclusive<usize>, max: u32| {
            (len.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u32>().ok())
                .flatten()
                .filter(|&n| n <= max)
        };
        let year = number(parts[0], 4..=4, 9999).ok_or_else(err)?;
        let mut out = format!("{year:04}");
        for (part, max) in parts[1..].iter().zip([12, 31]) {
            let n = number(part, 1..=2, max).filter(|&n| n > 0).ok_or_else(err)?;
            let _ = write!(out, ".{n:02}");
        }
        Ok(DateBound(out))
    }

    /// The bound as stored dates are written (`2020`, `2020.05`, ...).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The bound as the number `YYYYMMDD`, a missing month or day as
    /// `fill` (0 for the start of the period, 99 for its end).
    fn number(&self, fill: i64) -> i64 {
        let mut parts = self.0.split('.').map(|p| p.parse::<i64>().unwrap_or(0));
        let year = parts.next().unwrap_or(0);
        let month = parts.next().unwrap_or(fill);
        let day = parts.next().unwrap_or(fill);
        (year * 100 + month) * 100 + day
    }
}

/// Every header filter of a query; `Default` filters nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    /// Substring of the white player's name.
    pub white: Option<String>,
    /// Substring of the black player's name.
    pub black: Option<String>,
    /// Substring of either player's name.
    pub player: Option<String>,
    /// Substring of the event.
    pub event: Option<String>,
    /// Substring of the site.
    pub site: Option<String>,
    /// ECO codes: of the tag, or by position for a game without the tag.
    pub eco: Option<EcoRange>,
    /// Substring of the name of the opening by position.
    pub opening: Option<String>,
    /// The result.
    pub result: Option<ResultFilter>,
    /// The result from the side of [`Filters::player`]'s player.
    pub outcome: Option<Outcome>,
    /// Both players rated at least this.
    pub min_elo: Option<i64>,
    /// Both players rated at most this.
    pub max_elo: Option<i64>,
    /// Played on or after this date.
    pub since: Option<DateBound>,
    /// Played on or before this date (the whole period of a partial date).
    pub until: Option<DateBound>,
    /// At least this many half-moves.
    pub min_plies: Option<u32>,
    /// The speed classes (`games.speed`, schema version 7); empty: any.
    pub speeds: Vec<Speed>,
    /// Lichess's rating groups of the players' average; empty: any.
    pub rating_groups: Vec<RatingGroup>,
    /// The name filters match whole names, not substrings.
    pub exact_names: bool,
    /// Rated or casual, by the event.
    pub mode: Option<Mode>,
    /// Masters games, as lichess's masters collection holds them: both
    /// players rated, averaging at least [`MASTERS_AVERAGE`], and not
    /// played online (by the site, or an event naming lichess's mode):
    /// [`crate::store::format::explorer::is_masters`].
    pub masters: bool,
    /// Played before this date: the first day of its period (`2024.05`:
    /// before May 2024); undated games are left out.
    pub before: Option<DateBound>,
    /// Games left out by id (the game a query is about).
    pub exclude: Vec<GameId>,
}

/// One of lichess's rating groups: the games whose players' average rating
/// (rounded down) is at least [`RatingGroup::floor`] and below the next
/// group's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RatingGroup(u16);

impl RatingGroup {
    /// The groups' floors, lowest first.
    pub const FLOORS: [u16; 9] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];

    /// The group an average rating falls in (negative ratings in the
    /// lowest).
    pub fn of_average(average: i64) -> RatingGroup {
        let floor =
            RatingGroup::FLOORS.into_iter().rev().find(|&f| average >= i64::from(f)).unwrap_or(0);
        RatingGroup(floor)
    }

    /// The lowest average of the group.
    pub fn floor(self) -> u16 {
        self.0
    }

    /// The lowest average of the next group; `None` for the highest.
    pub fn ceiling(self) -> Option<u16> {
        RatingGroup::FLOORS.into_iter().find(|&f| f > self.0)
    }
}

impl std::str::FromStr for RatingGroup {
    type Err = FilterError;

    /// A rating: the group it falls in, as lichess reads its `ratings`.
    fn from_str(text: &str) -> Result<RatingGroup, FilterError> {
        text.trim()
            .parse::<u16>()
            .map(|r| RatingGroup::of_average(i64::from(r)))
            .map_err(|_| FilterError::RatingGroup(text.to_string()))
    }
}

/// Whether a game counted for a rating, as lichess's events say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `Rated …` events.
    Rated,
    /// `Casual …` events.
    Casual,
}

impl Mode {
    /// `rated` or `casual`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Rated => "rated",
            Mode::Casual => "casual",
        }
    }

    /// The mode of a game: the one its event names, else rated when both
    /// players have a rating.
    pub fn of_game(event: Option<&str>, white_elo: Option<i64>, black_elo: Option<i64>) -> Mode {
        match event.and_then(Mode::of_event) {
            Some(mode) => mode,
            None if white_elo.is_some() && black_elo.is_some() => Mode::Rated,
            None => Mode::Casual,
        }
    }

    /// The mode an event names (`Rated Blitz game`), if any.
    pub fn of_event(event: &str) -> Option<Mode> {
        let word = event.split_ascii_whitespace().next()?;
        if word.eq_ignore_ascii_case("rated") {
            Some(Mode::Rated)
        } else if word.eq_ignore_ascii_case("casual") {
            Some(Mode::Casual)
        } else {
            None
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = FilterError;

    fn from_str(text: &str) -> Result<Mode, FilterError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "rated" => Ok(Mode::Rated),
            "casual" => Ok(Mode::Casual),
            _ => Err(FilterError::Mode(text.to_string())),
        }
    }
}

/// A `WHERE` fragment and its parameters, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct SqlFilter {
    /// The table the conditions are on, to be named `g`: `games`, or from
    /// schema [`Schema::GAME_ROWS`] `game_rows`, whose few-valued texts the
    /// conditions compare by their ids.
    pub table: &'static str,
    /// Conditions, each starting with ` AND `; empty when nothing is
    /// filtered.
    pub sql: String,
    /// One value per `?` of `sql`.
    pub params: Vec<Value>,
}

impl Default for SqlFilter {
    fn default() -> SqlFilter {
        SqlFilter { table: "games", sql: String::new(), params: Vec::new() }
    }
}

impl Filters {
    /// `true` if no filter is set.
    pub fn is_empty(&self) -> bool {
        *self == Filters::default()
    }

    /// Checks the names (an empty name would match every game, which is
    /// surely not what was meant), and that an outcome has its player.
    ///
    /// # Errors
    /// [`FilterError::EmptyName`], [`FilterError::OutcomeWithoutPlayer`].
    pub fn check(&self) -> Result<(), FilterError> {
        let names = [
            ("white", &self.white),
            ("black", &self.black),
            ("player", &self.player),
            ("event", &self.event),
            ("site", &self.site),
            ("opening", &self.opening),
        ];
        for (flag, value) in names {
            if value.as_deref().is_some_and(|v| v.trim().is_empty()) {
                return Err(FilterError::EmptyName(flag));
            }
        }
        match self.outcome {
            Some(outcome) if self.player.is_none() => {
                Err(FilterError::OutcomeWithoutPlayer(outcome.flag()))
            }
            _ => Ok(()),
        }
    }

    /// [`Filters::to_sql`] for the schema of `conn`'s database, once
    /// [`Filters::check_schema`] allows them.
    ///
    /// # Errors
    /// [`QueryError::Sqlite`] reading the version,
    /// [`QueryError::Predates`] for a filter the database predates.
    pub fn sql_for(&self, conn: &Connection) -> Result<SqlFilter, QueryError> {
        let schema = Schema::of(conn).map_err(QueryError::sqlite(conn))?;
        self.check_schema(schema).map_err(|(filter, part, advice)| QueryError::Predates {
            path: crate::query::error::path_of(conn),
            filter,
            schema,
            part,
            advice,
        })?;
        Ok(self.to_sql(schema))
    }

    /// Refuses a filter on a column `schema` predates: the filter (named as
    /// the CLI names it), the schema that brought its column, and how to
    /// get it.
    ///
    /// # Errors
    /// The first such filter.
    pub fn check_schema(&self, schema: Schema) -> Result<(), (&'static str, Schema, &'static str)> {
        if !self.speeds.is_empty() && !schema.has(Schema::SPEED) {
            return Err(("--speed", Schema::SPEED, "`pgnindex vacuum` brings it up to date"));
        }
        if self.opening.is_some() && !schema.has(Schema::OPENINGS) {
            return Err((
                "--opening",
                Schema::OPENINGS,
                "importing its sources into a new database names its games",
            ));
        }
        Ok(())
    }

    /// The conditions on [`SqlFilter::table`] `AS g` of a database of
    /// `schema`: before [`Schema::OPENINGS`], `eco` reads the tag
    /// alone (there is no opening by position to fall back on) and
    /// `opening` is not allowed (the caller refuses it first).
    pub fn to_sql(&self, schema: Schema) -> SqlFilter {
        let ids = schema.has(Schema::GAME_ROWS);
        let names = schema.has(Schema::COMPACT_ROWS);
        let mut f =
            SqlFilter { table: if ids { "game_rows" } else { "games" }, ..SqlFilter::default() };
        let like = |name: &str| {
            let name = escape_like(name.trim());
            Value::Text(if self.exact_names { name } else { format!("%{name}%") })
        };
        for (column, value) in [
            ("white", &self.white),
            ("black", &self.black),
            ("event", &self.event),
            ("site", &self.site),
            ("opening_name", &self.opening),
        ] {
            let Some(v) = value else { continue };
            if names && texts::NAME_COLUMNS.contains(&column) {
                let _ = write!(f.sql, " AND {}", name_like(column));
                f.params.extend([like(v), like(v)]);
                continue;
            }
            if ids && is_text_column(column) {
                // The dictionary is matched once; each game compares an id.
                let _ = write!(
                    f.sql,
                    " AND g.{column}_id IN (SELECT id FROM game_texts WHERE text LIKE ? ESCAPE '\\')"
                );
            } else {
                let _ = write!(f.sql, " AND g.{column} LIKE ? ESCAPE '\\'");
            }
            f.params.push(like(v));
        }
        if let Some(v) = &self.player {
            // The player's side decides a win or a loss.
            let sides = match self.outcome {
                Some(Outcome::Won) => Some(("1-0", "0-1")),
                Some(Outcome::Lost) => Some(("0-1", "1-0")),
                Some(Outcome::Drew) | None => None,
            };
            // Each name condition takes the pattern once, or twice where a
            // name may be an id.
            let (white, black, n) = if names {
                (name_like("white"), name_like("black"), 2)
            } else {
                (
                    "g.white LIKE ? ESCAPE '\\'".to_string(),
                    "g.black LIKE ? ESCAPE '\\'".to_string(),
                    1,
                )
            };
            if let Some((as_white, as_black)) = sides {
                let _ = write!(
                    f.sql,
                    " AND (({white} AND g.result = ?) OR ({black} AND g.result = ?))"
                );
                f.params.extend(std::iter::repeat_n(like(v), n));
                f.params.push(Value::Text(as_white.to_string()));
                f.params.extend(std::iter::repeat_n(like(v), n));
                f.params.push(Value::Text(as_black.to_string()));
            } else {
                let _ = write!(f.sql, " AND ({white} OR {black})");
                f.params.extend(std::iter::repeat_n(like(v), 2 * n));
            }
            if self.outcome == Some(Outcome::Drew) {
                f.sql += " AND g.result = ?";
                f.params.push(Value::Text(ResultFilter::Draw.as_str().to_string()));
            }
        }
        if let Some(eco) = &self.eco {
            // The end is the last code with its last digit raised by one
            // (`B99` → `B9:`, as ':' follows '9'), so suffixed codes
            // (`B99a`) stay with their code.
            let last = eco.last.as_bytes();
            let end = format!("{}{}", &eco.last[..2], char::from(last[2] + 1));
            if ids {
                f.sql += " AND ((g.eco >= ? AND g.eco < ?) OR \
                          (coalesce(g.eco, '') IN ('', '?') AND EXISTS (SELECT 1 FROM game_rows AS o \
                           WHERE o.id = g.id AND o.opening_eco_id IN \
                           (SELECT id FROM game_texts WHERE text >= ? AND text < ?))))";
                f.params.push(Value::Text(eco.first.clone()));
                f.params.push(Value::Text(end.clone()));
            } else if schema.has(Schema::OPENINGS) {
                // `opening_eco` read by a rowid seek of its own, and only
                // for a game without the tag: the other columns stay
                // within the `games_summary` index, which a count or a
                // join then reads instead of the wide table rows.
                f.sql += " AND ((g.eco >= ? AND g.eco < ?) OR \
                          (coalesce(g.eco, '') IN ('', '?') AND EXISTS (SELECT 1 FROM games AS o \
                           WHERE o.id = g.id AND o.opening_eco >= ? AND o.opening_eco < ?)))";
                f.params.push(Value::Text(eco.first.clone()));
                f.params.push(Value::Text(end.clone()));
            } else {
                f.sql += " AND g.eco >= ? AND g.eco < ?";
            }
            f.params.push(Value::Text(eco.first.clone()));
            f.params.push(Value::Text(end));
        }
        if let Some(r) = self.result {
            f.sql += " AND g.result = ?";
            f.params.push(Value::Text(r.as_str().to_string()));
        }
        if let Some(n) = self.min_elo {
            f.sql += " AND g.white_elo >= ? AND g.black_elo >= ?";
            f.params.extend([Value::Integer(n), Value::Integer(n)]);
        }
        if let Some(n) = self.max_elo {
            f.sql += " AND g.white_elo <= ? AND g.black_elo <= ?";
            f.params.extend([Value::Integer(n), Value::Integer(n)]);
        }
        // From schema 19 a `game_rows` date is NULL where its parts write
        // it: those compare as the number YYYYMMDD (unknown parts 0), the
        // others as text with unknown parts read as zeros.
        let parts = schema.has(Schema::COMPACT_ROWS);
        let as_text = "g.date GLOB '[0-9][0-9][0-9][0-9]*' AND replace(g.date, '?', '0')";
        let bounds =
            [(&self.since, ">=", 0, ""), (&self.until, "<=", 99, "~"), (&self.before, "<", 0, "")];
        for (bound, op, fill, end) in bounds {
            let Some(d) = bound else { continue };
            // '~' sorts after digits, '.' and '?': every date of the period.
            let text = Value::Text(format!("{}{end}", d.as_str()));
            if parts {
                let _ = write!(
                    f.sql,
                    " AND (CASE WHEN g.date IS NULL THEN g.year * 10000 \
                     + coalesce(g.month, 0) * 100 + coalesce(g.day, 0) {op} ? \
                     ELSE {as_text} {op} ? END)"
                );
                f.params.extend([Value::Integer(d.number(fill)), text]);
            } else {
                let _ = write!(f.sql, " AND {as_text} {op} ?");
                f.params.push(text);
            }
        }
        if !self.exclude.is_empty() {
            let marks = vec!["?"; self.exclude.len()].join(", ");
            let _ = write!(f.sql, " AND g.id NOT IN ({marks})");
            f.params.extend(self.exclude.iter().map(|id| Value::Integer(i64::from(id.get()))));
        }
        if let Some(n) = self.min_plies {
            f.sql += " AND g.ply_count >= ?";
            f.params.push(Value::Integer(i64::from(n)));
        }
        if !self.speeds.is_empty() {
            let marks = vec!["?"; self.speeds.len()].join(", ");
            let _ = if ids {
                write!(
                    f.sql,
                    " AND g.speed_id IN (SELECT id FROM game_texts WHERE text IN ({marks}))"
                )
            } else {
                write!(f.sql, " AND g.speed IN ({marks})")
            };
            f.params.extend(self.speeds.iter().map(|s| Value::Text(s.as_str().to_string())));
        }
        if !self.rating_groups.is_empty() {
            f.sql += " AND g.white_elo IS NOT NULL AND g.black_elo IS NOT NULL AND (0";
            for group in &self.rating_groups {
                f.sql += " OR ((g.white_elo + g.black_elo) / 2 >= ?";
                f.params.push(Value::Integer(i64::from(group.floor())));
                if let Some(ceiling) = group.ceiling() {
                    f.sql += " AND (g.white_elo + g.black_elo) / 2 < ?";
                    f.params.push(Value::Integer(i64::from(ceiling)));
                }
                f.sql += ")";
            }
            f.sql += ")";
        }
        if self.masters {
            let rated = "g.white_elo IS NOT NULL AND g.black_elo IS NOT NULL";
            write!(f.sql, " AND {rated} AND (g.white_elo + g.black_elo) / 2 >= {MASTERS_AVERAGE}")
                .unwrap();
            // Each game's own text looked up, not the dictionary searched for
            // every online text: a database of online games has a site per
            // game, and a query reads far fewer games than that.
            let text_of = |id: &str, test: fn(&str) -> String| {
                format!("(SELECT {} FROM game_texts AS t WHERE t.id = {id})", test("t.text"))
            };
            let online_site = if names {
                format!(
                    "CASE WHEN typeof(g.site) = 'integer' THEN {} ELSE {} END",
                    text_of("g.site", online_site_sql),
                    online_site_sql("g.site")
                )
            } else {
                online_site_sql("g.site")
            };
            let online_event = match ids {
                true => text_of("g.event_id", online_event_sql),
                false => online_event_sql("g.event"),
            };
            write!(
                f.sql,
                " AND NOT coalesce({online_site}, 0) AND NOT coalesce({online_event}, 0)"
            )
            .unwrap();
        }
        if let Some(mode) = self.mode {
            let mut says = |word: &str| -> String {
                f.params.push(Value::Text(format!("{word} %")));
                match ids {
                    true => "coalesce(g.event_id IN \
                             (SELECT id FROM game_texts WHERE text LIKE ?), 0)"
                        .to_string(),
                    false => "coalesce(g.event LIKE ?, 0)".to_string(),
                }
            };
            let (this, other) = match mode {
                Mode::Rated => (says("rated"), says("casual")),
                Mode::Casual => (says("casual"), says("rated")),
            };
            let rated = "g.white_elo IS NOT NULL AND g.black_elo IS NOT NULL";
            let both = match mode {
                Mode::Rated => rated.to_string(),
                Mode::Casual => format!("NOT ({rated})"),
            };
            write!(f.sql, " AND ({this} OR NOT {other} AND {both})").unwrap();
        }
        f
    }
}

/// The condition that the `game_rows` name column `column` is like a
/// pattern, given twice: the text, or the text of its id.
fn name_like(column: &str) -> String {
    format!(
        "(CASE WHEN typeof(g.{column}) = 'integer' \
         THEN g.{column} IN (SELECT id FROM game_texts WHERE text LIKE ? ESCAPE '\\') \
         ELSE g.{column} LIKE ? ESCAPE '\\' END)"
    )
}

/// Escapes `\`, `%` and `_` for `LIKE ... ESCAPE '\'`.
fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '%' | '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    fn eco(text: &str) -> Result<(String, String), FilterError> {
        text.parse::<EcoRange>().map(|r| (r.first, r.last))
    }

    #[test]
    fn eco_codes_prefixes_and_ranges() {
        let pair = |a: &str, b: &str| Ok((a.to_string(), b.to_string()));
        assert_eq!(eco("B90"), pair("B90", "B90"));
        assert_eq!(eco("b9"), pair("B90", "B99"));
        assert_eq!(eco("C"), pair("C00", "C99"));
        assert_eq!(eco("A00-B99"), pair("A00", "B99"));
        assert_eq!(eco("A - B1"), pair("A00", "B19"));
        assert!(matches!(eco("F00"), Err(FilterError::Eco(_))));
        assert!(matches!(eco("B999"), Err(FilterError::Eco(_))));
        assert!(matches!(eco(""), Err(FilterError::Eco(_))));
        assert!(matches!(eco("C00-B99"), Err(FilterError::EcoOrder(_))));
    }

    #[test]
    fn results_and_dates() {
        assert_eq!("1/2".parse::<ResultFilter>().unwrap(), ResultFilter::Draw);
        assert_eq!("*".parse::<ResultFilter>().unwrap().as_str(), "*");
        assert!("2-0".parse::<ResultFilter>().is_err());
        let d = |s| DateBound::parse("since", s).map(|d| d.as_str().to_string());
        assert_eq!(d("2020").unwrap(), "2020");
        assert_eq!(d("2020-5").unwrap(), "2020.05");
        assert_eq!(d("2020/05/01").unwrap(), "2020.05.01");
        for bad in ["20", "2020.13", "2020.00", "2020.01.32", "x", "2020.01.01.01", ""] {
            assert!(d(bad).is_err(), "{bad}");
        }
        assert_eq!(
            d("x").unwrap_err().to_string(),
            "--since: 'x' is not a date (YYYY, YYYY.MM or YYYY.MM.DD)"
        );
    }

    #[test]
    fn a_filter_the_database_predates_is_refused_where_its_sql_is_made() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        let speed = Filters { speeds: vec![Speed::Blitz], ..Filters::default() };
        let opening = Filters { opening: Some("Sicilian".into()), ..Filters::default() };
        assert!(speed.sql_for(&conn).is_ok() && opening.sql_for(&conn).is_ok());
        conn.pragma_update(None, "user_version", 8).unwrap();
        assert!(speed.sql_for(&conn).is_ok());
        let refused = opening.sql_for(&conn).err().unwrap().to_string();
        assert!(
            refused.starts_with("--opening: ")
                && refused.contains("schema version 8, without that column")
                && refused.contains("(it came with schema version 9)"),
            "{refused}"
        );
        conn.pragma_update(None, "user_version", 6).unwrap();
        let refused = speed.sql_for(&conn).err().unwrap();
        assert!(matches!(refused, QueryError::Predates { filter: "--speed", .. }), "{refused}");
    }

    /// Runs the filters, for a database of `schema_version`, over a small
    /// table and returns the matching ids.
    fn select_at(filters: &Filters, schema: Schema) -> Vec<i64> {
        let conn = Connection::open_in_memory().unwrap();
        if schema.has(Schema::GAME_ROWS) {
            // The schema as migrated; the rows go in through the view.
            crate::db::move_codes::register_migration_functions(&conn).unwrap();
            for migration in crate::db::MIGRATIONS {
                conn.execute_batch(migration).unwrap();
            }
        } else {
            conn.execute_batch(
                "CREATE TABLE games (id INTEGER PRIMARY KEY, white TEXT, black TEXT, event TEXT,
                     site TEXT, eco TEXT, result TEXT, white_elo INTEGER, black_elo INTEGER,
                     date TEXT, ply_count INTEGER, speed TEXT, opening_eco TEXT,
                     opening_name TEXT, moves TEXT, dedupe_key INTEGER)",
            )
            .unwrap();
        }
        let rows = "(1, 'Carlsen, Magnus', 'O''Brien', 'Ch 100%', 'Oslo', 'B90', '1-0', 2800, 2700, '2020.05.01', 40, 'classical', 'B90', 'Sicilian Defense: Najdorf Variation', '', 0),
              (2, 'MagnusCarlsen', 'x_y', 'Blitz', NULL, 'B99a', '0-1', 2900, NULL, '2020.??.??', 60, 'blitz', 'C20', 'King''s Pawn Game', '', 0),
              (3, 'Anand', 'Carlsen, M', 'Ch 1000', 'Oslo', 'C00', '1/2-1/2', 2750, 2790, '2021.01.02', 80, 'classical', NULL, NULL, '', 0),
              (4, 'Kasparov', 'Karpov', NULL, NULL, NULL, '*', NULL, NULL, '????.??.??', 0, NULL, 'B01', 'Scandinavian Defense', '', 0),
              (5, 'Polgar', 'Short', NULL, NULL, '?', '1-0', NULL, NULL, '????.??.??', 30, 'rapid', 'A40', 'Queen''s Pawn Game', '', 0),
              (6, 'Tal', 'Botvinnik', NULL, NULL, '', '1-0', NULL, NULL, '????.??.??', 30, 'rapid', 'E20', 'Nimzo-Indian Defense', '', 0)";
        conn.execute_batch(&format!(
            "INSERT INTO games (id, white, black, event, site, eco, result, white_elo, black_elo,
                 date, ply_count, speed, opening_eco, opening_name, moves, dedupe_key) VALUES {rows}"
        ))
        .unwrap();
        let f = filters.to_sql(schema);
        let sql = format!("SELECT g.id FROM {} AS g WHERE 1{} ORDER BY g.id", f.table, f.sql);
        let mut st = conn.prepare(&sql).unwrap();
        let ids = st
            .query_map(rusqlite::params_from_iter(&f.params), |r| r.get(0))
            .unwrap()
            .collect::<Result<Vec<i64>, _>>()
            .unwrap();
        ids
    }

    /// [`select_at`] for a database of the current schema.
    fn select(filters: &Filters) -> Vec<i64> {
        select_at(filters, Schema::CURRENT)
    }

    #[test]
    fn filters_select_the_right_games() {
        let f = |build: fn(&mut Filters)| {
            let mut filters = Filters::default();
            build(&mut filters);
            select(&filters)
        };
        assert_eq!(f(|_| {}), [1, 2, 3, 4, 5, 6]);
        assert_eq!(f(|f| f.white = Some("CARLSEN".into())), [1, 2]);
        assert_eq!(f(|f| f.player = Some("carlsen".into())), [1, 2, 3]);
        assert_eq!(f(|f| f.black = Some("o'brien".into())), [1], "a quote is text");
        assert_eq!(f(|f| f.black = Some("x_y".into())), [2]);
        assert_eq!(f(|f| f.black = Some("_".into())), [2], "an underscore is text");
        assert_eq!(f(|f| f.event = Some("100%".into())), [1], "a percent sign is text");
        assert_eq!(f(|f| f.site = Some("oslo".into())), [1, 3]);
        assert_eq!(f(|f| f.eco = Some("B90".parse().unwrap())), [1]);
        assert_eq!(f(|f| f.eco = Some("B9".parse().unwrap())), [1, 2]);
        assert_eq!(f(|f| f.eco = Some("B99-C00".parse().unwrap())), [2, 3]);
        // Without a tag (NULL, '?', ''), the opening by position decides;
        // with one, the tag alone.
        assert_eq!(f(|f| f.eco = Some("A00-B99".parse().unwrap())), [1, 2, 4, 5]);
        assert_eq!(f(|f| f.eco = Some("B01".parse().unwrap())), [4]);
        assert_eq!(f(|f| f.eco = Some("E".parse().unwrap())), [6]);
        assert_eq!(f(|f| f.eco = Some("C".parse().unwrap())), [3], "the tag B99a wins over C20");
        assert_eq!(f(|f| f.eco = Some("C2".parse().unwrap())), [] as [i64; 0]);
        assert_eq!(f(|f| f.opening = Some("SICILIAN".into())), [1]);
        assert_eq!(f(|f| f.opening = Some("pawn game".into())), [2, 5]);
        assert_eq!(f(|f| f.opening = Some("queen's".into())), [5], "a quote is text");
        assert_eq!(f(|f| f.opening = Some("%".into())), [] as [i64; 0], "a percent sign is text");
        assert_eq!(f(|f| f.opening = Some("_".into())), [] as [i64; 0], "an underscore is text");
        assert_eq!(f(|f| f.opening = Some("nimzo-indian".into())), [6]);
        let eco = Filters { eco: Some("A00-B99".parse().unwrap()), ..Filters::default() };
        assert_eq!(
            select_at(&eco, Schema::new(Schema::OPENINGS.version() - 1)),
            [1, 2],
            "before schema 9: the tag alone"
        );
        assert_eq!(
            select_at(&eco, Schema::new(Schema::GAME_ROWS.version() - 1)),
            [1, 2, 4, 5],
            "the table of schema 15"
        );
        assert_eq!(f(|f| f.result = Some(ResultFilter::Draw)), [3]);
        assert_eq!(f(|f| f.result = Some(ResultFilter::Unknown)), [4]);
        // Carlsen won 1 (White, 1-0) and lost 2 (White, 0-1), drew 3 (Black).
        let carlsen = |outcome| Filters {
            player: Some("carlsen".into()),
            outcome: Some(outcome),
            ..Filters::default()
        };
        assert_eq!(select(&carlsen(Outcome::Won)), [1]);
        assert_eq!(select(&carlsen(Outcome::Lost)), [2]);
        assert_eq!(select(&carlsen(Outcome::Drew)), [3]);
        // O'Brien lost 1 as Black: White's 1-0 is Black's loss.
        let obrien = Filters { player: Some("o'brien".into()), ..carlsen(Outcome::Lost) };
        assert_eq!(select(&obrien), [1]);
        assert!(select(&Filters { outcome: Some(Outcome::Won), ..obrien }).is_empty());
        assert_eq!(f(|f| f.min_elo = Some(2750)), [3]);
        assert_eq!(f(|f| f.max_elo = Some(2800)), [1, 3]);
        assert_eq!(f(|f| f.since = Some(DateBound::parse("since", "2020.05").unwrap())), [1, 3]);
        assert_eq!(f(|f| f.until = Some(DateBound::parse("until", "2020").unwrap())), [1, 2]);
        assert_eq!(f(|f| f.until = Some(DateBound::parse("until", "2020.04").unwrap())), [2]);
        assert_eq!(f(|f| f.min_plies = Some(60)), [2, 3]);
        assert_eq!(f(|f| f.speeds = vec![Speed::Classical]), [1, 3]);
        assert_eq!(f(|f| f.speeds = vec![Speed::Blitz]), [2]);
        assert_eq!(f(|f| f.speeds = vec![Speed::Blitz, Speed::Rapid]), [2, 5, 6]);
        assert!(f(|f| f.speeds = vec![Speed::Bullet]).is_empty(), "unknown speeds never pass");
        // Averages: 1 → 2750, 3 → 2770; 2 has one rating only.
        fn groups(g: &[&str]) -> Vec<RatingGroup> {
            g.iter().map(|g| g.parse().unwrap()).collect()
        }
        assert_eq!(f(|f| f.rating_groups = groups(&["2500"])), [1, 3]);
        assert!(f(|f| f.rating_groups = groups(&["2200", "0"])).is_empty());
        assert_eq!(f(|f| f.exact_names = true), [1, 2, 3, 4, 5, 6], "nothing to match");
        let exact = |name: &str| Filters {
            white: Some(name.into()),
            exact_names: true,
            ..Filters::default()
        };
        assert_eq!(select(&exact("carlsen, MAGNUS")), [1]);
        assert!(select(&exact("carlsen")).is_empty(), "a part is not the name");
        // No event names a mode: rated is both players rated.
        assert_eq!(f(|f| f.mode = Some(Mode::Rated)), [1, 3]);
        assert_eq!(f(|f| f.mode = Some(Mode::Casual)), [2, 4, 5, 6]);
        // Both rated, averaging 2200 or more, played in Oslo.
        assert_eq!(f(|f| f.masters = true), [1, 3]);
        let masters = Filters { masters: true, ..Filters::default() };
        for schema in [Schema::GAME_ROWS.version() - 1, Schema::COMPACT_ROWS.version() - 1] {
            assert_eq!(select_at(&masters, Schema::new(schema)), [1, 3], "schema {schema}");
        }
        assert_eq!(
            f(|f| {
                f.player = Some("carlsen".into());
                f.site = Some("Oslo".into());
                f.min_plies = Some(50);
            }),
            [3]
        );
    }

    #[test]
    fn rating_groups_and_modes() {
        let g = |text: &str| text.parse::<RatingGroup>().map(|g| (g.floor(), g.ceiling()));
        assert_eq!(g("0"), Ok((0, Some(1000))));
        assert_eq!(g("1999"), Ok((1800, Some(2000))));
        assert_eq!(g("2500"), Ok((2500, None)));
        assert_eq!(g("3200"), Ok((2500, None)));
        assert!(g("-1").is_err() && g("x").is_err() && g("").is_err());
        assert_eq!(RatingGroup::of_average(-5).floor(), 0);
        assert_eq!(Mode::of_event("Rated Blitz game"), Some(Mode::Rated));
        assert_eq!(Mode::of_event("casual Correspondence game"), Some(Mode::Casual));
        assert_eq!(Mode::of_event("Unrated"), None);
        assert_eq!(Mode::of_game(Some("Casual Blitz game"), Some(1), Some(2)), Mode::Casual);
        assert_eq!(Mode::of_game(Some("Rated Blitz game"), None, None), Mode::Rated);
        assert_eq!(Mode::of_game(Some("Olympiad"), Some(2500), Some(2600)), Mode::Rated);
        assert_eq!(Mode::of_game(None, Some(2500), None), Mode::Casual);
        assert_eq!("CASUAL".parse::<Mode>(), Ok(Mode::Casual));
        assert!("fun".parse::<Mode>().is_err());
    }

    #[test]
    fn empty_names_are_refused() {
        let f = Filters { player: Some("  ".into()), ..Filters::default() };
        assert_eq!(f.check(), Err(FilterError::EmptyName("player")));
        let f = Filters { opening: Some(String::new()), ..Filters::default() };
        assert_eq!(f.check().unwrap_err().to_string(), "--opening: the name is empty");
        assert!(Filters::default().is_empty());
        let f = Filters { outcome: Some(Outcome::Lost), ..Filters::default() };
        assert_eq!(
            f.check().unwrap_err().to_string(),
            "--lost needs --player NAME: it is the result from that player's side"
        );
    }
}
