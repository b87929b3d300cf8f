//! `pgnindex show`: one game as export PGN or JSON, optionally with the
//! FEN of every position.

use std::io::Write;

use clap::{Args, ValueEnum};
use serde_json::Value;

use pgnindex::db::GameId;
use pgnindex::notation::fen;
use pgnindex::query::format::json_object;
use pgnindex::query::game::{self, Game};
use pgnindex::query::pgn;
use pgnindex::query::replay::Replay;
use pgnindex::query::QueryError;

use super::exit::Exit;
use super::query_args::{self, DbArgs};

/// Output formats of `show`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShowFormat {
    /// Export-format PGN.
    Pgn,
    /// One JSON object.
    Json,
}

/// Arguments of `show`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex show 42
  pgnindex show 42 --fens
  pgnindex show 42 --format json | jq .tags

PGN is written in export format: the seven-tag roster, the other tags, then
the movetext as imported (comments, variations, NAGs) in lines of at most 80
characters; a game whose replay stopped at a bad move gets a comment there,
{pgnindex: replay stopped here: MESSAGE}. --fens adds, after the game, one line per position of the
mainline: PLY, the move that led there (- for the start) and the FEN,
separated by tabs (with --format json: a \"fens\" array).")]
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
}

/// Runs `show`: exit 1 if there is no such game.
pub fn run(args: &ShowArgs) -> anyhow::Result<Exit> {
    let (conn, _) = args.db.open()?;
    // An id no game can have is simply not there.
    let stored = match GameId::try_from(args.id) {
        Ok(id) => game::load(&conn, id)?,
        Err(_) => None,
    };
    let game = stored.ok_or(QueryError::NoSuchGame(args.id))?;
    let positions = if args.fens { Some(positions(&game)?) } else { None };
    let mut out = query_args::stdout();
    match args.format {
        ShowFormat::Pgn => {
            pgn::write_game(&mut out, &game)?;
            for (ply, (san, fen)) in positions.iter().flatten().enumerate() {
                writeln!(out, "{ply}\t{}\t{fen}", san.as_deref().unwrap_or("-"))?;
            }
        }
        ShowFormat::Json => {
            let fens = positions.map(|p| p.into_iter().map(|(_, fen)| fen).collect());
            writeln!(out, "{}", to_json(&game, fens))?;
        }
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// The move that led to each position (none for the start) and its FEN.
fn positions(game: &Game) -> Result<Vec<(Option<String>, String)>, QueryError> {
    let err = |source| QueryError::Replay { id: game.id, source };
    let mut replay = Replay::new(game.start_fen.as_deref(), &game.moves).map_err(err)?;
    let mut out = vec![(None, fen::write(replay.position()))];
    while let Some(san) = replay.step().map_err(err)? {
        out.push((Some(san.to_string()), fen::write(replay.position())));
    }
    Ok(out)
}

/// The game as one JSON object (keys in a fixed order).
fn to_json(game: &Game, fens: Option<Vec<String>>) -> String {
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
    json_object(&fields)
}
