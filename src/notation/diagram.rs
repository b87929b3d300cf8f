//! Board diagrams: a position drawn as lines of text for a terminal.
//!
//! Written only; nothing reads a diagram back. Eight rows, rank 8 first
//! (rank 1 first and files `h` to `a` when flipped), each the rank's digit,
//! a space and the eight squares separated by single spaces; then the files
//! under them, and a line with the side to move, the castling rights (X-FEN
//! letters, as the FEN has them), the en-passant square (when a capture
//! there is legal, as the FEN has it) and the last move in UCI:
//!
//! ```text
//! 8 r n b q k b n r
//! 7 p p p p . p p p
//! 6 . . . . . . . .
//! 5 . . . . p . . .
//! 4 . . . . P . . .
//! 3 . . . . . . . .
//! 2 P P P P . P P P
//! 1 R N B Q K B N R
//!   a b c d e f g h
//! White to move, castling KQkq, last move e7e5
//! ```
//!
//! In letters, the squares of each row after its digit are exactly what
//! python-chess prints for `print(board)` (`.` an empty square); in
//! figurines, `♔♕♖♗♘♙` are White's, `♚♛♜♝♞♟` Black's and `·` an empty
//! square. With colour, the last move's two squares are highlighted (ANSI
//! escapes); without, the status line names the move all the same.

use std::fmt;

use crate::chess::{Color, File, Piece, Position, Rank, Role, Square};
use crate::notation::fen;
use crate::notation::uci::Uci;

/// How pieces are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pieces {
    /// FEN letters (`K` White's king, `k` Black's), `.` an empty square.
    Letters,
    /// Unicode chess symbols, `·` an empty square.
    Figurines,
}

/// How a diagram looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Letters or figurines.
    pub pieces: Pieces,
    /// Highlight the last move's squares with ANSI escapes.
    pub color: bool,
    /// Seen from Black's side: rank 1 on top, files `h` to `a`.
    pub flipped: bool,
}

/// The escape that starts a highlighted square (black on yellow) and the
/// one that ends it.
const HIGHLIGHT: (&str, &str) = ("\x1b[30;43m", "\x1b[0m");

/// A position to draw, with the move that led to it.
#[derive(Debug, Clone, Copy)]
pub struct Diagram<'a> {
    position: &'a Position,
    last_move: Option<Uci>,
    style: Style,
}

impl<'a> Diagram<'a> {
    /// The diagram of `position`, reached by `last_move` if given
    /// ([`Uci::Null`] for a null move: named, no square highlighted).
    pub fn new(position: &'a Position, last_move: Option<Uci>, style: Style) -> Diagram<'a> {
        Diagram { position, last_move, style }
    }

    /// Appends the diagram's ten lines to `out`, each ended by `\n`.
    pub fn append_to(&self, out: &mut String) {
        let board = self.position.board();
        let marked = match self.last_move {
            Some(Uci::Normal { from, to, .. }) if self.style.color => [Some(from), Some(to)],
            _ => [None, None],
        };
        for rank in self.ranks() {
            out.push(rank.char());
            for file in self.files() {
                let sq = Square::from_coords(file, rank);
                out.push(' ');
                let highlight = marked.contains(&Some(sq));
                if highlight {
                    out.push_str(HIGHLIGHT.0);
                }
                out.push(match board.piece_at(sq) {
                    Some(piece) => self.symbol(piece),
                    None => self.empty(),
                });
                if highlight {
                    out.push_str(HIGHLIGHT.1);
                }
            }
            out.push('\n');
        }
        out.push(' ');
        for file in self.files() {
            out.push(' ');
            out.push(file.char());
        }
        out.push('\n');
        self.append_status(out);
        out.push('\n');
    }

    /// The status line: side to move, castling, en passant, last move.
    fn append_status(&self, out: &mut String) {
        let pos = self.position;
        out.push_str(match pos.turn() {
            Color::White => "White to move",
            Color::Black => "Black to move",
        });
        let mut castling = String::new();
        fen::append_castling(pos.board(), pos.castling_rights(), &mut castling);
        if castling == "-" {
            out.push_str(", no castling");
        } else {
            out.push_str(", castling ");
            out.push_str(&castling);
        }
        if let Some(sq) = pos.legal_ep_square() {
            out.push_str(", en passant ");
            sq.append_to(out);
        }
        if let Some(m) = self.last_move {
            out.push_str(", last move ");
            m.append_to(out);
        }
    }

    /// The ranks from the top row down.
    fn ranks(&self) -> impl Iterator<Item = Rank> {
        let flipped = self.style.flipped;
        (0..8).map(move |i| if flipped { Rank::ALL[i] } else { Rank::ALL[7 - i] })
    }

    /// The files from left to right.
    fn files(&self) -> impl Iterator<Item = File> {
        let flipped = self.style.flipped;
        (0..8).map(move |i| if flipped { File::ALL[7 - i] } else { File::ALL[i] })
    }

    fn symbol(&self, piece: Piece) -> char {
        match self.style.pieces {
            Pieces::Letters => piece.char(),
            Pieces::Figurines => figurine(piece),
        }
    }

    fn empty(&self) -> char {
        match self.style.pieces {
            Pieces::Letters => '.',
            Pieces::Figurines => '·',
        }
    }
}

impl fmt::Display for Diagram<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(256);
        self.append_to(&mut s);
        f.write_str(&s)
    }
}

/// The Unicode chess symbol of `piece`.
pub const fn figurine(piece: Piece) -> char {
    match (piece.color, piece.role) {
        (Color::White, Role::King) => '♔',
        (Color::White, Role::Queen) => '♕',
        (Color::White, Role::Rook) => '♖',
        (Color::White, Role::Bishop) => '♗',
        (Color::White, Role::Knight) => '♘',
        (Color::White, Role::Pawn) => '♙',
        (Color::Black, Role::King) => '♚',
        (Color::Black, Role::Queen) => '♛',
        (Color::Black, Role::Rook) => '♜',
        (Color::Black, Role::Bishop) => '♝',
        (Color::Black, Role::Knight) => '♞',
        (Color::Black, Role::Pawn) => '♟',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LETTERS: Style = Style { pieces: Pieces::Letters, color: false, flipped: false };

    fn draw(fen: &str, last: Option<&str>, style: Style) -> String {
        let pos = fen::parse_position(fen).unwrap();
        let last = last.map(|m| m.parse::<Uci>().unwrap());
        Diagram::new(&pos, last, style).to_string()
    }

    /// `check(fen, last move, style, expected)`: the diagram is exactly
    /// `expected`.
    #[track_caller]
    fn check(fen: &str, last: Option<&str>, style: Style, expected: &str) {
        similar_asserts::assert_eq!(draw(fen, last, style), expected);
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn the_start_in_letters() {
        check(
            START,
            None,
            LETTERS,
            "8 r n b q k b n r\n\
             7 p p p p p p p p\n\
             6 . . . . . . . .\n\
             5 . . . . . . . .\n\
             4 . . . . . . . .\n\
             3 . . . . . . . .\n\
             2 P P P P P P P P\n\
             1 R N B Q K B N R\n\
             \x20 a b c d e f g h\n\
             White to move, castling KQkq\n",
        );
    }

    #[test]
    fn after_e4_with_black_to_move_en_passant_and_the_last_move() {
        // The en-passant square is named only when a capture there is
        // legal, as in the FEN pgnindex writes.
        check(
            "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
            Some("e2e4"),
            LETTERS,
            "8 r n b q k b n r\n\
             7 p p p . p p p p\n\
             6 . . . . . . . .\n\
             5 . . . . . . . .\n\
             4 . . . p P . . .\n\
             3 . . . . . . . .\n\
             2 P P P P . P P P\n\
             1 R N B Q K B N R\n\
             \x20 a b c d e f g h\n\
             Black to move, castling KQkq, en passant e3, last move e2e4\n",
        );
        let no_capture = draw(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            Some("e2e4"),
            LETTERS,
        );
        assert!(no_capture.ends_with("\nBlack to move, castling KQkq, last move e2e4\n"));
    }

    #[test]
    fn flipped_is_seen_from_black() {
        check(
            "r3k2r/8/8/8/8/8/8/4K2R w Kq - 0 1",
            None,
            Style { flipped: true, ..LETTERS },
            "1 R . . K . . . .\n\
             2 . . . . . . . .\n\
             3 . . . . . . . .\n\
             4 . . . . . . . .\n\
             5 . . . . . . . .\n\
             6 . . . . . . . .\n\
             7 . . . . . . . .\n\
             8 r . . k . . . r\n\
             \x20 h g f e d c b a\n\
             White to move, castling Kq\n",
        );
    }

    #[test]
    fn figurines_and_no_castling() {
        check(
            "8/8/8/4k3/8/8/3QK3/8 b - - 0 60",
            Some("d1d2"),
            Style { pieces: Pieces::Figurines, ..LETTERS },
            "8 · · · · · · · ·\n\
             7 · · · · · · · ·\n\
             6 · · · · · · · ·\n\
             5 · · · · ♚ · · ·\n\
             4 · · · · · · · ·\n\
             3 · · · · · · · ·\n\
             2 · · · ♕ ♔ · · ·\n\
             1 · · · · · · · ·\n\
             \x20 a b c d e f g h\n\
             Black to move, no castling, last move d1d2\n",
        );
        let all: String = Role::ALL
            .into_iter()
            .flat_map(|role| Color::ALL.map(|color| figurine(Piece { color, role })))
            .collect();
        assert_eq!(all, "♙♟♘♞♗♝♖♜♕♛♔♚");
    }

    #[test]
    fn colour_highlights_the_last_move_and_nothing_else() {
        let colored = draw(START, None, Style { color: true, ..LETTERS });
        assert_eq!(colored, draw(START, None, LETTERS), "no move, no escape");
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let colored = draw(fen, Some("e2e4"), Style { color: true, ..LETTERS });
        let lines: Vec<&str> = colored.lines().collect();
        assert_eq!(lines[4], "4 . . . . \x1b[30;43mP\x1b[0m . . .");
        assert_eq!(lines[6], "2 P P P P \x1b[30;43m.\x1b[0m P P P");
        assert_eq!(colored.matches("\x1b[").count(), 4, "{colored:?}");
        let plain = colored.replace(HIGHLIGHT.0, "").replace(HIGHLIGHT.1, "");
        assert_eq!(plain, draw(fen, Some("e2e4"), LETTERS));
        // A null move is named but has no squares.
        let null = draw(START, Some("0000"), Style { color: true, ..LETTERS });
        assert!(!null.contains('\x1b') && null.ends_with(", last move 0000\n"), "{null}");
    }

    #[test]
    fn chess960_castling_rights_are_written_as_the_fen_writes_them() {
        let text = draw("4k1rr/8/8/8/8/8/8/R3K2R b KQg - 0 1", None, LETTERS);
        assert!(text.ends_with("\nBlack to move, castling KQg\n"), "{text}");
    }
}
