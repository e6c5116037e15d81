//! The executor's calibration: the probe's calibration queries, the runs it times, and the
//! CPU and device figures fitted to them (non-negative least squares).

use super::runs::*;
use crate::scenario_file::ScenarioFile;
use costlab_model::error::{Error, Result};
use costlab_model::knobs::{EngineVersion, KnobValues};
use costlab_pg::join::{PgJoinEnv, PgJoinPlanner};
use costlab_pg::PgOptions;
use costlab_sim::{MachineProfile, Simulator};
use costlab_workload::dbt3::queries::calibration_query;
use costlab_workload::dbt3::shape::model_shape;
use serde::{Deserialize, Serialize};

/// The switches the probe runs the hash join calibration query with: a hash join of two
/// sequential scans, whatever the statistics.
pub const CAL_JOIN_SWITCHES: &[&str] = &[
    "enable_nestloop=off",
    "enable_mergejoin=off",
    "enable_indexscan=off",
    "enable_indexonlyscan=off",
    "enable_bitmapscan=off",
];
/// The switches of the other hash and sort calibration queries: a sequential scan below.
pub const CAL_SCAN_SWITCHES: &[&str] = &[
    "enable_indexscan=off",
    "enable_indexonlyscan=off",
    "enable_bitmapscan=off",
];

/// The name ending of the cold calibration query that measures in-order reads one request
/// at a time (an index scan of a correlated key; sim::time assumption 17).
pub const ORDERED_CALIBRATION: &str = "index correlated cold";

/// One calibration query as it ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CalibrationRun {
    pub name: String,
    pub sql: String,
    /// The candidate plan it was forced to.
    pub key: String,
    pub cache: CacheState,
    /// Median seconds.
    pub real_s: f64,
    /// The switches it ran with (`enable_nestloop=off`), for the calibration queries the
    /// join planner plans ([`calibration_query`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forced_with: Vec<String>,
    /// The server's plan as a shape (`Agg(HJ(Seq(cal), Hash(Seq(cal))))`), for those
    /// queries: the model's must be the same, or its time says nothing of the figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real_plan: Option<String>,
}

/// The calibration tables' statistics and the calibration queries' times.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecutorCalibration {
    pub scenario: ScenarioFile,
    pub runs: Vec<CalibrationRun>,
}

impl ExecutorCalibration {
    /// Plans each calibration query with the model and fits the executor's figures on top
    /// of `base`: warm runs by [`fit_executor`], then the first cold sequential scan and
    /// the first cold index scan by [`ExecutorFit::fit_cold`].
    pub fn fit(
        &self,
        base: &MachineProfile,
        release: EngineVersion,
        knobs: &KnobValues,
    ) -> Result<ExecutorFit> {
        let mut warm = Vec::new();
        let mut cold = Vec::new();
        for r in &self.runs {
            let plan = if let Some(q) = calibration_query(&r.name, &self.scenario.tables) {
                self.plan_join_calibration(r, &q?, knobs, release)?
            } else {
                let planned = plan_sql(
                    &self.scenario,
                    &r.sql,
                    knobs,
                    release,
                    base.buffer_pool_bytes,
                )?;
                candidate(&planned, &r.key, &r.name)?.clone()
            };
            match r.cache {
                CacheState::Warm => warm.push((r.name.clone(), plan, r.real_s)),
                CacheState::Cold => cold.push((r.key.clone(), plan, r.real_s, r.name.clone())),
            }
        }
        let mut fit = fit_executor(base, release, &warm)?;
        // PostgreSQL's and InnoDB's keys for a full scan and a random lookup per row.
        let seq = cold
            .iter()
            .find(|c| c.0 == "seq" || c.0 == "table_scan")
            .map(|c| (&c.1, c.2));
        let random = cold
            .iter()
            .find(|c| {
                (c.0.starts_with("index:") || c.0.starts_with("range:"))
                    && !c.3.ends_with(ORDERED_CALIBRATION)
            })
            .map(|c| (&c.1, c.2));
        fit.fit_cold(base, release, seq, random)?;
        let ordered = cold
            .iter()
            .find(|c| c.3.ends_with(ORDERED_CALIBRATION))
            .map(|c| (&c.1, c.2));
        fit.fit_ordered(base, release, ordered)?;
        Ok(fit)
    }

    /// The join planner's plan of a calibration query of hashing or sorting, under the
    /// switches it ran with; an error when it is not the plan the server ran.
    pub(super) fn plan_join_calibration(
        &self,
        r: &CalibrationRun,
        q: &costlab_model::block::JoinQuery,
        knobs: &KnobValues,
        release: EngineVersion,
    ) -> Result<costlab_model::plan::PlanNode> {
        let env = PgJoinEnv {
            version: release,
            opts: PgOptions::with_switches_off(&r.forced_with)?,
            ..PgJoinEnv::default()
        };
        let cal = self.scenario.table("cal")?.clone();
        let plan = PgJoinPlanner::new(&[cal], env)?.plan(q, knobs)?;
        let shape = model_shape(&plan.tree);
        if let Some(real) = &r.real_plan {
            if *real != shape {
                return Err(Error::invalid(
                    "executor calibration",
                    format!("{}: the server ran {real}, the model plans {shape}", r.name),
                ));
            }
        }
        Ok(plan.tree)
    }
}

/// What an engine's executor spends per unit of work, measured on calibration queries of
/// their own (a table the validated workloads never read), so that times predicted for the
/// workloads rest on the device figures and these, never on the workloads' own timings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecutorFit {
    pub cpu_ns_per_row: f64,
    pub cpu_ns_per_index_entry: f64,
    pub cpu_ns_per_operator: f64,
    /// A sort's comparison; `None` when no calibration query sorted (then an operator's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ns_per_comparison: Option<f64>,
    /// A row into or out of a hash table, by the table's size (sim::time assumption 9);
    /// `None` when no calibration query hashed (then an operator's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash_rows: Option<costlab_sim::HashRowCost>,
    /// Finding a page in the engine's buffer.
    pub buffer_hit_ns: f64,
    /// Bringing a page from the OS page cache into the engine's buffer (read call, copy,
    /// buffer replacement). `None` when no calibration query measured it.
    pub os_cache_hit_ns: Option<f64>,
    /// The same into a full buffer, a victim evicted first (sim::time assumption 15).
    #[serde(default)]
    pub os_cache_evict_hit_ns: Option<f64>,
    /// Sequential reading as the engine does it cold (8 kB buffered reads behind the
    /// kernel's read-ahead), MB/s; `None`: the probe's figure.
    #[serde(default)]
    pub seq_read_mbps: Option<f64>,
    /// A random 8 kB buffered read of a cold page, µs; `None`: the probe's figure.
    #[serde(default)]
    pub random_read_us: Option<f64>,
    /// In-order reads one request at a time, cold (an index scan of a correlated key),
    /// MB/s (sim::time assumption 17); `None`: not measured.
    #[serde(default)]
    pub ordered_read_mbps: Option<f64>,
    /// One execution's start and end, ns (sim::time assumption 16); 0 when no calibration
    /// query was short enough to show it.
    #[serde(default)]
    pub executor_start_ns: f64,
    /// Each calibration query: its name, the measured seconds and the fit's seconds.
    pub queries: Vec<(String, f64, f64)>,
}

impl ExecutorFit {
    /// `profile` with the executor's figures in place of the probe's synthetic ones
    /// (comparisons in sorts and hashes cost what an operator does).
    pub fn apply(&self, profile: &MachineProfile) -> MachineProfile {
        let mut p = profile.clone();
        p.cpu_ns_per_row = self.cpu_ns_per_row;
        p.cpu_ns_per_index_entry = self.cpu_ns_per_index_entry;
        p.cpu_ns_per_operator = self.cpu_ns_per_operator;
        p.cpu_ns_per_comparison = self
            .cpu_ns_per_comparison
            .unwrap_or(self.cpu_ns_per_operator);
        if self.hash_rows.is_some() {
            p.hash_rows = self.hash_rows;
        }
        p.buffer_hit_ns = self.buffer_hit_ns;
        if let Some(os) = self.os_cache_hit_ns {
            p.os_cache_hit_ns = os;
        }
        if let Some(v) = self.os_cache_evict_hit_ns {
            p.os_cache_evict_hit_ns = Some(v);
        }
        if let Some(mbps) = self.seq_read_mbps {
            p.device.seq_read_mbps = mbps;
        }
        if let Some(mbps) = self.ordered_read_mbps {
            p.device.ordered_read_mbps = Some(mbps);
        }
        p.executor_start_ns = self.executor_start_ns;
        if let Some(us) = self.random_read_us {
            let f = us / p.device.random_8k.qd1_latency_us;
            scale_random_8k(&mut p, f);
        }
        p
    }

    /// Fits the in-order read bandwidth (`ordered_read_mbps`) to a cold index scan of a
    /// correlated key, on top of the other figures: the bandwidth that makes its simulated
    /// time equal the measured one. Left unset when the query is not I/O-bound enough.
    pub fn fit_ordered(
        &mut self,
        profile: &MachineProfile,
        release: EngineVersion,
        ordered: Option<(&costlab_model::plan::PlanNode, f64)>,
    ) -> Result<()> {
        let Some((plan, real)) = ordered else {
            return Ok(());
        };
        let mut base = self.apply(profile);
        base.warm_cache = false;
        let at = |mbps: f64| -> Result<f64> {
            let mut p = base.clone();
            p.device.ordered_read_mbps = Some(mbps);
            Ok(Simulator::for_release(&p, release)?
                .time_plan(plan)?
                .total_s)
        };
        self.ordered_read_mbps = solve_log((1.0, 100_000.0), false, real, at)?;
        let fitted = match self.ordered_read_mbps {
            Some(m) => at(m)?,
            None => {
                Simulator::for_release(&base, release)?
                    .time_plan(plan)?
                    .total_s
            }
        };
        self.queries
            .push(("cold ordered (bandwidth)".into(), real, fitted));
        Ok(())
    }

    /// Fits the cold read figures to cold calibration queries (a sequential scan and a
    /// random index scan of a table the workloads never read) on top of the warm fit:
    /// the sequential bandwidth and the random read latency that make the simulated times
    /// of those plans equal the measured ones. A figure whose query is not I/O-bound
    /// enough to tell stays the probe's.
    pub fn fit_cold(
        &mut self,
        profile: &MachineProfile,
        release: EngineVersion,
        seq: Option<(&costlab_model::plan::PlanNode, f64)>,
        random: Option<(&costlab_model::plan::PlanNode, f64)>,
    ) -> Result<()> {
        let mut base = self.apply(profile);
        base.warm_cache = false;
        let time = |p: &MachineProfile, plan: &costlab_model::plan::PlanNode| -> Result<f64> {
            Ok(Simulator::for_release(p, release)?.time_plan(plan)?.total_s)
        };
        if let Some((plan, real)) = seq {
            // Simulated time falls as bandwidth rises; bisect in log(MB/s).
            let at = |mbps: f64| -> Result<f64> {
                let mut p = base.clone();
                p.device.seq_read_mbps = mbps;
                time(&p, plan)
            };
            // Not bounded by the probe's figure: through a virtual disk whose host caches
            // it, the scan's bandwidth was 3 to 6x the probe's O_DIRECT one here, and a
            // probe run beside a busy disk measured a fraction of it; bounded to ten times
            // the probe, such a fit failed and fell back to the probe's figure, 2.5x too
            // slow. A time the model cannot reach within the range takes its nearest end.
            let mbps = solve_log_nearest(SEQ_MBPS_RANGE, false, real, at)?;
            self.seq_read_mbps = Some(mbps);
            base.device.seq_read_mbps = mbps;
            self.queries
                .push(("cold seq (bandwidth)".into(), real, time(&base, plan)?));
        }
        if let Some((plan, real)) = random {
            let lat0 = base.device.random_8k.qd1_latency_us;
            let at = |f: f64| -> Result<f64> {
                let mut p = base.clone();
                scale_random_8k(&mut p, f);
                time(&p, plan)
            };
            // Within a factor of 10 of the probe's figure: beyond it the query was not
            // I/O-bound as the model sees it, and the figure is left alone.
            if let Some(f) = solve_log((0.1, 10.0), true, real, at)? {
                self.random_read_us = Some(lat0 * f);
                scale_random_8k(&mut base, f);
            }
            self.queries
                .push(("cold random (latency)".into(), real, time(&base, plan)?));
        }
        Ok(())
    }
}

/// The `x` within `range` at which `at(x)` equals `target`, by bisection in log(x); `at`
/// rises with `x` when `rising`, else falls. `None` when `target` lies outside what `at`
/// gives over the range (the query did not depend enough on the figure to tell it).
pub(super) fn solve_log(
    range: (f64, f64),
    rising: bool,
    target: f64,
    at: impl Fn(f64) -> Result<f64>,
) -> Result<Option<f64>> {
    let (mut lo, mut hi) = range;
    let (a, b) = (at(lo)?, at(hi)?);
    let inside = if rising {
        a < target && target < b
    } else {
        b < target && target < a
    };
    if !inside {
        return Ok(None);
    }
    for _ in 0..100 {
        let mid = (lo * hi).sqrt();
        if (at(mid)? < target) == rising {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some((lo * hi).sqrt()))
}

/// What a fitted sequential bandwidth may be, MB/s: a floppy disk to a RAM disk.
pub(super) const SEQ_MBPS_RANGE: (f64, f64) = (1.0, 100_000.0);

/// As [`solve_log`], but a `target` outside what `at` gives over the range takes the end
/// whose value is nearest to it.
pub(super) fn solve_log_nearest(
    range: (f64, f64),
    rising: bool,
    target: f64,
    at: impl Fn(f64) -> Result<f64>,
) -> Result<f64> {
    if let Some(x) = solve_log(range, rising, target, &at)? {
        return Ok(x);
    }
    let (lo, hi) = range;
    let (a, b) = (at(lo)?, at(hi)?);
    Ok(if (a - target).abs() <= (b - target).abs() {
        lo
    } else {
        hi
    })
}

/// Random reads (8 and 16 kB) `f` times as slow at every queue depth.
pub(super) fn scale_random_8k(p: &mut MachineProfile, f: f64) {
    for curve in [&mut p.device.random_8k, &mut p.device.random_16k] {
        curve.qd1_latency_us *= f;
        for q in &mut curve.iops_by_qd {
            q.iops /= f;
        }
    }
}

/// Fits the executor's figures to calibration queries run warm (everything they read in
/// shared_buffers or, for a scan through the ring, the OS page cache): each sample is a
/// name, the model's plan of the query as it ran, and the measured seconds. The simulation
/// of such a plan is linear in the five figures (no device I/O), so the counts per figure
/// come from timing each plan on unit profiles, and the figures from non-negative least
/// squares on relative errors.
pub fn fit_executor(
    profile: &MachineProfile,
    release: EngineVersion,
    samples: &[(String, costlab_model::plan::PlanNode, f64)],
) -> Result<ExecutorFit> {
    const FIGURES: usize = 10;
    // The start-up figure only where a calibration query is short enough to show it: in
    // queries of tens of milliseconds 50 µs is noise, and the fit would trade it against
    // the per-row figures.
    const SHORT_S: f64 = 1e-3;
    let fit_start = samples
        .iter()
        .any(|(_, _, real)| *real > 0.0 && *real < SHORT_S);
    const UNIT: f64 = 1000.0;
    let tiny = 0.01_f64;
    // The smallest and the largest hash table the calibration queries fill: the sizes at
    // which a hash row's cost is measured.
    let hash_sizes = {
        let mut sizes = Vec::new();
        for (_, plan, _) in samples {
            plan.walk(&mut |n| sizes.extend(costlab_sim::hash_table_bytes(n)));
        }
        let lo = sizes.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = sizes.iter().copied().fold(0.0, f64::max);
        (!sizes.is_empty()).then_some((lo, hi.max(lo)))
    };
    let base = {
        let mut p = profile.clone();
        p.warm_cache = true;
        p.cpu_ns_per_row = tiny;
        p.cpu_ns_per_index_entry = tiny;
        p.cpu_ns_per_operator = tiny;
        p.cpu_ns_per_comparison = tiny;
        p.hash_rows = hash_sizes.map(|(small_bytes, large_bytes)| costlab_sim::HashRowCost {
            small_bytes,
            small_ns: tiny,
            large_bytes,
            large_ns: tiny,
        });
        p.buffer_hit_ns = 1.0;
        p.os_cache_hit_ns = 1.0;
        p.os_cache_evict_hit_ns = Some(1.0);
        p.executor_start_ns = 0.0;
        p
    };
    let set = |p: &mut MachineProfile, k: usize, v: f64| match k {
        0 => p.cpu_ns_per_row = v,
        1 => p.cpu_ns_per_index_entry = v,
        2 => p.cpu_ns_per_operator = v,
        3 => p.buffer_hit_ns = v,
        4 => p.os_cache_hit_ns = v,
        5 => p.os_cache_evict_hit_ns = Some(v),
        6 => p.executor_start_ns = if fit_start { v } else { 0.0 },
        7 => p.cpu_ns_per_comparison = v,
        8 => {
            if let Some(h) = &mut p.hash_rows {
                h.small_ns = v;
            }
        }
        _ => {
            if let Some(h) = &mut p.hash_rows {
                h.large_ns = v;
            }
        }
    };
    let t_base: Vec<f64> = samples
        .iter()
        .map(|(_, plan, _)| {
            Ok(Simulator::for_release(&base, release)?
                .time_plan(plan)?
                .total_s)
        })
        .collect::<Result<_>>()?;
    // counts[i][k]: seconds per ns of figure k in sample i.
    let mut counts = vec![[0.0_f64; FIGURES]; samples.len()];
    for k in 0..FIGURES {
        let mut p = base.clone();
        set(&mut p, k, UNIT);
        let sim = Simulator::for_release(&p, release)?;
        for ((row, (_, plan, _)), t0) in counts.iter_mut().zip(samples).zip(&t_base) {
            row[k] = (sim.time_plan(plan)?.total_s - t0) / UNIT;
        }
    }
    let measured_os = counts.iter().any(|c| c[4] > 0.0);
    let measured_evict = counts.iter().any(|c| c[5] > 0.0);
    // Sorts and hashes, where a calibration query did them (the probe's since session 8);
    // else they cost what an operator does, as they did before, counted with it.
    let measured_sort = counts.iter().any(|c| c[7] > 0.0);
    let measured_hash = counts.iter().any(|c| c[8] > 0.0 || c[9] > 0.0);
    let measured_large = counts.iter().any(|c| c[9] > 0.0);
    for c in counts.iter_mut() {
        if !measured_sort {
            c[2] += c[7];
            c[7] = 0.0;
        }
        if !measured_hash {
            c[2] += c[8] + c[9];
            c[8] = 0.0;
            c[9] = 0.0;
        }
    }
    // Weighted rows: relative error of each sample.
    let rows: Vec<([f64; FIGURES], f64)> = samples
        .iter()
        .zip(&counts)
        .filter(|((_, _, real), _)| *real > 0.0)
        .map(|((_, _, real), c)| (c.map(|v| v / real), 1.0))
        .collect();
    if rows.len() < FIGURES.min(3) {
        return Err(Error::invalid(
            "executor calibration",
            "too few calibration queries finished",
        ));
    }
    let x = nnls(&rows);
    let fitted = |c: &[f64; FIGURES]| -> f64 { (0..FIGURES).map(|k| c[k] * x[k]).sum() };
    let floor = |v: f64| v.max(tiny);
    Ok(ExecutorFit {
        cpu_ns_per_row: floor(x[0]),
        cpu_ns_per_index_entry: floor(x[1]),
        cpu_ns_per_operator: floor(x[2]),
        cpu_ns_per_comparison: measured_sort.then(|| floor(x[7])),
        hash_rows: match hash_sizes {
            Some((small_bytes, large_bytes)) if measured_hash => Some(costlab_sim::HashRowCost {
                small_bytes,
                small_ns: floor(x[8]),
                large_bytes,
                large_ns: floor(if measured_large { x[9] } else { x[8] }),
            }),
            _ => None,
        },
        buffer_hit_ns: x[3].max(1.0),
        os_cache_hit_ns: measured_os.then(|| x[4].max(1.0)),
        os_cache_evict_hit_ns: measured_evict.then(|| x[5].max(1.0)),
        seq_read_mbps: None,
        random_read_us: None,
        ordered_read_mbps: None,
        executor_start_ns: x[6],
        queries: samples
            .iter()
            .zip(&counts)
            .map(|((n, _, real), c)| (n.clone(), *real, fitted(c)))
            .collect(),
    })
}

/// Non-negative least squares by cyclic coordinate descent on the normal equations (a
/// handful of unknowns; converges for any positive semi-definite system).
pub(super) fn nnls<const N: usize>(rows: &[([f64; N], f64)]) -> [f64; N] {
    let mut ata = [[0.0; N]; N];
    let mut atb = [0.0; N];
    for (a, b) in rows {
        for i in 0..N {
            atb[i] += a[i] * b;
            for j in 0..N {
                ata[i][j] += a[i] * a[j];
            }
        }
    }
    let mut x = [0.0; N];
    for _ in 0..20_000 {
        let mut moved = 0.0_f64;
        for i in 0..N {
            if ata[i][i] <= 0.0 {
                continue;
            }
            let r: f64 = atb[i]
                - (0..N)
                    .filter(|&j| j != i)
                    .map(|j| ata[i][j] * x[j])
                    .sum::<f64>();
            let new = (r / ata[i][i]).max(0.0);
            moved = moved.max((new - x[i]).abs() / new.abs().max(1e-12));
            x[i] = new;
        }
        if moved < 1e-12 {
            break;
        }
    }
    x
}
