//! Multi-table query blocks: what both engines' join planners read.
//!
//! A [`QueryBlock`] lists its table references, each with the sargable local predicates
//! the single-table planners understand ([`Predicate`]: comparisons, BETWEEN, IN); the
//! equi-join edges; every other condition as a [`Filter`] (LIKE, `<>`, column against
//! column, OR trees, comparisons with a subquery) with its kind, from which each engine
//! derives its own default selectivity (MySQL's `COND_FILTER_*` guesses in
//! [`FilterKind::mysql_filter`]; PostgreSQL's from the filter's text), and its true
//! selectivity for counting work. `IN`/`EXISTS`/`NOT EXISTS`/`NOT IN` subqueries that
//! can be flattened are [`Nest`]s of tables inside the block (semi or anti), connected to
//! the outer tables by ordinary join edges; whether an engine flattens a given origin is
//! the planner's decision. Scalar subqueries and an `IN` with GROUP BY are
//! [`Subquery`]s with their own block and the correlation to the outer block. A view or
//! derived table is a [`Source::Derived`]. GROUP BY, ORDER BY and LIMIT are kept as
//! columns and flags, enough to cost a sort or temporary table.

use crate::expr::Expr;
use crate::plan::Name;
use crate::query::Predicate;

/// A column of one of the block's table references.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColRef {
    pub table: usize,
    pub column: Name,
}

/// Where a table reference's rows come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Base,
    /// A materialized derived table or view (Q15's revenue0): its block, and its output
    /// columns with the block column each one is (grouping key or aggregate).
    Derived {
        block: Box<QueryBlock>,
        columns: Vec<Name>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct TableRef {
    pub alias: Name,
    /// Base table name (or the derived table's name).
    pub table: Name,
    pub source: Source,
    /// Every column of this table the query reads (covering-index decisions).
    pub uses: Vec<Name>,
    /// Sargable constant predicates on this table alone.
    pub preds: Vec<Predicate>,
    /// The semi/anti nest this table belongs to, if any.
    pub nest: Option<usize>,
    /// LEFT JOIN: the inner table must follow these tables (Q13).
    pub outer_join_after: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct JoinEdge {
    pub a: ColRef,
    pub b: ColRef,
}

/// The shape of a non-sargable condition, from which engines derive default selectivities.
#[derive(Clone, Debug, PartialEq)]
pub enum FilterKind {
    /// `a = b` (column against column of other tables, or against a subquery).
    Eq,
    /// `a <> b`.
    Ne,
    /// `<`, `<=`, `>`, `>=`.
    Ineq,
    Between,
    Like,
    NotLike,
    /// `col IN (n values)`.
    InList(usize),
    /// A predicate on an expression (`SUBSTR(c_phone,1,2) IN (...)`): no column to
    /// estimate from.
    Function,
    /// `x IN (SELECT ...)` kept as a subquery predicate.
    InSubquery,
    /// `col IS NULL`.
    IsNull,
    /// `NOT x` (other than NOT LIKE).
    Not(Box<FilterKind>),
    And(Vec<FilterKind>),
    Or(Vec<FilterKind>),
}

/// MySQL's `COND_FILTER_*` defaults (sql/item.h; mysql-cost-model.md §5.2).
pub const COND_FILTER_EQUALITY: f64 = 0.1;
pub const COND_FILTER_INEQUALITY: f64 = 0.3333;
pub const COND_FILTER_BETWEEN: f64 = 0.1111;

impl FilterKind {
    /// The filtering effect MySQL's `get_filtering_effect` assigns without histograms:
    /// `=` 0.1, `<>` 1 - 0.1, inequality 0.3333, BETWEEN and LIKE 0.1111 (LIKE "is
    /// similar to BETWEEN", Item_func_like), IS NULL as `=`, NOT x = 1 - x, IN n·0.1 capped at 0.5, AND a
    /// product, OR `a + b - ab`; expressions and subquery predicates do not contribute.
    pub fn mysql_filter(&self) -> f64 {
        match self {
            FilterKind::Eq => COND_FILTER_EQUALITY,
            FilterKind::Ne => 1.0 - COND_FILTER_EQUALITY,
            FilterKind::Ineq => COND_FILTER_INEQUALITY,
            FilterKind::Between | FilterKind::Like => COND_FILTER_BETWEEN,
            FilterKind::NotLike => 1.0 - COND_FILTER_BETWEEN,
            FilterKind::InList(n) => (*n as f64 * COND_FILTER_EQUALITY).min(0.5),
            FilterKind::Function | FilterKind::InSubquery => 1.0,
            FilterKind::IsNull => COND_FILTER_EQUALITY,
            FilterKind::Not(k) => 1.0 - k.mysql_filter(),
            FilterKind::And(v) => v.iter().map(FilterKind::mysql_filter).product(),
            FilterKind::Or(v) => v
                .iter()
                .map(FilterKind::mysql_filter)
                .fold(0.0, |acc, f| acc + f - acc * f),
        }
    }
}

/// A condition that is not a sargable constant predicate of one table.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    /// The condition as written (sqlparser's printing): for display and for a workload
    /// to find its truth by; no planner reads it.
    pub sql: Name,
    /// The condition, typed: what the planners read.
    pub expr: Expr,
    /// Tables it reads; it applies once all of them are joined.
    pub tables: Vec<usize>,
    pub kind: FilterKind,
    /// True share of the rows (of its tables, joined) that pass, from dbt3.md.
    pub true_selectivity: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NestKind {
    Semi,
    Anti,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NestOrigin {
    In,
    Exists,
    NotExists,
    NotIn,
}

/// A flattenable subquery: its tables are in the block with `nest` set to this nest.
#[derive(Clone, Debug, PartialEq)]
pub struct Nest {
    pub kind: NestKind,
    pub origin: NestOrigin,
    pub tables: Vec<usize>,
    /// True share of the outer rows that have at least one match.
    pub true_match: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubqueryKind {
    /// Returns one value; compared in a [`Filter`] of the outer block.
    Scalar,
    /// `x IN (SELECT ... GROUP BY ... HAVING ...)`: not flattenable (Q18).
    InGrouped,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Subquery {
    pub kind: SubqueryKind,
    pub block: QueryBlock,
    /// (column of the subquery's block, outer column it equals); empty = uncorrelated.
    pub correlation: Vec<(ColRef, ColRef)>,
    /// The outer filter that uses its value.
    pub filter: Option<usize>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryBlock {
    pub tables: Vec<TableRef>,
    pub joins: Vec<JoinEdge>,
    pub filters: Vec<Filter>,
    pub nests: Vec<Nest>,
    pub subqueries: Vec<Subquery>,
    pub group_by: Vec<ColRef>,
    /// ORDER BY on an expression or aggregate (a sort after grouping, or of the rows).
    pub order_by_expression: bool,
    /// GROUP BY on an expression (`group_by` holds the columns it reads).
    pub group_by_expression: bool,
    pub order_by: Vec<ColRef>,
    /// The columns of the block's tables its result reads: the select list (every column
    /// for `*`), GROUP BY, ORDER BY and HAVING; what a plan must carry to its top.
    pub outputs: Vec<ColRef>,
    pub limit: Option<f64>,
    /// The select list, typed, in the order written (`*` is [`Expr::Star`]).
    pub select: Vec<SelectItem>,
    /// GROUP BY's expressions, typed.
    pub group_items: Vec<Expr>,
    /// ORDER BY's expressions, typed, each with whether it sorts descending.
    pub order_items: Vec<(Expr, bool)>,
    /// HAVING, typed.
    pub having: Option<Expr>,
    /// A second aggregation level over this block's groups (TPC-H Q13's `SELECT c_count,
    /// count(*) ... FROM (this block) GROUP BY c_count`): the block is read as the inner
    /// level with a sort after grouping; the outer level's items are kept for EXPLAIN.
    pub regroup: Option<Box<Regroup>>,
    /// Aggregates without GROUP BY (one output row).
    pub scalar_aggregate: bool,
    /// True number of groups (or output rows, after HAVING) of the workload's data; 0 when
    /// unknown. Only the simulation's work reads it.
    pub true_groups: f64,
}

impl QueryBlock {
    /// Sets what no workload data says (a query read from a user's text): each filter's
    /// true selectivity to MySQL's default guess for its kind ([`FilterKind::mysql_filter`]),
    /// each nest's true match to one half, here and in every derived table and sub-select.
    /// An assumption, not a measurement: the simulation's times for such a query rest on it.
    pub fn assume_unknown_truth(&mut self) {
        for f in &mut self.filters {
            if f.true_selectivity.is_nan() {
                f.true_selectivity = f.kind.mysql_filter();
            }
        }
        for n in &mut self.nests {
            if n.true_match.is_nan() {
                n.true_match = 0.5;
            }
        }
        for t in &mut self.tables {
            if let Source::Derived { block, .. } = &mut t.source {
                block.assume_unknown_truth();
            }
        }
        for s in &mut self.subqueries {
            s.block.assume_unknown_truth();
        }
    }

    /// Whether the block needs a sort or temporary table (GROUP BY or ORDER BY).
    pub fn needs_sort(&self) -> bool {
        !self.group_by.is_empty()
            || !self.order_by.is_empty()
            || self.order_by_expression
            || self.group_by_expression
    }
}

/// One item of a select list.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectItem {
    pub expr: Expr,
    /// `AS name`, as written.
    pub alias: Option<Name>,
}

/// The outer level of a query that groups a grouped derived table again: its select
/// list, GROUP BY and ORDER BY, typed in the inner block's columns (the derived table's
/// output names are left as names: the inner select list's aliases say what they are).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Regroup {
    pub select: Vec<SelectItem>,
    pub group_items: Vec<Expr>,
    pub order_items: Vec<(Expr, bool)>,
}

/// A query the join planners read: its block, and the text it was read from.
#[derive(Clone, Debug, PartialEq)]
pub struct JoinQuery {
    /// Its number in its workload (DBT3's 1 to 22), shown in plans.
    pub number: u8,
    pub title: Name,
    /// The SQL text (DBT3: the kit's MySQL text with the validation parameters).
    pub sql: Name,
    pub block: QueryBlock,
}
