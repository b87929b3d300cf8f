//! `pgnindex novelty`: where each game of a PGN file, or stored games,
//! leave the database's games.

use std::io::Write;

use clap::Args;
use rusqlite::Connection;

use pgnindex::db::GameId;
use pgnindex::notation::fen;
use pgnindex::query::filter::{DateBound, Filters};
use pgnindex::query::format::{Cell, RowFormat, RowWriter};
use pgnindex::query::game;
use pgnindex::query::novelty::{copies, novelty, Line, Novelty};
use pgnindex::replay::stored::Replay;
use pgnindex::replay::ReplayOptions;

use super::exit::{Exit, UsageError};
use super::games::{for_each_game, thread_pool};
use super::query_args::{self, DbArgs, FilterArgs, RowsFormat};

/// The columns of `novelty`.
const COLUMNS: [&str; 9] =
    ["game", "white", "black", "ply", "move", "games_before", "moves_before", "last_game", "fen"];

/// The columns of `novelty` as a table.
const TABLE_COLUMNS: [&str; 7] =
    ["game", "white", "black", "ply", "move", "games_before", "moves_before"];

/// The most candidates read when looking for a stored copy of a game.
const COPIES_READ: usize = 1000;

/// Arguments of `novelty`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex novelty --game 12
  pgnindex novelty fixtures/pgn/games/otb/twic-01-232games.pgn --before 2014.06.01
  pgnindex novelty --game 12 --game 13 --format json

For each game: the first ply whose position no other game of the database
reached, by any move order (by key), and the move played there; then the
position before it: how many games reached it, their moves with results
(+White =draws -Black) and the last of them. A stored game with the same
moves and players as a game of the PGN file is that game, not another.
--before DATE counts only the games dated before DATE (undated games do
not count); the filters choose which games count too.")]
pub struct NoveltyArgs {
    #[command(flatten)]
    db: DbArgs,
    /// PGN files whose games are looked at.
    #[arg(value_name = "PGN")]
    inputs: Vec<std::ffi::OsString>,
    /// A stored game to look at (repeatable).
    #[arg(long = "game", value_name = "ID")]
    games: Vec<GameId>,
    /// Count only the games played before DATE (YYYY, YYYY.MM or
    /// YYYY.MM.DD: before its first day).
    #[arg(long, value_name = "DATE")]
    before: Option<String>,
    #[command(flatten)]
    filters: FilterArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RowsFormat::Table)]
    format: RowsFormat,
}

/// One game looked at.
struct Subject {
    label: String,
    white: Option<String>,
    black: Option<String>,
    line: Line,
    /// Stored games that are this one.
    itself: Vec<GameId>,
}

/// Runs `novelty`.
pub fn run(args: &NoveltyArgs) -> anyhow::Result<Exit> {
    if args.inputs.is_empty() && args.games.is_empty() {
        return Err(UsageError("novelty: name PGN files or --game IDs to look at").into());
    }
    let mut filters = args.filters.filters()?;
    filters.before = args.before.as_deref().map(|d| DateBound::parse("before", d)).transpose()?;
    let (conn, _) = args.db.open()?;
    filters.sql_for(&conn)?;
    let mut subjects = Vec::new();
    for &id in &args.games {
        subjects.push(stored_subject(&conn, id)?);
    }
    let mut bad_games = 0;
    if !args.inputs.is_empty() {
        let options = ReplayOptions {
            keys: true,
            fens: true,
            san: true,
            tags: true,
            ..ReplayOptions::default()
        };
        let pool = thread_pool(0)?;
        let mut numbers: Vec<(String, u64)> = Vec::new();
        for_each_game(
            &pool,
            &args.inputs,
            options,
            |record| record,
            |game| {
                let file = game.input.to_string();
                let name = std::path::Path::new(&file)
                    .file_name()
                    .map_or(file.clone(), |n| n.to_string_lossy().into_owned());
                let number = match numbers.last_mut() {
                    Some((name, n)) if *name == file => {
                        *n += 1;
                        *n
                    }
                    _ => {
                        numbers.push((file.clone(), 1));
                        1
                    }
                };
                let record = game.record;
                if record.error.is_some() {
                    bad_games += 1;
                }
                let tag = |name: &str| {
                    record.tags.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
                };
                let positions: Option<Vec<_>> =
                    record.fens.iter().map(|f| fen::parse_position(f).ok()).collect();
                let sans: Vec<String> =
                    record.san.split_ascii_whitespace().map(str::to_string).collect();
                let Some(positions) = positions.filter(|p| p.len() == record.keys.len()) else {
                    say!(
                        "pgnindex: warning: {name} #{number}: its positions cannot be read back \
                         from their FENs; left out"
                    );
                    return Ok(());
                };
                subjects.push(Subject {
                    label: format!("{name} #{number}"),
                    white: tag("White"),
                    black: tag("Black"),
                    line: Line { positions, keys: record.keys, sans },
                    itself: Vec::new(),
                });
                Ok(())
            },
            |_, _, _, _| Ok(()),
        )?;
        for subject in subjects.iter_mut().filter(|s| s.itself.is_empty()) {
            subject.itself = copies(
                &conn,
                &subject.line,
                subject.white.as_deref(),
                subject.black.as_deref(),
                COPIES_READ,
            )?;
        }
    }
    if bad_games > 0 {
        say!(
            "pgnindex: warning: {bad_games} of the games stop at a move that cannot be played: \
             looked at up to there (`pgnindex check` locates them)"
        );
    }
    let format = RowFormat::from(args.format);
    let out = query_args::stdout();
    if format == RowFormat::Json {
        return write_json(out, &conn, &subjects, &filters);
    }
    let columns: &[&str] = if format == RowFormat::Table { &TABLE_COLUMNS } else { &COLUMNS };
    let mut rows = RowWriter::new(out, format, query_args::table_style(30), columns)?;
    for subject in &subjects {
        let found = novelty_of(&conn, subject, &filters)?;
        let mut cells: Vec<Cell> = vec![
            subject.label.clone().into(),
            subject.white.clone().into(),
            subject.black.clone().into(),
            found.ply.map(u64::from).into(),
            found.san.clone().into(),
            found.known.as_ref().map(|k| k.games).into(),
            match &found.known {
                Some(known) => moves_text(&known.moves).into(),
                // A table says it in words; CSV leaves the cells empty.
                None if format == RowFormat::Table => "never leaves the database".into(),
                None => Cell::from(None::<String>),
            },
        ];
        if format != RowFormat::Table {
            cells.push(
                found.known.as_ref().and_then(|k| k.last).map(|id| u64::from(id.get())).into(),
            );
            cells.push(fen_before(subject, &found).into());
        }
        rows.row(&cells)?;
    }
    rows.finish()?.flush()?;
    Ok(Exit::Success)
}

fn novelty_of(conn: &Connection, subject: &Subject, filters: &Filters) -> anyhow::Result<Novelty> {
    let mut filters = filters.clone();
    filters.exclude.extend(&subject.itself);
    Ok(novelty(conn, &subject.line, &filters)?)
}

fn fen_before(subject: &Subject, found: &Novelty) -> Option<String> {
    let ply = found.ply? as usize;
    subject.line.positions.get(ply - 1).map(fen::write)
}

/// `Nf3 12 (+5 =4 -3), c4 3 (+1 =1 -1)`.
fn moves_text(moves: &[pgnindex::query::explore::MoveStats]) -> String {
    moves
        .iter()
        .map(|m| {
            format!("{} {} (+{} ={} -{})", m.san, m.games, m.white_wins, m.draws, m.black_wins)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn stored_subject(conn: &Connection, id: GameId) -> anyhow::Result<Subject> {
    let Some(stored) = game::load(conn, id)? else {
        return Err(pgnindex::query::QueryError::NoSuchGame(i64::from(id)).into());
    };
    let mut replay = Replay::new(stored.start_fen.as_deref(), &stored.moves)?;
    let mut positions = vec![replay.position().clone()];
    let mut sans = Vec::new();
    while let Some(san) = replay.step()? {
        positions.push(replay.position().clone());
        sans.push(san.to_string());
    }
    let keys = positions.iter().map(|p| p.zobrist().0).collect();
    Ok(Subject {
        label: id.to_string(),
        white: stored.header.white.clone(),
        black: stored.header.black.clone(),
        line: Line { positions, keys, sans },
        itself: vec![id],
    })
}

fn write_json(
    mut out: impl Write,
    conn: &Connection,
    subjects: &[Subject],
    filters: &Filters,
) -> anyhow::Result<Exit> {
    let mut all = Vec::new();
    for subject in subjects {
        let found = novelty_of(conn, subject, filters)?;
        let known = found.known.as_ref();
        let moves: Vec<serde_json::Value> = known
            .map(|k| {
                k.moves
                    .iter()
                    .map(|m| {
                        serde_json::json!({
                            "move": m.san, "uci": m.uci, "games": m.games,
                            "white_wins": m.white_wins, "draws": m.draws, "black_wins": m.black_wins,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        all.push(serde_json::json!({
            "game": subject.label,
            "white": subject.white,
            "black": subject.black,
            "ply": found.ply,
            "move": found.san,
            "fen": fen_before(subject, &found),
            "games_before": known.map(|k| k.games),
            "moves_before": moves,
            "last_game": known.and_then(|k| k.last).map(GameId::get),
        }));
    }
    serde_json::to_writer_pretty(&mut out, &all)?;
    writeln!(out)?;
    out.flush()?;
    Ok(Exit::Success)
}
