-- pgnindex schema, version 3: tag pairs stored one row per game.
--
-- Version 1 stored each tag pair as a row of a `tags` table, and that row
-- cost the import more than the game's own row (an index insert per tag,
-- three to ten tags a game in real files). Now each game that has other
-- tag pairs has one `game_tags` row holding them all as JSON, and `tags`
-- is a view with the same columns as before, so queries read it as they
-- did. Lookups by game (`WHERE game_id = ?`, joins on games.id) use the
-- key of `game_tags`; a search by tag name or value reads every row.

CREATE TABLE game_tags (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    pairs   TEXT NOT NULL                 -- [[name, value], ...] as JSON, in tag-section order
);
INSERT INTO game_tags (game_id, pairs)
    SELECT game_id, json_group_array(json_array(name, value) ORDER BY ord)
    FROM tags GROUP BY game_id;
DROP TABLE tags;

-- One row per tag pair, as the version-1 table had them.
CREATE VIEW tags (game_id, ord, name, value) AS
    SELECT t.game_id, j.key, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]')
    FROM game_tags AS t, json_each(t.pairs) AS j;
