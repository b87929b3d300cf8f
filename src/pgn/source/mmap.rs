//! The memory map of a plain file: [`map_file`] and [`Releaser`], the
//! `unsafe` calls of reading inputs, and
//! [`MMAP_MIN_LEN`], the size from which mapping pays.

use std::fs::File;
use std::sync::Arc;

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

/// Pages are handed back in steps of this many bytes: a multiple of every
/// page size, and few calls, since each one interrupts the cores running
/// workers to flush their TLBs (in steps of 1 MB, `check` on 2 threads took
/// 4 % more CPU on a file of long comments).
const RELEASE_STEP: usize = 16 << 20;

/// Hands the pages of a mapped input back once they have been read: mapped
/// pages count as the process's resident memory until they are unmapped, so
/// without it reading a file of 100 GB would show 100 GB resident (clean page
/// cache the kernel can reclaim, but counted all the same). With it, what is
/// resident is the part of the file in flight. Made by
/// [`Source::releaser`](super::Source::releaser).
pub struct Releaser {
    map: Arc<memmap2::Mmap>,
    /// Bytes from the start already handed back: a multiple of
    /// [`RELEASE_STEP`].
    released: usize,
}

impl Releaser {
    pub(super) fn new(map: Arc<memmap2::Mmap>) -> Releaser {
        Releaser { map, released: 0 }
    }

    /// Hands back the pages that lie wholly before byte `end` of the input,
    /// which the caller has read and will not read again. Reading them all
    /// the same is still correct: the pages come back from the file.
    pub fn release_to(&mut self, end: u64) {
        let end = usize::try_from(end).unwrap_or(usize::MAX).min(self.map.len());
        let end = end - end % RELEASE_STEP;
        if end <= self.released {
            return;
        }
        #[cfg(unix)]
        {
            // SAFETY: `Mmap::map` maps the file shared and read-only. On such
            // a mapping `MADV_DONTNEED` only drops this process's page-table
            // entries: the next read of those bytes faults them in again from
            // the file, with the same contents. No slice into the map sees
            // its bytes change, so what `map_file` assumes still holds.
            // Failing is harmless: the pages stay resident.
            let _ = unsafe {
                self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    self.released,
                    end - self.released,
                )
            };
        }
        self.released = end;
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::io::Write;

    use super::*;

    /// The resident kilobytes of the mapping that starts at `start`, from
    /// `/proc/self/smaps`.
    fn resident_kb(start: *const u8) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let start = format!("{:x}-", start as usize);
        let entry = smaps.split_once(&format!("\n{start}")).expect("the mapping is listed").1;
        let rss = entry.lines().find_map(|line| line.strip_prefix("Rss:")).unwrap();
        rss.trim().trim_end_matches("kB").trim().parse().unwrap()
    }

    #[test]
    fn released_pages_leave_resident_memory_and_read_back_the_same() {
        let mut file = tempfile::tempfile().unwrap();
        let bytes: Vec<u8> = (0..3 * RELEASE_STEP + 123).map(|i| (i % 251) as u8).collect();
        file.write_all(&bytes).unwrap();
        let map = Arc::new(map_file(&file).unwrap());
        assert_eq!(&map[..], &bytes[..]);
        let whole = resident_kb(map.as_ptr());
        assert!(whole >= 3 * 1024, "read pages are resident: {whole} kB");
        let mut releaser = Releaser::new(Arc::clone(&map));
        releaser.release_to(RELEASE_STEP as u64 - 1);
        assert_eq!(releaser.released, 0, "no whole step before the end");
        releaser.release_to(2 * RELEASE_STEP as u64 + 7);
        assert_eq!(releaser.released, 2 * RELEASE_STEP);
        let after = resident_kb(map.as_ptr());
        assert!(after <= whole - 2 * 1024, "two steps handed back: {whole} kB, then {after} kB");
        releaser.release_to(RELEASE_STEP as u64);
        assert_eq!(releaser.released, 2 * RELEASE_STEP, "never goes back");
        releaser.release_to(u64::MAX);
        assert_eq!(releaser.released, 3 * RELEASE_STEP, "stops at the end of the map");
        assert_eq!(&map[..], &bytes[..], "released pages read back from the file");
    }
}
