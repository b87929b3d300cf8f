//! A database's tables as Apache Parquet files, the columnar format that
//! DuckDB, Polars, pandas, Spark, Trino and BigQuery read: `games`,
//! `plies`, `tags`, `positions` (sorted by `hash`) and `sources`, typed,
//! each split into files of a bounded size, each in a folder of its own
//! under a lake's root ([`lake`]). [`sink`] writes one table's files,
//! [`export`] reads the tables from a database, [`shard`] writes them
//! from an import's games without one (with [`runs`], the positions
//! sorted in bounded memory, and [`keys`], the dedupe keys). Nothing here
//! prints.

pub mod export;
pub mod keys;
pub mod lake;
pub mod runs;
pub mod shard;
pub mod sink;

use std::path::{Path, PathBuf};

/// How writing Parquet files fails.
#[derive(Debug, thiserror::Error)]
pub enum ColumnarError {
    /// The output directory holds a table's files directly, as written
    /// before each table had a folder of its own.
    #[error(
        "{}: a table file directly in the lake's directory; tables are now written into \
         folders of their own (games/, plies/, …): write into a new directory, or move the \
         files as docs/scale.md shows",
        .0.display()
    )]
    FlatLayout(PathBuf),
    /// A table folder holds files of the shard being written.
    #[error(
        "{}: shard {shard} is in the lake already: delete its files (s{shard}-*.parquet in \
         every table folder) or write another --shard",
        file.display()
    )]
    ShardExists {
        /// One of its files.
        file: PathBuf,
        /// The shard.
        shard: u32,
    },
    /// The working directory of the shard being written exists.
    #[error(
        "{}: shard {shard} is being written, or a run that was killed left this directory: \
         delete it once no run writes shard {shard}",
        work.display()
    )]
    ShardBusy {
        /// The working directory.
        work: PathBuf,
        /// The shard.
        shard: u32,
    },
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
