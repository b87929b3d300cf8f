//! How many plies a position needs at least, from a start position: a
//! lower bound cheap enough to take at every ply of every game imported
//! ([`Reach::reach`] tells the far positions apart by a few popcounts).

use std::sync::OnceLock;

use super::attacks;
use super::bitboard::Bitboard;
use super::board::Board;
use super::moves::CastlingSide;
use super::position::Position;
use super::types::{Color, Rank, Role, Square};

/// The largest bound [`Reach::reach`] gives; farther positions are `None`.
pub const REACH_CAP: u32 = 8;

/// A lower bound on the plies that reach `pos` from `start`: see
/// [`Reach`]. To bound many positions from one start, make the [`Reach`]
/// once.
pub fn min_plies(start: &Position, pos: &Position) -> u32 {
    Reach::new(start).min_plies(pos)
}

/// The lower bound of the plies from one start position to any other.
/// Each side moved each man of the position that stands where the start
/// has no such man at least as often as the man's kind needs to get there
/// from the nearest start square of that kind (a knight by knight's moves,
/// a bishop, rook or queen once on a line from it and twice elsewhere, a
/// king step by step or by castling, a pawn once per rank beyond its
/// double step), no more than a promotion takes once a pawn is gone (the
/// man may be a promoted one). A king and a rook may move together by
/// castling. Each side also made one move per man of the other side that
/// is gone (men leave the board only when captured). The sides move in
/// turn. Each man's moves come from a table made with the start position.
#[derive(Debug, Clone)]
pub struct Reach {
    start: Board,
    turn: Color,
    /// The moves of a man of each colour and role to each square: 0 where
    /// the start has such a man.
    costs: [[[u8; 64]; 6]; 2],
    /// The fewest moves a pawn of each colour needs to promote.
    promotion: [u32; 2],
}

impl Reach {
    /// The bound from `start`.
    pub fn new(start: &Position) -> Reach {
        let board = *start.board();
        let mut costs = [[[0u8; 64]; 6]; 2];
        let mut promotion = [u32::MAX; 2];
        for (side, color) in [Color::White, Color::Black].into_iter().enumerate() {
            let men = |role| board.by_color(color) & board.by_role(role);
            let pawns = men(Role::Pawn);
            promotion[side] = promotion_moves(pawns, color);
            let home_pawns =
                (pawns & !Bitboard::from_rank(Rank::Second.relative_to(color))).is_empty();
            for role in
                [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King]
            {
                let homes = men(role);
                for sq in Square::all() {
                    let cost = if homes.contains(sq) {
                        0
                    } else if role == Role::Pawn {
                        // The third and fourth ranks take one move, each
                        // rank beyond one more.
                        let rank = sq.rank().relative_to(color).index();
                        if home_pawns {
                            rank.saturating_sub(2).max(1)
                        } else {
                            1
                        }
                    } else {
                        distance(role, homes, sq, start, color).max(1)
                    };
                    costs[side][role.index()][sq.index()] = cost.min(u32::from(u8::MAX)) as u8;
                }
            }
        }
        Reach { start: board, turn: start.turn(), costs, promotion }
    }

    /// The bound from the standard start position.
    pub fn standard() -> &'static Reach {
        static STANDARD: OnceLock<Reach> = OnceLock::new();
        STANDARD.get_or_init(|| Reach::new(&Position::new()))
    }

    /// The bound for `pos`.
    pub fn min_plies(&self, pos: &Position) -> u32 {
        self.plies(pos, [self.side_moves(pos, Color::White), self.side_moves(pos, Color::Black)])
    }

    /// [`Reach::min_plies`] when it is at most [`REACH_CAP`], else `None`:
    /// cheaper bounds (the captures; every man off its side's squares one
    /// move) are taken first, and most positions of a game are past the cap
    /// by those.
    pub fn reach(&self, pos: &Position) -> Option<u32> {
        self.reach_within(pos, REACH_CAP)
    }

    /// [`Reach::reach`] when it is at most `cap` (itself at most
    /// [`REACH_CAP`]), else `None`.
    pub fn reach_within(&self, pos: &Position, cap: u32) -> Option<u32> {
        let cap = cap.min(REACH_CAP);
        // One side captured at least half the men gone, one move each.
        let gone = self.start.occupied().count().saturating_sub(pos.board().occupied().count());
        if 2 * gone.div_ceil(2) > cap + 1 {
            return None;
        }
        let rough = [self.rough_moves(pos, Color::White), self.rough_moves(pos, Color::Black)];
        if self.plies(pos, rough) > cap {
            return None;
        }
        Some(self.min_plies(pos)).filter(|&n| n <= cap)
    }

    /// The plies for `moves` (each side's) made from the start's turn to
    /// `pos`'s.
    fn plies(&self, pos: &Position, moves: [u32; 2]) -> u32 {
        // The side that moves first makes the extra move of an odd count.
        let first = usize::from(!self.turn.is_white());
        let (a, b) = (moves[first], moves[1 - first]);
        if pos.turn() == self.turn {
            2 * a.max(b)
        } else {
            (2 * a).saturating_sub(1).max(2 * b + 1)
        }
    }

    /// The men `color` captured: one move each.
    fn captures(&self, pos: &Position, color: Color) -> u32 {
        let other = color.other();
        self.start.by_color(other).count().saturating_sub(pos.board().by_color(other).count())
    }

    /// At most [`Reach::side_moves`]: each man on a square the start has
    /// none of its side on one move, a king and a rook perhaps one
    /// together, or the captures.
    fn rough_moves(&self, pos: &Position, color: Color) -> u32 {
        let moved = (pos.board().by_color(color) & !self.start.by_color(color)).count();
        moved.saturating_sub(1).max(self.captures(pos, color))
    }

    /// The moves `color` made at least from the start to `pos`.
    fn side_moves(&self, pos: &Position, color: Color) -> u32 {
        let board = pos.board();
        let side = usize::from(!color.is_white());
        let costs = &self.costs[side];
        let men = |b: &Board, role| b.by_color(color) & b.by_role(role);
        let promoted = men(board, Role::Pawn).count() < men(&self.start, Role::Pawn).count();
        let mut n = 0;
        // Only the men off the start's squares of their kind cost moves.
        for sq in men(board, Role::Pawn) & !men(&self.start, Role::Pawn) {
            n += u32::from(costs[Role::Pawn.index()][sq.index()]);
        }
        let mut moved = [0u32; 6];
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King] {
            for sq in men(board, role) & !men(&self.start, role) {
                let cost = u32::from(costs[role.index()][sq.index()]);
                moved[role.index()] += 1;
                n += if promoted { cost.min(self.promotion[side]) } else { cost };
            }
        }
        if moved[Role::King.index()] > 0 && moved[Role::Rook.index()] > 0 {
            n -= 1;
        }
        n.max(self.captures(pos, color))
    }
}

/// The fewest moves a man of `role` needs from the nearest of `homes` to
/// `sq` (1 when there is none: it came some other way).
fn distance(role: Role, homes: Bitboard, sq: Square, start: &Position, color: Color) -> u32 {
    let mut best = u32::MAX;
    for home in homes {
        let d = match role {
            Role::Knight => u32::from(knight_distances()[home.index()][sq.index()]),
            Role::Bishop => {
                if attacks::bishop_attacks(home, Bitboard::EMPTY).contains(sq) {
                    1
                } else if Bitboard::LIGHT.contains(home) == Bitboard::LIGHT.contains(sq) {
                    2
                } else {
                    // Never from this one.
                    continue;
                }
            }
            Role::Rook | Role::Queen => {
                let lines = if role == Role::Rook {
                    attacks::rook_attacks(home, Bitboard::EMPTY)
                } else {
                    attacks::queen_attacks(home, Bitboard::EMPTY)
                };
                if lines.contains(sq) {
                    1
                } else {
                    2
                }
            }
            Role::King => {
                let mut d = king_distance(home, sq);
                for rook in start.castling_rights() & start.board().by_color(color) {
                    let side = CastlingSide::from_king_and_rook(home, rook);
                    d = d.min(1 + king_distance(side.king_to(color), sq));
                }
                d
            }
            Role::Pawn => 1,
        };
        best = best.min(d);
    }
    if best == u32::MAX {
        1
    } else {
        best
    }
}

/// The moves a king needs from `a` to `b` on an empty board.
fn king_distance(a: Square, b: Square) -> u32 {
    let file = (a.file().index() as i32 - b.file().index() as i32).unsigned_abs();
    let rank = (a.rank().index() as i32 - b.rank().index() as i32).unsigned_abs();
    file.max(rank)
}

/// The fewest moves one of `pawns` (of `color`) needs to promote.
fn promotion_moves(pawns: Bitboard, color: Color) -> u32 {
    pawns
        .map(|sq| {
            let rank = sq.rank().relative_to(color).index();
            // From the second rank, a double step first.
            if rank == 1 {
                5
            } else {
                7u32.saturating_sub(rank)
            }
        })
        .min()
        .unwrap_or(u32::MAX)
}

/// Knight's-move distances between any two squares of an empty board.
fn knight_distances() -> &'static [[u8; 64]; 64] {
    static TABLE: OnceLock<Box<[[u8; 64]; 64]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Box::new([[u8::MAX; 64]; 64]);
        for from in Square::all() {
            let row = &mut table[from.index()];
            row[from.index()] = 0;
            let mut frontier = Bitboard::from_square(from);
            let mut d = 0;
            while frontier.any() {
                d += 1;
                let mut next = Bitboard::EMPTY;
                for sq in frontier {
                    next |= attacks::knight_attacks(sq);
                }
                frontier = Bitboard::EMPTY;
                for sq in next {
                    if row[sq.index()] == u8::MAX {
                        row[sq.index()] = d;
                        frontier.add(sq);
                    }
                }
            }
        }
        table
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{MoveList, Piece, Square};

    /// The position after `moves` (UCI) from the start.
    fn after(moves: &str) -> Position {
        let mut pos = Position::new();
        for uci in moves.split_whitespace() {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            let m = list
                .iter()
                .copied()
                .find(|m| format!("{}{}", m.from(), m.to()) == uci)
                .unwrap_or_else(|| panic!("{uci} is not legal"));
            pos.play_unchecked(m);
        }
        pos
    }

    #[test]
    fn bounds_the_plies_of_real_move_orders() {
        let start = Position::new();
        assert_eq!(min_plies(&start, &start), 0);
        assert_eq!(min_plies(&start, &after("e2e4")), 1);
        assert_eq!(min_plies(&start, &after("e2e4 c7c5")), 2);
        assert_eq!(min_plies(&start, &after("e2e4 e7e5 g1f3 b8c6 f1b5")), 5);
        // Tempo lost and regained: the start position again.
        assert_eq!(min_plies(&start, &after("g1f3 g8f6 f3g1 f6g8")), 0);
        // Castling moves king and rook at once.
        let castled = after("e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 e1g1");
        assert_eq!(min_plies(&start, &castled), 7);
        // A pawn on its fifth rank took two moves.
        assert_eq!(min_plies(&start, &after("e2e4 a7a6 e4e5")), 3);
        // From another start, counted from there.
        let from = after("e2e4 e7e5 g1f3 b8c6");
        assert_eq!(min_plies(&from, &after("e2e4 e7e5 g1f3 b8c6 f1b5")), 1);
    }

    #[test]
    fn captured_men_count_as_moves_of_the_other_side() {
        let start = Position::new();
        // Two men moved by white, none by black, but each side captured
        // two men: five plies, not three.
        let traded = after("e2e4 d7d5 e4d5 d8d5 b1c3 d5a2 a1a2");
        assert_eq!(min_plies(&start, &traded), 5);
        // Knights and bishops take the moves their paths need.
        assert_eq!(min_plies(&start, &after("g1f3 e7e6 f3d4")), 3);
        assert_eq!(min_plies(&start, &after("e2e3 e7e6 f1d3 f8e7 d3b5")), 5);
        // A king walks from its castled square.
        let walked = after("e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 e1g1 g8f6 g1h1");
        assert_eq!(min_plies(&start, &walked), 9);
        // A bare king and rook: fifteen black men were captured.
        let mut board = crate::chess::Board::empty();
        board.set_piece_at(Square::E6, Piece { color: Color::Black, role: Role::King });
        board.set_piece_at(Square::A1, Piece { color: Color::White, role: Role::Rook });
        board.set_piece_at(Square::E1, Piece { color: Color::White, role: Role::King });
        let setup =
            crate::chess::Setup { board, castling_rights: Bitboard::EMPTY, ..Default::default() };
        let ending = Position::from_setup(setup).unwrap();
        assert!(min_plies(&start, &ending) >= 29);
    }

    /// Random games from `start`: the bound never exceeds the plies played,
    /// and [`Reach::reach`] and [`Reach::reach_within`] are the bound up to
    /// their caps.
    fn random_games(start: &Position, games: usize, mut x: u64) {
        let mut moves = MoveList::new();
        let bound = Reach::new(start);
        for _ in 0..games {
            let mut pos = start.clone();
            for ply in 0..120 {
                assert!(min_plies(start, &pos) <= ply, "ply {ply}: {:?}", pos.board());
                assert_eq!(bound.min_plies(&pos), min_plies(start, &pos));
                assert_eq!(
                    bound.reach(&pos),
                    Some(min_plies(start, &pos)).filter(|&n| n <= REACH_CAP)
                );
                for cap in 0..=REACH_CAP + 1 {
                    let within = Some(min_plies(start, &pos)).filter(|&n| n <= cap.min(REACH_CAP));
                    assert_eq!(bound.reach_within(&pos, cap), within, "within {cap}");
                }
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                pos.play_unchecked(moves[(x % moves.len() as u64) as usize]);
            }
        }
    }

    #[test]
    fn never_above_the_plies_of_random_games() {
        random_games(&Position::new(), 300, 0x9e37_79b9_7f4a_7c15);
        // From a position reached by other moves.
        random_games(&after("d2d4 g8f6 c2c4 e7e6 b1c3 f8b4"), 100, 7);
        // From pawns about to promote, with no knight, bishop or rook.
        let mut board = crate::chess::Board::empty();
        for (sq, color, role) in [
            (Square::E1, Color::White, Role::King),
            (Square::E8, Color::Black, Role::King),
            (Square::A7, Color::White, Role::Pawn),
            (Square::G7, Color::White, Role::Pawn),
            (Square::B2, Color::Black, Role::Pawn),
            (Square::H2, Color::Black, Role::Pawn),
        ] {
            board.set_piece_at(sq, Piece { color, role });
        }
        let setup =
            crate::chess::Setup { board, castling_rights: Bitboard::EMPTY, ..Default::default() };
        random_games(&Position::from_setup(setup).unwrap(), 300, 11);
    }
}
