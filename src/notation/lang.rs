//! Piece letters of the languages SAN is written in, and figurines. Data
//! only: which letter means which role in which language.
//!
//! | language | king | queen | rook | bishop | knight | pawn |
//! |---|---|---|---|---|---|---|
//! | English | K | Q | R | B | N | P |
//! | French (Roi Dame Tour Fou Cavalier Pion) | R | D | T | F | C | P |
//! | German (König Dame Turm Läufer Springer Bauer) | K | D | T | L | S | B |
//! | Dutch (Koning Dame Toren Loper Paard) | K | D | T | L | P | – |
//! | Spanish (Rey Dama Torre Alfil Caballo Peón) | R | D | T | A | C | P |
//! | Italian (Re Donna Torre Alfiere Cavallo Pedone) | R | D | T | A | C | P |
//!
//! Figurines (♔♕♖♗♘♙ and ♚♛♜♝♞♟) mean the same in every language.

use crate::chess::Role;

/// A language of piece letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    /// K Q R B N (P): the PGN standard's letters.
    #[default]
    English,
    /// R D T F C (P).
    French,
    /// K D T L S (B).
    German,
    /// K D T L P.
    Dutch,
    /// R D T A C (P).
    Spanish,
    /// R D T A C (P); the same letters as Spanish.
    Italian,
}

impl Lang {
    /// Every language, English first. Spanish and Italian share their
    /// letters, so detection never needs to try Italian after Spanish.
    pub const ALL: [Lang; 6] =
        [Lang::English, Lang::French, Lang::German, Lang::Dutch, Lang::Spanish, Lang::Italian];

    /// The languages worth trying when English fails, in order (one per
    /// distinct letter table).
    pub const FALLBACKS: [Lang; 4] = [Lang::French, Lang::German, Lang::Dutch, Lang::Spanish];

    /// The letters for king, queen, rook, bishop, knight, pawn (`0` for none).
    const fn letters(self) -> [u8; 6] {
        match self {
            Lang::English => *b"KQRBNP",
            Lang::French => *b"RDTFCP",
            Lang::German => *b"KDTLSB",
            Lang::Dutch => [b'K', b'D', b'T', b'L', b'P', 0],
            Lang::Spanish | Lang::Italian => *b"RDTACP",
        }
    }

    /// The role an upper-case letter means in this language.
    #[inline]
    pub fn role(self, letter: u8) -> Option<Role> {
        let table = &ROLE_BY_LETTER[self.table_index()];
        if letter < 128 {
            table[usize::from(letter)]
        } else {
            None
        }
    }

    const fn table_index(self) -> usize {
        match self {
            Lang::English => 0,
            Lang::French => 1,
            Lang::German => 2,
            Lang::Dutch => 3,
            Lang::Spanish | Lang::Italian => 4,
        }
    }

    /// The language's name in English, lower case.
    pub const fn name(self) -> &'static str {
        match self {
            Lang::English => "english",
            Lang::French => "french",
            Lang::German => "german",
            Lang::Dutch => "dutch",
            Lang::Spanish => "spanish",
            Lang::Italian => "italian",
        }
    }
}

impl std::str::FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Lang, String> {
        Lang::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s) || l.name()[..2].eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!(
                    "unknown piece-letter language '{s}' (english, french, german, dutch, spanish, italian)"
                )
            })
    }
}

/// `ROLE_BY_LETTER[table][letter]`: the role of each ASCII letter in each
/// distinct letter table (built from `Lang::letters`).
static ROLE_BY_LETTER: [[Option<Role>; 128]; 5] = {
    const ORDER: [Role; 6] =
        [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];
    let langs = [Lang::English, Lang::French, Lang::German, Lang::Dutch, Lang::Spanish];
    let mut tables = [[None; 128]; 5];
    let mut t = 0;
    while t < 5 {
        let letters = langs[t].letters();
        let mut i = 0;
        while i < 6 {
            if letters[i] != 0 {
                tables[t][letters[i] as usize] = Some(ORDER[i]);
            }
            i += 1;
        }
        t += 1;
    }
    tables
};

/// Reads a figurine at the start of `bytes`: the role and the bytes used
/// (always 3: the figurines are U+2654..U+265F).
#[inline]
pub fn figurine(bytes: &[u8]) -> Option<(Role, usize)> {
    match bytes {
        [0xe2, 0x99, b, ..] if (0x94..=0x9f).contains(b) => {
            const ORDER: [Role; 6] =
                [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];
            Some((ORDER[usize::from(b - 0x94) % 6], 3))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_by_language() {
        assert_eq!(Lang::English.role(b'R'), Some(Role::Rook));
        assert_eq!(Lang::French.role(b'R'), Some(Role::King));
        assert_eq!(Lang::French.role(b'F'), Some(Role::Bishop));
        assert_eq!(Lang::German.role(b'S'), Some(Role::Knight));
        assert_eq!(Lang::German.role(b'B'), Some(Role::Pawn));
        assert_eq!(Lang::Dutch.role(b'P'), Some(Role::Knight));
        assert_eq!(Lang::Spanish.role(b'A'), Some(Role::Bishop));
        assert_eq!(Lang::Italian.role(b'C'), Some(Role::Knight));
        assert_eq!(Lang::English.role(b'S'), None);
        assert_eq!(Lang::Dutch.role(0), None);
        assert_eq!("fr".parse::<Lang>(), Ok(Lang::French));
        assert!("xx".parse::<Lang>().is_err());
        // Descriptive notation is not a language of letters: see `Notation`.
        assert!("descriptive".parse::<Lang>().is_err());
    }

    #[test]
    fn figurines() {
        assert_eq!(figurine("♘f3".as_bytes()), Some((Role::Knight, 3)));
        assert_eq!(figurine("♚".as_bytes()), Some((Role::King, 3)));
        assert_eq!(figurine("♟".as_bytes()), Some((Role::Pawn, 3)));
        assert_eq!(figurine("♕".as_bytes()), Some((Role::Queen, 3)));
        assert_eq!(figurine(b"Nf3"), None);
    }
}
