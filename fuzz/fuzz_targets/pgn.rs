//! The PGN tokenizer and reader on arbitrary bytes.
//!
//! Checks, besides "no panic, no hang":
//! - every event the tokenizer reports lies inside the input, games start in
//!   increasing order, moves are non-empty tokens;
//! - skipping (a variant's movetext, the rest of a game after an error)
//!   never moves the end of a game: every visitor sees the same games;
//! - reading the input cut at every game boundary, as the parallel reader
//!   may cut it, gives the same games, errors and warnings at the same
//!   lines and columns as reading it whole (the output must not depend on
//!   threads or chunk sizes); so does reading it cut where the reading
//!   meets a boundary, as a mapped input is read;
//! - `LineIndex` answers the same incrementally as from scratch.
#![no_main]

use std::ops::ControlFlow;

use libfuzzer_sys::fuzz_target;
use pgnindex::chess::reach::REACH_CAP;
use pgnindex::notation::lang::Lang;
use pgnindex::notation::moves::Notation;
use pgnindex::pgn::commands::commands;
use pgnindex::pgn::{split, LineIndex, RawComment, RawTag, Reader, Skip, Syntax, Visitor};
use pgnindex::replay::parallel::{read_chunk, read_cut_while_reading, Chunk};
use pgnindex::replay::{Reaches, ReplayOptions};

/// Offsets checked against a fresh `LineIndex` (each costs a scan).
const MAX_LOCATE_CHECKS: usize = 64;

fuzz_target!(|data: &[u8]| {
    let all = ReplayOptions {
        keys: true,
        reaches: Some(Reaches { after: 0, within: REACH_CAP }),
        fens: true,
        notation: None,
        tags: true,
        commands: true,
        san: true,
        movetext: true,
        openings: true,
        rebuild: true,
    };
    let whole = read_chunk(data, 0, all);
    check_chunked(data, all, &whole);
    check_cut_while_reading(data, all, &whole);

    // Every visitor sees the same game starts, whatever it skips.
    let mut events =
        Events { data, skip_all: false, enter_variations: false, log: Vec::new(), start: 0 };
    let starts = game_starts(data, &mut events);
    let replayed: Vec<usize> = whole.games.iter().map(|g| g.record.offset).collect();
    assert_eq!(starts, replayed, "game starts: event visitor vs replayer");
    let forced =
        ReplayOptions { notation: Some(Notation::San(Lang::English)), ..ReplayOptions::default() };
    let forced: Vec<usize> =
        read_chunk(data, 0, forced).games.iter().map(|g| g.record.offset).collect();
    assert_eq!(forced, replayed, "game starts: stopping at the first error");
    let mut skipper =
        Events { data, skip_all: true, enter_variations: false, log: Vec::new(), start: 0 };
    assert_eq!(game_starts(data, &mut skipper), replayed, "game starts: movetext skipped");
    // Entering variations may end games elsewhere (a `[` inside a variation
    // ends the game only when the variation is tokenized); it must still
    // report sane events.
    let mut enterer =
        Events { data, skip_all: false, enter_variations: true, log: Vec::new(), start: 0 };
    game_starts(data, &mut enterer);

    // LineIndex: incremental answers equal fresh ones, in event order.
    let mut lines = LineIndex::new(data);
    let head = events.log.iter().take(MAX_LOCATE_CHECKS / 2);
    let tail = events.log.iter().rev().take(MAX_LOCATE_CHECKS / 2);
    for &offset in head.chain(tail) {
        for offset in [offset, offset.saturating_sub(1)] {
            let fresh = LineIndex::new(data).locate(offset);
            assert_eq!(lines.locate(offset), fresh, "locate({offset})");
        }
    }

    // Boundaries: increasing, each at a `[`, the search functions consistent.
    let mut bounds = Vec::new();
    split::scan_boundaries(data, |at| {
        bounds.push(at);
        true
    });
    assert!(bounds.windows(2).all(|w| w[0] < w[1]), "boundaries {bounds:?}");
    assert!(bounds.iter().all(|&b| data[b] == b'['), "boundaries {bounds:?}");
    assert_eq!(split::last_boundary(data), bounds.last().copied().unwrap_or(0));
    if let Some(&first) = bounds.first() {
        assert_eq!(split::next_boundary_after(data, 0, 1), first);
    }
});

/// Reads `data` cut at every boundary the splitter offers and compares
/// with `whole`, shifting offsets and lines as the CLI does.
fn check_chunked(data: &[u8], options: ReplayOptions, whole: &Chunk) {
    let mut cut = Vec::new();
    let mut base_line = 0;
    for range in split::chunks(data, 1) {
        let chunk = read_chunk(&data[range.clone()], range.start, options);
        cut.extend(output(&chunk, range.start, base_line));
        base_line += chunk.line_breaks.expect("every line break is counted");
    }
    let expected = output(whole, 0, 0);
    for (i, (cut, whole)) in cut.iter().zip(&expected).enumerate() {
        assert_eq!(cut, whole, "item {i} read in chunks differs");
    }
    assert_eq!(cut.len(), expected.len(), "games: cut {cut:#?}\nwhole {expected:#?}");
    assert_eq!(Some(base_line), whole.line_breaks, "line breaks");
}

/// Reads `data` cut where the reading meets a boundary past each cell of
/// a few bytes, as a mapped input is read, and compares with `whole`.
fn check_cut_while_reading(data: &[u8], options: ReplayOptions, whole: &Chunk) {
    let expected = output(whole, 0, 0);
    for cell in [1, 16] {
        let mut cut = Vec::new();
        let mut base_line = 0;
        for chunk in read_cut_while_reading(data, cell, options) {
            cut.extend(output(&chunk, chunk.offset, base_line));
            base_line += chunk.line_breaks.expect("every line break is counted");
        }
        assert_eq!(cut, expected, "read in cells of {cell}");
        assert_eq!(Some(base_line), whole.line_breaks, "line breaks, cells of {cell}");
    }
}

/// What the CLI prints for a chunk, in order: each game's warnings and the
/// game, then the warnings after the last game.
fn output(chunk: &Chunk, offset: usize, line: usize) -> Vec<String> {
    let warning = |(l, c, m): &(usize, usize, String)| format!("warning {}:{c}: {m}", l + line);
    let mut out = Vec::new();
    for g in &chunk.games {
        out.extend(g.warnings.iter().map(warning));
        out.push(describe(g, offset, line));
    }
    out.extend(chunk.trailing.iter().map(warning));
    out
}

/// Everything a game's output depends on, with offsets and lines made
/// absolute.
fn describe(g: &pgnindex::replay::parallel::LocatedGame, offset: usize, line: usize) -> String {
    let r = &g.record;
    let error = r.error.as_ref().map(|e| (e.offset + offset, &e.message));
    let syntax: Vec<(usize, &str)> =
        r.syntax.iter().map(|s| (s.offset + offset, s.message)).collect();
    let error_at = g.error_at.map(|(l, c)| (l + line, c));
    format!(
        "offset {} tags {:?} start {:?} 960 {} moves {:?} keys {:?} fens {:?} final {:?} \
         outcome {:?} error {error:?} variant {:?} notation {:?} syntax {syntax:?} clocks {:?} \
         evals {:?} error_at {error_at:?}",
        r.offset + offset,
        r.tags,
        r.start_fen,
        r.chess960,
        r.moves,
        r.keys,
        r.fens,
        pgnindex::notation::fen::write(&r.final_position),
        r.outcome,
        r.skipped,
        r.notation,
        r.notes.clocks,
        r.notes.evals,
    )
}

/// The offsets where `visitor` saw games begin.
fn game_starts<'a>(data: &'a [u8], visitor: &mut Events<'a>) -> Vec<usize> {
    let mut reader = Reader::new(data);
    let mut starts = Vec::new();
    let mut last_position = 0;
    while let Some(start) = reader.read_game(visitor) {
        assert!(starts.last().is_none_or(|&s| s < start), "games out of order");
        assert!(reader.position() > last_position || reader.position() == data.len());
        last_position = reader.position();
        starts.push(start);
        for (at, len) in reader.skipped() {
            assert!(len > 0 && at + len <= data.len(), "skipped ({at}, {len})");
        }
    }
    starts
}

/// A visitor that checks each event against the input and logs offsets.
struct Events<'a> {
    data: &'a [u8],
    skip_all: bool,
    enter_variations: bool,
    /// Offsets reported, in order.
    log: Vec<usize>,
    /// The current game's start.
    start: usize,
}

impl<'a> Events<'a> {
    fn inside(&self, slice: &[u8]) {
        let (start, end) =
            (self.data.as_ptr() as usize, self.data.as_ptr() as usize + self.data.len());
        let at = slice.as_ptr() as usize;
        assert!(
            slice.is_empty() || (at >= start && at + slice.len() <= end),
            "slice outside the input"
        );
    }
}

impl<'a> Visitor<'a> for Events<'a> {
    type Output = usize;

    fn begin_game(&mut self, offset: usize) {
        assert!(offset < self.data.len());
        self.start = offset;
        self.log.push(offset);
    }

    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        self.inside(name);
        self.inside(value.0);
        assert!(!name.is_empty());
        let _ = value.decode();
    }

    fn end_tags(&mut self) -> Skip {
        Skip(self.skip_all)
    }

    fn san(&mut self, san: &'a [u8], offset: usize) -> ControlFlow<()> {
        assert!(!self.skip_all, "a move while skipping");
        self.inside(san);
        assert!(!san.is_empty(), "empty move at {offset}");
        assert!(offset + san.len() <= self.data.len());
        assert_eq!(&self.data[offset..offset + san.len()], san, "move text at {offset}");
        self.log.push(offset);
        ControlFlow::Continue(())
    }

    fn comment(&mut self, comment: RawComment<'a>) {
        self.inside(comment.0);
        let _ = comment.decode();
        for _ in commands(comment.0) {}
    }

    fn begin_variation(&mut self) -> Skip {
        Skip(!self.enter_variations)
    }

    fn syntax(&mut self, problem: Syntax) {
        assert!(problem.offset <= self.data.len(), "syntax offset {}", problem.offset);
        self.log.push(problem.offset);
    }

    fn movetext(&mut self, raw: &'a [u8], offset: usize) {
        self.inside(raw);
        assert!(offset + raw.len() <= self.data.len(), "movetext offset {offset}");
    }

    fn end_game(&mut self) -> usize {
        self.start
    }
}
