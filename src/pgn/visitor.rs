//! The [`Visitor`] trait: what the tokenizer tells about each game, in
//! order. Every slice borrows the input (`'a`); nothing is copied unless the
//! visitor decides to.

use std::borrow::Cow;
use std::ops::ControlFlow;

use super::source::decode_text;

/// Whether to skip a part of the game (the movetext, a variation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skip(pub bool);

/// The result token of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2` (also `½-½`).
    Draw,
    /// `*`: unknown or unfinished.
    Unknown,
}

impl GameResult {
    /// The PGN text of the result.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// Reads a result token (`1-0`, `0-1`, `1/2-1/2`, `½-½`, `*`).
    pub fn from_ascii(token: &[u8]) -> Option<GameResult> {
        match token {
            b"1-0" => Some(GameResult::WhiteWins),
            b"0-1" => Some(GameResult::BlackWins),
            b"1/2-1/2" | b"\xc2\xbd-\xc2\xbd" => Some(GameResult::Draw),
            b"*" => Some(GameResult::Unknown),
            _ => None,
        }
    }
}

/// A tag value as written between the quotes, escapes (`\"`, `\\`) still
/// in place; decode on demand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawTag<'a>(pub &'a [u8]);

impl<'a> RawTag<'a> {
    /// The value with escapes resolved and the encoding decoded (UTF-8, or
    /// Windows-1252 for bytes that are not UTF-8). Borrowed when nothing
    /// needed changing.
    pub fn decode(&self) -> Cow<'a, str> {
        if !self.0.contains(&b'\\') {
            return decode_text(self.0);
        }
        let mut out = Vec::with_capacity(self.0.len());
        let mut bytes = self.0.iter();
        while let Some(&b) = bytes.next() {
            if b == b'\\' {
                match bytes.next() {
                    Some(&e @ (b'"' | b'\\')) => out.push(e),
                    Some(&other) => out.extend_from_slice(&[b'\\', other]),
                    None => out.push(b'\\'),
                }
            } else {
                out.push(b);
            }
        }
        Cow::Owned(decode_text(&out).into_owned())
    }
}

/// A comment's text without its braces (or the `;` and line end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawComment<'a>(pub &'a [u8]);

impl<'a> RawComment<'a> {
    /// The decoded text.
    pub fn decode(&self) -> Cow<'a, str> {
        decode_text(self.0)
    }
}

/// A problem the tokenizer found in a game's text (not a move legality
/// problem, which the visitor finds itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Syntax {
    /// Byte offset in the block where it was found.
    pub offset: usize,
    /// What is wrong.
    pub message: &'static str,
}

/// Receives the tokens of one game at a time. Every method has a default,
/// so a visitor implements only what it needs; the defaults skip
/// variations.
pub trait Visitor<'a> {
    /// What a game turns into.
    type Output;

    /// A game starts at byte `offset` of the block.
    fn begin_game(&mut self, offset: usize) {
        let _ = offset;
    }

    /// A tag pair. `name` is as written (may contain `?`).
    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        let _ = (name, value);
    }

    /// The tag section is over; `Skip(true)` skips the movetext.
    fn end_tags(&mut self) -> Skip {
        Skip(false)
    }

    /// A move of the mainline (or of a variation the visitor entered), as
    /// written, without its `!`/`?` suffix; `offset` is its byte offset.
    /// `Break` skips the rest of this game's movetext.
    fn san(&mut self, san: &'a [u8], offset: usize) -> ControlFlow<()> {
        let _ = (san, offset);
        ControlFlow::Continue(())
    }

    /// A numeric annotation glyph: `$n`, or `!`=1 `?`=2 `!!`=3 `??`=4
    /// `!?`=5 `?!`=6 after a move.
    fn nag(&mut self, nag: u8) {
        let _ = nag;
    }

    /// A comment.
    fn comment(&mut self, comment: RawComment<'a>) {
        let _ = comment;
    }

    /// A `;` comment, running to the end of its line; read as any other
    /// comment unless the visitor tells them apart.
    fn line_comment(&mut self, comment: RawComment<'a>) {
        self.comment(comment);
    }

    /// A `%` escape line of the movetext (its text after the `%`), which
    /// says nothing to a PGN reader.
    fn escape_line(&mut self, line: &'a [u8]) {
        let _ = line;
    }

    /// A variation opens; `Skip(true)` (the default) skips it whole.
    fn begin_variation(&mut self) -> Skip {
        Skip(true)
    }

    /// A variation the visitor entered closes.
    fn end_variation(&mut self) {}

    /// The game's result token (`None`: the game ended without one).
    fn outcome(&mut self, outcome: Option<GameResult>) {
        let _ = outcome;
    }

    /// A syntax problem inside this game.
    fn syntax(&mut self, problem: Syntax) {
        let _ = problem;
    }

    /// The game's movetext as written (from the first byte after the tags
    /// to the end of the result token), for lossless storage, and `offset`,
    /// the byte offset of its start.
    fn movetext(&mut self, raw: &'a [u8], offset: usize) {
        let _ = (raw, offset);
    }

    /// The game is over.
    fn end_game(&mut self) -> Self::Output;
}
