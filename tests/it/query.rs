//! The query commands end to end. One database is imported by the real
//! binary from `fixtures/pgn/games` (1,091 games); `find`, `explore`,
//! `show`, `export`, `info` and `sql` run against it, and positions and
//! explorer counts are checked against the python-chess reference for the
//! same games (`fixtures/groundtruth/games/…`): every game's moves as
//! python-chess read them, replayed here to list the positions each game
//! passes through (the replay itself is checked key by key against
//! python-chess in `tests/it/groundtruth.rs`).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::OnceLock;

use crate::common;

use common::{arg, games_dir, import, pgnindex, scratch, Scratch};
use predicates::prelude::*;

use pgnindex::chess::Position;
use pgnindex::db::GameId;
use pgnindex::notation::{fen, uci};
use pgnindex::store::format::positions::pack_gpm;
use similar_asserts::assert_eq;

/// The shared database: imported once per test process.
fn db() -> &'static str {
    static DB: OnceLock<String> = OnceLock::new();
    DB.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
        // Databases of earlier runs go first.
        for old in std::fs::read_dir(root).into_iter().flatten().flatten() {
            if old.file_name().to_string_lossy().starts_with("query-tests-") {
                let _ = std::fs::remove_dir_all(old.path());
            }
        }
        let dir = root.join(format!("query-tests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("q.db");
        import(&db, &["--quiet", arg(&games_dir())]).success();
        db.to_string_lossy().into_owned()
    })
}

/// Runs `pgnindex ARGS --db <shared db>` and returns stdout; fails the
/// test on a non-zero exit.
fn run(args: &[&str]) -> String {
    run_on(db(), args)
}

/// [`run`] on the database at `db`.
fn run_on(db: &str, args: &[&str]) -> String {
    let out = common::run(args.iter().chain(&["--db", db]));
    out.success().stdout
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&run(args)).unwrap()
}

/// A position as the query commands compare positions: placement, side to
/// move, castling rights and the en-passant square when a pawn stands
/// ready (Polyglot semantics).
fn identity(pos: &Position) -> String {
    let full = fen::write(pos);
    let fields: Vec<&str> = full.split(' ').collect();
    let ep = pos.pseudo_ep_square().map_or("-".to_string(), |s| s.to_string());
    format!("{} {} {} {ep}", fields[0], fields[1], fields[2])
}

/// One reference game.
struct RefGame {
    id: i64,
    result: Option<String>,
    /// The python-chess keys of the first plies, hex.
    first_keys: Vec<String>,
    /// FEN at every ply.
    fens: Vec<String>,
    /// Identity at every ply.
    positions: Vec<String>,
    /// UCI of the move played from every ply but the last.
    moves: Vec<String>,
}

/// The reference for the games of the shared database, by database id.
struct Reference {
    games: Vec<RefGame>,
    /// Position identity → (game id, first ply) of every game reaching it,
    /// in id order.
    by_position: HashMap<String, Vec<(i64, usize)>>,
}

fn reference() -> &'static Reference {
    static REF: OnceLock<Reference> = OnceLock::new();
    REF.get_or_init(|| {
        // Database ids by source, in id order.
        let csv = run(&[
            "sql",
            "SELECT s.path, g.id, g.white FROM games AS g JOIN sources AS s ON s.id = g.source_id ORDER BY g.id",
            "--format",
            "json",
        ]);
        let rows: serde_json::Value = serde_json::from_str(&csv).unwrap();
        let mut by_source: BTreeMap<String, Vec<(i64, Option<String>)>> = BTreeMap::new();
        for r in rows.as_array().unwrap() {
            let path = r["path"].as_str().unwrap();
            let rel = path.split("pgn/games/").nth(1).unwrap().to_string();
            by_source
                .entry(rel)
                .or_default()
                .push((r["id"].as_i64().unwrap(), r["white"].as_str().map(str::to_string)));
        }
        assert_eq!(by_source.len(), 7, "the seven game files of fixtures/pgn/games");
        let mut games = Vec::new();
        for (rel, ids) in &by_source {
            let records = common::reference(&format!("games/{rel}"));
            assert_eq!(records.len(), ids.len(), "{rel}: games in the database vs reference");
            for (rec, (id, white)) in records.iter().zip(ids) {
                let ref_white = rec["headers"]["White"].as_str();
                if ref_white.is_some_and(|w| !w.contains('\\')) {
                    assert_eq!(ref_white, white.as_deref(), "{rel}: game {id} is not aligned");
                }
                let mut pos = fen::parse_position(rec["start_fen"].as_str().unwrap()).unwrap();
                let mut g = RefGame {
                    id: *id,
                    result: rec["headers"]["Result"].as_str().map(str::to_string),
                    first_keys: rec["first_keys"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|k| k.as_str().unwrap().to_string())
                        .collect(),
                    fens: vec![fen::write(&pos)],
                    positions: vec![identity(&pos)],
                    moves: Vec::new(),
                };
                for text in rec["moves_uci"].as_str().unwrap().split_whitespace() {
                    let m = uci::parse_move(&pos, text).unwrap();
                    g.moves.push(uci::to_uci(&pos, m));
                    pos.play_unchecked(m);
                    g.fens.push(fen::write(&pos));
                    g.positions.push(identity(&pos));
                }
                games.push(g);
            }
        }
        let mut by_position: HashMap<String, Vec<(i64, usize)>> = HashMap::new();
        for g in &games {
            let mut seen = std::collections::HashSet::new();
            for (ply, p) in g.positions.iter().enumerate() {
                if seen.insert(p) {
                    by_position.entry(p.clone()).or_default().push((g.id, ply));
                }
            }
        }
        Reference { games, by_position }
    })
}

/// `find --fen FEN --limit 0 --format csv` as (id, ply) pairs.
fn find_fen(fen: &str) -> Vec<(i64, usize)> {
    hits(&run(&["find", "--fen", fen, "--limit", "0", "--format", "csv"]))
}

/// The (id, ply) pairs of `find --format csv` output.
fn hits(csv: &str) -> Vec<(i64, usize)> {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("id,white,black,result,date,event,eco,plies,ply,error"));
    lines
        .map(|l| {
            // The fixture games all replay to their end: `error` is empty.
            let id = l.split(',').next().unwrap().parse().unwrap();
            let ply = l.strip_suffix(',').unwrap().rsplit(',').next().unwrap().parse().unwrap();
            (id, ply)
        })
        .collect()
}

#[test]
fn find_returns_exactly_the_games_of_the_reference() {
    let r = reference();
    assert_eq!(r.games.len(), 1091);
    let mut checked = 0;
    let mut fens = Vec::new();
    for g in r.games.iter().step_by(61) {
        let last = g.fens.len() - 1;
        for ply in [0, 1, 2, 6, 11, 24, 47, last] {
            if ply <= last {
                fens.push((g.fens[ply].clone(), g.positions[ply].clone(), g, ply));
            }
        }
    }
    fens.dedup_by(|a, b| a.1 == b.1);
    for (fen, identity, g, ply) in &fens {
        let expected = &r.by_position[identity];
        let found = find_fen(fen);
        assert_eq!(&found, expected, "find --fen '{fen}'");
        let count = run(&["find", "--fen", fen, "--count"]);
        assert_eq!(count.trim(), expected.len().to_string(), "--count for '{fen}'");
        if *ply <= 2 {
            // python-chess's own key of this ply: every game whose key
            // there is the same is found.
            let key = &g.first_keys[*ply];
            for other in r.games.iter().filter(|o| o.first_keys.get(*ply) == Some(key)) {
                assert!(found.iter().any(|(id, _)| *id == other.id), "game {} for {fen}", other.id);
            }
        }
        checked += 1;
    }
    assert!(checked > 80, "{checked} positions checked");
}

#[test]
fn find_reads_fen_epd_and_moves_alike() {
    let r = reference();
    // After 1. e4 c5 2. Nf3 d6: many games, by several move orders.
    let by_moves =
        run(&["find", "--moves", "1. e4 c5 2. Nf3 d6", "--limit", "0", "--format", "csv"]);
    let fen = "rnbqkbnr/pp2pppp/3p4/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3";
    let by_fen = run(&["find", "--fen", fen, "--limit", "0", "--format", "csv"]);
    assert_eq!(by_moves, by_fen);
    let four = "rnbqkbnr/pp2pppp/3p4/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -";
    assert_eq!(run(&["find", "--fen", four, "--limit", "0", "--format", "csv"]), by_fen);
    assert_eq!(
        run(&["find", "--epd", &format!("{four} id \"x\";"), "--limit", "0", "--format", "csv"]),
        by_fen
    );
    let other_order = run(&["find", "--moves", "Nf3 d6 e4 c5", "--limit", "0", "--format", "csv"]);
    assert_eq!(other_order, by_fen, "transpositions are the same position");
    let identity = r
        .games
        .iter()
        .find_map(|g| g.fens.iter().position(|f| f == fen).map(|p| g.positions[p].clone()));
    assert_eq!(by_fen.lines().count() - 1, r.by_position[&identity.unwrap()].len());
}

#[test]
fn find_pages_through_verified_games() {
    let all = run(&["find", "--moves", "1. e4", "--limit", "0", "--format", "csv"]);
    let all: Vec<&str> = all.lines().skip(1).collect();
    assert!(all.len() > 300);
    let page =
        run(&["find", "--moves", "1. e4", "--limit", "10", "--offset", "20", "--format", "csv"]);
    assert_eq!(page.lines().skip(1).collect::<Vec<_>>(), all[20..30]);
    let out = common::run(["find", "--moves", "1. e4", "--limit", "3", "--db", db()]).success();
    let hint = "first 3 games shown; --offset 3 for the next ones";
    assert!(out.stderr.contains(hint), "{}", out.stderr);
    let table = out.stdout;
    assert_eq!(table.lines().count(), 5, "header, rule, three games:\n{table}");
    assert!(!table.contains('\x1b'), "no colour when stdout is not a terminal");
}

/// (games, white wins, draws, black wins).
type Counts = (u64, u64, u64, u64);

/// Counts per move (UCI) from the reference, and the games that reach the
/// position.
fn reference_explorer(identity: &str) -> (BTreeMap<String, Counts>, u64) {
    let r = reference();
    let mut moves: BTreeMap<String, Counts> = BTreeMap::new();
    let mut games = 0;
    for &(id, ply) in &r.by_position[identity] {
        let g = r.games.iter().find(|g| g.id == id).unwrap();
        games += 1;
        let Some(m) = g.moves.get(ply) else { continue };
        let e = moves.entry(m.clone()).or_default();
        e.0 += 1;
        match g.result.as_deref() {
            Some("1-0") => e.1 += 1,
            Some("1/2-1/2") => e.2 += 1,
            Some("0-1") => e.3 += 1,
            _ => {}
        }
    }
    (moves, games)
}

#[test]
fn explorer_counts_agree_with_a_brute_force_count() {
    let r = reference();
    for moves in
        ["", "e4", "e4 c5", "d4", "e4 e5 Nf3 Nc6", "d4 Nf6 c4 e6", "e4 c5 Nf3 d6 d4 cxd4 Nxd4"]
    {
        let target = if moves.is_empty() {
            Position::new()
        } else {
            pgnindex::query::target::Target::from_moves(moves, None).unwrap().position
        };
        let (expected, games) = reference_explorer(&identity(&target));
        let mut args = vec!["explore", "--format", "json"];
        if !moves.is_empty() {
            args.extend(["--moves", moves]);
        }
        let rows = json(&args);
        let mut got = BTreeMap::new();
        let mut sum = 0;
        for row in rows.as_array().unwrap() {
            let n = |k: &str| row[k].as_u64().unwrap();
            got.insert(
                row["uci"].as_str().unwrap().to_string(),
                (n("games"), n("white_wins"), n("draws"), n("black_wins")),
            );
            sum += n("games");
            let san = row["move"].as_str().unwrap();
            let m = uci::parse_move(&target, row["uci"].as_str().unwrap()).unwrap();
            assert_eq!(san, pgnindex::notation::san::to_san(&target, m));
        }
        assert_eq!(got, expected, "explore after '{moves}'");
        assert!(sum <= games);
        // Sorted by games.
        let counts: Vec<u64> =
            rows.as_array().unwrap().iter().map(|r| r["games"].as_u64().unwrap()).collect();
        assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    }
    assert!(r.by_position.len() > 50_000);
}

#[test]
fn explorer_with_filters_and_without_the_summary_index() {
    let r = reference();
    // Filtered: the reference restricted to games whose White or Black
    // contains "carlsen".
    let target = pgnindex::query::target::Target::from_moves("d4", None).unwrap().position;
    let id = identity(&target);
    let carlsen: std::collections::HashSet<i64> =
        json(&["find", "--player", "carlsen", "--limit", "0", "--format", "json"])
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_i64().unwrap())
            .collect();
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for &(gid, ply) in &r.by_position[&id] {
        let g = r.games.iter().find(|g| g.id == gid).unwrap();
        if carlsen.contains(&gid) {
            if let Some(m) = g.moves.get(ply) {
                *expected.entry(m.clone()).or_default() += 1;
            }
        }
    }
    let rows = json(&["explore", "--moves", "d4", "--player", "CARLSEN", "--format", "json"]);
    let got: BTreeMap<String, u64> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["uci"].as_str().unwrap().to_string(), r["games"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, expected);
    assert!(!got.is_empty());
    // A database without the query index (schema 1) gives the same
    // answers, dense or sparse.
    let dir = scratch();
    let copy = scratch_db(&dir);
    run_on(&copy, &["sql", "--write", "DROP INDEX games_summary"]);
    for moves in ["e4", "e4 c5 Nf3 d6 d4 cxd4 Nxd4"] {
        let with = run(&["explore", "--moves", moves, "--format", "csv"]);
        let without = run_on(&copy, &["explore", "--moves", moves, "--format", "csv"]);
        assert_eq!(with, without, "{moves}");
    }
}

#[test]
fn explorer_counts_transpositions_once_per_game() {
    let a = json(&["explore", "--moves", "1. d4 Nf6 2. c4 e6", "--format", "json"]);
    let b = json(&["explore", "--moves", "1. c4 e6 2. d4 Nf6", "--format", "json"]);
    assert_eq!(a, b);
    let table = run(&["explore", "--moves", "1. e4 c5"]);
    // The position's name (tests/it/openings.rs), then the moves.
    let (name, table) = table.split_once('\n').unwrap();
    assert!(name.starts_with("Opening: B20 "), "{name}");
    assert!(table.starts_with("move  games  white  draws  black  white%"), "{table}");
    assert!(table.trim_end().ends_with("end there") || table.contains("games reach the position"));
}

#[test]
fn explorer_rating_and_date_agree_with_sql() {
    let r = reference();
    let target = pgnindex::query::target::Target::from_moves("e4 e5", None).unwrap().position;
    let rows = json(&["explore", "--moves", "e4 e5", "--format", "json"]);
    for row in rows.as_array().unwrap() {
        let uci = row["uci"].as_str().unwrap();
        let ids: Vec<String> = r.by_position[&identity(&target)]
            .iter()
            .filter(|(id, ply)| {
                r.games.iter().find(|g| g.id == *id).unwrap().moves.get(*ply).map(String::as_str)
                    == Some(uci)
            })
            .map(|(id, _)| id.to_string())
            .collect();
        // After 1. e4 e5 White moves: the players of the move are White.
        let sql = format!(
            "SELECT avg(white_elo) AS avg, \
             max(CASE WHEN date GLOB '[0-9][0-9][0-9][0-9]*' THEN date END) AS last \
             FROM games WHERE id IN ({})",
            ids.join(",")
        );
        let expected = json(&["sql", &sql, "--format", "json"]);
        let avg = expected[0]["avg"].as_f64().map(|a| a.round() as i64);
        assert_eq!(row["avg_elo"].as_i64(), avg, "{uci}");
        assert_eq!(row["last_date"], expected[0]["last"], "{uci}");
        assert!(row["white_pct"].as_f64().unwrap() <= 100.0);
    }
}

/// A copy of the shared database in `dir`, for tests that change it.
fn scratch_db(dir: &Scratch) -> String {
    let path = dir.join("copy.db");
    std::fs::copy(db(), &path).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn a_key_collision_never_shows_a_wrong_game() {
    let r = reference();
    let dir = scratch();
    let copy = scratch_db(&dir);
    // A position reached by a few games, and a game that never reaches it.
    let (identity, reached) = r
        .by_position
        .iter()
        .filter(|(_, v)| v.len() == 2 && v.iter().all(|(_, ply)| *ply > 10))
        .min_by_key(|(k, _)| (*k).clone())
        .unwrap();
    let g = r.games.iter().find(|g| g.id == reached[0].0).unwrap();
    let fen = &g.fens[reached[0].1];
    assert_eq!(&g.positions[reached[0].1], identity);
    let stranger = r.games.iter().find(|g| !g.positions.contains(identity)).unwrap().id;
    let key = pgnindex::query::target::Target::from_fen(fen).unwrap().key;
    // A forged row: the stranger "reaches" the position at ply 3; the
    // first real game gets a forged earlier hit at ply 1 too. The rows go
    // into a segment table of the `positions` view.
    let sql = "SELECT name FROM position_segments ORDER BY id LIMIT 1";
    let segments = run_on(&copy, &["sql", sql, "--format", "csv"]);
    let segment = segments.lines().nth(1).unwrap().to_string();
    let at3 = pack_gpm(GameId::new(stranger as u32), 3, None);
    let at1 = pack_gpm(GameId::new(reached[0].0 as u32), 1, None);
    let forge = format!(
        "INSERT INTO {segment} (hash, gpm) VALUES ({key}, {at3}); \
         INSERT INTO {segment} (hash, gpm) VALUES ({key}, {at1})"
    );
    run_on(&copy, &["sql", "--write", &forge]);
    let found = common::run(["find", "--fen", fen, "--format", "csv", "--db", &copy]).success();
    assert!(found.stderr.contains("1 game left out:"), "{}", found.stderr);
    assert_eq!(
        &hits(&found.stdout),
        reached,
        "the stranger is left out and the real ply is reported"
    );
    // --count counts by key (documented): it sees the forged row.
    assert_eq!(run_on(&copy, &["find", "--fen", fen, "--count"]).trim(), "3");
}

#[test]
fn export_round_trips_through_import() {
    let dir = scratch();
    let pgn = dir.join("all.pgn");
    pgnindex()
        .args(["export", "-o", arg(&pgn), "--db", db()])
        .assert()
        .success()
        .stderr(predicate::str::contains("1,091 games written"));
    let text = std::fs::read_to_string(&pgn).unwrap();
    for line in text.lines().filter(|l| !l.starts_with('[')) {
        assert!(line.chars().count() <= 80 || !line.contains(' '), "long line: {line}");
    }
    let again = dir.join("again.db");
    import(&again, &["--quiet", arg(&pgn)]).success();
    let sql =
        "SELECT id, event, site, date, round, white, black, result, white_elo, black_elo, eco, \
               ply_count, start_fen, final_fen, moves FROM games ORDER BY id";
    let tags = "SELECT game_id, name, value FROM tags ORDER BY game_id, name, value";
    for q in [sql, tags] {
        let before = run(&["sql", q, "--format", "csv"]);
        let after = run_on(arg(&again), &["sql", q, "--format", "csv"]);
        assert_eq!(after, before, "{q} differs after a round trip");
    }
    // A position search exports the same games as find lists.
    let e4 = run(&["export", "--moves", "1. e4 e5 2. Nf3 Nc6 3. Bb5"]);
    let count = run(&["find", "--moves", "1. e4 e5 2. Nf3 Nc6 3. Bb5", "--count"]);
    assert_eq!(e4.matches("[Event ").count().to_string(), count.trim());
    assert_eq!(
        run(&["find", "--moves", "1. e4 e5 2. Nf3 Nc6 3. Bb5", "--format", "pgn", "--limit", "0"]),
        e4
    );
}

#[test]
fn show_prints_one_game() {
    let pgn = run(&["show", "1082"]);
    let lines: Vec<&str> = pgn.lines().collect();
    let roster: Vec<&str> = lines[..7].iter().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(roster, ["[Event", "[Site", "[Date", "[Round", "[White", "[Black", "[Result"]);
    assert!(pgn.contains("{ WhiteEngineOptions:"), "comments kept");
    assert!(pgn.ends_with("\n\n"));
    let game = json(&["show", "1082", "--format", "json", "--fens"]);
    let plies = game["plies"].as_u64().unwrap() as usize;
    assert_eq!(game["moves"].as_array().unwrap().len(), plies);
    assert_eq!(game["fens"].as_array().unwrap().len(), plies + 1);
    assert_eq!(game["fens"][plies], game["final_fen"]);
    assert_eq!(game["tags"][0][0], "Event");
    let with_fens = run(&["show", "1082", "--fens"]);
    let fen_lines: Vec<&str> = with_fens.strip_prefix(pgn.as_str()).unwrap().lines().collect();
    assert_eq!(fen_lines.len(), plies + 1);
    assert!(fen_lines[0].starts_with("0\t-\t"));
    let last: Vec<&str> = fen_lines[plies].split('\t').collect();
    assert_eq!(last[2], game["final_fen"]);
    // A game from a FEN start (odds): the tags keep it replayable.
    let odds = json(&[
        "sql",
        "SELECT min(id) AS id FROM games WHERE start_fen IS NOT NULL",
        "--format",
        "json",
    ]);
    let id = odds[0]["id"].as_i64().unwrap().to_string();
    let pgn = run(&["show", &id]);
    assert!(pgn.contains("[FEN \""), "{pgn}");
}

#[test]
fn info_summarises_the_database() {
    let text = run(&["info"]);
    assert!(text.contains("games      1,091\n"), "{text}");
    assert!(text.contains("positions  82,153\n"), "{text}");
    assert!(text.contains("sources    7\n"), "{text}");
    assert!(text.contains("events     Live Chess (596)"), "{text}");
    let v = json(&["info", "--format", "json"]);
    assert_eq!(v["games"], 1091);
    assert_eq!(v["sources"].as_array().unwrap().len(), 7);
    assert!(v["first_date"].as_str().unwrap() <= v["last_date"].as_str().unwrap());
}

#[test]
fn filters_reach_sql_as_text() {
    let count = |args: &[&str]| -> u64 {
        let mut a = vec!["find", "--count"];
        a.extend_from_slice(args);
        run(&a).trim().parse().unwrap()
    };
    let sql_count = |cond: &str| -> u64 {
        let v = json(&[
            "sql",
            &format!("SELECT count(*) AS n FROM games WHERE {cond}"),
            "--format",
            "json",
        ]);
        v[0]["n"].as_u64().unwrap()
    };
    assert_eq!(
        count(&["--player", "carlsen"]),
        sql_count("white LIKE '%carlsen%' OR black LIKE '%carlsen%'")
    );
    assert!(count(&["--player", "carlsen"]) > 10);
    assert_eq!(count(&["--white", "CARLSEN"]), sql_count("white LIKE '%carlsen%'"));
    assert_eq!(count(&["--eco", "B"]), sql_count("eco >= 'B00' AND eco < 'B9:'"));
    assert_eq!(count(&["--result", "1/2-1/2"]), sql_count("result = '1/2-1/2'"));
    assert_eq!(count(&["--min-elo", "2700"]), sql_count("white_elo >= 2700 AND black_elo >= 2700"));
    assert_eq!(
        count(&["--since", "2021", "--until", "2021.12"]),
        sql_count("date >= '2021' AND date < '2022'")
    );
    assert_eq!(count(&["--min-plies", "100"]), sql_count("ply_count >= 100"));
    for name in ["O'Brien", "100%", "x_y", "\"", "'; DROP TABLE games; --", "\\"] {
        assert_eq!(count(&["--white", name]), 0, "{name}");
    }
    assert_eq!(count(&[]), 1091, "the tables are still there");
    let both = count(&["--moves", "1. e4", "--player", "carlsen", "--result", "1-0"]);
    let listed = run(&[
        "find", "--moves", "1. e4", "--player", "carlsen", "--result", "1-0", "--format", "json",
        "--limit", "0",
    ]);
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed.as_array().unwrap().len() as u64, both);
    for g in listed.as_array().unwrap() {
        assert_eq!(g["result"], "1-0");
        assert_eq!(g["ply"], 1);
        let players = format!("{} {}", g["white"], g["black"]).to_lowercase();
        assert!(players.contains("carlsen"));
    }
}

#[test]
fn json_and_csv_have_the_promised_columns() {
    let v = json(&["find", "--moves", "1. d4", "--format", "json", "--limit", "2"]);
    let keys: Vec<&str> = v[0].as_object().unwrap().keys().map(String::as_str).collect();
    for k in ["id", "white", "black", "result", "date", "event", "eco", "plies", "ply", "error"] {
        assert!(keys.contains(&k), "find json lacks {k}");
    }
    let v = json(&["explore", "--format", "json"]);
    for k in ["move", "uci", "games", "white_wins", "draws", "black_wins", "avg_elo", "last_date"] {
        assert!(v[0].get(k).is_some(), "explore json lacks {k}");
    }
    let csv = run(&["explore", "--format", "csv"]);
    assert!(csv.starts_with("move,uci,games,white_wins,draws,black_wins,"), "{csv}");
    assert_eq!(run(&["find", "--white", "nobody at all", "--format", "json"]), "[]\n");
}

#[test]
fn sql_runs_queries_with_functions_read_only_unless_asked() {
    let v = json(&[
        "sql",
        "SELECT count(DISTINCT game_id) AS n FROM positions \
         WHERE hash = polyglot_key('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -')",
        "--format",
        "json",
    ]);
    let by_find = run(&["find", "--moves", "e4", "--count"]);
    assert_eq!(v[0]["n"].as_u64().unwrap().to_string(), by_find.trim());
    let v = json(&[
        "sql",
        "SELECT fen_at(1, 0) AS a, fen_at(1, 1000) AS b, san_to_uci(fen_at(1, 0), 'Nf3') AS c",
        "--format",
        "json",
    ]);
    assert_eq!(v[0]["a"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert!(v[0]["b"].is_null());
    assert_eq!(v[0]["c"], "g1f3");
    pgnindex()
        .args(["sql", "DELETE FROM games", "--db", db()])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("read-only: add --write"))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    pgnindex()
        .args(["sql", "SELECT nope FROM games", "--db", db()])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with("pgnindex: error: no such column: nope"));
    let dir = scratch();
    let copy = scratch_db(&dir);
    pgnindex()
        .args(["sql", "--write", "DELETE FROM game_tags", "--db", &copy])
        .assert()
        .success()
        .stderr(predicate::str::contains("rows changed"));
    let table = run(&["sql", "SELECT 1 AS one, 'a' AS two; SELECT 2 AS three"]);
    assert_eq!(table, "one  two\n---  ---\n  1  a\n\nthree\n-----\n    2\n");
}

#[test]
fn errors_are_one_line_with_the_right_exit_code() {
    let dir = scratch();
    let missing = dir.join("missing.db");
    for cmd in [
        &["find"][..],
        &["explore"],
        &["show", "1"],
        &["export"],
        &["info"],
        &["sql", "SELECT count(*) FROM games"],
    ] {
        pgnindex()
            .args(cmd)
            .args(["--db", arg(&missing)])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("no such database"))
            .stderr(predicate::function(|s: &str| s.lines().count() == 1));
        assert!(!missing.exists(), "{cmd:?} created the database");
    }
    let text =
        dir.write("text.db", "not a database, just some text that is long enough to be read");
    pgnindex().args(["info", "--db", arg(&text)]).assert().code(2);
    // The default path comes from $PGNINDEX_DB.
    pgnindex()
        .args(["info"])
        .env("PGNINDEX_DB", &missing)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.db"));
    for id in ["999999", "0", "4294967296", "9223372036854775807"] {
        pgnindex()
            .args(["show", id, "--db", db()])
            .assert()
            .code(1)
            .stderr(format!("pgnindex: error: no game with id {id}\n"));
    }
    pgnindex()
        .args(["find", "--fen", "not a fen", "--db", db()])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with("pgnindex: error: --fen: invalid FEN"));
    pgnindex()
        .args(["find", "--moves", "1. e4 e5 2. Ke3", "--db", db()])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--moves: 2. Ke3: illegal move: "));
    pgnindex().args(["find", "--eco", "Z1", "--db", db()]).assert().code(1);
    pgnindex().args(["find", "--fen", "x", "--moves", "e4", "--db", db()]).assert().code(2);
    let out = dir.join("no/such/dir/out.pgn");
    pgnindex().args(["export", "-o", arg(&out), "--db", db()]).assert().code(2);
}

#[test]
fn every_query_command_has_help_with_an_example() {
    for cmd in ["find", "explore", "show", "export", "info", "sql"] {
        pgnindex()
            .args([cmd, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Example"))
            .stdout(predicate::str::contains("pgnindex ".to_string() + cmd));
    }
}

/// A game of `moves` (SAN, numbered here) that ends `*`.
fn pgn_game(n: usize, moves: &[&str]) -> String {
    let mut text = format!("[Event \"long {n}\"]\n[Result \"*\"]\n\n");
    for (i, san) in moves.iter().enumerate() {
        if i % 2 == 0 {
            text += &format!("{}. ", i / 2 + 1);
        }
        text += san;
        text.push(' ');
    }
    text + "*\n\n"
}

#[test]
fn hits_from_ply_512_on_are_found_in_game_order() {
    // The knights go out and back: every 4 plies the position repeats.
    let shuffle = |times: usize| -> Vec<&str> { ["Nf3", "Nf6", "Ng1", "Ng8"].repeat(times) };
    let after_e4 = |mut moves: Vec<&'static str>| {
        moves.push("e4");
        moves
    };
    let games = [
        // Reaches the position after 1. e4 at ply 521 only.
        after_e4(shuffle(130)),
        vec!["e4"],
        after_e4(shuffle(64)),
        // Reaches it at ply 1, then every 4 plies up to 561.
        [vec!["e4"], ["Nf6", "Nf3", "Ng8", "Ng1"].repeat(140)].concat(),
    ];
    let dir = scratch();
    let (input, db) = (dir.join("long.pgn"), dir.join("long.db"));
    let text: String = games.iter().enumerate().map(|(i, m)| pgn_game(i + 1, m)).collect();
    std::fs::write(&input, text).unwrap();
    import(&db, &["--quiet", arg(&input)]).success();
    let hits = |page: &[&str]| -> Vec<(u32, u32)> {
        let args = [&["find", "--moves", "1. e4", "--format", "csv"], page].concat();
        let found = run_on(arg(&db), &args);
        let rows = found.lines().skip(1).map(|line| line.split(',').collect::<Vec<_>>());
        rows.map(|cells| (cells[0].parse().unwrap(), cells[8].parse().unwrap())).collect()
    };
    assert_eq!(hits(&[]), [(1, 521), (2, 1), (3, 257), (4, 1)]);
    assert_eq!(hits(&["--offset", "1", "--limit", "2"]), [(2, 1), (3, 257)]);
    assert_eq!(hits(&["--result", "*", "--offset", "3"]), [(4, 1)], "with a filter");
    assert_eq!(run_on(arg(&db), &["find", "--moves", "1. e4", "--count"]).trim(), "4");
    let plies = run_on(
        arg(&db),
        &["sql", "SELECT count(*), max(ply) FROM positions WHERE game_id = 4", "--format", "csv"],
    );
    assert_eq!(plies.lines().nth(1), Some("562,561"));
}

#[test]
fn sql_that_reads_no_table_runs_without_a_database() {
    let dir = scratch();
    let sql = |query: &str| pgnindex().current_dir(dir.path()).args(["sql", query]).assert();
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    // The start position's key, from the Polyglot book format's own table.
    sql(&format!("SELECT printf('%x', polyglot_key('{start}')) AS key"))
        .success()
        .stdout("key\n----------------\n463b96181691fc9c\n");
    sql(&format!("SELECT san_to_uci('{start}', 'Nf3') AS uci"))
        .success()
        .stdout("uci\n----\ng1f3\n");
    // Whatever needs the database says it is missing, and nothing is created.
    for query in [
        "SELECT count(*) FROM games",
        "SELECT count(*) FROM sqlite_master",
        "PRAGMA user_version",
        "SELECT fen_at(1, 0)",
        "CREATE TABLE t (a)",
    ] {
        sql(query).code(2).stderr(
            "pgnindex: error: pgnindex.db: no such database (create it with `pgnindex import`)\n",
        );
    }
    assert!(!dir.join("pgnindex.db").exists());
    pgnindex()
        .current_dir(dir.path())
        .args(["sql", "--write", "SELECT 1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no such database"));
}

#[test]
fn won_lost_and_drew_take_the_named_players_side() {
    // Tallied from python-chess's headers of the same games.
    let mut tally = [0u64; 3];
    for rel in ["otb/twic-01-232games.pgn"] {
        for rec in common::reference(&format!("games/{rel}")) {
            let name = |tag: &str| rec["headers"][tag].as_str().unwrap_or("").to_lowercase();
            let (white, black) =
                (name("White").contains("aronian"), name("Black").contains("aronian"));
            match rec["headers"]["Result"].as_str() {
                Some("1-0") if white => tally[0] += 1,
                Some("0-1") if black => tally[0] += 1,
                Some("0-1") if white => tally[1] += 1,
                Some("1-0") if black => tally[1] += 1,
                Some("1/2-1/2") if white || black => tally[2] += 1,
                _ => {}
            }
        }
    }
    assert!(tally.iter().all(|&n| n > 0), "the fixture has each outcome: {tally:?}");
    let dir = scratch();
    let db = dir.join("t.db");
    import(&db, &["--quiet", arg(&common::twic())]).success();
    let count = |flags: &[&str]| {
        let args = [&["find", "--player", "aronian", "--count"][..], flags].concat();
        run_on(arg(&db), &args).trim().parse::<u64>().unwrap()
    };
    assert_eq!([count(&["--won"]), count(&["--lost"]), count(&["--drew"])], tally);
    // --result stays White's view: Aronian's 1-0 games are his wins as
    // White and his losses as Black.
    assert_eq!(
        count(&["--result", "1-0"]),
        count(&["--result", "1-0", "--won"]) + count(&["--result", "1-0", "--lost"])
    );
    pgnindex().args(["find", "--won", "--db", arg(&db)]).assert().code(1).stderr(
        "pgnindex: error: --won needs --player NAME: it is the result from that player's side\n",
    );
}

#[test]
fn info_numbers_the_imports_from_standard_input() {
    let dir = scratch();
    let db = dir.join("s.db");
    for game in ["1. e4 e5 *", "1. d4 d5 *"] {
        assert_cmd::Command::from_std(common::import_command(&db, &["--quiet", "-"]))
            .write_stdin(format!("[Event \"x\"]\n\n{game}\n"))
            .assert()
            .success();
    }
    let text = run_on(arg(&db), &["info"]);
    assert!(text.contains("  standard input #1: 1 game, 0 duplicates, 0 errors"), "{text}");
    assert!(text.contains("  standard input #2: 1 game, "), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&run_on(arg(&db), &["info", "--format", "json"])).unwrap();
    let names: Vec<&str> =
        json["sources"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["standard input #1", "standard input #2"]);
}
