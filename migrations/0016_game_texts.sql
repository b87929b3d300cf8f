-- pgnindex schema, version 16: the few-valued text columns of `games` as
-- ids into one dictionary of strings.
--
-- `event`, `opening`, `time_control`, `termination`, `speed`,
-- `opening_eco` and `opening_name` repeat a few hundred values over
-- millions of games (100 bytes a game together). The games now live in
-- `game_rows`, those columns as ids into `game_texts`, and `games` is a view
-- with the same columns, in the same order, holding the same values as the
-- table had: each id is read back by a scalar subquery, which SQLite runs
-- only for the columns a query uses. Triggers on the view keep INSERT,
-- UPDATE and DELETE on `games` working (docs/schema.md).

CREATE TABLE game_texts (
    id   INTEGER PRIMARY KEY,
    text TEXT NOT NULL UNIQUE             -- a value of one of the columns above
);

-- The most used values get the shortest ids (SQLite stores 1 to 127 in one
-- byte, up to 32767 in two).
INSERT INTO game_texts (text)
    SELECT text FROM (
        SELECT event AS text FROM games
        UNION ALL SELECT opening FROM games
        UNION ALL SELECT time_control FROM games
        UNION ALL SELECT termination FROM games
        UNION ALL SELECT speed FROM games
        UNION ALL SELECT opening_eco FROM games
        UNION ALL SELECT opening_name FROM games
    )
    WHERE text IS NOT NULL
    GROUP BY text ORDER BY count(*) DESC, text;

-- The columns of `games` (migration 0001 and the ones that followed), in
-- order; each *_id holds the id of the column of its name in `game_texts`.
CREATE TABLE game_rows (
    id              INTEGER PRIMARY KEY,
    event_id        INTEGER,              -- game_texts.id of the Event tag
    site            TEXT,
    date            TEXT,                 -- PGN form YYYY.MM.DD, '??' kept
    round           TEXT,
    white           TEXT,
    black           TEXT,
    result          TEXT,                 -- 1-0, 0-1, 1/2-1/2 or * (the Result tag, else the result token)
    white_elo       INTEGER,
    black_elo       INTEGER,
    eco             TEXT,
    opening_id      INTEGER,              -- game_texts.id of the Opening tag
    time_control_id INTEGER,              -- game_texts.id of the TimeControl tag
    termination_id  INTEGER,              -- game_texts.id of the Termination tag
    ply_count       INTEGER NOT NULL,     -- half-moves stored in `moves`
    start_fen       TEXT,                 -- NULL for the standard start position
    final_fen       TEXT,                 -- NULL when the FEN tag could not be read
    moves           TEXT NOT NULL,        -- mainline in canonical SAN, space separated
    movetext        TEXT,                 -- the movetext as written; NULL: written back from moves, result and ply_data
    source_id       INTEGER REFERENCES sources(id),
    source_offset   INTEGER,              -- byte offset of the game in the (decompressed) input
    error           TEXT,                 -- NULL, or why the replay stopped before the end
    dedupe_key      INTEGER NOT NULL,     -- hash of players, date, event, round, result and moves
    year            INTEGER,
    month           INTEGER,
    day             INTEGER,
    tc_base         INTEGER,
    tc_increment    INTEGER,
    speed_id        INTEGER,              -- game_texts.id of the speed class
    opening_eco_id  INTEGER,              -- game_texts.id of the opening's ECO code
    opening_name_id INTEGER,              -- game_texts.id of the opening's name
    opening_ply     INTEGER
);

INSERT INTO game_rows
SELECT id,
       (SELECT t.id FROM game_texts AS t WHERE t.text = g.event),
       site, date, round, white, black, result, white_elo, black_elo, eco,
       (SELECT t.id FROM game_texts AS t WHERE t.text = g.opening),
       (SELECT t.id FROM game_texts AS t WHERE t.text = g.time_control),
       (SELECT t.id FROM game_texts AS t WHERE t.text = g.termination),
       ply_count, start_fen, final_fen, moves, movetext, source_id, source_offset, error,
       dedupe_key, year, month, day, tc_base, tc_increment,
       (SELECT t.id FROM game_texts AS t WHERE t.text = g.speed),
       (SELECT t.id FROM game_texts AS t WHERE t.text = g.opening_eco),
       (SELECT t.id FROM game_texts AS t WHERE t.text = g.opening_name),
       opening_ply
FROM games AS g ORDER BY id;

-- Its index and triggers go with it.
DROP TABLE games;

-- The tables that referred to `games(id)` refer to `game_rows(id)`: a
-- foreign key cannot name a view. Edited in place as migration 0011 did
-- (every stored row stays valid); the CREATE statements below change the
-- schema cookie, so that every connection reads the new definitions.
PRAGMA writable_schema = ON;
UPDATE sqlite_master
SET sql = replace(sql, 'REFERENCES games(id)', 'REFERENCES game_rows(id)')
WHERE type = 'table' AND name IN ('game_tags', 'ply_data', 'game_material');
PRAGMA writable_schema = OFF;

-- What `games` was, column for column.
CREATE VIEW games AS
SELECT r.id AS id,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.event_id) AS event,
       r.site AS site, r.date AS date, r.round AS round, r.white AS white, r.black AS black,
       r.result AS result, r.white_elo AS white_elo, r.black_elo AS black_elo, r.eco AS eco,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.opening_id) AS opening,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.time_control_id) AS time_control,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.termination_id) AS termination,
       r.ply_count AS ply_count, r.start_fen AS start_fen, r.final_fen AS final_fen,
       r.moves AS moves, r.movetext AS movetext, r.source_id AS source_id,
       r.source_offset AS source_offset, r.error AS error, r.dedupe_key AS dedupe_key,
       r.year AS year, r.month AS month, r.day AS day, r.tc_base AS tc_base,
       r.tc_increment AS tc_increment,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.speed_id) AS speed,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.opening_eco_id) AS opening_eco,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.opening_name_id) AS opening_name,
       r.opening_ply AS opening_ply
FROM game_rows AS r;

-- Version 2's index, with the event's id.
CREATE INDEX games_summary ON game_rows(id, result, white_elo, black_elo, date, eco, event_id);

-- The triggers of versions 10, 14 and 15, on the table.
CREATE TRIGGER games_delete AFTER DELETE ON game_rows BEGIN
    DELETE FROM game_tags WHERE game_id = old.id;
    DELETE FROM ply_data WHERE game_id = old.id;
    INSERT OR IGNORE INTO deleted_games (game_id) VALUES (old.id);
    UPDATE sources SET
        games = max(games - 1, 0),
        positions = max(positions - CASE WHEN old.final_fen IS NULL OR positions_indexed = 0 THEN 0
                                         ELSE min(old.ply_count, coalesce(max_ply, 65535), 65535) + 1 END, 0)
    WHERE id = old.source_id;
END;
CREATE TRIGGER games_delete_material AFTER DELETE ON game_rows BEGIN
    DELETE FROM game_material WHERE game_id = old.id;
END;
CREATE TRIGGER explorer_tree_delete AFTER DELETE ON game_rows BEGIN
    UPDATE explorer_tree_state SET complete = 0 WHERE complete <> 0;
END;

-- Writing through the view. A value met for the first time gets its id
-- (no INSERT OR IGNORE: a statement's own conflict clause, `INSERT OR
-- ROLLBACK INTO games`, would override a trigger's).
CREATE TRIGGER games_insert INSTEAD OF INSERT ON games BEGIN
    INSERT INTO game_texts (text)
        SELECT v.text
        FROM (SELECT new.event AS text UNION SELECT new.opening UNION SELECT new.time_control
              UNION SELECT new.termination UNION SELECT new.speed UNION SELECT new.opening_eco
              UNION SELECT new.opening_name) AS v
        WHERE v.text IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM game_texts AS t WHERE t.text = v.text);
    INSERT INTO game_rows VALUES (
        new.id,
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.event),
        new.site, new.date, new.round, new.white, new.black, new.result, new.white_elo,
        new.black_elo, new.eco,
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening),
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.time_control),
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.termination),
        new.ply_count, new.start_fen, new.final_fen, new.moves, new.movetext, new.source_id,
        new.source_offset, new.error, new.dedupe_key, new.year, new.month, new.day, new.tc_base,
        new.tc_increment,
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.speed),
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening_eco),
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening_name),
        new.opening_ply);
END;

CREATE TRIGGER games_update INSTEAD OF UPDATE ON games BEGIN
    INSERT INTO game_texts (text)
        SELECT v.text
        FROM (SELECT new.event AS text UNION SELECT new.opening UNION SELECT new.time_control
              UNION SELECT new.termination UNION SELECT new.speed UNION SELECT new.opening_eco
              UNION SELECT new.opening_name) AS v
        WHERE v.text IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM game_texts AS t WHERE t.text = v.text);
    UPDATE game_rows SET
        id = new.id,
        event_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.event),
        site = new.site, date = new.date, round = new.round, white = new.white,
        black = new.black, result = new.result, white_elo = new.white_elo,
        black_elo = new.black_elo, eco = new.eco,
        opening_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening),
        time_control_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.time_control),
        termination_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.termination),
        ply_count = new.ply_count, start_fen = new.start_fen, final_fen = new.final_fen,
        moves = new.moves, movetext = new.movetext, source_id = new.source_id,
        source_offset = new.source_offset, error = new.error, dedupe_key = new.dedupe_key,
        year = new.year, month = new.month, day = new.day, tc_base = new.tc_base,
        tc_increment = new.tc_increment,
        speed_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.speed),
        opening_eco_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening_eco),
        opening_name_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening_name),
        opening_ply = new.opening_ply
    WHERE id = old.id;
END;

CREATE TRIGGER games_delete_row INSTEAD OF DELETE ON games BEGIN
    DELETE FROM game_rows WHERE id = old.id;
END;
