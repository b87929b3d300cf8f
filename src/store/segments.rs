//! The position index as segments: each import batch writes its position
//! rows, sorted by key, into a new WITHOUT ROWID table, copied whole from
//! an image of the table ([`SegmentImage`], [`super::image`]), which fills
//! every page;
//! the `positions` view is the UNION ALL of the segments, so that
//! `WHERE hash = ?` searches each segment by its primary key. When
//! [`FANOUT`] segments of one level accumulate, they are merged, in key
//! order, into one segment of the next level (a log-structured merge):
//! every row is rewritten once per level, never per batch.
//!
//! A segment's level says its size: level 0 holds about one full import
//! batch, level L about [`FANOUT`]^L of them, and the segment of a small
//! import starts below 0 (see [`level_for`]), so that it merges with other
//! small ones, not with full batches. An import merges at most
//! [`MERGE_RATIO`] rows for each row it writes: a merge larger than what an
//! import has paid for waits for a larger import (or `pgnindex vacuum`),
//! unless its level has grown to [`MAX_PER_LEVEL`] segments. So importing a
//! small file into a large database never waits for a merge of the large
//! database's segments but at that bound.
//!
//! A merge copies in transactions of many rows (page by page,
//! [`super::merger`], where the database takes pages written by hand;
//! else by SQL, `MERGE_CHUNK` rows at a time) into a table
//! that is not yet registered, then swaps it in with one small
//! transaction; a kill during the copy leaves an orphan table that
//! [`drop_orphans`] removes at the next import.

use std::fs::File;
use std::sync::Arc;

use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};

use super::append;
use super::format::positions::{
    checked_name, corrupt, live, pack_gpm, segment_glob, segment_name, segments, unpack_ply_move,
    view_sql, Layout, Segment,
};
use super::image::{self, ImageBuilder, ImageSlot, Leaves, Record, RowSink, Value};
use super::merger;
use crate::db::GameId;

/// Segments of one level merged together.
pub const FANOUT: usize = 16;
/// Rows an import may merge for each position row it writes.
pub const MERGE_RATIO: u64 = FANOUT as u64;
/// Segments a level may hold before it is merged whatever the budget.
pub const MAX_PER_LEVEL: usize = 3 * FANOUT;
/// The lowest level a new segment gets.
pub(super) const MIN_LEVEL: i64 = -4;
/// Rows copied per transaction while merging.
const MERGE_CHUNK: i64 = 4 << 20;
/// Position rows per INSERT statement: one statement run per row costs
/// more in binding, stepping and cursor setup than the B-tree insert.
const ROWS_PER_INSERT: usize = 128;

/// A position row waiting for its batch's commit (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingPosition {
    /// Polyglot key as SQLite's signed integer.
    pub hash: i64,
    /// The game.
    pub game_id: GameId,
    /// Half-moves before the position.
    pub ply: u16,
    /// [`crate::notation::uci::Uci::code`] of the next move, [`NO_MOVE`]
    /// at the end.
    pub next_move: u16,
}

/// `next_move` of a final position (stored as NULL).
pub const NO_MOVE: u16 = u16::MAX;

/// The FENs of a batch, in (game, ply) order, for `--with-fens`.
pub type Fens = Vec<(GameId, u16, String)>;

/// A segment table of `layout`. Each row is its key: `WITHOUT ROWID`
/// stores it once, in the primary key's B-tree.
fn table_sql(name: &str, with_fens: bool, layout: Layout) -> String {
    let columns: Vec<String> =
        layout.key().iter().map(|c| format!("{c} INTEGER NOT NULL")).collect();
    format!(
        "CREATE TABLE {name} ({}{}, PRIMARY KEY ({})) WITHOUT ROWID",
        columns.join(", "),
        if with_fens { ", fen TEXT" } else { "" },
        layout.key().join(", ")
    )
}

impl PendingPosition {
    /// The packed `gpm` column.
    pub(super) fn gpm(self) -> i64 {
        let next_move = (self.next_move != NO_MOVE).then_some(self.next_move);
        pack_gpm(self.game_id, self.ply, next_move)
    }
}

/// The next segment's id and table name.
fn next_segment(conn: &Connection) -> rusqlite::Result<(i64, String)> {
    let id: i64 =
        conn.query_row("SELECT coalesce(max(id), 0) + 1 FROM position_segments", [], |r| r.get(0))?;
    Ok((id, segment_name("positions", id)))
}

/// The level of a new segment of `rows` rows when a full batch holds
/// `batch` rows and `fanout` segments of a level merge into one: the whole
/// power of `fanout` nearest to `rows / batch`, at most 0 (a full batch)
/// and at least [`MIN_LEVEL`].
pub fn level_for(rows: usize, batch: usize, fanout: usize) -> i64 {
    let (mut level, mut size) = (0, batch.max(1) as f64);
    // Down one level while `rows` is nearer (in ratio) to the size below.
    while level > MIN_LEVEL && (rows as f64) * (fanout as f64).sqrt() < size {
        level -= 1;
        size /= fanout as f64;
    }
    level
}

/// A batch's position rows, in key order, written as they come into the
/// image of a segment table ([`super::image`]), which [`write_segment`]
/// writes as the table's pages or copies whole.
#[derive(Debug)]
pub struct SegmentImage {
    builder: ImageBuilder,
    page_size: usize,
    record: Record,
    fens: Arc<Fens>,
    last: Option<(i64, i64)>,
    /// A row not after the one before it: the image is refused.
    disorder: Option<(i64, i64)>,
    /// Distinct hashes in the image.
    hashes: u64,
}

/// The keys of the rows encoded so far: the first, the last, and the
/// first that did not come after the one before; and how many times the
/// hash changed from one row to the next (the first row's counts).
#[derive(Debug, Clone, Copy)]
struct Order {
    first: Option<(i64, i64)>,
    last: Option<(i64, i64)>,
    disorder: Option<(i64, i64)>,
    hashes: u64,
}

/// Encodes `rows` as a segment's records (with their FEN from `fens`, if
/// any) for `sink`, noting their order.
fn encode_rows(
    rows: &[PendingPosition],
    fens: &Fens,
    record: &mut Record,
    mut order: Order,
    sink: &mut impl RowSink,
) -> Order {
    for &p in rows {
        let key = (p.hash, p.gpm());
        if order.last.is_some_and(|last| last >= key) {
            order.disorder.get_or_insert(key);
        }
        if order.last.is_none_or(|last| last.0 != key.0) {
            order.hashes += 1;
        }
        order.first.get_or_insert(key);
        order.last = Some(key);
        if fens.is_empty() {
            sink.push_two_integers(key.0, key.1);
            continue;
        }
        let fen = fens
            .binary_search_by_key(&(p.game_id, p.ply), |f| (f.0, f.1))
            .ok()
            .map_or(Value::Null, |i| Value::Text(&fens[i].2));
        sink.push(record.encode(&[Value::Integer(key.0), Value::Integer(key.1), fen]));
    }
    order
}

/// A stretch of a segment's rows in key order, filled apart from the
/// image (on another thread) and appended to it ([`SegmentImage::append`]).
#[derive(Debug)]
pub struct SegmentStretch {
    leaves: Leaves,
    record: Record,
    fens: Arc<Fens>,
    order: Order,
}

impl SegmentStretch {
    /// Adds the rows `rows`, which follow the rows added before in key
    /// order.
    pub fn push(&mut self, rows: &[PendingPosition]) {
        self.order = encode_rows(rows, &self.fens, &mut self.record, self.order, &mut self.leaves);
    }

    /// The filled stretch, without the image's FENs.
    pub fn filled(self) -> FilledStretch {
        FilledStretch { leaves: self.leaves, order: self.order }
    }
}

/// A [`SegmentStretch`] filled, to append.
#[derive(Debug)]
pub struct FilledStretch {
    leaves: Leaves,
    order: Order,
}

/// The image of a segment's rows, ready to be copied.
#[derive(Debug)]
pub struct BuiltSegment {
    image: Vec<u8>,
    rows: usize,
    with_fens: bool,
    /// Bytes per page of `image`.
    page_size: usize,
    /// Distinct hashes among the rows.
    hashes: u64,
}

impl BuiltSegment {
    /// Rows in the image.
    pub fn rows(&self) -> usize {
        self.rows
    }
}

impl SegmentImage {
    /// An empty image; with the FENs of the batch's positions if `fens`
    /// holds any (`--with-fens`).
    pub fn new(fens: Fens) -> SegmentImage {
        SegmentImage::with_page_size(fens, image::PAGE_SIZE)
    }

    /// An empty image in pages of `page_size` bytes: the database's own,
    /// for [`write_segment`] to write its pages as they are.
    pub fn with_page_size(fens: Fens, page_size: usize) -> SegmentImage {
        SegmentImage::in_buffer(fens, page_size, Vec::new())
    }

    /// [`SegmentImage::with_page_size`], made in `buffer` (the bytes of an
    /// image written, [`SegmentPages::write`]): its memory is taken again,
    /// not its bytes.
    pub fn in_buffer(fens: Fens, page_size: usize, buffer: Vec<u8>) -> SegmentImage {
        let create = table_sql(image::TABLE, !fens.is_empty(), Layout::Packed);
        SegmentImage {
            builder: ImageBuilder::in_buffer(&create, page_size, buffer),
            page_size,
            record: Record::default(),
            fens: Arc::new(fens),
            last: None,
            disorder: None,
            hashes: 0,
        }
    }

    /// Makes room for `rows` more rows.
    pub fn reserve(&mut self, rows: usize) {
        // A key of 8 bytes, a `gpm` of 6, the record's header of 3.
        self.builder.reserve(rows, 17);
    }

    /// Adds the rows `rows`, which follow the rows added before in key
    /// order.
    pub fn push(&mut self, rows: &[PendingPosition]) {
        let SegmentImage { builder, record, fens, last, disorder, hashes, .. } = self;
        let order = Order { first: None, last: *last, disorder: *disorder, hashes: *hashes };
        let order = encode_rows(rows, fens, record, order, builder);
        (*last, *disorder, *hashes) = (order.last, order.disorder, order.hashes);
    }

    /// `n` empty stretches for the rows that come next, to fill on other
    /// threads and [`SegmentImage::append`] in order (see
    /// [`ImageBuilder::stretches`]: the first starts an empty image, every
    /// other gets two rows or none).
    pub fn stretches(&self, n: usize) -> Vec<SegmentStretch> {
        let order = Order { first: None, last: None, disorder: None, hashes: 0 };
        let new = |leaves| SegmentStretch {
            leaves,
            record: Record::default(),
            fens: self.fens.clone(),
            order,
        };
        self.builder.stretches(n).into_iter().map(new).collect()
    }

    /// Appends a stretch's rows, which follow the rows added before.
    pub fn append(&mut self, stretch: FilledStretch) {
        let FilledStretch { leaves, order } = stretch;
        let Some(first) = order.first else { return };
        if self.last.is_some_and(|last| last >= first) {
            self.disorder.get_or_insert(first);
        }
        // The stretch counted its first hash, which may go on from here.
        let continued = self.last.is_some_and(|last| last.0 == first.0);
        self.hashes += order.hashes - u64::from(continued);
        self.disorder = self.disorder.or(order.disorder);
        self.last = order.last;
        self.builder.append(leaves);
    }

    /// The finished image.
    ///
    /// # Errors
    /// Rows out of key order, or an image SQLite could not read.
    pub fn finish(self) -> rusqlite::Result<BuiltSegment> {
        if let Some((hash, gpm)) = self.disorder {
            return Err(corrupt(format!(
                "position row ({hash}, {gpm}) out of key order in a segment"
            )));
        }
        let rows = self.builder.rows() as usize;
        let with_fens = !self.fens.is_empty();
        let image = self
            .builder
            .finish()
            .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
        Ok(BuiltSegment { image, rows, with_fens, page_size: self.page_size, hashes: self.hashes })
    }
}

#[cfg(test)]
impl BuiltSegment {
    /// The rows of the image, as SQLite reads them: `(hash, gpm, fen)`.
    pub(super) fn read_back(self) -> Vec<(i64, i64, Option<String>)> {
        let conn = Connection::open_in_memory().unwrap();
        let table = table_sql("t", self.with_fens, Layout::Packed);
        conn.execute_batch(&table).unwrap();
        let mut slot = ImageSlot::attach(&conn).unwrap();
        assert_eq!(slot.copy_into(&conn, "t", self.image).unwrap(), self.rows);
        slot.detach(&conn).unwrap();
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(check, "ok");
        let fen = if self.with_fens { "fen" } else { "NULL" };
        let mut st = conn.prepare(&format!("SELECT hash, gpm, {fen} FROM t")).unwrap();
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap();
        rows.collect::<Result<_, _>>().unwrap()
    }
}

/// How [`write_segment`] puts a segment's pages into the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageWrites {
    /// By hand ([`super::append`]), in pages of this many bytes (the
    /// database's own): the image's pages are the table's.
    Direct(usize),
    /// By SQLite's transfer of the image's records into the table.
    Copied,
}

impl PageWrites {
    /// How segments can reach the database `conn` opens
    /// ([`append::direct_page_size`]), asked outside a transaction.
    ///
    /// # Errors
    /// Database errors.
    pub fn of(conn: &Connection) -> rusqlite::Result<PageWrites> {
        Ok(match append::direct_page_size(conn)? {
            Some(size) => PageWrites::Direct(size),
            None => PageWrites::Copied,
        })
    }

    /// The page size of pages written by hand, if they can be.
    pub fn direct(self) -> Option<usize> {
        match self {
            PageWrites::Direct(size) => Some(size),
            PageWrites::Copied => None,
        }
    }

    /// Bytes per page of the images to build.
    pub fn page_size(self) -> usize {
        match self {
            PageWrites::Direct(size) => size,
            PageWrites::Copied => image::PAGE_SIZE,
        }
    }
}

/// A segment's pages to write by hand, after the transaction's writes
/// through SQL ([`write_segment`]).
#[derive(Debug)]
pub struct SegmentPages {
    /// The new table's root, written empty by SQLite.
    root: u32,
    image: Vec<u8>,
    page_size: usize,
    /// Pages of the database's free list, which the segment's pages use
    /// first.
    pub free: append::FreeTaken,
}

impl SegmentPages {
    /// Writes the image's pages as the table's: its root over the table's
    /// empty root, the others in new pages. Gives back the image's bytes,
    /// for the next image to be made in ([`SegmentImage::in_buffer`]).
    ///
    /// # Errors
    /// Database errors.
    pub fn write(mut self, pages: &mut append::Pages<'_>) -> rusqlite::Result<Vec<u8>> {
        let page_size = self.page_size;
        let count = self.image.len() / page_size;
        let mut numbers = vec![0u32; count + 1];
        if count >= 2 {
            numbers[2] = self.root;
        }
        for number in numbers.iter_mut().skip(3) {
            *number = pages.allocate();
        }
        image::renumber(&mut self.image, page_size, &numbers);
        let numbered: Vec<(u32, &[u8])> = self
            .image
            .chunks_exact(page_size)
            .enumerate()
            .skip(1)
            .map(|(k, page)| (numbers[k + 1], page))
            .collect();
        pages.write_all_maybe_directly(&numbered)?;
        drop(numbered);
        Ok(self.image)
    }
}

/// Writes the rows of `segment` as a new segment, of the level
/// [`level_for`] gives with `batch` rows in a full batch, and rewrites the
/// view. Runs inside the caller's transaction, through `slot` (once per
/// transaction).
///
/// An image in the database's page size becomes the table's pages: the
/// table is created and registered here, and its pages are returned, to
/// be written by hand ([`SegmentPages::write`]) after every other write
/// of the transaction. Any other image is copied by SQLite's transfer of
/// a whole table (which fills every page).
pub fn write_segment(
    conn: &Connection,
    slot: &mut ImageSlot,
    segment: BuiltSegment,
    batch: usize,
    writes: PageWrites,
) -> rusqlite::Result<Option<SegmentPages>> {
    let BuiltSegment { image, rows, with_fens, page_size, hashes } = segment;
    if rows == 0 {
        return Ok(None);
    }
    let (id, name) = next_segment(conn)?;
    conn.execute_batch(&table_sql(&name, with_fens, Layout::Packed))?;
    register(conn, id, &name, level_for(rows, batch, FANOUT), rows as i64, with_fens)?;
    write_statistics(conn, &name, rows as i64, Some(hashes as i64))?;
    rewrite_view(conn)?;
    if writes == PageWrites::Direct(page_size) {
        // The free list is read after the B-tree layer's last allocation.
        let free = free_pages(conn, image.len() / page_size)?;
        let root = append::root_of(conn, &name)?;
        return Ok(Some(SegmentPages { root, image, page_size, free }));
    }
    let copied = slot.copy_into(conn, &name, image)?;
    if copied != rows {
        return Err(corrupt(format!("{copied} of {rows} position rows copied into {name}")));
    }
    Ok(None)
}

/// Pages of the database's free list for an image of `pages` pages (whose
/// header and root take none): from the list's front, whole trunk pages
/// with their leaves, then the last leaves of the next trunk, up to what
/// the image's other pages use. A merge frees its parts' pages, more than
/// a batch's image: taking the whole list or none sent every batch after a
/// merge through SQLite's copy of the table, row by row.
fn free_pages(conn: &Connection, pages: usize) -> rusqlite::Result<append::FreeTaken> {
    let count: u32 = conn.query_row("PRAGMA main.freelist_count", [], |r| r.get(0))?;
    let mut taken = append::FreeTaken::default();
    let want = pages.saturating_sub(2);
    if count == 0 || want == 0 {
        return Ok(taken);
    }
    let page = |pgno: u32| append::read_page(conn, pgno);
    let word = append::word;
    let free = &mut taken.pages;
    let mut trunk = word(&page(1)?, 32);
    while trunk != 0 && free.len() < want && free.len() < count as usize {
        let mut bytes = page(trunk)?;
        let leaves = word(&bytes, 4) as usize;
        if 8 + 4 * leaves > bytes.len() {
            return Err(corrupt(format!("free-list trunk page {trunk} lists {leaves} pages")));
        }
        if free.len() + 1 + leaves <= want {
            free.push(trunk);
            free.extend((0..leaves).map(|i| word(&bytes, 8 + 4 * i)));
            trunk = word(&bytes, 0);
            continue;
        }
        // The trunk stays, without its last leaves.
        let rest = leaves - (want - free.len());
        free.extend((rest..leaves).map(|i| word(&bytes, 8 + 4 * i)));
        bytes[4..8].copy_from_slice(&(rest as u32).to_be_bytes());
        taken.trunk = Some((trunk, bytes));
        break;
    }
    let free = taken.pages.len();
    if free > count as usize || (trunk == 0 && free != count as usize) {
        return Err(corrupt(format!("{free} free pages listed of {count}")));
    }
    taken.first_trunk = trunk;
    taken.left = count - free as u32;
    Ok(taken)
}

/// Writes the query planner's statistics of the segment `name` as
/// `ANALYZE` would (its `sqlite_stat1` row): `rows` rows, `hashes` distinct
/// hashes. `PRAGMA optimize` leaves a table with statistics alone, so that
/// the end of an import does not read every page of its new segments
/// again to count what their writer counted. Without `hashes`, nothing is
/// written, and `PRAGMA optimize` counts.
fn write_statistics(
    conn: &Connection,
    name: &str,
    rows: i64,
    hashes: Option<i64>,
) -> rusqlite::Result<()> {
    let Some(hashes) = hashes.filter(|&h| h > 0 && rows > 0) else { return Ok(()) };
    if !has_statistics_table(conn)? {
        // Makes `sqlite_stat1`, which only `ANALYZE` may create.
        conn.execute_batch("ANALYZE sqlite_schema")?;
    }
    // Rows per hash rounded up, and one row per key, as `ANALYZE` writes.
    let stat = format!("{rows} {} 1", (rows + hashes - 1) / hashes);
    conn.execute("DELETE FROM sqlite_stat1 WHERE tbl = ?1", [name])?;
    conn.execute("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?1, ?1, ?2)", [name, &stat])?;
    Ok(())
}

/// Whether the database has SQLite's `sqlite_stat1`.
pub(super) fn has_statistics_table(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat1'",
        [],
        |r| r.get(0),
    )
}

/// The distinct hashes of segment `name` as its statistics give them
/// (rows over rows per hash: at most their number), if it has any.
fn counted_hashes(conn: &Connection, name: &str) -> rusqlite::Result<Option<i64>> {
    if !has_statistics_table(conn)? {
        return Ok(None);
    }
    let stat: Option<String> = conn
        .query_row("SELECT stat FROM sqlite_stat1 WHERE tbl = ?1 AND idx = ?1", [name], |r| {
            r.get(0)
        })
        .optional()?;
    let mut numbers = stat.as_deref().unwrap_or("").split(' ').map(str::parse::<i64>);
    Ok(match (numbers.next(), numbers.next()) {
        (Some(Ok(rows)), Some(Ok(per_hash))) if per_hash > 0 => Some(rows / per_hash),
        _ => None,
    })
}

/// The distinct hashes of the segments `parts` merged: the sum of theirs
/// (a hash in two parts counts twice), if each has statistics.
fn merged_hashes<'a>(
    conn: &Connection,
    parts: impl IntoIterator<Item = &'a str>,
) -> rusqlite::Result<Option<i64>> {
    let mut sum = 0;
    for part in parts {
        let Some(hashes) = counted_hashes(conn, part)? else { return Ok(None) };
        sum += hashes;
    }
    Ok(Some(sum))
}

/// Registers the [`Layout::Packed`] segment `name`.
fn register(
    conn: &Connection,
    id: i64,
    name: &str,
    level: i64,
    rows: i64,
    with_fens: bool,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO position_segments (id, name, level, rows, with_fens, layout) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![id, name, level, rows, with_fens, Layout::Packed.code()],
    )
    .map(drop)
}

/// Rewrites `positions` as the union of the registered segments.
pub(super) fn rewrite_view(conn: &Connection) -> rusqlite::Result<()> {
    let create = view_sql(conn)?;
    conn.execute_batch(&format!("DROP VIEW IF EXISTS positions; {create};"))
}

/// Rewrites `positions` if it is not the view of the registered segments
/// as this version writes it (a database migrated from a version whose
/// view kept the rows of deleted games). Runs outside any transaction.
pub fn refresh_view(conn: &Connection) -> rusqlite::Result<()> {
    let current: Option<String> = conn
        .query_row(
            "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'positions'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    if current.as_deref() == Some(view_sql(conn)?.as_str()) {
        return Ok(());
    }
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    rewrite_view(&tx)?;
    tx.commit()
}

/// Drops segment tables that no registered segment names (left by a merge
/// that was cut). The caller holds the import lock.
pub fn drop_orphans(conn: &Connection) -> rusqlite::Result<()> {
    drop_unregistered(conn, "position_segments", "positions")
}

/// Drops the segment tables of `prefix` (`z_{prefix}_NNNNNN`, or the
/// older `{prefix}_NNNNNN`) that the registry table `registry`
/// does not name, in one transaction.
pub(super) fn drop_unregistered(
    conn: &Connection,
    registry: &str,
    prefix: &str,
) -> rusqlite::Result<()> {
    let orphans: Vec<String> = conn
        .prepare(&format!(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND {} \
             AND name NOT IN (SELECT name FROM {registry})",
            segment_glob(prefix)
        ))?
        .query_map([], |r| checked_name(prefix, r.get(0)?))?
        .collect::<Result<_, _>>()?;
    if orphans.is_empty() {
        return Ok(());
    }
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    for name in orphans {
        tx.execute_batch(&format!("DROP TABLE {name}"))?;
    }
    tx.commit()
}

/// Inserts `rows` into `table`, whose columns are `width` parameters that
/// `bind(statement, first parameter, row)` binds, with INSERT statements of
/// [`ROWS_PER_INSERT`] rows. Runs inside the caller's transaction.
pub(super) fn insert_rows<T>(
    conn: &Connection,
    table: &str,
    width: usize,
    rows: impl IntoIterator<Item = T>,
    bind: impl Fn(&mut rusqlite::Statement<'_>, usize, &T) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    let one = format!("({})", vec!["?"; width].join(","));
    let sql = |n: usize| {
        format!("INSERT OR ROLLBACK INTO {table} VALUES {}", vec![one.as_str(); n].join(","))
    };
    let run = |st: &mut rusqlite::Statement<'_>, chunk: &[T]| -> rusqlite::Result<()> {
        for (i, row) in chunk.iter().enumerate() {
            bind(st, width * i + 1, row)?;
        }
        st.raw_execute().map(drop)
    };
    let mut full = conn.prepare(&sql(ROWS_PER_INSERT))?;
    let mut chunk = Vec::with_capacity(ROWS_PER_INSERT);
    for row in rows {
        chunk.push(row);
        if chunk.len() == ROWS_PER_INSERT {
            run(&mut full, &chunk)?;
            chunk.clear();
        }
    }
    if !chunk.is_empty() {
        run(&mut conn.prepare(&sql(chunk.len()))?, &chunk)?;
    }
    Ok(())
}

/// Merges every level that holds [`FANOUT`] segments or more, lowest
/// first, as far as `budget` (rows, taken from it as they are merged)
/// allows; a level of [`MAX_PER_LEVEL`] segments is merged whatever it
/// costs. Runs outside any transaction (it makes its own, and calls
/// `after_commit` after each: the writer's checkpoint hook). `file`, the
/// database file open beside `conn` for reading and writing, lets a merge
/// read the parts on a thread of its own where no other connection may
/// read them, and write its leaves into the file ([`merger::merge_pages`]).
pub fn compact(
    conn: &Connection,
    budget: &mut u64,
    after_commit: &dyn Fn(&Connection) -> rusqlite::Result<()>,
    file: Option<&File>,
) -> rusqlite::Result<()> {
    let mut level = i64::MIN;
    // The next level up that has segments, with their count and rows.
    let next = |above: i64| {
        conn.query_row(
            "SELECT level, count(*), sum(rows) FROM position_segments WHERE level > ?1 \
             GROUP BY level ORDER BY level LIMIT 1",
            [above],
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)),
        )
        .optional()
    };
    while let Some((found, count, rows)) = next(level)? {
        level = found;
        let (count, rows) = (count as usize, rows.max(0) as u64);
        if count < FANOUT || (rows > *budget && count < MAX_PER_LEVEL) {
            continue;
        }
        merge(conn, level, &segments(conn, Some(level))?, after_commit, file)?;
        *budget = budget.saturating_sub(rows);
    }
    Ok(())
}

/// Merges `parts` (the segments of `level`) into one [`Layout::Packed`]
/// segment of the next level; parts of the [`Layout::Split`] layout are
/// rewritten in the packed one first ([`repack`]), so that every part is
/// read in the merged key's order.
fn merge(
    conn: &Connection,
    level: i64,
    parts: &[Segment],
    after_commit: &dyn Fn(&Connection) -> rusqlite::Result<()>,
    file: Option<&File>,
) -> rusqlite::Result<()> {
    let mut packed = Vec::with_capacity(parts.len());
    for part in parts {
        packed.push(match part.layout {
            Layout::Packed => part.clone(),
            Layout::Split => repack(conn, level, part, after_commit)?,
        });
    }
    let with_fens = packed.iter().any(|p| p.with_fens);
    let (id, name) = next_segment(conn)?;
    conn.execute_batch(&table_sql(&name, with_fens, Layout::Packed))?;
    let by_pages = match append::direct_page_size(conn)? {
        Some(page_size) if merger::can_merge(&packed) => {
            Some(merger::merge_pages(conn, page_size, &name, &packed, after_commit, file)?)
        }
        _ => None,
    };
    let total = match by_pages {
        Some(merged) => merged.rows,
        None => {
            let arms: Vec<String> = packed
                .iter()
                .map(|p| {
                    let fen = if p.with_fens { "fen" } else { "NULL" };
                    format!("SELECT hash, gpm, {fen} AS fen FROM {}", p.name)
                })
                .collect();
            let columns = if with_fens { "hash, gpm, fen" } else { "hash, gpm" };
            let game_id = Layout::Packed.game_id_sql();
            copy_merged(conn, &name, columns, Layout::Packed.key(), &arms, &game_id, after_commit)?
        }
    };
    let by_hand = match by_pages {
        Some(_) => append::direct_page_size(conn)?,
        None => None,
    };
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let hashes = match by_pages {
        Some(merged) => Some(merged.hashes),
        None => merged_hashes(&tx, packed.iter().map(|p| p.name.as_str()))?,
    };
    for part in &packed {
        tx.execute("DELETE FROM position_segments WHERE name = ?1", [&part.name])?;
        if by_hand.is_none() {
            tx.execute_batch(&format!("DROP TABLE {}", part.name))?;
        }
    }
    register(&tx, id, &name, level + 1, total, with_fens)?;
    write_statistics(&tx, &name, total, hashes)?;
    rewrite_view(&tx)?;
    let Some(page_size) = by_hand else { return tx.commit() };
    // Parts merged page by page hold no overflow pages: their pages are
    // freed by hand, so that dropping them frees their roots alone.
    let mut roots = Vec::with_capacity(packed.len());
    for part in &packed {
        roots.push(append::root_of(&tx, &part.name)?);
    }
    append::empty_trees(&tx, page_size, &roots)?;
    tx.commit()?;
    append::after_page_writes(conn)?;
    // Emptied and no longer registered; a kill here leaves them to
    // `drop_orphans`.
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    for part in &packed {
        tx.execute_batch(&format!("DROP TABLE {}", part.name))?;
    }
    tx.commit()?;
    after_commit(conn)
}

/// Rows read per transaction while a segment is rewritten in the packed
/// layout (they are held in memory meanwhile).
const REPACK_CHUNK: i64 = 1 << 20;

/// Rewrites `part`, a [`Layout::Split`] segment of `level`, as a
/// [`Layout::Packed`] segment of the same level without the rows of
/// deleted games, and swaps it in: the new segment. Copies in
/// transactions of [`REPACK_CHUNK`] rows, read in the old key's order,
/// which is the new one's but for the plies from 512 on (those rows are
/// inserted where they belong). A cut copy leaves an orphan table.
fn repack(
    conn: &Connection,
    level: i64,
    part: &Segment,
    after_commit: &dyn Fn(&Connection) -> rusqlite::Result<()>,
) -> rusqlite::Result<Segment> {
    let with_fens = part.with_fens;
    let (id, name) = next_segment(conn)?;
    conn.execute_batch(&table_sql(&name, with_fens, Layout::Packed))?;
    let select = format!(
        "SELECT hash, game_id, ply_move, {} FROM {} \
         WHERE (hash, game_id, ply_move) > (?1, ?2, ?3) AND {} \
         ORDER BY hash, game_id, ply_move LIMIT ?4",
        if with_fens { "fen" } else { "NULL" },
        part.name,
        live("game_id")
    );
    let mut after = (i64::MIN, -1i64, -1i64);
    let mut rows: Vec<(i64, i64, Option<String>)> = Vec::new();
    let mut total = 0i64;
    loop {
        let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
        rows.clear();
        {
            let mut st = tx.prepare(&select)?;
            let mut found = st.query(params![after.0, after.1, after.2, REPACK_CHUNK])?;
            while let Some(r) = found.next()? {
                let (hash, game_id, ply_move): (i64, i64, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
                after = (hash, game_id, ply_move);
                rows.push((hash, split_to_gpm(game_id, ply_move)?, r.get(3)?));
            }
        }
        rows.sort_unstable_by_key(|r| (r.0, r.1));
        insert_rows(&tx, &name, if with_fens { 3 } else { 2 }, &rows, |st, at, r| {
            st.raw_bind_parameter(at, r.0)?;
            st.raw_bind_parameter(at + 1, r.1)?;
            if with_fens {
                st.raw_bind_parameter(at + 2, r.2.as_deref())?;
            }
            Ok(())
        })?;
        tx.commit()?;
        after_commit(conn)?;
        total += rows.len() as i64;
        if (rows.len() as i64) < REPACK_CHUNK {
            break;
        }
    }
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let hashes = counted_hashes(&tx, &part.name)?;
    tx.execute("DELETE FROM position_segments WHERE name = ?1", [&part.name])?;
    tx.execute_batch(&format!("DROP TABLE {}", part.name))?;
    register(&tx, id, &name, level, total, with_fens)?;
    write_statistics(&tx, &name, total, hashes)?;
    rewrite_view(&tx)?;
    tx.commit()?;
    Ok(Segment { name, with_fens, layout: Layout::Packed })
}

/// The `gpm` of a [`Layout::Split`] row.
fn split_to_gpm(game_id: i64, ply_move: i64) -> rusqlite::Result<i64> {
    let (ply, next_move) = unpack_ply_move(ply_move);
    match (u32::try_from(game_id), u16::try_from(ply)) {
        (Ok(game_id), Ok(ply)) if ply_move >= 0 => {
            Ok(pack_gpm(GameId::new(game_id), ply, next_move))
        }
        _ => Err(corrupt(format!(
            "position row of game {game_id} with ply_move {ply_move}: out of range"
        ))),
    }
}

/// Copies the rows of `arms` (each `SELECT columns FROM table`, of a
/// table keyed by `key`, whose first column is any integer and the others
/// are not negative, with rows of the game `game_id` (SQL)) into the table
/// `dest`, in key order, [`MERGE_CHUNK`] rows per transaction, calling
/// `after_commit` after each; the rows of deleted games are left out
/// ([`live`]). Returns the rows copied. A cut copy leaves `dest` partly
/// filled: the caller registers it only once this returns.
pub(super) fn copy_merged(
    conn: &Connection,
    dest: &str,
    columns: &str,
    key: &[&str],
    arms: &[String],
    game_id: &str,
    after_commit: &dyn Fn(&Connection) -> rusqlite::Result<()>,
) -> rusqlite::Result<i64> {
    let key_list = key.join(", ");
    let after_list: Vec<String> = (1..=key.len()).map(|i| format!("?{i}")).collect();
    let filter = format!(" WHERE ({key_list}) > ({}) AND {}", after_list.join(", "), live(game_id));
    let union: Vec<String> = arms.iter().map(|arm| format!("{arm}{filter}")).collect();
    let order: Vec<String> = (1..=key.len()).map(|i| i.to_string()).collect();
    let copy = format!(
        "INSERT OR ROLLBACK INTO {dest} ({columns}) SELECT {columns} FROM ({} ORDER BY {} LIMIT ?{})",
        union.join(" UNION ALL "),
        order.join(", "),
        key.len() + 1
    );
    let descending: Vec<String> = key.iter().map(|k| format!("{k} DESC")).collect();
    let last_sql =
        format!("SELECT {key_list} FROM {dest} ORDER BY {} LIMIT 1", descending.join(", "));
    let mut after: Vec<i64> = vec![-1; key.len()];
    after[0] = i64::MIN;
    let mut total = 0i64;
    loop {
        let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
        let n = tx.execute(&copy, rusqlite::params_from_iter(after.iter().chain([&MERGE_CHUNK])))?
            as i64;
        // Where the next chunk starts, if there is one.
        let last = if n < MERGE_CHUNK {
            None
        } else {
            Some(tx.query_row(&last_sql, [], |r| {
                (0..key.len()).map(|i| r.get::<_, i64>(i)).collect::<rusqlite::Result<Vec<_>>>()
            })?)
        };
        tx.commit()?;
        after_commit(conn)?;
        total += n;
        match last {
            Some(last) => after = last,
            None => return Ok(total),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::positions::*;

    /// Writes `segment` and its pages, as the writer does at the end of a
    /// transaction; asks how pages are written before the transaction begins,
    /// as the writer does.
    fn write_now(conn: &Connection, slot: &mut ImageSlot, segment: BuiltSegment, full: usize) {
        let writes = PageWrites::of(conn).unwrap();
        conn.execute_batch("BEGIN").unwrap();
        if let Some(mut written) = write_segment(conn, slot, segment, full, writes).unwrap() {
            let free = std::mem::take(&mut written.free);
            let mut pages = append::Pages::begin(conn, written.page_size, free).unwrap();
            written.write(&mut pages).unwrap();
            pages.finish().unwrap();
        }
    }

    /// Writes `batch` as a segment in a transaction of its own, as the
    /// writer does.
    fn write(conn: &Connection, batch: &mut [PendingPosition], fens: Fens, full: usize) {
        batch.sort_unstable_by_key(|p| (p.hash, p.gpm()));
        let mut image = SegmentImage::new(fens);
        image.push(batch);
        let mut slot = ImageSlot::attach(conn).unwrap();
        write_now(conn, &mut slot, image.finish().unwrap(), full);
        conn.execute_batch("COMMIT").unwrap();
        slot.detach(conn).unwrap();
    }

    fn rows(seed: u64, n: usize, game: GameId) -> Vec<PendingPosition> {
        let mut x = seed | 1;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Few distinct keys, so that keys repeat across segments.
                let hash = (x % 50) as i64 - 25;
                let next_move = if i % 7 == 0 { NO_MOVE } else { i as u16 };
                PendingPosition { hash, game_id: game, ply: i as u16, next_move }
            })
            .collect()
    }

    type Row = (i64, i64, i64, Option<i64>, Option<String>);

    /// Alone with the file under a rollback journal, a segment's new pages
    /// go into the file past SQLite: committed, SQLite finds every row in
    /// a sound file of the size it counts; rolled back, the file is what
    /// it was.
    #[test]
    fn new_pages_written_into_the_file_commit_and_roll_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        drop(crate::db::open_for_write(&path).unwrap());
        let conn = crate::db::open_for_import(&path, crate::db::Sharing::Exclusive).unwrap();
        let file = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        let pragma = |name: &str| -> i64 {
            conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0)).unwrap()
        };
        assert_eq!(
            conn.query_row("PRAGMA journal_mode", [], |r| r.get::<_, String>(0)).unwrap(),
            "truncate"
        );
        let writes = PageWrites::of(&conn).unwrap();
        let page_size = writes.page_size();
        let mut slot = ImageSlot::attach(&conn).unwrap();
        let mut segment = |game: u32, commit: bool| -> Vec<Row> {
            let mut batch = rows(u64::from(game), 30_000, GameId::new(game));
            batch.sort_unstable_by_key(|p| (p.hash, p.gpm()));
            let mut image = SegmentImage::with_page_size(Vec::new(), page_size);
            image.push(&batch);
            conn.execute_batch("BEGIN").unwrap();
            let mut written =
                write_segment(&conn, &mut slot, image.finish().unwrap(), batch.len(), writes)
                    .unwrap()
                    .expect("pages to write by hand");
            let free = std::mem::take(&mut written.free);
            let mut pages = append::Pages::begin(&conn, page_size, free).unwrap();
            pages.write_new_directly(&file);
            written.write(&mut pages).unwrap();
            pages.finish().unwrap();
            conn.execute_batch(if commit { "COMMIT" } else { "ROLLBACK" }).unwrap();
            append::after_page_writes(&conn).unwrap();
            if !commit {
                append::cut_after_last_page(&conn, &file, page_size).unwrap();
            }
            batch
                .iter()
                .map(|p| {
                    let next = (p.next_move != NO_MOVE).then_some(i64::from(p.next_move));
                    (p.hash, i64::from(p.game_id), i64::from(p.ply), next, None)
                })
                .collect()
        };
        let mut expected = segment(1, true);
        expected.sort();
        let (pages, length) = (pragma("page_count"), file.metadata().unwrap().len());
        assert_eq!(length, pages as u64 * page_size as u64);
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(check, "ok");
        assert_eq!(view(&conn), expected);
        // A second segment rolled back: the file as it was.
        segment(2, false);
        assert_eq!(pragma("page_count"), pages);
        assert_eq!(file.metadata().unwrap().len(), length);
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(check, "ok");
        assert_eq!(view(&conn), expected);
        // And another committed after it.
        let mut more = segment(3, true);
        expected.append(&mut more);
        expected.sort();
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(check, "ok");
        assert_eq!(view(&conn), expected);
        slot.detach(&conn).unwrap();
    }

    /// A segment's pages are the image's own in the database's page size:
    /// they take the free list first, all of it when it is shorter than the
    /// image, else as many pages as the image needs from its front (whole
    /// trunks, then part of one), the file's page count follows, and SQLite
    /// finds every row and a sound file.
    #[test]
    fn segment_pages_written_directly_take_the_free_list_first() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        let writes = PageWrites::of(&conn).unwrap();
        let page_size = writes.page_size();
        assert_eq!(writes, PageWrites::Direct(page_size), "the bundled SQLite has sqlite_dbpage");
        let pragma = |name: &str| -> i64 {
            conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0)).unwrap()
        };
        let mut expected = Vec::new();
        // Free pages: none, few (all taken by the next segment), many (its
        // part taken, more than a trunk page lists), and what is left.
        for (game, free_rows) in
            [(1u32, 0), (2, 2_000), (3, 200_000), (4, 0), (5, 5_000), (6, 400_000)]
        {
            if free_rows > 0 {
                conn.execute_batch(&format!(
                    "CREATE TABLE filler (x); \
                     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
                     WHERE i < {free_rows}) INSERT INTO filler SELECT randomblob(100) FROM n; \
                     DROP TABLE filler;"
                ))
                .unwrap();
            }
            let free = pragma("freelist_count");
            let mut batch = rows(u64::from(game), 30_000, GameId::new(game));
            for p in &batch {
                let next = (p.next_move != NO_MOVE).then_some(i64::from(p.next_move));
                expected.push((p.hash, i64::from(p.game_id), i64::from(p.ply), next, None));
            }
            batch.sort_unstable_by_key(|p| (p.hash, p.gpm()));
            let mut image = SegmentImage::with_page_size(Vec::new(), page_size);
            image.push(&batch);
            let built = image.finish().unwrap();
            let image_pages = built.image.len() / page_size;
            let mut slot = ImageSlot::attach(&conn).unwrap();
            write_now(&conn, &mut slot, built, batch.len());
            conn.execute_batch("COMMIT").unwrap();
            append::after_page_writes(&conn).unwrap();
            slot.detach(&conn).unwrap();
            let left = pragma("freelist_count");
            // Besides the image's pages, the new table's root and rows of
            // the catalogue take a page or two through SQL first.
            let beyond = free - left - (image_pages as i64 - 2);
            if free < image_pages as i64 {
                assert_eq!(left, 0, "segment {game}: {free} free pages for {image_pages}");
            } else {
                assert!((0..=2).contains(&beyond), "segment {game}: {free} → {left} free pages");
            }
            let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
            assert_eq!(check, "ok", "segment {game}");
            expected.sort();
            assert_eq!(view(&conn), expected, "segment {game}");
            let size = std::fs::metadata(dir.path().join("t.db")).unwrap().len() as i64;
            assert!(pragma("page_count") * page_size as i64 >= size - page_size as i64);
        }
        // The pages read back from the file alone, by a new connection.
        drop(conn);
        let conn = crate::db::open_read_only(&dir.path().join("t.db")).unwrap();
        assert_eq!(view(&conn), expected);
    }

    /// A free list of many trunk pages gives an image whole trunks from
    /// its front, then the last leaves of one; the list left is the rest,
    /// exactly, as SQLite walks it.
    #[test]
    fn an_image_takes_the_front_of_a_long_free_list() {
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::open(dir.path().join("t.db")).unwrap();
        conn.execute_batch(
            "PRAGMA page_size = 1024; CREATE TABLE keep (x); \
             CREATE TABLE filler (x); \
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) \
             INSERT INTO filler SELECT randomblob(900) FROM n; DROP TABLE filler;",
        )
        .unwrap();
        let count = |conn: &Connection| -> u32 {
            conn.query_row("PRAGMA freelist_count", [], |r| r.get(0)).unwrap()
        };
        let before = count(&conn);
        // A trunk page of 1,024 bytes lists 254 pages: the image takes two
        // whole trunks and part of a third.
        let all: std::collections::HashSet<u32> =
            free_pages(&conn, usize::MAX).unwrap().pages.into_iter().collect();
        assert_eq!(all.len(), before as usize);
        let taken = free_pages(&conn, 702).unwrap();
        assert_eq!(taken.pages.len(), 700);
        assert!(taken.trunk.is_some(), "part of a trunk");
        assert_eq!(taken.left, before - 700);
        let used: std::collections::HashSet<u32> = taken.pages.iter().copied().collect();
        assert_eq!(used.len(), 700);
        assert!(used.is_subset(&all));
        conn.execute_batch("BEGIN").unwrap();
        let mut pages = append::Pages::begin(&conn, 1024, taken).unwrap();
        for _ in 0..700 {
            let pgno = pages.allocate();
            // Free pages hold anything; these hold an empty table's leaf.
            let mut leaf = vec![0u8; 1024];
            leaf[0] = 13;
            leaf[5..7].copy_from_slice(&1024u16.to_be_bytes());
            pages.write(pgno, &leaf).unwrap();
        }
        pages.finish().unwrap();
        conn.execute_batch("COMMIT").unwrap();
        append::after_page_writes(&conn).unwrap();
        assert_eq!(count(&conn), before - 700);
        let left: std::collections::HashSet<u32> =
            free_pages(&conn, usize::MAX).unwrap().pages.into_iter().collect();
        assert_eq!(left, &all - &used, "the list left, walked as SQLite walks it");
        // SQLite takes its own pages from what is left.
        conn.execute_batch("INSERT INTO keep SELECT randomblob(5000)").unwrap();
        assert!(count(&conn) < before - 700);
    }

    fn view(conn: &Connection) -> Vec<Row> {
        let mut st = conn.prepare("SELECT * FROM positions ORDER BY hash, game_id, ply").unwrap();
        let rows =
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)));
        rows.unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn ply_move_packing_is_fixed_and_sql_unpacks_it_alike() {
        // The stored format: databases written before read the same.
        assert_eq!(pack_ply_move(0, Some(0)), 0);
        assert_eq!(pack_ply_move(3, None), 3 * 32768 + 32767);
        assert_eq!(pack_ply_move(1, Some(796)), 32768 + 796);
        let conn = Connection::open_in_memory().unwrap();
        let sql =
            format!("SELECT {} FROM (SELECT ?1 AS ply_move)", Layout::Split.ply_and_move_sql());
        let cases = [(0, Some(0)), (0, None), (1, Some(796)), (300, None), (70_000, Some(24575))];
        for (ply, next_move) in cases {
            let packed = pack_ply_move(ply, next_move);
            assert_eq!(unpack_ply_move(packed), (ply, next_move));
            let by_sql: (u32, Option<u16>) =
                conn.query_row(&sql, [packed], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
            assert_eq!(by_sql, (ply, next_move));
        }
    }

    #[test]
    fn gpm_packing_is_fixed_and_sql_unpacks_it_alike() {
        // The stored format: databases written before read the same.
        assert_eq!(pack_gpm(GameId::new(1), 0, Some(0)), 1 << 24);
        assert_eq!(pack_gpm(GameId::new(2), 3, None), 2 * (1 << 24) + 3 * 32768 + 32767);
        assert_eq!(pack_gpm(GameId::new(0), 512, Some(1)), (1 << 56) + 1);
        assert_eq!(pack_gpm(GameId::new(5), 1025, Some(796)), (2 << 56) + (5 << 24) + 32768 + 796);
        let conn = Connection::open_in_memory().unwrap();
        let sql = format!(
            "SELECT {}, {} FROM (SELECT ?1 AS gpm)",
            Layout::Packed.game_id_sql(),
            Layout::Packed.ply_and_move_sql()
        );
        let games = [1, (1 << 23) - 1, 1 << 23, 1 << 31, u32::MAX];
        let plies = [0, 1, 511, 512, 1023, 65_535];
        // The null move (0), the largest code, none.
        let moves = [Some(0), Some(796), Some(4 * 4096 + 63 * 64 + 63), None];
        for game in games {
            for ply in plies {
                for next_move in moves {
                    let gpm = pack_gpm(GameId::new(game), ply, next_move);
                    assert!(gpm >= 0);
                    assert_eq!(unpack_gpm(gpm), (GameId::new(game), ply, next_move));
                    let by_sql: (u32, u16, Option<u16>) = conn
                        .query_row(&sql, [gpm], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                        .unwrap();
                    assert_eq!(by_sql, (game, ply, next_move), "{gpm:#x}");
                    // A 6-byte SQLite integer holds up to 2⁴⁷ − 1.
                    let small = game < 1 << 23 && ply < 512;
                    assert_eq!(gpm < 1 << 47, small, "game {game} ply {ply}");
                    // The old layout's rows become the same number.
                    let split = pack_ply_move(u32::from(ply), next_move);
                    assert_eq!(split_to_gpm(i64::from(game), split).unwrap(), gpm);
                }
            }
        }
        assert!(split_to_gpm(-1, 0).is_err());
        assert!(split_to_gpm(1, pack_ply_move(65_536, None)).is_err());
    }

    /// Registers a segment of the layout written before schema 12 holding
    /// `rows`, as an import of then did.
    fn write_split_segment(conn: &Connection, id: i64, rows: &[PendingPosition]) {
        let name = format!("positions_{id:06}");
        conn.execute_batch(&table_sql(&name, false, Layout::Split)).unwrap();
        for p in rows {
            let next_move = (p.next_move != NO_MOVE).then_some(p.next_move);
            conn.execute(
                &format!("INSERT INTO {name} VALUES (?1, ?2, ?3)"),
                params![p.hash, p.game_id, pack_ply_move(u32::from(p.ply), next_move)],
            )
            .unwrap();
        }
        conn.execute(
            "INSERT INTO position_segments (id, name, level, rows, with_fens, layout) \
             VALUES (?1, ?2, 0, ?3, 0, 0)",
            params![id, name, rows.len() as i64],
        )
        .unwrap();
        rewrite_view(conn).unwrap();
    }

    #[test]
    fn old_and_new_layouts_read_alike_and_a_merge_repacks_the_old_ones() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        let mut expected = Vec::new();
        for game in 1..=FANOUT as u32 {
            // Long games, so that plies from 512 on are stored.
            let mut batch = rows(u64::from(game), 600, GameId::new(game));
            if game != 3 {
                for p in &batch {
                    let next = (p.next_move != NO_MOVE).then_some(i64::from(p.next_move));
                    expected.push((p.hash, i64::from(game), i64::from(p.ply), next, None));
                }
            }
            if game % 2 == 1 {
                write_split_segment(&conn, i64::from(game), &batch);
            } else {
                let full = batch.len();
                write(&conn, &mut batch, Vec::new(), full);
            }
        }
        expected.sort();
        conn.execute("INSERT INTO deleted_games (game_id) VALUES (3)", []).unwrap();
        let layouts = |conn: &Connection| -> Vec<i64> {
            let sql = "SELECT layout FROM position_segments ORDER BY id";
            conn.prepare(sql)
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        assert_eq!(layouts(&conn), [0, 1].repeat(FANOUT / 2));
        assert_eq!(view(&conn), expected);
        // The key is searched in every segment, old or new.
        let key = expected[expected.len() / 2].0;
        let plan: Vec<String> = conn
            .prepare("EXPLAIN QUERY PLAN SELECT game_id FROM positions WHERE hash = ?1")
            .unwrap()
            .query_map([key], |r| r.get(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let searches =
            plan.iter().filter(|p| p.contains("SEARCH ") && p.contains("positions_")).count();
        assert_eq!(searches, FANOUT, "{plan:#?}");
        assert!(
            plan.iter().all(|p| !(p.contains("SCAN ") && p.contains("positions_"))),
            "{plan:#?}"
        );

        merge_all(&conn);
        assert_eq!(layouts(&conn), [1], "one merged segment, packed");
        assert_eq!(view(&conn), expected);
        let rows: i64 =
            conn.query_row("SELECT sum(rows) FROM position_segments", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, expected.len() as i64, "merged without game 3");
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name GLOB '*positions_[0-9]*'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(tables, 1, "the parts, old and repacked, are dropped");
    }

    #[test]
    fn segments_merge_by_level_and_the_view_sees_every_row() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        assert!(view(&conn).is_empty(), "the view of an empty index");
        let mut expected = Vec::new();
        for game in 1..=(FANOUT as u32 * FANOUT as u32 + 3) {
            let mut batch = rows(u64::from(game), 40, GameId::new(game));
            let fens: Fens = if game % 5 == 0 {
                batch.iter().map(|p| (p.game_id, p.ply, format!("fen {game} {}", p.ply))).collect()
            } else {
                Vec::new()
            };
            for p in &batch {
                let fen = (!fens.is_empty()).then(|| format!("fen {game} {}", p.ply));
                let next = (p.next_move != NO_MOVE).then_some(i64::from(p.next_move));
                expected.push((p.hash, i64::from(p.game_id), i64::from(p.ply), next, fen));
            }
            let full = batch.len();
            write(&conn, &mut batch, fens, full);
            merge_all(&conn);
        }
        expected.sort();
        assert_eq!(view(&conn), expected);
        let levels: Vec<(i64, i64)> = conn
            .prepare("SELECT level, count(*) FROM position_segments GROUP BY level ORDER BY level")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        // FANOUT² + 3 batches: one level-2 segment, three level-0 ones.
        assert_eq!(levels, [(0, 3), (2, 1)]);
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name GLOB '*positions_[0-9]*'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(tables, 4, "merged segments are dropped");

        // A table left by a cut merge is dropped; registered ones stay.
        // Either form of name: before schema 22, and since.
        conn.execute_batch(&table_sql("positions_999999", false, Layout::Packed)).unwrap();
        conn.execute_batch(&table_sql("z_positions_999998", false, Layout::Packed)).unwrap();
        drop_orphans(&conn).unwrap();
        let orphan: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master \
                 WHERE name IN ('positions_999999', 'z_positions_999998')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(orphan, 0);
        assert_eq!(view(&conn), expected);
    }
    #[test]
    fn a_segment_and_a_merge_carry_the_statistics_analyze_writes() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        // Built in stretches cut inside runs of one hash, the distinct
        // hashes are those of the image built in one go.
        let mut all: Vec<PendingPosition> =
            (1..=3).flat_map(|g| rows(g, 300, GameId::new(g as u32))).collect();
        all.sort_unstable_by_key(|p| (p.hash, p.gpm()));
        let mut whole = SegmentImage::new(Vec::new());
        whole.push(&all);
        let mut cut = SegmentImage::new(Vec::new());
        let mut filled = Vec::new();
        let mut stretches = cut.stretches(3).into_iter();
        for part in [&all[..1], &all[1..301], &all[301..]] {
            let mut stretch = stretches.next().unwrap();
            stretch.push(part);
            filled.push(stretch.filled());
        }
        filled.into_iter().for_each(|f| cut.append(f));
        let (whole, cut) = (whole.finish().unwrap(), cut.finish().unwrap());
        assert_eq!((whole.hashes, cut.hashes), (50, 50));

        let stat = |name: &str| -> String {
            conn.query_row("SELECT stat FROM sqlite_stat1 WHERE tbl = ?1", [name], |r| r.get(0))
                .unwrap()
        };
        let names = |conn: &Connection| -> Vec<String> {
            let mut st = conn.prepare("SELECT name FROM position_segments ORDER BY id").unwrap();
            st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
        };
        for game in 1..=FANOUT as u32 {
            let n = 100 + 10 * game as usize;
            write(&conn, &mut rows(u64::from(game), n, GameId::new(game)), Vec::new(), 100);
        }
        let written: Vec<String> = names(&conn).iter().map(|n| stat(n)).collect();
        conn.execute_batch("ANALYZE").unwrap();
        let analyzed: Vec<String> = names(&conn).iter().map(|n| stat(n)).collect();
        assert_eq!(written, analyzed);
        // Merged page by page, the rows and hashes are counted as they are
        // copied: again what `ANALYZE` writes.
        merge_all(&conn);
        let merged = names(&conn);
        assert_eq!(merged.len(), 1);
        let total: usize = (1..=FANOUT).map(|g| 100 + 10 * g).sum();
        assert_eq!(stat(&merged[0]), format!("{total} {} 1", total.div_ceil(50)));
        conn.execute_batch("ANALYZE").unwrap();
        assert_eq!(stat(&merged[0]), format!("{total} {} 1", total.div_ceil(50)));
    }

    #[test]
    fn deleted_games_leave_the_view_at_once_and_the_segments_at_a_merge() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        let mut expected = Vec::new();
        for game in 1..=FANOUT as u32 {
            let mut batch = rows(u64::from(game), 30, GameId::new(game));
            if game != 5 {
                for p in &batch {
                    let next = (p.next_move != NO_MOVE).then_some(i64::from(p.next_move));
                    expected.push((p.hash, i64::from(game), i64::from(p.ply), next, None));
                }
            }
            let full = batch.len();
            write(&conn, &mut batch, Vec::new(), full);
        }
        expected.sort();
        conn.execute("INSERT INTO deleted_games (game_id) VALUES (5)", []).unwrap();
        assert_eq!(view(&conn), expected);
        merge_all(&conn);
        assert_eq!(view(&conn), expected);
        let (segments, rows): (i64, i64) = conn
            .query_row("SELECT count(*), sum(rows) FROM position_segments", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((segments, rows), (1, expected.len() as i64), "merged without game 5");
        conn.execute("DELETE FROM deleted_games", []).unwrap();
        assert_eq!(view(&conn), expected, "the rows are gone from the merged segment");
    }

    #[test]
    fn a_segment_level_is_its_size_in_batches() {
        let batch = 8 << 20;
        assert_eq!(level_for(batch, batch, FANOUT), 0);
        assert_eq!(level_for(batch * 3, batch, FANOUT), 0, "never above 0 when written");
        assert_eq!(level_for(batch / 3, batch, FANOUT), 0, "nearer a full batch than a sixteenth");
        assert_eq!(level_for(batch / 5, batch, FANOUT), -1);
        assert_eq!(level_for(batch / 16, batch, FANOUT), -1);
        assert_eq!(level_for(batch / 256, batch, FANOUT), -2);
        assert_eq!(level_for(1, batch, FANOUT), MIN_LEVEL);
        assert_eq!(level_for(5, 0, FANOUT), 0, "no batch size: level 0");
        assert_eq!(level_for(batch / 8, batch, 8), -1, "another fan-out");
    }

    /// Merges every level that holds [`FANOUT`] segments, with no budget.
    fn merge_all(conn: &Connection) {
        let mut unlimited = u64::MAX;
        compact(conn, &mut unlimited, &|_| Ok(()), None).unwrap();
    }

    /// `(level, segments)` of the index, lowest level first.
    fn levels(conn: &Connection) -> Vec<(i64, i64)> {
        conn.prepare("SELECT level, count(*) FROM position_segments GROUP BY level ORDER BY level")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    #[test]
    fn small_imports_merge_among_themselves_and_wait_for_a_budget_for_the_large_merges() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        let full = 160; // rows of a full batch here
        let mut expected = Vec::new();
        let mut game = 0;
        // Writes a segment of `len` rows, then merges with `budget`.
        let mut write = |len: usize, mut budget: u64| {
            game += 1;
            let mut batch = rows(u64::from(game), len, GameId::new(game));
            for p in &batch {
                let next = (p.next_move != NO_MOVE).then_some(i64::from(p.next_move));
                expected.push((p.hash, i64::from(game), i64::from(p.ply), next, None));
            }
            write(&conn, &mut batch, Vec::new(), full);
            compact(&conn, &mut budget, &|_| Ok(()), None).unwrap();
            (expected.clone(), budget)
        };
        // What an import of `len` rows may merge.
        let paid = |len: usize| MERGE_RATIO * len as u64;
        // A large import: full batches at level 0.
        for _ in 0..FANOUT - 1 {
            write(full, paid(full));
        }
        assert_eq!(levels(&conn), [(0, FANOUT as i64 - 1)]);
        // Small imports (a tenth of a batch each) sit below level 0 and
        // merge there, not with the full batches.
        for _ in 0..FANOUT {
            write(full / 10, paid(full / 10));
        }
        assert_eq!(levels(&conn), [(0, FANOUT as i64)], "the small ones merged into one");
        // Level 0 is full, but a small import has not paid for its merge.
        for _ in 0..FANOUT {
            write(full / 10, paid(full / 10));
        }
        assert_eq!(levels(&conn), [(0, FANOUT as i64 + 1)], "the large merge waits");
        // An import of two batches pays for it.
        let (mut expected, left) = write(2 * full, paid(2 * full));
        assert_eq!(levels(&conn), [(1, 1)]);
        let merged = (FANOUT - 1) * full + 2 * FANOUT * (full / 10) + 2 * full;
        assert_eq!(left, paid(2 * full) - merged as u64, "the merge's rows are paid");
        expected.sort();
        assert_eq!(view(&conn), expected);
        // At the bound a level is merged whatever the budget.
        for _ in 0..MAX_PER_LEVEL {
            write(full, 0);
        }
        let after = levels(&conn);
        assert!(after.iter().all(|&(_, n)| n < MAX_PER_LEVEL as i64), "{after:?}");
        assert_eq!(after.iter().find(|l| l.0 == 1).map(|l| l.1), Some(2), "{after:?}");
    }
}
