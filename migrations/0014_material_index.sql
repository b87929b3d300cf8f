-- pgnindex schema, version 14: the material index.
--
-- One row per game with a start position: its mainline's material
-- stretches (positions in a row with the same material), in the compact
-- form store::material writes (docs/schema.md). `--material` and
-- `--pattern` read it instead of replaying every game.
CREATE TABLE game_material (
    game_id   INTEGER PRIMARY KEY REFERENCES games(id),
    stretches BLOB NOT NULL
);

-- Games stored before this version have no row: the queries replay the
-- games up to this id that lack one. Every game stored later has its row
-- (game ids only grow), but a game without a start position.
CREATE TABLE material_backlog (last_game_id INTEGER NOT NULL);
INSERT INTO material_backlog (last_game_id) SELECT coalesce(max(id), 0) FROM games;

CREATE TRIGGER games_delete_material AFTER DELETE ON games BEGIN
    DELETE FROM game_material WHERE game_id = old.id;
END;
