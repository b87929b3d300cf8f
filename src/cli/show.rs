//! `pgnindex show`: one game as export PGN, JSON or a table of its moves,
//! optionally with the FEN of every position and a board diagram.

use std::io::Write;

use clap::{Args, ValueEnum};
use serde_json::Value;

use pgnindex::chess::{Color, Position};
use pgnindex::db::GameId;
use pgnindex::notation::fen;
use pgnindex::notation::uci::Uci;
use pgnindex::query::format::json_object;
use pgnindex::query::game::{self, Game, PlyNote};
use pgnindex::query::pgn;
use pgnindex::query::QueryError;
use pgnindex::replay::stored::Replay;

use super::exit::Exit;
use super::query_args::{self, printable, BoardArgs, DbArgs};

/// Output formats of `show`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShowFormat {
    /// Export-format PGN.
    Pgn,
    /// One JSON object.
    Json,
    /// The players, result, event and date, then the moves, one line
    /// per move pair, each with its clock and evaluation.
    Table,
}

/// Arguments of `show`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex show 42
  pgnindex show 42 --fens
  pgnindex show 42 --format json | jq .tags
  pgnindex show 42 --board --ply 10
  pgnindex show 42 --format table --board --flip

PGN is written in export format: the seven-tag roster, the other tags, then
the movetext as imported (comments, variations, NAGs) in lines of at most 80
characters; a game whose replay stopped at a bad move gets a comment there,
{pgnindex: replay stopped here: MESSAGE}. --fens adds, after the game, one line per position of the
mainline: PLY, the move that led there (- for the start) and the FEN,
separated by tabs (with --format json: a \"fens\" array).

--format table starts with the players (with their ratings) and the result,
then the event, site, round and date as far as known, and a blank line; then
the mainline one move pair a line, each move with the clock after it and the
evaluation the game gives (White's view, #N a mate), as in
`12. Nf3 (0:04:51, +0.35)  Nc6 (0:04:48, #-3)`. JSON has a \"notes\" array
when the game has clocks, evaluations, NAGs or comments: one object per move
(clock, emt, eval, mate, nags, comment; null where none).

--board draws the position after the last move (after --ply N moves, 0 the
start) below the game, the move that led there marked; with --fens, under the
FEN line of every position (of position N alone with --ply N). With --format
json: a \"board\" object (fen, flipped, last_move, ply).")]
pub struct ShowArgs {
    /// The game's id (as `find` lists it).
    id: i64,
    #[command(flatten)]
    db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ShowFormat::Pgn)]
    format: ShowFormat,
    /// Add the FEN of every position of the mainline.
    #[arg(long)]
    fens: bool,
    #[command(flatten)]
    board: BoardArgs,
    /// The board after N moves of the mainline (0: the start; default: the
    /// last position).
    #[arg(long, value_name = "N", requires = "board", help_heading = "Board")]
    ply: Option<u32>,
}

/// Runs `show`: exit 1 if there is no such game, or no such ply.
pub fn run(args: &ShowArgs) -> anyhow::Result<Exit> {
    let (conn, _) = args.db.open()?;
    // An id no game can have is simply not there.
    let stored = match GameId::try_from(args.id) {
        Ok(id) => game::load(&conn, id)?,
        Err(_) => None,
    };
    let game = stored.ok_or(QueryError::NoSuchGame(args.id))?;
    let positions = if args.fens || args.board.board { positions(&game)? } else { Vec::new() };
    // The ply the board is drawn at (with --fens and no --ply: at every
    // ply). The plies replayed, which are the stored ones.
    let last = positions.len().saturating_sub(1);
    let board_ply = match (args.board.board, args.ply.map(|n| n as usize)) {
        (false, _) => None,
        (true, Some(ply)) if ply > last => {
            anyhow::bail!("--ply {ply}: game {} has {} (0 is the start)", game.id, plies(last))
        }
        (true, Some(ply)) => Some(ply),
        (true, None) => Some(last),
    };
    let notes = match args.format {
        ShowFormat::Pgn => Vec::new(),
        ShowFormat::Json | ShowFormat::Table => game::load_notes(&conn, game.id)?,
    };
    let mut out = query_args::stdout();
    match args.format {
        ShowFormat::Pgn | ShowFormat::Table => {
            if args.format == ShowFormat::Pgn {
                pgn::write_game(&mut out, &game)?;
            } else {
                for line in header_lines(&game).into_iter().chain(move_lines(&game, &notes)) {
                    writeln!(out, "{line}")?;
                }
            }
            let board_at = |ply: usize| {
                let p: &PlyPosition = &positions[ply];
                args.board.draw(&p.position, p.last_move)
            };
            if args.fens {
                for (ply, p) in positions.iter().enumerate() {
                    let fen = fen::write(&p.position);
                    writeln!(out, "{ply}\t{}\t{fen}", p.san.unwrap_or("-"))?;
                    let drawn = args.board.board && args.ply.is_none_or(|n| n as usize == ply);
                    if drawn {
                        writeln!(out, "{}", board_at(ply))?;
                    }
                }
            } else if let Some(ply) = board_ply {
                if args.format == ShowFormat::Table {
                    writeln!(out)?;
                }
                write!(out, "{}", board_at(ply))?;
            }
        }
        ShowFormat::Json => {
            let fens =
                args.fens.then(|| positions.iter().map(|p| fen::write(&p.position)).collect());
            let board = board_ply.map(|ply| {
                let p = &positions[ply];
                let mut board = args.board.json(&p.position, p.last_move);
                board["ply"] = ply.into();
                board
            });
            writeln!(out, "{}", to_json(&game, fens, board, &notes))?;
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// `N plies` (`1 ply`).
fn plies(n: usize) -> String {
    if n == 1 {
        "1 ply".to_string()
    } else {
        format!("{n} plies")
    }
}

/// A position of the mainline.
#[derive(Debug)]
struct PlyPosition<'a> {
    /// The move that led there in SAN (none for the start).
    san: Option<&'a str>,
    /// The move that led there in UCI.
    last_move: Option<Uci>,
    position: Position,
}

/// Every position of the mainline, the start first.
fn positions(game: &Game) -> Result<Vec<PlyPosition<'_>>, QueryError> {
    let err = |error| QueryError::Replay { id: game.id, error };
    let mut replay = Replay::new(game.start_fen.as_deref(), &game.moves).map_err(err)?;
    let mut out =
        vec![PlyPosition { san: None, last_move: None, position: replay.position().clone() }];
    while let Some(san) = replay.step().map_err(err)? {
        out.push(PlyPosition {
            san: Some(san),
            last_move: replay.last_move(),
            position: replay.position().clone(),
        });
    }
    Ok(out)
}

/// The lines above the moves of `--format table`: the players with their
/// ratings and the result (`Carlsen, Magnus (2863) - Caruana, Fabiano
/// (2835)  1-0`); the event, site, round and date as far as the game gives
/// them; a blank line. Control characters of the tags are shown as
/// `\u{FFFD}`.
fn header_lines(game: &Game) -> Vec<String> {
    let h = &game.header;
    let player = |name: &Option<String>, elo: Option<i64>| {
        let name = name.as_deref().filter(|n| known(n)).unwrap_or("?");
        match elo {
            Some(elo) => format!("{name} ({elo})"),
            None => name.to_string(),
        }
    };
    let mut lines = vec![format!(
        "{} - {}  {}",
        player(&h.white, h.white_elo),
        player(&h.black, h.black_elo),
        h.result.as_deref().unwrap_or("*")
    )];
    let round = h.round.as_deref().filter(|r| known(r)).map(|r| format!("round {r}"));
    let facts: Vec<String> = [h.event.clone(), h.site.clone(), round, h.date.clone()]
        .into_iter()
        .flatten()
        .filter(|f| known(f))
        .collect();
    if !facts.is_empty() {
        lines.push(facts.join(", "));
    }
    let mut lines: Vec<String> = lines.iter().map(|l| printable(l)).collect();
    lines.push(String::new());
    lines
}

/// `false` for a tag value that says nothing: empty, or only the `?`, `.`
/// and `-` of PGN's unknown values (`?`, `????.??.??`, a round `-`).
fn known(value: &str) -> bool {
    !value.trim().chars().all(|c| matches!(c, '?' | '.' | '-'))
}

/// The mainline one move pair a line, each move followed by its clock and
/// evaluation in parentheses when the game gives them: `12. Nf3 (0:04:51,
/// +0.35)  Nc6 (0:04:48, #-3)`; a game from a position with Black to move
/// starts `1... Kd7`.
fn move_lines(game: &Game, notes: &[PlyNote]) -> Vec<String> {
    // A start FEN the import stored was read then: it reads again (an
    // unreadable one numbers from 1. with White, as the standard start).
    let start = game.start_fen.as_deref().and_then(|fen| fen::parse_position(fen).ok());
    let (mut number, black_first) = match start {
        // Counted wider than a FEN's move number, which may be `u32::MAX`.
        Some(pos) => (u64::from(pos.fullmoves().get()), pos.turn() == Color::Black),
        None => (1, false),
    };
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut black = black_first;
    for (i, san) in game.moves.split_ascii_whitespace().enumerate() {
        if black {
            if line.is_empty() {
                line = format!("{number}... ");
            } else {
                line.push_str("  ");
            }
        } else {
            line = format!("{number}. ");
        }
        line.push_str(san);
        if let Some(note) = notes.get(i) {
            let parts: Vec<String> = [
                note.clock.map(clock_text),
                match (note.eval, note.mate) {
                    (_, Some(mate)) => Some(format!("#{mate}")),
                    (Some(pawns), None) => Some(format!("{pawns:+.2}")),
                    (None, None) => None,
                },
            ]
            .into_iter()
            .flatten()
            .collect();
            if !parts.is_empty() {
                line.push_str(&format!(" ({})", parts.join(", ")));
            }
        }
        if black {
            lines.push(std::mem::take(&mut line));
            number += 1;
        }
        black = !black;
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Seconds as `H:MM:SS`, with the fraction when there is one
/// (`0:02:58.6`).
fn clock_text(seconds: f64) -> String {
    let ms = (seconds * 1000.0).round() as u64;
    let (whole, fraction) = (ms / 1000, ms % 1000);
    let mut text = format!("{}:{:02}:{:02}", whole / 3600, whole / 60 % 60, whole % 60);
    if fraction != 0 {
        let digits = format!("{fraction:03}");
        text.push('.');
        text.push_str(digits.trim_end_matches('0'));
    }
    text
}

/// The game as one JSON object (keys in a fixed order).
fn to_json(
    game: &Game,
    fens: Option<Vec<String>>,
    board: Option<Value>,
    notes: &[PlyNote],
) -> String {
    let text = |v: &Option<String>| v.as_deref().map_or(Value::Null, Value::from);
    let tags: Vec<Value> = game
        .tag_pairs()
        .into_iter()
        .map(|(name, value)| Value::Array(vec![name.into(), value.into()]))
        .collect();
    let mut fields = vec![
        ("id", Value::from(game.id.get())),
        ("event", text(&game.header.event)),
        ("site", text(&game.header.site)),
        ("date", text(&game.header.date)),
        ("round", text(&game.header.round)),
        ("white", text(&game.header.white)),
        ("black", text(&game.header.black)),
        ("result", text(&game.header.result)),
        ("white_elo", game.header.white_elo.map_or(Value::Null, Value::from)),
        ("black_elo", game.header.black_elo.map_or(Value::Null, Value::from)),
        ("eco", text(&game.header.eco)),
        ("opening", text(&game.header.opening)),
        ("plies", Value::from(game.ply_count)),
        ("start_fen", text(&game.start_fen)),
        ("final_fen", text(&game.final_fen)),
        ("error", text(&game.error)),
        ("tags", Value::Array(tags)),
        ("moves", game.moves.split_ascii_whitespace().collect::<Vec<_>>().into()),
        ("movetext", Value::from(game.movetext.as_str())),
    ];
    if let Some(fens) = fens {
        fields.push(("fens", fens.into()));
    }
    if let Some(board) = board {
        fields.push(("board", board));
    }
    if !notes.is_empty() {
        let notes: Vec<Value> = notes
            .iter()
            .map(|n| {
                serde_json::json!({
                    "clock": n.clock, "emt": n.emt, "eval": n.eval, "mate": n.mate,
                    "nags": n.nags, "comment": n.comment, "depth": n.depth,
                    "seldepth": n.seldepth, "nodes": n.nodes, "pv": n.pv, "book": n.book,
                })
            })
            .collect();
        fields.push(("notes", notes.into()));
    }
    json_object(&fields)
}
