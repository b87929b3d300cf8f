-- pgnindex schema, version 21: the explorer's deep positions.
--
-- The tree counts a game at its first occurrence of a position within
-- `explorer_tree_state.max_ply` plies. A position a batch of the import
-- finds at its first occurrence between those plies and ply 12 in at
-- least `deep_games` games becomes deep: from `deep_from` on, the tree
-- counts a game at its first occurrence within 12 plies, and
-- `explorer_late` lists the games that reach it only later. The games
-- before `deep_from` are searched in the position index. Positions that
-- `explorer_late` lists by their reach (`late_reach`) never become deep.
-- A rebuilt tree (after a delete outside pgnindex) counts the same.
CREATE TABLE explorer_deep (
    hash INTEGER PRIMARY KEY,     -- Polyglot key, as positions.hash
    deep_from INTEGER NOT NULL    -- the first game counted to ply 12
);

ALTER TABLE explorer_tree_state ADD COLUMN deep_games INTEGER NOT NULL DEFAULT 16;
