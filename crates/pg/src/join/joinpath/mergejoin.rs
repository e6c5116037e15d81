//! The merge join paths of a pair (joinpath.c's sort_inner_and_outer and the merge
//! joins of match_unsorted_outer, through generate_mergejoin_paths and
//! try_mergejoin_path), the merge clauses' scan fractions (selfuncs.c's
//! mergejoinscansel) and the sorts of the cheapest inputs they share.

use std::rc::Rc;

use smallvec::{smallvec, SmallVec};

use crate::pathnodes::clamp_row_est;
use crate::selfuncs;
use costlab_model::plan::Work;
use costlab_model::query::CmpOp;

use crate::join::costs::{self, Qual, ScanSel};
use crate::join::explain::{clause_line, merge_details_with_subplans};
use crate::join::joinrels::useful_keys;
use crate::join::model::{cheaper_total, is_prefix, JPath, Node, Rescan};
use crate::join::pathnode::{Candidates, MERGE_ID};
use crate::join::pathnodes::*;

use super::{quals_of, JoinCtx};

impl<'a> Planner<'a> {
    /// The merge joins, one per trial of `trials` (`JoinCtx::merge_trials`):
    /// sort_inner_and_outer's explicit sorts of the cheapest inputs and
    /// match_unsorted_outer's outer paths already in a merge-clause order, each with the
    /// cheapest inner and an inner already in order (generate_mergejoin_paths). With
    /// enable_mergejoin off add_paths_to_joinrel finds no merge clauses (but for FULL
    /// joins): none is built. A Right Semi Join is a hash join only (PostgreSQL 18).
    /// Returns the node builders of the kept ones (by `MERGE_ID`).
    pub(super) fn mergejoin_paths<'x>(
        &self,
        cx: &'x JoinCtx<'x, 'a>,
        trials: &'x [(&'x JPath, Keys, bool)],
        subplan_merge: &'x [usize],
        cand: &mut Candidates<'x, '_>,
    ) -> SmallVec<[Option<impl FnOnce() -> Rc<Node> + 'x>; 4]> {
        let JoinCtx {
            b,
            s,
            jt,
            joined,
            eqs,
            scansels,
            fids,
            rows,
            width,
            co,
            ci,
            unique_inner,
            fq,
            cop,
            label,
            ..
        } = *cx;
        let jc = &self.jc;
        let mut merge_makers = SmallVec::<[_; 4]>::new();
        // A partial merge join never has the preserved side inside (joinpath.c).
        let partial_right = cx.workers > 0 && jt.is_right();
        if !eqs.is_empty() && self.opts.enable_mergejoin && jt != PJ::RightSemi && !partial_right {
            for (op, ord, explicit) in trials {
                let op: &JPath = op;
                let subs: &[usize] = if *explicit { subplan_merge } else { &[] };
                let sq = quals_of(b, subs);
                let keys: Keys = ord.iter().map(|&x| eqs[x].ec).collect();
                let nmcl = ord.len();
                let mcl = move || ord.iter().map(move |&x| &eqs[x]);
                // The outer sorted here, unless it is in the order already.
                let outer_sort = (!is_prefix(&keys, &op.pathkeys)).then(|| {
                    if std::ptr::eq(op, co) {
                        cx.co_sort(self)
                    } else {
                        self.sort_cost(op.input(), -1.0)
                    }
                });
                let oin = match outer_sort {
                    None => op.input(),
                    Some(((s, t, _, _), _)) => costs::In {
                        startup: s,
                        total: t,
                        rows: op.rows,
                        width: op.width,
                    },
                };
                let inner_choices = self.merge_inners(cx, &keys, outer_sort.is_none());
                let ss = scansels[ord[0]];
                let skip_mark = (matches!(jt, PJ::Semi | PJ::Anti) || unique_inner)
                    && fids.len() == subs.len()
                    && nmcl == eqs.len();
                let mtuples = clamp_row_est(
                    oin.rows
                        * ci.rows
                        * mcl().map(|c| c.sel).product::<f64>()
                        * subs.iter().map(|&f| b.jfilters[f].sel).product::<f64>(),
                );
                let mq = Qual {
                    startup: sq.startup,
                    per_tuple: cop * nmcl as f64 + sq.per_tuple,
                };
                let qp = Qual {
                    startup: (fq.startup - sq.startup).max(0.0),
                    per_tuple: (fq.per_tuple - sq.per_tuple).max(0.0)
                        + cop * (eqs.len() - nmcl) as f64,
                };
                let pk = if jt.is_right() || jt == PJ::UniqueOuter {
                    &[][..]
                } else {
                    useful_keys(b, s, joined, &keys)
                };
                for (ip, inner_sort, can_mark) in inner_choices {
                    let iin = match inner_sort {
                        None => ip.input(),
                        Some(((s, t, _, _), _)) => costs::In {
                            startup: s,
                            total: t,
                            rows: ip.rows,
                            width: ip.width,
                        },
                    };
                    let skip = skip_mark || jt == PJ::UniqueOuter;
                    let c = costs::mergejoin(
                        jc,
                        oin,
                        iin,
                        ss,
                        skip,
                        inner_sort.is_some(),
                        can_mark,
                        self.opts.enable_material,
                        mq,
                        qp,
                        mtuples,
                    );
                    // The join's, its inputs' and its explicit sorts' disabled nodes
                    // (initial_cost_mergejoin).
                    let disabled = op.disabled
                        + ip.disabled
                        + outer_sort.map_or(0, |x| x.1)
                        + inner_sort.map_or(0, |x| x.1);
                    let id = MERGE_ID | merge_makers.len() as u32;
                    if !cand.push(
                        c.startup,
                        c.total,
                        rows,
                        width,
                        pk,
                        Rescan::Same,
                        disabled,
                        id,
                        (cx.workers, cx.safe && op.safe && ip.safe),
                    ) {
                        continue;
                    }
                    merge_makers.push(Some(move || {
                        // A join's sort keys name their relation (EXPLAIN's useprefix):
                        // the merge clauses' outer (`inner` false) or inner columns.
                        let keys = |inner: bool| {
                            text(|| {
                                mcl()
                                    .map(|c| {
                                        let k = if inner { c.inner } else { c.outer };
                                        format!("{}.{}", b.rels[k.rel].alias, k.col)
                                    })
                                    .collect()
                            })
                            .unwrap_or_default()
                        };
                        let onode = match outer_sort {
                            None => op.node.clone(),
                            Some((sc, dis)) => merge_sort_node(op, sc, dis, keys(false)),
                        };
                        let inode = match inner_sort {
                            None => ip.node.clone(),
                            Some((sc, dis)) => merge_sort_node(ip, sc, dis, keys(true)),
                        };
                        let inode = if c.materialize_inner {
                            Node::new(
                                "Materialize",
                                iin.startup,
                                iin.total + cop * iin.rows,
                                iin.rows,
                                iin.width,
                                Work {
                                    rows_out: iin.rows,
                                    ..Work::default()
                                },
                                Vec::new(),
                                [inode],
                            )
                        } else {
                            inode
                        };
                        Node::new(
                            "Merge Join",
                            c.startup,
                            c.total,
                            rows,
                            width,
                            Work {
                                comparisons: oin.rows + c.inner_tuples,
                                rows_out: rows,
                                function_calls: cx.filter_calls(rows),
                                ..Work::default()
                            },
                            if subs.is_empty() {
                                cx.join_details(
                                    text(|| clause_line("Merge Cond: ", b, mcl(), ""))
                                        .into_iter()
                                        .collect(),
                                )
                            } else {
                                merge_details_with_subplans(b, mcl(), fids, subs, label)
                            },
                            [onode, inode],
                        )
                    }));
                }
            }
        }
        merge_makers
    }

    /// The inners a merge join on `keys` tries: (path, its sort here, can mark).
    /// Inner: the cheapest sorted here, and an already-sorted path if any.
    /// An outer sorted here is sort_inner_and_outer's, which takes the cheapest inner
    /// only; generate_mergejoin_paths looks for presorted inners under an outer already
    /// in order (`outer_in_order`). try_mergejoin_path sorts no input already in order.
    fn merge_inners<'x>(
        &self,
        cx: &'x JoinCtx<'x, 'a>,
        keys: &[usize],
        outer_in_order: bool,
    ) -> SmallVec<[(&'x JPath, Option<DisabledSort>, bool); 2]> {
        let (ci, inner_paths) = (cx.ci, cx.inner_paths);
        let mut inner_choices: SmallVec<[(&JPath, Option<DisabledSort>, bool); 2]> =
            if is_prefix(keys, &ci.pathkeys) {
                smallvec![(ci, None, ci.can_mark)]
            } else {
                smallvec![(ci, Some(cx.ci_sort(self)), true)]
            };
        if outer_in_order {
            if let Some(sp) = inner_paths
                .iter()
                .filter(|p| p.param == 0 && is_prefix(keys, &p.pathkeys))
                .min_by(|a, b| cheaper_total(a, b))
            {
                inner_choices.push((sp, None, sp.can_mark));
            }
        }
        inner_choices
    }

    /// mergejoinscansel of a clause, computed once per class and member pair.
    pub(crate) fn scansel_of(&self, b: &Block, s: &mut Search, c: &EqClause) -> ScanSel {
        let m = b.ecs[c.ec].len();
        let slot = &mut s.scansel[c.ec][c.oi * m + c.ii];
        *slot.get_or_insert_with(|| self.scansel(b, c))
    }

    /// mergejoinscansel for the first merge clause (§4.1), from the histogram ends.
    pub(crate) fn scansel(&self, b: &Block, c: &EqClause) -> ScanSel {
        let range =
            |k: &ColKey| -> Option<(costlab_model::catalog::Value, costlab_model::catalog::Value)> {
                let v = b.stats(k);
                let mut lo = v.hist.first().cloned();
                let mut hi = v.hist.last().cloned();
                for (m, _) in v.mcv {
                    if lo
                        .as_ref()
                        .is_none_or(|l| selfuncs::compare(m, l) == Some(std::cmp::Ordering::Less))
                    {
                        lo = Some(m.clone());
                    }
                    if hi.as_ref().is_none_or(|h| {
                        selfuncs::compare(m, h) == Some(std::cmp::Ordering::Greater)
                    }) {
                        hi = Some(m.clone());
                    }
                }
                Some((lo?, hi?))
            };
        let sel = |k: &ColKey, op: CmpOp, v: &costlab_model::catalog::Value| -> Option<f64> {
            let RelKind::Table { rel, .. } = &b.rels[k.rel].kind else {
                return None;
            };
            let col = rel
                .cols
                .iter()
                .find(|c| c.name.eq_ignore_ascii_case(&k.col))?;
            Some(selfuncs::scalarineqsel(rel, col, op, v))
        };
        let (Some((lmin, lmax)), Some((rmin, rmax))) = (range(c.outer), range(c.inner)) else {
            return ScanSel::default();
        };
        let lt = |a: &costlab_model::catalog::Value, b: &costlab_model::catalog::Value| {
            selfuncs::compare(a, b) == Some(std::cmp::Ordering::Less)
        };
        let mut s = ScanSel::default();
        if lt(&lmin, &rmin) {
            s.outerstart = sel(c.outer, CmpOp::Lt, &rmin).unwrap_or(0.0);
        }
        if lt(&rmin, &lmin) {
            s.innerstart = sel(c.inner, CmpOp::Lt, &lmin).unwrap_or(0.0);
        }
        if lt(&rmax, &lmax) {
            s.outerend = sel(c.outer, CmpOp::Le, &rmax).unwrap_or(1.0);
        }
        if lt(&lmax, &rmax) {
            s.innerend = sel(c.inner, CmpOp::Le, &lmax).unwrap_or(1.0);
        }
        if s.outerstart >= s.outerend {
            s.outerstart = 0.0;
            s.outerend = 1.0;
        }
        if s.innerstart >= s.innerend {
            s.innerstart = 0.0;
            s.innerend = 1.0;
        }
        s
    }
}

/// A merge join's Sort node over `p` on the merge clauses' columns `key`.
fn merge_sort_node(p: &JPath, cost: SortCost, dis: u32, key: Vec<String>) -> Rc<Node> {
    Planner::sort_node(
        p,
        cost,
        dis,
        text(|| format!("Sort Key: {}", key.join(", "))),
    )
}

impl<'x> JoinCtx<'x, '_> {
    /// The cheapest inner sorted here.
    fn ci_sort(&self, p: &Planner) -> DisabledSort {
        *self
            .ci_sorted
            .get_or_init(|| p.sort_cost(self.ci.input(), -1.0))
    }

    /// The cheapest outer sorted here.
    fn co_sort(&self, p: &Planner) -> DisabledSort {
        *self
            .co_sorted
            .get_or_init(|| p.sort_cost(self.co.input(), -1.0))
    }

    /// sort_inner_and_outer merges on every mergejoinable clause, these too: their
    /// SubPlan is then evaluated at every merge comparison (final_cost_mergejoin's
    /// merge quals), not only on the joined rows as a join filter. Q2's SubPlan clause
    /// at SF 10: merging partsupp with part on both clauses costs far more than the
    /// server's merge on p_partkey alone with the SubPlan as a join filter.
    pub(super) fn subplan_merge(&self) -> SmallVec<[usize; 2]> {
        self.fids
            .iter()
            .copied()
            .filter(|&f| self.subplan_clause(f).is_some())
            .collect()
    }

    /// The merge joins' trials: (outer path, merge clauses in order, sort_inner_and_outer's:
    /// the cheapest outer sorted on every merge clause).
    pub(super) fn merge_trials(&self) -> SmallVec<[(&'x JPath, Keys, bool); 6]> {
        let (eqs, co, outer_paths) = (self.eqs, self.co, self.outer_paths);
        let mut trials: SmallVec<[(&JPath, Keys, bool); 6]> = SmallVec::new();
        for lead in 0..eqs.len() {
            let mut o: Keys = smallvec![lead];
            o.extend((0..eqs.len()).filter(|&x| x != lead));
            trials.push((co, o, true));
        }
        for op in outer_paths {
            if op.pathkeys.is_empty() {
                continue;
            }
            // find_mergeclauses_for_outer_pathkeys: clauses matching the outer's keys.
            let mut ord = Keys::new();
            for pk in &op.pathkeys {
                match eqs.iter().position(|c| c.ec == *pk) {
                    Some(x) if !ord.contains(&x) => ord.push(x),
                    _ => break,
                }
            }
            // The cheapest outer is tried with explicit sorts already.
            let same_as_cheapest = op.pathkeys.len() == co.pathkeys.len()
                && is_prefix(&op.pathkeys, &co.pathkeys)
                && op.total == co.total;
            if !ord.is_empty() && !same_as_cheapest {
                trials.push((op, ord, false));
            }
        }
        trials
    }
}
