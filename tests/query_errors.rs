//! What the query commands say when a position or a move list cannot mean
//! what it seems to, and how they show a game whose replay stopped at a
//! bad move: the real binary on a small database in a throw-away
//! directory.

pub mod common;

use common::{arg, import, run, scratch, Scratch};
use similar_asserts::assert_eq;

const START_PLACEMENT: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

/// A scratch directory with `g.db` imported from `pgn`; the directory and
/// the database's path.
fn database(pgn: &str) -> (Scratch, String) {
    let dir = scratch();
    let input = dir.write("g.pgn", pgn);
    let db = dir.join("g.db");
    import(&db, &["--quiet", arg(&input)]);
    let db = arg(&db).to_string();
    (dir, db)
}

/// Two games: one plays through the start position, one does not start
/// there.
const TWO_GAMES: &str = "[Event \"A\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n\
                         [Event \"B\"]\n[Result \"*\"]\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n\n\
                         1. Kb2 *\n";

#[test]
fn a_partial_fen_is_refused_with_the_missing_fields() {
    let (_dir, db) = database(TWO_GAMES);
    let refused = |args: &[&str], message: &str| {
        let out = run(args.iter().chain(&["--db", db.as_str()]));
        assert_eq!((out.code, out.stderr.as_str()), (1, message), "{args:?}");
        // `sql` has printed its column header when the function fails.
        assert!(args[0] == "sql" || out.stdout.is_empty(), "{args:?}: {}", out.stdout);
    };
    let one = "pgnindex: error: --fen: invalid FEN: 1 of the 4 position fields; \
               the side-to-move, castling and en-passant fields are missing\n";
    refused(&["find", "--fen", START_PLACEMENT, "--count"], one);
    let two = "the castling and en-passant fields are missing\n";
    let three = "the en-passant field is missing\n";
    refused(
        &["find", "--fen", &format!("{START_PLACEMENT} w"), "--count"],
        &format!("pgnindex: error: --fen: invalid FEN: 2 of the 4 position fields; {two}"),
    );
    refused(
        &["explore", "--fen", &format!("{START_PLACEMENT} w KQkq")],
        &format!("pgnindex: error: --fen: invalid FEN: 3 of the 4 position fields; {three}"),
    );
    refused(
        &["export", "--epd", &format!("{START_PLACEMENT} w")],
        &format!("pgnindex: error: --epd: invalid EPD position: 2 of the 4 position fields; {two}"),
    );
    refused(
        &["find", "--moves", "e4", "--from-fen", &format!("{START_PLACEMENT} w KQkq")],
        &format!("pgnindex: error: --from-fen: invalid FEN: 3 of the 4 position fields; {three}"),
    );
    refused(
        &["sql", &format!("SELECT polyglot_key('{START_PLACEMENT} w')")],
        &format!("pgnindex: error: polyglot_key: invalid FEN: 2 of the 4 position fields; {two}"),
    );

    // Four fields, five or six: accepted, and the position is found.
    for fen in [
        format!("{START_PLACEMENT} w KQkq -"),
        format!("{START_PLACEMENT} w KQkq - 0"),
        format!("{START_PLACEMENT} w KQkq - 0 1"),
    ] {
        let out = run(["find", "--fen", &fen, "--count", "--db", &db]).success();
        assert_eq!(out.stdout, "1\n", "{fen}");
    }
    let epd = format!("{START_PLACEMENT} w KQkq - id \"start\";");
    assert_eq!(run(["find", "--epd", &epd, "--count", "--db", &db]).success().stdout, "1\n");
    let key =
        run(["sql", &format!("SELECT polyglot_key('{START_PLACEMENT} w KQkq -')"), "--db", &db]);
    assert!(key.success().stdout.contains("5060803636482931868"));
}
