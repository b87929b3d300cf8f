//! Polyglot opening books: the file format ([`polyglot`]) and books made
//! from stored games by `polyglot make-book`'s rules ([`make`]).
//!
//! A book is a list of 16-byte entries sorted by the Polyglot key of a
//! position: a move played there and its weight. Chess engines, GUIs and
//! bots read it; python-chess reads it but cannot write it.

pub mod make;
pub mod polyglot;

use std::path::PathBuf;

/// How reading a book or making one fails.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The book, or the temporary file of a book being made.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file's size is not a whole number of entries.
    #[error("{}: not a Polyglot book: {size} bytes is not a multiple of 16", path.display())]
    Size {
        /// The file.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
    },
    /// An entry's key is below the one before: a reader's binary search
    /// would miss entries.
    #[error(
        "{}: not a Polyglot book: entry {index} (byte {}) has a key below the entry before it",
        path.display(),
        index * 16
    )]
    Order {
        /// The file.
        path: PathBuf,
        /// The entry, from 0.
        index: u64,
    },
    /// A rule of [`make::Rules`] out of its range.
    #[error("{0}")]
    Rule(&'static str),
}
