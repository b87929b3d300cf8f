//! A game's `ply_data` row: what its mainline says about each move, one
//! JSON text per kind. Built on the worker threads from the replay's notes.
//!
//! Clocks, times spent and evaluations come on most moves of the games
//! that have them: an array indexed by ply (element 0 is ply 1), `null`
//! where a ply has nothing, stopping at the last ply that has something
//! (`->>` past the end reads NULL, as a `null` does).
//! - `clocks`, `emts`: seconds as JSON numbers written minimally (`180`,
//!   `178.6`); or, when every value fits, [packed](PACKED): a letter, then
//!   two or three characters a ply (`a2d2b2Z` is 180, 178, 170 seconds),
//!   less than half the bytes, still read by plain SQL;
//! - `evals`: integer centipawns from White's point of view, or the string
//!   `"#N"` for a mate in N moves (negative when Black mates); or, when
//!   every value fits, packed as the times are (`a`, three characters a
//!   ply: [`EVAL_LETTER`]).
//!
//! The packed forms are stored as BLOBs, the JSON arrays as TEXT: SQL's
//! `substr` reads a BLOB's ply at its offset, a TEXT's by counting its
//! characters from the start.
//!
//! NAGs and comments come on a few moves (a lone `{ None }` on the last
//! move would cost a `null` for every move before it in an array): an
//! object from the ply, as text, to the value.
//! - `nags`: strings such as `"$1 $18"`;
//! - `comments`: the comment text, commands taken out.
//!
//! Engine notes: `depths`, `seldepths` and `nodes` are arrays as the
//! evaluations; principal variations go to the table `ply_pvs`, one row a
//! ply, packed as `games.moves` is ([`crate::db::packed_moves`]). `tails`
//! is an object from the ply to what followed the move as written, where
//! the notes do not give it back (a variation, two comments), ply 0 for
//! what came before the first move; `notes_layout` the order of a keyed
//! comment's items ([`crate::pgn::keyed::Layout`]).

use crate::chess::Color;
use crate::pgn::commands::Eval;
use crate::pgn::movetext::PlyNotes;
use crate::replay::{GameRecord, Notes};
use crate::store::format::explorer::{first_mover, mover_at};

/// The `ply_data` columns of one game; a column is `None` when no ply has
/// a value of its kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlyData {
    /// Clock after each move, seconds.
    pub clocks: Option<String>,
    /// Time spent on each move, seconds.
    pub emts: Option<String>,
    /// Evaluation after each move: centipawns or `"#N"`.
    pub evals: Option<String>,
    /// NAGs of each move, `"$1 $18"`.
    pub nags: Option<String>,
    /// Comment text after each move.
    pub comments: Option<String>,
    /// How the comments wrote evaluations, for a game stored without its
    /// movetext ([`crate::pgn::movetext::NotesForm::code`]).
    pub notes_form: Option<i64>,
    /// Search depth of each move.
    pub depths: Option<String>,
    /// Selective depth of each move.
    pub seldepths: Option<String>,
    /// Nodes searched for each move.
    pub nodes: Option<String>,
    /// The order of a keyed comment's items, for the keyed form.
    pub notes_layout: Option<String>,
    /// What followed a move as written, by ply, where the notes do not
    /// give it back.
    pub tails: Option<String>,
    /// Principal variations by ply, packed (rows of `ply_pvs`).
    pub pvs: Vec<(u32, String)>,
    /// Each side's use of its clock, from `clocks` (`None` when no ply
    /// has a clock).
    pub clock_use: Option<ClockUse>,
}

/// What one side's clock says over a game: the moves whose clock and the
/// mover's clock two plies before are both known (the `plies` view's
/// `clock` and `previous_clock`), and over those moves the sum and the
/// largest of `previous_clock - clock`, in milliseconds. The increment is
/// not in them: a move took its drop plus the increment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SideClock {
    /// Moves with both clocks.
    pub moves: u32,
    /// The sum of their drops (0 without such a move).
    pub drop_ms: i64,
    /// The largest drop (`None` without such a move).
    pub max_drop_ms: Option<i64>,
}

/// Both sides' [`SideClock`]s: what `ply_data`'s `white_clock_*` and
/// `black_clock_*` columns store, so that time spent per game or per
/// player is read without decoding each ply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClockUse {
    /// White's.
    pub white: SideClock,
    /// Black's.
    pub black: SideClock,
}

impl ClockUse {
    /// The use of the clocks `clocks` (milliseconds by ply from 1, in
    /// order) in a game whose first ply `first` plays; `None` without a
    /// clock.
    pub fn new(clocks: &[(u32, u32)], first: Color) -> Option<ClockUse> {
        if clocks.is_empty() {
            return None;
        }
        let mut by_side = ClockUse::default();
        for (i, &(ply, now)) in clocks.iter().enumerate() {
            let before = clocks[i.saturating_sub(2)..i]
                .iter()
                .find(|&&(p, _)| p + 2 == ply)
                .map(|&(_, ms)| ms);
            let Some(before) = before else { continue };
            let side = match mover_at(first, ply - 1) {
                Color::White => &mut by_side.white,
                Color::Black => &mut by_side.black,
            };
            let drop = i64::from(before) - i64::from(now);
            side.moves += 1;
            side.drop_ms += drop;
            side.max_drop_ms = Some(side.max_drop_ms.map_or(drop, |m| m.max(drop)));
        }
        Some(by_side)
    }
}

impl PlyData {
    /// The row of a game replayed with its notes, `None` when it has none.
    pub fn new(record: &GameRecord) -> Option<PlyData> {
        let notes = &record.notes;
        if notes.is_empty() && record.tails.is_empty() {
            return None;
        }
        let uint = |out: &mut Vec<u8>, n: &u32| write_uint(out, u64::from(*n));
        Some(PlyData {
            clocks: times(&notes.clocks),
            emts: times(&notes.emts),
            evals: evals(&notes.evals),
            nags: object(nag_groups(&notes.nags), |out, nags| {
                for (i, &(_, nag)) in nags.iter().enumerate() {
                    out.extend_from_slice(if i == 0 { b"\"$" } else { b" $" });
                    write_uint(out, u64::from(nag));
                }
                out.push(b'"');
            }),
            comments: comments(notes),
            notes_form: None,
            depths: array(&notes.depths, uint),
            seldepths: array(&notes.seldepths, uint),
            nodes: array(&notes.nodes, |out, n| write_uint(out, *n)),
            notes_layout: None,
            tails: object(record.tails.iter().map(|(p, t)| (*p, t.as_str())), write_string),
            pvs: notes.pvs().map(|(ply, pv)| (ply, crate::db::packed_moves::pack(pv))).collect(),
            clock_use: ClockUse::new(&notes.clocks, first_mover(record.start_fen.as_deref())),
        })
    }
}

/// The comments of `record` as `ply_data.comments` stores them: an array
/// by ply, as the clocks, when more than half the plies up to the last
/// comment have one (an engine's comment after every move: the keys of an
/// object would cost some 8 bytes a ply), else an object from the ply.
fn comments(notes: &Notes) -> Option<String> {
    let last = notes.comment_ends.last()?.0;
    // The texts, their quotes and keys: a comment of megabytes is then
    // written without the copies of a growing buffer.
    let capacity = notes.comment_text.len() + 16 * notes.comment_ends.len() + 2;
    if 2 * notes.comment_ends.len() > last as usize {
        let texts: Vec<(u32, &str)> = notes.comments().collect();
        return array_in(Vec::with_capacity(capacity), &texts, |out, text| write_string(out, text));
    }
    object_in(Vec::with_capacity(capacity), notes.comments(), write_string)
}

/// A `ply_data` row read back: each ply's notes, as
/// [`crate::pgn::movetext::write_movetext`] takes them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredNotes {
    clocks: Vec<Option<u32>>,
    emts: Vec<Option<u32>>,
    evals: Vec<Option<Eval>>,
    /// By ply, in ply order.
    nags: Vec<(u32, String)>,
    /// By ply, in ply order.
    comments: Vec<(u32, String)>,
    depths: Vec<Option<u32>>,
    seldepths: Vec<Option<u32>>,
    nodes: Vec<Option<u64>>,
    /// By ply, in ply order.
    tails: Vec<(u32, String)>,
    /// By ply, in ply order, unpacked.
    pvs: Vec<(u32, String)>,
}

impl StoredNotes {
    /// Reads the columns of `row`.
    ///
    /// # Errors
    /// The name of the first column that is not as the import writes it.
    pub fn read(row: &PlyData) -> Result<StoredNotes, &'static str> {
        Ok(StoredNotes {
            clocks: read_times(row.clocks.as_deref()).ok_or("clocks")?,
            emts: read_times(row.emts.as_deref()).ok_or("emts")?,
            evals: read_evals(row.evals.as_deref()).ok_or("evals")?,
            nags: read_object(row.nags.as_deref()).ok_or("nags")?,
            comments: read_texts(row.comments.as_deref()).ok_or("comments")?,
            depths: read_array(row.depths.as_deref(), |t| t.parse().ok()).ok_or("depths")?,
            seldepths: read_array(row.seldepths.as_deref(), |t| t.parse().ok())
                .ok_or("seldepths")?,
            nodes: read_array(row.nodes.as_deref(), |t| t.parse().ok()).ok_or("nodes")?,
            tails: read_object(row.tails.as_deref()).ok_or("tails")?,
            pvs: {
                let mut pvs: Vec<(u32, String)> = row
                    .pvs
                    .iter()
                    .map(|(ply, packed)| (*ply, crate::db::packed_moves::unpack(packed)))
                    .collect();
                pvs.sort_unstable_by_key(|p| p.0);
                pvs
            },
        })
    }

    /// The notes of ply `ply` (1 for the first move).
    pub fn ply(&self, ply: u32) -> PlyNotes<'_> {
        let at = |i: u32| usize::try_from(i).ok().and_then(|i| i.checked_sub(1));
        let of = |notes: &[Option<u32>]| at(ply).and_then(|i| notes.get(i).copied().flatten());
        fn text(notes: &[(u32, String)], ply: u32) -> &str {
            notes.binary_search_by_key(&ply, |n| n.0).map_or("", |i| notes[i].1.as_str())
        }
        PlyNotes {
            clock: of(&self.clocks),
            emt: of(&self.emts),
            eval: at(ply).and_then(|i| self.evals.get(i).copied().flatten()),
            depth: of(&self.depths),
            seldepth: of(&self.seldepths),
            nodes: at(ply).and_then(|i| self.nodes.get(i).copied().flatten()),
            pv: text(&self.pvs, ply),
            nags: text(&self.nags, ply),
            text: text(&self.comments, ply),
            tail: text(&self.tails, ply),
        }
    }
}

/// The packed forms of clocks and times: `(letter, characters a ply,
/// milliseconds a unit)`. A ply's value in units is a base-64 number, most
/// significant digit first, digits `0` to `o` (ASCII 48 + digit); `~` in
/// every character: no value. A game's times take the first form that
/// holds all of them (whole seconds below 4,096; tenths below 262,144;
/// whole seconds below 262,144), else the JSON array. Migration 0013
/// packs stored arrays the same way, and its `plies` view decodes them.
const PACKED: [(u8, usize, u32); 3] = [(b'a', 2, 1000), (b'b', 3, 100), (b'c', 3, 1000)];

/// Clocks or times spent (milliseconds by ply from 1, in order, one per
/// ply) as `ply_data` stores them: packed when a form of [`PACKED`] holds
/// them all, else a JSON array of seconds; `None` when there are none.
fn times(notes: &[(u32, u32)]) -> Option<String> {
    let last = usize::try_from(notes.last()?.0).ok()?;
    let fits = |&&(_, width, unit): &&(u8, usize, u32)| {
        notes.iter().all(|&(_, ms)| ms % unit == 0 && ms / unit < 1 << (6 * width))
    };
    let Some(&(letter, width, unit)) = PACKED.iter().find(fits) else {
        return array(notes, |out, &ms| write_seconds(out, ms));
    };
    let mut out = vec![b'~'; 1 + width * last];
    out[0] = letter;
    for &(ply, ms) in notes {
        let at = 1 + width * (ply as usize - 1);
        let mut value = ms / unit;
        for digit in out[at..at + width].iter_mut().rev() {
            *digit = b'0' + (value % 64) as u8;
            value /= 64;
        }
    }
    // ASCII.
    String::from_utf8(out).ok()
}

/// The packed form of evaluations: after the letter `a`, three base-64
/// digits a ply as [`PACKED`]'s, `~~~` for none. Centipawns `cp` in
/// [`CENTIPAWNS`] are `cp + 100000`; a mate in `n` moves in [`MATES`] is
/// `n + 231072`. Evaluations outside are a JSON array.
const EVAL_LETTER: u8 = b'a';
/// Centipawns the packed form holds.
const CENTIPAWNS: std::ops::RangeInclusive<i32> = -100_000..=100_000;
/// Mates the packed form holds.
const MATES: std::ops::RangeInclusive<i32> = -31_071..=31_070;
/// The digit value of a packed mate in 0 moves.
const MATE_ZERO: i32 = 231_072;

/// Evaluations (by ply from 1, in order, one per ply) as `ply_data` stores
/// them: packed when every one fits, else a JSON array; `None` when there
/// are none.
fn evals(notes: &[(u32, Eval)]) -> Option<String> {
    let last = usize::try_from(notes.last()?.0).ok()?;
    let value = |eval: Eval| match eval {
        Eval::Centipawns(cp) => CENTIPAWNS.contains(&cp).then(|| cp + 100_000),
        Eval::Mate(n) => MATES.contains(&n).then(|| n + MATE_ZERO),
    };
    if notes.iter().any(|&(_, eval)| value(eval).is_none()) {
        return array(notes, |out, eval| match *eval {
            Eval::Centipawns(cp) => write_int(out, cp),
            Eval::Mate(moves) => {
                out.extend_from_slice(b"\"#");
                write_int(out, moves);
                out.push(b'"');
            }
        });
    }
    let mut out = vec![b'~'; 1 + 3 * last];
    out[0] = EVAL_LETTER;
    for &(ply, eval) in notes {
        let at = 1 + 3 * (ply as usize - 1);
        let mut v = value(eval).unwrap_or_default() as u32;
        for digit in out[at..at + 3].iter_mut().rev() {
            *digit = b'0' + (v % 64) as u8;
            v /= 64;
        }
    }
    // ASCII.
    String::from_utf8(out).ok()
}

/// Evaluations as [`evals`] writes them, by ply (index 0 for ply 1);
/// empty for NULL.
fn read_evals(text: Option<&str>) -> Option<Vec<Option<Eval>>> {
    let Some(packed) = text.and_then(|t| t.as_bytes().strip_prefix(&[EVAL_LETTER])) else {
        return read_array(text, read_eval);
    };
    if packed.is_empty() || packed.len() % 3 != 0 {
        return None;
    }
    packed
        .chunks(3)
        .map(|ply| {
            if ply == b"~~~" {
                return Some(None);
            }
            let v = ply.iter().try_fold(0i32, |v, &b| {
                (b'0'..=b'o').contains(&b).then(|| v * 64 + i32::from(b - b'0'))
            })?;
            Some(Some(match v {
                0..=200_000 => Eval::Centipawns(v - 100_000),
                _ if MATES.contains(&(v - MATE_ZERO)) => Eval::Mate(v - MATE_ZERO),
                _ => return None,
            }))
        })
        .collect()
}

/// Clocks or times as [`times`] writes them → milliseconds by ply (index
/// 0 for ply 1); empty for NULL.
fn read_times(text: Option<&str>) -> Option<Vec<Option<u32>>> {
    let Some(text) = text else { return Some(Vec::new()) };
    let Some(&(_, width, unit)) = PACKED.iter().find(|f| text.as_bytes().first() == Some(&f.0))
    else {
        return read_array(Some(text), read_millis);
    };
    let digits = &text.as_bytes()[1..];
    if digits.is_empty() || digits.len() % width != 0 {
        return None;
    }
    digits
        .chunks(width)
        .map(|ply| {
            if ply.iter().all(|&b| b == b'~') {
                return Some(None);
            }
            let value = ply.iter().try_fold(0u32, |value, &b| {
                (b'0'..=b'o').contains(&b).then(|| value * 64 + u32::from(b - b'0'))
            })?;
            Some(Some(value * unit))
        })
        .collect()
}

/// A JSON array as [`array`] writes it, `null` as `None`; empty for NULL.
fn read_array<T>(text: Option<&str>, value: impl Fn(&str) -> Option<T>) -> Option<Vec<Option<T>>> {
    let Some(text) = text else { return Some(Vec::new()) };
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    if inner.is_empty() {
        return Some(Vec::new());
    }
    inner
        .split(',')
        .map(|v| match v.trim() {
            "null" => Some(None),
            v => value(v).map(Some),
        })
        .collect()
}

/// Seconds as [`write_seconds`] writes them → milliseconds.
fn read_millis(text: &str) -> Option<u32> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || (!fraction.is_empty() && !digits(fraction)) || fraction.len() > 3 {
        return None;
    }
    let millis =
        fraction.bytes().zip([100, 10, 1]).map(|(d, unit)| u32::from(d - b'0') * unit).sum();
    whole.parse::<u32>().ok()?.checked_mul(1000)?.checked_add(millis)
}

/// Centipawns, or `"#N"`.
fn read_eval(text: &str) -> Option<Eval> {
    match text.strip_prefix("\"#") {
        Some(mate) => mate.strip_suffix('"')?.parse().ok().map(Eval::Mate),
        None => text.parse().ok().map(Eval::Centipawns),
    }
}

/// Texts by ply as [`comments`] writes them, an array or an object, in ply
/// order; empty for NULL.
fn read_texts(text: Option<&str>) -> Option<Vec<(u32, String)>> {
    match text {
        Some(array) if array.starts_with('[') => {
            let texts: Vec<Option<String>> = serde_json::from_str(array).ok()?;
            Some((1u32..).zip(texts).filter_map(|(ply, text)| Some((ply, text?))).collect())
        }
        _ => read_object(text),
    }
}

/// A JSON object from plies to strings, in ply order; empty for NULL.
fn read_object(text: Option<&str>) -> Option<Vec<(u32, String)>> {
    let Some(text) = text else { return Some(Vec::new()) };
    let object: std::collections::HashMap<String, String> = serde_json::from_str(text).ok()?;
    let mut notes: Vec<(u32, String)> =
        object.into_iter().map(|(ply, v)| Some((ply.parse().ok()?, v))).collect::<Option<_>>()?;
    notes.sort_unstable_by_key(|n| n.0);
    Some(notes)
}

/// The NAGs of each ply: its ply and its run of `(ply, nag)`.
fn nag_groups(nags: &[(u32, u8)]) -> impl Iterator<Item = (u32, &[(u32, u8)])> {
    nags.chunk_by(|a, b| a.0 == b.0).map(|run| (run[0].0, run))
}

/// The JSON array of `notes` (by ply from 1, in order, one per ply), `null`
/// for the plies in between; `None` when there are none.
fn array<T>(notes: &[(u32, T)], write: impl FnMut(&mut Vec<u8>, &T)) -> Option<String> {
    array_in(Vec::with_capacity(8 * notes.len() + 2), notes, write)
}

/// [`array`], written into `out` (empty, with the capacity it needs).
fn array_in<T>(
    mut out: Vec<u8>,
    notes: &[(u32, T)],
    mut write: impl FnMut(&mut Vec<u8>, &T),
) -> Option<String> {
    let last = notes.last()?.0;
    out.push(b'[');
    let mut next = 1;
    for (ply, value) in notes {
        while next < *ply {
            out.extend_from_slice(b"null,");
            next += 1;
        }
        write(&mut out, value);
        if *ply < last {
            out.push(b',');
        }
        next += 1;
    }
    out.push(b']');
    // ASCII punctuation, numbers and serde_json's strings: UTF-8.
    String::from_utf8(out).ok()
}

/// The JSON object of `notes` (by ply, in order, one per ply), keyed by
/// the ply as text; `None` when there are none.
fn object<T>(
    notes: impl Iterator<Item = (u32, T)>,
    write: impl FnMut(&mut Vec<u8>, T),
) -> Option<String> {
    object_in(Vec::new(), notes, write)
}

/// [`object`], written into `out` (empty, with the capacity it needs).
fn object_in<T>(
    mut out: Vec<u8>,
    notes: impl Iterator<Item = (u32, T)>,
    mut write: impl FnMut(&mut Vec<u8>, T),
) -> Option<String> {
    for (ply, value) in notes {
        out.extend_from_slice(if out.is_empty() { b"{\"" } else { b",\"" });
        write_uint(&mut out, u64::from(ply));
        out.extend_from_slice(b"\":");
        write(&mut out, value);
    }
    if out.is_empty() {
        return None;
    }
    out.push(b'}');
    // As for the arrays: UTF-8.
    String::from_utf8(out).ok()
}

/// `n` in decimal. (The arrays are built for every game with notes: the
/// formatting machinery costs several times more.)
fn write_uint(out: &mut Vec<u8>, mut n: u64) {
    let start = out.len();
    loop {
        out.push(b'0' + (n % 10) as u8);
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out[start..].reverse();
}

fn write_int(out: &mut Vec<u8>, n: i32) {
    if n < 0 {
        out.push(b'-');
    }
    write_uint(out, u64::from(n.unsigned_abs()));
}

/// Milliseconds as seconds, no trailing zeros (`180`, `178.6`, `0.05`).
fn write_seconds(out: &mut Vec<u8>, ms: u32) {
    write_uint(out, u64::from(ms / 1000));
    let mut fraction = ms % 1000;
    if fraction != 0 {
        out.push(b'.');
        let mut unit = 100;
        while fraction != 0 {
            out.push(b'0' + (fraction / unit) as u8);
            fraction %= unit;
            unit /= 10;
        }
    }
}

/// A JSON string: as it is when nothing needs escaping, else by
/// serde_json (quotes, backslashes and control characters escaped, the
/// rest of the UTF-8 kept; writing into a Vec cannot fail).
fn write_string(out: &mut Vec<u8>, text: &str) {
    // Every byte checked without a branch each (the compiler makes it a
    // vector loop; `all` stops at each byte to ask).
    if text.bytes().fold(true, |ok, b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\')) {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        let _ = serde_json::to_writer(out, text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::Reader;
    use crate::replay::{ReplayOptions, Replayer};

    fn data(text: &str) -> Option<PlyData> {
        let mut reader = Reader::new(text.as_bytes());
        let options = ReplayOptions { commands: true, ..ReplayOptions::default() };
        let mut replayer = Replayer::new(options);
        PlyData::new(&reader.read_game(&mut replayer).unwrap())
    }

    #[test]
    fn arrays_and_objects_by_ply() {
        let d = data(
            "1. e4 {[%clk 0:03:00] [%eval 0.17]} e5 {[%clk 0:02:58.6] [%emt 0:00:01.05]} \
             2. Nf3 $1 $18 {[%eval #-3] \"quoted\" \\ \u{1}é} Nc6 3. Bb5 {[%clk 0:02:50]} *",
        )
        .unwrap();
        // Tenths: 1800, 1786, none, none, 1700 in three base-64 digits.
        assert_eq!(d.clocks.as_deref(), Some("b0L80Kj~~~~~~0JT"));
        // Hundredths: no packed form.
        assert_eq!(d.emts.as_deref(), Some("[null,1.05]"));
        // 17 + 100000 and -3 + 231072 in three base-64 digits.
        assert_eq!(d.evals.as_deref(), Some("aHJa~~~hJM"));
        let read = read_evals(d.evals.as_deref()).unwrap();
        assert_eq!(read, [Some(Eval::Centipawns(17)), None, Some(Eval::Mate(-3))]);
        // A value the packed form cannot hold: the JSON array.
        let far = evals(&[(1, Eval::Centipawns(100_001)), (2, Eval::Mate(-31_072))]);
        assert_eq!(far.as_deref(), Some("[100001,\"#-31072\"]"));
        let edges = [(1, Eval::Centipawns(-100_000)), (3, Eval::Mate(31_070)), (4, Eval::Mate(0))];
        let packed = evals(&edges).unwrap();
        assert!(packed.starts_with('a'), "{packed}");
        let read = read_evals(Some(&packed)).unwrap();
        assert_eq!(read, [Some(edges[0].1), None, Some(edges[1].1), Some(edges[2].1)]);
        assert_eq!(d.nags.as_deref(), Some("{\"3\":\"$1 $18\"}"));
        assert_eq!(d.comments.as_deref(), Some("{\"3\":\"\\\"quoted\\\" \\\\ \\u0001é\"}"));
        let parsed: serde_json::Value =
            serde_json::from_str(d.comments.as_deref().unwrap()).unwrap();
        assert_eq!(parsed["3"], "\"quoted\" \\ \u{1}é");
    }

    #[test]
    fn numbers() {
        let text = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut out = Vec::new();
            f(&mut out);
            String::from_utf8(out).unwrap()
        };
        for (ms, seconds) in [
            (0, "0"),
            (5, "0.005"),
            (50, "0.05"),
            (1_200, "1.2"),
            (178_600, "178.6"),
            (180_000, "180"),
            (u32::MAX, "4294967.295"),
        ] {
            assert_eq!(text(&|out| write_seconds(out, ms)), seconds);
        }
        for n in [0, 7, -7, 100, -1234, i32::MIN, i32::MAX] {
            assert_eq!(text(&|out| write_int(out, n)), n.to_string());
        }
    }

    #[test]
    fn stored_notes_read_back_what_was_written() {
        let d = data(
            "1. e4 {[%clk 0:03:00] [%eval 0.17]} e5 {[%clk 0:02:58.6] [%emt 0:00:01.05]} \
             2. Nf3 $1 $18 {[%eval #-3] \"quoted\" é} Nc6 3. Bb5 {[%clk 0:02:50]} *",
        )
        .unwrap();
        let notes = StoredNotes::read(&d).unwrap();
        let ply = |p| notes.ply(p);
        assert_eq!(ply(1).clock, Some(180_000));
        assert_eq!(ply(1).eval, Some(Eval::Centipawns(17)));
        assert_eq!((ply(2).clock, ply(2).emt), (Some(178_600), Some(1_050)));
        assert_eq!(ply(3).eval, Some(Eval::Mate(-3)));
        assert_eq!((ply(3).nags, ply(3).text), ("$1 $18", "\"quoted\" é"));
        assert_eq!(ply(4), PlyNotes::default());
        assert_eq!(ply(5).clock, Some(170_000));
        assert_eq!(ply(0), PlyNotes::default());
        assert_eq!(ply(99), PlyNotes::default());
        for clocks in ["[1,x]", "a", "a1", "b123~", "a1p", "a~1"] {
            let bad = PlyData { clocks: Some(clocks.into()), ..PlyData::default() };
            assert_eq!(StoredNotes::read(&bad), Err("clocks"), "{clocks}");
        }
        let bad = PlyData { comments: Some("{\"a\":\"b\"}".into()), ..PlyData::default() };
        assert_eq!(StoredNotes::read(&bad), Err("comments"));
    }

    #[test]
    fn movetexts_written_back_read_as_the_originals() {
        use crate::pgn::movetext::{write_movetext, FirstMove, NotesForm};
        let options =
            ReplayOptions { commands: true, rebuild: true, san: true, ..Default::default() };
        let read = |text: &str| {
            let mut reader = Reader::new(text.as_bytes());
            reader.read_game(&mut Replayer::new(options)).unwrap()
        };
        for text in [
            "1. e4 {[%clk 0:03:00]} 1... e5 {  [%clk\n0:02:58.6] } 2. Nf3! $18 {good  \"move\"} Nc6?! 1-0",
            "1. e4 { [%eval 0.17] [%clk 0:00:30] } e5 { [%eval #-4] [%clk 0:00:29] } 0-1",
            "1. e4 {[%eval -1.0] [%clk 1:59:59] [%emt 0:00:01.05] fine} e5 $2 $4 1/2-1/2",
            "1. e4 { 0.33 } e5 { -0.2 } 2. Nf3 {0.0} Nc6 { None } 1/2-1/2",
            "[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 7\"]\n\n7... Kd7 { 0.5 } 8. Kd2 {-0.4} Ke6 *",
            "1. d4 d5 *",
        ] {
            let original = read(text);
            let form = original.rebuild.expect(text);
            let row = PlyData::new(&original).map(|d| PlyData { notes_form: form.code(), ..d });
            let row = row.unwrap_or_default();
            let notes = StoredNotes::read(&row).unwrap();
            let first = original.start_fen.as_deref().map_or(FirstMove::STANDARD, FirstMove::of_fen);
            let result = original.outcome.unwrap().as_str();
            let form = NotesForm::from_code(row.notes_form, row.notes_layout.as_deref()).unwrap();
            let mut movetext = String::new();
            let plies = |p| notes.ply(p);
            write_movetext(&mut movetext, 80, &original.san, first, result, form, plies);
            let fen = original.start_fen.as_ref().map(|f| format!("[FEN \"{f}\"]\n\n"));
            let again = read(&format!("{}{movetext}", fen.unwrap_or_default()));
            assert_eq!(again.san, original.san, "{movetext}");
            assert_eq!(again.notes.clocks, original.notes.clocks, "{movetext}");
            assert_eq!(again.notes.emts, original.notes.emts, "{movetext}");
            assert_eq!(again.notes.evals, original.notes.evals, "{movetext}");
            assert_eq!(again.notes.nags, original.notes.nags, "{movetext}");
            // Comments equal but for white space.
            let words = |g: &GameRecord| -> Vec<(u32, String)> {
                let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
                g.notes.comments().map(|(ply, text)| (ply, words(text))).collect()
            };
            assert_eq!(words(&again), words(&original), "{movetext}");
            assert_eq!(again.outcome, original.outcome);
            assert_eq!(again.rebuild, Some(form), "{movetext}");
        }
    }

    #[test]
    fn games_without_notes_have_no_row() {
        assert_eq!(data("1. e4 e5 *"), None);
        assert_eq!(data("{before} 1. e4 {[%clk]} e5 *"), None);
        assert_eq!(
            data("1. e4 {[%clk 0:00:00.5]} *"),
            Some(PlyData {
                clocks: Some("b005".into()),
                clock_use: Some(ClockUse::default()),
                ..PlyData::default()
            })
        );
    }

    #[test]
    fn each_side_sums_the_drops_of_its_moves_with_both_clocks() {
        let side = |moves, drop_ms, max_drop_ms| SideClock { moves, drop_ms, max_drop_ms };
        // Plies 1-6; no clock at ply 4, so ply 6 has no previous clock;
        // ply 5 gains time (an increment).
        let clocks = [(1, 60_000), (2, 60_000), (3, 55_500), (5, 57_000), (6, 41_000)];
        assert_eq!(
            ClockUse::new(&clocks, Color::White),
            Some(ClockUse { white: side(2, 3_000, Some(4_500)), black: side(0, 0, None) })
        );
        // Black moves first: the odd plies are Black's.
        assert_eq!(
            ClockUse::new(&clocks, Color::Black),
            Some(ClockUse { white: side(0, 0, None), black: side(2, 3_000, Some(4_500)) })
        );
        assert_eq!(ClockUse::new(&[], Color::White), None);
        let row = data(
            "[FEN \"8/8/8/4k3/8/8/8/4K2R b K - 0 1\"]\n\n1... Kd5 {[%clk 0:01:00]} 2. Kf1 \
            {[%clk 0:01:00]} Kc4 {[%clk 0:00:51.5]} 3. Kg1 {[%clk 0:00:58]} *",
        )
        .unwrap();
        assert_eq!(
            row.clock_use,
            Some(ClockUse {
                white: side(1, 2_000, Some(2_000)),
                black: side(1, 8_500, Some(8_500))
            })
        );
    }

    #[test]
    fn times_take_the_smallest_form_that_holds_them() {
        let cases: [(&[(u32, u32)], &str); 8] = [
            (&[(1, 180_000), (2, 178_000), (3, 170_000)], "a2d2b2Z"),
            (&[(2, 0), (3, 4_095_000)], "a~~00oo"),
            (&[(1, 4_096_000)], "b:00"),
            (&[(1, 178_600), (3, 26_214_300)], "b0Kj~~~ooo"),
            (&[(1, 26_215_000)], "c6IW"),
            (&[(1, 262_143_000)], "cooo"),
            (&[(1, 262_144_000)], "[262144]"),
            (&[(1, 50), (2, 1_000)], "[0.05,1]"),
        ];
        for (notes, text) in cases {
            assert_eq!(times(notes).as_deref(), Some(text), "{notes:?}");
            let back = read_times(Some(text)).unwrap();
            let mut expected = vec![None; notes.last().unwrap().0 as usize];
            for &(ply, ms) in notes {
                expected[ply as usize - 1] = Some(ms);
            }
            assert_eq!(back, expected, "{text}");
        }
        assert_eq!(times(&[]), None);
        assert_eq!(read_times(None), Some(Vec::new()));
    }

    #[test]
    fn the_plies_view_reads_every_form() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        conn.execute(
            "INSERT INTO games (id, ply_count, moves, dedupe_key) VALUES (1, 4, 'e4 e5 Nf3 Nc6', 0)",
            [],
        )
        .unwrap();
        let view = |clocks: &str| -> Vec<Option<f64>> {
            conn.execute(
                "INSERT OR REPLACE INTO ply_data (game_id, clocks, emts) VALUES (1, ?1, ?1)",
                [clocks],
            )
            .unwrap();
            let mut st = conn
                .prepare("SELECT clock, emt FROM plies WHERE game_id = 1 ORDER BY ply")
                .unwrap();
            let rows = st
                .query_map([], |r| Ok((r.get::<_, Option<f64>>(0)?, r.get::<_, Option<f64>>(1)?)));
            rows.unwrap()
                .map(|r| {
                    let (c, e) = r.unwrap();
                    assert_eq!(c, e);
                    c
                })
                .collect()
        };
        let notes: &[(u32, u32)] = &[(1, 180_000), (2, 178_600), (4, 26_214_300)];
        let expected = vec![Some(180.0), Some(178.6), None, Some(26_214.3)];
        for text in
            [times(notes).unwrap(), array(notes, |out, &ms| write_seconds(out, ms)).unwrap()]
        {
            assert_eq!(view(&text), expected, "{text}");
        }
        let seconds: &[(u32, u32)] = &[(1, 0), (3, 4_095_000)];
        assert_eq!(view(&times(seconds).unwrap()), [Some(0.0), None, Some(4095.0), None]);
        let long: &[(u32, u32)] = &[(2, 262_143_000)];
        assert_eq!(view(&times(long).unwrap()), [None, Some(262_143.0), None, None]);
    }

    #[test]
    fn the_upgrade_packs_stored_times_as_the_import_does() {
        let cases: [&[(u32, u32)]; 9] = [
            &[(1, 180_000), (2, 178_000), (4, 170_000)],
            &[(2, 0), (3, 4_095_000)],
            &[(1, 4_096_000)],
            &[(1, 178_600), (3, 26_214_300)],
            &[(1, 26_215_000)],
            &[(1, 262_143_000)],
            &[(1, 262_144_000)],
            &[(1, 50), (2, 1_000)],
            &[(1, 1_200), (2, 26_214_400)],
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v12.db");
        let conn = rusqlite::Connection::open(&path).unwrap();
        // Rows without games: only the notes are looked at.
        conn.pragma_update(None, "foreign_keys", false).unwrap();
        for (i, sql) in crate::db::MIGRATIONS[..12].iter().enumerate() {
            conn.execute_batch(sql).unwrap();
            conn.pragma_update(None, "user_version", i as i64 + 1).unwrap();
        }
        for (id, notes) in cases.iter().enumerate() {
            let json = array(notes, |out, &ms| write_seconds(out, ms)).unwrap();
            conn.execute(
                "INSERT INTO ply_data (game_id, clocks, emts) VALUES (?1, ?2, ?2)",
                rusqlite::params![id, json],
            )
            .unwrap();
        }
        drop(conn);
        let conn = crate::db::open_for_write(&path).unwrap();
        for (id, notes) in cases.iter().enumerate() {
            let (clocks, emts): (String, String) = conn
                .query_row(
                    "SELECT CAST(clocks AS TEXT), CAST(emts AS TEXT) FROM ply_data WHERE game_id = ?1",
                    [id],
                    |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .unwrap();
            assert_eq!(Some(&clocks), times(notes).as_ref(), "{notes:?}");
            assert_eq!(clocks, emts);
        }
    }
}
