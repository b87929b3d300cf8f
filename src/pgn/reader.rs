//! The PGN tokenizer: bytes → [`Visitor`] calls, one game at a time.
//!
//! Lenient by design (PGN standard section 8, plus what real files hold):
//! - tag pairs `[Name "value"]`, any number per line, odd spacing, `\"` and
//!   `\\` escapes, `]`/`[` inside values, a stray `"` inside a value (kept,
//!   with a warning: [`parse_tag`]), a blank line inside the tag
//!   section (a tag section ends at a blank line only if the next tag name
//!   repeats one already seen — header-only games follow each other that
//!   way);
//! - movetext: move numbers (`12.`, `12...`, `12…`, glued as in `1.e4`),
//!   moves (handed to the visitor as written; the tokenizer never checks
//!   legality), `!`/`?` suffixes turned into NAGs 1–6, `$n`, `{…}` comments
//!   across lines, `;` comments to the end of the line, `%` escape lines,
//!   variations `( … )` to any depth (skipped with a counter, no recursion),
//!   the FIDE draw-offer mark `(=)`, a separate `e.p.` token, results
//!   `1-0 0-1 1/2-1/2 ½-½ *`;
//! - a game ends at its result, at the next `[` outside comments (exports
//!   that put the next tags right after the last move), or at the end of
//!   input; a game may have no tags, or no movetext;
//! - text between games that is neither tags nor movetext is skipped and
//!   reported through [`Reader::skipped`];
//! - LF, CRLF and lone CR line ends; a UTF-8 BOM.
//!
//! Positions are byte offsets into the block; [`LineIndex`] turns them into
//! line and column for messages.

use std::cell::Cell;
use std::collections::HashSet;
use std::ops::ControlFlow;

use super::visitor::{GameResult, RawComment, RawTag, Syntax, Visitor};
use super::{line_breaks, scan};

/// Reads games from a block of bytes that starts at a game boundary.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    skipped: Vec<(usize, usize)>,
    /// Stretches skipped since the last game (the next one's gap).
    skipped_in_gap: usize,
    /// No `}` follows this offset (found once, so never searched again).
    no_brace_from: Option<usize>,
    /// Tag names of the game being read (kept to reuse the allocation).
    seen: SeenNames<'a>,
    /// The last line end found, and where its search started: no line
    /// break lies between them. Junk and malformed tags stop at each `[`
    /// of a line, and would otherwise search its end again each time.
    line: Option<(usize, usize)>,
    /// The last search for the end of a value a stray quote left open.
    value_ends: Cell<ValueEnds>,
    /// [`Reader::read_game`] stops before a game whose tags start at or
    /// after this offset.
    stop_from: usize,
}

/// Tag names seen in a game's tag section: a list for the usual ten or
/// twenty, and a set as well past [`SeenNames::LIST`], so that a section
/// of many thousand tags costs no search through all of them per tag.
#[derive(Default)]
struct SeenNames<'a> {
    list: Vec<&'a [u8]>,
    set: HashSet<&'a [u8], foldhash::fast::RandomState>,
}

impl<'a> SeenNames<'a> {
    /// Names searched in the list alone.
    const LIST: usize = 32;

    fn clear(&mut self) {
        self.list.clear();
        // Clearing a set may cost its capacity even when it is empty: only
        // a game of many tags filled it.
        if !self.set.is_empty() {
            self.set.clear();
        }
    }

    fn contains(&self, name: &[u8]) -> bool {
        if self.list.len() <= Self::LIST {
            self.list.contains(&name)
        } else {
            self.set.contains(name)
        }
    }

    #[inline]
    fn insert(&mut self, name: &'a [u8]) {
        self.list.push(name);
        if self.list.len() > Self::LIST {
            self.insert_in_set(name);
        }
    }

    /// [`SeenNames::insert`] past [`SeenNames::LIST`] names.
    #[inline(never)]
    fn insert_in_set(&mut self, name: &'a [u8]) {
        if self.set.is_empty() {
            self.set.extend(self.list.iter().copied());
        } else {
            self.set.insert(name);
        }
    }
}

const SPACE: u8 = 1;
const DELIMITER: u8 = 2;
/// Bytes that may be part of a token but mean something alone or at a
/// line start (`\\`, `%`).
const SPECIAL: u8 = 4;

/// Byte classes: one table lookup instead of a chain of compares.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let spaces = [b' ', b'\t', b'\n', b'\r', 0x0b, 0x0c];
    let mut i = 0;
    while i < spaces.len() {
        t[spaces[i] as usize] = SPACE | DELIMITER;
        i += 1;
    }
    let delimiters = [b'{', b'}', b'(', b')', b'[', b']', b';', b'$'];
    let mut i = 0;
    while i < delimiters.len() {
        t[delimiters[i] as usize] = DELIMITER;
        i += 1;
    }
    t[b'\\' as usize] = SPECIAL;
    t[b'%' as usize] = SPECIAL;
    t
};

/// Spaces as the tokenizer sees them (the splitter must agree).
#[inline]
pub(crate) fn is_space(b: u8) -> bool {
    CLASS[usize::from(b)] & SPACE != 0
}

/// Bytes that end a tag name: spaces, `"`, `[`, `]`.
#[inline]
fn ends_tag_name(b: u8) -> bool {
    static END: [bool; 256] = {
        let mut t = [false; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = CLASS[i] & SPACE != 0 || matches!(i as u8, b'"' | b'[' | b']');
            i += 1;
        }
        t
    };
    END[usize::from(b)]
}

/// Bytes that end a movetext token.
#[inline]
fn is_delimiter(b: u8) -> bool {
    CLASS[usize::from(b)] & DELIMITER != 0
}

const BOM: &[u8] = b"\xef\xbb\xbf";

impl<'a> Reader<'a> {
    /// A reader over `data`.
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        let pos = if data.starts_with(BOM) { BOM.len() } else { 0 };
        Reader {
            data,
            pos,
            skipped: Vec::new(),
            skipped_in_gap: 0,
            no_brace_from: None,
            seen: SeenNames::default(),
            line: None,
            value_ends: Cell::default(),
            stop_from: usize::MAX,
        }
    }

    /// Makes [`Reader::read_game`] return `None`, the cursor on the `[`,
    /// before a game whose tags start at or after `offset` (a caller
    /// cutting the input where games start); the next call reads that
    /// game if the stop was moved past it.
    pub fn stop_before_tags_from(&mut self, offset: usize) {
        self.stop_from = offset;
    }

    /// The byte offset reached.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Stretches of text between games that were skipped, as
    /// `(offset, length)`, since the last call. Each is a line's text (or
    /// its part before a `[`), except that past [`Reader::LISTED_SKIPS`]
    /// stretches between two games the last one grows to cover the rest of
    /// the gap: a file of millions of junk lines makes a bounded list.
    pub fn skipped(&mut self) -> Vec<(usize, usize)> {
        std::mem::take(&mut self.skipped)
    }

    /// Stretches listed one by one between two games.
    pub const LISTED_SKIPS: usize = 100;

    /// Skips text from the cursor to `end`.
    fn skip(&mut self, end: usize) {
        match self.skipped.last_mut() {
            Some((at, len)) if self.skipped_in_gap >= Self::LISTED_SKIPS => *len = end - *at,
            _ => {
                self.skipped.push((self.pos, end - self.pos));
                self.skipped_in_gap += 1;
            }
        }
        self.pos = end;
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    #[inline]
    fn at_line_start(&self, at: usize) -> bool {
        at == 0 || matches!(self.data[at - 1], b'\n' | b'\r')
    }

    fn skip_spaces(&mut self) {
        while let Some(b) = self.peek() {
            if is_space(b) {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// Skips spaces, reporting whether they held an empty line.
    fn skip_spaces_seeing_blank_line(&mut self) -> bool {
        let mut newlines = 0;
        while let Some(b) = self.peek() {
            match b {
                b'\n' => newlines += 1,
                b'\r' => {
                    if self.data.get(self.pos + 1) != Some(&b'\n') {
                        newlines += 1;
                    }
                }
                b' ' | b'\t' | 0x0b | 0x0c => {}
                _ => break,
            }
            self.pos += 1;
        }
        newlines >= 2
    }

    /// The offset of the end of the line at `from` (the `\n`/`\r` or EOF).
    fn line_end(&mut self, from: usize) -> usize {
        if let Some((searched_from, end)) = self.line {
            if (searched_from..=end).contains(&from) {
                return end;
            }
        }
        let end =
            memchr::memchr2(b'\n', b'\r', &self.data[from..]).map_or(self.data.len(), |i| from + i);
        self.line = Some((from, end));
        end
    }

    /// Reads the next game into `visitor`; `None` at the end of input.
    pub fn read_game<V: Visitor<'a>>(&mut self, visitor: &mut V) -> Option<V::Output> {
        // Find where the game starts, skipping what cannot start one.
        loop {
            self.skip_spaces();
            let b = self.peek()?;
            match b {
                b'[' if self.pos >= self.stop_from => return None,
                b'[' | b'{' | b'0'..=b'9' | b'*' => break,
                b'%' | b';' => self.pos = self.line_end(self.pos),
                _ if self.looks_like_move() => break,
                _ => {
                    let end = self.line_end(self.pos);
                    // Stop early at a '[' so that tags glued to junk are
                    // read, but not at one between braces: the splitter
                    // takes `{…}` on a line for a comment whatever comes
                    // before it, and must see the same tags.
                    let end = match bracket_outside_braces(&self.data[self.pos..end]) {
                        Bracket::At(i) => self.pos + i.max(1),
                        Bracket::None | Bracket::UnclosedBrace => end,
                    };
                    self.skip(end);
                }
            }
        }
        self.skipped_in_gap = 0;
        visitor.begin_game(self.pos);
        self.read_tags(visitor);
        let skip = visitor.end_tags();
        self.read_movetext(visitor, skip.0);
        Some(visitor.end_game())
    }

    /// `true` if the token at the cursor could start a game without tags.
    fn looks_like_move(&self) -> bool {
        // No move is longer than this (`Nbxd7e.p.+!?` in figurines is 20
        // bytes): a longer token is junk, rejected without reading it all.
        const LONGEST: usize = 32;
        let rest = &self.data[self.pos..];
        let len = match rest.iter().take(LONGEST + 1).position(|&b| is_delimiter(b)) {
            Some(len) => len,
            None if rest.len() <= LONGEST => rest.len(),
            None => return false,
        };
        let token = &rest[..len];
        use crate::notation::{descriptive, lang::Lang, san::San};
        // English and each distinct letter table (Italian = Spanish), then
        // descriptive notation (`P-K4`).
        std::iter::once(Lang::English)
            .chain(Lang::FALLBACKS)
            .any(|lang| San::from_ascii_lang(token, lang).is_ok())
            || descriptive::is_move(token)
    }

    fn read_tags<V: Visitor<'a>>(&mut self, visitor: &mut V) {
        let mut seen = std::mem::take(&mut self.seen);
        seen.clear();
        let mut blank_line = false;
        loop {
            if self.peek() != Some(b'[') {
                break;
            }
            let start = self.pos;
            let Some(TagPair { name, value, end, stray }) = self.parse_tag(start) else {
                // Not a tag pair: report and skip to the end of the line
                // (or the next '[').
                visitor.syntax(Syntax { offset: start, message: "malformed tag pair" });
                let line_end = self.line_end(start);
                self.pos = memchr::memchr(b'[', &self.data[start + 1..line_end])
                    .map_or(line_end, |i| start + 1 + i);
                blank_line = self.skip_spaces_seeing_blank_line();
                continue;
            };
            if blank_line && seen.contains(name) {
                // A repeated tag after an empty line: the next game.
                self.pos = start;
                break;
            }
            if let Some(offset) = stray {
                visitor.syntax(Syntax { offset, message: STRAY_QUOTE });
            }
            seen.insert(name);
            visitor.tag(name, RawTag(value));
            self.pos = end;
            blank_line = self.skip_spaces_seeing_blank_line();
        }
        self.seen = seen;
    }

    /// Parses `[Name "value"]` at `start` ([`parse_tag`]).
    fn parse_tag(&self, start: usize) -> Option<TagPair<'a>> {
        let mut ends = self.value_ends.get();
        let tag = parse_tag(self.data, start, &mut ends);
        self.value_ends.set(ends);
        tag
    }

    fn read_movetext<V: Visitor<'a>>(&mut self, visitor: &mut V, skip_all: bool) {
        self.skip_spaces();
        let start = self.pos;
        let mut state = Movetext { skipping: skip_all, depth: 0, moves_seen: false, outcome: None };
        // The hot loop: tokens first, then spaces, then everything else
        // (ordered branches predict better than one jump table on the byte).
        while let Some(&b) = self.data.get(self.pos) {
            let class = CLASS[usize::from(b)];
            if class == 0 {
                if self.token(visitor, &mut state).is_break() {
                    break;
                }
                // Most tokens end at one space: past it without a turn of
                // the loop.
                if self.data.get(self.pos) == Some(&b' ') {
                    self.pos += 1;
                }
            } else if class & SPACE != 0 {
                self.pos += 1;
                self.skip_spaces();
            } else if b == b'{' {
                self.read_brace_comment(visitor, state.skipping);
                if self.data.get(self.pos) == Some(&b' ') {
                    self.pos += 1;
                }
            } else if self.other(b, visitor, &mut state).is_break() {
                break;
            }
        }
        if state.depth > 0 {
            visitor.syntax(Syntax { offset: self.pos, message: "unterminated variation" });
        }
        visitor.movetext(&self.data[start..self.pos], start);
        visitor.outcome(state.outcome);
    }

    /// A movetext token at the cursor (a byte of class 0): move number,
    /// move, result, suffix annotation or noise. `Break` ends the game.
    #[inline(always)]
    fn token<V: Visitor<'a>>(&mut self, visitor: &mut V, state: &mut Movetext) -> ControlFlow<()> {
        let token_start = self.pos;
        if self.data[token_start].is_ascii_digit() {
            if let Some(number_end) = move_number_end(self.data, token_start) {
                // A move number (`12.`, `12...`): a new game if it is move 1
                // after an empty line, else nothing to hand on but the move
                // written against it (`12.Nf3`).
                if self.data[token_start] == b'1'
                    && self.data[token_start + 1] == b'.'
                    && state.moves_seen
                    && state.depth == 0
                    && blank_line_before(self.data, token_start)
                {
                    return ControlFlow::Break(());
                }
                return match self.data.get(number_end) {
                    Some(&b) if !is_delimiter(b) => {
                        let end = token_end(self.data, number_end);
                        self.pos = end;
                        self.hand_on(&self.data[number_end..end], number_end, visitor, state)
                    }
                    _ => {
                        self.pos = number_end;
                        ControlFlow::Continue(())
                    }
                };
            }
        }
        let end = token_end(self.data, token_start);
        let mut token = &self.data[token_start..end];
        let mut offset = token_start;
        self.pos = end;
        let first = token[0];
        if first.is_ascii_digit() || first == b'*' || first == 0xc2 {
            if state.depth == 0 {
                // Results: `1-0`, `0-1`, `1/2-1/2`, `*`, `½-½` (0xc2 0xbd);
                // move numbers (`12.`) are told apart by their second byte.
                let second = token.get(1).copied();
                if first == b'*'
                    || first == 0xc2
                    || (matches!(first, b'0' | b'1') && matches!(second, Some(b'-' | b'/')))
                {
                    if let Some(result) = GameResult::from_ascii(token) {
                        state.outcome = Some(result);
                        return ControlFlow::Break(());
                    }
                }
                if state.moves_seen
                    && token.starts_with(b"1.")
                    && blank_line_before(self.data, token_start)
                {
                    // Move 1 again after an empty line: a new game
                    // without tags starts here.
                    self.pos = token_start;
                    return ControlFlow::Break(());
                }
            }
            if first.is_ascii_digit() {
                (token, offset) = strip_move_number(token, token_start);
                if token.is_empty() {
                    return ControlFlow::Continue(());
                }
            }
        }
        self.hand_on(token, offset, visitor, state)
    }

    /// A token read, its move number stripped: noise, a move or a suffix
    /// annotation, handed on to `visitor`.
    #[inline(always)]
    fn hand_on<V: Visitor<'a>>(
        &mut self,
        token: &'a [u8],
        offset: usize,
        visitor: &mut V,
        state: &mut Movetext,
    ) -> ControlFlow<()> {
        if is_noise(token) {
            return ControlFlow::Continue(());
        }
        state.moves_seen = true;
        if state.skipping {
            return ControlFlow::Continue(());
        }
        let (san, nag) = split_suffix(token);
        if san.is_empty() {
            if let Some(n) = nag {
                visitor.nag(n);
            }
            return ControlFlow::Continue(());
        }
        if visitor.san(san, offset).is_break() {
            state.skipping = true;
            return ControlFlow::Continue(());
        }
        if let Some(n) = nag {
            visitor.nag(n);
        }
        ControlFlow::Continue(())
    }

    /// The rare movetext bytes: delimiters other than spaces and `{`, a
    /// stray backslash, `%`. `Break` ends the game.
    #[inline(never)]
    fn other<V: Visitor<'a>>(
        &mut self,
        b: u8,
        visitor: &mut V,
        state: &mut Movetext,
    ) -> ControlFlow<()> {
        let skipping = state.skipping;
        match b {
            // A stray backslash (`\$14` in some exports) means nothing.
            b'\\' => self.pos += 1,
            b'[' => return ControlFlow::Break(()),
            b';' => {
                let end = self.line_end(self.pos);
                if !skipping {
                    visitor.line_comment(RawComment(&self.data[self.pos + 1..end]));
                }
                self.pos = end;
            }
            b'%' if self.at_line_start(self.pos) => {
                let end = self.line_end(self.pos);
                if !skipping {
                    visitor.escape_line(&self.data[self.pos + 1..end]);
                }
                self.pos = end;
            }
            b'%' => return self.token(visitor, state),
            b'(' => {
                if self.data[self.pos..].starts_with(b"(=)") {
                    self.pos += 3;
                    return ControlFlow::Continue(());
                }
                self.pos += 1;
                if skipping || visitor.begin_variation().0 {
                    if !self.skip_variation(visitor) {
                        return ControlFlow::Break(());
                    }
                } else {
                    state.depth += 1;
                }
            }
            b')' => {
                self.pos += 1;
                if state.depth > 0 {
                    state.depth -= 1;
                    visitor.end_variation();
                } else if !skipping {
                    visitor.syntax(Syntax { offset: self.pos - 1, message: "')' without '('" });
                }
            }
            b'}' | b']' => {
                if !skipping {
                    let message = if b == b'}' { "'}' without '{'" } else { "']' outside a tag" };
                    visitor.syntax(Syntax { offset: self.pos, message });
                }
                self.pos += 1;
            }
            b'$' => {
                let digits_start = self.pos + 1;
                let mut i = digits_start;
                while i < self.data.len() && self.data[i].is_ascii_digit() {
                    i += 1;
                }
                let nag = std::str::from_utf8(&self.data[digits_start..i])
                    .ok()
                    .and_then(|s| s.parse::<u8>().ok());
                match nag {
                    Some(n) if !skipping => visitor.nag(n),
                    None if !skipping => {
                        visitor.syntax(Syntax { offset: self.pos, message: "invalid NAG" })
                    }
                    _ => {}
                }
                self.pos = i.max(self.pos + 1);
            }
            _ => unreachable!("byte {b:#x} has a class of its own"),
        }
        ControlFlow::Continue(())
    }

    /// Reads `{...}` at the cursor. A comment without its `}` ends before
    /// the next line that starts with `[` (or at the end of input), so that
    /// one missing brace does not swallow the following games.
    fn read_brace_comment<V: Visitor<'a>>(&mut self, visitor: &mut V, skipping: bool) {
        let open = self.pos;
        let body = open + 1;
        // The usual case: a `}` comes before any `{`, so the comment is
        // closed and holds no sign of being unterminated.
        if self.no_brace_from.is_none_or(|from| from > body) {
            let rest = &self.data[body..];
            if let Some(i) = scan::find2(b'}', b'{', rest).filter(|&i| rest[i] == b'}') {
                if !skipping {
                    visitor.comment(RawComment(&rest[..i]));
                }
                self.pos = body + i + 1;
                return;
            }
        }
        let close = if self.no_brace_from.is_some_and(|from| from <= body) {
            None
        } else {
            let found = scan::find(b'}', &self.data[body..]);
            if found.is_none() {
                // Remember, so that many unterminated comments stay linear.
                self.no_brace_from = Some(body);
            }
            found
        };
        match close {
            Some(i) if !self.is_unterminated(body, body + i) => {
                if !skipping {
                    visitor.comment(RawComment(&self.data[body..body + i]));
                }
                self.pos = body + i + 1;
            }
            _ => {
                let end = self.next_tag_line(body).unwrap_or(self.data.len());
                visitor.syntax(Syntax { offset: open, message: "unterminated comment" });
                if !skipping {
                    visitor.comment(RawComment(&self.data[body..end]));
                }
                self.pos = end;
            }
        }
    }

    /// The offset of the first `[` at a line start in `from..`, if any,
    /// that opens something tag-like (`[Name "`).
    fn next_tag_line(&self, from: usize) -> Option<usize> {
        self.next_tag_line_before(from, self.data.len())
    }

    /// [`Reader::next_tag_line`] limited to `from..to`.
    fn next_tag_line_before(&self, from: usize, to: usize) -> Option<usize> {
        let mut i = from;
        while let Some(rel) = memchr::memchr(b'[', &self.data[i..to]) {
            let at = i + rel;
            if self.at_line_start(at) && self.parse_tag(at).is_some() {
                return Some(at);
            }
            i = at + 1;
        }
        None
    }

    /// A comment from `from` to the `}` at `to` may hold lines that look
    /// like tags; it is a comment all the same. Only when another `{` opens
    /// after such a tag line was the first comment never closed (comments
    /// do not nest): its game then ends at that tag line.
    fn is_unterminated(&self, from: usize, to: usize) -> bool {
        let inner = &self.data[from..to];
        let Some(brace) = memchr::memchr(b'{', inner) else { return false };
        memchr::memchr2(b'\n', b'\r', &inner[..brace]).is_some()
            && self.next_tag_line_before(from, from + brace).is_some()
    }

    /// Skips a variation whose `(` was consumed, counting nesting and
    /// stepping over comments. Returns `false` if it ran into the next
    /// game's tags (reported as unterminated).
    fn skip_variation<V: Visitor<'a>>(&mut self, visitor: &mut V) -> bool {
        let mut depth = 1u32;
        let open = self.pos - 1;
        while let Some(rel) = memchr::memchr3(b'(', b')', b'{', &self.data[self.pos..]) {
            let at = self.pos + rel;
            // A ';' comment, an escape line or a tag line between here and
            // `at` changes things: the first two hide what follows on their
            // line, as they do outside variations.
            let segment = &self.data[self.pos..at];
            if let Some(rel) = memchr::memchr3(b';', b'[', b'%', segment) {
                let at2 = self.pos + rel;
                match self.data[at2] {
                    b'[' if self.at_line_start(at2) && self.parse_tag(at2).is_some() => {
                        self.pos = at2;
                        visitor.syntax(Syntax { offset: open, message: "unterminated variation" });
                        return false;
                    }
                    b';' => self.pos = self.line_end(at2),
                    b'%' if self.at_line_start(at2) => self.pos = self.line_end(at2),
                    _ => self.pos = at2 + 1,
                }
                continue;
            }
            match self.data[at] {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos = at + 1;
                        return true;
                    }
                }
                _ => {
                    self.pos = at;
                    self.read_brace_comment(visitor, true);
                    continue;
                }
            }
            self.pos = at + 1;
        }
        // End of input inside the variation.
        if let Some(at) = self.next_tag_line(self.pos) {
            self.pos = at;
        } else {
            self.pos = self.data.len();
        }
        visitor.syntax(Syntax { offset: open, message: "unterminated variation" });
        false
    }
}

/// What a line holds outside the `{…}` pairs closed on it.
pub(crate) enum Bracket {
    /// The offset of the first `[`.
    At(usize),
    /// No `[`, but a `{` whose `}` is not on the line (it hides the rest).
    UnclosedBrace,
    /// Neither.
    None,
}

/// The first `[` of `line` outside `{…}` pairs, or what hides one.
pub(crate) fn bracket_outside_braces(line: &[u8]) -> Bracket {
    let mut i = 0;
    while let Some(rel) = memchr::memchr2(b'[', b'{', &line[i..]) {
        let at = i + rel;
        if line[at] == b'[' {
            return Bracket::At(at);
        }
        match memchr::memchr(b'}', &line[at + 1..]) {
            Some(close) => i = at + 1 + close + 1,
            None => return Bracket::UnclosedBrace,
        }
    }
    Bracket::None
}

/// A tag pair read by [`parse_tag`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TagPair<'d> {
    /// The name as written.
    pub name: &'d [u8],
    /// The value between the quotes, escapes in place.
    pub value: &'d [u8],
    /// The offset after the `]`.
    pub end: usize,
    /// The offset of a stray `"` kept in the value, if the value has one.
    pub stray: Option<usize>,
}

/// The warning for a tag value read past a stray `"`.
pub(crate) const STRAY_QUOTE: &str = "stray '\"' kept in a tag value";

/// Parses `[Name "value"]` at `start`.
///
/// A value ends at its first `"` not escaped by `\` when spaces and `]`
/// follow. When something else follows (`[TimeControl "90' + 30' & 30""]`),
/// that quote is stray: the value runs on, on its line, to the first
/// unescaped `"` that spaces and `]` follow, stray quotes and `]` kept in it
/// (python-chess reads such a line alike); the pair is malformed if a `"`
/// that spaces and `[` follow comes first (the `]` of a pair was left out
/// before the next one on the line), or none does. `ends` remembers the
/// last such search, so that a line of many stray quotes is searched once.
pub(crate) fn parse_tag<'d>(
    data: &'d [u8],
    start: usize,
    ends: &mut ValueEnds,
) -> Option<TagPair<'d>> {
    parse_plain_tag(data, start).or_else(|| parse_any_tag(data, start, ends))
}

/// [`parse_tag`] for the form nearly every tag pair has, `[Name "value"]`
/// with one space, no escape and a name of at most 24 bytes, found word by
/// word; `None` for any other form, which [`parse_any_tag`] reads (and
/// reads alike: every byte that ends a name is below `#` or a bracket).
#[inline]
fn parse_plain_tag(data: &[u8], start: usize) -> Option<TagPair<'_>> {
    let name_start = start + 1;
    let len = scan::find_below_or2(b'"' + 1, b'[', b']', &data[name_start..], 24)?;
    let name_end = name_start + len;
    if len == 0 || data.get(name_end..name_end + 2) != Some(&b" \""[..]) {
        return None;
    }
    let value_start = name_end + 2;
    let quote = value_start + scan::find3(b'"', b'\\', b'\n', &data[value_start..])?;
    if data[quote] != b'"' || data.get(quote + 1) != Some(&b']') {
        return None;
    }
    Some(TagPair {
        name: &data[name_start..name_end],
        value: &data[value_start..quote],
        end: quote + 2,
        stray: None,
    })
}

/// [`parse_tag`] for every form.
#[inline(never)]
fn parse_any_tag<'d>(data: &'d [u8], start: usize, ends: &mut ValueEnds) -> Option<TagPair<'d>> {
    let mut i = start + 1;
    while i < data.len() && matches!(data[i], b' ' | b'\t') {
        i += 1;
    }
    let name_start = i;
    while i < data.len() && !ends_tag_name(data[i]) {
        i += 1;
    }
    let name = &data[name_start..i];
    if name.is_empty() {
        return None;
    }
    while i < data.len() && matches!(data[i], b' ' | b'\t') {
        i += 1;
    }
    if data.get(i) != Some(&b'"') {
        return None;
    }
    i += 1;
    let value_start = i;
    loop {
        let rel = scan::find3(b'"', b'\\', b'\n', data.get(i..)?)?;
        i += rel;
        match data[i] {
            b'\\' => i += 2,
            b'"' => break,
            _ => return None,
        }
    }
    let quote = i;
    let after = skip_tag_spaces(data, quote + 1);
    if data.get(after) == Some(&b']') {
        let value = &data[value_start..quote];
        return Some(TagPair { name, value, end: after + 1, stray: None });
    }
    // A stray quote. The search above stops at `\n` only: a value that ran
    // past a lone `\r` has left its line.
    if data.get(after) == Some(&b'[') || memchr::memchr(b'\r', &data[value_start..quote]).is_some()
    {
        return None;
    }
    let close = ends.close(data, quote + 1)?;
    let end = skip_tag_spaces(data, close + 1) + 1;
    Some(TagPair { name, value: &data[value_start..close], end, stray: Some(quote) })
}

/// The offset of the first byte from `at` that is not a space or tab.
fn skip_tag_spaces(data: &[u8], mut at: usize) -> usize {
    while at < data.len() && matches!(data[at], b' ' | b'\t') {
        at += 1;
    }
    at
}

/// The last search for the end of a value left open by a stray quote
/// ([`parse_tag`]): from `from`, the first unescaped `"` that decides it,
/// or the line end, is at `to`, and it closes the value or not. Whether a
/// quote decides depends only on the bytes around it, and a search starts
/// right after a `"` (never inside a run of backslashes), so any search
/// from `from..=to` finds the same: a line of many stray quotes is
/// searched once.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ValueEnds(Option<(usize, usize, bool)>);

impl ValueEnds {
    /// The offset of the `"` that closes a value whose stray quote ends at
    /// `from`; `None` if the line holds none before a `"` that spaces and
    /// `[` follow.
    fn close(&mut self, data: &[u8], from: usize) -> Option<usize> {
        let (to, closes) = match self.0 {
            Some((start, to, closes)) if (start..=to).contains(&from) => (to, closes),
            _ => {
                let (to, closes) = value_end(data, from);
                self.0 = Some((from, to, closes));
                (to, closes)
            }
        };
        closes.then_some(to)
    }
}

/// [`ValueEnds::close`] searched from `from`: the offset of the first
/// unescaped `"` that spaces and `]` or `[` follow (`true` for `]`), else of
/// the line end.
fn value_end(data: &[u8], from: usize) -> (usize, bool) {
    let mut i = from;
    while let Some(&b) = data.get(i) {
        match b {
            b'\n' | b'\r' => return (i, false),
            // An escape, but never of a line end.
            b'\\' => i += if matches!(data.get(i + 1), Some(b'\n' | b'\r')) { 1 } else { 2 },
            b'"' => match data.get(skip_tag_spaces(data, i + 1)) {
                Some(b']') => return (i, true),
                Some(b'[') => return (i, false),
                _ => i += 1,
            },
            _ => i += 1,
        }
    }
    (data.len(), false)
}

/// The end of the token that starts at `start` (the next delimiter, or the
/// end of `data`). Tokens are short: the next bytes are classified without
/// a branch per byte (a loop that stops at the delimiter costs a
/// mispredicted exit per token), sixteen at once with SSE2 on x86-64,
/// eight by table elsewhere.
#[inline(always)]
fn token_end(data: &[u8], start: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    if let Some(window) = data.get(start + 1..start + 17) {
        let mask = delimiters_in(window.try_into().expect("16 bytes"));
        if mask != 0 {
            return start + 1 + mask.trailing_zeros() as usize;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    if let Some(window) = data.get(start + 1..start + 9) {
        let mut mask = 0u32;
        for (k, &b) in window.iter().enumerate() {
            mask |= u32::from(CLASS[usize::from(b)] & DELIMITER) << k;
        }
        if mask != 0 {
            // The DELIMITER bit is 2: bit k + 1 is set for byte k.
            return start + mask.trailing_zeros() as usize;
        }
    }
    let mut end = start + 1;
    while end < data.len() && !is_delimiter(data[end]) {
        end += 1;
    }
    end
}

/// Bit k set where `bytes[k]` is a delimiter ([`is_delimiter`]): spaces
/// (tab to carriage return, and ` `), brackets of the three kinds, `;`
/// and `$`, found by compares on all sixteen bytes at once.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn delimiters_in(bytes: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8, _mm_sub_epi8,
    };
    // SAFETY: SSE2 is part of every x86-64 processor, and the one load
    // reads exactly the sixteen bytes of `bytes` (unaligned).
    unsafe {
        let v = _mm_loadu_si128(bytes.as_ptr().cast());
        let byte = |b: u8| _mm_set1_epi8(b as i8);
        // `\t` to `\r`: 0 to 4 once 9 is taken off (wrapping below 9).
        let t = _mm_sub_epi8(v, byte(9));
        let control_spaces = _mm_cmpeq_epi8(_mm_min_epu8(t, byte(4)), t);
        let space = _mm_cmpeq_epi8(v, byte(b' '));
        // `[` and `]` are `{` and `}` but for bit 5; `(` and `)` differ in
        // bit 0.
        let folded = _mm_or_si128(v, byte(0x20));
        let braces =
            _mm_or_si128(_mm_cmpeq_epi8(folded, byte(b'{')), _mm_cmpeq_epi8(folded, byte(b'}')));
        let parens = _mm_cmpeq_epi8(_mm_and_si128(v, byte(0xfe)), byte(b'('));
        let others = _mm_or_si128(_mm_cmpeq_epi8(v, byte(b';')), _mm_cmpeq_epi8(v, byte(b'$')));
        let all = _mm_or_si128(
            _mm_or_si128(control_spaces, space),
            _mm_or_si128(_mm_or_si128(braces, parens), others),
        );
        _mm_movemask_epi8(all) as u32
    }
}

/// The end of the move number at `start` (digits, then dots), if the token
/// is one and no `…` follows (half the tokens of most files, read here
/// without [`token_end`]'s window). `None` for any other token.
#[inline(always)]
fn move_number_end(data: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    while data.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let digits_end = i;
    while data.get(i) == Some(&b'.') {
        i += 1;
    }
    (i > digits_end && data.get(i) != Some(&0xe2)).then_some(i)
}

/// What the movetext loop carries from token to token.
struct Movetext {
    /// The visitor asked to skip the rest (or the whole movetext).
    skipping: bool,
    /// Depth of the variations the visitor entered.
    depth: u32,
    /// A token other than noise was read.
    moves_seen: bool,
    /// The result token, once read.
    outcome: Option<GameResult>,
}

/// Whether the spaces just before `at` hold an empty line (two line ends;
/// `\r\n` counts once).
fn blank_line_before(data: &[u8], at: usize) -> bool {
    let mut newlines = 0;
    let mut i = at;
    while i > 0 && is_space(data[i - 1]) {
        i -= 1;
        match data[i] {
            b'\n' => newlines += 1,
            b'\r' if data.get(i + 1) != Some(&b'\n') => newlines += 1,
            _ => {}
        }
        if newlines >= 2 {
            return true;
        }
    }
    false
}

/// Tokens that carry nothing: a separate `e.p.`, lone check marks, lone
/// dots or ellipses (`1. ... e5`).
#[inline]
fn is_noise(token: &[u8]) -> bool {
    match token.first() {
        None => true,
        // Only these first bytes can start noise; moves take the fast path.
        Some(b'e' | b'+' | b'#' | b'.' | 0xe2) => {
            matches!(token, b"e.p." | b"ep" | b"+" | b"#")
                || token.iter().all(|&b| b == b'.')
                || token.chunks(3).all(|c| c == "…".as_bytes())
        }
        _ => false,
    }
}

/// Splits a leading move number (`12.`, `12...`, `12…`) off a token that
/// starts with a digit.
#[inline]
fn strip_move_number(token: &[u8], offset: usize) -> (&[u8], usize) {
    // The usual forms, digits then dots, without a look at `…`.
    let mut i = 1;
    while i < token.len() && token[i].is_ascii_digit() {
        i += 1;
    }
    let digits = i;
    while i < token.len() && token[i] == b'.' {
        i += 1;
    }
    if i > digits && token.get(i) != Some(&0xe2) {
        return (&token[i..], offset + i);
    }
    strip_move_number_slow(token, offset)
}

/// [`strip_move_number`] for bare numbers and ellipses (`12…`, `12.…`).
fn strip_move_number_slow(token: &[u8], offset: usize) -> (&[u8], usize) {
    let digits = token.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut i = digits;
    let mut dots = 0;
    loop {
        match token.get(i) {
            Some(b'.') => i += 1,
            Some(0xe2) if token[i..].starts_with("…".as_bytes()) => i += 3,
            _ => break,
        }
        dots += 1;
    }
    if dots == 0 {
        // A bare number is a move number without its dot (`15 Qxf7`), but
        // `0000` is a null move and `00`, `000` castling.
        if digits == token.len() && !matches!(token, b"0000" | b"00" | b"000") {
            return (&token[digits..], offset + digits);
        }
        return (token, offset);
    }
    (&token[i..], offset + i)
}

/// Splits `!`/`?` suffixes off a move and maps them to a NAG.
#[inline]
fn split_suffix(token: &[u8]) -> (&[u8], Option<u8>) {
    match token.last() {
        Some(b'!' | b'?') => split_suffix_slow(token),
        _ => (token, None),
    }
}

fn split_suffix_slow(token: &[u8]) -> (&[u8], Option<u8>) {
    let n = token.iter().rev().take_while(|&&b| b == b'!' || b == b'?').count();
    if n == 0 {
        return (token, None);
    }
    let (san, suffix) = token.split_at(token.len() - n);
    let nag = match suffix {
        b"!" => Some(1),
        b"?" => Some(2),
        b"!!" => Some(3),
        b"??" => Some(4),
        b"!?" => Some(5),
        b"?!" => Some(6),
        _ => None,
    };
    (san, nag)
}

/// Turns byte offsets into 1-based line and column (in bytes), counting
/// `\n`, `\r\n` and lone `\r` as line ends. Queries in increasing order are
/// incremental.
pub struct LineIndex<'a> {
    data: &'a [u8],
    at: usize,
    line: usize,
    line_start: usize,
    /// Columns before `data[0]` on its line.
    column_base: usize,
}

impl<'a> LineIndex<'a> {
    /// An index over `data` (the block the offsets refer to).
    pub fn new(data: &'a [u8]) -> LineIndex<'a> {
        LineIndex::continuing(data, 0)
    }

    /// An index over `data`, which starts `column_base` bytes into a line
    /// (a piece of input cut in the middle of a line): columns on its first
    /// line count from the line's real start.
    pub fn continuing(data: &'a [u8], column_base: usize) -> LineIndex<'a> {
        LineIndex { data, at: 0, line: 1, line_start: 0, column_base }
    }

    /// Line and column of `offset`.
    pub fn locate(&mut self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.data.len());
        if offset < self.at {
            // Step back over the line breaks between, not from the start:
            // queries come in near order, this keeps them linear.
            self.line -= line_breaks::count(self.data, offset, self.at);
            self.line_start = line_start(self.data, offset);
            self.at = offset;
        }
        if offset > self.at {
            // Counted in bulk: a chunk's line count is one query over all
            // of it.
            let breaks = line_breaks::count(self.data, self.at, offset);
            if breaks > 0 {
                self.line += breaks;
                // The last of them ends in at..offset; a `\r` at `offset - 1`
                // whose `\n` is at `offset` ends no line yet.
                let in_crlf =
                    self.data[offset - 1] == b'\r' && self.data.get(offset) == Some(&b'\n');
                let end = if in_crlf { offset - 1 } else { offset };
                if let Some(i) = memchr::memrchr2(b'\n', b'\r', &self.data[self.at..end]) {
                    self.line_start = self.at + i + 1;
                }
            }
        }
        self.at = offset;
        // A UTF-8 byte-order mark is not a column.
        let first = self.line_start == 0;
        let bom = if first
            && self.column_base == 0
            && self.data.starts_with(BOM)
            && offset >= BOM.len()
        {
            BOM.len()
        } else {
            0
        };
        let base = if first { self.column_base } else { 0 };
        (self.line, base + offset - self.line_start + 1 - bom)
    }
}

/// The offset where the line holding `offset` starts: after the last line
/// break that ends at or before `offset`.
fn line_start(data: &[u8], offset: usize) -> usize {
    // The `\r` of a `\r\n` whose `\n` is at `offset` ends no line yet.
    let in_crlf = offset > 0 && data[offset - 1] == b'\r' && data.get(offset) == Some(&b'\n');
    let end = if in_crlf { offset - 1 } else { offset };
    memchr::memrchr2(b'\n', b'\r', &data[..end]).map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;

    use super::*;

    /// Records every event as text, to compare against expectations.
    #[derive(Default)]
    struct Log(Vec<String>);

    impl<'a> Visitor<'a> for Log {
        type Output = Vec<String>;
        fn begin_game(&mut self, offset: usize) {
            self.0.push(format!("game@{offset}"));
        }
        fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
            self.0.push(format!("tag {}={}", String::from_utf8_lossy(name), value.decode()));
        }
        fn san(&mut self, san: &'a [u8], offset: usize) -> ControlFlow<()> {
            self.0.push(format!("san {}@{offset}", String::from_utf8_lossy(san)));
            ControlFlow::Continue(())
        }
        fn nag(&mut self, nag: u8) {
            self.0.push(format!("nag {nag}"));
        }
        fn comment(&mut self, c: RawComment<'a>) {
            self.0.push(format!("comment {}", c.decode().trim()));
        }
        fn outcome(&mut self, o: Option<GameResult>) {
            self.0.push(format!("result {}", o.map_or("none", |o| o.as_str())));
        }
        fn syntax(&mut self, p: Syntax) {
            self.0.push(format!("syntax {}@{}", p.message, p.offset));
        }
        fn end_game(&mut self) -> Vec<String> {
            std::mem::take(&mut self.0)
        }
    }

    fn games(text: &str) -> Vec<Vec<String>> {
        let mut reader = Reader::new(text.as_bytes());
        let mut out = Vec::new();
        while let Some(g) = reader.read_game(&mut Log::default()) {
            out.push(g);
        }
        out
    }

    fn sans(game: &[String]) -> Vec<&str> {
        game.iter()
            .filter_map(|e| e.strip_prefix("san "))
            .map(|s| s.split('@').next().unwrap())
            .collect()
    }

    #[test]
    fn tags_and_moves() {
        let g = games(
            "[Event \"A \\\"quoted\\\" \\\\ one\"]\n[White \"X\"]\n\n1. e4 e5 2.Nf3 Nc6 1-0\n",
        );
        assert_eq!(g.len(), 1);
        assert_eq!(g[0][1], "tag Event=A \"quoted\" \\ one");
        assert_eq!(sans(&g[0]), ["e4", "e5", "Nf3", "Nc6"]);
        assert_eq!(g[0].last().unwrap(), "result 1-0");
    }

    #[test]
    fn move_numbers_in_every_form() {
        let g = games("1.e4 1...e5 2. Nf3 2… Nc6 3.Bb5 a6 *");
        assert_eq!(sans(&g[0]), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
        let g = games("1. 0-0 0-0-0 1/2-1/2");
        assert_eq!(sans(&g[0]), ["0-0", "0-0-0"]);
        assert_eq!(g[0].last().unwrap(), "result 1/2-1/2");
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn delimiters_in_sixteen_bytes_are_the_delimiters() {
        for b in 0..=255u8 {
            for k in 0..16 {
                let mut bytes = [b'a'; 16];
                bytes[k] = b;
                let expected = if is_delimiter(b) { 1 << k } else { 0 };
                assert_eq!(delimiters_in(&bytes), expected, "byte {b:#x} at {k}");
            }
        }
    }

    #[test]
    fn move_numbers_glued_spaced_or_before_a_delimiter() {
        let text = "1.e4 1...e5 2. Nf3{c} 2...Nc6 3.{x} Bb5 3...\ta6 4.$1 O-O 10.Ba4!? 10...";
        let g = games(text);
        let moves: Vec<&str> = g[0].iter().filter_map(|e| e.strip_prefix("san ")).collect();
        let at = |san: &str| format!("{san}@{}", text.find(san).unwrap());
        assert_eq!(
            moves,
            [at("e4"), at("e5"), at("Nf3"), at("Nc6"), at("Bb5"), at("a6"), at("O-O"), at("Ba4")]
        );
        assert!(g[0].contains(&"nag 1".to_string()) && g[0].contains(&"nag 5".to_string()));
        assert_eq!(g[0].iter().filter(|e| e.starts_with("comment")).count(), 2);
        // Move 1 after an empty line starts a game, glued or not; another
        // number does not.
        let g = games("1.e4 e5\n\n1.d4 d5\n\n2.c4 *");
        assert_eq!(g.len(), 2);
        assert_eq!(sans(&g[1]), ["d4", "d5", "c4"]);
        let g = games("1.e4 e5\n\n1. d4 *");
        assert_eq!(g.len(), 2);
    }

    #[test]
    fn comments_variations_nags() {
        let text = "1. e4 {best by test\n[%clk 0:03:00]} e5 ; eol comment (x)\n2. Nf3!? $14 (2. f4 (2. d4) exf4) Nc6?? 0-1";
        let g = games(text);
        assert_eq!(sans(&g[0]), ["e4", "e5", "Nf3", "Nc6"]);
        assert!(g[0].contains(&"comment best by test\n[%clk 0:03:00]".to_string()));
        assert!(g[0].contains(&"comment eol comment (x)".to_string()));
        let nags: Vec<&String> = g[0].iter().filter(|e| e.starts_with("nag")).collect();
        assert_eq!(nags, ["nag 5", "nag 14", "nag 4"]);
        assert_eq!(g[0].last().unwrap(), "result 0-1");
    }

    #[test]
    fn games_end_at_next_tags_without_blank_line() {
        let g = games("[Event \"a\"]\n1. e4 e5\n[Event \"b\"]\n1. d4 *\n[Event \"c\"] 1. c4 1-0");
        assert_eq!(g.len(), 3);
        assert_eq!(sans(&g[0]), ["e4", "e5"]);
        assert_eq!(g[0].last().unwrap(), "result none");
        assert_eq!(sans(&g[2]), ["c4"]);
    }

    #[test]
    fn header_only_games_and_blank_line_inside_tags() {
        // Repeated names after a blank line: two games; new names: one game.
        let g = games("[Event \"a\"]\n[White \"x\"]\n\n[Event \"b\"]\n[White \"y\"]\n");
        assert_eq!(g.len(), 2);
        let g = games("[Event \"a\"]\n\n[White \"x\"]\n\n1. e4 *");
        assert_eq!(g.len(), 1);
        assert_eq!(sans(&g[0]), ["e4"]);
    }

    #[test]
    fn a_repeated_name_after_a_blank_line_is_found_among_many_tags() {
        // More names than the list searched alone: the set answers.
        let many: String = (0..SeenNames::LIST * 3).map(|i| format!("[T{i} \"x\"]\n\n")).collect();
        let g =
            games(&format!("{many}[T0 \"again\"]\n\n[T{} \"new\"]\n1. e4 *", SeenNames::LIST * 3));
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].iter().filter(|e| e.starts_with("tag ")).count(), SeenNames::LIST * 3);
        assert_eq!(g[1][1], "tag T0=again");
        assert_eq!(sans(&g[1]), ["e4"]);
    }

    #[test]
    fn malformed_tags_on_one_line_are_each_reported() {
        // Each stops at the next `[` of the line, whose end is searched once.
        let g = games("[[x [ \"y\"][A \"b\"]\n1. e4 *");
        assert_eq!(g.len(), 1);
        let syntax: Vec<&String> = g[0].iter().filter(|e| e.starts_with("syntax")).collect();
        assert_eq!(
            syntax,
            [
                "syntax malformed tag pair@0",
                "syntax malformed tag pair@1",
                "syntax malformed tag pair@4"
            ]
        );
        assert_eq!(g[0].iter().find(|e| e.starts_with("tag ")).unwrap(), "tag A=b");
        assert_eq!(sans(&g[0]), ["e4"]);
    }

    #[test]
    fn a_long_gap_of_junk_is_listed_up_to_a_bound_then_as_one_stretch() {
        let junk = "junk line\n".repeat(Reader::LISTED_SKIPS + 50);
        let text = format!("{junk}[Event \"a\"]\n1. e4 *\nmore junk\n[Event \"b\"]\n1. d4 *");
        let mut reader = Reader::new(text.as_bytes());
        assert!(reader.read_game(&mut Log::default()).is_some());
        let skipped = reader.skipped();
        assert_eq!(skipped.len(), Reader::LISTED_SKIPS);
        assert_eq!(skipped[0], (0, 9));
        let (at, len) = skipped[Reader::LISTED_SKIPS - 1];
        assert_eq!(at, (Reader::LISTED_SKIPS - 1) * 10);
        assert_eq!(at + len, junk.len() - 1, "the last stretch reaches the gap's last line");
        // The next gap is listed afresh.
        assert!(reader.read_game(&mut Log::default()).is_some());
        let more = text.find("more junk").unwrap();
        assert_eq!(reader.skipped(), [(more, 9)]);
    }

    #[test]
    fn several_tags_per_line_and_brackets_in_values() {
        let g = games("[A \"x]y\"] [B \"[z\"][C \"\"]");
        assert_eq!(g[0][1..4], ["tag A=x]y", "tag B=[z", "tag C="]);
    }

    /// The tags and the syntax problems of the first game of `text`.
    fn tags_and_problems(text: &str) -> (Vec<String>, Vec<String>) {
        let game = games(text).swap_remove(0);
        let of = |prefix: &str| {
            game.iter().filter_map(|e| e.strip_prefix(prefix)).map(str::to_string).collect()
        };
        (of("tag "), of("syntax "))
    }

    #[test]
    fn a_stray_quote_is_kept_in_its_value_with_a_warning() {
        let stray = format!("{STRAY_QUOTE}@");
        for (text, tags, problems) in [
            (
                "[TimeControl \"90' + 30' & 30\"\"]\n[White \"x\"]\n\n1. e4 *",
                &["TimeControl=90' + 30' & 30\"", "White=x"][..],
                vec![format!("{stray}28")],
            ),
            // Several, a `]` and escapes in the value, spaces before `]`.
            ("[A \"a \"b] \\\"c\\\" d\"  ]\n", &["A=a \"b] \"c\" d"], vec![format!("{stray}6")]),
            // An escaped quote is no stray one, an escaped backslash ends
            // no escape.
            ("[A \"x\\\"]\"]\n", &["A=x\"]"], vec![]),
            ("[A \"x\\\\\"y\"]\n", &["A=x\\\"y"], vec![format!("{stray}7")]),
            // Two pairs on a line: the first `"` before a `]` closes.
            ("[A \"x\"y\"] [B \"z\"]\n", &["A=x\"y", "B=z"], vec![format!("{stray}5")]),
            // A `"` before the next pair's `[`: a `]` left out, as before.
            ("[A \"x\" [B \"z\"]\n", &["B=z"], vec!["malformed tag pair@0".into()]),
            ("[A \"x\"y\" [B \"z\"]\n", &["B=z"], vec!["malformed tag pair@0".into()]),
            // Within its line, whatever ends it.
            (
                "[A \"x\"y\"]\r\n[B \"x\"\"]\r\n\r\n1. e4 *",
                &["A=x\"y", "B=x\""],
                vec![format!("{stray}5"), format!("{stray}16")],
            ),
            ("[A \"x\"y\n[B \"z\"]", &["B=z"], vec!["malformed tag pair@0".into()]),
            ("[A \"x\"y\r[B \"z\"]", &["B=z"], vec!["malformed tag pair@0".into()]),
            ("[A \"x\"y\\\n[B \"z\"]", &["B=z"], vec!["malformed tag pair@0".into()]),
            // A value whose first `"` is past a lone `\r` has left its line.
            (
                "[A \"x\ry\" z\"]\r[B \"z\"]",
                &[],
                vec!["malformed tag pair@0".into(), "']' outside a tag@11".into()],
            ),
        ] {
            let (read, found) = tags_and_problems(text);
            assert_eq!(read, tags, "{text:?}");
            assert_eq!(found, problems, "{text:?}");
        }
    }

    #[test]
    fn a_line_of_stray_quotes_is_searched_once() {
        let line = "[A \"x\"y ".repeat(1000);
        let data = line.as_bytes();
        let mut ends = ValueEnds::default();
        for (i, _) in line.match_indices('[') {
            assert!(parse_tag(data, i, &mut ends).is_none());
            // Every pair after the first is answered by the first search.
            assert_eq!(ends.0, Some((6, data.len(), false)), "pair at {i}");
        }
    }

    #[test]
    fn garbage_between_games_is_skipped() {
        let text =
            "<html>junk</html>\n[Event \"a\"]\n1. e4 *\nThis is not chess.\n[Event \"b\"]\n1. d4 *";
        let mut reader = Reader::new(text.as_bytes());
        let mut n = 0;
        while reader.read_game(&mut Log::default()).is_some() {
            n += 1;
        }
        assert_eq!(n, 2);
        let skipped = reader.skipped();
        assert_eq!(skipped.len(), 2);
        assert_eq!(&text[skipped[0].0..skipped[0].0 + skipped[0].1], "<html>junk</html>");
    }

    #[test]
    fn unterminated_comment_does_not_swallow_next_game() {
        let g = games("[Event \"a\"]\n1. e4 { oops\n\n[Event \"b\"]\n1. d4 *");
        assert_eq!(g.len(), 2);
        assert!(g[0].iter().any(|e| e.starts_with("syntax unterminated comment")));
        assert_eq!(sans(&g[1]), ["d4"]);
    }

    #[test]
    fn deep_variations_without_recursion() {
        let mut text = String::from("1. e4 ");
        text.push_str(&"(".repeat(100_000));
        text.push_str(&")".repeat(100_000));
        text.push_str(" e5 *");
        let g = games(&text);
        assert_eq!(sans(&g[0]), ["e4", "e5"]);
    }

    #[test]
    fn tagless_game_after_blank_line_starts_at_move_one() {
        let g = games("[Event \"a\"]\n1. e4 e5 2. Nf3 {c}\n\n1. d4 d5 *");
        assert_eq!(g.len(), 2);
        assert_eq!(sans(&g[0]), ["e4", "e5", "Nf3"]);
        assert_eq!(sans(&g[1]), ["d4", "d5"]);
    }

    #[test]
    fn odd_move_numbers_and_noise() {
        let g = games("1. e4 ... e5 2 Nf3 2… … Nc6 3. Bb5 \\$14 a6 *");
        assert_eq!(sans(&g[0]), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
        assert!(g[0].contains(&"nag 14".to_string()));
        let g = games("1. e4 0000 2. d4 *");
        assert_eq!(sans(&g[0]), ["e4", "0000", "d4"]);
    }

    #[test]
    fn draw_offer_mark_and_ep_token() {
        let g = games("1. e4 (=) d5 2. exd5 e.p. *");
        assert_eq!(sans(&g[0]), ["e4", "d5", "exd5"]);
    }

    #[test]
    fn line_index() {
        let text = b"a\nbc\r\nd\re";
        let mut idx = LineIndex::new(text);
        assert_eq!(idx.locate(0), (1, 1));
        assert_eq!(idx.locate(3), (2, 2));
        assert_eq!(idx.locate(6), (3, 1));
        assert_eq!(idx.locate(8), (4, 1));
        assert_eq!(idx.locate(2), (2, 1));
        assert_eq!(idx.locate(8), (4, 1));
        assert_eq!(idx.locate(1), (1, 2));
        let mut bom = LineIndex::new(b"\xef\xbb\xbf1. e4\n2. d4");
        assert_eq!(bom.locate(3), (1, 1));
        assert_eq!(bom.locate(6), (1, 4));
        assert_eq!(bom.locate(9), (2, 1));
    }

    /// Line and column by a walk from the start, the definition.
    fn naive_locate(data: &[u8], offset: usize) -> (usize, usize) {
        let (mut line, mut start, mut i) = (1, 0, 0);
        while i < offset {
            let next = match data[i] {
                b'\r' if data.get(i + 1) == Some(&b'\n') => i + 2,
                b'\r' | b'\n' => i + 1,
                _ => {
                    i += 1;
                    continue;
                }
            };
            if next > offset {
                break;
            }
            line += 1;
            start = next;
            i = next;
        }
        (line, offset - start + 1)
    }

    proptest::proptest! {
        #[test]
        fn a_plain_tag_reads_as_any_tag_does(
            body in proptest::collection::vec(proptest::sample::select(vec![
                b'E', b'v', b'_', b'1', b' ', b'\t', b'"', b'\\', b'[', b']', b'\n', b'\r', b'!', 0x01, 0xc3,
            ]), 0..60),
        ) {
            // Mostly well-formed pairs, with each kind of byte that could
            // end a name or a value early.
            let mut data = b"[Event \"".to_vec();
            data.extend_from_slice(&body);
            data.extend_from_slice(b"\"]\n[Site \"x\"]\n");
            let plain_value = !body.iter().any(|b| matches!(b, b'"' | b'\\' | b'\n'));
            proptest::prop_assert!(!plain_value || parse_plain_tag(&data, 0).is_some());
            for text in [&data[..], &data[7..]] {
                let mut text = text.to_vec();
                text[0] = b'[';
                let plain = parse_plain_tag(&text, 0);
                if plain.is_some() {
                    let any = parse_any_tag(&text, 0, &mut ValueEnds::default());
                    proptest::prop_assert_eq!(plain, any);
                }
            }
        }

        #[test]
        fn line_index_agrees_with_a_walk_from_the_start(
            data in proptest::collection::vec(proptest::sample::select(vec![b'a', b'\n', b'\r']), 0..300),
            queries in proptest::collection::vec(0usize..301, 1..20),
        ) {
            let mut index = LineIndex::new(&data);
            for q in queries {
                let q = q.min(data.len());
                proptest::prop_assert_eq!(index.locate(q), naive_locate(&data, q), "offset {}", q);
            }
        }
    }

    #[test]
    fn comment_holding_a_tag_line_is_a_comment() {
        let g = games("1. e4 {see\n[Event \"x\"]\n} e5 *");
        assert_eq!(g.len(), 1);
        assert_eq!(sans(&g[0]), ["e4", "e5"]);
        // But an unclosed comment ends at the tag line when a later `{`
        // shows that it was never closed.
        let g = games("1. e4 {oops\n[Event \"x\"]\n1. d4 {c} *");
        assert_eq!(g.len(), 2);
        assert_eq!(sans(&g[1]), ["d4"]);
    }

    #[test]
    fn input_ending_after_a_backslash_in_a_tag() {
        let g = games("[Event \"abc\\");
        assert_eq!(g.len(), 1);
        assert!(g[0].iter().any(|e| e.starts_with("syntax malformed tag pair")));
    }
}
