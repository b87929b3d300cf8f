//! What identifies a file's content: [`FileFacts`] (size, modification
//! time, xxh3-128 fingerprint), read by [`file_facts`] for incremental
//! imports, or [`Facts`] while the fingerprint is computed.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::{open_error, Compression, InputName, SourceError};

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

/// A file's size and modification time, read without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileMeta {
    /// Length in bytes.
    pub size: u64,
    /// Modification time, seconds since 1970 (`None` if the system has none).
    pub mtime: Option<i64>,
    /// `true` for a regular file (not a pipe or a device, whose length says
    /// nothing and which can be read once only).
    pub regular: bool,
}

/// The size and modification time of the file `name` names. `None` for
/// standard input.
///
/// # Errors
/// [`SourceError::Open`] if the file cannot be opened.
pub fn file_meta(name: &InputName) -> Result<Option<FileMeta>, SourceError> {
    let InputName::Path(path) = name else { return Ok(None) };
    let meta = std::fs::metadata(path).map_err(|error| open_error(path, error))?;
    Ok(Some(FileMeta { size: meta.len(), mtime: mtime(&meta), regular: meta.is_file() }))
}

fn mtime(meta: &std::fs::Metadata) -> Option<i64> {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64)
}

/// A file's facts, its fingerprint perhaps still being computed on a thread
/// of the caller's ([`Facts::Hashing`]): a file whose size no imported file
/// has is neither imported already nor to be resumed, and is read while
/// its fingerprint is computed.
#[derive(Debug)]
pub enum Facts {
    /// Every fact known.
    Known(FileFacts),
    /// The size and modification time known; the thread gives the facts.
    Hashing {
        /// What was read before the thread started.
        meta: FileMeta,
        /// The thread computing [`path_facts`].
        thread: std::thread::JoinHandle<Result<FileFacts, SourceError>>,
    },
}

impl Facts {
    /// The file's length in bytes.
    pub fn size(&self) -> u64 {
        match self {
            Facts::Known(facts) => facts.size,
            Facts::Hashing { meta, .. } => meta.size,
        }
    }

    /// The file's modification time.
    pub fn mtime(&self) -> Option<i64> {
        match self {
            Facts::Known(facts) => facts.mtime,
            Facts::Hashing { meta, .. } => meta.mtime,
        }
    }

    /// Every fact, waiting for the fingerprint if it is being computed.
    ///
    /// # Errors
    /// The file could not be read to the end.
    pub fn finish(self) -> Result<FileFacts, SourceError> {
        match self {
            Facts::Known(facts) => Ok(facts),
            Facts::Hashing { thread, .. } => {
                thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }
        }
    }
}

/// Reads a whole file to fingerprint it. `None` for standard input (whose
/// content is known only once read).
///
/// # Errors
/// [`SourceError::Open`] or [`SourceError::Read`] if the file cannot be read.
pub fn file_facts(name: &InputName) -> Result<Option<FileFacts>, SourceError> {
    match name {
        InputName::Path(path) => path_facts(path).map(Some),
        InputName::Stdin => Ok(None),
    }
}

/// [`file_facts`] of the file at `path`.
///
/// # Errors
/// [`SourceError::Open`] or [`SourceError::Read`] if the file cannot be read.
pub fn path_facts(path: &Path) -> Result<FileFacts, SourceError> {
    let mut file = File::open(path).map_err(|error| open_error(path, error))?;
    let meta = file.metadata().map_err(|error| open_error(path, error))?;
    let mtime = mtime(&meta);
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
                    name: InputName::Path(path.to_path_buf()),
                    offset: size,
                    compression: Compression::None,
                    error,
                })
            }
        };
        hasher.update(&buf[..n]);
        size += n as u64;
    }
    Ok(FileFacts { size, mtime, fingerprint: format!("{:032x}", hasher.digest128()) })
}
