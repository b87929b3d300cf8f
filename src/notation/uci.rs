//! UCI move notation (pure coordinates).
//!
//! Accepted: `e2e4`, promotions with the piece letter in either case
//! (`e7e8q`, `e7e8Q`), the null move `0000`, castling as the king's two-square
//! move (`e1g1`) or as king-takes-own-rook (`e1h1`, the Chess960 form).
//! Long algebraic with dashes, captures or piece letters (`Ng1-f3`,
//! `e4xd5`) is SAN's business ([`super::san`]).
//!
//! Written: `e1g1` for castling whose king starts on the e-file and rook in
//! the corner (unambiguous there), king-takes-rook for every other castling
//! (as UCI_Chess960 does).

use std::fmt;

use crate::chess::{Bitboard, Move, MoveList, Position, Role, Square};

/// A syntax error in a UCI move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not a UCI move")]
pub struct ParseUciError {
    /// The text that was read.
    pub text: String,
}

/// A UCI move that is not legal in the position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UciError {
    /// Unreadable text.
    #[error(transparent)]
    Parse(#[from] ParseUciError),
    /// Readable but not legal here.
    #[error("illegal move {0}")]
    Illegal(Uci),
    /// A pawn reaching the last rank without a promotion letter.
    #[error("move {0} reaches the last rank without a promotion piece")]
    MissingPromotion(Uci),
}

/// A move in UCI notation, not yet checked against a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Uci {
    /// A move from a square to a square, maybe promoting.
    Normal {
        /// Origin.
        from: Square,
        /// Destination.
        to: Square,
        /// Promotion piece.
        promotion: Option<Role>,
    },
    /// `0000`.
    Null,
}

impl Uci {
    /// Parses UCI text.
    ///
    /// # Errors
    /// [`ParseUciError`] if the text is not a UCI move.
    pub fn from_ascii(text: &[u8]) -> Result<Uci, ParseUciError> {
        let err = || ParseUciError { text: super::excerpt(text) };
        if text == b"0000" {
            return Ok(Uci::Null);
        }
        if text.len() != 4 && text.len() != 5 {
            return Err(err());
        }
        let from = Square::from_ascii(&text[0..2]).ok_or_else(err)?;
        let to = Square::from_ascii(&text[2..4]).ok_or_else(err)?;
        let promotion = match text.get(4) {
            None => None,
            Some(&b) => match Role::from_char(b as char) {
                Some(role @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen)) => Some(role),
                _ => return Err(err()),
            },
        };
        if from == to {
            return Err(err());
        }
        Ok(Uci::Normal { from, to, promotion })
    }

    /// The UCI form of `m` (see the module docs for castling).
    pub fn from_move(m: Move) -> Uci {
        match m {
            Move::Castle { king, rook } => {
                let standard = king.file() == crate::chess::File::E
                    && matches!(rook.file(), crate::chess::File::A | crate::chess::File::H);
                let to = if standard { m.to() } else { rook };
                Uci::Normal { from: king, to, promotion: None }
            }
            _ => Uci::Normal { from: m.from(), to: m.to(), promotion: m.promotion() },
        }
    }

    /// Finds the legal move this UCI text means in `pos`. Null moves are not
    /// moves of [`Move`]; they give [`UciError::Illegal`] here and callers
    /// that allow them check for [`Uci::Null`] first.
    ///
    /// # Errors
    /// [`UciError::Illegal`] or [`UciError::MissingPromotion`].
    pub fn to_move(self, pos: &Position) -> Result<Move, UciError> {
        let Uci::Normal { from, to, promotion } = self else { return Err(UciError::Illegal(self)) };
        let board = pos.board();
        let us = pos.turn();
        let role = match board.piece_at(from) {
            Some(p) if p.color == us => p.role,
            _ => return Err(UciError::Illegal(self)),
        };
        if role == Role::King {
            if let Some(m) = pos.castling_by_king_move(from, to) {
                return Ok(m);
            }
        }
        let mut moves = MoveList::new();
        pos.moves_to(role, to, Bitboard::from_square(from), &mut moves);
        if role == Role::Pawn
            && promotion.is_none()
            && moves.iter().any(|m| m.promotion().is_some())
        {
            return Err(UciError::MissingPromotion(self));
        }
        moves.into_iter().find(|m| m.promotion() == promotion).ok_or(UciError::Illegal(self))
    }

    /// Appends the text to `out`.
    pub fn append_to(&self, out: &mut String) {
        match *self {
            Uci::Null => out.push_str("0000"),
            Uci::Normal { from, to, promotion } => {
                from.append_to(out);
                to.append_to(out);
                if let Some(p) = promotion {
                    out.push(p.char());
                }
            }
        }
    }
}

impl fmt::Display for Uci {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(5);
        self.append_to(&mut s);
        f.write_str(&s)
    }
}

impl std::str::FromStr for Uci {
    type Err = ParseUciError;
    fn from_str(s: &str) -> Result<Uci, ParseUciError> {
        Uci::from_ascii(s.as_bytes())
    }
}

/// The UCI text of `m` (played from `_pos`; the position is not needed with
/// this crate's [`Move`], the parameter keeps call sites uniform with SAN).
pub fn to_uci(_pos: &Position, m: Move) -> String {
    Uci::from_move(m).to_string()
}

/// Parses UCI text and finds its legal move in `pos`.
///
/// # Errors
/// See [`Uci::to_move`].
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, UciError> {
    Uci::from_ascii(text.as_bytes())?.to_move(pos)
}

/// The compact integer form of a UCI move, as stored in the database
/// (`positions.next_move`): `from + 64 * to + 4096 * promotion`, squares
/// a1 = 0 … h8 = 63, promotion 0 none, 1 knight, 2 bishop, 3 rook, 4 queen,
/// 5 king; the null move is 0 (a1a1 is no move).
impl Uci {
    /// The move's compact integer.
    pub fn code(self) -> u16 {
        match self {
            Uci::Null => 0,
            Uci::Normal { from, to, promotion } => {
                let promotion = promotion.map_or(0, Role::index);
                (from.index() + 64 * to.index() + 4096 * promotion) as u16
            }
        }
    }

    /// The [`Uci::code`] of `m`'s text, castling written king takes rook
    /// in a Chess960 game (`chess960`) and as [`Uci::from_move`] writes it
    /// otherwise: a game's every move is coded, without building its
    /// [`Uci`].
    #[inline]
    pub fn move_code(m: Move, chess960: bool) -> u16 {
        let (from, to, promotion) = match m {
            Move::Normal { from, to, promotion, .. } => (from, to, promotion),
            Move::EnPassant { from, to } => (from, to, None),
            Move::Castle { king, rook } if chess960 => (king, rook, None),
            Move::Castle { .. } => return Uci::from_move(m).code(),
        };
        (from.index() + 64 * to.index() + 4096 * promotion.map_or(0, Role::index)) as u16
    }

    /// The move of a compact integer; `None` if no move has that code.
    pub fn from_code(code: u16) -> Option<Uci> {
        if code == 0 {
            return Some(Uci::Null);
        }
        let (from, to) =
            (Square::new(u32::from(code % 64))?, Square::new(u32::from(code / 64 % 64))?);
        let promotion = match code / 4096 {
            0 => None,
            p @ 1..=5 => Some(Role::ALL[usize::from(p)]),
            _ => return None,
        };
        (from != to).then_some(Uci::Normal { from, to, promotion })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_position;

    /// Every move of every position up to `depth` plies from `pos`: its
    /// [`Uci::move_code`] is the code of the [`Uci`] the import wrote
    /// before (king takes rook for a Chess960 castling).
    fn walk_codes(pos: &Position, depth: u32, seen: &mut usize) {
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        for &m in moves.iter() {
            for chess960 in [false, true] {
                let uci = match m {
                    Move::Castle { king, rook } if chess960 => {
                        Uci::Normal { from: king, to: rook, promotion: None }
                    }
                    m => Uci::from_move(m),
                };
                assert_eq!(Uci::move_code(m, chess960), uci.code(), "{m:?}");
            }
            *seen += 1;
            if depth > 1 {
                let mut child = pos.clone();
                child.play_unchecked(m);
                walk_codes(&child, depth - 1, seen);
            }
        }
    }

    #[test]
    fn a_moves_code_is_its_uci_texts() {
        let mut seen = 0;
        for fen in [
            // Kiwipete: castlings, en passant, promotions by capture.
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            // Chess960: the king on b1, rooks on a1 and h1.
            "1r4kr/8/8/8/8/8/8/RK5R w HAhb - 0 1",
        ] {
            walk_codes(&parse_position(fen).unwrap(), 3, &mut seen);
        }
        assert!(seen > 10_000, "{seen}");
    }

    #[test]
    fn compact_codes_round_trip() {
        assert_eq!(Uci::Null.code(), 0);
        let e2e4: Uci = "e2e4".parse().unwrap();
        assert_eq!(e2e4.code(), 12 + 64 * 28);
        assert_eq!("e7e8q".parse::<Uci>().unwrap().code(), 52 + 64 * 60 + 4096 * 4);
        for text in ["e2e4", "a7a8n", "h2h1r", "b7c8b", "e1h1", "g1f3", "0000"] {
            let uci: Uci = text.parse().unwrap();
            assert_eq!(Uci::from_code(uci.code()), Some(uci), "{text}");
        }
        assert_eq!(Uci::from_code(64 + 1), None, "b1b1 is no move");
        assert_eq!(Uci::from_code(6 * 4096 + 12 + 64 * 28), None);
    }

    #[test]
    fn reads_and_writes_plain_moves() {
        let pos = Position::new();
        let m = parse_move(&pos, "e2e4").unwrap();
        assert_eq!(
            m,
            Move::Normal {
                role: Role::Pawn,
                from: Square::E2,
                capture: None,
                to: Square::E4,
                promotion: None
            }
        );
        assert_eq!(to_uci(&pos, m), "e2e4");
        assert_eq!(parse_move(&pos, "e2e5").unwrap_err().to_string(), "illegal move e2e5");
        assert_eq!(parse_move(&pos, "e2").unwrap_err().to_string(), "'e2' is not a UCI move");
        assert_eq!(Uci::from_ascii(b"0000"), Ok(Uci::Null));
    }

    #[test]
    fn promotions() {
        let pos = parse_position("8/4P3/8/8/8/8/k7/4K3 w - - 0 1").unwrap();
        let m = parse_move(&pos, "e7e8N").unwrap();
        assert_eq!(m.promotion(), Some(Role::Knight));
        assert_eq!(to_uci(&pos, m), "e7e8n");
        assert!(matches!(parse_move(&pos, "e7e8"), Err(UciError::MissingPromotion(_))));
    }

    #[test]
    fn castling_both_forms() {
        let pos = parse_position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let m = parse_move(&pos, "e1g1").unwrap();
        assert_eq!(m, Move::Castle { king: Square::E1, rook: Square::H1 });
        assert_eq!(parse_move(&pos, "e1h1").unwrap(), m);
        assert_eq!(to_uci(&pos, m), "e1g1");
        assert_eq!(
            parse_move(&pos, "e1a1").unwrap(),
            Move::Castle { king: Square::E1, rook: Square::A1 }
        );
        // Chess960: king on b1 castles with the rook on a1; written king-takes-rook.
        let pos = parse_position("r2k3r/8/8/8/8/8/8/RK5R w HAha - 0 1").unwrap();
        let m = parse_move(&pos, "b1a1").unwrap();
        assert_eq!(m, Move::Castle { king: Square::B1, rook: Square::A1 });
        assert_eq!(to_uci(&pos, m), "b1a1");
    }
}
