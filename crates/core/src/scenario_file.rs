//! The scenario file: a versioned JSON document with tables, their statistics, settings and
//! an optional query. `costlab import` writes it, the command line and the page read it.
//!
//! This is a boundary with compatibility obligations: the domain types may change freely,
//! but a file written by any released version must keep loading. Bump `VERSION` and add a
//! migration when the format changes.

use costlab_model::catalog::{Function, Table};
use costlab_model::error::{Error, Result};
use costlab_model::knobs::{EngineVersion, Knob, KnobValues};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const VERSION: u32 = 1;
/// Larger files are refused before parsing.
pub const MAX_BYTES: usize = 16 * 1024 * 1024;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Format version; always first in the file.
    pub costlab_scenario: u32,
    /// The engine release the statistics and settings come from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<EngineVersion>,
    /// Knob values by engine parameter name; knobs not listed keep the release's default.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, f64>,
    pub tables: Vec<Table>,
    /// The schema's own functions with their planner cost (PostgreSQL's pg_proc.procost),
    /// for queries that call them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<Function>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// A workload's queries as one text: a SQL file (`;` between statements) or one query
    /// per line (`costlab_workload::user::split_queries`). The page's "your workload" view
    /// and `costlab workload` plan each of them.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub queries: String,
    /// Free text: where the statistics came from (server version, time of import).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
}

impl ScenarioFile {
    pub fn new(engine: EngineVersion, tables: Vec<Table>) -> ScenarioFile {
        ScenarioFile {
            costlab_scenario: VERSION,
            engine: Some(engine),
            settings: BTreeMap::new(),
            tables,
            functions: Vec::new(),
            query: None,
            queries: String::new(),
            source: String::new(),
        }
    }

    /// Parses and validates a file; every problem names the field at fault.
    pub fn from_json(text: &str) -> Result<ScenarioFile> {
        if text.len() > MAX_BYTES {
            return Err(Error::invalid(
                "scenario file",
                format!(
                    "{} bytes is larger than the {MAX_BYTES} allowed",
                    text.len()
                ),
            ));
        }
        let probe: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| Error::invalid("scenario file", format!("not JSON: {e}")))?;
        match probe.get("costlab_scenario").and_then(|v| v.as_u64()) {
            None => {
                return Err(Error::invalid(
                    "scenario file",
                    "missing `costlab_scenario` (the format version); is this a costlab file?",
                ))
            }
            Some(v) if v > VERSION as u64 => {
                return Err(Error::invalid(
                    "scenario file",
                    format!("format version {v} is newer than this costlab reads ({VERSION}); update costlab"),
                ))
            }
            Some(0) => return Err(Error::invalid("scenario file", "format version 0 does not exist")),
            Some(_) => {}
        }
        let file: ScenarioFile = serde_json::from_value(probe)
            .map_err(|e| Error::invalid("scenario file", e.to_string()))?;
        file.validate()?;
        Ok(file)
    }

    pub fn to_json(&self) -> String {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn validate(&self) -> Result<()> {
        if self.tables.is_empty() {
            return Err(Error::invalid("scenario file", "has no tables"));
        }
        for t in &self.tables {
            t.validate()?;
        }
        for f in &self.functions {
            f.validate()?;
        }
        self.knobs()?;
        costlab_workload::user::split_queries(&self.queries)?;
        Ok(())
    }

    /// The knob values the file describes: the release's defaults overridden by `settings`.
    pub fn knobs(&self) -> Result<KnobValues> {
        let pg = match self.engine {
            Some(
                v @ (EngineVersion::Pg15
                | EngineVersion::Pg16
                | EngineVersion::Pg17
                | EngineVersion::Pg18),
            ) => v,
            _ => EngineVersion::Pg18,
        };
        let my = match self.engine {
            Some(
                v @ (EngineVersion::Mysql57 | EngineVersion::Mysql80 | EngineVersion::Mysql84),
            ) => v,
            _ => EngineVersion::Mysql84,
        };
        let mut values = KnobValues::defaults(pg, my);
        for (name, value) in &self.settings {
            values.set(Knob::lookup(name)?, *value)?;
        }
        Ok(values)
    }

    pub fn table(&self, name: &str) -> Result<&Table> {
        self.tables
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::UnknownTable(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use costlab_model::catalog::{Column, ColumnType, PgTable};

    fn table() -> Table {
        Table {
            name: "t".into(),
            rows: 1000.0,
            columns: vec![Column {
                name: "a".into(),
                ty: ColumnType::Int4,
                not_null: true,
                stats: Default::default(),
            }],
            indexes: vec![],
            pg: Some(PgTable {
                pages: 10.0,
                reltuples: 1000.0,
                relpages: 10.0,
                relallvisible: 0.0,
            }),
            mysql: None,
        }
    }

    #[test]
    fn round_trips_and_applies_settings() {
        let mut f = ScenarioFile::new(EngineVersion::Pg15, vec![table()]);
        f.settings.insert("random_page_cost".into(), 1.1);
        let back = ScenarioFile::from_json(&f.to_json()).unwrap();
        assert_eq!(back, f);
        assert_eq!(back.knobs().unwrap().get(Knob::RandomPageCost), 1.1);
        assert_eq!(back.knobs().unwrap().get(Knob::SeqPageCost), 1.0);
    }

    #[test]
    fn bad_files_name_the_problem() {
        let mut f = ScenarioFile::new(EngineVersion::Pg15, vec![table()]);
        let good = f.to_json();
        for (text, want) in [
            ("", "not JSON"),
            ("{\"tables\": []}", "missing `costlab_scenario`"),
            (
                &good.replace("\"costlab_scenario\": 1", "\"costlab_scenario\": 7"),
                "newer",
            ),
            (&good[..good.len() / 2], "not JSON"),
            (
                &good.replace("\"rows\": 1000.0", "\"rows\": -5.0"),
                "t.rows",
            ),
        ] {
            let err = ScenarioFile::from_json(text).unwrap_err().to_string();
            assert!(err.contains(want), "{err}");
        }
        f.settings.insert("random_page_cost".into(), f64::MAX);
        assert!(f
            .validate()
            .unwrap_err()
            .to_string()
            .contains("random_page_cost"));
        f.settings.clear();
        f.settings.insert("no_such_knob".into(), 1.0);
        assert!(matches!(f.validate(), Err(Error::UnknownKnob(_))));
    }

    /// Functions travel with their cost; a cost that is no cost names the function.
    #[test]
    fn functions_round_trip_and_a_bad_cost_names_the_function() {
        let mut f = ScenarioFile::new(EngineVersion::Pg15, vec![table()]);
        f.functions
            .push(costlab_model::catalog::Function::priced("fnorm", 5000.0));
        let good = f.to_json();
        assert_eq!(ScenarioFile::from_json(&good).unwrap(), f);
        // A measured call time travels too, and a bad one names the function.
        let mut timed = f.clone();
        timed.functions[0].call_ns = Some(2500.0);
        let text = timed.to_json();
        assert!(text.contains("\"call_ns\": 2500.0"), "{text}");
        assert_eq!(ScenarioFile::from_json(&text).unwrap(), timed);
        let err = ScenarioFile::from_json(&text.replace("2500.0", "-2.0"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("function fnorm call_ns"), "{err}");
        // Files written before functions were kept still load, with none.
        let old = ScenarioFile::new(EngineVersion::Pg15, vec![table()]).to_json();
        assert!(!old.contains("functions"));
        assert!(ScenarioFile::from_json(&old).unwrap().functions.is_empty());
        for (bad, want) in [
            ("-1.0", "function fnorm procost"),
            ("1e300", "function fnorm procost"),
            ("null", "expected f64"),
        ] {
            let text = good.replace("\"procost\": 5000.0", &format!("\"procost\": {bad}"));
            assert_ne!(text, good);
            let err = ScenarioFile::from_json(&text).unwrap_err().to_string();
            assert!(err.contains(want), "{bad}: {err}");
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_mangled_files(cut in 0usize..400, junk in "\\PC{0,12}") {
            let good = ScenarioFile::new(EngineVersion::Pg15, vec![table()]).to_json();
            let cut = cut.min(good.len());
            let mangled = format!("{}{}{}", &good[..cut], junk, &good[cut..]);
            let _ = ScenarioFile::from_json(&mangled);
        }
    }
}
