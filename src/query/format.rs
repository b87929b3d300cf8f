//! Rows of cells written as an aligned table (for people), CSV or JSON
//! (for scripts), streaming: [`RowWriter`].
//!
//! - Table: a header, a rule, then one line per row; columns two spaces
//!   apart, numbers right-aligned (reals always with a decimal point, as
//!   in CSV), NULL blank, control characters as spaces, long text cut to
//!   the configured width with `…`. Widths come from the first
//!   [`TABLE_SAMPLE`] rows (held back until then); later rows use the same
//!   widths, so memory stays bounded. Given a width to fit
//!   ([`TableStyle::fit_width`], a terminal's), the widest text columns are
//!   narrowed until a line fits, their text cut with `…` ([`fit_widths`],
//!   down to [`MIN_FITTED`] characters); headers and numbers are never
//!   cut. The header is bold when colour is on.
//! - CSV (RFC 4180): a header row, fields quoted when they hold `,`, `"`
//!   or a line end, `"` doubled; NULL is an empty field; lines end `\n`.
//! - JSON: one array of objects, keys in column order, one object per
//!   line; NULL is `null`, integers and reals are numbers, blobs are hex
//!   strings.

use std::io::{self, Write};

use crate::db::GameId;

/// Rows held back to size the table's columns.
pub const TABLE_SAMPLE: usize = 1000;

/// One value of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// SQL NULL / absent.
    Null,
    /// An integer.
    Int(i64),
    /// A real number.
    Real(f64),
    /// Text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

impl From<i64> for Cell {
    fn from(v: i64) -> Cell {
        Cell::Int(v)
    }
}

impl From<GameId> for Cell {
    fn from(id: GameId) -> Cell {
        Cell::Int(id.into())
    }
}

impl From<u64> for Cell {
    fn from(v: u64) -> Cell {
        Cell::Int(v as i64)
    }
}

impl From<u32> for Cell {
    fn from(v: u32) -> Cell {
        Cell::Int(i64::from(v))
    }
}

impl From<f64> for Cell {
    fn from(v: f64) -> Cell {
        Cell::Real(v)
    }
}

impl From<String> for Cell {
    fn from(v: String) -> Cell {
        Cell::Text(v)
    }
}

impl From<&str> for Cell {
    fn from(v: &str) -> Cell {
        Cell::Text(v.to_string())
    }
}

impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(v: Option<T>) -> Cell {
        v.map_or(Cell::Null, Into::into)
    }
}

impl Cell {
    fn is_number(&self) -> bool {
        matches!(self, Cell::Int(_) | Cell::Real(_))
    }

    /// The text of the cell in tables and CSV (NULL is empty).
    fn text(&self) -> String {
        match self {
            Cell::Null => String::new(),
            Cell::Int(v) => v.to_string(),
            Cell::Real(v) => real_text(*v),
            Cell::Text(s) => s.clone(),
            Cell::Blob(b) => hex(b),
        }
    }

    fn json(&self) -> serde_json::Value {
        match self {
            Cell::Null => serde_json::Value::Null,
            Cell::Int(v) => (*v).into(),
            Cell::Real(v) => {
                serde_json::Number::from_f64(*v).map_or(serde_json::Value::Null, Into::into)
            }
            Cell::Text(s) => s.as_str().into(),
            Cell::Blob(b) => hex(b).into(),
        }
    }
}

/// A real as SQLite and JSON write it: the shortest text that reads back
/// as the same number, with a decimal point even when whole (`37.0`, not
/// `37`), so a real never reads as an integer and every format agrees.
fn real_text(v: f64) -> String {
    let mut text = v.to_string();
    if v.is_finite() && !text.contains('.') {
        text.push_str(".0");
    }
    text
}

/// A JSON object with its keys in the given order (one line).
pub fn json_object(fields: &[(&str, serde_json::Value)]) -> String {
    let mut out = String::from("{");
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&serde_json::Value::from(*key).to_string());
        out.push_str(": ");
        out.push_str(&value.to_string());
    }
    out.push('}');
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The output formats of rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowFormat {
    /// Aligned columns for a terminal.
    Table,
    /// Comma-separated values with a header row.
    Csv,
    /// One JSON array of objects.
    Json,
}

/// How tables look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableStyle {
    /// Bold header (ANSI escapes).
    pub color: bool,
    /// Text longer than this many characters is cut with `…`.
    pub max_width: usize,
    /// The characters a line may take (the terminal's width): text columns
    /// are narrowed to fit it. `None` (output that is not a terminal):
    /// lines are as wide as their columns.
    pub fit_width: Option<usize>,
}

impl Default for TableStyle {
    fn default() -> TableStyle {
        TableStyle { color: false, max_width: 40, fit_width: None }
    }
}

/// The characters between two table columns.
const GAP: usize = 2;

/// The narrowest a text column is cut to when a table is fitted: shorter
/// values (a date, `2024.01.31`; a result; an ECO code) stay whole, and a
/// cut name keeps enough to be recognised. A table that does not fit even
/// so is left wider than the terminal.
pub const MIN_FITTED: usize = 10;

/// Narrows `widths` (characters per column, [`GAP`] apart) until a line
/// takes at most `width` characters: one character at a time from the
/// widest column still wider than its floor in `floors` (a column whose
/// floor is its width is never narrowed). When every column is at its
/// floor, the line stays wider than `width`.
pub fn fit_widths(widths: &mut [usize], floors: &[usize], width: usize) {
    let mut total = widths.iter().sum::<usize>() + GAP * widths.len().saturating_sub(1);
    while total > width {
        let widest = (0..widths.len())
            .filter(|&i| widths[i] > floors[i])
            .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)));
        let Some(i) = widest else { break };
        widths[i] -= 1;
        total -= 1;
    }
}

/// `text` cut to `width` characters, its last one `…`.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Writes rows in one of the [`RowFormat`]s; call [`RowWriter::finish`] at
/// the end.
pub struct RowWriter<W: Write> {
    out: W,
    format: RowFormat,
    style: TableStyle,
    columns: Vec<String>,
    rows: u64,
    /// Table rows held back until the widths are known.
    sample: Vec<Vec<String>>,
    /// Table column widths and alignment, once known.
    layout: Option<Vec<(usize, bool)>>,
    numeric: Vec<Option<bool>>,
}

impl<W: Write> RowWriter<W> {
    /// A writer of rows with `columns` to `out`.
    ///
    /// # Errors
    /// Errors of `out` (CSV writes its header at once).
    pub fn new(
        out: W,
        format: RowFormat,
        style: TableStyle,
        columns: &[&str],
    ) -> io::Result<RowWriter<W>> {
        let mut w = RowWriter {
            out,
            format,
            style,
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: 0,
            sample: Vec::new(),
            layout: None,
            numeric: vec![None; columns.len()],
        };
        if format == RowFormat::Csv {
            let header: Vec<Cell> = columns.iter().map(|&c| Cell::from(c)).collect();
            w.write_csv(&header)?;
        }
        Ok(w)
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes one row (as many cells as columns).
    ///
    /// # Errors
    /// Errors of the output.
    pub fn row(&mut self, cells: &[Cell]) -> io::Result<()> {
        debug_assert_eq!(cells.len(), self.columns.len());
        self.rows += 1;
        match self.format {
            RowFormat::Csv => self.write_csv(cells),
            RowFormat::Json => {
                let fields: Vec<(&str, serde_json::Value)> = self
                    .columns
                    .iter()
                    .map(String::as_str)
                    .zip(cells.iter().map(Cell::json))
                    .collect();
                let start = if self.rows == 1 { "[\n" } else { ",\n" };
                write!(self.out, "{start}{}", json_object(&fields))
            }
            RowFormat::Table => {
                for (n, cell) in self.numeric.iter_mut().zip(cells) {
                    if !matches!(cell, Cell::Null) {
                        *n = Some(n.unwrap_or(true) && cell.is_number());
                    }
                }
                let texts: Vec<String> = cells.iter().map(|c| self.table_text(c)).collect();
                if self.layout.is_some() {
                    return self.write_table_row(&texts);
                }
                self.sample.push(texts);
                if self.sample.len() >= TABLE_SAMPLE {
                    self.flush_sample()?;
                }
                Ok(())
            }
        }
    }

    /// Ends the output (closes the JSON array, writes a table that is
    /// still held back) and flushes.
    ///
    /// # Errors
    /// Errors of the output.
    pub fn finish(mut self) -> io::Result<W> {
        match self.format {
            RowFormat::Json => {
                let end: &[u8] = if self.rows == 0 { b"[]\n" } else { b"\n]\n" };
                self.out.write_all(end)?;
            }
            RowFormat::Table if self.layout.is_none() => self.flush_sample()?,
            _ => {}
        }
        self.out.flush()?;
        Ok(self.out)
    }

    fn table_text(&self, cell: &Cell) -> String {
        let text: String =
            cell.text().chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        cut(&text, self.style.max_width)
    }

    fn flush_sample(&mut self) -> io::Result<()> {
        let mut layout: Vec<(usize, bool)> = self
            .columns
            .iter()
            .zip(&self.numeric)
            .map(|(c, n)| (c.chars().count(), n.unwrap_or(false)))
            .collect();
        for row in &self.sample {
            for (slot, text) in layout.iter_mut().zip(row) {
                slot.0 = slot.0.max(text.chars().count());
            }
        }
        if let Some(width) = self.style.fit_width {
            let mut widths: Vec<usize> = layout.iter().map(|&(w, _)| w).collect();
            // Numbers keep their width; text its header's, and at least
            // MIN_FITTED characters.
            let floor = |&(w, number): &(usize, bool), name: &String| match number {
                true => w,
                false => name.chars().count().max(w.min(MIN_FITTED)),
            };
            let floors: Vec<usize> =
                layout.iter().zip(&self.columns).map(|(slot, name)| floor(slot, name)).collect();
            fit_widths(&mut widths, &floors, width);
            for (slot, w) in layout.iter_mut().zip(widths) {
                slot.0 = w;
            }
        }
        self.layout = Some(layout);
        let header = self.columns.clone();
        let (bold, plain) = if self.style.color { ("\x1b[1m", "\x1b[0m") } else { ("", "") };
        let line = self.table_line(&header);
        writeln!(self.out, "{bold}{line}{plain}")?;
        let rule: Vec<String> = self.layout.iter().flatten().map(|&(w, _)| "-".repeat(w)).collect();
        writeln!(self.out, "{}", rule.join("  "))?;
        for row in std::mem::take(&mut self.sample) {
            self.write_table_row(&row)?;
        }
        Ok(())
    }

    fn table_line(&self, texts: &[String]) -> String {
        let layout = self.layout.as_deref().unwrap_or_default();
        let mut line = String::new();
        for (i, (text, &(width, right))) in texts.iter().zip(layout).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = width.saturating_sub(text.chars().count());
            let last = i + 1 == texts.len();
            if right {
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(text);
            } else {
                // Fitted, text is cut to its column. Unfitted, a row after
                // the sample may be wider than its column: it is kept whole
                // and shifts the columns after it.
                match self.style.fit_width {
                    Some(_) => line.push_str(&cut(text, width)),
                    None => line.push_str(text),
                }
                if !last {
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
        }
        line.truncate(line.trim_end().len());
        line
    }

    fn write_table_row(&mut self, texts: &[String]) -> io::Result<()> {
        let line = self.table_line(texts);
        writeln!(self.out, "{line}")
    }

    fn write_csv(&mut self, cells: &[Cell]) -> io::Result<()> {
        let mut line = String::with_capacity(128);
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            let text = cell.text();
            if text.contains([',', '"', '\n', '\r']) {
                line.push('"');
                line.push_str(&text.replace('"', "\"\""));
                line.push('"');
            } else {
                line.push_str(&text);
            }
        }
        line.push('\n');
        self.out.write_all(line.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(format: RowFormat, rows: &[Vec<Cell>]) -> String {
        let mut w = RowWriter::new(Vec::new(), format, TableStyle::default(), &["id", "name", "x"])
            .unwrap();
        for r in rows {
            w.row(r).unwrap();
        }
        String::from_utf8(w.finish().unwrap()).unwrap()
    }

    fn sample() -> Vec<Vec<Cell>> {
        vec![
            vec![Cell::Int(1), "O'Brien, \"Pat\"".into(), Cell::Real(2.5)],
            vec![Cell::Int(100), Cell::Null, Cell::Text("a,b\nc".into())],
        ]
    }

    #[test]
    fn table_aligns_numbers_right() {
        assert_eq!(
            render(RowFormat::Table, &sample()),
            " id  name            x\n\
             ---  --------------  -----\n  \
               1  O'Brien, \"Pat\"  2.5\n\
             100                  a,b c\n"
        );
        assert_eq!(render(RowFormat::Table, &[]), "id  name  x\n--  ----  -\n");
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(
            render(RowFormat::Csv, &sample()),
            "id,name,x\n1,\"O'Brien, \"\"Pat\"\"\",2.5\n100,,\"a,b\nc\"\n"
        );
    }

    #[test]
    fn json_is_one_array_of_ordered_objects() {
        let out = render(RowFormat::Json, &sample());
        assert_eq!(
            out,
            "[\n{\"id\": 1, \"name\": \"O'Brien, \\\"Pat\\\"\", \"x\": 2.5},\n\
             {\"id\": 100, \"name\": null, \"x\": \"a,b\\nc\"}\n]\n"
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v[1]["id"], 100);
        assert_eq!(render(RowFormat::Json, &[]), "[]\n");
    }

    #[test]
    fn whole_reals_keep_their_decimal_point_in_every_format() {
        let rows = vec![vec![Cell::Int(37), Cell::Real(37.0), Cell::Real(-0.5)]];
        assert!(render(RowFormat::Table, &rows).ends_with("37  37.0  -0.5\n"));
        assert!(render(RowFormat::Csv, &rows).ends_with("37,37.0,-0.5\n"));
        assert!(render(RowFormat::Json, &rows).contains("\"name\": 37.0, \"x\": -0.5"));
        assert_eq!(real_text(1e21), "1000000000000000000000.0");
        assert_eq!(real_text(f64::NAN), "NaN");
    }

    #[test]
    fn the_widest_text_columns_are_narrowed_to_fit() {
        let fit = |widths: &[usize], floors: &[usize], width: usize| {
            let mut widths = widths.to_vec();
            fit_widths(&mut widths, floors, width);
            widths
        };
        // 2 + 30 + 10 + 4 + 3 gaps of 2 = 52.
        assert_eq!(fit(&[2, 30, 10, 4], &[2, 5, 5, 4], 52), [2, 30, 10, 4]);
        assert_eq!(fit(&[2, 30, 10, 4], &[2, 5, 5, 4], 40), [2, 18, 10, 4]);
        // Then both text columns by turns, the first first.
        assert_eq!(fit(&[2, 30, 10, 4], &[2, 5, 5, 4], 27), [2, 7, 8, 4]);
        // Floors hold: the line stays too wide.
        assert_eq!(fit(&[2, 30, 10, 4], &[2, 5, 5, 4], 10), [2, 5, 5, 4]);
        assert_eq!(fit(&[], &[], 10), Vec::<usize>::new());
    }

    #[test]
    fn a_fitted_table_cuts_text_and_never_headers_or_numbers() {
        let style = TableStyle { fit_width: Some(30), ..TableStyle::default() };
        let mut w =
            RowWriter::new(Vec::new(), RowFormat::Table, style, &["id", "name", "x"]).unwrap();
        w.row(&[Cell::Int(123456), "Carlsen, Magnus".into(), "Wijk aan Zee".into()]).unwrap();
        w.row(&[Cell::Int(2), "Nakamura, Hikaru".into(), Cell::Null]).unwrap();
        w.row(&[Cell::Int(3), "So, Wesley".into(), "2024.01.31".into()]).unwrap();
        let table = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(
            table,
            "    id  name        x\n\
             ------  ----------  ----------\n\
             123456  Carlsen, …  Wijk aan …\n     \
                  2  Nakamura,…\n     \
                  3  So, Wesley  2024.01.31\n"
        );
        // Narrower than that, text stays at ten characters: the line is
        // left wider.
        let style = TableStyle { fit_width: Some(20), ..style };
        let mut w =
            RowWriter::new(Vec::new(), RowFormat::Table, style, &["id", "name", "x"]).unwrap();
        w.row(&[Cell::Int(123456), "Carlsen, Magnus".into(), "Wijk aan Zee".into()]).unwrap();
        let narrow = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(narrow.lines().nth(2), Some("123456  Carlsen, …  Wijk aan …"));
    }

    #[test]
    fn unfitted_rows_after_the_sample_keep_their_text() {
        let mut w =
            RowWriter::new(Vec::new(), RowFormat::Table, TableStyle::default(), &["name"]).unwrap();
        for _ in 0..TABLE_SAMPLE {
            w.row(&["ab".into()]).unwrap();
        }
        w.row(&["abcdef".into()]).unwrap();
        let table = String::from_utf8(w.finish().unwrap()).unwrap();
        assert!(table.ends_with("\nab\nabcdef\n"), "{}", &table[table.len() - 20..]);
    }

    #[test]
    fn long_text_is_cut_in_tables_only() {
        let long = "x".repeat(50);
        let rows = vec![vec![Cell::Int(1), Cell::Text(long.clone()), Cell::Blob(vec![0xab, 1])]];
        let table = render(RowFormat::Table, &rows);
        assert!(table.contains(&format!("{}…", "x".repeat(39))), "{table}");
        assert!(table.contains("ab01"));
        assert!(render(RowFormat::Csv, &rows).contains(&long));
    }
}
