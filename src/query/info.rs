//! What a database holds ([`Info`]): counts, sources, import errors, the
//! date range, the file's size and schema version, the most common
//! events and ECO codes, the games per speed and the most played openings
//! by position. The counts come from small tables and the `sources`
//! counters; the dates and tallies read the narrow `games_summary` index
//! whole (a fraction of a second per million games), or the `games` table
//! on a database without it; the speeds (schema version 7) and the
//! openings (version 9), one scan of the `games` table (no index holds
//! them: about a second per million games).

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OptionalExtension};

use super::error::QueryError;
use super::search::summary_source;
use crate::db::schema::Schema;
use crate::db::Speed;

/// One imported input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInfo {
    /// As given on the command line.
    pub path: String,
    /// Games stored from it.
    pub games: u64,
    /// Games skipped as duplicates.
    pub duplicates: u64,
    /// Games with an error (stored up to the bad move, or skipped).
    pub errors: u64,
    /// Position rows stored.
    pub positions: u64,
    /// When the import started (UTC, ISO 8601).
    pub started_at: String,
    /// `false` if the import was cut (it resumes on the next run).
    pub finished: bool,
    /// Whether its positions were indexed (`false`: `--no-positions`);
    /// `None` if not recorded (imported before schema version 6).
    pub positions_indexed: Option<bool>,
    /// The last ply indexed (`--max-ply`); `None` for every ply, or not
    /// recorded.
    pub max_ply: Option<u32>,
}

/// An opening by position and its games.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpeningCount {
    /// `games.opening_eco`.
    pub eco: String,
    /// `games.opening_name`.
    pub name: String,
    /// Games that have it.
    pub games: u64,
}

/// The summary of a database.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    /// The file's path.
    pub path: String,
    /// Bytes on disk (the file and its write-ahead log).
    pub file_size: u64,
    /// `PRAGMA user_version`.
    pub schema_version: i64,
    /// Stored games.
    pub games: u64,
    /// Stored position rows (of the games stored now).
    pub positions: u64,
    /// Games deleted whose index rows remain in the file until a vacuum.
    pub deleted: u64,
    /// Every import source, oldest first.
    pub sources: Vec<SourceInfo>,
    /// Import problems by kind (`error`, `skipped`, `warning`).
    pub problems: Vec<(String, u64)>,
    /// The earliest and latest dates with a known year.
    pub dates: Option<(String, String)>,
    /// The most common events, most games first.
    pub events: Vec<(String, u64)>,
    /// The most common ECO codes, most games first.
    pub ecos: Vec<(String, u64)>,
    /// Games per speed, fastest first, then those of unknown speed
    /// (`None`); speeds without games left out. Empty for a database
    /// older than schema version 7.
    pub speeds: Vec<(Option<Speed>, u64)>,
    /// The most played openings by position, most games first. Empty for
    /// a database older than schema version 9.
    pub openings: Vec<OpeningCount>,
    /// Games without an opening by position; `None` for a database older
    /// than schema version 9.
    pub without_opening: Option<u64>,
}

/// How many events and ECO codes [`info`] lists.
pub const TOP: usize = 5;

/// How many openings by position [`info`] lists.
pub const TOP_OPENINGS: usize = 10;

/// Reads the summary of the database `conn` opened from `path`.
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn info(conn: &Connection, path: &Path) -> Result<Info, QueryError> {
    let e = QueryError::sqlite(conn);
    let count = |sql: &str| -> Result<u64, QueryError> {
        conn.query_row(sql, [], |r| r.get::<_, Option<i64>>(0))
            .map(|n| n.unwrap_or(0) as u64)
            .map_err(QueryError::sqlite(conn))
    };
    let wal = {
        let mut p = path.as_os_str().to_owned();
        p.push("-wal");
        std::fs::metadata(p).map_or(0, |m| m.len())
    };
    let mut info = Info {
        path: path.display().to_string(),
        file_size: std::fs::metadata(path).map_or(0, |m| m.len()) + wal,
        schema_version: Schema::of(conn).map_err(&e)?.version(),
        games: count("SELECT count(*) FROM games")?,
        positions: count("SELECT sum(positions) FROM sources")?,
        ..Info::default()
    };
    // Schema version 6 records how each source was indexed.
    let indexing = if conn.prepare("SELECT positions_indexed, max_ply FROM sources").is_ok() {
        "positions_indexed, max_ply"
    } else {
        "NULL, NULL"
    };
    let mut st = conn
        .prepare(&format!(
            "SELECT path, games, duplicates, errors, positions, started_at, \
             finished_at IS NOT NULL, {indexing} FROM sources ORDER BY id"
        ))
        .map_err(&e)?;
    info.sources = st
        .query_map([], |r| {
            Ok(SourceInfo {
                path: r.get(0)?,
                games: r.get::<_, i64>(1)? as u64,
                duplicates: r.get::<_, i64>(2)? as u64,
                errors: r.get::<_, i64>(3)? as u64,
                positions: r.get::<_, i64>(4)? as u64,
                started_at: r.get(5)?,
                finished: r.get(6)?,
                positions_indexed: r.get(7)?,
                max_ply: r.get(8)?,
            })
        })
        .and_then(|rows| rows.collect())
        .map_err(&e)?;
    if has_table(conn, "deleted_games")? {
        info.deleted = count("SELECT count(*) FROM deleted_games")?;
    }
    info.problems =
        tally(conn, "SELECT kind, count(*) FROM import_errors GROUP BY kind ORDER BY kind")?;
    // One pass over the dates, ECO codes and events.
    let from = summary_source(conn)?;
    // From schema 16 the events are counted by id, and named after.
    let by_id = from.starts_with("game_rows");
    let event = if by_id { "event_id" } else { "event" };
    let date = super::search::summary_date(from);
    let mut st = conn.prepare(&format!("SELECT {date}, eco, {event} FROM {from}")).map_err(&e)?;
    let mut rows = st.query([]).map_err(&e)?;
    let mut events = Tally::default();
    let mut event_ids: HashMap<i64, u64> = HashMap::new();
    let mut ecos = Tally::default();
    let mut dates: Option<(String, String)> = None;
    while let Some(r) = rows.next().map_err(&e)? {
        let text = |i| r.get_ref(i).ok().and_then(|v| v.as_str_or_null().ok().flatten());
        if let Some(d) =
            text(0).filter(|d| d.len() >= 4 && d.bytes().take(4).all(|b| b.is_ascii_digit()))
        {
            match &mut dates {
                None => dates = Some((d.to_string(), d.to_string())),
                Some((first, last)) => {
                    if d < first.as_str() {
                        *first = d.to_string();
                    }
                    if d > last.as_str() {
                        *last = d.to_string();
                    }
                }
            }
        }
        ecos.add(text(1));
        if by_id {
            if let Ok(Some(id)) = r.get::<_, Option<i64>>(2) {
                *event_ids.entry(id).or_default() += 1;
            }
        } else {
            events.add(text(2));
        }
    }
    drop(rows);
    if !event_ids.is_empty() {
        let mut name = conn.prepare("SELECT text FROM game_texts WHERE id = ?1").map_err(&e)?;
        for (id, n) in event_ids {
            let text: Option<String> = name.query_row([id], |r| r.get(0)).optional().map_err(&e)?;
            events.add_n(text.as_deref(), n);
        }
    }
    info.dates = dates;
    info.events = events.top(TOP);
    info.ecos = ecos.top(TOP);
    let schema = Schema::new(info.schema_version);
    if schema.has(Schema::SPEED) {
        let with_openings = schema.has(Schema::OPENINGS);
        let (speeds, openings, without) = speeds_and_openings(conn, with_openings)?;
        info.speeds = speeds;
        if with_openings {
            info.openings = openings;
            info.without_opening = Some(without);
        }
    }
    Ok(info)
}

/// The games per speed, fastest first and unknown last, speeds without
/// games left out; and, when `with_openings`, the [`TOP_OPENINGS`] most
/// played openings by position, most games first (ties by name, then
/// code), and the number of games without one. One scan of `games`.
fn speeds_and_openings(
    conn: &Connection,
    with_openings: bool,
) -> Result<SpeedsAndOpenings, QueryError> {
    let sql = if with_openings && has_table(conn, "game_rows")? {
        // Grouped by ids, each group's texts read once.
        "SELECT (SELECT text FROM game_texts WHERE id = s), \
                (SELECT text FROM game_texts WHERE id = e), \
                (SELECT text FROM game_texts WHERE id = o), n \
         FROM (SELECT speed_id AS s, opening_eco_id AS e, opening_name_id AS o, count(*) AS n \
               FROM game_rows GROUP BY 1, 2, 3)"
    } else if with_openings {
        "SELECT speed, opening_eco, opening_name, count(*) FROM games \
         GROUP BY speed, opening_eco, opening_name"
    } else {
        "SELECT speed, NULL, NULL, count(*) FROM games GROUP BY speed"
    };
    let mut st = conn.prepare(sql).map_err(QueryError::sqlite(conn))?;
    type Group = (Option<Speed>, Option<String>, Option<String>, i64);
    let rows: Vec<Group> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .and_then(|rows| rows.collect())
        .map_err(QueryError::sqlite(conn))?;
    let mut speeds: HashMap<Option<Speed>, u64> = HashMap::new();
    let mut named: HashMap<(String, String), u64> = HashMap::new();
    let mut without = 0;
    for (speed, eco, name, n) in rows {
        let n = n as u64;
        *speeds.entry(speed).or_default() += n;
        match (eco, name) {
            (Some(eco), Some(name)) => *named.entry((eco, name)).or_default() += n,
            _ => without += n,
        }
    }
    let mut speeds: Vec<(Option<Speed>, u64)> = speeds.into_iter().collect();
    speeds.sort_unstable_by_key(|&(speed, _)| (speed.is_none(), speed));
    if !with_openings {
        return Ok((speeds, Vec::new(), 0));
    }
    let mut named: Vec<OpeningCount> =
        named.into_iter().map(|((eco, name), games)| OpeningCount { eco, name, games }).collect();
    named.sort_unstable_by(|a, b| {
        b.games.cmp(&a.games).then_with(|| (&a.name, &a.eco).cmp(&(&b.name, &b.eco)))
    });
    named.truncate(TOP_OPENINGS);
    Ok((speeds, named, without))
}

/// What [`speeds_and_openings`] counts.
type SpeedsAndOpenings = (Vec<(Option<Speed>, u64)>, Vec<OpeningCount>, u64);

/// `true` if the database has the table `name` (`deleted_games` came with
/// schema version 5).
fn has_table(conn: &Connection, name: &str) -> Result<bool, QueryError> {
    conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [name],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
    .map_err(QueryError::sqlite(conn))
}

/// Counts of text values, unknown ones (`NULL`, empty, `?`) left out.
#[derive(Debug, Default)]
struct Tally(HashMap<String, u64>);

impl Tally {
    fn add(&mut self, value: Option<&str>) {
        self.add_n(value, 1);
    }

    /// Counts `value` `n` times.
    fn add_n(&mut self, value: Option<&str>, n: u64) {
        let Some(v) = value.filter(|v| !matches!(*v, "" | "?")) else { return };
        match self.0.get_mut(v) {
            Some(count) => *count += n,
            None => {
                self.0.insert(v.to_string(), n);
            }
        }
    }

    /// The `n` most common values, most first (ties by value).
    fn top(self, n: usize) -> Vec<(String, u64)> {
        let mut all: Vec<(String, u64)> = self.0.into_iter().collect();
        all.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(n);
        all
    }
}

/// Runs a `SELECT text, count` query.
fn tally(conn: &Connection, sql: &str) -> Result<Vec<(String, u64)>, QueryError> {
    let mut st = conn.prepare(sql).map_err(QueryError::sqlite(conn))?;
    let rows = st
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))
        .and_then(|rows| rows.collect())
        .map_err(QueryError::sqlite(conn))?;
    Ok(rows)
}
