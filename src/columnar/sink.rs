//! [`TableSink`]: the rows of one table written as Parquet files of a
//! bounded size (`PREFIX-00001.parquet`, `PREFIX-00002.parquet`, …), in row
//! groups of a bounded size, zstd-compressed. Rows come in through a
//! [`RowBuffer`] of typed column builders, handed on as one record batch
//! every [`BATCH_ROWS`] rows (or [`BATCH_BYTES`] of values): memory stays
//! bounded by a batch and a row group, whatever the table's size.

use crate::timings::{self, Stage};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use arrow_array::builder::{Float64Builder, Int32Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::metadata::{KeyValue, SortingColumn};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;
use rusqlite::types::ValueRef;

use super::ColumnarError;

/// Rows per record batch handed to the Parquet writer.
pub const BATCH_ROWS: usize = 1 << 16;

/// Bytes per record batch, whatever its rows (long movetexts), counted
/// as the values' bytes in memory (text, and 8 bytes a number); at most a
/// quarter of a row group, so that small bounds still cut files.
pub const BATCH_BYTES: usize = 16 << 20;

/// The default row group size, what engines scan best (Spark's
/// `parquet.block.size`).
pub const ROW_GROUP_BYTES: u64 = 128 << 20;

/// The default bound of a file.
pub const FILE_BYTES: u64 = 1 << 30;

/// The sizes files and row groups are cut at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A file is closed once it holds about this many bytes (a row group
    /// or a batch more at most).
    pub file_bytes: u64,
    /// A row group is closed once its encoded size reaches this.
    pub row_group_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { file_bytes: FILE_BYTES, row_group_bytes: ROW_GROUP_BYTES }
    }
}

impl Limits {
    /// Files of `file_bytes`, in row groups of [`ROW_GROUP_BYTES`] or the
    /// file's bound, whichever is smaller.
    pub fn with_file_bytes(file_bytes: u64) -> Limits {
        Limits { file_bytes, row_group_bytes: ROW_GROUP_BYTES.min(file_bytes).max(1) }
    }
}

/// The Parquet type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// INT32.
    Int32,
    /// INT64.
    Int64,
    /// DOUBLE.
    Float64,
    /// UTF-8 text (BYTE_ARRAY, STRING).
    Text,
}

impl ColumnType {
    fn data_type(self) -> DataType {
        match self {
            ColumnType::Int32 => DataType::Int32,
            ColumnType::Int64 => DataType::Int64,
            ColumnType::Float64 => DataType::Float64,
            ColumnType::Text => DataType::Utf8,
        }
    }
}

/// One column of an exported table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Its name, as in the database.
    pub name: String,
    /// Its type.
    pub ty: ColumnType,
    /// `false` for a column that is never NULL.
    pub nullable: bool,
    /// An id a database numbers (a game's, a source's): the shard's high
    /// bits are added to it.
    pub shard_id: bool,
    /// Sorted ascending in the files: written delta-encoded, without a
    /// dictionary, and recorded as the files' sort order.
    pub sorted: bool,
}

impl Column {
    /// A nullable column that is neither an id nor sorted.
    pub fn new(name: &str, ty: ColumnType) -> Column {
        Column { name: name.to_string(), ty, nullable: true, shard_id: false, sorted: false }
    }

    /// The same column, never NULL.
    pub fn not_null(mut self) -> Column {
        self.nullable = false;
        self
    }

    /// The same column, an id that gets the shard's bits.
    pub fn shard_id(mut self) -> Column {
        self.shard_id = true;
        self
    }

    /// The same column, sorted.
    pub fn sorted(mut self) -> Column {
        self.sorted = true;
        self
    }
}

/// The typed builders of one batch of a table's rows.
pub struct RowBuffer {
    columns: Vec<Column>,
    builders: Vec<Builder>,
    rows: usize,
    bytes: usize,
    max_bytes: usize,
    id_base: i64,
}

enum Builder {
    Int32(Int32Builder),
    Int64(Int64Builder),
    Float64(Float64Builder),
    Text(StringBuilder),
}

impl RowBuffer {
    /// An empty buffer for `columns` of files cut at `limits`; `id_base`
    /// is added to every game id.
    pub fn new(columns: Vec<Column>, limits: Limits, id_base: i64) -> RowBuffer {
        let builders = columns
            .iter()
            .map(|c| match c.ty {
                ColumnType::Int32 => Builder::Int32(Int32Builder::with_capacity(BATCH_ROWS)),
                ColumnType::Int64 => Builder::Int64(Int64Builder::with_capacity(BATCH_ROWS)),
                ColumnType::Float64 => Builder::Float64(Float64Builder::with_capacity(BATCH_ROWS)),
                ColumnType::Text => Builder::Text(StringBuilder::new()),
            })
            .collect();
        let quarter = usize::try_from(limits.row_group_bytes / 4).unwrap_or(usize::MAX);
        RowBuffer {
            columns,
            builders,
            rows: 0,
            bytes: 0,
            max_bytes: quarter.min(BATCH_BYTES),
            id_base,
        }
    }

    /// The columns.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Appends one row, a value per column, as SQLite gives them. `row`
    /// names the row in an error (its game, say).
    ///
    /// # Errors
    /// [`ColumnarError::Value`] for a value of another type, out of its
    /// column's range, or NULL in a column that is never NULL.
    pub fn push<'v>(
        &mut self,
        values: impl IntoIterator<Item = ValueRef<'v>>,
        row: impl Fn() -> String,
    ) -> Result<(), ColumnarError> {
        let mut n = 0;
        for ((column, builder), value) in self.columns.iter().zip(&mut self.builders).zip(values) {
            n += 1;
            let bad = |what: &str| ColumnarError::Value {
                column: column.name.clone(),
                row: row(),
                message: what.to_string(),
            };
            if matches!(value, ValueRef::Null) && !column.nullable {
                return Err(bad("NULL in a column that is never NULL"));
            }
            match (builder, value) {
                (Builder::Int32(b), ValueRef::Null) => b.append_null(),
                (Builder::Int64(b), ValueRef::Null) => b.append_null(),
                (Builder::Float64(b), ValueRef::Null) => b.append_null(),
                (Builder::Text(b), ValueRef::Null) => b.append_null(),
                (Builder::Int32(b), ValueRef::Integer(i)) => b.append_value(
                    i32::try_from(i).map_err(|_| bad(&format!("{i} is out of 32-bit range")))?,
                ),
                (Builder::Int64(b), ValueRef::Integer(i)) => {
                    let v = if column.shard_id {
                        i.checked_add(self.id_base)
                            .ok_or_else(|| bad(&format!("{i} is out of range")))?
                    } else {
                        i
                    };
                    b.append_value(v);
                }
                (Builder::Float64(b), ValueRef::Integer(i)) => b.append_value(i as f64),
                (Builder::Float64(b), ValueRef::Real(f)) => b.append_value(f),
                (Builder::Text(b), ValueRef::Text(t)) => {
                    let t = std::str::from_utf8(t).map_err(|_| bad("text that is not UTF-8"))?;
                    self.bytes += t.len();
                    b.append_value(t);
                }
                (_, v) => {
                    return Err(bad(&format!(
                        "a value of type {} in a {:?} column",
                        v.data_type(),
                        column.ty
                    )))
                }
            }
        }
        if n != self.columns.len() {
            return Err(ColumnarError::Value {
                column: self.columns[n].name.clone(),
                row: row(),
                message: "missing".to_string(),
            });
        }
        self.rows += 1;
        self.bytes += 8 * self.columns.len();
        Ok(())
    }

    /// Starts a row appended value by value, in column order, with typed
    /// appends ([`RowWriter`]): no dispatch on each value's SQLite type, no
    /// UTF-8 check of text that is already `str`.
    pub fn row(&mut self) -> RowWriter<'_> {
        RowWriter { buffer: self, next: 0, error: None }
    }

    /// `true` when the batch is full: hand it on.
    pub fn full(&self) -> bool {
        self.rows >= BATCH_ROWS || self.bytes >= self.max_bytes
    }

    /// Rows in the batch.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// `true` if the batch holds no row.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The batch's rows as a record batch of `schema`; the buffer is empty
    /// again.
    fn take(&mut self, schema: &SchemaRef) -> Result<RecordBatch, ColumnarError> {
        let arrays: Vec<ArrayRef> = self
            .builders
            .iter_mut()
            .map(|b| -> ArrayRef {
                match b {
                    Builder::Int32(b) => Arc::new(b.finish()),
                    Builder::Int64(b) => Arc::new(b.finish()),
                    Builder::Float64(b) => Arc::new(b.finish()),
                    Builder::Text(b) => Arc::new(b.finish()),
                }
            })
            .collect();
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(schema.clone(), arrays)
            .map_err(|e| ColumnarError::Arrow(e.to_string()))
    }
}

/// One row being appended to a [`RowBuffer`] ([`RowBuffer::row`]): a
/// value per column, in order, then [`RowWriter::finish`]. The checks are
/// [`RowBuffer::push`]'s; the first failure is reported by `finish` (the
/// batch is then not to be written).
pub struct RowWriter<'b> {
    buffer: &'b mut RowBuffer,
    next: usize,
    error: Option<(usize, String)>,
}

impl RowWriter<'_> {
    /// The next column's integer value, or NULL: for an INT32, INT64 (an
    /// id gets the shard's bits) or DOUBLE column.
    #[inline(always)]
    pub fn int(&mut self, value: Option<i64>) -> &mut Self {
        let i = self.next;
        self.next += 1;
        let buffer = &mut *self.buffer;
        if let (Some(column), Some(builder)) = (buffer.columns.get(i), buffer.builders.get_mut(i)) {
            match (builder, value) {
                (Builder::Int64(b), Some(v)) if !column.shard_id => {
                    b.append_value(v);
                    return self;
                }
                (Builder::Int64(b), Some(v)) => {
                    if let Some(v) = v.checked_add(buffer.id_base) {
                        b.append_value(v);
                        return self;
                    }
                }
                (Builder::Int32(b), Some(v)) => {
                    if let Ok(v) = i32::try_from(v) {
                        b.append_value(v);
                        return self;
                    }
                }
                (Builder::Float64(b), Some(v)) => {
                    b.append_value(v as f64);
                    return self;
                }
                (Builder::Int32(b), None) if column.nullable => {
                    b.append_null();
                    return self;
                }
                (Builder::Int64(b), None) if column.nullable => {
                    b.append_null();
                    return self;
                }
                (Builder::Float64(b), None) if column.nullable => {
                    b.append_null();
                    return self;
                }
                (Builder::Text(b), None) if column.nullable => {
                    b.append_null();
                    return self;
                }
                _ => {}
            }
        }
        let message = match (value, self.buffer.columns.get(i).map(|c| c.ty)) {
            (_, None) => PAST_THE_END.to_string(),
            (Some(v), Some(ColumnType::Int32)) => format!("{v} is out of 32-bit range"),
            (Some(v), Some(ColumnType::Int64)) => format!("{v} is out of range"),
            (Some(_), Some(ty)) => mismatch("Integer", ty),
            (None, Some(_)) => NOT_NULL.to_string(),
        };
        self.fail(i, message)
    }

    /// The next column's real value, or NULL: for a DOUBLE column.
    #[inline(always)]
    pub fn real(&mut self, value: Option<f64>) -> &mut Self {
        let i = self.next;
        self.next += 1;
        let buffer = &mut *self.buffer;
        if let (Some(column), Some(builder)) = (buffer.columns.get(i), buffer.builders.get_mut(i)) {
            match (builder, value) {
                (Builder::Float64(b), Some(v)) => {
                    b.append_value(v);
                    return self;
                }
                (Builder::Float64(b), None) if column.nullable => {
                    b.append_null();
                    return self;
                }
                _ => {}
            }
        }
        self.refuse(i, value.is_none(), ColumnType::Float64, "Real")
    }

    /// The next column's text, or NULL: for a text column.
    #[inline(always)]
    pub fn text(&mut self, value: Option<&str>) -> &mut Self {
        let i = self.next;
        self.next += 1;
        let buffer = &mut *self.buffer;
        if let (Some(column), Some(Builder::Text(b))) =
            (buffer.columns.get(i), buffer.builders.get_mut(i))
        {
            match value {
                Some(t) => {
                    buffer.bytes += t.len();
                    b.append_value(t);
                    return self;
                }
                None if column.nullable => {
                    b.append_null();
                    return self;
                }
                None => {}
            }
        }
        self.refuse(i, value.is_none(), ColumnType::Text, "Text")
    }

    /// Ends the row. `row` names it in an error (its game, say).
    ///
    /// # Errors
    /// [`ColumnarError::Value`] as [`RowBuffer::push`]'s, for the first
    /// value that failed, for a value past the last column, or for a row
    /// with too few values.
    #[inline]
    pub fn finish(&mut self, row: impl Fn() -> String) -> Result<(), ColumnarError> {
        let columns = self.buffer.columns.len();
        if self.error.is_none() && self.next == columns {
            self.buffer.rows += 1;
            self.buffer.bytes += 8 * columns;
            return Ok(());
        }
        let (i, message) = match self.error.take() {
            Some(error) => error,
            None if self.next > columns => (columns, PAST_THE_END.to_string()),
            None => (self.next, "missing".to_string()),
        };
        let column =
            self.buffer.columns.get(i).map_or_else(|| format!("#{}", i + 1), |c| c.name.clone());
        Err(ColumnarError::Value { column, row: row(), message })
    }

    /// Records why the value of type `sqlite_type` (NULL if `null`),
    /// meant for a column of type `fits`, could not go into column `i`.
    #[cold]
    #[inline(never)]
    fn refuse(&mut self, i: usize, null: bool, fits: ColumnType, sqlite_type: &str) -> &mut Self {
        let message = match self.buffer.columns.get(i).map(|c| c.ty) {
            None => PAST_THE_END.to_string(),
            Some(ty) if null && ty == fits => NOT_NULL.to_string(),
            Some(ty) => mismatch(sqlite_type, ty),
        };
        self.fail(i, message)
    }

    #[cold]
    #[inline(never)]
    fn fail(&mut self, column: usize, message: String) -> &mut Self {
        self.error.get_or_insert((column, message));
        self
    }
}

const NOT_NULL: &str = "NULL in a column that is never NULL";
const PAST_THE_END: &str = "a value past the last column";

fn mismatch(sqlite_type: &str, ty: ColumnType) -> String {
    format!("a value of type {sqlite_type} in a {ty:?} column")
}

/// One table's files, written batch by batch: the batches are encoded,
/// compressed and written on a thread of the sink's own while the caller
/// reads the next rows (two batches in flight at most).
pub struct TableSink {
    schema: SchemaRef,
    batches: Option<SyncSender<RecordBatch>>,
    worker: Option<JoinHandle<Result<TableStats, ColumnarError>>>,
}

impl TableSink {
    /// A sink for the table `table` of `columns`, its files named
    /// `PREFIX-00001.parquet` and so on in `dir` (which must exist);
    /// `metadata` is written into each file's key-value metadata.
    ///
    /// # Errors
    /// [`ColumnarError::Io`] if its thread cannot be started.
    pub fn new(
        dir: &Path,
        table: &str,
        prefix: &str,
        columns: &[Column],
        limits: Limits,
        metadata: Vec<(String, String)>,
    ) -> Result<TableSink, ColumnarError> {
        let mut files = Files::new(dir, table, prefix, columns, limits, metadata);
        let schema = files.schema.clone();
        let (batches, received) = sync_channel::<RecordBatch>(1);
        let worker = std::thread::Builder::new()
            .name("pgnindex-parquet".into())
            .spawn(move || {
                let _clock = timings::ThreadClock::start(Stage::Parquet);
                for batch in received {
                    files.write(&batch)?;
                }
                files.finish()
            })
            .map_err(|e| ColumnarError::io(dir, e))?;
        Ok(TableSink { schema, batches: Some(batches), worker: Some(worker) })
    }

    /// Hands on the rows of `buffer` (emptying it) to be written, opening
    /// a new file or closing a full one as needed.
    ///
    /// # Errors
    /// [`ColumnarError::Write`] or [`ColumnarError::Io`] when a file
    /// cannot be created or written (seen at this call or a later one).
    pub fn write(&mut self, buffer: &mut RowBuffer) -> Result<(), ColumnarError> {
        if buffer.is_empty() {
            return Ok(());
        }
        let batch = buffer.take(&self.schema)?;
        let sent = self.batches.as_ref().is_some_and(|b| b.send(batch).is_ok());
        if !sent {
            // The writer stopped at an error: it is in the join.
            return self.join().map(|_| ());
        }
        Ok(())
    }

    /// Writes what is left, closes the last file and says what was
    /// written; a table without rows still gets one file, so that every
    /// table can be read.
    ///
    /// # Errors
    /// As [`TableSink::write`].
    pub fn finish(mut self) -> Result<TableStats, ColumnarError> {
        self.join()
    }

    fn join(&mut self) -> Result<TableStats, ColumnarError> {
        self.batches = None;
        match self.worker.take() {
            Some(worker) => match worker.join() {
                Ok(result) => result,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            None => Err(ColumnarError::Arrow("the table's files are closed".to_string())),
        }
    }
}

impl Drop for TableSink {
    /// A sink dropped before [`TableSink::finish`] (an error elsewhere)
    /// still waits for its thread: no file is written after it is gone.
    fn drop(&mut self) {
        self.batches = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// One table's files, written batch by batch on the thread of a
/// [`TableSink`].
struct Files {
    dir: PathBuf,
    table: String,
    /// Before `-00001.parquet` in the files' names.
    prefix: String,
    schema: SchemaRef,
    props: WriterProperties,
    limits: Limits,
    writer: Option<(PathBuf, ArrowWriter<File>)>,
    files: Vec<PathBuf>,
    rows: u64,
    bytes: u64,
}

/// What a [`TableSink`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableStats {
    /// The table's name.
    pub table: String,
    /// The files, in order.
    pub files: Vec<PathBuf>,
    /// Rows written.
    pub rows: u64,
    /// Bytes of the files.
    pub bytes: u64,
}

impl Files {
    fn new(
        dir: &Path,
        table: &str,
        prefix: &str,
        columns: &[Column],
        limits: Limits,
        metadata: Vec<(String, String)>,
    ) -> Files {
        let fields: Vec<Field> =
            columns.iter().map(|c| Field::new(&c.name, c.ty.data_type(), c.nullable)).collect();
        let schema = Arc::new(Schema::new(fields));
        let mut props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_max_row_group_row_count(None)
            .set_max_row_group_bytes(Some(
                usize::try_from(limits.row_group_bytes).unwrap_or(usize::MAX),
            ))
            .set_created_by(format!("pgnindex {}", env!("CARGO_PKG_VERSION")))
            .set_key_value_metadata(Some(
                metadata.into_iter().map(|(k, v)| KeyValue::new(k, v)).collect(),
            ));
        let mut sorting = Vec::new();
        for (i, c) in columns.iter().enumerate() {
            if c.sorted {
                let path = ColumnPath::from(c.name.as_str());
                props = props
                    .set_column_dictionary_enabled(path.clone(), false)
                    .set_column_encoding(path, Encoding::DELTA_BINARY_PACKED);
                sorting.push(SortingColumn {
                    column_idx: i32::try_from(i).unwrap_or(i32::MAX),
                    descending: false,
                    nulls_first: false,
                });
            }
        }
        if !sorting.is_empty() {
            props = props.set_sorting_columns(Some(sorting));
        }
        Files {
            dir: dir.to_path_buf(),
            table: table.to_string(),
            prefix: prefix.to_string(),
            schema,
            props: props.build(),
            limits,
            writer: None,
            files: Vec::new(),
            rows: 0,
            bytes: 0,
        }
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<(), ColumnarError> {
        self.open()?;
        let (path, writer) = self.writer.as_mut().expect("a file is open");
        writer.write(batch).map_err(|e| ColumnarError::write(path, e))?;
        self.rows += batch.num_rows() as u64;
        if (writer.bytes_written() + writer.in_progress_size()) as u64 >= self.limits.file_bytes {
            self.close()?;
        }
        Ok(())
    }

    /// Closes the last file and says what was written; a table without
    /// rows still gets one file, so that every table can be read.
    fn finish(mut self) -> Result<TableStats, ColumnarError> {
        if self.files.is_empty() {
            self.open()?;
        }
        self.close()?;
        Ok(TableStats { table: self.table, files: self.files, rows: self.rows, bytes: self.bytes })
    }

    fn open(&mut self) -> Result<(), ColumnarError> {
        if self.writer.is_some() {
            return Ok(());
        }
        let name = format!("{}-{:05}.parquet", self.prefix, self.files.len() + 1);
        let path = self.dir.join(name);
        let file = File::create_new(&path).map_err(|e| ColumnarError::io(&path, e))?;
        let writer = ArrowWriter::try_new(file, self.schema.clone(), Some(self.props.clone()))
            .map_err(|e| ColumnarError::write(&path, e))?;
        self.files.push(path.clone());
        self.writer = Some((path, writer));
        Ok(())
    }

    fn close(&mut self) -> Result<(), ColumnarError> {
        if let Some((path, writer)) = self.writer.take() {
            let file = writer.into_inner().map_err(|e| ColumnarError::write(&path, e))?;
            file.sync_all().map_err(|e| ColumnarError::io(&path, e))?;
            self.bytes += file.metadata().map_err(|e| ColumnarError::io(&path, e))?.len();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns() -> Vec<Column> {
        vec![
            Column::new("id", ColumnType::Int64).not_null().shard_id(),
            Column::new("ply", ColumnType::Int32).not_null(),
            Column::new("clock", ColumnType::Float64),
            Column::new("san", ColumnType::Text),
        ]
    }

    fn batch(buffer: &mut RowBuffer) -> RecordBatch {
        let columns = buffer.columns().to_vec();
        let fields: Vec<Field> =
            columns.iter().map(|c| Field::new(&c.name, c.ty.data_type(), c.nullable)).collect();
        buffer.take(&Arc::new(Schema::new(fields))).unwrap()
    }

    #[test]
    fn typed_rows_make_the_batch_push_makes() {
        let mut pushed = RowBuffer::new(columns(), Limits::default(), 7 << 32);
        let mut typed = RowBuffer::new(columns(), Limits::default(), 7 << 32);
        pushed
            .push(
                [ValueRef::Integer(3), ValueRef::Integer(1), ValueRef::Real(1.5), ValueRef::Null],
                String::new,
            )
            .unwrap();
        pushed
            .push(
                [
                    ValueRef::Integer(4),
                    ValueRef::Integer(2),
                    ValueRef::Integer(2),
                    ValueRef::Text(b"e4"),
                ],
                String::new,
            )
            .unwrap();
        typed
            .row()
            .int(Some(3))
            .int(Some(1))
            .real(Some(1.5))
            .text(None)
            .finish(String::new)
            .unwrap();
        typed
            .row()
            .int(Some(4))
            .int(Some(2))
            .int(Some(2))
            .text(Some("e4"))
            .finish(String::new)
            .unwrap();
        assert_eq!((typed.len(), typed.bytes), (pushed.len(), pushed.bytes));
        let (typed, pushed) = (batch(&mut typed), batch(&mut pushed));
        assert_eq!(typed, pushed);
        let ids = typed.column(0).as_any().downcast_ref::<arrow_array::Int64Array>().unwrap();
        assert_eq!(ids.value(1), (7 << 32) + 4, "the shard's bits are added to a game id");
    }

    #[test]
    fn a_bad_value_fails_the_row_with_its_column() {
        let error = |fill: &dyn Fn(&mut RowBuffer) -> Result<(), ColumnarError>| {
            let mut buffer = RowBuffer::new(columns(), Limits::default(), 1 << 32);
            match fill(&mut buffer).unwrap_err() {
                ColumnarError::Value { column, row, message } => {
                    assert_eq!(row, "plies, game 3");
                    format!("{column}: {message}")
                }
                e => panic!("{e}"),
            }
        };
        let row = || "plies, game 3".to_string();
        assert_eq!(
            error(&|b| b.row().int(None).int(Some(1)).real(None).text(None).finish(row)),
            "id: NULL in a column that is never NULL"
        );
        assert_eq!(
            error(&|b| b.row().int(Some(3)).int(Some(1 << 40)).real(None).text(None).finish(row)),
            "ply: 1099511627776 is out of 32-bit range"
        );
        assert_eq!(
            error(&|b| b.row().int(Some(i64::MAX)).int(Some(1)).real(None).text(None).finish(row)),
            "id: 9223372036854775807 is out of range"
        );
        assert_eq!(
            error(&|b| b.row().int(Some(3)).text(Some("x")).real(None).text(None).finish(row)),
            "ply: a value of type Text in a Int32 column"
        );
        assert_eq!(
            error(&|b| b.row().int(Some(3)).int(Some(1)).real(None).int(Some(2)).finish(row)),
            "san: a value of type Integer in a Text column"
        );
        assert_eq!(error(&|b| b.row().int(Some(3)).int(Some(1)).finish(row)), "clock: missing");
        assert_eq!(
            error(&|b| b
                .row()
                .int(Some(3))
                .int(Some(1))
                .real(None)
                .text(None)
                .int(None)
                .finish(row)),
            "#5: a value past the last column"
        );
    }
}
