//! A database's tables as Apache Parquet files, the columnar format that
//! DuckDB, Polars, pandas, Spark, Trino and BigQuery read: `games`,
//! `plies`, `tags` and `positions` (sorted by `hash`), typed, each split
//! into files of a bounded size. [`sink`] writes one table's files,
//! [`export`] reads the tables from a database, [`shard`] writes them
//! from an import's games without one (with [`runs`], the positions
//! sorted in bounded memory, and [`keys`], the dedupe keys). Nothing here
//! prints.

pub mod export;
pub mod keys;
pub mod runs;
pub mod shard;
pub mod sink;

use std::path::{Path, PathBuf};

/// How writing Parquet files fails.
#[derive(Debug, thiserror::Error)]
pub enum ColumnarError {
    /// The output directory exists and holds files.
    #[error(
        "{}: the directory is not empty (Parquet files are written into a new or empty directory)",
        .0.display()
    )]
    NotEmpty(PathBuf),
    /// A file or directory could not be created or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// The Parquet writer failed (most often on writing its file).
    #[error("{}: {message}", path.display())]
    Write {
        /// The file being written.
        path: PathBuf,
        /// The writer's error.
        message: String,
    },
    /// A record batch could not be built.
    #[error("building a record batch: {0}")]
    Arrow(String),
    /// A value that its column's type cannot hold.
    #[error("{row}: column {column}: {message}")]
    Value {
        /// The column.
        column: String,
        /// The row (table and game).
        row: String,
        /// What is wrong.
        message: String,
    },
    /// A column of the database that has no Parquet type here.
    #[error("{table}.{column}: no Parquet type for this column")]
    UnknownColumn {
        /// The table or view.
        table: String,
        /// The column.
        column: String,
    },
    /// SQLite failed reading the database.
    #[error("{path}: {error}")]
    Sqlite {
        /// The database file.
        path: String,
        /// SQLite's error.
        error: rusqlite::Error,
    },
}

impl ColumnarError {
    fn io(path: &Path, source: std::io::Error) -> ColumnarError {
        ColumnarError::Io { path: path.to_path_buf(), error: source }
    }

    fn write(path: &Path, error: parquet::errors::ParquetError) -> ColumnarError {
        match error {
            parquet::errors::ParquetError::External(e) => match e.downcast::<std::io::Error>() {
                Ok(io) => ColumnarError::io(path, *io),
                Err(e) => ColumnarError::Write { path: path.to_path_buf(), message: e.to_string() },
            },
            e => ColumnarError::Write { path: path.to_path_buf(), message: e.to_string() },
        }
    }
}

/// Makes `dir` ready for a table's files: created when missing (with its
/// parents), refused when it holds anything (files of an earlier export
/// would mix with the new ones in a reader's glob).
///
/// # Errors
/// [`ColumnarError::NotEmpty`], or [`ColumnarError::Io`] when `dir` is
/// not a directory or cannot be created or read.
pub fn prepare_dir(dir: &Path) -> Result<(), ColumnarError> {
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).map_err(|e| ColumnarError::io(dir, e))?;
        if entries.next().is_some() {
            return Err(ColumnarError::NotEmpty(dir.to_path_buf()));
        }
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(|e| ColumnarError::io(dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directory_is_new_or_empty() {
        let tmp = tempfile::tempdir().unwrap();
        let new = tmp.path().join("a/b");
        prepare_dir(&new).unwrap();
        assert!(new.is_dir());
        prepare_dir(&new).unwrap();
        std::fs::write(new.join("games-00001.parquet"), b"x").unwrap();
        let err = prepare_dir(&new).unwrap_err();
        assert!(matches!(err, ColumnarError::NotEmpty(_)), "{err}");
        assert!(err.to_string().contains("not empty"), "{err}");
        let file = tmp.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let err = prepare_dir(&file).unwrap_err();
        assert!(matches!(err, ColumnarError::Io { .. }), "a file is no directory: {err}");
        let err = prepare_dir(&file.join("sub")).unwrap_err();
        assert!(matches!(err, ColumnarError::Io { .. }), "{err}");
    }
}
