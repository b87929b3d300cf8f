//! Extended Position Description.
//!
//! Accepted: the four FEN fields (placement, turn, castling, en passant —
//! castling in every form [`super::fen`] reads; all four are required),
//! then any number of
//! operations `opcode operand operand ...;`. Operands are unquoted tokens
//! (`Nf3`, `+150`, `12`) or double-quoted strings (`"Kasparov"`, which may
//! hold `;`); the last `;` of a line may be missing. Opcodes start with a letter and continue with letters, digits
//! and `_`. Two bare numbers right after the four fields (the halfmove and
//! fullmove counters some suites write, as in `... - 0 1 ;D1 20`) are read
//! as the clocks.
//!
//! Typed access for the standard opcodes: `bm`/`am`/`pv` (SAN moves,
//! resolved against the position), `id` and `c0`…`c9` (strings), `ce`
//! (centipawns), `acd` (depth), `hmvc`/`fmvn` (the clocks, also applied to
//! [`Epd::position`]). Every other opcode is kept verbatim and written back
//! as read.

use std::fmt;
use std::num::NonZeroU32;

use super::fen::{self, Fields, ParseFenError};
use super::lang::Lang;
use super::san::{self, MoveTextError};
use crate::chess::{Move, Position, PositionError, Setup};

/// A syntax error in an EPD line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseEpdError {
    /// The four position fields are wrong.
    #[error("invalid EPD position: {0}")]
    Fen(ParseFenError),
    /// An operation is malformed.
    #[error("invalid EPD operation at column {col}: {reason}")]
    Operation {
        /// 1-based column.
        col: usize,
        /// What is wrong.
        reason: &'static str,
    },
}

/// An operand of an EPD operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    /// An unquoted token, such as a move or a number.
    Token(String),
    /// A double-quoted string (without the quotes).
    Str(String),
}

impl Operand {
    /// The text of the operand (string contents for quoted strings).
    pub fn as_str(&self) -> &str {
        match self {
            Operand::Token(s) | Operand::Str(s) => s,
        }
    }
}

/// One EPD operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// The opcode (`bm`, `id`, `c0`, …).
    pub opcode: String,
    /// Its operands, in order.
    pub operands: Vec<Operand>,
}

/// A parsed EPD line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Epd {
    /// The position fields (clocks from `hmvc`/`fmvn` or bare numbers, else
    /// `0 1`).
    pub setup: Setup,
    /// The operations, in order.
    pub operations: Vec<Operation>,
}

impl Epd {
    /// Parses one EPD line.
    ///
    /// # Errors
    /// [`ParseEpdError`] naming the field or the column of the operation.
    pub fn from_ascii(text: &[u8]) -> Result<Epd, ParseEpdError> {
        let text = std::str::from_utf8(text).map_err(|e| ParseEpdError::Operation {
            col: e.valid_up_to() + 1,
            reason: "not UTF-8",
        })?;
        let text = text.trim_end_matches(['\n', '\r', ' ', '\t']);
        let mut fields = Fields::new(text);
        let mut setup = fen::parse_fields_up_to(&mut fields, 4, 4).map_err(ParseEpdError::Fen)?;
        let (mut rest, mut col) = fields.rest();
        // Optional bare clocks.
        let mut clocks = Vec::new();
        while clocks.len() < 2 {
            let len = rest.find([' ', '\t', ';']).unwrap_or(rest.len());
            let token = &rest[..len];
            if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
                break;
            }
            clocks.push(
                token
                    .parse::<u32>()
                    .map_err(|_| ParseEpdError::Operation { col, reason: "number too large" })?,
            );
            let after = &rest[len..];
            let trimmed = after.trim_start_matches([' ', '\t']);
            col += len + (after.len() - trimmed.len());
            rest = trimmed;
        }
        if let Some(&h) = clocks.first() {
            setup.halfmoves = h;
        }
        if let Some(&f) = clocks.get(1) {
            setup.fullmoves = NonZeroU32::new(f).unwrap_or(NonZeroU32::MIN);
        }
        let operations = parse_operations(rest, col)?;
        let mut epd = Epd { setup, operations };
        if let Some(h) = epd.number("hmvc") {
            epd.setup.halfmoves = u32::try_from(h).unwrap_or(0);
        }
        if let Some(f) = epd.number("fmvn") {
            epd.setup.fullmoves =
                u32::try_from(f).ok().and_then(NonZeroU32::new).unwrap_or(NonZeroU32::MIN);
        }
        Ok(epd)
    }

    /// The EPD of `pos` without operations.
    pub fn from_position(pos: &Position) -> Epd {
        Epd { setup: pos.to_setup(), operations: Vec::new() }
    }

    /// The checked position.
    ///
    /// # Errors
    /// [`PositionError`] for an illegal position.
    pub fn position(&self) -> Result<Position, PositionError> {
        Position::from_setup(self.setup.clone())
    }

    /// The first operation with `opcode`.
    pub fn operation(&self, opcode: &str) -> Option<&Operation> {
        self.operations.iter().find(|op| op.opcode == opcode)
    }

    /// The first operand of `opcode` as text (`id`, `c0`…`c9`, …).
    pub fn string(&self, opcode: &str) -> Option<&str> {
        self.operation(opcode)?.operands.first().map(Operand::as_str)
    }

    /// The first operand of `opcode` as an integer (`ce`, `acd`, `hmvc`,
    /// `fmvn`, …); `None` if absent or not a number.
    pub fn number(&self, opcode: &str) -> Option<i64> {
        self.string(opcode)?.parse().ok()
    }

    /// The `id` string.
    pub fn id(&self) -> Option<&str> {
        self.string("id")
    }

    /// The moves of `opcode` (`bm`, `am`) read as SAN in `pos`.
    ///
    /// # Errors
    /// The first move that is unreadable or illegal.
    pub fn moves(&self, opcode: &str, pos: &Position) -> Result<Vec<Move>, MoveTextError> {
        let Some(op) = self.operation(opcode) else { return Ok(Vec::new()) };
        op.operands
            .iter()
            .map(|o| san::parse_move(pos, o.as_str().as_bytes(), Lang::English))
            .collect()
    }

    /// The `pv` line: each SAN move read in the position after the
    /// previous ones.
    ///
    /// # Errors
    /// The first move that is unreadable or illegal.
    pub fn pv(&self, pos: &Position) -> Result<Vec<Move>, MoveTextError> {
        let Some(op) = self.operation("pv") else { return Ok(Vec::new()) };
        let mut pos = pos.clone();
        let mut line = Vec::with_capacity(op.operands.len());
        for o in &op.operands {
            let m = san::parse_move(&pos, o.as_str().as_bytes(), Lang::English)?;
            pos.play_unchecked(m);
            line.push(m);
        }
        Ok(line)
    }

    /// Appends the four fields and the operations.
    pub fn append_to(&self, out: &mut String) {
        fen::append_four_fields(&self.setup, out);
        for op in &self.operations {
            out.push(' ');
            out.push_str(&op.opcode);
            for operand in &op.operands {
                out.push(' ');
                match operand {
                    Operand::Token(t) => out.push_str(t),
                    Operand::Str(s) => {
                        out.push('"');
                        out.push_str(s);
                        out.push('"');
                    }
                }
            }
            out.push(';');
        }
    }
}

impl fmt::Display for Epd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(100);
        self.append_to(&mut s);
        f.write_str(&s)
    }
}

impl std::str::FromStr for Epd {
    type Err = ParseEpdError;
    fn from_str(s: &str) -> Result<Epd, ParseEpdError> {
        Epd::from_ascii(s.as_bytes())
    }
}

fn parse_operations(text: &str, col0: usize) -> Result<Vec<Operation>, ParseEpdError> {
    let bytes = text.as_bytes();
    let mut ops = Vec::new();
    let mut i = 0;
    let err = |i: usize, reason| ParseEpdError::Operation { col: col0 + i, reason };
    loop {
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b';') {
            i += 1;
        }
        if i >= bytes.len() {
            return Ok(ops);
        }
        if !bytes[i].is_ascii_alphabetic() {
            return Err(err(i, "an opcode starts with a letter"));
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        let opcode = text[start..i].to_string();
        let mut operands = Vec::new();
        loop {
            while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
                i += 1;
            }
            match bytes.get(i) {
                // Real files often leave out the last ';'.
                None => break,
                Some(b';') => {
                    i += 1;
                    break;
                }
                Some(b'"') => {
                    let close =
                        text[i + 1..].find('"').ok_or_else(|| err(i, "unterminated string"))?
                            + i
                            + 1;
                    operands.push(Operand::Str(text[i + 1..close].to_string()));
                    i = close + 1;
                }
                Some(_) => {
                    let start = i;
                    while i < bytes.len() && !matches!(bytes[i], b' ' | b'\t' | b';') {
                        i += 1;
                    }
                    operands.push(Operand::Token(text[start..i].to_string()));
                }
            }
        }
        ops.push(Operation { opcode, operands });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_standard_operations() {
        let line = r#"r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - bm O-O; am Ng5; id "WAC.001; test"; ce +35; acd 12; pv O-O Nf6 d3; c0 "comment"; hmvc 4; fmvn 4; xyz 1 2;"#;
        let epd: Epd = line.parse().unwrap();
        let pos = epd.position().unwrap();
        assert_eq!(epd.id(), Some("WAC.001; test"));
        assert_eq!(epd.number("ce"), Some(35));
        assert_eq!(epd.number("acd"), Some(12));
        assert_eq!(epd.string("c0"), Some("comment"));
        assert_eq!(pos.halfmoves(), 4);
        assert_eq!(pos.fullmoves().get(), 4);
        let bm = epd.moves("bm", &pos).unwrap();
        assert_eq!(bm.len(), 1);
        assert!(bm[0].castling_side().is_some());
        assert_eq!(epd.moves("am", &pos).unwrap().len(), 1);
        assert_eq!(epd.pv(&pos).unwrap().len(), 3);
        // Unknown opcodes are kept verbatim and everything writes back.
        assert_eq!(epd.operation("xyz").unwrap().operands.len(), 2);
        assert_eq!(epd.to_string(), line);
    }

    #[test]
    fn perft_suite_lines_with_clocks() {
        let epd: Epd = "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66".parse().unwrap();
        assert_eq!(epd.number("D1"), Some(15));
        assert_eq!(epd.number("D2"), Some(66));
        let epd: Epd = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 ;D1 21"
            .parse()
            .unwrap();
        assert_eq!(epd.setup.fullmoves.get(), 9);
        assert_eq!(epd.setup.halfmoves, 2);
        assert_eq!(epd.position().unwrap().count_legal_moves(), 21);
    }

    #[test]
    fn errors() {
        let e = |s: &str| s.parse::<Epd>().unwrap_err().to_string();
        let epd: Epd = "8/8/8/8/8/8/8/K6k w - - bm Ka2".parse().unwrap();
        assert_eq!(epd.string("bm"), Some("Ka2"), "the last ';' may be missing");
        assert_eq!(
            e("8/8/8/8/8/8/8/K6k w - - 1bm;"),
            "invalid EPD operation at column 25: an opcode starts with a letter"
        );
        assert_eq!(
            e(r#"8/8/8/8/8/8/8/K6k w - - id "x;"#),
            "invalid EPD operation at column 28: unterminated string"
        );
        assert!(e("8/8/8/8/8/8/8/K6x w - -").starts_with("invalid EPD position: placement field"));
        assert_eq!(
            e("8/8/8/8/8/8/8/K6k w -"),
            "invalid EPD position: 3 of the 4 position fields; the en-passant field is missing"
        );
    }
}
