//! Functions shared by the fuzz targets: where a fuzz input's position comes
//! from, and the invariants every position and every legal move must keep.
//! Each check panics with the position's FEN in its message, so a crash
//! names what broke.

use pgnindex::chess::{zobrist, Bitboard, Move, MoveList, Position, Role, Square};
use pgnindex::notation::lang::Lang;
use pgnindex::notation::{fen, san, uci};

/// Splits `data` at its first `\n` into (first line, rest). Without a
/// newline the first line is empty and everything is the rest.
pub fn split_first_line(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&[], data),
    }
}

/// The position an input starts from: the FEN on its first line when that
/// is a legal position, else the standard start.
pub fn start_position(line: &[u8]) -> Position {
    std::str::from_utf8(line).ok().and_then(|t| fen::parse_position(t).ok()).unwrap_or_default()
}

/// The legal moves of `pos`.
pub fn legal_moves(pos: &Position) -> MoveList {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves
}

/// Checks what every [`Position`] promises: its incremental Zobrist key
/// equals the key computed from scratch, its FEN reads back as the same
/// position, and the check and move counters agree with move generation.
pub fn check_position(pos: &Position) {
    let text = fen::write(pos);
    let scratch = zobrist::hash_from_scratch(
        pos.board(),
        pos.turn(),
        pos.castling_rights(),
        pos.pseudo_ep_square(),
    );
    assert_eq!(pos.zobrist(), scratch, "incremental key of {text}");
    let back = fen::parse_position(&text)
        .unwrap_or_else(|e| panic!("written FEN {text} does not read back: {e}"));
    assert_eq!(fen::write(&back), text, "FEN of the read-back position");
    if pos.legal_ep_square() == pos.pseudo_ep_square() {
        assert_eq!(&back, pos, "position read back from {text}");
    } else {
        // FEN writes en passant only when the capture is legal, Polyglot
        // keys whenever a pawn stands ready: the one documented difference.
        assert_eq!(back.pseudo_ep_square(), None, "{text}");
        assert_eq!(back.checkers(), pos.checkers(), "{text}");
    }
    let moves = legal_moves(pos);
    assert_eq!(moves.len(), pos.count_legal_moves(), "{text}");
    assert_eq!(!moves.is_empty(), pos.has_legal_moves(), "{text}");
    assert_eq!(pos.is_check(), pos.checkers().any(), "{text}");
}

/// Checks every legal move of `pos`: SAN and UCI written then read give
/// the move back, the `+`/`#` suffix tells the truth, and the position
/// after the move keeps its invariants ([`check_position`]).
pub fn check_moves_round_trip(pos: &Position) {
    for m in legal_moves(pos) {
        let mut after = pos.clone();
        after.play_unchecked(m);
        check_move_round_trip(pos, m);
        check_position(&after);
    }
}

/// Checks one legal move `m` of `pos`: SAN and UCI written then read give
/// the move back, and the `+`/`#` suffix of the SAN tells the truth.
pub fn check_move_round_trip(pos: &Position, m: Move) {
    let s = san::to_san(pos, m);
    let back = san::parse_move(pos, s.as_bytes(), Lang::English)
        .unwrap_or_else(|e| panic!("SAN {s} in {}: {e}", fen::write(pos)));
    assert_eq!(back, m, "SAN {s} in {}", fen::write(pos));
    let u = uci::to_uci(pos, m);
    let back =
        uci::parse_move(pos, &u).unwrap_or_else(|e| panic!("UCI {u} in {}: {e}", fen::write(pos)));
    assert_eq!(back, m, "UCI {u} in {}", fen::write(pos));
    let mut after = pos.clone();
    after.play_unchecked(m);
    let suffix = match (after.is_check(), after.has_legal_moves()) {
        (false, _) => "",
        (true, true) => "+",
        (true, false) => "#",
    };
    let plain = s.trim_end_matches(['+', '#']);
    assert_eq!(&s[plain.len()..], suffix, "suffix of {s} in {}", fen::write(pos));
}

/// Checks that [`Position::moves_to`], the backward lookup SAN resolution
/// relies on, finds exactly the legal moves of full move generation, for
/// every role and target square, with and without an origin mask; and that
/// [`Position::unique_move_to`] finds the one among them with each
/// promotion, if only one has it.
pub fn check_moves_to(pos: &Position) {
    let all = legal_moves(pos);
    let mut found = MoveList::new();
    for role in Role::ALL {
        for to in Square::all() {
            for mask in [Bitboard::FULL, Bitboard::from_file(to.file())] {
                pos.moves_to(role, to, mask, &mut found);
                let expected: Vec<Move> = all
                    .iter()
                    .copied()
                    .filter(|m| {
                        !matches!(m, Move::Castle { .. })
                            && m.role() == role
                            && m.to() == to
                            && mask.contains(m.from())
                    })
                    .collect();
                assert_eq!(
                    found.len(),
                    expected.len(),
                    "moves_to({role:?}, {to}) in {}: {found:?} vs {expected:?}",
                    fen::write(pos)
                );
                for m in &expected {
                    assert!(
                        found.contains(m),
                        "moves_to({role:?}, {to}) in {} misses {m:?}",
                        fen::write(pos)
                    );
                }
                for promotion in [None].into_iter().chain(Role::ALL.map(Some)) {
                    let with: Vec<&Move> =
                        expected.iter().filter(|m| m.promotion() == promotion).collect();
                    let unique = if with.len() == 1 { Some(*with[0]) } else { None };
                    assert_eq!(
                        pos.unique_move_to(role, to, mask, promotion),
                        unique,
                        "unique_move_to({role:?}, {to}, {promotion:?}) in {}",
                        fen::write(pos)
                    );
                }
            }
        }
    }
}
