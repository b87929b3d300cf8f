//! The query string of the explorer routes, read as lichess's opening
//! explorer reads it: `variant`, `fen` (lenient: `_` for spaces, missing
//! fields filled), `play` (comma-separated UCI from `fen`, castling as
//! `e1g1` or `e1h1`), `speeds`, `ratings`, `since`, `until`, `moves`,
//! `topGames`, `recentGames`, `history`, and for `/player` `player`,
//! `color` and `modes`. Unknown parameters are ignored; a known one given
//! twice is refused, as a client that sends two values surely meant one.

use super::lists;
use crate::chess::{Color, Move, Position};
use crate::notation::{fen, uci};
use crate::query::filter::{DateBound, Filters, Mode};
use crate::query::target::Target;

/// The longest query string read: a `play` of 1,000 moves fits.
pub const MAX_QUERY: usize = 8192;

/// The most moves `play` may hold.
pub const MAX_PLAY: usize = 1000;

/// The longest `player` name read. Lichess takes user names of at most 30
/// letters, digits, `_` and `-`; a database holds OTB names too
/// (`Carlsen, Magnus`), so any name up to this length without a control
/// character is looked up.
pub const MAX_PLAYER: usize = 100;

/// Which explorer a route is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `/lichess`: every game, with lichess's speed and rating filters.
    Lichess,
    /// `/masters`: every game, years for dates.
    Masters,
    /// `/player`: one player's games with one colour.
    Player,
}

impl Route {
    /// Top games listed when the query does not say, and the most.
    fn top_games(self) -> (usize, usize) {
        match self {
            Route::Lichess => (lists::TOP, lists::TOP),
            Route::Masters => (lists::MASTERS_TOP, lists::MASTERS_TOP),
            Route::Player => (0, 0),
        }
    }

    /// Moves listed when the query does not say: all of them for a player.
    fn moves(self) -> usize {
        match self {
            Route::Lichess | Route::Masters => 12,
            Route::Player => usize::MAX,
        }
    }

    /// Recent games listed when the query does not say, and the most.
    fn recent_games(self) -> (usize, usize) {
        match self {
            Route::Lichess | Route::Player => (lists::GAMES, lists::GAMES),
            Route::Masters => (0, 0),
        }
    }
}

/// A query the explorer can answer.
#[derive(Debug, Clone)]
pub struct ExplorerQuery {
    /// The route asked.
    pub route: Route,
    /// The position of `fen` (the standard start without one).
    pub start: Position,
    /// The moves of `play`, played from [`ExplorerQuery::start`].
    pub played: Vec<Move>,
    /// The position reached.
    pub target: Target,
    /// The games counted.
    pub filters: Filters,
    /// `/player`'s colour.
    pub player_color: Option<Color>,
    /// The most moves listed.
    pub moves: usize,
    /// Top games listed.
    pub top_games: usize,
    /// Recent games listed.
    pub recent_games: usize,
    /// Whether to add the games by month.
    pub history: bool,
}

/// Why a query was refused: the text after `bad request: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// The query string is too long.
    #[error("the query is {0} bytes long, more than {MAX_QUERY}")]
    TooLong(usize),
    /// A known parameter given twice.
    #[error("{0} is given more than once")]
    Repeated(String),
    /// A variant this database does not hold.
    #[error("variant {0:?}: this database answers for standard chess only")]
    Variant(String),
    /// An unreadable FEN or an illegal position.
    #[error("fen {fen:?}: {error}")]
    Fen {
        /// The FEN as given.
        fen: String,
        /// What is wrong.
        error: String,
    },
    /// A move of `play` that cannot be played.
    #[error("play: move {index} {text:?}: {error}")]
    Play {
        /// 1 for the first move.
        index: usize,
        /// The move as given.
        text: String,
        /// What is wrong.
        error: String,
    },
    /// Too many moves in `play`.
    #[error("play: {0} moves, at most {MAX_PLAY}")]
    PlayTooLong(usize),
    /// A value that is not what the parameter takes.
    #[error("{name}: {value:?} is not {expected}")]
    Value {
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: String,
        /// What it takes.
        expected: &'static str,
    },
    /// A parameter the route needs.
    #[error("{0} is required")]
    Missing(&'static str),
    /// A SAN line (`pgn` of the page's `/api/position`) that cannot be
    /// played.
    #[error("pgn: {0}")]
    Line(String),
    /// A text parameter longer than the route reads.
    #[error("{name}: {chars} characters, at most {most}")]
    TextTooLong {
        /// The parameter.
        name: &'static str,
        /// Its length in characters.
        chars: usize,
        /// The most read.
        most: usize,
    },
}

/// Reads the query string of `route` (without the `?`).
///
/// # Errors
/// The [`ParamError`] of the first parameter that cannot be read.
pub fn parse(route: Route, query: &str) -> Result<ExplorerQuery, ParamError> {
    if query.len() > MAX_QUERY {
        return Err(ParamError::TooLong(query.len()));
    }
    let mut seen: Vec<String> = Vec::new();
    let mut raw = Raw::default();
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        let slot = match name.as_ref() {
            "variant" => &mut raw.variant,
            "fen" => &mut raw.fen,
            "play" => &mut raw.play,
            "speeds" => &mut raw.speeds,
            "ratings" => &mut raw.ratings,
            "since" => &mut raw.since,
            "until" => &mut raw.until,
            "moves" => &mut raw.moves,
            "topGames" => &mut raw.top_games,
            "recentGames" => &mut raw.recent_games,
            "history" => &mut raw.history,
            "player" => &mut raw.player,
            "color" => &mut raw.color,
            "modes" => &mut raw.modes,
            _ => continue,
        };
        if seen.iter().any(|s| *s == name) {
            return Err(ParamError::Repeated(name.into_owned()));
        }
        seen.push(name.into_owned());
        *slot = Some(value.into_owned());
    }
    raw.read(route)
}

/// The parameters as given.
#[derive(Debug, Default)]
struct Raw {
    variant: Option<String>,
    fen: Option<String>,
    play: Option<String>,
    speeds: Option<String>,
    ratings: Option<String>,
    since: Option<String>,
    until: Option<String>,
    moves: Option<String>,
    top_games: Option<String>,
    recent_games: Option<String>,
    history: Option<String>,
    player: Option<String>,
    color: Option<String>,
    modes: Option<String>,
}

impl Raw {
    fn read(self, route: Route) -> Result<ExplorerQuery, ParamError> {
        match self.variant.as_deref().map(str::trim) {
            None | Some("" | "standard" | "chess" | "fromPosition" | "chess960") => {}
            Some(other) => return Err(ParamError::Variant(other.to_string())),
        }
        let start = match self.fen.as_deref().map(|f| f.replace('_', " ")) {
            Some(text) if !text.trim().is_empty() => fen::parse_position_repaired(text.trim())
                .map_err(|e| ParamError::Fen {
                    fen: text.trim().to_string(),
                    error: e.to_string(),
                })?,
            _ => Position::new(),
        };
        let mut pos = start.clone();
        let mut played = Vec::new();
        let texts: Vec<&str> = self
            .play
            .as_deref()
            .map(|p| p.split(',').map(str::trim).filter(|t| !t.is_empty()).collect())
            .unwrap_or_default();
        if texts.len() > MAX_PLAY {
            return Err(ParamError::PlayTooLong(texts.len()));
        }
        for (i, text) in texts.iter().enumerate() {
            let m = uci::parse_move(&pos, text).map_err(|e| ParamError::Play {
                index: i + 1,
                text: text.to_string(),
                error: e.to_string(),
            })?;
            pos.play_unchecked(m);
            played.push(m);
        }
        let last_move = played.last().map(|&m| uci::Uci::from_move(m));
        let target = Target { last_move, ..Target::from_position(pos) };

        let mut filters = Filters::default();
        // Lichess reads speeds on /lichess and /player, ratings and history
        // on /lichess only: elsewhere they are unknown parameters, ignored.
        if route != Route::Masters {
            filters.speeds = list(self.speeds.as_deref(), "speeds", "a list of speeds")?;
        }
        if route == Route::Lichess {
            filters.rating_groups = list(self.ratings.as_deref(), "ratings", "a list of ratings")?;
        }
        filters.since = date(self.since.as_deref(), "since")?;
        filters.until = date(self.until.as_deref(), "until")?;
        let mut player_color = None;
        if route == Route::Player {
            let player = self.player.as_deref().map(str::trim).filter(|p| !p.is_empty());
            let player = player.ok_or(ParamError::Missing("player"))?.to_string();
            let chars = player.chars().count();
            if chars > MAX_PLAYER {
                return Err(ParamError::TextTooLong { name: "player", chars, most: MAX_PLAYER });
            }
            if player.chars().any(char::is_control) {
                return Err(ParamError::Value {
                    name: "player",
                    value: player,
                    expected: "a name (it holds a control character)",
                });
            }
            match self.color.as_deref().map(str::trim) {
                Some("white") => {
                    filters.white = Some(player);
                    player_color = Some(Color::White);
                }
                Some("black") => {
                    filters.black = Some(player);
                    player_color = Some(Color::Black);
                }
                Some(other) => {
                    return Err(ParamError::Value {
                        name: "color",
                        value: other.to_string(),
                        expected: "white or black",
                    })
                }
                None => return Err(ParamError::Missing("color")),
            }
            filters.exact_names = true;
            let modes: Vec<Mode> = list(self.modes.as_deref(), "modes", "a list of modes")?;
            // Both modes is every game, those without a mode too.
            if modes.len() == 1 || modes.windows(2).all(|w| w[0] == w[1]) {
                filters.mode = modes.first().copied();
            }
        }
        let count = |value: Option<&str>, name: &'static str, (default, most): (usize, usize)| {
            number(value, name).map(|n| n.map_or(default, |n| n.min(most)))
        };
        Ok(ExplorerQuery {
            route,
            start,
            played,
            target,
            filters,
            player_color,
            moves: number(self.moves.as_deref(), "moves")?.unwrap_or(route.moves()),
            top_games: count(self.top_games.as_deref(), "topGames", route.top_games())?,
            recent_games: count(self.recent_games.as_deref(), "recentGames", route.recent_games())?,
            history: route == Route::Lichess && flag(self.history.as_deref(), "history")?,
        })
    }
}

/// A yes or no, spelled as lichess reads it (Python clients send `True`);
/// empty or absent: no.
fn flag(value: Option<&str>, name: &'static str) -> Result<bool, ParamError> {
    match value.map(str::trim) {
        None | Some("" | "false" | "False" | "0" | "off" | "no") => Ok(false),
        Some("true" | "True" | "1" | "on" | "yes") => Ok(true),
        Some(other) => {
            Err(ParamError::Value { name, value: other.to_string(), expected: "true or false" })
        }
    }
}

/// A comma-separated list; empty or absent: no filter.
fn list<T: std::str::FromStr>(
    value: Option<&str>,
    name: &'static str,
    expected: &'static str,
) -> Result<Vec<T>, ParamError> {
    let Some(value) = value else { return Ok(Vec::new()) };
    value
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|v| v.parse().map_err(|_| ParamError::Value { name, value: v.to_string(), expected }))
        .collect()
}

/// A month (`YYYY-MM`) or a year (`YYYY`); empty or absent: no bound.
fn date(value: Option<&str>, name: &'static str) -> Result<Option<DateBound>, ParamError> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else { return Ok(None) };
    let err = || ParamError::Value {
        name,
        value: value.to_string(),
        expected: "a month (YYYY-MM) or a year (YYYY)",
    };
    // A day would read as a date too; the explorer takes months.
    if value.split(['-', '.', '/']).count() > 2 {
        return Err(err());
    }
    DateBound::parse(name, value).map(Some).map_err(|_| err())
}

/// A count; absent: `None`.
fn number(value: Option<&str>, name: &'static str) -> Result<Option<usize>, ParamError> {
    let Some(value) = value.map(str::trim) else { return Ok(None) };
    value.parse::<usize>().map(Some).map_err(|_| ParamError::Value {
        name,
        value: value.to_string(),
        expected: "a whole number",
    })
}

/// A move as lichess's explorer writes it: UCI with castling as the king
/// taking its own rook (`e1h1`).
pub fn lichess_uci(m: Move) -> String {
    match m {
        Move::Castle { king, rook } => {
            let mut out = String::with_capacity(4);
            king.append_to(&mut out);
            rook.append_to(&mut out);
            out
        }
        m => uci::Uci::from_move(m).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Speed;

    fn read(route: Route, query: &str) -> Result<ExplorerQuery, String> {
        parse(route, query).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_are_lichess_s() {
        let q = read(Route::Lichess, "").unwrap();
        assert_eq!(q.target.position, Position::new());
        assert!(q.played.is_empty() && q.filters.is_empty() && !q.history);
        assert_eq!((q.moves, q.top_games, q.recent_games), (12, 4, 8));
        let q = read(Route::Masters, "topGames=100&moves=3").unwrap();
        assert_eq!((q.moves, q.top_games, q.recent_games), (3, 15, 0));
    }

    #[test]
    fn fens_are_read_leniently_and_play_from_them() {
        let q = read(
            Route::Lichess,
            "fen=rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR_b_KQkq_-_0_1&play=c7c5,g1f3",
        )
        .unwrap();
        let expected = crate::query::target::Target::from_moves("1. e4 c5 2. Nf3", None).unwrap();
        assert_eq!(q.target.key, expected.key);
        assert_eq!(q.played.len(), 2);
        // Placement and side only: the other fields are filled.
        let q = read(Route::Lichess, "fen=8/8/4k3/8/8/8/8/4K3%20w").unwrap();
        assert_eq!(fen::write(&q.target.position), "8/8/4k3/8/8/8/8/4K3 w - - 0 1");
    }

    #[test]
    fn castling_is_read_both_ways_and_written_king_takes_rook() {
        let fen = "fen=r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R_w_KQkq_-";
        let a = read(Route::Lichess, &format!("{fen}&play=e1g1")).unwrap();
        let b = read(Route::Lichess, &format!("{fen}&play=e1h1")).unwrap();
        assert_eq!(a.target.key, b.target.key);
        assert_eq!(lichess_uci(a.played[0]), "e1h1");
        assert_eq!(lichess_uci(read(Route::Lichess, "play=e2e4").unwrap().played[0]), "e2e4");
    }

    #[test]
    fn filters_follow_the_route() {
        let q = read(
            Route::Lichess,
            "speeds=blitz,ultraBullet&ratings=2000,2500&since=2020-01&until=2021-06&history=true",
        )
        .unwrap();
        assert_eq!(q.filters.speeds, [Speed::Blitz, Speed::UltraBullet]);
        assert_eq!(q.filters.rating_groups.len(), 2);
        assert_eq!(q.filters.since.as_ref().map(|d| d.as_str()), Some("2020.01"));
        assert_eq!(q.filters.until.as_ref().map(|d| d.as_str()), Some("2021.06"));
        assert!(q.history);
        // Yes and no as lichess spells them (berserk sends Python's).
        for (yes, no) in [("True", "False"), ("1", "0"), ("on", "off"), ("yes", "no")] {
            assert!(read(Route::Lichess, &format!("history={yes}")).unwrap().history, "{yes}");
            assert!(!read(Route::Lichess, &format!("history={no}")).unwrap().history, "{no}");
        }
        // A player's moves are all listed unless the query says.
        assert_eq!(read(Route::Player, "player=a&color=white").unwrap().moves, usize::MAX);
        assert_eq!(read(Route::Lichess, "").unwrap().moves, 12);
        // `chess` is lichess's other name of standard.
        assert!(read(Route::Lichess, "variant=chess").is_ok());
        // Masters: years, no speeds or ratings.
        let q = read(Route::Masters, "since=1952&until=1970&speeds=blitz&ratings=2500").unwrap();
        assert!(q.filters.speeds.is_empty() && q.filters.rating_groups.is_empty());
        assert_eq!(q.filters.since.as_ref().map(|d| d.as_str()), Some("1952"));
        let q = read(Route::Player, "player=DrNykterstein&color=black&modes=rated").unwrap();
        assert_eq!(q.filters.black.as_deref(), Some("DrNykterstein"));
        assert!(q.filters.exact_names && q.filters.white.is_none());
        assert_eq!(q.filters.mode, Some(Mode::Rated));
        // A player's games are not filtered by rating nor given by month.
        let q = read(Route::Player, "player=a&color=white&ratings=2500&history=x").unwrap();
        assert!(q.filters.rating_groups.is_empty() && !q.history);
        let q = read(Route::Player, "player=a&color=white&modes=rated,casual").unwrap();
        assert_eq!(q.filters.mode, None, "both modes: every game");
        assert_eq!((q.top_games, q.recent_games), (0, 8));
    }

    #[test]
    fn bad_values_name_the_parameter() {
        let bad = |route, query| read(route, query).unwrap_err();
        assert_eq!(
            bad(Route::Lichess, "variant=atomic"),
            "variant \"atomic\": this database answers for standard chess only"
        );
        assert!(bad(Route::Lichess, "fen=rnbqkbnr/pppppppp/8/8").starts_with("fen \""));
        assert!(bad(Route::Lichess, "fen=8/8/8/8/8/8/8/8_w").starts_with("fen \""));
        assert!(bad(Route::Lichess, "play=e2e5").starts_with("play: move 1 \"e2e5\": "));
        assert!(bad(Route::Lichess, "play=e2e4,e2e4").starts_with("play: move 2 \"e2e4\": "));
        assert!(bad(Route::Lichess, "play=zz").starts_with("play: move 1 \"zz\""));
        assert_eq!(bad(Route::Lichess, "moves=-1"), "moves: \"-1\" is not a whole number");
        assert_eq!(bad(Route::Lichess, "moves=1e3"), "moves: \"1e3\" is not a whole number");
        assert!(bad(Route::Lichess, "speeds=fast").starts_with("speeds: \"fast\" is not"));
        assert!(bad(Route::Lichess, "ratings=high").starts_with("ratings: \"high\" is not"));
        assert!(bad(Route::Lichess, "since=2020-13").starts_with("since: \"2020-13\" is not"));
        assert!(bad(Route::Lichess, "until=2020-01-05").starts_with("until: \"2020-01-05\""));
        assert_eq!(bad(Route::Lichess, "history=y"), "history: \"y\" is not true or false");
        assert_eq!(bad(Route::Lichess, "history=TRUE"), "history: \"TRUE\" is not true or false");
        assert_eq!(bad(Route::Lichess, "fen=x&fen=y"), "fen is given more than once");
        assert_eq!(bad(Route::Player, "color=white"), "player is required");
        assert_eq!(bad(Route::Player, "player=a"), "color is required");
        let long = format!("player={}&color=white", "a".repeat(101));
        assert_eq!(bad(Route::Player, &long), "player: 101 characters, at most 100");
        assert!(bad(Route::Player, "player=a%07b&color=white").starts_with("player: \"a\\u{7}b\""));
        assert!(read(Route::Player, "player=Smith,%20John&color=white").is_ok());
        assert!(bad(Route::Player, "player=a&color=red").starts_with("color: \"red\""));
        let long = format!("play={}", "e2e4,".repeat(2000));
        assert!(bad(Route::Lichess, &long).starts_with("the query is 10005 bytes long"));
        let many = format!("play={}", "g1f3,f3g1,".repeat(501));
        assert_eq!(bad(Route::Lichess, &many), "play: 1002 moves, at most 1000");
        // Unknown parameters are ignored; so is an empty list.
        assert!(read(Route::Lichess, "foo=bar&speeds=&token=x").is_ok());
    }
}
