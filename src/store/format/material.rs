//! The material index: a game's mainline as its material stretches, in
//! the compact form `game_material.stretches` holds (docs/schema.md).
//!
//! Material changes only at captures and promotions, so the stored form
//! is a list of those events, one byte each in the common case: the high
//! five bits say what changed, the low three bits the plies since the
//! event before (0 to 6; 7: a varint follows with the rest). Codes:
//! - `0..=9`: a piece of one colour captured: `colour * 5 + role` (White
//!   0, Black 1; pawn 0, knight 1, bishop 2, rook 3, queen 4);
//! - `10..=17`: a pawn of one colour promoted: `10 + colour * 4 + role - 1`
//!   (knight to queen); a capturing promotion is the capture, then the
//!   promotion 0 plies later;
//! - `30`, first and only then: the start's material follows, ten bytes
//!   in [`Material`]'s order (a game from a FEN whose material is not the
//!   standard start's);
//! - `31`, last: the end of the game, its plies after the last event.

use crate::chess::material::COUNTED;
use crate::chess::{Color, Material, Move, Role};

const START: u8 = 30;
const END: u8 = 31;
const PROMOTION: u8 = 10;

/// Positions of a mainline in a row with the same material.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stretch {
    /// The material.
    pub material: Material,
    /// The ply of its first position (0: the start).
    pub first_ply: u32,
    /// The number of its positions (at least 1).
    pub plies: u32,
}

/// A stored list of stretches that is not as [`encode`] writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a material index entry that cannot be read (byte {0})")]
pub struct DecodeError(pub usize);

fn colour_index(color: Color) -> u8 {
    color.fold(0, 1)
}

fn code_color(code: u8) -> Color {
    if code == 0 {
        Color::White
    } else {
        Color::Black
    }
}

/// One event: a capture or a promotion.
#[derive(Debug, Clone, Copy)]
enum Event {
    Capture(Color, Role),
    Promotion(Color, Role),
}

impl Event {
    fn code(self) -> u8 {
        match self {
            Event::Capture(c, r) => colour_index(c) * 5 + r as u8,
            Event::Promotion(c, r) => PROMOTION + colour_index(c) * 4 + r as u8 - 1,
        }
    }

    fn from_code(code: u8) -> Option<Event> {
        match code {
            0..=9 => Some(Event::Capture(code_color(code / 5), COUNTED[usize::from(code % 5)])),
            10..=17 => {
                let c = code - PROMOTION;
                Some(Event::Promotion(code_color(c / 4), COUNTED[usize::from(c % 4 + 1)]))
            }
            _ => None,
        }
    }

    /// Plays the event on `m`; `false` if `m` has no such piece.
    fn apply(self, m: &mut Material) -> bool {
        match self {
            Event::Capture(c, r) => take(m, c, r),
            Event::Promotion(c, r) => {
                m.0[Material::index(c, r)] = m.0[Material::index(c, r)].saturating_add(1);
                take(m, c, Role::Pawn)
            }
        }
    }
}

fn take(m: &mut Material, c: Color, r: Role) -> bool {
    let slot = Material::index(c, r);
    match m.0[slot].checked_sub(1) {
        Some(n) => {
            m.0[slot] = n;
            true
        }
        None => false,
    }
}

fn push_event(out: &mut Vec<u8>, code: u8, gap: u32) {
    if gap < 7 {
        out.push(code << 3 | gap as u8);
        return;
    }
    out.push(code << 3 | 7);
    let mut rest = gap - 7;
    while rest >= 0x80 {
        out.push(rest as u8 | 0x80);
        rest >>= 7;
    }
    out.push(rest as u8);
}

/// The stored form of a mainline: its moves (`None`: a null move) played
/// from a start whose side to move makes `final_turn` the side to move
/// after them, ending with `final_material`.
pub fn encode(moves: &[Option<Move>], final_material: Material, final_turn: Color) -> Vec<u8> {
    let mut turn = if moves.len().is_multiple_of(2) { final_turn } else { final_turn.other() };
    // The events written as they come, the start's material (if not the
    // standard one) put in front at the end: the final material with
    // every event taken back, counted as it goes.
    let mut out = Vec::with_capacity(24);
    // What the events took from each count (a promotion adds to one).
    let mut taken = [0i32; 10];
    let mut last = 0;
    let mut push = |out: &mut Vec<u8>, ply: u32, e: Event| {
        match e {
            Event::Capture(c, r) => taken[Material::index(c, r)] += 1,
            Event::Promotion(c, r) => {
                taken[Material::index(c, r)] -= 1;
                taken[Material::index(c, Role::Pawn)] += 1;
            }
        }
        push_event(out, e.code(), ply - last);
        last = ply;
    };
    for (i, m) in moves.iter().enumerate() {
        let ply = i as u32 + 1;
        match *m {
            Some(Move::Normal { capture, promotion, .. }) => {
                if let Some(r) = capture {
                    push(&mut out, ply, Event::Capture(turn.other(), r));
                }
                if let Some(r) = promotion {
                    push(&mut out, ply, Event::Promotion(turn, r));
                }
            }
            Some(Move::EnPassant { .. }) => {
                push(&mut out, ply, Event::Capture(turn.other(), Role::Pawn));
            }
            _ => {}
        }
        turn = turn.other();
    }
    push_event(&mut out, END, moves.len() as u32 - last);
    let mut start = final_material;
    for (count, taken) in start.0.iter_mut().zip(taken) {
        *count = (i32::from(*count) + taken).clamp(0, 255) as u8;
    }
    if start != Material::STANDARD {
        let mut header = Vec::with_capacity(11 + out.len());
        header.push(START << 3);
        header.extend_from_slice(&start.0);
        header.extend_from_slice(&out);
        return header;
    }
    out
}

/// The stretches of a stored form, in ply order, into `out` (cleared
/// first).
///
/// # Errors
/// [`DecodeError`] at the first byte that is not as [`encode`] writes.
pub fn decode(blob: &[u8], out: &mut Vec<Stretch>) -> Result<(), DecodeError> {
    out.clear();
    let mut m = Material::STANDARD;
    let mut i = 0;
    if blob.first().is_some_and(|b| b >> 3 == START) {
        let counts = blob.get(1..11).ok_or(DecodeError(1))?;
        m.0.copy_from_slice(counts);
        i = 11;
    }
    let (mut ply, mut first) = (0u32, 0u32);
    loop {
        let at = i;
        let &b = blob.get(i).ok_or(DecodeError(at))?;
        i += 1;
        let mut gap = u32::from(b & 7);
        if gap == 7 {
            let mut shift = 0;
            let mut rest = 0u32;
            loop {
                let &v = blob.get(i).ok_or(DecodeError(i))?;
                i += 1;
                rest |= u32::from(v & 0x7f).checked_shl(shift).ok_or(DecodeError(i - 1))?;
                shift += 7;
                if v < 0x80 {
                    break;
                }
            }
            gap = gap.checked_add(rest).ok_or(DecodeError(at))?;
        }
        ply = ply.checked_add(gap).ok_or(DecodeError(at))?;
        let code = b >> 3;
        if code == END {
            out.push(Stretch { material: m, first_ply: first, plies: ply - first + 1 });
            return if i == blob.len() { Ok(()) } else { Err(DecodeError(i)) };
        }
        let event = Event::from_code(code).ok_or(DecodeError(at))?;
        if ply > first {
            out.push(Stretch { material: m, first_ply: first, plies: ply - first });
            first = ply;
        }
        if !event.apply(&mut m) {
            return Err(DecodeError(at));
        }
    }
}

/// Builds stretches position by position (for games replayed rather than
/// read from the index).
#[derive(Debug, Clone, Default)]
pub struct StretchBuilder {
    /// The stretches so far.
    pub stretches: Vec<Stretch>,
}

impl StretchBuilder {
    /// Adds the next position's material.
    pub fn push(&mut self, material: Material) {
        match self.stretches.last_mut() {
            Some(s) if s.material == material => s.plies += 1,
            last => {
                let first_ply = last.map_or(0, |s| s.first_ply + s.plies);
                self.stretches.push(Stretch { material, first_ply, plies: 1 });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;
    use crate::notation::fen;
    use crate::notation::san::San;

    /// The stretches of a game in SAN, both ways: by the stored form and
    /// position by position.
    fn both(start: Option<&str>, sans: &str) -> (Vec<Stretch>, Vec<Stretch>, usize) {
        let mut pos = match start {
            Some(f) => fen::parse_position(f).unwrap(),
            None => Position::new(),
        };
        let mut built = StretchBuilder::default();
        built.push(Material::of(pos.board()));
        let mut moves = Vec::new();
        for san in sans.split_whitespace() {
            match San::from_ascii(san.as_bytes()).unwrap() {
                San::Null => {
                    pos.play_null().unwrap();
                    moves.push(None);
                }
                s => {
                    let m = s.to_move(&pos).unwrap();
                    pos.play_unchecked(m);
                    moves.push(Some(m));
                }
            }
            built.push(Material::of(pos.board()));
        }
        let blob = encode(&moves, Material::of(pos.board()), pos.turn());
        let mut decoded = Vec::new();
        decode(&blob, &mut decoded).unwrap();
        (decoded, built.stretches, blob.len())
    }

    #[test]
    fn stored_stretches_equal_the_replayed_ones() {
        for (start, moves, len) in [
            (None, "", 1),
            (None, "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 c6 Nf3 Nf6 Bc4 Bf5 Bd2 e6 Nd5 Qd8 Nxf6+ gxf6", 6),
            // En passant, a long quiet stretch, a capturing promotion.
            (None, "e4 Nf6 e5 d5 exd6 Nc6 dxc7 Nb4 cxd8=Q+ Kxd8", 6),
            (Some("4k3/P7/8/8/8/8/8/4K3 w - - 0 1"), "a8=N Kd7 Nb6+ Ke6 Kd2 -- Kc3 Kd6", 14),
            (Some("8/8/8/8/8/k7/p7/1R2K3 b - - 0 1"), "axb1=Q+ Ke2", 14),
            // A promoted piece captured later.
            (Some("8/P1k5/8/8/8/8/8/4K3 w - - 0 1"), "a8=N+ Kb7 Ke2 Kxa8", 14),
        ] {
            let (decoded, built, bytes) = both(start, moves);
            assert_eq!(decoded, built, "{moves}");
            assert_eq!(bytes, len, "{moves}");
        }
        let long = "Nf3 Nf6 Ng1 Ng8 ".repeat(40) + "e4 d5 exd5";
        let (decoded, built, _) = both(None, &long);
        assert_eq!(decoded, built);
        assert_eq!(decoded[1], Stretch { material: decoded[1].material, first_ply: 163, plies: 1 });
    }

    #[test]
    fn damaged_entries_are_errors() {
        let mut out = Vec::new();
        for blob in
            [&[][..], &[0x00], &[0xff], &[START << 3, 1], &[(END << 3), 0], &[25 << 3, 0xf8]]
        {
            assert!(decode(blob, &mut out).is_err(), "{blob:?}");
        }
        // A capture of a piece the side no longer has.
        let blob = [0x21, 0x21, 0x21, END << 3];
        assert!(decode(&blob, &mut out).is_err());
    }
}
