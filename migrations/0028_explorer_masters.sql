-- pgnindex schema, version 28: the explorer's tree of masters games, so
-- that `/masters` over a database of all kinds of games (lichess's masters
-- collection: both players rated, averaging 2200 or more, not played
-- online) answers from counts, as the whole tree does, instead of reading
-- every game of a popular position. Same columns and meaning as
-- `explorer_tree`, over the masters games only. The tree is marked
-- incomplete: the next import or delete fills both from the position
-- index; the explorer reads the index meanwhile.
CREATE TABLE explorer_masters (
    hash INTEGER NOT NULL,             -- Polyglot key, as positions.hash
    next_move INTEGER NOT NULL,        -- code of the move played (positions.next_move); -1: the games end there
    games INTEGER NOT NULL,            -- masters games counted
    white_wins INTEGER NOT NULL,       -- of those, result 1-0
    draws INTEGER NOT NULL,            -- 1/2-1/2
    black_wins INTEGER NOT NULL,       -- 0-1
    mover_elo_sum INTEGER NOT NULL,    -- sum of the ratings of the player to move
    mover_elo_count INTEGER NOT NULL,  -- ratings summed
    last_date TEXT,                    -- latest date whose year is known, as stored
    PRIMARY KEY (hash, next_move)
) WITHOUT ROWID;
UPDATE explorer_tree_state SET complete = 0;
