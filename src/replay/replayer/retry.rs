//! The readings a game gets when English SAN fails on it: the whole game
//! retried in each other piece-letter language, and the first that plays
//! every move wins; when none does, the movetext as written read as
//! English descriptive notation, which wins if it plays every move, or
//! gets further than English did (its error is then the game's). A
//! notation the caller forced is the only one tried
//! ([`Notation::Descriptive`] reads the movetext as written, not the SAN
//! tokens).

use super::{GameError, Replayer};
use crate::chess::{Color, Move};
use crate::notation::lang::Lang;
use crate::notation::moves::Notation;
use crate::notation::san;
use crate::pgn::RawComment;
use crate::replay::descriptive;

/// A game's movetext read as descriptive notation, not yet taken into the
/// record: the moves played, the comments with the ply they follow, and the
/// error that stopped it.
struct DescriptiveAttempt<'a> {
    moves: Vec<Move>,
    comments: Vec<(u32, &'a [u8])>,
    error: Option<GameError>,
}

impl<'a> Replayer<'a> {
    /// At the end of a playable game: the game read as descriptive
    /// notation if that was forced, or in another notation if English
    /// failed and none was forced.
    pub(super) fn read_in_other_notations(&mut self) {
        if self.options.notation == Some(Notation::Descriptive) {
            let attempt = self.read_descriptive();
            self.take_descriptive(attempt);
        } else if self.failed.is_some() && self.options.notation.is_none() {
            if !self.tokens.is_empty() && self.retry_in_other_languages() {
                self.failed = None;
            } else {
                self.retry_descriptive();
            }
        }
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

    /// Reads the movetext as written as descriptive notation, from the
    /// start position, without touching the record.
    fn read_descriptive(&self) -> DescriptiveAttempt<'a> {
        let reading = descriptive::read(&self.start, self.movetext);
        let error = reading.error.map(|(offset, e)| {
            let text = reading.texts.last().map_or(&b""[..], |t| t.as_bytes());
            GameError {
                offset: self.movetext_offset + offset,
                message: format!("{}: {}", san::numbered(&reading.end, text), e.reason()),
            }
        });
        DescriptiveAttempt { moves: reading.moves, comments: reading.comments, error }
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
        self.notes.clear();
        self.rebuild.clear_raw();
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
            let white_first = self.start.turn() == Color::White;
            self.notes.comment(RawComment(text), ply, white_first);
            self.notes.forget_last();
        }
    }
}
