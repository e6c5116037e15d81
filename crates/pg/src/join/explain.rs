//! EXPLAIN detail lines the join planner builds beside its nodes: join and merge
//! conditions with their sub-plans, AND lists, kNN Order By lines.

use std::rc::Rc;

use super::model::Node;
use super::pathnodes::*;

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
