//! [`ShardWriter`]: the import's games written straight into Parquet
//! files as a shard of a lake (`import --parquet DIR`), the same files as
//! an import into a new database followed by `export --format parquet`,
//! without the database.
//!
//! The writer takes the games in input order as the import's writer does
//! and numbers them alike (1, 2, … after dedupe, plus `shard << 32`).
//! `games`, `plies` and `tags` rows go to their [`TableSink`]s as the games
//! come, made by the code the export uses on the database's rows
//! ([`export::push_plies`]) or from the columns the database's insert
//! binds ([`Columns::values`]), typed by the schema of a new database
//! ([`crate::db::schema_in_memory`]). `positions` are sorted by hash in
//! bounded memory ([`PositionRuns`]) and written at the end, and the
//! `sources` rows, counted as the import's writer counts them, last.
//! Dedupe keeps the games' keys in a [`KeySet`].
//!
//! Files are written into the shard's working directory ([`ShardDir`])
//! and moved into the lake's table folders once every table is complete;
//! a failed run removes them with the directory, so a reader never takes
//! a cut table for a whole one.

use std::collections::HashSet;
use std::ops::ControlFlow;
use std::path::Path;

use rusqlite::types::{ToSqlOutput, ValueRef};

use super::export::{self, MAX_SHARD};
use super::keys::{KeySet, RUN_KEYS};
use super::lake::ShardDir;
use super::runs::{PositionRecord, PositionRuns, RUN_ROWS};
use super::sink::{Column, Limits, RowBuffer, TableSink, TableStats};
use super::ColumnarError;
use crate::db::columns::Columns;
use crate::db::schema::Schema;
use crate::db::GameId;
use crate::pgn::source::FileFacts;
use crate::query::game::written_back;
use crate::store::encode::rows::{GameRow, RowOptions};
use crate::store::format::plies::PlyData;
use crate::store::writer::{
    is_skipped, problem_text, skipped_message, Assigned, Problem, ProblemKind, SourceStart, Totals,
};

/// How a [`ShardWriter`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardOptions {
    /// File and row-group sizes.
    pub limits: Limits,
    /// Added to the high bits of every game id (`shard << 32`).
    pub shard: u32,
    /// Keep a game even when the same game was kept before.
    pub keep_duplicates: bool,
    /// Stop before the first bad game (reported, not written).
    pub strict: bool,
    /// Position rows sorted in memory per run ([`RUN_ROWS`]).
    pub run_rows: usize,
    /// Dedupe keys held in memory before they are written as a run
    /// ([`RUN_KEYS`]).
    pub run_keys: usize,
    /// What the import indexes: recorded in each `sources` row.
    pub index: RowOptions,
}

impl Default for ShardOptions {
    fn default() -> ShardOptions {
        ShardOptions {
            limits: Limits::default(),
            shard: 0,
            keep_duplicates: false,
            strict: false,
            run_rows: RUN_ROWS,
            run_keys: RUN_KEYS,
            index: RowOptions::default(),
        }
    }
}

/// One table's sink and the buffer of its rows.
struct Table {
    sink: TableSink,
    buffer: RowBuffer,
}

impl Table {
    fn new(
        lake: &ShardDir,
        name: &str,
        columns: Vec<Column>,
        version: Schema,
        options: ShardOptions,
    ) -> Result<Table, ColumnarError> {
        let metadata = export::metadata(name, version, options.shard);
        let id_base = i64::from(options.shard.min(MAX_SHARD)) << 32;
        let dir = lake.staging(name);
        let sink = TableSink::new(&dir, name, &lake.prefix(), &columns, options.limits, metadata)?;
        Ok(Table { sink, buffer: RowBuffer::new(columns, options.limits, id_base) })
    }

    fn push<'v>(
        &mut self,
        values: impl IntoIterator<Item = ValueRef<'v>>,
        row: impl Fn() -> String,
    ) -> Result<(), ColumnarError> {
        self.buffer.push(values, row)?;
        if self.buffer.full() {
            self.sink.write(&mut self.buffer)?;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<TableStats, ColumnarError> {
        self.sink.write(&mut self.buffer)?;
        self.sink.finish()
    }
}

/// The source being read.
#[derive(Debug)]
struct CurrentSource {
    id: i64,
    name: String,
    game_number: u64,
    fingerprint: Option<String>,
}

/// A `sources` row, as the import's writer fills it.
#[derive(Debug)]
struct SourceRow {
    path: String,
    size: Option<u64>,
    mtime: Option<i64>,
    fingerprint: Option<String>,
    games: u64,
    duplicates: u64,
    errors: u64,
    positions: u64,
}

/// The games of an import as Parquet files; see the module's
/// documentation.
pub struct ShardWriter {
    options: ShardOptions,
    version: Schema,
    games: Option<Table>,
    plies: Option<Table>,
    tags: Option<Table>,
    /// For each `games` column, its value's index among
    /// [`Assigned::NAMES`] then [`GameRow::NAMES`].
    games_values: Vec<usize>,
    /// The index of `movetext` among the `games` columns.
    movetext: usize,
    positions_columns: Vec<Column>,
    positions: Option<PositionRuns>,
    dedupe: Option<KeySet>,
    next_id: i64,
    /// The `sources` rows, the source of id `n` at `n - 1`.
    sources: Vec<SourceRow>,
    source: Option<CurrentSource>,
    /// Fingerprints of the inputs read to the end.
    finished: HashSet<String>,
    totals: Totals,
    problems: Box<dyn FnMut(Problem) + Send>,
    /// Last, so that it is dropped after the sinks and runs writing into
    /// it: a run that does not finish leaves nothing.
    lake: Option<ShardDir>,
}

impl std::fmt::Debug for ShardWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardWriter")
            .field("lake", &self.lake)
            .field("next_id", &self.next_id)
            .finish()
    }
}

impl ShardWriter {
    /// A writer of shard `options.shard` into the lake `dir`, created if
    /// missing ([`ShardDir::create`] says what is refused). `problems`
    /// receives every bad game and warning.
    ///
    /// # Errors
    /// [`ColumnarError`]: the directory, or the schema of a new database.
    pub fn open(
        dir: &Path,
        options: ShardOptions,
        problems: Box<dyn FnMut(Problem) + Send>,
    ) -> Result<ShardWriter, ColumnarError> {
        let schema = crate::db::schema_in_memory().map_err(|e| match e {
            crate::db::DbError::Sqlite { error, .. } => {
                ColumnarError::Sqlite { path: ":memory:".into(), error }
            }
            // An empty database in memory has no other way to fail.
            e => ColumnarError::Arrow(e.to_string()),
        })?;
        let version = Schema::of(&schema).map_err(export::sqlite(&schema))?;
        let (games_columns, _) = export::games_sql(&schema, version, &|_| String::new())?;
        let names: Vec<&str> = Assigned::NAMES.iter().chain(GameRow::NAMES).copied().collect();
        let games_values = games_columns
            .iter()
            .map(|c| {
                names.iter().position(|n| *n == c.name).ok_or_else(|| {
                    ColumnarError::UnknownColumn { table: "games".into(), column: c.name.clone() }
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let movetext =
            games_columns.iter().position(|c| c.name == "movetext").ok_or_else(|| {
                ColumnarError::UnknownColumn { table: "games".into(), column: "movetext".into() }
            })?;
        let tags_columns = export::view_columns(&schema, "tags")?;
        if tags_columns.iter().map(|c| c.name.as_str()).ne(TAGS) {
            return Err(ColumnarError::UnknownColumn {
                table: "tags".into(),
                column: tags_columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "),
            });
        }
        let positions_columns = export::positions_columns(&schema)?;
        drop(schema);
        let lake = ShardDir::create(dir, options.shard)?;
        let work = lake.scratch();
        let table = |name, columns| Table::new(&lake, name, columns, version, options);
        Ok(ShardWriter {
            options,
            version,
            games: Some(table("games", games_columns)?),
            plies: Some(table("plies", export::plies_columns())?),
            tags: Some(table("tags", tags_columns)?),
            games_values,
            movetext,
            positions_columns,
            positions: Some(PositionRuns::new(&work, options.run_rows)),
            dedupe: (!options.keep_duplicates).then(|| KeySet::new(&work, options.run_keys)),
            next_id: 1,
            sources: Vec::new(),
            source: None,
            finished: HashSet::new(),
            totals: Totals::default(),
            problems,
            lake: Some(lake),
        })
    }

    /// Starts a source: one whose content (`facts`) this run has read to
    /// the end already is skipped unless `force`, as an import into a new
    /// database skips it.
    pub fn begin_source(
        &mut self,
        name: &str,
        facts: Option<&FileFacts>,
        force: bool,
    ) -> SourceStart {
        let fingerprint = facts.map(|f| f.fingerprint.clone());
        if let Some(f) = &fingerprint {
            if !force && self.finished.contains(f) {
                // The id of that source is not needed: nothing is stored.
                return SourceStart::AlreadyImported { source_id: 0 };
            }
        }
        self.sources.push(SourceRow {
            path: name.to_string(),
            size: facts.map(|f| f.size),
            mtime: facts.and_then(|f| f.mtime),
            fingerprint: fingerprint.clone(),
            games: 0,
            duplicates: 0,
            errors: 0,
            positions: 0,
        });
        let id = self.sources.len() as i64;
        self.source =
            Some(CurrentSource { id, name: name.to_string(), game_number: 0, fingerprint });
        SourceStart::Import { source_id: id, resume_offset: 0 }
    }

    /// Ends the current source, read to the end.
    pub fn end_source(&mut self) {
        if let Some(f) = self.source.take().and_then(|s| s.fingerprint) {
            self.finished.insert(f);
        }
    }

    /// Ends a source that could not be read to the end.
    pub fn abandon_source(&mut self) {
        self.source = None;
    }

    /// The counts so far.
    pub fn totals(&self) -> Totals {
        self.totals
    }

    /// Writes the games of one chunk of the current source, in order, as
    /// the import's `Writer::add_chunk` stores them (same arguments);
    /// `Break` when `strict` stops at a bad game.
    ///
    /// # Errors
    /// [`ColumnarError`] when a file cannot be written.
    ///
    /// # Panics
    /// If no source was begun.
    pub fn add_chunk(
        &mut self,
        games: &mut [GameRow],
        trailing: &[(usize, usize, String)],
        offset: u64,
        line: usize,
    ) -> Result<ControlFlow<()>, ColumnarError> {
        for game in games {
            game.locate(offset, line);
            let source = self.source.as_mut().expect("a source was begun");
            source.game_number += 1;
            let bad = game.error.is_some() || game.skipped.is_some();
            if bad && self.options.strict {
                self.report_strict_stop(game);
                return Ok(ControlFlow::Break(()));
            }
            self.store(game)?;
        }
        for (l, c, message) in trailing {
            self.problem(None, ProblemKind::Warning, Some((l + line, *c)), message);
        }
        Ok(ControlFlow::Continue(()))
    }

    fn problem(
        &mut self,
        number: Option<u64>,
        kind: ProblemKind,
        at: Option<(usize, usize)>,
        message: &str,
    ) {
        let name = self.source.as_ref().map_or("", |s| s.name.as_str());
        let text = problem_text(name, number, at, message);
        (self.problems)(Problem { text, kind });
    }

    fn report_strict_stop(&mut self, game: &GameRow) {
        let number = self.source.as_ref().map(|s| s.game_number);
        let (kind, message) = match &game.error {
            Some(error) if game.skipped.is_none() => (ProblemKind::Error, error.clone()),
            _ => (ProblemKind::Skipped, skipped_message(game)),
        };
        self.totals.errors += 1;
        self.problem(number, kind, game.error_at, &message);
    }

    fn warnings(&mut self, number: u64, game: &GameRow) {
        for (l, c, message) in &game.warnings {
            self.problem(Some(number), ProblemKind::Warning, Some((*l, *c)), message);
        }
    }

    /// Writes one game (or counts it as a duplicate or skipped).
    fn store(&mut self, game: &GameRow) -> Result<(), ColumnarError> {
        let source = self.source.as_ref().expect("a source was begun");
        let (source_id, number) = (source.id, source.game_number);
        if is_skipped(game) {
            let message = skipped_message(game);
            self.problem(Some(number), ProblemKind::Skipped, game.error_at, &message);
            self.totals.errors += 1;
            self.count(source_id, |s| s.errors += 1);
            self.warnings(number, game);
            return Ok(());
        }
        if let Some(dedupe) = &mut self.dedupe {
            if !dedupe.insert(game.dedupe_key as u64, game.dedupe_check())? {
                self.totals.duplicates += 1;
                self.count(source_id, |s| s.duplicates += 1);
                return Ok(());
            }
        }
        let id = GameId::try_from(self.next_id).map_err(|_| ColumnarError::Value {
            column: "id".into(),
            row: format!("games, game {}", self.next_id),
            message: format!("game ids end at {}", GameId::MAX),
        })?;
        self.next_id += 1;
        self.write_game(id, source_id, game)?;
        let positions = self.positions.as_mut().expect("open until finished");
        for p in &game.positions {
            // Plies beyond 65,535 are never indexed (rows.rs stops there).
            let ply = u16::try_from(p.ply).unwrap_or(u16::MAX);
            positions.push(PositionRecord {
                hash: p.hash,
                game_id: id,
                ply,
                next_move: p.next_move,
            })?;
        }
        let rows = game.positions.len() as u64;
        self.totals.games += 1;
        self.totals.positions += rows;
        self.totals.plies += game.ply_count;
        self.count(source_id, |s| {
            s.games += 1;
            s.positions += rows;
        });
        if let Some(error) = &game.error {
            self.totals.errors += 1;
            self.count(source_id, |s| s.errors += 1);
            self.problem(Some(number), ProblemKind::Error, game.error_at, error);
        }
        self.warnings(number, game);
        Ok(())
    }

    /// Counts into the `sources` row of id `source_id`.
    fn count(&mut self, source_id: i64, f: impl FnOnce(&mut SourceRow)) {
        if let Some(row) = usize::try_from(source_id - 1).ok().and_then(|i| self.sources.get_mut(i))
        {
            f(row);
        }
    }

    /// The game's rows of `games`, `plies` and `tags`.
    fn write_game(
        &mut self,
        id: GameId,
        source_id: i64,
        game: &GameRow,
    ) -> Result<(), ColumnarError> {
        let row = || format!("games, game {id}");
        let assigned = Assigned { id, source_id, source_offset: game.offset };
        let mut values: Vec<ToSqlOutput<'_>> = Vec::with_capacity(self.games_values.len());
        let bad = |e: rusqlite::Error| ColumnarError::Value {
            column: "games".into(),
            row: row(),
            message: e.to_string(),
        };
        assigned.values(&mut values).map_err(bad)?;
        game.values(&mut values).map_err(bad)?;
        let no_notes = PlyData::default();
        let notes = game.plies.as_ref().unwrap_or(&no_notes);
        // A movetext stored NULL is written back, as the export does.
        let written = match game.movetext {
            Some(_) => None,
            None => Some(
                written_back(
                    &game.moves,
                    game.start_fen.as_deref(),
                    game.header.result.as_deref().unwrap_or("*"),
                    notes,
                )
                .map_err(|column| ColumnarError::Value {
                    column: format!("ply_data.{column}"),
                    row: row(),
                    message: "not as pgnindex writes it".into(),
                })?,
            ),
        };
        let movetext = self.movetext;
        let refs =
            self.games_values.iter().enumerate().map(|(i, &v)| match (&values[v], &written) {
                (_, Some(text)) if i == movetext => ValueRef::Text(text.as_bytes()),
                (ToSqlOutput::Borrowed(r), _) => *r,
                (ToSqlOutput::Owned(v), _) => ValueRef::from(v),
                // Blobs and arrays: no `games` column binds one.
                _ => ValueRef::Null,
            });
        self.games.as_mut().expect("open until finished").push(refs, row)?;
        let raw = i64::from(id);
        let plies = self.plies.as_mut().expect("open until finished");
        export::push_plies(raw, &game.moves, notes, &mut plies.sink, &mut plies.buffer)?;
        if let Some(pairs) = &game.tags {
            let tags = self.tags.as_mut().expect("open until finished");
            for (ord, (name, value)) in pairs.iter().enumerate() {
                let values = [
                    ValueRef::Integer(raw),
                    ValueRef::Integer(ord as i64),
                    ValueRef::Text(name.as_bytes()),
                    ValueRef::Text(value.as_bytes()),
                ];
                tags.push(values, || format!("tags, game {id}"))?;
            }
        }
        Ok(())
    }

    /// Writes what is left: the last rows of `games`, `plies` and `tags`,
    /// then `positions` merged from its runs, then `sources`; moves the
    /// files into the lake's table folders ([`ShardDir::publish`]). Says
    /// what each table got, in the export's order.
    ///
    /// # Errors
    /// [`ColumnarError`] when a file cannot be written, read or moved.
    pub fn finish(mut self) -> Result<(Totals, Vec<TableStats>), ColumnarError> {
        let mut stats = Vec::with_capacity(5);
        for table in [self.games.take(), self.plies.take(), self.tags.take()].into_iter().flatten()
        {
            stats.push(table.finish()?);
        }
        let lake = self.lake.take().expect("open until finished");
        let runs = self.positions.take().expect("open until finished");
        let mut positions = Table::new(
            &lake,
            "positions",
            self.positions_columns.clone(),
            self.version,
            self.options,
        )?;
        runs.finish(|r| {
            let id = i64::from(r.game_id);
            let values = [
                ValueRef::Integer(r.hash),
                ValueRef::Integer(id),
                ValueRef::Integer(i64::from(r.ply)),
                r.next_move.map_or(ValueRef::Null, |m| ValueRef::Integer(i64::from(m))),
                ValueRef::Null,
            ];
            positions.push(values, || format!("positions, game {id}"))
        })?;
        stats.push(positions.finish()?);
        stats.push(self.write_sources(&lake)?);
        self.dedupe = None;
        lake.publish(&mut stats)?;
        Ok((self.totals, stats))
    }

    /// The `sources` rows, in id order.
    fn write_sources(&self, lake: &ShardDir) -> Result<TableStats, ColumnarError> {
        let mut table =
            Table::new(lake, "sources", export::sources_columns(), self.version, self.options)?;
        let (indexed, max_ply) = self.options.index.source_settings();
        let int = |n: u64| ValueRef::Integer(i64::try_from(n).unwrap_or(i64::MAX));
        for (i, s) in self.sources.iter().enumerate() {
            let id = i as i64 + 1;
            let values = [
                ValueRef::Integer(id),
                ValueRef::Text(s.path.as_bytes()),
                s.size.map_or(ValueRef::Null, int),
                s.mtime.map_or(ValueRef::Null, ValueRef::Integer),
                s.fingerprint.as_deref().map_or(ValueRef::Null, |f| ValueRef::Text(f.as_bytes())),
                int(s.games),
                int(s.duplicates),
                int(s.errors),
                int(s.positions),
                ValueRef::Integer(i64::from(indexed)),
                max_ply.map_or(ValueRef::Null, |m| ValueRef::Integer(i64::from(m))),
            ];
            table.push(values, || format!("sources, source {id}"))?;
        }
        table.finish()
    }
}

/// The columns of the `tags` view, in the order written.
const TAGS: [&str; 4] = ["game_id", "ord", "name", "value"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::parallel::read_chunk;
    use crate::replay::ReplayOptions;
    use crate::store::encode::rows::RowOptions;

    fn rows(text: &str) -> Vec<GameRow> {
        let replay = ReplayOptions {
            keys: true,
            tags: true,
            san: true,
            movetext: true,
            commands: true,
            openings: true,
            rebuild: true,
            ..ReplayOptions::default()
        };
        read_chunk(text.as_bytes(), 0, replay)
            .games
            .into_iter()
            .map(|g| GameRow::build(g, RowOptions::default()))
            .collect()
    }

    /// A run that stops before its end (an error, a panic) leaves an
    /// empty directory: no file that a reader could take for a table.
    #[test]
    fn an_unfinished_run_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("lake");
        let options =
            ShardOptions { run_rows: 3, run_keys: 2, shard: 7, ..ShardOptions::default() };
        let text = "[White \"a\"]\n\n1. e4 e5 2. Nf3 *\n\n[White \"b\"]\n\n1. d4 d5 *\n\n\
                    [White \"c\"]\n\n1. c4 *\n";
        let names = |dir: &Path| {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        for finish in [false, true] {
            let mut writer = ShardWriter::open(&root, options, Box::new(|_| ())).unwrap();
            writer.begin_source("x.pgn", None, false);
            let mut games = rows(text);
            assert_eq!(writer.add_chunk(&mut games, &[], 0, 0).unwrap(), ControlFlow::Continue(()));
            writer.end_source();
            let work = root.join(".pgnindex-work-s7");
            assert!(work.join("runs").is_dir(), "runs of positions and keys were written");
            if finish {
                let (totals, stats) = writer.finish().unwrap();
                assert_eq!(totals.games, 3);
                assert_eq!(stats.iter().map(|t| t.rows).collect::<Vec<_>>(), [3, 6, 0, 9, 1]);
                assert_eq!(names(&root), ["games", "plies", "positions", "sources", "tags"]);
                for table in names(&root) {
                    assert_eq!(names(&root.join(table)), ["s7-00001.parquet"]);
                }
            } else {
                drop(writer);
                assert_eq!(names(&root).len(), 0, "nothing left");
            }
        }
    }
}
