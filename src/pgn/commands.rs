//! Comment commands: the `[%name value]` blocks that lichess, chess.com and
//! other tools put inside comments, such as `{ [%clk 0:03:00] }`,
//! `{[%clk 0:02:58.6]}` (tenths) and `[%eval 0.17]`, `[%eval #-4]`.
//!
//! Accepted: any number of commands per comment, any text around them,
//! spaces around the name and value; `%clk` (and `%emt`, `%egt`) as
//! `H:MM:SS` with optional fraction; `%eval` as pawns (`-1.25`) or mate
//! (`#3`, `#-4`), optionally followed by `,depth`.

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

/// The raw commands of a comment: `(name, value)` pairs, name without `%`.
pub fn raw_commands(comment: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    let mut rest = comment;
    std::iter::from_fn(move || loop {
        let start = memchr::memmem::find(rest, b"[%")?;
        let after = &rest[start + 2..];
        let end = memchr::memchr(b']', after)?;
        let body = trim(&after[..end]);
        rest = &after[end + 1..];
        let split = body.iter().position(|b| b.is_ascii_whitespace()).unwrap_or(body.len());
        let (name, value) = body.split_at(split);
        if !name.is_empty() {
            return Some((name, trim(value)));
        }
    })
}

/// The commands of a comment that this crate understands.
pub fn commands(comment: &[u8]) -> impl Iterator<Item = Command> + '_ {
    raw_commands(comment).filter_map(|(name, value)| match name {
        b"clk" | b"egt" => parse_clock(value).map(Command::Clock),
        b"emt" => parse_clock(value).map(Command::ElapsedMoveTime),
        b"eval" => parse_eval(value).map(Command::Eval),
        _ => None,
    })
}

fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(s.len());
    let end = s.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(start, |i| i + 1);
    &s[start..end]
}

/// `H:MM:SS[.fff]` (also `MM:SS`) → milliseconds.
pub fn parse_clock(value: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(value).ok()?;
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let mut seconds: u64 = 0;
    for (i, part) in whole.split(':').enumerate() {
        if i > 2 || part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        seconds = seconds.checked_mul(60)?.checked_add(part.parse().ok()?)?;
    }
    let mut millis = 0u64;
    if !fraction.is_empty() {
        if !fraction.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let digits: String = fraction.chars().chain("000".chars()).take(3).collect();
        millis = digits.parse().ok()?;
    }
    u32::try_from(seconds.checked_mul(1000)?.checked_add(millis)?).ok()
}

/// `0.17`, `-1.25`, `+3`, `#3`, `#-4`, with an optional `,depth` → eval.
pub fn parse_eval(value: &[u8]) -> Option<Eval> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
