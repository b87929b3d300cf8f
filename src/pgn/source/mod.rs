//! Input sources: the only place that opens input files.
//!
//! An input is a path or standard input (`-`). Directories given on the
//! command line expand to the PGN files below them ([`expand_inputs`]).
//! Opening an input ([`Source::open`]) picks one of two ways to read it, the
//! same split ripgrep makes between searching a slice and searching a reader:
//! - a regular, uncompressed file is memory-mapped (small ones are simply
//!   read into memory) and handed over as one slice;
//! - standard input, compressed files (gzip, zstd, bzip2 — recognised by
//!   their magic numbers, not their names) and anything that cannot be
//!   mapped are streamed through a refill buffer that is cut at game
//!   boundaries chosen by the caller ([`Source::for_each_block`]).
//!
//! [`decode_text`] turns the raw bytes of a tag value or comment into text:
//! UTF-8 when it is valid, Windows-1252 for the bytes that are not.

use std::borrow::Cow;
use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Cursor, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Regular files shorter than this are read into memory instead of being
/// mapped: for them one `read` costs less than setting up and tearing down a
/// mapping.
const MMAP_MIN_LEN: u64 = 1 << 20;

/// File name endings (compared in ASCII lower case) that mark a PGN file when
/// a directory is expanded.
const PGN_SUFFIXES: [&[u8]; 4] = [b".pgn", b".pgn.gz", b".pgn.zst", b".pgn.bz2"];

/// Where games come from: a file path or standard input (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputName {
    /// Standard input, written `-` on the command line.
    Stdin,
    /// A file (or FIFO) path, as given or as found below a directory.
    Path(PathBuf),
}

impl fmt::Display for InputName {
    /// Writes `-` for standard input, otherwise the path as given (non-UTF-8
    /// parts replaced, for display only).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputName::Stdin => f.write_str("-"),
            InputName::Path(path) => write!(f, "{}", path.display()),
        }
    }
}

/// Errors of this module. Every message names the input it is about.
///
/// The underlying [`io::Error`] is part of the message (as in
/// `cannot open games.pgn: No such file or directory (os error 2)`) rather
/// than a [`source`](std::error::Error::source), so that printing the error
/// chain does not repeat it; [`SourceError::io_error`] gives access to it.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The input does not exist or cannot be opened.
    #[error("cannot open {name}: {error}")]
    Open {
        /// The input.
        name: InputName,
        /// What the operating system said.
        error: io::Error,
    },
    /// A directory given on the command line (or below one) cannot be listed.
    #[error("cannot read directory {}: {error}", .path.display())]
    ReadDir {
        /// The directory.
        path: PathBuf,
        /// What the operating system said.
        error: io::Error,
    },
    /// A command-line argument names something that is neither a readable
    /// file nor a directory (a socket, say).
    #[error("{}: not a PGN file or directory", .path.display())]
    NotInput {
        /// The argument.
        path: PathBuf,
    },
    /// [`Source::open`] was given a directory; [`expand_inputs`] lists the
    /// files in it.
    #[error("cannot open {}: is a directory", .path.display())]
    IsDirectory {
        /// The directory.
        path: PathBuf,
    },
    /// The input has more bytes than the limit set with
    /// [`Source::with_limit`]; the whole games before it were delivered.
    #[error(
        "{name}: larger than the input size limit of {limit} bytes (decompressed); stopped there"
    )]
    TooLarge {
        /// The input.
        name: InputName,
        /// The limit.
        limit: u64,
    },
    /// Reading or decompressing failed part-way.
    #[error("{name}: {} at byte {offset}: {error}", read_failure(.compression, .error))]
    Read {
        /// The input.
        name: InputName,
        /// How many bytes had been read successfully: an offset in the
        /// decompressed data for a compressed input.
        offset: u64,
        /// The input's compression, which tells corrupt data from an I/O
        /// failure in the message.
        compression: Compression,
        /// What the reader or decoder said.
        error: io::Error,
    },
}

impl SourceError {
    /// The underlying I/O error, if there is one.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            SourceError::Open { error, .. }
            | SourceError::ReadDir { error, .. }
            | SourceError::Read { error, .. } => Some(error),
            SourceError::NotInput { .. }
            | SourceError::IsDirectory { .. }
            | SourceError::TooLarge { .. } => None,
        }
    }
}

/// Names a read failure for [`SourceError::Read`]'s message: an error that
/// does not come from the operating system, met while decompressing, means
/// the data is corrupt (or truncated).
fn read_failure(compression: &Compression, error: &io::Error) -> String {
    if *compression == Compression::None || error.raw_os_error().is_some() {
        "read error".to_owned()
    } else {
        format!("corrupt {compression} data")
    }
}

/// Expands command-line arguments into inputs.
///
/// - `-` is standard input;
/// - a directory means every file below it, recursively, whose name ends in
///   `.pgn`, `.pgn.gz`, `.pgn.zst` or `.pgn.bz2` in any letter case, sorted
///   by path (symbolic links to files are followed, links to directories are
///   not, so that a link cycle cannot make the walk endless);
/// - anything else that can be read as a stream of bytes (a regular file,
///   whatever its name, a FIFO, a character device) is taken as is.
///
/// The order of the arguments is kept. A directory without PGN files
/// contributes nothing.
///
/// # Errors
///
/// [`SourceError::Open`] for a path that does not exist or a regular file
/// that cannot be opened (including a broken link with a PGN name inside a
/// directory), [`SourceError::ReadDir`] for a directory that cannot be
/// listed, [`SourceError::NotInput`] for a socket and the like.
pub fn expand_inputs(args: &[OsString]) -> Result<Vec<InputName>, SourceError> {
    let mut inputs = Vec::with_capacity(args.len());
    for arg in args {
        if arg == "-" {
            inputs.push(InputName::Stdin);
            continue;
        }
        let path = PathBuf::from(arg);
        let meta = fs::metadata(&path).map_err(|error| open_error(&path, error))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk_dir(&path, &mut found)?;
            found.sort();
            inputs.extend(found.into_iter().map(InputName::Path));
        } else if meta.is_file() {
            // Opened and closed at once, so that a permission problem shows up
            // before any work starts.
            File::open(&path).map_err(|error| open_error(&path, error))?;
            inputs.push(InputName::Path(path));
        } else if is_special_readable(&meta.file_type()) {
            // Not opened here: opening a FIFO blocks until a writer appears,
            // and closing it again would break the writer's pipe.
            inputs.push(InputName::Path(path));
        } else {
            return Err(SourceError::NotInput { path });
        }
    }
    Ok(inputs)
}

/// Collects the PGN files below `dir` into `found`, unsorted.
fn walk_dir(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), SourceError> {
    let read_dir_error = |error| SourceError::ReadDir { path: dir.to_owned(), error };
    for entry in fs::read_dir(dir).map_err(read_dir_error)? {
        let entry = entry.map_err(read_dir_error)?;
        let path = entry.path();
        let file_type = entry.file_type().map_err(read_dir_error)?;
        if file_type.is_dir() {
            walk_dir(&path, found)?;
        } else if has_pgn_suffix(&path) {
            if file_type.is_symlink() {
                // A link to a directory is skipped; a broken link is an error,
                // since its name says it was meant to be read.
                let meta = fs::metadata(&path).map_err(|error| open_error(&path, error))?;
                if meta.is_dir() {
                    continue;
                }
            }
            found.push(path);
        }
    }
    Ok(())
}

/// Whether the file name of `path` ends in one of [`PGN_SUFFIXES`], ignoring
/// ASCII case.
fn has_pgn_suffix(path: &Path) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    let name = name.as_encoded_bytes();
    PGN_SUFFIXES.iter().any(|suffix| {
        name.len() >= suffix.len() && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    })
}

/// Whether a file that is neither regular nor a directory can still be read
/// as a stream: a FIFO (as made by a shell's `<(…)`) or a character device.
#[cfg(unix)]
fn is_special_readable(file_type: &fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    file_type.is_fifo() || file_type.is_char_device()
}

/// Whether a file that is neither regular nor a directory can still be read
/// as a stream: never, outside Unix.
#[cfg(not(unix))]
fn is_special_readable(_file_type: &fs::FileType) -> bool {
    false
}

fn open_error(path: &Path, error: io::Error) -> SourceError {
    SourceError::Open { name: InputName::Path(path.to_owned()), error }
}

/// How an input is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (RFC 1952), possibly several members one after the other.
    Gzip,
    /// Zstandard, possibly several frames one after the other.
    Zstd,
    /// bzip2, possibly several streams one after the other (as `pbzip2`
    /// writes them).
    Bzip2,
}

impl fmt::Display for Compression {
    /// Writes the format's usual name: `none`, `gzip`, `zstd` or `bzip2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
        })
    }
}

/// Detects the compression of an input from its first bytes (four are
/// enough): gzip starts with `1f 8b`, zstd with `28 b5 2f fd`, bzip2 with
/// `BZh`. The content decides, not the file name.
pub fn detect_compression(first_bytes: &[u8]) -> Compression {
    if first_bytes.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if first_bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Compression::Zstd
    } else if first_bytes.starts_with(b"BZh") {
        Compression::Bzip2
    } else {
        Compression::None
    }
}

/// An opened input, ready to be read once with [`Source::for_each_block`].
pub struct Source {
    name: InputName,
    len_hint: Option<u64>,
    compression: Compression,
    data: Data,
    /// Read no more than this many (decompressed) bytes.
    limit: u64,
}

/// The three ways an input's bytes are held.
enum Data {
    /// A memory-mapped regular file.
    Mapped(memmap2::Mmap),
    /// The whole content in memory (small files, empty files).
    Owned(Vec<u8>),
    /// A reader, decompressing if need be (stdin, compressed files, FIFOs, and
    /// regular files that could not be mapped).
    Stream(Box<dyn Read + Send>),
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let data = match &self.data {
            Data::Mapped(map) => format!("Mapped({} bytes)", map.len()),
            Data::Owned(bytes) => format!("Owned({} bytes)", bytes.len()),
            Data::Stream(_) => "Stream".to_owned(),
        };
        f.debug_struct("Source")
            .field("name", &self.name)
            .field("len_hint", &self.len_hint)
            .field("compression", &self.compression)
            .field("data", &format_args!("{data}"))
            .finish()
    }
}

impl Source {
    /// Opens an input.
    ///
    /// A regular uncompressed file of 1 MiB or more is memory-mapped (with a
    /// hint to the kernel that it will be read sequentially); a smaller one is
    /// read into memory; one that cannot be mapped is streamed. Compressed
    /// files (whatever their names) and standard input are streamed through
    /// the matching decoder: gzip members, zstd frames and bzip2 streams may
    /// follow one another.
    ///
    /// # Errors
    ///
    /// [`SourceError::Open`] if the file cannot be opened,
    /// [`SourceError::IsDirectory`] for a directory, [`SourceError::Read`] if
    /// its first bytes (read to detect compression) cannot be read.
    pub fn open(name: &InputName) -> Result<Source, SourceError> {
        Source::open_with(name, MMAP_MIN_LEN)
    }

    /// [`Source::open`], but a plain file is streamed through a bounded
    /// buffer (like a compressed one) instead of memory-mapped: the mapped
    /// pages of a big file count as resident memory, read blocks do not stay.
    /// Costs one copy of the bytes; the import uses it to keep its memory
    /// bounded whatever the file size.
    ///
    /// # Errors
    /// As [`Source::open`].
    pub fn open_streaming(name: &InputName) -> Result<Source, SourceError> {
        Source::open_with(name, u64::MAX)
    }

    /// [`Source::open`] with the size from which regular files are mapped
    /// chosen by the caller (tests map tiny files this way; `u64::MAX`
    /// streams files of 1 MiB or more).
    fn open_with(name: &InputName, mmap_min_len: u64) -> Result<Source, SourceError> {
        let path = match name {
            InputName::Stdin => {
                let mut stdin = io::stdin();
                let prefix = read_prefix(name, &mut stdin)?;
                return Source::stream(name.clone(), None, prefix, stdin);
            }
            InputName::Path(path) => path,
        };
        let mut file = File::open(path).map_err(|error| open_error(path, error))?;
        let meta = file.metadata().map_err(|error| open_error(path, error))?;
        if meta.is_dir() {
            return Err(SourceError::IsDirectory { path: path.clone() });
        }
        let len = meta.is_file().then_some(meta.len());
        let prefix = read_prefix(name, &mut file)?;
        let plain_len = len.filter(|_| detect_compression(&prefix) == Compression::None);
        let Some(len) = plain_len else {
            return Source::stream(name.clone(), len, prefix, file);
        };
        if mmap_min_len == u64::MAX && len >= MMAP_MIN_LEN {
            return Source::stream(name.clone(), Some(len), prefix, file);
        }
        let (data, len) = if len > 0 && len >= mmap_min_len {
            match map_file(&file) {
                Some(map) => (Data::Mapped(map), len),
                None => return Source::stream(name.clone(), Some(len), prefix, file),
            }
        } else {
            // Files that report a length of 0 (as in /proc) may still have
            // content, so read to the end rather than trust the length.
            let mut bytes = prefix;
            bytes.reserve(usize::try_from(len).unwrap_or(0));
            file.read_to_end(&mut bytes).map_err(|error| SourceError::Read {
                name: name.clone(),
                offset: bytes.len() as u64,
                compression: Compression::None,
                error,
            })?;
            let read = bytes.len() as u64;
            (Data::Owned(bytes), len.max(read))
        };
        Ok(Source {
            name: name.clone(),
            len_hint: Some(len),
            compression: Compression::None,
            data,
            limit: u64::MAX,
        })
    }

    /// A streaming source over `prefix` followed by the rest of `reader`,
    /// decompressed according to the prefix.
    fn stream(
        name: InputName,
        len_hint: Option<u64>,
        prefix: Vec<u8>,
        reader: impl Read + Send + 'static,
    ) -> Result<Source, SourceError> {
        let compression = detect_compression(&prefix);
        let reader = Cursor::new(prefix).chain(reader);
        let reader: Box<dyn Read + Send> = match compression {
            Compression::None => Box::new(reader),
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(reader)),
            Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(reader)),
            Compression::Zstd => {
                let open_error = |error| SourceError::Open { name: name.clone(), error };
                let mut decoder = zstd::stream::read::Decoder::new(reader).map_err(open_error)?;
                // Accept frames written with `zstd --long` (windows beyond the
                // default 128 MiB limit); the memory is only taken if a frame
                // asks for it.
                decoder.window_log_max(ZSTD_WINDOW_LOG_MAX).map_err(open_error)?;
                Box::new(decoder)
            }
        };
        Ok(Source { name, len_hint, compression, data: Data::Stream(reader), limit: u64::MAX })
    }

    /// Makes [`Source::for_each_block`] stop with [`SourceError::TooLarge`]
    /// once the input has more than `limit` (decompressed) bytes: a guard
    /// against decompression bombs. Without it a stream of any length is
    /// read, in bounded memory.
    #[must_use]
    pub fn with_limit(mut self, limit: u64) -> Source {
        self.limit = limit;
        self
    }

    /// The input this source reads.
    pub fn name(&self) -> &InputName {
        &self.name
    }

    /// The input's size in bytes if known, for progress reports: the file's
    /// length, which for a compressed file is the compressed length (compare
    /// it with the compressed bytes consumed, not with block offsets).
    /// `None` for standard input and FIFOs.
    pub fn len_hint(&self) -> Option<u64> {
        self.len_hint
    }

    /// The input's compression, as detected from its first bytes.
    pub fn compression(&self) -> Compression {
        self.compression
    }

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
        blocks.run(&mut cut, &mut f).map_err(|(offset, error)| {
            if error.get_ref().is_some_and(|inner| inner.is::<LimitReached>()) {
                too_large(name)
            } else {
                SourceError::Read { name, offset, compression, error }
            }
        })
    }
}

/// The largest zstd window accepted: zstd's own maximum for the platform.
const ZSTD_WINDOW_LOG_MAX: u32 = if cfg!(target_pointer_width = "64") { 31 } else { 30 };

/// Reads up to four bytes (enough for [`detect_compression`]) from the start
/// of an input; fewer only if the input is shorter.
fn read_prefix(name: &InputName, reader: &mut impl Read) -> Result<Vec<u8>, SourceError> {
    let mut prefix = [0; 4];
    let mut filled = 0;
    while filled < prefix.len() {
        match reader.read(&mut prefix[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => {
                return Err(SourceError::Read {
                    name: name.clone(),
                    offset: filled as u64,
                    compression: Compression::None,
                    error,
                })
            }
        }
    }
    Ok(prefix[..filled].to_vec())
}

/// Maps a regular file read-only, advising sequential access; `None` if the
/// mapping fails (the caller then streams the file).
fn map_file(file: &File) -> Option<memmap2::Mmap> {
    // SAFETY: a memory map is only sound while nobody else changes the file:
    // the slice we hand out is assumed immutable, yet another process writing
    // to the file would change it underneath us, and one truncating it would
    // make reads past the new end fault (SIGBUS). Nothing in Rust can prevent
    // that, so this is a trade-off, the same one ripgrep makes: inputs are
    // game collections that nobody edits during an import, and mapping saves
    // a copy of every byte of large files. The worst plausible outcome is
    // garbled games or a crash of this read-only process, not corrupted
    // output; a user who cannot rule out concurrent writers can stream the
    // file through standard input instead.
    let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
    #[cfg(unix)]
    {
        // Only a hint: read-ahead works without it.
        let _ = map.advise(memmap2::Advice::Sequential);
    }
    Some(map)
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
        f: &mut impl FnMut(&[u8], u64) -> ControlFlow<()>,
    ) -> Result<(), (u64, io::Error)> {
        let mut target = self.block_size;
        loop {
            if let Err((offset, error)) = self.fill(target) {
                // Deliver the whole games read before the error (within the
                // limit) first.
                let within = usize::try_from(self.limit - self.offset).unwrap_or(usize::MAX);
                deliver_whole_games(&self.buf[..within.min(self.filled)], self.offset, cut, f);
                return Err((offset, error));
            }
            if self.filled == 0 {
                // Only reached at the end of the input: `fill` stops early
                // only there.
                return Ok(());
            }
            let data = &self.buf[..self.filled];
            if self.eof {
                deliver_all_at(data, self.offset, cut, f);
                return Ok(());
            }
            let n = match cut(data, false).min(self.filled) {
                0 if target < self.max_block => {
                    target = target.saturating_mul(2).min(self.max_block);
                    continue;
                }
                // Full at the bound with no cut in sight: deliver it whole.
                0 => self.filled,
                n => n,
            };
            if f(&data[..n], self.offset).is_break() {
                return Ok(());
            }
            self.buf.copy_within(n..self.filled, 0);
            self.filled -= n;
            self.offset += n as u64;
            target = self.block_size;
        }
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

/// [`deliver_all`] for the last bytes of a stream, which start at `offset`.
fn deliver_all_at(
    data: &[u8],
    offset: u64,
    cut: &mut impl FnMut(&[u8], bool) -> usize,
    f: &mut impl FnMut(&[u8], u64) -> ControlFlow<()>,
) {
    deliver_all(data, cut, &mut |block, at| f(block, offset + at));
}

/// Decodes bytes of a PGN file (a tag value, a comment) to text.
///
/// Valid UTF-8 is taken as is (borrowed), after removing a leading byte-order
/// mark. Bytes that are not part of valid UTF-8 are read as Windows-1252, the
/// Latin-1 superset that old ChessBase exports use: `0x80..=0x9F` through the
/// Windows-1252 table (`0x80` is `€`, `0x93` is `“`; the five undefined ones,
/// `0x81 0x8D 0x8F 0x90 0x9D`, become the C1 control characters of the same
/// number), `0xA0..=0xFF` as the same code point. The decision is made per
/// invalid sequence, so valid UTF-8 around a stray Latin-1 byte survives.
/// No byte is ever dropped or replaced: every byte outside valid UTF-8
/// becomes exactly one character, distinct for distinct bytes.
pub fn decode_text(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut rest = match std::str::from_utf8(bytes) {
        Ok(text) => return Cow::Borrowed(text),
        Err(_) => bytes,
    };
    let mut text = String::with_capacity(bytes.len() + bytes.len() / 2);
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                text.push_str(valid);
                return Cow::Owned(text);
            }
            Err(error) => {
                let (valid, invalid) = rest.split_at(error.valid_up_to());
                // Checked by `from_utf8` just above.
                text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                let bad_len = error.error_len().unwrap_or(invalid.len());
                text.extend(invalid[..bad_len].iter().map(|&b| windows_1252(b)));
                rest = &invalid[bad_len..];
            }
        }
    }
}

/// The Windows-1252 character for one byte (undefined bytes map to the C1
/// control of the same number).
fn windows_1252(byte: u8) -> char {
    /// `0x80..=0x9F`; the rest of the code page is Latin-1.
    const C1: [char; 32] = [
        '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}',
        '\u{2021}', '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}',
        '\u{017D}', '\u{008F}', '\u{0090}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}',
        '\u{2022}', '\u{2013}', '\u{2014}', '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}',
        '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
    ];
    match byte {
        0x80..=0x9F => C1[usize::from(byte - 0x80)],
        _ => char::from(byte),
    }
}

/// What identifies a file's content for incremental imports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileFacts {
    /// Length in bytes.
    pub size: u64,
    /// Modification time, seconds since 1970 (`None` if the system has none).
    pub mtime: Option<i64>,
    /// xxh3-128 of every byte of the file (compressed files as stored), as
    /// 32 lower-case hex digits.
    pub fingerprint: String,
}

/// Reads a whole file to fingerprint it. `None` for standard input (whose
/// content is known only once read).
///
/// # Errors
/// [`SourceError::Open`] or [`SourceError::Read`] if the file cannot be read.
pub fn file_facts(name: &InputName) -> Result<Option<FileFacts>, SourceError> {
    let InputName::Path(path) = name else { return Ok(None) };
    let mut file = File::open(path).map_err(|error| open_error(path, error))?;
    let meta = file.metadata().map_err(|error| open_error(path, error))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64);
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => {
                return Err(SourceError::Read {
                    name: name.clone(),
                    offset: size,
                    compression: Compression::None,
                    error,
                })
            }
        };
        hasher.update(&buf[..n]);
        size += n as u64;
    }
    Ok(Some(FileFacts { size, mtime, fingerprint: format!("{:032x}", hasher.digest128()) }))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// A `max_block` that no test input reaches: blocks end where `cut` says.
    const MAX_BLOCK: usize = 1 << 30;

    /// A game-like text with blank lines between "games".
    const PGN: &[u8] = b"[Event \"A\"]\n\n1. e4 e5 1-0\n\n[Event \"B\"]\n\n1. d4 d5 0-1\n\n\
        [Event \"C\"]\n\n1. c4 { Caf\xe9 } c5 1/2-1/2\n\n[Event \"D\"]\n\n1. Nf3 *\n";

    /// Cuts after the last "\n\n" in the buffer (everything at EOF).
    fn cut_after_blank_line(buf: &[u8], at_eof: bool) -> usize {
        if at_eof {
            return buf.len();
        }
        buf.windows(2).rposition(|w| w == b"\n\n").map_or(0, |i| i + 2)
    }

    /// Runs `for_each_block` and returns the blocks with their offsets.
    fn blocks(
        source: Source,
        block_size: usize,
        max_block: usize,
        cut: impl FnMut(&[u8], bool) -> usize,
    ) -> Vec<(u64, Vec<u8>)> {
        let mut out = Vec::new();
        source
            .for_each_block(block_size, max_block, cut, |block, offset| {
                out.push((offset, block.to_vec()));
                ControlFlow::Continue(())
            })
            .unwrap();
        out
    }

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

    fn concat(blocks: &[(u64, Vec<u8>)]) -> Vec<u8> {
        blocks.iter().flat_map(|(_, block)| block.iter().copied()).collect()
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

    fn write_file(path: &Path, bytes: &[u8]) -> InputName {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(path, bytes).unwrap();
        InputName::Path(path.to_owned())
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    fn bzip2(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    fn zstd(bytes: &[u8]) -> Vec<u8> {
        zstd::stream::encode_all(bytes, 3).unwrap()
    }

    /// Everything a source delivers, with a cut that takes whole blocks.
    fn read_all(source: Source) -> Vec<u8> {
        concat(&blocks(source, 16, MAX_BLOCK, cut_after_blank_line))
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
        // 64 frames of 16 MiB of zeros: 1 GiB from a few kilobytes.
        let frame = zstd(&vec![0u8; 16 << 20]);
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

    #[test]
    fn input_name_display() {
        assert_eq!(InputName::Stdin.to_string(), "-");
        assert_eq!(InputName::Path("dir/games.pgn".into()).to_string(), "dir/games.pgn");
    }

    #[test]
    fn expand_inputs_walks_directories_for_pgn_files_only() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        for name in [
            "b.pgn",
            "A.PGN",
            "notes.txt",
            "archive.gz",
            "e.pgn.bz2",
            "sub/c.pgn.gz",
            "sub/x.pgn.txt",
            "sub/deeper/d.Pgn.Zst",
            "sub/deeper/pgn",
            "z/y.pgn",
        ] {
            write_file(&root.join(name), b"");
        }
        fs::create_dir(root.join("empty")).unwrap();
        // A directory whose name looks like a PGN file is still walked.
        write_file(&root.join("dir.pgn/inner.pgn"), b"");
        let notes = root.join("notes.txt");
        let args = [root.clone().into_os_string(), "-".into(), notes.clone().into_os_string()];
        let inputs = expand_inputs(&args).unwrap();
        let path = |p: &str| InputName::Path(root.join(p));
        assert_eq!(
            inputs,
            [
                path("A.PGN"),
                path("b.pgn"),
                path("dir.pgn/inner.pgn"),
                path("e.pgn.bz2"),
                path("sub/c.pgn.gz"),
                path("sub/deeper/d.Pgn.Zst"),
                path("z/y.pgn"),
                InputName::Stdin,
                InputName::Path(notes),
            ]
        );
    }

    #[test]
    fn expand_inputs_missing_path_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("games.pgn");
        let err = expand_inputs(&[missing.clone().into_os_string()]).unwrap_err();
        assert!(matches!(err, SourceError::Open { .. }));
        assert_eq!(err.io_error().unwrap().kind(), io::ErrorKind::NotFound);
        let message = err.to_string();
        let prefix = format!("cannot open {}: ", missing.display());
        assert!(message.starts_with(&prefix), "{message}");
    }

    #[cfg(unix)]
    #[test]
    fn expand_inputs_rejects_a_socket() {
        let tmp = tempfile::tempdir().unwrap();
        let socket = tmp.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let err = expand_inputs(&[socket.clone().into_os_string()]).unwrap_err();
        assert_eq!(err.to_string(), format!("{}: not a PGN file or directory", socket.display()));
    }

    #[cfg(unix)]
    #[test]
    fn expand_inputs_reports_a_broken_pgn_link_and_skips_directory_links() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        write_file(&root.join("real/a.pgn"), b"");
        std::os::unix::fs::symlink(root.join("real"), root.join("loop.pgn")).unwrap();
        std::os::unix::fs::symlink(root.join("real/a.pgn"), root.join("link.pgn")).unwrap();
        let inputs = expand_inputs(&[root.clone().into_os_string()]).unwrap();
        assert_eq!(
            inputs,
            [InputName::Path(root.join("link.pgn")), InputName::Path(root.join("real/a.pgn"))]
        );
        std::os::unix::fs::symlink(root.join("gone"), root.join("broken.pgn")).unwrap();
        let err = expand_inputs(&[root.clone().into_os_string()]).unwrap_err();
        assert!(err.to_string().contains("broken.pgn"), "{err}");
    }

    #[test]
    fn every_format_delivers_the_same_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let mut multi_gz = gzip(&PGN[..50]);
        multi_gz.extend(gzip(&PGN[50..]));
        let mut multi_zst = zstd(&PGN[..30]);
        multi_zst.extend(zstd(&PGN[30..]));
        let mut multi_bz2 = bzip2(&PGN[..70]);
        multi_bz2.extend(bzip2(&PGN[70..]));
        let cases = [
            ("plain.pgn", PGN.to_vec(), Compression::None),
            ("games.pgn.gz", gzip(PGN), Compression::Gzip),
            ("games.pgn.zst", zstd(PGN), Compression::Zstd),
            ("games.pgn.bz2", bzip2(PGN), Compression::Bzip2),
            ("multi.pgn.gz", multi_gz, Compression::Gzip),
            ("multi.pgn.zst", multi_zst, Compression::Zstd),
            ("multi.pgn.bz2", multi_bz2, Compression::Bzip2),
            // The content decides, not the name.
            ("misnamed.pgn", gzip(PGN), Compression::Gzip),
        ];
        for (file, bytes, compression) in cases {
            let name = write_file(&dir.join(file), &bytes);
            for mmap_min_len in [0, MMAP_MIN_LEN] {
                let source = Source::open_with(&name, mmap_min_len).unwrap();
                assert_eq!(source.name(), &name);
                assert_eq!(source.compression(), compression, "{file}");
                assert_eq!(source.len_hint(), Some(bytes.len() as u64), "{file}");
                assert_eq!(read_all(source), PGN, "{file}");
            }
        }
    }

    #[test]
    fn plain_files_are_mapped_or_read_by_size() {
        let tmp = tempfile::tempdir().unwrap();
        let name = write_file(&tmp.path().join("g.pgn"), PGN);
        let mapped = Source::open_with(&name, 0).unwrap();
        assert!(matches!(mapped.data, Data::Mapped(_)), "{mapped:?}");
        let owned = Source::open(&name).unwrap();
        assert!(matches!(owned.data, Data::Owned(_)), "{owned:?}");
        let large = write_file(&tmp.path().join("large.pgn"), &PGN.repeat(20_000));
        let source = Source::open(&large).unwrap();
        assert!(matches!(source.data, Data::Mapped(_)), "{source:?}");
        assert_eq!(read_all(source), PGN.repeat(20_000));
    }

    #[test]
    fn empty_files_deliver_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let name = write_file(&tmp.path().join("empty.pgn"), b"");
        for mmap_min_len in [0, MMAP_MIN_LEN] {
            let source = Source::open_with(&name, mmap_min_len).unwrap();
            assert!(matches!(source.data, Data::Owned(_)), "{source:?}");
            assert_eq!(source.len_hint(), Some(0));
            assert!(blocks(source, 16, 64, cut_after_blank_line).is_empty());
        }
        let name = write_file(&tmp.path().join("empty.pgn.gz"), &gzip(b""));
        assert!(read_all(Source::open(&name).unwrap()).is_empty());
    }

    #[test]
    fn opening_a_missing_file_or_a_directory_fails() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("games.pgn");
        let err = Source::open(&InputName::Path(missing.clone())).unwrap_err();
        assert!(err.to_string().starts_with(&format!("cannot open {}: ", missing.display())));
        let err = Source::open(&InputName::Path(tmp.path().to_owned())).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("cannot open {}: is a directory", tmp.path().display())
        );
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
        let text: Vec<u8> = (0..100u8).collect();
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

    #[test]
    fn corrupt_gzip_is_reported_as_such() {
        let tmp = tempfile::tempdir().unwrap();
        let mut bytes = gzip(&PGN.repeat(50));
        let middle = bytes.len() / 2;
        bytes.truncate(middle);
        bytes.extend([0xff; 64]);
        let name = write_file(&tmp.path().join("games.pgn.gz"), &bytes);
        let source = Source::open(&name).unwrap();
        let err = source.for_each_block(16, 1024, |b, _| b.len(), |_, _| ControlFlow::Continue(()));
        let message = err.unwrap_err().to_string();
        let prefix = format!("{}: corrupt gzip data at byte ", name);
        assert!(message.starts_with(&prefix), "{message}");
    }

    #[test]
    fn detects_compression_from_magic_numbers() {
        assert_eq!(detect_compression(b"\x1f\x8b\x08\x00"), Compression::Gzip);
        assert_eq!(detect_compression(b"\x28\xb5\x2f\xfd"), Compression::Zstd);
        assert_eq!(detect_compression(b"BZh9"), Compression::Bzip2);
        assert_eq!(detect_compression(b"[Event"), Compression::None);
        assert_eq!(detect_compression(b"\x28\xb5\x2f"), Compression::None);
        assert_eq!(detect_compression(b"\x1f"), Compression::None);
        assert_eq!(detect_compression(b"BZ"), Compression::None);
        assert_eq!(detect_compression(b""), Compression::None);
    }

    #[test]
    fn decode_text_keeps_utf8_and_drops_a_bom() {
        assert!(matches!(decode_text(b"Caf\xc3\xa9"), Cow::Borrowed("Café")));
        assert!(matches!(decode_text(b"\xef\xbb\xbfKasparov"), Cow::Borrowed("Kasparov")));
        assert_eq!(decode_text(b""), "");
        assert_eq!(decode_text("Чигорин – €".as_bytes()), "Чигорин – €");
    }

    #[test]
    fn decode_text_reads_other_bytes_as_windows_1252() {
        assert_eq!(decode_text(b"Caf\xe9"), "Café");
        assert_eq!(decode_text(b"\x93x\x94"), "\u{201C}x\u{201D}");
        assert_eq!(decode_text(b"M\xfcller \x80 5"), "Müller € 5");
        assert_eq!(decode_text(b"\x81\x8d\x8f\x90\x9d"), "\u{81}\u{8D}\u{8F}\u{90}\u{9D}");
        assert_eq!(decode_text(b"\xef\xbb\xbf\xe9t\xe9"), "été");
        // UTF-8 around a stray Latin-1 byte survives.
        assert_eq!(decode_text(b"\xe2\x82\xac \xe9"), "€ é");
        // A truncated UTF-8 sequence at the end is read as Latin-1 too.
        assert_eq!(decode_text(b"x\xc3"), "xÃ");
    }

    #[test]
    fn decode_text_never_drops_or_merges_bytes() {
        let high: Vec<u8> = (0x80..=0xff).collect();
        let text = decode_text(&high);
        let chars: Vec<char> = text.chars().collect();
        assert_eq!(chars.len(), 128);
        let mut distinct = chars.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 128);
        assert!(!chars.contains(&char::REPLACEMENT_CHARACTER));
        assert_eq!(chars[0x00], '€');
        assert_eq!(chars[0x1f], 'Ÿ');
        assert_eq!(chars[0x20], '\u{A0}');
        assert_eq!(chars[0x7f], 'ÿ');
    }
}
