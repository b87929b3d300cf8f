//! The memory map of a plain file: [`map_file`], the one `unsafe` of
//! reading inputs, and [`MMAP_MIN_LEN`], the size from which mapping pays.

use std::fs::File;

/// Regular files shorter than this are read into memory instead of being
/// mapped: for them one `read` costs less than setting up and tearing down a
/// mapping.
pub(super) const MMAP_MIN_LEN: u64 = 1 << 20;

/// Maps a regular file read-only, advising sequential access; `None` if the
/// mapping fails (the caller then streams the file).
pub(super) fn map_file(file: &File) -> Option<memmap2::Mmap> {
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
