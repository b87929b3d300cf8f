//! Where an import's time went: the CPU seconds of each stage's threads,
//! and the wall seconds the stages spent waiting on one another or on the
//! disk ([`Report`]).
//!
//! The counters belong to the process and count only once [`enable`] was
//! called, so that an import that does not report them pays for no clock
//! reads. A thread adds its CPU time to its stage when it ends
//! ([`ThreadClock`]); the replay workers, which outlive an import, are
//! read by the import itself ([`add_cpu`]).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A stage of the import: the threads that do one kind of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The main thread: cutting the input into chunks for the workers,
    /// and handing their games to the writer.
    Split,
    /// Reading and decompressing a stream, a block ahead.
    Read,
    /// Reading a file whole for its fingerprint, beside its import.
    Fingerprint,
    /// The workers: tokenizing, replaying and encoding each game's rows.
    Replay,
    /// The writer: dedupe, the rows into SQLite, the commits.
    Write,
    /// Sorting each batch's positions into a table image.
    Sort,
    /// Reading and merging position segments for the writer to append.
    Merge,
    /// Copying the write-ahead log into the database file.
    Checkpoint,
    /// Syncing the database file to the disk while importing.
    Sync,
    /// Freeing the stored rows.
    Free,
    /// Counting the players of the games stored.
    Players,
    /// Encoding, compressing and writing Parquet files (`--parquet`).
    Parquet,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 12] = [
        Stage::Fingerprint,
        Stage::Read,
        Stage::Split,
        Stage::Replay,
        Stage::Write,
        Stage::Sort,
        Stage::Merge,
        Stage::Checkpoint,
        Stage::Sync,
        Stage::Free,
        Stage::Players,
        Stage::Parquet,
    ];

    /// Its name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Split => "split",
            Stage::Read => "read",
            Stage::Fingerprint => "fingerprint",
            Stage::Replay => "replay",
            Stage::Write => "write",
            Stage::Sort => "sort",
            Stage::Merge => "merge",
            Stage::Checkpoint => "checkpoint",
            Stage::Sync => "sync",
            Stage::Free => "free",
            Stage::Players => "players",
            Stage::Parquet => "parquet",
        }
    }

    /// The name of its threads, as the system shows them.
    pub fn thread(self) -> &'static str {
        match self {
            Stage::Split => "pgnindex",
            Stage::Read => "pgnindex-read",
            Stage::Fingerprint => "pgnindex-hash",
            Stage::Replay => "pgnindex-worker-N",
            Stage::Write => "pgnindex-writer",
            Stage::Sort => "pgnindex-sort",
            Stage::Merge => "pgnindex-merge",
            Stage::Checkpoint => "pgnindex-checkpoint",
            Stage::Sync => "pgnindex-flush",
            Stage::Free => "pgnindex-free",
            Stage::Players => "pgnindex-players",
            Stage::Parquet => "pgnindex-parquet",
        }
    }
}

/// A wall-clock span spent on one thing, measured where it happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// The workers turning replayed games into rows: CPU time, part of
    /// [`Stage::Replay`]'s, counted as its share of each chunk's
    /// ([`timed_share`]).
    Encode,
    /// The writer waiting for games: the stages before it were behind.
    WriterIdle,
    /// The main thread waiting for the writer to take a chunk: the writer
    /// was behind.
    WriterBehind,
    /// The writer waiting for a batch's sorted positions.
    SortWait,
    /// Background checkpoints at work.
    Checkpointing,
    /// The writer copying the log itself, once it grew past its limit
    /// (the background checkpoints were behind).
    WriterCheckpoint,
    /// Background syncs at work: time the disk took.
    Syncing,
    /// The writer's end: last commit, statistics, checkpoint and sync.
    Finish,
}

impl Span {
    const COUNT: usize = 8;
}

static ENABLED: AtomicBool = AtomicBool::new(false);
static CPU: [AtomicU64; Stage::ALL.len()] = [const { AtomicU64::new(0) }; Stage::ALL.len()];
static THREADS: [AtomicU64; Stage::ALL.len()] = [const { AtomicU64::new(0) }; Stage::ALL.len()];
static SPANS: [AtomicU64; Span::COUNT] = [const { AtomicU64::new(0) }; Span::COUNT];

/// Starts counting (for the rest of the process).
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// `true` once [`enable`] was called.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// The calling thread's CPU time (user and system) so far; `None` where
/// the system does not say.
pub fn thread_cpu() -> Option<Duration> {
    #[cfg(target_os = "linux")]
    {
        let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `t` is a valid timespec for the call to fill.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
        (rc == 0).then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Adds `cpu` seconds of `threads` threads to `stage`.
pub fn add_cpu(stage: Stage, threads: u64, cpu: Duration) {
    let i = stage as usize;
    CPU[i].fetch_add(nanos(cpu), Ordering::Relaxed);
    THREADS[i].fetch_add(threads, Ordering::Relaxed);
}

/// Adds `wall` to `span`.
pub fn add_span(span: Span, wall: Duration) {
    SPANS[span as usize].fetch_add(nanos(wall), Ordering::Relaxed);
}

/// Runs `f`, counting its wall time to `span` when counting is on.
pub fn timed<T>(span: Span, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let start = Instant::now();
    let result = f();
    add_span(span, start.elapsed());
    result
}

/// Runs `f`, counting the CPU time of the calling thread in it to `span`
/// when counting is on: for work on threads that may wait for a core
/// meanwhile (two clock reads that each cost a system call).
pub fn timed_cpu<T>(span: Span, f: impl FnOnce() -> T) -> T {
    let Some(start) = enabled().then(thread_cpu).flatten() else { return f() };
    let result = f();
    if let Some(end) = thread_cpu() {
        add_span(span, end.saturating_sub(start));
    }
    result
}

/// Runs `f`, counting its share of the CPU time of the calling thread's
/// [`Stretch`] to `span` when counting is on: the wall time of `f` (a clock
/// read of some 30 ns) over the stretch's wall time, times the stretch's
/// CPU time, so that work done once a game pays for no system call. Outside
/// a stretch, [`timed_cpu`].
pub fn timed_share<T>(span: Span, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    if !IN_STRETCH.get() {
        return timed_cpu(span, f);
    }
    let start = Instant::now();
    let result = f();
    let wall = nanos(start.elapsed());
    SHARES.with(|shares| {
        let mut all = shares.get();
        all[span as usize] += wall;
        shares.set(all);
    });
    result
}

thread_local! {
    /// Whether a [`Stretch`] is open on this thread.
    static IN_STRETCH: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The wall nanoseconds of each span counted by [`timed_share`] in the
    /// open stretch.
    static SHARES: std::cell::Cell<[u64; Span::COUNT]> =
        const { std::cell::Cell::new([0; Span::COUNT]) };
}

/// A stretch of work on one thread (a chunk of games) whose CPU time the
/// spans counted by [`timed_share`] in it share: two reads of the thread's
/// CPU clock a stretch, where a read a game would cost some 0.6 µs of
/// system call each. The shares are added when it is dropped.
#[derive(Debug)]
pub struct Stretch {
    cpu: Duration,
    wall: Instant,
}

impl Stretch {
    /// Opens a stretch on the calling thread, if counting is on and none
    /// is open.
    pub fn begin() -> Option<Stretch> {
        if !enabled() || IN_STRETCH.get() {
            return None;
        }
        let cpu = thread_cpu()?;
        IN_STRETCH.set(true);
        SHARES.set([0; Span::COUNT]);
        Some(Stretch { cpu, wall: Instant::now() })
    }
}

impl Drop for Stretch {
    fn drop(&mut self) {
        IN_STRETCH.set(false);
        let shares = SHARES.replace([0; Span::COUNT]);
        let wall = nanos(self.wall.elapsed()).max(1);
        let Some(now) = thread_cpu() else { return };
        let cpu = nanos(now.saturating_sub(self.cpu));
        for (i, &share) in shares.iter().enumerate() {
            if share > 0 {
                // The share of the wall time is at most the whole.
                let part = u128::from(cpu) * u128::from(share.min(wall)) / u128::from(wall);
                SPANS[i].fetch_add(part as u64, Ordering::Relaxed);
            }
        }
    }
}

/// Counts the CPU time its thread spends from [`ThreadClock::start`] until
/// it is dropped (normally at the thread's end) to a stage.
#[derive(Debug)]
pub struct ThreadClock {
    stage: Stage,
    start: Option<Duration>,
}

impl ThreadClock {
    /// Starts counting for `stage` on the calling thread, if counting is on.
    pub fn start(stage: Stage) -> ThreadClock {
        ThreadClock { stage, start: if enabled() { thread_cpu() } else { None } }
    }
}

impl Drop for ThreadClock {
    fn drop(&mut self) {
        // Not counting, no clock read: a clock read is a system call.
        let Some(start) = self.start else { return };
        if let Some(now) = thread_cpu() {
            add_cpu(self.stage, 1, now.saturating_sub(start));
        }
    }
}

/// What the counters hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    cpu: [Duration; Stage::ALL.len()],
    threads: [u64; Stage::ALL.len()],
    spans: [Duration; Span::COUNT],
}

/// The stage that bounded an import, with the share of the wall time it
/// was busy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// What it was: a stage, or `None` for the disk (syncs the writer
    /// waited for).
    pub stage: Option<Stage>,
    /// Its busy share of the wall time (for the workers: of all of theirs).
    pub busy: f64,
}

impl Report {
    /// The counters now.
    pub fn now() -> Report {
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Report {
            cpu: std::array::from_fn(|i| Duration::from_nanos(load(&CPU[i]))),
            threads: std::array::from_fn(|i| load(&THREADS[i])),
            spans: std::array::from_fn(|i| Duration::from_nanos(load(&SPANS[i]))),
        }
    }

    /// CPU time of `stage`'s threads.
    pub fn cpu(&self, stage: Stage) -> Duration {
        self.cpu[stage as usize]
    }

    /// How many threads counted to `stage`.
    pub fn threads(&self, stage: Stage) -> u64 {
        self.threads[stage as usize]
    }

    /// Wall time of `span`.
    pub fn span(&self, span: Span) -> Duration {
        self.spans[span as usize]
    }

    /// The writer's wall time at work: the import's `wall` but for its
    /// waits (for games, for the sort) and its end (mostly the disk).
    pub fn writer_busy(&self, wall: Duration) -> Duration {
        wall.saturating_sub(self.span(Span::WriterIdle))
            .saturating_sub(self.span(Span::SortWait))
            .saturating_sub(self.span(Span::Finish))
            .saturating_sub(self.span(Span::WriterCheckpoint))
    }

    /// The wall time the writer waited for the disk: its own checkpoints
    /// and its end.
    pub fn disk(&self) -> Duration {
        self.span(Span::Finish) + self.span(Span::WriterCheckpoint)
    }

    /// The busiest stage of an import that took `wall` on `workers`
    /// workers: the one with the largest busy share of the wall time. A
    /// one-thread stage is busy for its CPU time (the writer: for its wall
    /// time but its waits), the workers for their CPU time over their
    /// number, the disk for [`Report::disk`].
    pub fn bound(&self, wall: Duration, workers: usize) -> Bound {
        let wall = wall.as_secs_f64().max(1e-9);
        let share = |d: Duration| d.as_secs_f64() / wall;
        let mut candidates = vec![
            (Some(Stage::Write), share(self.writer_busy(Duration::from_secs_f64(wall)))),
            (Some(Stage::Replay), share(self.cpu(Stage::Replay)) / workers.max(1) as f64),
            (None, share(self.disk())),
        ];
        for stage in [
            Stage::Fingerprint,
            Stage::Read,
            Stage::Split,
            Stage::Sort,
            Stage::Merge,
            Stage::Parquet,
        ] {
            candidates.push((Some(stage), share(self.cpu(stage))));
        }
        let (stage, busy) =
            candidates
                .into_iter()
                .fold((None, f64::MIN), |best, c| if c.1 > best.1 { c } else { best });
        Bound { stage, busy: busy.clamp(0.0, 1.0) }
    }

    /// The serial part of the work: the stage of one thread (every stage
    /// but replay, whose workers grow with the cores) with the most CPU
    /// time, and that time.
    pub fn serial(&self) -> Option<(Stage, Duration)> {
        Stage::ALL
            .into_iter()
            .filter(|&s| s != Stage::Replay && self.threads(s) > 0)
            .map(|s| (s, self.cpu(s)))
            .max_by_key(|&(_, cpu)| cpu)
    }

    /// The most an import of this work could gain on `cores` cores over
    /// one core: all its CPU time over the longer of its serial part
    /// ([`Report::serial`]) and all its CPU time shared by the cores.
    pub fn speed_up(&self, cores: usize) -> f64 {
        let total: f64 = Stage::ALL.iter().map(|&s| self.cpu(s).as_secs_f64()).sum();
        let serial = self.serial().map_or(0.0, |(_, cpu)| cpu.as_secs_f64());
        let wall = serial.max(total / cores.max(1) as f64);
        if wall <= 0.0 {
            1.0
        } else {
            total / wall
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_clock_counts_its_threads_cpu_to_its_stage() {
        enable();
        let before = Report::now();
        std::thread::spawn(|| {
            let _clock = ThreadClock::start(Stage::Free);
            // Until the thread has had 30 ms of CPU (a loaded machine
            // gives it less than its wall time), or 5 s have passed.
            let (start, cpu) = (Instant::now(), thread_cpu());
            let spun = || match (thread_cpu(), cpu) {
                (Some(now), Some(cpu)) => now - cpu,
                _ => start.elapsed(),
            };
            let mut x = 0u64;
            while spun() < Duration::from_millis(30) && start.elapsed() < Duration::from_secs(5) {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
        })
        .join()
        .unwrap();
        let after = Report::now();
        if thread_cpu().is_some() {
            let cpu = after.cpu(Stage::Free) - before.cpu(Stage::Free);
            assert!(cpu >= Duration::from_millis(10), "{cpu:?}");
            assert_eq!(after.threads(Stage::Free), before.threads(Stage::Free) + 1);
        }
    }

    fn report(spans: &[(Span, u64)], cpu: &[(Stage, u64)]) -> Report {
        let mut r = Report::default();
        for &(span, ms) in spans {
            r.spans[span as usize] = Duration::from_millis(ms);
        }
        for &(stage, ms) in cpu {
            r.cpu[stage as usize] = Duration::from_millis(ms);
        }
        r
    }

    /// Work of 10 s of CPU, 2 s of it on the writer: at most 5 times one
    /// core's speed, from 5 cores on.
    /// Spins until the calling thread has had `ms` of CPU (or 5 s passed).
    fn spin(ms: u64) {
        let (start, cpu) = (Instant::now(), thread_cpu());
        let spun = || match (thread_cpu(), cpu) {
            (Some(now), Some(cpu)) => now - cpu,
            _ => start.elapsed(),
        };
        let mut x = 0u64;
        while spun() < Duration::from_millis(ms) && start.elapsed() < Duration::from_secs(5) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
    }

    #[test]
    fn a_stretch_shares_its_cpu_time_among_the_spans_in_it() {
        enable();
        let counted = || Report::now().span(Span::Encode);
        let before = counted();
        let shared = std::thread::spawn(move || {
            let stretch = Stretch::begin();
            assert!(Stretch::begin().is_none(), "one stretch at a time");
            timed_share(Span::Encode, || spin(30));
            spin(30);
            let cpu = thread_cpu().zip(stretch.as_ref().map(|s| s.cpu)).map(|(a, b)| a - b);
            drop(stretch);
            cpu
        })
        .join()
        .unwrap();
        if let Some(cpu) = shared {
            // About half of the stretch's CPU time (other tests' imports
            // may add to the span meanwhile: no upper bound).
            let added = counted() - before;
            assert!(added >= Duration::from_millis(5), "{added:?} of {cpu:?}");
            // Outside a stretch, the span is counted too.
            let before = counted();
            std::thread::spawn(|| timed_share(Span::Encode, || spin(20))).join().unwrap();
            assert!(counted() - before >= Duration::from_millis(10));
        }
    }

    #[test]
    fn the_serial_stage_bounds_the_speed_up() {
        let mut r =
            report(&[], &[(Stage::Replay, 7_000), (Stage::Write, 2_000), (Stage::Sort, 1_000)]);
        for stage in [Stage::Replay, Stage::Write, Stage::Sort] {
            r.threads[stage as usize] = 1;
        }
        assert_eq!(r.serial(), Some((Stage::Write, Duration::from_secs(2))));
        let speed_ups: Vec<f64> = [1, 2, 4, 8, 32].map(|n| r.speed_up(n)).to_vec();
        assert_eq!(speed_ups, [1.0, 2.0, 4.0, 5.0, 5.0]);
        assert_eq!(Report::default().speed_up(8), 1.0);
    }

    #[test]
    fn the_bound_is_the_busiest_stage() {
        let wall = Duration::from_secs(10);
        // The writer never waited: it bounded the import.
        let r = report(&[(Span::WriterIdle, 500)], &[(Stage::Replay, 12_000)]);
        let bound = r.bound(wall, 2);
        assert_eq!(bound.stage, Some(Stage::Write));
        assert!((bound.busy - 0.95).abs() < 1e-9, "{bound:?}");
        // The writer mostly waited for games; the workers were busy.
        let r = report(&[(Span::WriterIdle, 7_000)], &[(Stage::Replay, 19_000)]);
        assert_eq!(r.bound(wall, 2).stage, Some(Stage::Replay));
        // The end's sync took most of the time.
        let r = report(&[(Span::WriterIdle, 2_000), (Span::Finish, 6_000)], &[]);
        assert_eq!(r.bound(wall, 2), Bound { stage: None, busy: 0.6 });
    }
}
