//! `costlab sweep`: a constant of the query (or a knob) varied over a range, every change
//! of the chosen plan located (`costlab_core::sweep`).

use super::args::{prepare, Common};
use super::shared::{print, usage, Fail};
use clap::Args;
use costlab::engines;
use costlab_core::knobs::Knob;
use costlab_core::query::Query;
use costlab_core::sweep::{self, Spacing};

#[derive(Args)]
pub struct SweepArgs {
    #[command(flatten)]
    common: Common,
    /// Query with `{x}` where the swept value goes, e.g. "SELECT * FROM t WHERE a < {x}".
    #[arg(long)]
    query_template: String,
    /// Sweep this knob instead of a constant of the query (the template then has no {x}).
    #[arg(long)]
    knob: Option<String>,
    #[arg(long)]
    from: f64,
    #[arg(long)]
    to: f64,
    /// Sample points before bisection.
    #[arg(long, default_value_t = 50)]
    points: usize,
    /// Spread the samples evenly in log(x).
    #[arg(long)]
    log: bool,
    /// Print the samples and crossovers as JSON.
    #[arg(long)]
    json: bool,
}

/// `costlab sweep`.
pub fn run(a: SweepArgs) -> Result<(), Fail> {
    let (scenario, knobs, setup) = prepare(&a.common)?;
    let has_x = a.query_template.contains("{x}");
    let knob = match (&a.knob, has_x) {
        (Some(_), true) => {
            return Err(Fail::Usage(
                "--knob sweeps a constant: the query template must not contain {x} then".into(),
            ))
        }
        (None, false) => {
            return Err(Fail::Usage(
                "the query template has no {x} to sweep (or pass --knob NAME)".into(),
            ))
        }
        (Some(name), false) => {
            let k = Knob::lookup(name).map_err(usage)?;
            if k.def().engine != setup.engine() {
                return Err(Fail::Usage(format!(
                    "--knob {}: a {} knob has no effect on {}",
                    k.def().name,
                    k.def().engine.name(),
                    setup.engine().name()
                )));
            }
            Some(k)
        }
        (None, true) => None,
    };
    if !(2..=100_000).contains(&a.points) {
        return Err(Fail::Usage(format!(
            "--points: {} is outside 2 to 100000",
            a.points
        )));
    }
    let spacing = if a.log { Spacing::Log } else { Spacing::Linear };
    // Check the range and the template before sweeping, so errors name the argument.
    sweep::sample_points(a.from, a.to, a.points, spacing).map_err(usage)?;
    // One table with sargable conditions: the single-table models, every candidate costed;
    // any other query: the SQL front end and the join planner, whose chosen plan is the one
    // candidate (keyed by its signature: a change anywhere in the tree is a change).
    let single = Query::parse(&a.query_template.replace("{x}", &format!("{}", a.from))).is_ok();
    let fixed = match knob {
        Some(_) if single => Some(Query::parse(&a.query_template)?),
        _ => None,
    };
    let join = match knob {
        Some(_) if !single => Some(engines::JoinSetup::new(
            &setup,
            &scenario.tables,
            &a.query_template,
        )?),
        _ => None,
    };
    let plan_at = |x: f64| -> costlab_core::Result<costlab_core::plan::Planned> {
        let mut k = knobs.clone();
        if let Some(knob) = knob {
            k.set(knob, x)?;
        }
        if !single {
            let text = a.query_template.replace("{x}", &format!("{x}"));
            let (signature, plan, _) = match &join {
                Some(j) => j.plan(&k)?,
                None => engines::JoinSetup::new(&setup, &scenario.tables, &text)?.plan(&k)?,
            };
            return Ok(costlab_core::plan::Planned {
                candidates: vec![costlab_core::plan::Candidate {
                    key: signature.into(),
                    plan,
                }],
                chosen: 0,
            });
        }
        let query = match &fixed {
            Some(q) => q.clone(),
            None => Query::parse(&a.query_template.replace("{x}", &format!("{x}")))?,
        };
        let table = scenario.table(&query.table)?;
        engines::plan(&setup, table, &query, &k)
    };
    let result = sweep::sweep(plan_at, a.from, a.to, a.points, spacing)?;
    if a.json {
        let text = serde_json::to_string_pretty(&result)
            .map_err(|e| Fail::Error(format!("cannot encode the sweep: {e}")))?;
        return print(&format!("{text}\n"));
    }
    let what = match knob {
        Some(k) => k.def().name.to_string(),
        None => "x".to_string(),
    };
    let mut text = String::new();
    let first = result
        .points
        .first()
        .map(|p| p.chosen.as_str())
        .unwrap_or("");
    text.push_str(&format!(
        "{what} from {} to {} ({} points): starts with {first}\n",
        a.from, a.to, a.points
    ));
    if result.crossovers.is_empty() {
        text.push_str("no crossover: the same plan is chosen over the whole range\n");
    }
    for c in &result.crossovers {
        text.push_str(&format!(
            "{what} = {}: {} -> {}\n",
            fmt_x(c.x),
            c.from,
            c.to
        ));
    }
    print(&text)
}

/// A crossover point with the digits that matter: plain up to 1e9, scientific beyond.
fn fmt_x(x: f64) -> String {
    if x == 0.0 || (1e-4..1e9).contains(&x.abs()) {
        let s = format!("{x:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    } else {
        format!("{x:.6e}")
    }
}
