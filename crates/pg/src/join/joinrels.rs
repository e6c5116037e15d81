//! The join search (allpaths.c's standard_join_search, joinrels.c's
//! join_search_one_level, make_join_rel and join_is_legal): join relations level by level,
//! their row estimates (costsize.c's set_joinrel_size_estimates) and the join clauses
//! between two relation sets.

use smallvec::{smallvec, SmallVec};

use crate::pathnodes::clamp_row_est;
use costlab_model::error::{Error, Result};
use costlab_model::knobs::EngineVersion;
use costlab_model::plan::Work;

use super::costs::JKind;
use super::model::{add_path, Node};
use super::pathnodes::*;

/// truncate_useless_pathkeys: a join path keeps the longest prefix of its order that
/// the query's grouping/ordering wants or that a merge join with a relation not yet
/// joined can use.
pub(crate) fn useful_keys<'k>(
    b: &Block,
    s: &Search,
    relids: u64,
    keys: &'k [usize],
) -> &'k [usize] {
    let n_order = keys
        .iter()
        .zip(s.query_keys.iter())
        .take_while(|(a, q)| a == q)
        .count();
    let n_merge = keys
        .iter()
        .take_while(|&&k| k < b.ecs.len() && s.ec_rels[k] & !relids != 0)
        .count();
    &keys[..n_order.max(n_merge)]
}

impl Search {
    /// `group`: the grouping keys after remove_useless_groupby_columns.
    pub(crate) fn new(b: &Block, group: &[ColKey]) -> Search {
        let n = b.rels.len();
        let ec_rels: Vec<u64> = b
            .ecs
            .iter()
            .map(|ec| ec.iter().fold(0, |a, m| a | bit(m.rel)))
            .collect();
        let ec_neighbours = (0..n)
            .map(|r| {
                ec_rels
                    .iter()
                    .filter(|&&er| er & bit(r) != 0)
                    .fold(0, |a, &er| a | er)
                    & !bit(r)
            })
            .collect();
        let mut ec_sel = Vec::with_capacity(b.ecs.len());
        let mut ec_outer_join_edge = Vec::with_capacity(b.ecs.len());
        for ec in &b.ecs {
            let m = ec.len();
            let mut sel = vec![f64::NAN; m * m];
            let mut edge = vec![false; m * m];
            for i in 0..m {
                for j in 0..m {
                    if ec[i].rel != ec[j].rel {
                        sel[i * m + j] = b.eqjoinsel_inner(&ec[i], &ec[j]);
                    }
                    let (ri, rj) = (bit(ec[i].rel), bit(ec[j].rel));
                    let outer_join = b.specials.iter().any(|sp| {
                        matches!(sp.kind, JKind::Anti | JKind::Left)
                            && ((sp.rhs & ri != 0) != (sp.rhs & rj != 0))
                    });
                    edge[i * m + j] = outer_join
                        && b.edges.iter().any(|(x, y)| {
                            (*x == ec[i] && *y == ec[j]) || (*x == ec[j] && *y == ec[i])
                        });
                }
            }
            ec_sel.push(sel);
            ec_outer_join_edge.push(edge);
        }
        let query_keys = if !group.is_empty() {
            group
        } else {
            &b.order[..]
        }
        .iter()
        .map(|g| pk_of(b, g))
        .collect();
        Search {
            rels: RelidsMap::default(),
            levels: vec![Vec::new(); n + 1],
            ec_rels,
            ec_neighbours,
            scansel: b
                .ecs
                .iter()
                .map(|ec| vec![None; ec.len() * ec.len()])
                .collect(),
            ec_sel,
            ec_outer_join_edge,
            query_keys,
            param_paths: RelidsMap::default(),
            memo_groups: Default::default(),
            inner_unique: Default::default(),
            pending: Node::leaf(costlab_model::plan::PlanNode::leaf(
                "(not built)",
                costlab_model::plan::Cost::new(0.0, 0.0),
                0.0,
                Work::default(),
            )),
        }
    }

    /// Is there a join clause (class or filter) or a special-join link between the sets?
    pub(crate) fn linked(&self, b: &Block, r1: u64, r2: u64) -> bool {
        self.ec_rels.iter().any(|&er| er & r1 != 0 && er & r2 != 0)
            || b.jfilters
                .iter()
                .any(|f| f.rels & r1 != 0 && f.rels & r2 != 0 && f.rels & !(r1 | r2) == 0)
    }
}

impl<'a> Planner<'a> {
    /// `group`: the block's GROUP BY keys as [`super::upper::grouping_keys`] reduces them.
    pub(crate) fn join_search(&self, b: &Block<'a>, group: &[ColKey]) -> Result<JoinRel> {
        let n = b.rels.len();
        if n == 0 {
            return Err(Error::Unsupported("a block without relations".into()));
        }
        let mut s = Search::new(b, group);
        for (i, br) in b.rels.iter().enumerate() {
            s.rels.insert(
                bit(i),
                JoinRel {
                    rows: br.rows,
                    true_rows: br.true_rows,
                    width: br.width,
                    paths: br.paths.clone(),
                    partial: br.partial.clone(),
                    consider_parallel: b.consider_parallel(bit(i)),
                },
            );
            s.levels[1].push(bit(i));
            // set_rel_pathlist: a base relation's Gathers, unless it is the only one
            // (the top relation gathers after its target is applied).
            if n > 1 {
                self.gather_rel(b, &mut s, bit(i));
            }
        }
        for k in 2..=n {
            let mut pairs: Vec<(u64, u64)> = Vec::new();
            for &r1 in &s.levels[k - 1] {
                let has_clauses = (0..n).any(|j| r1 & bit(j) == 0 && s.linked(b, r1, bit(j)));
                for j in 0..n {
                    let r2 = bit(j);
                    if r1 & r2 != 0 {
                        continue;
                    }
                    if has_clauses && !s.linked(b, r1, r2) {
                        continue;
                    }
                    pairs.push((r1, r2));
                }
            }
            for i in 2..=k / 2 {
                for &r1 in &s.levels[i] {
                    for &r2 in &s.levels[k - i] {
                        if r1 & r2 != 0 || (i == k - i && r1 > r2) {
                            continue;
                        }
                        if s.linked(b, r1, r2) {
                            pairs.push((r1, r2));
                        }
                    }
                }
            }
            let mut made = self.make_rels(b, &mut s, k, &pairs);
            if !made {
                // Clauseless joins only when nothing else works (§6.3 step 3).
                let mut all = Vec::new();
                for i in 1..k {
                    for &r1 in &s.levels[i] {
                        for &r2 in &s.levels[k - i] {
                            if r1 & r2 == 0 && r1 < r2 {
                                all.push((r1, r2));
                            }
                        }
                    }
                }
                made = self.make_rels(b, &mut s, k, &all);
            }
            if !made {
                return Err(Error::Unsupported(format!(
                    "no legal join order at level {k}"
                )));
            }
            // standard_join_search: each join relation of the level gets its Gathers once
            // the level is complete, but the topmost.
            if k < n {
                for r in s.levels[k].clone() {
                    self.gather_rel(b, &mut s, r);
                }
            }
        }
        let full: u64 = (0..n).fold(0, |a, i| a | bit(i));
        s.rels
            .remove(&full)
            .ok_or_else(|| Error::Unsupported("the join search found no plan".into()))
    }

    /// generate_useful_gather_paths on join relation `r`: its Gathers join its complete
    /// paths (add_path keeps them beside the parallel-safe paths they beat).
    fn gather_rel(&self, b: &Block<'a>, s: &mut Search, r: u64) {
        let Some(rel) = s.rels.get(&r) else { return };
        if rel.partial.is_empty() {
            return;
        }
        let gathered = self.gather_paths(b, &s.query_keys, (r, rel.rows), &rel.partial, &rel.paths);
        if let Some(rel) = s.rels.get_mut(&r) {
            for g in gathered {
                add_path(&mut rel.paths, g, b.consider_startup);
            }
        }
    }

    pub(crate) fn make_rels(
        &self,
        b: &Block<'a>,
        s: &mut Search,
        k: usize,
        pairs: &[(u64, u64)],
    ) -> bool {
        let mut made = false;
        for &(r1, r2) in pairs {
            let Some(jts) = self.legal(b, r1, r2) else {
                continue;
            };
            let joined = r1 | r2;
            if !s.rels.contains_key(&joined) {
                let rows = self.joinrel_rows(b, s, r1, r2, jts.first().map(|x| x.2));
                let width = b.width_above(joined, usize::MAX);
                s.rels.insert(
                    joined,
                    JoinRel {
                        rows,
                        true_rows: b.true_rows(joined),
                        width,
                        paths: Vec::new(),
                        partial: Vec::new(),
                        consider_parallel: b.consider_parallel(joined),
                    },
                );
                s.levels[k].push(joined);
            }
            for (o, i, jt) in jts {
                self.add_paths(b, s, o, i, jt);
            }
            if s.rels.get(&joined).is_some_and(|j| !j.paths.is_empty()) {
                made = true;
            }
        }
        // Drop join relations that got no path (all candidates failed).
        let rels = &s.rels;
        s.levels[k].retain(|r| rels.get(r).is_some_and(|j| !j.paths.is_empty()));
        made
    }

    /// join_is_legal (§6.1) simplified to the DBT3 shapes: returns the (outer, inner,
    /// jointype) combinations to try, or None.
    pub(crate) fn legal(
        &self,
        b: &Block,
        r1: u64,
        r2: u64,
    ) -> Option<SmallVec<[(u64, u64, PJ); 4]>> {
        let joined = r1 | r2;
        let mut found: Option<(&Special, bool)> = None;
        for sj in &b.specials {
            let in1 = r1 & sj.rhs != 0;
            let in2 = r2 & sj.rhs != 0;
            if !in1 && !in2 {
                continue;
            }
            if joined & !sj.rhs == 0 {
                // Joins inside the RHS are plain inner joins.
                continue;
            }
            if joined & sj.rhs != sj.rhs {
                // Part of the RHS: only joins inside it.
                if joined & !sj.rhs != 0 {
                    return None;
                }
                continue;
            }
            // The whole RHS is here. Completed below, or completed here.
            if r1 & sj.rhs == sj.rhs && r1 != sj.rhs && r1 & sj.lhs == sj.lhs {
                continue;
            }
            if r2 & sj.rhs == sj.rhs && r2 != sj.rhs && r2 & sj.lhs == sj.lhs {
                continue;
            }
            if r2 == sj.rhs && r1 & sj.lhs == sj.lhs {
                if found.is_some() {
                    return None;
                }
                found = Some((sj, false));
            } else if r1 == sj.rhs && r2 & sj.lhs == sj.lhs {
                if found.is_some() {
                    return None;
                }
                found = Some((sj, true));
            } else {
                return None;
            }
        }
        Some(match found {
            None => smallvec![(r1, r2, PJ::Inner), (r2, r1, PJ::Inner)],
            Some((sj, swapped)) => {
                let (o, i) = if swapped { (r2, r1) } else { (r1, r2) };
                // populate_joinrel_with_paths' order: the reversed forms right after the
                // plain ones, where the release has them.
                let pg16 = self.version >= EngineVersion::Pg16;
                let pg18 = self.version >= EngineVersion::Pg18;
                match sj.kind {
                    JKind::Semi => {
                        let mut v: SmallVec<_> = smallvec![(o, i, PJ::Semi)];
                        if pg18 {
                            v.push((i, o, PJ::RightSemi));
                        }
                        v.extend([(o, i, PJ::UniqueInner), (i, o, PJ::UniqueOuter)]);
                        v
                    }
                    JKind::Anti if pg16 => smallvec![(o, i, PJ::Anti), (i, o, PJ::RightAnti)],
                    JKind::Anti => smallvec![(o, i, PJ::Anti)],
                    JKind::Left => smallvec![(o, i, PJ::Left), (i, o, PJ::Right)],
                    JKind::Inner => smallvec![(o, i, PJ::Inner), (i, o, PJ::Inner)],
                }
            }
        })
    }

    /// The equality clauses between two sets: one per class spanning them, preferring a
    /// pair written in the query (generate_join_implied_equalities).
    pub(crate) fn eq_clauses<'b>(
        &self,
        b: &'b Block,
        s: &Search,
        outer: u64,
        inner: u64,
    ) -> Clauses<'b> {
        let mut out = SmallVec::new();
        for (e, ec) in b.ecs.iter().enumerate() {
            let er = s.ec_rels[e];
            if er & outer == 0 || er & inner == 0 {
                continue;
            }
            let m = ec.len();
            let in_outer = |x: &usize| outer & bit(ec[*x].rel) != 0;
            let in_inner = |x: &usize| inner & bit(ec[*x].rel) != 0;
            // generate_join_implied_equalities_normal: the first outer and the first
            // inner member in the class's order (every member here is a plain column, so
            // every pair scores alike). An anti or left join's clause is no class member
            // in PostgreSQL: the join uses the clause as written. Q21 at SF 10 with
            // enable_nestloop off: the semi join hashes on o_orderkey = l2.l_orderkey
            // (orders' key comes first in the class), the anti join merges on
            // l1.l_orderkey = l3.l_orderkey.
            let mut pick = (
                (0..m).find(in_outer).unwrap_or(0),
                (0..m).find(in_inner).unwrap_or(0),
            );
            'find: for o in (0..m).filter(in_outer) {
                for i in (0..m).filter(in_inner) {
                    if s.ec_outer_join_edge[e][o * m + i] {
                        pick = (o, i);
                        break 'find;
                    }
                }
            }
            out.push(EqClause {
                ec: e,
                oi: pick.0,
                ii: pick.1,
                outer: &ec[pick.0],
                inner: &ec[pick.1],
                sel: s.ec_sel[e][pick.0 * m + pick.1],
            });
        }
        out
    }

    pub(crate) fn filters_between(
        &self,
        b: &Block,
        outer: u64,
        inner: u64,
    ) -> SmallVec<[usize; 4]> {
        let j = outer | inner;
        b.jfilters
            .iter()
            .enumerate()
            .filter(|(_, f)| f.rels & !j == 0 && f.rels & outer != 0 && f.rels & inner != 0)
            .map(|(i, _)| i)
            .collect()
    }

    /// Semi selectivity (jselec) of the clauses of a semi/anti join.
    pub(crate) fn semi_sel(
        &self,
        b: &Block,
        eqs: &[EqClause],
        filters: &[usize],
        rhs_rows: f64,
    ) -> f64 {
        let mut s = 1.0;
        for c in eqs {
            s *= b.eqjoinsel_semi(c.outer, c.inner, rhs_rows);
        }
        for &f in filters {
            s *= b.jfilters[f].sel_semi;
        }
        s
    }

    pub(crate) fn inner_sel(&self, b: &Block, eqs: &[EqClause], filters: &[usize]) -> f64 {
        let mut s = 1.0;
        for c in eqs {
            s *= c.sel;
        }
        for &f in filters {
            s *= b.jfilters[f].sel;
        }
        s
    }

    /// calc_joinrel_size_estimate (§1.2) for the first pair that makes the relation.
    pub(crate) fn joinrel_rows(
        &self,
        b: &Block,
        s: &Search,
        r1: u64,
        r2: u64,
        jt: Option<PJ>,
    ) -> f64 {
        let (o, i) = match jt {
            Some(PJ::UniqueOuter | PJ::Right | PJ::RightAnti | PJ::RightSemi) => (r2, r1),
            _ => (r1, r2),
        };
        let orows = s.rels.get(&o).map_or(1.0, |r| r.rows);
        let irows = s.rels.get(&i).map_or(1.0, |r| r.rows);
        let eqs = self.eq_clauses(b, s, o, i);
        let fs = self.filters_between(b, o, i);
        let n = match jt.map(|j| j.kind()) {
            Some(JKind::Semi) => orows * self.semi_sel(b, &eqs, &fs, irows),
            Some(JKind::Anti) => orows * (1.0 - self.semi_sel(b, &eqs, &fs, irows)),
            Some(JKind::Left) => (orows * irows * self.inner_sel(b, &eqs, &fs)).max(orows),
            _ => orows * irows * self.inner_sel(b, &eqs, &fs),
        };
        clamp_row_est(n)
    }
}
