-- pgnindex schema, version 13: tag names stored once; clocks and times
-- packed.
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

-- Clocks and times spent packed (store::plies): when every value of a
-- game fits, `ply_data.clocks` and `emts` hold a letter, then two or three
-- characters a ply, a base-64 number of units whose digits are the
-- characters `0` (48) to `o` (111), `~` in every character for no value:
-- `a` two characters, whole seconds; `b` three, tenths; `c` three, whole
-- seconds. Other games keep the JSON array; the rows stored before are
-- packed here as the import packs them (a JSON number with at most one
-- decimal is a whole number of tenths).
UPDATE ply_data SET clocks = coalesce((
    SELECT CASE
        WHEN sum(j.type NOT IN ('integer', 'null')) = 0 AND max(j.value) < 4096
        THEN 'a' || group_concat(CASE j.type WHEN 'null' THEN '~~'
                                 ELSE char(48 + j.value / 64, 48 + j.value % 64) END, '' ORDER BY j.key)
        WHEN sum(j.type = 'real' AND CAST(j.value AS TEXT) NOT GLOB '*.[0-9]') = 0
             AND max(j.value) * 10 < 262144
        THEN 'b' || group_concat(CASE j.type WHEN 'null' THEN '~~~'
                                 ELSE char(48 + CAST(round(j.value * 10) AS INTEGER) / 4096,
                                           48 + CAST(round(j.value * 10) AS INTEGER) / 64 % 64,
                                           48 + CAST(round(j.value * 10) AS INTEGER) % 64) END,
                                 '' ORDER BY j.key)
        WHEN sum(j.type NOT IN ('integer', 'null')) = 0 AND max(j.value) < 262144
        THEN 'c' || group_concat(CASE j.type WHEN 'null' THEN '~~~'
                                 ELSE char(48 + j.value / 4096, 48 + j.value / 64 % 64, 48 + j.value % 64) END,
                                 '' ORDER BY j.key)
    END
    FROM json_each(ply_data.clocks) AS j), clocks)
WHERE clocks LIKE '[%';

UPDATE ply_data SET emts = coalesce((
    SELECT CASE
        WHEN sum(j.type NOT IN ('integer', 'null')) = 0 AND max(j.value) < 4096
        THEN 'a' || group_concat(CASE j.type WHEN 'null' THEN '~~'
                                 ELSE char(48 + j.value / 64, 48 + j.value % 64) END, '' ORDER BY j.key)
        WHEN sum(j.type = 'real' AND CAST(j.value AS TEXT) NOT GLOB '*.[0-9]') = 0
             AND max(j.value) * 10 < 262144
        THEN 'b' || group_concat(CASE j.type WHEN 'null' THEN '~~~'
                                 ELSE char(48 + CAST(round(j.value * 10) AS INTEGER) / 4096,
                                           48 + CAST(round(j.value * 10) AS INTEGER) / 64 % 64,
                                           48 + CAST(round(j.value * 10) AS INTEGER) % 64) END,
                                 '' ORDER BY j.key)
        WHEN sum(j.type NOT IN ('integer', 'null')) = 0 AND max(j.value) < 262144
        THEN 'c' || group_concat(CASE j.type WHEN 'null' THEN '~~~'
                                 ELSE char(48 + j.value / 4096, 48 + j.value / 64 % 64, 48 + j.value % 64) END,
                                 '' ORDER BY j.key)
    END
    FROM json_each(ply_data.emts) AS j), emts)
WHERE emts LIKE '[%';

-- The view decodes both forms; 5070 and 324558 are `~~` and `~~~`, and
-- past the end unicode('') is NULL, as `->>` past an array's end is. (One
-- WHEN per form: a NULL column then costs one call a ply, not ten.)
DROP VIEW plies;
CREATE VIEW plies AS
SELECT g.id AS game_id,
       m.key + 1 AS ply,
       m.value AS san,
       CASE substr(d.clocks, 1, 1)
            WHEN '[' THEN CAST(d.clocks ->> m.key AS REAL)
            WHEN 'a' THEN nullif((unicode(substr(d.clocks, 2 + 2 * m.key, 1)) - 48) * 64
                                 + unicode(substr(d.clocks, 3 + 2 * m.key, 1)) - 48, 5070) * 1.0
            WHEN 'b' THEN nullif(((unicode(substr(d.clocks, 2 + 3 * m.key, 1)) - 48) * 64
                                  + unicode(substr(d.clocks, 3 + 3 * m.key, 1)) - 48) * 64
                                 + unicode(substr(d.clocks, 4 + 3 * m.key, 1)) - 48, 324558) / 10.0
            WHEN 'c' THEN nullif(((unicode(substr(d.clocks, 2 + 3 * m.key, 1)) - 48) * 64
                                  + unicode(substr(d.clocks, 3 + 3 * m.key, 1)) - 48) * 64
                                 + unicode(substr(d.clocks, 4 + 3 * m.key, 1)) - 48, 324558) * 1.0
       END AS clock,
       CASE substr(d.emts, 1, 1)
            WHEN '[' THEN CAST(d.emts ->> m.key AS REAL)
            WHEN 'a' THEN nullif((unicode(substr(d.emts, 2 + 2 * m.key, 1)) - 48) * 64
                                 + unicode(substr(d.emts, 3 + 2 * m.key, 1)) - 48, 5070) * 1.0
            WHEN 'b' THEN nullif(((unicode(substr(d.emts, 2 + 3 * m.key, 1)) - 48) * 64
                                  + unicode(substr(d.emts, 3 + 3 * m.key, 1)) - 48) * 64
                                 + unicode(substr(d.emts, 4 + 3 * m.key, 1)) - 48, 324558) / 10.0
            WHEN 'c' THEN nullif(((unicode(substr(d.emts, 2 + 3 * m.key, 1)) - 48) * 64
                                  + unicode(substr(d.emts, 3 + 3 * m.key, 1)) - 48) * 64
                                 + unicode(substr(d.emts, 4 + 3 * m.key, 1)) - 48, 324558) * 1.0
       END AS emt,
       CASE WHEN typeof(d.evals ->> m.key) = 'integer' THEN (d.evals ->> m.key) / 100.0 END AS eval,
       CASE WHEN typeof(d.evals ->> m.key) = 'text'
            THEN CAST(substr(d.evals ->> m.key, 2) AS INTEGER) END AS mate,
       d.nags ->> ('$."' || (m.key + 1) || '"') AS nags,
       d.comments ->> ('$."' || (m.key + 1) || '"') AS comment
FROM games AS g
JOIN json_each(CASE g.moves WHEN '' THEN '[]' ELSE '["' || replace(g.moves, ' ', '","') || '"]' END) AS m
LEFT JOIN ply_data AS d ON d.game_id = g.id;
