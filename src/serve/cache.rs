//! Recent explorer answers, kept until the database changes: a page
//! going back and forth, and every walk from the start position, ask the
//! same questions again. The database's version is read from its files'
//! sizes and times (the main file and its write-ahead log): a commit
//! appends to the log, a checkpoint writes the main file, so either
//! changes the version. It is read before the answer's read transaction
//! starts, so an answer is never older than the version it is kept under.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// What identifies the database's state: (size, modified, identity) of the
/// main file and of its write-ahead log; the identity tells a file renamed
/// over the database from the one it replaced.
pub type Version = [(u64, Option<SystemTime>, FileId); 2];

/// A file's device and inode (zeros where the system has none): a file
/// renamed over a path has other ones than the file it replaced.
pub type FileId = (u64, u64);

/// The identity of the file `meta` describes.
pub fn file_id(meta: &std::fs::Metadata) -> FileId {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0, 0)
    }
}

/// Answers by request, for one version of the database.
#[derive(Debug)]
pub struct Cache {
    files: [PathBuf; 2],
    budget: usize,
    inner: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    version: Option<Version>,
    answers: HashMap<String, Arc<str>>,
    order: VecDeque<String>,
    bytes: usize,
}

impl Cache {
    /// A cache of at most `budget` bytes of answers for the database at
    /// `db`.
    pub fn new(db: &Path, budget: usize) -> Cache {
        let mut wal = db.as_os_str().to_owned();
        wal.push("-wal");
        Cache { files: [db.to_path_buf(), PathBuf::from(wal)], budget, inner: Mutex::default() }
    }

    /// The database's version now.
    pub fn version(&self) -> Version {
        self.files.clone().map(|f| match std::fs::metadata(f) {
            Ok(m) => (m.len(), m.modified().ok(), file_id(&m)),
            Err(_) => (0, None, (0, 0)),
        })
    }

    /// The answer kept for `key` at `version`, if any.
    pub fn get(&self, key: &str, version: &Version) -> Option<Arc<str>> {
        let inner = self.inner.lock().ok()?;
        if inner.version.as_ref() != Some(version) {
            return None;
        }
        inner.answers.get(key).cloned()
    }

    /// Keeps `answer` for `key` at `version`, dropping the oldest answers
    /// past the budget, and every answer of another version.
    pub fn put(&self, key: String, version: Version, answer: Arc<str>) {
        let Ok(mut inner) = self.inner.lock() else { return };
        if answer.len() > self.budget {
            return;
        }
        if inner.version != Some(version) {
            *inner = Entries { version: Some(version), ..Entries::default() };
        }
        if inner.answers.contains_key(&key) {
            return;
        }
        inner.bytes += answer.len() + key.len();
        inner.order.push_back(key.clone());
        inner.answers.insert(key, answer);
        while inner.bytes > self.budget {
            let Some(old) = inner.order.pop_front() else { break };
            if let Some(a) = inner.answers.remove(&old) {
                inner.bytes -= a.len() + old.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_last_until_the_files_change_and_within_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        std::fs::write(&db, b"one").unwrap();
        let cache = Cache::new(&db, 40);
        let v1 = cache.version();
        cache.put("a".into(), v1, Arc::from("0123456789"));
        assert_eq!(cache.get("a", &v1).as_deref(), Some("0123456789"));
        assert_eq!(cache.get("b", &v1), None);
        // A commit appends to the log.
        std::fs::write(dir.path().join("x.db-wal"), b"frames").unwrap();
        let v2 = cache.version();
        assert_ne!(v1, v2);
        assert_eq!(cache.get("a", &v2), None);
        cache.put("b".into(), v2, Arc::from("0123456789"));
        assert_eq!(cache.get("a", &v1), None, "another version's answers are dropped");
        // Past the budget, the oldest go first.
        for k in ["c", "d", "e"] {
            cache.put(k.into(), v2, Arc::from("0123456789"));
        }
        assert_eq!(cache.get("b", &v2), None);
        assert!(cache.get("e", &v2).is_some() && cache.get("d", &v2).is_some());
        cache.put("huge".into(), v2, Arc::from("x".repeat(41).as_str()));
        assert_eq!(cache.get("huge", &v2), None);
    }
}
