//! The `players` view's stored rows (`player_rows`): the key a name is
//! grouped by, and the one pass over the games that fills the table.
//!
//! A write that changes many games (an import, `delete`, `vacuum`) points
//! `players` at the grouping done when read ([`set_live`]), changes the
//! games, and fills the table again at its end ([`rebuild`]). Between two
//! writes the schema's triggers count again the players of each game that
//! SQL changes, so that the table stays exact.

use std::collections::HashMap;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior};

use super::schema::Schema;

/// What `players` reads from when the table is exact.
const STORED: &str = "player_rows";
/// What it reads from otherwise: the games, grouped when read.
const LIVE: &str = "players_live";

/// The `players` view reading `from`.
fn view_sql(from: &str) -> String {
    format!(
        "CREATE VIEW players AS\n\
         SELECT name, games, white_games, games - white_games AS black_games, score, first_year,\n       \
         last_year, max_elo\n\
         FROM {from}"
    )
}

/// The key the `players` view groups a name under, as its SQL computes it:
/// surrounding spaces dropped, ASCII letters in lower case, runs of up to
/// sixteen spaces as one, no space around a comma, trailing dots and spaces
/// dropped. `None` for a name that is no player (empty, or only `?` and
/// `-`).
fn key(name: &str) -> Option<String> {
    let mut key = name.trim_matches(' ').to_ascii_lowercase();
    for _ in 0..4 {
        if key.contains("  ") {
            key = key.replace("  ", " ");
        }
    }
    if key.contains(", ") {
        key = key.replace(", ", ",");
    }
    if key.contains(" ,") {
        key = key.replace(" ,", ",");
    }
    key.truncate(key.trim_end_matches(['.', ' ']).len());
    (!key.trim_matches(['?', '-']).is_empty()).then_some(key)
}

/// `true` when the database has the table and it is exact.
///
/// # Errors
/// SQLite's.
pub fn is_current(conn: &Connection) -> rusqlite::Result<bool> {
    if !Schema::of(conn)?.has(Schema::PLAYER_ROWS) {
        return Ok(false);
    }
    let current: Option<i64> =
        conn.query_row("SELECT current FROM player_rows_state", [], |r| r.get(0)).optional()?;
    Ok(current == Some(1))
}

/// What a write of pgnindex found when it began ([`set_live`]), for
/// [`finish_write`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub struct Live {
    /// The stored players and their tallies held every game: the write's
    /// games can be added to them.
    tallied: bool,
}

/// Points `players` at the games (grouped when read) and stops the
/// triggers' counting, before a write that changes many games. Runs inside
/// the caller's transaction; nothing to do on a database without the
/// table.
///
/// # Errors
/// SQLite's.
pub fn set_live(conn: &Connection) -> rusqlite::Result<Live> {
    let schema = Schema::of(conn)?;
    if !schema.has(Schema::PLAYER_ROWS) {
        return Ok(Live { tallied: false });
    }
    let tallied = schema.has(Schema::PLAYER_TALLIES) && {
        let (current, tallied): (i64, i64) =
            conn.query_row("SELECT current, tallied FROM player_rows_state", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?;
        let empty: bool =
            conn.query_row("SELECT NOT EXISTS (SELECT 1 FROM game_rows)", [], |r| r.get(0))?;
        // No games: nothing to have counted, whatever the table holds.
        if empty {
            conn.execute_batch("DELETE FROM player_rows; DELETE FROM player_spellings;")?;
        }
        (current == 1 && tallied == 1) || empty
    };
    if schema.has(Schema::PLAYER_TALLIES) {
        conn.execute("UPDATE player_rows_state SET current = 0, tallied = ?1", [tallied])?;
    } else {
        conn.execute("UPDATE player_rows_state SET current = 0 WHERE current <> 0", [])?;
    }
    point_view(conn, LIVE)?;
    Ok(Live { tallied })
}

/// Fills `player_rows` (and its tallies) from every game, points `players`
/// at it and lets the triggers keep it. Runs inside the caller's
/// transaction; nothing to do on a database without the table.
///
/// # Errors
/// SQLite's.
pub fn rebuild(conn: &Connection) -> rusqlite::Result<()> {
    let schema = Schema::of(conn)?;
    if !schema.has(Schema::PLAYER_ROWS) {
        return Ok(());
    }
    let tallies = schema.has(Schema::PLAYER_TALLIES);
    conn.execute("DELETE FROM player_rows", [])?;
    if tallies {
        conn.execute("DELETE FROM player_spellings", [])?;
    }
    let tallied = match group(conn)? {
        Some(grouping) => {
            let mut players = grouping.players;
            players.sort_unstable_by(|a, b| a.key.cmp(&b.key));
            let mut writes = Writes::new(conn, tallies)?;
            for player in &players {
                writes.player(player)?;
            }
            tallies
        }
        // A value only SQL can have written: the view's own grouping, and
        // no tallies (the next write counts every game again).
        None => {
            conn.execute("INSERT INTO player_rows SELECT * FROM players_live", [])?;
            false
        }
    };
    if tallies {
        conn.execute("UPDATE player_rows_state SET current = 1, tallied = ?1", [tallied])?;
    } else {
        conn.execute("UPDATE player_rows_state SET current = 1", [])?;
    }
    point_view(conn, STORED)
}

/// [`rebuild`] in a transaction of its own, if the table is not exact.
///
/// # Errors
/// SQLite's.
pub fn ensure_current(conn: &Connection) -> rusqlite::Result<()> {
    if !Schema::of(conn)?.has(Schema::PLAYER_ROWS) || is_current(conn)? {
        return Ok(());
    }
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    rebuild(&tx)?;
    tx.commit()
}

/// Ends a write of pgnindex that began with [`set_live`] (`live`; `None`
/// if it never began), in a transaction of its own: `players` reads the
/// stored table again, exact. When the table and its tallies held every
/// game before the write, and nothing but the write changed the games
/// since, the players of the games the write added, `added`, are added to
/// it; otherwise (or without `added`) every game is counted again
/// ([`rebuild`]).
///
/// # Errors
/// SQLite's.
pub fn finish_write(
    conn: &Connection,
    live: Option<Live>,
    added: Option<Tally>,
) -> rusqlite::Result<()> {
    let Some(added) = added.filter(|_| live.is_some_and(|live| live.tallied)) else {
        return ensure_current(conn);
    };
    if !Schema::of(conn)?.has(Schema::PLAYER_TALLIES) {
        return ensure_current(conn);
    }
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let tallied: i64 = tx.query_row("SELECT tallied FROM player_rows_state", [], |r| r.get(0))?;
    if tallied == 1 {
        add(&tx, added.grouping.players)?;
        tx.execute("UPDATE player_rows_state SET current = 1", [])?;
        point_view(&tx, STORED)?;
    } else {
        rebuild(&tx)?;
    }
    tx.commit()
}

/// Adds `players` to the stored rows and tallies.
fn add(conn: &Connection, mut players: Vec<Player>) -> rusqlite::Result<()> {
    players.sort_unstable_by(|a, b| a.key.cmp(&b.key));
    let mut stored = conn.prepare(
        "SELECT name, games, white_games, score, first_year, last_year, max_elo, scored \
         FROM player_rows WHERE key = ?1",
    )?;
    let mut spellings = conn.prepare("SELECT name, games FROM player_spellings WHERE key = ?1")?;
    let mut writes = Writes::new(conn, true)?;
    // The first import into a database: no player to look up.
    let none_before: bool =
        conn.query_row("SELECT NOT EXISTS (SELECT 1 FROM player_rows)", [], |r| r.get(0))?;
    for mut player in players {
        if none_before {
            writes.player(&player)?;
            continue;
        }
        let before = stored
            .query_row([&player.key], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    Player {
                        games: r.get(1)?,
                        white_games: r.get(2)?,
                        half_points: 0,
                        scored: r.get::<_, Option<i64>>(7)?.unwrap_or(0),
                        first_year: r.get(4)?,
                        last_year: r.get(5)?,
                        max_elo: r.get(6)?,
                        ..Player::default()
                    },
                    r.get::<_, Option<f64>>(3)?,
                ))
            })
            .optional()?;
        let Some((name, mut before, score)) = before else {
            writes.player(&player)?;
            continue;
        };
        before.half_points = half_points(score, before.scored);
        before.spellings = spellings
            .query_map([&player.key], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        // None stored: one spelling, the name, in all its games.
        let stored_spellings = !before.spellings.is_empty();
        if !stored_spellings {
            before.spellings.push((name, before.games));
        }
        player.merge(before);
        if stored_spellings {
            writes.delete_spellings(&player.key)?;
        }
        writes.player(&player)?;
    }
    Ok(())
}

/// The half-points of a stored `score` over `scored` games: the score is
/// their quotient by twice `scored`, rounded once, so that the product
/// rounds back to them.
fn half_points(score: Option<f64>, scored: i64) -> i64 {
    score.map_or(0, |s| (s * 2.0 * scored as f64).round() as i64)
}

/// The statements that write players and their tallies.
struct Writes<'c> {
    row: rusqlite::CachedStatement<'c>,
    spelling: Option<rusqlite::CachedStatement<'c>>,
    delete_spellings: Option<rusqlite::CachedStatement<'c>>,
}

impl<'c> Writes<'c> {
    /// With the tallies or without (a schema before them).
    fn new(conn: &'c Connection, tallies: bool) -> rusqlite::Result<Writes<'c>> {
        Ok(if tallies {
            Writes {
                row: conn.prepare_cached(
                    "INSERT OR REPLACE INTO player_rows \
                     (key, name, games, white_games, score, first_year, last_year, max_elo, scored) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )?,
                spelling: Some(
                    conn.prepare_cached("INSERT INTO player_spellings VALUES (?1, ?2, ?3)")?,
                ),
                delete_spellings: Some(
                    conn.prepare_cached("DELETE FROM player_spellings WHERE key = ?1")?,
                ),
            }
        } else {
            Writes {
                row: conn.prepare_cached(
                    "INSERT INTO player_rows \
                     (key, name, games, white_games, score, first_year, last_year, max_elo) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )?,
                spelling: None,
                delete_spellings: None,
            }
        })
    }

    /// Writes `p`'s row, and its spellings if it has several.
    fn player(&mut self, p: &Player) -> rusqlite::Result<()> {
        let score = (p.scored > 0).then(|| p.half_points as f64 / 2.0 / p.scored as f64);
        let (key, name) = (p.key.as_str(), p.name());
        let (games, white, first, last, elo) =
            (p.games, p.white_games, p.first_year, p.last_year, p.max_elo);
        match &mut self.spelling {
            Some(spelling) => {
                self.row.execute(rusqlite::params![
                    key, name, games, white, score, first, last, elo, p.scored
                ])?;
                if p.spellings.len() > 1 {
                    for (name, games) in &p.spellings {
                        spelling.execute(rusqlite::params![key, name, games])?;
                    }
                }
            }
            None => {
                self.row
                    .execute(rusqlite::params![key, name, games, white, score, first, last, elo])?;
            }
        }
        Ok(())
    }

    /// Forgets the spellings of the player `key`.
    fn delete_spellings(&mut self, key: &str) -> rusqlite::Result<()> {
        match &mut self.delete_spellings {
            Some(delete) => delete.execute([key]).map(drop),
            None => Ok(()),
        }
    }
}

/// Replaces the `players` view by one reading `from`, unless it does.
fn point_view(conn: &Connection, from: &str) -> rusqlite::Result<()> {
    let wanted = view_sql(from);
    let now: Option<String> = conn
        .query_row(
            "SELECT sql FROM main.sqlite_master WHERE type = 'view' AND name = 'players'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    if now.as_deref() != Some(wanted.as_str()) {
        conn.execute_batch(&format!("DROP VIEW IF EXISTS main.players;\n{wanted};"))?;
    }
    Ok(())
}

/// One player's games, as the view sums them.
#[derive(Debug, Default)]
struct Player {
    key: String,
    games: i64,
    white_games: i64,
    /// Points of the games with a decisive or drawn result, in halves.
    half_points: i64,
    scored: i64,
    first_year: Option<i64>,
    last_year: Option<i64>,
    max_elo: Option<i64>,
    /// Each spelling and its number of games.
    spellings: Vec<(String, i64)>,
}

impl Player {
    fn add(&mut self, white: bool, points: Option<i64>, year: Option<i64>, elo: Option<i64>) {
        self.games += 1;
        self.white_games += i64::from(white);
        if let Some(points) = points {
            self.half_points += points;
            self.scored += 1;
        }
        if let Some(year) = year {
            self.first_year = Some(self.first_year.map_or(year, |y| y.min(year)));
            self.last_year = Some(self.last_year.map_or(year, |y| y.max(year)));
        }
        if let Some(elo) = elo {
            self.max_elo = Some(self.max_elo.map_or(elo, |e| e.max(elo)));
        }
    }

    /// Adds the games of `other`, the same player.
    fn merge(&mut self, other: Player) {
        self.games += other.games;
        self.white_games += other.white_games;
        self.half_points += other.half_points;
        self.scored += other.scored;
        let least = |a: Option<i64>, b: Option<i64>| a.into_iter().chain(b).min();
        let most = |a: Option<i64>, b: Option<i64>| a.into_iter().chain(b).max();
        self.first_year = least(self.first_year, other.first_year);
        self.last_year = most(self.last_year, other.last_year);
        self.max_elo = most(self.max_elo, other.max_elo);
        for (name, games) in other.spellings {
            match self.spellings.iter_mut().find(|(s, _)| *s == name) {
                Some((_, n)) => *n += games,
                None => self.spellings.push((name, games)),
            }
        }
    }

    /// The most frequent spelling; of equally frequent ones the first in
    /// byte order (SQLite's `BINARY`).
    fn name(&self) -> &str {
        let best = self.spellings.iter().min_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        best.map_or("", |(s, _)| s.as_str())
    }
}

type Hasher = foldhash::fast::FixedState;

/// The players met so far, and where each name met counts: a spelling of
/// a player (its index and the spelling's), or no player.
#[derive(Default)]
struct Grouping {
    players: Vec<Player>,
    by_key: HashMap<String, usize, Hasher>,
    by_text: HashMap<Vec<u8>, Option<(usize, usize)>, Hasher>,
    by_id: HashMap<i64, Option<(usize, usize)>, Hasher>,
}

impl Grouping {
    /// The spelling `name` is, added if new.
    fn spelling(&mut self, name: &str) -> Option<(usize, usize)> {
        let key = key(name)?;
        let at = match self.by_key.get(&key) {
            Some(&at) => at,
            None => {
                self.players.push(Player { key: key.clone(), ..Player::default() });
                self.by_key.insert(key, self.players.len() - 1);
                self.players.len() - 1
            }
        };
        let spellings = &mut self.players[at].spellings;
        let s = match spellings.iter().position(|(s, _)| s == name) {
            Some(s) => s,
            None => {
                spellings.push((name.to_string(), 0));
                spellings.len() - 1
            }
        };
        Some((at, s))
    }

    /// Counts a game of the spelling `spelling` (if a player's), with
    /// White if `white`, of result `points` (in halves, White's), `year`,
    /// and the player's rating `elo`.
    fn count(
        &mut self,
        spelling: Option<(usize, usize)>,
        white: bool,
        points: Option<i64>,
        year: Option<i64>,
        elo: Option<i64>,
    ) {
        let Some((at, s)) = spelling else { return };
        let points = points.map(|p| if white { p } else { 2 - p });
        let player = &mut self.players[at];
        player.add(white, points, year, elo);
        player.spellings[s].1 += 1;
    }
}

/// White's points of a game of result `result`, in halves: `None` for a
/// result that scores none (`*`, or anything else).
fn points(result: &[u8]) -> Option<i64> {
    match result {
        b"1-0" => Some(2),
        b"0-1" => Some(0),
        b"1/2-1/2" => Some(1),
        _ => None,
    }
}

/// The players of games counted one by one as a write stores them, to be
/// added to the stored ones at its end ([`finish_write`]).
#[derive(Default)]
pub struct Tally {
    grouping: Grouping,
}

impl std::fmt::Debug for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tally").field("players", &self.grouping.players.len()).finish()
    }
}

impl Tally {
    /// Counts a game as `game_rows` stores it: its White and Black names,
    /// result, year and ratings.
    pub fn add_game(
        &mut self,
        [white, black]: [Option<&str>; 2],
        result: Option<&str>,
        year: Option<i64>,
        [white_elo, black_elo]: [Option<i64>; 2],
    ) {
        let points = result.and_then(|r| points(r.as_bytes()));
        for (name, is_white, elo) in [(white, true, white_elo), (black, false, black_elo)] {
            let Some(name) = name else { continue };
            let grouping = &mut self.grouping;
            let spelling = match grouping.by_text.get(name.as_bytes()) {
                Some(&spelling) => spelling,
                None => {
                    let spelling = grouping.spelling(name);
                    grouping.by_text.insert(name.as_bytes().to_vec(), spelling);
                    spelling
                }
            };
            grouping.count(spelling, is_white, points, year, elo);
        }
    }
}

/// Every player of every game; `None` when a column holds a value of a
/// type the import never writes (left to the view's SQL).
fn group(conn: &Connection) -> rusqlite::Result<Option<Grouping>> {
    let mut grouping = Grouping::default();
    let mut text_of = conn.prepare("SELECT text FROM game_texts WHERE id = ?1")?;
    let mut st =
        conn.prepare("SELECT white, black, result, year, white_elo, black_elo FROM game_rows")?;
    let mut rows = st.query([])?;
    while let Some(row) = rows.next()? {
        let integer = |i: usize| -> rusqlite::Result<Result<Option<i64>, ()>> {
            Ok(match row.get_ref(i)? {
                ValueRef::Null => Ok(None),
                ValueRef::Integer(n) => Ok(Some(n)),
                _ => Err(()),
            })
        };
        let (Ok(year), Ok(white_elo), Ok(black_elo)) = (integer(3)?, integer(4)?, integer(5)?)
        else {
            return Ok(None);
        };
        let points = match row.get_ref(2)? {
            ValueRef::Text(result) => points(result),
            _ => None,
        };
        for (i, white, elo) in [(0, true, white_elo), (1, false, black_elo)] {
            let spelling = match row.get_ref(i)? {
                ValueRef::Null => None,
                ValueRef::Text(text) => match grouping.by_text.get(text) {
                    Some(&spelling) => spelling,
                    None => {
                        let Ok(name) = std::str::from_utf8(text) else { return Ok(None) };
                        let spelling = grouping.spelling(name);
                        grouping.by_text.insert(text.to_vec(), spelling);
                        spelling
                    }
                },
                ValueRef::Integer(id) => match grouping.by_id.get(&id) {
                    Some(&spelling) => spelling,
                    None => {
                        // NULL: no such text (the view's lookup gives NULL
                        // too); a value that is not UTF-8 text goes to SQL.
                        let text: Option<Result<Option<String>, ()>> = text_of
                            .query_row([id], |r| {
                                Ok(match r.get_ref(0)? {
                                    ValueRef::Null => Ok(None),
                                    ValueRef::Text(t) => std::str::from_utf8(t)
                                        .map(|t| Some(t.to_string()))
                                        .map_err(|_| ()),
                                    _ => Err(()),
                                })
                            })
                            .optional()?;
                        let Ok(name) = text.unwrap_or(Ok(None)) else { return Ok(None) };
                        let spelling = name.and_then(|name| grouping.spelling(&name));
                        grouping.by_id.insert(id, spelling);
                        spelling
                    }
                },
                _ => return Ok(None),
            };
            grouping.count(spelling, white, points, year, elo);
        }
    }
    Ok(Some(grouping))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key SQL computes (the view's expression, as in the schema).
    fn sql_key(conn: &Connection, name: &str) -> Option<String> {
        conn.query_row(
            "SELECT CASE WHEN trim(k, '?-') <> '' THEN k END FROM (SELECT \
             rtrim(replace(replace(replace(replace(replace(replace(lower(trim(?1)), \
             '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), ', ', ','), ' ,', ','), '. ') AS k)",
            [name],
            |r| r.get(0),
        )
        .unwrap()
    }

    #[test]
    fn the_key_is_the_one_the_views_sql_computes() {
        let conn = Connection::open_in_memory().unwrap();
        let fixed = [
            "Carlsen, Magnus",
            " CARLSEN,  Magnus. ",
            "Carlsen , Magnus",
            "carlsen,magnus",
            "Ünal",
            "?",
            "-?-",
            "",
            "   ",
            "a                                  b",
            "x .. . ",
            "?a?",
            "Dr.  No.",
        ];
        for name in fixed {
            assert_eq!(key(name), sql_key(&conn, name), "{name:?}");
        }
        // Every name of up to five characters from an alphabet of the
        // characters the key treats specially.
        let alphabet = [' ', ',', '.', '?', '-', 'A', 'b', 'É'];
        let mut names = vec![String::new()];
        let mut level = vec![String::new()];
        for _ in 0..5 {
            level = level
                .iter()
                .flat_map(|n| alphabet.iter().map(move |c| format!("{n}{c}")))
                .collect();
            names.extend(level.iter().cloned());
        }
        assert!(names.len() > 30_000);
        for name in &names {
            assert_eq!(key(name), sql_key(&conn, name), "{name:?}");
        }
    }

    #[test]
    fn a_stored_score_gives_its_half_points_back() {
        for scored in [1, 2, 3, 7, 1_000, 999_999, 10_000_019, 1 << 40] {
            for half in
                [0, 1, scored / 3, scored - 1, scored, scored + 1, 2 * scored - 1, 2 * scored]
            {
                let score = half as f64 / 2.0 / scored as f64;
                assert_eq!(half_points(Some(score), scored), half, "{half} / {scored}");
            }
        }
        assert_eq!(half_points(None, 0), 0);
    }

    #[test]
    fn a_name_takes_its_most_frequent_spelling_then_the_first_in_byte_order() {
        let mut grouping = Grouping::default();
        let mut add = |name: &str, white, points, year, elo| {
            let (at, s) = grouping.spelling(name).unwrap();
            grouping.players[at].add(white, points, year, elo);
            grouping.players[at].spellings[s].1 += 1;
        };
        for name in ["b", "a", "B.", "a", "c"] {
            add(name, true, None, None, None);
        }
        add("c", false, Some(2), Some(1990), Some(2500));
        add("c", false, Some(1), Some(1980), None);
        assert_eq!(grouping.spelling("?"), None);
        let [a, b, c] = &grouping.players[..] else { panic!("{:?}", grouping.players) };
        // One game each as "b" and "B.": the first in byte order.
        assert_eq!((a.name(), b.name(), c.name()), ("B.", "a", "c"));
        assert_eq!((a.games, b.games), (2, 2));
        let p = c;
        assert_eq!((p.games, p.white_games, p.half_points, p.scored), (3, 1, 3, 2));
        assert_eq!((p.first_year, p.last_year, p.max_elo), (Some(1980), Some(1990), Some(2500)));
    }

    /// Names only SQL can write (a name id's text not UTF-8, a year as
    /// text) leave the fill to the view's SQL: the same rows, no error.
    #[test]
    fn values_written_by_hand_are_grouped_by_the_views_sql() {
        let conn = crate::db::schema_in_memory().unwrap();
        let rows = |conn: &Connection, from: &str| -> Vec<String> {
            let sql = format!(
                "SELECT hex(key) || '|' || hex(name) || '|' || games || '|' || ifnull(first_year, '') \
                 FROM {from} ORDER BY key"
            );
            let mut st = conn.prepare(&sql).unwrap();
            st.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
        };
        for (texts, year) in
            [("(7, 'Carlsen, M'), (8, X'FF41')", "2001"), ("(7, 'Carlsen, M')", "'2001'")]
        {
            conn.execute_batch(&format!(
                "DELETE FROM game_rows; DELETE FROM game_texts;
                 INSERT INTO game_texts (id, text) VALUES {texts};
                 INSERT INTO game_rows (id, white, black, result, year, ply_count, packed_moves, dedupe_key)
                 VALUES (1, 7, 8, '1-0', {year}, 0, '', 1), (2, 'carlsen,m', 'Anand', '0-1', 1999, 0, '', 2);"
            ))
            .unwrap();
            rebuild(&conn).unwrap();
            assert!(is_current(&conn).unwrap());
            let stored = rows(&conn, "player_rows");
            assert_eq!(stored, rows(&conn, "players_live"), "{texts} {year}");
            assert!(stored.iter().any(|r| r.starts_with("6361726C73656E2C6D|")), "{stored:?}");
        }
    }
}
