//! The validation commands: `validate postgres`, `validate innodb`, `rescore`, `repeat`,
//! their limits, machine profiles and the seeds' random_page_cost agreement printed.

use crate::cli::*;
use crate::session::*;
use crate::{innodb, machine, scatter, validate};
use costlab_core::workload::rpc_seed;
use indicatif::ProgressBar;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub(crate) fn run_validate_pg(a: ValidatePgArgs) -> Result<(), String> {
    check_limit(a.limit_seconds)?;
    if a.rows.is_some_and(|r| r < 10_000) {
        return Err("--rows: use at least 10000".into());
    }
    if a.selectivities
        .iter()
        .any(|s| !(s.is_finite() && *s > 0.0 && *s <= 0.6))
    {
        return Err("--selectivities: fractions above 0 and at most 0.6, e.g. 0.001,0.05".into());
    }
    if let Some(s) = a
        .dbt3_switches
        .iter()
        .find(|s| !validate::SWITCHES.contains(&s.as_str()))
    {
        return Err(format!(
            "--dbt3-switches: {s} is not one of {}",
            validate::SWITCHES.join(", ")
        ));
    }
    if a.workload != validate::Workload::T1 {
        costlab_core::workload::dbt3::catalog::check_sf(a.sf)
            .map_err(|e| format!("--sf {}: {e}", a.sf))?;
    }
    let dir = match &a.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    if !dir.is_dir() {
        return Err(format!("--dir {}: not a directory", dir.display()));
    }
    let cold = !a.warm_only && a.dsn.is_none();
    if cold && !validate::can_drop_os_cache() {
        return Err(
            "cold runs drop the OS page cache, which needs root: run as root, or pass --warm-only"
                .into(),
        );
    }
    let profile = machine_profile(a.calibration.as_deref(), &dir)?;
    let opts = validate::Options {
        dsn: a.dsn.clone(),
        pg_bin: a.pg_bin.clone(),
        dir,
        rows: a.rows,
        shared_buffers_mb: a.shared_buffers_mb,
        runs: a.runs.max(1),
        cold_runs: a.cold_runs.max(1),
        limit_s: a.limit_seconds,
        cold,
        selectivities: if a.selectivities.is_empty() {
            validate::SELECTIVITIES.to_vec()
        } else {
            a.selectivities.clone()
        },
        seed: a.seed.unwrap_or_else(default_seed),
        workload: a.workload,
        sf: a.sf,
        dbt3_switches: a.dbt3_switches.clone(),
    };
    let report = finish_validation("validate", a.out.as_deref(), |progress| {
        validate::run(&opts, profile, &CANCEL, progress)
    })?;
    print_rpc_agreement(&report)
}

/// Runs a validation under a spinner, stamps the report, prints its table and notes, and
/// writes it as JSON to `out`.
pub(crate) fn finish_validation(
    what: &str,
    out: Option<&Path>,
    run: impl FnOnce(&dyn Fn(&str)) -> Result<costlab_core::validation::ValidationReport, String>,
) -> Result<costlab_core::validation::ValidationReport, String> {
    let b = ProgressBar::new_spinner();
    b.enable_steady_tick(Duration::from_millis(200));
    let started = Instant::now();
    let r = run(&|msg| b.set_message(msg.to_string()));
    b.finish_and_clear();
    let mut report = r?;
    report.created = machine::utc_now();
    report.command = command_line();
    eprintln!(
        "costlab-probe {what}: {} plan executions in {:.0} s",
        report.queries.iter().map(|q| q.plans.len()).sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
    print!("{}", report.text());
    for n in &report.notes {
        eprintln!("  note: {n}");
    }
    if out.is_some() {
        write_out(out, &report.to_json())?;
    }
    Ok(report)
}

/// `--limit-seconds` of both validations.
pub(crate) fn check_limit(seconds: f64) -> Result<(), String> {
    if seconds.is_finite() && (0.1..=86_400.0).contains(&seconds) {
        Ok(())
    } else {
        Err(format!("--limit-seconds {seconds}: use 0.1 to 86400"))
    }
}

/// The machine's profile: the calibration file, or a quick measurement in `dir`.
pub(crate) fn machine_profile(
    calibration: Option<&Path>,
    dir: &Path,
) -> Result<costlab_core::sim::MachineProfile, String> {
    match calibration {
        Some(p) => profile_from_calibration(p),
        None => {
            eprintln!("costlab-probe validate: measuring this machine first (--quick)");
            let out = tempfile_path(dir, "calibration")?;
            let status =
                std::process::Command::new(std::env::current_exe().map_err(|e| e.to_string())?)
                    .arg("--quick")
                    .arg("--dir")
                    .arg(dir)
                    .arg("--out")
                    .arg(&out)
                    .status()
                    .map_err(|e| format!("cannot run the probe: {e}"))?;
            let p = profile_from_calibration(&out);
            let _ = std::fs::remove_file(&out);
            if !status.success() {
                return Err("measuring the machine failed (see above)".into());
            }
            p
        }
    }
}

pub(crate) fn run_validate_innodb(a: ValidateInnodbArgs) -> Result<(), String> {
    check_limit(a.limit_seconds)?;
    if !(10_000..=200_000_000).contains(&a.rows) {
        return Err("--rows: use 10000 to 200000000".into());
    }
    let cal_rows = a.cal_rows.unwrap_or((a.rows / 2).max(100_000));
    if !(10_000..=200_000_000).contains(&cal_rows) {
        return Err("--cal-rows: use 10000 to 200000000".into());
    }
    let fractions = |v: &[f64], default: &[f64], flag: &str| -> Result<Vec<f64>, String> {
        if v.iter().any(|f| !(f.is_finite() && *f > 0.0 && *f <= 1.0)) {
            return Err(format!(
                "{flag}: fractions above 0 and at most 1, e.g. 0.01,0.1"
            ));
        }
        Ok(if v.is_empty() {
            default.to_vec()
        } else {
            v.to_vec()
        })
    };
    let memory_fractions = fractions(
        &a.memory_fractions,
        &innodb::MEMORY_FRACTIONS,
        "--memory-fractions",
    )?;
    let disk_fractions = fractions(
        &a.disk_fractions,
        &innodb::DISK_FRACTIONS,
        "--disk-fractions",
    )?;
    let dir = match &a.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    if !dir.is_dir() {
        return Err(format!("--dir {}: not a directory", dir.display()));
    }
    let cold = !a.memory_only;
    if cold && !validate::can_drop_os_cache() {
        return Err(
            "disk-bound runs drop the OS page cache, which needs root: run as root, or pass \
             --memory-only"
                .into(),
        );
    }
    let profile = machine_profile(a.calibration.as_deref(), &dir)?;
    let opts = innodb::Options {
        bin: a.mariadb_bin.clone(),
        dir,
        rows: a.rows,
        cal_rows,
        runs: a.runs.max(1),
        cold_runs: a.cold_runs.max(1),
        limit_s: a.limit_seconds,
        cold,
        memory_fractions,
        disk_fractions,
    };
    finish_validation("validate innodb", a.out.as_deref(), |progress| {
        innodb::run(&opts, profile, &CANCEL, progress)
    })?;
    Ok(())
}

pub(crate) fn run_rescore(a: RescoreArgs) -> Result<(), String> {
    let text =
        std::fs::read_to_string(&a.report).map_err(|e| format!("{}: {e}", a.report.display()))?;
    let mut report = costlab_core::validation::ValidationReport::from_json(&text)
        .map_err(|e| format!("{}: {e}", a.report.display()))?;
    let mut profile = match (&a.calibration, &report.base_profile) {
        (Some(p), _) => profile_from_calibration(p)?,
        (None, Some(base)) => base.clone(),
        (None, None) => report.profile.clone(),
    };
    // The server's memory settings stay the report's.
    profile.buffer_pool_bytes = report.profile.buffer_pool_bytes;
    profile.effective_io_concurrency = report.profile.effective_io_concurrency;
    profile.bypass_os_cache = report.profile.bypass_os_cache;
    // The executor's figures are fitted again from the stored calibration runs under the
    // current model, then every plan is simulated again.
    report
        .refit(&profile)
        .map_err(|e| format!("simulation: {e}"))?;
    print!("{}", report.text());
    if report.engine_version.engine() == costlab_core::knobs::Engine::Postgres {
        print_rpc_agreement(&report)?;
    }
    if let Some(p) = &a.out {
        write_out(Some(p), &report.to_json())?;
    }
    if let Some(p) = &a.svg {
        let title = format!(
            "{}: simulated against real, {}",
            report.engine_version.label(),
            report.profile.label
        );
        let svg = scatter::svg(&report, &title)?;
        std::fs::write(p, svg).map_err(|e| format!("write {}: {e}", p.display()))?;
    }
    Ok(())
}

pub(crate) fn run_repeat(a: RepeatArgs) -> Result<(), String> {
    let read = |p: &PathBuf| {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        costlab_core::validation::ValidationReport::from_json(&text)
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    let (first, second) = (read(&a.first)?, read(&a.second)?);
    if first.engine_version != second.engine_version {
        return Err(format!(
            "the runs are of different servers ({} and {})",
            first.engine_version.label(),
            second.engine_version.label()
        ));
    }
    let ceiling = first.as_prediction_of(&second);
    if ceiling.queries.is_empty() {
        return Err("the two runs have no query in common".into());
    }
    println!(
        "{} ({}), then {} ({}): the first run's real times as the prediction of the second's",
        a.first.display(),
        first.created,
        a.second.display(),
        second.created
    );
    for q in &ceiling.queries {
        if let Some(v) = q.verdict(ceiling.limit_s).filter(|v| !v.right) {
            println!(
                "  {} {}: first run's fastest {}, second run's {}, {:.0} % lost",
                q.name,
                q.cache.name(),
                v.sim_pick,
                v.real_fastest,
                100.0 * v.lost
            );
        }
    }
    for row in ceiling.summary_rows() {
        println!("{}", row.line());
    }
    Ok(())
}

/// Where random_page_cost would have to be for PostgreSQL's own choices to be the really
/// fastest plans of the run.
pub(crate) fn print_rpc_agreement(
    report: &costlab_core::validation::ValidationReport,
) -> Result<(), String> {
    let values = [
        0.5, 1.0, 1.1, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 20.0, 40.0, 100.0,
    ];
    let rows = report
        .knob_agreement(costlab_core::knobs::Knob::RandomPageCost, &values)
        .map_err(|e| e.to_string())?;
    println!();
    println!("random_page_cost: queries where PostgreSQL's own choice is the really fastest plan");
    for r in rows {
        println!(
            "  {:>6}  warm {:>2} of {:<2}  cold {:>2} of {:<2}",
            r.value, r.warm_right, r.warm_queries, r.cold_right, r.cold_queries
        );
    }
    Ok(())
}

/// The experiment as the simulation predicts it on this machine's profile (cold: the probe
/// empties the caches before each scan), beside the measurement and the seed's devices.
pub(crate) fn print_seed_rpc_prediction(
    x: &costlab_core::calibration::PgExperiment,
    mut profile: costlab_core::sim::MachineProfile,
    direct_io: bool,
    shared_buffers_mb: u64,
) -> Result<(), String> {
    use costlab_core::knobs::EngineVersion;
    use costlab_core::sim::Simulator;
    let version = if x.server_version.starts_with("15") {
        EngineVersion::Pg15
    } else if x.server_version.starts_with("16") {
        EngineVersion::Pg16
    } else if x.server_version.starts_with("17") {
        EngineVersion::Pg17
    } else {
        EngineVersion::Pg18
    };
    profile.warm_cache = false;
    profile.bypass_os_cache = direct_io;
    profile.buffer_pool_bytes = shared_buffers_mb as f64 * 1048576.0;
    let (rows, pages) = (x.rows as f64, x.pages as f64);
    let table = rpc_seed::seed_experiment_table(rows, pages);
    let knobs = rpc_seed::seed_experiment_knobs();
    let opts = costlab_core::pg::PgOptions::default();
    let plan = |order: bool, key: &str| -> Result<costlab_core::plan::PlanNode, String> {
        let q = rpc_seed::seed_experiment_query(None, order);
        let p = costlab_core::pg::plan(&table, &q, &knobs, version, &opts)
            .map_err(|e| e.to_string())?;
        p.find(key)
            .map(|c| c.plan.clone())
            .ok_or_else(|| format!("the model has no {key} plan"))
    };
    let sim = Simulator::for_release(&profile, version).map_err(|e| e.to_string())?;
    let t_seq = sim
        .time_plan(&plan(false, "seq")?)
        .map_err(|e| e.to_string())?
        .total_s;
    let t_idx = sim
        .time_plan(&plan(true, "index:test_table_id_idx")?)
        .map_err(|e| e.to_string())?
        .total_s;
    let measured = x.random_page_cost.median;
    println!("random_page_cost experiment (T(idx) x P / (T(seq) x N))");
    println!(
        "  measured here:  T(seq) {:.3} s, T(idx) {:.3} s, ratio {measured:.1}",
        x.seq_scan_ms.median / 1e3,
        x.index_scan_ms.median / 1e3
    );
    println!(
        "  simulated here: T(seq) {t_seq:.3} s, T(idx) {t_idx:.3} s, ratio {:.1} (profile {}, cold{})",
        t_idx * pages / (t_seq * rows),
        profile.id,
        if direct_io { ", direct I/O" } else { "" }
    );
    println!("  the seed's devices:");
    for (id, seq, idx, rpc) in rpc_seed::SEED_RPC_TABLE {
        println!("    {id:<18} T(seq) {seq:>7.1} s, T(idx) {idx:>8.0} s, ratio {rpc:.1}");
    }
    Ok(())
}

/// A path in `dir` no other file has, for a scratch file.
pub(crate) fn tempfile_path(dir: &Path, what: &str) -> Result<PathBuf, String> {
    let p = dir.join(format!("costlab-probe-{what}-{}.json", std::process::id()));
    if p.exists() {
        return Err(format!("{} exists; remove it", p.display()));
    }
    Ok(p)
}
