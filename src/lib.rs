//! pgnindex: turn chess game collections (PGN) into a SQLite database that
//! can be queried by position, by header and by plain SQL.
//!
//! The crate is organised as a pipeline of small modules:
//! - [`chess`]: the engine (bitboards, legal moves, Polyglot Zobrist keys);
//! - [`notation`]: FEN, EPD, SAN and UCI, text to chess types and back;
//! - [`pgn`]: input sources, game boundaries, the tokenizer and its visitor;
//! - [`replay`]: reading and replaying games on the engine, on a thread pool;
//! - [`store`]: the storage engine: rows, the writer, index segments;
//! - [`import`]: the import pipeline from inputs to the writer thread;
//! - [`db`]: the SQLite file and its schema;
//! - [`query`]: searching, exploring and exporting a database;
//! - [`columnar`]: a database's tables as Parquet files, for other engines;
//! - [`book`]: Polyglot opening books, read and made from stored games.
#![warn(missing_docs)]

pub mod book;
pub mod chess;
pub mod columnar;
pub mod db;
pub mod import;
pub mod notation;
pub mod pgn;
pub mod query;
pub mod replay;
pub mod serve;
pub mod store;
pub mod timings;
