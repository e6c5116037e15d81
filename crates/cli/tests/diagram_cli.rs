//! `costlab dbt3 --diagram`: plan diagrams and the flip map, checked against the table
//! command on the same scenario (every boundary tested lies where `costlab dbt3 --query`
//! changes plan), and one-line errors for bad axes.

use serde_json::Value;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_costlab"))
        .args(args)
        .output()
        .expect("run the costlab binary")
}

#[track_caller]
fn ok(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[track_caller]
fn fails(args: &[&str], want: &[&str]) {
    let o = run(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for w in want {
        assert!(err.contains(w), "{err:?} lacks {w:?}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

/// The seed's disk-bound server (mrr_cost_based off, BKA on) for MySQL's Q8.
const Q8_DISK: [&str; 12] = [
    "dbt3",
    "--engine",
    "mysql",
    "--profile",
    "wl8737-disk",
    "--set",
    "mrr_cost_based=0",
    "--batched-key-access",
    "on",
    "--query",
    "8",
    "--json",
];

/// The signature of the plan `costlab dbt3` chooses for Q8 with these constants.
fn q8_signature(io: f64, mem: f64) -> String {
    let io = format!("io_block_read_cost={io}");
    let mem = format!("memory_block_read_cost={mem}");
    let mut args = Q8_DISK.to_vec();
    args.extend(["--set", &io, "--set", &mem]);
    let v: Value = serde_json::from_str(&ok(&run(&args))).unwrap();
    v["rows"][0]["current"]["signature"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Q8 over io_block_read_cost x memory_block_read_cost: the diagram's cells are the table
/// command's plans, and its boundaries lie where the table command's plan changes: just
/// before a boundary the `from` plan, just after it the `to` plan.
#[test]
fn q8_diagram_boundaries_are_where_the_table_command_changes_plan() {
    let mut args = Q8_DISK.to_vec();
    args.extend([
        "--diagram",
        "io_block_read_cost=0.5:4",
        "--diagram",
        "memory_block_read_cost=0.1:1",
        "--grid",
        "12x10",
    ]);
    let v: Value = serde_json::from_str(&ok(&run(&args))).unwrap();
    let d = &v["diagrams"][0]["diagram"];
    assert_eq!(v["diagrams"][0]["query"], 8);
    let xs: Vec<f64> = serde_json::from_value(d["x"]["values"].clone()).unwrap();
    let ys: Vec<f64> = serde_json::from_value(d["y"]["values"].clone()).unwrap();
    assert_eq!((xs.len(), ys.len()), (12, 10));
    let plans = d["plans"].as_array().unwrap();
    let sig = |id: &Value| {
        plans[id.as_u64().unwrap() as usize]["signature"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(
        plans.len() >= 3,
        "Q8 changes plan more than once here: {plans:?}"
    );
    // Cells at the corners and the middle.
    let cells = d["cells"].as_array().unwrap();
    for (r, c) in [(0, 0), (9, 11), (0, 11), (9, 0), (5, 6)] {
        let cell = &cells[r * 12 + c];
        assert_eq!(
            sig(&cell["plan"]),
            q8_signature(xs[c], ys[r]),
            "cell {r},{c}"
        );
    }
    let bounds = d["boundaries"].as_array().unwrap();
    assert!(bounds.len() >= 10, "{}", bounds.len());
    // Every third boundary (both axes), against the table command on either side.
    let mut checked = [0, 0];
    for b in bounds.iter().step_by(3) {
        let at = b["at"].as_f64().unwrap();
        let (row, col) = (
            b["row"].as_u64().unwrap() as usize,
            b["col"].as_u64().unwrap() as usize,
        );
        let (before, after) = (at * (1.0 - 1e-4), at * (1.0 + 1e-4));
        let axis = b["axis"].as_u64().unwrap() as usize;
        let (s0, s1) = if axis == 0 {
            assert!(xs[col] < at && at <= xs[col + 1], "{b}");
            (q8_signature(before, ys[row]), q8_signature(after, ys[row]))
        } else {
            assert!(ys[row] < at && at <= ys[row + 1], "{b}");
            (q8_signature(xs[col], before), q8_signature(xs[col], after))
        };
        assert_eq!(s0, sig(&b["from"]), "before {b}");
        assert_eq!(s1, sig(&b["to"]), "after {b}");
        checked[axis] += 1;
    }
    assert!(checked[0] >= 2 && checked[1] >= 2, "{checked:?}");
    // The reduction keeps at least one plan and no more than the diagram has.
    let kept = d["reduction"]["plans"].as_array().unwrap().len();
    let in_cells = plans
        .iter()
        .filter(|p| p["cells"].as_u64().unwrap() > 0)
        .count();
    assert!(kept >= 1 && kept <= in_cells, "{kept} of {in_cells}");
}

/// The flip map of the seed's in-memory server over memory_block_read_cost: Q6 and Q12
/// take their range scans between 0.5 and 1.0 (the seed: at 0.5), Q7 changes join order
/// between 0.2 and 0.5 (the seed: at 0.2), and Q1's switch is the capped range's, just
/// below 0.2035 (`q1_takes_the_capped_range_just_below_0_2035` in dbt3_cli.rs).
#[test]
fn flip_map_places_the_seed_flips() {
    let v: Value = serde_json::from_str(&ok(&run(&[
        "dbt3",
        "--engine",
        "mysql",
        "--profile",
        "wl8737-memory",
        "--diagram",
        "memory_block_read_cost=0.1:1",
        "--grid",
        "20",
        "--format",
        "json",
    ])))
    .unwrap();
    let diagrams = v["diagrams"].as_array().unwrap();
    assert_eq!(diagrams.len(), 22);
    let switches = |q: u64| -> Vec<f64> {
        let d = diagrams.iter().find(|d| d["query"] == q).unwrap();
        d["diagram"]["boundaries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["at"].as_f64().unwrap())
            .collect()
    };
    for q in [6, 12] {
        let s = switches(q);
        assert_eq!(s.len(), 1, "Q{q}: {s:?}");
        assert!(s[0] > 0.5 && s[0] < 1.0, "Q{q}: {s:?}");
    }
    let s7 = switches(7);
    assert_eq!(s7.len(), 1, "{s7:?}");
    assert!(s7[0] > 0.2 && s7[0] < 0.5, "{s7:?}");
    let s1 = switches(1);
    assert_eq!(s1.len(), 1, "{s1:?}");
    assert!(s1[0] > 0.203 && s1[0] < 0.204, "{s1:?}");
    for q in [2, 3, 4, 5, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 21, 22] {
        assert!(switches(q).is_empty(), "Q{q} changes: {:?}", switches(q));
    }
}

/// Text, CSV and SVG of one diagram agree on its size and plans.
#[test]
fn text_csv_and_svg_of_a_postgres_diagram() {
    let base = [
        "dbt3",
        "--engine",
        "postgres",
        "--sf",
        "1",
        "--query",
        "12",
        "--diagram",
        "random_page_cost=1:8",
        "--diagram",
        "effective_cache_size=128MB:64GB",
        "--grid",
        "16x8",
    ];
    let text = ok(&run(&base));
    assert!(
        text.contains("x: random_page_cost from 1 to 8 (16 values, log-spaced)"),
        "{text}"
    );
    assert!(
        text.contains("y: effective_cache_size from 128MB to 64GB"),
        "{text}"
    );
    // Eight rows of sixteen letters.
    let rows: Vec<&str> = text.lines().filter(|l| l.contains(" |")).collect();
    assert_eq!(rows.len(), 8, "{text}");
    assert!(rows
        .iter()
        .all(|r| r.split('|').nth(1).unwrap().len() == 16));
    // effective_cache_size is not a cost constant: no plan's cost is carried elsewhere.
    assert!(text.contains("without a known cost elsewhere"), "{text}");
    let mut args = base.to_vec();
    args.extend(["--format", "csv"]);
    let csv = ok(&run(&args));
    assert_eq!(csv.lines().count(), 1 + 16 * 8);
    assert!(
        csv.starts_with("query,random_page_cost,effective_cache_size,plan,"),
        "{csv}"
    );
    let mut args = base.to_vec();
    args.extend(["--format", "svg"]);
    let svg = ok(&run(&args));
    assert!(svg.starts_with("<svg"), "{svg}");
    // One rect per cell and one per legend entry.
    let plans = text.lines().filter(|l| l.contains(" cells ")).count();
    assert_eq!(svg.matches("<rect").count(), 16 * 8 + plans);
}

#[test]
fn bad_diagrams_are_one_line_errors() {
    let base = ["dbt3", "--engine", "mysql", "--query", "8"];
    let with = |extra: &[&'static str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        a
    };
    fails(
        &[
            "dbt3",
            "--engine",
            "mysql",
            "--diagram",
            "io_block_read_cost=1:2",
            "--diagram",
            "memory_block_read_cost=0.1:1",
        ],
        &["--query"],
    );
    fails(
        &with(&["--diagram", "random_page_cost=1:4"]),
        &["random_page_cost", "no effect on MySQL"],
    );
    fails(
        &with(&["--diagram", "io_block_read_cost=2:1"]),
        &["io_block_read_cost", "below"],
    );
    fails(&with(&["--diagram", "io_block_read_cost=1"]), &["LO:HI"]);
    fails(
        &with(&["--diagram", "io_block_read_cost=x:2"]),
        &["io_block_read_cost"],
    );
    fails(&with(&["--diagram", "mrr_cost_based=0:1"]), &["switch"]);
    fails(&with(&["--diagram", "no_such_knob=0:1"]), &["no_such_knob"]);
    fails(
        &with(&["--diagram", "io_block_read_cost=1:2", "--grid", "1"]),
        &["--grid"],
    );
    fails(
        &with(&["--diagram", "io_block_read_cost=1:2", "--grid", "300x2"]),
        &["--grid"],
    );
    fails(
        &with(&[
            "--diagram",
            "io_block_read_cost=1:2",
            "--diagram",
            "io_block_read_cost=1:3",
        ]),
        &["two different knobs"],
    );
    fails(
        &with(&[
            "--diagram",
            "io_block_read_cost=1:2",
            "--diagram",
            "row_evaluate_cost=0.1:1",
            "--diagram",
            "key_compare_cost=0.1:1",
        ]),
        &["at most two"],
    );
}

/// `costlab simulate --workload t1 --diagram`: t1's plan diagram over the fraction of rows
/// and a knob, checked against `costlab simulate --fraction` at the same points: the plan
/// on each side of every boundary along the fraction, and the regret of cells (the time
/// the chosen plan loses against the fastest candidate there). Bad axes are one-line
/// errors.
#[test]
fn t1_diagram_agrees_with_simulate_at_its_points() {
    let base = [
        "simulate",
        "--workload",
        "t1",
        "--engine",
        "mysql",
        "--profile",
        "wl8737-memory",
    ];
    let mut args = base.to_vec();
    args.extend([
        "--diagram",
        "fraction=0:0.2",
        "--diagram",
        "memory_block_read_cost=0.1:1",
        "--grid",
        "21x5",
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_str(&ok(&run(&args))).unwrap();
    let d = &v["diagrams"][0]["diagram"];
    let plans: Vec<&str> = d["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["signature"].as_str().unwrap())
        .collect();
    let xs: Vec<f64> = serde_json::from_value(d["x"]["values"].clone()).unwrap();
    let ys: Vec<f64> = serde_json::from_value(d["y"]["values"].clone()).unwrap();
    let at = |f: f64, m: f64| -> (String, f64) {
        let (f, m) = (f.to_string(), format!("memory_block_read_cost={m}"));
        let mut a = base.to_vec();
        a.extend(["--fraction", &f, "--set", &m, "--json"]);
        let s: Value = serde_json::from_str(&ok(&run(&a))).unwrap();
        (
            s["chosen"].as_str().unwrap().to_string(),
            s["regret_s"].as_f64().unwrap(),
        )
    };
    // Along the knob the two plans' costs are straight lines: one crossing, checked on
    // both sides. (Along the fraction MySQL's range estimate is jagged, so near a switch
    // the choice flickers every few 1e-5 of the rows: there the cells are checked.)
    let along: Vec<&Value> = d["boundaries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["axis"] == 1)
        .collect();
    assert!(along.len() >= 3, "{along:?}");
    for b in along {
        let f = xs[b["col"].as_u64().unwrap() as usize];
        let m = b["at"].as_f64().unwrap();
        let from = plans[b["from"].as_u64().unwrap() as usize];
        let to = plans[b["to"].as_u64().unwrap() as usize];
        assert_eq!(at(f, m * (1.0 - 1e-5)).0, from, "below {m} at {f}");
        assert_eq!(at(f, m * (1.0 + 1e-5)).0, to, "above {m} at {f}");
    }
    let cells = d["cells"].as_array().unwrap();
    for (c, &x) in xs.iter().enumerate() {
        let cell = &cells[2 * xs.len() + c];
        assert_eq!(
            plans[cell["plan"].as_u64().unwrap() as usize],
            at(x, ys[2]).0,
            "{x}"
        );
    }
    for (r, c) in [(4, 20), (4, 10), (0, 20), (2, 15)] {
        let cell = &cells[r * xs.len() + c];
        let (plan, regret) = at(xs[c], ys[r]);
        assert_eq!(plans[cell["plan"].as_u64().unwrap() as usize], plan);
        let got = cell["regret_s"].as_f64().unwrap();
        assert!(
            (got - regret).abs() <= 1e-9 * regret.max(1e-9),
            "{got} vs {regret}"
        );
    }
    let with = |extra: &[&'static str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        a
    };
    fails(
        &with(&["--diagram", "fraction=0.3:0.1"]),
        &["fraction", "0.3"],
    );
    fails(
        &with(&["--diagram", "random_page_cost=1:4", "--fraction", "0.1"]),
        &["random_page_cost", "MySQL"],
    );
    fails(
        &with(&["--diagram", "memory_block_read_cost=0.1:1"]),
        &["--fraction"],
    );
    fails(
        &with(&["--diagram", "fraction=0:0.2", "--fraction", "0.1"]),
        &["--fraction"],
    );
}
