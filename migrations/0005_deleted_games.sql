-- pgnindex schema, version 5: deleting games.
--
-- The position and dedupe segments are keyed by position and by dedupe
-- key, not by game: removing a game's rows from them means reading every
-- segment. So a DELETE on `games` removes the game's `game_tags` row (the
-- foreign key would refuse the delete otherwise), takes the game out of
-- its source's counters, and records its id here; the `positions` view
-- leaves recorded ids out, the importer's merges drop their rows as they
-- copy segments, and `pgnindex vacuum` drops the rest and empties this
-- table. An import never gives a recorded id to a new game.
CREATE TABLE deleted_games (
    game_id INTEGER PRIMARY KEY           -- a deleted games.id whose index rows may remain
);

-- Games deleted by hand before this version left their rows behind too:
-- the ids missing below the largest one (ids are given in a row).
WITH RECURSIVE ids(id) AS (
    SELECT 1 WHERE EXISTS (SELECT 1 FROM games)
    UNION ALL
    SELECT id + 1 FROM ids WHERE id < (SELECT max(id) FROM games)
)
INSERT INTO deleted_games (game_id) SELECT id FROM ids WHERE id NOT IN (SELECT id FROM games);

-- The position rows a stored game has: none when its FEN tag could not be
-- read (`final_fen` NULL), else plies 0 to its last, at most 65,535; a
-- source's counter never goes below zero (an import with --no-positions
-- counted none).
CREATE TRIGGER games_delete AFTER DELETE ON games BEGIN
    DELETE FROM game_tags WHERE game_id = old.id;
    INSERT OR IGNORE INTO deleted_games (game_id) VALUES (old.id);
    UPDATE sources SET
        games = max(games - 1, 0),
        positions = max(positions - CASE WHEN old.final_fen IS NULL THEN 0
                                         ELSE min(old.ply_count, 65535) + 1 END, 0)
    WHERE id = old.source_id;
END;
