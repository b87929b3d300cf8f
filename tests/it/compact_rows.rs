//! A game's row in fewer bytes (schema 19): `final_fen` packed, `date`
//! written back from its parts, names as text or `game_texts` ids. The
//! `games` view reads the same values as before, the migration of a
//! schema 18 database gives what the import gives, and the filters find
//! the same games either way.

use crate::common;

use common::{arg, count, games_dir, import, open, run, scratch, text_rows};
use similar_asserts::assert_eq;

/// Every value of every game, as the view shows it.
const GAMES: &str = "SELECT * FROM games ORDER BY id";

#[test]
fn a_schema_18_database_reads_the_same_games_once_upgraded() {
    let dir = scratch();
    let fresh = dir.join("fresh.db");
    import(&fresh, &["--quiet", "--keep-duplicates", arg(&games_dir())]).success();
    let conn = open(&fresh);
    let games = text_rows(&conn, GAMES);
    assert!(games.len() > 1000);
    // Names met in more than one game are ids, the others text; most
    // dates are NULL; every final position is packed.
    let typed = |sql: &str| count(&conn, sql);
    assert!(typed("SELECT count(*) FROM game_rows WHERE typeof(white) = 'integer'") > 500);
    assert!(typed("SELECT count(*) FROM game_rows WHERE typeof(site) = 'text'") > 100);
    assert!(typed("SELECT count(*) FROM game_rows WHERE date IS NULL AND year IS NOT NULL") > 500);
    assert_eq!(typed("SELECT count(*) FROM game_rows WHERE final_fen GLOB '*/*/*/*/*/*/*/*'"), 0);
    drop(conn);

    // The same games as schema 18 stored them, through its view.
    let db = dir.join("v18.db");
    let conn = open(&db);
    conn.pragma_update(None, "foreign_keys", false).unwrap();
    common::migrate_to(&conn, 18);
    conn.execute("ATTACH ?1 AS fresh", [arg(&fresh)]).unwrap();
    conn.execute_batch(
        "INSERT INTO sources SELECT * FROM fresh.sources;
         INSERT INTO main.games SELECT * FROM fresh.games;
         INSERT INTO ply_data SELECT game_id, clocks, emts, evals, nags, comments, notes_form,
             depths, seldepths, nodes, notes_layout, tails FROM fresh.ply_data;
         INSERT INTO ply_pvs SELECT id, pv FROM fresh.ply_pvs;
         DETACH fresh;",
    )
    .unwrap();
    assert_eq!(text_rows(&conn, GAMES), games);
    assert_eq!(count(&conn, "SELECT count(*) FROM game_rows WHERE typeof(white) = 'integer'"), 0);
    drop(conn);

    // The next import upgrades it: the same values, stored as the import
    // stores them.
    let pgn = dir.write(
        "new.pgn",
        "[Event \"New\"]\n[Site \"Oslo\"]\n[Date \"2024.03.09\"]\n[White \"Nobody, A.\"]\n\
         [Black \"Someone, B.\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n",
    );
    import(&db, &["--quiet", arg(&pgn)]).success();
    let conn = open(&db);
    assert_eq!(count(&conn, "PRAGMA user_version"), pgnindex::db::SCHEMA_VERSION);
    assert_eq!(
        count(&conn, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check <> 'ok'"),
        0
    );
    let mut upgraded = text_rows(&conn, GAMES);
    upgraded.pop();
    assert_eq!(upgraded, games);
    let new: (String, String, String) = conn
        .query_row("SELECT date, white, site FROM games ORDER BY id DESC LIMIT 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(new, ("2024.03.09".into(), "Nobody, A.".into(), "Oslo".into()));
    let stored = |sql: &str| text_rows(&conn, sql);
    assert_eq!(
        stored("SELECT final_fen FROM game_rows WHERE id < 50 ORDER BY id"),
        text_rows(&open(&fresh), "SELECT final_fen FROM game_rows WHERE id < 50 ORDER BY id"),
        "the migration packs as the import does"
    );
    assert!(count(&conn, "SELECT count(*) FROM game_rows WHERE typeof(black) = 'integer'") > 500);
    assert!(count(&conn, "SELECT count(*) FROM game_rows WHERE date IS NULL") > 500);
    drop(conn);

    // The filters find the same games in both, and as plain SQL on the view.
    let ids = |db: &std::path::Path, filters: &[&str]| {
        let mut args = vec!["find", "--db", arg(db), "--format", "csv", "--limit", "0"];
        args.extend_from_slice(filters);
        run(args).success().stdout
    };
    let view = open(&fresh);
    for (filters, sql) in [
        (&["--player", "Carlsen"][..], "white LIKE '%Carlsen%' OR black LIKE '%Carlsen%'"),
        (&["--white", "donkey"][..], "white LIKE '%donkey%'"),
        (&["--black", "houdini"][..], "black LIKE '%houdini%'"),
        (&["--site", "chess.com"][..], "site LIKE '%chess.com%'"),
        (&["--since", "2017", "--until", "2021.06"][..], "date GLOB '[0-9][0-9][0-9][0-9]*' AND replace(date, '?', '0') >= '2017' AND replace(date, '?', '0') <= '2021.06~'"),
        (&["--player", "Carlsen", "--won"][..], "(white LIKE '%Carlsen%' AND result = '1-0') OR (black LIKE '%Carlsen%' AND result = '0-1')"),
    ] {
        let expected = count(&view, &format!("SELECT count(*) FROM games WHERE {sql}"));
        assert!(expected > 0, "{filters:?} finds no game");
        let found = ids(&fresh, filters);
        assert_eq!(found.lines().count() as i64 - 1, expected, "{filters:?}");
        // The upgraded database has the one game more, found by none of these.
        assert_eq!(ids(&db, filters), found, "{filters:?} upgraded");
    }
}
