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

use super::params::{lichess_uci, ExplorerQuery, Route};
use crate::chess::{Move, Position};
use crate::db::GameId;
use crate::notation::uci::Uci;
use crate::query::explore::{explore_with, MoveStats};
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
    let search =
        Search { target: Some(query.target.clone()), filters: query.filters.clone(), summaries };
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
    let (explorer, all_read) = explore_with(conn, &search, |hit| {
        if query.history {
            count_month(hit);
        }
        if candidates.len() as u64 <= FULL_SCAN {
            candidates.push(OwnedHit::from(hit));
        }
    })?;
    let singles = explorer.moves.iter().take(query.moves).any(|m| m.games == 1);
    let full = explorer.games <= FULL_SCAN;
    if !all_read {
        candidates.clear();
        if full || query.history {
            search.for_each_hit(conn, |hit| {
                if query.history {
                    count_month(hit);
                }
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

    let mut games = GameReader::new(conn, query.route);
    let mut moves = Vec::new();
    let (mut white, mut draws, mut black) = (0u64, 0u64, 0u64);
    for stats in &explorer.moves {
        white += stats.white_wins;
        draws += stats.draws;
        black += stats.black_wins;
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
        if let Some(avg) = stats.avg_elo() {
            row.insert("averageRating".into(), avg.into());
        }
        row.insert("white".into(), stats.white_wins.into());
        row.insert("draws".into(), stats.draws.into());
        row.insert("black".into(), stats.black_wins.into());
        row.insert("game".into(), game);
        row.insert("opening".into(), opening_json(&after));
        moves.push(Value::Object(row));
    }

    let mut out = Map::new();
    out.insert("white".into(), white.into());
    out.insert("draws".into(), draws.into());
    out.insert("black".into(), black.into());
    out.insert("moves".into(), moves.into());
    // Recent: the highest ids; top: the best average rating, ties to the
    // most recent.
    candidates.sort_by_key(|h| std::cmp::Reverse(h.game_id));
    let mut top: Vec<&OwnedHit> = candidates.iter().filter(|h| average(h).is_some()).collect();
    top.sort_by_key(|h| std::cmp::Reverse(average(h)));
    let mut listed = |hits: &mut dyn Iterator<Item = &OwnedHit>, n: usize| {
        let mut list = Vec::new();
        for hit in hits.take(n) {
            list.push(games.entry(hit.game_id, move_of(hit))?);
        }
        Ok::<_, QueryError>(Value::Array(list))
    };
    if query.route != Route::Player {
        let list = listed(&mut top.into_iter(), query.top_games)?;
        out.insert("topGames".into(), list);
    }
    if query.route != Route::Masters {
        let list = listed(&mut candidates.iter(), query.recent_games)?;
        out.insert("recentGames".into(), list);
    }
    out.insert("opening".into(), line_opening(query));
    if query.history {
        out.insert("history".into(), history_json(&history));
    }
    Ok(Value::Object(out))
}

/// The move of an explorer row in `pos`.
fn stats_move(pos: &Position, stats: &MoveStats) -> Option<Move> {
    stats.uci.parse::<Uci>().ok()?.to_move(pos).ok()
}

/// The players' average rating, when both are known.
fn average(hit: &OwnedHit) -> Option<i64> {
    // Saturating: a database edited by hand may hold any integer.
    Some(hit.white_elo?.saturating_add(hit.black_elo?) / 2)
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

/// Every month from the first to the last counted, gaps as zeros.
fn history_json(history: &BTreeMap<(i64, i64), [u64; 3]>) -> Value {
    let (Some(&first), Some(&last)) = (history.keys().next(), history.keys().next_back()) else {
        return Value::Array(Vec::new());
    };
    let mut out = Vec::new();
    let (mut year, mut month) = first;
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
    Value::Array(out)
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
}

impl<'c> GameReader<'c> {
    fn new(conn: &'c Connection, route: Route) -> GameReader<'c> {
        GameReader { conn, route }
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
        if self.route != Route::Masters {
            if let Some(speed) = speed.as_deref().and_then(lichess_speed) {
                out.insert("speed".into(), speed.into());
            }
            if let Some(mode) = event.as_deref().and_then(crate::query::filter::Mode::of_event) {
                out.insert("mode".into(), mode.as_str().into());
            }
        }
        let player = |name: Option<String>, rating: Option<i64>| json!({ "name": name.filter(|n| n != "?").unwrap_or_default(), "rating": rating });
        out.insert("white".into(), player(white, white_elo));
        out.insert("black".into(), player(black, black_elo));
        let ym = date.as_deref().and_then(year_month);
        let year = date.as_deref().and_then(|d| d.get(..4)).and_then(|y| y.parse::<i64>().ok());
        out.insert("year".into(), year.into());
        out.insert("month".into(), ym.map(|(y, m)| format!("{y:04}-{m:02}")).into());
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

/// Lichess's name of a stored speed.
fn lichess_speed(stored: &str) -> Option<&'static str> {
    Some(match stored {
        "ultrabullet" => "ultraBullet",
        "bullet" => "bullet",
        "blitz" => "blitz",
        "rapid" => "rapid",
        "classical" => "classical",
        "correspondence" => "correspondence",
        _ => return None,
    })
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
        let v = history_json(&h);
        let months: Vec<&str> =
            v.as_array().unwrap().iter().map(|m| m["month"].as_str().unwrap()).collect();
        assert_eq!(months, ["2019-11", "2019-12", "2020-01", "2020-02"]);
        assert_eq!(v[3]["black"], 2);
        assert_eq!(history_json(&BTreeMap::new()), json!([]));
    }

    #[test]
    fn averages_of_any_stored_integers() {
        let hit = |w, b| OwnedHit {
            game_id: GameId::new(1),
            next_move: None,
            result: None,
            white_elo: w,
            black_elo: b,
            date: None,
        };
        assert_eq!(average(&hit(Some(2001), Some(2000))), Some(2000));
        assert_eq!(average(&hit(Some(i64::MAX), Some(i64::MAX))), Some(i64::MAX / 2));
        assert_eq!(average(&hit(Some(2000), None)), None);
    }

    #[test]
    fn speeds_are_named_as_lichess_names_them() {
        assert_eq!(lichess_speed("ultrabullet"), Some("ultraBullet"));
        assert_eq!(lichess_speed("blitz"), Some("blitz"));
        assert_eq!(lichess_speed("fast"), None);
    }
}
