//! `pgnindex sql`: the user's SQL on the database, read-only unless
//! `--write`, with pgnindex's SQL functions.

use std::io::{self, Write};

use clap::Args;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::ErrorCode;

use pgnindex::db;
use pgnindex::query::format::{Cell, RowFormat, RowWriter, TableStyle};
use pgnindex::query::functions;
use pgnindex::query::sql::{self, ResultSink, SqlError};

use super::exit::Exit;
use super::query_args::{self, DbArgs, RowsFormat};

/// Arguments of `sql`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex sql \"SELECT eco, count(*) AS n FROM games GROUP BY eco ORDER BY n DESC LIMIT 10\"
  pgnindex sql \"SELECT game_id, ply FROM positions
                 WHERE hash = polyglot_key('r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq -')\"
  pgnindex sql \"SELECT id, fen_at(id, 20) FROM games LIMIT 5\" --format csv
  pgnindex sql \"SELECT id, material_at(id, 40), piece_at(id, 40, 'd5') FROM games LIMIT 5\"
  pgnindex sql \"SELECT movetext FROM movetexts WHERE game_id = 42\"
  pgnindex sql --write \"UPDATE games SET event = 'Casual' WHERE event IS NULL\"

Functions: polyglot_key(fen) gives the INTEGER stored in positions.hash;
fen_at(game_id, ply) the FEN after ply moves (by replay); material_at(game_id,
ply) the material there as a --material spec (KRP-KR); piece_at(game_id, ply,
square) the piece on a square there ('N', 'p', or NULL); san_to_uci(fen, san)
the UCI of a move; written_movetext(moves, result, start_fen, clocks, emts,
evals, nags, comments, notes_form) the movetext of a game stored without it
(games.movetext NULL). The TEMP view movetexts(game_id, movetext) has every
game's movetext, stored or written back. The schema needs none of them: the
database works in any SQLite tool. Several statements separated by ';' run in
order.")]
pub struct SqlArgs {
    /// The SQL to run.
    query: String,
    #[command(flatten)]
    db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RowsFormat::Table)]
    format: RowsFormat,
    /// Open the database read-write (never created, schema unchanged).
    #[arg(long)]
    write: bool,
}

/// Writes each result set as it comes.
struct Sink<W: Write> {
    out: Option<W>,
    rows: Option<RowWriter<W>>,
    format: RowFormat,
    style: TableStyle,
    sets: u64,
}

impl<W: Write> ResultSink for Sink<W> {
    fn begin(&mut self, columns: &[&str]) -> io::Result<()> {
        let mut out = self.out.take().expect("a result set is not open");
        if self.sets > 0 && self.format == RowFormat::Table {
            writeln!(out)?;
        }
        self.sets += 1;
        self.rows = Some(RowWriter::new(out, self.format, self.style, columns)?);
        Ok(())
    }

    fn row(&mut self, cells: &[Cell]) -> io::Result<()> {
        self.rows.as_mut().expect("a result set is open").row(cells)
    }

    fn end(&mut self) -> io::Result<()> {
        let rows = self.rows.take().expect("a result set is open");
        self.out = Some(rows.finish()?);
        Ok(())
    }
}

/// Runs `sql`: exit 1 for SQL that fails. Without a database (none at the
/// path and no `--write`), statements that read no table still run, on an
/// empty read-only connection: `SELECT polyglot_key('…')` needs no games.
/// One that reads a table then fails as the missing database.
pub fn run(args: &SqlArgs) -> anyhow::Result<Exit> {
    let path = args.db.path();
    let standalone = !args.write && !path.exists();
    let conn = if args.write {
        db::open_read_write(&path)?
    } else if standalone {
        let conn = rusqlite::Connection::open_in_memory()?;
        // Read-only as a database opened for a query: nothing written
        // to memory would be kept.
        conn.pragma_update(None, "query_only", true)?;
        // SQLite's own tables and pragmas exist in an empty connection
        // too, and would answer with nothing instead of the database.
        // (`count_changes` is the one the statement runner sets itself.)
        conn.authorizer(Some(|ctx: AuthContext<'_>| match ctx.action {
            AuthAction::Pragma { pragma_name: "count_changes", .. } => Authorization::Allow,
            AuthAction::Read { .. } | AuthAction::Pragma { .. } => Authorization::Deny,
            _ => Authorization::Allow,
        }))?;
        conn
    } else {
        db::set_busy_handler(query_args::wait_saying_why);
        let conn = db::open_read_only(&path)?;
        query_args::note_unfinished(&conn, &path);
        conn
    };
    functions::register(&conn, &path)?;
    if !standalone {
        functions::create_views(&conn)?;
    }
    let mut sink = Sink {
        out: Some(query_args::stdout()),
        rows: None,
        format: args.format.into(),
        style: query_args::table_style(100),
        sets: 0,
    };
    let summary = sql::run(&conn, &args.query, &mut sink);
    // The results of the statements that ran reach the output. A result
    // set still open belongs to a statement that failed after its first
    // rows: it is not finished (no JSON `]`, no held-back table rows), so
    // that no partial answer reads as a whole one.
    if let Some(out) = sink.out.as_mut() {
        out.flush()?;
    }
    drop(sink);
    let summary = match summary {
        Err(err) if standalone && reads_the_database(&err) => {
            return Err(db::DbError::Missing { path }.into())
        }
        summary => summary?,
    };
    if summary.changes > 0 {
        say!("pgnindex: {} rows changed", summary.changes);
    }
    Ok(Exit::Success)
}

/// Whether a statement run without a database failed for want of one: it
/// reads a table or a pragma (denied), names a table that an empty
/// connection does not have, a function that reads games could not open
/// the database, or it writes.
fn reads_the_database(err: &SqlError) -> bool {
    match err {
        // A write: with `--write` the database must exist.
        SqlError::ReadOnly(_) => true,
        SqlError::Query(err) => {
            let denied =
                err.sqlite_error_code() == Some(ErrorCode::AuthorizationForStatementDenied);
            let text = err.to_string();
            denied
                || text.contains("no such table")
                || text.contains("unable to open database file")
        }
        SqlError::Output(_) => false,
    }
}
