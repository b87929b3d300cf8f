-- pgnindex schema, version 32: each side's use of its clock per game,
-- beside the clocks, so that the time spent per move, per game or per
-- player is read without decoding every ply. For a side: its moves whose
-- `clock` and `previous_clock` (the `plies` view's) are both known, and
-- over them the sum and the largest of `previous_clock - clock`, in
-- milliseconds (a move took its drop plus the game's increment): exact
-- integers, 3 or 4 bytes where seconds with a fraction take 8. NULL when
-- the game has no clock. The import fills them; the triggers below fill them
-- when SQL writes a row's clocks, or a game's start position or moves.
ALTER TABLE ply_data ADD COLUMN white_clock_moves INTEGER;
ALTER TABLE ply_data ADD COLUMN white_clock_drop_ms INTEGER;
ALTER TABLE ply_data ADD COLUMN white_clock_max_drop_ms INTEGER;
ALTER TABLE ply_data ADD COLUMN black_clock_moves INTEGER;
ALTER TABLE ply_data ADD COLUMN black_clock_drop_ms INTEGER;
ALTER TABLE ply_data ADD COLUMN black_clock_max_drop_ms INTEGER;

CREATE TRIGGER ply_data_clock_use_insert AFTER INSERT ON ply_data
WHEN new.clocks IS NOT NULL AND new.white_clock_moves IS NULL BEGIN
    UPDATE ply_data SET clocks = clocks WHERE game_id = new.game_id;
END;

-- The view's seconds back to whole milliseconds, which the import reads.
-- `LIMIT -1` keeps the rows a subquery: flattened, each aggregate would
-- decode the clocks again (2.7× the time).
CREATE TRIGGER ply_data_clock_use_update AFTER UPDATE OF clocks ON ply_data BEGIN
    UPDATE ply_data SET (white_clock_moves, white_clock_drop_ms, white_clock_max_drop_ms,
                         black_clock_moves, black_clock_drop_ms, black_clock_max_drop_ms) = (
        SELECT count(c.s) FILTER (WHERE c.w), CAST(round(1000 * total(c.s) FILTER (WHERE c.w)) AS INTEGER),
               CAST(round(1000 * max(c.s) FILTER (WHERE c.w)) AS INTEGER),
               count(c.s) FILTER (WHERE NOT c.w), CAST(round(1000 * total(c.s) FILTER (WHERE NOT c.w)) AS INTEGER),
               CAST(round(1000 * max(c.s) FILTER (WHERE NOT c.w)) AS INTEGER)
        FROM (SELECT p.previous_clock - p.clock AS s,
                     (p.ply - 1 + coalesce(substr(r.start_fen, instr(r.start_fen, ' ') + 1, 1) = 'b', 0)) % 2 = 0 AS w
              FROM game_rows AS r, plies AS p
              WHERE r.id = new.game_id AND p.game_id = r.id LIMIT -1) AS c)
    WHERE game_id = new.game_id AND clocks IS NOT NULL;
    UPDATE ply_data SET white_clock_moves = NULL, white_clock_drop_ms = NULL, white_clock_max_drop_ms = NULL,
                        black_clock_moves = NULL, black_clock_drop_ms = NULL, black_clock_max_drop_ms = NULL
    WHERE game_id = new.game_id AND clocks IS NULL;
END;

CREATE TRIGGER ply_data_clock_use_game AFTER UPDATE OF start_fen, packed_moves ON game_rows
WHEN new.start_fen IS NOT old.start_fen OR new.packed_moves IS NOT old.packed_moves BEGIN
    UPDATE ply_data SET clocks = clocks WHERE game_id = new.id;
END;

-- The rows stored so far, by the trigger above.
UPDATE ply_data SET clocks = clocks WHERE clocks IS NOT NULL;
