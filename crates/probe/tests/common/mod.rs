//! What the validation tests share: the probe binary, whether cold runs can happen, and
//! the ranking assertion.

use costlab_core::validation::{CacheState, ValidationReport};
use std::process::Command;

pub fn probe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_costlab-probe"))
}

/// Root can drop the OS page cache, which cold runs need.
pub fn is_root() -> bool {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/sys/vm/drop_caches")
        .is_ok()
}

/// Real times closer than this are not ranked (see [`assert_rankings`]).
const NOISE_S: f64 = 0.2e-3;

/// Every pair of plans of one query whose real times differ by more than 2x (and by
/// [`NOISE_S`] at least) must be ordered as it ran, and at least 90 % of the pairs over
/// 30 %; there must be at least
/// `min_clear` pairs over 30 %. Real times on a shared virtual disk are noisy: full runs
/// here order all but 1 to 4 of about 90 pairs over 30 %, so a strict 30 % rule would
/// flake. A pair is ranked only when the measurement itself separates it: every run of the
/// faster plan faster than every run of the slower. Cold reads here have a heavy tail (five
/// cold seq scans of one table: 0.055, 0.056, 0.081, 0.18, 0.32 s), and with three runs
/// two slow ones move a median fourfold. Never a time.
pub fn assert_rankings(report: &ValidationReport, min_clear: usize) {
    let (mut clear, mut clear_wrong, mut wide, mut wide_wrong) = (0, Vec::new(), 0, Vec::new());
    for q in &report.queries {
        assert!(q.plans.len() >= 2, "{}: {} plans", q.name, q.plans.len());
        for a in &q.plans {
            for b in &q.plans {
                let (Some(ra), Some(rb)) = (a.real_s, b.real_s) else {
                    continue;
                };
                let line = || {
                    format!(
                        "{} {}: {} really {ra:.4} s < {} {rb:.4} s, simulated {:.4} >= {:.4}",
                        q.name,
                        q.cache.name(),
                        a.key,
                        b.key,
                        a.sim_s,
                        b.sim_s
                    )
                };
                // Below a fifth of a millisecond apart, a page fault or a scheduler tick
                // moves a plan by more than 30 %: such pairs say nothing of the model.
                if rb - ra < NOISE_S {
                    continue;
                }
                let slowest_a = a.runs.iter().copied().fold(ra, f64::max);
                let fastest_b = b.runs.iter().copied().fold(rb, f64::min);
                if slowest_a >= fastest_b {
                    continue;
                }
                if ra * 1.3 < rb {
                    clear += 1;
                    if a.sim_s >= b.sim_s {
                        clear_wrong.push(line());
                    }
                }
                if ra * 2.0 < rb {
                    wide += 1;
                    if a.sim_s >= b.sim_s {
                        wide_wrong.push(line());
                    }
                }
            }
        }
    }
    println!(
        "pairs over 30 %: {clear}, misordered {}; over 2x: {wide}, misordered {}",
        clear_wrong.len(),
        wide_wrong.len()
    );
    assert!(clear >= min_clear, "only {clear} clearly different pairs");
    assert!(wide_wrong.is_empty(), "{}", wide_wrong.join("\n"));
    assert!(
        clear_wrong.len() * 10 <= clear,
        "{} of {clear} pairs over 30 % misordered:\n{}",
        clear_wrong.len(),
        clear_wrong.join("\n")
    );
}

/// A cold run is the device's only if the device served it. Here the virtual disk's host
/// keeps recently written files in its own cache, out of reach of `drop_caches`: the
/// calibration reads its largest table for that reason, yet a t1 of 300,000 rows (about
/// 100 MB) written seconds before sometimes comes back at 3 to 5 times the calibrated
/// bandwidth (a CI run: cold seq scans 0.054 to 0.123 s where 404 MB/s makes 0.29 s), and
/// then every cold plan is timed against another device than the one simulated.
/// Returns the cold queries whose seq scan read its pages more than twice as fast as the
/// profile's sequential bandwidth (its time over the warm seq scan's of the same query is
/// the reading), with that bandwidth, so the caller can leave them out and say so.
pub fn host_cached_cold_queries(report: &ValidationReport) -> Vec<(String, f64)> {
    let seq = |name: &str, cache: CacheState| {
        report
            .queries
            .iter()
            .find(|q| q.name == name && q.cache == cache)
            .and_then(|q| q.plans.iter().find(|p| p.key == "seq"))
    };
    let calibrated = report.profile.device.seq_read_mbps;
    let mut cached = Vec::new();
    for q in report
        .queries
        .iter()
        .filter(|q| q.cache == CacheState::Cold)
    {
        let (Some(cold), Some(warm)) = (
            seq(&q.name, CacheState::Cold),
            seq(&q.name, CacheState::Warm),
        ) else {
            continue;
        };
        let (Some(cold_s), Some(warm_s)) = (cold.real_s, warm.real_s) else {
            continue;
        };
        let bytes = cold.shared_read * 8192.0;
        let mbps = bytes / (cold_s - warm_s).max(1e-6) / 1e6;
        if bytes > 0.0 && mbps > 2.0 * calibrated {
            cached.push((q.name.clone(), mbps));
        }
    }
    cached
}

/// The report without the cold queries [`host_cached_cold_queries`] names, each named on
/// stdout with the bandwidth it read at.
pub fn without_host_cached(report: &ValidationReport) -> ValidationReport {
    let cached = host_cached_cold_queries(report);
    for (name, mbps) in &cached {
        println!(
            "{name} cold: seq scan read at {mbps:.0} MB/s against the calibrated {:.0}: \
             served by the host's cache, not ranked",
            report.profile.device.seq_read_mbps
        );
    }
    let mut kept = report.clone();
    kept.queries
        .retain(|q| q.cache != CacheState::Cold || !cached.iter().any(|(n, _)| *n == q.name));
    kept
}
