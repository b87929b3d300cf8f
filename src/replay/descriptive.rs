//! A movetext as written read as English descriptive notation
//! ([`read`]): `pgn::descriptive` cuts it into moves and comments,
//! `notation::descriptive` resolves each move in the game, the pieces'
//! origins followed (the queen's knight stays the queen's knight wherever
//! it goes).

use crate::chess::{Move, Position};
use crate::notation::descriptive::{parse_move_in_game, DescriptiveError, Origins};
use crate::pgn::descriptive::{tokens, Token};

/// A movetext read by [`read`]: the moves played, the comments, and the
/// first move that could not be played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading<'a> {
    /// The moves played, in order.
    pub moves: Vec<Move>,
    /// The move texts read, in order (the played ones and the failed one).
    pub texts: Vec<String>,
    /// The comments' texts, each with the number of moves played before
    /// it.
    pub comments: Vec<(u32, &'a [u8])>,
    /// The first move that failed: its byte offset in the text, and why.
    pub error: Option<(usize, DescriptiveError)>,
    /// The position after the moves played (before the failed one).
    pub end: Position,
}

/// Reads a whole movetext from `start` as descriptive notation, up to its
/// first move that cannot be played.
pub fn read<'a>(start: &Position, text: &'a [u8]) -> Reading<'a> {
    let mut pos = start.clone();
    let mut origins = Origins::new(start);
    let (mut moves, mut texts, mut comments) = (Vec::new(), Vec::new(), Vec::new());
    let mut error = None;
    for token in tokens(text) {
        let (t, offset) = match token {
            Token::Comment(text) => {
                comments.push((moves.len() as u32, text));
                continue;
            }
            Token::Move(t, offset) => (t, offset),
        };
        let result = parse_move_in_game(&pos, &origins, t.as_bytes());
        texts.push(t);
        match result {
            Ok(m) => {
                origins.play(m);
                pos.play_unchecked(m);
                moves.push(m);
            }
            Err(e) => {
                error = Some((offset, e));
                break;
            }
        }
    }
    Reading { moves, texts, comments, error, end: pos }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::{parse_position, write as fen};

    fn replay_fen(text: &str) -> String {
        let r = read(&Position::new(), text.as_bytes());
        assert_eq!(r.error, None, "{text}");
        fen(&r.end)
    }

    #[test]
    fn evans_gambit_accepted() {
        // python-chess, after 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.b4 Bxb4.
        let reference = "r1bqk1nr/pppp1ppp/2n5/4p3/1bB1P3/5N2/P1PP1PPP/RNBQK2R w KQkq - 0 5";
        assert_eq!(replay_fen("P-K4 P-K4 N-KB3 N-QB3 B-B4 B-B4 P-QN4 BxNP"), reference);
        assert_eq!(
            replay_fen("1. P-K4 P-K4 2. Kt-KB3 Kt-QB3 3. B-B4 B-B4 4. P-QKt4 BxKtP *"),
            reference
        );
        assert_eq!(
            replay_fen("1 P-K4 P-K4 2 N-KB3 2...N-QB3 3.B-B4 B-B4 4. P-QN4 B×NP"),
            reference
        );
    }

    #[test]
    fn replay_stops_at_the_first_bad_move() {
        let r = read(&Position::new(), b"1. P-K4 P-K4 2. N-B3 N-QB3");
        assert_eq!(r.moves.len(), 2);
        let (offset, e) = r.error.unwrap();
        assert_eq!(offset, 16);
        assert_eq!(e.reason(), "ambiguous move: could be N-QB3 (Nc3), N-KB3 (Nf3)");
    }

    #[test]
    fn a_castling_side_over_a_line_break() {
        let fen_text = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
        let r = read(&parse_position(fen_text).unwrap(), b"Castles (Q\nR)");
        assert_eq!((r.moves.len(), r.error), (1, None));
    }

    #[test]
    fn comments_after_the_moves_before_them() {
        let r = read(&Position::new(), b"{intro} 1. P-K4 {[%clk 0:01:00]} P-K4 *");
        assert_eq!(r.comments, [(0, &b"intro"[..]), (1, &b"[%clk 0:01:00]"[..])]);
        assert_eq!(r.texts, ["P-K4", "P-K4"]);
    }
}
