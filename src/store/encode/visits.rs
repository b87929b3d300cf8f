//! The explorer tree's part of one game ([`TreeVisits`]), found on the
//! workers from the game's position rows, so that the writer only adds
//! them up: each position at its first occurrence, sorted by what the tree
//! does with it, and the game's counts, read once from its header, and
//! its deep positions as the writer last committed them ([`DeepKeys`]).
//! `store::tree` decides what depends on the batch: which positions
//! become deep, and what a worker found in a set it has since replaced.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::rows::PositionRow;
use crate::chess::zobrist::BuildKeyHasher;
use crate::chess::Color;
use crate::db::Header;
use crate::store::format::explorer::{is_masters, mover_at, Counts, State, DEEP_PLY, ENDED};

/// What of a database's tree decides which visits of a game it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeShape {
    max_ply: u32,
    late_reach: u32,
    /// `explorer_late` lists the late visits of positions of small reach.
    late: bool,
    /// The tree has deep positions ([`State::deep_games`]).
    deep: bool,
}

impl TreeShape {
    /// The shape of a tree in `state`.
    pub fn of(state: &State) -> TreeShape {
        TreeShape {
            max_ply: state.max_ply,
            late_reach: state.late_reach,
            late: state.late_listed_from().is_some(),
            deep: state.deep_games().is_some(),
        }
    }

    /// `explorer_late` lists the late visits of positions of at most this
    /// reach.
    pub fn late_reach(&self) -> u32 {
        self.late_reach
    }
}

/// A position at its first occurrence in a game: its key and the
/// `explorer_tree.next_move` of the move played from it.
pub type Visit = (i64, i64);

/// A game's first occurrences of positions, as the tree of a
/// [`TreeShape`] takes them, in ply order within each list. The rest, the
/// positions past [`DEEP_PLY`] that may be deep, are looked up in the
/// writer's set of deep positions ([`TreeVisits::find_deep`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeVisits {
    /// The game's own counts (one game), added to each row it counts in:
    /// by the side to move there (White's rating where White moves).
    pub counts: [Counts; 2],
    /// Within the tree's plies: counted, with the side to move.
    pub tree: Vec<(Visit, Color)>,
    /// Of those, the first past the plies `explorer_late` lists by reach,
    /// in a tree with deep positions (as deep, their late games are listed
    /// too); `tree.len()` otherwise.
    pub tree_late: usize,
    /// Past the tree's plies to [`DEEP_PLY`], in a tree with deep
    /// positions, with the side to move, and whether `explorer_late` lists
    /// the position by its reach.
    pub near: Vec<(Visit, Color, bool)>,
    /// Past those, the positions `explorer_late` lists by their reach.
    pub listed: Vec<Visit>,
    /// In a tree with deep positions, the index of the first position row
    /// past [`DEEP_PLY`].
    pub far_from: Option<usize>,
    /// The game is a masters game ([`is_masters`]): its rows count in
    /// `explorer_masters` too.
    pub masters: bool,
    /// Its deep positions as a worker found them in the writer's set
    /// ([`TreeVisits::find_deep`]).
    pub deep: Option<DeepFound>,
}

/// A game's deep positions found in one version of the writer's set of
/// deep positions ([`DeepKeys`]): the writer takes them if its set is
/// still that version, and looks them up itself otherwise.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeepFound {
    /// The version of the set looked in.
    pub version: u64,
    /// For each of [`TreeVisits::near`], whether it is deep.
    pub near: Vec<bool>,
    /// Past [`DEEP_PLY`], the deep positions at their first occurrence
    /// that `explorer_late` does not list by their reach, in ply order.
    pub far: Vec<Visit>,
}

/// The deep positions a tree held at one commit, under a version of its
/// own.
#[derive(Debug, Default)]
pub struct DeepKeys {
    version: u64,
    keys: HashSet<i64, BuildKeyHasher>,
    /// A bit per few keys' worth of key space, set where a key of `keys`
    /// falls: most positions of a game past [`DEEP_PLY`] are no deep
    /// position, and a bit tells them apart before a look-up in `keys`.
    seen: KeyBits,
}

impl DeepKeys {
    /// The set of `keys`, under a version no other set of the process has.
    pub fn new(keys: HashSet<i64, BuildKeyHasher>) -> DeepKeys {
        // From 1: a default set (version 0) is no set a worker looked in.
        static VERSIONS: AtomicU64 = AtomicU64::new(1);
        let version = VERSIONS.fetch_add(1, Ordering::Relaxed);
        DeepKeys { version, seen: KeyBits::of(&keys), keys }
    }

    /// The set's version.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// `true` if `key` is a deep position.
    pub fn holds(&self, key: i64) -> bool {
        self.seen.may_hold(key) && self.keys.contains(&key)
    }

    /// The deep positions.
    pub fn keys(&self) -> &HashSet<i64, BuildKeyHasher> {
        &self.keys
    }
}

/// The writer's last committed set of deep positions, read by the workers.
#[derive(Debug, Default)]
pub struct SharedDeep(Mutex<Arc<DeepKeys>>);

impl SharedDeep {
    /// The set last published.
    pub fn get(&self) -> Arc<DeepKeys> {
        Arc::clone(&self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Publishes `keys`.
    pub fn set(&self, keys: Arc<DeepKeys>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = keys;
    }
}

/// A set of bits that holds at least one bit set for each key of a set:
/// a key whose bit is clear is not in the set.
#[derive(Debug, Default)]
struct KeyBits {
    words: Vec<u64>,
}

impl KeyBits {
    /// The bits of `keys`: about 32 bits a key, so that about one key in
    /// 32 that is not in the set finds its bit set.
    fn of(keys: &HashSet<i64, BuildKeyHasher>) -> KeyBits {
        let words = (keys.len() / 2).next_power_of_two().max(16);
        let mut bits = KeyBits { words: vec![0; words] };
        for &key in keys {
            let (word, bit) = bits.place(key);
            bits.words[word] |= bit;
        }
        bits
    }

    /// The word and bit of `key` (Polyglot keys are uniform in their bits).
    fn place(&self, key: i64) -> (usize, u64) {
        let key = key as u64;
        ((key >> 6) as usize & (self.words.len() - 1), 1 << (key & 63))
    }

    /// `false` if `key` is in no set these bits were made of.
    fn may_hold(&self, key: i64) -> bool {
        if self.words.is_empty() {
            return true;
        }
        let (word, bit) = self.place(key);
        self.words[word] & bit != 0
    }
}

impl TreeVisits {
    /// The visits of the game of `header` and `positions` (its position
    /// rows, in ply order), `first` the side to move at its ply 0.
    pub fn of(
        positions: &[PositionRow],
        header: &Header,
        first: Color,
        shape: TreeShape,
    ) -> TreeVisits {
        let counts = [header.white_elo, header.black_elo].map(|elo| {
            let mut counts = Counts::default();
            counts.add_game(header.result.as_deref(), elo, header.date.as_deref());
            counts
        });
        let masters = is_masters(
            header.white_elo,
            header.black_elo,
            header.site.as_deref(),
            header.event.as_deref(),
        );
        let mut visits = TreeVisits { counts, masters, ..TreeVisits::default() };
        let past = positions.iter().take_while(|p| p.ply <= shape.max_ply).count();
        let near_end = match shape.deep {
            true => past + positions[past..].iter().take_while(|p| p.ply <= DEEP_PLY).count(),
            false => past,
        };
        let listed = |p: &PositionRow| u32::from(p.reach) <= shape.late_reach;
        let mut seen = KeySet::for_rows(near_end);
        for (i, p) in positions[..near_end].iter().enumerate() {
            if !seen.insert(p.hash) {
                continue;
            }
            if i < past {
                if !(shape.deep && p.ply > shape.late_reach) {
                    visits.tree_late += 1;
                }
                visits.tree.push((visit(p), mover_at(first, p.ply)));
            } else {
                visits.near.push((visit(p), mover_at(first, p.ply), listed(p)));
            }
        }
        if shape.late {
            for (i, p) in positions.iter().enumerate().skip(near_end) {
                // Few positions are listed: only theirs are looked for
                // before them.
                if listed(p) && is_first(positions, i) {
                    visits.listed.push(visit(p));
                }
            }
        }
        visits.far_from = shape.deep.then_some(near_end);
        visits
    }

    /// The game's deep positions in `deep` ([`TreeVisits::deep`]), its
    /// position rows `positions` and the tree's `shape` as for
    /// [`TreeVisits::of`]: looked up on a worker, where the writer would
    /// look them up one game after the other.
    pub fn find_deep(&mut self, positions: &[PositionRow], deep: &DeepKeys, shape: TreeShape) {
        let near = self.near.iter().map(|&(key, _, _)| deep.holds(key.0)).collect();
        let far = self.far_deep(positions, deep, shape).collect();
        self.deep = Some(DeepFound { version: deep.version, near, far });
    }

    /// Past [`DEEP_PLY`], the positions of `positions` deep in `deep` at
    /// their first occurrence that `explorer_late` does not list by their
    /// reach ([`DeepFound::far`]).
    pub fn far_deep<'a>(
        &self,
        positions: &'a [PositionRow],
        deep: &'a DeepKeys,
        shape: TreeShape,
    ) -> impl Iterator<Item = Visit> + 'a {
        let from = self.far_from.filter(|_| !deep.keys.is_empty()).unwrap_or(positions.len());
        positions.iter().enumerate().skip(from).filter_map(move |(i, p)| {
            let listed = u32::from(p.reach) <= shape.late_reach;
            (!listed && deep.holds(p.hash) && is_first(positions, i)).then(|| visit(p))
        })
    }
}

/// The keys of a game's rows seen so far (open addressing, linear
/// probing): a look-up a row, where a scan of the rows before cost as
/// many comparisons as there were rows.
struct KeySet {
    slots: Vec<Option<i64>>,
}

impl KeySet {
    /// An empty set with room for the keys of `rows` rows.
    fn for_rows(rows: usize) -> KeySet {
        KeySet { slots: vec![None; (2 * rows).next_power_of_two().max(16)] }
    }

    /// Adds `key`; `false` if the set held it.
    fn insert(&mut self, key: i64) -> bool {
        let mask = self.slots.len() - 1;
        // Polyglot keys are uniform: their low bits place them.
        let mut i = key as usize & mask;
        loop {
            match self.slots[i] {
                None => {
                    self.slots[i] = Some(key);
                    return true;
                }
                Some(held) if held == key => return false,
                Some(_) => i = (i + 1) & mask,
            }
        }
    }
}

/// The tree's part of the games of one chunk summed on the worker that
/// read it, so that the writer adds a chunk's few hundred distinct rows
/// instead of every game's visits: the sums of [`TreeVisits::tree`] by
/// visit, and the games of each position of its late part.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkTree {
    /// Each visit within the tree's plies and the counts of its games.
    pub rows: Vec<(Visit, Counts)>,
    /// The same, of the masters games only.
    pub masters: Vec<(Visit, Counts)>,
    /// Each position of the visits past [`TreeVisits::tree_late`] and its
    /// games.
    pub late: Vec<(i64, u32)>,
    /// The games summed.
    pub games: usize,
}

impl ChunkTree {
    /// The sums of `visits`, a chunk's games' own.
    pub fn of<'v>(visits: impl IntoIterator<Item = &'v TreeVisits>) -> ChunkTree {
        type Fixed = foldhash::fast::FixedState;
        let mut rows: HashMap<Visit, Counts, Fixed> = HashMap::default();
        let mut masters: HashMap<Visit, Counts, Fixed> = HashMap::default();
        let mut late: HashMap<i64, u32, Fixed> = HashMap::default();
        let mut games = 0;
        for v in visits {
            games += 1;
            for &(key, mover) in &v.tree {
                rows.entry(key).or_default().merge(&v.counts[mover as usize]);
                if v.masters {
                    masters.entry(key).or_default().merge(&v.counts[mover as usize]);
                }
            }
            for &((hash, _), _) in &v.tree[v.tree_late..] {
                *late.entry(hash).or_default() += 1;
            }
        }
        ChunkTree {
            rows: rows.into_iter().collect(),
            masters: masters.into_iter().collect(),
            late: late.into_iter().collect(),
            games,
        }
    }
}

/// The visit of the position of `p`.
pub fn visit(p: &PositionRow) -> Visit {
    (p.hash, p.next_move.map_or(ENDED, i64::from))
}

/// `true` if row `i` of `positions` is its position's first occurrence.
pub fn is_first(positions: &[PositionRow], i: usize) -> bool {
    !positions[..i].iter().any(|q| q.hash == positions[i].hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_set_tells_keys_apart_whose_low_bits_collide() {
        let mut set = KeySet::for_rows(3);
        let keys = [0, 16, -16, 1 << 40, i64::MIN, 5];
        for key in keys {
            assert!(set.insert(key), "{key} is new");
        }
        for key in keys {
            assert!(!set.insert(key), "{key} was seen");
        }
        assert!(set.insert(32));
    }

    #[test]
    fn the_bits_of_a_set_of_keys_hold_each_key_and_few_others() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as i64
        };
        let keys: HashSet<i64, BuildKeyHasher> = (0..3000).map(|_| next()).collect();
        let bits = KeyBits::of(&keys);
        assert!(keys.iter().all(|&k| bits.may_hold(k)));
        let others = (0..100_000).map(|_| next()).filter(|&k| bits.may_hold(k)).count();
        assert!(others < 5000, "{others} of 100,000 other keys");
        assert!(KeyBits::default().may_hold(next()));
    }
}
