//! The join planner's data structures, as PostgreSQL's pathnodes.h holds them: the
//! prepared tables and settings (`PgJoinPlanner`, `PgJoinEnv`), one planning call's state
//! (`Planner`, PlannerInfo's part that outlives a block), one query block made ready for
//! the join search (`Block`: base relations, equivalence classes, special joins, filters),
//! and a join relation with its paths (`JoinRel`). Types only, and the small helpers every
//! planner file reads; the functions that build and search them live in the files named
//! after PostgreSQL's.

use std::borrow::Cow;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use crate::pathnodes::{QualOps, Rel, TableInfo};
use crate::settings::PgOptions;
use costlab_model::block::ColRef;
use costlab_model::catalog::Table;
use costlab_model::catalog::Value;
use costlab_model::knobs::EngineVersion;
use costlab_model::plan::{KeyNames, Name};
use costlab_model::query::Query;

use super::clauses::{self, Expr, Op};
use super::costs::ScanSel;
use super::costs::{JKind, JoinConsts, Qual};
use super::model::{JPath, Node};
use smallvec::SmallVec;

/// Planner settings beyond the cost knobs (GUCs that shape the search).
#[derive(Clone, Debug, PartialEq)]
pub struct PgJoinEnv {
    pub version: EngineVersion,
    pub from_collapse_limit: usize,
    pub join_collapse_limit: usize,
    /// The enable_* switches (validation forces plans with them).
    pub opts: crate::settings::PgOptions,
    /// The schema's functions with a cost other than a built-in's (scenario file).
    pub functions: Vec<costlab_model::catalog::Function>,
    /// The third seed's patch series ("ORDER BY value handed up", v8 0001-0007) rather
    /// than stock PostgreSQL. See `handed_up` in the planner's modules for each change.
    pub handed_up: bool,
}

impl Default for PgJoinEnv {
    fn default() -> Self {
        PgJoinEnv {
            version: EngineVersion::Pg15,
            from_collapse_limit: 8,
            join_collapse_limit: 8,
            opts: crate::settings::PgOptions::default(),
            functions: Vec::new(),
            handed_up: false,
        }
    }
}

/// The DBT3 tables (the derived catalog's `pg` set, or statistics imported from a real
/// server) prepared once for one planner setting.
pub struct PgJoinPlanner {
    pub(super) tables: Vec<Table>,
    pub(super) infos: Vec<TableInfo>,
    /// The kit's partial indexes per table, planned by the join planner itself.
    pub(super) partials: Vec<Vec<PartialIndex>>,
    pub(super) env: PgJoinEnv,
}

/// How a sub-select is planned.
#[derive(Clone, Debug, Default)]
pub(crate) struct BlockOpts {
    /// A HAVING clause compares the aggregate (selectivity 1/3).
    pub having: bool,
    /// Columns of the block equal to an outer Param (correlated SubPlan).
    pub correlated: Vec<ColRef>,
    /// A condition of the outer query on an aggregate output, pushed into HAVING.
    pub having_op: Option<super::clauses::Op>,
    /// That condition over the block's own expressions, for EXPLAIN (Q15:
    /// `(SUM(...)) = (SELECT MAX(...) ...)`).
    pub having_text: Option<HavingText>,
    /// Planned as part of another block (a derived table, a sub-select, a nest).
    pub nested: bool,
    /// The true share of groups that pass `having_op` (the outer filter's).
    pub having_true_sel: Option<f64>,
}

/// A HAVING condition as EXPLAIN shows it: the condition, what its sub-select shows as
/// (`$0`) and that sub-select's first select item (its type).
#[derive(Clone, Debug)]
pub(crate) struct HavingText {
    pub cond: costlab_model::expr::Expr,
    pub sub: &'static str,
    pub sub_item: Option<costlab_model::expr::Expr>,
}

pub(crate) struct Planner<'a> {
    pub db: &'a PgJoinPlanner,
    pub jc: JoinConsts,
    pub version: EngineVersion,
    pub opts: PgOptions,
    pub keys: KeyNames,
}

pub(crate) struct JoinRel {
    pub rows: f64,
    /// The rows the join really returns (`Block::true_rows`).
    pub true_rows: f64,
    pub width: f64,
    pub paths: Vec<JPath>,
    /// Partial paths (partial_pathlist), cheapest total first ([`add_partial_path`]).
    pub partial: Vec<JPath>,
    /// consider_parallel: its paths may run in workers.
    pub consider_parallel: bool,
}

impl Block<'_> {
    /// consider_parallel of the relation set `relids` (set_rel_consider_parallel,
    /// build_join_rel): parallel query is on and no restricted clause is evaluated in it.
    pub(crate) fn consider_parallel(&self, relids: u64) -> bool {
        self.parallel.is_some() && !self.restricted.iter().any(|&r| r != 0 && r & !relids == 0)
    }
}

/// A pathkey's identity: the column's equivalence class, or a number of its own outside them.
pub(crate) fn pk_of(b: &Block, k: &ColKey) -> usize {
    match b.ec_of.get(k) {
        Some(&e) => e,
        None => {
            100_000
                + k.rel * 1000
                + (k.col
                    .bytes()
                    .fold(0usize, |a, c| a.wrapping_mul(31).wrapping_add(c as usize))
                    % 1000)
        }
    }
}

pub(crate) fn bit(i: usize) -> u64 {
    1u64 << i
}

/// A join equality between two relations' columns.
pub(crate) type EqEdge = (ColKey, ColKey);

/// The relations of `tables` (block table indexes) as a set; a NOT IN nest's tables,
/// which have no relation (`ref_rel` `None`), add nothing.
pub(crate) fn relids(ref_rel: &[Option<usize>], tables: &[usize]) -> u64 {
    tables
        .iter()
        .filter_map(|&t| ref_rel[t])
        .fold(0, |a, r| a | bit(r))
}

/// A column of a relation of the join problem. The name is shared: keys are cloned into
/// classes, clauses and sort keys all through the join search.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ColKey {
    pub rel: usize,
    pub col: Name,
}

/// What a relation of the join problem is.
pub(crate) enum RelKind<'a> {
    Table {
        tidx: usize,
        rel: Box<Rel<'a>>,
        query: Query,
    },
    /// A sub-select in FROM (Q15's view) or a grouped IN sub-select (Q18): its planned
    /// path and its output columns (block column names).
    Sub {
        path: JPath,
        cols: Vec<String>,
        /// Output columns that are unique (its GROUP BY key).
        unique: Vec<String>,
        /// The sub-select of a sublink (Q18's grouped IN), whose scan is always elided.
        sublink: bool,
    },
}

pub(crate) struct BaseRel<'a> {
    pub alias: Name,
    pub kind: RelKind<'a>,
    pub rows: f64,
    pub tuples: f64,
    pub width: f64,
    /// Filters evaluated at the scan beyond pg's sargable clauses: operator calls
    /// (already in the pg Rel's restriction cost) and extra cost units per examined row
    /// (SubPlans) plus startup (hashed SubPlans).
    pub filter_ops: QualOps,
    /// Product of the selectivities of those filters.
    pub filter_sel: f64,
    /// The same product from the workload's true selectivities, where it has them.
    pub true_sel: f64,
    /// Rows the relation really returns: the single-table model's rows for the
    /// sargable conditions, times `true_sel` (a sub-select: its true output rows).
    pub true_rows: f64,
    pub extra: Qual,
    pub filter_text: Vec<String>,
    /// The single-table filters one by one (partial indexes imply some).
    pub filters: Vec<SingleFilter>,
    pub paths: Vec<JPath>,
    /// Partial paths (partial_pathlist), cheapest total first.
    pub partial: Vec<JPath>,
    /// Columns the block reads (for index-only decisions and widths).
    pub uses: Vec<Name>,
    /// The patched build only: (heap column, indexed expression) pairs where the block
    /// reads the column only inside the expression ([`handed_up_columns`]), so that an
    /// index-only scan returning the expression's value covers it.
    pub handed_up: Vec<(String, String)>,
}

/// A LEFT, semi or anti join the flattening produced (SpecialJoinInfo).
#[derive(Clone, Debug)]
pub(crate) struct Special {
    pub kind: JKind,
    pub lhs: u64,
    pub rhs: u64,
    /// Semi and anti joins: the true share of outer rows with a match (the nest's).
    pub true_match: f64,
}

/// A condition on two or more relations, applied where they meet.
#[derive(Clone, Debug)]
pub(crate) struct JFilter {
    pub rels: u64,
    /// Selectivity as an inner-join clause and under a semi/anti join.
    pub sel: f64,
    pub sel_semi: f64,
    /// The true selectivity, where the workload gives it.
    pub true_sel: f64,
    pub qual: Qual,
    pub text: String,
    pub cols: Vec<ColKey>,
    /// `col = (correlated sub-select)`: hashable between the column's relation and the
    /// relations the sub-select reads (Q2's `ps_supplycost = (SubPlan)`).
    pub hash_col: Option<ColKey>,
    /// Calls of the schema's own functions one evaluation makes (for the work).
    pub calls: f64,
}

/// Statistics of one column as the join estimators read them. The MCV list and the
/// histogram are borrowed from the catalog: the join search asks for a column's
/// statistics for every pair of relations it considers, and copying them (text values)
/// each time cost more than the estimates themselves.
#[derive(Clone, Debug)]
pub(crate) struct VarStats<'s> {
    pub nd: f64,
    pub nd_default: bool,
    pub nullfrac: f64,
    pub mcv: &'s [(Value, f64)],
    pub hist: &'s [Value],
    /// rows and tuples of the column's relation.
    pub rows: f64,
    pub tuples: f64,
    pub unique: bool,
}

pub(crate) struct Block<'a> {
    pub rels: Vec<BaseRel<'a>>,
    /// Parallel query for this block (standard_planner's parallelModeOK): the workers'
    /// limits, None when max_parallel_workers_per_gather is 0.
    pub parallel: Option<crate::costsize::ParallelParams>,
    /// Relation sets a parallel-restricted clause reads (a correlated SubPlan's filter,
    /// a column compared with an outer query's Param): no relation holding one of them
    /// is consider_parallel.
    pub restricted: Vec<u64>,
    pub ecs: Vec<Vec<ColKey>>,
    pub ec_of: FxHashMap<ColKey, usize>,
    /// Join edges as given (clause choice prefers them, §1).
    pub edges: Vec<(ColKey, ColKey)>,
    pub specials: Vec<Special>,
    pub jfilters: Vec<JFilter>,
    /// Costs added to the top of the block (InitPlans, §6.2).
    pub initplan_cost: f64,
    /// Sub-selects shown under the top node: (plan, "InitPlan" / "SubPlan", relations
    /// whose rows call it (0: once), the condition's selectivity).
    pub initplans: Vec<(Rc<Node>, &'static str, u64, f64)>,
    /// Uncorrelated scalar sub-select compared in HAVING (Q11): selectivity 1/3.
    pub having: bool,
    /// A pushed-down condition on an aggregate output (see `BlockOpts::having_op`).
    pub having_op: Option<Op>,
    /// The true share of groups that pass `having_op`.
    pub having_true_sel: Option<f64>,
    /// The HAVING condition's text and what its sub-select shows as (`$0`), when the
    /// block's SQL does not spell it (see `BlockOpts::having_text`).
    pub having_text: Option<HavingText>,
    /// Planned as part of another block (`BlockOpts::nested`).
    pub nested: bool,
    /// EXPLAIN's name of each of `initplans` ("InitPlan 1 (returns $0)", "SubPlan 1").
    pub initplan_names: Vec<String>,
    /// ORDER BY one expression that an expression index holds: `order` is that key, and
    /// an index scan in its order needs no sort (build_index_pathkeys matches the
    /// expression like a column).
    pub order_by_index_expression: bool,
    /// ORDER BY `key <-> point`: the point as EXPLAIN prints it (`'(500,500)'::point`),
    /// for the kNN scan's `Order By:` line.
    pub knn_point: Option<String>,
    /// The columns the block's result reads ([`QueryBlock::outputs`]).
    pub out_keys: Vec<ColKey>,
    pub group: Vec<ColKey>,
    pub order: Vec<ColKey>,
    /// Every relation's consider_startup: root->tuple_fraction > 0, which a LIMIT sets
    /// (preprocess_limit). A sub-select here is planned for full retrieval (tuple_fraction
    /// 0: scalar sublinks, and FROM sub-selects under a join); hashed ANY sublinks too.
    pub consider_startup: bool,
    /// Per relation, per column it reads (a table's `uses`, a sub-select's `cols`), what
    /// decides whether a join relation must pass the column up: filled once the classes
    /// and join filters are final (`col_needs`), for `width_above`, which runs for every
    /// join relation of the search.
    pub col_needs: Vec<Vec<ColNeed>>,
    /// Per class, per member: its hash bucket statistics (`stats`, the relation's rows),
    /// filled with `col_needs`, empty before; every hash join candidate reads its inner's,
    /// and `true_rows_as` its distinct count.
    pub ec_buckets: Vec<Vec<super::costs::BucketInput>>,
}

/// Whether a column is needed above a join relation, reduced to relation bitmaps (see
/// `Block::needed_above`), and its width.
#[derive(Clone, Debug, Default)]
pub(crate) struct ColNeed {
    /// The block's result reads it.
    pub out: bool,
    /// The relations of its equivalence class (0: in none).
    pub ec_rels: u64,
    /// The relations of each join filter that reads it.
    pub filter_rels: SmallVec<[u64; 2]>,
    /// Its width, for a table column the catalog has (0 otherwise).
    pub width: f64,
}

impl ColNeed {
    /// Needed above join relation `relids`: `Block::needed_above`, from bitmaps.
    pub(crate) fn above(&self, relids: u64) -> bool {
        self.out
            || self.ec_rels & !relids != 0
            || self.filter_rels.iter().any(|&f| f & !relids != 0)
    }
}

/// A partial index of a table: the index, its predicate (parsed) and the share of rows it
/// holds.
#[derive(Clone, Debug)]
pub(crate) struct PartialIndex {
    pub index: costlab_model::catalog::Index,
    pub fraction: Option<f64>,
    /// The predicate's conjuncts, parsed.
    pub conds: Vec<Expr>,
}

impl PartialIndex {
    pub fn new(index: costlab_model::catalog::Index, pred: &str, fraction: Option<f64>) -> Self {
        PartialIndex {
            index,
            fraction,
            conds: pred.split(" AND ").map(clauses::parse_condition).collect(),
        }
    }
}

/// One single-table filter the single-table model has no clause for.
#[derive(Clone, Debug)]
pub(crate) struct SingleFilter {
    /// Calls of the schema's functions per evaluation.
    pub calls: f64,
    /// The condition as EXPLAIN prints it at the scan.
    pub text: String,
    pub expr: Expr,
    pub ops: QualOps,
    pub sel: f64,
    pub cols: Vec<String>,
}

/// An index as the parameterized / partial path builder sees it.
#[derive(Clone, Debug)]
pub(crate) struct IxDesc<'r> {
    pub name: costlab_model::plan::Name,
    pub pages: f64,
    pub tuples: f64,
    pub height: f64,
    pub unique: bool,
    /// Borrowed from a plain index (param_paths runs for every outer set it is asked
    /// about), owned for a partial index's description.
    pub keys: Cow<'r, [usize]>,
    pub covers: Cow<'r, [usize]>,
    /// Restriction clauses and filters the predicate implies (not rechecked).
    pub implied_clauses: Vec<usize>,
    pub implied_filters: Vec<usize>,
    /// Estimated selectivity of the predicate (added to the index quals').
    pub pred_sel: f64,
}

/// An EXPLAIN detail line, built only with the `explain-text` feature (the page leaves
/// the text out and never prints it). Join Type lines are not built here: plan
/// signatures read them.
#[inline]
pub(crate) fn text<T>(f: impl FnOnce() -> T) -> Option<T> {
    #[cfg(feature = "explain-text")]
    {
        Some(f())
    }
    #[cfg(not(feature = "explain-text"))]
    {
        let _ = f;
        None
    }
}

/// The join type a path is built for (joinpath.c's jointype argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PJ {
    Inner,
    Left,
    /// LEFT join with the preserved side as the inner (hash/merge "Right Join").
    Right,
    Semi,
    Anti,
    /// Anti join with the preserved side as the (hashed or merged) inner, emitting its
    /// unmatched rows at the end: "Right Anti Join", PostgreSQL 16 on (hash and merge).
    RightAnti,
    /// Semi join with the semi join's outer side hashed, each of its rows emitted at its
    /// first match: "Right Semi Join", PostgreSQL 18 on (hash joins only).
    RightSemi,
    /// Semi join run as an inner join against the unique-ified RHS (§6.1).
    UniqueInner,
    UniqueOuter,
}

impl PJ {
    pub(crate) fn kind(self) -> JKind {
        match self {
            PJ::Semi | PJ::RightSemi => JKind::Semi,
            PJ::Anti | PJ::RightAnti => JKind::Anti,
            PJ::Left | PJ::Right => JKind::Left,
            _ => JKind::Inner,
        }
    }
    /// The preserved (or semi) side is the inner: no nested loops, no parameterized inner,
    /// no output order.
    pub(crate) fn is_right(self) -> bool {
        matches!(self, PJ::Right | PJ::RightAnti | PJ::RightSemi)
    }
    /// The join type final_cost_* tests (`path->jpath.jointype == JOIN_SEMI/ANTI`): a
    /// reversed semi or anti join is costed as an inner join (with the semi factors only
    /// when its inner is unique).
    pub(crate) fn cost_kind(self) -> JKind {
        match self {
            PJ::RightAnti | PJ::RightSemi => JKind::Inner,
            _ => self.kind(),
        }
    }
    pub(crate) fn label(self) -> Option<&'static str> {
        match self {
            PJ::Left => Some("Join Type: Left"),
            PJ::Right => Some("Join Type: Right"),
            PJ::Semi => Some("Join Type: Semi"),
            PJ::Anti => Some("Join Type: Anti"),
            PJ::RightAnti => Some("Join Type: Right Anti"),
            PJ::RightSemi => Some("Join Type: Right Semi"),
            _ => None,
        }
    }
}

/// A join clause of a relation pair: members `oi` (outer side) and `ii` (inner side) of
/// class `ec`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EqClause<'b> {
    pub(crate) ec: usize,
    pub(crate) oi: usize,
    pub(crate) ii: usize,
    pub(crate) outer: &'b ColKey,
    pub(crate) inner: &'b ColKey,
    pub(crate) sel: f64,
}

/// A relation pair's join clauses.
pub(crate) type Clauses<'b> = SmallVec<[EqClause<'b>; 4]>;

/// Equivalence classes or clause positions in an order (merge keys): a few each.
pub(crate) type Keys = SmallVec<[usize; 4]>;

/// costs::sort's (startup, total, comparisons, spill bytes).
pub(crate) type SortCost = (f64, f64, f64, f64);

/// A Sort's costs and its own disabled nodes (enable_sort).
pub(crate) type DisabledSort = (SortCost, u32);

/// The join search's maps keyed by relation sets (bitmaps): rustc-hash's hasher, one
/// multiplication per word instead of SipHash, which the search's lookups (one per pair of
/// relations and more) spent most of their time in.
pub(crate) type RelidsMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// One join search: the join relations found so far, and what the search would
/// otherwise recompute for every pair of relations it tries. Everything here is a pure
/// function of the block, so caching changes no result.
pub(crate) struct Search {
    pub(crate) rels: RelidsMap<u64, JoinRel>,
    /// Join relations by level (number of base relations).
    pub(crate) levels: Vec<Vec<u64>>,
    /// Per class, the relations of its members.
    pub(crate) ec_rels: Vec<u64>,
    /// Per base relation, the relations it shares a class with.
    pub(crate) ec_neighbours: Vec<u64>,
    /// Per class with m members, entry i*m+j: eqjoinsel_inner of member i (outer side)
    /// against member j (inner side), for members of different relations.
    pub(crate) ec_sel: Vec<Vec<f64>>,
    /// Per class, entry i*m+j: members i and j are the clause of an anti or left join
    /// as the query writes it (one member inside the join's right side, one outside).
    pub(crate) ec_outer_join_edge: Vec<Vec<bool>>,
    /// Per class, entry i*m+j: mergejoinscansel, once a merge join asks for it.
    pub(crate) scansel: Vec<Vec<Option<ScanSel>>>,
    /// The order the query wants (GROUP BY, else ORDER BY) as pathkeys.
    pub(crate) query_keys: Vec<usize>,
    /// param_paths per (relation, outer relations that supply its parameters).
    pub(crate) param_paths: RelidsMap<(usize, u64), Rc<[JPath]>>,
    /// The node of a join candidate not yet built (see `Candidates`).
    pub(crate) pending: Rc<Node>,
    /// Memoize's distinct parameter values per (parameter classes as bits, outer
    /// relations, calls as bits): estimate_num_groups, a pure function of those.
    pub(crate) memo_groups: std::cell::RefCell<RelidsMap<(u64, u64, u64), f64>>,
    /// `inner_unique` per (inner relation, clause columns packed, number of clauses).
    pub(crate) inner_unique: std::cell::RefCell<RelidsMap<(u64, u64, u64), bool>>,
}

/// The bit of an equivalence class in `TrueRows::order` and `probes` (none past 63).
pub(crate) fn ec_bit(ec: usize) -> u64 {
    if ec < 64 {
        1 << ec
    } else {
        0
    }
}
