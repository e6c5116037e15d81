//! Regret: time lost because the optimizer picked a plan that is not the fastest on this
//! machine, over a sweep of queries, and the cost constants that minimise it.
//!
//! Each candidate's time depends only on its work, never on a cost constant, so it is
//! computed once per sweep point; only the *choice* moves with the constants.
//!
//! **Fitting one constant** ([`fit_one`]) is exact, not sampled: every cost both engines
//! compute is affine in any single cost constant (`cost = a + b·c`), so each point is
//! planned at the two ends of the range and once in the middle to check affinity and
//! that the engine picks the cheapest candidate there. The lower envelope of the
//! candidates' lines then gives, per point, the intervals of `c` on which each plan is
//! chosen; regret is constant on each, and a sweep over all the change points gives the
//! total regret as a step function over the whole range. A point that fails either check
//! (a cost that is a `min` of two affine pieces, a choice rule other than "cheapest") is
//! planned on a log grid with every change located by bisection ([`costlab_model::sweep`]).
//! Between checked values the choice is taken to be the cheapest candidate by total cost;
//! PostgreSQL's 1 % fuzzy comparison near a crossover is thereby ignored.
//!
//! **Fitting a pair** ([`fit_two`]) uses the same affine models (`a + b·x + c·y`, checked
//! at two extra corners) on a log grid refined twice around the best cell.

use costlab_model::error::{Error, Result};
use costlab_model::knobs::{Engine, EngineVersion};
use costlab_model::knobs::{Knob, KnobValues};
use costlab_model::plan::Detail;
use costlab_model::plan::Planned;
use costlab_model::sweep::{self, Spacing};
use costlab_pg::PgOptions;
use costlab_sim::Simulator;
use costlab_workload::rpc_seed;
use serde::Serialize;

/// One sweep point: the plan the engine picks, the fastest plan, the time lost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RegretPoint {
    pub x: f64,
    pub chosen: String,
    pub chosen_s: f64,
    pub best: String,
    pub best_s: f64,
    /// chosen_s − best_s (≥ 0).
    pub regret_s: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RegretSweep {
    pub points: Vec<RegretPoint>,
    pub total_regret_s: f64,
    pub total_chosen_s: f64,
    pub total_best_s: f64,
}

/// Simulated seconds of every candidate of `planned`, in candidate order.
pub fn candidate_times(sim: &Simulator, planned: &Planned) -> Result<Vec<f64>> {
    planned
        .candidates
        .iter()
        .map(|c| Ok(sim.time_plan(&c.plan)?.total_s))
        .collect()
}

fn fastest(times: &[f64]) -> usize {
    let mut best = 0;
    for (i, t) in times.iter().enumerate() {
        if *t < times[best] {
            best = i;
        }
    }
    best
}

/// Plans `plan(x)` at every `x` with fixed constants and compares the chosen plan's
/// simulated time with the fastest candidate's.
pub fn regret_sweep<F>(sim: &Simulator, xs: &[f64], mut plan: F) -> Result<RegretSweep>
where
    F: FnMut(f64) -> Result<Planned>,
{
    let mut points = Vec::with_capacity(xs.len());
    for &x in xs {
        let p = plan(x)?;
        if p.candidates.is_empty() || p.chosen >= p.candidates.len() {
            return Err(Error::invalid(
                "plan",
                format!("no chosen candidate at {x}"),
            ));
        }
        let times = candidate_times(sim, &p)?;
        let b = fastest(&times);
        points.push(RegretPoint {
            x,
            chosen: p.chosen().key.to_string(),
            chosen_s: times[p.chosen],
            best: p.candidates[b].key.to_string(),
            best_s: times[b],
            regret_s: times[p.chosen] - times[b],
        });
    }
    Ok(RegretSweep {
        total_regret_s: points.iter().map(|p| p.regret_s).sum(),
        total_chosen_s: points.iter().map(|p| p.chosen_s).sum(),
        total_best_s: points.iter().map(|p| p.best_s).sum(),
        points,
    })
}

/// Total regret on `[lo, hi)` of the constant.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RegretStep {
    pub lo: f64,
    pub hi: f64,
    pub total_regret_s: f64,
}

/// The value of one constant that minimises total regret over a workload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit1 {
    #[serde(skip)]
    pub knob: Knob,
    /// The knob's parameter name.
    pub name: &'static str,
    /// Geometric middle of `best_interval`.
    pub best: f64,
    /// The (widest, in log terms) interval on which total regret is minimal.
    pub best_interval: (f64, f64),
    pub best_total_regret_s: f64,
    /// Total regret as a step function over the searched range, ascending.
    pub steps: Vec<RegretStep>,
    /// Points that needed planning on a grid (not affine, or not "cheapest wins").
    pub grid_points: usize,
}

impl Fit1 {
    /// Total regret at value `c` of the constant.
    pub fn regret_at(&self, c: f64) -> f64 {
        let i = self.steps.partition_point(|s| s.hi <= c);
        self.steps
            .get(i.min(self.steps.len().saturating_sub(1)))
            .map(|s| s.total_regret_s)
            .unwrap_or(0.0)
    }

    /// Steps overlapping `[best / span, best * span]`: the regret curve around the optimum.
    pub fn curve_around(&self, span: f64) -> Vec<RegretStep> {
        let (lo, hi) = (self.best / span.max(1.0), self.best * span.max(1.0));
        self.steps
            .iter()
            .filter(|s| s.hi > lo && s.lo < hi)
            .copied()
            .collect()
    }
}

/// Per point, the regret as a step function of the constant: change points and the
/// regret from each change point on (first entry starts at the range's low end).
struct PointSteps {
    starts: Vec<f64>,
    regret: Vec<f64>,
}

/// A candidate's cost as an affine function of the constants being fitted.
#[derive(Clone, Debug)]
struct Line {
    a: f64,
    b: f64,
    c: f64,
}

impl Line {
    fn at(&self, x: f64, y: f64) -> f64 {
        self.a + self.b * x + self.c * y
    }
}

fn with(base: &KnobValues, knob: Knob, v: f64) -> Result<KnobValues> {
    let mut k = base.clone();
    k.set(knob, v)?;
    Ok(k)
}

fn close(pred: f64, actual: f64) -> bool {
    (pred - actual).abs() <= 1e-7 * actual.abs().max(1e-6)
}

/// Cheapest by line value; ties go to `prefer`, then to the lowest index.
fn cheapest(lines: &[Line], x: f64, y: f64, prefer: usize) -> usize {
    let mut best = prefer.min(lines.len() - 1);
    let mut best_v = lines[best].at(x, y);
    for (i, l) in lines.iter().enumerate() {
        let v = l.at(x, y);
        let tie = (v - best_v).abs() <= 1e-12 * best_v.abs().max(1e-12);
        if v < best_v && !tie {
            best = i;
            best_v = v;
        }
    }
    best
}

/// Keys of `p` and their total costs, in candidate order.
fn costs_by_key(p: &Planned) -> Vec<(&str, f64)> {
    p.candidates
        .iter()
        .map(|c| (c.key.as_str(), c.plan.cost.total))
        .collect()
}

fn cost_of(p: &Planned, key: &str) -> Option<f64> {
    p.find(key).map(|c| c.plan.cost.total)
}

fn check_range_for(knob: Knob, range: Option<(f64, f64)>) -> Result<(f64, f64)> {
    let d = knob.def();
    let (lo, hi) = range.unwrap_or((d.min, d.max));
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && lo < hi) {
        return Err(Error::invalid(
            format!("fit range of {}", d.name),
            format!("{lo} to {hi} is not an increasing positive range"),
        ));
    }
    d.validate(lo)?;
    d.validate(hi)?;
    Ok((lo, hi))
}

/// Fits one cost constant: the value in `range` (default: the knob's range) that
/// minimises the total regret of `plan(point, knobs)` over `points`.
pub fn fit_one<F>(
    sim: &Simulator,
    points: &[f64],
    knob: Knob,
    base: &KnobValues,
    range: Option<(f64, f64)>,
    mut plan: F,
) -> Result<Fit1>
where
    F: FnMut(f64, &KnobValues) -> Result<Planned>,
{
    let (lo, hi) = check_range_for(knob, range)?;
    if points.is_empty() {
        return Err(Error::invalid("fit points", "need at least one point"));
    }
    let mid = (lo * hi).sqrt();
    let (k_lo, k_mid, k_hi) = (
        with(base, knob, lo)?,
        with(base, knob, mid)?,
        with(base, knob, hi)?,
    );
    let mut per_point = Vec::with_capacity(points.len());
    let mut grid_points = 0;
    for &x in points {
        let p_mid = plan(x, &k_mid)?;
        let times = candidate_times(sim, &p_mid)?;
        let p_lo = plan(x, &k_lo)?;
        let p_hi = plan(x, &k_hi)?;
        match affine_steps(&p_lo, &p_mid, &p_hi, lo, mid, hi, &times) {
            Some(s) => per_point.push(s),
            None => {
                grid_points += 1;
                per_point.push(grid_steps(
                    sim,
                    &mut |v| plan(x, &with(base, knob, v)?),
                    lo,
                    hi,
                )?);
            }
        }
    }
    Ok(combine(knob, lo, hi, &per_point, grid_points))
}

/// The lower envelope of the candidates' cost lines on `[lo, hi]`, if every cost is
/// affine in the constant and the engine picks the cheapest at the three planned values.
#[allow(clippy::too_many_arguments)]
fn affine_steps(
    p_lo: &Planned,
    p_mid: &Planned,
    p_hi: &Planned,
    lo: f64,
    mid: f64,
    hi: f64,
    times: &[f64],
) -> Option<PointSteps> {
    let keys = costs_by_key(p_mid);
    if p_lo.candidates.len() != keys.len() || p_hi.candidates.len() != keys.len() {
        return None;
    }
    let mut lines = Vec::with_capacity(keys.len());
    for (key, c_mid) in &keys {
        let (c_lo, c_hi) = (cost_of(p_lo, key)?, cost_of(p_hi, key)?);
        let b = (c_hi - c_lo) / (hi - lo);
        let a = c_lo - b * lo;
        if !close(a + b * mid, *c_mid) || !a.is_finite() || !b.is_finite() {
            return None;
        }
        lines.push(Line { a, b, c: 0.0 });
    }
    // The engine's choice must be the cheapest at each planned value.
    let idx = |p: &Planned| keys.iter().position(|(k, _)| *k == p.chosen().key);
    let (ch_lo, ch_mid, ch_hi) = (idx(p_lo)?, idx(p_mid)?, idx(p_hi)?);
    for (v, ch) in [(lo, ch_lo), (mid, ch_mid), (hi, ch_hi)] {
        let c = cheapest(&lines, v, 0.0, ch);
        if c != ch {
            return None;
        }
    }
    let best_t = times[fastest(times)];
    // Walk the lower envelope from lo.
    let mut starts = vec![lo];
    let mut cur = cheapest(&lines, lo, 0.0, ch_lo);
    let mut regret = vec![times[cur] - best_t];
    let mut at = lo;
    loop {
        let mut next: Option<(f64, usize)> = None;
        for (j, l) in lines.iter().enumerate() {
            let lc = &lines[cur];
            if j == cur || l.b >= lc.b {
                continue;
            }
            let x = (l.a - lc.a) / (lc.b - l.b);
            if x > at && x < hi && next.is_none_or(|(nx, _)| x < nx) {
                next = Some((x, j));
            }
        }
        match next {
            Some((x, _)) => {
                // Past a crossing the envelope follows the flattest of the lines that meet
                // there (several may cross at one point).
                let v = lines[cur].at(x, 0.0);
                let tol = 1e-9 * v.abs().max(1e-9);
                let j = (0..lines.len())
                    .filter(|&j| (lines[j].at(x, 0.0) - v).abs() <= tol)
                    .min_by(|&a, &b| lines[a].b.total_cmp(&lines[b].b))
                    .unwrap_or(cur);
                at = x;
                if j == cur {
                    continue;
                }
                cur = j;
                starts.push(x);
                regret.push(times[cur] - best_t);
            }
            None => break,
        }
    }
    Some(PointSteps { starts, regret })
}

/// Regret steps of one point by planning on a log grid and bisecting every change.
fn grid_steps(
    sim: &Simulator,
    plan: &mut dyn FnMut(f64) -> Result<Planned>,
    lo: f64,
    hi: f64,
) -> Result<PointSteps> {
    let mut times: Vec<(String, f64)> = Vec::new();
    let mut best_t = f64::INFINITY;
    let mut first_key = None;
    let mut err = None;
    let s = sweep::sweep(
        |v| {
            let p = plan(v)?;
            for c in &p.candidates {
                if !times.iter().any(|(k, _)| *k == c.key) {
                    match sim.time_plan(&c.plan) {
                        Ok(t) => {
                            best_t = best_t.min(t.total_s);
                            times.push((c.key.to_string(), t.total_s));
                        }
                        Err(e) => err = Some(e),
                    }
                }
            }
            if first_key.is_none() {
                first_key = Some(p.chosen().key.clone());
            }
            Ok(p)
        },
        lo,
        hi,
        GRID,
        Spacing::Log,
    )?;
    if let Some(e) = err {
        return Err(e);
    }
    let t_of = |k: &str| {
        times
            .iter()
            .find(|(key, _)| key == k)
            .map(|t| t.1)
            .unwrap_or(f64::INFINITY)
    };
    let first = s.points[0].chosen.clone();
    let mut starts = vec![lo];
    let mut regret = vec![t_of(&first) - best_t];
    for c in &s.crossovers {
        starts.push(c.x);
        regret.push(t_of(&c.to) - best_t);
    }
    Ok(PointSteps { starts, regret })
}

/// Grid size of the fallback and of each level of [`fit_two`].
const GRID: usize = 33;

/// Sums per-point step functions into the total and finds its minimum.
fn combine(knob: Knob, lo: f64, hi: f64, per_point: &[PointSteps], grid_points: usize) -> Fit1 {
    let mut events: Vec<(f64, f64)> = Vec::new();
    let mut base = 0.0;
    for p in per_point {
        base += p.regret[0];
        for i in 1..p.starts.len() {
            events.push((p.starts[i], p.regret[i] - p.regret[i - 1]));
        }
    }
    costlab_model::sort::sort_by(&mut events, |a, b| a.0.total_cmp(&b.0));
    let mut steps = Vec::new();
    let mut cur = base;
    let mut at = lo;
    let mut i = 0;
    while i < events.len() {
        let x = events[i].0;
        if x > at {
            steps.push(RegretStep {
                lo: at,
                hi: x,
                total_regret_s: cur.max(0.0),
            });
            at = x;
        }
        while i < events.len() && events[i].0 == x {
            cur += events[i].1;
            i += 1;
        }
    }
    steps.push(RegretStep {
        lo: at,
        hi,
        total_regret_s: cur.max(0.0),
    });
    // Merge equal neighbours, then pick the minimum (widest in log terms on ties).
    let mut merged: Vec<RegretStep> = Vec::new();
    for s in steps {
        match merged.last_mut() {
            Some(m)
                if (m.total_regret_s - s.total_regret_s).abs()
                    <= 1e-9 * s.total_regret_s.max(1e-9) =>
            {
                m.hi = s.hi
            }
            _ => merged.push(s),
        }
    }
    let min = merged
        .iter()
        .map(|s| s.total_regret_s)
        .fold(f64::INFINITY, f64::min);
    let best = merged
        .iter()
        .filter(|s| s.total_regret_s <= min * (1.0 + 1e-9) + 1e-12)
        .max_by(|a, b| (a.hi / a.lo).total_cmp(&(b.hi / b.lo)))
        .copied()
        .unwrap_or(RegretStep {
            lo,
            hi,
            total_regret_s: 0.0,
        });
    Fit1 {
        knob,
        name: knob.def().name,
        best: (best.lo * best.hi).sqrt(),
        best_interval: (best.lo, best.hi),
        best_total_regret_s: best.total_regret_s,
        steps: merged,
        grid_points,
    }
}

/// One value of the pair grid.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct GridValue {
    pub x: f64,
    pub y: f64,
    pub total_regret_s: f64,
}

/// The pair of constants that minimises total regret, with the finest grid around it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit2 {
    #[serde(skip)]
    pub knobs: (Knob, Knob),
    pub names: (&'static str, &'static str),
    pub best: (f64, f64),
    pub best_total_regret_s: f64,
    /// The last (finest) grid, row-major in y then x: the regret surface around the optimum.
    pub grid: Vec<GridValue>,
    /// The first grid over the whole ranges.
    pub coarse: Vec<GridValue>,
    pub grid_points: usize,
}

/// Per point: the candidates' cost planes and times, or None to plan at every grid value.
struct PlanePoint {
    x: f64,
    lines: Option<Vec<Line>>,
    prefer: usize,
    times: Vec<f64>,
    best_t: f64,
}

/// Optional ranges of a pair of knobs (None: the knob's own range).
pub type PairRanges = (Option<(f64, f64)>, Option<(f64, f64)>);

/// Fits a pair of cost constants on a log grid (33 × 33 over the ranges, then twice
/// around the best cell).
pub fn fit_two<F>(
    sim: &Simulator,
    points: &[f64],
    knobs: (Knob, Knob),
    base: &KnobValues,
    ranges: PairRanges,
    mut plan: F,
) -> Result<Fit2>
where
    F: FnMut(f64, &KnobValues) -> Result<Planned>,
{
    let (kx, ky) = knobs;
    if kx == ky {
        return Err(Error::invalid("fit knobs", "need two different knobs"));
    }
    let (xlo, xhi) = check_range_for(kx, ranges.0)?;
    let (ylo, yhi) = check_range_for(ky, ranges.1)?;
    if points.is_empty() {
        return Err(Error::invalid("fit points", "need at least one point"));
    }
    let set2 = |x: f64, y: f64| -> Result<KnobValues> { with(&with(base, kx, x)?, ky, y) };
    let (xm, ym) = ((xlo * xhi).sqrt(), (ylo * yhi).sqrt());
    let mut models = Vec::with_capacity(points.len());
    for &pt in points {
        let p00 = plan(pt, &set2(xlo, ylo)?)?;
        let p10 = plan(pt, &set2(xhi, ylo)?)?;
        let p01 = plan(pt, &set2(xlo, yhi)?)?;
        let pmm = plan(pt, &set2(xm, ym)?)?;
        let times = candidate_times(sim, &pmm)?;
        let best_t = times[fastest(&times)];
        let mut lines = Vec::with_capacity(times.len());
        let mut ok = [&p00, &p10, &p01]
            .iter()
            .all(|p| p.candidates.len() == times.len());
        for c in &pmm.candidates {
            if !ok {
                break;
            }
            let (Some(c00), Some(c10), Some(c01)) = (
                cost_of(&p00, &c.key),
                cost_of(&p10, &c.key),
                cost_of(&p01, &c.key),
            ) else {
                ok = false;
                break;
            };
            let b = (c10 - c00) / (xhi - xlo);
            let cc = (c01 - c00) / (yhi - ylo);
            let a = c00 - b * xlo - cc * ylo;
            let l = Line { a, b, c: cc };
            ok = close(l.at(xm, ym), c.plan.cost.total)
                && a.is_finite()
                && b.is_finite()
                && cc.is_finite();
            lines.push(l);
        }
        if ok {
            for (p, x, y) in [
                (&p00, xlo, ylo),
                (&p10, xhi, ylo),
                (&p01, xlo, yhi),
                (&pmm, xm, ym),
            ] {
                let ch = pmm.candidates.iter().position(|c| c.key == p.chosen().key);
                match ch {
                    Some(ch) if cheapest(&lines, x, y, ch) == ch => {}
                    _ => ok = false,
                }
            }
        }
        models.push(PlanePoint {
            x: pt,
            lines: ok.then_some(lines),
            prefer: pmm.chosen,
            times,
            best_t,
        });
    }
    let grid_points = models.iter().filter(|m| m.lines.is_none()).count();
    let mut eval = |x: f64, y: f64| -> Result<f64> {
        let mut total = 0.0;
        for m in &models {
            match &m.lines {
                Some(lines) => {
                    total += m.times[cheapest(lines, x, y, m.prefer)] - m.best_t;
                }
                None => {
                    let p = plan(m.x, &set2(x, y)?)?;
                    let t = sim.time_plan(&p.chosen().plan)?.total_s;
                    total += (t - m.best_t).max(0.0);
                }
            }
        }
        Ok(total)
    };
    let grid_of = |lo: f64, hi: f64| -> Vec<f64> {
        sweep::sample_points(lo, hi, GRID, Spacing::Log).unwrap_or_else(|_| vec![lo, hi])
    };
    let mut bounds = ((xlo, xhi), (ylo, yhi));
    let mut coarse = Vec::new();
    let mut grid = Vec::new();
    let mut best = GridValue {
        x: xm,
        y: ym,
        total_regret_s: f64::INFINITY,
    };
    for level in 0..3 {
        let xs = grid_of(bounds.0 .0, bounds.0 .1);
        let ys = grid_of(bounds.1 .0, bounds.1 .1);
        grid.clear();
        let mut bi = (0, 0);
        let mut level_best = f64::INFINITY;
        for (j, &y) in ys.iter().enumerate() {
            for (i, &x) in xs.iter().enumerate() {
                let r = eval(x, y)?;
                grid.push(GridValue {
                    x,
                    y,
                    total_regret_s: r,
                });
                if r < level_best {
                    level_best = r;
                    bi = (i, j);
                }
                if r < best.total_regret_s {
                    best = GridValue {
                        x,
                        y,
                        total_regret_s: r,
                    };
                }
            }
        }
        if level == 0 {
            coarse = grid.clone();
        }
        let nb = |v: &[f64], i: usize| (v[i.saturating_sub(1)], v[(i + 1).min(v.len() - 1)]);
        let (nx, ny) = (nb(&xs, bi.0), nb(&ys, bi.1));
        if nx.0 >= nx.1 || ny.0 >= ny.1 {
            break;
        }
        bounds = (nx, ny);
    }
    Ok(Fit2 {
        knobs,
        names: (kx.def().name, ky.def().name),
        best: (best.x, best.y),
        best_total_regret_s: best.total_regret_s,
        grid,
        coarse,
        grid_points,
    })
}

/// The random_page_cost that minimises total regret on seed device `id` over `points`
/// log-spaced selectivities of `SELECT * FROM test_table WHERE id <= X`, from one row to
/// the whole table, on the experiment's table (PostgreSQL 18, single process, the knob's
/// whole range). The seed's measured ratio is a device ratio of one query pair; the
/// fitted constant also absorbs what the cost model leaves out (prefetch, caching).
pub fn fit_seed_random_page_cost(id: &str, points: usize) -> costlab_model::Result<Fit1> {
    let profile = costlab_sim::builtin::find(id)?;
    let sim = Simulator::new(&profile, Engine::Postgres)?;
    let (rows, pages) = rpc_seed::seed_experiment_size(id);
    let prepared = costlab_pg::Prepared::owned(
        rpc_seed::seed_experiment_table(rows, pages),
        EngineVersion::Pg18,
        PgOptions::default(),
    )?
    .with_detail(Detail::Omit);
    let xs = sweep::sample_points(1.0 / rows, 1.0, points.max(2), Spacing::Log)?;
    fit_one(
        &sim,
        &xs,
        Knob::RandomPageCost,
        &rpc_seed::seed_experiment_knobs(),
        None,
        |f, k| {
            prepared.plan(
                &rpc_seed::seed_experiment_query(Some((f * rows).max(1.0)), false),
                k,
            )
        },
    )
}
