//! Material: how many pawns, knights, bishops, rooks and queens each side
//! has (kings are always one each, and not counted).

use super::board::Board;
use super::types::{Color, Role};

/// The counted roles, in index order.
pub const COUNTED: [Role; 5] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

/// The material of a position: a count per colour and counted role,
/// White's first, pawn first ([`Material::index`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Material(pub [u8; 10]);

impl Material {
    /// The material of the standard start.
    pub const STANDARD: Material = Material([8, 2, 2, 2, 1, 8, 2, 2, 2, 1]);

    /// The slot of `color`'s `role` (not the king).
    #[inline]
    pub const fn index(color: Color, role: Role) -> usize {
        let side = match color {
            Color::White => 0,
            Color::Black => 5,
        };
        side + role as usize
    }

    /// The material on `board` (counts past 255 cannot occur: 64 squares).
    pub fn of(board: &Board) -> Material {
        let mut m = Material::default();
        for color in Color::ALL {
            for role in COUNTED {
                let n = (board.by_color(color) & board.by_role(role)).count();
                m.0[Material::index(color, role)] = n as u8;
            }
        }
        m
    }

    /// The number of `color`'s pieces of `role` (1 for the king).
    pub fn count(&self, color: Color, role: Role) -> u8 {
        if role == Role::King {
            return 1;
        }
        self.0[Material::index(color, role)]
    }

    /// The same material with the colours swapped.
    pub fn swapped(self) -> Material {
        let m = self.0;
        Material([m[5], m[6], m[7], m[8], m[9], m[0], m[1], m[2], m[3], m[4]])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    #[test]
    fn start_and_swap() {
        assert_eq!(Material::of(Position::new().board()), Material::STANDARD);
        let m = Material([1, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
        assert_eq!(m.swapped().swapped(), m);
        assert_eq!(m.swapped().count(Color::Black, Role::Pawn), 1);
        assert_eq!(m.count(Color::Black, Role::Rook), 1);
        assert_eq!(m.count(Color::Black, Role::King), 1);
    }
}
