//! [`Flusher`]: sends the database file's written pages to the disk on a
//! thread of its own while the import goes on.
//!
//! The import writes with `synchronous = OFF`: its pages stay in the
//! operating system's cache, and a system with memory to spare writes them
//! out only when they are 30 seconds old or at the sync that ends the
//! import. On the 1 GB bench input that final sync wrote the whole 1.5 GB
//! database while the processors stood idle (≈ 1.5 s, `vmstat`). Asked
//! after each commit, this thread syncs the file as the import goes, so
//! the disk works alongside the processors and the final sync finds
//! little left. A failure here is only a missed head start: the final
//! sync, which the writer checks, comes anyway.

use std::fs::File;
use std::sync::Arc;

use super::background::Background;
use crate::timings::{Span, Stage};

/// The background sync thread of one database file.
#[derive(Debug)]
pub struct Flusher(Background);

impl Flusher {
    /// Starts the thread for the database file open as `file`; `None` if
    /// the thread cannot be started (the import then goes on without it).
    ///
    /// The file is the writer's own handle, shared, never one opened here:
    /// closing any descriptor of the database file drops every POSIX lock
    /// this process holds on it, SQLite's included, and an exclusive
    /// import would go on writing with its lock gone.
    pub fn start(file: Arc<File>) -> Option<Flusher> {
        Background::start("pgnindex-flush", (Stage::Sync, Span::Syncing), move || {
            let _ = file.sync_data();
        })
        .map(Flusher)
    }

    /// Asks for a sync of what has been written so far (after a commit);
    /// never waits.
    pub fn request(&self) {
        self.0.request();
    }

    /// Stops the thread (after its running sync).
    pub fn stop(self) {
        self.0.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn syncs_on_request_and_stops() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut file = File::create(&path).unwrap();
        let flusher = Flusher::start(Arc::new(File::open(&path).unwrap())).unwrap();
        for _ in 0..20 {
            file.write_all(&[7; 4096]).unwrap();
            flusher.request();
        }
        flusher.stop();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 20 * 4096);
    }
}
