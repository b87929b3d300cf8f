//! The explorer's answer to a query, as lichess's opening explorer writes
//! it: the totals, the moves (most played first, with their average
//! rating, the one game when exactly one played it, and the opening they
//! lead to), the top and recent games, the opening of the position and,
//! when asked, the games by month.
//!
//! The counts are those of [`crate::query::explore`], so `pgnindex
//! explore` with the same position and filters gives the same numbers.
//! The game lists are exact when at most [`FULL_SCAN`] games reach the
//! position: every one is read. Past that, they come from the
//! [`WINDOW`] games stored last ([`Search::last_hits`]), which is what
//! keeps a request on a popular position fast.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension};
use serde_json::{json, Map, Value};

use super::lists;
use super::params::{lichess_uci, ExplorerQuery, Route};
use crate::chess::{Color, Move, Position};
use crate::db::{GameId, Speed};
use crate::notation::uci::Uci;
use crate::query::explore::{explore_with, MoveStats};
use crate::query::filter::Mode;
use crate::query::search::{Hit, Outcome, OwnedHit, Search};
use crate::query::summaries::Summaries;
use crate::query::QueryError;
use crate::replay::openings::Openings;

/// Positions that at most this many games reach have their game lists
/// read from every game.
pub const FULL_SCAN: u64 = 5_000;

/// Past [`FULL_SCAN`], the games stored last that the lists choose from.
pub const WINDOW: usize = 2_000;

/// The JSON answer to `query`, reading the games' summaries from
/// `summaries` where it holds them.
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn answer(
    conn: &Connection,
    query: &ExplorerQuery,
    summaries: Option<Arc<Summaries>>,
) -> Result<Value, QueryError> {
    let search = Search {
        target: Some(query.target.clone()),
        filters: query.filters.clone(),
        summaries: summaries.clone(),
    };
    let pos = &query.target.position;
    let wants_lists = query.top_games > 0 || query.recent_games > 0;
    let mut history: BTreeMap<(i64, i64), [u64; 3]> = BTreeMap::new();
    let mut count_month = |hit: &Hit<'_>| {
        if let (Some(month), Some(result)) = (hit.date.and_then(year_month), hit.result) {
            history.entry(month).or_default()[result_index(result)] += 1;
        }
    };
    // Read from the index, the explorer sees every game: the lists and the
    // history come from that one reading (the hits kept up to `FULL_SCAN`).
    let mut candidates: Vec<OwnedHit> = Vec::new();
    // `/player`: its opponents' ratings by move (its search is filtered,
    // so every game's hit is read).
    let mut opponents: Option<HashMap<String, Opponents>> =
        (query.route == Route::Player).then(HashMap::new);
    let (explorer, all_read) = explore_with(conn, &search, |hit| {
        if query.history {
            count_month(hit);
        }
        add_opponent(opponents.as_mut(), query, hit);
        if candidates.len() as u64 <= FULL_SCAN {
            candidates.push(OwnedHit::from(hit));
        }
    })?;
    let singles = explorer.moves.iter().take(query.moves).any(|m| m.games == 1);
    let full = explorer.games <= FULL_SCAN;
    if !all_read {
        candidates.clear();
        // Without a game counted there is none to find (a position of the
        // tree without masters games, say).
        if explorer.games > 0 && (full || query.history || opponents.is_some()) {
            search.for_each_hit(conn, |hit| {
                if query.history {
                    count_month(hit);
                }
                add_opponent(opponents.as_mut(), query, hit);
                if full && (wants_lists || singles) {
                    candidates.push(OwnedHit::from(hit));
                }
            })?;
        }
    }
    if !full {
        candidates = if wants_lists { search.last_hits(conn, WINDOW)? } else { Vec::new() };
    }
    let mut single_games: HashMap<String, GameId> = HashMap::new();
    // The move each listed game played, as lichess writes it.
    let move_of = |hit: &OwnedHit| -> Option<String> {
        let code = hit.next_move?;
        let m = Uci::from_code(code)?.to_move(pos).ok()?;
        Some(lichess_uci(m))
    };
    if singles {
        for hit in &candidates {
            if let Some(uci) = hit.next_move.and_then(|c| Uci::from_code(c)?.to_move(pos).ok()) {
                single_games.entry(Uci::from_move(uci).to_string()).or_insert(hit.game_id);
            }
        }
    }

    let mut games = GameReader::new(conn, query.route, summaries);
    let mut moves = Vec::new();
    let (mut white, mut draws, mut black, mut unfinished) = (0u64, 0u64, 0u64, 0u64);
    for stats in &explorer.moves {
        white += stats.white_wins;
        draws += stats.draws;
        black += stats.black_wins;
        unfinished += unfinished_of(stats);
    }
    for stats in explorer.moves.iter().take(query.moves) {
        let Some(m) = stats_move(pos, stats) else { continue };
        let game = match single_games.get(&stats.uci).filter(|_| stats.games == 1) {
            Some(&id) => games.entry(id, None)?,
            None => Value::Null,
        };
        let mut after = pos.clone();
        after.play_unchecked(m);
        let mut row = Map::new();
        row.insert("uci".into(), lichess_uci(m).into());
        row.insert("san".into(), stats.san.clone().into());
        match &opponents {
            // Lichess's schema requires the integers: 0 where no game of
            // the move has the rating.
            Some(opponents) => {
                let player = opponents.get(&stats.uci).copied().unwrap_or_default();
                let average = player.average();
                row.insert("averageOpponentRating".into(), average.unwrap_or(0).into());
                let performance = average.and_then(|avg| {
                    let (wins, losses) = match query.player_color {
                        Some(Color::Black) => (stats.black_wins, stats.white_wins),
                        _ => (stats.white_wins, stats.black_wins),
                    };
                    lists::performance(avg as f64, wins, stats.draws, losses)
                });
                row.insert("performance".into(), performance.unwrap_or(0).into());
            }
            None => {
                row.insert("averageRating".into(), stats.avg_elo().unwrap_or(0).into());
            }
        }
        row.insert("white".into(), stats.white_wins.into());
        row.insert("draws".into(), stats.draws.into());
        row.insert("black".into(), stats.black_wins.into());
        row.insert("unfinished".into(), unfinished_of(stats).into());
        row.insert("game".into(), game);
        row.insert("opening".into(), opening_json(&after));
        moves.push(Value::Object(row));
    }

    let mut out = Map::new();
    if query.route == Route::Player {
        // Its games are indexed already: no wait in lichess's queue.
        out.insert("queuePosition".into(), 0.into());
    }
    out.insert("white".into(), white.into());
    out.insert("draws".into(), draws.into());
    out.insert("black".into(), black.into());
    out.insert("unfinished".into(), unfinished.into());
    out.insert("moves".into(), moves.into());
    // The games that played a move from the position, most recent first.
    let mut listable: Vec<(&OwnedHit, String)> =
        candidates.iter().filter_map(|h| Some((h, move_of(h)?))).collect();
    listable.sort_by_key(|(h, _)| std::cmp::Reverse(h.game_id));
    let summary: Vec<lists::Listable> = listable
        .iter()
        .map(|(h, _)| lists::Listable { id: h.game_id.into(), elos: (h.white_elo, h.black_elo) })
        .collect();
    let (top, recent) = match query.route {
        Route::Lichess => {
            let floor = lists::top_floor(&query.filters.rating_groups);
            lists::lichess(&summary, floor, query.top_games, query.recent_games, |id| {
                games.speed(id)
            })?
        }
        Route::Masters => (lists::masters(&summary, query.top_games), Vec::new()),
        Route::Player => (Vec::new(), (0..summary.len()).take(query.recent_games).collect()),
    };
    let mut listed = |chosen: Vec<usize>| {
        let mut list = Vec::new();
        for i in chosen {
            let (hit, uci) = &listable[i];
            list.push(games.entry(hit.game_id, Some(uci.clone()))?);
        }
        Ok::<_, QueryError>(Value::Array(list))
    };
    if query.route != Route::Player {
        let list = listed(top)?;
        out.insert("topGames".into(), list);
    }
    if query.route != Route::Masters {
        let list = listed(recent)?;
        out.insert("recentGames".into(), list);
    }
    out.insert("opening".into(), line_opening(query));
    if query.history {
        let since = query.filters.since.as_ref().and_then(|b| first_month(b.as_str()));
        let history = history_json(&history, since, query.filters.until.is_some());
        out.insert("history".into(), history);
    }
    Ok(Value::Object(out))
}

/// Counts the rating of `/player`'s opponent in `hit` under the move it
/// played.
fn add_opponent(
    opponents: Option<&mut HashMap<String, Opponents>>,
    query: &ExplorerQuery,
    hit: &Hit<'_>,
) {
    let Some(opponents) = opponents else { return };
    let pos = &query.target.position;
    let Some(m) = hit.next_move.and_then(|c| Uci::from_code(c)?.to_move(pos).ok()) else { return };
    let rating = match query.player_color {
        Some(Color::Black) => hit.white_elo,
        _ => hit.black_elo,
    };
    opponents.entry(Uci::from_move(m).to_string()).or_default().add(rating);
}

/// A player's opponents' ratings over the games of one move.
#[derive(Debug, Clone, Copy, Default)]
struct Opponents {
    sum: i64,
    count: i64,
}

impl Opponents {
    fn add(&mut self, rating: Option<i64>) {
        if let Some(rating) = rating {
            // Saturating: a database edited by hand may hold any integer.
            self.sum = self.sum.saturating_add(rating);
            self.count += 1;
        }
    }

    /// The average, rounded; `None` without a rating.
    fn average(self) -> Option<i64> {
        (self.count > 0).then(|| self.sum.saturating_add(self.count / 2).div_euclid(self.count))
    }
}

/// A move's games without a result (`*`, or none), which lichess's three
/// counts leave out.
fn unfinished_of(stats: &MoveStats) -> u64 {
    stats.games.saturating_sub(stats.white_wins + stats.draws + stats.black_wins)
}

/// The move of an explorer row in `pos`.
fn stats_move(pos: &Position, stats: &MoveStats) -> Option<Move> {
    stats.uci.parse::<Uci>().ok()?.to_move(pos).ok()
}

fn result_index(result: Outcome) -> usize {
    match result {
        Outcome::WhiteWins => 0,
        Outcome::Draw => 1,
        Outcome::BlackWins => 2,
    }
}

/// Year and month of a stored date (`2020.05.01`, `2020.05.??`).
fn year_month(date: &str) -> Option<(i64, i64)> {
    let mut parts = date.split('.');
    let year = parts.next()?.parse().ok()?;
    let month: i64 = parts.next()?.parse().ok()?;
    (1..=12).contains(&month).then_some((year, month))
}

/// The games by month, as lichess gives them: from `since` (else the
/// first month counted) to the last month counted, gaps as zeros, and
/// without that last month when the query has no `until` (lichess leaves
/// out a month it may not have indexed whole).
fn history_json(
    history: &BTreeMap<(i64, i64), [u64; 3]>,
    since: Option<(i64, i64)>,
    until: bool,
) -> Value {
    let (Some(&first), Some(&last)) = (history.keys().next(), history.keys().next_back()) else {
        return Value::Array(Vec::new());
    };
    let mut out = Vec::new();
    let (mut year, mut month) = since.map_or(first, |since| since.min(first));
    while (year, month) <= last {
        let [white, draws, black] = history.get(&(year, month)).copied().unwrap_or_default();
        out.push(json!({
            "month": format!("{year:04}-{month:02}"),
            "white": white,
            "draws": draws,
            "black": black,
        }));
        (year, month) = if month == 12 { (year + 1, 1) } else { (year, month + 1) };
    }
    if !until {
        out.pop();
    }
    Value::Array(out)
}

/// The month a `since` bound starts (`2020.05`, or `2020`: January).
fn first_month(bound: &str) -> Option<(i64, i64)> {
    let mut parts = bound.split('.');
    let year = parts.next()?.parse().ok()?;
    let month = parts.next().map_or(Some(1), |m| m.parse().ok())?;
    Some((year, month))
}

/// The opening of a named position, as `{eco, name}`, else null.
fn opening_json(pos: &Position) -> Value {
    let openings = Openings::get();
    match openings.find(pos) {
        Some(i) => {
            let row = &openings.rows()[i as usize];
            json!({ "eco": row.eco, "name": row.name })
        }
        None => Value::Null,
    }
}

/// The opening of the line played: of the last named position from the
/// start through the moves of `play` (lichess's rule), null if none is.
fn line_opening(query: &ExplorerQuery) -> Value {
    let mut pos = query.start.clone();
    let mut found = opening_json(&pos);
    for &m in &query.played {
        pos.play_unchecked(m);
        let here = opening_json(&pos);
        if !here.is_null() {
            found = here;
        }
    }
    found
}

/// Reads the games listed, as lichess lists them.
struct GameReader<'c> {
    conn: &'c Connection,
    route: Route,
    /// The summaries held, which hold the speeds the lists rank by.
    summaries: Option<Arc<Summaries>>,
}

impl<'c> GameReader<'c> {
    fn new(
        conn: &'c Connection,
        route: Route,
        summaries: Option<Arc<Summaries>>,
    ) -> GameReader<'c> {
        GameReader { conn, route, summaries }
    }

    /// The speed of game `id`, if known: from the summaries where they
    /// hold it, else from its row.
    fn speed(&mut self, id: i64) -> Result<Option<Speed>, QueryError> {
        let held = u32::try_from(id)
            .ok()
            .and_then(|id| self.summaries.as_ref()?.get(crate::db::GameId::new(id))?.speed);
        if let Some(speed) = held {
            return Ok(speed);
        }
        let e = QueryError::sqlite(self.conn);
        let speed: Option<Option<String>> = self
            .conn
            .prepare_cached("SELECT speed FROM games WHERE id = ?1")
            .and_then(|mut st| st.query_row([id], |r| r.get(0)).optional())
            .map_err(&e)?;
        Ok(speed.flatten().and_then(|s| s.parse().ok()))
    }

    /// One game: `{uci?, id, winner, speed, mode, white, black, year,
    /// month}`; `speed` and `mode` only where known and not for
    /// `/masters`, as lichess writes its masters games. Added to lichess's
    /// fields, where the game has them: `result` (the PGN result, which
    /// tells a draw from an unfinished game where `winner` is null for
    /// both), `event` and `round`.
    fn entry(&mut self, id: GameId, uci: Option<String>) -> Result<Value, QueryError> {
        let e = QueryError::sqlite(self.conn);
        type Row = (
            Option<String>,
            Option<String>,
            Option<i64>,
            Option<i64>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
        );
        let row: Option<Row> = self
            .conn
            .prepare_cached(
                "SELECT white, black, white_elo, black_elo, result, date, speed, event, round \
                 FROM games WHERE id = ?1",
            )
            .and_then(|mut st| {
                st.query_row([id], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                        r.get(8)?,
                    ))
                })
                .optional()
            })
            .map_err(&e)?;
        let Some((white, black, white_elo, black_elo, result, date, speed, event, round)) = row
        else {
            return Ok(Value::Null);
        };
        let mut out = Map::new();
        if let Some(uci) = uci {
            out.insert("uci".into(), uci.into());
        }
        out.insert("id".into(), id.get().to_string().into());
        let winner = match result.as_deref().and_then(Outcome::from_result) {
            Some(Outcome::WhiteWins) => Value::from("white"),
            Some(Outcome::BlackWins) => Value::from("black"),
            _ => Value::Null,
        };
        out.insert("winner".into(), winner);
        let known_speed = speed.as_deref().and_then(|s| s.parse::<Speed>().ok());
        match self.route {
            Route::Masters => {}
            Route::Lichess => {
                if let Some(speed) = known_speed {
                    out.insert("speed".into(), lichess_speed(speed).into());
                }
            }
            // Lichess's schema requires a speed here: a game without a
            // time control is taken for a classical one (an OTB game).
            Route::Player => {
                let speed = known_speed.unwrap_or(Speed::Classical);
                out.insert("speed".into(), lichess_speed(speed).into());
            }
        }
        if self.route != Route::Masters {
            let mode = Mode::of_game(event.as_deref(), white_elo, black_elo);
            out.insert("mode".into(), mode.as_str().into());
        }
        // The schema requires integers: 0 for a rating or year not known.
        let player = |name: Option<String>, rating: Option<i64>| json!({ "name": name.filter(|n| n != "?").unwrap_or_default(), "rating": rating.unwrap_or(0) });
        out.insert("white".into(), player(white, white_elo));
        out.insert("black".into(), player(black, black_elo));
        let year = date.as_deref().and_then(|d| d.get(..4)).and_then(|y| y.parse::<i64>().ok());
        out.insert("year".into(), year.unwrap_or(0).into());
        let month = date.as_deref().and_then(year_month).map(|(y, m)| format!("{y:04}-{m:02}"));
        match (self.route, month) {
            (_, Some(month)) => {
                out.insert("month".into(), month.into());
            }
            (Route::Lichess, None) => {
                out.insert("month".into(), Value::Null);
            }
            (Route::Masters, None) => {}
            // A string is required: month 00 of the year (0000 unknown).
            (Route::Player, None) => {
                out.insert("month".into(), format!("{:04}-00", year.unwrap_or(0)).into());
            }
        }
        if let Some(result) =
            result.filter(|r| matches!(r.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*"))
        {
            out.insert("result".into(), result.into());
        }
        // `?` and `-` are PGN's "unknown" and "not applicable".
        let known = |text: Option<String>| text.filter(|t| !matches!(t.trim(), "" | "?" | "-"));
        if let Some(event) = known(event) {
            out.insert("event".into(), event.into());
        }
        if let Some(round) = known(round) {
            out.insert("round".into(), round.into());
        }
        Ok(Value::Object(out))
    }
}

/// Lichess's name of a speed.
fn lichess_speed(speed: Speed) -> &'static str {
    match speed {
        Speed::UltraBullet => "ultraBullet",
        Speed::Bullet => "bullet",
        Speed::Blitz => "blitz",
        Speed::Rapid => "rapid",
        Speed::Classical => "classical",
        Speed::Correspondence => "correspondence",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_are_read_and_filled() {
        assert_eq!(year_month("2020.05.01"), Some((2020, 5)));
        assert_eq!(year_month("2020.??.??"), None);
        assert_eq!(year_month("2020"), None);
        let mut h = BTreeMap::new();
        h.insert((2019, 11), [1, 0, 0]);
        h.insert((2020, 2), [0, 1, 2]);
        let months = |v: Value| -> Vec<String> {
            v.as_array().unwrap().iter().map(|m| m["month"].as_str().unwrap().to_string()).collect()
        };
        let v = history_json(&h, None, true);
        assert_eq!(v[3]["black"], 2);
        assert_eq!(months(v), ["2019-11", "2019-12", "2020-01", "2020-02"]);
        // From `since`, zeros first; without `until`, the last month left out.
        let v = history_json(&h, Some((2019, 9)), false);
        assert_eq!(months(v), ["2019-09", "2019-10", "2019-11", "2019-12", "2020-01"]);
        assert_eq!(first_month("2019.09"), Some((2019, 9)));
        assert_eq!(first_month("1952"), Some((1952, 1)));
        assert_eq!(history_json(&BTreeMap::new(), Some((2019, 9)), true), json!([]));
    }

    #[test]
    fn speeds_are_named_as_lichess_names_them() {
        assert_eq!(lichess_speed("ultrabullet".parse().unwrap()), "ultraBullet");
        assert_eq!(lichess_speed(Speed::Blitz), "blitz");
    }
}
