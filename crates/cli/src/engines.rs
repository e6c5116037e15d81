//! One entry point over both engines' models for `explain` and `sweep`.

use costlab_core::catalog::Table;
use costlab_core::knobs::{Engine, EngineVersion, Knob, KnobValues};
use costlab_core::plan::Planned;
use costlab_core::query::Query;
use costlab_core::scenario_file::ScenarioFile;
use costlab_core::{mysql, pg, Error, Result};

/// PostgreSQL's enable_* switches a user can turn off with `--disable` (single-table
/// plans have no joins, so there the join switches change nothing, as on a server).
pub const PG_SWITCHES: [&str; 11] = pg::PgOptions::SWITCHES;

/// Everything besides the table, query and constants that decides a plan.
#[derive(Clone, Debug)]
pub enum Setup {
    Postgres {
        version: EngineVersion,
        options: pg::PgOptions,
        /// The scenario's functions with their planner cost.
        functions: Vec<costlab_core::catalog::Function>,
        /// The "ORDER BY value handed up" series instead of stock (`PgJoinEnv::handed_up`).
        handed_up: bool,
    },
    Mysql {
        env: mysql::MysqlEnv,
    },
}

impl Setup {
    pub fn engine(&self) -> Engine {
        match self {
            Setup::Postgres { .. } => Engine::Postgres,
            Setup::Mysql { .. } => Engine::Mysql,
        }
    }
}

/// PgOptions with the named switches off (`seqscan`, `enable_seqscan`, ...).
pub fn pg_options(disable: &[String]) -> Result<pg::PgOptions> {
    let mut o = pg::PgOptions::default();
    for name in disable {
        let n = name.trim().to_ascii_lowercase();
        let n = n.strip_prefix("enable_").unwrap_or(&n);
        match o.switch_mut(n) {
            Some(flag) => *flag = false,
            None if n.is_empty() => {}
            None => {
                return Err(Error::invalid(
                    "--disable",
                    format!("`{name}` is not one of {}", PG_SWITCHES.join(", ")),
                ))
            }
        }
    }
    Ok(o)
}

/// The release to model: the one named, else the scenario's if it is of this engine, else
/// the engine's latest.
pub fn version_for(
    engine: Engine,
    scenario: &ScenarioFile,
    named: Option<EngineVersion>,
) -> Result<EngineVersion> {
    if let Some(v) = named {
        if v.engine() != engine {
            return Err(Error::invalid(
                "--release",
                format!("{} is not a release of {}", v.label(), engine.name()),
            ));
        }
        return Ok(v);
    }
    Ok(match scenario.engine {
        Some(v) if v.engine() == engine => v,
        _ => EngineVersion::latest(engine),
    })
}

/// Parses a release name: `15`, `pg15`, `postgres18`, `8.0`, `mysql80`, `5.7`.
pub fn parse_version(s: &str) -> Result<EngineVersion> {
    let t: String = s
        .to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_ascii_digit())
        .collect();
    let v = match t.as_str() {
        "15" => EngineVersion::Pg15,
        "16" => EngineVersion::Pg16,
        "17" => EngineVersion::Pg17,
        "18" => EngineVersion::Pg18,
        "57" => EngineVersion::Mysql57,
        "80" => EngineVersion::Mysql80,
        "84" => EngineVersion::Mysql84,
        _ => {
            return Err(Error::invalid(
                "--release",
                format!("`{s}` is not a modelled release (PostgreSQL 15-18, MySQL 5.7, 8.0, 8.4)"),
            ))
        }
    };
    Ok(v)
}

/// The scenario's constants for a release: that release's defaults (the file's release for
/// the other engine), then the file's settings.
pub fn knobs_for(scenario: &ScenarioFile, version: EngineVersion) -> Result<KnobValues> {
    let other = |engine: Engine| match scenario.engine {
        Some(v) if v.engine() == engine => v,
        _ => EngineVersion::latest(engine),
    };
    let (pg, my) = match version.engine() {
        Engine::Postgres => (version, other(Engine::Mysql)),
        Engine::Mysql => (other(Engine::Postgres), version),
    };
    let mut k = KnobValues::defaults(pg, my);
    for (name, value) in &scenario.settings {
        k.set(Knob::lookup(name)?, *value)?;
    }
    Ok(k)
}

pub fn plan(setup: &Setup, table: &Table, query: &Query, knobs: &KnobValues) -> Result<Planned> {
    match setup {
        Setup::Postgres {
            version, options, ..
        } => pg::plan(table, query, knobs, *version, options),
        Setup::Mysql { env } => mysql::plan(table, query, knobs, env),
    }
}

pub fn explain_text(setup: &Setup, planned: &Planned) -> String {
    match setup {
        Setup::Postgres { .. } => pg::explain_text(planned),
        Setup::Mysql { .. } => mysql::explain_text(planned),
    }
}

/// A query of any shape the SQL front end reads, prepared for the engine's join planner over
/// the scenario's tables: read once, planned under any constants.
pub struct JoinSetup {
    query: costlab_core::block::JoinQuery,
    planner: JoinPlanner,
}

enum JoinPlanner {
    Postgres(pg::join::PgJoinPlanner),
    Mysql(mysql::join::MysqlJoinPlanner),
}

impl JoinSetup {
    pub fn new(setup: &Setup, tables: &[Table], sql: &str) -> Result<JoinSetup> {
        use costlab_core::plan::Name;
        use costlab_core::sql::{read_query, Dialect};
        let dialect = match setup {
            Setup::Postgres { .. } => Dialect::Postgres,
            Setup::Mysql { .. } => Dialect::Mysql,
        };
        let mut block = read_query(sql, dialect, tables)?;
        block.assume_unknown_truth();
        let query = costlab_core::block::JoinQuery {
            number: 1,
            title: Name::from_static("query"),
            sql: Name::from(sql),
            block,
        };
        let planner = match setup {
            Setup::Postgres {
                version,
                options,
                functions,
                handed_up,
            } => JoinPlanner::Postgres(pg::join::PgJoinPlanner::new(
                tables,
                pg::join::PgJoinEnv {
                    version: *version,
                    opts: options.clone(),
                    functions: functions.clone(),
                    handed_up: *handed_up,
                    ..pg::join::PgJoinEnv::default()
                },
            )?),
            Setup::Mysql { env } => JoinPlanner::Mysql(mysql::join::MysqlJoinPlanner::new(
                tables,
                mysql::join::JoinEnv {
                    server: env.clone(),
                    ..mysql::join::JoinEnv::default()
                },
            )?),
        };
        Ok(JoinSetup { query, planner })
    }

    /// The chosen plan under `knobs`: its signature (equal signatures, the same plan), its
    /// tree and its EXPLAIN-like text.
    pub fn plan(
        &self,
        knobs: &KnobValues,
    ) -> Result<(String, costlab_core::plan::PlanNode, String)> {
        Ok(match &self.planner {
            JoinPlanner::Postgres(p) => {
                let plan = p.plan(&self.query, knobs)?;
                let text = pg::explain_node(&plan.tree);
                (plan.signature(), plan.tree, text)
            }
            JoinPlanner::Mysql(p) => {
                let plan = p.plan(&self.query, knobs)?;
                let text = costlab_core::compare::tree_text(&plan.tree, None);
                (plan.signature(), plan.tree, text)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_switches_parse() {
        assert_eq!(parse_version("pg15").unwrap(), EngineVersion::Pg15);
        assert_eq!(parse_version("18").unwrap(), EngineVersion::Pg18);
        assert_eq!(parse_version("8.0").unwrap(), EngineVersion::Mysql80);
        assert!(parse_version("9.6").is_err());
        let o = pg_options(&["seqscan".into(), "enable_bitmapscan".into()]).unwrap();
        assert!(!o.enable_seqscan && !o.enable_bitmapscan && o.enable_indexscan);
        let o = pg_options(&["enable_nestloop".into(), "MergeJoin".into()]).unwrap();
        assert!(!o.enable_nestloop && !o.enable_mergejoin && o.enable_hashjoin);
        let e = pg_options(&["hashjoins".into()]).unwrap_err().to_string();
        assert!(e.contains("hashjoins") && e.contains("nestloop"), "{e}");
    }
}
