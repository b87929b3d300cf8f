-- pgnindex schema, version 9: the opening of a game by position.
--
-- The import names the last position of a game's mainline that a row of
-- the lichess opening names data set names (replay::openings holds the
-- table and the rule). Games stored before keep NULL: naming them needs
-- the moves replayed, which SQL cannot do; importing their sources into a
-- new database fills the columns.
ALTER TABLE games ADD COLUMN opening_eco TEXT;     -- the row's ECO code (A00-E99); NULL: FEN start, no named position reached, or stored before schema 9
ALTER TABLE games ADD COLUMN opening_name TEXT;    -- the row's English name ("Family: Variation, Subvariation"); NULL as opening_eco
ALTER TABLE games ADD COLUMN opening_ply INTEGER;  -- half-moves played to reach the named position (1 = after White's first move); NULL as opening_eco
