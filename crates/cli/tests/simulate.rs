//! `costlab simulate` and `costlab fit` through the built binary: text and JSON, numbers
//! from the seeds (WL#8737's t1 timings and fitted constant, the random_page_cost
//! experiment's devices), profile files, and one-line errors with their exit codes.

use costlab_core::knobs::EngineVersion;
use costlab_core::regret::fit_seed_random_page_cost;
use costlab_core::scenario_file::ScenarioFile;
use costlab_core::workload::rpc_seed::SEED_RPC_TABLE;
use costlab_core::workload::t1::t1_table;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_costlab"))
        .args(args)
        .output()
        .expect("run the costlab binary")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[track_caller]
fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout(&o)
}

#[track_caller]
fn json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    serde_json::from_str(&ok(&a)).expect("valid JSON")
}

/// Fails unless the command exited with `code` and printed exactly one line on stderr that
/// contains `want`.
#[track_caller]
fn assert_fails(o: &Output, code: i32, want: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(code), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err:?}");
    assert!(err.contains(want), "{err:?} lacks {want:?}");
    assert!(!err.contains("panicked"), "{err}");
}

#[track_caller]
fn near(v: f64, want: f64, tol: f64) {
    assert!(
        (v / want - 1.0).abs() <= tol,
        "{v} is not within {tol} of {want}"
    );
}

fn f(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} in {v}"))
}

fn candidate<'a>(report: &'a Value, key: &str) -> &'a Value {
    report["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .find(|c| c["key"] == key)
        .unwrap_or_else(|| panic!("no {key} in {report}"))
}

const T1_MEM: [&str; 9] = [
    "simulate",
    "--engine",
    "mysql",
    "--profile",
    "wl8737-memory",
    "--workload",
    "t1",
    "--fraction",
    "0.09",
];

/// WL#8737, in memory: "from 1.5 seconds to almost 6 seconds" at the ~9 % switch (5.7
/// constants); the engine keeps the range scan, which is the faster one. The two times
/// are what the wl8737-memory profile was derived from (builtin.rs): a consistency check
/// of the command's output, not evidence for the model.
#[test]
fn consistent_with_fitted_seed_t1_in_memory() {
    let text = ok(&T1_MEM);
    assert!(text.contains("MySQL 5.7 on wl8737-memory"), "{text}");
    assert!(
        text.contains("table_scan") && text.contains("range:k7"),
        "{text}"
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("range:k7"))
        .expect("range row");
    assert!(line.ends_with("chosen, fastest"), "{line}");
    assert!(text.contains("regret of the choice: 0 s"), "{text}");

    let r = json(&T1_MEM);
    near(f(candidate(&r, "range:k7"), "seconds"), 1.5, 0.05);
    near(f(candidate(&r, "table_scan"), "seconds"), 6.0, 0.05);
    assert_eq!(r["chosen"], "range:k7");
    assert_eq!(r["fastest"], "range:k7");
    assert_eq!(f(&r, "regret_s"), 0.0);
    // The breakdown adds up: all in memory, no I/O.
    let c = candidate(&r, "table_scan");
    assert_eq!(f(&c["io_s"], "sequential"), 0.0);
    near(f(c, "cpu_s") + f(c, "memory_s"), f(c, "seconds"), 1e-9);
    // The weakest figure (the disk's deeper queues are assumed); the figures the seed
    // gives are fitted to its timings.
    assert_eq!(r["profile"]["confidence"], "assumed");
    assert!(r["profile"]["confidence_by_figure"]
        .as_str()
        .is_some_and(|s| s.starts_with("fitted to the seed's timings")));
}

/// WL#8737, disk-bound: table scan ~45 s, range 9 % with default MRR ~2,400 s (the
/// figures the wl8737-disk profile was derived from, so a consistency check); the engine
/// picks the range scan and loses the difference.
#[test]
fn simulate_t1_disk_bound_shows_the_regret() {
    let r = json(&[
        "simulate",
        "--engine",
        "mysql",
        "--profile",
        "wl8737-disk",
        "--workload",
        "t1",
        "--fraction",
        "0.09",
    ]);
    let (scan, range) = (
        f(candidate(&r, "table_scan"), "seconds"),
        f(candidate(&r, "range:k7"), "seconds"),
    );
    near(scan, 45.0, 0.05);
    near(range, 2400.0, 0.05);
    assert_eq!(r["chosen"], "range:k7");
    assert_eq!(r["fastest"], "table_scan");
    near(f(&r, "regret_s"), range - scan, 1e-9);
    assert!(f(&candidate(&r, "range:k7")["io_s"], "random") > 2000.0);
}

#[test]
fn cold_cache_is_slower_than_warm() {
    let mut cold = T1_MEM.to_vec();
    cold.push("--cold");
    let (w, c) = (json(&T1_MEM), json(&cold));
    assert_eq!(c["warm_cache"], false);
    let t = |r: &Value| f(candidate(r, "table_scan"), "seconds");
    assert!(t(&c) > 5.0 * t(&w), "cold {} warm {}", t(&c), t(&w));
}

#[test]
fn list_profiles_text_and_json() {
    let text = ok(&["simulate", "--list-profiles"]);
    for id in [
        "seed-nvme",
        "wl8737-memory",
        "hdd-7200",
        "aws-gp3",
        "optane-dc",
    ] {
        assert!(text.contains(id), "{id} missing: {text}");
    }
    assert!(text.contains("source: ") && text.contains("fitted") && text.contains("vendor"));
    // Figure by figure: the consumer NVMe's QD1 is measured, its deep queues invented.
    let nvme = text
        .split("\nnvme-consumer-gen4")
        .nth(1)
        .and_then(|rest| rest.split("\nsata-ssd").next())
        .expect("nvme-consumer-gen4 listed");
    assert!(nvme.trim_start().starts_with("assumed"), "{nvme}");
    assert!(nvme.contains("random read at QD1: measured"), "{nvme}");
    assert!(nvme.contains("queue depths 16-32: assumed"), "{nvme}");
    let all = json(&["simulate", "--list-profiles"]);
    let all = all.as_array().expect("array");
    assert_eq!(all.len(), 14);
    for p in all {
        for field in ["id", "label", "confidence", "figures", "source", "device"] {
            assert!(!p[field].is_null(), "{field} in {p}");
        }
    }
}

/// A listed profile written to a file simulates like the built-in one; a broken one is
/// refused in one line naming the field.
#[test]
fn profile_files_are_validated() {
    let dir = tempfile::tempdir().expect("tempdir");
    let all = json(&["simulate", "--list-profiles"]);
    let mem = all
        .as_array()
        .expect("array")
        .iter()
        .find(|p| p["id"] == "wl8737-memory")
        .expect("wl8737-memory")
        .clone();
    let write = |name: &str, v: &Value| {
        let p = dir.path().join(name);
        std::fs::write(&p, serde_json::to_string(v).expect("encode")).expect("write");
        p.to_str().expect("utf-8").to_string()
    };
    let good = write("good.json", &mem);
    let mut args = T1_MEM.to_vec();
    args[3] = "--profile-file";
    args[4] = &good;
    let from_file = json(&args);
    let builtin = json(&T1_MEM);
    assert_eq!(from_file["candidates"], builtin["candidates"]);

    type Edit = fn(&mut Value);
    let cases: [(&str, Edit, &str); 5] = [
        (
            "string.json",
            |p| p["device"]["seq_read_mbps"] = "fast".into(),
            "device.seq_read_mbps",
        ),
        (
            "zero.json",
            |p| p["device"]["random_16k"]["qd1_latency_us"] = 0.into(),
            "device.random_16k.qd1_latency_us",
        ),
        (
            "missing.json",
            |p| {
                p.as_object_mut().expect("object").remove("cpu_ns_per_row");
            },
            "cpu_ns_per_row",
        ),
        (
            "pool.json",
            |p| p["buffer_pool_bytes"] = 1e15.into(),
            "buffer_pool_bytes",
        ),
        (
            "confidence.json",
            |p| p["confidence"] = "guessed".into(),
            "confidence",
        ),
    ];
    for (name, edit, field) in cases {
        let mut p = mem.clone();
        edit(&mut p);
        let path = write(name, &p);
        let mut bad = args.clone();
        bad[4] = &path;
        assert_fails(&run(&bad), 1, field);
    }
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"id\": ").expect("write");
    args[4] = broken.to_str().expect("utf-8");
    assert_fails(&run(&args), 1, "not JSON");
}

const FIT_MEM: [&str; 15] = [
    "fit",
    "--engine",
    "mysql",
    "--profile",
    "wl8737-memory",
    "--workload",
    "t1",
    "--knob",
    "memory_block_read_cost",
    "--from",
    "0",
    "--to",
    "0.2",
    "--points",
    "201",
];

/// WL#8737: memory_block_read_cost 0.2 "postpones the switch ... to beyond 20%" and gives
/// lower times than 1.0 (and 0.5) on the in-memory server over 0-20 %.
#[test]
fn fit_memory_block_read_cost_in_memory() {
    let r = json(&FIT_MEM);
    let (lo, hi) = (
        r["best_interval"][0].as_f64().expect("lo"),
        r["best_interval"][1].as_f64().expect("hi"),
    );
    assert!(lo <= 0.2 && 0.2 < hi, "{lo}..{hi}");
    assert!(hi < 0.5, "{lo}..{hi}");
    assert!(lo <= f(&r, "best") && f(&r, "best") <= hi);
    assert_eq!(f(&r, "best_total_regret_s"), 0.0);
    assert_eq!(f(&r, "current"), 1.0);
    assert!(f(&r, "current_total_regret_s") > 0.0);
    assert_eq!(r["grid_points"], 0);
    let curve = r["curve"].as_array().expect("curve");
    assert!(!curve.is_empty() && curve.len() <= 13);

    let text = ok(&FIT_MEM);
    for want in [
        "best value:",
        "equally good:",
        "at the current value 1",
        "regret curve around the optimum",
        "best",
    ] {
        assert!(text.contains(want), "{want:?} missing: {text}");
    }
}

#[test]
fn fit_a_pair_beats_the_defaults() {
    let args = [
        "fit",
        "--engine",
        "mysql",
        "--profile",
        "wl8737-disk",
        "--workload",
        "t1",
        "--knob",
        "memory_block_read_cost",
        "--knob2",
        "io_block_read_cost",
        "--range",
        "0.01,10",
        "--range2",
        "0.1,100",
        "--from",
        "0",
        "--to",
        "0.2",
        "--points",
        "21",
    ];
    let r = json(&args);
    assert!(f(&r, "best_total_regret_s") <= f(&r, "current_total_regret_s"));
    assert!(f(&r, "current_total_regret_s") > 0.0);
    assert_eq!(r["grid"].as_array().expect("grid").len(), 33 * 33);
    let text = ok(&args);
    assert!(
        text.contains("best pair:") && text.contains("whole-range grid"),
        "{text}"
    );
}

/// The random_page_cost seed: one row per device, the measured ratio as the seed printed
/// it, and the core's fit (costlab_core::regret::fit_seed_random_page_cost, whose relation to the
/// seed's claims sim::tests asserts) carried to the output unchanged. The seed's claim
/// for its three SSDs holds in the table: the measured ratio loses less than 4.0; on
/// every device the fitted constant is above 4.0 and loses strictly less than 4.0.
#[test]
fn fit_seed_table() {
    let rows = json(&["fit", "--seed-table"]);
    let rows = rows.as_array().expect("rows");
    assert_eq!(rows.len(), SEED_RPC_TABLE.len());
    for (row, (id, _, _, ratio)) in rows.iter().zip(SEED_RPC_TABLE) {
        assert_eq!(row["profile"], id);
        assert_eq!(f(row, "measured_ratio"), ratio);
        assert_eq!(f(row, "points"), 60.0);
        let core = fit_seed_random_page_cost(id, 60).expect("core fit");
        assert_eq!(f(row, "fitted"), core.best, "{id}");
        assert_eq!(
            f(row, "regret_at_fitted_s"),
            core.best_total_regret_s,
            "{id}"
        );
        assert_eq!(
            f(row, "regret_at_measured_s"),
            core.regret_at(ratio),
            "{id}"
        );
        assert_eq!(f(row, "regret_at_default_s"), core.regret_at(4.0), "{id}");
        assert!(f(row, "fitted") > 4.0, "{id}: {row}");
        assert!(
            f(row, "regret_at_fitted_s") < f(row, "regret_at_default_s"),
            "{id}: {row}"
        );
        if !id.contains("azure") {
            assert!(
                f(row, "regret_at_measured_s") < f(row, "regret_at_default_s"),
                "{id}: {row}"
            );
        }
    }
    let text = ok(&["fit", "--seed-table"]);
    assert!(text.contains("device ratio"), "{text}");
    assert!(text.contains("absorbs"), "{text}");
    assert!(text.contains("seed-azure-hdd"), "{text}");
}

fn scenario(dir: &Path) -> String {
    let f = ScenarioFile::new(EngineVersion::Pg18, vec![t1_table()]);
    let path = dir.join("t1.json");
    std::fs::write(&path, f.to_json()).expect("write scenario");
    path.to_str().expect("utf-8").to_string()
}

#[test]
fn scenario_files_work_for_simulate_and_fit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario(dir.path());
    let r = json(&[
        "simulate",
        "--engine",
        "postgres",
        "--profile",
        "nvme-consumer-gen4",
        "--scenario",
        &s,
        "--query",
        "SELECT * FROM t1 WHERE i7 < 50000",
        "--set",
        "max_parallel_workers_per_gather=0",
    ]);
    assert_eq!(r["release"], "PostgreSQL 18");
    assert!(r["candidates"].as_array().expect("candidates").len() >= 2);
    assert!(candidate(&r, "seq")["seconds"].as_f64().expect("s") > 0.0);
    let fit = json(&[
        "fit",
        "--engine",
        "postgres",
        "--profile",
        "nvme-consumer-gen4",
        "--scenario",
        &s,
        "--query-template",
        "SELECT * FROM t1 WHERE i7 < {x}",
        "--from",
        "1000",
        "--to",
        "10000000",
        "--points",
        "25",
        "--log",
        "--knob",
        "random_page_cost",
    ]);
    assert!(f(&fit, "best_total_regret_s") <= f(&fit, "current_total_regret_s"));
}

#[test]
fn bad_input_is_one_line_with_an_exit_code() {
    let mut a = T1_MEM.to_vec();
    a[4] = "no-such-disk";
    assert_fails(&run(&a), 2, "no-such-disk");
    let mut a = T1_MEM.to_vec();
    a.extend(["--set", "memory_block_read_cost=1000"]);
    assert_fails(&run(&a), 2, "memory_block_read_cost");
    let mut a = T1_MEM.to_vec();
    a.extend(["--set", "random_page_cost=2"]);
    assert_fails(&run(&a), 2, "no effect on MySQL");
    assert_fails(&run(&T1_MEM[..7]), 2, "--fraction");
    let mut a = T1_MEM.to_vec();
    a[8] = "1.5";
    assert_fails(&run(&a), 2, "fraction");
    assert_fails(
        &run(&["simulate", "--profile", "seed-nvme", "--workload", "t1"]),
        2,
        "--engine",
    );
    assert_fails(
        &run(&["simulate", "--engine", "mysql", "--workload", "t1"]),
        2,
        "--profile",
    );
    let mut a = FIT_MEM.to_vec();
    a[8] = "no_such_knob";
    assert_fails(&run(&a), 2, "no_such_knob");
    a[8] = "mrr_cost_based";
    assert_fails(&run(&a), 2, "not a cost constant");
    a[8] = "random_page_cost";
    assert_fails(&run(&a), 2, "no effect on MySQL");
    let mut a = FIT_MEM.to_vec();
    a.extend(["--range", "5,1"]);
    assert_fails(&run(&a), 2, "--range");
    let mut a = FIT_MEM.to_vec();
    a[12] = "3";
    assert_fails(&run(&a), 2, "fraction");
    assert_fails(
        &run(&[
            "simulate",
            "--engine",
            "mysql",
            "--profile-file",
            "/nonexistent/p.json",
            "--workload",
            "t1",
            "--fraction",
            "0.1",
        ]),
        1,
        "cannot read",
    );
}
