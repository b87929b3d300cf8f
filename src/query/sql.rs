//! Running the user's SQL (`pgnindex sql`): each statement of the text in
//! turn, the rows of those that return rows handed to a [`ResultSink`].

use std::io;

use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::types::ValueRef;
use rusqlite::{Batch, Connection};

use super::format::Cell;

/// Why the user's SQL failed.
#[derive(Debug, thiserror::Error)]
pub enum SqlError {
    /// SQLite refused or failed the statement.
    #[error("{0}")]
    Query(rusqlite::Error),
    /// A write on a database opened read-only.
    #[error("{0} (the database is opened read-only: add --write to change it)")]
    ReadOnly(rusqlite::Error),
    /// Writing the results failed.
    #[error("writing the output")]
    Output(#[source] io::Error),
}

impl From<rusqlite::Error> for SqlError {
    fn from(e: rusqlite::Error) -> SqlError {
        let read_only = matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::ReadOnly));
        if read_only {
            SqlError::ReadOnly(e)
        } else {
            SqlError::Query(e)
        }
    }
}

/// Receives the results of the statements that return rows.
pub trait ResultSink {
    /// A statement with these columns starts returning rows.
    ///
    /// # Errors
    /// Output errors.
    fn begin(&mut self, columns: &[&str]) -> io::Result<()>;
    /// One row.
    ///
    /// # Errors
    /// Output errors.
    fn row(&mut self, cells: &[Cell]) -> io::Result<()>;
    /// The statement's rows are done.
    ///
    /// # Errors
    /// Output errors.
    fn end(&mut self) -> io::Result<()>;
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SqlSummary {
    /// Statements run.
    pub statements: u64,
    /// Statements that returned rows (their column list, at least).
    pub result_sets: u64,
    /// Rows inserted, updated or deleted by the other statements.
    pub changes: u64,
}

/// Rows of a statement held back before the sink hears of it (the size of
/// a table's sample: a table holds as many back anyway).
pub const HELD_ROWS: usize = super::format::TABLE_SAMPLE;

/// Runs every statement of `sql` on `conn`.
///
/// A statement's first [`HELD_ROWS`] rows are read before
/// [`ResultSink::begin`] is called: a statement that fails within them
/// never reaches the sink. One that fails later has handed its earlier
/// rows on, and `begin` was called without a matching `end`.
///
/// # Errors
/// [`SqlError`] at the first statement that fails (earlier ones have run).
pub fn run(
    conn: &Connection,
    sql: &str,
    sink: &mut dyn ResultSink,
) -> Result<SqlSummary, SqlError> {
    // SQLite's changes() leaves out the rows a view's triggers write (an
    // INSERT, UPDATE or DELETE on `games`); with count_changes, an
    // INSERT, UPDATE or DELETE returns the count of its rows, those
    // included, as one row.
    conn.pragma_update(None, "count_changes", true)?;
    let result = run_counting(conn, sql, sink);
    conn.pragma_update(None, "count_changes", false)?;
    result
}

/// The count_changes row of an INSERT, UPDATE or DELETE.
fn is_change_count(st: &rusqlite::Statement<'_>) -> bool {
    !st.readonly()
        && st.column_count() == 1
        && matches!(st.column_name(0), Ok("rows inserted" | "rows updated" | "rows deleted"))
}

/// [`run`] with count_changes on.
fn run_counting(
    conn: &Connection,
    sql: &str,
    sink: &mut dyn ResultSink,
) -> Result<SqlSummary, SqlError> {
    let mut summary = SqlSummary::default();
    let mut batch = Batch::new(conn, sql);
    while let Some(mut st) = batch.next()? {
        summary.statements += 1;
        if st.column_count() == 0 {
            // No INSERT, UPDATE or DELETE (they return their count): SQLite's
            // changes() would repeat the last one's.
            st.execute([])?;
            continue;
        }
        if is_change_count(&st) {
            let n: i64 = st.query_row([], |r| r.get(0))?;
            summary.changes += n as u64;
            continue;
        }
        summary.result_sets += 1;
        let names: Vec<String> = st.column_names().into_iter().map(str::to_string).collect();
        let columns: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut rows = st.query([])?;
        // Most failures (an overflow, a function's error) come with the
        // first rows: held back, they never reach the sink, which then
        // shows nothing of a statement that failed.
        let mut held: Vec<Vec<Cell>> = Vec::new();
        let mut open = false;
        while let Some(row) = rows.next()? {
            let cells = (0..columns.len())
                .map(|i| row.get_ref(i).map(cell))
                .collect::<rusqlite::Result<Vec<Cell>>>()?;
            if open {
                sink.row(&cells).map_err(SqlError::Output)?;
                continue;
            }
            held.push(cells);
            if held.len() >= HELD_ROWS {
                open = true;
                sink.begin(&columns).map_err(SqlError::Output)?;
                for cells in held.drain(..) {
                    sink.row(&cells).map_err(SqlError::Output)?;
                }
            }
        }
        if !open {
            sink.begin(&columns).map_err(SqlError::Output)?;
            for cells in held.drain(..) {
                sink.row(&cells).map_err(SqlError::Output)?;
            }
        }
        sink.end().map_err(SqlError::Output)?;
    }
    Ok(summary)
}

fn cell(value: ValueRef<'_>) -> Cell {
    match value {
        ValueRef::Null => Cell::Null,
        ValueRef::Integer(v) => Cell::Int(v),
        ValueRef::Real(v) => Cell::Real(v),
        ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Cell::Blob(b.to_vec()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Collect(Vec<String>);

    impl ResultSink for Collect {
        fn begin(&mut self, columns: &[&str]) -> io::Result<()> {
            self.0.push(format!("begin {}", columns.join(",")));
            Ok(())
        }
        fn row(&mut self, cells: &[Cell]) -> io::Result<()> {
            self.0.push(format!("{cells:?}"));
            Ok(())
        }
        fn end(&mut self) -> io::Result<()> {
            self.0.push("end".into());
            Ok(())
        }
    }

    #[test]
    fn runs_every_statement() {
        let conn = Connection::open_in_memory().unwrap();
        let mut sink = Collect::default();
        let s = run(
            &conn,
            "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x'), (2.5, NULL);
             SELECT a, b AS bee FROM t ORDER BY a; DELETE FROM t; SELECT * FROM t",
            &mut sink,
        )
        .unwrap();
        assert_eq!(s, SqlSummary { statements: 5, result_sets: 2, changes: 4 });
        // Rows written through a view's triggers count too.
        let s = run(
            &conn,
            "INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z'); CREATE VIEW v AS SELECT a FROM t;
             CREATE TRIGGER v_delete INSTEAD OF DELETE ON v BEGIN DELETE FROM t WHERE a = old.a; END;
             DELETE FROM v WHERE a < 3; SELECT count(*) FROM t",
            &mut Collect::default(),
        )
        .unwrap();
        assert_eq!(s, SqlSummary { statements: 5, result_sets: 1, changes: 5 });
        assert_eq!(
            sink.0,
            [
                "begin a,bee",
                "[Int(1), Text(\"x\")]",
                "[Real(2.5), Null]",
                "end",
                "begin a,b",
                "end"
            ]
        );
        let err = run(&conn, "SELECT nope FROM t", &mut sink).unwrap_err();
        assert!(matches!(err, SqlError::Query(_)));
        assert!(err.to_string().contains("no such column: nope"), "{err}");
    }

    #[test]
    fn a_statement_that_fails_within_its_held_rows_never_reaches_the_sink() {
        let conn = Connection::open_in_memory().unwrap();
        let failing_at = |n: usize| {
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) \
                 SELECT CASE WHEN i = {n} THEN abs(-9223372036854775808) ELSE i END AS i FROM n"
            )
        };
        let mut sink = Collect::default();
        let err = run(&conn, &format!("SELECT 1 AS one; {}", failing_at(HELD_ROWS)), &mut sink);
        assert!(err.unwrap_err().to_string().contains("integer overflow"));
        assert_eq!(sink.0, ["begin one", "[Int(1)]", "end"]);
        let mut sink = Collect::default();
        assert!(run(&conn, &failing_at(HELD_ROWS + 1), &mut sink).is_err());
        assert_eq!(sink.0.len(), 1 + HELD_ROWS, "begin and the rows before, no end");
        assert_eq!(sink.0[0], "begin i");
    }
}
