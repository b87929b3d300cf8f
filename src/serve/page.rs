//! The web page and the two JSON routes only it uses: `/api/position`
//! (the legal moves of a position, so that the page needs no chess code
//! of its own) and `/api/game/{id}` (a game's headers and moves with the
//! position, clock and evaluation after each). The page's files are inside
//! the binary and served from a fixed table: no path reaches the disk.

use std::fmt::Write as _;

use rusqlite::{Connection, OptionalExtension};
use serde_json::{json, Value};

use super::params::{lichess_uci, ExplorerQuery};
use crate::chess::MoveList;
use crate::db::GameId;
use crate::notation::{fen, san, uci::Uci};
use crate::query::game;
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
    })
}

/// The most plies of a game the page is sent: as many as the position
/// index covers. A longer game would make an answer of hundreds of
/// megabytes; its PGN is served whole.
pub const MAX_PAGE_PLIES: i64 = 1 << 16;

/// What `/api/game/{id}` answers.
#[derive(Debug, PartialEq)]
pub enum GameAnswer {
    /// No game has the id.
    Missing,
    /// The game has more than [`MAX_PAGE_PLIES`] plies.
    TooLong {
        /// Its plies.
        plies: i64,
    },
    /// The game as JSON text.
    Json(String),
}

/// One game for the viewer: `{id, tags: [[name, value]], result, startFen,
/// plies: [{san, uci, fen, clock, eval, mate}], error}`, written as text
/// ply by ply (a tree of values would take ten times the answer's size).
///
/// # Errors
/// [`QueryError`] reading or replaying it.
pub fn game_json(conn: &Connection, id: GameId) -> Result<GameAnswer, QueryError> {
    let plies: Option<Option<i64>> = conn
        .prepare_cached("SELECT ply_count FROM games WHERE id = ?1")
        .and_then(|mut st| st.query_row([id], |r| r.get(0)).optional())
        .map_err(QueryError::sqlite(conn))?;
    match plies {
        None => return Ok(GameAnswer::Missing),
        Some(Some(plies)) if plies > MAX_PAGE_PLIES => return Ok(GameAnswer::TooLong { plies }),
        Some(_) => {}
    }
    let Some(g) = game::load(conn, id)? else { return Ok(GameAnswer::Missing) };
    let notes = game::load_notes(conn, id)?;
    let err = |source| QueryError::Replay { id, source };
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
    Ok(GameAnswer::Json(out))
}
