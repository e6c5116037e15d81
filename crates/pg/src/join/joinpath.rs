//! The paths joining two relations (joinpath.c's add_paths_to_joinrel): nested loops with
//! plain, materialized, memoized and parameterized inners, merge joins with their sorts,
//! hash joins, for every join type the pair allows.

use std::rc::Rc;

use smallvec::{smallvec, SmallVec};

use crate::pathnodes::clamp_row_est;
use crate::selfuncs;
use costlab_model::knobs::EngineVersion;
use costlab_model::plan::Work;
use costlab_model::query::CmpOp;

use super::costs::{self, Qual, ScanSel, SemiFactors};
use super::explain::{and_text, clause_line, merge_details_with_subplans};
use super::joinrels::useful_keys;
use super::model::{
    cheaper_total, cheapest_total, copy_keys, is_prefix, JPath, Node, PathKeys, Rescan,
};
use super::pathnode::{
    beyond, build_deferred, precheck_bound, Candidates, HASH_ID, ID_KIND, MERGE_ID, NL_ID,
};
use super::pathnodes::*;

/// What a Memoize node needs beyond its path: the cache key columns and hit ratio.
pub(crate) struct MemoInfo<'b> {
    pub(crate) pcols: SmallVec<[&'b ColKey; 2]>,
    pub(crate) hit: f64,
    /// Calls the cache misses: the inner runs only for these, however many loops.
    pub(crate) misses: f64,
}

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
    /// add_paths_to_joinrel (§6.3): hash, merge and nested-loop paths of one ordered
    /// pair with one join type.
    pub(crate) fn add_paths(&self, b: &Block<'a>, s: &mut Search, outer: u64, inner: u64, jt: PJ) {
        let joined = outer | inner;
        if !s.rels.contains_key(&joined) {
            return;
        }
        let eqs = self.eq_clauses(b, s, outer, inner);
        // The caches that need `s` mutably, filled before the relations' paths are
        // borrowed: parameterized inner paths and the merge clauses' scan fractions.
        let param_inner = if jt.is_right() || jt == PJ::UniqueInner {
            None
        } else if inner.count_ones() == 1 {
            Some(self.param_paths_for(b, s, inner.trailing_zeros() as usize, outer))
        } else if matches!(jt, PJ::Semi | PJ::Anti) && inner.count_ones() == 2 {
            Some(self.param_join_paths(b, s, inner, outer))
        } else {
            None
        };
        let scansels: SmallVec<[ScanSel; 4]> =
            eqs.iter().map(|c| self.scansel_of(b, s, c)).collect();
        // The join relation's list leaves the map while the candidates, which borrow the
        // input relations' paths, are added to it.
        let mut list = match s.rels.get_mut(&joined) {
            Some(j) => std::mem::take(&mut j.paths),
            None => return,
        };
        self.join_paths(
            b,
            s,
            (outer, inner, jt),
            &eqs,
            param_inner.as_deref(),
            &scansels,
            &mut list,
            None,
        );
        if let Some(j) = s.rels.get_mut(&joined) {
            j.paths = list;
        }
    }

    /// Parameterized paths of the two-relation join `inner` whose parameters come from
    /// `outer`, for the inner side of a semi or anti join (add_paths_to_joinrel's
    /// param_source_rels: a join inside a semi or anti join's right-hand side may stay
    /// parameterized by the rels outside it). As PostgreSQL builds them, each is a join
    /// whose outer input is a parameterized index path of one of the two relations
    /// (match_unsorted_outer, hash_inner_and_outer and sort_inner_and_outer over the
    /// outer rel's parameterized paths) and whose inner is the other relation, not
    /// parameterized. Rows: get_parameterized_joinrel_size, i.e. the join's rows scaled
    /// by the share of its outer relation one parameterized scan returns. Their true
    /// rows per scan are scaled the same way (an assumption of the simulation's work).
    pub(crate) fn param_join_paths(
        &self,
        b: &Block<'a>,
        s: &mut Search,
        inner: u64,
        outer: u64,
    ) -> Rc<[JPath]> {
        let mut out = Vec::new();
        let Some(srel) = s.rels.get(&inner) else {
            return Rc::from(out);
        };
        let (s_rows, s_true) = (srel.rows, srel.true_rows);
        for r in (0..64).filter(|r| inner & bit(*r) != 0) {
            let rest = inner & !bit(r);
            let Some(r_rows) = s.rels.get(&bit(r)).map(|x| x.rows) else {
                continue;
            };
            if !s.rels.contains_key(&rest) {
                continue;
            }
            let Some(jts) = self.legal(b, bit(r), rest) else {
                continue;
            };
            let pps = self.param_paths_for(b, s, r, outer);
            let eqs = self.eq_clauses(b, s, bit(r), rest);
            let scansels: SmallVec<[ScanSel; 4]> =
                eqs.iter().map(|c| self.scansel_of(b, s, c)).collect();
            for pp in pps
                .iter()
                .filter(|p| p.param != 0 && p.param & outer == p.param)
            {
                let share = pp.rows / r_rows.max(1.0);
                let rows = (s_rows * share).max(1.0).round().min(s_rows);
                let mut list = Vec::new();
                for &(o, i, jt) in &jts {
                    if o != bit(r) || i != rest || jt.is_right() || jt == PJ::UniqueOuter {
                        continue;
                    }
                    self.join_paths(
                        b,
                        s,
                        (o, i, jt),
                        &eqs,
                        None,
                        &scansels,
                        &mut list,
                        Some((std::slice::from_ref(pp), rows, s_true * share)),
                    );
                }
                for mut p in list {
                    p.param = pp.param;
                    p.param_ecs = pp.param_ecs.clone();
                    out.push(p);
                }
            }
        }
        Rc::from(out)
    }

    /// The hash, merge and nested-loop candidates of add_paths, offered to `list` with
    /// add_path in the order PostgreSQL builds them. A candidate's plan node (EXPLAIN
    /// text, child nodes) is built only when add_path keeps it: most candidates lose, and
    /// building their nodes cost more than costing them.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn join_paths(
        &self,
        b: &Block<'a>,
        s: &Search,
        (outer, inner, jt): (u64, u64, PJ),
        eqs: &[EqClause],
        param_inner: Option<&[JPath]>,
        scansels: &[ScanSel],
        list: &mut Vec<JPath>,
        param_outer: Option<(&[JPath], f64, f64)>,
    ) {
        let jc = &self.jc;
        let joined = outer | inner;
        let Some(jrel) = s.rels.get(&joined) else {
            return;
        };
        // A parameterized join (param_join_paths): its outer paths, rows and true rows.
        let (rows, width) = (param_outer.map_or(jrel.rows, |p| p.1), jrel.width);
        let fids = self.filters_between(b, outer, inner);
        let fids: &[usize] = &fids;
        let (Some(orel), Some(irel)) = (s.rels.get(&outer), s.rels.get(&inner)) else {
            return;
        };
        let mut outer_paths: &[JPath] = param_outer.map_or(&orel.paths[..], |p| p.0);
        let mut inner_paths: &[JPath] = &irel.paths;
        if outer_paths.is_empty() || inner_paths.is_empty() {
            return;
        }
        // Unique-ified RHS (§6.1): the RHS columns of the join's equality clauses.
        let unique_rhs: [JPath; 1];
        if let PJ::UniqueInner | PJ::UniqueOuter = jt {
            let (rhs, rhs_paths) = if jt == PJ::UniqueInner {
                (inner, inner_paths)
            } else {
                (outer, outer_paths)
            };
            let cols: Vec<ColKey> = eqs
                .iter()
                .map(|c| {
                    if rhs & bit(c.inner.rel) != 0 {
                        c.inner.clone()
                    } else {
                        c.outer.clone()
                    }
                })
                .collect();
            if cols.is_empty() || !fids.is_empty() {
                return;
            }
            let Some(cheap) = cheapest_total(rhs_paths) else {
                return;
            };
            unique_rhs = [self.unique_path(b, cheap, rhs, &cols)];
            if jt == PJ::UniqueInner {
                inner_paths = &unique_rhs;
            } else {
                outer_paths = &unique_rhs;
            }
        }
        let kind = jt.cost_kind();
        let inner_rows_rel = inner_paths[0].rows;
        // add_paths_to_joinrel: unproven for semi and anti joins; the reversed forms go
        // through innerrel_is_unique like any other join.
        let unique_inner = matches!(jt, PJ::UniqueInner)
            || (matches!(
                jt,
                PJ::Inner | PJ::Left | PJ::Right | PJ::UniqueOuter | PJ::RightAnti | PJ::RightSemi
            ) && self.inner_unique_cached(b, s, inner, eqs));
        let nsel = self.inner_sel(b, eqs, fids);
        // compute_semi_anti_join_factors takes the semi join's own selectivity also when
        // the semi join runs as an inner join against the unique-ified RHS.
        let semi = if matches!(jt, PJ::Semi | PJ::Anti | PJ::UniqueInner) {
            let rhs_rows = irel.rows;
            Some(SemiFactors::new(
                self.semi_sel(b, eqs, fids, rhs_rows),
                nsel,
                rhs_rows,
            ))
        } else if unique_inner && matches!(jt, PJ::RightAnti | PJ::RightSemi) {
            // compute_semi_anti_join_factors with the semi or anti join's own sjinfo: the
            // semi selectivity of its left side (now the inner) against its right side.
            let mut jselec = 1.0;
            for c in eqs {
                jselec *= b.eqjoinsel_semi(c.inner, c.outer, orel.rows);
            }
            for &f in fids {
                jselec *= b.jfilters[f].sel_semi;
            }
            Some(SemiFactors::new(jselec, nsel, inner_rows_rel))
        } else if unique_inner {
            // The quirk of §3.3: a unique inner's factors come from the inner selectivity.
            Some(SemiFactors::new(nsel, nsel, inner_rows_rel))
        } else {
            None
        };
        // The quals of join filters `fs`, summed.
        let quals_of = |fs: &[usize]| {
            fs.iter().fold(Qual::default(), |a, &f| Qual {
                startup: a.startup + b.jfilters[f].qual.startup,
                per_tuple: a.per_tuple + b.jfilters[f].qual.per_tuple,
            })
        };
        let fq = quals_of(fids);
        // The join filters' function calls, made on the rows the join clauses pass
        // (evaluated cheapest first, the equalities before them): the join's rows before
        // the filters.
        let filter_calls = |rows: f64| {
            let calls: f64 = fids.iter().map(|&f| b.jfilters[f].calls).sum();
            if calls == 0.0 {
                return 0.0;
            }
            let sel: f64 = fids.iter().map(|&f| b.jfilters[f].sel).product();
            calls * rows / sel.max(1e-12)
        };
        let cop = jc.cop();
        let eq_qual = Qual {
            startup: 0.0,
            per_tuple: cop * eqs.len() as f64,
        };
        // A parameterized join's outer is its one parameterized path.
        let co = match param_outer {
            Some(_) => outer_paths.first(),
            None => cheapest_total(outer_paths),
        };
        let (Some(co), Some(ci)) = (co, cheapest_total(inner_paths)) else {
            return;
        };
        let label = jt.label();
        let filter_text = text(|| {
            and_text(
                &fids
                    .iter()
                    .map(|&f| b.jfilters[f].text.clone())
                    .collect::<Vec<_>>(),
            )
        })
        .unwrap_or_default();
        let filter_text: &str = &filter_text;
        // EXPLAIN's lines of a join node: its own condition line, the join filter, the
        // join type first.
        let join_details = move |mut v: Vec<String>| {
            if !filter_text.is_empty() {
                v.extend(text(|| format!("Join Filter: {filter_text}")));
            }
            if let Some(l) = label {
                v.insert(0, l.to_string());
            }
            v
        };

        // The nested loops' inners: the cheapest inner, a Materialize over it unless it
        // materializes already, and parameterized index paths, each of these with a
        // Memoize per number of calls (the outer paths mostly share their rows).
        // enable_material off: no Materialize is offered (match_unsorted_outer).
        let material = (self.opts.enable_material
            && !jt.is_right()
            && !matches!(ci.rescan, Rescan::Fixed(..)))
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
        });
        // The Materialize node over the cheapest inner, once a kept nested loop needs it
        // (most calls keep none).
        let material_node = std::cell::OnceCell::new();
        let material_node = |m: &JPath| {
            material_node
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
        };
        let mut inners: SmallVec<[(&JPath, bool); 8]> = smallvec![(ci, false)];
        if let Some(m) = &material {
            inners.push((m, false));
        }
        for p in param_inner.unwrap_or_default() {
            // Memoize over a parameterized path (PG14+, §2.4).
            if p.param & outer == p.param {
                inners.push((p, true));
            }
        }
        let outers: &[JPath] = if jt == PJ::UniqueOuter {
            std::slice::from_ref(co)
        } else {
            outer_paths
        };
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

        // A join filter `col = (SubPlan)` with the column on one side and the sub-select's
        // inputs on the other is a mergejoinable and hashjoinable clause of its own: Some
        // (the column is on the inner side), else None.
        let subplan_clause = |f: usize| {
            let jf = &b.jfilters[f];
            let hc = jf.hash_col.as_ref()?;
            let others = jf.rels & !bit(hc.rel);
            let col_inner = inner & bit(hc.rel) != 0 && others & !outer == 0;
            let col_outer = outer & bit(hc.rel) != 0 && others & !inner == 0;
            (col_inner || col_outer).then_some(col_inner)
        };
        // sort_inner_and_outer merges on every mergejoinable clause, these too: their
        // SubPlan is then evaluated at every merge comparison (final_cost_mergejoin's
        // merge quals), not only on the joined rows as a join filter. Q2's SubPlan clause
        // at SF 10: merging partsupp with part on both clauses costs far more than the
        // server's merge on p_partkey alone with the SubPlan as a join filter.
        let subplan_merge: SmallVec<[usize; 2]> = fids
            .iter()
            .copied()
            .filter(|&f| subplan_clause(f).is_some())
            .collect();
        // The merge joins' trials: (outer path, merge clauses in order, sort_inner_and_outer's:
        // the cheapest outer sorted on every merge clause).
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
        // The cheapest inner and outer sorted here: the same for every ordering (each
        // made once, if a merge join needs it).
        let ci_sort = std::cell::OnceCell::new();
        let ci_sort = || *ci_sort.get_or_init(|| self.sort_cost(ci.input(), -1.0));
        let co_sort = std::cell::OnceCell::new();
        let co_sort = || *co_sort.get_or_init(|| self.sort_cost(co.input(), -1.0));
        let sort_node = move |p: &JPath, cost: SortCost, dis: u32, key: Vec<String>| {
            Self::sort_node(
                p,
                cost,
                dis,
                text(|| format!("Sort Key: {}", key.join(", "))),
            )
        };

        // The candidates borrow everything above. Each is offered to add_path as it is
        // built; its node is built only if add_path keeps it. add_path_precheck looks at
        // the list as it was before this call and at this call's earlier candidates.
        let mut cand = Candidates {
            true_rows: param_outer.map_or(jrel.true_rows, |p| p.2),
            pending: &s.pending,
            startup: b.consider_startup,
            list,
            prior: SmallVec::new(),
            kept: false,
        };
        // The node builders of kept candidates, by kind (see `NL_ID`).
        let mut nl_makers = SmallVec::<[_; 8]>::new();
        let mut hash_makers = SmallVec::<[_; 1]>::new();
        let mut merge_makers = SmallVec::<[_; 4]>::new();
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

        // Nested loops (match_unsorted_outer), not for RIGHT joins; built with
        // enable_nestloop off too, disabled.
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
                    let is_material = k == 1 && material.is_some();
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
                                    function_calls: filter_calls(rows),
                                    ..Work::default()
                                },
                                details,
                                [
                                    op.node.clone(),
                                    Node::repeated(
                                        &match (vi, memo_info) {
                                            (1, Some(m)) => memo_node(v, ip, m),
                                            _ if is_material => material_node(v),
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

        // Hash joins (hash_inner_and_outer): cheapest total of each side. With
        // enable_hashjoin off add_paths_to_joinrel builds none (but for FULL joins,
        // which the model has not).
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
                let (Some(hc), Some(col_inner)) = (&jf.hash_col, subplan_clause(f)) else {
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
            let c = costs::hashjoin(
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
            );
            let rescan = if c.nbatch <= 1.0 {
                Rescan::Fixed(0.0, c.total - c.startup)
            } else {
                Rescan::Same
            };
            let disabled = co.disabled + ci.disabled;
            let id = HASH_ID | hash_makers.len() as u32;
            if cand.push(c.startup, c.total, rows, width, &[], rescan, disabled, id) {
                hash_makers.push(Some(move || {
                    let spill = |rows: f64, width: f64| {
                        if c.nbatch > 1.0 {
                            costs::page_size(rows, width) * 8192.0 * 2.0
                        } else {
                            0.0
                        }
                    };
                    let hash = Node::new(
                        "Hash",
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
                        "Hash Join",
                        c.startup,
                        c.total,
                        rows,
                        width,
                        Work {
                            comparisons: co.rows,
                            rows_examined: co.rows,
                            rows_out: rows,
                            spill_bytes: spill(co.rows, co.width),
                            function_calls: filter_calls(rows),
                            ..Work::default()
                        },
                        join_details(
                            text(|| clause_line("Hash Cond: ", b, eqs.iter(), ""))
                                .into_iter()
                                .collect(),
                        ),
                        [co.node.clone(), hash],
                    )
                }));
            }
        }

        // Merge joins: explicit sorts of the cheapest inputs (sort_inner_and_outer), and
        // outer paths already in a merge-clause order (match_unsorted_outer). With
        // enable_mergejoin off add_paths_to_joinrel finds no merge clauses (but for
        // FULL joins): none is built.
        // A Right Semi Join is a hash join only (PostgreSQL 18).
        if !eqs.is_empty() && self.opts.enable_mergejoin && jt != PJ::RightSemi {
            for (op, ord, explicit) in &trials {
                let op: &JPath = op;
                let subs: &[usize] = if *explicit { &subplan_merge } else { &[] };
                let sq = quals_of(subs);
                let keys: Keys = ord.iter().map(|&x| eqs[x].ec).collect();
                let nmcl = ord.len();
                let mcl = move || ord.iter().map(move |&x| &eqs[x]);
                // The outer sorted here, unless it is in the order already.
                let outer_sort = (!is_prefix(&keys, &op.pathkeys)).then(|| {
                    if std::ptr::eq(op, co) {
                        co_sort()
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
                // Inner: the cheapest sorted here, and an already-sorted path if any.
                // (path, its sort here, can mark) An outer sorted here is
                // sort_inner_and_outer's, which takes the cheapest inner only;
                // generate_mergejoin_paths looks for presorted inners under an outer
                // already in order.
                // try_mergejoin_path sorts no input already in order.
                let mut inner_choices: SmallVec<[(&JPath, Option<DisabledSort>, bool); 2]> =
                    if is_prefix(&keys, &ci.pathkeys) {
                        smallvec![(ci, None, ci.can_mark)]
                    } else {
                        smallvec![(ci, Some(ci_sort()), true)]
                    };
                if outer_sort.is_none() {
                    if let Some(sp) = inner_paths
                        .iter()
                        .filter(|p| p.param == 0 && is_prefix(&keys, &p.pathkeys))
                        .min_by(|a, b| cheaper_total(a, b))
                    {
                        inner_choices.push((sp, None, sp.can_mark));
                    }
                }
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
                            Some((sc, dis)) => sort_node(op, sc, dis, keys(false)),
                        };
                        let inode = match inner_sort {
                            None => ip.node.clone(),
                            Some((sc, dis)) => sort_node(ip, sc, dis, keys(true)),
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
                                function_calls: filter_calls(rows),
                                ..Work::default()
                            },
                            if subs.is_empty() {
                                join_details(
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
        cand.finish(|id| match id & ID_KIND {
            NL_ID => build_deferred(&mut nl_makers, id),
            HASH_ID => build_deferred(&mut hash_makers, id),
            _ => build_deferred(&mut merge_makers, id),
        });
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
                super::upper::estimate_num_groups(b, &cols, calls)
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
