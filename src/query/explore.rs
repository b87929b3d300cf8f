//! The opening explorer: the moves played from a position, with game
//! counts, results, the average rating of the players who chose each
//! (the side to move, as lichess, SCID and ChessBase give it) and last
//! date.
//!
//! Counts are per game and by position, not by move order: every game
//! that reaches the position (by any move order) counts once, with the
//! move it played the first time it got there. Games that end in the
//! position count in [`Explorer::games`] but in no move. Hits are found
//! by key (see [`super::search`]); a move that is not legal in the target
//! position can only come from a key collision and is dropped with its
//! games.

use std::collections::HashMap;

use rusqlite::Connection;

use super::error::QueryError;
use super::search::{Hit, Outcome, Search};
use crate::notation::san;
use crate::notation::uci::Uci;
use crate::store::format::explorer;

/// One move of the explorer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveStats {
    /// Canonical SAN with `+`/`#` (`--` for a null move).
    pub san: String,
    /// UCI (`0000` for a null move).
    pub uci: String,
    /// Games that played it.
    pub games: u64,
    /// Of those, won by white.
    pub white_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by black.
    pub black_wins: u64,
    /// Sum of the ratings present of the players who made the move.
    pub mover_elo_sum: i64,
    /// Number of ratings summed.
    pub mover_elo_count: u64,
    /// The latest date with a known year (as stored, `??` kept).
    pub last_date: Option<String>,
}

impl MoveStats {
    fn new(san: String, uci: String) -> MoveStats {
        MoveStats {
            san,
            uci,
            games: 0,
            white_wins: 0,
            draws: 0,
            black_wins: 0,
            mover_elo_sum: 0,
            mover_elo_count: 0,
            last_date: None,
        }
    }

    /// Adds the counts of `other` (the same move).
    fn merge(&mut self, other: MoveStats) {
        self.games += other.games;
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.black_wins += other.black_wins;
        self.mover_elo_sum = self.mover_elo_sum.saturating_add(other.mover_elo_sum);
        self.mover_elo_count += other.mover_elo_count;
        if other.last_date > self.last_date {
            self.last_date = other.last_date;
        }
    }

    /// The average rating of the rated players who made the move,
    /// rounded; `None` if none is rated.
    pub fn avg_elo(&self) -> Option<i64> {
        (self.mover_elo_count > 0).then(|| {
            let n = self.mover_elo_count as i64;
            self.mover_elo_sum.saturating_add(n / 2).div_euclid(n)
        })
    }

    /// `part` of [`MoveStats::games`] in percent, one decimal.
    pub fn percent(&self, part: u64) -> f64 {
        if self.games == 0 {
            return 0.0;
        }
        (part as f64 * 1000.0 / self.games as f64).round() / 10.0
    }
}

/// The explorer of one position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Explorer {
    /// The moves, most played first (ties by SAN).
    pub moves: Vec<MoveStats>,
    /// Games that reach the position.
    pub games: u64,
    /// Of those, games that end there.
    pub ended: u64,
    /// Games left out: their move is not legal in the position.
    pub rejected: u64,
}

/// Builds the explorer of `search`'s target (empty without a target): from
/// the explorer's tree when it can answer ([`Search::for_each_tree_hit`]),
/// from the position index otherwise. Both give the same answer.
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn explore(conn: &Connection, search: &Search) -> Result<Explorer, QueryError> {
    explore_with(conn, search, |_| {}).map(|(explorer, _)| explorer)
}

/// [`explore`], calling `each` with every game's hit when the answer is
/// read from the position index rather than the tree: `true` then, and
/// `each` has seen every game that reaches the position.
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn explore_with(
    conn: &Connection,
    search: &Search,
    each: impl FnMut(&Hit<'_>),
) -> Result<(Explorer, bool), QueryError> {
    let Some(target) = &search.target else { return Ok((Explorer::default(), false)) };
    let tally = std::cell::RefCell::new(Tally::new(&target.position));
    let by_tree = search.for_each_tree_hit(
        conn,
        |next_move, counts| tally.borrow_mut().counts(next_move, counts),
        |hit| tally.borrow_mut().hit(hit),
    )?;
    if by_tree {
        return Ok((tally.into_inner().finish(), false));
    }
    explore_index(conn, search, &target.position, each).map(|explorer| (explorer, true))
}

/// [`explore`] from the position index alone, every game that reaches the
/// position read, never from the explorer's tree: what the tree's answers
/// are checked against.
///
/// # Errors
/// [`QueryError::Sqlite`].
pub fn explore_without_tree(conn: &Connection, search: &Search) -> Result<Explorer, QueryError> {
    let Some(target) = &search.target else { return Ok(Explorer::default()) };
    explore_index(conn, search, &target.position, |_| {})
}

/// The explorer of `position` (the search's target) from every hit of the
/// position index, each also handed to `each`.
fn explore_index(
    conn: &Connection,
    search: &Search,
    position: &crate::chess::Position,
    mut each: impl FnMut(&Hit<'_>),
) -> Result<Explorer, QueryError> {
    let mut tally = Tally::new(position);
    search.for_each_hit(conn, |hit| {
        tally.hit(hit);
        each(hit);
    })?;
    Ok(tally.finish())
}

/// The explorer being summed.
struct Tally<'p> {
    position: &'p crate::chess::Position,
    by_code: HashMap<u16, Option<MoveStats>>,
    explorer: Explorer,
}

impl<'p> Tally<'p> {
    fn new(position: &'p crate::chess::Position) -> Tally<'p> {
        Tally { position, by_code: HashMap::new(), explorer: Explorer::default() }
    }

    /// The move `code`'s row; `None` if it is not legal in the position.
    fn stats(&mut self, code: u16) -> Option<&mut MoveStats> {
        let position = self.position;
        self.by_code.entry(code).or_insert_with(|| describe(position, code)).as_mut()
    }

    /// Counts `games` games that play `next_move` (`None`: they end
    /// there); the row to add to, if the move is legal.
    fn games(&mut self, next_move: Option<u16>, games: u64) -> Option<&mut MoveStats> {
        let Some(code) = next_move else {
            self.explorer.games += games;
            self.explorer.ended += games;
            return None;
        };
        if self.stats(code).is_none() {
            self.explorer.rejected += games;
            return None;
        }
        self.explorer.games += games;
        self.stats(code)
    }

    /// Counts one game's first hit.
    fn hit(&mut self, hit: &Hit<'_>) {
        let white_moves = self.position.turn().is_white();
        let Some(stats) = self.games(hit.next_move, 1) else { return };
        stats.games += 1;
        match hit.result {
            Some(Outcome::WhiteWins) => stats.white_wins += 1,
            Some(Outcome::Draw) => stats.draws += 1,
            Some(Outcome::BlackWins) => stats.black_wins += 1,
            None => {}
        }
        let mover_elo = if white_moves { hit.white_elo } else { hit.black_elo };
        if let Some(elo) = mover_elo {
            // Saturating: a database edited by hand may hold any integer.
            stats.mover_elo_sum = stats.mover_elo_sum.saturating_add(elo);
            stats.mover_elo_count += 1;
        }
        if let Some(date) = hit.date.filter(|d| explorer::known_year(d)) {
            if stats.last_date.as_deref().is_none_or(|last| date > last) {
                stats.last_date = Some(date.to_string());
            }
        }
    }

    /// Counts a row of the explorer's tree.
    fn counts(&mut self, next_move: Option<u16>, counts: &explorer::Counts) {
        let n = |v: i64| u64::try_from(v).unwrap_or(0);
        let Some(stats) = self.games(next_move, n(counts.games)) else { return };
        let mut other = MoveStats::new(String::new(), String::new());
        other.games = n(counts.games);
        other.white_wins = n(counts.white_wins);
        other.draws = n(counts.draws);
        other.black_wins = n(counts.black_wins);
        other.mover_elo_sum = counts.mover_elo_sum;
        other.mover_elo_count = n(counts.mover_elo_count);
        other.last_date.clone_from(&counts.last_date);
        stats.merge(other);
    }

    fn finish(self) -> Explorer {
        let mut explorer = self.explorer;
        // One move can have two codes (castling is stored king-takes-rook in
        // Chess960 games, king two squares in standard ones): one row per move.
        let mut by_move: HashMap<String, MoveStats> = HashMap::new();
        for stats in self.by_code.into_values().flatten() {
            match by_move.get_mut(&stats.uci) {
                Some(row) => row.merge(stats),
                None => {
                    by_move.insert(stats.uci.clone(), stats);
                }
            }
        }
        explorer.moves = by_move.into_values().collect();
        explorer.moves.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.san.cmp(&b.san)));
        explorer
    }
}

/// SAN and UCI of the move with `code` in `pos`; `None` if it is not legal
/// there.
fn describe(pos: &crate::chess::Position, code: u16) -> Option<MoveStats> {
    match Uci::from_code(code)? {
        Uci::Null => {
            (!pos.is_check()).then(|| MoveStats::new("--".to_string(), "0000".to_string()))
        }
        uci => {
            // The move's own UCI, not the stored text: castling reads the
            // same whichever form it was stored in.
            let m = uci.to_move(pos).ok()?;
            Some(MoveStats::new(san::to_san(pos, m), Uci::from_move(m).to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn averages_and_percentages_round() {
        let mut s = MoveStats::new("e4".into(), "e2e4".into());
        assert_eq!(s.avg_elo(), None);
        assert_eq!(s.percent(0), 0.0);
        s.games = 3;
        s.white_wins = 2;
        s.mover_elo_sum = 2401 + 2400;
        s.mover_elo_count = 2;
        assert_eq!(s.avg_elo(), Some(2401), "2400.5 rounds up");
        assert_eq!(s.percent(2), 66.7);
    }

    #[test]
    fn illegal_codes_are_not_moves() {
        let start = crate::chess::Position::new();
        let e4 = "e2e4".parse::<Uci>().unwrap().code();
        let m = describe(&start, e4).unwrap();
        assert_eq!((m.san.as_str(), m.uci.as_str()), ("e4", "e2e4"));
        assert!(describe(&start, "e2e5".parse::<Uci>().unwrap().code()).is_none());
        assert!(describe(&start, 4095 + 4096 * 7).is_none(), "no move has this code");
        assert_eq!(describe(&start, 0).unwrap().san, "--");
        // Castling stored king-takes-rook (Chess960 games) reads as e1g1.
        let pos = crate::notation::fen::parse_position(
            "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
        )
        .unwrap();
        let e1h1 = describe(&pos, "e1h1".parse::<Uci>().unwrap().code()).unwrap();
        let e1g1 = describe(&pos, "e1g1".parse::<Uci>().unwrap().code()).unwrap();
        assert_eq!((e1h1.san.as_str(), e1h1.uci.as_str()), ("O-O", "e1g1"));
        assert_eq!(e1h1, e1g1);
    }

    #[test]
    fn merging_adds_counts_and_keeps_the_last_date() {
        let mut a = MoveStats::new("O-O".into(), "e1g1".into());
        a.games = 2;
        a.draws = 1;
        a.last_date = Some("2020.01.01".into());
        let mut b = MoveStats::new("O-O".into(), "e1g1".into());
        b.games = 3;
        b.white_wins = 3;
        b.mover_elo_sum = 5000;
        b.mover_elo_count = 2;
        b.last_date = Some("2021.??.??".into());
        a.merge(b);
        assert_eq!((a.games, a.white_wins, a.draws, a.avg_elo()), (5, 3, 1, Some(2500)));
        assert_eq!(a.last_date.as_deref(), Some("2021.??.??"));
    }
}
