//! The DBT3 queries validated: the server's plan and the plans with one switch off, each
//! timed warm and cold.

use super::options::*;
use super::timing::*;
use crate::pg::{q1, SchemaGuard};
use costlab_core::validation::{CacheState, QueryRuns, ValidationReport};
use costlab_core::workload::dbt3::shape::explain_shape;
use postgres::Client;
use serde_json::Value as Json;
use std::sync::atomic::AtomicBool;

/// One DBT3 plan to run: its name, the switches that give it, its shape.
pub(super) struct Dbt3Plan {
    pub(super) key: String,
    pub(super) off: Vec<&'static str>,
    pub(super) shape: String,
}

/// The server's plan of one statement under `off`, as a shape.
pub(super) fn dbt3_shape(
    c: &mut Client,
    session: &str,
    off: &[&str],
    sql: &str,
) -> Result<String, String> {
    exec(c, &format!("{session} {}", set_switches(off)))?;
    let json = q1(c, &format!("EXPLAIN (FORMAT JSON) {sql}"))?.unwrap_or_default();
    let v: Json = serde_json::from_str(&json).map_err(|e| format!("EXPLAIN output: {e}"))?;
    let plan = v
        .get(0)
        .and_then(|t| t.get("Plan"))
        .ok_or("EXPLAIN output: no Plan")?;
    Ok(explain_shape(plan))
}

/// The DBT3 queries: per query the server's plan (every switch on) and the plans with one
/// of `--dbt3-switches` off, a plan whose shape is already listed left out; each run warm
/// (one discarded run, then the median of `--runs`) and, when `cold`, cold as t1's plans.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_dbt3(
    g: &mut SchemaGuard,
    server: &Server,
    opts: &Options,
    session: &str,
    cold: bool,
    report: &mut ValidationReport,
    cancel: &AtomicBool,
    progress: &dyn Fn(&str),
) -> Result<(), String> {
    let switch_sets: Vec<(String, Vec<&'static str>)> = std::iter::once(("default".into(), vec![]))
        .chain(opts.dbt3_switches.iter().filter_map(|name| {
            let s = SWITCHES.iter().find(|s| **s == name.as_str())?;
            Some((format!("no-{s}"), vec![*s]))
        }))
        .collect();
    let mut plans_of = Vec::new();
    for n in 1..=22u8 {
        check(cancel)?;
        progress(&format!("DBT3 Q{n}: the server's plans"));
        let q =
            costlab_core::workload::dbt3::queries::query(n, opts.sf).map_err(|e| e.to_string())?;
        let sql = costlab::dbt3_pg::pg_dialect(&q.sql)?.select;
        let mut plans: Vec<Dbt3Plan> = Vec::new();
        for (key, off) in &switch_sets {
            let shape = dbt3_shape(&mut g.client, session, off, &sql)?;
            if !plans.iter().any(|p| p.shape == shape) {
                plans.push(Dbt3Plan {
                    key: key.clone(),
                    off: off.clone(),
                    shape,
                });
            }
        }
        plans_of.push((n, sql, plans));
    }
    for cache in [CacheState::Warm, CacheState::Cold] {
        if cache == CacheState::Cold && !cold {
            continue;
        }
        for (n, sql, plans) in &plans_of {
            let mut q = QueryRuns {
                workload: "dbt3".into(),
                name: format!("Q{n}"),
                sql: sql.clone(),
                cache,
                server_choice: Some("default".into()),
                plans: Vec::new(),
                dbt3: Some(*n),
            };
            let runs = match cache {
                // Warm runs stay plan by plan: each plan's first run brings its own pages
                // in, which the next plan's runs would disturb.
                CacheState::Warm => {
                    let mut runs = Vec::new();
                    for plan in plans {
                        check(cancel)?;
                        progress(&format!("DBT3 Q{n} {} {}", cache.name(), plan.key));
                        exec(
                            &mut g.client,
                            &format!("{session} {}", set_switches(&plan.off)),
                        )?;
                        // The first run brings the query's pages in; it is not measured,
                        // unless it already ran past the limit.
                        let first = explain_analyze_as(&mut g.client, sql, dbt3_plan_name)?;
                        runs.push(if first.seconds.is_none() {
                            (Vec::new(), Some(first))
                        } else {
                            repeat_runs(opts.runs, || {
                                explain_analyze_as(&mut g.client, sql, dbt3_plan_name)
                            })?
                        });
                    }
                    runs
                }
                // Cold runs start from nothing, so they interleave as t1's do.
                CacheState::Cold => interleaved_runs(opts.cold_runs.max(1), plans.len(), |i| {
                    let plan = &plans[i];
                    check(cancel)?;
                    progress(&format!("DBT3 Q{n} {} {}", cache.name(), plan.key));
                    cold_run_as(g, server, session, &plan.off, sql, dbt3_plan_name)
                })?,
            };
            for (plan, (times, last)) in plans.iter().zip(runs) {
                let Some(e) = last else { continue };
                if e.seconds.is_some() && e.key != plan.shape {
                    report.notes.push(format!(
                        "Q{n} {} {}: EXPLAIN ANALYZE ran another plan than EXPLAIN ({} \
                         instead of {}); left out",
                        cache.name(),
                        plan.key,
                        e.real_plan,
                        plan.shape
                    ));
                    continue;
                }
                q.plans.push(plan_run(
                    &plan.key,
                    &plan.off,
                    plan.shape.clone(),
                    times,
                    &e,
                    cache,
                ));
            }
            report.queries.push(q);
        }
    }
    Ok(())
}
