//! Write → read round trips along a game the input chooses.
//!
//! Input: an optional FEN on the first line (else the start position), then
//! one byte per ply choosing a legal move by index. Along the way every
//! position's FEN reads back as the same position and each move played
//! survives SAN and UCI write → read; at the end, every legal move does. At the end, an EPD with
//! operations (`bm`, `pv`, `id`, `ce`, `hmvc`, `fmvn`, `c0`) written from
//! the final position reads back equal, and the game written as PGN (FEN
//! tag, move numbers, check marks, a comment, an annotation) reads and
//! replays to the same moves, FENs, keys and final position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnindex::chess::{Move, Position};
use pgnindex::replay::{ReplayOptions, Replayer};
use pgnindex::notation::epd::{Epd, Operand, Operation};
use pgnindex::notation::{fen, san};
use pgnindex::pgn::{GameResult, Reader};
use pgnindex_fuzz::{
    check_move_round_trip, check_moves_round_trip, check_moves_to, check_position, legal_moves,
    split_first_line, start_position,
};

/// At most this many plies are played.
const MAX_PLIES: usize = 64;

fuzz_target!(|data: &[u8]| {
    let (first, choices) = split_first_line(data);
    // Through its FEN, so that a PGN FEN tag starts from the same position
    // (FEN drops an en-passant square no capture can use).
    let start = start_position(first);
    let start = fen::parse_position(&fen::write(&start)).expect("written FEN reads back");
    let mut pos = start.clone();
    let mut path = vec![pos.clone()];
    let mut played = Vec::new();
    for &choice in choices.iter().take(MAX_PLIES) {
        check_position(&pos);
        let legal = legal_moves(&pos);
        if legal.is_empty() {
            break;
        }
        let m = legal[usize::from(choice) % legal.len()];
        check_move_round_trip(&pos, m);
        pos.play_unchecked(m);
        played.push(m);
        path.push(pos.clone());
    }
    check_position(&pos);
    check_moves_round_trip(&pos);
    check_moves_to(&pos);
    check_epd(&pos, choices);
    check_pgn(&start, &played, &path);
});

/// An EPD of `pos` with operations written and read back.
fn check_epd(pos: &Position, choices: &[u8]) {
    let mut line = pos.clone();
    let mut pv = Vec::new();
    for &choice in choices.iter().take(4) {
        let legal = legal_moves(&line);
        if legal.is_empty() {
            break;
        }
        let m = legal[usize::from(choice) % legal.len()];
        pv.push((m, san::to_san(&line, m)));
        line.play_unchecked(m);
    }
    let setup = pos.to_setup();
    let op = |opcode: &str, operands: Vec<Operand>| Operation { opcode: opcode.into(), operands };
    let token = |s: String| Operand::Token(s);
    let mut operations = Vec::new();
    if let Some((_, s)) = pv.first() {
        operations.push(op("bm", vec![token(s.clone())]));
    }
    operations.push(op("pv", pv.iter().map(|(_, s)| token(s.clone())).collect()));
    operations.push(op("id", vec![Operand::Str(format!("fuzz; {}", pv.len()))]));
    operations.push(op("ce", vec![token(format!("{}", pos.zobrist().as_i64() % 1000))]));
    operations.push(op("hmvc", vec![token(setup.halfmoves.to_string())]));
    operations.push(op("fmvn", vec![token(setup.fullmoves.to_string())]));
    operations.push(op("c0", vec![Operand::Str(fen::write(pos))]));
    let epd = Epd { setup, operations };
    let text = epd.to_string();
    let back = Epd::from_ascii(text.as_bytes())
        .unwrap_or_else(|e| panic!("written EPD {text:?} does not read back: {e}"));
    assert_eq!(back, epd, "EPD read back from {text:?}");
    let read = back.position().unwrap_or_else(|e| panic!("{text:?}: {e}"));
    assert_eq!(fen::write(&read), fen::write(pos), "{text:?}");
    let bm = back.moves("bm", &read).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    assert_eq!(bm, pv.first().map(|p| p.0).into_iter().collect::<Vec<_>>(), "{text:?}");
    let line = back.pv(&read).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    assert_eq!(line, pv.iter().map(|p| p.0).collect::<Vec<_>>(), "{text:?}");
    assert_eq!(back.number("ce"), Some(pos.zobrist().as_i64() % 1000));
}

/// The game written as PGN, then read and replayed.
fn check_pgn(start: &Position, played: &[Move], path: &[Position]) {
    let mut text = String::from("[Event \"fuzz\"]\n");
    if *start != Position::new() {
        text.push_str(&format!("[SetUp \"1\"]\n[FEN \"{}\"]\n", fen::write(start)));
    }
    text.push('\n');
    for (i, (&m, before)) in played.iter().zip(path).enumerate() {
        let number = before.fullmoves();
        if before.turn().is_white() {
            text.push_str(&format!("{number}. "));
        } else if i == 0 {
            text.push_str(&format!("{number}... "));
        }
        text.push_str(&san::to_san(before, m));
        match i % 7 {
            3 => text.push_str("!?"),
            5 => text.push_str(" {a comment}"),
            _ => {}
        }
        text.push(if i % 8 == 7 { '\n' } else { ' ' });
    }
    text.push_str("*\n");
    let mut reader = Reader::new(text.as_bytes());
    let options = ReplayOptions { keys: true, reaches: None, fens: true, notation: None, tags: true, commands: true, san: true, movetext: true, openings: true, rebuild: true };
    let mut replayer = Replayer::new(options);
    let game = reader.read_game(&mut replayer).expect("one game");
    assert!(reader.read_game(&mut replayer).is_none(), "one game only:\n{text}");
    assert_eq!(game.error, None, "{text}");
    assert!(game.syntax.is_empty(), "{text}: {:?}", game.syntax);
    assert_eq!(game.outcome, Some(GameResult::Unknown));
    let moves: Vec<Option<Move>> = played.iter().map(|&m| Some(m)).collect();
    assert_eq!(game.moves, moves, "{text}");
    let fens: Vec<String> = path.iter().map(fen::write).collect();
    assert_eq!(game.fens, fens, "{text}");
    let keys: Vec<u64> = path.iter().map(|p| p.zobrist().0).collect();
    assert_eq!(game.keys, keys, "{text}");
    assert_eq!(game.final_position, *path.last().expect("a start"), "{text}");
    let start_fen = (*start != Position::new()).then(|| fen::write(start));
    assert_eq!(game.start_fen, start_fen, "{text}");
}
