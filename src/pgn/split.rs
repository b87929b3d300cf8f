//! Game boundaries: where a block of PGN may be cut so that each piece
//! holds whole games. Used to cut streams into blocks and to split a large
//! input into chunks for parallel workers. No parsing of moves.
//!
//! A boundary is a `[` at the start of a line that opens a whole tag pair,
//! after movetext, and outside any `{…}` comment (a `{` on a `%` escape
//! line opens none; a `;` comment ends with its line anyway). "After
//! movetext" means that the last non-space byte before it is not `]` and
//! that its line holds no `[` outside the `{…}` pairs closed on it: cutting
//! after a tag line, even a malformed one or one that starts in the middle
//! of a line, could split a tag section. Tag lines are read as the reader
//! reads them (a `{` or `;` in a name or value opens nothing). Spaces are
//! the tokenizer's (vertical tab and form feed included). Variations need
//! no tracking: the reader ends an unterminated variation at a tag line
//! too. The rule is deliberately conservative — missing a boundary only
//! makes a chunk larger — and it must never cut where the reader would not
//! end a game (the `pgn` fuzz target checks that).

use super::reader::{bracket_outside_braces, is_space, parse_tag, Bracket, TagPair, ValueEnds};
use super::scan;

/// Scans `data` (which starts at a boundary) and calls `found` with every
/// boundary offset in increasing order; stops early when `found` returns
/// `false`.
pub fn scan_boundaries(data: &[u8], mut found: impl FnMut(usize) -> bool) {
    // Lines end with `\n` (LF, CRLF) — or, in old Mac files, a lone `\r`.
    let newline = if memchr::memchr(b'\n', data).is_none() { b'\r' } else { b'\n' };
    // The reader starts between games, after a byte-order mark: a tag line
    // there is stepped over like any other.
    let first = if data.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
    let mut line = Line { start: 0, clean: true };
    let mut i = 0;
    // Tag values with stray quotes, searched once however often read.
    let mut ends = ValueEnds::default();
    if tag_end(data, first, &mut ends).is_some() {
        i = skip_tag_line(data, first, &mut ends);
        line.clean = false;
    }
    // The last line with text before the one being read.
    let mut text_line = None;
    // A `;` comment is not tracked: in text between games the reader reads
    // `;` as text, and a `{` it seems to hide only makes the scan stricter.
    while let Some(rel) = scan::find3(b'{', b'[', newline, &data[i..]) {
        let at = i + rel;
        match data[at] {
            b'{' => {
                // To the closing brace; an unterminated comment ends, as in
                // the reader, at the next tag line — which is then not a
                // boundary we may use (the reader sees it as the end of a
                // broken comment, and a new game, but stay conservative).
                match scan::find(b'}', &data[at + 1..]) {
                    Some(close) => i = at + 1 + close + 1,
                    None => return,
                }
            }
            b'[' => {
                line.clean = false;
                i = at + 1;
            }
            _ => {
                if data[line.start..at].iter().any(|&b| !is_space(b)) {
                    text_line = Some(line);
                }
                let next = at + 1;
                i = next;
                line = Line { start: next, clean: true };
                match data.get(next) {
                    // An escape line, skipped whole by the reader: a `{` in
                    // it opens nothing.
                    Some(b'%') => {
                        i = line_end(data, next);
                        line.clean = false;
                    }
                    Some(b'[') => {
                        line.clean = false;
                        if follows_text_line(data, at, text_line) {
                            if let Some(first_end) = tag_end(data, next, &mut ends) {
                                if !found(next) {
                                    return;
                                }
                                i = skip_tag_line_after(data, first_end, &mut ends);
                            }
                        } else if let Some(end) = brace_free_line_end(data, next, newline) {
                            // No boundary here, and nothing on the line to
                            // hide one later: read as tag pairs or as text,
                            // it ends the same.
                            i = end;
                        } else if let Some(first_end) = tag_end(data, next, &mut ends) {
                            // Step over the tag pairs of this line, quotes
                            // and all, so that a `{` or `;` inside a value
                            // opens nothing. Only for a whole tag pair: the
                            // reader ends a skipped variation there, but
                            // inside one it reads a line that merely starts
                            // with `[` as text, braces and all.
                            i = skip_tag_line_after(data, first_end, &mut ends);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

/// A line the scan read: where it starts, and whether it is clean — read
/// from its start outside any comment, with no `[` outside the comments
/// closed on it, no escape and no tag pair. A clean line's `{…}` pairs are
/// the ones [`follows_movetext`] finds reading it alone.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    clean: bool,
}

/// [`follows_movetext`] of `data[..at]`, told the last line with text the
/// scan read: when that line is clean and holds the last byte with text,
/// it is not read again (a game's movetext may be one line of kilobytes).
fn follows_text_line(data: &[u8], at: usize, text_line: Option<Line>) -> bool {
    let before = &data[..at];
    let Some(last) = before.iter().rposition(|&b| !is_space(b)) else { return false };
    if before[last] == b']' {
        return false;
    }
    match text_line {
        // A comment that spanned lines would leave a line break in it.
        Some(Line { start, clean: true })
            if start <= last && memchr::memchr2(b'\n', b'\r', &data[start..last]).is_none() =>
        {
            true
        }
        _ => follows_movetext(before),
    }
}

/// The end of the line starting at `at` if it holds no `{`. Only where
/// lines end with `\n`, which no tag value holds: a tag line then ends
/// where its pairs do.
fn brace_free_line_end(data: &[u8], at: usize, newline: u8) -> Option<usize> {
    if newline != b'\n' {
        return None;
    }
    match scan::find2(b'{', newline, &data[at..]) {
        Some(rel) if data[at + rel] == b'{' => None,
        Some(rel) => Some(at + rel),
        None => Some(data.len()),
    }
}

/// Where the reader leaves the tag pairs of the line starting at `at`
/// (with a whole pair, as the caller checked): it reads each pair as the
/// reader does (`;` and `{` inside names and values open nothing), steps
/// over a malformed one to the next `[` on the line or the line end (as
/// the reader does, braces and all), and stops at the first other
/// non-space byte (movetext, for the reader) or at the line end. `ends`
/// keeps what [`parse_tag`] searched in `data`.
fn skip_tag_line(data: &[u8], at: usize, ends: &mut ValueEnds) -> usize {
    match tag_end(data, at, ends) {
        Some(end) => skip_tag_line_after(data, end, ends),
        None => skip_tag_line_from(data, at, ends),
    }
}

/// [`skip_tag_line`] once its first whole tag pair, ending at `end`, was
/// read.
fn skip_tag_line_after(data: &[u8], end: usize, ends: &mut ValueEnds) -> usize {
    let mut i = end;
    while i < data.len() && matches!(data[i], b' ' | b'\t' | 0x0b | 0x0c) {
        i += 1;
    }
    if data.get(i) != Some(&b'[') {
        return i;
    }
    skip_tag_line_from(data, i, ends)
}

/// [`skip_tag_line`] from the `[` at `at`.
fn skip_tag_line_from(data: &[u8], at: usize, ends: &mut ValueEnds) -> usize {
    let mut i = at;
    loop {
        match parse_tag(data, i, ends) {
            Some(TagPair { end, .. }) => {
                i = end;
                while i < data.len() && matches!(data[i], b' ' | b'\t' | 0x0b | 0x0c) {
                    i += 1;
                }
                if data.get(i) != Some(&b'[') {
                    return i;
                }
            }
            None => {
                let end = line_end(data, i);
                match memchr::memchr(b'[', &data[i + 1..end]) {
                    Some(j) => i += 1 + j,
                    None => return end,
                }
            }
        }
    }
}

/// `true` if the bytes around `at` make it a boundary: a whole tag pair
/// starts a line there, after movetext. Whether `at` lies in a comment is
/// not asked: the caller knows it outside any (a reader reached it
/// between games).
pub fn is_boundary_at(data: &[u8], at: usize) -> bool {
    (at == 0 || matches!(data[at - 1], b'\n' | b'\r'))
        && is_tag_start(&data[at..])
        && follows_movetext(&data[..at])
}

/// `true` if a forced cut ([`forced_cut`]) may be made at `at`: a whole
/// tag pair right after a game result. Where a reader meets one between
/// games, the cut breaks no game.
pub fn is_forced_cut_at(data: &[u8], at: usize) -> bool {
    data.get(at) == Some(&b'[') && follows_result(data, at)
}

/// `true` if `data` starts with a whole tag pair `[Name "value"]`, exactly
/// as the reader requires to end a game at a tag line.
fn is_tag_start(data: &[u8]) -> bool {
    tag_end(data, 0, &mut ValueEnds::default()).is_some()
}

/// The end of the whole tag pair that starts at `at`, if one does.
fn tag_end(data: &[u8], at: usize, ends: &mut ValueEnds) -> Option<usize> {
    if data.get(at) != Some(&b'[') {
        return None;
    }
    parse_tag(data, at, ends).map(|tag| tag.end)
}

/// `true` if the reader has left the tag section at the end of `before`,
/// so that a tag line may start a game: the last non-space byte (there
/// must be one) is not `]`, and the line holding it has no `[` outside the
/// `{…}` pairs closed on it, nor a `{` left open. The reader starts a tag
/// section at any `[` outside comments, even in the middle of a line or in
/// text it skips between games, and a malformed tag pair keeps the section
/// going to the end of its line, whatever the line ends with. The line is
/// read as if it started outside any comment (when it starts inside one,
/// more of it counts) and a `;` hides nothing (the reader skips a `;` in
/// text between games): both only make the test stricter.
fn follows_movetext(before: &[u8]) -> bool {
    let Some(last) = before.iter().rposition(|&b| !is_space(b)) else { return false };
    if before[last] == b']' {
        return false;
    }
    let start = memchr::memrchr2(b'\n', b'\r', &before[..last]).map_or(0, |i| i + 1);
    matches!(bracket_outside_braces(&before[start..=last]), Bracket::None)
}

/// The offset of the end of the line holding `at` (its `\n` or `\r`, as
/// the reader ends lines), or the end of `data`.
fn line_end(data: &[u8], at: usize) -> usize {
    memchr::memchr2(b'\n', b'\r', &data[at..]).map_or(data.len(), |n| at + n)
}

/// The first boundary at or after `start + min_len`, scanning from `start`
/// (which must be a boundary); `data.len()` if there is none.
pub fn next_boundary_after(data: &[u8], start: usize, min_len: usize) -> usize {
    let mut cut = data.len();
    scan_boundaries(&data[start..], |at| {
        if at >= min_len {
            cut = start + at;
            false
        } else {
            true
        }
    });
    cut
}

/// A forced cut: where text with no boundary for a long stretch (games
/// written without line breaks) may still be cut, at the first `[` in
/// `from..to` that opens a whole tag pair right after a game result
/// (`1-0`, `0-1`, `1/2-1/2` or `*` after a space). The reader ends a game
/// there unless the `[` is inside a comment or a tag value, which a forced
/// cut does not check: callers use one only after a long stretch without a
/// boundary, trading one possibly broken game for bounded memory.
pub fn forced_cut(data: &[u8], from: usize, to: usize) -> Option<usize> {
    let to = to.min(data.len());
    memchr::memchr_iter(b'[', data.get(from..to)?)
        .map(|i| from + i)
        .find(|&at| follows_result(data, at))
}

/// The last forced cut ([`forced_cut`]) in `data`.
pub fn last_forced_cut(data: &[u8]) -> Option<usize> {
    memchr::memrchr_iter(b'[', data).find(|&at| at > 0 && follows_result(data, at))
}

/// `true` if a tag pair starts at `at`, after a result and spaces. Looks
/// back only as far as a result reaches: no scan of a long token or run of
/// spaces, whatever the junk before `at`.
fn follows_result(data: &[u8], at: usize) -> bool {
    const LOOK_BACK: usize = 16;
    let before = &data[at.saturating_sub(LOOK_BACK)..at];
    let Some(last) = before.iter().rposition(|&b| !is_space(b)) else { return false };
    if last + 1 == before.len() {
        return false;
    }
    let word = &before[..=last];
    [&b"1-0"[..], b"0-1", b"1/2-1/2", b"*"].iter().any(|result| {
        word.ends_with(result)
            && match word.len().checked_sub(result.len() + 1) {
                Some(i) => is_space(word[i]),
                // The result starts the look-back window: the data start only.
                None => before.len() == at,
            }
    }) && is_tag_start(&data[at..])
}

/// The offset of the last boundary in `data`, or 0 if none.
pub fn last_boundary(data: &[u8]) -> usize {
    let mut last = 0;
    scan_boundaries(data, |at| {
        last = at;
        true
    });
    last
}

/// Splits `data` into consecutive pieces of at least `target` bytes each
/// (the last may be shorter), cut only at boundaries.
pub fn chunks(data: &[u8], target: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    scan_boundaries(data, |at| {
        if at - start >= target {
            out.push(start..at);
            start = at;
        }
        true
    });
    out.push(start..data.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forced_cuts_are_tag_pairs_after_a_result() {
        let text = b"[Event \"a\"] 1. e4 e5 1-0 [Event \"b\"] 1. d4 * [Site \"c\"] 1/2-1/2 \
            { 1-0 [x } [Event \"d\"] 0-1 [not a tag] 0-1 [Event \"e\"]";
        let text: &[u8] = text;
        let at =
            |needle: &str| text.windows(needle.len()).position(|w| w == needle.as_bytes()).unwrap();
        assert_eq!(forced_cut(text, 0, text.len()), Some(at("[Event \"b")));
        assert_eq!(forced_cut(text, at("[Event \"b") + 1, text.len()), Some(at("[Site")));
        // Not after a move, not a malformed pair, not past `to`.
        assert_eq!(forced_cut(text, at("[Site") + 1, at("[Event \"e") - 1), None);
        assert_eq!(forced_cut(text, at("[Site") + 1, text.len()), Some(at("[Event \"e")));
        assert_eq!(last_forced_cut(text), Some(at("[Event \"e")));
        assert_eq!(last_forced_cut(&text[..at("[Event \"b")]), None);
        // The result must be a token of its own, wherever it stands.
        let long = format!("{} 1-0 [Event \"x\"]", "y".repeat(100));
        assert_eq!(forced_cut(long.as_bytes(), 0, long.len()), Some(105));
        let glued = format!("{}1-0 [Event \"x\"]", "y".repeat(100));
        assert_eq!(forced_cut(glued.as_bytes(), 0, glued.len()), None);
        assert_eq!(forced_cut(b"* [Event \"x\"]", 0, 14), Some(2));
        assert_eq!(forced_cut(text, text.len() + 5, text.len() + 9), None);
    }

    fn boundaries(text: &str) -> Vec<usize> {
        let mut v = Vec::new();
        scan_boundaries(text.as_bytes(), |at| {
            v.push(at);
            true
        });
        v
    }

    /// The scan as it was written before it kept track of lines: every
    /// tag line parsed, the line before every candidate read again.
    fn reference_boundaries(data: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        let newline = if memchr::memchr(b'\n', data).is_none() { b'\r' } else { b'\n' };
        let first = if data.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
        let ends = &mut ValueEnds::default();
        let mut i = if is_tag_start(&data[first..]) { skip_tag_line(data, first, ends) } else { 0 };
        while let Some(rel) = scan::find2(b'{', newline, &data[i..]) {
            let at = i + rel;
            if data[at] == b'{' {
                match scan::find(b'}', &data[at + 1..]) {
                    Some(close) => i = at + 1 + close + 1,
                    None => break,
                }
                continue;
            }
            let next = at + 1;
            i = next;
            if data.get(next) == Some(&b'%') {
                i = line_end(data, next);
            } else if let Some(first_end) = tag_end(data, next, ends) {
                if follows_movetext(&data[..at]) {
                    out.push(next);
                }
                i = skip_tag_line_after(data, first_end, ends);
            }
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        #[test]
        fn the_scan_finds_what_reading_every_line_again_finds(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "[Event \"a\"]", "[Site \"{;\"]", "[A \"x\\\"\"]", "[B \"", "[", "]", "\"",
                "[C \"x\"{\"]",
                "{", "}", "{ [%clk 0:03:00] }", "%", ";", "\n", "\r", "\r\n", " ", "\n\n",
                "1. e4", "e5", "1-0", "*", "(", ")", "\u{feff}", "x",
            ]), 0..60),
        ) {
            let text = pieces.concat();
            let data = text.as_bytes();
            proptest::prop_assert_eq!(boundaries(&text), reference_boundaries(data));
        }
    }

    #[test]
    fn a_line_entered_inside_a_comment_is_read_again() {
        // The line before the last tag line starts inside a comment: read
        // alone, its `}` hides nothing and its `[` counts.
        let text = "{\n[Event \"a\"]}\n[Event \"b\"]";
        assert_eq!(boundaries(text), reference_boundaries(text.as_bytes()));
        assert!(boundaries(text).is_empty());
    }

    #[test]
    fn cuts_between_games_only() {
        let text =
            "[Event \"a\"]\n[Site \"b\"]\n\n1. e4 *\n\n[Event \"c\"]\n1. d4 *\n[Event \"d\"]\n";
        let b = boundaries(text);
        assert_eq!(b.len(), 2);
        assert!(text[b[0]..].starts_with("[Event \"c\""));
        assert!(text[b[1]..].starts_with("[Event \"d\""));
    }

    #[test]
    fn quotes_in_tags_open_no_comment() {
        let text = "[Event \"{;\"]\n1. e4 {c\n[Event \"fake\"]\n} *\n[Event \"b\"]\n";
        let b = boundaries(text);
        assert_eq!(b.len(), 1, "{b:?}");
        assert!(text[b[0]..].starts_with("[Event \"b\""));
    }

    #[test]
    fn lone_cr_files_have_boundaries() {
        let text = "[Event \"a\"]\r1. e4 *\r\r[Event \"b\"]\r1. d4 *\r";
        assert_eq!(boundaries(text).len(), 1);
    }

    #[test]
    fn an_incomplete_tag_line_is_no_boundary() {
        // Inside a variation the reader ends a game only at a whole tag pair.
        assert!(boundaries("1. e4 (1. d4\n[Event \"abc\n) e5 *\n").is_empty());
        assert!(boundaries("1. e4 (\n[Event \"a\\").is_empty());
    }

    #[test]
    fn never_inside_comments() {
        let text = "1. e4 {\n[Event \"fake\"]\n} e5 ; no brace\n[Event \"real\"]\n1. d4 *";
        let b = boundaries(text);
        assert_eq!(b.len(), 1);
        assert!(text[b[0]..].starts_with("[Event \"real\""));
        // A `{` after a `;` is taken for a comment (the reader reads a `;`
        // between games as text): no boundary, to be safe.
        assert!(boundaries("1. e4 ; {\n[Event \"real\"]\n1. d4 *").is_empty());
        // An unterminated comment: no boundary after it.
        assert!(boundaries("1. e4 { oops\n[Event \"x\"]\n").is_empty());
    }

    #[test]
    fn chunks_cover_everything() {
        let game = "[Event \"a\"]\n1. e4 e5 *\n";
        let text = game.repeat(100);
        let parts = chunks(text.as_bytes(), 100);
        assert!(parts.len() > 10);
        assert_eq!(parts.first().unwrap().start, 0);
        assert_eq!(parts.last().unwrap().end, text.len());
        for w in parts.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            assert!(text[w[1].start..].starts_with("[Event"));
        }
        assert_eq!(last_boundary(text.as_bytes()), text.len() - game.len());
        let next = next_boundary_after(text.as_bytes(), game.len(), 30);
        assert_eq!(next, 3 * game.len());
        assert_eq!(next_boundary_after(text.as_bytes(), 0, text.len()), text.len());
    }
}
