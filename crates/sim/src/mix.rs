//! Throughput of a closed-loop query mix, the third seed's HammerDB experiment: `users`
//! virtual users run queries back to back (no think time) on `cores` cores; each query is a
//! positive shape (one the "ORDER BY value handed up" series speeds up) with probability
//! `w`, else a neutral one. Stock PostgreSQL against the series.
//!
//! The model (a machine-repairman queue with zero think time, M/G/C//N): a query holds one
//! core for its service time and nothing else is shared. All `users` queries are always in
//! the system, so `min(users, cores)` of them run at any time and each core completes
//! queries at one per mean service time. Throughput is therefore
//!
//! ```text
//! X(w) = min(N, C) / (w·S_pos + (1 - w)·S_neu)
//! ```
//!
//! with S_pos and S_neu the mean service times of the positive and neutral shapes (each
//! shape of a group equally likely). The series' gain at `w` is `X_variant / X_stock - 1`;
//! with `share` the part of the stock mix's time spent in positive queries and `r` the
//! series' cut of their time, it is `1 / (1 - share·r) - 1`: it grows with how slow the
//! positive queries are on stock, not with `w` alone (the seed: "the q/s gain tracks how
//! slow the positive queries are on base"). Not modelled: contention between queries (locks,
//! memory bandwidth), which the seed's neutral queries show as 7-10 % at w = 0.8.

use costlab_model::error::{Error, Result};

/// One query shape of the mix with its service time on each build.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    pub name: String,
    /// A shape the series speeds up (drawn with probability w), else neutral.
    pub positive: bool,
    /// Seconds per query on stock PostgreSQL.
    pub stock_s: f64,
    /// Seconds per query with the series.
    pub variant_s: f64,
}

/// The mix at one `w`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MixPoint {
    pub w: f64,
    /// Queries per second, stock and with the series.
    pub stock_qps: f64,
    pub variant_qps: f64,
    /// variant / stock - 1.
    pub gain: f64,
    /// Share of the stock mix's busy time spent in positive queries.
    pub positive_share: f64,
}

/// Mean service time of a group of shapes (equally likely), on one build.
fn mean(shapes: &[&Shape], variant: bool) -> f64 {
    let sum: f64 = shapes
        .iter()
        .map(|s| if variant { s.variant_s } else { s.stock_s })
        .sum();
    sum / shapes.len() as f64
}

/// The mix's throughput at each of `ws`, stock and with the series.
pub fn curve(users: u32, cores: u32, shapes: &[Shape], ws: &[f64]) -> Result<Vec<MixPoint>> {
    if users == 0 || cores == 0 {
        return Err(Error::invalid(
            "query mix",
            format!("{users} users on {cores} cores: both must be at least 1"),
        ));
    }
    for s in shapes {
        for (build, t) in [("stock", s.stock_s), ("variant", s.variant_s)] {
            if !(t.is_finite() && t > 0.0) {
                return Err(Error::invalid(
                    "query mix",
                    format!("{}: {build} time {t} s is not a positive number", s.name),
                ));
            }
        }
    }
    let positive: Vec<&Shape> = shapes.iter().filter(|s| s.positive).collect();
    let neutral: Vec<&Shape> = shapes.iter().filter(|s| !s.positive).collect();
    let running = users.min(cores) as f64;
    ws.iter()
        .map(|&w| {
            if !(0.0..=1.0).contains(&w) {
                return Err(Error::invalid(
                    "query mix",
                    format!("w = {w}: the share of positive queries runs from 0 to 1"),
                ));
            }
            let group = |g: &[&Shape], name: &str, variant: bool, p: f64| -> Result<f64> {
                match (g.is_empty(), p > 0.0) {
                    (_, false) => Ok(0.0),
                    (true, true) => Err(Error::invalid(
                        "query mix",
                        format!("w = {w} draws {name} queries, and the mix has none"),
                    )),
                    (false, true) => Ok(p * mean(g, variant)),
                }
            };
            let stock_pos = group(&positive, "positive", false, w)?;
            let stock = stock_pos + group(&neutral, "neutral", false, 1.0 - w)?;
            let variant =
                group(&positive, "positive", true, w)? + group(&neutral, "neutral", true, 1.0 - w)?;
            let (stock_qps, variant_qps) = (running / stock, running / variant);
            Ok(MixPoint {
                w,
                stock_qps,
                variant_qps,
                gain: variant_qps / stock_qps - 1.0,
                positive_share: stock_pos / stock,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(name: &str, positive: bool, stock_ms: f64, change: f64) -> Shape {
        Shape {
            name: name.into(),
            positive,
            stock_s: stock_ms / 1e3,
            variant_s: stock_ms * (1.0 + change) / 1e3,
        }
    }

    /// The seed's HammerDB runs: 96 users on 96 vCPUs; stock 4118 q/s at w = 0, 2140 at
    /// 0.2, 893 at 0.8; with the series (0007) +1.5 %, +70 %, +196 %.
    ///
    /// Fitted: the mean service times from stock's two ends (S_neu = 96 / 4118 s, then
    /// S_pos from w = 0.8). Predicted from them: stock at w = 0.2 (the seed's 2140 q/s).
    /// Predicted from the seed's per-query changes (kNN -64 %, below a join -53 %, the
    /// index-only fnorm -55 %, LEFT JOIN fnorm -85 %; the hash join over an index-only
    /// scan +8 %; neutral shapes unchanged), each positive shape equally likely and of
    /// equal stock time: the gains at 0, 0.2 and 0.8, in the seed's direction and order of
    /// magnitude. They fall short of the seed's (+70 %, +196 %) because equal stock times
    /// are assumed: the seed's gains say the slow positive shapes are the ones cut most.
    #[test]
    fn the_seeds_mix_from_its_own_service_times() {
        let s_neu = 96.0 / 4118.0 * 1e3;
        let s_pos = (96.0 / 893.0 * 1e3 - 0.2 * s_neu) / 0.8;
        let mut shapes = vec![shape("neutral", false, s_neu, 0.0)];
        for (name, change) in [
            ("kNN fgeo distance", -0.64),
            ("kNN below a join", -0.53),
            ("fnorm index-only", -0.55),
            ("fnorm LEFT JOIN", -0.85),
            ("hash join over index-only fnorm", 0.08),
        ] {
            shapes.push(shape(name, true, s_pos, change));
        }
        let pts = curve(96, 96, &shapes, &[0.0, 0.2, 0.8]).unwrap();
        for p in &pts {
            eprintln!(
                "w = {}: stock {:.0} q/s, series {:.0} q/s, gain {:+.1} %",
                p.w,
                p.stock_qps,
                p.variant_qps,
                p.gain * 100.0
            );
        }
        // Fitted ends reproduce themselves; the middle is a prediction (seed 2140 q/s).
        assert!((pts[0].stock_qps - 4118.0).abs() < 1e-6);
        assert!((pts[2].stock_qps - 893.0).abs() < 1e-6);
        assert!(
            (pts[1].stock_qps / 2140.0 - 1.0).abs() < 0.02,
            "{}",
            pts[1].stock_qps
        );
        // The series: nothing at w = 0, a gain at 0.2, a larger one at 0.8.
        assert_eq!(pts[0].gain, 0.0);
        assert!(pts[1].gain > 0.3 && pts[1].gain < 0.7, "{}", pts[1].gain);
        assert!(pts[2].gain > 0.7 && pts[2].gain < 1.96, "{}", pts[2].gain);
        // The gain follows the positive queries' share of stock's time.
        assert!(pts[1].positive_share < pts[2].positive_share);
    }

    /// Fewer users than cores: each query has a core; more: all cores stay busy.
    #[test]
    fn throughput_is_running_queries_over_mean_time() {
        let shapes = [shape("a", true, 10.0, -0.5), shape("b", false, 30.0, 0.0)];
        let at = |users, cores| curve(users, cores, &shapes, &[0.5]).unwrap()[0];
        let p = at(4, 8);
        assert!((p.stock_qps - 4.0 / 0.020).abs() < 1e-9);
        assert!((p.variant_qps - 4.0 / 0.0175).abs() < 1e-9);
        assert_eq!(at(16, 8).stock_qps, at(8, 8).stock_qps);
        assert!((p.positive_share - 0.25).abs() < 1e-12);
    }

    #[test]
    fn bad_mixes_are_errors() {
        let pos = [shape("a", true, 10.0, -0.5)];
        assert!(curve(0, 8, &pos, &[0.5]).is_err());
        assert!(curve(8, 0, &pos, &[0.5]).is_err());
        assert!(curve(8, 8, &pos, &[1.5]).is_err());
        assert!(curve(8, 8, &pos, &[f64::NAN]).is_err());
        // w < 1 draws neutral queries, and there are none.
        let e = curve(8, 8, &pos, &[0.5]).unwrap_err().to_string();
        assert!(e.contains("neutral"), "{e}");
        assert!(curve(8, 8, &pos, &[1.0]).is_ok());
        let bad = [shape("a", true, -1.0, 0.0)];
        assert!(curve(8, 8, &bad, &[1.0]).is_err());
    }
}
