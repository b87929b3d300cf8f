-- pgnindex schema, version 20: the explorer's late visits.
--
-- The explorer's tree counts a game at its first occurrence of a position
-- within `explorer_tree_state.max_ply` plies. A game that reaches one of
-- the tree's positions only later must be counted apart: `explorer_late`
-- lists, for each game, every position whose first occurrence in the
-- game lies past those plies, if a game from the standard start could
-- reach the position within `late_reach` plies (`min_plies` in
-- src/chess/reach.rs, a lower bound the importer takes). The other
-- positions of the tree (those of the plies past `late_reach`, of games
-- from a FEN, of Chess960) are searched in the position index: fewer
-- games reach each of them.
--
-- Games stored before this version have no rows here: the explorer
-- searches the position index for theirs (`late_from`).
CREATE TABLE explorer_late (
    hash INTEGER NOT NULL,        -- Polyglot key, as positions.hash
    game_id INTEGER NOT NULL,     -- the game (rows of deleted games stay until a vacuum)
    next_move INTEGER NOT NULL,   -- code of the move played there the first time; -1: the game ends there
    PRIMARY KEY (hash, game_id)
) WITHOUT ROWID;

-- Games from this id on have their late visits listed, those of the
-- positions a game from the standard start may reach within `late_reach`
-- plies.
ALTER TABLE explorer_tree_state ADD COLUMN late_from INTEGER;
ALTER TABLE explorer_tree_state ADD COLUMN late_reach INTEGER NOT NULL DEFAULT 4;
UPDATE explorer_tree_state SET late_from = max(
    coalesce((SELECT max(id) FROM game_rows), 0),
    coalesce((SELECT max(game_id) FROM deleted_games), 0),
    coalesce((SELECT max(game_id) FROM import_errors), 0)) + 1;
