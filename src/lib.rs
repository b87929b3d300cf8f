//! pgnindex: turn chess game collections (PGN) into a SQLite database that
//! can be queried by position, by header and by plain SQL.
//!
//! The crate is organised as a pipeline of small modules:
//! - [`chess`]: the engine (bitboards, legal moves, Polyglot Zobrist keys);
//! - [`notation`]: FEN, EPD, SAN and UCI, text to chess types and back;
//! - [`pgn`]: input sources, game boundaries, the tokenizer and its visitor;
//! - [`import`]: replaying games into rows and storing them;
//! - [`db`]: the SQLite file and its schema;
//! - [`query`]: searching, exploring and exporting a database.
#![warn(missing_docs)]

pub mod chess;
pub mod db;
pub mod import;
pub mod notation;
pub mod pgn;
pub mod query;
