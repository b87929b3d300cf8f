//! Progress of the long commands: drawn on a terminal (stderr a
//! pseudo-terminal here), never on a pipe or with `--quiet`.

use std::fs::File;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::Stdio;

use crate::common;

use common::{arg, command, import, run, scratch};

/// A pseudo-terminal: (master, slave).
fn pty() -> (File, OwnedFd) {
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two new descriptors, owned from here on.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty");
    // SAFETY: both are open descriptors that nothing else owns.
    unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}

/// What `pgnindex ARGS` writes on a terminal as its stderr, and its exit.
fn on_terminal(args: &[&str]) -> (String, i32) {
    let (mut master, slave) = pty();
    let mut child =
        command().args(args).stdout(Stdio::null()).stderr(Stdio::from(slave)).spawn().unwrap();
    let status = child.wait().unwrap();
    // The child has exited and our end of the slave is gone: the master
    // reads what was written, then fails (EIO) at its end.
    let mut text = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = master.read(&mut buf) {
        if n == 0 {
            break;
        }
        text.extend_from_slice(&buf[..n]);
    }
    (String::from_utf8_lossy(&text).into_owned(), status.code().unwrap())
}

#[test]
fn long_commands_show_progress_on_a_terminal_only() {
    let dir = scratch();
    let db = dir.join("p.db");
    import(&db, &["--quiet", arg(&common::twic())]).success();
    let db = arg(&db).to_string();
    let pgn = arg(&dir.join("out.pgn")).to_string();
    let lake = arg(&dir.join("lake")).to_string();
    let cases: [(&[&str], &str); 4] = [
        (&["export", "--db", &db, "-o", &pgn], "exporting"),
        (&["export", "--db", &db, "--format", "parquet", "-o", &lake], "exporting"),
        (&["delete", "--db", &db, "--player", "aronian"], "deleting"),
        (&["vacuum", "--db", &db], "vacuuming"),
    ];
    for (args, what) in cases {
        let (text, code) = on_terminal(args);
        assert_eq!(code, 0, "{args:?}: {text}");
        assert!(text.contains(what), "{args:?} drew no progress: {text:?}");
        // Again, quiet, and on a pipe: the summary line alone.
        let _ = std::fs::remove_file(&pgn);
        let _ = std::fs::remove_dir_all(&lake);
        let quiet = [args, &["--quiet"]].concat();
        let (text, code) = on_terminal(&quiet);
        assert_eq!(code, 0, "{quiet:?}: {text}");
        assert!(!text.contains(what), "{quiet:?} drew progress: {text:?}");
        assert_eq!(text.lines().count(), 1, "{quiet:?}: {text:?}");
        let _ = std::fs::remove_file(&pgn);
        let _ = std::fs::remove_dir_all(&lake);
        let piped = run(args);
        assert_eq!(piped.code, 0, "{args:?}: {}", piped.stderr);
        assert!(!piped.stderr.contains(what), "{args:?} drew progress on a pipe: {}", piped.stderr);
        assert_eq!(piped.stderr.lines().count(), 1, "{args:?}: {}", piped.stderr);
        let _ = std::fs::remove_file(&pgn);
        let _ = std::fs::remove_dir_all(&lake);
    }
}
