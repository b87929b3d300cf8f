//! A game's moves as text, in either notation a movetext may be written in:
//! SAN ([`super::san`]) or English descriptive notation
//! ([`super::descriptive`]). [`MoveError`] is why a move text failed, in
//! the notation it was read in.
//!
//! This module stands above the two notations: it uses both, and neither
//! uses it.

use super::descriptive::DescriptiveError;
use super::san::MoveTextError;

/// Why a move text failed, in the notation it was read in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// A SAN move, unreadable or unplayable.
    #[error(transparent)]
    San(#[from] MoveTextError),
    /// A descriptive move, unreadable or unplayable.
    #[error(transparent)]
    Descriptive(#[from] DescriptiveError),
}

impl MoveError {
    /// What is wrong, without the move's text: `illegal move: …`,
    /// `ambiguous move: could be …` or `not a move: …`, for messages that
    /// name the move by its number ([`super::san::numbered`]).
    pub fn reason(&self) -> String {
        match self {
            MoveError::San(e) => e.reason(),
            MoveError::Descriptive(e) => e.reason(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;
    use crate::notation::descriptive;
    use crate::notation::lang::Lang;
    use crate::notation::san;

    #[test]
    fn a_move_error_reads_as_its_notation_s_own() {
        let pos = Position::new();
        let san = san::parse_move(&pos, b"Ke2", Lang::English).unwrap_err();
        let desc = descriptive::parse_move(&pos, b"K-K2").unwrap_err();
        let cases = [
            (MoveError::from(san.clone()), san.reason(), san.to_string()),
            (MoveError::from(desc.clone()), desc.reason(), desc.to_string()),
        ];
        for (error, reason, text) in cases {
            assert!(reason.starts_with("illegal move: "), "{reason}");
            assert_eq!(error.reason(), reason);
            assert_eq!(error.to_string(), text);
        }
    }
}
