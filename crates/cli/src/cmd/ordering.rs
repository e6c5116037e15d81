//! `costlab ordering`: the third seed's workload (TPROC-H-like tables, fgeo() and fnorm()
//! at COST 5000), each shape planned stock and with the "ORDER BY value handed up" series
//! and timed, then the closed-loop mix's throughput (`costlab_core::ordering`,
//! `costlab_core::sim::mix`).

use super::shared::{apply_sets, machine_profile, print, to_json, usage, write_atomically, Fail};
use clap::Args;
use costlab::engines;
use costlab_core::knobs::{Engine, KnobValues};
use std::path::PathBuf;

#[derive(Args)]
pub struct OrderingArgs {
    /// Scale factor of the TPROC-H-like tables (the seed ran 30).
    #[arg(long, default_value_t = 30.0)]
    sf: f64,
    /// PostgreSQL release to model (15..18).
    #[arg(long = "release", value_name = "RELEASE", default_value = "18")]
    release: String,
    /// Built-in machine profile (see costlab simulate --list-profiles).
    #[arg(long, default_value = "seed-nvme", conflicts_with = "profile_file")]
    profile: String,
    /// A machine profile file (costlab-probe writes one) instead of a built-in one.
    #[arg(long, value_name = "FILE")]
    profile_file: Option<PathBuf>,
    /// Override a knob (cpu_operator_cost=0.005, ...); repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    sets: Vec<String>,
    /// Virtual users of the mix (the seed: 96).
    #[arg(long, default_value_t = 96)]
    users: u32,
    /// Cores of the server (the seed: 96 vCPU).
    #[arg(long, default_value_t = 96)]
    cores: u32,
    /// Print each shape's plans, stock and with the series.
    #[arg(long)]
    plans: bool,
    /// The functions' declared cost (pg_proc.procost; the seed: 5000). What a call takes
    /// stays the measured 2.5 µs: the planner's belief moves, the body does not.
    #[arg(long, default_value_t = 5000.0)]
    function_cost: f64,
    /// Print the shapes and the mix at w = 0, 0.05, ..., 1 as JSON.
    #[arg(long)]
    json: bool,
    /// Also write the workload as a scenario file (its tables at --sf, fgeo() and fnorm()
    /// with their cost, the shapes' queries) for costlab explain --series and costlab
    /// workload.
    #[arg(long, value_name = "FILE")]
    write_scenario: Option<PathBuf>,
}

/// `costlab ordering`.
pub fn run(a: OrderingArgs) -> Result<(), Fail> {
    use costlab_core::ordering::{self, Role};
    use costlab_core::sim::mix;
    let version = engines::parse_version(&a.release).map_err(usage)?;
    if version.engine() != Engine::Postgres {
        return Err(usage(format!(
            "--release: {} is not a PostgreSQL release",
            version.label()
        )));
    }
    let sf = costlab_core::workload::dbt3::catalog::check_sf(a.sf)
        .map_err(|e| Fail::Usage(format!("--sf: {e}")))?;
    let (profile, _) = match &a.profile_file {
        Some(f) => machine_profile(None, Some(f), false)?,
        None => machine_profile(Some(&a.profile), None, false)?,
    };
    let sim = costlab_core::sim::time::Simulator::for_release(&profile, version)
        .map_err(|e| Fail::Error(e.to_string()))?;
    let mut knobs = KnobValues::defaults(
        version,
        costlab_core::knobs::EngineVersion::latest(Engine::Mysql),
    );
    apply_sets(&mut knobs, &a.sets, Engine::Postgres)?;
    if !(a.function_cost.is_finite() && (0.0..=1e9).contains(&a.function_cost)) {
        return Err(usage(format!(
            "--function-cost: {} is not a cost (0 to 1e9)",
            a.function_cost
        )));
    }
    let rows = ordering::run_at(sf, a.function_cost, version, &knobs, &sim)
        .map_err(|e| Fail::Error(e.to_string()))?;
    if a.json {
        let ws: Vec<f64> = (0..=20).map(|i| i as f64 / 20.0).collect();
        let curve = |shapes: &[mix::Shape]| -> Result<serde_json::Value, Fail> {
            let points = mix::curve(ordering::SEED_USERS, ordering::SEED_USERS, shapes, &ws)
                .map_err(|e| Fail::Error(e.to_string()))?;
            Ok(points
                .iter()
                .map(|p| serde_json::json!({"w": p.w, "stock_qps": p.stock_qps, "series_qps": p.variant_qps}))
                .collect())
        };
        let json = serde_json::json!({
            "rows": rows.iter().map(|r| serde_json::json!({
                "name": r.shape.name,
                "stock_ms": r.stock_s * 1e3,
                "series_ms": r.variant_s * 1e3,
                "stock_calls": r.stock_calls,
                "series_calls": r.variant_calls,
                "stock_plan": r.stock_plan,
                "series_plan": r.variant_plan,
            })).collect::<Vec<_>>(),
            "mix": curve(&ordering::mix_shapes(&rows))?,
            "seed_times_mix": curve(&ordering::mix_on_seed_times(&rows))?,
        });
        return print(&to_json(&json)?);
    }
    if let Some(path) = &a.write_scenario {
        let file = ordering::scenario_file(sf, version).map_err(|e| Fail::Error(e.to_string()))?;
        write_atomically(path, file.to_json().as_bytes())?;
    }
    let mut out = format!(
        "TPROC-H-like at SF {sf}, {} on {}; each time adds {:.2} ms per statement\n\n",
        version.label(),
        profile.id,
        ordering::STATEMENT_OVERHEAD_S * 1e3
    );
    out.push_str(&format!(
        "{:<4} {:<70} {:>11} {:>11} {:>8} {:>8}\n",
        "", "shape", "stock ms", "series ms", "change", "seed"
    ));
    for r in &rows {
        let seed = match r.shape.role {
            Role::Positive { seed_change } => format!("{:+.0} %", 100.0 * seed_change),
            Role::Regression => "+8.5 %".to_string(),
            Role::Neutral => "~0 %".to_string(),
        };
        out.push_str(&format!(
            "{:<4} {:<70} {:>11.3} {:>11.3} {:>6.1} % {:>8}\n",
            r.shape.name,
            r.shape.title,
            r.stock_s * 1e3,
            r.variant_s * 1e3,
            100.0 * r.change(),
            seed
        ));
        if a.plans {
            out.push_str(&format!(
                "  stock ({} calls):\n{}\n  series ({} calls):\n{}\n",
                r.stock_calls,
                indent(&r.stock_plan),
                r.variant_calls,
                indent(&r.variant_plan)
            ));
        }
    }
    let ws: Vec<f64> = ordering::SEED_MIX.iter().map(|p| p.w).collect();
    let mix_table = |out: &mut String, heading: String, shapes: &[mix::Shape], users, cores| {
        let points =
            mix::curve(users, cores, shapes, &ws).map_err(|e| Fail::Error(e.to_string()))?;
        out.push_str(&heading);
        out.push_str(&format!(
            "{:>5} {:>12} {:>12} {:>8} {:>8} {:>15}\n",
            "w", "stock q/s", "series q/s", "gain", "seed", "positive share"
        ));
        for (p, s) in points.iter().zip(ordering::SEED_MIX) {
            out.push_str(&format!(
                "{:>5.1} {:>12.0} {:>12.0} {:>6.1} % {:>6.1} % {:>13.0} %\n",
                p.w,
                p.stock_qps,
                p.variant_qps,
                100.0 * p.gain,
                100.0 * s.gain,
                100.0 * p.positive_share
            ));
        }
        Ok::<(), Fail>(())
    };
    mix_table(
        &mut out,
        format!(
            "\nclosed-loop mix on the times above, {} users on {} cores (sim::mix: no think time, no contention)\n",
            a.users, a.cores
        ),
        &ordering::mix_shapes(&rows),
        a.users,
        a.cores,
    )?;
    mix_table(
        &mut out,
        format!(
            "\nthe same mix on the seed's stock times ({0} users on {0} cores; fitted to stock's q/s at w = 0 and 0.8, \
             each positive shape as slow; the series' changes from the rows above)\n",
            ordering::SEED_USERS
        ),
        &ordering::mix_on_seed_times(&rows),
        ordering::SEED_USERS,
        ordering::SEED_USERS,
    )?;
    print(&out)
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
