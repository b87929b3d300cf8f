//! What the import's workers make of a replayed game, so that the writer
//! thread only decides and appends: its rows ([`rows`]), their analysis
//! columns ([`analysis`]), their SQLite records with holes for what the
//! writer decides ([`records`]), the dictionaries' committed ids they
//! encode with ([`shared_ids`]), and what the explorer's tree takes of the
//! game ([`visits`]).

pub mod analysis;
pub mod records;
pub mod rows;
pub mod shared_ids;
pub mod visits;
