//! The stored forms that both sides read: the import's workers encode
//! them and the queries, the server and the Parquet export decode them —
//! a game's per-move notes ([`plies`]), its material stretches
//! ([`material`]), the position index's segments ([`positions`]), the
//! explorer's tables ([`explorer`]) and the dedupe keys' filter
//! ([`bloom`]).

pub(crate) mod bloom;
pub mod explorer;
pub mod material;
pub mod plies;
pub mod positions;
