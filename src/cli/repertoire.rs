//! `find --repertoire` and `explore --repertoire`: the stored games that
//! leave a repertoire's lines, one by one or grouped by where they leave.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rayon::prelude::*;
use rusqlite::Connection;

use pgnindex::chess::Color;
use pgnindex::db::GameId;
use pgnindex::notation::{fen, san};
use pgnindex::query::filter::Filters;
use pgnindex::query::format::{Cell, RowFormat, RowWriter};
use pgnindex::query::mainlines::read_mainlines;
use pgnindex::query::repertoire::{Deviation, Repertoire};
use pgnindex::query::QueryError;

use super::query_args::{self, RowsFormat};

/// The side a repertoire is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Side {
    /// White's repertoire.
    White,
    /// Black's repertoire.
    Black,
}

/// `--repertoire` and `--color`.
#[derive(Debug, Clone, Default, Args)]
pub struct RepertoireArgs {
    /// The games that leave the lines (mainlines and variations) of this
    /// PGN file, matched by position, and where they leave them.
    #[arg(long, value_name = "FILE", help_heading = "Repertoire",
          conflicts_with_all = ["fen", "epd", "moves"])]
    pub repertoire: Option<PathBuf>,
    /// The repertoire is this side's: a deviation is then "ours" or
    /// "theirs" rather than White's or Black's.
    #[arg(
        long,
        value_enum,
        value_name = "SIDE",
        requires = "repertoire",
        help_heading = "Repertoire"
    )]
    pub color: Option<Side>,
}

/// The columns of `find --repertoire`.
const FIND_COLUMNS: [&str; 8] =
    ["id", "white", "black", "result", "date", "ply", "move", "left_by"];

/// The columns of `explore --repertoire`.
const EXPLORE_COLUMNS: [&str; 9] = [
    "left_by",
    "move",
    "games",
    "white_wins",
    "draws",
    "black_wins",
    "repertoire_moves",
    "first_ply",
    "fen",
];

/// The table's columns of `explore --repertoire`.
const EXPLORE_TABLE_COLUMNS: [&str; 8] =
    ["left_by", "ply", "move", "games", "white", "draws", "black", "repertoire_moves"];

/// Games read and replayed at a time.
const BATCH: usize = 4096;

impl RepertoireArgs {
    fn left_by(&self, mover: Color) -> &'static str {
        match (self.color, mover) {
            (None, Color::White) => "white",
            (None, Color::Black) => "black",
            (Some(Side::White), Color::White) | (Some(Side::Black), Color::Black) => "ours",
            _ => "theirs",
        }
    }
}

/// Every game the filters select that leaves `repertoire`, in id order,
/// with its result.
fn deviations(
    conn: &Connection,
    filters: &Filters,
    repertoire: &Repertoire,
) -> Result<Vec<(GameId, String, Deviation)>, QueryError> {
    let mut all = Vec::new();
    read_mainlines(conn, filters, BATCH, |games| {
        let found: Vec<_> = games
            .par_iter()
            .filter_map(|g| repertoire.deviation(g).map(|d| (g.id, g.result.clone(), d)))
            .collect();
        all.extend(found);
        true
    })?;
    Ok(all)
}

/// `find --repertoire`: the games that leave it, `offset` and `limit`
/// (0: all) applied.
pub fn find(
    args: &RepertoireArgs,
    conn: &Connection,
    filters: &Filters,
    format: RowFormat,
    offset: u64,
    limit: u64,
    count: bool,
) -> anyhow::Result<()> {
    let path = args.repertoire.as_deref().expect("called with --repertoire");
    let repertoire = Repertoire::read(path)?;
    let found = deviations(conn, filters, &repertoire)?;
    let total = found.len() as u64;
    if count {
        let mut out = query_args::stdout();
        writeln!(out, "{total}")?;
        out.flush()?;
        return Ok(());
    }
    let shown = found.into_iter().skip(offset as usize);
    let shown: Vec<_> =
        if limit == 0 { shown.collect() } else { shown.take(limit as usize).collect() };
    let mut headers = conn.prepare_cached("SELECT white, black, date FROM games WHERE id = ?1")?;
    let mut rows =
        RowWriter::new(query_args::stdout(), format, query_args::table_style(24), &FIND_COLUMNS)?;
    for (id, result, deviation) in &shown {
        let (white, black, date): (Option<String>, Option<String>, Option<String>) =
            headers.query_row([*id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.row(&[
            u64::from(id.get()).into(),
            white.into(),
            black.into(),
            result.clone().into(),
            date.into(),
            u64::from(deviation.ply).into(),
            deviation.san.clone().into(),
            args.left_by(deviation.mover).into(),
        ])?;
    }
    rows.finish()?.flush()?;
    let more = total - offset.min(total) - shown.len() as u64;
    if more > 0 && format == RowFormat::Table {
        say!(
            "pgnindex: {} of {total} games that leave the repertoire shown; --offset {} for the \
             next ones, --limit 0 for all",
            shown.len(),
            offset + shown.len() as u64
        );
    }
    Ok(())
}

/// One group of `explore --repertoire`: a move that leaves the lines from
/// a position.
struct Group {
    deviation: Deviation,
    games: u64,
    by_result: [u64; 3],
}

/// `explore --repertoire`: the deviations grouped by position and move,
/// most frequent first.
pub fn explore(
    args: &RepertoireArgs,
    conn: &Connection,
    filters: &Filters,
    format: RowsFormat,
) -> anyhow::Result<()> {
    let path = args.repertoire.as_deref().expect("called with --repertoire");
    let repertoire = Repertoire::read(path)?;
    let found = deviations(conn, filters, &repertoire)?;
    let mut groups: Vec<Group> = Vec::new();
    let mut at: HashMap<(u64, String), usize> = HashMap::new();
    for (_, result, deviation) in found {
        let key = (deviation.position.zobrist().0, deviation.san.clone());
        let i = *at.entry(key).or_insert_with(|| {
            groups.push(Group { deviation, games: 0, by_result: [0; 3] });
            groups.len() - 1
        });
        let group = &mut groups[i];
        group.games += 1;
        match result.as_str() {
            "1-0" => group.by_result[0] += 1,
            "1/2-1/2" => group.by_result[1] += 1,
            "0-1" => group.by_result[2] += 1,
            _ => {}
        }
    }
    // Most frequent first; among equals, the earliest ply, then the move.
    groups.sort_by(|a, b| {
        (b.games, a.deviation.ply, &a.deviation.san).cmp(&(
            a.games,
            b.deviation.ply,
            &b.deviation.san,
        ))
    });
    let format = RowFormat::from(format);
    let columns: &[&str] =
        if format == RowFormat::Table { &EXPLORE_TABLE_COLUMNS } else { &EXPLORE_COLUMNS };
    let mut rows =
        RowWriter::new(query_args::stdout(), format, query_args::table_style(30), columns)?;
    for g in &groups {
        let position = &g.deviation.position;
        let known: Vec<String> = repertoire
            .moves(position.zobrist().0)
            .iter()
            .map(|&m| san::to_san(position, m))
            .collect();
        let table = format == RowFormat::Table;
        let mut cells: Vec<Cell> = vec![args.left_by(g.deviation.mover).into()];
        if table {
            cells.push(u64::from(g.deviation.ply).into());
        }
        cells.extend::<[Cell; 6]>([
            g.deviation.san.clone().into(),
            g.games.into(),
            g.by_result[0].into(),
            g.by_result[1].into(),
            g.by_result[2].into(),
            known.join(" ").into(),
        ]);
        if !table {
            cells.push(u64::from(g.deviation.ply).into());
            cells.push(fen::write(position).into());
        }
        rows.row(&cells)?;
    }
    rows.finish()?.flush()?;
    Ok(())
}
