//! What the page computes from the core: chart data for the current state.

use crate::chart::{ChartData, Series};
use costlab_core::knobs::KnobValues;
use costlab_core::sweep::{sweep, Spacing};
use costlab_core::workload::t1;
use costlab_core::{mysql, Result};
use std::collections::BTreeMap;

/// Points per sweep: about one per two CSS pixels of a typical chart.
const POINTS: usize = 401;

/// MySQL's estimated cost of each access path for the WL#8737 query on t1, from 0 to 20 %
/// of the rows, everything in the buffer pool; switch points marked where the plan changes.
pub fn t1_chart(knobs: &KnobValues) -> Result<ChartData> {
    let table = t1::t1_table();
    let env = t1::wl8737_in_memory_env();
    let s = sweep(
        |f| mysql::plan(&table, &t1::t1_query(f)?, knobs, &env),
        0.0,
        0.2,
        POINTS,
        Spacing::Linear,
    )?;
    let mut by_key: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for p in &s.points {
        for (key, cost) in &p.costs {
            by_key
                .entry(key.as_str())
                .or_default()
                .push((p.x * 100.0, *cost));
        }
    }
    let series = by_key
        .into_iter()
        .map(|(key, points)| Series {
            label: path_label(key),
            points,
        })
        .collect();
    let markers = s
        .crossovers
        .iter()
        .map(|c| {
            (
                c.x * 100.0,
                format!("{} at {:.2}%", path_label(&c.to), c.x * 100.0),
            )
        })
        .collect();
    Ok(ChartData {
        x_label: "rows selected (%)".into(),
        y_label: "estimated cost (MySQL)".into(),
        series,
        markers,
    })
}

/// "range:k7" → "range scan on k7": legend text for a candidate key.
pub fn path_label(key: &str) -> String {
    let (kind, index) = key.split_once(':').unwrap_or((key, ""));
    let kind = match kind {
        "table_scan" => "table scan",
        "range" => "range scan",
        "dsmrr" => "range scan with DS-MRR",
        "covering" => "covering range scan",
        "index_scan" => "full index scan",
        "ref" => "ref access",
        other => other,
    };
    if index.is_empty() {
        kind.to_string()
    } else {
        format!("{kind} on {index}")
    }
}
