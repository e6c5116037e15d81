//! MySQL's text made PostgreSQL's (the DBT3 kit's queries run on a real PostgreSQL): the
//! statements parsed in MySQL's dialect, their expressions changed in the tree, each
//! statement printed again.

use sqlparser::ast::{
    self, Expr, GroupByExpr, JoinConstraint, JoinOperator, LimitClause, ObjectType, OrderByKind,
    SelectItem, SetExpr, Spanned, Statement, TableFactor, TableWithJoins, Value as SqlValue,
};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Span;

use costlab_model::error::{Error, Result};

use crate::constants::Const;
use crate::errors::parse_error;
use crate::exprs::{each_sub_expr_mut, object_name};
use crate::reader::Reader;

/// One query as PostgreSQL runs it: statements to run first (Q15's view), the statement
/// to explain, and what was changed from the MySQL text.
#[derive(Clone, Debug, PartialEq)]
pub struct PgQuery {
    pub setup: Vec<String>,
    pub select: String,
    pub changes: Vec<String>,
}

/// `mysql_text` (optionally `CREATE VIEW`s, one SELECT, `DROP VIEW`s) made PostgreSQL's:
/// * `DATE_ADD` / `DATE_SUB` (and `ADDDATE` / `SUBDATE`) of a constant date and a constant
///   interval is the date it comes to, as a literal (`'1996-03-31'`: what the model's
///   query block holds; PostgreSQL has neither function);
/// * `SUBSTR(x FROM a FOR b)` is `SUBSTRING(x FROM a FOR b)` (PostgreSQL's SUBSTR takes no
///   FROM / FOR);
/// * a `CREATE VIEW` is `setup` (the caller runs it in a transaction it rolls back, or
///   keeps it), a `DROP VIEW` goes, the SELECT is `select`.
///
/// Each statement is printed as sqlparser prints it (its spacing and case, no semicolon).
/// Errors name what cannot be converted, with its position: a date function that is not
/// constant, an expression or clause the walk does not know, two SELECTs, none.
pub fn to_postgres(mysql_text: &str) -> Result<PgQuery> {
    let mut statements = Parser::parse_sql(&MySqlDialect {}, mysql_text)
        .map_err(|e| parse_error(mysql_text, &e.to_string()))?;
    let reader = Reader {
        text: mysql_text,
        tables: &[],
        views: Vec::new(),
        scopes: Vec::new(),
        blocks: Vec::new(),
    };
    let mut c = Converter {
        r: &reader,
        changes: Vec::new(),
        substrings: 0,
    };
    let mut setup = Vec::new();
    let mut select = None;
    let mut dropped = 0;
    for st in &mut statements {
        match st {
            Statement::CreateView(v) => {
                c.query(&mut v.query)?;
                setup.push(st.to_string());
            }
            Statement::Query(q) if select.is_none() => {
                c.query(q)?;
                select = Some(st.to_string());
            }
            Statement::Query(_) => {
                return Err(reader.err(st.span(), "two SELECTs: only one is converted"))
            }
            Statement::Drop {
                object_type: ObjectType::View,
                ..
            } => dropped += 1,
            other => {
                return Err(reader.err(
                    other.span(),
                    "only CREATE VIEW, one SELECT and DROP VIEW are converted",
                ))
            }
        }
    }
    let Some(select) = select else {
        return Err(reader.err(Span::empty(), "no SELECT statement"));
    };
    let mut changes = c.changes;
    if c.substrings > 0 {
        changes.push(format!(
            "SUBSTR(… FROM … FOR …) → SUBSTRING (×{})",
            c.substrings
        ));
    }
    for _ in 0..dropped {
        changes.push("view created in a rolled-back transaction".into());
    }
    Ok(PgQuery {
        setup,
        select,
        changes,
    })
}

/// The walk over the statements' tree: the reader folds the constants and places the
/// errors.
struct Converter<'r, 'a> {
    r: &'r Reader<'a>,
    changes: Vec<String>,
    /// SUBSTRs made SUBSTRINGs.
    substrings: usize,
}

impl Converter<'_, '_> {
    fn not_converted(&self, span: Span, what: &str) -> Error {
        self.r
            .err(span, format!("{what} is not converted to PostgreSQL"))
    }

    fn query(&mut self, q: &mut ast::Query) -> Result<()> {
        if let Some(w) = &mut q.with {
            for cte in &mut w.cte_tables {
                self.query(&mut cte.query)?;
            }
        }
        self.set_expr(&mut q.body)?;
        if let Some(o) = &mut q.order_by {
            if let OrderByKind::Expressions(items) = &mut o.kind {
                for i in items {
                    self.expr(&mut i.expr)?;
                }
            }
        }
        match &mut q.limit_clause {
            None => {}
            Some(LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            }) => {
                if let Some(l) = limit {
                    self.expr(l)?;
                }
                if let Some(o) = offset {
                    self.expr(&mut o.value)?;
                }
                for e in limit_by {
                    self.expr(e)?;
                }
            }
            Some(LimitClause::OffsetCommaLimit { offset, limit }) => {
                let span = offset.span().union(&limit.span());
                return Err(self.not_converted(span, "MySQL's `LIMIT offset, count`"));
            }
        }
        if let Some(f) = &q.fetch {
            if let Some(e) = &f.quantity {
                return Err(self.not_converted(e.span(), "FETCH"));
            }
        }
        Ok(())
    }

    fn set_expr(&mut self, s: &mut SetExpr) -> Result<()> {
        match s {
            SetExpr::Select(sel) => self.select(sel),
            SetExpr::Query(q) => self.query(q),
            SetExpr::SetOperation { left, right, .. } => {
                self.set_expr(left)?;
                self.set_expr(right)
            }
            SetExpr::Values(v) => {
                for row in &mut v.rows {
                    for e in &mut row.content {
                        self.expr(e)?;
                    }
                }
                Ok(())
            }
            other => Err(self.not_converted(other.span(), "this statement")),
        }
    }

    fn select(&mut self, s: &mut ast::Select) -> Result<()> {
        // Clauses MySQL's dialect has no use for, whose expressions the walk does not visit.
        let unvisited = [
            (s.prewhere.as_ref().map(Spanned::span), "PREWHERE"),
            (s.qualify.as_ref().map(Spanned::span), "QUALIFY"),
            (s.cluster_by.first().map(Spanned::span), "CLUSTER BY"),
            (s.distribute_by.first().map(Spanned::span), "DISTRIBUTE BY"),
            (s.sort_by.first().map(Spanned::span), "SORT BY"),
        ];
        if let Some((span, what)) = unvisited.into_iter().find_map(|(s, w)| Some((s?, w))) {
            return Err(self.not_converted(span, what));
        }
        if !s.lateral_views.is_empty() || !s.connect_by.is_empty() || !s.named_window.is_empty() {
            return Err(self.not_converted(s.span(), "LATERAL VIEW, CONNECT BY or WINDOW"));
        }
        for item in &mut s.projection {
            match item {
                SelectItem::UnnamedExpr(e)
                | SelectItem::ExprWithAlias { expr: e, .. }
                | SelectItem::ExprWithAliases { expr: e, .. } => self.expr(e)?,
                SelectItem::QualifiedWildcard(..) | SelectItem::Wildcard(_) => {}
            }
        }
        for t in &mut s.from {
            self.from(t)?;
        }
        if let Some(e) = &mut s.selection {
            self.expr(e)?;
        }
        if let GroupByExpr::Expressions(keys, _) = &mut s.group_by {
            for e in keys {
                self.expr(e)?;
            }
        }
        if let Some(e) = &mut s.having {
            self.expr(e)?;
        }
        Ok(())
    }

    fn from(&mut self, t: &mut TableWithJoins) -> Result<()> {
        self.table_factor(&mut t.relation)?;
        for j in &mut t.joins {
            self.table_factor(&mut j.relation)?;
            let constraint = match &mut j.join_operator {
                JoinOperator::Join(c)
                | JoinOperator::Inner(c)
                | JoinOperator::Left(c)
                | JoinOperator::LeftOuter(c)
                | JoinOperator::Right(c)
                | JoinOperator::RightOuter(c)
                | JoinOperator::FullOuter(c)
                | JoinOperator::CrossJoin(c) => c,
                _ => {
                    let what = format!("the join `{j}`");
                    return Err(self.not_converted(j.relation.span(), &what));
                }
            };
            if let JoinConstraint::On(e) = constraint {
                self.expr(e)?;
            }
        }
        Ok(())
    }

    fn table_factor(&mut self, f: &mut TableFactor) -> Result<()> {
        match f {
            TableFactor::Table { .. } => Ok(()),
            TableFactor::Derived { subquery, .. } => self.query(subquery),
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => self.from(table_with_joins),
            other => {
                let what = format!("the FROM item `{other}`");
                Err(self.not_converted(other.span(), &what))
            }
        }
    }

    /// Converts the expressions inside `e` (its sub-selects too), then `e`.
    fn expr(&mut self, e: &mut Expr) -> Result<()> {
        match e {
            Expr::Subquery(q) => self.query(q)?,
            Expr::Exists { subquery, .. } => self.query(subquery)?,
            Expr::In {
                expr,
                target: ast::InTarget::Subquery(q),
                ..
            } => {
                self.expr(expr)?;
                self.query(q)?;
            }
            _ => {
                // The first error in order, as a walk that stops there finds it.
                let mut res = Ok(());
                let known = each_sub_expr_mut(e, &mut |x| {
                    if res.is_ok() {
                        res = self.expr(x);
                    }
                });
                if !known {
                    let what = format!("the expression `{e}`");
                    return Err(self.not_converted(e.span(), &what));
                }
                res?;
            }
        }
        match e {
            Expr::Function(f) if is_date_function(&f.name) => {
                let Some(Const::Date(days)) = self.r.constant(e)? else {
                    let msg = format!("`{e}` is not a constant date: it cannot be converted");
                    return Err(self.r.err(e.span(), msg));
                };
                let date = costlab_model::date::format(days);
                self.changes.push(format!("{e} → '{date}'"));
                *e = Expr::value(SqlValue::SingleQuotedString(date));
            }
            Expr::Substring { shorthand, .. } if *shorthand => {
                *shorthand = false;
                self.substrings += 1;
            }
            _ => {}
        }
        Ok(())
    }
}

/// MySQL's date arithmetic functions, which PostgreSQL does not have.
fn is_date_function(name: &ast::ObjectName) -> bool {
    let n = object_name(name);
    ["date_add", "date_sub", "adddate", "subdate"]
        .iter()
        .any(|f| n.eq_ignore_ascii_case(f))
}
