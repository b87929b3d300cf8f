//! A game's notes: what its mainline comments and NAGs say about each move
//! ([`Notes`]), and their reading, comment by comment ([`NoteReader`]).
//! The replayer hands each comment here with the ply it follows; what is
//! read is kept by ply, the first value written counting (as python-chess
//! reads them).

use crate::pgn::commands::{self, pieces, whole_comment, Command, Eval, Piece, WholeComment};
use crate::pgn::keyed::{self, Layout};
use crate::pgn::movetext::PlyNotes;
use crate::pgn::RawComment;

/// What a game's mainline says about its moves, by ply: the ply is the
/// number of moves played when the note came (1 = after the first move of
/// the mainline). At most one value per ply in each list (the first
/// written; NAGs excepted), in ply order, none at ply 0 (before the first
/// move) or past the last move played.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Notes {
    /// Clock readings (`[%clk]`, milliseconds).
    pub clocks: Vec<(u32, u32)>,
    /// Time spent on the move (`[%emt]`, or an engine-match comment's
    /// time in seconds), milliseconds.
    pub emts: Vec<(u32, u32)>,
    /// Evaluations from White's point of view (`[%eval]`, or an
    /// engine-match comment's score turned to White's view).
    pub evals: Vec<(u32, Eval)>,
    /// NAGs in the order written (`!` as 1, …), several per ply possible.
    pub nags: Vec<(u32, u8)>,
    /// The text of the comments after each move, commands taken out
    /// ([`Piece::Text`]s joined by one space; comments after the same
    /// move too), as the end of each in `comment_text` (each starts where
    /// the one before ends); plies with no text left have none. See
    /// [`Notes::comments`].
    pub comment_ends: Vec<(u32, usize)>,
    /// The comment texts of `comment_ends`, one after the other.
    pub comment_text: String,
    /// Search depths an engine comment gives (`/20`, `d=27`, `[%eval
    /// 0.17,23]`).
    pub depths: Vec<(u32, u32)>,
    /// Selective depths (`sd=78`).
    pub seldepths: Vec<(u32, u32)>,
    /// Nodes searched (`n=1906789221`).
    pub nodes: Vec<(u32, u64)>,
    /// Principal variations (`pv=Nf3 d5`), as the ends of each in
    /// `pv_text` (as `comment_ends` for `comment_text`).
    pub pv_ends: Vec<(u32, usize)>,
    /// The principal variations of `pv_ends`, one after the other.
    pub pv_text: String,
}

impl Notes {
    /// The comment text of each ply that has one: `(ply, text)`.
    pub fn comments(&self) -> impl Iterator<Item = (u32, &str)> + '_ {
        texts(&self.comment_ends, &self.comment_text)
    }

    /// The principal variation of each ply that has one: `(ply, SAN)`.
    pub fn pvs(&self) -> impl Iterator<Item = (u32, &str)> + '_ {
        texts(&self.pv_ends, &self.pv_text)
    }

    /// `true` when the game has no note at all.
    pub fn is_empty(&self) -> bool {
        self.clocks.is_empty()
            && self.emts.is_empty()
            && self.evals.is_empty()
            && self.nags.is_empty()
            && self.comment_ends.is_empty()
            && self.depths.is_empty()
            && self.seldepths.is_empty()
            && self.nodes.is_empty()
            && self.pv_ends.is_empty()
    }

    /// The notes of the last ply read, if it is `ply`, as the movetext
    /// writer takes them (no NAGs: the writer compares a comment alone).
    pub(super) fn last_of_ply(&self, ply: u32) -> PlyNotes<'_> {
        fn of<T: Copy>(notes: &[(u32, T)], ply: u32) -> Option<T> {
            notes.last().filter(|n| n.0 == ply).map(|n| n.1)
        }
        fn text_of<'t>(ends: &[(u32, usize)], text: &'t str, ply: u32) -> &'t str {
            match ends.last() {
                Some(&(p, end)) if p == ply => {
                    let before = ends.len().checked_sub(2);
                    &text[before.map_or(0, |i| ends[i].1)..end]
                }
                _ => "",
            }
        }
        PlyNotes {
            clock: of(&self.clocks, ply),
            emt: of(&self.emts, ply),
            eval: of(&self.evals, ply),
            depth: of(&self.depths, ply),
            seldepth: of(&self.seldepths, ply),
            nodes: of(&self.nodes, ply),
            pv: text_of(&self.pv_ends, &self.pv_text, ply),
            nags: "",
            text: text_of(&self.comment_ends, &self.comment_text, ply),
            tail: "",
        }
    }

    /// Forgets every note (the buffers keep their capacity).
    fn clear(&mut self) {
        self.clocks.clear();
        self.emts.clear();
        self.evals.clear();
        self.nags.clear();
        self.comment_ends.clear();
        self.comment_text.clear();
        self.depths.clear();
        self.seldepths.clear();
        self.nodes.clear();
        self.pv_ends.clear();
        self.pv_text.clear();
    }

    /// Drops the notes past ply `plies` (the moves kept after a failed
    /// move).
    pub(super) fn drop_past(&mut self, plies: usize) {
        let plies = u32::try_from(plies).unwrap_or(u32::MAX);
        self.clocks.retain(|n| n.0 <= plies);
        self.emts.retain(|n| n.0 <= plies);
        self.evals.retain(|n| n.0 <= plies);
        self.nags.retain(|n| n.0 <= plies);
        // Ply order: the kept texts are the first ones.
        self.comment_ends.retain(|n| n.0 <= plies);
        self.comment_text.truncate(self.comment_ends.last().map_or(0, |c| c.1));
        self.depths.retain(|n| n.0 <= plies);
        self.seldepths.retain(|n| n.0 <= plies);
        self.nodes.retain(|n| n.0 <= plies);
        self.pv_ends.retain(|n| n.0 <= plies);
        self.pv_text.truncate(self.pv_ends.last().map_or(0, |c| c.1));
    }

    /// The notes for a game's record: copies of exact size (none for the
    /// many games without notes), the buffers kept for the next game; a
    /// text too large to keep is handed over whole.
    pub(super) fn hand_over(&mut self) -> Notes {
        Notes {
            clocks: self.clocks.clone(),
            emts: self.emts.clone(),
            evals: self.evals.clone(),
            nags: self.nags.clone(),
            comment_ends: self.comment_ends.clone(),
            comment_text: hand_over(&mut self.comment_text),
            depths: self.depths.clone(),
            seldepths: self.seldepths.clone(),
            nodes: self.nodes.clone(),
            pv_ends: self.pv_ends.clone(),
            pv_text: hand_over(&mut self.pv_text),
        }
    }
}

/// The texts of `ends` in `text`, each with its ply.
fn texts<'t>(ends: &'t [(u32, usize)], text: &'t str) -> impl Iterator<Item = (u32, &'t str)> {
    let starts = std::iter::once(0).chain(ends.iter().map(|c| c.1));
    ends.iter().zip(starts).map(move |(&(ply, end), start)| (ply, &text[start..end]))
}

/// Buffers kept from game to game up to this capacity: a larger one (a
/// comment of megabytes) is given away or dropped, so that one huge game
/// does not hold its size in every worker for the rest of the import.
pub(super) const KEPT_CAPACITY: usize = 1 << 20;

/// The game's text for its record: a copy of exact size when the buffer is
/// small enough to keep for the next game, else the buffer itself.
fn hand_over(text: &mut String) -> String {
    if text.capacity() > KEPT_CAPACITY {
        std::mem::take(text)
    } else {
        text.clone()
    }
}

/// How the last comment read was written, for the movetext rebuild to
/// compare it with what the writer gives back.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct LastComment {
    /// Its layout, if it was read as keyed.
    pub(super) keyed: Option<Layout>,
    /// Read as keyed, it is exactly what the writer gives back in its own
    /// layout ([`keyed::Keyed::exact`]).
    pub(super) keyed_exact: bool,
    /// It was read with its line breaks taken out (a wrapped number).
    pub(super) unwrapped: bool,
    /// It is a clock alone, written as the writer writes it
    /// ([`commands::ClockOnly::exact`]).
    pub(super) exact_clock: bool,
    /// It is a score alone, written as the writer writes it in
    /// [`NotesForm::Score`](crate::pgn::movetext::NotesForm::Score)
    /// ([`commands::ScoreOnly::exact`]).
    pub(super) exact_score: bool,
}

/// Reads a game's comments and NAGs into its [`Notes`]. Reuse one per
/// thread: its buffers are kept.
#[derive(Debug, Default)]
pub(super) struct NoteReader {
    /// The notes read so far.
    pub(super) notes: Notes,
    /// How the last comment was written.
    last: LastComment,
    /// A keyed comment's items left as text, joined.
    others: Vec<u8>,
}

impl NoteReader {
    /// Forgets the game read so far.
    pub(super) fn clear(&mut self) {
        self.notes.clear();
        self.last = LastComment::default();
    }

    /// How the last comment read was written.
    pub(super) fn last(&self) -> &LastComment {
        &self.last
    }

    /// Forgets how the last comment was written: its layout is left in
    /// place, unread, so that no comment pays for the copy of a layout.
    pub(super) fn forget_last(&mut self) {
        // Every field named: one added later is forgotten too.
        let LastComment { keyed, keyed_exact, unwrapped, exact_clock, exact_score } =
            &mut self.last;
        *keyed = None;
        (*keyed_exact, *unwrapped, *exact_clock, *exact_score) = (false, false, false, false);
    }

    /// A NAG after the move of ply `ply`.
    pub(super) fn nag(&mut self, ply: u32, nag: u8) {
        self.notes.nags.push((ply, nag));
    }

    /// What a mainline comment after the move of ply `ply` says: an
    /// engine-match form, or its commands and text. `white_first`: White
    /// played the game's first move (an engine's score is the mover's).
    #[inline(never)]
    pub(super) fn comment(&mut self, comment: RawComment<'_>, ply: u32, white_first: bool) {
        // The common shapes, told apart by the first byte, before the
        // general loop: one command (a clock), a score alone, an engine
        // score, plain text.
        let text = comment.0.trim_ascii();
        let whole = match text.first() {
            None => return,
            Some(b'[') => {
                if let Some(clock) = commands::clock_only(text) {
                    first_of_ply(&mut self.notes.clocks, ply, clock.ms);
                    self.last.exact_clock = clock.exact;
                    return;
                }
                if let Some((name, value)) = commands::single_command(text) {
                    self.command(ply, name, value);
                    return;
                }
                None
            }
            Some(b'0'..=b'9' | b'-' | b'+') => match commands::centipawns_only(text) {
                Some(score) => {
                    self.last.exact_score = score.exact;
                    Some(WholeComment::Mover {
                        eval: Some(Eval::Centipawns(score.cp)),
                        depth: None,
                        emt: None,
                        text: None,
                    })
                }
                None => whole_comment(text),
            },
            Some(b'a'..=b'z' | b'A'..=b'Z') => {
                // The buffer kept between comments.
                let mut others = std::mem::take(&mut self.others);
                others.clear();
                let read = keyed::read_into(text, &mut others);
                if let Some(k) = &read {
                    self.keyed(text, k, &others, ply);
                }
                self.others = others;
                if read.is_some() {
                    return;
                }
                whole_comment(text)
            }
            Some(_) => whole_comment(text),
        };
        if whole.is_none()
            && matches!(text[0], b'0'..=b'9' | b'-' | b'+' | b'#')
            && self.unwrapped(text, ply, white_first)
        {
            return;
        }
        match whole {
            Some(WholeComment::White(eval)) => first_of_ply(&mut self.notes.evals, ply, eval),
            Some(WholeComment::Mover { eval, depth, emt, text }) => {
                self.mover(ply, white_first, eval, depth, emt, text)
            }
            None if !text.contains(&b'[') => self.add_text(ply, text),
            None => {
                for piece in pieces(text) {
                    match piece {
                        Piece::Command(name, value) => self.command(ply, name, value),
                        Piece::Text(text) => self.add_text(ply, text),
                    }
                }
            }
        }
    }

    /// Records the command `name value` of ply `ply` if it is one we read.
    #[inline]
    fn command(&mut self, ply: u32, name: &[u8], value: &[u8]) {
        let notes = &mut self.notes;
        match commands::command(name, value) {
            Some(Command::Clock(ms)) => first_of_ply(&mut notes.clocks, ply, ms),
            Some(Command::ElapsedMoveTime(ms)) => first_of_ply(&mut notes.emts, ply, ms),
            Some(Command::Eval(e)) => {
                if notes.evals.last().is_none_or(|n| n.0 != ply) {
                    if let Some(depth) = commands::eval_depth(value) {
                        first_of_ply(&mut notes.depths, ply, depth);
                    }
                }
                first_of_ply(&mut notes.evals, ply, e)
            }
            None => {}
        }
    }

    /// Records a keyed comment (TCEC's `d=27, …, wv=0.60,`) of ply `ply`:
    /// its values in their lists, its other items as the comment text
    /// (`others`: those items as written, joined by `, `).
    fn keyed(&mut self, text: &[u8], k: &keyed::Keyed<'_>, others: &[u8], ply: u32) {
        let notes = &mut self.notes;
        if let Some(d) = k.depth {
            first_of_ply(&mut notes.depths, ply, d);
        }
        if let Some(d) = k.seldepth {
            first_of_ply(&mut notes.seldepths, ply, d);
        }
        if let Some(n) = k.nodes {
            first_of_ply(&mut notes.nodes, ply, n);
        }
        if let Some(e) = k.eval {
            first_of_ply(&mut notes.evals, ply, e);
        }
        if let Some(ms) = k.emt {
            first_of_ply(&mut notes.emts, ply, ms);
        }
        if let Some(ms) = k.clock {
            first_of_ply(&mut notes.clocks, ply, ms);
        }
        // An exact comment's items are plain ASCII, single spaced already:
        // taken as written. The others' runs of white space are made one
        // space.
        if let Some(pv) = k.pv {
            if notes.pv_ends.last().is_none_or(|p| p.0 != ply) {
                if k.exact {
                    push_decoded(&mut notes.pv_text, pv);
                } else {
                    let mut words = Vec::with_capacity(pv.len());
                    keyed::push_words(&mut words, pv);
                    push_decoded(&mut notes.pv_text, &words);
                }
                notes.pv_ends.push((ply, notes.pv_text.len()));
            }
        }
        if k.exact {
            // Single spaced, no space at either end: as the words of
            // `add_text` would be.
            if !others.is_empty() {
                self.add_words(ply, others, push_decoded);
            }
        } else {
            let mut joined = Vec::with_capacity(others.len());
            for (i, item) in keyed::other_items(text).enumerate() {
                if i > 0 {
                    joined.extend_from_slice(b", ");
                }
                keyed::push_words(&mut joined, item);
            }
            if !joined.is_empty() {
                self.add_text(ply, &joined);
            }
        }
        self.last.keyed = Some(k.layout);
        self.last.keyed_exact = k.exact;
    }

    /// An engine score whose number a line break cut (`{0.\n68/29 292}`,
    /// as files wrapped at a fixed width have): read with the white space
    /// that holds a line break taken out, and written back so.
    #[cold]
    fn unwrapped(&mut self, text: &[u8], ply: u32, white_first: bool) -> bool {
        if !text.iter().any(|&b| b == b'\n' || b == b'\r') {
            return false;
        }
        let joined = without_line_breaks(text);
        match whole_comment(&joined) {
            Some(WholeComment::Mover { eval, depth: Some(depth), emt, text }) => {
                self.last.unwrapped = true;
                self.mover(ply, white_first, eval, Some(depth), emt, text);
                true
            }
            _ => false,
        }
    }

    /// Records an engine score of ply `ply` ([`WholeComment::Mover`]).
    fn mover(
        &mut self,
        ply: u32,
        white_first: bool,
        eval: Option<Eval>,
        depth: Option<u32>,
        emt: Option<u32>,
        text: Option<&[u8]>,
    ) {
        if let Some(depth) = depth {
            first_of_ply(&mut self.notes.depths, ply, depth);
        }
        if let Some(eval) = eval {
            // The side to move first plays the odd plies.
            let white_moved = (ply % 2 == 1) == white_first;
            first_of_ply(&mut self.notes.evals, ply, if white_moved { eval } else { -eval });
        }
        if let Some(ms) = emt {
            first_of_ply(&mut self.notes.emts, ply, ms);
        }
        if let Some(text) = text {
            self.add_text(ply, text);
        }
    }

    /// Adds `text` to the comment of ply `ply` (after a space if it has
    /// one already).
    fn add_text(&mut self, ply: u32, text: &[u8]) {
        self.add_words(ply, text, push_comment_words);
    }

    /// [`NoteReader::add_text`], the text appended by `push`.
    #[inline(always)]
    fn add_words(&mut self, ply: u32, text: &[u8], push: fn(&mut String, &[u8])) {
        let notes = &mut self.notes;
        match notes.comment_ends.last_mut() {
            Some((p, end)) if *p == ply => {
                notes.comment_text.push(' ');
                push(&mut notes.comment_text, text);
                *end = notes.comment_text.len();
            }
            _ => {
                push(&mut notes.comment_text, text);
                notes.comment_ends.push((ply, notes.comment_text.len()));
            }
        }
    }
}

/// Appends `text` decoded (UTF-8, else Windows-1252).
#[inline]
fn push_decoded(out: &mut String, text: &[u8]) {
    match std::str::from_utf8(text) {
        Ok(text) => out.push_str(text),
        Err(_) => out.push_str(&crate::pgn::source::decode_text(text)),
    }
}

/// A comment's `text`, decoded, with each run of white space as one space
/// and none at its ends: the words the export writes back, whatever lines
/// it wraps them over, so that a comment reads the same after a round
/// trip.
fn push_comment_words(out: &mut String, text: &[u8]) {
    let text = text.trim_ascii();
    if crate::pgn::keyed::single_spaced(text) {
        return push_decoded(out, text);
    }
    let decoded = crate::pgn::source::decode_text(text);
    for (i, word) in
        decoded.split(|c: char| c.is_ascii_whitespace()).filter(|w| !w.is_empty()).enumerate()
    {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
}

/// `text` without the runs of white space that hold a line break: an
/// engine score cut by a line break (`{0.\n68/29 292}`) made whole.
pub(super) fn without_line_breaks(text: &[u8]) -> Vec<u8> {
    let mut joined = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let end =
            text[i..].iter().position(|b| !b.is_ascii_whitespace()).map_or(text.len(), |n| i + n);
        if end > i {
            let run = &text[i..end];
            if !run.iter().any(|&b| b == b'\n' || b == b'\r') {
                joined.extend_from_slice(run);
            }
            i = end;
        } else {
            joined.push(text[i]);
            i += 1;
        }
    }
    joined
}

/// Adds `value` for `ply` unless that ply has one already (the first
/// written counts, as python-chess reads it).
#[inline]
fn first_of_ply<T>(notes: &mut Vec<(u32, T)>, ply: u32, value: T) {
    if notes.last().is_none_or(|n| n.0 != ply) {
        notes.push((ply, value));
    }
}
