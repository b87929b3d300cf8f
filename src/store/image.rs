//! A `WITHOUT ROWID` table's rows written as an SQLite database image, in
//! SQLite's file format (<https://www.sqlite.org/fileformat2.html>), so
//! that a position segment reaches the database by SQLite's transfer of a
//! whole table into an empty one of the same shape
//! ([`ImageSlot::copy_into`]). The transfer copies each row's record as it
//! is and fills every page; rows inserted one by one, even in key order
//! into an empty table, leave the pages of a `WITHOUT ROWID` B-tree about
//! 88 % full, and cost the writer thread about twice as much.
//!
//! The image holds one table, [`TABLE`]. Its rows come as records
//! ([`Record`]) in key order. Nothing here compares keys, and neither does
//! SQLite's transfer: the caller answers for the order (the tests check
//! images with `PRAGMA integrity_check`). Page 1 is the database header
//! and the schema table, page 2 the table's root, and the pages from 3 on
//! its leaves, then its interior pages, level by level.

use rusqlite::Connection;

use super::page_buffers;

/// The image's one table.
pub const TABLE: &str = "image";

/// The schema an image is read under on the writer's connection
/// ([`ImageSlot`]).
pub const SCHEMA: &str = "pgnindex_image";

/// Bytes per page of an image: SQLite's largest, so that an image has few
/// pages. The pages of the table an image is copied into are the
/// database's own.
pub const PAGE_SIZE: usize = 65_536;

/// A record in SQLite's format: a header of serial types, then the values.
#[derive(Debug, Default, Clone)]
pub struct Record {
    bytes: Vec<u8>,
    types: Vec<u8>,
}

/// One value of a [`Record`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    /// SQL NULL.
    Null,
    /// An integer.
    Integer(i64),
    /// A text, in UTF-8.
    Text(&'a str),
    /// A blob.
    Blob(&'a [u8]),
    /// A floating-point number.
    Real(f64),
}

impl Record {
    /// The record of `values`, in column order, as SQLite writes it (the
    /// smallest serial type of each integer, 0 and 1 stored in the header
    /// alone): the bytes are valid until the next call.
    pub fn encode(&mut self, values: &[Value<'_>]) -> &[u8] {
        self.types.clear();
        for value in values {
            let serial = match *value {
                Value::Null => 0,
                Value::Integer(i) => integer_type(i).0,
                Value::Text(s) => 13 + 2 * s.len() as u64,
                Value::Blob(b) => 12 + 2 * b.len() as u64,
                Value::Real(_) => 7,
            };
            put_varint(&mut self.types, serial);
        }
        // The header's size counts its own varint.
        let mut header = self.types.len() + 1;
        while varint_len(header as u64) + self.types.len() != header {
            header = varint_len(header as u64) + self.types.len();
        }
        self.bytes.clear();
        put_varint(&mut self.bytes, header as u64);
        self.bytes.extend_from_slice(&self.types);
        for value in values {
            match *value {
                Value::Null => {}
                Value::Integer(i) => {
                    let len = integer_type(i).1;
                    self.bytes.extend_from_slice(&i.to_be_bytes()[8 - len..]);
                }
                Value::Text(s) => self.bytes.extend_from_slice(s.as_bytes()),
                Value::Blob(b) => self.bytes.extend_from_slice(b),
                Value::Real(r) => self.bytes.extend_from_slice(&r.to_bits().to_be_bytes()),
            }
        }
        &self.bytes
    }
}

/// The record of `values` as [`Record::encode`] writes it, in a vector of
/// its own: for a record that is kept, which would otherwise be written
/// into the scratch and then copied (twice the memory of a long text).
pub fn encode_owned(values: &[Value<'_>]) -> Vec<u8> {
    let mut record = Record::default();
    let body: usize = values.iter().map(|&v| serial_type(v).1).sum();
    record.bytes.reserve_exact(body + 9 * values.len() + 9);
    record.encode(values);
    record.bytes
}

/// The serial type of `value` and the bytes of its value.
fn serial_type(value: Value<'_>) -> (u64, usize) {
    match value {
        Value::Null => (0, 0),
        Value::Integer(i) => integer_type(i),
        Value::Text(s) => (13 + 2 * s.len() as u64, s.len()),
        Value::Blob(b) => (12 + 2 * b.len() as u64, b.len()),
        Value::Real(_) => (7, 8),
    }
}

/// Appends the bytes of `value`, of `len` bytes ([`serial_type`]).
fn put_value(out: &mut Vec<u8>, value: Value<'_>, len: usize) {
    match value {
        Value::Null => {}
        Value::Integer(i) => out.extend_from_slice(&i.to_be_bytes()[8 - len..]),
        Value::Text(s) => out.extend_from_slice(s.as_bytes()),
        Value::Blob(b) => out.extend_from_slice(b),
        Value::Real(r) => out.extend_from_slice(&r.to_bits().to_be_bytes()),
    }
}

/// A record whose values at some columns (its holes) are given later:
/// encoded where most values are known (on a worker), finished where the
/// others are decided ([`Template::fill`]), as one record of every value
/// would be.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Template {
    /// The serial types of the known values, as varints, in column order.
    types: Vec<u8>,
    /// The known values' bytes, in column order.
    body: Vec<u8>,
    /// For each hole, in column order: where its serial type and its bytes
    /// go in `types` and `body`.
    holes: Vec<(u32, u32)>,
}

impl Template {
    /// The template of `values`, in column order, `None` for a hole.
    pub fn encode(values: &[Option<Value<'_>>]) -> Template {
        let body: usize = values
            .iter()
            .map(|v| match v {
                Some(Value::Text(s)) => s.len(),
                Some(Value::Blob(b)) => b.len(),
                _ => 8,
            })
            .sum();
        let mut template = Template {
            types: Vec::with_capacity(2 * values.len()),
            body: Vec::with_capacity(body),
            holes: Vec::new(),
        };
        for value in values {
            match *value {
                Some(value) => {
                    let (serial, len) = serial_type(value);
                    put_varint(&mut template.types, serial);
                    put_value(&mut template.body, value, len);
                }
                None => {
                    template.holes.push((template.types.len() as u32, template.body.len() as u32))
                }
            }
        }
        template
    }

    /// The known values' bytes.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// Holes in the template.
    pub fn holes(&self) -> usize {
        self.holes.len()
    }

    /// Bytes of the known values and their types.
    pub fn len(&self) -> usize {
        self.types.len() + self.body.len()
    }

    /// `true` for the template of no value.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty() && self.holes.is_empty()
    }

    /// Appends to `out` the record of the template's values with `holes`
    /// (one per hole, in column order) in the holes: the bytes
    /// [`Record::encode`] gives for every value.
    pub fn fill(&self, holes: &[Value<'_>], out: &mut Vec<u8>) {
        debug_assert_eq!(holes.len(), self.holes.len());
        let mut types = [([0u8; 9], 0usize); 4];
        let mut more = Vec::new();
        let mut types_len = self.types.len();
        for (i, &value) in holes.iter().enumerate() {
            let (bytes, len) = varint(serial_type(value).0);
            types_len += len;
            match types.get_mut(i) {
                Some(slot) => *slot = (bytes, len),
                None => more.push((bytes, len)),
            }
        }
        let hole_type = |i: usize| if i < types.len() { types[i] } else { more[i - types.len()] };
        let mut header = types_len + 1;
        while varint_len(header as u64) + types_len != header {
            header = varint_len(header as u64) + types_len;
        }
        put_varint(out, header as u64);
        let mut from = 0;
        for (i, &(at, _)) in self.holes.iter().enumerate() {
            out.extend_from_slice(&self.types[from..at as usize]);
            let (bytes, len) = hole_type(i);
            out.extend_from_slice(&bytes[..len]);
            from = at as usize;
        }
        out.extend_from_slice(&self.types[from..]);
        let mut from = 0;
        for (&(_, at), &value) in self.holes.iter().zip(holes) {
            out.extend_from_slice(&self.body[from..at as usize]);
            put_value(out, value, serial_type(value).1);
            from = at as usize;
        }
        out.extend_from_slice(&self.body[from..]);
    }
}

/// The record of two integers, as [`Record::encode`] writes it, and its
/// length: the common row, written without [`Record`]'s buffers.
pub fn two_integers(a: i64, b: i64) -> ([u8; 19], usize) {
    let mut out = [0u8; 19];
    let ((type_a, len_a), (type_b, len_b)) = (integer_type(a), integer_type(b));
    out[..3].copy_from_slice(&[3, type_a as u8, type_b as u8]);
    out[3..3 + len_a].copy_from_slice(&a.to_be_bytes()[8 - len_a..]);
    out[3 + len_a..3 + len_a + len_b].copy_from_slice(&b.to_be_bytes()[8 - len_b..]);
    (out, 3 + len_a + len_b)
}

/// Bytes [`write_two_integer_cell`] may write: more than the longest cell of two
/// integers (a length byte, a header of 3, two values of 8).
pub(super) const CELL_BLOCK: usize = 24;

/// Writes the index cell of the record of two integers ([`two_integers`]
/// after its length) right-aligned in `block`; its length. Written in
/// place below a page's content, with stores of a fixed size: the bytes
/// of `block` before the cell may change (a page's free space, which the
/// next cell overwrites).
#[inline]
pub(super) fn write_two_integer_cell(block: &mut [u8; CELL_BLOCK], a: i64, b: i64) -> usize {
    let ((type_a, len_a), (type_b, len_b)) = (integer_type(a), integer_type(b));
    // Each value as 8 bytes whose last `len` are its own, right to left:
    // a value's unused high bytes are overwritten by what precedes it.
    block[CELL_BLOCK - 8..].copy_from_slice(&b.to_be_bytes());
    let end_a = CELL_BLOCK - len_b;
    block[end_a - 8..end_a].copy_from_slice(&a.to_be_bytes());
    let start = end_a - len_a - 4;
    let record = 3 + len_a + len_b;
    block[start..start + 4].copy_from_slice(&[record as u8, 3, type_a as u8, type_b as u8]);
    record + 1
}

/// The serial type of the integer `i` and the bytes of its value, as
/// SQLite picks them for schema format 4.
fn integer_type(i: i64) -> (u64, usize) {
    let u = if i < 0 { !i as u64 } else { i as u64 };
    match u {
        _ if i == 0 || i == 1 => (8 + i as u64, 0),
        0..=127 => (1, 1),
        128..=32_767 => (2, 2),
        32_768..=8_388_607 => (3, 3),
        8_388_608..=2_147_483_647 => (4, 4),
        2_147_483_648..=0x7fff_ffff_ffff => (5, 6),
        _ => (6, 8),
    }
}

/// Appends SQLite's varint of `v` ([`varint`]).
fn put_varint(out: &mut Vec<u8>, v: u64) {
    // Most serial types are one byte (integers, NULL, short texts).
    if v < 0x80 {
        out.push(v as u8);
        return;
    }
    let (bytes, len) = varint(v);
    out.extend_from_slice(&bytes[..len]);
}

/// SQLite's varint of `v` and its length: big-endian groups of 7 bits,
/// the high bit set on every byte but the last; a ninth byte holds 8 bits.
pub(super) fn varint(v: u64) -> ([u8; 9], usize) {
    let mut out = [0u8; 9];
    if v < 0x80 {
        out[0] = v as u8;
        return (out, 1);
    }
    if v >> 56 != 0 {
        for (i, shift) in (8..64).step_by(7).rev().enumerate() {
            out[i] = (v >> shift) as u8 | 0x80;
        }
        out[8] = v as u8;
        return (out, 9);
    }
    let len = varint_len(v);
    for (i, byte) in out[..len - 1].iter_mut().enumerate() {
        *byte = (v >> (7 * (len - 1 - i))) as u8 | 0x80;
    }
    out[len - 1] = v as u8 & 0x7f;
    (out, len)
}

/// Bytes of the varint of `v`.
fn varint_len(v: u64) -> usize {
    match 64 - v.leading_zeros() as usize {
        bits if bits > 56 => 9,
        0 => 1,
        bits => bits.div_ceil(7),
    }
}

/// Why an image cannot be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ImageError {
    /// A record longer than a page keeps in place (SQLite would spill it
    /// to overflow pages, which images do not write).
    #[error("a row of {0} bytes is too long for a table image")]
    RowTooLong(usize),
    /// A stretch of rows built apart ([`Leaves`]) joined where it cannot
    /// go: one that keeps its first row aside at the image's start, one
    /// that does not after rows, or one of a single row (nothing for its
    /// leaf).
    #[error("a stretch of rows cannot join a table image there")]
    Stretch,
    /// A row of a rowid table out of rowid order.
    #[error("row {0} out of rowid order in a table image")]
    Disorder(i64),
}

/// Page kinds, as the page header's first byte.
pub(super) const INTERIOR_INDEX: u8 = 0x02;
pub(super) const INTERIOR_TABLE: u8 = 0x05;
pub(super) const LEAF_INDEX: u8 = 0x0a;
pub(super) const LEAF_TABLE: u8 = 0x0d;

/// A B-tree page being filled: cell pointers after the header, cells
/// from the end of the page down, in the order they come.
#[derive(Debug)]
pub(super) struct Page {
    pub(super) bytes: Vec<u8>,
    kind: u8,
    /// Where the header starts (100 on page 1, after the database header).
    at: usize,
    pub(super) cells: usize,
    /// Where the last cell placed starts.
    pub(super) content: usize,
}

impl Page {
    pub(super) fn new(kind: u8, at: usize, size: usize) -> Page {
        Page { bytes: page_buffers::take(size), kind, at, cells: 0, content: size }
    }

    fn header_len(&self) -> usize {
        if self.kind == INTERIOR_INDEX || self.kind == INTERIOR_TABLE {
            12
        } else {
            8
        }
    }

    /// `true` if a cell of `len` bytes and its pointer fit.
    pub(super) fn fits(&self, len: usize) -> bool {
        self.at + self.header_len() + 2 * (self.cells + 1) + len <= self.content
    }

    /// `true` if a whole block of [`CELL_BLOCK`] bytes and a cell pointer
    /// fit: room for [`Page::push_two_integers`].
    #[inline]
    fn has_block_room(&self) -> bool {
        self.at + self.header_len() + 2 * (self.cells + 1) + CELL_BLOCK <= self.content
    }

    /// Places the cell of the record of two integers `a`, `b`, which
    /// [`Page::has_block_room`].
    #[inline]
    fn push_two_integers(&mut self, a: i64, b: i64) {
        let end = self.content;
        let block: &mut [u8; CELL_BLOCK] = (&mut self.bytes[end - CELL_BLOCK..end])
            .try_into()
            .expect("a slice of CELL_BLOCK bytes");
        self.content = end - write_two_integer_cell(block, a, b);
        let pointer = self.at + self.header_len() + 2 * self.cells;
        self.bytes[pointer..pointer + 2].copy_from_slice(&(self.content as u16).to_be_bytes());
        self.cells += 1;
    }

    /// Places the cell made of `parts`, which [`Page::fits`].
    pub(super) fn push(&mut self, parts: &[&[u8]]) {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        debug_assert!(self.fits(len));
        self.content -= len;
        let mut at = self.content;
        for part in parts {
            self.bytes[at..at + part.len()].copy_from_slice(part);
            at += part.len();
        }
        let pointer = self.at + self.header_len() + 2 * self.cells;
        self.bytes[pointer..pointer + 2].copy_from_slice(&(self.content as u16).to_be_bytes());
        self.cells += 1;
    }

    /// The page of `kind` holding the cells of the leaf `page` (of `kind`,
    /// `size` bytes) in key order, packed from its end: `None` for a page
    /// whose cells do not parse. Index cells keep at most `max_local`
    /// bytes of their payload; table cells, `size` - 35.
    pub(super) fn repacked(kind: u8, page: &[u8], size: usize) -> Option<Page> {
        if page.len() != size || page[0] != kind {
            return None;
        }
        let cells = usize::from(u16::from_be_bytes([page[3], page[4]]));
        let mut out = Page::new(kind, 0, size);
        for i in 0..cells {
            let pointer = 8 + 2 * i;
            let at =
                usize::from(u16::from_be_bytes(page.get(pointer..pointer + 2)?.try_into().ok()?));
            let cell = page.get(at..)?;
            let (payload, head) = get_varint(cell);
            let (head, max_local) = if kind == LEAF_TABLE {
                (head + get_varint(cell.get(head..)?).1, size - 35)
            } else {
                (head, max_index_record(size))
            };
            let payload = usize::try_from(payload).ok()?;
            let local = local_len(size, max_local, payload);
            let len = head + local + if local < payload { 4 } else { 0 };
            let cell = cell.get(..len)?;
            if !out.fits(len) {
                return None;
            }
            out.push(&[cell]);
        }
        Some(out)
    }

    /// Removes the last cell placed and returns it.
    fn pop(&mut self) -> Vec<u8> {
        self.cells -= 1;
        let pointer = self.at + self.header_len() + 2 * self.cells;
        let start = self.content;
        let end = if self.cells == 0 {
            self.bytes.len()
        } else {
            usize::from(u16::from_be_bytes([self.bytes[pointer - 2], self.bytes[pointer - 1]]))
        };
        self.content = end;
        self.bytes[pointer..pointer + 2].fill(0);
        let cell = self.bytes[start..end].to_vec();
        self.bytes[start..end].fill(0);
        cell
    }

    /// The finished page, `right` its right-most child if interior.
    pub(super) fn finish(mut self, right: u32) -> Vec<u8> {
        let at = self.at;
        self.bytes[at] = self.kind;
        self.bytes[at + 3..at + 5].copy_from_slice(&(self.cells as u16).to_be_bytes());
        // A content area starting at 65,536 is written 0.
        self.bytes[at + 5..at + 7].copy_from_slice(&(self.content as u16).to_be_bytes());
        if self.kind == INTERIOR_INDEX || self.kind == INTERIOR_TABLE {
            self.bytes[at + 8..at + 12].copy_from_slice(&right.to_be_bytes());
        }
        self.bytes
    }
}

/// Leaf pages, and the rows (cells without a child's number) above them.
pub type LeafPages = (Vec<Vec<u8>>, Vec<Vec<u8>>);

/// The leaves of rows given in key order, built apart from the rest of
/// their image: by an [`ImageBuilder`] itself, or for a stretch of its rows
/// on another thread ([`ImageBuilder::stretches`]), joined to it with
/// [`ImageBuilder::append`]. A stretch keeps its first row aside: it goes
/// above the leaves before the stretch's, in the interior pages.
#[derive(Debug)]
pub struct Leaves {
    page_size: usize,
    /// Whether the first row is kept aside, and then that row (a cell).
    leads: bool,
    lead: Option<Vec<u8>>,
    /// The closed leaves, whole pages (each its own allocation, moved and
    /// never copied until placed), and the rows above each (cells).
    pages: Vec<Vec<u8>>,
    dividers: Vec<Vec<u8>>,
    /// The open leaf, never empty once it has a row but for a stretch's
    /// lead.
    leaf: Page,
    /// A row that did not fit the open leaf: it goes above it, unless it
    /// is the last row.
    pending: Option<Vec<u8>>,
    rows: u64,
    error: Option<ImageError>,
}

impl Leaves {
    /// Leaves closed so far: at most one fewer than [`Leaves::split`] gives.
    pub fn closed_pages(&self) -> usize {
        self.pages.len()
    }

    fn new(page_size: usize, leads: bool) -> Leaves {
        Leaves {
            page_size,
            leads,
            lead: None,
            pages: Vec::new(),
            dividers: Vec::new(),
            leaf: Page::new(LEAF_INDEX, 0, page_size),
            pending: None,
            rows: 0,
            error: None,
        }
    }

    /// The leaves of an index's rows in pages of `page_size` bytes, to be
    /// appended after an index's last row ([`super::append`]): the first
    /// row kept aside if `leads` (it goes above the index's last leaf).
    pub fn for_index(page_size: usize, leads: bool) -> Leaves {
        Leaves::new(page_size, leads)
    }

    /// The leaves of an index's rows that continue its last leaf, `page`:
    /// rows pushed fill it first. `None` if its cells do not parse or it
    /// holds none.
    pub fn continuing(page_size: usize, page: &[u8]) -> Option<Leaves> {
        let leaf = Page::repacked(LEAF_INDEX, page, page_size).filter(|leaf| leaf.cells > 0)?;
        Some(Leaves { leaf, ..Leaves::new(page_size, false) })
    }

    /// The leaves, in key order, each with the row above it (a cell
    /// without its child's number): the lead first, if kept, then the row
    /// between each leaf and the next.
    ///
    /// # Errors
    /// A row too long for a page.
    pub fn split(mut self) -> Result<LeafPages, ImageError> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        self.settle();
        let mut above: Vec<Vec<u8>> = self.lead.take().into_iter().collect();
        above.append(&mut self.dividers);
        let mut leaves = std::mem::take(&mut self.pages);
        if self.leaf.cells > 0 {
            leaves.push(self.leaf.finish(0));
        }
        Ok((leaves, above))
    }

    /// The largest record a page keeps in place: SQLite's "maximum local
    /// payload" of index pages.
    fn max_local(&self) -> usize {
        max_index_record(self.page_size)
    }

    /// Adds the next row, after every row pushed before it in key order.
    pub fn push(&mut self, record: &[u8]) {
        if record.len() > self.max_local() {
            self.error.get_or_insert(ImageError::RowTooLong(record.len()));
            return;
        }
        self.rows += 1;
        let (head, head_len) = varint(record.len() as u64);
        let cell = [&head[..head_len], record];
        if self.leads && self.lead.is_none() {
            self.lead = Some(cell.concat());
            return;
        }
        if let Some(divider) = self.pending.take() {
            // The row that did not fit goes above the full leaf; this one
            // starts the next.
            self.close_leaf(divider);
        }
        if self.leaf.fits(head_len + record.len()) {
            self.leaf.push(&cell);
        } else {
            self.pending = Some(cell.concat());
        }
    }

    /// Adds the next row, the record of two integers `a`, `b` (as
    /// [`two_integers`] writes it): the same as [`Leaves::push`] of it,
    /// without building the record apart when the open leaf has room.
    #[inline]
    pub fn push_two_integers(&mut self, a: i64, b: i64) {
        if (self.leads && self.lead.is_none())
            || self.pending.is_some()
            || !self.leaf.has_block_room()
        {
            let (record, len) = two_integers(a, b);
            self.push(&record[..len]);
            return;
        }
        self.rows += 1;
        self.leaf.push_two_integers(a, b);
    }

    /// Closes the open leaf, with `divider` (a cell) after it.
    fn close_leaf(&mut self, divider: Vec<u8>) {
        let full = std::mem::replace(&mut self.leaf, Page::new(LEAF_INDEX, 0, self.page_size));
        self.pages.push(full.finish(0));
        self.dividers.push(divider);
    }

    /// Places the pending row: the last row did not fit the open leaf, so
    /// the leaf's own last row goes above it, and the last row starts a
    /// leaf of its own.
    fn settle(&mut self) {
        if let Some(last) = self.pending.take() {
            let divider = self.leaf.pop();
            self.close_leaf(divider);
            self.leaf.push(&[&last]);
        }
    }
}

/// What takes rows in key order: the [`Leaves`] of a stretch, or an
/// [`ImageBuilder`].
pub trait RowSink {
    /// Adds the next row, a record.
    fn push(&mut self, record: &[u8]);
    /// Adds the next row, the record of two integers (as [`two_integers`]
    /// writes it).
    fn push_two_integers(&mut self, a: i64, b: i64);
}

impl RowSink for Leaves {
    fn push(&mut self, record: &[u8]) {
        Leaves::push(self, record);
    }
    fn push_two_integers(&mut self, a: i64, b: i64) {
        Leaves::push_two_integers(self, a, b);
    }
}

impl RowSink for ImageBuilder {
    fn push(&mut self, record: &[u8]) {
        ImageBuilder::push(self, record);
    }
    fn push_two_integers(&mut self, a: i64, b: i64) {
        ImageBuilder::push_two_integers(self, a, b);
    }
}

/// Builds the image of a table's rows given in key order.
#[derive(Debug)]
pub struct ImageBuilder {
    page_size: usize,
    /// The pages made so far, page 1 (written last) and 2 (the root) left
    /// blank.
    image: Vec<u8>,
    create_sql: String,
    /// The leaves not in `image` yet.
    leaves: Leaves,
    /// The leaves in `image` and the rows between them: the next level's
    /// cells.
    children: Vec<u32>,
    dividers: Vec<Vec<u8>>,
    rows: u64,
    error: Option<ImageError>,
    /// The page kept for the root, written last.
    root: u32,
}

impl ImageBuilder {
    /// A builder for the rows of the table `create_sql` creates, in pages
    /// of `page_size` bytes (a power of two from 512 to 65,536).
    #[cfg(test)]
    pub fn with_page_size(create_sql: &str, page_size: usize) -> ImageBuilder {
        ImageBuilder::in_buffer(create_sql, page_size, Vec::new())
    }

    /// [`ImageBuilder::with_page_size`], its image made in `buffer`, whose
    /// bytes are dropped and memory kept.
    pub fn in_buffer(create_sql: &str, page_size: usize, mut buffer: Vec<u8>) -> ImageBuilder {
        debug_assert!(page_size.is_power_of_two() && (512..=65_536).contains(&page_size));
        buffer.clear();
        buffer.resize(2 * page_size, 0);
        ImageBuilder {
            page_size,
            image: buffer,
            create_sql: create_sql.to_string(),
            leaves: Leaves::new(page_size, false),
            children: Vec::new(),
            dividers: Vec::new(),
            rows: 0,
            error: None,
            root: 2,
        }
    }

    /// A builder for an index whose pages follow `pages` (whole pages of
    /// `page_size` bytes, page 1 first) in one image of several trees
    /// ([`TablesImage`]).
    fn within(mut pages: Vec<u8>, page_size: usize) -> ImageBuilder {
        debug_assert_eq!(pages.len() % page_size, 0);
        pages.resize(pages.len() + page_size, 0);
        let root = (pages.len() / page_size) as u32;
        ImageBuilder {
            page_size,
            image: pages,
            create_sql: String::new(),
            leaves: Leaves::new(page_size, false),
            children: Vec::new(),
            dividers: Vec::new(),
            rows: 0,
            error: None,
            root,
        }
    }

    /// Reserves room for about `rows` rows of `row_bytes` bytes each.
    pub fn reserve(&mut self, rows: usize, row_bytes: usize) {
        let per_page = (self.page_size - 8) / (row_bytes + 3).max(1);
        self.image.reserve(rows.div_ceil(per_page.max(1)) * self.page_size * 102 / 100);
    }

    /// Rows pushed or appended.
    pub fn rows(&self) -> u64 {
        self.rows + self.leaves.rows
    }

    /// Adds the next row, after every row pushed before it in key order.
    pub fn push(&mut self, record: &[u8]) {
        self.leaves.push(record);
        self.place_closed();
    }

    /// Adds the next row, the record of two integers `a`, `b`
    /// ([`Leaves::push_two_integers`]).
    pub fn push_two_integers(&mut self, a: i64, b: i64) {
        self.leaves.push_two_integers(a, b);
        self.place_closed();
    }

    /// Places the leaves closed by the last row.
    #[inline]
    fn place_closed(&mut self) {
        if !self.leaves.pages.is_empty() {
            // A leaf closed: into the image at once, so that the leaves
            // are not held twice.
            let pages = std::mem::take(&mut self.leaves.pages);
            let dividers = std::mem::take(&mut self.leaves.dividers);
            self.place_pages(&pages, dividers);
            // Made on this thread by the leaves, copied: for the next ones.
            page_buffers::give_back(pages);
        }
    }

    /// `n` empty stretches for the rows that come next, in key order: to
    /// fill on other threads, then [`ImageBuilder::append`] in order. The
    /// first starts the image if it has no rows yet; every other keeps its
    /// first row aside, and must get two rows or none.
    pub fn stretches(&self, n: usize) -> Vec<Leaves> {
        (0..n).map(|i| Leaves::new(self.page_size, i > 0 || self.rows() > 0)).collect()
    }

    /// Appends `stretch` ([`ImageBuilder::stretches`]), whose rows come
    /// after every row pushed or appended so far (and before any pushed
    /// later). A stretch of no row adds nothing; one out of place is
    /// refused ([`ImageError::Stretch`], from [`ImageBuilder::finish`]).
    pub fn append(&mut self, mut stretch: Leaves) {
        if let Some(error) = stretch.error.take() {
            self.error.get_or_insert(error);
        }
        if stretch.rows == 0 {
            return;
        }
        let Some(lead) = stretch.lead.take() else {
            if self.rows() > 0 {
                self.error.get_or_insert(ImageError::Stretch);
            } else {
                self.leaves = stretch;
            }
            return;
        };
        if self.rows() == 0 || stretch.rows < 2 {
            self.error.get_or_insert(ImageError::Stretch);
            return;
        }
        // Its leaves are the builder's from now on: rows pushed next go
        // into them.
        stretch.leads = false;
        self.leaves.settle();
        stretch.settle();
        let own = std::mem::replace(&mut self.leaves, stretch);
        self.rows += own.rows;
        // The rows so far, the lead above them, then the stretch's own
        // closed leaves; its open leaf stays open.
        self.place(own, Some(lead));
        let closed = std::mem::take(&mut self.leaves.pages);
        let dividers = std::mem::take(&mut self.leaves.dividers);
        self.place_pages(&closed, dividers);
    }

    /// Writes the closed leaves of `leaves` and its open leaf into the
    /// image, with `after` above the open leaf.
    fn place(&mut self, mut leaves: Leaves, after: Option<Vec<u8>>) {
        let pages = std::mem::take(&mut leaves.pages);
        self.place_pages(&pages, std::mem::take(&mut leaves.dividers));
        let page = self.append_page(&leaves.leaf.finish(0));
        self.children.push(page);
        if let Some(divider) = after {
            self.dividers.push(divider);
        }
    }

    /// Writes closed leaves (whole pages, each with the row above it) into
    /// the image.
    fn place_pages(&mut self, pages: &[Vec<u8>], dividers: Vec<Vec<u8>>) {
        debug_assert_eq!(pages.len(), dividers.len());
        for (page, divider) in pages.iter().zip(dividers) {
            let number = self.append_page(page);
            self.children.push(number);
            self.dividers.push(divider);
        }
    }

    /// Appends a finished page to the image; its page number.
    fn append_page(&mut self, page: &[u8]) -> u32 {
        self.image.extend_from_slice(page);
        (self.image.len() / self.page_size) as u32
    }

    /// The image: its bytes, whose length is a whole number of pages.
    ///
    /// # Errors
    /// A row too long for a page.
    pub fn finish(mut self) -> Result<Vec<u8>, ImageError> {
        let sql = std::mem::take(&mut self.create_sql);
        let page_size = self.page_size;
        let (mut image, root) = self.finish_tree()?;
        let pages = (image.len() / page_size) as u32;
        let row = SchemaRow { kind: "table", name: TABLE, table: TABLE, root, sql: &sql };
        let first = first_page(page_size, pages, &[row])?;
        image[..page_size].copy_from_slice(&first);
        Ok(image)
    }

    /// The pages, with the tree's, and the number of its root page.
    fn finish_tree(mut self) -> Result<(Vec<u8>, u32), ImageError> {
        if let Some(error) = self.error.take().or_else(|| self.leaves.error.take()) {
            return Err(error);
        }
        self.leaves.settle();
        let leaves = std::mem::replace(&mut self.leaves, Leaves::new(self.page_size, false));
        let mut root = if self.children.is_empty() && leaves.pages.is_empty() {
            // One leaf: the root.
            leaves.leaf.finish(0)
        } else {
            self.place(leaves, None);
            let (mut children, mut dividers) =
                (std::mem::take(&mut self.children), std::mem::take(&mut self.dividers));
            loop {
                match self.interior_level(&children, &dividers) {
                    Level::Root(page) => break page,
                    Level::Pages(up_children, up_dividers) => {
                        (children, dividers) = (up_children, up_dividers);
                    }
                }
            }
        };
        let page_size = self.page_size;
        root.truncate(page_size);
        let at = (self.root as usize - 1) * page_size;
        self.image[at..at + page_size].copy_from_slice(&root);
        Ok((self.image, self.root))
    }

    /// The pages above `children` (page numbers, in key order) and the
    /// `dividers` between them (one fewer): one root page if they fit it,
    /// else pages appended to the image, and the level above theirs.
    ///
    /// Each page takes the cells that fit; the divider that does not goes
    /// up, and its child becomes the page's right-most one. A last page
    /// left with no cell takes the one before's last cell (a page holds
    /// three cells or more: a record is at most a quarter of it).
    fn interior_level(&mut self, children: &[u32], dividers: &[Vec<u8>]) -> Level {
        debug_assert_eq!(children.len(), dividers.len() + 1);
        let last_child = *children.last().expect("one child or more");
        let mut full: Vec<Page> = Vec::new();
        let mut rights: Vec<u32> = Vec::new();
        let mut up: Vec<Vec<u8>> = Vec::new();
        let mut page = Page::new(INTERIOR_INDEX, 0, self.page_size);
        for (child, divider) in children.iter().zip(dividers) {
            if page.fits(4 + divider.len()) {
                page.push(&[&child.to_be_bytes(), divider]);
            } else {
                full.push(std::mem::replace(
                    &mut page,
                    Page::new(INTERIOR_INDEX, 0, self.page_size),
                ));
                rights.push(*child);
                up.push(divider.clone());
            }
        }
        if full.is_empty() {
            return Level::Root(page.finish(last_child));
        }
        if page.cells == 0 {
            let before = full.last_mut().expect("a full page");
            let cell = before.pop();
            let (child, divider) = cell.split_at(4);
            let right = rights.last_mut().expect("a right-most child per full page");
            let old_right = std::mem::replace(right, u32::from_be_bytes(child.try_into().unwrap()));
            let demoted = std::mem::replace(up.last_mut().expect("a divider"), divider.to_vec());
            page.push(&[&old_right.to_be_bytes(), &demoted]);
        }
        let mut up_children = Vec::with_capacity(full.len() + 1);
        for (page, right) in full.into_iter().zip(rights) {
            up_children.push(self.append_page(&page.finish(right)));
        }
        up_children.push(self.append_page(&page.finish(last_child)));
        Level::Pages(up_children, up)
    }
}

/// The leaves of a rowid table, from rows given in rowid order: to join
/// a [`TablesImage`] or to be appended to a table
/// ([`super::append`]). Built apart from any image, on any thread: a row
/// too long for a leaf spills to overflow pages as SQLite's would, and the
/// page numbers those need are written when the leaves are placed
/// ([`RowidLeaves::place`]).
#[derive(Debug)]
pub struct RowidLeaves {
    page_size: usize,
    /// The closed leaves, whole pages (each its own allocation, moved and
    /// never copied until placed), and the last rowid of each.
    pages: Vec<Vec<u8>>,
    last_rowids: Vec<i64>,
    leaf: Page,
    last: Option<i64>,
    rows: u64,
    /// Overflow pages, chain after chain, their first word (the next
    /// page's number) left to [`RowidLeaves::place`].
    overflow: Vec<Vec<u8>>,
    chains: Vec<Chain>,
    /// The first rowid pushed.
    first: Option<i64>,
    /// The table's last leaf that the rows continue ([`RowidLeaves::continuing`]):
    /// its page number, and the cells it held, the first leaf's first.
    continued: Option<u32>,
    continued_cells: usize,
}

/// The overflow pages of one row.
#[derive(Debug)]
struct Chain {
    /// The leaf holding the row (its index among the closed leaves; their
    /// number for the open one).
    leaf: usize,
    /// Where in the leaf the first overflow page's number goes.
    at: usize,
    /// The chain's pages in [`RowidLeaves::overflow`].
    pages: std::ops::Range<usize>,
}

impl Default for RowidLeaves {
    fn default() -> RowidLeaves {
        RowidLeaves::new()
    }
}

impl RowidLeaves {
    /// No rows yet, in pages of [`PAGE_SIZE`].
    pub fn new() -> RowidLeaves {
        RowidLeaves::with_page_size(PAGE_SIZE)
    }

    /// No rows yet, in pages of `page_size` bytes (a power of two from 512
    /// to 65,536; no bytes reserved at their end).
    pub fn with_page_size(page_size: usize) -> RowidLeaves {
        debug_assert!(page_size.is_power_of_two() && (512..=65_536).contains(&page_size));
        RowidLeaves {
            page_size,
            pages: Vec::new(),
            last_rowids: Vec::new(),
            leaf: Page::new(LEAF_TABLE, 0, page_size),
            last: None,
            rows: 0,
            overflow: Vec::new(),
            chains: Vec::new(),
            first: None,
            continued: None,
            continued_cells: 0,
        }
    }

    /// Leaves whose rows continue a table's last leaf, `page`, whose number
    /// is `pgno`: rows pushed fill it first, and it is placed first. `None`
    /// if its cells do not parse or it holds none.
    pub fn continuing(page_size: usize, pgno: u32, page: &[u8]) -> Option<RowidLeaves> {
        let leaf = Page::repacked(LEAF_TABLE, page, page_size)?;
        let pointer = 8 + 2 * leaf.cells.checked_sub(1)?;
        let at = usize::from(u16::from_be_bytes([leaf.bytes[pointer], leaf.bytes[pointer + 1]]));
        let (_, len) = get_varint(&leaf.bytes[at..]);
        let last = get_varint(&leaf.bytes[at + len..]).0 as i64;
        Some(RowidLeaves {
            continued_cells: leaf.cells,
            leaf,
            last: Some(last),
            continued: Some(pgno),
            ..RowidLeaves::with_page_size(page_size)
        })
    }

    /// Takes the rows of the leaf continued out of the first leaf: the
    /// leaves hold the rows pushed alone, and continue nothing (for a
    /// table that SQL writes into beside them).
    pub fn uncontinue(&mut self) {
        if self.continued.take().is_none() {
            return;
        }
        let skip = std::mem::take(&mut self.continued_cells);
        let page_size = self.page_size;
        let (bytes, cells) = match self.pages.first() {
            Some(page) => (page.as_slice(), usize::from(u16::from_be_bytes([page[3], page[4]]))),
            None => (self.leaf.bytes.as_slice(), self.leaf.cells),
        };
        // Cells lie in the order pushed, each below the one before.
        let pointer =
            |j: usize| usize::from(u16::from_be_bytes([bytes[8 + 2 * j], bytes[9 + 2 * j]]));
        let mut kept = Page::new(LEAF_TABLE, 0, page_size);
        let mut moved = Vec::new();
        for j in skip..cells {
            let (start, end) = (pointer(j), if j == 0 { page_size } else { pointer(j - 1) });
            kept.push(&[&bytes[start..end]]);
            moved.push((start..end, kept.content));
        }
        for chain in self.chains.iter_mut().filter(|c| c.leaf == 0) {
            if let Some((old, new)) = moved.iter().find(|(old, _)| old.contains(&chain.at)) {
                chain.at = new + (chain.at - old.start);
            }
        }
        if self.pages.is_empty() {
            self.leaf = kept;
        } else if kept.cells == 0 {
            // The leaf continued was full before the first row pushed.
            self.pages.remove(0);
            self.last_rowids.remove(0);
            self.chains.iter_mut().for_each(|c| c.leaf -= 1);
        } else {
            self.pages[0] = kept.finish(0);
        }
    }

    /// The page number of the leaf these rows continue, if they do.
    pub fn continued(&self) -> Option<u32> {
        self.continued
    }

    /// The longest record a row may have: SQLite's default limit on the
    /// length of a row.
    pub const MAX_RECORD: usize = 1_000_000_000;

    /// Bytes per page.
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// Rows pushed.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Leaves so far, the open one too.
    pub fn leaves(&self) -> usize {
        self.pages.len() + 1
    }

    /// Bytes of the pages so far.
    pub fn bytes(&self) -> usize {
        (self.pages.len() + 1 + self.overflow.len()) * self.page_size
    }

    /// The last rowid pushed, or of the leaf continued.
    pub fn last_rowid(&self) -> Option<i64> {
        self.last
    }

    /// The first rowid pushed.
    pub fn first_rowid(&self) -> Option<i64> {
        self.first
    }

    /// Bytes of a row's payload of `len` bytes kept in its leaf: SQLite's
    /// rule for table leaves (the rest spills to overflow pages).
    fn local_len(&self, len: usize) -> usize {
        table_local_len(self.page_size, len)
    }

    /// Adds the row `rowid`, greater than every rowid pushed before, whose
    /// record is `record`.
    ///
    /// # Errors
    /// [`ImageError::RowTooLong`] for a record longer than
    /// [`RowidLeaves::MAX_RECORD`]; [`ImageError::Disorder`] for a rowid
    /// out of order. Nothing is pushed then.
    pub fn push(&mut self, rowid: i64, record: &[u8]) -> Result<(), ImageError> {
        if record.len() > Self::MAX_RECORD {
            return Err(ImageError::RowTooLong(record.len()));
        }
        if self.last.is_some_and(|last| last >= rowid) {
            return Err(ImageError::Disorder(rowid));
        }
        let local = self.local_len(record.len());
        if local < record.len() {
            let pages = overflow_pages(&record[local..], self.page_size);
            self.push_spilling(rowid, record.len(), &record[..local], pages);
            return Ok(());
        }
        let (len, len_len) = varint(record.len() as u64);
        let (key, key_len) = varint(rowid as u64);
        self.make_room(len_len + key_len + record.len());
        self.leaf.push(&[&len[..len_len], &key[..key_len], record]);
        self.pushed(rowid);
        Ok(())
    }

    /// Adds the row `rowid` as [`RowidLeaves::push`] does, its record
    /// cut already ([`CutRecord::new`]): its overflow pages are taken as
    /// they are.
    ///
    /// # Errors
    /// As [`RowidLeaves::push`].
    pub fn push_spilled(&mut self, rowid: i64, spilled: Spilled) -> Result<(), ImageError> {
        if spilled.page_size != self.page_size {
            return self.push(rowid, &spilled.whole());
        }
        if spilled.len > Self::MAX_RECORD {
            return Err(ImageError::RowTooLong(spilled.len));
        }
        if self.last.is_some_and(|last| last >= rowid) {
            return Err(ImageError::Disorder(rowid));
        }
        let Spilled { len, local, pages, .. } = spilled;
        self.push_spilling(rowid, len, &local, pages);
        Ok(())
    }

    /// Closes the open leaf if a cell of `cell_len` bytes does not fit it.
    fn make_room(&mut self, cell_len: usize) {
        if !self.leaf.fits(cell_len) {
            let full = std::mem::replace(&mut self.leaf, Page::new(LEAF_TABLE, 0, self.page_size));
            self.pages.push(full.finish(0));
            self.last_rowids.push(self.last.expect("a full leaf has rows"));
        }
    }

    /// Adds the row `rowid` of a record of `len` bytes that spills: `local`
    /// its bytes kept in the leaf, `pages` its overflow pages.
    fn push_spilling(&mut self, rowid: i64, len: usize, local: &[u8], pages: Vec<Vec<u8>>) {
        let (len, len_len) = varint(len as u64);
        let (key, key_len) = varint(rowid as u64);
        let cell_len = len_len + key_len + local.len() + 4;
        self.make_room(cell_len);
        self.leaf.push(&[&len[..len_len], &key[..key_len], local, &[0; 4]]);
        let start = self.overflow.len();
        self.overflow.extend(pages);
        let at = self.leaf.content + cell_len - 4;
        let pages = start..self.overflow.len();
        self.chains.push(Chain { leaf: self.pages.len(), at, pages });
        self.pushed(rowid);
    }

    /// Counts the row `rowid` just pushed.
    fn pushed(&mut self, rowid: i64) {
        self.last = Some(rowid);
        self.first.get_or_insert(rowid);
        self.rows += 1;
    }

    /// Writes every page through `write`, which gives each page its number
    /// (overflow pages first, each chain from its end, then the leaf that
    /// points to it; `true` for a leaf): the leaves' numbers and last
    /// rowids, in key order. With no rows, one empty leaf.
    pub fn place(self, write: &mut dyn FnMut(Vec<u8>, bool) -> u32) -> Vec<(u32, i64)> {
        let RowidLeaves { pages, last_rowids, leaf, last, mut overflow, chains, .. } = self;
        let open = leaf.finish(0);
        let mut chains = chains.into_iter().peekable();
        let mut placed = Vec::with_capacity(pages.len() + 1);
        let lasts = last_rowids.into_iter().chain([last.unwrap_or(0)]);
        for (i, (mut page, last)) in pages.into_iter().chain([open]).zip(lasts).enumerate() {
            while let Some(chain) = chains.next_if(|c| c.leaf == i) {
                let mut next = 0u32;
                for k in chain.pages.rev() {
                    overflow[k][..4].copy_from_slice(&next.to_be_bytes());
                    next = write(std::mem::take(&mut overflow[k]), false);
                }
                page[chain.at..chain.at + 4].copy_from_slice(&next.to_be_bytes());
            }
            placed.push((write(page, true), last));
        }
        placed
    }
}

/// The overflow pages of `spill`, the part of a payload its cell does not
/// keep, on pages of `page_size` bytes: each with room for the next page's
/// number in its first four bytes.
fn overflow_pages(spill: &[u8], page_size: usize) -> Vec<Vec<u8>> {
    spill
        .chunks(page_size - 4)
        .map(|part| {
            let mut page = vec![0; page_size];
            page[4..4 + part.len()].copy_from_slice(part);
            page
        })
        .collect()
}

/// A record too long for a table leaf, cut where [`RowidLeaves::push`]
/// would cut it ([`CutRecord::new`]): made on the workers, so that the
/// writer only takes the pages ([`RowidLeaves::push_spilled`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spilled {
    page_size: usize,
    /// The record's length.
    len: usize,
    /// Its bytes kept in the leaf.
    local: Vec<u8>,
    /// Its overflow pages, each with four bytes for the next one's number.
    pages: Vec<Vec<u8>>,
}

/// A table row's record as a worker hands it to the writer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CutRecord {
    /// A record its leaf holds whole.
    Whole(Vec<u8>),
    /// A record cut for its leaf and overflow pages.
    Spilled(Spilled),
}

impl CutRecord {
    /// `record` as it goes into table leaves of `page_size` bytes.
    pub fn new(mut record: Vec<u8>, page_size: usize) -> CutRecord {
        let local = table_local_len(page_size, record.len());
        if local == record.len() {
            return CutRecord::Whole(record);
        }
        let pages = overflow_pages(&record[local..], page_size);
        let len = record.len();
        record.truncate(local);
        CutRecord::Spilled(Spilled { page_size, len, local: record, pages })
    }
}

impl Spilled {
    /// The record whole again.
    pub fn whole(&self) -> Vec<u8> {
        let mut record = Vec::with_capacity(self.len);
        record.extend_from_slice(&self.local);
        for page in &self.pages {
            let part = (self.len - record.len()).min(self.page_size - 4);
            record.extend_from_slice(&page[4..4 + part]);
        }
        record
    }
}

/// Bytes of a table row's payload of `len` bytes kept in its leaf, on
/// pages of `page_size` bytes ([`local_len`] of table leaves).
fn table_local_len(page_size: usize, len: usize) -> usize {
    local_len(page_size, page_size - 35, len)
}

/// Bytes of a payload of `len` bytes kept in its cell, on pages of
/// `page_size` bytes whose cells keep `max_local` bytes at most: SQLite's
/// rule (the rest spills to overflow pages).
pub(super) fn local_len(page_size: usize, max_local: usize, len: usize) -> usize {
    if len <= max_local {
        return len;
    }
    let min_local = (page_size - 12) * 32 / 255 - 23;
    let k = min_local + (len - min_local) % (page_size - 4);
    if k <= max_local {
        k
    } else {
        min_local
    }
}

/// The longest record an index row keeps in its page: SQLite's "maximum
/// local payload" of index pages of `page_size` bytes.
pub fn max_index_record(page_size: usize) -> usize {
    (page_size - 12) * 64 / 255 - 23
}

/// SQLite's varint at the start of `bytes`, and its length.
pub(super) fn get_varint(bytes: &[u8]) -> (u64, usize) {
    let mut v = 0u64;
    for (i, &b) in bytes.iter().take(8).enumerate() {
        v = (v << 7) | u64::from(b & 0x7f);
        if b < 0x80 {
            return (v, i + 1);
        }
    }
    match bytes.get(8) {
        Some(&b) => ((v << 8) | u64::from(b), 9),
        None => (v, bytes.len()),
    }
}

/// An image of several trees: rowid tables, each given as its leaves
/// ([`RowidLeaves`]), and indexes of them, each given as its records in
/// key order. Page 1 is the database header and the schema table, then
/// each tree's pages, its root last.
#[derive(Debug)]
pub struct TablesImage {
    page_size: usize,
    pages: Vec<u8>,
    schema: Vec<(&'static str, String, String, u32, String)>,
    /// Children per interior page of a rowid table at most.
    fanout: usize,
}

impl Default for TablesImage {
    fn default() -> TablesImage {
        TablesImage::new()
    }
}

impl TablesImage {
    /// An image of no tree yet, in pages of [`PAGE_SIZE`].
    pub fn new() -> TablesImage {
        TablesImage::with_page_size(PAGE_SIZE)
    }

    /// An image of no tree yet, in pages of `page_size` bytes.
    pub fn with_page_size(page_size: usize) -> TablesImage {
        // A cell takes at most 4 + 9 bytes and its pointer 2.
        let fanout = (page_size - 12) / 15 + 1;
        TablesImage { page_size, pages: vec![0; page_size], schema: Vec::new(), fanout }
    }

    fn append_page(&mut self, page: &[u8]) -> u32 {
        self.pages.extend_from_slice(page);
        (self.pages.len() / self.page_size) as u32
    }

    /// Adds the rowid table `name`, created by `sql`, with the rows of
    /// `leaves` (in the image's page size).
    pub fn add_table(&mut self, name: &str, sql: &str, leaves: RowidLeaves) {
        debug_assert_eq!(leaves.page_size(), self.page_size);
        let page_size = self.page_size;
        self.pages.reserve(leaves.bytes() + (leaves.leaves() / 1000 + 1) * page_size);
        let mut level = leaves.place(&mut |page, _| self.append_page(&page));
        // Interior pages: each child but a page's last is a cell (its page
        // and its last rowid); a page's last child is its right-most
        // pointer.
        let per_page = self.fanout;
        while level.len() > 1 {
            let mut groups: Vec<&[(u32, i64)]> = level.chunks(per_page).collect();
            let n = groups.len();
            if n > 1 && groups[n - 1].len() == 1 {
                // No page of a right-most pointer alone: the last two
                // groups share their children.
                let start = level.len() - groups[n - 2].len() - 1;
                let half = start + (level.len() - start) / 2;
                groups[n - 2] = &level[start..half];
                groups[n - 1] = &level[half..];
            }
            let mut up = Vec::with_capacity(groups.len());
            for group in groups {
                let (&(right, last), cells) = group.split_last().expect("groups are not empty");
                let mut page = Page::new(INTERIOR_TABLE, 0, page_size);
                for &(child, child_last) in cells {
                    let (key, key_len) = varint(child_last as u64);
                    page.push(&[&child.to_be_bytes(), &key[..key_len]]);
                }
                up.push((self.append_page(&page.finish(right)), last));
            }
            level = up;
        }
        let root = level[0].0;
        self.schema.push(("table", name.to_string(), name.to_string(), root, sql.to_string()));
    }

    /// An index builder whose pages follow this image's: push its records
    /// in key order, then [`TablesImage::add_index`].
    pub fn index_builder(&mut self) -> ImageBuilder {
        ImageBuilder::within(std::mem::take(&mut self.pages), self.page_size)
    }

    /// Adds the index `name` of `table`, created by `sql`, built by
    /// `builder` (from [`TablesImage::index_builder`], no other tree added
    /// since).
    ///
    /// # Errors
    /// A record too long for a page.
    pub fn add_index(
        &mut self,
        name: &str,
        table: &str,
        sql: &str,
        builder: ImageBuilder,
    ) -> Result<(), ImageError> {
        let (pages, root) = builder.finish_tree()?;
        self.pages = pages;
        self.schema.push(("index", name.to_string(), table.to_string(), root, sql.to_string()));
        Ok(())
    }

    /// The image's bytes.
    ///
    /// # Errors
    /// A schema too long for page 1.
    pub fn finish(mut self) -> Result<Vec<u8>, ImageError> {
        let rows: Vec<SchemaRow<'_>> = self
            .schema
            .iter()
            .map(|(kind, name, table, root, sql)| SchemaRow { kind, name, table, root: *root, sql })
            .collect();
        let page_size = self.page_size;
        let pages = (self.pages.len() / page_size) as u32;
        let first = first_page(page_size, pages, &rows)?;
        self.pages[..page_size].copy_from_slice(&first);
        Ok(self.pages)
    }
}

/// A row of an image's schema table.
#[derive(Debug, Clone, Copy)]
struct SchemaRow<'a> {
    /// `table` or `index`.
    kind: &'static str,
    name: &'a str,
    /// The table (of an index: the table it indexes).
    table: &'a str,
    root: u32,
    sql: &'a str,
}

/// Page 1 of an image of `pages` pages: the database header and the
/// schema table, whose rows are `rows`.
///
/// # Errors
/// A schema that does not fit the page.
fn first_page(page_size: usize, pages: u32, rows: &[SchemaRow<'_>]) -> Result<Vec<u8>, ImageError> {
    let mut page = Page::new(LEAF_TABLE, 100, page_size);
    let mut record = Record::default();
    for (rowid, row) in rows.iter().enumerate() {
        let schema_row = record
            .encode(&[
                Value::Text(row.kind),
                Value::Text(row.name),
                Value::Text(row.table),
                Value::Integer(i64::from(row.root)),
                Value::Text(row.sql),
            ])
            .to_vec();
        let mut head = Vec::new();
        put_varint(&mut head, schema_row.len() as u64);
        put_varint(&mut head, rowid as u64 + 1);
        if !page.fits(head.len() + schema_row.len()) {
            return Err(ImageError::RowTooLong(schema_row.len()));
        }
        page.push(&[&head, &schema_row]);
    }
    let mut bytes = page.finish(0);
    let h = &mut bytes[..100];
    h[..16].copy_from_slice(b"SQLite format 3\0");
    // 65,536 is written 1.
    let size_field = if page_size == 65_536 { 1 } else { page_size as u16 };
    h[16..18].copy_from_slice(&size_field.to_be_bytes());
    h[18] = 1; // rollback journal, written and read
    h[19] = 1;
    h[21] = 64; // payload fractions, fixed by the format
    h[22] = 32;
    h[23] = 32;
    h[24..28].copy_from_slice(&1u32.to_be_bytes()); // change counter
    h[28..32].copy_from_slice(&pages.to_be_bytes());
    h[40..44].copy_from_slice(&1u32.to_be_bytes()); // schema cookie
    h[44..48].copy_from_slice(&4u32.to_be_bytes()); // schema format
    h[56..60].copy_from_slice(&1u32.to_be_bytes()); // UTF-8
    h[92..96].copy_from_slice(&1u32.to_be_bytes()); // the page count is valid
    h[96..100].copy_from_slice(&3_045_000u32.to_be_bytes());
    Ok(bytes)
}

/// Gives the pages of `image` (of `page_size` bytes, page 1 first) the
/// numbers `numbers` holds by their number in the image (`numbers[k]` for
/// page `k`; pages 0 and 1 are not renumbered): the child pointers of its
/// interior pages are rewritten. Leaves point nowhere: images write no
/// overflow pages.
pub fn renumber(image: &mut [u8], page_size: usize, numbers: &[u32]) {
    let renumber = |at: &mut [u8]| {
        let old = u32::from_be_bytes([at[0], at[1], at[2], at[3]]) as usize;
        at.copy_from_slice(&numbers[old].to_be_bytes());
    };
    for page in image.chunks_exact_mut(page_size).skip(1) {
        if page[0] != INTERIOR_INDEX && page[0] != INTERIOR_TABLE {
            continue;
        }
        let cells = usize::from(u16::from_be_bytes([page[3], page[4]]));
        renumber(&mut page[8..12]);
        for i in 0..cells {
            let pointer = 12 + 2 * i;
            let cell = usize::from(u16::from_be_bytes([page[pointer], page[pointer + 1]]));
            renumber(&mut page[cell..cell + 4]);
        }
    }
}

/// What one level of interior pages came to.
enum Level {
    /// They fit one page: the root.
    Root(Vec<u8>),
    /// Page numbers and the dividers between them: the next level's cells.
    Pages(Vec<u32>, Vec<Vec<u8>>),
}

/// Where the writer's connection reads images: [`SCHEMA`], attached
/// empty, and the image loaded there last.
///
/// SQLite reads a loaded image in place (read-only, not copied), and
/// cannot load another into a schema that the current transaction has
/// read, so an image stays loaded until the next one or until
/// [`ImageSlot::clear`] after the transaction ends. A slot dropped with
/// an image loaded leaks the image rather than free memory that SQLite
/// may still read.
#[derive(Debug)]
pub struct ImageSlot {
    /// The schema's name.
    schema: &'static str,
    loaded: Option<std::mem::ManuallyDrop<Vec<u8>>>,
}

impl Default for ImageSlot {
    fn default() -> ImageSlot {
        ImageSlot { schema: SCHEMA, loaded: None }
    }
}

impl ImageSlot {
    /// Attaches the empty schema [`SCHEMA`] to `conn`, outside any
    /// transaction (SQLite attaches no database inside one).
    ///
    /// # Errors
    /// Database errors.
    pub fn attach(conn: &Connection) -> rusqlite::Result<ImageSlot> {
        ImageSlot::attach_as(conn, SCHEMA)
    }

    /// Attaches the empty schema `schema` to `conn`, as
    /// [`ImageSlot::attach`] does [`SCHEMA`]: a second slot, for an image
    /// copied in the same transactions as the first's.
    ///
    /// # Errors
    /// Database errors.
    pub fn attach_as(conn: &Connection, schema: &'static str) -> rusqlite::Result<ImageSlot> {
        conn.execute_batch(&format!("ATTACH ':memory:' AS {schema}"))?;
        Ok(ImageSlot { schema, loaded: None })
    }

    /// The schema the slot loads images into.
    pub fn schema(&self) -> &'static str {
        self.schema
    }

    /// Loads `image` (from [`TablesImage::finish`]), whose tables are
    /// then copied by [`ImageSlot::copy_table`]. May run inside a
    /// transaction that has not read the slot's schema yet: once per
    /// transaction.
    ///
    /// # Errors
    /// Database errors.
    pub fn load_tables(&mut self, conn: &Connection, image: Vec<u8>) -> rusqlite::Result<()> {
        self.load(conn, image)
    }

    /// Copies the rows of the loaded image's table `table` into the main
    /// schema's table of the same name and shape, by SQLite's transfer of
    /// whole records (the main table may hold rows); the rows copied.
    ///
    /// # Errors
    /// Database errors, and an image SQLite finds malformed.
    pub fn copy_table(&self, conn: &Connection, table: &str) -> rusqlite::Result<usize> {
        let schema = self.schema;
        conn.execute(
            &format!("INSERT OR ROLLBACK INTO main.{table} SELECT * FROM {schema}.{table}"),
            [],
        )
    }

    /// Copies the rows of `image` (from [`ImageBuilder::finish`], its table
    /// created as `table` is) into the empty table `table` of the main
    /// schema, by SQLite's transfer of a whole table; the rows copied. May
    /// run inside a transaction that has not read [`SCHEMA`] yet: once per
    /// transaction.
    ///
    /// # Errors
    /// Database errors, and an image SQLite finds malformed.
    pub fn copy_into(
        &mut self,
        conn: &Connection,
        table: &str,
        image: Vec<u8>,
    ) -> rusqlite::Result<usize> {
        self.load(conn, image)?;
        // Exactly this shape of statement lets SQLite transfer the records;
        // OR ROLLBACK spares it a statement journal, as for the import's
        // other inserts (a failure ends the transaction anyway).
        conn.execute(
            &format!("INSERT OR ROLLBACK INTO main.{table} SELECT * FROM {}.{TABLE}", self.schema),
            [],
        )
    }

    /// Loads `image` in place of the last one, which is freed.
    fn load(&mut self, conn: &Connection, image: Vec<u8>) -> rusqlite::Result<()> {
        let mut image = std::mem::ManuallyDrop::new(image);
        let (data, len) = (image.as_mut_ptr(), image.len());
        // Safety: `image` is kept, unchanged, in the slot until SQLite is
        // given another database to read.
        let loaded = unsafe { deserialize(conn, self.schema, data, len, true) };
        // Whether SQLite kept the pointer on an error is not known: the
        // slot keeps both.
        if let Some(mut last) = self.loaded.replace(image) {
            if loaded.is_ok() {
                // Safety: SQLite reads the new image now, and this is the
                // only drop of the last one.
                unsafe { std::mem::ManuallyDrop::drop(&mut last) };
            }
        }
        loaded
    }

    /// Frees the loaded image (an empty database in its place), outside
    /// any transaction that read it.
    ///
    /// # Errors
    /// Database errors; the image stays loaded then.
    pub fn clear(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        if self.loaded.is_some() {
            // An empty database SQLite owns and may grow, as the attached
            // one was: BEGIN IMMEDIATE takes a write lock on every schema,
            // which a read-only one refuses and which writes the first
            // page of an empty one.
            // Safety: no memory of ours.
            unsafe { deserialize(conn, self.schema, std::ptr::null_mut(), 0, false) }?;
            if let Some(mut image) = self.loaded.take() {
                // Safety: SQLite no longer reads it; its only drop.
                unsafe { std::mem::ManuallyDrop::drop(&mut image) };
            }
            // SQLite reads a schema it has not read yet when the next
            // statement is prepared, whichever schema that statement uses:
            // inside the next transaction, that read would keep the next
            // image from loading. Read it now.
            conn.query_row(
                &format!("SELECT count(*) FROM {}.sqlite_master", self.schema),
                [],
                |_| Ok(()),
            )?;
        }
        Ok(())
    }

    /// Frees the loaded image and detaches [`SCHEMA`], outside any
    /// transaction.
    ///
    /// # Errors
    /// Database errors.
    pub fn detach(mut self, conn: &Connection) -> rusqlite::Result<()> {
        self.clear(conn)?;
        conn.execute_batch(&format!("DETACH {}", self.schema))
    }
}

/// Loads `len` bytes at `data` as the database `schema`: read in place if
/// `in_place` (never written: nothing writes into an image's schema);
/// else SQLite's own, which it may grow and frees (`data` then from
/// `sqlite3_malloc`, or null).
///
/// # Safety
/// In place, the bytes stay valid and unchanged until `schema` is loaded
/// again or the connection closes.
unsafe fn deserialize(
    conn: &Connection,
    schema: &str,
    data: *mut u8,
    len: usize,
    in_place: bool,
) -> rusqlite::Result<()> {
    use rusqlite::ffi;
    let name = std::ffi::CString::new(schema).expect("no NUL in a schema name");
    let len = len as i64;
    let rc = ffi::sqlite3_deserialize(
        conn.handle(),
        name.as_ptr(),
        data,
        len,
        len,
        if in_place {
            // Not read-only: a statement that opens a write transaction on
            // every schema (`sqlite_dbpage`'s) must be able to; none
            // writes into an image's schema, and SQLite could not grow it.
            0
        } else {
            ffi::SQLITE_DESERIALIZE_FREEONCLOSE | ffi::SQLITE_DESERIALIZE_RESIZEABLE
        },
    );
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rusqlite::Error::SqliteFailure(
            ffi::Error::new(rc),
            Some(format!("cannot load a table image as {schema}")),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const CREATE: &str = "CREATE TABLE image (hash INTEGER NOT NULL, gpm INTEGER NOT NULL, \
                          fen TEXT, PRIMARY KEY (hash, gpm)) WITHOUT ROWID";

    type Row = (i64, i64, Option<String>);

    fn image_of(rows: &[Row], page_size: usize) -> Vec<u8> {
        let mut builder = ImageBuilder::with_page_size(CREATE, page_size);
        let mut record = Record::default();
        for (hash, gpm, fen) in rows {
            let fen = fen.as_deref().map_or(Value::Null, Value::Text);
            builder.push(record.encode(&[Value::Integer(*hash), Value::Integer(*gpm), fen]));
        }
        assert_eq!(builder.rows(), rows.len() as u64);
        builder.finish().unwrap()
    }

    /// The image of `rows` built as stretches cut at `cuts` (row indexes,
    /// increasing), each filled apart, the rows before the first cut
    /// pushed if `push_first`, and the last 10 rows pushed after the
    /// stretches.
    fn image_in_stretches(
        all: &[Row],
        cuts: &[usize],
        page_size: usize,
        push_first: bool,
    ) -> Vec<u8> {
        let (rows, last) = all.split_at(all.len() - 10);
        let encode = |row: &Row, record: &mut Record| {
            let fen = row.2.as_deref().map_or(Value::Null, Value::Text);
            record.encode(&[Value::Integer(row.0), Value::Integer(row.1), fen]).to_vec()
        };
        let mut builder = ImageBuilder::with_page_size(CREATE, page_size);
        let mut record = Record::default();
        let mut bounds = vec![0];
        bounds.extend_from_slice(cuts);
        bounds.push(rows.len());
        let mut parts: Vec<&[Row]> = bounds.windows(2).map(|w| &rows[w[0]..w[1]]).collect();
        if push_first {
            for row in parts.remove(0) {
                builder.push(&encode(row, &mut record));
            }
        }
        let stretches: Vec<Leaves> = std::thread::scope(|scope| {
            let handles: Vec<_> = builder
                .stretches(parts.len())
                .into_iter()
                .zip(&parts)
                .map(|(mut stretch, part)| {
                    scope.spawn(move || {
                        let mut record = Record::default();
                        for row in *part {
                            stretch.push(&encode(row, &mut record));
                        }
                        stretch
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for stretch in stretches {
            builder.append(stretch);
        }
        for row in last {
            builder.push(&encode(row, &mut record));
        }
        assert_eq!(builder.rows(), all.len() as u64, "{cuts:?} {push_first}");
        builder.finish().unwrap()
    }

    #[test]
    fn stretches_built_apart_make_the_same_table() {
        let all = rows(3000, 7, true);
        for page_size in [512, 4096] {
            for (cuts, push_first) in [
                (vec![1500], false),
                (vec![1500], true),
                (vec![2, 4, 1000, 2987], false),
                (vec![10, 12, 14, 2000], true),
                (vec![], false),
            ] {
                let image = image_in_stretches(&all, &cuts, page_size, push_first);
                assert_eq!(read(image), all, "{cuts:?} {page_size}");
            }
        }
        // Empty stretches after rows add nothing.
        let image = image_in_stretches(&all, &[1500, 1500, 3000 - 30], 512, false);
        assert_eq!(read(image), all);
    }

    #[test]
    fn a_cell_of_two_integers_is_its_length_and_record() {
        let values = [0, 1, -1, 2, 127, 128, -129, 32_768, 8_388_608, 1 << 40, 1 << 47, i64::MIN];
        for &a in values.iter().chain(&[i64::MAX, -(1 << 47)]) {
            for &b in values.iter().chain(&[i64::MAX, 0x7fff_ffff_ffff]) {
                let (record, len) = two_integers(a, b);
                let mut block = [0xa5; CELL_BLOCK];
                let cell = write_two_integer_cell(&mut block, a, b);
                assert_eq!(cell, len + 1, "{a} {b}");
                assert_eq!(block[CELL_BLOCK - cell], len as u8, "{a} {b}");
                assert_eq!(&block[CELL_BLOCK - len..], &record[..len], "{a} {b}");
            }
        }
    }

    /// `page` without its free space (between the cell pointers and the
    /// cells), which holds no data.
    fn cells_of(page: &[u8]) -> Vec<u8> {
        let cells = usize::from(u16::from_be_bytes([page[3], page[4]]));
        let header = if page[0] == LEAF_INDEX { 8 } else { 12 };
        let content = match usize::from(u16::from_be_bytes([page[5], page[6]])) {
            0 => 65_536,
            c => c,
        };
        [&page[..header + 2 * cells], &page[content..]].concat()
    }

    #[test]
    fn rows_of_two_integers_make_the_same_pages_either_way() {
        let all: Vec<(i64, i64)> = rows(5000, 11, false).iter().map(|r| (r.0, r.1)).collect();
        for page_size in [512, 4096, 65_536] {
            let mut by_record = ImageBuilder::with_page_size(CREATE, page_size);
            let mut by_value = ImageBuilder::with_page_size(CREATE, page_size);
            for &(a, b) in &all[..2000] {
                let (record, len) = two_integers(a, b);
                by_record.push(&record[..len]);
                by_value.push_two_integers(a, b);
            }
            let mut stretches = by_record.stretches(2);
            for (stretch, part) in stretches.iter_mut().zip([&all[2000..2001 + 1], &all[2002..]]) {
                for &(a, b) in part {
                    let (record, len) = two_integers(a, b);
                    stretch.push(&record[..len]);
                }
            }
            for stretch in stretches {
                by_record.append(stretch);
            }
            let mut stretches = by_value.stretches(2);
            for (stretch, part) in stretches.iter_mut().zip([&all[2000..2001 + 1], &all[2002..]]) {
                for &(a, b) in part {
                    stretch.push_two_integers(a, b);
                }
            }
            for stretch in stretches {
                by_value.append(stretch);
            }
            let (by_record, by_value) = (by_record.finish().unwrap(), by_value.finish().unwrap());
            assert_eq!(by_record.len(), by_value.len(), "{page_size}");
            assert_eq!(by_record[..page_size], by_value[..page_size], "{page_size}");
            for (k, (a, b)) in by_record
                .chunks_exact(page_size)
                .zip(by_value.chunks_exact(page_size))
                .enumerate()
                .skip(1)
            {
                assert_eq!(cells_of(a), cells_of(b), "page {} of {page_size}", k + 1);
            }
            let expected: Vec<Row> = all.iter().map(|&(a, b)| (a, b, None)).collect();
            assert_eq!(read(by_value), expected, "{page_size}");
        }
    }

    #[test]
    fn a_stretch_out_of_place_is_refused() {
        let all = rows(100, 3, false);
        let encode = |row: &Row| {
            Record::default().encode(&[Value::Integer(row.0), Value::Integer(row.1)]).to_vec()
        };
        // One row after others: nothing left for its leaf.
        let mut builder = ImageBuilder::with_page_size(CREATE, 512);
        builder.push(&encode(&all[0]));
        let mut stretch = builder.stretches(1).pop().unwrap();
        stretch.push(&encode(&all[1]));
        builder.append(stretch);
        assert_eq!(builder.finish(), Err(ImageError::Stretch));
        // A first stretch appended after rows.
        let first = ImageBuilder::with_page_size(CREATE, 512).stretches(1).pop().unwrap();
        let mut builder = ImageBuilder::with_page_size(CREATE, 512);
        builder.push(&encode(&all[0]));
        let mut first = first;
        first.push(&encode(&all[1]));
        first.push(&encode(&all[2]));
        builder.append(first);
        assert_eq!(builder.finish(), Err(ImageError::Stretch));
    }

    /// The rows SQLite reads from `image`, after checking its structure.
    fn read(image: Vec<u8>) -> Vec<Row> {
        let conn = Connection::open_in_memory().unwrap();
        let mut slot = ImageSlot::attach(&conn).unwrap();
        slot.load(&conn, image).unwrap();
        let check: Vec<String> = conn
            .prepare(&format!("PRAGMA {SCHEMA}.integrity_check"))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(check, ["ok"]);
        let rows = conn
            .prepare(&format!("SELECT hash, gpm, fen FROM {SCHEMA}.{TABLE}"))
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        slot.detach(&conn).unwrap();
        rows
    }

    fn rows(n: usize, seed: u64, fens: bool) -> Vec<Row> {
        let mut x = seed | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut rows: Vec<Row> = (0..n)
            .map(|i| {
                let hash = match i % 5 {
                    0 => (next() % 300) as i64 - 150,
                    _ => next() as i64,
                };
                // At most 102 bytes a record on 512-byte pages.
                let fen = (fens && i % 3 != 0).then(|| "x".repeat((next() % 70) as usize));
                (hash, (next() >> (next() % 64)) as i64, fen)
            })
            .collect();
        rows.sort_by_key(|a| (a.0, a.1));
        rows.dedup_by_key(|r| (r.0, r.1));
        rows
    }

    #[test]
    fn records_are_sqlites_own() {
        // SQLite's record of each value, read back by `quote(record)`'s
        // equivalent: a table written by SQLite and the image hold the
        // same payload bytes (dbstat) and values.
        let values: Vec<i64> = vec![
            0,
            1,
            -1,
            2,
            127,
            128,
            -128,
            -129,
            32_767,
            32_768,
            -32_769,
            8_388_607,
            8_388_608,
            2_147_483_647,
            2_147_483_648,
            -2_147_483_649,
            0x7fff_ffff_ffff,
            0x8000_0000_0000,
            -0x8000_0000_0001,
            i64::MAX,
            i64::MIN,
        ];
        let mut sorted = values.clone();
        sorted.sort_unstable();
        let rows: Vec<Row> =
            sorted.iter().map(|&v| (v, v, (v > 0).then(|| "é".repeat(v as usize % 70)))).collect();
        let conn = Connection::open_in_memory().unwrap();
        let mut slot = ImageSlot::attach(&conn).unwrap();
        let table = CREATE.replace("image", "by_sqlite");
        conn.execute_batch(&table).unwrap();
        for (h, g, f) in &rows {
            conn.execute("INSERT INTO by_sqlite VALUES (?1, ?2, ?3)", rusqlite::params![h, g, f])
                .unwrap();
        }
        conn.execute_batch(&CREATE.replace("image", "copied")).unwrap();
        assert_eq!(slot.copy_into(&conn, "copied", image_of(&rows, 4096)).unwrap(), rows.len());
        let payload = |t: &str| -> (i64, i64) {
            conn.query_row(
                &format!("SELECT sum(payload), sum(ncell) FROM dbstat WHERE name = '{t}'"),
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap()
        };
        assert_eq!(payload("copied"), payload("by_sqlite"));
        let all = |t: &str| -> Vec<(i64, i64, Option<String>, String)> {
            conn.prepare(&format!("SELECT hash, gpm, fen, typeof(gpm) FROM {t}"))
                .unwrap()
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        assert_eq!(all("copied"), all("by_sqlite"));
        assert_eq!(all("copied").len(), values.len());
    }

    #[test]
    fn two_integers_encode_as_any_record() {
        let mut record = Record::default();
        for a in [0, 1, -1, 200, i64::MIN, i64::MAX, 0x7fff_ffff_ffff] {
            for b in [0, 1, 5, -70_000, 1 << 40, i64::MAX] {
                let (bytes, len) = two_integers(a, b);
                assert_eq!(&bytes[..len], record.encode(&[Value::Integer(a), Value::Integer(b)]));
            }
        }
    }

    #[test]
    fn varints_are_sqlites() {
        for (v, bytes) in [
            (0u64, vec![0u8]),
            (127, vec![0x7f]),
            (128, vec![0x81, 0x00]),
            (16_383, vec![0xff, 0x7f]),
            (16_384, vec![0x81, 0x80, 0x00]),
            ((1 << 56) - 1, vec![0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]),
            (1 << 56, vec![0x80, 0xc0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
            (u64::MAX, vec![0xff; 9]),
        ] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(out, bytes, "{v}");
            assert_eq!(varint_len(v), bytes.len(), "{v}");
        }
    }

    #[test]
    fn trees_of_every_depth_read_back_whole() {
        // 512-byte pages hold about 20 rows of positions: up to four levels.
        for n in [0, 1, 2, 20, 21, 22, 23, 24, 25, 40, 41, 42, 400, 401, 402, 9_000, 30_000] {
            for fens in [false, true] {
                let rows = rows(n, n as u64 + 7, fens);
                assert_eq!(read(image_of(&rows, 512)), rows, "{n} rows, fens {fens}");
            }
        }
        let rows = rows(50_000, 3, false);
        assert_eq!(read(image_of(&rows, 65_536)), rows);
    }

    #[test]
    fn a_copied_image_fills_the_pages() {
        let rows = rows(100_000, 11, false);
        let conn = Connection::open_in_memory().unwrap();
        let mut slot = ImageSlot::attach(&conn).unwrap();
        conn.execute_batch("BEGIN").unwrap();
        conn.execute_batch(&CREATE.replace("image", "t")).unwrap();
        assert_eq!(slot.copy_into(&conn, "t", image_of(&rows, 65_536)).unwrap(), rows.len());
        // SQLite loads no other image into a schema this transaction read.
        conn.execute_batch(&CREATE.replace("image", "u")).unwrap();
        assert!(slot.copy_into(&conn, "u", image_of(&rows[..10], 65_536)).is_err());
        conn.execute_batch("COMMIT").unwrap();
        // The next transaction may: the last image is replaced.
        conn.execute_batch("BEGIN").unwrap();
        assert_eq!(slot.copy_into(&conn, "u", image_of(&rows[..10], 65_536)).unwrap(), 10);
        conn.execute_batch("COMMIT").unwrap();
        slot.clear(&conn).unwrap();
        // Merges begin their transactions IMMEDIATE, which locks every schema.
        conn.execute_batch("BEGIN IMMEDIATE; COMMIT;").unwrap();
        // Statements prepared in a transaction before the image is loaded
        // do not keep it from loading.
        conn.execute_batch("BEGIN; CREATE TABLE v (x); INSERT INTO v VALUES (1);").unwrap();
        conn.execute_batch(&CREATE.replace("image", "w")).unwrap();
        assert_eq!(slot.copy_into(&conn, "w", image_of(&rows[..20], 65_536)).unwrap(), 20);
        conn.execute_batch("COMMIT").unwrap();
        slot.clear(&conn).unwrap();
        let (unused, cells): (i64, i64) = conn
            .query_row(
                "SELECT sum(unused), sum(ncell) FROM dbstat WHERE name = 't' AND pagetype = 'leaf'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        // Full pages: less than a row's bytes left per page.
        assert!((unused as f64) / (cells as f64) < 0.2, "{unused} bytes unused for {cells} rows");
        let n: i64 = conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(n as usize, rows.len());
        let schema: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {SCHEMA}.sqlite_master"), [], |r| r.get(0))
            .unwrap();
        assert_eq!(schema, 0, "the image is unloaded");
    }

    #[test]
    fn a_row_too_long_for_a_page_is_refused() {
        let mut builder = ImageBuilder::with_page_size(CREATE, 512);
        let mut record = Record::default();
        let long = "x".repeat(200);
        builder.push(record.encode(&[Value::Integer(1), Value::Integer(1), Value::Text(&long)]));
        assert!(matches!(builder.finish(), Err(ImageError::RowTooLong(_))));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_rows_in_key_order_read_back(
            mut rows in proptest::collection::vec(
                (any::<i64>(), any::<i64>(), proptest::option::of("[a-z0-9/ ]{0,60}")), 0..600),
            small in any::<bool>(),
        ) {
            rows.sort_by_key(|a| (a.0, a.1));
            rows.dedup_by_key(|r| (r.0, r.1));
            let page_size = if small { 512 } else { 1024 };
            prop_assert_eq!(read(image_of(&rows, page_size)), rows);
        }
    }

    const ROWS_SQL: &str = "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c BLOB)";
    const ROWS_INDEX_SQL: &str = "CREATE INDEX t_a ON t(id, a)";
    const PAIRS_SQL: &str = "CREATE TABLE p (id INTEGER PRIMARY KEY, v TEXT NOT NULL)";

    /// An image of two rowid tables (one indexed) reads back whole, passes
    /// SQLite's check, and
    /// its tables are transferred into tables that already hold rows.
    #[test]
    fn an_image_of_several_tables_copies_into_filled_tables() {
        type TRow = (i64, i64, String, Vec<u8>);
        for n in [0usize, 1, 3, 9_000, 150_000] {
            let rows: Vec<TRow> = (0..n as i64)
                .map(|i| {
                    let id = 1000 + 3 * i;
                    (id, i * 7 - 5, "x".repeat((i % 40) as usize), vec![i as u8; (i % 5) as usize])
                })
                .collect();
            let encode = |row: &TRow, record: &mut Record| {
                record
                    .encode(&[
                        Value::Null,
                        Value::Integer(row.1),
                        Value::Text(&row.2),
                        Value::Blob(&row.3),
                    ])
                    .to_vec()
            };
            let mut record = Record::default();
            let mut leaves = RowidLeaves::new();
            for row in &rows {
                leaves.push(row.0, &encode(row, &mut record)).unwrap();
            }
            assert_eq!(leaves.rows(), n as u64);
            let mut pairs = RowidLeaves::new();
            for row in rows.iter().step_by(2) {
                pairs.push(row.0, record.encode(&[Value::Null, Value::Text(&row.2)])).unwrap();
            }
            let mut image = TablesImage::new();
            // Few children per interior page: trees of several levels, and
            // last pages of one child to avoid.
            image.fanout = 3 + n % 4;
            image.add_table("t", ROWS_SQL, leaves);
            let mut index = image.index_builder();
            for row in &rows {
                index.push(record.encode(&[
                    Value::Integer(row.0),
                    Value::Integer(row.1),
                    Value::Integer(row.0),
                ]));
            }
            image.add_index("t_a", "t", ROWS_INDEX_SQL, index).unwrap();
            image.add_table("p", PAIRS_SQL, pairs);
            let image = image.finish().unwrap();

            let conn = Connection::open_in_memory().unwrap();
            conn.execute_batch(&format!("{ROWS_SQL}; {ROWS_INDEX_SQL}; {PAIRS_SQL};")).unwrap();
            conn.execute_batch(
                "INSERT INTO t VALUES (1, 2, 'a', x'00'); INSERT INTO p VALUES (5, 'b');",
            )
            .unwrap();
            let mut slot = ImageSlot::attach_as(&conn, "tables_test").unwrap();
            slot.load_tables(&conn, image).unwrap();
            let check: Vec<String> = conn
                .prepare("PRAGMA tables_test.integrity_check")
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(check, ["ok"], "{n} rows");
            conn.execute_batch("BEGIN").unwrap();
            assert_eq!(slot.copy_table(&conn, "t").unwrap(), n);
            assert_eq!(slot.copy_table(&conn, "p").unwrap(), n.div_ceil(2));
            conn.execute_batch("COMMIT").unwrap();
            slot.detach(&conn).unwrap();
            let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
            assert_eq!(check, "ok");
            let back: Vec<TRow> = conn
                .prepare("SELECT id, a, b, c FROM t WHERE id > 1 ORDER BY id")
                .unwrap()
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert!(back == rows, "{n} rows read back otherwise");
            let by_index: i64 = conn
                .query_row(
                    "SELECT count(*) FROM t INDEXED BY t_a WHERE id > 1 AND a > 0",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(by_index, rows.iter().filter(|r| r.1 > 0).count() as i64);
            let pairs: i64 = conn.query_row("SELECT count(*) FROM p", [], |r| r.get(0)).unwrap();
            assert_eq!(pairs, n.div_ceil(2) as i64 + 1);
        }
    }

    /// Rows out of rowid order and records too long for a leaf are
    /// refused, and leave the leaves as they were.
    #[test]
    fn rowid_leaves_refuse_disorder_and_long_rows() {
        let mut leaves = RowidLeaves::new();
        leaves.push(5, b"\x02\x01\x07").unwrap();
        assert_eq!(leaves.push(5, b"\x02\x01\x07"), Err(ImageError::Disorder(5)));
        let long = vec![0u8; RowidLeaves::MAX_RECORD + 1];
        assert_eq!(leaves.push(6, &long), Err(ImageError::RowTooLong(long.len())));
        assert_eq!(leaves.push(4, b"\x02\x01\x07"), Err(ImageError::Disorder(4)));
        assert_eq!(leaves.rows(), 1);
    }

    /// A record cut on a worker makes the same pages as the record pushed
    /// whole, in the leaves' page size or not.
    #[test]
    fn a_record_cut_apart_makes_the_pages_of_the_whole_record() {
        let pages = |leaves: RowidLeaves| {
            let mut pages = Vec::new();
            leaves.place(&mut |page, _| {
                pages.push(page);
                pages.len() as u32
            });
            pages
        };
        for (page_size, cut_size) in [(1_024, 1_024), (4_096, 4_096), (4_096, 1_024)] {
            let (mut whole, mut cut) =
                (RowidLeaves::with_page_size(page_size), RowidLeaves::with_page_size(page_size));
            for (rowid, len) in
                [10usize, 900, 1_000, 5_000, 3, 20_000, 4_093].into_iter().enumerate()
            {
                let record: Vec<u8> = (0..len).map(|i| (i * 7 + rowid) as u8).collect();
                whole.push(rowid as i64, &record).unwrap();
                match CutRecord::new(record.clone(), cut_size) {
                    CutRecord::Whole(kept) => {
                        assert_eq!(kept, record);
                        cut.push(rowid as i64, &kept).unwrap();
                    }
                    CutRecord::Spilled(spilled) => {
                        assert!(len > cut_size - 35, "{len} bytes spill on {cut_size}");
                        assert_eq!(spilled.whole(), record);
                        cut.push_spilled(rowid as i64, spilled).unwrap();
                    }
                }
            }
            assert_eq!(pages(cut), pages(whole), "pages of {page_size} cut for {cut_size}");
        }
    }

    /// A template filled gives the record of all its values, wherever its
    /// holes are and whatever their values' sizes.
    #[test]
    fn a_filled_template_is_the_record_of_all_values() {
        let long = "x".repeat(300);
        let values = [
            Value::Integer(7),
            Value::Null,
            Value::Text("abc"),
            Value::Integer(-1_000_000_000_000),
            Value::Blob(&[1, 2, 3]),
            Value::Text(&long),
            Value::Real(2.5),
            Value::Integer(1),
        ];
        let mut record = Record::default();
        let whole = record.encode(&values).to_vec();
        for mask in 0u32..(1 << values.len()) {
            let given: Vec<Option<Value<'_>>> = values
                .iter()
                .enumerate()
                .map(|(i, v)| (mask & (1 << i) == 0).then_some(*v))
                .collect();
            let holes: Vec<Value<'_>> = values
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, v)| *v)
                .collect();
            let template = Template::encode(&given);
            assert_eq!(template.holes(), holes.len());
            let mut out = vec![9];
            template.fill(&holes, &mut out);
            assert_eq!(out[1..], whole[..], "holes {mask:b}");
        }
        // A header that grows past 127 bytes once filled.
        let many: Vec<Value<'_>> = (0..130).map(|_| Value::Integer(5)).collect();
        let given: Vec<Option<Value<'_>>> =
            many.iter().enumerate().map(|(i, v)| (i % 2 == 0).then_some(*v)).collect();
        let holes: Vec<Value<'_>> = many.iter().skip(1).step_by(2).copied().collect();
        let mut out = Vec::new();
        Template::encode(&given).fill(&holes, &mut out);
        assert_eq!(out, record.encode(&many));
    }
}
