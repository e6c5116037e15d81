//! The `costlab` binary without a database: exit codes, one-line errors, explain and sweep
//! over a scenario built from the WL#8737 table t1 (which has facts for both engines).

use costlab_core::knobs::EngineVersion;
use costlab_core::scenario_file::ScenarioFile;
use costlab_core::workload::t1::t1_table;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_costlab"))
        .args(args)
        .output()
        .expect("run the costlab binary")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Fails unless the command exited with `code` and printed exactly one line on stderr that
/// contains `want`.
#[track_caller]
fn assert_fails(o: &Output, code: i32, want: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err:?}");
    assert!(err.contains(want), "{err:?} lacks {want:?}");
    assert!(!err.contains("panicked"), "{err}");
}

fn scenario(dir: &Path) -> PathBuf {
    let mut f = ScenarioFile::new(EngineVersion::Pg15, vec![t1_table()]);
    f.settings.insert("random_page_cost".into(), 4.0);
    let path = dir.join("t1.json");
    std::fs::write(&path, f.to_json()).expect("write scenario");
    path
}

const Q: &str = "SELECT * FROM t1 WHERE i7 > -1 AND i7 < 100000 AND i8 = 2";

#[test]
fn usage_errors_exit_2_with_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario(dir.path());
    let s = s.to_str().expect("utf-8");
    assert_fails(&run(&[]), 2, "a command is required");
    assert_fails(&run(&["explain", "--bogus"]), 2, "--bogus");
    assert_fails(&run(&["explain", "--engine", "postgres"]), 2, "--scenario");
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "oracle",
            "--scenario",
            s,
            "--query",
            Q,
        ]),
        2,
        "oracle",
    );
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "postgres",
            "--scenario",
            s,
            "--query",
            Q,
            "--set",
            "random_page_cost=abc",
        ]),
        2,
        "random_page_cost",
    );
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "postgres",
            "--scenario",
            s,
            "--query",
            Q,
            "--set",
            "random_page_cost=1e9",
        ]),
        2,
        "outside the allowed range",
    );
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "postgres",
            "--scenario",
            s,
            "--query",
            Q,
            "--set",
            "no_such_knob=1",
        ]),
        2,
        "no_such_knob",
    );
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "postgres",
            "--scenario",
            s,
            "--query",
            Q,
            "--set",
            "io_block_read_cost=2",
        ]),
        2,
        "no effect",
    );
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "postgres",
            "--scenario",
            s,
            "--query",
            Q,
            "--disable",
            "hashjoins",
        ]),
        2,
        "hashjoins",
    );
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "mysql",
            "--scenario",
            s,
            "--query",
            Q,
            "--disable",
            "seqscan",
        ]),
        2,
        "--disable",
    );
    assert_fails(
        &run(&[
            "sweep",
            "--engine",
            "postgres",
            "--scenario",
            s,
            "--query-template",
            Q,
            "--from",
            "1",
            "--to",
            "2",
        ]),
        2,
        "{x}",
    );
    assert_fails(
        &run(&[
            "sweep",
            "--engine",
            "postgres",
            "--scenario",
            s,
            "--query-template",
            "SELECT * FROM t1 WHERE i7 < {x}",
            "--from",
            "5",
            "--to",
            "1",
        ]),
        2,
        "range",
    );
    let help = run(&["--help"]);
    assert!(help.status.success());
    assert!(stdout(&help).contains("explain"));
}

#[test]
fn errors_exit_1_with_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario(dir.path());
    let s = s.to_str().expect("utf-8");
    let missing = dir.path().join("missing.json");
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "postgres",
            "--scenario",
            missing.to_str().expect("utf-8"),
            "--query",
            Q,
        ]),
        1,
        "missing.json",
    );
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"costlab_scenario\": 1, \"tables\": [").expect("write");
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "postgres",
            "--scenario",
            bad.to_str().expect("utf-8"),
            "--query",
            Q,
        ]),
        1,
        "not JSON",
    );
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "postgres",
            "--scenario",
            s,
            "--query",
            "SELECT * FROM t1 WHERE nope = 1",
        ]),
        1,
        "nope",
    );
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "postgres",
            "--scenario",
            s,
            "--query",
            "SELECT * FROM t9",
        ]),
        1,
        "t9",
    );
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "postgres",
            "--scenario",
            s,
            "--query",
            "SELECT i1, sum(i2) OVER () FROM t1",
        ]),
        1,
        "window functions are not modelled (line 1, column 12)",
    );
    // An OR, which the single-table reader refuses, goes to the SQL front end and the
    // join planner: one scan with the OR as its filter (at the defaults a Parallel Seq
    // Scan under a Gather: t1 has 10 M rows and the OR keeps few).
    let or = run(&[
        "explain",
        "--engine",
        "postgres",
        "--scenario",
        s,
        "--query",
        "SELECT * FROM t1 WHERE i1 = 1 OR i2 = 2",
    ]);
    assert_eq!(or.status.code(), Some(0), "{}", stderr(&or));
    let text = stdout(&or);
    assert!(text.starts_with("Gather"), "{text}");
    assert!(text.contains("Parallel Seq Scan on t1"), "{text}");
    assert!(text.contains("Filter: ((i1 = 1) OR (i2 = 2))"), "{text}");
    assert_fails(
        &run(&["explain", "--engine", "postgres", "--scenario", s]),
        2,
        "no query",
    );
}

#[test]
fn import_reports_an_unreachable_server_in_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("s.json");
    let out = out.to_str().expect("utf-8");
    // A port nothing listens on.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let dsn = format!("host=127.0.0.1 port={port} user=postgres dbname=postgres connect_timeout=5");
    let o = run(&[
        "import", "postgres", "--dsn", &dsn, "--table", "t", "--out", out,
    ]);
    assert_fails(&o, 1, "cannot connect to PostgreSQL");
    assert!(!Path::new(out).exists());
    let o = run(&[
        "import",
        "postgres",
        "--dsn",
        "host='unterminated",
        "--table",
        "t",
        "--out",
        out,
    ]);
    assert_fails(&o, 1, "invalid --dsn");
    assert!(!Path::new(out).exists());
    assert_fails(&run(&["import", "postgres", "--dsn", &dsn]), 2, "--table");
    // Nothing left behind in the directory (no temporary files either).
    assert_eq!(std::fs::read_dir(dir.path()).expect("read_dir").count(), 0);
}

#[test]
fn explain_prints_the_chosen_plan_or_all_candidates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario(dir.path());
    let s = s.to_str().expect("utf-8");

    let o = run(&[
        "explain",
        "--engine",
        "postgres",
        "--scenario",
        s,
        "--query",
        Q,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("cost="), "{text}");

    let o = run(&[
        "explain",
        "--engine",
        "postgres",
        "--scenario",
        s,
        "--query",
        Q,
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let cands = v["candidates"].as_array().expect("candidates");
    assert!(cands.len() >= 3, "{v}");
    let chosen = v["chosen"].as_u64().expect("chosen") as usize;
    assert!(chosen < cands.len());

    // Forcing: no seq scan, no bitmap scan leaves the index scan.
    let o = run(&[
        "explain",
        "--engine",
        "postgres",
        "--scenario",
        s,
        "--query",
        Q,
        "--disable",
        "seqscan,bitmapscan",
        "--set",
        "max_parallel_workers_per_gather=0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Index Scan using k7"), "{}", stdout(&o));

    // --set changes the numbers.
    let a = run(&[
        "explain",
        "--engine",
        "postgres",
        "--scenario",
        s,
        "--query",
        Q,
        "--json",
        "--set",
        "random_page_cost=1.1",
    ]);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_ne!(a.stdout, o.stdout);

    // MySQL over the same file (t1 has InnoDB facts too).
    let o = run(&[
        "explain",
        "--engine",
        "mysql",
        "--scenario",
        s,
        "--query",
        Q,
        "--buffer-pool-mb",
        "1024",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).trim().is_empty());
    let o = run(&[
        "explain",
        "--engine",
        "mysql",
        "--release",
        "5.7",
        "--scenario",
        s,
        "--query",
        Q,
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice::<serde_json::Value>(&o.stdout).expect("JSON");
}

#[test]
fn sweep_prints_crossovers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario(dir.path());
    let s = s.to_str().expect("utf-8");
    let o = run(&[
        "sweep",
        "--engine",
        "postgres",
        "--scenario",
        s,
        "--query-template",
        "SELECT * FROM t1 WHERE i7 > -1 AND i7 < {x} AND i8 = 2",
        "--from",
        "100",
        "--to",
        "10000000",
        "--points",
        "20",
        "--log",
        "--set",
        "max_parallel_workers_per_gather=0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains(" -> "), "{text}");

    let o = run(&[
        "sweep",
        "--engine",
        "postgres",
        "--scenario",
        s,
        "--query-template",
        Q,
        "--knob",
        "random_page_cost",
        "--from",
        "0.1",
        "--to",
        "200",
        "--points",
        "10",
        "--log",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["points"].as_array().map(Vec::len), Some(10));

    let o = run(&[
        "sweep",
        "--engine",
        "mysql",
        "--scenario",
        s,
        "--query-template",
        "SELECT * FROM t1 WHERE i7 > -1 AND i7 < {x} AND i8 = 2",
        "--from",
        "100",
        "--to",
        "10000000",
        "--points",
        "12",
        "--log",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn url_decode_and_encode_round_trip_and_report_bad_parts() {
    let o = run(&[
        "url",
        "decode",
        "http://localhost:8080/#v=1&e=pg&rpc=20.4&m=seed-nvme",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let file: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(file["settings"]["random_page_cost"], 20.4);
    assert_eq!(file["machine"], "seed-nvme");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("link.json");
    std::fs::write(&path, stdout(&o)).unwrap();
    let o = run(&[
        "url",
        "encode",
        path.to_str().unwrap(),
        "--base",
        "http://x/",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "http://x/#v=1&e=pg&rpc=20.4&m=seed-nvme");

    // The plan diagram's settings, by knob names, both ways.
    let link = "#v=1&e=both&w=dbt3&dg=pg,12,rpc,ecs,open";
    let o = run(&["url", "decode", link]);
    assert!(o.status.success(), "{}", stderr(&o));
    let file: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(file["diagram"]["engine"], "pg");
    assert_eq!(file["diagram"]["query"], 12);
    assert_eq!(file["diagram"]["x"], "random_page_cost");
    assert_eq!(file["diagram"]["y"], "effective_cache_size");
    assert_eq!(file["diagram"]["open"], true);
    std::fs::write(&path, stdout(&o)).unwrap();
    let o = run(&["url", "encode", path.to_str().unwrap(), "--base", ""]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), link);

    // A bad value is reported on stderr and left at its default; the rest is kept.
    let o = run(&["url", "decode", "#v=1&e=pg&rpc=-1&spc=2"]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("random_page_cost"), "{}", stderr(&o));
    let file: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(file["settings"]["seq_page_cost"], 2.0);
    assert!(file["settings"].get("random_page_cost").is_none());

    // The WL#8737 default scenario: MySQL leaves the range scan near 9 % of rows.
    let o = run(&["url", "decode", "#v=1", "--switches"]);
    let out: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let x = out["switches"]["MySQL"][0]["fraction"].as_f64().unwrap();
    assert!((0.085..0.096).contains(&x), "{x}");

    std::fs::write(
        &path,
        r#"{"costlab_link": 1, "settings": {"random_page_cost": 1e9}}"#,
    )
    .unwrap();
    assert_fails(
        &run(&["url", "encode", path.to_str().unwrap()]),
        1,
        "random_page_cost",
    );
    std::fs::write(&path, r#"{"costlab_link": 9}"#).unwrap();
    assert_fails(
        &run(&["url", "encode", path.to_str().unwrap()]),
        1,
        "format version 9",
    );
}

/// The probe's own calibration file is a machine profile for `simulate` and `dbt3`, as their
/// help says (it used to be refused: "invalid buffer_hit_ns: expected a number, got an
/// object").
#[test]
fn simulate_and_dbt3_read_the_probes_calibration_file() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/calibration/this-ci-machine.json");
    let file = file.to_str().expect("utf-8");
    let o = run(&[
        "simulate",
        "--engine",
        "mysql",
        "--workload",
        "t1",
        "--fraction",
        "0.09",
        "--profile-file",
        file,
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON report");
    // The calibration's creation date names the profile it becomes.
    assert_eq!(v["profile"]["id"], "measured-2026-11-30", "{v}");
    assert_eq!(v["profile"]["confidence"], "measured");
    let o = run(&[
        "dbt3",
        "--engine",
        "mysql",
        "--sf",
        "1",
        "--profile-file",
        file,
        "--query",
        "6",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("measured-2026-11-30"), "{}", stdout(&o));
    // A calibration file that is not valid is refused with the field named.
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.json");
    let text = std::fs::read_to_string(file).expect("read the sample");
    std::fs::write(&bad, text.replacen("\"cpus\": 2", "\"cpus\": -2", 1)).expect("write");
    let o = run(&[
        "simulate",
        "--engine",
        "mysql",
        "--workload",
        "t1",
        "--fraction",
        "0.09",
        "--profile-file",
        bad.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.json"), "{}", stderr(&o));
}

/// `costlab dbt3` without a machine plans and costs on the default profile and says which
/// on stderr in one line; stdout is the same table as with that profile named.
#[test]
fn dbt3_defaults_to_a_profile_and_names_it() {
    let args = ["dbt3", "--engine", "postgres", "--sf", "0.1"];
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.trim_end().lines().count(), 1, "{err:?}");
    assert!(
        err.contains("no --profile given") && err.contains("wl8737-memory"),
        "{err}"
    );
    let mut named = args.to_vec();
    named.extend(["--profile", "wl8737-memory"]);
    let o2 = run(&named);
    assert!(o2.status.success(), "{}", stderr(&o2));
    assert!(stderr(&o2).is_empty(), "{}", stderr(&o2));
    assert_eq!(stdout(&o), stdout(&o2));
}

/// The engine release is `--release` on every subcommand; `costlab --version` is the tool's
/// version; the old spellings still run (hidden); `--json`'s help says what it leaves out.
#[test]
fn release_is_release_and_version_is_the_tools() {
    let o = run(&["--version"]);
    assert!(o.status.success());
    assert!(stdout(&o).starts_with("costlab "), "{}", stdout(&o));
    let dbt3 = |flag: &str| {
        let o = run(&["dbt3", "--engine", "mysql", "--sf", "0.1", flag, "8.0"]);
        assert!(o.status.success(), "{flag}: {}", stderr(&o));
        stdout(&o)
    };
    let text = dbt3("--release");
    assert!(text.contains("on MySQL 8.0"), "{text}");
    assert_eq!(dbt3("--version"), text);
    assert_eq!(dbt3("--engine-version"), text);
    let help = String::from_utf8_lossy(&run(&["dbt3", "--help"]).stdout).into_owned();
    assert!(help.contains("--release <RELEASE>"), "{help}");
    assert!(!help.contains("--version"), "{help}");
    assert!(!help.contains("--engine-version"), "{help}");
    assert!(help.contains("no plan trees"), "{help}");
    for cmd in ["explain", "sweep", "simulate", "fit"] {
        let help = String::from_utf8_lossy(&run(&[cmd, "--help"]).stdout).into_owned();
        assert!(help.contains("--release <RELEASE>"), "{cmd}: {help}");
        assert!(!help.contains("--engine-version"), "{cmd}: {help}");
    }
    // A bare `dbt3 --version` says what it is and which costlab this is.
    let o = run(&["dbt3", "--engine", "mysql", "--version"]);
    assert_fails(&o, 2, "old name of --release");
    assert!(
        stderr(&o).contains(&format!("costlab {}", env!("CARGO_PKG_VERSION"))),
        "{}",
        stderr(&o)
    );
    // A release of the wrong engine is named by the option's name.
    let o = run(&["dbt3", "--engine", "mysql", "--release", "16"]);
    assert_fails(&o, 2, "--release");
}

/// `--set` reads PostgreSQL's memory settings as `SET` does: units (case-sensitive) or a
/// bare number in the parameter's base unit (effective_cache_size: 8 kB pages, so 64 is
/// 512 kB, as `SET effective_cache_size = 64; SHOW effective_cache_size` prints in
/// PostgreSQL 15). The index scan's cost (Mackert-Lohman over effective_cache_size) shows
/// which value the model got.
#[test]
fn set_reads_postgresql_units_as_set_does() {
    let index_cost = |set: Option<&str>| -> f64 {
        let mut args = vec![
            "simulate",
            "--engine",
            "postgres",
            "--profile",
            "nvme-consumer-gen4",
            "--workload",
            "t1",
            "--fraction",
            "0.01",
            "--json",
        ];
        if let Some(s) = set {
            args.extend(["--set", s]);
        }
        let o = run(&args);
        assert!(o.status.success(), "{set:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        v["candidates"]
            .as_array()
            .expect("candidates")
            .iter()
            .find(|c| c["key"] == "index:k7")
            .and_then(|c| c["cost"].as_f64())
            .expect("index:k7 cost")
    };
    let pages64 = index_cost(Some("effective_cache_size=64"));
    assert_eq!(pages64, index_cost(Some("effective_cache_size=512kB")));
    assert_ne!(pages64, index_cost(Some("effective_cache_size=64MB")));
    // The default is 4GB = 524288 pages.
    let default = index_cost(None);
    assert_eq!(default, index_cost(Some("effective_cache_size=4GB")));
    assert_eq!(default, index_cost(Some("effective_cache_size=524288")));
    assert_ne!(default, pages64);
    assert_eq!(
        index_cost(Some("random_page_cost=1.1")),
        index_cost(Some("rpc=1.1"))
    );
    for (set, value) in [
        ("work_mem=64mb", "`64mb`"),
        ("effective_cache_size=4 GiB", "`4 GiB`"),
        ("work_mem=64KB", "`64KB`"),
    ] {
        let o = run(&[
            "simulate",
            "--engine",
            "postgres",
            "--profile",
            "nvme-consumer-gen4",
            "--workload",
            "t1",
            "--set",
            set,
        ]);
        assert_fails(&o, 2, value);
        assert!(
            stderr(&o).contains("B, kB, MB, GB and TB"),
            "{}",
            stderr(&o)
        );
    }
}

/// `costlab ordering`: the third seed's shapes with each change beside the seed's, the
/// mix at its three shares; a scale factor, release or machine it cannot use is a usage
/// error in one line.
#[test]
fn ordering_prints_the_shapes_and_the_mix() {
    let o = run(&["ordering", "--sf", "1", "--plans"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for want in [
        "P1",
        "P2",
        "P3",
        "P4",
        "R1",
        "N1",
        "N2",
        "-64 %",
        "customer_fgeo_idx",
        "Index Only Scan",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    let table = |heading: &str| -> Vec<String> {
        out.lines()
            .skip_while(|l| !l.starts_with(heading))
            .skip(2)
            .take_while(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mix = table("closed-loop mix");
    assert_eq!(mix.len(), 3, "{out}");
    assert!(mix[0].trim_start().starts_with("0.0"), "{out}");
    // On the seed's stock times, stock's throughput is the seed's (fitted at 0 and 0.8).
    let seed_times = table("the same mix on the seed's stock times");
    assert_eq!(seed_times.len(), 3, "{out}");
    for (line, qps) in seed_times.iter().zip(["4118", "2", "893"]) {
        let stock = line.split_whitespace().nth(1).unwrap_or_default();
        assert!(stock.starts_with(qps), "{line}: {out}");
    }
    assert_fails(&run(&["ordering", "--sf=-3"]), 2, "--sf");
    // The workload's scenario file, planned by costlab explain stock and with --series:
    // the index-only scan that returns fnorm() exists only in the series.
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("ordering.json");
    let f = file.to_str().unwrap();
    let o = run(&["ordering", "--sf", "1", "--write-scenario", f]);
    assert!(o.status.success(), "{}", stderr(&o));
    let p3 = "SELECT fnorm(c_phone) FROM customer WHERE fnorm(c_phone) BETWEEN '20100' AND '20101'";
    let explain = |extra: &[&str]| {
        let mut args = vec![
            "explain",
            "--engine",
            "postgres",
            "--scenario",
            f,
            "--query",
            p3,
        ];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let (stock, series) = (explain(&[]), explain(&["--series"]));
    assert!(
        stock.starts_with("Index Scan using customer_fnorm_idx"),
        "{stock}"
    );
    assert!(
        series.starts_with("Index Only Scan using customer_fnorm_idx"),
        "{series}"
    );
    assert_fails(
        &run(&[
            "explain",
            "--engine",
            "mysql",
            "--scenario",
            f,
            "--query",
            p3,
            "--series",
        ]),
        2,
        "--series",
    );
    assert_fails(&run(&["ordering", "--release", "8.0"]), 2, "--release");
    assert_fails(&run(&["ordering", "--profile", "nope"]), 2, "nope");
}

/// `costlab simulate` and `costlab workload` on the ordering workload's scenario file time
/// each shape as `costlab ordering` does: the file carries the functions' COST and their
/// measured call time, and `--series` plans with the series. (Before the file carried
/// them, simulate planned P3 as a bitmap scan at the default COST and timed none of its
/// 195 calls.)
#[test]
fn simulate_times_the_ordering_scenario_as_costlab_ordering_does() {
    let o = run(&["ordering", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ordering: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("ordering.json");
    let f = file.to_str().unwrap();
    let o = run(&["ordering", "--write-scenario", f]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sql = |name: &str| {
        costlab_core::ordering::shapes()
            .into_iter()
            .find(|s| s.name == name)
            .expect("shape")
            .sql
    };
    let simulate = |query: &str, extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "simulate",
            "--engine",
            "postgres",
            "--scenario",
            f,
            "--profile",
            "seed-nvme",
            "--json",
            "--query",
            query,
        ];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
        v["rows"][0]["current"].clone()
    };
    let overhead_ms = costlab_core::ordering::STATEMENT_OVERHEAD_S * 1e3;
    for name in ["P1", "P3", "P4", "R1"] {
        let row = ordering["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .expect("row");
        for (extra, key) in [(&[][..], "stock_ms"), (&["--series"][..], "series_ms")] {
            let got = simulate(sql(name), extra);
            let want = row[key].as_f64().unwrap() - overhead_ms;
            let ms = got["time_s"].as_f64().unwrap() * 1e3;
            assert!(
                (ms - want).abs() <= 1e-9 * want.max(1.0),
                "{name} {key}: simulate {ms} ms, ordering {want} ms"
            );
        }
    }
    let p3 = simulate(sql("P3"), &[]);
    assert!(
        p3["summary"]
            .as_str()
            .unwrap()
            .contains("Index Scan(customer_fnorm_idx)"),
        "{p3}"
    );
    let p3 = simulate(sql("P3"), &["--series"]);
    assert!(
        p3["summary"]
            .as_str()
            .unwrap()
            .contains("Index Only Scan(customer_fnorm_idx)"),
        "{p3}"
    );
    // The series is PostgreSQL's; the built-in DBT3 catalog has nothing for it to change.
    assert_fails(
        &run(&[
            "simulate",
            "--engine",
            "mysql",
            "--profile",
            "seed-nvme",
            "--scenario",
            f,
            "--query",
            sql("N1"),
            "--series",
        ]),
        2,
        "--series",
    );
    let o = run(&["dbt3", "--engine", "postgres", "--sf", "1", "--series"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("plans exactly as stock"),
        "{}",
        stderr(&o)
    );
}

/// `simulate` on a join query of one's own: `--disable` switches the join planner's
/// methods off as a session's SET does (the merge join replaces the hash join here), and
/// a query the SQL front end refuses fails with the front end's error, not "the workload
/// has no query 1".
#[test]
fn simulate_a_join_with_switches_off_and_a_refused_query() {
    let shop = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/example-shop.json");
    let shop = shop.to_str().expect("utf-8");
    let sim = |sql: &str, disable: Option<&str>| {
        let mut args = vec![
            "simulate",
            "--engine",
            "postgres",
            "--profile",
            "seed-nvme",
            "--scenario",
            shop,
            "--query",
            sql,
        ];
        if let Some(d) = disable {
            args.extend(["--disable", d]);
        }
        run(&args)
    };
    let sql = "SELECT c.city, count(*) FROM customers c JOIN orders o ON o.cust_id = c.cust_id GROUP BY c.city";
    let on = sim(sql, None);
    assert!(on.status.success(), "{}", stderr(&on));
    assert!(stdout(&on).contains("Hash Join"), "{}", stdout(&on));
    let off = sim(sql, Some("hashjoin,nestloop"));
    assert!(off.status.success(), "{}", stderr(&off));
    let text = stdout(&off);
    assert!(
        text.contains("Merge Join") && !text.contains("Hash Join") && !text.contains("Nested Loop"),
        "{text}"
    );
    let bad = sim(
        "SELECT c.city FROM customers c JOIN orders o ON o.customer_id = c.cust_id",
        None,
    );
    assert_eq!(bad.status.code(), Some(1), "{}", stderr(&bad));
    let err = stderr(&bad);
    assert!(err.contains("unknown column `customer_id`"), "{err}");
    assert!(!err.contains("no query 1"), "{err}");
}
