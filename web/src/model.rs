//! What the page computes from the core: chart data for the current scenario.

use crate::chart::{Band, ChartData, HeatMap, LineChart, Marker, Series};
use costlab_core::analysis::{self, engine_curves, path_label, EngineCurves};
use costlab_core::knobs::Engine;
use costlab_core::scenario::{Scenario, View};
use costlab_core::sim::regret::Fit1;
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
