//! PostgreSQL's single-table planner costing (spec: shared/reference/postgresql-cost-model.md).
//!
//! [`plan`] builds every access path PostgreSQL would consider for one table (Seq Scan,
//! Index Scan, Index Only Scan, Bitmap Heap Scan, their parallel forms under Gather or
//! Gather Merge), puts Sort and Limit on top as the query needs, and picks the plan the
//! way add_path / set_cheapest do. Costs reproduce EXPLAIN to the cent; each node also
//! carries the physical [`Work`](costlab_model::plan::Work) it implies, free of cost constants.
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

pub mod analyze;
pub(crate) mod costsize;
mod explain;
pub mod join;
#[cfg(test)]
mod join_tests;
pub(crate) mod pathnodes;
pub(crate) mod paths;
mod plancat;
pub(crate) mod selfuncs;
mod settings;

#[cfg(test)]
mod tests;

pub use explain::{explain_node, explain_text};

/// EXPLAIN's text of restriction clauses `ids` of a relation (for the join planner).
pub(crate) fn explain_cond(rel: &pathnodes::Rel, ids: &[usize]) -> String {
    explain::cond_text(rel, ids)
}

use costlab_model::catalog::Table;
use costlab_model::error::{Error, Result};
use costlab_model::knobs::{Engine, EngineVersion, KnobValues};
use costlab_model::plan::{Candidate, Detail, KeyNames, Planned};
use costlab_model::query::Query;
use std::borrow::Cow;

use costsize::{GatherMergeSite, ParallelParams, STD_FUZZ_FACTOR};
use pathnodes::{Consts, Rel};

use paths::{Ctx, IndexScan, Path};
pub use settings::PgOptions;

/// The heap's size as the planner estimates it (`estimate_rel_size`, spec 2.1): pages
/// (10 for a never-vacuumed heap of fewer pages) and tuples (the stored density, or the
/// column widths' when the table was never analysed).
pub fn estimate_rel_size(table: &Table) -> Result<(f64, f64)> {
    let info = pathnodes::TableInfo::build(table)?;
    Ok((info.pages, info.tuples))
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
    info: pathnodes::TableInfo,
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
            costlab_model::error::check_range(name, v, 0.0, (i32::MAX / 3) as f64)?;
        }
        let info = pathnodes::TableInfo::build(&table)?;
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
        query.check_with(&self.table, |name| self.info.names.position(name).is_some())?;
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
/// (disabled nodes, total cost). Lists hold references: the paths live in the planner's
/// own vectors, so keeping or dropping one never copies its plan.
fn add_path<'p>(list: &mut Vec<&'p Path>, new: &'p Path, consider_startup: bool) {
    let mut accept_new = true;
    let mut insert_at = 0;
    let mut i = 0;
    while i < list.len() {
        let old = list[i];
        let mut remove_old = false;
        let costcmp = compare_fuzzily(new, old, STD_FUZZ_FACTOR, consider_startup);
        if costcmp != CostCmp::Different {
            let keyscmp = compare_keys(new, old);
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
                        } else if compare_fuzzily(new, old, 1.0000000001, consider_startup)
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

/// add_partial_path (spec 9.1): total cost and pathkeys only; references as in
/// [`add_path`].
fn add_partial_path<'p>(list: &mut Vec<&'p Path>, new: &'p Path) {
    let mut accept_new = true;
    let mut insert_at = 0;
    let mut i = 0;
    while i < list.len() {
        let old = list[i];
        let mut remove_old = false;
        let keyscmp = compare_keys(new, old);
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
fn cheapest_total(list: &[&Path]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, p) in list.iter().enumerate() {
        best = match best {
            None => Some(i),
            Some(b) => {
                let q = list[b];
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

pub(crate) struct Planner<'a> {
    ctx: &'a Ctx<'a, 'a>,
    scans: Vec<IndexScan>,
}

impl<'a> Planner<'a> {
    pub(crate) fn new(ctx: &'a Ctx<'a, 'a>) -> Self {
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
    pub(crate) fn choose_bitmap_and(&self) -> Vec<&IndexScan> {
        let mut cands: Vec<&IndexScan> = Vec::new();
        for s in self.scans.iter().filter(|s| self.ctx.bitmap_eligible(s)) {
            // The same clause set: each clause is an index qual at most once per scan, so
            // equal lengths and inclusion decide it (no sorted copies needed).
            let dup = cands.iter().position(|o| {
                o.quals.len() == s.quals.len() && o.quals.iter().all(|q| s.quals.contains(q))
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
        costlab_model::sort::sort_by(&mut cands, |a, b| {
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
    /// A path that needs neither comes back as it is.
    fn finish(&self, mut p: Path) -> Path {
        if !p.sorted {
            p = self.ctx.sort(p, self.limit_tuples());
        }
        if let Some(l) = self.ctx.rel.limit {
            p = self.ctx.limit(p, l);
        }
        p
    }

    /// Gather Merge over a partial path, sorting it first when needed; `site` says which
    /// planner function builds it (it sets the row estimate in PG 15-17). Builds on a copy:
    /// the partial path is still needed by its caller.
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
            self.ctx.sort(partial.clone(), limit_tuples)
        };
        Some(
            self.ctx
                .gather_merge(sorted, partial.workers, &partial.key, site),
        )
    }

    /// Builds every path, lets add_path and set_cheapest choose, and returns the
    /// candidates with the choice.
    ///
    /// Paths are built once, into `complete` and `partials`; the choice works on
    /// references to them, and the candidates then take them apart. Only the paths built
    /// for the choice alone (Sort, Limit, Gather Merge on top of others) are copies: a
    /// sweep plans at every point, and copying plans was most of its time.
    fn run(&self) -> Planned {
        let ctx = self.ctx;
        let parallel = ctx.par.max_workers > 0;

        // Access paths, complete and partial (set_plain_rel_pathlist, create_index_paths),
        // in the order the candidates show them: plain scans, then a bitmap heap scan per
        // eligible index, then the BitmapAnd choose_bitmap_and picked if it has several
        // indexes.
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
        // Room for every path up front: growing the lists would move the paths again.
        let most = 2 * self.scans.len() + 2;
        let mut complete = Vec::with_capacity(most);
        complete.push(ctx.seq_path(0));
        let mut partials = Vec::with_capacity(most);
        if seq_workers > 0 {
            partials.push(ctx.seq_path(seq_workers));
        }
        for s in &self.scans {
            complete.extend(ctx.index_path(s, false));
            if parallel {
                partials.extend(ctx.index_path(s, true));
            }
        }
        let (plain, plain_partial) = (complete.len(), partials.len());

        // The bitmap path add_path compares (where it sits in `complete` / `partials`):
        // for one index, that index's own bitmap path, the same path shown.
        let chosen_bitmap = self.choose_bitmap_and();
        let single = match chosen_bitmap[..] {
            [s] => Some(s),
            _ => None,
        };
        let mut chosen_at = None;
        let mut chosen_partial_at = None;
        for s in self.scans.iter().filter(|s| ctx.bitmap_eligible(s)) {
            let is_chosen = single.is_some_and(|c| std::ptr::eq(c, s));
            if let Some(p) = ctx.bitmap_path(&[s], false) {
                if is_chosen {
                    chosen_at = Some(complete.len());
                }
                complete.push(p);
            }
            if parallel {
                if let Some(p) = ctx.bitmap_path(&[s], true) {
                    if is_chosen {
                        chosen_partial_at = Some(partials.len());
                    }
                    partials.push(p);
                }
            }
        }
        if chosen_bitmap.len() > 1 {
            if let Some(p) = ctx.bitmap_path(&chosen_bitmap, false) {
                chosen_at = Some(complete.len());
                complete.push(p);
            }
            if parallel {
                if let Some(p) = ctx.bitmap_path(&chosen_bitmap, true) {
                    chosen_partial_at = Some(partials.len());
                    partials.push(p);
                }
            }
        }

        // What PostgreSQL keeps (add_path / add_partial_path), then Gather on top of the
        // cheapest partial path and Gather Merge over ordered ones
        // (generate_useful_gather_paths).
        let startup = self.consider_startup();
        let mut pathlist: Vec<&Path> = Vec::new();
        for p in complete[..plain]
            .iter()
            .chain(chosen_at.map(|i| &complete[i]))
        {
            add_path(&mut pathlist, p, startup);
        }
        let mut partial_list: Vec<&Path> = Vec::new();
        for p in partials[..plain_partial]
            .iter()
            .chain(chosen_partial_at.map(|i| &partials[i]))
        {
            add_partial_path(&mut partial_list, p);
        }
        let first = partial_list.first().copied();
        // The Gather over the cheapest partial path is also a candidate: found by position,
        // it is built once below with the others.
        let first_at = first.map(|f| {
            partials
                .iter()
                .position(|p| std::ptr::eq(p, f))
                .expect("add_partial_path lists paths of `partials`")
        });
        // Gather Merge paths (ORDER BY only), built from copies while the partial paths
        // are whole: those add_path compares, the one create_ordered_paths adds, and one
        // per partial path for the candidates.
        let mut gather_merges: Vec<Path> = Vec::new();
        let mut ordered_gm = None;
        let mut shown_gm: Vec<Option<Path>> = Vec::new();
        if let (Some(first), true) = (first, self.has_order()) {
            for p in partial_list.iter().filter(|p| p.sorted) {
                gather_merges.push(ctx.gather_merge(
                    (*p).clone(),
                    p.workers,
                    &p.key,
                    GatherMergeSite::ScanRel,
                ));
            }
            if !first.sorted {
                gather_merges.extend(self.gather_merge(first, -1.0, GatherMergeSite::ScanRel));
                ordered_gm =
                    self.gather_merge(first, self.limit_tuples(), GatherMergeSite::Ordered);
            }
        }
        if self.has_order() {
            // Presorted partial paths get their Gather Merge in generate_gather_paths; an
            // unsorted one is sorted and gathered in create_ordered_paths.
            shown_gm = partials
                .iter()
                .map(|p| {
                    let site = if p.sorted {
                        GatherMergeSite::ScanRel
                    } else {
                        GatherMergeSite::Ordered
                    };
                    self.gather_merge(p, self.limit_tuples(), site)
                })
                .collect();
        }
        let gathers: Vec<Path> = partials.into_iter().map(|p| ctx.gather(p)).collect();
        if let Some(i) = first_at {
            add_path(&mut pathlist, &gathers[i], startup);
            for gm in &gather_merges {
                add_path(&mut pathlist, gm, startup);
            }
        }

        // create_ordered_paths: presorted paths as they are, the cheapest total sorted,
        // and Gather Merge over the sorted cheapest partial path (its rows in PG 15-17:
        // partial rows x parallel_workers, see GatherMergeSite::Ordered).
        let mut current = pathlist;
        let sorted_cheapest;
        if self.has_order() {
            let cheapest = cheapest_total(&current);
            sorted_cheapest = cheapest.map(|i| ctx.sort(current[i].clone(), self.limit_tuples()));
            let mut ordered = Vec::new();
            for (i, p) in current.iter().enumerate() {
                if p.sorted {
                    add_path(&mut ordered, p, startup);
                } else if Some(i) == cheapest {
                    if let Some(sorted) = &sorted_cheapest {
                        add_path(&mut ordered, sorted, startup);
                    }
                }
            }
            if let Some(gm) = &ordered_gm {
                add_path(&mut ordered, gm, startup);
            }
            current = ordered;
        }
        let limited: Vec<Path>;
        if let Some(l) = ctx.rel.limit {
            limited = current.iter().map(|p| ctx.limit((*p).clone(), l)).collect();
            let mut list = Vec::new();
            for p in &limited {
                add_path(&mut list, p, startup);
            }
            current = list;
        }

        // The plan chosen. A path that needs no Sort or Limit on top is shown as it is, so
        // its candidate is simply marked; any other is copied before the paths are taken
        // apart, and its plan replaces the one shown under its key.
        let winner = cheapest_total(&current).map(|i| {
            let w = current[i];
            let at = |arena: &[Path]| arena.iter().position(|p| std::ptr::eq(p, w));
            let shown_as_is = w.sorted && ctx.rel.limit.is_none();
            match (shown_as_is, at(&complete), at(&gathers)) {
                (true, Some(i), _) => Winner::Complete(i),
                (true, None, Some(i)) => Winner::Gathered(i),
                _ => Winner::Built(w.clone()),
            }
        });

        // Candidates: every access path made ready for the query, one per key (the first
        // shown); the chosen plan is the one under its key.
        let mut candidates: Vec<Candidate> =
            Vec::with_capacity(complete.len() + gathers.len() + shown_gm.len());
        let mut chosen = None;
        for (i, p) in complete.into_iter().enumerate() {
            let is_winner = matches!(winner, Some(Winner::Complete(w)) if w == i);
            show(&mut candidates, &mut chosen, self.finish(p), is_winner);
        }
        let mut shown_gm = shown_gm.into_iter();
        for (i, g) in gathers.into_iter().enumerate() {
            let is_winner = matches!(winner, Some(Winner::Gathered(w)) if w == i);
            show(&mut candidates, &mut chosen, self.finish(g), is_winner);
            if let Some(gm) = shown_gm.next().flatten() {
                show(&mut candidates, &mut chosen, self.finish(gm), false);
            }
        }
        if let Some(Winner::Built(w)) = winner {
            let same_key = candidates.iter().position(|c| c.key == w.key);
            chosen = Some(put_chosen(&mut candidates, same_key, w));
        }
        Planned {
            candidates,
            chosen: chosen.unwrap_or(0),
        }
    }
}

/// Where the chosen plan comes from once the path lists are done with.
enum Winner {
    /// `complete[i]`, which the candidates show as it is.
    Complete(usize),
    /// `gathers[i]`, likewise.
    Gathered(usize),
    /// A path built for the choice (a Sort, Limit or Gather Merge on top of another).
    Built(Path),
}

/// Adds a path to the candidates unless one with its key is there already; the chosen
/// path's plan goes under its key either way, and `chosen` says where.
/// Inlined into [`Planner::run`]: the plan then goes from its box to the list in one copy.
#[inline]
fn show(candidates: &mut Vec<Candidate>, chosen: &mut Option<usize>, p: Path, is_winner: bool) {
    let same_key = candidates.iter().position(|c| c.key == p.key);
    if is_winner {
        *chosen = Some(put_chosen(candidates, same_key, p));
    } else if same_key.is_none() {
        candidates.push(Candidate {
            key: p.key,
            plan: *p.node,
        });
    }
}

/// Puts the chosen path's plan under its key: over the candidate already shown with that
/// key (at `same_key`), else as a new candidate. Returns its position.
/// Inlined like [`show`].
#[inline]
fn put_chosen(candidates: &mut Vec<Candidate>, same_key: Option<usize>, p: Path) -> usize {
    match same_key {
        Some(i) => {
            candidates[i].plan = *p.node;
            i
        }
        None => {
            candidates.push(Candidate {
                key: p.key,
                plan: *p.node,
            });
            candidates.len() - 1
        }
    }
}
