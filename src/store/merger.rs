//! Position segments merged page by page: each part's B-tree is read in
//! key order from its pages ([`TreeCursor`]), the parts' rows are merged
//! in Rust, and the merged rows are appended to the new segment as whole
//! leaves ([`append::append_index`]), their records copied as they are.
//!
//! SQLite's own merge (`INSERT … SELECT … UNION ALL … ORDER BY`, see
//! [`super::segments`]) decodes every row, merges through its sorter and
//! inserts it into the B-tree one by one, leaving its pages 88 % full:
//! about 560 ns a row of the writer's time, where this takes about 20 of
//! the writer's (the pages' writes) and 50 of its own thread's (reading,
//! and merging through a tree of losers: [`LoserTree`]), and fills every
//! page. A database the writer holds alone
//! (`--exclusive`), which no other connection may read, is read from the
//! file the writer holds open (in a rollback journal, where the file holds
//! every committed page), else through the writer's connection on its
//! thread. SQLite's merge serves the segments this cannot read: those with
//! a `fen` column (whose records may spill to overflow pages), and
//! databases that take no pages by hand.
//!
//! Like SQLite's, the merge appends in transactions of [`CHUNK_ROWS`]
//! rows to a table that is not yet registered, each leaving it a valid
//! B-tree, so that a kill leaves an orphan table for
//! [`super::segments::drop_orphans`], never pages that no tree holds.

use std::collections::HashSet;
use std::fs::File;
use std::sync::mpsc;

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

use super::append::{self, Pages};
use super::format::positions::{corrupt, Layout, Segment, GAME_MASK, GAME_SHIFT};
use super::image::{get_varint, max_index_record, Leaves, INTERIOR_INDEX, LEAF_INDEX};
use crate::timings::{self, Stage};

/// Rows appended per transaction: about 9 MB of leaves, of which three
/// are in memory at a time (being read, waiting, being written).
const CHUNK_ROWS: u64 = 1 << 19;

/// The longest record of a row of two integers: a header of 3 bytes and
/// two values of 8.
const MAX_RECORD: usize = 19;

/// A row of a segment: its key and its record as stored.
#[derive(Debug, Clone, Copy)]
struct Row {
    /// [`order`] of the key.
    order: u128,
    record: [u8; MAX_RECORD],
    len: u8,
}

impl Row {
    /// What a part without rows left has next.
    const END: Row = Row { order: END, record: [0; MAX_RECORD], len: 0 };

    /// The row's key, (hash, gpm).
    fn key(&self) -> (i64, i64) {
        key_of(self.order)
    }
}

/// One page on a cursor's path from the root.
#[derive(Debug)]
struct Frame {
    pgno: u32,
    page: Vec<u8>,
    cells: usize,
    interior: bool,
    /// The next step: on a leaf, the next cell; on an interior page, twice
    /// the cell, odd once its child was read (the cell's row is next).
    step: usize,
}

/// Reads the rows of an index B-tree (a `WITHOUT ROWID` table) of two
/// integer columns in key order, page by page: an interior cell's row
/// comes after the rows of its child, before those of the next child.
#[derive(Debug)]
struct TreeCursor {
    name: String,
    page_size: usize,
    stack: Vec<Frame>,
}

impl TreeCursor {
    fn new(name: &str, page_size: usize, root: u32, read: &mut dyn ReadPage) -> Result<Self> {
        let mut cursor = TreeCursor { name: name.to_string(), page_size, stack: Vec::new() };
        cursor.descend(root, read)?;
        Ok(cursor)
    }

    fn descend(&mut self, pgno: u32, read: &mut dyn ReadPage) -> Result<()> {
        if self.stack.len() >= 40 {
            return Err(self.corrupt(pgno, "a tree deeper than 40 levels"));
        }
        let page = read.page(pgno)?;
        let interior = match page.first() {
            Some(&INTERIOR_INDEX) => true,
            Some(&LEAF_INDEX) => false,
            _ => return Err(self.corrupt(pgno, "not a page of an index tree")),
        };
        if page.len() != self.page_size {
            return Err(self.corrupt(pgno, "a page of another size"));
        }
        let cells = usize::from(u16::from_be_bytes([page[3], page[4]]));
        let header = if interior { 12 } else { 8 };
        if header + 2 * cells > page.len() {
            return Err(self.corrupt(pgno, "more cells than the page holds"));
        }
        self.stack.push(Frame { pgno, page, cells, interior, step: 0 });
        Ok(())
    }

    fn corrupt(&self, pgno: u32, what: &str) -> rusqlite::Error {
        corrupt(format!("position segment {}, page {pgno}: {what}", self.name))
    }

    /// [`TreeCursor::corrupt`] of the top page.
    fn corrupt_here(&self, what: &str) -> rusqlite::Error {
        self.corrupt(self.stack.last().map_or(0, |f| f.pgno), what)
    }

    /// The next row, `None` after the last.
    fn next(&mut self, read: &mut dyn ReadPage) -> Result<Option<Row>> {
        loop {
            let Some(frame) = self.stack.last_mut() else { return Ok(None) };
            if !frame.interior {
                if frame.step == frame.cells {
                    self.stack.pop();
                    continue;
                }
                let cell = frame.step;
                frame.step += 1;
                return self.row(cell, 0).map(Some);
            }
            if frame.step > 2 * frame.cells {
                self.stack.pop();
                continue;
            }
            let (step, cells) = (frame.step, frame.cells);
            frame.step += 1;
            if step % 2 == 1 {
                return self.row(step / 2, 4).map(Some);
            }
            let child = if step / 2 < cells {
                let at = self.cell_at(step / 2)?;
                let page = &self.stack.last().expect("a frame").page;
                page.get(at..at + 4).map(|b| u32::from_be_bytes(b.try_into().expect("4 bytes")))
            } else {
                let page = &self.stack.last().expect("a frame").page;
                Some(u32::from_be_bytes(page[8..12].try_into().expect("4 bytes")))
            };
            let child = child.ok_or_else(|| self.corrupt_here("a cell past the page's end"))?;
            self.descend(child, read)?;
        }
    }

    /// Where cell `i` of the top page starts.
    fn cell_at(&self, i: usize) -> Result<usize> {
        let frame = self.stack.last().expect("a frame");
        let pointer = if frame.interior { 12 } else { 8 } + 2 * i;
        let at = usize::from(u16::from_be_bytes([frame.page[pointer], frame.page[pointer + 1]]));
        if at >= frame.page.len() {
            return Err(self.corrupt_here("a cell pointer past the page's end"));
        }
        Ok(at)
    }

    /// The row of cell `i` of the top page, whose payload follows `skip`
    /// bytes (an interior cell's child).
    fn row(&self, i: usize, skip: usize) -> Result<Row> {
        let at = self.cell_at(i)? + skip;
        let page = &self.stack.last().expect("a frame").page;
        // Most cells: a one-byte length, then the record, read from the
        // page and copied at a fixed width (a copy of the record's own
        // width stalls the reads that follow it).
        if let Some(&[len, ref window @ ..]) = page.get(at..at + 1 + MAX_RECORD) {
            let len = usize::from(len);
            if let Some(key) = window.get(..len).and_then(two_integers) {
                let record: [u8; MAX_RECORD] = window.try_into().expect("the window's width");
                return self.row_of(key, record, len);
            }
        }
        let bytes = page.get(at..).unwrap_or_default();
        let (len, head) = get_varint(bytes);
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        if len > max_index_record(self.page_size) || len > MAX_RECORD {
            return Err(self.corrupt_here("a row that is not two integers"));
        }
        let record = bytes
            .get(head..head + len)
            .ok_or_else(|| self.corrupt_here("a cell past the page's end"))?;
        let key = two_integers(record)
            .ok_or_else(|| self.corrupt_here("a row that is not two integers"))?;
        let mut padded = [0; MAX_RECORD];
        padded[..len].copy_from_slice(record);
        self.row_of(key, padded, len)
    }

    /// The row of `key`, whose record is the first `len` bytes of `record`.
    fn row_of(&self, key: (i64, i64), record: [u8; MAX_RECORD], len: usize) -> Result<Row> {
        let order = order(key);
        if order == END {
            return Err(self.corrupt_here("a row past every position row"));
        }
        Ok(Row { order, record, len: len as u8 })
    }
}

/// The two integers of a record of two integer values.
fn two_integers(record: &[u8]) -> Option<(i64, i64)> {
    let (&[header, a, b], values) = record.split_first_chunk::<3>()?;
    if header != 3 {
        return None;
    }
    let (x, used) = integer(a, values)?;
    let (y, rest) = integer(b, &values[used..])?;
    (rest == values.len() - used).then_some((x, y))
}

/// The integer of serial type `serial` at the start of `bytes`, and the
/// bytes it takes.
fn integer(serial: u8, bytes: &[u8]) -> Option<(i64, usize)> {
    // Big-endian two's complement; a width of its own per serial type, so
    // that each is one load.
    let array = |n: usize| bytes.get(..n);
    Some(match serial {
        8 => (0, 0),
        9 => (1, 0),
        1 => (i64::from(*bytes.first()? as i8), 1),
        2 => (i64::from(i16::from_be_bytes(array(2)?.try_into().ok()?)), 2),
        3 => {
            let b = array(3)?;
            ((i64::from(b[0] as i8) << 16) | (i64::from(b[1]) << 8) | i64::from(b[2]), 3)
        }
        4 => (i64::from(i32::from_be_bytes(array(4)?.try_into().ok()?)), 4),
        5 => {
            let b = array(6)?;
            let high = i64::from(i16::from_be_bytes([b[0], b[1]]));
            ((high << 32) | i64::from(u32::from_be_bytes([b[2], b[3], b[4], b[5]])), 6)
        }
        6 => (i64::from_be_bytes(array(8)?.try_into().ok()?), 8),
        _ => return None,
    })
}

type Result<T> = rusqlite::Result<T>;

/// Where a merge reads the parts' pages, which no write of the merge
/// changes (it writes new pages, and the new table's).
trait ReadPage {
    /// The page `pgno`.
    fn page(&mut self, pgno: u32) -> Result<Vec<u8>>;
}

/// The reader of a merge's own thread: a read-only connection of its own,
/// to a database shared through the write-ahead log.
struct PageReader(Connection);

/// The reader of a merge run on the writer's thread: the writer's own
/// connection, between the merge's transactions.
struct WriterPages<'c>(&'c Connection);

/// The reader of a merge's own thread in a database the writer holds
/// alone in a rollback journal: the database file the writer holds open,
/// read where each page lies. Committed pages are all in the file, and
/// the merge's writes leave the parts' pages alone. The writer's own
/// descriptor, never another one: closing any descriptor of the file would
/// drop the writer's locks.
#[cfg(unix)]
struct FilePages<'f> {
    file: &'f File,
    page_size: usize,
}

#[cfg(unix)]
impl ReadPage for FilePages<'_> {
    fn page(&mut self, pgno: u32) -> Result<Vec<u8>> {
        use std::os::unix::fs::FileExt;
        let mut page = vec![0; self.page_size];
        let at = u64::from(pgno.saturating_sub(1)) * self.page_size as u64;
        self.file
            .read_exact_at(&mut page, at)
            .map_err(|e| append::io_error(format!("reading page {pgno} of the database: {e}")))?;
        Ok(page)
    }
}

impl ReadPage for WriterPages<'_> {
    fn page(&mut self, pgno: u32) -> Result<Vec<u8>> {
        append::read_page(self.0, pgno)
    }
}

impl PageReader {
    /// The reader of the database `conn` opens: `None` unless the database
    /// is shared through the write-ahead log. One that the writer holds
    /// alone (`--exclusive`) no other connection can read, nor may this
    /// process open the file again: closing another descriptor of it
    /// would drop the writer's POSIX locks.
    fn open(conn: &Connection) -> Result<Option<PageReader>> {
        let pragma = |name: &str| -> Result<String> {
            conn.query_row(&format!("PRAGMA main.{name}"), [], |r| r.get(0))
        };
        let (journal, locking) = (pragma("journal_mode")?, pragma("locking_mode")?);
        if !journal.eq_ignore_ascii_case("wal") || locking.eq_ignore_ascii_case("exclusive") {
            return Ok(None);
        }
        let path = conn.path().unwrap_or_default();
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        Ok(Some(PageReader(Connection::open_with_flags(path, flags)?)))
    }
}

impl ReadPage for PageReader {
    fn page(&mut self, pgno: u32) -> Result<Vec<u8>> {
        append::read_page(&self.0, pgno)
    }
}

/// `true` if [`merge_pages`] can merge `parts`: each holds two integer
/// columns, `hash` and `gpm`.
pub(super) fn can_merge(parts: &[Segment]) -> bool {
    parts.iter().all(|p| !p.with_fens && p.layout == Layout::Packed)
}

/// What a merge wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Merged {
    /// Rows.
    pub rows: i64,
    /// Distinct hashes.
    pub hashes: i64,
}

/// Merges the rows of `parts` (of [`Layout::Packed`], without FENs, as
/// [`can_merge`] says), leaving out those of the games in
/// `deleted_games`, into the empty table `dest` of the same shape, in
/// transactions of [`CHUNK_ROWS`] rows, calling `after_commit` after each.
/// Runs outside any transaction. A cut merge leaves `dest` partly filled:
/// the caller registers it only once this returns. The parts are read on
/// a thread of their own where another connection can read them
/// ([`PageReader::open`]) or, in a rollback journal, from `file` (the
/// database file, open beside `conn` for reading and writing); else
/// through `conn`, between its writes. Where another connection reads the
/// parts, the merged leaves are written into `file` directly, in pages set
/// apart before ([`append::reserve`]): the log and its checkpoint would
/// copy them twice.
///
/// # Errors
/// Database errors; parts whose pages do not read as such a table, or
/// whose rows are not in key order or repeat a key.
pub(super) fn merge_pages(
    conn: &Connection,
    page_size: usize,
    dest: &str,
    parts: &[Segment],
    after_commit: &dyn Fn(&Connection) -> Result<()>,
    file: Option<&File>,
) -> Result<Merged> {
    merge_in_chunks(conn, page_size, dest, parts, after_commit, file, CHUNK_ROWS)
}

/// `true` if `conn`'s database keeps a rollback journal: each commit
/// writes its pages into the database file.
fn rollback_journal(conn: &Connection) -> Result<bool> {
    let mode: String = conn.query_row("PRAGMA main.journal_mode", [], |r| r.get(0))?;
    Ok(!mode.eq_ignore_ascii_case("wal"))
}

/// [`merge_pages`] in transactions of `chunk_rows` rows.
fn merge_in_chunks(
    conn: &Connection,
    page_size: usize,
    dest: &str,
    parts: &[Segment],
    after_commit: &dyn Fn(&Connection) -> Result<()>,
    file: Option<&File>,
    chunk_rows: u64,
) -> Result<Merged> {
    let own = PageReader::open(conn)?;
    // In the log, the merged leaves go into the file directly, not through
    // the log and again by a checkpoint (see `append::reserve`).
    #[cfg(unix)]
    let direct = match file {
        Some(file) if own.is_some() && !direct_unsafe(conn)? => Some(file),
        _ => None,
    };
    #[cfg(not(unix))]
    let direct: Option<&File> = None;
    #[cfg(unix)]
    let file = match file {
        Some(file) if own.is_none() && rollback_journal(conn)? => {
            Some(FilePages { file, page_size })
        }
        _ => None,
    };
    #[cfg(not(unix))]
    let _ = file;
    let deleted: HashSet<u32> = {
        let mut st = conn.prepare("SELECT game_id FROM deleted_games")?;
        let ids = st.query_map([], |r| r.get::<_, i64>(0))?;
        ids.filter_map(|id| id.map(|id| u32::try_from(id).ok()).transpose())
            .collect::<Result<_>>()?
    };
    let dest_root = append::root_of(conn, dest)?;
    let mut roots = Vec::with_capacity(parts.len());
    for part in parts {
        roots.push((part.name.clone(), append::root_of(conn, &part.name)?));
    }
    let append = |leaves| {
        append_chunk(conn, page_size, dest_root, leaves, direct)?;
        after_commit(conn)
    };
    if let Some(reader) = own {
        let producer = Producer { reader, page_size, roots, deleted, chunk_rows };
        return beside(producer, append);
    }
    #[cfg(unix)]
    if let Some(reader) = file {
        let producer = Producer { reader, page_size, roots, deleted, chunk_rows };
        return beside(producer, append);
    }
    let producer = Producer { reader: WriterPages(conn), page_size, roots, deleted, chunk_rows };
    producer.merge(|leaves| append(leaves).map(|()| true))
}

/// Runs `producer` on a thread of its own, while this one appends the
/// chunks it read before with `append`.
fn beside<R: ReadPage + Send>(
    producer: Producer<R>,
    append: impl Fn(Leaves) -> Result<()>,
) -> Result<Merged> {
    std::thread::scope(|scope| {
        let (chunks, incoming) = mpsc::sync_channel::<Leaves>(1);
        let read = std::thread::Builder::new()
            .name(Stage::Merge.thread().into())
            .spawn_scoped(scope, move || {
                let _clock = timings::ThreadClock::start(Stage::Merge);
                // A closed channel: the writer stopped.
                producer.merge(|leaves| Ok(chunks.send(leaves).is_ok()))
            })
            .map_err(|e| corrupt(format!("no thread to read the merged segments: {e}")))?;
        let mut appended = Ok(());
        for leaves in incoming.iter() {
            appended = append(leaves);
            if appended.is_err() {
                break;
            }
        }
        // Dropping the channel's end stops a reader that is ahead.
        drop(incoming);
        let merged =
            read.join().unwrap_or_else(|_| Err(corrupt("the merge's reader panicked".into())));
        appended.and(merged)
    })
}

/// `true` if the merged leaves cannot be written into the database file
/// directly: its log may hold pages past its end.
#[cfg(unix)]
fn direct_unsafe(conn: &Connection) -> Result<bool> {
    let pages: u32 = conn.query_row("PRAGMA main.page_count", [], |r| r.get(0))?;
    append::log_holds_pages_after(conn, pages)
}

/// Appends a chunk of rows to the index whose root is `root`, in a
/// transaction of its own; with `direct` (the database file), its leaves
/// are written into the file, in pages set apart by a transaction before.
fn append_chunk(
    conn: &Connection,
    page_size: usize,
    root: u32,
    leaves: Leaves,
    direct: Option<&File>,
) -> Result<()> {
    let reserved = match direct {
        Some(_) => append::reserve(conn, page_size, leaves.closed_pages())?,
        None => None,
    };
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let taken = match &reserved {
        Some(reserved) => reserved.taken(conn)?,
        None => None,
    };
    let mut pages = Pages::begin(conn, page_size, taken.unwrap_or_default())?;
    if let (Some(file), Some(reserved), true) = (direct, reserved, pages.taking_free()) {
        pages.write_directly(file, reserved);
    }
    append::append_index(&mut pages, root, leaves, None)?;
    pages.finish()?;
    tx.commit()?;
    append::after_page_writes(conn)
}

/// Reads and merges the parts' rows into chunks of leaves.
struct Producer<R> {
    reader: R,
    page_size: usize,
    /// Each part's name and root page.
    roots: Vec<(String, u32)>,
    /// Games whose rows are left out.
    deleted: HashSet<u32>,
    chunk_rows: u64,
}

impl<R: ReadPage> Producer<R> {
    /// Hands every chunk of the merged rows to `emit`, which says whether
    /// to go on; the rows and hashes merged.
    fn merge(mut self, mut emit: impl FnMut(Leaves) -> Result<bool>) -> Result<Merged> {
        let Producer { reader, page_size, roots, deleted, chunk_rows } = &mut self;
        let page_size = *page_size;
        let mut cursors = Vec::with_capacity(roots.len());
        // Each part's next row; the tree picks the least.
        let mut current = Vec::with_capacity(roots.len());
        for (name, root) in roots.iter() {
            let mut cursor = TreeCursor::new(name, page_size, *root, reader)?;
            let first = cursor.next(reader)?;
            current.push(first.unwrap_or(Row::END));
            cursors.push(cursor);
        }
        if current.is_empty() {
            return Ok(Merged::default());
        }
        let mut tree = LoserTree::new(current.iter().map(|row| row.order).collect());
        let mut merged = Merged::default();
        let mut last: Option<(i64, i64)> = None;
        while current[tree.winner()].order != END {
            // Every chunk but the first starts after rows: its first row
            // goes above the index's last leaf.
            let mut leaves = Leaves::for_index(page_size, last.is_some());
            let mut rows = 0u64;
            while rows < *chunk_rows {
                let i = tree.winner();
                let row = current[i];
                if row.order == END {
                    break;
                }
                let next = cursors[i].next(reader)?.unwrap_or(Row::END);
                if next.order <= row.order {
                    return Err(corrupt(format!(
                        "position segment {}: row {:?} after {:?}",
                        roots[i].0,
                        next.key(),
                        row.key()
                    )));
                }
                current[i] = next;
                tree.replace_winner(next.order);
                let key = row.key();
                if !deleted.is_empty()
                    && deleted.contains(&((key.1 >> GAME_SHIFT & GAME_MASK) as u32))
                {
                    continue;
                }
                if last.is_some_and(|last| last >= key) {
                    return Err(corrupt(format!("position row {key:?} in two merged segments")));
                }
                if last.is_none_or(|last| last.0 != key.0) {
                    merged.hashes += 1;
                }
                last = Some(key);
                leaves.push(&row.record[..usize::from(row.len)]);
                rows += 1;
            }
            if rows == 0 {
                break;
            }
            if !emit(leaves)? {
                return Ok(merged);
            }
            merged.rows += rows as i64;
        }
        Ok(merged)
    }
}

/// The order of a part that has no row left: after every row's
/// ([`order`] gives no row this value).
const END: u128 = u128::MAX;

/// The key whose [`order`] is `order`.
fn key_of(order: u128) -> (i64, i64) {
    let unflip = |v: u128| ((v as u64) ^ (1 << 63)) as i64;
    (unflip(order >> 64), unflip(order))
}

/// A row's key as one unsigned integer in the rows' order: (hash, gpm)
/// compared as signed integers compare as these do, in one comparison.
fn order(key: (i64, i64)) -> u128 {
    let flip = |v: i64| u128::from((v as u64) ^ (1 << 63));
    (flip(key.0) << 64) | flip(key.1)
}

/// A tournament's tree of losers over the parts' next rows: the least
/// row's part at the root, and a row replaced in one pass up its leaf's
/// path (a comparison per level, where a heap takes two and moves
/// entries).
struct LoserTree {
    /// Each part's next row's order, then [`END`] up to a power of two.
    orders: Vec<u128>,
    /// At each inner node (1 and up; 0 unused), the part that lost there.
    losers: Vec<usize>,
    winner: usize,
}

impl LoserTree {
    fn new(mut orders: Vec<u128>) -> LoserTree {
        let size = orders.len().max(1).next_power_of_two();
        orders.resize(size, END);
        // Winners of each node, bottom up; the losers stay.
        let mut winners = vec![0; 2 * size];
        let mut losers = vec![0; size];
        for (part, slot) in winners[size..].iter_mut().enumerate() {
            *slot = part;
        }
        for node in (1..size).rev() {
            let (a, b) = (winners[2 * node], winners[2 * node + 1]);
            let (win, lose) = if orders[b] < orders[a] { (b, a) } else { (a, b) };
            winners[node] = win;
            losers[node] = lose;
        }
        let winner = if size == 1 { 0 } else { winners[1] };
        LoserTree { orders, losers, winner }
    }

    /// The part whose next row is the least.
    fn winner(&self) -> usize {
        self.winner
    }

    /// Gives the winner's part its next row's order.
    fn replace_winner(&mut self, order: u128) {
        let size = self.orders.len();
        let mut winner = self.winner;
        self.orders[winner] = order;
        let mut node = (winner + size) / 2;
        while node > 0 {
            let loser = self.losers[node];
            if self.orders[loser] < self.orders[winner] {
                self.losers[node] = winner;
                winner = loser;
            }
            node /= 2;
        }
        self.winner = winner;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::image::{Record, Value};

    /// A database of `page_size` bytes a page, shared through the
    /// write-ahead log, with the tables a merge reads, and a table
    /// `part{i}` per part holding its rows, inserted by SQLite in an order
    /// of its own (its trees have interior rows and leaves partly full).
    fn database(page_size: usize, parts: &[Vec<(i64, i64)>]) -> (tempfile::TempDir, Connection) {
        database_in(page_size, parts, "PRAGMA journal_mode = WAL")
    }

    /// [`database`] in the journal and locking mode `modes` sets.
    fn database_in(
        page_size: usize,
        parts: &[Vec<(i64, i64)>],
        modes: &str,
    ) -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::open(dir.path().join("t.db")).unwrap();
        conn.execute_batch(&format!(
            "PRAGMA page_size = {page_size}; {modes}; \
             CREATE TABLE deleted_games (game_id INTEGER PRIMARY KEY);"
        ))
        .unwrap();
        for (i, rows) in parts.iter().enumerate() {
            conn.execute_batch(&format!(
                "CREATE TABLE part{i} (hash INTEGER NOT NULL, gpm INTEGER NOT NULL, \
                 PRIMARY KEY (hash, gpm)) WITHOUT ROWID"
            ))
            .unwrap();
            let tx = conn.unchecked_transaction().unwrap();
            let mut st = tx.prepare(&format!("INSERT INTO part{i} VALUES (?1, ?2)")).unwrap();
            for &(hash, gpm) in rows.iter().rev() {
                st.execute([hash, gpm]).unwrap();
            }
            drop(st);
            tx.commit().unwrap();
        }
        conn.execute_batch(
            "CREATE TABLE dest (hash INTEGER NOT NULL, gpm INTEGER NOT NULL, \
             PRIMARY KEY (hash, gpm)) WITHOUT ROWID",
        )
        .unwrap();
        (dir, conn)
    }

    fn segments(n: usize) -> Vec<Segment> {
        (0..n)
            .map(|i| Segment { name: format!("part{i}"), with_fens: false, layout: Layout::Packed })
            .collect()
    }

    /// Rows of game ids 1 to `games`, hashes over the whole range of an
    /// `i64` (every integer size of a record) and repeated across parts.
    fn rows(seed: u64, n: usize, games: u32) -> Vec<(i64, i64)> {
        let mut x = seed | 1;
        let mut rows: Vec<(i64, i64)> = (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let hash = match i % 4 {
                    0 => x as i64,
                    1 => (x % 300) as i64 - 150,
                    2 => (x % 70_000) as i64,
                    _ => -((x >> 20) as i64),
                };
                let game = 1 + (x >> 40) as u32 % games;
                (hash, (i64::from(game) << GAME_SHIFT) | ((seed as i64) << 12) | (i as i64 % 4096))
            })
            .collect();
        rows.sort_unstable();
        rows.dedup();
        rows
    }

    fn read(conn: &Connection, table: &str) -> Vec<(i64, i64)> {
        let mut st = conn.prepare(&format!("SELECT hash, gpm FROM {table}")).unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
    }

    /// Parts of every depth, read from their pages, merge into the rows
    /// SQLite reads from them in key order, in chunks that each leave a
    /// sound tree, without the deleted games' rows.
    #[test]
    fn parts_merge_page_by_page_into_a_sound_table_without_deleted_games() {
        let parts: Vec<Vec<(i64, i64)>> =
            [(1, 9_000), (2, 40), (3, 0), (4, 1), (5, 25_000)].map(|(s, n)| rows(s, n, 50)).into();
        let (_dir, conn) = database(512, &parts);
        conn.execute_batch("INSERT INTO deleted_games VALUES (7), (19)").unwrap();
        let mut expected: Vec<(i64, i64)> = parts.concat();
        expected.sort_unstable();
        expected.retain(|r| !matches!(r.1 >> GAME_SHIFT, 7 | 19));
        let commits = std::cell::Cell::new(0);
        let counted = |conn: &Connection| {
            commits.set(commits.get() + 1);
            let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
            assert_eq!(check, "ok", "after commit {}", commits.get());
            Ok(())
        };
        let merged =
            merge_in_chunks(&conn, 512, "dest", &segments(parts.len()), &counted, None, 5_000)
                .unwrap();
        assert_eq!(read(&conn, "dest"), expected);
        let hashes = {
            let mut h: Vec<i64> = expected.iter().map(|r| r.0).collect();
            h.dedup();
            h.len() as i64
        };
        assert_eq!(merged, Merged { rows: expected.len() as i64, hashes });
        assert_eq!(commits.get(), expected.len().div_ceil(5_000));
        // The parts' own reading agrees with SQLite's.
        for (i, part) in parts.iter().enumerate() {
            assert_eq!(&read(&conn, &format!("part{i}")), part);
        }
    }

    /// A merge stopped after a chunk (a kill, a full disk) leaves the parts
    /// as they were and the new table a sound prefix of the merge; the
    /// thread that reads the parts stops too.
    #[test]
    fn merged_leaves_go_into_the_file_and_not_through_the_log() {
        let parts: Vec<Vec<(i64, i64)>> =
            [(1, 9_000), (2, 40), (5, 25_000)].map(|(s, n)| rows(s, n, 50)).into();
        let mut expected: Vec<(i64, i64)> = parts.concat();
        expected.sort_unstable();
        let mut logs = Vec::new();
        for direct in [false, true] {
            let (dir, conn) = database(1_024, &parts);
            conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA wal_autocheckpoint = 0")
                .unwrap();
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(dir.path().join("t.db"))
                .unwrap();
            // A reader that keeps its snapshot through the merge.
            let reader = Connection::open(dir.path().join("t.db")).unwrap();
            reader.execute_batch("BEGIN").unwrap();
            let before: i64 =
                reader.query_row("SELECT count(*) FROM part0", [], |r| r.get(0)).unwrap();
            let commits = std::cell::Cell::new(0);
            let checked = |conn: &Connection| {
                commits.set(commits.get() + 1);
                let check: String =
                    conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
                assert_eq!(check, "ok", "after commit {}", commits.get());
                Ok(())
            };
            let file = direct.then_some(&file);
            let merged = merge_in_chunks(
                &conn,
                1_024,
                "dest",
                &segments(parts.len()),
                &checked,
                file,
                5_000,
            )
            .unwrap();
            assert_eq!(merged.rows, expected.len() as i64);
            assert_eq!(read(&conn, "dest"), expected);
            let old: i64 =
                reader.query_row("SELECT count(*) FROM part0", [], |r| r.get(0)).unwrap();
            assert_eq!(old, before);
            reader.execute_batch("COMMIT").unwrap();
            logs.push(std::fs::metadata(dir.path().join("t.db-wal")).unwrap().len());
            // Copied into the file, the log leaves the same rows.
            conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
            let fresh = Connection::open(dir.path().join("t.db")).unwrap();
            assert_eq!(read(&fresh, "dest"), expected);
            let check: String =
                fresh.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
            assert_eq!(check, "ok");
        }
        // About 300 KiB of leaves: through the log, and beside it.
        assert!(logs[1] * 3 < logs[0], "log bytes without and with direct writes: {logs:?}");
    }

    #[test]
    fn a_merge_cut_after_a_chunk_leaves_a_sound_prefix() {
        let parts = vec![rows(1, 3_000, 9), rows(2, 3_000, 9), rows(3, 3_000, 9)];
        let (_dir, conn) = database(1024, &parts);
        let mut all: Vec<(i64, i64)> = parts.concat();
        all.sort_unstable();
        let commits = std::cell::Cell::new(0);
        let cut = |_: &Connection| {
            commits.set(commits.get() + 1);
            match commits.get() {
                1 => Ok(()),
                _ => Err(rusqlite::Error::InvalidQuery),
            }
        };
        let error =
            merge_in_chunks(&conn, 1024, "dest", &segments(3), &cut, None, 1_000).unwrap_err();
        assert_eq!(error, rusqlite::Error::InvalidQuery);
        assert_eq!(commits.get(), 2, "no chunk after the failed one");
        assert_eq!(read(&conn, "dest"), all[..2_000]);
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(check, "ok");
        for (i, part) in parts.iter().enumerate() {
            assert_eq!(&read(&conn, &format!("part{i}")), part);
        }
    }

    /// A database the writer holds alone, in a rollback journal or the
    /// log, which no other connection can read, is merged through the
    /// writer's own connection, or read from the file the writer holds
    /// open where the journal is a rollback one: the same rows, a sound
    /// tree after each chunk.
    #[test]
    fn a_database_the_writer_holds_alone_is_merged_from_its_file_or_connection() {
        let parts = vec![rows(1, 4_000, 9), rows(2, 4_000, 9)];
        let mut expected: Vec<(i64, i64)> = parts.concat();
        expected.sort_unstable();
        for modes in [
            "PRAGMA journal_mode = TRUNCATE; PRAGMA locking_mode = EXCLUSIVE",
            "PRAGMA journal_mode = WAL; PRAGMA locking_mode = EXCLUSIVE",
        ] {
            let (dir, conn) = database_in(1024, &parts, modes);
            assert!(PageReader::open(&conn).unwrap().is_none(), "{modes}: no second reader");
            let commits = std::cell::Cell::new(0);
            let checked = |conn: &Connection| {
                commits.set(commits.get() + 1);
                let check: String =
                    conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
                assert_eq!(check, "ok", "{modes}: after commit {}", commits.get());
                Ok(())
            };
            let merged = merge_in_chunks(&conn, 1024, "dest", &segments(2), &checked, None, 3_000);
            assert_eq!(merged.unwrap().rows, expected.len() as i64, "{modes}");
            assert_eq!(commits.get(), expected.len().div_ceil(3_000), "{modes}");
            assert_eq!(read(&conn, "dest"), expected, "{modes}");
            // Read from the file the writer holds open (where the journal
            // is a rollback one), or through the connection again.
            conn.execute_batch(
                "DELETE FROM dest; CREATE TABLE dest2 (hash INTEGER NOT NULL, \
                 gpm INTEGER NOT NULL, PRIMARY KEY (hash, gpm)) WITHOUT ROWID",
            )
            .unwrap();
            let file = File::open(dir.path().join("t.db")).unwrap();
            commits.set(0);
            let merged =
                merge_in_chunks(&conn, 1024, "dest2", &segments(2), &checked, Some(&file), 3_000);
            assert_eq!(merged.unwrap().rows, expected.len() as i64, "{modes}, from the file");
            assert_eq!(commits.get(), expected.len().div_ceil(3_000), "{modes}, from the file");
            assert_eq!(read(&conn, "dest2"), expected, "{modes}, from the file");
            // The file is what is read in a rollback journal: another one
            // (empty) stops that merge; in the log it is not read.
            conn.execute_batch("DELETE FROM dest2").unwrap();
            let other = tempfile::tempfile().unwrap();
            let merged = merge_in_chunks(
                &conn,
                1024,
                "dest2",
                &segments(2),
                &|_| Ok(()),
                Some(&other),
                3_000,
            );
            if modes.contains("TRUNCATE") {
                let error = merged.unwrap_err().to_string();
                assert!(error.contains("reading page"), "{modes}: {error}");
            } else {
                assert_eq!(merged.unwrap().rows, expected.len() as i64, "{modes}");
            }
        }
    }

    #[test]
    fn the_tree_of_losers_gives_every_part_in_order() {
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for parts in 1..=17 {
            let lists: Vec<Vec<u128>> = (0..parts)
                .map(|p| {
                    let mut list: Vec<u128> = (0..(p * 37) % 50)
                        .map(|_| {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            u128::from(x % 1_000) << 64 | p as u128
                        })
                        .collect();
                    list.sort_unstable();
                    list.dedup();
                    list
                })
                .collect();
            let mut next = vec![0; parts];
            let first = |p: usize, at: usize| lists[p].get(at).copied().unwrap_or(END);
            let mut tree = LoserTree::new((0..parts).map(|p| first(p, 0)).collect());
            let mut merged = Vec::new();
            while tree.orders[tree.winner()] != END {
                let p = tree.winner();
                merged.push(lists[p][next[p]]);
                next[p] += 1;
                tree.replace_winner(first(p, next[p]));
            }
            let mut expected = lists.concat();
            expected.sort_unstable();
            assert_eq!(merged, expected, "{parts} parts");
        }
        let keys = [(i64::MIN, 5), (-1, i64::MAX), (0, -3), (0, 0), (7, i64::MIN), (i64::MAX, 0)];
        assert!(keys.windows(2).all(|w| order(w[0]) < order(w[1])));
        assert!(keys.iter().all(|&k| key_of(order(k)) == k));
    }

    #[test]
    fn a_key_in_two_parts_stops_the_merge() {
        let mut parts = vec![rows(1, 500, 9), rows(2, 500, 9)];
        let shared = parts[0][250];
        parts[1].push(shared);
        parts[1].sort_unstable();
        let (_dir, conn) = database(1024, &parts);
        let error = merge_pages(&conn, 1024, "dest", &segments(2), &|_| Ok(()), None).unwrap_err();
        assert!(error.to_string().contains("in two merged segments"), "{error}");
    }

    #[test]
    fn records_of_every_integer_size_read_back() {
        let mut record = Record::default();
        for v in [0, 1, -1, 127, -128, 300, -70_000, 1 << 40, i64::MIN, i64::MAX, 1 << 47] {
            let bytes = record.encode(&[Value::Integer(v), Value::Integer(-(v / 3))]);
            assert_eq!(two_integers(bytes), Some((v, -(v / 3))), "{v}");
        }
        let bytes = record.encode(&[Value::Integer(1), Value::Text("x")]).to_vec();
        assert_eq!(two_integers(&bytes), None, "a text is no integer");
    }
}
