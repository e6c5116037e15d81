//! What the page and the DBT3 worker say to each other: one JSON string per message.
//!
//! The planners live only in the worker's wasm (`dbt3_worker`), so the page's bundle stays
//! small; the page sends the inputs and receives what the table shows, already reduced to
//! text and numbers. These types are the only thing both sides share.
//!
//! Numbers travel as JSON text. The page's build leaves out serde_json's exact float parser
//! (`float_roundtrip`, a size cost), so a long decimal may come back one ulp off: invisible
//! in the table, and within the end-to-end tests' 1e-9 comparison with the command line.

use costlab_core::knobs::{Engine, EngineVersion, KnobValues, KNOBS};
use costlab_core::sim::profile::MachineProfile;
use serde::{Deserialize, Serialize};

/// Plan every query of each engine under `baseline` and `current`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Increases with every request; replies carry it back so stale ones can be dropped.
    pub id: u64,
    pub sf: f64,
    /// One entry per engine on show, in the page's order.
    pub versions: Vec<EngineVersion>,
    pub machine: MachineProfile,
    /// Every knob's value in `KNOBS` order (see [`knob_list`]).
    pub baseline: Vec<f64>,
    pub current: Vec<f64>,
}

/// What the worker sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FromWorker {
    /// The wasm is loaded and listening: messages sent before this are lost.
    Ready,
    Reply(Reply),
    /// The worker could not start (its wasm failed to load); no reply will come.
    Failed(String),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub id: u64,
    /// One per requested engine, in the request's order.
    pub tables: Vec<EngineTable>,
}

/// One engine's rows, or why it cannot plan DBT3 with these inputs.
pub type Table = Result<Vec<Row>, String>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineTable {
    pub engine: Engine,
    pub rows: Table,
}

/// One query as the table shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub number: u8,
    pub title: String,
    pub changed: bool,
    pub baseline: Side,
    pub current: Side,
}

impl Row {
    /// Change of simulated time from baseline to current, in percent (negative: faster).
    pub fn change_pct(&self) -> f64 {
        if self.baseline.time_s > 0.0 {
            100.0 * (self.current.time_s - self.baseline.time_s) / self.baseline.time_s
        } else {
            0.0
        }
    }
}

/// One query's plan under one set of constants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// `compare::plan_summary`: first access, then the join order.
    pub summary: String,
    pub cost: f64,
    pub rows: f64,
    pub time_s: f64,
    pub tree: Node,
}

/// A plan node with only what the detail panel prints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub op: String,
    pub relation: Option<String>,
    pub index: Option<String>,
    pub rows: f64,
    pub cost: f64,
    pub children: Vec<Node>,
}

/// Knob values as the protocol carries them: `KnobValues` has no serde form, and both
/// sides are built from the same knob table.
pub fn knob_list(k: &KnobValues) -> Vec<f64> {
    KNOBS.iter().map(|d| k.get(d.knob)).collect()
}

/// The reverse of [`knob_list`], validating every value as the page's controls do.
pub fn knob_values(list: &[f64]) -> Result<KnobValues, String> {
    if list.len() != KNOBS.len() {
        return Err(format!(
            "expected {} knob values, got {}",
            KNOBS.len(),
            list.len()
        ));
    }
    let mut k = KnobValues::defaults(
        EngineVersion::latest(Engine::Postgres),
        EngineVersion::latest(Engine::Mysql),
    );
    for (d, v) in KNOBS.iter().zip(list) {
        k.set(d.knob, *v).map_err(|e| e.to_string())?;
    }
    Ok(k)
}
