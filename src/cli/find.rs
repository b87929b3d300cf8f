//! `pgnindex find`: games by position and headers, as a table, CSV, JSON
//! or PGN, or just their number.

use std::io::Write;

use clap::{Args, ValueEnum};

use pgnindex::query::format::{Cell, RowFormat, RowWriter};
use pgnindex::query::pgn;
use pgnindex::query::search::{Found, Page, Search};
use pgnindex::query::target::Target;

use super::exit::{Exit, UsageError};
use super::query_args::{self, BoardArgs, DbArgs, FilterArgs, MaterialArgs, PositionArgs};
use super::repertoire::{self, RepertoireArgs};
use super::words::counted;

/// The columns of `find`: `error` says why a game's replay stopped, if it
/// did, so such a game never passes for a whole one.
pub const COLUMNS: [&str; 10] =
    ["id", "white", "black", "result", "date", "event", "eco", "plies", "ply", "error"];

/// Output formats of `find`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FindFormat {
    /// Aligned columns for a terminal.
    Table,
    /// Comma-separated values with a header row.
    Csv,
    /// One JSON array of objects.
    Json,
    /// The games as PGN.
    Pgn,
}

/// Arguments of `find`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex find --moves \"1. e4 c5 2. Nf3 d6 3. d4\" --player carlsen
  pgnindex find --fen \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\" --count
  pgnindex find --eco B90-B99 --since 2020 --min-elo 2600 --format csv --limit 0
  pgnindex find --opening sicilian --min-elo 2500 --count
  pgnindex find --material KRP-KR --either-color --material-plies 10
  pgnindex find --pattern \"Nd5 pd6 .e4\" --since 2020
  pgnindex find --repertoire fixtures/repertoire/white-e4.pgn --color white
  pgnindex find --moves \"1. e4 c5 2. Nf3 d6 3. d4\" --board --count

Games are listed in id (import) order with the first ply where the position
occurs. Every listed game was replayed to that ply and compared with the
position; --count counts games by Polyglot key without replaying. The error
column says why a game's replay stopped before its end, if it did. With
--material or --pattern, the ply column is the first ply where the condition
holds (with --material-plies N, the first ply of the first stretch of N
positions with that material).

--board draws the searched position once, above the games (every game listed
reaches it; `show ID --board --ply PLY` draws it as a game reached it, its last
move marked). With --format json the output is an object, {\"board\": {\"fen\",
\"flipped\", \"last_move\"}, \"games\": [...]}; CSV and PGN have no place for a
board.")]
pub struct FindArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    position: PositionArgs,
    #[command(flatten)]
    filters: FilterArgs,
    #[command(flatten)]
    material: MaterialArgs,
    #[command(flatten)]
    board: BoardArgs,
    #[command(flatten)]
    repertoire: RepertoireArgs,
    /// Show at most N games (0: all).
    #[arg(long, value_name = "N", default_value_t = 100)]
    limit: u64,
    /// Skip the first N matching games.
    #[arg(long, value_name = "N", default_value_t = 0)]
    offset: u64,
    /// Print only the number of matching games.
    #[arg(long, conflicts_with_all = ["limit", "offset", "format"])]
    count: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FindFormat::Table)]
    format: FindFormat,
}

/// Runs `find`.
pub fn run(args: &FindArgs) -> anyhow::Result<Exit> {
    if args.repertoire.repertoire.is_some() {
        if args.material.is_set() || args.board.board || args.format == FindFormat::Pgn {
            return Err(UsageError(
                "--repertoire lists where games leave it: not with --material, --pattern, \
                 --board or --format pgn",
            )
            .into());
        }
        let filters = args.filters.filters()?;
        let (conn, _) = args.db.open()?;
        let format = match args.format {
            FindFormat::Csv => RowFormat::Csv,
            FindFormat::Json => RowFormat::Json,
            _ => RowFormat::Table,
        };
        repertoire::find(
            &args.repertoire,
            &conn,
            &filters,
            format,
            args.offset,
            args.limit,
            args.count,
        )?;
        return Ok(Exit::Success);
    }
    let search = Search {
        target: args.position.target()?,
        filters: args.filters.filters()?,
        ..Search::default()
    };
    let material = args.material.search(&search.filters)?;
    let board = if args.board.board { Some(board_target(args, &search)?) } else { None };
    let (conn, _) = match material {
        Some(_) => args.db.open_checked(&search)?,
        None => args.db.open_for(&search)?,
    };
    let mut out = query_args::stdout();
    if let Some(target) = board.filter(|_| args.format == FindFormat::Table) {
        writeln!(out, "{}", args.board.draw(&target.position, target.last_move))?;
    }
    if args.count {
        let n = match &material {
            Some(m) => m.count(&conn)?,
            None => search.count(&conn)?,
        };
        writeln!(out, "{n}")?;
        out.flush()?;
        return Ok(Exit::Success);
    }
    let page = Page { offset: args.offset, limit: (args.limit > 0).then_some(args.limit) };
    let find = |whole: bool, each: &mut dyn FnMut(Found) -> std::io::Result<()>| match &material {
        Some(m) => m.find(&conn, page, whole, each),
        None => search.find(&conn, page, whole, each),
    };
    let stats = if args.format == FindFormat::Pgn {
        let stats = find(true, &mut |found| pgn::write_game(&mut out, &found.game))?;
        out.flush()?;
        stats
    } else {
        let format = match args.format {
            FindFormat::Csv => RowFormat::Csv,
            FindFormat::Json => RowFormat::Json,
            _ => RowFormat::Table,
        };
        if let Some(target) = board.filter(|_| format == RowFormat::Json) {
            let board = args.board.json(&target.position, target.last_move);
            write!(out, "{{\"board\": {board}, \"games\": ")?;
        }
        let mut rows = RowWriter::new(out, format, query_args::table_style(28), &COLUMNS)?;
        let stats = find(false, &mut |found| rows.row(&cells(&found)))?;
        let mut out = rows.finish()?;
        if board.is_some() && format == RowFormat::Json {
            writeln!(out, "}}")?;
            out.flush()?;
        }
        stats
    };
    if stats.rejected > 0 {
        say!(
            "pgnindex: {} left out: their key matches but they do not reach the position",
            counted(stats.rejected, "game")
        );
    }
    if stats.more && args.format == FindFormat::Table {
        say!(
            "pgnindex: first {} shown; --offset {} for the next ones, --limit 0 for all, \
             --count for the number",
            counted(stats.returned, "game"),
            args.offset + stats.returned
        );
    }
    Ok(Exit::Success)
}

/// The position `--board` draws: the searched one, for the formats that
/// have a place for it.
fn board_target<'a>(args: &FindArgs, search: &'a Search) -> anyhow::Result<&'a Target> {
    let refused = match args.format {
        FindFormat::Csv => "--board: CSV has no place for a board (--format json gives its FEN)",
        FindFormat::Pgn => "--board: a board is not PGN; not with --format pgn",
        FindFormat::Table | FindFormat::Json => {
            "--board draws the position of --fen, --epd or --moves: give one of them"
        }
    };
    match (args.format, &search.target) {
        (FindFormat::Table | FindFormat::Json, Some(target)) => Ok(target),
        _ => Err(UsageError(refused).into()),
    }
}

/// One row of `find`.
fn cells(found: &Found) -> [Cell; 10] {
    let g = &found.game;
    [
        g.id.into(),
        g.header.white.clone().into(),
        g.header.black.clone().into(),
        g.header.result.clone().into(),
        g.header.date.clone().into(),
        g.header.event.clone().into(),
        g.header.eco.clone().into(),
        g.ply_count.into(),
        found.ply.into(),
        g.error.clone().into(),
    ]
}
