//! A game's tag pairs, decoded, in one buffer: what a replayed game
//! carries instead of two strings per pair (the allocations of a game's
//! ten or so pairs cost more than decoding them), and their JSON form as
//! `game_tags.pairs` stores it (names by id).

use std::ops::Range;

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
        let mut json: Vec<u8> = Vec::with_capacity(self.text.len() + 6 * self.len() + 1);
        for (name, value) in self.iter() {
            json.push(if json.is_empty() { b'[' } else { b',' });
            let quote = json.len();
            // serde_json escapes what JSON needs escaped (quotes,
            // backslashes, control characters) and keeps the rest of the
            // UTF-8 as it is; writing into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut json, value);
            // The id goes inside the string, after its opening quote.
            let prefix = format!("{}:", id(name)?);
            json.splice(quote + 1..quote + 1, prefix.into_bytes());
        }
        json.push(b']');
        // Valid UTF-8: pieces of a str, digits and ASCII punctuation.
        Ok(String::from_utf8(json).ok())
    }
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
