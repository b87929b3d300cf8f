//! The Polyglot book format: entries of 16 bytes, big-endian, sorted by
//! key — the position's Polyglot key (8 bytes), a move (2), its weight (2)
//! and a learning value (4) that no maker of books fills in.
//!
//! A move is its destination file and rank (bits 0–5), its origin file
//! and rank (bits 6–11) and the promotion piece (bits 12–14: 1 knight, 2
//! bishop, 3 rook, 4 queen). Castling is the king taking its own rook
//! (`e1h1`), in standard chess as in Chess960.

use std::path::{Path, PathBuf};

use super::BookError;
use crate::chess::{Move, MoveList, Position, Role, Square};

/// Bytes per entry.
pub const ENTRY_BYTES: usize = 16;

/// A move as a Polyglot book writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PolyMove(u16);

impl PolyMove {
    /// The encoding of a legal move `m`.
    pub fn of(m: Move) -> PolyMove {
        let (from, to) = match m {
            Move::Castle { king, rook } => (king, rook),
            _ => (m.from(), m.to()),
        };
        let promotion = match m.promotion() {
            Some(Role::Knight) => 1,
            Some(Role::Bishop) => 2,
            Some(Role::Rook) => 3,
            Some(Role::Queen) => 4,
            _ => 0,
        };
        PolyMove((promotion << 12) | ((from.index() as u16) << 6) | to.index() as u16)
    }

    /// The move of its two bytes.
    pub fn from_raw(raw: u16) -> PolyMove {
        PolyMove(raw)
    }

    /// Its two bytes.
    pub fn raw(self) -> u16 {
        self.0
    }

    fn origin(self) -> Square {
        Square::new(u32::from((self.0 >> 6) & 63)).expect("six bits name a square")
    }

    fn destination(self) -> Square {
        Square::new(u32::from(self.0 & 63)).expect("six bits name a square")
    }

    /// Its squares and promotion as UCI writes them, castling as the king
    /// taking its rook (`e1h1`), as the book stores it.
    pub fn to_uci_text(self) -> String {
        let promotion = match (self.0 >> 12) & 7 {
            1 => "n",
            2 => "b",
            3 => "r",
            4 => "q",
            _ => "",
        };
        format!("{}{}{promotion}", self.origin(), self.destination())
    }

    /// The legal move of `pos` it stands for: its encoding, or a king
    /// going two squares to castle (`e1g1`), as some makers of books write
    /// castling. `None` if no legal move is written so (another position
    /// under the same key, or a broken book).
    pub fn to_move(self, pos: &Position) -> Option<Move> {
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        moves
            .iter()
            .copied()
            .find(|&m| PolyMove::of(m) == self)
            .or_else(|| pos.castling_by_king_move(self.origin(), self.destination()))
    }
}

/// One entry of a book.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The position's Polyglot key.
    pub key: u64,
    /// The move.
    pub mv: PolyMove,
    /// Its weight: how often a reader picks it, against the position's
    /// other moves.
    pub weight: u16,
    /// The learning value (0 in books made here).
    pub learn: u32,
}

impl Entry {
    /// Its 16 bytes.
    pub fn to_bytes(&self) -> [u8; ENTRY_BYTES] {
        let mut bytes = [0; ENTRY_BYTES];
        bytes[..8].copy_from_slice(&self.key.to_be_bytes());
        bytes[8..10].copy_from_slice(&self.mv.0.to_be_bytes());
        bytes[10..12].copy_from_slice(&self.weight.to_be_bytes());
        bytes[12..].copy_from_slice(&self.learn.to_be_bytes());
        bytes
    }

    /// The entry of 16 bytes.
    pub fn from_bytes(bytes: &[u8; ENTRY_BYTES]) -> Entry {
        let word = |at: usize| u16::from_be_bytes([bytes[at], bytes[at + 1]]);
        Entry {
            key: u64::from_be_bytes(bytes[..8].try_into().expect("8 bytes")),
            mv: PolyMove(word(8)),
            weight: word(10),
            learn: u32::from_be_bytes(bytes[12..].try_into().expect("4 bytes")),
        }
    }
}

/// A book read whole, its order checked.
#[derive(Debug, Clone)]
pub struct Book {
    entries: Vec<Entry>,
}

impl Book {
    /// Reads the book at `path`.
    ///
    /// # Errors
    /// [`BookError::Io`], and [`BookError::Size`] or [`BookError::Order`]
    /// for a file that is not a Polyglot book.
    pub fn read(path: &Path) -> Result<Book, BookError> {
        let io = |source| BookError::Io { path: path.to_path_buf(), source };
        let bytes = std::fs::read(path).map_err(io)?;
        Book::from_bytes(&bytes, path.to_path_buf())
    }

    /// The book of `bytes`, read from `path`.
    ///
    /// # Errors
    /// As [`Book::read`].
    pub fn from_bytes(bytes: &[u8], path: PathBuf) -> Result<Book, BookError> {
        if !bytes.len().is_multiple_of(ENTRY_BYTES) {
            return Err(BookError::Size { path, size: bytes.len() as u64 });
        }
        let entries: Vec<Entry> = bytes
            .chunks_exact(ENTRY_BYTES)
            .map(|chunk| Entry::from_bytes(chunk.try_into().expect("16 bytes")))
            .collect();
        if let Some(i) = entries.windows(2).position(|w| w[1].key < w[0].key) {
            return Err(BookError::Order { path, index: i as u64 + 1 });
        }
        Ok(Book { entries })
    }

    /// Every entry, in the file's order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entries of `key`, in the file's order.
    pub fn moves(&self, key: u64) -> &[Entry] {
        let start = self.entries.partition_point(|e| e.key < key);
        let end = start + self.entries[start..].partition_point(|e| e.key == key);
        &self.entries[start..end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen;

    fn moves_of(fen_text: &str) -> Vec<(String, String)> {
        let pos = fen::parse_position(fen_text).unwrap();
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let mut texts: Vec<(String, String)> = moves
            .iter()
            .map(|&m| {
                let poly = PolyMove::of(m);
                assert_eq!(poly.to_move(&pos), Some(m), "{m:?} back from its encoding");
                (poly.to_uci_text(), format!("{:04x}", poly.raw()))
            })
            .collect();
        texts.sort();
        texts
    }

    #[test]
    fn moves_are_encoded_as_the_format_says() {
        // e2e4: from e2 (file 4, rank 1) = 12, to e4 = 28.
        let start = moves_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(start.contains(&("e2e4".into(), format!("{:04x}", (12 << 6) | 28))));
        // Castling is the king taking its rook, both sides; promotions
        // carry their piece.
        let castles = moves_of("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert!(castles.iter().any(|(uci, _)| uci == "e1h1"));
        assert!(castles.iter().any(|(uci, _)| uci == "e1a1"));
        assert!(!castles.iter().any(|(uci, _)| uci == "e1g1"));
        let promotions = moves_of("8/P6k/8/8/8/8/8/K7 w - - 0 1");
        let mut a8: Vec<&str> = promotions
            .iter()
            .filter(|(uci, _)| uci.starts_with("a7a8"))
            .map(|(_, raw)| raw.as_str())
            .collect();
        a8.sort_unstable();
        let base = (48 << 6) | 56;
        let want: Vec<String> = (1..=4).map(|p| format!("{:04x}", (p << 12) | base)).collect();
        assert_eq!(a8, want.iter().map(String::as_str).collect::<Vec<_>>());
    }

    #[test]
    fn castling_written_as_a_king_move_is_read_too() {
        let pos = fen::parse_position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let e1g1 = PolyMove::from_raw((4 << 6) | 6);
        let m = e1g1.to_move(&pos).unwrap();
        assert_eq!(PolyMove::of(m).to_uci_text(), "e1h1");
        assert_eq!(PolyMove::from_raw((4 << 6) | 20).to_move(&pos), None, "e1e3");
    }

    #[test]
    fn entries_round_trip_and_books_are_checked() {
        let entry = Entry { key: 0x463b96181691fc9c, mv: PolyMove(0x031c), weight: 7, learn: 9 };
        let bytes = entry.to_bytes();
        assert_eq!(&bytes[..10], &[0x46, 0x3b, 0x96, 0x18, 0x16, 0x91, 0xfc, 0x9c, 0x03, 0x1c]);
        assert_eq!(Entry::from_bytes(&bytes), entry);
        let later = Entry { key: entry.key + 1, ..entry };
        let file = [bytes, later.to_bytes(), later.to_bytes()].concat();
        let book = Book::from_bytes(&file, "b.bin".into()).unwrap();
        assert_eq!(book.moves(entry.key), &[entry]);
        assert_eq!(book.moves(later.key).len(), 2);
        assert!(book.moves(5).is_empty());
        let e = Book::from_bytes(&file[..20], "b.bin".into()).unwrap_err();
        assert_eq!(e.to_string(), "b.bin: not a Polyglot book: 20 bytes is not a multiple of 16");
        let swapped = [later.to_bytes(), bytes].concat();
        let e = Book::from_bytes(&swapped, "b.bin".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "b.bin: not a Polyglot book: entry 1 (byte 16) has a key below the entry before it"
        );
    }
}
