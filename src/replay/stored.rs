//! Replaying a stored game (`games.start_fen` and `games.moves`, canonical
//! SAN) to a given ply: how hash hits are verified, and how `fen_at` and
//! `show --fens` get their positions.

use crate::chess::Position;
use crate::notation::fen;
use crate::notation::san::{self, MoveTextError, San};
use crate::notation::uci::Uci;

/// A stored game that cannot be replayed (the database was changed by
/// hand, or written by a different program).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// `start_fen` is not a legal position.
    #[error("stored start position '{fen}': {reason}")]
    StartFen {
        /// The stored text.
        fen: String,
        /// Why it failed.
        reason: String,
    },
    /// A stored move cannot be played.
    #[error("stored move {numbered} cannot be played: {reason}")]
    Move {
        /// 1-based ply of the move.
        ply: u32,
        /// The stored SAN with its chess move number (`2. Ke3`, `2... Ke6`).
        numbered: String,
        /// Why it failed.
        reason: String,
    },
}

/// A stored game being replayed move by move.
#[derive(Debug, Clone)]
pub struct Replay<'a> {
    position: Position,
    ply: u32,
    last_move: Option<Uci>,
    moves: std::str::SplitAsciiWhitespace<'a>,
}

impl<'a> Replay<'a> {
    /// Starts at `start_fen` (`None`: the standard start) with the moves
    /// `moves` (canonical SAN, space separated) to come.
    ///
    /// # Errors
    /// [`ReplayError::StartFen`] for a bad stored start.
    pub fn new(start_fen: Option<&str>, moves: &'a str) -> Result<Replay<'a>, ReplayError> {
        let position = match start_fen {
            None => Position::new(),
            Some(text) => fen::parse_position(text).map_err(|e| ReplayError::StartFen {
                fen: text.to_string(),
                reason: e.to_string(),
            })?,
        };
        Ok(Replay { position, ply: 0, last_move: None, moves: moves.split_ascii_whitespace() })
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The number of moves played so far.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The move that led to the current position ([`Uci::Null`] for a
    /// null move); `None` at the start.
    pub fn last_move(&self) -> Option<Uci> {
        self.last_move
    }

    /// Plays the next move; returns its SAN, or `None` at the end.
    ///
    /// # Errors
    /// [`ReplayError::Move`] for a move that cannot be played.
    pub fn step(&mut self) -> Result<Option<&'a str>, ReplayError> {
        let Some(san) = self.moves.next() else { return Ok(None) };
        let ply = self.ply + 1;
        let played = match San::from_ascii(san.as_bytes()) {
            Err(e) => Err(MoveTextError::from(e).reason()),
            Ok(San::Null) => self
                .position
                .play_null()
                .map(|()| Uci::Null)
                .map_err(|_| "a null move in check".to_string()),
            Ok(parsed) => match parsed.to_move(&self.position) {
                Ok(m) => {
                    self.position.play_unchecked(m);
                    Ok(Uci::from_move(m))
                }
                Err(e) => Err(MoveTextError::from(e).reason()),
            },
        };
        // On failure the position is still the one before the move.
        match played {
            Ok(uci) => self.last_move = Some(uci),
            Err(reason) => {
                let numbered = san::numbered(&self.position, san.as_bytes());
                return Err(ReplayError::Move { ply, numbered, reason });
            }
        }
        self.ply = ply;
        Ok(Some(san))
    }

    /// Plays moves until `ply` moves are played; `false` if the game ends
    /// before.
    ///
    /// # Errors
    /// [`ReplayError::Move`] for a move that cannot be played.
    pub fn advance_to(&mut self, ply: u32) -> Result<bool, ReplayError> {
        while self.ply < ply {
            if self.step()?.is_none() {
                return Ok(false);
            }
        }
        Ok(self.ply == ply)
    }
}

/// The position after `ply` moves of a stored game; `None` if the game is
/// shorter.
///
/// # Errors
/// [`ReplayError`] for a game that cannot be replayed.
pub fn position_at(
    start_fen: Option<&str>,
    moves: &str,
    ply: u32,
) -> Result<Option<Position>, ReplayError> {
    let mut replay = Replay::new(start_fen, moves)?;
    Ok(replay.advance_to(ply)?.then(|| replay.position().clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_to_a_ply() {
        let moves = "e4 e5 Nf3 Nc6 Bb5";
        let at = |ply| position_at(None, moves, ply).unwrap().map(|p| fen::write(&p));
        assert_eq!(at(0).unwrap(), fen::write(&Position::new()));
        assert_eq!(
            at(3).unwrap(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
        );
        assert!(at(5).is_some());
        assert!(at(6).is_none());
        let start = "8/8/8/8/8/8/8/K6k w - - 0 1";
        let p = position_at(Some(start), "Kb2 -- Kc3", 3).unwrap().unwrap();
        assert_eq!(fen::write(&p), "8/8/8/8/8/2K5/8/7k b - - 3 2");
    }

    #[test]
    fn the_last_move_is_kept_in_uci() {
        let mut replay = Replay::new(None, "e4 --").unwrap();
        assert_eq!(replay.last_move(), None);
        replay.step().unwrap();
        assert_eq!(replay.last_move().map(|m| m.to_string()).as_deref(), Some("e2e4"));
        replay.step().unwrap();
        assert_eq!(replay.last_move(), Some(Uci::Null));
        let mut replay = Replay::new(None, "e4 e5 Nf3 Nc6 Bc4 Bc5 O-O").unwrap();
        assert!(replay.advance_to(7).unwrap());
        assert_eq!(replay.last_move().map(|m| m.to_string()).as_deref(), Some("e1g1"));
        assert!(replay.step().unwrap().is_none());
        assert_eq!(replay.last_move().map(|m| m.to_string()).as_deref(), Some("e1g1"));
    }

    #[test]
    fn bad_stored_games_are_errors() {
        let e = position_at(None, "e4 e5 Ke3", 3).unwrap_err();
        assert!(matches!(e, ReplayError::Move { ply: 3, .. }), "{e}");
        assert_eq!(
            e.to_string(),
            "stored move 2. Ke3 cannot be played: illegal move: no white king can go to e3"
        );
        let e = position_at(Some("bad"), "", 0).unwrap_err();
        assert!(matches!(e, ReplayError::StartFen { .. }));
    }
}
