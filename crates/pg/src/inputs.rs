//! What the cost functions consume (spec section 2): heap and index sizes, the
//! restriction clauses with their evaluation cost, row estimate and width.
//!
//! Everything is gathered once per `plan()` call into a [`Rel`], the counterpart of
//! PostgreSQL's `RelOptInfo` for a single base table.

use costlab_model::catalog::{Column, ColumnStats, ColumnType, Index, IndexMethod, Table, Value};
use costlab_model::error::{Error, Result};
use costlab_model::knobs::{Knob, KnobValues};
use costlab_model::plan::Name;
use costlab_model::query::{CmpOp, Predicate, Query};

use super::selfuncs;
use std::borrow::Cow;

/// 8 kB heap and index blocks.
pub(crate) const BLCKSZ: f64 = 8192.0;
/// BLCKSZ minus the 24-byte page header (spec 2.1 step 4).
const USABLE_BYTES_PER_PAGE: f64 = 8168.0;
/// MAXALIGN(23-byte tuple header) + 4-byte line pointer (spec 2.1 step 4).
const OVERHEAD_BYTES_PER_TUPLE: f64 = 28.0;
/// `x IN (...)` with at least this many constants is evaluated through a hash table,
/// decided at plan time before costing (clauses.c, MIN_ARRAY_SIZE_FOR_HASHED_SAOP).
const MIN_ARRAY_SIZE_FOR_HASHED_SAOP: usize = 9;

/// The cost constants, read from the knob table (spec section 1).
#[derive(Clone, Debug)]
pub(crate) struct Consts {
    pub seq_page_cost: f64,
    pub random_page_cost: f64,
    pub cpu_tuple_cost: f64,
    pub cpu_index_tuple_cost: f64,
    pub cpu_operator_cost: f64,
    pub parallel_tuple_cost: f64,
    pub parallel_setup_cost: f64,
    /// effective_cache_size in 8 kB pages (the knob is in MB: 128 pages per MB, floored
    /// to a whole page count because the GUC is an integer number of blocks).
    pub effective_cache_pages: f64,
    /// work_mem in kB, floored to an integer as the GUC is.
    pub work_mem_kb: f64,
    pub max_parallel_workers_per_gather: u32,
}

impl Consts {
    pub fn from_knobs(knobs: &KnobValues) -> Result<Consts> {
        let get = |k: Knob| k.def().validate(knobs.get(k));
        Ok(Consts {
            seq_page_cost: get(Knob::SeqPageCost)?,
            random_page_cost: get(Knob::RandomPageCost)?,
            cpu_tuple_cost: get(Knob::CpuTupleCost)?,
            cpu_index_tuple_cost: get(Knob::CpuIndexTupleCost)?,
            cpu_operator_cost: get(Knob::CpuOperatorCost)?,
            parallel_tuple_cost: get(Knob::ParallelTupleCost)?,
            parallel_setup_cost: get(Knob::ParallelSetupCost)?,
            effective_cache_pages: (get(Knob::EffectiveCacheSize)? * 128.0).floor().max(1.0),
            work_mem_kb: get(Knob::WorkMem)?.floor(),
            max_parallel_workers_per_gather: get(Knob::MaxParallelWorkersPerGather)? as u32,
        })
    }

    /// work_mem in bytes, as tuplesort and tidbitmap see it.
    pub fn work_mem_bytes(&self) -> f64 {
        self.work_mem_kb * 1024.0
    }
}

/// Cost of evaluating some quals, counted in operator calls (multiply by
/// cpu_operator_cost for cost units). Counting calls keeps the physical work free of
/// constants (spec 2.5).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct QualOps {
    pub startup: f64,
    pub per_tuple: f64,
}

impl QualOps {
    pub fn add(self, o: QualOps) -> QualOps {
        QualOps {
            startup: self.startup + o.startup,
            per_tuple: self.per_tuple + o.per_tuple,
        }
    }
}

/// One restriction clause (PostgreSQL's RestrictInfo) on a column of the table.
#[derive(Clone, Debug)]
pub(crate) enum ClauseKind {
    /// `col op const`; BETWEEN becomes two of these (`>=` and `<=`), as PostgreSQL's
    /// parser expands it.
    Op { op: CmpOp, value: Value },
    /// `col = ANY('{...}')`, what `col IN (v1, v2, ...)` with two or more values becomes.
    AnyEq { values: Vec<Value> },
}

#[derive(Clone, Debug)]
pub(crate) struct Clause {
    /// Position of the column in `Rel::cols`.
    pub col: usize,
    pub kind: ClauseKind,
    /// clause_selectivity, cached like RestrictInfo.norm_selec.
    pub selec: f64,
    pub ops: QualOps,
}

impl Clause {
    /// Is this an equality (usable as an `=` btree boundary, spec 4.1)?
    pub fn is_eq(&self) -> bool {
        matches!(
            self.kind,
            ClauseKind::Op { op: CmpOp::Eq, .. } | ClauseKind::AnyEq { .. }
        )
    }

    pub fn array_len(&self) -> Option<f64> {
        match &self.kind {
            ClauseKind::AnyEq { values } => Some(values.len() as f64),
            _ => None,
        }
    }
}

/// Per-column facts the selectivity functions use.
#[derive(Clone, Debug)]
pub(crate) struct ColInfo {
    pub name: String,
    pub ty: ColumnType,
    /// Statistics with the float4 catalog columns rounded to float4 (spec 11).
    pub stats: ColumnStats,
    /// Whether pg_statistic has a row for the column (see [`has_stats`]).
    pub has_stats: bool,
    /// A unique single-column index makes the column unique (examine_variable).
    pub is_unique: bool,
    /// get_actual_variable_range can read the true min/max: the column leads a btree.
    pub has_actual_range: bool,
    /// Width used for the target list (avg_width, else the type's typical width).
    pub width: f64,
    /// An expression index's key rather than a heap column: the planner matches a query's
    /// expression to it by text (match_index_to_operand) and estimates with its statistics
    /// (examine_variable finds them on the index), but the heap does not store it.
    pub expression: Option<IndexExpression>,
}

impl ColInfo {
    /// Operator calls to compute the value: none for a heap column.
    pub fn eval_ops(&self) -> f64 {
        self.expression.as_ref().map_or(0.0, |e| e.eval_ops)
    }
}

/// What evaluating an indexed expression costs and reads.
#[derive(Clone, Debug, Default)]
pub(crate) struct IndexExpression {
    /// cost_qual_eval of the expression alone, in operator calls: one per function call
    /// and cast, and a schema function's procost (set by the join planner, which knows
    /// the functions).
    pub eval_ops: f64,
    /// Calls of the schema's own functions per evaluation (set by the join planner), for
    /// the work: what a simulation charges per call.
    pub calls: f64,
    /// The heap columns it reads (pull_varattnos): what an index-only scan would have to
    /// return to compute it, so stock check_index_only refuses the scan without them.
    pub reads: Vec<usize>,
}

/// One index as the planner sees it (IndexOptInfo, spec 2.2).
#[derive(Clone, Debug)]
pub(crate) struct IndexInfo {
    pub name: Name,
    pub method: IndexMethod,
    pub pages: f64,
    pub tuples: f64,
    /// A btree's root level; for GiST the height gistcostestimate assumes.
    pub tree_height: f64,
    pub unique: bool,
    /// Key columns, positions in `Rel::cols`.
    pub keys: Vec<usize>,
    /// Key plus INCLUDE columns (what an index-only scan can return).
    pub covers: Vec<usize>,
    /// Made on first use: a table planned once should not spell keys of indexes the
    /// query never uses.
    path_keys: std::cell::OnceCell<IndexKeys>,
}

impl IndexInfo {
    pub fn path_keys(&self) -> &IndexKeys {
        self.path_keys.get_or_init(|| IndexKeys::new(&self.name))
    }
}

/// Candidate keys of one index's paths and of a Gather over each, made once per table:
/// sweeps need them at every point, and spelling and looking them up would take longer
/// than costing the paths.
#[derive(Clone, Debug)]
pub(crate) struct IndexKeys {
    pub index: Name,
    pub indexonly: Name,
    pub bitmap: Name,
    pub gather_index: Name,
    pub gather_indexonly: Name,
    pub gather_bitmap: Name,
}

impl IndexKeys {
    fn new(index: &str) -> IndexKeys {
        let key = |kind: &str| Name::from(format!("{kind}:{index}"));
        let gathered = |kind: &str| Name::from(format!("gather-{kind}:{index}"));
        IndexKeys {
            index: key("index"),
            indexonly: key("indexonly"),
            bitmap: key("bitmap"),
            gather_index: gathered("index"),
            gather_indexonly: gathered("indexonly"),
            gather_bitmap: gathered("bitmap"),
        }
    }
}

/// What the planner knows about the table before seeing a query (see
/// [`TableInfo::build`]).
#[derive(Clone, Debug)]
pub(crate) struct TableInfo {
    pub name: Name,
    pub pages: f64,
    pub tuples: f64,
    pub allvisfrac: f64,
    pub cols: Vec<ColInfo>,
    pub indexes: Vec<IndexInfo>,
    /// Column positions by name, for the query's column names.
    pub names: ColumnNames,
}

/// Column positions by name, ignoring ASCII case; the first column of a name wins, as
/// with `Table::column`. Queries name columns as strings and planning needs their
/// positions several times per query; comparing each name with every column's was a
/// visible part of a sweep point, so a prepared table keeps this small open-addressing
/// table: the hash of the lower-cased name picks a slot, a taken slot passes on to the
/// next one.
#[derive(Clone, Debug, Default)]
pub(crate) struct ColumnNames {
    /// (name, position) or empty; the length is a power of two above twice the column
    /// count, so a probe always ends at an empty slot.
    slots: Vec<Option<(Box<str>, usize)>>,
}

impl ColumnNames {
    pub fn new<'n>(names: impl ExactSizeIterator<Item = &'n str>) -> ColumnNames {
        let len = (2 * names.len() + 1).next_power_of_two();
        let mut index = ColumnNames {
            slots: vec![None; len],
        };
        for (pos, name) in names.enumerate() {
            let mut i = index.home(name);
            loop {
                match &index.slots[i] {
                    // A later column with the same name stays unreachable, as it is
                    // through `Table::column`.
                    Some((n, _)) if n.eq_ignore_ascii_case(name) => break,
                    Some(_) => i = (i + 1) & (len - 1),
                    None => {
                        index.slots[i] = Some((name.into(), pos));
                        break;
                    }
                }
            }
        }
        index
    }

    /// FNV-1a over the lower-cased bytes, reduced to a slot.
    fn home(&self, name: &str) -> usize {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h = (h ^ b.to_ascii_lowercase() as u64).wrapping_mul(0x0100_0000_01b3);
        }
        (h as usize) & (self.slots.len() - 1)
    }

    /// The position of the first column named `name`, ignoring ASCII case.
    pub fn position(&self, name: &str) -> Option<usize> {
        let len = self.slots.len();
        if len == 0 {
            return None;
        }
        let mut i = self.home(name);
        while let Some((n, pos)) = &self.slots[i] {
            if n.eq_ignore_ascii_case(name) {
                return Some(*pos);
            }
            i = (i + 1) & (len - 1);
        }
        None
    }

    /// [`ColumnNames::position`], or `Table::column`'s error for `table`.
    pub fn resolve(&self, table: &Table, name: &str) -> Result<usize> {
        self.position(name).ok_or_else(|| Error::UnknownColumn {
            table: table.name.clone(),
            column: name.to_string(),
        })
    }
}

/// The base relation with everything the path builders need: the prepared table's
/// columns and indexes, borrowed, and the query's clauses and estimates.
#[derive(Clone, Debug)]
pub(crate) struct Rel<'a> {
    pub name: Name,
    /// Current number of heap blocks (spec 2.1 steps 1-3).
    pub pages: f64,
    /// rint(density x pages) (spec 2.1 step 5).
    pub tuples: f64,
    pub allvisfrac: f64,
    /// Sum of pages of all base relations of the query (spec 2.3).
    pub total_table_pages: f64,
    /// Borrowed from a prepared table, or owned when built from a bare `Table`.
    pub cols: Cow<'a, [ColInfo]>,
    pub clauses: Vec<Clause>,
    /// clamp_row_est(tuples x clauselist_selectivity(all clauses)) (spec 2.4).
    pub rows: f64,
    /// Sum of the widths of the columns the query outputs (spec 2.4).
    pub width: f64,
    /// baserestrictcost, in operator calls.
    pub restrict_ops: QualOps,
    /// Columns the scan must produce (target list, ORDER BY, quals) for index-only scans.
    pub needed: Vec<usize>,
    /// ORDER BY keys that remain after dropping columns equated to a constant
    /// (equivalence classes, spec 11): (column, descending).
    pub pathkeys: Vec<(usize, bool)>,
    pub limit: Option<f64>,
    pub indexes: Cow<'a, [IndexInfo]>,
}

/// clamp_row_est (spec 2.4): at least one row, integral, NaN/huge mapped to 1e100.
pub(crate) fn clamp_row_est(n: f64) -> f64 {
    if n.is_nan() || n > 1e100 {
        1e100
    } else if n <= 1.0 {
        1.0
    } else {
        n.round_ties_even()
    }
}

/// Widens a value through float4, as pg_class / pg_statistic store it (spec 11).
/// Idempotent on values that already are float4.
pub(crate) fn float4(x: f64) -> f64 {
    (x as f32) as f64
}

/// ColumnStats carries no "analyzed" flag; a column counts as analyzed when any
/// statistic differs from the all-zero default (ANALYZE always stores a non-zero
/// n_distinct or a width for a non-empty column).
pub(crate) fn has_stats(s: &ColumnStats) -> bool {
    s.n_distinct != 0.0
        || !s.mcv.is_empty()
        || !s.histogram.is_empty()
        || s.null_frac != 0.0
        || s.avg_width != 0.0
        || s.correlation != 0.0
}

/// get_typavgwidth (spec 2.4) for the types costlab knows; text is unbounded (32),
/// CHAR(n) assumes a UTF8 database (4 bytes per character plus the varlena header).
pub(crate) fn type_width(ty: &ColumnType) -> f64 {
    match ty {
        ColumnType::Int4 | ColumnType::Date => 4.0,
        ColumnType::Int8 | ColumnType::Float8 => 8.0,
        ColumnType::Bool => 1.0,
        ColumnType::Point => 16.0,
        ColumnType::Numeric | ColumnType::Text => 32.0,
        ColumnType::Char(n) => *n as f64 * 4.0 + 4.0,
    }
}

fn is_numeric_type(ty: &ColumnType) -> bool {
    !matches!(ty, ColumnType::Text | ColumnType::Char(_))
}

impl IndexExpression {
    /// The heap columns `text` names and its built-in cost: one operator call per
    /// function call (`name(`) and per cast of a CHAR column to text (bpchar's `text()`
    /// cast is a function; pg_get_indexdef prints it as `(col)::text`).
    fn of(text: &str, table: &Table, heap: &ColumnNames) -> IndexExpression {
        let mut reads = Vec::new();
        let mut eval_ops = 0.0;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b == b'\'' {
                // A literal: skip to its closing quote.
                i += 1;
                while i < bytes.len() && bytes[i] != b'\'' {
                    i += 1;
                }
                i += 1;
                continue;
            }
            if b.is_ascii_alphabetic() || b == b'_' {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let word = &text[start..i];
                let called = text[i..].trim_start().starts_with('(');
                let after_cast = text[..start].trim_end().ends_with("::");
                if called {
                    eval_ops += 1.0;
                } else if !after_cast {
                    if let Some(c) = heap.position(word) {
                        if !reads.contains(&c) {
                            reads.push(c);
                        }
                        if matches!(table.columns[c].ty, ColumnType::Char(_)) {
                            eval_ops += 1.0;
                        }
                    }
                }
                continue;
            }
            i += 1;
        }
        IndexExpression {
            eval_ops,
            calls: 0.0,
            reads,
        }
    }
}

/// Brings a constant to the column's type the way PostgreSQL's parser would accept it:
/// numbers for numeric columns (a quoted number or date literal is coerced), text for
/// text columns (a bare number against text is a type error in PostgreSQL).
fn coerce_value(col: &ColInfo, v: &Value) -> Result<Value> {
    match (is_numeric_type(&col.ty), v) {
        (true, Value::Num(_)) | (false, Value::Text(_)) => Ok(v.clone()),
        (true, Value::Text(s)) => {
            let parsed = match col.ty {
                // PostgreSQL's own words for a date that does not exist ('1995-02-30').
                ColumnType::Date => match costlab_model::date::parse(s) {
                    Ok(d) => Some(d as f64),
                    Err(e) => {
                        return Err(Error::invalid(
                            "predicate",
                            format!("column {}: {e}", col.name),
                        ))
                    }
                },
                ColumnType::Bool => match s.trim().to_ascii_lowercase().as_str() {
                    "t" | "true" | "yes" | "on" | "1" => Some(1.0),
                    "f" | "false" | "no" | "off" | "0" => Some(0.0),
                    _ => None,
                },
                _ => costlab_model::num::parse_f64(s.trim()).filter(|x| x.is_finite()),
            };
            parsed.map(Value::Num).ok_or_else(|| {
                Error::invalid(
                    "predicate",
                    format!("'{s}' is not a valid value for column {}", col.name),
                )
            })
        }
        (false, Value::Num(x)) => Err(Error::invalid(
            "predicate",
            format!(
                "column {} is text; compare it with a quoted string, not {x}",
                col.name
            ),
        )),
    }
}

/// Rounds the float4 catalog columns of pg_statistic (spec 11).
fn stats_as_stored(s: &ColumnStats) -> ColumnStats {
    ColumnStats {
        null_frac: float4(s.null_frac),
        n_distinct: float4(s.n_distinct),
        mcv: s.mcv.iter().map(|(v, f)| (v.clone(), float4(*f))).collect(),
        histogram: s.histogram.clone(),
        correlation: float4(s.correlation),
        // stawidth is an int4.
        avg_width: s.avg_width.round(),
    }
}

/// cost_qual_eval for one clause (spec 2.5), in operator calls. An IN list of n < 9
/// constants is a linear ScalarArrayOp charged for half the elements per row; with
/// n >= 9 the planner has already made it a hashed ScalarArrayOp: n hash calls at
/// startup to build the table, then one hash and one comparison per row.
fn clause_ops(kind: &ClauseKind) -> QualOps {
    match kind {
        ClauseKind::Op { .. } => QualOps {
            startup: 0.0,
            per_tuple: 1.0,
        },
        ClauseKind::AnyEq { values } => {
            let n = values.len() as f64;
            if values.len() >= MIN_ARRAY_SIZE_FOR_HASHED_SAOP {
                QualOps {
                    startup: n,
                    per_tuple: 2.0,
                }
            } else {
                QualOps {
                    startup: 0.0,
                    per_tuple: n * 0.5,
                }
            }
        }
    }
}

/// A clause on column position `col`, its selectivity still to be estimated.
fn clause(col: usize, kind: ClauseKind) -> Clause {
    Clause {
        col,
        ops: clause_ops(&kind),
        kind,
        selec: 0.0,
    }
}

/// Physical heap size when the table carries no PostgreSQL facts: a freshly loaded,
/// analyzed heap with the default density.
fn synthesize_pg_table(table: &Table, data_width: f64) -> costlab_model::catalog::PgTable {
    let density = default_density(data_width);
    let pages = (table.rows / density).ceil();
    costlab_model::catalog::PgTable {
        pages,
        reltuples: table.rows,
        relpages: pages,
        relallvisible: 0.0,
    }
}

/// Tuples per page without statistics (spec 2.1 step 4), fillfactor 100, integer division.
fn default_density(data_width: f64) -> f64 {
    let tuple_width = data_width.floor() + OVERHEAD_BYTES_PER_TUPLE;
    clamp_row_est((USABLE_BYTES_PER_PAGE / tuple_width).floor())
}

/// Index size when the index carries no PostgreSQL facts: a fresh btree with 90%-full
/// leaves of (8-byte header + MAXALIGN(keys) + 4-byte line pointer) entries, its
/// internal levels and the metapage.
fn synthesize_pg_index(tuples: f64, key_width: f64) -> costlab_model::catalog::PgIndex {
    let entry = 8.0 + (key_width / 8.0).ceil() * 8.0 + 4.0;
    let per_leaf = ((8192.0 - 24.0 - 16.0) * 0.9 / entry).floor().max(2.0);
    let per_internal = ((8192.0 - 24.0 - 16.0) * 0.7 / entry).floor().max(2.0);
    let leaves = (tuples / per_leaf).ceil().max(1.0);
    let mut pages = leaves + 1.0;
    let mut level = leaves;
    let mut height = 0.0;
    while level > 1.0 {
        level = (level / per_internal).ceil();
        pages += level;
        height += 1.0;
    }
    costlab_model::catalog::PgIndex {
        pages,
        tree_height: height,
    }
}

/// A GiST index over points built from a whole table: a leaf entry is an 8-byte index
/// tuple header, the point's 32-byte bounding box (gist_point_compress) and a 4-byte line
/// pointer; GiST's splits leave pages about 65 % full (50,000 random points: 414 pages
/// in PostgreSQL 15 and 18). The internal levels add about 1 %. Measured, not derived: an
/// imported index has its real size.
fn synthesize_gist_index(tuples: f64) -> costlab_model::catalog::PgIndex {
    let per_page = (8168.0 * 0.65 / 44.0_f64).floor();
    let leaves = (tuples / per_page).ceil().max(1.0);
    costlab_model::catalog::PgIndex {
        pages: leaves + (leaves / 100.0).ceil() + 1.0,
        tree_height: -1.0,
    }
}

impl TableInfo {
    /// The query-independent half of spec section 2: stored statistics, heap size and
    /// indexes. A prepared table builds this once; every query then borrows it.
    pub fn build(table: &Table) -> Result<TableInfo> {
        // Heap columns first, then each distinct expression key of the expression
        // indexes (by text), which quals and index keys name like columns.
        let heap_names = ColumnNames::new(table.columns.iter().map(|c| c.name.as_str()));
        let mut expressions: Vec<&Column> = Vec::new();
        for e in table.indexes.iter().flat_map(|i| &i.expressions) {
            if heap_names.position(&e.name).is_none()
                && !expressions
                    .iter()
                    .any(|x| x.name.eq_ignore_ascii_case(&e.name))
            {
                expressions.push(e);
            }
        }
        let names = if expressions.is_empty() {
            heap_names.clone()
        } else {
            let all: Vec<&str> = table
                .columns
                .iter()
                .chain(expressions.iter().copied())
                .map(|c| c.name.as_str())
                .collect();
            ColumnNames::new(all.into_iter())
        };
        let col_pos = |name: &str| names.resolve(table, name);

        let mut cols: Vec<ColInfo> = table
            .columns
            .iter()
            .chain(expressions.iter().copied())
            .map(|c| {
                let stats = stats_as_stored(&c.stats);
                let has = has_stats(&stats);
                let width = if stats.avg_width > 0.0 {
                    stats.avg_width
                } else {
                    type_width(&c.ty)
                };
                ColInfo {
                    name: c.name.clone(),
                    ty: c.ty.clone(),
                    stats,
                    has_stats: has,
                    is_unique: false,
                    has_actual_range: false,
                    width,
                    expression: None,
                }
            })
            .collect();
        for c in cols.iter_mut().skip(table.columns.len()) {
            c.expression = Some(IndexExpression::of(&c.name, table, &heap_names));
        }

        // Heap size (spec 2.1).
        let data_width: f64 = cols[..table.columns.len()].iter().map(|c| c.width).sum();
        let pg = table
            .pg
            .clone()
            .unwrap_or_else(|| synthesize_pg_table(table, data_width));
        let reltuples = float4(pg.reltuples);
        let mut curpages = pg.pages.floor();
        if curpages < 10.0 && reltuples < 0.0 {
            curpages = 10.0;
        }
        let (tuples, allvisfrac) = if curpages <= 0.0 {
            (0.0, 0.0)
        } else {
            let density = if reltuples >= 0.0 && pg.relpages > 0.0 {
                reltuples / pg.relpages.floor().max(1.0)
            } else {
                default_density(data_width)
            };
            let allvis = pg.relallvisible.floor();
            let frac = if allvis <= 0.0 {
                0.0
            } else if allvis >= curpages {
                1.0
            } else {
                allvis / curpages
            };
            ((density * curpages).round_ties_even(), frac)
        };

        // Indexes (spec 2.2): pages physical, tuples = heap estimate.
        let mut indexes = Vec::new();
        for ix in &table.indexes {
            indexes.push(Rel::index_info(ix, tuples, &cols, &col_pos)?);
        }
        for ix in indexes.iter().filter(|ix| ix.method == IndexMethod::Btree) {
            if let Some(&lead) = ix.keys.first() {
                cols[lead].has_actual_range = true;
                if ix.unique && ix.keys.len() == 1 {
                    cols[lead].is_unique = true;
                }
            }
        }
        Ok(TableInfo {
            name: Name::new(&table.name),
            pages: curpages.max(0.0),
            tuples,
            allvisfrac,
            cols,
            indexes,
            names,
        })
    }
}

impl<'a> Rel<'a> {
    /// Gathers the inputs of spec section 2 and estimates rows (set_baserel_size_estimates).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn build(table: &Table, query: &Query) -> Result<Rel<'a>> {
        let info = TableInfo::build(table)?;
        let blank = Rel::blank(
            &info,
            Cow::Owned(info.cols.clone()),
            Cow::Owned(info.indexes.clone()),
        );
        blank.with_query(&info.names, table, query)
    }

    /// [`Rel::build`] over a prepared table, whose columns and indexes it borrows: only
    /// the query's half of spec section 2 is computed.
    pub fn for_query(info: &'a TableInfo, table: &Table, query: &Query) -> Result<Rel<'a>> {
        let blank = Rel::blank(
            info,
            Cow::Borrowed(&info.cols),
            Cow::Borrowed(&info.indexes),
        );
        blank.with_query(&info.names, table, query)
    }

    /// The relation before any clause: the table's facts only.
    fn blank(info: &TableInfo, cols: Cow<'a, [ColInfo]>, indexes: Cow<'a, [IndexInfo]>) -> Rel<'a> {
        Rel {
            name: info.name.clone(),
            pages: info.pages,
            tuples: info.tuples,
            allvisfrac: info.allvisfrac,
            total_table_pages: info.pages,
            cols,
            clauses: Vec::new(),
            rows: 0.0,
            width: 0.0,
            restrict_ops: QualOps::default(),
            needed: Vec::new(),
            pathkeys: Vec::new(),
            limit: None,
            indexes,
        }
    }

    fn with_query(mut self, names: &ColumnNames, table: &Table, query: &Query) -> Result<Rel<'a>> {
        let col_pos = |name: &str| names.resolve(table, name);

        // Restriction clauses, in query order (BETWEEN expands to two); their selectivity
        // follows below, once all are in.
        let mut clauses = std::mem::take(&mut self.clauses);
        clauses.reserve(query.predicates.len() + 1);
        for p in &query.predicates {
            let c = col_pos(p.column())?;
            let column = &self.cols[c];
            match p {
                Predicate::Cmp { op, value, .. } => {
                    let mut cl = clause(
                        c,
                        ClauseKind::Op {
                            op: *op,
                            value: coerce_value(column, value)?,
                        },
                    );
                    // `flag = true` is simplified to the bare column (eval_const_expressions),
                    // which cost_qual_eval charges nothing.
                    if column.ty == ColumnType::Bool && *op == CmpOp::Eq {
                        cl.ops = QualOps::default();
                    }
                    cl.ops.per_tuple += column.eval_ops();
                    clauses.push(cl)
                }
                Predicate::Between { lo, hi, .. } => {
                    for (op, v) in [(CmpOp::Ge, lo), (CmpOp::Le, hi)] {
                        let mut cl = clause(
                            c,
                            ClauseKind::Op {
                                op,
                                value: coerce_value(column, v)?,
                            },
                        );
                        cl.ops.per_tuple += column.eval_ops();
                        clauses.push(cl);
                    }
                }
                Predicate::In { values, .. } => {
                    if values.is_empty() {
                        return Err(Error::Unsupported("an empty IN list".into()));
                    }
                    let vals = values
                        .iter()
                        .map(|v| coerce_value(column, v))
                        .collect::<Result<Vec<_>>>()?;
                    // A one-element IN list is parsed as a plain `=`.
                    let mut cl = if vals.len() == 1 {
                        clause(
                            c,
                            ClauseKind::Op {
                                op: CmpOp::Eq,
                                value: vals[0].clone(),
                            },
                        )
                    } else {
                        clause(c, ClauseKind::AnyEq { values: vals })
                    };
                    // The left side is evaluated once per row, whatever the list.
                    cl.ops.per_tuple += column.eval_ops();
                    clauses.push(cl);
                }
            }
        }

        let mut rel = self;
        rel.limit = query.limit;
        rel.clauses = clauses;
        // clause_selectivity reads the table's statistics, never the other clauses.
        for i in 0..rel.clauses.len() {
            let selec = selfuncs::clause_selectivity(&rel, &rel.clauses[i]);
            let clause = &mut rel.clauses[i];
            clause.selec = selec;
            rel.restrict_ops = rel.restrict_ops.add(clause.ops);
        }
        let all: Vec<usize> = (0..rel.clauses.len()).collect();
        rel.rows = clamp_row_est(rel.tuples * selfuncs::clauselist_selectivity(&rel, &all));

        // Output width: target list plus ORDER BY columns (resjunk), not quals. The scan
        // must also produce the quals' columns (`needed`, for index-only scans).
        if query.select.is_empty() {
            // SELECT *: every column, in order, which ORDER BY and the quals only repeat;
            // nothing to sort or deduplicate at every sweep point.
            let heap = rel.cols.iter().filter(|c| c.expression.is_none());
            rel.width = heap.map(|c| c.width).sum::<f64>();
            rel.needed = (0..rel.cols.len())
                .filter(|&c| rel.cols[c].expression.is_none())
                .collect();
        } else {
            // Room for the quals' columns: growing the list would copy it.
            let mut out: Vec<usize> =
                Vec::with_capacity(query.select.len() + query.order_by.len() + rel.clauses.len());
            for s in &query.select {
                out.push(col_pos(s)?);
            }
            for k in &query.order_by {
                out.push(col_pos(&k.column)?);
            }
            costlab_model::sort::sort_by(&mut out, usize::cmp);
            out.dedup();
            rel.width = out.iter().map(|&c| rel.cols[c].width).sum::<f64>();
            let mut needed = out;
            needed.extend(rel.clauses.iter().map(|c| c.col));
            // An expression's value comes from the heap columns it reads.
            for c in &rel.clauses {
                if let Some(e) = &rel.cols[c.col].expression {
                    needed.extend(e.reads.iter().copied());
                }
            }
            costlab_model::sort::sort_by(&mut needed, usize::cmp);
            needed.dedup();
            rel.needed = needed;
        }

        // Query pathkeys: a column equated to a constant sorts trivially (spec 11).
        for k in &query.order_by {
            let c = col_pos(&k.column)?;
            let equated = rel
                .clauses
                .iter()
                .any(|cl| cl.col == c && matches!(cl.kind, ClauseKind::Op { op: CmpOp::Eq, .. }));
            if !equated && !rel.pathkeys.iter().any(|(pc, _)| *pc == c) {
                rel.pathkeys.push((c, k.descending));
            }
        }
        Ok(rel)
    }

    fn index_info(
        ix: &Index,
        heap_tuples: f64,
        cols: &[ColInfo],
        col_pos: &impl Fn(&str) -> Result<usize>,
    ) -> Result<IndexInfo> {
        let keys = ix
            .columns
            .iter()
            .map(|c| col_pos(c))
            .collect::<Result<Vec<_>>>()?;
        let mut covers = keys.clone();
        for c in &ix.include {
            covers.push(col_pos(c)?);
        }
        let key_width: f64 = keys.iter().map(|&k| cols[k].width).sum();
        let pg = ix.pg.clone().unwrap_or_else(|| match ix.method {
            IndexMethod::Btree => synthesize_pg_index(heap_tuples, key_width),
            IndexMethod::Gist => synthesize_gist_index(heap_tuples),
        });
        let pages = pg.pages.floor();
        Ok(IndexInfo {
            name: Name::new(&ix.name),
            method: ix.method,
            pages,
            tuples: heap_tuples,
            // plancat.c reads the root level of btrees only.
            tree_height: match ix.method {
                IndexMethod::Btree => pg.tree_height.floor(),
                IndexMethod::Gist => super::costsize::assumed_tree_height(pages),
            },
            unique: ix.unique || ix.primary,
            keys,
            covers,
            path_keys: Default::default(),
        })
    }

    /// Ids of all restriction clauses, as a range: callers filter or collect it as they
    /// need, instead of every call allocating a list.
    pub fn clause_ids(&self) -> std::ops::Range<usize> {
        0..self.clauses.len()
    }

    /// The schema's function calls the clauses `ids` make on `examined` rows: the
    /// executor evaluates a scan's quals cheapest first (order_qual_clauses, stable), each
    /// on the rows the ones before it let through. Only indexed expressions call them
    /// here; an index condition on one reads the index's stored value instead.
    pub fn clause_calls(&self, ids: impl Iterator<Item = usize>, examined: f64) -> f64 {
        // Every path of every table asks: no list is made unless the table has an
        // indexed expression at all.
        if self.cols.iter().all(|c| c.expression.is_none()) {
            return 0.0;
        }
        let mut order: Vec<usize> = ids.collect();
        costlab_model::sort::sort_by(&mut order, |&a, &b| {
            self.clauses[a]
                .ops
                .per_tuple
                .total_cmp(&self.clauses[b].ops.per_tuple)
        });
        let mut reach = examined;
        let mut calls = 0.0;
        for i in order {
            let cl = &self.clauses[i];
            if let Some(e) = &self.cols[cl.col].expression {
                calls += e.calls * reach;
            }
            reach *= cl.selec;
        }
        calls
    }

    pub fn qual_ops(&self, ids: &[usize]) -> QualOps {
        ids.iter()
            .fold(QualOps::default(), |a, &i| a.add(self.clauses[i].ops))
    }
}
