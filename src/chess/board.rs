//! Piece placement: which piece stands on which square. No side to move, no
//! rules; [`Board`] may hold any arrangement, including illegal ones.

use super::attacks;
use super::bitboard::Bitboard;
use super::types::{ByColor, ByRole, Color, Piece, Role, Square};

/// Piece placement as one bitboard per role and per colour.
///
/// Invariant kept by every method: the role boards are disjoint, the colour
/// boards are disjoint, and both unions equal `occupied`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    by_role: ByRole<Bitboard>,
    by_color: ByColor<Bitboard>,
    occupied: Bitboard,
}

impl Default for Board {
    fn default() -> Board {
        Board::new()
    }
}

impl Board {
    /// The standard starting placement.
    pub const fn new() -> Board {
        Board {
            by_role: ByRole([
                Bitboard(0x00ff_0000_0000_ff00),
                Bitboard(0x4200_0000_0000_0042),
                Bitboard(0x2400_0000_0000_0024),
                Bitboard(0x8100_0000_0000_0081),
                Bitboard(0x0800_0000_0000_0008),
                Bitboard(0x1000_0000_0000_0010),
            ]),
            by_color: ByColor { white: Bitboard(0xffff), black: Bitboard(0xffff_0000_0000_0000) },
            occupied: Bitboard(0xffff_0000_0000_ffff),
        }
    }

    /// A board without pieces.
    pub const fn empty() -> Board {
        Board {
            by_role: ByRole([Bitboard::EMPTY; 6]),
            by_color: ByColor { white: Bitboard::EMPTY, black: Bitboard::EMPTY },
            occupied: Bitboard::EMPTY,
        }
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.occupied
    }

    /// The squares of `color`'s pieces.
    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        *self.by_color.get(color)
    }

    /// The squares of pieces of `role`, both colours.
    #[inline]
    pub fn by_role(&self, role: Role) -> Bitboard {
        *self.by_role.get(role)
    }

    /// The squares of `piece`.
    #[inline]
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_color(piece.color) & self.by_role(piece.role)
    }

    /// Rooks and queens of both colours.
    #[inline]
    pub fn rooks_and_queens(&self) -> Bitboard {
        self.by_role(Role::Rook) | self.by_role(Role::Queen)
    }

    /// Bishops and queens of both colours.
    #[inline]
    pub fn bishops_and_queens(&self) -> Bitboard {
        self.by_role(Role::Bishop) | self.by_role(Role::Queen)
    }

    /// The square of `color`'s king, if exactly one.
    #[inline]
    pub fn king_of(&self, color: Color) -> Option<Square> {
        (self.by_role(Role::King) & self.by_color(color)).single_square()
    }

    /// The colour of the piece on `sq`.
    #[inline]
    pub fn color_at(&self, sq: Square) -> Option<Color> {
        if self.by_color.white.contains(sq) {
            Some(Color::White)
        } else if self.by_color.black.contains(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The role of the piece on `sq`.
    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        // Without a branch per role: the role boards are disjoint, so at
        // most one term is non-zero, and it is the role's index plus one.
        const ROLES: [Option<Role>; 8] = [
            None,
            Some(Role::Pawn),
            Some(Role::Knight),
            Some(Role::Bishop),
            Some(Role::Rook),
            Some(Role::Queen),
            Some(Role::King),
            None,
        ];
        let shift = sq.index();
        let mut code = 0;
        for (i, board) in self.by_role.0.iter().enumerate() {
            code |= ((board.0 >> shift) & 1) as usize * (i + 1);
        }
        ROLES[code & 7]
    }

    /// The piece on `sq`.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let role = self.role_at(sq)?;
        let color = self.color_at(sq)?;
        Some(Piece { color, role })
    }

    /// Puts `piece` on `sq`, replacing whatever stood there.
    pub fn set_piece_at(&mut self, sq: Square, piece: Piece) {
        self.discard_piece_at(sq);
        self.put_unchecked(sq, piece);
    }

    /// Removes and returns the piece on `sq`.
    pub fn remove_piece_at(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.piece_at(sq)?;
        self.toggle(sq, piece);
        Some(piece)
    }

    /// Removes the piece on `sq`, if any.
    pub fn discard_piece_at(&mut self, sq: Square) {
        let _ = self.remove_piece_at(sq);
    }

    /// Puts `piece` on the empty square `sq`.
    #[inline]
    pub(crate) fn put_unchecked(&mut self, sq: Square, piece: Piece) {
        debug_assert!(!self.occupied.contains(sq));
        self.toggle(sq, piece);
    }

    /// Flips `piece` on `sq` in all three boards (adds if absent, removes if
    /// present); callers guarantee the invariant.
    #[inline]
    pub(crate) fn toggle(&mut self, sq: Square, piece: Piece) {
        self.by_role.get_mut(piece.role).toggle(sq);
        self.by_color.get_mut(piece.color).toggle(sq);
        self.occupied.toggle(sq);
    }

    /// Pieces of `attacker` that attack `sq`, with `occupied` blocking
    /// sliders.
    #[inline]
    pub fn attacks_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        self.by_color(attacker)
            & ((attacks::rook_attacks(sq, occupied) & self.rooks_and_queens())
                | (attacks::bishop_attacks(sq, occupied) & self.bishops_and_queens())
                | (attacks::knight_attacks(sq) & self.by_role(Role::Knight))
                | (attacks::king_attacks(sq) & self.by_role(Role::King))
                | (attacks::pawn_attacks(attacker.other(), sq) & self.by_role(Role::Pawn)))
    }

    /// Every piece as `(square, piece)`, a1 first.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occupied.filter_map(move |sq| self.piece_at(sq).map(|p| (sq, p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_pieces() {
        let b = Board::new();
        assert_eq!(b.occupied().count(), 32);
        assert_eq!(b.piece_at(Square::E1), Some(Piece { color: Color::White, role: Role::King }));
        assert_eq!(b.piece_at(Square::D8), Some(Piece { color: Color::Black, role: Role::Queen }));
        assert_eq!(b.piece_at(Square::E4), None);
        assert_eq!(b.king_of(Color::Black), Some(Square::E8));
    }

    #[test]
    fn set_and_remove_keep_boards_consistent() {
        let mut b = Board::new();
        b.set_piece_at(Square::E2, Piece { color: Color::Black, role: Role::Knight });
        assert_eq!(
            b.remove_piece_at(Square::E2),
            Some(Piece { color: Color::Black, role: Role::Knight })
        );
        assert_eq!(b.occupied().count(), 31);
        assert_eq!(b.by_role(Role::Pawn).count(), 15);
        assert_eq!(b.by_color(Color::White).count(), 15);
    }

    #[test]
    fn attackers() {
        let b = Board::new();
        let att = b.attacks_to(Square::F3, Color::White, b.occupied());
        assert_eq!(att, Bitboard::from_square(Square::E2) | Square::G2 | Square::G1);
    }
}
