//! SAN (and UCI) parsing and playing on positions derived from the input.
//!
//! Input: an optional FEN on the first line (else the start position), then
//! whitespace-separated tokens. A token `@N` plays legal move number `N`
//! (modulo the number of legal moves), which takes the fuzzer to arbitrary
//! positions; any other token is read as SAN in every language and as UCI.
//! Each reading that resolves must be the one legal move a brute-force
//! search over all legal moves finds, and must survive write → read; each
//! failure must explain itself. The first resolution is played. Finally the
//! SAN tokens are replayed with language detection.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnindex::chess::{Move, Position, Role, Square};
use pgnindex::notation::lang::Lang;
use pgnindex::notation::san::{self, San, SanError};
use pgnindex::notation::uci::Uci;
use pgnindex_fuzz::{
    check_move_round_trip, check_position, legal_moves, split_first_line, start_position,
};

/// At most this many tokens are read (longer inputs add nothing new).
const MAX_TOKENS: usize = 100;

fuzz_target!(|data: &[u8]| {
    let (first, rest) = split_first_line(data);
    let start = start_position(first);
    let mut pos = start.clone();
    let mut texts: Vec<&[u8]> = Vec::new();
    for token in rest.split(|b| b.is_ascii_whitespace()).filter(|t| !t.is_empty()).take(MAX_TOKENS)
    {
        let legal = legal_moves(&pos);
        if let Some(index) = token.strip_prefix(b"@") {
            if legal.is_empty() {
                continue;
            }
            let n =
                index.iter().fold(0usize, |n, &b| n.wrapping_mul(10).wrapping_add(usize::from(b)));
            let m = legal[n % legal.len()];
            check_move_round_trip(&pos, m);
            pos.play_unchecked(m);
            continue;
        }
        texts.push(token);
        let mut played = None;
        for lang in Lang::ALL {
            if let Some(m) = check_san(&pos, &legal, token, lang) {
                played.get_or_insert(m);
            }
        }
        if let Some(m) = check_uci(&pos, token) {
            played.get_or_insert(m);
        }
        if let Some(m) = played {
            pos.play_unchecked(m);
            check_position(&pos);
        }
    }
    check_replay(&start, &texts);
});

/// Reads `token` as SAN in `lang` and checks the reading against brute
/// force; the move if it resolves.
fn check_san(pos: &Position, legal: &[Move], token: &[u8], lang: Lang) -> Option<Move> {
    let san = match San::from_ascii_lang(token, lang) {
        Ok(san) => san,
        Err(e) => {
            let _ = e.to_string();
            return None;
        }
    };
    // The canonical text reads back as the same SAN, in English.
    let text = san.to_string();
    assert_eq!(San::from_ascii(text.as_bytes()), Ok(san), "{token:?} written as {text}");
    let expected = brute_force(pos, legal, san);
    match san.to_move(pos) {
        Ok(m) => {
            assert_eq!(expected, [m], "{token:?} ({lang:?}) in {}", fen(pos));
            check_move_round_trip(pos, m);
            Some(m)
        }
        Err(e) => {
            match &e {
                SanError::Illegal { .. } => {
                    assert!(expected.is_empty(), "{token:?} in {}: {e}, but {expected:?}", fen(pos))
                }
                SanError::Ambiguous { candidates, .. } => {
                    assert!(expected.len() > 1, "{token:?} in {}: {e}", fen(pos));
                    assert_eq!(candidates.len(), expected.len(), "{token:?} in {}: {e}", fen(pos));
                }
            }
            None
        }
    }
}

/// The legal moves `san` may mean, by the rules the `san` module documents,
/// found by filtering every legal move.
fn brute_force(pos: &Position, legal: &[Move], san: San) -> Vec<Move> {
    let (role, file, rank, to, promotion) = match san {
        San::Null => return Vec::new(),
        San::Castle(side) => {
            return legal.iter().copied().filter(|m| m.castling_side() == Some(side)).collect()
        }
        San::Normal { role, file, rank, to, promotion, .. } => (role, file, rank, to, promotion),
    };
    let mut role = role;
    if let (Some(f), Some(r)) = (file, rank) {
        let from = Square::from_coords(f, r);
        if let Some(piece) = pos.board().piece_at(from).filter(|p| p.color == pos.turn()) {
            // Long algebraic without a letter: the board says which piece.
            if role == Role::Pawn {
                role = piece.role;
            }
            // A king going two squares, or onto its own rook, castles.
            if role == Role::King && piece.role == Role::King {
                let castles: Vec<Move> = legal
                    .iter()
                    .copied()
                    .filter(|&m| match m {
                        Move::Castle { king, rook } => {
                            king == from
                                && (rook == to
                                    || (from.file().index().abs_diff(to.file().index()) == 2
                                        && m.to() == to))
                        }
                        _ => false,
                    })
                    .collect();
                if !castles.is_empty() {
                    return castles;
                }
            }
        }
    }
    legal
        .iter()
        .copied()
        .filter(|m| {
            !matches!(m, Move::Castle { .. })
                && m.role() == role
                && m.to() == to
                && m.promotion() == promotion
                && match file {
                    Some(f) => m.from().file() == f,
                    // A pawn without its file written stays on its file.
                    None => role != Role::Pawn || m.from().file() == to.file(),
                }
                && rank.is_none_or(|r| m.from().rank() == r)
        })
        .collect()
}

/// Reads `token` as UCI; a resolved move must be legal and write back to
/// text that resolves to it.
fn check_uci(pos: &Position, token: &[u8]) -> Option<Move> {
    let uci = Uci::from_ascii(token).ok()?;
    let text = uci.to_string();
    assert_eq!(Uci::from_ascii(text.as_bytes()), Ok(uci), "{token:?} written as {text}");
    match uci.to_move(pos) {
        Ok(m) => {
            assert!(pos.is_legal(m), "UCI {token:?} in {}: {m:?}", fen(pos));
            check_move_round_trip(pos, m);
            Some(m)
        }
        Err(e) => {
            let _ = e.to_string();
            None
        }
    }
}

/// Replays `texts` with language detection; the moves returned must play
/// in order, up to the error if any, and a detected language must replay
/// the same when forced.
fn check_replay(start: &Position, texts: &[&[u8]]) {
    let replay = san::replay(start, texts, None);
    let mut pos = start.clone();
    for m in &replay.moves {
        match m {
            Some(m) => pos.play(*m).expect("replayed move is legal"),
            None => pos.play_null().expect("replayed null move is allowed"),
        }
    }
    match &replay.error {
        Some((index, e)) => {
            assert_eq!(*index, replay.moves.len());
            let _ = e.to_string();
        }
        None => {
            assert_eq!(replay.moves.len(), texts.len());
            let forced = san::replay(start, texts, Some(replay.lang));
            assert_eq!(forced, replay);
        }
    }
}

fn fen(pos: &Position) -> String {
    pgnindex::notation::fen::write(pos)
}
