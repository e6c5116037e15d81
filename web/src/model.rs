//! What the page computes from the core.
use crate::chart::{ChartData, Series};
use costlab_core::knobs::{Knob, KnobValues};

// TEMPORARY until the MySQL cost model lands in the core: the WL#8737 t1 formulas of
// mysql-cost-model.md section 7 (everything cached, doubled row estimate).
pub fn t1_chart(knobs: &KnobValues) -> ChartData {
    let prc = knobs.get(Knob::MemoryBlockReadCost);
    let rec = knobs.get(Knob::RowEvaluateCost);
    let n = 1e7;
    let p = 177_002.0;
    let ts = p * prc + n * rec + 2.1;
    let mut scan = Vec::new();
    let mut range = Vec::new();
    for i in 0..=200 {
        let f = i as f64 / 1000.0;
        let r = (2.0 * f * n).min(n / 2.0);
        scan.push((f * 100.0, ts));
        range.push((f * 100.0, (r + 1.0) * prc + r * rec + 0.01));
    }
    ChartData {
        x_label: "rows selected (%)".into(),
        y_label: "estimated cost".into(),
        series: vec![
            Series {
                label: "table scan".into(),
                points: scan,
            },
            Series {
                label: "range scan on k7".into(),
                points: range,
            },
        ],
        markers: vec![],
    }
}
