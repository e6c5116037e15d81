//! The hash join path of a pair (joinpath.c's hash_inner_and_outer).

use std::rc::Rc;

use smallvec::SmallVec;

use costlab_model::plan::Work;

use crate::join::costs::{self, Qual};
use crate::join::explain::clause_line;
use crate::join::model::{JPath, Node, Rescan};
use crate::join::pathnode::{Candidates, HASH_ID};
use crate::join::pathnodes::*;

use super::JoinCtx;

impl<'a> Planner<'a> {
    /// hash_inner_and_outer: a hash join of the cheapest total path of each side. With
    /// enable_hashjoin off add_paths_to_joinrel builds none (but for FULL joins, which
    /// the model has not). Returns the node builder of the kept one (by `HASH_ID`).
    pub(super) fn hash_paths<'x>(
        &self,
        cx: &'x JoinCtx<'x, 'a>,
        cand: &mut Candidates<'x, '_>,
    ) -> SmallVec<[Option<impl FnOnce() -> Rc<Node> + 'x>; 1]> {
        let JoinCtx {
            b,
            jt,
            eqs,
            fids,
            rows,
            width,
            co,
            ci,
            kind,
            semi,
            fq,
            eq_qual,
            ..
        } = *cx;
        let jc = &self.jc;
        let mut hash_makers = SmallVec::<[_; 1]>::new();
        if !eqs.is_empty() && self.opts.enable_hashjoin {
            let mut buckets: SmallVec<[costs::BucketInput; 4]> = if jt == PJ::UniqueInner {
                SmallVec::new()
            } else {
                eqs.iter().map(|c| b.ec_buckets[c.ec][c.ii]).collect()
            };
            let mut inner_sel: f64 = eqs.iter().map(|c| c.sel).product();
            // `col = (SubPlan)` with the column on one side and the sub-select's inputs on
            // the other is one more hash clause; its SubPlan cost is in the hash quals.
            let mut hq = eq_qual;
            let mut qp = fq;
            let mut nclauses = eqs.len();
            for &f in fids {
                let jf = &b.jfilters[f];
                let (Some(hc), Some(col_inner)) = (&jf.hash_col, cx.subplan_clause(f)) else {
                    continue;
                };
                nclauses += 1;
                inner_sel *= jf.sel;
                hq.per_tuple += jf.qual.per_tuple;
                hq.startup += jf.qual.startup;
                qp.per_tuple -= jf.qual.per_tuple;
                qp.startup -= jf.qual.startup;
                if jt != PJ::UniqueInner {
                    buckets.push(if col_inner {
                        b.bucket_input(hc)
                    } else {
                        costs::BucketInput {
                            nd: 200.0,
                            nd_default: true,
                            nullfrac: 0.0,
                            mcv_freq: 0.0,
                            rel_rows: 1.0,
                            rel_tuples: 1.0,
                        }
                    });
                }
            }
            // A partial hash join: first a Parallel Hash over the inner's cheapest partial
            // path (one table the participants build together), then the
            // parallel-oblivious one over the whole cheapest safe inner (each builds its own).
            let mut variants: SmallVec<[(&JPath, Option<costs::SharedHash>); 2]> = SmallVec::new();
            if cx.workers > 0
                && jt != PJ::UniqueInner
                && self.opts.enable_parallel_hash
                && !cx.inner_partial.is_empty()
            {
                let ip = &cx.inner_partial[0];
                let d = crate::costsize::get_parallel_divisor(
                    ip.workers,
                    self.opts.parallel_leader_participation,
                );
                variants.push((
                    ip,
                    Some(costs::SharedHash {
                        inner_rows_total: ip.rows * d,
                        workers: cx.workers,
                    }),
                ));
            }
            // 16 on, a reversed (right, right anti) join runs in parallel only with the
            // shared table, whose build side is the preserved one.
            if cx.workers == 0 || !jt.is_right() {
                variants.push((ci, None));
            }
            for (ci, shared) in variants {
                let c = costs::hashjoin_shared(
                    jc,
                    co.input(),
                    ci.input(),
                    nclauses,
                    &buckets,
                    kind,
                    semi,
                    hq,
                    Qual {
                        startup: qp.startup.max(0.0),
                        per_tuple: qp.per_tuple.max(0.0),
                    },
                    inner_sel,
                    shared,
                );
                let rescan = if c.nbatch <= 1.0 {
                    Rescan::Fixed(0.0, c.total - c.startup)
                } else {
                    Rescan::Same
                };
                let disabled = co.disabled + ci.disabled;
                let id = HASH_ID | hash_makers.len() as u32;
                let par = (cx.workers, cx.safe && co.safe && ci.safe);
                if cand.push(
                    c.startup,
                    c.total,
                    rows,
                    width,
                    &[],
                    rescan,
                    disabled,
                    id,
                    par,
                ) {
                    hash_makers.push(Some(move || {
                        let spill = |rows: f64, width: f64| {
                            if c.nbatch > 1.0 {
                                costs::page_size(rows, width) * 8192.0 * 2.0
                            } else {
                                0.0
                            }
                        };
                        let (hash_op, join_op) = if shared.is_some() {
                            ("Parallel Hash", "Parallel Hash Join")
                        } else {
                            ("Hash", "Hash Join")
                        };
                        let hash = Node::new(
                            hash_op,
                            ci.total,
                            ci.total,
                            ci.rows,
                            ci.width,
                            Work {
                                rows_examined: ci.rows,
                                comparisons: ci.rows,
                                rows_out: ci.rows,
                                spill_bytes: spill(ci.rows, ci.width),
                                ..Work::default()
                            },
                            text(|| format!("Buckets: {}  Batches: {}", c.nbuckets, c.nbatch))
                                .into_iter()
                                .collect(),
                            [ci.node.clone()],
                        );
                        Node::new(
                            join_op,
                            c.startup,
                            c.total,
                            rows,
                            width,
                            Work {
                                comparisons: co.rows,
                                rows_examined: co.rows,
                                rows_out: rows,
                                spill_bytes: spill(co.rows, co.width),
                                function_calls: cx.filter_calls(rows),
                                ..Work::default()
                            },
                            cx.join_details(
                                text(|| clause_line("Hash Cond: ", b, eqs.iter(), ""))
                                    .into_iter()
                                    .collect(),
                            ),
                            [co.node.clone(), hash],
                        )
                    }));
                }
            }
        }
        hash_makers
    }
}
