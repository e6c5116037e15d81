//! `costlab fit`: one cost constant (or a pair) fitted so that the engine's choices lose
//! the least simulated time over a sweep of queries, and `fit --seed-table`.

use super::args::{machine_setup, MachineArgs, Source};
use super::shared::{print, to_json, usage, Fail};
use clap::Args;
use costlab::simulate::{self, Machine, Planner};
use costlab_core::knobs::{Engine, Knob, KnobValues};
use costlab_core::plan::Detail;
use costlab_core::query::Query;
use costlab_core::scenario_file::ScenarioFile;
use costlab_core::sweep::{self, Spacing};
use costlab_core::workload::t1;

#[derive(Args)]
pub struct FitArgs {
    #[command(flatten)]
    machine: MachineArgs,
    /// Fit random_page_cost on each of the random_page_cost seed's five devices and print
    /// it next to the seed's measured ratio (other options are not needed).
    #[arg(long)]
    seed_table: bool,
    /// The cost constant to fit (engine parameter name or URL key).
    #[arg(long)]
    knob: Option<String>,
    /// A second constant: fit the pair on a refined log grid.
    #[arg(long)]
    knob2: Option<String>,
    /// Search range of --knob as LO,HI (default: the knob's whole range).
    #[arg(long, value_name = "LO,HI")]
    range: Option<String>,
    /// Search range of --knob2 as LO,HI.
    #[arg(long, value_name = "LO,HI")]
    range2: Option<String>,
    /// With --scenario: the query with `{x}` where the swept value goes.
    #[arg(long)]
    query_template: Option<String>,
    /// Sweep start (for --workload t1: fraction of rows).
    #[arg(long)]
    from: Option<f64>,
    /// Sweep end.
    #[arg(long)]
    to: Option<f64>,
    /// Sweep points.
    #[arg(long, default_value_t = 201)]
    points: usize,
    /// Spread the sweep points evenly in log(x).
    #[arg(long)]
    log: bool,
    /// Print the fit as JSON.
    #[arg(long)]
    json: bool,
}

/// `costlab fit`.
pub fn run(a: FitArgs) -> Result<(), Fail> {
    if a.seed_table {
        let rows = simulate::seed_table()?;
        return print(&if a.json {
            to_json(&rows)?
        } else {
            simulate::seed_table_text(&rows)
        });
    }
    let (source, machine, knobs) = machine_setup(&a.machine)?;
    let engine = machine.engine();
    let knob = match &a.knob {
        Some(n) => fit_knob("--knob", n, engine)?,
        None => return Err(usage("--knob NAME is required (or --seed-table)")),
    };
    let knob2 = a
        .knob2
        .as_deref()
        .map(|n| fit_knob("--knob2", n, engine))
        .transpose()?;
    if knob2 == Some(knob) {
        return Err(usage("--knob2 must differ from --knob"));
    }
    let range = parse_range("--range", &a.range)?;
    let range2 = parse_range("--range2", &a.range2)?;
    if range2.is_some() && knob2.is_none() {
        return Err(usage("--range2 goes with --knob2"));
    }
    let (from, to) = match (a.from, a.to) {
        (Some(f), Some(t)) => (f, t),
        _ => return Err(usage("the sweep needs --from A --to B")),
    };
    if !(2..=100_000).contains(&a.points) {
        return Err(Fail::Usage(format!(
            "--points: {} is outside 2 to 100000",
            a.points
        )));
    }
    let spacing = if a.log { Spacing::Log } else { Spacing::Linear };
    let xs = sweep::sample_points(from, to, a.points, spacing).map_err(usage)?;
    let spacing_name = if a.log { "log" } else { "linear" };
    let (table, template) = match &source {
        Source::T1 => {
            if a.query_template.is_some() {
                return Err(usage(
                    "--query-template goes with --scenario; --workload t1 sweeps the fraction of rows",
                ));
            }
            t1::t1_bounds(from).map_err(usage)?;
            t1::t1_bounds(to).map_err(usage)?;
            (t1::t1_table(), None)
        }
        Source::File(file) => {
            let Some(tpl) = a.query_template.clone() else {
                return Err(usage("--scenario needs --query-template \"... {x} ...\""));
            };
            if !tpl.contains("{x}") {
                return Err(usage("the query template has no {x} to sweep"));
            }
            // A one-table query: every candidate's cost is a line in the constant and the fit
            // takes their lower envelope exactly. Any other: the join planner's choices on a
            // grid of the constant (`grid_fit`).
            let q = match Query::parse(&tpl.replace("{x}", &format!("{from}"))) {
                Ok(q) => q,
                Err(_) if knob2.is_none() => {
                    return fit_join(&a, file, &machine, knobs, knob, range, &tpl, &xs)
                }
                Err(e) => {
                    return Err(Fail::Error(format!(
                        "{e}; a pair of constants (--knob2) is fitted on one-table queries only"
                    )))
                }
            };
            (file.table(&q.table)?.clone(), Some(tpl))
        }
    };
    let query_at = |x: f64| -> costlab_core::Result<Query> {
        match &template {
            None => t1::t1_query(x),
            Some(tpl) => {
                let q = Query::parse(&tpl.replace("{x}", &format!("{x}")))?;
                if !q.table.eq_ignore_ascii_case(&table.name) {
                    return Err(costlab_core::Error::invalid(
                        "--query-template",
                        "every query of the sweep must read the same table",
                    ));
                }
                Ok(q)
            }
        }
    };
    let describe = match &template {
        None => format!("t1 (WL#8737), fraction of rows {from} to {to}, {spacing_name}"),
        Some(tpl) => format!("{tpl}, x from {from} to {to}, {spacing_name}"),
    };
    let sweep = simulate::Sweep {
        describe,
        xs,
        query_at: &query_at,
    };
    let planner = Planner::new(&machine, &table, Detail::Omit)?;
    match knob2 {
        None => {
            let r = simulate::fit_one(&machine, &planner, &sweep, knob, range, &knobs)?;
            print(&if a.json { to_json(&r)? } else { r.text() })
        }
        Some(k2) => {
            let r = simulate::fit_two(
                &machine,
                &planner,
                &sweep,
                (knob, k2),
                (range, range2),
                &knobs,
            )?;
            print(&if a.json { to_json(&r)? } else { r.text() })
        }
    }
}

fn parse_range(flag: &str, s: &Option<String>) -> Result<Option<(f64, f64)>, Fail> {
    let Some(s) = s else { return Ok(None) };
    let bad = || Fail::Usage(format!("{flag}: `{s}` is not LO,HI with 0 < LO < HI"));
    let (lo, hi) = s.split_once(',').ok_or_else(bad)?;
    let lo: f64 = lo.trim().parse().map_err(|_| bad())?;
    let hi: f64 = hi.trim().parse().map_err(|_| bad())?;
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && lo < hi) {
        return Err(bad());
    }
    Ok(Some((lo, hi)))
}

fn fit_knob(flag: &str, name: &str, engine: Engine) -> Result<Knob, Fail> {
    let k = Knob::lookup(name).map_err(|e| Fail::Usage(format!("{flag}: {e}")))?;
    if k.def().engine != engine {
        return Err(Fail::Usage(format!(
            "{flag} {}: a {} knob has no effect on {}",
            k.def().name,
            k.def().engine.name(),
            engine.name()
        )));
    }
    simulate::fit_range(k, Some((1.0, 2.0))).map_err(|e| Fail::Usage(format!("{flag}: {e}")))?;
    Ok(k)
}

/// Grid points of a join fit: log-spaced over the knob's range, ends included.
const JOIN_FIT_GRID: usize = 61;

/// `fit` over a join query template: each x a query of a workload, the knob on a log grid,
/// time lost against the fastest plan the engine picks anywhere on the grid.
#[allow(clippy::too_many_arguments)]
fn fit_join(
    a: &FitArgs,
    file: &ScenarioFile,
    machine: &Machine,
    knobs: KnobValues,
    knob: Knob,
    range: Option<(f64, f64)>,
    template: &str,
    xs: &[f64],
) -> Result<(), Fail> {
    use costlab_core::workload::user::{read_workload, QueryText, MAX_QUERIES};
    if xs.len() > MAX_QUERIES {
        return Err(usage(format!(
            "--points: a join query's fit plans each point at {JOIN_FIT_GRID} values of the constant; at most {MAX_QUERIES} points"
        )));
    }
    let (lo, hi) = simulate::fit_range(knob, range).map_err(usage)?;
    let mut values = sweep::sample_points(lo, hi, JOIN_FIT_GRID, Spacing::Log).map_err(usage)?;
    // The current value is on the grid, so its time lost counts against the same plans.
    let current = knobs.get(knob);
    if (lo..=hi).contains(&current) && !values.contains(&current) {
        values.push(current);
        values.sort_by(f64::total_cmp);
    }
    let texts: Vec<QueryText> = xs
        .iter()
        .enumerate()
        .map(|(i, x)| QueryText {
            number: i as u8 + 1,
            start: 0,
            text: template.replace("{x}", &format!("{x}")),
        })
        .collect();
    let dialect = match machine.engine() {
        Engine::Postgres => costlab_core::sql::Dialect::Postgres,
        Engine::Mysql => costlab_core::sql::Dialect::Mysql,
    };
    let (queries, refused) = read_workload(&texts, dialect, &file.tables);
    if let Some(r) = refused.first() {
        return Err(Fail::Error(r.error.clone()));
    }
    let planner = costlab_core::compare::WorkloadPlanner::new(
        machine.version,
        &file.tables,
        &file.functions,
        machine.series,
        queries,
        &machine.profile,
        &machine.server,
    )?;
    let fit = planner.grid_fit(knob, &values, &knobs)?;
    if a.json {
        return print(&to_json(&fit)?);
    }
    let f = |v: f64| format!("{v:.4}");
    let mut text = format!(
        "{} on {} ({}): {} over {template}, x at {} points from {} to {}\n",
        machine.version.label(),
        machine.profile.id,
        machine.profile.label,
        fit.knob,
        xs.len(),
        a.from.unwrap_or(xs[0]),
        a.to.unwrap_or(xs[xs.len() - 1])
    );
    text.push_str(&format!(
        "the {} that loses least time: {} (any value from {} to {} does as well, within one step of a {}-value log grid from {} to {}); time lost {} s of {} s\n",
        fit.knob,
        f(fit.best),
        f(fit.best_interval.0),
        f(fit.best_interval.1),
        JOIN_FIT_GRID,
        lo,
        hi,
        simulate::secs(fit.best_regret_s),
        simulate::secs(fit.chosen_s[fit.values.iter().position(|&v| v == fit.best).unwrap_or(0)]),
    ));
    if let Some(at) = fit.values.iter().position(|&v| v == current) {
        text.push_str(&format!(
            "at the current {} ({}): time lost {} s\n",
            fit.knob,
            current,
            simulate::secs(fit.regret_s[at])
        ));
    }
    text.push_str(&format!(
        "distinct plans per point: {} at most; a join planner keeps one plan, so the candidates are the plans this constant makes it pick somewhere on the grid\n",
        fit.plans.iter().max().unwrap_or(&0)
    ));
    print(&text)
}
