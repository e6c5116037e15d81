//! The planner's data structures for one base table, PostgreSQL's pathnodes.h: the cost
//! constants, a relation (`Rel`, RelOptInfo's counterpart) with its restriction clauses,
//! columns and indexes. Built by `plancat.rs`, read by the cost and selectivity functions.

use costlab_model::catalog::{ColumnStats, ColumnType, IndexMethod, Table, Value};
use costlab_model::error::{Error, Result};
use costlab_model::knobs::{Knob, KnobValues};
use costlab_model::plan::Name;
use costlab_model::query::CmpOp;
use std::borrow::Cow;

/// 8 kB heap and index blocks.
pub(crate) const BLCKSZ: f64 = 8192.0;

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

/// `x IN (...)` with at least this many constants is evaluated through a hash table,
/// decided at plan time before costing (clauses.c, MIN_ARRAY_SIZE_FOR_HASHED_SAOP).
const MIN_ARRAY_SIZE_FOR_HASHED_SAOP: usize = 9;

impl QualOps {
    /// cost_qual_eval of `x IN (n constants)`: hashed from MIN_ARRAY_SIZE_FOR_HASHED_SAOP
    /// on (the table built once, one hash and one comparison per row), else half the
    /// list compared on average.
    pub fn in_list(n: usize) -> QualOps {
        if n >= MIN_ARRAY_SIZE_FOR_HASHED_SAOP {
            QualOps {
                startup: n as f64,
                per_tuple: 2.0,
            }
        } else {
            QualOps {
                startup: 0.0,
                per_tuple: n as f64 * 0.5,
            }
        }
    }

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
    pub(crate) path_keys: std::cell::OnceCell<IndexKeys>,
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
