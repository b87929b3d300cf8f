-- pgnindex schema, version 6: how each source's positions were indexed.
--
-- An import with --no-positions or --max-ply N indexes part of its games'
-- positions or none; a position search over such games must say what it
-- cannot see rather than answer 0. The import records its settings per
-- source.
ALTER TABLE sources ADD COLUMN positions_indexed INTEGER; -- 1 positions indexed, 0 none (--no-positions); NULL unknown
ALTER TABLE sources ADD COLUMN max_ply INTEGER;           -- the last ply indexed (--max-ply); NULL: every ply (or unknown)

-- Sources imported before: what their counters tell. None indexed when
-- games were stored without one position row; all when the rows are as
-- many as a full index of their games has; else unknown.
UPDATE sources SET positions_indexed = 0 WHERE games > 0 AND positions = 0;
WITH full_index (source_id, rows) AS (
    SELECT source_id,
           sum(CASE WHEN final_fen IS NULL THEN 0 ELSE min(ply_count, 65535) + 1 END)
    FROM games GROUP BY source_id
)
UPDATE sources SET positions_indexed = 1
    FROM full_index
    WHERE full_index.source_id = sources.id AND sources.positions > 0
      AND sources.positions = full_index.rows;

-- The trigger of version 5, counting a deleted game's position rows as its
-- source indexed them.
DROP TRIGGER games_delete;
CREATE TRIGGER games_delete AFTER DELETE ON games BEGIN
    DELETE FROM game_tags WHERE game_id = old.id;
    INSERT OR IGNORE INTO deleted_games (game_id) VALUES (old.id);
    UPDATE sources SET
        games = max(games - 1, 0),
        positions = max(positions - CASE WHEN old.final_fen IS NULL OR positions_indexed = 0 THEN 0
                                         ELSE min(old.ply_count, coalesce(max_ply, 65535), 65535) + 1 END, 0)
    WHERE id = old.source_id;
END;
