//! Whether a game's movetext can be written back from its SAN, notes and
//! result instead of being stored as written ([`Rebuild`]): each comment
//! is compared, as it is read, with what the movetext writer gives back
//! from its ply's notes, and what the notes do not give back is kept as
//! written by move (the game's `tails`).

use super::notes::{without_line_breaks, LastComment, Notes, KEPT_CAPACITY};
use crate::pgn::movetext::{self as written, NotesForm, PlyNotes};
use crate::pgn::GameResult;

/// The rebuild's state for one game. Reuse one per thread: its buffers are
/// kept.
#[derive(Debug, Default)]
pub(super) struct Rebuild {
    /// No reason found yet to keep the movetext as written.
    pub(super) possible: bool,
    /// Plies whose notes do not give back what follows the move (0: what
    /// comes before the first move).
    raw_plies: Vec<u32>,
    /// The comments' form, once a comment with an evaluation decided it.
    form: Option<NotesForm>,
    /// The last ply whose comment was checked.
    commented_ply: u32,
    /// A comment as the writer gives it back.
    scratch: String,
}

impl Rebuild {
    /// A new game, whose movetext may be rebuilt if `possible`.
    pub(super) fn begin(&mut self, possible: bool) {
        self.possible = possible;
        self.raw_plies.clear();
        self.form = None;
        self.commented_ply = 0;
    }

    /// Forgets the plies kept as written (the game is read anew).
    pub(super) fn clear_raw(&mut self) {
        self.raw_plies.clear();
    }

    /// What follows the move of ply `ply` is kept as written.
    pub(super) fn keep_raw(&mut self, ply: u32) {
        self.raw_plies.push(ply);
    }

    /// The game's form of comments: the one its first comment with engine
    /// notes decided, else commands.
    pub(super) fn form(&self) -> NotesForm {
        self.form.unwrap_or(NotesForm::Commands)
    }

    /// Whether the writer gives back the comment `raw` after the move of
    /// ply `ply`, read already into `notes` (`last`: how it was read): from
    /// its ply's notes, in the game's form (the first comment with engine
    /// notes decides it). A comment it does not give back, an empty one or
    /// a second one after the same move makes the ply's text kept as
    /// written. `white_first`: White played the game's first move.
    #[inline(never)]
    pub(super) fn comment(
        &mut self,
        raw: &[u8],
        ply: u32,
        notes: &Notes,
        last: &LastComment,
        white_first: bool,
    ) {
        // A score a line break cut is compared whole: written back on one
        // line, it reads the same.
        let joined;
        let raw = if last.unwrapped {
            joined = without_line_breaks(raw);
            &joined[..]
        } else {
            raw
        };
        if self.commented_ply == ply || raw.trim_ascii().is_empty() {
            self.raw_plies.push(ply);
            return;
        }
        self.commented_ply = ply;
        // Every comment with notes is checked here, so no comment of this
        // ply gave notes before this one: a comment read as exact (a clock
        // alone, a score alone) holds its ply's notes, that value alone.
        // Those two, most comments of online and engine-match games, are
        // settled without the ply's notes gathered.
        let white_moved = (ply % 2 == 1) == white_first;
        // A clock alone is written the same in every form.
        if last.exact_clock {
            debug_assert!(gives_back(
                &mut self.scratch,
                raw,
                &NotesForm::Commands,
                true,
                &notes.last_of_ply(ply)
            ));
            return;
        }
        // A score alone, in a game of scores or the first comment of one.
        if last.exact_score && matches!(self.form, None | Some(NotesForm::Score)) {
            debug_assert!(gives_back(
                &mut self.scratch,
                raw,
                &NotesForm::Score,
                white_moved,
                &notes.last_of_ply(ply)
            ));
            self.form.get_or_insert(NotesForm::Score);
            return;
        }
        let notes = notes.last_of_ply(ply);
        // A keyed comment in the writer's exact form, in the game's layout
        // (every comment of a TCEC game has the same keys): given back
        // without writing it. Only notes an engine wrote are written keyed
        // (`{n=3}` alone is not).
        if let (Some(own), true, true) = (&last.keyed, last.keyed_exact, notes.written_keyed()) {
            // The layout compared and copied only where it must be: the
            // game's form is written once, by its first comment.
            let same_layout = match &self.form {
                None => true,
                Some(NotesForm::Keyed(game)) => game == own,
                Some(_) => false,
            };
            if same_layout {
                debug_assert!(
                    gives_back(
                        &mut self.scratch,
                        raw,
                        &NotesForm::Keyed(*own),
                        white_moved,
                        &notes
                    ),
                    "{}",
                    String::from_utf8_lossy(raw)
                );
                if self.form.is_none() {
                    self.form = Some(NotesForm::Keyed(*own));
                }
                return;
            }
        }
        // A keyed comment: the game's layout, with the keys this comment
        // adds.
        let keyed = match (&last.keyed, self.form.as_ref()) {
            (Some(own), Some(NotesForm::Keyed(game))) => match game.merged(own) {
                Some(layout) => Some(NotesForm::Keyed(layout)),
                None => {
                    self.raw_plies.push(ply);
                    return;
                }
            },
            (Some(own), None) => Some(NotesForm::Keyed(*own)),
            // The game's notes are in another form.
            (Some(_), Some(_)) => {
                self.raw_plies.push(ply);
                return;
            }
            (None, _) => None,
        };
        // Forms are compared by reference: a keyed one holds its layout.
        const CANDIDATES: [NotesForm; 4] =
            [NotesForm::Commands, NotesForm::Score, NotesForm::Cutechess, NotesForm::Arena];
        let engine = notes.eval.is_some() || notes.depth.is_some() || !notes.pv.is_empty();
        let game_form = self.form.as_ref();
        let forms: &[NotesForm] = match (&keyed, game_form) {
            (Some(form), _) => std::slice::from_ref(form),
            // In a keyed game, a comment of another form with engine notes
            // would be written back keyed.
            (None, Some(NotesForm::Keyed(_))) if engine => &[],
            (None, Some(NotesForm::Keyed(_))) => &CANDIDATES[..1],
            (None, Some(form)) => std::slice::from_ref(form),
            (None, None) => &CANDIDATES,
        };
        let scratch = &mut self.scratch;
        let given_back =
            forms.iter().position(|form| gives_back(scratch, raw, form, white_moved, &notes));
        if let Some(i) = given_back {
            // Decided by the first comment with engine notes; only a keyed
            // form changes after that (it gains keys). Not written again
            // when it is the game's already: a form holds a layout of 240
            // bytes, a copy at every comment of an engine game.
            let decides = notes.eval.is_some() || notes.depth.is_some() || keyed.is_some();
            if decides && (keyed.is_some() || self.form.is_none()) {
                self.form = Some(forms[i]);
            }
            return;
        }
        self.raw_plies.push(ply);
    }

    /// The text as written after each move of the plies kept raw (ply 0:
    /// before the first move), up to the next move's number or the result:
    /// `movetext` starts at byte `start` of the block, `tokens` are the
    /// mainline's SAN tokens with their offsets in the block. `None` if a
    /// ply has no move to follow (never for a game read whole).
    pub(super) fn tails(
        &mut self,
        movetext: &[u8],
        start: usize,
        tokens: &[(&[u8], usize)],
        outcome: Option<GameResult>,
    ) -> Option<Vec<(u32, String)>> {
        if self.raw_plies.is_empty() {
            return Some(Vec::new());
        }
        self.raw_plies.sort_unstable();
        self.raw_plies.dedup();
        let end = start + movetext.len();
        let result = outcome.map_or("", |o| o.as_str());
        let mut tails = Vec::with_capacity(self.raw_plies.len());
        for &ply in &self.raw_plies {
            let i = ply as usize;
            let from = match i {
                0 => start,
                _ => tokens.get(i - 1).map(|(san, offset)| offset + san.len())?,
            };
            let to = tokens.get(i).map_or(end, |t| t.1);
            let text = movetext.get(from.checked_sub(start)?..to.checked_sub(start)?)?;
            let text = if i < tokens.len() {
                without_move_number(text)
            } else {
                let rest = text.trim_ascii_end();
                rest.strip_suffix(result.as_bytes()).unwrap_or(rest)
            };
            let text = text.trim_ascii();
            if !text.is_empty() {
                tails.push((ply, crate::pgn::source::decode_text(text).into_owned()));
            }
        }
        Some(tails)
    }
}

/// `text` without the move number at its end (`12.`, `12...`, `12…`, a
/// bare `12`).
fn without_move_number(text: &[u8]) -> &[u8] {
    let trimmed = text.trim_ascii_end();
    let mut rest = trimmed;
    while let Some(r) = rest.strip_suffix(b".").or_else(|| rest.strip_suffix("…".as_bytes())) {
        rest = r;
    }
    let digits = rest.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let before = &rest[..rest.len() - digits];
    // A number after a space, a comment or a variation (not a NAG's `$12`).
    if digits > 0
        && before.last().is_none_or(|&b| b.is_ascii_whitespace() || b == b'}' || b == b')')
    {
        before
    } else {
        trimmed
    }
}

/// Whether the writer gives back `raw` from `notes` in `form`, written in
/// `scratch`.
fn gives_back(
    scratch: &mut String,
    raw: &[u8],
    form: &NotesForm,
    white_moved: bool,
    notes: &PlyNotes<'_>,
) -> bool {
    scratch.clear();
    written::write_comment(scratch, form, white_moved, notes);
    let same = written::same_normalised(raw, scratch.as_bytes());
    if scratch.capacity() > KEPT_CAPACITY {
        *scratch = String::new();
    }
    same
}
