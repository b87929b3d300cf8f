//! Game boundaries: where a block of PGN may be cut so that each piece
//! holds whole games. Used to cut streams into blocks and to split a large
//! input into chunks for parallel workers. No parsing of moves.
//!
//! A boundary is a `[` at the start of a line that opens a tag pair, after
//! movetext, and outside any `{…}` or `;` comment or `%` escape line.
//! "After movetext" means that the last non-space byte before it is not `]`
//! and that its line holds no `[` outside comments: cutting after a tag
//! line, even a malformed one or one that starts in the middle of a line,
//! could split a tag section. Spaces are the tokenizer's (vertical tab and
//! form feed included). Variations need no tracking: the reader ends an
//! unterminated variation at a tag line too. The rule is deliberately conservative —
//! missing a boundary only makes a chunk larger — and it must never cut
//! where the reader would not end a game.

use super::reader::is_space;

/// Scans `data` (which starts at a boundary) and calls `found` with every
/// boundary offset in increasing order; stops early when `found` returns
/// `false`.
pub fn scan_boundaries(data: &[u8], mut found: impl FnMut(usize) -> bool) {
    // Lines end with `\n` (LF, CRLF) — or, in old Mac files, a lone `\r`.
    let newline = if memchr::memchr(b'\n', data).is_none() { b'\r' } else { b'\n' };
    let mut i = 0;
    while let Some(rel) = memchr::memchr3(b'{', b';', newline, &data[i..]) {
        let at = i + rel;
        match data[at] {
            b'{' => {
                // To the closing brace; an unterminated comment ends, as in
                // the reader, at the next tag line — which is then not a
                // boundary we may use (the reader sees it as the end of a
                // broken comment, and a new game, but stay conservative).
                match memchr::memchr(b'}', &data[at + 1..]) {
                    Some(close) => i = at + 1 + close + 1,
                    None => return,
                }
            }
            b';' => i = line_end(data, at),
            _ => {
                let next = at + 1;
                i = next;
                if data.get(next) == Some(&b'%') {
                    // An escape line, skipped whole by the reader: a `{` in
                    // it opens nothing.
                    i = line_end(data, next);
                } else if data.get(next) == Some(&b'[') {
                    // The cheap test first: most tag lines follow another.
                    if follows_movetext(&data[..at]) && is_tag_start(&data[next..]) && !found(next)
                    {
                        return;
                    }
                    // Step over the tag pairs of this line, quotes and all,
                    // so that a `{` or `;` inside a value opens nothing.
                    i = skip_tag_line(data, next);
                }
            }
        }
    }
}

/// The offset after the tag pairs starting at `at` on one line (quoted
/// values skipped with their escapes), or the line end.
fn skip_tag_line(data: &[u8], at: usize) -> usize {
    let mut i = at;
    let mut in_quotes = false;
    while i < data.len() {
        match data[i] {
            b'\\' if in_quotes => i += 1,
            b'"' => in_quotes = !in_quotes,
            b'\n' | b'\r' => return i,
            b'{' | b';' if !in_quotes => return i,
            _ => {}
        }
        i += 1;
    }
    i.min(data.len())
}

/// `true` if `data` starts with a whole tag pair `[Name "value"]`, exactly
/// as the reader requires to end a game at a tag line.
fn is_tag_start(data: &[u8]) -> bool {
    super::reader::parse_tag(data, 0).is_some()
}

/// `true` if the reader has left the tag section at the end of `before`,
/// so that a tag line may start a game: the last non-space byte (there
/// must be one) is not `]`, and the line holding it has no `[` outside
/// `{…}` and `;` comments. The reader starts a tag section at any `[`
/// outside comments, even in the middle of a line, and a malformed tag
/// pair keeps the section going to the end of its line, whatever the line
/// ends with. The line is read as if it started outside any comment: when
/// it starts inside one, more of it counts, so the test is only stricter.
fn follows_movetext(before: &[u8]) -> bool {
    let Some(last) = before.iter().rposition(|&b| !is_space(b)) else { return false };
    if before[last] == b']' {
        return false;
    }
    let start = memchr::memrchr2(b'\n', b'\r', &before[..last]).map_or(0, |i| i + 1);
    let mut line = &before[start..=last];
    loop {
        let Some(i) = memchr::memchr3(b'[', b'{', b';', line) else { return true };
        match line[i] {
            b'[' => return false,
            b';' => return true,
            _ => match memchr::memchr(b'}', &line[i + 1..]) {
                Some(close) => line = &line[i + 1 + close + 1..],
                None => return false,
            },
        }
    }
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

    fn boundaries(text: &str) -> Vec<usize> {
        let mut v = Vec::new();
        scan_boundaries(text.as_bytes(), |at| {
            v.push(at);
            true
        });
        v
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
        let text = "1. e4 {\n[Event \"fake\"]\n} e5 ; {\n[Event \"real\"]\n1. d4 *";
        let b = boundaries(text);
        assert_eq!(b.len(), 1);
        assert!(text[b[0]..].starts_with("[Event \"real\""));
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
