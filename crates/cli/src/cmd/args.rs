//! Option groups several subcommands flatten into theirs, each with what reads it:
//! [`Common`] (`explain`, `sweep`), [`MachineArgs`] (`simulate`, `fit`), [`ServerArgs`]
//! (those two and `dbt3`, `workload`) and [`DiagramDrawing`] (`--diagram`'s grid and
//! format).

use super::shared::{apply_sets, load_scenario, machine_profile, print, switches, to_json};
use super::shared::{usage, Fail};
use clap::Args;
use costlab::engines::{self, Setup};
use costlab::simulate::Machine;
use costlab_core::knobs::{Engine, KnobValues};
use costlab_core::scenario::{InnodbCacheReport, Scenario, ServerSettings};
use costlab_core::scenario_file::ScenarioFile;
use std::path::PathBuf;

/// The scenario, constants and planner options of `explain` and `sweep`.
#[derive(Args)]
pub struct Common {
    /// postgres or mysql.
    #[arg(long)]
    engine: String,
    /// Scenario file (costlab import writes one).
    #[arg(long)]
    scenario: PathBuf,
    /// Override a knob: name=value (engine parameter name or URL key); PostgreSQL's values
    /// as SET reads them (work_mem=64MB, effective_cache_size=4GB; a bare number is in the
    /// parameter's base unit: kB for work_mem, 8kB pages for effective_cache_size);
    /// repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    sets: Vec<String>,
    /// PostgreSQL: turn off plan types as `SET enable_x = off` does (seqscan, indexscan,
    /// indexonlyscan, bitmapscan, sort; for joins also hashjoin, mergejoin, nestloop,
    /// material, memoize, hashagg); comma-separated or repeated.
    #[arg(long, value_delimiter = ',')]
    disable: Vec<String>,
    /// MySQL: innodb_buffer_pool_size in MB.
    #[arg(long)]
    buffer_pool_mb: Option<f64>,
    /// Release to model (15..18 for PostgreSQL; 5.7, 8.0, 8.4 for MySQL); default: the
    /// scenario's release, else the newest.
    #[arg(long = "release", value_name = "RELEASE", alias = "engine-version")]
    release: Option<String>,
    /// PostgreSQL: plan with the "ORDER BY value handed up" series (the third seed's patch
    /// set) instead of stock: same costs, but an ordering index scan hands its value up and
    /// an index-only scan may return an indexed expression.
    #[arg(long)]
    series: bool,
}

/// The scenario, constants (with --set applied) and engine setup a command works with.
pub fn prepare(c: &Common) -> Result<(ScenarioFile, KnobValues, Setup), Fail> {
    let engine = Engine::parse(&c.engine).map_err(usage)?;
    let named = c
        .release
        .as_deref()
        .map(engines::parse_version)
        .transpose()
        .map_err(usage)?;
    let scenario = load_scenario(&c.scenario)?;
    let version = engines::version_for(engine, &scenario, named).map_err(usage)?;
    let mut knobs = engines::knobs_for(&scenario, version)?;
    apply_sets(&mut knobs, &c.sets, engine)?;
    let setup = match engine {
        Engine::Postgres => {
            if c.buffer_pool_mb.is_some() {
                return Err(Fail::Usage(
                    "--buffer-pool-mb is a MySQL option; PostgreSQL costs do not read it".into(),
                ));
            }
            Setup::Postgres {
                version,
                options: engines::pg_options(&c.disable).map_err(usage)?,
                functions: scenario.functions.clone(),
                handed_up: c.series,
            }
        }
        Engine::Mysql => {
            if !c.disable.is_empty() {
                return Err(Fail::Usage(
                    "--disable takes PostgreSQL's enable_* switches; not available for MySQL"
                        .into(),
                ));
            }
            if c.series {
                return Err(Fail::Usage(
                    "--series is a PostgreSQL planner variant; not available for MySQL".into(),
                ));
            }
            let mut env = costlab_core::mysql::MysqlEnv::default();
            if let Some(mb) = c.buffer_pool_mb {
                if !mb.is_finite() || mb <= 0.0 || mb > 1e12 {
                    return Err(Fail::Usage(format!(
                        "--buffer-pool-mb: {mb} is not a size in MB (0 to 1e12)"
                    )));
                }
                env.innodb_buffer_pool_size = mb * 1024.0 * 1024.0;
            }
            Setup::Mysql { env }
        }
    };
    Ok((scenario, knobs, setup))
}

/// MySQL server settings beyond the constants and the machine. Default: what the built-in
/// profile presets (the seed's servers for wl8737-memory and wl8737-disk, a server as
/// installed for the others); a profile file presets nothing, whatever its id.
#[derive(Args)]
pub struct ServerArgs {
    /// What InnoDB reports as cached: release (as the release does), all-cached (every
    /// table, when warm: the seed's in-memory server), heuristic (nothing: the seed's
    /// disk-bound server).
    #[arg(long, value_name = "REPORT", value_parser = ["release", "all-cached", "heuristic"])]
    innodb_cache_report: Option<String>,
    /// optimizer_switch batched_key_access for DBT3's joins.
    #[arg(long, value_name = "on|off", value_parser = ["on", "off"])]
    batched_key_access: Option<String>,
}

impl ServerArgs {
    pub fn apply(&self, server: &mut ServerSettings) -> Result<(), Fail> {
        if let Some(r) = &self.innodb_cache_report {
            server.innodb_cache_report = InnodbCacheReport::parse(r).map_err(usage)?;
        }
        if let Some(b) = &self.batched_key_access {
            server.batched_key_access = b == "on";
        }
        Ok(())
    }
}

/// The machine, engine and workload `simulate` and `fit` work with.
#[derive(Args)]
pub struct MachineArgs {
    /// postgres or mysql.
    #[arg(long)]
    engine: Option<String>,
    /// Release to model (15..18 for PostgreSQL; 5.7, 8.0, 8.4 for MySQL); default: the
    /// scenario's release, else the newest; for --workload t1 the seed's (PostgreSQL 18,
    /// MySQL 5.7).
    #[arg(long = "release", value_name = "RELEASE", alias = "engine-version")]
    release: Option<String>,
    /// Built-in machine profile (see `costlab simulate --list-profiles`).
    #[arg(long, conflicts_with = "profile_file")]
    profile: Option<String>,
    /// Machine profile JSON file (a probe's calibration file, or one of
    /// `costlab simulate --list-profiles --json`), validated.
    #[arg(long, value_name = "FILE")]
    profile_file: Option<PathBuf>,
    /// Nothing cached when the query starts (default: the warm steady state).
    #[arg(long)]
    cold: bool,
    /// Built-in workload: `t1` (WL#8737's table and range query).
    #[arg(long, conflicts_with = "scenario")]
    workload: Option<String>,
    /// Scenario file (costlab import writes one).
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Override a knob: name=value (engine parameter name or URL key); PostgreSQL's values
    /// as SET reads them (work_mem=64MB, effective_cache_size=4GB; a bare number is in the
    /// parameter's base unit: kB for work_mem, 8kB pages for effective_cache_size);
    /// repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub sets: Vec<String>,
    /// PostgreSQL: turn off plan types as `SET enable_x = off` does (seqscan, indexscan,
    /// indexonlyscan, bitmapscan, sort; for joins also hashjoin, mergejoin, nestloop,
    /// material, memoize, hashagg); comma-separated or repeated.
    #[arg(long, value_delimiter = ',')]
    disable: Vec<String>,
    #[command(flatten)]
    server: ServerArgs,
    /// PostgreSQL: plan with the "ORDER BY value handed up" series (the third seed's patch
    /// set) instead of stock; a scenario's queries only.
    #[arg(long)]
    series: bool,
}

/// Where `simulate` and `fit` take their table and query from.
pub enum Source {
    T1,
    File(ScenarioFile),
}

/// The workload, machine and constants of `simulate` and `fit`.
pub fn machine_setup(a: &MachineArgs) -> Result<(Source, Machine, KnobValues), Fail> {
    let engine = a
        .engine
        .as_deref()
        .ok_or_else(|| usage("--engine is required (postgres or mysql)"))?;
    let engine = Engine::parse(engine).map_err(usage)?;
    let named = a
        .release
        .as_deref()
        .map(engines::parse_version)
        .transpose()
        .map_err(usage)?;
    let source = match (&a.workload, &a.scenario) {
        (Some(w), None) if w.eq_ignore_ascii_case("t1") => Source::T1,
        (Some(w), None) => {
            return Err(Fail::Usage(format!(
                "--workload: `{w}` is not a built-in workload (t1)"
            )))
        }
        (None, Some(path)) => Source::File(load_scenario(path)?),
        _ => {
            return Err(usage(
                "a workload is required: --workload t1 or --scenario FILE",
            ))
        }
    };
    let (version, mut knobs) = match &source {
        Source::T1 => {
            // The seed's releases, as the page's default scenario.
            let seed = Scenario::default();
            let version = match named {
                Some(v) if v.engine() != engine => {
                    return Err(Fail::Usage(format!(
                        "--release: {} is not a release of {}",
                        v.label(),
                        engine.name()
                    )))
                }
                Some(v) => v,
                None => seed.version_of(engine),
            };
            let (pg, my) = match engine {
                Engine::Postgres => (version, seed.mysql_version),
                Engine::Mysql => (seed.pg_version, version),
            };
            (version, KnobValues::defaults(pg, my))
        }
        Source::File(f) => {
            let version = engines::version_for(engine, f, named).map_err(usage)?;
            (version, engines::knobs_for(f, version)?)
        }
    };
    apply_sets(&mut knobs, &a.sets, engine)?;
    let (profile, mut server) =
        machine_profile(a.profile.as_deref(), a.profile_file.as_deref(), a.cold)?;
    a.server.apply(&mut server)?;
    let pg_options = switches(engine, &a.disable)?;
    if a.series && engine == Engine::Mysql {
        return Err(usage(
            "--series is a PostgreSQL planner variant; not available for MySQL",
        ));
    }
    Ok((
        source,
        Machine {
            version,
            profile,
            server,
            pg_options,
            series: a.series,
        },
        knobs,
    ))
}

/// How a `--diagram` is drawn: its grid and output format.
#[derive(Args)]
pub struct DiagramDrawing {
    /// Cells per axis of --diagram: N, or NxM (columns x rows); 2 to 200 [default: 50].
    #[arg(long, value_name = "N|NxM", requires = "diagrams")]
    grid: Option<String>,
    /// How --diagram prints: text (letters per plan), json, csv (a line per cell) or svg.
    #[arg(long, value_parser = ["text", "json", "csv", "svg"], requires = "diagrams")]
    format: Option<String>,
}

impl DiagramDrawing {
    /// Columns and rows (`--grid`, default 50 x 50).
    pub fn grid(&self) -> Result<(usize, usize), Fail> {
        match &self.grid {
            Some(g) => costlab::diagram::parse_grid(g).map_err(usage),
            None => Ok((
                costlab::diagram::DEFAULT_GRID,
                costlab::diagram::DEFAULT_GRID,
            )),
        }
    }

    /// The report in `--format` (JSON by default with --json, else text).
    pub fn print(&self, report: &costlab::diagram::DiagramReport, json: bool) -> Result<(), Fail> {
        let format = self
            .format
            .as_deref()
            .unwrap_or(if json { "json" } else { "text" });
        print(&match format {
            "json" => to_json(report)?,
            "csv" => report.csv(),
            "svg" => report.svg(),
            _ => report.text(),
        })
    }
}
