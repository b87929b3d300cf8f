//! [`Position`]: a checked, playable position. Private fields, built only
//! from a [`Setup`] that passes validation (or the start position). Legal
//! move generation, move legality, make-move with incremental Zobrist
//! update, and game-end tests. Never parses or prints text.

use std::fmt;
use std::num::NonZeroU32;

use arrayvec::ArrayVec;

use super::attacks;
use super::bitboard::Bitboard;
use super::board::Board;
use super::moves::{CastlingSide, Move};
use super::setup::Setup;
use super::types::{ByColor, Color, Piece, Rank, Role, Square};
use super::zobrist::{self, Zobrist};

/// A list of moves; no position has more than 218 legal moves.
pub type MoveList = ArrayVec<Move, 256>;

/// Why a [`Setup`] is not a legal position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// A side has no king.
    #[error("{} has no king", color_name(*.0))]
    MissingKing(Color),
    /// A side has more than one king.
    #[error("{} has more than one king", color_name(*.0))]
    TooManyKings(Color),
    /// A pawn stands on the first or last rank.
    #[error("pawn on the first or last rank ({0})")]
    PawnOnBackrank(Square),
    /// The side not to move is in check.
    #[error("the side not to move ({}) is in check", color_name(*.0))]
    OppositeCheck(Color),
    /// A castling right names a square without a rook, or a king that is not
    /// on its back rank, or more than one rook on one side of the king.
    #[error("castling right at {0} has no matching king and rook")]
    BadCastlingRights(Square),
    /// A side has more pieces than promotions can explain (more than 16
    /// pieces, more than 8 pawns, or more promoted pieces than missing
    /// pawns). Such positions could overflow move lists and never occur in
    /// games.
    #[error("{} has more material than a game can reach", color_name(*.0))]
    TooMuchMaterial(Color),
    /// The en-passant square is impossible (wrong rank, no pawn in front of it,
    /// squares not empty).
    #[error("impossible en-passant square {0}")]
    BadEnPassant(Square),
    /// The side to move is checked by more than two pieces, which no move
    /// can do.
    #[error("{side} is checked by {n} pieces (a move gives at most a double check)", side = color_name(*.0), n = .1)]
    TooManyCheckers(Color, u32),
}

fn color_name(c: Color) -> &'static str {
    c.fold("white", "black")
}

/// Why a [`Move`] cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("illegal move")]
pub struct IllegalMoveError;

/// How a game ended on the board, if it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The side to move is checkmated; the other side wins.
    Checkmate {
        /// The winner.
        winner: Color,
    },
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can ever mate.
    InsufficientMaterial,
}

/// A legal chess position (standard or Chess960).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    board: Board,
    turn: Color,
    castling_rights: Bitboard,
    /// En-passant square in Polyglot semantics: set only if a pawn of the
    /// side to move stands ready to capture there (pins ignored).
    ep_square: Option<Square>,
    halfmoves: u32,
    fullmoves: NonZeroU32,
    key: Zobrist,
    /// The castling part of `key`, cached for `play_unchecked`.
    castling_key: u64,
    /// Both kings' squares, cached (a position always has one king each).
    kings: ByColor<Square>,
    /// The pieces giving check to the side to move, kept by `play_unchecked`.
    checkers: Bitboard,
}

impl Default for Position {
    fn default() -> Position {
        Position::new()
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Position")
            .field("board", &self.board)
            .field("turn", &self.turn)
            .field("castling_rights", &self.castling_rights.0)
            .field("ep_square", &self.ep_square)
            .field("key", &self.key)
            .finish()
    }
}

impl Position {
    /// The standard starting position.
    pub fn new() -> Position {
        static START: std::sync::OnceLock<Position> = std::sync::OnceLock::new();
        START
            .get_or_init(|| {
                Position::from_setup(Setup::standard()).expect("the start position is legal")
            })
            .clone()
    }

    /// Checks a setup and turns it into a position.
    ///
    /// An en-passant square that no pawn can capture on is dropped (it is
    /// kept only when it matters, as in Polyglot keys).
    ///
    /// # Errors
    /// The first rule of [`PositionError`] the setup breaks.
    pub fn from_setup(setup: Setup) -> Result<Position, PositionError> {
        let Setup { board, turn, castling_rights, ep_square, halfmoves, fullmoves } = setup;
        for color in Color::ALL {
            let kings = board.by_piece(Piece { color, role: Role::King });
            if kings.is_empty() {
                return Err(PositionError::MissingKing(color));
            }
            if kings.more_than_one() {
                return Err(PositionError::TooManyKings(color));
            }
        }
        if let Some(sq) = (board.by_role(Role::Pawn) & Bitboard::BACKRANKS).first() {
            return Err(PositionError::PawnOnBackrank(sq));
        }
        for color in Color::ALL {
            if !material_is_reachable(&board, color) {
                return Err(PositionError::TooMuchMaterial(color));
            }
        }
        validate_castling(&board, castling_rights)?;
        let ep_square = match ep_square {
            Some(ep) => validate_ep(&board, turn, ep)?,
            None => None,
        };
        let key = zobrist::hash_from_scratch(&board, turn, castling_rights, ep_square);
        let castling_key = zobrist::castling_rights_key(&board, castling_rights);
        let kings = ByColor {
            white: board.king_of(Color::White).ok_or(PositionError::MissingKing(Color::White))?,
            black: board.king_of(Color::Black).ok_or(PositionError::MissingKing(Color::Black))?,
        };
        let mut pos = Position {
            board,
            turn,
            castling_rights,
            ep_square,
            halfmoves,
            fullmoves,
            key,
            castling_key,
            kings,
            checkers: Bitboard::EMPTY,
        };
        if pos.attackers_of_king(turn.other()).any() {
            return Err(PositionError::OppositeCheck(turn.other()));
        }
        pos.checkers = pos.attackers_of_king(turn);
        if pos.checkers.count() > 2 {
            return Err(PositionError::TooManyCheckers(turn, pos.checkers.count()));
        }
        Ok(pos)
    }

    /// The raw facts of this position.
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board,
            turn: self.turn,
            castling_rights: self.castling_rights,
            ep_square: self.legal_ep_square(),
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }

    /// Piece placement.
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The rooks that keep castling rights.
    #[inline]
    pub fn castling_rights(&self) -> Bitboard {
        self.castling_rights
    }

    /// The en-passant square if a pawn of the side to move stands beside the
    /// pawn that just moved two squares (Polyglot semantics; pins ignored).
    #[inline]
    pub fn pseudo_ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// The en-passant square only if an en-passant capture is legal (the
    /// square FEN output shows, as python-chess does by default).
    pub fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep_square?;
        let mut moves = MoveList::new();
        self.gen_en_passant(ep, &mut moves);
        if moves.is_empty() {
            None
        } else {
            Some(ep)
        }
    }

    /// Plies since the last capture or pawn move.
    #[inline]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number.
    #[inline]
    pub fn fullmoves(&self) -> NonZeroU32 {
        self.fullmoves
    }

    /// The Polyglot Zobrist key, kept up to date by [`Position::play_unchecked`].
    #[inline]
    pub fn zobrist(&self) -> Zobrist {
        self.key
    }

    /// The square of `color`'s king.
    #[inline]
    pub fn king_of(&self, color: Color) -> Square {
        *self.kings.get(color)
    }

    /// The pieces of the other side attacking `color`'s king, computed from
    /// the board.
    #[inline]
    fn attackers_of_king(&self, color: Color) -> Bitboard {
        self.board.attacks_to(self.king_of(color), color.other(), self.board.occupied())
    }

    #[inline]
    fn our(&self, role: Role) -> Bitboard {
        self.board.by_role(role) & self.board.by_color(self.turn)
    }

    /// The pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// `true` if the side to move is in check.
    #[inline]
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// Pieces (of either side) that stand alone between `king` and an enemy
    /// slider: moving them could expose the king.
    #[inline]
    fn slider_blockers(&self, king: Square) -> Bitboard {
        let them = self.board.by_color(self.turn.other());
        let snipers = them
            & ((attacks::rook_attacks(king, Bitboard::EMPTY) & self.board.rooks_and_queens())
                | (attacks::bishop_attacks(king, Bitboard::EMPTY)
                    & self.board.bishops_and_queens()));
        let mut blockers = Bitboard::EMPTY;
        for sniper in snipers {
            let b = attacks::between(king, sniper) & self.board.occupied();
            if !b.more_than_one() {
                blockers |= b;
            }
        }
        blockers
    }

    /// Every legal move, appended to `moves` after clearing it.
    pub fn legal_moves(&self, moves: &mut MoveList) {
        moves.clear();
        let king = self.king_of(self.turn);
        let checkers = self.checkers();
        let target = if checkers.is_empty() {
            !self.board.by_color(self.turn)
        } else if checkers.more_than_one() {
            Bitboard::EMPTY
        } else {
            let checker = checkers.first().unwrap_or(king);
            attacks::between(king, checker).with(checker)
        };
        if target.any() {
            self.gen_non_king(target, moves);
            let blockers = self.slider_blockers(king) & self.board.by_color(self.turn);
            if blockers.any() {
                moves.retain(|m| {
                    !blockers.contains(m.from()) || attacks::aligned(m.from(), m.to(), king)
                });
            }
        }
        self.gen_king(king, moves);
        if checkers.is_empty() {
            self.gen_castling(king, moves);
        }
        if let Some(ep) = self.ep_square {
            self.gen_en_passant(ep, moves);
        }
    }

    /// The number of legal moves (faster than collecting them when only the
    /// count matters, as at the last ply of perft).
    pub fn count_legal_moves(&self) -> usize {
        let mut moves = MoveList::new();
        self.legal_moves(&mut moves);
        moves.len()
    }

    /// `true` if the side to move has at least one legal move.
    pub fn has_legal_moves(&self) -> bool {
        let king = self.king_of(self.turn);
        let us = self.board.by_color(self.turn);
        let occ_without_king = self.board.occupied().without(king);
        for to in attacks::king_attacks(king) - us {
            if !self.board.attacks_to(to, self.turn.other(), occ_without_king).any() {
                return true;
            }
        }
        self.count_legal_moves() > 0
    }

    fn gen_non_king(&self, target: Bitboard, moves: &mut MoveList) {
        let occ = self.board.occupied();
        let them = self.board.by_color(self.turn.other());
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            for from in self.our(role) {
                for to in attacks::attacks(self.turn, role, from, occ) & target {
                    let capture = if them.contains(to) { self.board.role_at(to) } else { None };
                    moves.push(Move::Normal { role, from, capture, to, promotion: None });
                }
            }
        }
        self.gen_pawns(target, moves);
    }

    fn gen_pawns(&self, target: Bitboard, moves: &mut MoveList) {
        let us = self.turn;
        let them = self.board.by_color(us.other());
        let occ = self.board.occupied();
        let pawns = self.our(Role::Pawn);
        for from in pawns {
            for to in attacks::pawn_attacks(us, from) & them & target {
                push_pawn_move(moves, from, to, self.board.role_at(to));
            }
        }
        let (single, double) = match us {
            Color::White => {
                let single = pawns.shift_up() - occ;
                (single, (single & Bitboard::from_rank(Rank::Third)).shift_up() - occ)
            }
            Color::Black => {
                let single = pawns.shift_down() - occ;
                (single, (single & Bitboard::from_rank(Rank::Sixth)).shift_down() - occ)
            }
        };
        let back = us.fold(-8, 8);
        for to in single & target {
            if let Some(from) = to.offset(back) {
                push_pawn_move(moves, from, to, None);
            }
        }
        for to in double & target {
            if let Some(from) = to.offset(2 * back) {
                moves.push(Move::Normal {
                    role: Role::Pawn,
                    from,
                    capture: None,
                    to,
                    promotion: None,
                });
            }
        }
    }

    fn gen_king(&self, king: Square, moves: &mut MoveList) {
        let us = self.board.by_color(self.turn);
        let them = self.board.by_color(self.turn.other());
        let occ_without_king = self.board.occupied().without(king);
        for to in attacks::king_attacks(king) - us {
            if !self.board.attacks_to(to, self.turn.other(), occ_without_king).any() {
                let capture = if them.contains(to) { self.board.role_at(to) } else { None };
                moves.push(Move::Normal {
                    role: Role::King,
                    from: king,
                    capture,
                    to,
                    promotion: None,
                });
            }
        }
    }

    /// Castling moves, assuming the side to move is not in check.
    fn gen_castling(&self, king: Square, moves: &mut MoveList) {
        let back = Bitboard::from_rank(self.turn.back_rank());
        let rooks = self.castling_rights & back;
        for rook in rooks {
            if let Some(m) = self.castling_move(king, rook) {
                moves.push(m);
            }
        }
    }

    /// The castling move with the rook on `rook`, if legal now (the caller
    /// checks that the king is not in check).
    fn castling_move(&self, king: Square, rook: Square) -> Option<Move> {
        let us = self.turn;
        let side = CastlingSide::from_king_and_rook(king, rook);
        let king_to = side.king_to(us);
        let rook_to = side.rook_to(us);
        let king_path = attacks::between(king, king_to).with(king_to);
        let rook_path = attacks::between(rook, rook_to).with(rook_to);
        let occ = self.board.occupied();
        let others = occ.without(king).without(rook);
        if (others & (king_path | rook_path)).any() {
            return None;
        }
        let them = us.other();
        let occ_without_king = occ.without(king);
        for sq in attacks::between(king, king_to) {
            if self.board.attacks_to(sq, them, occ_without_king).any() {
                return None;
            }
        }
        // The destination is judged after the move, rook already moved: a
        // Chess960 rook can shield the king's destination before castling.
        let after = others.with(king_to).with(rook_to);
        if self.board.attacks_to(king_to, them, after).any() {
            return None;
        }
        Some(Move::Castle { king, rook })
    }

    /// Legal en-passant captures onto `ep`, checked by simulating the move.
    fn gen_en_passant(&self, ep: Square, moves: &mut MoveList) {
        let us = self.turn;
        let king = self.king_of(us);
        let captured =
            Square::from_coords(ep.file(), ep.rank().offset(us.fold(-1, 1)).unwrap_or(Rank::First));
        for from in attacks::pawn_attacks(us.other(), ep) & self.our(Role::Pawn) {
            let occ = (self.board.occupied().without(from).without(captured)).with(ep);
            let attackers = self.board.attacks_to(king, us.other(), occ).without(captured);
            if attackers.is_empty() {
                moves.push(Move::EnPassant { from, to: ep });
            }
        }
    }

    /// `true` if `m` is legal here. Accepts any `Move` value, including ones
    /// made up by a caller, and compares it with what move generation makes.
    pub fn is_legal(&self, m: Move) -> bool {
        let mut moves = MoveList::new();
        self.legal_moves(&mut moves);
        moves.contains(&m)
    }

    /// Legal moves of `role` (of the side to move) landing on `to`, whose
    /// origin lies in `from_mask`. Promotions are generated for every role.
    /// Castling is not included. This resolves SAN from the target square
    /// backwards: only the pieces that attack `to` are looked at, and full
    /// move generation runs only when the side to move is in check.
    pub fn moves_to(&self, role: Role, to: Square, from_mask: Bitboard, moves: &mut MoveList) {
        moves.clear();
        self.for_each_move_to(role, to, from_mask, |m| moves.push(m));
    }

    /// The one legal move [`Position::moves_to`] would list with this
    /// `promotion`; `None` if there is none or more than one (ambiguous).
    /// What SAN resolution needs, without filling a list: the origins are
    /// one bitboard, so the common case takes no closure and no count.
    #[inline]
    pub fn unique_move_to(
        &self,
        role: Role,
        to: Square,
        from_mask: Bitboard,
        promotion: Option<Role>,
    ) -> Option<Move> {
        let Some((froms, capture)) = self.origins_to(role, to, from_mask) else {
            let (mut found, mut count) = (None, 0u32);
            self.for_each_en_passant_to(to, from_mask, |m| {
                if m.promotion() == promotion {
                    found = Some(m);
                    count += 1;
                }
            });
            return found.filter(|_| count == 1);
        };
        if froms.more_than_one() {
            return None;
        }
        let from = froms.first()?;
        // A pawn reaching the last rank promotes, to one of four roles;
        // no other move does.
        let promotes = role == Role::Pawn && matches!(to.rank(), Rank::First | Rank::Eighth);
        let fits = match promotion {
            None => !promotes,
            Some(p) => promotes && Role::PROMOTIONS.contains(&p),
        };
        fits.then_some(Move::Normal { role, from, capture, to, promotion })
    }

    /// Calls `f` with each move [`Position::moves_to`] lists, in its order.
    #[inline]
    fn for_each_move_to(
        &self,
        role: Role,
        to: Square,
        from_mask: Bitboard,
        mut f: impl FnMut(Move),
    ) {
        let Some((froms, capture)) = self.origins_to(role, to, from_mask) else {
            self.for_each_en_passant_to(to, from_mask, f);
            return;
        };
        for from in froms {
            if role == Role::Pawn {
                for_each_pawn_move(from, to, capture, &mut f);
            } else {
                f(Move::Normal { role, from, capture, to, promotion: None });
            }
        }
    }

    /// Calls `f` with each legal en-passant capture onto `to` from
    /// `from_mask`.
    #[inline(never)]
    fn for_each_en_passant_to(&self, to: Square, from_mask: Bitboard, f: impl FnMut(Move)) {
        // En passant is checked by simulating the capture, which also
        // covers evasions and the discovered check along the rank.
        let mut moves = MoveList::new();
        self.gen_en_passant(to, &mut moves);
        moves.iter().copied().filter(|m| from_mask.contains(m.from())).for_each(f);
    }

    /// The squares in `from_mask` from which a piece of `role` of the side
    /// to move moves legally to `to`, and the role it captures there;
    /// `None` for a pawn on the en-passant square, which
    /// [`Position::for_each_en_passant_to`] checks.
    #[inline]
    fn origins_to(
        &self,
        role: Role,
        to: Square,
        from_mask: Bitboard,
    ) -> Option<(Bitboard, Option<Role>)> {
        let us = self.turn;
        let them = us.other();
        if self.board.by_color(us).contains(to) {
            return Some((Bitboard::EMPTY, None));
        }
        let king = self.king_of(us);
        let occ = self.board.occupied();
        let capture =
            if self.board.by_color(them).contains(to) { self.board.role_at(to) } else { None };
        if role == Role::King {
            let legal = from_mask.contains(king)
                && attacks::king_attacks(king).contains(to)
                && !self.board.attacks_to(to, them, occ.without(king)).any();
            let froms = if legal { Bitboard::from_square(king) } else { Bitboard::EMPTY };
            return Some((froms, capture));
        }
        if role == Role::Pawn && self.ep_square == Some(to) {
            return None;
        }
        let checkers = self.checkers();
        if let Some(checker) = checkers.first() {
            // Double check: only the king moves. Single check: the move must
            // capture the checker or block its line.
            if checkers.more_than_one()
                || !attacks::between(king, checker).with(checker).contains(to)
            {
                return Some((Bitboard::EMPTY, capture));
            }
        }
        let froms = match role {
            Role::Pawn if capture.is_some() => {
                attacks::pawn_attacks(them, to) & self.our(Role::Pawn)
            }
            Role::Pawn if !occ.contains(to) => {
                let pawns = self.our(Role::Pawn);
                let back = us.fold(-8, 8);
                match to.offset(back) {
                    Some(from) if pawns.contains(from) => Bitboard::from_square(from),
                    Some(from)
                        if !occ.contains(from)
                            && to.rank() == us.fold(Rank::Fourth, Rank::Fifth) =>
                    {
                        from.offset(back).map_or(Bitboard::EMPTY, Bitboard::from_square) & pawns
                    }
                    _ => Bitboard::EMPTY,
                }
            }
            Role::Pawn => Bitboard::EMPTY,
            _ => attacks::attacks(us, role, to, occ) & self.our(role),
        } & from_mask;
        let mut legal = froms;
        for from in froms {
            if self.is_pinned_away(king, from, to) {
                legal.discard(from);
            }
        }
        Some((legal, capture))
    }

    /// `true` if the piece of the side to move on `from` is pinned to its
    /// `king` and `to` leaves the pin line. Cheap when `from` shares no line
    /// with an enemy slider of the right kind, the common case.
    #[inline]
    fn is_pinned_away(&self, king: Square, from: Square, to: Square) -> bool {
        let line = attacks::line(king, from);
        if line.is_empty() || line.contains(to) {
            return false;
        }
        let straight = from.file() == king.file() || from.rank() == king.rank();
        let kind =
            if straight { self.board.rooks_and_queens() } else { self.board.bishops_and_queens() };
        let snipers = line & kind & self.board.by_color(self.turn.other());
        let occ = self.board.occupied();
        for sniper in snipers {
            let between = attacks::between(king, sniper);
            if between.contains(from) && (between & occ) == Bitboard::from_square(from) {
                return true;
            }
        }
        false
    }

    /// The legal castling move to `side`, if any.
    pub fn castling_move_to(&self, side: CastlingSide) -> Option<Move> {
        if self.is_check() {
            return None;
        }
        let king = self.king_of(self.turn);
        let back = Bitboard::from_rank(self.turn.back_rank());
        (self.castling_rights & back)
            .filter(|&rook| CastlingSide::from_king_and_rook(king, rook) == side)
            .find_map(|rook| self.castling_move(king, rook))
    }

    /// Castling written as a king move (UCI and long algebraic): the king
    /// of the side to move on `king` going two squares along its back rank to
    /// its castling square (`e1g1`), or onto one of its own rooks with
    /// castling rights (`e1h1`, the Chess960 form). `None` if `king` → `to`
    /// is not such a move or castling is not legal.
    pub fn castling_by_king_move(&self, king: Square, to: Square) -> Option<Move> {
        let us = self.turn;
        if king != self.king_of(us) || king.rank() != us.back_rank() || to.rank() != us.back_rank()
        {
            return None;
        }
        let onto_own_rook =
            self.castling_rights.contains(to) && self.board.color_at(to) == Some(us);
        let two_squares = king.file().index().abs_diff(to.file().index()) == 2;
        if !onto_own_rook && !two_squares {
            return None;
        }
        let m = self.castling_move_to(CastlingSide::from_king_and_rook(king, to))?;
        let matches = match m {
            Move::Castle { rook, .. } if onto_own_rook => rook == to,
            _ => m.to() == to,
        };
        matches.then_some(m)
    }

    /// Plays `m` if it is legal.
    ///
    /// # Errors
    /// [`IllegalMoveError`] if `m` is not among the legal moves.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMoveError> {
        if self.is_legal(m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(IllegalMoveError)
        }
    }

    /// Plays `m`, which must be legal in this position (as produced by move
    /// generation, [`Position::moves_to`] or a parser that checked it).
    /// The Zobrist key is updated incrementally.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        let us = self.turn;
        let them = us.other();
        let mut key = self.key.0;
        if let Some(ep) = self.ep_square.take() {
            key ^= zobrist::ep_key(ep.file());
        }
        let old_rights = self.castling_rights;
        self.halfmoves = if m.is_zeroing() { 0 } else { self.halfmoves.saturating_add(1) };
        match m {
            Move::Normal { role, from, capture, to, promotion } => {
                if let Some(captured) = capture {
                    let piece = Piece { color: them, role: captured };
                    self.board.toggle(to, piece);
                    key ^= zobrist::piece_key(piece, to);
                    self.castling_rights.discard(to);
                }
                let piece = Piece { color: us, role };
                self.board.toggle(from, piece);
                key ^= zobrist::piece_key(piece, from);
                let landed = Piece { color: us, role: promotion.unwrap_or(role) };
                self.board.toggle(to, landed);
                key ^= zobrist::piece_key(landed, to);
                if role == Role::King {
                    self.castling_rights &= !Bitboard::from_rank(us.back_rank());
                    *self.kings.get_mut(us) = to;
                } else {
                    self.castling_rights.discard(from);
                }
                if role == Role::Pawn && from.index().abs_diff(to.index()) == 16 {
                    let ep = Square::from_coords(from.file(), us.fold(Rank::Third, Rank::Sixth));
                    if (attacks::pawn_attacks(us, ep)
                        & self.board.by_piece(Piece { color: them, role: Role::Pawn }))
                    .any()
                    {
                        self.ep_square = Some(ep);
                        key ^= zobrist::ep_key(ep.file());
                    }
                }
            }
            Move::EnPassant { from, to } => {
                let captured = Square::from_coords(to.file(), from.rank());
                let their_pawn = Piece { color: them, role: Role::Pawn };
                let our_pawn = Piece { color: us, role: Role::Pawn };
                self.board.toggle(captured, their_pawn);
                self.board.toggle(from, our_pawn);
                self.board.toggle(to, our_pawn);
                key ^= zobrist::piece_key(their_pawn, captured)
                    ^ zobrist::piece_key(our_pawn, from)
                    ^ zobrist::piece_key(our_pawn, to);
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_and_rook(king, rook);
                let our_king = Piece { color: us, role: Role::King };
                let our_rook = Piece { color: us, role: Role::Rook };
                let (king_to, rook_to) = (side.king_to(us), side.rook_to(us));
                self.board.toggle(king, our_king);
                self.board.toggle(rook, our_rook);
                self.board.toggle(king_to, our_king);
                self.board.toggle(rook_to, our_rook);
                key ^= zobrist::piece_key(our_king, king)
                    ^ zobrist::piece_key(our_king, king_to)
                    ^ zobrist::piece_key(our_rook, rook)
                    ^ zobrist::piece_key(our_rook, rook_to);
                self.castling_rights &= !Bitboard::from_rank(us.back_rank());
                *self.kings.get_mut(us) = king_to;
            }
        }
        if old_rights != self.castling_rights {
            // Rights only shrink; the key part is cached so that it need not
            // be recomputed from the board before the move.
            let new_castling_key = zobrist::castling_rights_key(&self.board, self.castling_rights);
            key ^= self.castling_key ^ new_castling_key;
            self.castling_key = new_castling_key;
        }
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = them;
        key ^= zobrist::white_to_move_key();
        self.key = Zobrist(key);
        self.checkers = self.checks_given_by(m);
        debug_assert_eq!(self.checkers, self.attackers_of_king(them));
    }

    /// After `m` was played (the side to move is now the opponent), the
    /// pieces giving check: the moved piece itself, or a slider uncovered
    /// on the line through its origin. The side to move was not in check
    /// before, so no other piece can be checking. En passant and castling,
    /// which move two pieces, are computed in full.
    #[inline]
    fn checks_given_by(&self, m: Move) -> Bitboard {
        let Move::Normal { role, from, to, promotion, .. } = m else {
            return self.attackers_of_king(self.turn);
        };
        let mover = self.turn.other();
        let king = self.king_of(self.turn);
        let occ = self.board.occupied();
        let ours = self.board.by_color(mover);
        let landed = promotion.unwrap_or(role);
        let mut checkers = Bitboard::EMPTY;
        // Direct check: a leaper by table; a slider if it shares a line of
        // its kind with the king and nothing stands between.
        let direct = match landed {
            Role::Pawn => attacks::pawn_attacks(mover, to).contains(king),
            Role::Knight => attacks::knight_attacks(to).contains(king),
            Role::King => false,
            _ => {
                let straight = to.file() == king.file() || to.rank() == king.rank();
                let kind_fits = match landed {
                    Role::Rook => straight,
                    Role::Bishop => !straight && attacks::line(to, king).any(),
                    _ => attacks::line(to, king).any(),
                };
                kind_fits && (attacks::between(to, king) & occ).is_empty()
            }
        };
        if direct {
            checkers.add(to);
        }
        // Discovered check: one of our sliders of the right kind on the line
        // through the vacated square, with nothing left between.
        let line = attacks::line(king, from);
        if line.any() && !line.contains(to) {
            let straight = from.file() == king.file() || from.rank() == king.rank();
            let kind = if straight {
                self.board.rooks_and_queens()
            } else {
                self.board.bishops_and_queens()
            };
            for slider in line & kind & ours {
                if (attacks::between(king, slider) & occ).is_empty() {
                    checkers.add(slider);
                }
            }
        }
        checkers
    }

    /// Passes the move to the other side (a PGN null move `--`): clears the
    /// en-passant square and counts a ply.
    ///
    /// # Errors
    /// [`IllegalMoveError`] when the side to move is in check: passing would
    /// leave the other side able to take the king.
    pub fn play_null(&mut self) -> Result<(), IllegalMoveError> {
        if self.checkers.any() {
            return Err(IllegalMoveError);
        }
        let mut key = self.key.0;
        if let Some(ep) = self.ep_square.take() {
            key ^= zobrist::ep_key(ep.file());
        }
        self.halfmoves = self.halfmoves.saturating_add(1);
        if self.turn == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = self.turn.other();
        key ^= zobrist::white_to_move_key();
        self.key = Zobrist(key);
        self.checkers = self.attackers_of_king(self.turn);
        Ok(())
    }

    /// `true` if the side to move is checkmated.
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_moves()
    }

    /// `true` if the side to move is stalemated.
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_moves()
    }

    /// `true` if neither side has mating material: bare kings, a lone minor
    /// piece, or only bishops all on squares of one colour.
    pub fn is_insufficient_material(&self) -> bool {
        let b = &self.board;
        if (b.by_role(Role::Pawn) | b.rooks_and_queens()).any() {
            return false;
        }
        let knights = b.by_role(Role::Knight);
        let bishops = b.by_role(Role::Bishop);
        let minors = knights | bishops;
        if minors.count() <= 1 {
            return true;
        }
        knights.is_empty()
            && ((bishops & Bitboard::LIGHT).is_empty() || (bishops & Bitboard::DARK).is_empty())
    }

    /// The game's end on the board, if reached.
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.has_legal_moves() {
            return Some(if self.is_check() {
                Outcome::Checkmate { winner: self.turn.other() }
            } else {
                Outcome::Stalemate
            });
        }
        if self.is_insufficient_material() {
            return Some(Outcome::InsufficientMaterial);
        }
        None
    }

    /// `true` if the castling setup is not the standard one (some rook with
    /// rights off the corners, or a king with rights off the e-file).
    pub fn is_chess960_castling(&self) -> bool {
        if (self.castling_rights - Bitboard::CORNERS).any() {
            return true;
        }
        Color::ALL.iter().any(|&c| {
            (self.castling_rights & Bitboard::from_rank(c.back_rank())).any()
                && self.king_of(c) != Square::from_coords(super::types::File::E, c.back_rank())
        })
    }
}

#[inline]
fn push_pawn_move(moves: &mut MoveList, from: Square, to: Square, capture: Option<Role>) {
    for_each_pawn_move(from, to, capture, |m| moves.push(m));
}

/// Calls `f` with the pawn move from `from` to `to`: one move, or one per
/// promotion piece on the last rank.
#[inline]
fn for_each_pawn_move(from: Square, to: Square, capture: Option<Role>, mut f: impl FnMut(Move)) {
    if matches!(to.rank(), Rank::First | Rank::Eighth) {
        for promotion in Role::PROMOTIONS {
            f(Move::Normal { role: Role::Pawn, from, capture, to, promotion: Some(promotion) });
        }
    } else {
        f(Move::Normal { role: Role::Pawn, from, capture, to, promotion: None });
    }
}

/// At most 16 pieces and 8 pawns, and no more promoted pieces (beyond one
/// queen and two of each other piece) than pawns gone.
fn material_is_reachable(board: &Board, color: Color) -> bool {
    let ours = board.by_color(color);
    let count = |role| (board.by_role(role) & ours).count();
    let pawns = count(Role::Pawn);
    let promoted = count(Role::Queen).saturating_sub(1)
        + count(Role::Rook).saturating_sub(2)
        + count(Role::Bishop).saturating_sub(2)
        + count(Role::Knight).saturating_sub(2);
    ours.count() <= 16 && pawns <= 8 && promoted <= 8 - pawns
}

fn validate_castling(board: &Board, rights: Bitboard) -> Result<(), PositionError> {
    if let Some(bad) = (rights - Bitboard::BACKRANKS).first() {
        return Err(PositionError::BadCastlingRights(bad));
    }
    for color in Color::ALL {
        let ours = rights & Bitboard::from_rank(color.back_rank());
        let Some(first) = ours.first() else { continue };
        let rooks = board.by_piece(Piece { color, role: Role::Rook });
        if let Some(bad) = (ours - rooks).first() {
            return Err(PositionError::BadCastlingRights(bad));
        }
        let king = board.king_of(color).filter(|k| k.rank() == color.back_rank());
        let Some(king) = king else { return Err(PositionError::BadCastlingRights(first)) };
        let (mut king_side, mut queen_side) = (0, 0);
        for rook in ours {
            match CastlingSide::from_king_and_rook(king, rook) {
                CastlingSide::KingSide => king_side += 1,
                CastlingSide::QueenSide => queen_side += 1,
            }
        }
        if king_side > 1 || queen_side > 1 {
            return Err(PositionError::BadCastlingRights(first));
        }
    }
    Ok(())
}

/// Checks a written en-passant square and reduces it to Polyglot semantics.
fn validate_ep(board: &Board, turn: Color, ep: Square) -> Result<Option<Square>, PositionError> {
    let bad = PositionError::BadEnPassant(ep);
    if ep.rank() != turn.fold(Rank::Sixth, Rank::Third) {
        return Err(bad);
    }
    let forward = turn.fold(8, -8);
    let (Some(pawn_sq), Some(origin)) = (ep.offset(-forward), ep.offset(forward)) else {
        return Err(bad);
    };
    let their_pawn = Piece { color: turn.other(), role: Role::Pawn };
    if !board.by_piece(their_pawn).contains(pawn_sq)
        || board.occupied().contains(ep)
        || board.occupied().contains(origin)
    {
        return Err(bad);
    }
    let capturers = attacks::pawn_attacks(turn.other(), ep)
        & board.by_piece(Piece { color: turn, role: Role::Pawn });
    Ok(capturers.any().then_some(ep))
}

/// Random legal play for tests: `plies` times, a move chosen among the
/// legal ones by a xorshift generator started from `seed` (from the start
/// position again when a game ends); `visit` sees each position reached.
#[cfg(test)]
pub(crate) fn random_play(mut seed: u64, plies: usize, mut visit: impl FnMut(&Position)) {
    let mut pos = Position::new();
    for _ in 0..plies {
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            pos = Position::new();
            continue;
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        pos.play_unchecked(moves[(seed % moves.len() as u64) as usize]);
        visit(&pos);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_has_twenty_moves() {
        let pos = Position::new();
        assert_eq!(pos.count_legal_moves(), 20);
        assert!(!pos.is_check());
        assert_eq!(pos.outcome(), None);
    }

    #[test]
    fn incremental_key_equals_scratch_over_random_play() {
        random_play(0x1234_5678, 2000, |pos| {
            let scratch = zobrist::hash_from_scratch(
                pos.board(),
                pos.turn(),
                pos.castling_rights(),
                pos.pseudo_ep_square(),
            );
            assert_eq!(pos.zobrist(), scratch);
        });
    }

    #[test]
    fn unique_move_to_finds_the_one_legal_move_of_its_kind() {
        // Against full move generation: for every role, square, origin mask
        // and promotion, a move is found exactly when one legal move fits.
        let mut found = 0;
        random_play(0x0dd_ba11, 600, |pos| {
            let mut legal = MoveList::new();
            pos.legal_moves(&mut legal);
            for role in Role::ALL {
                for to in Square::all() {
                    let masks = [
                        Bitboard::FULL,
                        Bitboard::from_file(to.file()),
                        Bitboard::from_rank(to.rank()),
                    ];
                    for mask in masks {
                        for promotion in [None].into_iter().chain(Role::ALL.map(Some)) {
                            let fitting: Vec<Move> = legal
                                .iter()
                                .copied()
                                .filter(|m| {
                                    !matches!(m, Move::Castle { .. })
                                        && m.role() == role
                                        && m.to() == to
                                        && mask.contains(m.from())
                                        && m.promotion() == promotion
                                })
                                .collect();
                            let expected = (fitting.len() == 1).then(|| fitting[0]);
                            assert_eq!(
                                pos.unique_move_to(role, to, mask, promotion),
                                expected,
                                "{role:?} to {to} from {mask:?}, {promotion:?}"
                            );
                            found += usize::from(expected.is_some());
                        }
                    }
                }
            }
        });
        assert!(found > 10_000, "{found} moves found");
    }

    #[test]
    fn setup_errors() {
        let mut s = Setup::standard();
        s.board.discard_piece_at(Square::E8);
        assert_eq!(Position::from_setup(s).unwrap_err(), PositionError::MissingKing(Color::Black));
        let mut s = Setup::standard();
        s.board.discard_piece_at(Square::H1);
        assert_eq!(
            Position::from_setup(s).unwrap_err(),
            PositionError::BadCastlingRights(Square::H1)
        );
        let mut s = Setup::standard();
        s.ep_square = Some(Square::E3);
        assert_eq!(Position::from_setup(s).unwrap_err(), PositionError::BadEnPassant(Square::E3));
    }

    #[test]
    fn insufficient_material() {
        let mut s = Setup::empty();
        s.board.set_piece_at(Square::E1, Piece { color: Color::White, role: Role::King });
        s.board.set_piece_at(Square::E8, Piece { color: Color::Black, role: Role::King });
        s.board.set_piece_at(Square::C1, Piece { color: Color::White, role: Role::Bishop });
        s.board.set_piece_at(Square::F8, Piece { color: Color::Black, role: Role::Bishop });
        // c1 and f8 are both dark squares.
        assert!(Position::from_setup(s.clone()).unwrap().is_insufficient_material());
        s.board.set_piece_at(Square::C8, Piece { color: Color::Black, role: Role::Bishop });
        assert!(!Position::from_setup(s).unwrap().is_insufficient_material());
    }
}
