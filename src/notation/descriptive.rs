//! English descriptive notation, as 19th- and 20th-century English books
//! print it: `P-K4 P-K4 N-KB3 N-QB3 B-B4 B-B4 P-QN4 BxNP`.
//!
//! Accepted (reading):
//! - pieces `K Q R B N P`, and `Kt` for the knight;
//! - squares from the mover's side: the file named by the piece that starts
//!   on it (`QR QN QB Q K KB KN KR`, `QKt KKt`), the rank counted from the
//!   mover's first rank (White's `K4` is e4, Black's is e5; `sq` for the
//!   first rank, as in `R-Q sq`, `K-B sq`); a file without
//!   its side (`B4`, `N3`, `R1`) means either: the legal reading is the move,
//!   two legal readings are ambiguous;
//! - moves `P-K4`, `Kt-KB3`, `R-Q1`; the mover qualified by its side
//!   (`KN-B3`, `QR-Q1`: in a game, the piece that started on that side,
//!   else, or when none did, the one on that half of the board; `KB`/`QB`:
//!   the bishop on the squares of that bishop's colour), a pawn by its file
//!   (`KBP`, `RP`), any piece by its square (`R(QB1)-Q1`, `R/QB1-Q1`,
//!   `N(Q2)-B3`);
//! - captures `PxP`, `NxP`, `BxN`, `BxNP`, `PxQBP`, `RPxP`, `BxKB`, `KtxP`,
//!   `×` or `:` for `x`, the captured piece qualified as a mover is, or
//!   followed by its square (`QxP(QB6)`), or a square alone (`BxQ5`);
//!   `PxP e.p.` (then only an en-passant capture matches);
//! - a `-` move never captures and an `x` move always does: descriptive
//!   notation names what is taken;
//! - castling `O-O`, `O-O-O`, `0-0`, `0-0-0`, `Castles`, `Castles KR`,
//!   `Castles QR`, `Castles (Q)`, `Castles K`; a plain `Castles` is the
//!   king's side when it is legal (the books write the queen's side out);
//! - check and mate marks `ch`, `ch.`, `check`, `+`, `dis ch`, `dbl ch`,
//!   `mate`, `#` — accepted and not checked, like SAN's `+`; `!`/`?`;
//! - promotion `P-K8(Q)`, `P-K8=Q`, `P-K8/Q`, `P-Q8Q`, `PxN(Q)`, `(Kt)`.
//!
//! A move may span several words (`B-B4 dis ch`, `PxP e.p.`, `Castles KR`):
//! `pgn::descriptive` cuts a whole movetext into move texts, each one move
//! with its words.
//!
//! Resolution ([`Descriptive::to_move`]) is by brute force over the legal
//! moves: descriptive notation is read only for games that SAN could not
//! read, and then speed does not matter. Written: [`write`], with the least
//! qualification that reads back as the same move.

use crate::chess::{Bitboard, CastlingSide, Color, Move, MoveList, Position, Role, Square};

/// Why a descriptive move cannot be read or played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DescriptiveError {
    /// The text is not a descriptive move.
    #[error("'{text}' is not a move: {reason}")]
    Parse {
        /// The text.
        text: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// No legal move matches.
    #[error("illegal move '{text}': {reason}")]
    Illegal {
        /// The move as written.
        text: String,
        /// Why nothing matches, with the legal moves that come closest.
        reason: String,
    },
    /// Several legal moves match.
    #[error("ambiguous move '{text}': could be {}", candidates.join(", "))]
    Ambiguous {
        /// The move as written.
        text: String,
        /// The matching moves, each fully qualified with its SAN
        /// (`N-QB3 (Nc3)`).
        candidates: Vec<String>,
    },
}

impl DescriptiveError {
    /// What is wrong, without the move's text (for messages that name the
    /// move by its number, see [`super::san::numbered`]).
    pub fn reason(&self) -> String {
        match self {
            DescriptiveError::Parse { reason, .. } => format!("not a move: {reason}"),
            DescriptiveError::Illegal { reason, .. } => format!("illegal move: {reason}"),
            DescriptiveError::Ambiguous { candidates, .. } => {
                format!("ambiguous move: could be {}", candidates.join(", "))
            }
        }
    }
}

/// A set of files, bit 0 for the a-file.
type Files = u8;

/// Every file.
const ANY_FILE: Files = 0xff;

/// The side of the board a piece is named by (`KR`, `QKt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Side {
    King,
    Queen,
}

/// A square as the text names it: one file or a pair (`B4` is c4 or f4),
/// and a rank counted from the mover's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct SquareName {
    files: Files,
    /// 0 for the first rank.
    rank: u8,
}

impl SquareName {
    /// Whether `sq`, seen from `color`'s side, is one of the squares named.
    fn matches(self, sq: Square, color: Color) -> bool {
        self.files & (1 << sq.file().index()) != 0
            && sq.rank().relative_to(color).index() == u32::from(self.rank)
    }

    /// The squares named, for `color`, in algebraic notation (`c4 or f4`).
    fn algebraic(self, color: Color) -> String {
        Square::all()
            .filter(|&sq| self.matches(sq, color))
            .map(|sq| sq.to_string())
            .collect::<Vec<_>>()
            .join(" or ")
    }
}

/// A piece as the text names it: its role, and what qualifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct PieceName {
    role: Role,
    /// The files it may stand on (a pawn's file: `KBP`, `RP`).
    files: Files,
    /// The side of a rook, knight or bishop (`KR`, `QKt`, `KB`).
    side: Option<Side>,
    /// The square it stands on (`R(QB1)`).
    square: Option<SquareName>,
}

impl PieceName {
    /// Whether a piece of `color` and `role` on `sq` is the one named by
    /// `mover` (who names squares from their side), `origins` telling
    /// where the game's pieces started.
    fn matches(
        self,
        color: Color,
        role: Role,
        sq: Square,
        mover: Color,
        origins: Option<&Origins>,
    ) -> bool {
        role == self.role
            && self.files & (1 << sq.file().index()) != 0
            && self.square.is_none_or(|s| s.matches(sq, mover))
            && self.side.is_none_or(|side| {
                let home = origins.and_then(|o| o.of(sq)).unwrap_or(sq);
                on_side(side, color, role, home)
            })
    }
}

/// Where each piece of a game started, by the square it stands on: in
/// older books the king's knight (`KKt`) is the knight that started on the
/// king's side, wherever it went. A piece of the start position starts
/// where it stands there; a promoted piece has no origin (its square
/// names it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origins([Option<Square>; 64]);

impl Origins {
    /// The pieces of `start`, each starting where it stands.
    pub fn new(start: &Position) -> Origins {
        let mut origins = [None; 64];
        for (sq, _) in start.board().pieces() {
            origins[sq.index()] = Some(sq);
        }
        Origins(origins)
    }

    /// Where the piece on `sq` started, if known.
    pub fn of(&self, sq: Square) -> Option<Square> {
        self.0[sq.index()]
    }

    /// Follows `m`, legal in the position before it.
    pub fn play(&mut self, m: Move) {
        let o = &mut self.0;
        match m {
            Move::Normal { from, to, promotion, .. } => {
                o[to.index()] = if promotion.is_some() { None } else { o[from.index()] };
                o[from.index()] = None;
            }
            Move::EnPassant { from, to } => {
                o[Square::from_coords(to.file(), from.rank()).index()] = None;
                o[to.index()] = o[from.index()];
                o[from.index()] = None;
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_and_rook(king, rook);
                let color = if king.rank().index() == 0 { Color::White } else { Color::Black };
                let (k, r) = (o[king.index()], o[rook.index()]);
                o[king.index()] = None;
                o[rook.index()] = None;
                o[side.king_to(color).index()] = k;
                o[side.rook_to(color).index()] = r;
            }
        }
    }
}

/// Whether the `role` of `color` that started on `home` (or stands there,
/// when its start is not known) is its king's or queen's one: a bishop by
/// the colour of its squares (the king's bishop starts on f1 or f8), a rook
/// or knight by the half of the board.
fn on_side(side: Side, color: Color, role: Role, sq: Square) -> bool {
    if role == Role::Bishop {
        let home = match (side, color) {
            (Side::King, Color::White) => Square::F1,
            (Side::King, Color::Black) => Square::F8,
            (Side::Queen, Color::White) => Square::C1,
            (Side::Queen, Color::Black) => Square::C8,
        };
        Bitboard::LIGHT.contains(home) == Bitboard::LIGHT.contains(sq)
    } else {
        (sq.file().index() >= 4) == (side == Side::King)
    }
}

/// Where a move goes, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Target {
    /// `-K4`: to a square, taking nothing; `xK4`: taking on it.
    Square(SquareName),
    /// `xN`, `xQBP`, `xP(QB6)`: taking that piece.
    Piece(PieceName),
}

/// A descriptive move, read but not yet checked against a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Descriptive(Kind);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// Castling; `None` for a plain `Castles` (the king's side if legal).
    Castle(Option<CastlingSide>),
    Normal {
        mover: PieceName,
        capture: bool,
        target: Target,
        promotion: Option<Role>,
        en_passant: bool,
    },
}

/// The words that mark a check, a mate or en passant after a move, longest
/// first where one ends another. Not trusted (the board decides), except
/// `e.p.`, which a move's reading reports; the movetext's tokenizer joins
/// them to the move before.
pub const MARKS: [&[u8]; 15] = [
    b"dis. ch.",
    b"dbl. ch.",
    b"check",
    b"mate",
    b"dis",
    b"dbl",
    b"ch.",
    b"ch",
    b"e.p.",
    b"e.p",
    b"ep",
    b"++",
    b"+",
    b"#",
    b"dis.",
];

/// Strips trailing annotations, check and mate marks and `e.p.` (with the
/// spaces between them) off `s`; `true` if `e.p.` was among them.
fn strip_marks(mut s: &[u8]) -> (&[u8], bool) {
    let mut en_passant = false;
    loop {
        let trimmed = s.trim_ascii_end();
        let trimmed = match trimmed {
            [rest @ .., b'!' | b'?'] => rest,
            _ => trimmed,
        };
        let mark = MARKS.iter().find(|m| {
            trimmed.ends_with(m)
                // Glued to the move, a mark must follow what a move ends
                // with (`B-N5ch`, not the `ch` of a longer word).
                && glued_mark_ends_move(&trimmed[..trimmed.len() - m.len()])
        });
        match mark {
            Some(m) => {
                en_passant |= m.starts_with(b"e");
                s = &trimmed[..trimmed.len() - m.len()];
            }
            None if trimmed.len() == s.len() => return (s, en_passant),
            None => s = trimmed,
        }
    }
}

/// Whether a mark may end a move whose text before it is `before`: alone,
/// or glued to anything but a lower-case letter (`B-N5ch`, `PxPe.p.`), the
/// `t` of `Kt` aside (`BxKtch`).
fn glued_mark_ends_move(before: &[u8]) -> bool {
    match before {
        [] => true,
        [.., b'K', b't'] => true,
        [.., last] => !last.is_ascii_lowercase(),
    }
}

/// Reads a piece-name word at the start of `s`: the roles it is made of
/// (`K`, `Q`, `R`, `B`, `N`/`Kt`, `P`), at most three, and the bytes used.
fn name_parts(s: &[u8]) -> (Vec<Role>, usize) {
    let mut parts = Vec::new();
    let mut i = 0;
    while parts.len() < 3 {
        let (role, n) = match &s[i..] {
            [b'K', b't', ..] => (Role::Knight, 2),
            [b'K', ..] => (Role::King, 1),
            [b'Q', ..] => (Role::Queen, 1),
            [b'R', ..] => (Role::Rook, 1),
            [b'B', ..] => (Role::Bishop, 1),
            [b'N', ..] => (Role::Knight, 1),
            [b'P', ..] => (Role::Pawn, 1),
            _ => break,
        };
        parts.push(role);
        i += n;
    }
    (parts, i)
}

/// The files a file name means: `K` e, `Q` d, `KB` f, `B` c or f, …
fn files_of(parts: &[Role]) -> Option<Files> {
    const E: Files = 1 << 4;
    const D: Files = 1 << 3;
    let piece = |role: Role| -> Option<Files> {
        match role {
            Role::Rook => Some(1 << 0 | 1 << 7),
            Role::Knight => Some(1 << 1 | 1 << 6),
            Role::Bishop => Some(1 << 2 | 1 << 5),
            _ => None,
        }
    };
    match *parts {
        [Role::King] => Some(E),
        [Role::Queen] => Some(D),
        [r] => piece(r),
        [Role::King, r] => piece(r).map(|f| f & 0xf0),
        [Role::Queen, r] => piece(r).map(|f| f & 0x0f),
        _ => None,
    }
}

/// A square name (`QB4`, `K4`, `B4`, `Kt3`) at the start of `s`, and the
/// bytes used.
fn square_name(s: &[u8]) -> Option<(SquareName, usize)> {
    let (parts, n) = name_parts(s);
    let files = files_of(&parts)?;
    match &s[n..] {
        [r @ b'1'..=b'8', ..] => Some((SquareName { files, rank: r - b'1' }, n + 1)),
        // `sq` (`R-Q sq`, `K-B sq.`): the first rank, in older books.
        [b's', b'q', b'.', ..] => Some((SquareName { files, rank: 0 }, n + 3)),
        [b's', b'q', ..] => Some((SquareName { files, rank: 0 }, n + 2)),
        _ => None,
    }
}

/// A parenthesised (`(QB1)`) or slashed (`/QB1`) square after a piece.
fn square_qualifier(s: &[u8]) -> Option<(SquareName, usize)> {
    match s {
        [b'(', rest @ ..] => {
            let (sq, n) = square_name(rest)?;
            (rest.get(n) == Some(&b')')).then_some((sq, n + 2))
        }
        [b'/', rest @ ..] => square_name(rest).map(|(sq, n)| (sq, n + 1)),
        _ => None,
    }
}

/// A piece name (`N`, `KKt`, `QBP`, `R(QB1)`) at the start of `s`, and
/// the bytes used.
fn piece_name(s: &[u8]) -> Result<(PieceName, usize), &'static str> {
    let (parts, mut n) = name_parts(s);
    let Some((&role, qualifier)) = parts.split_last() else {
        return Err("no piece");
    };
    let mut name = PieceName { role, files: ANY_FILE, side: None, square: None };
    match (role, qualifier) {
        (_, []) => {}
        (Role::Pawn, q) => name.files = files_of(q).ok_or("unknown pawn file")?,
        (Role::Rook | Role::Knight | Role::Bishop, [Role::King]) => name.side = Some(Side::King),
        (Role::Rook | Role::Knight | Role::Bishop, [Role::Queen]) => {
            name.side = Some(Side::Queen);
        }
        _ => return Err("unknown piece name"),
    }
    if let Some((sq, used)) = square_qualifier(&s[n..]) {
        name.square = Some(sq);
        n += used;
    }
    Ok((name, n))
}

/// A promotion piece (`Q`, `R`, `B`, `N`, `Kt`) filling all of `s`.
fn promotion_piece(s: &[u8]) -> Option<Role> {
    match s {
        b"Q" => Some(Role::Queen),
        b"R" => Some(Role::Rook),
        b"B" => Some(Role::Bishop),
        b"N" | b"Kt" => Some(Role::Knight),
        _ => None,
    }
}

/// A promotion after the destination: `(Q)`, `=Q`, `/Q`, or `Q` right
/// after a rank.
fn promotion(s: &[u8], after_rank: bool) -> Result<Option<Role>, &'static str> {
    let piece = match s {
        [] => return Ok(None),
        [b'(', inner @ .., b')'] => inner,
        [b'=' | b'/', rest @ ..] => rest,
        _ if after_rank => s,
        _ => return Err("unexpected characters after the move"),
    };
    promotion_piece(piece).map(Some).ok_or("unexpected characters after the move")
}

/// Castling words: `Castles` with its side (`KR`, `K`, `(Q)`, `QR`, …).
fn castles(s: &[u8]) -> Option<Result<Option<CastlingSide>, &'static str>> {
    let rest = s.strip_prefix(b"Castles").or_else(|| s.strip_prefix(b"castles"))?;
    let side: Vec<u8> = rest
        .iter()
        .copied()
        .filter(|&b| !b"().".contains(&b) && !b.is_ascii_whitespace())
        .collect();
    Some(match side.as_slice() {
        b"" => Ok(None),
        b"K" | b"KR" => Ok(Some(CastlingSide::KingSide)),
        b"Q" | b"QR" => Ok(Some(CastlingSide::QueenSide)),
        _ => Err("unknown castling side"),
    })
}

impl Descriptive {
    /// Reads one move, which may span several words (`PxP e.p.`,
    /// `B-B4 dis ch`, `Castles QR`).
    ///
    /// # Errors
    /// [`DescriptiveError::Parse`] if the text is not a move.
    pub fn from_ascii(text: &[u8]) -> Result<Descriptive, DescriptiveError> {
        Descriptive::parse(text)
            .map(Descriptive)
            .map_err(|reason| DescriptiveError::Parse { text: super::excerpt(text), reason })
    }

    fn parse(text: &[u8]) -> Result<Kind, &'static str> {
        let (s, en_passant) = strip_marks(text.trim_ascii());
        let s = s.trim_ascii();
        match s {
            b"" => return Err("empty"),
            b"O-O" | b"0-0" | b"o-o" => return Ok(Kind::Castle(Some(CastlingSide::KingSide))),
            b"O-O-O" | b"0-0-0" | b"o-o-o" => {
                return Ok(Kind::Castle(Some(CastlingSide::QueenSide)))
            }
            _ => {}
        }
        if let Some(side) = castles(s) {
            return side.map(Kind::Castle);
        }
        // Spaces inside a move mean nothing (`P-K8 (Q)`, `Kt x P`).
        let spaceless: Vec<u8> = s.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
        let s = spaceless.as_slice();
        let (mover, n) = piece_name(s)?;
        let rest = &s[n..];
        let (capture, rest) = match rest {
            [b'-', rest @ ..] => (false, rest),
            // `–`, U+2013, as typeset books and their scans have it.
            [0xe2, 0x80, 0x93, rest @ ..] => (false, rest),
            [b'x' | b':', rest @ ..] => (true, rest),
            // `×`, U+00D7.
            [0xc3, 0x97, rest @ ..] => (true, rest),
            [] => return Err("no destination"),
            _ => return Err("expected '-' or 'x' after the piece"),
        };
        let (target, rest, after_rank) = match square_name(rest) {
            Some((sq, n)) => (Target::Square(sq), &rest[n..], true),
            None if capture => {
                let (piece, n) = piece_name(rest).map_err(|_| "no piece or square after 'x'")?;
                (Target::Piece(piece), &rest[n..], false)
            }
            None => return Err("no square after '-'"),
        };
        let promotion = promotion(rest, after_rank)?;
        if promotion.is_some() && mover.role != Role::Pawn {
            return Err("only pawns promote");
        }
        Ok(Kind::Normal { mover, capture, target, promotion, en_passant })
    }

    /// Whether the legal move `m` of `pos` is one this text means.
    fn means(&self, pos: &Position, m: Move, origins: Option<&Origins>) -> bool {
        let us = pos.turn();
        let Kind::Normal { mover, capture, target, promotion, en_passant } = self.0 else {
            return false;
        };
        if m.castling_side().is_some()
            || !mover.matches(us, m.role(), m.from(), us, origins)
            || capture != m.is_capture()
            || (en_passant && !matches!(m, Move::EnPassant { .. }))
            || promotion.is_some_and(|p| m.promotion() != Some(p))
        {
            return false;
        }
        match target {
            Target::Square(sq) => sq.matches(m.to(), us),
            Target::Piece(piece) => {
                let (role, at) = taken(m);
                piece.matches(us.other(), role, at, us, origins)
            }
        }
    }

    /// The legal moves of `pos` this text means.
    fn candidates(&self, pos: &Position, origins: Option<&Origins>) -> Vec<Move> {
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        if let Kind::Castle(side) = self.0 {
            let castle = |side| legal.iter().copied().find(|m| m.castling_side() == Some(side));
            return match side {
                Some(side) => castle(side).into_iter().collect(),
                // A plain `Castles` is the king's side when that is legal.
                None => castle(CastlingSide::KingSide)
                    .or_else(|| castle(CastlingSide::QueenSide))
                    .into_iter()
                    .collect(),
            };
        }
        legal.iter().copied().filter(|&m| self.means(pos, m, origins)).collect()
    }

    /// Finds the legal move this text means in `pos`; `text` (the move as
    /// written) names it in errors.
    ///
    /// # Errors
    /// [`DescriptiveError::Illegal`] or [`DescriptiveError::Ambiguous`],
    /// naming the move and the legal moves that come closest.
    pub fn to_move(&self, pos: &Position, text: &[u8]) -> Result<Move, DescriptiveError> {
        self.resolve(pos, None, text)
    }

    /// [`Descriptive::to_move`] in a game whose pieces' origins are
    /// known: `KKt`, `QR` name the knight or rook that started on that
    /// side, or, when none did, the one that stands there.
    ///
    /// # Errors
    /// As [`Descriptive::to_move`].
    pub fn to_move_in_game(
        &self,
        pos: &Position,
        origins: &Origins,
        text: &[u8],
    ) -> Result<Move, DescriptiveError> {
        self.resolve(pos, Some(origins), text)
    }

    /// The legal moves this text means: by the pieces' origins when known,
    /// else, or when that finds none, by where the pieces stand.
    fn matching(&self, pos: &Position, origins: Option<&Origins>) -> Vec<Move> {
        let candidates = self.candidates(pos, origins);
        if candidates.is_empty() && origins.is_some() {
            return self.candidates(pos, None);
        }
        candidates
    }

    fn resolve(
        &self,
        pos: &Position,
        origins: Option<&Origins>,
        text: &[u8],
    ) -> Result<Move, DescriptiveError> {
        let candidates = self.matching(pos, origins);
        match candidates.as_slice() {
            [m] => Ok(*m),
            [] => Err(self.explain_illegal(pos, text)),
            _ => Err(DescriptiveError::Ambiguous {
                text: super::excerpt(text),
                candidates: candidates.iter().map(|&m| full_name(pos, m)).collect(),
            }),
        }
    }

    #[cold]
    fn explain_illegal(&self, pos: &Position, text: &[u8]) -> DescriptiveError {
        let us = pos.turn();
        let color = us.fold("white", "black");
        let text = super::excerpt(text);
        let Kind::Normal { mover, capture, target, .. } = self.0 else {
            let reason = "castling is not possible here".to_string();
            return DescriptiveError::Illegal { text, reason };
        };
        let name = role_name(mover.role);
        let mut reason = match target {
            Target::Square(sq) if capture => {
                format!("no {color} {name} can take on {}", sq.algebraic(us))
            }
            Target::Square(sq) => {
                format!("no {color} {name} can go to {}", sq.algebraic(us))
            }
            Target::Piece(piece) => {
                let other = us.other().fold("white", "black");
                format!("no {color} {name} can take a {other} {}", role_name(piece.role))
            }
        };
        // The legal moves of the same role that reach a square of the text,
        // qualifiers, capture marks and promotion set aside.
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        let near: Vec<String> = legal
            .iter()
            .filter(|m| m.role() == mover.role && m.castling_side().is_none())
            .filter(|&&m| match target {
                Target::Square(sq) => sq.matches(m.to(), us),
                Target::Piece(piece) => {
                    let (role, at) = taken(m);
                    m.is_capture() && role == piece.role && piece.files & file_bit(at) != 0
                }
            })
            .map(|&m| full_name(pos, m))
            .collect();
        if !near.is_empty() {
            reason.push_str("; legal: ");
            reason.push_str(&near.join(", "));
        }
        DescriptiveError::Illegal { text, reason }
    }
}

/// Whether `text` reads as a descriptive move (legal or not): what the
/// PGN reader asks of a word that may start a game without tags.
pub fn is_move(text: &[u8]) -> bool {
    Descriptive::parse(text).is_ok()
}

impl std::str::FromStr for Descriptive {
    type Err = DescriptiveError;
    fn from_str(s: &str) -> Result<Descriptive, DescriptiveError> {
        Descriptive::from_ascii(s.as_bytes())
    }
}

/// The role and square of the piece `m` takes (a pawn beside the
/// destination for en passant; `m.to()` when it takes nothing).
fn taken(m: Move) -> (Role, Square) {
    match m {
        Move::EnPassant { from, to } => (Role::Pawn, Square::from_coords(to.file(), from.rank())),
        _ => (m.capture().unwrap_or(Role::Pawn), m.to()),
    }
}

fn file_bit(sq: Square) -> Files {
    1 << sq.file().index()
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

/// Parses `text` and finds its legal move in `pos`.
///
/// # Errors
/// [`DescriptiveError`] saying whether the text or the move is at fault.
///
/// ```
/// use pgnindex::chess::Position;
/// use pgnindex::notation::{descriptive, san};
/// let pos = Position::new();
/// let m = descriptive::parse_move(&pos, b"Kt-KB3")?;
/// assert_eq!(san::to_san(&pos, m), "Nf3");
/// # Ok::<_, descriptive::DescriptiveError>(())
/// ```
pub fn parse_move(pos: &Position, text: &[u8]) -> Result<Move, DescriptiveError> {
    Descriptive::from_ascii(text)?.to_move(pos, text)
}

/// [`parse_move`] in a game whose pieces' origins are known (see
/// [`Descriptive::to_move_in_game`]).
///
/// # Errors
/// As [`parse_move`].
pub fn parse_move_in_game(
    pos: &Position,
    origins: &Origins,
    text: &[u8],
) -> Result<Move, DescriptiveError> {
    Descriptive::from_ascii(text)?.to_move_in_game(pos, origins, text)
}

/// How [`write`] writes a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteOptions {
    /// The old style: `Kt` for the knight, `Castles`/`Castles QR`, and
    /// ` ch`/` mate`; otherwise `N`, `O-O`/`O-O-O` and `+`/`#`.
    pub kt: bool,
    /// Write check and mate marks.
    pub checks: bool,
}

/// `m` (legal in `pos`) in descriptive notation with the least
/// qualification that reads back as `m` alone: the shortest text among the
/// mover's names (`N`, `KN`, `N(KB3)`) and the target's (`B3`, `KB3`; `P`,
/// `BP`, `KBP`, `P(KB3)`).
///
/// ```
/// use pgnindex::chess::Position;
/// use pgnindex::notation::descriptive::{parse_move, write, WriteOptions};
/// let pos = Position::new();
/// let m = parse_move(&pos, b"P-K4")?;
/// assert_eq!(write(&pos, m, WriteOptions::default()), "P-K4");
/// let m = parse_move(&pos, b"N-KB3")?;
/// // `Kt-B3` could be c3 too.
/// assert_eq!(write(&pos, m, WriteOptions { kt: true, checks: false }), "Kt-KB3");
/// # Ok::<_, pgnindex::notation::descriptive::DescriptiveError>(())
/// ```
pub fn write(pos: &Position, m: Move, options: WriteOptions) -> String {
    write_with(pos, None, m, options)
}

/// [`write`] in a game whose pieces' origins are known: the text reads
/// back as `m` by [`parse_move_in_game`] (`KKt` naming the knight that
/// started on g1 or g8).
pub fn write_in_game(pos: &Position, origins: &Origins, m: Move, options: WriteOptions) -> String {
    write_with(pos, Some(origins), m, options)
}

fn write_with(pos: &Position, origins: Option<&Origins>, m: Move, options: WriteOptions) -> String {
    let mut text = write_move(pos, origins, m, options.kt);
    if options.checks {
        let mut after = pos.clone();
        after.play_unchecked(m);
        if after.is_check() {
            let mate = !after.has_legal_moves();
            text.push_str(match (options.kt, mate) {
                (true, true) => " mate",
                (true, false) => " ch",
                (false, true) => "#",
                (false, false) => "+",
            });
        }
    }
    text
}

/// The move's text without check marks (see [`write`]).
fn write_move(pos: &Position, origins: Option<&Origins>, m: Move, kt: bool) -> String {
    if let Some(side) = m.castling_side() {
        return match (side, kt) {
            (CastlingSide::KingSide, true) => "Castles",
            (CastlingSide::QueenSide, true) => "Castles QR",
            (CastlingSide::KingSide, false) => "O-O",
            (CastlingSide::QueenSide, false) => "O-O-O",
        }
        .to_string();
    }
    let us = pos.turn();
    let origin = |sq| origins.and_then(|o| o.of(sq)).unwrap_or(sq);
    let movers = piece_names(m.role(), m.from(), origin(m.from()), us, us, kt);
    let targets: Vec<String> = if m.is_capture() {
        let (role, at) = taken(m);
        piece_names(role, at, origin(at), us.other(), us, kt)
            .into_iter()
            .map(|t| format!("x{t}"))
            .chain([format!("x{}", square_text(at, us, kt, true))])
            .collect()
    } else {
        [false, true]
            .iter()
            .map(|&full| format!("-{}", square_text(m.to(), us, kt, full)))
            .collect()
    };
    let promotion = m.promotion().map_or(String::new(), |p| format!("({})", letter(p, kt)));
    let promotion = promotion.as_str();
    let mut texts: Vec<String> = movers
        .iter()
        .flat_map(|mover| targets.iter().map(move |t| format!("{mover}{t}{promotion}")))
        .collect();
    if matches!(m, Move::EnPassant { .. }) {
        let with_mark: Vec<String> = texts.iter().map(|t| format!("{t} e.p.")).collect();
        texts.extend(with_mark);
    }
    // Stable: at equal length the less qualified mover comes first.
    texts.sort_by_key(String::len);
    let reads_back = |t: &String| {
        Descriptive::parse(t.as_bytes())
            .is_ok_and(|kind| Descriptive(kind).matching(pos, origins).as_slice() == [m])
    };
    texts.iter().find(|t| reads_back(t)).or(texts.last()).cloned().unwrap_or_default()
}

/// The names of the `role` of `color` on `sq` that started on `home`,
/// least qualified first: the letter, the side or file (`KN`, `BP`,
/// `QBP`), then the square as `view` names it.
fn piece_names(
    role: Role,
    sq: Square,
    home: Square,
    color: Color,
    view: Color,
    kt: bool,
) -> Vec<String> {
    let l = letter(role, kt);
    let mut names = vec![l.to_string()];
    let side = |sq: Square| if sq.file().index() >= 4 { "K" } else { "Q" };
    match role {
        Role::Pawn => {
            if !matches!(sq.file().index(), 3 | 4) {
                names.push(format!("{}P", file_text(sq, kt, false)));
            }
            names.push(format!("{}P", file_text(sq, kt, true)));
        }
        Role::Bishop => {
            let light = Bitboard::LIGHT.contains(sq);
            let king_light = color.fold(true, false);
            names.push(format!("{}{l}", if light == king_light { "K" } else { "Q" }));
        }
        Role::Knight | Role::Rook => {
            names.push(format!("{}{l}", side(home)));
            if side(sq) != side(home) {
                names.push(format!("{}{l}", side(sq)));
            }
        }
        Role::King | Role::Queen => {}
    }
    names.push(format!("{l}({})", square_text(sq, view, kt, true)));
    names
}

fn letter(role: Role, kt: bool) -> &'static str {
    match role {
        Role::Pawn => "P",
        Role::Knight if kt => "Kt",
        Role::Knight => "N",
        Role::Bishop => "B",
        Role::Rook => "R",
        Role::Queen => "Q",
        Role::King => "K",
    }
}

/// The name of `sq`'s file: `QB` (full) or `B` (short, either side).
fn file_text(sq: Square, kt: bool, full: bool) -> String {
    let i = sq.file().index();
    let side = if i >= 4 { "K" } else { "Q" };
    let piece = match i {
        0 | 7 => "R",
        1 | 6 => letter(Role::Knight, kt),
        2 | 5 => "B",
        _ => return side.to_string(),
    };
    if full {
        format!("{side}{piece}")
    } else {
        piece.to_string()
    }
}

/// `sq` as `color` names it: `QB4` (full) or `B4`.
fn square_text(sq: Square, color: Color, kt: bool, full: bool) -> String {
    let rank = sq.rank().relative_to(color).index() + 1;
    format!("{}{rank}", file_text(sq, kt, full))
}

/// `m` written out in full with its SAN, for error messages:
/// `N-QB3 (Nc3)`.
fn full_name(pos: &Position, m: Move) -> String {
    let text = write_move(pos, None, m, false);
    format!("{text} ({})", super::san::San::from_move(pos, m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::{parse_position, write as fen};
    use crate::notation::san;

    /// The SAN of `text` read in `fen` (the standard start if empty).
    fn read(fen_text: &str, text: &str) -> Result<String, String> {
        let pos =
            if fen_text.is_empty() { Position::new() } else { parse_position(fen_text).unwrap() };
        parse_move(&pos, text.as_bytes()).map(|m| san::to_san(&pos, m)).map_err(|e| e.to_string())
    }

    fn check(fen_text: &str, texts: &[&str], expected: &str) {
        for text in texts {
            assert_eq!(read(fen_text, text).as_deref(), Ok(expected), "{text:?} in {fen_text:?}");
        }
    }

    /// The position after `moves` (SAN) from the start.
    fn after(moves: &str) -> String {
        let mut pos = Position::new();
        for m in moves.split_whitespace() {
            let m =
                san::parse_move(&pos, m.as_bytes(), crate::notation::lang::Lang::English).unwrap();
            pos.play_unchecked(m);
        }
        fen(&pos)
    }

    #[test]
    fn squares_from_the_movers_side() {
        check("", &["P-K4", "P-K4!", "KP-K4", "P-K4 ch", "P-K4+"], "e4");
        check("", &["N-KB3", "Kt-KB3", "KN-B3", "KKt-B3", "N(KN1)-B3", "N/KKt1-KB3"], "Nf3");
        check("", &["P-QB4", "QBP-B4", "BP-QB4"], "c4");
        let black = after("e4");
        check(&black, &["P-K4", "P-K4", "KP-K4"], "e5");
        check(&black, &["N-QB3", "QN-B3"], "Nc6");
        // `B4` is c4 or f4: the legal one.
        let fen_text = after("e4 e5 Nf3 Nc6");
        check(&fen_text, &["B-B4", "B-QB4", "KB-B4"], "Bc4");
    }

    #[test]
    fn pieces_qualified() {
        // Rooks on a1 and f1, both reaching d1.
        let fen_text = "4k3/8/8/8/8/8/4K3/R4R2 w - - 0 1";
        check(fen_text, &["QR-Q1", "R(QR1)-Q1", "R/QR1-Q1", "QR-Q sq", "R(QR sq)-Q sq."], "Rad1");
        check(fen_text, &["KR-Q1", "R(KB1)-Q1", "R/KB1-Q1"], "Rfd1");
        assert_eq!(
            read(fen_text, "R-Q1").unwrap_err(),
            "ambiguous move 'R-Q1': could be QR-Q1 (Rad1), KR-Q1 (Rfd1)"
        );
        // Knights on d2 and g1, both reaching f3: the square tells them apart.
        let fen_text = "4k3/8/8/8/8/8/3N4/4K1N1 w - - 0 1";
        check(fen_text, &["N(Q2)-B3", "N(Q2)-KB3", "QN-KB3"], "Ndf3");
        check(fen_text, &["N(KN1)-B3", "KN-B3", "KKt-KB3"], "Ngf3");
    }

    #[test]
    fn kings_and_queens_pieces_by_their_start_in_a_game() {
        // The queen's knight went b1-c3-e4-g3: in a game it is still the
        // queen's knight; on a board alone, a knight on the king's side.
        let moves = |last: &str| {
            let text = format!(
                "1. P-K3 Kt-KB3 2. Kt-QB3 Kt-Kt1 3. Kt-K4 Kt-KB3 4. Kt-Kt3 Kt-Kt1 5. {last}"
            );
            let mut pos = Position::new();
            let mut origins = Origins::new(&pos);
            let mut last = String::new();
            for word in text.split_whitespace().filter(|w| !w.ends_with('.')) {
                let m = parse_move_in_game(&pos, &origins, word.as_bytes())
                    .map_err(|e| e.to_string())?;
                last = san::to_san(&pos, m);
                origins.play(m);
                pos.play_unchecked(m);
            }
            Ok::<_, String>(last)
        };
        assert_eq!(moves("QKt-K2"), Ok("N3e2".to_string()));
        assert_eq!(moves("KKt-K2"), Ok("N1e2".to_string()));
        let fen_text = after("e3 Nf6 Nc3 Ng8 Ne4 Nf6 Ng3 Ng8");
        assert!(read(&fen_text, "KKt-K2").unwrap_err().starts_with("ambiguous move"));
        let e = read(&fen_text, "QKt-K2").unwrap_err();
        assert!(
            e.starts_with("illegal move 'QKt-K2': no white knight can go to e2; legal: "),
            "{e}"
        );
        assert!(e.contains("N(KN3)-K2 (N3e2)") && e.contains("N(KN1)-K2 (N1e2)"), "{e}");
        // Castling moves the rooks' origins with them.
        let mut origins = Origins::new(&Position::new());
        let pos = parse_position(&after("e4 e5 Nf3 Nc6 Bc4 Bc5")).unwrap();
        origins.play(parse_move(&pos, b"O-O").unwrap());
        assert_eq!(origins.of(Square::F1), Some(Square::H1));
        assert_eq!(origins.of(Square::G1), Some(Square::E1));
        assert_eq!(origins.of(Square::H1), None);
    }

    #[test]
    fn captures() {
        let fen_text = after("e4 d5");
        check(&fen_text, &["PxP", "KPxP", "PxQP", "P×P", "PxP ch", "P:P"], "exd5");
        // En passant, with or without its mark.
        let fen_text = after("e4 a6 e5 d5");
        check(&fen_text, &["PxP", "PxP e.p.", "PxPe.p.", "PxP ep", "PxQP"], "exd6");
        // A pawn that can take normally or en passant: `e.p.` decides.
        let fen_text = "4k3/8/3p4/4Pp2/8/8/8/4K3 w - f6 0 1";
        check(fen_text, &["PxP e.p.", "PxKBP"], "exf6");
        check(fen_text, &["PxQP"], "exd6");
        assert!(read(fen_text, "PxP").unwrap_err().starts_with("ambiguous move 'PxP'"));
        // Rook's pawn, bishop by the colour of its squares.
        check(&after("a4 b5"), &["RPxP", "PxNP", "PxKtP", "QRPxQNP"], "axb5");
        let fen_text = "4k3/8/3b4/5b2/8/3Q4/8/4K3 w - - 0 1";
        // Black's king's bishop keeps to dark squares (f8): d6 is dark.
        check(fen_text, &["QxKB", "QxB(Q6)", "QxQ6", "Q/Q3xB(Q6)"], "Qxd6");
        check(fen_text, &["QxQB", "QxB(KB5)", "QxKB5"], "Qxf5");
        assert!(read(fen_text, "QxB").unwrap_err().starts_with("ambiguous move 'QxB'"));
        check(&after("e4 e5 Nf3 Nc6 Bb5 a6"), &["BxN", "BxKt", "BxQN", "B(QN5)xN"], "Bxc6");
    }

    #[test]
    fn castling_forms() {
        let fen_text = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
        check(fen_text, &["O-O", "0-0", "Castles", "Castles KR", "Castles K", "Castles(K)"], "O-O");
        check(fen_text, &["O-O-O", "0-0-0", "Castles QR", "Castles (Q)", "Castles Q.R."], "O-O-O");
        // A plain `Castles` is the queen's side when only that is legal.
        check("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K1NR w KQkq - 0 1", &["Castles"], "O-O-O");
        assert_eq!(
            read("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "Castles").unwrap_err(),
            "illegal move 'Castles': castling is not possible here"
        );
    }

    #[test]
    fn promotions() {
        let fen_text = "1n5k/P7/8/8/8/8/8/K7 w - - 0 1";
        check(fen_text, &["P-R8(Q)", "P-R8=Q", "P-R8/Q", "P-QR8Q", "P-R8 (Q)"], "a8=Q");
        check(fen_text, &["PxN(Q)", "PxKt(Q)", "PxN=Q"], "axb8=Q+");
        check(fen_text, &["PxN(Kt)", "PxN(N)"], "axb8=N");
        assert_eq!(
            read(fen_text, "P-R8").unwrap_err(),
            "ambiguous move 'P-R8': could be P-R8(Q) (a8=Q), P-R8(R) (a8=R), P-R8(B) (a8=B), \
             P-R8(N) (a8=N)"
        );
        assert_eq!(
            read(fen_text, "K-N2(Q)").unwrap_err(),
            "'K-N2(Q)' is not a move: only pawns promote"
        );
    }

    #[test]
    fn errors_name_the_move_and_the_candidates() {
        assert_eq!(
            read("", "N-B3").unwrap_err(),
            "ambiguous move 'N-B3': could be N-QB3 (Nc3), N-KB3 (Nf3)"
        );
        assert_eq!(
            read("", "N-K4").unwrap_err(),
            "illegal move 'N-K4': no white knight can go to e4"
        );
        assert_eq!(
            read("", "B-B4").unwrap_err(),
            "illegal move 'B-B4': no white bishop can go to c4 or f4"
        );
        // A `-` move takes nothing: the capture is offered.
        assert_eq!(
            read(&after("e4 d5"), "P-Q5").unwrap_err(),
            "illegal move 'P-Q5': no white pawn can go to d5; legal: PxP (exd5)"
        );
        assert_eq!(
            read(&after("e4 d5"), "PxN").unwrap_err(),
            "illegal move 'PxN': no white pawn can take a black knight"
        );
        // The wrong rook named: the right one is offered.
        assert_eq!(
            read("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "KR-Q1").unwrap_err(),
            "illegal move 'KR-Q1': no white rook can go to d1; legal: R-Q1 (Rd1)"
        );
        for (text, reason) in [
            ("e4", "no piece"),
            ("P", "no destination"),
            ("P-e4", "no square after '-'"),
            ("P+K4", "expected '-' or 'x' after the piece"),
            ("PxE", "no piece or square after 'x'"),
            ("QBN-B3", "unknown piece name"),
            ("P-K4Z", "unexpected characters after the move"),
            ("Castles QB", "unknown castling side"),
            ("", "empty"),
        ] {
            assert_eq!(read("", text).unwrap_err(), format!("'{text}' is not a move: {reason}"));
        }
    }

    #[test]
    fn moves_written_with_spaces_or_dashes() {
        check(&after("e4 d5"), &["P x P", "P x Q P"], "exd5");
        check("", &["P–K4"], "e4");
        check("", &["Kt–KB3"], "Nf3");
    }

    #[test]
    fn written_moves_read_back() {
        // Every legal move of random play, in both styles with and without
        // check marks, reads back as itself (the proptest in
        // tests/it/roundtrip.rs does more).
        let mut count = 0;
        crate::chess::position::random_play(0x2545_f491_4f6c_dd1d, 300, |pos| {
            let mut legal = MoveList::new();
            pos.legal_moves(&mut legal);
            for &m in &legal {
                for kt in [false, true] {
                    for checks in [false, true] {
                        let text = write(pos, m, WriteOptions { kt, checks });
                        assert_eq!(
                            parse_move(pos, text.as_bytes()),
                            Ok(m),
                            "{text} at {}",
                            fen(pos)
                        );
                        count += 1;
                    }
                }
            }
        });
        assert!(count > 10_000, "{count}");
    }
}
