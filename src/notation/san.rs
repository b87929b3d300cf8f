//! Standard Algebraic Notation, as the PGN standard and FIDE Handbook
//! Annex E write it and as real files contain it.
//!
//! Accepted (reading):
//! - piece letters `K Q R B N` (and `P`), or those of another language
//!   ([`Lang`]), or figurines `♔♕♖♗♘♙`/`♚♛♜♝♞♟`; pawn moves without letter;
//! - captures marked `x` or `:` or not at all — the marker is not trusted,
//!   the board decides; pawn captures with the origin file (`exd5`, `ed5`);
//! - disambiguation by file, rank or both; more than needed is accepted;
//! - castling `O-O`, `O-O-O`, `0-0`, `0-0-0` (and lower-case `o-o`);
//! - promotion `e8=Q`, `e8Q`, `e8(Q)`, `e8/Q`, and `e7e8q` in long form;
//! - en passant suffix `e.p.` or `ep`; trailing `+ # ++ ! ? !! ?? !? ?!`
//!   are ignored here (the PGN layer turns `!`/`?` into NAGs);
//! - long algebraic: `e2e4`, `e2-e4`, `e4xd5`, `Ng1f3`, `Ng1-f3`, `e7e8Q`,
//!   `e7e8=Q`, UCI castling `e1g1` and king-takes-rook `e1h1` (Chess960);
//! - null moves `--`, `Z0` and `0000` parse as [`San::Null`].
//!
//! Written: canonical SAN with minimal disambiguation (file first, then
//! rank, then both), `=Q`, `+`/`#`, `O-O`/`O-O-O`.
//!
//! Resolution works backwards from the target square
//! ([`Position::moves_to`]); an illegal or ambiguous move is a [`SanError`]
//! that names the move, the reason and the candidates.

use std::fmt;

use super::lang::{self, Lang};
use crate::chess::{
    attacks, Bitboard, CastlingSide, File, Move, MoveList, Piece, Position, Rank, Role, Square,
};

/// Keys of pawn moves in [`parts_key`]: destination × way (none or a
/// file) × capture × promotion.
const PAWN_KEYS: u32 = 64 * 9 * 2 * 5;

/// How many [`parts_key`]s there are: the two castlings, the pawn moves,
/// and the moves of N, B, R, Q and K by destination × way × capture.
pub const SAN_KEYS: u32 = 2 + PAWN_KEYS + 5 * 64 * 81 * 2;

/// The parts of a SAN text without its suffix as one number below
/// [`SAN_KEYS`], so that a table indexed by it (the schema's move codes)
/// is found without reading the text: `piece` 0 for a pawn, 1 to 5 for
/// N, B, R, Q, K, 6 for a castling (`dest` 0 king side, 1 queen side);
/// `dest` the destination (0 = a1, 63 = h8); `way` the disambiguation (0
/// none, 1 + file, 9 + rank, 17 + square); `promotion` 0 for none, 1 to 4
/// for N, B, R, Q. `None` for parts no SAN text has (a pawn disambiguated
/// by rank or square, a piece that promotes).
#[inline]
pub fn parts_key(piece: u32, dest: u32, way: u32, capture: bool, promotion: u32) -> Option<u32> {
    let capture = u32::from(capture);
    match piece {
        6 if dest < 2 && way == 0 && capture == 0 && promotion == 0 => Some(dest),
        0 if dest < 64 && way <= 8 && promotion <= 4 => {
            Some(2 + ((dest * 9 + way) * 2 + capture) * 5 + promotion)
        }
        1..=5 if dest < 64 && way < 81 && promotion == 0 => {
            Some(2 + PAWN_KEYS + (((piece - 1) * 64 + dest) * 81 + way) * 2 + capture)
        }
        _ => None,
    }
}

/// A syntax error: the text is not SAN in the given language.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not a move: {reason}")]
pub struct ParseSanError {
    /// The text.
    pub text: String,
    /// What is wrong.
    pub reason: &'static str,
}

/// A move that is readable but cannot be played in the position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SanError {
    /// No legal move matches.
    #[error("illegal move '{san}': {reason}")]
    Illegal {
        /// The move as written.
        san: String,
        /// Why nothing matches.
        reason: String,
    },
    /// Several legal moves match.
    #[error("ambiguous move '{san}': could be {}", candidates.join(", "))]
    Ambiguous {
        /// The move as written.
        san: String,
        /// The matching moves, in canonical SAN.
        candidates: Vec<String>,
    },
}

/// A move in SAN, not yet checked against a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum San {
    /// A piece or pawn move, with what the text says about its origin.
    Normal {
        /// The moving piece (pawn when no letter is written).
        role: Role,
        /// The origin file, if written.
        file: Option<File>,
        /// The origin rank, if written.
        rank: Option<Rank>,
        /// Whether a capture marker was written (informational only).
        capture: bool,
        /// The destination.
        to: Square,
        /// The promotion piece, if written.
        promotion: Option<Role>,
    },
    /// Castling to one side.
    Castle(CastlingSide),
    /// A null move (`--`, `Z0`, `0000`).
    Null,
}

/// A SAN move with its check or mate suffix, as written by
/// [`SanPlus::from_move_and_play`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SanPlus {
    /// The move.
    pub san: San,
    /// `+`, `#` or nothing.
    pub suffix: Option<Suffix>,
}

/// The check marker of a written move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Suffix {
    /// `+`.
    Check,
    /// `#`.
    Checkmate,
}

impl Suffix {
    /// `+` or `#`.
    pub fn char(self) -> char {
        match self {
            Suffix::Check => '+',
            Suffix::Checkmate => '#',
        }
    }
}

const ANNOTATION_BYTES: &[u8] = b"+#!?";

impl San {
    /// Parses English SAN (figurines too).
    ///
    /// # Errors
    /// [`ParseSanError`] if the text is not a move.
    pub fn from_ascii(text: &[u8]) -> Result<San, ParseSanError> {
        San::from_ascii_lang(text, Lang::English)
    }

    /// Parses SAN with the piece letters of `lang` (figurines always work).
    ///
    /// # Errors
    /// [`ParseSanError`] if the text is not a move.
    #[inline]
    pub fn from_ascii_lang(text: &[u8], lang: Lang) -> Result<San, ParseSanError> {
        San::parse(text, lang)
            .map_err(|reason| ParseSanError { text: super::excerpt(text), reason })
    }

    /// The parser proper. Its error is only the reason, so the result fits
    /// in registers on the hot path; `from_ascii_lang` adds the text.
    #[inline]
    fn parse(text: &[u8], lang: Lang) -> Result<San, &'static str> {
        // Read from the end: suffixes, promotion, destination, capture
        // mark, then what is left is the piece and its origin. This is a
        // straight line of checks, with no per-character loop.
        let err = |reason: &'static str| reason;
        let mut s = text;
        // Most moves end in their destination's rank: nothing to strip then.
        if !matches!(s.last(), Some(b'1'..=b'8')) {
            let mut end = s.len();
            while end > 0 && ANNOTATION_BYTES.contains(&s[end - 1]) {
                end -= 1;
            }
            s = &s[..end];
            if let Some(rest) = s.strip_suffix(b"e.p.").or_else(|| s.strip_suffix(b"ep")) {
                s = rest;
            }
        }
        // The shapes of most moves first — a pawn push (`e4`), a piece move
        // (`Nf3`), captures (`Nxe5`, `exd5`) — with the results the general
        // path below gives them.
        let normal = |role, file, capture, f, r| San::Normal {
            role,
            file,
            rank: None,
            capture,
            to: square_of(f, r),
            promotion: None,
        };
        match *s {
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => return Ok(normal(Role::Pawn, None, false, f, r)),
            [p @ b'A'..=b'Z', f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
                let role = lang.role(p).ok_or_else(|| err("unknown piece letter"))?;
                return Ok(normal(role, None, false, f, r));
            }
            [p @ b'A'..=b'Z', b'x' | b':', f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
                let role = lang.role(p).ok_or_else(|| err("unknown piece letter"))?;
                return Ok(normal(role, None, true, f, r));
            }
            [o @ b'a'..=b'h', b'x' | b':', f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
                return Ok(normal(Role::Pawn, Some(file_of(o)), true, f, r));
            }
            _ => {}
        }
        San::parse_general(s, lang)
    }

    /// [`San::parse`] for every shape, after the annotations and `e.p.`
    /// were stripped from `s`.
    fn parse_general(s: &[u8], lang: Lang) -> Result<San, &'static str> {
        let err = |reason: &'static str| reason;
        match s.first() {
            None => return Err(err("empty")),
            Some(b'O' | b'0' | b'o' | b'-' | b'Z') => match s {
                b"O-O" | b"0-0" | b"o-o" | b"OO" | b"00" => {
                    return Ok(San::Castle(CastlingSide::KingSide))
                }
                b"O-O-O" | b"0-0-0" | b"o-o-o" | b"OOO" | b"000" => {
                    return Ok(San::Castle(CastlingSide::QueenSide))
                }
                b"--" | b"Z0" | b"0000" => return Ok(San::Null),
                _ => {}
            },
            _ => {}
        }
        let (s, promotion) = strip_promotion(s, lang)?;
        let [prefix @ .., f @ b'a'..=b'h', r @ b'1'..=b'8'] = s else {
            return Err(err("no destination square"));
        };
        let to = square_of(*f, *r);
        let (prefix, capture) = match prefix {
            [rest @ .., b'x' | b':'] => (rest, true),
            [rest @ .., b'-'] => (rest, false),
            _ => (prefix, false),
        };
        let (role, origin) = match prefix {
            [] => (Role::Pawn, prefix),
            [b @ b'A'..=b'Z', rest @ ..] => {
                (lang.role(*b).ok_or_else(|| err("unknown piece letter"))?, rest)
            }
            _ => match lang::figurine(prefix) {
                Some((role, n)) => (role, &prefix[n..]),
                None => (Role::Pawn, prefix),
            },
        };
        let (file, rank) = match origin {
            [] => (None, None),
            [f @ b'a'..=b'h'] => (Some(file_of(*f)), None),
            [r @ b'1'..=b'8'] => (None, Some(rank_of(*r))),
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => (Some(file_of(*f)), Some(rank_of(*r))),
            _ => return Err(err("unexpected characters before the destination")),
        };
        if promotion.is_some() && role != Role::Pawn {
            return Err(err("only pawns promote"));
        }
        if role == Role::Pawn && rank.is_some() && file.is_none() {
            return Err(err("a pawn's origin is written as its file"));
        }
        Ok(San::Normal { role, file, rank, capture, to, promotion })
    }

    /// Finds the legal move this SAN means in `pos`.
    ///
    /// Long algebraic without a piece letter (`g1f3`, `e1g1`) takes its role
    /// from the piece on the origin square. Castling written as a king move
    /// of two squares or onto its own rook is castling.
    ///
    /// # Errors
    /// [`SanError::Illegal`] or [`SanError::Ambiguous`], naming the move.
    #[inline]
    pub fn to_move(&self, pos: &Position) -> Result<Move, SanError> {
        self.resolve(pos).ok_or_else(|| self.explain(pos))
    }

    /// Resolution proper; on failure `explain` builds the message (cold).
    #[inline]
    fn resolve(&self, pos: &Position) -> Option<Move> {
        let (role, to, promotion) = match *self {
            San::Castle(side) => return pos.castling_move_to(side),
            San::Null => return None,
            San::Normal { role, file, rank, capture: _, to, promotion } => {
                let mut role = role;
                if let (Some(f), Some(r)) = (file, rank) {
                    let from = Square::from_coords(f, r);
                    let piece = pos.board().piece_at(from).filter(|p| p.color == pos.turn());
                    if let Some(piece) = piece {
                        if role == Role::Pawn {
                            // Long algebraic without letter: the board says
                            // which piece moves.
                            role = piece.role;
                        }
                        if role == Role::King && piece.role == Role::King {
                            if let Some(m) = pos.castling_by_king_move(from, to) {
                                return Some(m);
                            }
                        }
                    }
                }
                (role, to, promotion)
            }
        };
        pos.unique_move_to(role, to, self.origin_mask(role), promotion)
    }

    /// The squares a move's origin may be on, from what the text says.
    fn origin_mask(&self, role: Role) -> Bitboard {
        let San::Normal { file, rank, to, .. } = *self else { return Bitboard::FULL };
        let mut mask = Bitboard::FULL;
        if let Some(f) = file {
            mask &= Bitboard::from_file(f);
        } else if role == Role::Pawn {
            // Plain pawn moves stay on their file; a capture needs its file
            // written (`d5` is not `exd5`).
            mask &= Bitboard::from_file(to.file());
        }
        if let Some(r) = rank {
            mask &= Bitboard::from_rank(r);
        }
        mask
    }

    /// Why `self` cannot be played in `pos`.
    #[cold]
    fn explain(&self, pos: &Position) -> SanError {
        let (role, to, promotion) = match *self {
            San::Castle(_) => {
                return SanError::Illegal {
                    san: self.to_string(),
                    reason: "castling is not possible here".to_string(),
                }
            }
            San::Null => {
                return SanError::Illegal {
                    san: "--".into(),
                    reason: "a null move is not a move".into(),
                }
            }
            San::Normal { role, file, rank, to, promotion, .. } => {
                // Long algebraic without letter takes the piece on the square.
                let role = match (role, file, rank) {
                    (Role::Pawn, Some(f), Some(r)) => pos
                        .board()
                        .piece_at(Square::from_coords(f, r))
                        .filter(|p| p.color == pos.turn())
                        .map_or(role, |p| p.role),
                    _ => role,
                };
                (role, to, promotion)
            }
        };
        let mask = self.origin_mask(role);
        let mut moves = MoveList::new();
        pos.moves_to(role, to, mask, &mut moves);
        let matching: Vec<String> = moves
            .iter()
            .filter(|m| m.promotion() == promotion)
            .map(|&m| San::from_move(pos, m).to_string())
            .collect();
        if matching.len() > 1 {
            return SanError::Ambiguous { san: self.to_string(), candidates: matching };
        }
        self.explain_illegal(pos, role, to, mask, promotion)
    }

    fn explain_illegal(
        &self,
        pos: &Position,
        role: Role,
        to: Square,
        mask: Bitboard,
        promotion: Option<Role>,
    ) -> SanError {
        let mut moves = MoveList::new();
        pos.moves_to(role, to, mask, &mut moves);
        let color = pos.turn().fold("white", "black");
        let name = role_name(role);
        let own = pos.board().piece_at(to).filter(|p| p.color == pos.turn());
        let reason = if let Some(own) = own {
            format!("{to} is taken by a {color} {}", role_name(own.role))
        } else if moves.iter().any(|m| m.promotion().is_some()) && promotion.is_none() {
            "a pawn reaching the last rank needs a promotion piece".to_string()
        } else if promotion.is_some() && !moves.is_empty() {
            "this move is not a promotion".to_string()
        } else {
            let attackers = pos.board().by_color(pos.turn())
                & pos.board().by_role(role)
                & mask
                & crate::chess::attacks::attacks(
                    pos.turn().other(),
                    role,
                    to,
                    pos.board().occupied(),
                );
            if attackers.any() && role != Role::Pawn {
                format!("the {color} {name} cannot go to {to} without leaving its king in check")
            } else {
                format!("no {color} {name} can go to {to}")
            }
        };
        SanError::Illegal { san: self.to_string(), reason }
    }

    /// The canonical SAN of `m` in `pos` (no check suffix): minimal
    /// disambiguation, file first, then rank, then both.
    pub fn from_move(pos: &Position, m: Move) -> San {
        let mut san = San::from_unique_move(m);
        let (Move::Normal { role, from, to, .. }, San::Normal { file, rank, .. }) = (m, &mut san)
        else {
            return san;
        };
        if role != Role::Pawn && role != Role::King {
            // Only another piece of the role that reaches `to` (legally
            // or not) can call for disambiguation: usually there is none.
            let rivals = attacks::attacks(pos.turn(), role, to, pos.board().occupied())
                & pos.board().by_piece(Piece { color: pos.turn(), role });
            if rivals.more_than_one() {
                let mut moves = MoveList::new();
                pos.moves_to(role, to, Bitboard::FULL, &mut moves);
                let others: Bitboard =
                    moves.iter().map(|m| m.from()).filter(|&f| f != from).collect();
                if others.any() {
                    if (others & Bitboard::from_file(from.file())).is_empty() {
                        *file = Some(from.file());
                    } else if (others & Bitboard::from_rank(from.rank())).is_empty() {
                        *rank = Some(from.rank());
                    } else {
                        *file = Some(from.file());
                        *rank = Some(from.rank());
                    }
                }
            }
        }
        san
    }

    /// The canonical SAN of `m` (no check suffix) when no other legal move
    /// of its role goes to its square — always true of pawn moves, whose
    /// SAN names the origin file of a capture anyway. Otherwise the text
    /// lacks the disambiguation [`San::from_move`] would write: callers
    /// that know the move is unique (it was resolved from a text without
    /// disambiguation) save the search for rivals.
    pub fn from_unique_move(m: Move) -> San {
        match m {
            Move::Castle { .. } => San::Castle(m.castling_side().unwrap_or(CastlingSide::KingSide)),
            Move::EnPassant { from, to } => San::Normal {
                role: Role::Pawn,
                file: Some(from.file()),
                rank: None,
                capture: true,
                to,
                promotion: None,
            },
            Move::Normal { role, from, capture, to, promotion } => San::Normal {
                role,
                file: if role == Role::Pawn { capture.map(|_| from.file()) } else { None },
                rank: None,
                capture: capture.is_some(),
                to,
                promotion,
            },
        }
    }

    /// The parts of the canonical text as one number below [`SAN_KEYS`]
    /// ([`parts_key`]); `None` for a null move and for parts no SAN text
    /// has (a king promotion).
    #[inline]
    pub fn key(&self) -> Option<u32> {
        let (role, file, rank, capture, to, promotion) = match *self {
            San::Castle(CastlingSide::KingSide) => return parts_key(6, 0, 0, false, 0),
            San::Castle(CastlingSide::QueenSide) => return parts_key(6, 1, 0, false, 0),
            San::Null => return None,
            San::Normal { role, file, rank, capture, to, promotion } => {
                (role, file, rank, capture, to, promotion)
            }
        };
        let way = match (file, rank) {
            (None, None) => 0,
            (Some(f), None) => 1 + f.index(),
            (None, Some(r)) => 9 + r.index(),
            (Some(f), Some(r)) => 17 + r.index() * 8 + f.index(),
        };
        let promotion = match promotion {
            None => 0,
            Some(Role::Knight) => 1,
            Some(Role::Bishop) => 2,
            Some(Role::Rook) => 3,
            Some(Role::Queen) => 4,
            Some(_) => return None,
        };
        parts_key(role.index() as u32, to.index() as u32, way, capture, promotion)
    }

    /// Appends the canonical text.
    pub fn append_to(&self, out: &mut String) {
        let (buf, n) = self.ascii();
        out.push_str(std::str::from_utf8(&buf[..n]).unwrap_or_default());
    }

    /// Appends the canonical text as bytes (SAN is ASCII): the replay's
    /// way, which does not pay for checking that it is UTF-8 per move.
    #[inline]
    pub fn append_ascii(&self, out: &mut Vec<u8>) {
        let (buf, n) = self.ascii();
        // The whole buffer in one fixed-size copy, then the end cut.
        let end = out.len() + n;
        out.extend_from_slice(&buf);
        out.truncate(end);
    }

    /// The canonical text in a buffer of its longest length (`Qa1xb2=Q`)
    /// and its length.
    #[inline]
    fn ascii(&self) -> ([u8; 8], usize) {
        let (role, file, rank, capture, to, promotion) = match *self {
            San::Castle(CastlingSide::KingSide) => return (*b"O-O\0\0\0\0\0", 3),
            San::Castle(CastlingSide::QueenSide) => return (*b"O-O-O\0\0\0", 5),
            San::Null => return (*b"--\0\0\0\0\0\0", 2),
            San::Normal { role, file, rank, capture, to, promotion } => {
                (role, file, rank, capture, to, promotion)
            }
        };
        // Each part is written at the end, then kept (the end moves past
        // it) or not: no branch per part, and the end stays within 8.
        let mut buf = [0u8; 8];
        buf[0] = role.upper_char() as u8;
        let mut n = usize::from(role != Role::Pawn);
        buf[n] = file.map_or(0, |f| f.char() as u8);
        n += usize::from(file.is_some());
        buf[n] = rank.map_or(0, |r| r.char() as u8);
        n += usize::from(rank.is_some());
        buf[n] = b'x';
        n += usize::from(capture);
        buf[n] = to.file().char() as u8;
        buf[n + 1] = to.rank().char() as u8;
        n += 2;
        if let Some(p) = promotion {
            buf[n] = b'=';
            buf[n + 1] = p.upper_char() as u8;
            n += 2;
        }
        (buf, n)
    }
}

impl SanPlus {
    /// Writes `m` (legal in `pos`) as SAN with `+`/`#`, and plays it.
    pub fn from_move_and_play(pos: &mut Position, m: Move) -> SanPlus {
        let san = San::from_move(pos, m);
        SanPlus::with_suffix_after(pos, m, san)
    }

    /// [`SanPlus::from_move_and_play`] for a move that no other legal move
    /// of its role to its square rivals (see [`San::from_unique_move`]).
    pub fn from_unique_move_and_play(pos: &mut Position, m: Move) -> SanPlus {
        SanPlus::with_suffix_after(pos, m, San::from_unique_move(m))
    }

    /// Plays `m` and adds the suffix of the position it leads to.
    #[inline]
    fn with_suffix_after(pos: &mut Position, m: Move, san: San) -> SanPlus {
        pos.play_unchecked(m);
        let suffix = if pos.is_check() {
            Some(if pos.has_legal_moves() { Suffix::Check } else { Suffix::Checkmate })
        } else {
            None
        };
        SanPlus { san, suffix }
    }

    /// Writes `m` (legal in `pos`) as SAN with `+`/`#`.
    pub fn from_move(pos: &Position, m: Move) -> SanPlus {
        SanPlus::from_move_and_play(&mut pos.clone(), m)
    }

    /// Appends the text.
    pub fn append_to(&self, out: &mut String) {
        self.san.append_to(out);
        if let Some(suffix) = self.suffix {
            out.push(suffix.char());
        }
    }

    /// [`San::key`] with the suffix: `3 * key + mark`, the mark 0 for
    /// none, 1 for `+`, 2 for `#`.
    #[inline]
    pub fn key(&self) -> Option<u32> {
        let mark = match self.suffix {
            None => 0,
            Some(Suffix::Check) => 1,
            Some(Suffix::Checkmate) => 2,
        };
        Some(3 * self.san.key()? + mark)
    }

    /// Appends the text as bytes (see [`San::append_ascii`]).
    #[inline]
    pub fn append_ascii(&self, out: &mut Vec<u8>) {
        self.san.append_ascii(out);
        if let Some(suffix) = self.suffix {
            out.push(suffix.char() as u8);
        }
    }
}

impl fmt::Display for San {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(8);
        self.append_to(&mut s);
        f.write_str(&s)
    }
}

impl fmt::Display for SanPlus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(8);
        self.append_to(&mut s);
        f.write_str(&s)
    }
}

impl std::str::FromStr for San {
    type Err = ParseSanError;
    fn from_str(s: &str) -> Result<San, ParseSanError> {
        San::from_ascii(s.as_bytes())
    }
}

/// Why a SAN move text failed: unreadable or unplayable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveTextError {
    /// Unreadable text.
    #[error(transparent)]
    Parse(#[from] ParseSanError),
    /// Readable but not playable here.
    #[error(transparent)]
    Play(#[from] SanError),
}

impl MoveTextError {
    /// What is wrong, without the move's text: `illegal move: …`,
    /// `ambiguous move: could be …` or `not a move: …`, for messages that
    /// name the move by its number ([`numbered`]).
    pub fn reason(&self) -> String {
        match self {
            MoveTextError::Parse(e) => format!("not a move: {}", e.reason),
            MoveTextError::Play(SanError::Illegal { reason, .. }) => {
                format!("illegal move: {reason}")
            }
            MoveTextError::Play(SanError::Ambiguous { candidates, .. }) => {
                format!("ambiguous move: could be {}", candidates.join(", "))
            }
        }
    }
}

/// `text` numbered as the move it is in `pos`, as PGN numbers moves: `2.
/// Nf6` when White is to move, `2... Nf6` when Black is (the fullmove
/// number of `pos`, so a game from a FEN counts from the FEN's). A long
/// text is cut.
///
/// ```
/// use pgnindex::chess::Position;
/// use pgnindex::notation::{lang::Lang, san};
/// let mut pos = Position::new();
/// assert_eq!(san::numbered(&pos, b"e4"), "1. e4");
/// pos.play_unchecked(san::parse_move(&pos, b"e4", Lang::English)?);
/// assert_eq!(san::numbered(&pos, b"Nf4"), "1... Nf4");
/// # Ok::<_, san::MoveTextError>(())
/// ```
pub fn numbered(pos: &Position, text: &[u8]) -> String {
    let dots = pos.turn().fold(".", "...");
    format!("{}{dots} {}", pos.fullmoves(), super::excerpt(text))
}

/// Parses `text` in `lang` and finds its legal move in `pos`.
///
/// # Errors
/// [`MoveTextError`] saying whether the text or the move is at fault.
///
/// ```
/// use pgnindex::chess::Position;
/// use pgnindex::notation::{lang::Lang, san};
/// let pos = Position::new();
/// let m = san::parse_move(&pos, b"Cf3", Lang::French)?;
/// assert_eq!(san::to_san(&pos, m), "Nf3");
/// # Ok::<_, san::MoveTextError>(())
/// ```
pub fn parse_move(pos: &Position, text: &[u8], lang: Lang) -> Result<Move, MoveTextError> {
    Ok(San::from_ascii_lang(text, lang)?.to_move(pos)?)
}

/// The legal move of the commonest texts — `e4`, `Nf3`, `Nxe5`, `exd5`
/// (`:` for `x` too) and castling (`O-O`, `0-0-0`), each with an optional
/// `+` or `#` — read and resolved in one step, without going through a
/// [`San`] value. Its canonical SAN is that of [`San::from_unique_move`]:
/// no other move of its role reaches its square.
///
/// `None` means "not one of these shapes, or no unique legal move": the
/// caller then takes the general path ([`parse_move`]), which gives the
/// same move when this one does, and the error otherwise.
#[inline]
pub fn quick_move(pos: &Position, text: &[u8], lang: Lang) -> Option<Move> {
    let s = match text {
        [rest @ .., b'+' | b'#'] => rest,
        _ => text,
    };
    let (role, to, mask) = match *s {
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            let to = square_of(f, r);
            (Role::Pawn, to, Bitboard::from_file(to.file()))
        }
        [b'O', b'-', b'O'] | [b'0', b'-', b'0'] => {
            return pos.castling_move_to(CastlingSide::KingSide)
        }
        [b'O', b'-', b'O', b'-', b'O'] | [b'0', b'-', b'0', b'-', b'0'] => {
            return pos.castling_move_to(CastlingSide::QueenSide)
        }
        [p @ b'A'..=b'Z', f @ b'a'..=b'h', r @ b'1'..=b'8']
        | [p @ b'A'..=b'Z', b'x' | b':', f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            let to = square_of(f, r);
            let role = lang.role(p)?;
            // A pawn written with its letter (`Pe4`) stays on its file, as
            // `San::origin_mask` has it.
            let mask =
                if role == Role::Pawn { Bitboard::from_file(to.file()) } else { Bitboard::FULL };
            (role, to, mask)
        }
        [o @ b'a'..=b'h', b'x' | b':', f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            (Role::Pawn, square_of(f, r), Bitboard::from_file(file_of(o)))
        }
        _ => return None,
    };
    pos.unique_move_to(role, to, mask, None)
}

/// The legal move of a piece move whose origin's file or rank is written
/// (`Nbd7`, `R1e2`, `Raxe1`, each with an optional `+` or `#`), read and
/// resolved in one step as [`quick_move`] does; its canonical SAN may need
/// that disambiguation ([`San::from_move`]). `None`: the general path
/// decides.
#[inline]
pub fn quick_disambiguated_move(pos: &Position, text: &[u8], lang: Lang) -> Option<Move> {
    let s = match text {
        [rest @ .., b'+' | b'#'] => rest,
        _ => text,
    };
    let (p, origin, f, r) = match *s {
        [p @ b'A'..=b'Z', o, f @ b'a'..=b'h', r @ b'1'..=b'8']
        | [p @ b'A'..=b'Z', o, b'x' | b':', f @ b'a'..=b'h', r @ b'1'..=b'8'] => (p, o, f, r),
        _ => return None,
    };
    let role = lang.role(p)?;
    if matches!(role, Role::Pawn | Role::King) {
        return None;
    }
    let mask = match origin {
        b'a'..=b'h' => Bitboard::from_file(file_of(origin)),
        b'1'..=b'8' => Bitboard::from_rank(rank_of(origin)),
        _ => return None,
    };
    pos.unique_move_to(role, square_of(f, r), mask, None)
}

/// The canonical SAN of `m` with its `+`/`#` suffix.
pub fn to_san(pos: &Position, m: Move) -> String {
    SanPlus::from_move(pos, m).to_string()
}

/// The result of replaying a sequence of move texts with language
/// detection: see [`replay`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    /// The language the moves were read in.
    pub lang: Lang,
    /// The moves played, in order (`None` for a null move).
    pub moves: Vec<Option<Move>>,
    /// The first move that failed, with its index, if any.
    pub error: Option<(usize, MoveTextError)>,
}

/// Replays `texts` from `start`. With `lang = Some(l)` the letters of `l`
/// are used. With `None` the moves are read in English; if that fails, each
/// other language is tried on the *whole* sequence and the first that plays
/// every move wins (if none does, English's result is kept) — a game is
/// read in one language, never a mix. Null moves are played as passes
/// (an error when in check).
pub fn replay(start: &Position, texts: &[&[u8]], lang: Option<Lang>) -> Replay {
    let attempt = |lang: Lang| {
        let mut pos = start.clone();
        let mut moves = Vec::with_capacity(texts.len());
        for (i, text) in texts.iter().enumerate() {
            match San::from_ascii_lang(text, lang) {
                Ok(San::Null) => {
                    if pos.play_null().is_err() {
                        let e = SanError::Illegal {
                            san: "--".into(),
                            reason: "a null move is not allowed while in check".into(),
                        };
                        return Replay { lang, moves, error: Some((i, e.into())) };
                    }
                    moves.push(None);
                }
                Ok(san) => match san.to_move(&pos) {
                    Ok(m) => {
                        pos.play_unchecked(m);
                        moves.push(Some(m));
                    }
                    Err(e) => return Replay { lang, moves, error: Some((i, e.into())) },
                },
                Err(e) => return Replay { lang, moves, error: Some((i, e.into())) },
            }
        }
        Replay { lang, moves, error: None }
    };
    if let Some(lang) = lang {
        return attempt(lang);
    }
    let english = attempt(Lang::English);
    if english.error.is_none() {
        return english;
    }
    Lang::FALLBACKS.into_iter().map(attempt).find(|r| r.error.is_none()).unwrap_or(english)
}

/// Splits a trailing promotion (`=Q`, `Q`, `(Q)`, `/Q`, `q`, `=♕`) off
/// `s`. Upper-case letters are read in `lang`, then in English (`e8=Q` is
/// common in otherwise translated text); lower-case `n b r q` are UCI style.
fn strip_promotion(s: &[u8], lang: Lang) -> Result<(&[u8], Option<Role>), &'static str> {
    let (rest, role) = match s {
        [.., b'0'..=b'9'] | [] => return Ok((s, None)),
        [rest @ .., b'(', l, b')'] => (rest, promotion_letter(*l, lang)),
        [rest @ .., 0xe2, 0x99, _] => (rest, lang::figurine(&s[s.len() - 3..]).map(|(r, _)| r)),
        [rest @ .., l] => (rest, promotion_letter(*l, lang)),
    };
    let role = role.ok_or("unexpected character at the end")?;
    if !matches!(role, Role::Knight | Role::Bishop | Role::Rook | Role::Queen) {
        return Err("a pawn promotes to a queen, rook, bishop or knight");
    }
    let rest = match rest {
        [r @ .., b'=' | b'/'] => r,
        _ => rest,
    };
    Ok((rest, Some(role)))
}

fn promotion_letter(b: u8, lang: Lang) -> Option<Role> {
    match b {
        b'n' | b'b' | b'r' | b'q' => Role::from_char(b as char),
        b'A'..=b'Z' => lang.role(b).or_else(|| Lang::English.role(b)),
        _ => None,
    }
}

// Callers pass `a..=h` and `1..=8` only; other bytes give a1 rather than a
// panic. By arithmetic, not a `match` on the character (a compare per value).
#[inline]
fn square_of(f: u8, r: u8) -> Square {
    Square::from_coords(file_of(f), rank_of(r))
}

#[inline]
fn file_of(b: u8) -> File {
    File::new(u32::from(b.wrapping_sub(b'a'))).unwrap_or(File::A)
}

#[inline]
fn rank_of(b: u8) -> Rank {
    Rank::new(u32::from(b.wrapping_sub(b'1'))).unwrap_or(Rank::First)
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::{parse_position, write};

    fn play(fen: &str, text: &str) -> Result<String, String> {
        let pos = if fen.is_empty() { Position::new() } else { parse_position(fen).unwrap() };
        parse_move(&pos, text.as_bytes(), Lang::English)
            .map(|m| to_san(&pos, m))
            .map_err(|e| e.to_string())
    }

    fn check(fen: &str, inputs: &[&str], canonical: &str) {
        for input in inputs {
            assert_eq!(play(fen, input).as_deref(), Ok(canonical), "input {input:?}");
        }
    }

    #[test]
    fn pawn_and_piece_moves() {
        check("", &["e4", "e2e4", "e2-e4", "Pe4", "e4!?", "e4?!", "e4!!", "e4??"], "e4");
        check("", &["Nf3", "Ng1f3", "Ng1-f3", "g1f3", "Ngf3", "N1f3", "♘f3", "Nf3+"], "Nf3");
    }

    #[test]
    fn captures_and_en_passant() {
        let fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
        check(fen, &["exf6", "exf6e.p.", "exf6ep", "e5xf6", "ef6", "e:f6", "e5f6"], "exf6");
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
        check(fen, &["exd5", "e4xd5", "e4d5", "ed5", "e:d5"], "exd5");
        // The capture marker is not trusted either way.
        check("", &["Nxf3"], "Nf3");
        assert!(play(fen, "d5").is_err(), "a pawn capture needs its file");
    }

    #[test]
    fn castling_forms() {
        let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
        check(fen, &["O-O", "0-0", "o-o", "O-O+", "e1g1", "e1h1", "Ke1g1"], "O-O");
        check(fen, &["O-O-O", "0-0-0", "e1c1", "e1a1"], "O-O-O");
        assert_eq!(
            play("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/RN2K2R w KQkq - 0 1", "O-O-O").unwrap_err(),
            "illegal move 'O-O-O': castling is not possible here"
        );
    }

    #[test]
    fn promotions() {
        let fen = "1n5k/P7/8/8/8/8/8/K7 w - - 0 1";
        check(fen, &["a8=Q", "a8Q", "a8(Q)", "a8/Q", "a7a8q", "a7a8Q", "a7a8=Q", "a8=Q+"], "a8=Q");
        check(fen, &["axb8=N", "axb8N", "a7b8n", "ab8N"], "axb8=N");
        check(fen, &["axb8=B", "a7b8b", "axb8b"], "axb8=B");
        assert_eq!(
            play(fen, "a8").unwrap_err(),
            "illegal move 'a8': a pawn reaching the last rank needs a promotion piece"
        );
        assert_eq!(play("", "Ne4=Q").unwrap_err(), "'Ne4=Q' is not a move: only pawns promote");
    }

    #[test]
    fn disambiguation_written_minimally() {
        // Knights on b1 and f3 can both reach d2: file.
        let fen = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1";
        check(fen, &["Nbd2", "Nb1d2", "N1d2"], "Nbd2");
        // Rooks on a1 and a5: rank.
        let fen = "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1";
        check(fen, &["R1a3", "Ra1a3"], "R1a3");
        // Queens on a1, a3, c1 can all reach b2... e.g. a1 needs both.
        let fen = "4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1";
        check(fen, &["Qa1b2"], "Qa1b2");
        // Over-disambiguation is accepted and written minimally.
        check("", &["Nb1c3", "Nbc3"], "Nc3");
    }

    #[test]
    fn errors_name_move_reason_and_candidates() {
        assert_eq!(play("", "Nd2").unwrap_err(), "illegal move 'Nd2': d2 is taken by a white pawn");
        let fen = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1";
        assert_eq!(play(fen, "Nd2").unwrap_err(), "ambiguous move 'Nd2': could be Nbd2, Nfd2");
        assert_eq!(
            play("", "Nf4").unwrap_err(),
            "illegal move 'Nf4': no white knight can go to f4"
        );
        // A pinned knight.
        let fen = "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1";
        assert_eq!(
            play(fen, "Nc3").unwrap_err(),
            "illegal move 'Nc3': the white knight cannot go to c3 without leaving its king in check"
        );
        assert_eq!(play("", "Sf3").unwrap_err(), "'Sf3' is not a move: unknown piece letter");
        assert_eq!(play("", "e9").unwrap_err(), "'e9' is not a move: no destination square");
        assert_eq!(
            play("", "Nzf3").unwrap_err(),
            "'Nzf3' is not a move: unexpected characters before the destination"
        );
        assert_eq!(
            play("", "e4%").unwrap_err(),
            "'e4%' is not a move: unexpected character at the end"
        );
        assert_eq!(
            play("", "e8=K").unwrap_err(),
            "'e8=K' is not a move: a pawn promotes to a queen, rook, bishop or knight"
        );
        assert_eq!(play("", "").unwrap_err(), "'' is not a move: empty");
        assert_eq!(play("", "N").unwrap_err(), "'N' is not a move: no destination square");
    }

    #[test]
    fn other_languages() {
        let pos = Position::new();
        for (lang, text) in [
            (Lang::French, "Cf3"),
            (Lang::German, "Sf3"),
            (Lang::Dutch, "Pf3"),
            (Lang::Spanish, "Cf3"),
            (Lang::Italian, "Cf3"),
        ] {
            let m = parse_move(&pos, text.as_bytes(), lang).unwrap();
            assert_eq!(to_san(&pos, m), "Nf3", "{lang:?}");
        }
        // French: R is the king, T the rook, D the queen, F the bishop.
        let fen = "4k3/8/8/8/8/8/8/R3K2B w - - 0 1";
        let pos = parse_position(fen).unwrap();
        assert_eq!(to_san(&pos, parse_move(&pos, b"Rd2", Lang::French).unwrap()), "Kd2");
        assert_eq!(to_san(&pos, parse_move(&pos, b"Ta2", Lang::French).unwrap()), "Ra2");
        assert_eq!(to_san(&pos, parse_move(&pos, b"Fb7", Lang::French).unwrap()), "Bb7");
        // German promotion letter.
        let pos = parse_position("8/P6k/8/8/8/8/8/K7 w - - 0 1").unwrap();
        assert_eq!(to_san(&pos, parse_move(&pos, b"a8=D", Lang::German).unwrap()), "a8=Q");
    }

    #[test]
    fn replay_detects_language_per_game() {
        let start = Position::new();
        // French: "Rd2" in English would be a rook move and fails.
        let texts: Vec<&[u8]> = vec![b"e4", b"e5", b"Cf3", b"Cc6", b"Fc4", b"Fc5", b"Re2"];
        let r = replay(&start, &texts, None);
        assert_eq!(r.error, None);
        assert_eq!(r.lang, Lang::French);
        assert_eq!(r.moves.len(), 7);
        // Forced English keeps the error at the first French letter.
        let r = replay(&start, &texts, Some(Lang::English));
        assert_eq!(r.error.as_ref().map(|e| e.0), Some(2));
        // A game that fails in every language keeps English's error.
        let texts: Vec<&[u8]> = vec![b"e4", b"e5", b"Nf6"];
        let r = replay(&start, &texts, None);
        assert_eq!(r.lang, Lang::English);
        assert_eq!(r.error.as_ref().map(|e| e.0), Some(2));
        // Null moves pass.
        let texts: Vec<&[u8]> = vec![b"e4", b"--", b"d4"];
        let r = replay(&start, &texts, None);
        assert_eq!(r.moves, vec![r.moves[0], None, r.moves[2]]);
        assert_eq!(r.error, None);
    }

    #[test]
    fn checks_and_mates_are_written() {
        let mut pos = Position::new();
        let mut out = Vec::new();
        for text in ["f3", "e5", "g4", "Qh4"] {
            let m = parse_move(&pos, text.as_bytes(), Lang::English).unwrap();
            out.push(SanPlus::from_move_and_play(&mut pos, m).to_string());
        }
        assert_eq!(out, ["f3", "e5", "g4", "Qh4#"]);
        assert!(pos.is_checkmate());
    }

    #[test]
    fn bytes_and_text_agree_and_unique_moves_need_no_disambiguation() {
        // Every legal move of random play and of positions with rivals:
        // the byte writer and the text writer give the same SAN, and the
        // SAN without rival search equals the canonical one exactly when
        // no other legal move of the role reaches the square.
        let positions = positions_from(
            &[
                "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
                "1k6/8/8/3N1N2/8/3N1N2/8/4K3 w - - 0 1",
                "k7/4P3/8/8/8/8/8/4K2R w K - 0 1",
                "2k5/8/8/8/Q6Q/8/8/Q3K3 w - - 0 1",
            ],
            0x51ed_270b_2763_7ab1,
            200,
        );
        let (mut with_rivals, mut moves) = (0, 0);
        for pos in &positions {
            let mut legal = MoveList::new();
            pos.legal_moves(&mut legal);
            for &m in legal.iter() {
                moves += 1;
                let plus = SanPlus::from_move(pos, m);
                let mut bytes = b"x ".to_vec();
                plus.append_ascii(&mut bytes);
                assert_eq!(bytes, format!("x {plus}").into_bytes());
                let rivals = legal
                    .iter()
                    .filter(|o| o.role() == m.role() && o.to() == m.to() && o.from() != m.from())
                    .count();
                let unique = San::from_unique_move(m);
                if rivals == 0 || m.role() == Role::Pawn {
                    assert_eq!(unique, plus.san, "{plus} at {}", write(pos));
                } else {
                    with_rivals += 1;
                    assert_ne!(unique, plus.san, "{plus} at {}", write(pos));
                }
            }
        }
        assert!(moves > 5_000 && with_rivals > 20, "{moves} moves, {with_rivals} with rivals");
    }

    /// The positions of `fens`, then those of `plies` plies of random play
    /// from `seed`.
    fn positions_from(fens: &[&str], seed: u64, plies: usize) -> Vec<Position> {
        let mut positions: Vec<Position> =
            fens.iter().map(|fen| parse_position(fen).unwrap()).collect();
        crate::chess::position::random_play(seed, plies, |pos| positions.push(pos.clone()));
        positions
    }

    #[test]
    fn quick_move_agrees_with_the_general_path() {
        // Every text of the quick shapes (with and without `+`/`#`) in every
        // language, on positions of random play and a few with pins,
        // checks, en passant and promotions: `quick_move` finds the move
        // the general path finds, or leaves the text to it.
        let mut texts: Vec<Vec<u8>> =
            ["O-O", "O-O-O", "0-0", "0-0-0"].iter().map(|t| t.as_bytes().to_vec()).collect();
        for f in b'a'..=b'h' {
            for r in b'1'..=b'8' {
                let mut shapes = vec![vec![f, r]];
                for p in b"KQRBNPCDTFLSA" {
                    shapes.push(vec![*p, f, r]);
                    shapes.push(vec![*p, b'x', f, r]);
                }
                for o in b'a'..=b'h' {
                    shapes.push(vec![o, b'x', f, r]);
                    shapes.push(vec![o, b':', f, r]);
                }
                for shape in shapes {
                    texts.push([shape.as_slice(), b"+"].concat());
                    texts.push([shape.as_slice(), b"#"].concat());
                    texts.push(shape);
                }
            }
        }
        let positions = positions_from(
            &[
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
                "r3k2r/8/8/8/8/5n2/8/R3K2R w KQkq - 0 1",
                "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 1",
                "4k3/1P6/8/8/4b3/8/3N4/4K3 w - - 0 1",
                "4k3/4r3/8/b7/8/2N5/4R3/4K3 w - - 0 1",
                "r3k2r/8/8/8/3q4/8/8/R3K2R w KQkq - 0 1",
            ],
            0x9e37_79b9_7f4a_7c15,
            300,
        );
        let mut found = 0;
        for pos in &positions {
            for lang in Lang::ALL {
                for text in &texts {
                    if let Some(m) = quick_move(pos, text, lang) {
                        found += 1;
                        assert_eq!(
                            parse_move(pos, text, lang).ok(),
                            Some(m),
                            "{} in {lang:?} at {}",
                            String::from_utf8_lossy(text),
                            crate::notation::fen::write(pos)
                        );
                        // The replay writes a quick move without looking
                        // for rivals: the text must be the canonical one.
                        assert_eq!(
                            San::from_unique_move(m),
                            San::from_move(pos, m),
                            "{} in {lang:?} at {}",
                            String::from_utf8_lossy(text),
                            crate::notation::fen::write(pos)
                        );
                    }
                }
            }
        }
        assert!(found > 10_000, "{found} moves found");
    }

    #[test]
    fn quick_disambiguated_move_agrees_with_the_general_path() {
        // Every piece move written with its origin's file or rank, the true
        // one or another, with and without `x`, in every language's
        // letters, on positions of random play and a few with rivals and
        // pins: the quick path finds exactly what the general path finds.
        let positions = positions_from(
            &[
                "4k3/8/8/8/1N3N2/8/8/R3K2R w - - 0 1",
                "4k3/4r3/8/8/8/2N1N3/4R3/R3K3 w - - 0 1",
                "3rk2r/8/8/8/8/8/8/4K3 b - - 0 1",
            ],
            0x5851_f42d_4c95_7f2d,
            200,
        );
        let (mut found, mut tried) = (0, 0);
        for pos in &positions {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            for lang in Lang::ALL {
                for letter in b'A'..=b'Z' {
                    let Some(role) = lang.role(letter) else { continue };
                    for m in moves.iter().filter(|m| m.role() == role) {
                        let (from, to) = (m.from(), m.to());
                        let other_file = (from.file().index() as u8 + 1) % 8;
                        let other_rank = (from.rank().index() as u8 + 1) % 8;
                        for origin in [
                            from.file().char() as u8,
                            from.rank().char() as u8,
                            b'a' + other_file,
                            b'1' + other_rank,
                        ] {
                            for x in [&b""[..], b"x"] {
                                let text = [
                                    &[letter, origin][..],
                                    x,
                                    &[to.file().char() as u8, to.rank().char() as u8],
                                ]
                                .concat();
                                let quick = quick_disambiguated_move(pos, &text, lang);
                                // Pawns and kings are left to the general path.
                                let general = if matches!(role, Role::Pawn | Role::King) {
                                    None
                                } else {
                                    parse_move(pos, &text, lang).ok()
                                };
                                assert_eq!(
                                    quick,
                                    general,
                                    "{} in {lang:?} at {}",
                                    String::from_utf8_lossy(&text),
                                    crate::notation::fen::write(pos)
                                );
                                tried += 1;
                                found += usize::from(quick.is_some());
                            }
                        }
                    }
                }
            }
        }
        assert!(found > 5_000 && tried > 2 * found, "{found} of {tried} texts read");
    }

    #[test]
    fn fast_shapes_parse_as_the_general_path_does() {
        let mut tokens: Vec<Vec<u8>> = Vec::new();
        for f in b'a'..=b'h' {
            for r in b'1'..=b'8' {
                tokens.push(vec![f, r]);
                for p in b'A'..=b'Z' {
                    tokens.push(vec![p, f, r]);
                    tokens.push(vec![p, b'x', f, r]);
                    tokens.push(vec![p, b':', f, r]);
                }
                for o in b'a'..=b'h' {
                    tokens.push(vec![o, b'x', f, r]);
                    tokens.push(vec![o, b':', f, r]);
                }
            }
        }
        for lang in Lang::ALL {
            for token in &tokens {
                assert_eq!(
                    San::parse(token, lang),
                    San::parse_general(token, lang),
                    "{} in {lang:?}",
                    String::from_utf8_lossy(token)
                );
            }
        }
    }
}
