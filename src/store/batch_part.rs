//! What the writer holds for the open batch beside its transaction: names
//! and texts given ids, dedupe keys, the tree's new deep positions, the
//! images loaded for transfer. Each part keeps what the batch added when
//! its transaction commits and forgets it when it rolls back; the writer
//! ends every part through one list ([`BatchParts::each`]), so that a
//! part cannot be left out of one of the two ends and carry a failed
//! batch into the next.

use rusqlite::Connection;

use crate::db::move_codes::{self, CodeSet, Moves};

use super::dedupe::DedupeIndex;
use super::encode::rows::StoredGame;
use super::game_tables::GameTables;
use super::image::ImageSlot;
use super::sorter::PositionSorter;
use super::tag_names::TagNames;
use super::texts::GameTexts;
use super::tree::TreeBatch;

/// A part of the writer's state that follows the open batch.
pub(super) trait BatchPart {
    /// The batch's transaction committed: what it added is the file's now.
    ///
    /// # Errors
    /// Database errors (the part reads the committed file).
    fn committed(&mut self, conn: &Connection) -> rusqlite::Result<()>;

    /// The batch's transaction rolled back: what it added is forgotten.
    fn discard(&mut self, conn: &Connection);
}

/// The writer's parts that follow the open batch.
pub(super) struct BatchParts {
    /// The batch's position rows, sorted off the writer thread.
    pub positions: PositionSorter,
    /// Where the segment images are copied from.
    pub image_slot: ImageSlot,
    /// The batch's per-game rows, copied at its commit.
    pub tables: GameTables,
    /// Where their image is copied from.
    pub tables_slot: ImageSlot,
    /// The games of the batch, as a dedupe match compares them (kept
    /// unless duplicates are kept): they are in no table yet.
    pub stored: Vec<StoredGame>,
    /// The ids of the tag names.
    pub tag_names: TagNames,
    /// Ids of the `game_texts` values.
    pub texts: GameTexts,
    /// The dedupe keys.
    pub dedupe: DedupeIndex,
    /// The batch's rows of the explorer's tree (`None`: a database without
    /// one).
    pub tree: Option<TreeBatch>,
    /// The move codes the stored games use.
    pub move_codes: MoveCodes,
}

impl BatchParts {
    /// Every part, in the order a commit ends them (the dedupe index reads
    /// the committed keys last).
    pub fn each(&mut self) -> [&mut dyn BatchPart; 10] {
        [
            &mut self.positions,
            &mut self.image_slot,
            &mut self.tables,
            &mut self.tables_slot,
            &mut self.stored,
            &mut self.tag_names,
            &mut self.texts,
            &mut self.tree,
            &mut self.move_codes,
            &mut self.dedupe,
        ]
    }
}

impl BatchPart for PositionSorter {
    /// The batch's image was taken by its segment's write.
    fn committed(&mut self, _: &Connection) -> rusqlite::Result<()> {
        Ok(())
    }

    fn discard(&mut self, _: &Connection) {
        PositionSorter::discard(self);
    }
}

impl BatchPart for ImageSlot {
    /// SQLite no longer reads the image once the transaction has ended.
    fn committed(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        self.clear(conn)
    }

    fn discard(&mut self, conn: &Connection) {
        // A slot that cannot be cleared keeps its image (leaked, not freed
        // under SQLite) and the next load replaces it.
        let _ = self.clear(conn);
    }
}

impl BatchPart for GameTables {
    /// The batch's rows were taken by their write.
    fn committed(&mut self, _: &Connection) -> rusqlite::Result<()> {
        Ok(())
    }

    fn discard(&mut self, _: &Connection) {
        GameTables::discard(self);
    }
}

/// The codes `move_codes` holds, and those the batch's games add.
pub(super) struct MoveCodes {
    /// Committed, and the batch's.
    held: CodeSet,
    /// The batch's.
    new: Vec<u16>,
}

impl MoveCodes {
    /// The codes `conn`'s table holds.
    ///
    /// # Errors
    /// SQLite's.
    pub fn stored(conn: &Connection) -> rusqlite::Result<MoveCodes> {
        Ok(MoveCodes { held: CodeSet::stored(conn)?, new: Vec::new() })
    }

    /// Notes the codes of a stored game's moves: a check a ply, and the
    /// rare code met for the first time.
    pub fn add(&mut self, moves: &Moves) {
        if let Some(codes) = moves.codes() {
            self.held.add_new(codes, &mut self.new);
        }
    }

    /// Notes the codes of stored games, each once ([`CodeSet::distinct`]).
    pub fn add_distinct(&mut self, codes: &[u16]) {
        for &code in codes {
            if self.held.insert(code) {
                self.new.push(code);
            }
        }
    }

    /// Writes the batch's new codes into the table, in code order (the
    /// table is the same whichever way they were noted).
    ///
    /// # Errors
    /// SQLite's.
    pub fn write(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        self.new.sort_unstable();
        move_codes::store(conn, &self.new)
    }
}

impl BatchPart for MoveCodes {
    fn committed(&mut self, _: &Connection) -> rusqlite::Result<()> {
        self.new.clear();
        Ok(())
    }

    fn discard(&mut self, _: &Connection) {
        for code in self.new.drain(..) {
            self.held.remove(code);
        }
    }
}

impl BatchPart for Vec<StoredGame> {
    fn committed(&mut self, _: &Connection) -> rusqlite::Result<()> {
        self.clear();
        Ok(())
    }

    fn discard(&mut self, _: &Connection) {
        self.clear();
    }
}

impl BatchPart for TagNames {
    fn committed(&mut self, _: &Connection) -> rusqlite::Result<()> {
        TagNames::committed(self);
        Ok(())
    }

    fn discard(&mut self, _: &Connection) {
        TagNames::discard(self);
    }
}

impl BatchPart for GameTexts {
    fn committed(&mut self, _: &Connection) -> rusqlite::Result<()> {
        GameTexts::committed(self);
        Ok(())
    }

    fn discard(&mut self, _: &Connection) {
        GameTexts::discard(self);
    }
}

impl BatchPart for Option<TreeBatch> {
    fn committed(&mut self, _: &Connection) -> rusqlite::Result<()> {
        if let Some(tree) = self {
            tree.committed();
        }
        Ok(())
    }

    fn discard(&mut self, _: &Connection) {
        if let Some(tree) = self {
            tree.clear();
        }
    }
}

impl BatchPart for DedupeIndex {
    fn committed(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        DedupeIndex::committed(self, conn)
    }

    fn discard(&mut self, _: &Connection) {
        DedupeIndex::discard(self);
    }
}
