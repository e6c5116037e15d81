//! Turns a [`Scenario`] into everything the page draws: for each engine, every candidate
//! path's cost along the sweep, the plan chosen at each point and the exact switch points.

use crate::scenario::{CacheState, InnodbCacheReport, Scenario, ServerSettings, Workload};
use costlab_model::error::Result;
use costlab_model::knobs::{Engine, Knob, KnobValues};
use costlab_model::plan::{Detail, Planned};
use costlab_model::sweep::{sweep_with, Crossover, Spacing};
use costlab_mysql::{self as mysql, MysqlEnv};
use costlab_pg::{self as pg, PgOptions};
use costlab_sim::{self as sim, profile::MachineProfile, time::Simulator};
use costlab_workload::t1;

/// Sample points of a sweep: about one per two CSS pixels of a wide chart.
pub const SWEEP_POINTS: usize = 401;

/// One candidate path along the sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct PathCurve {
    /// Stable key of the path kind ("seq", "range:k7", ...).
    pub key: String,
    /// Legend text.
    pub label: String,
    /// Cost at each sample; NaN where the engine did not consider the path.
    pub cost: Vec<f64>,
}

/// One engine's view of the workload.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineCurves {
    pub engine: Engine,
    /// Sweep parameter at each sample (fraction of rows for the t1 sweep).
    pub xs: Vec<f64>,
    pub paths: Vec<PathCurve>,
    /// Index into `paths` of the plan chosen at each sample.
    pub chosen: Vec<usize>,
    pub crossovers: Vec<Crossover>,
    /// Simulated time of every path on the scenario's machine.
    pub times: TimeCurves,
}

impl EngineCurves {
    pub fn path(&self, key: &str) -> Option<&PathCurve> {
        self.paths.iter().find(|p| p.key == key)
    }
}

/// Machine ids the page knows.
pub fn is_machine(id: &str) -> bool {
    sim::builtin::find(id).is_ok()
}

/// The name of a scenario's machine as the page shows it.
pub fn machine_label(scenario: &Scenario) -> String {
    machine(scenario)
        .map(|p| p.label)
        .unwrap_or_else(|_| scenario.machine.clone())
}

/// The machine a scenario runs on, with its cache state applied.
pub fn machine(scenario: &Scenario) -> Result<MachineProfile> {
    let mut p = match (&scenario.custom_machine, scenario.machine.as_str()) {
        (Some(p), crate::scenario::CUSTOM_MACHINE) => p.clone(),
        _ => sim::builtin::find(&scenario.machine)?,
    };
    p.warm_cache = scenario.cache == CacheState::Warm;
    Ok(p)
}

/// The MySQL server state a machine stands for: its buffer pool, and what InnoDB reports
/// as cached as the scenario's server settings say.
pub fn mysql_env(scenario: &Scenario, table: &costlab_model::catalog::Table) -> Result<MysqlEnv> {
    Ok(mysql_env_for(
        &machine(scenario)?,
        &scenario.server,
        scenario.mysql_version,
        table,
    ))
}

/// [`mysql_env`] for any machine profile (a built-in one or a file's) and server settings.
/// The profile gives the buffer pool; its id decides nothing.
pub fn mysql_env_for(
    m: &MachineProfile,
    server: &ServerSettings,
    mysql_version: costlab_model::knobs::EngineVersion,
    table: &costlab_model::catalog::Table,
) -> MysqlEnv {
    let reports = match server.innodb_cache_report {
        InnodbCacheReport::Heuristic => false,
        InnodbCacheReport::AllCached if m.warm_cache => {
            // The seed's in-memory server: every object reported fully cached.
            let index_in_memory = table
                .indexes
                .iter()
                .map(|i| (i.name.clone(), 1.0))
                .collect();
            return MysqlEnv {
                innodb_buffer_pool_size: m.buffer_pool_bytes,
                table_in_memory: Some(1.0),
                index_in_memory,
                ..MysqlEnv::default()
            };
        }
        _ => mysql_version != costlab_model::knobs::EngineVersion::Mysql57,
    };
    let mut env = MysqlEnv {
        innodb_buffer_pool_size: m.buffer_pool_bytes,
        ..MysqlEnv::default()
    };
    if reports {
        let cached = |bytes: f64| {
            if m.warm_cache && bytes > 0.0 {
                (m.buffer_pool_bytes / bytes).min(1.0)
            } else {
                0.0
            }
        };
        if let Some(stats) = &table.mysql {
            env.table_in_memory = Some(cached(stats.clustered_pages * stats.page_bytes));
            let sec = stats.secondary_pages * stats.page_bytes;
            env.index_in_memory = table
                .indexes
                .iter()
                .map(|i| {
                    (
                        i.name.clone(),
                        if i.primary {
                            cached(stats.clustered_pages * stats.page_bytes)
                        } else {
                            cached(sec)
                        },
                    )
                })
                .collect();
        }
    }
    env
}

/// The scenario's workload, built once and planned at any sweep point with any knobs (the
/// flip map varies a knob; the sweep varies the point).
pub struct Planner<'a> {
    scenario: &'a Scenario,
    /// The table prepared once for the engine: a sweep plans it at hundreds of points.
    prepared: Prepared,
    /// The workload's query, moved to each point rather than built anew.
    query: std::cell::RefCell<t1::T1Query>,
}

enum Prepared {
    Mysql(mysql::Prepared<'static>),
    Postgres(pg::Prepared<'static>),
}

impl<'a> Planner<'a> {
    pub fn new(scenario: &'a Scenario, engine: Engine) -> Result<Planner<'a>> {
        scenario.validate()?;
        t1_range(scenario)?;
        let table = t1::t1_table();
        // Plans here feed curves, timings and maps, never EXPLAIN text: no detail lines.
        let prepared = match engine {
            Engine::Mysql => {
                let env = mysql_env(scenario, &table)?;
                Prepared::Mysql(mysql::Prepared::owned(table, env)?.with_detail(Detail::Omit))
            }
            Engine::Postgres => Prepared::Postgres(
                pg::Prepared::owned(table, scenario.pg_version, PgOptions::default())?
                    .with_detail(Detail::Omit),
            ),
        };
        Ok(Planner {
            scenario,
            prepared,
            query: Default::default(),
        })
    }

    pub fn plan(&self, x: f64, knobs: &KnobValues) -> Result<Planned> {
        let mut kept = self.query.borrow_mut();
        // Planner::new refused any other workload; this keeps the check next to the use.
        t1_range(self.scenario)?;
        let query = kept.at(x)?;
        match &self.prepared {
            Prepared::Mysql(p) => p.plan(query, knobs),
            Prepared::Postgres(p) => p.plan(query, knobs),
        }
    }
}

/// The t1 sweep's range; the charts and maps here draw only that workload.
fn t1_range(scenario: &Scenario) -> Result<(f64, f64)> {
    match scenario.workload {
        Workload::T1Sweep { from, to } => Ok((from, to)),
        Workload::Dbt3 { .. } | Workload::User(_) | Workload::Ordering { .. } => Err(costlab_model::Error::invalid(
            "workload",
            "the sweep charts draw the t1 sweep; DBT3 and the user's workload are tables (workload::compare)",
        )),
    }
}

/// Costs of every path along the scenario's sweep, for one engine.
pub fn engine_curves(scenario: &Scenario, engine: Engine) -> Result<EngineCurves> {
    let planner = Planner::new(scenario, engine)?;
    let sim = Simulator::for_release(&machine(scenario)?, scenario.version_of(engine))?;
    let (from, to) = t1_range(scenario)?;
    // Each sample is planned once: its costs go to the sweep, its candidates' times here.
    let mut sample_times: Vec<Vec<(costlab_model::plan::Name, f64)>> =
        Vec::with_capacity(SWEEP_POINTS);
    let s = sweep_with(
        |x| planner.plan(x, &scenario.knobs),
        |_, planned| {
            let times = planned
                .candidates
                .iter()
                .map(|c| Ok((c.key.clone(), sim.time_plan(&c.plan)?.total_s)))
                .collect::<Result<Vec<_>>>()?;
            sample_times.push(times);
            Ok(())
        },
        from,
        to,
        SWEEP_POINTS,
        Spacing::Linear,
    )?;
    let n = s.points.len();
    let mut paths: Vec<PathCurve> = Vec::new();
    let mut chosen = Vec::with_capacity(n);
    for (i, p) in s.points.iter().enumerate() {
        for (key, cost) in &p.costs {
            let idx = match paths.iter().position(|c| &c.key == key) {
                Some(idx) => idx,
                None => {
                    paths.push(PathCurve {
                        key: key.to_string(),
                        label: path_label(key),
                        cost: vec![f64::NAN; n],
                    });
                    paths.len() - 1
                }
            };
            paths[idx].cost[i] = *cost;
        }
        chosen.push(paths.iter().position(|c| c.key == p.chosen).unwrap_or(0));
    }
    let mut seconds = vec![vec![f64::NAN; n]; paths.len()];
    let mut fastest = Vec::with_capacity(n);
    let mut regret_s = Vec::with_capacity(n);
    for (i, times) in sample_times.iter().enumerate() {
        let mut best: Option<(usize, f64)> = None;
        for (key, t) in times {
            if let Some(p) = paths.iter().position(|p| p.key == **key) {
                seconds[p][i] = *t;
                if best.is_none_or(|(_, b)| *t < b) {
                    best = Some((p, *t));
                }
            }
        }
        let (b, bt) = best.unwrap_or((chosen[i], f64::NAN));
        fastest.push(b);
        regret_s.push((seconds[chosen[i]][i] - bt).max(0.0));
    }
    let times = TimeCurves {
        total_regret_s: regret_s.iter().filter(|r| r.is_finite()).sum(),
        total_chosen_s: (0..n)
            .map(|i| seconds[chosen[i]][i])
            .filter(|t| t.is_finite())
            .sum(),
        seconds,
        fastest,
        regret_s,
    };
    Ok(EngineCurves {
        engine,
        xs: s.points.iter().map(|p| p.x).collect(),
        paths,
        chosen,
        crossovers: s.crossovers,
        times,
    })
}

/// Simulated time of every path along the sweep, the fastest at each point and the time
/// the engine's choice loses.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeCurves {
    /// Seconds per path (aligned with `EngineCurves::paths`) per sample; NaN where absent.
    pub seconds: Vec<Vec<f64>>,
    /// Index into `paths` of the fastest path at each sample.
    pub fastest: Vec<usize>,
    /// Chosen time minus fastest time at each sample (≥ 0).
    pub regret_s: Vec<f64>,
    pub total_regret_s: f64,
    pub total_chosen_s: f64,
}

/// The plan chosen over a grid of sweep points and values of one knob.
#[derive(Clone, Debug, PartialEq)]
pub struct FlipMap {
    pub knob: Knob,
    pub xs: Vec<f64>,
    /// Knob values, ascending (log-spaced for log-scaled knobs).
    pub values: Vec<f64>,
    /// `cells[j][i]`: index into `plans` chosen at (xs[i], values[j]).
    pub cells: Vec<Vec<Option<usize>>>,
    /// Candidate keys that win somewhere on the grid (or only between its points).
    pub plans: Vec<String>,
    /// Every plan change between neighbouring cells, located by bisection: along the
    /// fraction (axis 0, between columns `col` and `col + 1` of row `row`) or along the
    /// knob (axis 1, between rows `row` and `row + 1` of column `col`).
    pub switches: Vec<crate::diagram::Boundary>,
}

/// The knob range a flip map spans: a decade and a half either side of the current value
/// for log-scaled knobs, the whole range otherwise, inside the knob's limits.
pub fn flip_range(knob: Knob, current: f64) -> (f64, f64) {
    let d = knob.def();
    match d.scale {
        costlab_model::knobs::Scale::Log => {
            ((current / 30.0).max(d.min), (current * 30.0).min(d.max))
        }
        _ => (d.min, d.max),
    }
}

/// The share of an axis the flip map locates its switches to: under a pixel of the page's
/// chart, at a sixth of the bisection work of [`crate::diagram::BOUNDARY_REL_TOL`].
pub const FLIP_SWITCH_TOL: f64 = 1e-3;

/// The flip map: t1's plan diagram over the fraction of rows and the flip knob
/// ([`range_diagram`] without timing), its switches located to [`FLIP_SWITCH_TOL`].
pub fn flip_map(scenario: &Scenario, engine: Engine, nx: usize, ny: usize) -> Result<FlipMap> {
    let knob = scenario.flip_knob;
    if knob.def().engine != engine {
        return Err(costlab_model::Error::invalid(
            "flip map",
            format!("{} is not a {} knob", knob.def().name, engine.name()),
        ));
    }
    let planner = Planner::new(scenario, engine)?;
    let (from, to) = t1_range(scenario)?;
    let (lo, hi) = flip_range(knob, scenario.knobs.get(knob));
    let ax = RangeAxis::Fraction.axis(from, to, nx.max(2))?;
    let ay = RangeAxis::Knob(knob).axis(lo, hi.max(lo * 1.0001), ny.max(2))?;
    let d = range_diagram(
        |f, k| planner.plan(f, k),
        None,
        engine,
        &scenario.knobs,
        0.0,
        (RangeAxis::Fraction, &ax),
        Some((RangeAxis::Knob(knob), &ay)),
        crate::diagram::Boundaries::LocateTo(FLIP_SWITCH_TOL),
    )?;
    let cells = (0..ay.values.len())
        .map(|r| {
            (0..ax.values.len())
                .map(|c| Some(d.cell(r, c).plan))
                .collect()
        })
        .collect();
    Ok(FlipMap {
        knob,
        xs: ax.values.clone(),
        values: ay.values.clone(),
        cells,
        plans: d.plans.iter().map(|p| p.signature.clone()).collect(),
        switches: d.boundaries.clone(),
    })
}

/// What one axis of a single-table query's plan diagram varies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RangeAxis {
    /// The fraction of the table's rows the query's range holds (t1's sweep, 0 to 1).
    Fraction,
    Knob(Knob),
}

/// The name the fraction axis goes by (`--diagram fraction=0:0.2`).
pub const FRACTION_AXIS: &str = "fraction";

impl RangeAxis {
    /// `fraction` or a knob's name.
    pub fn lookup(name: &str) -> Result<RangeAxis> {
        if name.eq_ignore_ascii_case(FRACTION_AXIS) {
            Ok(RangeAxis::Fraction)
        } else {
            Ok(RangeAxis::Knob(Knob::lookup(name)?))
        }
    }

    /// The axis of `n` samples from `lo` to `hi`. A cost is not affine in the fraction
    /// (index costs interpolate by its square, pages fetched bend with it).
    pub fn axis(self, lo: f64, hi: f64, n: usize) -> Result<crate::diagram::Axis> {
        match self {
            RangeAxis::Knob(k) => crate::diagram::Axis::of_knob(k, lo, hi, n),
            RangeAxis::Fraction => {
                if !(0.0..=1.0).contains(&lo) || !(0.0..=1.0).contains(&hi) || lo >= hi {
                    return Err(costlab_model::Error::invalid(
                        FRACTION_AXIS,
                        format!("the fraction of rows runs from 0 to 1, lower bound first ({lo} to {hi})"),
                    ));
                }
                Ok(
                    crate::diagram::Axis::new(FRACTION_AXIS, lo, hi, n, Spacing::Linear, false)?
                        .not_affine(),
                )
            }
        }
    }
}

/// The plan diagram of a single-table range query: the plan chosen at every cell over `x`
/// (and `y`), each a fraction of rows or a knob (`plan(fraction, knobs)` plans the query
/// with its range holding that fraction), switches located by bisection. Off a fraction
/// axis the range holds `fraction`. A cell's regret is the simulated time its plan loses
/// against the fastest candidate at that very point: the single-table planners cost every
/// candidate everywhere, and a plan's time changes along the fraction. Without `sim` no
/// plan is timed and regret is NaN (a picture of plans only).
#[allow(clippy::too_many_arguments)]
pub fn range_diagram(
    plan: impl Fn(f64, &KnobValues) -> Result<Planned>,
    sim: Option<&Simulator>,
    engine: Engine,
    knobs: &KnobValues,
    fraction: f64,
    x: (RangeAxis, &crate::diagram::Axis),
    y: Option<(RangeAxis, &crate::diagram::Axis)>,
    boundaries: crate::diagram::Boundaries,
) -> Result<crate::diagram::PlanDiagram> {
    use crate::diagram::{Choice, Description};
    for a in std::iter::once(x.0).chain(y.map(|y| y.0)) {
        if let RangeAxis::Knob(k) = a {
            if k.def().engine != engine {
                return Err(costlab_model::Error::invalid(
                    "plan diagram",
                    format!("{} is not a {} knob", k.def().name, engine.name()),
                ));
            }
        }
    }
    if y.is_some_and(|y| y.0 == x.0) {
        return Err(costlab_model::Error::invalid(
            "plan diagram",
            "a diagram needs two different axes",
        ));
    }
    let mut k = knobs.clone();
    crate::diagram::build(
        x.1,
        y.map(|y| y.1),
        boundaries,
        |xv, yv| {
            let mut f = fraction;
            for (a, v) in [(Some(x.0), Some(xv)), (y.map(|y| y.0), yv)] {
                match (a, v) {
                    (Some(RangeAxis::Fraction), Some(v)) => f = v,
                    (Some(RangeAxis::Knob(knob)), Some(v)) => k.set(knob, v)?,
                    _ => {}
                }
            }
            let planned = plan(f, &k)?;
            let chosen = planned.chosen();
            let regret_s = match sim {
                Some(sim) => {
                    let mut chosen_s = f64::NAN;
                    let mut fastest = f64::INFINITY;
                    for (i, c) in planned.candidates.iter().enumerate() {
                        let t = sim.time_plan(&c.plan)?.total_s;
                        fastest = fastest.min(t);
                        if i == planned.chosen {
                            chosen_s = t;
                        }
                    }
                    (chosen_s - fastest).max(0.0)
                }
                None => f64::NAN,
            };
            Ok(Choice {
                signature: chosen.key.to_string(),
                cost: chosen.plan.cost.total,
                plan: chosen.key.clone(),
                regret_s: Some(regret_s),
            })
        },
        // A plan's time changes from cell to cell here: no one time stands for it.
        |key| {
            Ok(Description {
                summary: path_label(key),
                time_s: f64::NAN,
            })
        },
    )
}

/// [`range_diagram`] of the scenario's t1 query for one engine, with its knobs, machine
/// and cache state.
pub fn t1_diagram(
    scenario: &Scenario,
    engine: Engine,
    fraction: f64,
    x: (RangeAxis, &crate::diagram::Axis),
    y: Option<(RangeAxis, &crate::diagram::Axis)>,
    boundaries: crate::diagram::Boundaries,
) -> Result<crate::diagram::PlanDiagram> {
    let planner = Planner::new(scenario, engine)?;
    let sim = Simulator::for_release(&machine(scenario)?, scenario.version_of(engine))?;
    range_diagram(
        |f, k| planner.plan(f, k),
        Some(&sim),
        engine,
        &scenario.knobs,
        fraction,
        x,
        y,
        boundaries,
    )
}

/// The value of the flip knob that minimises total regret over the scenario's sweep on its
/// machine (crate::regret::fit_one), with the regret curve.
pub fn fit_flip_knob(
    scenario: &Scenario,
    engine: Engine,
    points: usize,
) -> Result<crate::regret::Fit1> {
    let knob = scenario.flip_knob;
    let planner = Planner::new(scenario, engine)?;
    let sim = Simulator::for_release(&machine(scenario)?, scenario.version_of(engine))?;
    let (from, to) = t1_range(scenario)?;
    let xs = costlab_model::sweep::sample_points(from, to, points.max(2), Spacing::Linear)?;
    let range = flip_range(knob, scenario.knobs.get(knob));
    crate::regret::fit_one(&sim, &xs, knob, &scenario.knobs, Some(range), |x, k| {
        planner.plan(x, k)
    })
}

/// Legend text for a candidate key of either engine: "range:k7" → "range scan on k7".
pub fn path_label(key: &str) -> String {
    let (kind, index) = key.split_once(':').unwrap_or((key, ""));
    let kind = match kind {
        "table_scan" => "table scan",
        "range" => "range scan",
        "dsmrr" => "range scan (DS-MRR)",
        "covering" => "covering range scan",
        "index_scan" => "full index scan",
        "ref" => "ref access",
        "const" => "const lookup",
        "seq" => "Seq Scan",
        "index" => "Index Scan",
        "indexonly" => "Index Only Scan",
        "bitmap" => "Bitmap Heap Scan",
        "gather-seq" => "Gather + Parallel Seq Scan",
        "gather-bitmap" => "Gather + Parallel Bitmap Heap Scan",
        "gather-index" => "Gather + Parallel Index Scan",
        other => other,
    };
    if index.is_empty() {
        kind.to_string()
    } else {
        format!("{kind} on {index}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Engines;
    use costlab_model::knobs::Knob;

    /// A profile file whose id is a seed profile's (here the seed's own disk-bound profile,
    /// written out and read back as `--profile-file` and the page's loader do) plans on
    /// the default server, not on the seed's: InnoDB 8.0 reports its buffer share and
    /// DBT3 joins without batched key access. Picking the built-in profile presets the
    /// seed's server.
    #[test]
    fn a_profile_file_named_like_a_seed_profile_gets_the_default_server() {
        use crate::compare::mysql_join_env;
        use costlab_mysql::join::wl8737_disk_bound;
        let builtin = sim::builtin::find("wl8737-disk").unwrap();
        let json = serde_json::to_string(&builtin).unwrap();
        let file: MachineProfile = serde_json::from_str(&json).unwrap();
        assert_eq!(file.id, "wl8737-disk");
        let s = Scenario {
            mysql_version: costlab_model::knobs::EngineVersion::Mysql80,
            machine: crate::scenario::CUSTOM_MACHINE.into(),
            custom_machine: Some(file.clone()),
            server: ServerSettings::DEFAULT,
            ..Scenario::default()
        };
        let table = t1::t1_table();
        let env = mysql_env(&s, &table).unwrap();
        // 8.0 reports the 1 GiB pool's share of the 2.9 GB table, not the seed's "nothing".
        let share = env.table_in_memory.expect("the release reports");
        assert!((0.3..0.4).contains(&share), "{share}");
        assert_ne!(env, t1::wl8737_disk_bound_env());
        let join = mysql_join_env(&file, &s.server);
        assert!(!join.batched_key_access);
        assert_ne!(join, wl8737_disk_bound());

        // The built-in profile picked by name: the seed's server, exactly.
        let seed = ServerSettings::preset_for_builtin("wl8737-disk");
        assert_eq!(
            mysql_env_for(&file, &seed, s.mysql_version, &table),
            t1::wl8737_disk_bound_env()
        );
        assert_eq!(mysql_join_env(&builtin, &seed), wl8737_disk_bound());
        let mem = sim::builtin::find("wl8737-memory").unwrap();
        let seed = ServerSettings::preset_for_builtin("wl8737-memory");
        assert_eq!(
            mysql_env_for(
                &mem,
                &seed,
                costlab_model::knobs::EngineVersion::Mysql57,
                &table
            ),
            t1::wl8737_in_memory_env()
        );
        assert_eq!(
            mysql_join_env(&mem, &seed),
            costlab_mysql::join::wl8737_in_memory()
        );
        // And the file with the default server is planned as any other machine would be.
        let mut other = file.clone();
        other.id = "someone-elses-disk".into();
        assert_eq!(
            mysql_env_for(&other, &ServerSettings::DEFAULT, s.mysql_version, &table),
            env
        );
    }

    #[test]
    fn default_scenario_switches_near_the_seeds_nine_percent() {
        // WL#8737: with memory_block_read_cost 1.0 the optimizer leaves the range scan at ~9 %.
        let s = Scenario::default();
        let c = engine_curves(&s, Engine::Mysql).unwrap();
        assert_eq!(c.xs.len(), SWEEP_POINTS);
        let switch = c
            .crossovers
            .iter()
            .find(|x| x.to == "table_scan")
            .expect("a switch to table scan");
        assert!((0.085..0.096).contains(&switch.x), "{}", switch.x);
        assert_eq!(c.paths[c.chosen[0]].key, "range:k7");
        assert_eq!(c.paths[*c.chosen.last().unwrap()].key, "table_scan");
    }

    #[test]
    fn lower_memory_cost_moves_the_switch_right() {
        let mut s = Scenario::default();
        s.knobs.set(Knob::MemoryBlockReadCost, 0.5).unwrap();
        let c = engine_curves(&s, Engine::Mysql).unwrap();
        let x = c
            .crossovers
            .iter()
            .find(|x| x.to == "table_scan")
            .unwrap()
            .x;
        assert!((0.144..0.155).contains(&x), "{x}");
    }

    #[test]
    fn postgres_curves_cover_seq_and_index_paths() {
        let s = Scenario {
            engines: Engines::One(Engine::Postgres),
            ..Scenario::default()
        };
        let c = engine_curves(&s, Engine::Postgres).unwrap();
        assert!(
            c.path("seq").is_some(),
            "{:?}",
            c.paths.iter().map(|p| &p.key).collect::<Vec<_>>()
        );
        assert!(c.paths.iter().any(|p| p.key.starts_with("index")));
        assert!(c
            .paths
            .iter()
            .flat_map(|p| &p.cost)
            .all(|v| v.is_nan() || (v.is_finite() && *v >= 0.0)));
    }

    #[test]
    fn the_seeds_lower_memory_cost_loses_less_time() {
        // WL#8737: on the in-memory server, 0.2 keeps the faster range scan up to 20 %.
        let regret = |mbrc: f64| {
            let mut s = Scenario::default();
            s.knobs.set(Knob::MemoryBlockReadCost, mbrc).unwrap();
            engine_curves(&s, Engine::Mysql)
                .unwrap()
                .times
                .total_regret_s
        };
        let (at_1, at_02) = (regret(1.0), regret(0.2));
        assert!(at_02 < at_1, "regret 0.2: {at_02}, 1.0: {at_1}");
        assert!(at_1 > 0.0);
    }

    #[test]
    fn flip_map_shows_both_plans_and_the_fit_sits_below_the_seeds_half() {
        let s = Scenario {
            view: crate::scenario::View::FlipMap,
            ..Scenario::default()
        };
        let map = flip_map(&s, Engine::Mysql, 40, 24).unwrap();
        assert!(
            map.plans.iter().any(|p| p == "table_scan"),
            "{:?}",
            map.plans
        );
        assert!(map.plans.iter().any(|p| p == "range:k7"), "{:?}", map.plans);
        assert_eq!(map.cells.len(), 24);
        assert!(map.values.windows(2).all(|w| w[0] < w[1]));
        // Every change between neighbouring cells has its switches on that edge, from the
        // one cell's plan to the other's, inside the edge.
        let mut edges = 0;
        for (j, row) in map.cells.iter().enumerate() {
            for i in 0..row.len() {
                let here = row[i].unwrap();
                let mut check = |axis: u8, next: usize, (a, b): (f64, f64)| {
                    let on: Vec<_> = map
                        .switches
                        .iter()
                        .filter(|s| s.axis == axis && s.row == j && s.col == i)
                        .collect();
                    if here == next {
                        return;
                    }
                    edges += 1;
                    assert!(!on.is_empty(), "no switch between cells at {i}, {j}");
                    assert_eq!(on[0].from, here);
                    assert_eq!(on[on.len() - 1].to, next);
                    assert!(on.iter().all(|s| s.at > a && s.at < b), "{on:?}");
                };
                if i + 1 < row.len() {
                    check(0, row[i + 1].unwrap(), (map.xs[i], map.xs[i + 1]));
                }
                if j + 1 < map.cells.len() {
                    check(
                        1,
                        map.cells[j + 1][i].unwrap(),
                        (map.values[j], map.values[j + 1]),
                    );
                }
            }
        }
        assert!(edges >= 24, "{edges} edges with a change");
        // The seed chose 0.2 over 0.5 for this workload; the fit must agree on the side.
        let fit = fit_flip_knob(&s, Engine::Mysql, 101).unwrap();
        assert!(fit.best < 0.5, "fitted {}", fit.best);
        assert!(
            fit.best_interval.0 <= 0.2 && 0.2 <= fit.best_interval.1,
            "{:?}",
            fit.best_interval
        );
        let wrong_engine = Scenario {
            flip_knob: Knob::RandomPageCost,
            ..s
        };
        assert!(flip_map(&wrong_engine, Engine::Mysql, 4, 4).is_err());
    }

    /// The diagram's `boundaries` are the sweep's `crossovers`, in order: the same plans on
    /// either side, each within `tol` of the sweep's value.
    #[track_caller]
    fn same_switches(
        d: &crate::diagram::PlanDiagram,
        boundaries: &[&crate::diagram::Boundary],
        crossovers: &[Crossover],
        tol: f64,
    ) {
        assert_eq!(
            boundaries.len(),
            crossovers.len(),
            "{boundaries:?} vs {crossovers:?}"
        );
        for (b, c) in boundaries.iter().zip(crossovers) {
            assert!((b.at - c.x).abs() <= tol, "{} vs {}", b.at, c.x);
            assert_eq!(d.plans[b.from].signature, c.from);
            assert_eq!(d.plans[b.to].signature, c.to);
        }
    }

    /// t1's plan diagram agrees with the sweep: along the fraction, at the sweep's own
    /// sample points, every cell's plan is the sweep's choice and its regret the sweep's;
    /// every boundary is a sweep crossover between the same plans (both bisect on the
    /// model to 1e-6 of the range). Over fraction x random_page_cost, each row's boundaries
    /// are the crossovers of a sweep run with that random_page_cost.
    #[test]
    fn t1_diagram_matches_the_sweep_along_the_fraction_and_across_a_knob() {
        use crate::diagram::Boundaries;
        let s = Scenario::default();
        let (from, to) = t1_range(&s).unwrap();
        for engine in [Engine::Mysql, Engine::Postgres] {
            let curves = engine_curves(&s, engine).unwrap();
            let ax = RangeAxis::Fraction.axis(from, to, SWEEP_POINTS).unwrap();
            let d = t1_diagram(
                &s,
                engine,
                0.0,
                (RangeAxis::Fraction, &ax),
                None,
                Boundaries::Locate,
            )
            .unwrap();
            assert_eq!(d.cells.len(), curves.xs.len());
            for (i, cell) in d.cells.iter().enumerate() {
                assert_eq!(
                    d.plans[cell.plan].signature,
                    curves.paths[curves.chosen[i]].key
                );
                assert_eq!(
                    cell.regret_s, curves.times.regret_s[i],
                    "{engine:?} at {}",
                    curves.xs[i]
                );
            }
            let all: Vec<_> = d.boundaries.iter().collect();
            same_switches(&d, &all, &curves.crossovers, 2e-6 * (to - from));
        }
        // Fraction x random_page_cost for PostgreSQL: rows against sweeps at their value.
        let ax = RangeAxis::Fraction.axis(from, to, 41).unwrap();
        let ay = RangeAxis::Knob(Knob::RandomPageCost)
            .axis(1.0, 8.0, 5)
            .unwrap();
        let d = t1_diagram(
            &s,
            Engine::Postgres,
            0.0,
            (RangeAxis::Fraction, &ax),
            Some((RangeAxis::Knob(Knob::RandomPageCost), &ay)),
            Boundaries::Locate,
        )
        .unwrap();
        assert!(d.plans.len() >= 2, "{:?}", d.plans);
        for (r, &rpc) in ay.values.iter().enumerate() {
            let mut at = s.clone();
            at.knobs.set(Knob::RandomPageCost, rpc).unwrap();
            let curves = engine_curves(&at, Engine::Postgres).unwrap();
            let row: Vec<_> = d
                .boundaries
                .iter()
                .filter(|b| b.axis == 0 && b.row == r)
                .collect();
            // PostgreSQL's choice between an index scan and a parallel bitmap scan
            // flickers over a few ten-thousandths of the fraction (row estimates are
            // rounded), so two grids can bisect to different flickers of one switch.
            same_switches(&d, &row, &curves.crossovers, 2e-3 * (to - from));
        }
        // Bad axes are errors, not panics.
        assert!(RangeAxis::Fraction.axis(0.3, 0.1, 5).is_err());
        assert!(RangeAxis::Fraction.axis(0.0, 1.5, 5).is_err());
        let mysql_knob = RangeAxis::Knob(Knob::IoBlockReadCost);
        let am = mysql_knob.axis(1.0, 4.0, 5).unwrap();
        assert!(t1_diagram(
            &s,
            Engine::Postgres,
            0.1,
            (mysql_knob, &am),
            None,
            Boundaries::Skip
        )
        .is_err());
        assert!(t1_diagram(
            &s,
            Engine::Postgres,
            0.1,
            (RangeAxis::Fraction, &ax),
            Some((RangeAxis::Fraction, &ax)),
            Boundaries::Skip
        )
        .is_err());
    }

    #[test]
    fn every_builtin_machine_times_both_engines() {
        for p in costlab_sim::builtin::profiles() {
            for engine in Engine::ALL {
                let s = Scenario {
                    machine: p.id.clone(),
                    engines: Engines::One(engine),
                    ..Scenario::default()
                };
                let t = engine_curves(&s, engine).unwrap().times;
                assert!(
                    t.seconds
                        .iter()
                        .flatten()
                        .all(|v| v.is_nan() || (v.is_finite() && *v >= 0.0)),
                    "{}",
                    p.id
                );
                assert!(
                    t.total_regret_s.is_finite() && t.total_regret_s >= 0.0,
                    "{}",
                    p.id
                );
            }
        }
    }

    #[test]
    fn bad_sweep_range_is_an_error() {
        let s = Scenario {
            workload: Workload::T1Sweep { from: 0.3, to: 0.1 },
            ..Scenario::default()
        };
        assert!(engine_curves(&s, Engine::Mysql)
            .unwrap_err()
            .to_string()
            .contains("sweep range"));
    }
}
