//! The analysis columns of `games` (`year`, `month`, `day`, `tc_base`,
//! `tc_increment`, `speed`): filled by the import as a plain reading of
//! the sample's tags says, and by migration 0007's SQL the same way.

use crate::common;

use std::collections::HashMap;

use common::{arg, files_under, games_dir, import, open, repo, rows, run, scratch, tag_sections};
use similar_asserts::assert_eq;

/// The analysis columns of one game.
type Columns = (Option<i64>, Option<i64>, Option<i64>, Option<i64>, Option<i64>, Option<String>);

const SELECT: &str = "SELECT year, month, day, tc_base, tc_increment, speed FROM games ORDER BY id";

/// The columns docs/schema.md promises for a game with these tags, read
/// another way than the import does: split at the dots, the colon, the
/// slash and the plus, and parsed with `str::parse`.
fn expected(tags: &HashMap<String, String>) -> Columns {
    let date: Vec<&str> = tags.get("Date").map_or(vec![], |d| d.split('.').collect());
    let part = |i: usize, width: usize, max: i64| -> Option<i64> {
        let text = *date.get(i)?;
        let n: i64 = text.parse().ok()?;
        (date.len() == 3 && text.len() == width && (1..=max).contains(&n)).then_some(n)
    };
    let (year, month, day) = (part(0, 4, 9999), part(1, 2, 12), part(2, 2, 31));

    let control = tags.get("TimeControl").map_or("", String::as_str);
    let period = control.split(':').next().unwrap();
    let (moves, clock) = match period.split_once('/') {
        Some((moves, clock)) => (moves.parse::<i64>().ok(), clock),
        None => (None, period),
    };
    let mut numbers = clock.split('+').map(|n| n.parse::<i64>().ok());
    let base = numbers.next().flatten();
    let increment = numbers.next().unwrap_or(Some(0));
    let daily = moves == Some(1);
    let (base, increment) = match (base, increment) {
        (Some(b), Some(i)) if !daily => (Some(b), Some(i)),
        _ => (None, None),
    };
    let event = tags.get("Event").map_or(String::new(), |e| e.to_lowercase());
    let speed = if daily || event.contains("correspondence") {
        Some("correspondence")
    } else {
        base.zip(increment).map(|(b, i)| match b + 40 * i {
            s if s < 30 => "ultrabullet",
            s if s < 180 => "bullet",
            s if s < 480 => "blitz",
            s if s < 1500 => "rapid",
            _ => "classical",
        })
    };
    (year, month, day, base, increment, speed.map(String::from))
}

#[test]
fn the_import_fills_the_columns_as_the_tags_say() {
    let dir = scratch();
    let db = dir.join("sample.db");
    import(&db, &["--quiet", arg(&games_dir())]).success();
    let conn = open(&db);
    let mut stored: Vec<Columns> = rows(&conn, SELECT);

    let files = files_under(&games_dir(), |p| p.extension().is_some_and(|e| e == "pgn"));
    let mut from_tags: Vec<Columns> =
        files.iter().flat_map(|f| tag_sections(f)).map(|tags| expected(&tags)).collect();
    assert_eq!(from_tags.len(), stored.len(), "every sample game is stored");
    stored.sort();
    from_tags.sort();
    assert_eq!(stored, from_tags);

    // The sample has games of four speeds, games without a time control,
    // and dates with unknown parts.
    let speeds: Vec<(Option<String>, i64)> =
        rows(&conn, "SELECT speed, count(*) FROM games GROUP BY speed ORDER BY speed");
    let names: Vec<Option<&str>> = speeds.iter().map(|(s, _)| s.as_deref()).collect();
    assert_eq!(names, [None, Some("blitz"), Some("bullet"), Some("classical"), Some("rapid")]);
    let unknown_days: i64 =
        conn.query_row("SELECT count(*) FROM games WHERE day IS NULL", [], |r| r.get(0)).unwrap();
    assert!(unknown_days >= 100, "{unknown_days}");
}

/// Migration 0007 fills an older database's games as the import fills new
/// ones: the columns nulled and the migration's UPDATE run again give the
/// same rows.
#[test]
fn the_migration_fills_the_columns_as_the_import_does() {
    let dir = scratch();
    let db = dir.join("sample.db");
    import(&db, &["--quiet", arg(&games_dir())]).success();
    let extra = dir.write(
        "extra.pgn",
        "[Event \"Rated Correspondence game\"]\n[Date \"2020.??.??\"]\n[TimeControl \"-\"]\n\n1. e4 *\n\n\
         [Event \"Daily\"]\n[Date \"2021.13.01\"]\n[TimeControl \"1/259200\"]\n\n1. d4 *\n\n\
         [Event \"Odd\"]\n[Date \"2021.1.1\"]\n[TimeControl \"G/60\"]\n\n1. c4 *\n\n\
         [Event \"Fast\"]\n[Date \"????.12.??\"]\n[TimeControl \"0+1\"]\n\n1. Nf3 *\n\n\
         [Event \"Old\"]\n[Date \"1851.06.21\"]\n[TimeControl \"40/7200:3600\"]\n\n1. f4 *\n",
    );
    import(&db, &["--quiet", arg(&extra)]).success();
    let conn = open(&db);
    let imported: Vec<Columns> = rows(&conn, SELECT);
    assert!(imported.contains(&(
        Some(2020),
        None,
        None,
        None,
        None,
        Some("correspondence".into())
    )));

    let migration =
        std::fs::read_to_string(repo("migrations/0007_game_analysis_columns.sql")).unwrap();
    let update = &migration[migration.find("UPDATE games").unwrap()..];
    let update = &update[..=update.find(';').unwrap()];
    conn.execute_batch(
        "UPDATE games SET year = NULL, month = NULL, day = NULL, tc_base = NULL, \
         tc_increment = NULL, speed = NULL",
    )
    .unwrap();
    conn.execute_batch(update).unwrap();
    let migrated: Vec<Columns> = rows(&conn, SELECT);
    assert_eq!(migrated, imported);
}

/// `--speed` selects the games a plain reading of the tags gives that
/// speed, in `find`, `explore`, `export` and `delete`.
#[test]
fn the_speed_filter_selects_by_the_time_control() {
    let dir = scratch();
    let db = dir.join("sample.db");
    import(&db, &["--quiet", arg(&games_dir())]).success();
    let files = files_under(&games_dir(), |p| p.extension().is_some_and(|e| e == "pgn"));
    let speeds: Vec<Option<String>> =
        files.iter().flat_map(|f| tag_sections(f)).map(|tags| expected(&tags).5).collect();
    let by_hand = |speed: &str| speeds.iter().filter(|s| s.as_deref() == Some(speed)).count();
    let query = |args: &[&str]| -> String {
        let out = run(args.iter().copied().chain(["--db", arg(&db)])).success();
        out.stdout
    };
    for speed in ["ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence"] {
        let count: usize = query(&["find", "--speed", speed, "--count"]).trim().parse().unwrap();
        assert_eq!(count, by_hand(speed), "{speed}");
        let exported = query(&["export", "--speed", speed]);
        assert_eq!(exported.matches("[Event ").count(), by_hand(speed), "{speed}");
    }
    assert!(by_hand("blitz") > 0 && by_hand("rapid") > 0);
    // The explorer's games from the start position: every blitz game with
    // a move (each starts from the standard position).
    let explored = query(&["explore", "--speed", "BLITZ", "--format", "csv"]);
    let games: usize = explored
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(games, by_hand("blitz"));

    let refused = run(["find", "--speed", "fast", "--db", arg(&db)]);
    assert_eq!(refused.code, 1);
    assert!(refused.stderr.contains("--speed: 'fast' is not a speed"), "{}", refused.stderr);

    let deleted = run(["delete", "--speed", "rapid", "--db", arg(&db)]);
    assert_eq!(deleted.code, 0, "{}", deleted.stderr);
    let left: i64 = open(&db).query_row("SELECT count(*) FROM games", [], |r| r.get(0)).unwrap();
    assert_eq!(left as usize, speeds.len() - by_hand("rapid"));
    assert_eq!(query(&["find", "--speed", "rapid", "--count"]).trim(), "0");
}

/// A database from before the speed column refuses `--speed` with a way
/// out, and `vacuum` brings it up to date.
#[test]
fn an_older_database_says_how_to_get_the_speed_column() {
    let dir = scratch();
    let db = dir.join("old.db");
    // No position segments: those of version 6 had other columns.
    import(&db, &["--quiet", "--no-positions", arg(&common::twic())]).success();
    let conn = open(&db);
    let before: Vec<Columns> = rows(&conn, SELECT);
    common::games_as_schema_15(&conn);
    conn.execute_batch(
        "DROP VIEW players; DROP VIEW plies; ALTER TABLE position_segments DROP COLUMN layout; \
         DROP TRIGGER explorer_tree_delete; DROP TABLE explorer_tree; DROP TABLE explorer_late; \
         DROP TABLE explorer_deep; DROP TABLE explorer_tree_state; \
         DROP TRIGGER games_delete_material; DROP TABLE game_material; DROP TABLE material_backlog",
    )
    .unwrap();
    // Version 6's trigger, which knows no ply_data, before the table goes.
    let v6 = include_str!("../../migrations/0006_source_indexing.sql");
    let trigger = &v6[v6.find("CREATE TRIGGER games_delete").unwrap()..];
    conn.execute_batch("DROP TRIGGER games_delete; DROP TABLE ply_data").unwrap();
    conn.execute_batch(&trigger[..trigger.find("END;").unwrap() + 4]).unwrap();
    let schema_9 = ["opening_eco", "opening_name", "opening_ply"];
    for column in
        ["year", "month", "day", "tc_base", "tc_increment", "speed"].iter().chain(&schema_9)
    {
        conn.execute_batch(&format!("ALTER TABLE games DROP COLUMN {column}")).unwrap();
    }
    common::tags_as_schema_12(&conn);
    conn.pragma_update(None, "user_version", 6).unwrap();
    drop(conn);
    let refused = run(["find", "--speed", "classical", "--db", arg(&db)]);
    assert_ne!(refused.code, 0);
    assert!(refused.stderr.contains("pgnindex vacuum"), "{}", refused.stderr);
    run(["find", "--count", "--db", arg(&db)]).success();

    run(["vacuum", "--db", arg(&db)]).success();
    assert_eq!(rows::<Columns>(&open(&db), SELECT), before);
    run(["find", "--speed", "classical", "--count", "--db", arg(&db)]).success();
}

/// `info` counts the games per speed as a plain reading of the tags does.
#[test]
fn info_counts_the_games_per_speed() {
    let dir = scratch();
    let db = dir.join("sample.db");
    import(&db, &["--quiet", arg(&games_dir())]).success();
    let files = files_under(&games_dir(), |p| p.extension().is_some_and(|e| e == "pgn"));
    let speeds: Vec<Option<String>> =
        files.iter().flat_map(|f| tag_sections(f)).map(|tags| expected(&tags).5).collect();
    let by_hand = |speed: Option<&str>| speeds.iter().filter(|s| s.as_deref() == speed).count();
    let line: String = ["ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence"]
        .into_iter()
        .map(Some)
        .chain([None])
        .filter(|&s| by_hand(s) > 0)
        .map(|s| format!("{} ({})", s.unwrap_or("unknown"), by_hand(s)))
        .collect::<Vec<_>>()
        .join(", ");
    let text = run(["info", "--db", arg(&db)]).success().stdout;
    assert!(text.contains(&format!("\nspeeds     {line}\n")), "{line}\n{text}");

    let json: serde_json::Value =
        serde_json::from_str(&run(["info", "--format", "json", "--db", arg(&db)]).success().stdout)
            .unwrap();
    let listed: Vec<(Option<String>, usize)> = json["speeds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["speed"].as_str().map(String::from), s["games"].as_u64().unwrap() as usize))
        .collect();
    let total: usize = listed.iter().map(|s| s.1).sum();
    assert_eq!(total, speeds.len());
    for (speed, games) in listed {
        assert_eq!(games, by_hand(speed.as_deref()), "{speed:?}");
    }
}

/// The `players` view: one row per player, spellings that differ in case,
/// spaces, a trailing dot or the space after a comma counted as one.
#[test]
fn the_players_view_groups_the_spellings_of_a_name() {
    let dir = scratch();
    let db = dir.join("players.db");
    let game = |white: &str, black: &str, result: &str, date: &str, elos: (&str, &str)| {
        format!(
            "[Event \"E\"]\n[Date \"{date}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n\
             [Result \"{result}\"]\n[WhiteElo \"{}\"]\n[BlackElo \"{}\"]\n\n1. e4 e5 {result}\n\n",
            elos.0, elos.1
        )
    };
    let pgn = [
        game("Carlsen, Magnus", "Anand, V", "1-0", "2019.01.01", ("2850", "2780")),
        game("Anand, V", "carlsen,magnus", "1/2-1/2", "2020.??.??", ("2790", "2862")),
        game(" CARLSEN,  Magnus. ", "Anand,V", "0-1", "2021.05.05", ("2870", "?")),
        game("Carlsen , Magnus", "Anand, V.", "*", "????.??.??", ("?", "2800")),
        game("Carlsen, Magnus", "Carlsen, M", "0-1", "2018.02.02", ("2840", "2500")),
        game("?", "-", "1-0", "2018.02.02", ("?", "?")),
    ]
    .concat();
    let input = dir.write("players.pgn", pgn);
    import(&db, &["--quiet", arg(&input)]).success();
    type Player = (String, i64, i64, i64, Option<f64>, Option<i64>, Option<i64>, Option<i64>);
    let players: Vec<Player> = rows(
        &open(&db),
        "SELECT name, games, white_games, black_games, score, first_year, last_year, max_elo \
         FROM players ORDER BY name",
    );
    assert_eq!(
        players,
        [
            // Lost as Black, drew as White, won as Black, a game without
            // result: 1.5 points in 3 games with a result.
            ("Anand, V".to_string(), 4, 1, 3, Some(1.5 / 3.0), Some(2019), Some(2021), Some(2800)),
            // Another player: the initial is not the first name.
            ("Carlsen, M".to_string(), 1, 0, 1, Some(1.0), Some(2018), Some(2018), Some(2500)),
            // Won, drew, lost, no result, lost; the most frequent
            // spelling is shown.
            (
                "Carlsen, Magnus".to_string(),
                5,
                4,
                1,
                Some(1.5 / 4.0),
                Some(2018),
                Some(2021),
                Some(2870)
            ),
        ]
    );

    // The names `?` and `-` are no player: every other side is counted once.
    let sides: i64 =
        open(&db).query_row("SELECT sum(games) FROM players", [], |r| r.get(0)).unwrap();
    assert_eq!(sides, 10);
}

/// The rows of `players`, and those schema 8's view (grouping the games
/// when read) gives on the same connection.
fn players_and_reference(conn: &rusqlite::Connection) -> (Vec<String>, Vec<String>) {
    let v8 = include_str!("../../migrations/0008_players_view.sql");
    let view = &v8[v8.find("CREATE VIEW players").unwrap()..];
    let reference = view.replace("CREATE VIEW players", "CREATE TEMP VIEW players_reference");
    conn.execute_batch(&format!("DROP VIEW IF EXISTS temp.players_reference; {reference}"))
        .unwrap();
    let read = |from: &str| {
        common::column::<String>(
            conn,
            &format!(
                "SELECT name || '|' || games || '|' || white_games || '|' || black_games || '|' \
                 || ifnull(score, '') || '|' || ifnull(first_year, '') || '|' \
                 || ifnull(last_year, '') || '|' || ifnull(max_elo, '') FROM {from} ORDER BY name"
            ),
        )
    };
    (read("players"), read("players_reference"))
}

fn reads_the_table(conn: &rusqlite::Connection) -> bool {
    let sql: String = conn
        .query_row("SELECT sql FROM sqlite_master WHERE name = 'players'", [], |r| r.get(0))
        .unwrap();
    let current: i64 =
        conn.query_row("SELECT current FROM player_rows_state", [], |r| r.get(0)).unwrap();
    assert_eq!(sql.ends_with("FROM player_rows"), current == 1, "{sql}");
    current == 1
}

/// `players` reads a table pgnindex fills at the end of each write; games
/// changed by SQL in between have their players counted again by the
/// schema's triggers; a write cut short leaves the view grouping the games.
/// Each time its rows are those of schema 8's view over the same games.
#[test]
fn the_stored_players_stay_those_the_games_give() {
    let dir = scratch();
    let db = dir.join("players.db");
    let game = |white: &str, black: &str, result: &str, date: &str| {
        format!(
            "[Event \"E\"]\n[Date \"{date}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n\
             [Result \"{result}\"]\n[WhiteElo \"2400\"]\n\n1. e4 e5 {result}\n\n"
        )
    };
    let pgn = [
        game("Carlsen, Magnus", "Anand, V", "1-0", "2019.01.01"),
        game("Anand, V", "carlsen,magnus", "1/2-1/2", "2020.??.??"),
        game("?", "-", "1-0", "2018.02.02"),
        game("Zz", "Anand, V.", "*", "????.??.??"),
    ]
    .concat();
    let input = dir.write("players.pgn", pgn);
    import(&db, &["--quiet", arg(&input), arg(&common::twic())]).success();
    let conn = open(&db);
    assert!(reads_the_table(&conn));
    let (players, reference) = players_and_reference(&conn);
    assert!(players.len() > 100, "{}", players.len());
    assert_eq!(players, reference);

    // SQL through the view and on the table, as a user in the shell.
    let edits = [
        "DELETE FROM games WHERE white = 'Zz'",
        "UPDATE games SET white = 'ANAND,  v' WHERE id = 2",
        "UPDATE games SET result = '0-1', year = 1850 WHERE id = 1",
        "UPDATE game_rows SET white_elo = 3000 WHERE id = 5",
        "INSERT INTO games (white, black, result, ply_count, moves, dedupe_key, year) \
         VALUES ('New, Player', '?', '1-0', 0, '', 1, 2001)",
        "INSERT INTO games (white, black, result, ply_count, moves, dedupe_key) \
         VALUES ('?', '', '1-0', 0, '', 2)",
        "DELETE FROM game_rows WHERE id = 6",
        "DELETE FROM games WHERE white = '?'",
    ];
    for edit in edits {
        conn.execute_batch(edit).unwrap();
        assert!(reads_the_table(&conn), "{edit}");
        let (players, reference) = players_and_reference(&conn);
        assert_eq!(players, reference, "{edit}");
        let left: i64 =
            conn.query_row("SELECT count(*) FROM player_keys_changed", [], |r| r.get(0)).unwrap();
        assert_eq!(left, 0, "{edit}");
    }
    let new: Vec<String> = players_and_reference(&conn)
        .0
        .into_iter()
        .filter(|p| p.starts_with("New, Player|"))
        .collect();
    assert_eq!(new, ["New, Player|1|1|0|1.0|2001|2001|"]);

    // `delete` counts once at its end.
    let out = run(["delete", "--db", arg(&db), "--white", "Carlsen"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(reads_the_table(&conn));
    let (players, reference) = players_and_reference(&conn);
    assert_eq!(players, reference);

    // A write cut short: the view groups the games, and changes by SQL
    // need no trigger.
    let _live = pgnindex::db::players::set_live(&conn).unwrap();
    conn.execute_batch("DELETE FROM game_rows WHERE id = 7").unwrap();
    assert!(!reads_the_table(&conn));
    let (players, reference) = players_and_reference(&conn);
    assert_eq!(players, reference);
    drop(conn);
    // The next write fills the table again.
    assert_eq!(run(["vacuum", "--db", arg(&db)]).code, 0);
    let conn = open(&db);
    assert!(reads_the_table(&conn));
    let (players, reference) = players_and_reference(&conn);
    assert_eq!(players, reference);

    // A database of the schema before: migrated, read alike, then stored.
    common::players_as_schema_23(&conn);
    drop(conn);
    let more = dir.write("more.pgn", game("Carlsen, Magnus", "New, Player", "0-1", "2022.01.01"));
    let read = pgnindex::db::open_read_only(&db).unwrap();
    assert_eq!(players_and_reference(&read).0, players);
    drop(read);
    import(&db, &["--quiet", arg(&more)]).success();
    let conn = open(&db);
    assert!(reads_the_table(&conn));
    let (after, reference) = players_and_reference(&conn);
    assert_eq!(after, reference);
    assert_ne!(after, players);
}

/// An import adds its games' players to those stored (their spellings and
/// scored games kept beside them), without counting the games before it
/// again; after a change by SQL it counts every game again. Each time the
/// rows are those of schema 8's view over the same games.
#[test]
fn an_import_adds_its_players_to_the_stored_ones() {
    let dir = scratch();
    let db = dir.join("added.db");
    let game = |white: &str, black: &str, result: &str, date: &str, elo: u32| {
        format!(
            "[Event \"E\"]\n[Date \"{date}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n\
             [Result \"{result}\"]\n[WhiteElo \"{elo}\"]\n\n1. e4 e5 {result}\n\n"
        )
    };
    let tallied = |conn: &rusqlite::Connection| -> i64 {
        conn.query_row("SELECT tallied FROM player_rows_state", [], |r| r.get(0)).unwrap()
    };
    let max_elo = |conn: &rusqlite::Connection, key: &str| -> Option<i64> {
        conn.query_row("SELECT max_elo FROM player_rows WHERE key = ?1", [key], |r| r.get(0))
            .unwrap()
    };
    let first = [
        game("Carlsen, Magnus", "Anand, V", "1-0", "2019.01.01", 2800),
        game("Carlsen, Magnus", "Zz", "1/2-1/2", "2019.02.01", 2810),
        game("carlsen,magnus", "Anand, V", "*", "2018.??.??", 2700),
        game("Alone", "Anand, V.", "0-1", "????.??.??", 2000),
    ]
    .concat();
    import(&db, &["--quiet", arg(&dir.write("first.pgn", first))]).success();
    let conn = open(&db);
    assert!(reads_the_table(&conn));
    assert_eq!(tallied(&conn), 1);
    let (players, reference) = players_and_reference(&conn);
    assert_eq!(players, reference);
    let spellings: Vec<String> = common::column(
        &conn,
        "SELECT key || '|' || name || '|' || games FROM player_spellings ORDER BY key, name",
    );
    assert_eq!(
        spellings,
        [
            "anand,v|Anand, V|2",
            "anand,v|Anand, V.|1",
            "carlsen,magnus|Carlsen, Magnus|2",
            "carlsen,magnus|carlsen,magnus|1"
        ]
    );

    // A player the next import does not meet keeps its row as it was: a
    // value written by hand into the table stays.
    conn.execute("UPDATE player_rows SET max_elo = 9999 WHERE key = 'alone'", []).unwrap();
    let second = [
        game("carlsen,magnus", "New", "0-1", "2017.05.05", 2900),
        game("carlsen,magnus", "Zz", "1-0", "2021.01.01", 2600),
        game("Anand, V.", "Zz", "*", "2016.01.01", 2750),
        game("Anand, V.", "Carlsen, Magnus", "0-1", "2022.01.01", 2751),
    ]
    .concat();
    import(&db, &["--quiet", arg(&dir.write("second.pgn", second))]).success();
    assert!(reads_the_table(&conn));
    assert_eq!(tallied(&conn), 1);
    assert_eq!(max_elo(&conn, "alone"), Some(9999));
    conn.execute("UPDATE player_rows SET max_elo = 2000 WHERE key = 'alone'", []).unwrap();
    let (players, reference) = players_and_reference(&conn);
    assert_eq!(players, reference);
    // Three games each way now: the first spelling in byte order.
    assert!(
        players.contains(&"Carlsen, Magnus|6|5|1|0.7|2017|2022|2900".to_string()),
        "{players:?}"
    );

    // SQL changes a game: the next import counts every game again.
    conn.execute_batch("UPDATE games SET white = 'Alone' WHERE id = 5").unwrap();
    assert_eq!(tallied(&conn), 0);
    conn.execute("UPDATE player_rows SET max_elo = 9999 WHERE key = 'zz'", []).unwrap();
    let third = game("New", "Alone", "1/2-1/2", "2023.01.01", 2100);
    import(&db, &["--quiet", arg(&dir.write("third.pgn", third))]).success();
    assert!(reads_the_table(&conn));
    assert_eq!(tallied(&conn), 1);
    assert_eq!(max_elo(&conn, "zz"), None);
    let (players, reference) = players_and_reference(&conn);
    assert_eq!(players, reference);
}
