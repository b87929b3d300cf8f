//! Forsyth–Edwards Notation.
//!
//! Accepted:
//! - the six fields `placement turn castling en-passant halfmove fullmove`;
//!   trailing fields may be left out (defaults `w - - 0 1`), so the
//!   four-field EPD form works too; runs of spaces or tabs separate fields.
//!   The strict readers ([`Fen::from_ascii_strict`], [`parse_position_strict`])
//!   leave out only the clocks: for a position someone types, a default
//!   side to move or castling field would silently name another position;
//! - castling as standard `KQkq`, as X-FEN (`K`/`Q` meaning the outermost
//!   rook on that side of the king) and as Shredder-FEN (rook file letters,
//!   upper case for white: `HAha`), in any order, or `-`;
//! - a fullmove number of `0` (seen in real files) is read as 1.
//!
//! Written: six fields, X-FEN castling (`KQkq` whenever the castling rooks
//! are the outermost ones, so standard chess looks standard), and the
//! en-passant square only when an en-passant capture is legal — the
//! convention python-chess uses by default, so outputs compare equal.
//!
//! Parsing yields a [`Setup`]; [`Position::from_setup`] then checks legality
//! (kings, pawns on the back rank, check, castling, en passant).

use std::fmt;
use std::num::NonZeroU32;

use crate::chess::{
    Bitboard, Board, CastlingSide, Color, File, Piece, Position, PositionError, Rank, Role, Setup,
    Square,
};

/// A syntax error in a FEN, naming the field and the 1-based column of the
/// offending character.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseFenError {
    /// The text is empty.
    #[error("empty FEN")]
    Empty,
    /// A character in the placement field is not a piece letter, digit or `/`.
    #[error("placement field: unexpected character '{ch}' at column {col}")]
    PlacementChar {
        /// The character.
        ch: char,
        /// Its column.
        col: usize,
    },
    /// A rank of the placement field does not describe exactly 8 squares.
    #[error(
        "placement field: rank {rank} describes {squares} squares instead of 8 (column {col})"
    )]
    RankLength {
        /// The rank, 8 for the first one written.
        rank: u32,
        /// The squares it describes.
        squares: u32,
        /// Column where the rank ends.
        col: usize,
    },
    /// The placement field does not have exactly 8 ranks.
    #[error("placement field: {ranks} ranks instead of 8")]
    RankCount {
        /// The number of ranks found.
        ranks: u32,
    },
    /// The side-to-move field is not `w` or `b`.
    #[error("side-to-move field: expected 'w' or 'b', found '{found}' at column {col}")]
    Turn {
        /// What was found.
        found: String,
        /// Its column.
        col: usize,
    },
    /// A castling letter is unknown or names no rook/king pair.
    #[error("castling field: '{ch}' at column {col}: {reason}")]
    Castling {
        /// The letter.
        ch: char,
        /// Its column.
        col: usize,
        /// Why it is refused.
        reason: &'static str,
    },
    /// The en-passant field is not `-` or a square on rank 3 or 6.
    #[error("en-passant field: '{found}' at column {col} is not '-' or a square on rank 3 or 6")]
    EnPassant {
        /// What was found.
        found: String,
        /// Its column.
        col: usize,
    },
    /// The halfmove clock is not a number.
    #[error("halfmove field: '{found}' at column {col} is not a number")]
    Halfmoves {
        /// What was found.
        found: String,
        /// Its column.
        col: usize,
    },
    /// The fullmove number is not a number.
    #[error("fullmove field: '{found}' at column {col} is not a number")]
    Fullmoves {
        /// What was found.
        found: String,
        /// Its column.
        col: usize,
    },
    /// Fewer than the four position fields, where all four are required.
    #[error("{found} of the 4 position fields; {}", missing_fields(*found))]
    MissingFields {
        /// The number of fields given (1 to 3).
        found: usize,
    },
    /// More than six fields.
    #[error("unexpected text '{found}' after the six FEN fields at column {col}")]
    TrailingText {
        /// What was found.
        found: String,
        /// Its column.
        col: usize,
    },
}

/// What a FEN of `found` fields lacks of the four position fields.
fn missing_fields(found: usize) -> &'static str {
    match found {
        0 | 1 => "the side-to-move, castling and en-passant fields are missing",
        2 => "the castling and en-passant fields are missing",
        _ => "the en-passant field is missing",
    }
}

/// A FEN that is either unreadable or describes an illegal position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// The text is not a FEN.
    #[error("invalid FEN: {0}")]
    Parse(ParseFenError),
    /// The FEN describes an illegal position.
    #[error("illegal FEN position: {0}")]
    Position(PositionError),
}

// Manual conversions: the inner error is part of the message, not a
// separate `source`, so chains print it once.
impl From<ParseFenError> for FenError {
    fn from(e: ParseFenError) -> FenError {
        FenError::Parse(e)
    }
}

impl From<PositionError> for FenError {
    fn from(e: PositionError) -> FenError {
        FenError::Position(e)
    }
}

/// A parsed FEN: the [`Setup`] it describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fen(pub Setup);

/// The fields of a FEN-like line, each with its 1-based column.
pub(crate) struct Fields<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(text: &'a str) -> Fields<'a> {
        Fields { text, pos: 0 }
    }

    /// The rest of the text after the fields taken so far, and its column.
    pub(crate) fn rest(&self) -> (&'a str, usize) {
        let rest = &self.text[self.pos..];
        let trimmed = rest.trim_start_matches([' ', '\t']);
        (trimmed, self.pos + (rest.len() - trimmed.len()) + 1)
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = (&'a str, usize);
    fn next(&mut self) -> Option<(&'a str, usize)> {
        let (rest, col) = self.rest();
        if rest.is_empty() {
            self.pos = self.text.len();
            return None;
        }
        let len = rest.find([' ', '\t']).unwrap_or(rest.len());
        self.pos = col - 1 + len;
        Some((&rest[..len], col))
    }
}

impl Fen {
    /// Parses a FEN (six fields, or fewer with defaults).
    ///
    /// # Errors
    /// A [`ParseFenError`] naming the field and column.
    pub fn from_ascii(text: &[u8]) -> Result<Fen, ParseFenError> {
        Fen::from_ascii_fields(text, 1)
    }

    /// Parses a FEN with at least its four position fields (placement,
    /// side to move, castling, en passant); only the clocks may be left
    /// out.
    ///
    /// # Errors
    /// A [`ParseFenError`] naming the field and column, or
    /// [`ParseFenError::MissingFields`].
    pub fn from_ascii_strict(text: &[u8]) -> Result<Fen, ParseFenError> {
        Fen::from_ascii_fields(text, 4)
    }

    fn from_ascii_fields(text: &[u8], min_fields: usize) -> Result<Fen, ParseFenError> {
        let text = std::str::from_utf8(text).map_err(|e| ParseFenError::PlacementChar {
            ch: char::REPLACEMENT_CHARACTER,
            col: e.valid_up_to() + 1,
        })?;
        let mut fields = Fields::new(text.trim_end());
        let setup = parse_fields_up_to(&mut fields, min_fields, 6)?;
        let (rest, col) = fields.rest();
        if !rest.is_empty() {
            return Err(ParseFenError::TrailingText { found: rest.to_string(), col });
        }
        Ok(Fen(setup))
    }

    /// The FEN of `pos`.
    pub fn from_position(pos: &Position) -> Fen {
        Fen(pos.to_setup())
    }

    /// Checks the setup.
    ///
    /// # Errors
    /// The [`PositionError`] of an illegal setup.
    pub fn into_position(self) -> Result<Position, PositionError> {
        Position::from_setup(self.0)
    }

    /// Appends the six fields to `out`.
    pub fn append_to(&self, out: &mut String) {
        append_four_fields(&self.0, out);
        out.push(' ');
        append_decimal(u64::from(self.0.halfmoves), out);
        out.push(' ');
        append_decimal(u64::from(self.0.fullmoves.get()), out);
    }
}

impl std::str::FromStr for Fen {
    type Err = ParseFenError;
    fn from_str(s: &str) -> Result<Fen, ParseFenError> {
        Fen::from_ascii(s.as_bytes())
    }
}

impl fmt::Display for Fen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(90);
        self.append_to(&mut s);
        f.write_str(&s)
    }
}

/// Parses a FEN into a checked position.
///
/// # Errors
/// [`FenError::Parse`] for unreadable text, [`FenError::Position`] for an
/// illegal position.
///
/// ```
/// let pos = pgnindex::notation::fen::parse_position("8/8/8/8/8/8/8/K6k w - - 0 1")?;
/// assert_eq!(pos.count_legal_moves(), 3);
/// # Ok::<_, pgnindex::notation::fen::FenError>(())
/// ```
pub fn parse_position(text: &str) -> Result<Position, FenError> {
    Ok(Fen::from_ascii(text.as_bytes())?.into_position()?)
}

/// Parses a FEN that has at least its four position fields into a checked
/// position: what a user types as a position to look for.
///
/// # Errors
/// As [`parse_position`], and [`ParseFenError::MissingFields`] for a FEN
/// of fewer than four fields.
///
/// ```
/// use pgnindex::notation::fen::parse_position_strict;
/// assert!(parse_position_strict("8/8/8/8/8/8/8/K6k w - -").is_ok());
/// let e = parse_position_strict("8/8/8/8/8/8/8/K6k w").unwrap_err();
/// assert!(e.to_string().ends_with("the castling and en-passant fields are missing"));
/// ```
pub fn parse_position_strict(text: &str) -> Result<Position, FenError> {
    Ok(Fen::from_ascii_strict(text.as_bytes())?.into_position()?)
}

/// Parses a FEN as lichess's explorer reads one: an en-passant square no
/// pawn can have passed and castling rights that the position cannot have
/// (no rook there, a king off its square, a letter given twice) are
/// dropped rather than refused; anything else is refused as by
/// [`parse_position`].
///
/// # Errors
/// As [`parse_position`], for what dropping rights does not mend.
///
/// ```
/// use pgnindex::notation::fen::{parse_position, parse_position_repaired, write};
/// let fen = "4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1";
/// assert!(parse_position(fen).is_err());
/// assert_eq!(write(&parse_position_repaired(fen)?), "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
/// let fen = "4k3/8/8/8/8/8/8/4K2R w KQkq e6 0 1";
/// assert_eq!(write(&parse_position_repaired(fen)?), "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
/// # Ok::<_, pgnindex::notation::fen::FenError>(())
/// ```
pub fn parse_position_repaired(text: &str) -> Result<Position, FenError> {
    let error = match parse_position(text) {
        Ok(pos) => return Ok(pos),
        Err(e) => e,
    };
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    let Some(&castling) = fields.get(2) else { return Err(error) };
    // An en-passant square no pawn could have passed is dropped first:
    // the rights are then tried against the position it leaves.
    let mut fields = fields;
    if fields.len() >= 4 && fields[3] != "-" {
        let parses = |rights: &str, ep: &str| {
            let mut trial = fields.clone();
            (trial[2], trial[3]) = (rights, ep);
            parse_position(&trial.join(" ")).is_ok()
        };
        if !parses("-", fields[3]) && parses("-", "-") {
            fields[3] = "-";
        }
    }
    let with = |rights: &str| {
        let mut fields = fields.clone();
        fields[2] = rights;
        fields.join(" ")
    };
    let mut kept = String::new();
    for letter in castling.chars().filter(|&c| c != '-') {
        let mut trial = kept.clone();
        trial.push(letter);
        if parse_position(&with(&trial)).is_ok() {
            kept = trial;
        }
    }
    if kept.is_empty() {
        kept.push('-');
    }
    parse_position(&with(&kept)).map_err(|_| error)
}

/// The six-field FEN of `pos`.
pub fn write(pos: &Position) -> String {
    // Written in place: through `Display` the text was built, then copied
    // by the formatter (the import writes one per game).
    let mut out = String::with_capacity(90);
    Fen::from_position(pos).append_to(&mut out);
    out
}

/// Appends `n` in decimal, without the formatting machinery.
fn append_decimal(mut n: u64, out: &mut String) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

/// Parses the leading FEN fields (placement, then as many of the other five
/// as present, up to `max_fields`) from `fields`; fewer than `min_fields`
/// of the four position fields is [`ParseFenError::MissingFields`]. EPD
/// reuses this with four and four.
pub(crate) fn parse_fields_up_to(
    fields: &mut Fields<'_>,
    min_fields: usize,
    max_fields: usize,
) -> Result<Setup, ParseFenError> {
    let mut setup = Setup::empty();
    let (placement, col) = fields.next().ok_or(ParseFenError::Empty)?;
    setup.board = parse_placement(placement, col)?;
    let mut found = 1;
    if let Some((turn, col)) = fields.next() {
        found += 1;
        setup.turn = match turn {
            "w" | "W" => Color::White,
            "b" | "B" => Color::Black,
            _ => return Err(ParseFenError::Turn { found: turn.to_string(), col }),
        };
    }
    if let Some((castling, col)) = fields.next() {
        found += 1;
        setup.castling_rights = parse_castling(&setup.board, castling, col)?;
    }
    if let Some((ep, col)) = fields.next() {
        found += 1;
        setup.ep_square = parse_ep(ep, col)?;
    }
    if found < min_fields.min(4) {
        return Err(ParseFenError::MissingFields { found });
    }
    if max_fields > 4 {
        if let Some((half, col)) = fields.next() {
            setup.halfmoves = half
                .parse()
                .map_err(|_| ParseFenError::Halfmoves { found: half.to_string(), col })?;
        }
        if let Some((full, col)) = fields.next() {
            let n: u32 = full
                .parse()
                .map_err(|_| ParseFenError::Fullmoves { found: full.to_string(), col })?;
            setup.fullmoves = NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
        }
    }
    Ok(setup)
}

fn parse_placement(text: &str, col0: usize) -> Result<Board, ParseFenError> {
    let mut board = Board::empty();
    let mut rank = 7u32;
    let mut file = 0u32;
    let mut ranks = 1;
    for (i, ch) in text.char_indices() {
        let col = col0 + i;
        match ch {
            '/' => {
                if file != 8 {
                    return Err(ParseFenError::RankLength { rank: rank + 1, squares: file, col });
                }
                if rank == 0 {
                    return Err(ParseFenError::RankCount { ranks: 9 });
                }
                rank -= 1;
                ranks += 1;
                file = 0;
            }
            '1'..='8' => {
                file += ch as u32 - '0' as u32;
                if file > 8 {
                    return Err(ParseFenError::RankLength { rank: rank + 1, squares: file, col });
                }
            }
            _ => {
                let piece = Piece::from_char(ch).ok_or(ParseFenError::PlacementChar { ch, col })?;
                if file >= 8 {
                    return Err(ParseFenError::RankLength {
                        rank: rank + 1,
                        squares: file + 1,
                        col,
                    });
                }
                // Safety of the indices: rank <= 7 and file < 8 checked above.
                let sq =
                    Square::new(rank * 8 + file).ok_or(ParseFenError::PlacementChar { ch, col })?;
                board.set_piece_at(sq, piece);
                file += 1;
            }
        }
    }
    if file != 8 {
        return Err(ParseFenError::RankLength {
            rank: rank + 1,
            squares: file,
            col: col0 + text.len(),
        });
    }
    if ranks != 8 {
        return Err(ParseFenError::RankCount { ranks });
    }
    Ok(board)
}

fn parse_castling(board: &Board, text: &str, col0: usize) -> Result<Bitboard, ParseFenError> {
    let mut rights = Bitboard::EMPTY;
    if text == "-" {
        return Ok(rights);
    }
    for (i, ch) in text.char_indices() {
        let col = col0 + i;
        let err = |reason| ParseFenError::Castling { ch, col, reason };
        let color = if ch.is_ascii_uppercase() { Color::White } else { Color::Black };
        let back = color.back_rank();
        let king = board
            .king_of(color)
            .filter(|k| k.rank() == back)
            .ok_or_else(|| err("the king is not on its back rank"))?;
        let rooks = board.by_piece(Piece { color, role: Role::Rook }) & Bitboard::from_rank(back);
        let rook = match ch.to_ascii_lowercase() {
            'k' => outermost_rook(rooks, king, CastlingSide::KingSide),
            'q' => outermost_rook(rooks, king, CastlingSide::QueenSide),
            'a'..='h' => {
                let file = File::from_char(ch.to_ascii_lowercase())
                    .ok_or_else(|| err("unknown letter"))?;
                Some(Square::from_coords(file, back)).filter(|&sq| rooks.contains(sq))
            }
            _ => return Err(err("unknown letter")),
        };
        let rook = rook.ok_or_else(|| err("no rook of that colour on that side of the king"))?;
        if rook.file() == king.file() {
            return Err(err("the king stands on that file"));
        }
        if rights.contains(rook) {
            return Err(err("that right is given already"));
        }
        rights.add(rook);
    }
    Ok(rights)
}

/// The rook of `rooks` farthest from `king` on `side` (X-FEN's `K`/`Q`).
fn outermost_rook(mut rooks: Bitboard, king: Square, side: CastlingSide) -> Option<Square> {
    match side {
        CastlingSide::KingSide => rooks.next_back().filter(|r| r.file() > king.file()),
        CastlingSide::QueenSide => rooks.next().filter(|r| r.file() < king.file()),
    }
}

fn parse_ep(text: &str, col: usize) -> Result<Option<Square>, ParseFenError> {
    if text == "-" {
        return Ok(None);
    }
    let err = || ParseFenError::EnPassant { found: text.to_string(), col };
    let sq = Square::from_ascii(text.as_bytes()).ok_or_else(err)?;
    if !matches!(sq.rank(), Rank::Third | Rank::Sixth) {
        return Err(err());
    }
    Ok(Some(sq))
}

/// Appends placement, turn, X-FEN castling and en passant (as stored in the
/// setup) to `out`.
pub(crate) fn append_four_fields(setup: &Setup, out: &mut String) {
    append_placement(&setup.board, out);
    out.push(' ');
    out.push(setup.turn.char());
    out.push(' ');
    append_castling(&setup.board, setup.castling_rights, out);
    out.push(' ');
    match setup.ep_square {
        Some(sq) => sq.append_to(out),
        None => out.push('-'),
    }
}

/// Appends the placement field.
pub fn append_placement(board: &Board, out: &mut String) {
    // Built as bytes, pushed once (an import writes one per game, or one
    // per position with --with-fens): at most 8 bytes a rank and 7 slashes.
    // The letters by square first, from the twelve piece boards: asking
    // each of the 64 squares for its piece tests every role board.
    let mut letters = [0u8; 64];
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = Piece { color, role };
            for sq in board.by_piece(piece) {
                letters[sq.index()] = piece.char() as u8;
            }
        }
    }
    let mut buf = [0u8; 71];
    let mut n = 0;
    let mut push = |b: u8| {
        buf[n] = b;
        n += 1;
    };
    // Piece by piece from each rank's bits, each gap one digit: a branch
    // on each square was mispredicted at random.
    let occupied = board.occupied().0;
    for rank in (0..8).rev() {
        let mut bits = (occupied >> (8 * rank)) as u8;
        let mut file = 0;
        while bits != 0 {
            let at = bits.trailing_zeros() as u8;
            if at > file {
                push(b'0' + at - file);
            }
            push(letters[8 * rank + usize::from(at)]);
            file = at + 1;
            bits &= bits - 1;
        }
        if file < 8 {
            push(b'0' + 8 - file);
        }
        if rank > 0 {
            push(b'/');
        }
    }
    // Every byte is ASCII.
    out.push_str(std::str::from_utf8(&buf[..n]).unwrap_or_default());
}

/// Appends the castling field (X-FEN letters, `-` for none).
pub(crate) fn append_castling(board: &Board, rights: Bitboard, out: &mut String) {
    let start = out.len();
    for color in Color::ALL {
        let back = Bitboard::from_rank(color.back_rank());
        let ours = rights & back;
        let Some(king) = board.king_of(color) else { continue };
        let rooks = board.by_piece(Piece { color, role: Role::Rook }) & back;
        // King side first (h to a), as python-chess writes X-FEN.
        for rook in ours.rev() {
            let side = CastlingSide::from_king_and_rook(king, rook);
            let ch = if outermost_rook(rooks, king, side) == Some(rook) {
                match side {
                    CastlingSide::KingSide => 'k',
                    CastlingSide::QueenSide => 'q',
                }
            } else {
                rook.file().char()
            };
            out.push(if color.is_white() { ch.to_ascii_uppercase() } else { ch });
        }
    }
    if out.len() == start {
        out.push('-');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_as_formatted() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, u64::from(u32::MAX), u64::MAX] {
            let mut out = String::from("x");
            append_decimal(n, &mut out);
            assert_eq!(out, format!("x{n}"));
        }
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    fn round_trip(fen: &str) {
        let pos = parse_position(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(write(&pos), fen);
    }

    #[test]
    fn start_position_round_trips() {
        round_trip(START);
        assert_eq!(parse_position(START).unwrap(), Position::new());
    }

    #[test]
    fn four_fields_get_default_clocks() {
        let pos = parse_position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -").unwrap();
        assert_eq!(write(&pos), START);
    }

    #[test]
    fn the_strict_reader_needs_the_four_position_fields() {
        let strict = |s: &str| Fen::from_ascii_strict(s.as_bytes()).map(|f| f.to_string());
        let placement = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        for (fields, found) in [("", 1), (" w", 2), (" w KQkq", 3)] {
            let text = format!("{placement}{fields}");
            assert_eq!(strict(&text), Err(ParseFenError::MissingFields { found }), "{text}");
            assert!(Fen::from_ascii(text.as_bytes()).is_ok(), "the lenient reader: {text}");
        }
        assert_eq!(
            strict(placement).unwrap_err().to_string(),
            "1 of the 4 position fields; the side-to-move, castling and en-passant fields \
             are missing"
        );
        for clocks in ["", " 0", " 0 1"] {
            assert_eq!(strict(&format!("{placement} w KQkq -{clocks}")).as_deref(), Ok(START));
        }
        // A bad field present is named before the missing ones.
        assert!(matches!(strict(&format!("{placement} x")), Err(ParseFenError::Turn { .. })));
    }

    #[test]
    fn en_passant_written_only_when_legal() {
        // After 1. e4 no black pawn can take: the square is dropped.
        let pos =
            parse_position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").unwrap();
        assert_eq!(write(&pos), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        round_trip("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        // A capture that would expose the king is not legal: no square.
        let pinned = parse_position("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1").unwrap();
        assert_eq!(pinned.legal_ep_square(), None);
        assert_eq!(pinned.pseudo_ep_square(), Some(Square::D6));
        assert_eq!(write(&pinned), "8/8/8/K2pP2r/8/8/8/7k w - - 0 1");
    }

    #[test]
    fn chess960_castling_letters() {
        // Shredder-FEN in, X-FEN out (outermost rooks become KQkq).
        let pos =
            parse_position("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")
                .unwrap();
        assert_eq!(
            write(&pos),
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9"
        );
        // An inner rook keeps its file letter.
        round_trip("4k3/8/8/8/8/8/8/RR2K3 w B - 0 1");
        let pos = parse_position("4k3/8/8/8/8/8/8/RR2K3 w Q - 0 1").unwrap();
        assert!(pos.castling_rights().contains(Square::A1));
    }

    #[test]
    fn syntax_errors_name_field_and_column() {
        let e = |s: &str| Fen::from_ascii(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(e(""), "empty FEN");
        assert_eq!(
            e("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            "placement field: rank 7 describes 9 squares instead of 8 (column 18)"
        );
        assert_eq!(
            e("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"),
            "placement field: unexpected character 'x' at column 14"
        );
        assert_eq!(e("8/8/8/8/8/8/8 w"), "placement field: 7 ranks instead of 8");
        assert_eq!(
            e("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x"),
            "side-to-move field: expected 'w' or 'b', found 'x' at column 45"
        );
        assert_eq!(
            e("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq"),
            "castling field: 'K' at column 47: no rook of that colour on that side of the king"
        );
        assert_eq!(
            e("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KX"),
            "castling field: 'X' at column 48: unknown letter"
        );
        assert_eq!(
            e("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e5"),
            "en-passant field: 'e5' at column 52 is not '-' or a square on rank 3 or 6"
        );
        assert_eq!(
            e("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1"),
            "halfmove field: 'x' at column 54 is not a number"
        );
        assert_eq!(
            e("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 zz"),
            "unexpected text 'zz' after the six FEN fields at column 58"
        );
    }

    #[test]
    fn semantic_errors() {
        let e = |s: &str| parse_position(s).unwrap_err().to_string();
        assert_eq!(e("8/8/8/8/8/8/8/K7 w - -"), "illegal FEN position: black has no king");
        assert_eq!(
            e("k7/8/8/8/8/8/8/KK6 w - -"),
            "illegal FEN position: white has more than one king"
        );
        assert_eq!(
            e("k6P/8/8/8/8/8/8/K7 w - -"),
            "illegal FEN position: pawn on the first or last rank (h8)"
        );
        assert_eq!(
            e("k7/8/8/8/8/8/8/R6K w - -"),
            "illegal FEN position: the side not to move (black) is in check"
        );
        assert_eq!(
            e("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6"),
            "illegal FEN position: impossible en-passant square e6"
        );
    }

    #[test]
    fn impossible_checks_and_repeated_castling_rights_are_refused() {
        let e = |fen: &str| parse_position(fen).unwrap_err().to_string();
        assert_eq!(
            e("4k3/8/8/8/8/3n4/4rb2/4K3 w - - 0 1"),
            "illegal FEN position: white is checked by 3 pieces (a move gives at most a double check)"
        );
        assert!(parse_position("4k3/8/8/8/8/3n4/4r3/4K3 w - - 0 1").is_ok(), "a double check");
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqKQkq - 0 1";
        assert!(e(start).contains("'K' at column 51: that right is given already"), "{}", e(start));
    }

    #[test]
    fn the_explorer_drops_castling_rights_it_cannot_have() {
        let repaired = |fen: &str| write(&parse_position_repaired(fen).unwrap());
        assert_eq!(
            repaired("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqKQkq - 0 1"),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
        assert_eq!(repaired("r3k3/8/8/8/8/8/8/4K3 b KQkq - 0 1"), "r3k3/8/8/8/8/8/8/4K3 b q - 0 1");
        // What dropping rights does not mend stays refused.
        assert!(parse_position_repaired("4k3/8/8/8/8/3n4/4rb2/4K3 w KQ - 0 1").is_err());
    }
}
