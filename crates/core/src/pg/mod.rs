//! PostgreSQL's single-table planner costing (spec: shared/reference/postgresql-cost-model.md).
//!
//! [`plan`] builds every access path PostgreSQL would consider for one table (Seq Scan,
//! Index Scan, Index Only Scan, Bitmap Heap Scan, their parallel forms under Gather or
//! Gather Merge), puts Sort and Limit on top as the query needs, and picks the plan the
//! way add_path / set_cheapest do. Costs reproduce EXPLAIN to the cent; each node also
//! carries the physical [`Work`](crate::plan::Work) it implies, free of cost constants.
//!
//! Candidate keys (stable across knob sweeps for one query):
//! * access paths: `seq`, `index:NAME`, `indexonly:NAME`, `bitmap:NAME` (a BitmapAnd is
//!   `bitmap:A+B`), `gather-seq`, `gather-index:NAME`, `gather-indexonly:NAME`,
//!   `gather-bitmap:NAME`; with ORDER BY also `gather-merge-seq`, `gather-merge-index:NAME`,
//!   `gather-merge-bitmap:NAME` (Gather Merge over a sorted partial path);
//! * wrappers: `sort(X)` when X does not provide the ORDER BY, `limit(X)` for LIMIT,
//!   e.g. `limit(sort(bitmap:t_a_idx))`.
//!
//! Modelling choices (documented where they are made): IN lists are ScalarArrayOps
//! (linear below 9 constants, hashed from 9); get_actual_variable_range returns the
//! histogram ends when the column leads a btree; PostgreSQL 18 skip scan, incremental
//! sort, partial indexes and extended statistics are not modelled.

mod costsize;
mod explain;
mod inputs;
mod paths;
mod selfuncs;

#[cfg(test)]
mod tests;

pub use explain::{explain_node, explain_text};

use crate::catalog::Table;
use crate::error::{Error, Result};
use crate::knobs::{Engine, EngineVersion, KnobValues};
use crate::plan::{Candidate, Detail, KeyNames, Planned};
use crate::query::Query;
use std::borrow::Cow;

use costsize::{GatherMergeSite, ParallelParams, STD_FUZZ_FACTOR};
use inputs::{Consts, Rel};
use paths::{Ctx, IndexScan, Path};

/// Planner settings that are not cost constants (PostgreSQL GUCs).
#[derive(Clone, Debug, PartialEq)]
pub struct PgOptions {
    pub enable_seqscan: bool,
    pub enable_indexscan: bool,
    pub enable_indexonlyscan: bool,
    pub enable_bitmapscan: bool,
    pub enable_sort: bool,
    pub enable_gathermerge: bool,
    pub parallel_leader_participation: bool,
    /// min_parallel_table_scan_size in 8 kB pages.
    pub min_parallel_table_scan_size: f64,
    /// min_parallel_index_scan_size in 8 kB pages.
    pub min_parallel_index_scan_size: f64,
}

impl Default for PgOptions {
    fn default() -> Self {
        PgOptions {
            enable_seqscan: true,
            enable_indexscan: true,
            enable_indexonlyscan: true,
            enable_bitmapscan: true,
            enable_sort: true,
            enable_gathermerge: true,
            parallel_leader_participation: true,
            min_parallel_table_scan_size: 1024.0,
            min_parallel_index_scan_size: 64.0,
        }
    }
}

/// Plans `query` on `table` as PostgreSQL `version` would with the knob values.
/// Validates everything on each call; to plan one table many times, use [`Prepared`].
pub fn plan(
    table: &Table,
    query: &Query,
    knobs: &KnobValues,
    version: EngineVersion,
    options: &PgOptions,
) -> Result<Planned> {
    // The query is checked before the version and options, as it always was, so a call
    // with several problems reports the same one.
    table.validate()?;
    query.check(table)?;
    Prepared::validated(Cow::Borrowed(table), version, Cow::Borrowed(options))?.plan(query, knobs)
}

/// A table checked and digested once (statistics as pg_statistic stores them, heap and
/// index sizes), ready to plan any number of queries with any knob values. Sweeps use it:
/// validating the table and rebuilding its statistics at every point would cost more than
/// the planning itself. Planning through it gives exactly what [`plan`] gives.
pub struct Prepared<'t> {
    /// Borrowed, or owned by a prepared form that outlives its inputs.
    table: Cow<'t, Table>,
    version: EngineVersion,
    options: Cow<'t, PgOptions>,
    info: inputs::TableInfo,
    detail: Detail,
    keys: KeyNames,
}

impl<'t> Prepared<'t> {
    pub fn new(
        table: &'t Table,
        version: EngineVersion,
        options: &'t PgOptions,
    ) -> Result<Prepared<'t>> {
        table.validate()?;
        Prepared::validated(Cow::Borrowed(table), version, Cow::Borrowed(options))
    }

    /// [`Prepared::new`] taking ownership, for a holder that also owns the table.
    pub fn owned(
        table: Table,
        version: EngineVersion,
        options: PgOptions,
    ) -> Result<Prepared<'static>> {
        table.validate()?;
        Prepared::validated(Cow::Owned(table), version, Cow::Owned(options))
    }

    /// [`Prepared::new`] for a table that has passed `Table::validate`.
    fn validated(
        table: Cow<'t, Table>,
        version: EngineVersion,
        options: Cow<'t, PgOptions>,
    ) -> Result<Prepared<'t>> {
        if version.engine() != Engine::Postgres {
            return Err(Error::invalid(
                "version",
                format!("{} is not a PostgreSQL release", version.label()),
            ));
        }
        for (name, v) in [
            (
                "min_parallel_table_scan_size",
                options.min_parallel_table_scan_size,
            ),
            (
                "min_parallel_index_scan_size",
                options.min_parallel_index_scan_size,
            ),
        ] {
            crate::error::check_range(name, v, 0.0, (i32::MAX / 3) as f64)?;
        }
        let info = inputs::TableInfo::build(&table)?;
        Ok(Prepared {
            table,
            version,
            options,
            info,
            detail: Detail::Full,
            keys: KeyNames::default(),
        })
    }

    /// Sets how much EXPLAIN text the plans carry (default [`Detail::Full`]).
    pub fn with_detail(mut self, detail: Detail) -> Prepared<'t> {
        self.detail = detail;
        self
    }

    /// Plans `query` with the knob values.
    pub fn plan(&self, query: &Query, knobs: &KnobValues) -> Result<Planned> {
        query.check(&self.table)?;
        let consts = Consts::from_knobs(knobs)?;
        let rel = Rel::for_query(&self.info, &self.table, query)?;
        let ctx = Ctx {
            rel: &rel,
            c: &consts,
            version: self.version,
            opts: &self.options,
            par: ParallelParams {
                max_workers: consts.max_parallel_workers_per_gather,
                leader_participation: self.options.parallel_leader_participation,
                min_table_pages: self.options.min_parallel_table_scan_size,
                min_index_pages: self.options.min_parallel_index_scan_size,
            },
            detail: self.detail,
            keys: &self.keys,
        };
        Ok(Planner::new(&ctx).run())
    }
}

/// compare_path_costs_fuzzily's verdict.
#[derive(Clone, Copy, Debug, PartialEq)]
enum CostCmp {
    Equal,
    Better1,
    Better2,
    Different,
}

/// compare_path_costs_fuzzily (spec 9.1).
fn compare_fuzzily(p1: &Path, p2: &Path, fuzz: f64, consider_startup: bool) -> CostCmp {
    if p1.disabled != p2.disabled {
        return if p1.disabled < p2.disabled {
            CostCmp::Better1
        } else {
            CostCmp::Better2
        };
    }
    if p1.total() > p2.total() * fuzz {
        if consider_startup && p2.startup() > p1.startup() * fuzz {
            return CostCmp::Different;
        }
        return CostCmp::Better2;
    }
    if p2.total() > p1.total() * fuzz {
        if consider_startup && p1.startup() > p2.startup() * fuzz {
            return CostCmp::Different;
        }
        return CostCmp::Better1;
    }
    if p1.startup() > p2.startup() * fuzz {
        return CostCmp::Better2;
    }
    if p2.startup() > p1.startup() * fuzz {
        return CostCmp::Better1;
    }
    CostCmp::Equal
}

/// compare_pathkeys for single-table paths: a path either provides the query's order
/// or has no useful order.
#[derive(Clone, Copy, Debug, PartialEq)]
enum KeysCmp {
    Equal,
    Better1,
    Better2,
}

fn compare_keys(p1: &Path, p2: &Path) -> KeysCmp {
    match (p1.sorted, p2.sorted) {
        (true, false) => KeysCmp::Better1,
        (false, true) => KeysCmp::Better2,
        _ => KeysCmp::Equal,
    }
}

/// add_path (spec 9.1): keeps `list` free of dominated paths, sorted by
/// (disabled nodes, total cost).
fn add_path(list: &mut Vec<Path>, new: Path, consider_startup: bool) {
    let mut accept_new = true;
    let mut insert_at = 0;
    let mut i = 0;
    while i < list.len() {
        let old = &list[i];
        let mut remove_old = false;
        let costcmp = compare_fuzzily(&new, old, STD_FUZZ_FACTOR, consider_startup);
        if costcmp != CostCmp::Different {
            let keyscmp = compare_keys(&new, old);
            let new_safe = new.parallel_safe as u8;
            let old_safe = old.parallel_safe as u8;
            match costcmp {
                CostCmp::Equal => match keyscmp {
                    KeysCmp::Better1 => {
                        if new.rows <= old.rows && new_safe >= old_safe {
                            remove_old = true;
                        }
                    }
                    KeysCmp::Better2 => {
                        if new.rows >= old.rows && new_safe <= old_safe {
                            accept_new = false;
                        }
                    }
                    KeysCmp::Equal => {
                        if new_safe > old_safe {
                            remove_old = true;
                        } else if new_safe < old_safe {
                            accept_new = false;
                        } else if new.rows < old.rows {
                            remove_old = true;
                        } else if new.rows > old.rows {
                            accept_new = false;
                        } else if compare_fuzzily(&new, old, 1.0000000001, consider_startup)
                            == CostCmp::Better1
                        {
                            remove_old = true;
                        } else {
                            accept_new = false;
                        }
                    }
                },
                CostCmp::Better1 => {
                    if keyscmp != KeysCmp::Better2 && new.rows <= old.rows && new_safe >= old_safe {
                        remove_old = true;
                    }
                }
                CostCmp::Better2 => {
                    if keyscmp != KeysCmp::Better1 && new.rows >= old.rows && new_safe <= old_safe {
                        accept_new = false;
                    }
                }
                CostCmp::Different => {}
            }
        }
        if remove_old {
            list.remove(i);
            continue;
        }
        if new.disabled > old.disabled
            || (new.disabled == old.disabled && new.total() >= old.total())
        {
            insert_at = i + 1;
        }
        if !accept_new {
            return;
        }
        i += 1;
    }
    list.insert(insert_at.min(list.len()), new);
}

/// add_partial_path (spec 9.1): total cost and pathkeys only.
fn add_partial_path(list: &mut Vec<Path>, new: Path) {
    let mut accept_new = true;
    let mut insert_at = 0;
    let mut i = 0;
    while i < list.len() {
        let old = &list[i];
        let mut remove_old = false;
        let keyscmp = compare_keys(&new, old);
        if new.disabled != old.disabled {
            if new.disabled > old.disabled {
                accept_new = keyscmp == KeysCmp::Better1;
            } else {
                remove_old = keyscmp != KeysCmp::Better2;
            }
        } else if new.total() > old.total() * STD_FUZZ_FACTOR {
            if keyscmp != KeysCmp::Better1 {
                accept_new = false;
            }
        } else if old.total() > new.total() * STD_FUZZ_FACTOR {
            if keyscmp != KeysCmp::Better2 {
                remove_old = true;
            }
        } else if keyscmp == KeysCmp::Better1 {
            remove_old = true;
        } else if keyscmp == KeysCmp::Better2 {
            accept_new = false;
        } else if old.total() > new.total() * 1.0000000001 {
            remove_old = true;
        } else {
            accept_new = false;
        }
        if remove_old {
            list.remove(i);
            continue;
        }
        if new.total() >= old.total() {
            insert_at = i + 1;
        }
        if !accept_new {
            return;
        }
        i += 1;
    }
    list.insert(insert_at.min(list.len()), new);
}

/// set_cheapest's cheapest total path: disabled nodes, total, then startup cost.
fn cheapest_total(list: &[Path]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, p) in list.iter().enumerate() {
        best = match best {
            None => Some(i),
            Some(b) => {
                let q = &list[b];
                let key = |p: &Path| (p.disabled, p.total(), p.startup());
                let (pd, pt, ps) = key(p);
                let (qd, qt, qs) = key(q);
                let better = pd < qd
                    || (pd == qd
                        && (pt < qt
                            || (pt == qt && (ps < qs || (ps == qs && p.sorted && !q.sorted)))));
                if better {
                    Some(i)
                } else {
                    Some(b)
                }
            }
        };
    }
    best
}

struct Planner<'a> {
    ctx: &'a Ctx<'a, 'a>,
    scans: Vec<IndexScan>,
}

impl<'a> Planner<'a> {
    fn new(ctx: &'a Ctx<'a, 'a>) -> Self {
        let scans = (0..ctx.rel.indexes.len())
            .filter_map(|i| ctx.index_scan(i))
            .collect();
        Planner { ctx, scans }
    }

    fn has_order(&self) -> bool {
        !self.ctx.rel.pathkeys.is_empty()
    }

    fn consider_startup(&self) -> bool {
        self.ctx.rel.limit.is_some()
    }

    /// limit_tuples for sorts under a LIMIT (LIMIT 0 is planned as 1, spec 8.3).
    fn limit_tuples(&self) -> f64 {
        self.ctx.rel.limit.map(|l| l.max(1.0)).unwrap_or(-1.0)
    }

    /// choose_bitmap_and (spec 6.2) over the bitmap-eligible index paths: keep one path
    /// per distinct clause set, sort by bitmap node cost, grow AND groups greedily while
    /// the estimated heap-scan total drops, keep the cheapest group.
    fn choose_bitmap_and(&self) -> Vec<&IndexScan> {
        let mut cands: Vec<&IndexScan> = Vec::new();
        for s in self.scans.iter().filter(|s| self.ctx.bitmap_eligible(s)) {
            let mut ids = s.quals.clone();
            ids.sort_unstable();
            let dup = cands.iter().position(|o| {
                let mut oids = o.quals.clone();
                oids.sort_unstable();
                oids == ids
            });
            match dup {
                Some(k) => {
                    let ncost = self.ctx.bitmap_tree_cost(&[s]).0;
                    let ocost = self.ctx.bitmap_tree_cost(&[cands[k]]).0;
                    if ncost < ocost {
                        cands[k] = s;
                    }
                }
                None => cands.push(s),
            }
        }
        if cands.len() <= 1 {
            return cands;
        }
        cands.sort_by(|a, b| {
            let (ca, sa) = self.ctx.bitmap_tree_cost(&[a]);
            let (cb, sb) = self.ctx.bitmap_tree_cost(&[b]);
            ca.total_cmp(&cb).then(sa.total_cmp(&sb))
        });
        let mut best: Vec<&IndexScan> = Vec::new();
        let mut bestcost = f64::INFINITY;
        for i in 0..cands.len() {
            let mut group = vec![cands[i]];
            let mut costsofar = self.ctx.bitmap_cost_est(&group);
            let mut used: Vec<usize> = cands[i].quals.clone();
            for cand in cands.iter().skip(i + 1) {
                if cand.quals.iter().any(|q| used.contains(q)) {
                    continue;
                }
                group.push(cand);
                let newcost = self.ctx.bitmap_cost_est(&group);
                if newcost < costsofar {
                    costsofar = newcost;
                    used.extend(cand.quals.iter().copied());
                } else {
                    group.pop();
                }
            }
            if i == 0 || costsofar < bestcost {
                best = group;
                bestcost = costsofar;
            }
        }
        best
    }

    /// Wraps an access path for the query: Sort if it lacks the ORDER BY, then Limit.
    fn finish(&self, p: &Path) -> Path {
        let mut p = p.clone();
        if !p.sorted {
            p = self.ctx.sort(&p, self.limit_tuples());
        }
        if let Some(l) = self.ctx.rel.limit {
            p = self.ctx.limit(&p, l);
        }
        p
    }

    /// Gather Merge over a partial path, sorting it first when needed; `site` says which
    /// planner function builds it (it sets the row estimate in PG 15-17).
    fn gather_merge(
        &self,
        partial: &Path,
        limit_tuples: f64,
        site: GatherMergeSite,
    ) -> Option<Path> {
        if !self.ctx.opts.enable_gathermerge || !self.has_order() {
            return None;
        }
        let sorted = if partial.sorted {
            partial.clone()
        } else {
            self.ctx.sort(partial, limit_tuples)
        };
        Some(
            self.ctx
                .gather_merge(&sorted, partial.workers, &partial.key, site),
        )
    }

    fn run(&self) -> Planned {
        let ctx = self.ctx;
        let parallel = ctx.par.max_workers > 0;

        // Access paths, complete and partial (set_plain_rel_pathlist, create_index_paths).
        let seq_workers = if parallel {
            costsize::compute_parallel_worker(
                ctx.rel.pages,
                -1.0,
                ctx.par.max_workers,
                ctx.par.min_table_pages,
                ctx.par.min_index_pages,
            )
        } else {
            0
        };
        let mut complete = vec![ctx.seq_path(0)];
        let mut partial = Vec::new();
        if seq_workers > 0 {
            partial.push(ctx.seq_path(seq_workers));
        }
        for s in &self.scans {
            complete.extend(ctx.index_path(s, false));
            if parallel {
                partial.extend(ctx.index_path(s, true));
            }
        }
        let chosen_bitmap = self.choose_bitmap_and();
        let mut bitmap_display = Vec::new();
        let mut bitmap_partial_display = Vec::new();
        for s in self.scans.iter().filter(|s| ctx.bitmap_eligible(s)) {
            bitmap_display.extend(ctx.bitmap_path(&[s], false));
            if parallel {
                bitmap_partial_display.extend(ctx.bitmap_path(&[s], true));
            }
        }
        let mut chosen_bitmap_path = None;
        let mut chosen_bitmap_partial = None;
        if !chosen_bitmap.is_empty() {
            chosen_bitmap_path = ctx.bitmap_path(&chosen_bitmap, false);
            if parallel {
                chosen_bitmap_partial = ctx.bitmap_path(&chosen_bitmap, true);
            }
            if chosen_bitmap.len() > 1 {
                bitmap_display.extend(chosen_bitmap_path.clone());
                bitmap_partial_display.extend(chosen_bitmap_partial.clone());
            }
        }

        // What PostgreSQL keeps (add_path / add_partial_path), then Gather on top of the
        // cheapest partial path and Gather Merge over ordered ones
        // (generate_useful_gather_paths).
        let startup = self.consider_startup();
        let mut pathlist: Vec<Path> = Vec::new();
        for p in complete.iter().chain(chosen_bitmap_path.iter()) {
            add_path(&mut pathlist, p.clone(), startup);
        }
        let mut partial_list: Vec<Path> = Vec::new();
        for p in partial.iter().chain(chosen_bitmap_partial.iter()) {
            add_partial_path(&mut partial_list, p.clone());
        }
        if let Some(first) = partial_list.first() {
            add_path(&mut pathlist, ctx.gather(first), startup);
            if self.has_order() {
                for p in partial_list.iter().filter(|p| p.sorted) {
                    add_path(
                        &mut pathlist,
                        ctx.gather_merge(p, p.workers, &p.key, GatherMergeSite::ScanRel),
                        startup,
                    );
                }
                if !first.sorted {
                    if let Some(gm) = self.gather_merge(first, -1.0, GatherMergeSite::ScanRel) {
                        add_path(&mut pathlist, gm, startup);
                    }
                }
            }
        }

        // create_ordered_paths: presorted paths as they are, the cheapest total sorted,
        // and Gather Merge over the sorted cheapest partial path (its rows in PG 15-17:
        // partial rows x parallel_workers, see GatherMergeSite::Ordered).
        let mut current = pathlist;
        if self.has_order() {
            let cheapest = cheapest_total(&current);
            let mut ordered = Vec::new();
            for (i, p) in current.iter().enumerate() {
                if p.sorted {
                    add_path(&mut ordered, p.clone(), startup);
                } else if Some(i) == cheapest {
                    add_path(&mut ordered, ctx.sort(p, self.limit_tuples()), startup);
                }
            }
            if let Some(first) = partial_list.first() {
                if !first.sorted {
                    if let Some(gm) =
                        self.gather_merge(first, self.limit_tuples(), GatherMergeSite::Ordered)
                    {
                        add_path(&mut ordered, gm, startup);
                    }
                }
            }
            current = ordered;
        }
        if let Some(l) = ctx.rel.limit {
            let mut limited = Vec::new();
            for p in &current {
                add_path(&mut limited, ctx.limit(p, l), startup);
            }
            current = limited;
        }
        let winner = cheapest_total(&current).map(|i| current[i].clone());

        // Candidates shown: every access path made ready for the query.
        let mut shown: Vec<Path> = Vec::new();
        for p in complete.iter().chain(bitmap_display.iter()) {
            shown.push(self.finish(p));
        }
        for p in partial.iter().chain(bitmap_partial_display.iter()) {
            shown.push(self.finish(&ctx.gather(p)));
            // Presorted partial paths get their Gather Merge in generate_gather_paths; an
            // unsorted one is sorted and gathered in create_ordered_paths.
            let site = if p.sorted {
                GatherMergeSite::ScanRel
            } else {
                GatherMergeSite::Ordered
            };
            if let Some(gm) = self.gather_merge(p, self.limit_tuples(), site) {
                shown.push(self.finish(&gm));
            }
        }
        let mut candidates: Vec<Candidate> = Vec::new();
        for p in shown {
            if !candidates.iter().any(|c| c.key == p.key) {
                candidates.push(Candidate {
                    key: p.key,
                    plan: p.node,
                });
            }
        }
        let chosen = match winner {
            Some(w) => match candidates.iter().position(|c| c.key == w.key) {
                Some(i) => {
                    candidates[i].plan = w.node;
                    i
                }
                None => {
                    candidates.push(Candidate {
                        key: w.key,
                        plan: w.node,
                    });
                    candidates.len() - 1
                }
            },
            None => 0,
        };
        Planned { candidates, chosen }
    }
}
