//! Material specs (`KRP-KR`, `KR*P-KR*P`) and piece patterns
//! (`Nd5 pd6 .e4`): the text of `--material` and `--pattern`.
//!
//! A spec is White's pieces, `-`, Black's. Each side is a string of piece
//! letters in any order and either case: `Q R B N P` count one piece each,
//! `K` (at most once) may be written or left out, and `*` before a letter
//! makes that role's count a minimum: `KR*P` is a rook and any number of
//! pawns, `KRPP*P` a rook and at least two pawns. A side may be empty (a
//! bare king). A role without `*` has exactly the count written (none when
//! its letter is absent).
//!
//! A pattern is a list of squares, separated by spaces or commas, each
//! preceded by a FEN piece letter (upper case White's, lower case Black's)
//! or `.` for an empty square.

use std::fmt;

use crate::chess::material::COUNTED;
use crate::chess::{Board, Color, Material, Piece, Role, Square};

/// A spec or pattern that cannot be read: what is wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' column {column}: {message}")]
pub struct SpecError {
    /// The text read.
    pub text: String,
    /// 1-based column (in characters) of the mistake.
    pub column: usize,
    /// What is wrong there.
    pub message: String,
}

fn error(text: &str, column: usize, message: impl Into<String>) -> SpecError {
    SpecError { text: text.to_string(), column, message: message.into() }
}

/// A material condition: a count per colour and counted role, each exact
/// or a minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MaterialSpec {
    /// The counts written ([`Material::index`] order).
    pub counts: Material,
    /// `true` where the count is a minimum (`*`).
    pub open: [bool; 10],
}

impl MaterialSpec {
    /// Reads a spec (see the module docs); white space around it is
    /// ignored.
    ///
    /// # Errors
    /// [`SpecError`] at the first character that does not fit.
    pub fn parse(text: &str) -> Result<MaterialSpec, SpecError> {
        let lead = text.len() - text.trim_start().len();
        let body = text.trim();
        if body.is_empty() {
            return Err(error(text, 1, "the spec is empty (e.g. KRP-KR)"));
        }
        let mut spec = MaterialSpec { counts: Material::default(), open: [false; 10] };
        let mut color = Color::White;
        let mut king = false;
        let mut star = false;
        for (i, ch) in body.chars().enumerate() {
            // Columns count characters of the text as given.
            let column = text[..lead].chars().count() + i + 1;
            if ch == '-' {
                if star {
                    return Err(error(text, column, "'*' needs a piece letter after it (*P)"));
                }
                if color == Color::Black {
                    return Err(error(
                        text,
                        column,
                        "a second '-': a spec is White's pieces, '-', Black's (KRP-KR)",
                    ));
                }
                color = Color::Black;
                king = false;
                continue;
            }
            if ch == '*' {
                if star {
                    return Err(error(text, column, "'*' needs a piece letter after it (*P)"));
                }
                star = true;
                continue;
            }
            let role = match Role::from_char(ch) {
                Some(role) if ch.is_ascii() => role,
                _ => {
                    return Err(error(
                        text,
                        column,
                        format!("'{ch}' is not a piece letter (K Q R B N P, or * before one)"),
                    ))
                }
            };
            if role == Role::King {
                if star {
                    return Err(error(text, column, "a side has one king: '*K' means nothing"));
                }
                if king {
                    return Err(error(text, column, "a second king"));
                }
                king = true;
                continue;
            }
            let slot = Material::index(color, role);
            if std::mem::take(&mut star) {
                spec.open[slot] = true;
                continue;
            }
            spec.counts.0[slot] += 1;
            if role == Role::Pawn && spec.counts.0[slot] > 8 {
                return Err(error(text, column, "more than 8 pawns"));
            }
            if spec.counts.0[slot] > 10 {
                return Err(error(text, column, format!("more than 10 of '{ch}'")));
            }
        }
        let end = text[..lead].chars().count() + body.chars().count() + 1;
        if star {
            return Err(error(text, end - 1, "'*' needs a piece letter after it (*P)"));
        }
        if color == Color::White {
            return Err(error(
                text,
                end,
                "no '-': a spec is White's pieces, '-', Black's (KRP-KR)",
            ));
        }
        Ok(spec)
    }

    /// `true` if `m` has this material.
    #[inline]
    pub fn matches(&self, m: &Material) -> bool {
        (0..10).all(|i| {
            if self.open[i] {
                m.0[i] >= self.counts.0[i]
            } else {
                m.0[i] == self.counts.0[i]
            }
        })
    }

    /// The same spec with the colours swapped.
    pub fn swapped(&self) -> MaterialSpec {
        let mut open = [false; 10];
        open[..5].copy_from_slice(&self.open[5..]);
        open[5..].copy_from_slice(&self.open[..5]);
        MaterialSpec { counts: self.counts.swapped(), open }
    }
}

/// Writes one side's letters, strongest first (`KRPP`), with `*X` after
/// the letters of each open role.
fn write_side(
    f: &mut fmt::Formatter<'_>,
    m: &Material,
    open: &[bool; 10],
    color: Color,
) -> fmt::Result {
    f.write_str("K")?;
    for role in COUNTED.iter().rev() {
        let slot = Material::index(color, *role);
        for _ in 0..m.0[slot] {
            write!(f, "{}", role.upper_char())?;
        }
        if open[slot] {
            write!(f, "*{}", role.upper_char())?;
        }
    }
    Ok(())
}

impl fmt::Display for MaterialSpec {
    /// The spec in its canonical form: `KRP-KR`, `KR*P-KR*P`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_side(f, &self.counts, &self.open, Color::White)?;
        f.write_str("-")?;
        write_side(f, &self.counts, &self.open, Color::Black)
    }
}

/// A material written as the exact spec that matches it (`KQRRBBNNPPPPPPPP-…`).
pub fn write_material(m: &Material) -> String {
    MaterialSpec { counts: *m, open: [false; 10] }.to_string()
}

/// A piece pattern: squares with the piece (or no piece) each must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// The squares, in the order written, and what stands there (`None`:
    /// empty).
    pub squares: Vec<(Square, Option<Piece>)>,
}

impl Pattern {
    /// Reads a pattern (see the module docs).
    ///
    /// # Errors
    /// [`SpecError`] at the first character that does not fit.
    pub fn parse(text: &str) -> Result<Pattern, SpecError> {
        let chars: Vec<char> = text.chars().collect();
        let mut squares: Vec<(Square, Option<Piece>)> = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if chars[i].is_whitespace() || chars[i] == ',' {
                i += 1;
                continue;
            }
            let column = i + 1;
            let piece = match chars[i] {
                '.' => None,
                ch => match Piece::from_char(ch) {
                    Some(piece) if ch.is_ascii() => Some(piece),
                    _ => {
                        return Err(error(
                            text,
                            column,
                            format!(
                                "'{ch}' is not a piece letter (KQRBNP White's, kqrbnp Black's, \
                                 '.' an empty square)"
                            ),
                        ))
                    }
                },
            };
            let word: String =
                chars[i + 1..].iter().take_while(|c| !c.is_whitespace() && **c != ',').collect();
            let square = Square::from_ascii(word.as_bytes())
                .filter(|_| word.len() == 2)
                .ok_or_else(|| {
                    let shown =
                        if word.is_empty() { "nothing".to_string() } else { format!("'{word}'") };
                    error(text, column + 1, format!("{shown} is not a square (a1 to h8)"))
                })?;
            if let Some(p) = piece {
                if p.role == Role::Pawn && matches!(square.rank().index(), 0 | 7) {
                    return Err(error(text, column, format!("a pawn cannot stand on {word}")));
                }
            }
            if squares.iter().any(|&(s, _)| s == square) {
                return Err(error(text, column + 1, format!("{word} is named twice")));
            }
            squares.push((square, piece));
            i += 1 + word.chars().count();
        }
        if squares.is_empty() {
            return Err(error(text, 1, "the pattern is empty (e.g. \"Nd5 pd6 .e4\")"));
        }
        Ok(Pattern { squares })
    }

    /// `true` if `board` has the pattern.
    #[inline]
    pub fn matches(&self, board: &Board) -> bool {
        // By bitboards: tested at every ply of the games a search replays.
        self.squares.iter().all(|&(square, piece)| match piece {
            Some(p) => board.by_piece(p).contains(square),
            None => !board.occupied().contains(square),
        })
    }

    /// The pattern seen from the other side: colours swapped, ranks
    /// mirrored (`Nd5` becomes `nd4`).
    pub fn swapped(&self) -> Pattern {
        let squares = self
            .squares
            .iter()
            .map(|&(square, piece)| {
                let piece = piece.map(|p| Piece { color: p.color.other(), role: p.role });
                (square.flip_vertical(), piece)
            })
            .collect();
        Pattern { squares }
    }

    /// The least material a position with the pattern has.
    pub fn least_material(&self) -> Material {
        let mut m = Material::default();
        for &(_, piece) in &self.squares {
            if let Some(p) = piece.filter(|p| p.role != Role::King) {
                m.0[Material::index(p.color, p.role)] += 1;
            }
        }
        m
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &(square, piece)) in self.squares.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{}{square}", piece.map_or('.', Piece::char))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen;

    fn spec(text: &str) -> MaterialSpec {
        MaterialSpec::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn spec_error(text: &str) -> (usize, String) {
        let e = MaterialSpec::parse(text).unwrap_err();
        assert!(e.to_string().starts_with(&format!("'{text}' column {}: ", e.column)), "{e}");
        (e.column, e.message)
    }

    #[test]
    fn specs_in_any_order_kings_optional() {
        let krp_kr = spec("KRP-KR");
        assert_eq!(spec("PRK-RK"), krp_kr);
        assert_eq!(spec("RP-R"), krp_kr);
        assert_eq!(spec(" krp-kr "), krp_kr);
        assert_eq!(krp_kr.to_string(), "KRP-KR");
        assert_eq!(spec("KPPP-KPP").counts.0, [3, 0, 0, 0, 0, 2, 0, 0, 0, 0]);
        assert_eq!(spec("KQ-KRR").to_string(), "KQ-KRR");
        assert_eq!(spec("KQ-").to_string(), "KQ-K", "a bare king");
        assert_eq!(spec("-").to_string(), "K-K");
        let open = spec("KR*P-KR*P");
        assert_eq!(open.to_string(), "KR*P-KR*P");
        assert!(open.open[0] && open.open[5] && !open.open[3]);
        assert_eq!(spec("KP*PR-KR").to_string(), "KRP*P-KR");
    }

    #[test]
    fn spec_matching() {
        let m = |text: &str| spec(text).counts;
        assert!(spec("KRP-KR").matches(&m("KRP-KR")));
        assert!(!spec("KRP-KR").matches(&m("KRPP-KR")));
        assert!(!spec("KRP-KR").matches(&m("KR-KRP")));
        assert!(spec("KRP-KR").swapped().matches(&m("KR-KRP")));
        let any = spec("KR*P-KR*P");
        for yes in ["KR-KR", "KRPPP-KR", "KRP-KRPPPP"] {
            assert!(any.matches(&m(yes)), "{yes}");
        }
        for no in ["KRR-KR", "KRN-KRP", "K-KR"] {
            assert!(!any.matches(&m(no)), "{no}");
        }
        let two = spec("KRPP*P-KR");
        assert!(two.matches(&m("KRPP-KR")) && two.matches(&m("KRPPP-KR")));
        assert!(!two.matches(&m("KRP-KR")));
        assert_eq!(write_material(&Material::STANDARD), "KQRRBBNNPPPPPPPP-KQRRBBNNPPPPPPPP");
    }

    #[test]
    fn spec_errors_say_where() {
        assert_eq!(spec_error("KRP-KR-K").0, 7);
        assert!(spec_error("KRP-KR-K").1.starts_with("a second '-'"));
        assert_eq!(spec_error("Xd5"), (1, spec_error("Xd5").1));
        assert!(spec_error("Xd5").1.starts_with("'X' is not a piece letter"));
        assert_eq!(spec_error("KRP").0, 4, "past the end: the '-' is missing");
        assert!(spec_error("KRP").1.starts_with("no '-'"));
        assert_eq!(spec_error("KR*-KR").0, 4);
        assert_eq!(spec_error("KR*").0, 3);
        assert_eq!(spec_error("KKR-K").0, 2);
        assert_eq!(spec_error("K*K-K").0, 3);
        assert_eq!(spec_error("KPPPPPPPPP-K").0, 10);
        assert_eq!(spec_error("  KR-KR x").0, 8, "columns of the text as given");
        assert_eq!(spec_error("KR-KRé").0, 6);
        assert_eq!(spec_error("").0, 1);
    }

    #[test]
    fn patterns() {
        let p = Pattern::parse("Nd5 pd6, .e4").unwrap();
        assert_eq!(p.to_string(), "Nd5 pd6 .e4");
        assert_eq!(p.swapped().to_string(), "nd4 Pd3 .e5");
        assert_eq!(p.least_material().0, [0, 1, 0, 0, 0, 1, 0, 0, 0, 0]);
        let sicilian =
            fen::parse_position("rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2")
                .unwrap();
        assert!(Pattern::parse("Pe4 pc5 .d4 Ke1").unwrap().matches(sicilian.board()));
        assert!(!Pattern::parse("Pe4 pc5 .e2 pd4").unwrap().matches(sicilian.board()));
        assert!(!Pattern::parse("pe4").unwrap().matches(sicilian.board()));
    }

    #[test]
    fn pattern_errors_say_where() {
        let e = |text: &str| Pattern::parse(text).unwrap_err();
        assert_eq!(
            (e("Xd5").column, e("Xd5").message.starts_with("'X' is not a piece")),
            (1, true)
        );
        assert_eq!(e("Ni9").column, 2);
        assert_eq!(e("Ni9").to_string(), "'Ni9' column 2: 'i9' is not a square (a1 to h8)");
        assert_eq!(e("Nd5 pd").column, 6);
        assert_eq!(e("Nd5 p").message, "nothing is not a square (a1 to h8)");
        assert_eq!(e("Nd5 Pe8").column, 5);
        assert_eq!(e("Nd5 .d5").column, 6);
        assert_eq!(e(" ").column, 1);
    }
}
