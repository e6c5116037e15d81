//! The nested-loop paths of a pair (joinpath.c's match_unsorted_outer and
//! try_nestloop_path) over plain, materialized, memoized and parameterized inners, and
//! their Memoize paths (joinpath.c's get_memoize_path, pathnode.c's create_memoize_path,
//! costsize.c's cost_memoize_rescan).

use std::rc::Rc;

use smallvec::SmallVec;

use costlab_model::knobs::EngineVersion;
use costlab_model::plan::Work;

use crate::join::costs::{self, Qual};
use crate::join::explain::clause_line;
use crate::join::joinrels::useful_keys;
use crate::join::model::{copy_keys, JPath, Node, PathKeys, Rescan};
use crate::join::pathnode::{beyond, precheck_bound, Candidates, NL_ID};
use crate::join::pathnodes::*;

use super::{JoinCtx, MemoInfo, NestLoopInputs};

/// The Memoize node of path `mp` (from `memoize`) over parameterized path `ip`.
pub(crate) fn memo_node(mp: &JPath, ip: &JPath, m: &MemoInfo) -> Rc<Node> {
    Node::new(
        "Memoize",
        mp.startup,
        mp.total,
        ip.rows,
        ip.width,
        Work {
            rows_out: ip.rows,
            ..Work::default()
        },
        [
            text(|| {
                format!(
                    "Cache Key: {}",
                    m.pcols
                        .iter()
                        .map(|c| c.col.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }),
            text(|| format!("Estimated hit ratio: {:.3}", m.hit)),
        ]
        .into_iter()
        .flatten()
        .collect(),
        [Node::repeated(&ip.node, m.misses)],
    )
}

impl<'a> Planner<'a> {
    /// match_unsorted_outer's Materialize over the cheapest inner, unless it materializes
    /// already (not with enable_material off, not for RIGHT joins).
    pub(super) fn nestloop_material(&self, cx: &JoinCtx) -> Option<JPath> {
        let JoinCtx { s, jt, ci, .. } = *cx;
        let jc = &self.jc;
        (self.opts.enable_material && !jt.is_right() && !matches!(ci.rescan, Rescan::Fixed(..)))
            .then(|| {
                let (ms, mt) = costs::material(jc, ci.input());
                let (rs, rt) = costs::material_rescan(jc, ci.rows, ci.width);
                // Its node is built by the first kept nested loop over it (`material_node`).
                JPath {
                    startup: ms,
                    total: mt,
                    rescan: Rescan::Fixed(rs, rt),
                    node: s.pending.clone(),
                    can_mark: true,
                    pathkeys: copy_keys(&ci.pathkeys),
                    param_ecs: copy_keys(&ci.param_ecs),
                    ..*ci
                }
            })
    }

    /// The nested loops' Memoize paths (get_memoize_path): over each parameterized inner
    /// of `inners`, one per number of calls among the outer paths `outers`.
    pub(super) fn memoize_inners<'x>(
        &self,
        cx: &JoinCtx<'x, 'a>,
        outers: &[JPath],
        inners: &[(&JPath, bool)],
    ) -> SmallVec<[(usize, f64, JPath, MemoInfo<'x>); 2]> {
        let JoinCtx {
            b,
            s,
            outer,
            jt,
            eqs,
            fids,
            unique_inner,
            ..
        } = *cx;
        // (inner index, calls, the Memoize path, what its node needs): the node is built
        // only for a kept nested loop.
        let mut memoized: SmallVec<[(usize, f64, JPath, MemoInfo); 2]> = SmallVec::new();
        if !jt.is_right() {
            for op in outers {
                let calls = op.rows.max(1.0);
                for (k, &(ip, is_param)) in inners.iter().enumerate() {
                    // get_memoize_path returns nothing with enable_memoize off, for a
                    // semi or anti join (never proven inner-unique), and for a unique
                    // inner whose parameters are not the whole join condition (the
                    // cache entry is complete after one row only if they are).
                    let whole_condition =
                        fids.is_empty() && eqs.iter().all(|c| ip.param_ecs.contains(&c.ec));
                    if is_param
                        && self.opts.enable_memoize
                        && !matches!(jt, PJ::Semi | PJ::Anti)
                        && (!unique_inner || whole_condition)
                        && !memoized.iter().any(|m| m.0 == k && m.1 == calls)
                    {
                        let (mp, info) = self.memoize(b, s, ip, outer, calls);
                        memoized.push((k, calls, mp, info));
                    }
                }
            }
        }
        memoized
    }

    /// match_unsorted_outer's nested loops, not for RIGHT joins: every outer path of `nl`
    /// over every inner, and over its Memoize; built with enable_nestloop off too,
    /// disabled. Returns the node builders of the kept ones (by `NL_ID`).
    pub(super) fn nestloop_paths<'x, 'n: 'x>(
        &self,
        cx: &'x JoinCtx<'x, 'a>,
        nl: &'x NestLoopInputs<'n>,
        cand: &mut Candidates<'x, '_>,
    ) -> SmallVec<[Option<impl FnOnce() -> Rc<Node> + 'x + use<'x, 'n>>; 8]> {
        let JoinCtx {
            b,
            s,
            inner,
            jt,
            joined,
            eqs,
            fids,
            rows,
            width,
            kind,
            semi,
            fq,
            cop,
            label,
            filter_text,
            ..
        } = *cx;
        let NestLoopInputs {
            outers,
            ref inners,
            material,
            ref memoized,
        } = *nl;
        let jc = &self.jc;
        let mut nl_makers = SmallVec::<[_; 8]>::new();
        // Per outer path, the precheck bound of the list before this call (for the
        // nested loops' precheck, made only when startup costs do not count).
        let bounds: SmallVec<[(u32, f64); 8]> = if !jt.is_right() && !b.consider_startup {
            outers
                .iter()
                .map(|op| precheck_bound(cand.list, &op.pathkeys))
                .collect()
        } else {
            SmallVec::new()
        };
        let (nl_dc, nl_dis) = self.disable(self.opts.enable_nestloop);
        if !jt.is_right() {
            for (oi, op) in outers.iter().enumerate() {
                let loops = op.rows.max(1.0);
                // The nested loops' output order: the outer's, as far as useful.
                let pathkeys = if matches!(jt, PJ::UniqueOuter) {
                    &[][..]
                } else {
                    useful_keys(b, s, joined, &op.pathkeys)
                };
                for (k, &(ip, is_param)) in inners.iter().enumerate() {
                    let memo = memoized
                        .iter()
                        .find(|m| is_param && m.0 == k && m.1 == loops);
                    let memo_info = memo.map(|m| &m.3);
                    // The Materialize over the cheapest inner follows it in `inners`.
                    let is_material = k == 1 && material;
                    for (vi, v) in std::iter::once(ip).chain(memo.map(|m| &m.2)).enumerate() {
                        // Join clauses the index does not enforce stay join quals (also under
                        // a Memoize, whose path leaves the classes out).
                        let rest_eq =
                            move || eqs.iter().filter(move |c| !ip.param_ecs.contains(&c.ec));
                        let n_rest = rest_eq().count();
                        let q = Qual {
                            startup: fq.startup,
                            per_tuple: fq.per_tuple + cop * n_rest as f64,
                        };
                        // has_indexed_join_quals: the index path itself, not a Memoize over it.
                        // A parameterized join is no index path.
                        let indexed = is_param
                            && vi == 0
                            && n_rest == 0
                            && fids.is_empty()
                            && inner.count_ones() == 1;
                        let mut c = costs::nestloop(
                            jc,
                            op.input(),
                            v.input(),
                            v.rescan_cost(),
                            kind,
                            semi,
                            indexed,
                            q,
                            rows,
                        );
                        // final_cost_nestloop's enable_nestloop.
                        c.startup += nl_dc;
                        c.total += nl_dc;
                        let disabled = nl_dis + op.disabled + v.disabled;
                        // add_path_precheck weighs startup too when startup counts;
                        // skipped then (it only saves add_path's work).
                        if !b.consider_startup
                            && (beyond(disabled, c.total, bounds[oi])
                                || !cand.precheck(disabled, c.total, &op.pathkeys))
                        {
                            continue;
                        }
                        cand.note(disabled, c.total, pathkeys);
                        let id = NL_ID | nl_makers.len() as u32;
                        if !cand.push(
                            c.startup,
                            c.total,
                            rows,
                            width,
                            pathkeys,
                            Rescan::Same,
                            disabled,
                            id,
                            (cx.workers, cx.safe && op.safe && v.safe),
                        ) {
                            continue;
                        }
                        nl_makers.push(Some(move || {
                            let mut details = Vec::new();
                            if n_rest > 0 || !fids.is_empty() {
                                details.extend(text(|| {
                                    clause_line("Join Filter: ", b, rest_eq(), filter_text)
                                }));
                            }
                            if let Some(l) = label {
                                details.insert(0, l.to_string());
                            }
                            details.extend(Self::disabled_line(nl_dis));
                            Node::new(
                                "Nested Loop",
                                c.startup,
                                c.total,
                                rows,
                                width,
                                Work {
                                    rows_examined: c.inner_tuples,
                                    operator_evals: c.inner_tuples * (q.per_tuple / cop.max(1e-12)),
                                    rows_out: rows,
                                    function_calls: cx.filter_calls(rows),
                                    ..Work::default()
                                },
                                details,
                                [
                                    op.node.clone(),
                                    Node::repeated(
                                        &match (vi, memo_info) {
                                            (1, Some(m)) => memo_node(v, ip, m),
                                            _ if is_material => cx.material_node(v),
                                            _ => v.node.clone(),
                                        },
                                        loops,
                                    ),
                                ],
                            )
                        }));
                    }
                }
            }
        }
        nl_makers
    }

    /// A Memoize over parameterized path `ip` whose parameters come from `outer`, for
    /// `calls` outer rows (PG14+, §2.4).
    pub(crate) fn memoize<'b>(
        &self,
        b: &'b Block,
        s: &Search,
        ip: &JPath,
        outer: u64,
        calls: f64,
    ) -> (JPath, MemoInfo<'b>) {
        let jc = &self.jc;
        let pcols: SmallVec<[&ColKey; 2]> = ip
            .param_ecs
            .iter()
            .filter_map(|e| b.ecs[*e].iter().find(|m| outer & bit(m.rel) != 0))
            .collect();
        // A default ndistinct makes Memoize assume every call distinct (§2.4).
        let distinct = || {
            if pcols.iter().any(|c| b.stats(c).nd_default) {
                calls
            } else {
                let cols: SmallVec<[ColKey; 2]> = pcols.iter().map(|&c| c.clone()).collect();
                crate::join::selfuncs::estimate_num_groups(b, &cols, calls)
            }
        };
        // The cache key's columns follow from the classes and the outer relations; the
        // same inner path under the same outer rows recurs across the outer paths and
        // join orders of a search.
        let ecs = ip.param_ecs.iter().fold(0, |a, &e| a | ec_bit(e));
        let nd = if ip.param_ecs.iter().all(|&e| e < 64) {
            *s.memo_groups
                .borrow_mut()
                .entry((ecs, outer, calls.to_bits()))
                .or_insert_with(distinct)
        } else {
            distinct()
        };
        let pg16 = self.version >= EngineVersion::Pg16;
        let (rs, rt, hit) = costs::memoize_rescan(jc, ip.input(), calls, nd, pg16);
        // The nested loops read the path's costs, rows, rescan and disabled nodes; the
        // Memoize node (`memo_node`) is built over `ip` for a kept nested loop, whose
        // join quals `ip`'s parameter classes say.
        (
            JPath {
                startup: ip.startup + jc.ctup(),
                total: ip.total + jc.ctup(),
                rescan: Rescan::Fixed(rs, rt),
                pathkeys: PathKeys::new(),
                node: s.pending.clone(),
                param_ecs: SmallVec::new(),
                ..*ip
            },
            MemoInfo {
                pcols,
                hit,
                misses: (calls * (1.0 - hit)).max(1.0),
            },
        )
    }
}

impl<'x> JoinCtx<'x, '_> {
    /// The Materialize node over the cheapest inner, once a kept nested loop needs it
    /// (most calls keep none).
    fn material_node(&self, m: &JPath) -> Rc<Node> {
        let ci = self.ci;
        self.ci_material
            .get_or_init(|| {
                Node::new(
                    "Materialize",
                    m.startup,
                    m.total,
                    ci.rows,
                    ci.width,
                    Work {
                        rows_out: ci.rows,
                        ..Work::default()
                    },
                    Vec::new(),
                    [ci.node.clone()],
                )
            })
            .clone()
    }
}
