-- pgnindex schema, version 22: new segment tables are named
-- `z_positions_NNNNNN` and `z_dedupe_NNNNNN`, so that a listing of the
-- tables shows them after the tables and views users query. Segments made
-- before keep their names until a merge or `vacuum` replaces them; the
-- version keeps older binaries, which know only the old names, out.
SELECT 1;
