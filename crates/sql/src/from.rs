//! FROM items: base tables, joins, and derived tables and views, merged into the block or
//! read as blocks of their own.

use sqlparser::ast::{self, Expr, GroupByExpr, SelectItem, SetExpr, Spanned, TableFactor};
use sqlparser::tokenizer::Span;

use costlab_model::block::{Source, TableRef};
use costlab_model::catalog::{ColumnType, Table};
use costlab_model::error::Result;
use costlab_model::plan::Name;

use crate::exprs::{conjuncts, has_aggregate, object_name};
use crate::reader::{Reader, Rel, RelKind, TableColumns, View};

impl<'a> Reader<'a> {
    pub(crate) fn table(&self, name: &str) -> Option<&'a Table> {
        self.tables
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name))
    }

    pub(crate) fn view(&self, name: &str) -> Option<&View<'a>> {
        self.views
            .iter()
            .rev()
            .find(|v| v.name.eq_ignore_ascii_case(name))
    }

    /// Adds a FROM item to the scope's block; `after`: the tables a LEFT JOIN's nullable
    /// side follows.
    pub(crate) fn add_from_item(
        &mut self,
        f: &'a TableFactor,
        scope: usize,
        after: &[usize],
    ) -> Result<()> {
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
    pub(crate) fn add_table(
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
    pub(crate) fn derived(
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

    pub(crate) fn has_aggregate_item(&self, item: &SelectItem) -> bool {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                has_aggregate(e)
            }
            _ => false,
        }
    }
}
