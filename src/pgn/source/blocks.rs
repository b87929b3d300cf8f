//! An input delivered in blocks cut at game boundaries
//! ([`Source::for_each_block`]): an input held whole in one or two calls, a
//! stream through a refill buffer ([`Blocks`]) of bounded size; both stop at
//! the size limit set with [`Source::with_limit`].

use std::fmt;
use std::io::{self, Read};
use std::ops::ControlFlow;

use super::{check_text, Compression, Data, InputName, Source, SourceError};

impl Source {
    /// Feeds the whole input to `f` as consecutive blocks, each ending where
    /// `cut` allows.
    ///
    /// `cut(buf, at_eof)` returns how many leading bytes of `buf` form
    /// complete games (0: none yet, more data needed; values beyond
    /// `buf.len()` count as `buf.len()`). `f(block, offset)` receives a block
    /// and the offset of its first byte in the (decompressed) input, and
    /// returns [`ControlFlow::Break`] to stop early. `f` is never given an
    /// empty block, so an empty input means no call at all.
    ///
    /// A mapped or in-memory input is delivered in one call, after
    /// `cut(all, true)`; should that return less than everything, the rest
    /// follows in a second call: at the end of the input everything is
    /// delivered.
    ///
    /// A stream is read into a buffer until it holds at least `block_size`
    /// bytes (or the input ends), then cut; the bytes after the cut are kept
    /// for the next block. When `cut` finds nothing to cut, the buffer target
    /// doubles, up to `max_block` bytes: a buffer that full is delivered
    /// whole, so that memory stays bounded even if the input never offers a
    /// cut. At the end of the input everything left is delivered. A
    /// `block_size` of 0 counts as 1, and one above `max_block` as
    /// `max_block`. Both sizes are the caller's to choose, with its `cut`:
    /// `max_block` is how long a game may grow before it is cut anyway.
    ///
    /// # Errors
    ///
    /// [`SourceError::Read`] if reading or decompressing fails, with the
    /// offset reached; blocks before that have been delivered.
    pub fn for_each_block(
        self,
        block_size: usize,
        max_block: usize,
        mut cut: impl FnMut(&[u8], bool) -> usize,
        mut f: impl FnMut(&[u8], u64) -> ControlFlow<()>,
    ) -> Result<(), SourceError> {
        let (name, compression, limit) = (self.name, self.compression, self.limit);
        let too_large = |name| SourceError::TooLarge { name, limit };
        let reader = match self.data {
            Data::Mapped(map) => {
                return deliver_within(&map, limit, &mut cut, &mut f, too_large(name))
            }
            Data::Owned(bytes) => {
                return deliver_within(&bytes, limit, &mut cut, &mut f, too_large(name))
            }
            Data::Stream(reader) => reader,
        };
        let mut blocks = Blocks::new(reader, block_size, max_block, limit);
        let mut binary = None;
        let mut first = |block: &[u8], offset| {
            judge_first(&name, block, offset, &mut binary)?;
            f(block, offset)
        };
        let result = blocks.run(&mut cut, &mut Lend(&mut first));
        result.map_err(|failure| stream_error(name, compression, limit, failure))?;
        binary.map_or(Ok(()), Err)
    }

    /// [`Source::for_each_block`] handing each block over with its buffer:
    /// `f(buf, len, offset)` gets a block as the first `len` bytes of `buf`
    /// (the rest of `buf` is spare room), to keep or send elsewhere.
    /// `spare()` gives the buffer the next bytes are read into: one `f` was
    /// given before and is done with (its length kept, so that nothing is
    /// zeroed again), or an empty one. A stream's bytes are then read once
    /// and never copied but for the start of a game cut at a block's end;
    /// an input held whole is copied into buffers from `spare`.
    ///
    /// # Errors
    /// As [`Source::for_each_block`].
    pub fn for_each_owned_block(
        self,
        block_size: usize,
        max_block: usize,
        mut cut: impl FnMut(&[u8], bool) -> usize,
        mut spare: impl FnMut() -> Vec<u8>,
        mut f: impl FnMut(Vec<u8>, usize, u64) -> ControlFlow<()>,
    ) -> Result<(), SourceError> {
        if !self.is_stream() {
            return self.for_each_block(block_size, max_block, cut, |block, offset| {
                let mut buf = spare();
                buf.clear();
                buf.extend_from_slice(block);
                f(buf, block.len(), offset)
            });
        }
        let (name, compression, limit) = (self.name, self.compression, self.limit);
        let Data::Stream(reader) = self.data else { unreachable!("checked to be a stream") };
        let mut blocks = Blocks::new(reader, block_size, max_block, limit);
        let mut binary = None;
        let first = |buf: Vec<u8>, len: usize, offset| {
            judge_first(&name, &buf[..len], offset, &mut binary)?;
            f(buf, len, offset)
        };
        let result = blocks.run(&mut cut, &mut Give { spare, f: first });
        result.map_err(|failure| stream_error(name, compression, limit, failure))?;
        binary.map_or(Ok(()), Err)
    }
}

/// A stream's first block (at offset 0) judged as text ([`check_text`])
/// before any of it is read as games (a stream cannot be looked at before
/// it is read, as a file is when opened): `Break`, with the error in
/// `binary`, when it is not text.
fn judge_first(
    name: &InputName,
    block: &[u8],
    offset: u64,
    binary: &mut Option<SourceError>,
) -> ControlFlow<()> {
    if offset > 0 {
        return ControlFlow::Continue(());
    }
    match check_text(name, block) {
        Ok(()) => ControlFlow::Continue(()),
        Err(e) => {
            *binary = Some(e);
            ControlFlow::Break(())
        }
    }
}

/// The error of a stream that [`Blocks::run`] stopped with `(offset,
/// error)`: its size limit reached, or a read that failed.
fn stream_error(
    name: InputName,
    compression: Compression,
    limit: u64,
    (offset, error): (u64, io::Error),
) -> SourceError {
    if error.get_ref().is_some_and(|inner| inner.is::<LimitReached>()) {
        SourceError::TooLarge { name, limit }
    } else {
        SourceError::Read { name, offset, compression, error }
    }
}

/// How [`Blocks::run`] hands a block over.
trait Handover {
    /// Hands `buf[..n]`, which starts at `offset` in the input, over, and
    /// leaves `buf[n..filled]` at the start of `buf`.
    fn hand(&mut self, buf: &mut Vec<u8>, n: usize, filled: usize, offset: u64) -> ControlFlow<()>;
}

/// Lends each block to a function, in the buffer.
struct Lend<F>(F);

impl<F: FnMut(&[u8], u64) -> ControlFlow<()>> Handover for Lend<F> {
    fn hand(&mut self, buf: &mut Vec<u8>, n: usize, filled: usize, offset: u64) -> ControlFlow<()> {
        let flow = (self.0)(&buf[..n], offset);
        buf.copy_within(n..filled, 0);
        flow
    }
}

/// Gives each block away with its buffer, reading on in a spare one.
struct Give<S, F> {
    spare: S,
    f: F,
}

impl<S, F> Handover for Give<S, F>
where
    S: FnMut() -> Vec<u8>,
    F: FnMut(Vec<u8>, usize, u64) -> ControlFlow<()>,
{
    fn hand(&mut self, buf: &mut Vec<u8>, n: usize, filled: usize, offset: u64) -> ControlFlow<()> {
        let mut next = (self.spare)();
        let tail = filled - n;
        if next.len() < tail {
            next.resize(tail, 0);
        }
        next[..tail].copy_from_slice(&buf[n..filled]);
        let block = std::mem::replace(buf, next);
        (self.f)(block, n, offset)
    }
}

/// [`deliver_all`] for an input held whole, unless it is longer than
/// `limit`: then only the whole games within the limit are delivered and
/// `too_large` is returned.
fn deliver_within(
    all: &[u8],
    limit: u64,
    cut: &mut impl FnMut(&[u8], bool) -> usize,
    f: &mut impl FnMut(&[u8], u64) -> ControlFlow<()>,
    too_large: SourceError,
) -> Result<(), SourceError> {
    match usize::try_from(limit) {
        Ok(limit) if all.len() > limit => {
            deliver_whole_games(&all[..limit], 0, cut, f);
            Err(too_large)
        }
        _ => {
            deliver_all(all, cut, f);
            Ok(())
        }
    }
}

/// The error [`Blocks`] reads when the input goes beyond its limit.
#[derive(Debug)]
struct LimitReached;

impl fmt::Display for LimitReached {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("input size limit reached")
    }
}

impl std::error::Error for LimitReached {}

/// Delivers the part of `data` (which starts at `offset` in the input) that
/// `cut` takes for whole games, when more input cannot follow: it stopped
/// at an error or at the size limit.
fn deliver_whole_games(
    data: &[u8],
    offset: u64,
    cut: &mut impl FnMut(&[u8], bool) -> usize,
    f: &mut impl FnMut(&[u8], u64) -> ControlFlow<()>,
) {
    let n = cut(data, false).min(data.len());
    if n > 0 {
        let _ = f(&data[..n], offset);
    }
}

/// Delivers a whole in-memory input: the part `cut` accepts, then the rest.
fn deliver_all(
    all: &[u8],
    cut: &mut impl FnMut(&[u8], bool) -> usize,
    f: &mut impl FnMut(&[u8], u64) -> ControlFlow<()>,
) {
    if all.is_empty() {
        return;
    }
    let n = cut(all, true).min(all.len());
    if n > 0 && f(&all[..n], 0).is_break() {
        return;
    }
    if n < all.len() {
        let _ = f(&all[n..], n as u64);
    }
}

/// The refill buffer behind [`Source::for_each_block`] for streams.
struct Blocks<R> {
    reader: R,
    /// Zero-initialised storage; only `buf[..filled]` holds input. Kept at its
    /// largest size so that growing the target does not re-zero it each read.
    buf: Vec<u8>,
    filled: usize,
    /// Offset of `buf[0]` in the input.
    offset: u64,
    eof: bool,
    block_size: usize,
    max_block: usize,
    /// Reading beyond this offset is an error ([`LimitReached`]).
    limit: u64,
}

impl<R: Read> Blocks<R> {
    fn new(reader: R, block_size: usize, max_block: usize, limit: u64) -> Self {
        let max_block = max_block.max(1);
        let block_size = block_size.clamp(1, max_block);
        Blocks {
            reader,
            buf: Vec::new(),
            filled: 0,
            offset: 0,
            eof: false,
            block_size,
            max_block,
            limit,
        }
    }

    /// Runs the cut-and-deliver loop; on a read error returns the offset
    /// reached and the error.
    fn run(
        &mut self,
        cut: &mut impl FnMut(&[u8], bool) -> usize,
        handover: &mut impl Handover,
    ) -> Result<(), (u64, io::Error)> {
        let mut target = self.block_size;
        loop {
            if let Err((offset, error)) = self.fill(target) {
                // Deliver the whole games read before the error (within the
                // limit) first.
                let within = usize::try_from(self.limit - self.offset).unwrap_or(usize::MAX);
                let held = within.min(self.filled);
                let n = cut(&self.buf[..held], false).min(held);
                if n > 0 {
                    let _ = self.hand(handover, n);
                }
                return Err((offset, error));
            }
            if self.filled == 0 {
                // Only reached at the end of the input: `fill` stops early
                // only there.
                return Ok(());
            }
            if self.eof {
                // Everything is delivered: what `cut` takes, then the rest.
                let n = cut(&self.buf[..self.filled], true).min(self.filled);
                if n > 0 && self.hand(handover, n).is_break() {
                    return Ok(());
                }
                if self.filled > 0 {
                    let _ = self.hand(handover, self.filled);
                }
                return Ok(());
            }
            let n = match cut(&self.buf[..self.filled], false).min(self.filled) {
                0 if target < self.max_block => {
                    target = target.saturating_mul(2).min(self.max_block);
                    continue;
                }
                // Full at the bound with no cut in sight: deliver it whole.
                0 => self.filled,
                n => n,
            };
            if self.hand(handover, n).is_break() {
                return Ok(());
            }
            target = self.block_size;
        }
    }

    /// Hands the first `n` bytes over; the rest stays for the next block.
    fn hand(&mut self, handover: &mut impl Handover, n: usize) -> ControlFlow<()> {
        let flow = handover.hand(&mut self.buf, n, self.filled, self.offset);
        self.filled -= n;
        self.offset += n as u64;
        flow
    }

    /// Reads until the buffer holds `target` bytes (or more, if it held more
    /// already) or the input ends.
    fn fill(&mut self, target: usize) -> Result<(), (u64, io::Error)> {
        if self.buf.len() < target {
            self.buf.resize(target, 0);
        }
        while !self.eof && self.filled < target {
            match self.reader.read(&mut self.buf[self.filled..target]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.filled += n,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err((self.offset + self.filled as u64, error)),
            }
            if self.offset + self.filled as u64 > self.limit {
                return Err((self.limit, io::Error::other(LimitReached)));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::source::mmap::MMAP_MIN_LEN;
    use crate::pgn::source::testing::{
        blocks, concat, cut_after_blank_line, gzip, read_all, write_file, zstd, MAX_BLOCK, PGN,
    };
    use crate::pgn::source::InputName;

    /// Checks that blocks are non-empty, contiguous from 0, and together form
    /// `expect`.
    fn check_contiguous(blocks: &[(u64, Vec<u8>)], expect: &[u8]) {
        let mut offset = 0;
        for (at, block) in blocks {
            assert!(!block.is_empty());
            assert_eq!(*at, offset);
            offset += block.len() as u64;
        }
        assert_eq!(concat(blocks), expect);
    }

    /// A streaming source over in-memory bytes, read `chunk` bytes at a time.
    fn stream_of(bytes: &[u8], chunk: usize) -> Source {
        let reader = Chunked { data: bytes.to_vec(), pos: 0, chunk, fail_at: None };
        Source::stream(InputName::Path("mem.pgn".into()), None, Vec::new(), reader).unwrap()
    }

    /// A reader that returns at most `chunk` bytes per call and fails once
    /// `fail_at` bytes have been read.
    struct Chunked {
        data: Vec<u8>,
        pos: usize,
        chunk: usize,
        fail_at: Option<usize>,
    }

    impl Read for Chunked {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.fail_at == Some(self.pos) {
                return Err(io::Error::other("boom"));
            }
            let end = self.data.len().min(self.pos + self.chunk.min(buf.len()));
            let end = self.fail_at.map_or(end, |fail| end.min(fail));
            let n = end - self.pos;
            buf[..n].copy_from_slice(&self.data[self.pos..end]);
            self.pos = end;
            Ok(n)
        }
    }

    /// Blocks delivered before the error of a source with a size limit.
    fn blocks_within_limit(source: Source, limit: u64) -> (Vec<u8>, SourceError) {
        let mut out = Vec::new();
        let error = source
            .with_limit(limit)
            .for_each_block(16, MAX_BLOCK, cut_after_blank_line, |block, _| {
                out.extend_from_slice(block);
                ControlFlow::Continue(())
            })
            .unwrap_err();
        (out, error)
    }

    #[test]
    fn size_limit_keeps_the_whole_games_within_it() {
        let text = b"game one\n\ngame two\n\ngame three\n\n";
        let tmp = tempfile::tempdir().unwrap();
        let name = write_file(&tmp.path().join("small.pgn"), text);
        for source in [stream_of(text, 3), Source::open(&name).unwrap()] {
            let (delivered, error) = blocks_within_limit(source, 25);
            assert_eq!(delivered, b"game one\n\ngame two\n\n");
            assert!(matches!(error, SourceError::TooLarge { limit: 25, .. }), "{error}");
            assert!(error.to_string().contains("input size limit of 25 bytes"), "{error}");
        }
        // At the limit exactly, everything is read.
        let source = stream_of(text, 3).with_limit(text.len() as u64);
        assert_eq!(read_all(source), text);
        let mapped = Source::open_with(&name, 0).unwrap().with_limit(text.len() as u64);
        assert_eq!(read_all(mapped), text);
    }

    #[test]
    fn size_limit_stops_a_decompression_bomb() {
        // 64 frames of 16 MiB of spaces: 1 GiB from a few kilobytes.
        let frame = zstd(&vec![b' '; 16 << 20]);
        let bomb = frame.repeat(64);
        assert!(bomb.len() < 64 << 10, "{}", bomb.len());
        let tmp = tempfile::tempdir().unwrap();
        let name = write_file(&tmp.path().join("bomb.pgn.zst"), &bomb);
        let source = Source::open(&name).unwrap().with_limit(40 << 20);
        let mut largest = 0;
        let error = source
            .for_each_block(
                1 << 20,
                8 << 20,
                |_, _| 0,
                |block, _| {
                    largest = largest.max(block.len());
                    ControlFlow::Continue(())
                },
            )
            .unwrap_err();
        assert!(matches!(error, SourceError::TooLarge { .. }), "{error}");
        assert_eq!(largest, 8 << 20, "blocks stay within max_block");
    }

    /// Blocks handed over with their buffers, the buffers given back for
    /// the next ones as a reader of them would.
    fn owned_blocks(source: Source, block_size: usize) -> Vec<(u64, Vec<u8>)> {
        let (mut out, mut spares) = (Vec::new(), Vec::new());
        let spare_count = std::cell::Cell::new(0);
        let returned = std::cell::RefCell::new(Vec::<Vec<u8>>::new());
        source
            .for_each_owned_block(
                block_size,
                MAX_BLOCK,
                cut_after_blank_line,
                || {
                    spare_count.set(spare_count.get() + 1);
                    returned.borrow_mut().pop().unwrap_or_default()
                },
                |buf, len, offset| {
                    out.push((offset, buf[..len].to_vec()));
                    spares.push(buf.len());
                    // Garbage after the block must not be taken for input.
                    let mut buf = buf;
                    buf.iter_mut().for_each(|b| *b = b'x');
                    returned.borrow_mut().push(buf);
                    ControlFlow::Continue(())
                },
            )
            .unwrap();
        assert!(spares.iter().zip(&out).all(|(&len, (_, block))| len >= block.len()));
        out
    }

    #[test]
    fn owned_blocks_are_the_lent_ones() {
        let text = PGN.repeat(40);
        for (block_size, read_size) in [(16, 7), (100, 64), (1000, 4096)] {
            let lent =
                blocks(stream_of(&text, read_size), block_size, MAX_BLOCK, cut_after_blank_line);
            let owned = owned_blocks(stream_of(&text, read_size), block_size);
            assert_eq!(owned, lent, "block size {block_size}");
            check_contiguous(&owned, &text);
        }
        // An input held whole is copied into the buffers.
        let dir = tempfile::tempdir().unwrap();
        let name = write_file(&dir.path().join("a.pgn"), &text);
        let owned = owned_blocks(Source::open_with(&name, 0).unwrap(), 16);
        check_contiguous(&owned, &text);
    }

    #[test]
    fn owned_blocks_stop_at_a_read_error_after_the_whole_games() {
        let text = PGN.repeat(4);
        let reader = Chunked { data: text.clone(), pos: 0, chunk: 10, fail_at: Some(100) };
        let source = Source::stream(InputName::Path("mem.pgn".into()), None, Vec::new(), reader);
        let mut got = Vec::new();
        let error = source
            .unwrap()
            .for_each_owned_block(16, MAX_BLOCK, cut_after_blank_line, Vec::new, |buf, len, _| {
                got.extend_from_slice(&buf[..len]);
                ControlFlow::Continue(())
            })
            .unwrap_err();
        assert!(matches!(error, SourceError::Read { offset: 100, .. }), "{error:?}");
        assert_eq!(got, &text[..cut_after_blank_line(&text[..100], false)]);
    }

    #[test]
    fn stream_blocks_end_where_cut_says() {
        for chunk in [1, 3, 7, 1000] {
            let blocks = blocks(stream_of(PGN, chunk), 16, 1024, cut_after_blank_line);
            check_contiguous(&blocks, PGN);
            assert!(blocks.len() > 2);
            for (_, block) in &blocks[..blocks.len() - 1] {
                assert!(block.ends_with(b"\n\n"), "{:?}", String::from_utf8_lossy(block));
            }
            for (offset, block) in &blocks {
                let at = *offset as usize;
                assert_eq!(&PGN[at..at + block.len()], &block[..]);
            }
        }
    }

    #[test]
    fn stream_block_size_is_a_lower_bound_when_cuts_allow() {
        // A blank line every 10 bytes; 25 bytes are read before each cut,
        // which falls after the second blank line.
        let text = b"12345678\n\n".repeat(20);
        let blocks = blocks(stream_of(&text, 1), 25, 1024, cut_after_blank_line);
        check_contiguous(&blocks, &text);
        for (_, block) in &blocks[..blocks.len() - 1] {
            assert_eq!(block.len(), 20);
        }
    }

    #[test]
    fn stream_grows_the_buffer_for_a_long_game() {
        let mut text = b"a\n\n".to_vec();
        text.extend([b'x'; 100]);
        text.extend(b"\n\n");
        text.extend(b"b\n\n".repeat(30));
        let blocks = blocks(stream_of(&text, 5), 8, 1024, cut_after_blank_line);
        check_contiguous(&blocks, &text);
        assert_eq!(blocks[0].1, b"a\n\n");
        // The target doubled from 8 to 128 bytes, which then held the long
        // game and a few short ones.
        let long = &blocks[1].1;
        assert!(long.starts_with(&[b'x'; 100]), "{blocks:?}");
        assert!(long.len() > 102 && long.len() <= 128 && long.ends_with(b"\n\n"), "{blocks:?}");
    }

    #[test]
    fn max_block_bounds_the_buffer_when_cut_never_cuts() {
        let text: Vec<u8> = (0..100u8).map(|i| b'a' + i % 26).collect();
        let blocks = blocks(stream_of(&text, 7), 8, 32, |buf, at_eof| {
            assert!(buf.len() <= 32);
            if at_eof {
                buf.len()
            } else {
                0
            }
        });
        check_contiguous(&blocks, &text);
        let sizes: Vec<usize> = blocks.iter().map(|(_, b)| b.len()).collect();
        assert_eq!(sizes, [32, 32, 32, 4]);
    }

    #[test]
    fn cut_that_never_cuts_still_gets_everything_at_eof() {
        let blocks = blocks(stream_of(PGN, 4), 8, 1 << 20, |_, _| 0);
        assert_eq!(blocks, [(0, PGN.to_vec())]);
    }

    #[test]
    fn in_memory_input_is_one_block_or_two() {
        let tmp = tempfile::tempdir().unwrap();
        let name = write_file(&tmp.path().join("g.pgn"), PGN);
        for mmap_min_len in [0, MMAP_MIN_LEN] {
            let mut calls = Vec::new();
            let source = Source::open_with(&name, mmap_min_len).unwrap();
            let all = blocks(source, 16, 64, |buf, at_eof| {
                calls.push((buf.len(), at_eof));
                buf.len()
            });
            assert_eq!(calls, [(PGN.len(), true)]);
            assert_eq!(all, [(0, PGN.to_vec())]);
            // A cut short of the end: the rest follows anyway.
            let source = Source::open_with(&name, mmap_min_len).unwrap();
            let all = blocks(source, 16, 64, |_, _| 10);
            assert_eq!(all, [(0, PGN[..10].to_vec()), (10, PGN[10..].to_vec())]);
        }
    }

    #[test]
    fn break_stops_early() {
        let tmp = tempfile::tempdir().unwrap();
        let plain = write_file(&tmp.path().join("g.pgn"), PGN);
        let gz = write_file(&tmp.path().join("g.pgn.gz"), &gzip(PGN));
        let sources = [
            Source::open(&plain).unwrap(),
            Source::open_with(&plain, 0).unwrap(),
            Source::open(&gz).unwrap(),
            stream_of(PGN, 3),
        ];
        for source in sources {
            let mut calls = 0;
            source
                .for_each_block(
                    16,
                    64,
                    |_, _| 10,
                    |_, _| {
                        calls += 1;
                        ControlFlow::Break(())
                    },
                )
                .unwrap();
            assert_eq!(calls, 1);
        }
    }

    #[test]
    fn read_error_names_input_and_offset() {
        let reader = Chunked { data: PGN.to_vec(), pos: 0, chunk: 4, fail_at: Some(30) };
        let source =
            Source::stream(InputName::Path("mem.pgn".into()), None, Vec::new(), reader).unwrap();
        let mut delivered = Vec::new();
        let err = source
            .for_each_block(1024, 1024, cut_after_blank_line, |block, _| {
                delivered.extend_from_slice(block);
                ControlFlow::Continue(())
            })
            .unwrap_err();
        assert_eq!(err.to_string(), "mem.pgn: read error at byte 30: boom");
        // The whole games read before the failure were delivered, though
        // the block was not full yet.
        assert_eq!(delivered, b"[Event \"A\"]\n\n1. e4 e5 1-0\n\n");
    }
}
