//! PGN text → games: input sources, the tokenizer and its visitor. Knows
//! no legality, no SQL, no threads.

pub mod commands;
pub mod descriptive;
pub mod keyed;
mod line_breaks;
pub mod movetext;
pub mod reader;
mod scan;
pub mod source;
pub mod split;
pub mod visitor;

pub use reader::{LineIndex, Reader};
pub use visitor::{GameResult, RawComment, RawTag, Skip, Syntax, Visitor};
