//! The probe binary end to end: a quick run on a small file, the file safety rules, Ctrl-C,
//! and the PostgreSQL experiment against a private server.

use costlab_core::calibration::Calibration;
use costlab_testpg::PgServer;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn probe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_costlab-probe"))
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A quick run with a small file and a short budget writes a file the playground accepts,
/// and leaves nothing but that file behind.
fn quick_calibration(dir: &Path, out: &Path, seconds: &str) -> Calibration {
    let t = Instant::now();
    let o = probe()
        .args([
            "--quick",
            "--size",
            "64M",
            "--max-seconds",
            seconds,
            "--dir",
        ])
        .arg(dir)
        .arg("--out")
        .arg(out)
        .output()
        .expect("run costlab-probe");
    assert!(
        o.status.success(),
        "costlab-probe failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    println!(
        "quick run: {:.1} s\n{}",
        t.elapsed().as_secs_f64(),
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(out).expect("the calibration file was written");
    Calibration::from_json(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn quick_run_writes_a_calibration_the_playground_loads() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("cal.json");
    let t = Instant::now();
    let cal = quick_calibration(dir.path(), &out, "4");
    println!("quick run with a 4 s budget: {:?}", t.elapsed());
    let profile = cal.to_profile().expect("a valid machine profile");
    profile.validate().unwrap();
    assert!(cal.method.quick && cal.method.warmup_discarded);
    assert_eq!(cal.random_reads.len(), 2);
    assert!(cal.random_reads.iter().all(|s| s.points.len() == 6));
    assert!(cal.ratios.random_over_seq_8k.median > 0.0);
    assert!(entries(dir.path()).is_empty(), "the test file was removed");
    assert_eq!(entries(out_dir.path()), ["cal.json"]);
}

#[test]
fn refuses_a_file_it_did_not_create() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = dir.path().join("data.bin");
    std::fs::write(&foreign, vec![1u8; 1 << 20]).unwrap();
    let o = probe()
        .args(["--quick", "--max-seconds", "3", "--file"])
        .arg(&foreign)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("did not create it") && err.contains("--reuse"),
        "{err}"
    );
    assert_eq!(std::fs::read(&foreign).unwrap(), vec![1u8; 1 << 20]);
    assert_eq!(entries(dir.path()), ["data.bin"]);
}

#[test]
fn ctrl_c_removes_the_test_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = probe()
        .args(["--size", "128M", "--max-seconds", "30", "--dir"])
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while entries(dir.path()).is_empty() && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let names = entries(dir.path());
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].starts_with("costlab-probe-") && names[0].ends_with(".dat"));
    std::thread::sleep(Duration::from_millis(800));
    // SAFETY: kill with a pid we spawned and a valid signal number.
    unsafe { libc_kill(child.id() as i32, 2) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(
        entries(dir.path()).is_empty(),
        "the test file was removed on Ctrl-C"
    );
}

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}

#[test]
fn postgres_experiment_drops_its_schema() {
    let server = PgServer::start();
    let dir = tempfile::tempdir().unwrap();
    let t = Instant::now();
    let out = dir.path().join("pg.json");
    let o = probe()
        .args([
            "postgres",
            "--dsn",
            &server.dsn(),
            "--rows",
            "200000",
            "--repetitions",
            "3",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    println!(
        "postgres experiment: {:.1} s\n{err}",
        t.elapsed().as_secs_f64()
    );
    let text = std::fs::read_to_string(&out).unwrap();
    println!("{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["rows"], 200000);
    let (rows, pages) = (200000.0, v["pages"].as_f64().unwrap());
    assert!(pages > 5000.0, "{pages}");
    let est = |k: &str| {
        let e = &v[k];
        let (m, lo, hi) = (
            e["median"].as_f64().unwrap(),
            e["lo"].as_f64().unwrap(),
            e["hi"].as_f64().unwrap(),
        );
        assert_eq!(e["runs"], 3, "{k}: one figure per measured block");
        assert!(0.0 < lo && lo <= m && m <= hi && hi.is_finite(), "{k}: {e}");
        (m, lo, hi)
    };
    let (seq_ms, idx_ms) = (est("seq_scan_ms").0, est("index_scan_ms").0);
    let (rpc, rpc_lo, rpc_hi) = est("random_page_cost");
    // The ratio is the seed's formula over the probe's own times. It is the median of the
    // per-block ratios, not the ratio of the medians, but with an odd number of blocks the
    // ratio of the medians lies between the smallest and the largest per-block ratio (some
    // block has a seq time at most the median and an index time at least the median, and
    // some block the reverse), and with three blocks the bootstrap interval reaches both.
    let of_medians = idx_ms * pages / (seq_ms * rows);
    let slack = 1e-9 * of_medians;
    assert!(
        rpc_lo - slack <= of_medians && of_medians <= rpc_hi + slack,
        "T(idx) {idx_ms} ms × P {pages} / (T(seq) {seq_ms} ms × N {rows}) = {of_medians}, \
         outside the reported random_page_cost [{rpc_lo}, {rpc_hi}] (median {rpc})"
    );
    // N random heap visits in key order take longer than reading the P pages once in
    // order, cached or not: T(idx) > T(seq), i.e. the ratio exceeds P / N.
    assert!(
        idx_ms > seq_ms && rpc > pages / rows,
        "index scan {idx_ms} ms, seq scan {seq_ms} ms, ratio {rpc}"
    );
    // What the caches held is said, not hidden: before PostgreSQL 17 shared_buffers cannot
    // be emptied; the server is on this machine, so the OS page cache is dropped.
    let major: u32 = v["server_version"]
        .as_str()
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let eviction = v["cache_eviction"].as_str().unwrap();
    assert_eq!(
        eviction.contains("shared_buffers could not be emptied"),
        major < 17,
        "PostgreSQL {major}: {eviction}"
    );
    assert!(
        eviction.contains("OS page cache of the table's and index's"),
        "{eviction}"
    );
    let notes = v["notes"].to_string();
    assert!(notes.contains("shared_buffers hits"), "{notes}");

    let mut c = server.connect();
    let left: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'costlab_probe_%'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(left, 0, "the probe's schema was dropped");
    let ext: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_extension WHERE extname = 'pg_buffercache'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(ext, 0, "nothing left behind");

    // --into adds the section to a calibration file, which still loads.
    let cal_path = dir.path().join("cal.json");
    let scratch = tempfile::tempdir().unwrap();
    quick_calibration(scratch.path(), &cal_path, "3");
    let o = probe()
        .args([
            "postgres",
            "--dsn",
            &server.dsn(),
            "--rows",
            "20000",
            "--repetitions",
            "1",
            "--into",
        ])
        .arg(&cal_path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cal = Calibration::from_json(&std::fs::read_to_string(&cal_path).unwrap()).unwrap();
    let pg = cal.postgres.as_ref().expect("the postgres section");
    assert!(pg.random_page_cost.median > 0.0);
    cal.to_profile().unwrap();

    // A failing run (a table that cannot be built) still drops the schema.
    let o = probe()
        .args(["postgres", "--dsn", &server.dsn(), "--rows", "10"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let left: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'costlab_probe_%'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(left, 0);
}

/// `compare`: a file agrees with itself (exit 0); a copy with one figure moved far out of
/// its interval does not (exit 3), and the table names it.
#[test]
fn compare_two_calibration_files() {
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../static/calibration/this-ci-machine.json"
    );
    let o = probe().args(["compare", sample, sample]).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("intervals overlap 19/19"), "{text}");

    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sample).unwrap()).unwrap();
    let m = &mut v["seq_read"]["large"]["mbps"];
    let hi = m["hi"].as_f64().unwrap();
    for (k, f) in [("median", 3.0), ("lo", 2.0), ("hi", 4.0)] {
        m[k] = (hi * f).into();
    }
    let dir = tempfile::tempdir().unwrap();
    let moved = dir.path().join("moved.json");
    std::fs::write(&moved, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let o = probe()
        .args(["compare", sample])
        .arg(&moved)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(3), "{text}");
    assert!(text.contains("intervals overlap 18/19"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("seq_read.large") && l.contains("NO")),
        "{text}"
    );
    // --all adds latencies and ratios; a broken file is an error (exit 1).
    let o = probe()
        .args([
            "compare",
            "--all",
            "--criterion",
            "difference",
            sample,
            sample,
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("p99 µs"));
    std::fs::write(&moved, "{").unwrap();
    let o = probe()
        .args(["compare", sample])
        .arg(&moved)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}

/// `io`: one configuration with the probe's own loops on an existing file, read only.
#[test]
fn io_runs_one_configuration_and_only_reads() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("data.bin");
    let data: Vec<u8> = (0..(1u32 << 20)).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&f, &data).unwrap();
    let run = |args: &[&str]| {
        probe()
            .args(["io", "--file"])
            .arg(&f)
            .args(args)
            .args(["--seconds", "0.1", "--ramp", "0.02"])
            .output()
            .unwrap()
    };
    let o = run(&["--rw", "randread", "--bs", "8k", "--qd", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["iops"].as_f64().unwrap() > 0.0, "{v}");
    assert!(v["p50_us"].as_f64().unwrap() <= v["p99_us"].as_f64().unwrap());
    assert_eq!((v["bs"].as_u64(), v["qd"].as_u64()), (Some(8192), Some(2)));
    let o = run(&["--rw", "read", "--bs", "1m"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["mbps"].as_f64().unwrap() > 0.0);
    for bad in [
        &["--rw", "read", "--bs", "8k", "--qd", "4"][..],
        &["--rw", "write", "--bs", "8k"],
        &["--rw", "randread", "--bs", "1000"],
        &["--rw", "randread", "--bs", "2m"],
    ] {
        assert_eq!(run(bad).status.code(), Some(1), "{bad:?}");
    }
    assert_eq!(std::fs::read(&f).unwrap(), data, "the file was only read");
    assert_eq!(entries(dir.path()), ["data.bin"]);
}
