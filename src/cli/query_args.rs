//! Arguments shared by the query commands (database, position, header
//! filters, output format, board diagram) and the helpers they share
//! (opening the database, stdout, colour).

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::{Args, ValueEnum};
use rusqlite::Connection;

use pgnindex::chess::Position;
use pgnindex::db;
use pgnindex::notation::diagram::{Diagram, Pieces, Style};
use pgnindex::notation::fen;
use pgnindex::notation::material::{MaterialSpec, Pattern};
use pgnindex::notation::uci::Uci;
use pgnindex::query::filter::{DateBound, Filters, Outcome};
use pgnindex::query::format::{RowFormat, TableStyle};
use pgnindex::query::material::{self, MaterialSearch};
use pgnindex::query::search::Search;
use pgnindex::query::target::Target;

use super::terminal::Escaping;

/// `--db`.
#[derive(Debug, Clone, Default, Args)]
pub struct DbArgs {
    /// The database (default: $PGNINDEX_DB, else pgnindex.db). Query
    /// commands never create one.
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

impl DbArgs {
    /// The path asked for.
    pub fn path(&self) -> PathBuf {
        db::default_path(self.db.as_deref())
    }

    /// Opens the database read-only, saying on stderr if an import of it
    /// has not finished ([`note_unfinished`]).
    pub fn open(&self) -> anyhow::Result<(Connection, PathBuf)> {
        let path = self.path();
        db::set_busy_handler(wait_saying_why);
        let conn = db::open_read_only(&path)?;
        note_unfinished(&conn, &path);
        Ok((conn, path))
    }

    /// Opens the database read-only for a material or pattern search with
    /// `search`'s filters: refuses a filter the database predates
    /// ([`check_schema`]), and notes on stderr when games stored before
    /// the material index are to be replayed.
    pub fn open_checked(&self, search: &Search) -> anyhow::Result<(Connection, PathBuf)> {
        let (conn, path) = self.open()?;
        check_schema(&conn, search)?;
        match material::backlog(&conn)? {
            Some(i64::MAX) => say!(
                "pgnindex: note: {} predates the material index: every game is replayed for \
                 this search (slower); importing its sources into a new database indexes them",
                path.display()
            ),
            Some(last) => say!(
                "pgnindex: note: the games stored before the material index (ids up to {last}) \
                 are replayed for this search (slower)"
            ),
            None => {}
        }
        Ok((conn, path))
    }

    /// Opens the database read-only for `search`: refuses a position search
    /// its index cannot answer, and notes on stderr what the answer leaves
    /// out ([`check_index`]).
    pub fn open_for(&self, search: &Search) -> anyhow::Result<(Connection, PathBuf)> {
        let (conn, path) = self.open()?;
        check_index(&conn, search)?;
        check_schema(&conn, search)?;
        Ok((conn, path))
    }
}

/// Refuses a position search that the index of `conn` cannot answer
/// (imported with `--no-positions`, or `--max-ply` short of the position),
/// and prints a note on stderr when the answer may leave games out.
pub fn check_index(conn: &Connection, search: &Search) -> anyhow::Result<()> {
    if let Some(note) = search.index_coverage(conn)?.note() {
        say!("pgnindex: note: {note}");
    }
    Ok(())
}

/// Refuses a filter on a column the database of `conn` predates
/// ([`Filters::sql_for`]).
pub fn check_schema(conn: &Connection, search: &Search) -> anyhow::Result<()> {
    search.filters.sql_for(conn)?;
    Ok(())
}

/// The position a query is about (at most one of `--fen`, `--epd`,
/// `--moves`).
#[derive(Debug, Clone, Default, Args)]
pub struct PositionArgs {
    /// Games that pass through this position: a FEN, full or its first
    /// four fields (fewer are refused). Positions match by placement, side
    /// to move, castling and en-passant rights (not the clocks).
    #[arg(long, value_name = "FEN", conflicts_with_all = ["epd", "moves"], allow_hyphen_values = true)]
    pub fen: Option<String>,
    /// The position of an EPD line (operations ignored).
    #[arg(long, value_name = "EPD", conflicts_with = "moves", allow_hyphen_values = true)]
    pub epd: Option<String>,
    /// The position after these moves, by any move order: SAN in any
    /// language, UCI or English descriptive notation, move numbers optional
    /// (with or without their dot), e.g. "1. e4 c5 2. Nf3" or "P-K4 P-QB4".
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: Option<String>,
    /// Play --moves from this FEN instead of the standard start.
    #[arg(long, value_name = "FEN", requires = "moves", allow_hyphen_values = true)]
    pub from_fen: Option<String>,
}

impl PositionArgs {
    /// The position asked for, if any.
    pub fn target(&self) -> anyhow::Result<Option<Target>> {
        Ok(match (&self.fen, &self.epd, &self.moves) {
            (Some(fen), _, _) => Some(Target::from_fen(fen)?),
            (_, Some(epd), _) => Some(Target::from_epd(epd)?),
            (_, _, Some(moves)) => Some(Target::from_moves(moves, self.from_fen.as_deref())?),
            _ => None,
        })
    }
}

/// Header filters. Names match case-insensitively as substrings.
#[derive(Debug, Clone, Default, Args)]
pub struct FilterArgs {
    /// White's name contains NAME (case-insensitive; `%`, `_` and quotes
    /// are plain text).
    #[arg(long, value_name = "NAME", help_heading = "Filters")]
    pub white: Option<String>,
    /// Black's name contains NAME.
    #[arg(long, value_name = "NAME", help_heading = "Filters")]
    pub black: Option<String>,
    /// Either player's name contains NAME.
    #[arg(long, value_name = "NAME", help_heading = "Filters")]
    pub player: Option<String>,
    /// The event contains TEXT.
    #[arg(long, value_name = "TEXT", help_heading = "Filters")]
    pub event: Option<String>,
    /// The site contains TEXT.
    #[arg(long, value_name = "TEXT", help_heading = "Filters")]
    pub site: Option<String>,
    /// ECO code (B90), prefix (B, B9) or inclusive range (A00-B99), of the
    /// ECO tag; for a game without the tag, of its opening by position.
    #[arg(long, value_name = "ECO", help_heading = "Filters")]
    pub eco: Option<String>,
    /// The opening by position contains TEXT (case-insensitive), e.g.
    /// "sicilian" or "najdorf": the name of the last named position of
    /// the mainline (lichess opening names), not the Opening tag.
    #[arg(long, value_name = "TEXT", help_heading = "Filters")]
    pub opening: Option<String>,
    /// The result: 1-0, 0-1, 1/2-1/2 or *, White's view (with --player,
    /// --won, --lost and --drew take the player's side).
    #[arg(long, value_name = "RESULT", help_heading = "Filters", allow_hyphen_values = true)]
    pub result: Option<String>,
    /// The --player NAME won, as White or as Black.
    #[arg(long, help_heading = "Filters", conflicts_with_all = ["lost", "drew"])]
    pub won: bool,
    /// The --player NAME lost, as White or as Black.
    #[arg(long, help_heading = "Filters", conflicts_with = "drew")]
    pub lost: bool,
    /// The --player NAME's game was drawn.
    #[arg(long, help_heading = "Filters")]
    pub drew: bool,
    /// Both players rated at least N (games without both ratings are left
    /// out).
    #[arg(long, value_name = "N", help_heading = "Filters")]
    pub min_elo: Option<i64>,
    /// Both players rated at most N.
    #[arg(long, value_name = "N", help_heading = "Filters")]
    pub max_elo: Option<i64>,
    /// Played on or after DATE (YYYY, YYYY.MM or YYYY.MM.DD).
    #[arg(long, value_name = "DATE", help_heading = "Filters")]
    pub since: Option<String>,
    /// Played on or before DATE (a partial date includes its whole period).
    #[arg(long, value_name = "DATE", help_heading = "Filters")]
    pub until: Option<String>,
    /// At least N half-moves in the mainline.
    #[arg(long, value_name = "N", help_heading = "Filters")]
    pub min_plies: Option<u32>,
    /// The speed of the time control: ultrabullet, bullet, blitz, rapid,
    /// classical or correspondence.
    ///
    /// Lichess's classes of the estimated game length, the base time plus
    /// 40 increments (300+2: 380 s, blitz): under 30 s ultrabullet, 3 min
    /// bullet, 8 min blitz, 25 min rapid, then classical; correspondence
    /// for days per move (1/86400) or an event or time control that says
    /// so. Games whose time control is unknown never match.
    ///
    /// Several speeds, comma-separated (blitz,rapid), match any of them.
    #[arg(long, value_name = "SPEED", help_heading = "Filters", value_delimiter = ',')]
    pub speed: Vec<String>,
    /// Lichess's rating groups of the two players' average rating, rounded
    /// down: 0, 1000, 1200, 1400, 1600, 1800, 2000, 2200 and 2500 start
    /// them (a rating names its group). Comma-separated: any of them.
    /// Games without both ratings are left out.
    #[arg(long, value_name = "RATING", help_heading = "Filters", value_delimiter = ',')]
    pub rating_group: Vec<String>,
    /// --white, --black and --player match whole names (still
    /// case-insensitive), not parts of names.
    #[arg(long, help_heading = "Filters")]
    pub exact_names: bool,
    /// Rated or casual games, as lichess's events say ("Rated Blitz
    /// game"); a game whose event says neither is rated when both players
    /// have a rating.
    #[arg(long, value_name = "MODE", help_heading = "Filters")]
    pub mode: Option<String>,
    /// Masters games, as lichess's masters explorer holds them: both
    /// players rated, averaging 2200 or more, not played online (a site
    /// that is an address, a domain or an internet server; an event
    /// naming lichess's rated or casual).
    #[arg(long, help_heading = "Filters")]
    pub masters: bool,
}

impl FilterArgs {
    /// The checked filters.
    pub fn filters(&self) -> anyhow::Result<Filters> {
        let filters = Filters {
            white: self.white.clone(),
            black: self.black.clone(),
            player: self.player.clone(),
            event: self.event.clone(),
            site: self.site.clone(),
            eco: self.eco.as_deref().map(str::parse).transpose()?,
            opening: self.opening.clone(),
            result: self.result.as_deref().map(str::parse).transpose()?,
            outcome: [
                (self.won, Outcome::Won),
                (self.lost, Outcome::Lost),
                (self.drew, Outcome::Drew),
            ]
            .into_iter()
            .find_map(|(set, outcome)| set.then_some(outcome)),
            min_elo: self.min_elo,
            max_elo: self.max_elo,
            since: self.since.as_deref().map(|d| DateBound::parse("since", d)).transpose()?,
            until: self.until.as_deref().map(|d| DateBound::parse("until", d)).transpose()?,
            min_plies: self.min_plies,
            speeds: self
                .speed
                .iter()
                .map(|s| s.parse())
                .collect::<Result<_, _>>()
                .map_err(|e| anyhow::anyhow!("--speed: {e}"))?,
            rating_groups: self.rating_group.iter().map(|r| r.parse()).collect::<Result<_, _>>()?,
            exact_names: self.exact_names,
            mode: self.mode.as_deref().map(str::parse).transpose()?,
            masters: self.masters,
            before: None,
            exclude: Vec::new(),
        };
        filters.check()?;
        Ok(filters)
    }
}

/// Material and pattern conditions (`find`, `export`, `explore`).
#[derive(Debug, Clone, Default, Args)]
pub struct MaterialArgs {
    /// Games whose mainline reaches a position with exactly this material:
    /// White's pieces, '-', Black's, e.g. KRP-KR or KQ-KRR (letters K Q R B
    /// N P in any order, kings optional); '*' before a letter makes its
    /// count a minimum: KR*P-KR*P is a rook each and any pawns.
    #[arg(
        long,
        value_name = "SPEC",
        help_heading = "Material and patterns",
        conflicts_with_all = ["fen", "epd", "moves"],
        allow_hyphen_values = true
    )]
    pub material: Option<String>,
    /// The material (and the pattern, mirrored) also matches with the
    /// colours swapped.
    #[arg(long, help_heading = "Material and patterns")]
    pub either_color: bool,
    /// The material must hold for at least N consecutive positions of the
    /// mainline (default 1: a capture sequence passing through it counts);
    /// the first ply found is the first of such a run.
    #[arg(
        long,
        value_name = "N",
        help_heading = "Material and patterns",
        requires = "material",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub material_plies: Option<u32>,
    /// Games whose mainline reaches a position with these pieces on these
    /// squares: "Nd5 pd6 .e4" (upper case White's, lower case Black's, '.'
    /// an empty square); with --material, in the same position.
    #[arg(
        long,
        value_name = "PATTERN",
        help_heading = "Material and patterns",
        conflicts_with_all = ["fen", "epd", "moves"],
        allow_hyphen_values = true
    )]
    pub pattern: Option<String>,
}

impl MaterialArgs {
    /// `true` if any of the material or pattern flags is given.
    pub fn is_set(&self) -> bool {
        self.material.is_some()
            || self.pattern.is_some()
            || self.either_color
            || self.material_plies.is_some()
    }

    /// The material or pattern search asked for, with `filters`; `None`
    /// when neither flag is given.
    pub fn search(&self, filters: &Filters) -> anyhow::Result<Option<MaterialSearch>> {
        if self.material.is_none() && self.pattern.is_none() {
            if self.either_color {
                anyhow::bail!("--either-color: give --material or --pattern too");
            }
            return Ok(None);
        }
        let spec = self
            .material
            .as_deref()
            .map(MaterialSpec::parse)
            .transpose()
            .map_err(|e| anyhow::anyhow!("--material: {e}"))?;
        let pattern = self
            .pattern
            .as_deref()
            .map(Pattern::parse)
            .transpose()
            .map_err(|e| anyhow::anyhow!("--pattern: {e}"))?;
        Ok(Some(MaterialSearch {
            spec,
            pattern,
            either_color: self.either_color,
            min_plies: self.material_plies.unwrap_or(1),
            filters: filters.clone(),
        }))
    }
}

/// `--board` and how the board is drawn (`find`, `explore`, `show`).
#[derive(Debug, Clone, Default, Args)]
pub struct BoardArgs {
    /// Draw the position as a board: rank 8 on top, the last move's
    /// squares highlighted on a colour terminal, then the side to move,
    /// castling rights, en-passant square and last move.
    ///
    /// Figurines (♔ White, ♚ Black, · an empty square) when stdout is a
    /// terminal and the locale (LC_ALL, else LC_CTYPE, else LANG) is UTF-8;
    /// else letters. With --format json: a "board" object with the FEN of
    /// the position, its last move in UCI and whether it is flipped, no
    /// drawing.
    #[arg(long, help_heading = "Board")]
    pub board: bool,
    /// Draw the board in letters, as python-chess prints one (`r n b q k b
    /// n r`, `.` an empty square), on any terminal.
    #[arg(long, requires = "board", help_heading = "Board")]
    pub ascii: bool,
    /// Draw the board from Black's side: rank 1 on top, files h to a.
    #[arg(long, requires = "board", help_heading = "Board")]
    pub flip: bool,
}

impl BoardArgs {
    /// The style of the board on stdout.
    pub fn style(&self) -> Style {
        let figurines =
            !self.ascii && io::stdout().is_terminal() && utf8_locale(|name| std::env::var_os(name));
        Style {
            pieces: if figurines { Pieces::Figurines } else { Pieces::Letters },
            color: color(),
            flipped: self.flip,
        }
    }

    /// The board of `position`, reached by `last_move`, as drawn on
    /// stdout.
    pub fn draw(&self, position: &Position, last_move: Option<Uci>) -> String {
        Diagram::new(position, last_move, self.style()).to_string()
    }

    /// The board of `position` in JSON: its FEN, whether it is seen from
    /// Black's side and the last move (UCI or null), keys in that
    /// (alphabetical) order.
    pub fn json(&self, position: &Position, last_move: Option<Uci>) -> serde_json::Value {
        serde_json::json!({
            "fen": fen::write(position),
            "last_move": last_move.map(|m| m.to_string()),
            "flipped": self.flip,
        })
    }
}

/// `true` if the locale that decides the character set (the first of
/// `LC_ALL`, `LC_CTYPE` and `LANG` set and not empty, as `var` gives them)
/// names UTF-8; none set is the C locale, ASCII.
pub fn utf8_locale(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    let locale =
        ["LC_ALL", "LC_CTYPE", "LANG"].into_iter().filter_map(var).find(|value| !value.is_empty());
    locale.is_some_and(|value| {
        let value = value.to_string_lossy().to_ascii_lowercase();
        value.contains("utf-8") || value.contains("utf8")
    })
}

/// Rows as a table, CSV or JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RowsFormat {
    /// Aligned columns for a terminal.
    Table,
    /// Comma-separated values with a header row.
    Csv,
    /// One JSON array of objects.
    Json,
}

impl From<RowsFormat> for RowFormat {
    fn from(f: RowsFormat) -> RowFormat {
        match f {
            RowsFormat::Table => RowFormat::Table,
            RowsFormat::Csv => RowFormat::Csv,
            RowsFormat::Json => RowFormat::Json,
        }
    }
}

/// `true` if stdout may be coloured: a terminal, and `NO_COLOR` unset or
/// empty.
pub fn color() -> bool {
    io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The table style for stdout, cutting text at `max_width` characters
/// and fitting lines to the terminal's width.
pub fn table_style(max_width: usize) -> TableStyle {
    TableStyle { color: color(), max_width, fit_width: terminal_width() }
}

/// The width of the terminal stdout is, if it is one: `COLUMNS` when set to
/// a positive number (as `ls` reads it), else the terminal's own size.
/// `None` for output that is not a terminal, which is never fitted.
fn terminal_width() -> Option<usize> {
    if !io::stdout().is_terminal() {
        return None;
    }
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok());
    columns
        .filter(|&c| c > 0)
        .or_else(|| console::Term::stdout().size_checked().map(|(_, cols)| usize::from(cols)))
}

/// `text` with control characters (a terminal's escape sequences, which a
/// file name or a tag may hold) shown as `\u{FFFD}`: the database's text
/// never drives the terminal.
pub fn printable(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { '\u{FFFD}' } else { c }).collect()
}

/// Buffered, locked stdout, with control characters escaped when it is a
/// terminal ([`Escaping`]).
pub fn stdout() -> Escaping<io::BufWriter<io::StdoutLock<'static>>> {
    let terminal = io::stdout().is_terminal();
    Escaping::new(io::BufWriter::with_capacity(1 << 16, io::stdout().lock()), terminal)
}

/// How long a query waits for a writer that holds the database alone (an
/// import creating it, or `--exclusive`), and how often it looks again.
const WAIT: Duration = Duration::from_secs(30);
const WAIT_STEP: Duration = Duration::from_millis(20);

/// SQLite's busy handler for the query commands: waits up to [`WAIT`] as
/// the busy timeout did, and after a second says once on stderr why.
pub fn wait_saying_why(tries: i32) -> bool {
    static SAID: AtomicBool = AtomicBool::new(false);
    let waited = WAIT_STEP * u32::try_from(tries).unwrap_or(0);
    if waited >= WAIT {
        return false;
    }
    if waited >= Duration::from_secs(1) && !SAID.swap(true, Ordering::Relaxed) {
        say!(
            "pgnindex: note: waiting for a writer that holds the database alone (an import \
             creating it, or --exclusive); up to {} s",
            WAIT.as_secs()
        );
    }
    std::thread::sleep(WAIT_STEP);
    true
}

/// Says once, on stderr, that an import of the database at `path` has not
/// finished (running, or stopped): the answers cover the games its
/// committed batches hold, and the same command finishes it.
pub fn note_unfinished(conn: &Connection, path: &Path) {
    let unfinished: Option<(i64, i64)> = conn
        .query_row(
            "SELECT count(*), coalesce(sum(games), 0) FROM sources WHERE finished_at IS NULL",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok();
    if let Some((sources, games)) = unfinished.filter(|&(n, _)| n > 0) {
        say!(
            "pgnindex: note: {}: an import has not finished (running, or stopped: run it \
             again to finish it); answering from the {} of {} it has stored",
            path.display(),
            super::words::counted(games as u64, "game"),
            super::words::counted(sources as u64, "unfinished input"),
        );
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use pgnindex::db::Speed;

    use super::*;

    #[derive(Debug, Parser)]
    struct T {
        #[command(flatten)]
        position: PositionArgs,
        #[command(flatten)]
        filters: FilterArgs,
    }

    fn parse(args: &[&str]) -> Result<T, clap::Error> {
        T::try_parse_from(std::iter::once("t").chain(args.iter().copied()))
    }

    #[derive(Debug, Parser)]
    struct B {
        #[command(flatten)]
        board: BoardArgs,
    }

    #[test]
    fn board_flags() {
        let parse = |args: &[&str]| B::try_parse_from(std::iter::once("t").chain(args.to_vec()));
        let b = parse(&["--board", "--ascii", "--flip"]).unwrap().board;
        assert!(b.board && b.ascii && b.flip);
        let b = parse(&[]).unwrap().board;
        assert!(!b.board && !b.ascii && !b.flip);
        assert!(parse(&["--ascii"]).is_err(), "--ascii draws a board: it needs --board");
        assert!(parse(&["--flip"]).is_err(), "--flip needs --board");
        let style = parse(&["--board", "--ascii", "--flip"]).unwrap().board.style();
        assert_eq!((style.pieces, style.flipped), (Pieces::Letters, true));
        let json = parse(&["--board"]).unwrap().board.json(&Position::new(), None);
        assert_eq!(
            json.to_string(),
            r#"{"fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","flipped":false,"last_move":null}"#
        );
    }

    #[test]
    fn the_locale_that_decides_the_character_set() {
        let utf8 = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, String)> =
                vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            utf8_locale(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.into()))
        };
        assert!(utf8(&[("LANG", "en_US.UTF-8")]));
        assert!(utf8(&[("LANG", "de_DE.utf8")]));
        assert!(utf8(&[("LC_CTYPE", "C.UTF-8"), ("LANG", "C")]));
        assert!(!utf8(&[]), "no locale is the C locale");
        assert!(!utf8(&[("LANG", "C")]));
        assert!(!utf8(&[("LC_ALL", "POSIX"), ("LANG", "en_US.UTF-8")]), "LC_ALL decides");
        assert!(!utf8(&[("LC_CTYPE", "fr_FR.ISO-8859-1"), ("LANG", "fr_FR.UTF-8")]));
        assert!(utf8(&[("LC_ALL", ""), ("LANG", "en_GB.UTF-8")]), "an empty one does not count");
    }

    #[test]
    fn one_position_at_most() {
        assert!(parse(&["--fen", "8/8/8/8/8/8/8/K6k w - -"]).is_ok());
        assert!(parse(&["--moves", "e4", "--from-fen", "startpos"]).is_ok());
        assert!(parse(&["--fen", "x", "--moves", "e4"]).is_err());
        assert!(parse(&["--epd", "x", "--moves", "e4"]).is_err());
        assert!(parse(&["--fen", "x", "--epd", "y"]).is_err());
        assert!(parse(&["--from-fen", "x"]).is_err(), "--from-fen needs --moves");
        let t = parse(&["--moves", "1. e4 c5"]).unwrap();
        assert!(t.position.target().unwrap().is_some());
        assert!(parse(&[]).unwrap().position.target().unwrap().is_none());
    }

    #[test]
    fn filters_are_checked() {
        let t = parse(&["--white", "Carlsen", "--eco", "B9", "--result", "1-0", "--since", "2020"])
            .unwrap();
        let f = t.filters.filters().unwrap();
        assert_eq!(f.white.as_deref(), Some("Carlsen"));
        assert_eq!(f.eco.unwrap().last, "B99");
        let bad = |args: &[&str]| parse(args).unwrap().filters.filters().unwrap_err().to_string();
        assert!(bad(&["--eco", "Z00"]).starts_with("--eco: 'Z00'"));
        assert!(bad(&["--result", "2-0"]).starts_with("--result: '2-0'"));
        assert!(bad(&["--until", "yesterday"]).starts_with("--until: 'yesterday'"));
        assert!(bad(&["--player", ""]).starts_with("--player: the name is empty"));
        assert_eq!(bad(&["--opening", " "]), "--opening: the name is empty");
        let opening = parse(&["--opening", "Sicilian"]).unwrap().filters.filters().unwrap();
        assert_eq!(opening.opening.as_deref(), Some("Sicilian"));
        assert!(parse(&["--min-elo", "abc"]).is_err());
        assert!(parse(&["--result", "0-1"]).is_ok(), "a result may start with a digit or -");
        let speed = |s| parse(&["--speed", s]).unwrap().filters.filters().unwrap().speeds;
        assert_eq!(speed("blitz"), [Speed::Blitz]);
        assert_eq!(speed("UltraBullet"), [Speed::UltraBullet]);
        assert_eq!(speed("correspondence,bullet"), [Speed::Correspondence, Speed::Bullet]);
        assert!(parse(&[]).unwrap().filters.filters().unwrap().speeds.is_empty());
        assert!(bad(&["--speed", "fast"]).starts_with("--speed: 'fast' is not a speed"));
        let outcome = |args: &[&str]| parse(args).unwrap().filters.filters().unwrap().outcome;
        assert_eq!(outcome(&["--player", "x", "--won"]), Some(Outcome::Won));
        assert_eq!(outcome(&["--player", "x", "--lost"]), Some(Outcome::Lost));
        assert_eq!(outcome(&["--player", "x", "--drew"]), Some(Outcome::Drew));
        assert_eq!(outcome(&["--player", "x"]), None);
        assert!(bad(&["--won"]).starts_with("--won needs --player NAME"));
        assert!(parse(&["--player", "x", "--won", "--lost"]).is_err(), "one outcome at most");
        assert!(parse(&["--player", "x", "--lost", "--drew"]).is_err());
    }
}
