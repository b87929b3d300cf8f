//! The explorer tree's part of one game ([`TreeVisits`]), found on the
//! workers from the game's position rows, so that the writer only adds
//! them up: each position at its first occurrence, sorted by what the tree
//! does with it, and the game's counts, read once from its header.
//! `store::tree` decides what depends on the batch (the deep positions).

use std::collections::HashSet;

use super::rows::PositionRow;
use crate::chess::zobrist::BuildKeyHasher;
use crate::db::Header;
use crate::store::format::explorer::{Counts, State, DEEP_PLY, ENDED};

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

    /// `explorer_late` lists late visits.
    pub fn late(&self) -> bool {
        self.late
    }
}

/// A position at its first occurrence in a game: its key and the
/// `explorer_tree.next_move` of the move played from it.
pub type Visit = (i64, i64);

/// A game's first occurrences of positions, as the tree of a
/// [`TreeShape`] takes them, in ply order within each list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeVisits {
    /// The game's own counts (one game), added to each row it counts in.
    pub counts: Counts,
    /// Within the tree's plies: counted.
    pub tree: Vec<Visit>,
    /// Of those, the first past the plies `explorer_late` lists by reach,
    /// in a tree with deep positions (as deep, their late games are listed
    /// too); `tree.len()` otherwise.
    pub tree_late: usize,
    /// Past the tree's plies to [`DEEP_PLY`], in a tree with deep
    /// positions, and whether `explorer_late` lists the position by its
    /// reach.
    pub near: Vec<(Visit, bool)>,
    /// Past those, the positions `explorer_late` lists by their reach.
    pub listed: Vec<Visit>,
    /// Past [`DEEP_PLY`], in a tree with deep positions, the others: late
    /// visits if deep.
    pub far: Vec<Visit>,
}

impl TreeVisits {
    /// The visits of the game of `header` and `positions` (its position
    /// rows, in ply order).
    pub fn of(positions: &[PositionRow], header: &Header, shape: TreeShape) -> TreeVisits {
        let mut counts = Counts::default();
        counts.add_game(
            header.result.as_deref(),
            [header.white_elo, header.black_elo],
            header.date.as_deref(),
        );
        let mut visits = TreeVisits { counts, ..TreeVisits::default() };
        let visit = |p: &PositionRow| (p.hash, p.next_move.map_or(ENDED, i64::from));
        let past = positions.iter().take_while(|p| p.ply <= shape.max_ply).count();
        let taken = if shape.late { positions.len() } else { past };
        let mut seen: HashSet<i64, BuildKeyHasher> =
            HashSet::with_capacity_and_hasher(taken, BuildKeyHasher::default());
        for (i, p) in positions[..taken].iter().enumerate() {
            if !seen.insert(p.hash) {
                continue;
            }
            let listed = u32::from(p.reach) <= shape.late_reach;
            if i < past {
                if !(shape.deep && p.ply > shape.late_reach) {
                    visits.tree_late += 1;
                }
                visits.tree.push(visit(p));
            } else if shape.deep && p.ply <= DEEP_PLY {
                visits.near.push((visit(p), listed));
            } else if listed {
                visits.listed.push(visit(p));
            } else if shape.deep {
                visits.far.push(visit(p));
            }
        }
        visits
    }
}
