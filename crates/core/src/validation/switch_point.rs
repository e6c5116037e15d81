//! Where the real times and the simulated ones switch plans along a fraction (the T1
//! query's switch points), found by interpolation and bisection.

use super::runs::*;
use costlab_model::error::Result;
use serde::{Deserialize, Serialize};

/// Where `gap` (rising with the fraction) crosses zero between `lo` and `hi`, by
/// bisection; `None` when it does not.
pub(super) fn crossing_of(
    gap: impl Fn(f64) -> Result<f64>,
    lo: f64,
    hi: f64,
) -> Result<Option<f64>> {
    let (mut a, mut b) = (lo, hi);
    if gap(a)? >= 0.0 || gap(b)? <= 0.0 {
        return Ok(None);
    }
    for _ in 0..60 {
        let m = 0.5 * (a + b);
        if gap(m)? < 0.0 {
            a = m;
        } else {
            b = m;
        }
    }
    Ok(Some(0.5 * (a + b)))
}

/// Where the range scan stops being faster than the table scan, really and as simulated
/// (WL#8737's experiment), over the fractions measured under one cache state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SwitchPoint {
    pub cache: CacheState,
    /// The measured fractions' range.
    pub from: f64,
    pub to: f64,
    /// The fraction of the table where both plans take the same time; `None` when one
    /// plan is faster over the whole range.
    pub real: Option<f64>,
    pub simulated: Option<f64>,
}

impl SwitchPoint {
    /// The real switch from measurements `(fraction, table scan s, range scan s)`: where
    /// the log of their ratio, interpolated linearly between the measured fractions,
    /// first turns from the range scan being faster to the table scan being faster. An
    /// infinite range time (past the limit) counts as slower.
    pub fn crossing(measured: &[(f64, f64, f64)]) -> Option<f64> {
        let mut m: Vec<(f64, f64)> = measured
            .iter()
            .filter(|(f, scan, _)| f.is_finite() && *scan > 0.0)
            .map(|&(f, scan, range)| (f, (range / scan).ln()))
            .collect();
        m.sort_by(|a, b| a.0.total_cmp(&b.0));
        m.windows(2).find_map(|w| {
            let ((f0, g0), (f1, g1)) = (w[0], w[1]);
            if g0 < 0.0 && g1 >= 0.0 {
                if g1.is_infinite() {
                    return Some(f1);
                }
                Some(f0 + (f1 - f0) * (-g0) / (g1 - g0))
            } else {
                None
            }
        })
    }

    /// Percentage points between the real and the simulated switch, when both exist.
    pub fn error_pp(&self) -> Option<f64> {
        Some(100.0 * (self.simulated? - self.real?).abs())
    }

    pub fn line(&self) -> String {
        let at = |v: Option<f64>| match v {
            Some(f) => format!("{:.2} %", 100.0 * f),
            None => format!(
                "none within {:.2} to {:.2} %",
                100.0 * self.from,
                100.0 * self.to
            ),
        };
        format!(
            "switch point ({}): real {}, simulated {}{}",
            self.cache.name(),
            at(self.real),
            at(self.simulated),
            self.error_pp()
                .map(|e| format!(" ({e:.2} percentage points apart)"))
                .unwrap_or_default()
        )
    }
}
