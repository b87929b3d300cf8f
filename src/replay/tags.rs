//! A game's tag pairs, decoded, in one buffer: what a replayed game
//! carries instead of two strings per pair (the allocations of a game's
//! ten or so pairs cost more than decoding them), and their JSON form as
//! `game_tags.pairs` stores it.

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

    /// The pairs whose index `keep` accepts, as a JSON array of
    /// two-string arrays (`[["Annotator","X"],…]`); `None` if there are
    /// none.
    pub fn to_json(&self, mut keep: impl FnMut(usize) -> bool) -> Option<String> {
        // The text and the punctuation (`[["",""],` per pair), before
        // escapes.
        let mut json: Vec<u8> = Vec::with_capacity(self.text.len() + 8 * self.len() + 1);
        for i in (0..self.len()).filter(|&i| keep(i)) {
            json.push(if json.is_empty() { b'[' } else { b',' });
            let (name, value) = self.ranges(i);
            json.push(b'[');
            // serde_json escapes what JSON needs escaped (quotes,
            // backslashes, control characters) and keeps the rest of the
            // UTF-8 as it is; writing a string into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut json, &self.text[name]);
            json.push(b',');
            let _ = serde_json::to_writer(&mut json, &self.text[value]);
            json.push(b']');
        }
        if json.is_empty() {
            return None;
        }
        json.push(b']');
        // Valid UTF-8: pieces of a str and ASCII punctuation.
        String::from_utf8(json).ok()
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
        assert!(tags.is_empty() && tags.to_json(|_| true).is_none());
        tags.push("Event", "E");
        tags.push("Annotator", "A \"B\" \\ C\tü");
        tags.push("", "");
        tags.push("Link", "x/[1]");
        let pairs: Vec<(&str, &str)> = tags.iter().collect();
        assert_eq!(
            pairs,
            [("Event", "E"), ("Annotator", "A \"B\" \\ C\tü"), ("", ""), ("Link", "x/[1]")]
        );
        let json = tags.to_json(|i| i != 0).unwrap();
        assert_eq!(json, r#"[["Annotator","A \"B\" \\ C\tü"],["",""],["Link","x/[1]"]]"#);
        let back: Vec<(String, String)> = serde_json::from_str(&json).unwrap();
        assert_eq!(back.len(), 3);
        assert_eq!(back[0].1, pairs[1].1);
        assert!(tags.to_json(|_| false).is_none());
        assert_eq!(
            format!("{:?}", tags).lines().next(),
            Some(
                r#"[("Event", "E"), ("Annotator", "A \"B\" \\ C\tü"), ("", ""), ("Link", "x/[1]")]"#
            )
        );
    }
}
