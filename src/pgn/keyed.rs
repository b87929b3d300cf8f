//! TCEC's engine comments: `key=value` items separated by commas, such as
//! `{d=27, sd=78, mt=39532, tl=1393062, s=48291, n=1906789221, pv=Nf3 d5
//! g3, tb=0, h=100.0, ph=0.0, wv=0.60, R50=50, Rd=-11, Rr=-1000,
//! mb=+0+0+0+0+0,}`.
//!
//! Read into columns: `d` (depth), `sd` (selective depth), `n` (nodes),
//! `pv` (the principal variation, SAN), `wv` (White's view in pawns,
//! `M12`/`-M12` a mate in 12 moves for White/Black), `mt` (time spent) and
//! `tl` (time left), in milliseconds (`39532`) or as `HH:MM:SS`. The other
//! items stay text, in order. A [`Layout`] records the order of a game's
//! keys, so that [`write`] gives each comment back from the columns and
//! that text.

use super::commands::{count, exact_centipawns, parse_clock, split_decimal_at, Eval};
use super::movetext::PlyNotes;
use super::scan;

/// The longest [`Layout`] text.
const MAX_LAYOUT: usize = 240;

/// The keys of keyed comments in the order they come, and whether a
/// comment ends with a comma: written as text in `ply_data.notes_layout`,
/// keys comma separated, `:` after `mt`/`tl` written `HH:MM:SS`, a trailing
/// comma when the comments have one (`d,sd,pd,mt,tl,s,n,pv,tb,wv,R50,`).
/// A game's layout holds the keys of all its keyed comments: a comment
/// need not have every key (TCEC writes the ponder move `pd=` on some
/// moves only), but those it has come in this order.
#[derive(Clone, Copy)]
pub struct Layout {
    text: [u8; MAX_LAYOUT],
    len: u8,
}

impl PartialEq for Layout {
    fn eq(&self, other: &Layout) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Layout {}

impl std::fmt::Debug for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Layout({:?})", self.as_str())
    }
}

impl Layout {
    /// The layout as `ply_data.notes_layout` stores it.
    pub fn as_str(&self) -> &str {
        // Built from ASCII only.
        std::str::from_utf8(&self.text[..usize::from(self.len)]).unwrap_or_default()
    }

    /// The layout's bytes (ASCII).
    fn as_bytes(&self) -> &[u8] {
        &self.text[..usize::from(self.len)]
    }

    /// The layout as `ply_data.notes_layout` stores it.
    pub fn to_text(&self) -> String {
        self.as_str().to_string()
    }

    /// The layout of a `notes_layout` text; `None` if it is not one.
    pub fn from_text(text: &str) -> Option<Layout> {
        let layout = Layout::of_bytes(text.as_bytes())?;
        let body = text.strip_suffix(',').unwrap_or(text);
        if body.is_empty() {
            return Some(layout);
        }
        let mut seen = Vec::new();
        for key in body.split(',') {
            let name = key.strip_suffix(':').unwrap_or(key);
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric()) {
                return None;
            }
            if key.ends_with(':') && name != "mt" && name != "tl" {
                return None;
            }
            if seen.contains(&name) {
                return None;
            }
            seen.push(name);
        }
        Some(layout)
    }

    fn of_bytes(bytes: &[u8]) -> Option<Layout> {
        if bytes.len() > MAX_LAYOUT {
            return None;
        }
        let mut text = [0u8; MAX_LAYOUT];
        text[..bytes.len()].copy_from_slice(bytes);
        Some(Layout { text, len: bytes.len() as u8 })
    }

    /// The keys in order: name, and `true` for a time written `HH:MM:SS`.
    fn keys(&self) -> impl Iterator<Item = (&str, bool)> {
        let text = self.as_str();
        let body = text.strip_suffix(',').unwrap_or(text);
        comma_split(body).filter(|k| !k.is_empty()).map(|k| match k.strip_suffix(':') {
            Some(name) => (name, true),
            None => (k, false),
        })
    }

    /// `true` when the comments end with a comma.
    fn trailing_comma(&self) -> bool {
        self.as_bytes().ends_with(b",")
    }

    /// This layout with the keys of `other` (a comment's own layout) it
    /// lacks, each put after the key before it in `other`; `None` when
    /// the two order their common keys differently, write a time
    /// differently or disagree on the trailing comma.
    pub fn merged(&self, other: &Layout) -> Option<Layout> {
        if self.trailing_comma() != other.trailing_comma() {
            return None;
        }
        // The most common case: every comment of a game has the same keys.
        if self == other {
            return Some(*self);
        }
        // The common case: the comment's keys are among these, in order.
        let mut mine = self.keys();
        if other.keys().all(|key| mine.any(|k| k == key)) {
            return Some(*self);
        }
        let mut keys: Vec<(&str, bool)> = self.keys().collect();
        let mut at = 0;
        for (name, clock) in other.keys() {
            match keys.iter().position(|k| k.0 == name) {
                Some(i) if keys[i].1 != clock || i < at => return None,
                Some(i) => at = i + 1,
                None => {
                    keys.insert(at, (name, clock));
                    at += 1;
                }
            }
        }
        let mut text = String::new();
        for (i, (name, clock)) in keys.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str(name);
            if *clock {
                text.push(':');
            }
        }
        if self.trailing_comma() {
            text.push(',');
        }
        Layout::of_bytes(text.as_bytes())
    }
}

/// What a keyed comment says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keyed<'a> {
    /// `d=`.
    pub depth: Option<u32>,
    /// `sd=`.
    pub seldepth: Option<u32>,
    /// `n=`.
    pub nodes: Option<u64>,
    /// `pv=`, trimmed.
    pub pv: Option<&'a [u8]>,
    /// `wv=`, White's view.
    pub eval: Option<Eval>,
    /// `mt=`, milliseconds.
    pub emt: Option<u32>,
    /// `tl=`, milliseconds.
    pub clock: Option<u32>,
    /// The comment's keys in order.
    pub layout: Layout,
    /// The comment is exactly what [`write`] gives back from these values
    /// and its other items in its own layout: [`plain`], trimmed, items
    /// separated by `, `, each value in the writer's form. A rebuild may
    /// then take it as written back without writing it, and its items
    /// need no white space made single.
    pub exact: bool,
}

/// The items of a comment: its text split at commas, each trimmed; the
/// empty text after a trailing comma left out.
fn items(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let text = text.trim_ascii();
    let body = text.strip_suffix(b",").unwrap_or(text);
    comma_pieces(body).map(|piece| body[piece].trim_ascii())
}

/// Where the pieces of `bytes` between its commas lie, as `split(',')`
/// gives them; the commas found by the short-stretch search (most items
/// are a few bytes, where `memchr`'s setup costs more than the search; a
/// `pv=` item of hundreds goes on to `memchr`; a `str` split by a `char`
/// costs a searcher per piece).
fn comma_pieces(bytes: &[u8]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut from = Some(0);
    std::iter::from_fn(move || {
        let start = from?;
        let end = scan::find(b',', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        from = (end < bytes.len()).then_some(end + 1);
        Some(start..end)
    })
}

/// `text` split at its commas ([`comma_pieces`]).
fn comma_split(text: &str) -> impl Iterator<Item = &str> {
    // A comma is ASCII: every piece starts and ends on a character.
    comma_pieces(text.as_bytes()).map(move |piece| &text[piece])
}

/// `text` with each run of white space inside it as one space, appended
/// to `out` (a line break in a long `pv=` value).
pub fn push_words(out: &mut Vec<u8>, text: &[u8]) {
    let text = text.trim_ascii();
    // Most values are written so already: copied whole.
    if single_spaced(text) {
        out.extend_from_slice(text);
        return;
    }
    for (i, word) in text.split(u8::is_ascii_whitespace).filter(|w| !w.is_empty()).enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        out.extend_from_slice(word);
    }
}

/// Whether `text`'s white space is single spaces only (no tab, line break
/// or run of spaces). One pass without branches tells: the texts are
/// short, and a call per byte class costs more.
pub fn single_spaced(text: &[u8]) -> bool {
    let (mut odd, mut after_space) = (false, false);
    for &b in text {
        let space = b == b' ';
        odd |= (b < b' ' && b.is_ascii_whitespace()) | (space & after_space);
        after_space = space;
    }
    !odd
}

/// Whether `text` is printable ASCII with no run of spaces: the bytes
/// checked without a branch each, the runs searched for.
pub fn plain(text: &[u8]) -> bool {
    // Built once: `memmem::find` builds its searcher at every call.
    static DOUBLE_SPACE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"  "));
    text.iter().fold(true, |ok, &b| ok & (b' '..=b'~').contains(&b))
        && DOUBLE_SPACE.find(text).is_none()
}

/// Reads a comment of `key=value` items (at least one of them a key read
/// into a column, with a value as TCEC writes it); `None` for any other
/// comment.
pub fn read(text: &[u8]) -> Option<Keyed<'_>> {
    read_items(text, |_| {})
}

/// [`read`], appending to `others` the items it leaves as text, as
/// written, joined by `, ` (for an exact comment, [`other_items`] joined
/// so): the comment is cut into items once. On `None`, what was appended
/// is of no use.
pub fn read_into<'t>(text: &'t [u8], others: &mut Vec<u8>) -> Option<Keyed<'t>> {
    let start = others.len();
    // Items `, ` apart are copied as one run: one copy, not one an item.
    let mut run = 0..0;
    let flush = |others: &mut Vec<u8>, run: &std::ops::Range<usize>| {
        if others.len() > start {
            others.extend_from_slice(b", ");
        }
        others.extend_from_slice(&text[run.clone()]);
    };
    let keyed = read_items(text, |item| {
        // Items are sub-slices of `text`.
        let at = item.as_ptr() as usize - text.as_ptr() as usize;
        if !run.is_empty() && at == run.end + 2 && text[run.end..at] == *b", " {
            run.end = at + item.len();
            return;
        }
        if !run.is_empty() {
            flush(others, &run);
        }
        run = at..at + item.len();
    });
    if !run.is_empty() {
        flush(others, &run);
    }
    keyed
}

/// [`read`], calling `other` with each item left as text, in order.
#[inline(always)]
fn read_items(text: &[u8], mut other: impl FnMut(&[u8])) -> Option<Keyed<'_>> {
    let text = text.trim_ascii();
    // Out at once for prose and commands: the first item is `key=`.
    let first = text.iter().position(|&b| !b.is_ascii_alphanumeric())?;
    if text[first] != b'=' || first == 0 {
        return None;
    }
    let mut keyed = Keyed {
        depth: None,
        seldepth: None,
        nodes: None,
        pv: None,
        eval: None,
        emt: None,
        clock: None,
        layout: Layout { text: [0; MAX_LAYOUT], len: 0 },
        exact: false,
    };
    let mut layout = LayoutWriter { layout: &mut keyed.layout, seen: [0; MAX_KEYS], keys: 0 };
    let mut known = false;
    let (mut depth, mut seldepth, mut nodes, mut pv, mut eval, mut emt, mut clock) =
        (None, None, None, None, None, None, None);
    let body = text.strip_suffix(b",").unwrap_or(text);
    // Where the next item starts when the items are written as the writer
    // writes them.
    let mut exact = plain(text);
    let mut next_start = 0;
    for item in items(text) {
        // `key=`, the key of ASCII letters and digits.
        let eq = item.iter().position(|b| !b.is_ascii_alphanumeric())?;
        if item[eq] != b'=' || eq == 0 {
            return None;
        }
        let (key, raw_value) = (&item[..eq], &item[eq + 1..]);
        let value = raw_value.trim_ascii();
        if exact {
            // Items are sub-slices of `body`: its offset says what lies
            // before the item.
            let start = item.as_ptr() as usize - body.as_ptr() as usize;
            exact = start == next_start
                && (start == 0 || body[start - 2..start] == *b", ")
                && value.len() == raw_value.len();
            next_start = start + item.len() + 2;
        }
        let mut hms = false;
        // Keys told apart as numbers: a match on byte strings of different
        // lengths compares through calls to `memcmp`.
        let print = fingerprint(key);
        let read = match print {
            D => number(value).map(|d| {
                depth = Some(d);
                Value::Number
            }),
            SD => number(value).map(|d| {
                seldepth = Some(d);
                Value::Number
            }),
            N => long_number(value).map(|n| {
                nodes = Some(n);
                Value::Number
            }),
            PV if !value.is_empty() => {
                pv = Some(value);
                Some(Value::Pv)
            }
            WV => white_view(value).map(|e| {
                eval = Some(e);
                Value::Eval(e)
            }),
            MT | TL => time(value).map(|(ms, is_hms)| {
                hms = is_hms;
                if print == MT {
                    emt = Some(ms);
                } else {
                    clock = Some(ms);
                }
                Value::Time(ms, is_hms)
            }),
            _ => None,
        };
        if let (true, Some(read)) = (exact, read) {
            exact = read.written_as(value);
        }
        if read.is_none() && KNOWN.contains(&print) {
            // A known key with a value written otherwise: no column, and
            // no layout can place it as text.
            return None;
        }
        known |= read.is_some();
        if read.is_none() {
            other(item);
        }
        // A key twice: the layout cannot tell the two apart.
        layout.push(key, print, hms)?;
    }
    if text.ends_with(b",") {
        layout.push_byte(b',')?;
    }
    keyed.exact = exact && next_start == body.len() + 2;
    (keyed.depth, keyed.seldepth, keyed.nodes, keyed.pv) = (depth, seldepth, nodes, pv);
    (keyed.eval, keyed.emt, keyed.clock) = (eval, emt, clock);
    known.then_some(keyed)
}

/// The most keys a comment read as keyed may have.
const MAX_KEYS: usize = 32;

/// Appends a comment's keys to its layout, refusing one seen before.
struct LayoutWriter<'l> {
    layout: &'l mut Layout,
    /// Each key seen: its bytes, up to 7, and its length (a short key
    /// compared in one step).
    seen: [u64; MAX_KEYS],
    keys: usize,
}

impl LayoutWriter<'_> {
    /// Appends `key`, whose [`fingerprint`] is `print`.
    fn push(&mut self, key: &[u8], print: u64, hms: bool) -> Option<()> {
        if self.seen[..self.keys].contains(&print) && (key.len() < 8 || self.long_seen(key)) {
            return None;
        }
        *self.seen.get_mut(self.keys)? = print;
        self.keys += 1;
        if self.layout.len > 0 {
            self.push_byte(b',')?;
        }
        let len = usize::from(self.layout.len);
        if key.len() < 8 && len + 8 <= MAX_LAYOUT {
            // The key is the fingerprint's low bytes, zeros after them:
            // written as one word (beyond the layout's end, zeros stay).
            let word = (print & 0x00ff_ffff_ffff_ffff).to_le_bytes();
            self.layout.text[len..len + 8].copy_from_slice(&word);
            self.layout.len = u8::try_from(len + key.len()).ok()?;
        } else {
            self.push_bytes(key)?;
        }
        if hms {
            self.push_byte(b':')?;
        }
        Some(())
    }

    /// Whether a long key (8 bytes or more) is in the layout already.
    #[cold]
    fn long_seen(&self, key: &[u8]) -> bool {
        self.layout.keys().any(|(name, _)| name.as_bytes() == key)
    }

    fn push_bytes(&mut self, bytes: &[u8]) -> Option<()> {
        let len = usize::from(self.layout.len);
        let end = len + bytes.len();
        self.layout.text.get_mut(len..end)?.copy_from_slice(bytes);
        self.layout.len = u8::try_from(end).ok()?;
        Some(())
    }

    fn push_byte(&mut self, b: u8) -> Option<()> {
        let len = usize::from(self.layout.len);
        *self.layout.text.get_mut(len)? = b;
        self.layout.len = u8::try_from(len + 1).ok()?;
        Some(())
    }
}

/// A key's first 7 bytes and its length, as one number.
const fn fingerprint(key: &[u8]) -> u64 {
    let len = if key.len() < 255 { key.len() } else { 255 };
    let mut print = (len as u64) << 56;
    let mut i = 0;
    while i < key.len() && i < 7 {
        print |= (key[i] as u64) << (8 * i);
        i += 1;
    }
    print
}

/// The fingerprints of the keys read into columns.
const D: u64 = fingerprint(b"d");
const SD: u64 = fingerprint(b"sd");
const N: u64 = fingerprint(b"n");
const PV: u64 = fingerprint(b"pv");
const WV: u64 = fingerprint(b"wv");
const MT: u64 = fingerprint(b"mt");
const TL: u64 = fingerprint(b"tl");
const KNOWN: [u64; 7] = [D, SD, N, PV, WV, MT, TL];

/// `true` for a key read into a column.
fn is_known(key: &[u8]) -> bool {
    KNOWN.contains(&fingerprint(key))
}

/// The items of `text` that [`read`] leaves as text, in order.
pub fn other_items(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    items(text).filter(|item| {
        let key = item.iter().position(|&b| b == b'=').map_or(&item[..], |eq| &item[..eq]);
        !is_known(key)
    })
}

/// Appends the comment `notes` make in `layout`: each known key with its
/// column's value when it has one, each other key with the next item of
/// `notes.text` (its items comma separated, as [`other_items`] joined
/// them) when that item has this key, then the items left and the
/// trailing comma.
pub fn write(out: &mut String, layout: &Layout, notes: &PlyNotes<'_>) {
    let mut others = comma_split(notes.text).map(str::trim).filter(|t| !t.is_empty()).peekable();
    let start = out.len();
    // Starts an item: `, ` after the first.
    let item = |out: &mut String, key: &str| {
        if out.len() > start {
            out.push_str(", ");
        }
        out.push_str(key);
    };
    let mut numbers = itoa::Buffer::new();
    for (key, clock) in layout.keys() {
        match key {
            "d" | "sd" | "n" => {
                let value = match key {
                    "d" => notes.depth.map(u64::from),
                    "sd" => notes.seldepth.map(u64::from),
                    _ => notes.nodes,
                };
                if let Some(v) = value {
                    item(out, key);
                    out.push('=');
                    out.push_str(numbers.format(v));
                }
            }
            "pv" => {
                if !notes.pv.is_empty() {
                    item(out, "pv=");
                    out.push_str(notes.pv);
                }
            }
            "wv" => {
                if let Some(e) = notes.eval {
                    item(out, "wv=");
                    write_white_view(out, e);
                }
            }
            "mt" | "tl" => {
                if let Some(ms) = if key == "mt" { notes.emt } else { notes.clock } {
                    item(out, key);
                    out.push('=');
                    write_time(out, ms, clock);
                }
            }
            _ => {
                let next = others.next_if(|t| {
                    t.as_bytes().get(..key.len()) == Some(key.as_bytes())
                        && matches!(t.as_bytes().get(key.len()), None | Some(b'='))
                });
                if let Some(text) = next {
                    item(out, text);
                }
            }
        }
    }
    for text in others {
        item(out, text);
    }
    if layout.trailing_comma() {
        out.push(',');
    }
}

/// `mt=` / `tl=` as [`read`] found it: milliseconds, or `HH:MM:SS` when
/// `hms`.
fn write_time(out: &mut impl Text, ms: u32, hms: bool) {
    let mut numbers = itoa::Buffer::new();
    if !hms {
        out.push_str(numbers.format(ms));
        return;
    }
    let s = ms / 1000;
    for (i, part) in [s / 3600, s / 60 % 60, s % 60].into_iter().enumerate() {
        if i > 0 {
            out.push(':');
        }
        if part < 10 {
            out.push('0');
        }
        out.push_str(numbers.format(part));
    }
}

/// A value [`read`] took into a column.
#[derive(Clone, Copy)]
enum Value {
    /// A count, read from digits alone.
    Number,
    Eval(Eval),
    /// Milliseconds, and `true` when written `HH:MM:SS`.
    Time(u32, bool),
    /// A principal variation, kept as written.
    Pv,
}

impl Value {
    /// Whether `text` is this value as [`write`] writes it.
    fn written_as(self, text: &[u8]) -> bool {
        let mut form = ValueText::default();
        match self {
            // Read from digits alone: written so unless led by a zero.
            Value::Number | Value::Time(_, false) => {
                return text.len() == 1 || text.first() != Some(&b'0')
            }
            Value::Eval(e) => write_white_view(&mut form, e),
            Value::Time(ms, hms) => write_time(&mut form, ms, hms),
            Value::Pv => return true,
        }
        form.bytes[..form.len] == *text
    }
}

/// Where the writer's values go: the comment, or one value to compare.
trait Text {
    fn push_str(&mut self, s: &str);
    fn push(&mut self, c: char);
}

impl Text for String {
    fn push_str(&mut self, s: &str) {
        String::push_str(self, s)
    }
    fn push(&mut self, c: char) {
        String::push(self, c)
    }
}

/// One value as the writer writes it, on the stack.
#[derive(Default)]
struct ValueText {
    bytes: [u8; 32],
    len: usize,
}

impl Text for ValueText {
    fn push_str(&mut self, s: &str) {
        // No value the writer formats is longer; a longer one compares
        // unequal, cut.
        let end = (self.len + s.len()).min(self.bytes.len());
        self.bytes[self.len..end].copy_from_slice(&s.as_bytes()[..end - self.len]);
        self.len = end;
    }
    fn push(&mut self, c: char) {
        self.push_str(c.encode_utf8(&mut [0; 4]));
    }
}

/// `wv=` as TCEC writes it: pawns with two decimals (`0.60`, `-1.47`),
/// `M12` / `-M12` for mates.
fn write_white_view(out: &mut impl Text, eval: Eval) {
    let (negative, value) = match eval {
        Eval::Centipawns(cp) => (cp < 0, cp.unsigned_abs()),
        Eval::Mate(moves) => (moves < 0, moves.unsigned_abs()),
    };
    if negative {
        out.push('-');
    }
    let mut number = itoa::Buffer::new();
    match eval {
        Eval::Centipawns(_) => {
            out.push_str(number.format(value / 100));
            out.push('.');
            out.push(char::from(b'0' + (value % 100 / 10) as u8));
            out.push(char::from(b'0' + (value % 10) as u8));
        }
        Eval::Mate(_) => {
            out.push('M');
            out.push_str(number.format(value));
        }
    }
}

/// `wv=`'s value: pawns (`0.60`) or `M12` / `-M12`.
fn white_view(value: &[u8]) -> Option<Eval> {
    let (negative, unsigned) = match value {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, value),
    };
    if let Some(moves) = unsigned.strip_prefix(b"M") {
        let moves = i32::try_from(number(moves)?).ok()?;
        return Some(Eval::Mate(if negative { -moves } else { moves }));
    }
    // Pawns with one or two decimals, no `+`.
    let (whole, fraction) = split_decimal_at(unsigned);
    if whole.is_empty() || fraction.is_empty() || unsigned.first() == Some(&b'+') {
        return None;
    }
    exact_centipawns(value).map(Eval::Centipawns)
}

/// `mt=` / `tl=`: milliseconds (`39532`), or `HH:MM:SS` (`true`).
fn time(value: &[u8]) -> Option<(u32, bool)> {
    if value.contains(&b':') {
        return parse_clock(value).map(|ms| (ms, true));
    }
    number(value).map(|ms| (ms, false))
}

/// One to nine digits.
fn number(digits: &[u8]) -> Option<u32> {
    u32::try_from(count(digits, 9)?).ok()
}

/// One to nineteen digits.
fn long_number(digits: &[u8]) -> Option<u64> {
    count(digits, 19)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODERN: &str = "d=29, sd=32, mt=6185, tl=35993815, s=16168858, n=100020557, \
        pv=d5 e3 h5 gxh5 Nf6, tb=0, h=6.7, ph=0.0, wv=-1.47, R50=50, Rd=-11, Rr=-1000, \
        mb=+0+0+0+0+0,";
    const SEASON_10: &str = " d=28, pd=d5, mt=00:02:46, tl=01:57:28, s=14000 kN/s, \
        n=2330658606, pv=d4 d5 c4 c6, tb=0, R50=50, wv=0.24, ";

    #[test]
    fn read_into_reads_as_read_and_hands_over_the_items_left_as_text() {
        let exact = ["d=1, pd=e4, s=5, pv=e4 e5, tb=0, h=1.0, wv=0.10, R50=49", MODERN];
        for text in exact.iter().chain(&[SEASON_10, "pd=e4, d=3", "d=1,  s=2"]) {
            let mut others = b"before".to_vec();
            let keyed = read_into(text.as_bytes(), &mut others);
            assert_eq!(keyed, read(text.as_bytes()), "{text}");
            if exact.contains(text) {
                assert!(keyed.unwrap().exact, "{text}");
                let items: Vec<&[u8]> = other_items(text.as_bytes()).collect();
                assert_eq!(others, [&b"before"[..], &items.join(&b", "[..])].concat(), "{text}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn items_and_words_read_as_splitting_byte_by_byte(text in "[a-z=, \t\n\r\x0c]{0,40}") {
            let text = text.as_bytes();
            let trimmed = text.trim_ascii();
            let body = trimmed.strip_suffix(b",").unwrap_or(trimmed);
            let split: Vec<&[u8]> = body.split(|&b| b == b',').map(<[u8]>::trim_ascii).collect();
            proptest::prop_assert_eq!(items(text).collect::<Vec<_>>(), split);
            let text_str = std::str::from_utf8(text).unwrap();
            proptest::prop_assert_eq!(
                comma_split(text_str).collect::<Vec<_>>(),
                text_str.split(',').collect::<Vec<_>>()
            );
            let mut words = Vec::new();
            push_words(&mut words, text);
            let joined = text
                .split(u8::is_ascii_whitespace)
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(&b' ');
            proptest::prop_assert_eq!(words, joined);
        }
    }

    fn others(text: &str) -> String {
        let items: Vec<&str> =
            other_items(text.as_bytes()).map(|i| std::str::from_utf8(i).unwrap()).collect();
        items.join(", ")
    }

    fn written(keyed: &Keyed<'_>, layout: &Layout, text: &str) -> String {
        let notes = PlyNotes {
            depth: keyed.depth,
            seldepth: keyed.seldepth,
            nodes: keyed.nodes,
            pv: keyed.pv.map_or("", |p| std::str::from_utf8(p).unwrap()),
            eval: keyed.eval,
            emt: keyed.emt,
            clock: keyed.clock,
            text,
            ..PlyNotes::default()
        };
        let mut out = String::new();
        write(&mut out, layout, &notes);
        out
    }

    #[test]
    fn the_modern_form_is_read_into_columns_and_written_back() {
        let k = read(MODERN.as_bytes()).unwrap();
        assert_eq!(
            (k.depth, k.seldepth, k.nodes, k.eval, k.emt, k.clock),
            (
                Some(29),
                Some(32),
                Some(100_020_557),
                Some(Eval::Centipawns(-147)),
                Some(6_185),
                Some(35_993_815)
            )
        );
        assert_eq!(k.pv, Some(&b"d5 e3 h5 gxh5 Nf6"[..]));
        assert_eq!(k.layout.as_str(), "d,sd,mt,tl,s,n,pv,tb,h,ph,wv,R50,Rd,Rr,mb,");
        assert_eq!(Layout::from_text(k.layout.as_str()), Some(k.layout));
        let rest = others(MODERN);
        assert_eq!(
            rest,
            "s=16168858, tb=0, h=6.7, ph=0.0, R50=50, Rd=-11, Rr=-1000, mb=+0+0+0+0+0"
        );
        assert_eq!(written(&k, &k.layout, &rest), MODERN);
    }

    #[test]
    fn the_season_10_form_with_clock_times() {
        let k = read(SEASON_10.as_bytes()).unwrap();
        assert_eq!((k.emt, k.clock), (Some(166_000), Some(7_048_000)));
        assert_eq!(k.eval, Some(Eval::Centipawns(24)));
        assert_eq!(k.layout.as_str(), "d,pd,mt:,tl:,s,n,pv,tb,R50,wv,");
        let rest = others(SEASON_10);
        assert_eq!(rest, "pd=d5, s=14000 kN/s, tb=0, R50=50");
        assert_eq!(written(&k, &k.layout, &rest), SEASON_10.trim());
    }

    #[test]
    fn a_layout_takes_the_keys_some_comments_lack() {
        let without = "d=30, mt=100, pv=e4 e5, wv=0.10,";
        let with = "d=31, pd=e5, mt=90, pv=e5 Nf3, wv=0.12,";
        let (a, b) = (read(without.as_bytes()).unwrap(), read(with.as_bytes()).unwrap());
        let merged = a.layout.merged(&b.layout).unwrap();
        assert_eq!(merged.as_str(), "d,pd,mt,pv,wv,");
        assert_eq!(written(&a, &merged, &others(without)), without);
        assert_eq!(written(&b, &merged, &others(with)), with);
        // Keys in another order, a time written otherwise, no trailing
        // comma: no common layout.
        for other in ["mt=1, d=2, wv=0.10,", "d=1, mt=00:00:01, wv=0.10,", "d=30, wv=0.10"] {
            let o = read(other.as_bytes()).unwrap();
            assert_eq!(merged.merged(&o.layout), None, "{other}");
        }
    }

    #[test]
    fn mates_in_whites_view() {
        let k = read(b"d=40, wv=M12, pv=Qh7,").unwrap();
        assert_eq!(k.eval, Some(Eval::Mate(12)));
        assert_eq!(written(&k, &k.layout, ""), "d=40, wv=M12, pv=Qh7,");
        let k = read(b"wv=-M3").unwrap();
        assert_eq!(k.eval, Some(Eval::Mate(-3)));
        assert_eq!(written(&k, &k.layout, ""), "wv=-M3");
    }

    #[test]
    fn a_comment_in_the_writers_form_is_exact() {
        for text in [MODERN, SEASON_10, "d=40, wv=M12, pv=Qh7,", "wv=-M3", "d=0, wv=-0.05"] {
            let k = read(text.as_bytes()).unwrap();
            assert!(k.exact, "{text}");
            assert_eq!(written(&k, &k.layout, &others(text)), text.trim(), "{text}");
        }
        for text in [
            "d=029, wv=0.60",
            "d=29 , wv=0.60",
            "d=29,wv=0.60",
            "d=29,  wv=0.60",
            "d=29, wv= 0.60",
            "d=29, wv=0.6",
            "d=29, wv=-0.00",
            "d=29, pv=e4  e5",
            "d=29, pv=e4\ne5",
            "d=29, s=1  kN/s",
            "d=29, mt=1:02:03",
            "d=29, mt=00:00:01.5",
            "d=29, wv=0.60 ,",
            "d=29, s=caf\u{e9}",
        ] {
            let k = read(text.as_bytes()).unwrap_or_else(|| panic!("{text:?} not keyed"));
            assert!(!k.exact, "{text}");
        }
    }

    /// Pieces of keyed comments, put together at random below.
    const PIECES: [&str; 24] = [
        "d=", "sd=", "n=", "pv=", "wv=", "mt=", "tl=", "s=", "tb=", "0", "1", "29", "007", ".",
        "60", "M", "-", ":", "e4", " ", ", ", ",", "  ", "kN/s",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]

        #[test]
        fn an_exact_comment_is_what_the_writer_gives_back(
            pieces in proptest::collection::vec(0..PIECES.len(), 1..24),
        ) {
            let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
            if let Some(k) = read(text.as_bytes()) {
                if k.exact {
                    let rest = others(&text);
                    proptest::prop_assert_eq!(written(&k, &k.layout, &rest), text.trim());
                }
            }
        }
    }

    #[test]
    fn other_comments_are_not_keyed() {
        for text in [
            &b"book, mb=+0+0+0+0+0,"[..],
            b"mb=+0+0+0+0+0,",
            b"a fine move",
            b"[%clk 0:03:00]",
            b"=d5",
            b"d=28, a fine move",
            b"d=30, wv=0.6x",
            b"d=30, d=31",
            b"WhiteEngineOptions: Protocol=uci; Threads=104",
            b"",
        ] {
            assert_eq!(read(text), None, "{}", String::from_utf8_lossy(text));
        }
        for layout in ["d,zz:", "d,d", "d,,wv", "d,w v"] {
            assert_eq!(Layout::from_text(layout), None, "{layout}");
        }
    }
}
