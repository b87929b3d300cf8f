//! Moves as played on a [`Position`](super::Position): the kinds of move are
//! distinct variants, and castling is stored as king square + rook square so
//! that Chess960 needs no special case.

use super::types::{Color, File, Role, Square};

/// The side of the board a castling move goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    /// Towards the h-file (`O-O`).
    KingSide,
    /// Towards the a-file (`O-O-O`).
    QueenSide,
}

impl CastlingSide {
    /// Both sides, king side first.
    pub const ALL: [CastlingSide; 2] = [CastlingSide::KingSide, CastlingSide::QueenSide];

    /// The file the king ends on (g or c).
    pub const fn king_to_file(self) -> File {
        match self {
            CastlingSide::KingSide => File::G,
            CastlingSide::QueenSide => File::C,
        }
    }

    /// The file the rook ends on (f or d).
    pub const fn rook_to_file(self) -> File {
        match self {
            CastlingSide::KingSide => File::F,
            CastlingSide::QueenSide => File::D,
        }
    }

    /// The square the king of `color` ends on.
    pub const fn king_to(self, color: Color) -> Square {
        Square::from_coords(self.king_to_file(), color.back_rank())
    }

    /// The square the rook of `color` ends on.
    pub const fn rook_to(self, color: Color) -> Square {
        Square::from_coords(self.rook_to_file(), color.back_rank())
    }

    /// The side of a rook on `rook` relative to a king on `king` (same rank).
    pub fn from_king_and_rook(king: Square, rook: Square) -> CastlingSide {
        if rook.file() > king.file() {
            CastlingSide::KingSide
        } else {
            CastlingSide::QueenSide
        }
    }
}

/// A move of chess.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// Any move that is not en passant or castling: a piece goes from `from`
    /// to `to`, maybe capturing, maybe promoting (pawns reaching the last
    /// rank).
    Normal {
        /// The moving piece.
        role: Role,
        /// Its origin.
        from: Square,
        /// The captured piece, if any.
        capture: Option<Role>,
        /// Its destination.
        to: Square,
        /// The piece a pawn becomes on the last rank.
        promotion: Option<Role>,
    },
    /// A pawn capturing en passant: `to` is the empty square passed over.
    EnPassant {
        /// The capturing pawn's origin.
        from: Square,
        /// The square it lands on.
        to: Square,
    },
    /// Castling, stored as the king's and the rook's origin squares.
    Castle {
        /// The king's origin.
        king: Square,
        /// The castling rook's origin.
        rook: Square,
    },
}

impl Move {
    /// The moving piece (the king for castling).
    #[inline]
    pub const fn role(self) -> Role {
        match self {
            Move::Normal { role, .. } => role,
            Move::EnPassant { .. } => Role::Pawn,
            Move::Castle { .. } => Role::King,
        }
    }

    /// The origin square (the king's for castling).
    #[inline]
    pub const fn from(self) -> Square {
        match self {
            Move::Normal { from, .. } | Move::EnPassant { from, .. } => from,
            Move::Castle { king, .. } => king,
        }
    }

    /// The destination square: for castling, the square the king ends on.
    #[inline]
    pub fn to(self) -> Square {
        match self {
            Move::Normal { to, .. } | Move::EnPassant { to, .. } => to,
            Move::Castle { king, rook } => {
                let file = CastlingSide::from_king_and_rook(king, rook).king_to_file();
                Square::from_coords(file, king.rank())
            }
        }
    }

    /// The captured role, if any (a pawn for en passant).
    #[inline]
    pub const fn capture(self) -> Option<Role> {
        match self {
            Move::Normal { capture, .. } => capture,
            Move::EnPassant { .. } => Some(Role::Pawn),
            Move::Castle { .. } => None,
        }
    }

    /// `true` for captures, en passant included.
    #[inline]
    pub const fn is_capture(self) -> bool {
        self.capture().is_some()
    }

    /// The promotion role, if any.
    #[inline]
    pub const fn promotion(self) -> Option<Role> {
        match self {
            Move::Normal { promotion, .. } => promotion,
            _ => None,
        }
    }

    /// The castling side, for castling moves.
    #[inline]
    pub fn castling_side(self) -> Option<CastlingSide> {
        match self {
            Move::Castle { king, rook } => Some(CastlingSide::from_king_and_rook(king, rook)),
            _ => None,
        }
    }

    /// `true` if the move resets the halfmove clock (capture or pawn move).
    #[inline]
    pub const fn is_zeroing(self) -> bool {
        matches!(self.role(), Role::Pawn) || self.is_capture()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_stays_compact() {
        assert!(std::mem::size_of::<Move>() <= 8);
    }

    #[test]
    fn castling_destination() {
        let m = Move::Castle { king: Square::E1, rook: Square::H1 };
        assert_eq!(m.to(), Square::G1);
        assert_eq!(m.castling_side(), Some(CastlingSide::KingSide));
        let m = Move::Castle { king: Square::B8, rook: Square::A8 };
        assert_eq!(m.to(), Square::C8);
        assert_eq!(m.castling_side(), Some(CastlingSide::QueenSide));
    }
}
