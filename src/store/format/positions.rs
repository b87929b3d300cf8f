//! The position index's stored form, as both sides read it: how a
//! segment table lays out its rows ([`Layout`], `gpm` and `ply_move`
//! packed by [`pack_gpm`] and [`pack_ply_move`]), the registered segments
//! ([`segments`]), and the SQL that reads a key's hits from them and
//! makes the `positions` view. `store::segments` writes and merges the
//! segments; the queries and the Parquet export read them through this.

use rusqlite::Connection;

use crate::db::GameId;

/// How a segment table stores its rows (`position_segments.layout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `(hash, game_id, ply_move)`, `ply_move` from [`pack_ply_move`]:
    /// the segments written before schema 12.
    Split,
    /// `(hash, gpm)`, `gpm` from [`pack_gpm`]: one column and about a
    /// byte less per row than [`Layout::Split`].
    Packed,
}

impl Layout {
    /// The layout recorded as `code` in `position_segments.layout`.
    pub(crate) fn from_code(code: i64) -> rusqlite::Result<Layout> {
        match code {
            0 => Ok(Layout::Split),
            1 => Ok(Layout::Packed),
            _ => Err(corrupt(format!("{code} is not a position segment layout"))),
        }
    }

    /// The code recorded in `position_segments.layout`.
    pub(crate) fn code(self) -> i64 {
        match self {
            Layout::Split => 0,
            Layout::Packed => 1,
        }
    }

    /// The key columns, in key order.
    pub(crate) fn key(self) -> &'static [&'static str] {
        match self {
            Layout::Split => &["hash", "game_id", "ply_move"],
            Layout::Packed => &["hash", "gpm"],
        }
    }

    /// The `game_id` of a row, in SQL.
    pub(crate) fn game_id_sql(self) -> String {
        match self {
            Layout::Split => "game_id".to_string(),
            Layout::Packed => format!("(gpm >> {GAME_SHIFT} & {GAME_MASK})"),
        }
    }

    /// The `ply` and `next_move` (NULL at the final position) of a row, in
    /// SQL: [`unpack_ply_move`] or [`unpack_gpm`].
    pub(crate) fn ply_and_move_sql(self) -> String {
        match self {
            Layout::Split => {
                format!("ply_move >> {MOVE_BITS}, nullif(ply_move & {MOVE_MASK}, {NO_MOVE_CODE})")
            }
            Layout::Packed => format!(
                "((gpm >> {MOVE_BITS} & {PLY_LOW_MASK}) | (gpm >> {PLY_HIGH_SHIFT} << {PLY_LOW_BITS})), \
                 nullif(gpm & {MOVE_MASK}, {NO_MOVE_CODE})"
            ),
        }
    }
}

/// A registered segment.
#[derive(Debug, Clone)]
pub(crate) struct Segment {
    /// The table, checked by [`checked_name`].
    pub(crate) name: String,
    /// `true` if the table has a `fen` column.
    pub(crate) with_fens: bool,
    /// How its rows are stored.
    pub(crate) layout: Layout,
}

/// Low bits of `ply_move` and `gpm` that hold the next move; the ply is
/// above them. Every move code fits ([`crate::notation::uci::Uci::code`]
/// stays below 2¹⁵).
pub const MOVE_BITS: u32 = 15;
/// The move bits of `ply_move` and `gpm`.
pub(crate) const MOVE_MASK: i64 = (1 << MOVE_BITS) - 1;
/// The move bits of a final position's `ply_move` (no next move): all
/// ones, a code no move has.
pub const NO_MOVE_CODE: i64 = MOVE_MASK;

/// The `ply_move` column of a [`Layout::Split`] segment row: `ply` above
/// the [`MOVE_BITS`] low bits, which hold `next_move`'s code
/// ([`crate::notation::uci::Uci::code`]), or [`NO_MOVE_CODE`] for `None`
/// (the final position). With 15 bits, `ply * 32768 + code`; stored
/// databases depend on it.
pub fn pack_ply_move(ply: u32, next_move: Option<u16>) -> i64 {
    let code = next_move.map_or(NO_MOVE_CODE, i64::from);
    debug_assert!(next_move.is_none() || code < NO_MOVE_CODE, "move code {code} does not fit");
    (i64::from(ply) << MOVE_BITS) | code
}

/// The ply and next move packed by [`pack_ply_move`].
pub fn unpack_ply_move(ply_move: i64) -> (u32, Option<u16>) {
    let code = ply_move & MOVE_MASK;
    ((ply_move >> MOVE_BITS) as u32, (code != NO_MOVE_CODE).then_some(code as u16))
}

/// Where the game id starts in `gpm`: above the move and the ply's low
/// [`PLY_LOW_BITS`] bits.
pub const GAME_SHIFT: u32 = 24;
/// Bits of the ply below the game id.
pub(crate) const PLY_LOW_BITS: u32 = GAME_SHIFT - MOVE_BITS;
/// The ply's low bits, once shifted down.
pub(crate) const PLY_LOW_MASK: i64 = (1 << PLY_LOW_BITS) - 1;
/// The game id's bits, once shifted down (every [`GameId`] fits).
pub(crate) const GAME_MASK: i64 = u32::MAX as i64;
/// Where the ply's high bits (`ply >> 9`, at most 127) start in `gpm`:
/// above the 32 bits of the game id.
pub(crate) const PLY_HIGH_SHIFT: u32 = GAME_SHIFT + 32;

/// The `gpm` column of a [`Layout::Packed`] segment row: from the low bits
/// up, the next move's code (as in [`pack_ply_move`]), the ply's low 9
/// bits, the game id (32 bits), the ply's high bits. Under 2⁴⁷, a 6-byte
/// SQLite integer, for the first 512 plies of games 1 to 2²³ − 1; 8
/// bytes otherwise; never negative. Stored databases depend on it.
pub fn pack_gpm(game_id: GameId, ply: u16, next_move: Option<u16>) -> i64 {
    let ply = u32::from(ply);
    (i64::from(ply >> PLY_LOW_BITS) << PLY_HIGH_SHIFT)
        | (i64::from(game_id) << GAME_SHIFT)
        | pack_ply_move(ply & PLY_LOW_MASK as u32, next_move)
}

/// The game, ply and next move packed by [`pack_gpm`].
pub fn unpack_gpm(gpm: i64) -> (GameId, u16, Option<u16>) {
    let (low, next_move) = unpack_ply_move(gpm & ((1 << GAME_SHIFT) - 1));
    let ply = ((gpm >> PLY_HIGH_SHIFT) << PLY_LOW_BITS) as u32 | low;
    (GameId::new((gpm >> GAME_SHIFT & GAME_MASK) as u32), ply as u16, next_move)
}

/// A database whose position index is not as this importer writes it.
pub(crate) fn corrupt(message: String) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        Some(message),
    )
}

/// What the names of segment tables made since schema 19 start with, so
/// that a listing of the tables (the `sqlite3` shell's `.tables`) shows them
/// after the tables and views users query. Older segments keep their names.
const SEGMENT_NAME_START: &str = "z_";

/// The table name of segment `id` of the `kind` (`positions`, `dedupe`).
pub(crate) fn segment_name(kind: &str, id: i64) -> String {
    format!("{SEGMENT_NAME_START}{kind}_{id:06}")
}

/// The SQL condition that `name` is a segment table of `kind`, either form.
pub(crate) fn segment_glob(kind: &str) -> String {
    format!("(name GLOB '{kind}_[0-9]*' OR name GLOB '{SEGMENT_NAME_START}{kind}_[0-9]*')")
}

/// A segment table's name as read from the database, checked to be one the
/// importer makes (`z_{prefix}_` or, before schema 19, `{prefix}_`, then
/// digits): segment names are spliced into SQL text, and a database made
/// elsewhere could hold any text there.
pub(crate) fn checked_name(prefix: &str, name: String) -> rusqlite::Result<String> {
    let unprefixed = name.strip_prefix(SEGMENT_NAME_START).unwrap_or(&name);
    let digits = unprefixed.strip_prefix(prefix).and_then(|rest| rest.strip_prefix('_'));
    if digits.is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())) {
        return Ok(name);
    }
    Err(corrupt(format!("{name:?} is not the name of a pgnindex {prefix} segment")))
}

/// The registered segments (of `level`, or all), in id order.
pub(crate) fn segments(conn: &Connection, level: Option<i64>) -> rusqlite::Result<Vec<Segment>> {
    let mut st = conn.prepare(
        "SELECT name, with_fens, layout FROM position_segments \
         WHERE ?1 IS NULL OR level = ?1 ORDER BY id",
    )?;
    let rows = st.query_map([level], |r| {
        Ok(Segment {
            name: checked_name("positions", r.get(0)?)?,
            with_fens: r.get(1)?,
            layout: Layout::from_code(r.get(2)?)?,
        })
    })?;
    rows.collect()
}

/// The condition that keeps a segment row of a game that was not deleted
/// (`deleted_games` lists the ids of deleted games whose rows may remain),
/// for rows whose game id is `game_id` (SQL). The view, and the merges
/// that copy segments, apply it to every row: while `deleted_games` is
/// empty (its test runs once a statement), no row looks it up, which
/// takes a scan of the view from 2.3 s to 1.7 s on 20.7 M rows.
pub fn live(game_id: &str) -> String {
    format!(
        "(NOT EXISTS (SELECT 1 FROM deleted_games) \
         OR {game_id} NOT IN (SELECT game_id FROM deleted_games))"
    )
}

/// One arm of the view: the rows of live games.
pub(crate) fn view_arm(segment: &Segment) -> String {
    let fen = if segment.with_fens { "fen" } else { "NULL" };
    let game_id = segment.layout.game_id_sql();
    format!(
        "SELECT hash, {game_id}, {}, {fen} FROM {} WHERE {}",
        segment.layout.ply_and_move_sql(),
        segment.name,
        live(&game_id)
    )
}

/// One statement per registered segment that lists its rows as `(hash,
/// gpm, fen)`, `gpm` as [`pack_gpm`] packs it (a [`Layout::Split`] row
/// repacked), `fen` NULL in segments without one, ordered by `hash`: the
/// segment read in its key's order, without a sort, and nothing computed
/// per row ([`unpack_gpm`] and the merge of the segments are the
/// caller's). The rows of deleted games are in: the caller leaves out the
/// ids of `deleted_games`. `condition` gives, for a row's game id in SQL,
/// a further condition (` AND …`, or empty). `None` for a database whose
/// segments record no layout (before schema 12) or that has none: the
/// view is to be read then.
///
/// # Errors
/// SQLite's error reading the segment list.
pub fn rows_by_hash_sql(
    conn: &Connection,
    condition: &dyn Fn(&str) -> String,
) -> rusqlite::Result<Option<Vec<String>>> {
    let Some(segments) = layouts(conn)? else { return Ok(None) };
    let arms: Vec<String> = segments
        .iter()
        .map(|segment| {
            let gpm = gpm_sql(segment.layout);
            let fen = if segment.with_fens { "fen" } else { "NULL" };
            format!(
                "SELECT hash, {gpm}, {fen} FROM {} WHERE 1{} ORDER BY hash",
                segment.name,
                condition(&segment.layout.game_id_sql())
            )
        })
        .collect();
    Ok(Some(arms))
}

/// The first ply whose [`Layout::Packed`] row no longer sorts by game:
/// its high bits sit above the game id.
pub const LONG_PLY: u32 = 1 << PLY_LOW_BITS;

/// The registered segments, if there are any and they record their
/// layout (schema 12 on).
pub(crate) fn layouts(conn: &Connection) -> rusqlite::Result<Option<Vec<Segment>>> {
    let Ok(mut st) =
        conn.prepare("SELECT name, with_fens, layout FROM position_segments ORDER BY id")
    else {
        return Ok(None);
    };
    let segments = st
        .query_map([], |r| {
            Ok(Segment {
                name: checked_name("positions", r.get(0)?)?,
                with_fens: r.get(1)?,
                layout: Layout::from_code(r.get(2)?)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<Segment>>>()?;
    Ok((!segments.is_empty()).then_some(segments))
}

/// A statement that lists the rows of one key (`?1`), unordered, each as
/// its `gpm` ([`unpack_gpm`]): a packed segment's column as stored,
/// without the view's three computed columns per row. `None` as for
/// [`ordered_hits_sql`].
pub fn packed_hits_sql(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let Some(segments) = layouts(conn)? else { return Ok(None) };
    let arms: Vec<String> = segments
        .iter()
        .map(|segment| {
            let gpm = gpm_sql(segment.layout);
            format!(
                "SELECT {gpm} FROM {} WHERE hash = ?1 AND {}",
                segment.name,
                live(&segment.layout.game_id_sql())
            )
        })
        .collect();
    Ok(Some(arms.join(" UNION ALL ")))
}

/// A segment's rows as `gpm` values ([`unpack_gpm`]), whatever its layout.
pub(crate) fn gpm_sql(layout: Layout) -> String {
    match layout {
        Layout::Packed => "gpm".to_string(),
        Layout::Split => format!(
            "ply_move >> {} << {PLY_HIGH_SHIFT} | game_id << {GAME_SHIFT} | (ply_move & {})",
            GAME_SHIFT,
            (1 << GAME_SHIFT) - 1
        ),
    }
}

/// The condition on a segment's key that keeps its rows of plies below
/// [`LONG_PLY`] (`below`) or from it on: in key order, a key's rows below
/// it come by game, each game's by ply.
pub(crate) fn short_plies_sql(layout: Layout, below: bool) -> String {
    let op = if below { "<" } else { ">=" };
    match layout {
        Layout::Packed => format!("gpm {op} {}", 1i64 << PLY_HIGH_SHIFT),
        Layout::Split => format!("ply_move {op} {}", i64::from(LONG_PLY) << MOVE_BITS),
    }
}

/// A statement that lists the rows of live games of one key (`?1`) at
/// plies from [`LONG_PLY`] on, each as its `gpm`, unordered; only of games
/// below `below` when given. `None` as for [`ordered_hits_sql`].
pub fn long_hits_sql(conn: &Connection, below: Option<GameId>) -> rusqlite::Result<Option<String>> {
    let Some(segments) = layouts(conn)? else { return Ok(None) };
    let arms: Vec<String> = segments
        .iter()
        .map(|segment| {
            format!(
                "SELECT {} FROM {} WHERE hash = ?1 AND {} AND {}{}",
                gpm_sql(segment.layout),
                segment.name,
                short_plies_sql(segment.layout, false),
                live(&segment.layout.game_id_sql()),
                games_below_sql(segment.layout, below)
            )
        })
        .collect();
    Ok(Some(arms.join(" UNION ALL ")))
}

/// The condition (` AND …`, or empty) that keeps a segment's rows of games
/// below `below`, for rows of plies from [`LONG_PLY`] on.
pub(crate) fn games_below_sql(layout: Layout, below: Option<GameId>) -> String {
    let Some(below) = below else { return String::new() };
    format!(" AND {} < {}", layout.game_id_sql(), i64::from(below))
}

/// The condition that keeps a segment's rows of plies below [`LONG_PLY`]
/// and, when given, of games below `below`. In a packed segment, one upper
/// bound on `gpm`: SQLite bounds the key's range by one of two, and tests
/// the other on every row of the range.
pub(crate) fn short_rows_sql(layout: Layout, below: Option<GameId>) -> String {
    match (layout, below) {
        (Layout::Packed, Some(below)) => format!("gpm < {}", i64::from(below) << GAME_SHIFT),
        _ => format!("{}{}", short_plies_sql(layout, true), games_below_sql(layout, below)),
    }
}

/// A statement that lists the rows of live games of one key (`?1`) at plies
/// above `after` (all without it) and below [`LONG_PLY`], each as its
/// `gpm`, segment after segment, each segment's in key order (a game's
/// rows together, lowest ply first); only of games below `below` when
/// given. SQLite tests the ply of every row of the key (in the range of
/// `below`), but only the few that pass reach the caller. `None` as for
/// [`ordered_hits_sql`].
pub fn hits_after_sql(
    conn: &Connection,
    after: Option<u32>,
    below: Option<GameId>,
) -> rusqlite::Result<Option<String>> {
    let Some(segments) = layouts(conn)? else { return Ok(None) };
    let arms: Vec<String> = segments
        .iter()
        .map(|segment| {
            let ply = match segment.layout {
                Layout::Packed => format!("(gpm >> {MOVE_BITS} & {PLY_LOW_MASK})"),
                Layout::Split => format!("(ply_move >> {MOVE_BITS})"),
            };
            let after = after.map_or(String::new(), |after| format!(" AND {ply} > {after}"));
            format!(
                "SELECT {} FROM {} WHERE hash = ?1 AND {}{after} AND {}",
                gpm_sql(segment.layout),
                segment.name,
                short_rows_sql(segment.layout, below),
                live(&segment.layout.game_id_sql()),
            )
        })
        .collect();
    Ok(Some(arms.join(" UNION ALL ")))
}

/// How [`last_hits_sql`] reads one segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastHitsSql {
    /// Lists the rows of live games of one key at plies below
    /// [`LONG_PLY`], the highest game ids first (a game's rows together,
    /// highest ply first), each as its `gpm`: the parameters are the key,
    /// the filter's (as for [`ordered_hits_sql`]) and the most rows to
    /// read. In a packed segment the key's rows are read backwards from
    /// their end, so the cost is the rows read, whatever the key's total.
    pub rows: String,
    /// The highest `gpm` of the key (parameter) in the segment, NULL when
    /// it has none: its game is the highest the segment may list, found
    /// by one seek. `None` for a segment of the split layout, whose `gpm`
    /// is computed.
    pub highest: Option<String>,
}

/// How to read each segment for the games with the highest ids that
/// reach a key. `None` as for [`ordered_hits_sql`].
pub fn last_hits_sql(
    conn: &Connection,
    table: &str,
    filter: &str,
) -> rusqlite::Result<Option<Vec<LastHitsSql>>> {
    let Some(segments) = layouts(conn)? else { return Ok(None) };
    let statements = segments
        .iter()
        .map(|segment| {
            let game_id = segment.layout.game_id_sql();
            let join = if filter.is_empty() {
                String::new()
            } else {
                format!(" JOIN {table} AS g ON g.id = {game_id}")
            };
            let rows = format!(
                "SELECT {} AS k FROM {} AS p{join} WHERE p.hash = ? AND {} AND {}{filter} \
                 ORDER BY k DESC LIMIT ?",
                gpm_sql(segment.layout),
                segment.name,
                short_plies_sql(segment.layout, true),
                live(&game_id)
            );
            let highest = (segment.layout == Layout::Packed)
                .then(|| format!("SELECT max(gpm) FROM {} WHERE hash = ?", segment.name));
            LastHitsSql { rows, highest }
        })
        .collect();
    Ok(Some(statements))
}

/// A statement that lists one game's rows (`?2`, deleted or not) of one key
/// (`?1`) at plies below [`LONG_PLY`], each as its `gpm`: a seek per
/// segment. `None` as for [`ordered_hits_sql`].
pub fn game_hits_sql(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let Some(segments) = layouts(conn)? else { return Ok(None) };
    let arms: Vec<String> = segments
        .iter()
        .map(|segment| {
            let game = match segment.layout {
                Layout::Packed => {
                    format!("gpm >= ?2 << {GAME_SHIFT} AND gpm < (?2 + 1) << {GAME_SHIFT}")
                }
                Layout::Split => {
                    format!("game_id = ?2 AND ply_move < {}", i64::from(LONG_PLY) << MOVE_BITS)
                }
            };
            format!(
                "SELECT {} FROM {} WHERE hash = ?1 AND {game}",
                gpm_sql(segment.layout),
                segment.name
            )
        })
        .collect();
    Ok(Some(arms.join(" UNION ALL ")))
}

/// Statements that list the rows of one key (every `?` of an arm, the
/// key first, then `filter`'s parameters) as `(game_id, ply, k)`. The
/// first, for the plies below [`LONG_PLY`], in `(game_id, ply)` order,
/// reads each [`Layout::Packed`] segment in its key's order (`k` is its
/// `gpm`), so that SQLite merges the segments as streams (the view,
/// ordered by its computed `game_id`, would sort every segment's rows
/// first). The second, unordered, has the plies from [`LONG_PLY`] on
/// (in a packed segment a seek past the others). `filter` (`AND …`) may
/// name the columns of the game's row in `table` (`games`, or `game_rows`
/// from schema 16) as `g.`: the games are joined then. Also the
/// number of arms (each takes the parameters once); `None` for a database
/// whose segments record no layout (before schema 12: `ORDER BY game_id`
/// on the view streams there) or that has none.
pub fn ordered_hits_sql(
    conn: &Connection,
    table: &str,
    filter: &str,
) -> rusqlite::Result<Option<(String, String, usize)>> {
    let Some(segments) = layouts(conn)? else { return Ok(None) };
    let (mut short_arms, mut long_arms) = (Vec::new(), Vec::new());
    for segment in &segments {
        let game_id = segment.layout.game_id_sql();
        // The column whose values from `bound` on are the long plies.
        let (k, ply, column, bound) = match segment.layout {
            Layout::Split => (
                format!("game_id << {GAME_SHIFT} | (ply_move & {})", (1 << GAME_SHIFT) - 1),
                format!("ply_move >> {MOVE_BITS}"),
                "ply_move",
                i64::from(LONG_PLY) << MOVE_BITS,
            ),
            Layout::Packed => (
                "gpm".to_string(),
                format!("((gpm >> {MOVE_BITS} & {PLY_LOW_MASK}) | (gpm >> {PLY_HIGH_SHIFT} << {PLY_LOW_BITS}))"),
                "gpm",
                1i64 << PLY_HIGH_SHIFT,
            ),
        };
        let join = if filter.is_empty() {
            String::new()
        } else {
            format!(" JOIN {table} AS g ON g.id = {game_id}")
        };
        let arm = |range: &str| {
            format!(
                "SELECT {game_id} AS game_id, {ply} AS ply, {k} AS k FROM {} AS p{join} \
                 WHERE p.hash = ? AND {range} AND {}{filter}",
                segment.name,
                live(&game_id)
            )
        };
        short_arms.push(arm(&format!("{column} < {bound}")));
        long_arms.push(arm(&format!("{column} >= {bound}")));
    }
    Ok(Some((
        format!("{} ORDER BY 3", short_arms.join(" UNION ALL ")),
        long_arms.join(" UNION ALL "),
        segments.len(),
    )))
}

/// The `CREATE VIEW` statement of `positions` over the registered
/// segments.
pub(crate) fn view_sql(conn: &Connection) -> rusqlite::Result<String> {
    let arms: Vec<String> = segments(conn, None)?.iter().map(view_arm).collect();
    let body = if arms.is_empty() {
        "SELECT NULL, NULL, NULL, NULL, NULL WHERE 0".to_string()
    } else {
        arms.join(" UNION ALL ")
    };
    Ok(format!("CREATE VIEW positions (hash, game_id, ply, next_move, fen) AS {body}"))
}
