//! The layout of a lake: under its root, one folder per table
//! ([`TABLES`]: `games/`, `plies/`, `tags/`, `positions/`, `sources/`),
//! each holding every shard's files of that table, named
//! `sN-00001.parquet`, `sN-00002.parquet`, … for shard N. An engine then
//! reads a table across shards by its folder (Spark's
//! `spark.read.parquet('lake/games')`, DuckDB's
//! `read_parquet('lake/games/*.parquet')`), and never one table under
//! another's schema.
//!
//! A [`ShardDir`] writes one shard: its files go into a working directory
//! of the shard's own inside the root (`.pgnindex-work-sN`, hidden from
//! engines that read a folder, and held by one run at a time), and are
//! moved into the table folders once every table is complete
//! ([`ShardDir::publish`]); a run that stops before removes them.

use std::path::{Path, PathBuf};

use super::sink::TableStats;
use super::ColumnarError;

/// The tables of a lake, each a folder of the root, in the order written.
pub const TABLES: [&str; 5] = ["games", "plies", "tags", "positions", "sources"];

/// The tables whose files lay directly in the output directory before
/// each table had a folder (`games-00001.parquet`, …).
const FLAT_TABLES: [&str; 4] = ["games", "plies", "tags", "positions"];

/// The working directory of shard `shard`, inside the root.
pub fn work_dir_name(shard: u32) -> String {
    format!(".pgnindex-work-s{shard}")
}

/// The prefix of shard `shard`'s file names: `s1` for
/// `s1-00001.parquet`.
pub fn file_prefix(shard: u32) -> String {
    format!("s{shard}")
}

/// One shard being written into a lake; see the module's documentation.
#[derive(Debug)]
pub struct ShardDir {
    root: PathBuf,
    shard: u32,
    work: PathBuf,
    published: bool,
}

impl ShardDir {
    /// Makes `root` ready for shard `shard`: created when missing (with
    /// its parents), and its working directory created.
    ///
    /// # Errors
    /// [`ColumnarError::FlatLayout`] when `root` holds a table's files
    /// directly; [`ColumnarError::ShardExists`] when a table folder holds
    /// files of this shard already; [`ColumnarError::ShardBusy`] when the
    /// shard's working directory exists; [`ColumnarError::Io`] when `root`
    /// is not a directory or cannot be created or read.
    pub fn create(root: &Path, shard: u32) -> Result<ShardDir, ColumnarError> {
        std::fs::create_dir_all(root).map_err(|e| ColumnarError::io(root, e))?;
        let entries = std::fs::read_dir(root).map_err(|e| ColumnarError::io(root, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| ColumnarError::io(root, e))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let flat = FLAT_TABLES.iter().any(|table| {
                name.strip_prefix(table).is_some_and(|rest| {
                    rest.starts_with('-')
                        && (rest.ends_with(".parquet") || rest.ends_with(".parquet.partial"))
                })
            });
            if flat {
                return Err(ColumnarError::FlatLayout(entry.path()));
            }
        }
        let prefix = format!("{}-", file_prefix(shard));
        for table in TABLES {
            let dir = root.join(table);
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(ColumnarError::io(&dir, e)),
            };
            for entry in entries {
                let entry = entry.map_err(|e| ColumnarError::io(&dir, e))?;
                if entry.file_name().to_string_lossy().starts_with(&prefix) {
                    return Err(ColumnarError::ShardExists { file: entry.path(), shard });
                }
            }
        }
        let work = root.join(work_dir_name(shard));
        match std::fs::create_dir(&work) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(ColumnarError::ShardBusy { work, shard })
            }
            Err(e) => return Err(ColumnarError::io(&work, e)),
        }
        let dir = ShardDir { root: root.to_path_buf(), shard, work, published: false };
        for table in TABLES {
            let staging = dir.staging(table);
            std::fs::create_dir(&staging).map_err(|e| ColumnarError::io(&staging, e))?;
        }
        Ok(dir)
    }

    /// The shard.
    pub fn shard(&self) -> u32 {
        self.shard
    }

    /// The prefix of the shard's file names ([`file_prefix`]).
    pub fn prefix(&self) -> String {
        file_prefix(self.shard)
    }

    /// Where the files of `table` are written until published.
    pub fn staging(&self, table: &str) -> PathBuf {
        self.work.join(table)
    }

    /// A directory for the run's own files (sorted runs), removed with
    /// the working directory; created by whoever writes there first.
    pub fn scratch(&self) -> PathBuf {
        self.work.join("runs")
    }

    /// Moves the files of `stats` into their table folders (created when
    /// missing), updates their paths, and removes the working directory.
    ///
    /// # Errors
    /// [`ColumnarError::Io`] when a folder cannot be created or a file
    /// moved; the files moved before are removed again.
    pub fn publish(mut self, stats: &mut [TableStats]) -> Result<(), ColumnarError> {
        let mut moved: Vec<PathBuf> = Vec::new();
        if let Err(error) = self.move_files(stats, &mut moved) {
            for file in &moved {
                let _ = std::fs::remove_file(file);
            }
            return Err(error);
        }
        self.published = true;
        remove_dir(&self.work)
    }

    /// Moves the files of `stats` into their table folders, each one
    /// moved pushed on `moved`.
    fn move_files(
        &self,
        stats: &mut [TableStats],
        moved: &mut Vec<PathBuf>,
    ) -> Result<(), ColumnarError> {
        for table in stats.iter_mut() {
            let dir = self.root.join(&table.table);
            std::fs::create_dir_all(&dir).map_err(|e| ColumnarError::io(&dir, e))?;
            for file in &mut table.files {
                let Some(name) = file.file_name() else { continue };
                let target = dir.join(name);
                std::fs::rename(&*file, &target).map_err(|e| ColumnarError::io(file, e))?;
                moved.push(target.clone());
                *file = target;
            }
        }
        Ok(())
    }
}

/// Removes a directory and what it holds, if it exists.
fn remove_dir(dir: &Path) -> Result<(), ColumnarError> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(ColumnarError::io(dir, e)),
        _ => Ok(()),
    }
}

impl Drop for ShardDir {
    /// A shard that was not published leaves nothing: its working
    /// directory, with every file written so far, is removed.
    fn drop(&mut self) {
        if !self.published {
            let _ = remove_dir(&self.work);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn shards_share_the_table_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("a/lake");
        for shard in [1, 2] {
            let dir = ShardDir::create(&root, shard).unwrap();
            let file = dir.staging("games").join(format!("s{shard}-00001.parquet"));
            std::fs::write(&file, b"x").unwrap();
            let mut stats =
                [TableStats { table: "games".into(), files: vec![file], ..TableStats::default() }];
            dir.publish(&mut stats).unwrap();
            assert_eq!(stats[0].files[0], root.join(format!("games/s{shard}-00001.parquet")));
        }
        assert_eq!(names(&root), ["games"], "no working directory left");
        assert_eq!(names(&root.join("games")), ["s1-00001.parquet", "s2-00001.parquet"]);
        let err = ShardDir::create(&root, 2).unwrap_err();
        assert!(matches!(err, ColumnarError::ShardExists { shard: 2, .. }), "{err}");
        assert!(err.to_string().contains("s2-00001.parquet"), "{err}");
        // Not published: nothing left.
        let dir = ShardDir::create(&root, 3).unwrap();
        std::fs::write(dir.staging("plies").join("s3-00001.parquet"), b"x").unwrap();
        let busy = ShardDir::create(&root, 3).unwrap_err();
        assert!(matches!(busy, ColumnarError::ShardBusy { shard: 3, .. }), "{busy}");
        drop(dir);
        assert_eq!(names(&root), ["games"]);
        ShardDir::create(&root, 3).unwrap();
    }

    #[test]
    fn a_flat_directory_or_a_file_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        for name in ["games-00001.parquet", "positions-00002.parquet.partial"] {
            let flat = tmp.path().join(name.replace('.', "_"));
            std::fs::create_dir(&flat).unwrap();
            std::fs::write(flat.join(name), b"x").unwrap();
            let err = ShardDir::create(&flat, 0).unwrap_err();
            assert!(matches!(err, ColumnarError::FlatLayout(_)), "{err}");
            assert_eq!(names(&flat), [name], "nothing created beside it");
        }
        // Other files are the user's own.
        let other = tmp.path().join("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("README.md"), b"x").unwrap();
        ShardDir::create(&other, 0).unwrap();
        let file = tmp.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        for path in [file.clone(), file.join("sub")] {
            let err = ShardDir::create(&path, 0).unwrap_err();
            assert!(matches!(err, ColumnarError::Io { .. }), "{err}");
        }
    }
}
