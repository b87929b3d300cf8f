//! English descriptive notation (`P-K4 P-K4 N-KB3`): the games of
//! `fixtures/descriptive/` read by `fens`, `check` and the import to
//! python-chess's positions (`fixtures/descriptive/reference.tsv`), found by
//! `find --moves` in descriptive notation; and, over random legal play,
//! every move written by `descriptive::write` read back as itself (a whole
//! game, by `write_in_game`, replayed as itself), and no
//! random descriptive text read as a move its piece and square do not name.

use crate::common;

use common::{arg, fixture, import, open, rows, run, scratch};
use pgnindex::chess::{Color, Move, MoveList, Position, Role, Square};
use pgnindex::notation::descriptive::{self, WriteOptions};
use pgnindex::notation::fen;
use proptest::prelude::*;
use similar_asserts::assert_eq;

/// A game of `reference.tsv`: plies, SAN, final FEN.
struct Reference {
    plies: usize,
    san: String,
    fen: String,
}

fn reference() -> Vec<Reference> {
    let text = std::fs::read_to_string(fixture("descriptive/reference.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [_, _, plies, san, fen] = fields[..] else { panic!("{line:?}") };
            Reference { plies: plies.parse().unwrap(), san: san.into(), fen: fen.into() }
        })
        .collect()
}

#[test]
fn fixture_games_reach_python_chess_positions() {
    let games = fixture("descriptive/games.pgn");
    let expected: Vec<String> = reference()
        .iter()
        .enumerate()
        .map(|(i, r)| format!("{}\t{}\t{}", i + 1, r.plies, r.fen))
        .collect();
    assert_eq!(expected.len(), 3);
    for args in [&["fens"][..], &["fens", "--lang", "descriptive"]] {
        let out = run(args.iter().copied().chain([arg(&games)])).success();
        assert_eq!(out.stdout.lines().collect::<Vec<_>>(), expected, "{args:?}");
    }
    let out = run(["check", arg(&games)]).success();
    assert!(out.stdout.contains("games 3, ok 3, with errors 0"), "{}", out.stdout);
    // Forced to a SAN language, the games are errors that name their
    // first move.
    let out = run(["check", "--lang", "english", arg(&games)]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains(":9:3: 1. P-K4: not a move: no destination square"),
        "{}",
        out.stdout
    );
}

#[test]
fn import_stores_san_and_find_reads_descriptive_moves() {
    let dir = scratch();
    let db = dir.path().join("d.db");
    let games = fixture("descriptive/games.pgn");
    import(&db, &[arg(&games)]).success();
    let stored: Vec<(i64, String, String, i64)> =
        rows(&open(&db), "SELECT id, moves, movetext, ply_count FROM games ORDER BY id");
    let reference = reference();
    assert_eq!(stored.len(), reference.len());
    for ((_, moves, movetext, plies), r) in stored.iter().zip(&reference) {
        assert_eq!(moves, &r.san);
        assert_eq!(*plies as usize, r.plies);
        assert!(movetext.starts_with("1") && movetext.contains("P-K4 P-K4"), "{movetext}");
    }
    // The games that pass through 1.e4 e5 2.Nf3, by python-chess's SAN.
    let expected: Vec<String> = stored
        .iter()
        .zip(&reference)
        .filter(|(_, r)| r.san.starts_with("e4 e5 Nf3 "))
        .map(|((id, ..), _)| id.to_string())
        .collect();
    assert_eq!(expected.len(), 2);
    let db_arg = arg(&db);
    for moves in ["P-K4 P-K4 N-KB3", "1. P-K4 P-K4 2. Kt-KB3", "1 P-K4 1... P-K4 2 KKt-B3 ch"] {
        let out = run(["find", "--db", db_arg, "--moves", moves, "--format", "csv"]).success();
        let ids: Vec<String> =
            out.stdout.lines().skip(1).map(|l| l.split(',').next().unwrap().to_string()).collect();
        assert_eq!(ids, expected, "{moves}");
    }
    // Exported as written (descriptive), the games read back the same.
    let out = run(["export", "--db", db_arg]).success();
    assert!(out.stdout.contains("Castles (Q R)") || out.stdout.contains("Castles (Q\nR)"));
    let exported = dir.path().join("export.pgn");
    std::fs::write(&exported, &out.stdout).unwrap();
    let again = run(["fens", arg(&exported)]).success();
    let fens: Vec<&str> = again.stdout.lines().map(|l| l.rsplit('\t').next().unwrap()).collect();
    let expected_fens: Vec<&str> = reference.iter().map(|r| r.fen.as_str()).collect();
    assert_eq!(fens, expected_fens);
    let out = run(["find", "--db", db_arg, "--moves", "P-K4 P-K4 N-B3"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("--moves: 2. N-B3: ambiguous move: could be N-QB3 (Nc3), N-KB3 (Nf3)"),
        "{}",
        out.stderr
    );
}

/// The files a file name means (`B` is c and f), written with `N` or `Kt`.
const FILES: [(&str, &[usize]); 11] = [
    ("QR", &[0]),
    ("QN", &[1]),
    ("QB", &[2]),
    ("Q", &[3]),
    ("K", &[4]),
    ("KB", &[5]),
    ("KN", &[6]),
    ("KR", &[7]),
    ("R", &[0, 7]),
    ("N", &[1, 6]),
    ("B", &[2, 5]),
];

const ROLES: [(Role, &str); 6] = [
    (Role::King, "K"),
    (Role::Queen, "Q"),
    (Role::Rook, "R"),
    (Role::Bishop, "B"),
    (Role::Knight, "N"),
    (Role::Pawn, "P"),
];

/// A random descriptive-looking text, and what it names: the mover's
/// role; a destination square set (`-`) or a captured role (`x`); a
/// promotion.
struct Text {
    text: String,
    role: Role,
    to: Option<Vec<Square>>,
    taken: Option<Role>,
    promotion: Option<Role>,
}

fn text(pos: &Position, r: [u8; 6]) -> Text {
    let (role, letter) = ROLES[usize::from(r[0]) % 6];
    let kt = r[5] & 1 == 1;
    let knight = |s: &str| if kt { s.replace('N', "Kt") } else { s.to_string() };
    let mut text = knight(letter);
    let (mut to, mut taken) = (None, None);
    if r[1] & 1 == 0 {
        let (name, files) = FILES[usize::from(r[2]) % FILES.len()];
        let rank = usize::from(r[3]) % 8;
        text.push('-');
        text.push_str(&knight(name));
        text.push(char::from(b'1' + rank as u8));
        // The rank counts from the mover's side.
        let rank = if pos.turn() == Color::White { rank } else { 7 - rank };
        to = Some(files.iter().map(|&f| Square::new((8 * rank + f) as u32).unwrap()).collect());
    } else {
        let (role, letter) = ROLES[usize::from(r[2]) % 6];
        text.push('x');
        text.push_str(&knight(letter));
        taken = Some(role);
    }
    let promotion = r[4].is_multiple_of(4).then_some(Role::Queen);
    if promotion.is_some() {
        text.push_str("(Q)");
    }
    if r[4].is_multiple_of(3) {
        text.push_str(if kt { " ch" } else { "+" });
    }
    Text { text, role, to, taken, promotion }
}

/// The legal moves that have the text's piece, square or captured piece,
/// and promotion: the reader's move must be one of them.
fn brute_force(pos: &Position, t: &Text) -> Vec<Move> {
    let mut legal = MoveList::new();
    pos.legal_moves(&mut legal);
    legal
        .iter()
        .copied()
        .filter(|m| m.castling_side().is_none() && m.role() == t.role)
        .filter(|m| t.promotion.is_none_or(|p| m.promotion() == Some(p)))
        .filter(|m| match (&t.to, t.taken) {
            (Some(squares), _) => !m.is_capture() && squares.contains(&m.to()),
            (None, Some(role)) => m.capture() == Some(role),
            (None, None) => false,
        })
        .collect()
}

fn check_position(
    pos: &Position,
    origins: &descriptive::Origins,
    texts: &[[u8; 6]],
) -> Result<(), TestCaseError> {
    let where_ = fen::write(pos);
    let mut legal = MoveList::new();
    pos.legal_moves(&mut legal);
    for &m in &legal {
        for kt in [false, true] {
            for checks in [false, true] {
                let options = WriteOptions { kt, checks };
                // On the board alone, and in the game (origins known).
                let text = descriptive::write(pos, m, options);
                let read = descriptive::parse_move(pos, text.as_bytes())
                    .map_err(|e| TestCaseError::fail(format!("{where_}: {text}: {e}")))?;
                prop_assert_eq!(read, m, "{} in {}", text, where_);
                let text = descriptive::write_in_game(pos, origins, m, options);
                let read = descriptive::parse_move_in_game(pos, origins, text.as_bytes())
                    .map_err(|e| TestCaseError::fail(format!("{where_}: {text}: {e}")))?;
                prop_assert_eq!(read, m, "{} in {} (game)", text, where_);
            }
        }
    }
    for &r in texts {
        let t = text(pos, r);
        let candidates = brute_force(pos, &t);
        match descriptive::parse_move(pos, t.text.as_bytes()) {
            Ok(m) => {
                prop_assert!(candidates.contains(&m), "{} read as {:?} in {}", t.text, m, where_)
            }
            // No qualifier in these texts: one candidate is the move.
            Err(e) => prop_assert!(candidates.len() != 1, "{}: {} in {}", t.text, e, where_),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn written_moves_read_back_and_texts_name_their_moves(
        choices in prop::collection::vec(any::<u32>(), 0..100),
        texts in prop::collection::vec(any::<[u8; 6]>(), 1..12),
        kt in any::<bool>(),
    ) {
        let mut pos = Position::new();
        let mut origins = descriptive::Origins::new(&pos);
        let mut game = String::new();
        let mut played = Vec::new();
        check_position(&pos, &origins, &texts)?;
        for c in choices {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let m = moves[c as usize % moves.len()];
            // The game as a movetext, numbered as PGN numbers it.
            if pos.turn() == Color::White {
                game.push_str(&format!("{}. ", pos.fullmoves()));
            }
            let options = WriteOptions { kt, checks: true };
            game.push_str(&descriptive::write_in_game(&pos, &origins, m, options));
            game.push(' ');
            played.push(m);
            origins.play(m);
            pos.play_unchecked(m);
            check_position(&pos, &origins, &texts)?;
        }
        let replay = pgnindex::replay::descriptive::read(&Position::new(), game.as_bytes());
        prop_assert_eq!(replay.error, None, "{}", game);
        prop_assert_eq!(replay.moves, played, "{}", game);
    }
}

/// Pieces of descriptive movetext, put together at random below.
const PIECES: [&str; 32] = [
    "P-K4", "Kt-KB3", "N-B3", "BxP", "PxP", "e.p.", "ch", "dis", "mate", "+", "#", "Castles", "KR",
    "(Q)", "(QB1)", "R", "-Q1", "x", "sq", "1.", "2...", "{", "}", ";", "\n", "(", ")", "$1", "!?",
    "1-0", "×", "/",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn any_text_is_read_without_panic(
        pieces in prop::collection::vec((0..PIECES.len(), any::<bool>()), 0..40),
        bytes in prop::collection::vec(any::<u8>(), 0..40),
    ) {
        let mut text: Vec<u8> = Vec::new();
        for (i, space) in pieces {
            text.extend_from_slice(PIECES[i].as_bytes());
            if space {
                text.push(b' ');
            }
        }
        text.extend_from_slice(&bytes);
        let replay = pgnindex::replay::descriptive::read(&Position::new(), &text);
        let mut pos = Position::new();
        for m in &replay.moves {
            prop_assert!(pos.is_legal(*m));
            pos.play_unchecked(*m);
        }
        if let Some((offset, e)) = replay.error {
            prop_assert!(offset < text.len());
            prop_assert!(!e.to_string().is_empty());
        }
    }
}
