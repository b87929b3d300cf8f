//! Stored games written back as PGN in export format: the seven-tag roster
//! first, then the other tags, one per line with `\` and `"` escaped; a
//! blank line; the movetext as written (comments, variations, NAGs kept)
//! re-flowed into lines of at most 80 characters, ending with the result;
//! a blank line. A movetext written back (`games.movetext` NULL) comes in
//! these lines already ([`crate::pgn::movetext::write_movetext`]).
//!
//! Re-flowing keeps every token and comment word in order and changes only
//! white space, by the rule of [`Lines`]: tokens one space apart, a comment
//! written `{ text }` (its words one space apart) and kept on one line when
//! it fits in one. `;` comments become `{ }` comments (a `;` comment runs to
//! the end of its line, which re-flowing would move) unless they contain a
//! `}`; then they stay as they are and end their line. `%` escape lines are
//! dropped. A word longer than a line gets a line of its own, and no line
//! starts with `%` (that would make it an escape line).
//!
//! A game whose replay stopped (`games.error`) gets one comment more, where
//! it stopped: `{ pgnindex: replay stopped here: MESSAGE }` before the move
//! that failed (and its move number; for a game read as descriptive
//! notation, found by its reader), so that the PGN never passes for a
//! whole game. Imported back, it is a comment like any other; a movetext
//! that already has it there is not given a second one.

use std::borrow::Cow;
use std::io::{self, Write};
use std::ops::ControlFlow;

use super::game::Game;
use crate::chess::Position;
use crate::notation::{fen, san};
use crate::pgn::movetext::Lines;
use crate::pgn::{Reader, Visitor};
use crate::replay::descriptive;

pub use crate::pgn::movetext::STOP_MARK;

pub use crate::pgn::movetext::LINE_WIDTH;

/// Writes `game` (with its tags loaded) as one PGN game and a blank line.
///
/// # Errors
/// Errors of `out`.
pub fn write_game(out: &mut impl Write, game: &Game) -> io::Result<()> {
    let mut text = String::with_capacity(game.movetext.len() + 1024);
    for (name, value) in game.tag_pairs() {
        text.push('[');
        text.push_str(name);
        text.push_str(" \"");
        escape_tag_value(&value, &mut text);
        text.push_str("\"]\n");
    }
    text.push('\n');
    let result = game.header.result.as_deref().unwrap_or("*");
    if game.written_back && game.error.is_none() {
        // Written back in these lines already.
        text.push_str(&game.movetext);
    } else {
        wrap_movetext(&marked_movetext(game), result, &mut text);
    }
    text.push_str("\n\n");
    out.write_all(text.as_bytes())
}

/// The game's movetext with the comment that marks where its replay
/// stopped, if it did.
pub fn marked_movetext(game: &Game) -> Cow<'_, str> {
    let Some(error) = &game.error else { return Cow::Borrowed(&game.movetext) };
    let movetext = game.movetext.as_str();
    // The move that failed is the mainline move after the stored ones;
    // read as the import read it, by the same tokenizer (descriptive
    // notation's for a game read so).
    let mut finder = NthMove { n: game.ply_count, offset: None };
    let found = descriptive_stop(game)
        .or_else(|| Reader::new(movetext.as_bytes()).read_game(&mut finder).flatten());
    let at = match found {
        Some(offset) => before_move_number(movetext, offset),
        // No move at all (a bad FEN tag stops the game before its moves).
        None if game.ply_count == 0 => leading_comments_end(movetext),
        // No move after the stored ones (a row changed by hand).
        None => result_start(movetext),
    };
    let before = movetext[..at].trim_end();
    // The mark right before: a comment that starts with it and runs to
    // the end of `before` (a `{` may be inside, a `}` may not), spaces as
    // any export may have re-flowed them (a line end after the mark's `:`).
    let mark = STOP_MARK.trim_end();
    let already = before.strip_suffix('}').is_some_and(|b| {
        b.rfind(mark).is_some_and(|at| {
            b[..at].trim_end().ends_with('{')
                && b[at + mark.len()..].starts_with(char::is_whitespace)
                && !b[at..].contains('}')
        })
    });
    if already {
        return Cow::Borrowed(movetext);
    }
    // A `}` would end the comment early: the message is one line, and a
    // `}` in it (from a FEN tag or a move as written) is shown as `)`.
    let message: String = error
        .chars()
        .map(|c| match c {
            '}' => ')',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    let space = if before.len() < at || at == 0 { "" } else { " " };
    Cow::Owned(format!("{}{space}{{{STOP_MARK}{message}}} {}", &movetext[..at], &movetext[at..]))
}

/// The offset of the move that stopped a game read as descriptive
/// notation: the stored moves are the ones its movetext plays as
/// descriptive notation before an error. `None` for other games (and for a
/// game stopped at its first move, which both notations find alike).
fn descriptive_stop(game: &Game) -> Option<usize> {
    if game.ply_count == 0 {
        return None;
    }
    let start = match &game.start_fen {
        Some(text) => fen::parse_position(text).ok()?,
        None => Position::new(),
    };
    let replay = descriptive::read(&start, game.movetext.as_bytes());
    let (offset, _) = replay.error?;
    if replay.moves.len() != game.ply_count as usize {
        return None;
    }
    let mut pos = start;
    let mut stored = game.moves.split_ascii_whitespace();
    for m in replay.moves {
        if stored.next() != Some(san::to_san(&pos, m).as_str()) {
            return None;
        }
        pos.play_unchecked(m);
    }
    Some(offset)
}

/// Finds the byte offset of the mainline move after the first `n`.
struct NthMove {
    n: u32,
    offset: Option<usize>,
}

impl<'a> Visitor<'a> for NthMove {
    type Output = Option<usize>;

    fn san(&mut self, _san: &'a [u8], offset: usize) -> ControlFlow<()> {
        if self.n == 0 {
            self.offset = Some(offset);
            return ControlFlow::Break(());
        }
        self.n -= 1;
        ControlFlow::Continue(())
    }

    fn end_game(&mut self) -> Option<usize> {
        self.offset
    }
}

/// Where the move at `offset` starts with its move number, if one is
/// written right before it (`2. Nf6`, `2.Nf6`, `2... Nf6`, `2 Nf6`).
fn before_move_number(movetext: &str, offset: usize) -> usize {
    let before = movetext[..offset].trim_end();
    let rest = before.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '…');
    let number = &before[rest.len()..];
    let starts_token = rest.is_empty() || rest.ends_with(|c: char| c.is_whitespace() || c == ')');
    if number.starts_with(|c: char| c.is_ascii_digit()) && starts_token {
        rest.len()
    } else {
        offset
    }
}

/// Where the movetext's result token starts, or its end without one.
fn result_start(movetext: &str) -> usize {
    let text = movetext.trim_end();
    let last = text.rsplit(char::is_whitespace).next().unwrap_or("");
    if matches!(last, "1-0" | "0-1" | "1/2-1/2" | "*") {
        text.len() - last.len()
    } else {
        text.len()
    }
}

/// Where the movetext's first token after its leading comments starts (or
/// its end): the game's first move, which a bad start position kept from
/// being played.
fn leading_comments_end(movetext: &str) -> usize {
    let mut at = 0;
    loop {
        let rest = &movetext[at..];
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        match trimmed.strip_prefix('{') {
            Some(comment) => at += 1 + comment.find('}').map_or(comment.len(), |end| end + 1),
            None => return at,
        }
    }
}

/// Appends `value` with `\` and `"` escaped.
fn escape_tag_value(value: &str, out: &mut String) {
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            // A tag line ends at its line end: keep it on one line.
            '\n' | '\r' | '\t' => out.push(' '),
            _ => out.push(c),
        }
    }
}

/// A unit of movetext for line breaking.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece<'a> {
    /// A token outside comments (move, number, NAG, parenthesis, result).
    Word(&'a str),
    /// A brace comment's text (or a `;` comment's, written as one), and
    /// whether it was closed.
    Comment(&'a str, bool),
    /// A `;` comment that must stay one and end its line.
    LineComment(&'a str),
}

/// Splits movetext into pieces.
fn pieces(movetext: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = movetext;
    let mut at_line_start = true;
    while !rest.is_empty() {
        let c = rest.chars().next().unwrap_or(' ');
        if c == '\n' {
            at_line_start = true;
            rest = &rest[1..];
            continue;
        }
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '%' && at_line_start {
            // An escape line: dropped.
            rest = rest.find('\n').map_or("", |i| &rest[i..]);
            continue;
        }
        at_line_start = false;
        match c {
            '{' => {
                let body = &rest[1..];
                match body.find('}') {
                    Some(end) => {
                        out.push(Piece::Comment(&body[..end], true));
                        rest = &body[end + 1..];
                    }
                    None => {
                        out.push(Piece::Comment(body, false));
                        rest = "";
                    }
                }
            }
            ';' => {
                let end = rest.find('\n').unwrap_or(rest.len());
                let comment = rest[..end].trim_end();
                rest = &rest[end..];
                if comment.contains('}') {
                    out.push(Piece::LineComment(comment));
                } else {
                    out.push(Piece::Comment(&comment[1..], true));
                }
            }
            _ => {
                // A token ends at white space or where a comment starts.
                let end = rest.find(|c: char| c.is_whitespace() || c == '{' || c == ';');
                let end = end.unwrap_or(rest.len());
                out.push(Piece::Word(&rest[..end]));
                rest = &rest[end..];
            }
        }
    }
    out
}

/// Appends `movetext` re-flowed to [`LINE_WIDTH`] by the rule of
/// [`Lines`], ending with `result` if the movetext does not end with a
/// result token.
pub fn wrap_movetext(movetext: &str, result: &str, out: &mut String) {
    let mut pieces = pieces(movetext);
    let ends_with_result =
        matches!(pieces.last(), Some(Piece::Word("1-0" | "0-1" | "1/2-1/2" | "*")));
    if !ends_with_result {
        pieces.push(Piece::Word(result));
    }
    let mut lines = Lines::new(out, LINE_WIDTH);
    for piece in pieces {
        match piece {
            Piece::Word(word) => lines.word(word),
            Piece::Comment(text, closed) => lines.comment(text, closed),
            Piece::LineComment(text) => lines.line_comment(text),
        }
    }
    if out.ends_with('\n') {
        out.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Header;

    fn wrap(movetext: &str) -> String {
        let mut out = String::new();
        wrap_movetext(movetext, "*", &mut out);
        out
    }

    #[test]
    fn reflows_tokens_and_comments() {
        assert_eq!(wrap("1. e4  e5\n2. Nf3 *"), "1. e4 e5 2. Nf3 *");
        assert_eq!(
            wrap("1. e4 { a\n  comment } e5 $1 (1... c5) 1-0"),
            "1. e4 { a comment } e5 $1 (1... c5) 1-0"
        );
        assert_eq!(wrap("1. e4 {} e5"), "1. e4 {} e5 *", "result added");
        assert_eq!(wrap("1. e4 {x}e5"), "1. e4 { x } e5 *");
        assert_eq!(wrap("1. e4 { x"), "1. e4 { x *", "a comment never closed");
        assert_eq!(wrap("1. e4 ; rest of line\n e5"), "1. e4 { rest of line } e5 *");
        assert_eq!(wrap("1. e4 ; a } b\n e5"), "1. e4 ; a } b\ne5 *");
        assert_eq!(wrap("% escape\n1. e4\n%x\n e5"), "1. e4 e5 *");
    }

    #[test]
    fn movetexts_written_back_are_in_these_lines_already() {
        use crate::store::format::plies::PlyData;
        let long = "a comment, long enough to be broken over lines: é ü and more words, %one";
        let notes = PlyData {
            clocks: Some("[180,178.6,null,170,169.5,160,150]".into()),
            evals: Some("[17,null,\"#-3\",-120,5]".into()),
            nags: Some("{\"3\":\"$1 $18\"}".into()),
            comments: Some(format!("{{\"2\":\"{long}\",\"6\":\"{long} {long}\"}}")),
            ..PlyData::default()
        };
        let moves = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7";
        let text = super::super::game::written_back(moves, None, "1-0", &notes).unwrap();
        let mut wrapped = String::new();
        wrap_movetext(&text, "1-0", &mut wrapped);
        assert_eq!(wrapped, text);
        assert!(text.lines().count() > 3, "{text}");
        let game = Game {
            movetext: text.clone(),
            written_back: true,
            header: Header { result: Some("1-0".into()), ..Header::default() },
            ..Game::default()
        };
        let mut out = Vec::new();
        write_game(&mut out, &game).unwrap();
        assert!(String::from_utf8(out).unwrap().ends_with(&format!("\n\n{text}\n\n")));
    }

    #[test]
    fn lines_stay_within_80_columns() {
        let mut movetext = String::new();
        for n in 1..=40 {
            movetext += &format!("{n}. Nf3 {{a long comment about this move}} Nf6 ");
        }
        movetext += "1/2-1/2";
        let out = wrap(&movetext);
        assert!(out.lines().all(|l| l.chars().count() <= LINE_WIDTH), "{out}");
        assert!(out.lines().count() > 10);
        let text = |s: &str| s.split_whitespace().collect::<String>();
        assert_eq!(text(&out), text(&movetext), "only white space changes");
        assert!(out.ends_with("1/2-1/2"));
        let long = "x".repeat(100);
        assert_eq!(wrap(&format!("1. e4 {{{long}}}")), format!("1. e4\n{{ {long} }}\n*"));
    }

    #[test]
    fn a_comment_that_fits_in_a_line_is_never_broken() {
        // The comment would end at column 90: it goes to the next line
        // whole (export broke it after `[%clk` before).
        let moves = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6";
        assert_eq!(moves.len(), 71);
        assert_eq!(
            wrap(&format!("{moves} {{[%clk 0:05:05]}} 8. c3 *")),
            format!("{moves}\n{{ [%clk 0:05:05] }} 8. c3 *")
        );
        // Every comment of a long game stays whole on its line.
        let mut movetext = String::new();
        for n in 1..=60 {
            movetext +=
                &format!("{n}. Nf3 {{[%clk 0:0{}:{n:02}]}} {n}... Nf6 {{[%eval 0.{n}]}} ", n % 10);
        }
        let out = wrap(&movetext);
        for line in out.lines() {
            assert!(line.chars().count() <= LINE_WIDTH, "{out}");
            assert_eq!(line.matches('{').count(), line.matches('}').count(), "{out}");
        }
        // Wider than a line: broken at its spaces only.
        let words = "word ".repeat(30);
        let out = wrap(&format!("1. e4 {{{words}}} e5"));
        assert!(out.lines().all(|l| l.chars().count() <= LINE_WIDTH), "{out}");
        assert!(out.starts_with("1. e4 { word word"), "{out}");
        assert!(out.ends_with("\nword } e5 *"), "{out}");
        assert_eq!(out.replace('\n', " "), format!("1. e4 {{ {}}} e5 *", words));
    }

    #[test]
    fn a_stopped_replay_is_marked_before_the_move_that_failed() {
        let marked = |movetext: &str, ply_count: u32| {
            let game = Game {
                movetext: movetext.into(),
                ply_count,
                error: Some("E {x}".into()),
                ..Game::default()
            };
            marked_movetext(&game).into_owned()
        };
        let mark = "{pgnindex: replay stopped here: E {x)}";
        for (movetext, plies, expected) in [
            ("1. e4 e5 2. Nf6 *", 2, format!("1. e4 e5 {mark} 2. Nf6 *")),
            ("1. e4 e5 2.Nf6 *", 2, format!("1. e4 e5 {mark} 2.Nf6 *")),
            ("1 e4 e5 2 Nf6 *", 2, format!("1 e4 e5 {mark} 2 Nf6 *")),
            ("1. e4 {c} 1... Nf4 *", 1, format!("1. e4 {{c}} {mark} 1... Nf4 *")),
            ("1. e4 {c} 1… Nf4 *", 1, format!("1. e4 {{c}} {mark} 1… Nf4 *")),
            ("1. e4 Nf4 *", 1, format!("1. e4 {mark} Nf4 *")),
            ("1. e4 (1. d4 d5) Nf4 *", 1, format!("1. e4 (1. d4 d5) {mark} Nf4 *")),
            ("1. e4 (1. d4) 1... Nf4 *", 1, format!("1. e4 (1. d4) {mark} 1... Nf4 *")),
            ("{intro} 1. e4 *", 0, format!("{{intro}} {mark} 1. e4 *")),
            ("{intro} *", 0, format!("{{intro}} {mark} *")),
            ("e4 e5", 2, format!("e4 e5 {mark} ")),
            ("1. e4 e5 1-0", 2, format!("1. e4 e5 {mark} 1-0")),
            ("1. e4 e5 1-0", 3, format!("1. e4 e5 {mark} 1-0")),
        ] {
            assert_eq!(marked(movetext, plies), expected, "{movetext}");
            assert_eq!(marked(&expected, plies), expected, "marked once: {movetext}");
            // As export writes it: spaced braces, lines broken at spaces.
            let mut exported = String::new();
            wrap_movetext(&expected, "*", &mut exported);
            let exported = exported.replace("here: ", "here:\n");
            assert_eq!(marked(&exported, plies), exported, "marked once: {exported}");
        }
        // Descriptive notation: `ch` is a word of its own, not a move.
        let movetext = "1. P-K4 P-K4 2. B-B4 ch Kt-QB3 3. Kt-B3 *";
        let game = Game {
            movetext: movetext.into(),
            ply_count: 4,
            moves: "e4 e5 Bc4 Nc6".into(),
            error: Some("E {x}".into()),
            ..Game::default()
        };
        let expected = format!("1. P-K4 P-K4 2. B-B4 ch Kt-QB3 {mark} 3. Kt-B3 *");
        assert_eq!(marked_movetext(&game), expected);
        let game = Game { movetext: expected.clone(), ..game };
        assert_eq!(marked_movetext(&game), expected, "marked once");
        let whole = Game { movetext: "1. e4 *".into(), ..Game::default() };
        assert!(matches!(marked_movetext(&whole), Cow::Borrowed("1. e4 *")));
    }

    #[test]
    fn tags_are_escaped_and_rostered_first() {
        let game = Game {
            header: Header {
                white: Some("A \"B\" C\\".into()),
                result: Some("1-0".into()),
                white_elo: Some(2500),
                ..Header::default()
            },
            movetext: "1. e4 1-0".into(),
            tags: vec![("Annotator".into(), "X".into())],
            ..Game::default()
        };
        let mut out = Vec::new();
        write_game(&mut out, &game).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
             [White \"A \\\"B\\\" C\\\\\"]\n[Black \"?\"]\n[Result \"1-0\"]\n\
             [WhiteElo \"2500\"]\n[Annotator \"X\"]\n\n1. e4 1-0\n\n"
        );
    }
}
