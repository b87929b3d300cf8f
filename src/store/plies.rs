//! A game's `ply_data` row: what its mainline says about each move, one
//! JSON text per kind. Built on the worker threads from the replay's notes.
//!
//! Clocks, times spent and evaluations come on most moves of the games
//! that have them: an array indexed by ply (element 0 is ply 1), `null`
//! where a ply has nothing, stopping at the last ply that has something
//! (`->>` past the end reads NULL, as a `null` does).
//! - `clocks`, `emts`: seconds as JSON numbers written minimally (`180`,
//!   `178.6`);
//! - `evals`: integer centipawns from White's point of view, or the string
//!   `"#N"` for a mate in N moves (negative when Black mates).
//!
//! NAGs and comments come on a few moves (a lone `{ None }` on the last
//! move would cost a `null` for every move before it in an array): an
//! object from the ply, as text, to the value.
//! - `nags`: strings such as `"$1 $18"`;
//! - `comments`: the comment text, commands taken out.

use crate::pgn::commands::Eval;
use crate::replay::GameRecord;

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
}

impl PlyData {
    /// The row of a game replayed with its notes, `None` when it has none.
    pub fn new(record: &GameRecord) -> Option<PlyData> {
        if record.clocks.is_empty()
            && record.emts.is_empty()
            && record.evals.is_empty()
            && record.nags.is_empty()
            && record.comment_ends.is_empty()
        {
            return None;
        }
        Some(PlyData {
            clocks: array(&record.clocks, |out, &ms| write_seconds(out, ms)),
            emts: array(&record.emts, |out, &ms| write_seconds(out, ms)),
            evals: array(&record.evals, |out, eval| match *eval {
                Eval::Centipawns(cp) => write_int(out, cp),
                Eval::Mate(moves) => {
                    out.extend_from_slice(b"\"#");
                    write_int(out, moves);
                    out.push(b'"');
                }
            }),
            nags: object(nag_groups(&record.nags), |out, nags| {
                for (i, &(_, nag)) in nags.iter().enumerate() {
                    out.extend_from_slice(if i == 0 { b"\"$" } else { b" $" });
                    write_uint(out, u64::from(nag));
                }
                out.push(b'"');
            }),
            comments: object(record.comments(), write_string),
        })
    }
}

/// The NAGs of each ply: its ply and its run of `(ply, nag)`.
fn nag_groups(nags: &[(u32, u8)]) -> impl Iterator<Item = (u32, &[(u32, u8)])> {
    nags.chunk_by(|a, b| a.0 == b.0).map(|run| (run[0].0, run))
}

/// The JSON array of `notes` (by ply from 1, in order, one per ply), `null`
/// for the plies in between; `None` when there are none.
fn array<T>(notes: &[(u32, T)], mut write: impl FnMut(&mut Vec<u8>, &T)) -> Option<String> {
    let last = notes.last()?.0;
    let mut out = Vec::with_capacity(8 * notes.len() + 2);
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
    mut write: impl FnMut(&mut Vec<u8>, T),
) -> Option<String> {
    let mut out = Vec::new();
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
    if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
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
        assert_eq!(d.clocks.as_deref(), Some("[180,178.6,null,null,170]"));
        assert_eq!(d.emts.as_deref(), Some("[null,1.05]"));
        assert_eq!(d.evals.as_deref(), Some("[17,null,\"#-3\"]"));
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
    fn games_without_notes_have_no_row() {
        assert_eq!(data("1. e4 e5 *"), None);
        assert_eq!(data("{before} 1. e4 {[%clk]} e5 *"), None);
        assert_eq!(
            data("1. e4 {[%clk 0:00:00.5]} *"),
            Some(PlyData { clocks: Some("[0.5]".into()), ..PlyData::default() })
        );
    }
}
