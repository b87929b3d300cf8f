//! Hostile and malformed PGN. The reader must not panic, hang, or lose the
//! good games around bad input, and `pgnindex check` must locate every
//! problem as `FILE:LINE:COL: message`.
//!
//! Library tests drive `Reader` with `Replayer` (or with `Events`, a
//! visitor that records every token). CLI tests run the real binary on
//! files in throw-away directories. Every expected location was counted by
//! hand from the input, in bytes, from 1.
//!

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::ops::ControlFlow;

use crate::common;

use common::{fixture, gzip, run, scratch, twic, xorshift};
use pgnindex::notation::fen;
use pgnindex::pgn::source::{InputName, Source};
use pgnindex::pgn::{
    split, GameResult, LineIndex, RawComment, RawTag, Reader, Skip, Syntax, Visitor,
};
use pgnindex::replay::{GameRecord, ReplayOptions, Replayer};
use similar_asserts::assert_eq;

// ---------------------------------------------------------------------------
// Inputs, visitors and checks the tests share
// ---------------------------------------------------------------------------

/// A game known to be good, placed after the bad part of each input.
const GOOD: &str = "[Event \"good\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n";
/// Plies of [`GOOD`].
const GOOD_PLIES: usize = 6;
/// Final position of [`GOOD`].
const GOOD_FEN: &str = "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4";
/// The standard start position.
const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Reads and replays every game of `data`, tags decoded.
fn replay_all(data: &[u8]) -> Vec<GameRecord> {
    let mut reader = Reader::new(data);
    let mut replayer = Replayer::new(ReplayOptions { tags: true, ..ReplayOptions::default() });
    let mut games = Vec::new();
    while let Some(game) = reader.read_game(&mut replayer) {
        games.push(game);
    }
    games
}

/// The value of tag `name` in `game`, if any.
fn tag<'g>(game: &'g GameRecord, name: &str) -> Option<&'g str> {
    game.tags.iter().find(|&(n, _)| n == name).map(|(_, v)| v)
}

/// Asserts that `game` is [`GOOD`], read in full.
#[track_caller]
fn assert_good(game: &GameRecord) {
    assert_eq!(tag(game, "Event"), Some("good"), "tags: {:?}", game.tags);
    assert_eq!(game.error, None);
    assert_eq!(game.plies(), GOOD_PLIES);
    assert_eq!(fen::write(&game.final_position), GOOD_FEN);
    assert_eq!(game.outcome, Some(GameResult::Unknown));
}

/// Records every token as a line of text, to compare with expectations.
#[derive(Default)]
struct Events {
    /// Enter variations instead of skipping them.
    enter_variations: bool,
    log: Vec<String>,
}

impl<'a> Visitor<'a> for Events {
    type Output = Vec<String>;

    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        self.log.push(format!("tag {}={}", String::from_utf8_lossy(name), value.decode()));
    }

    fn san(&mut self, san: &'a [u8], offset: usize) -> ControlFlow<()> {
        self.log.push(format!("san {}@{offset}", String::from_utf8_lossy(san)));
        ControlFlow::Continue(())
    }

    fn nag(&mut self, nag: u8) {
        self.log.push(format!("nag {nag}"));
    }

    fn comment(&mut self, comment: RawComment<'a>) {
        self.log.push(format!("comment {}", comment.decode()));
    }

    fn begin_variation(&mut self) -> Skip {
        if self.enter_variations {
            self.log.push("(".into());
        }
        Skip(!self.enter_variations)
    }

    fn end_variation(&mut self) {
        self.log.push(")".into());
    }

    fn outcome(&mut self, outcome: Option<GameResult>) {
        self.log.push(format!("result {}", outcome.map_or("none", GameResult::as_str)));
    }

    fn syntax(&mut self, problem: Syntax) {
        self.log.push(format!("syntax {}@{}", problem.message, problem.offset));
    }

    fn end_game(&mut self) -> Vec<String> {
        std::mem::take(&mut self.log)
    }
}

/// The events of every game of `data`.
fn events(data: &[u8]) -> Vec<Vec<String>> {
    events_with(data, false)
}

/// [`events`], entering variations if asked.
fn events_with(data: &[u8], enter_variations: bool) -> Vec<Vec<String>> {
    let mut reader = Reader::new(data);
    let mut visitor = Events { enter_variations, ..Events::default() };
    let mut games = Vec::new();
    while let Some(game) = reader.read_game(&mut visitor) {
        games.push(game);
    }
    games
}

/// The move texts of a game's events, offsets dropped.
fn sans(game: &[String]) -> Vec<&str> {
    game.iter()
        .filter_map(|e| e.strip_prefix("san "))
        .map(|s| s.rsplit_once('@').map_or(s, |(san, _)| san))
        .collect()
}

/// The events of a game that start with `prefix`.
fn with_prefix<'g>(game: &'g [String], prefix: &str) -> Vec<&'g str> {
    game.iter().filter(|e| e.starts_with(prefix)).map(String::as_str).collect()
}

/// Deterministic pseudo-random bytes (xorshift64).
fn xorshift_bytes(len: usize, mut x: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        out.extend_from_slice(&xorshift(&mut x).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// Runs `pgnindex check` on `input` (written to a temporary file) and
/// compares: every line before the summary with `expected`, in which `FILE`
/// stands for the file's path; the summary's counts with `counts` (up to
/// `skipped variants N`; bytes must be the input's length); the exit code.
#[track_caller]
fn check_cli(input: &[u8], expected: &str, counts: &str, code: i32) {
    let dir = scratch();
    let path = dir.write("input.pgn", input);
    let out = run([OsStr::new("check"), path.as_os_str()]);
    let (body, summary) = split_summary(&out.stdout);
    assert_eq!(body, expected.replace("FILE", &path.display().to_string()));
    let prefix = format!("{counts}, bytes {}, time ", input.len());
    assert!(summary.starts_with(&prefix), "summary {summary:?}, expected {prefix:?}…");
    assert_eq!(out.code, code, "stderr: {}", out.stderr);
    assert_eq!(out.stderr, "");
}

/// Splits `check` output into the lines before the summary and the summary.
fn split_summary(stdout: &str) -> (&str, &str) {
    let start = stdout.rfind("games ").expect("no summary line");
    (&stdout[..start], stdout[start..].trim_end())
}

/// Runs `pgnindex fens` on `input`; its stdout.
fn fens_cli(input: &[u8]) -> String {
    let dir = scratch();
    let path = dir.write("input.pgn", input);
    let out = run([OsStr::new("fens"), path.as_os_str()]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    out.stdout
}

/// The `fens` line of [`GOOD`] read as game `number`.
fn good_fens_line(number: usize) -> String {
    format!("{number}\t{GOOD_PLIES}\t{GOOD_FEN}")
}

// ---------------------------------------------------------------------------
// 1. Adversarial inputs
// ---------------------------------------------------------------------------

#[test]
fn one_megabyte_comment() {
    let body = "x".repeat(1 << 20);
    let input = format!("[Event \"c\"]\n\n1. e4 {{{body}}} e5 *\n\n{GOOD}");
    let games = replay_all(input.as_bytes());
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].plies(), 2);
    assert!(games[0].syntax.is_empty(), "{:?}", games[0].syntax);
    assert_good(&games[1]);
    let ev = events(input.as_bytes());
    let comments = with_prefix(&ev[0], "comment ");
    assert_eq!(comments.len(), 1);
    assert_eq!(comments[0].len(), "comment ".len() + (1 << 20));
    let fens = fens_cli(input.as_bytes());
    assert_eq!(fens.lines().last(), Some(good_fens_line(2).as_str()));
}

#[test]
fn hundred_thousand_nested_variations() {
    let input = format!(
        "[Event \"n\"]\n\n1. e4 {}{} e5 *\n\n{GOOD}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let games = replay_all(input.as_bytes());
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].plies(), 2);
    assert!(games[0].syntax.is_empty(), "{:?}", games[0].syntax);
    assert_good(&games[1]);
    // A visitor that enters every variation sees them all, without recursion.
    let ev = events_with(input.as_bytes(), true);
    assert_eq!(ev.len(), 2);
    assert_eq!(ev[0].iter().filter(|e| *e == "(").count(), 100_000);
    assert_eq!(ev[0].iter().filter(|e| *e == ")").count(), 100_000);
    assert_eq!(sans(&ev[0]), ["e4", "e5"]);
    let fens = fens_cli(input.as_bytes());
    assert_eq!(fens.lines().last(), Some(good_fens_line(2).as_str()));
}

#[test]
fn hundred_thousand_unclosed_variations() {
    let input = format!("[Event \"n\"]\n\n1. e4 {} e5 *\n\n{GOOD}", "(".repeat(100_000));
    let open = input.find('(').unwrap();
    let games = replay_all(input.as_bytes());
    assert_eq!(games.len(), 2);
    // The variation swallows the rest of the game, up to the next tags.
    assert_eq!(games[0].plies(), 1);
    assert_eq!(games[0].outcome, None);
    assert_eq!(games[0].syntax.len(), 1);
    assert_eq!(games[0].syntax[0].message, "unterminated variation");
    assert_eq!(games[0].syntax[0].offset, open);
    assert_good(&games[1]);
    // Entering the variations instead of skipping them ends the same way.
    let ev = events_with(input.as_bytes(), true);
    assert_eq!(ev.len(), 2);
    assert_eq!(with_prefix(&ev[0], "syntax ").len(), 1);
    assert!(ev[0].iter().any(|e| e.starts_with("syntax unterminated variation@")));
    assert_eq!(sans(&ev[1]), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
    check_cli(
        input.as_bytes(),
        "FILE:3:7: warning: unterminated variation\n",
        "games 2, ok 2, with errors 0, skipped variants 0",
        0,
    );
}

#[test]
fn ten_megabyte_line_without_newline() {
    // Knights out and back: 4 plies per piece, legal forever; with a
    // comment, a NAG, a variation and a suffix NAG in each piece.
    let piece = "Nf3 {the knight goes out} Nf6 $14 Ng1 (2. Ng5 h6 3. Nf3) Ng8!? ";
    let repeats = (10 << 20) / piece.len() + 1;
    let mut input = String::with_capacity(repeats * piece.len() + 200);
    input.push_str("[Event \"long\"] 1. ");
    for _ in 0..repeats {
        input.push_str(piece);
    }
    input.push_str("* ");
    input.push_str(&GOOD.replace('\n', " "));
    input.push_str(" [Event \"bad\"] 1. Ke3 *");
    assert!(input.len() > 10 << 20);
    assert!(!input.contains(['\n', '\r']));
    let plies = 4 * repeats;
    let long_fen =
        format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - {plies} {}", plies / 2 + 1);

    let games = replay_all(input.as_bytes());
    assert_eq!(games.len(), 3);
    assert_eq!(games[0].error, None);
    assert_eq!(games[0].plies(), plies);
    assert_eq!(fen::write(&games[0].final_position), long_fen);
    assert_good(&games[1]);
    let ke3 = input.rfind("Ke3").unwrap();
    assert_eq!(games[2].error.as_ref().map(|e| e.offset), Some(ke3));

    let expected =
        format!("FILE:1:{}: 1. Ke3: illegal move: no white king can go to e3\n", ke3 + 1);
    check_cli(input.as_bytes(), &expected, "games 3, ok 2, with errors 1, skipped variants 0", 1);
}

#[test]
fn nul_byte_in_movetext_is_an_error_of_that_game_only() {
    let input = format!("[Event \"z\"]\n\n1. e4 e5 \0 2. Nf3 *\n\n{GOOD}");
    let games = replay_all(input.as_bytes());
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].plies(), 2);
    let error = games[0].error.as_ref().expect("the NUL is not a move");
    assert_eq!(input.as_bytes()[error.offset], 0);
    assert_good(&games[1]);
    check_cli(
        input.as_bytes(),
        "FILE:3:10: 2. \0: not a move: unexpected character at the end\n",
        "games 2, ok 1, with errors 1, skipped variants 0",
        1,
    );
}

#[test]
fn nul_byte_in_tag_value_is_kept() {
    let input = format!("[Event \"z\0z\"]\n[White \"\0\"]\n\n1. e4 e5 *\n\n{GOOD}");
    let games = replay_all(input.as_bytes());
    assert_eq!(games.len(), 2);
    assert_eq!(tag(&games[0], "Event"), Some("z\0z"));
    assert_eq!(tag(&games[0], "White"), Some("\0"));
    assert_eq!(games[0].plies(), 2);
    assert_good(&games[1]);
    let fens = fens_cli(input.as_bytes());
    assert_eq!(fens.lines().last(), Some(good_fens_line(2).as_str()));
}

#[test]
fn input_ending_inside_a_tag() {
    let input = format!("{GOOD}\n[Event \"abc");
    let games = replay_all(input.as_bytes());
    assert_eq!(games[0].tags.len(), 1);
    assert_good(&games[0]);
    // The cut tag still opens a game, as a game may have no tags and no
    // moves; it has nothing in it but the warning.
    assert_eq!(games.len(), 2);
    assert!(games[1].tags.is_empty());
    assert_eq!(games[1].plies(), 0);
    assert_eq!(games[1].syntax.len(), 1);
    assert_eq!(games[1].syntax[0].message, "malformed tag pair");
    check_cli(
        input.as_bytes(),
        "FILE:5:1: warning: malformed tag pair\n",
        "games 2, ok 2, with errors 0, skipped variants 0",
        0,
    );
}

#[test]
fn input_ending_in_a_backslash_inside_a_tag() {
    let input = format!("{GOOD}\n[Event \"abc\\");
    let games = replay_all(input.as_bytes());
    assert_good(&games[0]);
    assert_eq!(games.len(), 2);
    assert_eq!(games[1].plies(), 0);
    // The same cut tag seen from inside an unterminated comment.
    let games = replay_all(b"[Event \"c\"]\n\n1. e4 {\n[Event \"abc\\");
    assert_eq!(games[0].plies(), 1);
}

#[test]
fn boundary_scan_of_a_tag_cut_after_a_backslash() {
    let input = format!("{GOOD}\n[Event \"abc\\");
    // No panic. A tag pair cut short is no boundary (the reader ends a game
    // only at a whole tag pair), so the scan finds none.
    assert_eq!(split::last_boundary(input.as_bytes()), 0);
}

#[test]
fn check_on_a_tag_cut_after_a_backslash() {
    let input = format!("{GOOD}\n[Event \"abc\\");
    check_cli(
        input.as_bytes(),
        "FILE:5:1: warning: malformed tag pair\n",
        "games 2, ok 2, with errors 0, skipped variants 0",
        0,
    );
}

#[test]
fn input_ending_inside_a_comment() {
    let input = format!("{GOOD}\n[Event \"x\"]\n\n1. d4 {{abc");
    let games = replay_all(input.as_bytes());
    assert_eq!(games.len(), 2);
    assert_good(&games[0]);
    assert_eq!(games[1].plies(), 1);
    assert_eq!(games[1].outcome, None);
    let ev = events(input.as_bytes());
    assert_eq!(with_prefix(&ev[1], "comment "), ["comment abc"]);
    check_cli(
        input.as_bytes(),
        "FILE:7:7: warning: unterminated comment\n",
        "games 2, ok 2, with errors 0, skipped variants 0",
        0,
    );
}

#[test]
fn random_bytes_between_good_games() {
    // Games enough to make the input's first 64 KiB text (an input that
    // starts with binary data is refused whole), then garbage.
    let lead = (64 << 10) / GOOD.len() + 1;
    let mut input = GOOD.replace("good", "first").repeat(lead).into_bytes();
    input.push(b'\n');
    input.extend(xorshift_bytes(200 << 10, 0x9E37_79B9_7F4A_7C15));
    input.extend_from_slice(b"\n\n");
    input.extend_from_slice(GOOD.as_bytes());
    let games = replay_all(&input);
    assert!(games.len() > lead);
    for first in &games[..lead] {
        assert_eq!(tag(first, "Event"), Some("first"));
        assert_eq!((first.plies(), first.error.as_ref()), (GOOD_PLIES, None));
    }
    assert_good(games.last().unwrap());
    // The garbage may look like games, but none of them plays a move.
    for (i, game) in games[lead..games.len() - 1].iter().enumerate() {
        assert_eq!(game.plies(), 0, "game {} from garbage", lead + i + 1);
        assert_eq!(tag(game, "Event"), None);
    }
    let dir = scratch();
    let path = dir.write("garbage.pgn", &input);
    let out = run([OsStr::new("fens"), path.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), games.len());
    assert_eq!(out.stdout.lines().last(), Some(good_fens_line(games.len()).as_str()));
    let out = run([OsStr::new("check"), path.as_os_str()]);
    let (_, summary) = split_summary(&out.stdout);
    let errors = games.iter().filter(|g| g.error.is_some()).count();
    let counts = format!(
        "games {}, ok {}, with errors {errors}, skipped variants 0, bytes {}, ",
        games.len(),
        games.len() - errors,
        input.len()
    );
    assert!(summary.starts_with(&counts), "{summary:?} vs {counts:?}");
    assert_eq!(out.code, if errors > 0 { 1 } else { 0 });
}

#[test]
fn problems_of_one_game_or_gap_are_listed_up_to_a_bound() {
    use pgnindex::replay::{MAX_SYNTAX, MORE_SYNTAX};
    // A thousand stray brackets in one game: the first problems one by
    // one, then one entry where the unlisted ones begin.
    let brackets = "[".repeat(1000);
    let input = format!("{brackets}\n1. e4 *\n\n{GOOD}");
    let games = replay_all(input.as_bytes());
    assert_eq!(games.len(), 2);
    let syntax = &games[0].syntax;
    assert_eq!(syntax.len(), MAX_SYNTAX + 1);
    assert!(syntax[..MAX_SYNTAX].iter().all(|s| s.message == "malformed tag pair"));
    assert_eq!((syntax[MAX_SYNTAX].offset, syntax[MAX_SYNTAX].message), (MAX_SYNTAX, MORE_SYNTAX));
    assert_eq!(games[0].plies(), 1);
    assert_good(&games[1]);
    // Ten thousand junk lines before a game: `check` lists a hundred, the
    // last one standing for the rest.
    let junk = "not chess\n".repeat(10_000);
    let dir = scratch();
    let path = dir.write("junk.pgn", format!("{junk}{GOOD}").as_bytes());
    let out = run([OsStr::new("check"), path.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (body, _) = split_summary(&out.stdout);
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), pgnindex::pgn::Reader::LISTED_SKIPS, "{body}");
    let file = path.display().to_string();
    assert_eq!(lines[0], format!("{file}:1:1: warning: skipped text between games: 'not chess'"));
    assert_eq!(
        lines[lines.len() - 1],
        format!(
            "{file}:100:1: warning: skipped text between games: 'not chess', and every line up \
             to line 10000"
        )
    );
}

#[test]
fn empty_and_whitespace_only_inputs() {
    for input in [&b""[..], b" \n\t\r\n  \n", b"\n", b"\r\r\r", b"\xef\xbb\xbf"] {
        assert_eq!(replay_all(input).len(), 0, "{input:?}");
        assert_eq!(fens_cli(input), "", "{input:?}");
        check_cli(input, "", "games 0, ok 0, with errors 0, skipped variants 0", 0);
    }
}

#[test]
fn utf8_bom_is_not_part_of_the_first_tag() {
    let input = format!("\u{feff}{GOOD}\n{GOOD}");
    let games = replay_all(input.as_bytes());
    assert_eq!(games.len(), 2);
    assert_good(&games[0]);
    assert_good(&games[1]);
    let fens = fens_cli(input.as_bytes());
    assert_eq!(fens, format!("{}\n{}\n", good_fens_line(1), good_fens_line(2)));
}

#[test]
fn utf8_bom_does_not_shift_columns() {
    // Columns count from the first character after the BOM, as editors do.
    check_cli(
        "\u{feff}1. e4 e5 2. Ke3 *\n".as_bytes(),
        "FILE:1:13: 2. Ke3: illegal move: no white king can go to e3\n",
        "games 1, ok 0, with errors 1, skipped variants 0",
        1,
    );
    check_cli(
        "\u{feff}[Event \"a\"]\n[FEN \"x\"]\n\n1. e4 *\n".as_bytes(),
        "FILE:1:1: FEN tag \"x\": invalid FEN: placement field: unexpected character 'x' \
         at column 1\n",
        "games 1, ok 0, with errors 1, skipped variants 0",
        1,
    );
}

/// Four games with an error, warnings and skipped text, in LF line ends.
const LINE_ENDINGS_INPUT: &str = "\
[Event \"a\"]
[Site \"x\"]

1. e4 e5 2. Nf3 { comment
spanning } Nc6 3. Ke3 *
; a comment line before the junk
junk line
[Event \"b\"]

1. d4 d5 ) 2. c4 {open

[Event \"c\"]
% an escaped line
1. e4 (1. d4

[Event \"d\"]

1. Nf3 Nf6 2. d4 d5 3. Nd2 *
";

/// What `check` says about [`LINE_ENDINGS_INPUT`], whatever its line ends.
const LINE_ENDINGS_EXPECTED: &str = "\
FILE:5:19: 3. Ke3: illegal move: no white king can go to e3
FILE:7:1: warning: skipped text between games: 'junk line'
FILE:10:10: warning: ')' without '('
FILE:10:18: warning: unterminated comment
FILE:14:7: warning: unterminated variation
FILE:18:24: 3. Nd2: ambiguous move: could be Nbd2, Nfd2
";

#[test]
fn locations_are_the_same_for_lf_crlf_and_lone_cr() {
    for (name, end) in [("LF", "\n"), ("CRLF", "\r\n"), ("CR", "\r")] {
        let input = LINE_ENDINGS_INPUT.replace('\n', end);
        let games = replay_all(input.as_bytes());
        assert_eq!(games.len(), 4, "{name}");
        assert_eq!(games[0].plies(), 4, "{name}");
        assert_eq!(games[1].plies(), 3, "{name}");
        assert_eq!(games[2].plies(), 1, "{name}");
        assert_eq!(games[3].plies(), 4, "{name}");
        check_cli(
            input.as_bytes(),
            LINE_ENDINGS_EXPECTED,
            "games 4, ok 2, with errors 2, skipped variants 0",
            1,
        );
    }
}

#[test]
fn line_index_counts_every_line_end_style() {
    let text = b"ab\r\ncd\ref\ngh\n\r\rij";
    let mut lines = LineIndex::new(text);
    let at = |s: &str| text.windows(2).position(|w| w == s.as_bytes()).unwrap();
    assert_eq!(lines.locate(at("ab")), (1, 1));
    assert_eq!(lines.locate(at("cd")), (2, 1));
    assert_eq!(lines.locate(at("ef") + 1), (3, 2));
    assert_eq!(lines.locate(at("gh")), (4, 1));
    assert_eq!(lines.locate(at("ij")), (7, 1));
    // Backwards works too (it starts over).
    assert_eq!(lines.locate(at("cd") + 1), (2, 2));
}

#[test]
fn latin1_tag_values_are_decoded() {
    let input = b"[Event \"Caf\xc3\xa9 \xe9t\xe9\"]\n[White \"M\xfcller, J\xf6rg\"]\n\
[Black \"\x80 \x93q\x94 \\\"\xe0\\\"\"]\n\n1. e4 *\n";
    let expected = [("Event", "Café été"), ("White", "Müller, Jörg"), ("Black", "€ “q” \"à\"")];
    let games = replay_all(input);
    assert_eq!(games.len(), 1);
    let tags: Vec<(&str, &str)> = games[0].tags.iter().collect();
    assert_eq!(tags, expected);
    // The same through RawTag::decode in a visitor.
    let ev = events(input);
    let decoded: Vec<String> = expected.iter().map(|(n, v)| format!("tag {n}={v}")).collect();
    assert_eq!(with_prefix(&ev[0], "tag "), decoded);
}

#[test]
fn a_character_split_across_tag_pairs_is_decoded_piece_by_piece() {
    // Joined, `\xc3` and `\xbb` would be `û`: the pairs must still be read
    // one by one, each invalid byte decoded where it stands.
    let input = b"[Event \"x\xc3\"]\n[\xbbSite \"y\"]\n[N\xc3 \"\xbbV\"]\n\n1. e4 *\n";
    let games = replay_all(&[input.as_slice(), GOOD.as_bytes()].concat());
    assert_eq!(games.len(), 2);
    let tags: Vec<(&str, &str)> = games[0].tags.iter().collect();
    assert_eq!(tags, [("Event", "xÃ"), ("\u{fffd}Site", "y"), ("N\u{fffd}", "»V")]);
    assert_eq!(games[1].plies(), GOOD_PLIES);
}

// ---------------------------------------------------------------------------
// 2. `check`: every error kind, located
// ---------------------------------------------------------------------------

#[test]
fn check_reports_illegal_move() {
    check_cli(
        b"[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. Ng5 d5 5. Bxd5 Nxd5 6. Nxf7 Kxf7 \
7. Qf3+ Ke6 8. Nc3 Na5 9. Ke3 *\n",
        "FILE:3:94: 9. Ke3: illegal move: no white king can go to e3\n",
        "games 1, ok 0, with errors 1, skipped variants 0",
        1,
    );
    // A pinned piece names the pin.
    check_cli(
        b"[Event \"a\"]\n\n1. e4 e5 2. d4 Bb4+ 3. Nc3 Nf6 4. Nd5 *\n",
        "FILE:3:35: 4. Nd5: illegal move: the white knight cannot go to d5 \
without leaving its king in check\n",
        "games 1, ok 0, with errors 1, skipped variants 0",
        1,
    );
}

#[test]
fn illegal_move_onto_own_piece_is_not_blamed_on_check() {
    // From the start, d2 holds a white pawn: no pin, no check involved.
    for (input, san) in [("1. Nd2 *\n", "Nd2"), ("1. Ke2 *\n", "Ke2"), ("1. Bd2 *\n", "Bd2")] {
        let dir = scratch();
        let path = dir.write("input.pgn", input.as_bytes());
        let out = run([OsStr::new("check"), path.as_os_str()]);
        let (body, _) = split_summary(&out.stdout);
        let prefix = format!("{}:1:4: 1. {san}: illegal move: ", path.display());
        assert!(body.starts_with(&prefix), "{body}");
        assert!(!body.contains("check"), "{body}");
        assert_eq!(out.code, 1);
    }
}

#[test]
fn check_reports_ambiguous_move_with_candidates() {
    check_cli(
        b"[Event \"a\"]\n\n1. Nf3 Nf6 2. d4 d5 3. Nd2 *\n",
        "FILE:3:24: 3. Nd2: ambiguous move: could be Nbd2, Nfd2\n",
        "games 1, ok 0, with errors 1, skipped variants 0",
        1,
    );
}

#[test]
fn check_reports_unreadable_move_text() {
    check_cli(
        b"[Event \"a\"]\n\n1. e4 e5 2. e9 *\n\n[Event \"b\"]\n\n1. e4 Nzf6 *\n",
        "FILE:3:13: 2. e9: not a move: no destination square\n\
FILE:7:7: 1... Nzf6: not a move: unexpected characters before the destination\n",
        "games 2, ok 0, with errors 2, skipped variants 0",
        1,
    );
}

#[test]
fn check_reports_missing_promotion_piece() {
    check_cli(
        b"[Event \"a\"]\n[SetUp \"1\"]\n[FEN \"7k/P7/8/8/8/8/8/K7 w - - 0 1\"]\n\n1. a8 *\n",
        "FILE:5:4: 1. a8: illegal move: a pawn reaching the last rank needs a \
promotion piece\n",
        "games 1, ok 0, with errors 1, skipped variants 0",
        1,
    );
}

#[test]
fn check_reports_invalid_fen_for_that_game_only() {
    let input = format!(
        "[Event \"a\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1\"]\n\n\
1. e4 *\n\n{GOOD}"
    );
    check_cli(
        input.as_bytes(),
        "FILE:1:1: FEN tag \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1\": \
invalid FEN: side-to-move field: expected 'w' or 'b', found 'x' at column 45\n",
        "games 2, ok 1, with errors 1, skipped variants 0",
        1,
    );
    let games = replay_all(input.as_bytes());
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].plies(), 0);
    assert_good(&games[1]);
}

#[test]
fn check_counts_unsupported_variant_as_skipped() {
    let input = format!("[Event \"a\"]\n[Variant \"Crazyhouse\"]\n\n1. e4 e5 2. N@f3 *\n\n{GOOD}");
    check_cli(input.as_bytes(), "", "games 2, ok 1, with errors 0, skipped variants 1", 0);
    let fens = fens_cli(input.as_bytes());
    assert_eq!(
        fens,
        format!(
            "1\t0\t{START_FEN}\terror: skipped: variant \"Crazyhouse\" is not standard chess\n{}\n",
            good_fens_line(2)
        ),
    );
}

#[test]
fn check_reports_null_move_while_in_check() {
    check_cli(
        b"[Event \"a\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Qxf7+ -- *\n",
        "FILE:3:30: 3... --: illegal move: a null move is not allowed while in check\n",
        "games 1, ok 0, with errors 1, skipped variants 0",
        1,
    );
}

#[test]
fn check_warns_about_garbage_between_games() {
    let input = format!(
        "<html><body>\n{GOOD}\nThis is not chess, nor is this line, which goes on and on.\n{GOOD}"
    );
    check_cli(
        input.as_bytes(),
        "FILE:1:1: warning: skipped text between games: '<html><body>'\n\
FILE:6:1: warning: skipped text between games: 'This is not chess, nor is this line, whi'\n",
        "games 2, ok 2, with errors 0, skipped variants 0",
        0,
    );
}

#[test]
fn check_warns_about_unterminated_comment_and_variation() {
    let input = format!(
        "[Event \"a\"]\n\n1. e4 {{ never closed\n\n{GOOD}\n[Event \"b\"]\n\n1. d4 d5 2. c4 (2. Nf3\n\n{GOOD}"
    );
    check_cli(
        input.as_bytes(),
        "FILE:3:7: warning: unterminated comment\n\
FILE:11:16: warning: unterminated variation\n",
        "games 4, ok 4, with errors 0, skipped variants 0",
        0,
    );
    let games = replay_all(input.as_bytes());
    assert_eq!(games.len(), 4);
    assert_good(&games[1]);
    assert_eq!(games[2].plies(), 3);
    assert_good(&games[3]);
}

#[test]
fn check_exit_codes() {
    let dir = scratch();
    let good = dir.write("good.pgn", GOOD.as_bytes());
    let bad = dir.write("bad.pgn", b"1. e4 e5 2. Ke3 *\n");

    let out = run([OsStr::new("check"), good.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = run([OsStr::new("check"), good.as_os_str(), bad.as_os_str()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.contains("games 2, ok 1, with errors 1"), "{}", out.stdout);

    // A directory path that does not exist: nothing is read.
    let missing = dir.join("missing").join("dir/");
    let out = run([OsStr::new("check"), good.as_os_str(), missing.as_os_str()]);
    assert_eq!(out.code, 2);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.starts_with(&format!("pgnindex: error: cannot open {}: ", missing.display())),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);

    // A corrupt gzip stream: an input error, not a PGN error.
    let gz = gzip(GOOD.repeat(2000).as_bytes());
    let cut = dir.write("cut.pgn.gz", &gz[..gz.len() / 2]);
    let out = run([OsStr::new("check"), cut.as_os_str(), good.as_os_str()]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("corrupt gzip data"), "{}", out.stderr);
    assert!(out.stdout.contains("with errors 0"), "{}", out.stdout);

    // A file without read permission. Root reads it anyway: skip then.
    let locked = dir.write("locked.pgn", GOOD.as_bytes());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    if std::fs::read(&locked).is_err() {
        let out = run([OsStr::new("check"), locked.as_os_str()]);
        assert_eq!(out.code, 2);
        assert!(out.stderr.contains("locked.pgn"), "{}", out.stderr);
    } else {
        eprintln!("note: running with permission to read a mode-000 file; part skipped");
    }
}

// ---------------------------------------------------------------------------
// 3. Token kinds
// ---------------------------------------------------------------------------

#[test]
fn tag_values_with_escapes() {
    let ev = events(br#"[Event "say \"hi\" \\ bye"] [Site "a\\"] [Round "]["] *"#);
    assert_eq!(
        with_prefix(&ev[0], "tag "),
        [r#"tag Event=say "hi" \ bye"#, r"tag Site=a\", "tag Round=]["]
    );
}

#[test]
fn move_numbers_in_every_form() {
    let input = "1.e4 e5 2. Nf3 2...Nc6 3.Bb5 3… a6 4 Ba4 4. ... Nf6 12.O-O 12…Be7 *";
    let ev = events(input.as_bytes());
    assert_eq!(ev.len(), 1);
    assert_eq!(sans(&ev[0]), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"]);
    // Offsets point at the move itself, after a glued number.
    for e in with_prefix(&ev[0], "san ") {
        let (san, at) = e["san ".len()..].rsplit_once('@').unwrap();
        assert!(input[at.parse::<usize>().unwrap()..].starts_with(san), "{e}");
    }
    let games = replay_all(input.as_bytes());
    assert_eq!(games[0].error, None);
    assert_eq!(games[0].plies(), 10);
}

#[test]
fn suffixes_and_dollar_nags() {
    let input = "1. e4! e5? 2. Nf3!! Nc6?? 3. Bb5!? a6?! 4. Ba4 $14 $0 $255 Nf6 !? $256 *";
    let ev = events(input.as_bytes());
    assert_eq!(sans(&ev[0]), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"]);
    let nags: Vec<&str> = ev[0]
        .iter()
        .filter(|e| e.starts_with("nag ") || e.starts_with("syntax "))
        .map(String::as_str)
        .collect();
    let invalid = format!("syntax invalid NAG@{}", input.find("$256").unwrap());
    assert_eq!(
        nags,
        [
            "nag 1", "nag 2", "nag 3", "nag 4", "nag 5", "nag 6", "nag 14", "nag 0", "nag 255",
            "nag 5", &invalid
        ]
    );
}

#[test]
fn semicolon_comments_and_percent_escapes() {
    let input = "% escaped before the game { ( [\n[Event \"a\"]\n\n1. e4 ; to the end { ( [\n\
% an escape line inside movetext: e5 is not read\ne5 2. Nf3 ; last\r1... Nc6 *\n";
    let ev = events(input.as_bytes());
    assert_eq!(ev.len(), 1);
    assert_eq!(sans(&ev[0]), ["e4", "e5", "Nf3", "Nc6"]);
    assert_eq!(with_prefix(&ev[0], "comment "), ["comment  to the end { ( [", "comment  last"]);
    assert!(with_prefix(&ev[0], "syntax ").is_empty(), "{:?}", ev[0]);
    assert_eq!(ev[0].last().unwrap(), "result *");
}

#[test]
fn every_result_token() {
    let input = "1. e4 1-0\n1. d4 0-1\n1. c4 1/2-1/2\n1. Nf3 *\n1. g3 \u{bd}-\u{bd}\n1. b3\n";
    let ev = events(input.as_bytes());
    let results: Vec<&str> = ev.iter().map(|g| g.last().unwrap().as_str()).collect();
    assert_eq!(
        results,
        ["result 1-0", "result 0-1", "result 1/2-1/2", "result *", "result 1/2-1/2", "result none"]
    );
    let games = replay_all(input.as_bytes());
    let outcomes: Vec<Option<GameResult>> = games.iter().map(|g| g.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Some(GameResult::WhiteWins),
            Some(GameResult::BlackWins),
            Some(GameResult::Draw),
            Some(GameResult::Unknown),
            Some(GameResult::Draw),
            None
        ]
    );
    for game in &games {
        assert_eq!((game.plies(), &game.error), (1, &None));
    }
}

#[test]
fn draw_offer_and_separate_ep_are_not_moves() {
    let input = "1. e4 (=) Nf6 2. e5 d5 3. exd6 e.p. (=) exd6 4. d4 ep *";
    let ev = events(input.as_bytes());
    assert_eq!(sans(&ev[0]), ["e4", "Nf6", "e5", "d5", "exd6", "exd6", "d4"]);
    assert!(!ev[0].iter().any(|e| e.starts_with("syntax ")), "{:?}", ev[0]);
    let ev = events_with(input.as_bytes(), true);
    assert!(!ev[0].iter().any(|e| e == "("), "(=) is not a variation: {:?}", ev[0]);
    let games = replay_all(input.as_bytes());
    assert_eq!(games[0].error, None);
    assert_eq!(games[0].plies(), 7);
    assert_eq!(
        fen::write(&games[0].final_position),
        "rnbqkb1r/ppp2ppp/3p1n2/8/3P4/8/PPP2PPP/RNBQKBNR b KQkq - 0 4"
    );
}

#[test]
fn null_moves_reach_the_visitor_and_replay_as_passes() {
    let input = "1. e4 -- 2. d4 Z0 3. c4 0000 4. Nc3 *";
    let ev = events(input.as_bytes());
    assert_eq!(sans(&ev[0]), ["e4", "--", "d4", "Z0", "c4", "0000", "Nc3"]);
    let games = replay_all(input.as_bytes());
    assert_eq!(games[0].error, None);
    let nulls: Vec<bool> = games[0].moves.iter().map(Option::is_none).collect();
    assert_eq!(nulls, [false, true, false, true, false, true, false]);
    assert_eq!(
        fen::write(&games[0].final_position),
        "rnbqkbnr/pppppppp/8/8/2PPP3/2N5/PP3PPP/R1BQKBNR b KQkq - 2 4"
    );
}

#[test]
fn clock_annotations_stay_inside_comments() {
    let input = "[Event \"a\"]\n\n1. e4 { [%clk 0:03:00] } e5 {\n[%clk 0:02:59]\n[%eval 0.3]\n} \
2. Nf3 {[%clk 0:02:58]} *\n";
    let ev = events(input.as_bytes());
    assert_eq!(ev.len(), 1);
    assert_eq!(sans(&ev[0]), ["e4", "e5", "Nf3"]);
    assert_eq!(
        with_prefix(&ev[0], "comment "),
        [
            "comment  [%clk 0:03:00] ",
            "comment \n[%clk 0:02:59]\n[%eval 0.3]\n",
            "comment [%clk 0:02:58]"
        ]
    );
    assert!(with_prefix(&ev[0], "syntax ").is_empty(), "{:?}", ev[0]);
}

// ---------------------------------------------------------------------------
// 4. Cutting streams into blocks
// ---------------------------------------------------------------------------

/// Writes `fens --every-ply` lines for `source`, read in blocks of about
/// `block_size` bytes cut at [`split::last_boundary`] as the CLI does, with
/// errors located as `display:LINE:COL`. Returns the text and the offset of
/// every block.
fn every_ply_in_blocks(source: Source, block_size: usize, display: &str) -> (String, Vec<u64>) {
    let options = ReplayOptions { keys: true, fens: true, ..ReplayOptions::default() };
    let mut out = String::new();
    let (mut number, mut base_line, mut offsets) = (0usize, 0usize, Vec::new());
    source
        .for_each_block(
            block_size,
            1 << 30,
            |buf, eof| if eof { buf.len() } else { split::last_boundary(buf) },
            |block, offset| {
                offsets.push(offset);
                let mut lines = LineIndex::new(block);
                let mut reader = Reader::new(block);
                let mut replayer = Replayer::new(options);
                while let Some(game) = reader.read_game(&mut replayer) {
                    number += 1;
                    for (ply, (f, k)) in game.fens.iter().zip(&game.keys).enumerate() {
                        writeln!(out, "{number}\t{ply}\t{f}\t{k:016x}").unwrap();
                    }
                    if let Some(pgnindex::replay::Skipped::Variant(variant)) = &game.skipped {
                        writeln!(
                            out,
                            "{number}\terror: skipped: variant \"{variant}\" is not standard chess"
                        )
                        .unwrap();
                    } else if let Some(e) = &game.error {
                        let (line, col) = lines.locate(e.offset);
                        let line = base_line + line;
                        writeln!(out, "{number}\terror: {display}:{line}:{col}: {}", e.message)
                            .unwrap();
                    }
                }
                base_line += lines.locate(block.len()).0 - 1;
                ControlFlow::Continue(())
            },
        )
        .unwrap();
    (out, offsets)
}

/// `fens --every-ply` of the plain file and of its gzipped copy read in
/// blocks of `block_size`: (plain, blocks, block offsets).
fn plain_and_blocks(data: &[u8], block_size: usize) -> (String, String, Vec<u64>) {
    let dir = scratch();
    let plain = dir.write("games.pgn", data);
    let gz = dir.write("games.pgn.gz", gzip(data));
    let out = run([OsStr::new("fens"), OsStr::new("--every-ply"), plain.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let source = Source::open(&InputName::Path(gz)).unwrap();
    let (blocks, offsets) = every_ply_in_blocks(source, block_size, &plain.display().to_string());
    (out.stdout, blocks, offsets)
}

/// Offsets of every boundary [`split::scan_boundaries`] finds in `data`.
fn boundaries(data: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    split::scan_boundaries(data, |at| {
        found.push(at);
        true
    });
    found
}

#[test]
fn gzip_in_small_blocks_reads_like_the_plain_file() {
    let mut data = std::fs::read(twic()).unwrap();
    // Odd games in the middle: errors, a variant, broken comments and
    // variations, CRLF line ends, a comment holding a tag-like line.
    let odd = format!(
        "\n[Event \"odd 1\"]\n\n1. e4 e5 2. Ke3 *\n\n\
[Event \"odd 2\"]\n[Variant \"Atomic\"]\n\n1. e4 *\n\n\
[Event \"odd 3\"]\n\n1. d4 {{ never closed\n\n\
[Event \"odd 4\"]\n\n1. c4 {}{} e5 (1... c5\n\n\
[Event \"odd 5\"]\r\n\r\n1. Nf3 {{ crlf }} d5 2. g3 *\r\n\r\n\
[Event \"odd 6\"]\n\n1. e4 {{\n[Event \"x\"]\n}} c5 2. Nf3 *\n\n",
        "(".repeat(3000),
        ")".repeat(3000)
    );
    data.extend_from_slice(odd.as_bytes());
    data.extend(
        std::fs::read(fixture("pgn/games/tcec/TCEC_Season_22_-_Grob_10x_Odds.pgn")).unwrap(),
    );
    assert!(data.len() > 200 << 10);

    let (plain, blocks, offsets) = plain_and_blocks(&data, 1 << 10);
    assert!(offsets.len() > 100, "only {} blocks", offsets.len());
    assert!(plain.lines().count() > 10_000);
    assert!(plain.contains("error: "), "the odd games have errors");
    assert_eq!(blocks, plain);
}

/// Reads `data` cut into pieces at every boundary (as parallel workers
/// would), each piece on its own: (plies, final FEN, error) per game.
fn read_in_pieces(data: &[u8]) -> Vec<(usize, String, Option<String>)> {
    split::chunks(data, 1)
        .into_iter()
        .flat_map(|range| replay_all(&data[range]))
        .map(|g| (g.plies(), fen::write(&g.final_position), g.error.map(|e| e.message)))
        .collect()
}

/// [`read_in_pieces`] without cutting.
fn read_whole(data: &[u8]) -> Vec<(usize, String, Option<String>)> {
    replay_all(data)
        .into_iter()
        .map(|g| (g.plies(), fen::write(&g.final_position), g.error.map(|e| e.message)))
        .collect()
}

#[test]
fn tag_line_inside_a_comment_is_never_a_boundary() {
    let input = format!("{GOOD}\n[Event \"c\"]\n\n1. e4 {{\n[Event \"x\"]\n}} e5 *\n\n{GOOD}");
    let real = [input.find("[Event \"c\"]").unwrap(), input.rfind("[Event \"good\"]").unwrap()];
    assert_eq!(boundaries(input.as_bytes()), real);
    assert_eq!(read_in_pieces(input.as_bytes()), read_whole(input.as_bytes()));
    // Streamed in blocks as small as can be: cut only at those two.
    let (plain, blocks, offsets) = plain_and_blocks(input.as_bytes(), 1);
    assert!(offsets.len() > 1, "{offsets:?}");
    assert!(offsets[1..].iter().all(|&at| real.contains(&(at as usize))), "{offsets:?}");
    assert_eq!(blocks, plain);
    assert!(blocks.lines().last().unwrap().contains(GOOD_FEN));
}

#[test]
fn incomplete_tag_line_inside_a_variation_is_not_a_boundary() {
    // The reader ends a variation only at a complete tag pair; `[Event "abc`
    // is not one, so `) e5 2. Nf3` still belongs to the first game.
    let input = format!("[Event \"a\"]\n\n1. e4 (1. d4\n[Event \"abc\n) e5 2. Nf3 *\n\n{GOOD}");
    let whole = read_whole(input.as_bytes());
    assert_eq!(whole.len(), 2);
    assert_eq!(whole[0].0, 3);
    assert_eq!(read_in_pieces(input.as_bytes()), whole);
    assert_eq!(boundaries(input.as_bytes()), [input.rfind("[Event \"good\"]").unwrap()]);
}

#[test]
fn fens_output_does_not_depend_on_threads() {
    // Fill up the first 1 MiB chunk, then put the incomplete tag line inside
    // a variation just past it: the first boundary the chunker finds.
    let mut data = GOOD.repeat((1 << 20) / GOOD.len());
    data.push_str("\n[Event \"a\"]\n\n1. e4 (1. d4 ");
    while data.len() < (1 << 20) + 100 {
        data.push_str("{pad} ");
    }
    data.push_str("\n[Event \"abc\n) e5 2. Nf3 *\n\n");
    data.push_str(GOOD);
    let dir = scratch();
    let path = dir.write("games.pgn", data.as_bytes());
    let fens = |threads: &str| {
        let out = run([
            OsStr::new("fens"),
            OsStr::new("--threads"),
            OsStr::new(threads),
            path.as_os_str(),
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let one = fens("1");
    assert!(one.lines().count() > 20_000);
    assert_eq!(fens("2"), one);
}

#[test]
fn boundaries_are_found_with_every_line_end_style() {
    let games = format!("{GOOD}\n{GOOD}\n[Event \"x\"]\n1. d4 d5 *\n{GOOD}");
    let lf = boundaries(games.as_bytes());
    assert_eq!(lf.len(), 3);
    for end in ["\r\n", "\r"] {
        let text = games.replace('\n', end);
        let found = boundaries(text.as_bytes());
        let expected: Vec<usize> =
            lf.iter().map(|&at| at + games[..at].matches('\n').count() * (end.len() - 1)).collect();
        assert_eq!(found, expected, "line end {end:?}");
    }
}
