//! `costlab-probe validate postgres`, short: a private PostgreSQL, a small t1-like table, the
//! extreme selectivities of each workload, warm and (as root) cold. Real times on a shared
//! machine are noisy, so the test asserts only rankings of plans whose real times differ
//! clearly (all pairs over 2x, 90 % of the pairs over 30 %), never a time. The full run is
//! a command (see docs/validation/).

mod common;
use common::{is_root, probe};
use costlab_core::validation::{CacheState, ValidationReport};
use std::path::Path;

fn leftovers(dir: &Path, keep: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read the directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != keep)
        .collect()
}

/// The tests of this file run one at a time: real times are measured here, and another
/// test's processes on a 2-core machine would move them.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn simulation_orders_plans_whose_real_times_clearly_differ() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("tempdir");
    let report_path = dir.path().join("report.json");
    let mut cmd = probe();
    cmd.args(["validate", "postgres", "--dir"])
        .arg(dir.path())
        .args([
            "--rows",
            "300000",
            "--selectivities",
            "0.0002,0.4",
            "--runs",
            "3",
            "--cold-runs",
            "3",
            "--out",
        ])
        .arg(&report_path);
    if !is_root() {
        cmd.arg("--warm-only");
    }
    let o = cmd.output().expect("run costlab-probe validate");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}\n{stdout}");
    println!("{stdout}");
    // Nothing left behind but the report: no cluster, no calibration test file.
    assert_eq!(leftovers(dir.path(), "report.json"), Vec::<String>::new());
    let report = ValidationReport::from_json(
        &std::fs::read_to_string(&report_path).expect("the report was written"),
    )
    .expect("the report reads back");
    let groups = report.groups();
    assert_eq!(
        groups.len(),
        if is_root() { 6 } else { 3 },
        "three workloads, warm and cold: {groups:?}"
    );
    assert!(report.executor.is_some(), "the executor was measured");
    common::assert_rankings(&report, 12);
    // Cold runs happened as root and are slower than warm ones for the sequential scan.
    if is_root() {
        let seq = |cache: CacheState| -> f64 {
            report
                .queries
                .iter()
                .filter(|q| q.cache == cache)
                .flat_map(|q| q.plans.iter())
                .filter(|p| p.key == "seq")
                .filter_map(|p| p.real_s)
                .fold(f64::INFINITY, f64::min)
        };
        assert!(seq(CacheState::Cold) > seq(CacheState::Warm));
    }
}

#[test]
fn bad_input_is_one_clear_line_and_leaves_nothing() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("tempdir");
    let cal =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/calibration/this-ci-machine.json");
    let run = |args: &[&str]| {
        let o = probe()
            .args(["validate", "postgres", "--warm-only", "--dir"])
            .arg(dir.path())
            .arg("--calibration")
            .arg(&cal)
            .args(args)
            .output()
            .expect("run");
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let fails = |args: &[&str], want: &str| {
        let (code, err) = run(args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
        assert!(err.contains(want), "{args:?}: {err:?} lacks {want:?}");
    };
    // No server binaries there.
    fails(
        &["--pg-bin", "/nonexistent/bin"],
        "not a PostgreSQL bin directory",
    );
    // A server that is not there (or refuses): the connection error, nothing created.
    fails(
        &["--dsn", "host=127.0.0.1 port=1 user=nobody dbname=none"],
        "connect to",
    );
    // A table the disk cannot hold: said before anything is started.
    fails(&["--rows", "100000000000"], "GB free");
    // Selectivities out of range.
    fails(&["--selectivities", "0.5,2"], "--selectivities");
    assert_eq!(leftovers(dir.path(), ""), Vec::<String>::new());
}
