//! `costlab dbt3` and `costlab workload`: one set of options, one run. DBT3's 22 queries
//! (`dbt3`) or the user's over a scenario file's tables (`workload`), planned under a
//! baseline and under the current constants and timed (`costlab::dbt3`), or drawn as plan
//! diagrams with `--diagram` (`costlab::diagram`).

use super::args::{DiagramDrawing, ServerArgs};
use super::shared::{apply_sets, load_scenario, machine_profile, print, switches, to_json};
use super::shared::{usage, Fail};
use clap::Args;
use costlab::{dbt3, diagram, engines};
use costlab_core::knobs::{Engine, EngineVersion, KnobValues};
use costlab_core::scenario::{Scenario, ServerSettings};
use costlab_core::sim::{builtin, MachineProfile};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct Dbt3Args {
    /// postgres or mysql.
    #[arg(long)]
    engine: String,
    /// Scale factor (0.01 to 1000).
    #[arg(long, default_value_t = 10.0)]
    sf: f64,
    /// Built-in machine profile (see `costlab simulate --list-profiles`); default:
    /// wl8737-memory (the seed's in-memory server), named on stderr.
    #[arg(long, conflicts_with = "profile_file")]
    profile: Option<String>,
    /// Machine profile JSON file (a probe's calibration file), validated.
    #[arg(long, value_name = "FILE")]
    profile_file: Option<PathBuf>,
    /// Nothing cached when a query starts (default: the warm steady state).
    #[arg(long)]
    cold: bool,
    #[command(flatten)]
    server: ServerArgs,
    /// Override a knob of the current constants: name=value, PostgreSQL's as SET reads them
    /// (work_mem=64MB; a bare number is in the parameter's base unit); repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    sets: Vec<String>,
    /// Preset the baseline is (e.g. mysql-5.7, wl8737-alt1, pg-default); default: the
    /// release's defaults.
    #[arg(long, value_name = "PRESET")]
    baseline: Option<String>,
    /// Override a knob of the baseline (after --baseline's preset), as --set does for the
    /// current constants: a server-wide setting such as the seed's disk-bound
    /// mrr_cost_based=0 belongs on both sides; repeatable.
    #[arg(long = "baseline-set", value_name = "NAME=VALUE")]
    baseline_sets: Vec<String>,
    /// PostgreSQL: plan with these enable_* switches off, as `SET enable_nestloop = off`
    /// does (nestloop, hashjoin, mergejoin, material, memoize, hashagg, seqscan, indexscan,
    /// indexonlyscan, bitmapscan, sort): a session setting, so on both sides of the
    /// comparison; comma-separated or repeated.
    #[arg(long, value_delimiter = ',')]
    disable: Vec<String>,
    /// Only this query (1 to 22; the workload's: its number), with both plans as trees.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    query: Option<i64>,
    /// A scenario file (`costlab import`): `dbt3` plans DBT3's queries on its tables (named
    /// as the kit names them); `workload` plans its queries (or those of --queries). The
    /// file's settings are not applied: the current constants are the release's defaults
    /// with --set, as in the page.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// `workload`: the queries, a SQL file (statements ending in `;`) or one per line;
    /// default: the scenario file's own.
    #[arg(long, value_name = "FILE")]
    queries: Option<PathBuf>,
    /// Release to model (15..18 for PostgreSQL; 5.7, 8.0, 8.4 for MySQL); default: the
    /// seed's (MySQL 5.7, PostgreSQL 18).
    // `--version` was this option's name; kept hidden so old command lines still run.
    #[arg(
        long = "release",
        value_name = "RELEASE",
        aliases = ["version", "engine-version"]
    )]
    release: Option<String>,
    /// Print the report as JSON. Without --query: the table only (each plan's summary,
    /// signature, cost, rows and time), no plan trees; with --query N: that query's two
    /// plan trees and each node's simulated time as well.
    #[arg(long)]
    json: bool,
    /// PostgreSQL: plan with the "ORDER BY value handed up" series (the third seed's patch
    /// set) instead of stock, both sides of the comparison; a scenario's tables only.
    #[arg(long)]
    series: bool,
    /// Also measure planning time per query: the median of N runs (default 21), in µs.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "21")]
    timings: Option<usize>,
    /// A plan diagram instead of the table: NAME=LO:HI, values as --set reads them
    /// (random_page_cost=1:8, effective_cache_size=1GB:64GB). Once: the flip map of every
    /// query over that knob (or one query's strip with --query); twice (x, then y): one
    /// query's diagram (--query N). The other knobs as --set leaves them.
    #[arg(long = "diagram", value_name = "NAME=LO:HI")]
    diagrams: Vec<String>,
    #[command(flatten)]
    drawing: DiagramDrawing,
}

/// `costlab dbt3` (`user` false) and `costlab workload` (`user` true).
pub fn run(a: Dbt3Args, user: bool) -> Result<(), Fail> {
    // The checks run in this order, so that of several mistakes the same one is named.
    let engine = Engine::parse(&a.engine).map_err(usage)?;
    let queries = queries(&a, user)?;
    let version = release(&a, engine)?;
    let pg_options = switches(engine, &a.disable)?;
    let sf = costlab_core::workload::dbt3::catalog::check_sf(a.sf)
        .map_err(|e| Fail::Usage(format!("--sf: {e}")))?;
    let query = match (user, a.query) {
        (true, Some(n)) if !(1..=costlab_core::workload::user::MAX_QUERIES as i64).contains(&n) => {
            return Err(Fail::Usage(format!("--query: {n} is not a query number")))
        }
        (true, q) => q.map(|n| n as u8),
        (false, q) => q.map(dbt3::check_query).transpose().map_err(usage)?,
    };
    let diagram_axes = diagram_axes(&a, engine, query)?;
    if let Some(n) = a.timings {
        if !(1..=dbt3::MAX_REPEAT).contains(&n) {
            return Err(Fail::Usage(format!(
                "--timings: {n} runs is outside 1 to {}",
                dbt3::MAX_REPEAT
            )));
        }
    }
    let defaults = dbt3::release_defaults(version);
    let mut current = defaults.clone();
    apply_sets(&mut current, &a.sets, engine)?;
    let (baseline, baseline_label) = baseline(&a, &defaults, version, engine)?;
    let (profile, server) = machine(&a)?;
    let setup = dbt3::Dbt3Setup {
        version,
        queries,
        sf,
        profile,
        server,
        baseline,
        baseline_label,
        current,
        sets: a.sets.clone(),
        query,
        repeat: a.timings,
        series: a.series,
        pg_options,
    };
    if let Some((axes, grid)) = &diagram_axes {
        let report = diagram::run(&setup, axes, *grid)?;
        return a.drawing.print(&report, a.json);
    }
    let report = dbt3::run(&setup)?;
    print(&if a.json {
        to_json(&report)?
    } else if query.is_some() {
        report.query_text()
    } else {
        report.text()
    })
}

/// DBT3's queries (on the built-in catalog, or on `--scenario`'s tables), or the user's:
/// `--queries`, else the scenario file's own.
fn queries(a: &Dbt3Args, user: bool) -> Result<dbt3::Queries, Fail> {
    let file = a.scenario.as_deref().map(load_scenario).transpose()?;
    Ok(match (user, file) {
        (false, _) if a.queries.is_some() => {
            return Err(Fail::Usage(
                "--queries: DBT3 has its own; use `costlab workload` for yours".into(),
            ))
        }
        (false, f) => dbt3::Queries::Dbt3 {
            tables: f.map(|f| f.tables),
        },
        (true, None) => {
            return Err(Fail::Usage(
                "--scenario FILE is needed: the tables the queries read (costlab import, or static/example-shop.json)".into(),
            ))
        }
        (true, Some(f)) => {
            let text = match &a.queries {
                Some(path) => read_queries(path)?,
                None => f.queries.clone(),
            };
            let name = a
                .scenario
                .as_deref()
                .and_then(|p| p.file_name())
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            dbt3::Queries::User {
                file: name,
                tables: f.tables,
                functions: f.functions,
                text,
            }
        }
    })
}

/// The SQL of `--queries FILE`, within the size a workload takes.
fn read_queries(path: &Path) -> Result<String, Fail> {
    let fail = |e: std::io::Error| Fail::Error(format!("cannot read {}: {e}", path.display()));
    if std::fs::metadata(path).map_err(fail)?.len()
        > costlab_core::workload::user::MAX_TEXT_BYTES as u64
    {
        return Err(Fail::Error(format!(
            "{}: a workload takes at most {} KB of SQL",
            path.display(),
            costlab_core::workload::user::MAX_TEXT_BYTES / 1024
        )));
    }
    std::fs::read_to_string(path).map_err(fail)
}

/// `--release`, a release of `--engine`; default: the seed's.
fn release(a: &Dbt3Args, engine: Engine) -> Result<EngineVersion, Fail> {
    Ok(match a.release.as_deref() {
        None => dbt3::default_version(engine),
        Some(r) => {
            let v = engines::parse_version(r).map_err(usage)?;
            if v.engine() != engine {
                return Err(Fail::Usage(format!(
                    "--release: {} is not a release of {}",
                    v.label(),
                    engine.name()
                )));
            }
            v
        }
    })
}

/// `--diagram`'s knobs and `--grid`'s columns and rows.
type Drawn = (Vec<diagram::AxisSpec>, (usize, usize));

/// `--diagram`'s axes (checked) and `--grid`, or None for the table.
fn diagram_axes(a: &Dbt3Args, engine: Engine, query: Option<u8>) -> Result<Option<Drawn>, Fail> {
    if a.diagrams.is_empty() {
        return Ok(None);
    }
    if a.timings.is_some() || a.baseline.is_some() || !a.baseline_sets.is_empty() {
        return Err(Fail::Usage(
            "--diagram draws the current constants: --timings, --baseline and --baseline-set do not apply".into(),
        ));
    }
    let axes = a
        .diagrams
        .iter()
        .map(|t| diagram::parse_axis(t, engine))
        .collect::<costlab_core::Result<Vec<_>>>()
        .map_err(usage)?;
    if axes.len() > 2 {
        return Err(Fail::Usage("--diagram: at most two knobs (x and y)".into()));
    }
    if axes.len() == 2 && query.is_none() {
        return Err(Fail::Usage(
            "--diagram: a diagram over two knobs is of one query: add --query N".into(),
        ));
    }
    if axes.len() == 2 && axes[0].knob == axes[1].knob {
        return Err(Fail::Usage(
            "--diagram: a diagram needs two different knobs".into(),
        ));
    }
    for ax in &axes {
        costlab_core::diagram::Axis::of_knob(ax.knob, ax.lo, ax.hi, 2).map_err(usage)?;
    }
    Ok(Some((axes, a.drawing.grid()?)))
}

/// The baseline's constants and label: `--baseline`'s preset (default: the release's
/// defaults), then `--baseline-set`.
fn baseline(
    a: &Dbt3Args,
    defaults: &KnobValues,
    version: EngineVersion,
    engine: Engine,
) -> Result<(KnobValues, String), Fail> {
    let (baseline, baseline_label) = dbt3::baseline(defaults, version, a.baseline.as_deref())
        .map_err(|e| {
            Fail::Usage(
                if a.baseline.is_some() && !e.to_string().contains("--baseline") {
                    format!("--baseline: {e}")
                } else {
                    e.to_string()
                },
            )
        })?;
    if a.baseline_sets.is_empty() {
        return Ok((baseline, baseline_label));
    }
    let mut k = baseline;
    apply_sets(&mut k, &a.baseline_sets, engine).map_err(|e| match e {
        Fail::Usage(m) => Fail::Usage(match m.strip_prefix("--set") {
            Some(rest) => format!("--baseline-set{rest}"),
            None => format!("--baseline-set: {m}"),
        }),
        other => other,
    })?;
    Ok((
        k,
        format!("{baseline_label} with {}", a.baseline_sets.join(", ")),
    ))
}

/// The machine that times the plans and the server settings it presets.
fn machine(a: &Dbt3Args) -> Result<(MachineProfile, ServerSettings), Fail> {
    // Plans and costs need no machine; the times do. Without one, the seed's in-memory
    // server (the page's default) times them, and stderr says so.
    let profile_id = match (&a.profile, &a.profile_file) {
        (None, None) => {
            let id = Scenario::default().machine;
            let p = builtin::find(&id)?;
            let _ = writeln!(
                std::io::stderr(),
                "costlab: no --profile given; timing on {id} ({}); see costlab simulate --list-profiles",
                p.label
            );
            Some(id)
        }
        (p, _) => p.clone(),
    };
    let (profile, mut server) =
        machine_profile(profile_id.as_deref(), a.profile_file.as_deref(), a.cold)?;
    a.server.apply(&mut server)?;
    Ok((profile, server))
}
