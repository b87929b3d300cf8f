//! The few-valued text columns of `games` stored as `game_texts` ids
//! (schema 16): the `games` view reads as the table did, writes through it
//! work, and a schema-15 database is read by the queries, then upgraded by
//! the next import with every view and the export unchanged.

use std::path::Path;

use crate::common;

use common::{arg, count, games_dir, import, integrity, open, run, scratch, text_rows};
use similar_asserts::assert_eq;

/// Every `games` row, every column, as text.
const GAMES: &str = "SELECT * FROM games ORDER BY id";

/// The tag pairs of every game, in order.
const TAGS: &str = "SELECT * FROM tags ORDER BY game_id, ord";

/// The clocks, times, evaluations and comments of every ply.
const PLIES: &str = "SELECT game_id, ply, san, clock, emt, eval, mate, nags, comment FROM plies \
    ORDER BY game_id, ply";

/// The query commands whose answers a schema-15 database and a new one must
/// share (`info` without the lines about the file).
fn answers(db: &Path) -> Vec<String> {
    let queries: &[&[&str]] = &[
        &["find", "--event", "live chess", "--count"],
        &["find", "--event", "Cup", "--result", "1-0", "--count"],
        &["find", "--opening", "sicilian", "--count"],
        &["find", "--speed", "bullet", "--count"],
        &["find", "--eco", "B2-C4", "--count"],
        &["find", "--event", "rated", "--speed", "blitz", "--limit", "3", "--format", "csv"],
        &["find", "--fen", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "--count"],
        &["find", "--moves", "1. e4 c5", "--event", "live", "--count"],
        &["explore", "--moves", "1. d4", "--event", "tcec"],
        &["export", "--event", "Cup"],
        &["show", "7"],
    ];
    let mut out: Vec<String> = queries
        .iter()
        .map(|q| {
            let r = run([&q[..], &["--db", arg(db)]].concat()).success();
            format!("{q:?}\n{}", r.stdout)
        })
        .collect();
    let info = run(["info", "--format", "json", "--db", arg(db)]).success().stdout;
    let mut info: serde_json::Value = serde_json::from_str(&info).unwrap();
    for field in ["path", "file_size", "schema_version", "sources", "index", "positions"] {
        info.as_object_mut().unwrap().remove(field);
    }
    out.push(info.to_string());
    out
}

#[test]
fn a_schema_15_database_is_read_then_upgraded_with_the_same_views_and_export() {
    // The fixture games as schema 15 stored them: its migrations applied to
    // an empty file, and a fresh import's rows copied in (the `games` view
    // reads as schema 15's table).
    let dir = scratch();
    let fresh = dir.join("fresh.db");
    let plies_dir = common::fixture("plies");
    import(&fresh, &["--quiet", "--keep-duplicates", arg(&games_dir()), arg(&plies_dir)]).success();
    // As a pgnindex of schema 17 stored them.
    common::notes_as_schema_17(&open(&fresh));
    let db = dir.join("v15.db");
    let conn = open(&db);
    common::migrate_to(&conn, 15);
    conn.execute("ATTACH ?1 AS fresh", [arg(&fresh)]).unwrap();
    conn.execute_batch(
        "INSERT INTO sources SELECT * FROM fresh.sources;
         INSERT INTO games SELECT * FROM fresh.games;
         INSERT INTO ply_data SELECT * FROM fresh.ply_data;
         INSERT INTO tag_names SELECT * FROM fresh.tag_names;
         INSERT INTO game_tags SELECT * FROM fresh.game_tags;
         INSERT INTO game_material SELECT * FROM fresh.game_material;
         INSERT INTO import_errors SELECT * FROM fresh.import_errors;
         INSERT INTO position_segments SELECT * FROM fresh.position_segments;
         DETACH fresh;",
    )
    .unwrap();
    // The position segments, table by table, and their view.
    let segments: Vec<String> =
        common::column(&conn, "SELECT name FROM position_segments ORDER BY id");
    conn.execute("ATTACH ?1 AS fresh", [arg(&fresh)]).unwrap();
    for name in &segments {
        let create: String = conn
            .query_row("SELECT sql FROM fresh.sqlite_master WHERE name = ?1", [name], |r| r.get(0))
            .unwrap();
        conn.execute_batch(&format!("{create}; INSERT INTO {name} SELECT * FROM fresh.{name};"))
            .unwrap();
    }
    let view: String = conn
        .query_row("SELECT sql FROM fresh.sqlite_master WHERE name = 'positions'", [], |r| r.get(0))
        .unwrap();
    conn.execute_batch(&format!("DETACH fresh; DROP VIEW positions; {view};")).unwrap();
    assert_eq!(count(&conn, "PRAGMA user_version"), 15);
    assert_eq!(count(&conn, "SELECT count(*) FROM sqlite_master WHERE name = 'game_rows'"), 0);
    drop(conn);

    let fresh_conn = open(&fresh);
    let (games, tags, plies) = (
        text_rows(&fresh_conn, GAMES),
        text_rows(&fresh_conn, TAGS),
        text_rows(&fresh_conn, PLIES),
    );
    drop(fresh_conn);
    assert!(games.len() > 1000 && tags.len() > 2000 && plies.len() > 50_000);
    let conn = open(&db);
    assert_eq!(text_rows(&conn, GAMES), games, "the view reads as schema 15's table");
    assert_eq!(text_rows(&conn, TAGS), tags);
    assert_eq!(text_rows(&conn, PLIES), plies);
    drop(conn);
    // Every query reads the old database, and answers as on the new one.
    let answers_15 = answers(&db);
    assert_eq!(answers_15, answers(&fresh));
    let exported = |db: &Path| run(["export", "--db", arg(db)]).success().stdout;
    let export_15 = exported(&db);
    assert_eq!(export_15, exported(&fresh));

    // The next import upgrades it: a new event and a known one.
    let pgn = dir.write(
        "new.pgn",
        "[Event \"A new event\"]\n[TimeControl \"600\"]\n\n1. e4 e5 *\n\n\
         [Event \"Live Chess\"]\n[Termination \"Normal\"]\n\n1. d4 d5 *\n",
    );
    import(&db, &["--quiet", arg(&pgn)]).success();
    let conn = open(&db);
    assert_eq!(count(&conn, "PRAGMA user_version"), pgnindex::db::SCHEMA_VERSION);
    let old = games.len();
    let mut after = text_rows(&conn, GAMES);
    assert_eq!(after.len(), old + 2);
    after.truncate(old);
    assert_eq!(after, games, "the upgrade keeps every value");
    type Texts = (String, Option<String>, Option<String>, Option<String>);
    let new: Vec<Texts> = common::rows(
        &conn,
        &format!("SELECT event, time_control, termination, speed FROM games WHERE id > {old}"),
    );
    let text = |s: &str| Some(s.to_string());
    assert_eq!(
        new,
        [
            ("A new event".to_string(), text("600"), None, text("rapid")),
            ("Live Chess".to_string(), None, text("Normal"), None)
        ]
    );
    assert_eq!(text_rows(&conn, TAGS), tags);
    assert_eq!(text_rows(&conn, PLIES)[..plies.len()], plies[..]);
    // Each value stored once, the most used with the smallest id.
    let distinct = "SELECT count(DISTINCT v) FROM (SELECT event AS v FROM games \
        UNION ALL SELECT opening FROM games UNION ALL SELECT time_control FROM games \
        UNION ALL SELECT termination FROM games UNION ALL SELECT speed FROM games \
        UNION ALL SELECT opening_eco FROM games UNION ALL SELECT opening_name FROM games)";
    let seven = distinct.replacen("SELECT count(DISTINCT v) FROM", "SELECT v FROM", 1);
    assert_eq!(
        count(&conn, &format!("SELECT count(*) FROM game_texts WHERE text IN ({seven})")),
        count(&conn, distinct)
    );
    // The other texts are names that games hold by id.
    let names = "SELECT site FROM game_rows WHERE typeof(site) = 'integer' \
        UNION SELECT white FROM game_rows WHERE typeof(white) = 'integer' \
        UNION SELECT black FROM game_rows WHERE typeof(black) = 'integer'";
    let unused = format!(
        "SELECT count(*) FROM game_texts WHERE text NOT IN ({seven}) AND id NOT IN ({names})"
    );
    assert_eq!(count(&conn, &unused), 0);
    assert_eq!(count(&conn, "SELECT text = 'Live Chess' FROM game_texts WHERE id = 1"), 1);
    assert_eq!(count(&conn, "SELECT count(*) FROM sqlite_master WHERE tbl_name = 'games'"), 4);
    assert_eq!(integrity(&db), "ok");
    assert_eq!(count(&conn, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    drop(conn);
    let export_16 = exported(&db);
    assert!(export_16.len() > export_15.len());
    assert_eq!(export_16[..export_15.len()], export_15);
    // The old games answer as before (the new ones are no Cup, Sicilian…).
    run([
        "sql",
        "--write",
        "--db",
        arg(&db),
        "DELETE FROM games WHERE id > (SELECT max(id) - 2 FROM games)",
    ])
    .success();
    let mut upgraded = answers(&db);
    let mut expected = answers_15;
    // `info` counts a deleted game's events no more, but its id is known.
    let (info, info_15) = (upgraded.pop().unwrap(), expected.pop().unwrap());
    assert_eq!(upgraded, expected);
    let deleted = |text: &str| {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v.as_object_mut().unwrap().remove("deleted_games");
        v
    };
    assert_eq!(deleted(&info), deleted(&info_15));
}

#[test]
fn writes_through_the_view_reach_the_table_and_the_dictionary() {
    let dir = scratch();
    let db = dir.join("t.db");
    import(&db, &["--quiet", arg(&common::fixture("pgn/games/chesscom"))]).success();
    let sql = |statement: &str| run(["sql", "--write", "--db", arg(&db), statement]);
    let conn = open(&db);
    let texts = count(&conn, "SELECT count(*) FROM game_texts");
    let games = count(&conn, "SELECT count(*) FROM games");
    drop(conn);
    // The guide's and `sql --help`'s examples.
    sql("UPDATE games SET event = 'Casual' WHERE id <= 3").success();
    sql("UPDATE games SET termination = NULL, site = 'x' WHERE id = 4").success();
    sql("INSERT INTO games (event, opening, ply_count, moves, dedupe_key) \
         VALUES ('Casual', 'Mine', 1, 'e4', 7)")
    .success();
    sql("INSERT OR ROLLBACK INTO games (id, event, ply_count, moves, dedupe_key) \
         VALUES (1000, 'Live Chess', 0, '', 8)")
    .success();
    sql("DELETE FROM games WHERE ply_count < 10").success();
    let conn = open(&db);
    assert_eq!(count(&conn, "SELECT count(*) FROM games WHERE event = 'Casual'"), 3);
    assert_eq!(count(&conn, "SELECT count(*) FROM game_texts"), texts + 2, "Casual, Mine");
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM games WHERE id = 4 AND site = 'x' AND termination IS NULL"
        ),
        1
    );
    assert_eq!(count(&conn, "SELECT count(*) FROM game_rows WHERE id = 1000"), 0, "deleted");
    let kept = count(&conn, "SELECT count(*) FROM games");
    assert!(kept < games, "{kept} of {games}");
    // The triggers of the table ran: every deleted id is listed.
    assert_eq!(count(&conn, "SELECT count(*) FROM deleted_games"), games + 2 - kept);
    assert_eq!(
        count(&conn, "SELECT count(*) FROM game_tags WHERE game_id NOT IN (SELECT id FROM games)"),
        0
    );
    drop(conn);
    // A write that breaks a rule of the table fails with SQLite's message.
    let r = sql("INSERT INTO games (event, moves, dedupe_key) VALUES ('x', '', 0)");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("NOT NULL constraint failed: game_rows.ply_count"), "{}", r.stderr);
    assert_eq!(r.stderr.trim_end().lines().count(), 1, "{}", r.stderr);
}
