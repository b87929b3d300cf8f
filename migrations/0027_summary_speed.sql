-- pgnindex schema, version 27: the games' summary index also holds each
-- game's speed, so that a reader that ranks games by speed (the explorer
-- server's top games, weighted per speed as lichess weighs them) reads it
-- with the ratings and the date, without a seek into each game's row.
DROP INDEX games_summary;
CREATE INDEX games_summary ON game_rows(id, result, white_elo, black_elo, date, year, month, day, eco, event_id, speed_id);
