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
use std::path::Path;
use std::sync::mpsc::{self, SyncSender};
use std::thread::JoinHandle;

/// The background sync thread of one database file.
#[derive(Debug)]
pub struct Flusher {
    requests: Option<SyncSender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Flusher {
    /// Starts the thread for the database file at `path`; `None` if the
    /// file cannot be opened or the thread not started (the import then
    /// goes on without it).
    pub fn start(path: &Path) -> Option<Flusher> {
        let file = File::open(path).ok()?;
        // One pending request is enough: a sync writes every page written
        // before it starts.
        let (requests, pending) = mpsc::sync_channel::<()>(1);
        let thread = std::thread::Builder::new()
            .name("pgnindex-flush".into())
            .spawn(move || {
                while pending.recv().is_ok() {
                    let _ = file.sync_data();
                }
            })
            .ok()?;
        Some(Flusher { requests: Some(requests), thread: Some(thread) })
    }

    /// Asks for a sync of what has been written so far (after a commit);
    /// never waits.
    pub fn request(&self) {
        if let Some(requests) = &self.requests {
            // Full: a request is pending already.
            let _ = requests.try_send(());
        }
    }

    /// Stops the thread (after its running sync).
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        self.requests = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        self.shut_down();
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
        let flusher = Flusher::start(&path).unwrap();
        for _ in 0..20 {
            file.write_all(&[7; 4096]).unwrap();
            flusher.request();
        }
        flusher.stop();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 20 * 4096);
        assert!(Flusher::start(&dir.path().join("missing")).is_none());
    }
}
