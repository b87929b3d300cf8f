-- pgnindex schema, version 11: movetext stored only when it cannot be
-- written back.
--
-- `games.movetext` may be NULL: the import stores none for a game whose
-- movetext pgnindex writes back from `moves`, `result` and its `ply_data`
-- row (see docs/schema.md; the queries, and `pgnindex sql`'s `movetexts`
-- view, give the written-back text). Games stored before keep theirs.
--
-- SQLite cannot drop a NOT NULL constraint with ALTER TABLE; the table's
-- definition is edited in place instead, as SQLite's documentation allows
-- for a change that leaves every stored row valid (lang_altertable.html,
-- "Making Other Kinds Of Table Schema Changes"). The ALTER TABLE below
-- changes the schema cookie, so that every connection reads the new
-- definition.
PRAGMA writable_schema = ON;
UPDATE sqlite_master
SET sql = replace(sql,
    'movetext      TEXT NOT NULL,          -- the movetext as written (comments, variations, NAGs)',
    'movetext      TEXT,                   -- the movetext as written (comments, variations, NAGs); NULL: written back from moves, result and ply_data')
WHERE type = 'table' AND name = 'games';
PRAGMA writable_schema = OFF;

-- How the comments of a game stored without its movetext wrote
-- evaluations: NULL for `[%eval 0.17]` commands, 1 for a score alone
-- from the mover's point of view (`{ 0.33 }`).
ALTER TABLE ply_data ADD COLUMN notes_form INTEGER;
