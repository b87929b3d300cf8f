-- pgnindex schema, version 17: `games.moves` packed in `game_rows`.
--
-- `moves` (canonical SAN, 4.1 bytes a half-move) was two thirds of a
-- game's row. `game_rows.packed_moves` holds it in about half the bytes,
-- still as text that plain SQL reads back: 98 ASCII characters SAN does
-- not use each stand for a pair of symbols (`char(12)` for `Nf`,
-- `char(4)` for `3 `, …), learnt once by byte-pair encoding real games
-- and fixed by this schema (src/db/packed_moves.rs holds the list). Packing
-- is the chain of `replace()` calls below in the triggers, in the order
-- of the merges; unpacking, in the view, replaces each code by its whole
-- SAN. A text with a character outside SAN is kept as it is after
-- `char(127)`. The chains are split into common table expressions because
-- SQLite's parser takes about 32 nested calls at most.

-- Renamed while the view still reads it (a rename checks every view).
ALTER TABLE game_rows RENAME COLUMN moves TO packed_moves;

-- The column's comment in the stored CREATE TABLE, edited in place as
-- migration 0016 did; the CREATE statements below change the schema
-- cookie.
PRAGMA writable_schema = ON;
UPDATE sqlite_master
SET sql = replace(sql, '-- mainline in canonical SAN, space separated',
                  '-- games.moves packed (src/db/packed_moves.rs)')
WHERE type = 'table' AND name = 'game_rows';
PRAGMA writable_schema = OFF;

UPDATE game_rows SET packed_moves = CASE WHEN packed_moves GLOB '*[^a-hx1-8NBRQKO=+# -]*' THEN char(127) || packed_moves ELSE (WITH s0(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(packed_moves, char(52, 32), char(1)), char(53, 32), char(2)), char(54, 32), char(3)), char(51, 32), char(4)), char(55, 32), char(5)), char(50, 32), char(6)), char(56, 32), char(7)), char(43, 32), char(8)), char(49, 32), char(9)), char(120, 100), char(10)), char(120, 101), char(11)), char(78, 102), char(12)), char(120, 102), char(13)), char(120, 99), char(14)), char(78, 99), char(15)), char(66, 101), char(16)), char(79, 45), char(17)), char(75, 102), char(18)), char(100, 2), char(19)), char(75, 103), char(20))), s1(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(82, 97), char(21)), char(100, 1), char(22)), char(101, 1), char(23)), char(17, 79), char(24)), char(24, 32), char(25)), char(82, 101), char(26)), char(82, 99), char(27)), char(66, 100), char(28)), char(66, 103), char(29)), char(120, 98), char(30)), char(120, 103), char(31)), char(82, 102), char(33)), char(82, 100), char(34)), char(75, 101), char(36)), char(66, 98), char(37)), char(78, 101), char(38)), char(66, 102), char(39)), char(82, 98), char(40)), char(81, 101), char(41)), char(75, 104), char(42)) FROM s0), s2(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(66, 99), char(44)), char(81, 99), char(46)), char(81, 100), char(47)), char(10, 2), char(48)), char(12, 3), char(57)), char(78, 98), char(58)), char(78, 100), char(59)), char(10, 1), char(60)), char(11, 1), char(62)), char(15, 4), char(63)), char(81, 102), char(64)), char(120, 97), char(65)), char(75, 100), char(67)), char(104, 1), char(68)), char(12, 4), char(69)), char(104, 2), char(70)), char(81, 98), char(71)), char(75, 99), char(72)), char(11, 2), char(73)), char(78, 103), char(74)) FROM s1), s3(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(53, 8), char(76)), char(104, 3), char(77)), char(97, 2), char(80)), char(82, 103), char(83)), char(97, 1), char(84)), char(52, 8), char(85)), char(101, 2), char(86)), char(54, 8), char(87)), char(97, 3), char(88)), char(104, 4), char(89)), char(99, 1), char(90)), char(15, 3), char(91)), char(13, 4), char(92)), char(99, 2), char(93)), char(101, 3), char(94)), char(75, 98), char(95)), char(55, 8), char(96)), char(81, 103), char(105)), char(51, 8), char(106)), char(66, 14), char(107)) FROM s2), s4(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(13, 3), char(108)), char(82, 104), char(109)), char(97, 4), char(110)), char(56, 8), char(111)), char(50, 8), char(112)), char(49, 8), char(113)), char(16, 5), char(114)), char(102, 4), char(115)), char(103, 3), char(116)), char(98, 2), char(117)), char(28, 4), char(118)), char(99, 3), char(119)), char(82, 14), char(121)), char(16, 4), char(122)), char(102, 2), char(123)), char(98, 14), char(124)), char(98, 1), char(125)), char(102, 1), char(126)) FROM s3) SELECT x FROM s4) END;

-- The view of version 16, with `moves` unpacked; its triggers go with it.
DROP VIEW games;

CREATE VIEW games AS
SELECT r.id AS id,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.event_id) AS event,
       r.site AS site, r.date AS date, r.round AS round, r.white AS white, r.black AS black,
       r.result AS result, r.white_elo AS white_elo, r.black_elo AS black_elo, r.eco AS eco,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.opening_id) AS opening,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.time_control_id) AS time_control,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.termination_id) AS termination,
       r.ply_count AS ply_count, r.start_fen AS start_fen, r.final_fen AS final_fen,
       CASE WHEN substr(r.packed_moves, 1, 1) = char(127) THEN substr(r.packed_moves, 2) ELSE (WITH s0(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(r.packed_moves, char(1), '4 '), char(2), '5 '), char(3), '6 '), char(4), '3 '), char(5), '7 '), char(6), '2 '), char(7), '8 '), char(8), '+ '), char(9), '1 '), char(10), 'xd'), char(11), 'xe'), char(12), 'Nf'), char(13), 'xf'), char(14), 'xc'), char(15), 'Nc'), char(16), 'Be'), char(17), 'O-'), char(18), 'Kf'), char(19), 'd5 '), char(20), 'Kg')), s1(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(21), 'Ra'), char(22), 'd4 '), char(23), 'e4 '), char(24), 'O-O'), char(25), 'O-O '), char(26), 'Re'), char(27), 'Rc'), char(28), 'Bd'), char(29), 'Bg'), char(30), 'xb'), char(31), 'xg'), char(33), 'Rf'), char(34), 'Rd'), char(36), 'Ke'), char(37), 'Bb'), char(38), 'Ne'), char(39), 'Bf'), char(40), 'Rb'), char(41), 'Qe'), char(42), 'Kh') FROM s0), s2(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(44), 'Bc'), char(46), 'Qc'), char(47), 'Qd'), char(48), 'xd5 '), char(57), 'Nf6 '), char(58), 'Nb'), char(59), 'Nd'), char(60), 'xd4 '), char(62), 'xe4 '), char(63), 'Nc3 '), char(64), 'Qf'), char(65), 'xa'), char(67), 'Kd'), char(68), 'h4 '), char(69), 'Nf3 '), char(70), 'h5 '), char(71), 'Qb'), char(72), 'Kc'), char(73), 'xe5 '), char(74), 'Ng') FROM s1), s3(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(76), '5+ '), char(77), 'h6 '), char(80), 'a5 '), char(83), 'Rg'), char(84), 'a4 '), char(85), '4+ '), char(86), 'e5 '), char(87), '6+ '), char(88), 'a6 '), char(89), 'h3 '), char(90), 'c4 '), char(91), 'Nc6 '), char(92), 'xf3 '), char(93), 'c5 '), char(94), 'e6 '), char(95), 'Kb'), char(96), '7+ '), char(105), 'Qg'), char(106), '3+ '), char(107), 'Bxc') FROM s2), s4(x) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(x, char(108), 'xf6 '), char(109), 'Rh'), char(110), 'a3 '), char(111), '8+ '), char(112), '2+ '), char(113), '1+ '), char(114), 'Be7 '), char(115), 'f3 '), char(116), 'g6 '), char(117), 'b5 '), char(118), 'Bd3 '), char(119), 'c6 '), char(121), 'Rxc'), char(122), 'Be3 '), char(123), 'f5 '), char(124), 'bxc'), char(125), 'b4 '), char(126), 'f4 ') FROM s3) SELECT x FROM s4) END AS moves, r.movetext AS movetext, r.source_id AS source_id,
       r.source_offset AS source_offset, r.error AS error, r.dedupe_key AS dedupe_key,
       r.year AS year, r.month AS month, r.day AS day, r.tc_base AS tc_base,
       r.tc_increment AS tc_increment,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.speed_id) AS speed,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.opening_eco_id) AS opening_eco,
       (SELECT t.text FROM game_texts AS t WHERE t.id = r.opening_name_id) AS opening_name,
       r.opening_ply AS opening_ply
FROM game_rows AS r;

-- The view of version 13, naming `g.moves` once: each use unpacks it
-- (`''` splits into one empty string, which is no move).
DROP VIEW plies;
CREATE VIEW plies AS
SELECT g.id AS game_id,
       m.key + 1 AS ply,
       m.value AS san,
       CASE substr(d.clocks, 1, 1)
            WHEN '[' THEN CAST(d.clocks ->> m.key AS REAL)
            WHEN 'a' THEN nullif((unicode(substr(d.clocks, 2 + 2 * m.key, 1)) - 48) * 64
                                 + unicode(substr(d.clocks, 3 + 2 * m.key, 1)) - 48, 5070) * 1.0
            WHEN 'b' THEN nullif(((unicode(substr(d.clocks, 2 + 3 * m.key, 1)) - 48) * 64
                                  + unicode(substr(d.clocks, 3 + 3 * m.key, 1)) - 48) * 64
                                 + unicode(substr(d.clocks, 4 + 3 * m.key, 1)) - 48, 324558) / 10.0
            WHEN 'c' THEN nullif(((unicode(substr(d.clocks, 2 + 3 * m.key, 1)) - 48) * 64
                                  + unicode(substr(d.clocks, 3 + 3 * m.key, 1)) - 48) * 64
                                 + unicode(substr(d.clocks, 4 + 3 * m.key, 1)) - 48, 324558) * 1.0
       END AS clock,
       CASE substr(d.emts, 1, 1)
            WHEN '[' THEN CAST(d.emts ->> m.key AS REAL)
            WHEN 'a' THEN nullif((unicode(substr(d.emts, 2 + 2 * m.key, 1)) - 48) * 64
                                 + unicode(substr(d.emts, 3 + 2 * m.key, 1)) - 48, 5070) * 1.0
            WHEN 'b' THEN nullif(((unicode(substr(d.emts, 2 + 3 * m.key, 1)) - 48) * 64
                                  + unicode(substr(d.emts, 3 + 3 * m.key, 1)) - 48) * 64
                                 + unicode(substr(d.emts, 4 + 3 * m.key, 1)) - 48, 324558) / 10.0
            WHEN 'c' THEN nullif(((unicode(substr(d.emts, 2 + 3 * m.key, 1)) - 48) * 64
                                  + unicode(substr(d.emts, 3 + 3 * m.key, 1)) - 48) * 64
                                 + unicode(substr(d.emts, 4 + 3 * m.key, 1)) - 48, 324558) * 1.0
       END AS emt,
       CASE WHEN typeof(d.evals ->> m.key) = 'integer' THEN (d.evals ->> m.key) / 100.0 END AS eval,
       CASE WHEN typeof(d.evals ->> m.key) = 'text'
            THEN CAST(substr(d.evals ->> m.key, 2) AS INTEGER) END AS mate,
       d.nags ->> ('$."' || (m.key + 1) || '"') AS nags,
       d.comments ->> ('$."' || (m.key + 1) || '"') AS comment
FROM games AS g
JOIN json_each('["' || replace(g.moves, ' ', '","') || '"]') AS m ON m.value <> ''
LEFT JOIN ply_data AS d ON d.game_id = g.id;

-- Writing through the view, as in version 16, `moves` packed.
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
        new.site, new.date, new.round, new.white, new.black, new.result, new.white_elo,
        new.black_elo, new.eco,
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening),
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.time_control),
        (SELECT t.id FROM game_texts AS t WHERE t.text = new.termination),
        new.ply_count, new.start_fen, new.final_fen,
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
        site = new.site, date = new.date, round = new.round, white = new.white,
        black = new.black, result = new.result, white_elo = new.white_elo,
        black_elo = new.black_elo, eco = new.eco,
        opening_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.opening),
        time_control_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.time_control),
        termination_id = (SELECT t.id FROM game_texts AS t WHERE t.text = new.termination),
        ply_count = new.ply_count, start_fen = new.start_fen, final_fen = new.final_fen,
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
