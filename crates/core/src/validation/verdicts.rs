//! The verdicts on a report: per query, does the simulation name the really fastest plan
//! and what trusting it loses; the summary, its rows, the scatter and the text.

use super::report::*;
use super::runs::*;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The verdict on one query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The plan the simulation calls fastest.
    pub sim_pick: String,
    /// The plan that really was fastest.
    pub real_fastest: String,
    /// The simulation's pick is the real fastest or within [`TIE`] of it.
    pub right: bool,
    /// Real time lost by running the simulation's pick instead of the real fastest, as a
    /// fraction of the fastest (0 when right in the strict sense). A lower bound when the
    /// pick ran past the limit.
    pub lost: f64,
}

/// Figures over a set of queries.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub queries: usize,
    pub right: usize,
    /// Largest real time lost among the queries where the pick was wrong.
    pub max_lost: f64,
    /// Plans compared (executed, or past the limit).
    pub plans: usize,
    /// Plans whose simulated time is within [`CLOSE`] of the real one (a plan past the
    /// limit counts when the simulation also puts it past the limit).
    pub close: usize,
    /// Geometric mean of simulated / real over executed plans.
    pub geomean_ratio: f64,
    pub min_ratio: f64,
    pub max_ratio: f64,
}

impl Summary {
    pub fn right_share(&self) -> f64 {
        if self.queries == 0 {
            0.0
        } else {
            self.right as f64 / self.queries as f64
        }
    }

    pub fn close_share(&self) -> f64 {
        if self.plans == 0 {
            0.0
        } else {
            self.close as f64 / self.plans as f64
        }
    }

    /// The targets of the time-truth issue: the pick right in 90 % of queries, under 20 %
    /// lost where wrong, 90 % of plans within 2x, geometric mean 0.8 to 1.25.
    pub fn meets_targets(&self) -> bool {
        self.right_share() >= 0.9
            && self.max_lost < 0.2
            && self.close_share() >= 0.9
            && (0.8..=1.25).contains(&self.geomean_ratio)
    }

    pub fn line(&self) -> String {
        format!(
            "fastest named in {} of {} queries ({:.0} %), worst loss {:.0} %; sim/real within 2x \
             for {} of {} plans ({:.0} %), geometric mean {:.2} (range {:.3} to {:.2})",
            self.right,
            self.queries,
            100.0 * self.right_share(),
            100.0 * self.max_lost,
            self.close,
            self.plans,
            100.0 * self.close_share(),
            self.geomean_ratio,
            self.min_ratio,
            self.max_ratio
        )
    }
}

/// One forced plan as the scatter of simulated against real time shows it
/// ([`ValidationReport::scatter`]): the probe's SVG and the page draw the same marks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScatterPoint {
    pub workload: String,
    pub query: String,
    pub cache: CacheState,
    /// The candidate key (`seq`, `index:t1_i7`, ...).
    pub key: String,
    /// Real seconds; `None` when the plan ran past the report's limit.
    pub real_s: Option<f64>,
    pub sim_s: f64,
    /// Where the mark goes, (real, simulated) seconds, inside [`Scatter::range`]: a plan
    /// past the limit at the limit (its real time is at least that), a time log axes cannot
    /// show (zero or negative) at the range's low end.
    pub at: (f64, f64),
}

impl ScatterPoint {
    /// Simulated over real time; `None` for a plan past the limit or a real time of zero.
    pub fn ratio(&self) -> Option<f64> {
        self.real_s.filter(|r| *r > 0.0).map(|r| self.sim_s / r)
    }
}

/// Every forced plan of a report as marks on log-log axes of real (x) against simulated (y)
/// seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scatter {
    /// One per plan, in the report's order: executed plans and plans past the limit.
    pub points: Vec<ScatterPoint>,
    /// Both axes' range, seconds: every positive time and (when a plan ran past it) the
    /// limit, with a factor 2 to spare at each end; the same on both axes, so the diagonal
    /// runs corner to corner.
    pub range: (f64, f64),
    pub limit_s: f64,
}

impl Scatter {
    /// The plans that finished (the ones with a real time).
    pub fn executed(&self) -> impl Iterator<Item = &ScatterPoint> {
        self.points.iter().filter(|p| p.real_s.is_some())
    }

    /// The plans stopped at the limit.
    pub fn past_limit(&self) -> impl Iterator<Item = &ScatterPoint> {
        self.points.iter().filter(|p| p.real_s.is_none())
    }
}

/// A [`Summary`] over one workload and cache state, or over every query (`label` "all").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SummaryRow {
    /// "t1-random warm", or "all".
    pub label: String,
    pub summary: Summary,
}

impl SummaryRow {
    /// The row as the report's text prints it: "t1-random warm: fastest named in ...".
    pub fn line(&self) -> String {
        format!("{}: {}", self.label, self.summary.line())
    }
}

impl QueryRuns {
    /// The verdict, or `None` when no plan finished (nothing to compare).
    pub fn verdict(&self, limit_s: f64) -> Option<Verdict> {
        let real = |p: &PlanRun| p.real_s.unwrap_or(f64::INFINITY);
        let fastest = self
            .plans
            .iter()
            .filter(|p| p.real_s.is_some())
            .min_by(|a, b| real(a).total_cmp(&real(b)))?;
        let pick = self
            .plans
            .iter()
            .min_by(|a, b| a.sim_s.total_cmp(&b.sim_s))?;
        let best = real(fastest);
        let got = pick.real_s.unwrap_or(limit_s.max(best));
        let lost = (got / best - 1.0).max(0.0);
        Some(Verdict {
            sim_pick: pick.key.clone(),
            real_fastest: fastest.key.clone(),
            right: pick.real_s.is_some() && got <= best * TIE,
            lost: if pick.key == fastest.key { 0.0 } else { lost },
        })
    }
}

impl ValidationReport {
    /// Summary over the queries `keep` accepts.
    pub fn summary(&self, keep: impl Fn(&QueryRuns) -> bool) -> Summary {
        let mut s = Summary {
            min_ratio: f64::INFINITY,
            max_ratio: 0.0,
            ..Summary::default()
        };
        let mut log_sum = 0.0;
        let mut executed = 0usize;
        for q in self.queries.iter().filter(|q| keep(q)) {
            if let Some(v) = q.verdict(self.limit_s) {
                s.queries += 1;
                if v.right {
                    s.right += 1;
                } else {
                    s.max_lost = s.max_lost.max(v.lost);
                }
            }
            for p in &q.plans {
                s.plans += 1;
                match p.real_s {
                    Some(real) if real > 0.0 && p.sim_s > 0.0 => {
                        let r = p.sim_s / real;
                        if (1.0 / CLOSE..=CLOSE).contains(&r) {
                            s.close += 1;
                        }
                        log_sum += r.ln();
                        executed += 1;
                        s.min_ratio = s.min_ratio.min(r);
                        s.max_ratio = s.max_ratio.max(r);
                    }
                    Some(_) => {}
                    None => {
                        if p.sim_s >= self.limit_s {
                            s.close += 1;
                        }
                    }
                }
            }
        }
        s.geomean_ratio = if executed > 0 {
            (log_sum / executed as f64).exp()
        } else {
            0.0
        };
        if executed == 0 {
            s.min_ratio = 0.0;
        }
        s
    }

    /// Of the DBT3 plans of the queries `keep` accepts: how many the model plans as they
    /// really ran under the same switches, and how many there are.
    pub fn model_matches(&self, keep: impl Fn(&QueryRuns) -> bool) -> (usize, usize) {
        self.queries
            .iter()
            .filter(|q| q.dbt3.is_some() && keep(q))
            .flat_map(|q| q.plans.iter())
            .fold((0, 0), |(m, n), p| {
                (m + usize::from(p.model_matches == Some(true)), n + 1)
            })
    }

    /// Workload and cache-state pairs in the report, in order of first appearance.
    pub fn groups(&self) -> Vec<(String, CacheState)> {
        let mut g: Vec<(String, CacheState)> = Vec::new();
        for q in &self.queries {
            let k = (q.workload.clone(), q.cache);
            if !g.contains(&k) {
                g.push(k);
            }
        }
        g
    }

    /// The summary of each workload and cache state ([`Self::groups`]' order), then over
    /// every query ("all"): the lines the report's text ends with.
    pub fn summary_rows(&self) -> Vec<SummaryRow> {
        let mut rows: Vec<SummaryRow> = self
            .groups()
            .into_iter()
            .map(|(w, c)| SummaryRow {
                label: format!("{w} {}", c.name()),
                summary: self.summary(|q| q.workload == w && q.cache == c),
            })
            .collect();
        rows.push(SummaryRow {
            label: "all".into(),
            summary: self.summary(|_| true),
        });
        rows
    }

    /// How well the machine agrees with itself: `later` (a second run of the same queries)
    /// with each plan's simulated time replaced by this run's real time, so the verdicts and
    /// summaries read "this run's real times, taken as the prediction of the later run's".
    /// No model can score better against `later` than this, except by luck: it is the
    /// ceiling the targets meet when they are judged on a single run. Queries and plans
    /// that are not in both runs are left out; a plan past this run's limit predicts the
    /// limit.
    pub fn as_prediction_of(&self, later: &ValidationReport) -> ValidationReport {
        let mine = |q: &QueryRuns| {
            self.queries
                .iter()
                .find(|m| m.workload == q.workload && m.name == q.name && m.cache == q.cache)
        };
        let mut out = later.clone();
        out.queries = later
            .queries
            .iter()
            .filter_map(|q| {
                let m = mine(q)?;
                let plans: Vec<PlanRun> = q
                    .plans
                    .iter()
                    .filter_map(|p| {
                        let before = m.plans.iter().find(|b| b.key == p.key)?;
                        Some(PlanRun {
                            sim_s: before.real_s.unwrap_or(self.limit_s),
                            ..p.clone()
                        })
                    })
                    .collect();
                (!plans.is_empty()).then(|| QueryRuns { plans, ..q.clone() })
            })
            .collect();
        out
    }

    /// Every forced plan as a mark of real against simulated time, and the axes' range.
    /// Never fails: times the axes cannot show are put at their edge.
    pub fn scatter(&self) -> Scatter {
        let positive = |v: f64| (v > 0.0 && v.is_finite()).then_some(v);
        let plans = || {
            self.queries
                .iter()
                .flat_map(|q| q.plans.iter().map(move |p| (q, p)))
        };
        let past_limit = plans().any(|(_, p)| p.real_s.is_none());
        let times = plans()
            .flat_map(|(_, p)| [p.real_s.and_then(positive), positive(p.sim_s)])
            .chain([past_limit.then_some(self.limit_s).and_then(positive)])
            .flatten();
        let (lo, hi) = times.fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let range = if hi > 0.0 {
            (lo / CLOSE, hi * CLOSE)
        } else {
            // Nothing positive to show: a decade either side of a second.
            (0.1, 10.0)
        };
        let place = |v: Option<f64>| v.and_then(positive).unwrap_or(range.0).min(range.1);
        let points = plans()
            .map(|(q, p)| ScatterPoint {
                workload: q.workload.clone(),
                query: q.name.clone(),
                cache: q.cache,
                key: p.key.clone(),
                real_s: p.real_s,
                sim_s: p.sim_s,
                at: (
                    place(Some(p.real_s.unwrap_or(self.limit_s))),
                    place(Some(p.sim_s)),
                ),
            })
            .collect();
        Scatter {
            points,
            range,
            limit_s: self.limit_s,
        }
    }

    /// The report as text: every plan with real and simulated time, each query's verdict,
    /// a summary per workload and cache state and one overall.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let secs = |v: f64| {
            if v >= 10.0 {
                format!("{v:.1}")
            } else if v >= 0.01 {
                format!("{v:.3}")
            } else {
                format!("{:.2}m", v * 1e3)
            }
        };
        let _ = writeln!(
            s,
            "{} ({}) on {}; limit {} s",
            self.engine_version.label(),
            self.server_version,
            self.profile.label,
            self.limit_s
        );
        if let Some(x) = &self.executor {
            let _ = writeln!(
                s,
                "executor (fitted on calibration tables, not on these queries): {:.1} ns/row, \
                 {:.1} ns/index entry, {:.1} ns/operator, {:.0} ns/buffer hit, {}",
                x.cpu_ns_per_row,
                x.cpu_ns_per_index_entry,
                x.cpu_ns_per_operator,
                x.buffer_hit_ns,
                x.os_cache_hit_ns
                    .map(|v| format!("{v:.0} ns/page from the OS cache"))
                    .unwrap_or_else(|| "OS cache read: the probe's figure".into())
            );
            if let Some(v) = x.os_cache_evict_hit_ns {
                let _ = writeln!(s, "  {v:.0} ns/page from the OS cache into a full buffer");
            }
            if let (Some(h), Some(c)) = (&x.hash_rows, x.cpu_ns_per_comparison) {
                let _ = writeln!(
                    s,
                    "  {:.1} ns/hash row in a table of {:.0} kB, {:.1} in one of {:.0} kB; \
                     {c:.1} ns/sort comparison",
                    h.small_ns,
                    h.small_bytes / 1024.0,
                    h.large_ns,
                    h.large_bytes / 1024.0
                );
            }
            let _ = writeln!(
                s,
                "cold reads (fitted on calibration tables): sequential {}, random 8 kB {}",
                x.seq_read_mbps
                    .map(|v| format!("{v:.0} MB/s"))
                    .unwrap_or_else(|| "the probe's".into()),
                x.random_read_us
                    .map(|v| format!("{v:.0} us"))
                    .unwrap_or_else(|| "the probe's".into())
            );
            for (name, real, fit) in &x.queries {
                let _ = writeln!(s, "  {name:<34} real {} fit {}", secs(*real), secs(*fit));
            }
        }
        let _ = writeln!(
            s,
            "{:<16} {:<5} {:<26} {:>10} {:>10} {:>7}  verdict",
            "query", "cache", "plan", "real s", "sim s", "sim/real"
        );
        for q in &self.queries {
            let v = q.verdict(self.limit_s);
            for (i, p) in q.plans.iter().enumerate() {
                let real = p
                    .real_s
                    .map(secs)
                    .unwrap_or_else(|| format!(">{}", self.limit_s));
                let ratio = p
                    .real_s
                    .map(|r| format!("{:.2}", p.sim_s / r))
                    .unwrap_or_default();
                let mark = match &v {
                    Some(v) if v.sim_pick == p.key && v.real_fastest == p.key => "sim+real fastest",
                    Some(v) if v.sim_pick == p.key => "sim fastest",
                    Some(v) if v.real_fastest == p.key => "real fastest",
                    _ => "",
                };
                let verdict = match (&v, i) {
                    (Some(v), 0) if v.right => "RIGHT".to_string(),
                    (Some(v), 0) => format!("WRONG, {:.0} % lost", 100.0 * v.lost),
                    _ => String::new(),
                };
                let _ = writeln!(
                    s,
                    "{:<16} {:<5} {:<26} {:>10} {:>10} {:>7}  {verdict:<18} {mark}",
                    if i == 0 { q.name.as_str() } else { "" },
                    if i == 0 { q.cache.name() } else { "" },
                    p.key,
                    real,
                    secs(p.sim_s),
                    ratio
                );
            }
        }
        let _ = writeln!(s);
        for row in self.summary_rows() {
            let _ = writeln!(s, "{}", row.line());
        }
        for p in &self.switch_points {
            let _ = writeln!(s, "{}", p.line());
        }
        for (w, c) in self.groups() {
            let group = |q: &QueryRuns| q.workload == w && q.cache == c;
            let (matched, plans) = self.model_matches(group);
            if plans > 0 {
                // The plans the server ran with every switch on: its own choices.
                let (dm, dn) = self
                    .queries
                    .iter()
                    .filter(|q| group(q))
                    .flat_map(|q| q.plans.iter())
                    .filter(|p| p.forced_with.is_empty())
                    .fold((0, 0), |(m, n), p| {
                        (m + usize::from(p.model_matches == Some(true)), n + 1)
                    });
                let _ = writeln!(
                    s,
                    "{w} {}: the simulated plan is the plan that ran for {matched} of {plans} \
                     plans ({dm} of {dn} with every switch on)",
                    c.name()
                );
            }
        }
        s
    }
}
