-- pgnindex schema, version 10: what a game's mainline says about each move.
--
-- One `ply_data` row per game whose mainline has a clock, time spent,
-- evaluation, NAG or comment after some move (store::plies builds it).
-- Clocks, times and evaluations, on most moves of the games that have
-- them: a JSON array, element 0 for ply 1, null where a ply has nothing,
-- stopping at the last ply that has something. NAGs and comments, on few
-- moves: a JSON object from the ply (as text) to the value. Games stored
-- before this version have no row (their movetext still holds it all).
CREATE TABLE ply_data (
    game_id  INTEGER PRIMARY KEY REFERENCES games(id),
    clocks   TEXT,    -- seconds on the mover's clock after the move (180, 178.6) or null; NULL when no ply has one
    emts     TEXT,    -- seconds spent on the move, as clocks
    evals    TEXT,    -- centipawns from White's view (integers), or "#N" for mate in N moves (negative: Black mates), or null
    nags     TEXT,    -- {"3": "$1 $18"}: the move's NAGs as text, by ply
    comments TEXT     -- {"12": "text"}: the comment after the move, commands ([%...]) taken out, by ply
);

-- One row per half-move of the mainline: `games.moves` split at its
-- spaces (SAN holds no quote, backslash or space), beside that ply's
-- notes. Plain SQL (JSON operators of SQLite 3.38 and later): any SQLite
-- tool reads it, and `WHERE game_id = ?` reads one game by the keys.
CREATE VIEW plies AS
SELECT g.id AS game_id,
       m.key + 1 AS ply,
       m.value AS san,
       CAST(d.clocks ->> m.key AS REAL) AS clock,
       CAST(d.emts ->> m.key AS REAL) AS emt,
       CASE WHEN typeof(d.evals ->> m.key) = 'integer' THEN (d.evals ->> m.key) / 100.0 END AS eval,
       CASE WHEN typeof(d.evals ->> m.key) = 'text'
            THEN CAST(substr(d.evals ->> m.key, 2) AS INTEGER) END AS mate,
       d.nags ->> ('$."' || (m.key + 1) || '"') AS nags,
       d.comments ->> ('$."' || (m.key + 1) || '"') AS comment
FROM games AS g
JOIN json_each(CASE g.moves WHEN '' THEN '[]' ELSE '["' || replace(g.moves, ' ', '","') || '"]' END) AS m
LEFT JOIN ply_data AS d ON d.game_id = g.id;

-- The trigger of version 6, deleting the game's ply_data row too.
DROP TRIGGER games_delete;
CREATE TRIGGER games_delete AFTER DELETE ON games BEGIN
    DELETE FROM game_tags WHERE game_id = old.id;
    DELETE FROM ply_data WHERE game_id = old.id;
    INSERT OR IGNORE INTO deleted_games (game_id) VALUES (old.id);
    UPDATE sources SET
        games = max(games - 1, 0),
        positions = max(positions - CASE WHEN old.final_fen IS NULL OR positions_indexed = 0 THEN 0
                                         ELSE min(old.ply_count, coalesce(max_ply, 65535), 65535) + 1 END, 0)
    WHERE id = old.source_id;
END;

-- The speed index of version 7 goes: `info` counts the speeds in the scan
-- of `games` it makes for the openings, and `--speed` alone is as rare as
-- the other filters that read the table; the index cost every import a
-- second index insert per game and 1 % of the database.
DROP INDEX IF EXISTS games_speed;
