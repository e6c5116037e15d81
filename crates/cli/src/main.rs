//! `costlab`: the command line over costlab's core.
//!
//! Every failure is one line on stderr; the exit code is 2 for a wrong command line and 1 for
//! any other error. See `costlab --help`.

use clap::{Args, Parser, Subcommand};
use costlab::engines::{self, Setup};
use costlab::import::{import_postgres, one_line, ImportOptions};
use costlab::simulate::{self, Machine, Planner};
use costlab_core::knobs::{Engine, Knob, KnobValues};
use costlab_core::plan::Detail;
use costlab_core::query::Query;
use costlab_core::scenario::{InnodbCacheReport, Scenario, ServerSettings};
use costlab_core::scenario_file::{ScenarioFile, MAX_BYTES};
use costlab_core::sim::{builtin, MachineProfile};
use costlab_core::sweep::{self, Spacing};
use costlab_core::workload::t1;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

// mimalloc: the planners allocate much (see crates/alloc).
#[global_allocator]
static ALLOCATOR: costlab_alloc::Mimalloc = costlab_alloc::Mimalloc;

#[derive(Parser)]
#[command(
    name = "costlab",
    version,
    about = "What does the optimizer believe? Cost models of PostgreSQL and MySQL over scenario files.",
    after_help = "Every failure prints one line on stderr and exits with 2 (command line) or 1 (other errors)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read a table's statistics and settings from a live server into a scenario file.
    Import {
        #[command(subcommand)]
        source: ImportSource,
    },
    /// Plan a query with an engine's model and print the chosen plan (or all candidates).
    Explain(ExplainArgs),
    /// Vary a constant of the query (or a knob) and print where the chosen plan changes.
    Sweep(SweepArgs),
    /// Time every candidate plan of a query on a machine profile: which plan the engine
    /// chooses, which is fastest, and the time the choice loses.
    Simulate(SimulateArgs),
    /// Fit one cost constant (or a pair) so that the engine's choices lose the least
    /// simulated time over a sweep of queries.
    Fit(FitArgs),
    /// Plan DBT3's 22 queries under a baseline and under the current constants, time each
    /// plan on a machine profile and print which plans change and what that costs.
    Dbt3(Dbt3Args),
    /// Plan your own queries over a scenario file's tables (`costlab import`) under a
    /// baseline and under the current constants, time each plan on a machine profile and
    /// print which plans change: the table of the page's "your workload" view.
    Workload(Dbt3Args),
    /// The third seed's workload: TPROC-H-like tables with fgeo() and fnorm() at COST 5000
    /// and four indexes on them. Each query shape is planned stock and with the "ORDER BY
    /// value handed up" series and timed on a machine profile, its change beside the seed's;
    /// then the closed-loop mix's throughput at the seed's shares of positive queries.
    Ordering(OrderingArgs),
    /// Convert between playground links and JSON link files (for generated documentation).
    Url {
        #[command(subcommand)]
        action: UrlAction,
    },
}

#[derive(Args)]
struct OrderingArgs {
    /// Scale factor of the TPROC-H-like tables (the seed ran 30).
    #[arg(long, default_value_t = 30.0)]
    sf: f64,
    /// PostgreSQL release to model (15..18).
    #[arg(long = "release", value_name = "RELEASE", default_value = "18")]
    release: String,
    /// Built-in machine profile (see costlab simulate --list-profiles).
    #[arg(long, default_value = "seed-nvme", conflicts_with = "profile_file")]
    profile: String,
    /// A machine profile file (costlab-probe writes one) instead of a built-in one.
    #[arg(long, value_name = "FILE")]
    profile_file: Option<PathBuf>,
    /// Override a knob (cpu_operator_cost=0.005, ...); repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    sets: Vec<String>,
    /// Virtual users of the mix (the seed: 96).
    #[arg(long, default_value_t = 96)]
    users: u32,
    /// Cores of the server (the seed: 96 vCPU).
    #[arg(long, default_value_t = 96)]
    cores: u32,
    /// Print each shape's plans, stock and with the series.
    #[arg(long)]
    plans: bool,
    /// The functions' declared cost (pg_proc.procost; the seed: 5000). What a call takes
    /// stays the measured 2.5 µs: the planner's belief moves, the body does not.
    #[arg(long, default_value_t = 5000.0)]
    function_cost: f64,
    /// Print the shapes and the mix at w = 0, 0.05, ..., 1 as JSON.
    #[arg(long)]
    json: bool,
    /// Also write the workload as a scenario file (its tables at --sf, fgeo() and fnorm()
    /// with their cost, the shapes' queries) for costlab explain --series and costlab
    /// workload.
    #[arg(long, value_name = "FILE")]
    write_scenario: Option<PathBuf>,
}

#[derive(Subcommand)]
enum UrlAction {
    /// Read a playground link (or just its `#...` fragment) and print it as a JSON link file;
    /// parts the page would reject are reported, one line each, on stderr.
    Decode {
        link: String,
        /// Also print the switch points the page shows for this scenario.
        #[arg(long)]
        switches: bool,
    },
    /// Read a JSON link file (a path, or - for stdin) and print the link.
    Encode {
        file: String,
        /// Address of the playground to put before the fragment.
        #[arg(long, default_value = "")]
        base: String,
    },
}

#[derive(Subcommand)]
enum ImportSource {
    /// From PostgreSQL: pg_class, pg_stats, indexes (with pageinspect for tree heights),
    /// cost settings and the server version.
    Postgres {
        /// libpq-style "host=... port=... user=... dbname=..." or a postgresql:// URL.
        #[arg(long)]
        dsn: String,
        /// Table to import (`name` or `schema.name`); repeat for several.
        #[arg(long = "table", required_unless_present = "schemas")]
        tables: Vec<String>,
        /// Import every table of this schema (after any --table); repeatable.
        #[arg(long = "schema", value_name = "SCHEMA")]
        schemas: Vec<String>,
        /// Write the scenario here (atomically) instead of to stdout.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Count rows exactly (reads the whole table) instead of using the planner's estimate.
        #[arg(long)]
        count_rows: bool,
        /// Keep pg_stats' histogram ends; by default the ends of numeric and date columns that
        /// lead a btree are replaced by the actual min/max, which is what the planner reads
        /// (get_actual_variable_range).
        #[arg(long)]
        raw_histograms: bool,
    },
}

#[derive(Args)]
struct Common {
    /// postgres or mysql.
    #[arg(long)]
    engine: String,
    /// Scenario file (costlab import writes one).
    #[arg(long)]
    scenario: PathBuf,
    /// Override a knob: name=value (engine parameter name or URL key); PostgreSQL's values
    /// as SET reads them (work_mem=64MB, effective_cache_size=4GB; a bare number is in the
    /// parameter's base unit: kB for work_mem, 8kB pages for effective_cache_size);
    /// repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    sets: Vec<String>,
    /// PostgreSQL: turn off plan types as `SET enable_x = off` does (seqscan, indexscan,
    /// indexonlyscan, bitmapscan, sort; for joins also hashjoin, mergejoin, nestloop,
    /// material, memoize, hashagg); comma-separated or repeated.
    #[arg(long, value_delimiter = ',')]
    disable: Vec<String>,
    /// MySQL: innodb_buffer_pool_size in MB.
    #[arg(long)]
    buffer_pool_mb: Option<f64>,
    /// Release to model (15..18 for PostgreSQL; 5.7, 8.0, 8.4 for MySQL); default: the
    /// scenario's release, else the newest.
    #[arg(long = "release", value_name = "RELEASE", alias = "engine-version")]
    release: Option<String>,
    /// PostgreSQL: plan with the "ORDER BY value handed up" series (the third seed's patch
    /// set) instead of stock: same costs, but an ordering index scan hands its value up and
    /// an index-only scan may return an indexed expression.
    #[arg(long)]
    series: bool,
}

#[derive(Args)]
struct ExplainArgs {
    #[command(flatten)]
    common: Common,
    /// The query; default: the scenario's query.
    #[arg(long)]
    query: Option<String>,
    /// Print every candidate plan as JSON instead of the chosen plan's text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct SweepArgs {
    #[command(flatten)]
    common: Common,
    /// Query with `{x}` where the swept value goes, e.g. "SELECT * FROM t WHERE a < {x}".
    #[arg(long)]
    query_template: String,
    /// Sweep this knob instead of a constant of the query (the template then has no {x}).
    #[arg(long)]
    knob: Option<String>,
    #[arg(long)]
    from: f64,
    #[arg(long)]
    to: f64,
    /// Sample points before bisection.
    #[arg(long, default_value_t = 50)]
    points: usize,
    /// Spread the samples evenly in log(x).
    #[arg(long)]
    log: bool,
    /// Print the samples and crossovers as JSON.
    #[arg(long)]
    json: bool,
}

/// MySQL server settings beyond the constants and the machine. Default: what the built-in
/// profile presets (the seed's servers for wl8737-memory and wl8737-disk, a server as
/// installed for the others); a profile file presets nothing, whatever its id.
#[derive(Args)]
struct ServerArgs {
    /// What InnoDB reports as cached: release (as the release does), all-cached (every
    /// table, when warm: the seed's in-memory server), heuristic (nothing: the seed's
    /// disk-bound server).
    #[arg(long, value_name = "REPORT", value_parser = ["release", "all-cached", "heuristic"])]
    innodb_cache_report: Option<String>,
    /// optimizer_switch batched_key_access for DBT3's joins.
    #[arg(long, value_name = "on|off", value_parser = ["on", "off"])]
    batched_key_access: Option<String>,
}

impl ServerArgs {
    fn apply(&self, server: &mut ServerSettings) -> Result<(), Fail> {
        if let Some(r) = &self.innodb_cache_report {
            server.innodb_cache_report = InnodbCacheReport::parse(r).map_err(usage)?;
        }
        if let Some(b) = &self.batched_key_access {
            server.batched_key_access = b == "on";
        }
        Ok(())
    }
}

/// The machine, engine and workload `simulate` and `fit` work with.
#[derive(Args)]
struct MachineArgs {
    /// postgres or mysql.
    #[arg(long)]
    engine: Option<String>,
    /// Release to model (15..18 for PostgreSQL; 5.7, 8.0, 8.4 for MySQL); default: the
    /// scenario's release, else the newest; for --workload t1 the seed's (PostgreSQL 18,
    /// MySQL 5.7).
    #[arg(long = "release", value_name = "RELEASE", alias = "engine-version")]
    release: Option<String>,
    /// Built-in machine profile (see `costlab simulate --list-profiles`).
    #[arg(long, conflicts_with = "profile_file")]
    profile: Option<String>,
    /// Machine profile JSON file (a probe's calibration file, or one of
    /// `costlab simulate --list-profiles --json`), validated.
    #[arg(long, value_name = "FILE")]
    profile_file: Option<PathBuf>,
    /// Nothing cached when the query starts (default: the warm steady state).
    #[arg(long)]
    cold: bool,
    /// Built-in workload: `t1` (WL#8737's table and range query).
    #[arg(long, conflicts_with = "scenario")]
    workload: Option<String>,
    /// Scenario file (costlab import writes one).
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// Override a knob: name=value (engine parameter name or URL key); PostgreSQL's values
    /// as SET reads them (work_mem=64MB, effective_cache_size=4GB; a bare number is in the
    /// parameter's base unit: kB for work_mem, 8kB pages for effective_cache_size);
    /// repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    sets: Vec<String>,
    /// PostgreSQL: turn off plan types as `SET enable_x = off` does (seqscan, indexscan,
    /// indexonlyscan, bitmapscan, sort; for joins also hashjoin, mergejoin, nestloop,
    /// material, memoize, hashagg); comma-separated or repeated.
    #[arg(long, value_delimiter = ',')]
    disable: Vec<String>,
    #[command(flatten)]
    server: ServerArgs,
    /// PostgreSQL: plan with the "ORDER BY value handed up" series (the third seed's patch
    /// set) instead of stock; a scenario's queries only.
    #[arg(long)]
    series: bool,
}

#[derive(Args)]
struct SimulateArgs {
    #[command(flatten)]
    machine: MachineArgs,
    /// List the built-in machine profiles (with --json: every field of each).
    #[arg(long)]
    list_profiles: bool,
    /// The query (with --scenario); default: the scenario's query.
    #[arg(long)]
    query: Option<String>,
    /// With --workload t1: the fraction of t1's rows the range holds (0 to 1).
    #[arg(long)]
    fraction: Option<f64>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// With --workload t1, a plan diagram instead of one point: NAME=LO:HI, NAME a knob
    /// (values as --set reads them) or `fraction` (of t1's rows, 0 to 1). Once: a strip
    /// over that axis; twice: x, then y. Off a fraction axis the range holds --fraction.
    #[arg(long = "diagram", value_name = "NAME=LO:HI")]
    diagrams: Vec<String>,
    #[command(flatten)]
    drawing: DiagramDrawing,
}

#[derive(Args)]
struct FitArgs {
    #[command(flatten)]
    machine: MachineArgs,
    /// Fit random_page_cost on each of the random_page_cost seed's five devices and print
    /// it next to the seed's measured ratio (other options are not needed).
    #[arg(long)]
    seed_table: bool,
    /// The cost constant to fit (engine parameter name or URL key).
    #[arg(long)]
    knob: Option<String>,
    /// A second constant: fit the pair on a refined log grid.
    #[arg(long)]
    knob2: Option<String>,
    /// Search range of --knob as LO,HI (default: the knob's whole range).
    #[arg(long, value_name = "LO,HI")]
    range: Option<String>,
    /// Search range of --knob2 as LO,HI.
    #[arg(long, value_name = "LO,HI")]
    range2: Option<String>,
    /// With --scenario: the query with `{x}` where the swept value goes.
    #[arg(long)]
    query_template: Option<String>,
    /// Sweep start (for --workload t1: fraction of rows).
    #[arg(long)]
    from: Option<f64>,
    /// Sweep end.
    #[arg(long)]
    to: Option<f64>,
    /// Sweep points.
    #[arg(long, default_value_t = 201)]
    points: usize,
    /// Spread the sweep points evenly in log(x).
    #[arg(long)]
    log: bool,
    /// Print the fit as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct Dbt3Args {
    /// postgres or mysql.
    #[arg(long)]
    engine: String,
    /// Scale factor (0.01 to 1000).
    #[arg(long, default_value_t = 10.0)]
    sf: f64,
    /// Built-in machine profile (see `costlab simulate --list-profiles`); default:
    /// wl8737-memory (the seed's in-memory server), named on stderr.
    #[arg(long, conflicts_with = "profile_file")]
    profile: Option<String>,
    /// Machine profile JSON file (a probe's calibration file), validated.
    #[arg(long, value_name = "FILE")]
    profile_file: Option<PathBuf>,
    /// Nothing cached when a query starts (default: the warm steady state).
    #[arg(long)]
    cold: bool,
    #[command(flatten)]
    server: ServerArgs,
    /// Override a knob of the current constants: name=value, PostgreSQL's as SET reads them
    /// (work_mem=64MB; a bare number is in the parameter's base unit); repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    sets: Vec<String>,
    /// Preset the baseline is (e.g. mysql-5.7, wl8737-alt1, pg-default); default: the
    /// release's defaults.
    #[arg(long, value_name = "PRESET")]
    baseline: Option<String>,
    /// Override a knob of the baseline (after --baseline's preset), as --set does for the
    /// current constants: a server-wide setting such as the seed's disk-bound
    /// mrr_cost_based=0 belongs on both sides; repeatable.
    #[arg(long = "baseline-set", value_name = "NAME=VALUE")]
    baseline_sets: Vec<String>,
    /// PostgreSQL: plan with these enable_* switches off, as `SET enable_nestloop = off`
    /// does (nestloop, hashjoin, mergejoin, material, memoize, hashagg, seqscan, indexscan,
    /// indexonlyscan, bitmapscan, sort): a session setting, so on both sides of the
    /// comparison; comma-separated or repeated.
    #[arg(long, value_delimiter = ',')]
    disable: Vec<String>,
    /// Only this query (1 to 22; the workload's: its number), with both plans as trees.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    query: Option<i64>,
    /// A scenario file (`costlab import`): `dbt3` plans DBT3's queries on its tables (named
    /// as the kit names them); `workload` plans its queries (or those of --queries). The
    /// file's settings are not applied: the current constants are the release's defaults
    /// with --set, as in the page.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// `workload`: the queries, a SQL file (statements ending in `;`) or one per line;
    /// default: the scenario file's own.
    #[arg(long, value_name = "FILE")]
    queries: Option<PathBuf>,
    /// Release to model (15..18 for PostgreSQL; 5.7, 8.0, 8.4 for MySQL); default: the
    /// seed's (MySQL 5.7, PostgreSQL 18).
    // `--version` was this option's name; kept hidden so old command lines still run.
    #[arg(
        long = "release",
        value_name = "RELEASE",
        aliases = ["version", "engine-version"]
    )]
    release: Option<String>,
    /// Print the report as JSON. Without --query: the table only (each plan's summary,
    /// signature, cost, rows and time), no plan trees; with --query N: that query's two
    /// plan trees and each node's simulated time as well.
    #[arg(long)]
    json: bool,
    /// PostgreSQL: plan with the "ORDER BY value handed up" series (the third seed's patch
    /// set) instead of stock, both sides of the comparison; a scenario's tables only.
    #[arg(long)]
    series: bool,
    /// Also measure planning time per query: the median of N runs (default 21), in µs.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "21")]
    timings: Option<usize>,
    /// A plan diagram instead of the table: NAME=LO:HI, values as --set reads them
    /// (random_page_cost=1:8, effective_cache_size=1GB:64GB). Once: the flip map of every
    /// query over that knob (or one query's strip with --query); twice (x, then y): one
    /// query's diagram (--query N). The other knobs as --set leaves them.
    #[arg(long = "diagram", value_name = "NAME=LO:HI")]
    diagrams: Vec<String>,
    #[command(flatten)]
    drawing: DiagramDrawing,
}

/// How a `--diagram` is drawn: its grid and output format.
#[derive(Args)]
struct DiagramDrawing {
    /// Cells per axis of --diagram: N, or NxM (columns x rows); 2 to 200 [default: 50].
    #[arg(long, value_name = "N|NxM", requires = "diagrams")]
    grid: Option<String>,
    /// How --diagram prints: text (letters per plan), json, csv (a line per cell) or svg.
    #[arg(long, value_parser = ["text", "json", "csv", "svg"], requires = "diagrams")]
    format: Option<String>,
}

impl DiagramDrawing {
    /// Columns and rows (`--grid`, default 50 x 50).
    fn grid(&self) -> Result<(usize, usize), Fail> {
        match &self.grid {
            Some(g) => costlab::diagram::parse_grid(g).map_err(usage),
            None => Ok((
                costlab::diagram::DEFAULT_GRID,
                costlab::diagram::DEFAULT_GRID,
            )),
        }
    }

    /// The report in `--format` (JSON by default with --json, else text).
    fn print(&self, report: &costlab::diagram::DiagramReport, json: bool) -> Result<(), Fail> {
        let format = self
            .format
            .as_deref()
            .unwrap_or(if json { "json" } else { "text" });
        print(&match format {
            "json" => to_json(report)?,
            "csv" => report.csv(),
            "svg" => report.svg(),
            _ => report.text(),
        })
    }
}

/// A failure and its exit code.
enum Fail {
    Usage(String),
    Error(String),
}

impl From<costlab_core::Error> for Fail {
    fn from(e: costlab_core::Error) -> Fail {
        Fail::Error(e.to_string())
    }
}

fn usage(e: impl std::fmt::Display) -> Fail {
    Fail::Usage(e.to_string())
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let _ = writeln!(
            std::io::stderr(),
            "costlab: internal error (please report): {}",
            one_line(&info.to_string())
        );
        std::process::exit(1);
    }));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // `costlab dbt3 --version` with nothing after it: the old name of --release,
            // typed by someone who likely wanted the tool's version.
            let bare_version = std::env::args().next_back().as_deref() == Some("--version");
            let msg = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                "a command is required: import, explain, sweep, simulate, fit, dbt3 or url"
                    .to_string()
            } else if bare_version && e.kind() == ErrorKind::InvalidValue {
                format!(
                    "--version after a command is the old name of --release and needs a release (5.7, 8.0, 8.4, 15..18); this is costlab {}",
                    env!("CARGO_PKG_VERSION")
                )
            } else {
                clap_one_line(&e.render().to_string())
            };
            let _ = writeln!(std::io::stderr(), "costlab: {msg} (see costlab --help)");
            return ExitCode::from(2);
        }
    };
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail::Usage(m)) => {
            let _ = writeln!(std::io::stderr(), "costlab: {}", one_line(&m));
            ExitCode::from(2)
        }
        Err(Fail::Error(m)) => {
            let _ = writeln!(std::io::stderr(), "costlab: {}", one_line(&m));
            ExitCode::from(1)
        }
    }
}

/// Clap's message in one line: the first line, plus the indented lines that continue it
/// (the list of missing arguments); usage and tips are dropped.
fn clap_one_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("invalid command line").trim();
    let mut msg = first.strip_prefix("error: ").unwrap_or(first).to_string();
    let more: Vec<&str> = lines
        .take_while(|l| l.starts_with(' ') && !l.trim().is_empty())
        .map(str::trim)
        .collect();
    if !more.is_empty() {
        msg = format!("{} {}", msg.trim_end_matches(':'), more.join(", "));
    }
    msg
}

fn run(cmd: Command) -> Result<(), Fail> {
    match cmd {
        Command::Import {
            source:
                ImportSource::Postgres {
                    dsn,
                    tables,
                    schemas,
                    out,
                    count_rows,
                    raw_histograms,
                },
        } => {
            let options = ImportOptions {
                count_rows,
                raw_histograms,
                schemas,
            };
            let imported =
                import_postgres(&dsn, &tables, &options).map_err(|e| Fail::Error(e.0))?;
            let mut json = imported.scenario.to_json();
            json.push('\n');
            match out {
                Some(path) => write_atomically(&path, json.as_bytes())?,
                None => print(&json)?,
            }
            for w in &imported.warnings {
                let _ = writeln!(std::io::stderr(), "warning: {}", one_line(w));
            }
            Ok(())
        }
        Command::Explain(a) => explain(a),
        Command::Sweep(a) => sweep_cmd(a),
        Command::Simulate(a) => simulate_cmd(a),
        Command::Fit(a) => fit_cmd(a),
        Command::Dbt3(a) => dbt3_cmd(a, false),
        Command::Workload(a) => dbt3_cmd(a, true),
        Command::Ordering(a) => ordering_cmd(a),
        Command::Url { action } => url_cmd(action),
    }
}

/// Longest link file read (a link itself is capped by the decoder).
const MAX_LINK_FILE: u64 = 1024 * 1024;

fn url_cmd(action: UrlAction) -> Result<(), Fail> {
    use costlab_core::url::{self, LinkFile};
    match action {
        UrlAction::Decode { link, switches } => {
            let fragment = link.split_once('#').map_or(link.as_str(), |(_, f)| f);
            let d = url::decode(fragment);
            for p in &d.problems {
                let _ = writeln!(std::io::stderr(), "warning: {}", one_line(&p.to_string()));
            }
            let file = LinkFile::from_link(&d.scenario, &d.embed);
            if !switches {
                return print(&to_json(&file)?);
            }
            let mut out = serde_json::Map::new();
            out.insert(
                "link".into(),
                serde_json::to_value(&file).map_err(|e| Fail::Error(e.to_string()))?,
            );
            let mut per_engine = serde_json::Map::new();
            for engine in d.scenario.engines.list() {
                let c = costlab_core::analysis::engine_curves(&d.scenario, engine)?;
                let list: Vec<serde_json::Value> = c
                    .crossovers
                    .iter()
                    .map(|x| serde_json::json!({"fraction": x.x, "from": x.from.to_string(), "to": x.to.to_string()}))
                    .collect();
                per_engine.insert(engine.name().to_string(), serde_json::Value::Array(list));
            }
            out.insert("switches".into(), serde_json::Value::Object(per_engine));
            print(&to_json(&out)?)
        }
        UrlAction::Encode { file, base } => {
            let text = if file == "-" {
                let mut t = String::new();
                std::io::stdin()
                    .take(MAX_LINK_FILE)
                    .read_to_string(&mut t)
                    .map_err(|e| Fail::Error(format!("stdin: {e}")))?;
                t
            } else {
                let meta =
                    std::fs::metadata(&file).map_err(|e| Fail::Error(format!("{file}: {e}")))?;
                if meta.len() > MAX_LINK_FILE {
                    return Err(Fail::Error(format!(
                        "{file}: larger than {MAX_LINK_FILE} bytes"
                    )));
                }
                std::fs::read_to_string(&file).map_err(|e| Fail::Error(format!("{file}: {e}")))?
            };
            let doc: LinkFile = serde_json::from_str(&text)
                .map_err(|e| Fail::Error(format!("{file}: not a link file: {e}")))?;
            let fragment = doc
                .to_fragment()
                .map_err(|e| Fail::Error(format!("{file}: {e}")))?;
            print(&format!("{base}#{fragment}\n"))
        }
    }
}

fn print(s: &str) -> Result<(), Fail> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Fail::Error(format!("cannot write to stdout: {e}"))),
    }
}

/// Writes through a temporary file in the same directory and renames it over `path`, so a
/// failure never leaves a partial file.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Fail> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let fail = |e: std::io::Error| Fail::Error(format!("cannot write {}: {e}", path.display()));
    let mut tmp = tempfile::Builder::new()
        .prefix(".costlab-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(fail)?;
    tmp.write_all(bytes).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = tmp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

fn load_scenario(path: &Path) -> Result<ScenarioFile, Fail> {
    let fail = |e: std::io::Error| Fail::Error(format!("cannot read {}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(fail)?;
    if meta.len() > MAX_BYTES as u64 {
        return Err(Fail::Error(format!(
            "{}: {} bytes is larger than the {MAX_BYTES} a scenario may have",
            path.display(),
            meta.len()
        )));
    }
    let text = std::fs::read_to_string(path).map_err(fail)?;
    ScenarioFile::from_json(&text).map_err(|e| Fail::Error(format!("{}: {e}", path.display())))
}

/// The scenario, constants (with --set applied) and engine setup a command works with.
fn prepare(c: &Common) -> Result<(ScenarioFile, KnobValues, Setup), Fail> {
    let engine = Engine::parse(&c.engine).map_err(usage)?;
    let named = c
        .release
        .as_deref()
        .map(engines::parse_version)
        .transpose()
        .map_err(usage)?;
    let scenario = load_scenario(&c.scenario)?;
    let version = engines::version_for(engine, &scenario, named).map_err(usage)?;
    let mut knobs = engines::knobs_for(&scenario, version)?;
    apply_sets(&mut knobs, &c.sets, engine)?;
    let setup = match engine {
        Engine::Postgres => {
            if c.buffer_pool_mb.is_some() {
                return Err(Fail::Usage(
                    "--buffer-pool-mb is a MySQL option; PostgreSQL costs do not read it".into(),
                ));
            }
            Setup::Postgres {
                version,
                options: engines::pg_options(&c.disable).map_err(usage)?,
                functions: scenario.functions.clone(),
                handed_up: c.series,
            }
        }
        Engine::Mysql => {
            if !c.disable.is_empty() {
                return Err(Fail::Usage(
                    "--disable takes PostgreSQL's enable_* switches; not available for MySQL"
                        .into(),
                ));
            }
            if c.series {
                return Err(Fail::Usage(
                    "--series is a PostgreSQL planner variant; not available for MySQL".into(),
                ));
            }
            let mut env = costlab_core::mysql::MysqlEnv::default();
            if let Some(mb) = c.buffer_pool_mb {
                if !mb.is_finite() || mb <= 0.0 || mb > 1e12 {
                    return Err(Fail::Usage(format!(
                        "--buffer-pool-mb: {mb} is not a size in MB (0 to 1e12)"
                    )));
                }
                env.innodb_buffer_pool_size = mb * 1024.0 * 1024.0;
            }
            Setup::Mysql { env }
        }
    };
    Ok((scenario, knobs, setup))
}

/// PostgreSQL's options with `--disable`'s switches off; MySQL has no such switches.
fn switches(engine: Engine, disable: &[String]) -> Result<costlab_core::pg::PgOptions, Fail> {
    match engine {
        Engine::Postgres => engines::pg_options(disable).map_err(usage),
        Engine::Mysql if !disable.is_empty() => Err(usage(
            "--disable takes PostgreSQL's enable_* switches; not available for MySQL",
        )),
        Engine::Mysql => Ok(Default::default()),
    }
}

/// Applies `--set name=value` assignments; each must be a knob of `engine`.
fn apply_sets(knobs: &mut KnobValues, sets: &[String], engine: Engine) -> Result<(), Fail> {
    for s in sets {
        let name = s.split('=').next().unwrap_or_default().trim();
        if name.to_ascii_lowercase().starts_with("enable_") {
            return Err(Fail::Usage(format!(
                "--set {name}: a planner switch, not a cost constant; turn it off with --disable {}",
                &name["enable_".len()..]
            )));
        }
        let knob = knobs.set_assignment(s).map_err(usage)?;
        if knob.def().engine != engine {
            return Err(Fail::Usage(format!(
                "--set {}: a {} knob has no effect on {}",
                knob.def().name,
                knob.def().engine.name(),
                engine.name()
            )));
        }
    }
    Ok(())
}

fn ordering_cmd(a: OrderingArgs) -> Result<(), Fail> {
    use costlab_core::ordering::{self, Role};
    use costlab_core::sim::mix;
    let version = engines::parse_version(&a.release).map_err(usage)?;
    if version.engine() != Engine::Postgres {
        return Err(usage(format!(
            "--release: {} is not a PostgreSQL release",
            version.label()
        )));
    }
    let sf = costlab_core::workload::dbt3::catalog::check_sf(a.sf)
        .map_err(|e| Fail::Usage(format!("--sf: {e}")))?;
    let (profile, _) = match &a.profile_file {
        Some(f) => machine_profile(None, Some(f), false)?,
        None => machine_profile(Some(&a.profile), None, false)?,
    };
    let sim = costlab_core::sim::time::Simulator::for_release(&profile, version)
        .map_err(|e| Fail::Error(e.to_string()))?;
    let mut knobs = KnobValues::defaults(
        version,
        costlab_core::knobs::EngineVersion::latest(Engine::Mysql),
    );
    apply_sets(&mut knobs, &a.sets, Engine::Postgres)?;
    if !(a.function_cost.is_finite() && (0.0..=1e9).contains(&a.function_cost)) {
        return Err(usage(format!(
            "--function-cost: {} is not a cost (0 to 1e9)",
            a.function_cost
        )));
    }
    let rows = ordering::run_at(sf, a.function_cost, version, &knobs, &sim)
        .map_err(|e| Fail::Error(e.to_string()))?;
    if a.json {
        let ws: Vec<f64> = (0..=20).map(|i| i as f64 / 20.0).collect();
        let curve = |shapes: &[mix::Shape]| -> Result<serde_json::Value, Fail> {
            let points = mix::curve(ordering::SEED_USERS, ordering::SEED_USERS, shapes, &ws)
                .map_err(|e| Fail::Error(e.to_string()))?;
            Ok(points
                .iter()
                .map(|p| serde_json::json!({"w": p.w, "stock_qps": p.stock_qps, "series_qps": p.variant_qps}))
                .collect())
        };
        let json = serde_json::json!({
            "rows": rows.iter().map(|r| serde_json::json!({
                "name": r.shape.name,
                "stock_ms": r.stock_s * 1e3,
                "series_ms": r.variant_s * 1e3,
                "stock_calls": r.stock_calls,
                "series_calls": r.variant_calls,
                "stock_plan": r.stock_plan,
                "series_plan": r.variant_plan,
            })).collect::<Vec<_>>(),
            "mix": curve(&ordering::mix_shapes(&rows))?,
            "seed_times_mix": curve(&ordering::mix_on_seed_times(&rows))?,
        });
        return print(&to_json(&json)?);
    }
    if let Some(path) = &a.write_scenario {
        let file = ordering::scenario_file(sf, version).map_err(|e| Fail::Error(e.to_string()))?;
        write_atomically(path, file.to_json().as_bytes())?;
    }
    let mut out = format!(
        "TPROC-H-like at SF {sf}, {} on {}; each time adds {:.2} ms per statement\n\n",
        version.label(),
        profile.id,
        ordering::STATEMENT_OVERHEAD_S * 1e3
    );
    out.push_str(&format!(
        "{:<4} {:<70} {:>11} {:>11} {:>8} {:>8}\n",
        "", "shape", "stock ms", "series ms", "change", "seed"
    ));
    for r in &rows {
        let seed = match r.shape.role {
            Role::Positive { seed_change } => format!("{:+.0} %", 100.0 * seed_change),
            Role::Regression => "+8.5 %".to_string(),
            Role::Neutral => "~0 %".to_string(),
        };
        out.push_str(&format!(
            "{:<4} {:<70} {:>11.3} {:>11.3} {:>6.1} % {:>8}\n",
            r.shape.name,
            r.shape.title,
            r.stock_s * 1e3,
            r.variant_s * 1e3,
            100.0 * r.change(),
            seed
        ));
        if a.plans {
            out.push_str(&format!(
                "  stock ({} calls):\n{}\n  series ({} calls):\n{}\n",
                r.stock_calls,
                indent(&r.stock_plan),
                r.variant_calls,
                indent(&r.variant_plan)
            ));
        }
    }
    let ws: Vec<f64> = ordering::SEED_MIX.iter().map(|p| p.w).collect();
    let mix_table = |out: &mut String, heading: String, shapes: &[mix::Shape], users, cores| {
        let points =
            mix::curve(users, cores, shapes, &ws).map_err(|e| Fail::Error(e.to_string()))?;
        out.push_str(&heading);
        out.push_str(&format!(
            "{:>5} {:>12} {:>12} {:>8} {:>8} {:>15}\n",
            "w", "stock q/s", "series q/s", "gain", "seed", "positive share"
        ));
        for (p, s) in points.iter().zip(ordering::SEED_MIX) {
            out.push_str(&format!(
                "{:>5.1} {:>12.0} {:>12.0} {:>6.1} % {:>6.1} % {:>13.0} %\n",
                p.w,
                p.stock_qps,
                p.variant_qps,
                100.0 * p.gain,
                100.0 * s.gain,
                100.0 * p.positive_share
            ));
        }
        Ok::<(), Fail>(())
    };
    mix_table(
        &mut out,
        format!(
            "\nclosed-loop mix on the times above, {} users on {} cores (sim::mix: no think time, no contention)\n",
            a.users, a.cores
        ),
        &ordering::mix_shapes(&rows),
        a.users,
        a.cores,
    )?;
    mix_table(
        &mut out,
        format!(
            "\nthe same mix on the seed's stock times ({0} users on {0} cores; fitted to stock's q/s at w = 0 and 0.8, \
             each positive shape as slow; the series' changes from the rows above)\n",
            ordering::SEED_USERS
        ),
        &ordering::mix_on_seed_times(&rows),
        ordering::SEED_USERS,
        ordering::SEED_USERS,
    )?;
    print(&out)
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn explain(a: ExplainArgs) -> Result<(), Fail> {
    let (scenario, knobs, setup) = prepare(&a.common)?;
    let sql = match a.query.as_deref().or(scenario.query.as_deref()) {
        Some(q) => q.to_string(),
        None => {
            return Err(Fail::Usage(
                "no query: pass --query \"SELECT ...\" (the scenario has none)".into(),
            ))
        }
    };
    // One table with sargable conditions: the single-table models, which list every
    // candidate; anything else (joins, sub-selects, LIKE, expressions): the SQL front end and
    // the engine's join planner.
    let query = match Query::parse(&sql) {
        Ok(q) => q,
        Err(_) => {
            let (_, tree, mut text) =
                engines::JoinSetup::new(&setup, &scenario.tables, &sql)?.plan(&knobs)?;
            if a.json {
                let text = serde_json::to_string_pretty(&tree)
                    .map_err(|e| Fail::Error(format!("cannot encode the plan: {e}")))?;
                return print(&format!("{text}\n"));
            }
            if !text.ends_with('\n') {
                text.push('\n');
            }
            return print(&text);
        }
    };
    let table = scenario.table(&query.table)?;
    let planned = engines::plan(&setup, table, &query, &knobs)?;
    if a.json {
        let text = serde_json::to_string_pretty(&planned)
            .map_err(|e| Fail::Error(format!("cannot encode the plans: {e}")))?;
        print(&format!("{text}\n"))
    } else {
        let mut text = engines::explain_text(&setup, &planned);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        print(&text)
    }
}

fn sweep_cmd(a: SweepArgs) -> Result<(), Fail> {
    let (scenario, knobs, setup) = prepare(&a.common)?;
    let has_x = a.query_template.contains("{x}");
    let knob = match (&a.knob, has_x) {
        (Some(_), true) => {
            return Err(Fail::Usage(
                "--knob sweeps a constant: the query template must not contain {x} then".into(),
            ))
        }
        (None, false) => {
            return Err(Fail::Usage(
                "the query template has no {x} to sweep (or pass --knob NAME)".into(),
            ))
        }
        (Some(name), false) => {
            let k = Knob::lookup(name).map_err(usage)?;
            if k.def().engine != setup.engine() {
                return Err(Fail::Usage(format!(
                    "--knob {}: a {} knob has no effect on {}",
                    k.def().name,
                    k.def().engine.name(),
                    setup.engine().name()
                )));
            }
            Some(k)
        }
        (None, true) => None,
    };
    if !(2..=100_000).contains(&a.points) {
        return Err(Fail::Usage(format!(
            "--points: {} is outside 2 to 100000",
            a.points
        )));
    }
    let spacing = if a.log { Spacing::Log } else { Spacing::Linear };
    // Check the range and the template before sweeping, so errors name the argument.
    sweep::sample_points(a.from, a.to, a.points, spacing).map_err(usage)?;
    // One table with sargable conditions: the single-table models, every candidate costed;
    // any other query: the SQL front end and the join planner, whose chosen plan is the one
    // candidate (keyed by its signature: a change anywhere in the tree is a change).
    let single = Query::parse(&a.query_template.replace("{x}", &format!("{}", a.from))).is_ok();
    let fixed = match knob {
        Some(_) if single => Some(Query::parse(&a.query_template)?),
        _ => None,
    };
    let join = match knob {
        Some(_) if !single => Some(engines::JoinSetup::new(
            &setup,
            &scenario.tables,
            &a.query_template,
        )?),
        _ => None,
    };
    let plan_at = |x: f64| -> costlab_core::Result<costlab_core::plan::Planned> {
        let mut k = knobs.clone();
        if let Some(knob) = knob {
            k.set(knob, x)?;
        }
        if !single {
            let text = a.query_template.replace("{x}", &format!("{x}"));
            let (signature, plan, _) = match &join {
                Some(j) => j.plan(&k)?,
                None => engines::JoinSetup::new(&setup, &scenario.tables, &text)?.plan(&k)?,
            };
            return Ok(costlab_core::plan::Planned {
                candidates: vec![costlab_core::plan::Candidate {
                    key: signature.into(),
                    plan,
                }],
                chosen: 0,
            });
        }
        let query = match &fixed {
            Some(q) => q.clone(),
            None => Query::parse(&a.query_template.replace("{x}", &format!("{x}")))?,
        };
        let table = scenario.table(&query.table)?;
        engines::plan(&setup, table, &query, &k)
    };
    let result = sweep::sweep(plan_at, a.from, a.to, a.points, spacing)?;
    if a.json {
        let text = serde_json::to_string_pretty(&result)
            .map_err(|e| Fail::Error(format!("cannot encode the sweep: {e}")))?;
        return print(&format!("{text}\n"));
    }
    let what = match knob {
        Some(k) => k.def().name.to_string(),
        None => "x".to_string(),
    };
    let mut text = String::new();
    let first = result
        .points
        .first()
        .map(|p| p.chosen.as_str())
        .unwrap_or("");
    text.push_str(&format!(
        "{what} from {} to {} ({} points): starts with {first}\n",
        a.from, a.to, a.points
    ));
    if result.crossovers.is_empty() {
        text.push_str("no crossover: the same plan is chosen over the whole range\n");
    }
    for c in &result.crossovers {
        text.push_str(&format!(
            "{what} = {}: {} -> {}\n",
            fmt_x(c.x),
            c.from,
            c.to
        ));
    }
    print(&text)
}

/// A crossover point with the digits that matter: plain up to 1e9, scientific beyond.
fn fmt_x(x: f64) -> String {
    if x == 0.0 || (1e-4..1e9).contains(&x.abs()) {
        let s = format!("{x:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    } else {
        format!("{x:.6e}")
    }
}

/// Where `simulate` and `fit` take their table and query from.
enum Source {
    T1,
    File(ScenarioFile),
}

/// The workload, machine and constants of `simulate` and `fit`.
fn machine_setup(a: &MachineArgs) -> Result<(Source, Machine, KnobValues), Fail> {
    let engine = a
        .engine
        .as_deref()
        .ok_or_else(|| usage("--engine is required (postgres or mysql)"))?;
    let engine = Engine::parse(engine).map_err(usage)?;
    let named = a
        .release
        .as_deref()
        .map(engines::parse_version)
        .transpose()
        .map_err(usage)?;
    let source = match (&a.workload, &a.scenario) {
        (Some(w), None) if w.eq_ignore_ascii_case("t1") => Source::T1,
        (Some(w), None) => {
            return Err(Fail::Usage(format!(
                "--workload: `{w}` is not a built-in workload (t1)"
            )))
        }
        (None, Some(path)) => Source::File(load_scenario(path)?),
        _ => {
            return Err(usage(
                "a workload is required: --workload t1 or --scenario FILE",
            ))
        }
    };
    let (version, mut knobs) = match &source {
        Source::T1 => {
            // The seed's releases, as the page's default scenario.
            let seed = Scenario::default();
            let version = match named {
                Some(v) if v.engine() != engine => {
                    return Err(Fail::Usage(format!(
                        "--release: {} is not a release of {}",
                        v.label(),
                        engine.name()
                    )))
                }
                Some(v) => v,
                None => seed.version_of(engine),
            };
            let (pg, my) = match engine {
                Engine::Postgres => (version, seed.mysql_version),
                Engine::Mysql => (seed.pg_version, version),
            };
            (version, KnobValues::defaults(pg, my))
        }
        Source::File(f) => {
            let version = engines::version_for(engine, f, named).map_err(usage)?;
            (version, engines::knobs_for(f, version)?)
        }
    };
    apply_sets(&mut knobs, &a.sets, engine)?;
    let (profile, mut server) =
        machine_profile(a.profile.as_deref(), a.profile_file.as_deref(), a.cold)?;
    a.server.apply(&mut server)?;
    let pg_options = switches(engine, &a.disable)?;
    if a.series && engine == Engine::Mysql {
        return Err(usage(
            "--series is a PostgreSQL planner variant; not available for MySQL",
        ));
    }
    Ok((
        source,
        Machine {
            version,
            profile,
            server,
            pg_options,
            series: a.series,
        },
        knobs,
    ))
}

/// The machine of `simulate` and `dbt3`: a built-in profile or a file's, exactly one of
/// them, with the server settings it presets (a built-in profile picked by id may preset
/// the seed's server; a file never does, whatever its id).
fn machine_profile(
    id: Option<&str>,
    file: Option<&Path>,
    cold: bool,
) -> Result<(MachineProfile, ServerSettings), Fail> {
    let (mut profile, server) = match (id, file) {
        (Some(id), None) => (
            builtin::find(id).map_err(usage)?,
            ServerSettings::preset_for_builtin(id),
        ),
        (None, Some(path)) => (load_profile(path)?, ServerSettings::DEFAULT),
        _ => {
            return Err(usage(
                "a machine is required: --profile ID (see costlab simulate --list-profiles) or --profile-file FILE",
            ))
        }
    };
    if cold {
        profile.warm_cache = false;
    }
    Ok((profile, server))
}

fn load_profile(path: &Path) -> Result<MachineProfile, Fail> {
    let fail = |e: std::io::Error| Fail::Error(format!("cannot read {}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(fail)?;
    if meta.len() > simulate::MAX_PROFILE_BYTES as u64 {
        return Err(Fail::Error(format!(
            "{}: {} bytes is larger than the {} a profile may have",
            path.display(),
            meta.len(),
            simulate::MAX_PROFILE_BYTES
        )));
    }
    let text = std::fs::read_to_string(path).map_err(fail)?;
    let (profile, warnings) = simulate::profile_from_json(&text)
        .map_err(|e| Fail::Error(format!("{}: {e}", path.display())))?;
    for w in warnings {
        let _ = writeln!(
            std::io::stderr(),
            "warning: {}: {}",
            path.display(),
            one_line(&w)
        );
    }
    Ok(profile)
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String, Fail> {
    serde_json::to_string_pretty(v)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| Fail::Error(format!("cannot encode the report: {e}")))
}

/// `SELECT ...` of t1 at a fraction, as text.
fn t1_sql(fraction: f64) -> Result<String, Fail> {
    let (lo, hi) = t1::t1_bounds(fraction).map_err(usage)?;
    Ok(format!(
        "SELECT * FROM t1 WHERE i7 > {lo} AND i7 < {hi} AND i8 = 2"
    ))
}

fn simulate_cmd(a: SimulateArgs) -> Result<(), Fail> {
    if a.list_profiles {
        let all = builtin::profiles();
        return print(&if a.json {
            to_json(&all)?
        } else {
            simulate::profiles_text(&all)
        });
    }
    let (source, machine, knobs) = machine_setup(&a.machine)?;
    if !a.diagrams.is_empty() {
        return t1_diagram_cmd(&a, &source, &machine, &knobs);
    }
    let (table, query, sql) = match &source {
        Source::T1 => {
            if a.query.is_some() {
                return Err(usage(
                    "--query goes with --scenario; --workload t1 takes --fraction",
                ));
            }
            let f = a
                .fraction
                .ok_or_else(|| usage("--workload t1 needs --fraction F (0 to 1)"))?;
            let sql = t1_sql(f)?;
            (t1::t1_table(), t1::t1_query(f).map_err(usage)?, sql)
        }
        Source::File(file) => {
            if a.fraction.is_some() {
                return Err(usage("--fraction goes with --workload t1"));
            }
            let sql = match a.query.as_deref().or(file.query.as_deref()) {
                Some(q) => q.to_string(),
                None => {
                    return Err(usage(
                        "no query: pass --query \"SELECT ...\" (the scenario has none)",
                    ))
                }
            };
            match Query::parse(&sql) {
                Ok(query) => (file.table(&query.table)?.clone(), query, sql),
                Err(_) => return simulate_join(&a, file, &machine, knobs, sql),
            }
        }
    };
    let planner = Planner::new(&machine, &table, Detail::Omit)?;
    let report = simulate::simulate(&machine, &planner, &query, &sql, &knobs)?;
    print(&if a.json {
        to_json(&report)?
    } else {
        report.text()
    })
}

/// `simulate --workload t1 --diagram ...`: t1's plan diagram over a knob or the fraction
/// of rows (`costlab_core::analysis::range_diagram`), printed as `dbt3 --diagram` prints.
fn t1_diagram_cmd(
    a: &SimulateArgs,
    source: &Source,
    machine: &Machine,
    knobs: &KnobValues,
) -> Result<(), Fail> {
    use costlab::diagram;
    use costlab_core::analysis::{range_diagram, RangeAxis};
    use costlab_core::diagram::Boundaries;
    if !matches!(source, Source::T1) {
        return Err(usage(
            "--diagram with simulate draws t1 (--workload t1); for a scenario's query use costlab workload --diagram",
        ));
    }
    if a.query.is_some() {
        return Err(usage(
            "--query goes with --scenario; --workload t1 takes --fraction",
        ));
    }
    let engine = machine.engine();
    let axes = a
        .diagrams
        .iter()
        .map(|t| diagram::parse_range_axis(t, engine))
        .collect::<Result<Vec<_>, _>>()
        .map_err(usage)?;
    if axes.len() > 2 {
        return Err(usage("--diagram: at most two axes (x and y)"));
    }
    let has_fraction = axes.iter().any(|x| x.0 == RangeAxis::Fraction);
    let fraction = match (a.fraction, has_fraction) {
        (Some(f), false) => f,
        (None, true) => 0.0,
        (Some(_), true) => {
            return Err(usage(
                "--fraction fixes what a fraction axis varies: give one or the other",
            ))
        }
        (None, false) => {
            return Err(usage(
                "a diagram over knobs holds the range fixed: add --fraction F (0 to 1), or make one axis fraction=LO:HI",
            ))
        }
    };
    t1::t1_bounds(fraction).map_err(usage)?;
    let (nx, ny) = a.drawing.grid()?;
    let built = axes
        .iter()
        .zip([nx, ny])
        .map(|((what, lo, hi), n)| what.axis(*lo, *hi, n))
        .collect::<Result<Vec<_>, _>>()
        .map_err(usage)?;
    let planner = Planner::new(machine, &t1::t1_table(), Detail::Omit)?;
    let sim = machine.simulator()?;
    let query = std::cell::RefCell::new(t1::T1Query::default());
    let d = range_diagram(
        |f, k| {
            let mut q = query.borrow_mut();
            planner.plan(q.at(f)?, k)
        },
        Some(&sim),
        engine,
        knobs,
        fraction,
        (axes[0].0, &built[0]),
        axes.get(1).map(|y| (y.0, &built[1])),
        Boundaries::Locate,
    )?;
    let title = if has_fraction {
        "t1 (WL#8737): SELECT ... WHERE k7 in a range".to_string()
    } else {
        format!("t1 (WL#8737): the range holds {fraction} of the rows")
    };
    let report = diagram::t1_report(machine, &a.machine.sets, title, d);
    a.drawing.print(&report, a.json)
}

/// `simulate` on a query the single-table models do not take: the join planner keeps one
/// plan, so the chosen plan is timed node by node (as `costlab workload --query 1`); how
/// plans change with a constant is `sweep --knob`'s and `workload`'s to show.
fn simulate_join(
    a: &SimulateArgs,
    file: &ScenarioFile,
    machine: &Machine,
    knobs: KnobValues,
    sql: String,
) -> Result<(), Fail> {
    use costlab::dbt3;
    if costlab_core::workload::user::split_queries(&sql)?.len() != 1 {
        return Err(usage(
            "--query takes one query; for several use costlab workload --queries FILE",
        ));
    }
    let name = a
        .machine
        .scenario
        .as_deref()
        .and_then(|p| p.file_name())
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let setup = dbt3::Dbt3Setup {
        version: machine.version,
        queries: dbt3::Queries::User {
            file: name,
            tables: file.tables.clone(),
            functions: file.functions.clone(),
            text: sql,
        },
        sf: 1.0,
        profile: machine.profile.clone(),
        server: machine.server,
        baseline: knobs.clone(),
        baseline_label: "the same constants".into(),
        current: knobs,
        sets: a.machine.sets.clone(),
        query: Some(1),
        repeat: None,
        series: machine.series,
        pg_options: machine.pg_options.clone(),
    };
    let report = dbt3::run(&setup)?;
    if let Some(r) = report.refused.first() {
        return Err(Fail::Error(r.error.clone()));
    }
    if a.json {
        return print(&to_json(&report)?);
    }
    let Some(r) = report.rows.first() else {
        return Err(Fail::Error("the query was not planned".into()));
    };
    let p = &r.current;
    let tree = match (&p.tree, &p.node_times_s) {
        (Some(t), times) => costlab_core::compare::tree_text(t, times.as_deref()),
        (None, _) => String::new(),
    };
    print(&format!(
        "{} on {} ({}), {} cache\nplan: cost {:.2}, {:.0} rows, simulated time {} s\n{tree}\
         ([time ...]: the node's own simulated time, without its children)\n\
         (a join planner keeps one plan per query: this is the chosen plan's time; \
         costlab sweep --knob NAME shows where the plan changes, costlab workload compares \
         two sets of constants)\n",
        report.release,
        report.profile.id,
        report.profile.label,
        if report.warm_cache { "warm" } else { "cold" },
        p.cost,
        p.rows,
        simulate::secs(p.time_s),
    ))
}

fn parse_range(flag: &str, s: &Option<String>) -> Result<Option<(f64, f64)>, Fail> {
    let Some(s) = s else { return Ok(None) };
    let bad = || Fail::Usage(format!("{flag}: `{s}` is not LO,HI with 0 < LO < HI"));
    let (lo, hi) = s.split_once(',').ok_or_else(bad)?;
    let lo: f64 = lo.trim().parse().map_err(|_| bad())?;
    let hi: f64 = hi.trim().parse().map_err(|_| bad())?;
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && lo < hi) {
        return Err(bad());
    }
    Ok(Some((lo, hi)))
}

fn fit_knob(flag: &str, name: &str, engine: Engine) -> Result<Knob, Fail> {
    let k = Knob::lookup(name).map_err(|e| Fail::Usage(format!("{flag}: {e}")))?;
    if k.def().engine != engine {
        return Err(Fail::Usage(format!(
            "{flag} {}: a {} knob has no effect on {}",
            k.def().name,
            k.def().engine.name(),
            engine.name()
        )));
    }
    simulate::fit_range(k, Some((1.0, 2.0))).map_err(|e| Fail::Usage(format!("{flag}: {e}")))?;
    Ok(k)
}

fn fit_cmd(a: FitArgs) -> Result<(), Fail> {
    if a.seed_table {
        let rows = simulate::seed_table()?;
        return print(&if a.json {
            to_json(&rows)?
        } else {
            simulate::seed_table_text(&rows)
        });
    }
    let (source, machine, knobs) = machine_setup(&a.machine)?;
    let engine = machine.engine();
    let knob = match &a.knob {
        Some(n) => fit_knob("--knob", n, engine)?,
        None => return Err(usage("--knob NAME is required (or --seed-table)")),
    };
    let knob2 = a
        .knob2
        .as_deref()
        .map(|n| fit_knob("--knob2", n, engine))
        .transpose()?;
    if knob2 == Some(knob) {
        return Err(usage("--knob2 must differ from --knob"));
    }
    let range = parse_range("--range", &a.range)?;
    let range2 = parse_range("--range2", &a.range2)?;
    if range2.is_some() && knob2.is_none() {
        return Err(usage("--range2 goes with --knob2"));
    }
    let (from, to) = match (a.from, a.to) {
        (Some(f), Some(t)) => (f, t),
        _ => return Err(usage("the sweep needs --from A --to B")),
    };
    if !(2..=100_000).contains(&a.points) {
        return Err(Fail::Usage(format!(
            "--points: {} is outside 2 to 100000",
            a.points
        )));
    }
    let spacing = if a.log { Spacing::Log } else { Spacing::Linear };
    let xs = sweep::sample_points(from, to, a.points, spacing).map_err(usage)?;
    let spacing_name = if a.log { "log" } else { "linear" };
    let (table, template) = match &source {
        Source::T1 => {
            if a.query_template.is_some() {
                return Err(usage(
                    "--query-template goes with --scenario; --workload t1 sweeps the fraction of rows",
                ));
            }
            t1::t1_bounds(from).map_err(usage)?;
            t1::t1_bounds(to).map_err(usage)?;
            (t1::t1_table(), None)
        }
        Source::File(file) => {
            let Some(tpl) = a.query_template.clone() else {
                return Err(usage("--scenario needs --query-template \"... {x} ...\""));
            };
            if !tpl.contains("{x}") {
                return Err(usage("the query template has no {x} to sweep"));
            }
            // A one-table query: every candidate's cost is a line in the constant and the fit
            // takes their lower envelope exactly. Any other: the join planner's choices on a
            // grid of the constant (`grid_fit`).
            let q = match Query::parse(&tpl.replace("{x}", &format!("{from}"))) {
                Ok(q) => q,
                Err(_) if knob2.is_none() => {
                    return fit_join(&a, file, &machine, knobs, knob, range, &tpl, &xs)
                }
                Err(e) => {
                    return Err(Fail::Error(format!(
                        "{e}; a pair of constants (--knob2) is fitted on one-table queries only"
                    )))
                }
            };
            (file.table(&q.table)?.clone(), Some(tpl))
        }
    };
    let query_at = |x: f64| -> costlab_core::Result<Query> {
        match &template {
            None => t1::t1_query(x),
            Some(tpl) => {
                let q = Query::parse(&tpl.replace("{x}", &format!("{x}")))?;
                if !q.table.eq_ignore_ascii_case(&table.name) {
                    return Err(costlab_core::Error::invalid(
                        "--query-template",
                        "every query of the sweep must read the same table",
                    ));
                }
                Ok(q)
            }
        }
    };
    let describe = match &template {
        None => format!("t1 (WL#8737), fraction of rows {from} to {to}, {spacing_name}"),
        Some(tpl) => format!("{tpl}, x from {from} to {to}, {spacing_name}"),
    };
    let sweep = simulate::Sweep {
        describe,
        xs,
        query_at: &query_at,
    };
    let planner = Planner::new(&machine, &table, Detail::Omit)?;
    match knob2 {
        None => {
            let r = simulate::fit_one(&machine, &planner, &sweep, knob, range, &knobs)?;
            print(&if a.json { to_json(&r)? } else { r.text() })
        }
        Some(k2) => {
            let r = simulate::fit_two(
                &machine,
                &planner,
                &sweep,
                (knob, k2),
                (range, range2),
                &knobs,
            )?;
            print(&if a.json { to_json(&r)? } else { r.text() })
        }
    }
}

/// Grid points of a join fit: log-spaced over the knob's range, ends included.
const JOIN_FIT_GRID: usize = 61;

/// `fit` over a join query template: each x a query of a workload, the knob on a log grid,
/// time lost against the fastest plan the engine picks anywhere on the grid.
#[allow(clippy::too_many_arguments)]
fn fit_join(
    a: &FitArgs,
    file: &ScenarioFile,
    machine: &Machine,
    knobs: KnobValues,
    knob: Knob,
    range: Option<(f64, f64)>,
    template: &str,
    xs: &[f64],
) -> Result<(), Fail> {
    use costlab_core::workload::user::{read_workload, QueryText, MAX_QUERIES};
    if xs.len() > MAX_QUERIES {
        return Err(usage(format!(
            "--points: a join query's fit plans each point at {JOIN_FIT_GRID} values of the constant; at most {MAX_QUERIES} points"
        )));
    }
    let (lo, hi) = simulate::fit_range(knob, range).map_err(usage)?;
    let mut values = sweep::sample_points(lo, hi, JOIN_FIT_GRID, Spacing::Log).map_err(usage)?;
    // The current value is on the grid, so its time lost counts against the same plans.
    let current = knobs.get(knob);
    if (lo..=hi).contains(&current) && !values.contains(&current) {
        values.push(current);
        values.sort_by(f64::total_cmp);
    }
    let texts: Vec<QueryText> = xs
        .iter()
        .enumerate()
        .map(|(i, x)| QueryText {
            number: i as u8 + 1,
            start: 0,
            text: template.replace("{x}", &format!("{x}")),
        })
        .collect();
    let dialect = match machine.engine() {
        Engine::Postgres => costlab_core::sql::Dialect::Postgres,
        Engine::Mysql => costlab_core::sql::Dialect::Mysql,
    };
    let (queries, refused) = read_workload(&texts, dialect, &file.tables);
    if let Some(r) = refused.first() {
        return Err(Fail::Error(r.error.clone()));
    }
    let planner = costlab_core::compare::WorkloadPlanner::new(
        machine.version,
        &file.tables,
        &file.functions,
        machine.series,
        queries,
        &machine.profile,
        &machine.server,
    )?;
    let fit = planner.grid_fit(knob, &values, &knobs)?;
    if a.json {
        return print(&to_json(&fit)?);
    }
    let f = |v: f64| format!("{v:.4}");
    let mut text = format!(
        "{} on {} ({}): {} over {template}, x at {} points from {} to {}\n",
        machine.version.label(),
        machine.profile.id,
        machine.profile.label,
        fit.knob,
        xs.len(),
        a.from.unwrap_or(xs[0]),
        a.to.unwrap_or(xs[xs.len() - 1])
    );
    text.push_str(&format!(
        "the {} that loses least time: {} (any value from {} to {} does as well, within one step of a {}-value log grid from {} to {}); time lost {} s of {} s\n",
        fit.knob,
        f(fit.best),
        f(fit.best_interval.0),
        f(fit.best_interval.1),
        JOIN_FIT_GRID,
        lo,
        hi,
        simulate::secs(fit.best_regret_s),
        simulate::secs(fit.chosen_s[fit.values.iter().position(|&v| v == fit.best).unwrap_or(0)]),
    ));
    if let Some(at) = fit.values.iter().position(|&v| v == current) {
        text.push_str(&format!(
            "at the current {} ({}): time lost {} s\n",
            fit.knob,
            current,
            simulate::secs(fit.regret_s[at])
        ));
    }
    text.push_str(&format!(
        "distinct plans per point: {} at most; a join planner keeps one plan, so the candidates are the plans this constant makes it pick somewhere on the grid\n",
        fit.plans.iter().max().unwrap_or(&0)
    ));
    print(&text)
}

/// `costlab dbt3` (`user` false) and `costlab workload` (`user` true).
fn dbt3_cmd(a: Dbt3Args, user: bool) -> Result<(), Fail> {
    use costlab::dbt3;
    let engine = Engine::parse(&a.engine).map_err(usage)?;
    let file = a.scenario.as_deref().map(load_scenario).transpose()?;
    let queries = match (user, file) {
        (false, _) if a.queries.is_some() => {
            return Err(Fail::Usage(
                "--queries: DBT3 has its own; use `costlab workload` for yours".into(),
            ))
        }
        (false, f) => dbt3::Queries::Dbt3 {
            tables: f.map(|f| f.tables),
        },
        (true, None) => {
            return Err(Fail::Usage(
                "--scenario FILE is needed: the tables the queries read (costlab import, or static/example-shop.json)".into(),
            ))
        }
        (true, Some(f)) => {
            let text = match &a.queries {
                Some(path) => {
                    let fail =
                        |e: std::io::Error| Fail::Error(format!("cannot read {}: {e}", path.display()));
                    if std::fs::metadata(path).map_err(fail)?.len()
                        > costlab_core::workload::user::MAX_TEXT_BYTES as u64
                    {
                        return Err(Fail::Error(format!(
                            "{}: a workload takes at most {} KB of SQL",
                            path.display(),
                            costlab_core::workload::user::MAX_TEXT_BYTES / 1024
                        )));
                    }
                    std::fs::read_to_string(path).map_err(fail)?
                }
                None => f.queries.clone(),
            };
            let name = a
                .scenario
                .as_deref()
                .and_then(|p| p.file_name())
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            dbt3::Queries::User {
                file: name,
                tables: f.tables,
                functions: f.functions,
                text,
            }
        }
    };
    let version = match a.release.as_deref() {
        None => dbt3::default_version(engine),
        Some(r) => {
            let v = engines::parse_version(r).map_err(usage)?;
            if v.engine() != engine {
                return Err(Fail::Usage(format!(
                    "--release: {} is not a release of {}",
                    v.label(),
                    engine.name()
                )));
            }
            v
        }
    };
    let pg_options = switches(engine, &a.disable)?;
    let sf = costlab_core::workload::dbt3::catalog::check_sf(a.sf)
        .map_err(|e| Fail::Usage(format!("--sf: {e}")))?;
    let query = match (user, a.query) {
        (true, Some(n)) if !(1..=costlab_core::workload::user::MAX_QUERIES as i64).contains(&n) => {
            return Err(Fail::Usage(format!("--query: {n} is not a query number")))
        }
        (true, q) => q.map(|n| n as u8),
        (false, q) => q.map(dbt3::check_query).transpose().map_err(usage)?,
    };
    let diagram_axes = if a.diagrams.is_empty() {
        None
    } else {
        use costlab::diagram;
        if a.timings.is_some() || a.baseline.is_some() || !a.baseline_sets.is_empty() {
            return Err(Fail::Usage(
                "--diagram draws the current constants: --timings, --baseline and --baseline-set do not apply".into(),
            ));
        }
        let axes = a
            .diagrams
            .iter()
            .map(|t| diagram::parse_axis(t, engine))
            .collect::<costlab_core::Result<Vec<_>>>()
            .map_err(usage)?;
        if axes.len() > 2 {
            return Err(Fail::Usage("--diagram: at most two knobs (x and y)".into()));
        }
        if axes.len() == 2 && query.is_none() {
            return Err(Fail::Usage(
                "--diagram: a diagram over two knobs is of one query: add --query N".into(),
            ));
        }
        if axes.len() == 2 && axes[0].knob == axes[1].knob {
            return Err(Fail::Usage(
                "--diagram: a diagram needs two different knobs".into(),
            ));
        }
        for ax in &axes {
            costlab_core::diagram::Axis::of_knob(ax.knob, ax.lo, ax.hi, 2).map_err(usage)?;
        }
        Some((axes, a.drawing.grid()?))
    };
    if let Some(n) = a.timings {
        if !(1..=dbt3::MAX_REPEAT).contains(&n) {
            return Err(Fail::Usage(format!(
                "--timings: {n} runs is outside 1 to {}",
                dbt3::MAX_REPEAT
            )));
        }
    }
    let defaults = dbt3::release_defaults(version);
    let mut current = defaults.clone();
    apply_sets(&mut current, &a.sets, engine)?;
    let (baseline, baseline_label) = dbt3::baseline(&defaults, version, a.baseline.as_deref())
        .map_err(|e| {
            Fail::Usage(
                if a.baseline.is_some() && !e.to_string().contains("--baseline") {
                    format!("--baseline: {e}")
                } else {
                    e.to_string()
                },
            )
        })?;
    let (baseline, baseline_label) = if a.baseline_sets.is_empty() {
        (baseline, baseline_label)
    } else {
        let mut k = baseline;
        apply_sets(&mut k, &a.baseline_sets, engine).map_err(|e| match e {
            Fail::Usage(m) => Fail::Usage(match m.strip_prefix("--set") {
                Some(rest) => format!("--baseline-set{rest}"),
                None => format!("--baseline-set: {m}"),
            }),
            other => other,
        })?;
        (
            k,
            format!("{baseline_label} with {}", a.baseline_sets.join(", ")),
        )
    };
    // Plans and costs need no machine; the times do. Without one, the seed's in-memory
    // server (the page's default) times them, and stderr says so.
    let profile_id = match (&a.profile, &a.profile_file) {
        (None, None) => {
            let id = Scenario::default().machine;
            let p = builtin::find(&id)?;
            let _ = writeln!(
                std::io::stderr(),
                "costlab: no --profile given; timing on {id} ({}); see costlab simulate --list-profiles",
                p.label
            );
            Some(id)
        }
        (p, _) => p.clone(),
    };
    let (profile, mut server) =
        machine_profile(profile_id.as_deref(), a.profile_file.as_deref(), a.cold)?;
    a.server.apply(&mut server)?;
    let setup = dbt3::Dbt3Setup {
        version,
        queries,
        sf,
        profile,
        server,
        baseline,
        baseline_label,
        current,
        sets: a.sets.clone(),
        query,
        repeat: a.timings,
        series: a.series,
        pg_options,
    };
    if let Some((axes, grid)) = &diagram_axes {
        let report = costlab::diagram::run(&setup, axes, *grid)?;
        return a.drawing.print(&report, a.json);
    }
    let report = dbt3::run(&setup)?;
    print(&if a.json {
        to_json(&report)?
    } else if query.is_some() {
        report.query_text()
    } else {
        report.text()
    })
}
