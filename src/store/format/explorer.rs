//! The explorer's tables as both sides read them: the tree's counts of a
//! (position, move) ([`Counts`]), its state ([`State`], [`state`]), its
//! plies and the deep positions' ([`DEEP_PLY`]), and when a deep
//! position's games start ([`deep_from`]). `store::tree` writes them.

use rusqlite::{Connection, OptionalExtension};

use crate::chess::reach::REACH_CAP;
use crate::chess::Color;
use crate::db::schema::Schema;
use crate::db::GameId;

/// The plies up to which the importer does not take a position's
/// [`crate::chess::reach::Reach::reach`]: those of every database's tree
/// (`explorer_tree_state.max_ply`, set once by its migration). A tree of
/// fewer plies gets no late visits listed.
pub const LATE_AFTER: u32 = 6;

/// The ply to which a deep position's games are counted.
pub const DEEP_PLY: u32 = 12;

/// The most deep positions a database gets: the writer holds them in a
/// set (16 bytes each, 64 MiB at the cap). Past it, positions stay as they
/// are, searched in the position index.
pub const DEEP_KEYS_CAP: usize = 1 << 22;

/// `explorer_tree.next_move` of games that end in the position.
pub const ENDED: i64 = -1;

/// The games of one (position, move) row of the tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Games counted.
    pub games: i64,
    /// Of those, won by white.
    pub white_wins: i64,
    /// Drawn.
    pub draws: i64,
    /// Won by black.
    pub black_wins: i64,
    /// Sum of the ratings present of the player to move (the same side in
    /// every game: the position's).
    pub mover_elo_sum: i64,
    /// Number of ratings summed.
    pub mover_elo_count: i64,
    /// The latest date whose year is known, as stored.
    pub last_date: Option<String>,
}

impl Counts {
    /// Counts one game with these columns, `mover_elo` the rating of the
    /// side to move.
    pub(crate) fn add_game(
        &mut self,
        result: Option<&str>,
        mover_elo: Option<i64>,
        date: Option<&str>,
    ) {
        self.games += 1;
        match result {
            Some("1-0") => self.white_wins += 1,
            Some("1/2-1/2") => self.draws += 1,
            Some("0-1") => self.black_wins += 1,
            _ => {}
        }
        if let Some(elo) = mover_elo {
            // Saturating: a database edited by hand may hold any integer.
            self.mover_elo_sum = self.mover_elo_sum.saturating_add(elo);
            self.mover_elo_count += 1;
        }
        if let Some(date) = date.filter(|d| known_year(d)) {
            if self.last_date.as_deref().is_none_or(|last| date > last) {
                self.last_date = Some(date.to_string());
            }
        }
    }

    /// Adds the games `other` counts.
    pub(crate) fn merge(&mut self, other: &Counts) {
        self.games += other.games;
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.black_wins += other.black_wins;
        self.mover_elo_sum = self.mover_elo_sum.saturating_add(other.mover_elo_sum);
        self.mover_elo_count += other.mover_elo_count;
        if let Some(date) = &other.last_date {
            // Into the buffer already held: most rows see a later date at
            // almost every game of a file in date order.
            match &mut self.last_date {
                Some(last) if date <= last => {}
                Some(last) => last.clone_from(date),
                None => self.last_date = Some(date.clone()),
            }
        }
    }
}

/// The side to move at ply 0 of a game that starts from `start_fen`
/// (white without one, or with a FEN whose side field is not `b`).
pub fn first_mover(start_fen: Option<&str>) -> Color {
    match start_fen.and_then(|fen| fen.split_ascii_whitespace().nth(1)) {
        Some("b") => Color::Black,
        _ => Color::White,
    }
}

/// The side to move at `ply` of a game whose ply 0 `first` moves.
pub fn mover_at(first: Color, ply: u32) -> Color {
    if ply.is_multiple_of(2) {
        first
    } else {
        first.other()
    }
}

/// The same in SQL, for a game whose start FEN is `start_fen` and a ply
/// `ply`: 1 where White moves.
pub(crate) fn white_moves_sql(start_fen: &str, ply: &str) -> String {
    format!(
        "(({ply}) + coalesce(substr({start_fen}, instr({start_fen}, ' ') + 1, 1) = 'b', 0)) % 2 = 0"
    )
}

/// The lowest average rating of a masters game.
pub const MASTERS_AVERAGE: i64 = 2200;

/// What the site of an online game contains (ASCII case aside): an
/// address (`https://lichess.org/…`, `www.…`), a domain (`Chess.com`,
/// `playchess.org`) or a server (`Internet Chess Club`, `Free Internet
/// Chess Server`).
pub const ONLINE_SITE_PARTS: [&str; 6] = ["://", "www.", ".com", ".org", ".net", "internet"];

/// What the event of a game played online begins with (ASCII case
/// aside): lichess's modes (`Rated Blitz game`, `Casual Rapid game`).
pub const ONLINE_EVENT_STARTS: [&str; 2] = ["rated ", "casual "];

/// `true` for a masters game, as lichess's masters collection holds them:
/// both players rated, averaging (rounded down) at least
/// [`MASTERS_AVERAGE`], and not played online (its site contains none of
/// [`ONLINE_SITE_PARTS`] and its event starts with none of
/// [`ONLINE_EVENT_STARTS`]). The same test as the query filter's SQL.
pub fn is_masters(
    white_elo: Option<i64>,
    black_elo: Option<i64>,
    site: Option<&str>,
    event: Option<&str>,
) -> bool {
    let (Some(white), Some(black)) = (white_elo, black_elo) else { return false };
    if (i128::from(white) + i128::from(black)) / 2 < i128::from(MASTERS_AVERAGE) {
        return false;
    }
    let online_site = site.is_some_and(|site| {
        let site = site.to_ascii_lowercase();
        ONLINE_SITE_PARTS.iter().any(|part| site.contains(part))
    });
    let online_event = event.is_some_and(|event| {
        ONLINE_EVENT_STARTS.iter().any(|start| {
            event.len() >= start.len()
                && event.as_bytes()[..start.len()].eq_ignore_ascii_case(start.as_bytes())
        })
    });
    !online_site && !online_event
}

/// [`is_masters`] in SQL, for the `games` view's columns under alias `g`.
pub(crate) fn masters_sql(g: &str) -> String {
    format!(
        "{g}.white_elo IS NOT NULL AND {g}.black_elo IS NOT NULL \
         AND ({g}.white_elo + {g}.black_elo) / 2 >= {MASTERS_AVERAGE} \
         AND NOT coalesce({}, 0) AND NOT coalesce({}, 0)",
        online_site_sql(&format!("{g}.site")),
        online_event_sql(&format!("{g}.event"))
    )
}

/// SQL true when the text `site` is an online game's site (NULL for a
/// NULL site).
pub(crate) fn online_site_sql(site: &str) -> String {
    ONLINE_SITE_PARTS.map(|part| format!("{site} LIKE '%{part}%'")).join(" OR ")
}

/// SQL true when the text `event` is an online game's event (NULL for a
/// NULL event).
pub(crate) fn online_event_sql(event: &str) -> String {
    ONLINE_EVENT_STARTS.map(|start| format!("{event} LIKE '{start}%'")).join(" OR ")
}

/// `true` if a stored date's year is known (its first four characters are
/// digits): the dates the explorer's `last_date` considers.
pub fn known_year(date: &str) -> bool {
    date.len() >= 4 && date.bytes().take(4).all(|b| b.is_ascii_digit())
}

/// The same test in SQL, for the date column `date`.
pub(crate) fn known_year_sql(date: &str) -> String {
    format!("substr({date}, 1, 4) GLOB '[0-9][0-9][0-9][0-9]'")
}

/// `explorer_tree_state`: how far the tree counts, and whether it is exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    /// Positions are counted up to this ply.
    pub max_ply: u32,
    /// `true` if the tree counts every stored game.
    pub complete: bool,
    /// Games from this id on have their late visits in `explorer_late`;
    /// `None` before schema 20 (no game has).
    pub late_from: Option<GameId>,
    /// `explorer_late` lists the positions whose
    /// [`crate::chess::reach::min_plies`] from the standard start is at
    /// most this.
    pub late_reach: u32,
    /// The games of one batch that make a position deep; `None` before
    /// schema 21 (no position is).
    pub deep_games: Option<u32>,
    /// `explorer_masters` counts the masters games as the tree counts
    /// every game (from schema 28).
    pub masters: bool,
}

impl State {
    /// The first game whose late visits `explorer_late` lists, if it lists
    /// any: not for a tree of fewer than [`LATE_AFTER`] plies, whose
    /// importer did not take the reach of all the plies past it.
    pub fn late_listed_from(&self) -> Option<GameId> {
        self.late_from.filter(|_| self.max_ply >= LATE_AFTER)
    }

    /// The games of a batch that make a position deep, if this tree has
    /// deep positions: it needs the late visits listed (a deep position's
    /// late games are) and fewer plies than [`DEEP_PLY`].
    pub fn deep_games(&self) -> Option<u32> {
        self.deep_games.filter(|_| self.late_listed_from().is_some() && self.max_ply < DEEP_PLY)
    }
}

/// The tree's state; `None` for a database without a tree (schema older
/// than the tree's).
///
/// # Errors
/// Database errors.
pub fn state(conn: &Connection) -> rusqlite::Result<Option<State>> {
    // The columns each schema added, read where present.
    let Ok(mut st) = conn.prepare("SELECT * FROM explorer_tree_state") else { return Ok(None) };
    let column = |name: &str| st.column_index(name).ok();
    let (late_from, late_reach, deep_games) =
        (column("late_from"), column("late_reach"), column("deep_games"));
    let clamp = |n: i64, max: u32| n.clamp(0, i64::from(max)) as u32;
    // Before schema 26 the tree summed both players' ratings: the
    // explorer reads the index until the next write fills it anew.
    let movers = conn.prepare("SELECT mover_elo_sum FROM explorer_tree LIMIT 0").is_ok();
    let masters = Schema::of(conn)?.has(Schema::MASTERS_TREE);
    st.query_row([], |r| {
        let late_from: Option<i64> = late_from.map(|i| r.get(i)).transpose()?.flatten();
        let late_reach: Option<i64> = late_reach.map(|i| r.get(i)).transpose()?;
        let deep_games: Option<i64> = deep_games.map(|i| r.get(i)).transpose()?;
        Ok(State {
            max_ply: r.get("max_ply")?,
            complete: r.get::<_, bool>("complete")? && movers,
            late_from: late_from.map(|id| GameId::new(clamp(id, u32::MAX))),
            late_reach: late_reach.map_or(0, |n| clamp(n, REACH_CAP)),
            // At least one game: zero would make every position deep.
            deep_games: deep_games.map(|n| clamp(n, u32::MAX).max(1)),
            masters,
        })
    })
    .optional()
}

/// The `deep_from` of the position `hash`: `None` if it is not deep, or
/// for a database without deep positions (`state`).
///
/// # Errors
/// Database errors.
pub fn deep_from(conn: &Connection, state: &State, hash: i64) -> rusqlite::Result<Option<GameId>> {
    if state.deep_games.is_none() {
        return Ok(None);
    }
    conn.prepare_cached("SELECT deep_from FROM explorer_deep WHERE hash = ?1")?
        .query_row([hash], |r| r.get(0))
        .optional()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masters_games_are_told_apart_the_same_in_rust_and_sql() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE g (white_elo, black_elo, site, event)").unwrap();
        let sites = [None, Some("Oslo NOR"), Some("https://lichess.org/x"), Some("Chess.com")];
        let sites = [&sites[..], &[Some("WWW.example"), Some("Internet Chess Club")]].concat();
        let events =
            [None, Some("Casual"), Some("CASUAL Blitz game"), Some("Rated x"), Some("Ratedx")];
        let elos = [None, Some(2199), Some(2200), Some(2201), Some(i64::MAX)];
        let mut cases = Vec::new();
        for white in elos {
            for black in elos {
                for site in &sites {
                    for event in events {
                        cases.push((white, black, *site, event));
                    }
                }
            }
        }
        let mut st =
            conn.prepare(&format!("SELECT coalesce({}, 0) FROM g", masters_sql("g"))).unwrap();
        let mut passed = 0;
        for (white, black, site, event) in cases {
            conn.execute("DELETE FROM g", []).unwrap();
            conn.execute(
                "INSERT INTO g VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![white, black, site, event],
            )
            .unwrap();
            let sql: bool = st.query_row([], |r| r.get(0)).unwrap();
            let rust = is_masters(white, black, site, event);
            assert_eq!(rust, sql, "{white:?} {black:?} {site:?} {event:?}");
            passed += usize::from(rust);
        }
        // Both rated, averaging 2200 or more (13 of the 16 pairs of ratings:
        // not 2199 with 2199 or 2200), on a site (2) and with an event (3)
        // not online.
        assert_eq!(passed, 13 * 2 * 3);
    }
}
