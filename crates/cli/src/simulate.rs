//! `costlab simulate` and `costlab fit`: every candidate plan timed on a machine profile,
//! and the cost constants that lose the least time over a sweep. The numbers come from
//! `costlab_core::sim`; this module prepares the planner, collects the reports and prints
//! them as text tables or JSON.

use costlab_core::analysis;
use costlab_core::calibration::Calibration;
use costlab_core::catalog::Table;
use costlab_core::knobs::{Engine, EngineVersion, Knob, KnobValues, Scale};
use costlab_core::pg::{self, PgOptions};
use costlab_core::plan::{Detail, Planned};
use costlab_core::query::Query;
use costlab_core::regret::{self, Fit1, Fit2, GridValue, RegretStep};
use costlab_core::scenario::ServerSettings;
use costlab_core::sim::{builtin, CacheCounts, Confidence, IoSeconds, MachineProfile, Simulator};
use costlab_core::workload::rpc_seed;
use costlab_core::{mysql, Error, Result};
use serde::Serialize;
use serde_json::Value;

/// Largest profile file read (a probe's calibration file is a few kB).
pub const MAX_PROFILE_BYTES: usize = 1024 * 1024;

/// Optional fields of a profile (null allowed).
const OPTIONAL: [&str; 6] = [
    "skip_read_us",
    "ordered_read_mbps",
    "direct_page_read_mbps",
    "iops_cap",
    "mbps_cap",
    "os_cache_evict_hit_ns",
];

/// A profile from JSON (a probe's calibration file, or `simulate --list-profiles --json`'s
/// output), validated. Errors name the field (`device.random_8k.qd1_latency_us`); the
/// warnings name unknown fields and unusual values.
pub fn profile_from_json(text: &str) -> Result<(MachineProfile, Vec<String>)> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| Error::invalid("profile file", format!("not JSON: {e}")))?;
    // The probe's own file: a calibration (medians with intervals), not a profile. Read it
    // the way the page does.
    if value.get("costlab_calibration").is_some() {
        let cal = Calibration::from_json(text)?;
        let profile = cal.to_profile()?;
        let mut warnings: Vec<String> = cal
            .warnings
            .iter()
            .map(|w| format!("calibration: {w}"))
            .collect();
        warnings.extend(profile.warnings());
        return Ok((profile, warnings));
    }
    // serde_json's type errors do not say where; find the field against a full profile.
    let mut template = builtin::find("hdd-7200")?;
    template.device.iops_cap = Some(1.0);
    template.device.mbps_cap = Some(1.0);
    template.os_cache_evict_hit_ns = Some(1.0);
    template.device.ordered_read_mbps = Some(1.0);
    template.device.direct_page_read_mbps = Some(1.0);
    let template = serde_json::to_value(&template)
        .map_err(|e| Error::invalid("profile file", e.to_string()))?;
    let mut warnings = Vec::new();
    check_shape(&value, &template, "", &mut warnings)?;
    let profile: MachineProfile =
        serde_json::from_value(value).map_err(|e| Error::invalid("profile file", e.to_string()))?;
    profile.validate()?;
    warnings.extend(profile.warnings());
    Ok((profile, warnings))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Compares JSON types with the template's, naming the first field that differs.
fn check_shape(v: &Value, t: &Value, path: &str, warnings: &mut Vec<String>) -> Result<()> {
    let field = if path.is_empty() { "profile" } else { path };
    let last = path.rsplit('.').next().unwrap_or("");
    if v.is_null() && OPTIONAL.contains(&last) {
        return Ok(());
    }
    if last == "confidence" {
        if let Value::String(c) = v {
            if Confidence::parse(c).is_none() {
                let known: Vec<&str> = Confidence::ALL.iter().map(|c| c.id()).collect();
                return Err(Error::invalid(
                    field,
                    format!("`{c}` is not one of {}", known.join(", ")),
                ));
            }
        }
    }
    if std::mem::discriminant(v) != std::mem::discriminant(t) {
        return Err(Error::invalid(
            field,
            format!("expected {}, got {}", kind(t), kind(v)),
        ));
    }
    match (v, t) {
        (Value::Object(o), Value::Object(to)) => {
            for (k, val) in o {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match to.get(k) {
                    Some(tv) => check_shape(val, tv, &p, warnings)?,
                    None => warnings.push(format!("{p}: unknown field, ignored")),
                }
            }
        }
        (Value::Array(a), Value::Array(ta)) => {
            if let Some(t0) = ta.first() {
                for (i, val) in a.iter().enumerate() {
                    check_shape(val, t0, &format!("{path}[{i}]"), warnings)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

pub fn confidence_name(c: Confidence) -> &'static str {
    c.id()
}

/// Who the profile is, without its numbers.
#[derive(Clone, Debug, Serialize)]
pub struct ProfileInfo {
    pub id: String,
    pub label: String,
    /// The weakest figure's confidence.
    pub confidence: Confidence,
    /// Figure by figure, strongest first ("measured: random read at QD1; assumed: ...").
    pub confidence_by_figure: String,
    pub source: String,
}

impl ProfileInfo {
    pub fn of(p: &MachineProfile) -> ProfileInfo {
        ProfileInfo {
            id: p.id.clone(),
            label: p.label.clone(),
            confidence: p.confidence,
            confidence_by_figure: p.confidence_summary(),
            source: p.source.clone(),
        }
    }
}

/// `simulate --list-profiles` as text: id, confidence (the weakest figure's), label, then
/// the source and each figure's confidence and source below.
pub fn profiles_text(profiles: &[MachineProfile]) -> String {
    let mut s = format!("{:<20} {:<10} label / source\n", "id", "confidence");
    for p in profiles {
        s.push_str(&format!(
            "{:<20} {:<10} {}\n{:<31} source: {}\n",
            p.id,
            confidence_name(p.confidence),
            p.label,
            "",
            p.source
        ));
        for f in &p.figures {
            s.push_str(&format!(
                "{:<31} {}: {} ({})\n",
                "",
                f.figure,
                f.confidence.label(),
                f.source
            ));
        }
    }
    s
}

/// The engine, release and machine a simulation runs on.
#[derive(Clone, Debug)]
pub struct Machine {
    pub version: EngineVersion,
    pub profile: MachineProfile,
    /// MySQL's server settings (ignored for PostgreSQL).
    pub server: ServerSettings,
    /// PostgreSQL's enable_* switches (ignored for MySQL).
    pub pg_options: PgOptions,
    /// PostgreSQL: the "ORDER BY value handed up" series instead of stock.
    pub series: bool,
}

impl Machine {
    pub fn engine(&self) -> Engine {
        self.version.engine()
    }

    pub fn simulator(&self) -> Result<Simulator> {
        Simulator::for_release(&self.profile, self.version)
    }

    fn header(&self) -> String {
        format!(
            "{} on {} ({}; {}), {} cache",
            self.version.label(),
            self.profile.id,
            self.profile.label,
            self.profile.confidence_summary(),
            if self.profile.warm_cache {
                "warm"
            } else {
                "cold"
            }
        )
    }
}

/// One table prepared for an engine; MySQL's server state (buffer pool, cached fractions)
/// follows the machine profile and the server settings (`analysis::mysql_env_for`).
pub enum Planner {
    Postgres(pg::Prepared<'static>),
    Mysql(mysql::Prepared<'static>),
}

impl Planner {
    pub fn new(m: &Machine, table: &Table, detail: Detail) -> Result<Planner> {
        Ok(match m.engine() {
            Engine::Postgres => Planner::Postgres(
                pg::Prepared::owned(table.clone(), m.version, m.pg_options.clone())?
                    .with_detail(detail),
            ),
            Engine::Mysql => {
                let env = analysis::mysql_env_for(&m.profile, &m.server, m.version, table);
                Planner::Mysql(mysql::Prepared::owned(table.clone(), env)?.with_detail(detail))
            }
        })
    }

    pub fn plan(&self, query: &Query, knobs: &KnobValues) -> Result<Planned> {
        match self {
            Planner::Postgres(p) => p.plan(query, knobs),
            Planner::Mysql(p) => p.plan(query, knobs),
        }
    }
}

/// One candidate: the engine's estimate and the simulated time with its breakdown.
#[derive(Clone, Debug, Serialize)]
pub struct CandidateTime {
    pub key: String,
    pub label: String,
    pub cost: f64,
    pub seconds: f64,
    pub io_s: IoSeconds,
    pub cpu_s: f64,
    /// Seconds spent on cache hits.
    pub memory_s: f64,
    pub cache: CacheCounts,
    pub chosen: bool,
    pub fastest: bool,
}

/// `costlab simulate`'s result.
#[derive(Clone, Debug, Serialize)]
pub struct SimReport {
    pub engine: &'static str,
    pub release: &'static str,
    pub profile: ProfileInfo,
    pub warm_cache: bool,
    pub query: String,
    pub candidates: Vec<CandidateTime>,
    pub chosen: String,
    pub fastest: String,
    pub chosen_s: f64,
    pub fastest_s: f64,
    /// chosen_s − fastest_s.
    pub regret_s: f64,
    #[serde(skip)]
    header: String,
}

/// Plans `query` and times every candidate on the machine.
pub fn simulate(
    m: &Machine,
    planner: &Planner,
    query: &Query,
    sql: &str,
    knobs: &KnobValues,
) -> Result<SimReport> {
    let sim = m.simulator()?;
    let planned = planner.plan(query, knobs)?;
    if planned.candidates.is_empty() || planned.chosen >= planned.candidates.len() {
        return Err(Error::invalid("plan", "the engine produced no plan"));
    }
    let mut candidates = Vec::with_capacity(planned.candidates.len());
    for (i, c) in planned.candidates.iter().enumerate() {
        let t = sim.time_plan(&c.plan)?;
        candidates.push(CandidateTime {
            key: c.key.to_string(),
            label: analysis::path_label(&c.key),
            cost: c.plan.cost.total,
            seconds: t.total_s,
            io_s: t.io,
            cpu_s: t.cpu_s,
            memory_s: t.memory_s,
            cache: t.cache,
            chosen: i == planned.chosen,
            fastest: false,
        });
    }
    let mut best = 0;
    for (i, c) in candidates.iter().enumerate() {
        if c.seconds < candidates[best].seconds {
            best = i;
        }
    }
    candidates[best].fastest = true;
    let chosen = &candidates[planned.chosen];
    let fastest = &candidates[best];
    Ok(SimReport {
        engine: m.engine().name(),
        release: m.version.label(),
        profile: ProfileInfo::of(&m.profile),
        warm_cache: m.profile.warm_cache,
        query: sql.to_string(),
        chosen: chosen.key.clone(),
        fastest: fastest.key.clone(),
        chosen_s: chosen.seconds,
        fastest_s: fastest.seconds,
        regret_s: (chosen.seconds - fastest.seconds).max(0.0),
        header: m.header(),
        candidates,
    })
}

/// Seconds with four significant digits; exponent form below a millisecond.
pub fn secs(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if !v.is_finite() {
        format!("{v}")
    } else if v.abs() < 1e-3 {
        format!("{v:.2e}")
    } else {
        let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
        format!("{v:.digits$}")
    }
}

/// A constant's value, compactly.
pub fn num(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !(1e-4..1e7).contains(&v.abs()) {
        return format!("{v:.4e}");
    }
    let digits = (4 - v.abs().log10().floor() as i32).clamp(0, 8) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

impl SimReport {
    pub fn text(&self) -> String {
        let mut s = format!("{}\n{}\n\n", self.header, self.query);
        s.push_str(&format!(
            "{:<22} {:>12} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>6}\n",
            "candidate",
            "est. cost",
            "seconds",
            "seq I/O",
            "random I/O",
            "sorted I/O",
            "spill",
            "CPU",
            "hit time",
            "hit %"
        ));
        for c in &self.candidates {
            let mut note = Vec::new();
            if c.chosen {
                note.push("chosen");
            }
            if c.fastest {
                note.push("fastest");
            }
            let line = format!(
                "{:<22} {:>12.2} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>6.1}  {}",
                c.key,
                c.cost,
                secs(c.seconds),
                secs(c.io_s.sequential),
                secs(c.io_s.random),
                secs(c.io_s.sorted),
                secs(c.io_s.spill),
                secs(c.cpu_s),
                secs(c.memory_s),
                c.cache.hit_ratio() * 100.0,
                note.join(", ")
            );
            s.push_str(line.trim_end());
            s.push('\n');
        }
        s.push_str(&format!(
            "\nchosen: {} ({} s); fastest: {} ({} s); regret of the choice: {} s",
            self.chosen,
            secs(self.chosen_s),
            self.fastest,
            secs(self.fastest_s),
            secs(self.regret_s)
        ));
        if self.regret_s > 0.0 && self.fastest_s > 0.0 {
            s.push_str(&format!(
                " ({:.2}x the fastest)",
                self.chosen_s / self.fastest_s
            ));
        }
        s.push_str(
            "\n(seconds of I/O by pattern, CPU and cache-hit time; seconds = their sum, except \
             that asynchronous reads overlap CPU)\n",
        );
        s
    }
}

/// A sweep: the query at each point and a description.
pub struct Sweep<'a> {
    pub describe: String,
    pub xs: Vec<f64>,
    pub query_at: &'a dyn Fn(f64) -> Result<Query>,
}

/// The range a constant is searched over: the one given, else the knob's own range;
/// only cost constants (log-scaled, positive) can be fitted without a range.
pub fn fit_range(knob: Knob, given: Option<(f64, f64)>) -> Result<(f64, f64)> {
    let d = knob.def();
    if matches!(d.scale, Scale::Switch | Scale::Integer) {
        return Err(Error::invalid(
            d.name,
            "is a switch or a count, not a cost constant; fit takes a cost constant",
        ));
    }
    if let Some(r) = given {
        return Ok(r);
    }
    if d.min <= 0.0 {
        return Err(Error::invalid(
            d.name,
            format!(
                "its range starts at {}; pass --range LO,HI with LO > 0",
                d.min
            ),
        ));
    }
    Ok((d.min, d.max))
}

/// `costlab fit` with one knob.
#[derive(Clone, Debug, Serialize)]
pub struct FitReport {
    pub engine: &'static str,
    pub release: &'static str,
    pub profile: ProfileInfo,
    pub warm_cache: bool,
    pub workload: String,
    pub points: usize,
    pub knob: &'static str,
    pub searched: (f64, f64),
    pub best: f64,
    /// Every value in it gives the minimal total regret.
    pub best_interval: (f64, f64),
    pub best_total_regret_s: f64,
    pub current: f64,
    /// Total regret with the current value, planned at every point.
    pub current_total_regret_s: f64,
    /// Sum over the points of the fastest candidate's time.
    pub total_fastest_s: f64,
    /// Steps of the regret curve around the optimum.
    pub curve: Vec<RegretStep>,
    /// The whole step function over the searched range.
    pub steps: Vec<RegretStep>,
    /// Points that had to be planned on a grid (costs not affine in the constant).
    pub grid_points: usize,
    #[serde(skip)]
    header: String,
}

/// Steps shown each side of the best one.
const CURVE_SIDE: usize = 6;

pub fn fit_one(
    m: &Machine,
    planner: &Planner,
    sweep: &Sweep,
    knob: Knob,
    range: Option<(f64, f64)>,
    knobs: &KnobValues,
) -> Result<FitReport> {
    let sim = m.simulator()?;
    let range = fit_range(knob, range)?;
    let plan = |x: f64, k: &KnobValues| planner.plan(&(sweep.query_at)(x)?, k);
    let fit: Fit1 = regret::fit_one(&sim, &sweep.xs, knob, knobs, Some(range), plan)?;
    let current = regret::regret_sweep(&sim, &sweep.xs, |x| plan(x, knobs))?;
    let i = fit
        .steps
        .iter()
        .position(|s| s.lo == fit.best_interval.0)
        .unwrap_or(0);
    let curve =
        fit.steps[i.saturating_sub(CURVE_SIDE)..(i + CURVE_SIDE + 1).min(fit.steps.len())].to_vec();
    Ok(FitReport {
        engine: m.engine().name(),
        release: m.version.label(),
        profile: ProfileInfo::of(&m.profile),
        warm_cache: m.profile.warm_cache,
        workload: sweep.describe.clone(),
        points: sweep.xs.len(),
        knob: knob.def().name,
        searched: range,
        best: fit.best,
        best_interval: fit.best_interval,
        best_total_regret_s: fit.best_total_regret_s,
        current: knobs.get(knob),
        current_total_regret_s: current.total_regret_s,
        total_fastest_s: current.total_best_s,
        curve,
        steps: fit.steps,
        grid_points: fit.grid_points,
        header: m.header(),
    })
}

impl FitReport {
    pub fn text(&self) -> String {
        let mut s = format!(
            "Fit of {} to {}\nworkload: {} ({} points); searched {} to {}\n\n",
            self.knob,
            self.header,
            self.workload,
            self.points,
            num(self.searched.0),
            num(self.searched.1)
        );
        s.push_str(&format!(
            "best value:      {} (geometric middle of the interval below)\n",
            num(self.best)
        ));
        s.push_str(&format!(
            "equally good:    {} to {} (every value in it gives the same total regret)\n",
            num(self.best_interval.0),
            num(self.best_interval.1)
        ));
        s.push_str(&format!(
            "total regret:    {} s at the best value, {} s at the current value {} (sum of the fastest plans' times: {} s)\n",
            secs(self.best_total_regret_s),
            secs(self.current_total_regret_s),
            num(self.current),
            secs(self.total_fastest_s)
        ));
        if self.grid_points > 0 {
            s.push_str(&format!(
                "({} points were planned on a grid: their costs are not affine in the constant)\n",
                self.grid_points
            ));
        }
        s.push_str(&format!(
            "\nregret curve around the optimum:\n{:>12} {:>12} {:>16}\n",
            "from", "to", "total regret s"
        ));
        for st in &self.curve {
            let mut note = Vec::new();
            if st.lo == self.best_interval.0 && st.hi == self.best_interval.1 {
                note.push("best".to_string());
            }
            if st.lo <= self.current && self.current < st.hi {
                note.push(format!("current ({})", num(self.current)));
            }
            let line = format!(
                "{:>12} {:>12} {:>16}  {}",
                num(st.lo),
                num(st.hi),
                secs(st.total_regret_s),
                note.join(", ")
            );
            s.push_str(line.trim_end());
            s.push('\n');
        }
        s
    }
}

/// `costlab fit` with two knobs.
#[derive(Clone, Debug, Serialize)]
pub struct Fit2Report {
    pub engine: &'static str,
    pub release: &'static str,
    pub profile: ProfileInfo,
    pub warm_cache: bool,
    pub workload: String,
    pub points: usize,
    pub knobs: (&'static str, &'static str),
    pub searched: ((f64, f64), (f64, f64)),
    pub best: (f64, f64),
    pub best_total_regret_s: f64,
    /// The box of the grid values (coarse and finest grid) as good as the best.
    pub equally_good: ((f64, f64), (f64, f64)),
    pub current: (f64, f64),
    pub current_total_regret_s: f64,
    pub total_fastest_s: f64,
    /// The finest grid (33 × 33 around the optimum), row-major in the second knob.
    pub grid: Vec<GridValue>,
    /// The first grid over the whole ranges.
    pub coarse: Vec<GridValue>,
    pub grid_points: usize,
    #[serde(skip)]
    header: String,
}

pub fn fit_two(
    m: &Machine,
    planner: &Planner,
    sweep: &Sweep,
    pair: (Knob, Knob),
    ranges: regret::PairRanges,
    knobs: &KnobValues,
) -> Result<Fit2Report> {
    let sim = m.simulator()?;
    let rx = fit_range(pair.0, ranges.0)?;
    let ry = fit_range(pair.1, ranges.1)?;
    let plan = |x: f64, k: &KnobValues| planner.plan(&(sweep.query_at)(x)?, k);
    let fit: Fit2 = regret::fit_two(&sim, &sweep.xs, pair, knobs, (Some(rx), Some(ry)), plan)?;
    let current = regret::regret_sweep(&sim, &sweep.xs, |x| plan(x, knobs))?;
    let tol = fit.best_total_regret_s * 1e-9 + 1e-12;
    let good: Vec<&GridValue> = fit
        .coarse
        .iter()
        .chain(&fit.grid)
        .filter(|g| g.total_regret_s <= fit.best_total_regret_s + tol)
        .collect();
    let span = |f: fn(&GridValue) -> f64| {
        good.iter()
            .map(|g| f(g))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            })
    };
    Ok(Fit2Report {
        engine: m.engine().name(),
        release: m.version.label(),
        profile: ProfileInfo::of(&m.profile),
        warm_cache: m.profile.warm_cache,
        workload: sweep.describe.clone(),
        points: sweep.xs.len(),
        knobs: fit.names,
        searched: (rx, ry),
        best: fit.best,
        best_total_regret_s: fit.best_total_regret_s,
        equally_good: (span(|g| g.x), span(|g| g.y)),
        current: (knobs.get(pair.0), knobs.get(pair.1)),
        current_total_regret_s: current.total_regret_s,
        total_fastest_s: current.total_best_s,
        grid: fit.grid,
        coarse: fit.coarse,
        grid_points: fit.grid_points,
        header: m.header(),
    })
}

impl Fit2Report {
    pub fn text(&self) -> String {
        let (nx, ny) = self.knobs;
        let mut s = format!(
            "Fit of {nx} and {ny} to {}\nworkload: {} ({} points); searched {nx} {} to {}, {ny} {} to {}\n\n",
            self.header,
            self.workload,
            self.points,
            num(self.searched.0 .0),
            num(self.searched.0 .1),
            num(self.searched.1 .0),
            num(self.searched.1 .1)
        );
        s.push_str(&format!(
            "best pair:       {nx} = {}, {ny} = {}\n",
            num(self.best.0),
            num(self.best.1)
        ));
        s.push_str(&format!(
            "equally good:    {nx} {} to {}, {ny} {} to {} (box of the grid values as good as the best)\n",
            num(self.equally_good.0 .0),
            num(self.equally_good.0 .1),
            num(self.equally_good.1 .0),
            num(self.equally_good.1 .1)
        ));
        s.push_str(&format!(
            "total regret:    {} s at the best pair, {} s at the current pair ({}, {}) (sum of the fastest plans' times: {} s)\n",
            secs(self.best_total_regret_s),
            secs(self.current_total_regret_s),
            num(self.current.0),
            num(self.current.1),
            secs(self.total_fastest_s)
        ));
        // A 7 × 7 window of the whole-range grid around its best value.
        let grid = &self.coarse;
        let xs = distinct(grid.iter().map(|g| g.x));
        let ys = distinct(grid.iter().map(|g| g.y));
        let at = grid
            .iter()
            .min_by(|a, b| a.total_regret_s.total_cmp(&b.total_regret_s))
            .map(|g| (g.x, g.y))
            .unwrap_or(self.best);
        let near = |v: &[f64], b: f64| {
            let i = v.iter().position(|&x| x == b).unwrap_or(0);
            let lo = i.saturating_sub(3).min(v.len().saturating_sub(7));
            lo..(lo + 7).min(v.len())
        };
        let (wx, wy) = (near(&xs, at.0), near(&ys, at.1));
        s.push_str(&format!(
            "\ntotal regret (s) around the optimum on the whole-range grid (33 x 33, log): rows {ny}, columns {nx}\n{:>10}",
            ""
        ));
        for &x in &xs[wx.clone()] {
            s.push_str(&format!(" {:>10}", num(x)));
        }
        s.push('\n');
        for &y in &ys[wy] {
            s.push_str(&format!("{:>10}", num(y)));
            for &x in &xs[wx.clone()] {
                let r = grid
                    .iter()
                    .find(|g| g.x == x && g.y == y)
                    .map(|g| secs(g.total_regret_s))
                    .unwrap_or_default();
                s.push_str(&format!(" {r:>10}"));
            }
            s.push('\n');
        }
        s
    }
}

fn distinct(vs: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = vs.collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// One row of `costlab fit --seed-table`.
#[derive(Clone, Debug, Serialize)]
pub struct SeedRow {
    pub profile: String,
    pub label: String,
    pub rows: f64,
    pub pages: f64,
    /// The random_page_cost the seed printed: T(index scan)·pages / (T(seq scan)·rows).
    pub measured_ratio: f64,
    /// The same formula over the seed's timings (differs for the HDD row only).
    pub seed_formula_ratio: f64,
    pub fitted: f64,
    pub fitted_interval: (f64, f64),
    pub regret_at_fitted_s: f64,
    pub regret_at_measured_s: f64,
    pub regret_at_default_s: f64,
    pub points: usize,
}

/// Sweep points of each seed fit (log-spaced, one row to the whole table).
pub const SEED_POINTS: usize = 60;

/// random_page_cost fitted on each of the seed's five devices (rpc_seed::SEED_RPC_TABLE).
pub fn seed_table() -> Result<Vec<SeedRow>> {
    let default = Knob::RandomPageCost.def().default_for(EngineVersion::Pg18);
    rpc_seed::SEED_RPC_TABLE
        .iter()
        .map(|&(id, t_seq, t_idx, ratio)| {
            let fit = costlab_core::regret::fit_seed_random_page_cost(id, SEED_POINTS)?;
            let (rows, pages) = rpc_seed::seed_experiment_size(id);
            Ok(SeedRow {
                profile: id.to_string(),
                label: builtin::find(id)?.label,
                rows,
                pages,
                measured_ratio: ratio,
                seed_formula_ratio: t_idx * pages / (t_seq * rows),
                fitted: fit.best,
                fitted_interval: fit.best_interval,
                regret_at_fitted_s: fit.best_total_regret_s,
                regret_at_measured_s: fit.regret_at(ratio),
                regret_at_default_s: fit.regret_at(default),
                points: SEED_POINTS,
            })
        })
        .collect()
}

pub fn seed_table_text(rows: &[SeedRow]) -> String {
    let mut s = String::from(
        "random_page_cost per seed device (pgsql-hackers \"Should we update the random_page_cost default value?\")\n\
         measured: the seed's ratio T(index scan) x pages / (T(seq scan) x rows) of one query pair, a\n\
         \x20 device ratio: what a random page costs next to a sequential one on that machine.\n\
         fitted:   the random_page_cost that loses the least simulated time over SELECT * FROM test_table\n\
         \x20 WHERE id <= X, X from one row to all rows (60 log-spaced points), PostgreSQL 18, one process,\n\
         \x20 on the profile derived from the seed's timings. It also absorbs what the cost model leaves out\n\
         \x20 (prefetch of bitmap heap scans, cache hits), so it need not equal the device ratio.\n\
         interval: every value in it loses the same (least) time. regret: total seconds lost over the sweep.\n\n",
    );
    s.push_str(&format!(
        "{:<17} {:>5} {:>9} {:>8} {:>19} {:>12} {:>12} {:>12}\n",
        "device", "rows", "measured", "fitted", "interval", "regret fit", "at measured", "at 4.0"
    ));
    for r in rows {
        s.push_str(&format!(
            "{:<17} {:>5} {:>9} {:>8} {:>19} {:>12} {:>12} {:>12}\n",
            r.profile,
            format!("{}M", r.rows / 1e6),
            num(r.measured_ratio),
            num(r.fitted),
            format!("{}-{}", num(r.fitted_interval.0), num(r.fitted_interval.1)),
            secs(r.regret_at_fitted_s),
            secs(r.regret_at_measured_s),
            secs(r.regret_at_default_s)
        ));
    }
    if let Some(h) = rows
        .iter()
        .find(|r| (r.seed_formula_ratio / r.measured_ratio - 1.0).abs() > 0.1)
    {
        s.push_str(&format!(
            "\nnote: {}'s printed ratio {} does not follow from its own timings (the formula gives {}); the timings are what the profile reproduces.\n",
            h.profile,
            num(h.measured_ratio),
            num(h.seed_formula_ratio)
        ));
    }
    s
}
