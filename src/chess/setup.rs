//! [`Setup`]: the raw facts of a position as notations describe them. Public
//! fields, no promise of legality; [`Position::from_setup`](super::Position::from_setup)
//! is the only way from here to a playable position.

use std::num::NonZeroU32;

use super::bitboard::Bitboard;
use super::board::Board;
use super::types::{Color, Square};

/// An unchecked position: placement, side to move, castling rooks,
/// en-passant square and clocks, as read from a FEN or built by hand.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Setup {
    /// Piece placement.
    pub board: Board,
    /// The side to move.
    pub turn: Color,
    /// The rooks that still have castling rights, as squares on the back
    /// ranks (`A1`/`H1`/`A8`/`H8` in standard chess; any file in Chess960).
    pub castling_rights: Bitboard,
    /// The square passed over by a pawn that has just moved two squares, as
    /// written in a FEN (whether or not a capture there is possible).
    pub ep_square: Option<Square>,
    /// Plies since the last capture or pawn move.
    pub halfmoves: u32,
    /// The move number, starting at 1 and incremented after black moves.
    pub fullmoves: NonZeroU32,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup::standard()
    }
}

impl Setup {
    /// The standard starting position.
    pub const fn standard() -> Setup {
        Setup {
            board: Board::new(),
            turn: Color::White,
            castling_rights: Bitboard::CORNERS,
            ep_square: None,
            halfmoves: 0,
            fullmoves: NonZeroU32::MIN,
        }
    }

    /// A setup without pieces, white to move.
    pub const fn empty() -> Setup {
        Setup {
            board: Board::empty(),
            turn: Color::White,
            castling_rights: Bitboard::EMPTY,
            ep_square: None,
            halfmoves: 0,
            fullmoves: NonZeroU32::MIN,
        }
    }
}
