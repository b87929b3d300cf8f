//! Text ↔ chess types. One notation per module, each with `from_ascii`, an
//! `append_to` writer and its own error type; no I/O.

pub mod epd;
pub mod fen;
pub mod lang;
pub mod san;
pub mod uci;
