//! The position index as segments: each import batch writes its position
//! rows, sorted by key, into a new WITHOUT ROWID table (appending to an
//! empty B-tree is the fastest insert SQLite has, and leaves full pages);
//! the `positions` view is the UNION ALL of the segments, so that
//! `WHERE hash = ?` searches each segment by its primary key. When
//! [`FANOUT`] segments of one level accumulate, they are merged, in key
//! order, into one segment of the next level (a log-structured merge):
//! every row is rewritten once per level, never per batch.
//!
//! A merge copies in transactions of `MERGE_CHUNK` rows into a table
//! that is not yet registered, then swaps it in with one small
//! transaction; a kill during the copy leaves an orphan table that
//! [`drop_orphans`] removes at the next import.

use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};

use crate::db::GameId;

/// Segments of one level merged together.
pub const FANOUT: usize = 16;
/// Rows copied per transaction while merging.
const MERGE_CHUNK: i64 = 4 << 20;
/// Position rows per INSERT statement: one statement run per row costs
/// more in binding, stepping and cursor setup than the B-tree insert.
const ROWS_PER_INSERT: usize = 128;

/// A position row waiting for its batch's commit (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct PendingPosition {
    /// Polyglot key as SQLite's signed integer.
    pub hash: i64,
    /// The game.
    pub game_id: GameId,
    /// Half-moves before the position.
    pub ply: u16,
    /// [`crate::notation::uci::Uci::code`] of the next move, [`NO_MOVE`]
    /// at the end.
    pub next_move: u16,
}

/// `next_move` of a final position (stored as NULL).
pub const NO_MOVE: u16 = u16::MAX;

/// The FENs of a batch, in (game, ply) order, for `--with-fens`.
pub type Fens = Vec<(GameId, u16, String)>;

/// A segment table. `ply_move` packs the ply and the next move into one
/// integer ([`pack_ply_move`]): one column less in every row (a
/// record-header byte) and a 3-byte integer for the first 256 plies
/// instead of a 1–2 byte ply and a 2-byte move — about 1.3 bytes of 22 per
/// row. The view unpacks it.
fn table_sql(name: &str, with_fens: bool) -> String {
    format!(
        "CREATE TABLE {name} (hash INTEGER NOT NULL, game_id INTEGER NOT NULL, \
         ply_move INTEGER NOT NULL{}, PRIMARY KEY (hash, game_id, ply_move)) WITHOUT ROWID",
        if with_fens { ", fen TEXT" } else { "" }
    )
}

/// Low bits of `ply_move` that hold the next move; the ply is above them.
/// Every move code fits ([`crate::notation::uci::Uci::code`] stays below
/// 2¹⁵).
pub const MOVE_BITS: u32 = 15;
/// The move bits of `ply_move`.
const MOVE_MASK: i64 = (1 << MOVE_BITS) - 1;
/// The move bits of a final position's `ply_move` (no next move): all
/// ones, a code no move has.
pub const NO_MOVE_CODE: i64 = MOVE_MASK;

/// The `ply_move` column of a segment row: `ply` above the [`MOVE_BITS`]
/// low bits, which hold `next_move`'s code
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

/// [`unpack_ply_move`] in SQL: the `ply` and `next_move` (NULL at the
/// final position) columns of the `positions` view, from `ply_move`.
fn unpack_ply_move_sql() -> String {
    format!("ply_move >> {MOVE_BITS}, nullif(ply_move & {MOVE_MASK}, {NO_MOVE_CODE})")
}

impl PendingPosition {
    /// The packed `ply_move` column.
    fn ply_move(self) -> i64 {
        let next_move = (self.next_move != NO_MOVE).then_some(self.next_move);
        pack_ply_move(u32::from(self.ply), next_move)
    }
}

/// The next segment's id and table name.
fn next_segment(conn: &Connection) -> rusqlite::Result<(i64, String)> {
    let id: i64 =
        conn.query_row("SELECT coalesce(max(id), 0) + 1 FROM position_segments", [], |r| r.get(0))?;
    Ok((id, format!("positions_{id:06}")))
}

/// Writes `rows` (any order; sorted here) as a new level-0 segment and
/// rewrites the view. Runs inside the caller's transaction.
pub fn write_segment(
    conn: &Connection,
    rows: &mut [PendingPosition],
    fens: &Fens,
) -> rusqlite::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    rows.sort_unstable();
    let with_fens = !fens.is_empty();
    let (id, name) = next_segment(conn)?;
    conn.execute_batch(&table_sql(&name, with_fens))?;
    insert_rows(conn, &name, if with_fens { 4 } else { 3 }, rows, |st, at, p| {
        st.raw_bind_parameter(at, p.hash)?;
        st.raw_bind_parameter(at + 1, p.game_id)?;
        st.raw_bind_parameter(at + 2, p.ply_move())?;
        if with_fens {
            let fen = fens
                .binary_search_by_key(&(p.game_id, p.ply), |f| (f.0, f.1))
                .ok()
                .map(|i| fens[i].2.as_str());
            st.raw_bind_parameter(at + 3, fen)?;
        }
        Ok(())
    })?;
    conn.execute(
        "INSERT INTO position_segments (id, name, level, rows, with_fens) VALUES (?1, ?2, 0, ?3, ?4)",
        params![id, name, rows.len() as i64, with_fens],
    )?;
    rewrite_view(conn)
}

/// A segment table's name as read from the database, checked to be one the
/// importer makes (`{prefix}_` and digits): segment names are spliced into
/// SQL text, and a database made elsewhere could hold any text there.
pub(super) fn checked_name(prefix: &str, name: String) -> rusqlite::Result<String> {
    let digits = name.strip_prefix(prefix).and_then(|rest| rest.strip_prefix('_'));
    if digits.is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())) {
        return Ok(name);
    }
    Err(rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        Some(format!("{name:?} is not the name of a pgnindex {prefix} segment")),
    ))
}

/// The segments: (name, with_fens), in id order.
fn segments(conn: &Connection, level: Option<i64>) -> rusqlite::Result<Vec<(String, bool)>> {
    let mut st = conn.prepare(
        "SELECT name, with_fens FROM position_segments WHERE ?1 IS NULL OR level = ?1 ORDER BY id",
    )?;
    let rows = st.query_map([level], |r| Ok((checked_name("positions", r.get(0)?)?, r.get(1)?)))?;
    rows.collect()
}

/// The condition that keeps a segment row of a game that was not deleted
/// (`deleted_games` lists the ids of deleted games whose rows may remain).
/// One lookup in a table that is empty or small: the view, and the merges
/// that copy segments, apply it to every row.
pub(super) const LIVE: &str = "game_id NOT IN (SELECT game_id FROM deleted_games)";

/// One arm of the view: the rows of live games.
fn view_arm(name: &str, with_fens: bool) -> String {
    let fen = if with_fens { "fen" } else { "NULL" };
    format!("SELECT hash, game_id, {}, {fen} FROM {name} WHERE {LIVE}", unpack_ply_move_sql())
}

/// One arm of a merge: the stored columns.
fn merge_arm(name: &str, with_fens: bool) -> String {
    let fen = if with_fens { "fen" } else { "NULL" };
    format!("SELECT hash, game_id, ply_move, {fen} AS fen FROM {name}")
}

/// The `CREATE VIEW` statement of `positions` over the registered
/// segments.
fn view_sql(conn: &Connection) -> rusqlite::Result<String> {
    let arms: Vec<String> =
        segments(conn, None)?.iter().map(|(name, fens)| view_arm(name, *fens)).collect();
    let body = if arms.is_empty() {
        "SELECT NULL, NULL, NULL, NULL, NULL WHERE 0".to_string()
    } else {
        arms.join(" UNION ALL ")
    };
    Ok(format!("CREATE VIEW positions (hash, game_id, ply, next_move, fen) AS {body}"))
}

/// Rewrites `positions` as the union of the registered segments.
pub(super) fn rewrite_view(conn: &Connection) -> rusqlite::Result<()> {
    let create = view_sql(conn)?;
    conn.execute_batch(&format!("DROP VIEW IF EXISTS positions; {create};"))
}

/// Rewrites `positions` if it is not the view of the registered segments
/// as this version writes it (a database migrated from a version whose
/// view kept the rows of deleted games). Runs outside any transaction.
pub fn refresh_view(conn: &Connection) -> rusqlite::Result<()> {
    let current: Option<String> = conn
        .query_row(
            "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'positions'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    if current.as_deref() == Some(view_sql(conn)?.as_str()) {
        return Ok(());
    }
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    rewrite_view(&tx)?;
    tx.commit()
}

/// Drops segment tables that no registered segment names (left by a merge
/// that was cut). The caller holds the import lock.
pub fn drop_orphans(conn: &Connection) -> rusqlite::Result<()> {
    drop_unregistered(conn, "position_segments", "positions")
}

/// Drops the tables `{prefix}_NNNNNN` that the registry table `registry`
/// does not name, in one transaction.
pub(super) fn drop_unregistered(
    conn: &Connection,
    registry: &str,
    prefix: &str,
) -> rusqlite::Result<()> {
    let orphans: Vec<String> = conn
        .prepare(&format!(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB '{prefix}_[0-9]*' \
             AND name NOT IN (SELECT name FROM {registry})"
        ))?
        .query_map([], |r| checked_name(prefix, r.get(0)?))?
        .collect::<Result<_, _>>()?;
    if orphans.is_empty() {
        return Ok(());
    }
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    for name in orphans {
        tx.execute_batch(&format!("DROP TABLE {name}"))?;
    }
    tx.commit()
}

/// Inserts `rows` into `table`, whose columns are `width` parameters that
/// `bind(statement, first parameter, row)` binds, with INSERT statements of
/// [`ROWS_PER_INSERT`] rows. Runs inside the caller's transaction.
pub(super) fn insert_rows<T>(
    conn: &Connection,
    table: &str,
    width: usize,
    rows: &[T],
    bind: impl Fn(&mut rusqlite::Statement<'_>, usize, &T) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    let one = format!("({})", vec!["?"; width].join(","));
    let sql = |n: usize| {
        format!("INSERT OR ROLLBACK INTO {table} VALUES {}", vec![one.as_str(); n].join(","))
    };
    let run = |st: &mut rusqlite::Statement<'_>, chunk: &[T]| -> rusqlite::Result<()> {
        for (i, row) in chunk.iter().enumerate() {
            bind(st, width * i + 1, row)?;
        }
        st.raw_execute().map(drop)
    };
    let mut full = conn.prepare(&sql(ROWS_PER_INSERT))?;
    let mut chunks = rows.chunks_exact(ROWS_PER_INSERT);
    for chunk in &mut chunks {
        run(&mut full, chunk)?;
    }
    if !chunks.remainder().is_empty() {
        run(&mut conn.prepare(&sql(chunks.remainder().len()))?, chunks.remainder())?;
    }
    Ok(())
}

/// Merges every level that holds [`FANOUT`] segments or more, lowest
/// first. Runs outside any transaction (it makes its own, and calls
/// `after_commit` after each: the writer's checkpoint hook).
pub fn compact(
    conn: &Connection,
    after_commit: &dyn Fn(&Connection) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    for level in 0.. {
        let found = segments(conn, Some(level))?;
        if found.len() < FANOUT {
            let higher: i64 = conn.query_row(
                "SELECT count(*) FROM position_segments WHERE level > ?1",
                [level],
                |r| r.get(0),
            )?;
            if higher == 0 {
                return Ok(());
            }
            continue;
        }
        merge(conn, level, &found, after_commit)?;
    }
    Ok(())
}

/// Merges `parts` (the segments of `level`) into one segment of the next
/// level.
fn merge(
    conn: &Connection,
    level: i64,
    parts: &[(String, bool)],
    after_commit: &dyn Fn(&Connection) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    let with_fens = parts.iter().any(|p| p.1);
    let (id, name) = next_segment(conn)?;
    conn.execute_batch(&table_sql(&name, with_fens))?;
    let arms: Vec<String> = parts.iter().map(|(n, f)| merge_arm(n, *f)).collect();
    let columns =
        if with_fens { "hash, game_id, ply_move, fen" } else { "hash, game_id, ply_move" };
    let key = ["hash", "game_id", "ply_move"];
    let total = copy_merged(conn, &name, columns, &key, &arms, after_commit)?;
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    for (part, _) in parts {
        tx.execute("DELETE FROM position_segments WHERE name = ?1", [part])?;
        tx.execute_batch(&format!("DROP TABLE {part}"))?;
    }
    tx.execute(
        "INSERT INTO position_segments (id, name, level, rows, with_fens) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![id, name, level + 1, total, with_fens],
    )?;
    rewrite_view(&tx)?;
    tx.commit()
}

/// Copies the rows of `arms` (each `SELECT columns FROM table`, of a
/// table keyed by `key`, whose first column is any integer and the others
/// are not negative, with a `game_id` column) into the table `dest`, in
/// key order, [`MERGE_CHUNK`] rows per transaction, calling `after_commit`
/// after each; the rows of deleted games are left out ([`LIVE`]). Returns
/// the rows copied. A cut copy leaves `dest` partly filled: the caller
/// registers it only once this returns.
pub(super) fn copy_merged(
    conn: &Connection,
    dest: &str,
    columns: &str,
    key: &[&str],
    arms: &[String],
    after_commit: &dyn Fn(&Connection) -> rusqlite::Result<()>,
) -> rusqlite::Result<i64> {
    let key_list = key.join(", ");
    let after_list: Vec<String> = (1..=key.len()).map(|i| format!("?{i}")).collect();
    let filter = format!(" WHERE ({key_list}) > ({}) AND {LIVE}", after_list.join(", "));
    let union: Vec<String> = arms.iter().map(|arm| format!("{arm}{filter}")).collect();
    let order: Vec<String> = (1..=key.len()).map(|i| i.to_string()).collect();
    let copy = format!(
        "INSERT OR ROLLBACK INTO {dest} ({columns}) SELECT {columns} FROM ({} ORDER BY {} LIMIT ?{})",
        union.join(" UNION ALL "),
        order.join(", "),
        key.len() + 1
    );
    let descending: Vec<String> = key.iter().map(|k| format!("{k} DESC")).collect();
    let last_sql =
        format!("SELECT {key_list} FROM {dest} ORDER BY {} LIMIT 1", descending.join(", "));
    let mut after: Vec<i64> = vec![-1; key.len()];
    after[0] = i64::MIN;
    let mut total = 0i64;
    loop {
        let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
        let n = tx.execute(&copy, rusqlite::params_from_iter(after.iter().chain([&MERGE_CHUNK])))?
            as i64;
        // Where the next chunk starts, if there is one.
        let last = if n < MERGE_CHUNK {
            None
        } else {
            Some(tx.query_row(&last_sql, [], |r| {
                (0..key.len()).map(|i| r.get::<_, i64>(i)).collect::<rusqlite::Result<Vec<_>>>()
            })?)
        };
        tx.commit()?;
        after_commit(conn)?;
        total += n;
        match last {
            Some(last) => after = last,
            None => return Ok(total),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(seed: u64, n: usize, game: GameId) -> Vec<PendingPosition> {
        let mut x = seed | 1;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Few distinct keys, so that keys repeat across segments.
                let hash = (x % 50) as i64 - 25;
                let next_move = if i % 7 == 0 { NO_MOVE } else { i as u16 };
                PendingPosition { hash, game_id: game, ply: i as u16, next_move }
            })
            .collect()
    }

    type Row = (i64, i64, i64, Option<i64>, Option<String>);

    fn view(conn: &Connection) -> Vec<Row> {
        let mut st = conn.prepare("SELECT * FROM positions ORDER BY hash, game_id, ply").unwrap();
        let rows =
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)));
        rows.unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn ply_move_packing_is_fixed_and_sql_unpacks_it_alike() {
        // The stored format: databases written before read the same.
        assert_eq!(pack_ply_move(0, Some(0)), 0);
        assert_eq!(pack_ply_move(3, None), 3 * 32768 + 32767);
        assert_eq!(pack_ply_move(1, Some(796)), 32768 + 796);
        let conn = Connection::open_in_memory().unwrap();
        let sql = format!("SELECT {} FROM (SELECT ?1 AS ply_move)", unpack_ply_move_sql());
        let cases = [(0, Some(0)), (0, None), (1, Some(796)), (300, None), (70_000, Some(24575))];
        for (ply, next_move) in cases {
            let packed = pack_ply_move(ply, next_move);
            assert_eq!(unpack_ply_move(packed), (ply, next_move));
            let by_sql: (u32, Option<u16>) =
                conn.query_row(&sql, [packed], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
            assert_eq!(by_sql, (ply, next_move));
        }
    }

    #[test]
    fn segments_merge_by_level_and_the_view_sees_every_row() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        assert!(view(&conn).is_empty(), "the view of an empty index");
        let mut expected = Vec::new();
        for game in 1..=(FANOUT as u32 * FANOUT as u32 + 3) {
            let mut batch = rows(u64::from(game), 40, GameId::new(game));
            let fens: Fens = if game % 5 == 0 {
                batch.iter().map(|p| (p.game_id, p.ply, format!("fen {game} {}", p.ply))).collect()
            } else {
                Vec::new()
            };
            for p in &batch {
                let fen = (!fens.is_empty()).then(|| format!("fen {game} {}", p.ply));
                let next = (p.next_move != NO_MOVE).then_some(i64::from(p.next_move));
                expected.push((p.hash, i64::from(p.game_id), i64::from(p.ply), next, fen));
            }
            conn.execute_batch("BEGIN").unwrap();
            write_segment(&conn, &mut batch, &fens).unwrap();
            conn.execute_batch("COMMIT").unwrap();
            compact(&conn, &|_| Ok(())).unwrap();
        }
        expected.sort();
        assert_eq!(view(&conn), expected);
        let levels: Vec<(i64, i64)> = conn
            .prepare("SELECT level, count(*) FROM position_segments GROUP BY level ORDER BY level")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        // FANOUT² + 3 batches: one level-2 segment, three level-0 ones.
        assert_eq!(levels, [(0, 3), (2, 1)]);
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name GLOB 'positions_[0-9]*'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(tables, 4, "merged segments are dropped");

        // A table left by a cut merge is dropped; registered ones stay.
        conn.execute_batch(&table_sql("positions_999999", false)).unwrap();
        drop_orphans(&conn).unwrap();
        let orphan: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'positions_999999'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(orphan, 0);
        assert_eq!(view(&conn), expected);
    }
    #[test]
    fn deleted_games_leave_the_view_at_once_and_the_segments_at_a_merge() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open_for_write(&dir.path().join("t.db")).unwrap();
        let mut expected = Vec::new();
        for game in 1..=FANOUT as u32 {
            let mut batch = rows(u64::from(game), 30, GameId::new(game));
            if game != 5 {
                for p in &batch {
                    let next = (p.next_move != NO_MOVE).then_some(i64::from(p.next_move));
                    expected.push((p.hash, i64::from(game), i64::from(p.ply), next, None));
                }
            }
            conn.execute_batch("BEGIN").unwrap();
            write_segment(&conn, &mut batch, &Vec::new()).unwrap();
            conn.execute_batch("COMMIT").unwrap();
        }
        expected.sort();
        conn.execute("INSERT INTO deleted_games (game_id) VALUES (5)", []).unwrap();
        assert_eq!(view(&conn), expected);
        compact(&conn, &|_| Ok(())).unwrap();
        assert_eq!(view(&conn), expected);
        let (segments, rows): (i64, i64) = conn
            .query_row("SELECT count(*), sum(rows) FROM position_segments", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((segments, rows), (1, expected.len() as i64), "merged without game 5");
        conn.execute("DELETE FROM deleted_games", []).unwrap();
        assert_eq!(view(&conn), expected, "the rows are gone from the merged segment");
    }
}
