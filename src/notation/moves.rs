//! A game's moves as text, in either notation a movetext may be written in:
//! SAN ([`super::san`], in one language's piece letters) or English
//! descriptive notation ([`super::descriptive`]). [`Notation`] says which,
//! [`MoveError`] why a move text failed in it.
//!
//! This module stands above the two notations: it uses both, and neither
//! uses it.

use super::descriptive::DescriptiveError;
use super::lang::Lang;
use super::san::MoveTextError;

/// The notation a game's moves are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Notation {
    /// SAN with this language's piece letters (figurines in any).
    San(Lang),
    /// English descriptive notation (`P-K4`, `Kt-KB3`), read from the
    /// movetext as written: a move may span several of SAN's tokens.
    Descriptive,
}

impl std::str::FromStr for Notation {
    type Err = String;
    /// A language's name or its first two letters (`english`, `fr`, …) for
    /// SAN, or `descriptive`: the values of `--lang`.
    fn from_str(s: &str) -> Result<Notation, String> {
        if s.eq_ignore_ascii_case("descriptive") {
            return Ok(Notation::Descriptive);
        }
        s.parse().map(Notation::San).map_err(|_| {
            format!(
                "unknown piece-letter language '{s}' (english, french, german, dutch, spanish, italian, descriptive)"
            )
        })
    }
}

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
    fn notations_by_name() {
        assert_eq!("descriptive".parse(), Ok(Notation::Descriptive));
        assert_eq!("Descriptive".parse(), Ok(Notation::Descriptive));
        assert_eq!("english".parse(), Ok(Notation::San(Lang::English)));
        assert_eq!("fr".parse(), Ok(Notation::San(Lang::French)));
        assert_eq!("Italian".parse(), Ok(Notation::San(Lang::Italian)));
        let error = "de".parse::<Notation>().unwrap_err();
        assert!(error.ends_with("(english, french, german, dutch, spanish, italian, descriptive)"));
    }

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
