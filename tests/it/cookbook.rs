//! The SQL cookbook of `docs/guide.md`, run on the bundled sample.
//!
//! Every ```sql block under the "## SQL cookbook" heading is one query,
//! named by the `### ` heading above it. The sample (`fixtures/pgn/games`)
//! is imported by the built binary into a throw-away directory, and each
//! query runs on a plain rusqlite connection, read-only and without
//! pgnindex's SQL functions: what the `sqlite3` shell would do. Each must
//! return rows, and several answers are checked against figures computed
//! here another way (a scan of the fixture PGN files, the python-chess
//! ground truth, other tables, `pgnindex explore`).

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags};

use crate::common;

use common::tag_sections;

/// The number of queries the guide promises.
const QUERIES: usize = 15;

/// The position after 1. e4 c5, which queries 3 and 9 look up.
const SICILIAN: &str = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `(heading, sql)` for every ```sql block of the cookbook section.
fn cookbook(guide: &str) -> Vec<(String, String)> {
    let start = guide.find("\n## SQL cookbook").expect("the guide has an SQL cookbook section");
    let section = &guide[start + 1..];
    let section = match section[3..].find("\n## ") {
        Some(end) => &section[..end + 3],
        None => section,
    };
    let mut queries = Vec::new();
    let mut heading = None;
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        if let Some(title) = line.strip_prefix("### ") {
            heading = Some(title.trim().to_string());
        } else if line.trim_end() == "```sql" {
            let mut sql = String::new();
            for line in lines.by_ref() {
                if line.trim_end() == "```" {
                    break;
                }
                sql.push_str(line);
                sql.push('\n');
            }
            let title = heading.clone().expect("a cookbook query has a ### heading above it");
            queries.push((title, sql));
        }
    }
    queries
}

fn pgnindex(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pgnindex"))
        .args(args)
        .env_remove("PGNINDEX_DB")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pgnindex {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The rows of `sql` (one statement) on `conn`.
fn rows(conn: &Connection, sql: &str) -> Vec<Vec<Value>> {
    let mut st = conn.prepare(sql).unwrap_or_else(|e| panic!("{e}:\n{sql}"));
    let width = st.column_count();
    let found = st
        .query_map([], |r| (0..width).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap()
        .collect::<Result<Vec<Vec<Value>>, _>>();
    found.unwrap_or_else(|e| panic!("{e}:\n{sql}"))
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Integer(i) => *i,
        other => panic!("not an integer: {other:?}"),
    }
}

fn real(v: &Value) -> f64 {
    match v {
        Value::Integer(i) => *i as f64,
        Value::Real(r) => *r,
        other => panic!("not a number: {other:?}"),
    }
}

fn text(v: &Value) -> &str {
    match v {
        Value::Text(t) => t,
        other => panic!("not text: {other:?}"),
    }
}

/// The PGN files of the sample, in path order.
fn sample_files() -> Vec<PathBuf> {
    let files = common::files_under(&root().join("fixtures/pgn/games"), |_| true);
    assert_eq!(files.len(), 7);
    files
}

/// The most plies of any sample game, from the python-chess ground truth.
fn longest_in_groundtruth() -> i64 {
    let games = root().join("fixtures/pgn/games");
    let mut longest = 0;
    for file in sample_files() {
        let rel = file.strip_prefix(&games).unwrap();
        let gz =
            root().join("fixtures/groundtruth/games").join(format!("{}.jsonl.gz", rel.display()));
        let mut jsonl = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap())
            .read_to_string(&mut jsonl)
            .unwrap();
        for line in jsonl.lines() {
            let game: serde_json::Value = serde_json::from_str(line).unwrap();
            longest = longest.max(game["plies"].as_i64().unwrap());
        }
    }
    longest
}

#[test]
fn cookbook_block_extraction() {
    let guide = "# g\n\n## SQL cookbook\n\n```sh\nnot sql\n```\n\n### 1. One\n\n```sql\nSELECT 1;\n```\n\n\
                 ### 2. Two\n\ntext\n\n```sql\nSELECT 2\nFROM t;\n```\n\n## Next\n\n### 3. Out\n\n```sql\nSELECT 3;\n```\n";
    assert_eq!(
        cookbook(guide),
        [
            ("1. One".to_string(), "SELECT 1;\n".to_string()),
            ("2. Two".to_string(), "SELECT 2\nFROM t;\n".to_string())
        ]
    );
}

#[test]
fn cookbook_queries_answer_on_the_sample() {
    let guide = std::fs::read_to_string(root().join("docs/guide.md")).unwrap();
    let queries = cookbook(&guide);
    let titles: Vec<&str> = queries.iter().map(|q| q.0.as_str()).collect();
    assert_eq!(queries.len(), QUERIES, "the cookbook has {QUERIES} queries: {titles:?}");

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sample.db");
    let db_arg = db.to_str().unwrap();
    let games_dir = root().join("fixtures/pgn/games");
    let out = Command::new(env!("CARGO_BIN_EXE_pgnindex"))
        .args(["import", "--quiet", "--db", db_arg, games_dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // A plain connection: no pgnindex function is registered, as in the
    // sqlite3 shell.
    let conn = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut answers: BTreeMap<String, Vec<Vec<Value>>> = BTreeMap::new();
    // The queries of the `plies` view or `ply_data` run on games with
    // clocks and evaluations, which the sample lacks.
    let clocks_db = dir.path().join("clocks.db");
    let plies_dir = root().join("fixtures/plies");
    let out = Command::new(env!("CARGO_BIN_EXE_pgnindex"))
        .args(["import", "--quiet", "--db", clocks_db.to_str().unwrap()])
        .args(CLOCKED.map(|f| plies_dir.join(f)))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let clocks_conn =
        Connection::open_with_flags(&clocks_db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    for (title, sql) in &queries {
        let reads_plies =
            ["FROM plies", "JOIN plies", "FROM ply_data"].iter().any(|t| sql.contains(t));
        let on = if reads_plies { &clocks_conn } else { &conn };
        let found = rows(on, sql);
        assert!(!found.is_empty(), "cookbook query \"{title}\" returned no rows");
        answers.insert(title.clone(), found);
    }
    let answer = |prefix: &str| -> &Vec<Vec<Value>> {
        answers
            .iter()
            .find(|(title, _)| title.starts_with(prefix))
            .map(|(_, rows)| rows)
            .unwrap_or_else(|| panic!("no cookbook query titled \"{prefix}…\": {titles:?}"))
    };
    let sql_of =
        |prefix: &str| -> &str { &queries.iter().find(|q| q.0.starts_with(prefix)).unwrap().1 };

    // The fixture files, scanned line by line.
    let sections: Vec<(PathBuf, Vec<HashMap<String, String>>)> =
        sample_files().into_iter().map(|f| (f.clone(), tag_sections(&f))).collect();
    let all_games: Vec<&HashMap<String, String>> =
        sections.iter().flat_map(|(_, games)| games.iter()).collect();
    let stored = int(&rows(&conn, "SELECT count(*) FROM games")[0][0]);
    assert_eq!(stored, all_games.len() as i64, "every sample game is stored");

    // 1. The most played ECO code and its count, from the ECO tags.
    let mut ecos: HashMap<&str, i64> = HashMap::new();
    for game in &all_games {
        if let Some(eco) = game.get("ECO") {
            *ecos.entry(eco.as_str()).or_default() += 1;
        }
    }
    let (top_eco, top_count) =
        ecos.iter().max_by_key(|(eco, n)| (**n, std::cmp::Reverse(**eco))).unwrap();
    let openings = answer("1. ");
    assert_eq!(text(&openings[0][0]), *top_eco);
    assert_eq!(int(&openings[0][1]), *top_count);
    assert!(openings.len() == 10 && openings.windows(2).all(|w| int(&w[0][1]) >= int(&w[1][1])));

    // 2. The player's games and points per year and colour, from the
    // player's tags in the files.
    let mut expected: BTreeMap<(String, String), (i64, f64)> = BTreeMap::new();
    for game in &all_games {
        for (colour, tag, win) in [("white", "White", "1-0"), ("black", "Black", "0-1")] {
            let player = game.get(tag).map(String::as_str).unwrap_or("");
            if !player.eq_ignore_ascii_case("schmitz874") {
                continue;
            }
            let points = match game.get("Result").map(String::as_str) {
                Some(r) if r == win => 1.0,
                Some("1/2-1/2") => 0.5,
                Some("1-0" | "0-1") => 0.0,
                _ => continue,
            };
            let year = game.get("Date").map_or("", |d| &d[..4]).to_string();
            let entry = expected.entry((year, colour.to_string())).or_default();
            entry.0 += 1;
            entry.1 += points;
        }
    }
    let scores: BTreeMap<(String, String), (i64, f64)> = answer("2. ")
        .iter()
        .map(|r| ((text(&r[0]).to_string(), text(&r[1]).to_string()), (int(&r[2]), real(&r[3]))))
        .collect();
    assert_eq!(scores, expected);

    // 3. The literal key is the position's key, and the games found are
    // those whose stored mainline starts 1. e4 c5 (no transposition in
    // the sample), each first there at ply 2.
    let key_csv = pgnindex(&[
        "sql",
        "--db",
        db_arg,
        "--format",
        "csv",
        &format!("SELECT polyglot_key('{SICILIAN}')"),
    ]);
    let key = key_csv.lines().nth(1).unwrap().trim().to_string();
    assert!(sql_of("3. ").contains(&format!("p.hash = {key}")), "query 3 looks up {key}");
    assert!(sql_of("9. ").contains(&format!("hash = {key}")), "query 9 looks up {key}");
    assert!(guide.contains(&format!("# {key}: the position after 1. e4 c5")));
    let through = answer("3. ");
    let expected_ids: Vec<i64> = rows(
        &conn,
        "SELECT id FROM games WHERE moves = 'e4 c5' OR moves LIKE 'e4 c5 %' ORDER BY id LIMIT 20",
    )
    .iter()
    .map(|r| int(&r[0]))
    .collect();
    assert_eq!(through.iter().map(|r| int(&r[0])).collect::<Vec<_>>(), expected_ids);
    assert!(through.iter().all(|r| int(&r[6]) == 2));

    // 4. The longest game has as many plies as the longest in the
    // python-chess ground truth.
    let longest = answer("4. ");
    assert_eq!(int(&longest[0][5]), longest_in_groundtruth());
    assert_eq!(int(&longest[0][6]), (int(&longest[0][5]) + 1) / 2);

    // 5. One row per input; problems agree with import_errors counted per
    // source, and bad games with sources.errors. The sample has none, so
    // the query also runs on a copy with a file of known problems.
    check_problems(&conn, answer("5. "), sections.len());
    let bad_db = dir.path().join("bad.db");
    std::fs::copy(&db, &bad_db).unwrap();
    let bad_pgn = dir.path().join("bad.pgn");
    std::fs::write(
        &bad_pgn,
        "[Event \"v\"]\n[Variant \"Atomic\"]\n\n1. e4 e5 *\n\n\
         [Event \"a\"]\n[White \"A\"]\n\n1. e4 e5 2. Ke3 *\n\n\
         [Event \"b\"]\n[White \"B\"]\n\n1. d4 d5 *\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pgnindex"))
        .args(["import", "--quiet", "--db", bad_db.to_str().unwrap(), bad_pgn.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bad_conn = Connection::open_with_flags(&bad_db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let problems = rows(&bad_conn, sql_of("5. "));
    check_problems(&bad_conn, &problems, sections.len() + 1);
    let first = &problems[0];
    assert!(text(&first[0]).ends_with("bad.pgn"), "the file with problems comes first");
    assert_eq!(
        (int(&first[1]), int(&first[2]), int(&first[3]), int(&first[4])),
        (2, 2, 1, 1),
        "two games stored, one of them with an error, one variant skipped"
    );

    // 6. At ply 0, the start position, reached by every game without a FEN
    // tag.
    let by_ply = answer("6. ");
    assert_eq!(by_ply.len(), 11, "plies 0 to 10");
    assert_eq!(int(&by_ply[0][0]), 0);
    assert_eq!(int(&by_ply[0][1]), 0x463b_9618_1691_fc9c, "the start position's Polyglot key");
    let without_fen = all_games.iter().filter(|g| !g.contains_key("FEN")).count() as i64;
    assert_eq!(int(&by_ply[0][2]), without_fen);
    assert!(by_ply.iter().enumerate().all(|(i, r)| int(&r[0]) == i as i64));

    // 7. The most common other tag: in as many games as the files say.
    let tags = answer("7. ");
    let name = text(&tags[0][0]);
    let in_files = all_games.iter().filter(|g| g.contains_key(name)).count() as i64;
    assert_eq!(int(&tags[0][1]), in_files, "games with the tag {name}");

    // 8. The bands cover every rated game with a result, once.
    let bands = answer("8. ");
    let covered: i64 = bands.iter().map(|r| int(&r[1])).sum();
    let rated = rows(
        &conn,
        "SELECT count(*) FROM games WHERE white_elo > 0 AND black_elo > 0 \
         AND result IN ('1-0', '0-1', '1/2-1/2')",
    );
    assert_eq!(covered, int(&rated[0][0]));
    assert!(bands.iter().all(|r| int(&r[2]) + int(&r[3]) + int(&r[4]) == int(&r[1])));

    // 9. The decoded moves and their games are those of `explore`, whose
    // decoding is pgnindex's own (a game reaches this position once).
    let explored = pgnindex(&["explore", "--db", db_arg, "--moves", "1. e4 c5", "--format", "csv"]);
    let mut expected: Vec<(String, i64)> = explored
        .lines()
        .skip(1)
        .map(|l| {
            let fields: Vec<&str> = l.split(',').collect();
            (fields[1].to_string(), fields[2].parse().unwrap())
        })
        .collect();
    expected.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let decoded: Vec<(String, i64)> =
        answer("9. ").iter().map(|r| (text(&r[0]).to_string(), int(&r[1]))).collect();
    assert_eq!(decoded, expected);

    // 10. Decisive games per event, from the Result tags of the files.
    let decisive = answer("10. ");
    for row in decisive {
        let event = text(&row[0]);
        let games: Vec<_> = all_games
            .iter()
            .filter(|g| g.get("Event").map(String::as_str) == Some(event))
            .collect();
        let won = games
            .iter()
            .filter(|g| matches!(g.get("Result").map(String::as_str), Some("1-0" | "0-1")))
            .count();
        assert_eq!((int(&row[1]), int(&row[2])), (games.len() as i64, won as i64), "{event}");
        assert!(games.len() >= 20);
    }

    // 11. The latest dates first, as the files give them; without its
    // LIMIT, every game, the unknown dates (and, on the copy with games
    // without a Date tag, the missing ones) last.
    let latest = answer("11. ");
    let mut known: Vec<&str> = all_games
        .iter()
        .filter_map(|g| g.get("Date").map(String::as_str))
        .filter(|d| !d.starts_with('?'))
        .collect();
    // A partial date (`2020.??.??`) sorts as the start of its period.
    known.sort_by_key(|d| std::cmp::Reverse(d.replace('?', "0")));
    let dates: Vec<&str> = latest.iter().map(|r| text(&r[1])).collect();
    assert_eq!(dates, known[..latest.len()]);
    let whole = sql_of("11. ").replace("LIMIT 10;", ";");
    assert_ne!(whole, sql_of("11. "), "query 11 ends with LIMIT 10");
    for (conn, stored) in [(&conn, stored), (&bad_conn, stored + 2)] {
        let all = rows(conn, &whole);
        assert_eq!(all.len() as i64, stored);
        let unknown = |r: &Vec<Value>| match &r[1] {
            Value::Text(d) => d.starts_with('?'),
            _ => true,
        };
        let first_unknown = all.iter().position(unknown).unwrap();
        assert!(all[first_unknown..].iter().all(unknown), "unknown dates come last");
        assert!(first_unknown >= known.len());
    }

    // 12. Games and decisive games per year and speed, from the Date and
    // TimeControl tags of the files (the sample's controls are `S`, `S+I`
    // and `M/S:…`, all with a clock).
    let mut by_speed: BTreeMap<(i64, String), (i64, i64)> = BTreeMap::new();
    for game in &all_games {
        let Some(year) = game.get("Date").and_then(|d| d[..4].parse::<i64>().ok()) else {
            continue;
        };
        let Some(speed) = game.get("TimeControl").and_then(|tc| speed_of(tc)) else { continue };
        let entry = by_speed.entry((year, speed.to_string())).or_default();
        entry.0 += 1;
        entry.1 += i64::from(matches!(game.get("Result").map(String::as_str), Some("1-0" | "0-1")));
    }
    let speeds = answer("12. ");
    let found: BTreeMap<(i64, String), (i64, i64)> = speeds
        .iter()
        .map(|r| {
            let games = int(&r[2]);
            let decisive = (real(&r[3]) * games as f64 / 100.0).round() as i64;
            ((int(&r[0]), text(&r[1]).to_string()), (games, decisive))
        })
        .collect();
    assert_eq!(found, by_speed);
    assert!(by_speed.len() >= 5, "{by_speed:?}");

    // 14. Games and White's score per opening and rating band, from the
    // python-chess opening reference and the tags.
    let reference = std::fs::read_to_string(root().join("fixtures/openings/games.tsv")).unwrap();
    let mut names: HashMap<(String, usize), String> = HashMap::new();
    for line in reference.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if !f[4].is_empty() {
            names.insert((f[0].to_string(), f[1].parse().unwrap()), f[4].to_string());
        }
    }
    let mut bands: BTreeMap<(String, i64), (i64, f64)> = BTreeMap::new();
    let games_dir = root().join("fixtures/pgn/games");
    for (file, games) in &sections {
        let rel = file.strip_prefix(&games_dir).unwrap().to_str().unwrap().replace('\\', "/");
        for (i, game) in games.iter().enumerate() {
            let Some(name) = names.get(&(rel.clone(), i)) else { continue };
            let elo = |tag: &str| game.get(tag).and_then(|e| e.parse::<i64>().ok());
            let (Some(white), Some(black)) = (elo("WhiteElo"), elo("BlackElo")) else { continue };
            let points = match game.get("Result").map(String::as_str) {
                Some("1-0") => 1.0,
                Some("0-1") => 0.0,
                Some("1/2-1/2") => 0.5,
                _ => continue,
            };
            let entry = bands.entry((name.clone(), (white + black) / 400 * 200)).or_default();
            entry.0 += 1;
            entry.1 += points;
        }
    }
    bands.retain(|_, (games, _)| *games >= 5);
    let found: BTreeMap<(String, i64), (i64, f64)> = answer("14. ")
        .iter()
        .map(|r| ((text(&r[0]).to_string(), int(&r[1])), (int(&r[2]), real(&r[3]))))
        .collect();
    assert_eq!(found.len(), bands.len(), "{found:?}");
    for (key, (games, points)) in &bands {
        let (n, pct) = found[key];
        assert_eq!(n, *games, "{key:?}");
        assert!((pct - 100.0 * points / *games as f64).abs() < 0.051, "{key:?}: {pct}");
    }

    // 13 and 15, from the python-chess reference of fixtures/plies
    // (clocks and evaluations per ply) and the files' tags.
    let clocked = clocked_games();
    let mut blunders: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    let mut spent: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for game in &clocked {
        if !game.fen {
            for ply in 2..=game.clocks.len() {
                let (Some(now), Some(before), Some(clock)) =
                    (game.evals[ply - 1], game.evals[ply - 2], game.clocks[ply - 1])
                else {
                    continue;
                };
                let sign = if ply % 2 == 1 { 1.0 } else { -1.0 };
                let gain = sign * (now as f64 / 100.0 - before as f64 / 100.0);
                let bucket = if clock < 30.0 { "under 30 s" } else { "30 s or more" };
                let entry = blunders.entry(bucket).or_default();
                entry.0 += 1;
                entry.1 += i64::from(gain <= -2.0);
            }
        }
        let Some((speed, increment)) = game.speed else { continue };
        for ply in 3..=game.clocks.len() {
            if let (Some(before), Some(now)) = (game.clocks[ply - 3], game.clocks[ply - 1]) {
                spent.entry(speed).or_default().push(before - now + increment);
            }
        }
    }
    let found: BTreeMap<&str, (i64, i64)> =
        answer("13. ").iter().map(|r| (text(&r[0]), (int(&r[1]), int(&r[2])))).collect();
    assert_eq!(found, blunders);
    assert!(blunders.values().all(|(_, b)| *b > 0), "{blunders:?}");
    let found = answer("15. ");
    assert_eq!(found.len(), spent.len());
    for row in found {
        let seconds = &spent[text(&row[0])];
        assert_eq!(int(&row[1]), seconds.len() as i64, "{}", text(&row[0]));
        let avg = seconds.iter().sum::<f64>() / seconds.len() as f64;
        assert!((real(&row[2]) - avg).abs() < 0.0051, "{}: {avg}", text(&row[0]));
        let longest = seconds.iter().cloned().fold(f64::MIN, f64::max);
        assert!((real(&row[3]) - longest).abs() < 1e-9, "{}: {longest}", text(&row[0]));
    }
}

/// The files of `fixtures/plies` with clocks from lichess and chess.com.
const CLOCKED: [&str; 2] = ["lichess.pgn", "chesscom.pgn"];

/// A game of [`CLOCKED`] as python-chess reads it (`fixtures/plies/plies.tsv`)
/// with what its tags say.
struct ClockedGame {
    /// The game starts from a FEN tag.
    fen: bool,
    /// Lichess's speed class and the increment in seconds, `None` for a
    /// daily game.
    speed: Option<(&'static str, f64)>,
    /// Seconds on the clock after each ply.
    clocks: Vec<Option<f64>>,
    /// Centipawns from White's side after each ply (`None` for none or a mate).
    evals: Vec<Option<i64>>,
}

fn clocked_games() -> Vec<ClockedGame> {
    let dir = root().join("fixtures/plies");
    let reference = std::fs::read_to_string(dir.join("plies.tsv")).unwrap();
    let mut games = Vec::new();
    for file in CLOCKED {
        let tags = tag_sections(&dir.join(file));
        for (i, line) in
            reference.lines().filter(|l| l.starts_with(&format!("{file}\t"))).enumerate()
        {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f[1].parse::<usize>().unwrap(), i);
            let plies = f[2].split(' ').filter(|m| !m.is_empty()).count();
            let column = |text: &str| -> Vec<String> {
                let mut values: Vec<String> = text.split(',').map(str::to_string).collect();
                values.resize(plies, String::new());
                values
            };
            let control = tags[i].get("TimeControl").map(String::as_str).unwrap_or("-");
            let speed = if control.contains('/') {
                None
            } else {
                speed_of(control).map(|s| {
                    let increment =
                        control.split_once('+').map_or(0.0, |(_, i)| i.parse().unwrap());
                    (s, increment)
                })
            };
            games.push(ClockedGame {
                fen: tags[i].contains_key("FEN"),
                speed,
                clocks: column(f[3]).iter().map(|c| c.parse().ok()).collect(),
                evals: column(f[5]).iter().map(|e| e.parse().ok()).collect(),
            });
        }
    }
    assert_eq!(games.len(), 119);
    games
}

/// Lichess's speed class of a sample time control (its first period's
/// base and increment, in seconds), `None` without a clock.
fn speed_of(control: &str) -> Option<&'static str> {
    let period = control.split(':').next()?;
    let clock = period.rsplit('/').next()?;
    let (base, increment) = clock.split_once('+').unwrap_or((clock, "0"));
    let estimate = base.parse::<i64>().ok()? + 40 * increment.parse::<i64>().ok()?;
    Some(match estimate {
        e if e < 30 => "ultrabullet",
        e if e < 180 => "bullet",
        e if e < 480 => "blitz",
        e if e < 1500 => "rapid",
        _ => "classical",
    })
}

/// Query 5's answer on `conn`: one row per source, counts that agree with
/// `import_errors` and `sources.errors`.
fn check_problems(conn: &Connection, answer: &[Vec<Value>], sources: usize) {
    assert_eq!(answer.len(), sources, "one row per source");
    for row in answer {
        let path = text(&row[0]);
        let (errors, listed): (i64, i64) = conn
            .query_row(
                "SELECT s.errors, (SELECT count(*) FROM import_errors WHERE source_id = s.id) \
                 FROM sources AS s WHERE s.path = ?1",
                [path],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(int(&row[2]), listed, "{path}: problems");
        assert_eq!(int(&row[3]) + int(&row[4]), errors, "{path}: bad games");
        assert_eq!(int(&row[3]) + int(&row[4]) + int(&row[5]), listed, "{path}: by kind");
    }
}
