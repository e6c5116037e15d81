//! Blocks: a query (WITH, LIMIT) and a SELECT read into a block; its select list,
//! grouping, ordering and HAVING as the columns they use.

use sqlparser::ast::{
    self, Expr, GroupByExpr, JoinConstraint, JoinOperator, SelectItem, SetExpr, Spanned,
    TableFactor, Value as SqlValue,
};
use sqlparser::tokenizer::Span;

use costlab_model::block::{ColRef, JoinEdge, QueryBlock, Source, Subquery, SubqueryKind};
use costlab_model::error::Result;
use costlab_model::plan::Name;

use crate::conditions::cmp_op;
use crate::constants::Const;
use crate::exprs::{
    compared_subquery, conjuncts, has_aggregate, is_subquery, name_parts, object_name,
};
use crate::names::Resolved;
use crate::reader::{BlockB, Reader, RelKind, Scope, View};

impl<'a> Reader<'a> {
    /// Reads `q` as a block of its own; `parent` is the scope it is nested in (its outer
    /// references resolve there). Returns the block and its correlation equalities.
    pub(crate) fn read_block(
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
    pub(crate) fn finish_uses(&self, block: &mut QueryBlock) {
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

    pub(crate) fn read_query_into(
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

    pub(crate) fn new_scope(
        &mut self,
        block: usize,
        parent: Option<usize>,
        nest: Option<usize>,
    ) -> usize {
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
    pub(crate) fn read_select(
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
    pub(crate) fn second_level(&self, s: &'a ast::Select) -> Option<&'a ast::Query> {
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

    pub(crate) fn limit(&self, q: Option<&ast::Query>) -> Result<Option<f64>> {
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

    /// Walks a select-list or HAVING expression for the columns it uses; whether it holds an
    /// aggregate.
    pub(crate) fn walk(&mut self, e: &'a Expr, scope: usize) -> Result<bool> {
        let mut cols = Vec::new();
        self.columns_of(e, scope, &mut cols)?;
        let bi = self.scopes[scope].block;
        for c in cols.into_iter().filter(|c| c.block == bi) {
            self.output(bi, c.colref());
        }
        Ok(has_aggregate(e))
    }

    /// Notes a column the block's result or its grouping, ordering or HAVING reads.
    pub(crate) fn output(&mut self, bi: usize, c: ColRef) {
        let out = &mut self.blocks[bi].q.outputs;
        if !out.contains(&c) {
            out.push(c);
        }
    }

    /// HAVING: used columns; each scalar sub-select is a subquery of the block (its value
    /// compared with a group's aggregate, a filter the planners read from the text).
    pub(crate) fn having(&mut self, h: &'a Expr, scope: usize) -> Result<bool> {
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
    pub(crate) fn use_all(&mut self, scope: usize, alias: Option<&str>, span: Span) -> Result<()> {
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
    pub(crate) fn key_columns(
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
}
