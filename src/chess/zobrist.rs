//! Polyglot Zobrist keys: the 64-bit position hash of the Polyglot opening
//! book format, which python-chess's `chess.polyglot.zobrist_hash` and most
//! chess databases share.
//!
//! The key is the XOR of one number per piece on its square, one per
//! castling right (white king side, white queen side, black king side,
//! black queen side), one for the en-passant file *only when a pawn of the
//! side to move stands beside the pawn that just moved two squares*, and one
//! when white is to move. [`Position`](super::Position) keeps its key up to
//! date incrementally in `play`; [`hash_from_scratch`] recomputes it and the
//! tests pin both to the published Polyglot vectors.

use super::bitboard::Bitboard;
use super::board::Board;
use super::moves::CastlingSide;
use super::polyglot_random::RANDOM;
use super::types::{Color, File, Piece, Square};

/// A Polyglot Zobrist key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Zobrist(pub u64);

impl Zobrist {
    /// The key as the signed integer SQLite stores (same bits).
    #[inline]
    pub const fn as_i64(self) -> i64 {
        self.0 as i64
    }
}

/// A hasher for keys that are uniform hashes already (Polyglot keys and
/// other 64-bit hashes): the key is its own hash, so a table of them costs
/// no hashing.
#[derive(Debug, Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// The [`std::hash::BuildHasher`] of [`KeyHasher`], for `HashMap`s and
/// `HashSet`s keyed by a hash.
pub type BuildKeyHasher = std::hash::BuildHasherDefault<KeyHasher>;

impl std::fmt::Display for Zobrist {
    /// Sixteen lower-case hex digits.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// The piece-square part of [`RANDOM`] reshaped as `[role][colour][square]`
/// (Polyglot orders kinds black pawn, white pawn, black knight, …), so that
/// lookups need no arithmetic or bounds check.
static PIECE_KEYS: [[[u64; 64]; 2]; 6] = {
    let mut keys = [[[0u64; 64]; 2]; 6];
    let mut role = 0;
    while role < 6 {
        let mut sq = 0;
        while sq < 64 {
            keys[role][Color::White as usize][sq] = RANDOM[64 * (2 * role + 1) + sq];
            keys[role][Color::Black as usize][sq] = RANDOM[64 * (2 * role) + sq];
            sq += 1;
        }
        role += 1;
    }
    keys
};

/// The number for `piece` on `sq`.
#[inline]
pub fn piece_key(piece: Piece, sq: Square) -> u64 {
    PIECE_KEYS[piece.role.index()][piece.color as usize][sq.index()]
}

/// The number for one castling right.
#[inline]
pub fn castling_key(color: Color, side: CastlingSide) -> u64 {
    let i = match (color, side) {
        (Color::White, CastlingSide::KingSide) => 0,
        (Color::White, CastlingSide::QueenSide) => 1,
        (Color::Black, CastlingSide::KingSide) => 2,
        (Color::Black, CastlingSide::QueenSide) => 3,
    };
    RANDOM[768 + i]
}

/// The number for an en-passant file.
#[inline]
pub fn ep_key(file: File) -> u64 {
    RANDOM[772 + file.index() as usize]
}

/// The number XOR-ed in when white is to move.
#[inline]
pub fn white_to_move_key() -> u64 {
    RANDOM[780]
}

/// The castling part of the key: one number per (colour, side) that has at
/// least one rook with castling rights on that side of its king.
pub fn castling_rights_key(board: &Board, rights: Bitboard) -> u64 {
    let mut key = 0;
    if rights.is_empty() {
        return key;
    }
    for color in Color::ALL {
        let ours = rights & Bitboard::from_rank(color.back_rank());
        let Some(king) = board.king_of(color) else { continue };
        let mut seen = [false; 2];
        for rook in ours {
            let side = CastlingSide::from_king_and_rook(king, rook);
            let i = side as usize;
            if !seen[i] {
                seen[i] = true;
                key ^= castling_key(color, side);
            }
        }
    }
    key
}

/// Computes the key of a position from its parts. `ep_square` must already
/// be reduced to Polyglot semantics (`None` unless a pawn of the side to move
/// can capture there, ignoring pins).
pub fn hash_from_scratch(
    board: &Board,
    turn: Color,
    rights: Bitboard,
    ep_square: Option<Square>,
) -> Zobrist {
    let mut key = 0;
    for (sq, piece) in board.pieces() {
        key ^= piece_key(piece, sq);
    }
    key ^= castling_rights_key(board, rights);
    if let Some(ep) = ep_square {
        key ^= ep_key(ep.file());
    }
    if turn.is_white() {
        key ^= white_to_move_key();
    }
    Zobrist(key)
}
