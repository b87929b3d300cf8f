//! Input sources: the only place that opens input files.
//!
//! An input is a path or standard input (`-`). Directories given on the
//! command line expand to the PGN files below them ([`expand_inputs`]).
//! Opening an input ([`Source::open`]) picks one of two ways to read it, the
//! same split ripgrep makes between searching a slice and searching a reader:
//! - a regular, uncompressed file is memory-mapped (small ones are simply
//!   read into memory) and handed over as one slice, whose pages a
//!   [`Releaser`] hands back as they are read;
//! - standard input, compressed files (gzip, zstd, bzip2, xz — recognised by
//!   their magic numbers, not their names) and anything that cannot be
//!   mapped are streamed through a refill buffer that is cut at game
//!   boundaries chosen by the caller ([`Source::for_each_block`]).
//!
//! [`decode_text`] turns the raw bytes of a tag value or comment into text:
//! UTF-8 when it is valid, Windows-1252 for the bytes that are not.
//!
//! One file per job: `inputs.rs` finds the inputs, `compression.rs`
//! recognises compressed streams and decodes them, `mmap.rs` maps a file
//! and hands its pages back (the two `unsafe` calls of reading, with their
//! SAFETY paragraphs), `blocks.rs`
//! delivers an input in blocks cut at game boundaries, `decode.rs` turns
//! bytes into text and `facts.rs` fingerprints files. This file opens a
//! [`Source`] and says what can fail ([`SourceError`]).

use std::fmt;
use std::fs::File;
use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod blocks;
mod compression;
mod decode;
mod facts;
mod inputs;
mod mmap;
#[cfg(test)]
mod testing;

pub use compression::{detect_compression, detect_foreign, Compression, Foreign};
pub use decode::decode_text;
pub use facts::{file_facts, file_meta, path_facts, Facts, FileFacts, FileMeta};
pub use inputs::{expand_inputs, InputName, Inputs};
pub use mmap::Releaser;

use compression::read_prefix;
use mmap::{map_file, MMAP_MIN_LEN};

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
    /// The input is in a format that is not PGN (an SQLite database, an
    /// executable, an archive, …), recognised by its first bytes.
    #[error("{name} is {format}, not PGN{}", .format.advice().map(|a| format!(": {a}")).unwrap_or_default())]
    NotPgn {
        /// The input.
        name: InputName,
        /// What it is.
        format: Foreign,
    },
    /// The input's first bytes are binary data, not text: a NUL byte, or
    /// control characters that text does not hold in such numbers.
    #[error("{name}: binary data, not PGN text: {what} byte {offset}{}", binary_advice(*.utf16))]
    Binary {
        /// The input.
        name: InputName,
        /// Where the first such byte is (in the decompressed data).
        offset: u64,
        /// What it is.
        what: &'static str,
        /// The bytes start with UTF-16's byte-order mark.
        utf16: bool,
    },
    /// Every argument is a directory, and none has a PGN file below it:
    /// nothing to read.
    #[error("{}", no_pgn_files(.paths))]
    NoPgnFiles {
        /// The directories, as given.
        paths: Vec<PathBuf>,
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
    /// The input holds text but not one game: every piece of it was
    /// skipped (a warning each).
    #[error("{name}: no PGN game in it, only text that is not PGN ({skipped} pieces skipped)")]
    NoGames {
        /// The input.
        name: InputName,
        /// The pieces of text skipped.
        skipped: usize,
    },
    /// Reading or decompressing failed part-way. The message names the
    /// offset in the decompressed stream as such: it may lie past the end of
    /// a compressed file.
    #[error(
        "{name}: {} at byte {offset}{}: {error}",
        read_failure(.compression, .error),
        offset_in(.compression)
    )]
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
            | SourceError::NoPgnFiles { .. }
            | SourceError::NotPgn { .. }
            | SourceError::Binary { .. }
            | SourceError::NoGames { .. }
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

/// What [`SourceError::Read`]'s offset counts in, when it is not the
/// input's own bytes.
fn offset_in(compression: &Compression) -> &'static str {
    match compression {
        Compression::None => "",
        _ => " of the decompressed stream",
    }
}

/// [`SourceError::NotPgn`] if an input's first bytes show a [`Foreign`]
/// format.
fn check_not_foreign(name: &InputName, prefix: &[u8]) -> Result<(), SourceError> {
    match detect_foreign(prefix) {
        Some(format) => Err(SourceError::NotPgn { name: name.clone(), format }),
        None => Ok(()),
    }
}

/// Control characters [`check_text`] lets through whatever the length:
/// a short game with a few escape bytes in its tags is still PGN.
const MAX_CONTROLS: usize = 64;

/// How many of an input's first bytes [`check_text`] looks at.
pub(super) const TEXT_WINDOW: usize = 64 << 10;

/// [`SourceError::Binary`] if `head`, an input's first bytes (the first
/// [`TEXT_WINDOW`] are looked at), is not text: more than one byte in 32
/// (and more than [`MAX_CONTROLS`]) is a NUL or another control character
/// than tab, line breaks and form feed, as in random, compressed or UTF-16
/// data. A few such bytes in a tag or comment are text (PGN from hostile
/// sources is read, and shown escaped); later in an input, bad text is
/// judged game by game.
pub(super) fn check_text(name: &InputName, head: &[u8]) -> Result<(), SourceError> {
    let head = &head[..head.len().min(TEXT_WINDOW)];
    let bom = head.starts_with(&[0xff, 0xfe]) || head.starts_with(&[0xfe, 0xff]);
    let binary = |offset: usize, what| SourceError::Binary {
        name: name.clone(),
        offset: offset as u64,
        what,
        utf16: bom,
    };
    // Counted a run of 255 bytes at a time in a byte: vector code, where a
    // count per byte took 30 instructions.
    let controls: usize = head
        .chunks(255)
        .map(|run| usize::from(run.iter().fold(0u8, |n, &b| n + u8::from(is_control(b)))))
        .sum();
    // UTF-16 is told by its byte-order mark and a NUL soon after.
    let utf16 = bom && head.iter().take(4).any(|&b| b == 0);
    if !utf16 && (controls <= MAX_CONTROLS || controls * 32 <= head.len()) {
        return Ok(());
    }
    Err(match memchr::memchr(0, head) {
        Some(_) if utf16 => binary(0, "UTF-16's byte-order mark at"),
        Some(at) => binary(at, "a NUL byte at"),
        None => {
            let at = head.iter().position(|&b| is_control(b)).unwrap_or(0);
            binary(at, "control characters from")
        }
    })
}

/// A control character other than tab, line breaks and form feed. Its
/// comparisons are joined without branches, so that loops over bytes
/// vectorise.
fn is_control(b: u8) -> bool {
    (b <= 0x08) | (b == 0x0b) | (0x0e..=0x1f).contains(&b) | (b == 0x7f)
}

/// The end of [`SourceError::Binary`]'s message: how to convert UTF-16.
fn binary_advice(utf16: bool) -> &'static str {
    if utf16 {
        " (UTF-16 text: convert it to UTF-8, e.g. with `iconv -f UTF-16 -t UTF-8`)"
    } else {
        ""
    }
}

/// [`SourceError::NoPgnFiles`]'s message: the directories, then the
/// names searched for.
fn no_pgn_files(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let it = if paths.len() == 1 { "it" } else { "them" };
    format!("{}: no PGN files ({}) below {it}", names.join(", "), inputs::PGN_SUFFIXES_TEXT)
}

/// [`SourceError::Open`] for a file that cannot be opened or examined.
fn open_error(path: &Path, error: io::Error) -> SourceError {
    SourceError::Open { name: InputName::Path(path.to_owned()), error }
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
    /// A memory-mapped regular file (shared with its [`Releaser`]).
    Mapped(Arc<memmap2::Mmap>),
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
    /// the matching decoder: gzip members, zstd frames, bzip2 and xz streams may
    /// follow one another.
    ///
    /// # Errors
    ///
    /// [`SourceError::Open`] if the file cannot be opened,
    /// [`SourceError::IsDirectory`] for a directory, [`SourceError::Read`] if
    /// its first bytes (read to detect compression) cannot be read,
    /// [`SourceError::NotPgn`] if they show a format that is not PGN.
    pub fn open(name: &InputName) -> Result<Source, SourceError> {
        Source::open_with(name, MMAP_MIN_LEN)
    }

    /// [`Source::open`] with the size from which regular files are mapped
    /// chosen by the caller (tests map tiny files this way).
    fn open_with(name: &InputName, mmap_min_len: u64) -> Result<Source, SourceError> {
        let path = match name {
            InputName::Stdin => {
                let mut stdin = io::stdin();
                let prefix = read_prefix(name, &mut stdin)?;
                check_not_foreign(name, &prefix)?;
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
        check_not_foreign(name, &prefix)?;
        let plain_len = len.filter(|_| detect_compression(&prefix) == Compression::None);
        let Some(len) = plain_len else {
            return Source::stream(name.clone(), len, prefix, file);
        };
        let (data, len) = if len > 0 && len >= mmap_min_len {
            match map_file(&file) {
                Some(map) => {
                    check_text(name, &map)?;
                    (Data::Mapped(Arc::new(map)), len)
                }
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
            check_text(name, &bytes)?;
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
        let reader = compression::decoder(compression, reader)
            .map_err(|error| SourceError::Open { name: name.clone(), error })?;
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

    /// For a mapped input, the [`Releaser`] that hands its pages back once
    /// they are read; `None` for the others, whose memory is bounded
    /// already (a stream's buffer, a small file read whole).
    pub fn releaser(&self) -> Option<Releaser> {
        match &self.data {
            Data::Mapped(map) => Some(Releaser::new(Arc::clone(map))),
            Data::Owned(_) | Data::Stream(_) => None,
        }
    }

    /// `true` if the input is read as a stream, in blocks that each need a
    /// read (and a decompression); `false` if it is held whole in memory
    /// (mapped or read at once), when its blocks cost nothing to deliver.
    pub fn is_stream(&self) -> bool {
        matches!(self.data, Data::Stream(_))
    }
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;

    use super::testing::{
        blocks, bzip2, cut_after_blank_line, gzip, read_all, write_file, xz, zstd, PGN,
    };
    use super::*;

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
        let mut multi_xz = xz(&PGN[..20]);
        multi_xz.extend(xz(&PGN[20..]));
        let cases = [
            ("plain.pgn", PGN.to_vec(), Compression::None),
            ("games.pgn.gz", gzip(PGN), Compression::Gzip),
            ("games.pgn.zst", zstd(PGN), Compression::Zstd),
            ("games.pgn.bz2", bzip2(PGN), Compression::Bzip2),
            ("games.pgn.xz", xz(PGN), Compression::Xz),
            ("multi.pgn.xz", multi_xz, Compression::Xz),
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
    fn a_file_that_is_not_pgn_is_refused_when_opened() {
        let tmp = tempfile::tempdir().unwrap();
        let name = write_file(&tmp.path().join("games.pgn"), b"SQLite format 3\0\x10\x00\x02");
        let err = Source::open(&name).unwrap_err();
        assert!(matches!(err, SourceError::NotPgn { format: Foreign::Sqlite, .. }), "{err}");
        assert_eq!(err.to_string(), format!("{name} is a SQLite database, not PGN"));
        let name = write_file(&tmp.path().join("games.zip"), b"PK\x03\x04\x14\x00\x00\x00");
        let err = Source::open(&name).unwrap_err();
        assert_eq!(err.to_string(), format!("{name} is a zip archive, not PGN: extract it first"));
    }

    /// The message reading `bytes` (written to `file`) fails with.
    fn read_error(dir: &Path, file: &str, bytes: &[u8]) -> String {
        let name = write_file(&dir.join(file), bytes);
        let source = Source::open(&name).unwrap();
        let err = source.for_each_block(16, 1024, |b, _| b.len(), |_, _| ControlFlow::Continue(()));
        err.unwrap_err().to_string()
    }

    #[test]
    fn corrupt_gzip_is_reported_as_such() {
        let tmp = tempfile::tempdir().unwrap();
        let mut bytes = gzip(&PGN.repeat(50));
        let middle = bytes.len() / 2;
        bytes.truncate(middle);
        bytes.extend([0xff; 64]);
        let message = read_error(tmp.path(), "games.pgn.gz", &bytes);
        let prefix =
            format!("{}: corrupt gzip data at byte ", tmp.path().join("games.pgn.gz").display());
        assert!(message.starts_with(&prefix), "{message}");
    }

    #[test]
    fn a_truncated_stream_names_its_offset_in_the_decompressed_stream() {
        let tmp = tempfile::tempdir().unwrap();
        let text = PGN.repeat(200);
        for (file, compressed, kind) in [
            ("games.pgn.gz", gzip(&text), "gzip"),
            ("games.pgn.zst", zstd(&text), "zstd"),
            ("games.pgn.bz2", bzip2(&text), "bzip2"),
            ("games.pgn.xz", xz(&text), "xz"),
        ] {
            let cut = &compressed[..compressed.len() - 8];
            let message = read_error(tmp.path(), file, cut);
            let prefix =
                format!("{}: corrupt {kind} data at byte ", tmp.path().join(file).display());
            let rest = message.strip_prefix(&prefix).unwrap_or_else(|| panic!("{message}"));
            let (offset, rest) = rest.split_once(' ').unwrap();
            let offset: usize = offset.parse().unwrap();
            assert!(offset <= text.len(), "{message}");
            // Past the end of the compressed file, which the message must
            // not seem to point into.
            assert!(kind != "gzip" || offset > cut.len(), "{message}");
            assert!(rest.starts_with("of the decompressed stream: "), "{message}");
        }
    }
}
