//! `games.moves` stored packed in `game_rows.packed_moves` (schema 17):
//! the import's packing (Rust) and the migration's (SQL) give the same
//! rows on real games, and plain SQLite, `pgnindex sql` and the views read
//! the same moves back.

use crate::common;

use common::{arg, count, games_dir, import, open, run, scratch, text_rows};
use similar_asserts::assert_eq;

/// Every game's moves, by id.
const MOVES: &str = "SELECT id, moves FROM games ORDER BY id";

#[test]
fn a_schema_16_database_is_packed_as_the_import_packs() {
    let dir = scratch();
    let fresh = dir.join("fresh.db");
    let plies_dir = common::fixture("plies");
    import(&fresh, &["--quiet", "--keep-duplicates", arg(&games_dir()), arg(&plies_dir)]).success();
    // As the import stores them.
    let packed = text_rows(&open(&fresh), "SELECT id, packed_moves FROM game_rows ORDER BY id");
    // As a pgnindex of schema 17 stored them.
    common::notes_as_schema_17(&open(&fresh));

    // The same games as schema 16 stored them, through its view.
    let db = dir.join("v16.db");
    let conn = open(&db);
    // As pgnindex writes (it keeps the references consistent itself).
    conn.pragma_update(None, "foreign_keys", false).unwrap();
    common::migrate_to(&conn, 16);
    conn.execute("ATTACH ?1 AS fresh", [arg(&fresh)]).unwrap();
    conn.execute_batch(
        "INSERT INTO sources SELECT * FROM fresh.sources;
         INSERT INTO main.games SELECT * FROM fresh.games;
         INSERT INTO ply_data SELECT * FROM fresh.ply_data;
         DETACH fresh;",
    )
    .unwrap();
    assert_eq!(
        count(&conn, "SELECT count(*) FROM pragma_table_info('game_rows') WHERE name = 'moves'"),
        1
    );
    drop(conn);

    let fresh_conn = open(&fresh);
    let moves = text_rows(&fresh_conn, MOVES);
    let plies = text_rows(&fresh_conn, "SELECT game_id, ply, san FROM plies ORDER BY game_id, ply");
    drop(fresh_conn);
    assert!(moves.len() > 1000 && plies.len() > 50_000);
    // Two bytes a ply: about half the bytes.
    let length = |rows: &[String]| rows.iter().map(String::len).sum::<usize>();
    assert!(length(&packed) * 10 < length(&moves) * 6, "{} of {}", length(&packed), length(&moves));

    // The next import upgrades it.
    let pgn = dir.write("new.pgn", "[Event \"New\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n");
    import(&db, &["--quiet", arg(&pgn)]).success();
    let conn = open(&db);
    assert_eq!(count(&conn, "PRAGMA user_version"), pgnindex::db::SCHEMA_VERSION);
    let mut upgraded = text_rows(&conn, "SELECT id, packed_moves FROM game_rows ORDER BY id");
    assert_eq!(upgraded.len(), packed.len() + 1);
    upgraded.truncate(packed.len());
    assert_eq!(upgraded, packed, "the migration packs as the import does");
    let mut read = text_rows(&conn, MOVES);
    read.pop();
    assert_eq!(read, moves);
    let new: String = conn
        .query_row("SELECT moves FROM games ORDER BY id DESC LIMIT 1", [], |r| r.get(0))
        .unwrap();
    assert_eq!(new, "e4 e5 Nf3 Nc6");
    drop(conn);

    // `pgnindex sql` unpacks with its own function: the same text.
    let csv = |db: &std::path::Path, sql: &str| {
        run(["sql", "--db", arg(db), "--format", "csv", sql]).success().stdout
    };
    let by_sql = "SELECT id, moves FROM games WHERE id <= 3000 ORDER BY id";
    let plain = open(&fresh);
    let expected: Vec<(i64, String)> = common::rows(&plain, by_sql);
    let mut text = String::from("id,moves\n");
    for (id, moves) in &expected {
        text.push_str(&format!("{id},{moves}\n"));
    }
    assert_eq!(csv(&fresh, by_sql), text);
    let plies_sql =
        "SELECT game_id, ply, san FROM plies WHERE game_id <= 300 ORDER BY game_id, ply";
    let plain_plies: Vec<(i64, i64, String)> = common::rows(&plain, plies_sql);
    let mut text = String::from("game_id,ply,san\n");
    for (id, ply, san) in &plain_plies {
        text.push_str(&format!("{id},{ply},{san}\n"));
    }
    assert_eq!(csv(&fresh, plies_sql), text);
}
