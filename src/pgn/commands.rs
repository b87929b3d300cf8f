//! Comment commands: the `[%name value]` blocks that lichess, chess.com and
//! other tools put inside comments, such as `{ [%clk 0:03:00] }`,
//! `{[%clk 0:02:58.6]}` (tenths) and `[%eval 0.17]`, `[%eval #-4]`.
//!
//! Accepted: any number of commands per comment, any text around them,
//! spaces around the name and value; `%clk` and `%emt` as `H:MM:SS` with
//! optional fraction; `%eval` as pawns (`-1.25`) or mate (`#3`, `#-4`),
//! optionally followed by `,depth`.
//!
//! Two forms take a whole comment instead ([`whole_comment`]): the
//! engine-match score of cutechess and Arena (`+0.35/20 1.2s`, `-M5/30`,
//! `0.18/23 239`), or that score alone (`0.33`, `-1.20`: engine-match
//! files written by scripts), from the mover's point of view; and
//! `eval -1.4`, from White's.

/// A parsed comment command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `%clk`: the clock of the side that just moved, in milliseconds.
    Clock(u32),
    /// `%emt`: time spent on the move, in milliseconds.
    ElapsedMoveTime(u32),
    /// `%eval`: an engine evaluation from white's point of view.
    Eval(Eval),
}

/// An engine evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns, positive when white is better.
    Centipawns(i32),
    /// Mate in so many moves, negative when black mates.
    Mate(i32),
}

impl std::ops::Neg for Eval {
    type Output = Eval;

    /// The same evaluation from the other side's point of view.
    fn neg(self) -> Eval {
        match self {
            Eval::Centipawns(cp) => Eval::Centipawns(-cp),
            Eval::Mate(moves) => Eval::Mate(-moves),
        }
    }
}

/// A part of a comment: text, or a `[%name value]` command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Text between commands, trimmed, never empty.
    Text(&'a [u8]),
    /// A command: its name without `%`, its value trimmed.
    Command(&'a [u8], &'a [u8]),
}

/// The pieces of a comment in order: the text before, between and after
/// its `[%…]` blocks (trimmed, the empty ones left out) and the commands
/// (those with an empty name, `[%]`, left out too). An unclosed `[%` is
/// text.
pub fn pieces(comment: &[u8]) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = comment;
    // A command found after a text piece, given on the next call.
    let mut pending: Option<(&[u8], &[u8])> = None;
    std::iter::from_fn(move || loop {
        if let Some((name, value)) = pending.take() {
            return Some(Piece::Command(name, value));
        }
        if rest.is_empty() {
            return None;
        }
        let (text, command) = match command_start(rest) {
            Some(start) => match rest[start + 2..].iter().position(|&b| b == b']') {
                Some(end) => {
                    let body = rest[start + 2..start + 2 + end].trim_ascii();
                    let text = &rest[..start];
                    rest = &rest[start + 2 + end + 1..];
                    let split = body.iter().position(u8::is_ascii_whitespace).unwrap_or(body.len());
                    let (name, value) = body.split_at(split);
                    (text, (!name.is_empty()).then(|| (name, value.trim_ascii())))
                }
                None => (std::mem::take(&mut rest), None),
            },
            None => (std::mem::take(&mut rest), None),
        };
        pending = command;
        let text = text.trim_ascii();
        if !text.is_empty() {
            return Some(Piece::Text(text));
        }
    })
}

/// The one command of a comment that is only that (`[%clk 0:03:00]`,
/// spaces around it aside), as [`pieces`] gives it: the common case, read
/// without the general loop.
#[inline]
pub fn single_command(comment: &[u8]) -> Option<(&[u8], &[u8])> {
    let body = comment.trim_ascii().strip_prefix(b"[%")?.strip_suffix(b"]")?;
    if body.iter().any(|&b| b == b'[' || b == b']') {
        return None;
    }
    let body = body.trim_ascii();
    let split = body.iter().position(u8::is_ascii_whitespace).unwrap_or(body.len());
    let (name, value) = body.split_at(split);
    Some((name, value.trim_ascii()))
}

/// A comment that is only a clock, as [`clock_only`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockOnly {
    /// The clock in milliseconds.
    pub ms: u32,
    /// The comment, spaces around it aside, is `[%clk VALUE]` with `VALUE`
    /// as [`clock_ascii`](super::movetext::clock_ascii) writes `ms`: the
    /// movetext writer gives it back byte for byte.
    pub exact: bool,
}

/// The clock of a comment that is only `[%clk VALUE]` (spaces around it
/// aside): the form of nearly every comment of an online game, read with
/// no more than a prefix test and the clock's own digits. `None` for
/// anything else, which [`single_command`] and [`pieces`] read.
#[inline]
pub fn clock_only(comment: &[u8]) -> Option<ClockOnly> {
    let value = comment.trim_ascii().strip_prefix(b"[%clk ")?.strip_suffix(b"]")?;
    let trimmed = value.trim_ascii();
    let ms = parse_clock(trimmed)?;
    Some(ClockOnly { ms, exact: trimmed.len() == value.len() && is_written_form(value) })
}

/// Whether `value`, a clock [`parse_clock`] reads, is in the one form the
/// movetext writer gives: hours without a leading zero, two-digit minutes
/// and seconds under 60, and a fraction of one to three digits that does
/// not end in 0, or none.
fn is_written_form(value: &[u8]) -> bool {
    let (whole, fraction) = match value.iter().position(|&b| b == b'.') {
        Some(dot) => (&value[..dot], Some(&value[dot + 1..])),
        None => (value, None),
    };
    // `parse_clock` read digits and colons, at most three parts.
    let [hours @ .., b':', m, _, b':', s, _] = whole else { return false };
    let hours_ok = match hours {
        [b'0'] => true,
        [first, ..] => *first != b'0',
        [] => false,
    };
    let fraction_ok = fraction.is_none_or(|f| (1..=3).contains(&f.len()) && f[f.len() - 1] != b'0');
    hours_ok && (b'0'..=b'5').contains(m) && (b'0'..=b'5').contains(s) && fraction_ok
}

/// Where the first `[%` of `text` starts.
#[inline]
fn command_start(text: &[u8]) -> Option<usize> {
    // Comments are short (a clock, a score): a plain loop costs less than
    // setting up a vectorised search.
    text.windows(2).position(|w| w == b"[%")
}

/// The raw commands of a comment: `(name, value)` pairs, name without `%`.
fn raw_commands(comment: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    pieces(comment).filter_map(|p| match p {
        Piece::Command(name, value) => Some((name, value)),
        Piece::Text(_) => None,
    })
}

/// The command `name value` if this crate understands it.
#[inline]
pub fn command(name: &[u8], value: &[u8]) -> Option<Command> {
    match name {
        b"clk" => parse_clock(value).map(Command::Clock),
        b"emt" => parse_clock(value).map(Command::ElapsedMoveTime),
        b"eval" => parse_eval(value).map(Command::Eval),
        _ => None,
    }
}

/// The commands of a comment that this crate understands.
pub fn commands(comment: &[u8]) -> impl Iterator<Item = Command> + '_ {
    raw_commands(comment).filter_map(|(name, value)| command(name, value))
}

/// What a whole comment says when it is one of the engine forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WholeComment<'a> {
    /// cutechess `+0.35/20 1.2s` or Arena (older TCEC) `0.18/23 239
    /// (Ne5)`: the score of the side that just moved, the search depth,
    /// the time spent, and the text cutechess adds after a comma on a
    /// game's last move (`, White mates`) or the ponder move Arena writes
    /// after the time (`(Ne5)`).
    Mover {
        /// The score after the move, from the mover's point of view (a
        /// mate in moves, positive when the mover mates); `None` when the
        /// move itself mates (`+M1`).
        eval: Option<Eval>,
        /// The search depth (`/20`); `None` for a score alone.
        depth: Option<u32>,
        /// Time spent on the move, in milliseconds: `1.2s`, or a bare
        /// number of seconds (`239`).
        emt: Option<u32>,
        /// The text after the comma or the time, trimmed (never empty).
        text: Option<&'a [u8]>,
    },
    /// `eval -1.4`: an evaluation from White's point of view.
    White(Eval),
}

/// Reads a comment that is exactly one of the engine forms (spaces around
/// it aside): `[+-]SCORE/DEPTH [TIME][, TEXT]` or `… TIME (TEXT)`, the
/// score pawns with a fraction (`0.35`, `-1.20`), `M` and plies to mate
/// counted from before the move (cutechess scores the position it
/// searched: `+M3` on a move, and the mover mates on its next move, `+M1`
/// on the mating move itself, `-M4`: the opponent mates in 2), or `#` and
/// moves to mate as Arena counts them (`#43`, `-#12`: kept as written), the
/// time `1.2s` or a bare number of seconds (`239`); the score in pawns
/// alone (`0.33`: a fraction required, so that `1` or `12` stay text); or
/// `eval VALUE` with a value as `%eval` takes it. `None` for anything else
/// (`1/2`, `M3` without its depth).
pub fn whole_comment(comment: &[u8]) -> Option<WholeComment<'_>> {
    let text = comment.trim_ascii();
    // Most comments are commands or prose: out at the first byte, or at
    // the first space before any `/` (the score and depth have none).
    if !matches!(text.first(), Some(b'0'..=b'9' | b'+' | b'-' | b'M' | b'#' | b'e')) {
        return None;
    }
    if let Some(value) = text.strip_prefix(b"eval") {
        if value.first().is_some_and(u8::is_ascii_whitespace) {
            return parse_eval(value.trim_ascii()).map(WholeComment::White);
        }
        return None;
    }
    let Some(slash) = text.iter().position(|&b| b == b'/' || b.is_ascii_whitespace()) else {
        let eval = pawns_alone(text)?;
        return Some(WholeComment::Mover { eval: Some(eval), depth: None, emt: None, text: None });
    };
    if text[slash] != b'/' {
        return None;
    }
    let (score, rest) = text.split_at(slash);
    let (rest, after) = match rest.iter().position(|&b| b == b',') {
        Some(i) => (&rest[..i], Some(rest[i + 1..].trim_ascii()).filter(|t| !t.is_empty())),
        None => (rest, None),
    };
    let mut words = rest[1..].split(u8::is_ascii_whitespace).filter(|w| !w.is_empty());
    let depth = u32::try_from(count(words.next().unwrap_or_default(), 9)?).ok()?;
    let time = words.next();
    let emt = match time {
        None => None,
        Some([number @ .., b's']) => Some(parse_seconds(number)?),
        Some(number) => Some(parse_seconds(number)?),
    };
    // Arena's ponder move after the time, in parentheses.
    let ponder = match (time, after) {
        (Some(time), None) => {
            let start = time.as_ptr() as usize - rest.as_ptr() as usize + time.len();
            let tail = rest[start..].trim_ascii();
            match tail {
                [] => None,
                [b'(', .., b')'] => Some(tail),
                _ => return None,
            }
        }
        _ => None,
    };
    let (negative, score) = match score {
        [b'+', rest @ ..] => (false, rest),
        [b'-', rest @ ..] => (true, rest),
        _ => (false, score),
    };
    let eval = if let Some(plies) = score.strip_prefix(b"M") {
        let plies = small_count(plies)?;
        // After the move: the mover mates on its own plies, 1, 3, …, of
        // the count; the opponent on the even ones.
        if negative {
            Some(Eval::Mate(-(plies / 2).max(1)))
        } else {
            (plies > 1).then_some(Eval::Mate(plies / 2))
        }
    } else if let Some(moves) = score.strip_prefix(b"#") {
        let moves = small_count(moves)?;
        Some(Eval::Mate(if negative { -moves } else { moves }))
    } else {
        // A fraction is required (`1/2` is no score), and the sign was
        // read already.
        let (whole, fraction) = split_decimal(score)?;
        if whole.is_empty() || fraction.is_empty() {
            return None;
        }
        let cp = exact_centipawns(score).or_else(|| match parse_eval(score)? {
            Eval::Centipawns(cp) => Some(cp),
            Eval::Mate(_) => None,
        })?;
        Some(Eval::Centipawns(if negative { -cp } else { cp }))
    };
    Some(WholeComment::Mover { eval, depth: Some(depth), emt, text: after.or(ponder) })
}

/// One to six digits, as a number.
fn small_count(digits: &[u8]) -> Option<i32> {
    i32::try_from(count(digits, 6)?).ok()
}

/// One to `max` (at most 19) ASCII digits as a number; `None` for
/// anything else.
pub(super) fn count(text: &[u8], max: usize) -> Option<u64> {
    if text.is_empty() || text.len() > max {
        return None;
    }
    digits(text)
}

/// A comment that is only a score in pawns, as [`centipawns_only`] reads
/// it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoreOnly {
    /// The score in centipawns, as written (the mover's).
    pub cp: i32,
    /// The score is written as [`write_pawns`](super::movetext::write_pawns)
    /// writes `cp`: no `+`, no leading zero, no trailing zero in the
    /// hundredths, no `-0.0`; the movetext writer gives it back byte for
    /// byte.
    pub exact: bool,
}

/// The centipawns of a comment that is only a score in pawns with one or
/// two decimals (`0.33`, `-1.20`, `+12.5`): the form of every comment of
/// many engine-match files, read in one pass over its bytes. `None` for
/// anything else, which [`whole_comment`] reads (the same value when it is
/// a score alone).
#[inline]
pub fn centipawns_only(text: &[u8]) -> Option<ScoreOnly> {
    let (negative, plus, number) = match text {
        [b'-', rest @ ..] => (true, false, rest),
        [b'+', rest @ ..] => (false, true, rest),
        _ => (false, false, text),
    };
    let mut cp: i32 = 0;
    let mut whole = 0;
    let mut bytes = number.iter();
    loop {
        match bytes.next() {
            Some(&b @ b'0'..=b'9') if whole < 6 => {
                cp = cp * 10 + i32::from(b - b'0');
                whole += 1;
            }
            Some(b'.') if whole > 0 => break,
            _ => return None,
        }
    }
    let fraction = bytes.as_slice();
    let (tenths, hundredths, trailing_zero) = match *fraction {
        [t @ b'0'..=b'9'] => (t, b'0', false),
        [t @ b'0'..=b'9', h @ b'0'..=b'9'] => (t, h, h == b'0'),
        _ => return None,
    };
    cp = cp * 100 + i32::from(tenths - b'0') * 10 + i32::from(hundredths - b'0');
    let leading_zero = whole > 1 && number[0] == b'0';
    let exact = !(plus || leading_zero || trailing_zero || (negative && cp == 0));
    Some(ScoreOnly { cp: if negative { -cp } else { cp }, exact })
}

/// `[+-]DIGITS.DIGITS` as centipawns; `None` without a fraction or with
/// anything else.
fn pawns_alone(text: &[u8]) -> Option<Eval> {
    let unsigned = match text {
        [b'+' | b'-', rest @ ..] => rest,
        _ => text,
    };
    let (whole, fraction) = split_decimal_at(unsigned);
    if whole.is_empty() || fraction.is_empty() {
        return None;
    }
    if let Some(cp) = exact_centipawns(text) {
        return Some(Eval::Centipawns(cp));
    }
    split_decimal(unsigned)?;
    parse_eval(text)
}

/// `digits.digits` (the fraction optional) split at the point; `None` if
/// other characters appear.
fn split_decimal(text: &[u8]) -> Option<(&[u8], &[u8])> {
    let (whole, fraction) = split_decimal_at(text);
    let all_digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    (all_digits(whole) && all_digits(fraction)).then_some((whole, fraction))
}

/// Seconds as `12` or `1.25` → milliseconds (fraction cut after three
/// digits).
fn parse_seconds(text: &[u8]) -> Option<u32> {
    let (whole, fraction) = split_decimal(text)?;
    if whole.is_empty() || whole.len() > 9 {
        return None;
    }
    u32::try_from(digits(whole)? * 1000 + fraction_millis(fraction)?).ok()
}

/// `H:MM:SS[.fff]` (also `MM:SS`, `SS`) → milliseconds; digits after the
/// third of the fraction are ignored.
#[inline]
pub fn parse_clock(value: &[u8]) -> Option<u32> {
    // One loop over the bytes: a clock in every comment of a game is
    // common.
    let mut seconds: u64 = 0;
    let (mut part, mut len, mut parts) = (0u64, 0, 1);
    let mut end = value.len();
    for (i, &b) in value.iter().enumerate() {
        match b {
            b'0'..=b'9' if len < 9 => {
                part = part * 10 + u64::from(b - b'0');
                len += 1;
            }
            b':' if len > 0 && parts < 3 => {
                seconds = seconds * 60 + part;
                (part, len, parts) = (0, 0, parts + 1);
            }
            b'.' => {
                end = i;
                break;
            }
            _ => return None,
        }
    }
    if len == 0 {
        return None;
    }
    seconds = seconds * 60 + part;
    let millis = fraction_millis(value.get(end + 1..).unwrap_or(&[]))?;
    u32::try_from(seconds * 1000 + millis).ok()
}

/// `text` split at its first `.` (the fraction empty when there is none).
#[inline]
pub(super) fn split_decimal_at(text: &[u8]) -> (&[u8], &[u8]) {
    match text.iter().position(|&b| b == b'.') {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, &[]),
    }
}

/// The value of ASCII digits (at most 19), `None` if another byte
/// appears.
#[inline]
fn digits(text: &[u8]) -> Option<u64> {
    if text.len() > 19 {
        return None;
    }
    text.iter().try_fold(0u64, |n, &b| b.is_ascii_digit().then(|| n * 10 + u64::from(b - b'0')))
}

/// A fraction of a second as milliseconds (its first three digits).
#[inline]
fn fraction_millis(fraction: &[u8]) -> Option<u64> {
    if !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        fraction
            .iter()
            .take(3)
            .zip([100, 10, 1])
            .map(|(&d, unit)| u64::from(d - b'0') * unit)
            .sum(),
    )
}

/// The depth of an `%eval` value, the number after its comma (`0.17,23`
/// → 23); `None` without one.
pub fn eval_depth(value: &[u8]) -> Option<u32> {
    let comma = value.iter().position(|&b| b == b',')?;
    u32::try_from(count(value[comma + 1..].trim_ascii(), 9)?).ok()
}

/// `0.17`, `-1.25`, `+3`, `#3`, `#-4`, with an optional `,depth` → eval.
pub fn parse_eval(value: &[u8]) -> Option<Eval> {
    // Values are a few bytes: a plain loop costs less than memchr's setup.
    let head = value.iter().position(|&b| b == b',').map_or(value, |i| &value[..i]);
    if let Some(cp) = exact_centipawns(head.trim_ascii()) {
        return Some(Eval::Centipawns(cp));
    }
    let text = std::str::from_utf8(value).ok()?;
    let text = text.split(',').next()?.trim();
    if let Some(mate) = text.strip_prefix('#') {
        return mate.trim_start_matches('+').parse().ok().map(Eval::Mate);
    }
    let pawns: f64 = text.trim_start_matches('+').parse().ok()?;
    if !pawns.is_finite() || pawns.abs() > 1e6 {
        return None;
    }
    Some(Eval::Centipawns((pawns * 100.0).round() as i32))
}

/// `[+-]PAWNS[.CC]` with at most six digits of pawns and two of the
/// fraction, as exact centipawns: the form engines and lichess write, read
/// without a float (which costs several times more, on every move of an
/// analysed game). `None` for anything else, which the float reading
/// decides.
#[inline]
pub(super) fn exact_centipawns(text: &[u8]) -> Option<i32> {
    let (negative, number) = match text {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, text),
    };
    let (whole, fraction) = split_decimal_at(number);
    if whole.len() > 6 || fraction.len() > 2 || (whole.is_empty() && fraction.is_empty()) {
        return None;
    }
    let mut cp: i32 = 0;
    for &b in whole {
        cp = cp * 10 + i32::from(b.is_ascii_digit().then(|| b - b'0')?);
    }
    for i in 0..2 {
        let digit = match fraction.get(i) {
            Some(&b) => b.is_ascii_digit().then(|| b - b'0')?,
            None => 0,
        };
        cp = cp * 10 + i32::from(digit);
    }
    Some(if negative { -cp } else { cp })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centipawns_only_agrees_with_whole_comment() {
        for text in [
            "0.33",
            "-1.20",
            "+12.5",
            "0.0",
            "-0.05",
            "123456.78",
            "1234567.8",
            "1",
            "12",
            ".5",
            "1.",
            "1.234",
            "--1.2",
            "+-1.2",
            "1.2.3",
            "a1.2",
            "1.2a",
            "",
            "-",
            "0.33/20",
        ] {
            let fast = centipawns_only(text.as_bytes()).map(|s| s.cp);
            let general = match whole_comment(text.as_bytes()) {
                Some(WholeComment::Mover {
                    eval: Some(Eval::Centipawns(cp)),
                    depth: None,
                    emt: None,
                    text: None,
                }) => Some(cp),
                _ => None,
            };
            if fast.is_some() {
                assert_eq!(fast, general, "{text}");
            }
        }
        let cp = |text: &[u8]| centipawns_only(text).map(|s| s.cp);
        assert_eq!(cp(b"0.33"), Some(33));
        assert_eq!(cp(b"-1.2"), Some(-120));
        assert_eq!(cp(b"+12.05"), Some(1205));
        assert_eq!(cp(b"1.234"), None);
        assert_eq!(cp(b"12"), None);
        assert_eq!(cp(b"1234567.8"), None);
    }

    #[test]
    fn a_score_alone_is_exact_when_written_as_the_writer_writes_it() {
        for text in ["0.33", "-1.2", "12.05", "0.0", "-0.05", "123456.78", "0.5", "-3.0"] {
            let score = centipawns_only(text.as_bytes()).expect(text);
            let mut written = String::new();
            crate::pgn::movetext::write_pawns(&mut written, i64::from(score.cp));
            assert!(score.exact, "{text}");
            assert_eq!(written, text);
        }
        for text in ["+0.33", "-1.20", "0.50", "00.5", "012.3", "-0.0", "-0.00", "0.00", "+0.0"] {
            let score = centipawns_only(text.as_bytes()).expect(text);
            let mut written = String::new();
            crate::pgn::movetext::write_pawns(&mut written, i64::from(score.cp));
            assert!(!score.exact, "{text}");
            assert_ne!(written, text);
        }
    }

    proptest::proptest! {
        #[test]
        fn a_score_is_exact_exactly_when_written_back_the_same(
            sign in proptest::sample::select(vec!["", "-", "+"]),
            whole in "[0-9]{1,6}",
            fraction in "[0-9]{1,2}",
        ) {
            let text = format!("{sign}{whole}.{fraction}");
            let score = centipawns_only(text.as_bytes()).expect("a score");
            let mut written = String::new();
            crate::pgn::movetext::write_pawns(&mut written, i64::from(score.cp));
            proptest::prop_assert_eq!(score.exact, written == text, "{}", text);
        }
    }

    /// The text of a comment around its commands.
    fn text_pieces(comment: &[u8]) -> impl Iterator<Item = &[u8]> {
        pieces(comment).filter_map(|p| match p {
            Piece::Text(text) => Some(text),
            Piece::Command(..) => None,
        })
    }

    #[test]
    fn exact_and_float_readings_agree() {
        let float = |text: &str| {
            let pawns: f64 = text.trim_start_matches('+').parse().unwrap();
            (pawns * 100.0).round() as i32
        };
        for text in [
            "0",
            "0.17",
            "-0.17",
            "+3",
            "3.",
            ".5",
            "-.05",
            "-0",
            "12.5",
            "999999.99",
            "-0.1",
            "1.05",
            "0.29",
            "0.57",
            "1.15",
            "2.675",
        ] {
            let cp = match parse_eval(text.as_bytes()) {
                Some(Eval::Centipawns(cp)) => cp,
                other => panic!("{text}: {other:?}"),
            };
            assert_eq!(cp, float(text), "{text}");
        }
        assert_eq!(exact_centipawns(b"2.675"), None, "three decimals: the float decides");
        assert_eq!(exact_centipawns(b"1e2"), None);
        assert_eq!(parse_eval(b"1e2"), Some(Eval::Centipawns(10_000)));
        assert_eq!(parse_eval(b"0.35,22"), Some(Eval::Centipawns(35)));
        for not in ["", ".", "-", "+", "1.2.3", "x", "1x"] {
            assert_eq!(parse_eval(not.as_bytes()), None, "{not}");
        }
    }

    #[test]
    fn clock_only_reads_what_the_general_reading_reads() {
        for text in [
            &b"[%clk 0:03:00]"[..],
            b" [%clk 0:02:58.6] ",
            b"[%clk  1:00:00 ]",
            b"[%clk 0:03:00] more",
            b"[%clk 0:03:00] [%eval 0.2]",
            b"[%clk x]",
            b"[%clk]",
            b"[%emt 0:00:05]",
            b"text [%clk 0:01:00]",
        ] {
            let general =
                single_command(text).and_then(|(name, value)| match command(name, value) {
                    Some(Command::Clock(ms)) if name == b"clk" => Some(ms),
                    _ => None,
                });
            let only = clock_only(text).map(|c| c.ms);
            assert_eq!(only, general, "{}", String::from_utf8_lossy(text));
        }
        assert_eq!(clock_only(b"[%clk 0:02:58.6]"), Some(ClockOnly { ms: 178_600, exact: true }));
    }

    /// The form the movetext writer gives is told exactly: every other way
    /// of writing the same clock is read, and not taken for it.
    #[test]
    fn a_clock_in_the_writer_s_form_is_told_apart() {
        for text in
            ["[%clk 0:03:00]", " [%clk 10:00:05.25] ", "[%clk 0:00:00.005]", "[%clk 123:59:59.9]"]
        {
            assert!(clock_only(text.as_bytes()).is_some_and(|c| c.exact), "{text}");
        }
        for text in [
            "[%clk 00:03:00]",
            "[%clk 0:3:00]",
            "[%clk 0:03:0]",
            "[%clk 0:03:00.50]",
            "[%clk 0:03:00.]",
            "[%clk 0:03:00.1234]",
            "[%clk 0:60:00]",
            "[%clk 0:00:75]",
            "[%clk  0:03:00]",
            "[%clk 0:03:00 ]",
            "[%clk 03:00]",
            "[%clk 180]",
        ] {
            assert!(clock_only(text.as_bytes()).is_some_and(|c| !c.exact), "{text}");
        }
    }

    proptest::proptest! {
        /// A clock is taken for the writer's form exactly when the writer
        /// writes its value so.
        #[test]
        fn exact_means_what_the_writer_writes(value in "[0-9]{0,3}(:[0-9]{1,3}){0,2}(\\.[0-9]{0,4})?") {
            let text = format!("[%clk {value}]");
            if let Some(clock) = clock_only(text.as_bytes()) {
                let (written, len) = crate::pgn::movetext::clock_ascii(clock.ms);
                proptest::prop_assert_eq!(clock.exact, &written[..len] == value.as_bytes(), "{}", value);
            }
        }
    }

    #[test]
    fn lichess_and_chesscom_comments() {
        let all: Vec<Command> = commands(b" [%eval 0.17] [%clk 0:03:00] ").collect();
        assert_eq!(all, [Command::Eval(Eval::Centipawns(17)), Command::Clock(180_000)]);
        let all: Vec<Command> = commands(b"[%clk 0:02:58.6]").collect();
        assert_eq!(all, [Command::Clock(178_600)]);
        let all: Vec<Command> = commands(b"Good move [%eval #-4] and [%emt 0:00:05]").collect();
        assert_eq!(all, [Command::Eval(Eval::Mate(-4)), Command::ElapsedMoveTime(5_000)]);
        let all: Vec<Command> = commands(b"[%eval -1.25,22]").collect();
        assert_eq!(all, [Command::Eval(Eval::Centipawns(-125))]);
    }

    #[test]
    fn unknown_and_malformed_commands() {
        let raw: Vec<(&[u8], &[u8])> =
            raw_commands(b"[%cal Ge2e4,Rd7d5] [%csl Gd4] [%] [%clk").collect();
        assert_eq!(raw, [(&b"cal"[..], &b"Ge2e4,Rd7d5"[..]), (&b"csl"[..], &b"Gd4"[..])]);
        assert_eq!(commands(b"[%clk abc] [%eval x]").count(), 0);
        assert_eq!(parse_clock(b"1:00:00:00"), None);
        assert_eq!(parse_clock(b"5:07"), Some(307_000));
        assert_eq!(parse_clock(b"0:00:01.2345"), Some(1_234));
        assert_eq!(parse_clock(b"1:00:00"), Some(3_600_000));
        for bad in [&b""[..], b":1", b"1::2", b"1:2.x", b"1:-2", b"1.2.3", b"9999999999:00"] {
            assert_eq!(parse_clock(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        // Elapsed game time is no clock.
        assert_eq!(commands(b"[%egt 0:10:00]").count(), 0);
    }

    #[test]
    fn text_around_commands() {
        let pieces = |c: &'static str| {
            text_pieces(c.as_bytes()).map(|p| std::str::from_utf8(p).unwrap()).collect::<Vec<_>>()
        };
        assert!(pieces(" [%clk 0:03:00] ").is_empty());
        assert_eq!(pieces("Good move [%eval #-4] and [%emt 0:00:05]"), ["Good move", "and"]);
        assert_eq!(pieces("[%cal Ge2e4]Only[%]this "), ["Only", "this"]);
        assert_eq!(pieces("open [%clk 0:01"), ["open [%clk 0:01"]);
        assert_eq!(pieces("  plain  "), ["plain"]);
        // The quick path gives what the general one gives, or nothing.
        for (comment, single) in [
            (" [%clk 0:03:00] ", Some(("clk", "0:03:00"))),
            ("[%eval  #-4 ]", Some(("eval", "#-4"))),
            ("[% x]", Some(("x", ""))),
            ("[%]", Some(("", ""))),
            ("[%a [%b]", None),
            ("[%a] b", None),
        ] {
            let found = single_command(comment.as_bytes());
            let found = found
                .map(|(n, v)| (std::str::from_utf8(n).unwrap(), std::str::from_utf8(v).unwrap()));
            assert_eq!(found, single, "{comment}");
            let general: Vec<Piece> = super::pieces(comment.as_bytes()).collect();
            match single {
                Some(("", _)) => assert!(general.is_empty()),
                Some((n, v)) => assert_eq!(general, [Piece::Command(n.as_bytes(), v.as_bytes())]),
                None => {}
            }
        }
    }

    #[test]
    fn engine_match_comments() {
        let mover = |cp, depth, emt| {
            Some(WholeComment::Mover { eval: Some(Eval::Centipawns(cp)), depth, emt, text: None })
        };
        let mate = |m, depth, emt| {
            Some(WholeComment::Mover { eval: Some(Eval::Mate(m)), depth, emt, text: None })
        };
        assert_eq!(whole_comment(b"+0.35/20 1.2s"), mover(35, Some(20), Some(1_200)));
        assert_eq!(whole_comment(b" -0.12/18 "), mover(-12, Some(18), None));
        // Arena's time is a bare number of seconds.
        assert_eq!(whole_comment(b"0.18/23 239"), mover(18, Some(23), Some(239_000)));
        assert_eq!(whole_comment(b"-1.00/9 0.025s"), mover(-100, Some(9), Some(25)));
        // Plies to mate from before the move, as moves after it: M3 and
        // the mover mates on its next move; M1 is the mating move itself.
        assert_eq!(whole_comment(b"+M3/12 0.02s"), mate(1, Some(12), Some(20)));
        assert_eq!(whole_comment(b"+M5/30"), mate(2, Some(30), None));
        assert_eq!(whole_comment(b"-M4/30 0.5s"), mate(-2, Some(30), Some(500)));
        assert_eq!(whole_comment(b"-M2/30"), mate(-1, Some(30), None));
        // Arena's moves to mate, kept as written.
        assert_eq!(whole_comment(b"#43/26 55"), mate(43, Some(26), Some(55_000)));
        assert_eq!(whole_comment(b"-#12/40 0"), mate(-12, Some(40), Some(0)));
        assert_eq!(
            whole_comment(b"+M1/127 0.003s, White mates"),
            Some(WholeComment::Mover {
                eval: None,
                depth: Some(127),
                emt: Some(3),
                text: Some(b"White mates")
            })
        );
        assert_eq!(
            whole_comment(b"-8.11/24 5.0s, White wins by adjudication"),
            Some(WholeComment::Mover {
                eval: Some(Eval::Centipawns(-811)),
                depth: Some(24),
                emt: Some(5_000),
                text: Some(b"White wins by adjudication"),
            })
        );
        // Arena's ponder move, also after a line break.
        assert_eq!(
            whole_comment(b"0.25/26 164 \n(Ne5)"),
            Some(WholeComment::Mover {
                eval: Some(Eval::Centipawns(25)),
                depth: Some(26),
                emt: Some(164_000),
                text: Some(b"(Ne5)"),
            })
        );
        // The score alone.
        assert_eq!(whole_comment(b" 0.33 "), mover(33, None, None));
        assert_eq!(whole_comment(b"-1.20"), mover(-120, None, None));
        assert_eq!(whole_comment(b"+0.0"), mover(0, None, None));
        for not in [
            &b"33"[..],
            b".5",
            b"0.",
            b"0.33 good",
            b"None",
            b"M3",
            b"#3",
            b"1/2",
            b"+0.35/",
            b"+0.35/20 1.2m",
            b"0.00/59 0 Be5",
            b"+0.35/20 1.2s extra",
            b"M/3",
            b"#/3",
            b"+0.3x/20",
            b"Good/bad",
            b"evaluation 1.0",
            b"--0.35/20",
            b"+-0.35/20",
            b"+M/20",
            b"12... Nf6/Ng4 was better",
        ] {
            assert_eq!(whole_comment(not), None, "{}", String::from_utf8_lossy(not));
        }
    }

    #[test]
    fn eval_word_comments() {
        assert_eq!(
            whole_comment(b" eval -1.4 "),
            Some(WholeComment::White(Eval::Centipawns(-140)))
        );
        assert_eq!(whole_comment(b"eval #3"), Some(WholeComment::White(Eval::Mate(3))));
        assert_eq!(whole_comment(b"eval"), None);
        assert_eq!(whole_comment(b"eval x"), None);
        assert_eq!(whole_comment(b"evaluate 1.0"), None);
    }
}
