//! `pgnindex import`: PGN inputs into the SQLite database, with a progress
//! bar on a terminal and a one-line summary.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use pgnindex::columnar::export::MAX_SHARD;
use pgnindex::columnar::shard::ShardOptions;
use pgnindex::columnar::sink::{Limits, FILE_BYTES};
use pgnindex::db::{self, Sharing};
use pgnindex::import::{self, ImportError, ImportOptions, Observer};
use pgnindex::notation::moves::Notation;
use pgnindex::pgn::source::{Foreign, InputName, SourceError};
use pgnindex::store::encode::rows::RowOptions;
use pgnindex::store::writer::{Problem, ProblemKind, WriterOptions, BATCH_GAMES_WITHOUT_POSITIONS};

use super::exit::{Exit, UsageError};
use super::words::counted;

/// Bad games printed on stderr; the rest are only in `import_errors`.
const SHOWN_PROBLEMS: usize = 5;

/// Arguments of `import`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex import --db sample.db fixtures/pgn/games
  pgnindex import --db games.db GAMES.pgn.zst MORE_GAMES/
  pgnindex import --parquet sample-lake fixtures/pgn/games
  pgnindex import --parquet lake --shard 1 LICHESS_2024_01.pgn.zst

The first and third run from the repository root, on its bundled sample;
in the others, the capitals stand for your own files.

--parquet DIR writes no database: the tables games, plies, tags, positions
and sources go into Parquet files, shard N (--shard, default 0) of the lake
DIR (created if missing), a folder per table (DIR/games/sN-00001.parquet,
…), the files an import into a new database followed by
`pgnindex export --format parquet -o DIR --shard N` writes. See
docs/scale.md.")]
pub struct ImportArgs {
    /// PGN inputs: files (.pgn, .pgn.gz, .pgn.zst, .pgn.bz2, .pgn.xz), directories
    /// (every PGN file below), or `-` for standard input.
    #[arg(required = true)]
    inputs: Vec<std::ffi::OsString>,
    /// The database (default: $PGNINDEX_DB, else pgnindex.db); created
    /// with the schema if missing.
    #[arg(long)]
    db: Option<PathBuf>,
    /// Write no database: Parquet files of the games, plies, tags,
    /// positions and sources, a shard of the lake DIR (created if missing;
    /// a folder per table), as `export --format parquet` writes them.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["db", "exclusive", "shared", "with_fens"])]
    parquet: Option<PathBuf>,
    /// With --parquet: write shard N of the lake (files sN-00001.parquet,
    /// …) and add N << 32 to every game and source id, so that different
    /// shards share no id (0 to 2147483647; default 0).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_SHARD)))]
    shard: Option<u32>,
    /// With --parquet: close a file once it holds about SIZE bytes (suffix
    /// K, M or G for 2^10, 2^20, 2^30; at least 64K); default 1G.
    #[arg(long, value_name = "SIZE", value_parser = super::export::parse_file_size)]
    file_size: Option<u64>,
    /// With --parquet: position rows sorted in memory per run (tests use
    /// small runs).
    #[arg(long, hide = true)]
    sort_run_rows: Option<usize>,
    /// With --parquet: dedupe keys held in memory before they go to a run
    /// file (tests use small runs).
    #[arg(long, hide = true)]
    dedupe_run_keys: Option<usize>,
    /// Worker threads (0: one per core). The database is the same for any
    /// number.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Store headers and moves only, no position index.
    #[arg(long)]
    no_positions: bool,
    /// Index positions up to this ply only (0 = the start position).
    #[arg(long, value_name = "N")]
    max_ply: Option<u32>,
    /// Also store the FEN of every indexed position.
    #[arg(long)]
    with_fens: bool,
    /// Store games even when the same game is already stored.
    #[arg(long)]
    keep_duplicates: bool,
    /// Import files whose content was imported before.
    #[arg(long)]
    force: bool,
    /// Stop before the first bad game, storing nothing of it (exit status
    /// 1); the same command stops there again until the input is fixed.
    #[arg(long)]
    strict: bool,
    /// Print nothing but the summary line (bad games are still in the
    /// import_errors table; errors that stop the import are printed).
    #[arg(long)]
    quiet: bool,
    /// Read moves with this language's piece letters only (english, french,
    /// german, dutch, spanish, italian), or as English descriptive notation
    /// (descriptive); default: detected per game.
    #[arg(long)]
    lang: Option<Notation>,
    /// Stop reading an input once it has given this many bytes
    /// (decompressed; suffixes K, M, G, T: powers of 1024): a guard against
    /// decompression bombs. The games before the limit are kept. Default: no
    /// limit (streams of any size are read in bounded memory).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    max_input_size: Option<u64>,
    /// Take the database for this import alone: queries started meanwhile
    /// wait for the import to end (up to 30 s, then fail as "locked"), and
    /// every page is written once (rollback journal) instead of twice
    /// (write-ahead log), so a large import runs faster. The default for a
    /// database the import creates; an existing database is shared unless
    /// this is given.
    #[arg(long, conflicts_with = "shared")]
    exclusive: bool,
    /// Let queries read the committed games while the import runs
    /// (write-ahead log), also when the import creates the database. The
    /// default for an existing database.
    #[arg(long)]
    shared: bool,
    /// After the summary, say where the time went: each stage's threads
    /// and CPU seconds, its waits, and the stage that bounded the import.
    #[arg(long)]
    timings: bool,
    /// Commit after this many games (tests use small batches).
    #[arg(long, hide = true)]
    batch_games: Option<usize>,
    /// Let the database grow to this many pages only (tests a full disk).
    #[arg(long, hide = true)]
    max_db_pages: Option<u64>,
}

/// The progress bar (hidden when not wanted).
struct Progress {
    bar: ProgressBar,
    quiet: bool,
    /// Bytes of the finished sources.
    done: u64,
    size: Option<u64>,
}

impl Observer for Progress {
    fn inputs(&mut self, total: u64) {
        self.bar.set_length(total);
    }

    fn source(&mut self, name: &InputName, size: Option<u64>) {
        if let Some(previous) = self.size.take() {
            self.done += previous;
        }
        self.size = size;
        self.bar.set_position(self.done);
        self.bar.set_prefix(name.to_string());
    }

    fn progress(&mut self, bytes: u64, games: u64) {
        // Compressed inputs are counted by their size on disk when done.
        let within = self.size.map_or(0, |s| bytes.min(s));
        self.bar.set_position(self.done + within);
        let secs = self.bar.elapsed().as_secs_f64().max(1e-3);
        self.bar.set_message(format!("{games} games, {:.0} games/s", games as f64 / secs));
    }

    fn already_imported(&mut self, name: &InputName) {
        if self.quiet {
            return;
        }
        self.bar.suspend(|| {
            say!("pgnindex: {name}: already imported (same content); --force imports it again")
        });
    }

    fn not_pgn(&mut self, error: &SourceError) {
        if !self.quiet {
            self.bar.suspend(|| say!("pgnindex: warning: {error}; skipped"));
        }
    }

    fn unreadable(&mut self, error: &SourceError) {
        self.bar.suspend(|| say!("pgnindex: error: {error}"));
    }

    fn empty(&mut self, name: &InputName) {
        if !self.quiet {
            self.bar.suspend(|| say!("pgnindex: warning: {name}: empty, no game in it"));
        }
    }
}

/// How the import shares the database: as asked (shared when readers hold
/// it in WAL mode, which they would otherwise have to leave), else alone
/// when it creates the database (no query can be reading a file that does not
/// exist yet, and each page is then written once), shared otherwise.
fn sharing(args: &ImportArgs, path: &Path) -> Sharing {
    if args.exclusive && db::held_in_wal(path) {
        say!(
            "pgnindex: note: {} is open in WAL mode elsewhere (a `serve`, a query): the import \
             shares it with them instead of taking it alone",
            path.display()
        );
        Sharing::Readers
    } else if args.exclusive {
        Sharing::Exclusive
    } else if args.shared || std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
        Sharing::Readers
    } else {
        Sharing::Exclusive
    }
}

/// Runs `import`: 0 when every input was read (bad games or not), 1 when
/// `--strict` stopped at a bad game, 2 when an input could not be read.
pub fn run(args: &ImportArgs) -> anyhow::Result<Exit> {
    if args.parquet.is_some() && (args.batch_games.is_some() || args.max_db_pages.is_some()) {
        return Err(UsageError("--batch-games and --max-db-pages are for a database").into());
    }
    let for_parquet = [args.shard.is_some(), args.file_size.is_some()];
    let for_parquet = for_parquet
        .into_iter()
        .chain([args.sort_run_rows.is_some(), args.dedupe_run_keys.is_some()]);
    if args.parquet.is_none() && for_parquet.into_iter().any(|set| set) {
        return Err(UsageError("--shard and --file-size are for --parquet DIR").into());
    }
    let path = db::default_path(args.db.as_deref());
    let creates = args.parquet.is_none() && !path.exists();
    let pool = std::sync::Arc::new(super::games::thread_pool_below_writer(args.threads)?);
    if args.timings {
        pgnindex::timings::enable();
    }
    let options = ImportOptions {
        rows: RowOptions {
            positions: !args.no_positions,
            max_ply: args.max_ply.unwrap_or(u32::MAX),
            fens: args.with_fens,
        },
        writer: WriterOptions {
            keep_duplicates: args.keep_duplicates,
            strict: args.strict,
            batch_games: args
                .batch_games
                .unwrap_or(if args.no_positions {
                    BATCH_GAMES_WITHOUT_POSITIONS
                } else {
                    WriterOptions::default().batch_games
                })
                .max(1),
            max_pages: args.max_db_pages,
            sharing: sharing(args, &path),
            ..WriterOptions::default()
        },
        force: args.force,
        notation: args.lang,
        max_input: args.max_input_size,
        interrupt: Some(super::interrupt::flag("pgnindex: interrupted again: stopped at once; the batches committed are kept, and the same command resumes")?),
    };
    let show_bar = !args.quiet && std::io::stderr().is_terminal();
    let bar = if show_bar {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:.bold} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} {msg} ETA {eta}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    } else {
        ProgressBar::hidden()
    };
    let shown = Arc::new(Mutex::new(0usize));
    // Warnings are not printed one by one: the first is shown, the summary
    // counts them.
    let warnings = Arc::new(AtomicU64::new(0));
    let problems = {
        let (bar, shown, quiet) = (bar.clone(), Arc::clone(&shown), args.quiet);
        let warnings = Arc::clone(&warnings);
        Box::new(move |problem: Problem| {
            if problem.kind == ProblemKind::Warning {
                if warnings.fetch_add(1, Ordering::Relaxed) == 0 && !quiet {
                    bar.suspend(|| {
                        say!(
                            "pgnindex: warning: {} (each warning is in the import_errors table)",
                            problem.text
                        );
                    });
                }
                return;
            }
            if quiet {
                return;
            }
            let mut n = shown.lock().unwrap_or_else(|e| e.into_inner());
            *n += 1;
            if *n <= SHOWN_PROBLEMS {
                bar.suspend(|| say!("pgnindex: bad game: {}", problem.text));
            } else if *n == SHOWN_PROBLEMS + 1 {
                bar.suspend(|| say!("pgnindex: more bad games: see the import_errors table"));
            }
        })
    };
    let mut progress = Progress { bar: bar.clone(), quiet: args.quiet, done: 0, size: None };
    let mut written = None;
    let summary = match &args.parquet {
        None => import::run(&path, &args.inputs, &pool, options, &mut progress, problems),
        Some(dir) => {
            let defaults = ShardOptions::default();
            let parquet = ShardOptions {
                limits: Limits::with_file_bytes(args.file_size.unwrap_or(FILE_BYTES)),
                shard: args.shard.unwrap_or(0),
                run_rows: args.sort_run_rows.unwrap_or(defaults.run_rows),
                run_keys: args.dedupe_run_keys.unwrap_or(defaults.run_keys),
                ..defaults
            };
            let run = import::run_parquet(
                dir,
                &args.inputs,
                &pool,
                options,
                parquet,
                &mut progress,
                problems,
            );
            run.map(|(summary, stats)| {
                written = Some((dir, stats));
                summary
            })
        }
    };
    bar.finish_and_clear();
    let summary = summary.map_err(|e| match e {
        // A database given where the inputs go: `--db` forgotten.
        ImportError::Inputs(SourceError::NotPgn { name, format: Foreign::Sqlite }) => {
            anyhow::anyhow!("{name} is a SQLite database, not PGN: did you mean --db {name}?")
        }
        e => e.into(),
    })?;
    let t = summary.totals;
    if creates && t.games + t.errors + t.duplicates == 0 {
        // A first import that stored nothing leaves no empty database.
        db::remove_created(&path);
    }
    if summary.interrupted {
        match &args.parquet {
            None => say!(
                "pgnindex: interrupted: {} stored; run the same command again to resume",
                counted(t.games, "game")
            ),
            Some(dir) => say!(
                "pgnindex: interrupted: nothing written to {}; run the same command again to \
                 start over",
                dir.display()
            ),
        }
        return Ok(Exit::Interrupted);
    }
    let secs = summary.seconds.max(1e-9);
    let warnings = warnings.load(Ordering::Relaxed);
    let warnings =
        if warnings > 0 { format!(", {}", counted(warnings, "warning")) } else { String::new() };
    let mut line = format!(
        "{}: {} imported, {}, {}{warnings}, {} in {:.1} s ({} games/s, {:.1} MB/s)",
        counted(summary.files, "file"),
        counted(t.games, "game"),
        counted(t.duplicates, "duplicate"),
        counted(t.errors, "error"),
        counted(t.positions, "position"),
        summary.seconds,
        // Games read: a re-import of stored games is fast, not idle.
        super::words::thousands(((t.games + t.duplicates) as f64 / secs).round() as u64),
        summary.bytes as f64 / secs / 1e6,
    );
    if summary.not_pgn > 0 {
        line += &format!("; {} skipped (not PGN)", counted(summary.not_pgn, "file"));
    }
    if summary.already_imported > 0 {
        line += &format!("; {} already imported", summary.already_imported);
    }
    if t.resumed > 0 {
        line += &format!("; {} already stored by an earlier run", counted(t.resumed, "game"));
    }
    if summary.stopped {
        line += "; stopped at the first bad game (--strict)";
    }
    say!("{line}");
    if args.timings {
        let wall = std::time::Duration::from_secs_f64(summary.seconds);
        super::timings::print(&pgnindex::timings::Report::now(), wall, pool.current_num_threads());
    }
    if let Some((dir, stats)) = written {
        say!("pgnindex: {} written to {}", super::export::summary(&stats), dir.display());
    }
    Ok(if summary.unreadable > 0 {
        Exit::Failure
    } else if summary.stopped {
        Exit::Invalid
    } else {
        Exit::Success
    })
}

/// Parses a size: digits with an optional K, M, G or T suffix (powers of
/// 1024, case-insensitive, an optional trailing `B` or `iB`).
fn parse_size(text: &str) -> Result<u64, String> {
    let upper = text.trim().to_ascii_uppercase();
    let bare = upper.strip_suffix("IB").or_else(|| upper.strip_suffix('B')).unwrap_or(&upper);
    let (digits, shift) = match bare.as_bytes().last() {
        Some(b'K') => (&bare[..bare.len() - 1], 10),
        Some(b'M') => (&bare[..bare.len() - 1], 20),
        Some(b'G') => (&bare[..bare.len() - 1], 30),
        Some(b'T') => (&bare[..bare.len() - 1], 40),
        _ => (bare, 0),
    };
    let invalid = || format!("'{text}' is not a size (examples: 500M, 20G, 1048576)");
    let number: u64 = digits.parse().map_err(|_| invalid())?;
    number.checked_mul(1u64 << shift).ok_or_else(invalid)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("500M"), Ok(500 << 20));
        assert_eq!(parse_size("20g"), Ok(20 << 30));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("3KB"), Ok(3 << 10));
        assert_eq!(parse_size("1T"), Ok(1 << 40));
        for bad in ["", "M", "1.5G", "-3", "12Q", "99999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
