//! `costlab dbt3`: the seed's WL#8737 table (MySQL 5.7 constants, memory_block_read_cost
//! 1.0 → 0.2 on the in-memory server), one query's plans as trees, JSON, and one-line
//! errors with exit code 2 for every bad input.

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

#[track_caller]
fn assert_ok(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(o));
    stdout(o)
}

/// Fails unless the command exited with `code` and printed exactly one line on stderr that
/// contains every one of `want`.
#[track_caller]
fn assert_fails(o: &Output, code: i32, want: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err:?}");
    for w in want {
        assert!(err.contains(w), "{err:?} lacks {w:?}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("internal error"), "{err}");
    assert!(stdout(o).is_empty(), "printed on stdout: {}", stdout(o));
}

/// The brief's seed command: MySQL 5.7's constants against memory_block_read_cost 0.2.
const SEED: [&str; 11] = [
    "dbt3",
    "--engine",
    "mysql",
    "--sf",
    "10",
    "--profile",
    "wl8737-memory",
    "--baseline",
    "mysql-5.7",
    "--set",
    "memory_block_read_cost=0.2",
];

/// The table's line of query `n`: `[*] Qn  title ...`.
fn row_line(text: &str, n: u8) -> &str {
    let q = format!("Q{n}");
    text.lines()
        .find(|l| l.trim_start_matches('*').split_whitespace().next() == Some(q.as_str()))
        .unwrap_or_else(|| panic!("no row for {q} in\n{text}"))
}

fn marked_changed(line: &str) -> bool {
    let starred = line.starts_with('*');
    let yes = line.split_whitespace().any(|w| w == "yes");
    assert_eq!(starred, yes, "marker and column disagree: {line}");
    starred
}

/// Seed (mysql-wl8737-io-aware-cost-defaults.txt), in memory, 1.0 → 0.2: Q6 and Q12 move
/// to a range scan, Q7's join order and Q20's semijoin strategy change; the other queries
/// keep their plans (Q1 is checked on its own below).
#[test]
fn seed_table_marks_the_seed_queries() {
    let text = assert_ok(&run(&SEED));
    assert!(text.contains("MySQL 5.7"), "{text}");
    assert!(text.contains("wl8737-memory"), "{text}");
    for n in [6, 7, 12, 20] {
        assert!(
            marked_changed(row_line(&text, n)),
            "Q{n} should change:\n{text}"
        );
    }
    for n in (2..=22).filter(|n| ![6, 7, 12, 20].contains(n)) {
        let line = row_line(&text, n);
        assert!(!marked_changed(line), "Q{n} should keep its plan: {line}");
        assert!(line.contains("(same)"), "{line}");
        // Same plan, same simulated time.
        assert!(line.contains(" 0 %"), "{line}");
    }
    // Q6: table scan → range on the ship date.
    let q6 = row_line(&text, 6);
    assert!(q6.contains("lineitem ALL"), "{q6}");
    assert!(q6.contains("lineitem range(i_l_shipdate)"), "{q6}");
    assert!(text.contains("total (22 queries)"), "{text}");
}

/// A known deviation from the seed, asserted so that it stays understood: the seed lists
/// Q1 among the unchanged queries at memory_block_read_cost 0.2, the model moves it to the
/// range on i_l_shipdate there. Q1's range keeps 98.6 % of lineitem; InnoDB's estimate for
/// such a range is capped at N/2 (mysql-cost-model.md §4.3, flaw 4), so the range costs
/// N/2·(mbrc + rec) against the scan's P·mbrc + N·rec. With rec = 0.2 the capped range wins
/// whenever mbrc < rec·(N/2)/(N/2 − P) ≈ 0.2035 (P ≈ N/114): every range wider than half
/// the table turns into a range scan just below 0.2035. At exactly 0.2 the margin is under
/// 1 %, so how close the real server's estimates came to the cap decided it there.
#[test]
fn q1_takes_the_capped_range_just_below_0_2035() {
    let at = |mbrc: &str| {
        let mut args = SEED.to_vec();
        let set = format!("memory_block_read_cost={mbrc}");
        *args.last_mut().unwrap() = &set;
        let text = assert_ok(&run(&args));
        marked_changed(row_line(&text, 1))
    };
    assert!(!at("0.21"), "Q1 keeps the table scan at 0.21");
    assert!(!at("0.204"), "Q1 keeps the table scan at 0.204");
    assert!(at("0.203"), "Q1 takes the capped range at 0.203");
    assert!(at("0.2"), "Q1 takes the capped range at 0.2");
}

/// The seed's disk-bound runs set mrr_cost_based=off for every column, the 1.0 baseline
/// too: `--baseline-set` puts it on the baseline. DS-MRR is then forced wherever it is
/// eligible on both sides, so the ranges of Q4, Q10 and Q14 keep "Using MRR" and are not
/// marked at io 2.0; Q8's join order changes as in the seed.
#[test]
fn disk_bound_seed_table_with_the_switch_on_both_sides() {
    let text = assert_ok(&run(&[
        "dbt3",
        "--engine",
        "mysql",
        "--profile",
        "wl8737-disk",
        "--baseline",
        "mysql-5.7",
        "--baseline-set",
        "mrr_cost_based=0",
        "--set",
        "mrr_cost_based=0",
        "--set",
        "io_block_read_cost=2",
    ]));
    assert!(
        text.contains("baseline: mysql-5.7 (MySQL 5.7 defaults) with mrr_cost_based=0"),
        "{text}"
    );
    assert!(marked_changed(row_line(&text, 8)), "{text}");
    for n in [4, 10, 14] {
        let line = row_line(&text, n);
        assert!(!marked_changed(line), "Q{n}: {line}");
    }
    // A PostgreSQL knob, or a bad value, on the baseline is refused like --set's.
    let bad = run(&[
        "dbt3",
        "--engine",
        "mysql",
        "--baseline-set",
        "random_page_cost=1",
    ]);
    assert_fails(
        &bad,
        2,
        &["--baseline-set random_page_cost", "no effect on MySQL"],
    );
    let bad = run(&[
        "dbt3",
        "--engine",
        "mysql",
        "--baseline-set",
        "mrr_cost_based=x",
    ]);
    assert_fails(&bad, 2, &["--baseline-set", "mrr_cost_based"]);
}

#[test]
fn seed_table_as_json() {
    let mut args = SEED.to_vec();
    args.push("--json");
    let text = assert_ok(&run(&args));
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let rows = v["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 22);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["query"].as_u64(), Some(i as u64 + 1));
        for side in ["baseline", "current"] {
            let t = r[side]["time_s"].as_f64().expect("time_s");
            assert!(t > 0.0 && t.is_finite(), "Q{}: {t}", i + 1);
            assert!(r[side]["cost"].as_f64().expect("cost") > 0.0);
            assert!(!r[side]["summary"].as_str().expect("summary").is_empty());
            // Trees only with --query.
            assert!(r[side].get("tree").is_none());
        }
        let changed = r["plan_changed"].as_bool().expect("plan_changed");
        assert_eq!(
            changed,
            r["baseline"]["signature"] != r["current"]["signature"],
            "Q{}",
            i + 1
        );
    }
    for n in [6usize, 7, 12, 20] {
        assert_eq!(rows[n - 1]["plan_changed"], true, "Q{n}");
    }
    // Seed: Q6 and Q12 ran faster on the range scan, Q20 slower with FirstMatch.
    for n in [6usize, 12] {
        assert!(rows[n - 1]["change_pct"].as_f64().unwrap() < 0.0, "Q{n}");
    }
    assert!(rows[19]["change_pct"].as_f64().unwrap() > 0.0, "Q20");
    let totals = &v["totals"];
    assert_eq!(totals["queries"], 22);
    let sum: f64 = rows
        .iter()
        .map(|r| r["current"]["time_s"].as_f64().unwrap())
        .sum();
    let total = totals["time_current_s"].as_f64().unwrap();
    assert!((sum - total).abs() <= 1e-9 * total, "{sum} vs {total}");
    assert!(v.get("timings").is_none());
}

#[test]
fn one_query_prints_both_plans_as_trees() {
    let mut args = SEED.to_vec();
    args.extend(["--query", "6"]);
    let text = assert_ok(&run(&args));
    assert!(text.contains("Q6: Forecasting revenue change"), "{text}");
    assert!(text.contains("plan changed: yes"), "{text}");
    let (before, now) = text.split_once("\nplan now: ").expect("a current plan");
    let baseline = before
        .split_once("\nbaseline plan: ")
        .expect("a baseline plan")
        .1;
    assert!(baseline.contains("ALL on lineitem"), "{baseline}");
    assert!(!baseline.contains("i_l_shipdate"), "{baseline}");
    assert!(
        now.contains("range using i_l_shipdate on lineitem"),
        "{now}"
    );
    assert!(now.contains("[time "), "{now}");
    assert!(now.contains("simulated time:"), "{now}");
    // Only Q6.
    assert!(!text.contains("Q7"), "{text}");

    // An unchanged query says so.
    let mut args = SEED.to_vec();
    args.extend(["--query", "3"]);
    let text = assert_ok(&run(&args));
    assert!(text.contains("plan changed: no"), "{text}");

    // JSON carries the trees and each node's time.
    let mut args = SEED.to_vec();
    args.extend(["--query", "6", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&assert_ok(&run(&args))).expect("JSON");
    let rows = v["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 1);
    let cur = &rows[0]["current"];
    assert_eq!(cur["tree"]["index"], "i_l_shipdate");
    let times = cur["node_times_s"].as_array().expect("node times");
    assert!(!times.is_empty());
    let sum: f64 = times.iter().map(|t| t.as_f64().unwrap()).sum();
    let total = cur["time_s"].as_f64().unwrap();
    assert!(
        (sum - total).abs() <= 1e-9 * total.max(1.0),
        "{sum} vs {total}"
    );
}

/// A baseline equal to the current constants changes nothing.
#[test]
fn same_constants_change_nothing() {
    let text = assert_ok(&run(&[
        "dbt3",
        "--engine",
        "mysql",
        "--sf",
        "1",
        "--profile",
        "wl8737-disk",
        "--version",
        "8.0",
        "--baseline",
        "mysql-8.0",
    ]));
    assert!(text.contains("MySQL 8.0"), "{text}");
    for n in 1..=22 {
        assert!(!marked_changed(row_line(&text, n)), "Q{n}");
    }
    assert!(text.contains("0 yes"), "{text}");
}

/// Server settings come from a built-in profile picked by name, never from a profile file's
/// id: the seed's disk-bound profile written to a file (id `wl8737-disk`) plans DBT3 on a
/// default server (no batched key access), and with the seed's settings given it plans
/// and times exactly as the built-in profile does.
#[test]
fn a_profile_file_never_presets_the_seed_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let all: serde_json::Value =
        serde_json::from_str(&assert_ok(&run(&["simulate", "--list-profiles", "--json"])))
            .expect("JSON");
    let disk = all
        .as_array()
        .expect("array")
        .iter()
        .find(|p| p["id"] == "wl8737-disk")
        .expect("wl8737-disk")
        .clone();
    let path = dir.path().join("disk.json");
    std::fs::write(&path, disk.to_string()).expect("write");
    let file = path.to_str().expect("utf-8");
    // At the seed's scale factor, where batched key access matters (the seed's disk-bound
    // runs: 133,278 s in all with it, 386,498 s without).
    let base = ["dbt3", "--engine", "mysql", "--sf", "10", "--json"];
    let report = |extra: &[&str]| -> serde_json::Value {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        serde_json::from_str(&assert_ok(&run(&a))).expect("JSON")
    };
    let builtin = report(&["--profile", "wl8737-disk"]);
    assert_eq!(builtin["server"]["batched_key_access"], true);
    assert_eq!(builtin["server"]["innodb_cache_report"], "heuristic");
    let from_file = report(&["--profile-file", file]);
    assert_eq!(from_file["profile"]["id"], "wl8737-disk");
    assert_eq!(from_file["server"]["batched_key_access"], false);
    assert_eq!(from_file["server"]["innodb_cache_report"], "release");
    let total = |r: &serde_json::Value| r["totals"]["time_current_s"].as_f64().expect("total");
    assert!(
        total(&from_file) > 2.0 * total(&builtin),
        "{} vs {}",
        total(&from_file),
        total(&builtin)
    );
    let with_seed_settings = report(&[
        "--profile-file",
        file,
        "--batched-key-access",
        "on",
        "--innodb-cache-report",
        "heuristic",
    ]);
    assert_eq!(builtin["rows"], with_seed_settings["rows"]);
    let text = assert_ok(&run(&[
        "dbt3",
        "--engine",
        "mysql",
        "--sf",
        "1",
        "--profile-file",
        file,
    ]));
    assert!(
        text.contains("server:   InnoDB cache report release, batched key access off"),
        "{text}"
    );
}

#[test]
fn timings_are_printed() {
    let mut args = SEED.to_vec();
    args.extend(["--timings", "3"]);
    let text = assert_ok(&run(&args));
    assert!(text.contains("median of 3 runs"), "{text}");
    let mut args = SEED.to_vec();
    args.extend(["--timings", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&assert_ok(&run(&args))).expect("JSON");
    assert_eq!(v["timings"]["repeat"], 21);
    assert_eq!(v["timings"]["queries"].as_array().map(Vec::len), Some(22));
}

#[test]
fn bad_input_exits_2_with_one_line_naming_it() {
    let base = |extra: &[&'static str]| {
        let mut a = vec!["dbt3", "--engine", "mysql", "--profile", "wl8737-memory"];
        a.extend_from_slice(extra);
        a
    };
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            base(&["--sf", "0.001"]),
            vec!["--sf", "0.001", "0.01 to 1000"],
        ),
        (base(&["--sf", "1001"]), vec!["--sf", "1001"]),
        (base(&["--sf", "nan"]), vec!["--sf"]),
        (base(&["--sf", "ten"]), vec!["--sf"]),
        (base(&["--query", "0"]), vec!["--query", "1 to 22", "0"]),
        (base(&["--query", "23"]), vec!["--query", "1 to 22", "23"]),
        (base(&["--query", "-1"]), vec!["--query", "-1"]),
        (
            base(&["--set", "memory_block_read_cost=1000"]),
            vec!["memory_block_read_cost", "1000", "outside"],
        ),
        (
            base(&["--set", "memory_block_read_cost=cheap"]),
            vec!["memory_block_read_cost", "cheap"],
        ),
        (base(&["--set", "no_such_knob=1"]), vec!["no_such_knob"]),
        (
            base(&["--set", "memory_block_read_cost"]),
            vec!["name=value"],
        ),
        (
            base(&["--set", "random_page_cost=2"]),
            vec!["random_page_cost", "PostgreSQL", "MySQL"],
        ),
        (
            base(&["--baseline", "no-such-preset"]),
            vec!["no-such-preset"],
        ),
        (
            base(&["--baseline", "pg-ssd"]),
            vec!["--baseline", "pg-ssd", "PostgreSQL"],
        ),
        (
            base(&["--release", "16"]),
            vec!["--release", "PostgreSQL 16"],
        ),
        (base(&["--release", "9.9"]), vec!["--release", "9.9"]),
        // The old name still runs, and errors use the new one.
        (base(&["--version", "9.9"]), vec!["--release", "9.9"]),
        (base(&["--timings", "0"]), vec!["--timings"]),
        (
            vec!["dbt3", "--engine", "mysql", "--profile", "no-such-machine"],
            vec!["no-such-machine"],
        ),
        (
            vec!["dbt3", "--engine", "oracle", "--profile", "wl8737-memory"],
            vec!["oracle"],
        ),
        (
            vec![
                "dbt3",
                "--engine",
                "postgres",
                "--profile",
                "wl8737-memory",
                "--set",
                "memory_block_read_cost=0.2",
            ],
            vec!["memory_block_read_cost", "MySQL", "PostgreSQL"],
        ),
        (
            vec![
                "dbt3",
                "--engine",
                "postgres",
                "--profile",
                "wl8737-memory",
                "--baseline",
                "mysql-5.7",
            ],
            vec!["--baseline", "mysql-5.7"],
        ),
    ];
    for (args, want) in cases {
        let o = run(&args);
        assert_fails(&o, 2, &want);
    }
}

/// PostgreSQL's DBT3 table: 22 rows with finite figures; on the NVMe profile the SSD advice
/// (random_page_cost 1.1) moves Q12 from the orders-driven merge join onto the partial
/// index of late lineitems. Serial plans on both sides (max_parallel_workers_per_gather 0):
/// in parallel both sides drive Q12 from a Parallel Index Scan of pk_orders.
#[test]
fn postgres_table() {
    let o = run(&[
        "dbt3",
        "--engine",
        "postgres",
        "--sf",
        "10",
        "--profile",
        "nvme-consumer-gen4",
        "--baseline",
        "pg-default",
        "--baseline-set",
        "max_parallel_workers_per_gather=0",
        "--set",
        "max_parallel_workers_per_gather=0",
        "--set",
        "random_page_cost=1.1",
    ]);
    let text = assert_ok(&o);
    assert!(text.contains("PostgreSQL 18"), "{text}");
    for n in 1..=22 {
        let line = row_line(&text, n);
        assert!(!line.contains("NaN") && !line.contains("inf"), "{line}");
    }
    assert!(text.contains("total (22 queries)"), "{text}");
    let q12 = row_line(&text, 12);
    assert!(marked_changed(q12), "{q12}");
    assert!(q12.contains("lineitem_l_orderkey_idx_part2"), "{q12}");
    assert!(!marked_changed(row_line(&text, 6)), "Q6 keeps its plan");
}

fn example() -> String {
    format!(
        "{}/../../static/example-shop.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `costlab workload`: the example's own six queries by default; a queries file replaces
/// them, and a query the front end refuses is listed with its error and the span it names,
/// the others planned. MySQL plans the PostgreSQL import on derived InnoDB statistics.
#[test]
fn workload_plans_the_example_and_names_refused_queries() {
    let file = example();
    for engine in ["postgres", "mysql"] {
        let out = assert_ok(&run(&[
            "workload",
            "--engine",
            engine,
            "--scenario",
            &file,
            "--profile",
            "seed-nvme",
            "--json",
        ]));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["rows"].as_array().unwrap().len(), 6, "{engine}");
        assert!(v["workload"]
            .as_str()
            .unwrap()
            .contains("example-shop.json"));
        assert!(v.get("refused").is_none(), "{engine}: {out}");
    }
    let dir = tempfile::tempdir().unwrap();
    let queries = dir.path().join("q.sql");
    let window = "SELECT o.order_id, rank() OVER (ORDER BY o.total) FROM orders o";
    std::fs::write(
        &queries,
        format!("SELECT count(*) FROM orders o JOIN customers c ON c.cust_id = o.cust_id WHERE c.vip;\n{window};\n"),
    )
    .unwrap();
    let out = assert_ok(&run(&[
        "workload",
        "--engine",
        "postgres",
        "--scenario",
        &file,
        "--queries",
        queries.to_str().unwrap(),
        "--set",
        "random_page_cost=1.1",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["rows"].as_array().unwrap().len(), 1);
    let refused = &v["refused"][0];
    assert_eq!(refused["query"], 2);
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("window function"),
        "{refused}"
    );
    let (s, e) = (
        refused["start"].as_u64().unwrap() as usize,
        refused["end"].as_u64().unwrap() as usize,
    );
    // sqlparser's span of a window function covers its name, not the OVER clause.
    assert!(s < e && window[s..e].contains("rank"), "{}", &window[s..e]);
    let text = assert_ok(&run(&[
        "workload",
        "--engine",
        "postgres",
        "--scenario",
        &file,
        "--queries",
        queries.to_str().unwrap(),
    ]));
    assert!(text.contains("Q2 not planned: "), "{text}");
}

#[test]
fn workload_and_dbt3_refuse_what_they_cannot_take() {
    assert_fails(
        &run(&["workload", "--engine", "postgres"]),
        2,
        &["--scenario FILE is needed"],
    );
    let file = example();
    assert_fails(
        &run(&["dbt3", "--engine", "postgres", "--queries", &file]),
        2,
        &["--queries", "costlab workload"],
    );
    // DBT3's queries on tables that are not DBT3's: the missing table is named.
    assert_fails(
        &run(&[
            "dbt3",
            "--engine",
            "postgres",
            "--scenario",
            &file,
            "--profile",
            "seed-nvme",
        ]),
        1,
        &["lineitem"],
    );
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("none.sql");
    std::fs::write(&empty, "-- nothing\n").unwrap();
    assert_fails(
        &run(&[
            "workload",
            "--engine",
            "mysql",
            "--scenario",
            &file,
            "--profile",
            "seed-nvme",
            "--queries",
            empty.to_str().unwrap(),
        ]),
        1,
        &["there are none"],
    );
}

/// `sweep --knob` and `simulate` take join queries over a scenario file: the sweep finds
/// where the chosen plan changes (a change anywhere in the tree), simulate times the chosen
/// plan node by node; `fit` takes the plans the constant makes the planner pick on a grid.
#[test]
fn sweep_and_simulate_take_join_queries() {
    let file = example();
    let q = "SELECT p.title, l.qty FROM order_lines l JOIN products p ON p.prod_id = l.prod_id \
             WHERE l.order_id BETWEEN 1000 AND 1100";
    let out = assert_ok(&run(&[
        "sweep",
        "--engine",
        "postgres",
        "--scenario",
        &file,
        "--query-template",
        q,
        "--knob",
        "random_page_cost",
        "--from",
        "0.5",
        "--to",
        "10",
        "--points",
        "20",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let crossovers = v["crossovers"].as_array().unwrap();
    assert!(!crossovers.is_empty(), "{out}");
    // Located by bisection on the model, between two samples.
    let x = crossovers[0]["x"].as_f64().unwrap();
    assert!(x > 0.5 && x < 10.0);
    assert_ne!(crossovers[0]["from"], crossovers[0]["to"]);

    let out = assert_ok(&run(&[
        "simulate",
        "--engine",
        "mysql",
        "--scenario",
        &file,
        "--profile",
        "seed-nvme",
        "--query",
        q,
    ]));
    assert!(out.contains("eq_ref using products_pkey on p"), "{out}");
    assert!(out.contains("a join planner keeps one plan"), "{out}");

    // fit on a join query: the grid's least time lost is the best value's, and every
    // value's chosen time is the same fastest total plus what it loses.
    let out = assert_ok(&run(&[
        "fit",
        "--engine",
        "postgres",
        "--scenario",
        &file,
        "--profile",
        "seed-nvme",
        "--knob",
        "random_page_cost",
        "--range",
        "0.5,20",
        "--query-template",
        "SELECT p.title, l.qty FROM order_lines l JOIN products p ON p.prod_id = l.prod_id \
         WHERE l.order_id BETWEEN 1000 AND {x}",
        "--from",
        "1010",
        "--to",
        "200000",
        "--points",
        "20",
        "--log",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let num = |x: &serde_json::Value| x.as_f64().unwrap();
    let regret: Vec<f64> = v["regret_s"].as_array().unwrap().iter().map(num).collect();
    let chosen: Vec<f64> = v["chosen_s"].as_array().unwrap().iter().map(num).collect();
    let values: Vec<f64> = v["values"].as_array().unwrap().iter().map(num).collect();
    assert_eq!(values.len(), 62, "61 grid values and the current 4");
    let least = regret.iter().copied().fold(f64::INFINITY, f64::min);
    let best = values.iter().position(|&x| x == num(&v["best"])).unwrap();
    assert_eq!(regret[best], least);
    assert!(
        regret.iter().any(|&r| r > least),
        "the constant matters here: {regret:?}"
    );
    let fastest = chosen[0] - regret[0];
    for (c, r) in chosen.iter().zip(&regret) {
        assert!(
            (c - r - fastest).abs() <= 1e-12 * fastest,
            "{c} {r} {fastest}"
        );
    }
    assert!(v["plans"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p.as_u64().unwrap() >= 2));
}

/// Every node's `op` in a JSON plan tree.
fn ops(tree: &serde_json::Value, out: &mut Vec<String>) {
    if let Some(op) = tree["op"].as_str() {
        out.push(op.to_string());
    }
    for c in tree["children"].as_array().into_iter().flatten() {
        ops(c, out);
    }
}

/// `--disable` turns PostgreSQL's enable_* switches off as `SET enable_nestloop = off`
/// does in a session: on both sides of the comparison, the join planner then never
/// chooses the method, and the plan it chooses instead costs at least as much (the
/// cheaper one was off the table). `--set enable_nestloop=off` points to it; MySQL has
/// no such switches.
#[test]
fn disable_turns_join_methods_off_on_both_sides() {
    let plan = |q: u8, disable: Option<&str>| {
        let q = q.to_string();
        let mut args = vec![
            "dbt3",
            "--engine",
            "postgres",
            "--sf",
            "1",
            "--release",
            "15",
            "--query",
            &q,
            "--json",
        ];
        if let Some(d) = disable {
            args.extend(["--disable", d]);
        }
        let v: serde_json::Value =
            serde_json::from_str(&assert_ok(&run(&args))).expect("JSON report");
        v
    };
    for q in [2, 3, 9, 21] {
        let on = plan(q, None);
        let mut all = Vec::new();
        ops(&on["rows"][0]["current"]["tree"], &mut all);
        assert!(
            all.iter().any(|o| o == "Nested Loop"),
            "Q{q} uses a nested loop with every switch on: {all:?}"
        );
        assert!(on.get("switches_off").is_none(), "{}", on["switches_off"]);
        for (disable, gone) in [
            ("nestloop", vec!["Nested Loop"]),
            ("enable_nestloop,hashjoin", vec!["Nested Loop", "Hash Join"]),
        ] {
            let off = plan(q, Some(disable));
            let listed = off["switches_off"].as_array().expect("switches_off");
            assert!(
                listed.iter().any(|s| s == "enable_nestloop") && listed.len() == gone.len(),
                "--disable {disable}: {listed:?}"
            );
            for side in ["baseline", "current"] {
                let mut got = Vec::new();
                ops(&off["rows"][0][side]["tree"], &mut got);
                for g in &gone {
                    assert!(
                        !got.iter().any(|o| o == g),
                        "Q{q} {side} --disable {disable}: {got:?}"
                    );
                }
                let (c_on, c_off) = (
                    on["rows"][0][side]["cost"].as_f64().unwrap(),
                    off["rows"][0][side]["cost"].as_f64().unwrap(),
                );
                assert!(
                    c_off >= c_on,
                    "Q{q} {side} --disable {disable}: {c_off} < {c_on}"
                );
            }
        }
    }
    let o = run(&[
        "dbt3",
        "--engine",
        "postgres",
        "--set",
        "enable_nestloop=off",
    ]);
    assert_fails(&o, 2, &["planner switch", "--disable nestloop"]);
    let o = run(&["dbt3", "--engine", "postgres", "--disable", "hashjoins"]);
    assert_fails(&o, 2, &["hashjoins", "nestloop", "memoize"]);
    let o = run(&["dbt3", "--engine", "mysql", "--disable", "nestloop"]);
    assert_fails(&o, 2, &["--disable", "not available for MySQL"]);
}
