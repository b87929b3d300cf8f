//! [`SharedIds`]: a dictionary's committed ids (texts and tag names), kept
//! by the writer and read by the workers, which encode a game's records
//! with the ids of the texts they find ([`super::records`]) and leave the
//! others to the writer.
//!
//! An id, once there, is what the writer gives the same text (a tag name
//! once inserted, a text once the chunk that met it is stored:
//! [`crate::store::tag_names`], [`crate::store::texts`]), so a record
//! encoded with it is the record the writer would encode, whichever thread
//! encodes it.

use std::collections::HashMap;
use std::sync::{RwLock, RwLockReadGuard};

/// The map of a dictionary, hashed with foldhash (SipHash, the standard
/// map's, costs more than the rest of a lookup).
pub type IdMap = HashMap<String, i64, foldhash::fast::RandomState>;

/// A dictionary's ids, behind a lock the writer takes to add texts and the
/// workers to read them.
#[derive(Debug, Default)]
pub struct SharedIds {
    map: RwLock<IdMap>,
}

impl SharedIds {
    /// The ids of `map`.
    pub fn new(map: IdMap) -> SharedIds {
        SharedIds { map: RwLock::new(map) }
    }

    /// The map, read.
    pub fn read(&self) -> RwLockReadGuard<'_, IdMap> {
        // A panic while holding the lock leaves the map whole: inserts of
        // owned strings only.
        self.map.read().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The id of `text`.
    pub fn get(&self, text: &str) -> Option<i64> {
        self.read().get(text).copied()
    }

    /// Texts held.
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// `true` if no text is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds texts and their ids.
    pub fn extend(&self, ids: impl IntoIterator<Item = (String, i64)>) {
        let mut map = self.map.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        map.extend(ids);
    }

    /// Takes texts out.
    pub fn remove(&self, texts: impl IntoIterator<Item = String>) {
        let mut map = self.map.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        for text in texts {
            map.remove(&text);
        }
    }
}
