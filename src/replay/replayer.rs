//! [`Replayer`]: the visitor that plays a game's mainline on the chess core
//! as it is read, and turns it into an owned [`GameRecord`] (tags, moves,
//! Polyglot keys, optional FENs, final position, error).
//!
//! Rules it applies:
//! - `FEN` (with or without `SetUp`) starts the game from that position; an
//!   invalid FEN is an error of that game only;
//! - a `Variant` other than standard chess or Chess960
//!   ([`VariantKind::Other`]: crazyhouse, antichess, …) marks the game as
//!   skipped, not replayed;
//! - moves are read in English; when English fails, in another notation
//!   (`retry`);
//! - the first illegal, ambiguous or unreadable move stops the replay: the
//!   game keeps its tags and the moves before, and carries the error.

use std::ops::ControlFlow;

use super::notes::{NoteReader, Notes};
use super::openings::Openings;
use super::rebuild::Rebuild;
use super::TagPairs;
use crate::chess::reach::Reach;
use crate::chess::{Color, Move, Position};
use crate::notation::fen;
use crate::notation::lang::Lang;
use crate::notation::moves::Notation;
use crate::notation::san::{self, San};
use crate::pgn::movetext::NotesForm;
use crate::pgn::{GameResult, RawComment, RawTag, Skip, Syntax, Visitor};

mod retry;

/// Syntax problems a game's record lists one by one.
pub const MAX_SYNTAX: usize = 100;

/// The message of the entry after the first [`MAX_SYNTAX`] problems,
/// located at the first one not listed.
pub const MORE_SYNTAX: &str = "more syntax problems from here on are not listed";

/// Which positions' [`Reach::reach_within`] a replay records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reaches {
    /// Those past this ply.
    pub after: u32,
    /// Bounds of at most this many plies; the farther ones are 255 (what
    /// the caller compares the bounds with: the less it asks, the fewer
    /// positions need more than the cheap bounds).
    pub within: u32,
}

/// What to record besides tags, moves and the final position.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplayOptions {
    /// Record the Polyglot key of every position (ply 0 to the end).
    pub keys: bool,
    /// With the keys, record how early the positions past some ply could
    /// be reached ([`GameRecord::reaches`]).
    pub reaches: Option<Reaches>,
    /// Record the FEN of every position.
    pub fens: bool,
    /// Read moves in this notation only (no detection).
    pub notation: Option<Notation>,
    /// Decode the tag pairs into the record (not needed just to replay).
    pub tags: bool,
    /// Read what the mainline says about each move into the record:
    /// `[%clk]`, `[%emt]` and `[%eval]` comment commands, the engine-match
    /// comment forms ([`whole_comment`]), NAGs, and the comment text
    /// around the commands.
    pub commands: bool,
    /// Write the mainline in canonical SAN into the record.
    pub san: bool,
    /// Keep the movetext as written in the record.
    pub movetext: bool,
    /// Name the opening of games from the standard start (see
    /// [`GameRecord::opening`]).
    pub openings: bool,
    /// Decide whether the movetext can be written back from the SAN, the
    /// notes and the result ([`GameRecord::rebuild`]; needs `commands`).
    pub rebuild: bool,
}

/// Why a game that was read is reported and not stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skipped {
    /// Its Variant tag names a game other than chess or Chess960.
    Variant(String),
    /// A stream's game longer than the most a block holds (`bytes`): its
    /// text past that was not read.
    TooLong {
        /// The most a game read from a stream may have.
        bytes: usize,
    },
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skipped::Variant(variant) => {
                write!(f, "game of variant '{variant}' not stored (not standard chess or Chess960)")
            }
            Skipped::TooLong { bytes } => write!(
                f,
                "game longer than {} MiB not stored: a game read from a stream (standard \
                 input, a compressed file) has at most that; read from an uncompressed file, \
                 it would be stored",
                bytes >> 20
            ),
        }
    }
}

/// The first problem of a game that stopped its replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameError {
    /// Byte offset of the offending text in the block.
    pub offset: usize,
    /// What is wrong, naming the move by its number and text as written
    /// (`2. Nf6: illegal move: …`, `2... Nf6` for Black).
    pub message: String,
}

/// A game read and replayed.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// Byte offset of the game's start in the block.
    pub offset: usize,
    /// Tag pairs in order, decoded (empty unless asked for).
    pub tags: TagPairs,
    /// The start position if not the standard one (FEN tag).
    pub start_fen: Option<String>,
    /// `true` for Chess960 (by `Variant` tag or by non-standard castling).
    pub chess960: bool,
    /// The mainline moves played (`None` for a null move).
    pub moves: Vec<Option<Move>>,
    /// Polyglot keys of every position, if asked for (`moves.len() + 1`).
    pub keys: Vec<u64>,
    /// With the keys and [`ReplayOptions::reaches`], each position's
    /// [`Reach::reach_within`] from the standard start position, 255 for
    /// `None` and for the positions up to their ply: whether a game from
    /// the standard start could reach it in its first plies. Empty
    /// otherwise.
    pub reaches: Vec<u8>,
    /// FENs of every position, if asked for (`moves.len() + 1`).
    pub fens: Vec<String>,
    /// The final position.
    pub final_position: Position,
    /// The result token, if the game had one.
    pub outcome: Option<GameResult>,
    /// The error that stopped the replay, if any.
    pub error: Option<GameError>,
    /// Why the game is not stored (another variant), if it is not.
    pub skipped: Option<Skipped>,
    /// The notation the moves were read in: SAN in the language detected
    /// or forced, or descriptive notation.
    pub notation: Notation,
    /// Syntax problems the tokenizer reported (the game was still read):
    /// the first [`MAX_SYNTAX`], then, if there were more, one whose
    /// message is [`MORE_SYNTAX`] at the first of those.
    pub syntax: Vec<Syntax>,
    /// What the mainline's comments and NAGs say about each move, by ply
    /// (empty unless asked for: [`ReplayOptions::commands`]).
    pub notes: Notes,
    /// What followed a move as written, where the notes do not give it
    /// back (a variation, two comments, a comment written otherwise), by
    /// ply; ply 0 for what came before the first move. Only for a game
    /// whose `rebuild` is `Some`.
    pub tails: Vec<(u32, String)>,
    /// The mainline in canonical SAN (with `+`/`#`), space separated, `--`
    /// for a null move; empty unless asked for.
    pub san: String,
    /// The [`crate::notation::san::SanPlus::key`] of each move of `san`
    /// that has one (as many as `moves` when every move has one, as the
    /// schema's move codes are read from).
    pub san_keys: Vec<u32>,
    /// The movetext as written (decoded to UTF-8) when asked for and
    /// `rebuild` is `None`; empty otherwise (the notes write it back).
    pub movetext: String,
    /// `true` when the FEN tag could not be read: the game has no start
    /// position, and `final_position` means nothing.
    pub no_start: bool,
    /// The last named position of the mainline ([`Openings`]), if asked
    /// for: the index of its row in [`Openings::rows`] and its ply (the
    /// half-moves played to reach it). `None` for a game from a FEN tag.
    pub opening: Option<(u32, u32)>,
    /// When asked for ([`ReplayOptions::rebuild`]): `Some` when
    /// [`crate::pgn::movetext::write_movetext`] gives the movetext back
    /// from the SAN, the notes and the result token, comments equal but
    /// for white space, with its comments in this form. `None` for a game
    /// with an error, a syntax problem, a null move, moves not in English
    /// SAN, no result token, a `;` comment or a `%` escape line. What
    /// follows a move and the notes do not give back is in `tails`.
    pub rebuild: Option<NotesForm>,
}

impl GameRecord {
    /// The number of half-moves played.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }
}

/// The replaying visitor. Reuse one per thread: its buffers are kept.
/// `Replayer::default()` is `Replayer::new(ReplayOptions::default())`.
#[derive(Default)]
pub struct Replayer<'a> {
    options: ReplayOptions,
    offset: usize,
    tags: Vec<(&'a [u8], RawTag<'a>)>,
    start: Position,
    pos: Position,
    start_fen: Option<String>,
    chess960: bool,
    /// The piece letters SAN tokens are read with.
    lang: Lang,
    /// The game is read as descriptive notation, from its movetext as
    /// written.
    descriptive: bool,
    /// The mainline's SAN tokens and their offsets in the block: to read
    /// the game again in another language, and to find the text after a
    /// move when rebuilding.
    tokens: Vec<(&'a [u8], usize)>,
    moves: Vec<Option<Move>>,
    keys: Vec<u64>,
    reaches: Vec<u8>,
    fens: Vec<String>,
    failed: Option<GameError>,
    skipped: Option<Skipped>,
    outcome: Option<GameResult>,
    syntax: Vec<Syntax>,
    /// The notes read so far.
    notes: NoteReader,
    /// Whether the movetext can be written back, and what of it cannot.
    rebuild: Rebuild,
    /// The mainline's SAN so far (ASCII).
    san: Vec<u8>,
    /// The [`san::SanPlus::key`] of each move of `san` that has one.
    san_keys: Vec<u32>,
    movetext: &'a [u8],
    /// The byte offset of `movetext` in the block.
    movetext_offset: usize,
    no_start: bool,
    /// The opening table when openings are asked for.
    openings: Option<&'static Openings>,
    opening: Option<(u32, u32)>,
}

/// What a game's `Variant` tag says it is played as. The [`Replayer`] plays
/// [`Standard`](VariantKind::Standard) and
/// [`Chess960`](VariantKind::Chess960) games and skips the
/// [`Other`](VariantKind::Other) ones; a game without the tag is standard
/// chess.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariantKind {
    /// Standard chess: `Standard`, `Chess`, `Normal`, `From Position`,
    /// `Classical`, or an empty value.
    Standard,
    /// Chess960: `Chess960`, `Fischerandom`, `Fischer Random`, `FRC`, `960`.
    Chess960,
    /// Any other variant (crazyhouse, antichess, atomic, …).
    Other,
}

impl VariantKind {
    /// The kind a `Variant` tag value names. Case, spaces, `-` and `_` do
    /// not count (`chess 960`, `Chess-960` and `CHESS960` are all
    /// Chess960).
    ///
    /// ```
    /// use pgnindex::replay::VariantKind;
    /// assert_eq!(VariantKind::from_tag("From Position"), VariantKind::Standard);
    /// assert_eq!(VariantKind::from_tag("fischerandom"), VariantKind::Chess960);
    /// assert_eq!(VariantKind::from_tag("Crazyhouse"), VariantKind::Other);
    /// ```
    pub fn from_tag(value: &str) -> VariantKind {
        let v: String = value
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_'))
            .collect::<String>()
            .to_ascii_lowercase();
        match v.as_str() {
            "" | "standard" | "chess" | "normal" | "fromposition" | "classical" => {
                VariantKind::Standard
            }
            "chess960" | "fischerandom" | "fischerrandom" | "frc" | "960" => VariantKind::Chess960,
            _ => VariantKind::Other,
        }
    }
}

impl<'a> Replayer<'a> {
    /// A replayer with these options.
    pub fn new(options: ReplayOptions) -> Replayer<'a> {
        // The state of a game is empty until `begin_game` sets it.
        Replayer { options, openings: options.openings.then(Openings::get), ..Replayer::default() }
    }

    /// Plays `m` (legal here), writing its SAN if asked for. `unique`:
    /// no other legal move of its role goes to its square (see
    /// [`San::from_unique_move`]).
    #[inline]
    fn play_move(&mut self, m: Move, unique: bool) {
        if self.options.san {
            if !self.san.is_empty() {
                self.san.push(b' ');
            }
            let san = if unique {
                san::SanPlus::from_unique_move_and_play(&mut self.pos, m)
            } else {
                san::SanPlus::from_move_and_play(&mut self.pos, m)
            };
            san.append_ascii(&mut self.san);
            // A move without a key leaves the keys short: the game's
            // codes are then read from its text.
            if let Some(key) = san.key() {
                self.san_keys.push(key);
            }
        } else {
            self.pos.play_unchecked(m);
        }
    }

    /// Plays a null move (legal here: not in check).
    fn play_null(&mut self) {
        let _ = self.pos.play_null();
        if self.options.san {
            if !self.san.is_empty() {
                self.san.push(b' ');
            }
            self.san.extend_from_slice(b"--");
        }
    }

    // Always inline: it runs at every ply, and a call costs more than
    // its body in the common case (no keys, no FENs, past the openings).
    #[inline(always)]
    fn record_position(&mut self) {
        if self.options.keys {
            self.keys.push(self.pos.zobrist().0);
            if let Some(reaches) = self.options.reaches {
                // Past the first plies only: there, every position is early.
                let reach = if self.moves.len() as u32 > reaches.after {
                    let within = Reach::standard().reach_within(&self.pos, reaches.within);
                    within.map_or(u8::MAX, |n| n as u8)
                } else {
                    u8::MAX
                };
                self.reaches.push(reach);
            }
        }
        if self.options.fens {
            self.fens.push(fen::write(&self.pos));
        }
        if let Some(openings) = self.openings {
            if self.moves.len() <= openings.max_ply() {
                self.look_up_opening(openings);
            }
        }
    }

    /// Remembers the current position's row if it is named (out of line:
    /// [`Replayer::record_position`] runs at every ply, this only in the
    /// first plies).
    #[inline(never)]
    fn look_up_opening(&mut self, openings: &Openings) {
        if self.start_fen.is_none() {
            if let Some(row) = openings.find(&self.pos) {
                self.opening = Some((row, self.moves.len() as u32));
            }
        }
    }

    /// Plays one move text in the current language; the error message on
    /// failure.
    fn play(&mut self, text: &[u8]) -> Result<(), String> {
        // On every error path the position is still the one before the
        // move, so the message numbers the move from it.
        let error = match San::from_ascii_lang(text, self.lang) {
            Ok(San::Null) => {
                if self.pos.is_check() {
                    san::SanError::Illegal {
                        san: "--".into(),
                        reason: "a null move is not allowed while in check".into(),
                    }
                    .into()
                } else {
                    self.play_null();
                    self.moves.push(None);
                    self.record_position();
                    return Ok(());
                }
            }
            Ok(s) => match s.to_move(&self.pos) {
                Ok(m) => {
                    self.take_move(m, false);
                    return Ok(());
                }
                Err(e) => san::MoveTextError::from(e),
            },
            Err(e) => e.into(),
        };
        Err(format!("{}: {}", san::numbered(&self.pos, text), error.reason()))
    }

    /// Plays the mainline move `m` (legal here) and records it and the
    /// position it leads to: the one way a move enters the game, from the
    /// quick path and the general one alike.
    #[inline]
    fn take_move(&mut self, m: Move, unique: bool) {
        self.play_move(m, unique);
        self.moves.push(Some(m));
        self.record_position();
    }

    /// [`Visitor::san`] past its common case: a move outside the quick
    /// shapes, an error, or a move after English failed.
    #[inline(never)]
    fn san_general(&mut self, san: &[u8], offset: usize, detect: bool) -> ControlFlow<()> {
        if self.failed.is_some() {
            // English failed earlier; only collect the rest for the retry.
            return if detect { ControlFlow::Continue(()) } else { ControlFlow::Break(()) };
        }
        if let Some(m) = san::quick_disambiguated_move(&self.pos, san, self.lang) {
            self.take_move(m, false);
            return ControlFlow::Continue(());
        }
        match self.play(san) {
            Ok(()) => ControlFlow::Continue(()),
            Err(message) => {
                self.failed = Some(GameError { offset, message });
                if detect {
                    ControlFlow::Continue(())
                } else {
                    ControlFlow::Break(())
                }
            }
        }
    }

    /// The ply a comment or NAG read now belongs to, if it is to be read:
    /// the moves read so far. After a failed move, only while the game may
    /// still be retried in another language (its moves are then counted
    /// as read, and [`Replayer::end_game`] drops what lies past the moves
    /// kept). `None` before the first move.
    #[inline]
    fn note_ply(&self) -> Option<u32> {
        if !self.options.commands {
            return None;
        }
        let ply = if self.options.notation.is_none() {
            self.tokens.len()
        } else if self.failed.is_none() {
            self.moves.len()
        } else {
            return None;
        };
        u32::try_from(ply).ok().filter(|&p| p > 0)
    }
}

impl<'a> Replayer<'a> {
    /// Back to the start position to replay the game read in `notation`:
    /// the moves, positions, SAN and opening of the first reading
    /// forgotten.
    fn restart(&mut self, notation: Notation) {
        match notation {
            Notation::San(lang) => {
                self.lang = lang;
                self.descriptive = false;
            }
            Notation::Descriptive => self.descriptive = true,
        }
        self.pos = self.start.clone();
        self.clear_reading();
        self.record_position();
    }

    /// Forgets what reading the mainline gave: its moves, keys, FENs, SAN
    /// and opening (the buffers keep their capacity).
    fn clear_reading(&mut self) {
        self.moves.clear();
        self.keys.clear();
        self.reaches.clear();
        self.fens.clear();
        self.san.clear();
        self.san_keys.clear();
        self.opening = None;
    }

    /// The notation the game is read in.
    fn notation(&self) -> Notation {
        if self.descriptive {
            Notation::Descriptive
        } else {
            Notation::San(self.lang)
        }
    }
}

impl<'a> Visitor<'a> for Replayer<'a> {
    type Output = GameRecord;

    fn begin_game(&mut self, offset: usize) {
        self.offset = offset;
        self.tags.clear();
        self.start_fen = None;
        self.chess960 = false;
        (self.lang, self.descriptive) = match self.options.notation {
            Some(Notation::San(lang)) => (lang, false),
            Some(Notation::Descriptive) => (Lang::English, true),
            None => (Lang::English, false),
        };
        self.tokens.clear();
        self.clear_reading();
        self.failed = None;
        self.skipped = None;
        self.outcome = None;
        self.syntax.clear();
        self.notes.clear();
        self.movetext = &[];
        self.movetext_offset = 0;
        self.no_start = false;
        self.rebuild.begin(self.options.rebuild && self.options.commands);
    }

    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        self.tags.push((name, value));
    }

    fn end_tags(&mut self) -> Skip {
        self.start = Position::new();
        let mut fen_tag = None;
        for (name, value) in &self.tags {
            if name.eq_ignore_ascii_case(b"FEN") {
                fen_tag = Some(*value);
            } else if name.eq_ignore_ascii_case(b"Variant") {
                let v = value.decode();
                match VariantKind::from_tag(&v) {
                    VariantKind::Standard => {}
                    VariantKind::Chess960 => self.chess960 = true,
                    VariantKind::Other => {
                        self.skipped = Some(Skipped::Variant(v.into_owned()));
                    }
                }
            }
        }
        if self.skipped.is_some() {
            self.pos = self.start.clone();
            return Skip(true);
        }
        if let Some(value) = fen_tag {
            let text = value.decode();
            match fen::parse_position(text.trim()) {
                Ok(p) => {
                    self.chess960 |= p.is_chess960_castling();
                    self.start_fen = Some(fen::write(&p));
                    self.start = p;
                }
                Err(e) => {
                    self.failed = Some(GameError {
                        offset: self.offset,
                        message: format!("FEN tag \"{text}\": {e}"),
                    });
                    self.no_start = true;
                    self.pos = self.start.clone();
                    return Skip(true);
                }
            }
        }
        self.pos = self.start.clone();
        self.record_position();
        // Descriptive notation is read from the movetext as written, at the
        // end of the game: the SAN tokens split its moves.
        Skip(self.options.notation == Some(Notation::Descriptive))
    }

    #[inline]
    fn san(&mut self, san: &'a [u8], offset: usize) -> ControlFlow<()> {
        let detect = self.options.notation.is_none();
        if detect || self.rebuild.possible {
            self.tokens.push((san, offset));
        }
        // The common case inline, the rest (general SAN, errors, the game
        // after a failure) in a function of its own, so that the common
        // case does not pay for saving the registers the rest needs.
        if self.failed.is_none() {
            if let Some(m) = san::quick_move(&self.pos, san, self.lang) {
                // Resolved from a text without disambiguation: unique.
                self.take_move(m, true);
                return ControlFlow::Continue(());
            }
        }
        self.san_general(san, offset, detect)
    }

    fn comment(&mut self, comment: RawComment<'a>) {
        if !self.options.commands && !self.rebuild.possible {
            // Neither read nor written back (`check`).
            return;
        }
        // Comments of variations are skipped with them.
        match self.note_ply() {
            Some(ply) if crate::pgn::movetext::is_stop_mark(comment.0) => {
                self.rebuild.keep_raw(ply)
            }
            Some(ply) => {
                let white_first = self.start.turn() == Color::White;
                self.notes.comment(comment, ply, white_first);
                if self.rebuild.possible {
                    let (notes, last) = (&self.notes.notes, self.notes.last());
                    self.rebuild.comment(comment.0, ply, notes, last, white_first);
                }
                self.notes.forget_last();
            }
            // Before the first move: kept as written.
            None => self.rebuild.keep_raw(0),
        }
    }

    fn line_comment(&mut self, comment: RawComment<'a>) {
        self.rebuild.possible = false;
        self.comment(comment);
    }

    fn escape_line(&mut self, _line: &'a [u8]) {
        self.rebuild.possible = false;
    }

    fn begin_variation(&mut self) -> Skip {
        // Kept as written with what else follows its move.
        let ply = self.note_ply().unwrap_or(0);
        self.rebuild.keep_raw(ply);
        Skip(true)
    }

    fn nag(&mut self, nag: u8) {
        match self.note_ply() {
            Some(ply) => self.notes.nag(ply, nag),
            None => self.rebuild.keep_raw(0),
        }
    }

    fn outcome(&mut self, outcome: Option<GameResult>) {
        self.outcome = outcome;
    }

    fn syntax(&mut self, problem: Syntax) {
        // Listed up to a bound, then once more to say where the unlisted
        // ones begin: a game of millions of stray brackets is not held (or
        // reported) problem by problem.
        match self.syntax.len() {
            n if n < MAX_SYNTAX => self.syntax.push(problem),
            MAX_SYNTAX => self.syntax.push(Syntax { message: MORE_SYNTAX, ..problem }),
            _ => {}
        }
    }

    fn movetext(&mut self, raw: &'a [u8], offset: usize) {
        self.movetext = raw;
        self.movetext_offset = offset;
    }

    fn end_game(&mut self) -> GameRecord {
        if self.skipped.is_none() && !self.no_start {
            self.read_in_other_notations();
        }
        if self.failed.is_some() {
            self.notes.notes.drop_past(self.moves.len());
        }
        let tags = if self.options.tags { TagPairs::decode(&self.tags) } else { TagPairs::new() };
        // The result written back is the row's `result`: the first Result
        // tag, if any, must be the movetext's.
        let result_tag = tags.iter().find(|(name, _)| name.eq_ignore_ascii_case("result"));
        let result_agrees =
            result_tag.is_none_or(|(_, value)| Some(value) == self.outcome.map(|o| o.as_str()));
        let rebuild = (self.rebuild.possible
            && result_agrees
            && self.failed.is_none()
            && self.skipped.is_none()
            && self.notation() == Notation::San(Lang::English)
            && self.syntax.is_empty()
            && self.outcome.is_some()
            && self.moves.iter().all(Option::is_some)
            && self.tokens.len() == self.moves.len())
        .then(|| self.rebuild.form());
        let tails = |r: &mut Replayer<'a>| {
            r.rebuild.tails(r.movetext, r.movetext_offset, &r.tokens, r.outcome)
        };
        let (rebuild, tails) = match rebuild.map(|form| (form, tails(self))) {
            Some((form, Some(tails))) => (Some(form), tails),
            _ => (None, Vec::new()),
        };
        GameRecord {
            offset: self.offset,
            tags,
            start_fen: self.start_fen.take(),
            chess960: self.chess960,
            // Copies of exact size; the buffers keep their capacity for
            // the next game.
            moves: self.moves.clone(),
            keys: self.keys.clone(),
            reaches: self.reaches.clone(),
            fens: std::mem::take(&mut self.fens),
            final_position: self.pos.clone(),
            outcome: self.outcome,
            error: self.failed.take(),
            skipped: self.skipped.take(),
            notation: self.notation(),
            syntax: std::mem::take(&mut self.syntax),
            notes: self.notes.notes.hand_over(),
            tails,
            // ASCII by construction: the check cannot fail.
            san: String::from_utf8(self.san.clone()).unwrap_or_default(),
            san_keys: self.san_keys.clone(),
            movetext: if self.options.movetext && rebuild.is_none() {
                crate::pgn::source::decode_text(self.movetext).into_owned()
            } else {
                String::new()
            },
            no_start: self.no_start,
            opening: self.opening,
            rebuild,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::commands::Eval;
    use crate::pgn::Reader;

    fn replay(text: &str, options: ReplayOptions) -> Vec<GameRecord> {
        let mut reader = Reader::new(text.as_bytes());
        let mut replayer = Replayer::new(options);
        std::iter::from_fn(|| reader.read_game(&mut replayer)).collect()
    }

    #[test]
    fn clock_and_eval_commands_belong_to_the_move_before() {
        let text = "1. e4 { [%eval 0.17] [%clk 0:03:00] } 1... e5 { [%clk 0:02:58.6] } \
                    2. Qh5 (2. Nf3 { [%clk 0:09:99] }) { [%eval #-4] } *";
        let options = ReplayOptions { commands: true, ..ReplayOptions::default() };
        let g = &replay(text, options)[0];
        assert_eq!(g.notes.clocks, [(1, 180_000), (2, 178_600)]);
        assert_eq!(g.notes.evals, [(1, Eval::Centipawns(17)), (3, Eval::Mate(-4))]);
        let g = &replay(text, ReplayOptions::default())[0];
        assert!(g.notes.clocks.is_empty() && g.notes.evals.is_empty());
    }

    fn noted(text: &str) -> GameRecord {
        let options = ReplayOptions { commands: true, ..ReplayOptions::default() };
        replay(text, options).remove(0)
    }

    #[test]
    fn nags_comments_and_what_comes_before_the_first_move() {
        let g = noted(
            "{intro [%clk 0:05:00]} $3 1. e4! $18 {[%clk 0:05:00]} {A [%cal Ge2e4] fine} {move}              1... e5?? {[%eval 0.17] [%clk 0:04:58]} 2. Nf3 { 0.33 } (2. Nc3 {side} $2) {again} *",
        );
        assert_eq!(g.notes.nags, [(1, 1), (1, 18), (2, 4)]);
        assert_eq!(g.notes.clocks, [(1, 300_000), (2, 298_000)]);
        // A score alone is the mover's: White's move, White's view.
        assert_eq!(g.notes.evals, [(2, Eval::Centipawns(17)), (3, Eval::Centipawns(33))]);
        let comments: Vec<(u32, &str)> = g.notes.comments().collect();
        assert_eq!(comments, [(1, "A fine move"), (3, "again")]);
    }

    #[test]
    fn first_reading_of_a_ply_counts() {
        let g = noted("1. e4 {[%clk 0:01:00] [%clk 0:02:00]} {[%eval 1.0]} {[%eval 2.0]} *");
        assert_eq!(g.notes.clocks, [(1, 60_000)]);
        assert_eq!(g.notes.evals, [(1, Eval::Centipawns(100))]);
    }

    #[test]
    fn a_descriptive_reading_of_no_move_does_not_hide_the_error() {
        // The descriptive tokenizer passes over a lone comma: it reads no
        // move and no error, which is no reading of the game.
        let g = &replay("1. , *", ReplayOptions::default())[0];
        assert!(g.error.is_some(), "{g:?}");
        assert_eq!(g.notation, Notation::San(Lang::English));
    }

    #[test]
    fn a_mating_move_has_no_score_and_keeps_the_text_after_the_comma() {
        let g = noted("1. f3 e5 2. g4 Qh4# {+M1/127 0.003s, Black mates} 0-1");
        assert!(g.notes.evals.is_empty());
        assert_eq!(g.notes.emts, [(4, 3)]);
        assert_eq!(g.notes.comments().collect::<Vec<_>>(), [(4, "Black mates")]);
    }

    #[test]
    fn engine_match_scores_turn_to_whites_view() {
        let g = noted(
            "1. e4 {+0.35/20 1.2s} e5 {+0.12/18 0.8s} 2. Qh5 {-M5/30 0.5s} Nc6 {+M3/12 0.02s}              3. Bc4 {0.18/23 239} Nf6 { eval -1.4 } *",
        );
        use Eval::{Centipawns, Mate};
        assert_eq!(
            g.notes.evals,
            [
                (1, Centipawns(35)),
                (2, Centipawns(-12)),
                (3, Mate(-2)),
                (4, Mate(-1)),
                (5, Centipawns(18)),
                (6, Centipawns(-140)),
            ]
        );
        // Arena's bare time is seconds.
        assert_eq!(g.notes.emts, [(1, 1_200), (2, 800), (3, 500), (4, 20), (5, 239_000)]);
        assert_eq!(g.notes.depths, [(1, 20), (2, 18), (3, 30), (4, 12), (5, 23)]);
        assert!(g.notes.comment_ends.is_empty(), "{:?}", g.notes.comment_text);
        // From a position with Black to move, Black plays the odd plies.
        let g = noted(
            "[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1\"]\n\n1... Kd7 {+0.50/10} 2. Kd2 {+0.40/10} *",
        );
        assert_eq!(g.notes.evals, [(1, Centipawns(-50)), (2, Centipawns(40))]);
    }

    #[test]
    fn nothing_is_kept_past_a_failed_move() {
        let text = "1. e4 {[%clk 0:01:00]} e5 {a} $1 2. Qxf7 {[%clk 0:00:59] b} $4 Nc6 {c} *";
        for notation in [None, Some(Notation::San(Lang::English))] {
            let options = ReplayOptions { commands: true, notation, ..ReplayOptions::default() };
            let g = replay(text, options).remove(0);
            assert!(g.error.is_some());
            assert_eq!(g.plies(), 2);
            assert_eq!(g.notes.clocks, [(1, 60_000)]);
            assert_eq!(g.notes.nags, [(2, 1)]);
            assert_eq!(g.notes.comments().collect::<Vec<_>>(), [(2, "a")]);
        }
    }

    #[test]
    fn notes_after_a_move_read_in_another_language_are_kept() {
        let g = noted("1. e4 {[%clk 0:01:00]} e5 2. Cf3 {bon} $1 Cc6 {[%eval 0.3]} *");
        assert_eq!(g.notation, Notation::San(Lang::French));
        assert!(g.error.is_none());
        assert_eq!(g.notes.clocks, [(1, 60_000)]);
        assert_eq!(g.notes.nags, [(3, 1)]);
        assert_eq!(g.notes.comments().collect::<Vec<_>>(), [(3, "bon")]);
        assert_eq!(g.notes.evals, [(4, Eval::Centipawns(30))]);
    }

    #[test]
    fn notes_of_a_game_read_as_descriptive_notation() {
        let text = "[Event \"a\"]\n\n{intro} 1. P-K4 {[%clk 0:03:00] good} P-K4 {[%eval 0.2]} \
                    2. Kt-KB3 {fine} (2. B-B4 {side}) Kt-QB3 *";
        for notation in [None, Some(Notation::Descriptive)] {
            let options = ReplayOptions { commands: true, notation, ..ReplayOptions::default() };
            let g = replay(text, options).remove(0);
            assert_eq!((g.notation, g.plies()), (Notation::Descriptive, 4), "{notation:?}");
            assert_eq!(g.notes.clocks, [(1, 180_000)]);
            assert_eq!(g.notes.evals, [(2, Eval::Centipawns(20))]);
            assert_eq!(g.notes.comments().collect::<Vec<_>>(), [(1, "good"), (3, "fine")]);
        }
    }

    fn rebuild(text: &str) -> Option<NotesForm> {
        let options = ReplayOptions { commands: true, rebuild: true, ..ReplayOptions::default() };
        let games = replay(text, options);
        assert_eq!(games.len(), 1, "{text}");
        games[0].rebuild
    }

    #[test]
    fn movetexts_the_writer_gives_back() {
        use NotesForm::{Commands, Score};
        for (text, form) in [
            ("1. e4 e5 2. Nf3 1-0", Commands),
            ("1. e4 { [%clk  0:03:00]  } 1-0", Commands),
            ("1. e4 {[%clk 1193:02:47.295]} 1-0", Commands),
            ("*", Commands),
            (
                "1. e4 {[%clk 0:03:00]} 1... e5 {  [%clk\n0:02:58.6] } 2. Nf3! $18 {good  move} *",
                Commands,
            ),
            (
                "1. e4 { [%eval 0.17] [%clk 0:00:30] } e5 { [%eval #-4] [%clk 0:00:29] } 0-1",
                Commands,
            ),
            ("1. e4 {[%eval -1.0] [%clk 71:59:59] [%emt 0:00:01.05] fine} 1-0", Commands),
            ("1. e4 { 0.33 } e5 { -0.2 } 2. Nf3 {0.0} Nc6 { None } 1/2-1/2", Score),
            (
                "[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1\"]\n\n1... Kd7 { 0.5 } 2. Kd2 {-0.4} *",
                Score,
            ),
        ] {
            assert_eq!(rebuild(text), Some(form), "{text}");
        }
    }

    #[test]
    fn movetexts_kept_as_written() {
        for text in [
            "1. e4 ; a line comment\ne5 *",
            "1. e4\n% an escape line\ne5 *",
            "1. e4 -- 2. d4 *",
            "1. e4 e5 2. Ke3 *",
            "1. e4 e5",
            "1. e4 e5 2. Cf3 *",
            "1. e4 } e5 *",
        ] {
            assert_eq!(rebuild(text), None, "{text}");
        }
        // Not asked for.
        let g = noted("1. e4 e5 *");
        assert_eq!(g.rebuild, None);
    }

    fn tails(text: &str) -> Vec<(u32, String)> {
        let options = ReplayOptions { commands: true, rebuild: true, ..ReplayOptions::default() };
        let g = replay(text, options).remove(0);
        assert!(g.rebuild.is_some(), "{text}");
        g.tails
    }

    #[test]
    fn what_the_notes_do_not_give_back_is_kept_by_move() {
        for (text, ply, tail) in [
            ("1. e4 (1. d4 {x} d5) e5 *", 1, "(1. d4 {x} d5)"),
            ("{intro} 1. e4 *", 0, "{intro}"),
            ("[Event \"x\"]\n\n$1 1. e4 *", 0, "$1"),
            ("1. e4 {a} {b} 1... e5 *", 1, "{a} {b}"),
            ("1. e4 {} e5 *", 1, "{}"),
            ("1. e4 e5 {[%eval 0.10]} 2. Nf3 *", 2, "{[%eval 0.10]}"),
            ("1. e4 {[%eval +0.1]} *", 1, "{[%eval +0.1]}"),
            ("1. e4 {[%clk 0:3:00]} *", 1, "{[%clk 0:3:00]}"),
            ("1. e4 {[%clk 0:03:00.50]} *", 1, "{[%clk 0:03:00.50]}"),
            ("1. e4 {[%clk 00:03:00]} *", 1, "{[%clk 00:03:00]}"),
            ("1. e4 {[%clk 0:03:00]]} *", 1, "{[%clk 0:03:00]]}"),
            ("1. e4 {[%clk 0:03:00] [%eval 0.17]} *", 1, "{[%clk 0:03:00] [%eval 0.17]}"),
            ("1. e4 {good [%clk 0:03:00]} *", 1, "{good [%clk 0:03:00]}"),
            ("1. e4 {[%clk 0:01:00] [%clk 0:02:00]} *", 1, "{[%clk 0:01:00] [%clk 0:02:00]}"),
            ("1. e4 {[%cal Ge2e4]} *", 1, "{[%cal Ge2e4]}"),
            ("1. e4 {[%clk 0:03:00] [%csl Re4]} *", 1, "{[%clk 0:03:00] [%csl Re4]}"),
            ("1. e4 {eval -1.4} *", 1, "{eval -1.4}"),
            ("1. e4 {+0.33} *", 1, "{+0.33}"),
            ("1. e4 {0.330} *", 1, "{0.330}"),
            ("1. e4 {0.33} e5 {[%eval 0.2]} *", 2, "{[%eval 0.2]}"),
            ("1. e4 {[%eval 0.2]} e5 {-0.33} *", 2, "{-0.33}"),
            ("1. e4 {0.33 [%clk 0:03:00]} *", 1, "{0.33 [%clk 0:03:00]}"),
            ("1. e4 e5 $1 $2 (1... c5) 2. Nf3 *", 2, "$1 $2 (1... c5)"),
            ("1. e4 {d=20, wv=0.10,} e5 {[%eval 0.2]} *", 2, "{[%eval 0.2]}"),
        ] {
            assert_eq!(tails(text), [(ply, tail.to_string())], "{text}");
        }
        // The other moves' notes are written back.
        for text in [
            "1. e4 {[%clk 0:03:00]} e5 {[%eval 0.17,20]} *",
            "1. e4 {+0.35/20 1.2s} e5 {-0.12/18 0.8s} 2. Nf3 {+M3/12 0.02s} *",
            "1. e4 {0.18/23 239 (e5)} e5 {-0.20/21 10} 2. Nf3 {#12/30 0} *",
            // A score a line break cut, written back whole.
            "1. e4 {0.\n68/29 292} *",
            "1. e4 {d=20, sd=30, pd=e5, mt=1200, tl=900000, n=123, pv=e4 e5, wv=0.20,} e5 \
             {d=21, mt=1100, tl=890000, n=456, pv=e5 Nf3, wv=0.10,} *",
        ] {
            assert_eq!(tails(text), [], "{text}");
        }
    }

    #[test]
    fn variant_tag_values() {
        use VariantKind::{Chess960, Other, Standard};
        for (value, kind) in [
            ("", Standard),
            ("Standard", Standard),
            ("From Position", Standard),
            ("classical", Standard),
            ("Chess 960", Chess960),
            ("Fischer_Random", Chess960),
            ("FRC", Chess960),
            ("960", Chess960),
            ("Crazyhouse", Other),
            ("Three-check", Other),
        ] {
            assert_eq!(VariantKind::from_tag(value), kind, "{value:?}");
        }
    }

    #[test]
    fn fen_variant_and_language() {
        let text = "[Variant \"Crazyhouse\"]\n1. e4 *\n\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n1. Kb2 *\n\n\
                    [FEN \"bad\"]\n1. e4 *\n\n1. e4 e5 2. Cf3 Cc6 *";
        let games = replay(text, ReplayOptions { tags: true, ..ReplayOptions::default() });
        assert_eq!(games.len(), 4);
        assert_eq!(games[0].skipped, Some(Skipped::Variant("Crazyhouse".into())));
        assert_eq!(games[1].start_fen.as_deref(), Some("8/8/8/8/8/8/8/K6k w - - 0 1"));
        assert_eq!(games[1].plies(), 1);
        assert!(games[2]
            .error
            .as_ref()
            .unwrap()
            .message
            .starts_with("FEN tag \"bad\": invalid FEN"));
        assert_eq!(games[3].notation, Notation::San(Lang::French));
        assert_eq!(games[3].plies(), 4);
        assert!(games[3].error.is_none());
    }

    #[test]
    fn descriptive_games_detected_or_forced() {
        let text = "[Event \"a\"]\n\n1. P-K4 {[%clk 0:03:00]} P-K4 2. Kt-KB3 Kt-QB3 \
                    3. B-B4 (3. B-Kt5) B-B4 4. P-QKt4 BxKtP 1-0\n\n\
                    [Event \"b\"]\n\n1. e4 e5 2. Nf3 *\n\n\
                    [Event \"c\"]\n\n1. P-K4 P-K4 2. N-B3 *\n\n\
                    [Event \"d\"]\n\n1. e4 e5 2. Nf6 *\n\n\
                    P-K4 P-K4 N-KB3 N-QB3 B-B4 B-B4 P-QN4 BxNP\n";
        let options = ReplayOptions { san: true, commands: true, ..ReplayOptions::default() };
        let games = replay(text, options);
        assert_eq!(games[0].notation, Notation::Descriptive);
        assert_eq!(games[0].error, None);
        assert_eq!(games[0].san, "e4 e5 Nf3 Nc6 Bc4 Bc5 b4 Bxb4");
        assert_eq!(games[0].notes.clocks, [(1, 180_000)]);
        assert_eq!(games[1].notation, Notation::San(Lang::English));
        // Descriptive gets further than SAN: its error is the game's.
        assert_eq!(games[2].notation, Notation::Descriptive);
        assert_eq!(games[2].plies(), 2);
        let error = games[2].error.as_ref().unwrap();
        assert_eq!(error.message, "2. N-B3: ambiguous move: could be N-QB3 (Nc3), N-KB3 (Nf3)");
        assert_eq!(&text[error.offset..error.offset + 4], "N-B3");
        // SAN gets further: its error stays.
        assert_eq!(games[3].notation, Notation::San(Lang::English));
        assert_eq!(games[3].plies(), 2);
        assert!(games[3].error.as_ref().unwrap().message.starts_with("2. Nf6: illegal move"));
        // Without tags or move numbers, as the line is often quoted.
        assert_eq!(games[4].san, games[0].san);
        // Forced: descriptive only, SAN games are errors.
        let options = ReplayOptions { notation: Some(Notation::Descriptive), ..options };
        let forced = replay(text, options);
        assert_eq!(forced[0].san, games[0].san);
        assert_eq!(forced[0].notes.clocks, [(1, 180_000)]);
        assert_eq!(forced[1].plies(), 0);
        assert_eq!(forced[1].error.as_ref().unwrap().message, "1. e4: not a move: no piece");
    }
}
