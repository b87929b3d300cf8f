//! The import pipeline: inputs, one after the other
//! ([`crate::replay::inputs`]) → blocks ([`crate::pgn::source`]) → chunks
//! read, replayed and turned into rows on a rayon pool
//! ([`crate::replay::parallel`], [`crate::store::encode::rows`]) → a bounded channel → the one
//! writer thread ([`crate::store::writer`]).
//!
//! The calling thread cuts blocks and chunks and forwards finished chunks,
//! in input order, to the writer; when the writer falls behind, the
//! channel is full, the caller waits, and the workers stop getting new
//! chunks: memory stays bounded by the channel and the chunks in flight.

use std::ffi::OsString;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

use crate::chess::reach::REACH_CAP;
use crate::columnar::shard::{ShardOptions, ShardWriter};
use crate::columnar::sink::TableStats;
use crate::columnar::ColumnarError;
use crate::db::move_codes::CodeSet;
use crate::notation::moves::Notation;
use crate::pgn::source::{self, expand_inputs, Compression, InputName, Source, SourceError};
use crate::replay::inputs::{read_inputs, ChunkPlace, InputStart, InputVisitor};
use crate::replay::parallel::{window, Chunk, GameMap, LocatedGame};
use crate::replay::{Reaches, ReplayOptions};
use crate::store::encode::records::Encoder;
use crate::store::encode::rows::{GameRow, RowOptions};
use crate::store::encode::visits::ChunkTree;
use crate::store::format::explorer::LATE_AFTER;
use crate::store::writer::{Problem, SourceStart, Totals, WriteError, Writer, WriterOptions};
use crate::timings::{self, Span, Stage};

/// Chunks of rows (each about 4 MB) between the workers and the writer
/// at most: those the workers hold ([`window`]) and those waiting for the
/// writer, who go on being read while the writer commits a batch (about a
/// second for eight million position rows). 64 waiting took a 1 GB import
/// from 23–26 s to 21–22 s for 140 MB more memory than 32; 128 gained
/// another 4 % for 250 MB more.
const CHUNKS_HELD: usize = 70;
/// Chunks waiting for the writer at least, however many the workers hold.
const CHANNEL_MIN: usize = 16;

/// Everything an import can be asked.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// What to index.
    pub rows: RowOptions,
    /// How to store.
    pub writer: WriterOptions,
    /// Import files already imported.
    pub force: bool,
    /// SAN in one piece-letter language, or descriptive notation (default:
    /// detect per game).
    pub notation: Option<Notation>,
    /// Stop reading an input after this many (decompressed) bytes
    /// ([`Source::with_limit`]); `None`: no limit.
    pub max_input: Option<u64>,
    /// Set from elsewhere (a signal handler) to stop the import: no chunk
    /// is read or stored after the flag is seen, what was stored is
    /// committed (the sources cut short stay unfinished, so that the same
    /// import resumes after the last chunk stored), and the summary says
    /// [`Summary::interrupted`]. An import into Parquet files writes none.
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl ImportOptions {
    /// `true` once [`interrupt`](Self::interrupt) is set.
    fn interrupted(&self) -> bool {
        is_set(self.interrupt.as_deref())
    }
}

/// `true` if `flag` is there and set.
fn is_set(flag: Option<&AtomicBool>) -> bool {
    flag.is_some_and(|flag| flag.load(Ordering::Relaxed))
}

/// Follows an import (progress display).
pub trait Observer {
    /// The inputs are listed (directories expanded): `total` bytes on disk
    /// (standard input and FIFOs count 0).
    fn inputs(&mut self, total: u64) {
        let _ = total;
    }
    /// A source starts; `size` is its size on disk if known.
    fn source(&mut self, name: &InputName, size: Option<u64>) {
        let _ = (name, size);
    }
    /// `bytes` of the current source (decompressed) and `games` in all
    /// have been read.
    fn progress(&mut self, bytes: u64, games: u64) {
        let _ = (bytes, games);
    }
    /// A source was skipped: its content was imported before.
    fn already_imported(&mut self, name: &InputName) {
        let _ = name;
    }
    /// A file found below a directory is not PGN
    /// ([`SourceError::NotPgn`]): it is left out.
    fn not_pgn(&mut self, error: &SourceError) {
        let _ = error;
    }
    /// A source could not be read (entirely or from some point on).
    fn unreadable(&mut self, error: &SourceError) {
        let _ = error;
    }
    /// A source holds nothing: no game and no other text.
    fn empty(&mut self, name: &InputName) {
        let _ = name;
    }
}

/// An observer that shows nothing.
#[derive(Debug, Default)]
pub struct Silent;
impl Observer for Silent {}

/// The outcome of an import.
#[derive(Debug, Clone, Copy, Default)]
pub struct Summary {
    /// Inputs read (to the end or not).
    pub files: u64,
    /// Inputs skipped as already imported.
    pub already_imported: u64,
    /// Inputs that could not be read (entirely or to the end).
    pub unreadable: u64,
    /// Files found below a directory and left out: not PGN.
    pub not_pgn: u64,
    /// Input bytes read (decompressed).
    pub bytes: u64,
    /// What the writer stored.
    pub totals: Totals,
    /// Seconds from start to the last commit.
    pub seconds: f64,
    /// `true` if `--strict` stopped at a bad game.
    pub stopped: bool,
    /// `true` if [`ImportOptions::interrupt`] stopped the import before
    /// the end of its inputs.
    pub interrupted: bool,
}

/// An error that stops the import (bad inputs do not: they are counted).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Writing the database failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The command line names something that is not an input.
    #[error(transparent)]
    Inputs(#[from] SourceError),
    /// Writing the Parquet files failed.
    #[error(transparent)]
    Parquet(#[from] ColumnarError),
    /// The system refused a thread.
    #[error("cannot start the writer thread: {0}")]
    Thread(std::io::Error),
}

/// Where the writer thread puts the games, in input order: the database's
/// [`Writer`] or a [`ShardWriter`]'s Parquet files.
trait Store {
    /// What the store says it wrote at the end, besides the totals.
    type Output: Send + Default + 'static;

    fn begin_source(
        &mut self,
        name: &str,
        facts: Option<source::Facts>,
        force: bool,
    ) -> Result<SourceStart, ImportError>;

    fn add_chunk(
        &mut self,
        games: &mut [GameRow],
        trailing: &[(usize, usize, String)],
        offset: u64,
        line: usize,
        end: u64,
        left: Option<u64>,
    ) -> Result<ControlFlow<()>, ImportError>;

    fn end_source(&mut self) -> Result<(), ImportError>;

    /// What encodes the games' rows on the workers, if the store takes
    /// them encoded.
    fn encoder(&self) -> Result<Option<Arc<Encoder>>, ImportError> {
        Ok(None)
    }

    fn abandon_source(&mut self) -> Result<(), ImportError>;

    fn finish(self) -> Result<(Totals, Self::Output), ImportError>;

    /// Ends an interrupted import: what is stored stays only if the same
    /// import can resume after it.
    fn interrupt(self) -> Result<(Totals, Self::Output), ImportError>;
}

impl Store for Writer {
    type Output = ();

    fn encoder(&self) -> Result<Option<Arc<Encoder>>, ImportError> {
        Ok(Some(Writer::encoder(self)?))
    }

    fn begin_source(
        &mut self,
        name: &str,
        facts: Option<source::Facts>,
        force: bool,
    ) -> Result<SourceStart, ImportError> {
        Ok(Writer::begin_source(self, name, facts, force)?)
    }

    fn add_chunk(
        &mut self,
        games: &mut [GameRow],
        trailing: &[(usize, usize, String)],
        offset: u64,
        line: usize,
        end: u64,
        left: Option<u64>,
    ) -> Result<ControlFlow<()>, ImportError> {
        Ok(Writer::add_chunk(self, games, trailing, offset, line, end, left)?)
    }

    fn end_source(&mut self) -> Result<(), ImportError> {
        Ok(Writer::end_source(self)?)
    }

    fn abandon_source(&mut self) -> Result<(), ImportError> {
        Ok(Writer::abandon_source(self)?)
    }

    fn finish(self) -> Result<(Totals, ()), ImportError> {
        Ok((Writer::finish(self)?, ()))
    }

    /// The committed games stay, their source unfinished: the next run
    /// resumes after them.
    fn interrupt(mut self) -> Result<(Totals, ()), ImportError> {
        Writer::abandon_source(&mut self)?;
        Store::finish(self)
    }
}

impl Store for ShardWriter {
    type Output = Vec<TableStats>;

    fn begin_source(
        &mut self,
        name: &str,
        facts: Option<source::Facts>,
        force: bool,
    ) -> Result<SourceStart, ImportError> {
        // A file that cannot be read for its fingerprint is read as far as
        // it can be, without one (its reading says why).
        let facts = facts.and_then(|facts| facts.finish().ok());
        Ok(ShardWriter::begin_source(self, name, facts.as_ref(), force))
    }

    fn add_chunk(
        &mut self,
        games: &mut [GameRow],
        trailing: &[(usize, usize, String)],
        offset: u64,
        line: usize,
        _end: u64,
        _left: Option<u64>,
    ) -> Result<ControlFlow<()>, ImportError> {
        Ok(ShardWriter::add_chunk(self, games, trailing, offset, line)?)
    }

    fn end_source(&mut self) -> Result<(), ImportError> {
        ShardWriter::end_source(self);
        Ok(())
    }

    fn abandon_source(&mut self) -> Result<(), ImportError> {
        ShardWriter::abandon_source(self);
        Ok(())
    }

    fn finish(self) -> Result<(Totals, Vec<TableStats>), ImportError> {
        Ok(ShardWriter::finish(self)?)
    }

    /// Files cannot be resumed: dropped unfinished, the writer removes
    /// them, and the same import into the same (empty) directory starts
    /// again.
    fn interrupt(self) -> Result<(Totals, Vec<TableStats>), ImportError> {
        drop(self);
        Ok((Totals::default(), Vec::new()))
    }
}

enum Message {
    Begin {
        name: String,
        facts: Option<source::Facts>,
        force: bool,
    },
    Chunk {
        games: Vec<GameRow>,
        trailing: Vec<(usize, usize, String)>,
        offset: u64,
        line: usize,
        end: u64,
        /// Bytes of the input after the chunk, if its length is known.
        left: Option<u64>,
    },
    End,
    Abandon,
}

/// Imports `inputs` into the database at `db` on `pool`, which sorts the
/// position rows too. `problems`
/// receives every bad game and warning (on the writer thread).
///
/// # Errors
/// [`ImportError`] when the database cannot be written or an argument
/// names no input; unreadable inputs are counted in the summary instead.
pub fn run(
    db: &Path,
    inputs: &[OsString],
    pool: &Arc<rayon::ThreadPool>,
    options: ImportOptions,
    observer: &mut dyn Observer,
    problems: Box<dyn FnMut(Problem) + Send>,
) -> Result<Summary, ImportError> {
    let writer_options = WriterOptions { index: options.rows, ..options.writer };
    let path = db.to_path_buf();
    // Opened on its own thread: the writer's prepared statements cannot
    // move between threads.
    // The workers sort the position rows too.
    let workers = Arc::clone(pool);
    let open = move || {
        let mut writer = Writer::open(&path, writer_options, problems)?;
        writer.sort_on(workers);
        Ok(writer)
    };
    run_into(inputs, pool, options, observer, open).map(|(summary, ())| summary)
}

/// What the workers make of the games read: their rows, encoded as
/// records when the writer gave an [`Encoder`], and each chunk's tree sums.
struct Build {
    rows: RowOptions,
    encoder: Option<Arc<Encoder>>,
}

impl GameMap<GameRow> for Build {
    fn game(&self, game: LocatedGame) -> GameRow {
        timings::timed_share(Span::Encode, || {
            let mut row = GameRow::build(game, self.rows);
            if let Some(encoder) = &self.encoder {
                encoder.encode_into(&mut row);
            }
            row
        })
    }

    fn chunk(&self, games: &mut [GameRow]) {
        timings::timed_share(Span::Encode, || {
            if games.iter().any(|g| g.visits.is_some()) {
                let sums = ChunkTree::of(games.iter().filter_map(|g| g.visits.as_ref()));
                games[0].chunk_tree = Some(Box::new(sums));
            }
            if !games.is_empty() {
                let codes = CodeSet::distinct(games.iter().filter_map(|g| g.packed_moves.codes()));
                games[0].chunk_codes = Some(codes.into_boxed_slice());
            }
        })
    }
}

/// Imports `inputs` into Parquet files, shard `parquet.shard` of the lake
/// in the directory `dir`, as an import into a new database followed by
/// `export --format parquet` writes them, without a database
/// ([`ShardWriter`]); the writer's `keep_duplicates` and `strict` and the
/// indexing of `options` apply. Says what each table got besides the
/// summary.
///
/// # Errors
/// As [`run`], with [`ImportError::Parquet`] for the files.
pub fn run_parquet(
    dir: &Path,
    inputs: &[OsString],
    pool: &rayon::ThreadPool,
    options: ImportOptions,
    parquet: ShardOptions,
    observer: &mut dyn Observer,
    problems: Box<dyn FnMut(Problem) + Send>,
) -> Result<(Summary, Vec<TableStats>), ImportError> {
    let parquet = ShardOptions {
        keep_duplicates: options.writer.keep_duplicates,
        strict: options.writer.strict,
        index: options.rows,
        ..parquet
    };
    let dir = dir.to_path_buf();
    let open = move || ShardWriter::open(&dir, parquet, problems).map_err(ImportError::from);
    run_into(inputs, pool, options, observer, open)
}

/// [`run`] into the store `open` makes on the writer thread.
fn run_into<S: Store>(
    inputs: &[OsString],
    pool: &rayon::ThreadPool,
    options: ImportOptions,
    observer: &mut dyn Observer,
    open: impl FnOnce() -> Result<S, ImportError> + Send + 'static,
) -> Result<(Summary, S::Output), ImportError> {
    let started = Instant::now();
    // Every input is listed, and those named are checked, before the
    // database is opened: a misuse creates nothing.
    let inputs = expand_inputs(inputs)?;
    for skipped in &inputs.skipped {
        observer.not_pgn(skipped);
    }
    let names = inputs.names;
    let total = names
        .iter()
        .filter_map(|name| match name {
            InputName::Path(path) => std::fs::metadata(path).ok().filter(|m| m.is_file()),
            InputName::Stdin => None,
        })
        .map(|m| m.len())
        .sum();
    observer.inputs(total);
    if options.interrupted() {
        // Nothing opened, nothing created.
        let summary = Summary { interrupted: true, ..Summary::default() };
        return Ok((summary, S::Output::default()));
    }
    let waiting = CHUNKS_HELD.saturating_sub(window(pool.current_num_threads())).max(CHANNEL_MIN);
    let (tx, rx) = mpsc::sync_channel::<Message>(waiting);
    let (reply_tx, reply_rx) = mpsc::channel::<SourceStart>();
    let (opened_tx, opened_rx) = mpsc::channel::<Result<Option<Arc<Encoder>>, ImportError>>();
    let interrupt = options.interrupt.clone();
    let writer_thread = std::thread::Builder::new()
        .name("pgnindex-writer".into())
        .spawn(move || {
            let _clock = timings::ThreadClock::start(Stage::Write);
            let opened = open().and_then(|writer| Ok((writer.encoder()?, writer)));
            let writer = match opened {
                Ok((encoder, writer)) => {
                    let _ = opened_tx.send(Ok(encoder));
                    writer
                }
                Err(e) => {
                    let _ = opened_tx.send(Err(e));
                    return Ok(None);
                }
            };
            write_all(writer, &rx, &reply_tx, interrupt.as_deref())
        })
        .map_err(ImportError::Thread)?;
    let encoder = match opened_rx.recv() {
        Ok(Ok(encoder)) => encoder,
        Ok(Err(e)) => {
            let _ = writer_thread.join();
            return Err(e);
        }
        // Only a panic ends the thread before it says whether it opened.
        Err(_) => match writer_thread.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(_) => unreachable!("the writer thread reports its open"),
        },
    };

    // The bounds are compared only with the tree's `late_reach`: none is
    // needed past it, nor without a tree. Without an encoder the writer
    // finds the tree's part and the workers cannot know the tree.
    let within = match &encoder {
        Some(encoder) => encoder.tree().map(|shape| shape.late_reach()),
        None => Some(REACH_CAP),
    };
    let replay = ReplayOptions {
        keys: options.rows.positions,
        reaches: within
            .filter(|_| options.rows.positions)
            .map(|within| Reaches { after: LATE_AFTER, within }),
        fens: options.rows.positions && options.rows.fens,
        notation: options.notation,
        tags: true,
        commands: true,
        san: true,
        movetext: true,
        openings: true,
        rebuild: true,
    };
    let build = Build { rows: options.rows, encoder };
    let summary = Summary { not_pgn: inputs.skipped.len() as u64, ..Summary::default() };
    let mut feed = Feed {
        tx,
        reply: reply_rx,
        observer,
        options,
        summary,
        length: None,
        games: 0,
        skipped: 0,
    };
    let workers = worker_cpu(pool);
    let split = timings::ThreadClock::start(Stage::Split);
    let read = read_inputs(&names, pool, replay, &build, &mut feed);
    drop(split);
    if let (Some(before), Some(after)) = (workers, worker_cpu(pool)) {
        let cpu = after.iter().zip(&before).map(|(a, b)| a.saturating_sub(*b)).sum();
        timings::add_cpu(Stage::Replay, after.len() as u64, cpu);
    }
    let Feed { tx, mut summary, .. } = feed;
    drop(tx);
    let (totals, ending, output) = match writer_thread.join() {
        Ok(Ok(Some(result))) => result,
        Ok(Ok(None)) => unreachable!("a store that did not open reported it"),
        Ok(Err(e)) => return Err(e),
        Err(panic) => std::panic::resume_unwind(panic),
    };
    summary.bytes = read.bytes;
    summary.totals = totals;
    summary.stopped = ending == Ending::Strict;
    summary.interrupted = ending == Ending::Interrupted;
    summary.seconds = started.elapsed().as_secs_f64();
    Ok((summary, output))
}

/// The CPU time of each of `pool`'s threads so far, when timings are
/// counted.
fn worker_cpu(pool: &rayon::ThreadPool) -> Option<Vec<std::time::Duration>> {
    if !timings::enabled() {
        return None;
    }
    pool.broadcast(|_| timings::thread_cpu()).into_iter().collect()
}

/// [`run`]'s visitor of the inputs: asks the writer whether each input
/// was imported before, opens it as a stream, and forwards its chunks to
/// the writer thread. A closed channel (the writer stopped) stops the
/// reading.
struct Feed<'o> {
    tx: mpsc::SyncSender<Message>,
    reply: mpsc::Receiver<SourceStart>,
    observer: &'o mut dyn Observer,
    options: ImportOptions,
    summary: Summary,
    /// The length of the input being read, if known (a file read as
    /// stored, not decompressed): for the writer's batches (`store::batch`).
    length: Option<u64>,
    /// Games read from the input so far.
    games: u64,
    /// Pieces of text skipped in it, between games or in place of them.
    skipped: usize,
}

impl Feed<'_> {
    /// Sends `message` to the writer; `Break` if the writer is gone.
    fn send(&self, message: Message) -> ControlFlow<()> {
        match self.tx.send(message) {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    }
}

/// The facts of the input `name`: a regular file's fingerprint computed on
/// a thread of its own while the file is read (the writer waits for it
/// only where it needs it), another file's read first, as it can be read
/// once only.
fn start_facts(name: &InputName) -> Result<Option<source::Facts>, SourceError> {
    let Some(meta) = source::file_meta(name)? else { return Ok(None) };
    let known = || Ok(source::file_facts(name)?.map(source::Facts::Known));
    let (InputName::Path(path), true) = (name, meta.regular) else { return known() };
    let path = path.clone();
    let thread =
        std::thread::Builder::new().name(Stage::Fingerprint.thread().into()).spawn(move || {
            let _clock = timings::ThreadClock::start(Stage::Fingerprint);
            source::path_facts(&path)
        });
    match thread {
        Ok(thread) => Ok(Some(source::Facts::Hashing { meta, thread })),
        // No thread to spare: the fingerprint first, as it can.
        Err(_) => known(),
    }
}

impl InputVisitor<GameRow> for Feed<'_> {
    fn begin(&mut self, name: &InputName) -> InputStart {
        if self.options.interrupted() {
            return InputStart::Stop;
        }
        let facts = match start_facts(name) {
            Ok(f) => f,
            Err(e) => {
                self.observer.unreadable(&e);
                self.summary.unreadable += 1;
                return InputStart::Skip;
            }
        };
        let size = facts.as_ref().map(source::Facts::size);
        let begin = Message::Begin { name: name.to_string(), facts, force: self.options.force };
        if self.send(begin).is_break() {
            return InputStart::Stop;
        }
        let Ok(start) = self.reply.recv() else { return InputStart::Stop };
        if let SourceStart::AlreadyImported { .. } = start {
            self.observer.already_imported(name);
            self.summary.already_imported += 1;
            return InputStart::Skip;
        }
        self.observer.source(name, size);
        self.summary.files += 1;
        (self.games, self.skipped) = (0, 0);
        InputStart::Read
    }

    fn open(&mut self, name: &InputName) -> Result<Source, SourceError> {
        let limit = self.options.max_input.unwrap_or(u64::MAX);
        self.length = None;
        let source = Source::open(name)?.with_limit(limit);
        self.length = match source.compression() {
            Compression::None => source.len_hint().map(|len| len.min(limit)),
            _ => None,
        };
        Ok(source)
    }

    fn unreadable(&mut self, _name: &InputName, error: &SourceError) -> ControlFlow<()> {
        self.observer.unreadable(error);
        self.summary.unreadable += 1;
        self.send(Message::Abandon)
    }

    fn chunk(
        &mut self,
        _name: &InputName,
        chunk: Chunk<GameRow>,
        place: ChunkPlace,
    ) -> ControlFlow<()> {
        if self.options.interrupted() {
            return ControlFlow::Break(());
        }
        let (offset, line) = (place.offset, place.lines_before);
        let end = offset + chunk.len as u64;
        let games_read = place.games_before + chunk.games.len() as u64;
        self.games += chunk.games.len() as u64;
        self.skipped += chunk.trailing.len();
        let left = self.length.map(|length| length.saturating_sub(end));
        let message = Message::Chunk {
            games: chunk.games,
            trailing: chunk.trailing,
            offset,
            line,
            end,
            left,
        };
        timings::timed(Span::WriterBehind, || self.send(message))?;
        self.observer.progress(end, games_read);
        ControlFlow::Continue(())
    }

    fn end(&mut self, name: &InputName) -> ControlFlow<()> {
        if self.games == 0 && self.skipped > 0 {
            // Text with no game is not PGN: an error, and not recorded as
            // imported (a corrected file is read again).
            let error = SourceError::NoGames { name: name.clone(), skipped: self.skipped };
            return self.unreadable(name, &error);
        }
        if self.games == 0 {
            self.observer.empty(name);
        }
        self.send(Message::End)
    }
}

/// Stored chunks waiting to be freed.
const FREEING: usize = 4;

/// Why the writer thread ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// The reading ended (the channel closed).
    Inputs,
    /// `strict` stopped at a bad game.
    Strict,
    /// The interrupt flag was set.
    Interrupted,
}

/// The writer thread: stores messages until the channel closes (or a
/// strict stop, or `interrupt` is set); returns the totals and why it
/// ended.
///
/// A chunk's rows are freed on a thread of their own: the writer is the
/// import's one serial stage, and freeing the twenty-odd allocations of
/// every row (made on the workers, so each free goes back to another
/// thread's arena) took about a tenth of its time.
fn write_all<S: Store>(
    writer: S,
    rx: &mpsc::Receiver<Message>,
    reply: &mpsc::Sender<SourceStart>,
    interrupt: Option<&AtomicBool>,
) -> Result<Option<(Totals, Ending, S::Output)>, ImportError> {
    let (free_tx, free_rx) = mpsc::sync_channel::<Vec<GameRow>>(FREEING);
    let freeing = std::thread::Builder::new().name("pgnindex-free".into()).spawn(move || {
        let _clock = timings::ThreadClock::start(Stage::Free);
        free_rx.into_iter().for_each(drop);
    });
    // Without that thread (refused by the system), rows are freed here.
    let free_tx = freeing.is_ok().then_some(free_tx);
    let result = write_messages(writer, rx, reply, free_tx.as_ref(), interrupt);
    drop(free_tx);
    if let Ok(thread) = freeing {
        // Dropping rows cannot panic; nothing to carry back.
        let _ = thread.join();
    }
    result.map(Some)
}

/// [`write_all`]'s loop; `free` takes the rows once stored. The flag is
/// looked at before each message: once set, the messages still queued are
/// dropped unread.
fn write_messages<S: Store>(
    mut writer: S,
    rx: &mpsc::Receiver<Message>,
    reply: &mpsc::Sender<SourceStart>,
    free: Option<&mpsc::SyncSender<Vec<GameRow>>>,
    interrupt: Option<&AtomicBool>,
) -> Result<(Totals, Ending, S::Output), ImportError> {
    while let Ok(message) = timings::timed(Span::WriterIdle, || rx.recv()) {
        if is_set(interrupt) {
            break;
        }
        match message {
            Message::Begin { name, facts, force } => {
                let start = writer.begin_source(&name, facts, force)?;
                if reply.send(start).is_err() {
                    break;
                }
            }
            Message::Chunk { mut games, trailing, offset, line, end, left } => {
                let flow = writer.add_chunk(&mut games, &trailing, offset, line, end, left)?;
                if let Some(free) = free {
                    // The thread only ends when this sender is dropped.
                    let _ = free.send(games);
                }
                if flow.is_break() {
                    let (totals, output) = timings::timed(Span::Finish, || writer.finish())?;
                    return Ok((totals, Ending::Strict, output));
                }
            }
            Message::End => writer.end_source()?,
            Message::Abandon => writer.abandon_source()?,
        }
    }
    // Also when the reading saw the flag first and closed the channel.
    if is_set(interrupt) {
        let (totals, output) = writer.interrupt()?;
        return Ok((totals, Ending::Interrupted, output));
    }
    let (totals, output) = timings::timed(Span::Finish, || writer.finish())?;
    Ok((totals, Ending::Inputs, output))
}
