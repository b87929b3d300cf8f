//! EPD parsing on arbitrary bytes. An EPD that reads must write back to text
//! that reads as the same position fields and operations (and writes the
//! same text again); the typed accessors must not fail on any operand.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnindex::notation::epd::Epd;
use pgnindex_fuzz::check_position;

fuzz_target!(|data: &[u8]| {
    let epd = match Epd::from_ascii(data) {
        Ok(e) => e,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let text = epd.to_string();
    let again = Epd::from_ascii(text.as_bytes())
        .unwrap_or_else(|e| panic!("written EPD {text:?} does not read back: {e}"));
    assert_eq!(again.operations, epd.operations, "operations read back from {text:?}");
    let (a, b) = (&again.setup, &epd.setup);
    assert_eq!(a.board, b.board, "{text:?}");
    assert_eq!(a.turn, b.turn, "{text:?}");
    assert_eq!(a.castling_rights, b.castling_rights, "{text:?}");
    assert_eq!(a.ep_square, b.ep_square, "{text:?}");
    // Bare clocks after the four fields are read but not written; clocks
    // given by `hmvc`/`fmvn` survive.
    if epd.number("hmvc").is_some() {
        assert_eq!(a.halfmoves, b.halfmoves, "{text:?}");
    }
    if epd.number("fmvn").is_some() {
        assert_eq!(a.fullmoves, b.fullmoves, "{text:?}");
    }
    assert_eq!(again.to_string(), text);
    for opcode in ["id", "c0", "ce", "acd", "hmvc", "fmvn"] {
        let _ = epd.string(opcode);
        let _ = epd.number(opcode);
    }
    let _ = epd.id();
    let Ok(pos) = epd.position() else { return };
    check_position(&pos);
    for opcode in ["bm", "am"] {
        match epd.moves(opcode, &pos) {
            Ok(moves) => {
                for m in moves {
                    assert!(pos.is_legal(m), "{opcode} move {m:?} of {text:?}");
                }
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    match epd.pv(&pos) {
        Ok(line) => {
            let mut p = pos.clone();
            for m in line {
                p.play(m).unwrap_or_else(|_| panic!("pv move {m:?} of {text:?} is illegal"));
            }
            check_position(&p);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
