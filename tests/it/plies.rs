//! The `plies` view: one row per mainline half-move with the clock, time
//! spent, evaluation, NAGs and comment the game gives it. The sample games
//! (`fixtures/plies/`) read as python-chess reads them
//! (`fixtures/plies/make.py` wrote the reference, `plies.tsv`); the
//! engine-match forms and the rest as `fixtures/plies/engine.pgn` spells
//! them out; the `sqlite3` shell reads the view; a deleted game loses its
//! notes.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{arg, count, fixture, import, open, rows, run, scratch};
use rusqlite::Connection;
use similar_asserts::assert_eq;

/// One row of the view.
type Ply = (
    i64,
    String,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<i64>,
    Option<String>,
    Option<String>,
);

const SELECT: &str =
    "SELECT ply, san, clock, emt, eval, mate, nags, comment FROM plies WHERE game_id = ?1 ORDER BY ply";

/// The plies of game `id`, read through a plain connection.
fn plies(conn: &Connection, id: i64) -> Vec<Ply> {
    let mut st = conn.prepare(SELECT).unwrap();
    let rows = st
        .query_map([id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
            ))
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// What python-chess reads of one game (a line of a reference file).
#[derive(Clone)]
struct Reference {
    file: String,
    moves: String,
    clocks: Vec<Option<f64>>,
    emts: Vec<Option<f64>>,
    /// Centipawns, or `#N` as `Err(N)`.
    evals: Vec<Option<Result<i64, i64>>>,
    /// Depth, selective depth and nodes of each ply.
    engine: [Vec<Option<i64>>; 3],
    pvs: Vec<Option<String>>,
}

fn read_reference(text: &str) -> Vec<Reference> {
    let list = |s: &str| -> Vec<Option<String>> {
        if s.is_empty() {
            return Vec::new();
        }
        s.split(',').map(|x| (!x.is_empty()).then(|| x.to_string())).collect()
    };
    text.lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [file, _, moves, clocks, emts, evals, depths, seldepths, nodes, pvs] = fields[..]
            else {
                panic!("{line:?}")
            };
            let ints =
                |s: &str| list(s).into_iter().map(|x| x.map(|x| x.parse().unwrap())).collect();
            let seconds =
                |s: &str| list(s).into_iter().map(|x| x.map(|x| x.parse().unwrap())).collect();
            Reference {
                file: file.to_string(),
                moves: moves.to_string(),
                clocks: seconds(clocks),
                emts: seconds(emts),
                evals: list(evals)
                    .into_iter()
                    .map(|x| {
                        x.map(|x| match x.strip_prefix('#') {
                            Some(m) => Err(m.parse().unwrap()),
                            None => Ok(x.parse().unwrap()),
                        })
                    })
                    .collect(),
                engine: [ints(depths), ints(seldepths), ints(nodes)],
                pvs: list(pvs),
            }
        })
        .collect()
}

/// Depth, selective depth, nodes and principal variation of a ply.
type EngineNotes = (Option<i64>, Option<i64>, Option<i64>, Option<String>);

/// The [`EngineNotes`] of each ply of game `id`.
fn engine_notes(conn: &Connection, id: i64) -> Vec<EngineNotes> {
    let sql =
        format!("SELECT depth, seldepth, nodes, pv FROM plies WHERE game_id = {id} ORDER BY ply");
    rows(conn, &sql)
}

/// What the comparison of a database with a reference found.
#[derive(Debug, Default)]
struct Compared {
    games: usize,
    /// Reference games no stored game has the moves of (in order): a game
    /// python-chess reads to another length, or one the import skipped.
    unmatched: usize,
    plies: usize,
    clocks: usize,
    emts: usize,
    evals: usize,
    mates: usize,
    depths: usize,
    pvs: usize,
    mismatches: Vec<String>,
}

/// Compares the `plies` of the games of `db` (in id order) with `reference`
/// (in file order), pairing games by their moves: a reference game no
/// stored game has is counted, not compared.
fn compare(db: &Path, reference: &[Reference], compared: &mut Compared) {
    let conn = open(db);
    let games: Vec<(i64, String)> = rows(&conn, "SELECT id, moves FROM games ORDER BY id");
    let mut next = 0;
    for r in reference {
        let Some(found) = games[next..].iter().take(8).position(|g| g.1 == r.moves) else {
            compared.unmatched += 1;
            continue;
        };
        let id = games[next + found].0;
        next += found + 1;
        compared.games += 1;
        let stored = plies(&conn, id);
        let engine = engine_notes(&conn, id);
        let n = r.moves.split(' ').filter(|m| !m.is_empty()).count();
        if stored.len() != n {
            compared.mismatches.push(format!(
                "{} game {id}: {} plies, not {n}",
                r.file,
                stored.len()
            ));
            continue;
        }
        for (i, p) in stored.iter().enumerate() {
            compared.plies += 1;
            let want = |v: &[Option<i64>]| v.get(i).copied().flatten();
            let want_engine = (
                want(&r.engine[0]),
                want(&r.engine[1]),
                want(&r.engine[2]),
                r.pvs.get(i).cloned().flatten(),
            );
            compared.depths += usize::from(want_engine.0.is_some());
            compared.pvs += usize::from(want_engine.3.is_some());
            let got = &engine[i];
            let got = (
                got.0,
                got.1,
                got.2,
                got.3.as_ref().map(|pv| pv.split_whitespace().collect::<Vec<_>>().join(" ")),
            );
            if got != want_engine {
                compared.mismatches.push(format!(
                    "{} game {id} ply {} {}: depth, seldepth, nodes, pv {got:?}, reference {want_engine:?}",
                    r.file, p.0, p.1
                ));
            }
            let ms = |s: Option<f64>| s.map(|s| (s * 1000.0).round() as i64);
            let want_clock = r.clocks.get(i).copied().flatten();
            let want_emt = r.emts.get(i).copied().flatten();
            let want_eval = r.evals.get(i).copied().flatten();
            let got_eval = match (p.4, p.5) {
                (Some(pawns), None) => Some(Ok((pawns * 100.0).round() as i64)),
                (None, Some(mate)) => Some(Err(mate)),
                (None, None) => None,
                _ => {
                    compared
                        .mismatches
                        .push(format!("{} game {id} ply {}: eval and mate", r.file, p.0));
                    continue;
                }
            };
            compared.clocks += usize::from(want_clock.is_some());
            compared.emts += usize::from(want_emt.is_some());
            compared.evals += usize::from(matches!(want_eval, Some(Ok(_))));
            compared.mates += usize::from(matches!(want_eval, Some(Err(_))));
            if (ms(p.2), ms(p.3), got_eval) != (ms(want_clock), ms(want_emt), want_eval) {
                compared.mismatches.push(format!(
                    "{} game {id} ply {} {}: clock, emt, eval {:?} {:?} {:?}, python-chess {:?} {:?} {:?}",
                    r.file, p.0, p.1, p.2, p.3, got_eval, want_clock, want_emt, want_eval
                ));
            }
        }
    }
}

#[test]
fn sample_games_read_as_python_chess_reads_them() {
    let text = std::fs::read_to_string(fixture("plies/plies.tsv")).unwrap();
    let reference = read_reference(&text);
    let dir = scratch();
    let mut compared = Compared::default();
    for file in ["lichess.pgn", "chesscom.pgn"] {
        let db = dir.join(format!("{file}.db"));
        import(&db, &["--quiet", "--keep-duplicates", arg(&fixture(&format!("plies/{file}")))])
            .success();
        let of_file: Vec<Reference> =
            reference.iter().filter(|r| r.file == file).cloned().collect();
        compare(&db, &of_file, &mut compared);
    }
    assert_eq!(compared.mismatches, Vec::<String>::new());
    assert_eq!((compared.games, compared.unmatched), (119, 0));
    assert!(compared.clocks > 7_000, "{compared:?}");
    assert!(compared.evals > 1_000 && compared.mates > 100, "{compared:?}");
}

/// The plies of game `id` as `ply|san|clock|emt|eval|mate|nags|comment`,
/// NULL empty (as the `sqlite3` shell lists them).
fn shown(conn: &Connection, id: i64) -> Vec<String> {
    let text = |v: Option<String>| v.unwrap_or_default();
    let number = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    plies(conn, id)
        .into_iter()
        .map(|(ply, san, clock, emt, eval, mate, nags, comment)| {
            let mate = mate.map(|m| m.to_string());
            [
                ply.to_string(),
                san,
                number(clock),
                number(emt),
                number(eval),
                text(mate),
                text(nags),
                text(comment),
            ]
            .join("|")
        })
        .collect()
}

/// Every column of game `id`'s plies, `|` separated, as the `sqlite3`
/// shell lists them.
fn every_column(conn: &Connection, id: i64) -> Vec<String> {
    let sql = format!(
        "SELECT ply || '|' || san || '|' || ifnull(clock, '') || '|' || ifnull(emt, '') || '|' \
         || ifnull(eval, '') || '|' || ifnull(mate, '') || '|' || ifnull(depth, '') || '|' \
         || ifnull(seldepth, '') || '|' || ifnull(nodes, '') || '|' || ifnull(pv, '') || '|' \
         || ifnull(book, '') || '|' || ifnull(comment, '') FROM plies WHERE game_id = {id} ORDER BY ply"
    );
    common::column(conn, &sql)
}

/// The engine columns of each form, as its comment texts in
/// `fixtures/plies/engines.pgn` spell them out: ply, san, clock, emt, eval,
/// mate, depth, seldepth, nodes, pv, book, comment.
#[test]
fn engine_columns_come_from_the_comments() {
    let dir = scratch();
    let db = dir.join("engines.db");
    import(&db, &["--quiet", arg(&fixture("plies/engines.pgn"))]).success();
    let conn = open(&db);
    // TCEC: White's view in `wv`; `mt` and `tl` in milliseconds; the other
    // items stay the comment; the engine options before the first move are
    // no ply's.
    assert_eq!(
        every_column(&conn, 1),
        [
            "1|d4|||||||||1|book, mb=+0+0+0+0+0,",
            "2|d5|35993.815|6.185|-1.47||27|41|100020557|d5 c4 c6||s=16168858, tb=0, h=6.7, ph=0.0, R50=50",
            "3|c4|35986.815|7.0||3|31|44|200000000|c4 c6 Nf3||pd=c6, R50=49",
            "4|c6|1682.391|120.609||-12|33|52|5139372176|c6||R50=48",
        ]
    );
    // Season 10: times as HH:MM:SS.
    assert_eq!(
        every_column(&conn, 2),
        [
            "1|d4|7048.0|166.0|0.24||28||2330658606|d4 d5 c4||pd=d5, s=14000 kN/s, tb=0, R50=50",
            "2|d5|6903.0|311.0|0.07||30||19729008449|d5 c4 e6||s=63349 kN/s, tb=0, R50=50",
        ]
    );
    // Arena: the mover's score, whole seconds, the ponder move as text, a
    // number cut by a line break, `#` moves to mate as written.
    assert_eq!(
        every_column(&conn, 3),
        [
            "1|e4||239.0|0.18||23|||||",
            "2|e5||249.0|-0.44||22|||||(Nf3)",
            "3|Nf3||292.0|0.68||29|||||",
            "4|Nc6||5.0||11|31|||||",
            "5|Bb5||0.0||12|30|||||",
        ]
    );
    // cutechess: plies to mate from before the move; the mating move
    // itself has no score.
    assert_eq!(
        every_column(&conn, 4),
        [
            "1|e4|||||||||1|book",
            "2|e5|||||||||1|book",
            "3|Nf3||1.2|0.35||20|||||",
            "4|Nc6||0.8|0.12||18|||||",
            "5|Bb5||0.5||2|30|||||",
            "6|a6||0.003|||127|||||Black mates",
        ]
    );
    // lichess: the depth after the evaluation's comma.
    assert_eq!(every_column(&conn, 5), ["1|e4|180.0||0.17||23|||||", "2|e5|178.0|||-4|30|||||"]);
    // `show` lists them too.
    let shown = run(["show", "--db", arg(&db), "1", "--format", "json"]).success().stdout;
    let shown: serde_json::Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(shown["notes"][0]["book"], true);
    assert_eq!(shown["notes"][2]["pv"], "c4 c6 Nf3");
    assert_eq!(shown["notes"][2]["nodes"], 200_000_000);
    assert_eq!(shown["notes"][2]["seldepth"], 44);
    // Every game is written back, its comments as written.
    let stored = "SELECT count(*) FROM games WHERE movetext IS NOT NULL";
    assert_eq!(count(&conn, stored), 0);
    let exported = run(["export", "--db", arg(&db)]).success().stdout;
    let exported = exported.split_whitespace().collect::<Vec<_>>().join(" ");
    for comment in [
        "{ WhiteEngineOptions: Protocol=uci; Threads=104; Hash=65536; }",
        "{ d=31, sd=44, pd=c6, mt=7000, tl=35986815, n=200000000, pv=c4 c6 Nf3, wv=M3, R50=49, }",
        "{ 0.44/22 249 (Nf3) }",
        "{ -#11/31 5 }",
        "{ +M1/127 0.003s, Black mates }",
        "{ [%eval #-4,30] [%clk 0:02:58] }",
    ] {
        assert!(exported.contains(comment), "{comment} in\n{exported}");
    }
}

#[test]
fn engine_forms_nags_and_comments() {
    let dir = scratch();
    let db = dir.join("engine.db");
    import(&db, &["--quiet", arg(&fixture("plies/engine.pgn"))]).success();
    let conn = open(&db);
    // cutechess scores are the mover's: Black's turn to White's view; M
    // counts plies from before the move (-M5: mated in 2 moves after it,
    // +M1: the move mates, no score left); a bare time is Arena's seconds;
    // `eval x` is White's view; a score alone is the mover's.
    assert_eq!(
        shown(&conn, 1),
        [
            "1|e4||1.2|0.35|||",
            "2|e5||0.8|-0.12|||",
            "3|Nf3||0.5||-2||",
            "4|Nc6||0.02||-1||",
            "5|Bb5||239|0.18|||",
            "6|a6|||-1.4|||",
            "7|Ba4|||0.33|||",
            "8|Nf6|7190|7.5||||thinking",
            "9|O-O||3|||$1 $18|",
        ]
    );
    // Black moves first: ply 1 is Black's; the comment before it is not a
    // ply's; the first evaluation of a ply counts.
    assert_eq!(
        shown(&conn, 2),
        [
            "1|Kd7||0.1|-0.5|||",
            "2|Kd2||||-1||",
            "3|Ke6|||||$6|A \"quoted\" word; then \\ more (and more)"
        ]
    );
    // Nothing after the move that stopped the replay.
    assert_eq!(shown(&conn, 3), ["1|d4|300|||||", "2|d5|300|||||"]);
    assert_eq!(shown(&conn, 4), ["1|c4||||||", "2|c5||||||"]);
    assert_eq!(shown(&conn, 5), Vec::<String>::new());
    assert_eq!(shown(&conn, 6), ["1|e4||||||", "2|--|30||-0.05|||", "3|d4||||||"]);
    // A row only for games with notes.
    assert_eq!(rows::<(i64,)>(&conn, "SELECT game_id FROM ply_data"), [(1,), (2,), (3,), (6,)]);
}

/// `previous_clock` is the clock of the same side's move before: the
/// clock two rows back in the game, none for each side's first move.
#[test]
fn the_previous_clock_is_the_movers_clock_two_plies_back() {
    let dir = scratch();
    let db = dir.join("clocks.db");
    let inputs = ["lichess", "chesscom", "engine"].map(|f| fixture(&format!("plies/{f}.pgn")));
    import(&db, &[&["--quiet"], &inputs.iter().map(|p| arg(p)).collect::<Vec<_>>()[..]].concat())
        .success();
    let conn = open(&db);
    let (rows, previous, differing): (i64, i64, i64) = conn
        .query_row(
            "SELECT count(*), count(previous_clock), total(previous_clock IS NOT back) FROM \
             (SELECT previous_clock, lag(clock, 2) OVER (PARTITION BY game_id ORDER BY ply) AS back \
              FROM plies)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, f64>(2)? as i64)),
        )
        .unwrap();
    assert!(previous > 100 && previous < rows, "{previous} of {rows}");
    assert_eq!(differing, 0);
    assert_eq!(
        count(&conn, "SELECT count(*) FROM plies WHERE ply <= 2 AND previous_clock IS NOT NULL"),
        0
    );
}

#[test]
fn the_sqlite3_shell_reads_the_view() {
    let dir = scratch();
    let db = dir.join("engine.db");
    import(&db, &["--quiet", arg(&fixture("plies/engine.pgn"))]).success();
    let Ok(out) =
        Command::new("sqlite3").arg(&db).arg("SELECT * FROM plies WHERE game_id = 2").output()
    else {
        eprintln!("no sqlite3 shell: the view was read through rusqlite only");
        return;
    };
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "2|1|Kd7|||0.1|-0.5||||10||||\n2|2|Kd2|||||-1|||10||||\n\
         2|3|Ke6||||||$6|A \"quoted\" word; then \\ more (and more)|||||\n"
    );
    // The lookup of one game goes by the keys.
    let out = Command::new("sqlite3")
        .arg(&db)
        .arg("EXPLAIN QUERY PLAN SELECT * FROM plies WHERE game_id = 2")
        .output()
        .unwrap();
    let plan = String::from_utf8(out.stdout).unwrap();
    // `r`: the `game_rows` row behind the `games` view.
    assert!(plan.contains("SEARCH r USING INTEGER PRIMARY KEY"), "{plan}");
    assert!(plan.contains("SEARCH d USING INTEGER PRIMARY KEY"), "{plan}");
}

#[test]
fn a_deleted_game_loses_its_notes() {
    let dir = scratch();
    let db = dir.join("engine.db");
    import(&db, &["--quiet", arg(&fixture("plies/engine.pgn"))]).success();
    let out = run(["delete", "--db", arg(&db), "--white", "EngineA"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = run(["sql", "--write", "--db", arg(&db), "DELETE FROM games WHERE id = 3"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let conn = open(&db);
    assert_eq!(rows::<(i64,)>(&conn, "SELECT game_id FROM ply_data"), [(6,)]);
    assert_eq!(count(&conn, "SELECT count(*) FROM plies"), 5);
}

#[test]
#[ignore = "the whole shared corpus, with python-chess: minutes"]
fn every_corpus_game_reads_as_python_chess_reads_it() {
    let Some(corpus) = common::corpus_games() else { return };
    let Some(python) = common::python_with("chess") else { return };
    let files = common::files_under(&corpus, |p| {
        p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"))
    });
    assert!(!files.is_empty());
    let dir = scratch();
    let tsv = dir.join("reference.tsv");
    let mut make = python.command();
    make.arg(fixture("plies/make.py")).arg(&tsv).args(&files);
    let status = make.status().expect("python3 runs");
    assert!(status.success(), "make.py failed");
    let reference = read_reference(&std::fs::read_to_string(&tsv).unwrap());
    let mut compared = Compared::default();
    for (i, file) in files.iter().enumerate() {
        let db = dir.join(format!("{i}.db"));
        import(&db, &["--quiet", "--keep-duplicates", arg(file)]).success();
        let name = file.to_string_lossy();
        let of_file: Vec<Reference> =
            reference.iter().filter(|r| r.file == name).cloned().collect();
        compare(&db, &of_file, &mut compared);
    }
    eprintln!(
        "{} files, {} games compared ({} with other moves than python-chess's, not compared), {} plies: {} clocks, {} emts, {} evaluations, {} mates, {} depths, {} pvs; {} mismatches",
        files.len(),
        compared.games,
        compared.unmatched,
        compared.plies,
        compared.clocks,
        compared.emts,
        compared.evals,
        compared.mates,
        compared.depths,
        compared.pvs,
        compared.mismatches.len()
    );
    // The engine notes of the TCEC and engine-match files are read.
    assert!(compared.depths > 30_000 && compared.pvs > 30_000, "{compared:?}");
    for m in compared.mismatches.iter().take(20) {
        eprintln!("{m}");
    }
    assert!(compared.mismatches.is_empty());
    assert!(compared.unmatched * 100 <= compared.games, "{compared:?}");
}

#[test]
fn show_lists_clocks_and_evaluations_beside_the_moves() {
    let dir = scratch();
    let db = dir.join("engine.db");
    import(&db, &["--quiet", arg(&fixture("plies/engine.pgn"))]).success();
    let show = |args: &[&str]| {
        let out = run([&["show"], args, &["--db", arg(&db)]].concat());
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    assert_eq!(
        show(&["1", "--format", "table"]),
        "EngineA - EngineB  *\nengine forms\n\n\
         1. e4 (+0.35)  e5 (-0.12)\n2. Nf3 (#-2)  Nc6 (#-1)\n3. Bb5 (+0.18)  a6 (-1.40)\n\
         4. Ba4 (+0.33)  Nf6 (1:59:50)\n5. O-O\n"
    );
    assert_eq!(
        show(&["2", "--format", "table"]),
        "EngineA - EngineC  *\nblack first\n\n1... Kd7 (-0.50)\n2. Kd2 (#-1)  Ke6\n"
    );
    assert_eq!(
        show(&["3", "--format", "table"]),
        "EngineB - EngineC  *\nstops\n\n1. d4 (0:05:00)  d5 (0:05:00)\n"
    );
    let game: serde_json::Value = serde_json::from_str(&show(&["2", "--format", "json"])).unwrap();
    assert_eq!(
        game["notes"],
        serde_json::json!([
            {"clock": null, "emt": 0.1, "eval": -0.5, "mate": null, "nags": null, "comment": null,
             "depth": 10, "seldepth": null, "nodes": null, "pv": null, "book": false},
            {"clock": null, "emt": null, "eval": null, "mate": -1, "nags": null, "comment": null,
             "depth": 10, "seldepth": null, "nodes": null, "pv": null, "book": false},
            {"clock": null, "emt": null, "eval": null, "mate": null, "nags": "$6",
             "comment": "A \"quoted\" word; then \\ more (and more)",
             "depth": null, "seldepth": null, "nodes": null, "pv": null, "book": false},
        ])
    );
    let plain: serde_json::Value = serde_json::from_str(&show(&["4", "--format", "json"])).unwrap();
    assert!(plain.get("notes").is_none(), "{plain}");
    // A database from before the notes (no ply_data) shows its games.
    common::notes_as_schema_17(&open(&db));
    open(&db)
        .execute_batch("DROP VIEW plies; DROP TRIGGER games_delete; DROP TABLE ply_data;")
        .unwrap();
    let game: serde_json::Value = serde_json::from_str(&show(&["2", "--format", "json"])).unwrap();
    assert!(game.get("notes").is_none(), "{game}");
    assert_eq!(
        show(&["2", "--format", "table"]),
        "EngineA - EngineC  *\nblack first\n\n1... Kd7\n2. Kd2  Ke6\n"
    );
}

#[test]
fn move_numbers_go_on_past_the_largest_a_fen_can_give() {
    let dir = scratch();
    let (pgn, db) = (dir.join("last.pgn"), dir.join("last.db"));
    std::fs::write(
        &pgn,
        "[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 4294967295\"]\n\n1... Kd7 2. Kd2 Ke7 *\n",
    )
    .unwrap();
    import(&db, &["--quiet", arg(&pgn)]).success();
    let out = |args: &[&str]| {
        let out = run([args, &["--db", arg(&db)]].concat());
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    assert_eq!(
        out(&["show", "1", "--format", "table"]),
        "? - ?  *\n\n4294967295... Kd7\n4294967296. Kd2  Ke7\n"
    );
    let exported = out(&["export"]);
    assert!(exported.contains("4294967295... Kd7 4294967296. Kd2 Ke7 *"), "{exported}");
}

#[test]
fn the_view_reads_what_its_previous_version_read() {
    let dir = scratch();
    let forms = dir.join("forms.pgn");
    // Whole seconds past the tenths' range (`c`), a ply without a clock
    // between two with one, evaluations that stop before the last ply,
    // and values only the JSON arrays hold.
    std::fs::write(
        &forms,
        "[Event \"Forms\"]\n[Result \"*\"]\n\n1. e4 { [%clk 10:00:00] [%eval 0.2] } e5 { [%clk \
         1:59:58] [%eval #-3] } 2. Nf3 { [%eval 0.3] } Nc6 { [%clk 1:58:00] } 3. Bb5 { [%clk \
         1:59:00] } a6 *\n\n[Event \"Forms\"]\n[Result \"*\"]\n\n1. d4 { [%eval 2000.0] [%emt \
         0:00:01.5] } d5 { [%eval -0.5] } 2. c4 { [%eval #12] } *\n",
    )
    .unwrap();
    let db = dir.join("forms.db");
    let inputs = ["lichess", "chesscom", "engine", "engines"]
        .map(|f| fixture(&format!("plies/{f}.pgn")))
        .into_iter()
        .chain([forms]);
    let args: Vec<String> = inputs.map(|p| arg(&p).to_string()).collect();
    let args: Vec<&str> = ["--quiet"].into_iter().chain(args.iter().map(String::as_str)).collect();
    import(&db, &args).success();
    let conn = open(&db);
    let before = include_str!("../../migrations/0025_previous_clock.sql");
    let view = &before[before.find("CREATE VIEW plies AS").unwrap()..];
    let view = &view[..view.find(";\n").unwrap()];
    conn.execute_batch(&view.replacen("CREATE VIEW plies", "CREATE TEMP VIEW plies_before", 1))
        .unwrap();
    let forms = |column: &str| {
        count(
            &conn,
            &format!(
                "SELECT count(DISTINCT CAST(substr({column}, 1, 1) AS TEXT)) FROM ply_data \
                 WHERE {column} IS NOT NULL"
            ),
        )
    };
    assert_eq!((forms("clocks"), forms("emts"), forms("evals")), (4, 3, 2));
    assert!(count(&conn, "SELECT count(*) FROM ply_data WHERE instr(clocks, '~') > 0") > 0);
    assert!(count(&conn, "SELECT count(*) FROM plies WHERE pv IS NOT NULL") > 0);
    for (a, b) in [("plies", "plies_before"), ("plies_before", "plies")] {
        assert_eq!(
            count(
                &conn,
                &format!("SELECT count(*) FROM (SELECT * FROM {a} EXCEPT SELECT * FROM {b})")
            ),
            0
        );
    }
    assert_eq!(
        count(&conn, "SELECT count(*) FROM plies"),
        count(&conn, "SELECT count(*) FROM plies_before")
    );
    let beyond = "SELECT count(*) FROM plies AS p JOIN ply_data AS d USING (game_id) \
                  WHERE length(d.evals) < 1 + 3 * p.ply AND CAST(substr(d.evals, 1, 1) AS TEXT) = 'a'";
    assert!(count(&conn, beyond) > 0);
    // This program's connections read the view with functions of their own
    // (and the bundled SQLite's faster `unicode()`): the same values.
    let fingerprint = "SELECT count(*) || ' ' || total(clock) || ' ' || total(previous_clock) || ' ' \
                       || total(emt) || ' ' || total(eval) || ' ' || total(mate) || ' ' || count(clock) \
                       || ' ' || count(emt) || ' ' || count(eval) || ' ' || count(mate) || ' ' \
                       || group_concat(coalesce(pv, '-'), '|') FROM plies";
    let plain: String = conn.query_row(fingerprint, [], |r| r.get(0)).unwrap();
    let program = run(["sql", "--format", "csv", "--db", arg(&db), fingerprint]).success();
    assert_eq!(program.stdout.lines().nth(1), Some(plain.as_str()));
}

/// Each side's `*_clock_moves`, `*_clock_drop_ms` and
/// `*_clock_max_drop_ms` of every `ply_data` row, by game.
type ClockUse = (i64, Option<i64>, Option<i64>, Option<i64>, Option<i64>, Option<i64>, Option<i64>);

const CLOCK_USE: &str = "SELECT game_id, white_clock_moves, white_clock_drop_ms, \
     white_clock_max_drop_ms, black_clock_moves, black_clock_drop_ms, black_clock_max_drop_ms \
     FROM ply_data ORDER BY game_id";

/// What the `plies` view's clocks (seconds) of each game give, summed
/// here side by side, to the millisecond: the reference for the stored
/// columns.
fn clock_use_of_the_view(conn: &Connection) -> Vec<ClockUse> {
    // Game, ply, clock, previous clock, whether Black moves first.
    type Clocks = (i64, i64, Option<f64>, Option<f64>, bool);
    let plies: Vec<Clocks> = rows(
        conn,
        "SELECT p.game_id, p.ply, p.clock, p.previous_clock, \
                coalesce(substr(g.start_fen, instr(g.start_fen, ' ') + 1, 1) = 'b', 0) \
         FROM plies AS p JOIN games AS g ON g.id = p.game_id ORDER BY p.game_id, p.ply",
    );
    let clocked: Vec<(i64, bool)> =
        rows(conn, "SELECT game_id, clocks IS NOT NULL FROM ply_data ORDER BY game_id");
    clocked
        .into_iter()
        .map(|(id, has_clocks)| {
            if !has_clocks {
                return (id, None, None, None, None, None, None);
            }
            // (moves, drop, max drop) of White, then Black.
            let mut sides = [(0, 0.0, None::<f64>); 2];
            for &(_, ply, clock, previous, black_first) in plies.iter().filter(|p| p.0 == id) {
                let (Some(clock), Some(previous)) = (clock, previous) else { continue };
                let side = usize::from((ply - 1 + i64::from(black_first)) % 2 == 1);
                let drop = previous - clock;
                sides[side].0 += 1;
                sides[side].1 += drop;
                sides[side].2 = Some(sides[side].2.map_or(drop, |m| m.max(drop)));
            }
            let ms = |seconds: f64| (seconds * 1000.0).round() as i64;
            let [w, b] = sides;
            (id, Some(w.0), Some(ms(w.1)), w.2.map(ms), Some(b.0), Some(ms(b.1)), b.2.map(ms))
        })
        .collect()
}

#[test]
fn each_sides_clock_use_is_what_the_view_says_after_an_import_a_migration_and_sql_writes() {
    let dir = scratch();
    let black_first = dir.join("black-first.pgn");
    // Black moves first, a ply without a clock, a move that gains time,
    // tenths; and a game with one clock only.
    std::fs::write(
        &black_first,
        "[Event \"Black first\"]\n[FEN \"8/8/8/4k3/8/8/8/4K2R b K - 0 1\"]\n[Result \"*\"]\n\n\
         1... Kd5 { [%clk 0:01:00] } 2. Kf1 { [%clk 0:01:00] } Kc4 { [%clk 0:00:51.5] } 3. Kg1 \
         { [%clk 0:00:58] } Kb3 4. Kh2 { [%clk 0:01:01] } Ka2 { [%clk 0:00:40] } *\n\n\
         [Event \"One clock\"]\n[Result \"*\"]\n\n1. e4 { [%clk 0:03:00] } e5 *\n",
    )
    .unwrap();
    let db = dir.join("clocks.db");
    let inputs = ["lichess", "chesscom", "engine", "engines"]
        .map(|f| fixture(&format!("plies/{f}.pgn")))
        .into_iter()
        .chain([black_first.clone()]);
    let args: Vec<String> = inputs.map(|p| arg(&p).to_string()).collect();
    let args: Vec<&str> = ["--quiet"].into_iter().chain(args.iter().map(String::as_str)).collect();
    import(&db, &args).success();
    let conn = open(&db);
    let imported: Vec<ClockUse> = rows(&conn, CLOCK_USE);
    assert_eq!(imported, clock_use_of_the_view(&conn));
    // The inputs hold what the test is about.
    let timed = imported.iter().filter(|c| c.1.unwrap_or(0) + c.4.unwrap_or(0) > 0).count();
    assert!(timed > 50, "{timed} games with timed moves");
    assert!(imported.iter().any(|c| c.1 == Some(0) && c.4 == Some(0) && c.3.is_none()));
    assert!(imported.iter().any(|c| c.1.is_none()), "a row without clocks");
    let fractions = "SELECT count(*) FROM ply_data WHERE white_clock_drop_ms % 1000 <> 0";
    assert!(count(&conn, fractions) > 0);
    let black = count(&conn, "SELECT id FROM games WHERE event = 'Black first'");
    let of = |conn: &Connection, id: i64| -> ClockUse {
        let sql = CLOCK_USE.replace("ORDER BY", &format!("WHERE game_id = {id} ORDER BY"));
        rows::<ClockUse>(conn, &sql)[0]
    };
    assert_eq!(
        of(&conn, black),
        (black, Some(2), Some(-1000), Some(2000), Some(1), Some(8500), Some(8500))
    );

    // A database of the previous schema gets the same values.
    let old = dir.join("old.db");
    std::fs::copy(&db, &old).unwrap();
    common::clock_use_as_schema_31(&open(&old));
    assert_eq!(count(&open(&old), "PRAGMA user_version"), 31);
    import(&old, &["--quiet", arg(&black_first)]).success();
    assert_eq!(count(&open(&old), "PRAGMA user_version"), pgnindex::db::SCHEMA_VERSION);
    assert_eq!(rows::<ClockUse>(&open(&old), CLOCK_USE), imported);

    // SQL that writes clocks, a start position or moves keeps them.
    conn.execute_batch(&format!(
        "CREATE TEMP TABLE saved AS SELECT * FROM ply_data;
         DELETE FROM ply_data;
         INSERT INTO ply_data (game_id, clocks, emts, evals)
             SELECT game_id, clocks, emts, evals FROM saved;
         UPDATE games SET start_fen = NULL, moves = 'Kd5 Kf1 Kc4' WHERE id = {black};"
    ))
    .unwrap();
    let written: Vec<ClockUse> = rows(&conn, CLOCK_USE);
    assert_eq!(written, clock_use_of_the_view(&conn));
    assert_eq!(of(&conn, black), (black, Some(1), Some(8500), Some(8500), Some(0), Some(0), None));
    let others = |uses: &[ClockUse]| -> Vec<ClockUse> {
        uses.iter().filter(|c| c.0 != black).copied().collect()
    };
    assert_eq!(others(&written), others(&imported));
    conn.execute_batch(&format!("UPDATE ply_data SET clocks = NULL WHERE game_id = {black}"))
        .unwrap();
    assert_eq!(of(&conn, black), (black, None, None, None, None, None, None));
}
