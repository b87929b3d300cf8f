-- The `plies` view reads faster, the same rows and values. A packed
-- character's digit is its place in a BLOB of the digits (`instr`), not
-- its code point: `unicode()` turns each one-byte BLOB into TEXT first.
-- `~` and a character past the array's end both read as digit 64, whose
-- values are no value. A game's rows come from an array of exactly as
-- many zeros as it has plies, so no condition is tested on each row; and
-- `pv` looks its `ply_pvs` row up only where it is read.
DROP VIEW plies;
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
