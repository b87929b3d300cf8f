-- pgnindex schema, version 15: the explorer's opening tree.
--
-- For every stored game and every position it reaches within its first
-- `explorer_tree_state.max_ply` plies, the game counted once, at its first
-- occurrence of the position, with the move it played there: what
-- `pgnindex explore` counts, precomputed for the positions that most games
-- reach. The importer adds each batch's games; `pgnindex delete` takes its
-- games out. The tree is filled by the next import or delete (from the
-- position index), not here: until then the explorer reads the index.
CREATE TABLE explorer_tree (
    hash INTEGER NOT NULL,        -- Polyglot key, as positions.hash
    next_move INTEGER NOT NULL,   -- code of the move played (positions.next_move); -1: the games end there
    games INTEGER NOT NULL,       -- games counted
    white_wins INTEGER NOT NULL,  -- of those, result 1-0
    draws INTEGER NOT NULL,       -- 1/2-1/2
    black_wins INTEGER NOT NULL,  -- 0-1
    elo_sum INTEGER NOT NULL,     -- sum of the players' ratings present
    elo_count INTEGER NOT NULL,   -- ratings summed
    last_date TEXT,               -- latest date whose year is known, as stored
    PRIMARY KEY (hash, next_move)
) WITHOUT ROWID;

-- One row. `complete` is 0 when the tree does not count every stored game
-- as above (before its first filling, or after games were deleted other
-- than by `pgnindex delete`); the explorer ignores the tree then, and the
-- next import or delete rebuilds it.
CREATE TABLE explorer_tree_state (
    max_ply INTEGER NOT NULL,     -- positions counted up to this ply
    complete INTEGER NOT NULL     -- 1: the tree is exact
);
INSERT INTO explorer_tree_state (max_ply, complete) VALUES (6, 0);

-- A game deleted by hand leaves its counts in the tree: marked incomplete.
-- `pgnindex delete` takes the games out of the tree and marks it complete
-- again in the same transaction.
CREATE TRIGGER explorer_tree_delete AFTER DELETE ON games BEGIN
    UPDATE explorer_tree_state SET complete = 0 WHERE complete <> 0;
END;
