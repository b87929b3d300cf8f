//! The storage engine: what the workers make of a game ([`encode`]), the
//! forms both sides read ([`format`]), and the one thread that writes it
//! ([`writer`], its batches cut by [`batch`]): games (few-valued texts by
//! id, [`texts`]), tag pairs (names by id, [`tag_names`]) and
//! per-move notes ([`format::plies`]), the material stretches, the
//! position index and the dedupe keys as sorted segment tables
//! ([`segments`], its rows sorted beside the writer by `sorter` and
//! written as whole tables by `image`; [`dedupe`],
//! behind an in-memory Bloom filter), and the
//! background threads that checkpoint the write-ahead log and sync the
//! file after each commit; the explorer's opening tree ([`tree`]);
//! [`delete`], which deletes games, and
//! [`vacuum`], which drops the index rows of deleted games.

mod append;
mod background;
pub mod batch;
mod batch_part;
mod checkpoint;
pub mod dedupe;
pub mod delete;
pub mod encode;
mod flush;
pub mod format;
pub mod game_tables;
mod image;
mod merger;
mod page_buffers;
mod player_tally;
pub mod segments;
mod sorter;
pub mod tag_names;
pub mod texts;
pub mod tree;
pub mod vacuum;
pub mod writer;
