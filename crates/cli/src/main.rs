//! `costlab`: the command line over costlab's core.
//!
//! Every failure is one line on stderr; the exit code is 2 for a wrong command line and 1 for
//! any other error. See `costlab --help`. This file holds the command line's top level and
//! the dispatch; each subcommand's options and run are in `cmd/`.

mod cmd;

use clap::{Parser, Subcommand};
use cmd::shared::{clap_one_line, Fail};
use cmd::{dbt3, explain, fit, import, ordering, simulate, sweep, url};
use costlab::import::one_line;
use std::io::Write;
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
        source: import::ImportSource,
    },
    /// Plan a query with an engine's model and print the chosen plan (or all candidates).
    Explain(explain::ExplainArgs),
    /// Vary a constant of the query (or a knob) and print where the chosen plan changes.
    Sweep(sweep::SweepArgs),
    /// Time every candidate plan of a query on a machine profile: which plan the engine
    /// chooses, which is fastest, and the time the choice loses.
    Simulate(simulate::SimulateArgs),
    /// Fit one cost constant (or a pair) so that the engine's choices lose the least
    /// simulated time over a sweep of queries.
    Fit(fit::FitArgs),
    /// Plan DBT3's 22 queries under a baseline and under the current constants, time each
    /// plan on a machine profile and print which plans change and what that costs.
    Dbt3(dbt3::Dbt3Args),
    /// Plan your own queries over a scenario file's tables (`costlab import`) under a
    /// baseline and under the current constants, time each plan on a machine profile and
    /// print which plans change: the table of the page's "your workload" view.
    Workload(dbt3::Dbt3Args),
    /// The third seed's workload: TPROC-H-like tables with fgeo() and fnorm() at COST 5000
    /// and four indexes on them. Each query shape is planned stock and with the "ORDER BY
    /// value handed up" series and timed on a machine profile, its change beside the seed's;
    /// then the closed-loop mix's throughput at the seed's shares of positive queries.
    Ordering(ordering::OrderingArgs),
    /// Convert between playground links and JSON link files (for generated documentation).
    Url {
        #[command(subcommand)]
        action: url::UrlAction,
    },
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
        Err(f) => f.exit(),
    }
}

fn run(cmd: Command) -> Result<(), Fail> {
    match cmd {
        Command::Import { source } => import::run(source),
        Command::Explain(a) => explain::run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Fit(a) => fit::run(a),
        Command::Dbt3(a) => dbt3::run(a, false),
        Command::Workload(a) => dbt3::run(a, true),
        Command::Ordering(a) => ordering::run(a),
        Command::Url { action } => url::run(action),
    }
}
