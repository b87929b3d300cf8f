//! Finding the inputs: [`InputName`] (a path or standard input) and
//! [`expand_inputs`], which walks the directories given on the command
//! line for PGN files.

use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

use std::io::Read;

use super::compression::{detect_compression, Compression};
use super::{check_not_foreign, check_text, open_error, SourceError, TEXT_WINDOW};

/// File name endings (compared in ASCII lower case) that mark a PGN file when
/// a directory is expanded.
const PGN_SUFFIXES: [&[u8]; 5] = [b".pgn", b".pgn.gz", b".pgn.zst", b".pgn.bz2", b".pgn.xz"];

/// [`PGN_SUFFIXES`] as messages list them.
pub(super) const PGN_SUFFIXES_TEXT: &str = ".pgn, .pgn.gz, .pgn.zst, .pgn.bz2, .pgn.xz";

/// Where games come from: a file path or standard input (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputName {
    /// Standard input, written `-` on the command line.
    Stdin,
    /// A file (or FIFO) path, as given or as found below a directory.
    Path(PathBuf),
}

impl fmt::Display for InputName {
    /// Writes `-` for standard input, otherwise the path as given (non-UTF-8
    /// parts replaced, for display only).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputName::Stdin => f.write_str("-"),
            InputName::Path(path) => write!(f, "{}", path.display()),
        }
    }
}

/// What [`expand_inputs`] found.
#[derive(Debug, Default)]
pub struct Inputs {
    /// The inputs to read, in order.
    pub names: Vec<InputName>,
    /// Files found below a directory whose first bytes show a format that
    /// is not PGN (each a [`SourceError::NotPgn`]): left out, for the
    /// caller to mention.
    pub skipped: Vec<SourceError>,
}

/// Expands command-line arguments into inputs.
///
/// - `-` is standard input;
/// - a directory means every file below it, recursively, whose name ends in
///   `.pgn`, `.pgn.gz`, `.pgn.zst`, `.pgn.bz2` or `.pgn.xz` in any letter
///   case, sorted
///   by path (symbolic links to files are followed, links to directories are
///   not, so that a link cycle cannot make the walk endless);
/// - anything else that can be read as a stream of bytes (a regular file,
///   whatever its name, a FIFO, a character device) is taken as is.
///
/// A regular file's first bytes are read: one that is not PGN (an SQLite
/// database, an executable, … see [`Foreign`](super::Foreign)) is an error
/// when the command line names it, and is left out, in
/// [`Inputs::skipped`], when it was found below a directory. (Standard
/// input and FIFOs are checked when opened: [`Source::open`](super::Source::open).)
///
/// The order of the arguments is kept. A directory without PGN files
/// contributes nothing, but arguments that all expand to nothing are an
/// error: a command given nothing to read says so.
///
/// # Errors
///
/// [`SourceError::NoPgnFiles`] when no argument gives an input (every one
/// a directory without PGN files); [`SourceError::NotPgn`] for a file
/// named on the command line that is not PGN, or when the files left out
/// are all there is; [`SourceError::Read`] for a named file whose first
/// bytes cannot be read;
/// [`SourceError::Open`] for a path that does not exist or a regular file
/// that cannot be opened (including a broken link with a PGN name inside a
/// directory), [`SourceError::ReadDir`] for a directory that cannot be
/// listed, [`SourceError::NotInput`] for a socket and the like.
pub fn expand_inputs(args: &[OsString]) -> Result<Inputs, SourceError> {
    let mut inputs = Vec::with_capacity(args.len());
    let mut skipped = Vec::new();
    for arg in args {
        if arg == "-" {
            inputs.push(InputName::Stdin);
            continue;
        }
        let path = PathBuf::from(arg);
        let meta = fs::metadata(&path).map_err(|error| open_error(&path, error))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk_dir(&path, &mut found)?;
            found.sort();
            for path in found {
                // A file that cannot be opened here says so when it is read.
                let opened = File::open(&path);
                let name = InputName::Path(path);
                match opened {
                    Ok(mut file) => match check_input_head(&name, &mut file) {
                        Err(e @ (SourceError::NotPgn { .. } | SourceError::Binary { .. })) => {
                            skipped.push(e);
                        }
                        _ => inputs.push(name),
                    },
                    Err(_) => inputs.push(name),
                }
            }
        } else if meta.is_file() {
            // Opened, its first bytes read, and closed at once, so that a
            // permission problem or a file that is no PGN shows up before
            // any work starts.
            let mut file = File::open(&path).map_err(|error| open_error(&path, error))?;
            let name = InputName::Path(path);
            check_input_head(&name, &mut file)?;
            inputs.push(name);
        } else if is_special_readable(&meta.file_type()) {
            // Not opened here: opening a FIFO blocks until a writer appears,
            // and closing it again would break the writer's pipe.
            inputs.push(InputName::Path(path));
        } else {
            return Err(SourceError::NotInput { path });
        }
    }
    if inputs.is_empty() {
        if !skipped.is_empty() {
            return Err(skipped.swap_remove(0));
        }
        // Only directories give nothing: files and `-` are inputs.
        return Err(SourceError::NoPgnFiles { paths: args.iter().map(PathBuf::from).collect() });
    }
    Ok(Inputs { names: inputs, skipped })
}

/// Reads the first bytes of `file`, input `name`, to refuse it early: a
/// [`Foreign`](super::Foreign) format ([`SourceError::NotPgn`]) or, when
/// not compressed, binary data ([`SourceError::Binary`]).
fn check_input_head(name: &InputName, file: &mut File) -> Result<(), SourceError> {
    let mut head = Vec::with_capacity(TEXT_WINDOW);
    file.take(TEXT_WINDOW as u64).read_to_end(&mut head).map_err(|error| SourceError::Read {
        name: name.clone(),
        offset: 0,
        compression: Compression::None,
        error,
    })?;
    check_not_foreign(name, &head)?;
    if detect_compression(&head) == Compression::None {
        check_text(name, &head)?;
    }
    Ok(())
}

/// Collects the PGN files below `dir` into `found`, unsorted.
fn walk_dir(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), SourceError> {
    let read_dir_error = |error| SourceError::ReadDir { path: dir.to_owned(), error };
    for entry in fs::read_dir(dir).map_err(read_dir_error)? {
        let entry = entry.map_err(read_dir_error)?;
        let path = entry.path();
        let file_type = entry.file_type().map_err(read_dir_error)?;
        if file_type.is_dir() {
            walk_dir(&path, found)?;
        } else if has_pgn_suffix(&path) {
            if file_type.is_symlink() {
                // A link to a directory is skipped; a broken link is an error,
                // since its name says it was meant to be read.
                let meta = fs::metadata(&path).map_err(|error| open_error(&path, error))?;
                if meta.is_dir() {
                    continue;
                }
            }
            found.push(path);
        }
    }
    Ok(())
}

/// Whether the file name of `path` ends in one of [`PGN_SUFFIXES`], ignoring
/// ASCII case.
fn has_pgn_suffix(path: &Path) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    let name = name.as_encoded_bytes();
    PGN_SUFFIXES.iter().any(|suffix| {
        name.len() >= suffix.len() && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    })
}

/// Whether a file that is neither regular nor a directory can still be read
/// as a stream: a FIFO (as made by a shell's `<(…)`) or a character device.
#[cfg(unix)]
fn is_special_readable(file_type: &fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    file_type.is_fifo() || file_type.is_char_device()
}

/// Whether a file that is neither regular nor a directory can still be read
/// as a stream: never, outside Unix.
#[cfg(not(unix))]
fn is_special_readable(_file_type: &fs::FileType) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use std::io;

    use super::*;
    use crate::pgn::source::testing::write_file;

    #[test]
    fn input_name_display() {
        assert_eq!(InputName::Stdin.to_string(), "-");
        assert_eq!(InputName::Path("dir/games.pgn".into()).to_string(), "dir/games.pgn");
    }

    #[test]
    fn expand_inputs_walks_directories_for_pgn_files_only() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        for name in [
            "b.pgn",
            "A.PGN",
            "notes.txt",
            "archive.gz",
            "e.pgn.bz2",
            "f.pgn.xz",
            "sub/c.pgn.gz",
            "sub/x.pgn.txt",
            "sub/deeper/d.Pgn.Zst",
            "sub/deeper/pgn",
            "z/y.pgn",
        ] {
            write_file(&root.join(name), b"");
        }
        fs::create_dir(root.join("empty")).unwrap();
        // A directory whose name looks like a PGN file is still walked.
        write_file(&root.join("dir.pgn/inner.pgn"), b"");
        let notes = root.join("notes.txt");
        let args = [root.clone().into_os_string(), "-".into(), notes.clone().into_os_string()];
        let inputs = expand_inputs(&args).unwrap().names;
        let path = |p: &str| InputName::Path(root.join(p));
        assert_eq!(
            inputs,
            [
                path("A.PGN"),
                path("b.pgn"),
                path("dir.pgn/inner.pgn"),
                path("e.pgn.bz2"),
                path("f.pgn.xz"),
                path("sub/c.pgn.gz"),
                path("sub/deeper/d.Pgn.Zst"),
                path("z/y.pgn"),
                InputName::Stdin,
                InputName::Path(notes),
            ]
        );
    }

    #[test]
    fn expand_inputs_missing_path_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("games.pgn");
        let err = expand_inputs(&[missing.clone().into_os_string()]).unwrap_err();
        assert!(matches!(err, SourceError::Open { .. }));
        assert_eq!(err.io_error().unwrap().kind(), io::ErrorKind::NotFound);
        let message = err.to_string();
        let prefix = format!("cannot open {}: ", missing.display());
        assert!(message.starts_with(&prefix), "{message}");
    }

    #[test]
    fn directories_without_pgn_files_are_an_error_only_when_nothing_is_left() {
        let tmp = tempfile::tempdir().unwrap();
        let empty = tmp.path().join("empty");
        fs::create_dir(&empty).unwrap();
        let err = expand_inputs(&[empty.clone().into_os_string()]).unwrap_err();
        assert!(
            matches!(&err, SourceError::NoPgnFiles { paths } if paths == std::slice::from_ref(&empty))
        );
        let inputs = expand_inputs(&[empty.into_os_string(), "-".into()]).unwrap().names;
        assert_eq!(inputs, [InputName::Stdin]);
    }

    #[cfg(unix)]
    #[test]
    fn expand_inputs_rejects_a_socket() {
        let tmp = tempfile::tempdir().unwrap();
        let socket = tmp.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let err = expand_inputs(&[socket.clone().into_os_string()]).unwrap_err();
        assert_eq!(err.to_string(), format!("{}: not a PGN file or directory", socket.display()));
    }

    #[cfg(unix)]
    #[test]
    fn expand_inputs_reports_a_broken_pgn_link_and_skips_directory_links() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        write_file(&root.join("real/a.pgn"), b"");
        std::os::unix::fs::symlink(root.join("real"), root.join("loop.pgn")).unwrap();
        std::os::unix::fs::symlink(root.join("real/a.pgn"), root.join("link.pgn")).unwrap();
        let inputs = expand_inputs(&[root.clone().into_os_string()]).unwrap().names;
        assert_eq!(
            inputs,
            [InputName::Path(root.join("link.pgn")), InputName::Path(root.join("real/a.pgn"))]
        );
        std::os::unix::fs::symlink(root.join("gone"), root.join("broken.pgn")).unwrap();
        let err = expand_inputs(&[root.clone().into_os_string()]).unwrap_err();
        assert!(err.to_string().contains("broken.pgn"), "{err}");
    }
}
