-- pgnindex schema, version 8: the `players` view.
--
-- One row per player, whatever colour: the games' White and Black names
-- grouped by a normalised key, so that spellings that differ only in
-- ASCII letter case, surrounding spaces, runs of inner spaces (up to 16),
-- trailing dots, or the space after a comma (`Carlsen,Magnus`,
-- `carlsen, magnus.`) are one player. Names that are empty or only `?`
-- and `-` are no player. Plain SQL: any SQLite tool reads it.
--
--   name         the player's most frequent spelling (ties: the first in
--                binary order)
--   games        games played, either colour
--   white_games  games played with White
--   black_games  games played with Black
--   score        points per game over the games with a result 1-0, 0-1 or
--                1/2-1/2 (a win 1, a draw 0.5); NULL when none has one
--   first_year   the earliest games.year; NULL when no game has one
--   last_year    the latest games.year; NULL likewise
--   max_elo      the highest rating the player's Elo tags give; NULL when
--                none does
CREATE VIEW players AS
WITH sides (name, white, points, year, elo) AS (
    SELECT white, 1,
           CASE result WHEN '1-0' THEN 1.0 WHEN '0-1' THEN 0.0 WHEN '1/2-1/2' THEN 0.5 END,
           year, white_elo
    FROM games WHERE white IS NOT NULL
    UNION ALL
    SELECT black, 0,
           CASE result WHEN '0-1' THEN 1.0 WHEN '1-0' THEN 0.0 WHEN '1/2-1/2' THEN 0.5 END,
           year, black_elo
    FROM games WHERE black IS NOT NULL
),
keyed AS (
    SELECT rtrim(replace(replace(
               replace(replace(replace(replace(lower(trim(name)),
                   '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '),
               ', ', ','), ' ,', ','), '. ') AS key,
           name, white, points, year, elo
    FROM sides
),
players AS (
    SELECT key, count(*) AS games, sum(white) AS white_games, avg(points) AS score,
           min(year) AS first_year, max(year) AS last_year, max(elo) AS max_elo
    FROM keyed
    WHERE trim(key, '?-') <> ''
    GROUP BY key
),
spellings AS (
    SELECT key, name,
           row_number() OVER (PARTITION BY key ORDER BY count(*) DESC, name) AS place
    FROM keyed
    GROUP BY key, name
)
SELECT spellings.name AS name, games, white_games, games - white_games AS black_games,
       score, first_year, last_year, max_elo
FROM players JOIN spellings ON spellings.key = players.key AND spellings.place = 1;
