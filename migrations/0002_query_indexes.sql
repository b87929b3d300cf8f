-- pgnindex schema, version 2: an index for the query commands.

-- The columns the opening explorer counts (result, ratings, date) and the
-- ones `pgnindex info` tallies (eco, event), in game id order. The
-- explorer reads them for every game that reaches a position (a million
-- games for the start position of a large database): scanning or probing
-- this narrow index in id order costs a fraction of reading the wide
-- `games` rows, whose movetext fills several pages each. Ids grow with
-- the import, so the importer only ever appends to it.
CREATE INDEX games_summary ON games(id, result, white_elo, black_elo, date, eco, event);
