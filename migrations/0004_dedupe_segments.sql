-- pgnindex schema, version 4: the dedupe keys in sorted segments.
--
-- Version 3 indexed games(dedupe_key): every stored game inserted its key
-- at a random place of one B-tree, so each import transaction rewrote
-- pages all over that index (at a million games, nearly every page of it
-- per batch). Now each import batch writes its keys, sorted, into a new
-- table, and segments are merged as they accumulate, as the position
-- index does. Only the importer reads these tables; `games.dedupe_key`
-- keeps each game's key.
CREATE TABLE dedupe_segments (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE,           -- the segment table
    level INTEGER NOT NULL,               -- 0 for a batch, n+1 for a merge of level-n segments
    rows  INTEGER NOT NULL
);

-- The keys stored so far, as one segment of a level no merge reaches
-- (empty in a new database: the importer drops it then).
CREATE TABLE dedupe_000001 (
    key     INTEGER NOT NULL,
    game_id INTEGER NOT NULL,
    PRIMARY KEY (key, game_id)
) WITHOUT ROWID;
INSERT INTO dedupe_000001 (key, game_id) SELECT dedupe_key, id FROM games ORDER BY 1, 2;
INSERT INTO dedupe_segments (id, name, level, rows)
    SELECT 1, 'dedupe_000001', 1000, count(*) FROM dedupe_000001;
DROP INDEX games_dedupe;
