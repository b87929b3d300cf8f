//! FEN parsing on arbitrary bytes. A FEN that reads must write back to text
//! that reads as the same setup; a legal one must give a position that keeps
//! every invariant, with legal moves that survive SAN and UCI round trips.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnindex::notation::fen::{self, Fen};
use pgnindex_fuzz::{check_moves_round_trip, check_moves_to, check_position};

fuzz_target!(|data: &[u8]| {
    let parsed = match Fen::from_ascii(data) {
        Ok(f) => f,
        Err(e) => {
            // The message is part of the contract: building it must not fail.
            let _ = e.to_string();
            return;
        }
    };
    let text = parsed.to_string();
    let again = Fen::from_ascii(text.as_bytes())
        .unwrap_or_else(|e| panic!("written FEN {text:?} does not read back: {e}"));
    assert_eq!(again, parsed, "setup read back from {text:?}");
    match parsed.into_position() {
        Ok(pos) => {
            if let Ok(s) = std::str::from_utf8(data) {
                assert_eq!(fen::parse_position(s).as_ref(), Ok(&pos));
            }
            check_position(&pos);
            check_moves_round_trip(&pos);
            check_moves_to(&pos);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
