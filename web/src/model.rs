//! What the page computes from the core: chart data for the current scenario, and the
//! validation report's scatter.

use crate::chart::{
    Band, ChartData, HeatMap, LineChart, Mark, MarkSeries, MarkShape, Marker, ScatterChart, Series,
};
use costlab_core::analysis::{self, engine_curves, path_label, EngineCurves};
use costlab_core::knobs::Engine;
use costlab_core::regret::Fit1;
use costlab_core::scenario::{Scenario, View};
use costlab_core::validation::{CacheState, Scatter, ScatterPoint};
use costlab_core::Result;
use std::rc::Rc;

/// A colour per kind of path, the same in every chart and engine: scans that read the
/// whole table in one colour, index paths in another, and so on.
pub fn color_of(key: &str) -> usize {
    let kind = key.split(':').next().unwrap_or(key);
    match kind {
        "seq" | "table_scan" => 1,
        "index" | "range" | "ref" | "const" => 0,
        "bitmap" | "dsmrr" => 2,
        "indexonly" | "covering" | "index_scan" => 3,
        "gather-seq" => 4,
        "gather-bitmap" => 5,
        _ => 6,
    }
}

/// Flip map resolution: sweep points by knob values.
const FLIP_GRID: (usize, usize) = (80, 48);
/// Sweep points the fit uses.
const FIT_POINTS: usize = 201;

/// Everything the page shows for one engine.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineView {
    pub engine: Engine,
    pub curves: EngineCurves,
    pub cost: ChartData,
    pub time: ChartData,
    /// Only computed when the flip map is the scenario's view (it plans a whole grid).
    pub flip: Option<Result<(ChartData, Fit1)>>,
}

impl EngineView {
    /// The chart the scenario's view names.
    pub fn chart(&self, view: View) -> Option<&ChartData> {
        match view {
            View::Cost => Some(&self.cost),
            View::Time => Some(&self.time),
            View::FlipMap => self
                .flip
                .as_ref()
                .and_then(|f| f.as_ref().ok())
                .map(|f| &f.0),
        }
    }
}

fn pct(x: f64) -> f64 {
    x * 100.0
}

pub fn engine_view(scenario: &Scenario, engine: Engine) -> Result<EngineView> {
    let curves = engine_curves(scenario, engine)?;
    let times = &curves.times;
    let xs: Vec<f64> = curves.xs.iter().map(|x| pct(*x)).collect();
    // One series per path, from its values along the sweep.
    let per_path = |values: Vec<&[f64]>| -> Vec<Series> {
        curves
            .paths
            .iter()
            .zip(values)
            .map(|(path, v)| Series {
                label: path.label.clone(),
                color: color_of(&path.key),
                points: xs.iter().copied().zip(v.iter().copied()).collect(),
            })
            .collect()
    };
    let markers: Vec<Marker> = curves
        .crossovers
        .iter()
        .map(|c| Marker {
            x: pct(c.x),
            label: format!("→ {} at {}%", path_label(&c.to), switch_pct(c.x)),
            short: format!("→ {}%", switch_pct(c.x)),
        })
        .collect();
    let cost = ChartData::Lines(LineChart {
        x_label: "rows selected (%)".into(),
        y_label: format!("estimated cost ({})", engine.name()),
        series: per_path(curves.paths.iter().map(|p| p.cost.as_slice()).collect()),
        envelope: Some(Series {
            label: "chosen plan".into(),
            color: 0,
            points: (0..xs.len())
                .map(|i| (xs[i], curves.paths[curves.chosen[i]].cost[i]))
                .collect(),
        }),
        band: None,
        markers: markers.clone(),
        log_y: scenario.log_y,
    });
    let chosen_time: Vec<(f64, f64)> = (0..xs.len())
        .map(|i| (xs[i], times.seconds[curves.chosen[i]][i]))
        .collect();
    let time = ChartData::Lines(LineChart {
        x_label: "rows selected (%)".into(),
        y_label: "simulated time (s)".into(),
        series: per_path(times.seconds.iter().map(Vec::as_slice).collect()),
        envelope: Some(Series {
            label: "fastest plan".into(),
            color: 0,
            points: (0..xs.len())
                .map(|i| (xs[i], times.seconds[times.fastest[i]][i]))
                .collect(),
        }),
        band: Some(Band {
            label: format!(
                "time lost to the chosen plan (total {})",
                seconds(times.total_regret_s)
            ),
            points: chosen_time
                .iter()
                .enumerate()
                .map(|(i, &(x, t))| (x, t - times.regret_s[i], t))
                .collect(),
        }),
        markers,
        log_y: scenario.log_y,
    });
    let flip = (scenario.view == View::FlipMap && scenario.flip_knob.def().engine == engine)
        .then(|| flip_chart(scenario, engine));
    Ok(EngineView {
        engine,
        cost,
        time,
        flip,
        curves,
    })
}

fn flip_chart(scenario: &Scenario, engine: Engine) -> Result<(ChartData, Fit1)> {
    let map = analysis::flip_map(scenario, engine, FLIP_GRID.0, FLIP_GRID.1)?;
    let fit = analysis::fit_flip_knob(scenario, engine, FIT_POINTS)?;
    let def = map.knob.def();
    let current = scenario.knobs.get(map.knob);
    let heat = HeatMap {
        x_label: "rows selected (%)".into(),
        y_label: def.name.into(),
        xs: map.xs.iter().map(|x| pct(*x)).collect(),
        ys: map.values.clone(),
        cells: map.cells.clone(),
        plans: map
            .plans
            .iter()
            .map(|k| (path_label(k), color_of(k)))
            .collect(),
        log_y: def.scale == costlab_core::knobs::Scale::Log,
        switches: map
            .switches
            .iter()
            .map(|b| {
                let at = if b.axis == 0 { pct(b.at) } else { b.at };
                (b.axis, b.row, b.col, at)
            })
            .collect(),
        lines: vec![
            (
                current,
                format!("now {}", crate::components::knobs::format_value(current)),
            ),
            (
                fit.best,
                format!(
                    "fitted {}",
                    crate::components::knobs::format_value(fit.best)
                ),
            ),
        ],
    };
    Ok((ChartData::Heat(heat), fit))
}

/// Seconds as a person reads them: 0.42 s, 6.0 s, 12 min, 3.1 h.
pub fn seconds(s: f64) -> String {
    if !s.is_finite() {
        "n/a".into()
    } else if s >= 7200.0 {
        format!("{:.1} h", s / 3600.0)
    } else if s >= 120.0 {
        format!("{:.0} min", s / 60.0)
    } else if s >= 10.0 {
        format!("{s:.0} s")
    } else if s >= 0.1 {
        format!("{s:.2} s")
    } else {
        format!("{:.1} ms", s * 1000.0)
    }
}

/// A switch point as the page prints it: 9.071 (four significant digits of the percent).
pub fn switch_pct(x: f64) -> String {
    let p = x * 100.0;
    if p >= 10.0 {
        format!("{p:.2}")
    } else if p >= 1.0 {
        format!("{p:.3}")
    } else {
        format!("{p:.4}")
    }
}

/// A value shared by reference: equal only to itself, so props compare in O(1).
pub struct Shared<T>(pub Rc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// A time to three significant figures in the unit that suits it (µs, ms, s): what a
/// scatter mark's details say, finer than [`seconds`].
pub fn precise_seconds(s: f64) -> String {
    let three = |v: f64, unit: &str| {
        let decimals = if v >= 100.0 {
            0
        } else if v >= 10.0 {
            1
        } else {
            2
        };
        format!("{v:.decimals$} {unit}")
    };
    if !s.is_finite() {
        "n/a".into()
    } else if s.abs() >= 1.0 {
        three(s, "s")
    } else if s.abs() >= 1e-3 {
        three(s * 1e3, "ms")
    } else {
        three(s * 1e6, "µs")
    }
}

/// What one mark of the validation scatter says: query, plan, real and simulated time, and
/// their ratio.
pub fn mark_title(p: &ScatterPoint, limit_s: f64) -> String {
    let head = format!(
        "{} ({}, {}): {}",
        p.query,
        p.workload,
        p.cache.name(),
        p.key
    );
    match (p.real_s, p.ratio()) {
        (Some(real), Some(ratio)) => format!(
            "{head}; real {}, simulated {}, simulated/real {ratio:.2}",
            precise_seconds(real),
            precise_seconds(p.sim_s)
        ),
        (Some(real), None) => format!(
            "{head}; real {}, simulated {}",
            precise_seconds(real),
            precise_seconds(p.sim_s)
        ),
        (None, _) => format!(
            "{head}; stopped at the limit of {} (real time longer), simulated {}",
            precise_seconds(limit_s),
            precise_seconds(p.sim_s)
        ),
    }
}

/// The validation report's scatter as the page draws it: log-log, real (x) against
/// simulated (y) seconds, warm and cold plans apart (colour and shape), plans stopped at
/// the limit hollow at the limit, the diagonal and the 2x band. Every number is the core's
/// (`ValidationReport::scatter`).
pub fn validation_chart(s: &Scatter) -> ChartData {
    let series = |cache: CacheState, executed: bool| {
        let (color, shape) = match cache {
            CacheState::Warm => (0, MarkShape::Circle),
            CacheState::Cold => (1, MarkShape::Triangle),
        };
        MarkSeries {
            label: if executed {
                cache.name().to_string()
            } else {
                format!(
                    "{}, stopped at the limit ({})",
                    cache.name(),
                    precise_seconds(s.limit_s)
                )
            },
            color,
            shape,
            filled: executed,
            marks: s
                .points
                .iter()
                .filter(|p| p.cache == cache && p.real_s.is_some() == executed)
                .map(|p| Mark {
                    x: p.at.0,
                    y: p.at.1,
                    title: mark_title(p, s.limit_s),
                })
                .collect(),
        }
    };
    let stopped = s.past_limit().next().is_some();
    ChartData::Scatter(ScatterChart {
        x_label: "real execution time (s)".into(),
        y_label: "simulated time (s)".into(),
        range: s.range,
        series: vec![
            series(CacheState::Warm, true),
            series(CacheState::Cold, true),
            series(CacheState::Warm, false),
            series(CacheState::Cold, false),
        ],
        diagonal: "simulated = real".into(),
        band: Some((
            costlab_core::validation::CLOSE,
            "simulated within 2x of real".into(),
        )),
        limit: stopped.then(|| (s.limit_s, format!("limit {}", precise_seconds(s.limit_s)))),
    })
}
