//! Text from the bytes of a PGN file: [`decode_text`], UTF-8 where valid
//! and Windows-1252 for the bytes that are not.

use std::borrow::Cow;

/// Decodes bytes of a PGN file (a tag value, a comment) to text.
///
/// Valid UTF-8 is taken as is (borrowed), after removing a leading byte-order
/// mark. Bytes that are not part of valid UTF-8 are read as Windows-1252, the
/// Latin-1 superset that old ChessBase exports use: `0x80..=0x9F` through the
/// Windows-1252 table (`0x80` is `€`, `0x93` is `“`; the five undefined ones,
/// `0x81 0x8D 0x8F 0x90 0x9D`, become the C1 control characters of the same
/// number), `0xA0..=0xFF` as the same code point. The decision is made per
/// invalid sequence, so valid UTF-8 around a stray Latin-1 byte survives.
/// No byte is ever dropped or replaced: every byte outside valid UTF-8
/// becomes exactly one character, distinct for distinct bytes.
pub fn decode_text(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut rest = match std::str::from_utf8(bytes) {
        Ok(text) => return Cow::Borrowed(text),
        Err(_) => bytes,
    };
    let mut text = String::with_capacity(bytes.len() + bytes.len() / 2);
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                text.push_str(valid);
                return Cow::Owned(text);
            }
            Err(error) => {
                let (valid, invalid) = rest.split_at(error.valid_up_to());
                // Checked by `from_utf8` just above.
                text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                let bad_len = error.error_len().unwrap_or(invalid.len());
                text.extend(invalid[..bad_len].iter().map(|&b| windows_1252(b)));
                rest = &invalid[bad_len..];
            }
        }
    }
}

/// The Windows-1252 character for one byte (undefined bytes map to the C1
/// control of the same number).
fn windows_1252(byte: u8) -> char {
    /// `0x80..=0x9F`; the rest of the code page is Latin-1.
    const C1: [char; 32] = [
        '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}',
        '\u{2021}', '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}',
        '\u{017D}', '\u{008F}', '\u{0090}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}',
        '\u{2022}', '\u{2013}', '\u{2014}', '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}',
        '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
    ];
    match byte {
        0x80..=0x9F => C1[usize::from(byte - 0x80)],
        _ => char::from(byte),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_text_keeps_utf8_and_drops_a_bom() {
        assert!(matches!(decode_text(b"Caf\xc3\xa9"), Cow::Borrowed("Café")));
        assert!(matches!(decode_text(b"\xef\xbb\xbfKasparov"), Cow::Borrowed("Kasparov")));
        assert_eq!(decode_text(b""), "");
        assert_eq!(decode_text("Чигорин – €".as_bytes()), "Чигорин – €");
    }

    #[test]
    fn decode_text_reads_other_bytes_as_windows_1252() {
        assert_eq!(decode_text(b"Caf\xe9"), "Café");
        assert_eq!(decode_text(b"\x93x\x94"), "\u{201C}x\u{201D}");
        assert_eq!(decode_text(b"M\xfcller \x80 5"), "Müller € 5");
        assert_eq!(decode_text(b"\x81\x8d\x8f\x90\x9d"), "\u{81}\u{8D}\u{8F}\u{90}\u{9D}");
        assert_eq!(decode_text(b"\xef\xbb\xbf\xe9t\xe9"), "été");
        // UTF-8 around a stray Latin-1 byte survives.
        assert_eq!(decode_text(b"\xe2\x82\xac \xe9"), "€ é");
        // A truncated UTF-8 sequence at the end is read as Latin-1 too.
        assert_eq!(decode_text(b"x\xc3"), "xÃ");
    }

    #[test]
    fn decode_text_never_drops_or_merges_bytes() {
        let high: Vec<u8> = (0x80..=0xff).collect();
        let text = decode_text(&high);
        let chars: Vec<char> = text.chars().collect();
        assert_eq!(chars.len(), 128);
        let mut distinct = chars.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 128);
        assert!(!chars.contains(&char::REPLACEMENT_CHARACTER));
        assert_eq!(chars[0x00], '€');
        assert_eq!(chars[0x1f], 'Ÿ');
        assert_eq!(chars[0x20], '\u{A0}');
        assert_eq!(chars[0x7f], 'ÿ');
    }
}
