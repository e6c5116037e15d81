//! `costlab-probe validate innodb`: WL#8737's single-table experiment on a real InnoDB.
//!
//! A private MariaDB server (Debian's `mariadb-server`: InnoDB, though its optimizer is not
//! MySQL 8's, so only forced plans are timed) in a directory of its own, stopped and removed
//! at the end whatever happens. A t1 shaped as the seed describes (pk, i1..i8, c1
//! CHAR(200); k1..k7 on i1..i7, uniformly random in 0..rows) is timed with the table
//! scan, the range scan on k7 and the range scan read through MRR (rowid-ordered) forced in
//! turn, over a grid of range fractions:
//!
//! - **in memory**: a buffer pool larger than the table, best-case warm runs (one discarded,
//!   then the median of `runs`);
//! - **disk-bound**: a buffer pool an eighth of the table, `innodb_flush_method = O_DIRECT`,
//!   the server restarted (and the OS page cache dropped, as root) before every run.
//!
//! The executor's figures (ns per row, per index entry, per operator, per page hit) and
//! the cold read figures are fitted on a calibration table of its own (`cal`, t1-shaped,
//! half the rows, other columns and ranges) and nothing else: every t1 time and both
//! switch points are predictions.

use crate::validate::{can_drop_os_cache, check, drop_os_cache};
use costlab_core::knobs::{EngineVersion, KnobValues};
use costlab_core::scenario_file::ScenarioFile;
use costlab_core::sim::MachineProfile;
use costlab_core::validation::{
    plan_sql, CacheState, CalibrationRun, ExecutorCalibration, PlanRun, QueryRuns, ValidationReport,
};
use costlab_core::workload::t1::{t1_like_sql, t1_like_table, InnodbSizes};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The model the forced plans are set beside: MySQL 8's InnoDB work counts.
const MODEL: EngineVersion = EngineVersion::Mysql80;

/// Fractions of t1 in the range (in memory): dense where WL#8737 found the switch (9 %).
pub const MEMORY_FRACTIONS: [f64; 10] =
    [0.001, 0.01, 0.03, 0.05, 0.07, 0.09, 0.11, 0.14, 0.17, 0.2];
/// Disk-bound: random 16 kB reads against a sequential scan switch far lower.
pub const DISK_FRACTIONS: [f64; 8] = [0.0001, 0.0003, 0.001, 0.002, 0.004, 0.007, 0.01, 0.02];

/// Bytes of one t1 row in InnoDB (measured here: 17,009 pages of 16 kB for 1 M rows, all
/// levels, and 993 pages per secondary index): for the disk-space check and default sizes.
const ROW_BYTES: f64 = 290.0 + 7.0 * 16.0;

pub struct Options {
    /// Directory of mariadbd and mariadb-install-db (default: /usr/sbin and /usr/bin).
    pub bin: Option<PathBuf>,
    pub dir: PathBuf,
    pub rows: u64,
    pub cal_rows: u64,
    pub runs: u32,
    pub cold_runs: u32,
    pub limit_s: f64,
    /// Disk-bound runs (restarts, O_DIRECT; dropping the OS page cache needs root).
    pub cold: bool,
    pub memory_fractions: Vec<f64>,
    pub disk_fractions: Vec<f64>,
}

/// The server's programs.
struct Programs {
    mariadbd: PathBuf,
    install_db: PathBuf,
    client: PathBuf,
}

fn programs(bin: Option<&Path>) -> Result<Programs, String> {
    let find = |name: &str, dirs: &[&str]| -> Option<PathBuf> {
        match bin {
            Some(b) => Some(b.join(name)).filter(|p| p.exists()),
            None => dirs
                .iter()
                .map(|d| Path::new(d).join(name))
                .find(|p| p.exists()),
        }
    };
    let missing = || {
        "no MariaDB server programs (mariadbd, mariadb-install-db, mariadb): install the \
         Debian package mariadb-server (or pass --mariadb-bin DIR)"
            .to_string()
    };
    Ok(Programs {
        mariadbd: find("mariadbd", &["/usr/sbin", "/usr/bin", "/usr/libexec"])
            .ok_or_else(missing)?,
        install_db: find("mariadb-install-db", &["/usr/bin", "/usr/sbin"]).ok_or_else(missing)?,
        client: find("mariadb", &["/usr/bin"]).ok_or_else(missing)?,
    })
}

/// A private MariaDB server: its data directory, socket and error log live in a temporary
/// directory that goes with it.
struct Server {
    progs: Programs,
    dir: tempfile::TempDir,
    child: Option<Child>,
    /// Running as root: the server runs as the `mysql` user (mariadbd refuses root).
    as_mysql: bool,
}

impl Server {
    fn install(progs: Programs, parent: &Path) -> Result<Server, String> {
        let dir = tempfile::Builder::new()
            .prefix("costlab-innodb-")
            .tempdir_in(parent)
            .map_err(|e| format!("{}: {e}", parent.display()))?;
        let as_mysql = rustix::process::geteuid().is_root();
        if as_mysql {
            let st = Command::new("chown")
                .args(["-R", "mysql:mysql"])
                .arg(dir.path())
                .status()
                .map_err(|e| format!("chown: {e}"))?;
            if !st.success() {
                return Err("chown to the mysql user failed (is mariadb-server installed?)".into());
            }
        }
        let s = Server {
            progs,
            dir,
            child: None,
            as_mysql,
        };
        if s.socket().as_os_str().len() > 100 {
            return Err(format!(
                "{}: too long for a socket path (pass a shorter --dir)",
                s.socket().display()
            ));
        }
        let mut cmd = Command::new(&s.progs.install_db);
        cmd.arg("--no-defaults")
            .arg(format!("--datadir={}", s.data().display()))
            .args(["--auth-root-authentication-method=normal", "--skip-test-db"]);
        if as_mysql {
            cmd.arg("--user=mysql");
        }
        let o = cmd
            .output()
            .map_err(|e| format!("mariadb-install-db: {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "mariadb-install-db failed: {}",
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            ));
        }
        Ok(s)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("sock")
    }

    /// Starts mariadbd with a buffer pool of `pool_bytes` and O_DIRECT, no buffer pool dump
    /// or load, and waits until it answers.
    fn start(&mut self, pool_bytes: u64) -> Result<(), String> {
        let mut cmd = Command::new(&self.progs.mariadbd);
        cmd.arg("--no-defaults")
            .arg(format!("--datadir={}", self.data().display()))
            .arg(format!("--socket={}", self.socket().display()))
            .arg(format!(
                "--pid-file={}",
                self.dir.path().join("pid").display()
            ))
            .arg(format!(
                "--log-error={}",
                self.dir.path().join("err.log").display()
            ))
            .arg(format!("--innodb-buffer-pool-size={pool_bytes}"))
            .args([
                "--skip-networking",
                "--innodb-flush-method=O_DIRECT",
                "--innodb-buffer-pool-load-at-startup=OFF",
                "--innodb-buffer-pool-dump-at-shutdown=OFF",
                "--innodb-flush-log-at-trx-commit=0",
                "--innodb-log-file-size=512M",
                "--innodb-stats-persistent=ON",
                "--skip-log-bin",
                "--performance-schema=OFF",
            ])
            // LOAD DATA INFILE reads only the server's own directory.
            .arg(format!("--secure-file-priv={}", self.dir.path().display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if self.as_mysql {
            cmd.arg("--user=mysql");
        }
        self.child = Some(cmd.spawn().map_err(|e| format!("start mariadbd: {e}"))?);
        let started = Instant::now();
        loop {
            if let Some(c) = self.child.as_mut() {
                if let Ok(Some(st)) = c.try_wait() {
                    self.child = None;
                    return Err(format!(
                        "mariadbd exited ({st}) at start: {}",
                        self.log_tail()
                    ));
                }
            }
            if self.socket().exists() && self.sql("SELECT 1").is_ok() {
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(120) {
                return Err(format!(
                    "mariadbd did not answer in 120 s: {}",
                    self.log_tail()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn log_tail(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("err.log"))
            .ok()
            .and_then(|t| {
                t.lines()
                    .rev()
                    .find(|l| l.contains("ERROR"))
                    .map(str::to_string)
            })
            .unwrap_or_default()
    }

    /// Stops the server (a clean shutdown: SIGTERM), killing it after 120 s.
    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = Command::new("kill")
                .args(["-TERM", &c.id().to_string()])
                .status();
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(120) {
                if let Ok(Some(_)) = c.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn restart(&mut self, pool_bytes: u64, drop_cache: bool) -> Result<(), String> {
        self.stop();
        if drop_cache {
            drop_os_cache()?;
        }
        self.start(pool_bytes)
    }

    /// Runs a script in one client session; its output rows (tab-separated, no header).
    fn sql(&self, script: &str) -> Result<String, String> {
        let mut child = Command::new(&self.progs.client)
            .arg(format!("--socket={}", self.socket().display()))
            .args(["-uroot", "--batch", "--skip-column-names"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("mariadb client: {e}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(script.as_bytes())
                .map_err(|e| format!("mariadb client: {e}"))?;
        }
        let o = child
            .wait_with_output()
            .map_err(|e| format!("mariadb client: {e}"))?;
        if !o.status.success() {
            return Err(String::from_utf8_lossy(&o.stderr).trim().to_string());
        }
        Ok(String::from_utf8_lossy(&o.stdout).into_owned())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One plan of the experiment: the model's key and how MariaDB is made to run it.
struct Forced {
    key: String,
    /// Index hint after the table name.
    hint: String,
    /// optimizer_switch for the session.
    switch: &'static str,
    /// What EXPLAIN must show (type, key, a word of Extra).
    expect: (&'static str, Option<String>, Option<&'static str>),
}

fn forced(key: &str) -> Result<Forced, String> {
    let mrr_off = "mrr=off";
    Ok(if key == "table_scan" {
        Forced {
            key: key.into(),
            hint: "USE INDEX ()".into(),
            switch: mrr_off,
            expect: ("ALL", None, None),
        }
    } else if let Some(ix) = key.strip_prefix("range:") {
        Forced {
            key: key.into(),
            hint: format!("FORCE INDEX ({ix})"),
            switch: mrr_off,
            expect: ("range", Some(ix.into()), None),
        }
    } else if let Some(ix) = key.strip_prefix("covering:") {
        Forced {
            key: key.into(),
            hint: format!("FORCE INDEX ({ix})"),
            switch: mrr_off,
            expect: ("range", Some(ix.into()), Some("Using index")),
        }
    } else if let Some(ix) = key.strip_prefix("dsmrr:") {
        Forced {
            key: key.into(),
            hint: format!("FORCE INDEX ({ix})"),
            switch: "mrr=on,mrr_cost_based=off,mrr_sort_keys=on",
            expect: ("range", Some(ix.into()), Some("Rowid-ordered scan")),
        }
    } else {
        return Err(format!("{key}: not a plan this validation forces"));
    })
}

/// The statement MariaDB runs for the model's `SELECT <list> FROM <t> WHERE ...`: the same
/// access with the plan's hint, aggregated so that no rows cross the socket (the model
/// counts no transfer to the client).
fn executed_sql(model_sql: &str, f: &Forced) -> Result<String, String> {
    let rest = model_sql
        .strip_prefix("SELECT ")
        .ok_or_else(|| format!("{model_sql}: not a SELECT"))?;
    let (list, rest) = rest
        .split_once(" FROM ")
        .ok_or_else(|| format!("{model_sql}: no FROM"))?;
    let (table, where_) = match rest.split_once(" WHERE ") {
        Some((t, w)) => (t, format!(" WHERE {w}")),
        None => (rest, String::new()),
    };
    let agg = if list == "*" {
        // The row's last integer column: every row is read whole, and the aggregate costs a
        // few ns where MAX over CHAR(200) cost about 80 ns a row (so a calibration scan
        // that aggregates every row would have charged it to each row of the workload).
        "COUNT(*), MAX(i8)".to_string()
    } else {
        format!("COUNT(*), MAX({list})")
    };
    Ok(format!("SELECT {agg} FROM {table} {}{where_}", f.hint))
}

/// A measured execution set of one plan: seconds of each run (`None`: past the limit) and
/// EXPLAIN's line.
struct Timed {
    seconds: Option<Vec<f64>>,
    explain: String,
    pool_requests: f64,
    pool_reads: f64,
}

/// Runs `executions` times in one session; the first `discard` are not kept.
fn time_plan(
    s: &Server,
    db: &str,
    model_sql: &str,
    f: &Forced,
    executions: u32,
    discard: u32,
    limit_s: f64,
) -> Result<Timed, String> {
    let sql = executed_sql(model_sql, f)?;
    let mut script = format!(
        "USE {db}; SET optimizer_switch = '{}'; SET max_statement_time = {limit_s}; \
         EXPLAIN {sql};\n\
         SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_read%';\n\
         SET profiling = 1; SET profiling_history_size = 100;\n",
        f.switch
    );
    for _ in 0..executions {
        script.push_str(&sql);
        script.push_str(";\n");
    }
    script.push_str("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_read%';\nSHOW PROFILES;\n");
    let out = match s.sql(&script) {
        Ok(o) => o,
        Err(e) if e.contains("max_statement_time") => {
            return Ok(Timed {
                seconds: None,
                explain: "(stopped at the limit)".into(),
                pool_requests: 0.0,
                pool_reads: 0.0,
            })
        }
        Err(e) => return Err(format!("{sql}: {e}")),
    };
    let lines: Vec<&str> = out.lines().collect();
    // EXPLAIN: id select_type table type possible_keys key key_len ref rows Extra.
    let explain = lines.first().copied().unwrap_or_default();
    let cols: Vec<&str> = explain.split('\t').collect();
    let (ty, key, extra) = (
        cols.get(3).copied().unwrap_or(""),
        cols.get(5).copied().unwrap_or(""),
        cols.get(9).copied().unwrap_or(""),
    );
    let ok = ty == f.expect.0
        && f.expect.1.as_deref().is_none_or(|k| k == key)
        && f.expect.2.is_none_or(|w| extra.contains(w));
    if !ok {
        return Err(format!(
            "forcing {} ran type {ty}, key {key}, {extra} ({sql})",
            f.key
        ));
    }
    let status = |name: &str| -> Vec<f64> {
        lines
            .iter()
            .filter_map(|l| {
                l.strip_prefix(name)?
                    .strip_prefix('\t')?
                    .trim()
                    .parse()
                    .ok()
            })
            .collect()
    };
    let requests = status("Innodb_buffer_pool_read_requests");
    let reads = status("Innodb_buffer_pool_reads");
    let delta = |v: &[f64]| match v {
        [a, b] => (b - a) / f64::from(executions.max(1)),
        _ => 0.0,
    };
    let durations: Vec<f64> = lines
        .iter()
        .filter_map(|l| {
            let mut c = l.splitn(3, '\t');
            let (_, d, q) = (c.next()?, c.next()?, c.next()?);
            q.starts_with("SELECT COUNT").then(|| d.parse().ok())?
        })
        .collect();
    if durations.len() != executions as usize {
        return Err(format!(
            "{sql}: {} profiles for {executions} executions",
            durations.len()
        ));
    }
    Ok(Timed {
        seconds: Some(durations[discard as usize..].to_vec()),
        explain: format!("{ty} {key} {extra}").trim().to_string(),
        pool_requests: delta(&requests),
        pool_reads: delta(&reads),
    })
}

fn median(v: &mut [f64]) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// Loads a t1-shaped table of `rows` rows and returns InnoDB's sizes of it.
fn load_t1_like(s: &Server, db: &str, name: &str, rows: u64) -> Result<InnodbSizes, String> {
    s.sql(&format!(
        "USE {db}; CREATE TABLE {name} (pk INT NOT NULL PRIMARY KEY, i1 INT NOT NULL, \
         i2 INT NOT NULL, i3 INT NOT NULL, i4 INT NOT NULL, i5 INT NOT NULL, i6 INT NOT NULL, \
         i7 INT NOT NULL, i8 INT NOT NULL, c1 CHAR(200)) ENGINE = InnoDB CHARSET = latin1;"
    ))?;
    // In batches of a million: one transaction of ten million rows is slow to undo-log.
    let batch = 1_000_000;
    let mut from = 0;
    while from < rows {
        let to = (from + batch).min(rows) - 1;
        // Uniformly random keys, as WL#8737's t1 had: each column and batch its own
        // seeded generator. (A permutation such as (seq * p) mod rows looked random but
        // put a key range's rows on an arithmetic progression of the clustered index, which
        // InnoDB's read-ahead and the CPU caches read far faster than random rows.)
        let cols: Vec<String> = (1..=7)
            .map(|k| format!("FLOOR(RAND({}) * {rows})", from / batch * 8 + k))
            .collect();
        s.sql(&format!(
            "USE {db}; INSERT INTO {name} SELECT seq + 1, {}, seq % 10, 'x' FROM seq_{from}_to_{to};",
            cols.join(", ")
        ))?;
        from = to + 1;
    }
    // Built after the load, as sorted index builds (the seed's table was loaded so too).
    let adds: Vec<String> = (1..=7).map(|i| format!("ADD INDEX k{i} (i{i})")).collect();
    s.sql(&format!(
        "USE {db}; ALTER TABLE {name} {}; ANALYZE TABLE {name};",
        adds.join(", ")
    ))?;
    let out = s.sql(&format!(
        "SELECT index_name, stat_name, stat_value FROM mysql.innodb_index_stats \
         WHERE database_name = '{db}' AND table_name = '{name}' \
         AND stat_name IN ('size', 'n_leaf_pages');"
    ))?;
    let mut sizes = InnodbSizes {
        clustered_pages: 0.0,
        secondary_pages: 0.0,
        clustered_leaf_pages: 0.0,
        secondary_leaf_pages: 0.0,
    };
    let mut secondary_leaves = Vec::new();
    for l in out.lines() {
        let c: Vec<&str> = l.split('\t').collect();
        let (Some(ix), Some(stat), Some(v)) = (c.first(), c.get(1), c.get(2)) else {
            continue;
        };
        let v: f64 = v.trim().parse().unwrap_or(0.0);
        match (*ix == "PRIMARY", *stat) {
            (true, "size") => sizes.clustered_pages = v,
            (true, "n_leaf_pages") => sizes.clustered_leaf_pages = v,
            (false, "size") => sizes.secondary_pages += v,
            (false, "n_leaf_pages") => secondary_leaves.push(v),
            _ => {}
        }
    }
    if sizes.clustered_pages <= 0.0 || secondary_leaves.len() != 7 {
        return Err(format!("{name}: InnoDB reported no index sizes ({out})"));
    }
    sizes.secondary_leaf_pages =
        secondary_leaves.iter().sum::<f64>() / secondary_leaves.len() as f64;
    Ok(sizes)
}

fn pages_bytes(sizes: &InnodbSizes) -> f64 {
    (sizes.clustered_pages + sizes.secondary_pages) * 16384.0
}

/// The disk-bound server's buffer pool: an eighth of t1, in whole MB, at least 8 MB.
fn disk_pool(sizes: &InnodbSizes) -> f64 {
    ((pages_bytes(sizes) / 8.0 / 1048576.0).ceil()).max(8.0) * 1048576.0
}

/// Runs the whole validation; the server and its directory are gone when this returns.
pub fn run(
    opts: &Options,
    mut profile: MachineProfile,
    cancel: &AtomicBool,
    progress: &dyn Fn(&str),
) -> Result<ValidationReport, String> {
    let progs = programs(opts.bin.as_deref())?;
    // The server reads with O_DIRECT: no page cache between the pool and the disk.
    profile.bypass_os_cache = true;
    let needed = (opts.rows + opts.cal_rows) as f64 * ROW_BYTES * 1.3 + 1.5e9;
    if let Some(free) = crate::validate::free_bytes(&opts.dir) {
        if free < needed {
            return Err(format!(
                "{} has {:.1} GB free; t1 of {} rows needs about {:.1} GB (pass --rows or \
                 --dir elsewhere)",
                opts.dir.display(),
                free / 1e9,
                opts.rows,
                needed / 1e9
            ));
        }
    }
    if opts.cold && !can_drop_os_cache() {
        return Err(
            "disk-bound runs drop the OS page cache, which needs root: run as root, or pass \
             --memory-only"
                .into(),
        );
    }
    progress("installing a private MariaDB server");
    let mut server = Server::install(progs, &opts.dir)?;
    // The load and the calibration run in a pool that holds everything.
    let table_bytes = (opts.rows + opts.cal_rows) as f64 * ROW_BYTES;
    let big_pool = ((table_bytes * 1.5).max(256e6) / 1048576.0).ceil() as u64 * 1048576;
    server.start(big_pool)?;
    let version = server.sql("SELECT version();")?.trim().to_string();
    let db = "costlab_validate";
    server.sql(&format!("CREATE DATABASE {db};"))?;
    progress(&format!("loading {} rows into cal", opts.cal_rows));
    let cal_sizes = load_t1_like(&server, db, "cal", opts.cal_rows)?;
    check(cancel)?;
    progress(&format!("loading {} rows into t1", opts.rows));
    let t1_sizes = load_t1_like(&server, db, "t1", opts.rows)?;
    check(cancel)?;
    // A slow shutdown purges the load's undo log and merges the change buffer, so no
    // background reads compete with the measured ones after later restarts (they made
    // cold lookups here 2 to 5x slower in the first minutes after a load).
    progress("settling the tables (slow shutdown)");
    server.sql("SET GLOBAL innodb_fast_shutdown = 0;")?;
    server.restart(big_pool, false)?;
    let mut t1 = t1_like_table(opts.rows as f64, &t1_sizes);
    t1.name = "t1".into();
    let mut cal = t1_like_table(opts.cal_rows as f64, &cal_sizes);
    cal.name = "cal".into();
    let mut scenario = ScenarioFile::new(MODEL, vec![t1, cal]);
    scenario.source = format!("{version}: mysql.innodb_index_stats after ANALYZE TABLE");
    let knobs = KnobValues::defaults(EngineVersion::Pg18, MODEL);

    let mut settings = BTreeMap::new();
    settings.insert("innodb_flush_method".to_string(), "O_DIRECT".to_string());
    settings.insert(
        "innodb_page_size".to_string(),
        server.sql("SELECT @@innodb_page_size;")?.trim().to_string(),
    );
    let mut report = ValidationReport::new(
        MODEL,
        version.clone(),
        settings,
        profile.clone(),
        opts.limit_s,
        scenario,
        vec![
            format!(
                "{version}: InnoDB's execution; the plans are forced (USE INDEX () for the \
                 table scan, FORCE INDEX for the range scans, optimizer_switch mrr for the \
                 rowid-ordered one) and set beside MySQL 8's work counts for the same access"
            ),
            "each statement runs as SELECT COUNT(*), MAX(i8) with the model's predicates, so \
             no rows cross the socket; times are the server's (SHOW PROFILES)"
                .into(),
        ],
    );
    report.tool = format!("costlab-probe {}", env!("CARGO_PKG_VERSION"));

    // Executor calibration on `cal`, in memory (pool holds everything).
    progress("calibrating the executor on cal");
    let cal_base = {
        let mut p = profile.clone();
        p.buffer_pool_bytes = big_pool as f64;
        p
    };
    let runs = calibrate(&mut server, db, opts, big_pool, cancel)?;
    let calibration = ExecutorCalibration {
        scenario: ScenarioFile::new(
            MODEL,
            report
                .scenario
                .tables
                .iter()
                .filter(|t| t.name == "cal")
                .cloned()
                .collect(),
        ),
        runs,
    };
    let fit = calibration
        .fit(&cal_base, MODEL, &knobs)
        .map_err(|e| format!("executor calibration: {e}"))?;
    report.base_profile = Some(profile.clone());
    report.executor = Some(fit.clone());
    report.executor_calibration = Some(calibration);
    let fitted = fit.apply(&profile);
    report.profile = fitted.clone();

    // In memory.
    let models: Vec<(f64, String)> = opts
        .memory_fractions
        .iter()
        .map(|&f| {
            Ok((
                f,
                t1_like_sql(opts.rows as f64, f).map_err(|e| e.to_string())?,
            ))
        })
        .collect::<Result<_, String>>()?;
    let mem_pool = big_pool;
    // One scan of t1 first: every page in the pool.
    progress("in memory: reading t1 into the buffer pool");
    time_plan(
        &server,
        db,
        "SELECT * FROM t1",
        &forced("table_scan")?,
        1,
        0,
        opts.limit_s.max(600.0),
    )?;
    for (f, sql) in &models {
        check(cancel)?;
        progress(&format!("in memory: {:.2} % of t1", 100.0 * f));
        let keys = model_keys(&report, sql, mem_pool as f64)?;
        let mut plans = Vec::new();
        for key in keys {
            let fo = forced(&key)?;
            let t = time_plan(&server, db, sql, &fo, opts.runs + 1, 1, opts.limit_s)?;
            plans.push(plan_run(&fo, t));
        }
        report.queries.push(QueryRuns {
            workload: "t1 in memory".into(),
            name: format!("k7 {:.2} %", 100.0 * f),
            sql: sql.clone(),
            cache: CacheState::Warm,
            server_choice: None,
            plans,
            dbt3: None,
        });
    }

    // Disk-bound: a pool an eighth of t1, restarted before every run.
    if opts.cold {
        let pool = disk_pool(&t1_sizes) as u64;
        report.server_settings.insert(
            "innodb_buffer_pool_size (disk-bound)".into(),
            pool.to_string(),
        );
        report.notes.push(format!(
            "disk-bound: innodb_buffer_pool_size {} MB (an eighth of t1's {:.0} MB), the \
             server restarted and the OS page cache dropped before each run",
            pool / 1048576,
            pages_bytes(&t1_sizes) / 1048576.0
        ));
        for &f in &opts.disk_fractions {
            let sql = t1_like_sql(opts.rows as f64, f).map_err(|e| e.to_string())?;
            progress(&format!("disk-bound: {:.2} % of t1", 100.0 * f));
            let keys = model_keys(&report, &sql, pool as f64)?;
            let mut plans = Vec::new();
            for key in keys {
                let fo = forced(&key)?;
                let mut times = Vec::new();
                let mut last = None;
                for _ in 0..opts.cold_runs.max(1) {
                    check(cancel)?;
                    server.restart(pool, true)?;
                    let t = time_plan(&server, db, &sql, &fo, 1, 0, opts.limit_s)?;
                    let past = t.seconds.is_none();
                    times.extend(t.seconds.iter().flatten().copied());
                    last = Some(t);
                    if past {
                        times.clear();
                        break;
                    }
                }
                let Some(mut t) = last else { continue };
                t.seconds = (!times.is_empty()).then_some(times);
                plans.push(plan_run(&fo, t));
            }
            report.queries.push(QueryRuns {
                workload: "t1 disk-bound".into(),
                name: format!("k7 {:.2} %", 100.0 * f),
                sql,
                cache: CacheState::Cold,
                server_choice: None,
                plans,
                dbt3: None,
            });
        }
        report.server_settings.insert(
            "innodb_buffer_pool_size (in memory)".into(),
            mem_pool.to_string(),
        );
    }
    server.stop();
    drop(server);

    // Simulated times and switch points: warm on the in-memory pool, cold on the
    // disk-bound one.
    let mut warm = fitted;
    warm.buffer_pool_bytes = mem_pool as f64;
    if opts.cold {
        report.cold_buffer_pool_bytes = Some(disk_pool(&t1_sizes));
    }
    report.simulate(&warm).map_err(|e| e.to_string())?;
    Ok(report)
}

/// The model's candidates among the plans this validation forces.
fn model_keys(report: &ValidationReport, sql: &str, pool: f64) -> Result<Vec<String>, String> {
    let knobs = report.knobs().map_err(|e| e.to_string())?;
    let planned =
        plan_sql(&report.scenario, sql, &knobs, MODEL, pool).map_err(|e| e.to_string())?;
    Ok(planned
        .candidates
        .iter()
        .map(|c| c.key.to_string())
        .filter(|k| k == "table_scan" || k == "range:k7" || k == "dsmrr:k7")
        .collect())
}

fn plan_run(f: &Forced, t: Timed) -> PlanRun {
    let mut runs = t.seconds.clone().unwrap_or_default();
    let real_s = t.seconds.and_then(|mut v| median(&mut v));
    runs.sort_by(f64::total_cmp);
    PlanRun {
        key: f.key.clone(),
        forced_with: vec![f.hint.clone(), format!("optimizer_switch {}", f.switch)],
        real_plan: t.explain,
        real_s,
        runs,
        shared_hit: t.pool_requests,
        shared_read: t.pool_reads,
        sim_s: 0.0,
        cost: 0.0,
        ..PlanRun::default()
    }
}

/// The executor's calibration on `cal` (half of t1's rows by default, loaded in the
/// same shape but read with other predicates): warm in the big pool, then two cold runs.
fn calibrate(
    server: &mut Server,
    db: &str,
    opts: &Options,
    pool: u64,
    cancel: &AtomicBool,
) -> Result<Vec<CalibrationRun>, String> {
    let n = opts.cal_rows;
    let warm: Vec<(&str, String, &str)> = vec![
        ("cal table scan", "SELECT * FROM cal".into(), "table_scan"),
        (
            "cal table scan 3 quals",
            "SELECT * FROM cal WHERE i1 >= 0 AND i2 >= 0 AND i3 >= 0".into(),
            "table_scan",
        ),
        (
            "cal covering k1",
            "SELECT i1 FROM cal WHERE i1 >= 0".into(),
            "covering:k1",
        ),
        (
            "cal range k2 (random lookups)",
            format!("SELECT * FROM cal WHERE i2 >= 0 AND i2 < {}", n / 5),
            "range:k2",
        ),
        (
            "cal range PRIMARY (in key order)",
            format!("SELECT * FROM cal WHERE pk >= 1 AND pk < {}", n / 2),
            "range:PRIMARY",
        ),
    ];
    let mut runs = Vec::new();
    for (name, sql, key) in warm {
        check(cancel)?;
        let f = forced(key)?;
        // Twice first: the pool holds the pages the plan reads.
        let t = time_plan(server, db, &sql, &f, opts.runs.max(3) + 2, 2, 600.0)?;
        let real_s = t
            .seconds
            .and_then(|mut v| median(&mut v))
            .ok_or_else(|| format!("{name}: ran past the limit"))?;
        runs.push(CalibrationRun {
            name: name.into(),
            sql,
            key: key.into(),
            cache: CacheState::Warm,
            real_s,
            forced_with: Vec::new(),
            real_plan: None,
        });
    }
    if opts.cold {
        // A sustained run of random reads (2 % of the rows, at least 2,000): on a virtual
        // disk the first few hundred random reads after a drop are faster than a long run
        // (here 85 us a read for 500 lookups, 138 us for 20,000, pool size alike), and
        // the workloads' lookups are long runs.
        let lo = n / 3;
        let span = (n / 50).max(2000);
        for (name, sql, key) in [
            (
                "cal table scan cold",
                "SELECT * FROM cal".to_string(),
                "table_scan",
            ),
            (
                "cal range k3 cold",
                format!("SELECT * FROM cal WHERE i3 >= {lo} AND i3 < {}", lo + span),
                "range:k3",
            ),
        ] {
            let f = forced(key)?;
            let mut times = Vec::new();
            for _ in 0..opts.cold_runs.max(1) {
                check(cancel)?;
                server.restart(pool, true)?;
                let t = time_plan(server, db, &sql, &f, 1, 0, 600.0)?;
                times.extend(t.seconds.into_iter().flatten());
            }
            let real_s = median(&mut times).ok_or_else(|| format!("{name}: no time"))?;
            runs.push(CalibrationRun {
                name: name.into(),
                sql,
                key: key.into(),
                cache: CacheState::Cold,
                real_s,
                forced_with: Vec::new(),
                real_plan: None,
            });
        }
        server.restart(pool, false)?;
    }
    Ok(runs)
}

#[cfg(test)]
#[path = "innodb_dbt3_tests.rs"]
mod dbt3_statistics;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn executed_statements_aggregate_and_carry_the_hint() {
        let f = forced("range:k7").unwrap();
        assert_eq!(
            executed_sql("SELECT * FROM t1 WHERE i7 > -1 AND i7 < 5 AND i8 = 2", &f).unwrap(),
            "SELECT COUNT(*), MAX(i8) FROM t1 FORCE INDEX (k7) WHERE i7 > -1 AND i7 < 5 AND i8 = 2"
        );
        let f = forced("covering:k1").unwrap();
        assert_eq!(
            executed_sql("SELECT i1 FROM cal WHERE i1 >= 0", &f).unwrap(),
            "SELECT COUNT(*), MAX(i1) FROM cal FORCE INDEX (k1) WHERE i1 >= 0"
        );
        let f = forced("table_scan").unwrap();
        assert_eq!(
            executed_sql("SELECT * FROM cal", &f).unwrap(),
            "SELECT COUNT(*), MAX(i8) FROM cal USE INDEX ()"
        );
        assert!(forced("bitmap:k7").is_err());
    }
}
