//! A movetext written in English descriptive notation cut into its moves
//! and comments ([`tokens`]): a move there may span several words
//! (`B-B4 dis ch`, `PxP e.p.`, `Castles KR`), which the PGN tokenizer's
//! SAN tokens split. What each move means is `notation::descriptive`'s.

use crate::notation::descriptive::MARKS;

/// One item of a movetext, as [`tokens`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token<'a> {
    /// A move with its words (`PxP e.p.`, `Castles (Q)`, `R(QB1)-Q1`), and
    /// the byte offset of its first word.
    Move(String, usize),
    /// A comment's text without its braces or `;`.
    Comment(&'a [u8]),
}

/// Reads a movetext into its moves and comments, lazily (a reader stops at
/// its first bad move without reading the rest). Move numbers (`1.`,
/// `1...`, `1`), NAGs, `!`/`?`, `%` lines, the draw-offer mark `(=)` and
/// variations are dropped; a result (`1-0`, `0-1`, `1/2-1/2`, `½-½`, `*`)
/// ends it. Words that only qualify a move — check marks (`ch`, `dis`,
/// `mate`, `+`, `#`), `e.p.`, a castling side after `Castles` (`KR`,
/// `QR`), `sq` (`R-Q sq`), a short parenthesised square or piece (`(QB1)`,
/// `(Q)`) — join the move before them (unless a comment comes between), as
/// do the parts of a move written with spaces around its sign (`Kt x P`,
/// `P - K4`); a `(` opens a variation otherwise. Commas separate like
/// spaces.
///
/// ```
/// use pgnindex::pgn::descriptive::{tokens, Token};
/// let moves: Vec<String> = tokens(b"1. P-K4 {best} P-K4 2 P-Q4 (2 N-KB3) PxP e.p. 1-0")
///     .filter_map(|t| match t {
///         Token::Move(m, _) => Some(m),
///         Token::Comment(_) => None,
///     })
///     .collect();
/// assert_eq!(moves, ["P-K4", "P-K4", "P-Q4", "PxP e.p."]);
/// ```
pub fn tokens(text: &[u8]) -> Tokens<'_> {
    Tokens { text, at: 0, pending: None, queued: None }
}

/// The iterator of [`tokens`].
#[derive(Debug, Clone)]
pub struct Tokens<'a> {
    text: &'a [u8],
    at: usize,
    /// The last move read, which the next words may still join.
    pending: Option<(String, usize)>,
    /// A comment read after `pending`, given after it.
    queued: Option<&'a [u8]>,
}

/// What [`Tokens::scan`] finds next.
enum Item<'a> {
    Word(&'a [u8], usize),
    Qualifier(&'a [u8]),
    Comment(&'a [u8]),
}

impl<'a> Tokens<'a> {
    /// The next word, comment or parenthesised qualifier; `None` at the
    /// end or at a result.
    fn scan(&mut self) -> Option<Item<'a>> {
        let text = self.text;
        while self.at < text.len() {
            let i = self.at;
            match text[i] {
                // Some books put commas between moves.
                b if b.is_ascii_whitespace() || b == b',' => self.at += 1,
                b'{' => {
                    let end =
                        memchr::memchr(b'}', &text[i + 1..]).map_or(text.len(), |e| i + 1 + e);
                    self.at = end + 1;
                    return Some(Item::Comment(&text[i + 1..end]));
                }
                b';' => {
                    self.at = line_end(text, i);
                    return Some(Item::Comment(&text[i + 1..self.at]));
                }
                b'%' if i == 0 || matches!(text[i - 1], b'\n' | b'\r') => {
                    self.at = line_end(text, i);
                }
                b'$' => {
                    self.at += 1;
                    while self.at < text.len() && text[self.at].is_ascii_digit() {
                        self.at += 1;
                    }
                }
                b'(' => {
                    if let Some(n) = qualifier_group(&text[i..]) {
                        self.at += n;
                        return Some(Item::Qualifier(&text[i..i + n]));
                    } else if text[i..].starts_with(b"(=)") {
                        self.at += 3;
                    } else {
                        self.at = skip_variation(text, i);
                    }
                }
                b')' | b'}' => self.at += 1,
                _ => {
                    let end = word_end(text, i);
                    self.at = end;
                    let word = &text[i..end];
                    if super::GameResult::from_ascii(word).is_some() {
                        self.at = text.len();
                        return None;
                    }
                    let (word, offset) = strip_number(word, i);
                    let noise = word.is_empty()
                        || word.iter().all(|&c| b"!?.".contains(&c))
                        || word == "…".as_bytes();
                    if !noise {
                        return Some(Item::Word(word, offset));
                    }
                }
            }
        }
        None
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        if let Some(comment) = self.queued.take() {
            return Some(Token::Comment(comment));
        }
        loop {
            let Some(item) = self.scan() else {
                return self.pending.take().map(|(m, offset)| Token::Move(m, offset));
            };
            match item {
                Item::Comment(comment) => match self.pending.take() {
                    Some((m, offset)) => {
                        self.queued = Some(comment);
                        return Some(Token::Move(m, offset));
                    }
                    None => return Some(Token::Comment(comment)),
                },
                // A qualifier with no move before it means nothing.
                Item::Qualifier(q) => {
                    if let Some((m, _)) = &mut self.pending {
                        m.push_str(&String::from_utf8_lossy(q));
                    }
                }
                Item::Word(word, offset) => {
                    if let Some((m, _)) = &mut self.pending {
                        let castles = m.starts_with("Castles") || m.starts_with("castles");
                        // `Kt x P`, `P - K4`: a move cut at its sign.
                        let cut = m.ends_with(['-', 'x', '×'])
                            || word.starts_with(b"-")
                            || word.starts_with(b"x")
                            || word.starts_with("×".as_bytes());
                        if cut || is_mark(word) || (castles && is_castling_side(word)) {
                            m.push(' ');
                            m.push_str(&String::from_utf8_lossy(word));
                            continue;
                        }
                    }
                    let word = String::from_utf8_lossy(word).into_owned();
                    if let Some((m, offset)) = self.pending.replace((word, offset)) {
                        return Some(Token::Move(m, offset));
                    }
                }
            }
        }
    }
}

fn line_end(text: &[u8], from: usize) -> usize {
    memchr::memchr2(b'\n', b'\r', &text[from..]).map_or(text.len(), |e| from + e)
}

/// The end of the word at `start`: the next space, brace, `;`, `$` or `)`,
/// or a `(` that does not open a qualifier glued to the word (`R(QB1)`).
fn word_end(text: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < text.len() {
        match text[i] {
            c if c.is_ascii_whitespace() => break,
            b'{' | b'}' | b';' | b'$' | b')' | b',' => break,
            b'(' => match qualifier_group(&text[i..]) {
                Some(n) => i += n,
                None => break,
            },
            _ => i += 1,
        }
    }
    i
}

/// The length of a parenthesised qualifier at the start of `s` — a square
/// or a piece, `(QB1)`, `(Q)`, `(Q R)`, `(Kt)` — or `None` for a
/// variation.
fn qualifier_group(s: &[u8]) -> Option<usize> {
    let close = s.iter().take(9).position(|&b| b == b')')?;
    let inner = &s[1..close];
    // Spaces and line ends too: an export may break `(Q R)` across lines.
    let letters = inner.iter().filter(|&&b| !b.is_ascii_whitespace() && b != b'.').count();
    let qualifier = (1..=4).contains(&letters)
        && inner.iter().all(|&b| b"KQRBNPt12345678.".contains(&b) || b.is_ascii_whitespace())
        && inner.iter().any(|b| b.is_ascii_uppercase());
    qualifier.then_some(close + 1)
}

/// Skips the variation whose `(` is at `open`, nested ones and comments in
/// it included; the offset after its `)` (or the end of the text).
fn skip_variation(text: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < text.len() {
        match text[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b'{' => {
                i = memchr::memchr(b'}', &text[i..]).map_or(text.len(), |e| i + e);
            }
            b';' => i = line_end(text, i),
            _ => {}
        }
        i += 1;
    }
    text.len()
}

/// Splits a leading move number (`12.`, `12...`, `12…`, a bare `12`) off
/// a word; castling written with zeros (`0-0`) is not a number.
fn strip_number(word: &[u8], offset: usize) -> (&[u8], usize) {
    let digits = word.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return (word, offset);
    }
    let mut i = digits;
    loop {
        match &word[i..] {
            [b'.', ..] => i += 1,
            [0xe2, 0x80, 0xa6, ..] => i += 3,
            _ => break,
        }
    }
    if i == digits && digits < word.len() {
        return (word, offset);
    }
    (&word[i..], offset + i)
}

/// Words that mark a check, mate or en passant, and the `sq` of a first
/// rank (they join their move).
fn is_mark(word: &[u8]) -> bool {
    let word = match word {
        [rest @ .., b'!' | b'?'] if !rest.is_empty() => rest,
        _ => word,
    };
    MARKS.contains(&word)
        || matches!(
            word,
            b"double" | b"disc." | b"disc" | b"dbl." | b"dis.ch." | b"dis.ch" | b"sq" | b"sq."
        )
}

/// The side named after `Castles`: `K`, `KR`, `Q`, `QR` (dots allowed).
fn is_castling_side(word: &[u8]) -> bool {
    let w: Vec<u8> = word.iter().copied().filter(|&b| b != b'.').collect();
    matches!(w.as_slice(), b"K" | b"KR" | b"Q" | b"QR")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(text: &str) -> Vec<String> {
        tokens(text.as_bytes())
            .filter_map(|t| match t {
                Token::Move(m, _) => Some(m),
                Token::Comment(_) => None,
            })
            .collect()
    }

    #[test]
    fn tokens_of_a_movetext() {
        assert_eq!(
            moves(
                "1. P-K4 P-K4 2. Kt-KB3 {a comment (P-Q4)} Kt-QB3 ; to the end\n3 B-B4 $1 B-B4! \
                   (3... P-Q3 (3... N-B3) 4. P-Q4) 4.P-QKt4 BxKtP 5...R(QB1)-Q1 R/QB1-Q1 \
                   P-K8 (Q) Castles (Q R) Castles KR O-O-O B-B4 dis ch Q-R5 dbl. ch. PxP e.p. \
                   Q-R5 mate R-Q sq (=) 1-0 P-K4"
            ),
            [
                "P-K4",
                "P-K4",
                "Kt-KB3",
                "Kt-QB3",
                "B-B4",
                "B-B4!",
                "P-QKt4",
                "BxKtP",
                "R(QB1)-Q1",
                "R/QB1-Q1",
                "P-K8(Q)",
                "Castles(Q R)",
                "Castles KR",
                "O-O-O",
                "B-B4 dis ch",
                "Q-R5 dbl. ch.",
                "PxP e.p.",
                "Q-R5 mate",
                "R-Q sq",
            ]
        );
        // Offsets of the first word; comments kept for their commands.
        let t: Vec<Token> = tokens(b"1. P-K4 {[%clk 0:01:00]} 1... P-K4 ch *").collect();
        assert_eq!(
            t,
            [
                Token::Move("P-K4".into(), 3),
                Token::Comment(b"[%clk 0:01:00]"),
                Token::Move("P-K4 ch".into(), 30),
            ]
        );
        assert_eq!(moves("0-0 0-0-0 12. 0-0 1/2-1/2"), ["0-0", "0-0-0", "0-0"]);
        assert_eq!(moves("P-K4(P-Q4) P-K4 (unclosed"), ["P-K4", "P-K4"]);
        assert_eq!(
            moves("1. P - K4, P-K4, 2. Kt x P, Kt ×P ch"),
            ["P - K4", "P-K4", "Kt x P", "Kt ×P ch"]
        );
    }
}
