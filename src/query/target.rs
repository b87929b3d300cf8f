//! The position a query is about: [`Target`], read from a FEN, an EPD line
//! or a list of moves, with the Polyglot key that finds it in
//! `positions.hash` and the identity test that confirms a hit.
//!
//! Accepted:
//! - `--fen`: a full FEN or its first four fields (the clocks may be left
//!   out and are then `0 1`; fewer fields are an error naming the missing
//!   ones), X-FEN and Shredder-FEN castling;
//! - `--epd`: an EPD line (four fields, operations ignored);
//! - `--moves`: SAN in every dialect the core reads (languages, figurines,
//!   long algebraic, UCI), move numbers (`1.`, `1...`, `12.e4`, `1`), NAGs and
//!   a result token allowed and ignored; the piece-letter language is
//!   detected for the whole list, as for a game, and a list that SAN cannot
//!   read is read as English descriptive notation (`P-K4 P-K4 N-KB3`). From
//!   the standard start, or from `--from-fen` (read as `--fen`).

use crate::chess::{Move, Position};
use crate::notation::epd::Epd;
use crate::notation::fen::{self, FenError};
use crate::notation::moves::MoveError;
use crate::notation::san;
use crate::notation::uci::Uci;
use crate::replay::descriptive;

/// Why a position argument could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// `--fen` is not a legal position.
    #[error("--fen: {0}")]
    Fen(FenError),
    /// `--from-fen` is not a legal position.
    #[error("--from-fen: {0}")]
    FromFen(FenError),
    /// `--epd` is not a legal position.
    #[error("--epd: {0}")]
    Epd(String),
    /// `--moves` has no move.
    #[error("--moves: no move given")]
    NoMoves,
    /// A null move in a line that is played on a board
    /// ([`Target::line`]).
    #[error("--moves: {0}: a null move is no move of a line")]
    NullMove(String),
    /// A move of `--moves` cannot be read or played.
    #[error("--moves: {numbered}: {} in {fen}", error.reason())]
    Move {
        /// 0-based index of the move in the list (move numbers not
        /// counted).
        index: usize,
        /// The move as written with its chess move number (`2. Nf6`,
        /// `2... Nf6`), counted from the start position's fullmove number.
        numbered: String,
        /// What is wrong with it.
        error: MoveError,
        /// The position it was tried in.
        fen: String,
    },
}

/// A searched position and its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The position.
    pub position: Position,
    /// Its Polyglot key as SQLite's signed INTEGER (`positions.hash`).
    pub key: i64,
    /// The last move of `--moves` ([`Uci::Null`] for a null move); `None`
    /// for a FEN or an EPD line.
    pub last_move: Option<Uci>,
}

impl Target {
    /// The target of a position.
    pub fn from_position(position: Position) -> Target {
        let key = position.zobrist().as_i64();
        Target { position, key, last_move: None }
    }

    /// Reads `--fen`.
    ///
    /// # Errors
    /// [`TargetError::Fen`] for unreadable text or an illegal position.
    pub fn from_fen(text: &str) -> Result<Target, TargetError> {
        fen::parse_position_strict(text.trim()).map(Target::from_position).map_err(TargetError::Fen)
    }

    /// Reads `--epd` (operations are allowed and ignored).
    ///
    /// # Errors
    /// [`TargetError::Epd`] for unreadable text or an illegal position.
    pub fn from_epd(text: &str) -> Result<Target, TargetError> {
        let epd =
            Epd::from_ascii(text.trim().as_bytes()).map_err(|e| TargetError::Epd(e.to_string()))?;
        let position =
            epd.position().map_err(|e| TargetError::Epd(format!("illegal position: {e}")))?;
        Ok(Target::from_position(position))
    }

    /// Reads `--moves`, played from `from_fen` or the standard start.
    ///
    /// # Errors
    /// [`TargetError::FromFen`] for a bad start, [`TargetError::NoMoves`]
    /// for an empty list, [`TargetError::Move`] naming the first move that
    /// cannot be played (as read in English, or in descriptive notation if
    /// that reads more moves).
    ///
    /// ```
    /// use pgnindex::query::target::Target;
    /// let a = Target::from_moves("1. e4 c5 2. Nf3", None)?;
    /// let b = Target::from_moves("g1f3 c7c5 e2e4", None)?;
    /// assert_eq!(a.key, b.key, "a transposition is the same position");
    /// # Ok::<_, pgnindex::query::target::TargetError>(())
    /// ```
    pub fn from_moves(text: &str, from_fen: Option<&str>) -> Result<Target, TargetError> {
        let start = match from_fen {
            Some(f) => fen::parse_position_strict(f.trim()).map_err(TargetError::FromFen)?,
            None => Position::new(),
        };
        let tokens = move_tokens(text);
        if tokens.is_empty() {
            return Err(TargetError::NoMoves);
        }
        let texts: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
        let replay = san::replay(&start, &texts, None);
        if replay.error.is_some() {
            // SAN failed in every language: descriptive notation, if it
            // reads every move or more than SAN did.
            let desc = descriptive::read(&start, text.as_bytes());
            if desc.error.is_none() || desc.moves.len() > replay.moves.len() {
                let pos = desc.end;
                if let Some((_, error)) = desc.error {
                    let index = desc.moves.len();
                    return Err(TargetError::Move {
                        index,
                        numbered: san::numbered(&pos, desc.texts[index].as_bytes()),
                        error: error.into(),
                        fen: fen::write(&pos),
                    });
                }
                let last_move = desc.moves.last().map(|&m| Uci::from_move(m));
                return Ok(Target { last_move, ..Target::from_position(pos) });
            }
        }
        let mut pos = start;
        for m in &replay.moves {
            match m {
                Some(m) => pos.play_unchecked(*m),
                // `replay` only records a null move it could play.
                None => pos.play_null().expect("replay checked the null move"),
            }
        }
        if let Some((index, error)) = replay.error {
            return Err(TargetError::at(&pos, index, tokens[index], error.into()));
        }
        let last_move = replay.moves.last().map(|m| m.map_or(Uci::Null, Uci::from_move));
        Ok(Target { last_move, ..Target::from_position(pos) })
    }

    /// The moves of a SAN line (`1. e4 c5 2. Nf3`, numbers, comments and
    /// results skipped; other languages' letters read) from `start`.
    ///
    /// # Errors
    /// [`TargetError::NoMoves`], or [`TargetError::Move`] for the first
    /// move that cannot be played (a null move among them).
    pub fn line(text: &str, start: &Position) -> Result<Vec<Move>, TargetError> {
        let tokens = move_tokens(text);
        if tokens.is_empty() {
            return Err(TargetError::NoMoves);
        }
        let texts: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
        let replay = san::replay(start, &texts, None);
        let mut pos = start.clone();
        let mut moves = Vec::with_capacity(replay.moves.len());
        for (index, m) in replay.moves.iter().enumerate() {
            let Some(m) = *m else {
                return Err(TargetError::NullMove(san::numbered(&pos, tokens[index].as_bytes())));
            };
            pos.play_unchecked(m);
            moves.push(m);
        }
        if let Some((index, error)) = replay.error {
            return Err(TargetError::at(&pos, index, tokens[index], error.into()));
        }
        Ok(moves)
    }

    /// `true` if `pos` is the target position: same placement, side to
    /// move, castling rights and en-passant right (Polyglot semantics: the
    /// en-passant square counts when a pawn stands ready to take). Clocks
    /// do not count.
    pub fn matches(&self, pos: &Position) -> bool {
        same_position(&self.position, pos)
    }
}

impl TargetError {
    /// Move `index` of a list, `text`, cannot be played in `pos`.
    fn at(pos: &Position, index: usize, text: &str, error: MoveError) -> TargetError {
        TargetError::Move {
            index,
            numbered: san::numbered(pos, text.as_bytes()),
            error,
            fen: fen::write(pos),
        }
    }
}

/// `true` if `a` and `b` are the same position in Polyglot key semantics
/// (placement, turn, castling rights, en-passant right; not the clocks).
pub fn same_position(a: &Position, b: &Position) -> bool {
    a.board() == b.board()
        && a.turn() == b.turn()
        && a.castling_rights() == b.castling_rights()
        && a.pseudo_ep_square() == b.pseudo_ep_square()
}

/// The move tokens of a `--moves` list: move numbers, NAGs, result tokens
/// and comments in braces dropped.
fn move_tokens(text: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    let mut in_comment = false;
    for word in text.split(|c: char| c.is_whitespace() || c == ',') {
        if in_comment {
            in_comment = !word.contains('}');
            continue;
        }
        if word.starts_with('{') {
            in_comment = !word.contains('}');
            continue;
        }
        // A move number, alone (`12.`, `12...`, `12…`, or `12` without
        // its dot, as the PGN reader takes it too) or glued (`12.e4`);
        // `0000` is a null move and `00`, `000` castling.
        let digits = word.len() - word.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let after_digits = &word[digits..];
        let word = if digits > 0 && (after_digits.starts_with('.') || after_digits.starts_with('…'))
        {
            after_digits.trim_start_matches(['.', '…'])
        } else if digits == word.len() && !matches!(word, "0000" | "00" | "000") {
            ""
        } else {
            word
        };
        let is_result = matches!(word, "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*");
        let is_nag = word.starts_with('$');
        if !word.is_empty() && !is_result && !is_nag {
            tokens.push(word);
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

    #[test]
    fn fen_epd_and_moves_agree() {
        let fen = Target::from_fen(AFTER_E4).unwrap();
        assert_eq!(fen.key, 0x823c9b50fd114196_u64 as i64, "published Polyglot key");
        let four =
            Target::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3").unwrap();
        assert_eq!(four.key, fen.key, "an en-passant square no pawn can use does not count");
        let epd =
            Target::from_epd("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"x\";")
                .unwrap();
        assert_eq!(epd.key, fen.key);
        for moves in
            ["e4", "1. e4", "1.e4", "1 e4", "e2e4", "1. e2-e4 *", "1. e4! $1", "{start} 1. e4"]
        {
            assert_eq!(Target::from_moves(moves, None).unwrap().key, fen.key, "{moves}");
        }
    }

    #[test]
    fn moves_in_other_dialects_and_transpositions() {
        let sicilian = Target::from_moves("1. e4 c5 2. Nf3 d6", None).unwrap();
        for moves in [
            "1. Nf3 d6 2. e4 c5",
            "1. e4 c5 2. Cf3 d6",
            "e2e4 c7c5 g1f3 d7d6",
            "1. e4 c5 2. ♘f3 d6",
            "1.e4 c5 2.Nf3 d6",
            "1. e4 c5, 2. Nf3 d6",
        ] {
            // The same position and key; the last move is the list's own.
            let t = Target::from_moves(moves, None).unwrap();
            assert_eq!((&t.position, t.key), (&sicilian.position, sicilian.key), "{moves}");
        }
        assert!(sicilian.matches(&sicilian.position));
        assert!(!sicilian.matches(&Position::new()));
        for moves in
            ["1. P-K4 P-QB4 2. N-KB3 P-Q3", "P-K4 P-QB4 Kt-KB3 P-Q3 *", "1 P-K4 1... P-QB4"]
        {
            let desc = Target::from_moves(moves, None).unwrap();
            let san = Target::from_moves(
                &moves
                    .replace("P-QB4", "c5")
                    .replace("P-K4", "e4")
                    .replace("N-KB3", "Nf3")
                    .replace("Kt-KB3", "Nf3")
                    .replace("P-Q3", "d6"),
                None,
            )
            .unwrap();
            assert_eq!(desc, san, "{moves}");
        }
    }

    #[test]
    fn from_fen_start_and_null_moves() {
        let t = Target::from_moves("Kb2", Some("8/8/8/8/8/8/8/K6k w - - 0 1")).unwrap();
        assert_eq!(fen::write(&t.position), "8/8/8/8/8/8/1K6/7k b - - 1 1");
        let null = Target::from_moves("1 e4 0000 2 d4", None).unwrap();
        assert_eq!(
            fen::write(&null.position),
            "rnbqkbnr/pppppppp/8/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 2"
        );
    }

    #[test]
    fn the_last_move_of_a_move_list_is_kept() {
        let last =
            |moves: &str| Target::from_moves(moves, None).unwrap().last_move.map(|m| m.to_string());
        assert_eq!(last("1. e4 c5 2. Nf3").as_deref(), Some("g1f3"));
        assert_eq!(last("e4 e5 Nf3 Nc6 Bc4 Bc5 O-O").as_deref(), Some("e1g1"));
        assert_eq!(last("P-K4 P-QB4 N-KB3").as_deref(), Some("g1f3"));
        assert_eq!(last("e4 0000").as_deref(), Some("0000"));
        assert_eq!(last("e4 Nf6 e5 d5 exd6").as_deref(), Some("e5d6"));
        assert_eq!(Target::from_fen(AFTER_E4).unwrap().last_move, None);
    }

    #[test]
    fn errors_name_the_argument_and_the_move() {
        let e = Target::from_moves("1. e4 e5 2. Ke3", None).unwrap_err().to_string();
        assert!(e.starts_with("--moves: 2. Ke3: illegal move: "), "{e}");
        assert!(
            e.ends_with(" in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
            "{e}"
        );
        assert_eq!(Target::from_moves("1. 2. *", None).unwrap_err(), TargetError::NoMoves);
        let e = Target::from_fen("8/8/8/8/8/8/8/8 w - - 0 1").unwrap_err().to_string();
        assert!(e.starts_with("--fen: illegal FEN position"), "{e}");
        let e = Target::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x").unwrap_err();
        assert!(e.to_string().starts_with("--fen: invalid FEN"), "{e}");
        assert!(Target::from_epd("nonsense").unwrap_err().to_string().starts_with("--epd: "));
        let e = Target::from_moves("P-K4 P-K4 N-B3", None).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "--moves: 2. N-B3: ambiguous move: could be N-QB3 (Nc3), N-KB3 (Nf3) in "
            ),
            "{e}"
        );
        let e = Target::from_moves("e4", Some("bad")).unwrap_err().to_string();
        assert!(e.starts_with("--from-fen: "), "{e}");
    }
}
