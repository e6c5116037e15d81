//! What the executor really does, beside what the planner estimates: a relation set's
//! true rows (the simulation times the tree on them, assumption 19), the index pages a
//! probe reads, the schema's function calls a scan's filters make.

use costlab_model::plan::{AccessPattern, PageReads};

use super::costs::JKind;
use super::model::{Node, TrueRows};
use super::pathnodes::*;
use crate::pathnodes::Rel;
use smallvec::SmallVec;
use std::rc::Rc;

/// Page reads for the index part of a probe: a descent from the root to the first leaf
/// (`levels` pages, random), then the leaves after it in key order (sequential). `leaves`
/// is the cost's index pages per scan, which count the first leaf too: the descent reads
/// it, so the walk adds one fewer (EXPLAIN BUFFERS of a one-row probe on a three-level
/// btree: 3 hits per loop, not 4).
pub(crate) fn index_reads(
    name: &costlab_model::plan::Name,
    pages: f64,
    levels: f64,
    leaves: f64,
) -> Vec<PageReads> {
    let descents = levels;
    let leaf = (leaves - 1.0).max(0.0);
    vec![
        PageReads {
            object: name.clone(),
            object_pages: pages,
            page_bytes: 8192.0,
            pattern: AccessPattern::Random,
            requests: descents,
            distinct: descents.min(pages.max(1.0)),
            span_pages: None,
        },
        PageReads {
            object: name.clone(),
            object_pages: pages,
            page_bytes: 8192.0,
            pattern: AccessPattern::Sequential,
            requests: leaf,
            distinct: leaf.min(pages.max(1.0)),
            span_pages: None,
        },
    ]
}

impl Block<'_> {
    /// The rows the join of `relids` really returns, from the workload's true
    /// selectivities (the MySQL planner's `true_rows` does the same for its plans):
    /// each relation's true rows, one division per equivalence class member but the
    /// one with the fewest distinct values (a foreign key meets its key), the true
    /// selectivities of the conditions between them, and for a semi or anti join whose
    /// inner side is all there, the outer rows with (without) a match.
    pub fn true_rows(&self, relids: u64) -> f64 {
        self.true_rows_as(relids, true)
    }

    /// `true_rows` with the semi, anti and outer joins applied (`specials`) or every
    /// join taken as an inner join: a parameterized scan of a semi join's inner side
    /// fetches all of its matches per outer row.
    pub fn true_rows_as(&self, relids: u64, specials: bool) -> f64 {
        let mut hidden = 0u64;
        let mut factor = 1.0;
        let mut left: Option<u64> = None;
        for sp in self.specials.iter().filter(|_| specials) {
            let done = relids & sp.rhs == sp.rhs && relids & !sp.rhs != 0;
            if !done {
                continue;
            }
            match sp.kind {
                JKind::Semi => {
                    hidden |= sp.rhs;
                    factor *= sp.true_match;
                }
                JKind::Anti => {
                    hidden |= sp.rhs;
                    factor *= 1.0 - sp.true_match;
                }
                JKind::Left => left = Some(left.unwrap_or(0) | sp.rhs),
                JKind::Inner => {}
            }
        }
        let counted = relids & !hidden;
        let mut rows = factor;
        for (r, br) in self.rels.iter().enumerate() {
            if counted & bit(r) != 0 {
                rows *= br.true_rows;
            }
        }
        for (e, ec) in self.ecs.iter().enumerate() {
            let mut nds: SmallVec<[(usize, f64); 4]> = SmallVec::new();
            for (i, m) in ec.iter().enumerate() {
                if counted & bit(m.rel) == 0 {
                    continue;
                }
                let nd = match &self.rels[m.rel].kind {
                    // A sub-select's join column is its grouping key: one row per value.
                    RelKind::Sub { .. } => self.rels[m.rel].true_rows,
                    RelKind::Table { .. } => match self.ec_buckets.get(e) {
                        Some(buckets) => buckets[i].nd,
                        None => self.stats(m).nd,
                    },
                };
                match nds.iter_mut().find(|(r, _)| *r == m.rel) {
                    Some(x) => x.1 = x.1.min(nd),
                    None => nds.push((m.rel, nd)),
                }
            }
            if nds.len() < 2 {
                continue;
            }
            nds.sort_by(|a, b| b.1.total_cmp(&a.1));
            for (_, nd) in &nds[..nds.len() - 1] {
                rows /= nd.max(1.0);
            }
        }
        for jf in &self.jfilters {
            if jf.rels.count_ones() >= 2 && jf.rels & counted == jf.rels {
                rows *= jf.true_sel;
            }
        }
        if let Some(rhs) = left {
            // Outer rows without a match come out once, null-extended.
            rows = rows.max(self.true_rows(relids & !rhs));
        }
        rows
    }
}

/// The schema's function calls a scan's filters make, given the rows the scan returns:
/// the executor evaluates a scan's quals cheapest first (order_qual_clauses sorts them by
/// cost, stably), each on the rows the ones before it let through, so a filter is reached
/// by the returned rows over the selectivities of itself and the filters after it. (An
/// index condition comes first and is cheap; the filters that call the schema's
/// functions are never index conditions here.)
pub(crate) fn scan_function_calls(filters: &[SingleFilter], rows_out: f64) -> f64 {
    if filters.iter().all(|f| f.calls == 0.0) {
        return 0.0;
    }
    let mut order: Vec<&SingleFilter> = filters.iter().collect();
    order.sort_by(|a, b| a.ops.per_tuple.total_cmp(&b.ops.per_tuple));
    let mut calls = 0.0;
    for (k, f) in order.iter().enumerate() {
        if f.calls > 0.0 {
            let after: f64 = order[k..].iter().map(|g| g.sel).product();
            calls += f.calls * rows_out / after.max(1e-12);
        }
    }
    calls
}

/// `node`, an index scan of relation `r` by its index `i`, with its rows marked as coming
/// in the order of the index's first key (`TrueRows::order`): a btree scan returns them so.
pub(crate) fn in_index_order(node: Rc<Node>, b: &Block, r: usize, rel: &Rel, i: usize) -> Rc<Node> {
    let Some(&c) = rel.indexes[i].keys.first() else {
        return node;
    };
    let order = col_order(b, r, &rel.cols[c].name);
    if order == 0 {
        return node;
    }
    let t = match &*node {
        Node::Op { true_rows, .. } => TrueRows {
            order,
            ..*true_rows
        },
        Node::Repeated { .. } => return node,
    };
    Node::with_true_rows(node, t)
}

/// The bit of the equivalence class column `col` of relation `r` belongs to (0: none).
pub(crate) fn col_order(b: &Block, r: usize, col: &str) -> u64 {
    b.ec_of
        .iter()
        .find(|(k, _)| k.rel == r && k.col.eq_ignore_ascii_case(col))
        .map_or(0, |(_, &ec)| ec_bit(ec))
}

/// The equivalence classes whose values relation `r`'s heap stores in ascending order
/// (a column correlation above 0.5: tpchgen writes orders and lineitem by order key).
pub(crate) fn heap_order(b: &Block, r: usize, rel: &Rel) -> u64 {
    let mut m = 0;
    for (key, &ec) in &b.ec_of {
        if key.rel != r {
            continue;
        }
        if let Some(c) = rel
            .cols
            .iter()
            .find(|c| c.has_stats && c.name.eq_ignore_ascii_case(&key.col))
        {
            if c.stats.correlation > 0.5 {
                m |= ec_bit(ec);
            }
        }
    }
    m
}
