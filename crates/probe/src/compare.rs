//! `costlab-probe compare A.json B.json`: do two calibration files agree, figure by figure,
//! within their confidence intervals?
//!
//! Three criteria are reported for every figure, and one decides the exit status:
//!
//! * `overlap`: the two 95 % intervals share a point. The literal reading of "agree within
//!   their confidence intervals", and the right acceptance test for two runs: if both
//!   intervals are honest 95 % intervals of the same quantity, two of equal width miss each
//!   other in only about 0.6 % of comparisons (their medians would have to be 2.77 standard
//!   errors of one run apart), so a miss is evidence that the intervals are too narrow or
//!   the machine changed between the runs.
//! * `difference`: the difference of the medians is within its own 95 % interval,
//!   |ln b − ln a| ≤ √(h_a² + h_b²) with h the half-widths (in logarithms) on the sides that
//!   face each other: the usual two-sample test at 5 %. With honest intervals one figure in
//!   twenty fails by chance, so with 19 figures about one failure per comparison is normal.
//! * `contains`: each median lies inside the other's interval. Stricter still: with honest
//!   intervals of equal width it fails for about 17 % of the figures by chance (the medians
//!   are √2 standard errors of one run apart on average), so it cannot tell good intervals
//!   from bad ones and is shown for information only.

use costlab_core::calibration::{Calibration, Estimate};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Criterion {
    Overlap,
    Difference,
    Contains,
}

impl std::str::FromStr for Criterion {
    type Err = String;
    fn from_str(s: &str) -> Result<Criterion, String> {
        match s {
            "overlap" => Ok(Criterion::Overlap),
            "difference" => Ok(Criterion::Difference),
            "contains" => Ok(Criterion::Contains),
            _ => Err(format!("`{s}`: use overlap, difference or contains")),
        }
    }
}

/// How two estimates of one figure relate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// b.median / a.median.
    pub ratio: f64,
    pub overlap: bool,
    pub difference: bool,
    pub contains: bool,
}

impl Verdict {
    pub fn agrees(&self, c: Criterion) -> bool {
        match c {
            Criterion::Overlap => self.overlap,
            Criterion::Difference => self.difference,
            Criterion::Contains => self.contains,
        }
    }
}

fn inside(x: f64, e: &Estimate) -> bool {
    e.lo <= x && x <= e.hi
}

/// Compares two estimates of the same figure (see the module documentation).
pub fn judge(a: &Estimate, b: &Estimate) -> Verdict {
    let overlap = a.lo <= b.hi && b.lo <= a.hi;
    let contains = inside(a.median, b) && inside(b.median, a);
    // The half-widths facing each other; in logarithms for positive figures (the
    // intervals are multiplicative), else linear.
    let (lower, upper) = if a.median <= b.median { (a, b) } else { (b, a) };
    let positive = a.lo > 0.0 && b.lo > 0.0;
    let difference = if positive {
        let d = (upper.median / lower.median).ln();
        let h1 = (lower.hi / lower.median).ln();
        let h2 = (upper.median / upper.lo).ln();
        d <= (h1 * h1 + h2 * h2).sqrt() * (1.0 + 1e-12)
    } else {
        let d = upper.median - lower.median;
        let h1 = lower.hi - lower.median;
        let h2 = upper.median - upper.lo;
        d <= (h1 * h1 + h2 * h2).sqrt() * (1.0 + 1e-12)
    };
    Verdict {
        ratio: b.median / a.median,
        overlap,
        difference,
        contains,
    }
}

/// The figures compared: the 19 main figures (both sequential rates, the IOPS of every
/// page size and queue depth, the memory tiers, CPU per row and the PostgreSQL view of the
/// device), with `all` also the latencies of every random point and the other ratios, and
/// the PostgreSQL experiment's random_page_cost when both files have it.
pub fn figures(c: &Calibration, all: bool) -> Vec<(String, Estimate)> {
    let mut v = vec![
        ("seq_read.large MB/s".to_string(), c.seq_read.large.mbps),
        ("seq_read.page MB/s".to_string(), c.seq_read.page.mbps),
    ];
    for s in &c.random_reads {
        for p in &s.points {
            let k = format!("random {} kB QD{}", s.page_bytes / 1024, p.queue_depth);
            v.push((format!("{k} IOPS"), p.iops));
            if all {
                v.push((format!("{k} mean µs"), p.mean_us));
                v.push((format!("{k} p50 µs"), p.p50_us));
                v.push((format!("{k} p99 µs"), p.p99_us));
            }
        }
    }
    v.push(("buffer_hit_ns".into(), c.buffer_hit_ns));
    if let Some(e) = c.buffer_hit_16k_ns {
        v.push(("buffer_hit_16k_ns".into(), e));
    }
    v.push(("os_cache_hit_ns".into(), c.os_cache_hit_ns));
    v.push(("cpu_ns_per_row".into(), c.cpu_ns_per_row));
    v.push((
        "ratios.random_over_seq_8k".into(),
        c.ratios.random_over_seq_8k,
    ));
    if all {
        v.push((
            "ratios.random_over_seq_page_8k".into(),
            c.ratios.random_over_seq_page_8k,
        ));
        v.push((
            "ratios.disk_over_memory_16k".into(),
            c.ratios.disk_over_memory_16k,
        ));
        v.push((
            "ratios.disk_over_os_cache_8k".into(),
            c.ratios.disk_over_os_cache_8k,
        ));
    }
    if let Some(pg) = &c.postgres {
        v.push(("postgres random_page_cost".into(), pg.random_page_cost));
    }
    v
}

/// One row of the comparison: a figure both files have.
pub struct Row {
    pub name: String,
    pub a: Estimate,
    pub b: Estimate,
    pub verdict: Verdict,
}

/// The figures of `a` that `b` has too, judged.
pub fn compare(a: &Calibration, b: &Calibration, all: bool) -> Vec<Row> {
    let fb = figures(b, all);
    figures(a, all)
        .into_iter()
        .filter_map(|(name, ea)| {
            let eb = fb.iter().find(|(n, _)| *n == name)?.1;
            Some(Row {
                verdict: judge(&ea, &eb),
                name,
                a: ea,
                b: eb,
            })
        })
        .collect()
}

fn digits(e: &Estimate) -> usize {
    let m = e.median.abs();
    if m >= 100.0 {
        0
    } else if m >= 10.0 {
        1
    } else {
        2
    }
}

fn fmt(e: &Estimate) -> String {
    let d = digits(e);
    format!("{:.d$} [{:.d$}, {:.d$}]", e.median, e.lo, e.hi)
}

/// The comparison as a table with a summary; the count of figures that agree by `by`.
pub fn report(rows: &[Row], by: Criterion) -> (String, usize) {
    let yes = |b: bool| if b { "yes" } else { "NO" };
    let mut s = format!(
        "{:<28} {:>30} {:>30} {:>6}  {:<7} {:<10} {:<8}\n",
        "figure",
        "A median [95 % CI]",
        "B median [95 % CI]",
        "B/A",
        "overlap",
        "difference",
        "contains"
    );
    for r in rows {
        s += &format!(
            "{:<28} {:>30} {:>30} {:>6.3}  {:<7} {:<10} {:<8}\n",
            r.name,
            fmt(&r.a),
            fmt(&r.b),
            r.verdict.ratio,
            yes(r.verdict.overlap),
            yes(r.verdict.difference),
            yes(r.verdict.contains)
        );
    }
    let count = |c: Criterion| rows.iter().filter(|r| r.verdict.agrees(c)).count();
    let n = rows.len();
    s += &format!(
        "agree: intervals overlap {}/{n}; difference within its interval {}/{n}; each median \
         inside the other's interval {}/{n}\n",
        count(Criterion::Overlap),
        count(Criterion::Difference),
        count(Criterion::Contains)
    );
    s += &format!(
        "expected by chance with honest 95 % intervals of equal width: overlap misses 0.6 %, \
         difference 5 %, contains 17 % of figures; decided by: {by:?}\n"
    );
    (s, count(by))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(median: f64, lo: f64, hi: f64) -> Estimate {
        Estimate {
            median,
            lo,
            hi,
            runs: 24,
        }
    }

    #[test]
    fn the_three_criteria() {
        // Same interval: agree by all.
        let v = judge(&e(100.0, 95.0, 105.0), &e(100.0, 95.0, 105.0));
        assert!(v.overlap && v.difference && v.contains && v.ratio == 1.0);
        // Overlapping, medians outside each other's intervals, difference too large:
        // ln(110/100) = 0.0953 > √(ln(104/100)² + ln(110/103)²) = 0.0766.
        let v = judge(&e(100.0, 96.0, 104.0), &e(110.0, 103.0, 114.0));
        assert!(v.overlap && !v.difference && !v.contains, "{v:?}");
        // Overlapping and the difference within its interval, but medians outside:
        // ln(1.06) = 0.058 <= √(2 × ln(1.05)²) = 0.069.
        let v = judge(&e(100.0, 96.0, 105.0), &e(106.0, 101.0, 110.0));
        assert!(v.overlap && v.difference && !v.contains, "{v:?}");
        // Disjoint: nothing agrees; symmetric in the order of the files.
        for (a, b) in [
            (e(100.0, 98.0, 102.0), e(120.0, 118.0, 122.0)),
            (e(120.0, 118.0, 122.0), e(100.0, 98.0, 102.0)),
        ] {
            let v = judge(&a, &b);
            assert!(!v.overlap && !v.difference && !v.contains);
        }
        // Only the facing half-widths count: a long far tail does not help.
        let v = judge(&e(100.0, 99.0, 101.0), &e(110.0, 109.0, 500.0));
        assert!(!v.overlap && !v.difference);
        // Zero-width intervals agree only when equal; non-positive figures use differences.
        assert!(judge(&e(5.0, 5.0, 5.0), &e(5.0, 5.0, 5.0)).difference);
        assert!(!judge(&e(5.0, 5.0, 5.0), &e(5.1, 5.1, 5.1)).overlap);
        let v = judge(&e(0.0, -1.0, 1.0), &e(1.0, 0.0, 2.0));
        assert!(v.overlap && v.difference && v.contains);
    }

    fn sample() -> Calibration {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../static/calibration/this-ci-machine.json"
        ))
        .unwrap();
        Calibration::from_json(&text).unwrap()
    }

    #[test]
    fn compares_every_figure_of_two_files() {
        let a = sample();
        let mut b = a.clone();
        let rows = compare(&a, &b, false);
        assert_eq!(
            rows.len(),
            19,
            "2 seq + 12 IOPS + 4 memory and CPU + 1 ratio"
        );
        assert!(rows.iter().all(|r| r.verdict.contains));
        assert_eq!(compare(&a, &b, true).len(), 19 + 12 * 3 + 3);

        // Move one figure of B out of A's interval, and another only a little.
        let m = a.seq_read.large.mbps;
        let w = m.hi - m.lo;
        b.seq_read.large.mbps = e(m.hi + 3.0 * w, m.hi + 2.0 * w, m.hi + 4.0 * w);
        let c = a.cpu_ns_per_row;
        b.cpu_ns_per_row = e(c.hi, c.median, c.hi + (c.hi - c.median));
        let rows = compare(&a, &b, false);
        let row = |n: &str| rows.iter().find(|r| r.name == n).unwrap();
        assert!(!row("seq_read.large MB/s").verdict.overlap);
        let cpu = row("cpu_ns_per_row").verdict;
        assert!(cpu.overlap && cpu.contains, "{cpu:?}");
        let (text, agree) = report(&rows, Criterion::Overlap);
        assert_eq!(agree, 18);
        assert!(text.contains("intervals overlap 18/19"), "{text}");
        assert!(text
            .lines()
            .any(|l| l.starts_with("seq_read.large MB/s") && l.contains("NO")));

        // The PostgreSQL figure is compared when both files have it.
        assert!(figures(&a, false)
            .iter()
            .all(|(n, _)| !n.contains("postgres")));
    }

    #[test]
    fn criteria_parse() {
        assert_eq!("overlap".parse(), Ok(Criterion::Overlap));
        assert_eq!("contains".parse(), Ok(Criterion::Contains));
        assert!("x".parse::<Criterion>().is_err());
    }
}
