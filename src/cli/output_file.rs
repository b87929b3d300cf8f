//! `-o FILE`: a file that appears under its name only once complete.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// An output file written under a temporary name beside `FILE`
/// (`.FILE.PID.partial`) and renamed to `FILE` by [`finish`](Self::finish):
/// a command that fails or is interrupted leaves `FILE` as it was, and
/// its partial file is removed (a kill leaves it, under its temporary
/// name). A path that exists and is not a regular file (a FIFO,
/// `/dev/stdout`, a symbolic link) is written in place.
pub struct OutputFile {
    out: BufWriter<File>,
    path: PathBuf,
    /// The temporary name, while there is one.
    partial: Option<PathBuf>,
}

impl OutputFile {
    /// Creates the temporary file for `path` (or opens `path` itself, see
    /// [`OutputFile`]).
    ///
    /// # Errors
    /// When the file cannot be created.
    pub fn create(path: &Path) -> anyhow::Result<OutputFile> {
        let cannot = || format!("{}: cannot create the output file", path.display());
        let in_place = std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file());
        let (file, partial) = if in_place {
            (File::create(path).with_context(cannot)?, None)
        } else {
            let name = path.file_name().with_context(cannot)?;
            let mut partial_name = std::ffi::OsString::from(".");
            partial_name.push(name);
            partial_name.push(format!(".{}.partial", std::process::id()));
            let partial = path.with_file_name(partial_name);
            let file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&partial)
                .with_context(cannot)?;
            (file, Some(partial))
        };
        let out = BufWriter::with_capacity(1 << 16, file);
        Ok(OutputFile { out, path: path.to_path_buf(), partial })
    }

    /// Flushes the file and gives it its name.
    ///
    /// # Errors
    /// When the file cannot be written or renamed.
    pub fn finish(mut self) -> anyhow::Result<()> {
        self.out.flush().with_context(|| format!("writing {}", self.path.display()))?;
        if let Some(partial) = self.partial.take() {
            let renamed = std::fs::rename(&partial, &self.path);
            if let Err(e) = renamed {
                let _ = std::fs::remove_file(&partial);
                return Err(e).with_context(|| format!("writing {}", self.path.display()));
            }
        }
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Drop for OutputFile {
    /// Not finished: the partial file goes.
    fn drop(&mut self) {
        if let Some(partial) = &self.partial {
            let _ = std::fs::remove_file(partial);
        }
    }
}
