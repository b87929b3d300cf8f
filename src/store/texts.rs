//! The dictionary `game_texts`, as the writer keeps it: every text's id in
//! memory, so that storing a game's few-valued columns
//! ([`crate::db::texts`]) looks nothing up in SQL; a text met for the first
//! time is inserted in the import's transaction.

use std::collections::HashMap;

use rusqlite::Connection;

/// Inserts a text, or finds the id of one stored meanwhile by someone else
/// (`pgnindex sql --write`).
const INSERT_TEXT: &str = "INSERT INTO game_texts (text) VALUES (?1) \
    ON CONFLICT (text) DO UPDATE SET text = excluded.text RETURNING id";

/// The texts of `game_texts` by their id.
#[derive(Debug, Default)]
pub struct GameTexts {
    ids: HashMap<String, i64>,
    /// Texts inserted by the open transaction: forgotten if it rolls back.
    pending: Vec<String>,
}

impl GameTexts {
    /// Reads every stored text.
    ///
    /// # Errors
    /// SQLite's.
    pub fn load(conn: &Connection) -> rusqlite::Result<GameTexts> {
        let mut st = conn.prepare("SELECT text, id FROM game_texts")?;
        let ids = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
        Ok(GameTexts { ids, pending: Vec::new() })
    }

    /// The id of `text`, inserted into `game_texts` if new.
    ///
    /// # Errors
    /// SQLite's, from inserting it.
    pub fn id(&mut self, conn: &Connection, text: &str) -> rusqlite::Result<i64> {
        if let Some(&id) = self.ids.get(text) {
            return Ok(id);
        }
        let id = conn.prepare_cached(INSERT_TEXT)?.query_row([text], |r| r.get(0))?;
        self.ids.insert(text.to_string(), id);
        self.pending.push(text.to_string());
        Ok(id)
    }

    /// The open transaction committed: its texts are stored.
    pub fn committed(&mut self) {
        self.pending.clear();
    }

    /// The open transaction rolled back: its texts are not.
    pub fn discard(&mut self) {
        for text in self.pending.drain(..) {
            self.ids.remove(&text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_stored_once_and_forgotten_when_rolled_back() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE game_texts (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
             INSERT INTO game_texts (id, text) VALUES (4, 'blitz');",
        )
        .unwrap();
        let mut texts = GameTexts::load(&conn).unwrap();
        conn.execute_batch("BEGIN").unwrap();
        assert_eq!(texts.id(&conn, "blitz").unwrap(), 4);
        assert_eq!(texts.id(&conn, "Blitz").unwrap(), 5, "texts are compared as written");
        assert_eq!(texts.id(&conn, "Blitz").unwrap(), 5);
        conn.execute_batch("COMMIT").unwrap();
        texts.committed();
        conn.execute_batch("BEGIN").unwrap();
        assert_eq!(texts.id(&conn, "Normal").unwrap(), 6);
        conn.execute_batch("ROLLBACK").unwrap();
        texts.discard();
        // Inserted again, not taken from memory.
        conn.execute("INSERT INTO game_texts (id, text) VALUES (9, 'Normal')", []).unwrap();
        assert_eq!(texts.id(&conn, "Normal").unwrap(), 9);
        assert_eq!(GameTexts::load(&conn).unwrap().ids.len(), 3);
    }
}
