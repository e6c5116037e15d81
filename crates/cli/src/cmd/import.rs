//! `costlab import postgres`: a live server's statistics and settings into a scenario file
//! (the reading is `costlab::import`'s).

use super::shared::{print, warn, write_atomically, Fail};
use clap::Subcommand;
use costlab::import::{import_postgres, ImportOptions};
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum ImportSource {
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

/// `costlab import postgres`.
pub fn run(source: ImportSource) -> Result<(), Fail> {
    let ImportSource::Postgres {
        dsn,
        tables,
        schemas,
        out,
        count_rows,
        raw_histograms,
    } = source;
    let options = ImportOptions {
        count_rows,
        raw_histograms,
        schemas,
    };
    let imported = import_postgres(&dsn, &tables, &options).map_err(|e| Fail::Error(e.0))?;
    let mut json = imported.scenario.to_json();
    json.push('\n');
    match out {
        Some(path) => write_atomically(&path, json.as_bytes())?,
        None => print(&json)?,
    }
    for w in &imported.warnings {
        warn(w);
    }
    Ok(())
}
