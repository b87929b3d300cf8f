//! `pgnindex book`: a Polyglot opening book from the games the filters
//! select, by `polyglot make-book`'s rules; or, with `--probe`, a book's
//! moves for a position.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc;

use anyhow::Context;
use clap::Args;

use pgnindex::book::make::{BookMove, Maker, Rules, DEFAULT_MAX_PLY, DEFAULT_MIN_GAMES};
use pgnindex::book::polyglot::Book;
use pgnindex::book::BookError;
use pgnindex::chess::{Color, Position};
use pgnindex::db;
use pgnindex::notation::san;
use pgnindex::query::format::{Cell, RowFormat, RowWriter};
use pgnindex::query::mainlines::{read_mainlines, Mainline};

use super::exit::{Exit, UsageError};
use super::interrupt;
use super::output_file::OutputFile;
use super::query_args::{self, DbArgs, FilterArgs, PositionArgs, RowsFormat};
use super::words::{counted, thousands};

/// The columns of `--counts`.
const COUNT_COLUMNS: &str = "key,hash,move,book_move,weight,games,white_wins,draws,black_wins";

/// The columns of `--probe`.
const PROBE_COLUMNS: [&str; 5] = ["move", "book_move", "weight", "share_pct", "learn"];

/// Games read and sent to the workers at a time.
const BATCH: usize = 4096;

/// Arguments of `book`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex book -o white.bin --white Carlsen --only-white --max-ply 16
  pgnindex book -o strong.bin --min-elo 2400 --min-games 2 --counts strong.csv
  pgnindex book --probe strong.bin --moves \"1. d4\"

A book counts, for each position of each selected game's first --max-ply
plies and the move played there, the times it was played (n) and a score:
2 when the side that moved won the game, 1 for a draw or an unfinished game
(*; --finished-only leaves them out), 0 for a loss, as `polyglot make-book`
counts them. An entry is kept
when n is at least --min-games, its score above 0 and at least --min-score
percent of 2n; its weight is its score (1 with --uniform). Games from a FEN
setup or Chess960 add their positions under the same keys.

--counts also writes each entry's games and results as CSV, which the
book's format has no room for. --probe lists a book's moves for the start
position, --fen, --epd or --moves.")]
pub struct BookArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    filters: FilterArgs,
    /// Write the book to FILE.
    #[arg(short = 'o', long = "output", value_name = "FILE", required_unless_present = "probe")]
    output: Option<PathBuf>,
    /// Count the moves of each game's first N plies.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_PLY, help_heading = "Book")]
    max_ply: u32,
    /// Keep the moves played at least N times from their position.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MIN_GAMES, help_heading = "Book")]
    min_games: u32,
    /// Keep the moves that scored at least PERCENT for the side that
    /// played them (a win 100, a draw 50).
    #[arg(long, value_name = "PERCENT", default_value_t = 0.0, help_heading = "Book")]
    min_score: f64,
    /// Keep only the moves of positions White is to move in: a book to
    /// play White from.
    #[arg(long, conflicts_with = "only_black", help_heading = "Book")]
    only_white: bool,
    /// Keep only the moves of positions Black is to move in.
    #[arg(long, help_heading = "Book")]
    only_black: bool,
    /// Every kept move weighs 1.
    #[arg(long, help_heading = "Book")]
    uniform: bool,
    /// Leave out the unfinished games (*), which count as draws
    /// otherwise, as polyglot counts them.
    #[arg(long, help_heading = "Book")]
    finished_only: bool,
    /// Also write each entry's games, results and weight to FILE as CSV.
    #[arg(long, value_name = "FILE", help_heading = "Book")]
    counts: Option<PathBuf>,
    /// List the moves of the Polyglot book FILE for a position (default:
    /// the start), with their weights, instead of making a book.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["output", "counts"])]
    probe: Option<PathBuf>,
    #[command(flatten)]
    position: PositionArgs,
    /// Output format of --probe.
    #[arg(long, value_enum, default_value_t = RowsFormat::Table)]
    format: RowsFormat,
}

/// Runs `book`.
pub fn run(args: &BookArgs) -> anyhow::Result<Exit> {
    match &args.probe {
        Some(book) => probe(args, book),
        None => make(args),
    }
}

fn probe(args: &BookArgs, path: &Path) -> anyhow::Result<Exit> {
    if args.db.db.is_some() || !args.filters.filters()?.is_empty() {
        return Err(UsageError("--probe reads the book only: no --db or filters").into());
    }
    let book = Book::read(path)?;
    let target = args.position.target()?;
    let position = target.map_or_else(Position::new, |t| t.position);
    let entries = book.moves(position.zobrist().0);
    let total: u64 = entries.iter().map(|e| u64::from(e.weight)).sum();
    let mut illegal = Vec::new();
    let format = RowFormat::from(args.format);
    let mut rows =
        RowWriter::new(query_args::stdout(), format, query_args::table_style(12), &PROBE_COLUMNS)?;
    for entry in entries {
        let Some(m) = entry.mv.to_move(&position) else {
            illegal.push(entry.mv.to_uci_text());
            continue;
        };
        let share = if total == 0 { 0.0 } else { 100.0 * f64::from(entry.weight) / total as f64 };
        rows.row(&[
            san::to_san(&position, m).into(),
            entry.mv.to_uci_text().into(),
            u64::from(entry.weight).into(),
            Cell::Real((share * 10.0).round() / 10.0),
            u64::from(entry.learn).into(),
        ])?;
    }
    let mut out = rows.finish()?;
    if format == RowFormat::Table {
        writeln!(
            out,
            "{} in {} for this position",
            counted((entries.len() - illegal.len()) as u64, "move"),
            path.display()
        )?;
    }
    out.flush()?;
    if !illegal.is_empty() {
        say!(
            "pgnindex: warning: {}: {} of this position's key {} no legal move here ({}): \
             another position under the same key, or a broken book",
            path.display(),
            counted(illegal.len() as u64, "book move"),
            if illegal.len() == 1 { "is" } else { "are" },
            illegal.join(", ")
        );
    }
    Ok(Exit::Success)
}

fn make(args: &BookArgs) -> anyhow::Result<Exit> {
    if args.position.target()?.is_some() {
        return Err(UsageError(
            "--fen, --epd and --moves choose the position of --probe; a book holds every position",
        )
        .into());
    }
    if args.format != RowsFormat::Table {
        return Err(UsageError("--format is the output of --probe; a book is Polyglot's").into());
    }
    let rules = Rules {
        max_ply: args.max_ply,
        min_games: args.min_games,
        min_score: args.min_score / 100.0,
        side: match (args.only_white, args.only_black) {
            (true, _) => Some(Color::White),
            (_, true) => Some(Color::Black),
            _ => None,
        },
        uniform: args.uniform,
        unfinished: !args.finished_only,
    };
    rules.check()?;
    let filters = args.filters.filters()?;
    let output = args.output.as_deref().expect("clap requires -o without --probe");
    let (conn, db_path) = args.db.open()?;
    // Checks the filters against the schema before anything is written.
    filters.sql_for(&conn)?;
    drop(conn);
    let interrupt =
        interrupt::flag("pgnindex: interrupted again: stopped at once; the book is not written")?;
    let mut maker = Maker::new(rules);
    // One thread reads the games while the workers replay the last batch.
    let (send, receive) = mpsc::sync_channel::<Vec<Mainline>>(2);
    let read = std::thread::Builder::new().name("pgnindex-read".into()).spawn({
        let filters = filters.clone();
        let db_path = db_path.clone();
        move || -> anyhow::Result<u64> {
            let conn = db::open_read_only(&db_path)?;
            Ok(read_mainlines(&conn, &filters, BATCH, |games| send.send(games).is_ok())?)
        }
    })?;
    let mut added = Ok(());
    for games in receive.iter() {
        if interrupt.load(Ordering::Relaxed) {
            break;
        }
        added = maker.add(&games);
        if added.is_err() {
            break;
        }
    }
    drop(receive);
    let read = read.join().map_err(|_| anyhow::anyhow!("the reading thread failed"))?;
    if interrupt.load(Ordering::Relaxed) {
        say!("pgnindex: interrupted: {} not written", output.display());
        return Ok(Exit::Interrupted);
    }
    added?;
    read?;
    for bad in &maker.unreadable {
        say!(
            "pgnindex: warning: game {}: counted up to a stored move that cannot be played: {}",
            bad.id,
            bad.reason
        );
    }
    let more = maker.unreadable_count - maker.unreadable.len() as u64;
    if more > 0 {
        say!("pgnindex: warning: and {} more such games", thousands(more));
    }
    let mut book = OutputFile::create(output)?;
    let mut counts = args.counts.as_deref().map(OutputFile::create).transpose()?;
    if let Some(csv) = counts.as_mut() {
        writeln!(csv, "{COUNT_COLUMNS}")?;
    }
    fn written(path: &Path) -> impl Fn(std::io::Error) -> BookError + '_ {
        move |source| BookError::Io { path: path.to_path_buf(), source }
    }
    let summary = maker.finish(|m| {
        book.write_all(&m.entry.to_bytes()).map_err(written(output))?;
        if let (Some(csv), Some(path)) = (counts.as_mut(), args.counts.as_deref()) {
            write_count(csv, m).map_err(written(path))?;
        }
        Ok(())
    })?;
    book.finish()?;
    if let Some(csv) = counts {
        csv.finish().with_context(|| "writing the counts")?;
    }
    say!(
        "pgnindex: {}: {} for {}, from {} (plies 1 to {})",
        output.display(),
        counted(summary.entries, "move"),
        counted(summary.positions, "position"),
        counted(summary.games, "game"),
        args.max_ply
    );
    if summary.entries == 0 && summary.candidates > 0 {
        say!(
            "pgnindex: note: the book is empty: none of the {} moves counted was kept by \
             --min-games {} and --min-score {}",
            thousands(summary.candidates),
            args.min_games,
            args.min_score
        );
    }
    Ok(Exit::Success)
}

fn write_count(out: &mut impl Write, m: &BookMove) -> std::io::Result<()> {
    writeln!(
        out,
        "{:016x},{},{},{},{},{},{},{},{}",
        m.entry.key,
        m.entry.key as i64,
        m.san.unwrap_or(""),
        m.entry.mv.to_uci_text(),
        m.entry.weight,
        m.games,
        m.white_wins,
        m.draws,
        m.black_wins
    )
}
