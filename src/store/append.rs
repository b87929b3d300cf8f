//! Pages written into the database by hand, at the end of a batch's
//! transaction, through SQLite's `sqlite_dbpage` table: a new segment's
//! pages ([`super::segments`]), and rows appended after the last row of a
//! table or index whose new rows all follow its old ones (the per-game
//! tables, whose keys are game ids, which only grow).
//!
//! An append writes the new leaves whole and rewrites only the pages on
//! the tree's right edge (the last page of each level): each level takes
//! its new children after its last one, a full page is written and the
//! next one opened beside it, and a root that overflows moves down a
//! level, so that the root keeps its page number. Every leaf stays at the
//! same depth, as SQLite requires. SQLite's own insert would decode every
//! record and rebalance page by page; here a batch's rows cost their
//! bytes once.
//!
//! SQLite's B-tree layer does not see these writes (its page count, its
//! free list, and the parsed pages it keeps), so they are the
//! transaction's last, and the caller calls [`after_page_writes`] after
//! the commit.

use std::fs::File;

use rusqlite::{params, Connection, Transaction, TransactionBehavior};

use super::image::{
    get_varint, local_len, max_index_record, varint, Leaves, Page, RowidLeaves, INTERIOR_INDEX,
    INTERIOR_TABLE, LEAF_INDEX, LEAF_TABLE,
};
use super::page_buffers;

/// Why pages cannot be written.
fn corrupt(message: String) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        Some(message),
    )
}

/// How pages can be written by hand into the database `conn` opens: in
/// pages of this many bytes, if SQLite has `sqlite_dbpage`, the database
/// is a file (the cache of a database in memory is the database, and
/// keeps its pages parsed as they were), the file has no pointer-map
/// pages (auto-vacuum), which pages written by hand would lack, and no
/// bytes reserved at the end of each page. Asked outside a transaction.
///
/// # Errors
/// Database errors.
pub fn direct_page_size(conn: &Connection) -> rusqlite::Result<Option<usize>> {
    let dbpage: bool = conn.query_row(
        "SELECT count(*) > 0 FROM pragma_module_list WHERE name = 'sqlite_dbpage'",
        [],
        |r| r.get(0),
    )?;
    let vacuum: i64 = conn.query_row("PRAGMA main.auto_vacuum", [], |r| r.get(0))?;
    let page_size: i64 = conn.query_row("PRAGMA main.page_size", [], |r| r.get(0))?;
    if !dbpage || vacuum != 0 || conn.path().is_none_or(str::is_empty) {
        return Ok(None);
    }
    let first = read_page(conn, 1)?;
    Ok((first.get(20) == Some(&0)).then_some(page_size as usize))
}

/// After the commit of a transaction that wrote pages by hand: SQLite's
/// page cache forgets its pages, whose parsed state the B-tree layer keeps
/// beside them, so that they are read again as written.
///
/// # Errors
/// Database errors.
pub fn after_page_writes(conn: &Connection) -> rusqlite::Result<()> {
    conn.release_memory()
}

/// The page `pgno` as the transaction sees it.
pub(super) fn read_page(conn: &Connection, pgno: u32) -> rusqlite::Result<Vec<u8>> {
    conn.prepare_cached("SELECT data FROM sqlite_dbpage WHERE pgno = ?1")?
        .query_row([pgno], |r| r.get(0))
}

/// Pages of the database's free list taken for pages written by hand,
/// from its front, and what of the list is left.
#[derive(Debug, Default)]
pub struct FreeTaken {
    /// The pages taken, used first.
    pub pages: Vec<u32>,
    /// The list's first trunk page left (0: none)...
    pub first_trunk: u32,
    /// ... and the pages left on it.
    pub left: u32,
    /// A trunk page left that gave the last of its leaves, rewritten.
    pub trunk: Option<(u32, Vec<u8>)>,
}

/// New pages at the end of the database set apart for pages written into
/// its file directly ([`Pages::write_directly`]), as free pages: the leaves
/// of a free-list trunk page at the list's front ([`reserve`]).
#[derive(Debug)]
pub struct Reserved {
    /// The pages set apart, in order.
    leaves: Vec<u32>,
    /// The trunk page that lists them, after them.
    trunk: u32,
    /// The list's first trunk and count before.
    next_trunk: u32,
    free_before: u32,
}

impl Reserved {
    /// The pages set apart, for the transaction that writes them: the
    /// leaves first, then their trunk page (written through SQLite: the
    /// log holds it), as taken from the free list's front; `None` if the
    /// list no longer begins with them.
    ///
    /// # Errors
    /// Database errors.
    pub fn taken(&self, conn: &Connection) -> rusqlite::Result<Option<FreeTaken>> {
        let first = read_page(conn, 1)?;
        let holds = word(&first, 32) == self.trunk
            && word(&first, 36) == self.free_before + self.leaves.len() as u32 + 1;
        Ok(holds.then(|| FreeTaken {
            pages: self.leaves.iter().copied().chain([self.trunk]).collect(),
            first_trunk: self.next_trunk,
            left: self.free_before,
            trunk: None,
        }))
    }
}

/// The big-endian word at `at` of `bytes`.
pub(super) fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// A free-list trunk page of `page_size` bytes listing `leaves`, followed
/// by the trunk `next` (0: none).
fn trunk_page(page_size: usize, next: u32, leaves: &[u32]) -> Vec<u8> {
    let mut page = vec![0; page_size];
    page[0..4].copy_from_slice(&next.to_be_bytes());
    page[4..8].copy_from_slice(&(leaves.len() as u32).to_be_bytes());
    for (i, leaf) in leaves.iter().enumerate() {
        page[8 + 4 * i..12 + 4 * i].copy_from_slice(&leaf.to_be_bytes());
    }
    page
}

/// Sets apart up to `n` new pages at the end of the database for pages
/// written into its file directly, in a transaction of its own: a new
/// free-list trunk page after them lists them at the list's front. Every
/// snapshot then sees them free or not at all, so no reader reads them
/// and no checkpoint copies a page over them or cuts the file before them
/// (a checkpoint that copies the whole log truncates the file to the
/// database's size, which pages written past it would not survive); an
/// import cut before it writes them leaves them free. The caller makes
/// sure the write-ahead log holds no page past the database's end
/// ([`log_holds_pages_after`]), which would hide what is written there.
/// `None` for no pages.
///
/// # Errors
/// Database errors.
pub fn reserve(
    conn: &Connection,
    page_size: usize,
    n: usize,
) -> rusqlite::Result<Option<Reserved>> {
    // SQLite's own bound on a trunk page's leaves.
    let n = n.min(page_size / 4 - 8);
    if n == 0 {
        return Ok(None);
    }
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let mut pages = Pages::begin(conn, page_size, FreeTaken::default())?;
    let leaves: Vec<u32> = (0..n).map(|_| pages.allocate()).collect();
    let trunk = pages.allocate();
    let mut first = read_page(conn, 1)?;
    let reserved =
        Reserved { leaves, trunk, next_trunk: word(&first, 32), free_before: word(&first, 36) };
    pages.write(trunk, &trunk_page(page_size, reserved.next_trunk, &reserved.leaves))?;
    first[28..32].copy_from_slice(&trunk.to_be_bytes());
    first[32..36].copy_from_slice(&trunk.to_be_bytes());
    first[36..40].copy_from_slice(&(reserved.free_before + n as u32 + 1).to_be_bytes());
    pages.write(1, &first)?;
    tx.commit()?;
    after_page_writes(conn)?;
    Ok(Some(reserved))
}

/// `true` unless `conn`'s write-ahead log surely holds no page numbered
/// past `pages`, the database's size: a frame of the current log (its
/// salts) for such a page is left from before the database shrank, and
/// readers and checkpoints would take it for a page written past the end
/// since. Also `true` where the log cannot be read as such.
///
/// # Errors
/// Errors reading the log file.
pub fn log_holds_pages_after(conn: &Connection, pages: u32) -> rusqlite::Result<bool> {
    let Some(path) = conn.path().filter(|p| !p.is_empty()) else { return Ok(true) };
    let wal = std::path::PathBuf::from(format!("{path}-wal"));
    let file = match File::open(&wal) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(io_error(format!("reading {}: {e}", wal.display()))),
    };
    scan_log(&file, pages).map_err(|e| io_error(format!("reading {}: {e}", wal.display())))
}

#[cfg(unix)]
fn scan_log(file: &File, pages: u32) -> std::io::Result<bool> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata()?.len();
    if len < 32 {
        return Ok(false);
    }
    let mut header = [0; 32];
    file.read_exact_at(&mut header, 0)?;
    if !matches!(word(&header, 0), 0x377f_0682 | 0x377f_0683) {
        return Ok(true);
    }
    let frame = 24 + u64::from(word(&header, 8));
    let mut at = 32;
    let mut head = [0; 24];
    while at + frame <= len {
        file.read_exact_at(&mut head, at)?;
        if head[8..16] != header[16..24] {
            break;
        }
        if word(&head, 0) > pages {
            return Ok(true);
        }
        at += frame;
    }
    Ok(false)
}

#[cfg(not(unix))]
fn scan_log(_: &File, _: u32) -> std::io::Result<bool> {
    Ok(true)
}

/// An error of the system's reads and writes, as SQLite's.
pub(super) fn io_error(message: String) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_IOERR),
        Some(message),
    )
}

/// Writes `data` as the page `pgno` of the database file `file`.
#[cfg(unix)]
fn write_at(file: &File, pgno: u32, data: &[u8]) -> rusqlite::Result<()> {
    use std::os::unix::fs::FileExt;
    let at = u64::from(pgno - 1) * data.len() as u64;
    file.write_all_at(data, at)
        .map_err(|e| io_error(format!("writing page {pgno} of the database: {e}")))
}

/// Bytes written by one system call at most
/// ([`Pages::write_all_maybe_directly`]), in whole pages (one page at
/// least). Writes of 64 KiB took two thirds of the kernel's time of the
/// same bytes in writes of 16 KiB; larger ones now and then far more, as
/// the kernel then caches the file in pieces as large as a write.
const MAX_RUN_BYTES: usize = 64 << 10;

/// Writes `pages`, whole pages of `page_size` bytes numbered from `first`
/// on, into the database file `file` where they lie.
#[cfg(unix)]
fn write_run_at(
    file: &File,
    first: u32,
    page_size: usize,
    pages: &[(u32, &[u8])],
) -> rusqlite::Result<()> {
    use std::os::unix::io::AsRawFd;
    let mut offset = u64::from(first - 1) * page_size as u64;
    let mut parts: Vec<&[u8]> = pages.iter().map(|&(_, data)| data).collect();
    let mut next = 0;
    while next < parts.len() {
        let iov: Vec<libc::iovec> = parts[next..]
            .iter()
            .map(|part| libc::iovec {
                iov_base: part.as_ptr() as *mut libc::c_void,
                iov_len: part.len(),
            })
            .collect();
        let failed = |e: std::io::Error| {
            io_error(format!("writing page {} of the database: {e}", pages[next].0))
        };
        let at = libc::off_t::try_from(offset)
            .map_err(|_| failed(std::io::Error::from(std::io::ErrorKind::FileTooLarge)))?;
        // SAFETY: every iovec points into a live slice of `parts` of its
        // length, which pwritev only reads; the count is at most 128
        // (pages of 512 bytes), within every system's limit.
        let written =
            unsafe { libc::pwritev(file.as_raw_fd(), iov.as_ptr(), iov.len() as libc::c_int, at) };
        let mut written = match usize::try_from(written) {
            Ok(0) => return Err(failed(std::io::Error::from(std::io::ErrorKind::WriteZero))),
            Ok(n) => n,
            Err(_) => {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(failed(e));
            }
        };
        offset += written as u64;
        // A short write: on from where it stopped.
        while written > 0 {
            if written >= parts[next].len() {
                written -= parts[next].len();
                next += 1;
            } else {
                parts[next] = &parts[next][written..];
                written = 0;
            }
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn write_run_at(_: &File, first: u32, _: usize, _: &[(u32, &[u8])]) -> rusqlite::Result<()> {
    Err(io_error(format!("page {first}: no direct writes on this system")))
}

/// Reads the page `pgno` of `page_size` bytes of the database file `file`.
#[cfg(unix)]
fn read_at(file: &File, pgno: u32, page_size: usize) -> rusqlite::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut page = vec![0; page_size];
    file.read_exact_at(&mut page, u64::from(pgno - 1) * page_size as u64)
        .map_err(|e| io_error(format!("reading page {pgno} of the database: {e}")))?;
    Ok(page)
}

#[cfg(not(unix))]
fn read_at(_: &File, pgno: u32, _: usize) -> rusqlite::Result<Vec<u8>> {
    Err(io_error(format!("page {pgno}: no direct reads on this system")))
}

/// Cuts `file`, the database file, after the database's last page: new
/// pages written into it directly ([`Pages::write_new_directly`]) by a
/// transaction rolled back since. SQLite cuts the file back itself only
/// where it had written into it.
///
/// # Errors
/// Database errors; errors reading or cutting the file.
pub fn cut_after_last_page(
    conn: &Connection,
    file: &File,
    page_size: usize,
) -> rusqlite::Result<()> {
    let pages: u64 = conn.query_row("PRAGMA main.page_count", [], |r| r.get(0))?;
    let size = pages * page_size as u64;
    let len = file
        .metadata()
        .map_err(|e| io_error(format!("reading the size of the database file: {e}")))?
        .len();
    if len > size {
        file.set_len(size)
            .map_err(|e| io_error(format!("cutting the database file to {size} bytes: {e}")))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn write_at(_: &File, pgno: u32, _: &[u8]) -> rusqlite::Result<()> {
    Err(io_error(format!("page {pgno}: no direct writes on this system")))
}

/// Empties the index trees whose roots are `roots` by hand, as the
/// transaction's last writes: each root becomes an empty leaf and every
/// other page of the trees goes onto the free list, found from the trees'
/// interior pages alone. The caller makes sure that no record of the
/// trees spills to overflow pages, which only a leaf's cells would name.
/// A `DROP TABLE` then frees the root alone, where it reads and parses
/// every leaf (a quarter of the writer's time in a merge).
///
/// # Errors
/// Database errors; trees whose pages do not read as index pages.
pub fn empty_trees(conn: &Connection, page_size: usize, roots: &[u32]) -> rusqlite::Result<()> {
    let read = |pgno: u32| read_page(conn, pgno);
    let mut freed = Vec::new();
    for &root in roots {
        pages_below(&read, root, &mut freed)?;
    }
    if freed.is_empty() {
        return Ok(());
    }
    let mut insert =
        conn.prepare_cached("INSERT INTO sqlite_dbpage (pgno, data) VALUES (?1, ?2)")?;
    let mut empty = vec![0; page_size];
    empty[0] = LEAF_INDEX;
    // Where the cells would start: the page's end (0 for 65,536).
    empty[5..7].copy_from_slice(&(page_size as u16).to_be_bytes());
    for &root in roots {
        insert.execute(params![root, &empty])?;
    }
    // Some of the freed pages become the trunk pages that list the rest.
    let per_trunk = page_size / 4 - 8;
    let mut first = read_page(conn, 1)?;
    let mut next_trunk = word(&first, 32);
    let count = word(&first, 36) + freed.len() as u32;
    for chunk in freed.chunks(per_trunk + 1) {
        let (&trunk, leaves) = chunk.split_first().expect("a chunk is never empty");
        insert.execute(params![trunk, trunk_page(page_size, next_trunk, leaves)])?;
        next_trunk = trunk;
    }
    first[32..36].copy_from_slice(&next_trunk.to_be_bytes());
    first[36..40].copy_from_slice(&count.to_be_bytes());
    insert.execute(params![1, first]).map(drop)
}

/// Adds the numbers of every page of the index tree `root` but the root
/// to `pages`, reading its interior pages only: every leaf is at the
/// depth of the first.
fn pages_below(
    read: &dyn Fn(u32) -> rusqlite::Result<Vec<u8>>,
    root: u32,
    pages: &mut Vec<u32>,
) -> rusqlite::Result<()> {
    let children = |pgno: u32, page: &[u8]| -> rusqlite::Result<Vec<u32>> {
        if page.first() != Some(&INTERIOR_INDEX) || page.len() < 12 {
            return Err(corrupt(format!("page {pgno} is no interior page of an index")));
        }
        let cells = usize::from(u16::from_be_bytes([page[3], page[4]]));
        let mut children = Vec::with_capacity(cells + 1);
        for i in 0..cells {
            let at = page
                .get(12 + 2 * i..14 + 2 * i)
                .map(|p| usize::from(u16::from_be_bytes([p[0], p[1]])));
            let child = at.and_then(|at| page.get(at..at + 4));
            let child =
                child.ok_or_else(|| corrupt(format!("page {pgno}: a cell past its end")))?;
            children.push(word(child, 0));
        }
        children.push(word(page, 8));
        Ok(children)
    };
    // The depth of the leaves, from the first path down.
    let mut depth = 0;
    let mut pgno = root;
    loop {
        let page = read(pgno)?;
        match page.first() {
            Some(&LEAF_INDEX) => break,
            _ if depth >= 40 => {
                return Err(corrupt(format!("the tree of root {root} is deeper than 40 levels")));
            }
            _ => pgno = children(pgno, &page)?[0],
        }
        depth += 1;
    }
    let mut level = vec![root];
    for _ in 0..depth {
        let mut below = Vec::new();
        for &pgno in &level {
            below.extend(children(pgno, &read(pgno)?)?);
        }
        pages.extend_from_slice(&below);
        level = below;
    }
    Ok(())
}

/// The pages written by hand in one transaction: their numbers (the free
/// pages given, then after the file's last page) and the database header
/// that counts them.
pub struct Pages<'c> {
    conn: &'c Connection,
    page_size: usize,
    /// The file's pages when the writes began.
    count: u32,
    /// Free pages to use first, taken from the free list's front.
    free: FreeTaken,
    used_free: usize,
    next: u32,
    /// The page holding the lock bytes at 1 GiB, which SQLite never uses.
    locking: u32,
    written: usize,
    /// Pages written into the database file itself, not through SQLite:
    /// the file, and the pages' numbers, sorted ([`Reserved`]).
    direct: Option<(&'c File, Vec<u32>)>,
    /// The database file, if new pages may be written into it directly
    /// ([`Pages::write_new_directly`]).
    new_direct: Option<&'c File>,
    /// The largest page number written into the file directly (0: none).
    last_direct: u32,
}

impl<'c> Pages<'c> {
    /// Starts writing pages of `page_size` bytes (the database's own) after
    /// the transaction's last write through SQL; `free`, pages taken from
    /// the front of the database's free list, or none to leave it as it is.
    ///
    /// # Errors
    /// Database errors.
    pub fn begin(
        conn: &'c Connection,
        page_size: usize,
        free: FreeTaken,
    ) -> rusqlite::Result<Self> {
        let count: u32 = conn.query_row("PRAGMA main.page_count", [], |r| r.get(0))?;
        let locking = (0x4000_0000 / page_size) as u32 + 1;
        Ok(Pages {
            conn,
            page_size,
            count,
            free,
            used_free: 0,
            next: count + 1,
            locking,
            written: 0,
            direct: None,
            new_direct: None,
            last_direct: 0,
        })
    }

    /// Lets [`Pages::write_new`] and [`Pages::write_maybe_directly`] write
    /// new pages (past the file's last when the writes began) into `file`,
    /// the database file, past SQLite's cache. Only for a database under
    /// SQLite's exclusive lock with a rollback journal, whose transaction
    /// runs alone: no other connection reads the file, no checkpoint copies
    /// pages into it, and a recovery cuts the file back to its size before
    /// (after a rollback, [`cut_after_last_page`]). The pages written so
    /// are not read back through SQLite: they are past the end it knows
    /// until [`Pages::finish`]. Nothing on systems without positioned
    /// writes.
    pub fn write_new_directly(&mut self, file: &'c File) {
        if cfg!(unix) {
            self.new_direct = Some(file);
        }
    }

    /// Writes the pages `reserved` set apart into `file`, the database
    /// file, where they lie, past SQLite's cache and its write-ahead log.
    pub fn write_directly(&mut self, file: &'c File, reserved: Reserved) {
        // Allocated in order: sorted already.
        self.direct = Some((file, reserved.leaves));
    }

    /// Whether pages of the free list were given to be used first.
    pub fn taking_free(&self) -> bool {
        !self.free.pages.is_empty()
    }

    /// Bytes per page.
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// A page number for a new page.
    pub fn allocate(&mut self) -> u32 {
        if let Some(&page) = self.free.pages.get(self.used_free) {
            self.used_free += 1;
            return page;
        }
        if self.next == self.locking {
            self.next += 1;
        }
        self.next += 1;
        self.next - 1
    }

    /// Writes `data` (a whole page) as the page `pgno`.
    ///
    /// # Errors
    /// Database errors.
    pub fn write(&mut self, pgno: u32, data: &[u8]) -> rusqlite::Result<()> {
        debug_assert_eq!(data.len(), self.page_size);
        self.written += 1;
        if let Some((file, numbers)) = &self.direct {
            if numbers.binary_search(&pgno).is_ok() {
                return write_at(file, pgno, data);
            }
        }
        self.conn
            .prepare_cached("INSERT INTO sqlite_dbpage (pgno, data) VALUES (?1, ?2)")?
            .execute(params![pgno, data])
            .map(drop)
    }

    /// Writes `data` as a new page: its number.
    ///
    /// # Errors
    /// Database errors.
    pub fn write_new(&mut self, data: &[u8]) -> rusqlite::Result<u32> {
        let pgno = self.allocate();
        self.write_maybe_directly(pgno, data)?;
        Ok(pgno)
    }

    /// Writes `data` (a whole page) as the page `pgno`, into the database
    /// file directly if it is a new page and [`Pages::write_new_directly`]
    /// allows it, else as [`Pages::write`] does.
    ///
    /// # Errors
    /// Database errors; errors writing the file.
    pub fn write_maybe_directly(&mut self, pgno: u32, data: &[u8]) -> rusqlite::Result<()> {
        debug_assert_eq!(data.len(), self.page_size);
        match self.new_direct {
            Some(file) if pgno > self.count => {
                self.written += 1;
                self.last_direct = self.last_direct.max(pgno);
                write_at(file, pgno, data)
            }
            _ => self.write(pgno, data),
        }
    }

    /// Writes `pages` (page numbers and whole pages) as
    /// [`Pages::write_maybe_directly`] writes each, the new pages written
    /// directly in runs of consecutive numbers, one system call a run
    /// ([`MAX_RUN_BYTES`]).
    ///
    /// # Errors
    /// Database errors; errors writing the file.
    pub fn write_all_maybe_directly(&mut self, pages: &[(u32, &[u8])]) -> rusqlite::Result<()> {
        let mut i = 0;
        while i < pages.len() {
            let (first, data) = pages[i];
            let file = match self.new_direct {
                Some(file) if first > self.count => file,
                _ => {
                    self.write_maybe_directly(first, data)?;
                    i += 1;
                    continue;
                }
            };
            let max_run = (MAX_RUN_BYTES / self.page_size).max(1);
            let mut end = i + 1;
            while end < pages.len() && end - i < max_run && pages[end].0 == pages[end - 1].0 + 1 {
                end += 1;
            }
            debug_assert!(pages[i..end].iter().all(|(_, data)| data.len() == self.page_size));
            write_run_at(file, first, self.page_size, &pages[i..end])?;
            self.written += end - i;
            self.last_direct = self.last_direct.max(pages[end - 1].0);
            i = end;
        }
        Ok(())
    }

    /// Writes `pages` as new pages ([`Pages::write_all_maybe_directly`]):
    /// their numbers, in order.
    ///
    /// # Errors
    /// Database errors; errors writing the file.
    pub fn write_all_new(&mut self, pages: &[Vec<u8>]) -> rusqlite::Result<Vec<u32>> {
        let numbered: Vec<(u32, &[u8])> =
            pages.iter().map(|page| (self.allocate(), page.as_slice())).collect();
        self.write_all_maybe_directly(&numbered)?;
        Ok(numbered.into_iter().map(|(pgno, _)| pgno).collect())
    }

    /// The page `pgno` as the transaction sees it.
    ///
    /// # Errors
    /// Database errors.
    pub fn read(&self, pgno: u32) -> rusqlite::Result<Vec<u8>> {
        read_page(self.conn, pgno)
    }

    /// Pages written.
    pub fn written(&self) -> usize {
        self.written
    }

    /// Ends the writes: the header counts the pages appended, and the free
    /// list keeps what was not taken.
    ///
    /// # Errors
    /// Database errors; free pages given and not used.
    pub fn finish(mut self) -> rusqlite::Result<()> {
        let taken = self.free.pages.len();
        if self.used_free != taken {
            return Err(corrupt(format!(
                "{} of {taken} free pages used by pages written by hand",
                self.used_free
            )));
        }
        let last = self.next - 1;
        if last == self.count && taken == 0 {
            return Ok(());
        }
        if let (Some(file), true) = (self.new_direct, self.last_direct == last) {
            // SQLite counts in the database's size the pages up to the last
            // it wrote itself: the last page, written past it, is written
            // through it again.
            let page = read_at(file, last, self.page_size)?;
            self.write(last, &page)?;
        }
        if let Some((pgno, trunk)) = self.free.trunk.take() {
            self.write(pgno, &trunk)?;
        }
        let mut first = self.read(1)?;
        first[28..32].copy_from_slice(&last.to_be_bytes());
        if taken > 0 {
            // The free list left: its first trunk page and count.
            first[32..36].copy_from_slice(&self.free.first_trunk.to_be_bytes());
            first[36..40].copy_from_slice(&self.free.left.to_be_bytes());
        }
        self.conn
            .prepare_cached("INSERT INTO sqlite_dbpage (pgno, data) VALUES (?1, ?2)")?
            .execute(params![1, first])
            .map(drop)
    }
}

/// The last leaf of the tree whose root is `root`, read through `read`:
/// its page number and bytes (the root's if it is a leaf).
///
/// # Errors
/// Database errors; a tree deeper than SQLite makes them.
pub fn last_leaf(
    read: &dyn Fn(u32) -> rusqlite::Result<Vec<u8>>,
    root: u32,
) -> rusqlite::Result<Option<(u32, Vec<u8>)>> {
    let mut pgno = root;
    for _ in 0..40 {
        let page = read(pgno)?;
        match page.first() {
            Some(&(INTERIOR_INDEX | INTERIOR_TABLE)) if page.len() >= 12 => {
                pgno = u32::from_be_bytes(page[8..12].try_into().unwrap());
            }
            Some(&(LEAF_INDEX | LEAF_TABLE)) => return Ok(Some((pgno, page))),
            _ => return Err(corrupt(format!("page {pgno} is no B-tree page"))),
        }
    }
    Err(corrupt(format!("the tree of root {root} is deeper than 40 levels")))
}

/// The last leaf of the tree whose root is `root`, as [`last_leaf`], read
/// outside a transaction.
///
/// # Errors
/// Database errors.
pub fn last_leaf_now(conn: &Connection, root: u32) -> rusqlite::Result<Option<(u32, Vec<u8>)>> {
    last_leaf(&|pgno| read_page(conn, pgno), root)
}

/// Checks that the tree of root `root` still ends in the leaf `pgno` as
/// it was read at the batch's start (`original`), before the rows that
/// continue it are written over it.
fn check_continued(
    pages: &Pages<'_>,
    root: u32,
    pgno: u32,
    original: &[u8],
) -> rusqlite::Result<()> {
    match last_leaf(&|p| pages.read(p), root)? {
        Some((last, bytes)) if last == pgno && bytes == original => Ok(()),
        _ => Err(corrupt(format!("the last leaf of root {root} changed during the batch"))),
    }
}

/// The root page of the table or index `name`.
///
/// # Errors
/// Database errors; no such tree.
pub fn root_of(conn: &Connection, name: &str) -> rusqlite::Result<u32> {
    conn.query_row("SELECT rootpage FROM main.sqlite_master WHERE name = ?1", [name], |r| r.get(0))
}

/// A tree's kind, as its pages say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A rowid table: interior cells hold a rowid.
    Table,
    /// An index: interior cells hold a row.
    Index,
}

impl Kind {
    fn interior(self) -> u8 {
        match self {
            Kind::Table => INTERIOR_TABLE,
            Kind::Index => INTERIOR_INDEX,
        }
    }

    fn leaf(self) -> u8 {
        match self {
            Kind::Table => LEAF_TABLE,
            Kind::Index => LEAF_INDEX,
        }
    }
}

/// One level of interior pages on the right edge, being extended: its
/// children not written yet, the first of them those of the page it was
/// read from.
struct Level {
    /// The page the level's next page is written to: the right-edge page
    /// it was read from, until written (the root's is the tree's root,
    /// written last, not here).
    reuse: Option<u32>,
    children: Vec<u32>,
    /// The cell contents (without the child's number) between each child
    /// and the next: one fewer than the children.
    between: Vec<Vec<u8>>,
    /// Bytes the children take as cells, with their pointers.
    bytes: usize,
    /// What goes above the next page this level writes, after the page
    /// before it (none before its first).
    above: Option<Vec<u8>>,
}

impl Level {
    fn new(reuse: Option<u32>) -> Level {
        Level { reuse, children: Vec::new(), between: Vec::new(), bytes: 0, above: None }
    }
}

/// The right edge of a tree being appended to.
struct Edge<'p, 'c> {
    pages: &'p mut Pages<'c>,
    kind: Kind,
    root: u32,
    /// From the level above the leaves up to the root's, the last.
    levels: Vec<Level>,
}

impl<'p, 'c> Edge<'p, 'c> {
    /// The right edge of the tree of `kind` whose root is `root`, and
    /// whether the tree has rows. A root that is a leaf with rows moves to
    /// a page of its own, below a new root level.
    fn read(pages: &'p mut Pages<'c>, kind: Kind, root: u32) -> rusqlite::Result<(Self, bool)> {
        let page_size = pages.page_size();
        let mut levels = Vec::new();
        let mut pgno = root;
        let mut rows = true;
        loop {
            let page = pages.read(pgno)?;
            if page.len() != page_size {
                return Err(corrupt(format!("page {pgno} is not a page of {page_size} bytes")));
            }
            let cells = usize::from(u16::from_be_bytes([page[3], page[4]]));
            if page[0] == kind.leaf() {
                if pgno == root {
                    let mut level = Level::new(None);
                    if cells > 0 {
                        level.children.push(pages.write_new(&page)?);
                    } else {
                        rows = false;
                    }
                    levels.push(level);
                } else if cells == 0 {
                    return Err(corrupt(format!("leaf page {pgno} on a right edge is empty")));
                }
                break;
            }
            if page[0] != kind.interior() || cells == 0 {
                return Err(corrupt(format!("page {pgno} is not an interior page of its tree")));
            }
            let mut level = Level::new((pgno != root).then_some(pgno));
            for i in 0..cells {
                let pointer = 12 + 2 * i;
                let at = usize::from(u16::from_be_bytes([page[pointer], page[pointer + 1]]));
                let len = interior_cell_len(kind, page_size, &page[at.min(page_size)..])
                    .filter(|len| at + len <= page_size)
                    .ok_or_else(|| corrupt(format!("a cell of page {pgno} overflows it")))?;
                level.children.push(u32::from_be_bytes(page[at..at + 4].try_into().unwrap()));
                level.between.push(page[at + 4..at + len].to_vec());
            }
            level.bytes = level.between.iter().map(|b| 6 + b.len()).sum();
            pgno = u32::from_be_bytes(page[8..12].try_into().unwrap());
            level.children.push(pgno);
            levels.push(level);
            if levels.len() > 40 {
                return Err(corrupt(format!("the tree of root {root} is deeper than 40 levels")));
            }
        }
        levels.reverse();
        Ok((Edge { pages, kind, root, levels }, rows))
    }

    /// Usable bytes of a page, less an interior page's header.
    fn room(&self) -> usize {
        self.pages.page_size() - 12
    }

    /// Adds `child` to the level `level`, after the row `above` (none: the
    /// level's first child).
    fn add(&mut self, level: usize, above: Option<Vec<u8>>, child: u32) -> rusqlite::Result<()> {
        let room = self.room();
        let l = &mut self.levels[level];
        if let Some(above) = above {
            l.bytes += 6 + above.len();
            l.between.push(above);
        }
        l.children.push(child);
        if l.bytes <= room {
            return Ok(());
        }
        // More than a page: write the cells that fit, once two children or
        // more stay for the level's next page.
        let fit = self.fitting(level);
        if self.levels[level].children.len() >= fit + 3 {
            self.write_page(level, fit)?;
        }
        Ok(())
    }

    /// The cells the level's next page holds at most.
    fn fitting(&self, level: usize) -> usize {
        let room = self.room();
        let mut bytes = 0;
        self.levels[level]
            .between
            .iter()
            .take_while(|b| {
                bytes += 6 + b.len();
                bytes <= room
            })
            .count()
    }

    /// The level's next page: its first `cells` children as cells and the
    /// next as its right-most child (the level's last page if that is its
    /// last child).
    fn page(&mut self, level: usize, cells: usize) -> (Vec<u8>, Option<Vec<u8>>) {
        let mut page = Page::new(self.kind.interior(), 0, self.pages.page_size());
        let l = &mut self.levels[level];
        for (child, between) in l.children.iter().zip(&l.between).take(cells) {
            page.push(&[&child.to_be_bytes(), between]);
        }
        let right = l.children[cells];
        let next_above = l.between.get(cells).cloned();
        l.children.drain(..=cells);
        l.between.drain(..(cells + usize::from(next_above.is_some())));
        l.bytes = l.between.iter().map(|b| 6 + b.len()).sum();
        (page.finish(right), next_above)
    }

    /// Writes the level's next page ([`Edge::page`]) and adds it to the
    /// level above.
    fn write_page(&mut self, level: usize, cells: usize) -> rusqlite::Result<()> {
        let (page, next_above) = self.page(level, cells);
        let l = &mut self.levels[level];
        let above = std::mem::replace(&mut l.above, next_above);
        let reused = l.reuse.take();
        let pgno = match reused {
            Some(pgno) => pgno,
            None => self.pages.allocate(),
        };
        self.pages.write(pgno, &page)?;
        if reused.is_some() {
            // Already the right-most child of the page above.
            return Ok(());
        }
        if level + 1 == self.levels.len() {
            // The root's level overflows: a level above takes its pages,
            // and the root's page number.
            let mut top = Level::new(None);
            top.children.push(pgno);
            self.levels.push(top);
            return Ok(());
        }
        self.add(level + 1, above, pgno)
    }

    /// Writes what the levels hold, from the leaves up, the root last.
    fn finish(mut self) -> rusqlite::Result<()> {
        let mut level = 0;
        loop {
            while self.levels[level].bytes > self.room() {
                // Two children or more for the page after.
                let left = self.levels[level].children.len().saturating_sub(3);
                let cells = self.fitting(level).min(left);
                if cells == 0 {
                    return Err(corrupt(format!("rows too long for pages of root {}", self.root)));
                }
                self.write_page(level, cells)?;
            }
            let children = self.levels[level].children.len();
            if children < 2 {
                return Err(corrupt(format!(
                    "an interior page of root {} with no cell",
                    self.root
                )));
            }
            if level + 1 == self.levels.len() {
                let (page, _) = self.page(level, children - 1);
                return self.pages.write(self.root, &page);
            }
            self.write_page(level, children - 1)?;
            level += 1;
        }
    }
}

/// Bytes of the interior cell at the start of `cell` (its child's number,
/// its row or rowid, and an overflow page's number if it spills), if they
/// are there.
fn interior_cell_len(kind: Kind, page_size: usize, cell: &[u8]) -> Option<usize> {
    let rest = cell.get(4..)?;
    let (value, len) = get_varint(rest);
    let total = match kind {
        Kind::Table => 4 + len,
        Kind::Index => {
            let payload = usize::try_from(value).ok()?;
            let local = local_len(page_size, max_index_record(page_size), payload);
            4 + len + local + if local < payload { 4 } else { 0 }
        }
    };
    (total <= cell.len()).then_some(total)
}

/// Appends the rows of `leaves` (in the database's page size) after the
/// last row of the rowid table whose root is `root` and whose largest
/// rowid is `last` (`None`: no row), which is less than every rowid of
/// `leaves`. Leaves that continue the table's last leaf
/// ([`RowidLeaves::continuing`]) come with that leaf as it was read,
/// `original`: it is written over.
///
/// # Errors
/// Database errors; a tree that is not what `last` and `original` say.
pub fn append_rows(
    pages: &mut Pages<'_>,
    root: u32,
    last: Option<i64>,
    leaves: RowidLeaves,
    original: Option<&[u8]>,
) -> rusqlite::Result<()> {
    if leaves.rows() == 0 {
        return Ok(());
    }
    if last.is_some_and(|last| leaves.first_rowid().is_none_or(|first| first <= last)) {
        return Err(corrupt(format!("rows appended to root {root} do not follow its last")));
    }
    let continued = leaves.continued();
    if let Some(pgno) = continued {
        check_continued(pages, root, pgno, original.unwrap_or_default())?;
    }
    let single = last.is_none() && leaves.leaves() == 1;
    let mut first = true;
    let mut numbered = Vec::new();
    let placed = leaves.place(&mut |page, leaf| {
        let pgno = match continued {
            Some(pgno) if leaf && std::mem::take(&mut first) => pgno,
            // The only leaf of a table that had none: the root itself.
            _ if single && leaf => root,
            _ => pages.allocate(),
        };
        numbered.push((pgno, page));
        pgno
    });
    let refs: Vec<(u32, &[u8])> =
        numbered.iter().map(|(pgno, page)| (*pgno, page.as_slice())).collect();
    pages.write_all_maybe_directly(&refs)?;
    drop(refs);
    page_buffers::give_back(numbered.into_iter().map(|(_, page)| page));
    if single || (continued.is_some() && placed.len() == 1) {
        return Ok(());
    }
    let (mut edge, rows) = Edge::read(pages, Kind::Table, root)?;
    if rows != last.is_some() {
        return Err(corrupt(format!("the rows of root {root} are not those its last rowid says")));
    }
    let mut before = last;
    // A leaf continued is already the right-most child of the level above.
    let skip = usize::from(continued.is_some());
    if let Some(&(_, leaf_last)) = placed.first().filter(|_| skip == 1) {
        before = Some(leaf_last);
    }
    for (pgno, leaf_last) in placed.into_iter().skip(skip) {
        let above = before.map(|key| {
            let (bytes, len) = varint(key as u64);
            bytes[..len].to_vec()
        });
        edge.add(0, above, pgno)?;
        before = Some(leaf_last);
    }
    edge.finish()
}

/// Appends the rows of `leaves` (in the database's page size, made with a
/// lead when the index has rows) after the last row of the index whose
/// root is `root`; they all follow its rows. Leaves that continue the
/// index's last leaf ([`Leaves::continuing`]) come with that leaf's number
/// and bytes as read, `continued`: it is written over.
///
/// # Errors
/// Database errors; leaves made otherwise.
pub fn append_index(
    pages: &mut Pages<'_>,
    root: u32,
    leaves: Leaves,
    continued: Option<(u32, &[u8])>,
) -> rusqlite::Result<()> {
    let (leaf_pages, above) =
        leaves.split().map_err(|e| corrupt(format!("index rows for root {root}: {e}")))?;
    if leaf_pages.is_empty() && above.is_empty() {
        return Ok(());
    }
    if let Some((pgno, original)) = continued {
        check_continued(pages, root, pgno, original)?;
        if above.len() + 1 != leaf_pages.len() {
            return Err(corrupt(format!("index rows for root {root} made with a lead")));
        }
        pages.write(pgno, &leaf_pages[0])?;
        if leaf_pages.len() == 1 {
            return Ok(());
        }
        let numbers = pages.write_all_new(&leaf_pages[1..])?;
        page_buffers::give_back(leaf_pages);
        let (mut edge, _) = Edge::read(pages, Kind::Index, root)?;
        for (pgno, row) in numbers.into_iter().zip(above) {
            edge.add(0, Some(row), pgno)?;
        }
        return edge.finish();
    }
    let lead = above.len() == leaf_pages.len();
    if !lead && above.len() + 1 != leaf_pages.len() {
        return Err(corrupt(format!("index rows for root {root} end in no leaf")));
    }
    if !lead && leaf_pages.len() == 1 {
        let (_, rows) = Edge::read(pages, Kind::Index, root)?;
        if rows {
            return Err(corrupt(format!("index rows for root {root} lack their lead")));
        }
        // The only leaf of an index that had none: the root itself.
        return pages.write(root, &leaf_pages[0]);
    }
    let numbers = pages.write_all_new(&leaf_pages)?;
    page_buffers::give_back(leaf_pages);
    let (mut edge, rows) = Edge::read(pages, Kind::Index, root)?;
    if rows != lead {
        return Err(corrupt(format!("index rows for root {root} made for another index")));
    }
    let mut above = above.into_iter();
    for (i, pgno) in numbers.into_iter().enumerate() {
        let row = if lead || i > 0 { above.next() } else { None };
        edge.add(0, row, pgno)?;
    }
    edge.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::image::{CutRecord, Record, Value};

    /// A database file of `page_size` pages with a table `t (id INTEGER
    /// PRIMARY KEY, a, b)` and an index `t_ab` on `(id, b)`. In a file:
    /// SQLite's cache forgets the pages of a file after the commit, not
    /// those of a database in memory.
    fn database(dir: &tempfile::TempDir, page_size: usize) -> Connection {
        let conn = Connection::open(dir.path().join(format!("t{page_size}.db"))).unwrap();
        conn.execute_batch(&format!(
            "PRAGMA page_size = {page_size}; \
             CREATE TABLE t (id INTEGER PRIMARY KEY, a, b); CREATE INDEX t_ab ON t(id, b);"
        ))
        .unwrap();
        conn
    }

    /// Row `id`: a text whose length varies with `id`, up to `long` bytes
    /// now and then (over a page: overflow pages).
    fn row(id: i64, long: usize) -> (String, i64) {
        let len = match id % 97 {
            0 => long,
            1..=3 => 900 + (id as usize * 37) % 3_000,
            _ => (id as usize * 13) % 60,
        };
        let text: String =
            (0..len).map(|i| char::from(b'a' + ((i as i64 + id) % 26) as u8)).collect();
        (text, id * 7)
    }

    /// Appends rows `ids` by hand, in one transaction, as the writer does:
    /// continuing the trees' last leaves if `continuing`, new pages written
    /// into the file directly if `direct`, every other row's record cut as
    /// a worker cuts it.
    fn append(
        conn: &Connection,
        ids: std::ops::Range<i64>,
        long: usize,
        continuing: bool,
        direct: bool,
    ) {
        let page_size: usize =
            conn.query_row("PRAGMA page_size", [], |r| r.get::<_, i64>(0)).unwrap() as usize;
        let (table_root, index_root) =
            (root_of(conn, "t").unwrap(), root_of(conn, "t_ab").unwrap());
        let (mut table_leaf, mut index_leaf) = (None, None);
        if continuing {
            table_leaf = last_leaf_now(conn, table_root).unwrap();
            index_leaf = last_leaf_now(conn, index_root).unwrap();
        }
        conn.execute_batch("BEGIN").unwrap();
        let last: Option<i64> = conn.query_row("SELECT max(id) FROM t", [], |r| r.get(0)).unwrap();
        let mut leaves = match &table_leaf {
            Some((pgno, page)) => RowidLeaves::continuing(page_size, *pgno, page).unwrap(),
            None => RowidLeaves::with_page_size(page_size),
        };
        let mut index = match &index_leaf {
            Some((_, page)) => Leaves::continuing(page_size, page).unwrap(),
            None => Leaves::for_index(page_size, last.is_some()),
        };
        let mut record = Record::default();
        for id in ids {
            let (a, b) = row(id, long);
            let row = record.encode(&[Value::Null, Value::Text(&a), Value::Integer(b)]);
            match CutRecord::new(row.to_vec(), page_size) {
                CutRecord::Spilled(spilled) if id % 2 == 1 => {
                    assert_eq!(spilled.whole(), row);
                    leaves.push_spilled(id, spilled).unwrap();
                }
                _ => leaves.push(id, row).unwrap(),
            }
            index.push(record.encode(&[Value::Integer(id), Value::Integer(b), Value::Integer(id)]));
        }
        let file = File::options().read(true).write(true).open(conn.path().unwrap()).unwrap();
        let mut pages = Pages::begin(conn, page_size, FreeTaken::default()).unwrap();
        if direct {
            pages.write_new_directly(&file);
        }
        let original = table_leaf.as_ref().map(|(_, page)| page.as_slice());
        append_rows(&mut pages, table_root, last, leaves, original).unwrap();
        let continued = index_leaf.as_ref().map(|(pgno, page)| (*pgno, page.as_slice()));
        append_index(&mut pages, index_root, index, continued).unwrap();
        pages.finish().unwrap();
        conn.execute_batch("COMMIT").unwrap();
        after_page_writes(conn).unwrap();
    }

    fn check(conn: &Connection, n: i64, long: usize) {
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(check, "ok", "{n} rows");
        let rows: Vec<(i64, String, i64)> = conn
            .prepare("SELECT id, a, b FROM t NOT INDEXED ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let expected: Vec<(i64, String, i64)> = (1..=n)
            .map(|id| {
                let (a, b) = row(id, long);
                (id, a, b)
            })
            .collect();
        assert_eq!(rows, expected);
        let by_index: i64 = conn
            .query_row("SELECT count(*) FROM t INDEXED BY t_ab WHERE id > 0 AND b >= 0", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(by_index, n);
    }

    #[test]
    fn rows_appended_by_hand_make_the_tree_sqlite_would_read() {
        // Batches of every size: into an empty tree, one leaf, a root that
        // grows a level, single rows, and SQLite's own inserts between.
        for page_size in [1_024usize, 16_384] {
            let long = 3 * page_size + 17;
            let dir = tempfile::tempdir().unwrap();
            let conn = database(&dir, page_size);
            let mut n = 0;
            for (k, size) in [1i64, 2, 40, 1, 3_000, 2, 25_000, 7, 1].into_iter().enumerate() {
                if k == 4 {
                    // SQLite's insert beside the appends.
                    let (a, b) = row(n + 1, long);
                    conn.execute("INSERT INTO t VALUES (?1, ?2, ?3)", params![n + 1, a, b])
                        .unwrap();
                    n += 1;
                }
                if size == 1 && n > 0 {
                    // An index with rows takes a batch of two rows or more.
                    let (a, b) = row(n + 1, long);
                    conn.execute("INSERT INTO t VALUES (?1, ?2, ?3)", params![n + 1, a, b])
                        .unwrap();
                    n += 1;
                    continue;
                }
                append(&conn, n + 1..n + 1 + size, long, k % 2 == 1, k % 3 != 1);
                n += size;
                check(&conn, n, long);
            }
            // Leaves continued are filled as SQLite's own inserts fill them:
            // a page more only for the last leaves of the table and the
            // index that three batches appended after without continuing.
            let filled_dir = tempfile::tempdir().unwrap();
            let filled = database(&filled_dir, page_size);
            filled.execute_batch("BEGIN").unwrap();
            for id in 1..=n {
                let (a, b) = row(id, long);
                filled.execute("INSERT INTO t VALUES (?1, ?2, ?3)", params![id, a, b]).unwrap();
            }
            filled.execute_batch("COMMIT").unwrap();
            let pages = |c: &Connection| -> i64 {
                c.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap()
            };
            assert!(pages(&conn) <= pages(&filled) + 6, "{} {}", pages(&conn), pages(&filled));
            // SQLite writes on after the appends.
            conn.execute("DELETE FROM t WHERE id % 3 = 0", []).unwrap();
            let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
            assert_eq!(check, "ok");
        }
    }

    #[test]
    fn leaves_that_no_longer_continue_append_their_own_rows() {
        let (page_size, long) = (1_024, 3_000);
        let dir = tempfile::tempdir().unwrap();
        let conn = database(&dir, page_size);
        append(&conn, 1..95, long, false, true);
        let root = root_of(&conn, "t").unwrap();
        let (pgno, page) = last_leaf_now(&conn, root).unwrap().unwrap();
        // Row 97 spills to overflow pages from the leaf continued.
        let mut leaves = RowidLeaves::continuing(page_size, pgno, &page).unwrap();
        let mut index = Leaves::for_index(page_size, true);
        let mut record = Record::default();
        for id in 95..101 {
            let (a, b) = row(id, long);
            leaves
                .push(id, record.encode(&[Value::Null, Value::Text(&a), Value::Integer(b)]))
                .unwrap();
            index.push(record.encode(&[Value::Integer(id), Value::Integer(b), Value::Integer(id)]));
        }
        leaves.uncontinue();
        assert_eq!(leaves.continued(), None);
        conn.execute_batch("BEGIN").unwrap();
        let mut pages = Pages::begin(&conn, page_size, FreeTaken::default()).unwrap();
        append_rows(&mut pages, root, Some(94), leaves, None).unwrap();
        append_index(&mut pages, root_of(&conn, "t_ab").unwrap(), index, None).unwrap();
        pages.finish().unwrap();
        conn.execute_batch("COMMIT").unwrap();
        after_page_writes(&conn).unwrap();
        check(&conn, 100, long);
    }

    #[test]
    fn a_last_leaf_changed_since_it_was_read_is_not_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let conn = database(&dir, 4_096);
        append(&conn, 1..2_000, 100, false, true);
        let root = root_of(&conn, "t").unwrap();
        let (pgno, page) = last_leaf_now(&conn, root).unwrap().unwrap();
        let mut leaves = RowidLeaves::continuing(4_096, pgno, &page).unwrap();
        conn.execute("UPDATE t SET a = 'changed' WHERE id = 1999", []).unwrap();
        let after = last_leaf_now(&conn, root).unwrap().unwrap();
        assert_ne!(after, (pgno, page.clone()));
        leaves.push(5_000, b"\x02\x01\x01").unwrap();
        conn.execute_batch("BEGIN").unwrap();
        let mut pages = Pages::begin(&conn, 4_096, FreeTaken::default()).unwrap();
        assert!(append_rows(&mut pages, root, Some(1_999), leaves, Some(&page)).is_err());
    }

    #[test]
    fn rows_that_do_not_follow_the_last_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let conn = database(&dir, 4_096);
        append(&conn, 1..100, 10_000, false, true);
        conn.execute_batch("BEGIN").unwrap();
        let mut leaves = RowidLeaves::with_page_size(4_096);
        leaves.push(50, b"\x02\x01\x01").unwrap();
        let root = root_of(&conn, "t").unwrap();
        let mut pages = Pages::begin(&conn, 4_096, FreeTaken::default()).unwrap();
        assert!(append_rows(&mut pages, root, Some(99), leaves, None).is_err());
    }

    #[test]
    fn pages_set_apart_and_never_written_stay_free_pages() {
        let dir = tempfile::tempdir().unwrap();
        let conn = database(&dir, 1_024);
        conn.execute_batch("PRAGMA journal_mode = WAL").unwrap();
        append(&conn, 1..2_000, 100, false, true);
        conn.execute_batch("DELETE FROM t WHERE id > 1000").unwrap();
        let free: u32 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0)).unwrap();
        let count: u32 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
        assert!(free > 0);
        let reserved = reserve(&conn, 1_024, 40).unwrap().unwrap();
        assert_eq!(reserved.leaves, (count + 1..=count + 40).collect::<Vec<_>>());
        assert_eq!(reserved.trunk, count + 41);
        // An import cut here: the pages are free, the database sound.
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(check, "ok");
        let now: u32 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0)).unwrap();
        assert_eq!(now, free + 41);
        // The list begins with them until a transaction takes free pages.
        let taken = reserved.taken(&conn).unwrap().unwrap();
        assert_eq!(taken.pages.len(), 41);
        assert_eq!((taken.first_trunk, taken.left), (reserved.next_trunk, free));
        conn.execute_batch("INSERT INTO t (a, b) SELECT a, b FROM t").unwrap();
        assert!(reserved.taken(&conn).unwrap().is_none());
        // SQLite's own allocation took them; the database stays sound.
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(check, "ok");
    }

    #[test]
    fn a_log_with_pages_past_the_end_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let conn = database(&dir, 1_024);
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0").unwrap();
        append(&conn, 1..2_000, 100, false, true);
        let count: u32 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
        assert!(!log_holds_pages_after(&conn, count).unwrap());
        assert!(log_holds_pages_after(&conn, count - 1).unwrap());
        // A database that shrank in the same log.
        conn.execute_batch("DELETE FROM t WHERE id > 10; VACUUM").unwrap();
        let shrunk: u32 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
        assert!(shrunk < count);
        assert!(log_holds_pages_after(&conn, shrunk).unwrap());
        // Once the log restarts, its old frames are not the log's.
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
        assert!(!log_holds_pages_after(&conn, shrunk).unwrap());
    }

    #[test]
    fn trees_emptied_by_hand_leave_their_pages_free_and_the_database_sound() {
        let dir = tempfile::tempdir().unwrap();
        let conn = database(&dir, 1_024);
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; \
             CREATE TABLE p (h INTEGER NOT NULL, g INTEGER NOT NULL, PRIMARY KEY (h, g)) WITHOUT ROWID; \
             CREATE TABLE q (h INTEGER NOT NULL, g INTEGER NOT NULL, PRIMARY KEY (h, g)) WITHOUT ROWID; \
             CREATE TABLE r (h INTEGER NOT NULL, g INTEGER NOT NULL, PRIMARY KEY (h, g)) WITHOUT ROWID; \
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) \
             INSERT INTO p SELECT i * 7919 % 100003, i FROM n; \
             INSERT INTO q VALUES (1, 2); INSERT INTO r SELECT h, g + 1 FROM p WHERE h % 3 = 0;",
        )
        .unwrap();
        append(&conn, 1..500, 100, false, true);
        let pages = |table: &str| -> u32 {
            let rows: i64 =
                conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap();
            assert!(rows > 0);
            let mut seen = Vec::new();
            let root = root_of(&conn, table).unwrap();
            pages_below(&|p| read_page(&conn, p), root, &mut seen).unwrap();
            seen.len() as u32
        };
        let below = [pages("p"), pages("q"), pages("r")];
        assert!(below[0] > 300 && below[1] == 0 && below[2] > 100, "{below:?}");
        let free: u32 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0)).unwrap();
        let roots: Vec<u32> = ["p", "q", "r"].map(|t| root_of(&conn, t).unwrap()).into();
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        empty_trees(&conn, 1_024, &roots).unwrap();
        conn.execute_batch("COMMIT").unwrap();
        after_page_writes(&conn).unwrap();
        let now: u32 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0)).unwrap();
        assert_eq!(now, free + below.iter().sum::<u32>());
        for table in ["p", "q", "r"] {
            let rows: i64 =
                conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap();
            assert_eq!(rows, 0, "{table}");
        }
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(check, "ok");
        conn.execute_batch("DROP TABLE p; DROP TABLE q; DROP TABLE r").unwrap();
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(check, "ok");
        let after: u32 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0)).unwrap();
        assert_eq!(after, now + 3);
        // The rows that stay are read as they were.
        let kept: i64 = conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(kept, 499);
    }
}
