//! The movetext pgnindex writes from a game's parts: its mainline in SAN,
//! what each move's comment and NAGs say ([`PlyNotes`]), and its result.
//! The import stores no movetext for a game whose comments this writer
//! gives back (white space aside), and the queries rebuild it here: the
//! one writer decides both.
//!
//! Written forms:
//! - moves numbered `1. e4 e5`, Black's move after a comment numbered
//!   again (`1. e4 { … } 1... e5`), a game from a position with Black to
//!   move starting `N...`;
//! - NAGs as `$N` after their move (`!` is written `$1`, `?!` `$6`);
//! - a comment as `{ … }` after the move and its NAGs, its parts joined
//!   by one space: in the [`NotesForm::Commands`] form (lichess, chess.com)
//!   `[%eval E] [%clk C] [%emt T] text`; in the [`NotesForm::Score`] form
//!   (engine-match files) the evaluation as a score alone from the mover's
//!   point of view (`0.33`) in place of `[%eval]`;
//! - clocks and times as `H:MM:SS`, a fraction of a second with as few
//!   digits as it needs (`0:02:58.6`); evaluations in pawns with as few
//!   decimals as they need but at least one (`0.17`, `-1.2`, `1.0`), mates
//!   as `#N` (`#-4`: Black mates);
//! - the result token last.

use super::commands::Eval;

/// How a game's comments write an evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotesForm {
    /// `[%eval 0.17]`: a command, from White's point of view.
    Commands,
    /// `0.33`: the score alone, from the mover's point of view (mates as
    /// `[%eval #N]`).
    Score,
}

impl NotesForm {
    /// The form's code in `ply_data.notes_form`: NULL for
    /// [`NotesForm::Commands`], 1 for [`NotesForm::Score`].
    pub fn code(self) -> Option<i64> {
        match self {
            NotesForm::Commands => None,
            NotesForm::Score => Some(1),
        }
    }

    /// The form of a `ply_data.notes_form` code; `None` for a code this
    /// version does not know.
    pub fn from_code(code: Option<i64>) -> Option<NotesForm> {
        match code {
            None => Some(NotesForm::Commands),
            Some(1) => Some(NotesForm::Score),
            Some(_) => None,
        }
    }
}

/// What the mainline says about one move.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlyNotes<'a> {
    /// The mover's clock after the move, milliseconds.
    pub clock: Option<u32>,
    /// Time spent on the move, milliseconds.
    pub emt: Option<u32>,
    /// The evaluation after the move, from White's point of view.
    pub eval: Option<Eval>,
    /// The NAGs as written after the move (`$1 $18`), or empty.
    pub nags: &'a str,
    /// The comment text, commands taken out, or empty.
    pub text: &'a str,
}

/// Appends the body of the comment that `notes` make (without braces;
/// nothing when they hold none of a comment's parts). `white_moved`: the
/// move was White's (a score alone is the mover's).
pub fn write_comment(out: &mut String, form: NotesForm, white_moved: bool, notes: &PlyNotes<'_>) {
    let start = out.len();
    let part = |out: &mut String| {
        if out.len() > start {
            out.push(' ');
        }
    };
    if let Some(eval) = notes.eval {
        part(out);
        match (form, eval) {
            (NotesForm::Score, Eval::Centipawns(cp)) => {
                write_pawns(out, if white_moved { cp } else { -cp })
            }
            _ => {
                out.push_str("[%eval ");
                write_eval(out, eval);
                out.push(']');
            }
        }
    }
    for (name, value) in [("[%clk ", notes.clock), ("[%emt ", notes.emt)] {
        if let Some(ms) = value {
            part(out);
            out.push_str(name);
            write_clock(out, ms);
            out.push(']');
        }
    }
    if !notes.text.is_empty() {
        part(out);
        out.push_str(notes.text);
    }
}

/// Appends milliseconds as `H:MM:SS`, with the fraction of a second it
/// has and no trailing zero (`0:02:58.6`, `12:00:00`).
pub fn write_clock(out: &mut String, ms: u32) {
    let seconds = ms / 1000;
    push_uint(out, seconds / 3600);
    for unit in [(seconds / 60) % 60, seconds % 60] {
        out.push(':');
        out.push(char::from(b'0' + (unit / 10) as u8));
        out.push(char::from(b'0' + (unit % 10) as u8));
    }
    let mut fraction = ms % 1000;
    if fraction != 0 {
        out.push('.');
        let mut unit = 100;
        while fraction != 0 {
            out.push(char::from(b'0' + (fraction / unit) as u8));
            fraction %= unit;
            unit /= 10;
        }
    }
}

/// Appends centipawns as pawns with one decimal, or two when the second
/// is not 0 (`0.17`, `-1.2`, `1.0`, `-0.05`).
pub fn write_pawns(out: &mut String, cp: i32) {
    if cp < 0 {
        out.push('-');
    }
    let cp = cp.unsigned_abs();
    push_uint(out, cp / 100);
    out.push('.');
    let fraction = cp % 100;
    out.push(char::from(b'0' + (fraction / 10) as u8));
    if !fraction.is_multiple_of(10) {
        out.push(char::from(b'0' + (fraction % 10) as u8));
    }
}

/// Appends an evaluation as `%eval` writes it: pawns ([`write_pawns`]) or
/// `#N` (`#-4`: Black mates).
pub fn write_eval(out: &mut String, eval: Eval) {
    match eval {
        Eval::Centipawns(cp) => write_pawns(out, cp),
        Eval::Mate(moves) => {
            out.push('#');
            if moves < 0 {
                out.push('-');
            }
            push_uint(out, moves.unsigned_abs());
        }
    }
}

fn push_uint(out: &mut String, n: u32) {
    if n >= 10 {
        push_uint(out, n / 10);
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// `true` when `a` and `b` are the same text once trimmed and with each
/// inner run of white space read as one space.
pub fn same_normalised(a: &[u8], b: &[u8]) -> bool {
    a == b || normalised(a).eq(normalised(b))
}

fn normalised(text: &[u8]) -> impl Iterator<Item = u8> + '_ {
    text.split(u8::is_ascii_whitespace)
        .filter(|word| !word.is_empty())
        .enumerate()
        .flat_map(|(i, word)| (i > 0).then_some(b' ').into_iter().chain(word.iter().copied()))
}

/// Where a game's numbering starts: the move number of its first move,
/// and whether White plays it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstMove {
    /// The move number of the first move.
    pub number: u32,
    /// White plays the first move.
    pub white: bool,
}

impl FirstMove {
    /// The standard start: move 1, White.
    pub const STANDARD: FirstMove = FirstMove { number: 1, white: true };

    /// The first move of a game from the position `fen` (its side to move
    /// and move number; move 1 and White where the FEN lacks them).
    pub fn of_fen(fen: &str) -> FirstMove {
        let mut fields = fen.split_ascii_whitespace();
        let white = fields.nth(1) != Some("b");
        let number = fields.nth(3).and_then(|n| n.parse().ok()).filter(|&n| n > 0).unwrap_or(1);
        FirstMove { number, white }
    }
}

/// Appends the movetext of a game: `moves` (SAN, space separated) from
/// `first`, each followed by what `notes` says about its ply (1 for the
/// first move) written in `form`, then `result`.
pub fn write_movetext<'n>(
    out: &mut String,
    moves: &str,
    first: FirstMove,
    result: &str,
    form: NotesForm,
    mut notes: impl FnMut(u32) -> PlyNotes<'n>,
) {
    let (mut number, mut white) = (first.number, first.white);
    let mut numbered = false;
    for (i, san) in moves.split(' ').filter(|m| !m.is_empty()).enumerate() {
        if !out.is_empty() {
            out.push(' ');
        }
        if white || !numbered {
            push_uint(out, number);
            out.push_str(if white { ". " } else { "... " });
        }
        out.push_str(san);
        let n = notes(u32::try_from(i + 1).unwrap_or(u32::MAX));
        if !n.nags.is_empty() {
            out.push(' ');
            out.push_str(n.nags);
        }
        out.push_str(" { ");
        let body = out.len();
        write_comment(out, form, white, &n);
        if out.len() == body {
            out.truncate(body - 3);
            numbered = true;
        } else {
            out.push_str(" }");
            numbered = false;
        }
        if !white {
            number += 1;
        }
        white = !white;
    }
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(result);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: impl FnOnce(&mut String)) -> String {
        let mut out = String::new();
        f(&mut out);
        out
    }

    #[test]
    fn numbers_as_the_files_write_them() {
        for (ms, clock) in [
            (0, "0:00:00"),
            (178_600, "0:02:58.6"),
            (180_000, "0:03:00"),
            (50, "0:00:00.05"),
            (259_199_000, "71:59:59"),
        ] {
            assert_eq!(text(|o| write_clock(o, ms)), clock);
        }
        for (cp, pawns) in
            [(17, "0.17"), (-120, "-1.2"), (100, "1.0"), (0, "0.0"), (-5, "-0.05"), (1234, "12.34")]
        {
            assert_eq!(text(|o| write_pawns(o, cp)), pawns);
        }
        assert_eq!(text(|o| write_eval(o, Eval::Mate(-4))), "#-4");
        assert_eq!(text(|o| write_eval(o, Eval::Mate(3))), "#3");
    }

    #[test]
    fn comments_in_both_forms() {
        let notes = PlyNotes {
            clock: Some(30_000),
            eval: Some(Eval::Centipawns(-33)),
            text: "good",
            ..PlyNotes::default()
        };
        let comment = |form, white| text(|o| write_comment(o, form, white, &notes));
        assert_eq!(comment(NotesForm::Commands, false), "[%eval -0.33] [%clk 0:00:30] good");
        assert_eq!(comment(NotesForm::Score, true), "-0.33 [%clk 0:00:30] good");
        assert_eq!(comment(NotesForm::Score, false), "0.33 [%clk 0:00:30] good");
        let mate = PlyNotes { eval: Some(Eval::Mate(2)), ..PlyNotes::default() };
        assert_eq!(text(|o| write_comment(o, NotesForm::Score, false, &mate)), "[%eval #2]");
        assert_eq!(text(|o| write_comment(o, NotesForm::Score, true, &PlyNotes::default())), "");
    }

    #[test]
    fn movetext_numbering_nags_and_result() {
        let notes = |ply| match ply {
            1 => PlyNotes { clock: Some(180_000), ..PlyNotes::default() },
            3 => PlyNotes { nags: "$1 $18", ..PlyNotes::default() },
            _ => PlyNotes::default(),
        };
        let out = text(|o| {
            write_movetext(
                o,
                "e4 e5 Nf3 Nc6",
                FirstMove::STANDARD,
                "1-0",
                NotesForm::Commands,
                notes,
            )
        });
        assert_eq!(out, "1. e4 { [%clk 0:03:00] } 1... e5 2. Nf3 $1 $18 Nc6 1-0");
        let first = FirstMove::of_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 12");
        assert_eq!(first, FirstMove { number: 12, white: false });
        let out = text(|o| {
            write_movetext(o, "Kd7 Kd2", first, "*", NotesForm::Commands, |_| PlyNotes::default())
        });
        assert_eq!(out, "12... Kd7 13. Kd2 *");
        let out = text(|o| write_movetext(o, "", first, "*", NotesForm::Score, |_| notes(1)));
        assert_eq!(out, "*");
    }

    #[test]
    fn white_space_normalised() {
        assert!(same_normalised(b" [%clk  0:02:58.6]\n", b"[%clk 0:02:58.6]"));
        assert!(same_normalised(b"a\n\tb", b"a b"));
        assert!(!same_normalised(b"ab", b"a b"));
        assert!(!same_normalised(b"[%eval 0.10]", b"[%eval 0.1]"));
        assert!(same_normalised(b"", b"  "));
    }
}
