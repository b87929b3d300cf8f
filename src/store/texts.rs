//! The dictionary `game_texts`, as the writer keeps it: the texts' ids in
//! memory, so that storing a game's few-valued columns
//! ([`crate::db::texts`]) looks nothing up in SQL; a text met for the first
//! time is inserted in the import's transaction.
//!
//! The columns are few-valued in the collections pgnindex is made for, but
//! nothing stops a file from naming a new event in every game: past
//! [`CACHED`] texts, the others are looked up in SQL (by the table's
//! unique index), so that memory stays bounded whatever the input.

use std::collections::HashSet;
use std::hash::BuildHasher;
use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension};

use super::encode::shared_ids::{IdMap, SharedIds};

/// Texts whose ids are kept in memory (a few tens of MB at most).
const CACHED: usize = 1 << 18;

/// Texts of the few-valued columns kept in memory beyond [`CACHED`], once
/// looked up in SQL. The texts loaded are the first ids, and in a large
/// database those are mostly players' names: an event or a time control
/// first met after them would otherwise be looked up in SQL in every game
/// that names it, more often as the database grows.
const CACHED_PAST: usize = 1 << 16;

/// Names (sites and players, [`crate::db::texts::NAME_COLUMNS`]) met once
/// that are remembered, by a hash of 8 bytes, to be stored by id when met
/// again; past this many, the set starts again.
const SEEN_ONCE: usize = 1 << 20;

/// Names this short are stored as text: an id would take as many bytes.
pub(crate) const SHORT_NAME: usize = 2;

/// Inserts a text unless it is stored already: by someone else meanwhile
/// (`pgnindex sql --write`), or past the texts kept in memory. Neither an
/// upsert nor `RETURNING`: a statement that may fail half done (an upsert
/// may) has SQLite copy every page it changes into a statement journal
/// first, which made a new text cost as much as a hundred games.
const INSERT_TEXT: &str = "INSERT OR IGNORE INTO game_texts (text) VALUES (?1)";

/// The id of a stored text.
const SELECT_TEXT: &str = "SELECT id FROM game_texts WHERE text = ?1";

/// The texts of `game_texts` by their id.
#[derive(Debug)]
pub struct GameTexts {
    /// The texts' ids, which the workers read too: a text the open
    /// transaction inserted is theirs once the chunk that met it is stored
    /// ([`GameTexts::publish`]), so that the chunks they encode next carry
    /// its id, and not only from the next batch on (the first batch of a
    /// new database holds the whole of most files). An id is the one the
    /// writer gives in game order, so the database is the same whoever
    /// encodes a game; an import stops at a transaction that rolls back,
    /// and its texts are taken back.
    ids: Arc<SharedIds>,
    /// Texts the open transaction gave an id: taken back if it rolls back.
    pending: IdMap,
    /// Those of `pending` not yet in `ids`.
    unpublished: Vec<(String, i64)>,
    /// Texts kept in memory at most.
    cached: usize,
    /// Hashes of the names met once ([`SEEN_ONCE`]).
    seen: HashSet<u64, foldhash::fast::RandomState>,
}

impl Default for GameTexts {
    fn default() -> GameTexts {
        GameTexts {
            ids: Arc::default(),
            pending: IdMap::default(),
            unpublished: Vec::new(),
            cached: CACHED,
            seen: HashSet::default(),
        }
    }
}

impl GameTexts {
    /// Reads the stored texts, the most used first (ids are given in that
    /// order), as many as are kept in memory.
    ///
    /// # Errors
    /// SQLite's.
    pub fn load(conn: &Connection) -> rusqlite::Result<GameTexts> {
        GameTexts::load_at_most(conn, CACHED)
    }

    fn load_at_most(conn: &Connection, cached: usize) -> rusqlite::Result<GameTexts> {
        let mut st = conn.prepare("SELECT text, id FROM game_texts ORDER BY id LIMIT ?1")?;
        let ids: IdMap = st
            .query_map([cached as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let ids = Arc::new(SharedIds::new(ids));
        Ok(GameTexts { ids, cached, ..GameTexts::default() })
    }

    /// The texts' ids, for the workers.
    pub fn shared(&self) -> Arc<SharedIds> {
        Arc::clone(&self.ids)
    }

    /// The id of `text` if it has one.
    fn known(&self, text: &str) -> Option<i64> {
        self.pending.get(text).copied().or_else(|| self.ids.get(text))
    }

    /// Texts with an id in memory.
    fn held(&self) -> usize {
        self.ids.len() + self.unpublished.len()
    }

    /// Gives `text`, given `id` by the open transaction, an id in memory.
    fn hold(&mut self, text: &str, id: i64) {
        self.pending.insert(text.to_string(), id);
        self.unpublished.push((text.to_string(), id));
    }

    /// The id of `text`, inserted into `game_texts` if new.
    ///
    /// # Errors
    /// SQLite's, from inserting it.
    pub fn id(&mut self, conn: &Connection, text: &str) -> rusqlite::Result<i64> {
        if let Some(id) = self.known(text) {
            return Ok(id);
        }
        if self.held() >= self.cached {
            // Past the texts kept in memory, one met is most often stored
            // already: looked up first.
            let id = match stored(conn, text)? {
                Some(id) => id,
                None => insert(conn, text)?,
            };
            if self.held() < self.cached + CACHED_PAST {
                self.hold(text, id);
            }
            return Ok(id);
        }
        let id = insert(conn, text)?;
        self.hold(text, id);
        Ok(id)
    }

    /// The id a name column stores `text` by, or `None` to store the text
    /// itself: a name is stored by id from the second game that names it,
    /// so that a name met once (a lichess game's URL, a player of one
    /// game) takes no dictionary row. Past the texts kept in memory, new
    /// names stay text: no lookup in SQL for each game.
    ///
    /// # Errors
    /// SQLite's, from inserting it.
    pub fn name_id(&mut self, conn: &Connection, text: &str) -> rusqlite::Result<Option<i64>> {
        if text.len() <= SHORT_NAME {
            return Ok(None);
        }
        if let Some(id) = self.known(text) {
            return Ok(Some(id));
        }
        if self.held() >= self.cached {
            return Ok(None);
        }
        if self.seen.len() >= SEEN_ONCE {
            self.seen.clear();
        }
        // A fixed seed: the same input makes the same database.
        if self.seen.insert(foldhash::fast::FixedState::with_seed(0).hash_one(text)) {
            return Ok(None);
        }
        self.id(conn, text).map(Some)
    }

    /// Gives the workers the ids given since the last call: the games
    /// that met them are stored.
    pub fn publish(&mut self) {
        if !self.unpublished.is_empty() {
            self.ids.extend(self.unpublished.drain(..));
        }
    }

    /// The open transaction committed: its texts are stored.
    pub fn committed(&mut self) {
        self.publish();
        self.pending.clear();
    }

    /// The open transaction rolled back: its texts are not stored.
    pub fn discard(&mut self) {
        self.unpublished.clear();
        self.ids.remove(self.pending.drain().map(|(text, _)| text));
    }
}

/// The id of `text` in `game_texts`, inserted if it is not there.
fn insert(conn: &Connection, text: &str) -> rusqlite::Result<i64> {
    if conn.prepare_cached(INSERT_TEXT)?.execute([text])? == 1 {
        return Ok(conn.last_insert_rowid());
    }
    // Ignored, yet not there: only a NULL or a constraint added by hand
    // would do that.
    stored(conn, text)?.ok_or(rusqlite::Error::QueryReturnedNoRows)
}

/// The id of `text` if `game_texts` holds it.
fn stored(conn: &Connection, text: &str) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached(SELECT_TEXT)?.query_row([text], |r| r.get(0)).optional()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_stored_by_id_from_its_second_game() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE game_texts (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
             INSERT INTO game_texts (id, text) VALUES (4, 'Carlsen, Magnus');",
        )
        .unwrap();
        let mut texts = GameTexts::load(&conn).unwrap();
        assert_eq!(texts.name_id(&conn, "Carlsen, Magnus").unwrap(), Some(4), "known");
        assert_eq!(texts.name_id(&conn, "Anand, V.").unwrap(), None, "first game");
        let id = texts.name_id(&conn, "Anand, V.").unwrap();
        assert!(id.is_some_and(|id| id != 4), "second game: {id:?}");
        assert_eq!(texts.name_id(&conn, "Anand, V.").unwrap(), id);
        assert_eq!(texts.name_id(&conn, "?").unwrap(), None);
        assert_eq!(texts.name_id(&conn, "?").unwrap(), None, "too short for an id");
        let mut full = GameTexts::load_at_most(&conn, 2).unwrap();
        assert_eq!(full.name_id(&conn, "Kasparov").unwrap(), None);
        assert_eq!(full.name_id(&conn, "Kasparov").unwrap(), None, "past the texts in memory");
    }

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
        let shared = texts.shared();
        assert_eq!(texts.id(&conn, "Normal").unwrap(), 6);
        assert_eq!(shared.get("Normal"), None, "the workers' once its chunk is stored");
        texts.publish();
        assert_eq!(shared.get("Normal"), Some(6));
        assert_eq!(texts.id(&conn, "Rapid").unwrap(), 7);
        conn.execute_batch("ROLLBACK").unwrap();
        texts.discard();
        assert_eq!((shared.get("Normal"), shared.get("Rapid")), (None, None), "rolled back");
        assert_eq!(shared.get("Blitz"), Some(5));
        texts.publish();
        assert_eq!(shared.get("Rapid"), None);
        // Inserted again, not taken from memory.
        conn.execute("INSERT INTO game_texts (id, text) VALUES (9, 'Normal')", []).unwrap();
        assert_eq!(texts.id(&conn, "Normal").unwrap(), 9);
        assert_eq!(GameTexts::load(&conn).unwrap().ids.len(), 3);
    }

    #[test]
    fn texts_past_the_cache_are_found_and_stored_in_sql() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE game_texts (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
             INSERT INTO game_texts (id, text) VALUES (1, 'a'), (2, 'b'), (3, 'c');",
        )
        .unwrap();
        let mut texts = GameTexts::load_at_most(&conn, 2).unwrap();
        assert_eq!(texts.ids.len(), 2, "the most used two are in memory");
        assert_eq!(texts.id(&conn, "c").unwrap(), 3);
        assert_eq!(texts.id(&conn, "d").unwrap(), 4);
        assert_eq!(texts.id(&conn, "d").unwrap(), 4, "stored once");
        assert_eq!(texts.id(&conn, "a").unwrap(), 1);
        assert_eq!(texts.held(), 4, "looked up once, then kept");
        // Kept: found in memory, not in SQL (a change by hand is not seen).
        conn.execute("UPDATE game_texts SET text = 'd2' WHERE id = 4", []).unwrap();
        assert_eq!(texts.id(&conn, "d").unwrap(), 4);
        for i in 0..CACHED_PAST + 10 {
            texts.id(&conn, &format!("event {i}")).unwrap();
        }
        assert_eq!(texts.held(), 2 + CACHED_PAST, "memory stays at its bound");
        let last = format!("event {}", CACHED_PAST + 9);
        let id: i64 = conn
            .query_row("SELECT id FROM game_texts WHERE text = ?1", [&last], |r| r.get(0))
            .unwrap();
        assert_eq!(texts.id(&conn, &last).unwrap(), id, "past both bounds: found in SQL");
        texts.committed();
        assert_eq!(texts.ids.len(), 2 + CACHED_PAST, "kept for the workers too");
        let n: i64 = conn.query_row("SELECT count(*) FROM game_texts", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 4 + CACHED_PAST as i64 + 10);
    }
}
