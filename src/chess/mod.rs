//! The chess engine: vocabulary types, bitboards, attack tables, positions
//! with legal move generation, Polyglot Zobrist keys and perft. Pure: no
//! I/O, no text, no allocation in the hot paths.

pub mod attacks;
pub mod bitboard;
pub mod board;
pub mod material;
pub mod moves;
pub mod perft;
mod polyglot_random;
pub mod position;
pub mod reach;
pub mod setup;
pub mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use board::Board;
pub use material::Material;
pub use moves::{CastlingSide, Move};
pub use position::{IllegalMoveError, MoveList, Outcome, Position, PositionError};
pub use setup::Setup;
pub use types::{ByColor, ByRole, Color, File, Piece, Rank, Role, Square};
pub use zobrist::Zobrist;
