//! The tag-name dictionary `tag_names`, as the writer keeps it: every
//! name's id in memory, so that storing a game's pairs looks nothing up in
//! SQL; a name met for the first time is inserted in the import's
//! transaction.

use std::sync::Arc;

use rusqlite::Connection;

use super::encode::shared_ids::{IdMap, SharedIds};

use crate::replay::TagPairs;

/// Inserts a name, or finds the id of one stored meanwhile by someone else
/// (`pgnindex sql --write`).
const INSERT_NAME: &str = "INSERT INTO tag_names (name) VALUES (?1) \
    ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id";

/// The names of `tag_names` by their id.
#[derive(Debug, Default)]
pub struct TagNames {
    /// Every name's id, which the workers read too: a name inserted by the
    /// open transaction is theirs at once, so that the games they encode
    /// next carry their pairs encoded, and not only from the next batch
    /// on (the first batch of a new database holds the whole of most
    /// files). The ids are the ones the writer gives in game order, so the
    /// database is the same whoever encodes a game's pairs; an import stops
    /// at a transaction that rolls back, and its names are taken back.
    ids: Arc<SharedIds>,
    /// Names inserted by the open transaction.
    pending: IdMap,
}

impl TagNames {
    /// Reads every stored name.
    ///
    /// # Errors
    /// SQLite's.
    pub fn load(conn: &Connection) -> rusqlite::Result<TagNames> {
        let mut st = conn.prepare("SELECT name, id FROM tag_names")?;
        let ids = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
        Ok(TagNames { ids: Arc::new(SharedIds::new(ids)), pending: IdMap::default() })
    }

    /// The names' ids, for the workers.
    pub fn shared(&self) -> Arc<SharedIds> {
        Arc::clone(&self.ids)
    }

    /// `pairs` as `game_tags.pairs` holds them ([`TagPairs::to_json`]),
    /// new names inserted into `tag_names`.
    ///
    /// # Errors
    /// SQLite's, from inserting a name.
    pub fn encode(&mut self, conn: &Connection, pairs: &TagPairs) -> rusqlite::Result<String> {
        let mut added = Vec::new();
        let ids = self.ids.read();
        let json = pairs.to_json(|name| match ids.get(name).or_else(|| self.pending.get(name)) {
            Some(&id) => Ok::<i64, rusqlite::Error>(id),
            None => {
                let id = conn.prepare_cached(INSERT_NAME)?.query_row([name], |r| r.get(0))?;
                self.pending.insert(name.to_string(), id);
                added.push((name.to_string(), id));
                Ok(id)
            }
        });
        drop(ids);
        // Inserted names are published even when a later one failed: the
        // transaction then rolls back, and `discard` takes them back.
        if !added.is_empty() {
            self.ids.extend(added);
        }
        Ok(json?.unwrap_or_else(|| "[]".to_string()))
    }

    /// The open transaction committed: its names are stored.
    pub fn committed(&mut self) {
        self.pending.clear();
    }

    /// The open transaction rolled back: its names are not stored.
    pub fn discard(&mut self) {
        self.ids.remove(self.pending.drain().map(|(name, _)| name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE tag_names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
             INSERT INTO tag_names (id, name) VALUES (4, 'UTCDate');",
        )
        .unwrap();
        conn
    }

    fn pairs(list: &[(&str, &str)]) -> TagPairs {
        let mut pairs = TagPairs::new();
        for (name, value) in list {
            pairs.push(name, value);
        }
        pairs
    }

    #[test]
    fn names_are_stored_once_and_forgotten_when_rolled_back() {
        let conn = db();
        let mut names = TagNames::load(&conn).unwrap();
        conn.execute_batch("BEGIN").unwrap();
        let game = pairs(&[("UTCDate", "2017.12.15"), ("Annotator", "X"), ("utcdate", "y")]);
        assert_eq!(names.encode(&conn, &game).unwrap(), r#"["4:2017.12.15","5:X","6:y"]"#);
        assert_eq!(names.encode(&conn, &game).unwrap(), r#"["4:2017.12.15","5:X","6:y"]"#);
        conn.execute_batch("COMMIT").unwrap();
        names.committed();
        let count = |c: &Connection| -> i64 {
            c.query_row("SELECT count(*) FROM tag_names", [], |r| r.get(0)).unwrap()
        };
        assert_eq!(count(&conn), 3);

        conn.execute_batch("BEGIN").unwrap();
        let shared = names.shared();
        assert_eq!(names.encode(&conn, &pairs(&[("Link", "z")])).unwrap(), r#"["7:z"]"#);
        assert_eq!(shared.get("Link"), Some(7), "the workers have a new name before the commit");
        conn.execute_batch("ROLLBACK").unwrap();
        names.discard();
        assert_eq!(shared.get("Link"), None, "nor after a rollback");
        assert_eq!(shared.get("Annotator"), Some(5));
        assert_eq!(count(&conn), 3);
        // Inserted again, not taken from memory.
        conn.execute("INSERT INTO tag_names (id, name) VALUES (9, 'Link')", []).unwrap();
        assert_eq!(names.encode(&conn, &pairs(&[("Link", "z")])).unwrap(), r#"["9:z"]"#);
        assert_eq!(names.encode(&conn, &TagPairs::new()).unwrap(), "[]");
        // A fresh load reads them all.
        assert_eq!(TagNames::load(&conn).unwrap().ids.len(), 4);
    }
}
