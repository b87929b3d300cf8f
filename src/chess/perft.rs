//! Perft: count the leaf nodes of the legal-move tree to a fixed depth, the
//! standard correctness check of move generation. No printing here.

use super::moves::Move;
use super::position::{MoveList, Position};

/// The number of move sequences of exactly `depth` plies from `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            perft(&child, depth - 1)
        })
        .sum()
}

/// Perft split by first move: each legal move with the node count below it
/// (`depth - 1` plies after it), in move-generation order.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (m, perft(&child, depth.saturating_sub(1)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_small_depths() {
        let pos = Position::new();
        assert_eq!(perft(&pos, 0), 1);
        assert_eq!(perft(&pos, 1), 20);
        assert_eq!(perft(&pos, 2), 400);
        assert_eq!(perft(&pos, 3), 8902);
        assert_eq!(perft(&pos, 4), 197_281);
        assert_eq!(divide(&pos, 2).len(), 20);
        assert!(divide(&pos, 2).iter().all(|&(_, n)| n == 20));
    }
}
