//! EXPLAIN detail lines the join planner builds beside its nodes: join and merge
//! conditions with their sub-plans, AND lists, kNN Order By lines.

use std::rc::Rc;

use super::deparse;
use super::model::Node;
use super::pathnodes::*;
use super::sqlexpr;
use costlab_model::block::QueryBlock;

/// A kNN scan's `Order By: (key <-> '(x,y)'::point)` line, where EXPLAIN prints it:
/// after the index condition, before the filter.
pub(crate) fn order_by_line(n: &Rc<Node>, key: &str, point: &str) -> Rc<Node> {
    let Some(line) = text(|| format!("Order By: ({key} <-> {point})")) else {
        return n.clone();
    };
    Node::with_plan(n, |plan, _| {
        let at = plan
            .details
            .iter()
            .position(|d| !d.starts_with("Index Cond:"))
            .unwrap_or(plan.details.len());
        plan.details.insert(at, line);
    })
}

/// EXPLAIN's lines of a merge join whose merge clauses include `col = (SubPlan)` clauses
/// (`subs`): those in the Merge Cond, the other join filters in the Join Filter. The sort
/// keys above its inputs name the equality clauses' columns only.
pub(crate) fn merge_details_with_subplans<'e, 'b: 'e>(
    b: &Block,
    eqs: impl Iterator<Item = &'e EqClause<'b>> + Clone,
    fids: &[usize],
    subs: &[usize],
    label: Option<&str>,
) -> Vec<String> {
    let text_of = |keep: &dyn Fn(usize) -> bool| {
        and_text(
            &fids
                .iter()
                .filter(|&&f| keep(f))
                .map(|&f| b.jfilters[f].text.clone())
                .collect::<Vec<_>>(),
        )
    };
    let mut v: Vec<String> =
        text(|| clause_line("Merge Cond: ", b, eqs, &text_of(&|f| subs.contains(&f))))
            .into_iter()
            .collect();
    let rest = text(|| text_of(&|f| !subs.contains(&f))).unwrap_or_default();
    if !rest.is_empty() {
        v.extend(text(|| format!("Join Filter: {rest}")));
    }
    if let Some(l) = label {
        v.insert(0, l.to_string());
    }
    v
}

/// Conditions ANDed as EXPLAIN prints them: one as it is, several in parentheses.
pub(crate) fn and_text(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        _ => format!("({})", parts.join(" AND ")),
    }
}

/// `label` and the join clauses `eqs` then the condition `rest` (empty: none) ANDed as
/// [`and_text`] prints them, built in one buffer: kept join paths format these lines
/// by the thousand.
pub(crate) fn clause_line<'e, 'b: 'e>(
    label: &str,
    b: &Block,
    eqs: impl Iterator<Item = &'e EqClause<'b>> + Clone,
    rest: &str,
) -> String {
    use std::fmt::Write;
    let n = eqs.clone().count() + usize::from(!rest.is_empty());
    let mut out = String::with_capacity(label.len() + 40 * n);
    out.push_str(label);
    if n > 1 {
        out.push('(');
    }
    let mut first = true;
    for c in eqs {
        if !first {
            out.push_str(" AND ");
        }
        first = false;
        let _ = write!(
            out,
            "({}.{} = {}.{})",
            b.rels[c.outer.rel].alias, c.outer.col, b.rels[c.inner.rel].alias, c.inner.col
        );
    }
    if !rest.is_empty() {
        if !first {
            out.push_str(" AND ");
        }
        out.push_str(rest);
    }
    if n > 1 {
        out.push(')');
    }
    out
}

/// EXPLAIN's texts of a block's grouping keys, sort keys and HAVING condition, read from
/// the block's SQL: an output name stands for its expression (through the select list's
/// and derived tables' aliases), printed as the server prints it (see [`deparse`]).
pub(crate) struct KeyTexts<'k, 'a> {
    pub(crate) pl: &'k Planner<'a>,
    pub(crate) b: &'k Block<'a>,
    pub(crate) sql: &'k str,
    /// Columns qualified: the plan reads more than one relation (EXPLAIN's useprefix).
    pub(crate) prefix: bool,
    /// The GROUP BY items of the block's own SQL, one per grouping column, and its
    /// ORDER BY items: read from the text when a key's text is first asked for (only
    /// EXPLAIN's lines ask, and the text search cost 3 % of planning; see `items`).
    pub(crate) group_items: std::cell::OnceCell<Option<Vec<(String, bool)>>>,
    pub(crate) order_items: std::cell::OnceCell<Option<Vec<(String, bool)>>>,
    pub(crate) full_group: &'k [ColKey],
}

impl<'k, 'a> KeyTexts<'k, 'a> {
    /// The GROUP BY keys as EXPLAIN's Group Key line shows them, as the Sort under a
    /// sorted aggregation shows them, and the ORDER BY's Sort Key.
    pub(crate) fn key_lines(&self, b: &Block, group: &[ColKey]) -> (String, String, String) {
        let gtext = group
            .iter()
            .map(|g| self.group_key(g, false))
            .collect::<Vec<_>>()
            .join(", ");
        // The sort under a sorted aggregation follows the ORDER BY's directions.
        let gsort_text = group
            .iter()
            .map(|g| self.group_key(g, true))
            .collect::<Vec<_>>()
            .join(", ");
        let otext = self.order_by().unwrap_or_else(|| {
            b.order
                .iter()
                .map(|g| self.column(g))
                .collect::<Vec<_>>()
                .join(", ")
        });
        (gtext, gsort_text, otext)
    }

    pub(crate) fn new(
        pl: &'k Planner<'a>,
        b: &'k Block<'a>,
        block: &QueryBlock,
        sql: &'k str,
        full_group: &'k [ColKey],
    ) -> Self {
        let single = sql == pl.sql
            && block.tables.len() == 1
            && block.subqueries.is_empty()
            && block.nests.is_empty();
        KeyTexts {
            pl,
            b,
            sql,
            prefix: !single,
            group_items: std::cell::OnceCell::new(),
            order_items: std::cell::OnceCell::new(),
            full_group,
        }
    }

    /// The block's GROUP BY items (`group`) or ORDER BY items, as `group_items` says.
    pub(crate) fn items(&self, group: bool) -> Option<&Vec<(String, bool)>> {
        let sql = self.sql;
        if group {
            self.group_items.get_or_init(|| {
                // The outer GROUP BY of a query that groups a grouped sub-select (Q13) is
                // the second level's, not this block's.
                if sql.is_empty() || self.pl.db.memo.derived_grouped(sql) {
                    None
                } else {
                    sqlexpr::outer_items(sql, "GROUP BY")
                        .filter(|v| v.len() == self.full_group.len())
                }
            })
        } else {
            self.order_items.get_or_init(|| {
                (!sql.is_empty())
                    .then(|| sqlexpr::outer_items(sql, "ORDER BY"))
                    .flatten()
            })
        }
        .as_ref()
    }

    pub(crate) fn resolve(&self, name: &str) -> Option<(String, deparse::Ty)> {
        self.b.column_display(self.pl, name, self.prefix)
    }

    pub(crate) fn column(&self, g: &ColKey) -> String {
        if self.prefix {
            format!("{}.{}", self.b.rels[g.rel].alias, g.col)
        } else {
            g.col.to_string()
        }
    }

    /// An ORDER BY or GROUP BY item as a key.
    pub(crate) fn item_key(&self, item: &str) -> String {
        let e = sqlexpr::alias_expr(self.sql, item);
        deparse::key_text(&e, &|n| self.resolve(n)).unwrap_or(e)
    }

    /// A grouping column: the expression its GROUP BY item names, else the column;
    /// `directed` appends DESC where the ORDER BY sorts the same item descending.
    pub(crate) fn group_key(&self, g: &ColKey, directed: bool) -> String {
        let item = self
            .items(true)
            .zip(self.full_group.iter().position(|x| x == g))
            .map(|(items, i)| items[i].0.clone());
        let mut text = match &item {
            Some(item) if !deparse::is_column(&sqlexpr::alias_expr(self.sql, item)) => {
                self.item_key(item)
            }
            _ => self.column(g),
        };
        if directed {
            let desc = item.as_ref().is_some_and(|item| {
                self.items(false)
                    .into_iter()
                    .flatten()
                    .any(|(o, desc)| *desc && o.split_whitespace().eq(item.split_whitespace()))
            });
            if desc {
                text.push_str(" DESC");
            }
        }
        text
    }

    /// The block's ORDER BY as a Sort Key, if its SQL has one.
    pub(crate) fn order_by(&self) -> Option<String> {
        let items = self.items(false)?;
        Some(
            items
                .iter()
                .map(|(item, desc)| {
                    let t = self.item_key(item);
                    if *desc {
                        format!("{t} DESC")
                    } else {
                        t
                    }
                })
                .collect::<Vec<_>>()
                .join(", "),
        )
    }

    /// The key of the aggregation over a grouped sub-select (Q13's `count(o_orderkey)`):
    /// a Var of the sub-select's output, shown as the expression without parentheses.
    pub(crate) fn outer_group_key(&self) -> String {
        let item = sqlexpr::outer_items(self.sql, "GROUP BY")
            .and_then(|v| v.into_iter().next())
            .map(|(item, _)| item)
            .unwrap_or_default();
        let e = sqlexpr::alias_expr(self.sql, &item);
        deparse::expr_text(&e, &|n| self.resolve(n), "").unwrap_or(e)
    }

    /// The HAVING condition, its sub-select as the InitPlan's Param.
    pub(crate) fn having(&self) -> String {
        let (cond, sub) = match &self.b.having_text {
            Some((c, s)) => (Some(c.clone()), s.as_str()),
            None => (sqlexpr::having_clause(self.sql), ""),
        };
        match cond {
            Some(c) => deparse::expr_text(&c, &|n| self.resolve(n), sub).unwrap_or(c),
            None => "(condition on an aggregate)".to_string(),
        }
    }
}
