//! The SQL front end: a SELECT statement, in PostgreSQL's or MySQL's dialect, read over
//! sqlparser-rs into the [`QueryBlock`] both engines' join planners read.
//!
//! What it reads: joins written either way (comma lists, `JOIN ... ON` / `USING`, `LEFT
//! JOIN`), WHERE conditions with AND / OR / NOT, comparisons, BETWEEN, IN lists, LIKE, IS
//! NULL, expressions and function calls, EXISTS / IN / NOT EXISTS / NOT IN sub-selects and
//! scalar sub-selects (correlated by equalities or not), derived tables, views (`CREATE
//! VIEW` before the query) and `WITH`, GROUP BY / HAVING / ORDER BY / LIMIT, date literals,
//! `DATE '...'`, intervals and MySQL's `DATE_ADD` / `DATE_SUB`.
//!
//! How a statement becomes a block (the shapes both optimizers give it):
//! - Tables of the FROM list are the block's tables; a derived table or view without
//!   grouping, aggregates, DISTINCT or LIMIT is merged into the block (both engines merge
//!   it), any other is a [`Source::Derived`] with its own block.
//! - A WHERE conjunct `a.x = b.y` between two tables is a join edge; `col op constant`,
//!   `BETWEEN` and `IN (constants)` on one table are its sargable predicates (constants
//!   folded: `0.06 - 0.01` in decimal, dates with intervals); anything else is a
//!   [`Filter`] with its text and a [`FilterKind`]. An OR whose every arm holds the same
//!   join equality gives that equality up as a join edge (MySQL's `merge_key_fields`,
//!   PostgreSQL's OR arm factoring).
//! - EXISTS, NOT EXISTS, IN and NOT IN over a sub-select that could be merged are semi or
//!   anti [`Nest`]s of the block (an IN inside an IN joins the same nest); an IN over a
//!   grouped sub-select and every scalar sub-select are [`Subquery`]s, correlated through
//!   equalities `inner = outer`.
//! - A query whose only FROM item is a grouped derived table and which groups again (a
//!   second aggregation level, TPC-H Q13) is read as the derived table's block with a sort
//!   after grouping: the second level's own work is not modelled.
//!
//! What the models cannot plan is refused by name and position ([`Error::Sql`]), never read
//! wrongly in silence. The truth a simulation counts with (true selectivities, matches and
//! groups) is not in the text: a block comes back with it unknown (NaN, 0 groups) and a
//! workload fills it in.

use std::borrow::Cow;

use sqlparser::ast::{
    self, BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr,
    JoinConstraint, JoinOperator, ObjectName, SelectItem, SetExpr, Spanned, Statement, TableFactor,
    UnaryOperator, Value as SqlValue,
};
use sqlparser::dialect::{MySqlDialect, PostgreSqlDialect};

mod lower;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Span;

use costlab_model::block::{
    ColRef, Filter, FilterKind, JoinEdge, Nest, NestKind, NestOrigin, QueryBlock, Source, Subquery,
    SubqueryKind, TableRef,
};
use costlab_model::catalog::{ColumnType, Table, Value};
use costlab_model::error::{Error, Result};
use costlab_model::plan::Name;
use costlab_model::query::{CmpOp, Predicate};

/// Whose SQL the text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Postgres,
    Mysql,
}

/// `sql` read over `tables` as a query of one's own: number 1, its true selectivities
/// unknown (the estimates stand for them).
pub fn own_query(
    sql: &str,
    dialect: Dialect,
    tables: &[costlab_model::catalog::Table],
    title: costlab_model::plan::Name,
) -> costlab_model::Result<costlab_model::block::JoinQuery> {
    let mut block = read_query(sql, dialect, tables)?;
    block.assume_unknown_truth();
    Ok(costlab_model::block::JoinQuery {
        number: 1,
        title,
        sql: costlab_model::plan::Name::from(sql),
        block,
    })
}

/// Reads `text` (optionally `CREATE VIEW` statements, then one SELECT, then `DROP VIEW`s)
/// against `tables`, into a block whose truth is unknown.
pub fn read_query(text: &str, dialect: Dialect, tables: &[Table]) -> Result<QueryBlock> {
    let statements = match dialect {
        Dialect::Postgres => Parser::parse_sql(&PostgreSqlDialect {}, text),
        Dialect::Mysql => Parser::parse_sql(&MySqlDialect {}, text),
    }
    .map_err(|e| parse_error(text, &e.to_string()))?;
    let mut r = Reader {
        text,
        tables,
        views: Vec::new(),
        scopes: Vec::new(),
        blocks: Vec::new(),
    };
    let mut query = None;
    for st in &statements {
        match st {
            Statement::CreateView(v) if query.is_none() => {
                let columns = v.columns.iter().map(|c| c.name.value.clone()).collect();
                r.views.push(View {
                    name: object_name(&v.name).into_owned(),
                    columns,
                    query: &v.query,
                });
            }
            Statement::Query(q) if query.is_none() => query = Some(q),
            Statement::Drop { .. } if query.is_some() => {}
            other => {
                return Err(r.err(
                    other.span(),
                    "only one SELECT (after any CREATE VIEW, before any DROP VIEW) is read",
                ))
            }
        }
    }
    let Some(q) = query else {
        return Err(r.err(Span::empty(), "no SELECT statement"));
    };
    let (block, corr) = r.read_block(q, None)?;
    debug_assert!(corr.is_empty());
    Ok(block)
}

/// A view or a WITH query, borrowed from the parsed statements (never copied: a view read
/// for each FROM item naming it).
struct View<'a> {
    name: String,
    columns: Vec<String>,
    query: &'a ast::Query,
}

/// Names visible at one level of the statement.
struct Scope<'a> {
    /// The block (index into `Reader::blocks`) whose tables this scope names.
    block: usize,
    parent: Option<usize>,
    rels: Vec<Rel<'a>>,
    /// The nest this scope's tables belong to (a flattened EXISTS / IN).
    nest: Option<usize>,
}

struct Rel<'a> {
    /// Lower case, as both engines compare unquoted names.
    alias: String,
    kind: RelKind<'a>,
}

enum RelKind<'a> {
    /// Table `index` of the scope's block, with its columns.
    Table {
        index: usize,
        columns: TableColumns<'a>,
    },
    /// A merged derived table: each output column (lower case) is an expression of scope
    /// `scope`, borrowed from the statement.
    Merged {
        columns: Vec<(String, &'a Expr)>,
        scope: usize,
    },
}

/// The columns of a FROM item: a base table's are the catalog's, named (a [`Name`]
/// allocated) only once a query uses them; a derived table's as its block names them.
enum TableColumns<'a> {
    Base(&'a Table),
    Derived(Vec<(Name, ColumnType)>),
}

impl TableColumns<'_> {
    fn len(&self) -> usize {
        match self {
            TableColumns::Base(t) => t.columns.len(),
            TableColumns::Derived(c) => c.len(),
        }
    }

    fn name_str(&self, k: usize) -> &str {
        match self {
            TableColumns::Base(t) => &t.columns[k].name,
            TableColumns::Derived(c) => &c[k].0,
        }
    }

    fn ty(&self, k: usize) -> &ColumnType {
        match self {
            TableColumns::Base(t) => &t.columns[k].ty,
            TableColumns::Derived(c) => &c[k].1,
        }
    }

    /// The position of column `col` (any case).
    fn find(&self, col: &str) -> Option<usize> {
        match self {
            TableColumns::Base(t) => t
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(col)),
            TableColumns::Derived(c) => c.iter().position(|(n, _)| n.eq_ignore_ascii_case(col)),
        }
    }

    /// Column `k` as the name `uses` (a table's used columns) holds, added there when it is
    /// not yet.
    fn use_column(&self, k: usize, uses: &mut Vec<Name>) -> Name {
        let s = self.name_str(k);
        if let Some(u) = uses.iter().find(|u| **u == *s) {
            return u.clone();
        }
        let n = match self {
            TableColumns::Base(_) => Name::from(s),
            TableColumns::Derived(c) => c[k].0.clone(),
        };
        uses.push(n.clone());
        n
    }
}

/// A block being read: its tables' used columns collect as names resolve.
struct BlockB {
    q: QueryBlock,
    /// Correlation equalities of a sub-select: (its column, the outer column).
    correlation: Vec<(ColRef, ColRef)>,
}

/// A column resolved: which block (index into `Reader::blocks`), table and column.
#[derive(Clone, Debug)]
struct Col {
    block: usize,
    table: usize,
    column: Name,
    ty: ColumnType,
}

impl Col {
    fn colref(&self) -> ColRef {
        ColRef {
            table: self.table,
            column: self.column.clone(),
        }
    }
}

/// Reads statements that live for `'a`: what it keeps of them (views, merged derived
/// columns) it borrows.
struct Reader<'a> {
    text: &'a str,
    tables: &'a [Table],
    views: Vec<View<'a>>,
    scopes: Vec<Scope<'a>>,
    blocks: Vec<BlockB>,
}

const AGGREGATES: &[&str] = &[
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
    "bool_and",
    "bool_or",
    "bit_and",
    "bit_or",
    "string_agg",
    "array_agg",
    "group_concat",
    "json_agg",
    "jsonb_agg",
];

/// The last part of a name, without the quotes around it.
fn object_name(n: &ObjectName) -> Cow<'_, str> {
    match n.0.last() {
        None => Cow::Borrowed(""),
        // The text printed and trimmed below, without printing it: an identifier without
        // quote characters in it, unquoted or quoted by `"` or `` ` ``.
        Some(ast::ObjectNamePart::Identifier(i))
            if matches!(i.quote_style, None | Some('"') | Some('`'))
                && !i.value.contains(['"', '`']) =>
        {
            Cow::Borrowed(&i.value)
        }
        Some(p) => Cow::Owned(
            p.to_string()
                .trim_matches('"')
                .trim_matches('`')
                .to_string(),
        ),
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Nested(x) => strip(x),
        _ => e,
    }
}

/// The conjuncts of `e` (AND flattened, parentheses dropped).
fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match strip(e) {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut v = conjuncts(left);
            v.extend(conjuncts(right));
            v
        }
        x => vec![x],
    }
}

fn disjuncts(e: &Expr) -> Vec<&Expr> {
    match strip(e) {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Or,
            right,
        } => {
            let mut v = disjuncts(left);
            v.extend(disjuncts(right));
            v
        }
        x => vec![x],
    }
}

fn cmp_op(op: &BinaryOperator) -> Option<(CmpOp, bool)> {
    // (operator, whether it is `<>`): `<>` has no CmpOp, it is never sargable.
    Some(match op {
        BinaryOperator::Eq => (CmpOp::Eq, false),
        BinaryOperator::Lt => (CmpOp::Lt, false),
        BinaryOperator::LtEq => (CmpOp::Le, false),
        BinaryOperator::Gt => (CmpOp::Gt, false),
        BinaryOperator::GtEq => (CmpOp::Ge, false),
        BinaryOperator::NotEq => (CmpOp::Eq, true),
        _ => return None,
    })
}

fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        CmpOp::Eq => CmpOp::Eq,
    }
}

fn is_subquery(e: &Expr) -> bool {
    matches!(strip(e), Expr::Subquery(_))
}

/// Of a comparison with a sub-select (`x < (SELECT ...)` or turned round): the other side,
/// the sub-select's expression and its query.
fn compared_subquery<'e>(left: &'e Expr, right: &'e Expr) -> (&'e Expr, &'e Expr, &'e ast::Query) {
    let (side, sub) = if is_subquery(right) {
        (left, right)
    } else {
        (right, left)
    };
    match strip(sub) {
        Expr::Subquery(q) => (side, sub, q),
        _ => unreachable!("callers check is_subquery"),
    }
}

/// The parts of a column name (`col`, `alias.col`), or `None` when `e` is not a name.
fn name_parts(e: &Expr) -> Option<&[ast::Ident]> {
    match strip(e) {
        Expr::Identifier(i) => Some(std::slice::from_ref(i)),
        Expr::CompoundIdentifier(p) => Some(p),
        _ => None,
    }
}

/// A name's qualifier and column as written; both engines compare unquoted names in any
/// case, so callers compare them with `eq_ignore_ascii_case`.
fn qualified(parts: &[ast::Ident]) -> Option<(Option<&str>, &str)> {
    match parts {
        [c] => Some((None, &c.value)),
        [.., t, c] => Some((Some(&t.value), &c.value)),
        [] => None,
    }
}

/// A parse error of sqlparser as [`Error::Sql`], at the position its message names (the
/// end of the text when it names none: "found: EOF").
fn parse_error(text: &str, msg: &str) -> Error {
    let mut msg = msg.trim_start_matches("sql parser error: ").to_string();
    let pos = msg.rfind(" at Line: ").and_then(|i| {
        let rest = &msg[i + " at Line: ".len()..];
        let (l, c) = rest.split_once(", Column: ")?;
        let line: usize = l.trim().parse().ok()?;
        let col: usize = c.trim().parse().ok()?;
        Some((i, line, col))
    });
    let (start, line, column) = match pos {
        Some((i, line, col)) => {
            msg.truncate(i);
            (offset(text, line, col), line, col)
        }
        None => {
            let (line, col) = line_col(text, text.len());
            (text.len(), line, col)
        }
    };
    Error::Sql {
        msg,
        start,
        end: text.len().max(start),
        line,
        column,
    }
}

/// Byte offset of (line, column), both from 1, column in characters.
fn offset(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return start
                + l.char_indices()
                    .nth(column.saturating_sub(1))
                    .map_or(l.len(), |(b, _)| b);
        }
        start += l.len();
    }
    text.len()
}

fn line_col(text: &str, pos: usize) -> (usize, usize) {
    let before = &text[..pos.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Decimal places of a number literal.
fn decimals(s: &str) -> i32 {
    s.split_once('.').map_or(0, |(_, f)| {
        f.chars().take_while(|c| c.is_ascii_digit()).count() as i32
    })
}

/// A folded constant: a number with its decimal places (DECIMAL arithmetic keeps `0.06 -
/// 0.01` at 0.05), a text, or a date in days.
#[derive(Clone, Debug, PartialEq)]
enum Const {
    Num(f64, i32),
    Text(String),
    Date(i64),
    /// An interval: months and days.
    Interval(i64, i64),
}

fn add_months(days: i64, months: i64) -> i64 {
    let (y, m, d) = costlab_model::date::civil_from_days(days);
    let total = y * 12 + (m - 1) + months;
    let (ny, nm) = (total.div_euclid(12), total.rem_euclid(12) + 1);
    let nd = d.min(costlab_model::date::days_in_month(ny, nm));
    costlab_model::date::days_from_civil(ny, nm, nd)
}

impl<'a> Reader<'a> {
    fn err(&self, span: Span, msg: impl Into<String>) -> Error {
        let (start, end) = if span.start.line == 0 {
            (0, self.text.len())
        } else {
            (
                offset(
                    self.text,
                    span.start.line as usize,
                    span.start.column as usize,
                ),
                offset(self.text, span.end.line as usize, span.end.column as usize),
            )
        };
        let (line, column) = line_col(self.text, start);
        Error::Sql {
            msg: msg.into(),
            start,
            end: end.max(start),
            line,
            column,
        }
    }

    fn not_modelled(&self, span: Span, what: &str) -> Error {
        self.err(span, format!("{what} is not modelled"))
    }

    fn table(&self, name: &str) -> Option<&'a Table> {
        self.tables
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name))
    }

    fn view(&self, name: &str) -> Option<&View<'a>> {
        self.views
            .iter()
            .rev()
            .find(|v| v.name.eq_ignore_ascii_case(name))
    }

    // ---- blocks -----------------------------------------------------------------------

    /// Reads `q` as a block of its own; `parent` is the scope it is nested in (its outer
    /// references resolve there). Returns the block and its correlation equalities.
    fn read_block(
        &mut self,
        q: &'a ast::Query,
        parent: Option<usize>,
    ) -> Result<(QueryBlock, Vec<(ColRef, ColRef)>)> {
        let bi = self.blocks.len();
        self.blocks.push(BlockB {
            q: QueryBlock::default(),
            correlation: Vec::new(),
        });
        let res = self.read_query_into(q, bi, parent);
        let b = self.blocks.pop().expect("pushed above");
        res?;
        let mut block = b.q;
        self.finish_uses(&mut block);
        Ok((block, b.correlation))
    }

    /// Sorts each table's used columns into the table's column order.
    fn finish_uses(&self, block: &mut QueryBlock) {
        for t in &mut block.tables {
            let order: Vec<&str> = match &t.source {
                Source::Base => self
                    .table(&t.table)
                    .map(|tb| tb.columns.iter().map(|c| c.name.as_str()).collect())
                    .unwrap_or_default(),
                Source::Derived { columns, .. } => columns.iter().map(|c| c.as_str()).collect(),
            };
            t.uses
                .sort_by_key(|u| order.iter().position(|c| c.eq_ignore_ascii_case(u)));
        }
    }

    fn read_query_into(
        &mut self,
        q: &'a ast::Query,
        bi: usize,
        parent: Option<usize>,
    ) -> Result<()> {
        if let Some(with) = &q.with {
            if with.recursive {
                return Err(self.not_modelled(with.span(), "WITH RECURSIVE"));
            }
            for cte in &with.cte_tables {
                self.views.push(View {
                    name: cte.alias.name.value.clone(),
                    columns: cte
                        .alias
                        .columns
                        .iter()
                        .map(|c| c.name.value.clone())
                        .collect(),
                    query: &cte.query,
                });
            }
        }
        if q.fetch.is_some() || !q.locks.is_empty() {
            return Err(self.not_modelled(q.span(), "FETCH or FOR UPDATE"));
        }
        let select = match &*q.body {
            SetExpr::Select(s) => s,
            SetExpr::Query(inner) if q.order_by.is_none() && q.limit_clause.is_none() => {
                return self.read_query_into(inner, bi, parent);
            }
            SetExpr::SetOperation { op, .. } => {
                return Err(self.not_modelled(q.body.span(), &format!("{op}")));
            }
            other => return Err(self.not_modelled(other.span(), "this kind of query body")),
        };
        self.read_select(select, Some(q), bi, parent)
    }

    fn new_scope(&mut self, block: usize, parent: Option<usize>, nest: Option<usize>) -> usize {
        self.scopes.push(Scope {
            block,
            parent,
            rels: Vec::new(),
            nest,
        });
        self.scopes.len() - 1
    }

    /// Reads a SELECT into block `bi`; `q`: the query it is the body of, with its ORDER BY
    /// and LIMIT (none when `None`).
    fn read_select(
        &mut self,
        s: &'a ast::Select,
        q: Option<&'a ast::Query>,
        bi: usize,
        parent: Option<usize>,
    ) -> Result<()> {
        if let Some(d) = &s.distinct {
            return Err(self.not_modelled(s.span(), &format!("SELECT {d}")));
        }
        if !s.named_window.is_empty() || s.qualify.is_some() {
            return Err(self.not_modelled(s.span(), "a WINDOW or QUALIFY clause"));
        }
        if s.top.is_some() || s.into.is_some() || s.prewhere.is_some() {
            return Err(self.not_modelled(s.span(), "TOP, INTO or PREWHERE"));
        }
        // A second aggregation level over a lone grouped derived table (TPC-H Q13).
        if let Some(inner) = self.second_level(s) {
            if s.selection.is_some() {
                return Err(self.not_modelled(
                    s.selection.as_ref().map_or(s.span(), |e| e.span()),
                    "a WHERE clause over a grouped derived table that is grouped again",
                ));
            }
            let iq = inner;
            let SetExpr::Select(isel) = &*iq.body else {
                return Err(self.not_modelled(iq.span(), "this derived table"));
            };
            // The inner query's own ORDER BY and LIMIT are not read.
            self.read_select(isel, None, bi, parent)?;
            // The outer level's items, typed in the inner level's scope (the one the
            // inner read created last for this block).
            let inner = (0..self.scopes.len())
                .rev()
                .find(|&sc| self.scopes[sc].block == bi)
                .unwrap_or(0);
            let mut regroup = costlab_model::block::Regroup::default();
            for item in &s.projection {
                let (e, alias) = match item {
                    SelectItem::UnnamedExpr(e) => (e, None),
                    SelectItem::ExprWithAlias { expr, alias } => {
                        (expr, Some(Name::from(alias.value.as_str())))
                    }
                    _ => continue,
                };
                let expr = self.lower(e, inner);
                regroup
                    .select
                    .push(costlab_model::block::SelectItem { expr, alias });
            }
            if let GroupByExpr::Expressions(exprs, _) = &s.group_by {
                for e in exprs {
                    let g = self.lower(e, inner);
                    regroup.group_items.push(g);
                }
            }
            if let Some(ob) = q.and_then(|q| q.order_by.as_ref()) {
                if let ast::OrderByKind::Expressions(items) = &ob.kind {
                    for it in items {
                        let o = self.lower(&it.expr, inner);
                        let desc = matches!(it.options.sort, Some(ast::OrderBySort::Desc));
                        regroup.order_items.push((o, desc));
                    }
                }
            }
            self.blocks[bi].q.regroup = Some(Box::new(regroup));
            self.blocks[bi].q.order_by.clear();
            self.blocks[bi].q.order_by_expression = true;
            self.blocks[bi].q.limit = self.limit(q)?;
            return Ok(());
        }

        let scope = self.new_scope(bi, parent, None);
        for twj in &s.from {
            let first = self.blocks[bi].q.tables.len();
            self.add_from_item(&twj.relation, scope, &[])?;
            for j in &twj.joins {
                let before: Vec<usize> = (first..self.blocks[bi].q.tables.len()).collect();
                let (constraint, outer) = match &j.join_operator {
                    JoinOperator::Join(c) | JoinOperator::Inner(c) => (Some(c), false),
                    JoinOperator::CrossJoin(c) => (Some(c), false),
                    JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (Some(c), true),
                    _ => {
                        return Err(self.not_modelled(
                            j.relation.span(),
                            "this kind of join (only inner, cross and LEFT joins)",
                        ))
                    }
                };
                let added_from = self.blocks[bi].q.tables.len();
                let after: &[usize] = if outer { &before } else { &[] };
                if outer && !matches!(j.relation, TableFactor::Table { .. }) {
                    return Err(self.not_modelled(
                        j.relation.span(),
                        "a LEFT JOIN to anything but a table or view",
                    ));
                }
                self.add_from_item(&j.relation, scope, after)?;
                let added: Vec<usize> = (added_from..self.blocks[bi].q.tables.len()).collect();
                match constraint {
                    Some(JoinConstraint::On(e)) => {
                        for c in conjuncts(e) {
                            if outer {
                                self.outer_join_condition(c, scope, &added)?;
                            } else {
                                self.condition(c, scope)?;
                            }
                        }
                    }
                    Some(JoinConstraint::Using(cols)) => {
                        for c in cols {
                            let name = object_name(c);
                            let l = self.resolve_among(&name, scope, &before, c.span())?;
                            let r = self.resolve_among(&name, scope, &added, c.span())?;
                            self.blocks[bi].q.joins.push(JoinEdge {
                                a: l.colref(),
                                b: r.colref(),
                            });
                        }
                    }
                    Some(JoinConstraint::UsingAlias(..)) => {
                        return Err(self.not_modelled(j.relation.span(), "USING ... AS"))
                    }
                    Some(JoinConstraint::Natural) => {
                        return Err(self.not_modelled(j.relation.span(), "NATURAL JOIN"))
                    }
                    Some(JoinConstraint::None) | None => {
                        if outer {
                            return Err(self.err(j.relation.span(), "a LEFT JOIN needs ON"));
                        }
                    }
                }
            }
        }
        if self.blocks[bi].q.tables.is_empty() {
            return Err(self.not_modelled(s.span(), "a SELECT without FROM"));
        }
        if let Some(w) = &s.selection {
            for c in conjuncts(w) {
                self.condition(c, scope)?;
            }
        }

        // The select list: used columns, aggregates, output names.
        let mut outputs: Vec<(Option<String>, &'a Expr)> = Vec::new();
        let mut has_agg = false;
        let mut select = Vec::new();
        for item in &s.projection {
            match item {
                SelectItem::UnnamedExpr(e) => {
                    has_agg |= self.walk(e, scope)?;
                    select.push(costlab_model::block::SelectItem {
                        expr: self.lower(e, scope),
                        alias: None,
                    });
                    let name = match e {
                        Expr::Identifier(i) => Some(i.value.to_ascii_lowercase()),
                        Expr::CompoundIdentifier(p) => {
                            p.last().map(|i| i.value.to_ascii_lowercase())
                        }
                        _ => None,
                    };
                    outputs.push((name, e));
                }
                SelectItem::ExprWithAlias { expr, alias } => {
                    has_agg |= self.walk(expr, scope)?;
                    select.push(costlab_model::block::SelectItem {
                        expr: self.lower(expr, scope),
                        alias: Some(Name::from(alias.value.as_str())),
                    });
                    outputs.push((Some(alias.value.to_ascii_lowercase()), expr));
                }
                SelectItem::Wildcard(_) => {
                    select.push(costlab_model::block::SelectItem {
                        expr: costlab_model::expr::Expr::Star,
                        alias: None,
                    });
                    self.use_all(scope, None, item.span())?
                }
                SelectItem::QualifiedWildcard(kind, _) => {
                    let name = kind.to_string();
                    let alias = name.rsplit('.').next().unwrap_or("").to_string();
                    self.use_all(scope, Some(&alias), item.span())?
                }
                #[allow(unreachable_patterns)]
                _ => return Err(self.not_modelled(item.span(), "this select item")),
            }
        }

        // GROUP BY.
        let mut group: Vec<ColRef> = Vec::new();
        let mut group_expr = false;
        let mut group_items = Vec::new();
        match &s.group_by {
            GroupByExpr::Expressions(exprs, mods) => {
                if !mods.is_empty() {
                    return Err(self.not_modelled(s.span(), "ROLLUP, CUBE or GROUPING SETS"));
                }
                for e in exprs {
                    let (cols, is_expr) = self.key_columns(e, scope, &outputs, false)?;
                    group_items.push(self.lower(e, scope));
                    group_expr |= is_expr;
                    for c in cols {
                        self.output(bi, c.clone());
                        if !group.contains(&c) {
                            group.push(c);
                        }
                    }
                }
            }
            GroupByExpr::All(_) => return Err(self.not_modelled(s.span(), "GROUP BY ALL")),
        }
        let mut having = None;
        if let Some(h) = &s.having {
            has_agg |= self.having(h, scope)?;
            having = Some(self.lower(h, scope));
        }

        // ORDER BY.
        let mut order: Vec<ColRef> = Vec::new();
        let mut order_expr = false;
        let mut order_items = Vec::new();
        if let Some(ob) = q.and_then(|q| q.order_by.as_ref()) {
            match &ob.kind {
                ast::OrderByKind::Expressions(items) => {
                    for it in items {
                        let (cols, is_expr) = self.key_columns(&it.expr, scope, &outputs, true)?;
                        order_items.push((
                            self.lower(&it.expr, scope),
                            matches!(it.options.sort, Some(ast::OrderBySort::Desc)),
                        ));
                        for c in &cols {
                            self.output(bi, c.clone());
                        }
                        if is_expr || cols.len() != 1 {
                            order_expr = true;
                        } else {
                            order.extend(cols);
                        }
                    }
                }
                ast::OrderByKind::All(_) => {
                    return Err(self.not_modelled(ob.span(), "ORDER BY ALL"))
                }
            }
        }
        let limit = self.limit(q)?;
        let b = &mut self.blocks[bi].q;
        let grouped = !group.is_empty() || group_expr;
        b.group_by = group;
        b.scalar_aggregate = has_agg && !grouped;
        if grouped && !order.is_empty() && !order_expr && !b.group_by.starts_with(&order) {
            order_expr = true;
        }
        b.group_by_expression = group_expr;
        if order_expr {
            b.order_by_expression = true;
            order.clear();
        }
        if !order_expr {
            b.order_by = order;
        }
        b.limit = limit;
        b.select = select;
        b.group_items = group_items;
        b.order_items = order_items;
        b.having = having;
        Ok(())
    }

    /// The inner query of `SELECT ... FROM (SELECT ... GROUP BY ...) x GROUP BY ...`.
    fn second_level(&self, s: &'a ast::Select) -> Option<&'a ast::Query> {
        let regroups = matches!(&s.group_by, GroupByExpr::Expressions(e, _) if !e.is_empty());
        if !regroups || s.from.len() != 1 || !s.from[0].joins.is_empty() {
            return None;
        }
        let TableFactor::Derived { subquery, .. } = &s.from[0].relation else {
            return None;
        };
        let SetExpr::Select(inner) = &*subquery.body else {
            return None;
        };
        let inner_groups =
            matches!(&inner.group_by, GroupByExpr::Expressions(e, _) if !e.is_empty());
        inner_groups.then_some(&**subquery)
    }

    fn limit(&self, q: Option<&ast::Query>) -> Result<Option<f64>> {
        let Some(q) = q else { return Ok(None) };
        match &q.limit_clause {
            None => Ok(None),
            Some(ast::LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            }) => {
                if offset.is_some() || !limit_by.is_empty() {
                    return Err(self.not_modelled(q.span(), "OFFSET"));
                }
                match limit {
                    None => Ok(None),
                    Some(e) => match self.constant(e)? {
                        Some(Const::Num(n, _)) if n >= 0.0 => Ok(Some(n)),
                        _ => Err(self.err(e.span(), "LIMIT takes a non-negative number")),
                    },
                }
            }
            Some(ast::LimitClause::OffsetCommaLimit { .. }) => {
                Err(self.not_modelled(q.span(), "OFFSET"))
            }
        }
    }

    /// Adds a FROM item to the scope's block; `after`: the tables a LEFT JOIN's nullable
    /// side follows.
    fn add_from_item(&mut self, f: &'a TableFactor, scope: usize, after: &[usize]) -> Result<()> {
        match f {
            TableFactor::Table {
                name, alias, args, ..
            } => {
                if args.is_some() {
                    return Err(self.not_modelled(f.span(), "a table function"));
                }
                let tname = object_name(name);
                let alias_name = alias
                    .as_ref()
                    .map_or(tname.to_string(), |a| a.name.value.clone());
                if let Some(a) = alias {
                    if !a.columns.is_empty() {
                        return Err(self.not_modelled(a.span(), "column aliases of a table"));
                    }
                }
                if let Some(v) = self.view(&tname) {
                    let (columns, query) = (v.columns.clone(), v.query);
                    let name = v.name.clone();
                    return self.derived(
                        query,
                        &name,
                        &alias_name,
                        &columns,
                        scope,
                        after,
                        f.span(),
                    );
                }
                let Some(table) = self.table(&tname) else {
                    return Err(self.err(name.span(), format!("unknown table `{tname}`")));
                };
                self.add_table(
                    scope,
                    &alias_name,
                    Name::from(table.name.as_str()),
                    Source::Base,
                    TableColumns::Base(table),
                    after,
                    f.span(),
                )
            }
            TableFactor::Derived {
                lateral,
                subquery,
                alias,
                ..
            } => {
                if *lateral {
                    return Err(self.not_modelled(f.span(), "LATERAL"));
                }
                let Some(a) = alias else {
                    return Err(self.err(f.span(), "a derived table needs an alias"));
                };
                let columns: Vec<String> = a.columns.iter().map(|c| c.name.value.clone()).collect();
                let name = a.name.value.clone();
                self.derived(subquery, &name, &name, &columns, scope, after, f.span())
            }
            TableFactor::NestedJoin { .. } => {
                Err(self.not_modelled(f.span(), "a parenthesised join"))
            }
            _ => Err(self.not_modelled(f.span(), "this FROM item")),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn add_table(
        &mut self,
        scope: usize,
        alias: &str,
        table: Name,
        source: Source,
        columns: TableColumns<'a>,
        after: &[usize],
        span: Span,
    ) -> Result<()> {
        let key = alias.to_ascii_lowercase();
        if self.scopes[scope].rels.iter().any(|r| r.alias == key) {
            return Err(self.err(span, format!("`{alias}` is named twice in FROM")));
        }
        let bi = self.scopes[scope].block;
        let b = &mut self.blocks[bi].q;
        let index = b.tables.len();
        let nest = self.scopes[scope].nest;
        b.tables.push(TableRef {
            alias: Name::from(alias),
            table,
            source,
            uses: Vec::new(),
            preds: Vec::new(),
            nest,
            outer_join_after: after.to_vec(),
        });
        if let Some(n) = nest {
            b.nests[n].tables.push(index);
        }
        self.scopes[scope].rels.push(Rel {
            alias: key,
            kind: RelKind::Table { index, columns },
        });
        Ok(())
    }

    /// A derived table or view: merged into the block when both engines would merge it,
    /// else a table of its own block.
    #[allow(clippy::too_many_arguments)]
    fn derived(
        &mut self,
        q: &'a ast::Query,
        name: &str,
        alias: &str,
        columns: &[String],
        scope: usize,
        after: &[usize],
        span: Span,
    ) -> Result<()> {
        let mergeable = match &*q.body {
            SetExpr::Select(s) => {
                let grouped =
                    matches!(&s.group_by, GroupByExpr::Expressions(e, _) if !e.is_empty());
                !grouped
                    && s.having.is_none()
                    && s.distinct.is_none()
                    && q.limit_clause.is_none()
                    && q.with.is_none()
                    && after.is_empty()
                    && !s.projection.iter().any(|p| self.has_aggregate_item(p))
            }
            _ => false,
        };
        if mergeable {
            let SetExpr::Select(s) = &*q.body else {
                unreachable!("checked above")
            };
            let bi = self.scopes[scope].block;
            let parent = self.scopes[scope].parent;
            let inner = self.new_scope(bi, parent, self.scopes[scope].nest);
            for twj in &s.from {
                if !twj.joins.is_empty() {
                    return Err(self
                        .not_modelled(twj.relation.span(), "joins inside a merged derived table"));
                }
                self.add_from_item(&twj.relation, inner, &[])?;
            }
            if let Some(w) = &s.selection {
                for c in conjuncts(w) {
                    self.condition(c, inner)?;
                }
            }
            let mut outs = Vec::new();
            for (k, item) in s.projection.iter().enumerate() {
                let (n, e) = match (columns.get(k), item) {
                    (Some(c), SelectItem::UnnamedExpr(e)) => (c.clone(), e),
                    (None, SelectItem::UnnamedExpr(e)) => (e.to_string(), e),
                    (c, SelectItem::ExprWithAlias { expr, alias }) => {
                        (c.unwrap_or(&alias.value).clone(), expr)
                    }
                    _ => return Err(self.not_modelled(item.span(), "`*` in a derived table")),
                };
                let n = n.rsplit('.').next().unwrap_or(&n).to_ascii_lowercase();
                outs.push((n, e));
            }
            let key = alias.to_ascii_lowercase();
            self.scopes[scope].rels.push(Rel {
                alias: key,
                kind: RelKind::Merged {
                    columns: outs,
                    scope: inner,
                },
            });
            return Ok(());
        }
        let (block, corr) = self.read_block(q, None)?;
        if !corr.is_empty() {
            return Err(self.not_modelled(span, "a correlated derived table"));
        }
        let SetExpr::Select(s) = &*q.body else {
            return Err(self.not_modelled(span, "this derived table"));
        };
        let mut names: Vec<Name> = Vec::new();
        for (k, item) in s.projection.iter().enumerate() {
            let n = match item {
                SelectItem::UnnamedExpr(Expr::Identifier(i)) => i.value.clone(),
                SelectItem::UnnamedExpr(Expr::CompoundIdentifier(p)) => {
                    p.last().map(|i| i.value.clone()).unwrap_or_default()
                }
                SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                SelectItem::UnnamedExpr(e) => e.to_string(),
                _ => return Err(self.not_modelled(item.span(), "`*` in a derived table")),
            };
            names.push(Name::from(
                columns.get(k).cloned().unwrap_or(n).to_ascii_lowercase(),
            ));
        }
        let cols = TableColumns::Derived(
            names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    (
                        n.clone(),
                        if i == 0 {
                            ColumnType::Int4
                        } else {
                            ColumnType::Numeric
                        },
                    )
                })
                .collect(),
        );
        self.add_table(
            scope,
            alias,
            Name::from(name),
            Source::Derived {
                block: Box::new(block),
                columns: names,
            },
            cols,
            after,
            span,
        )
    }

    fn has_aggregate_item(&self, item: &SelectItem) -> bool {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                has_aggregate(e)
            }
            _ => false,
        }
    }

    // ---- names ------------------------------------------------------------------------

    /// Resolves a column reference (`col` or `alias.col`) from `scope` outwards.
    fn resolve(&mut self, parts: &[ast::Ident], scope: usize, span: Span) -> Result<Resolved<'a>> {
        self.try_resolve(parts, scope).map_err(|u| {
            let col = qualified(parts).map_or(String::new(), |(_, c)| c.to_ascii_lowercase());
            let msg = match u {
                Unresolved::Empty => "an empty name".to_string(),
                Unresolved::Ambiguous => format!("column `{col}` is ambiguous"),
                Unresolved::NotIn(alias) => format!("unknown column `{col}` in `{alias}`"),
                Unresolved::Unknown => format!("unknown column `{col}`"),
            };
            self.err(span, msg)
        })
    }

    /// [`Reader::resolve`] without the error's message and position (a caller that only
    /// asks whether a name is a column need not build them).
    fn try_resolve(
        &mut self,
        parts: &[ast::Ident],
        scope: usize,
    ) -> std::result::Result<Resolved<'a>, Unresolved> {
        let Some((qual, col)) = qualified(parts) else {
            return Err(Unresolved::Empty);
        };
        let mut sc = Some(scope);
        while let Some(s) = sc {
            let mut found: Option<Hit<'a>> = None;
            for (ri, r) in self.scopes[s].rels.iter().enumerate() {
                if qual.is_some_and(|q| !r.alias.eq_ignore_ascii_case(q)) {
                    continue;
                }
                let hit = match &r.kind {
                    RelKind::Table { columns, .. } => columns.find(col).map(|k| Hit::Column(ri, k)),
                    RelKind::Merged { columns, scope } => columns
                        .iter()
                        .find(|(n, _)| n.eq_ignore_ascii_case(col))
                        .map(|(_, e)| Hit::Merged(e, *scope)),
                };
                match (hit, &found) {
                    (Some(_), Some(_)) => return Err(Unresolved::Ambiguous),
                    (Some(h), None) => found = Some(h),
                    (None, _) => {}
                }
                if qual.is_some() && found.is_none() {
                    return Err(Unresolved::NotIn(r.alias.clone()));
                }
            }
            match found {
                Some(Hit::Column(ri, k)) => {
                    let block = self.scopes[s].block;
                    let RelKind::Table { index, columns } = &self.scopes[s].rels[ri].kind else {
                        unreachable!("a table's hit")
                    };
                    let uses = &mut self.blocks[block].q.tables[*index].uses;
                    return Ok(Resolved::Col(Col {
                        block,
                        table: *index,
                        column: columns.use_column(k, uses),
                        ty: columns.ty(k).clone(),
                    }));
                }
                Some(Hit::Merged(e, scope)) => return Ok(Resolved::Expr(e, scope)),
                None => {}
            }
            sc = self.scopes[s].parent;
        }
        Err(Unresolved::Unknown)
    }

    /// `name` among the given tables of the scope's block (USING).
    fn resolve_among(
        &mut self,
        name: &str,
        scope: usize,
        among: &[usize],
        span: Span,
    ) -> Result<Col> {
        let ident = ast::Ident::new(name);
        let bi = self.scopes[scope].block;
        for r in 0..self.scopes[scope].rels.len() {
            let (alias, index) = match &self.scopes[scope].rels[r].kind {
                RelKind::Table { index, .. } if among.contains(index) => {
                    (self.scopes[scope].rels[r].alias.clone(), *index)
                }
                _ => continue,
            };
            let parts = [ast::Ident::new(alias), ident.clone()];
            if let Ok(Resolved::Col(c)) = self.resolve(&parts, scope, span) {
                if c.block == bi && c.table == index {
                    return Ok(c);
                }
            }
        }
        Err(self.err(span, format!("USING column `{name}` is not on both sides")))
    }

    /// Every column `e` reads, merged derived columns followed to their expressions.
    fn columns_of(&mut self, e: &Expr, scope: usize, out: &mut Vec<Col>) -> Result<()> {
        let mut idents: Vec<(&[ast::Ident], Span)> = Vec::new();
        self.collect_idents(e, &mut idents)?;
        for (parts, span) in idents {
            match self.resolve(parts, scope, span)? {
                Resolved::Col(c) => out.push(c),
                Resolved::Expr(inner, s) => self.columns_of(inner, s, out)?,
            }
        }
        Ok(())
    }

    /// Column names in `e`; a sub-select inside anything but the shapes `condition` reads
    /// is refused, as are window functions and expressions the walker does not know.
    fn collect_idents<'e>(
        &self,
        e: &'e Expr,
        out: &mut Vec<(&'e [ast::Ident], Span)>,
    ) -> Result<()> {
        match e {
            Expr::Identifier(i) => {
                out.push((std::slice::from_ref(i), e.span()));
                return Ok(());
            }
            Expr::CompoundIdentifier(p) => {
                out.push((p, e.span()));
                return Ok(());
            }
            Expr::Function(f) if f.over.is_some() => {
                return Err(self.err(e.span(), "window functions are not modelled"));
            }
            Expr::Function(f) if matches!(f.args, FunctionArguments::Subquery(_)) => {
                return Err(self.not_modelled(e.span(), "a sub-select as a function argument"));
            }
            Expr::Subquery(_) | Expr::Exists { .. } | Expr::In { .. }
                if !each_sub_expr(e, &mut |_| {}) =>
            {
                return Err(self.not_modelled(
                    e.span(),
                    "a sub-select here (only as a WHERE condition: EXISTS, IN, or compared)",
                ));
            }
            _ => {}
        }
        // The first error in order, as a walk that stops there finds it.
        let mut res = Ok(());
        let known = each_sub_expr(e, &mut |x| {
            if res.is_ok() {
                res = self.collect_idents(x, out);
            }
        });
        if !known {
            return Err(self.not_modelled(e.span(), &format!("the expression `{e}`")));
        }
        res
    }

    /// Walks a select-list or HAVING expression for the columns it uses; whether it holds an
    /// aggregate.
    fn walk(&mut self, e: &'a Expr, scope: usize) -> Result<bool> {
        let mut cols = Vec::new();
        self.columns_of(e, scope, &mut cols)?;
        let bi = self.scopes[scope].block;
        for c in cols.into_iter().filter(|c| c.block == bi) {
            self.output(bi, c.colref());
        }
        Ok(has_aggregate(e))
    }

    /// Notes a column the block's result or its grouping, ordering or HAVING reads.
    fn output(&mut self, bi: usize, c: ColRef) {
        let out = &mut self.blocks[bi].q.outputs;
        if !out.contains(&c) {
            out.push(c);
        }
    }

    /// HAVING: used columns; each scalar sub-select is a subquery of the block (its value
    /// compared with a group's aggregate, a filter the planners read from the text).
    fn having(&mut self, h: &'a Expr, scope: usize) -> Result<bool> {
        let mut agg = false;
        for c in conjuncts(h) {
            match c {
                Expr::BinaryOp { left, op, right }
                    if cmp_op(op).is_some() && (is_subquery(left) || is_subquery(right)) =>
                {
                    let (side, sub, q) = compared_subquery(left, right);
                    agg |= self.walk(side, scope)?;
                    let (block, correlation) = self.read_block(q, Some(scope))?;
                    if !correlation.is_empty() {
                        return Err(
                            self.not_modelled(sub.span(), "a correlated sub-select in HAVING")
                        );
                    }
                    let bi = self.scopes[scope].block;
                    self.blocks[bi].q.subqueries.push(Subquery {
                        kind: SubqueryKind::Scalar,
                        block,
                        correlation,
                        filter: None,
                    });
                }
                _ => agg |= self.walk(c, scope)?,
            }
        }
        Ok(agg)
    }

    /// Marks every column of the scope's tables (or of `alias`) used.
    fn use_all(&mut self, scope: usize, alias: Option<&str>, span: Span) -> Result<()> {
        let mut any = false;
        let bi = self.scopes[scope].block;
        let mut used: Vec<ColRef> = Vec::new();
        let mut merged: Vec<(&'a Expr, usize)> = Vec::new();
        for r in &self.scopes[scope].rels {
            if alias.is_some_and(|a| !a.eq_ignore_ascii_case(&r.alias)) {
                continue;
            }
            any = true;
            match &r.kind {
                RelKind::Table { index, columns } => {
                    let uses = &mut self.blocks[bi].q.tables[*index].uses;
                    used.extend((0..columns.len()).map(|k| ColRef {
                        table: *index,
                        column: columns.use_column(k, uses),
                    }));
                }
                RelKind::Merged { columns, scope } => {
                    merged.extend(columns.iter().map(|(_, e)| (*e, *scope)));
                }
            }
        }
        for c in used {
            self.output(bi, c);
        }
        for (e, s) in merged {
            self.walk(e, s)?;
        }
        if any {
            Ok(())
        } else {
            Err(self.err(span, "`*` names no table"))
        }
    }

    /// A GROUP BY or ORDER BY item: the columns it orders by, and whether it is an
    /// expression rather than a plain column. An output name (or position) stands for its
    /// select item: first for ORDER BY, after the input columns for GROUP BY, as both
    /// engines resolve them.
    fn key_columns(
        &mut self,
        e: &'a Expr,
        scope: usize,
        outputs: &[(Option<String>, &'a Expr)],
        order: bool,
    ) -> Result<(Vec<ColRef>, bool)> {
        let bi = self.scopes[scope].block;
        let mut target: Option<(&'a Expr, usize)> = None;
        if let Expr::Value(v) = e {
            if let SqlValue::Number(n, _) = &v.value {
                let k: usize = n.parse().unwrap_or(0);
                let Some((_, x)) = k.checked_sub(1).and_then(|k| outputs.get(k)) else {
                    return Err(self.err(e.span(), format!("there is no select item {n}")));
                };
                target = Some((x, scope));
            }
        }
        if let (None, Expr::Identifier(i)) = (&target, e) {
            // Output names are lower case (unquoted names compare in any case).
            let out = outputs
                .iter()
                .find(|(n, _)| {
                    n.as_deref()
                        .is_some_and(|n| i.value.eq_ignore_ascii_case(n))
                })
                .map(|(_, x)| *x);
            // Resolved (marking the column used) even when the output name wins.
            let as_input = self.try_resolve(std::slice::from_ref(i), scope).ok();
            target = match (order, out, as_input) {
                (true, Some(x), _) | (false, Some(x), None) => Some((x, scope)),
                (_, _, Some(Resolved::Expr(x, s))) => Some((x, s)),
                _ => None,
            };
        }
        // Follow merged derived columns down to what they are.
        let (mut expr, mut s) = target.unwrap_or((e, scope));
        while let Some(parts) = name_parts(expr) {
            match self.resolve(parts, s, expr.span())? {
                Resolved::Col(c) if c.block == bi => return Ok((vec![c.colref()], false)),
                Resolved::Col(_) => return Ok((Vec::new(), true)),
                Resolved::Expr(x, s2) => {
                    expr = x;
                    s = s2;
                }
            }
        }
        let mut cols = Vec::new();
        self.columns_of(expr, s, &mut cols)?;
        let mut out: Vec<ColRef> = Vec::new();
        for c in cols.into_iter().filter(|c| c.block == bi) {
            let r = c.colref();
            if !out.contains(&r) {
                out.push(r);
            }
        }
        Ok((out, true))
    }

    // ---- conditions -------------------------------------------------------------------

    /// One conjunct of a WHERE (or an inner join's ON) read in `scope`.
    fn condition(&mut self, e: &'a Expr, scope: usize) -> Result<()> {
        let bi = self.scopes[scope].block;
        match strip(e) {
            Expr::Exists { subquery, negated } => {
                let (kind, origin) = if *negated {
                    (NestKind::Anti, NestOrigin::NotExists)
                } else {
                    (NestKind::Semi, NestOrigin::Exists)
                };
                return self.nest(subquery, kind, origin, None, scope, e.span());
            }
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr,
            } if matches!(strip(expr), Expr::Exists { .. }) => {
                let Expr::Exists { subquery, negated } = strip(expr) else {
                    unreachable!("matched")
                };
                let (kind, origin) = if *negated {
                    (NestKind::Semi, NestOrigin::Exists)
                } else {
                    (NestKind::Anti, NestOrigin::NotExists)
                };
                return self.nest(subquery, kind, origin, None, scope, e.span());
            }
            Expr::In {
                expr,
                target: ast::InTarget::Subquery(subquery),
                negated,
                ..
            } => {
                if self.nestable(subquery) {
                    let (kind, origin) = if *negated {
                        (NestKind::Anti, NestOrigin::NotIn)
                    } else {
                        (NestKind::Semi, NestOrigin::In)
                    };
                    return self.nest(subquery, kind, origin, Some(expr), scope, e.span());
                }
                if *negated {
                    return Err(self.not_modelled(e.span(), "NOT IN over a grouped sub-select"));
                }
                let mut cols = Vec::new();
                self.columns_of(expr, scope, &mut cols)?;
                let tables = self.local_tables(&cols, bi, e)?;
                let (block, correlation) = self.read_block(subquery, Some(scope))?;
                if !correlation.is_empty() {
                    return Err(self.not_modelled(e.span(), "a correlated grouped IN sub-select"));
                }
                let f = self.add_filter(scope, e, tables, FilterKind::InSubquery);
                self.blocks[bi].q.subqueries.push(Subquery {
                    kind: SubqueryKind::InGrouped,
                    block,
                    correlation,
                    filter: Some(f),
                });
                return Ok(());
            }
            Expr::BinaryOp { left, op, right }
                if cmp_op(op).is_some() && (is_subquery(left) || is_subquery(right)) =>
            {
                let (side, _, q) = compared_subquery(left, right);
                let mut cols = Vec::new();
                self.columns_of(side, scope, &mut cols)?;
                let mut tables = self.local_tables(&cols, bi, side)?;
                let (block, correlation) = self.read_block(q, Some(scope))?;
                for (_, outer) in &correlation {
                    if !tables.contains(&outer.table) {
                        tables.push(outer.table);
                    }
                }
                let kind = match cmp_op(op) {
                    Some((CmpOp::Eq, false)) => FilterKind::Eq,
                    Some((_, true)) => FilterKind::Ne,
                    _ => FilterKind::Ineq,
                };
                let f = self.add_filter(scope, e, tables, kind);
                self.blocks[bi].q.subqueries.push(Subquery {
                    kind: SubqueryKind::Scalar,
                    block,
                    correlation,
                    filter: Some(f),
                });
                return Ok(());
            }
            _ => {}
        }
        let ors = disjuncts(e);
        if ors.len() > 1 {
            return self.or_condition(e, &ors, scope);
        }
        self.atom(strip(e), scope)
    }

    /// Adds `e` as a filter of block `bi` (its text as sqlparser prints it, its truth
    /// unknown); returns its index.
    fn add_filter(
        &mut self,
        scope: usize,
        e: &Expr,
        tables: Vec<usize>,
        kind: FilterKind,
    ) -> usize {
        let expr = self.lower(strip(e), scope);
        let b = &mut self.blocks[self.scopes[scope].block].q;
        b.filters.push(Filter {
            sql: Name::from(strip(e).to_string()),
            expr,
            tables,
            kind,
            true_selectivity: f64::NAN,
        });
        b.filters.len() - 1
    }

    /// Tables of the block `bi` among `cols`, in the order they appear; a column of another
    /// block is refused (at `at`, whose span is only computed then: it walks the
    /// expression).
    fn local_tables(&self, cols: &[Col], bi: usize, at: &Expr) -> Result<Vec<usize>> {
        let mut out = Vec::new();
        for c in cols {
            if c.block != bi {
                return Err(self.not_modelled(
                    at.span(),
                    "a correlated reference outside an equality `inner = outer`",
                ));
            }
            if !out.contains(&c.table) {
                out.push(c.table);
            }
        }
        Ok(out)
    }

    /// A condition without sub-selects and without OR at the top.
    fn atom(&mut self, e: &'a Expr, scope: usize) -> Result<()> {
        let bi = self.scopes[scope].block;
        let mut cols = Vec::new();
        self.columns_of(e, scope, &mut cols)?;
        // Correlation: `inner = outer` in a sub-select's block.
        if cols.iter().any(|c| c.block != bi) {
            if let (
                Expr::BinaryOp {
                    left,
                    op: BinaryOperator::Eq,
                    right,
                },
                [a, b],
            ) = (e, cols.as_slice())
            {
                if self.plain_column(left, scope) && self.plain_column(right, scope) {
                    let (inner, outer) = if a.block == bi { (a, b) } else { (b, a) };
                    if inner.block == bi && outer.block + 1 == bi {
                        self.blocks[bi]
                            .correlation
                            .push((inner.colref(), outer.colref()));
                        return Ok(());
                    }
                }
            }
            return Err(self.not_modelled(
                e.span(),
                "a correlated reference outside an equality `inner = outer`",
            ));
        }
        let tables = self.local_tables(&cols, bi, e)?;
        if tables.is_empty() {
            return Err(self.not_modelled(e.span(), "a condition without columns"));
        }
        // A boolean column alone (or negated) is `= true` (or false), as PostgreSQL's
        // selectivity reads it; costed as the bare column it is.
        if let [c] = cols.as_slice() {
            let negated = match e {
                Expr::UnaryOp {
                    op: UnaryOperator::Not,
                    expr,
                } if self.plain_column(expr, scope) => Some(true),
                _ if self.plain_column(e, scope) => Some(false),
                _ => None,
            };
            if let (Some(neg), ColumnType::Bool) = (negated, &c.ty) {
                self.blocks[bi].q.tables[c.table]
                    .preds
                    .push(Predicate::Cmp {
                        column: c.column.to_string(),
                        op: CmpOp::Eq,
                        value: Value::Num(if neg { 0.0 } else { 1.0 }),
                    });
                return Ok(());
            }
        }
        // A join edge.
        if let (
            Expr::BinaryOp {
                left,
                op: BinaryOperator::Eq,
                right,
            },
            [a, b],
        ) = (e, cols.as_slice())
        {
            if a.table != b.table
                && self.plain_column(left, scope)
                && self.plain_column(right, scope)
            {
                self.blocks[bi].q.joins.push(JoinEdge {
                    a: a.colref(),
                    b: b.colref(),
                });
                return Ok(());
            }
        }
        // A sargable predicate of one table.
        if let ([t], Some(p)) = (tables.as_slice(), self.predicate(e, scope, &cols)?) {
            self.blocks[bi].q.tables[*t].preds.push(p);
            return Ok(());
        }
        let kind = self.filter_kind(e, scope);
        self.add_filter(scope, e, tables, kind);
        Ok(())
    }

    /// An OR: join equalities common to every arm become join edges, the rest one filter.
    fn or_condition(&mut self, e: &'a Expr, arms: &[&'a Expr], scope: usize) -> Result<()> {
        let bi = self.scopes[scope].block;
        for a in arms {
            if has_subquery(a) {
                return Err(self.not_modelled(a.span(), "a sub-select under OR"));
            }
        }
        let mut cols = Vec::new();
        self.columns_of(e, scope, &mut cols)?;
        let tables = self.local_tables(&cols, bi, e)?;
        // Join equalities of each arm, as unordered column pairs.
        let mut common: Option<Vec<(ColRef, ColRef)>> = None;
        let mut arm_joins: Vec<Vec<(usize, (ColRef, ColRef))>> = Vec::new();
        for a in arms {
            let mut js = Vec::new();
            for (k, c) in conjuncts(a).into_iter().enumerate() {
                if let Some(pair) = self.join_pair(c, scope)? {
                    js.push((k, pair));
                }
            }
            let pairs: Vec<(ColRef, ColRef)> = js.iter().map(|(_, p)| p.clone()).collect();
            common = Some(match common {
                None => pairs,
                Some(prev) => prev
                    .into_iter()
                    .filter(|p| pairs.iter().any(|q| same_pair(p, q)))
                    .collect(),
            });
            arm_joins.push(js);
        }
        let common = common.unwrap_or_default();
        for (a, b) in &common {
            self.blocks[bi].q.joins.push(JoinEdge {
                a: a.clone(),
                b: b.clone(),
            });
        }
        let mut kinds = Vec::new();
        for (arm, js) in arms.iter().zip(&arm_joins) {
            let mut ks = Vec::new();
            for (k, c) in conjuncts(arm).into_iter().enumerate() {
                let extracted = js
                    .iter()
                    .any(|(jk, p)| *jk == k && common.iter().any(|q| same_pair(p, q)));
                if !extracted {
                    ks.push(self.filter_kind(c, scope));
                }
            }
            kinds.push(if ks.len() == 1 {
                ks.remove(0)
            } else {
                FilterKind::And(ks)
            });
        }
        self.add_filter(scope, e, tables, FilterKind::Or(kinds));
        Ok(())
    }

    /// `a.x = b.y` between two tables of the block: the pair.
    fn join_pair(&mut self, e: &Expr, scope: usize) -> Result<Option<(ColRef, ColRef)>> {
        let bi = self.scopes[scope].block;
        if let Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } = e
        {
            if self.plain_column(left, scope) && self.plain_column(right, scope) {
                let mut cols = Vec::new();
                self.columns_of(e, scope, &mut cols)?;
                if let [a, b] = cols.as_slice() {
                    if a.block == bi && b.block == bi && a.table != b.table {
                        return Ok(Some((a.colref(), b.colref())));
                    }
                }
            }
        }
        Ok(None)
    }

    /// A condition in a LEFT JOIN's ON: equalities with the preserved side are join edges,
    /// conditions of the nullable table alone its predicates or filters.
    fn outer_join_condition(
        &mut self,
        e: &'a Expr,
        scope: usize,
        nullable: &[usize],
    ) -> Result<()> {
        let bi = self.scopes[scope].block;
        if has_subquery(e) {
            return Err(self.not_modelled(e.span(), "a sub-select in a LEFT JOIN's ON"));
        }
        let mut cols = Vec::new();
        self.columns_of(e, scope, &mut cols)?;
        let tables = self.local_tables(&cols, bi, e)?;
        if tables.iter().all(|t| nullable.contains(t)) {
            return self.condition(e, scope);
        }
        if self.join_pair(strip(e), scope)?.is_some() {
            return self.condition(e, scope);
        }
        Err(self.not_modelled(
            e.span(),
            "a LEFT JOIN condition on the preserved side other than an equality with the joined table",
        ))
    }

    /// Whether `e` is a column (a merged derived table's column when it stands for one).
    fn plain_column(&self, e: &Expr, scope: usize) -> bool {
        name_parts(e).is_some_and(|parts| {
            self.peek(parts, scope)
                .is_none_or(|x| name_parts(x.0).is_some())
        })
    }

    /// What a name stands for when it is a merged derived column (without marking uses).
    fn peek(&self, parts: &[ast::Ident], scope: usize) -> Option<(&'a Expr, usize)> {
        let (qual, col) = qualified(parts)?;
        let mut sc = Some(scope);
        while let Some(s) = sc {
            for r in &self.scopes[s].rels {
                if qual.is_some_and(|q| !r.alias.eq_ignore_ascii_case(q)) {
                    continue;
                }
                match &r.kind {
                    RelKind::Merged { columns, scope } => {
                        if let Some((_, e)) =
                            columns.iter().find(|(n, _)| n.eq_ignore_ascii_case(col))
                        {
                            return Some((e, *scope));
                        }
                    }
                    RelKind::Table { columns, .. } => {
                        if columns.find(col).is_some() {
                            return None;
                        }
                    }
                }
            }
            sc = self.scopes[s].parent;
        }
        None
    }

    /// `col op constant`, `col BETWEEN c AND c`, `col IN (c, ...)` on one column.
    fn predicate(&mut self, e: &Expr, scope: usize, cols: &[Col]) -> Result<Option<Predicate>> {
        let [c] = cols else {
            return Ok(None);
        };
        let col = |x: &Expr| self.plain_column(x, scope);
        Ok(match e {
            Expr::BinaryOp { left, op, right } => {
                let Some((op, ne)) = cmp_op(op) else {
                    return Ok(None);
                };
                if ne {
                    return Ok(None);
                }
                let (value, op) = if col(left) {
                    (self.value(right, &c.ty)?, op)
                } else if col(right) {
                    (self.value(left, &c.ty)?, flip(op))
                } else {
                    return Ok(None);
                };
                value.map(|value| Predicate::Cmp {
                    column: c.column.to_string(),
                    op,
                    value,
                })
            }
            Expr::Between {
                expr,
                negated: false,
                low,
                high,
            } if col(expr) => match (self.value(low, &c.ty)?, self.value(high, &c.ty)?) {
                (Some(lo), Some(hi)) => Some(Predicate::Between {
                    column: c.column.to_string(),
                    lo,
                    hi,
                }),
                _ => None,
            },
            Expr::In {
                expr,
                target: ast::InTarget::List(list),
                negated: false,
                ..
            } if col(expr) => {
                let mut values = Vec::new();
                for x in list {
                    match self.value(x, &c.ty)? {
                        Some(v) => values.push(v),
                        None => return Ok(None),
                    }
                }
                Some(Predicate::In {
                    column: c.column.to_string(),
                    values,
                })
            }
            _ => None,
        })
    }

    /// A constant as a value compared with a column of type `ty` (texts become dates for
    /// date columns); `None` when `e` is not a constant.
    fn value(&self, e: &Expr, ty: &ColumnType) -> Result<Option<Value>> {
        Ok(match self.constant(e)? {
            Some(Const::Num(n, _)) => Some(Value::Num(n)),
            Some(Const::Date(d)) => Some(Value::Num(d as f64)),
            Some(Const::Text(s)) if *ty == ColumnType::Date => {
                let d = costlab_model::date::parse(&s)
                    .map_err(|er| self.err(e.span(), er.to_string()))?;
                Some(Value::Num(d as f64))
            }
            Some(Const::Text(s)) => Some(Value::Text(s)),
            Some(Const::Interval(..)) | None => None,
        })
    }

    /// Folds a constant expression; `None` when it reads a column or anything unknown.
    fn constant(&self, e: &Expr) -> Result<Option<Const>> {
        let date_of = |c: Const, span: Span| -> Result<Option<i64>> {
            Ok(match c {
                Const::Date(d) => Some(d),
                Const::Text(s) => Some(
                    costlab_model::date::parse(&s).map_err(|er| self.err(span, er.to_string()))?,
                ),
                _ => None,
            })
        };
        Ok(match e {
            Expr::Nested(x) => self.constant(x)?,
            Expr::Value(v) => match &v.value {
                SqlValue::Number(s, _) => s.parse::<f64>().ok().map(|n| Const::Num(n, decimals(s))),
                SqlValue::SingleQuotedString(s) | SqlValue::DoubleQuotedString(s) => {
                    Some(Const::Text(s.clone()))
                }
                SqlValue::Boolean(b) => Some(Const::Num(if *b { 1.0 } else { 0.0 }, 0)),
                _ => None,
            },
            Expr::TypedString(ts) => {
                let s = match &ts.value.value {
                    SqlValue::SingleQuotedString(s) => s.clone(),
                    _ => return Ok(None),
                };
                match &ts.data_type {
                    ast::DataType::Date => Some(Const::Date(
                        costlab_model::date::parse(&s)
                            .map_err(|er| self.err(e.span(), er.to_string()))?,
                    )),
                    _ => Some(Const::Text(s)),
                }
            }
            Expr::Cast {
                expr, data_type, ..
            } => match (self.constant(expr)?, data_type) {
                (Some(c), ast::DataType::Date) => date_of(c, e.span())?.map(Const::Date),
                (c, _) => c,
            },
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr,
            } => match self.constant(expr)? {
                Some(Const::Num(n, d)) => Some(Const::Num(-n, d)),
                _ => None,
            },
            Expr::UnaryOp {
                op: UnaryOperator::Plus,
                expr,
            } => self.constant(expr)?,
            Expr::Interval(i) => self.interval(i)?,
            Expr::BinaryOp { left, op, right } => {
                let (Some(a), Some(b)) = (self.constant(left)?, self.constant(right)?) else {
                    return Ok(None);
                };
                self.arith(a, op, b, e.span())?
            }
            Expr::Function(f) => {
                let name = object_name(&f.name).to_ascii_lowercase();
                let args: Vec<&Expr> = match &f.args {
                    FunctionArguments::List(l) => l
                        .args
                        .iter()
                        .filter_map(|a| match a {
                            FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(x),
                            _ => None,
                        })
                        .collect(),
                    _ => return Ok(None),
                };
                match (name.as_str(), args.as_slice()) {
                    ("date_add" | "adddate" | "date_sub" | "subdate", [d, i]) => {
                        let (Some(d), Some(iv)) = (self.constant(d)?, self.constant(i)?) else {
                            return Ok(None);
                        };
                        let op = if name.starts_with("date_add") || name == "adddate" {
                            BinaryOperator::Plus
                        } else {
                            BinaryOperator::Minus
                        };
                        let d = match d {
                            Const::Text(_) | Const::Date(_) => {
                                date_of(d, e.span())?.map(Const::Date)
                            }
                            _ => None,
                        };
                        match d {
                            Some(d) => self.arith(d, &op, iv, e.span())?,
                            None => None,
                        }
                    }
                    ("date", [d]) => match self.constant(d)? {
                        Some(c) => date_of(c, e.span())?.map(Const::Date),
                        None => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        })
    }

    fn interval(&self, i: &ast::Interval) -> Result<Option<Const>> {
        let (n, unit_in_text) = match self.constant(&i.value)? {
            Some(Const::Num(n, _)) => (n, None),
            Some(Const::Text(s)) => {
                let mut it = s.split_whitespace();
                let n: f64 = match it.next().and_then(|x| x.parse().ok()) {
                    Some(n) => n,
                    None => {
                        return Err(
                            self.err(i.value.span(), format!("cannot read the interval '{s}'"))
                        )
                    }
                };
                (n, it.next().map(|u| u.to_ascii_lowercase()))
            }
            _ => return Ok(None),
        };
        let unit = match (&i.leading_field, unit_in_text) {
            (Some(f), _) => f.to_string().to_ascii_lowercase(),
            (None, Some(u)) => u,
            (None, None) => return Err(self.err(i.value.span(), "an interval needs a unit")),
        };
        if n.fract() != 0.0 {
            return Err(self.not_modelled(i.value.span(), "a fractional interval"));
        }
        let n = n as i64;
        Ok(Some(match unit.trim_end_matches('s') {
            "day" => Const::Interval(0, n),
            "week" => Const::Interval(0, 7 * n),
            "month" | "mon" => Const::Interval(n, 0),
            "quarter" => Const::Interval(3 * n, 0),
            "year" => Const::Interval(12 * n, 0),
            u => return Err(self.not_modelled(i.value.span(), &format!("an interval in {u}s"))),
        }))
    }

    fn arith(&self, a: Const, op: &BinaryOperator, b: Const, span: Span) -> Result<Option<Const>> {
        use BinaryOperator as B;
        Ok(match (a, op, b) {
            (Const::Num(x, dx), op, Const::Num(y, dy)) => {
                let scale = dx.max(dy);
                let round = |v: f64| {
                    let f = 10f64.powi(scale);
                    (v * f).round() / f
                };
                match op {
                    B::Plus => Some(Const::Num(round(x + y), scale)),
                    B::Minus => Some(Const::Num(round(x - y), scale)),
                    B::Multiply => Some(Const::Num(x * y, dx + dy)),
                    B::Divide if y != 0.0 => Some(Const::Num(x / y, dx.max(dy).max(6))),
                    _ => None,
                }
            }
            (
                d @ (Const::Date(_) | Const::Text(_)),
                B::Plus | B::Minus,
                Const::Interval(m, days),
            ) => {
                let d = match d {
                    Const::Date(d) => d,
                    Const::Text(s) => costlab_model::date::parse(&s)
                        .map_err(|er| self.err(span, er.to_string()))?,
                    _ => unreachable!("matched"),
                };
                let sign = if matches!(op, B::Minus) { -1 } else { 1 };
                Some(Const::Date(add_months(d, sign * m) + sign * days))
            }
            (Const::Date(d), B::Plus, Const::Num(n, 0)) => Some(Const::Date(d + n as i64)),
            (Const::Date(d), B::Minus, Const::Num(n, 0)) => Some(Const::Date(d - n as i64)),
            _ => None,
        })
    }

    /// The kind a filter's engines derive their default selectivities from.
    fn filter_kind(&self, e: &Expr, scope: usize) -> FilterKind {
        let col = |x: &Expr| self.plain_column(x, scope);
        let constant = |x: &Expr| !has_column(x);
        match strip(e) {
            Expr::BinaryOp {
                op: BinaryOperator::And,
                ..
            } => FilterKind::And(
                conjuncts(e)
                    .into_iter()
                    .map(|c| self.filter_kind(c, scope))
                    .collect(),
            ),
            Expr::BinaryOp {
                op: BinaryOperator::Or,
                ..
            } => FilterKind::Or(
                disjuncts(e)
                    .into_iter()
                    .map(|c| self.filter_kind(c, scope))
                    .collect(),
            ),
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr,
            } => match self.filter_kind(expr, scope) {
                FilterKind::Like => FilterKind::NotLike,
                FilterKind::NotLike => FilterKind::Like,
                k => FilterKind::Not(Box::new(k)),
            },
            Expr::BinaryOp { left, op, right } => match cmp_op(op) {
                Some(_) if is_subquery(left) || is_subquery(right) => FilterKind::Ineq,
                Some((o, ne))
                    if (col(left) || constant(left)) && (col(right) || constant(right)) =>
                {
                    if ne {
                        FilterKind::Ne
                    } else if o == CmpOp::Eq {
                        FilterKind::Eq
                    } else {
                        FilterKind::Ineq
                    }
                }
                _ => FilterKind::Function,
            },
            Expr::Between { expr, negated, .. } if col(expr) => {
                if *negated {
                    FilterKind::Not(Box::new(FilterKind::Between))
                } else {
                    FilterKind::Between
                }
            }
            Expr::In {
                expr,
                target: ast::InTarget::List(list),
                negated,
                ..
            } if col(expr) => {
                let k = FilterKind::InList(list.len());
                if *negated {
                    FilterKind::Not(Box::new(k))
                } else {
                    k
                }
            }
            Expr::Like { expr, negated, .. } | Expr::ILike { expr, negated, .. } if col(expr) => {
                if *negated {
                    FilterKind::NotLike
                } else {
                    FilterKind::Like
                }
            }
            Expr::IsNull(x) if col(x) => FilterKind::IsNull,
            Expr::IsNotNull(x) if col(x) => FilterKind::Not(Box::new(FilterKind::IsNull)),
            Expr::In {
                target: ast::InTarget::Subquery(_),
                ..
            } => FilterKind::InSubquery,
            _ => FilterKind::Function,
        }
    }

    // ---- nests ------------------------------------------------------------------------

    /// Whether a sub-select can be flattened into a semi or anti join: one SELECT without
    /// grouping, aggregates, DISTINCT or LIMIT.
    fn nestable(&self, q: &ast::Query) -> bool {
        match &*q.body {
            SetExpr::Select(s) => {
                let grouped =
                    matches!(&s.group_by, GroupByExpr::Expressions(e, _) if !e.is_empty());
                !grouped
                    && s.having.is_none()
                    && s.distinct.is_none()
                    && q.limit_clause.is_none()
                    && q.with.is_none()
                    && !s.projection.iter().any(|p| self.has_aggregate_item(p))
                    && s.from.iter().all(|f| f.joins.is_empty())
            }
            _ => false,
        }
    }

    /// EXISTS / IN sub-selects flattened into a nest of the block; `in_expr`: the outer
    /// side of an IN, joined to the sub-select's one output column.
    fn nest(
        &mut self,
        q: &'a ast::Query,
        kind: NestKind,
        origin: NestOrigin,
        in_expr: Option<&'a Expr>,
        scope: usize,
        span: Span,
    ) -> Result<()> {
        if !self.nestable(q) {
            return Err(self.not_modelled(span, "EXISTS over a grouped or aggregated sub-select"));
        }
        let SetExpr::Select(s) = &*q.body else {
            unreachable!("nestable")
        };
        let bi = self.scopes[scope].block;
        let n = match self.scopes[scope].nest {
            Some(parent) => {
                let pk = self.blocks[bi].q.nests[parent].kind;
                if pk != NestKind::Semi || kind != NestKind::Semi {
                    return Err(
                        self.not_modelled(span, "a NOT EXISTS or NOT IN inside another sub-select")
                    );
                }
                parent
            }
            None => {
                let b = &mut self.blocks[bi].q;
                b.nests.push(Nest {
                    kind,
                    origin,
                    tables: Vec::new(),
                    true_match: f64::NAN,
                });
                b.nests.len() - 1
            }
        };
        let inner = self.new_scope(bi, Some(scope), Some(n));
        for twj in &s.from {
            self.add_from_item(&twj.relation, inner, &[])?;
        }
        if let Some(x) = in_expr {
            let [item] = s.projection.as_slice() else {
                return Err(self.err(span, "an IN sub-select returns one column"));
            };
            let ie = match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
                _ => return Err(self.err(item.span(), "an IN sub-select returns one column")),
            };
            if !self.plain_column(x, scope) || !self.plain_column(ie, inner) {
                return Err(self.not_modelled(span, "IN between expressions (only columns)"));
            }
            let mut outer_cols = Vec::new();
            self.columns_of(x, scope, &mut outer_cols)?;
            let mut inner_cols = Vec::new();
            self.columns_of(ie, inner, &mut inner_cols)?;
            let (Some(a), Some(b)) = (outer_cols.first(), inner_cols.first()) else {
                return Err(self.err(span, "IN needs a column on each side"));
            };
            if a.block != bi || b.block != bi {
                return Err(self.not_modelled(span, "a correlated IN"));
            }
            self.blocks[bi].q.joins.push(JoinEdge {
                a: a.colref(),
                b: b.colref(),
            });
        }
        if let Some(w) = &s.selection {
            for c in conjuncts(w) {
                self.condition(c, inner)?;
            }
        }
        Ok(())
    }
}

enum Resolved<'a> {
    Col(Col),
    /// A merged derived table's column: its expression, in its scope.
    Expr(&'a Expr, usize),
}

/// What a name hits in one scope: column `k` of rel `r` (a table), or a merged derived
/// table's column (its expression, in its scope).
enum Hit<'a> {
    Column(usize, usize),
    Merged(&'a Expr, usize),
}

/// Why a name does not resolve.
enum Unresolved {
    Empty,
    Ambiguous,
    /// Not a column of the table (its alias) the name qualifies it by.
    NotIn(String),
    Unknown,
}

fn same_pair(p: &(ColRef, ColRef), q: &(ColRef, ColRef)) -> bool {
    (p.0 == q.0 && p.1 == q.1) || (p.0 == q.1 && p.1 == q.0)
}

/// Calls `f` on each expression directly inside `e` that the front end walks (a
/// function's arguments and FILTER, CASE's parts, an operator's operands, ...), in order;
/// `false` (and `f` never called) for a sub-select and for any expression it does not know.
/// Constants have none. A visitor rather than a list: the walks run over every node of
/// every condition, and a list per node was an allocation per node.
fn each_sub_expr<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) -> bool {
    match e {
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::Value(_)
        | Expr::TypedString(_) => {}
        Expr::Nested(x)
        | Expr::UnaryOp { expr: x, .. }
        | Expr::IsNull(x)
        | Expr::IsNotNull(x)
        | Expr::IsTrue(x)
        | Expr::IsFalse(x)
        | Expr::IsNotTrue(x)
        | Expr::IsNotFalse(x)
        | Expr::Cast { expr: x, .. }
        | Expr::Extract { expr: x, .. }
        | Expr::Ceil { expr: x, .. }
        | Expr::Floor { expr: x, .. }
        | Expr::Collate { expr: x, .. } => f(x),
        Expr::Interval(i) => f(&i.value),
        Expr::BinaryOp { left, right, .. }
        | Expr::Like {
            expr: left,
            pattern: right,
            ..
        }
        | Expr::ILike {
            expr: left,
            pattern: right,
            ..
        }
        | Expr::IsDistinctFrom(left, right)
        | Expr::IsNotDistinctFrom(left, right)
        | Expr::Position {
            expr: left,
            r#in: right,
        } => {
            f(left);
            f(right);
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            f(expr);
            f(low);
            f(high);
        }
        Expr::In {
            expr,
            target: ast::InTarget::List(list),
            ..
        } => {
            f(expr);
            list.iter().for_each(f);
        }
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            f(expr);
            substring_from.as_deref().into_iter().for_each(&mut *f);
            substring_for.as_deref().into_iter().for_each(f);
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            operand.as_deref().into_iter().for_each(&mut *f);
            for w in conditions {
                f(&w.condition);
                f(&w.result);
            }
            else_result.as_deref().into_iter().for_each(f);
        }
        Expr::Function(func) => {
            match &func.args {
                FunctionArguments::List(l) => {
                    for a in &l.args {
                        if let FunctionArg::Unnamed(FunctionArgExpr::Expr(x))
                        | FunctionArg::Named {
                            arg: FunctionArgExpr::Expr(x),
                            ..
                        }
                        | FunctionArg::ExprNamed {
                            arg: FunctionArgExpr::Expr(x),
                            ..
                        } = a
                        {
                            f(x);
                        }
                    }
                }
                FunctionArguments::None => {}
                FunctionArguments::Subquery(_) => return false,
            }
            func.filter.as_deref().into_iter().for_each(f);
        }
        _ => return false,
    }
    true
}

/// Whether `e` or any expression inside it (sub-selects not entered) satisfies `pred`.
fn any_expr(e: &Expr, pred: &dyn Fn(&Expr) -> bool) -> bool {
    if pred(e) {
        return true;
    }
    let mut found = false;
    each_sub_expr(e, &mut |x| found = found || any_expr(x, pred));
    found
}

fn has_aggregate(e: &Expr) -> bool {
    any_expr(e, &|x| match x {
        Expr::Function(f) => {
            let n = object_name(&f.name);
            f.over.is_none() && AGGREGATES.iter().any(|a| a.eq_ignore_ascii_case(&n))
        }
        _ => false,
    })
}

fn has_subquery(e: &Expr) -> bool {
    any_expr(e, &|x| {
        matches!(
            x,
            Expr::Subquery(_)
                | Expr::Exists { .. }
                | Expr::In {
                    target: ast::InTarget::Subquery(_),
                    ..
                }
        )
    })
}

fn has_column(e: &Expr) -> bool {
    any_expr(e, &|x| {
        matches!(x, Expr::Identifier(_) | Expr::CompoundIdentifier(_))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use costlab_workload::dbt3::catalog::dbt3;

    fn tables() -> Vec<Table> {
        dbt3(0.01).unwrap().pg
    }

    fn read(sql: &str, d: Dialect) -> Result<QueryBlock> {
        read_query(sql, d, &tables())
    }

    fn pg(sql: &str) -> QueryBlock {
        read(sql, Dialect::Postgres).unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// The error and the text it marks.
    fn refused(sql: &str) -> (String, String) {
        match read(sql, Dialect::Postgres) {
            Err(Error::Sql {
                msg, start, end, ..
            }) => (msg, sql[start..end].to_string()),
            other => panic!("{sql}: {other:?}"),
        }
    }

    fn day(s: &str) -> Value {
        Value::Num(costlab_model::date::parse(s).unwrap() as f64)
    }

    /// Filter texts cleared: the same query in two spellings differs only in them.
    fn without_texts(mut b: QueryBlock) -> QueryBlock {
        for f in &mut b.filters {
            f.sql = Name::from_static("");
        }
        for s in &mut b.subqueries {
            s.block = without_texts(s.block.clone());
        }
        b
    }

    #[test]
    fn joins_written_either_way_and_both_dialects_read_the_same() {
        let kit = read(
            &costlab_workload::dbt3::queries::query(3, 1.0).unwrap().sql,
            Dialect::Mysql,
        )
        .unwrap();
        let explicit = pg(
            "SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue,
                o_orderdate, o_shippriority
            FROM customer JOIN orders ON c_custkey = o_custkey
                JOIN lineitem ON l_orderkey = o_orderkey
            WHERE c_mktsegment = 'BUILDING' AND o_orderdate < date '1995-03-15'
                AND l_shipdate > date '1995-03-15'
            GROUP BY l_orderkey, o_orderdate, o_shippriority
            ORDER BY revenue DESC, o_orderdate LIMIT 10",
        );
        assert_eq!(without_texts(kit.clone()), without_texts(explicit));
        assert_eq!(kit.tables.len(), 3);
        assert_eq!(kit.joins.len(), 2);
        assert_eq!(
            kit.tables[1].preds,
            vec![Predicate::Cmp {
                column: "o_orderdate".into(),
                op: CmpOp::Lt,
                value: day("1995-03-15"),
            }]
        );
        assert!(kit.order_by_expression && kit.order_by.is_empty());
        assert_eq!(kit.limit, Some(10.0));
        // USING names the column once for both sides.
        let using = pg("SELECT count(*) FROM nation n1 JOIN nation n2 USING (n_regionkey)");
        assert_eq!(using.joins.len(), 1);
        assert_eq!(
            (using.joins[0].a.table, using.joins[0].b.table),
            (0, 1),
            "{using:?}"
        );
        assert_eq!(using.joins[0].a.column, "n_regionkey");
    }

    #[test]
    fn constants_fold_as_the_servers_compute_them() {
        // DECIMAL arithmetic: exactly 0.05 and 0.07, not 0.049999...
        let q6 = read(
            &costlab_workload::dbt3::queries::query(6, 1.0).unwrap().sql,
            Dialect::Mysql,
        )
        .unwrap();
        assert!(q6.tables[0].preds.contains(&Predicate::Between {
            column: "l_discount".into(),
            lo: Value::Num(0.05),
            hi: Value::Num(0.07),
        }));
        assert!(q6.tables[0].preds.contains(&Predicate::Cmp {
            column: "l_shipdate".into(),
            op: CmpOp::Lt,
            value: day("1995-01-01"),
        }));
        let q1 = read(
            &costlab_workload::dbt3::queries::query(1, 1.0).unwrap().sql,
            Dialect::Mysql,
        )
        .unwrap();
        assert_eq!(
            q1.tables[0].preds[0],
            Predicate::Cmp {
                column: "l_shipdate".into(),
                op: CmpOp::Le,
                value: day("1998-09-02"),
            }
        );
        for (text, want) in [
            ("date '1998-12-01' - interval '90 days'", "1998-09-02"),
            ("date '1998-12-01' - interval '90' day", "1998-09-02"),
            ("'1993-07-01'::date + interval '3 month'", "1993-10-01"),
            ("date '1996-01-31' + interval '1 month'", "1996-02-29"),
            ("date '1995-01-31' + interval '1 month'", "1995-02-28"),
            ("date '1994-01-01' + interval '1 year'", "1995-01-01"),
            ("cast('1994-03-01' as date) - 1", "1994-02-28"),
        ] {
            let b = pg(&format!("SELECT * FROM lineitem WHERE l_shipdate < {text}"));
            assert_eq!(
                b.tables[0].preds[0],
                Predicate::Cmp {
                    column: "l_shipdate".into(),
                    op: CmpOp::Lt,
                    value: day(want),
                },
                "{text}"
            );
        }
        // A constant on the left turns the comparison round.
        let b = pg("SELECT * FROM lineitem WHERE 24 > l_quantity");
        assert_eq!(
            b.tables[0].preds[0],
            Predicate::Cmp {
                column: "l_quantity".into(),
                op: CmpOp::Lt,
                value: Value::Num(24.0),
            }
        );
    }

    /// Every condition, select item, grouping and ordering key is typed once here: each
    /// column names its table reference (a table read twice gives two), a merged derived
    /// table's column is its expression, constants keep their digits.
    #[test]
    fn expressions_are_typed_with_their_table_references() {
        use costlab_model::expr::{BinOp, Column, Expr as T};
        let col = |t: usize, q: &str, n: &str| {
            T::Column(Column {
                table: Some(t),
                qualifier: Some(Name::from(q)),
                name: Name::from(n),
            })
        };
        let b = pg(
            "SELECT count(*) FROM orders e1 JOIN orders e2 ON e2.o_orderkey = e1.o_orderkey + 1
            WHERE e1.o_totalprice BETWEEN 2000 AND 2020",
        );
        assert_eq!(b.filters.len(), 1);
        assert_eq!(
            b.filters[0].expr,
            T::Binary {
                op: BinOp::Eq,
                left: Box::new(col(1, "e2", "o_orderkey")),
                right: Box::new(T::Binary {
                    op: BinOp::Add,
                    left: Box::new(col(0, "e1", "o_orderkey")),
                    right: Box::new(T::Number(Name::from("1"))),
                }),
            }
        );
        assert_eq!(
            b.select[0].expr,
            T::Call {
                name: Name::from("count"),
                args: vec![T::Star],
                distinct: false
            }
        );
        let b = pg("SELECT v.yr, sum(v.amount) AS total FROM
              (SELECT extract(year FROM o_orderdate) AS yr, o_totalprice * 0.10 AS amount FROM orders) v
            GROUP BY v.yr HAVING sum(v.amount) > 5 ORDER BY total DESC, 1");
        assert_eq!(b.select[1].alias.as_deref(), Some("total"));
        let T::Call { args, .. } = &b.select[1].expr else {
            panic!("{:?}", b.select[1].expr)
        };
        // The merged derived table's column is the expression it stands for, named.
        let T::Derived { name, expr } = &args[0] else {
            panic!("{:?}", args[0])
        };
        assert_eq!(name, "amount");
        let T::Binary { op, right, .. } = &**expr else {
            panic!("{expr:?}")
        };
        assert_eq!(*op, BinOp::Mul);
        assert_eq!(**right, T::Number(Name::from("0.10")));
        assert!(
            matches!(&b.group_items[0], T::Derived { expr, .. } if matches!(&**expr, T::Extract { field, .. } if field == "year"))
        );
        assert!(b.having.as_ref().is_some_and(T::has_aggregate));
        assert_eq!(b.order_items.len(), 2);
        assert!(b.order_items[0].1 && !b.order_items[1].1);
    }

    #[test]
    fn conditions_become_edges_predicates_and_filters_of_their_kind() {
        let b = pg("SELECT * FROM orders o, lineitem l
            WHERE o.o_orderkey = l.l_orderkey AND l.l_commitdate < l.l_receiptdate
              AND o.o_comment NOT LIKE '%special%' AND o.o_orderstatus <> 'F'
              AND l.l_shipmode IN ('MAIL', 'SHIP') AND upper(o.o_clerk) = 'X'
              AND o.o_totalprice IS NULL AND NOT (l.l_quantity BETWEEN 1 AND 5)");
        assert_eq!(b.joins.len(), 1);
        assert_eq!(
            b.tables[1].preds,
            vec![Predicate::In {
                column: "l_shipmode".into(),
                values: vec![Value::Text("MAIL".into()), Value::Text("SHIP".into())],
            }]
        );
        let kinds: Vec<&FilterKind> = b.filters.iter().map(|f| &f.kind).collect();
        assert_eq!(
            kinds,
            vec![
                &FilterKind::Ineq,
                &FilterKind::NotLike,
                &FilterKind::Ne,
                &FilterKind::Function,
                &FilterKind::IsNull,
                &FilterKind::Not(Box::new(FilterKind::Between)),
            ]
        );
        assert!(b.filters.iter().all(|f| f.true_selectivity.is_nan()));
        assert_eq!(b.filters[0].tables, vec![1]);
        assert_eq!(b.filters[1].sql, "o.o_comment NOT LIKE '%special%'");
        // `*` uses every column, in the table's order.
        let orders = tables().into_iter().find(|t| t.name == "orders").unwrap();
        let all: Vec<Name> = orders
            .columns
            .iter()
            .map(|c| Name::from(c.name.as_str()))
            .collect();
        assert_eq!(b.tables[0].uses, all);
        // Otherwise what the query reads.
        let b = pg("SELECT o_orderdate FROM orders WHERE o_orderkey < 10 ORDER BY o_custkey");
        assert_eq!(
            b.tables[0].uses,
            vec![
                Name::from("o_orderkey"),
                Name::from("o_custkey"),
                Name::from("o_orderdate")
            ]
        );
        assert_eq!(b.order_by.len(), 1);
    }

    #[test]
    fn an_or_gives_up_the_join_equality_every_arm_holds() {
        let q19 = read(
            &costlab_workload::dbt3::queries::query(19, 1.0).unwrap().sql,
            Dialect::Mysql,
        )
        .unwrap();
        assert_eq!(q19.joins.len(), 1);
        assert_eq!(q19.joins[0].a.column, "p_partkey");
        assert_eq!(q19.filters.len(), 1);
        let FilterKind::Or(arms) = &q19.filters[0].kind else {
            panic!("{:?}", q19.filters[0].kind)
        };
        assert_eq!(arms.len(), 3);
        assert!(arms
            .iter()
            .all(|a| matches!(a, FilterKind::And(v) if v.len() == 7)));
        // An equality only some arms hold stays in the filter.
        let b = pg("SELECT * FROM part, lineitem
            WHERE (p_partkey = l_partkey AND p_size = 1) OR p_size = 2");
        assert!(b.joins.is_empty());
        assert_eq!(b.filters[0].tables, vec![0, 1]);
    }

    #[test]
    fn sub_selects_become_nests_and_subqueries() {
        // Q20: an IN inside an IN joins the same semi-join nest; the correlated scalar
        // sub-select correlates by its two equalities.
        let q20 = read(
            &costlab_workload::dbt3::queries::query(20, 1.0).unwrap().sql,
            Dialect::Mysql,
        )
        .unwrap();
        assert_eq!(q20.nests.len(), 1);
        assert_eq!(q20.nests[0].tables, vec![2, 3]);
        assert_eq!(q20.nests[0].origin, NestOrigin::In);
        assert_eq!(q20.subqueries.len(), 1);
        assert_eq!(q20.subqueries[0].correlation.len(), 2);
        assert_eq!(q20.subqueries[0].filter, Some(1));
        // Q21: EXISTS and NOT EXISTS over the same table, aliased.
        let q21 = read(
            &costlab_workload::dbt3::queries::query(21, 1.0).unwrap().sql,
            Dialect::Mysql,
        )
        .unwrap();
        let kinds: Vec<NestKind> = q21.nests.iter().map(|n| n.kind).collect();
        assert_eq!(kinds, vec![NestKind::Semi, NestKind::Anti]);
        assert_eq!(q21.tables[4].alias, "l2");
        // Q18: an IN over a grouped sub-select is a subquery of its own.
        let q18 = read(
            &costlab_workload::dbt3::queries::query(18, 1.0).unwrap().sql,
            Dialect::Mysql,
        )
        .unwrap();
        assert_eq!(q18.subqueries[0].kind, SubqueryKind::InGrouped);
        assert_eq!(q18.filters[0].kind, FilterKind::InSubquery);
        // Q15: the view is a derived table, in the query and in its sub-select.
        let q15 = read(
            &costlab_workload::dbt3::queries::query(15, 1.0).unwrap().sql,
            Dialect::Mysql,
        )
        .unwrap();
        let Source::Derived { columns, block } = &q15.tables[1].source else {
            panic!("{:?}", q15.tables[1])
        };
        assert_eq!(
            columns,
            &vec![Name::from("supplier_no"), Name::from("total_revenue")]
        );
        assert_eq!(block.group_by.len(), 1);
        // A derived table without grouping is merged (Q7's shipping).
        let q7 = read(
            &costlab_workload::dbt3::queries::query(7, 1.0).unwrap().sql,
            Dialect::Mysql,
        )
        .unwrap();
        assert_eq!(q7.tables.len(), 6);
        assert!(q7.order_by_expression);
        assert_eq!(q7.group_by.len(), 3);
    }

    #[test]
    fn a_left_join_orders_its_nullable_side_after_the_preserved() {
        let b = pg("SELECT c_custkey, count(o_orderkey) FROM customer
            LEFT JOIN orders ON c_custkey = o_custkey AND o_orderstatus = 'F'
            GROUP BY c_custkey");
        assert_eq!(b.tables[1].outer_join_after, vec![0]);
        assert_eq!(b.tables[1].preds.len(), 1);
        assert_eq!(b.joins.len(), 1);
        let (msg, _) = refused(
            "SELECT * FROM customer LEFT JOIN orders ON c_custkey = o_custkey AND c_acctbal > 0",
        );
        assert!(msg.contains("preserved side"), "{msg}");
    }

    #[test]
    fn what_the_models_cannot_plan_is_refused_by_name_and_position() {
        let (msg, at) = refused("SELECT l_orderkey, sum(l_quantity) OVER () FROM lineitem");
        assert_eq!(msg, "window functions are not modelled");
        assert!(at.starts_with("sum(l_quantity"), "{at}");
        let (msg, at) = refused("SELECT * FROM lineitem\n  JOIN nosuch ON l_orderkey = 1");
        assert_eq!(msg, "unknown table `nosuch`");
        assert_eq!(at, "nosuch");
        match read(
            "SELECT *\nFROM lineitem\nWHERE l_nosuch = 1",
            Dialect::Postgres,
        ) {
            Err(Error::Sql {
                msg, line, column, ..
            }) => {
                assert_eq!(msg, "unknown column `l_nosuch`");
                assert_eq!((line, column), (3, 7));
            }
            other => panic!("{other:?}"),
        }
        for (sql, what) in [
            ("SELECT * FROM part UNION SELECT * FROM part", "UNION"),
            ("SELECT DISTINCT p_size FROM part", "SELECT DISTINCT"),
            ("SELECT * FROM part RIGHT JOIN partsupp ON p_partkey = ps_partkey", "this kind of join"),
            (
                "SELECT * FROM part WHERE p_size > (SELECT max(ps_availqty) FROM partsupp WHERE ps_partkey < p_partkey)",
                "correlated",
            ),
            ("SELECT * FROM part, partsupp p2, partsupp WHERE p_size = 1 OR EXISTS (SELECT 1 FROM nation)", "under OR"),
            ("SELECT * FROM part LIMIT 5 OFFSET 2", "OFFSET"),
            ("SELECT * FROM part, part", "named twice"),
            ("SELECT n_name FROM nation, region WHERE n_regionkey = r_regionkey AND n_nationkey = 1 GROUP BY ROLLUP (n_name)", "ROLLUP"),
        ] {
            let (msg, _) = refused(sql);
            assert!(msg.contains(what), "{sql}: {msg}");
        }
        // A syntax error keeps the parser's words and points where it stopped.
        match read("SELECT * FROM lineitem WHERE", Dialect::Postgres) {
            Err(Error::Sql { msg, start, .. }) => {
                assert!(msg.contains("Expected"), "{msg}");
                assert_eq!(start, "SELECT * FROM lineitem WHERE".len());
            }
            other => panic!("{other:?}"),
        }
        match read(
            "SELECT * FROM lineitem WHERE l_shipmode = 'MAIL",
            Dialect::Mysql,
        ) {
            Err(Error::Sql { line, column, .. }) => assert_eq!((line, column), (1, 43)),
            other => panic!("{other:?}"),
        }
        // An impossible date is the engines' error, at the literal.
        let (msg, _) = refused("SELECT * FROM lineitem WHERE l_shipdate < '1995-02-30'");
        assert!(msg.contains("1995-02-30"), "{msg}");
    }

    /// Nothing panics on generated text: token soup from SQL's words and the DBT3 names,
    /// and the 22 queries with characters cut out or put in.
    #[test]
    fn no_text_panics_the_front_end() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let t = tables();
        let words: Vec<String> = [
            "SELECT",
            "FROM",
            "WHERE",
            "AND",
            "OR",
            "NOT",
            "IN",
            "EXISTS",
            "(",
            ")",
            ",",
            "=",
            "<",
            ">=",
            "<>",
            "+",
            "-",
            "*",
            "/",
            "BETWEEN",
            "LIKE",
            "IS",
            "NULL",
            "GROUP BY",
            "ORDER BY",
            "HAVING",
            "LIMIT",
            "JOIN",
            "LEFT JOIN",
            "ON",
            "USING",
            "AS",
            "UNION",
            "count(*)",
            "sum(",
            "date",
            "interval",
            "'1995-01-01'",
            "'3 month'",
            "90",
            "0.5",
            "DAY",
            "MONTH",
            "CASE WHEN",
            "THEN",
            "ELSE",
            "END",
            "DISTINCT",
            "l1",
            "l1.",
            "CREATE VIEW v AS",
            ";",
            "WITH w AS",
            "DATE_ADD(",
            "INTERVAL",
            "EXTRACT(YEAR FROM",
            "SUBSTR(",
            "FOR",
            "OVER ()",
            "-1e400",
            "'2020-02-30'",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain(t.iter().map(|x| x.name.clone()))
        .chain(
            t.iter()
                .flat_map(|x| x.columns.iter().map(|c| c.name.clone())),
        )
        .collect();
        let texts: Vec<&str> = costlab_workload::dbt3::sql::SQL
            .iter()
            .map(|q| q.2)
            .collect();
        let mut runner = TestRunner::new(Config::with_cases(5_000));
        runner
            .run(
                &(
                    proptest::collection::vec(0..words.len(), 1..40),
                    any::<bool>(),
                ),
                |(picks, mysql)| {
                    let sql: Vec<&str> = picks.iter().map(|&i| words[i].as_str()).collect();
                    let d = if mysql {
                        Dialect::Mysql
                    } else {
                        Dialect::Postgres
                    };
                    let _ = read_query(&sql.join(" "), d, &t);
                    Ok(())
                },
            )
            .unwrap();
        let mut runner = TestRunner::new(Config::with_cases(5_000));
        runner
            .run(
                &(0..texts.len(), 0usize..2000, 0usize..6, 0..words.len()),
                |(q, at, cut, word)| {
                    let text = texts[q];
                    let mut at = at.min(text.len());
                    while !text.is_char_boundary(at) {
                        at -= 1;
                    }
                    let mut end = (at + cut).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    let mutated = format!("{}{}{}", &text[..at], words[word], &text[end..]);
                    let _ = read_query(&mutated, Dialect::Mysql, &t);
                    Ok(())
                },
            )
            .unwrap();
    }
}
