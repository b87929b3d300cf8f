//! [`PositionSorter`]: a batch's position rows sorted by key and written
//! as the image of its segment table, on a thread of their own, beside the
//! writer.
//!
//! The writer thread is what bounds a full import. Here the writer hands
//! over each game's rows as the game's own vector, with its id, and goes
//! on storing games; the sorting thread makes the 16-byte rows and groups
//! each run of them by bucket (the key's high bits) as they come. At the
//! batch's end it sorts the batch one bucket at a time, in key order, and
//! writes the rows into a [`SegmentImage`], which the writer copies whole
//! into the database. On many cores, groups of buckets are sorted and
//! written on several threads at once, each into its own stretch of the
//! image.
//!
//! Given the import's worker pool ([`PositionSorter::sort_on`]), the
//! workers do that work instead: each run is grouped by bucket as a job of
//! the pool, and a batch's groups are sorted into their stretches as jobs
//! too, so that the sorting thread only hands out the work and appends the
//! stretches, and no thread but the workers grows with the input.

use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

use rayon::ThreadPool;

use super::encode::rows::PositionRow;
use super::segments::{
    BuiltSegment, Fens, FilledStretch, PendingPosition, SegmentImage, SegmentStretch, NO_MOVE,
};
use crate::db::GameId;
use crate::timings::{self, Span, Stage};

/// Rows per run handed to the sorting thread.
const RUN: usize = 1 << 20;

/// Games and their position rows, as the writer hands them over.
type Games = Vec<(GameId, Vec<PositionRow>)>;

/// What the writer sends to the sorting thread.
enum Request {
    /// From now on, sort on the workers of this pool.
    Pool(Arc<ThreadPool>),
    /// A run's rows, by game, to sort into the batch.
    Run(Games),
    /// Write the batch's rows into this image, send it back, and start a
    /// new batch.
    Finish(Box<SegmentImage>),
}

/// The image of a batch, or why it could not be made.
type Built = rusqlite::Result<BuiltSegment>;

/// Collects a batch's position rows and hands them back as the image of
/// a segment, in the segment's key order ([`order`]).
///
/// Without a thread (it could not be started) the rows are sorted and
/// written in [`PositionSorter::finish`], on the caller's thread.
#[derive(Debug)]
pub struct PositionSorter {
    /// The games of the run being collected.
    run: Games,
    /// Rows in `run`.
    run_rows: usize,
    /// Rows pushed since the last [`PositionSorter::finish`].
    len: usize,
    /// The image of the batch finished without a thread.
    built: Option<Built>,
    /// A batch was finished and its image not taken yet.
    finished: bool,
    thread: Option<Thread>,
    /// Bytes per page of the images.
    page_size: usize,
    /// The workers that group the runs by bucket, if given.
    pool: Option<Arc<ThreadPool>>,
    /// Runs given to the workers and not grouped yet.
    grouping: Arc<InFlight>,
    /// Runs of the batch handed over.
    runs: usize,
    /// Memory for the next image: the last one's, once written.
    spare: Vec<u8>,
}

/// Runs the writer can give the workers to group ahead of them: it waits
/// past that, as it waits for a sorting thread that falls behind.
const RUNS_IN_FLIGHT: usize = 2;

/// A count of jobs on the workers, which a thread can wait to see fall.
#[derive(Debug, Default)]
struct InFlight {
    jobs: Mutex<usize>,
    done: Condvar,
}

impl InFlight {
    /// Waits until fewer than `n` jobs are in flight, then counts one more
    /// if `start`.
    fn wait_below(&self, n: usize, start: bool) {
        let mut jobs = self.jobs.lock().unwrap_or_else(PoisonError::into_inner);
        while *jobs >= n {
            jobs = self.done.wait(jobs).unwrap_or_else(PoisonError::into_inner);
        }
        *jobs += usize::from(start);
    }

    /// A job ended.
    fn end(&self) {
        *self.jobs.lock().unwrap_or_else(PoisonError::into_inner) -= 1;
        self.done.notify_all();
    }
}

#[derive(Debug)]
struct Thread {
    requests: SyncSender<Request>,
    images: Receiver<Built>,
    /// Where the workers send the runs they grouped, each with its place
    /// among the batch's runs.
    grouped: Sender<(usize, Partitioned)>,
    handle: JoinHandle<()>,
}

impl Default for PositionSorter {
    fn default() -> PositionSorter {
        PositionSorter::new()
    }
}

impl PositionSorter {
    /// A sorter with its thread started (or none, if it cannot be).
    pub fn new() -> PositionSorter {
        PositionSorter::with_page_size(super::image::PAGE_SIZE)
    }

    /// A sorter whose images have pages of `page_size` bytes.
    pub fn with_page_size(page_size: usize) -> PositionSorter {
        PositionSorter {
            run: Vec::new(),
            run_rows: 0,
            len: 0,
            built: None,
            finished: false,
            thread: Thread::start(),
            page_size,
            pool: None,
            grouping: Arc::default(),
            runs: 0,
            spare: Vec::new(),
        }
    }

    /// Takes `buffer`, the bytes of an image written, as the memory of the
    /// next batch's image: its pages are mapped already (a new image of
    /// tens of megabytes was faulted in page by page, and the last one
    /// freed on the writer thread).
    pub fn reuse(&mut self, buffer: Vec<u8>) {
        self.spare = buffer;
    }

    /// Sorts on the workers of `pool` from now on (with a sorting thread;
    /// without one, the caller's thread keeps sorting), if they are no more
    /// than the cores: more workers queue more chunks ahead of the sorting
    /// jobs, and the games read meanwhile wait in memory (OTB at
    /// `--threads 16` on 2 cores: 1.27 GB peak, against 0.7 GB sorted on
    /// the sorting thread).
    pub fn sort_on(&mut self, pool: Arc<ThreadPool>) {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        if pool.current_num_threads() > cores {
            return;
        }
        if let Some(thread) = &self.thread {
            thread.send(Request::Pool(Arc::clone(&pool)));
            self.pool = Some(pool);
        }
    }

    /// Adds the position rows of the game `game_id` to the batch. Plies
    /// fit the 16-byte row: those beyond 65,535 are not indexed (the rows
    /// stop there).
    pub fn push_game(&mut self, game_id: GameId, rows: Vec<PositionRow>) {
        if rows.is_empty() {
            return;
        }
        self.len += rows.len();
        self.run_rows += rows.len();
        self.run.push((game_id, rows));
        if self.run_rows >= RUN && self.thread.is_some() {
            self.run_rows = 0;
            let games = std::mem::take(&mut self.run);
            self.hand_over(games);
        }
    }

    /// Hands a run over to be grouped by bucket: to the workers, or to the
    /// sorting thread.
    fn hand_over(&mut self, games: Games) {
        let Some(thread) = &self.thread else { return };
        match &self.pool {
            Some(pool) => {
                self.grouping.wait_below(RUNS_IN_FLIGHT, true);
                let (grouped, grouping) = (thread.grouped.clone(), self.grouping.clone());
                let run = self.runs;
                // The job never waits: the channel is unbounded.
                pool.spawn(move || {
                    let _ = grouped.send((run, partition(games)));
                    grouping.end();
                });
            }
            None => thread.send(Request::Run(games)),
        }
        self.runs += 1;
    }

    /// Rows in the batch.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Ends the batch: its rows are sorted and written into an image, with
    /// the FENs `fens` (`--with-fens`), which [`PositionSorter::take_image`]
    /// waits for. The sorter starts a new, empty batch.
    pub fn finish(&mut self, fens: Fens) {
        self.discard();
        self.finished = true;
        self.len = 0;
        self.run_rows = 0;
        let games = std::mem::take(&mut self.run);
        let image = SegmentImage::in_buffer(fens, self.page_size, std::mem::take(&mut self.spare));
        if self.thread.is_none() {
            self.built = Some(build(vec![partition(games)], image, None));
            return;
        }
        if !games.is_empty() {
            self.hand_over(games);
        }
        self.runs = 0;
        // Every run of the batch grouped before it is sorted.
        self.grouping.wait_below(1, false);
        if let Some(thread) = &self.thread {
            thread.send(Request::Finish(Box::new(image)));
        }
    }

    /// The image of the batch last finished.
    ///
    /// # Errors
    /// Rows out of order (which the sorting would have to have failed).
    ///
    /// # Panics
    /// If no batch was finished since the last image was taken.
    pub fn take_image(&mut self) -> rusqlite::Result<BuiltSegment> {
        assert!(std::mem::replace(&mut self.finished, false), "a batch was finished");
        match &self.thread {
            // Only a panic on the thread closes the channel; the rows it
            // held are lost, which must not pass for a smaller batch.
            Some(thread) => timings::timed(Span::SortWait, || thread.images.recv())
                .expect("the position sorting thread stopped"),
            None => self.built.take().expect("a batch was finished"),
        }
    }

    /// Drops the image of a batch finished and not taken (the batch was
    /// rolled back), so that the next batch's image is the next one taken.
    pub fn discard(&mut self) {
        if self.finished {
            let _ = self.take_image();
        }
    }
}

impl Drop for PositionSorter {
    fn drop(&mut self) {
        if let Some(Thread { requests, images, handle, .. }) = self.thread.take() {
            // Both channels closed: the thread stops whether it waits for
            // a request or to hand over an image.
            drop(requests);
            drop(images);
            let _ = handle.join();
        }
    }
}

impl Thread {
    fn start() -> Option<Thread> {
        // Two runs in flight: the writer waits only if the thread falls
        // behind by more than that.
        let (requests, incoming) = mpsc::sync_channel::<Request>(2);
        let (outgoing, images) = mpsc::sync_channel(1);
        let (grouped, runs) = mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("pgnindex-sort".into())
            .spawn(move || {
                let _clock = timings::ThreadClock::start(Stage::Sort);
                sort_loop(&incoming, &runs, &outgoing)
            })
            .ok()?;
        Some(Thread { requests, images, grouped, handle })
    }

    fn send(&self, request: Request) {
        // Only a panic on the thread closes the channel; the rows it held
        // are lost, which must not pass for a smaller batch.
        assert!(self.requests.send(request).is_ok(), "the position sorting thread stopped");
    }
}

/// The sorting thread: each run grouped by bucket as it comes (or by the
/// workers, into `grouped`), and at the batch's end each bucket of all runs
/// sorted and written into the image, which is sent back.
fn sort_loop(
    incoming: &Receiver<Request>,
    grouped: &Receiver<(usize, Partitioned)>,
    outgoing: &SyncSender<Built>,
) {
    let mut runs: Vec<Partitioned> = Vec::new();
    let mut pool = None;
    while let Ok(request) = incoming.recv() {
        match request {
            Request::Pool(workers) => pool = Some(workers),
            Request::Run(games) => runs.push(partition(games)),
            Request::Finish(image) => {
                // The writer saw the workers' runs of the batch sent. In
                // the order they were handed over: a bucket's rows sort
                // by key alone when they come in game order.
                let mut theirs: Vec<_> = grouped.try_iter().collect();
                theirs.sort_unstable_by_key(|(run, _)| *run);
                runs.extend(theirs.into_iter().map(|(_, run)| run));
                let built = build(std::mem::take(&mut runs), *image, pool.as_deref());
                if outgoing.send(built).is_err() {
                    return;
                }
            }
        }
    }
}

/// The rows of `runs`, sorted, written into `image`. The runs' memory is
/// given back group after group as the image grows. A large batch is
/// sorted and written on the workers of `pool`, or on several threads, a
/// group of buckets each ([`build_in_stretches`]).
fn build(mut runs: Vec<Partitioned>, mut image: SegmentImage, pool: Option<&ThreadPool>) -> Built {
    let rows = runs.iter().map(Partitioned::len).sum();
    image.reserve(rows);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = (cores / CORES_PER_THREAD).min(MAX_THREADS);
    if let Some(pool) = pool.filter(|_| rows >= PARALLEL_ROWS) {
        build_in_stretches(runs, &mut image, Spread::Pool(pool));
    } else if threads > 1 && rows >= PARALLEL_ROWS {
        build_in_stretches(runs, &mut image, Spread::Threads(threads));
    } else {
        merge(&mut runs, |sorted| image.push(sorted));
    }
    image.finish()
}

/// Rows from which a batch is sorted on several threads.
const PARALLEL_ROWS: usize = 1 << 16;
/// Threads that sort one batch, at most.
const MAX_THREADS: usize = 8;
/// Cores per thread sorting a batch. The sort runs beside the workers and
/// the writer, which it need only keep up with: on two cores a second
/// sorting thread made a full import slower and larger in memory (more
/// threads than cores, groups' rows and stretches held at once), while on
/// many cores one thread leaves the writer waiting for it at every commit.
const CORES_PER_THREAD: usize = 4;

/// The rows of groups of buckets of every run, taken out of the runs.
struct GroupRows {
    /// Per group, in key order, and per run: the group's block and the
    /// starts of its buckets (the run's, from the group's first bucket to
    /// the next group's first).
    groups: Vec<Vec<(Block, Vec<usize>)>>,
    rows: usize,
}

impl GroupRows {
    /// Takes group `group`'s rows out of `runs`.
    fn take(runs: &mut [Partitioned], group: usize) -> GroupRows {
        let range = group * GROUP_BUCKETS..=(group + 1) * GROUP_BUCKETS;
        let mut rows = 0;
        let parts = runs
            .iter_mut()
            .filter_map(|run| {
                let starts = run.starts[range.clone()].to_vec();
                rows += starts[GROUP_BUCKETS] - starts[0];
                Some((run.groups[group].take()?, starts))
            })
            .collect();
        GroupRows { groups: vec![parts], rows }
    }

    /// Sorts the group's rows bucket after bucket into `stretch`, and
    /// frees them.
    fn sort_into(self, stretch: &mut SegmentStretch) {
        let (mut out, mut scratch) = (Vec::new(), Vec::new());
        for parts in self.groups {
            for b in 0..GROUP_BUCKETS {
                out.clear();
                for (block, starts) in &parts {
                    let rows = starts[b] - starts[0]..starts[b + 1] - starts[0];
                    let bytes = &block.bytes()[rows.start * ROW..rows.end * ROW];
                    out.extend(bytes.chunks_exact(ROW).map(decode));
                }
                if !out.is_empty() {
                    sort_bucket(&mut out, &mut scratch);
                    stretch.push(&out);
                }
            }
        }
    }
}

/// Where a batch's groups of buckets are sorted.
#[derive(Clone, Copy)]
enum Spread<'a> {
    /// On this many threads of their own, the caller's one of them.
    Threads(usize),
    /// On the workers of a pool, the caller waiting.
    Pool(&'a ThreadPool),
}

/// [`build`] spread as `spread` says: the groups of buckets holding rows are
/// sorted and written into stretches of the image ([`SegmentImage::stretches`])
/// as the threads take them, and the stretches appended in key order. Each
/// group's rows are freed once written. A group of one row joins the
/// group before it (a stretch after the first needs two).
fn build_in_stretches(mut runs: Vec<Partitioned>, image: &mut SegmentImage, spread: Spread<'_>) {
    let mut groups: Vec<GroupRows> = Vec::new();
    for group in 0..GROUPS {
        let rows = GroupRows::take(&mut runs, group);
        match groups.last_mut() {
            Some(last) if rows.rows < 2 => {
                last.rows += rows.rows;
                last.groups.extend(rows.groups);
            }
            _ if rows.rows == 0 => {}
            _ => groups.push(rows),
        }
    }
    drop(runs);
    let stretches = image.stretches(groups.len());
    let count = stretches.len();
    let work = std::sync::Mutex::new(groups.into_iter().zip(stretches).enumerate());
    let (filled_tx, filled_rx) = mpsc::channel::<(usize, FilledStretch)>();
    let sort = |filled: &Sender<(usize, FilledStretch)>| {
        while let Some((i, (rows, mut stretch))) = next_group(&work) {
            rows.sort_into(&mut stretch);
            // The receiver lives until every stretch is appended.
            let _ = filled.send((i, stretch.filled()));
        }
    };
    // Each stretch is appended as soon as those before it are: the copy
    // into the image runs beside the sorting of the later groups, not
    // after all of it.
    let mut appender = Appender { image, waiting: Vec::new(), next: 0 };
    match spread {
        Spread::Threads(threads) => std::thread::scope(|scope| {
            for _ in 1..threads {
                let helper = std::thread::Builder::new().name("pgnindex-sort".into());
                let filled = filled_tx.clone();
                let sort = &sort;
                // Without another thread, this one sorts every group.
                let _ = helper.spawn_scoped(scope, move || {
                    let _clock = timings::ThreadClock::start(Stage::Sort);
                    sort(&filled);
                });
            }
            sort(&filled_tx);
            drop(filled_tx);
            appender.take_all(&filled_rx, count);
        }),
        Spread::Pool(pool) => pool.in_place_scope(|scope| {
            for _ in 0..pool.current_num_threads() {
                let filled = filled_tx.clone();
                let sort = &sort;
                scope.spawn(move |_| sort(&filled));
            }
            drop(filled_tx);
            appender.take_all(&filled_rx, count);
        }),
    }
}

/// The next group of rows to sort and its stretch, if any is left.
fn next_group<I: Iterator>(work: &Mutex<I>) -> Option<I::Item> {
    // The lock is held only to take the next group.
    work.lock().unwrap_or_else(PoisonError::into_inner).next()
}

/// Appends filled stretches to an image in their order, whatever the
/// order they are filled in.
struct Appender<'a> {
    image: &'a mut SegmentImage,
    /// Stretches filled before one that comes first, by index.
    waiting: Vec<(usize, FilledStretch)>,
    /// The index of the next stretch to append.
    next: usize,
}

impl Appender<'_> {
    /// Takes the `count` stretches from `filled` as they come, appending
    /// each once those before it are.
    fn take_all(&mut self, filled: &Receiver<(usize, FilledStretch)>, count: usize) {
        while self.next < count {
            let Ok((i, stretch)) = filled.recv() else { break };
            self.waiting.push((i, stretch));
            while let Some(at) = self.waiting.iter().position(|(i, _)| *i == self.next) {
                let (_, stretch) = self.waiting.swap_remove(at);
                self.image.append(stretch);
                self.next += 1;
            }
        }
    }
}

/// The 16-byte row of the position `p` of the game `game_id`.
fn pending(game_id: GameId, p: PositionRow) -> PendingPosition {
    PendingPosition {
        hash: p.hash,
        game_id,
        ply: p.ply as u16,
        next_move: p.next_move.unwrap_or(NO_MOVE),
    }
}

/// High bits of the key that pick a row's bucket. Keys are Zobrist
/// hashes, spread evenly: a full batch's bucket holds some 8,000 rows (and
/// the rows of the positions every game passes through), which sort in
/// the cache, and sorting the buckets one after the other needs no merge.
const BUCKET_BITS: u32 = 10;
/// Buckets, in key order.
const BUCKETS: usize = 1 << BUCKET_BITS;

/// The bucket of `hash`: its high bits, the sign flipped so that buckets
/// follow the keys' signed order.
fn bucket(hash: i64) -> usize {
    (((hash as u64) ^ (1 << 63)) >> (64 - BUCKET_BITS)) as usize
}

/// The segment's key order, `(hash, gpm)`, as one integer, which sorts
/// faster than the field by field comparison. A `gpm` orders by game, then
/// ply, but for the plies from 512 on, which follow every shorter ply.
fn order(p: &PendingPosition) -> u128 {
    (u128::from((p.hash as u64) ^ (1 << 63)) << 64) | u128::from(p.gpm() as u64)
}

/// Buckets whose rows a run holds in one block of memory.
const GROUP_BUCKETS: usize = 64;
/// Blocks of a run.
const GROUPS: usize = BUCKETS / GROUP_BUCKETS;

/// Bytes of a row as a run holds it.
const ROW: usize = 16;

/// A run's rows grouped by bucket: bucket `b` is rows
/// `starts[b]..starts[b + 1]` of the run, in no order within, held in the
/// block of its group (`b / GROUP_BUCKETS`), which is freed once the image
/// has its rows: the runs of a batch and its image are not all in memory
/// at once.
struct Partitioned {
    groups: Vec<Option<Block>>,
    starts: Vec<usize>,
}

impl Partitioned {
    /// Rows in the run.
    fn len(&self) -> usize {
        self.starts[BUCKETS]
    }

    /// Appends the rows of bucket `b` to `out`.
    fn extend_bucket(&self, b: usize, out: &mut Vec<PendingPosition>) {
        let group = b / GROUP_BUCKETS;
        let Some(block) = &self.groups[group] else { return };
        let base = self.starts[group * GROUP_BUCKETS];
        let bytes =
            &block.bytes()[(self.starts[b] - base) * ROW..(self.starts[b + 1] - base) * ROW];
        out.extend(bytes.chunks_exact(ROW).map(decode));
    }

    /// Frees the rows of group `group`.
    fn free(&mut self, group: usize) {
        self.groups[group] = None;
    }
}

/// Memory for rows: an anonymous mapping, whose pages go back to the
/// system when it is dropped (freed heap memory may stay with the
/// process), or a vector if no mapping can be made.
enum Block {
    Mapped(memmap2::MmapMut),
    Heap(Vec<u8>),
}

impl Block {
    fn new(len: usize) -> Block {
        match memmap2::MmapMut::map_anon(len) {
            Ok(map) => Block::Mapped(map),
            Err(_) => Block::Heap(vec![0; len]),
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Block::Mapped(map) => map,
            Block::Heap(vec) => vec,
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Block::Mapped(map) => map,
            Block::Heap(vec) => vec,
        }
    }
}

/// `p` as a run holds it.
fn encode(p: &PendingPosition, out: &mut [u8]) {
    out[..8].copy_from_slice(&p.hash.to_le_bytes());
    out[8..12].copy_from_slice(&p.game_id.get().to_le_bytes());
    out[12..14].copy_from_slice(&p.ply.to_le_bytes());
    out[14..16].copy_from_slice(&p.next_move.to_le_bytes());
}

/// The row `bytes` holds ([`encode`]).
fn decode(bytes: &[u8]) -> PendingPosition {
    let field = |range: std::ops::Range<usize>| &bytes[range];
    PendingPosition {
        hash: i64::from_le_bytes(field(0..8).try_into().unwrap_or_default()),
        game_id: GameId::new(u32::from_le_bytes(field(8..12).try_into().unwrap_or_default())),
        ply: u16::from_le_bytes(field(12..14).try_into().unwrap_or_default()),
        next_move: u16::from_le_bytes(field(14..16).try_into().unwrap_or_default()),
    }
}

/// The rows of `games` grouped by bucket (a counting sort on the bucket).
fn partition(games: Games) -> Partitioned {
    let mut starts = vec![0usize; BUCKETS + 1];
    for (_, rows) in &games {
        for p in rows {
            starts[bucket(p.hash) + 1] += 1;
        }
    }
    for b in 0..BUCKETS {
        starts[b + 1] += starts[b];
    }
    let mut groups: Vec<Option<Block>> = (0..GROUPS)
        .map(|g| {
            let rows = starts[(g + 1) * GROUP_BUCKETS] - starts[g * GROUP_BUCKETS];
            (rows > 0).then(|| Block::new(rows * ROW))
        })
        .collect();
    let mut next = starts.clone();
    for (game_id, positions) in games {
        for p in positions {
            let b = bucket(p.hash);
            let group = b / GROUP_BUCKETS;
            let at = (next[b] - starts[group * GROUP_BUCKETS]) * ROW;
            next[b] += 1;
            if let Some(block) = &mut groups[group] {
                encode(&pending(game_id, p), &mut block.bytes_mut()[at..at + ROW]);
            }
        }
    }
    Partitioned { groups, starts }
}

/// Sorts the rows of `runs`, bucket after bucket, handing each bucket's
/// sorted rows to `take`: all rows, in key order. Each group's rows are
/// freed once taken.
fn merge(runs: &mut [Partitioned], mut take: impl FnMut(&[PendingPosition])) {
    let mut out = Vec::new();
    let mut scratch = Vec::new();
    for b in 0..BUCKETS {
        out.clear();
        for run in runs.iter() {
            run.extend_bucket(b, &mut out);
        }
        if !out.is_empty() {
            sort_bucket(&mut out, &mut scratch);
            take(&out);
        }
        if (b + 1) % GROUP_BUCKETS == 0 {
            for run in runs.iter_mut() {
                run.free(b / GROUP_BUCKETS);
            }
        }
    }
}

/// Below this many rows a bucket is sorted by comparisons alone.
const COUNTING_MIN: usize = 256;

/// Sorts the rows of one bucket in [`order`], leaving them in `rows`. Their
/// keys share the bucket's high bits and are spread evenly below them: one
/// counting pass on the next bits, as many as leave some four rows to each
/// of their values, puts every row within a few places of its own, and each
/// run of rows sharing those bits is then sorted by comparisons (a handful
/// of rows, or the rows of one frequent position, which come in game and ply
/// order and so are found sorted). Seven byte-wide passes of a radix sort
/// over the 54 bits took over twice as long.
fn sort_bucket(rows: &mut Vec<PendingPosition>, scratch: &mut Vec<PendingPosition>) {
    if rows.len() < COUNTING_MIN {
        rows.sort_unstable_by_key(order);
        return;
    }
    let bits = (rows.len().ilog2() - 2).min(64 - BUCKET_BITS);
    let shift = 64 - BUCKET_BITS - bits;
    let mask = (1u64 << bits) - 1;
    let digit = |p: &PendingPosition| ((p.hash as u64) >> shift & mask) as usize;
    // `ends[d]`: first the start of digit `d`'s rows, then, once they are
    // placed, their end.
    let mut ends = vec![0usize; 1 << bits];
    for p in rows.iter() {
        ends[digit(p)] += 1;
    }
    let mut next = 0;
    for end in &mut ends {
        (*end, next) = (next, next + *end);
    }
    scratch.clear();
    scratch.extend_from_slice(rows);
    for p in rows.iter() {
        let at = &mut ends[digit(p)];
        scratch[*at] = *p;
        *at += 1;
    }
    let mut start = 0;
    for end in ends {
        if end - start > 1 {
            scratch[start..end].sort_unstable_by_key(order);
        }
        start = end;
    }
    std::mem::swap(rows, scratch);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(hash: i64, game: i64, ply: u16) -> PendingPosition {
        PendingPosition { hash, game_id: GameId::try_from(game).unwrap(), ply, next_move: ply }
    }

    /// `rows` as the writer hands them over: each run of rows of one game
    /// as that game's.
    fn by_game(rows: &[PendingPosition]) -> Games {
        rows.chunk_by(|a, b| a.game_id == b.game_id)
            .map(|game| {
                let positions = game
                    .iter()
                    .map(|p| PositionRow {
                        hash: p.hash,
                        ply: u32::from(p.ply),
                        next_move: (p.next_move != NO_MOVE).then_some(p.next_move),
                        reach: 0,
                    })
                    .collect();
                (game[0].game_id, positions)
            })
            .collect()
    }

    /// Pushes `rows`, game by game.
    fn push_all(sorter: &mut PositionSorter, rows: &[PendingPosition]) {
        for (game_id, positions) in by_game(rows) {
            sorter.push_game(game_id, positions);
        }
    }

    /// Rows in a pseudo-random order, with repeated keys as real batches
    /// have (the start position in every game).
    fn rows(n: usize, seed: u64) -> Vec<PendingPosition> {
        let mut x = seed;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let hash = if i % 7 == 0 {
                    42
                } else if i % 3 == 0 {
                    (x >> 40) as i64 - (1 << 23)
                } else {
                    x as i64
                };
                // Some plies from 512 on, which `gpm` orders after the
                // shorter plies of later games.
                let ply = if i % 50 == 49 { 500 + i % 100 } else { i % 50 };
                row(hash, (i / 50 + 1) as i64, ply as u16)
            })
            .collect()
    }

    /// `rows` sorted in the segment's key order.
    fn sorted(mut rows: Vec<PendingPosition>) -> Vec<PendingPosition> {
        rows.sort_by_key(|p| (p.hash, p.gpm()));
        rows
    }

    /// `rows` sorted, as an image holds them.
    fn keys(rows: Vec<PendingPosition>) -> Vec<(i64, i64, Option<String>)> {
        sorted(rows).iter().map(|p| (p.hash, p.gpm(), None)).collect()
    }

    #[test]
    fn batches_come_back_sorted_across_runs_and_batches() {
        let mut sorter = PositionSorter::new();
        for (n, seed) in [(RUN * 2 + 12_345, 1), (0, 2), (17, 3), (RUN, 4), (RUN + 1, 5)] {
            let input = rows(n, seed);
            push_all(&mut sorter, &input);
            assert_eq!(sorter.len(), n);
            sorter.finish(Vec::new());
            assert_eq!(sorter.len(), 0);
            let got = sorter.take_image().unwrap().read_back();
            assert!(got == keys(input), "batch of {n} rows differs from a plain sort");
        }
    }

    #[test]
    fn batches_sorted_by_a_pool_of_workers_come_back_sorted() {
        // One worker: no more than the cores of any machine.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let mut sorter = PositionSorter::new();
        sorter.sort_on(Arc::new(pool));
        assert!(sorter.pool.is_some());
        // Runs grouped on the workers, a batch too small to spread, and
        // more runs than the writer hands out at once.
        for (n, seed) in [(RUN * 2 + 12_345, 11), (17, 12), (RUN * 4 + 1, 13)] {
            let input = rows(n, seed);
            push_all(&mut sorter, &input);
            sorter.finish(Vec::new());
            let got = sorter.take_image().unwrap().read_back();
            assert!(got == keys(input), "batch of {n} rows differs from a plain sort");
        }
    }

    #[test]
    fn groups_of_one_row_or_none_sort_on_several_threads() {
        let group = |p: &PendingPosition| bucket(p.hash) / GROUP_BUCKETS;
        let mut input = rows(70_000, 9);
        input.retain(|p| matches!(group(p), 0..=4 | 9));
        // One row alone in its group, in the middle and at the end.
        let alone = |g: u64| ((g << 60) ^ (1 << 63)) as i64 | 12_345;
        input.push(row(alone(6), 2_000, 3));
        input.push(row(alone(15), 2_001, 3));
        input.push(row(alone(12), 2_002, 1));
        input.push(row(alone(12) + 1, 2_002, 2));
        assert_eq!(input.iter().filter(|p| group(p) == 6).count(), 1);
        for threads in [1, 2, 3, 8] {
            // Two runs, the rows of a game in one.
            let half = input.len() / 2 / 50 * 50;
            let runs = vec![partition(by_game(&input[..half])), partition(by_game(&input[half..]))];
            let mut image = SegmentImage::new(Vec::new());
            build_in_stretches(runs, &mut image, Spread::Threads(threads));
            let got = image.finish().unwrap().read_back();
            assert!(got == keys(input.clone()), "{threads} threads");
        }
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let half = input.len() / 2 / 50 * 50;
        let runs = vec![partition(by_game(&input[..half])), partition(by_game(&input[half..]))];
        let mut image = SegmentImage::new(Vec::new());
        build_in_stretches(runs, &mut image, Spread::Pool(&pool));
        assert!(image.finish().unwrap().read_back() == keys(input), "a pool of 3 workers");
    }

    #[test]
    fn without_a_thread_the_batch_is_sorted_on_the_callers() {
        let mut sorter = PositionSorter::new();
        drop(sorter.thread.take());
        for (n, seed) in [(RUN + 7, 6), (3, 7)] {
            let input = rows(n, seed);
            push_all(&mut sorter, &input);
            sorter.finish(Vec::new());
            assert!(sorter.take_image().unwrap().read_back() == keys(input));
        }
    }

    #[test]
    fn fens_go_with_their_rows() {
        let mut sorter = PositionSorter::new();
        let input = rows(5_000, 8);
        push_all(&mut sorter, &input);
        let mut fens: Fens = input
            .iter()
            .filter(|p| p.ply % 2 == 0)
            .map(|p| (p.game_id, p.ply, format!("fen {} {}", p.game_id, p.ply)))
            .collect();
        fens.sort();
        sorter.finish(fens);
        let expected: Vec<_> = sorted(input)
            .iter()
            .map(|p| {
                let fen = (p.ply % 2 == 0).then(|| format!("fen {} {}", p.game_id, p.ply));
                (p.hash, p.gpm(), fen)
            })
            .collect();
        assert!(sorter.take_image().unwrap().read_back() == expected);
    }

    #[test]
    fn a_bucket_sorts_by_its_key_bits_as_by_comparisons_whatever_order_equal_keys_come_in() {
        let mut scratch = Vec::new();
        // One bucket's rows: the keys' high bits equal, some keys repeated.
        let in_bucket = |rows: Vec<PendingPosition>| -> Vec<PendingPosition> {
            rows.into_iter()
                .map(|p| PendingPosition { hash: p.hash & ((1 << 54) - 1) | (3 << 54), ..p })
                .collect()
        };
        for (n, seed) in [(COUNTING_MIN - 1, 1), (COUNTING_MIN, 2), (5_000, 3), (20_000, 4)] {
            let input = in_bucket(rows(n, seed));
            let expected = sorted(input.clone());
            let mut got = input.clone();
            sort_bucket(&mut got, &mut scratch);
            assert!(got == expected, "{n} rows in game order");
            // Equal keys in another order than their games': the
            // comparisons put them right.
            let mut reversed = input;
            reversed.reverse();
            sort_bucket(&mut reversed, &mut scratch);
            assert!(reversed == expected, "{n} rows in reverse game order");
        }
    }

    /// `rows` as a run: grouped by game, then by bucket.
    fn partitioned(rows: &[PendingPosition]) -> Partitioned {
        partition(by_game(rows))
    }

    #[test]
    fn merging_orders_equal_keys_by_gpm() {
        let runs = [
            vec![row(1, 1, 0), row(3, 1, 2), row(3, 4, 0), row(i64::MAX, 4, 1)],
            vec![row(0, 2, 0), row(3, 2, 5), row(9, 3, 1), row(-1, 3, 2), row(i64::MIN, 3, 3)],
            vec![],
            vec![row(3, 3, 0)],
        ];
        let mut out = Vec::new();
        let mut parts: Vec<Partitioned> = runs.iter().map(|r| partitioned(r)).collect();
        merge(&mut parts, |bucket| {
            assert!(!bucket.is_empty());
            out.extend_from_slice(bucket);
        });
        assert_eq!(out, sorted(runs.concat()));
    }

    #[test]
    fn a_run_gives_its_rows_back_and_frees_them_group_by_group() {
        let input = rows(20_000, 7);
        let part = partitioned(&input);
        assert_eq!(part.len(), input.len());
        assert!(part.groups.iter().all(Option::is_some), "random keys fill every group");
        let mut back = Vec::new();
        for b in 0..BUCKETS {
            part.extend_bucket(b, &mut back);
        }
        assert_eq!(sorted(back), sorted(input.clone()));
        // Edge values survive the 16-byte form.
        let edge = PendingPosition {
            hash: i64::MIN,
            game_id: GameId::new(u32::MAX),
            ply: u16::MAX,
            next_move: NO_MOVE,
        };
        let mut bytes = [0u8; ROW];
        encode(&edge, &mut bytes);
        assert_eq!(decode(&bytes), edge);
        // Merging frees each group once its buckets are taken.
        let mut parts = vec![part];
        let mut taken = 0;
        merge(&mut parts, |rows| taken += rows.len());
        assert_eq!(taken, input.len());
        assert!(parts[0].groups.iter().all(Option::is_none));
    }

    #[test]
    fn the_order_key_is_the_segments_key() {
        let mut rows = rows(10_000, 3);
        rows.extend([row(i64::MIN, 1, 0), row(i64::MAX, 1, 1), row(-1, 2, 0), row(0, 2, 1)]);
        rows.push(PendingPosition { next_move: NO_MOVE, ..row(0, 2, 1) });
        rows.push(row(5, 1, 600));
        rows.push(row(5, 2, 10));
        let mut by_key = rows.clone();
        by_key.sort_unstable_by_key(order);
        assert!(sorted(rows) == by_key);
    }

    #[test]
    fn buckets_follow_the_keys_signed_order() {
        let keys = [i64::MIN, -(1 << 54) - 1, -1, 0, 1 << 54, i64::MAX];
        let buckets: Vec<usize> = keys.iter().map(|&k| bucket(k)).collect();
        assert!(buckets.windows(2).all(|w| w[0] < w[1]), "{buckets:?}");
        assert_eq!((buckets[0], buckets[5]), (0, BUCKETS - 1));
    }

    #[test]
    fn a_sorter_dropped_before_its_image_is_taken_stops() {
        let mut sorter = PositionSorter::new();
        push_all(&mut sorter, &rows(RUN * 2, 11));
        sorter.finish(Vec::new());
        push_all(&mut sorter, &rows(RUN, 12));
        sorter.finish(Vec::new());
        drop(sorter);
    }
}
