//! The players of the games an import stores, counted on a thread of
//! their own ([`PlayerTally`]) as the writer hands them over: at its end
//! the import adds them to the stored players
//! ([`crate::db::players::finish_write`]) instead of reading every game
//! again.

use std::sync::mpsc::{self, SyncSender};
use std::thread::JoinHandle;

use crate::db::players::Tally;
use crate::store::encode::rows::GameRow;
use crate::timings::{self, Stage};

/// What `game_rows` stores of a game's players.
#[derive(Debug)]
struct Sides {
    names: [Option<String>; 2],
    result: Option<&'static str>,
    year: Option<i64>,
    elos: [Option<i64>; 2],
}

/// Games handed over at once: one message per chunk of games or so.
const HANDOVER: usize = 256;

/// Chunks of games waiting for the thread: enough for it to lag a batch.
const WAITING: usize = 64;

/// The counting of the players of the games stored, beside the writer.
#[derive(Debug)]
pub struct PlayerTally {
    pending: Vec<Sides>,
    sender: Option<SyncSender<Vec<Sides>>>,
    thread: Option<JoinHandle<Tally>>,
    /// The count made here, when the system refused the thread.
    here: Tally,
}

impl PlayerTally {
    /// Starts the thread (counting on the caller's if it cannot).
    pub fn start() -> PlayerTally {
        let (sender, games) = mpsc::sync_channel::<Vec<Sides>>(WAITING);
        let thread = std::thread::Builder::new()
            .name(Stage::Players.thread().into())
            .spawn(move || {
                let _clock = timings::ThreadClock::start(Stage::Players);
                let mut tally = Tally::default();
                for sides in games {
                    sides.into_iter().for_each(|s| count(&mut tally, s));
                }
                tally
            })
            .ok();
        PlayerTally {
            pending: Vec::with_capacity(HANDOVER),
            sender: thread.is_some().then_some(sender),
            thread,
            here: Tally::default(),
        }
    }

    /// Counts the players of `game`, stored: its names are moved out of it
    /// (the writer no longer needs them), not copied.
    pub fn push(&mut self, game: &mut GameRow) {
        let h = &mut game.header;
        let result = h
            .result
            .as_deref()
            .and_then(|r| ["1-0", "0-1", "1/2-1/2"].into_iter().find(|&scored| scored == r));
        self.pending.push(Sides {
            names: [h.white.take(), h.black.take()],
            result,
            year: game.analysis.year,
            elos: [h.white_elo, h.black_elo],
        });
        if self.pending.len() >= HANDOVER {
            self.hand_over();
        }
    }

    fn hand_over(&mut self) {
        let sides = std::mem::replace(&mut self.pending, Vec::with_capacity(HANDOVER));
        let sides = match &self.sender {
            Some(sender) => match sender.send(sides) {
                Ok(()) => return,
                // The thread is gone (it panicked), and its count with it:
                // `finish` says so, and the import counts every game again.
                Err(mpsc::SendError(sides)) => sides,
            },
            None => sides,
        };
        sides.into_iter().for_each(|s| count(&mut self.here, s));
    }

    /// The players of every game pushed; `None` if some were lost.
    pub fn finish(mut self) -> Option<Tally> {
        self.hand_over();
        self.sender = None;
        match self.thread.take() {
            // A thread that panicked lost its count.
            Some(thread) => thread.join().ok(),
            None => Some(self.here),
        }
    }
}

/// Counts the players of one game.
fn count(tally: &mut Tally, sides: Sides) {
    let [white, black] = &sides.names;
    tally.add_game([white.as_deref(), black.as_deref()], sides.result, sides.year, sides.elos);
}
