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
//! - moves are read in English; when English fails, the whole game is
//!   retried in each other piece-letter language, and the first that plays
//!   every move wins; when none does, the game's movetext as written is
//!   read as English descriptive notation, which wins if it plays every
//!   move, or gets further than English did (its error is then the
//!   game's). A notation the caller forced is the only one tried
//!   ([`Notation::Descriptive`] reads the movetext as written, not the SAN
//!   tokens);
//! - the first illegal, ambiguous or unreadable move stops the replay: the
//!   game keeps its tags and the moves before, and carries the error.

use std::ops::ControlFlow;

use super::openings::Openings;
use super::TagPairs;
use crate::chess::reach::Reach;
use crate::chess::{Color, Move, Position};
use crate::notation::descriptive::{self, Token};
use crate::notation::fen;
use crate::notation::lang::Lang;
use crate::notation::moves::Notation;
use crate::notation::san::{self, San};
use crate::pgn::commands::{self, pieces, whole_comment, Command, Eval, Piece, WholeComment};
use crate::pgn::keyed::{self, Layout};
use crate::pgn::movetext::{self as written, NotesForm, PlyNotes};
use crate::pgn::{GameResult, RawComment, RawTag, Skip, Syntax, Visitor};

/// Syntax problems a game's record lists one by one.
pub const MAX_SYNTAX: usize = 100;

/// The message of the entry after the first [`MAX_SYNTAX`] problems,
/// located at the first one not listed.
pub const MORE_SYNTAX: &str = "more syntax problems from here on are not listed";

/// What to record besides tags, moves and the final position.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplayOptions {
    /// Record the Polyglot key of every position (ply 0 to the end).
    pub keys: bool,
    /// With the keys, record [`Reach::reach`] of the positions past this
    /// ply ([`GameRecord::reaches`]).
    pub reach_after: Option<u32>,
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
    /// With the keys and [`ReplayOptions::reach_after`], each position's
    /// [`Reach::reach`] from the standard start position, 255 for `None`
    /// and for the positions up to that ply: whether a game from the
    /// standard start could reach it in its first plies. Empty otherwise.
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
    /// Clock readings (`[%clk]`, milliseconds) by ply: the ply is the
    /// number of moves played when the comment came (1 = after the first
    /// move of the mainline). At most one per ply (the first written), in
    /// ply order, none at ply 0 (before the first move) or past the last
    /// move played; the same holds for `emts`, `evals`, `nags` and
    /// `comment_ends`. Empty unless asked for.
    pub clocks: Vec<(u32, u32)>,
    /// Time spent on the move (`[%emt]`, or an engine-match comment's
    /// time in seconds), milliseconds, by ply.
    pub emts: Vec<(u32, u32)>,
    /// Evaluations from White's point of view (`[%eval]`, or an
    /// engine-match comment's score turned to White's view) by ply.
    pub evals: Vec<(u32, Eval)>,
    /// NAGs by ply, in the order written (`!` as 1, …), several per ply
    /// possible.
    pub nags: Vec<(u32, u8)>,
    /// The text of the comments after each move, commands taken out
    /// ([`Piece::Text`]s joined by one space; comments after the same
    /// move too), by ply, as the end of each in `comment_text` (each
    /// starts where the one before ends); plies with no text left have
    /// none. See [`GameRecord::comments`].
    pub comment_ends: Vec<(u32, usize)>,
    /// The comment texts of `comment_ends`, one after the other.
    pub comment_text: String,
    /// Search depths an engine comment gives (`/20`, `d=27`, `[%eval
    /// 0.17,23]`), by ply.
    pub depths: Vec<(u32, u32)>,
    /// Selective depths (`sd=78`), by ply.
    pub seldepths: Vec<(u32, u32)>,
    /// Nodes searched (`n=1906789221`), by ply.
    pub nodes: Vec<(u32, u64)>,
    /// Principal variations (`pv=Nf3 d5`), by ply, as the ends of each in
    /// `pv_text` (as `comment_ends` for `comment_text`).
    pub pv_ends: Vec<(u32, usize)>,
    /// The principal variations of `pv_ends`, one after the other.
    pub pv_text: String,
    /// What followed a move as written, where the notes do not give it
    /// back (a variation, two comments, a comment written otherwise), by
    /// ply; ply 0 for what came before the first move. Only for a game
    /// whose `rebuild` is `Some`.
    pub tails: Vec<(u32, String)>,
    /// The mainline in canonical SAN (with `+`/`#`), space separated, `--`
    /// for a null move; empty unless asked for.
    pub san: String,
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

    /// The comment text of each ply that has one: `(ply, text)`.
    pub fn comments(&self) -> impl Iterator<Item = (u32, &str)> + '_ {
        let starts = std::iter::once(0).chain(self.comment_ends.iter().map(|c| c.1));
        self.comment_ends
            .iter()
            .zip(starts)
            .map(|(&(ply, end), start)| (ply, &self.comment_text[start..end]))
    }

    /// The principal variation of each ply that has one: `(ply, SAN)`.
    pub fn pvs(&self) -> impl Iterator<Item = (u32, &str)> + '_ {
        let starts = std::iter::once(0).chain(self.pv_ends.iter().map(|c| c.1));
        self.pv_ends.iter().zip(starts).map(|(&(ply, end), start)| (ply, &self.pv_text[start..end]))
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
    clocks: Vec<(u32, u32)>,
    emts: Vec<(u32, u32)>,
    evals: Vec<(u32, Eval)>,
    nags: Vec<(u32, u8)>,
    comment_ends: Vec<(u32, usize)>,
    comment_text: String,
    depths: Vec<(u32, u32)>,
    seldepths: Vec<(u32, u32)>,
    nodes: Vec<(u32, u64)>,
    pv_ends: Vec<(u32, usize)>,
    pv_text: String,
    /// Plies whose notes do not give back what follows the move.
    raw_plies: Vec<u32>,
    /// The layout of the last comment read as keyed.
    keyed_layout: Option<Layout>,
    /// The last comment read needs its text as written (a wrapped number).
    unwrapped: bool,
    /// The mainline's SAN so far (ASCII).
    san: Vec<u8>,
    movetext: &'a [u8],
    /// The byte offset of `movetext` in the block.
    movetext_offset: usize,
    no_start: bool,
    /// The opening table when openings are asked for.
    openings: Option<&'static Openings>,
    opening: Option<(u32, u32)>,
    /// No reason found yet to keep the movetext as written.
    rebuildable: bool,
    /// The comments' form, once a comment with an evaluation decided it.
    form: Option<NotesForm>,
    /// The last ply whose comment was checked.
    commented_ply: u32,
    /// A comment as the writer gives it back.
    scratch: String,
    /// A keyed comment's items joined.
    joined: Vec<u8>,
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
            if let Some(after) = self.options.reach_after {
                // Past the first plies only: there, every position is early.
                let reach = if self.moves.len() as u32 > after {
                    Reach::standard().reach(&self.pos).map_or(u8::MAX, |n| n as u8)
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

    /// What a mainline comment after the move of ply `ply` says: an
    /// engine-match form, or its commands and text.
    #[inline(never)]
    fn read_comment(&mut self, comment: RawComment<'_>, ply: u32) {
        // The common shapes, told apart by the first byte, before the
        // general loop: one command (a clock), a score alone, an engine
        // score, plain text.
        let text = comment.0.trim_ascii();
        let whole = match text.first() {
            None => return,
            Some(b'[') => {
                if let Some(ms) = commands::clock_only(text) {
                    first_of_ply(&mut self.clocks, ply, ms);
                    return;
                }
                if let Some((name, value)) = commands::single_command(text) {
                    self.note_command(ply, name, value);
                    return;
                }
                None
            }
            Some(b'0'..=b'9' | b'-' | b'+') => match commands::centipawns_only(text) {
                Some(cp) => Some(WholeComment::Mover {
                    eval: Some(Eval::Centipawns(cp)),
                    depth: None,
                    emt: None,
                    text: None,
                }),
                None => whole_comment(text),
            },
            Some(b'a'..=b'z' | b'A'..=b'Z') => match keyed::read(text) {
                Some(k) => {
                    self.read_keyed(text, &k, ply);
                    return;
                }
                None => whole_comment(text),
            },
            Some(_) => whole_comment(text),
        };
        if whole.is_none()
            && matches!(text[0], b'0'..=b'9' | b'-' | b'+' | b'#')
            && self.read_unwrapped(text, ply)
        {
            return;
        }
        match whole {
            Some(WholeComment::White(eval)) => first_of_ply(&mut self.evals, ply, eval),
            Some(WholeComment::Mover { eval, depth, emt, text }) => {
                self.record_mover(ply, eval, depth, emt, text)
            }
            None if !text.contains(&b'[') => self.add_comment_text(ply, text),
            None => {
                for piece in pieces(text) {
                    match piece {
                        Piece::Command(name, value) => self.note_command(ply, name, value),
                        Piece::Text(text) => self.add_comment_text(ply, text),
                    }
                }
            }
        }
    }

    /// Records the command `name value` of ply `ply` if it is one we read.
    #[inline]
    fn note_command(&mut self, ply: u32, name: &[u8], value: &[u8]) {
        match commands::command(name, value) {
            Some(Command::Clock(ms)) => first_of_ply(&mut self.clocks, ply, ms),
            Some(Command::ElapsedMoveTime(ms)) => first_of_ply(&mut self.emts, ply, ms),
            Some(Command::Eval(e)) => {
                if self.evals.last().is_none_or(|n| n.0 != ply) {
                    if let Some(depth) = commands::eval_depth(value) {
                        first_of_ply(&mut self.depths, ply, depth);
                    }
                }
                first_of_ply(&mut self.evals, ply, e)
            }
            None => {}
        }
    }

    /// Records a keyed comment (TCEC's `d=27, …, wv=0.60,`) of ply `ply`:
    /// its values in their columns, its other items as the comment text.
    fn read_keyed(&mut self, text: &[u8], k: &keyed::Keyed<'_>, ply: u32) {
        if let Some(d) = k.depth {
            first_of_ply(&mut self.depths, ply, d);
        }
        if let Some(d) = k.seldepth {
            first_of_ply(&mut self.seldepths, ply, d);
        }
        if let Some(n) = k.nodes {
            first_of_ply(&mut self.nodes, ply, n);
        }
        if let Some(e) = k.eval {
            first_of_ply(&mut self.evals, ply, e);
        }
        if let Some(ms) = k.emt {
            first_of_ply(&mut self.emts, ply, ms);
        }
        if let Some(ms) = k.clock {
            first_of_ply(&mut self.clocks, ply, ms);
        }
        // The buffer kept between comments.
        let mut joined = std::mem::take(&mut self.joined);
        joined.clear();
        if let Some(pv) = k.pv {
            if self.pv_ends.last().is_none_or(|p| p.0 != ply) {
                keyed::push_words(&mut joined, pv);
                push_decoded(&mut self.pv_text, &joined);
                self.pv_ends.push((ply, self.pv_text.len()));
            }
        }
        joined.clear();
        for (i, item) in keyed::other_items(text).enumerate() {
            if i > 0 {
                joined.extend_from_slice(b", ");
            }
            keyed::push_words(&mut joined, item);
        }
        if !joined.is_empty() {
            self.add_comment_text(ply, &joined);
        }
        self.joined = joined;
        self.keyed_layout = Some(k.layout);
    }

    /// An engine score whose number a line break cut (`{0.\n68/29 292}`,
    /// as files wrapped at a fixed width have): read with the white space
    /// that holds a line break taken out, and written back so.
    #[cold]
    fn read_unwrapped(&mut self, text: &[u8], ply: u32) -> bool {
        if !text.iter().any(|&b| b == b'\n' || b == b'\r') {
            return false;
        }
        let joined = without_line_breaks(text);
        match whole_comment(&joined) {
            Some(WholeComment::Mover { eval, depth: Some(depth), emt, text }) => {
                self.unwrapped = true;
                self.record_mover(ply, eval, Some(depth), emt, text);
                true
            }
            _ => false,
        }
    }

    /// Records an engine score of ply `ply` ([`WholeComment::Mover`]).
    fn record_mover(
        &mut self,
        ply: u32,
        eval: Option<Eval>,
        depth: Option<u32>,
        emt: Option<u32>,
        text: Option<&[u8]>,
    ) {
        if let Some(depth) = depth {
            first_of_ply(&mut self.depths, ply, depth);
        }
        if let Some(eval) = eval {
            // The side to move first plays the odd plies.
            let white_moved = (ply % 2 == 1) == (self.start.turn() == Color::White);
            first_of_ply(&mut self.evals, ply, if white_moved { eval } else { -eval });
        }
        if let Some(ms) = emt {
            first_of_ply(&mut self.emts, ply, ms);
        }
        if let Some(text) = text {
            self.add_comment_text(ply, text);
        }
    }

    /// Adds `text` to the comment of ply `ply` (after a space if it has
    /// one already).
    fn add_comment_text(&mut self, ply: u32, text: &[u8]) {
        match self.comment_ends.last_mut() {
            Some((p, end)) if *p == ply => {
                self.comment_text.push(' ');
                push_comment_words(&mut self.comment_text, text);
                *end = self.comment_text.len();
            }
            _ => {
                push_comment_words(&mut self.comment_text, text);
                self.comment_ends.push((ply, self.comment_text.len()));
            }
        }
    }

    /// Whether the writer gives back the comment `raw` after the move of
    /// ply `ply`, read already: from its ply's notes, in the game's form
    /// (the first comment with engine notes decides it). A comment it does
    /// not give back, an empty one or a second one after the same move
    /// makes the ply's text kept as written.
    #[inline(never)]
    fn check_comment(&mut self, raw: &[u8], ply: u32) {
        let keyed_layout = self.keyed_layout.take();
        // A score a line break cut is compared whole: written back on one
        // line, it reads the same.
        let joined;
        let raw = if std::mem::take(&mut self.unwrapped) {
            joined = without_line_breaks(raw);
            &joined[..]
        } else {
            raw
        };
        if self.commented_ply == ply || raw.trim_ascii().is_empty() {
            self.raw_plies.push(ply);
            return;
        }
        self.commented_ply = ply;
        let of_ply = |notes: &[(u32, u32)]| notes.last().filter(|n| n.0 == ply).map(|n| n.1);
        fn text_of<'t>(ends: &[(u32, usize)], text: &'t str, ply: u32) -> &'t str {
            match ends.last() {
                Some(&(p, end)) if p == ply => {
                    let before = ends.len().checked_sub(2);
                    &text[before.map_or(0, |i| ends[i].1)..end]
                }
                _ => "",
            }
        }
        let notes = PlyNotes {
            clock: of_ply(&self.clocks),
            emt: of_ply(&self.emts),
            eval: self.evals.last().filter(|n| n.0 == ply).map(|n| n.1),
            depth: of_ply(&self.depths),
            seldepth: of_ply(&self.seldepths),
            nodes: self.nodes.last().filter(|n| n.0 == ply).map(|n| n.1),
            pv: text_of(&self.pv_ends, &self.pv_text, ply),
            nags: "",
            text: text_of(&self.comment_ends, &self.comment_text, ply),
            tail: "",
        };
        // The most common comment, a clock alone, is written the same in
        // every form: compared as bytes, without rendering a comment.
        if let (Some(ms), None, None, None, "") =
            (notes.clock, notes.emt, notes.eval, notes.depth, notes.text)
        {
            let (clock, len) = written::clock_ascii(ms);
            if raw.trim_ascii().strip_prefix(b"[%clk ").and_then(|r| r.strip_suffix(b"]"))
                == Some(&clock[..len])
            {
                return;
            }
        }
        let white_moved = (ply % 2 == 1) == (self.start.turn() == Color::White);
        // A keyed comment: the game's layout, with the keys this comment
        // adds.
        let keyed = match (keyed_layout, self.form) {
            (Some(own), Some(NotesForm::Keyed(game))) => match game.merged(&own) {
                Some(layout) => Some(NotesForm::Keyed(layout)),
                None => {
                    self.raw_plies.push(ply);
                    return;
                }
            },
            (Some(own), None) => Some(NotesForm::Keyed(own)),
            // The game's notes are in another form.
            (Some(_), Some(_)) => {
                self.raw_plies.push(ply);
                return;
            }
            (None, _) => None,
        };
        let candidates =
            [NotesForm::Commands, NotesForm::Score, NotesForm::Cutechess, NotesForm::Arena];
        let engine = notes.eval.is_some() || notes.depth.is_some() || !notes.pv.is_empty();
        let forms: &[NotesForm] = match (&keyed, self.form) {
            (Some(form), _) => std::slice::from_ref(form),
            // In a keyed game, a comment of another form with engine notes
            // would be written back keyed.
            (None, Some(NotesForm::Keyed(_))) if engine => &[],
            (None, Some(NotesForm::Keyed(_))) => &candidates[..1],
            (None, Some(form)) => &[form],
            (None, None) => &candidates,
        };
        for &form in forms {
            self.scratch.clear();
            written::write_comment(&mut self.scratch, form, white_moved, &notes);
            let same = written::same_normalised(raw, self.scratch.as_bytes());
            if self.scratch.capacity() > KEPT_CAPACITY {
                self.scratch = String::new();
            }
            if same {
                if notes.eval.is_some() || notes.depth.is_some() || keyed.is_some() {
                    self.form = Some(form);
                }
                return;
            }
        }
        self.raw_plies.push(ply);
    }

    /// Forgets the notes read so far.
    fn clear_notes(&mut self) {
        self.clocks.clear();
        self.emts.clear();
        self.evals.clear();
        self.nags.clear();
        self.comment_ends.clear();
        self.comment_text.clear();
        self.depths.clear();
        self.seldepths.clear();
        self.nodes.clear();
        self.pv_ends.clear();
        self.pv_text.clear();
        self.raw_plies.clear();
        self.keyed_layout = None;
        self.unwrapped = false;
    }

    /// Drops the notes past the last move kept (after a failed move).
    fn drop_notes_past(&mut self, plies: usize) {
        let plies = u32::try_from(plies).unwrap_or(u32::MAX);
        self.clocks.retain(|n| n.0 <= plies);
        self.emts.retain(|n| n.0 <= plies);
        self.evals.retain(|n| n.0 <= plies);
        self.nags.retain(|n| n.0 <= plies);
        // Ply order: the kept comments are the first ones.
        self.comment_ends.retain(|n| n.0 <= plies);
        self.comment_text.truncate(self.comment_ends.last().map_or(0, |c| c.1));
        self.depths.retain(|n| n.0 <= plies);
        self.seldepths.retain(|n| n.0 <= plies);
        self.nodes.retain(|n| n.0 <= plies);
        self.pv_ends.retain(|n| n.0 <= plies);
        self.pv_text.truncate(self.pv_ends.last().map_or(0, |c| c.1));
    }

    /// English failed: retry the whole game in the other languages.
    fn retry_in_other_languages(&mut self) -> bool {
        let texts: Vec<&[u8]> = self.tokens.iter().map(|t| t.0).collect();
        let outcome = Lang::FALLBACKS
            .into_iter()
            .map(|lang| (lang, san::replay(&self.start, &texts, Some(lang))))
            .find(|(_, r)| r.error.is_none());
        let Some((lang, replay)) = outcome else { return false };
        self.restart(Notation::San(lang));
        for m in replay.moves {
            match m {
                Some(m) => self.play_move(m, false),
                None => self.play_null(),
            }
            self.moves.push(m);
            self.record_position();
        }
        true
    }
}

/// A game's movetext read as descriptive notation, not yet taken into the
/// record: the moves played, the comments with the ply they follow, and the
/// error that stopped it.
struct DescriptiveAttempt<'a> {
    moves: Vec<Move>,
    comments: Vec<(u32, &'a [u8])>,
    error: Option<GameError>,
}

impl<'a> Replayer<'a> {
    /// Reads the movetext as written as descriptive notation, from the
    /// start position, without touching the record.
    fn read_descriptive(&self) -> DescriptiveAttempt<'a> {
        let mut pos = self.start.clone();
        let mut origins = descriptive::Origins::new(&pos);
        let mut attempt =
            DescriptiveAttempt { moves: Vec::new(), comments: Vec::new(), error: None };
        for token in descriptive::tokens(self.movetext) {
            let (text, offset) = match token {
                Token::Comment(text) => {
                    attempt.comments.push((attempt.moves.len() as u32, text));
                    continue;
                }
                Token::Move(text, offset) => (text, offset),
            };
            match descriptive::parse_move_in_game(&pos, &origins, text.as_bytes()) {
                Ok(m) => {
                    origins.play(m);
                    pos.play_unchecked(m);
                    attempt.moves.push(m);
                }
                Err(e) => {
                    let message =
                        format!("{}: {}", san::numbered(&pos, text.as_bytes()), e.reason());
                    let offset = self.movetext_offset + offset;
                    attempt.error = Some(GameError { offset, message });
                    break;
                }
            }
        }
        attempt
    }

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

    /// SAN failed in every language: the game is descriptive notation if
    /// that plays every move, or more moves than English did.
    fn retry_descriptive(&mut self) {
        let attempt = self.read_descriptive();
        if (attempt.error.is_none() && !attempt.moves.is_empty())
            || attempt.moves.len() > self.moves.len()
        {
            self.take_descriptive(attempt);
        }
    }

    /// Makes `attempt` the game: its moves, positions, SAN, commands and
    /// error.
    fn take_descriptive(&mut self, attempt: DescriptiveAttempt<'a>) {
        self.restart(Notation::Descriptive);
        self.clear_notes();
        let mut comments = attempt.comments.into_iter().peekable();
        for m in attempt.moves {
            while let Some((_, text)) = comments.next_if(|c| c.0 as usize == self.moves.len()) {
                self.read_descriptive_comment(text);
            }
            self.take_move(m, false);
        }
        for (_, text) in comments {
            self.read_descriptive_comment(text);
        }
        self.failed = attempt.error;
    }

    /// A comment of a game read as descriptive notation, after the moves
    /// played so far (none before the first move). Its NAGs are not read.
    fn read_descriptive_comment(&mut self, text: &[u8]) {
        let ply = u32::try_from(self.moves.len()).unwrap_or(u32::MAX);
        if self.options.commands && ply > 0 {
            self.read_comment(RawComment(text), ply);
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
        self.clear_notes();
        self.movetext = &[];
        self.movetext_offset = 0;
        self.no_start = false;
        self.rebuildable = self.options.rebuild && self.options.commands;
        self.form = None;
        self.commented_ply = 0;
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
        if detect || self.rebuildable {
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
        // Comments of variations are skipped with them.
        match self.note_ply() {
            Some(ply) if crate::pgn::movetext::is_stop_mark(comment.0) => self.raw_plies.push(ply),
            Some(ply) => {
                self.read_comment(comment, ply);
                if self.rebuildable {
                    self.check_comment(comment.0, ply);
                }
            }
            // Before the first move: kept as written.
            None => self.raw_plies.push(0),
        }
    }

    fn line_comment(&mut self, comment: RawComment<'a>) {
        self.rebuildable = false;
        self.comment(comment);
    }

    fn escape_line(&mut self, _line: &'a [u8]) {
        self.rebuildable = false;
    }

    fn begin_variation(&mut self) -> Skip {
        // Kept as written with what else follows its move.
        let ply = self.note_ply().unwrap_or(0);
        self.raw_plies.push(ply);
        Skip(true)
    }

    fn nag(&mut self, nag: u8) {
        match self.note_ply() {
            Some(ply) => self.nags.push((ply, nag)),
            None => self.raw_plies.push(0),
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
        let playable = self.skipped.is_none() && !self.no_start;
        if playable && self.options.notation == Some(Notation::Descriptive) {
            let attempt = self.read_descriptive();
            self.take_descriptive(attempt);
        } else if playable && self.failed.is_some() && self.options.notation.is_none() {
            if !self.tokens.is_empty() && self.retry_in_other_languages() {
                self.failed = None;
            } else {
                self.retry_descriptive();
            }
        }
        if self.failed.is_some() {
            self.drop_notes_past(self.moves.len());
        }
        let tags = if self.options.tags { TagPairs::decode(&self.tags) } else { TagPairs::new() };
        // The result written back is the row's `result`: the first Result
        // tag, if any, must be the movetext's.
        let result_tag = tags.iter().find(|(name, _)| name.eq_ignore_ascii_case("result"));
        let result_agrees =
            result_tag.is_none_or(|(_, value)| Some(value) == self.outcome.map(|o| o.as_str()));
        let rebuild = (self.rebuildable
            && result_agrees
            && self.failed.is_none()
            && self.skipped.is_none()
            && self.notation() == Notation::San(Lang::English)
            && self.syntax.is_empty()
            && self.outcome.is_some()
            && self.moves.iter().all(Option::is_some)
            && self.tokens.len() == self.moves.len())
        .then(|| self.form.unwrap_or(NotesForm::Commands));
        let (rebuild, tails) = match rebuild.map(|form| (form, self.tails())) {
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
            // Copies of exact size (none for the many games without
            // notes), as for the moves.
            clocks: self.clocks.clone(),
            emts: self.emts.clone(),
            evals: self.evals.clone(),
            nags: self.nags.clone(),
            comment_ends: self.comment_ends.clone(),
            comment_text: hand_over(&mut self.comment_text),
            depths: self.depths.clone(),
            seldepths: self.seldepths.clone(),
            nodes: self.nodes.clone(),
            pv_ends: self.pv_ends.clone(),
            pv_text: hand_over(&mut self.pv_text),
            tails,
            // ASCII by construction: the check cannot fail.
            san: String::from_utf8(self.san.clone()).unwrap_or_default(),
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

/// Buffers kept from game to game up to this capacity: a larger one (a
/// comment of megabytes) is given away or dropped, so that one huge game
/// does not hold its size in every worker for the rest of the import.
const KEPT_CAPACITY: usize = 1 << 20;

/// The game's text for its record: a copy of exact size when the buffer is
/// small enough to keep for the next game, else the buffer itself.
fn hand_over(text: &mut String) -> String {
    if text.capacity() > KEPT_CAPACITY {
        std::mem::take(text)
    } else {
        text.clone()
    }
}

impl Replayer<'_> {
    /// The text as written after each move of `raw_plies` (ply 0: before
    /// the first move), up to the next move's number or the result.
    /// `None` if a ply has no move to follow (never for a game read
    /// whole).
    fn tails(&mut self) -> Option<Vec<(u32, String)>> {
        if self.raw_plies.is_empty() {
            return Some(Vec::new());
        }
        self.raw_plies.sort_unstable();
        self.raw_plies.dedup();
        let start = self.movetext_offset;
        let end = start + self.movetext.len();
        let result = self.outcome.map_or("", |o| o.as_str());
        let mut tails = Vec::with_capacity(self.raw_plies.len());
        for &ply in &self.raw_plies {
            let i = ply as usize;
            let from = match i {
                0 => start,
                _ => self.tokens.get(i - 1).map(|(san, offset)| offset + san.len())?,
            };
            let to = self.tokens.get(i).map_or(end, |t| t.1);
            let text = self.movetext.get(from.checked_sub(start)?..to.checked_sub(start)?)?;
            let text = if i < self.tokens.len() {
                without_move_number(text)
            } else {
                let rest = text.trim_ascii_end();
                rest.strip_suffix(result.as_bytes()).unwrap_or(rest)
            };
            let text = text.trim_ascii();
            if !text.is_empty() {
                tails.push((ply, crate::pgn::source::decode_text(text).into_owned()));
            }
        }
        Some(tails)
    }
}

/// `text` without the move number at its end (`12.`, `12...`, `12…`, a
/// bare `12`).
fn without_move_number(text: &[u8]) -> &[u8] {
    let trimmed = text.trim_ascii_end();
    let mut rest = trimmed;
    while let Some(r) = rest.strip_suffix(b".").or_else(|| rest.strip_suffix("…".as_bytes())) {
        rest = r;
    }
    let digits = rest.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let before = &rest[..rest.len() - digits];
    // A number after a space, a comment or a variation (not a NAG's `$12`).
    if digits > 0
        && before.last().is_none_or(|&b| b.is_ascii_whitespace() || b == b'}' || b == b')')
    {
        before
    } else {
        trimmed
    }
}

/// Appends `text` decoded (UTF-8, else Windows-1252).
#[inline]
fn push_decoded(out: &mut String, text: &[u8]) {
    match std::str::from_utf8(text) {
        Ok(text) => out.push_str(text),
        Err(_) => out.push_str(&crate::pgn::source::decode_text(text)),
    }
}

/// A comment's `text`, decoded, with each run of white space as one space
/// and none at its ends: the words the export writes back, whatever lines
/// it wraps them over, so that a comment reads the same after a round
/// trip.
fn push_comment_words(out: &mut String, text: &[u8]) {
    let text = text.trim_ascii();
    if crate::pgn::keyed::single_spaced(text) {
        return push_decoded(out, text);
    }
    let decoded = crate::pgn::source::decode_text(text);
    for (i, word) in
        decoded.split(|c: char| c.is_ascii_whitespace()).filter(|w| !w.is_empty()).enumerate()
    {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
}

/// `text` without the runs of white space that hold a line break: an
/// engine score cut by a line break (`{0.\n68/29 292}`) made whole.
fn without_line_breaks(text: &[u8]) -> Vec<u8> {
    let mut joined = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let end =
            text[i..].iter().position(|b| !b.is_ascii_whitespace()).map_or(text.len(), |n| i + n);
        if end > i {
            let run = &text[i..end];
            if !run.iter().any(|&b| b == b'\n' || b == b'\r') {
                joined.extend_from_slice(run);
            }
            i = end;
        } else {
            joined.push(text[i]);
            i += 1;
        }
    }
    joined
}

/// Adds `value` for `ply` unless that ply has one already (the first
/// written counts, as python-chess reads it).
#[inline]
fn first_of_ply<T>(notes: &mut Vec<(u32, T)>, ply: u32, value: T) {
    if notes.last().is_none_or(|n| n.0 != ply) {
        notes.push((ply, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert_eq!(g.clocks, [(1, 180_000), (2, 178_600)]);
        assert_eq!(g.evals, [(1, Eval::Centipawns(17)), (3, Eval::Mate(-4))]);
        let g = &replay(text, ReplayOptions::default())[0];
        assert!(g.clocks.is_empty() && g.evals.is_empty());
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
        assert_eq!(g.nags, [(1, 1), (1, 18), (2, 4)]);
        assert_eq!(g.clocks, [(1, 300_000), (2, 298_000)]);
        // A score alone is the mover's: White's move, White's view.
        assert_eq!(g.evals, [(2, Eval::Centipawns(17)), (3, Eval::Centipawns(33))]);
        let comments: Vec<(u32, &str)> = g.comments().collect();
        assert_eq!(comments, [(1, "A fine move"), (3, "again")]);
    }

    #[test]
    fn first_reading_of_a_ply_counts() {
        let g = noted("1. e4 {[%clk 0:01:00] [%clk 0:02:00]} {[%eval 1.0]} {[%eval 2.0]} *");
        assert_eq!(g.clocks, [(1, 60_000)]);
        assert_eq!(g.evals, [(1, Eval::Centipawns(100))]);
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
        assert!(g.evals.is_empty());
        assert_eq!(g.emts, [(4, 3)]);
        assert_eq!(g.comments().collect::<Vec<_>>(), [(4, "Black mates")]);
    }

    #[test]
    fn engine_match_scores_turn_to_whites_view() {
        let g = noted(
            "1. e4 {+0.35/20 1.2s} e5 {+0.12/18 0.8s} 2. Qh5 {-M5/30 0.5s} Nc6 {+M3/12 0.02s}              3. Bc4 {0.18/23 239} Nf6 { eval -1.4 } *",
        );
        use Eval::{Centipawns, Mate};
        assert_eq!(
            g.evals,
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
        assert_eq!(g.emts, [(1, 1_200), (2, 800), (3, 500), (4, 20), (5, 239_000)]);
        assert_eq!(g.depths, [(1, 20), (2, 18), (3, 30), (4, 12), (5, 23)]);
        assert!(g.comment_ends.is_empty(), "{:?}", g.comment_text);
        // From a position with Black to move, Black plays the odd plies.
        let g = noted(
            "[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1\"]\n\n1... Kd7 {+0.50/10} 2. Kd2 {+0.40/10} *",
        );
        assert_eq!(g.evals, [(1, Centipawns(-50)), (2, Centipawns(40))]);
    }

    #[test]
    fn nothing_is_kept_past_a_failed_move() {
        let text = "1. e4 {[%clk 0:01:00]} e5 {a} $1 2. Qxf7 {[%clk 0:00:59] b} $4 Nc6 {c} *";
        for notation in [None, Some(Notation::San(Lang::English))] {
            let options = ReplayOptions { commands: true, notation, ..ReplayOptions::default() };
            let g = replay(text, options).remove(0);
            assert!(g.error.is_some());
            assert_eq!(g.plies(), 2);
            assert_eq!(g.clocks, [(1, 60_000)]);
            assert_eq!(g.nags, [(2, 1)]);
            assert_eq!(g.comments().collect::<Vec<_>>(), [(2, "a")]);
        }
    }

    #[test]
    fn notes_after_a_move_read_in_another_language_are_kept() {
        let g = noted("1. e4 {[%clk 0:01:00]} e5 2. Cf3 {bon} $1 Cc6 {[%eval 0.3]} *");
        assert_eq!(g.notation, Notation::San(Lang::French));
        assert!(g.error.is_none());
        assert_eq!(g.clocks, [(1, 60_000)]);
        assert_eq!(g.nags, [(3, 1)]);
        assert_eq!(g.comments().collect::<Vec<_>>(), [(3, "bon")]);
        assert_eq!(g.evals, [(4, Eval::Centipawns(30))]);
    }

    #[test]
    fn notes_of_a_game_read_as_descriptive_notation() {
        let text = "[Event \"a\"]\n\n{intro} 1. P-K4 {[%clk 0:03:00] good} P-K4 {[%eval 0.2]} \
                    2. Kt-KB3 {fine} (2. B-B4 {side}) Kt-QB3 *";
        for notation in [None, Some(Notation::Descriptive)] {
            let options = ReplayOptions { commands: true, notation, ..ReplayOptions::default() };
            let g = replay(text, options).remove(0);
            assert_eq!((g.notation, g.plies()), (Notation::Descriptive, 4), "{notation:?}");
            assert_eq!(g.clocks, [(1, 180_000)]);
            assert_eq!(g.evals, [(2, Eval::Centipawns(20))]);
            assert_eq!(g.comments().collect::<Vec<_>>(), [(1, "good"), (3, "fine")]);
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
        assert_eq!(games[0].clocks, [(1, 180_000)]);
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
        assert_eq!(forced[0].clocks, [(1, 180_000)]);
        assert_eq!(forced[1].plies(), 0);
        assert_eq!(forced[1].error.as_ref().unwrap().message, "1. e4: not a move: no piece");
    }
}
