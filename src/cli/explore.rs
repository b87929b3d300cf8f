//! `pgnindex explore`: the moves played from a position, with counts,
//! results, average rating and last date.

use std::io::Write;

use clap::Args;

use pgnindex::chess::Position;
use pgnindex::query::explore::{explore, MoveStats};
use pgnindex::query::format::{Cell, RowFormat, RowWriter};
use pgnindex::query::search::Search;
use pgnindex::query::target::Target;
use pgnindex::replay::openings::{Opening, Openings};

use super::exit::{Exit, UsageError};
use super::query_args::{
    self, BoardArgs, DbArgs, FilterArgs, MaterialArgs, PositionArgs, RowsFormat,
};
use super::repertoire::{self, RepertoireArgs};
use super::words::counted;

/// The columns of `explore` in CSV and JSON.
pub const COLUMNS: [&str; 11] = [
    "move",
    "uci",
    "games",
    "white_wins",
    "draws",
    "black_wins",
    "white_pct",
    "draw_pct",
    "black_pct",
    "avg_elo",
    "last_date",
];

/// The columns of `explore` as a table: those of [`COLUMNS`] in the same
/// order, `uci` left out (the same move as `move`) and the counts and
/// percentages under short names, so that the table fits 80 columns.
const TABLE_COLUMNS: [&str; 10] = [
    "move",
    "games",
    "white",
    "draws",
    "black",
    "white%",
    "draw%",
    "black%",
    "avg_elo",
    "last_date",
];

/// The columns of `explore --material` in CSV and JSON.
pub const ENDING_COLUMNS: [&str; 10] = [
    "condition",
    "games",
    "white_wins",
    "draws",
    "black_wins",
    "white_pct",
    "draw_pct",
    "black_pct",
    "avg_elo",
    "avg_plies_after",
];

/// [`ENDING_COLUMNS`] as a table.
const ENDING_TABLE_COLUMNS: [&str; 10] = [
    "condition",
    "games",
    "white",
    "draws",
    "black",
    "white%",
    "draw%",
    "black%",
    "avg_elo",
    "plies_after",
];

/// Arguments of `explore`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex explore
  pgnindex explore --moves \"1. e4 c5\" --min-elo 2500
  pgnindex explore --fen \"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -\" --format json
  pgnindex explore --material KQ-KRR --either-color --min-elo 2400
  pgnindex explore --moves \"1. e4 e5 2. Nf3 Nc6 3. Bb5\" --board
  pgnindex explore --repertoire fixtures/repertoire/white-e4.pgn --color black

Without a position: the standard start position. Counts are per game and by
position: a game that reaches the position by any move order counts once,
with the move it played the first time it got there. When the position is a
named one of the lichess opening names, the table starts with its ECO code
and name (`Opening: B20 Sicilian Defense`); CSV and JSON have the moves
only.

With --material or --pattern: one row, the games that reach a position with
that material (or pattern) and how they ended, their average rating and the
plies played after the first such position. With --either-color, \"white\" is
the side with the spec's first material: in a game that reaches it with the
colours swapped, a win for Black counts as one for that side.

With --repertoire FILE: the moves by which the games leave the lines of that
PGN (its mainlines and variations), grouped by position, most games first.

--board draws the position above the table, the last move of --moves marked.
With --format json the output is an object, {\"board\": {\"fen\", \"flipped\",
\"last_move\"}, \"moves\": [...]}; CSV has no place for a board, and --material
or --pattern no one position to draw.")]
pub struct ExploreArgs {
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
    /// Output format.
    #[arg(long, value_enum, default_value_t = RowsFormat::Table)]
    format: RowsFormat,
}

/// Runs `explore`.
pub fn run(args: &ExploreArgs) -> anyhow::Result<Exit> {
    let filters = args.filters.filters()?;
    if args.repertoire.repertoire.is_some() {
        if args.material.is_set() || args.board.board {
            return Err(UsageError(
                "--repertoire groups where games leave it: not with --material, --pattern or --board",
            )
            .into());
        }
        let (conn, _) = args.db.open()?;
        repertoire::explore(&args.repertoire, &conn, &filters, args.format)?;
        return Ok(Exit::Success);
    }
    if args.board.board && args.format == RowsFormat::Csv {
        return Err(UsageError(
            "--board: CSV has no place for a board (--format json gives its FEN)",
        )
        .into());
    }
    if args.board.board && args.material.is_set() {
        return Err(
            UsageError("--board draws one position: not with --material or --pattern").into()
        );
    }
    if let Some(material) = args.material.search(&filters)? {
        let (conn, _) = args.db.open_checked(&Search { filters, ..Search::default() })?;
        let e = material.ending(&conn)?;
        let condition =
            [material.spec.map(|s| s.to_string()), material.pattern.map(|p| p.to_string())]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
        let cells: [Cell; 10] = [
            condition.into(),
            e.games.into(),
            e.first_wins.into(),
            e.draws.into(),
            e.second_wins.into(),
            e.percent(e.first_wins).into(),
            e.percent(e.draws).into(),
            e.percent(e.second_wins).into(),
            e.avg_elo().into(),
            e.avg_plies_after().into(),
        ];
        let format = RowFormat::from(args.format);
        let columns =
            if format == RowFormat::Table { &ENDING_TABLE_COLUMNS } else { &ENDING_COLUMNS };
        let mut rows =
            RowWriter::new(query_args::stdout(), format, query_args::table_style(40), columns)?;
        rows.row(&cells)?;
        rows.finish()?.flush()?;
        return Ok(Exit::Success);
    }
    let target = args.position.target()?.unwrap_or_else(|| Target::from_position(Position::new()));
    let search =
        Search { target: Some(target), filters: args.filters.filters()?, ..Search::default() };
    let (conn, _) = args.db.open_for(&search)?;
    let explorer = explore(&conn, &search)?;
    let mut out = query_args::stdout();
    let format = RowFormat::from(args.format);
    let board = search.target.as_ref().filter(|_| args.board.board);
    if format == RowFormat::Table {
        if let Some(target) = board {
            writeln!(out, "{}", args.board.draw(&target.position, target.last_move))?;
        }
        if let Some(opening) = search.target.as_ref().and_then(|t| opening(&t.position)) {
            writeln!(out, "Opening: {} {}", opening.eco, opening.name)?;
        }
        let mut rows = RowWriter::new(out, format, query_args::table_style(28), &TABLE_COLUMNS)?;
        for m in &explorer.moves {
            rows.row(&table_cells(m))?;
        }
        let mut out = rows.finish()?;
        let mut total = format!("{} reach the position", counted(explorer.games, "game"));
        if explorer.ended > 0 {
            total += &format!("; {} end there", explorer.ended);
        }
        writeln!(out, "{total}")?;
        out.flush()?;
    } else {
        if let Some(target) = board {
            let board = args.board.json(&target.position, target.last_move);
            write!(out, "{{\"board\": {board}, \"moves\": ")?;
        }
        let mut rows = RowWriter::new(out, format, query_args::table_style(28), &COLUMNS)?;
        for m in &explorer.moves {
            rows.row(&cells(m))?;
        }
        let mut out = rows.finish()?;
        if board.is_some() {
            writeln!(out, "}}")?;
            out.flush()?;
        }
    }
    if explorer.rejected > 0 {
        say!(
            "pgnindex: {} left out: their key matches but their move is not legal here",
            counted(explorer.rejected, "game")
        );
    }
    Ok(Exit::Success)
}

/// The row of the opening names that names `pos`, if one does (by
/// position: any move order that reaches it).
fn opening(pos: &Position) -> Option<Opening> {
    let openings = Openings::get();
    openings.find(pos).map(|i| openings.rows()[i as usize])
}

fn cells(m: &MoveStats) -> [Cell; 11] {
    [
        m.san.as_str().into(),
        m.uci.as_str().into(),
        m.games.into(),
        m.white_wins.into(),
        m.draws.into(),
        m.black_wins.into(),
        m.percent(m.white_wins).into(),
        m.percent(m.draws).into(),
        m.percent(m.black_wins).into(),
        m.avg_elo().into(),
        m.last_date.clone().into(),
    ]
}

/// [`cells`] without `uci`: the cells of [`TABLE_COLUMNS`].
fn table_cells(m: &MoveStats) -> Vec<Cell> {
    let mut cells = Vec::from(cells(m));
    cells.remove(1);
    cells
}
