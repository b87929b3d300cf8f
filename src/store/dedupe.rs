//! [`DedupeIndex`]: finds the stored games that may equal a new one, by
//! their dedupe key (`games.dedupe_key`).
//!
//! The keys live in segments, as the position index does: each import
//! batch writes its keys, sorted, into a new WITHOUT ROWID table
//! `dedupe_NNNNNN (key, game_id)` (an append to an empty B-tree), and
//! [`FANOUT`] segments of one level are merged into one of the next level.
//! A single index on random keys (schema 3) had every batch rewrite pages
//! all over it: at a million games nearly all of its pages, written twice
//! through the log, per batch of 25,000 games.
//!
//! A lookup first asks an in-memory Bloom filter (`bloom::Bloom`) of every stored key,
//! so that a new game — almost every game — costs no B-tree search; only
//! a key the filter may hold is looked up in the batch's pending keys and
//! in each segment. The filter is made on the first lookup after the
//! first commit of an import (an import of a few games into a large
//! database searches the segments directly and never reads every key):
//! the filter the last import kept in `dedupe_filter` ([`DedupeIndex::save`]),
//! with the keys of the segments it does not hold (`in_filter` = 0: an
//! import cut before its end) added, or else one built from every segment.
//! It grows by doubling up to [`MAX_FILTER_BITS`] (built again from every
//! segment), and beyond that answers "maybe" more often: slower, never
//! wrong.

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior, MAIN_DB};

use super::format::bloom::{Bloom, BITS_PER_KEY};
use super::format::positions::{checked_name, segment_name};
use super::image::Leaves;
use super::segments::{copy_merged, drop_unregistered, insert_rows, level_for};
use crate::db::GameId;

/// Segments of one level merged together. Lookups search every segment, so
/// fewer than the position index's: the rows are small and a merge cheap.
pub const FANOUT: usize = 8;

/// The filter's largest size: 128 MiB, 16 bits for each of 67 million keys.
pub const MAX_FILTER_BITS: u64 = 1 << 30;

/// Keys the filter has room for when first built, at least: 128 KiB, what a
/// small database keeps of it.
const MIN_FILTER_KEYS: u64 = 1 << 16;

/// Level of a segment no merge reaches (schema 4 moved the keys stored
/// before it into one).
const TOP_LEVEL: i64 = 1000;

/// The dedupe keys of the stored games and of the current batch.
#[derive(Debug)]
pub struct DedupeIndex {
    /// The registered segment tables.
    segments: Vec<Segment>,
    /// Keys stored in the segments.
    stored: u64,
    /// The current batch's keys: the first game with each key...
    pending: HashMap<i64, GameId, foldhash::fast::RandomState>,
    /// ... and any further game of the batch with a key already pending.
    pending_more: Vec<(i64, GameId)>,
    /// Every key stored or pending, once built.
    filter: Option<Bloom>,
    /// Whether a batch was committed since open.
    committed: bool,
    /// Segments per merge.
    fanout: usize,
    /// The filter's largest size ([`MAX_FILTER_BITS`]).
    max_bits: u64,
}

impl DedupeIndex {
    /// Opens the index of the database: drops the tables of a cut merge and
    /// empty segments, and lists the others. Runs outside any transaction;
    /// the caller holds the import lock.
    ///
    /// # Errors
    /// Database errors.
    pub fn open(conn: &Connection) -> rusqlite::Result<DedupeIndex> {
        DedupeIndex::with_fanout(conn, FANOUT)
    }

    fn with_fanout(conn: &Connection, fanout: usize) -> rusqlite::Result<DedupeIndex> {
        // Empty segments (the migration's, in a new database) first lose
        // their registration, then every unregistered table goes.
        conn.execute("DELETE FROM dedupe_segments WHERE rows = 0", [])?;
        drop_unregistered(conn, "dedupe_segments", "dedupe")?;
        let mut index = DedupeIndex {
            segments: Vec::new(),
            stored: 0,
            pending: HashMap::default(),
            pending_more: Vec::new(),
            filter: None,
            committed: false,
            fanout: fanout.max(2),
            max_bits: MAX_FILTER_BITS,
        };
        index.reload(conn)?;
        Ok(index)
    }

    /// Reads the list of segments.
    fn reload(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let mut st =
            conn.prepare("SELECT name, rows, in_filter FROM dedupe_segments ORDER BY id")?;
        let rows = st.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, bool>(2)?))
        })?;
        self.segments.clear();
        self.stored = 0;
        for row in rows {
            let (name, count, in_filter) = row?;
            let name = checked_name("dedupe", name)?;
            let lookup = format!("SELECT game_id FROM {name} WHERE key = ?1");
            self.segments.push(Segment { name, lookup, rows: count as u64, in_filter });
            self.stored += count as u64;
        }
        Ok(())
    }

    /// Puts into `out` the ids of the games, stored or in the batch, whose
    /// key is `key`: those that may be the same game. The batch's first
    /// ([`DedupeIndex::batch_candidates`]), then the stored ones
    /// ([`DedupeIndex::stored_candidates`]); the importer asks the two in
    /// turn, stopping at the first that holds the game.
    #[cfg(test)]
    pub(crate) fn candidates(
        &mut self,
        conn: &Connection,
        key: i64,
        out: &mut Vec<GameId>,
    ) -> rusqlite::Result<()> {
        let mut stored = Vec::new();
        if self.batch_candidates(conn, key, out)? {
            self.stored_candidates(conn, key, &mut stored)?;
        }
        out.extend(stored);
        Ok(())
    }

    /// Puts into `out` the ids of the batch's games whose key is `key`; `false`
    /// when no stored game has it either (the filter says so), so that the
    /// segments need no search. A game the batch already holds is found
    /// without one.
    ///
    /// # Errors
    /// Database errors, from making the filter.
    pub fn batch_candidates(
        &mut self,
        conn: &Connection,
        key: i64,
        out: &mut Vec<GameId>,
    ) -> rusqlite::Result<bool> {
        out.clear();
        if self.filter.is_none() && self.committed {
            self.make_filter(conn)?;
        }
        if let Some(filter) = &self.filter {
            if !filter.may_contain(key as u64) {
                return Ok(false);
            }
        }
        if let Some(&id) = self.pending.get(&key) {
            out.push(id);
            out.extend(self.pending_more.iter().filter(|p| p.0 == key).map(|p| p.1));
        }
        Ok(true)
    }

    /// Puts into `out` the ids of the stored games whose key is `key`: a
    /// search of each segment.
    ///
    /// # Errors
    /// Database errors.
    pub fn stored_candidates(
        &self,
        conn: &Connection,
        key: i64,
        out: &mut Vec<GameId>,
    ) -> rusqlite::Result<()> {
        out.clear();
        for segment in &self.segments {
            let mut st = conn.prepare_cached(&segment.lookup)?;
            let ids = st.query_map([key], |r| r.get::<_, GameId>(0))?;
            for id in ids {
                out.push(id?);
            }
        }
        Ok(())
    }

    /// Adds the key of a game stored in the current batch.
    pub fn insert(&mut self, key: i64, game_id: GameId) {
        if let Some(filter) = &mut self.filter {
            filter.insert(key as u64);
        }
        if let Some(&first) = self.pending.get(&key) {
            if first != game_id {
                self.pending_more.push((key, game_id));
            }
        } else {
            self.pending.insert(key, game_id);
        }
    }

    /// Makes the filter of every stored and pending key: the kept one with
    /// the keys it lacks added, if it has room for them or is of the largest
    /// size (a new one would be as full), else a new one with room for twice
    /// the keys stored.
    fn make_filter(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let kept = read_kept(conn)?;
        let missing: u64 =
            self.segments.iter().filter(|s| !s.in_filter).map(|s| s.rows).sum::<u64>()
                + (self.pending.len() + self.pending_more.len()) as u64;
        match kept {
            Some(filter)
                if (filter.inserted() + missing).saturating_mul(BITS_PER_KEY) <= filter.bits()
                    || filter.bits() >= self.max_bits =>
            {
                self.fill_filter(conn, filter, false)
            }
            _ => self.build_filter(conn, (self.stored * 2).max(MIN_FILTER_KEYS)),
        }
    }

    /// Builds the filter from every stored and pending key, with room for
    /// `keys` keys.
    fn build_filter(&mut self, conn: &Connection, keys: u64) -> rusqlite::Result<()> {
        let filter = Bloom::with_bits(keys.saturating_mul(BITS_PER_KEY).min(self.max_bits));
        self.fill_filter(conn, filter, true)
    }

    /// Adds to `filter` the pending keys and those of the segments it does
    /// not hold yet (every segment if `all`), and makes it the filter.
    fn fill_filter(
        &mut self,
        conn: &Connection,
        mut filter: Bloom,
        all: bool,
    ) -> rusqlite::Result<()> {
        // In runs: a key's bits set between two reads of SQLite waited for
        // its cache miss alone.
        let mut run = Vec::with_capacity(4096);
        for segment in self.segments.iter().filter(|s| all || !s.in_filter) {
            let mut st = conn.prepare(&format!("SELECT key FROM {}", segment.name))?;
            let mut rows = st.query([])?;
            while let Some(row) = rows.next()? {
                run.push(row.get::<_, i64>(0)? as u64);
                if run.len() == run.capacity() {
                    filter.insert_all(&run);
                    run.clear();
                }
            }
        }
        filter.insert_all(&run);
        for key in self.pending.keys().chain(self.pending_more.iter().map(|p| &p.0)) {
            filter.insert(*key as u64);
        }
        self.filter = Some(filter);
        Ok(())
    }

    /// Keeps the filter, if this import made one, for the next import: in
    /// its own transaction, with every segment marked as held by it (the
    /// filter holds every key stored, and the keys of batches rolled back,
    /// which cost a lookup, no error). Called outside any transaction,
    /// after the import's last commit.
    ///
    /// # Errors
    /// Database errors.
    pub fn save(&self, conn: &Connection) -> rusqlite::Result<()> {
        let Some(filter) = &self.filter else { return Ok(()) };
        let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
        // Written in pieces into a blob of its size: no copy of the whole.
        let words = filter.words();
        tx.execute(
            "INSERT OR REPLACE INTO dedupe_filter (id, inserted, words) VALUES (1, ?1, zeroblob(?2))",
            params![filter.inserted() as i64, (words.len() * 8) as i64],
        )?;
        let mut blob = tx.blob_open(MAIN_DB, c"dedupe_filter", c"words", 1, false)?;
        let mut bytes = Vec::with_capacity(PIECE_WORDS * 8);
        for (i, piece) in words.chunks(PIECE_WORDS).enumerate() {
            bytes.clear();
            bytes.extend(piece.iter().flat_map(|w| w.to_le_bytes()));
            blob.write_at(&bytes, i * PIECE_WORDS * 8)?;
        }
        blob.close()?;
        tx.execute("UPDATE dedupe_segments SET in_filter = 1 WHERE in_filter = 0", [])?;
        tx.commit()
    }

    /// Writes the batch's keys as a new segment. Runs inside the batch's
    /// transaction; [`DedupeIndex::committed`] follows its commit,
    /// [`DedupeIndex::discard`] its rollback. The segment's level is its
    /// size class against `batch`, the keys of a full batch
    /// ([`super::segments::level_for`]), so that the segments of small
    /// imports merge with each other before they meet full ones.
    ///
    /// With `page_size`, the database's, for a database that takes pages
    /// written by hand, the segment's table is created empty and its rows
    /// come back as index leaves with the table's root, to be appended by
    /// hand as the transaction's last writes ([`super::append::append_index`]):
    /// SQL inserts of the sorted rows were a tenth of the writer's time.
    /// Else the rows are inserted by SQL.
    ///
    /// # Errors
    /// Database errors.
    pub fn write_batch(
        &mut self,
        conn: &Connection,
        batch: usize,
        page_size: Option<usize>,
    ) -> rusqlite::Result<Option<(u32, Leaves)>> {
        if self.pending.is_empty() {
            return Ok(None);
        }
        let mut rows: Vec<(i64, GameId)> = self.pending.iter().map(|(&k, &id)| (k, id)).collect();
        rows.extend_from_slice(&self.pending_more);
        rows.sort_unstable();
        let (id, name) = new_segment(conn)?;
        conn.execute(
            "INSERT INTO dedupe_segments (id, name, level, rows) VALUES (?1, ?2, ?3, ?4)",
            params![id, name, level_for(rows.len(), batch, self.fanout), rows.len() as i64],
        )?;
        if let Some(page_size) = page_size {
            let root: u32 = conn.query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = ?1",
                [&name],
                |r| r.get(0),
            )?;
            let mut leaves = Leaves::for_index(page_size, false);
            for &(key, game) in &rows {
                leaves.push_two_integers(key, i64::from(game));
            }
            return Ok(Some((root, leaves)));
        }
        insert_rows(conn, &name, 2, &rows, |st, at, (key, game)| {
            st.raw_bind_parameter(at, key)?;
            st.raw_bind_parameter(at + 1, game)
        })?;
        Ok(None)
    }

    /// After the batch's commit: its keys are in a segment.
    ///
    /// # Errors
    /// Database errors.
    pub fn committed(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        self.pending.clear();
        self.pending_more.clear();
        self.committed = true;
        self.reload(conn)?;
        if let Some(filter) = &self.filter {
            if filter.inserted() * BITS_PER_KEY > filter.bits() && filter.bits() < self.max_bits {
                self.build_filter(conn, filter.inserted() * 2)?;
            }
        }
        Ok(())
    }

    /// After a rollback: the batch's keys are gone (the filter may still
    /// answer "maybe" for them, which costs a lookup, no error).
    pub fn discard(&mut self) {
        self.pending.clear();
        self.pending_more.clear();
    }

    /// Merges every level that holds the fan-out's number of segments,
    /// lowest first. Runs outside any transaction, calling `after_commit`
    /// after each of its own.
    ///
    /// # Errors
    /// Database errors.
    pub fn compact(
        &mut self,
        conn: &Connection,
        after_commit: &dyn Fn(&Connection) -> rusqlite::Result<()>,
    ) -> rusqlite::Result<()> {
        let mut merged = false;
        while let Some(level) = conn
            .query_row(
                "SELECT level FROM dedupe_segments WHERE level < ?2 GROUP BY level \
                 HAVING count(*) >= ?1 ORDER BY level LIMIT 1",
                params![self.fanout as i64, TOP_LEVEL],
                |r| r.get::<_, i64>(0),
            )
            .optional()?
        {
            self.merge(conn, level, after_commit)?;
            merged = true;
        }
        if merged {
            self.reload(conn)?;
        }
        Ok(())
    }

    /// Merges the segments of `level` into one of the next level.
    fn merge(
        &self,
        conn: &Connection,
        level: i64,
        after_commit: &dyn Fn(&Connection) -> rusqlite::Result<()>,
    ) -> rusqlite::Result<()> {
        let parts: Vec<String> = conn
            .prepare("SELECT name FROM dedupe_segments WHERE level = ?1 ORDER BY id")?
            .query_map([level], |r| checked_name("dedupe", r.get(0)?))?
            .collect::<Result<_, _>>()?;
        // The merged keys are in the kept filter if every part's are.
        let in_filter: bool = conn.query_row(
            "SELECT min(in_filter) FROM dedupe_segments WHERE level = ?1",
            [level],
            |r| r.get(0),
        )?;
        let (id, name) = new_segment(conn)?;
        let arms: Vec<String> =
            parts.iter().map(|part| format!("SELECT key, game_id FROM {part}")).collect();
        let total = copy_merged(
            conn,
            &name,
            "key, game_id",
            &["key", "game_id"],
            &arms,
            "game_id",
            after_commit,
        )?;
        let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
        for part in &parts {
            tx.execute("DELETE FROM dedupe_segments WHERE name = ?1", [part])?;
            tx.execute_batch(&format!("DROP TABLE {part}"))?;
        }
        tx.execute(
            "INSERT INTO dedupe_segments (id, name, level, rows, in_filter) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, name, level + 1, total, in_filter],
        )?;
        tx.commit()?;
        after_commit(conn)
    }
}

/// Words of the filter read or written at a time (64 KiB).
const PIECE_WORDS: usize = 1 << 13;

/// The filter kept by an earlier import, if one reads whole: read in
/// pieces, so that no copy of the whole is made beside it.
fn read_kept(conn: &Connection) -> rusqlite::Result<Option<Bloom>> {
    let row = conn
        .query_row(
            "SELECT inserted, typeof(words) = 'blob', length(words) FROM dedupe_filter WHERE id = 1",
            [],
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, bool>(1)?, r.get::<_, i64>(2)?)),
        )
        .optional()?;
    let Some((inserted, true, bytes)) = row else { return Ok(None) };
    let (Ok(inserted), Ok(bytes)) = (u64::try_from(inserted), usize::try_from(bytes)) else {
        return Ok(None);
    };
    if !bytes.is_multiple_of(8) {
        return Ok(None);
    }
    let blob = conn.blob_open(MAIN_DB, c"dedupe_filter", c"words", 1, true)?;
    let mut words = Vec::with_capacity(bytes / 8);
    let mut piece = vec![0u8; PIECE_WORDS * 8];
    let mut at = 0;
    while at < bytes {
        let n = (bytes - at).min(piece.len());
        blob.read_at_exact(&mut piece[..n], at)?;
        words.extend(
            piece[..n]
                .chunks_exact(8)
                .map(|w| u64::from_le_bytes(w.try_into().expect("chunks of eight bytes"))),
        );
        at += n;
    }
    Ok(Bloom::from_words(words, inserted))
}

/// A registered segment table.
#[derive(Debug)]
struct Segment {
    name: String,
    /// The statement that looks a key up in it.
    lookup: String,
    rows: u64,
    /// Its keys are in the kept filter (`dedupe_filter`).
    in_filter: bool,
}

/// Creates the next segment table (not yet registered): its id and name.
fn new_segment(conn: &Connection) -> rusqlite::Result<(i64, String)> {
    // Past every registered id (a cut merge's table was dropped at open).
    let id: i64 =
        conn.query_row("SELECT coalesce(max(id), 0) + 1 FROM dedupe_segments", [], |r| r.get(0))?;
    let name = segment_name("dedupe", id);
    conn.execute_batch(&format!(
        "CREATE TABLE {name} (key INTEGER NOT NULL, game_id INTEGER NOT NULL, \
         PRIMARY KEY (key, game_id)) WITHOUT ROWID"
    ))?;
    Ok((id, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys with many repeats (a few hundred distinct), so that lookups
    /// find several games per key across segments and the batch.
    fn key(i: i64) -> i64 {
        (i * 7919) % 301 - 150
    }

    fn id(i: i64) -> GameId {
        GameId::try_from(i).unwrap()
    }

    fn sorted(v: Vec<GameId>) -> Vec<i64> {
        let mut v: Vec<i64> = v.into_iter().map(i64::from).collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn every_game_with_the_key_is_found_through_merges_and_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        let mut index = DedupeIndex::with_fanout(&conn, 3).unwrap();
        assert!(index.segments.is_empty(), "the empty segment of a new database is dropped");
        let mut out = Vec::new();
        let mut next = 1i64;
        let expect =
            |upto: i64, k: i64| -> Vec<i64> { (1..upto).filter(|&i| key(i) == k).collect() };
        for batch in 0..20 {
            conn.execute_batch("BEGIN IMMEDIATE").unwrap();
            // Batches of more than 301 games repeat keys within the batch.
            for _ in 0..(37 + batch * 31) {
                // Before the game is added: every earlier game with its
                // key, from segments and from the batch.
                index.candidates(&conn, key(next), &mut out).unwrap();
                assert_eq!(sorted(out.clone()), expect(next, key(next)), "game {next}");
                index.insert(key(next), id(next));
                next += 1;
            }
            // Every batch full: the merges of the levels from 0 up.
            index.write_batch(&conn, 37 + batch as usize * 31, None).unwrap();
            conn.execute_batch("COMMIT").unwrap();
            index.committed(&conn).unwrap();
            index.compact(&conn, &|_| Ok(())).unwrap();
            assert!(index.segments.len() <= 3 * 2 + 2, "{:?}", index.segments);
        }
        assert!(index.filter.is_some(), "built after the first commit");
        let levels: i64 =
            conn.query_row("SELECT max(level) FROM dedupe_segments", [], |r| r.get(0)).unwrap();
        assert!(levels >= 2, "merged twice over");
        let stored: i64 =
            conn.query_row("SELECT sum(rows) FROM dedupe_segments", [], |r| r.get(0)).unwrap();
        assert_eq!(stored, next - 1);

        // A batch rolled back leaves nothing behind.
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        index.insert(key(next), id(next));
        index.write_batch(&conn, 1, None).unwrap();
        conn.execute_batch("ROLLBACK").unwrap();
        index.discard();

        // A merge cut before its swap leaves an unregistered table: dropped
        // at the next open, and the keys read the same.
        conn.execute_batch(
            "CREATE TABLE dedupe_999999 (key INTEGER NOT NULL, game_id INTEGER NOT NULL, \
             PRIMARY KEY (key, game_id)) WITHOUT ROWID; INSERT INTO dedupe_999999 VALUES (5, 5)",
        )
        .unwrap();
        let mut reopened = DedupeIndex::with_fanout(&conn, 3).unwrap();
        let orphan: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master WHERE name = 'dedupe_999999'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(orphan, 0);
        for k in -150..=150 {
            reopened.candidates(&conn, k, &mut out).unwrap();
            assert_eq!(sorted(out.clone()), expect(next, k), "key {k}");
        }
    }

    #[test]
    fn the_kept_filter_is_loaded_and_the_keys_it_lacks_added() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        let spread = |i: i64| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) as i64;
        let commit = |index: &mut DedupeIndex, games: std::ops::Range<i64>| {
            conn.execute_batch("BEGIN IMMEDIATE").unwrap();
            for i in games {
                index.insert(spread(i), id(i + 1));
            }
            index.write_batch(&conn, 40, None).unwrap();
            conn.execute_batch("COMMIT").unwrap();
            index.committed(&conn).unwrap();
            index.compact(&conn, &|_| Ok(())).unwrap();
        };
        let mut out = Vec::new();

        // An import that keeps its filter, of a size no new one has.
        let mut first = DedupeIndex::with_fanout(&conn, 2).unwrap();
        commit(&mut first, 0..40);
        first.build_filter(&conn, 1 << 22).unwrap();
        for batch in 1..5 {
            commit(&mut first, batch * 40..batch * 40 + 40);
        }
        let kept_bits = first.filter.as_ref().unwrap().bits();
        first.save(&conn).unwrap();
        let unheld = |conn: &Connection| -> i64 {
            conn.query_row("SELECT count(*) FROM dedupe_segments WHERE in_filter = 0", [], |r| {
                r.get(0)
            })
            .unwrap()
        };
        assert_eq!(unheld(&conn), 0);

        // An import cut before its end keeps no filter: its segments are
        // not held.
        let mut cut = DedupeIndex::with_fanout(&conn, 3).unwrap();
        commit(&mut cut, 200..240);
        commit(&mut cut, 240..280);
        cut.candidates(&conn, spread(0), &mut out).unwrap();
        assert_eq!(out, [id(1)]);
        drop(cut);
        assert!(unheld(&conn) > 0);

        // The next import loads the kept filter and adds the keys it lacks.
        let mut next = DedupeIndex::with_fanout(&conn, 3).unwrap();
        commit(&mut next, 280..320);
        let unheld_rows: u64 = next.segments.iter().filter(|s| !s.in_filter).map(|s| s.rows).sum();
        assert!(unheld_rows < 320, "some segments held");
        for i in 0..320 {
            next.candidates(&conn, spread(i), &mut out).unwrap();
            assert_eq!(out, [id(i + 1)], "game {}", i + 1);
        }
        assert_eq!(next.filter.as_ref().unwrap().bits(), kept_bits, "the kept filter");
        assert_eq!(next.filter.as_ref().unwrap().inserted(), 200 + unheld_rows, "read: the unheld");
        // A merged segment is held only if all its parts were.
        let marks: Vec<(bool, i64)> = next
            .segments
            .iter()
            .map(|s| {
                let last: i64 = conn
                    .query_row(&format!("SELECT max(game_id) FROM {}", s.name), [], |r| r.get(0))
                    .unwrap();
                (s.in_filter, last)
            })
            .collect();
        assert!(marks.iter().all(|&(held, last)| held == (last <= 200)), "{marks:?}");
        assert!(marks.iter().any(|&(held, _)| !held), "{marks:?}");
        next.save(&conn).unwrap();
        assert_eq!(unheld(&conn), 0);

        // A kept filter without room for the keys it lacks is built anew.
        conn.execute("UPDATE dedupe_filter SET inserted = ?1", [(kept_bits / BITS_PER_KEY) as i64])
            .unwrap();
        let mut full = DedupeIndex::with_fanout(&conn, 2).unwrap();
        commit(&mut full, 320..321);
        full.candidates(&conn, spread(5), &mut out).unwrap();
        assert_eq!(out, [id(6)]);
        assert_eq!(full.filter.as_ref().unwrap().inserted(), 321, "every key read once");
        full.save(&conn).unwrap();

        // A kept filter of the largest size is loaded however full: a new
        // one could be no larger.
        let mut largest = DedupeIndex::with_fanout(&conn, 2).unwrap();
        largest.max_bits = 4096;
        commit(&mut largest, 321..322);
        largest.build_filter(&conn, 1 << 20).unwrap();
        assert_eq!(largest.filter.as_ref().unwrap().bits(), 4096);
        commit(&mut largest, 322..323);
        largest.save(&conn).unwrap();
        let mut over_full = DedupeIndex::with_fanout(&conn, 2).unwrap();
        over_full.max_bits = 4096;
        commit(&mut over_full, 323..324);
        let unheld: u64 = over_full.segments.iter().filter(|s| !s.in_filter).map(|s| s.rows).sum();
        assert!(unheld < 324, "some segments held");
        for i in (0..324).step_by(7) {
            over_full.candidates(&conn, spread(i), &mut out).unwrap();
            assert_eq!(out, [id(i + 1)], "game {}", i + 1);
        }
        let filter = over_full.filter.as_ref().unwrap();
        assert_eq!((filter.bits(), filter.inserted()), (4096, 323 + unheld), "loaded, not rebuilt");
    }

    #[test]
    fn the_filter_grows_and_still_finds_every_key() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        let mut index = DedupeIndex::open(&conn).unwrap();
        let spread = |i: i64| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) as i64;
        let mut out = Vec::new();
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        index.insert(spread(0), id(1));
        index.write_batch(&conn, 1, None).unwrap();
        conn.execute_batch("COMMIT").unwrap();
        index.committed(&conn).unwrap();
        index.candidates(&conn, spread(1), &mut out).unwrap();
        let first_bits = index.filter.as_ref().unwrap().bits();
        let n = (first_bits / BITS_PER_KEY) as i64 + 10;
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        for i in 1..=n {
            index.insert(spread(i), id(i + 1));
        }
        index.write_batch(&conn, 1, None).unwrap();
        conn.execute_batch("COMMIT").unwrap();
        index.committed(&conn).unwrap();
        assert!(index.filter.as_ref().unwrap().bits() > first_bits, "the filter doubled");
        for i in (0..=n).step_by(997) {
            index.candidates(&conn, spread(i), &mut out).unwrap();
            assert_eq!(out, [id(i + 1)]);
        }
    }
}
