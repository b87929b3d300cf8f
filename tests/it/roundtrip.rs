//! Property tests: over positions reached by random legal play (standard
//! and Chess960 starts), FEN write → parse gives the same position and key,
//! and every legal move survives SAN write → parse and UCI write → parse.

use pgnindex::chess::{MoveList, Position};
use pgnindex::notation::lang::Lang;
use pgnindex::notation::{fen, san, uci};
use proptest::prelude::*;

/// A few Chess960 starts (from the corpus perft files) besides the standard one.
const STARTS: [&str; 4] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
    "1r1k3r/8/8/8/8/8/8/R1K4R w HAhb - 0 1",
];

fn check_position(pos: &Position) -> Result<(), TestCaseError> {
    let text = fen::write(pos);
    let back =
        fen::parse_position(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    prop_assert_eq!(fen::write(&back), text.clone());
    // FEN shows en passant only when the capture is legal, while Polyglot
    // keys count it whenever a pawn stands beside (pins ignored): a pinned
    // capturer makes the two differ by design.
    if pos.legal_ep_square() == pos.pseudo_ep_square() {
        prop_assert_eq!(back.zobrist(), pos.zobrist(), "key after FEN round trip of {}", text);
    } else {
        prop_assert_eq!(back.pseudo_ep_square(), None);
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    for &m in &moves {
        let s = san::to_san(pos, m);
        let read = san::parse_move(pos, s.as_bytes(), Lang::English)
            .map_err(|e| TestCaseError::fail(format!("{text}: SAN {s}: {e}")))?;
        prop_assert_eq!(read, m, "SAN {} in {}", s, text);
        let u = uci::to_uci(pos, m);
        let read = uci::parse_move(pos, &u)
            .map_err(|e| TestCaseError::fail(format!("{text}: UCI {u}: {e}")))?;
        prop_assert_eq!(read, m, "UCI {} in {}", u, text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn fen_san_uci_round_trip(start in 0..STARTS.len(), choices in prop::collection::vec(any::<u32>(), 0..120)) {
        let mut pos = fen::parse_position(STARTS[start]).unwrap();
        check_position(&pos)?;
        for c in choices {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[c as usize % moves.len()]);
            check_position(&pos)?;
        }
    }
}
