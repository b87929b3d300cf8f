//! What the query commands say when a position or a move list cannot mean
//! what it seems to, and how they show a game whose replay stopped at a
//! bad move: the real binary on a small database in a throw-away
//! directory.

use crate::common;

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

/// A game stopped at White's second move, one stopped at Black's third
/// (after a comment of its own), a good one, and one whose FEN tag cannot
/// be read.
const STOPPED_GAMES: &str = "[Event \"A\"]\n[Result \"*\"]\n\n1. e4 e5 2.Nf6 Nc6 *\n\n\
                             [Event \"B\"]\n[Result \"*\"]\n\n\
                             1. e4 e5 2. Nf3 Nc6 3. Bb5 (3. Bc4) {good} Nf4 {bad} 4. O-O *\n\n\
                             [Event \"C\"]\n[Result \"*\"]\n\n1. d4 d5 *\n\n\
                             [Event \"D\"]\n[Result \"*\"]\n[FEN \"8/8/8 w\"]\n\n1. e4 *\n";

const A_STOPPED: &str = "2. Nf6: illegal move: no white knight can go to f6";
const B_STOPPED: &str = "3... Nf4: illegal move: no black knight can go to f4";
const D_STOPPED: &str = "FEN tag \"8/8/8 w\": invalid FEN: placement field: 3 ranks instead of 8";

#[test]
fn games_whose_replay_stopped_are_marked_in_every_format() {
    let (dir, db) = database(STOPPED_GAMES);
    let find = |format: &str| run(["find", "--format", format, "--db", &db]).success().stdout;

    let table = find("table");
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].ends_with("  ply  error"), "{table}");
    assert!(lines[2].contains("2. Nf6: illegal move"), "{table}");
    assert!(lines[3].contains("3... Nf4: illegal move"), "{table}");
    assert!(lines[4].trim_end().ends_with("C               2"), "{table}");
    assert!(lines[5].contains("FEN tag"), "{table}");

    assert_eq!(
        find("csv"),
        format!(
            "id,white,black,result,date,event,eco,plies,ply,error\n\
             1,,,*,,A,,2,,{A_STOPPED}\n\
             2,,,*,,B,,5,,{B_STOPPED}\n\
             3,,,*,,C,,2,,\n\
             4,,,*,,D,,0,,\"{}\"\n",
            D_STOPPED.replace('"', "\"\"")
        )
    );
    let json: serde_json::Value = serde_json::from_str(&find("json")).unwrap();
    let errors: Vec<&serde_json::Value> =
        json.as_array().unwrap().iter().map(|g| &g["error"]).collect();
    assert_eq!(
        errors,
        [&A_STOPPED.into(), &B_STOPPED.into(), &serde_json::Value::Null, &D_STOPPED.into()]
    );

    // PGN: a comment where the replay stopped, the movetext otherwise as
    // imported.
    let show = |id: &str| run(["show", id, "--db", &db]).success().stdout;
    let movetext = |pgn: &str| pgn.split("\n\n").nth(1).unwrap().replace('\n', " ");
    assert_eq!(
        movetext(&show("1")),
        format!("1. e4 e5 {{ pgnindex: replay stopped here: {A_STOPPED} }} 2.Nf6 Nc6 *")
    );
    assert_eq!(
        movetext(&show("2")),
        format!(
            "1. e4 e5 2. Nf3 Nc6 3. Bb5 (3. Bc4) {{ good }} \
             {{ pgnindex: replay stopped here: {B_STOPPED} }} Nf4 {{ bad }} 4. O-O *"
        )
    );
    assert_eq!(movetext(&show("3")), "1. d4 d5 *");
    assert_eq!(
        movetext(&show("4")),
        format!("{{ pgnindex: replay stopped here: {} }} 1. e4 *", D_STOPPED)
    );
    let json: serde_json::Value =
        serde_json::from_str(&run(["show", "2", "--format", "json", "--db", &db]).success().stdout)
            .unwrap();
    assert_eq!(json["error"], B_STOPPED);
    assert_eq!(
        json["movetext"], "1. e4 e5 2. Nf3 Nc6 3. Bb5 (3. Bc4) {good} Nf4 {bad} 4. O-O *",
        "stored as imported"
    );

    // export and find --format pgn write the same games; imported back,
    // they stop at the same moves with the same errors, and export the
    // same text again.
    let exported = run(["export", "--db", &db]).success().stdout;
    assert_eq!(find("pgn"), exported);
    assert_eq!(exported, [show("1"), show("2"), show("3"), show("4")].concat());
    let again = dir.write("again.pgn", &exported);
    let db2 = arg(&dir.join("again.db")).to_string();
    import(dir.join("again.db").as_path(), &["--quiet", arg(&again)]).success();
    let games = |db: &str| {
        let sql = "SELECT id, ply_count, moves, error FROM games ORDER BY id";
        run(["sql", sql, "--format", "csv", "--db", db]).success().stdout
    };
    assert_eq!(games(&db2), games(&db));
    assert_eq!(run(["export", "--db", &db2]).success().stdout, exported);
}
