//! Plan diagrams, as Picasso draws them: the plan an engine chooses at every cell of a grid
//! over one or two axes (cost constants, a selectivity, anything the caller maps a number
//! to), every switch between neighbouring cells located exactly by bisection on the model,
//! a layer of simulated regret, and the "anorexic" reduction.
//!
//! Engine-agnostic: the caller passes `plan(x, y)` returning the chosen plan's signature
//! and cost, and `describe` (called once per distinct plan) for its summary and simulated
//! time. The diagram never looks inside a plan.
//!
//! What is exact and what is not:
//! - cells and boundaries are the model's own choices; a boundary is narrowed until its
//!   bracket is [`BOUNDARY_REL_TOL`] of the axis wide (one step for whole-number axes).
//!   Where both plans' costs are exact planes over the grid (cost-constant axes), the
//!   first two probes go astride the planes' crossing, and bisection takes over only if
//!   they do not find the two plans there: the same bracket in two evaluations instead
//!   of about fifteen (Q8's 50 x 50 MySQL diagram: 5,872 evaluations before, 4,287 now);
//! - regret compares the chosen plan's simulated time with the fastest plan the diagram
//!   chose anywhere (a join planner keeps one plan per point, so the alternatives are the
//!   plans other cells chose), each plan timed once, as first built;
//! - the reduction needs every plan's cost in cells where another plan was chosen. A plan's
//!   cost is affine in linear cost constants (a fixed plan's cost is a sum of counts times
//!   constants), so the cost is fitted, by least squares, over every point where the plan
//!   was chosen (cells and bisection probes), and used only where the fit is exact
//!   ([`FIT_REL_TOL`]) and both axes are cost constants ([`Axis::cost_affine`]). Plans
//!   without a plane (an axis such as effective_cache_size or work_mem enters the formulas
//!   non-linearly, or the plan was seen on one line only) never replace another, so the
//!   reduction is an upper bound of the smallest one.

use costlab_model::error::{Error, Result};
use costlab_model::knobs::{Knob, Scale};
use costlab_model::sweep::Spacing;
use serde::Serialize;

/// Width of a boundary's final bracket, relative to the axis' span (in log space on a log
/// axis).
pub const BOUNDARY_REL_TOL: f64 = 1e-6;
/// A plane fits a plan's costs when it misses none by more than this, relative.
pub const FIT_REL_TOL: f64 = 1e-7;
/// Picasso's threshold for the anorexic reduction: a plan may take over a cell when it costs
/// at most 10 % more there than the plan chosen.
pub const REDUCTION_THRESHOLD: f64 = 0.10;
/// Most cells of a diagram (a 200 x 200 grid).
pub const MAX_CELLS: usize = 40_000;
/// Most bisection levels on one edge (more than enough for 1e-6 of any f64 range).
const MAX_DEPTH: u32 = 80;

/// One axis of a diagram.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Axis {
    /// What the axis varies (a knob's name, "selectivity").
    pub name: String,
    pub lo: f64,
    pub hi: f64,
    pub spacing: Spacing,
    /// Whole numbers only: samples are rounded and a boundary's bracket ends one apart.
    pub integer: bool,
    /// The sample points, lo to hi.
    pub values: Vec<f64>,
    /// A fixed plan's cost is affine in the axis' value (a cost constant; not
    /// effective_cache_size or work_mem, which enter the formulas non-linearly).
    pub cost_affine: bool,
}

impl Axis {
    /// An axis of `n` samples from `lo` to `hi`.
    pub fn new(
        name: impl Into<String>,
        lo: f64,
        hi: f64,
        n: usize,
        spacing: Spacing,
        integer: bool,
    ) -> Result<Axis> {
        let name = name.into();
        let mut values = costlab_model::sweep::sample_points(lo, hi, n, spacing)
            .map_err(|e| Error::invalid(format!("axis {name}"), e.to_string()))?;
        if integer {
            for v in &mut values {
                *v = v.round();
            }
            values.dedup();
            if values.len() < 2 {
                return Err(Error::invalid(
                    format!("axis {name}"),
                    format!("{lo} to {hi} holds fewer than two whole numbers"),
                ));
            }
        }
        Ok(Axis {
            name,
            lo,
            hi,
            spacing,
            integer,
            values,
            cost_affine: true,
        })
    }

    /// The same axis, saying that a fixed plan's cost is not affine in it: no plan's cost
    /// is then carried to cells it was not chosen in.
    pub fn not_affine(mut self) -> Axis {
        self.cost_affine = false;
        self
    }

    /// An axis over a knob's values: log-spaced where its slider is, whole numbers where
    /// it takes only those; affine unless the knob enters the cost formulas non-linearly.
    pub fn of_knob(knob: Knob, lo: f64, hi: f64, n: usize) -> Result<Axis> {
        let def = knob.def();
        if def.scale == Scale::Switch {
            return Err(Error::invalid(
                def.name,
                "a switch has two values: it is not an axis of a diagram",
            ));
        }
        def.validate(lo)?;
        def.validate(hi)?;
        if lo >= hi {
            return Err(Error::invalid(
                def.name,
                format!("the axis needs a lower bound below the upper ({lo} to {hi})"),
            ));
        }
        let spacing = match def.scale {
            Scale::Log if lo > 0.0 => Spacing::Log,
            _ => Spacing::Linear,
        };
        let axis = Axis::new(def.name, lo, hi, n, spacing, def.scale == Scale::Integer)?;
        // effective_cache_size (Mackert-Lohman), work_mem (batches, sort passes) and the
        // parallel worker count change the formulas, not a coefficient.
        let affine = !matches!(
            knob,
            Knob::EffectiveCacheSize | Knob::WorkMem | Knob::MaxParallelWorkersPerGather
        );
        Ok(if affine { axis } else { axis.not_affine() })
    }

    /// The middle of `[a, b]` in the axis' measure, or None once the bracket is narrow.
    fn split(&self, a: f64, b: f64, tol: f64) -> Option<f64> {
        if self.integer {
            let m = ((a + b) / 2.0).floor();
            return (b - a > 1.0 && m > a && m < b).then_some(m);
        }
        let (fa, fb, span) = match self.spacing {
            Spacing::Log => (a.ln(), b.ln(), self.hi.ln() - self.lo.ln()),
            Spacing::Linear => (a, b, self.hi - self.lo),
        };
        if fb - fa <= tol * span {
            return None;
        }
        let m = match self.spacing {
            Spacing::Log => ((fa + fb) / 2.0).exp(),
            Spacing::Linear => a + (b - a) / 2.0,
        };
        (m > a && m < b).then_some(m)
    }

    /// Where a boundary bracketed by `[a, b]` is reported: its middle, or `b` (the first
    /// whole number with the new plan) on a whole-number axis.
    fn report(&self, a: f64, b: f64) -> f64 {
        match (self.integer, self.spacing) {
            (true, _) => b,
            (false, Spacing::Log) => ((a.ln() + b.ln()) / 2.0).exp(),
            (false, Spacing::Linear) => a + (b - a) / 2.0,
        }
    }

    /// Position in [0, 1] along the axis, in its own measure (for fits and drawing).
    pub fn position(&self, v: f64) -> f64 {
        match self.spacing {
            Spacing::Log => (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln()),
            Spacing::Linear => (v - self.lo) / (self.hi - self.lo),
        }
    }
}

/// What `plan(x, y)` returns: the chosen plan's identity and cost, and whatever `describe`
/// needs to summarise and time it.
pub struct Choice<T> {
    pub signature: String,
    pub cost: f64,
    pub plan: T,
    /// The time this choice loses at this point, where the caller knows it (a planner that
    /// costs every candidate at every point, as t1's does: a plan's time then changes
    /// along a selectivity axis). None: measured against the fastest plan of the diagram.
    pub regret_s: Option<f64>,
}

/// What `describe` says of a plan, once per distinct plan.
pub struct Description {
    pub summary: String,
    pub time_s: f64,
}

/// One distinct plan of a diagram.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DiagramPlan {
    /// Equal signatures, same plan.
    pub signature: String,
    pub summary: String,
    /// Simulated seconds, as the plan was first built.
    pub time_s: f64,
    /// Cells where it is chosen (0: it was met only between cells, while bisecting).
    pub cells: usize,
    /// Cost = a·x + b·y + c in the axes' values, where a plane fits every point the plan
    /// was chosen at; `[a, c]` with one axis.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_plane: Option<Vec<f64>>,
}

/// One cell: the plan chosen at the grid point, its cost, and the simulated time it loses
/// against the fastest plan of the diagram.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cell {
    pub plan: usize,
    pub cost: f64,
    pub regret_s: f64,
}

/// A plan change between two neighbouring cells: along `axis` 0 (x) between columns `col`
/// and `col + 1` of row `row`, or along axis 1 (y) between rows `row` and `row + 1` of
/// column `col`. A third plan between them gives two boundaries on the same edge, in order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Boundary {
    pub axis: u8,
    pub row: usize,
    pub col: usize,
    /// The axis value of the change.
    pub at: f64,
    pub from: usize,
    pub to: usize,
}

/// Picasso's anorexic reduction at [`REDUCTION_THRESHOLD`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reduction {
    pub threshold: f64,
    /// The plans kept, by id.
    pub plans: Vec<usize>,
    /// Each cell's plan after the reduction (row-major, as `cells`).
    pub cells: Vec<usize>,
    /// Plans chosen in some cell whose cost elsewhere is unknown (no exact plane): they
    /// can be replaced but never replace another.
    pub unfitted: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanDiagram {
    pub x: Axis,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub y: Option<Axis>,
    /// Row-major: row r (the r-th y value, or the only row) holds x's values in order.
    pub cells: Vec<Cell>,
    pub plans: Vec<DiagramPlan>,
    pub boundaries: Vec<Boundary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reduction: Option<Reduction>,
    /// Plans made: cells and bisection probes.
    pub evaluations: usize,
}

impl PlanDiagram {
    pub fn columns(&self) -> usize {
        self.x.values.len()
    }

    pub fn rows(&self) -> usize {
        self.y.as_ref().map_or(1, |y| y.values.len())
    }

    pub fn cell(&self, row: usize, col: usize) -> &Cell {
        &self.cells[row * self.columns() + col]
    }

    /// Distinct plans chosen in at least one cell.
    pub fn plans_in_cells(&self) -> usize {
        self.plans.iter().filter(|p| p.cells > 0).count()
    }

    /// Plan ids in the order of their cells' counts, most first (ties: by id).
    pub fn by_area(&self) -> Vec<usize> {
        let mut ids: Vec<usize> = (0..self.plans.len()).collect();
        costlab_model::sort::sort_by(&mut ids, |&a, &b| {
            self.plans[b]
                .cells
                .cmp(&self.plans[a].cells)
                .then(a.cmp(&b))
        });
        ids
    }

    /// The diagram as CSV: one line per cell (x, y, plan id, summary, cost, time, regret).
    pub fn csv(&self) -> String {
        let mut out = format!(
            "{},{},plan,summary,cost,time_s,regret_s\n",
            csv_field(&self.x.name),
            csv_field(self.y.as_ref().map_or("", |y| y.name.as_str()))
        );
        for r in 0..self.rows() {
            for c in 0..self.columns() {
                let cell = self.cell(r, c);
                let y = self
                    .y
                    .as_ref()
                    .map_or(String::new(), |y| y.values[r].to_string());
                let p = &self.plans[cell.plan];
                out.push_str(&format!(
                    "{},{},{},{},{},{},{}\n",
                    self.x.values[c],
                    y,
                    cell.plan,
                    csv_field(&p.summary),
                    cell.cost,
                    // No one time where it varies from cell to cell (a fraction axis).
                    if p.time_s.is_finite() {
                        p.time_s.to_string()
                    } else {
                        String::new()
                    },
                    cell.regret_s
                ));
            }
        }
        out
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Whether to locate boundaries (a coarse first picture skips them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Boundaries {
    /// To [`BOUNDARY_REL_TOL`] of the axis.
    Locate,
    /// To this share of the axis: a picture needs them no finer than its pixels.
    LocateTo(f64),
    Skip,
}

impl Boundaries {
    /// The bracket width, as a share of the axis, a boundary is narrowed to; None: not
    /// located.
    fn tolerance(self) -> Option<f64> {
        match self {
            Boundaries::Locate => Some(BOUNDARY_REL_TOL),
            Boundaries::LocateTo(t) if t.is_finite() && t > 0.0 => Some(t.max(BOUNDARY_REL_TOL)),
            Boundaries::LocateTo(_) => Some(BOUNDARY_REL_TOL),
            Boundaries::Skip => None,
        }
    }
}

struct Builder<'a, P, D> {
    x: &'a Axis,
    y: Option<&'a Axis>,
    plan: P,
    describe: D,
    plans: Vec<DiagramPlan>,
    /// Per plan: (x, y, cost) of every point it was chosen at.
    samples: Vec<Vec<(f64, f64, f64)>>,
    evaluations: usize,
    /// Boundary brackets end at this share of the axis.
    tol: f64,
    /// Per plan, its cost plane fitted over the grid's cells (when both axes are cost
    /// constants and the fit is exact): where two planes cross is where a boundary is
    /// first looked for ([`Builder::guess`]).
    planes: Vec<Option<Vec<f64>>>,
}

impl<P, D, T> Builder<'_, P, D>
where
    P: FnMut(f64, Option<f64>) -> Result<Choice<T>>,
    D: FnMut(&T) -> Result<Description>,
{
    /// Plans at (x, y) and returns the plan's id, adding a plan not seen before.
    fn probe(&mut self, x: f64, y: f64) -> Result<(usize, f64, Option<f64>)> {
        let c = (self.plan)(x, self.y.map(|_| y))?;
        self.evaluations += 1;
        if !c.cost.is_finite() {
            return Err(Error::invalid(
                "plan diagram",
                format!("the plan at {x}, {y} has no finite cost"),
            ));
        }
        let id = match self.plans.iter().position(|p| p.signature == c.signature) {
            Some(id) => id,
            None => {
                let d = (self.describe)(&c.plan)?;
                self.plans.push(DiagramPlan {
                    signature: c.signature,
                    summary: d.summary,
                    time_s: d.time_s,
                    cells: 0,
                    cost_plane: None,
                });
                self.samples.push(Vec::new());
                self.plans.len() - 1
            }
        };
        self.samples[id].push((x, y, c.cost));
        Ok((id, c.cost, c.regret_s))
    }

    /// Every change along one edge between `a` (plan `pa`) and `b` (plan `pb`) on `axis`,
    /// the other coordinate fixed at `fixed`, in order from `a`.
    #[allow(clippy::too_many_arguments)]
    fn bisect(
        &mut self,
        axis: u8,
        fixed: f64,
        (a, pa): (f64, usize),
        (b, pb): (f64, usize),
        depth: u32,
        (row, col): (usize, usize),
        out: &mut Vec<Boundary>,
    ) -> Result<()> {
        let ax = if axis == 0 {
            self.x
        } else {
            self.y.expect("a y boundary has a y axis")
        };
        if depth == 0 {
            if let Some((lo, hi)) = self.guess(axis, fixed, a, pa, b, pb) {
                // Two probes astride the planes' crossing. Both as the ends say: the
                // boundary is bracketed as narrowly as bisection would bracket it.
                let probe = |s: &mut Self, v: f64| {
                    if axis == 0 {
                        s.probe(v, fixed)
                    } else {
                        s.probe(fixed, v)
                    }
                };
                let (plo, _, _) = probe(self, lo)?;
                let (phi, _, _) = probe(self, hi)?;
                // Otherwise every change between the four points known, by bisection.
                for ((u, pu), (v, pv)) in [
                    ((a, pa), (lo, plo)),
                    ((lo, plo), (hi, phi)),
                    ((hi, phi), (b, pb)),
                ] {
                    if pu != pv {
                        self.bisect(axis, fixed, (u, pu), (v, pv), 1, (row, col), out)?;
                    }
                }
                return Ok(());
            }
        }
        let Some(m) = ax.split(a, b, self.tol).filter(|_| depth < MAX_DEPTH) else {
            out.push(Boundary {
                axis,
                row,
                col,
                at: ax.report(a, b),
                from: pa,
                to: pb,
            });
            return Ok(());
        };
        let (pm, _, _) = if axis == 0 {
            self.probe(m, fixed)?
        } else {
            self.probe(fixed, m)?
        };
        if pm != pa {
            self.bisect(axis, fixed, (a, pa), (m, pm), depth + 1, (row, col), out)?;
        }
        if pm != pb {
            self.bisect(axis, fixed, (m, pm), (b, pb), depth + 1, (row, col), out)?;
        }
        Ok(())
    }
}

impl<P, D> Builder<'_, P, D> {
    /// Where the cost planes of plans `pa` (at `a`) and `pb` (at `b`) cross on this edge,
    /// as a bracket half a boundary's width wide around the crossing, strictly inside
    /// `(a, b)`; None where either plan has no plane or they do not cross there. A fixed
    /// plan's cost is affine in cost constants, so a join planner that keeps the cheapest
    /// plan switches where the two costs meet: two probes then replace the fifteen or so
    /// of bisection. Only a guess: the probes decide (a planner's pruning can move a
    /// switch off the crossing, and a third plan can lie between).
    fn guess(
        &self,
        axis: u8,
        fixed: f64,
        a: f64,
        pa: usize,
        b: f64,
        pb: usize,
    ) -> Option<(f64, f64)> {
        let ax = if axis == 0 { self.x } else { self.y? };
        if ax.integer {
            return None;
        }
        let (qa, qb) = (
            self.planes.get(pa)?.as_deref()?,
            self.planes.get(pb)?.as_deref()?,
        );
        // Cost along the edge: slope * v + offset, the other coordinate at `fixed`.
        let line = |q: &[f64]| match (q, axis) {
            ([s, c], _) => Some((*s, *c)),
            ([sx, sy, c], 0) => Some((*sx, sy * fixed + c)),
            ([sx, sy, c], _) => Some((*sy, sx * fixed + c)),
            _ => None,
        };
        let ((sa, ca), (sb, cb)) = (line(qa)?, line(qb)?);
        let v = (cb - ca) / (sa - sb);
        if !(v.is_finite() && v > a && v < b) {
            return None;
        }
        let log = matches!(ax.spacing, Spacing::Log);
        let f = |v: f64| if log { v.ln() } else { v };
        let back = |v: f64| if log { v.exp() } else { v };
        let half = self.tol * (f(ax.hi) - f(ax.lo)) / 4.0;
        let (lo, hi) = (back(f(v) - half), back(f(v) + half));
        (lo > a && hi < b && lo < hi).then_some((lo, hi))
    }
}

/// Builds the diagram of `plan` over `x` (and `y`). `plan(x, None)` for one axis.
pub fn build<T, P, D>(
    x: &Axis,
    y: Option<&Axis>,
    boundaries: Boundaries,
    plan: P,
    describe: D,
) -> Result<PlanDiagram>
where
    P: FnMut(f64, Option<f64>) -> Result<Choice<T>>,
    D: FnMut(&T) -> Result<Description>,
{
    let cols = x.values.len();
    let rows = y.map_or(1, |y| y.values.len());
    if cols * rows > MAX_CELLS {
        return Err(Error::invalid(
            "plan diagram",
            format!("{cols} x {rows} cells is more than {MAX_CELLS}"),
        ));
    }
    let mut b = Builder {
        x,
        y,
        plan,
        describe,
        plans: Vec::new(),
        samples: Vec::new(),
        evaluations: 0,
        tol: boundaries.tolerance().unwrap_or(BOUNDARY_REL_TOL),
        planes: Vec::new(),
    };
    let yv = |r: usize| y.map_or(0.0, |y| y.values[r]);
    let mut cells = Vec::with_capacity(cols * rows);
    let mut own_regret = Vec::with_capacity(cols * rows);
    for r in 0..rows {
        for &xv in &x.values {
            let (plan, cost, regret) = b.probe(xv, yv(r))?;
            cells.push(Cell {
                plan,
                cost,
                regret_s: 0.0,
            });
            own_regret.push(regret);
        }
    }
    let mut found = Vec::new();
    let affine = x.cost_affine && y.is_none_or(|y| y.cost_affine);
    if boundaries.tolerance().is_some() {
        if affine {
            b.planes = b.samples.iter().map(|s| fit_plane(s, x, y)).collect();
        }
        for r in 0..rows {
            for c in 0..cols {
                let here = cells[r * cols + c].plan;
                if c + 1 < cols {
                    let right = cells[r * cols + c + 1].plan;
                    if right != here {
                        b.bisect(
                            0,
                            yv(r),
                            (x.values[c], here),
                            (x.values[c + 1], right),
                            0,
                            (r, c),
                            &mut found,
                        )?;
                    }
                }
                if let Some(ya) = y {
                    if r + 1 < rows {
                        let above = cells[(r + 1) * cols + c].plan;
                        if above != here {
                            b.bisect(
                                1,
                                x.values[c],
                                (ya.values[r], here),
                                (ya.values[r + 1], above),
                                0,
                                (r, c),
                                &mut found,
                            )?;
                        }
                    }
                }
            }
        }
    }
    let mut plans = b.plans;
    for cell in &cells {
        plans[cell.plan].cells += 1;
    }
    let fastest = plans.iter().map(|p| p.time_s).fold(f64::INFINITY, f64::min);
    for (cell, own) in cells.iter_mut().zip(&own_regret) {
        cell.regret_s = own.unwrap_or((plans[cell.plan].time_s - fastest).max(0.0));
    }
    // Samples on a cross (a plan met in one cell and along its boundaries) fit a plane
    // even where the cost is not affine, so a plane is fitted only where it must be one.
    if affine {
        for (p, samples) in plans.iter_mut().zip(&b.samples) {
            p.cost_plane = fit_plane(samples, x, y);
        }
    }
    let reduction = reduce(&plans, &cells, x, y);
    Ok(PlanDiagram {
        x: x.clone(),
        y: y.cloned(),
        cells,
        plans,
        boundaries: found,
        reduction,
        evaluations: b.evaluations,
    })
}

/// The plan's cost at (x, y) from its plane.
fn plane_cost(plane: &[f64], x: f64, y: f64) -> f64 {
    match plane {
        [a, c] => a * x + c,
        [a, b, c] => a * x + b * y + c,
        _ => f64::NAN,
    }
}

/// Least squares of cost on (x, y, 1) over the samples, kept when every sample lies on the
/// plane within [`FIT_REL_TOL`]; None when the samples do not fix a plane (all on one line,
/// or one point) or miss it.
fn fit_plane(samples: &[(f64, f64, f64)], x: &Axis, y: Option<&Axis>) -> Option<Vec<f64>> {
    // Solved in coordinates scaled to the axes' spans, for conditioning, then mapped back.
    let sx = (x.hi - x.lo).abs().max(f64::MIN_POSITIVE);
    let sy = y.map_or(1.0, |y| (y.hi - y.lo).abs().max(f64::MIN_POSITIVE));
    let dims = if y.is_some() { 3 } else { 2 };
    let row = |&(px, py, _): &(f64, f64, f64)| -> [f64; 3] {
        let u = (px - x.lo) / sx;
        match y {
            Some(ya) => [u, (py - ya.lo) / sy, 1.0],
            None => [u, 1.0, 0.0],
        }
    };
    let mut ata = [[0.0f64; 3]; 3];
    let mut atb = [0.0f64; 3];
    for s in samples {
        let r = row(s);
        for i in 0..dims {
            for j in 0..dims {
                ata[i][j] += r[i] * r[j];
            }
            atb[i] += r[i] * s.2;
        }
    }
    let sol = solve(ata, atb, dims)?;
    let worst = samples
        .iter()
        .map(|s| {
            let r = row(s);
            let pred: f64 = (0..dims).map(|i| r[i] * sol[i]).sum();
            (pred - s.2).abs() / s.2.abs().max(1e-9)
        })
        .fold(0.0f64, f64::max);
    if worst > FIT_REL_TOL {
        return None;
    }
    // Back to the axes' own values: u = (x - lo)/sx.
    Some(match y {
        Some(ya) => {
            let a = sol[0] / sx;
            let b = sol[1] / sy;
            vec![a, b, sol[2] - a * x.lo - b * ya.lo]
        }
        None => {
            let a = sol[0] / sx;
            vec![a, sol[1] - a * x.lo]
        }
    })
}

/// Gaussian elimination with partial pivoting on the leading `n` x `n` block; None when
/// the system is singular (the samples do not fix every coefficient).
#[allow(clippy::needless_range_loop)] // matrix code reads best with indices
fn solve(mut m: [[f64; 3]; 3], mut v: [f64; 3], n: usize) -> Option<[f64; 3]> {
    let scale = (0..n).map(|i| m[i][i].abs()).fold(0.0f64, f64::max);
    if scale == 0.0 {
        return None;
    }
    for col in 0..n {
        let piv = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[piv][col].abs() <= 1e-10 * scale {
            return None;
        }
        m.swap(col, piv);
        v.swap(col, piv);
        for r in col + 1..n {
            let f = m[r][col] / m[col][col];
            for k in col..n {
                m[r][k] -= f * m[col][k];
            }
            v[r] -= f * v[col];
        }
    }
    let mut out = [0.0f64; 3];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|k| m[r][k] * out[k]).sum();
        out[r] = (v[r] - s) / m[r][r];
    }
    Some(out)
}

/// Picasso's CostGreedy reduction: plans in order of area, smallest first, each handed to
/// the largest remaining plan with a known cost that stays within the threshold of the
/// optimal cost in every cell the first one holds (holds now: cells it took over count).
fn reduce(plans: &[DiagramPlan], cells: &[Cell], x: &Axis, y: Option<&Axis>) -> Option<Reduction> {
    if cells.is_empty() {
        return None;
    }
    let cols = x.values.len();
    let at = |i: usize| (x.values[i % cols], y.map_or(0.0, |y| y.values[i / cols]));
    let mut assign: Vec<usize> = cells.iter().map(|c| c.plan).collect();
    let mut area: Vec<usize> = plans.iter().map(|p| p.cells).collect();
    let mut order: Vec<usize> = (0..plans.len()).filter(|&p| area[p] > 0).collect();
    costlab_model::sort::sort_by(&mut order, |&a, &b| area[a].cmp(&area[b]).then(a.cmp(&b)));
    for &p in &order {
        if area[p] == 0 {
            continue;
        }
        let held: Vec<usize> = (0..cells.len()).filter(|&i| assign[i] == p).collect();
        let mut best: Option<usize> = None;
        for q in 0..plans.len() {
            if q == p || area[q] == 0 {
                continue;
            }
            let Some(plane) = &plans[q].cost_plane else {
                continue;
            };
            let covers = held.iter().all(|&i| {
                let (cx, cy) = at(i);
                plane_cost(plane, cx, cy) <= (1.0 + REDUCTION_THRESHOLD) * cells[i].cost
            });
            if covers && best.is_none_or(|b| area[q] > area[b]) {
                best = Some(q);
            }
        }
        if let Some(q) = best {
            for &i in &held {
                assign[i] = q;
            }
            area[q] += area[p];
            area[p] = 0;
        }
    }
    Some(Reduction {
        threshold: REDUCTION_THRESHOLD,
        plans: (0..plans.len()).filter(|&p| area[p] > 0).collect(),
        cells: assign,
        unfitted: (0..plans.len())
            .filter(|&p| plans[p].cells > 0 && plans[p].cost_plane.is_none())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy engine over (x, y) in [0, 4]^2: plan "a" costs 1 + x, "b" 1 + y, "c" 3 (flat),
    /// "d" 1 + x·y (not affine). The cheapest wins.
    fn toy(with_d: bool) -> impl FnMut(f64, Option<f64>) -> Result<Choice<&'static str>> {
        move |x, y| {
            let y = y.unwrap_or(1.5);
            let mut c = vec![("a", 1.0 + x), ("b", 1.0 + y), ("c", 3.0)];
            if with_d {
                c.push(("d", 1.2 + x * y));
            }
            let (k, cost) = c.into_iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
            Ok(Choice {
                signature: k.to_string(),
                cost,
                plan: k,
                regret_s: None,
            })
        }
    }

    fn describe(k: &&'static str) -> Result<Description> {
        Ok(Description {
            summary: format!("plan {k}"),
            time_s: match *k {
                "a" => 2.0,
                "b" => 1.0,
                "c" => 5.0,
                _ => 3.0,
            },
        })
    }

    fn axes(n: usize) -> (Axis, Axis) {
        (
            Axis::new("x", 0.0, 4.0, n, Spacing::Linear, false).unwrap(),
            Axis::new("y", 0.0, 4.0, n, Spacing::Linear, false).unwrap(),
        )
    }

    #[test]
    fn cells_boundaries_and_regret_follow_the_model() {
        let (x, y) = axes(9);
        let d = build(&x, Some(&y), Boundaries::Locate, toy(false), describe).unwrap();
        assert_eq!(d.cells.len(), 81);
        let id = |s: &str| d.plans.iter().position(|p| p.signature == s).unwrap();
        // At x = 0.5, y = 3: a (1.5) beats b (4) and c (3).
        assert_eq!(d.cell(6, 1).plan, id("a"));
        assert_eq!(d.cell(6, 1).cost, 1.5);
        // a = b on the diagonal, a = c at x = 2, b = c at y = 2.
        for b in &d.boundaries {
            let (from, to) = (
                d.plans[b.from].signature.as_str(),
                d.plans[b.to].signature.as_str(),
            );
            let other = if b.axis == 0 {
                y.values[b.row]
            } else {
                x.values[b.col]
            };
            let want = match (from, to) {
                ("a", "c") | ("c", "a") | ("b", "c") | ("c", "b") => 2.0,
                ("a", "b") | ("b", "a") => other,
                _ => panic!("unexpected boundary {from} -> {to}"),
            };
            assert!((b.at - want).abs() <= 4.0 * BOUNDARY_REL_TOL * 4.0, "{b:?}");
            // Each boundary lies between its two cells.
            let ax = if b.axis == 0 { &x } else { &y };
            let i = if b.axis == 0 { b.col } else { b.row };
            assert!(b.at > ax.values[i] && b.at <= ax.values[i + 1], "{b:?}");
        }
        // Row 8 (y = 4): a until x = 2, then c: one boundary, between columns 4 and 5 (x = 2
        // is column 4 itself, where a and c tie and a, first, wins).
        let row8: Vec<&Boundary> = d
            .boundaries
            .iter()
            .filter(|b| b.axis == 0 && b.row == 8)
            .collect();
        assert_eq!(row8.len(), 1, "{row8:?}");
        assert_eq!(row8[0].col, 4);
        // Regret: b is the fastest plan (1 s); a loses 1 s, c 4 s.
        assert_eq!(d.cell(8, 0).regret_s, 1.0);
        assert_eq!(d.cell(8, 8).regret_s, 4.0);
        assert_eq!(d.cell(0, 8).regret_s, 0.0);
        assert_eq!(d.plans_in_cells(), 3);
        // Every plan is affine: the planes are the toy's.
        let plane = d.plans[id("a")].cost_plane.clone().unwrap();
        for (got, want) in plane.iter().zip([1.0, 0.0, 1.0]) {
            assert!((got - want).abs() < 1e-9, "{plane:?}");
        }
    }

    #[test]
    fn boundaries_are_first_probed_where_the_cost_planes_cross_and_the_probes_decide() {
        // Eight samples a side: the a/c and b/c switches (x = 2, y = 2) fall between cells.
        let (x, y) = axes(8);
        let d = build(&x, Some(&y), Boundaries::Locate, toy(false), describe).unwrap();
        // The same diagram with the planes unused (an axis said not affine): bisection only.
        let mut xb = x.clone();
        xb.cost_affine = false;
        let plain = build(&xb, Some(&y), Boundaries::Locate, toy(false), describe).unwrap();
        let key = |d: &PlanDiagram| -> Vec<(u8, usize, usize, usize, usize)> {
            d.boundaries
                .iter()
                .map(|b| (b.axis, b.row, b.col, b.from, b.to))
                .collect()
        };
        assert_eq!(key(&d), key(&plain));
        for (g, p) in d.boundaries.iter().zip(&plain.boundaries) {
            assert!((g.at - p.at).abs() <= BOUNDARY_REL_TOL * 4.0, "{g:?} {p:?}");
        }
        // Two probes for each switch at x = 2 or y = 2, about fifteen by bisection.
        let at_two = d
            .boundaries
            .iter()
            .filter(|b| (b.at - 2.0).abs() < 1e-5)
            .count();
        assert!(at_two >= 8, "{:?}", d.boundaries);
        assert!(
            plain.evaluations - d.evaluations >= at_two * 15,
            "{} evaluations with the planes, {} without, {at_two} switches at 2",
            d.evaluations,
            plain.evaluations
        );

        // A planner whose switch is not where the costs cross (pruning can do this): a
        // costs 1 + 2x and b 3.2, which cross at 1.1, but a is chosen up to 1.3. The two
        // probes at 1.1 both find a, and bisection takes over from there.
        let x = Axis::new("x", 0.0, 4.0, 5, Spacing::Linear, false).unwrap();
        let f = |xv: f64, _y: Option<f64>| {
            let (k, cost) = if xv < 1.3 {
                ("a", 1.0 + 2.0 * xv)
            } else {
                ("b", 3.2)
            };
            Ok(Choice {
                signature: k.to_string(),
                cost,
                plan: k,
                regret_s: None,
            })
        };
        let d = build(&x, None, Boundaries::Locate, f, describe).unwrap();
        assert_eq!(d.boundaries.len(), 1, "{:?}", d.boundaries);
        assert!(
            (d.boundaries[0].at - 1.3).abs() <= 4.0 * BOUNDARY_REL_TOL,
            "{:?}",
            d.boundaries
        );
    }

    #[test]
    fn a_third_plan_between_two_cells_gives_two_boundaries_in_order() {
        // Two samples, at 0 and 4; a below 1, b from 1 to 2.5, c from 2.5.
        let x = Axis::new("x", 0.0, 4.0, 2, Spacing::Linear, false).unwrap();
        let f = |xv: f64, _y: Option<f64>| {
            let k = if xv < 1.0 {
                "a"
            } else if xv < 2.5 {
                "b"
            } else {
                "c"
            };
            Ok(Choice {
                signature: k.to_string(),
                cost: 1.0 + xv,
                plan: k,
                regret_s: None,
            })
        };
        let d = build(&x, None, Boundaries::Locate, f, describe).unwrap();
        let got: Vec<(&str, &str)> = d
            .boundaries
            .iter()
            .map(|b| {
                (
                    d.plans[b.from].signature.as_str(),
                    d.plans[b.to].signature.as_str(),
                )
            })
            .collect();
        assert_eq!(got, [("a", "b"), ("b", "c")]);
        assert!((d.boundaries[0].at - 1.0).abs() < 1e-5);
        assert!((d.boundaries[1].at - 2.5).abs() < 1e-5);
        // b is met only between the cells.
        assert_eq!(d.plans[d.boundaries[0].to].cells, 0);
        assert_eq!(d.plans_in_cells(), 2);
    }

    #[test]
    fn whole_number_axes_end_on_the_first_value_of_the_new_plan() {
        let x = Axis::new("n", 0.0, 10.0, 3, Spacing::Linear, true).unwrap();
        assert_eq!(x.values, [0.0, 5.0, 10.0]);
        let d = build(
            &x,
            None,
            Boundaries::Locate,
            |xv, _| {
                assert_eq!(xv.fract(), 0.0, "probed {xv}");
                let k = if xv >= 3.0 { "b" } else { "a" };
                Ok(Choice {
                    signature: k.into(),
                    cost: 1.0,
                    plan: k,
                    regret_s: None,
                })
            },
            |k: &&str| {
                Ok(Description {
                    summary: k.to_string(),
                    time_s: 1.0,
                })
            },
        )
        .unwrap();
        assert_eq!(d.boundaries.len(), 1);
        assert_eq!(d.boundaries[0].at, 3.0);
    }

    #[test]
    fn reduction_keeps_plans_within_ten_percent_and_never_uses_unfitted_costs() {
        // Costs: p = 100 + x, q = 104 + 0.5·x... q is cheaper past x = 8; p's cells cost at
        // most 4 % less than q: q covers p within 10 % and the reduction is q alone.
        let x = Axis::new("x", 0.0, 20.0, 21, Spacing::Linear, false).unwrap();
        let f = |xv: f64, _y: Option<f64>| {
            let (k, c) = if 100.0 + xv <= 104.0 + 0.5 * xv {
                ("p", 100.0 + xv)
            } else {
                ("q", 104.0 + 0.5 * xv)
            };
            Ok(Choice {
                signature: k.to_string(),
                cost: c,
                plan: k,
                regret_s: None,
            })
        };
        let d = build(&x, None, Boundaries::Locate, f, |k: &&str| {
            Ok(Description {
                summary: k.to_string(),
                time_s: 1.0,
            })
        })
        .unwrap();
        let r = d.reduction.as_ref().unwrap();
        let q = d.plans.iter().position(|p| p.signature == "q").unwrap();
        assert_eq!(r.plans, [q]);
        assert!(r.cells.iter().all(|&c| c == q));
        assert!(r.unfitted.is_empty());
        // Plan d costs 1.2 + x·y: on the cross of samples around its one cell it looks
        // affine, so only an axis marked not affine keeps it from replacing others; then
        // no plan has a plane and the reduction keeps every plan.
        let (x, y) = axes(9);
        let d = build(&x, Some(&y), Boundaries::Locate, toy(true), describe).unwrap();
        let dd = d.plans.iter().position(|p| p.signature == "d").unwrap();
        assert_eq!(d.plans[dd].cells, 1);
        let y2 = y.clone().not_affine();
        let d2 = build(&x, Some(&y2), Boundaries::Locate, toy(true), describe).unwrap();
        assert!(d2.plans.iter().all(|p| p.cost_plane.is_none()));
        let r2 = d2.reduction.as_ref().unwrap();
        assert_eq!(r2.plans.len(), d2.plans_in_cells());
        assert_eq!(r2.unfitted.len(), d2.plans_in_cells());
        // A sample off the plane is caught: a plan costing x² over a line of samples.
        let sq = [(0.0, 0.0, 1.0), (1.0, 0.0, 2.0), (2.0, 0.0, 5.0)];
        let xl = Axis::new("x", 0.0, 2.0, 3, Spacing::Linear, false).unwrap();
        assert!(fit_plane(&sq, &xl, None).is_none());
        assert!(fit_plane(&sq[..2], &xl, None).is_some());
        let r = d.reduction.as_ref().unwrap();
        // Every cell of the reduced diagram costs at most 10 % above the optimum, by the
        // kept plan's plane (or is the plan's own cell).
        for (i, &p) in r.cells.iter().enumerate() {
            let cell = &d.cells[i];
            if p == cell.plan {
                continue;
            }
            let plane = d.plans[p].cost_plane.as_ref().unwrap();
            let (cx, cy) = (x.values[i % 9], y.values[i / 9]);
            assert!(plane_cost(plane, cx, cy) <= 1.1 * cell.cost + 1e-9);
        }
    }

    #[test]
    fn bad_axes_and_plans_are_errors() {
        assert!(Axis::new("x", 1.0, 1.0, 5, Spacing::Linear, false).is_err());
        assert!(Axis::new("x", 0.0, 1.0, 5, Spacing::Log, false).is_err());
        assert!(Axis::new("x", 0.2, 0.4, 5, Spacing::Linear, true).is_err());
        let x = Axis::new("x", 0.0, 1.0, 300, Spacing::Linear, false).unwrap();
        let y = Axis::new("y", 0.0, 1.0, 300, Spacing::Linear, false).unwrap();
        let err = build(&x, Some(&y), Boundaries::Skip, toy(false), describe).unwrap_err();
        assert!(err.to_string().contains("300 x 300"), "{err}");
        let x = Axis::new("x", 0.0, 1.0, 3, Spacing::Linear, false).unwrap();
        let nan = |_: f64, _: Option<f64>| {
            Ok(Choice {
                signature: "a".to_string(),
                cost: f64::NAN,
                plan: "a",
                regret_s: None,
            })
        };
        assert!(build(&x, None, Boundaries::Skip, nan, describe).is_err());
    }

    #[test]
    fn csv_has_a_line_per_cell_and_quotes_summaries() {
        let x = Axis::new("x", 0.0, 4.0, 3, Spacing::Linear, false).unwrap();
        let d = build(&x, None, Boundaries::Skip, toy(false), |k: &&str| {
            Ok(Description {
                summary: format!("{k}, scan"),
                time_s: 1.0,
            })
        })
        .unwrap();
        let csv = d.csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], "x,,plan,summary,cost,time_s,regret_s");
        assert!(lines[1].starts_with("0,,0,\"a, scan\",1,"), "{}", lines[1]);
    }
}
