//! EXPLAIN detail lines the join planner builds beside its nodes: join and merge
//! conditions with their sub-plans, AND lists, kNN Order By lines.

use std::rc::Rc;

use super::deparse;
use super::model::Node;
use super::pathnodes::*;
use costlab_model::block::QueryBlock;
use costlab_model::expr::Expr as T;

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

/// EXPLAIN's texts of a block's grouping keys, sort keys and HAVING condition, from the
/// block's typed items: an output name stands for its expression (through the select
/// list's and derived tables' aliases), printed as the server prints it (see
/// [`deparse`]).
pub(crate) struct KeyTexts<'k, 'a> {
    pub(crate) pl: &'k Planner<'a>,
    pub(crate) b: &'k Block<'a>,
    pub(crate) block: &'k QueryBlock,
    /// Columns qualified: the plan reads more than one relation (EXPLAIN's useprefix).
    pub(crate) prefix: bool,
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
        block: &'k QueryBlock,
        full_group: &'k [ColKey],
    ) -> Self {
        let single = !b.nested
            && block.tables.len() == 1
            && block.subqueries.is_empty()
            && block.nests.is_empty();
        KeyTexts {
            pl,
            b,
            block,
            prefix: !single,
            full_group,
        }
    }

    /// The block's GROUP BY items, one per grouping column (none for a block grouped
    /// again above: Q13's outer GROUP BY is the second level's), or its ORDER BY items.
    fn items(&self, group: bool) -> Option<Vec<(&'k T, bool)>> {
        let block = self.block;
        if group {
            (block.regroup.is_none() && block.group_items.len() == self.full_group.len())
                .then(|| block.group_items.iter().map(|g| (g, false)).collect())
        } else {
            let order = match &block.regroup {
                Some(r) => &r.order_items,
                None => &block.order_items,
            };
            (!order.is_empty()).then(|| order.iter().map(|(o, d)| (o, *d)).collect())
        }
    }

    /// The expression an output name stands for: an `expr AS name` item of the select
    /// list (the outer level's first where the block is grouped again), an ordinal's
    /// item, a merged derived table's column's expression; else the item itself.
    fn alias_expr(&self, e: &'k T) -> &'k T {
        let block = self.block;
        let lists = block
            .regroup
            .iter()
            .map(|r| &r.select)
            .chain(std::iter::once(&block.select));
        match e {
            T::Derived { expr, .. } => self.alias_expr(expr),
            T::Column(c) if c.table.is_none() && c.qualifier.is_none() => {
                for list in lists {
                    if let Some(i) = list.iter().find(|i| {
                        i.alias
                            .as_ref()
                            .is_some_and(|a| a.eq_ignore_ascii_case(&c.name))
                    }) {
                        return self.alias_expr(&i.expr);
                    }
                }
                e
            }
            T::Number(_) => super::tlist::output_item(block, e),
            _ => e,
        }
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
    fn item_key(&self, item: &'k T) -> String {
        let e = self.alias_expr(item);
        deparse::typed_key_text(e, &|n| self.resolve(n)).unwrap_or_else(|| e.to_string())
    }

    /// A grouping column: the expression its GROUP BY item names, else the column;
    /// `directed` appends DESC where the ORDER BY sorts the same item descending.
    pub(crate) fn group_key(&self, g: &ColKey, directed: bool) -> String {
        let item = self
            .items(true)
            .zip(self.full_group.iter().position(|x| x == g))
            .and_then(|(items, i)| items.get(i).map(|(e, _)| *e));
        let mut text = match item {
            Some(item) if !matches!(self.alias_expr(item), T::Column(_)) => self.item_key(item),
            _ => self.column(g),
        };
        if directed {
            let desc = item.is_some_and(|item| {
                self.items(false)
                    .into_iter()
                    .flatten()
                    .any(|(o, desc)| desc && o == item)
            });
            if desc {
                text.push_str(" DESC");
            }
        }
        text
    }

    /// The block's ORDER BY as a Sort Key, if it has one.
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
        let Some(item) = self
            .block
            .regroup
            .as_ref()
            .and_then(|r| r.group_items.first())
        else {
            return String::new();
        };
        let e = self.alias_expr(item);
        deparse::typed_text(e, &|n| self.resolve(n), "", None).unwrap_or_else(|| e.to_string())
    }

    /// The HAVING condition, its sub-select as the InitPlan's Param.
    pub(crate) fn having(&self) -> String {
        let resolve = |n: &str| self.resolve(n);
        match (&self.b.having_text, &self.block.having) {
            (Some(h), _) => deparse::typed_text(&h.cond, &resolve, h.sub, h.sub_item.as_ref())
                .unwrap_or_else(|| h.cond.to_string()),
            (None, Some(h)) => {
                deparse::typed_text(h, &resolve, "", None).unwrap_or_else(|| h.to_string())
            }
            (None, None) => "(condition on an aggregate)".to_string(),
        }
    }
}
