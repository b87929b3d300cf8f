//! What an input holds, by its first bytes: [`Compression`]
//! ([`detect_compression`]) and the decoders that stream gzip, zstd, bzip2
//! and xz (several members, frames or streams one after the other), or a
//! [`Foreign`] format that is not PGN at all ([`detect_foreign`]).

use std::fmt;
use std::io::{self, Read};

use super::{InputName, SourceError};

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
    /// xz, possibly several streams one after the other (as `xz` appends
    /// them).
    Xz,
}

impl fmt::Display for Compression {
    /// Writes the format's usual name: `none`, `gzip`, `zstd`, `bzip2` or
    /// `xz`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
        })
    }
}

/// Detects the compression of an input from its first bytes (six are
/// enough): gzip starts with `1f 8b`, zstd with `28 b5 2f fd`, bzip2 with
/// `BZh`, xz with `fd 37 7a 58 5a 00`. The content decides, not the file
/// name.
pub fn detect_compression(first_bytes: &[u8]) -> Compression {
    if first_bytes.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if first_bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Compression::Zstd
    } else if first_bytes.starts_with(b"BZh") {
        Compression::Bzip2
    } else if first_bytes.starts_with(b"\xfd7zXZ\x00") {
        Compression::Xz
    } else {
        Compression::None
    }
}

/// A format that is not PGN text, recognised by its magic number: such an
/// input is refused, not read as text (which would store junk). A short
/// list of what is met beside PGN files or given by mistake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Foreign {
    /// An SQLite database (`SQLite format 3\0`): a pgnindex database given
    /// as an input, say.
    Sqlite,
    /// An ELF executable or library (`\x7fELF`).
    Elf,
    /// A Windows executable (`MZ`).
    WindowsExecutable,
    /// A PDF document (`%PDF-`).
    Pdf,
    /// A PNG image.
    Png,
    /// A JPEG image.
    Jpeg,
    /// A zip archive (`PK\3\4`, or `PK\5\6` when empty).
    Zip,
    /// A 7-Zip archive.
    SevenZip,
    /// A RAR archive.
    Rar,
    /// An LZ4 frame.
    Lz4,
    /// Unix `compress` output (`.Z`, LZW).
    Lzw,
}

impl fmt::Display for Foreign {
    /// Writes what the input is, with its article: `a SQLite database`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Foreign::Sqlite => "a SQLite database",
            Foreign::Elf => "an ELF executable",
            Foreign::WindowsExecutable => "a Windows executable",
            Foreign::Pdf => "a PDF document",
            Foreign::Png => "a PNG image",
            Foreign::Jpeg => "a JPEG image",
            Foreign::Zip => "a zip archive",
            Foreign::SevenZip => "a 7-Zip archive",
            Foreign::Rar => "a RAR archive",
            Foreign::Lz4 => "LZ4-compressed",
            Foreign::Lzw => "compressed with compress (.Z)",
        })
    }
}

impl Foreign {
    /// What to do instead, if there is something to say: extract an
    /// archive, decompress a compression pgnindex does not read.
    pub fn advice(self) -> Option<&'static str> {
        match self {
            Foreign::Zip | Foreign::SevenZip | Foreign::Rar => Some("extract it first"),
            Foreign::Lz4 | Foreign::Lzw => Some("decompress it first"),
            Foreign::Sqlite
            | Foreign::Elf
            | Foreign::WindowsExecutable
            | Foreign::Pdf
            | Foreign::Png
            | Foreign::Jpeg => None,
        }
    }
}

/// The magic numbers of [`Foreign`] formats.
const FOREIGN: [(&[u8], Foreign); 12] = [
    (b"SQLite format 3\0", Foreign::Sqlite),
    (b"\x7fELF", Foreign::Elf),
    (b"MZ", Foreign::WindowsExecutable),
    (b"%PDF-", Foreign::Pdf),
    (b"\x89PNG\r\n\x1a\n", Foreign::Png),
    (b"\xff\xd8\xff", Foreign::Jpeg),
    (b"PK\x03\x04", Foreign::Zip),
    (b"PK\x05\x06", Foreign::Zip),
    (b"7z\xbc\xaf\x27\x1c", Foreign::SevenZip),
    (b"Rar!\x1a\x07", Foreign::Rar),
    (b"\x04\x22\x4d\x18", Foreign::Lz4),
    (b"\x1f\x9d", Foreign::Lzw),
];

/// Bytes read from the start of an input to recognise it: the longest
/// magic number ([`Foreign::Sqlite`]'s).
pub(super) const PREFIX_LEN: usize = 16;

/// The [`Foreign`] format an input's first bytes ([`PREFIX_LEN`] are
/// enough) show, if any.
pub fn detect_foreign(first_bytes: &[u8]) -> Option<Foreign> {
    FOREIGN.iter().find(|(magic, _)| first_bytes.starts_with(magic)).map(|&(_, format)| format)
}

/// The largest zstd window accepted: zstd's own maximum for the platform.
const ZSTD_WINDOW_LOG_MAX: u32 = if cfg!(target_pointer_width = "64") { 31 } else { 30 };

/// `reader` decompressed as `compression` says.
///
/// # Errors
/// The zstd decoder's, if it cannot be set up.
pub(super) fn decoder(
    compression: Compression,
    reader: impl Read + Send + 'static,
) -> io::Result<Box<dyn Read + Send>> {
    Ok(match compression {
        Compression::None => Box::new(reader),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(reader)),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(reader)),
        Compression::Xz => Box::new(xz2::read::XzDecoder::new_multi_decoder(reader)),
        Compression::Zstd => {
            let mut decoder = zstd::stream::read::Decoder::new(reader)?;
            // Accept frames written with `zstd --long` (windows beyond the
            // default 128 MiB limit); the memory is only taken if a frame
            // asks for it.
            decoder.window_log_max(ZSTD_WINDOW_LOG_MAX)?;
            Box::new(decoder)
        }
    })
}

/// Reads up to [`PREFIX_LEN`] bytes (enough for [`detect_compression`] and
/// [`detect_foreign`]) from the start of an input; fewer only if the input
/// is shorter.
pub(super) fn read_prefix(
    name: &InputName,
    reader: &mut impl Read,
) -> Result<Vec<u8>, SourceError> {
    let mut prefix = [0; PREFIX_LEN];
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_compression_from_magic_numbers() {
        assert_eq!(detect_compression(b"\x1f\x8b\x08\x00"), Compression::Gzip);
        assert_eq!(detect_compression(b"\x28\xb5\x2f\xfd"), Compression::Zstd);
        assert_eq!(detect_compression(b"BZh9"), Compression::Bzip2);
        assert_eq!(detect_compression(b"\xfd7zXZ\x00\x00"), Compression::Xz);
        assert_eq!(detect_compression(b"\xfd7zXZ"), Compression::None);
        assert_eq!(detect_compression(b"[Event"), Compression::None);
        assert_eq!(detect_compression(b"\x28\xb5\x2f"), Compression::None);
        assert_eq!(detect_compression(b"\x1f"), Compression::None);
        assert_eq!(detect_compression(b"BZ"), Compression::None);
        assert_eq!(detect_compression(b""), Compression::None);
    }

    #[test]
    fn detects_foreign_formats_from_magic_numbers() {
        assert_eq!(detect_foreign(b"SQLite format 3\0\x10\x00"), Some(Foreign::Sqlite));
        assert_eq!(detect_foreign(b"\x7fELF\x02\x01"), Some(Foreign::Elf));
        assert_eq!(detect_foreign(b"PK\x03\x04\x14\x00"), Some(Foreign::Zip));
        assert_eq!(detect_foreign(b"%PDF-1.7"), Some(Foreign::Pdf));
        // Text, and text that only begins like a magic number, is PGN.
        for text in [&b"[Event \"x\"]"[..], b"SQLite format 2", b"1. e4 e5", b"PK", b""] {
            assert_eq!(detect_foreign(text), None, "{}", String::from_utf8_lossy(text));
        }
    }
}
