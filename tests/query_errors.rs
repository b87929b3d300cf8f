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
    import(&db, &["--quiet", arg(&input)]).success();
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

#[test]
fn bad_moves_are_named_by_their_chess_move_number() {
    let dir = scratch();
    let input = dir.write(
        "bad.pgn",
        "[Event \"A\"]\n\n1. e4 e5 2. Nf6 Nc6 *\n\n\
         [Event \"B\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf4 *\n\n\
         [Event \"C\"]\n[FEN \"8/8/8/8/8/8/8/K6k b - - 0 30\"]\n\n30... Kg2 31. Kb9 *\n\n\
         [Event \"D\"]\n\n1. Nf3 Nf6 2. d4 d5 3. Nd2 *\n",
    );
    let out = run(["check", arg(&input)]);
    assert_eq!(out.code, 1);
    let file = arg(&input);
    assert_eq!(
        out.stdout.lines().take(4).collect::<Vec<_>>(),
        [
            format!("{file}:3:13: 2. Nf6: illegal move: no white knight can go to f6"),
            format!("{file}:7:28: 3... Nf4: illegal move: no black knight can go to f4"),
            format!("{file}:12:15: 31. Kb9: not a move: no destination square"),
            format!("{file}:16:24: 3. Nd2: ambiguous move: could be Nbd2, Nfd2"),
        ]
    );

    let (_dir, db) = database(TWO_GAMES);
    let refused = |args: &[&str], message: &str| {
        let out = run(args.iter().chain(&["--db", db.as_str()]));
        assert_eq!((out.code, out.stderr.as_str()), (1, message), "{args:?}");
    };
    refused(
        &["find", "--moves", "1. e4 e5 2. Nf6"],
        "pgnindex: error: --moves: 2. Nf6: illegal move: no white knight can go to f6 \
         in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n",
    );
    refused(
        &["explore", "--moves", "1. e4 Nf4"],
        "pgnindex: error: --moves: 1... Nf4: illegal move: no black knight can go to f4 \
         in rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n",
    );
    refused(
        &["find", "--moves", "Kb2 Kh3", "--from-fen", "8/8/8/8/8/8/8/K6k w - - 0 12"],
        "pgnindex: error: --moves: 12... Kh3: illegal move: no black king can go to h3 \
         in 8/8/8/8/8/8/1K6/7k b - - 1 12\n",
    );

    // Move numbers without their dots, as people type them.
    for moves in ["1 e4 e5 2 Nf3", "1. e4 e5 2. Nf3", "1.e4 e5 2.Nf3"] {
        let out = run(["find", "--moves", moves, "--count", "--db", &db]).success();
        assert_eq!(out.stdout, "1\n", "{moves}");
    }
}
