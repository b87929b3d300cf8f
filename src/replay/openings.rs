//! Opening names by position: the lichess opening names data set
//! (`data/openings/`, CC0), shipped inside the binary, as a table from a
//! position to the row that names it.
//!
//! A row's position is the one after its moves from the standard start.
//! Positions are told apart by placement, side to move, castling rights and
//! the en-passant square only when an en-passant capture is legal (the EPD
//! python-chess writes by default). The Polyglot key counts the en-passant
//! square whenever a pawn stands beside the pawn that moved two squares,
//! pinned or not; [`identity`] takes the square out of the key when no
//! capture is legal, so that the key names exactly that position.
//!
//! When two rows share a position, the first in file order (`a.tsv` …
//! `e.tsv`, line order) names it.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::chess::zobrist::{self, BuildKeyHasher};
use crate::chess::Position;
use crate::notation::san::San;

/// The five files of the data set, in order.
const FILES: [&str; 5] = [
    include_str!("../../data/openings/a.tsv"),
    include_str!("../../data/openings/b.tsv"),
    include_str!("../../data/openings/c.tsv"),
    include_str!("../../data/openings/d.tsv"),
    include_str!("../../data/openings/e.tsv"),
];

/// One named line of the data set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opening {
    /// The ECO code (`B90`).
    pub eco: &'static str,
    /// The English name (`Sicilian Defense: Najdorf Variation`).
    pub name: &'static str,
    /// The moves from the standard start, in SAN with move numbers.
    pub pgn: &'static str,
}

/// The table, built once per process.
#[derive(Debug)]
pub struct Openings {
    /// The rows, in file order.
    rows: Vec<Opening>,
    /// [`identity`] of a row's position → index of its first row.
    by_key: HashMap<u64, u32, BuildKeyHasher>,
    /// The most half-moves of any row: no later position is named.
    max_ply: usize,
    /// One bit per value of a key's top [`FILTER_BITS`] bits, set for the
    /// named positions: most positions of a game are none, and this tells
    /// so for nearly all of them without a hash lookup.
    filter: Box<[u64]>,
}

/// The bits of a key [`Openings::filter`] is indexed by (3,807 positions
/// set about 6% of its 65,536 bits).
const FILTER_BITS: u32 = 16;

/// The bit of `key` in [`Openings::filter`]: its word and mask.
#[inline]
fn filter_bit(key: u64) -> (usize, u64) {
    let bit = key >> (64 - FILTER_BITS);
    ((bit / 64) as usize, 1 << (bit % 64))
}

static OPENINGS: LazyLock<Openings> = LazyLock::new(Openings::build);

impl Openings {
    /// The table of the data set shipped inside the binary.
    pub fn get() -> &'static Openings {
        &OPENINGS
    }

    fn build() -> Openings {
        let mut rows = Vec::new();
        let mut by_key = HashMap::default();
        let mut max_ply = 0;
        let mut filter = vec![0; (1 << FILTER_BITS) / 64].into_boxed_slice();
        for line in FILES.iter().flat_map(|file| file.lines().skip(1)) {
            let mut fields = line.splitn(3, '\t');
            let (Some(eco), Some(name), Some(pgn)) = (fields.next(), fields.next(), fields.next())
            else {
                panic!("opening names data: a line without three fields: {line:?}");
            };
            let pos =
                play_line(pgn).unwrap_or_else(|e| panic!("opening names data: {name}: {pgn}: {e}"));
            let plies = pgn.split_whitespace().filter(|t| !t.ends_with('.')).count();
            max_ply = max_ply.max(plies);
            let index = u32::try_from(rows.len()).expect("fewer than 2^32 rows");
            let key = identity(&pos);
            let (word, mask) = filter_bit(key);
            filter[word] |= mask;
            by_key.entry(key).or_insert(index);
            rows.push(Opening { eco, name, pgn });
        }
        Openings { rows, by_key, max_ply, filter }
    }

    /// The rows, in file order.
    pub fn rows(&self) -> &[Opening] {
        &self.rows
    }

    /// The most half-moves of any named line: positions after more plies
    /// than this are never named.
    pub fn max_ply(&self) -> usize {
        self.max_ply
    }

    /// The index of the row that names `pos`, if any.
    #[inline]
    pub fn find(&self, pos: &Position) -> Option<u32> {
        let key = identity(pos);
        let (word, mask) = filter_bit(key);
        if self.filter[word] & mask == 0 {
            return None;
        }
        self.by_key.get(&key).copied()
    }

    /// The number of distinct named positions.
    pub fn positions(&self) -> usize {
        self.by_key.len()
    }
}

/// The Polyglot key of `pos`, without the en-passant square when no
/// en-passant capture is legal (module docs).
#[inline]
pub fn identity(pos: &Position) -> u64 {
    let key = pos.zobrist().0;
    match pos.pseudo_ep_square() {
        Some(ep) if pos.legal_ep_square().is_none() => key ^ zobrist::ep_key(ep.file()),
        _ => key,
    }
}

/// The position after `pgn` (SAN with move numbers) from the standard start.
fn play_line(pgn: &str) -> Result<Position, String> {
    let mut pos = Position::new();
    for text in pgn.split_whitespace().filter(|t| !t.ends_with('.')) {
        let san = San::from_ascii(text.as_bytes()).map_err(|e| format!("{text}: {e}"))?;
        let m = san.to_move(&pos).map_err(|e| format!("{text}: {e}"))?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_replays_to_a_position_of_its_own() {
        let openings = Openings::get();
        assert_eq!(openings.rows().len(), 3807);
        assert_eq!(openings.positions(), 3807);
        for (i, row) in openings.rows().iter().enumerate() {
            let pos = play_line(row.pgn).unwrap();
            assert_eq!(openings.find(&pos), Some(i as u32), "{}", row.name);
        }
    }

    #[test]
    fn en_passant_counts_only_when_a_capture_is_legal() {
        // After 1. e4 Nf6 2. e5 d5 the pawn on e5 can take on d6: the
        // square is part of the position.
        let pos = play_line("1. e4 Nf6 2. e5 d5").unwrap();
        assert!(pos.legal_ep_square().is_some());
        assert_eq!(identity(&pos), pos.zobrist().0);
        // Here dxe6 would open the fifth rank to the rook: the square is
        // not part of the position, though Polyglot counts it.
        let pinned =
            crate::notation::fen::parse_position("4k3/8/8/r2Pp2K/8/8/8/8 w - e6 0 2").unwrap();
        assert!(pinned.pseudo_ep_square().is_some() && pinned.legal_ep_square().is_none());
        let unpinned =
            crate::notation::fen::parse_position("4k3/8/8/r2Pp2K/8/8/8/8 w - - 0 2").unwrap();
        assert_eq!(identity(&pinned), unpinned.zobrist().0);
    }

    #[test]
    fn a_game_is_named_by_the_row_of_its_position() {
        let openings = Openings::get();
        let pos = play_line("1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6").unwrap();
        let row = openings.rows()[openings.find(&pos).unwrap() as usize];
        assert_eq!((row.eco, row.name), ("B90", "Sicilian Defense: Najdorf Variation"));
        assert!(openings.max_ply() >= 10);
    }
}
