//! What the page computes from the core: chart data for the current scenario.

use crate::chart::{ChartData, LineChart, Series};
use costlab_core::analysis::{engine_curves, EngineCurves};
use costlab_core::knobs::Engine;
use costlab_core::scenario::Scenario;
use costlab_core::Result;

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

/// Everything the page shows for one engine.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineView {
    pub engine: Engine,
    pub curves: EngineCurves,
    pub cost: ChartData,
}

pub fn engine_view(scenario: &Scenario, engine: Engine) -> Result<EngineView> {
    let curves = engine_curves(scenario, engine)?;
    let pct = |x: f64| x * 100.0;
    let series = curves
        .paths
        .iter()
        .map(|p| Series {
            label: p.label.clone(),
            color: color_of(&p.key),
            points: curves
                .xs
                .iter()
                .zip(&p.cost)
                .map(|(x, c)| (pct(*x), *c))
                .collect(),
        })
        .collect();
    let envelope = Series {
        label: "chosen plan".into(),
        color: 0,
        points: curves
            .xs
            .iter()
            .enumerate()
            .map(|(i, x)| (pct(*x), curves.paths[curves.chosen[i]].cost[i]))
            .collect(),
    };
    let markers = curves
        .crossovers
        .iter()
        .map(|c| {
            (
                pct(c.x),
                format!(
                    "→ {} at {}%",
                    costlab_core::analysis::path_label(&c.to),
                    switch_pct(c.x)
                ),
            )
        })
        .collect();
    let cost = ChartData::Lines(LineChart {
        x_label: "rows selected (%)".into(),
        y_label: format!("estimated cost ({})", engine.name()),
        series,
        envelope: Some(envelope),
        band: None,
        markers,
        log_y: scenario.log_y,
    });
    Ok(EngineView {
        engine,
        curves,
        cost,
    })
}

/// A switch point as the page prints it: 9.0708 (four significant digits of the percent).
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
