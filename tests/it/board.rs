//! `--board`: the diagrams `find`, `explore` and `show` draw, on the
//! bundled sample; their rows against python-chess's boards, figurines and
//! colours on a terminal, the JSON that names the position instead, and
//! the combinations refused. Also the header of `show --format table`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common;

use common::{arg, games_dir, import, run, scratch, Scratch};
use serde_json::{json, Value};
use similar_asserts::assert_eq;

/// The bundled sample, imported into `dir`.
fn sample_db(dir: &Scratch) -> PathBuf {
    let db = dir.join("sample.db");
    import(&db, &["--quiet", arg(&games_dir())]).success();
    db
}

/// `pgnindex CMD --db DB ARGS…`, checked for success; its stdout.
fn out(cmd: &str, db: &Path, args: &[&str]) -> String {
    run([&[cmd, "--db", arg(db)], args].concat()).success().stdout
}

/// One `sql` value as text.
fn sql_value(db: &Path, sql: &str) -> String {
    let rows = out("sql", db, &["--format", "csv", sql]);
    rows.lines().nth(1).unwrap_or_default().trim_matches('"').to_string()
}

const SICILIAN_MOVES: &str = "1. e4 c5 2. Nf3";

const SICILIAN: &str = "\
8 r n b q k b n r
7 p p . p p p p p
6 . . . . . . . .
5 . . p . . . . .
4 . . . . P . . .
3 . . . . . N . .
2 P P P P . P P P
1 R N B Q K B . R
  a b c d e f g h
Black to move, castling KQkq, last move g1f3
";

const SICILIAN_FEN: &str = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";

/// The eight rows of a FEN's placement as a diagram draws them in letters
/// (rank 8 first, `.` an empty square), without the rank digits.
fn placement_rows(fen: &str) -> Vec<String> {
    let placement = fen.split(' ').next().unwrap();
    placement
        .split('/')
        .map(|rank| {
            let squares: Vec<String> = rank
                .chars()
                .flat_map(|c| match c.to_digit(10) {
                    Some(n) => vec![".".to_string(); n as usize],
                    None => vec![c.to_string()],
                })
                .collect();
            squares.join(" ")
        })
        .collect()
}

/// The eight rows of a diagram without their rank digits.
fn diagram_rows(diagram: &str) -> Vec<String> {
    diagram.lines().take(8).map(|l| l[2..].to_string()).collect()
}

#[test]
fn find_draws_the_typed_position_once_above_the_games() {
    let dir = scratch();
    let db = sample_db(&dir);
    let plain = out("find", &db, &["--moves", SICILIAN_MOVES]);
    assert!(plain.lines().count() > 3, "the sample has Sicilians: {plain}");
    let drawn = out("find", &db, &["--moves", SICILIAN_MOVES, "--board"]);
    assert_eq!(drawn, format!("{SICILIAN}\n{plain}"));
    let count = out("find", &db, &["--moves", SICILIAN_MOVES, "--count"]);
    let drawn = out("find", &db, &["--moves", SICILIAN_MOVES, "--count", "--board"]);
    assert_eq!(drawn, format!("{SICILIAN}\n{count}"));

    // A FEN has no last move; its side to move is there to see.
    let drawn = out("find", &db, &["--fen", SICILIAN_FEN, "--board", "--count"]);
    let no_move = SICILIAN.replace(", last move g1f3", "");
    assert_eq!(drawn, format!("{no_move}\n{count}"));
    let white = SICILIAN_FEN.replace(" b ", " w ");
    let drawn = out("find", &db, &["--fen", &white, "--board", "--count"]);
    assert!(drawn.contains("\nWhite to move, castling KQkq\n"), "{drawn}");

    // From Black's side.
    let flipped = out("find", &db, &["--moves", SICILIAN_MOVES, "--board", "--flip", "--count"]);
    assert_eq!(
        flipped,
        format!(
            "1 R . B K Q B N R\n\
             2 P P P . P P P P\n\
             3 . . N . . . . .\n\
             4 . . . P . . . .\n\
             5 . . . . . p . .\n\
             6 . . . . . . . .\n\
             7 p p p p p . p p\n\
             8 r n b k q b n r\n\
             \x20 h g f e d c b a\n\
             Black to move, castling KQkq, last move g1f3\n\n{count}"
        )
    );

    // JSON: the FEN, not a drawing, beside the same games.
    let json: Value =
        serde_json::from_str(&out("find", &db, &["--moves", SICILIAN_MOVES, "--format", "json"]))
            .unwrap();
    let with_board: Value = serde_json::from_str(&out(
        "find",
        &db,
        &["--moves", SICILIAN_MOVES, "--format", "json", "--board", "--flip"],
    ))
    .unwrap();
    assert_eq!(
        with_board["board"],
        json!({"fen": SICILIAN_FEN, "flipped": true, "last_move": "g1f3"})
    );
    assert_eq!(with_board["games"], json);
    assert_eq!(with_board.as_object().unwrap().len(), 2);
}

#[test]
fn explore_draws_the_position_above_the_table() {
    let dir = scratch();
    let db = sample_db(&dir);
    let plain = out("explore", &db, &["--moves", SICILIAN_MOVES]);
    let drawn = out("explore", &db, &["--moves", SICILIAN_MOVES, "--board"]);
    assert_eq!(drawn, format!("{SICILIAN}\n{plain}"));
    assert!(plain.starts_with("Opening: B27 Sicilian Defense"), "{plain}");

    // Without a position, the start.
    let drawn = out("explore", &db, &["--board", "--ascii"]);
    let start: Vec<&str> = drawn.lines().take(11).collect();
    assert_eq!(
        start,
        [
            "8 r n b q k b n r",
            "7 p p p p p p p p",
            "6 . . . . . . . .",
            "5 . . . . . . . .",
            "4 . . . . . . . .",
            "3 . . . . . . . .",
            "2 P P P P P P P P",
            "1 R N B Q K B N R",
            "  a b c d e f g h",
            "White to move, castling KQkq",
            "",
        ]
    );
    assert_eq!(
        drawn.lines().skip(11).collect::<Vec<_>>(),
        out("explore", &db, &[]).lines().collect::<Vec<_>>()
    );

    let json: Value = serde_json::from_str(&out(
        "explore",
        &db,
        &["--moves", SICILIAN_MOVES, "--format", "json"],
    ))
    .unwrap();
    let with_board: Value = serde_json::from_str(&out(
        "explore",
        &db,
        &["--moves", SICILIAN_MOVES, "--format", "json", "--board"],
    ))
    .unwrap();
    assert_eq!(
        with_board["board"],
        json!({"fen": SICILIAN_FEN, "flipped": false, "last_move": "g1f3"})
    );
    assert_eq!(with_board["moves"], json);
}

/// Game `id`'s ply count and its SAN moves.
fn game_moves(db: &Path, id: &str) -> Vec<String> {
    let game: Value = serde_json::from_str(&out("show", db, &[id, "--format", "json"])).unwrap();
    let moves: Vec<String> =
        game["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().into()).collect();
    assert_eq!(moves.len() as u64, game["plies"].as_u64().unwrap());
    moves
}

#[test]
fn show_draws_the_last_position_or_the_one_after_ply_n() {
    let dir = scratch();
    let db = sample_db(&dir);
    let moves = game_moves(&db, "1");
    let plies = moves.len();
    assert!(plies > 20, "{plies}");
    let fen_at = |ply: usize| sql_value(&db, &format!("SELECT fen_at(1, {ply})"));
    let uci_of = |ply: usize| {
        sql_value(&db, &format!("SELECT san_to_uci(fen_at(1, {}), '{}')", ply - 1, moves[ply - 1]))
    };

    // The last position, below the game, the move that led there named.
    let pgn = out("show", &db, &["1"]);
    let drawn = out("show", &db, &["1", "--board"]);
    let diagram = drawn.strip_prefix(&pgn).unwrap_or_else(|| panic!("{drawn}"));
    assert_eq!(diagram_rows(diagram), placement_rows(&fen_at(plies)));
    assert_eq!(diagram.lines().count(), 10, "{diagram}");
    assert!(diagram.ends_with(&format!(", last move {}\n", uci_of(plies))), "{diagram}");

    // After ply 10; the start has no last move.
    let diagram = out("show", &db, &["1", "--board", "--ply", "10"]).replace(&pgn, "");
    assert_eq!(diagram_rows(&diagram), placement_rows(&fen_at(10)));
    assert!(diagram.ends_with(&format!(", last move {}\n", uci_of(10))), "{diagram}");
    let start = out("show", &db, &["1", "--board", "--ply", "0"]).replace(&pgn, "");
    assert!(start.ends_with("\nWhite to move, castling KQkq\n"), "{start}");

    // JSON: the FEN drawn, its ply and last move.
    let game: Value = serde_json::from_str(&out(
        "show",
        &db,
        &["1", "--format", "json", "--board", "--ply", "10"],
    ))
    .unwrap();
    assert_eq!(
        game["board"],
        json!({"fen": fen_at(10), "flipped": false, "last_move": uci_of(10), "ply": 10})
    );
    let game: Value =
        serde_json::from_str(&out("show", &db, &["1", "--format", "json", "--board"])).unwrap();
    assert_eq!(game["board"]["fen"], game["final_fen"]);
    assert_eq!(game["board"]["ply"], json!(plies));

    // A ply past the end: one line naming the game's length, exit 1.
    let past = (plies + 1).to_string();
    let failed = run(["show", "1", "--db", arg(&db), "--board", "--ply", &past]);
    assert_eq!(failed.code, 1, "{}", failed.stderr);
    assert_eq!(
        failed.stderr,
        format!("pgnindex: error: --ply {past}: game 1 has {plies} plies (0 is the start)\n")
    );
    assert_eq!(failed.stdout, "");
}

#[test]
fn show_fens_with_a_board_draws_one_under_each_fen_line() {
    let dir = scratch();
    let db = sample_db(&dir);
    let plies = game_moves(&db, "2").len();
    let fens = out("show", &db, &["2", "--fens"]);
    let drawn = out("show", &db, &["2", "--fens", "--board"]);
    let fen_lines: Vec<&str> = fens.lines().filter(|l| l.contains('\t')).collect();
    assert_eq!(fen_lines.len(), plies + 1);
    let (game, rest) = drawn.split_at(drawn.find("0\t-\t").unwrap());
    assert!(fens.starts_with(game), "the game comes first, as without --board");
    // Each FEN line, its diagram, a blank line.
    let blocks: Vec<&str> = rest.split_terminator("\n\n").collect();
    assert_eq!(blocks.len(), plies + 1);
    for (block, fen_line) in blocks.iter().zip(&fen_lines) {
        let (line, diagram) = block.split_once('\n').unwrap();
        assert_eq!(&line, fen_line);
        let fen = line.split('\t').nth(2).unwrap();
        assert_eq!(diagram_rows(diagram), placement_rows(fen), "{block}");
        assert_eq!(diagram.lines().count(), 10, "{block}");
    }

    // With --ply N, the diagram of position N alone.
    let one = out("show", &db, &["2", "--fens", "--board", "--ply", "3"]);
    assert_eq!(one.matches("  a b c d e f g h").count(), 1, "{one}");
    let at = one.find("\n3\t").unwrap() + 1;
    let third = fen_lines[3];
    assert!(one[at..].starts_with(&format!("{third}\n8 ")), "{one}");
    assert_eq!(
        one.replace(blocks[3], third).replace(&format!("{third}\n\n"), &format!("{third}\n")),
        fens
    );
}

#[test]
fn show_table_starts_with_the_players_the_result_and_where_and_when() {
    let dir = scratch();
    let db = sample_db(&dir);
    let id = sql_value(
        &db,
        "SELECT min(id) FROM games WHERE white_elo IS NOT NULL AND round NOT IN ('?', '-')",
    );
    let game: Value = serde_json::from_str(&out("show", &db, &[&id, "--format", "json"])).unwrap();
    let table = out("show", &db, &[&id, "--format", "table"]);
    let lines: Vec<&str> = table.lines().collect();
    let text = |key: &str| game[key].as_str().unwrap().to_string();
    assert_eq!(
        lines[0],
        format!(
            "{} ({}) - {} ({})  {}",
            text("white"),
            game["white_elo"],
            text("black"),
            game["black_elo"],
            text("result")
        )
    );
    assert_eq!(
        lines[1],
        format!("{}, {}, round {}, {}", text("event"), text("site"), text("round"), text("date"))
    );
    assert_eq!(lines[2], "");
    assert!(lines[3].starts_with("1. "), "{table}");

    // Unknown values left out, control characters never sent as they are.
    let small = scratch();
    let pgn = small.write(
        "g.pgn",
        "[Event \"?\"]\n[Site \"Here\x1b[2J\"]\n[Date \"????.??.??\"]\n[Round \"-\"]\n\
         [White \"A\"]\n[Black \"?\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n",
    );
    let small_db = small.join("g.db");
    import(&small_db, &["--quiet", arg(&pgn)]).success();
    assert_eq!(
        out("show", &small_db, &["1", "--format", "table", "--board", "--ascii"]),
        "A - ?  1-0\n\
         Here\u{FFFD}[2J\n\
         \n\
         1. e4  e5\n\
         2. Qh5  Nc6\n\
         3. Bc4  Nf6\n\
         4. Qxf7#\n\
         \n\
         8 r . b q k b . r\n\
         7 p p p p . Q p p\n\
         6 . . n . . n . .\n\
         5 . . . . p . . .\n\
         4 . . B . P . . .\n\
         3 . . . . . . . .\n\
         2 P P P P . P P P\n\
         1 R N B . K . N R\n\
         \x20 a b c d e f g h\n\
         Black to move, castling KQkq, last move h5f7\n"
    );
}

#[test]
fn a_board_where_it_cannot_go_is_a_one_line_usage_error() {
    let dir = scratch();
    let db = sample_db(&dir);
    let refused = [
        (vec!["find", "--moves", "e4", "--board", "--format", "csv"], "--board: CSV"),
        (
            vec!["find", "--moves", "e4", "--board", "--format", "pgn"],
            "--board: a board is not PGN",
        ),
        (vec!["find", "--white", "Carlsen", "--board"], "--board draws the position of --fen"),
        (vec!["find", "--material", "KRP-KR", "--board"], "--board draws the position of --fen"),
        (vec!["explore", "--board", "--format", "csv"], "--board: CSV"),
        (vec!["explore", "--material", "KQ-KRR", "--board"], "--board draws one position"),
    ];
    for (args, message) in refused {
        let failed = run([&args[..], &["--db", arg(&db)]].concat());
        assert_eq!(failed.code, 2, "{args:?}: {}", failed.stderr);
        assert!(
            failed.stderr.starts_with(&format!("pgnindex: error: {message}")),
            "{args:?}: {}",
            failed.stderr
        );
        assert_eq!(failed.stderr.lines().count(), 1, "{}", failed.stderr);
        assert_eq!(failed.stdout, "", "{args:?}");
    }
    // What only a board needs, without --board: clap's usage error.
    for args in [
        vec!["find", "--moves", "e4", "--ascii"],
        vec!["explore", "--flip"],
        vec!["show", "1", "--ply", "3"],
    ] {
        let failed = run([&args[..], &["--db", arg(&db)]].concat());
        assert_eq!(failed.code, 2, "{args:?}: {}", failed.stderr);
        assert!(failed.stderr.contains("--board"), "{args:?}: {}", failed.stderr);
    }
}

/// `pgnindex ARGS` with stdout on a terminal, the locale and `NO_COLOR` as
/// given (`LC_ALL` and `LC_CTYPE` removed).
fn on_terminal(args: &[&str], lang: &str, no_color: bool) -> String {
    let mut command = common::command();
    command.args(args).env_remove("LC_ALL").env_remove("LC_CTYPE").env("LANG", lang);
    if no_color {
        command.env("NO_COLOR", "1");
    }
    common::on_terminal(command, 100)
}

#[test]
fn a_utf8_terminal_gets_figurines_and_a_colour_one_the_last_move_highlighted() {
    let dir = scratch();
    let db = sample_db(&dir);
    let args = ["explore", "--db", arg(&db), "--moves", "1. e4", "--board"];
    let figurines = "\
8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜
7 ♟ ♟ ♟ ♟ ♟ ♟ ♟ ♟
6 · · · · · · · ·
5 · · · · · · · ·
4 · · · · ♙ · · ·
3 · · · · · · · ·
2 ♙ ♙ ♙ ♙ · ♙ ♙ ♙
1 ♖ ♘ ♗ ♕ ♔ ♗ ♘ ♖
  a b c d e f g h
Black to move, castling KQkq, last move e2e4
";
    let plain = on_terminal(&args, "C.UTF-8", true);
    assert!(plain.starts_with(figurines), "{plain}");
    assert!(!plain.contains('\x1b'), "NO_COLOR: {plain:?}");
    let colored = on_terminal(&args, "en_US.UTF-8", false);
    let highlighted = figurines
        .replace("4 · · · · ♙", "4 · · · · \x1b[30;43m♙\x1b[0m")
        .replace("2 ♙ ♙ ♙ ♙ · ♙", "2 ♙ ♙ ♙ ♙ \x1b[30;43m·\x1b[0m ♙");
    assert!(colored.starts_with(&highlighted), "{colored:?}");

    // Letters: a locale that is not UTF-8, or --ascii, or no terminal.
    let letters = on_terminal(&args, "C", true);
    assert!(letters.starts_with("8 r n b q k b n r\n"), "{letters}");
    let ascii = on_terminal(&[&args[..], &["--ascii"]].concat(), "C.UTF-8", true);
    assert_eq!(ascii, letters);
    let piped =
        common::command().args(args).env("LANG", "C.UTF-8").env_remove("LC_ALL").output().unwrap();
    assert_eq!(String::from_utf8(piped.stdout).unwrap(), letters);
}

/// `true` if python3 has python-chess; else says on stderr what did not
/// run.
fn python_chess() -> bool {
    let found = Command::new("python3")
        .args(["-c", "import chess"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("python-chess not found (pip install chess): boards not compared with its own");
    }
    found
}

/// python-chess's boards of `fens`: for each, `print(board)` and
/// `board.unicode(empty_square="·")` from White's side, then both from
/// Black's; eight lines each.
fn python_boards(fens: &[String]) -> Vec<[Vec<String>; 4]> {
    let program = "import sys, chess\n\
        for fen in sys.stdin.read().splitlines():\n\
        \x20   b = chess.Board(fen)\n\
        \x20   turned = b.transform(chess.flip_vertical).transform(chess.flip_horizontal)\n\
        \x20   print(b)\n\
        \x20   print(b.unicode(empty_square='·'))\n\
        \x20   print(turned)\n\
        \x20   print(b.unicode(empty_square='·', orientation=chess.BLACK))\n";
    let mut child = Command::new("python3")
        .args(["-c", program])
        .env("PYTHONIOENCODING", "utf-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(fens.join("\n").as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let lines: Vec<String> =
        String::from_utf8(output.stdout).unwrap().lines().map(String::from).collect();
    assert_eq!(lines.len(), fens.len() * 32);
    lines
        .chunks(32)
        .map(|c| [c[0..8].to_vec(), c[8..16].to_vec(), c[16..24].to_vec(), c[24..32].to_vec()])
        .collect()
}

/// Every position `show --fens --board` drew in `text`: its FEN and its
/// diagram.
fn drawn_positions(text: &str) -> Vec<(String, String)> {
    let start = text.find("0\t-\t").unwrap();
    text[start..]
        .split_terminator("\n\n")
        .map(|block| {
            let (line, diagram) = block.split_once('\n').unwrap();
            (line.split('\t').nth(2).unwrap().to_string(), diagram.to_string())
        })
        .collect()
}

#[test]
fn the_rows_of_a_board_are_python_chess_s_rows() {
    if !python_chess() {
        return;
    }
    let dir = scratch();
    let db = sample_db(&dir);
    // A game of each file of the sample, Chess960 and odds games included.
    let ids = out("sql", &db, &["--format", "csv", "SELECT min(id) FROM games GROUP BY source_id"]);
    let ids: Vec<&str> = ids.lines().skip(1).collect();
    assert!(ids.len() >= 7, "{ids:?}");
    let mut compared = 0;
    for id in ids {
        let letters = drawn_positions(&out("show", &db, &[id, "--fens", "--board", "--ascii"]));
        let flipped =
            drawn_positions(&out("show", &db, &[id, "--fens", "--board", "--ascii", "--flip"]));
        let figurines = drawn_positions(&on_terminal(
            &["show", id, "--db", arg(&db), "--fens", "--board"],
            "C.UTF-8",
            true,
        ));
        let figurines_flipped = drawn_positions(&on_terminal(
            &["show", id, "--db", arg(&db), "--fens", "--board", "--flip"],
            "C.UTF-8",
            true,
        ));
        let fens: Vec<String> = letters.iter().map(|(fen, _)| fen.clone()).collect();
        let reference = python_boards(&fens);
        for (i, [white, white_unicode, black, black_unicode]) in reference.iter().enumerate() {
            assert_eq!(&diagram_rows(&letters[i].1), white, "game {id}, {}", fens[i]);
            assert_eq!(&diagram_rows(&flipped[i].1), black, "game {id}, {}", fens[i]);
            assert_eq!(&diagram_rows(&figurines[i].1), white_unicode, "game {id}, {}", fens[i]);
            assert_eq!(
                &diagram_rows(&figurines_flipped[i].1),
                black_unicode,
                "game {id}, {}",
                fens[i]
            );
            compared += 1;
        }
    }
    assert!(compared > 500, "{compared}");
}
