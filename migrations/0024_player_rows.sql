-- The players stored: `player_rows` holds the `players` view's rows, one a
-- player, so that reading them costs what reading a table does. pgnindex
-- fills it at the end of each write (an import, a delete, a vacuum) and
-- then points `players` at it; until then `players` groups the games when
-- read, as before. Games changed by SQL (`games` or `game_rows`) have
-- their players counted again by the triggers below.
CREATE TABLE player_rows (
    key         TEXT PRIMARY KEY,     -- the name normalised as the players view groups it
    name        TEXT NOT NULL,        -- the most frequent spelling
    games       INTEGER NOT NULL,
    white_games INTEGER NOT NULL,
    score       REAL,
    first_year  INTEGER,
    last_year   INTEGER,
    max_elo     INTEGER
) WITHOUT ROWID;

-- current = 1: `player_rows` holds the players of every game, the
-- triggers keep it so, and `players` reads it. 0: neither.
CREATE TABLE player_rows_state (current INTEGER NOT NULL);
INSERT INTO player_rows_state VALUES (0);

-- The players a trigger counts again, and '' (no player's key) so that
-- the table is not empty while it does; empty between statements.
CREATE TABLE player_keys_changed (key TEXT PRIMARY KEY) WITHOUT ROWID;

-- Each game's White and Black as the players view groups them: names
-- that are empty or only `?` and `-` are no player.
CREATE VIEW player_sides (game_id, key, name, white, points, year, elo) AS
SELECT game_id, key, name, white, points, year, elo FROM (
    SELECT game_id,
           rtrim(replace(replace(
               replace(replace(replace(replace(lower(trim(name)),
                   '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '),
               ', ', ','), ' ,', ','), '. ') AS key,
           name, white, points, year, elo
    FROM (
        SELECT r.id AS game_id,
               CASE WHEN typeof(r.white) = 'integer' THEN (SELECT t.text FROM game_texts AS t WHERE t.id = r.white) ELSE r.white END AS name,
               1 AS white,
               CASE r.result WHEN '1-0' THEN 1.0 WHEN '0-1' THEN 0.0 WHEN '1/2-1/2' THEN 0.5 END AS points,
               r.year AS year, r.white_elo AS elo
        FROM game_rows AS r WHERE r.white IS NOT NULL
        UNION ALL
        SELECT r.id,
               CASE WHEN typeof(r.black) = 'integer' THEN (SELECT t.text FROM game_texts AS t WHERE t.id = r.black) ELSE r.black END,
               0,
               CASE r.result WHEN '0-1' THEN 1.0 WHEN '1-0' THEN 0.0 WHEN '1/2-1/2' THEN 0.5 END,
               r.year, r.black_elo
        FROM game_rows AS r WHERE r.black IS NOT NULL
    )
)
WHERE trim(key, '?-') <> '';

-- The players grouped from the games when read: every player, or inside
-- a trigger only those in `player_keys_changed`.
CREATE VIEW players_live (key, name, games, white_games, score, first_year, last_year, max_elo) AS
WITH sides AS (
    SELECT key, name, white, points, year, elo FROM player_sides
    WHERE NOT EXISTS (SELECT 1 FROM player_keys_changed)
       OR key IN (SELECT key FROM player_keys_changed)
),
grouped AS (
    SELECT key, count(*) AS games, sum(white) AS white_games, avg(points) AS score,
           min(year) AS first_year, max(year) AS last_year, max(elo) AS max_elo
    FROM sides GROUP BY key
),
spellings AS (
    SELECT key, name,
           row_number() OVER (PARTITION BY key ORDER BY count(*) DESC, name) AS place
    FROM sides GROUP BY key, name
)
SELECT grouped.key, spellings.name, games, white_games, score, first_year, last_year, max_elo
FROM grouped JOIN spellings ON spellings.key = grouped.key AND spellings.place = 1;

DROP VIEW players;
CREATE VIEW players AS
SELECT name, games, white_games, games - white_games AS black_games, score, first_year,
       last_year, max_elo
FROM players_live;

-- A game written by SQL: its players before and after are counted again.
CREATE TRIGGER player_rows_before_delete BEFORE DELETE ON game_rows
WHEN (SELECT current FROM player_rows_state) BEGIN
    INSERT OR IGNORE INTO player_keys_changed
        SELECT '' UNION ALL SELECT key FROM player_sides WHERE game_id = old.id;
END;
CREATE TRIGGER player_rows_before_update
BEFORE UPDATE OF id, white, black, result, year, white_elo, black_elo ON game_rows
WHEN (SELECT current FROM player_rows_state) BEGIN
    INSERT OR IGNORE INTO player_keys_changed
        SELECT '' UNION ALL SELECT key FROM player_sides WHERE game_id = old.id;
END;
CREATE TRIGGER player_rows_after_insert AFTER INSERT ON game_rows
WHEN (SELECT current FROM player_rows_state) BEGIN
    INSERT OR IGNORE INTO player_keys_changed
        SELECT '' UNION ALL SELECT key FROM player_sides WHERE game_id = new.id;
    DELETE FROM player_rows WHERE key IN (SELECT key FROM player_keys_changed);
    INSERT INTO player_rows SELECT * FROM players_live;
    DELETE FROM player_keys_changed;
END;
CREATE TRIGGER player_rows_after_update
AFTER UPDATE OF id, white, black, result, year, white_elo, black_elo ON game_rows
WHEN (SELECT current FROM player_rows_state) BEGIN
    INSERT OR IGNORE INTO player_keys_changed
        SELECT '' UNION ALL SELECT key FROM player_sides WHERE game_id = new.id;
    DELETE FROM player_rows WHERE key IN (SELECT key FROM player_keys_changed);
    INSERT INTO player_rows SELECT * FROM players_live;
    DELETE FROM player_keys_changed;
END;
CREATE TRIGGER player_rows_after_delete AFTER DELETE ON game_rows
WHEN (SELECT current FROM player_rows_state) BEGIN
    DELETE FROM player_rows WHERE key IN (SELECT key FROM player_keys_changed);
    INSERT INTO player_rows SELECT * FROM players_live;
    DELETE FROM player_keys_changed;
END;
