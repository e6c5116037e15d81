//! The paths joining two relations (joinpath.c's add_paths_to_joinrel): nested loops with
//! plain, materialized, memoized and parameterized inners, merge joins with their sorts,
//! hash joins, for every join type the pair allows. This file holds add_paths_to_joinrel
//! and what its three path builders share (`JoinCtx`); they are `nestloop.rs`
//! (match_unsorted_outer's nested loops, Memoize), `hashjoin.rs` (hash_inner_and_outer)
//! and `mergejoin.rs` (sort_inner_and_outer and match_unsorted_outer's merge joins).

use std::cell::OnceCell;
use std::rc::Rc;

use smallvec::{smallvec, SmallVec};

use super::costs::{JKind, Qual, ScanSel, SemiFactors};
use super::explain::and_text;
use super::joinrels::useful_keys;
use super::model::{cheapest_total, JPath, Node};
use super::pathnode::{build_deferred, Candidates, HASH_ID, ID_KIND, NL_ID};
use super::pathnodes::*;
use crate::pathnodes::clamp_row_est;
use costlab_model::knobs::EngineVersion;

mod hashjoin;
mod mergejoin;
mod nestloop;

/// What a Memoize node needs beyond its path: the cache key columns and hit ratio.
pub(crate) struct MemoInfo<'b> {
    pub(crate) pcols: SmallVec<[&'b ColKey; 2]>,
    pub(crate) hit: f64,
    /// Calls the cache misses: the inner runs only for these, however many loops.
    pub(crate) misses: f64,
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
            None,
        );
        // The partial join paths (consider_parallel_nestloop, try_partial_*join_path):
        // the outer's partial paths against the inner's parallel-safe ones.
        let partial_outer = s.rels.get(&outer).is_some_and(|o| !o.partial.is_empty());
        let mut partial = match s.rels.get_mut(&joined) {
            Some(j) if j.consider_parallel => std::mem::take(&mut j.partial),
            _ => Vec::new(),
        };
        if partial_outer && s.rels.get(&joined).is_some_and(|j| j.consider_parallel) {
            self.join_paths(
                b,
                s,
                (outer, inner, jt),
                &eqs,
                param_inner.as_deref(),
                &scansels,
                &mut partial,
                None,
                Some(&list),
            );
        }
        if let Some(j) = s.rels.get_mut(&joined) {
            j.paths = list;
            j.partial = partial;
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
                        None,
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
    ///
    /// The candidates come in this order, which add_path's choice among equal paths
    /// depends on: the nested loops (`nestloop_paths`), the hash join (`hash_paths`), the
    /// merge joins (`mergejoin_paths`).
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
        complete: Option<&[JPath]>,
    ) {
        let jc = &self.jc;
        let joined = outer | inner;
        let Some(jrel) = s.rels.get(&joined) else {
            return;
        };
        // A parameterized join (param_join_paths): its outer paths, rows and true rows.
        let (mut rows, width) = (param_outer.map_or(jrel.rows, |p| p.1), jrel.width);
        let fids = self.filters_between(b, outer, inner);
        let fids: &[usize] = &fids;
        let (Some(orel), Some(irel)) = (s.rels.get(&outer), s.rels.get(&inner)) else {
            return;
        };
        let mut outer_paths: &[JPath] = param_outer.map_or(&orel.paths[..], |p| p.0);
        let mut inner_paths: &[JPath] = &irel.paths;
        // Partial join paths (`complete` is the join relation's complete paths).
        let partial_inputs;
        let mut workers = 0;
        let mut divisor = 1.0;
        if complete.is_some() {
            let Some(inputs) = self.partial_inputs(jt, orel, irel, rows) else {
                return;
            };
            partial_inputs = inputs;
            let p: &PartialInputs = &partial_inputs;
            (outer_paths, inner_paths) = (&p.outer, &p.inner);
            (workers, rows, divisor) = (p.workers, p.rows, p.divisor);
        }
        if outer_paths.is_empty() || inner_paths.is_empty() {
            return;
        }
        // Unique-ified RHS (§6.1).
        let unique_rhs: [JPath; 1];
        if let PJ::UniqueInner | PJ::UniqueOuter = jt {
            let (rhs, rhs_paths) = if jt == PJ::UniqueInner {
                (inner, inner_paths)
            } else {
                (outer, outer_paths)
            };
            let Some(unique) = self.unique_rhs(b, rhs, rhs_paths, eqs, fids) else {
                return;
            };
            unique_rhs = [unique];
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
        let semi = self.semi_factors(
            b,
            jt,
            unique_inner,
            eqs,
            fids,
            (orel.rows, irel.rows, inner_rows_rel),
        );
        let fq = quals_of(b, fids);
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
        let nl_outers = partial_nestloop_outers(b, s, joined, co, outer_paths, complete.is_some());
        let cx = JoinCtx {
            b,
            s,
            outer,
            inner,
            jt,
            joined,
            eqs,
            scansels,
            fids,
            rows,
            width,
            outer_paths,
            inner_paths,
            co,
            ci,
            kind,
            unique_inner,
            semi,
            fq,
            cop,
            eq_qual,
            label,
            filter_text: &filter_text,
            ci_sorted: OnceCell::new(),
            co_sorted: OnceCell::new(),
            ci_material: OnceCell::new(),
            workers,
            inner_partial: complete.map_or(&[][..], |_| &irel.partial),
            safe: jrel.consider_parallel,
        };

        // The nested loops' inners (`nestloop_inners`), each with a Memoize per number of
        // calls (the outer paths mostly share their rows). enable_material off: no
        // Materialize (match_unsorted_outer); none for a partial nested loop before 18.
        let material = if complete.is_some() && self.version < EngineVersion::Pg18 {
            None
        } else {
            self.nestloop_material(&cx)
        };
        let inners = nestloop_inners(
            ci,
            material.as_ref(),
            param_inner,
            outer,
            complete.is_some(),
        );
        let outers: &[JPath] = if jt == PJ::UniqueOuter {
            std::slice::from_ref(co)
        } else {
            nl_outers.as_deref().unwrap_or(outer_paths)
        };
        let memoized = self.memoize_inners(&cx, outers, &inners);
        let nl = NestLoopInputs {
            outers,
            inners,
            material: material.is_some(),
            memoized,
        };
        let subplan_merge = cx.subplan_merge();
        let trials = cx.merge_trials();

        // The candidates borrow everything above. Each is offered to add_path as it is
        // built; its node is built only if add_path keeps it. add_path_precheck looks at
        // the list as it was before this call and at this call's earlier candidates.
        let mut cand = Candidates {
            // A partial join's true rows are one participant's, like its estimate.
            true_rows: param_outer.map_or(jrel.true_rows, |p| p.2) / divisor,
            pending: &s.pending,
            startup: b.consider_startup,
            list,
            prior: SmallVec::new(),
            kept: false,
            complete,
        };
        // The node builders of kept candidates, by kind (see `NL_ID`). Partial merge
        // joins come before the partial hash join, as PostgreSQL makes them (Q8).
        let mut nl_makers = self.nestloop_paths(&cx, &nl, &mut cand);
        let (mut hash_makers, mut merge_makers) = if complete.is_some() {
            let m = self.mergejoin_paths(&cx, &trials, &subplan_merge, &mut cand);
            (self.hash_paths(&cx, &mut cand), m)
        } else {
            let h = self.hash_paths(&cx, &mut cand);
            (
                h,
                self.mergejoin_paths(&cx, &trials, &subplan_merge, &mut cand),
            )
        };
        cand.finish(|id| match id & ID_KIND {
            NL_ID => build_deferred(&mut nl_makers, id),
            HASH_ID => build_deferred(&mut hash_makers, id),
            _ => build_deferred(&mut merge_makers, id),
        });
    }

    /// A partial join's inputs: the outer's partial paths with the cheapest one's
    /// workers, the inner's parallel-safe paths, the workers, the rows per participant
    /// (clamp(rows / divisor)) and the divisor. None for a reversed join or a unique-ified outer (15: nor
    /// FULL and RIGHT joins, which the model has not), or without a partial outer.
    fn partial_inputs<'r>(
        &self,
        jt: PJ,
        orel: &'r JoinRel,
        irel: &'r JoinRel,
        rows: f64,
    ) -> Option<PartialInputs<'r>> {
        use std::borrow::Cow;
        // 16 on, a Parallel Hash may build the preserved side of a right or right anti
        // join (never a right semi join, 18); nothing else partial is reversed.
        let right_ok = self.version >= EngineVersion::Pg16 && jt != PJ::RightSemi;
        if (jt.is_right() && !right_ok) || jt == PJ::UniqueOuter {
            return None;
        }
        let workers = orel.partial.first()?.workers;
        let outer: Cow<[JPath]> = if orel.partial.iter().all(|p| p.workers == workers) {
            Cow::Borrowed(&orel.partial)
        } else {
            let same = orel.partial.iter().filter(|p| p.workers == workers);
            Cow::Owned(same.cloned().collect())
        };
        let inner: Cow<[JPath]> = if irel.paths.iter().all(|p| p.safe) {
            Cow::Borrowed(&irel.paths)
        } else {
            Cow::Owned(irel.paths.iter().filter(|p| p.safe).cloned().collect())
        };
        let d =
            crate::costsize::get_parallel_divisor(workers, self.opts.parallel_leader_participation);
        Some(PartialInputs {
            outer,
            inner,
            workers,
            rows: clamp_row_est(rows / d),
            divisor: d,
        })
    }

    /// The unique-ified RHS `rhs` of a UniqueInner or UniqueOuter pair (§6.1):
    /// create_unique_path over its cheapest path on the RHS columns of the join's equality
    /// clauses. None, and the pair has no path, without an equality clause, with a join
    /// filter, or without a path.
    fn unique_rhs(
        &self,
        b: &Block,
        rhs: u64,
        rhs_paths: &[JPath],
        eqs: &[EqClause],
        fids: &[usize],
    ) -> Option<JPath> {
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
            return None;
        }
        let cheap = cheapest_total(rhs_paths)?;
        Some(self.unique_path(b, cheap, rhs, &cols))
    }

    /// compute_semi_anti_join_factors as the join's costs take it: for a semi or anti join
    /// and a unique inner. The rows are the outer relation's, the RHS relation's and the
    /// inner paths' (a unique-ified inner's).
    fn semi_factors(
        &self,
        b: &Block,
        jt: PJ,
        unique_inner: bool,
        eqs: &[EqClause],
        fids: &[usize],
        (orel_rows, irel_rows, inner_rows_rel): (f64, f64, f64),
    ) -> Option<SemiFactors> {
        let nsel = self.inner_sel(b, eqs, fids);
        // compute_semi_anti_join_factors takes the semi join's own selectivity also when
        // the semi join runs as an inner join against the unique-ified RHS.
        if matches!(jt, PJ::Semi | PJ::Anti | PJ::UniqueInner) {
            let rhs_rows = irel_rows;
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
                jselec *= b.eqjoinsel_semi(c.inner, c.outer, orel_rows);
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
        }
    }
}

/// A partial nested loop's outer paths: the cheapest, and the others whose order is
/// useful above the join. add_partial_path compares total cost and pathkeys only, and a
/// partial outer of the same workers has the same rows as the cheapest: a nested loop over
/// a dearer one without useful keys costs more with the same inner and keys, and is never
/// kept. None: all of them (complete joins, or nothing to leave out).
fn partial_nestloop_outers(
    b: &Block,
    s: &Search,
    joined: u64,
    co: &JPath,
    outer_paths: &[JPath],
    partial: bool,
) -> Option<Vec<JPath>> {
    if !partial {
        return None;
    }
    let keep =
        |p: &JPath| std::ptr::eq(p, co) || !useful_keys(b, s, joined, &p.pathkeys).is_empty();
    if outer_paths.iter().all(keep) {
        return None;
    }
    Some(outer_paths.iter().filter(|p| keep(p)).cloned().collect())
}

/// The nested loops' inners: the cheapest inner, its Materialize, and the parameterized
/// paths whose parameters `outer` supplies (Memoize goes over these, PG14+, §2.4); a
/// partial join's inners must be parallel-safe.
fn nestloop_inners<'x>(
    ci: &'x JPath,
    material: Option<&'x JPath>,
    param_inner: Option<&'x [JPath]>,
    outer: u64,
    partial: bool,
) -> SmallVec<[(&'x JPath, bool); 8]> {
    let mut inners: SmallVec<[(&JPath, bool); 8]> = smallvec![(ci, false)];
    if let Some(m) = material {
        inners.push((m, false));
    }
    for p in param_inner.unwrap_or_default() {
        if p.param & outer == p.param && (!partial || p.safe) {
            inners.push((p, true));
        }
    }
    inners
}

/// The quals of join filters `fs`, summed.
fn quals_of(b: &Block, fs: &[usize]) -> Qual {
    fs.iter().fold(Qual::default(), |a, &f| Qual {
        startup: a.startup + b.jfilters[f].qual.startup,
        per_tuple: a.per_tuple + b.jfilters[f].qual.per_tuple,
    })
}

/// What the paths of one pair and join type share (`join_paths`' locals, as
/// add_paths_to_joinrel's JoinPathExtraData and arguments are for sort_inner_and_outer,
/// match_unsorted_outer and hash_inner_and_outer): the two sides' paths and cheapest
/// paths, the join's factors and quals, and what is built once for the cheapest paths
/// when a candidate first needs it.
struct JoinCtx<'x, 'a> {
    b: &'x Block<'a>,
    s: &'x Search,
    outer: u64,
    inner: u64,
    jt: PJ,
    joined: u64,
    eqs: &'x [EqClause<'x>],
    /// mergejoinscansel of each of `eqs`.
    scansels: &'x [ScanSel],
    /// The join filters between the two sides.
    fids: &'x [usize],
    /// The join's rows (a parameterized join's own) and width.
    rows: f64,
    width: f64,
    /// The outer paths (a parameterized join's one) and inner paths, a unique-ified RHS
    /// in place of its relation's.
    outer_paths: &'x [JPath],
    inner_paths: &'x [JPath],
    /// The cheapest total outer (a parameterized join's one) and inner path.
    co: &'x JPath,
    ci: &'x JPath,
    kind: JKind,
    unique_inner: bool,
    semi: Option<SemiFactors>,
    /// The join filters' quals, summed.
    fq: Qual,
    cop: f64,
    /// The equality clauses' quals.
    eq_qual: Qual,
    label: Option<&'static str>,
    /// EXPLAIN's text of the join filters (empty without).
    filter_text: &'x str,
    /// The cheapest inner and outer sorted here: the same for every ordering (each made
    /// once, if a merge join needs it).
    ci_sorted: OnceCell<DisabledSort>,
    co_sorted: OnceCell<DisabledSort>,
    /// The Materialize node over the cheapest inner (`material_node`).
    ci_material: OnceCell<Rc<Node>>,
    /// Partial join paths: the outer's workers (0 for complete paths), and the inner's
    /// partial paths for a Parallel Hash.
    workers: u32,
    inner_partial: &'x [JPath],
    /// The join relation's consider_parallel.
    safe: bool,
}

/// A partial join's inputs (`Planner::partial_inputs`).
struct PartialInputs<'r> {
    /// Borrowed when every path qualifies (the usual case: copying the paths for every
    /// pair cost more than the partial joins' costing).
    outer: std::borrow::Cow<'r, [JPath]>,
    inner: std::borrow::Cow<'r, [JPath]>,
    workers: u32,
    /// Rows per participant.
    rows: f64,
    divisor: f64,
}

/// match_unsorted_outer's nested loops' inputs.
struct NestLoopInputs<'x> {
    outers: &'x [JPath],
    /// (path, parameterized): the cheapest inner, its Materialize, parameterized paths.
    inners: SmallVec<[(&'x JPath, bool); 8]>,
    /// The Materialize over the cheapest inner follows it in `inners`.
    material: bool,
    /// (inner index, calls, the Memoize path, what its node needs): the node is built
    /// only for a kept nested loop.
    memoized: SmallVec<[(usize, f64, JPath, MemoInfo<'x>); 2]>,
}

impl<'x> JoinCtx<'x, '_> {
    /// The join filters' function calls, made on the rows the join clauses pass
    /// (evaluated cheapest first, the equalities before them): the join's rows before
    /// the filters.
    fn filter_calls(&self, rows: f64) -> f64 {
        let (b, fids) = (self.b, self.fids);
        let calls: f64 = fids.iter().map(|&f| b.jfilters[f].calls).sum();
        if calls == 0.0 {
            return 0.0;
        }
        let sel: f64 = fids.iter().map(|&f| b.jfilters[f].sel).product();
        calls * rows / sel.max(1e-12)
    }

    /// EXPLAIN's lines of a join node: its own condition line, the join filter, the
    /// join type first.
    fn join_details(&self, mut v: Vec<String>) -> Vec<String> {
        let filter_text = self.filter_text;
        if !filter_text.is_empty() {
            v.extend(text(|| format!("Join Filter: {filter_text}")));
        }
        if let Some(l) = self.label {
            v.insert(0, l.to_string());
        }
        v
    }

    /// A join filter `col = (SubPlan)` with the column on one side and the sub-select's
    /// inputs on the other is a mergejoinable and hashjoinable clause of its own: Some
    /// (the column is on the inner side), else None.
    fn subplan_clause(&self, f: usize) -> Option<bool> {
        let (b, outer, inner) = (self.b, self.outer, self.inner);
        let jf = &b.jfilters[f];
        let hc = jf.hash_col.as_ref()?;
        let others = jf.rels & !bit(hc.rel);
        let col_inner = inner & bit(hc.rel) != 0 && others & !outer == 0;
        let col_outer = outer & bit(hc.rel) != 0 && others & !inner == 0;
        (col_inner || col_outer).then_some(col_inner)
    }
}
