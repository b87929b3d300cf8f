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
//! - a comment as `{ … }` after the move and its NAGs, in the game's
//!   [`NotesForm`]: commands (lichess, chess.com) `[%eval E] [%clk C]
//!   [%emt T] text`, its parts joined by one space; a score alone from the
//!   mover's point of view (`0.33`) in place of `[%eval]`; cutechess's
//!   `+0.35/20 1.2s`; Arena's `0.18/23 239 (Ne5)`; TCEC's `key=value`
//!   items ([`keyed`]);
//! - what followed a move as written, where its notes do not give it back
//!   (a variation, two comments), in place of its NAGs and comment, and
//!   what came before the first move, before it ([`Lines::raw`]);
//! - clocks and times as `H:MM:SS`, a fraction of a second with as few
//!   digits as it needs (`0:02:58.6`); evaluations in pawns with as few
//!   decimals as they need but at least one (`0.17`, `-1.2`, `1.0`), mates
//!   as `#N` (`#-4`: Black mates);
//! - the result token last;
//! - lines filled up to a width by [`Lines`], as `pgnindex export` writes
//!   them: words one space apart, a comment as `{ text }` (`{ [%clk
//!   0:03:00] }`, as lichess and python-chess write it) kept on one line
//!   when it fits in one, a word longer than a line on a line of its own,
//!   no line starting with `%`.

use super::commands::Eval;
use super::keyed::{self, Layout};

/// The longest line of movetext written: the PGN export format's 80
/// columns.
pub const LINE_WIDTH: usize = 80;

/// How a game's comments write its notes.
// The layout is inline (240 bytes) so that the form stays `Copy`: one is
// made per game, and a box would cost an allocation for each TCEC game.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotesForm {
    /// `[%eval 0.17] [%clk 0:03:00] text`: commands, the evaluation from
    /// White's point of view (`[%eval 0.17,23]` with a depth).
    Commands,
    /// `0.33`: the score alone, from the mover's point of view (mates as
    /// `[%eval #N]`).
    Score,
    /// cutechess: `+0.35/20 1.2s`, the mover's score (`+` when positive,
    /// mates as `+M3`, plies from before the move), the depth, the time in
    /// seconds, then `, text`.
    Cutechess,
    /// Arena and older TCEC files: `0.18/23 239 (Ne5)`, the mover's score
    /// (mates as `#43`, moves), the depth, whole seconds, then the text.
    Arena,
    /// TCEC's `key=value` items in this order ([`Layout`]).
    Keyed(Layout),
}

impl NotesForm {
    /// The form's code in `ply_data.notes_form`: NULL for
    /// [`NotesForm::Commands`], 1 for [`NotesForm::Score`], 2
    /// [`NotesForm::Cutechess`], 3 [`NotesForm::Arena`], 4
    /// [`NotesForm::Keyed`] (its layout in `notes_layout`).
    pub fn code(self) -> Option<i64> {
        match self {
            NotesForm::Commands => None,
            NotesForm::Score => Some(1),
            NotesForm::Cutechess => Some(2),
            NotesForm::Arena => Some(3),
            NotesForm::Keyed(_) => Some(4),
        }
    }

    /// The form of a `ply_data.notes_form` code and `notes_layout`;
    /// `None` for a code this version does not know, or code 4 without a
    /// layout.
    pub fn from_code(code: Option<i64>, layout: Option<&str>) -> Option<NotesForm> {
        match code {
            None => Some(NotesForm::Commands),
            Some(1) => Some(NotesForm::Score),
            Some(2) => Some(NotesForm::Cutechess),
            Some(3) => Some(NotesForm::Arena),
            Some(4) => Layout::from_text(layout?).map(NotesForm::Keyed),
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
    /// The engine's search depth.
    pub depth: Option<u32>,
    /// The engine's selective depth.
    pub seldepth: Option<u32>,
    /// Nodes the engine searched.
    pub nodes: Option<u64>,
    /// The engine's principal variation, SAN as written, or empty.
    pub pv: &'a str,
    /// The NAGs as written after the move (`$1 $18`), or empty.
    pub nags: &'a str,
    /// The comment text, commands taken out, or empty.
    pub text: &'a str,
    /// What followed the move as written, in place of its NAGs and
    /// comment (a variation, two comments, a comment written otherwise),
    /// or empty.
    pub tail: &'a str,
}

impl PlyNotes<'_> {
    /// `true` when a keyed layout writes these notes: an engine's depth,
    /// score or line. Without them, the notes are written as commands.
    pub fn written_keyed(&self) -> bool {
        self.depth.is_some() || self.eval.is_some() || !self.pv.is_empty()
    }

    /// `true` when an engine wrote any of the notes the score forms carry.
    fn engine(&self) -> bool {
        self.eval.is_some() || self.depth.is_some()
    }
}

/// Appends the body of the comment that `notes` make (without braces;
/// nothing when they hold none of a comment's parts). `white_moved`: the
/// move was White's (a score is the mover's).
pub fn write_comment(out: &mut String, form: &NotesForm, white_moved: bool, notes: &PlyNotes<'_>) {
    let mover = |eval: Eval| if white_moved { eval } else { -eval };
    match form {
        NotesForm::Keyed(layout) if notes.written_keyed() => {
            keyed::write(out, layout, notes);
            return;
        }
        NotesForm::Cutechess | NotesForm::Arena if notes.engine() => {
            let arena = matches!(form, NotesForm::Arena);
            match notes.eval.map(mover) {
                Some(Eval::Centipawns(cp)) => {
                    if cp > 0 && !arena {
                        out.push('+');
                    }
                    write_cents(out, i64::from(cp));
                }
                Some(Eval::Mate(moves)) if arena => {
                    if moves < 0 {
                        out.push('-');
                    }
                    out.push('#');
                    push_uint(out, u64::from(moves.unsigned_abs()));
                }
                Some(Eval::Mate(moves)) => {
                    // Plies from the position before the move.
                    let plies = if moves > 0 {
                        2 * moves.unsigned_abs() + 1
                    } else {
                        2 * moves.unsigned_abs()
                    };
                    out.push_str(if moves > 0 { "+M" } else { "-M" });
                    push_uint(out, u64::from(plies));
                }
                None => out.push_str("+M1"),
            }
            out.push('/');
            push_uint(out, u64::from(notes.depth.unwrap_or(0)));
            if let Some(ms) = notes.emt {
                out.push(' ');
                write_seconds(out, ms);
                if !arena {
                    out.push('s');
                }
            }
            if !notes.text.is_empty() {
                out.push_str(if arena { " " } else { ", " });
                out.push_str(notes.text);
            }
            return;
        }
        _ => {}
    }
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
                // As the mover sees it; `i32::MIN` has no negation in `i32`.
                write_pawns(out, if white_moved { i64::from(cp) } else { -i64::from(cp) })
            }
            _ => {
                out.push_str("[%eval ");
                write_eval(out, eval);
                if let Some(depth) = notes.depth {
                    out.push(',');
                    push_uint(out, u64::from(depth));
                }
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

/// Appends milliseconds as seconds with the fraction they have (`239`,
/// `1.2`, `0.003`).
fn write_seconds(out: &mut String, ms: u32) {
    push_uint(out, u64::from(ms / 1000));
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

/// Appends centipawns as pawns with two decimals (`0.35`, `-1.20`).
fn write_cents(out: &mut String, cp: i64) {
    if cp < 0 {
        out.push('-');
    }
    let cp = cp.unsigned_abs();
    push_uint(out, cp / 100);
    out.push('.');
    out.push(char::from(b'0' + (cp % 100 / 10) as u8));
    out.push(char::from(b'0' + (cp % 10) as u8));
}

/// Appends milliseconds as `H:MM:SS`, with the fraction of a second it
/// has and no trailing zero (`0:02:58.6`, `12:00:00`).
pub fn write_clock(out: &mut String, ms: u32) {
    let (bytes, len) = clock_ascii(ms);
    out.extend(bytes[..len].iter().map(|&b| char::from(b)));
}

/// The text [`write_clock`] writes, as ASCII bytes and their length (at
/// most 14: `1193:02:47.295`).
pub fn clock_ascii(ms: u32) -> ([u8; 16], usize) {
    let mut out = [0u8; 16];
    let mut len = 0;
    let mut push = |b: u8| {
        out[len] = b;
        len += 1;
    };
    let seconds = ms / 1000;
    for &digit in itoa::Buffer::new().format(seconds / 3600).as_bytes() {
        push(digit);
    }
    for unit in [(seconds / 60) % 60, seconds % 60] {
        push(b':');
        push(b'0' + (unit / 10) as u8);
        push(b'0' + (unit % 10) as u8);
    }
    let mut fraction = ms % 1000;
    if fraction != 0 {
        push(b'.');
        let mut unit = 100;
        while fraction != 0 {
            push(b'0' + (fraction / unit) as u8);
            fraction %= unit;
            unit /= 10;
        }
    }
    (out, len)
}

/// Appends centipawns as pawns with one decimal, or two when the second
/// is not 0 (`0.17`, `-1.2`, `1.0`, `-0.05`).
pub fn write_pawns(out: &mut String, cp: i64) {
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
        Eval::Centipawns(cp) => write_pawns(out, i64::from(cp)),
        Eval::Mate(moves) => {
            out.push('#');
            if moves < 0 {
                out.push('-');
            }
            push_uint(out, u64::from(moves.unsigned_abs()));
        }
    }
}

fn push_uint(out: &mut String, n: u64) {
    if n >= 10 {
        push_uint(out, n / 10);
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// The comment an export puts before the move where a stored game's
/// replay stopped, followed by the error.
pub const STOP_MARK: &str = "pgnindex: replay stopped here: ";

/// Whether the comment `raw` is an export's [`STOP_MARK`]: a note on the
/// game, not a comment of it (the import finds the error again).
pub fn is_stop_mark(raw: &[u8]) -> bool {
    raw.trim_ascii_start().starts_with(STOP_MARK.trim_end().as_bytes())
}

/// `true` when `a` and `b` are the same text once trimmed and with each
/// inner run of white space read as one space.
pub fn same_normalised(a: &[u8], b: &[u8]) -> bool {
    let (a, b) = (a.trim_ascii(), b.trim_ascii());
    // Most comments differ from their rewriting by the spaces at their ends
    // alone: a plain comparison settles them.
    if equal(a, b) {
        return true;
    }
    // Else one pass over both, a run of white space against a run (long
    // engine comments come wrapped over lines).
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.get(i), b.get(j)) {
            (None, None) => return true,
            (Some(x), Some(y)) if x.is_ascii_whitespace() && y.is_ascii_whitespace() => {
                while a.get(i).is_some_and(u8::is_ascii_whitespace) {
                    i += 1;
                }
                while b.get(j).is_some_and(u8::is_ascii_whitespace) {
                    j += 1;
                }
            }
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            _ => return false,
        }
    }
}

/// `a == b` without a call for the short texts of engine games (a score,
/// `0.55`, or a score, depth and time): the call to `memcmp` that `==`
/// makes for slices was a fifth of the cost of checking such a comment.
#[inline]
fn equal(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0..8 => a.iter().zip(b).all(|(x, y)| x == y),
        8..=16 => {
            let word = |s: &[u8], at: usize| {
                u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or_default())
            };
            word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8)
        }
        _ => a == b,
    }
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

/// Appends the movetext of a game to `out` (empty or ending a line):
/// `moves` (SAN, space separated) from `first`, each followed by what
/// `notes` says about its ply (1 for the first move) written in `form`,
/// then `result`; in lines of at most `width` characters (`usize::MAX`:
/// one line).
pub fn write_movetext<'n>(
    out: &mut String,
    width: usize,
    moves: &str,
    first: FirstMove,
    result: &str,
    form: NotesForm,
    mut notes: impl FnMut(u32) -> PlyNotes<'n>,
) {
    let mut lines = Lines::new(out, width);
    // What came before the first move, as written.
    lines.raw(notes(0).tail);
    // Counted wider than a FEN's move number, which may be `u32::MAX`.
    let (mut number, mut white) = (u64::from(first.number), first.white);
    let mut numbered = false;
    let mut word = String::new();
    let mut comment = String::new();
    for (i, san) in moves.split(' ').filter(|m| !m.is_empty()).enumerate() {
        if white || !numbered {
            word.clear();
            push_uint(&mut word, number);
            word.push_str(if white { "." } else { "..." });
            lines.word(&word);
        }
        lines.word(san);
        let n = notes(u32::try_from(i + 1).unwrap_or(u32::MAX));
        if !n.tail.is_empty() {
            lines.raw(n.tail);
            numbered = false;
            if !white {
                number += 1;
            }
            white = !white;
            continue;
        }
        for nag in n.nags.split_whitespace() {
            lines.word(nag);
        }
        comment.clear();
        write_comment(&mut comment, &form, white, &n);
        numbered = comment.is_empty();
        if !numbered {
            lines.comment(&comment, true);
        }
        if !white {
            number += 1;
        }
        white = !white;
    }
    lines.word(result);
}

/// Movetext written in lines of at most `width` characters, the rule of
/// every movetext pgnindex writes: tokens one space apart, a line broken
/// before a token that would pass the width. A `{ … }` comment is a group
/// broken only when it is wider than a line, and then only at its spaces
/// (`{` stays with the first word, `}` with the last). A token or word
/// wider than a line gets a line of its own, except that one starting with
/// `%` never starts a line (that would make it an escape line): it goes
/// past the width instead.
pub struct Lines<'o> {
    out: &'o mut String,
    width: usize,
    /// Characters on the current line.
    line: usize,
}

impl<'o> Lines<'o> {
    /// Lines appended to `out`, which is empty or ends a line.
    pub fn new(out: &'o mut String, width: usize) -> Lines<'o> {
        Lines { out, width, line: 0 }
    }

    /// Appends a token (a move, a move number, a NAG, a parenthesis, the
    /// result).
    pub fn word(&mut self, word: &str) {
        let width = text_width(word);
        if self.line == 0 {
            self.line = width;
        } else if self.line.saturating_add(1 + width) <= self.width || word.starts_with('%') {
            self.out.push(' ');
            self.line += 1 + width;
        } else {
            self.out.push('\n');
            self.line = width;
        }
        self.out.push_str(word);
    }

    /// Appends a brace comment holding `text` (without its braces), its
    /// words one space apart: `{ text }`, `{}` when it has none, and
    /// without its `}` unless `closed` (a comment the input never closed).
    pub fn comment(&mut self, text: &str, closed: bool) {
        let (words, inner) = text
            .split_whitespace()
            .fold((0usize, 0usize), |(n, width), word| (n + 1, width + 1 + text_width(word)));
        let close = match (closed, words) {
            (false, _) => "",
            (true, 0) => "}",
            (true, _) => " }",
        };
        let group = 1 + inner + close.len();
        if group <= self.width {
            if self.line.saturating_add(1 + group) <= self.width {
                if self.line > 0 {
                    self.out.push(' ');
                    self.line += 1;
                }
            } else if self.line > 0 {
                self.out.push('\n');
                self.line = 0;
            }
            self.out.push('{');
            for word in text.split_whitespace() {
                self.out.push(' ');
                self.out.push_str(word);
            }
            self.out.push_str(close);
            self.line += group;
            return;
        }
        // Wider than a line: its words fill lines, `{` with the first and
        // `}` with the last.
        let mut words = text.split_whitespace();
        let mut unit = String::from("{");
        if let Some(first) = words.next() {
            unit.push(' ');
            unit.push_str(first);
        }
        for word in words {
            self.word(&unit);
            unit.clear();
            unit.push_str(word);
        }
        unit.push_str(close);
        self.word(&unit);
    }

    /// Appends movetext kept as written (NAGs, brace comments, variations;
    /// no `;` comment or escape line): its tokens and comments, white space
    /// between them and inside comments as [`Lines::word`] and
    /// [`Lines::comment`] write it.
    pub fn raw(&mut self, text: &str) {
        let mut rest = text.trim_start();
        while !rest.is_empty() {
            if let Some(body) = rest.strip_prefix('{') {
                match body.find('}') {
                    Some(end) => {
                        self.comment(&body[..end], true);
                        rest = &body[end + 1..];
                    }
                    None => {
                        self.comment(body, false);
                        rest = "";
                    }
                }
            } else {
                let end =
                    rest.find(|c: char| c.is_ascii_whitespace() || c == '{').unwrap_or(rest.len());
                self.word(&rest[..end]);
                rest = &rest[end..];
            }
            rest = rest.trim_start();
        }
    }

    /// Appends a `;` comment (`text` from its `;`), which ends its line.
    pub fn line_comment(&mut self, text: &str) {
        if self.line > 0 {
            self.out.push(' ');
        }
        self.out.push_str(text);
        self.out.push('\n');
        self.line = 0;
    }
}

/// The width of `text` in characters.
fn text_width(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
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
            (36_000_000, "10:00:00"),
            (u32::MAX, "1193:02:47.295"),
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
        let comment = |form, white| text(|o| write_comment(o, &form, white, &notes));
        assert_eq!(comment(NotesForm::Commands, false), "[%eval -0.33] [%clk 0:00:30] good");
        assert_eq!(comment(NotesForm::Score, true), "-0.33 [%clk 0:00:30] good");
        assert_eq!(comment(NotesForm::Score, false), "0.33 [%clk 0:00:30] good");
        let mate = PlyNotes { eval: Some(Eval::Mate(2)), ..PlyNotes::default() };
        assert_eq!(text(|o| write_comment(o, &NotesForm::Score, false, &mate)), "[%eval #2]");
        assert_eq!(text(|o| write_comment(o, &NotesForm::Score, true, &PlyNotes::default())), "");
        let lowest = PlyNotes { eval: Some(Eval::Centipawns(i32::MIN)), ..PlyNotes::default() };
        assert_eq!(text(|o| write_comment(o, &NotesForm::Score, false, &lowest)), "21474836.48");
        assert_eq!(text(|o| write_comment(o, &NotesForm::Score, true, &lowest)), "-21474836.48");
    }

    #[test]
    fn movetext_numbering_nags_and_result() {
        let notes = |ply| match ply {
            1 => PlyNotes { clock: Some(180_000), ..PlyNotes::default() },
            3 => PlyNotes { nags: "$1 $18", ..PlyNotes::default() },
            _ => PlyNotes::default(),
        };
        let line = |moves, first, result, notes: &dyn Fn(u32) -> PlyNotes<'static>| {
            text(|o| {
                write_movetext(o, usize::MAX, moves, first, result, NotesForm::Commands, notes)
            })
        };
        let out = line("e4 e5 Nf3 Nc6", FirstMove::STANDARD, "1-0", &notes);
        assert_eq!(out, "1. e4 { [%clk 0:03:00] } 1... e5 2. Nf3 $1 $18 Nc6 1-0");
        let first = FirstMove::of_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 12");
        assert_eq!(first, FirstMove { number: 12, white: false });
        assert_eq!(line("Kd7 Kd2", first, "*", &|_| PlyNotes::default()), "12... Kd7 13. Kd2 *");
        assert_eq!(line("", first, "*", &notes), "*");
        let last = FirstMove::of_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 4294967295");
        assert_eq!(
            line("Kd7 Kd2 Ke7", last, "*", &|_| PlyNotes::default()),
            "4294967295... Kd7 4294967296. Kd2 Ke7 *"
        );
    }

    #[test]
    fn lines_as_export_fills_them() {
        let moves = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7";
        let long = "a comment long enough to be broken over two lines of the movetext, \
                    %with a word that may not start one";
        let notes = |ply| match ply {
            3 => PlyNotes { clock: Some(59_000), text: long, ..PlyNotes::default() },
            8 => PlyNotes { eval: Some(Eval::Centipawns(-31)), ..PlyNotes::default() },
            _ => PlyNotes::default(),
        };
        let write = |width| {
            let form = NotesForm::Commands;
            text(|o| write_movetext(o, width, moves, FirstMove::STANDARD, "1/2-1/2", form, notes))
        };
        let (out, one) = (write(80), write(usize::MAX));
        assert!(out.lines().all(|l| l.chars().count() <= 80 && !l.starts_with('%')), "{out}");
        assert!(out.lines().count() > 2, "{out}");
        assert_eq!(out.replace('\n', " "), one);
        assert!(one.contains("2. Nf3 { [%clk 0:00:59] a comment"), "{one}");
        assert!(one.contains("4. Ba4 Nf6 { [%eval -0.31] } 5. O-O"), "{one}");
    }

    #[test]
    fn a_comment_is_broken_only_when_wider_than_a_line() {
        let write = |width, comment: &str, closed| {
            let mut out = String::new();
            let mut lines = Lines::new(&mut out, width);
            lines.word("1.");
            lines.word("e4");
            lines.comment(comment, closed);
            lines.word("e5");
            out
        };
        let clock = " [%clk\n 0:05:00] ";
        // `1. e4` and the 18 columns of `{ [%clk 0:05:00] }`.
        assert_eq!(write(24, clock, true), "1. e4 { [%clk 0:05:00] }\ne5");
        assert_eq!(write(23, clock, true), "1. e4\n{ [%clk 0:05:00] } e5");
        assert_eq!(write(18, clock, true), "1. e4\n{ [%clk 0:05:00] }\ne5");
        assert_eq!(write(17, clock, true), "1. e4 { [%clk\n0:05:00] } e5");
        assert_eq!(write(19, " a %b c ", true), "1. e4 { a %b c } e5");
        assert_eq!(write(9, " a %b c ", true), "1. e4 { a %b\nc } e5", "no line starts with %");
        assert_eq!(write(80, "  ", true), "1. e4 {} e5");
        assert_eq!(write(80, " x", false), "1. e4 { x e5");
        assert_eq!(write(80, "", false), "1. e4 { e5");
    }

    #[test]
    fn white_space_normalised() {
        assert!(same_normalised(b" [%clk  0:02:58.6]\n", b"[%clk 0:02:58.6]"));
        assert!(same_normalised(b"a\n\tb", b"a b"));
        assert!(!same_normalised(b"ab", b"a b"));
        assert!(!same_normalised(b"[%eval 0.10]", b"[%eval 0.1]"));
        assert!(same_normalised(b"", b"  "));
        assert!(!same_normalised(b"a b", b"a  bc"));
        assert!(!same_normalised(b"a b c", b"a b"));
    }

    proptest::proptest! {
        #[test]
        fn white_space_normalised_as_words_joined_by_one_space(
            a in proptest::collection::vec(proptest::sample::select(b" \n\tab".to_vec()), 0..12),
            b in proptest::collection::vec(proptest::sample::select(b" \n\tab".to_vec()), 0..12),
        ) {
            fn words(t: &[u8]) -> Vec<&[u8]> {
                t.split(u8::is_ascii_whitespace).filter(|w| !w.is_empty()).collect()
            }
            proptest::prop_assert_eq!(same_normalised(&a, &b), words(&a) == words(&b));
        }

        #[test]
        fn equal_is_slice_equality(
            a in proptest::collection::vec(proptest::sample::select(b"ab".to_vec()), 0..20),
            flip in proptest::option::of(0usize..20),
        ) {
            let mut b = a.clone();
            if let Some(i) = flip.filter(|&i| i < b.len()) {
                b[i] ^= 3;
            }
            proptest::prop_assert_eq!(equal(&a, &b), a == b);
            proptest::prop_assert_eq!(equal(&a, &a[..a.len() / 2]), a.is_empty());
        }
    }
}
