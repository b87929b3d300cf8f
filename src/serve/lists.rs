//! Which games an explorer answer lists, and the player's figures, as
//! lichess's opening explorer chooses and computes them.
//!
//! - `/lichess`: top games only from the rating groups from 2000 up, and
//!   only when the request's `ratings` include every group from there to
//!   the top; ranked by how close their group comes to the best rating of
//!   their speed (lichess's leaderboard tops), the most recent first among
//!   equals; at most [`TOP`]. Recent games are the games stored last that
//!   are not among the top ones chosen, at most [`GAMES`] less those.
//! - `/masters`: the games with the highest sum of ratings, at most
//!   [`MASTERS_TOP`].
//! - `/player`: the games stored last, at most [`GAMES`].
//!
//! A game is listed with the move it played from the position: a game
//! that ends there is in no list.

use std::cmp::Reverse;

use crate::db::Speed;
use crate::query::filter::RatingGroup;

/// Top games of `/lichess` at most.
pub const TOP: usize = 4;

/// Top and recent games of `/lichess` together at most, and recent games
/// of `/player`.
pub const GAMES: usize = 8;

/// Top games of `/masters` at most.
pub const MASTERS_TOP: usize = 15;

/// The floors of the groups that top games come from: lichess's groups
/// from 2000 up, with its two above 2500 (which its `ratings` reads as
/// 2500).
const TOP_FLOORS: [i64; 5] = [2000, 2200, 2500, 2800, 3200];

/// A game the lists choose from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listable {
    /// Its id: a higher one was stored later.
    pub id: i64,
    /// White's and Black's ratings.
    pub elos: (Option<i64>, Option<i64>),
}

impl Listable {
    /// The two players' average rating, rounded down; `None` without both.
    fn average(&self) -> Option<i64> {
        let (w, b) = self.elos;
        // Saturating: a database edited by hand may hold any integer.
        Some(w?.saturating_add(b?).div_euclid(2))
    }
}

/// The floor of the lowest group top games come from for a request whose
/// `ratings` are `groups` (empty: every group); `None` when it lists none.
pub fn top_floor(groups: &[RatingGroup]) -> Option<i64> {
    let holds = |floor: i64| {
        groups.is_empty() || groups.iter().any(|g| i64::from(g.floor()) == floor.min(2500))
    };
    TOP_FLOORS.into_iter().rev().take_while(|&f| holds(f)).last()
}

/// The best rating of a speed's leaderboard, which lichess ranks top games
/// by (a game of unknown speed ranks as classical).
fn highscore(speed: Option<Speed>) -> i64 {
    match speed {
        Some(Speed::UltraBullet) => 2644,
        Some(Speed::Bullet) => 3352,
        Some(Speed::Blitz) => 2974,
        Some(Speed::Rapid) => 2949,
        Some(Speed::Correspondence) => 4000,
        Some(Speed::Classical) | None => 2533,
    }
}

/// The lowest highscore: no game of a group ranks better than it with it.
const LOWEST_HIGHSCORE: i64 = 2533;

/// `/lichess`'s lists from `games` (most recent first): the indices of the
/// top games, then of the recent ones. `speed` gives a game's speed, asked
/// only of games that may rank among the top.
///
/// # Errors
/// `speed`'s.
pub fn lichess<E>(
    games: &[Listable],
    floor: Option<i64>,
    top_games: usize,
    recent_games: usize,
    mut speed: impl FnMut(i64) -> Result<Option<Speed>, E>,
) -> Result<(Vec<usize>, Vec<usize>), E> {
    let mut top: Vec<(i64, Reverse<i64>, usize)> = Vec::new();
    if let Some(floor) = floor {
        let group = |avg: i64| TOP_FLOORS.into_iter().rev().find(|&f| avg >= f);
        let mut ranked: Vec<(i64, usize)> = games
            .iter()
            .enumerate()
            .filter_map(|(i, g)| Some((group(g.average()?).filter(|&f| f >= floor)?, i)))
            .collect();
        // Highest group first, most recent first within it: the best rank
        // each game can have only falls, so once one cannot rank before
        // the fourth chosen, the rest need no speed.
        ranked.sort_by_key(|&(f, i)| (Reverse(f), i));
        for (group_floor, i) in ranked {
            let id = Reverse(games[i].id);
            if top.len() == TOP
                && (LOWEST_HIGHSCORE - group_floor, id) > (top[TOP - 1].0, top[TOP - 1].1)
            {
                break;
            }
            let key = (highscore(speed(games[i].id)?) - group_floor, id, i);
            top.push(key);
            top.sort_unstable();
            top.truncate(TOP);
        }
    }
    let chosen: Vec<usize> = top.iter().map(|&(_, _, i)| i).collect();
    let room = GAMES - chosen.len();
    let recent =
        (0..games.len()).filter(|i| !chosen.contains(i)).take(room.min(recent_games)).collect();
    Ok((chosen.into_iter().take(top_games).collect(), recent))
}

/// `/masters`'s top games from `games` (most recent first): the highest
/// sums of both ratings, the most recent first among equals.
pub fn masters(games: &[Listable], top_games: usize) -> Vec<usize> {
    let mut rated: Vec<(Reverse<i64>, usize)> = games
        .iter()
        .enumerate()
        .filter_map(|(i, g)| Some((Reverse(g.elos.0?.saturating_add(g.elos.1?)), i)))
        .collect();
    rated.sort_by_key(|&(sum, i)| (sum, i));
    rated.into_iter().take(top_games.min(MASTERS_TOP)).map(|(_, i)| i).collect()
}

/// The rating difference FIDE's table gives a score of 0 %, 1 %, … 100 %
/// (FIDE Handbook B.02, 8.1: a performance is the opponents' average plus
/// the difference of the score).
const PERFORMANCE_DIFFERENCE: [i32; 101] = [
    -800, -677, -589, -538, -501, -470, -444, -422, -401, -383, -366, -351, -336, -322, -309, -296,
    -284, -273, -262, -251, -240, -230, -220, -211, -202, -193, -184, -175, -166, -158, -149, -141,
    -133, -125, -117, -110, -102, -95, -87, -80, -72, -65, -57, -50, -43, -36, -29, -21, -14, -7,
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158,
    166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366,
    383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
];

/// A player's performance over `wins`, `draws` and `losses` against
/// opponents rated `opponents` on average, as lichess computes it: the
/// table's difference at the score, read between its whole percents.
pub fn performance(opponents: f64, wins: u64, draws: u64, losses: u64) -> Option<i64> {
    let games = wins + draws + losses;
    if games == 0 {
        return None;
    }
    let percent = (100 * wins + 50 * draws) as f64 / games as f64;
    let whole = percent.trunc() as usize;
    let part = percent.fract();
    let at = |i: usize| f64::from(PERFORMANCE_DIFFERENCE.get(i).copied().unwrap_or(800));
    Some((opponents + at(whole) * (1.0 - part) + at(whole + 1) * part).round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: i64, w: Option<i64>, b: Option<i64>) -> Listable {
        Listable { id, elos: (w, b) }
    }

    fn groups(floors: &[u16]) -> Vec<RatingGroup> {
        floors.iter().map(|f| RatingGroup::of_average(i64::from(*f))).collect()
    }

    #[test]
    fn top_games_come_from_the_top_groups_the_request_includes() {
        assert_eq!(top_floor(&[]), Some(2000));
        assert_eq!(top_floor(&groups(&[2200, 2500])), Some(2200));
        assert_eq!(top_floor(&groups(&[1600, 2000, 2200, 2500])), Some(2000));
        assert_eq!(top_floor(&groups(&[2000, 2200])), None, "not up to the top");
        assert_eq!(top_floor(&groups(&[0, 1000])), None);
        assert_eq!(top_floor(&groups(&[2500])), Some(2500));
    }

    #[test]
    fn top_games_rank_by_their_speed_s_best_and_leave_room_for_recent_ones() {
        // Most recent first, as the explorer hands them.
        let games = [
            game(9, Some(1500), Some(1500)),
            game(8, Some(2600), Some(2600)),
            game(7, Some(2100), None),
            game(6, Some(2300), Some(2300)),
            game(5, Some(2900), Some(2900)),
            game(4, Some(2250), Some(2250)),
            game(3, Some(2000), Some(2000)),
            game(2, Some(2050), Some(2050)),
            game(1, Some(1000), Some(1000)),
        ];
        let speeds = |id: i64| -> Result<Option<Speed>, ()> {
            Ok(match id {
                8 => Some(Speed::Bullet),
                5 => Some(Speed::Blitz),
                _ => Some(Speed::Classical),
            })
        };
        let (top, recent) = lichess(&games, Some(2000), 4, 8, speeds).unwrap();
        let ids = |v: &[usize]| v.iter().map(|&i| games[i].id).collect::<Vec<_>>();
        // The smallest gap to the speed's best first: blitz at 2800 (174),
        // classical at 2200 (333, the later first), classical at 2000
        // (533); bullet at 2500 (852) is fifth. 7 has one rating.
        assert_eq!(ids(&top), [5, 6, 4, 3]);
        assert_eq!(ids(&recent), [9, 8, 7, 2], "8 less the 4 top games");
        let (top, recent) = lichess(&games, Some(2000), 1, 8, speeds).unwrap();
        assert_eq!(ids(&top), [5]);
        assert_eq!(recent.len(), 4, "the room left by the four chosen, shown or not");
        let (top, recent) = lichess(&games, None, 4, 8, speeds).unwrap();
        assert!(top.is_empty());
        assert_eq!(ids(&recent), [9, 8, 7, 6, 5, 4, 3, 2]);
        let (_, recent) = lichess(&games, None, 4, 3, speeds).unwrap();
        assert_eq!(recent.len(), 3);
        // Speeds are asked only of games that may rank.
        let mut asked = Vec::new();
        let many: Vec<Listable> =
            (0..100).rev().map(|id| game(id, Some(2600), Some(2600))).collect();
        let (top, _) = lichess(&many, Some(2000), 4, 8, |id| {
            asked.push(id);
            Ok::<_, ()>(Some(Speed::Classical))
        })
        .unwrap();
        assert_eq!(top, [0, 1, 2, 3]);
        assert_eq!(asked.len(), 4);
    }

    #[test]
    fn masters_top_games_have_the_highest_ratings() {
        let games = [
            game(3, Some(2700), Some(2600)),
            game(2, Some(2800), Some(2600)),
            game(1, None, Some(2900)),
        ];
        assert_eq!(masters(&games, 15), [1, 0]);
        assert_eq!(masters(&games, 1), [1]);
    }

    #[test]
    fn performance_follows_fide_s_table() {
        assert_eq!(performance(2000.0, 1, 0, 1), Some(2000));
        assert_eq!(performance(2000.0, 1, 0, 0), Some(2800));
        assert_eq!(performance(2000.0, 0, 0, 3), Some(1200));
        // 2 of 3: 66.67 %, between 117 and 125.
        assert_eq!(performance(1500.0, 2, 0, 1), Some(1500 + 122));
        assert_eq!(performance(1500.0, 0, 0, 0), None);
    }
}
