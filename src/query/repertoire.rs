//! Repertoires: a PGN whose mainlines and variations are the lines a
//! player prepared, and the stored games that leave them. Positions are
//! matched by key, so a game that transposes into a line is in it.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;

use crate::chess::{Color, Move, Position};
use crate::notation::fen;
use crate::notation::lang::Lang;
use crate::notation::san;
use crate::pgn::{LineIndex, RawTag, Reader, Skip, Visitor};
use crate::query::mainlines::Mainline;

/// A repertoire file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RepertoireError {
    /// The file cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A move of a line cannot be played.
    #[error("{}:{line}:{column}: '{text}' cannot be played here: {reason}", path.display())]
    Move {
        /// The file.
        path: std::path::PathBuf,
        /// 1-based line of the move.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The move as written.
        text: String,
        /// Why.
        reason: String,
    },
    /// A FEN tag that is no legal position.
    #[error("{}:{line}: FEN tag: {reason}", path.display())]
    Fen {
        /// The file.
        path: std::path::PathBuf,
        /// 1-based line of the game's start.
        line: usize,
        /// Why.
        reason: String,
    },
    /// The file holds no move.
    #[error("{}: no move: a repertoire is the lines of a PGN file", path.display())]
    Empty {
        /// The file.
        path: std::path::PathBuf,
    },
}

/// The lines of a repertoire: for each position in them, the moves they
/// play there.
#[derive(Debug, Clone, Default)]
pub struct Repertoire {
    moves: HashMap<u64, Vec<Move>>,
}

/// Where a game leaves a repertoire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deviation {
    /// The 1-based ply of the move that leaves it.
    pub ply: u32,
    /// That move in SAN.
    pub san: String,
    /// The side that played it.
    pub mover: Color,
    /// The position it was played from.
    pub position: Position,
}

impl Repertoire {
    /// Reads every line of the PGN file at `path`: the mainlines and their
    /// variations, nested to any depth.
    ///
    /// # Errors
    /// [`RepertoireError`], naming the file, line and move.
    pub fn read(path: &Path) -> Result<Repertoire, RepertoireError> {
        let bytes = std::fs::read(path)
            .map_err(|source| RepertoireError::Io { path: path.to_path_buf(), source })?;
        Repertoire::from_pgn(&bytes, path)
    }

    /// The repertoire of PGN text `data`, read from `path`.
    ///
    /// # Errors
    /// As [`Repertoire::read`].
    pub fn from_pgn(data: &[u8], path: &Path) -> Result<Repertoire, RepertoireError> {
        let mut repertoire = Repertoire::default();
        let mut reader = Reader::new(data);
        let mut lines = LineIndex::new(data);
        loop {
            let mut visitor = Lines {
                repertoire: &mut repertoire,
                fen: None,
                current: None,
                before_last: None,
                stack: Vec::new(),
                failure: None,
                start: 0,
            };
            if reader.read_game(&mut visitor).is_none() {
                break;
            }
            if let Some((offset, failure)) = visitor.failure {
                let (line, column) = lines.locate(offset);
                let path = path.to_path_buf();
                return Err(match failure {
                    Failure::Fen(reason) => RepertoireError::Fen { path, line, reason },
                    Failure::Move(text, reason) => {
                        RepertoireError::Move { path, line, column, text, reason }
                    }
                });
            }
        }
        if repertoire.moves.is_empty() {
            return Err(RepertoireError::Empty { path: path.to_path_buf() });
        }
        Ok(repertoire)
    }

    /// The repertoire's moves from the position of `key`; empty where its
    /// lines end or never go.
    pub fn moves(&self, key: u64) -> &[Move] {
        self.moves.get(&key).map_or(&[], Vec::as_slice)
    }

    /// The positions the repertoire has moves for.
    pub fn positions(&self) -> usize {
        self.moves.len()
    }

    /// Where `game` leaves the repertoire: the first move played from a
    /// position the repertoire has moves for that is not among them.
    /// `None` if the game never does (it ends, or reaches a position where
    /// the lines stop, or never meets them), or cannot be replayed.
    pub fn deviation(&self, game: &Mainline) -> Option<Deviation> {
        let mut pos = match &game.start_fen {
            None => Position::new(),
            Some(text) => fen::parse_position(text).ok()?,
        };
        let mut inside = false;
        for (ply, text) in game.moves.sans().enumerate() {
            let known = self.moves(pos.zobrist().0);
            if known.is_empty() {
                // The lines stop here, or the game has not met them yet.
                if inside {
                    return None;
                }
            } else {
                inside = true;
            }
            let text = text?;
            if text == "--" {
                pos.play_null().ok()?;
                continue;
            }
            let m = san::San::from_ascii(text.as_bytes()).ok()?.to_move(&pos).ok()?;
            if !known.is_empty() && !known.contains(&m) {
                return Some(Deviation {
                    ply: ply as u32 + 1,
                    san: text.to_string(),
                    mover: pos.turn(),
                    position: pos,
                });
            }
            pos.play_unchecked(m);
        }
        None
    }
}

enum Failure {
    Fen(String),
    Move(String, String),
}

/// A game's lines into the repertoire: the current position, and for
/// each open variation the position it returns to and the one before its
/// last move.
struct Lines<'r> {
    repertoire: &'r mut Repertoire,
    fen: Option<String>,
    current: Option<Position>,
    before_last: Option<Position>,
    stack: Vec<(Option<Position>, Option<Position>)>,
    failure: Option<(usize, Failure)>,
    start: usize,
}

impl<'a> Visitor<'a> for Lines<'_> {
    type Output = ();

    fn begin_game(&mut self, offset: usize) {
        self.start = offset;
    }

    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        if name == b"FEN" {
            self.fen = Some(value.decode().into_owned());
        }
    }

    fn end_tags(&mut self) -> Skip {
        let start = match self.fen.as_deref() {
            None => Ok(Position::new()),
            Some(text) => fen::parse_position(text).map_err(|e| e.to_string()),
        };
        match start {
            Ok(pos) => self.current = Some(pos),
            Err(reason) => {
                self.failure = Some((self.start, Failure::Fen(reason)));
                return Skip(true);
            }
        }
        Skip(false)
    }

    fn san(&mut self, text: &'a [u8], offset: usize) -> ControlFlow<()> {
        let Some(pos) = self.current.as_mut() else {
            let written = String::from_utf8_lossy(text).into_owned();
            let reason = "a variation with no move before it to replace".to_string();
            self.failure = Some((offset, Failure::Move(written, reason)));
            return ControlFlow::Break(());
        };
        match san::parse_move(pos, text, Lang::English) {
            Ok(m) => {
                let moves = self.repertoire.moves.entry(pos.zobrist().0).or_default();
                if !moves.contains(&m) {
                    moves.push(m);
                }
                self.before_last = Some(pos.clone());
                pos.play_unchecked(m);
                ControlFlow::Continue(())
            }
            Err(e) => {
                let written = String::from_utf8_lossy(text).into_owned();
                self.failure = Some((offset, Failure::Move(written, e.reason())));
                ControlFlow::Break(())
            }
        }
    }

    fn begin_variation(&mut self) -> Skip {
        self.stack.push((self.current.clone(), self.before_last.clone()));
        // A variation replaces the move before it.
        self.current = self.before_last.take();
        Skip(false)
    }

    fn end_variation(&mut self) {
        if let Some((current, before_last)) = self.stack.pop() {
            self.current = current;
            self.before_last = before_last;
        }
    }

    fn end_game(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::GameId;
    use crate::query::mainlines::StoredMoves;

    fn game(moves: &str) -> Mainline {
        Mainline {
            id: GameId::new(1),
            result: "*".into(),
            start_fen: None,
            moves: StoredMoves::Text(moves.into()),
        }
    }

    const REP: &str = "1. e4 c5 (1... e5 2. Nf3 Nc6 (2... d6 3. d4) 3. Bb5) 2. Nf3 *";

    #[test]
    fn lines_and_nested_variations_make_the_repertoire() {
        let rep = Repertoire::from_pgn(REP.as_bytes(), Path::new("rep.pgn")).unwrap();
        let start = Position::new().zobrist().0;
        assert_eq!(rep.moves(start).len(), 1);
        // After 1. e4: c5 and e5.
        assert!(rep.deviation(&game("e4 c5 Nf3")).is_none());
        assert!(rep.deviation(&game("e4 e5 Nf3 d6 d4 Nf6")).is_none(), "the lines stop at 3. d4");
        let d = rep.deviation(&game("e4 e6 d4")).unwrap();
        assert_eq!((d.ply, d.san.as_str(), d.mover), (2, "e6", Color::Black));
        let d = rep.deviation(&game("e4 e5 Nf3 Nc6 Bc4")).unwrap();
        assert_eq!((d.ply, d.san.as_str(), d.mover), (5, "Bc4", Color::White));
        let d = rep.deviation(&game("d4")).unwrap();
        assert_eq!((d.ply, d.mover), (1, Color::White));
        // A move order of one line reaching another line's position takes
        // that line's moves there.
        let two = "1. e4 (1. Nf3 Nc6 2. e4 e5 3. Bc4) 1... e5 2. Nf3 Nc6 3. Bb5 *";
        let rep = Repertoire::from_pgn(two.as_bytes(), Path::new("rep.pgn")).unwrap();
        assert!(rep.deviation(&game("Nf3 Nc6 e4 e5 Bb5 a6")).is_none());
        assert!(rep.deviation(&game("e4 e5 Nf3 Nc6 Bc4 Bc5")).is_none());
        assert_eq!(rep.deviation(&game("e4 e5 Nf3 Nc6 d4")).map(|d| d.ply), Some(5));
    }

    #[test]
    fn an_illegal_move_is_located() {
        let text = "[Event \"x\"]\n\n1. e4 e5\n2. Nf3 (2. Ke3 Nc6) Nc6 *\n";
        let e = Repertoire::from_pgn(text.as_bytes(), Path::new("rep.pgn")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "rep.pgn:4:12: 'Ke3' cannot be played here: illegal move: no white king can go to e3"
        );
        let e = Repertoire::from_pgn(b"[Event \"x\"]\n\n*\n", Path::new("r.pgn")).unwrap_err();
        assert!(e.to_string().contains("no move"), "{e}");
    }
}
