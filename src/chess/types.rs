//! The vocabulary of the board: colours, roles, pieces, files, ranks and
//! squares, plus the small `ByColor`/`ByRole` containers that replace integer
//! indexing. Conversions only; no rules live here.

use std::fmt;

/// One of the two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// The side that moves first.
    White = 0,
    /// The side that moves second.
    Black = 1,
}

impl Color {
    /// Both colours, white first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other side.
    #[inline]
    #[must_use]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `true` for white.
    #[inline]
    pub const fn is_white(self) -> bool {
        matches!(self, Color::White)
    }

    /// The FEN letter of the side to move: `w` or `b`.
    pub const fn char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// Parses the FEN letter of the side to move.
    pub const fn from_char(ch: char) -> Option<Color> {
        match ch {
            'w' => Some(Color::White),
            'b' => Some(Color::Black),
            _ => None,
        }
    }

    /// The rank on which this side's pieces start (1 for white, 8 for black).
    #[inline]
    pub const fn back_rank(self) -> Rank {
        match self {
            Color::White => Rank::First,
            Color::Black => Rank::Eighth,
        }
    }

    /// Picks one of two values by colour.
    #[inline]
    pub fn fold<T>(self, white: T, black: T) -> T {
        match self {
            Color::White => white,
            Color::Black => black,
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.other()
    }
}

/// The kind of a piece, regardless of colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Role {
    /// Pawn.
    Pawn = 0,
    /// Knight.
    Knight = 1,
    /// Bishop.
    Bishop = 2,
    /// Rook.
    Rook = 3,
    /// Queen.
    Queen = 4,
    /// King.
    King = 5,
}

impl Role {
    /// All roles, pawn first.
    pub const ALL: [Role; 6] =
        [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];

    /// The roles a pawn may promote to, strongest first.
    pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

    /// The English upper-case letter (`P N B R Q K`).
    pub const fn upper_char(self) -> char {
        match self {
            Role::Pawn => 'P',
            Role::Knight => 'N',
            Role::Bishop => 'B',
            Role::Rook => 'R',
            Role::Queen => 'Q',
            Role::King => 'K',
        }
    }

    /// The English lower-case letter (`p n b r q k`), as in FEN for black.
    pub const fn char(self) -> char {
        self.upper_char().to_ascii_lowercase()
    }

    /// Parses an English piece letter of either case.
    pub const fn from_char(ch: char) -> Option<Role> {
        match ch.to_ascii_lowercase() {
            'p' => Some(Role::Pawn),
            'n' => Some(Role::Knight),
            'b' => Some(Role::Bishop),
            'r' => Some(Role::Rook),
            'q' => Some(Role::Queen),
            'k' => Some(Role::King),
            _ => None,
        }
    }

    /// Index 0..6, pawn first.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A coloured piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// What kind of piece it is.
    pub role: Role,
}

impl Piece {
    /// The FEN letter: upper case for white, lower case for black.
    pub const fn char(self) -> char {
        match self.color {
            Color::White => self.role.upper_char(),
            Color::Black => self.role.char(),
        }
    }

    /// Parses a FEN piece letter.
    pub const fn from_char(ch: char) -> Option<Piece> {
        let color = if ch.is_ascii_uppercase() { Color::White } else { Color::Black };
        match Role::from_char(ch) {
            Some(role) => Some(Piece { color, role }),
            None => None,
        }
    }
}

macro_rules! index_enum {
    ($(#[$meta:meta])* $name:ident, $($variant:ident = $idx:expr, $ch:expr;)*) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum $name {
            $(
                #[allow(missing_docs)]
                $variant = $idx,
            )*
        }

        impl $name {
            /// All values in ascending order.
            pub const ALL: [$name; 8] = [$($name::$variant),*];

            /// Checked construction from an index 0..8.
            #[inline]
            pub const fn new(index: u32) -> Option<$name> {
                if index < 8 {
                    // Safety: just checked the range.
                    Some(unsafe { $name::new_unchecked(index) })
                } else {
                    None
                }
            }

            /// Construction from an index without checking.
            ///
            /// # Safety
            /// `index` must be below 8.
            #[inline]
            pub const unsafe fn new_unchecked(index: u32) -> $name {
                debug_assert!(index < 8);
                std::mem::transmute(index as u8)
            }

            /// The index 0..8.
            #[inline]
            pub const fn index(self) -> u32 {
                self as u32
            }

            /// The character used in algebraic notation.
            pub const fn char(self) -> char {
                match self {
                    $($name::$variant => $ch,)*
                }
            }

            /// Parses the character used in algebraic notation.
            pub const fn from_char(ch: char) -> Option<$name> {
                match ch {
                    $($ch => Some($name::$variant),)*
                    _ => None,
                }
            }

            /// The value `delta` steps away, if still on the board.
            #[inline]
            pub const fn offset(self, delta: i32) -> Option<$name> {
                let i = self as i32 + delta;
                if i >= 0 { $name::new(i as u32) } else { None }
            }

            /// The value mirrored (a↔h, 1↔8).
            #[inline]
            #[must_use]
            pub const fn flip(self) -> $name {
                // Safety: 7 - x stays in 0..8 for x in 0..8.
                unsafe { $name::new_unchecked(7 - self as u32) }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.char())
            }
        }
    };
}

index_enum! {
    /// A column of the board, `a` to `h`.
    File,
    A = 0, 'a'; B = 1, 'b'; C = 2, 'c'; D = 3, 'd'; E = 4, 'e'; F = 5, 'f'; G = 6, 'g'; H = 7, 'h';
}

index_enum! {
    /// A row of the board, `1` to `8`.
    Rank,
    First = 0, '1'; Second = 1, '2'; Third = 2, '3'; Fourth = 3, '4';
    Fifth = 4, '5'; Sixth = 5, '6'; Seventh = 6, '7'; Eighth = 7, '8';
}

impl File {
    /// The upper-case letter, as in Shredder-FEN castling rights for white.
    pub const fn upper_char(self) -> char {
        self.char().to_ascii_uppercase()
    }
}

impl Rank {
    /// The rank seen from `color`'s side: `First` is white's first rank and
    /// black's eighth.
    #[inline]
    #[must_use]
    pub const fn relative_to(self, color: Color) -> Rank {
        match color {
            Color::White => self,
            Color::Black => self.flip(),
        }
    }
}

/// A square of the board. The index is `8 * rank + file`, so `A1 = 0`,
/// `H1 = 7`, `A8 = 56`, `H8 = 63`. The field is private: every `Square` is
/// on the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Square(u8);

macro_rules! square_consts {
    ($($name:ident = $idx:expr),* $(,)?) => {
        impl Square {
            $(
                #[allow(missing_docs)]
                pub const $name: Square = Square($idx);
            )*
        }
    };
}

square_consts! {
    A1 = 0, B1 = 1, C1 = 2, D1 = 3, E1 = 4, F1 = 5, G1 = 6, H1 = 7,
    A2 = 8, B2 = 9, C2 = 10, D2 = 11, E2 = 12, F2 = 13, G2 = 14, H2 = 15,
    A3 = 16, B3 = 17, C3 = 18, D3 = 19, E3 = 20, F3 = 21, G3 = 22, H3 = 23,
    A4 = 24, B4 = 25, C4 = 26, D4 = 27, E4 = 28, F4 = 29, G4 = 30, H4 = 31,
    A5 = 32, B5 = 33, C5 = 34, D5 = 35, E5 = 36, F5 = 37, G5 = 38, H5 = 39,
    A6 = 40, B6 = 41, C6 = 42, D6 = 43, E6 = 44, F6 = 45, G6 = 46, H6 = 47,
    A7 = 48, B7 = 49, C7 = 50, D7 = 51, E7 = 52, F7 = 53, G7 = 54, H7 = 55,
    A8 = 56, B8 = 57, C8 = 58, D8 = 59, E8 = 60, F8 = 61, G8 = 62, H8 = 63,
}

impl Square {
    /// Checked construction from an index 0..64.
    #[inline]
    pub const fn new(index: u32) -> Option<Square> {
        if index < 64 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// Construction from an index without checking.
    ///
    /// # Safety
    /// `index` must be below 64; other code indexes tables with it.
    #[inline]
    pub const unsafe fn new_unchecked(index: u32) -> Square {
        debug_assert!(index < 64);
        Square(index as u8)
    }

    /// The square at `file` and `rank`.
    #[inline]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square(rank as u8 * 8 + file as u8)
    }

    /// The index 0..64.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file (column).
    #[inline]
    pub const fn file(self) -> File {
        // Safety: 0..64 & 7 is below 8.
        unsafe { File::new_unchecked(self.0 as u32 & 7) }
    }

    /// The rank (row).
    #[inline]
    pub const fn rank(self) -> Rank {
        // Safety: 0..64 >> 3 is below 8.
        unsafe { Rank::new_unchecked(self.0 as u32 >> 3) }
    }

    /// The square `delta` indices away, if on the board (no wrap check).
    #[inline]
    pub const fn offset(self, delta: i32) -> Option<Square> {
        let i = self.0 as i32 + delta;
        if i >= 0 && i < 64 {
            Some(Square(i as u8))
        } else {
            None
        }
    }

    /// The same square seen from the other side (a1↔a8).
    #[inline]
    #[must_use]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// Mirrored for `color`: unchanged for white, flipped for black.
    #[inline]
    #[must_use]
    pub const fn relative_to(self, color: Color) -> Square {
        match color {
            Color::White => self,
            Color::Black => self.flip_vertical(),
        }
    }

    /// Every square, a1 first.
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator {
        (0..64u8).map(Square)
    }

    /// Parses two ASCII bytes such as `b"e4"`.
    pub fn from_ascii(s: &[u8]) -> Option<Square> {
        match s {
            [f, r] => Some(Square::from_coords(
                File::from_char(*f as char)?,
                Rank::from_char(*r as char)?,
            )),
            _ => None,
        }
    }

    /// Appends the two-character name (`e4`).
    pub fn append_to(self, out: &mut String) {
        out.push(self.file().char());
        out.push(self.rank().char());
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::str::FromStr for Square {
    type Err = ();
    fn from_str(s: &str) -> Result<Square, ()> {
        Square::from_ascii(s.as_bytes()).ok_or(())
    }
}

/// One value per colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ByColor<T> {
    /// White's value.
    pub white: T,
    /// Black's value.
    pub black: T,
}

impl<T> ByColor<T> {
    /// The value of `color`.
    #[inline]
    pub fn get(&self, color: Color) -> &T {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// The value of `color`, mutably.
    #[inline]
    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }
}

/// One value per role, pawn first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ByRole<T>(pub [T; 6]);

impl<T> ByRole<T> {
    /// The value of `role`.
    #[inline]
    pub fn get(&self, role: Role) -> &T {
        &self.0[role.index()]
    }

    /// The value of `role`, mutably.
    #[inline]
    pub fn get_mut(&mut self, role: Role) -> &mut T {
        &mut self.0[role.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_stay_small() {
        assert_eq!(std::mem::size_of::<Square>(), 1);
        assert_eq!(std::mem::size_of::<Option<Square>>(), 2);
        assert_eq!(std::mem::size_of::<Piece>(), 2);
        assert_eq!(std::mem::size_of::<Option<Role>>(), 1);
    }

    #[test]
    fn square_coordinates() {
        assert_eq!(Square::from_coords(File::E, Rank::Fourth), Square::E4);
        assert_eq!(Square::E4.file(), File::E);
        assert_eq!(Square::E4.rank(), Rank::Fourth);
        assert_eq!(Square::E4.to_string(), "e4");
        assert_eq!(Square::from_ascii(b"h8"), Some(Square::H8));
        assert_eq!(Square::from_ascii(b"i8"), None);
        assert_eq!(Square::from_ascii(b"a9"), None);
        assert_eq!(Square::new(64), None);
        assert_eq!(Square::A2.relative_to(Color::Black), Square::A7);
    }

    #[test]
    fn piece_letters_round_trip() {
        for color in Color::ALL {
            for role in Role::ALL {
                let p = Piece { color, role };
                assert_eq!(Piece::from_char(p.char()), Some(p));
            }
        }
        assert_eq!(Piece::from_char('x'), None);
    }
}
