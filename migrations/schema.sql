-- pgnindex schema: what the migrations build, made whole for a new
-- file. Written by `PGNINDEX_WRITE_SCHEMA=1 cargo test --lib db::tests`.
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
, positions_indexed INTEGER, max_ply INTEGER);
CREATE INDEX sources_fingerprint ON sources(fingerprint);
CREATE TABLE position_segments (
    id        INTEGER PRIMARY KEY,
    name      TEXT NOT NULL UNIQUE,       -- the segment table
    level     INTEGER NOT NULL,           -- 0 for a batch, n+1 for a merge of level-n segments
    rows      INTEGER NOT NULL,
    with_fens INTEGER NOT NULL            -- 1 if the table has a fen column
, layout INTEGER NOT NULL DEFAULT 0);
CREATE VIEW positions (hash, game_id, ply, next_move, fen) AS
    SELECT NULL, NULL, NULL, NULL, NULL WHERE 0;
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
CREATE TABLE game_tags (
    game_id INTEGER PRIMARY KEY REFERENCES game_rows(id),
    pairs   TEXT NOT NULL                 -- [[name, value], ...] as JSON, in tag-section order
);
CREATE TABLE dedupe_segments (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE,           -- the segment table
    level INTEGER NOT NULL,               -- 0 for a batch, n+1 for a merge of level-n segments
    rows  INTEGER NOT NULL
, in_filter INTEGER NOT NULL DEFAULT 0);
CREATE TABLE dedupe_000001 (
    key     INTEGER NOT NULL,
    game_id INTEGER NOT NULL,
    PRIMARY KEY (key, game_id)
) WITHOUT ROWID;
CREATE TABLE deleted_games (
    game_id INTEGER PRIMARY KEY           -- a deleted games.id whose index rows may remain
);
CREATE TABLE ply_data (
    game_id  INTEGER PRIMARY KEY REFERENCES game_rows(id),
    clocks   TEXT,    -- seconds on the mover's clock after the move (180, 178.6) or null; NULL when no ply has one
    emts     TEXT,    -- seconds spent on the move, as clocks
    evals    TEXT,    -- centipawns from White's view (integers), or "#N" for mate in N moves (negative: Black mates), or null
    nags     TEXT,    -- {"3": "$1 $18"}: the move's NAGs as text, by ply
    comments TEXT     -- {"12": "text"}: the comment after the move, commands ([%...]) taken out, by ply
, notes_form INTEGER, depths TEXT, seldepths TEXT, nodes TEXT, notes_layout TEXT, tails TEXT, white_clock_moves INTEGER, white_clock_drop_ms INTEGER, white_clock_max_drop_ms INTEGER, black_clock_moves INTEGER, black_clock_drop_ms INTEGER, black_clock_max_drop_ms INTEGER);
CREATE TABLE tag_names (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE             -- the tag name as written
);
CREATE VIEW tags (game_id, ord, name, value) AS
    SELECT t.game_id, j.key,
           (SELECT n.name FROM tag_names AS n WHERE n.id = CAST(j.value AS INTEGER)),
           CAST(substr(CAST(j.value AS BLOB), instr(j.value, ':') + 1) AS TEXT)
    FROM game_tags AS t, json_each(t.pairs) AS j;
CREATE TABLE game_material (
    game_id   INTEGER PRIMARY KEY REFERENCES game_rows(id),
    stretches BLOB NOT NULL
);
CREATE TABLE material_backlog (last_game_id INTEGER NOT NULL);
CREATE TABLE explorer_tree_state (
    max_ply INTEGER NOT NULL,     -- positions counted up to this ply
    complete INTEGER NOT NULL     -- 1: the tree is exact
, late_from INTEGER, late_reach INTEGER NOT NULL DEFAULT 4, deep_games INTEGER NOT NULL DEFAULT 16);
CREATE TABLE game_texts (
    id   INTEGER PRIMARY KEY,
    text TEXT NOT NULL UNIQUE             -- a value of one of the columns above
);
CREATE TABLE game_rows (
    id              INTEGER PRIMARY KEY,
    event_id        INTEGER,              -- game_texts.id of the Event tag
    site,                                 -- the text, or its game_texts.id (an integer)
    date            TEXT,                 -- PGN form YYYY.MM.DD as written; NULL: year, month and day write it
    round           TEXT,
    white,                                -- the text, or its game_texts.id (an integer)
    black,                                -- the text, or its game_texts.id (an integer)
    result          TEXT,                 -- 1-0, 0-1, 1/2-1/2 or * (the Result tag, else the result token)
    white_elo       INTEGER,
    black_elo       INTEGER,
    eco             TEXT,
    opening_id      INTEGER,              -- game_texts.id of the Opening tag
    time_control_id INTEGER,              -- game_texts.id of the TimeControl tag
    termination_id  INTEGER,              -- game_texts.id of the Termination tag
    ply_count       INTEGER NOT NULL,     -- half-moves stored in `moves`
    start_fen       TEXT,                 -- NULL for the standard start position
    final_fen       TEXT,                 -- games.final_fen packed (src/db/packed_fen.rs); NULL: no FEN tag read
    packed_moves           TEXT NOT NULL,        -- games.moves packed (src/db/packed_moves.rs)
    movetext        TEXT,                 -- the movetext as written; NULL: written back from moves, result and ply_data
    source_id       INTEGER REFERENCES sources(id),
    source_offset   INTEGER,              -- byte offset of the game in the (decompressed) input
    error           TEXT,                 -- NULL, or why the replay stopped before the end
    dedupe_key      INTEGER NOT NULL,     -- hash of players, date, event, round, result and moves
    year            INTEGER,
    month           INTEGER,
    day             INTEGER,
    tc_base         INTEGER,
    tc_increment    INTEGER,
    speed_id        INTEGER,              -- game_texts.id of the speed class
    opening_eco_id  INTEGER,              -- game_texts.id of the opening's ECO code
    opening_name_id INTEGER,              -- game_texts.id of the opening's name
    opening_ply     INTEGER
);
CREATE TRIGGER games_delete_material AFTER DELETE ON game_rows BEGIN
    DELETE FROM game_material WHERE game_id = old.id;
END;
CREATE TRIGGER explorer_tree_delete AFTER DELETE ON game_rows BEGIN
    UPDATE explorer_tree_state SET complete = 0 WHERE complete <> 0;
END;
CREATE TABLE ply_pvs (
    id      INTEGER PRIMARY KEY,  -- game_id * 2^24 + ply
    pv      TEXT NOT NULL,        -- the principal variation, SAN packed as games.moves
    game_id INTEGER GENERATED ALWAYS AS (id >> 24) VIRTUAL,   -- games.id
    ply     INTEGER GENERATED ALWAYS AS (id & 16777215) VIRTUAL  -- 1 = the first half-move
);
CREATE TRIGGER games_delete AFTER DELETE ON game_rows BEGIN
    DELETE FROM game_tags WHERE game_id = old.id;
    DELETE FROM ply_data WHERE game_id = old.id;
    DELETE FROM ply_pvs WHERE id BETWEEN old.id * 16777216 AND old.id * 16777216 + 16777215;
    INSERT OR IGNORE INTO deleted_games (game_id) VALUES (old.id);
    UPDATE sources SET
        games = max(games - 1, 0),
        positions = max(positions - CASE WHEN old.final_fen IS NULL OR positions_indexed = 0 THEN 0
                                         ELSE min(old.ply_count, coalesce(max_ply, 65535), 65535) + 1 END, 0)
    WHERE id = old.source_id;
END;
CREATE TABLE explorer_late (
    hash INTEGER NOT NULL,        -- Polyglot key, as positions.hash
    game_id INTEGER NOT NULL,     -- the game (rows of deleted games stay until a vacuum)
    next_move INTEGER NOT NULL,   -- code of the move played there the first time; -1: the game ends there
    PRIMARY KEY (hash, game_id)
) WITHOUT ROWID;
CREATE TABLE explorer_deep (
    hash INTEGER PRIMARY KEY,     -- Polyglot key, as positions.hash
    deep_from INTEGER NOT NULL    -- the first game counted to ply 12
);
CREATE TABLE move_codes (
    code BLOB PRIMARY KEY,    -- two bytes, big-endian: a ply of game_rows.packed_moves (src/db/move_codes.rs)
    san  TEXT NOT NULL        -- the SAN text the code stands for
) WITHOUT ROWID;
CREATE VIEW games AS
SELECT r.id AS id,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.event_id) AS event,
       CASE WHEN typeof(r.site) = 'integer' THEN (SELECT n.text FROM game_texts AS n WHERE n.id = r.site) ELSE r.site END AS site,
       coalesce(r.date, CASE WHEN r.year IS NOT NULL THEN printf('%04d.%s.%s', r.year, CASE WHEN r.month IS NULL THEN '??' ELSE printf('%02d', r.month) END, CASE WHEN r.day IS NULL THEN '??' ELSE printf('%02d', r.day) END) END) AS date,
       r.round AS round,
       CASE WHEN typeof(r.white) = 'integer' THEN (SELECT n.text FROM game_texts AS n WHERE n.id = r.white) ELSE r.white END AS white,
       CASE WHEN typeof(r.black) = 'integer' THEN (SELECT n.text FROM game_texts AS n WHERE n.id = r.black) ELSE r.black END AS black,
       r.result AS result, r.white_elo AS white_elo, r.black_elo AS black_elo, r.eco AS eco,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.opening_id) AS opening,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.time_control_id) AS time_control,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.termination_id) AS termination,
       r.ply_count AS ply_count, r.start_fen AS start_fen, CASE WHEN substr(r.final_fen, 1, 1) = char(127) THEN substr(r.final_fen, 2) ELSE (WITH s0(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(r.final_fen, char(1), ' -'), char(2), '1/'), char(3), '8/'), char(4), ' - '), char(5), ' - - '), char(6), '1p'), char(7), '2/'), char(8), 'PP'), char(9), '1P'), char(10), 'pp'), char(11), ' b'), char(12), '3/'), char(13), ' b - - '), char(14), '2p'), char(15), ' w'), char(16), '2P'), char(17), '0 '), char(18), ' w - - '), char(19), '4/'), char(20), 'P/')), s1(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(21), 'p/'), char(22), '5/'), char(23), 'k1/'), char(24), 'K1'), char(25), '3P'), char(26), '3p'), char(27), '6/'), char(28), '1r'), char(29), ' b - - 0 '), char(30), 'p1/'), char(31), 'P1/'), char(33), '1b'), char(35), '1B'), char(36), '1 '), char(37), '1R'), char(38), '2r'), char(40), '2R'), char(41), '7/'), char(42), 'k/'), char(43), 'PP/') FROM s0), s2(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(44), '4p'), char(46), ' w - - 0 '), char(58), '1K'), char(59), '3R'), char(60), '1p/'), char(61), '2 '), char(62), '2K'), char(63), '1n'), char(64), '3r'), char(73), '4P'), char(74), '1P/'), char(76), '8 b - - '), char(77), '2N'), char(79), '1k'), char(83), '1N'), char(84), '4R'), char(85), '2B'), char(86), '1Q'), char(87), '1q'), char(88), '5p') FROM s1), s3(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(89), '2k'), char(90), 'PPP'), char(91), '5P'), char(92), '2Q'), char(93), '4r'), char(94), '2n'), char(95), '2b'), char(96), '2q'), char(105), '8 w - - '), char(106), 'pp/'), char(108), 'K1 b - - '), char(109), '3K'), char(111), '1p1/'), char(115), '3k'), char(116), '4 '), char(117), '3 '), char(118), '6P1/'), char(120), '7P/'), char(121), '5R'), char(122), 'PPP/') FROM s2), s4(x) AS (SELECT replace(replace(replace(replace(x, char(123), 'ppp/'), char(124), '6k1/'), char(125), '2p/'), char(126), '3B') FROM s3) SELECT x FROM s4) END AS final_fen,
       CASE WHEN typeof(r.packed_moves) = 'blob' THEN coalesce((SELECT group_concat((SELECT c.san FROM move_codes AS c WHERE c.code = substr(r.packed_moves, 2 * j.key + 1, 2)), ' ') FROM json_each('[' || replace(printf('%.*c', length(r.packed_moves) / 2, 'x'), 'x', '0,') || '0]') AS j WHERE j.key < length(r.packed_moves) / 2), '') ELSE CASE WHEN substr(r.packed_moves, 1, 1) = char(127) THEN substr(r.packed_moves, 2) ELSE (WITH s0(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(r.packed_moves, char(1), '4 '), char(2), '5 '), char(3), '6 '), char(4), '3 '), char(5), '7 '), char(6), '2 '), char(7), '8 '), char(8), '+ '), char(9), '1 '), char(10), 'xd'), char(11), 'xe'), char(12), 'Nf'), char(13), 'xf'), char(14), 'xc'), char(15), 'Nc'), char(16), 'Be'), char(17), 'O-'), char(18), 'Kf'), char(19), 'd5 '), char(20), 'Kg')), s1(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(21), 'Ra'), char(22), 'd4 '), char(23), 'e4 '), char(24), 'O-O'), char(25), 'O-O '), char(26), 'Re'), char(27), 'Rc'), char(28), 'Bd'), char(29), 'Bg'), char(30), 'xb'), char(31), 'xg'), char(33), 'Rf'), char(34), 'Rd'), char(36), 'Ke'), char(37), 'Bb'), char(38), 'Ne'), char(39), 'Bf'), char(40), 'Rb'), char(41), 'Qe'), char(42), 'Kh') FROM s0), s2(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(44), 'Bc'), char(46), 'Qc'), char(47), 'Qd'), char(48), 'xd5 '), char(57), 'Nf6 '), char(58), 'Nb'), char(59), 'Nd'), char(60), 'xd4 '), char(62), 'xe4 '), char(63), 'Nc3 '), char(64), 'Qf'), char(65), 'xa'), char(67), 'Kd'), char(68), 'h4 '), char(69), 'Nf3 '), char(70), 'h5 '), char(71), 'Qb'), char(72), 'Kc'), char(73), 'xe5 '), char(74), 'Ng') FROM s1), s3(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(76), '5+ '), char(77), 'h6 '), char(80), 'a5 '), char(83), 'Rg'), char(84), 'a4 '), char(85), '4+ '), char(86), 'e5 '), char(87), '6+ '), char(88), 'a6 '), char(89), 'h3 '), char(90), 'c4 '), char(91), 'Nc6 '), char(92), 'xf3 '), char(93), 'c5 '), char(94), 'e6 '), char(95), 'Kb'), char(96), '7+ '), char(105), 'Qg'), char(106), '3+ '), char(107), 'Bxc') FROM s2), s4(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(108), 'xf6 '), char(109), 'Rh'), char(110), 'a3 '), char(111), '8+ '), char(112), '2+ '), char(113), '1+ '), char(114), 'Be7 '), char(115), 'f3 '), char(116), 'g6 '), char(117), 'b5 '), char(118), 'Bd3 '), char(119), 'c6 '), char(121), 'Rxc'), char(122), 'Be3 '), char(123), 'f5 '), char(124), 'bxc'), char(125), 'b4 '), char(126), 'f4 ') FROM s3) SELECT x FROM s4) END END AS moves, r.movetext AS movetext, r.source_id AS source_id,
       r.source_offset AS source_offset, r.error AS error, r.dedupe_key AS dedupe_key,
       r.year AS year, r.month AS month, r.day AS day, r.tc_base AS tc_base,
       r.tc_increment AS tc_increment,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.speed_id) AS speed,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.opening_eco_id) AS opening_eco,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.opening_name_id) AS opening_name,
       r.opening_ply AS opening_ply
FROM game_rows AS r;
CREATE TRIGGER games_insert INSTEAD OF INSERT ON games BEGIN
    INSERT INTO game_texts (text)
        SELECT v.text
        FROM (SELECT new.event AS text UNION SELECT new.opening UNION SELECT new.time_control
              UNION SELECT new.termination UNION SELECT new.speed UNION SELECT new.opening_eco
              UNION SELECT new.opening_name) AS v
        WHERE v.text IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM game_texts AS t WHERE t.text = v.text);
    INSERT INTO game_rows VALUES (
        new.id,
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.event),
        CAST(new.site AS TEXT),
        CASE WHEN new.date = CASE WHEN new.year IS NOT NULL THEN printf('%04d.%s.%s', new.year, CASE WHEN new.month IS NULL THEN '??' ELSE printf('%02d', new.month) END, CASE WHEN new.day IS NULL THEN '??' ELSE printf('%02d', new.day) END) END THEN NULL ELSE new.date END,
        new.round, CAST(new.white AS TEXT), CAST(new.black AS TEXT), new.result, new.white_elo,
        new.black_elo, new.eco,
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening),
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.time_control),
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.termination),
        new.ply_count, new.start_fen, CASE WHEN new.final_fen GLOB '*[^-/ 0-9A-HKNPQRa-hknpqrw]*' THEN char(127) || new.final_fen ELSE (WITH s0(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(new.final_fen, char(32, 45), char(1)), char(49, 47), char(2)), char(56, 47), char(3)), char(1, 32), char(4)), char(1, 4), char(5)), char(49, 112), char(6)), char(50, 47), char(7)), char(80, 80), char(8)), char(49, 80), char(9)), char(112, 112), char(10)), char(32, 98), char(11)), char(51, 47), char(12)), char(11, 5), char(13)), char(50, 112), char(14)), char(32, 119), char(15)), char(50, 80), char(16)), char(48, 32), char(17)), char(15, 5), char(18)), char(52, 47), char(19)), char(80, 47), char(20))), s1(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(112, 47), char(21)), char(53, 47), char(22)), char(107, 2), char(23)), char(75, 49), char(24)), char(51, 80), char(25)), char(51, 112), char(26)), char(54, 47), char(27)), char(49, 114), char(28)), char(13, 17), char(29)), char(112, 2), char(30)), char(80, 2), char(31)), char(49, 98), char(33)), char(49, 66), char(35)), char(49, 32), char(36)), char(49, 82), char(37)), char(50, 114), char(38)), char(50, 82), char(40)), char(55, 47), char(41)), char(107, 47), char(42)), char(8, 47), char(43)) FROM s0), s2(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(52, 112), char(44)), char(18, 17), char(46)), char(49, 75), char(58)), char(51, 82), char(59)), char(6, 47), char(60)), char(50, 32), char(61)), char(50, 75), char(62)), char(49, 110), char(63)), char(51, 114), char(64)), char(52, 80), char(73)), char(9, 47), char(74)), char(56, 13), char(76)), char(50, 78), char(77)), char(49, 107), char(79)), char(49, 78), char(83)), char(52, 82), char(84)), char(50, 66), char(85)), char(49, 81), char(86)), char(49, 113), char(87)), char(53, 112), char(88)) FROM s1), s3(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(50, 107), char(89)), char(8, 80), char(90)), char(53, 80), char(91)), char(50, 81), char(92)), char(52, 114), char(93)), char(50, 110), char(94)), char(50, 98), char(95)), char(50, 113), char(96)), char(56, 18), char(105)), char(10, 47), char(106)), char(24, 13), char(108)), char(51, 75), char(109)), char(6, 2), char(111)), char(51, 107), char(115)), char(52, 32), char(116)), char(51, 32), char(117)), char(54, 31), char(118)), char(55, 20), char(120)), char(53, 82), char(121)), char(8, 20), char(122)) FROM s2), s4(x) AS (SELECT replace(replace(replace(replace(x, char(10, 21), char(123)), char(54, 23), char(124)), char(14, 47), char(125)), char(51, 66), char(126)) FROM s3) SELECT x FROM s4) END,
        CASE WHEN new.moves GLOB '*[^a-hx1-8NBRQKO=+# -]*' THEN char(127) || new.moves ELSE (WITH s0(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(new.moves, char(52, 32), char(1)), char(53, 32), char(2)), char(54, 32), char(3)), char(51, 32), char(4)), char(55, 32), char(5)), char(50, 32), char(6)), char(56, 32), char(7)), char(43, 32), char(8)), char(49, 32), char(9)), char(120, 100), char(10)), char(120, 101), char(11)), char(78, 102), char(12)), char(120, 102), char(13)), char(120, 99), char(14)), char(78, 99), char(15)), char(66, 101), char(16)), char(79, 45), char(17)), char(75, 102), char(18)), char(100, 2), char(19)), char(75, 103), char(20))), s1(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(82, 97), char(21)), char(100, 1), char(22)), char(101, 1), char(23)), char(17, 79), char(24)), char(24, 32), char(25)), char(82, 101), char(26)), char(82, 99), char(27)), char(66, 100), char(28)), char(66, 103), char(29)), char(120, 98), char(30)), char(120, 103), char(31)), char(82, 102), char(33)), char(82, 100), char(34)), char(75, 101), char(36)), char(66, 98), char(37)), char(78, 101), char(38)), char(66, 102), char(39)), char(82, 98), char(40)), char(81, 101), char(41)), char(75, 104), char(42)) FROM s0), s2(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(66, 99), char(44)), char(81, 99), char(46)), char(81, 100), char(47)), char(10, 2), char(48)), char(12, 3), char(57)), char(78, 98), char(58)), char(78, 100), char(59)), char(10, 1), char(60)), char(11, 1), char(62)), char(15, 4), char(63)), char(81, 102), char(64)), char(120, 97), char(65)), char(75, 100), char(67)), char(104, 1), char(68)), char(12, 4), char(69)), char(104, 2), char(70)), char(81, 98), char(71)), char(75, 99), char(72)), char(11, 2), char(73)), char(78, 103), char(74)) FROM s1), s3(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(53, 8), char(76)), char(104, 3), char(77)), char(97, 2), char(80)), char(82, 103), char(83)), char(97, 1), char(84)), char(52, 8), char(85)), char(101, 2), char(86)), char(54, 8), char(87)), char(97, 3), char(88)), char(104, 4), char(89)), char(99, 1), char(90)), char(15, 3), char(91)), char(13, 4), char(92)), char(99, 2), char(93)), char(101, 3), char(94)), char(75, 98), char(95)), char(55, 8), char(96)), char(81, 103), char(105)), char(51, 8), char(106)), char(66, 14), char(107)) FROM s2), s4(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(13, 3), char(108)), char(82, 104), char(109)), char(97, 4), char(110)), char(56, 8), char(111)), char(50, 8), char(112)), char(49, 8), char(113)), char(16, 5), char(114)), char(102, 4), char(115)), char(103, 3), char(116)), char(98, 2), char(117)), char(28, 4), char(118)), char(99, 3), char(119)), char(82, 14), char(121)), char(16, 4), char(122)), char(102, 2), char(123)), char(98, 14), char(124)), char(98, 1), char(125)), char(102, 1), char(126)) FROM s3) SELECT x FROM s4) END,
        new.movetext, new.source_id,
        new.source_offset, new.error, new.dedupe_key, new.year, new.month, new.day, new.tc_base,
        new.tc_increment,
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.speed),
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening_eco),
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening_name),
        new.opening_ply);
END;
CREATE TRIGGER games_update INSTEAD OF UPDATE ON games BEGIN
    INSERT INTO game_texts (text)
        SELECT v.text
        FROM (SELECT new.event AS text UNION SELECT new.opening UNION SELECT new.time_control
              UNION SELECT new.termination UNION SELECT new.speed UNION SELECT new.opening_eco
              UNION SELECT new.opening_name) AS v
        WHERE v.text IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM game_texts AS t WHERE t.text = v.text);
    UPDATE game_rows SET
        id = new.id,
        event_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.event),
        site = CAST(new.site AS TEXT),
        date = CASE WHEN new.date = CASE WHEN new.year IS NOT NULL THEN printf('%04d.%s.%s', new.year, CASE WHEN new.month IS NULL THEN '??' ELSE printf('%02d', new.month) END, CASE WHEN new.day IS NULL THEN '??' ELSE printf('%02d', new.day) END) END THEN NULL ELSE new.date END,
        round = new.round, white = CAST(new.white AS TEXT), black = CAST(new.black AS TEXT), result = new.result, white_elo = new.white_elo,
        black_elo = new.black_elo, eco = new.eco,
        opening_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening),
        time_control_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.time_control),
        termination_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.termination),
        ply_count = new.ply_count, start_fen = new.start_fen, final_fen = CASE WHEN new.final_fen GLOB '*[^-/ 0-9A-HKNPQRa-hknpqrw]*' THEN char(127) || new.final_fen ELSE (WITH s0(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(new.final_fen, char(32, 45), char(1)), char(49, 47), char(2)), char(56, 47), char(3)), char(1, 32), char(4)), char(1, 4), char(5)), char(49, 112), char(6)), char(50, 47), char(7)), char(80, 80), char(8)), char(49, 80), char(9)), char(112, 112), char(10)), char(32, 98), char(11)), char(51, 47), char(12)), char(11, 5), char(13)), char(50, 112), char(14)), char(32, 119), char(15)), char(50, 80), char(16)), char(48, 32), char(17)), char(15, 5), char(18)), char(52, 47), char(19)), char(80, 47), char(20))), s1(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(112, 47), char(21)), char(53, 47), char(22)), char(107, 2), char(23)), char(75, 49), char(24)), char(51, 80), char(25)), char(51, 112), char(26)), char(54, 47), char(27)), char(49, 114), char(28)), char(13, 17), char(29)), char(112, 2), char(30)), char(80, 2), char(31)), char(49, 98), char(33)), char(49, 66), char(35)), char(49, 32), char(36)), char(49, 82), char(37)), char(50, 114), char(38)), char(50, 82), char(40)), char(55, 47), char(41)), char(107, 47), char(42)), char(8, 47), char(43)) FROM s0), s2(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(52, 112), char(44)), char(18, 17), char(46)), char(49, 75), char(58)), char(51, 82), char(59)), char(6, 47), char(60)), char(50, 32), char(61)), char(50, 75), char(62)), char(49, 110), char(63)), char(51, 114), char(64)), char(52, 80), char(73)), char(9, 47), char(74)), char(56, 13), char(76)), char(50, 78), char(77)), char(49, 107), char(79)), char(49, 78), char(83)), char(52, 82), char(84)), char(50, 66), char(85)), char(49, 81), char(86)), char(49, 113), char(87)), char(53, 112), char(88)) FROM s1), s3(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(50, 107), char(89)), char(8, 80), char(90)), char(53, 80), char(91)), char(50, 81), char(92)), char(52, 114), char(93)), char(50, 110), char(94)), char(50, 98), char(95)), char(50, 113), char(96)), char(56, 18), char(105)), char(10, 47), char(106)), char(24, 13), char(108)), char(51, 75), char(109)), char(6, 2), char(111)), char(51, 107), char(115)), char(52, 32), char(116)), char(51, 32), char(117)), char(54, 31), char(118)), char(55, 20), char(120)), char(53, 82), char(121)), char(8, 20), char(122)) FROM s2), s4(x) AS (SELECT replace(replace(replace(replace(x, char(10, 21), char(123)), char(54, 23), char(124)), char(14, 47), char(125)), char(51, 66), char(126)) FROM s3) SELECT x FROM s4) END,
        packed_moves = CASE WHEN new.moves GLOB '*[^a-hx1-8NBRQKO=+# -]*' THEN char(127) || new.moves ELSE (WITH s0(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(new.moves, char(52, 32), char(1)), char(53, 32), char(2)), char(54, 32), char(3)), char(51, 32), char(4)), char(55, 32), char(5)), char(50, 32), char(6)), char(56, 32), char(7)), char(43, 32), char(8)), char(49, 32), char(9)), char(120, 100), char(10)), char(120, 101), char(11)), char(78, 102), char(12)), char(120, 102), char(13)), char(120, 99), char(14)), char(78, 99), char(15)), char(66, 101), char(16)), char(79, 45), char(17)), char(75, 102), char(18)), char(100, 2), char(19)), char(75, 103), char(20))), s1(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(82, 97), char(21)), char(100, 1), char(22)), char(101, 1), char(23)), char(17, 79), char(24)), char(24, 32), char(25)), char(82, 101), char(26)), char(82, 99), char(27)), char(66, 100), char(28)), char(66, 103), char(29)), char(120, 98), char(30)), char(120, 103), char(31)), char(82, 102), char(33)), char(82, 100), char(34)), char(75, 101), char(36)), char(66, 98), char(37)), char(78, 101), char(38)), char(66, 102), char(39)), char(82, 98), char(40)), char(81, 101), char(41)), char(75, 104), char(42)) FROM s0), s2(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(66, 99), char(44)), char(81, 99), char(46)), char(81, 100), char(47)), char(10, 2), char(48)), char(12, 3), char(57)), char(78, 98), char(58)), char(78, 100), char(59)), char(10, 1), char(60)), char(11, 1), char(62)), char(15, 4), char(63)), char(81, 102), char(64)), char(120, 97), char(65)), char(75, 100), char(67)), char(104, 1), char(68)), char(12, 4), char(69)), char(104, 2), char(70)), char(81, 98), char(71)), char(75, 99), char(72)), char(11, 2), char(73)), char(78, 103), char(74)) FROM s1), s3(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(53, 8), char(76)), char(104, 3), char(77)), char(97, 2), char(80)), char(82, 103), char(83)), char(97, 1), char(84)), char(52, 8), char(85)), char(101, 2), char(86)), char(54, 8), char(87)), char(97, 3), char(88)), char(104, 4), char(89)), char(99, 1), char(90)), char(15, 3), char(91)), char(13, 4), char(92)), char(99, 2), char(93)), char(101, 3), char(94)), char(75, 98), char(95)), char(55, 8), char(96)), char(81, 103), char(105)), char(51, 8), char(106)), char(66, 14), char(107)) FROM s2), s4(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(13, 3), char(108)), char(82, 104), char(109)), char(97, 4), char(110)), char(56, 8), char(111)), char(50, 8), char(112)), char(49, 8), char(113)), char(16, 5), char(114)), char(102, 4), char(115)), char(103, 3), char(116)), char(98, 2), char(117)), char(28, 4), char(118)), char(99, 3), char(119)), char(82, 14), char(121)), char(16, 4), char(122)), char(102, 2), char(123)), char(98, 14), char(124)), char(98, 1), char(125)), char(102, 1), char(126)) FROM s3) SELECT x FROM s4) END,
         movetext = new.movetext, source_id = new.source_id,
        source_offset = new.source_offset, error = new.error, dedupe_key = new.dedupe_key,
        year = new.year, month = new.month, day = new.day, tc_base = new.tc_base,
        tc_increment = new.tc_increment,
        speed_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.speed),
        opening_eco_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening_eco),
        opening_name_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening_name),
        opening_ply = new.opening_ply
    WHERE id = old.id;
END;
CREATE TRIGGER games_delete_row INSTEAD OF DELETE ON games BEGIN
    DELETE FROM game_rows WHERE id = old.id;
END;
CREATE TABLE player_keys_changed (key TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE VIEW player_sides (game_id, key, name, white, points, year, elo) AS
SELECT game_id, key, name, white, points, year, elo FROM (
    SELECT game_id,
           rtrim(replace(replace(
               replace(replace(replace(replace(lower(trim(name)),
                   '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '),
               ', ', ','), ' ,', ','), '. ') AS key,
           name, white, points, year, elo
    FROM (
        SELECT r.id AS game_id,
               CASE WHEN typeof(r.white) = 'integer' THEN (SELECT t.text FROM game_texts AS t WHERE t.id = r.white) ELSE r.white END AS name,
               1 AS white,
               CASE r.result WHEN '1-0' THEN 1.0 WHEN '0-1' THEN 0.0 WHEN '1/2-1/2' THEN 0.5 END AS points,
               r.year AS year, r.white_elo AS elo
        FROM game_rows AS r WHERE r.white IS NOT NULL
        UNION ALL
        SELECT r.id,
               CASE WHEN typeof(r.black) = 'integer' THEN (SELECT t.text FROM game_texts AS t WHERE t.id = r.black) ELSE r.black END,
               0,
               CASE r.result WHEN '0-1' THEN 1.0 WHEN '1-0' THEN 0.0 WHEN '1/2-1/2' THEN 0.5 END,
               r.year, r.black_elo
        FROM game_rows AS r WHERE r.black IS NOT NULL
    )
)
WHERE trim(key, '?-') <> '';
CREATE TRIGGER player_rows_before_delete BEFORE DELETE ON game_rows
WHEN (SELECT current FROM player_rows_state) BEGIN
    INSERT OR IGNORE INTO player_keys_changed
        SELECT '' UNION ALL SELECT key FROM player_sides WHERE game_id = old.id;
END;
CREATE TRIGGER player_rows_before_update
BEFORE UPDATE OF id, white, black, result, year, white_elo, black_elo ON game_rows
WHEN (SELECT current FROM player_rows_state) BEGIN
    INSERT OR IGNORE INTO player_keys_changed
        SELECT '' UNION ALL SELECT key FROM player_sides WHERE game_id = old.id;
END;
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
CREATE INDEX games_summary ON game_rows(id, result, white_elo, black_elo, date, year, month, day, eco, event_id, speed_id);
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
CREATE TABLE player_rows (
    key         TEXT PRIMARY KEY,     -- the name normalised as the players view groups it
    name        TEXT NOT NULL,        -- the most frequent spelling
    games       INTEGER NOT NULL,
    white_games INTEGER NOT NULL,
    score       REAL,
    first_year  INTEGER,
    last_year   INTEGER,
    max_elo     INTEGER,
    scored      INTEGER               -- games with a result 1-0, 0-1 or 1/2-1/2 (those score averages)
) WITHOUT ROWID;
CREATE TABLE player_spellings (
    key   TEXT NOT NULL,     -- player_rows.key
    name  TEXT NOT NULL,     -- a spelling of the player's name
    games INTEGER NOT NULL,  -- the player's games under that spelling
    PRIMARY KEY (key, name)
) WITHOUT ROWID;
CREATE TABLE player_rows_state (current INTEGER NOT NULL, tallied INTEGER NOT NULL);
CREATE VIEW players_live (key, name, games, white_games, score, first_year, last_year, max_elo, scored) AS
WITH sides AS (
    SELECT key, name, white, points, year, elo FROM player_sides
    WHERE NOT EXISTS (SELECT 1 FROM player_keys_changed)
       OR key IN (SELECT key FROM player_keys_changed)
),
grouped AS (
    SELECT key, count(*) AS games, sum(white) AS white_games, avg(points) AS score,
           min(year) AS first_year, max(year) AS last_year, max(elo) AS max_elo,
           count(points) AS scored
    FROM sides GROUP BY key
),
spellings AS (
    SELECT key, name,
           row_number() OVER (PARTITION BY key ORDER BY count(*) DESC, name) AS place
    FROM sides GROUP BY key, name
)
SELECT grouped.key, spellings.name, games, white_games, score, first_year, last_year, max_elo,
       scored
FROM grouped JOIN spellings ON spellings.key = grouped.key AND spellings.place = 1;
CREATE VIEW players AS
SELECT name, games, white_games, games - white_games AS black_games, score, first_year,
       last_year, max_elo
FROM players_live;
CREATE TRIGGER player_rows_after_insert AFTER INSERT ON game_rows
WHEN (SELECT current FROM player_rows_state) BEGIN
    INSERT OR IGNORE INTO player_keys_changed
        SELECT '' UNION ALL SELECT key FROM player_sides WHERE game_id = new.id;
    DELETE FROM player_rows WHERE key IN (SELECT key FROM player_keys_changed);
    INSERT INTO player_rows SELECT * FROM players_live;
    DELETE FROM player_keys_changed;
END;
CREATE TRIGGER player_rows_after_update
AFTER UPDATE OF id, white, black, result, year, white_elo, black_elo ON game_rows
WHEN (SELECT current FROM player_rows_state) BEGIN
    INSERT OR IGNORE INTO player_keys_changed
        SELECT '' UNION ALL SELECT key FROM player_sides WHERE game_id = new.id;
    DELETE FROM player_rows WHERE key IN (SELECT key FROM player_keys_changed);
    INSERT INTO player_rows SELECT * FROM players_live;
    DELETE FROM player_keys_changed;
END;
CREATE TRIGGER player_rows_after_delete AFTER DELETE ON game_rows
WHEN (SELECT current FROM player_rows_state) BEGIN
    DELETE FROM player_rows WHERE key IN (SELECT key FROM player_keys_changed);
    INSERT INTO player_rows SELECT * FROM players_live;
    DELETE FROM player_keys_changed;
END;
CREATE TRIGGER player_tallies_after_insert AFTER INSERT ON game_rows
WHEN (SELECT tallied FROM player_rows_state) BEGIN
    UPDATE player_rows_state SET tallied = 0;
END;
CREATE TRIGGER player_tallies_after_update
AFTER UPDATE OF id, white, black, result, year, white_elo, black_elo ON game_rows
WHEN (SELECT tallied FROM player_rows_state) BEGIN
    UPDATE player_rows_state SET tallied = 0;
END;
CREATE TRIGGER player_tallies_after_delete AFTER DELETE ON game_rows
WHEN (SELECT tallied FROM player_rows_state) BEGIN
    UPDATE player_rows_state SET tallied = 0;
END;
CREATE VIEW plies AS
SELECT r.id AS game_id,
       m.key + 1 AS ply,
       CASE WHEN typeof(r.packed_moves) = 'blob' THEN (SELECT c.san FROM move_codes AS c WHERE c.code = substr(r.packed_moves, 2 * m.key + 1, 2)) ELSE m.value END AS san,
       CASE WHEN d.clocks IS NULL THEN NULL ELSE CASE CAST(substr(d.clocks, 1, 1) AS TEXT)
            WHEN '[' THEN CAST(d.clocks ->> m.key AS REAL)
            WHEN 'a' THEN nullif(((instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 2 + 2 * m.key, 1)) + 63) % 65) * 64
                                 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 3 + 2 * m.key, 1)) + 63) % 65, 4160) * 1.0
            WHEN 'b' THEN nullif((((instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 2 + 3 * m.key, 1)) + 63) % 65) * 64
                                  + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 3 + 3 * m.key, 1)) + 63) % 65) * 64
                                 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 4 + 3 * m.key, 1)) + 63) % 65, 266304) / 10.0
            WHEN 'c' THEN nullif((((instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 2 + 3 * m.key, 1)) + 63) % 65) * 64
                                  + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 3 + 3 * m.key, 1)) + 63) % 65) * 64
                                 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 4 + 3 * m.key, 1)) + 63) % 65, 266304) * 1.0
       END END AS clock,
       CASE WHEN d.clocks IS NULL OR m.key < 2 THEN NULL ELSE CASE CAST(substr(d.clocks, 1, 1) AS TEXT)
            WHEN '[' THEN CAST(d.clocks ->> (m.key - 2) AS REAL)
            WHEN 'a' THEN nullif(((instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 2 + 2 * (m.key - 2), 1)) + 63) % 65) * 64
                                 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 3 + 2 * (m.key - 2), 1)) + 63) % 65, 4160) * 1.0
            WHEN 'b' THEN nullif((((instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 2 + 3 * (m.key - 2), 1)) + 63) % 65) * 64
                                  + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 3 + 3 * (m.key - 2), 1)) + 63) % 65) * 64
                                 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 4 + 3 * (m.key - 2), 1)) + 63) % 65, 266304) / 10.0
            WHEN 'c' THEN nullif((((instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 2 + 3 * (m.key - 2), 1)) + 63) % 65) * 64
                                  + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 3 + 3 * (m.key - 2), 1)) + 63) % 65) * 64
                                 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.clocks, 4 + 3 * (m.key - 2), 1)) + 63) % 65, 266304) * 1.0
       END END AS previous_clock,
       CASE WHEN d.emts IS NULL THEN NULL ELSE CASE CAST(substr(d.emts, 1, 1) AS TEXT)
            WHEN '[' THEN CAST(d.emts ->> m.key AS REAL)
            WHEN 'a' THEN nullif(((instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.emts, 2 + 2 * m.key, 1)) + 63) % 65) * 64
                                 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.emts, 3 + 2 * m.key, 1)) + 63) % 65, 4160) * 1.0
            WHEN 'b' THEN nullif((((instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.emts, 2 + 3 * m.key, 1)) + 63) % 65) * 64
                                  + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.emts, 3 + 3 * m.key, 1)) + 63) % 65) * 64
                                 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.emts, 4 + 3 * m.key, 1)) + 63) % 65, 266304) / 10.0
            WHEN 'c' THEN nullif((((instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.emts, 2 + 3 * m.key, 1)) + 63) % 65) * 64
                                  + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.emts, 3 + 3 * m.key, 1)) + 63) % 65) * 64
                                 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.emts, 4 + 3 * m.key, 1)) + 63) % 65, 266304) * 1.0
       END END AS emt,
       CASE WHEN d.evals IS NULL THEN NULL ELSE CASE CAST(substr(d.evals, 1, 1) AS TEXT)
            WHEN 'a' THEN (nullif(min((((instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.evals, 2 + 3 * m.key, 1)) + 63) % 65) * 64 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.evals, 3 + 3 * m.key, 1)) + 63) % 65) * 64 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.evals, 4 + 3 * m.key, 1)) + 63) % 65, 200001), 200001) - 100000) / 100.0
            WHEN '[' THEN CASE WHEN typeof(d.evals ->> m.key) = 'integer' THEN (d.evals ->> m.key) / 100.0 END
       END END AS eval,
       CASE WHEN d.evals IS NULL THEN NULL ELSE CASE CAST(substr(d.evals, 1, 1) AS TEXT)
            WHEN 'a' THEN nullif(nullif(max(min((((instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.evals, 2 + 3 * m.key, 1)) + 63) % 65) * 64 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.evals, 3 + 3 * m.key, 1)) + 63) % 65) * 64 + (instr(CAST('~0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmno' AS BLOB), substr(d.evals, 4 + 3 * m.key, 1)) + 63) % 65, 262143), 200000), 200000), 262143) - 231072
            WHEN '[' THEN CASE WHEN typeof(d.evals ->> m.key) = 'text'
                               THEN CAST(substr(d.evals ->> m.key, 2) AS INTEGER) END
       END END AS mate,
       d.nags ->> ('$."' || (m.key + 1) || '"') AS nags,
       CASE WHEN substr(d.comments, 1, 1) = '[' THEN d.comments ->> m.key
            ELSE d.comments ->> ('$."' || (m.key + 1) || '"') END AS comment,
       d.depths ->> m.key AS depth,
       d.seldepths ->> m.key AS seldepth,
       d.nodes ->> m.key AS nodes,
       (WITH p0(v) AS (SELECT p.pv FROM ply_pvs AS p WHERE p.id = r.id * 16777216 + m.key + 1), s0(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(v, char(1), '4 '), char(2), '5 '), char(3), '6 '), char(4), '3 '), char(5), '7 '), char(6), '2 '), char(7), '8 '), char(8), '+ '), char(9), '1 '), char(10), 'xd'), char(11), 'xe'), char(12), 'Nf'), char(13), 'xf'), char(14), 'xc'), char(15), 'Nc'), char(16), 'Be'), char(17), 'O-'), char(18), 'Kf'), char(19), 'd5 '), char(20), 'Kg') FROM p0), s1(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(21), 'Ra'), char(22), 'd4 '), char(23), 'e4 '), char(24), 'O-O'), char(25), 'O-O '), char(26), 'Re'), char(27), 'Rc'), char(28), 'Bd'), char(29), 'Bg'), char(30), 'xb'), char(31), 'xg'), char(33), 'Rf'), char(34), 'Rd'), char(36), 'Ke'), char(37), 'Bb'), char(38), 'Ne'), char(39), 'Bf'), char(40), 'Rb'), char(41), 'Qe'), char(42), 'Kh') FROM s0), s2(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(44), 'Bc'), char(46), 'Qc'), char(47), 'Qd'), char(48), 'xd5 '), char(57), 'Nf6 '), char(58), 'Nb'), char(59), 'Nd'), char(60), 'xd4 '), char(62), 'xe4 '), char(63), 'Nc3 '), char(64), 'Qf'), char(65), 'xa'), char(67), 'Kd'), char(68), 'h4 '), char(69), 'Nf3 '), char(70), 'h5 '), char(71), 'Qb'), char(72), 'Kc'), char(73), 'xe5 '), char(74), 'Ng') FROM s1), s3(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(76), '5+ '), char(77), 'h6 '), char(80), 'a5 '), char(83), 'Rg'), char(84), 'a4 '), char(85), '4+ '), char(86), 'e5 '), char(87), '6+ '), char(88), 'a6 '), char(89), 'h3 '), char(90), 'c4 '), char(91), 'Nc6 '), char(92), 'xf3 '), char(93), 'c5 '), char(94), 'e6 '), char(95), 'Kb'), char(96), '7+ '), char(105), 'Qg'), char(106), '3+ '), char(107), 'Bxc') FROM s2), s4(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(108), 'xf6 '), char(109), 'Rh'), char(110), 'a3 '), char(111), '8+ '), char(112), '2+ '), char(113), '1+ '), char(114), 'Be7 '), char(115), 'f3 '), char(116), 'g6 '), char(117), 'b5 '), char(118), 'Bd3 '), char(119), 'c6 '), char(121), 'Rxc'), char(122), 'Be3 '), char(123), 'f5 '), char(124), 'bxc'), char(125), 'b4 '), char(126), 'f4 ') FROM s3) SELECT CASE WHEN substr(v, 1, 1) = char(127) THEN substr(v, 2) ELSE x END FROM p0, s4) AS pv,
       -- `book` alone, or first before a comma (cutechess, TCEC).
       CASE WHEN (CASE WHEN substr(d.comments, 1, 1) = '[' THEN d.comments ->> m.key
                      ELSE d.comments ->> ('$."' || (m.key + 1) || '"') END) || ',' LIKE 'book,%' THEN 1 END AS book
FROM game_rows AS r
LEFT JOIN ply_data AS d ON d.game_id = r.id
JOIN json_each(CASE WHEN typeof(r.packed_moves) = 'blob' THEN CASE WHEN length(r.packed_moves) < 2 THEN '[]'
                    ELSE '[' || substr(replace(printf('%.*c', length(r.packed_moves) / 2, 'x'), 'x', ',0'), 2) || ']' END
                    ELSE (SELECT '["' || replace(g.moves, ' ', '","') || '"]' FROM games AS g WHERE g.id = r.id) END) AS m
     ON m.value <> '';
CREATE TABLE dedupe_filter (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    inserted INTEGER NOT NULL,            -- keys set into it, repeats counted
    words    BLOB NOT NULL                -- the blocked Bloom filter: 64-bit words, little-endian
);
CREATE TRIGGER ply_data_clock_use_insert AFTER INSERT ON ply_data
WHEN new.clocks IS NOT NULL AND new.white_clock_moves IS NULL BEGIN
    UPDATE ply_data SET clocks = clocks WHERE game_id = new.game_id;
END;
CREATE TRIGGER ply_data_clock_use_update AFTER UPDATE OF clocks ON ply_data BEGIN
    UPDATE ply_data SET (white_clock_moves, white_clock_drop_ms, white_clock_max_drop_ms,
                         black_clock_moves, black_clock_drop_ms, black_clock_max_drop_ms) = (
        SELECT count(c.s) FILTER (WHERE c.w), CAST(round(1000 * total(c.s) FILTER (WHERE c.w)) AS INTEGER),
               CAST(round(1000 * max(c.s) FILTER (WHERE c.w)) AS INTEGER),
               count(c.s) FILTER (WHERE NOT c.w), CAST(round(1000 * total(c.s) FILTER (WHERE NOT c.w)) AS INTEGER),
               CAST(round(1000 * max(c.s) FILTER (WHERE NOT c.w)) AS INTEGER)
        FROM (SELECT p.previous_clock - p.clock AS s,
                     (p.ply - 1 + coalesce(substr(r.start_fen, instr(r.start_fen, ' ') + 1, 1) = 'b', 0)) % 2 = 0 AS w
              FROM game_rows AS r, plies AS p
              WHERE r.id = new.game_id AND p.game_id = r.id LIMIT -1) AS c)
    WHERE game_id = new.game_id AND clocks IS NOT NULL;
    UPDATE ply_data SET white_clock_moves = NULL, white_clock_drop_ms = NULL, white_clock_max_drop_ms = NULL,
                        black_clock_moves = NULL, black_clock_drop_ms = NULL, black_clock_max_drop_ms = NULL
    WHERE game_id = new.game_id AND clocks IS NULL;
END;
CREATE TRIGGER ply_data_clock_use_game AFTER UPDATE OF start_fen, packed_moves ON game_rows
WHEN new.start_fen IS NOT old.start_fen OR new.packed_moves IS NOT old.packed_moves BEGIN
    UPDATE ply_data SET clocks = clocks WHERE game_id = new.id;
END;
INSERT INTO "dedupe_segments" VALUES (1, 'dedupe_000001', 1000, 0, 0);
INSERT INTO "material_backlog" VALUES (0);
INSERT INTO "explorer_tree_state" VALUES (6, 0, 1, 4, 16);
INSERT INTO "player_rows_state" VALUES (0, 0);
