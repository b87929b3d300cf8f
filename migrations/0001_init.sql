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
CREATE TABLE tags (
    game_id INTEGER NOT NULL REFERENCES games(id),
    name    TEXT NOT NULL,
    value   TEXT NOT NULL
);
CREATE INDEX tags_game ON tags(game_id);

-- One row per indexed position of a game: ply 0 is the start position,
-- ply_count the final one. hash is the Polyglot key as a signed 64-bit
-- integer. next_move is the move played from the position as a compact
-- integer: from + 64 * to + 4096 * promotion (squares a1 = 0 … h8 = 63,
-- promotion 0 none, 1 knight, 2 bishop, 3 rook, 4 queen; castling as UCI
-- writes it: e1g1 in standard chess, king takes rook in Chess960); 0 for a
-- null move, NULL at the final position.
CREATE TABLE positions (
    hash      INTEGER NOT NULL,
    game_id   INTEGER NOT NULL,
    ply       INTEGER NOT NULL,
    next_move INTEGER,
    fen       TEXT,                       -- only with import --with-fens
    PRIMARY KEY (hash, game_id, ply)
) WITHOUT ROWID;

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
