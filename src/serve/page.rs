//! The web page and the three JSON routes only it uses: `/api/position`
//! (the legal moves of a position, so that the page needs no chess code
//! of its own), `/api/game/{id}` (a game's headers and moves with the
//! position, clock and evaluation after each) and `/api/players` (the
//! stored names containing a part of one, for the player filter, since
//! `/player` takes a whole name as lichess's does). The page's files are
//! inside the binary and served from a fixed table: no path reaches the
//! disk.

use std::fmt::Write as _;

use rusqlite::Connection;
use serde_json::{json, Value};

use super::params::{lichess_uci, ExplorerQuery, ParamError, Route, MAX_QUERY};
use crate::chess::MoveList;
use crate::db::GameId;
use crate::notation::{fen, san, uci::Uci};
use crate::query::game::{self, StoredSize};
use crate::query::players;
use crate::query::target::Target;
use crate::query::QueryError;
use crate::replay::stored::Replay;

/// A file of the page: its path, content type and bytes.
pub struct Asset {
    /// The path it is served at.
    pub path: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes.
    pub body: &'static str,
}

/// Every file of the page.
pub const ASSETS: &[Asset] = &[
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        body: include_str!("page/index.html"),
    },
    Asset {
        path: "/assets/app.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_str!("page/app.js"),
    },
    Asset {
        path: "/assets/style.css",
        content_type: "text/css; charset=utf-8",
        body: include_str!("page/style.css"),
    },
];

/// The asset served at `path`, if any.
pub fn asset(path: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.path == path)
}

/// The position a query reaches and its legal moves: `{fen, turn, check,
/// lastMove, moves: [{uci, lichess, san, from, to, promotion}]}`;
/// `lichess` is the move as the explorer writes it (castling king takes
/// rook), `to` where the moving piece lands.
pub fn position(query: &ExplorerQuery) -> Value {
    let pos = &query.target.position;
    let mut at = query.start.clone();
    let line: Vec<Value> = query
        .played
        .iter()
        .map(|&m| {
            let san = san::to_san(&at, m);
            at.play_unchecked(m);
            json!({ "uci": Uci::from_move(m).to_string(), "san": san })
        })
        .collect();
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut moves: Vec<Value> = list
        .iter()
        .map(|&m| {
            let mut from = String::new();
            m.from().append_to(&mut from);
            let mut to = String::new();
            m.to().append_to(&mut to);
            json!({
                "uci": Uci::from_move(m).to_string(),
                "lichess": lichess_uci(m),
                "san": san::to_san(pos, m),
                "from": from,
                "to": to,
                "promotion": m.promotion().map(|r| r.char().to_string()),
            })
        })
        .collect();
    moves.sort_by(|a, b| a["san"].as_str().cmp(&b["san"].as_str()));
    json!({
        "fen": fen::write(pos),
        "turn": if pos.turn() == crate::chess::Color::White { "white" } else { "black" },
        "check": pos.is_check(),
        "lastMove": query.played.last().map(|&m| Uci::from_move(m).to_string()),
        "moves": moves,
        "line": line,
    })
}

/// The query of `/api/position` with a SAN line (`pgn=1. e4 c5`, played
/// from `fen`) turned into lichess's `play`, as [`super::params::parse`]
/// reads it; the query as it is without `pgn`.
///
/// # Errors
/// [`ParamError`] when the query cannot be read or the line played.
pub fn with_line(query: &str) -> Result<String, ParamError> {
    if query.len() > MAX_QUERY {
        return Err(ParamError::TooLong(query.len()));
    }
    let pairs: Vec<(String, String)> =
        form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let Some((_, line)) = pairs.iter().find(|(name, _)| name == "pgn") else {
        return Ok(query.to_string());
    };
    let mut rest = form_urlencoded::Serializer::new(String::new());
    for (name, value) in pairs.iter().filter(|(name, _)| name != "pgn" && name != "play") {
        rest.append_pair(name, value);
    }
    let rest = rest.finish();
    let start = super::params::parse(Route::Lichess, &rest)?.start;
    let moves = Target::line(line, &start)
        .map_err(|e| ParamError::Line(e.to_string().trim_start_matches("--moves: ").to_string()))?;
    let play: Vec<String> = moves.iter().map(|&m| Uci::from_move(m).to_string()).collect();
    let mut out = form_urlencoded::Serializer::new(rest);
    out.append_pair("play", &play.join(","));
    Ok(out.finish())
}

/// The longest part of a name `/api/players` looks for, in characters.
pub const MAX_NAME_PART: usize = 100;

/// The most names `/api/players` answers.
pub const MAX_PLAYERS: usize = 10;

/// The part of a name in the query string of `/api/players` (`q=PART`),
/// trimmed.
///
/// # Errors
/// [`ParamError`] when the query is too long, `q` is missing, empty,
/// given twice or longer than [`MAX_NAME_PART`].
pub fn name_part(query: &str) -> Result<String, ParamError> {
    if query.len() > MAX_QUERY {
        return Err(ParamError::TooLong(query.len()));
    }
    let mut part = None;
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        if name == "q" {
            if part.is_some() {
                return Err(ParamError::Repeated("q".into()));
            }
            part = Some(value.trim().to_string());
        }
    }
    let part = part.filter(|p| !p.is_empty()).ok_or(ParamError::Missing("q"))?;
    let chars = part.chars().count();
    if chars > MAX_NAME_PART {
        return Err(ParamError::TextTooLong { name: "q", chars, most: MAX_NAME_PART });
    }
    Ok(part)
}

/// The answer of `/api/players`: `[{name, games}]` of the stored names
/// containing the part asked for, as `--player` matches it, at most
/// [`MAX_PLAYERS`], most games first.
pub fn players_json(names: Vec<players::PlayerName>) -> Value {
    names.into_iter().map(|p| json!({ "name": p.name, "games": p.games })).collect()
}

/// The most plies of a game answered in one piece: as many as the position
/// index covers (a legal game has at most about 17,700).
pub const MAX_GAME_PLIES: i64 = 1 << 16;

/// The most stored text (moves, tags, comments and other notes) of a game
/// answered in one piece. An answer is built in memory at several times
/// that size, and real games stay far below it: a TCEC game with an engine
/// comment on every move stores about 200 KB.
pub const MAX_GAME_BYTES: i64 = 8 << 20;

/// What `/api/game/{id}` and `/masters/pgn/{id}` answer.
#[derive(Debug, PartialEq)]
pub enum GameAnswer {
    /// No game has the id.
    Missing,
    /// The game is past [`MAX_GAME_PLIES`] or [`MAX_GAME_BYTES`].
    TooLarge(StoredSize),
    /// The game as text: JSON or PGN.
    Text(String),
}

impl GameAnswer {
    /// The refusal of a game too large to answer, naming the limit it
    /// passes and the command that writes it.
    pub fn too_large(id: GameId, size: StoredSize) -> String {
        let passed = if size.plies > MAX_GAME_PLIES {
            format!("{} plies (the most answered: {MAX_GAME_PLIES})", size.plies)
        } else {
            format!(
                "{} bytes of moves, tags and comments (the most answered: {MAX_GAME_BYTES})",
                size.bytes
            )
        };
        format!("game {id} is too large to answer: it has {passed}; `pgnindex show {id}` writes it")
    }
}

/// The answer for a game that is missing or too large; `None` when it can
/// be loaded.
fn refusal(conn: &Connection, id: GameId) -> Result<Option<GameAnswer>, QueryError> {
    Ok(match game::stored_size(conn, id)? {
        None => Some(GameAnswer::Missing),
        Some(size) if size.plies > MAX_GAME_PLIES || size.bytes > MAX_GAME_BYTES => {
            Some(GameAnswer::TooLarge(size))
        }
        Some(_) => None,
    })
}

/// One game as export-format PGN.
///
/// # Errors
/// [`QueryError`] reading or writing it.
pub fn game_pgn(conn: &Connection, id: GameId) -> Result<GameAnswer, QueryError> {
    if let Some(answer) = refusal(conn, id)? {
        return Ok(answer);
    }
    let Some(game) = game::load(conn, id)? else { return Ok(GameAnswer::Missing) };
    let mut out = Vec::new();
    crate::query::pgn::write_game(&mut out, &game).map_err(QueryError::Output)?;
    String::from_utf8(out)
        .map(GameAnswer::Text)
        .map_err(|e| QueryError::Output(std::io::Error::other(e)))
}

/// One game for the viewer: `{id, tags: [[name, value]], result, startFen,
/// plies: [{san, uci, fen, clock, eval, mate}], error}`, written as text
/// ply by ply (a tree of values would take ten times the answer's size).
///
/// # Errors
/// [`QueryError`] reading or replaying it.
pub fn game_json(conn: &Connection, id: GameId) -> Result<GameAnswer, QueryError> {
    if let Some(answer) = refusal(conn, id)? {
        return Ok(answer);
    }
    let Some(g) = game::load(conn, id)? else { return Ok(GameAnswer::Missing) };
    let notes = game::load_notes(conn, id)?;
    let err = |error| QueryError::Replay { id, error };
    let mut replay = Replay::new(g.start_fen.as_deref(), &g.moves).map_err(err)?;
    let start = fen::write(replay.position());
    let tags: Vec<Value> = g.tag_pairs().into_iter().map(|(k, v)| json!([k, v])).collect();
    let head = json!({
        "id": id.get().to_string(),
        "tags": tags,
        "result": g.header.result,
        "startFen": start,
        "error": g.error,
    });
    // The head's fields, then the plies written one by one.
    let mut out = head.to_string();
    out.pop();
    out.push_str(",\"plies\":[");
    let mut ply = 0;
    while let Some(san) = replay.step().map_err(err)? {
        if ply > 0 {
            out.push(',');
        }
        let note = notes.get(ply);
        let json = json!({
            "san": san,
            "uci": replay.last_move().map(|m| m.to_string()),
            "fen": fen::write(replay.position()),
            "clock": note.and_then(|n| n.clock),
            "eval": note.and_then(|n| n.eval),
            "mate": note.and_then(|n| n.mate),
        });
        // `Display` of a value writes its JSON text.
        write!(out, "{json}").map_err(|e| QueryError::Output(std::io::Error::other(e)))?;
        ply += 1;
    }
    out.push_str("]}");
    Ok(GameAnswer::Text(out))
}
