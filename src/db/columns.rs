//! Structs whose fields are table columns: `columns!` declares one and
//! derives from its fields the column names, the row reader and the
//! parameter binder, so that a column is spelled once, as a field.
//!
//! The `games` row is made of such structs: [`super::Header`] (the tag
//! columns), `store::rows::GameRow` (what the import writes), and the
//! read side's `query::game::Game`; the SQL text that names their columns
//! (select lists, the insert's column list and placeholders) is built from
//! [`Columns::NAMES`].

use rusqlite::types::{FromSql, ToSql, ToSqlOutput};
use rusqlite::{Row, Statement};

/// A struct whose fields are columns, declared with `columns!`.
pub trait Columns: Sized {
    /// The column names, in field order (a nested group's names in its
    /// place).
    const NAMES: &'static [&'static str];

    /// Reads the fields from the row `reader` walks, one column each, in
    /// [`Columns::NAMES`] order.
    ///
    /// # Errors
    /// SQLite's error for a column of an unexpected type or range.
    fn read(reader: &mut RowReader<'_, '_>) -> rusqlite::Result<Self>;

    /// Binds the fields, in [`Columns::NAMES`] order, to the parameters
    /// `binder` walks.
    ///
    /// # Errors
    /// SQLite's error, or a value out of SQLite's range.
    fn bind(&self, binder: &mut Binder<'_, '_>) -> rusqlite::Result<()>;

    /// Appends the fields' values to `out`, in [`Columns::NAMES`] order,
    /// as [`Columns::bind`] would bind them (for a writer other than
    /// SQLite).
    ///
    /// # Errors
    /// A value out of SQLite's range.
    fn values<'s>(&'s self, out: &mut Vec<ToSqlOutput<'s>>) -> rusqlite::Result<()>;

    /// Reads a row whose columns `first..` are [`Columns::NAMES`].
    ///
    /// # Errors
    /// As [`Columns::read`].
    fn from_row(row: &Row<'_>, first: usize) -> rusqlite::Result<Self> {
        Self::read(&mut RowReader::new(row, first))
    }
}

/// The columns of a row, read one after the other.
#[derive(Debug)]
pub struct RowReader<'a, 'r> {
    row: &'a Row<'r>,
    next: usize,
}

impl<'a, 'r> RowReader<'a, 'r> {
    /// A reader whose next column is `first`.
    pub fn new(row: &'a Row<'r>, first: usize) -> RowReader<'a, 'r> {
        RowReader { row, next: first }
    }

    /// Reads the next column.
    ///
    /// # Errors
    /// SQLite's error for a column of an unexpected type or range.
    pub fn get<T: FromSql>(&mut self) -> rusqlite::Result<T> {
        let value = self.row.get(self.next)?;
        self.next += 1;
        Ok(value)
    }
}

/// The parameters of a statement, bound one after the other.
pub struct Binder<'a, 's> {
    statement: &'a mut Statement<'s>,
    next: usize,
}

impl std::fmt::Debug for Binder<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Binder").field("next", &self.next).finish_non_exhaustive()
    }
}

impl<'a, 's> Binder<'a, 's> {
    /// A binder whose next parameter is `?1`.
    pub fn new(statement: &'a mut Statement<'s>) -> Binder<'a, 's> {
        Binder { statement, next: 1 }
    }

    /// Binds the next parameter.
    ///
    /// # Errors
    /// SQLite's error, or a value out of SQLite's range.
    pub fn bind<T: ToSql + ?Sized>(&mut self, value: &T) -> rusqlite::Result<()> {
        self.statement.raw_bind_parameter(self.next, value)?;
        self.next += 1;
        Ok(())
    }

    /// The number of parameters bound so far.
    pub fn bound(&self) -> usize {
        self.next - 1
    }
}

/// `a.x, a.y, …`: the columns of `C` for a query that names their table
/// `alias` (`x, y, …` for an empty alias).
pub fn select_list<C: Columns>(alias: &str) -> String {
    let prefix = if alias.is_empty() { String::new() } else { format!("{alias}.") };
    let names: Vec<String> = C::NAMES.iter().map(|name| format!("{prefix}{name}")).collect();
    names.join(", ")
}

/// `?1, ?2, …, ?n`.
pub fn placeholders(n: usize) -> String {
    let list: Vec<String> = (1..=n).map(|i| format!("?{i}")).collect();
    list.join(", ")
}

/// Declares a struct whose fields are columns named after them, and
/// implements [`Columns`] for it. A field marked `@flatten` holds a group
/// of columns (a struct declared with this macro), in its place; one
/// marked `@skip` is no column: [`Columns::read`] leaves it at its
/// `Default` and [`Columns::bind`] passes over it.
///
/// ```ignore
/// columns! {
///     /// A game's players.
///     pub struct Players {
///         /// `White`.
///         pub white: Option<String>,
///         /// `Black`.
///         pub black: Option<String>,
///     }
/// }
/// ```
macro_rules! columns {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[$field_attr:meta])*
                $(@$kind:ident)? $field_vis:vis $field:ident : $ty:ty
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis struct $name {
            $( $(#[$field_attr])* $field_vis $field: $ty, )*
        }

        impl $crate::db::columns::Columns for $name {
            const NAMES: &'static [&'static str] = &{
                const N: usize = 0 $( + $crate::db::columns::columns!(@width [$($kind)?] $ty) )*;
                let mut names = [""; N];
                let mut at = 0;
                $( $crate::db::columns::columns!(@name [$($kind)?] names, at, $field, $ty); )*
                assert!(at == N);
                names
            };

            fn read(
                reader: &mut $crate::db::columns::RowReader<'_, '_>,
            ) -> rusqlite::Result<Self> {
                // Fields are evaluated in the order written: NAMES order.
                Ok($name {
                    $( $field: $crate::db::columns::columns!(@read [$($kind)?] reader, $ty), )*
                })
            }

            fn bind(
                &self,
                binder: &mut $crate::db::columns::Binder<'_, '_>,
            ) -> rusqlite::Result<()> {
                $( $crate::db::columns::columns!(@bind [$($kind)?] binder, self.$field); )*
                Ok(())
            }

            fn values<'s>(
                &'s self,
                out: &mut Vec<rusqlite::types::ToSqlOutput<'s>>,
            ) -> rusqlite::Result<()> {
                $( $crate::db::columns::columns!(@value [$($kind)?] out, self.$field); )*
                Ok(())
            }
        }
    };

    (@width [] $ty:ty) => { 1 };
    (@width [flatten] $ty:ty) => {
        <$ty as $crate::db::columns::Columns>::NAMES.len()
    };
    (@width [skip] $ty:ty) => { 0 };

    (@name [] $names:ident, $at:ident, $field:ident, $ty:ty) => {
        $names[$at] = stringify!($field);
        $at += 1;
    };
    (@name [flatten] $names:ident, $at:ident, $field:ident, $ty:ty) => {
        let inner = <$ty as $crate::db::columns::Columns>::NAMES;
        let mut i = 0;
        while i < inner.len() {
            $names[$at] = inner[i];
            $at += 1;
            i += 1;
        }
    };
    (@name [skip] $names:ident, $at:ident, $field:ident, $ty:ty) => {};

    (@read [] $reader:ident, $ty:ty) => { $reader.get::<$ty>()? };
    (@read [flatten] $reader:ident, $ty:ty) => {
        <$ty as $crate::db::columns::Columns>::read($reader)?
    };
    (@read [skip] $reader:ident, $ty:ty) => { <$ty as Default>::default() };

    (@bind [] $binder:ident, $value:expr) => { $binder.bind(&$value)? };
    (@bind [flatten] $binder:ident, $value:expr) => {
        $crate::db::columns::Columns::bind(&$value, $binder)?
    };
    (@bind [skip] $binder:ident, $value:expr) => {};

    (@value [] $out:ident, $value:expr) => {
        $out.push(rusqlite::types::ToSql::to_sql(&$value)?)
    };
    (@value [flatten] $out:ident, $value:expr) => {
        $crate::db::columns::Columns::values(&$value, $out)?
    };
    (@value [skip] $out:ident, $value:expr) => {};
}
pub(crate) use columns;

#[cfg(test)]
mod tests {
    use rusqlite::types::ValueRef;
    use rusqlite::Connection;

    use super::*;

    columns! {
        #[derive(Debug, Default, PartialEq, Eq)]
        struct Inner {
            b: Option<String>,
            c: i64,
        }
    }

    columns! {
        #[derive(Debug, Default, PartialEq, Eq)]
        struct Outer {
            a: i64,
            @flatten inner: Inner,
            @skip note: String,
            d: String,
        }
    }

    #[test]
    fn names_readers_and_binders_follow_the_fields() {
        assert_eq!(Inner::NAMES, ["b", "c"]);
        assert_eq!(Outer::NAMES, ["a", "b", "c", "d"]);
        assert_eq!(select_list::<Outer>("t"), "t.a, t.b, t.c, t.d");
        assert_eq!(select_list::<Inner>(""), "b, c");
        assert_eq!(placeholders(3), "?1, ?2, ?3");

        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (a, b, c, d)").unwrap();
        let row = Outer {
            a: 1,
            inner: Inner { b: Some("two".into()), c: 3 },
            note: "not stored".into(),
            d: "four".into(),
        };
        let names = Outer::NAMES.join(", ");
        let insert = format!("INSERT INTO t ({names}) VALUES ({})", placeholders(4));
        let mut st = conn.prepare(&insert).unwrap();
        let mut binder = Binder::new(&mut st);
        row.bind(&mut binder).unwrap();
        assert_eq!(binder.bound(), 4);
        st.raw_execute().unwrap();

        let stored: (i64, String, i64, String) = conn
            .query_row("SELECT a, b, c, d FROM t", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .unwrap();
        assert_eq!(stored, (1, "two".into(), 3, "four".into()));
        let sql = format!("SELECT 'x', {} FROM t", select_list::<Outer>("t"));
        let read = conn.query_row(&sql, [], |r| Outer::from_row(r, 1)).unwrap();
        let mut values = Vec::new();
        row.values(&mut values).unwrap();
        let values: Vec<ValueRef<'_>> = values
            .iter()
            .map(|v| match v {
                ToSqlOutput::Borrowed(v) => *v,
                ToSqlOutput::Owned(v) => v.into(),
                _ => unreachable!("no blob or array here"),
            })
            .collect();
        let expected = [
            ValueRef::Integer(1),
            ValueRef::Text(b"two"),
            ValueRef::Integer(3),
            ValueRef::Text(b"four"),
        ];
        assert_eq!(values, expected, "the values bind binds, in order");
        assert_eq!(read, Outer { note: String::new(), ..row });
    }
}
