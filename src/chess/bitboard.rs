//! A set of squares packed in a `u64` (bit `i` is square `i`, a1 = bit 0).
//! Set operations and iteration only; nothing about pieces or rules.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

use super::types::{File, Rank, Square};

/// A set of squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// Every square.
    pub const FULL: Bitboard = Bitboard(!0);
    /// The light squares.
    pub const LIGHT: Bitboard = Bitboard(0x55aa_55aa_55aa_55aa);
    /// The dark squares.
    pub const DARK: Bitboard = Bitboard(0xaa55_aa55_aa55_aa55);
    /// Ranks 1 and 8.
    pub const BACKRANKS: Bitboard = Bitboard(0xff00_0000_0000_00ff);
    /// The four corners a1, h1, a8, h8.
    pub const CORNERS: Bitboard = Bitboard(0x8100_0000_0000_0081);

    /// The set holding only `sq`.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// Every square of `file`.
    #[inline]
    pub const fn from_file(file: File) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101 << file.index())
    }

    /// Every square of `rank`.
    #[inline]
    pub const fn from_rank(rank: Rank) -> Bitboard {
        Bitboard(0xff << (8 * rank.index()))
    }

    /// `true` if no square is in the set.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// `true` if at least one square is in the set.
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// `true` if `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    /// The number of squares.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// `true` if the set holds two or more squares.
    #[inline]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            // Safety: trailing_zeros of a non-zero u64 is below 64.
            Some(unsafe { Square::new_unchecked(self.0.trailing_zeros()) })
        }
    }

    /// The highest square, if any.
    #[inline]
    pub const fn last(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            // Safety: 63 - leading_zeros of a non-zero u64 is below 64.
            Some(unsafe { Square::new_unchecked(63 - self.0.leading_zeros()) })
        }
    }

    /// The only square, if the set holds exactly one.
    #[inline]
    pub const fn single_square(self) -> Option<Square> {
        if self.more_than_one() {
            None
        } else {
            self.first()
        }
    }

    /// The set with `sq` added.
    #[inline]
    #[must_use]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq.index())
    }

    /// The set with `sq` removed.
    #[inline]
    #[must_use]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.index()))
    }

    /// Adds `sq`.
    #[inline]
    pub fn add(&mut self, sq: Square) {
        self.0 |= 1 << sq.index();
    }

    /// Removes `sq`.
    #[inline]
    pub fn discard(&mut self, sq: Square) {
        self.0 &= !(1 << sq.index());
    }

    /// Toggles `sq`.
    #[inline]
    pub fn toggle(&mut self, sq: Square) {
        self.0 ^= 1 << sq.index();
    }

    /// Mirrors the board vertically (rank 1 ↔ rank 8).
    #[inline]
    #[must_use]
    pub const fn flip_vertical(self) -> Bitboard {
        Bitboard(self.0.swap_bytes())
    }

    /// Shifts every square one rank up (towards rank 8), dropping rank 8.
    #[inline]
    #[must_use]
    pub const fn shift_up(self) -> Bitboard {
        Bitboard(self.0 << 8)
    }

    /// Shifts every square one rank down (towards rank 1), dropping rank 1.
    #[inline]
    #[must_use]
    pub const fn shift_down(self) -> Bitboard {
        Bitboard(self.0 >> 8)
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        let sq = self.first()?;
        self.0 &= self.0 - 1;
        Some(sq)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl DoubleEndedIterator for Bitboard {
    #[inline]
    fn next_back(&mut self) -> Option<Square> {
        // `Bitboard::last`, not `Iterator::last` of `&mut Bitboard`.
        let sq = Bitboard::last(*self)?;
        self.discard(sq);
        Some(sq)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for sq in iter {
            bb.add(sq);
        }
        bb
    }
}

impl From<Square> for Bitboard {
    #[inline]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

macro_rules! bit_op {
    ($trait:ident, $fn:ident, $assign_trait:ident, $assign_fn:ident, $op:tt) => {
        impl<T: Into<Bitboard>> $trait<T> for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $fn(self, rhs: T) -> Bitboard {
                Bitboard(self.0 $op rhs.into().0)
            }
        }
        impl<T: Into<Bitboard>> $assign_trait<T> for Bitboard {
            #[inline]
            fn $assign_fn(&mut self, rhs: T) {
                self.0 = self.0 $op rhs.into().0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl<T: Into<Bitboard>> Sub<T> for Bitboard {
    type Output = Bitboard;
    /// Set difference.
    #[inline]
    fn sub(self, rhs: T) -> Bitboard {
        Bitboard(self.0 & !rhs.into().0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    /// Eight lines, rank 8 first, `1` for squares in the set.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in Rank::ALL.iter().rev() {
            for file in File::ALL {
                let sq = Square::from_coords(file, *rank);
                f.write_str(if self.contains(sq) { "1" } else { "." })?;
            }
            f.write_str("\n")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iteration_is_ascending_and_exact() {
        let bb = Bitboard::EMPTY.with(Square::H8).with(Square::A1).with(Square::E4);
        assert_eq!(bb.collect::<Vec<_>>(), vec![Square::A1, Square::E4, Square::H8]);
        assert_eq!(bb.rev().collect::<Vec<_>>(), vec![Square::H8, Square::E4, Square::A1]);
        assert_eq!(bb.len(), 3);
        assert!(bb.more_than_one());
        assert_eq!(Bitboard::from_square(Square::C3).single_square(), Some(Square::C3));
        assert_eq!(bb.single_square(), None);
    }

    #[test]
    fn files_and_ranks() {
        assert_eq!(Bitboard::from_file(File::A).count(), 8);
        assert!(Bitboard::from_file(File::H).contains(Square::H5));
        assert!(Bitboard::from_rank(Rank::Eighth).contains(Square::C8));
        assert_eq!(
            Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth),
            Bitboard::BACKRANKS
        );
        assert_eq!((Bitboard::LIGHT | Bitboard::DARK), Bitboard::FULL);
        assert!(Bitboard::DARK.contains(Square::A1));
    }
}
