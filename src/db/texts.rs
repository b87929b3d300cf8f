//! The `games` columns stored as ids into the dictionary `game_texts`
//! (schema [`super::schema::Schema::GAME_ROWS`]): `games` is then a view over the
//! table `game_rows`, which holds, for each of the [`TEXT_COLUMNS`], the
//! column `NAME_id`.

use std::borrow::Cow;

/// The `games` columns that `game_rows` holds as `game_texts` ids: text
/// columns with few distinct values.
pub const TEXT_COLUMNS: &[&str] =
    &["event", "opening", "time_control", "termination", "speed", "opening_eco", "opening_name"];

/// The `games` columns that `game_rows` holds under their own name, as the
/// text itself or, for a text that the import met in an earlier game, as
/// its `game_texts` id (an integer: the columns have no type): sites and
/// players, which repeat over a collection's games but not over a lichess
/// file's game URLs.
pub const NAME_COLUMNS: &[&str] = &["site", "white", "black"];

/// The SQL expression of the `games` column `column`, one of the
/// [`NAME_COLUMNS`], of the `game_rows` row `table`.
pub fn name_sql(table: &str, column: &str) -> String {
    format!(
        "CASE WHEN typeof({table}.{column}) = 'integer' \
         THEN (SELECT n.text FROM game_texts AS n WHERE n.id = {table}.{column}) \
         ELSE {table}.{column} END"
    )
}

/// The `game_rows` column that holds the `games` column `name` (in the
/// latest schema: `moves` is `packed_moves` from
/// [`super::schema::Schema::PACKED_MOVES`]).
pub fn stored_column(name: &str) -> Cow<'_, str> {
    if is_text_column(name) {
        Cow::Owned(format!("{name}_id"))
    } else if name == "moves" {
        Cow::Borrowed("packed_moves")
    } else {
        Cow::Borrowed(name)
    }
}

/// `true` if `game_rows` holds the `games` column `name` as an id.
pub fn is_text_column(name: &str) -> bool {
    TEXT_COLUMNS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_and_the_table_have_the_same_columns_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let conn = super::super::open_for_write(&dir.path().join("t.db")).unwrap();
        let columns = |table: &str| -> Vec<String> {
            let sql = format!("SELECT name FROM pragma_table_info('{table}') ORDER BY cid");
            let mut st = conn.prepare(&sql).unwrap();
            st.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
        };
        let view = columns("games");
        let stored: Vec<String> = view.iter().map(|c| stored_column(c).into_owned()).collect();
        assert_eq!(stored, columns("game_rows"));
        for name in TEXT_COLUMNS {
            assert!(view.iter().any(|c| c == name), "{name} is no column of games");
        }
    }
}
