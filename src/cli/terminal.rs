//! Output to a terminal with the database's text made inert: a tag or a
//! comment from a hostile PGN file may hold escape sequences that would
//! move the cursor, retitle the window or ring the bell. On a terminal
//! every control character is shown in caret notation (`^[` for ESC, `^G`
//! for BEL, as `cat -v` does) and C1 controls as `<U+009B>`; pipes and
//! files get the text exactly.

use std::io::{self, Write};

/// The colour sequences this program writes itself (bold table headers,
/// highlighted squares): kept, since they only colour text.
const OWN_SEQUENCES: [&[u8]; 3] = [b"\x1b[1m", b"\x1b[0m", b"\x1b[30;43m"];

/// A writer that escapes control characters when `on`.
pub struct Escaping<W: Write> {
    inner: W,
    on: bool,
}

impl<W: Write> Escaping<W> {
    /// Escapes what goes to `inner` when `on` (stdout is a terminal).
    pub fn new(inner: W, on: bool) -> Escaping<W> {
        Escaping { inner, on }
    }
}

/// `true` for a byte shown escaped: C0 controls but tab and line feed,
/// and DEL. A carriage return is kept before a line feed.
fn is_control(b: u8) -> bool {
    (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7f
}

impl<W: Write> Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.on {
            return self.inner.write(buf);
        }
        let mut from = 0;
        let mut i = 0;
        while i < buf.len() {
            let b = buf[i];
            let skip = if b == 0x1b {
                OWN_SEQUENCES.iter().find(|s| buf[i..].starts_with(s)).map(|s| s.len())
            } else if b == b'\r' && buf.get(i + 1) == Some(&b'\n') {
                Some(1)
            } else {
                None
            };
            if let Some(n) = skip {
                i += n;
                continue;
            }
            // C1 controls, U+0080 to U+009F, are 0xC2 0x80..=0x9F in UTF-8.
            let c1 = b == 0xc2 && buf.get(i + 1).is_some_and(|&n| (0x80..=0x9f).contains(&n));
            if !is_control(b) && !c1 {
                i += 1;
                continue;
            }
            self.inner.write_all(&buf[from..i])?;
            if c1 {
                write!(self.inner, "<U+{:04X}>", buf[i + 1])?;
                i += 2;
            } else {
                let shown = if b == 0x7f { b'?' } else { b + 0x40 };
                self.inner.write_all(&[b'^', shown])?;
                i += 1;
            }
            from = i;
        }
        self.inner.write_all(&buf[from..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &[u8], on: bool) -> Vec<u8> {
        let mut out = Escaping::new(Vec::new(), on);
        out.write_all(text).unwrap();
        out.inner
    }

    #[test]
    fn control_characters_are_shown_not_sent() {
        let text = "[Event \"x\x1b]0;owned\x07\"]\r\n1. e4 {\x1b[2J\u{9b}31m} *\r\r\n".as_bytes();
        assert_eq!(
            String::from_utf8(shown(text, true)).unwrap(),
            "[Event \"x^[]0;owned^G\"]\r\n1. e4 {^[[2J<U+009B>31m} *^M\r\n"
        );
        assert_eq!(shown(text, false), text, "a file gets the text exactly");
    }

    #[test]
    fn its_own_colours_pass() {
        let text = b"\x1b[1mmove\x1b[0m \x1b[30;43mP\x1b[0m \x1b[31m";
        assert_eq!(shown(text, true), b"\x1b[1mmove\x1b[0m \x1b[30;43mP\x1b[0m ^[[31m");
        assert_eq!("é ♔ — ü".as_bytes(), shown("é ♔ — ü".as_bytes(), true), "text stays");
    }
}
