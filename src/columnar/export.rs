//! A database's `games`, `plies`, `tags`, `positions` and `sources` as
//! Parquet files of one shard of a lake ([`export`]): what the tables and
//! views show, typed, read in one read transaction and streamed through
//! [`TableSink`]s. `games.movetext`
//! is written back where it is stored NULL (as `pgnindex sql`'s
//! `movetexts` view does), so the files need no pgnindex function.
//! `plies` is made from each game's `moves` and `ply_data` row as the
//! view makes it ([`write_plies`]). `positions` comes sorted by `hash`, the
//! segments read in key order ([`positions::rows_by_hash_sql`]), merged
//! and unpacked here ([`write_positions`]): an engine's row-group
//! statistics then skip most of a file on `WHERE hash = ?`.
//!
//! A subset of the games ([`select_games`]) is a TEMP table of ids that
//! every table's statement joins; without one every live game is written.

use std::path::Path;

use rusqlite::{params_from_iter, Connection};

use super::lake::{ShardDir, TABLES};
use super::sink::{Column, ColumnType, Limits, RowBuffer, TableSink, TableStats};
use super::ColumnarError;
use crate::db::schema::Schema;
use crate::db::texts;
use crate::db::GameId;
use crate::pgn::commands::Eval;
use crate::query::filter::SqlFilter;
use crate::query::functions;
use crate::store::format::plies::{PlyData, StoredNotes};
use crate::store::format::positions;

/// The largest shard number: its ids stay positive 64-bit integers. A
/// shard's number is added to the high bits of every game and source id
/// (`shard << 32`), so that databases exported as different shards never
/// share an id.
pub const MAX_SHARD: u32 = (1 << 31) - 1;

/// The columns of every table written with a 32-bit type: counts, plies
/// and calendar parts, bounded by what the import stores. Every other
/// integer column is 64-bit.
const INT32_COLUMNS: [&str; 13] = [
    "ply",
    "ply_count",
    "opening_ply",
    "year",
    "month",
    "day",
    "tc_base",
    "tc_increment",
    "next_move",
    "mate",
    "ord",
    "positions_indexed",
    "max_ply",
];

/// The name of the TEMP table of the selected games' ids.
const SELECTED: &str = "temp.export_ids";

/// Restricts the export to the games `filter` (on its table `AS g`) keeps.
///
/// # Errors
/// SQLite's error.
pub fn select_by_filter(conn: &Connection, filter: &SqlFilter) -> Result<(), ColumnarError> {
    let e = sqlite(conn);
    create_selection(conn)?;
    conn.execute(
        &format!(
            "INSERT INTO {SELECTED} (id) SELECT g.id FROM {} AS g WHERE 1{}",
            filter.table, filter.sql
        ),
        params_from_iter(&filter.params),
    )
    .map_err(e)?;
    Ok(())
}

/// Restricts the export to the games `ids`.
///
/// # Errors
/// SQLite's error.
pub fn select_games(
    conn: &Connection,
    ids: impl IntoIterator<Item = GameId>,
) -> Result<(), ColumnarError> {
    let e = sqlite(conn);
    create_selection(conn)?;
    let mut insert =
        conn.prepare(&format!("INSERT OR IGNORE INTO {SELECTED} (id) VALUES (?1)")).map_err(&e)?;
    for id in ids {
        insert.execute([i64::from(id)]).map_err(&e)?;
    }
    Ok(())
}

fn create_selection(conn: &Connection) -> Result<(), ColumnarError> {
    conn.execute_batch(&format!(
        "DROP TABLE IF EXISTS {SELECTED}; CREATE TABLE {SELECTED} (id INTEGER PRIMARY KEY)"
    ))
    .map_err(sqlite(conn))
}

fn selected(conn: &Connection) -> bool {
    conn.query_row("SELECT 1 FROM temp.sqlite_master WHERE name = 'export_ids'", [], |_| Ok(()))
        .is_ok()
}

/// Writes the tables of the database of `conn` (at `path`), or of the
/// games selected first, as the shard `lake` of a lake in files of
/// `limits`, and says what each table got. The files stay in the shard's
/// working directory: [`ShardDir::publish`] moves them into the lake.
///
/// The tables come from one state of the database. Without a selection,
/// and with the file at rest (a rollback journal, not a write-ahead log),
/// `positions` and `tags` are read on a second connection and thread,
/// opened while the first holds its read lock: no commit can come in
/// between, so both read the same state.
///
/// # Errors
/// [`ColumnarError`]: SQLite's, a value its column cannot hold, a file
/// that cannot be written.
pub fn export(
    conn: &Connection,
    path: &Path,
    lake: &ShardDir,
    limits: Limits,
) -> Result<Vec<TableStats>, ColumnarError> {
    let e = sqlite(conn);
    functions::register(conn, path).map_err(&e)?;
    let schema = Schema::of(conn).map_err(&e)?;
    let only = selected(conn);
    let journal: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).map_err(&e)?;
    let export = Export { schema, lake, limits, only };
    // One snapshot for every table, whatever an import commits meanwhile:
    // the read lock is taken by the first read.
    let tx = conn.unchecked_transaction().map_err(&e)?;
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0)).map_err(&e)?;
    let parallel = !only && !journal.eq_ignore_ascii_case("wal");
    let (mine, theirs): (&[&str], &[&str]) = if parallel {
        (&["games", "plies", "sources"], &["positions", "tags"])
    } else {
        (&TABLES, &[])
    };
    let mut stats = std::thread::scope(|scope| -> Result<Vec<TableStats>, ColumnarError> {
        let other = (!theirs.is_empty()).then(|| {
            scope.spawn(|| -> Option<Result<Vec<TableStats>, ColumnarError>> {
                // No second connection (an import waiting to commit keeps
                // new readers out): the first reads these tables too.
                let conn = second_reader(path)?;
                Some(theirs.iter().map(|table| export.table(&conn, table)).collect())
            })
        });
        let mut stats: Vec<TableStats> =
            mine.iter().map(|table| export.table(conn, table)).collect::<Result<_, _>>()?;
        let theirs_stats = match other.map(|o| o.join()) {
            None => Vec::new(),
            Some(Ok(Some(result))) => result?,
            Some(Ok(None)) => {
                theirs.iter().map(|table| export.table(conn, table)).collect::<Result<_, _>>()?
            }
            Some(Err(panic)) => std::panic::resume_unwind(panic),
        };
        stats.extend(theirs_stats);
        Ok(stats)
    })?;
    tx.finish().map_err(&e)?;
    stats.sort_by_key(|t| TABLES.iter().position(|name| *name == t.table));
    Ok(stats)
}

/// A second read-only connection to `path` in a read transaction that
/// has read, or `None` if it cannot have one now.
fn second_reader(path: &Path) -> Option<Connection> {
    use rusqlite::OpenFlags;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).ok()?;
    conn.execute_batch("BEGIN").ok()?;
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0)).ok()?;
    Some(conn)
}

/// What every table of one export shares.
struct Export<'a> {
    schema: Schema,
    lake: &'a ShardDir,
    limits: Limits,
    only: bool,
}

impl Export<'_> {
    /// Writes the table `table` from `conn`.
    fn table(&self, conn: &Connection, table: &str) -> Result<TableStats, ColumnarError> {
        let e = sqlite(conn);
        let (schema, limits, shard) = (self.schema, self.limits, self.lake.shard());
        let (dir, prefix) = (self.lake.staging(table), self.lake.prefix());
        let dir = dir.as_path();
        let id_base = i64::from(shard.min(MAX_SHARD)) << 32;
        let only = self.only;
        let restrict = |game_id: &str| {
            if only {
                format!(" AND {game_id} IN (SELECT id FROM {SELECTED})")
            } else {
                String::new()
            }
        };
        let metadata = metadata(table, schema, shard);
        let (columns, sql) = match table {
            "games" => games_sql(conn, schema, &restrict)?,
            "sources" => sources_sql(conn, only)?,
            "plies" => {
                let mut sink =
                    TableSink::new(dir, table, &prefix, &plies_columns(), limits, metadata)?;
                let mut buffer = RowBuffer::new(plies_columns(), limits, id_base);
                write_plies(conn, schema, &restrict, &mut sink, &mut buffer)?;
                return sink.finish();
            }
            "tags" => view_sql(conn, "tags", "game_id", &restrict)?,
            _ => {
                let columns = positions_columns(conn)?;
                match positions::rows_by_hash_sql(conn, &restrict).map_err(&e)? {
                    Some(arms) => {
                        let mut sink =
                            TableSink::new(dir, table, &prefix, &columns, limits, metadata)?;
                        let mut buffer = RowBuffer::new(columns, limits, id_base);
                        write_positions(conn, &arms, &mut sink, &mut buffer)?;
                        return sink.finish();
                    }
                    None => (columns, positions_view_sql(&restrict)),
                }
            }
        };
        let mut sink = TableSink::new(dir, table, &prefix, &columns, limits, metadata)?;
        let mut buffer = RowBuffer::new(columns, limits, id_base);
        let id_column = buffer.columns().iter().position(|c| c.shard_id);
        let width = buffer.columns().len();
        let mut st = conn.prepare(&sql).map_err(&e)?;
        let mut rows = st.query([]).map_err(&e)?;
        while let Some(row) = rows.next().map_err(&e)? {
            // The statement has `width` columns: no index is out of range.
            let id = id_column.map(|i| row.get_ref_unwrap(i));
            buffer.push((0..width).map(|i| row.get_ref_unwrap(i)), || match id {
                Some(rusqlite::types::ValueRef::Integer(id)) => {
                    format!("{table}, {} {id}", if table == "sources" { "source" } else { "game" })
                }
                _ => table.to_string(),
            })?;
            if buffer.full() {
                sink.write(&mut buffer)?;
            }
        }
        sink.write(&mut buffer)?;
        sink.finish()
    }
}

/// The key-value metadata of every file of `table`.
pub(super) fn metadata(table: &str, schema: Schema, shard: u32) -> Vec<(String, String)> {
    vec![
        ("pgnindex.table".to_string(), table.to_string()),
        ("pgnindex.schema_version".to_string(), schema.version().to_string()),
        ("pgnindex.shard".to_string(), shard.to_string()),
    ]
}

/// The Parquet type of a column whose SQL type is `declared`.
fn column_type(name: &str, declared: &str) -> Option<ColumnType> {
    match declared.to_ascii_uppercase().as_str() {
        "INTEGER" if INT32_COLUMNS.contains(&name) => Some(ColumnType::Int32),
        "INTEGER" => Some(ColumnType::Int64),
        "REAL" => Some(ColumnType::Float64),
        "TEXT" => Some(ColumnType::Text),
        _ => None,
    }
}

/// `(name, declared type, NOT NULL or key)` of the columns of a table or
/// view (a view's columns have no declared type).
fn table_info(
    conn: &Connection,
    table: &str,
) -> Result<Vec<(String, String, bool)>, ColumnarError> {
    let mut st = conn
        .prepare("SELECT name, type, \"notnull\" OR pk FROM pragma_table_info(?1) ORDER BY cid")
        .map_err(sqlite(conn))?;
    let rows = st
        .query_map([table], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(sqlite(conn))?;
    Ok(rows)
}

/// Every `games` column, typed by its declaration (from schema
/// [`Schema::GAME_ROWS`], that of its `game_rows` column, a text for one held
/// as a `game_texts` id), with the movetext written back where stored
/// NULL; in id order.
pub(super) fn games_sql(
    conn: &Connection,
    schema: Schema,
    restrict: &dyn Fn(&str) -> String,
) -> Result<(Vec<Column>, String), ColumnarError> {
    let mut columns = Vec::new();
    let mut select = Vec::new();
    let stored = schema.has(Schema::GAME_ROWS);
    for (name, declared, not_null) in table_info(conn, if stored { "game_rows" } else { "games" })?
    {
        let (name, declared) =
            match name.strip_suffix("_id").filter(|n| stored && texts::is_text_column(n)) {
                Some(text) => (text.to_string(), "TEXT".to_string()),
                // The view's `moves`, unpacked.
                None if name == "packed_moves" => ("moves".to_string(), declared),
                // A text, or the id of one.
                None if texts::NAME_COLUMNS.contains(&name.as_str()) => (name, "TEXT".to_string()),
                None => (name, declared),
            };
        let ty = column_type(&name, &declared).ok_or_else(|| ColumnarError::UnknownColumn {
            table: "games".to_string(),
            column: name.clone(),
        })?;
        let mut column = Column::new(&name, ty);
        if not_null {
            column = column.not_null();
        }
        if name == "id" || name == "source_id" {
            column = column.shard_id();
        }
        select.push(if name == "movetext" && schema.has(Schema::WRITTEN_BACK) {
            crate::query::functions::movetext_sql(schema).to_string()
        } else {
            format!("g.\"{name}\"")
        });
        columns.push(column);
    }
    let join = if schema.has(Schema::WRITTEN_BACK) {
        " LEFT JOIN ply_data AS d ON d.game_id = g.id"
    } else {
        ""
    };
    let sql = format!(
        "SELECT {} FROM games AS g{join} WHERE 1{} ORDER BY g.id",
        select.join(", "),
        restrict("g.id")
    );
    Ok((columns, sql))
}

/// The columns of `sources` written: what each input gave, not how long
/// its import took or where a resumed one would start (`started_at`,
/// `finished_at`, `seconds`, `resume_offset` describe a run, not the
/// games).
pub(super) const SOURCES: [&str; 11] = [
    "id",
    "path",
    "size",
    "mtime",
    "fingerprint",
    "games",
    "duplicates",
    "errors",
    "positions",
    "positions_indexed",
    "max_ply",
];

/// The columns of `sources` ([`SOURCES`]), typed.
pub(super) fn sources_columns() -> Vec<Column> {
    SOURCES
        .into_iter()
        .map(|name| {
            let ty = match name {
                "path" | "fingerprint" => ColumnType::Text,
                _ => column_type(name, "INTEGER").unwrap_or(ColumnType::Int64),
            };
            let column = Column::new(name, ty);
            match name {
                "id" => column.not_null().shard_id(),
                "path" | "games" | "duplicates" | "errors" | "positions" => column.not_null(),
                _ => column,
            }
        })
        .collect()
}

/// Every row of `sources` (of the selected games' sources only, with
/// `only`), in id order; a column that an older schema lacks is NULL.
fn sources_sql(conn: &Connection, only: bool) -> Result<(Vec<Column>, String), ColumnarError> {
    let present: Vec<String> = table_info(conn, "sources")?.into_iter().map(|c| c.0).collect();
    let list: Vec<String> = SOURCES
        .iter()
        .map(|name| {
            if present.iter().any(|p| p == name) {
                format!("s.\"{name}\"")
            } else {
                "NULL".to_string()
            }
        })
        .collect();
    let restrict = if only {
        format!(
            " AND s.id IN (SELECT g.source_id FROM games AS g WHERE g.id IN (SELECT id FROM {SELECTED}))"
        )
    } else {
        String::new()
    };
    let sql =
        format!("SELECT {} FROM sources AS s WHERE 1{restrict} ORDER BY s.id", list.join(", "));
    Ok((sources_columns(), sql))
}

/// A text that may be empty, NULL when it is.
fn non_empty(t: &str) -> Option<&str> {
    (!t.is_empty()).then_some(t)
}

/// The columns of the `plies` view, in its order.
pub(super) fn plies_columns() -> Vec<Column> {
    [
        "game_id",
        "ply",
        "san",
        "clock",
        "previous_clock",
        "emt",
        "eval",
        "mate",
        "nags",
        "comment",
        "depth",
        "seldepth",
        "nodes",
        "pv",
        "book",
    ]
    .into_iter()
    .map(|name| view_column("plies", name).expect("a column of plies"))
    .collect()
}

/// The rows of the `plies` view, in (game, ply) order, made here from
/// each game's `moves` and `ply_data` row as the view makes them in SQL
/// (clocks and times in seconds, evaluations in pawns or mates, NAGs and
/// comments by ply): the view's JSON lookups cost a walk of the array for
/// every ply. The test suite holds the two to the same rows.
fn write_plies(
    conn: &Connection,
    schema: Schema,
    restrict: &dyn Fn(&str) -> String,
    sink: &mut TableSink,
    buffer: &mut RowBuffer,
) -> Result<(), ColumnarError> {
    let e = sqlite(conn);
    let (notes, join) = if schema.has(Schema::ENGINE_NOTES) {
        (
            "CAST(d.clocks AS TEXT), CAST(d.emts AS TEXT), CAST(d.evals AS TEXT), d.nags, \
             d.comments, d.depths, d.seldepths, d.nodes, \
             (SELECT json_group_object(p.id & 16777215, p.pv) FROM ply_pvs AS p \
              WHERE p.id BETWEEN g.id * 16777216 AND g.id * 16777216 + 16777215)",
            " LEFT JOIN ply_data AS d ON d.game_id = g.id",
        )
    } else if schema.has(Schema::PLIES) {
        (
            "CAST(d.clocks AS TEXT), CAST(d.emts AS TEXT), CAST(d.evals AS TEXT), d.nags, \
             d.comments, NULL, NULL, NULL, NULL",
            " LEFT JOIN ply_data AS d ON d.game_id = g.id",
        )
    } else {
        ("NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL", "")
    };
    let sql = format!(
        "SELECT g.id, g.moves, {notes} FROM games AS g{join} WHERE g.moves <> ''{} ORDER BY g.id",
        restrict("g.id")
    );
    let mut st = conn.prepare(&sql).map_err(&e)?;
    let mut rows = st.query([]).map_err(&e)?;
    while let Some(row) = rows.next().map_err(&e)? {
        let id: i64 = row.get(0).map_err(&e)?;
        let moves: String = row.get(1).map_err(&e)?;
        let data = PlyData {
            clocks: row.get(2).map_err(&e)?,
            emts: row.get(3).map_err(&e)?,
            evals: row.get(4).map_err(&e)?,
            nags: row.get(5).map_err(&e)?,
            comments: row.get(6).map_err(&e)?,
            depths: row.get(7).map_err(&e)?,
            seldepths: row.get(8).map_err(&e)?,
            nodes: row.get(9).map_err(&e)?,
            pvs: pvs_of(id, row.get(10).map_err(&e)?)?,
            ..PlyData::default()
        };
        push_plies(id, &moves, &data, sink, buffer)?;
    }
    sink.write(buffer)
}

/// The principal variations of game `id` from the JSON object the query
/// gathers from `ply_pvs` (packed, by ply).
fn pvs_of(id: i64, object: Option<String>) -> Result<Vec<(u32, String)>, ColumnarError> {
    let Some(object) = object else { return Ok(Vec::new()) };
    let bad = || ColumnarError::Value {
        column: "ply_pvs.pv".to_string(),
        row: format!("plies, game {id}"),
        message: "not as pgnindex writes it".to_string(),
    };
    let map: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&object).map_err(|_| bad())?;
    map.into_iter().map(|(ply, pv)| Ok((ply.parse().map_err(|_| bad())?, pv))).collect()
}

/// `true` for a comment that marks a book move as the `plies` view does:
/// `book` alone or before a comma, in any letter case.
fn is_book(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 4
        && bytes[..4].eq_ignore_ascii_case(b"book")
        && bytes.get(4).is_none_or(|&b| b == b',')
}

/// The `plies` rows of game `id` (none when `moves` is empty), from its
/// `moves` and `ply_data` row (`data`, all NULL when it has none), into
/// `buffer`, handed to `sink` whenever full.
pub(super) fn push_plies(
    id: i64,
    moves: &str,
    data: &PlyData,
    sink: &mut TableSink,
    buffer: &mut RowBuffer,
) -> Result<(), ColumnarError> {
    if moves.is_empty() {
        return Ok(());
    }
    let stored = StoredNotes::read(data).map_err(|column| ColumnarError::Value {
        column: format!("ply_data.{column}"),
        row: format!("plies, game {id}"),
        message: "not as pgnindex writes it".to_string(),
    })?;
    for (i, san) in moves.split(' ').enumerate() {
        let ply = i as i64 + 1;
        let at = u32::try_from(ply).unwrap_or(u32::MAX);
        let notes = stored.ply(at);
        // The same side's clock, two plies back.
        let previous = at.checked_sub(2).filter(|&p| p > 0).and_then(|p| stored.ply(p).clock);
        let seconds = |ms: Option<u32>| ms.map(|ms| f64::from(ms) / 1000.0);
        let (eval, mate) = match notes.eval {
            Some(Eval::Centipawns(cp)) => (Some(f64::from(cp) / 100.0), None),
            Some(Eval::Mate(n)) => (None, Some(i64::from(n))),
            None => (None, None),
        };
        buffer
            .row()
            .int(Some(id))
            .int(Some(ply))
            .text(Some(san))
            .real(seconds(notes.clock))
            .real(seconds(previous))
            .real(seconds(notes.emt))
            .real(eval)
            .int(mate)
            .text(non_empty(notes.nags))
            .text(non_empty(notes.text))
            .int(notes.depth.map(i64::from))
            .int(notes.seldepth.map(i64::from))
            .int(notes.nodes.and_then(|n| i64::try_from(n).ok()))
            .text(non_empty(notes.pv))
            .int(is_book(notes.text).then_some(1))
            .finish(|| format!("plies, game {id}"))?;
        if buffer.full() {
            sink.write(buffer)?;
        }
    }
    Ok(())
}

/// The type of each column of the views `plies`, `tags` and `positions`
/// (views declare none); `None` for a column not known here.
fn view_column(table: &str, name: &str) -> Option<Column> {
    use ColumnType::{Float64, Int32, Int64, Text};
    let column = match (table, name) {
        (_, "game_id") => Column::new(name, Int64).not_null().shard_id(),
        ("plies" | "positions", "ply") => Column::new(name, Int32).not_null(),
        ("plies", "san") => Column::new(name, Text).not_null(),
        ("plies", "clock" | "previous_clock" | "emt" | "eval") => Column::new(name, Float64),
        ("plies", "mate") => Column::new(name, Int32),
        ("plies", "nags" | "comment" | "pv") => Column::new(name, Text),
        ("plies", "depth" | "seldepth" | "book") => Column::new(name, Int32),
        ("plies", "nodes") => Column::new(name, Int64),
        ("tags", "ord") => Column::new(name, Int32).not_null(),
        ("tags", "name" | "value") => Column::new(name, Text),
        ("positions", "hash") => Column::new(name, Int64).not_null().sorted(),
        ("positions", "next_move") => Column::new(name, Int32),
        ("positions", "fen") => Column::new(name, Text),
        _ => return None,
    };
    Some(column)
}

/// The columns of a view, typed by [`view_column`].
pub(super) fn view_columns(conn: &Connection, view: &str) -> Result<Vec<Column>, ColumnarError> {
    table_info(conn, view)?
        .into_iter()
        .map(|(name, _, _)| {
            view_column(view, &name).ok_or_else(|| ColumnarError::UnknownColumn {
                table: view.to_string(),
                column: name.clone(),
            })
        })
        .collect()
}

/// Every row of a view (`plies`, `tags`), in game order: the view reads
/// `games` (`game_tags`) by id, so the order costs no sort.
fn view_sql(
    conn: &Connection,
    view: &str,
    game_id: &str,
    restrict: &dyn Fn(&str) -> String,
) -> Result<(Vec<Column>, String), ColumnarError> {
    let columns = view_columns(conn, view)?;
    let list: Vec<String> = columns.iter().map(|c| format!("\"{}\"", c.name)).collect();
    let sql = format!(
        "SELECT {} FROM {view} WHERE 1{} ORDER BY {game_id}",
        list.join(", "),
        restrict(game_id)
    );
    Ok((columns, sql))
}

/// The columns of `positions`, which [`write_positions`] writes in this
/// order.
pub(super) fn positions_columns(conn: &Connection) -> Result<Vec<Column>, ColumnarError> {
    let columns = view_columns(conn, "positions")?;
    if columns.iter().map(|c| c.name.as_str()).ne(POSITIONS) {
        return Err(ColumnarError::UnknownColumn {
            table: "positions".to_string(),
            column: columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "),
        });
    }
    Ok(columns)
}

/// The columns of the `positions` view.
const POSITIONS: [&str; 5] = ["hash", "game_id", "ply", "next_move", "fen"];

/// Every row of the view `positions`, sorted by `hash` (by SQLite): for a
/// database whose segments record no layout.
fn positions_view_sql(restrict: &dyn Fn(&str) -> String) -> String {
    format!(
        "SELECT {} FROM positions WHERE 1{} ORDER BY hash, game_id, ply",
        POSITIONS.join(", "),
        restrict("game_id")
    )
}

/// The rows of [`positions::rows_by_hash_sql`]'s statements `arms`, one
/// per segment, merged here in `hash` order (a heap of each segment's
/// next row: SQLite's merge of a compound statement compares each row
/// with every arm's), as the view's columns: each packed row unpacked,
/// the rows of deleted games left out (as the view does).
fn write_positions(
    conn: &Connection,
    arms: &[String],
    sink: &mut TableSink,
    buffer: &mut RowBuffer,
) -> Result<(), ColumnarError> {
    use std::cmp::Reverse;
    use std::collections::binary_heap::{BinaryHeap, PeekMut};

    use rusqlite::fallible_streaming_iterator::FallibleStreamingIterator;
    use rusqlite::types::ValueRef;

    let e = sqlite(conn);
    let deleted: std::collections::HashSet<u32> = conn
        .prepare("SELECT game_id FROM deleted_games")
        .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
        .map_err(&e)?;
    let mut statements =
        arms.iter().map(|sql| conn.prepare(sql)).collect::<Result<Vec<_>, _>>().map_err(&e)?;
    let mut cursors =
        statements.iter_mut().map(|st| st.query([])).collect::<Result<Vec<_>, _>>().map_err(&e)?;
    // A segment's row (hash, gpm, FEN) is read where its cursor stands,
    // and written before the cursor moves on: no copy of it is kept.
    let int = |row: &rusqlite::Row<'_>, i: usize| match row.get_ref(i) {
        Ok(ValueRef::Integer(v)) => Ok(v),
        _ => row.get::<_, i64>(i).map_err(&e),
    };
    // Ordered by hash, then packed game and ply (whatever segment holds a
    // row): the order `import --parquet` writes too.
    let key = |row: &rusqlite::Row<'_>| Ok::<_, ColumnarError>((int(row, 0)?, int(row, 1)?));
    let mut heap = BinaryHeap::with_capacity(cursors.len());
    for (i, rows) in cursors.iter_mut().enumerate() {
        if let Some(row) = rows.next().map_err(&e)? {
            heap.push(Reverse((key(row)?, i)));
        }
    }
    while let Some(mut top) = heap.peek_mut() {
        let Reverse(((hash, gpm), i)) = *top;
        let row = cursors[i].get().expect("a segment in the heap stands on a row");
        let (game_id, ply, next_move) = positions::unpack_gpm(gpm);
        if deleted.is_empty() || !deleted.contains(&game_id.get()) {
            let fen = row.get_ref(2).and_then(|v| Ok(v.as_str_or_null()?)).map_err(&e)?;
            let id = i64::from(game_id);
            buffer
                .row()
                .int(Some(hash))
                .int(Some(id))
                .int(Some(i64::from(ply)))
                .int(next_move.map(i64::from))
                .text(fen)
                .finish(|| format!("positions, game {id}"))?;
            if buffer.full() {
                sink.write(buffer)?;
            }
        }
        match cursors[i].next().map_err(&e)? {
            Some(row) => *top = Reverse((key(row)?, i)),
            None => {
                PeekMut::pop(top);
            }
        }
    }
    sink.write(buffer)
}

pub(super) fn sqlite(conn: &Connection) -> impl Fn(rusqlite::Error) -> ColumnarError + '_ {
    move |error| ColumnarError::Sqlite {
        path: conn.path().filter(|p| !p.is_empty()).unwrap_or(":memory:").to_string(),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_of_the_latest_schema_has_a_type() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        let (games, _) = games_sql(&conn, Schema::of(&conn).unwrap(), &|_| String::new()).unwrap();
        assert_eq!(games[0].name, "id");
        assert!(games[0].shard_id && !games[0].nullable);
        let movetext = games.iter().find(|c| c.name == "movetext").unwrap();
        assert_eq!(movetext.ty, ColumnType::Text);
        let plies: Vec<String> = plies_columns().into_iter().map(|c| c.name).collect();
        let view: Vec<String> =
            table_info(&conn, "plies").unwrap().into_iter().map(|c| c.0).collect();
        assert_eq!(plies, view, "the plies written are the view's columns");
        for view in ["plies", "tags", "positions"] {
            let columns = view_columns(&conn, view).unwrap();
            assert!(!columns.is_empty(), "{view}");
            assert!(columns.iter().any(|c| c.shard_id), "{view} has its game id");
        }
        let sources: Vec<String> =
            table_info(&conn, "sources").unwrap().into_iter().map(|c| c.0).collect();
        for name in SOURCES {
            assert!(sources.iter().any(|s| s == name), "sources.{name}");
        }
        let source_id = games.iter().find(|c| c.name == "source_id").unwrap();
        assert!(source_id.shard_id, "a source id gets the shard's bits, as sources.id does");
    }
}
