//! Scale factors, the generator's row counts (§1.1, §1.3) and its fixed figures (order
//! days, lines per order, CURRENTDATE).

use costlab_model::error::{check_range, Result};

/// Allowed scale factors.
pub const SF_MIN: f64 = 0.01;
pub const SF_MAX: f64 = 1000.0;
/// Number of distinct order dates (§1.2, D_O).
pub const ORDER_DAYS: usize = 2406;
/// Lines per order measured at SF1 (6,001,215 / 1,500,000, §1.1).
pub const LINES_PER_ORDER: f64 = 6_001_215.0 / 1_500_000.0;
/// CURRENTDATE of dbgen (1995-06-17): returnflag / linestatus split (§1.2).
pub const CURRENT_DATE: &str = "1995-06-17";

/// Checks a scale factor: finite and within [`SF_MIN`]..=[`SF_MAX`].
pub fn check_sf(sf: f64) -> Result<f64> {
    check_range("scale factor", sf, SF_MIN, SF_MAX)
}

/// dbgen's count multiplier: SF itself from 1 up, floor(1000·SF)/1000 below (§1.3).
pub(super) fn count_scale(sf: f64) -> f64 {
    if sf >= 1.0 {
        sf
    } else {
        ((1000.0 * sf).floor() / 1000.0).max(0.001)
    }
}

/// Row counts per table (§1.1, §1.3), in schema order.
pub fn row_counts(sf: f64) -> Result<[(&'static str, f64); 8]> {
    let s = count_scale(check_sf(sf)?);
    let orders = (1_500_000.0 * s).round().max(1.0);
    Ok([
        ("region", 5.0),
        ("nation", 25.0),
        ("supplier", (10_000.0 * s).round().max(1.0)),
        ("part", (200_000.0 * s).round().max(1.0)),
        ("partsupp", (800_000.0 * s).round().max(4.0)),
        ("customer", (150_000.0 * s).round().max(1.0)),
        ("orders", orders),
        ("lineitem", (orders * LINES_PER_ORDER).round()),
    ])
}
