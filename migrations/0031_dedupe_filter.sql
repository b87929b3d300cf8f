-- pgnindex schema, version 31: the importer's dedupe filter kept between
-- imports. Each import used to build its Bloom filter of every stored
-- dedupe key by reading every segment: a pass over all the keys that grew
-- with the database. Now an import that built or loaded the filter writes
-- it back at its end, and marks the segments whose keys it holds; the
-- next import loads it and reads only the segments not marked (those of
-- an import cut before its end). A merge's segment is marked only if all
-- its parts were.
ALTER TABLE dedupe_segments ADD COLUMN in_filter INTEGER NOT NULL DEFAULT 0; -- 1: its keys are in dedupe_filter

CREATE TABLE dedupe_filter (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    inserted INTEGER NOT NULL,            -- keys set into it, repeats counted
    words    BLOB NOT NULL                -- the blocked Bloom filter: 64-bit words, little-endian
);
