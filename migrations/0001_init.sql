-- pgnindex schema, version 1.
-- Applied once, in order with the other files of migrations/, when a
-- database is created or opened by a newer pgnindex; PRAGMA user_version
-- holds the number of the last file applied.

-- Every input file (or stdin) an import read.
CREATE TABLE sources (
    id          INTEGER PRIMARY KEY,
    path        TEXT NOT NULL,            -- as given on the command line ('-' for stdin)
    size        INTEGER,                  -- bytes on disk (NULL for stdin)
    mtime       INTEGER,                  -- modification time, seconds since 1970 (NULL for stdin)
    fingerprint TEXT,                     -- xxh3-128 of the file's bytes, hex (NULL for stdin)
    games       INTEGER NOT NULL DEFAULT 0, -- games stored from this source
    duplicates  INTEGER NOT NULL DEFAULT 0, -- games skipped as already stored
    errors      INTEGER NOT NULL DEFAULT 0, -- games with an error (stored up to the bad move, or skipped)
    positions   INTEGER NOT NULL DEFAULT 0, -- position rows stored
    resume_offset INTEGER NOT NULL DEFAULT 0, -- bytes of input whose games are all committed
    started_at  TEXT NOT NULL,            -- UTC, ISO 8601
    finished_at TEXT,                     -- UTC, ISO 8601; NULL while the import runs or if it was cut
    seconds     REAL                      -- import time of this source
);
CREATE INDEX sources_fingerprint ON sources(fingerprint);

-- One row per stored game, ids 1.. in input order.
CREATE TABLE games (
    id            INTEGER PRIMARY KEY,
    event         TEXT,
    site          TEXT,
    date          TEXT,                   -- PGN form YYYY.MM.DD, '??' kept
    round         TEXT,
    white         TEXT,
    black         TEXT,
    result        TEXT,                   -- 1-0, 0-1, 1/2-1/2 or * (the Result tag, else the result token)
    white_elo     INTEGER,
    black_elo     INTEGER,
    eco           TEXT,
    opening       TEXT,
    time_control  TEXT,
    termination   TEXT,
    ply_count     INTEGER NOT NULL,       -- half-moves stored in `moves`
    start_fen     TEXT,                   -- NULL for the standard start position
    final_fen     TEXT,                   -- NULL when the FEN tag could not be read
    moves         TEXT NOT NULL,          -- mainline in canonical SAN, space separated
    movetext      TEXT NOT NULL,          -- the movetext as written (comments, variations, NAGs)
    source_id     INTEGER REFERENCES sources(id),
    source_offset INTEGER,                -- byte offset of the game in the (decompressed) input
    error         TEXT,                   -- NULL, or why the replay stopped before the end
    dedupe_key    INTEGER NOT NULL        -- hash of players, date, event, round, result and moves
);
CREATE INDEX games_dedupe ON games(dedupe_key);

-- Tag pairs that have no column in `games`.
-- Keyed by (game_id, ord): rows of a game are together and in the order
-- written, and the key serves lookups by game without a second index.
CREATE TABLE tags (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ord     INTEGER NOT NULL,             -- 0.. in the order of the game's tag section
    name    TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (game_id, ord)
) WITHOUT ROWID;

-- The position index. `positions` is a view with one row per indexed
-- position of a game: ply 0 is the start position, ply_count the final one.
--   hash      the Polyglot key as a signed 64-bit integer;
--   game_id   the game (games.id);
--   ply       half-moves played before the position;
--   next_move the move played from the position as a compact integer:
--             from + 64 * to + 4096 * promotion (squares a1 = 0 … h8 = 63,
--             promotion 0 none, 1 knight, 2 bishop, 3 rook, 4 queen;
--             castling as UCI writes it: e1g1 in standard chess, king takes
--             rook in Chess960); 0 for a null move, NULL at the final
--             position;
--   fen       the position's FEN with import --with-fens, else NULL.
-- The rows live in segment tables (positions_000001, …), each a WITHOUT
-- ROWID table (hash, game_id, ply_move[, fen]) keyed by its first three
-- columns, where ply_move = ply * 32768 + next_move (32767 for none), and
-- filled in key order by one import transaction; the importer merges segments as they accumulate and
-- rewrites the view. `WHERE hash = ?` on the view searches every segment by
-- its primary key.
CREATE TABLE position_segments (
    id        INTEGER PRIMARY KEY,
    name      TEXT NOT NULL UNIQUE,       -- the segment table
    level     INTEGER NOT NULL,           -- 0 for a batch, n+1 for a merge of level-n segments
    rows      INTEGER NOT NULL,
    with_fens INTEGER NOT NULL            -- 1 if the table has a fen column
);
CREATE VIEW positions (hash, game_id, ply, next_move, fen) AS
    SELECT NULL, NULL, NULL, NULL, NULL WHERE 0;

-- Bad games and text skipped while importing.
CREATE TABLE import_errors (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL REFERENCES sources(id),
    game_number INTEGER,                  -- 1.. within the source; NULL for text between games
    game_id     INTEGER,                  -- the stored game, NULL if it was not stored
    kind        TEXT NOT NULL,            -- 'error' (game stored up to the bad move), 'skipped' (game not stored) or 'warning'
    byte_offset INTEGER NOT NULL,
    line        INTEGER NOT NULL,
    "column"    INTEGER NOT NULL,
    message     TEXT NOT NULL
);
CREATE INDEX import_errors_source ON import_errors(source_id);
