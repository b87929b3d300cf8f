-- pgnindex schema, version 13: tag names stored once.
--
-- `game_tags.pairs` repeated every pair's name in every game (`UTCDate`,
-- `WhiteRatingDiff`, `ECOUrl`…: a third of its bytes). Names now live in
-- `tag_names`, and each pair is one JSON string, the name's id and the
-- value joined by a colon: `["1:2017.12.15","2:00:00:38"]`. The `tags`
-- view reads the same as before, in plain SQL.

CREATE TABLE tag_names (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE             -- the tag name as written
);

-- The most used names get the shortest ids.
INSERT INTO tag_names (name)
    SELECT j.value ->> 0 FROM game_tags AS t, json_each(t.pairs) AS j
    GROUP BY 1 ORDER BY count(*) DESC, 1;

UPDATE game_tags SET pairs = (
    SELECT json_group_array(n.id || ':' || (j.value ->> 1) ORDER BY j.key)
    FROM json_each(game_tags.pairs) AS j JOIN tag_names AS n ON n.name = j.value ->> 0
);

-- One row per tag pair, as before. The id is the number before the first
-- colon (what CAST reads), the value all after it: cut as bytes, because
-- substr() of a text stops at a NUL character, which a value may hold.
DROP VIEW tags;
CREATE VIEW tags (game_id, ord, name, value) AS
    SELECT t.game_id, j.key,
           (SELECT n.name FROM tag_names AS n WHERE n.id = CAST(j.value AS INTEGER)),
           CAST(substr(CAST(j.value AS BLOB), instr(j.value, ':') + 1) AS TEXT)
    FROM game_tags AS t, json_each(t.pairs) AS j;
