//! A batch's per-game tables — `game_rows` and its index `games_summary`,
//! `game_tags`, `ply_data`, `ply_pvs`, `game_material` — as SQLite records
//! in leaf pages of the database's page size ([`RowidLeaves`]): a game
//! costs no statement. Each table's leaves continue its last leaf, read
//! before the batch ([`GameTables::continue_tables`]), and the commit
//! appends them after each tree's right edge by hand (`store::append`);
//! a table whose new rows do not all follow its last one (SQL wrote a row
//! among them) is copied by SQLite's transfer of whole records from an
//! image of the tables ([`TablesImage`], [`ImageSlot::copy_table`]).
//!
//! Records are written as SQLite would store the same values bound to an
//! insert: the values come typed as the columns declare them (the tests
//! compare the two ways byte for byte). A row whose `games_summary` record
//! is too long for an index page is not kept: [`GameTables::push`] says
//! so, and the caller inserts it by SQL ([`GameTables::insert`]).

use rusqlite::types::{ToSqlOutput, Value as Owned, ValueRef};
use rusqlite::Connection;

use super::append::{self, Pages};
use super::image::{
    self, max_index_record, ImageError, ImageSlot, Leaves, Record, RowidLeaves, Spilled,
    TablesImage, Value,
};

/// A per-game table of the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// `game_rows`, the table behind the `games` view.
    Rows,
    /// `game_tags`.
    Tags,
    /// `ply_data`.
    PlyData,
    /// `ply_pvs`.
    Pvs,
    /// `game_material`.
    Material,
}

impl Table {
    /// Every table, in the order of [`Table::index`].
    pub const ALL: [Table; 5] =
        [Table::Rows, Table::Tags, Table::PlyData, Table::Pvs, Table::Material];

    /// Its name in the database.
    pub fn name(self) -> &'static str {
        match self {
            Table::Rows => "game_rows",
            Table::Tags => "game_tags",
            Table::PlyData => "ply_data",
            Table::Pvs => "ply_pvs",
            Table::Material => "game_material",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The index of `game_rows` that images carry, so that the transfer of
/// `game_rows` copies its records too: its first column is `id`, so its
/// key order is the rows' order.
const SUMMARY: &str = "games_summary";

/// A table as the database declares it.
#[derive(Debug, Clone)]
struct Shape {
    sql: String,
    /// The stored columns, in order (not the virtual generated ones).
    columns: Vec<String>,
}

/// The declarations of the per-game tables, read from the database once.
#[derive(Debug, Clone)]
pub struct Shapes {
    tables: Vec<Shape>,
    /// The tables whose rows can be appended by hand: those with no index
    /// but the ones the rows carry.
    appendable: Vec<bool>,
    /// Bytes per page of the images and leaves: the database's when pages
    /// can be written by hand.
    page_size: usize,
    direct: bool,
    /// Each table's root page, and `games_summary`'s.
    roots: Vec<u32>,
    summary_root: Option<u32>,
    /// `games_summary`: its SQL, and its columns as positions among
    /// `game_rows`' columns (`None`: the database has no such index).
    summary: Option<(String, Vec<usize>)>,
}

impl Shapes {
    /// Reads the tables' declarations.
    ///
    /// # Errors
    /// Database errors; a table missing, or one with a stored generated
    /// column (which a record would have to compute).
    /// `direct` is the page size of pages written by hand into the
    /// database ([`append::direct_page_size`]), `None` if none can be.
    pub fn read(conn: &Connection, direct: Option<usize>) -> rusqlite::Result<Shapes> {
        let mut tables = Vec::new();
        for table in Table::ALL {
            let name = table.name();
            let sql: String = conn.query_row(
                "SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = ?1",
                [name],
                |r| r.get(0),
            )?;
            let mut st = conn.prepare(&format!("PRAGMA main.table_xinfo({name})"))?;
            let mut columns = Vec::new();
            let mut rows = st.query([])?;
            while let Some(row) = rows.next()? {
                let (column, hidden): (String, i64) = (row.get(1)?, row.get(6)?);
                match hidden {
                    0 => columns.push(column),
                    2 => {}
                    _ => return Err(shape_error(format!("{name}.{column} cannot be written"))),
                }
            }
            tables.push(Shape { sql, columns });
        }
        let summary = conn
            .query_row(
                "SELECT sql FROM main.sqlite_master WHERE type = 'index' AND name = ?1 \
                 AND tbl_name = 'game_rows'",
                [SUMMARY],
                |r| r.get::<_, String>(0),
            )
            .ok();
        let summary = match summary {
            Some(sql) => {
                let mut st = conn.prepare(&format!("PRAGMA main.index_info({SUMMARY})"))?;
                let names: Vec<String> =
                    st.query_map([], |r| r.get(2))?.collect::<rusqlite::Result<_>>()?;
                let rows = &tables[Table::Rows.index()].columns;
                let at: Option<Vec<usize>> =
                    names.iter().map(|n| rows.iter().position(|c| c == n)).collect();
                match at {
                    Some(at) if names.first().is_some_and(|n| n == "id") => Some((sql, at)),
                    _ => None,
                }
            }
            None => None,
        };
        let mut appendable = Vec::new();
        for table in Table::ALL {
            let others: i64 = conn.query_row(
                "SELECT count(*) FROM main.sqlite_master WHERE type = 'index' AND tbl_name = ?1 \
                 AND name IS NOT ?2",
                rusqlite::params![table.name(), summary.as_ref().map(|_| SUMMARY)],
                |r| r.get(0),
            )?;
            appendable.push(others == 0);
        }
        let page_size = direct.unwrap_or(image::PAGE_SIZE);
        let roots = Table::ALL
            .iter()
            .map(|table| append::root_of(conn, table.name()))
            .collect::<rusqlite::Result<_>>()?;
        let summary_root = match summary {
            Some(_) => Some(append::root_of(conn, SUMMARY)?),
            None => None,
        };
        Ok(Shapes {
            tables,
            appendable,
            page_size,
            direct: direct.is_some(),
            roots,
            summary_root,
            summary,
        })
    }

    /// Bytes per page of the tables' leaves.
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// The longest `games_summary` record a row may have in an image.
    pub fn max_summary_record(&self) -> usize {
        max_index_record(self.page_size)
    }

    /// The position in `table`'s columns of each of `names`.
    ///
    /// # Errors
    /// A name that is no column of the table.
    pub fn order<'n>(
        &self,
        table: Table,
        names: impl IntoIterator<Item = &'n str>,
    ) -> rusqlite::Result<Vec<usize>> {
        let columns = &self.tables[table.index()].columns;
        names
            .into_iter()
            .map(|name| {
                columns
                    .iter()
                    .position(|c| c == name)
                    .ok_or_else(|| shape_error(format!("{} has no column {name}", table.name())))
            })
            .collect()
    }

    /// The position in `game_rows` of each column of its index
    /// `games_summary` (`None`: the database has no such index).
    pub fn summary_columns(&self) -> Option<&[usize]> {
        self.summary.as_ref().map(|(_, columns)| columns.as_slice())
    }

    /// Columns of `table`.
    pub fn width(&self, table: Table) -> usize {
        self.tables[table.index()].columns.len()
    }

    /// The position of the rowid's column in `table` (its `INTEGER PRIMARY
    /// KEY`, the first column of each).
    const ROWID: usize = 0;
}

fn shape_error(message: String) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        Some(format!("the per-game tables: {message}")),
    )
}

/// The insert of one row of `table`, every stored column bound in order
/// (`?1` the rowid): for a row [`GameTables::push`] did not keep.
pub fn insert_sql(shapes: &Shapes, table: Table) -> String {
    let columns = &shapes.tables[table.index()].columns;
    let placeholders: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
    format!(
        "INSERT OR ROLLBACK INTO main.{} ({}) VALUES ({})",
        table.name(),
        columns.join(", "),
        placeholders.join(", ")
    )
}

/// A value as a record stores it.
///
/// # Errors
/// A text that is not UTF-8.
pub fn record_value<'a>(value: &'a ToSqlOutput<'a>) -> rusqlite::Result<Value<'a>> {
    some_record_value(value)
        .ok_or_else(|| shape_error("a value of an unexpected kind, or a text not UTF-8".into()))
}

/// [`record_value`], `None` for its errors: a small result, returned in
/// registers (the encoder converts some 60 values a game, and a
/// `rusqlite::Result` went through the stack each time).
#[inline]
pub fn some_record_value<'a>(value: &'a ToSqlOutput<'a>) -> Option<Value<'a>> {
    let value = match value {
        ToSqlOutput::Borrowed(v) => *v,
        ToSqlOutput::Owned(v) => ValueRef::from(v),
        _ => return None,
    };
    Some(match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Integer(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) => Value::Text(std::str::from_utf8(t).ok()?),
        ValueRef::Blob(b) => Value::Blob(b),
    })
}

/// A record's value as a statement binds it.
fn bound(value: Value<'_>) -> Owned {
    match value {
        Value::Null => Owned::Null,
        Value::Integer(i) => Owned::Integer(i),
        Value::Real(r) => Owned::Real(r),
        Value::Text(t) => Owned::Text(t.to_string()),
        Value::Blob(b) => Owned::Blob(b.to_vec()),
    }
}

/// The per-game rows of a batch, as the leaves of their tables.
#[derive(Debug)]
pub struct GameTables {
    shapes: Shapes,
    leaves: Vec<RowidLeaves>,
    /// The last leaf of each table that its leaves continue, as read
    /// before the batch ([`GameTables::continue_tables`]): its number and
    /// bytes.
    continued: Vec<Option<LastLeaf>>,
    /// `games_summary`'s last leaf, and the leaves that continue it.
    summary_continued: Option<(LastLeaf, Leaves)>,
    /// The records of `games_summary`, one after the other, and where each
    /// ends.
    summary: Vec<u8>,
    summary_ends: Vec<usize>,
    record: Record,
    summary_record: Record,
}

impl GameTables {
    /// No rows yet, for the tables `shapes` declares.
    pub fn new(shapes: Shapes) -> GameTables {
        let page_size = shapes.page_size;
        GameTables {
            shapes,
            leaves: Table::ALL.iter().map(|_| RowidLeaves::with_page_size(page_size)).collect(),
            continued: Table::ALL.iter().map(|_| None).collect(),
            summary_continued: None,
            summary: Vec::new(),
            summary_ends: Vec::new(),
            record: Record::default(),
            summary_record: Record::default(),
        }
    }

    /// The tables' declarations.
    pub fn shapes(&self) -> &Shapes {
        &self.shapes
    }

    /// Adds the row `rowid` of `table`, `values` in the table's column
    /// order (the rowid's own column is written NULL, as SQLite stores an
    /// `INTEGER PRIMARY KEY`). Rows of a table come in rowid order.
    /// Returns `false`, keeping nothing, for a row an image cannot hold (too
    /// long, or out of order): the caller inserts it by SQL.
    pub fn push(&mut self, table: Table, rowid: i64, values: &mut [Value<'_>]) -> bool {
        debug_assert_eq!(values.len(), self.shapes.width(table));
        values[Shapes::ROWID] = Value::Null;
        let record = self.record.encode(values);
        if table == Table::Rows {
            if let Some((_, columns)) = &self.shapes.summary {
                let mut key: Vec<Value<'_>> = columns.iter().map(|&c| values[c]).collect();
                key[0] = Value::Integer(rowid);
                key.push(Value::Integer(rowid));
                let summary = self.summary_record.encode(&key);
                if summary.len() > self.shapes.max_summary_record()
                    || record.len() > RowidLeaves::MAX_RECORD
                {
                    return false;
                }
                if self.leaves[table.index()].push(rowid, record).is_err() {
                    return false;
                }
                self.summary.extend_from_slice(summary);
                self.summary_ends.push(self.summary.len());
                return true;
            }
        }
        self.leaves[table.index()].push(rowid, record).is_ok()
    }

    /// Adds the row `rowid` of `table` as its `record`, and for
    /// `game_rows` its `games_summary` record `summary`, made to fit
    /// ([`super::encode::records`]).
    ///
    /// # Errors
    /// A row too long or out of order.
    pub fn push_record(
        &mut self,
        table: Table,
        rowid: i64,
        record: &[u8],
        summary: Option<&[u8]>,
    ) -> rusqlite::Result<()> {
        if summary.is_some_and(|s| s.len() > self.shapes.max_summary_record()) {
            return Err(shape_error(format!("a games_summary record of {rowid} too long")));
        }
        self.leaves[table.index()]
            .push(rowid, record)
            .map_err(|e| shape_error(format!("{}: {e}", table.name())))?;
        if let Some(summary) = summary {
            self.summary.extend_from_slice(summary);
            self.summary_ends.push(self.summary.len());
        }
        Ok(())
    }

    /// Adds the row `rowid` of `table` as its record cut on a worker
    /// ([`CutRecord::new`]): its overflow pages are taken as they are.
    ///
    /// # Errors
    /// A row too long or out of order.
    pub fn push_spilled(
        &mut self,
        table: Table,
        rowid: i64,
        spilled: Spilled,
    ) -> rusqlite::Result<()> {
        self.leaves[table.index()]
            .push_spilled(rowid, spilled)
            .map_err(|e| shape_error(format!("{}: {e}", table.name())))
    }

    /// Inserts by SQL the row `rowid` of `table` that [`GameTables::push`]
    /// did not keep: the table's rows no longer continue its last leaf,
    /// which the insert changes, and are copied by SQLite's transfer.
    ///
    /// # Errors
    /// Database errors.
    pub fn insert(
        &mut self,
        conn: &Connection,
        table: Table,
        rowid: i64,
        values: &[Value<'_>],
    ) -> rusqlite::Result<()> {
        let i = table.index();
        self.leaves[i].uncontinue();
        self.continued[i] = None;
        if table == Table::Rows {
            self.summary_continued = None;
        }
        let mut st = conn.prepare_cached(&insert_sql(&self.shapes, table))?;
        for (i, value) in values.iter().enumerate() {
            if i == Shapes::ROWID {
                st.raw_bind_parameter(i + 1, rowid)?;
            } else {
                st.raw_bind_parameter(i + 1, bound(*value))?;
            }
        }
        st.raw_execute().map(drop)
    }

    /// Bytes held: the batch's image is about as large.
    pub fn bytes(&self) -> usize {
        self.leaves.iter().map(RowidLeaves::bytes).sum::<usize>() + self.summary.len()
    }

    /// `true` if no row was pushed since the last copy or discard.
    pub fn is_empty(&self) -> bool {
        self.leaves.iter().all(|l| l.rows() == 0)
    }

    /// Forgets the rows pushed.
    pub fn discard(&mut self) {
        for leaves in &mut self.leaves {
            *leaves = RowidLeaves::with_page_size(self.shapes.page_size);
        }
        self.continued.iter_mut().for_each(|c| *c = None);
        self.summary_continued = None;
        self.summary.clear();
        self.summary_ends.clear();
    }

    /// Before a batch's transaction, with no row pushed: the rows of each
    /// table that can be appended by hand will continue its last leaf, as
    /// SQLite's own inserts fill it, if its last row is before `next_id`,
    /// the first game id the batch can store.
    ///
    /// # Errors
    /// Database errors.
    pub fn continue_tables(&mut self, conn: &Connection, next_id: i64) -> rusqlite::Result<()> {
        if !self.shapes.direct || !self.is_empty() {
            return Ok(());
        }
        let page_size = self.shapes.page_size;
        for table in Table::ALL {
            let i = table.index();
            self.continued[i] = None;
            if !self.shapes.appendable[i] {
                continue;
            }
            let first_key = if table == Table::Pvs { next_id << 24 } else { next_id };
            let Some((pgno, page)) = append::last_leaf_now(conn, self.shapes.roots[i])? else {
                continue;
            };
            let Some(leaves) = RowidLeaves::continuing(page_size, pgno, &page) else { continue };
            if leaves.last_rowid().is_some_and(|last| last < first_key) {
                self.leaves[i] = leaves;
                self.continued[i] = Some((pgno, page));
            }
        }
        self.summary_continued = None;
        let rows = Table::Rows.index();
        if let (Some(root), Some(_)) = (self.shapes.summary_root, &self.continued[rows]) {
            if let Some((pgno, page)) = append::last_leaf_now(conn, root)? {
                if let Some(leaves) = Leaves::continuing(page_size, &page) {
                    self.summary_continued = Some(((pgno, page), leaves));
                }
            }
            if self.summary_continued.is_none() {
                // The rows' index continues with them, or neither does.
                self.continued[rows] = None;
                self.leaves[rows] = RowidLeaves::with_page_size(page_size);
            }
        }
        Ok(())
    }

    /// Writes the rows pushed inside the caller's transaction, and forgets
    /// them: the rows of each table that follow its last row are kept to
    /// be appended by hand after the transaction's other writes (the
    /// result's [`TableAppends::write`]); the others are copied now by
    /// SQLite's transfer, through `slot` (once per transaction).
    ///
    /// # Errors
    /// Database errors; an image SQLite does not copy whole.
    pub fn write(
        &mut self,
        conn: &Connection,
        slot: &mut ImageSlot,
    ) -> rusqlite::Result<TableAppends> {
        let mut appends = TableAppends::default();
        if self.is_empty() {
            return Ok(appends);
        }
        let page_size = self.shapes.page_size;
        let mut image = TablesImage::with_page_size(page_size);
        let mut copies = Vec::new();
        let all: Vec<RowidLeaves> = (self.leaves.iter_mut())
            .map(|leaves| std::mem::replace(leaves, RowidLeaves::with_page_size(page_size)))
            .collect();
        let mut summary_continued = self.summary_continued.take();
        for (table, leaves) in Table::ALL.iter().zip(all) {
            let continued = self.continued[table.index()].take();
            let rows = leaves.rows();
            if rows == 0 {
                continue;
            }
            let name = table.name();
            let summary = (*table == Table::Rows).then_some(()).and(self.shapes.summary.as_ref());
            if self.shapes.direct && self.shapes.appendable[table.index()] {
                let last: Option<i64> =
                    conn.query_row(&format!("SELECT max(rowid) FROM main.{name}"), [], |r| {
                        r.get(0)
                    })?;
                let follows = last.is_none_or(|last| leaves.first_rowid() > Some(last));
                // An index that has rows and whose last leaf is not
                // continued takes a batch's first row above that leaf: one
                // row more for a leaf of its own.
                let summary_fits =
                    summary.is_none() || last.is_none() || rows >= 2 || summary_continued.is_some();
                if follows && summary_fits {
                    let root = self.shapes.roots[table.index()];
                    let original = continued.map(|(_, page)| page);
                    appends.tables.push(TableAppend { root, last, leaves, original });
                    if let (Some(_), Some(index_root)) = (summary, self.shapes.summary_root) {
                        let (continued, mut index) = match summary_continued.take() {
                            Some((leaf, index)) => (Some(leaf), index),
                            None => (None, Leaves::for_index(page_size, last.is_some())),
                        };
                        self.for_each_summary(|record| index.push(record));
                        appends.index =
                            Some(IndexAppend { root: index_root, leaves: index, continued });
                    }
                    continue;
                }
            }
            if continued.is_some() {
                return Err(shape_error(format!(
                    "rows written into {name} beside the batch's, which continue its last leaf"
                )));
            }
            copies.push((*table, rows));
            let shape = &self.shapes.tables[table.index()];
            image.add_table(name, &shape.sql, leaves);
            if let Some((sql, _)) = summary {
                let mut index = image.index_builder();
                self.for_each_summary(|record| index.push(record));
                image.add_index(SUMMARY, name, sql, index).map_err(image_error)?;
            }
        }
        self.summary.clear();
        self.summary_ends.clear();
        if copies.is_empty() {
            return Ok(appends);
        }
        slot.load_tables(conn, image.finish().map_err(image_error)?)?;
        for (table, rows) in copies {
            let copied = slot.copy_table(conn, table.name())? as u64;
            if copied != rows {
                return Err(shape_error(format!(
                    "{copied} of {rows} rows copied into {}",
                    table.name()
                )));
            }
        }
        Ok(appends)
    }

    /// Calls `f` with each `games_summary` record pushed, in order.
    fn for_each_summary(&self, mut f: impl FnMut(&[u8])) {
        let mut start = 0;
        for &end in &self.summary_ends {
            f(&self.summary[start..end]);
            start = end;
        }
    }
}

fn image_error(e: ImageError) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(Box::new(e))
}

/// The rows of a batch's per-game tables that follow each table's last
/// row, to be appended by hand after the transaction's writes through
/// SQL ([`GameTables::write`]).
#[derive(Debug, Default)]
pub struct TableAppends {
    tables: Vec<TableAppend>,
    index: Option<IndexAppend>,
}

/// A table's rows to append.
#[derive(Debug)]
struct TableAppend {
    root: u32,
    /// The largest rowid before the batch.
    last: Option<i64>,
    leaves: RowidLeaves,
    /// The last leaf the rows continue, as it was read.
    original: Option<Vec<u8>>,
}

/// `games_summary`'s rows to append.
#[derive(Debug)]
struct IndexAppend {
    root: u32,
    leaves: Leaves,
    continued: Option<LastLeaf>,
}

/// A tree's last leaf: its page number and bytes.
type LastLeaf = (u32, Vec<u8>);

impl TableAppends {
    /// `true` if there is nothing to append.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty() && self.index.is_none()
    }

    /// Appends the rows through `pages`.
    ///
    /// # Errors
    /// Database errors.
    pub fn write(self, pages: &mut Pages<'_>) -> rusqlite::Result<()> {
        for TableAppend { root, last, leaves, original } in self.tables {
            append::append_rows(pages, root, last, leaves, original.as_deref())?;
        }
        if let Some(IndexAppend { root, leaves, continued }) = self.index {
            let continued = continued.as_ref().map(|(pgno, page)| (*pgno, page.as_slice()));
            append::append_index(pages, root, leaves, continued)?;
        }
        Ok(())
    }
}
