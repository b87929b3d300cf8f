//! A book from stored games by the rules of `polyglot make-book`: for each
//! (position, move) played within a game's first [`Rules::max_ply`]
//! plies, the times it was played (`n`) and a score summed over them, 2
//! when the side that moved won, 1 for a draw or an unfinished game, 0 for
//! a loss. When one move's `n` of a position reaches 16,384, every move of
//! that position has `n` and the sum halved, rounding up, so that weights
//! fit 16 bits; then an entry is kept when `n` ≥ [`Rules::min_games`], the
//! sum is above 0 and sum / 2n ≥ [`Rules::min_score`], and weighs its sum.
//!
//! Halving depends on the order of the games, so the counts are not
//! summed in a map: each game's plies become events tagged with the game's
//! place and the ply, the workers make them, runs of them are sorted (and
//! spilled to temporary files past [`Maker::run_limit`] events, so that
//! memory stays bounded), and one merge of the runs meets each position's
//! events in game order, as polyglot does, and writes the book in key
//! order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::PathBuf;

use rayon::prelude::*;

use super::polyglot::{Entry, PolyMove};
use super::BookError;
use crate::chess::{Color, Position};
use crate::db::move_codes;
use crate::db::GameId;
use crate::notation::fen;
use crate::notation::san::San;
use crate::query::mainlines::Mainline;

/// Polyglot halves a position's counts when a move's `n` reaches this.
const COUNT_MAX: u32 = 16_384;

/// The default of [`Rules::max_ply`].
pub const DEFAULT_MAX_PLY: u32 = 20;

/// The default of [`Rules::min_games`], as polyglot's.
pub const DEFAULT_MIN_GAMES: u32 = 3;

/// What goes into a book.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    /// The plies counted from each game's start: moves 1 to `max_ply`.
    pub max_ply: u32,
    /// The least `n` an entry needs (after halving).
    pub min_games: u32,
    /// The least score (sum / 2n, from 0 to 1) an entry needs.
    pub min_score: f64,
    /// Only the entries of positions this side is to move in.
    pub side: Option<Color>,
    /// Every entry weighs 1.
    pub uniform: bool,
    /// Unfinished games (`*`) count, as draws (polyglot's way).
    pub unfinished: bool,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            max_ply: DEFAULT_MAX_PLY,
            min_games: DEFAULT_MIN_GAMES,
            min_score: 0.0,
            side: None,
            uniform: false,
            unfinished: true,
        }
    }
}

impl Rules {
    /// Checks each rule's range.
    ///
    /// # Errors
    /// [`BookError::Rule`] naming the option.
    pub fn check(&self) -> Result<(), BookError> {
        if self.max_ply == 0 {
            return Err(BookError::Rule(
                "--max-ply must be at least 1: a book of no move is empty",
            ));
        }
        if self.max_ply > u32::from(u16::MAX) {
            return Err(BookError::Rule("--max-ply must be at most 65535"));
        }
        if self.min_games == 0 {
            return Err(BookError::Rule("--min-games must be at least 1"));
        }
        if !(0.0..=1.0).contains(&self.min_score) {
            return Err(BookError::Rule("--min-score is a percentage, from 0 to 100"));
        }
        Ok(())
    }
}

/// How a game ended, from its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    WhiteWins = 0,
    Draw = 1,
    BlackWins = 2,
    Unfinished = 3,
}

impl Ending {
    fn of(result: &str) -> Ending {
        match result {
            "1-0" => Ending::WhiteWins,
            "0-1" => Ending::BlackWins,
            "1/2-1/2" => Ending::Draw,
            _ => Ending::Unfinished,
        }
    }

    /// Polyglot's score for the side that moved: 2 a win, 0 a loss, 1
    /// anything else.
    fn score(self, mover: Color) -> u32 {
        match (self, mover) {
            (Ending::WhiteWins, Color::White) | (Ending::BlackWins, Color::Black) => 2,
            (Ending::WhiteWins, Color::Black) | (Ending::BlackWins, Color::White) => 0,
            _ => 1,
        }
    }
}

/// A move played from a position, in a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Event {
    key: u64,
    /// The game's place among those given, times 65,536, plus the ply.
    order: u64,
    mv: u16,
    /// Its [`move_codes`] code, `u16::MAX` for none.
    san: u16,
    /// The game's [`Ending`] (bits 0–1); bit 2 set when White moved.
    flags: u8,
}

/// Bytes of an [`Event`] in a spilled run.
const EVENT_BYTES: usize = 21;

impl Event {
    fn sort_key(&self) -> (u64, u64) {
        (self.key, self.order)
    }

    fn mover(&self) -> Color {
        if self.flags & 4 != 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    fn ending(&self) -> Ending {
        match self.flags & 3 {
            0 => Ending::WhiteWins,
            1 => Ending::Draw,
            2 => Ending::BlackWins,
            _ => Ending::Unfinished,
        }
    }

    fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let mut bytes = [0; EVENT_BYTES];
        bytes[..8].copy_from_slice(&self.key.to_le_bytes());
        bytes[8..16].copy_from_slice(&self.order.to_le_bytes());
        bytes[16..18].copy_from_slice(&self.mv.to_le_bytes());
        bytes[18..20].copy_from_slice(&self.san.to_le_bytes());
        bytes[20] = self.flags;
        out.write_all(&bytes)
    }

    fn read(input: &mut impl Read) -> io::Result<Option<Event>> {
        let mut bytes = [0; EVENT_BYTES];
        match input.read_exact(&mut bytes) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        let word = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        Ok(Some(Event {
            key: u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")),
            order: u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes")),
            mv: word(16),
            san: word(18),
            flags: bytes[20],
        }))
    }
}

/// A stored game that could not be replayed to its last counted ply: the
/// plies before the failure count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// The game.
    pub id: GameId,
    /// Why.
    pub reason: String,
}

/// The events of `game`'s first `max_ply` plies, its place `order`.
fn events_of(
    game: &Mainline,
    order: u64,
    rules: &Rules,
    out: &mut Vec<Event>,
) -> Result<(), Unreadable> {
    let ending = Ending::of(&game.result);
    if ending == Ending::Unfinished && !rules.unfinished {
        return Ok(());
    }
    let max_ply = rules.max_ply;
    let unreadable = |reason: String| Unreadable { id: game.id, reason };
    let mut pos = match &game.start_fen {
        None => Position::new(),
        Some(text) => fen::parse_position(text)
            .map_err(|e| unreadable(format!("stored start position '{text}': {e}")))?,
    };
    for (ply, coded) in game.moves.coded_sans().take(max_ply as usize).enumerate() {
        let (san, code) =
            coded.ok_or_else(|| unreadable(format!("ply {}: a move code of no move", ply + 1)))?;
        let parsed = San::from_ascii(san.as_bytes())
            .map_err(|e| unreadable(format!("ply {} '{san}': {e}", ply + 1)))?;
        if parsed == San::Null {
            // A null move is no book move; the positions after it are
            // still positions.
            pos.play_null()
                .map_err(|_| unreadable(format!("ply {}: a null move in check", ply + 1)))?;
            continue;
        }
        let m = parsed
            .to_move(&pos)
            .map_err(|e| unreadable(format!("ply {} '{san}': {e}", ply + 1)))?;
        let mover = pos.turn();
        out.push(Event {
            key: pos.zobrist().0,
            order: (order << 16) | ply as u64,
            mv: PolyMove::of(m).raw(),
            san: code.unwrap_or(u16::MAX),
            flags: ending as u8 | if mover == Color::White { 4 } else { 0 },
        });
        pos.play_unchecked(m);
    }
    Ok(())
}

/// A move of the finished book, with what polyglot's format has no room
/// for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookMove {
    /// The entry as written.
    pub entry: Entry,
    /// The move's SAN in its position, when known.
    pub san: Option<&'static str>,
    /// Times played from the position in the counted plies (before any
    /// halving).
    pub games: u64,
    /// Of those, in games White won.
    pub white_wins: u64,
    /// In drawn games.
    pub draws: u64,
    /// In games Black won.
    pub black_wins: u64,
}

/// What a book holds, once made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The games read.
    pub games: u64,
    /// The entries written.
    pub entries: u64,
    /// The positions they are of.
    pub positions: u64,
    /// The (position, move) pairs counted, kept or not.
    pub candidates: u64,
}

/// A book being made: games go in with [`Maker::add`], entries come out
/// of [`Maker::finish`].
#[derive(Debug)]
pub struct Maker {
    rules: Rules,
    /// Events not yet in a run.
    buffer: Vec<Event>,
    /// Spilled runs, each sorted.
    runs: Vec<File>,
    games: u64,
    /// The events a run holds before it is sorted and spilled.
    pub run_limit: usize,
    /// The first games that could not be replayed.
    pub unreadable: Vec<Unreadable>,
    /// How many could not be.
    pub unreadable_count: u64,
}

/// How many [`Unreadable`] a maker keeps.
const UNREADABLE_KEPT: usize = 10;

fn io_error(source: io::Error) -> BookError {
    BookError::Io { path: PathBuf::from("a temporary run of the book"), source }
}

impl Maker {
    /// A maker by `rules`, which [`Rules::check`] must accept.
    pub fn new(rules: Rules) -> Maker {
        Maker {
            rules,
            buffer: Vec::new(),
            runs: Vec::new(),
            games: 0,
            run_limit: 1 << 22,
            unreadable: Vec::new(),
            unreadable_count: 0,
        }
    }

    /// Counts `games`, which follow those given before; the workers replay
    /// them.
    ///
    /// # Errors
    /// [`BookError::Io`] writing a run.
    pub fn add(&mut self, games: &[Mainline]) -> Result<(), BookError> {
        let first = self.games;
        let rules = &self.rules;
        let max_ply = rules.max_ply;
        let parts: Vec<(Vec<Event>, Vec<Unreadable>)> = games
            .par_chunks(256)
            .enumerate()
            .map(|(chunk, games)| {
                let mut events = Vec::with_capacity(games.len() * max_ply as usize);
                let mut bad = Vec::new();
                for (i, game) in games.iter().enumerate() {
                    let order = first + (chunk * 256 + i) as u64;
                    if let Err(e) = events_of(game, order, rules, &mut events) {
                        bad.push(e);
                    }
                }
                (events, bad)
            })
            .collect();
        self.games += games.len() as u64;
        for (events, bad) in parts {
            self.buffer.extend_from_slice(&events);
            self.unreadable_count += bad.len() as u64;
            let room = UNREADABLE_KEPT.saturating_sub(self.unreadable.len());
            self.unreadable.extend(bad.into_iter().take(room));
        }
        if self.buffer.len() >= self.run_limit {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<(), BookError> {
        self.buffer.par_sort_unstable_by_key(Event::sort_key);
        let file = tempfile::tempfile().map_err(io_error)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        for event in &self.buffer {
            event.write(&mut out).map_err(io_error)?;
        }
        let mut file = out.into_inner().map_err(|e| io_error(e.into_error()))?;
        file.rewind().map_err(io_error)?;
        self.runs.push(file);
        self.buffer.clear();
        Ok(())
    }

    /// Merges the runs and gives each kept move, in the book's order (key,
    /// then weight from the highest, then move), to `each`.
    ///
    /// # Errors
    /// [`BookError::Io`] reading a run, or what `each` returns.
    pub fn finish(
        mut self,
        mut each: impl FnMut(&BookMove) -> Result<(), BookError>,
    ) -> Result<Summary, BookError> {
        self.buffer.par_sort_unstable_by_key(Event::sort_key);
        let mut sources: Vec<Box<dyn Iterator<Item = io::Result<Event>>>> = Vec::new();
        sources.push(Box::new(std::mem::take(&mut self.buffer).into_iter().map(Ok)));
        for file in std::mem::take(&mut self.runs) {
            let mut input = BufReader::with_capacity(1 << 20, file);
            sources.push(Box::new(std::iter::from_fn(move || Event::read(&mut input).transpose())));
        }
        let mut heap = BinaryHeap::new();
        let mut heads: Vec<Option<Event>> = Vec::with_capacity(sources.len());
        for (i, source) in sources.iter_mut().enumerate() {
            let head = source.next().transpose().map_err(io_error)?;
            if let Some(event) = head {
                heap.push(Reverse((event.sort_key(), i)));
            }
            heads.push(head);
        }
        let mut summary = Summary { games: self.games, ..Summary::default() };
        let mut position = Tallies::default();
        while let Some(Reverse((_, i))) = heap.pop() {
            let event = heads[i].take().expect("a source in the heap has a head");
            if let Some(next) = sources[i].next().transpose().map_err(io_error)? {
                heap.push(Reverse((next.sort_key(), i)));
                heads[i] = Some(next);
            }
            if position.key != Some(event.key) {
                position.close(&self.rules, &mut summary, &mut each)?;
                position.key = Some(event.key);
            }
            position.count(&event);
        }
        position.close(&self.rules, &mut summary, &mut each)?;
        Ok(summary)
    }
}

/// One move's counts in a position.
#[derive(Debug, Clone)]
struct Tally {
    mv: u16,
    san: u16,
    /// Polyglot's `n` and sum, halved as it halves them.
    n: u32,
    sum: u32,
    /// Every time, never halved.
    games: u64,
    by_ending: [u64; 4],
}

/// The moves of the position whose events are being merged.
#[derive(Debug, Default)]
struct Tallies {
    key: Option<u64>,
    mover: Option<Color>,
    moves: Vec<Tally>,
}

impl Tallies {
    fn count(&mut self, event: &Event) {
        self.mover = Some(event.mover());
        let at = match self.moves.iter().position(|t| t.mv == event.mv) {
            Some(at) => at,
            None => {
                self.moves.push(Tally {
                    mv: event.mv,
                    san: event.san,
                    n: 0,
                    sum: 0,
                    games: 0,
                    by_ending: [0; 4],
                });
                self.moves.len() - 1
            }
        };
        let tally = &mut self.moves[at];
        tally.n += 1;
        tally.sum += event.ending().score(event.mover());
        tally.games += 1;
        tally.by_ending[event.ending() as usize] += 1;
        if tally.n >= COUNT_MAX {
            for t in &mut self.moves {
                t.n = t.n.div_ceil(2);
                t.sum = t.sum.div_ceil(2);
            }
        }
    }

    fn close(
        &mut self,
        rules: &Rules,
        summary: &mut Summary,
        each: &mut impl FnMut(&BookMove) -> Result<(), BookError>,
    ) -> Result<(), BookError> {
        let Some(key) = self.key.take() else { return Ok(()) };
        summary.candidates += self.moves.len() as u64;
        let side_ok = rules.side.is_none_or(|side| self.mover == Some(side));
        let mut kept: Vec<BookMove> = self
            .moves
            .drain(..)
            .filter(|t| {
                side_ok
                    && t.n >= rules.min_games
                    && t.sum > 0
                    && (f64::from(t.sum) / f64::from(t.n)) / 2.0 >= rules.min_score
            })
            .map(|t| BookMove {
                entry: Entry {
                    key,
                    mv: PolyMove::from_raw(t.mv),
                    weight: if rules.uniform { 1 } else { t.sum as u16 },
                    learn: 0,
                },
                san: move_codes::san(t.san),
                games: t.games,
                white_wins: t.by_ending[Ending::WhiteWins as usize],
                draws: t.by_ending[Ending::Draw as usize],
                black_wins: t.by_ending[Ending::BlackWins as usize],
            })
            .collect();
        self.moves.clear();
        if kept.is_empty() {
            return Ok(());
        }
        kept.sort_by_key(|m| (Reverse(m.entry.weight), m.entry.mv));
        summary.positions += 1;
        summary.entries += kept.len() as u64;
        for m in &kept {
            each(m)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::mainlines::StoredMoves;

    fn game(id: u32, result: &str, moves: &str) -> Mainline {
        Mainline {
            id: GameId::new(id),
            result: result.into(),
            start_fen: None,
            moves: StoredMoves::Text(moves.into()),
        }
    }

    fn make(rules: Rules, games: &[Mainline], run_limit: usize) -> Vec<(String, u16, u64)> {
        let mut maker = Maker::new(rules);
        maker.run_limit = run_limit;
        for chunk in games.chunks(3) {
            maker.add(chunk).unwrap();
        }
        let mut out = Vec::new();
        maker
            .finish(|m| {
                out.push((m.san.unwrap_or("?").to_string(), m.entry.weight, m.games));
                Ok(())
            })
            .unwrap();
        out
    }

    #[test]
    fn entries_weigh_the_movers_score_and_need_min_games() {
        let games = [
            game(1, "1-0", "e4 e5 Nf3"),
            game(2, "1-0", "e4 e5 Nf3"),
            game(3, "0-1", "e4 c5"),
            game(4, "1/2-1/2", "d4 d5"),
            game(5, "*", "e4 e5 Nf3"),
        ];
        let rules = Rules { min_games: 1, ..Rules::default() };
        let all = make(rules.clone(), &games, 1 << 20);
        // e4: 2 + 2 + 0 + 1 from four games; d4: a draw.
        assert!(all.contains(&("e4".into(), 5, 4)), "{all:?}");
        assert!(all.contains(&("d4".into(), 1, 1)), "{all:?}");
        // e5 after e4, Black moving: two losses and an unfinished game.
        assert!(all.contains(&("e5".into(), 1, 3)), "{all:?}");
        // c5 won for Black: 2. d5 drew: 1.
        assert!(all.contains(&("c5".into(), 2, 1)), "{all:?}");
        let three = make(Rules::default(), &games, 1 << 20);
        let names: Vec<&str> = three.iter().map(|(s, _, _)| s.as_str()).collect();
        assert_eq!(names.iter().filter(|s| **s == "e4").count(), 1);
        assert!(!names.contains(&"d4") && !names.contains(&"c5"), "{three:?}");
        // Spilled runs give the same book.
        assert_eq!(make(rules.clone(), &games, 2), all);
        // Without the unfinished game, e5 has two games.
        let finished = make(Rules { unfinished: false, ..rules }, &games, 1 << 20);
        assert!(finished.contains(&("e4".into(), 4, 3)), "{finished:?}");
        assert!(!finished.iter().any(|(san, _, _)| san == "e5"), "{finished:?}");
    }

    #[test]
    fn max_ply_side_score_and_uniform() {
        let games: Vec<Mainline> = (1..=4).map(|i| game(i, "1-0", "e4 e5 Nf3 Nc6")).collect();
        let one = Rules { max_ply: 1, ..Rules::default() };
        assert_eq!(make(one, &games, 1 << 20), [("e4".to_string(), 8, 4)]);
        let white = Rules { side: Some(Color::White), uniform: true, ..Rules::default() };
        let mut w = make(white, &games, 1 << 20);
        w.sort();
        assert_eq!(w, [("Nf3".to_string(), 1, 4), ("e4".to_string(), 1, 4)]);
        // Black lost every game: a score of 0 keeps none of its moves, and
        // a minimum score of 1 keeps White's.
        let score = Rules { min_score: 1.0, ..Rules::default() };
        assert_eq!(make(score, &games, 1 << 20).len(), 2);
    }

    #[test]
    fn counts_are_halved_as_polyglot_halves_them() {
        let mut position = Tallies { key: Some(1), ..Tallies::default() };
        let event = |mv, flags| Event { key: 1, order: 0, mv, san: u16::MAX, flags };
        for _ in 0..5 {
            position.count(&event(2, 4));
        }
        for _ in 0..COUNT_MAX - 1 {
            position.count(&event(1, 4 | 1));
        }
        let n_sum = |p: &Tallies| p.moves.iter().map(|t| (t.mv, t.n, t.sum)).collect::<Vec<_>>();
        assert_eq!(n_sum(&position), [(2, 5, 10), (1, COUNT_MAX - 1, COUNT_MAX - 1)]);
        position.count(&event(1, 4 | 1));
        assert_eq!(n_sum(&position), [(2, 3, 5), (1, COUNT_MAX / 2, COUNT_MAX / 2)]);
        assert_eq!(position.moves[1].games, u64::from(COUNT_MAX));
    }

    #[test]
    fn rules_out_of_range_are_refused() {
        let check = |rules: Rules| rules.check().unwrap_err().to_string();
        assert!(check(Rules { max_ply: 0, ..Rules::default() }).starts_with("--max-ply"));
        assert!(check(Rules { min_games: 0, ..Rules::default() }).starts_with("--min-games"));
        assert!(check(Rules { min_score: 1.5, ..Rules::default() }).starts_with("--min-score"));
        assert!(Rules::default().check().is_ok());
    }
}
