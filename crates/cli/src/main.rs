//! `costlab`: the command line over costlab's core.
//!
//! Every failure is one line on stderr; the exit code is 2 for a wrong command line and 1 for
//! any other error. See `costlab --help`.

use clap::{Args, Parser, Subcommand};
use costlab::engines::{self, Setup};
use costlab::import::{import_postgres, one_line, ImportOptions};
use costlab_core::knobs::{Engine, Knob, KnobValues};
use costlab_core::query::Query;
use costlab_core::scenario_file::{ScenarioFile, MAX_BYTES};
use costlab_core::sweep::{self, Spacing};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
        #[arg(long = "table", required = true)]
        tables: Vec<String>,
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
    /// Override a knob: name=value (engine parameter name or URL key); repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    sets: Vec<String>,
    /// PostgreSQL: turn off plan types (seqscan, indexscan, indexonlyscan, bitmapscan, sort).
    #[arg(long, value_delimiter = ',')]
    disable: Vec<String>,
    /// MySQL: innodb_buffer_pool_size in MB.
    #[arg(long)]
    buffer_pool_mb: Option<f64>,
    /// Release to model (15..18 for PostgreSQL; 5.7, 8.0, 8.4 for MySQL); default: the
    /// scenario's release, else the newest.
    #[arg(long)]
    engine_version: Option<String>,
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
            let msg = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                "a command is required: import, explain or sweep".to_string()
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
                    out,
                    count_rows,
                    raw_histograms,
                },
        } => {
            let options = ImportOptions {
                count_rows,
                raw_histograms,
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
        .engine_version
        .as_deref()
        .map(engines::parse_version)
        .transpose()
        .map_err(usage)?;
    let scenario = load_scenario(&c.scenario)?;
    let version = engines::version_for(engine, &scenario, named).map_err(usage)?;
    let mut knobs = engines::knobs_for(&scenario, version)?;
    for s in &c.sets {
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
            }
        }
        Engine::Mysql => {
            if !c.disable.is_empty() {
                return Err(Fail::Usage(
                    "--disable takes PostgreSQL's enable_* switches; not available for MySQL"
                        .into(),
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
    let query = Query::parse(&sql)?;
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
    let fixed = match knob {
        Some(_) => Some(Query::parse(&a.query_template)?),
        None => None,
    };
    let plan_at = |x: f64| -> costlab_core::Result<costlab_core::plan::Planned> {
        let mut k = knobs.clone();
        let query = match (&fixed, knob) {
            (Some(q), Some(knob)) => {
                k.set(knob, x)?;
                q.clone()
            }
            _ => Query::parse(&a.query_template.replace("{x}", &format!("{x}")))?,
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
