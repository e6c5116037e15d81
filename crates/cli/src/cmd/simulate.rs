//! `costlab simulate`: every candidate plan of one query timed on a machine profile (the
//! engine's choice, the fastest plan, the time the choice loses), a join query's chosen
//! plan node by node, and with `--workload t1 --diagram` t1's plan diagram.

use super::args::{machine_setup, DiagramDrawing, MachineArgs, Source};
use super::shared::{print, to_json, usage, Fail};
use clap::Args;
use costlab::simulate::{self, Machine, Planner};
use costlab_core::knobs::KnobValues;
use costlab_core::plan::Detail;
use costlab_core::query::Query;
use costlab_core::scenario_file::ScenarioFile;
use costlab_core::sim::builtin;
use costlab_core::workload::t1;

#[derive(Args)]
pub struct SimulateArgs {
    #[command(flatten)]
    machine: MachineArgs,
    /// List the built-in machine profiles (with --json: every field of each).
    #[arg(long)]
    list_profiles: bool,
    /// The query (with --scenario); default: the scenario's query.
    #[arg(long)]
    query: Option<String>,
    /// With --workload t1: the fraction of t1's rows the range holds (0 to 1).
    #[arg(long)]
    fraction: Option<f64>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// With --workload t1, a plan diagram instead of one point: NAME=LO:HI, NAME a knob
    /// (values as --set reads them) or `fraction` (of t1's rows, 0 to 1). Once: a strip
    /// over that axis; twice: x, then y. Off a fraction axis the range holds --fraction.
    #[arg(long = "diagram", value_name = "NAME=LO:HI")]
    diagrams: Vec<String>,
    #[command(flatten)]
    drawing: DiagramDrawing,
}

/// `SELECT ...` of t1 at a fraction, as text.
fn t1_sql(fraction: f64) -> Result<String, Fail> {
    let (lo, hi) = t1::t1_bounds(fraction).map_err(usage)?;
    Ok(format!(
        "SELECT * FROM t1 WHERE i7 > {lo} AND i7 < {hi} AND i8 = 2"
    ))
}

/// `costlab simulate`.
pub fn run(a: SimulateArgs) -> Result<(), Fail> {
    if a.list_profiles {
        let all = builtin::profiles();
        return print(&if a.json {
            to_json(&all)?
        } else {
            simulate::profiles_text(&all)
        });
    }
    let (source, machine, knobs) = machine_setup(&a.machine)?;
    if !a.diagrams.is_empty() {
        return t1_diagram(&a, &source, &machine, &knobs);
    }
    let (table, query, sql) = match &source {
        Source::T1 => {
            if a.query.is_some() {
                return Err(usage(
                    "--query goes with --scenario; --workload t1 takes --fraction",
                ));
            }
            let f = a
                .fraction
                .ok_or_else(|| usage("--workload t1 needs --fraction F (0 to 1)"))?;
            let sql = t1_sql(f)?;
            (t1::t1_table(), t1::t1_query(f).map_err(usage)?, sql)
        }
        Source::File(file) => {
            if a.fraction.is_some() {
                return Err(usage("--fraction goes with --workload t1"));
            }
            let sql = match a.query.as_deref().or(file.query.as_deref()) {
                Some(q) => q.to_string(),
                None => {
                    return Err(usage(
                        "no query: pass --query \"SELECT ...\" (the scenario has none)",
                    ))
                }
            };
            match Query::parse(&sql) {
                Ok(query) => (file.table(&query.table)?.clone(), query, sql),
                Err(_) => return simulate_join(&a, file, &machine, knobs, sql),
            }
        }
    };
    let planner = Planner::new(&machine, &table, Detail::Omit)?;
    let report = simulate::simulate(&machine, &planner, &query, &sql, &knobs)?;
    print(&if a.json {
        to_json(&report)?
    } else {
        report.text()
    })
}

/// `simulate --workload t1 --diagram ...`: t1's plan diagram over a knob or the fraction
/// of rows (`costlab_core::analysis::range_diagram`), printed as `dbt3 --diagram` prints.
fn t1_diagram(
    a: &SimulateArgs,
    source: &Source,
    machine: &Machine,
    knobs: &KnobValues,
) -> Result<(), Fail> {
    use costlab::diagram;
    use costlab_core::analysis::{range_diagram, RangeAxis};
    use costlab_core::diagram::Boundaries;
    if !matches!(source, Source::T1) {
        return Err(usage(
            "--diagram with simulate draws t1 (--workload t1); for a scenario's query use costlab workload --diagram",
        ));
    }
    if a.query.is_some() {
        return Err(usage(
            "--query goes with --scenario; --workload t1 takes --fraction",
        ));
    }
    let engine = machine.engine();
    let axes = a
        .diagrams
        .iter()
        .map(|t| diagram::parse_range_axis(t, engine))
        .collect::<Result<Vec<_>, _>>()
        .map_err(usage)?;
    if axes.len() > 2 {
        return Err(usage("--diagram: at most two axes (x and y)"));
    }
    let has_fraction = axes.iter().any(|x| x.0 == RangeAxis::Fraction);
    let fraction = match (a.fraction, has_fraction) {
        (Some(f), false) => f,
        (None, true) => 0.0,
        (Some(_), true) => {
            return Err(usage(
                "--fraction fixes what a fraction axis varies: give one or the other",
            ))
        }
        (None, false) => {
            return Err(usage(
                "a diagram over knobs holds the range fixed: add --fraction F (0 to 1), or make one axis fraction=LO:HI",
            ))
        }
    };
    t1::t1_bounds(fraction).map_err(usage)?;
    let (nx, ny) = a.drawing.grid()?;
    let built = axes
        .iter()
        .zip([nx, ny])
        .map(|((what, lo, hi), n)| what.axis(*lo, *hi, n))
        .collect::<Result<Vec<_>, _>>()
        .map_err(usage)?;
    let planner = Planner::new(machine, &t1::t1_table(), Detail::Omit)?;
    let sim = machine.simulator()?;
    let query = std::cell::RefCell::new(t1::T1Query::default());
    let d = range_diagram(
        |f, k| {
            let mut q = query.borrow_mut();
            planner.plan(q.at(f)?, k)
        },
        Some(&sim),
        engine,
        knobs,
        fraction,
        (axes[0].0, &built[0]),
        axes.get(1).map(|y| (y.0, &built[1])),
        Boundaries::Locate,
    )?;
    let title = if has_fraction {
        "t1 (WL#8737): SELECT ... WHERE k7 in a range".to_string()
    } else {
        format!("t1 (WL#8737): the range holds {fraction} of the rows")
    };
    let report = diagram::t1_report(machine, &a.machine.sets, title, d);
    a.drawing.print(&report, a.json)
}

/// `simulate` on a query the single-table models do not take: the join planner keeps one
/// plan, so the chosen plan is timed node by node (as `costlab workload --query 1`); how
/// plans change with a constant is `sweep --knob`'s and `workload`'s to show.
fn simulate_join(
    a: &SimulateArgs,
    file: &ScenarioFile,
    machine: &Machine,
    knobs: KnobValues,
    sql: String,
) -> Result<(), Fail> {
    use costlab::dbt3;
    if costlab_core::workload::user::split_queries(&sql)?.len() != 1 {
        return Err(usage(
            "--query takes one query; for several use costlab workload --queries FILE",
        ));
    }
    let name = a
        .machine
        .scenario
        .as_deref()
        .and_then(|p| p.file_name())
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let setup = dbt3::Dbt3Setup {
        version: machine.version,
        queries: dbt3::Queries::User {
            file: name,
            tables: file.tables.clone(),
            functions: file.functions.clone(),
            text: sql,
        },
        sf: 1.0,
        profile: machine.profile.clone(),
        server: machine.server,
        baseline: knobs.clone(),
        baseline_label: "the same constants".into(),
        current: knobs,
        sets: a.machine.sets.clone(),
        query: Some(1),
        repeat: None,
        series: machine.series,
        pg_options: machine.pg_options.clone(),
    };
    let report = dbt3::run(&setup)?;
    if let Some(r) = report.refused.first() {
        return Err(Fail::Error(r.error.clone()));
    }
    if a.json {
        return print(&to_json(&report)?);
    }
    let Some(r) = report.rows.first() else {
        return Err(Fail::Error("the query was not planned".into()));
    };
    let p = &r.current;
    let tree = match (&p.tree, &p.node_times_s) {
        (Some(t), times) => costlab_core::compare::tree_text(t, times.as_deref()),
        (None, _) => String::new(),
    };
    print(&format!(
        "{} on {} ({}), {} cache\nplan: cost {:.2}, {:.0} rows, simulated time {} s\n{tree}\
         ([time ...]: the node's own simulated time, without its children)\n\
         (a join planner keeps one plan per query: this is the chosen plan's time; \
         costlab sweep --knob NAME shows where the plan changes, costlab workload compares \
         two sets of constants)\n",
        report.release,
        report.profile.id,
        report.profile.label,
        if report.warm_cache { "warm" } else { "cold" },
        p.cost,
        p.rows,
        simulate::secs(p.time_s),
    ))
}
