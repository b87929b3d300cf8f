//! Attack tables: leapers (knight, king, pawn) and sliders (bishop, rook,
//! queen) by "fancy" magic bitboards, plus the `between` and `line` tables.
//! Every table is a `static` built by `const fn` at compile time: no build
//! script, no lazy initialisation, no position state.
//!
//! The magic factors were found by a random search (multiply the relevant
//! occupancy by the factor, keep the top bits, require no harmful
//! collisions); `tests::sliders_match_naive_generator` checks every square
//! and every relevant occupancy against a plain ray walk.

use super::bitboard::Bitboard;
use super::types::{Color, Role, Square};

const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT_DELTAS: [(i32, i32); 8] =
    [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const KING_DELTAS: [(i32, i32); 8] =
    [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];

#[rustfmt::skip]
const ROOK_FACTORS: [u64; 64] = [
    0x1080004008801020, 0x0840092002c03000, 0x1900200010400900, 0x0880100008000480,
    0x4200100420080200, 0x8100020100080400, 0x0200040110886200, 0x0200008040220411,
    0x0404800084400220, 0x0000401000402000, 0x0086001081220440, 0x0408800800100280,
    0x000a001201040820, 0x8848800200840080, 0x4001000100040200, 0x0442000102105084,
    0x9080010020804100, 0x0040404000201009, 0x0000808010002009, 0x2200090021d00100,
    0x0008008008040080, 0x0004004002010040, 0x0011040008015042, 0x00000a0001768104,
    0x0000800080204009, 0x2010004140002001, 0x9800200280100080, 0x1000100080080080,
    0x0442000a00049020, 0x2100040080020080, 0x0800120400900148, 0x0010040a00128541,
    0x2800804000800030, 0x1010002000400041, 0x4000200011004100, 0x0610008410800800,
    0x0400802402800800, 0xc100020080800400, 0x0002000802000401, 0x0182085882000401,
    0x0220204000808000, 0x2860100040024022, 0x0001002004110040, 0x99101042000a0020,
    0x0004080004008080, 0x0010040002008080, 0x2012004881020004, 0x8300842444820011,
    0x0088403882010200, 0x0820400080210100, 0x0110910040a00300, 0x0801100280080480,
    0x0242009008200600, 0x1002000489500200, 0x0040800200010080, 0x0091800041000080,
    0x0000209300488001, 0x04c1002414824001, 0x020020000b001041, 0x7000100004200901,
    0x8002002004100802, 0x30010002084c0007, 0x0888221800813004, 0x4000002840840112,
];

#[rustfmt::skip]
const BISHOP_FACTORS: [u64; 64] = [
    0xa010041108003100, 0x006082020a002900, 0x6810010619200000, 0x08281a0520000408,
    0x0001104001000400, 0x0018901008048400, 0x00040a0210245280, 0x000200210808a402,
    0x9140048410821200, 0x0800091010820041, 0x20504804832202c0, 0x0100091401081000,
    0x8021011140000012, 0x0810020804450400, 0x208b0542109008a2, 0x0080084a08040204,
    0x0040e2a80811244c, 0x2505022008008108, 0x0430220100420040, 0x010a040420220040,
    0x1105000290400000, 0x0093001200822120, 0x4000a62048043004, 0x280120048a015004,
    0x006090002a020814, 0x44042000240800d0, 0x01102800040a4400, 0x1004080080220040,
    0x0001001011004024, 0x0010044000805040, 0x0914041200820100, 0x0004821012821480,
    0x0024040500c05021, 0x0088611002080200, 0x0116080a00040020, 0x4000020080080080,
    0x2450450140840040, 0x0000880201484100, 0x0222020404020092, 0x8081110600002e00,
    0x2842101105000801, 0x1100809008001025, 0x00020202221c0400, 0x0422014022009020,
    0x0210046102100c00, 0xc004008082029102, 0x00aa461801101200, 0x0404080080201108,
    0x020542108c205002, 0x0410544804100100, 0x0040910841100000, 0x0400200042021100,
    0x00004204850400c0, 0x0200100410a42102, 0x1040020801210102, 0x0805040410420000,
    0x2884804130100200, 0x800c262201242000, 0x1058000194108800, 0x0014221054420204,
    0x0104000012a02200, 0x0200881003300100, 0x0140400202840100, 0x0402020801010201,
];

/// Attacks of a slider from `sq` given `occ`, by walking the rays.
const fn slide(sq: usize, occ: u64, dirs: &[(i32, i32); 4]) -> u64 {
    let (f0, r0) = ((sq % 8) as i32, (sq / 8) as i32);
    let mut att = 0u64;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while f >= 0 && f < 8 && r >= 0 && r < 8 {
            let b = 1u64 << (r * 8 + f);
            att |= b;
            if occ & b != 0 {
                break;
            }
            f += df;
            r += dr;
        }
        d += 1;
    }
    att
}

/// The squares whose occupancy matters for a slider on `sq` (rays without
/// their last square).
const fn relevant_mask(sq: usize, dirs: &[(i32, i32); 4]) -> u64 {
    let (f0, r0) = ((sq % 8) as i32, (sq / 8) as i32);
    let mut m = 0u64;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while f + df >= 0 && f + df < 8 && r + dr >= 0 && r + dr < 8 {
            m |= 1u64 << (r * 8 + f);
            f += df;
            r += dr;
        }
        d += 1;
    }
    m
}

const fn leaper_table(deltas: &[(i32, i32); 8]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f0, r0) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut i = 0;
        while i < 8 {
            let (f, r) = (f0 + deltas[i].0, r0 + deltas[i].1);
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                table[sq] |= 1u64 << (r * 8 + f);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

const fn pawn_table(color: Color) -> [u64; 64] {
    let dr = match color {
        Color::White => 1,
        Color::Black => -1,
    };
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f0, r0) = ((sq % 8) as i32, (sq / 8) as i32);
        let r = r0 + dr;
        if r >= 0 && r < 8 {
            if f0 > 0 {
                table[sq] |= 1u64 << (r * 8 + f0 - 1);
            }
            if f0 < 7 {
                table[sq] |= 1u64 << (r * 8 + f0 + 1);
            }
        }
        sq += 1;
    }
    table
}

/// One square's magic: relevant mask, factor, shift and offset into
/// [`SLIDER_ATTACKS`].
#[derive(Clone, Copy)]
struct Magic {
    mask: u64,
    factor: u64,
    shift: u32,
    offset: usize,
}

const fn magics(factors: &[u64; 64], dirs: &[(i32, i32); 4], start: usize) -> ([Magic; 64], usize) {
    let mut out = [Magic { mask: 0, factor: 0, shift: 0, offset: 0 }; 64];
    let mut offset = start;
    let mut sq = 0;
    while sq < 64 {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        out[sq] = Magic { mask, factor: factors[sq], shift: 64 - bits, offset };
        offset += 1 << bits;
        sq += 1;
    }
    (out, offset)
}

const ROOK_MAGICS_AND_END: ([Magic; 64], usize) = magics(&ROOK_FACTORS, &ROOK_DIRS, 0);
static ROOK_MAGICS: [Magic; 64] = ROOK_MAGICS_AND_END.0;
const BISHOP_MAGICS_AND_END: ([Magic; 64], usize) =
    magics(&BISHOP_FACTORS, &BISHOP_DIRS, ROOK_MAGICS_AND_END.1);
static BISHOP_MAGICS: [Magic; 64] = BISHOP_MAGICS_AND_END.0;
const SLIDER_TABLE_SIZE: usize = BISHOP_MAGICS_AND_END.1;

const fn fill(table: &mut [u64; SLIDER_TABLE_SIZE], magics: &[Magic; 64], dirs: &[(i32, i32); 4]) {
    let mut sq = 0;
    while sq < 64 {
        let m = magics[sq];
        // Carry-rippler enumeration of every subset of the mask.
        let mut subset = 0u64;
        loop {
            let idx = m.offset + (subset.wrapping_mul(m.factor) >> m.shift) as usize;
            table[idx] = slide(sq, subset, dirs);
            subset = subset.wrapping_sub(m.mask) & m.mask;
            if subset == 0 {
                break;
            }
        }
        sq += 1;
    }
}

const fn slider_table() -> [u64; SLIDER_TABLE_SIZE] {
    let mut table = [0u64; SLIDER_TABLE_SIZE];
    fill(&mut table, &ROOK_MAGICS_AND_END.0, &ROOK_DIRS);
    fill(&mut table, &BISHOP_MAGICS_AND_END.0, &BISHOP_DIRS);
    table
}

#[allow(long_running_const_eval)]
static SLIDER_ATTACKS: [u64; SLIDER_TABLE_SIZE] = slider_table();
static KNIGHT_ATTACKS: [u64; 64] = leaper_table(&KNIGHT_DELTAS);
static KING_ATTACKS: [u64; 64] = leaper_table(&KING_DELTAS);
static PAWN_ATTACKS: [[u64; 64]; 2] = [pawn_table(Color::White), pawn_table(Color::Black)];

/// `BETWEEN[a][b]`: squares strictly between `a` and `b` if they share a
/// rank, file or diagonal; empty otherwise. `LINE[a][b]`: the whole line
/// through both (edge to edge), or empty.
const fn line_tables() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    let mut between = [[0u64; 64]; 64];
    let mut line = [[0u64; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            if a != b {
                let (fa, ra) = ((a % 8) as i32, (a / 8) as i32);
                let (fb, rb) = ((b % 8) as i32, (b / 8) as i32);
                let (df, dr) = (fb - fa, rb - ra);
                if df == 0 || dr == 0 || df == dr || df == -dr {
                    let sf = if df > 0 {
                        1
                    } else if df < 0 {
                        -1
                    } else {
                        0
                    };
                    let sr = if dr > 0 {
                        1
                    } else if dr < 0 {
                        -1
                    } else {
                        0
                    };
                    let (mut f, mut r) = (fa + sf, ra + sr);
                    while f != fb || r != rb {
                        between[a][b] |= 1u64 << (r * 8 + f);
                        f += sf;
                        r += sr;
                    }
                    // The full line: walk both ways from a.
                    let mut l = 1u64 << a;
                    let (mut f, mut r) = (fa + sf, ra + sr);
                    while f >= 0 && f < 8 && r >= 0 && r < 8 {
                        l |= 1u64 << (r * 8 + f);
                        f += sf;
                        r += sr;
                    }
                    let (mut f, mut r) = (fa - sf, ra - sr);
                    while f >= 0 && f < 8 && r >= 0 && r < 8 {
                        l |= 1u64 << (r * 8 + f);
                        f -= sf;
                        r -= sr;
                    }
                    line[a][b] = l;
                }
            }
            b += 1;
        }
        a += 1;
    }
    (between, line)
}

const LINE_TABLES: ([[u64; 64]; 64], [[u64; 64]; 64]) = line_tables();
static BETWEEN: [[u64; 64]; 64] = LINE_TABLES.0;
static LINE: [[u64; 64]; 64] = LINE_TABLES.1;

#[inline]
fn magic_lookup(m: &Magic, occupied: Bitboard) -> Bitboard {
    let idx = m.offset + ((occupied.0 & m.mask).wrapping_mul(m.factor) >> m.shift) as usize;
    // Safety: the product of a masked occupancy with the factor shifted by
    // `shift` is below 2^(64 - shift), the size reserved for this square, so
    // `idx` stays inside SLIDER_ATTACKS. Skipping the bounds check saves a
    // compare and branch on the hottest lookup of move generation.
    Bitboard(unsafe { *SLIDER_ATTACKS.get_unchecked(idx) })
}

/// Squares a rook on `sq` attacks, given the occupied squares.
#[inline]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&ROOK_MAGICS[sq.index()], occupied)
}

/// Squares a bishop on `sq` attacks, given the occupied squares.
#[inline]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&BISHOP_MAGICS[sq.index()], occupied)
}

/// Squares a queen on `sq` attacks, given the occupied squares.
#[inline]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// Squares a knight on `sq` attacks.
#[inline]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT_ATTACKS[sq.index()])
}

/// Squares a king on `sq` attacks.
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING_ATTACKS[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks (captures, not pushes).
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN_ATTACKS[color as usize][sq.index()])
}

/// Squares a piece of `color` and `role` on `sq` attacks.
#[inline]
pub fn attacks(color: Color, role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Pawn => pawn_attacks(color, sq),
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occupied),
        Role::Rook => rook_attacks(sq, occupied),
        Role::Queen => queen_attacks(sq, occupied),
        Role::King => king_attacks(sq),
    }
}

/// Squares strictly between `a` and `b` on a shared line, or empty.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN[a.index()][b.index()])
}

/// The whole line (rank, file or diagonal, edge to edge) through `a` and
/// `b`, or empty if they share none.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINE[a.index()][b.index()])
}

/// `true` if `a`, `b` and `c` lie on one line.
#[inline]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(sq: Square, occ: Bitboard, dirs: &[(i32, i32); 4]) -> Bitboard {
        let mut att = Bitboard::EMPTY;
        for &(df, dr) in dirs {
            let (mut f, mut r) = (sq.file() as i32 + df, sq.rank() as i32 + dr);
            while (0..8).contains(&f) && (0..8).contains(&r) {
                let s = Square::new((r * 8 + f) as u32).unwrap();
                att.add(s);
                if occ.contains(s) {
                    break;
                }
                f += df;
                r += dr;
            }
        }
        att
    }

    #[test]
    fn sliders_match_naive_generator() {
        // Every relevant occupancy of every square, plus noise outside the mask.
        for sq in Square::all() {
            for (dirs, magic, f) in [
                (
                    &ROOK_DIRS,
                    &ROOK_MAGICS[sq.index()],
                    rook_attacks as fn(Square, Bitboard) -> Bitboard,
                ),
                (&BISHOP_DIRS, &BISHOP_MAGICS[sq.index()], bishop_attacks),
            ] {
                let mask = magic.mask;
                let mut subset = 0u64;
                loop {
                    let noise = Bitboard(0x8100_0000_0000_0081 & !mask);
                    let occ = Bitboard(subset) | noise;
                    assert_eq!(f(sq, occ), naive(sq, occ, dirs), "square {sq} occ {subset:x}");
                    subset = subset.wrapping_sub(mask) & mask;
                    if subset == 0 {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn leapers() {
        assert_eq!(knight_attacks(Square::A1), Bitboard::from_square(Square::B3) | Square::C2);
        assert_eq!(king_attacks(Square::E1).count(), 5);
        assert_eq!(
            pawn_attacks(Color::White, Square::E4),
            Bitboard::from_square(Square::D5) | Square::F5
        );
        assert_eq!(pawn_attacks(Color::Black, Square::A7), Bitboard::from_square(Square::B6));
        assert_eq!(pawn_attacks(Color::White, Square::H8), Bitboard::EMPTY);
    }

    #[test]
    fn lines_and_between() {
        assert_eq!(between(Square::A1, Square::D4), Bitboard::from_square(Square::B2) | Square::C3);
        assert_eq!(between(Square::A1, Square::B3), Bitboard::EMPTY);
        assert_eq!(line(Square::A1, Square::B3), Bitboard::EMPTY);
        assert_eq!(line(Square::B2, Square::C3).count(), 8);
        assert!(aligned(Square::E1, Square::E4, Square::E8));
        assert!(!aligned(Square::E1, Square::E4, Square::D8));
    }
}
