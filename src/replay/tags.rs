//! A game's tag pairs, decoded, in one buffer: what a replayed game
//! carries instead of two strings per pair (the allocations of a game's
//! ten or so pairs cost more than decoding them), and their JSON form as
//! `game_tags.pairs` stores it (names by id).

use std::ops::Range;

use crate::pgn::RawTag;

/// Tag pairs in the order written: names and values decoded into one
/// text, with where each ends.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TagPairs {
    text: String,
    /// End of each name and of its value in `text`.
    ends: Vec<(usize, usize)>,
}

impl TagPairs {
    /// No pairs.
    pub fn new() -> TagPairs {
        TagPairs::default()
    }

    /// No pairs, with room for `pairs` pairs of `bytes` bytes of text in
    /// all (growing the buffer pair by pair cost more than the pairs).
    pub fn with_capacity(pairs: usize, bytes: usize) -> TagPairs {
        TagPairs { text: String::with_capacity(bytes), ends: Vec::with_capacity(pairs) }
    }

    /// The pairs `raw` as read, each name decoded as
    /// `String::from_utf8_lossy` and each value as [`RawTag::decode`] would:
    /// the common game (UTF-8 throughout, no escape, no byte-order mark)
    /// with one UTF-8 check for all its pairs rather than two per pair.
    pub fn decode(raw: &[(&[u8], RawTag<'_>)]) -> TagPairs {
        let bytes = raw.iter().map(|(n, v)| n.len() + v.0.len()).sum();
        let mut text = Vec::with_capacity(bytes);
        let mut ends = Vec::with_capacity(raw.len());
        for (name, value) in raw {
            text.extend_from_slice(name);
            let name_end = text.len();
            text.extend_from_slice(value.0);
            ends.push((name_end, text.len()));
        }
        // An escape or a byte-order mark changes a value; a name's
        // replacement characters and a value's Windows-1252 bytes show as
        // invalid UTF-8. Only a byte of 0xEF can start a mark.
        let plain = memchr::memchr2(b'\\', 0xEF, &text).is_none();
        match String::from_utf8(text) {
            // Valid as a whole is not enough: a character's bytes may be
            // split between a name and its value, or a value and the next
            // name, each invalid alone.
            Ok(text)
                if plain
                    && ends.iter().all(|&(name_end, value_end)| {
                        text.is_char_boundary(name_end) && text.is_char_boundary(value_end)
                    }) =>
            {
                TagPairs { text, ends }
            }
            _ => {
                // Decoding changes the length only for escapes (shorter)
                // and bytes that are not UTF-8 (longer, rare).
                let mut tags = TagPairs::with_capacity(raw.len(), bytes);
                for (name, value) in raw {
                    tags.push(&String::from_utf8_lossy(name), &value.decode());
                }
                tags
            }
        }
    }

    /// Adds a pair.
    pub fn push(&mut self, name: &str, value: &str) {
        self.text.push_str(name);
        let name_end = self.text.len();
        self.text.push_str(value);
        self.ends.push((name_end, self.text.len()));
    }

    /// The number of pairs.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// `true` if there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The pairs, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + '_ {
        (0..self.len()).map(|i| {
            let (name, value) = self.ranges(i);
            (&self.text[name], &self.text[value])
        })
    }

    /// Pair `i` as byte ranges of the text.
    fn ranges(&self, i: usize) -> (Range<usize>, Range<usize>) {
        let start = if i == 0 { 0 } else { self.ends[i - 1].1 };
        let (name_end, value_end) = self.ends[i];
        (start..name_end, name_end..value_end)
    }

    /// The pairs whose index `keep` accepts, in order.
    pub fn filtered(&self, mut keep: impl FnMut(usize) -> bool) -> TagPairs {
        let mut kept = TagPairs::new();
        for (i, (name, value)) in self.iter().enumerate() {
            if keep(i) {
                kept.push(name, value);
            }
        }
        kept
    }

    /// The pairs as `game_tags.pairs` holds them: a JSON array with one
    /// string per pair, the id `id` gives its name, a colon, then the value
    /// (`["3:X","12:x/[1]"]`); `None` if there are none.
    ///
    /// # Errors
    /// The first error of `id`.
    pub fn to_json<E>(
        &self,
        mut id: impl FnMut(&str) -> Result<i64, E>,
    ) -> Result<Option<String>, E> {
        if self.is_empty() {
            return Ok(None);
        }
        // The values and the punctuation (`"12:",` per pair), before
        // escapes.
        let mut json = String::with_capacity(self.text.len() + 6 * self.len() + 1);
        for (name, value) in self.iter() {
            json.push(if json.is_empty() { '[' } else { ',' });
            json.push('"');
            json.push_str(itoa::Buffer::new().format(id(name)?));
            json.push(':');
            push_json_escaped(&mut json, value);
            json.push('"');
        }
        json.push(']');
        Ok(Some(json))
    }
}

/// Appends `value` escaped for a JSON string as serde_json writes it:
/// `\"`, `\\`, the short escapes of backspace, form feed, line feed,
/// carriage return and tab, `\u00XX` for the other control characters,
/// the rest as it is.
fn push_json_escaped(json: &mut String, value: &str) {
    let mut plain = 0;
    for (i, b) in value.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        json.push_str(&value[plain..i]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            json.push_str("\\u00");
            json.push(char::from(HEX[usize::from(b >> 4)]));
            json.push(char::from(HEX[usize::from(b & 15)]));
        } else {
            json.push_str(escape);
        }
        plain = i + 1;
    }
    json.push_str(&value[plain..]);
}

impl std::fmt::Debug for TagPairs {
    /// As a list of `(name, value)` pairs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pairs decoded one by one, as [`TagPairs::decode`] must.
    fn decoded_pair_by_pair(raw: &[(&[u8], RawTag<'_>)]) -> TagPairs {
        let mut tags = TagPairs::new();
        for (name, value) in raw {
            tags.push(&String::from_utf8_lossy(name), &value.decode());
        }
        tags
    }

    proptest::proptest! {
        #[test]
        fn decoding_all_pairs_at_once_equals_decoding_each(
            pairs in proptest::collection::vec(
                (proptest::collection::vec(proptest::sample::select(
                    b"aZ\\\"\xef\xbb\xbf\xc3\xa9\x93 ".to_vec()), 0..6),
                 proptest::collection::vec(proptest::sample::select(
                    b"aZ\\\"\xef\xbb\xbf\xc3\xa9\x93 ".to_vec()), 0..8)),
                0..5)
        ) {
            let raw: Vec<(&[u8], RawTag<'_>)> =
                pairs.iter().map(|(n, v)| (n.as_slice(), RawTag(v.as_slice()))).collect();
            proptest::prop_assert_eq!(TagPairs::decode(&raw), decoded_pair_by_pair(&raw));
        }

        #[test]
        fn json_strings_are_escaped_as_serde_json_escapes_them(value in "[a\"\\\\\\x00-\\x1f\\x7fé€ ]{0,12}") {
            let mut tags = TagPairs::new();
            tags.push("N", &value);
            let json = tags.to_json(|_| Ok::<_, ()>(7)).unwrap().unwrap();
            let expected = format!("[{}]", serde_json::to_string(&format!("7:{value}")).unwrap());
            proptest::prop_assert_eq!(json, expected);
        }
    }

    #[test]
    fn decoding_keeps_every_pair_of_a_plain_game_and_decodes_the_others() {
        let plain: [(&[u8], RawTag<'_>); 3] =
            [(b"Event", RawTag(b"Caf\xc3\xa9")), (b"White", RawTag(b"")), (b"", RawTag(b"x"))];
        let tags = TagPairs::decode(&plain);
        assert_eq!(tags.iter().collect::<Vec<_>>(), [("Event", "Café"), ("White", ""), ("", "x")]);
        let mixed: [(&[u8], RawTag<'_>); 3] = [
            (b"Event", RawTag(b"A \\\"B\\\"")),
            (b"Site", RawTag(b"\xef\xbb\xbfS")),
            (b"N\xe9", RawTag(b"Caf\xe9")),
        ];
        let tags = TagPairs::decode(&mixed);
        assert_eq!(
            tags.iter().collect::<Vec<_>>(),
            [("Event", "A \"B\""), ("Site", "S"), ("N\u{fffd}", "Café")]
        );
    }

    #[test]
    fn a_character_split_between_pairs_decodes_as_each_piece_alone() {
        // 0xC3 0xBB is `û` when joined, and each byte alone is not UTF-8:
        // a name shows it as a replacement character, a value reads it as
        // Windows-1252.
        let name_and_value: [(&[u8], RawTag<'_>); 1] = [(b"N\xc3", RawTag(b"\xbbV"))];
        assert_eq!(
            TagPairs::decode(&name_and_value).iter().collect::<Vec<_>>(),
            [("N\u{fffd}", "»V")]
        );
        let value_and_name: [(&[u8], RawTag<'_>); 2] =
            [(b"A", RawTag(b"x\xc3")), (b"\xbbB", RawTag(b"y"))];
        assert_eq!(
            TagPairs::decode(&value_and_name).iter().collect::<Vec<_>>(),
            [("A", "xÃ"), ("\u{fffd}B", "y")]
        );
    }

    #[test]
    fn pairs_in_order_and_their_json() {
        let mut tags = TagPairs::new();
        let none: Result<_, ()> = tags.to_json(|_| Ok(1));
        assert!(tags.is_empty() && none.unwrap().is_none());
        tags.push("Event", "E");
        tags.push("Annotator", "A \"B\" \\ C\tü 1:2");
        tags.push("", "");
        tags.push("Link", "x/[1]");
        let pairs: Vec<(&str, &str)> = tags.iter().collect();
        assert_eq!(
            pairs,
            [("Event", "E"), ("Annotator", "A \"B\" \\ C\tü 1:2"), ("", ""), ("Link", "x/[1]")]
        );
        let kept = tags.filtered(|i| i != 0);
        assert_eq!(kept.iter().collect::<Vec<_>>(), pairs[1..]);
        let ids = ["Annotator", "", "Link"];
        let id = |name: &str| -> Result<i64, ()> {
            Ok(ids.iter().position(|&n| n == name).unwrap() as i64 * 6 + 1)
        };
        let json = kept.to_json(id).unwrap().unwrap();
        assert_eq!(json, r#"["1:A \"B\" \\ C\tü 1:2","7:","13:x/[1]"]"#);
        // Each string: the id before the first colon, the value after it.
        let back: Vec<String> = serde_json::from_str(&json).unwrap();
        let split: Vec<(&str, &str)> = back.iter().map(|s| s.split_once(':').unwrap()).collect();
        assert_eq!(split, [("1", pairs[1].1), ("7", ""), ("13", "x/[1]")]);
        assert_eq!(kept.to_json(|_| Err("no id")), Err("no id"));
        assert!(tags.filtered(|_| false).is_empty());
        assert_eq!(
            format!("{:?}", tags).lines().next(),
            Some(
                r#"[("Event", "E"), ("Annotator", "A \"B\" \\ C\tü 1:2"), ("", ""), ("Link", "x/[1]")]"#
            )
        );
    }
}
