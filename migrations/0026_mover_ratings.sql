-- pgnindex schema, version 26: the explorer's tree sums the rating of the
-- player who made each move, not of both players, so that a move's
-- average rating is that of the players who chose it (as lichess, SCID
-- and ChessBase give it). The side to move is the position's, so every
-- row's games have the same mover. The sums of both players cannot be
-- split: the tree is emptied and marked incomplete, and the next import
-- or delete fills it from the position index; the explorer reads the
-- index meanwhile.
DROP TABLE explorer_tree;
CREATE TABLE explorer_tree (
    hash INTEGER NOT NULL,             -- Polyglot key, as positions.hash
    next_move INTEGER NOT NULL,        -- code of the move played (positions.next_move); -1: the games end there
    games INTEGER NOT NULL,            -- games counted
    white_wins INTEGER NOT NULL,       -- of those, result 1-0
    draws INTEGER NOT NULL,            -- 1/2-1/2
    black_wins INTEGER NOT NULL,       -- 0-1
    mover_elo_sum INTEGER NOT NULL,    -- sum of the ratings present of the player to move
    mover_elo_count INTEGER NOT NULL,  -- ratings summed
    last_date TEXT,                    -- latest date whose year is known, as stored
    PRIMARY KEY (hash, next_move)
) WITHOUT ROWID;
UPDATE explorer_tree_state SET complete = 0;
