//! A game's rows as the records of the per-game tables
//! ([`crate::store::game_tables`]), encoded on the workers by an [`Encoder`]: the
//! writer fills in the few values it decides — the source, the offset, and
//! the ids of texts the dictionaries did not hold yet — and appends them.
//!
//! A text's id is taken here only when it is committed ([`SharedIds`]): it
//! is then the id the writer would give, so the record is the writer's own.
//! A text without one stays a hole, which the writer fills in the order it
//! always decided them (the few-valued texts in column order, then the
//! names), so that ids are given as they were.

use std::sync::Arc;

use rusqlite::types::ToSqlOutput;

use super::rows::GameRow;
use super::shared_ids::SharedIds;
use super::visits::{SharedDeep, TreeShape, TreeVisits};
use crate::db::columns::Columns;
use crate::db::{dates, texts};
use crate::store::format::explorer::first_mover;
use crate::store::format::plies::{PlyData, SideClock};
use crate::store::game_tables::{some_record_value, Shapes, Table};
use crate::store::image::{encode_owned, CutRecord, Record, RowidLeaves, Template, Value};
use crate::store::texts::SHORT_NAME;
use crate::store::writer::{inserted_columns, is_skipped, Assigned, PLY_DATA_COLUMNS};

/// The values of `d`'s `ply_data` row in the table's column order: the
/// position of each of [`PLY_DATA_COLUMNS`] is in `order`, of `width`
/// columns (the rowid's left NULL).
pub(crate) fn ply_data_row<'d>(d: &'d PlyData, order: &[usize], width: usize) -> Vec<Value<'d>> {
    fn text(t: &Option<String>) -> Value<'_> {
        t.as_deref().map_or(Value::Null, Value::Text)
    }
    // A packed form is a BLOB, so that SQL reads a ply at a fixed offset.
    fn packed(t: &Option<String>) -> Value<'_> {
        match t.as_deref() {
            None => Value::Null,
            Some(json) if json.starts_with('[') => Value::Text(json),
            Some(packed) => Value::Blob(packed.as_bytes()),
        }
    }
    let side = |side: Option<&SideClock>| {
        side.map_or([Value::Null; 3], |s| {
            [
                Value::Integer(i64::from(s.moves)),
                Value::Integer(s.drop_ms),
                s.max_drop_ms.map_or(Value::Null, Value::Integer),
            ]
        })
    };
    let [white_moves, white_drop, white_max] = side(d.clock_use.as_ref().map(|c| &c.white));
    let [black_moves, black_drop, black_max] = side(d.clock_use.as_ref().map(|c| &c.black));
    let given = [
        Value::Null,
        packed(&d.clocks),
        packed(&d.emts),
        packed(&d.evals),
        text(&d.nags),
        text(&d.comments),
        d.notes_form.map_or(Value::Null, Value::Integer),
        text(&d.depths),
        text(&d.seldepths),
        text(&d.nodes),
        text(&d.notes_layout),
        text(&d.tails),
        white_moves,
        white_drop,
        white_max,
        black_moves,
        black_drop,
        black_max,
    ];
    let mut row = vec![Value::Null; width];
    for (value, &at) in given.iter().zip(order) {
        row[at] = *value;
    }
    row
}

/// A value of a `game_rows` record that the writer decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hole {
    /// `source_id`.
    Source,
    /// `source_offset`: the game's offset in its input.
    Offset,
    /// A few-valued text without a committed id: the id the writer gives.
    Text(Box<str>),
    /// A site or player without a committed id: its id or itself, as the
    /// writer decides.
    Name(Box<str>),
}

/// A `games_summary` value that the writer decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryHole {
    /// The game's id.
    Id,
    /// The value of the `game_rows` hole of this index.
    Row(usize),
}

/// The `game_tags` row of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TagsRecord {
    /// The game has no other tags.
    None,
    /// Its record.
    Encoded(Vec<u8>),
    /// A name had no committed id: the writer encodes the row.
    ByWriter,
}

/// The records of a game's rows, but for the values the writer decides.
#[derive(Debug, Clone)]
pub struct GameRecords {
    /// `game_rows`.
    pub rows: Template,
    /// Its holes in the order the writer decides them, each with its
    /// index among the template's holes.
    pub holes: Vec<(Hole, usize)>,
    /// `games_summary`'s record and what fills each of its holes (`None`:
    /// the database has no such index).
    pub summary: Option<(Template, Vec<SummaryHole>)>,
    /// `game_tags`.
    pub tags: TagsRecord,
    /// `ply_data`, cut for the database's leaves: most of a long game's
    /// record lies in overflow pages, made here rather than on the writer.
    pub ply_data: Option<CutRecord>,
    /// The `ply_pvs` records, one after the other, with each one's ply and
    /// end, plies increasing.
    pub pvs: Vec<u8>,
    /// The plies of `pvs` and where each record ends.
    pub pv_ends: Vec<(u32, usize)>,
    /// `game_material`.
    pub material: Option<Vec<u8>>,
}

/// Encodes games' records on the workers.
#[derive(Debug)]
pub struct Encoder {
    /// The position in `game_rows` of each of [`inserted_columns`].
    row_order: Vec<usize>,
    rows_width: usize,
    /// The position in `ply_data` of each of [`PLY_DATA_COLUMNS`].
    ply_data_order: Vec<usize>,
    ply_data_width: usize,
    /// Bytes per page of the leaves the records go into.
    page_size: usize,
    /// The position in `game_rows` of each `games_summary` column.
    summary: Option<Vec<usize>>,
    /// The longest `games_summary` record the tables' images hold.
    max_summary: usize,
    texts: Arc<SharedIds>,
    tag_names: Arc<SharedIds>,
    /// The shape of the explorer's tree, if the database has one.
    tree: Option<TreeShape>,
    /// The writer's deep positions, looked up here for each game.
    deep: Option<Arc<SharedDeep>>,
}

/// Where each of [`inserted_columns`] is special to the encoding.
struct Params {
    id: usize,
    source: usize,
    offset: usize,
    moves: usize,
    final_fen: usize,
    date: usize,
    texts: Vec<usize>,
    names: Vec<usize>,
}

static PARAMS: std::sync::LazyLock<Params> = std::sync::LazyLock::new(|| {
    let at = |name: &str| inserted_columns().position(|c| c == name).expect("a stored column");
    Params {
        id: at("id"),
        source: at("source_id"),
        offset: at("source_offset"),
        moves: at("moves"),
        final_fen: at("final_fen"),
        date: at("date"),
        texts: inserted_columns()
            .enumerate()
            .filter(|(_, c)| texts::is_text_column(c))
            .map(|(i, _)| i)
            .collect(),
        names: texts::NAME_COLUMNS.iter().map(|name| at(name)).collect(),
    }
});

impl Encoder {
    /// An encoder for the tables `shapes` declares, taking committed ids
    /// from `texts` and `tag_names`.
    ///
    /// # Errors
    /// A table without a column the rows fill.
    pub fn new(
        shapes: &Shapes,
        texts: Arc<SharedIds>,
        tag_names: Arc<SharedIds>,
        tree: Option<TreeShape>,
        deep: Option<Arc<SharedDeep>>,
    ) -> rusqlite::Result<Encoder> {
        let stored: Vec<_> = inserted_columns().map(texts::stored_column).collect();
        Ok(Encoder {
            row_order: shapes.order(Table::Rows, stored.iter().map(|c| c.as_ref()))?,
            rows_width: shapes.width(Table::Rows),
            ply_data_order: shapes.order(Table::PlyData, PLY_DATA_COLUMNS)?,
            ply_data_width: shapes.width(Table::PlyData),
            page_size: shapes.page_size(),
            summary: shapes.summary_columns().map(<[usize]>::to_vec),
            max_summary: shapes.max_summary_record(),
            texts,
            tag_names,
            tree,
            deep,
        })
    }

    /// The shape of the tree whose part of each game it finds, if the
    /// database has a tree.
    pub fn tree(&self) -> Option<TreeShape> {
        self.tree
    }

    /// Encodes `game`'s rows into its [`GameRow::records`], and frees what
    /// the records hold in its place (its notes and material): a chunk
    /// waiting for the writer holds them once.
    pub fn encode_into(&self, game: &mut GameRow) {
        if let Some(shape) = self.tree.filter(|_| !is_skipped(game)) {
            let first = first_mover(game.start_fen.as_deref());
            let mut visits = TreeVisits::of(&game.positions, &game.header, first, shape);
            if let Some(deep) = &self.deep {
                visits.find_deep(&game.positions, &deep.get(), shape);
            }
            game.visits = Some(visits);
        }
        game.records = self.encode(game);
        if game.records.is_some() {
            game.plies = None;
            game.material = None;
        }
    }

    /// The records of `game`'s rows; `None` for a game not stored, or one
    /// with a row too long for a table image (the writer stores that one
    /// by SQL).
    pub fn encode(&self, game: &GameRow) -> Option<GameRecords> {
        if is_skipped(game) {
            return None;
        }
        let p = &*PARAMS;
        let mut given: Vec<ToSqlOutput<'_>> = Vec::with_capacity(self.row_order.len());
        let placeholder =
            Assigned { id: crate::db::GameId::from(1u32), source_id: 0, source_offset: 0 };
        placeholder.values(&mut given).ok()?;
        game.values(&mut given).ok()?;
        given[p.moves] = rusqlite::ToSql::to_sql(&game.packed_moves).ok()?;
        given[p.final_fen] = match &game.packed_final_fen {
            Some(fen) => ToSqlOutput::from(fen.as_str()),
            None => ToSqlOutput::from(rusqlite::types::Null),
        };
        let (h, a) = (&game.header, &game.analysis);
        if h.date.as_deref().is_some_and(|d| !dates::kept(d, a.year, a.month, a.day)) {
            given[p.date] = ToSqlOutput::from(rusqlite::types::Null);
        }
        let mut row: Vec<Option<Value<'_>>> = vec![Some(Value::Null); self.rows_width];
        for (value, &at) in given.iter().zip(&self.row_order) {
            row[at] = Some(some_record_value(value)?);
        }
        row[self.row_order[p.id]] = Some(Value::Null);
        // The writer's decisions, in its order: the few-valued texts, then
        // the names.
        let mut decided: Vec<(Hole, usize)> = Vec::new();
        {
            let ids = self.texts.read();
            for &param in &p.texts {
                let at = self.row_order[param];
                if let Some(Value::Text(text)) = row[at] {
                    match ids.get(text) {
                        Some(&id) => row[at] = Some(Value::Integer(id)),
                        None => {
                            decided.push((Hole::Text(text.into()), at));
                            row[at] = None;
                        }
                    }
                }
            }
            for &param in &p.names {
                let at = self.row_order[param];
                if let Some(Value::Text(text)) = row[at] {
                    if text.len() <= SHORT_NAME {
                        continue;
                    }
                    match ids.get(text) {
                        Some(&id) => row[at] = Some(Value::Integer(id)),
                        None => {
                            decided.push((Hole::Name(text.into()), at));
                            row[at] = None;
                        }
                    }
                }
            }
        }
        for (hole, param) in [(Hole::Source, p.source), (Hole::Offset, p.offset)] {
            let at = self.row_order[param];
            row[at] = None;
            decided.push((hole, at));
        }
        // Each hole's index among the template's, which are in column order.
        let slot_of = |at: usize| row[..at].iter().filter(|v| v.is_none()).count();
        let holes: Vec<(Hole, usize)> =
            decided.into_iter().map(|(hole, at)| (hole, slot_of(at))).collect();
        // The longest the filled records can be: a hole is at most an
        // integer, or a text of its own with a type of 9 bytes.
        let widest = |hole: &Hole| match hole {
            Hole::Source | Hole::Offset => 17,
            Hole::Text(t) | Hole::Name(t) => t.len() + 9,
        };
        let rows = Template::encode(&row);
        let hole_bytes: usize = holes.iter().map(|(h, _)| widest(h)).sum();
        if rows.len() + hole_bytes + 9 > RowidLeaves::MAX_RECORD {
            return None;
        }
        let summary = match &self.summary {
            Some(columns) => {
                let mut key: Vec<Option<Value<'_>>> = Vec::with_capacity(columns.len() + 1);
                let mut fills = Vec::new();
                let mut bytes = 0;
                for &c in columns.iter() {
                    if c == self.row_order[p.id] {
                        key.push(None);
                        fills.push(SummaryHole::Id);
                        bytes += 17;
                    } else if row[c].is_none() {
                        let slot = slot_of(c);
                        let hole = &holes.iter().find(|(_, s)| *s == slot)?.0;
                        key.push(None);
                        fills.push(SummaryHole::Row(slot));
                        bytes += widest(hole);
                    } else {
                        key.push(row[c]);
                    }
                }
                key.push(None);
                fills.push(SummaryHole::Id);
                let template = Template::encode(&key);
                if template.len() + bytes + 17 + 9 > self.max_summary {
                    return None;
                }
                Some((template, fills))
            }
            None => None,
        };
        let mut record = Record::default();
        let fits = |r: &[u8]| r.len() <= RowidLeaves::MAX_RECORD;
        let tags = match &game.tags {
            None => TagsRecord::None,
            Some(pairs) => {
                let names = self.tag_names.read();
                match pairs.to_json(|name| names.get(name).copied().ok_or(())) {
                    Ok(Some(json)) => {
                        TagsRecord::Encoded(encode_owned(&[Value::Null, Value::Text(&json)]))
                    }
                    Ok(None) => TagsRecord::Encoded(
                        record.encode(&[Value::Null, Value::Text("[]")]).to_vec(),
                    ),
                    Err(()) => TagsRecord::ByWriter,
                }
            }
        };
        if let TagsRecord::Encoded(r) = &tags {
            if !fits(r) {
                return None;
            }
        }
        let (mut ply_data, mut pvs, mut pv_ends) = (None, Vec::new(), Vec::new());
        if let Some(d) = &game.plies {
            let values = ply_data_row(d, &self.ply_data_order, self.ply_data_width);
            let r = encode_owned(&values);
            if !fits(&r) {
                return None;
            }
            ply_data = Some(CutRecord::new(r, self.page_size));
            let mut last = None;
            for (ply, pv) in &d.pvs {
                // Plies past 2^24 keep their variation in the movetext's
                // text only.
                if *ply >= 1 << 24 {
                    continue;
                }
                let r = record.encode(&[Value::Null, Value::Text(pv)]);
                if !fits(r) || last.is_some_and(|last| last >= *ply) {
                    return None;
                }
                last = Some(*ply);
                pvs.extend_from_slice(r);
                pv_ends.push((*ply, pvs.len()));
            }
        }
        let material = match &game.material {
            Some(stretches) => {
                let r = record.encode(&[Value::Null, Value::Blob(stretches)]);
                if !fits(r) {
                    return None;
                }
                Some(r.to_vec())
            }
            None => None,
        };
        Some(GameRecords { rows, holes, summary, tags, ply_data, pvs, pv_ends, material })
    }
}
