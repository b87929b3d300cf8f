//! The one writer of an import: takes [`GameRow`]s in input order and
//! stores them in SQLite.
//!
//! Transactions hold whole games: a batch of games is inserted (games and
//! tags as they come; their dedupe keys wait in the [`DedupeIndex`], which
//! lookups search too), then the batch's position rows and dedupe keys,
//! each sorted by key, and the source's counters and
//! `resume_offset`, then one COMMIT. A kill at any moment leaves the games
//! of the committed batches, and the next run of the same input resumes
//! after the last committed byte. Position rows reach the B-tree in key
//! order within each batch: that order, not the row count, decides the
//! insert speed of a table keyed by hash.
//!
//! The journal follows [`Sharing`]: with readers, a write-ahead log folded
//! into the file by a `Checkpointer` thread; exclusive, a rollback
//! journal under SQLite's exclusive lock, where committed pages go straight
//! into the file (written once, not twice) and the file is synced once at
//! the end.

use std::collections::HashSet;
use std::fs::File;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};
use std::time::Instant;

use rusqlite::types::{ToSql, ToSqlOutput};
use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};

use super::append;
use super::batch::BatchPlan;
use super::batch_part::BatchParts;
use super::checkpoint::Checkpointer;
use super::dedupe::DedupeIndex;
use super::encode::records::{Encoder, GameRecords, Hole, SummaryHole, TagsRecord};
use super::encode::rows::{GameRow, Header, RowOptions, StoredGame};
use super::encode::visits::{ChunkTree, TreeVisits};
use super::flush::Flusher;
use super::format::explorer::first_mover;
use super::game_tables::{self, GameTables, Shapes, Table};
use super::image::{CutRecord, ImageSlot, Value};
use super::player_tally::PlayerTally;
use super::segments::{self, Fens};
use super::sorter::PositionSorter;
use super::tag_names::TagNames;
use super::texts::GameTexts;
use super::tree::{self, TreeBatch};
use crate::db::columns::{columns, select_list, Columns};
use crate::db::{self, DbError, GameId, Sharing};
use crate::db::{dates, players, texts};
use crate::pgn::source::{Facts, SourceError};

/// How the writer stores games.
#[derive(Debug, Clone, Copy)]
pub struct WriterOptions {
    /// Store a game even if the same game is already stored.
    pub keep_duplicates: bool,
    /// Stop before the first bad game: it is reported, not stored, and its
    /// source stays unfinished just before it.
    pub strict: bool,
    /// Commit once a batch holds this many position rows...
    pub batch_positions: usize,
    /// ... or this many games.
    pub batch_games: usize,
    /// Refuse to grow the database beyond this many pages (SQLite's
    /// `max_page_count`): a disk that is full, for tests.
    pub max_pages: Option<u64>,
    /// Queries alongside the import, or the database to itself.
    pub sharing: Sharing,
    /// What the rows index (recorded per source: `positions_indexed`,
    /// `max_ply`).
    pub index: RowOptions,
}

/// Games per batch when no positions are indexed (`--no-positions`): a
/// batch's log (≈ 1.6 KB a game, 40 MB) then stays under the log limit
/// (`checkpoint::WAL_LIMIT`, 64 MiB), so the checkpoint thread copies one
/// batch into the database file while the writer stores the next, and the
/// writer copies only the remainder when the log restarts; larger batches
/// were slower.
pub const BATCH_GAMES_WITHOUT_POSITIONS: usize = 25_000;

impl Default for WriterOptions {
    fn default() -> WriterOptions {
        WriterOptions {
            keep_duplicates: false,
            strict: false,
            batch_positions: 8 << 20,
            batch_games: 100_000,
            max_pages: None,
            sharing: Sharing::Readers,
            index: RowOptions::default(),
        }
    }
}

/// What went wrong while writing.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// Opening the database.
    #[error(transparent)]
    Db(#[from] DbError),
    /// Another import holds the database.
    #[error("{}: another pgnindex import, delete or vacuum is writing to this database; wait for it to finish", path.display())]
    Busy {
        /// The database.
        path: PathBuf,
    },
    /// The import lock could not be taken.
    #[error("{}: cannot lock the database: {error}", path.display())]
    Lock {
        /// The database.
        path: PathBuf,
        /// The system's error (part of the message).
        error: std::io::Error,
    },
    /// The database holds as many games as [`GameId`]s can number.
    #[error("{}: holds the most games a database can (game ids end at {})", path.display(), GameId::MAX)]
    TooManyGames {
        /// The database.
        path: PathBuf,
    },
    /// An SQLite statement failed (disk full, read-only file, …).
    // SQLite's message is part of this one (not a `source`): printed once.
    #[error("{}: {error}", path.display())]
    Sqlite {
        /// The database.
        path: PathBuf,
        /// SQLite's error.
        error: rusqlite::Error,
    },
    /// The input could not be read to the end for its fingerprint.
    #[error(transparent)]
    Fingerprint(#[from] SourceError),
    /// The database file could not be written to disk at the end.
    #[error("{}: cannot write the database to disk: {error}", path.display())]
    Sync {
        /// The database.
        path: PathBuf,
        /// The system's error (part of the message).
        error: std::io::Error,
    },
}

/// What [`Writer::begin_source`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceStart {
    /// The same content was fully imported before: nothing to do.
    AlreadyImported {
        /// The source row of that import.
        source_id: i64,
    },
    /// Import it, skipping the games before `resume_offset` (committed by
    /// an earlier run that was cut).
    Import {
        /// The source row.
        source_id: i64,
        /// Input bytes already done.
        resume_offset: u64,
    },
}

/// Counts of one import (all sources).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Games stored.
    pub games: u64,
    /// Games skipped as already stored.
    pub duplicates: u64,
    /// Bad games (stored up to the bad move, or not stored).
    pub errors: u64,
    /// Position rows stored.
    pub positions: u64,
    /// Half-moves of the stored games.
    pub plies: u64,
    /// Games skipped because an earlier, cut run had committed them.
    pub resumed: u64,
}

/// The source being imported.
#[derive(Debug)]
struct CurrentSource {
    id: i64,
    name: String,
    /// The file's fingerprint being computed: its row holds none yet, and
    /// gets it in the first commit ([`Writer::commit`]), so that no games
    /// of the source are committed without it.
    hashing: Option<Facts>,
    resume_offset: u64,
    game_number: u64,
    started: Instant,
    /// Counts not yet committed.
    games: u64,
    duplicates: u64,
    errors: u64,
    positions: u64,
}

/// What a row of `import_errors` reports (its `kind` column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// A bad game, stored up to its bad move.
    Error,
    /// A game not stored: another variant, or text without tags or moves.
    Skipped,
    /// Text the reader went past (skipped between games, a syntax slip);
    /// the game, if any, is stored whole.
    Warning,
}

impl ProblemKind {
    /// The stored text: `error`, `skipped` or `warning` (the values the
    /// schema documents; queries select by them).
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::Error => "error",
            ProblemKind::Skipped => "skipped",
            ProblemKind::Warning => "warning",
        }
    }
}

impl ToSql for ProblemKind {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

/// A bad game or a warning, located, for the caller to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// `FILE:LINE:COL: message`.
    pub text: String,
    /// What it reports.
    pub kind: ProblemKind,
}

/// The writer. Owns the connection and the import lock.
pub struct Writer {
    conn: Connection,
    path: PathBuf,
    /// The import lock; also how the file is synced, alongside by the
    /// [`Flusher`] and at the end of an exclusive import. Declared after
    /// `db`, so that it is closed after the connection (see
    /// [`Flusher::start`]).
    lock: Arc<File>,
    /// Whether `lock` is open for writing too.
    lock_writable: bool,
    options: WriterOptions,
    /// The id of the next game stored (checked against [`GameId`]'s range
    /// when one is).
    next_id: i64,
    in_transaction: bool,
    /// How pages reach the database.
    page_writes: segments::PageWrites,
    /// What the open batch added beside its transaction.
    batch: BatchParts,
    /// The position in `game_rows` of each of [`inserted_columns`].
    row_order: Vec<usize>,
    /// The position in `ply_data` of each of [`PLY_DATA_COLUMNS`].
    ply_data_order: Vec<usize>,
    /// The id of the open transaction's first game.
    batch_first_id: i64,
    /// A `game_rows` record and its `games_summary` record, reused.
    scratch: (Vec<u8>, Vec<u8>),
    /// Where the batches of position rows end.
    plan: BatchPlan,
    fens: Fens,
    batch_games: usize,
    source: Option<CurrentSource>,
    totals: Totals,
    problems: Box<dyn FnMut(Problem) + Send>,
    /// Copies the log into the database file beside the writer (`None`:
    /// SQLite's automatic checkpoint on this connection).
    checkpointer: Option<Checkpointer>,
    /// Syncs the database file alongside (see [`Flusher`]).
    flusher: Option<Flusher>,
    /// Ids of the games a dedupe lookup found (reused).
    candidates: Vec<GameId>,
    /// Position rows this import may still merge (`segments::compact`):
    /// [`segments::MERGE_RATIO`] for each row it wrote, less what it merged.
    merge_budget: u64,
    /// The dedupe index's full levels are merged before the next batch
    /// stores a game, not after the commit that fills them: the next
    /// batch's pages then take those the merge frees, and an import that
    /// ends on a full level leaves no free pages behind (the next import
    /// merges it).
    dedupe_due: bool,
    /// `players` reads the games until [`Writer::finish`] fills its table
    /// again (set before the first batch), and what it found then.
    players_live: Option<players::Live>,
    /// The players of the games stored, counted beside the writer.
    player_tally: Option<PlayerTally>,
    /// The sizes of the sources begun, read once ([`Writer::has_source_of_size`]).
    source_sizes: Option<HashSet<u64>>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").field("path", &self.path).field("next_id", &self.next_id).finish()
    }
}

columns! {
    /// The `games` columns the writer fills itself; a [`GameRow`] holds the
    /// others.
    pub(crate) struct Assigned {
        pub(crate) id: GameId,
        pub(crate) source_id: i64,
        pub(crate) source_offset: u64,
    }
}

/// The `games` columns [`INSERT_GAME`] binds: the [`Assigned`] ones, then
/// the [`GameRow`]'s.
pub(crate) fn inserted_columns() -> impl Iterator<Item = &'static str> {
    Assigned::NAMES.iter().chain(GameRow::NAMES).copied()
}

/// The parameter of [`inserted_columns`] that `moves` fills: given
/// [`GameRow::packed_moves`], the column's value.
static MOVES_PARAM: LazyLock<usize> =
    LazyLock::new(|| inserted_columns().position(|c| c == "moves").expect("moves is stored"));

/// The values of [`inserted_columns`] that `site`, `white` and `black` fill
/// ([`texts::NAME_COLUMNS`]): given a name's id where it has one.
static NAME_PARAMS: LazyLock<Vec<usize>> = LazyLock::new(|| {
    texts::NAME_COLUMNS
        .iter()
        .map(|&name| inserted_columns().position(|c| c == name).expect("it is stored"))
        .collect()
});

/// The value of [`inserted_columns`] that `final_fen` fills: given
/// [`GameRow::packed_final_fen`], the column's value.
static FINAL_FEN_PARAM: LazyLock<usize> = LazyLock::new(|| {
    inserted_columns().position(|c| c == "final_fen").expect("final_fen is stored")
});

/// The value of [`inserted_columns`] that `date` fills: `NULL` where the
/// date's parts write it back ([`dates`]).
static DATE_PARAM: LazyLock<usize> =
    LazyLock::new(|| inserted_columns().position(|c| c == "date").expect("date is stored"));

/// The values of [`inserted_columns`] stored as `game_texts` ids.
static TEXT_PARAMS: LazyLock<Vec<bool>> =
    LazyLock::new(|| inserted_columns().map(texts::is_text_column).collect());

/// The `ply_data` columns a [`crate::store::format::plies::PlyData`] fills, in the
/// order [`Writer::store`] gives them.
pub(crate) const PLY_DATA_COLUMNS: [&str; 18] = [
    "game_id",
    "clocks",
    "emts",
    "evals",
    "nags",
    "comments",
    "notes_form",
    "depths",
    "seldepths",
    "nodes",
    "notes_layout",
    "tails",
    "white_clock_moves",
    "white_clock_drop_ms",
    "white_clock_max_drop_ms",
    "black_clock_moves",
    "black_clock_drop_ms",
    "black_clock_max_drop_ms",
];

// Every INSERT of the import says OR ROLLBACK: a failing statement
// (disk full, say) ends the whole transaction anyway, and a statement that
// can only roll back the transaction needs no statement journal — with
// one, SQLite copies every already-dirty page a statement touches into
// the journal first.

const INSERT_ERROR: &str =
    "INSERT OR ROLLBACK INTO import_errors (source_id, game_number, game_id, kind, \
    byte_offset, line, \"column\", message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

/// Reads a [`StoredGame`] by id.
static STORED_GAME: LazyLock<String> = LazyLock::new(|| {
    let columns = select_list::<StoredGame>("g").replace("g.packed_moves", "r.packed_moves");
    format!("SELECT {columns} FROM games AS g JOIN game_rows AS r ON r.id = g.id WHERE g.id = ?1")
});

/// The per-game rows a full batch holds in memory at most, in bytes (the
/// first batches of an input less, [`BatchPlan`]): their image takes as
/// much again while it is copied. Games with long notes
/// (TCEC's engine comments, 26 KB a game) end a batch before its games
/// or positions would.
const TABLES_BYTES: usize = 64 << 20;

/// The schema the writer's connection reads the per-game tables' images
/// from ([`GameTables`]).
const TABLES_SCHEMA: &str = "pgnindex_tables";

/// The current UTC time as ISO 8601 text, by SQLite.
const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";

/// Takes the import lock of the database at `path`: held by one import
/// (or vacuum) at a time, until the returned file is closed.
///
/// # Errors
/// [`WriteError::Busy`] if another process holds it; [`WriteError::Lock`]
/// if the file cannot be opened or locked.
pub(super) fn import_lock(path: &Path) -> Result<File, WriteError> {
    writable_import_lock(path).map(|(lock, _)| lock)
}

/// [`import_lock`], open for writing too where the file allows it (the
/// `bool`): a merge writes pages through it.
fn writable_import_lock(path: &Path) -> Result<(File, bool), WriteError> {
    // SQLite's own locks are per transaction; this one (flock, which does
    // not interfere with SQLite's fcntl locks) is held for the whole import
    // and dies with the process.
    let (lock, writable) = match std::fs::OpenOptions::new().read(true).write(true).open(path) {
        Ok(lock) => (Ok(lock), true),
        Err(_) => (File::open(path), false),
    };
    let lock = lock.map_err(|error| WriteError::Lock { path: path.to_path_buf(), error })?;
    match lock.try_lock() {
        Ok(()) => Ok((lock, writable)),
        Err(std::fs::TryLockError::WouldBlock) => {
            Err(WriteError::Busy { path: path.to_path_buf() })
        }
        Err(std::fs::TryLockError::Error(source)) => {
            Err(WriteError::Lock { path: path.to_path_buf(), error: source })
        }
    }
}

impl Writer {
    /// Opens (creating if needed) the database at `path` for an import and
    /// takes its import lock. `problems` receives every bad game and
    /// warning as it is stored.
    ///
    /// # Errors
    /// [`WriteError::Busy`] if another import holds the database; database
    /// errors otherwise.
    pub fn open(
        path: &Path,
        options: WriterOptions,
        problems: Box<dyn FnMut(Problem) + Send>,
    ) -> Result<Writer, WriteError> {
        // The file is locked before SQLite opens it: an import that has the
        // database alone would make the opening wait, then fail as
        // "locked", instead of saying who holds it. A new database is
        // created empty (which SQLite takes for an empty database) and
        // locked at once, so that a second import started meanwhile finds
        // it held; when it cannot be created, the opening says why.
        if !path.exists() {
            let _ = std::fs::OpenOptions::new().write(true).create_new(true).open(path);
        }
        let early = if path.exists() { Some(writable_import_lock(path)?) } else { None };
        let conn = db::open_for_import(path, options.sharing)?;
        // Readers holding the file in WAL mode keep it there.
        let mut options = options;
        options.sharing = db::sharing_of(&conn)
            .map_err(|error| WriteError::Sqlite { path: path.to_path_buf(), error })?;
        let (lock, lock_writable) = match early {
            Some(lock) => lock,
            None => writable_import_lock(path)?,
        };
        // Only under the lock: opening drops the tables of a cut merge, which
        // a running import's merge would be filling.
        let dedupe = DedupeIndex::open(&conn)
            .map_err(|error| WriteError::Sqlite { path: path.to_path_buf(), error })?;
        let tag_names = TagNames::load(&conn)
            .map_err(|error| WriteError::Sqlite { path: path.to_path_buf(), error })?;
        let texts = GameTexts::load(&conn)
            .map_err(|error| WriteError::Sqlite { path: path.to_path_buf(), error })?;
        let image_slot = ImageSlot::attach(&conn)
            .map_err(|error| WriteError::Sqlite { path: path.to_path_buf(), error })?;
        let tables_slot = ImageSlot::attach_as(&conn, TABLES_SCHEMA)
            .map_err(|error| WriteError::Sqlite { path: path.to_path_buf(), error })?;
        let page_writes = segments::PageWrites::of(&conn)
            .map_err(|error| WriteError::Sqlite { path: path.to_path_buf(), error })?;
        let shapes = Shapes::read(&conn, page_writes.direct())
            .map_err(|error| WriteError::Sqlite { path: path.to_path_buf(), error })?;
        let stored_names = inserted_columns().map(texts::stored_column);
        let row_order = shapes
            .order(Table::Rows, stored_names.collect::<Vec<_>>().iter().map(|c| c.as_ref()))
            .and_then(|rows| Ok((rows, shapes.order(Table::PlyData, PLY_DATA_COLUMNS)?)))
            .map_err(|error| WriteError::Sqlite { path: path.to_path_buf(), error })?;
        let (row_order, ply_data_order) = row_order;
        let move_codes = super::batch_part::MoveCodes::stored(&conn)
            .map_err(|error| WriteError::Sqlite { path: path.to_path_buf(), error })?;
        let mut writer = Writer {
            conn,
            path: path.to_path_buf(),
            lock: Arc::new(lock),
            lock_writable,
            options,
            next_id: 1,
            in_transaction: false,
            batch: BatchParts {
                positions: PositionSorter::with_page_size(page_writes.page_size()),
                image_slot,
                tables: GameTables::new(shapes),
                tables_slot,
                stored: Vec::new(),
                tag_names,
                texts,
                dedupe,
                tree: None,
                move_codes,
            },
            page_writes,
            row_order,
            ply_data_order,
            batch_first_id: 1,
            scratch: Default::default(),
            plan: BatchPlan::new(options.batch_positions, TABLES_BYTES),
            fens: Vec::new(),
            batch_games: 0,
            source: None,
            totals: Totals::default(),
            problems,
            checkpointer: None,
            flusher: None,
            candidates: Vec::new(),
            merge_budget: 0,
            dedupe_due: true,
            players_live: None,
            player_tally: Some(PlayerTally::start()),
            source_sizes: None,
        };
        // A 128 MiB page cache. With schema 3's random-order dedupe index
        // 256 MiB had paid (11.7 M distinct games without positions,
        // `DISTINCT=1 benches/bench-input.sh`, 12 GB: 177 s with 128 MiB,
        // 165 s with 256); with the keys in sorted segments both take
        // 124–126 s, and 128 MiB keeps peak RSS at 300 MB instead of 445.
        writer
            .conn()
            .execute_batch(
                "PRAGMA cache_size = -131072; PRAGMA temp_store = MEMORY; \
                 PRAGMA wal_autocheckpoint = 16384; PRAGMA synchronous = OFF;",
            )
            .map_err(|e| writer.sqlite(e))?;
        if options.sharing == Sharing::Readers {
            writer.checkpointer = Checkpointer::start(path);
        }
        writer.flusher = Flusher::start(Arc::clone(&writer.lock));
        if writer.checkpointer.is_some() {
            writer
                .conn()
                .execute_batch("PRAGMA wal_autocheckpoint = 0")
                .map_err(|e| writer.sqlite(e))?;
        }
        if let Some(pages) = options.max_pages {
            writer
                .conn()
                .pragma_update(None, "max_page_count", pages)
                .map_err(|e| writer.sqlite(e))?;
        }
        segments::drop_orphans(writer.conn()).map_err(|e| writer.sqlite(e))?;
        segments::refresh_view(writer.conn()).map_err(|e| writer.sqlite(e))?;
        let tree = tree::ensure_complete(writer.conn()).map_err(|e| writer.sqlite(e))?;
        writer.batch.tree = tree
            .map(|state| TreeBatch::new(writer.conn(), state))
            .transpose()
            .map_err(|e| writer.sqlite(e))?;
        // Past deleted games too: their index rows may remain until a
        // vacuum, and their `import_errors` rows stay, and neither must
        // become a new game's. (`import_errors` has no index on game_id:
        // a scan of a table that is small but for the most broken inputs.)
        writer.next_id = writer
            .conn()
            .query_row(
                "SELECT max(coalesce((SELECT max(id) FROM game_rows), 0), \
                 coalesce((SELECT max(game_id) FROM deleted_games), 0), \
                 coalesce((SELECT max(game_id) FROM import_errors), 0)) + 1",
                [],
                |r| r.get(0),
            )
            .map_err(|e| writer.sqlite(e))?;
        Ok(writer)
    }

    /// Sorts the position rows on the workers of `pool` from now on.
    pub fn sort_on(&mut self, pool: Arc<rayon::ThreadPool>) {
        self.batch.positions.sort_on(pool);
    }

    /// The connection.
    fn conn(&self) -> &Connection {
        &self.conn
    }

    fn sqlite(&self, error: rusqlite::Error) -> WriteError {
        WriteError::Sqlite { path: self.path.clone(), error }
    }

    /// The counts so far (committed or not).
    pub fn totals(&self) -> Totals {
        self.totals
    }

    /// Starts a source. With `facts` (a file), a source of the same
    /// fingerprint already finished is skipped unless `force`; one that an
    /// earlier run left unfinished is resumed.
    ///
    /// # Errors
    /// Database errors.
    pub fn begin_source(
        &mut self,
        name: &str,
        facts: Option<Facts>,
        force: bool,
    ) -> Result<SourceStart, WriteError> {
        self.commit()?;
        self.plan.begin_input();
        // A file of a size no source has was neither imported nor cut: its
        // fingerprint can come later, and the file is read meanwhile.
        let seen = match &facts {
            Some(facts) => self.has_source_of_size(facts.size())?,
            None => false,
        };
        let meta = facts.as_ref().map(|f| (f.size(), f.mtime()));
        let (facts, hashing) = match facts {
            Some(hashing @ Facts::Hashing { .. }) if !seen => (None, Some(hashing)),
            // A file that cannot be read for its fingerprint is read as far
            // as it can be, its source without one (its reading says why).
            Some(facts) => (facts.finish().ok(), None),
            None => (None, None),
        };
        let facts = facts.as_ref();
        let mut resume = None;
        if let Some(facts) = facts {
            let found: Option<(i64, Option<String>, u64)> = self
                .conn()
                .query_row(
                    "SELECT id, finished_at, resume_offset FROM sources WHERE fingerprint = ?1 \
                     ORDER BY id DESC LIMIT 1",
                    [&facts.fingerprint],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()
                .map_err(|e| self.sqlite(e))?;
            match found {
                Some((id, Some(_), _)) if !force => {
                    return Ok(SourceStart::AlreadyImported { source_id: id })
                }
                Some((id, None, offset)) => resume = Some((id, offset)),
                _ => {}
            }
        }
        let (indexed, max_ply) = self.index_settings();
        let (id, resume_offset) = match resume {
            Some((id, offset)) => {
                // A run with other settings than the cut one: the source's
                // games are indexed as the weaker of the two (unknown stays
                // unknown).
                self.conn()
                    .execute(
                        "UPDATE sources SET \
                         max_ply = CASE WHEN positions_indexed IS NULL THEN max_ply \
                             WHEN ?3 IS NULL THEN max_ply WHEN max_ply IS NULL THEN ?3 \
                             ELSE min(max_ply, ?3) END, \
                         positions_indexed = min(positions_indexed, ?2) WHERE id = ?1",
                        params![id, indexed, max_ply],
                    )
                    .map_err(|e| self.sqlite(e))?;
                (id, offset)
            }
            None => {
                if hashing.is_some() {
                    // The row is committed with the batch that fills in its
                    // fingerprint.
                    self.begin_batch()?;
                }
                let (size, mtime) = match (facts, meta) {
                    (Some(facts), _) => (Some(facts.size), facts.mtime),
                    (None, Some((size, mtime))) => (Some(size), mtime),
                    (None, None) => (None, None),
                };
                self.conn()
                    .execute(
                        &format!(
                            "INSERT INTO sources (path, size, mtime, fingerprint, started_at, \
                             positions_indexed, max_ply) VALUES (?1, ?2, ?3, ?4, {NOW}, ?5, ?6)"
                        ),
                        params![
                            name,
                            size,
                            mtime,
                            facts.map(|f| f.fingerprint.as_str()),
                            indexed,
                            max_ply
                        ],
                    )
                    .map_err(|e| self.sqlite(e))?;
                (self.conn().last_insert_rowid(), 0)
            }
        };
        self.source = Some(CurrentSource {
            id,
            name: name.to_string(),
            hashing,
            resume_offset,
            game_number: 0,
            started: Instant::now(),
            games: 0,
            duplicates: 0,
            errors: 0,
            positions: 0,
        });
        Ok(SourceStart::Import { source_id: id, resume_offset })
    }

    /// Begins a batch's transaction, unless one is open: the dedupe
    /// segments merged first if due, outside any.
    fn begin_batch(&mut self) -> Result<(), WriteError> {
        if self.dedupe_due && !self.in_transaction {
            self.dedupe_due = false;
            let after_commit = |conn: &Connection| match &self.checkpointer {
                Some(checkpointer) => checkpointer.after_commit(conn),
                None => Ok(()),
            };
            self.batch.dedupe.compact(&self.conn, &after_commit).map_err(|e| self.sqlite(e))?;
        }
        self.begin()
    }

    /// `true` if a source of `size` bytes was begun before; the size
    /// counts as begun from now on. The sizes are read from the database
    /// once, not for each file of an import of many.
    fn has_source_of_size(&mut self, size: u64) -> Result<bool, WriteError> {
        if self.source_sizes.is_none() {
            let sizes: rusqlite::Result<HashSet<u64>> = self
                .conn()
                .prepare("SELECT DISTINCT size FROM sources WHERE size IS NOT NULL")
                .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect());
            self.source_sizes = Some(sizes.map_err(|e| self.sqlite(e))?);
        }
        Ok(!self.source_sizes.get_or_insert_default().insert(size))
    }

    /// Writes the current source's fingerprint into its row, once computed
    /// (waiting for it).
    fn store_fingerprint(&mut self) -> Result<(), WriteError> {
        let Some(source) = self.source.as_mut() else { return Ok(()) };
        let Some(hashing) = source.hashing.take() else { return Ok(()) };
        let id = source.id;
        let facts = hashing.finish()?;
        self.conn()
            .execute(
                "UPDATE sources SET size = ?2, mtime = ?3, fingerprint = ?4 WHERE id = ?1",
                params![id, facts.size, facts.mtime, facts.fingerprint],
            )
            .map_err(|e| self.sqlite(e))?;
        Ok(())
    }

    /// The `positions_indexed` and `max_ply` of a source this import
    /// starts ([`RowOptions::source_settings`]).
    fn index_settings(&self) -> (bool, Option<u32>) {
        self.options.index.source_settings()
    }

    fn begin(&mut self) -> Result<(), WriteError> {
        if !self.in_transaction {
            if self.players_live.is_none() {
                // Its own transaction: a killed import leaves `players`
                // reading the games it committed.
                let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate);
                let live = tx
                    .and_then(|tx| {
                        players::set_live(&tx).and_then(|live| tx.commit().map(|()| live))
                    })
                    .map_err(|e| self.sqlite(e))?;
                self.players_live = Some(live);
            }
            // Read before the transaction: SQLite loads no image into a
            // schema whose transaction read pages by hand.
            let next_id = self.next_id;
            self.batch.tables.continue_tables(&self.conn, next_id).map_err(|e| self.sqlite(e))?;
            // What BEGIN IMMEDIATE does for the main schema alone: a write
            // that changes nothing takes its write lock now. BEGIN IMMEDIATE
            // would lock the image schema too, and SQLite loads no image
            // into a schema its transaction holds ([`ImageSlot`]).
            let began = self.conn().execute_batch("BEGIN; UPDATE main.sources SET id = id WHERE 0");
            if let Err(error) = began {
                // Not left half begun, as BEGIN IMMEDIATE would not be.
                if !self.conn().is_autocommit() {
                    let _ = self.conn().execute_batch("ROLLBACK");
                }
                return Err(self.sqlite(error));
            }
            debug_assert_eq!(
                [Some("main"), Some(super::image::SCHEMA), Some(TABLES_SCHEMA)]
                    .map(|schema| self.conn().transaction_state(schema).ok()),
                [
                    Some(rusqlite::TransactionState::Write),
                    Some(rusqlite::TransactionState::None),
                    Some(rusqlite::TransactionState::None)
                ]
            );
            self.in_transaction = true;
            self.batch_first_id = self.next_id;
        }
        Ok(())
    }

    /// Stores the games of one chunk of the current source, in order, then
    /// the warnings about text after its last game (`trailing`). The rows
    /// are borrowed (their FENs taken): the caller frees them, off the
    /// writer thread.
    /// `offset` is added to the games' offsets and `line` to their lines;
    /// `end` is the input offset just after the chunk, and `left` the
    /// input's bytes after it if known. Commits when the batch is full
    /// ([`BatchPlan`]). With `strict`, a bad game stops the import: the games
    /// before it are committed, the bad game is reported (not stored), the
    /// source's `resume_offset` stays at its start, and `Break` is returned.
    ///
    /// # Errors
    /// Database errors.
    ///
    /// # Panics
    /// If no source was begun.
    pub fn add_chunk(
        &mut self,
        games: &mut [GameRow],
        trailing: &[(usize, usize, String)],
        offset: u64,
        line: usize,
        end: u64,
        left: Option<u64>,
    ) -> Result<ControlFlow<()>, WriteError> {
        self.plan.read(end.saturating_sub(offset));
        let sums = games.first_mut().and_then(|g| g.chunk_tree.take());
        let codes = games.first_mut().and_then(|g| g.chunk_codes.take());
        // The games stored, and those whose tree rows wait for the chunk's
        // end.
        let (mut stored, mut counted) = (Vec::with_capacity(games.len()), Vec::new());
        for i in 0..games.len() {
            if let Some(next) = games.get(i + 1) {
                next.prefetch();
            }
            let game = &mut games[i];
            game.locate(offset, line);
            let source = self.source.as_mut().expect("a source was begun");
            source.game_number += 1;
            if game.offset < source.resume_offset {
                self.totals.resumed += 1;
                continue;
            }
            let bad = game.error.is_some() || game.skipped.is_some();
            if bad && self.options.strict {
                // Nothing of the bad game is stored, and the source stays
                // unfinished just before it: the same command stops at it
                // again until the input is fixed.
                let at = game.offset;
                self.report_strict_stop(game);
                self.count(|s| s.resume_offset = at);
                self.count_tree_rows(games, &counted, sums);
                self.add_move_codes(games, &stored, codes);
                self.commit()?;
                return Ok(ControlFlow::Break(()));
            }
            if let Some(rows_left) = self.store(game)? {
                stored.push(i);
                if rows_left {
                    counted.push(i);
                }
            }
        }
        self.count_tree_rows(games, &counted, sums);
        self.add_move_codes(games, &stored, codes);
        self.batch.texts.publish();
        // Text skipped after the chunk's last game; it is in the chunk, so
        // a resumed run that skips the chunk skips these too.
        let skip = self.source.as_ref().is_some_and(|s| end <= s.resume_offset);
        if !skip && !trailing.is_empty() {
            self.begin()?;
            for (l, c, message) in trailing {
                self.record_problem(
                    None,
                    None,
                    ProblemKind::Warning,
                    offset,
                    Some((l + line, *c)),
                    message,
                )?;
            }
        }
        if let Some(source) = &mut self.source {
            source.resume_offset = source.resume_offset.max(end);
        }
        let (rows, row_bytes) = (self.batch.positions.len(), self.batch.tables.bytes());
        if self.plan.is_full(rows, row_bytes, left) || self.batch_games >= self.options.batch_games
        {
            self.commit()?;
        }
        Ok(ControlFlow::Continue(()))
    }

    /// Adds to the tree the rows of the chunk's games stored with visits
    /// found on the workers (`counted`, indices into `games`): the chunk's
    /// sums when they are those of exactly these games, else each game's.
    fn count_tree_rows(
        &mut self,
        games: &[GameRow],
        counted: &[usize],
        sums: Option<Box<ChunkTree>>,
    ) {
        let Some(tree) = &mut self.batch.tree else { return };
        match sums {
            // The sums count every game with visits; the stored ones are all.
            Some(sums) if sums.games == counted.len() => tree.add_chunk(*sums),
            _ => {
                for visits in counted.iter().filter_map(|&i| games[i].visits.as_ref()) {
                    tree.add_rows(visits);
                }
            }
        }
    }

    /// Notes the move codes of the chunk's stored games (`stored`, indices
    /// into `games`): the chunk's, found on a worker, when every game is
    /// stored, else each game's.
    fn add_move_codes(&mut self, games: &[GameRow], stored: &[usize], codes: Option<Box<[u16]>>) {
        match codes {
            Some(codes) if stored.len() == games.len() => {
                self.batch.move_codes.add_distinct(&codes);
            }
            _ => {
                for &i in stored {
                    self.batch.move_codes.add(&games[i].packed_moves);
                }
            }
        }
    }

    /// Stores one game (or counts it as a duplicate / skipped): `None` if
    /// it is not stored, else whether its tree rows, from its visits found
    /// on a worker, are left to [`Writer::count_tree_rows`]. Its move
    /// codes are left to [`Writer::add_move_codes`].
    fn store(&mut self, game: &mut GameRow) -> Result<Option<bool>, WriteError> {
        self.begin_batch()?;
        let source = self.source.as_ref().expect("a source was begun");
        let (source_id, number) = (source.id, source.game_number);
        self.batch_games += 1;
        if is_skipped(game) {
            let message = skipped_message(game);
            self.record_problem(
                Some(number),
                None,
                ProblemKind::Skipped,
                game.offset,
                game.error_at,
                &message,
            )?;
            self.count(|s| s.errors += 1);
            self.totals.errors += 1;
            return self.record_warnings(number, None, game).map(|()| None);
        }
        if !self.options.keep_duplicates && self.is_duplicate(game)? {
            self.count(|s| s.duplicates += 1);
            self.totals.duplicates += 1;
            return Ok(None);
        }
        let id = GameId::try_from(self.next_id)
            .map_err(|_| WriteError::TooManyGames { path: self.path.clone() })?;
        self.next_id += 1;
        let assigned = Assigned { id, source_id, source_offset: game.offset };
        // The records stay in the game, freed off the writer thread.
        let put = match game.records.take() {
            Some(mut records) => {
                let put = self.put_records(&assigned, game, &mut records);
                game.records = Some(records);
                put
            }
            None => self.put_rows(&assigned, game),
        };
        put.map_err(|e| self.sqlite(e))?;
        if !self.options.keep_duplicates {
            self.batch.stored.push(StoredGame {
                header: game.header.clone(),
                start_fen: game.start_fen.clone(),
                packed_moves: game.packed_moves.clone(),
            });
        }
        self.batch.dedupe.insert(game.dedupe_key, id);
        let mut rows_left = false;
        if let Some(tree) = &mut self.batch.tree {
            match &game.visits {
                Some(visits) => {
                    tree.add_visits(id, visits, &game.positions);
                    rows_left = true;
                }
                None => {
                    let first = first_mover(game.start_fen.as_deref());
                    let found = TreeVisits::of(&game.positions, &game.header, first, tree.shape());
                    tree.add(id, &found, &game.positions);
                }
            }
        }
        if game.fens.len() == game.positions.len() {
            let plies = game.positions.iter().map(|p| p.ply as u16);
            self.fens
                .extend(plies.zip(std::mem::take(&mut game.fens)).map(|(ply, fen)| (id, ply, fen)));
        }
        let positions = game.positions.len() as u64;
        self.batch.positions.push_game(id, std::mem::take(&mut game.positions));
        self.count(|s| {
            s.games += 1;
            s.positions += positions;
        });
        self.totals.games += 1;
        self.totals.positions += positions;
        self.totals.plies += game.ply_count;
        if let Some(error) = &game.error {
            self.count(|s| s.errors += 1);
            self.totals.errors += 1;
            let at = game.error_offset.unwrap_or(game.offset);
            self.record_problem(
                Some(number),
                Some(id),
                ProblemKind::Error,
                at,
                game.error_at,
                error,
            )?;
        }
        self.record_warnings(number, Some(id), game)?;
        if let Some(tally) = &mut self.player_tally {
            tally.push(game);
        }
        Ok(Some(rows_left))
    }

    /// Adds the rows of the game `assigned` names to the batch's per-game
    /// tables from their records, encoded on a worker: the writer decides
    /// the values left to it, in the order [`Writer::put_rows`] does.
    fn put_records(
        &mut self,
        assigned: &Assigned,
        game: &GameRow,
        records: &mut GameRecords,
    ) -> rusqlite::Result<()> {
        let Writer { conn, batch, scratch, .. } = self;
        let BatchParts { tables, texts: game_texts, tag_names, .. } = batch;
        let id = i64::from(assigned.id);
        let mut filled = vec![Value::Null; records.rows.holes()];
        for (hole, slot) in &records.holes {
            filled[*slot] = match hole {
                Hole::Source => Value::Integer(assigned.source_id),
                Hole::Offset => Value::Integer(assigned.source_offset as i64),
                Hole::Text(text) => Value::Integer(game_texts.id(conn, text)?),
                Hole::Name(name) => match game_texts.name_id(conn, name)? {
                    Some(id) => Value::Integer(id),
                    None => Value::Text(name),
                },
            };
        }
        let (row, summary) = scratch;
        row.clear();
        records.rows.fill(&filled, row);
        let summary = match &records.summary {
            Some((template, fills)) => {
                let values: Vec<Value<'_>> = fills
                    .iter()
                    .map(|fill| match fill {
                        SummaryHole::Id => Value::Integer(id),
                        SummaryHole::Row(slot) => filled[*slot],
                    })
                    .collect();
                summary.clear();
                template.fill(&values, summary);
                Some(summary.as_slice())
            }
            None => None,
        };
        tables.push_record(Table::Rows, id, row, summary)?;
        match &records.tags {
            TagsRecord::None => {}
            TagsRecord::Encoded(record) => tables.push_record(Table::Tags, id, record, None)?,
            TagsRecord::ByWriter => {
                let pairs = game.tags.as_ref().expect("a game with tags");
                let json = tag_names.encode(conn, pairs)?;
                put(conn, tables, Table::Tags, id, &mut [Value::Null, Value::Text(&json)])?;
            }
        }
        match records.ply_data.take() {
            // The overflow pages go into the leaves as they are.
            Some(CutRecord::Spilled(spilled)) => {
                tables.push_spilled(Table::PlyData, id, spilled)?;
            }
            Some(CutRecord::Whole(record)) => {
                tables.push_record(Table::PlyData, id, &record, None)?;
                records.ply_data = Some(CutRecord::Whole(record));
            }
            None => {}
        }
        let mut start = 0;
        for &(ply, end) in &records.pv_ends {
            let rowid = (id << 24) | i64::from(ply);
            tables.push_record(Table::Pvs, rowid, &records.pvs[start..end], None)?;
            start = end;
        }
        if let Some(record) = &records.material {
            tables.push_record(Table::Material, id, record, None)?;
        }
        Ok(())
    }

    /// The encoder of the per-game records, for the workers: it takes the
    /// ids this writer commits.
    ///
    /// # Errors
    /// A table without a column the rows fill.
    pub fn encoder(&self) -> Result<Arc<Encoder>, WriteError> {
        let encoder = Encoder::new(
            self.batch.tables.shapes(),
            self.batch.texts.shared(),
            self.batch.tag_names.shared(),
            self.batch.tree.as_ref().map(TreeBatch::shape),
            self.batch.tree.as_ref().and_then(TreeBatch::shared_deep),
        );
        encoder.map(Arc::new).map_err(|e| self.sqlite(e))
    }

    /// Adds the rows of the game `assigned` names to the batch's per-game
    /// tables: its few-valued texts and names as their ids, its tag names
    /// by id. A row too long for the tables' image is inserted now.
    fn put_rows(&mut self, assigned: &Assigned, game: &GameRow) -> rusqlite::Result<()> {
        let Writer { conn, batch, .. } = self;
        let BatchParts { tables, texts: game_texts, tag_names, .. } = batch;
        let id = i64::from(assigned.id);
        let mut given: Vec<ToSqlOutput<'_>> = Vec::with_capacity(self.row_order.len());
        assigned.values(&mut given)?;
        game.values(&mut given)?;
        given[*MOVES_PARAM] = game.packed_moves.to_sql()?;
        given[*FINAL_FEN_PARAM] = match &game.packed_final_fen {
            Some(fen) => ToSqlOutput::from(fen.as_str()),
            None => ToSqlOutput::from(rusqlite::types::Null),
        };
        for (value, &is_text) in given.iter_mut().zip(TEXT_PARAMS.iter()) {
            if !is_text {
                continue;
            }
            let text = match game_tables::record_value(value)? {
                Value::Null => continue,
                Value::Text(text) => text,
                _ => {
                    return Err(rusqlite::Error::ToSqlConversionFailure(
                        "a text column holds no text".into(),
                    ))
                }
            };
            *value = ToSqlOutput::from(game_texts.id(conn, text)?);
        }
        let h = &game.header;
        for (&param, name) in NAME_PARAMS.iter().zip([&h.site, &h.white, &h.black]) {
            let Some(name) = name.as_deref() else { continue };
            if let Some(id) = game_texts.name_id(conn, name)? {
                given[param] = ToSqlOutput::from(id);
            }
        }
        let a = &game.analysis;
        if h.date.as_deref().is_some_and(|d| !dates::kept(d, a.year, a.month, a.day)) {
            given[*DATE_PARAM] = ToSqlOutput::from(rusqlite::types::Null);
        }
        let mut row = vec![Value::Null; tables.shapes().width(Table::Rows)];
        for (value, &at) in given.iter().zip(&self.row_order) {
            row[at] = game_tables::record_value(value)?;
        }
        put(conn, tables, Table::Rows, id, &mut row)?;
        if let Some(pairs) = &game.tags {
            let json = tag_names.encode(conn, pairs)?;
            put(conn, tables, Table::Tags, id, &mut [Value::Null, Value::Text(&json)])?;
        }
        if let Some(d) = &game.plies {
            let width = tables.shapes().width(Table::PlyData);
            let mut row = super::encode::records::ply_data_row(d, &self.ply_data_order, width);
            put(conn, tables, Table::PlyData, id, &mut row)?;
            for (ply, pv) in &d.pvs {
                // Plies past 2^24 keep their variation in the movetext's
                // text only.
                if *ply < 1 << 24 {
                    let rowid = (id << 24) | i64::from(*ply);
                    put(conn, tables, Table::Pvs, rowid, &mut [Value::Null, Value::Text(pv)])?;
                }
            }
        }
        if let Some(stretches) = &game.material {
            put(conn, tables, Table::Material, id, &mut [Value::Null, Value::Blob(stretches)])?;
        }
        Ok(())
    }

    fn count(&mut self, f: impl FnOnce(&mut CurrentSource)) {
        if let Some(s) = &mut self.source {
            f(s);
        }
    }

    fn record_warnings(
        &mut self,
        number: u64,
        id: Option<GameId>,
        game: &GameRow,
    ) -> Result<(), WriteError> {
        for (l, c, message) in &game.warnings {
            let at = Some((*l, *c));
            self.record_problem(Some(number), id, ProblemKind::Warning, game.offset, at, message)?;
        }
        Ok(())
    }

    /// Hands the bad game a strict import stops at to the caller's
    /// `problems`, and counts it, without storing anything.
    fn report_strict_stop(&mut self, game: &GameRow) {
        let source = self.source.as_ref().expect("a source was begun");
        let (kind, message) = match &game.error {
            Some(error) if game.skipped.is_none() => (ProblemKind::Error, error.clone()),
            _ => (ProblemKind::Skipped, skipped_message(game)),
        };
        let text = problem_text(&source.name, Some(source.game_number), game.error_at, &message);
        self.totals.errors += 1;
        (self.problems)(Problem { text, kind });
    }

    /// Stores one row of `import_errors` for the current source and hands
    /// it, located as `FILE:LINE:COL`, to the caller's `problems`.
    fn record_problem(
        &mut self,
        number: Option<u64>,
        game_id: Option<GameId>,
        kind: ProblemKind,
        offset: u64,
        at: Option<(usize, usize)>,
        message: &str,
    ) -> Result<(), WriteError> {
        let source_id = self.source.as_ref().map_or(0, |s| s.id);
        let (line, column) = at.unwrap_or((0, 0));
        self.conn()
            .prepare_cached(INSERT_ERROR)
            .and_then(|mut st| {
                st.execute(params![
                    source_id,
                    number.map(|n| n as i64),
                    game_id,
                    kind,
                    offset as i64,
                    line as i64,
                    column as i64,
                    message
                ])
            })
            .map_err(|e| self.sqlite(e))?;
        let name = self.source.as_ref().map_or("", |s| s.name.as_str());
        let text = problem_text(name, number, at, message);
        (self.problems)(Problem { text, kind });
        Ok(())
    }

    /// `true` if a game with the same identity is stored (committed or in
    /// this batch). The batch's games are compared first: a game repeated
    /// within a batch is found without a search of the segments.
    fn is_duplicate(&mut self, game: &GameRow) -> Result<bool, WriteError> {
        let mut ids = std::mem::take(&mut self.candidates);
        let result = self.is_duplicate_among(game, &mut ids);
        self.candidates = ids;
        result
    }

    /// [`Writer::is_duplicate`], with `ids` for the candidates' ids.
    fn is_duplicate_among(
        &mut self,
        game: &GameRow,
        ids: &mut Vec<GameId>,
    ) -> Result<bool, WriteError> {
        let key = game.dedupe_key;
        let maybe_stored =
            self.batch.dedupe.batch_candidates(&self.conn, key, ids).map_err(|e| self.sqlite(e))?;
        for &id in ids.iter() {
            // The batch's games are in no table until its commit.
            let in_batch = usize::try_from(i64::from(id) - self.batch_first_id).ok();
            if in_batch.and_then(|i| self.batch.stored.get(i)).is_some_and(|s| game.same_game(s)) {
                return Ok(true);
            }
        }
        if !maybe_stored {
            return Ok(false);
        }
        self.batch.dedupe.stored_candidates(&self.conn, key, ids).map_err(|e| self.sqlite(e))?;
        for &id in ids.iter() {
            // A deleted game keeps its key until a vacuum: no match.
            if self.stored_game(id)?.is_some_and(|stored| game.same_game(&stored)) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The columns of stored game `id` that [`GameRow::same_game`] compares;
    /// `None` if the game was deleted.
    fn stored_game(&self, id: GameId) -> Result<Option<StoredGame>, WriteError> {
        let mut st = self.conn().prepare_cached(&STORED_GAME).map_err(|e| self.sqlite(e))?;
        st.query_row([id], |row| StoredGame::from_row(row, 0))
            .optional()
            .map_err(|e| self.sqlite(e))
    }

    /// Inserts the batch's positions in key order, updates the source's
    /// counters, and commits.
    ///
    /// # Errors
    /// Database errors; the transaction is rolled back then.
    pub fn commit(&mut self) -> Result<(), WriteError> {
        if !self.in_transaction {
            return Ok(());
        }
        let result = self.commit_inner();
        if result.is_err() {
            let _ = self.conn().execute_batch("ROLLBACK");
            // Pages written through sqlite_dbpage may be cached parsed.
            let _ = append::after_page_writes(self.conn());
            if let (Some(page_size), Some(file)) = (self.page_writes.direct(), self.file_alone()) {
                // Else the pages written into the file past SQLite stay
                // after the database's end, unused.
                let _ = append::cut_after_last_page(self.conn(), file, page_size);
            }
            for part in self.batch.each() {
                part.discard(&self.conn);
            }
            self.in_transaction = false;
        }
        result
    }

    /// The database file, written to by hand, where the import has it
    /// alone under a rollback journal: no other connection reads it and
    /// no checkpoint copies pages into it, so new pages may go into it past
    /// SQLite ([`append::Pages::write_new_directly`]).
    fn file_alone(&self) -> Option<&File> {
        (self.options.sharing == Sharing::Exclusive && self.lock_writable).then_some(&*self.lock)
    }

    fn commit_inner(&mut self) -> Result<(), WriteError> {
        self.store_fingerprint()?;
        self.plan.ended();
        // The batch's rows are sorted and written beside the rest.
        self.batch.positions.finish(std::mem::take(&mut self.fens));
        let appends = self
            .batch
            .tables
            .write(&self.conn, &mut self.batch.tables_slot)
            .map_err(|e| self.sqlite(e))?;
        if let Some(tree) = &mut self.batch.tree {
            tree.write(&self.conn)
                .map_err(|e| WriteError::Sqlite { path: self.path.clone(), error: e })?;
        }
        let dedupe_rows = self
            .batch
            .dedupe
            .write_batch(&self.conn, self.options.batch_games, self.page_writes.direct())
            .map_err(|e| self.sqlite(e))?;
        self.batch.move_codes.write(&self.conn).map_err(|e| self.sqlite(e))?;
        if let Some(s) = &mut self.source {
            let (id, games, dups, errors, pos, resume) =
                (s.id, s.games, s.duplicates, s.errors, s.positions, s.resume_offset);
            s.games = 0;
            s.duplicates = 0;
            s.errors = 0;
            s.positions = 0;
            self.conn()
                .execute(
                    "UPDATE sources SET games = games + ?2, duplicates = duplicates + ?3, \
                     errors = errors + ?4, positions = positions + ?5, resume_offset = ?6 \
                     WHERE id = ?1",
                    params![id, games, dups, errors, pos, resume],
                )
                .map_err(|e| self.sqlite(e))?;
        }
        let segment = self.batch.positions.take_image().map_err(|e| self.sqlite(e))?;
        let written = segment.rows() as u64;
        let segment_pages = segments::write_segment(
            &self.conn,
            &mut self.batch.image_slot,
            segment,
            self.options.batch_positions,
            self.page_writes,
        )
        .map_err(|e| WriteError::Sqlite { path: self.path.clone(), error: e })?;
        // The transaction's last writes: pages by hand. Only a database that
        // takes them gave any (the tables' shapes and the segments' images
        // both follow `page_writes`).
        let by_hand = !appends.is_empty() || segment_pages.is_some() || dedupe_rows.is_some();
        if by_hand {
            let Some(page_size) = self.page_writes.direct() else {
                let misuse = rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_MISUSE);
                let message = "pages to write by hand into a database that takes none";
                return Err(
                    self.sqlite(rusqlite::Error::SqliteFailure(misuse, Some(message.into())))
                );
            };
            let mut segment_pages = segment_pages;
            let free = segment_pages.as_mut().map(|s| std::mem::take(&mut s.free));
            // New pages go into the file directly where that is sound: not
            // copied into SQLite's cache to be written out at the commit.
            let alone = self.file_alone();
            let mut image_bytes = None;
            let wrote = append::Pages::begin(&self.conn, page_size, free.unwrap_or_default())
                .and_then(|mut pages| {
                    if let Some(file) = alone {
                        pages.write_new_directly(file);
                    }
                    if let Some(segment) = segment_pages {
                        image_bytes = Some(segment.write(&mut pages)?);
                    }
                    appends.write(&mut pages)?;
                    if let Some((root, leaves)) = dedupe_rows {
                        append::append_index(&mut pages, root, leaves, None)?;
                    }
                    pages.finish()
                });
            wrote.map_err(|e| self.sqlite(e))?;
            if let Some(bytes) = image_bytes {
                self.batch.positions.reuse(bytes);
            }
        }
        self.merge_budget =
            self.merge_budget.saturating_add(segments::MERGE_RATIO.saturating_mul(written));
        self.conn().execute_batch("COMMIT").map_err(|e| self.sqlite(e))?;
        self.in_transaction = false;
        if by_hand {
            append::after_page_writes(self.conn()).map_err(|e| self.sqlite(e))?;
        }
        for part in self.batch.each() {
            part.committed(&self.conn)
                .map_err(|e| WriteError::Sqlite { path: self.path.clone(), error: e })?;
        }
        self.batch_games = 0;
        let after_commit = |conn: &Connection| match &self.checkpointer {
            Some(checkpointer) => checkpointer.after_commit(conn),
            None => Ok(()),
        };
        after_commit(self.conn()).map_err(|e| self.sqlite(e))?;
        let mut budget = self.merge_budget;
        let file = self.lock_writable.then_some(&*self.lock);
        let merged = segments::compact(self.conn(), &mut budget, &after_commit, file);
        self.merge_budget = budget;
        merged.map_err(|e| self.sqlite(e))?;
        self.dedupe_due = true;
        if let Some(flusher) = &self.flusher {
            flusher.request();
        }
        Ok(())
    }

    /// Ends the current source: commits, and marks it finished (a later
    /// run with the same content skips it).
    ///
    /// # Errors
    /// Database errors.
    pub fn end_source(&mut self) -> Result<(), WriteError> {
        self.begin()?;
        self.commit_with_finish()
    }

    fn commit_with_finish(&mut self) -> Result<(), WriteError> {
        let Some(source) = &self.source else { return self.commit() };
        let (id, seconds) = (source.id, source.started.elapsed().as_secs_f64());
        self.conn()
            .execute(
                &format!(
                    "UPDATE sources SET finished_at = {NOW}, seconds = coalesce(seconds, 0) + ?2 \
                     WHERE id = ?1"
                ),
                params![id, seconds],
            )
            .map_err(|e| self.sqlite(e))?;
        self.commit()?;
        self.source = None;
        Ok(())
    }

    /// Ends a source that could not be read to the end: commits what was
    /// stored, records the time, and leaves it unfinished (a later run
    /// resumes it).
    ///
    /// # Errors
    /// Database errors.
    pub fn abandon_source(&mut self) -> Result<(), WriteError> {
        if let Some(source) = self.source.as_mut() {
            // A file that could not be read whole for its fingerprint keeps
            // the games read from it, without a fingerprint: a later run
            // reads it again from its start.
            source.hashing = match source.hashing.take().map(Facts::finish) {
                Some(Ok(facts)) => Some(Facts::Known(facts)),
                Some(Err(_)) | None => None,
            };
        }
        self.commit()?;
        if let Some(source) = self.source.take() {
            let seconds = source.started.elapsed().as_secs_f64();
            self.conn()
                .execute(
                    "UPDATE sources SET seconds = coalesce(seconds, 0) + ?2 WHERE id = ?1",
                    params![source.id, seconds],
                )
                .map_err(|e| self.sqlite(e))?;
        }
        Ok(())
    }

    /// Commits, updates the query planner's statistics, and folds the
    /// write-ahead log into the database file with a sync: when an import
    /// returns, its games are on disk.
    ///
    /// While importing, commits do not wait for the disk (`synchronous =
    /// OFF`): a killed or crashed pgnindex loses nothing committed (the
    /// operating system has the writes), and the disk writes overlap the
    /// work instead of stalling the writer at every checkpoint — measured
    /// as the largest cost of a big import on this machine's disk. A power
    /// failure or operating-system crash during an import may damage the
    /// database; one after it may not.
    ///
    /// # Errors
    /// Database errors.
    pub fn finish(mut self) -> Result<Totals, WriteError> {
        self.commit()?;
        self.batch.dedupe.save(self.conn()).map_err(|e| self.sqlite(e))?;
        std::mem::take(&mut self.batch.image_slot)
            .detach(self.conn())
            .map_err(|e| self.sqlite(e))?;
        std::mem::take(&mut self.batch.tables_slot)
            .detach(self.conn())
            .map_err(|e| self.sqlite(e))?;
        let tally = self.player_tally.take().and_then(PlayerTally::finish);
        players::finish_write(self.conn(), self.players_live, tally).map_err(|e| self.sqlite(e))?;
        if let Some(checkpointer) = self.checkpointer.take() {
            checkpointer.stop();
        }
        if let Some(flusher) = self.flusher.take() {
            flusher.stop();
        }
        // The statistics the segments were given are read first, so that
        // `PRAGMA optimize` analyzes only the tables without any.
        if segments::has_statistics_table(self.conn()).map_err(|e| self.sqlite(e))? {
            self.conn().execute_batch("ANALYZE sqlite_schema").map_err(|e| self.sqlite(e))?;
        }
        self.conn()
            .execute_batch(
                "PRAGMA optimize; PRAGMA synchronous = FULL; PRAGMA wal_checkpoint(TRUNCATE);",
            )
            .map_err(|e| self.sqlite(e))?;
        if self.options.sharing == Sharing::Exclusive {
            // No log to checkpoint: the pages went straight to the file.
            self.lock
                .sync_all()
                .map_err(|error| WriteError::Sync { path: self.path.clone(), error })?;
        }
        db::rest(self.conn()).map_err(|e| self.sqlite(e))?;
        Ok(self.totals)
    }
}

/// Adds a row to the batch's `tables`, or inserts it by SQL when their
/// image cannot hold it.
fn put(
    conn: &Connection,
    tables: &mut GameTables,
    table: Table,
    rowid: i64,
    values: &mut [Value<'_>],
) -> rusqlite::Result<()> {
    if tables.push(table, rowid, values) {
        Ok(())
    } else {
        tables.insert(conn, table, rowid, values)
    }
}

/// Why a game is not stored: another variant, or text that is no game.
/// `true` for a game reported and not stored: another variant, or text
/// with no tags whose first move is already bad (a binary file, prose),
/// which is not a game.
pub(crate) fn is_skipped(game: &GameRow) -> bool {
    let not_a_game = game.ply_count == 0
        && game.error.is_some()
        && game.tags.is_none()
        && game.header == Header::default();
    not_a_game || game.skipped.is_some()
}

/// The message of a game [`is_skipped`] says is not stored.
pub(crate) fn skipped_message(game: &GameRow) -> String {
    match &game.skipped {
        Some(skipped) => skipped.to_string(),
        None => format!(
            "text without tags or moves not stored: {}",
            game.error.as_deref().unwrap_or_default()
        ),
    }
}

/// A problem as the caller shows it: `FILE:LINE:COL: game N: message`.
pub(crate) fn problem_text(
    name: &str,
    number: Option<u64>,
    at: Option<(usize, usize)>,
    message: &str,
) -> String {
    let (line, column) = at.unwrap_or((0, 0));
    match number {
        Some(n) => format!("{name}:{line}:{column}: game {n}: {message}"),
        None => format!("{name}:{line}:{column}: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::game::Game;

    #[test]
    fn problem_kinds_are_stored_as_the_schema_documents() {
        let kinds = [ProblemKind::Error, ProblemKind::Skipped, ProblemKind::Warning];
        assert_eq!(kinds.map(ProblemKind::as_str), ["error", "skipped", "warning"]);
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let stored: String =
            conn.query_row("SELECT ?1", [ProblemKind::Skipped], |r| r.get(0)).unwrap();
        assert_eq!(stored, "skipped");
    }

    /// Every column of `games` in a new database is written by the insert
    /// (once), and the columns read back exist: a migration that adds a
    /// column must add it to a row struct too.
    #[test]
    fn every_games_column_is_inserted_once_and_every_column_read_exists() {
        let dir = tempfile::tempdir().unwrap();
        let conn = db::open_for_write(&dir.path().join("t.db")).unwrap();
        let mut schema: Vec<String> = conn
            .prepare("SELECT name FROM pragma_table_info('games')")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        schema.sort();
        let mut inserted: Vec<&str> =
            Assigned::NAMES.iter().chain(GameRow::NAMES).copied().collect();
        inserted.sort_unstable();
        assert_eq!(inserted, schema);
        for names in [Header::NAMES, StoredGame::NAMES, Game::NAMES] {
            for &name in names {
                // The one column read from `game_rows` itself.
                let name = if name == "packed_moves" { "moves" } else { name };
                assert!(schema.iter().any(|c| c == name), "{name} is no column of games");
            }
        }
        // Each value the writer gives a row fills its own column of
        // `game_rows`, and each column gets one.
        let shapes = Shapes::read(&conn, None).unwrap();
        let stored: Vec<_> = inserted_columns().map(texts::stored_column).collect();
        let mut order = shapes.order(Table::Rows, stored.iter().map(|c| c.as_ref())).unwrap();
        order.sort_unstable();
        order.dedup();
        assert_eq!(order.len(), shapes.width(Table::Rows));
        for table in Table::ALL {
            conn.prepare(&game_tables::insert_sql(&shapes, table)).unwrap();
        }
        conn.prepare(&STORED_GAME).unwrap();
    }

    /// The rows the import's workers make of the games of `text`.
    fn rows_of(text: &str) -> Vec<GameRow> {
        let replay = crate::replay::ReplayOptions {
            keys: true,
            tags: true,
            san: true,
            movetext: true,
            ..Default::default()
        };
        let chunk = crate::replay::parallel::read_chunk(text.as_bytes(), 0, replay);
        chunk.games.into_iter().map(|g| GameRow::build(g, Default::default())).collect()
    }

    /// Past the last id [`GameId`] holds, a game is an error, not a
    /// wrapped id.
    #[test]
    fn a_game_beyond_the_last_id_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        db::open_for_write(&path)
            .unwrap()
            .execute(
                "INSERT INTO games (id, ply_count, moves, movetext, dedupe_key) \
                 VALUES (?1, 0, '', '', 0)",
                [GameId::MAX],
            )
            .unwrap();
        let text = "1. e4 e5 *\n";
        let mut rows = rows_of(text);
        let mut writer = Writer::open(&path, WriterOptions::default(), Box::new(drop)).unwrap();
        writer.begin_source("t.pgn", None, false).unwrap();
        let end = text.len() as u64;
        let err = writer.add_chunk(&mut rows, &[], 0, 0, end, None).unwrap_err();
        assert!(matches!(err, WriteError::TooManyGames { .. }), "{err}");
        assert!(err.to_string().ends_with("game ids end at 4294967295)"), "{err}");
    }

    /// Batches follow the [`BatchPlan`]: an input's first batches are a
    /// quarter and a half of a full one, and, its length known, its last
    /// one is small; each batch is one segment.
    #[test]
    fn an_input_of_known_length_is_cut_into_a_ramp_and_a_small_last_batch() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        // 60 games of 5 positions each, read 2 games at a time.
        let game = "[Event \"e\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n";
        let options = WriterOptions {
            batch_positions: 80,
            keep_duplicates: true,
            ..WriterOptions::default()
        };
        let mut writer = Writer::open(&path, options, Box::new(drop)).unwrap();
        writer.begin_source("t.pgn", None, false).unwrap();
        let total = (game.len() * 60) as u64;
        let mut offset = 0u64;
        for _ in 0..30 {
            let text = game.repeat(2);
            let mut rows = rows_of(&text);
            let end = offset + text.len() as u64;
            let flow = writer.add_chunk(&mut rows, &[], offset, 0, end, Some(total - end));
            assert_eq!(flow.unwrap(), ControlFlow::Continue(()));
            offset = end;
        }
        writer.end_source().unwrap();
        writer.finish().unwrap();
        let conn = db::open_read_only(&path).unwrap();
        let rows: Vec<i64> = conn
            .prepare("SELECT rows FROM position_segments ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        // 300 rows: 20, 40, 80, 80, then the last 80 cut where what is left
        // (at most half of the batch) follows in a last small batch.
        assert_eq!(rows.iter().sum::<i64>(), 300, "{rows:?}");
        assert_eq!(&rows[..4], &[20, 40, 80, 80], "{rows:?}");
        let last = *rows.last().unwrap();
        assert!(rows.len() >= 6 && last <= 30, "{rows:?}");
    }

    /// A file's fingerprint computed while it is imported: the row gets it
    /// with the first commit, so that a cut run is resumed and a finished
    /// one recognised, by a fingerprint the next run waits for only when a
    /// source of the same size exists.
    #[test]
    fn a_fingerprint_computed_beside_the_import_is_committed_with_the_first_batch() {
        use crate::pgn::source::{file_meta, path_facts, InputName};
        let dir = tempfile::tempdir().unwrap();
        let (db, pgn) = (dir.path().join("t.db"), dir.path().join("g.pgn"));
        std::fs::write(&pgn, "[Event \"x\"]\n\n1. e4 *\n").unwrap();
        let hashing = || {
            let meta = file_meta(&InputName::Path(pgn.clone())).unwrap().unwrap();
            let path = pgn.clone();
            Facts::Hashing { meta, thread: std::thread::spawn(move || path_facts(&path)) }
        };
        let row = || -> (Option<String>, Option<i64>, bool) {
            let conn = Connection::open(&db).unwrap();
            conn.query_row(
                "SELECT fingerprint, size, finished_at IS NOT NULL FROM sources",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap()
        };
        let expected = path_facts(&pgn).unwrap();
        let mut writer = Writer::open(&db, WriterOptions::default(), Box::new(drop)).unwrap();
        let start = writer.begin_source("g.pgn", Some(hashing()), false).unwrap();
        assert!(matches!(start, SourceStart::Import { resume_offset: 0, .. }), "{start:?}");
        writer.abandon_source().unwrap();
        writer.finish().unwrap();
        let (fingerprint, size, finished) = row();
        assert_eq!(fingerprint.as_deref(), Some(expected.fingerprint.as_str()));
        assert_eq!(size, Some(expected.size as i64));
        assert!(!finished);
        // Same size: the fingerprint is waited for, and the cut source resumed.
        let mut writer = Writer::open(&db, WriterOptions::default(), Box::new(drop)).unwrap();
        let start = writer.begin_source("g.pgn", Some(hashing()), false).unwrap();
        let SourceStart::Import { source_id, .. } = start else { panic!("{start:?}") };
        assert_eq!(source_id, 1);
        writer.end_source().unwrap();
        writer.finish().unwrap();
        assert!(row().2);
        let mut writer = Writer::open(&db, WriterOptions::default(), Box::new(drop)).unwrap();
        let start = writer.begin_source("g.pgn", Some(hashing()), false).unwrap();
        assert!(matches!(start, SourceStart::AlreadyImported { source_id: 1 }), "{start:?}");
        writer.finish().unwrap();
    }

    /// A fingerprint that cannot be computed: a source read to its end
    /// fails to commit (its row would not know it); one abandoned, or one
    /// whose fingerprint was needed at its start, keeps its games and no
    /// fingerprint.
    #[test]
    fn a_fingerprint_that_fails_fails_the_commit_unless_the_source_is_abandoned() {
        use crate::pgn::source::{path_facts, FileMeta};
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("t.db");
        let gone = dir.path().join("gone.pgn");
        let failing = || {
            let meta = FileMeta { size: 7, mtime: None, regular: true };
            let path = gone.clone();
            Facts::Hashing { meta, thread: std::thread::spawn(move || path_facts(&path)) }
        };
        let mut writer = Writer::open(&db, WriterOptions::default(), Box::new(drop)).unwrap();
        writer.begin_source("gone.pgn", Some(failing()), false).unwrap();
        let error = writer.end_source().unwrap_err();
        assert!(matches!(error, WriteError::Fingerprint(_)), "{error}");
        assert!(error.to_string().contains("gone.pgn"), "{error}");
        // Its size met before: waited for at once, failing, and read.
        let start = writer.begin_source("gone.pgn", Some(failing()), false).unwrap();
        assert!(matches!(start, SourceStart::Import { .. }), "{start:?}");
        writer.abandon_source().unwrap();
        writer.finish().unwrap();
        let conn = Connection::open(&db).unwrap();
        let rows: Vec<(Option<String>, Option<i64>)> = conn
            .prepare("SELECT fingerprint, size FROM sources")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows, [(None, Some(7))]);
    }

    /// A source records how it was indexed; a resumed run with other
    /// settings leaves the least of them.
    #[test]
    fn sources_record_their_indexing_and_a_resumed_run_keeps_the_least() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let facts = |n: u8| crate::pgn::source::FileFacts {
            size: 1,
            mtime: None,
            fingerprint: format!("{n:032x}"),
        };
        let run = |index: RowOptions, n: u8| {
            let options = WriterOptions { index, ..WriterOptions::default() };
            let mut writer = Writer::open(&path, options, Box::new(drop)).unwrap();
            writer.begin_source("t.pgn", Some(Facts::Known(facts(n))), false).unwrap();
            // Cut: the source stays unfinished, and the next run resumes it.
            writer.abandon_source().unwrap();
            writer.finish().unwrap();
        };
        let limited = |max_ply| RowOptions { max_ply, ..RowOptions::default() };
        let none = RowOptions { positions: false, ..RowOptions::default() };
        run(RowOptions::default(), 1);
        run(limited(10), 2);
        run(limited(u32::from(u16::MAX)), 3);
        run(limited(10), 4);
        run(limited(6), 4);
        run(RowOptions::default(), 4);
        run(RowOptions::default(), 5);
        run(none, 5);
        let conn = db::open_read_only(&path).unwrap();
        let mut st =
            conn.prepare("SELECT positions_indexed, max_ply FROM sources ORDER BY id").unwrap();
        let rows: Vec<(Option<bool>, Option<u32>)> =
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect();
        let full = (Some(true), None);
        assert_eq!(
            rows,
            [full, (Some(true), Some(10)), full, (Some(true), Some(6)), (Some(false), None)]
        );
    }
}
