//! Regression tests for what the fuzz targets (`fuzz/`) found.
//! Each bug has a test with the smallest input that shows it; the inputs
//! as the fuzzer found them are in `fixtures/fuzz/` and go through the same
//! checks as in the `pgn` fuzz target.

use std::ffi::OsStr;

use crate::common;

use common::{arg, files_under, fixture, run, scratch};
use pgnindex::chess::reach::REACH_CAP;
use pgnindex::notation::fen;
use pgnindex::pgn::{split, LineIndex};
use pgnindex::replay::parallel::{read_chunk, Chunk};
use pgnindex::replay::{Reaches, ReplayOptions};
use similar_asserts::assert_eq;

/// Everything recorded, as the fuzz target reads.
const ALL: ReplayOptions = ReplayOptions {
    reaches: Some(Reaches { after: 0, within: REACH_CAP }),
    keys: true,
    fens: true,
    notation: None,
    tags: true,
    commands: true,
    san: true,
    movetext: true,
    openings: true,
    rebuild: true,
};

/// What the CLI prints for a chunk, in order: each game's warnings and the
/// game, then the warnings after the last game; offsets and lines made
/// absolute with `offset` and `line`.
fn output(chunk: &Chunk, offset: usize, line: usize) -> Vec<String> {
    let warning = |(l, c, m): &(usize, usize, String)| format!("warning {}:{c}: {m}", l + line);
    let mut out = Vec::new();
    for g in &chunk.games {
        out.extend(g.warnings.iter().map(warning));
        let r = &g.record;
        out.push(format!(
            "game at {} tags {:?} moves {} final {} error {:?} at {:?}",
            r.offset + offset,
            r.tags,
            r.plies(),
            fen::write(&r.final_position),
            r.error.as_ref().map(|e| (e.offset + offset, &e.message)),
            g.error_at.map(|(l, c)| (l + line, c)),
        ));
    }
    out.extend(chunk.trailing.iter().map(warning));
    out
}

/// `data` read whole.
fn read_whole(data: &[u8]) -> Vec<String> {
    output(&read_chunk(data, 0, ALL), 0, 0)
}

/// `data` read in chunks cut at every boundary the splitter offers, as the
/// parallel reader may cut it.
fn read_cut_everywhere(data: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut base_line = 0;
    for range in split::chunks(data, 1) {
        let chunk = read_chunk(&data[range.clone()], range.start, ALL);
        out.extend(output(&chunk, range.start, base_line));
        base_line += chunk.line_breaks.expect("every line break is counted");
    }
    out
}

/// Asserts that cutting `data` at game boundaries changes nothing.
#[track_caller]
fn assert_cuts_change_nothing(data: &[u8]) {
    assert_eq!(read_cut_everywhere(data), read_whole(data));
}

/// Asserts that the splitter cuts `data` into `chunks` pieces (one game
/// each at the most) and that cutting there changes nothing.
#[track_caller]
fn assert_chunks(data: &[u8], chunks: usize) {
    assert_eq!(split::chunks(data, 1).len(), chunks, "{}", String::from_utf8_lossy(data));
    assert_cuts_change_nothing(data);
}

/// Asserts that `LineIndex` answers every pair of queries (`a` then `b`)
/// over `data` as a fresh index answers `b`.
#[track_caller]
fn assert_line_index_is_history_free(data: &[u8]) {
    for a in 0..=data.len() {
        for b in 0..=data.len() {
            let mut lines = LineIndex::new(data);
            lines.locate(a);
            assert_eq!(lines.locate(b), LineIndex::new(data).locate(b), "locate({a}) then ({b})");
        }
    }
}

/// Found by `pgn`: stepping back to the `\n` of a `\r\n` gave column 1 (the
/// `\r` was taken for a line end), and stepping back from there counted the
/// `\r` before it as a lone `\r` (one line too few).
#[test]
fn line_index_steps_back_into_a_crlf() {
    let mut lines = LineIndex::new(b"ab\r\ncd");
    assert_eq!(lines.locate(5), (2, 2));
    assert_eq!(lines.locate(3), (1, 4));
    assert_eq!(lines.locate(1), (1, 2));
    assert_line_index_is_history_free(b"ab\r\ncd\ref\n\r\n\rg\r\n");
    assert_line_index_is_history_free(b"\xef\xbb\xbf\r\n1.\r\r\n");
}

/// Found by `pgn`: a malformed tag line (here `@` for `]`) keeps the
/// reader in the tag section, but the splitter cut before the next tag
/// line, making two games of one.
#[test]
fn no_cut_after_a_malformed_tag_line() {
    let data = b"[Event \"a\"]\n[White \"x\"@\n[Black \"y\"]\n\n1. e4 *\n";
    assert_eq!(read_whole(data).len(), 2, "one game and its warning: {:?}", read_whole(data));
    assert_chunks(data, 1);
    // Vertical tab and form feed are spaces to the reader, so to the
    // splitter too.
    let data = b"[Event \"a\"]\n\x0b\n[Site \"b\"]\n1. e4 *\n";
    assert_chunks(data, 1);
}

/// Found by `pgn`: a `[` in the middle of a line starts a tag section (the
/// game before ends there); when that tag pair is malformed the section
/// goes on at the next line, where the splitter cut.
#[test]
fn no_cut_after_a_tag_pair_starting_mid_line() {
    let data = b"1. e4 J[Date \"x\n[Round \"r\"]\n1. d4 *\n";
    assert_chunks(data, 1);
    // `[` inside comments is not a tag (lichess clocks): the cut stays.
    let data = b"1. e4 { [%clk 0:01:00] } 1-0\n[Event \"b\"]\n1. d4 *\n";
    assert_chunks(data, 2);
    // A `{` on a `%` escape line opens no comment (the reader skips the
    // line); right before the tag line it still blocks the cut (the line is
    // read as if it could be movetext), one line earlier it does not. A `;`
    // comment ends at a lone `\r`, as the reader's does.
    let data = b"1. e4 *\n% {\n[Event \"b\"]\n1. d4 *\n";
    assert_chunks(data, 1);
    let data = b"1. e4\n% {\n*\n[Event \"b\"]\n1. d4 *\n";
    assert_chunks(data, 2);
    let data = b"1. e4 ; x\r{ c\n[Event \"b\"]\n} *\n";
    assert_cuts_change_nothing(data);
}

/// Found by `pgn`: in text skipped between games the reader started a tag
/// section at the first `[` of the line even between braces, where the
/// splitter saw a comment and cut at the next tag line. The reader now
/// skips `{…}` on such a line as the splitter does.
#[test]
fn junk_between_games_keeps_braces_together() {
    let data = b"1. e4 *\njunk {[} x\n[Event \"a\"]\n1. d4 *\n";
    let whole = read_whole(data);
    assert_eq!(whole[1], "warning 2:1: skipped text between games: 'junk {[} x'");
    assert_cuts_change_nothing(data);
    assert_cuts_change_nothing(b"\x01{[}\n[\x00\"\"]");
    // A `;` in skipped text is text to the reader: the splitter no longer
    // takes it for a comment hiding the `{` after it.
    assert_cuts_change_nothing(b"v;[\\\"\"]{\r x\n[Event \"a\"]\n} *\n");
}

/// Found by `pgn`: the splitter read every line starting with `[` as tag
/// pairs (quotes hiding braces), but inside a skipped variation a line
/// that is not a whole tag pair is text and its `{` opens a comment; and a
/// `;` or `{` inside a tag name or value (on the first line of the input
/// too) opened a comment to the splitter, not to the reader.
#[test]
fn tag_lines_are_read_as_the_reader_reads_them() {
    assert_cuts_change_nothing(b"1. e4 (\n[\"{\r x\n[Event \"a\"]\n} e5) *\n");
    assert_cuts_change_nothing(b"4(\n[\"{\r\xba\n[W\"\"]}");
    let data = b"[;\"\"]{\n1\n[Site \"b\"]\n} *\n";
    assert_chunks(data, 1);
    assert_cuts_change_nothing(b"1. e4 *\n[;\"\"]{\n1\n[Site \"b\"]\n} *\n");
    // Inputs too short for a tag line (the fuzzer's first run of this fix).
    for data in [&b""[..], b"[", b"x", b"\xef\xbb\xbf"] {
        assert_cuts_change_nothing(data);
    }
    // Quotes still hide braces in whole tag pairs: the cut after stays.
    let data = b"[Event \"{\"]\n1. e4 *\n[Event \"b\"]\n1. d4 *\n";
    assert_chunks(data, 2);
}

/// Found by `pgn`: text skipped after the last game of a chunk was never
/// reported, so a cut before the next game hid a warning (and junk at the
/// end of a file was never reported at all).
#[test]
fn text_skipped_after_the_last_game_is_reported() {
    let data = b"1. e4 *\njunk\n[Event \"b\"]\n1. d4 *\nmore junk\n";
    let whole = read_whole(data);
    assert_eq!(whole[1], "warning 2:1: skipped text between games: 'junk'");
    assert_eq!(whole.last().unwrap(), "warning 5:1: skipped text between games: 'more junk'");
    assert_cuts_change_nothing(data);
    let dir = scratch();
    let path = dir.write("junk.pgn", data);
    let stdout = run(["check", arg(&path)]).stdout;
    let p = path.display();
    assert!(
        stdout.starts_with(&format!(
            "{p}:2:1: warning: skipped text between games: 'junk'\n\
             {p}:5:1: warning: skipped text between games: 'more junk'\n\
             games 2, ok 2,"
        )),
        "{stdout}"
    );
}

/// Found by `pgn`: a `%` escape line inside a skipped variation was read
/// for brackets, so its `{` opened a comment to the reader and not to the
/// splitter, which cut at the tag line after it.
#[test]
fn escape_lines_in_variations_hide_their_brackets() {
    let data = b"[\r(\n%{\r4\n[i\"\"]}";
    assert_cuts_change_nothing(data);
    let data = b"1. e4 ( e5\n% { not a comment\n) d5 *\n";
    let whole = read_whole(data);
    assert_eq!(whole.len(), 1, "{whole:?}");
    assert!(whole[0].contains("moves 2 ") && whole[0].contains("error None"), "{whole:?}");
    // Not at a line's start, `%` is text: the `{` after it opens a comment.
    let data = b"1. e4 ( e5 % { ) } ) d5 *\n";
    assert!(read_whole(data)[0].contains("moves 2 "), "{:?}", read_whole(data));
    assert_cuts_change_nothing(data);
}

/// The fuzzer's own inputs, through the `pgn` target's checks.
#[test]
fn fuzz_fixtures() {
    let mut n = 0;
    for path in files_under(&fixture("fuzz"), |path| path.extension() == Some(OsStr::new("pgn"))) {
        let data = std::fs::read(&path).unwrap();
        assert_eq!(read_cut_everywhere(&data), read_whole(&data), "{}", path.display());
        let mut lines = LineIndex::new(&data);
        for offset in (0..=data.len()).rev() {
            assert_eq!(lines.locate(offset), LineIndex::new(&data).locate(offset));
        }
        n += 1;
    }
    assert!(n >= 9, "fixtures/fuzz holds the fuzzers' inputs");
}
