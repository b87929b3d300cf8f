-- pgnindex schema, version 29: what an import needs to add its games'
-- players to `player_rows` without counting every game of the database
-- again. `player_rows.scored` counts the games `score` averages (those
-- with a result 1-0, 0-1 or 1/2-1/2); `player_spellings` holds the games
-- of each spelling of the players written more than one way (a player
-- absent from it has one spelling, `name`, in all its games).
-- `player_rows_state.tallied` = 1: both hold for every game, but those of
-- a write of pgnindex under way. Any change to `game_rows` by SQL sets it
-- to 0, and the next write of pgnindex counts every game again.
-- The table is made again, empty, and `players` groups the games until
-- the next write of pgnindex (an import, `delete`, `vacuum`) fills it.
DROP TRIGGER player_rows_after_insert;
DROP TRIGGER player_rows_after_update;
DROP TRIGGER player_rows_after_delete;
DROP VIEW players;
DROP VIEW players_live;
DROP TABLE player_rows;
DROP TABLE player_rows_state;

CREATE TABLE player_rows (
    key         TEXT PRIMARY KEY,     -- the name normalised as the players view groups it
    name        TEXT NOT NULL,        -- the most frequent spelling
    games       INTEGER NOT NULL,
    white_games INTEGER NOT NULL,
    score       REAL,
    first_year  INTEGER,
    last_year   INTEGER,
    max_elo     INTEGER,
    scored      INTEGER               -- games with a result 1-0, 0-1 or 1/2-1/2 (those score averages)
) WITHOUT ROWID;
CREATE TABLE player_spellings (
    key   TEXT NOT NULL,     -- player_rows.key
    name  TEXT NOT NULL,     -- a spelling of the player's name
    games INTEGER NOT NULL,  -- the player's games under that spelling
    PRIMARY KEY (key, name)
) WITHOUT ROWID;
-- current = 1: `player_rows` holds the players of every game, the
-- triggers keep it so, and `players` reads it. 0: neither. tallied = 1:
-- `scored` and `player_spellings` hold too (but for a write under way).
CREATE TABLE player_rows_state (current INTEGER NOT NULL, tallied INTEGER NOT NULL);
INSERT INTO player_rows_state VALUES (0, 0);

CREATE VIEW players_live (key, name, games, white_games, score, first_year, last_year, max_elo, scored) AS
WITH sides AS (
    SELECT key, name, white, points, year, elo FROM player_sides
    WHERE NOT EXISTS (SELECT 1 FROM player_keys_changed)
       OR key IN (SELECT key FROM player_keys_changed)
),
grouped AS (
    SELECT key, count(*) AS games, sum(white) AS white_games, avg(points) AS score,
           min(year) AS first_year, max(year) AS last_year, max(elo) AS max_elo,
           count(points) AS scored
    FROM sides GROUP BY key
),
spellings AS (
    SELECT key, name,
           row_number() OVER (PARTITION BY key ORDER BY count(*) DESC, name) AS place
    FROM sides GROUP BY key, name
)
SELECT grouped.key, spellings.name, games, white_games, score, first_year, last_year, max_elo,
       scored
FROM grouped JOIN spellings ON spellings.key = grouped.key AND spellings.place = 1;

CREATE VIEW players AS
SELECT name, games, white_games, games - white_games AS black_games, score, first_year,
       last_year, max_elo
FROM players_live;

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

-- Rows written by SQL, whatever `current` says (also during a write of
-- pgnindex, which appends its rows by hand, not by SQL).
CREATE TRIGGER player_tallies_after_insert AFTER INSERT ON game_rows
WHEN (SELECT tallied FROM player_rows_state) BEGIN
    UPDATE player_rows_state SET tallied = 0;
END;
CREATE TRIGGER player_tallies_after_update
AFTER UPDATE OF id, white, black, result, year, white_elo, black_elo ON game_rows
WHEN (SELECT tallied FROM player_rows_state) BEGIN
    UPDATE player_rows_state SET tallied = 0;
END;
CREATE TRIGGER player_tallies_after_delete AFTER DELETE ON game_rows
WHEN (SELECT tallied FROM player_rows_state) BEGIN
    UPDATE player_rows_state SET tallied = 0;
END;
