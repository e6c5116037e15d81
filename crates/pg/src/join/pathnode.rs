//! Keeping the paths worth keeping (pathnode.c): a join relation's candidate paths
//! compared as add_path and add_path_precheck do, the node of a candidate built only if it
//! survives, and create_unique_path for a semi join's unique-ified side.

use std::rc::Rc;

use smallvec::SmallVec;

use costlab_model::plan::Work;

use super::costs::{self};
use super::model::{
    add_partial_path_head, add_partial_path_precheck, add_path_head, copy_keys, is_prefix, JPath,
    Node, PathHead, PathKeys, Rescan, TrueRows,
};
use super::pathnodes::*;
use crate::costsize::STD_FUZZ_FACTOR;

/// Join candidates of one add_paths call, offered to add_path in the order they are
/// built. A candidate's `node` is the shared placeholder `pending`; the builder of its
/// real node, which the caller keeps under the candidate's id (`push`) only if add_path
/// kept it, runs in `finish` for the candidates still in the list then: a later
/// candidate of the same call often displaces one add_path kept, and building and
/// dropping its node cost more than costing it.
pub(crate) struct Candidates<'c, 'l> {
    pub(crate) pending: &'c Rc<Node>,
    /// The join relation's consider_startup ([`Block::consider_startup`]).
    pub(crate) startup: bool,
    pub(crate) list: &'l mut Vec<JPath>,
    /// This call's earlier candidates: (disabled nodes, total, pathkeys), for
    /// add_path_precheck.
    pub(crate) prior: SmallVec<[(u32, f64, &'c [usize]); 32]>,
    /// The join relation's true rows.
    pub(crate) true_rows: f64,
    /// add_path kept a candidate of this call.
    pub(crate) kept: bool,
    /// Partial candidates: `list` is the join relation's partial paths, and this its
    /// complete ones (add_partial_path_precheck reads both).
    pub(crate) complete: Option<&'c [JPath]>,
}

/// A kept candidate's id (`JPath::pending`): the kind of its node builder, nested loop,
/// hash or merge join, in the top bits, its number among the builders of that kind in
/// the rest (never 0: 0 is a built node).
pub(crate) const NL_ID: u32 = 1 << 28;

pub(crate) const HASH_ID: u32 = 2 << 28;

pub(crate) const MERGE_ID: u32 = 3 << 28;

pub(crate) const ID_KIND: u32 = 0xf << 28;

/// Takes the node builder `id` (less its kind) of `makers` and builds the node.
pub(crate) fn build_deferred<F: FnOnce() -> Rc<Node>>(
    makers: &mut [Option<F>],
    id: u32,
) -> Rc<Node> {
    let make = makers
        .get_mut((id & !ID_KIND) as usize)
        .and_then(Option::take);
    make.expect("a kept join candidate without its node")()
}

impl<'c> Candidates<'c, '_> {
    /// add_path_precheck against this call's earlier candidates.
    pub(crate) fn precheck(&self, disabled: u32, total: f64, pathkeys: &[usize]) -> bool {
        !self.prior.iter().any(|&(d, t, keys)| {
            beyond(disabled, total, (d, t * STD_FUZZ_FACTOR)) && is_prefix(pathkeys, keys)
        })
    }

    /// Notes a nested loop candidate for add_path_precheck (before `push`).
    pub(crate) fn note(&mut self, disabled: u32, total: f64, pathkeys: &'c [usize]) {
        self.prior.push((disabled, total, pathkeys));
    }

    /// Offers a join path (unparameterized, no mark/restore) whose node is built later
    /// by the builder the caller keeps under `id` if this returns true (add_path kept it).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push(
        &mut self,
        startup: f64,
        total: f64,
        rows: f64,
        width: f64,
        pathkeys: &[usize],
        rescan: Rescan,
        disabled: u32,
        id: u32,
        par: (u32, bool),
    ) -> bool {
        let pending = self.pending;
        let make = || JPath {
            startup,
            total,
            rows,
            width,
            pathkeys: copy_keys(pathkeys),
            param: 0,
            rescan,
            node: pending.clone(),
            param_ecs: SmallVec::new(),
            can_mark: false,
            disabled,
            pending: id,
            workers: par.0,
            safe: par.1,
        };
        let kept = match self.complete {
            // A partial join path: add_partial_path_precheck, then add_partial_path.
            Some(complete) => {
                add_partial_path_precheck(self.list, complete, disabled, total, pathkeys)
                    && add_partial_path_head(self.list, total, disabled, pathkeys, make)
            }
            None => {
                let head = PathHead {
                    startup,
                    total,
                    rows,
                    pathkeys,
                    param: 0,
                    disabled,
                    safe: par.1,
                };
                add_path_head(self.list, head, self.startup, make)
            }
        };
        self.kept |= kept;
        kept
    }

    /// Builds the nodes of this call's candidates that are still in the list: `make`
    /// builds the node of a candidate id.
    pub(crate) fn finish(self, mut make: impl FnMut(u32) -> Rc<Node>) {
        if !self.kept {
            return;
        }
        for p in self.list.iter_mut().filter(|p| p.pending != 0) {
            p.node = Node::with_true_rows(make(p.pending), TrueRows::out(self.true_rows));
            p.pending = 0;
        }
    }
}

/// add_path_precheck's bound from `list` as (disabled nodes, total × fuzz): a path with
/// these pathkeys `beyond` the bound would be rejected (infinite when no path of the
/// list bounds it).
pub(crate) fn precheck_bound(list: &[JPath], pathkeys: &[usize]) -> (u32, f64) {
    let mut bound = (u32::MAX, f64::INFINITY);
    for old in list.iter().filter(|p| p.param == 0) {
        if is_prefix(pathkeys, &old.pathkeys) {
            let b = (old.disabled, old.total * STD_FUZZ_FACTOR);
            if b.0 < bound.0 || (b.0 == bound.0 && b.1 < bound.1) {
                bound = b;
            }
        }
    }
    bound
}

/// A path with `disabled` nodes and cost `total` loses to a bound (disabled nodes,
/// total × fuzz): PostgreSQL 18's add_path_precheck compares the disabled nodes first.
pub(crate) fn beyond(disabled: u32, total: f64, (bd, bt): (u32, f64)) -> bool {
    disabled > bd || (disabled == bd && total > bt)
}

impl<'a> Planner<'a> {
    /// create_unique_path for a semijoin RHS (§5.3): the cheaper of sort+unique and hash
    /// aggregation on the RHS's join columns; None when it is unique already (no-op).
    pub(crate) fn unique_path(
        &self,
        b: &Block,
        rhs_path: &JPath,
        rhs: u64,
        cols: &[ColKey],
    ) -> JPath {
        let jc = &self.jc;
        let groups = super::selfuncs::estimate_num_groups(b, cols, rhs_path.rows);
        let ncols = cols.len() as f64;
        let input = rhs_path.input();
        let ((ss, st, cmps, spill), sort_dis) = self.sort_cost(input, -1.0);
        let sort_total = st + jc.cop() * ncols * rhs_path.rows;
        // create_unique_path: a hashed unique-ification is an Agg HASHED (enable_hashagg).
        let (hdc, hash_dis) = self.disable(self.opts.enable_hashagg);
        let (hs, ht, hspill) = costs::agg(
            jc,
            costs::AggStrategy::Hashed,
            &costs::AggCosts::default(),
            ncols,
            groups,
            input,
        );
        let (hs, ht) = (hs + hdc, ht + hdc);
        let _ = rhs;
        if hash_dis < sort_dis || (hash_dis == sort_dis && ht <= sort_total) {
            let work = Work {
                rows_examined: rhs_path.rows,
                comparisons: rhs_path.rows,
                rows_out: groups,
                spill_bytes: hspill * 8192.0,
                ..Work::default()
            };
            let node = Node::new(
                "HashAggregate",
                hs,
                ht,
                groups,
                rhs_path.width,
                work,
                std::iter::once(format!(
                    "Group Key: {}",
                    cols.iter()
                        .map(|c| c.col.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .chain(Self::disabled_line(hash_dis))
                .collect(),
                [rhs_path.node.clone()],
            );
            JPath {
                startup: hs,
                total: ht,
                rows: groups,
                width: rhs_path.width,
                pathkeys: PathKeys::new(),
                param: 0,
                rescan: Rescan::Same,
                node,
                param_ecs: SmallVec::new(),
                can_mark: false,
                disabled: rhs_path.disabled + hash_dis,
                pending: 0,
                workers: 0,
                safe: rhs_path.safe,
            }
        } else {
            let sort = Node::new(
                "Sort",
                ss,
                st,
                rhs_path.rows,
                rhs_path.width,
                Work {
                    comparisons: cmps,
                    spill_bytes: spill,
                    rows_out: rhs_path.rows,
                    ..Work::default()
                },
                Self::disabled_line(sort_dis).into_iter().collect(),
                [rhs_path.node.clone()],
            );
            let node = Node::new(
                "Unique",
                ss,
                sort_total,
                groups,
                rhs_path.width,
                Work {
                    comparisons: rhs_path.rows,
                    rows_out: groups,
                    ..Work::default()
                },
                Vec::new(),
                [sort],
            );
            JPath {
                startup: ss,
                total: sort_total,
                rows: groups,
                width: rhs_path.width,
                pathkeys: cols.iter().map(|c| pk_of(b, c)).collect(),
                param: 0,
                rescan: Rescan::Same,
                node,
                param_ecs: SmallVec::new(),
                can_mark: false,
                disabled: rhs_path.disabled + sort_dis,
                pending: 0,
                workers: 0,
                safe: rhs_path.safe,
            }
        }
    }
}
