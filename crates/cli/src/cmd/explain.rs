//! `costlab explain`: one query planned with an engine's model, printed as the engine's
//! EXPLAIN prints the chosen plan, or every candidate as JSON.

use super::args::{prepare, Common};
use super::shared::{print, Fail};
use clap::Args;
use costlab::engines;
use costlab_core::query::Query;

#[derive(Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    common: Common,
    /// The query; default: the scenario's query.
    #[arg(long)]
    query: Option<String>,
    /// Print every candidate plan as JSON instead of the chosen plan's text.
    #[arg(long)]
    json: bool,
}

/// `costlab explain`.
pub fn run(a: ExplainArgs) -> Result<(), Fail> {
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
