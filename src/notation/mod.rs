//! Text ↔ chess types. One notation per module, each with `from_ascii`, an
//! `append_to` writer (`descriptive`: `write`, which needs the position)
//! and its own error type (`diagram` is written only); no I/O. [`moves`]
//! stands above SAN and descriptive notation, for what concerns a move in
//! either.

pub mod descriptive;
pub mod diagram;
pub mod epd;
pub mod fen;
pub mod lang;
pub mod material;
pub mod moves;
pub mod san;
pub mod uci;

/// The text of a token for an error message: lossy UTF-8, cut after 40
/// characters (with `…`), so that a megabyte of junk read as one token
/// makes a short message, quickly.
pub(crate) fn excerpt(bytes: &[u8]) -> String {
    const MAX: usize = 40;
    // Four bytes per character at most: enough for MAX characters.
    let head = &bytes[..bytes.len().min(4 * MAX + 4)];
    let text = String::from_utf8_lossy(head);
    let mut chars = text.char_indices();
    match chars.nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None if head.len() < bytes.len() => format!("{text}…"),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    #[test]
    fn excerpts_are_short() {
        assert_eq!(excerpt(b"Nf3"), "Nf3");
        assert_eq!(excerpt(&[b'x'; 40]), "x".repeat(40));
        assert_eq!(excerpt(&[b'x'; 41]), format!("{}…", "x".repeat(40)));
        assert_eq!(excerpt(&vec![0u8; 1 << 20]), format!("{}…", "\0".repeat(40)));
        assert_eq!(excerpt("é".repeat(50).as_bytes()), format!("{}…", "é".repeat(40)));
        assert_eq!(excerpt(b"e4\xff"), "e4\u{FFFD}");
    }
}
