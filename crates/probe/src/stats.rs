//! The statistics of the probe: percentiles, medians, a percentile bootstrap of the median
//! over time-ordered blocks (circular moving-block), and a least-squares slope.

use costlab_core::calibration::Estimate;
use rand::rngs::SmallRng;
use rand::RngExt;

/// Resamples of the bootstrap.
pub const RESAMPLES: u32 = 1000;

/// The `q`-quantile (0..=1) of sorted values with linear interpolation between order
/// statistics (Hyndman and Fan's type 7, what R and NumPy use by default). NaN for none.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let h = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let i = h.floor() as usize;
            let frac = h - i as f64;
            if i + 1 >= n {
                sorted[n - 1]
            } else {
                sorted[i] + frac * (sorted[i + 1] - sorted[i])
            }
        }
    }
}

/// The `q`-quantile of unsorted values (sorts a copy; NaNs sort last).
pub fn quantile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    quantile_sorted(&v, q)
}

pub fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

/// Nearest-rank percentile of latencies in ns (sorted in place): the smallest value with at
/// least `p` percent of the values at or below it, as fio reports completion latencies.
pub fn percentile_ns(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Length of the runs of consecutive values a bootstrap of `n` time-ordered values
/// resamples: n^(1/3) rounded (1 up to 3 values, 2 up to 15, 3 up to 42).
pub fn run_length(n: usize) -> usize {
    ((n as f64).cbrt().round() as usize).clamp(1, n.max(1))
}

/// The median of `values`, in the order they were measured (one per block), and a 95 %
/// percentile-bootstrap interval of it: `RESAMPLES` resamples, the 2.5th and 97.5th
/// percentiles of their medians. A resample is built from runs of [`run_length`]
/// consecutive values at random starts (circular moving-block bootstrap), so a slow drift
/// across the blocks, which makes neighbouring blocks alike, widens the interval as it
/// should, instead of being averaged away as independent draws would. The interval is
/// widened to contain the median if resampling put it to one side.
pub fn bootstrap_median(values: &[f64], rng: &mut SmallRng) -> Estimate {
    let m = median(values);
    let n = values.len();
    if n < 2 {
        return Estimate {
            median: m,
            lo: m,
            hi: m,
            runs: n as u32,
        };
    }
    let run = run_length(n);
    let mut medians = Vec::with_capacity(RESAMPLES as usize);
    let mut sample = vec![0.0; n];
    for _ in 0..RESAMPLES {
        let mut i = 0;
        while i < n {
            let start = rng.random_range(0..n);
            for k in 0..run.min(n - i) {
                sample[i + k] = values[(start + k) % n];
            }
            i += run;
        }
        sample.sort_by(f64::total_cmp);
        medians.push(quantile_sorted(&sample, 0.5));
    }
    medians.sort_by(f64::total_cmp);
    Estimate {
        median: m,
        lo: quantile_sorted(&medians, 0.025).min(m),
        hi: quantile_sorted(&medians, 0.975).max(m),
        runs: n as u32,
    }
}

/// Least-squares slope and intercept of y over x; None with fewer than two distinct x.
pub fn linear_fit(x: &[f64], y: &[f64]) -> Option<(f64, f64)> {
    let n = x.len().min(y.len());
    if n < 2 {
        return None;
    }
    let mx = x[..n].iter().sum::<f64>() / n as f64;
    let my = y[..n].iter().sum::<f64>() / n as f64;
    let sxx: f64 = x[..n].iter().map(|a| (a - mx) * (a - mx)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = x[..n]
        .iter()
        .zip(&y[..n])
        .map(|(a, b)| (a - mx) * (b - my))
        .sum();
    let slope = sxy / sxx;
    Some((slope, my - slope * mx))
}

/// An estimate of 1 / x scaled: `k / e` with the interval's ends swapped.
pub fn reciprocal(k: f64, e: &Estimate) -> Estimate {
    Estimate {
        median: k / e.median,
        lo: k / e.hi,
        hi: k / e.lo,
        runs: e.runs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;

    #[test]
    fn quantiles_interpolate() {
        assert!(quantile(&[], 0.5).is_nan());
        assert_eq!(quantile(&[7.0], 0.9), 7.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        let v: Vec<f64> = (1..=101).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.99), 100.0);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 101.0);
        assert!((quantile(&[0.0, 10.0], 0.25) - 2.5).abs() < 1e-12);
    }

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile_ns(&v, 50.0), 50);
        assert_eq!(percentile_ns(&v, 99.0), 99);
        assert_eq!(percentile_ns(&v, 100.0), 100);
        assert_eq!(percentile_ns(&v, 0.0), 1);
        assert_eq!(percentile_ns(&[5], 99.0), 5);
        assert_eq!(percentile_ns(&[], 50.0), 0);
    }

    #[test]
    fn bootstrap_contains_the_median_and_shrinks_with_more_runs() {
        let mut rng = SmallRng::seed_from_u64(1);
        let noisy = |n: usize, rng: &mut SmallRng| -> Vec<f64> {
            (0..n)
                .map(|_| 100.0 + rng.random_range(-10.0..10.0))
                .collect()
        };
        let few = noisy(7, &mut rng);
        let many = noisy(400, &mut rng);
        let a = bootstrap_median(&few, &mut rng);
        let b = bootstrap_median(&many, &mut rng);
        assert!(a.lo <= a.median && a.median <= a.hi);
        assert!(b.lo <= 100.0 + 2.0 && b.hi >= 100.0 - 2.0, "{b:?}");
        assert!(b.hi - b.lo < a.hi - a.lo, "{a:?} {b:?}");
        assert_eq!(a.runs, 7);
        // Identical values: a zero-width interval.
        let c = bootstrap_median(&[5.0; 9], &mut rng);
        assert_eq!((c.lo, c.median, c.hi), (5.0, 5.0, 5.0));
        // One value: no interval.
        let d = bootstrap_median(&[3.0], &mut rng);
        assert_eq!((d.lo, d.hi, d.runs), (3.0, 3.0, 1));
    }

    #[test]
    fn a_drift_across_blocks_widens_the_interval() {
        let mut rng = SmallRng::seed_from_u64(4);
        // 24 blocks drifting from 90 to 110, and the same values in a shuffled order.
        let drift: Vec<f64> = (0..24)
            .map(|i| 90.0 + 20.0 * i as f64 / 23.0 + rng.random_range(-1.0..1.0))
            .collect();
        let mut mixed = drift.clone();
        mixed.shuffle(&mut rng);
        let widths = |v: &[f64], rng: &mut SmallRng| -> f64 {
            (0..20)
                .map(|_| {
                    let e = bootstrap_median(v, rng);
                    e.hi - e.lo
                })
                .sum::<f64>()
        };
        let d = widths(&drift, &mut rng);
        let m = widths(&mixed, &mut rng);
        assert!(d > m, "drift {d} vs shuffled {m}");
        assert_eq!((run_length(1), run_length(8), run_length(24)), (1, 2, 3));
    }

    #[test]
    fn bootstrap_is_reproducible_with_a_seed() {
        let v = [1.0, 5.0, 2.0, 8.0, 3.0, 9.0];
        let a = bootstrap_median(&v, &mut SmallRng::seed_from_u64(9));
        let b = bootstrap_median(&v, &mut SmallRng::seed_from_u64(9));
        assert_eq!(a, b);
    }

    #[test]
    fn fits_a_line() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let y: Vec<f64> = x.iter().map(|v| 3.0 * v + 2.0).collect();
        let (s, i) = linear_fit(&x, &y).unwrap();
        assert!((s - 3.0).abs() < 1e-12 && (i - 2.0).abs() < 1e-12);
        assert!(linear_fit(&[1.0, 1.0], &[2.0, 3.0]).is_none());
        assert!(linear_fit(&[1.0], &[2.0]).is_none());
    }

    #[test]
    fn reciprocal_swaps_the_ends() {
        let e = Estimate {
            median: 10.0,
            lo: 8.0,
            hi: 20.0,
            runs: 3,
        };
        let r = reciprocal(1000.0, &e);
        assert_eq!((r.lo, r.median, r.hi), (50.0, 100.0, 125.0));
    }
}
