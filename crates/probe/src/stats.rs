//! The statistics of the probe: percentiles, medians, the interval of a figure measured
//! once per block over a run ([`estimate`]: the wider of a circular moving-block bootstrap
//! of the median and a batch-means t interval over consecutive time segments), how much a
//! figure drifted during the run ([`drift`]), and a least-squares slope.

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

/// Most consecutive segments [`segment_interval`] cuts a run into.
pub const MAX_SEGMENTS: usize = 4;

/// Two-sided 95 % quantile of Student's t with `df` degrees of freedom (t_{0.975, df}).
pub fn t975(df: usize) -> f64 {
    const T: [f64; 12] = [
        f64::INFINITY,
        12.706,
        4.303,
        3.182,
        2.776,
        2.571,
        2.447,
        2.365,
        2.306,
        2.262,
        2.228,
        2.201,
    ];
    match T.get(df) {
        Some(&t) => t,
        // Within 0.5 % of the exact value above 11 degrees of freedom.
        None => 1.96 + 2.4 / df as f64,
    }
}

/// How a run of `n` time-ordered block values is cut into consecutive segments: the
/// segment count (at most [`MAX_SEGMENTS`], at least 2 blocks each) or None below three
/// segments, where a t interval with one or two degrees of freedom says nothing useful.
pub fn segments(n: usize) -> Option<usize> {
    let k = (n / 2).min(MAX_SEGMENTS);
    (k >= 3).then_some(k)
}

/// The median of each of `k` consecutive segments of `values` (in measuring order), the
/// segments as equal as the count allows.
pub fn segment_medians(values: &[f64], k: usize) -> Vec<f64> {
    let n = values.len();
    (0..k)
        .map(|i| median(&values[i * n / k..(i + 1) * n / k]))
        .collect()
}

/// Batch means (the classical interval for a time series whose values are not independent,
/// as in simulation output analysis): the run's values in measuring order are cut into
/// [`segments`] consecutive segments, each summarised by its median, and the interval is
/// the run's median × exp(± t_{0.975, k-1} × s / √k), s the standard deviation of the
/// logarithms of the segment medians. The logarithm because the figures are positive rates
/// and times whose noise is multiplicative (and an interval of IOPS stays one of latency
/// when inverted). A drift over the run makes the segments differ, so the interval widens
/// with it, whatever the drift's time scale within the run. None with fewer than three
/// segments or a non-positive value.
pub fn segment_interval(values: &[f64]) -> Option<(f64, f64)> {
    let k = segments(values.len())?;
    if values.iter().any(|&v| !(v > 0.0 && v.is_finite())) {
        return None;
    }
    let logs: Vec<f64> = segment_medians(values, k).iter().map(|m| m.ln()).collect();
    let mean = logs.iter().sum::<f64>() / k as f64;
    let var = logs.iter().map(|l| (l - mean) * (l - mean)).sum::<f64>() / (k - 1) as f64;
    let half = t975(k - 1) * var.sqrt() / (k as f64).sqrt();
    let m = median(values);
    Some((m * (-half).exp(), m * half.exp()))
}

/// The figure of a run measured once per block: the median of the block values, with the
/// wider of two 95 % intervals, each valid under its own assumption: the moving-block
/// bootstrap ([`bootstrap_median`]; dependence only between neighbouring blocks) and batch
/// means over consecutive segments ([`segment_interval`]; any drift within the run). A
/// figure gets the less favourable of the two.
pub fn estimate(values: &[f64], rng: &mut SmallRng) -> Estimate {
    let mut e = bootstrap_median(values, rng);
    if let Some((lo, hi)) = segment_interval(values) {
        e.lo = e.lo.min(lo);
        e.hi = e.hi.max(hi);
    }
    e
}

/// How much a figure moved during the run: the lowest and highest of its segment medians
/// (see [`segment_interval`]) and the relative change highest / lowest - 1. None when the
/// run has fewer than three segments.
pub fn drift(values: &[f64]) -> Option<(f64, f64, f64)> {
    let k = segments(values.len())?;
    let m = segment_medians(values, k);
    let lo = m.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = m.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo > 0.0).then(|| (lo, hi, hi / lo - 1.0))
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
    fn t_quantiles() {
        assert_eq!(t975(5), 2.571);
        assert!((t975(30) - 2.042).abs() < 0.01, "{}", t975(30));
        assert!(t975(0).is_infinite());
        assert_eq!(
            (
                segments(2),
                segments(6),
                segments(8),
                segments(24),
                segments(100)
            ),
            (None, Some(3), Some(4), Some(4), Some(4))
        );
        assert_eq!(
            segment_medians(&[1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 20.0], 3),
            [2.0, 6.0, 11.0]
        );
    }

    /// Blocks that are alike within each stretch of the run but whose level moves between
    /// stretches (the disk of a virtual machine) are what the bootstrap of independent-ish
    /// blocks misses; the segment interval covers them and `estimate` takes the wider.
    #[test]
    fn a_level_shift_widens_the_segment_interval_and_is_reported_as_drift() {
        let mut rng = SmallRng::seed_from_u64(2);
        // 24 blocks: 12 at about 1000, then 12 at about 1300 (a 30 % step).
        let v: Vec<f64> = (0..24)
            .map(|i| {
                let level = if i < 12 { 1000.0 } else { 1300.0 };
                level * (1.0 + rng.random_range(-0.01..0.01))
            })
            .collect();
        let (lo, hi) = segment_interval(&v).unwrap();
        assert!(lo < 1000.0 && hi > 1300.0, "{lo} {hi}");
        let e = estimate(&v, &mut rng);
        assert!(e.lo <= lo && e.hi >= hi && e.lo <= e.median && e.median <= e.hi);
        let (dlo, dhi, rel) = drift(&v).unwrap();
        assert!(
            dlo < 1010.0 && dhi > 1290.0 && (rel - 0.3).abs() < 0.03,
            "{rel}"
        );

        // Steady blocks: a narrow interval and no drift to speak of.
        let steady: Vec<f64> = (0..24)
            .map(|_| 1000.0 * (1.0 + rng.random_range(-0.01..0.01)))
            .collect();
        let (lo, hi) = segment_interval(&steady).unwrap();
        assert!(lo > 985.0 && hi < 1015.0, "{lo} {hi}");
        assert!(drift(&steady).unwrap().2 < 0.03);
        // Too few blocks for segments: the bootstrap alone.
        assert!(segment_interval(&[1.0, 2.0, 3.0, 4.0, 5.0]).is_none());
        assert!(segment_interval(&[1.0, 2.0, 0.0, 4.0, 5.0, 6.0]).is_none());
        let e = estimate(&[1.0, 2.0, 3.0], &mut rng);
        assert!(e.lo <= 2.0 && e.hi >= 2.0);
    }

    /// Two runs back to back of 24 blocks each, whose level follows a slow autoregressive
    /// walk (correlation time about 10 blocks, a quarter of a default run, so it drifts
    /// within and between runs) plus block noise: with honest intervals the two overlap in
    /// about 99 % of the pairs. The bootstrap alone manages about 72 % in this model, the
    /// wider of it and the four-segment interval about 94 % (six segments: 87 %): drift much
    /// slower than a run cannot be seen from inside one run.
    #[test]
    fn intervals_cover_a_slowly_drifting_process() {
        let mut rng = SmallRng::seed_from_u64(11);
        let mut level: f64 = 0.0;
        let run = |rng: &mut SmallRng, level: &mut f64| -> Vec<f64> {
            (0..24)
                .map(|_| {
                    *level = 0.9 * *level + rng.random_range(-0.04..0.04);
                    1000.0 * (*level + rng.random_range(-0.03..0.03)).exp()
                })
                .collect()
        };
        let (mut both, mut boot_only, trials) = (0, 0, 300);
        for _ in 0..trials {
            let a = run(&mut rng, &mut level);
            let b = run(&mut rng, &mut level);
            let ea = estimate(&a, &mut rng);
            let eb = estimate(&b, &mut rng);
            if ea.lo <= eb.hi && eb.lo <= ea.hi {
                both += 1;
            }
            let ba = bootstrap_median(&a, &mut rng);
            let bb = bootstrap_median(&b, &mut rng);
            if ba.lo <= bb.hi && bb.lo <= ba.hi {
                boot_only += 1;
            }
        }
        println!("overlap: {both} with estimate, {boot_only} with the bootstrap alone");
        assert!(both > boot_only, "{both} vs {boot_only}");
        assert!(both as f64 >= 0.9 * trials as f64, "{both} of {trials}");
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
