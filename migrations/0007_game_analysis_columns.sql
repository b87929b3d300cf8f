-- pgnindex schema, version 7: a game's date and time control as numbers.
--
-- The import fills these columns from the Date, TimeControl and Event tags
-- (store::analysis holds the rules, in Rust); the UPDATE below fills them
-- for games stored before, by the same rules in SQL. A date is read only
-- in the form YYYY.MM.DD; a time control by its first period (the text
-- before a ':'): S, S+I, M/S or M/S+I, each number 1 to 9 digits.
ALTER TABLE games ADD COLUMN year INTEGER;         -- Date's year; NULL when written ?? (or 0000), or the date is not YYYY.MM.DD
ALTER TABLE games ADD COLUMN month INTEGER;        -- Date's month 1-12; NULL when ??, out of range, or no YYYY.MM.DD date
ALTER TABLE games ADD COLUMN day INTEGER;          -- Date's day 1-31 (no calendar check); NULL as month
ALTER TABLE games ADD COLUMN tc_base INTEGER;      -- seconds on the clock in the first period; NULL: no clock read (?, -, 1/86400, other forms)
ALTER TABLE games ADD COLUMN tc_increment INTEGER; -- seconds added per move in the first period (0 when none written); NULL as tc_base
ALTER TABLE games ADD COLUMN speed TEXT;           -- ultrabullet, bullet, blitz, rapid, classical (by tc_base + 40 * tc_increment) or correspondence; NULL unknown

UPDATE games SET
    year = CASE WHEN shaped AND substr(date, 1, 4) NOT GLOB '*[^0-9]*'
                     AND CAST(substr(date, 1, 4) AS INTEGER) BETWEEN 1 AND 9999
                THEN CAST(substr(date, 1, 4) AS INTEGER) END,
    month = CASE WHEN shaped AND substr(date, 6, 2) NOT GLOB '*[^0-9]*'
                      AND CAST(substr(date, 6, 2) AS INTEGER) BETWEEN 1 AND 12
                 THEN CAST(substr(date, 6, 2) AS INTEGER) END,
    day = CASE WHEN shaped AND substr(date, 9, 2) NOT GLOB '*[^0-9]*'
                    AND CAST(substr(date, 9, 2) AS INTEGER) BETWEEN 1 AND 31
               THEN CAST(substr(date, 9, 2) AS INTEGER) END,
    tc_base = CASE WHEN clock THEN CAST(base AS INTEGER) END,
    tc_increment = CASE WHEN clock THEN CAST(increment AS INTEGER) END,
    speed = CASE
        WHEN event LIKE '%correspondence%' OR time_control LIKE '%correspondence%'
             OR (valid AND period_moves IS NOT NULL AND CAST(period_moves AS INTEGER) = 1) THEN 'correspondence'
        WHEN NOT clock THEN NULL
        WHEN CAST(base AS INTEGER) + 40 * CAST(increment AS INTEGER) < 30 THEN 'ultrabullet'
        WHEN CAST(base AS INTEGER) + 40 * CAST(increment AS INTEGER) < 180 THEN 'bullet'
        WHEN CAST(base AS INTEGER) + 40 * CAST(increment AS INTEGER) < 480 THEN 'blitz'
        WHEN CAST(base AS INTEGER) + 40 * CAST(increment AS INTEGER) < 1500 THEN 'rapid'
        ELSE 'classical' END
FROM (
    -- Each step reads the one below: the first period, its moves and the
    -- rest, base and increment, their checks. (OFFSET 0 keeps SQLite from
    -- flattening the steps into one another, which copies every expression
    -- into each of its uses: the statement compiles ten times faster.)
    -- valid: every number of the first period is 1 to 9 digits. clock: a
    -- valid period that is no one-move (daily) period.
    SELECT id AS game_id, shaped, period_moves, base, increment, valid,
           valid AND (period_moves IS NULL OR CAST(period_moves AS INTEGER) <> 1) AS clock
    FROM (
        SELECT id, shaped, period_moves, base, increment,
               coalesce(base <> '' AND length(base) <= 9 AND base NOT GLOB '*[^0-9]*'
                        AND increment <> '' AND length(increment) <= 9
                        AND increment NOT GLOB '*[^0-9]*'
                        AND (period_moves IS NULL
                             OR (period_moves <> '' AND length(period_moves) <= 9
                                 AND period_moves NOT GLOB '*[^0-9]*')), 0) AS valid
        FROM (
            SELECT id, shaped, period_moves,
                   CASE WHEN instr(rest, '+') > 0 THEN substr(rest, 1, instr(rest, '+') - 1)
                        ELSE rest END AS base,
                   CASE WHEN instr(rest, '+') > 0 THEN substr(rest, instr(rest, '+') + 1)
                        ELSE '0' END AS increment
            FROM (
                SELECT id, shaped,
                       CASE WHEN instr(period, '/') > 0
                            THEN substr(period, 1, instr(period, '/') - 1) END AS period_moves,
                       CASE WHEN instr(period, '/') > 0
                            THEN substr(period, instr(period, '/') + 1) ELSE period END AS rest
                FROM (
                    SELECT id,
                           coalesce(date GLOB '[0-9?][0-9?][0-9?][0-9?].[0-9?][0-9?].[0-9?][0-9?]', 0)
                               AS shaped,
                           CASE WHEN instr(time_control, ':') > 0
                                THEN substr(time_control, 1, instr(time_control, ':') - 1)
                                ELSE time_control END AS period
                    FROM games LIMIT -1 OFFSET 0
                ) LIMIT -1 OFFSET 0
            ) LIMIT -1 OFFSET 0
        ) LIMIT -1 OFFSET 0
    ) LIMIT -1 OFFSET 0
) AS parsed
WHERE parsed.game_id = games.id;

-- `pgnindex info` counts the games per speed, and `--speed` finds them,
-- from this narrow index rather than the wide rows.
CREATE INDEX games_speed ON games(speed);
