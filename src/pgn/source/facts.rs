//! What identifies a file's content: [`FileFacts`] (size, modification
//! time, xxh3-128 fingerprint), read by [`file_facts`] for incremental
//! imports.

use std::fs::File;
use std::io::{self, Read};

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
