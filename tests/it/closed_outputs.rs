//! Every command with its standard output or error closed: a pipe whose
//! reader has gone (`| head`, `| true`, `2>&1 | head -1`), closed
//! descriptors (`>&- 2>&-`), a terminal that hung up under the progress
//! bar. None panics, each ends with the status it has with open outputs,
//! and what it writes besides (a database, a file) is complete.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::common;

use common::{arg, command, count, games_dir, import, open, scratch, twic, Scratch};

/// How the outputs of a run are closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outputs {
    /// Both open (read by the test).
    Open,
    /// Standard output a pipe whose read end is closed.
    StdoutGone,
    /// Standard error a pipe whose read end is closed.
    StderrGone,
    /// Both pipes whose read ends are closed.
    BothGone,
    /// Both descriptors closed before the command starts.
    BothClosed,
    /// Standard error a terminal that hung up (the import's progress bar
    /// draws there); standard output read.
    HungUpTerminal,
}

const CLOSED: [Outputs; 5] = [
    Outputs::StdoutGone,
    Outputs::StderrGone,
    Outputs::BothGone,
    Outputs::BothClosed,
    Outputs::HungUpTerminal,
];

/// A pipe whose read end is already closed: writes fail with `EPIPE`.
fn gone() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer.into()
}

/// The slave side of a pseudo-terminal whose master is already closed:
/// still a terminal, where writes fail (`EIO`).
fn hung_up_terminal() -> Stdio {
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut master, mut slave) = (0, 0);
    // Safety: openpty writes the two descriptors it opens into the two
    // integers; the name, termios and size pointers may be null.
    let done = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(done, 0, "openpty: {}", std::io::Error::last_os_error());
    // Safety: both descriptors were just opened and are owned here alone.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    drop(master);
    slave.into()
}

/// The exit status of `pgnindex ARGS…` run with `outputs`, and its
/// stderr when the test can read it.
fn run(args: &[String], outputs: Outputs) -> (i32, Option<String>) {
    let mut command = command();
    command.args(args).stdin(Stdio::null());
    let (stdout, stderr) = match outputs {
        Outputs::Open => (Stdio::piped(), Stdio::piped()),
        Outputs::StdoutGone => (gone(), Stdio::piped()),
        Outputs::StderrGone => (Stdio::piped(), gone()),
        Outputs::BothGone => (gone(), gone()),
        Outputs::BothClosed => {
            // Safety: close() is async-signal-safe.
            unsafe {
                command.pre_exec(|| {
                    libc::close(1);
                    libc::close(2);
                    Ok(())
                });
            }
            (Stdio::inherit(), Stdio::inherit())
        }
        Outputs::HungUpTerminal => (Stdio::piped(), hung_up_terminal()),
    };
    let out = command.stdout(stdout).stderr(stderr).output().unwrap();
    let code = out.status.code().unwrap_or_else(|| panic!("{args:?} {outputs:?}: {}", out.status));
    let readable = matches!(outputs, Outputs::Open | Outputs::StdoutGone);
    (code, readable.then(|| String::from_utf8_lossy(&out.stderr).into_owned()))
}

/// One command of the test, with what it leaves behind.
struct Case {
    /// The arguments; `{db}` stands for the database, `{out}` for an
    /// output file.
    args: &'static [&'static str],
    /// A copy of the sample database for each run (the command changes
    /// it), or a new path (`import`).
    db: Db,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Db {
    /// The sample database, shared (read only).
    Shared,
    /// A copy of the sample database for each run.
    Copy,
    /// A path where no database is yet.
    New,
}

/// What a run left: the database's games, positions, finished sources
/// and integrity, and the output file's length and digest.
fn left(db: &Path, out: &Path) -> (String, Option<(usize, u64)>) {
    let state = if db.exists() {
        let conn = open(db);
        format!(
            "{} games, {} positions, {} sources finished, {}",
            count(&conn, "SELECT count(*) FROM games"),
            count(&conn, "SELECT count(*) FROM positions"),
            count(&conn, "SELECT count(*) FROM sources WHERE finished_at IS NOT NULL"),
            common::integrity(db)
        )
    } else {
        "no database".to_string()
    };
    let file = std::fs::read(out).ok().map(|bytes| {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut hasher);
        (bytes.len(), hasher.finish())
    });
    (state, file)
}

/// A directory of inputs with a bad game and a warning among good games,
/// so that `check` fails and `import` prints more than its summary.
fn inputs(dir: &Scratch) -> PathBuf {
    let inputs = dir.join("inputs");
    std::fs::create_dir(&inputs).unwrap();
    std::fs::copy(twic(), inputs.join("twic.pgn")).unwrap();
    std::fs::write(
        inputs.join("bad.pgn"),
        "[White \"a\"]\n\n1. e4 e5 ) 2. Nf3 *\n\n[White \"b\"]\n\n1. e4 e5 2. Ke3 *\n",
    )
    .unwrap();
    inputs
}

#[test]
fn no_command_panics_or_changes_its_status_when_its_outputs_are_closed() {
    let dir = scratch();
    let inputs = inputs(&dir);
    let sample = dir.join("sample.db");
    import(&sample, &["--quiet", arg(&games_dir().join("otb"))]).success();
    let bad = inputs.join("bad.pgn");
    let cases = [
        Case { args: &["perft", "startpos", "4", "--divide"], db: Db::Shared },
        Case { args: &["fens", "--every-ply", "{inputs}"], db: Db::Shared },
        Case { args: &["check", "{inputs}"], db: Db::Shared },
        Case { args: &["check", "{bad}"], db: Db::Shared },
        Case { args: &["import", "--db", "{db}", "{inputs}"], db: Db::New },
        Case { args: &["find", "--db", "{db}", "--moves", "e4", "--limit", "0"], db: Db::Shared },
        Case { args: &["find", "--db", "{db}", "--moves", "e4 ?"], db: Db::Shared },
        Case { args: &["explore", "--db", "{db}", "--moves", "e4"], db: Db::Shared },
        Case { args: &["show", "--db", "{db}", "7"], db: Db::Shared },
        Case { args: &["show", "--db", "{db}", "100000"], db: Db::Shared },
        Case { args: &["export", "--db", "{db}"], db: Db::Shared },
        Case { args: &["export", "--db", "{db}", "--moves", "d4", "-o", "{out}"], db: Db::Shared },
        Case { args: &["info", "--db", "{db}"], db: Db::Shared },
        Case { args: &["sql", "--db", "{db}", "SELECT * FROM games"], db: Db::Shared },
        Case { args: &["delete", "--db", "{db}", "--moves", "e4"], db: Db::Copy },
        Case { args: &["vacuum", "--db", "{db}"], db: Db::Copy },
        Case { args: &["info", "--db", "{db}-missing"], db: Db::Shared },
    ];
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let mut expected = None;
        for (j, outputs) in std::iter::once(Outputs::Open).chain(CLOSED).enumerate() {
            let db = match case.db {
                Db::Shared => sample.clone(),
                Db::Copy => {
                    let copy = dir.join(format!("{i}-{j}.db"));
                    std::fs::copy(&sample, &copy).unwrap();
                    copy
                }
                Db::New => dir.join(format!("{i}-{j}.db")),
            };
            let out = dir.join(format!("{i}-{j}.pgn"));
            let args: Vec<String> = case
                .args
                .iter()
                .map(|a| {
                    a.replace("{db}", arg(&db))
                        .replace("{out}", arg(&out))
                        .replace("{inputs}", arg(&inputs))
                        .replace("{bad}", arg(&bad))
                })
                .collect();
            let (code, stderr) = run(&args, outputs);
            let after = (code, left(&db, &out));
            let what = format!("{:?} with {outputs:?}", case.args);
            if let Some(stderr) = &stderr {
                if stderr.contains("panicked") {
                    failures.push(format!("{what}: {stderr}"));
                }
            }
            match &expected {
                None => {
                    assert_ne!(code, 101, "{what}: {stderr:?}");
                    expected = Some(after);
                }
                Some(expected) if *expected != after => {
                    failures.push(format!("{what}: {after:?}, with open outputs {expected:?}"));
                }
                Some(_) => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
