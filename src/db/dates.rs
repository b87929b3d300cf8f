//! `game_rows.date` from schema [`super::schema::Schema::COMPACT_ROWS`]: `NULL` where the
//! date is the one `year`, `month` and `day` write back (`2024.03.09`,
//! `1851.??.??`), the text as written otherwise (`????.??.??`, `2024.3.9`,
//! `1999.13.01`). The `games` view writes it back with [`date_sql`]; SQL
//! that reads `game_rows` itself uses the same expression.

/// `true` if `game_rows.date` holds `date` as written: the parts do not
/// write it back. Compared as it is written, without building the text:
/// the writer asks for each game.
pub fn kept(date: &str, year: Option<i64>, month: Option<i64>, day: Option<i64>) -> bool {
    let Some(year) = year.filter(|y| (0..=9999).contains(y)) else { return true };
    // The usual parts, two digits or none, compared without formatting.
    let two = |part: Option<i64>| match part {
        None => Some(*b"??"),
        Some(p @ 0..=99) => Some([b'0' + (p / 10) as u8, b'0' + (p % 10) as u8]),
        Some(_) => None,
    };
    if let (Some(m), Some(d)) = (two(month), two(day)) {
        let y = year as u16;
        let digit = |n: u16| b'0' + (n % 10) as u8;
        let written = [
            digit(y / 1000),
            digit(y / 100),
            digit(y / 10),
            digit(y),
            b'.',
            m[0],
            m[1],
            b'.',
            d[0],
            d[1],
        ];
        return date.as_bytes() != written;
    }
    kept_formatted(date, year, month, day)
}

/// [`kept`] by formatting the parts, for a year of 0 to 9999.
fn kept_formatted(date: &str, year: i64, month: Option<i64>, day: Option<i64>) -> bool {
    let mut rest = Rest(date);
    write_date(&mut rest, year, month, day).is_err() || !rest.0.is_empty()
}

/// The date the parts write, as [`date_sql`] writes it where
/// `game_rows.date` is `NULL`: `None` without a year.
pub fn written(year: Option<i64>, month: Option<i64>, day: Option<i64>) -> Option<String> {
    let mut out = String::with_capacity(10);
    write_written(&mut out, year, month, day).then_some(out)
}

/// [`written`] into `out`, emptied first: `false` (and `out` empty)
/// without a year.
pub fn write_written(
    out: &mut String,
    year: Option<i64>,
    month: Option<i64>,
    day: Option<i64>,
) -> bool {
    out.clear();
    year.is_some_and(|year| write_date(out, year, month, day).is_ok())
}

/// Writes the date the parts write (a known year) to `out`: `YYYY.MM.DD`,
/// an unknown month or day as `??`.
fn write_date(
    out: &mut impl std::fmt::Write,
    year: i64,
    month: Option<i64>,
    day: Option<i64>,
) -> std::fmt::Result {
    write!(out, "{year:04}")?;
    for part in [month, day] {
        match part {
            Some(p) => write!(out, ".{p:02}")?,
            None => out.write_str(".??")?,
        }
    }
    Ok(())
}

/// What is left of a text as writes match its start; a write that does
/// not match fails.
struct Rest<'a>(&'a str);

impl std::fmt::Write for Rest<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0 = self.0.strip_prefix(s).ok_or(std::fmt::Error)?;
        Ok(())
    }
}

/// The SQL of the date the parts write ([`write_date`], NULL without a
/// year) over the columns `year`, `month` and `day` of
/// `table` (an alias, or `new` in a trigger).
fn written_sql(table: &str) -> String {
    let part = |c: &str| {
        format!("CASE WHEN {table}.{c} IS NULL THEN '??' ELSE printf('%02d', {table}.{c}) END")
    };
    format!(
        "CASE WHEN {table}.year IS NOT NULL THEN printf('%04d.%s.%s', {table}.year, {}, {}) END",
        part("month"),
        part("day")
    )
}

/// The SQL expression of the `games.date` of the `game_rows` row `table`.
/// It holds for every schema with `game_rows`: before
/// [`super::schema::Schema::COMPACT_ROWS`] the date is never `NULL` where a year is known.
pub fn date_sql(table: &str) -> String {
    format!("coalesce({table}.date, {})", written_sql(table))
}

/// The SQL expression of the `game_rows.date` stored for the `games` row
/// `table` (`new` in the view's triggers).
pub fn stored_sql(table: &str) -> String {
    format!("CASE WHEN {table}.date = {} THEN NULL ELSE {table}.date END", written_sql(table))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The comparison without formatting answers as formatting does.
        #[test]
        fn kept_compares_as_the_formatted_date_does(
            year in 0i64..=9999,
            month in proptest::option::of(-3i64..=120),
            day in proptest::option::of(-3i64..=120),
            other in "[0-9?.]{0,11}",
        ) {
            let mut written = String::new();
            write_date(&mut written, year, month, day).unwrap();
            for date in [written.as_str(), &other, &written[..written.len() - 1]] {
                proptest::prop_assert_eq!(
                    kept(date, Some(year), month, day),
                    kept_formatted(date, year, month, day),
                    "{}", date
                );
            }
            proptest::prop_assert!(!kept(&written, Some(year), month, day));
        }
    }

    #[test]
    fn the_parts_write_back_only_the_canonical_form() {
        assert!(!kept("0851.??.??", Some(851), None, None));
        assert!(kept("2024.03.09", None, Some(3), Some(9)), "no year");
        assert!(!kept("2024.03.09", Some(2024), Some(3), Some(9)));
        assert!(kept("2024.3.9", Some(2024), Some(3), Some(9)));
        assert!(kept("????.??.??", None, None, None));
        assert!(kept("1999.13.01", Some(1999), None, Some(1)));
        assert!(kept("2024.03.09 ", Some(2024), Some(3), Some(9)), "longer");
        assert!(kept("2024.03.0", Some(2024), Some(3), Some(9)), "shorter");
    }

    #[test]
    fn sql_stores_and_writes_back_as_rust_does() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (date TEXT, year INTEGER, month INTEGER, day INTEGER)")
            .unwrap();
        type Row = (Option<&'static str>, Option<i64>, Option<i64>, Option<i64>);
        let rows: [Row; 6] = [
            (Some("2024.03.09"), Some(2024), Some(3), Some(9)),
            (Some("1851.??.??"), Some(1851), None, None),
            (Some("2020.??.15"), Some(2020), None, Some(15)),
            (Some("????.??.??"), None, None, None),
            (Some("2024.3.9"), Some(2024), Some(3), Some(9)),
            (None, None, None, None),
        ];
        let sql = format!("SELECT {}, {} FROM t", stored_sql("t"), date_sql("t"));
        for (date, y, m, d) in rows {
            conn.execute("DELETE FROM t", []).unwrap();
            conn.execute("INSERT INTO t VALUES (?1, ?2, ?3, ?4)", rusqlite::params![date, y, m, d])
                .unwrap();
            let (stored, back): (Option<String>, Option<String>) =
                conn.query_row(&sql, [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
            let expected = date.filter(|date| kept(date, y, m, d));
            assert_eq!(stored.as_deref(), expected, "{date:?}");
            conn.execute("UPDATE t SET date = ?1", [&stored]).unwrap();
            let back_from_stored: Option<String> = conn
                .query_row(&format!("SELECT {} FROM t", date_sql("t")), [], |r| r.get(0))
                .unwrap();
            assert_eq!(back_from_stored.as_deref(), date, "{date:?}");
            assert_eq!(back.as_deref(), date);
        }
    }
}
