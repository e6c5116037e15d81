//! The messages' types: what the page asks of the worker ([`ToWorker`]) and what the worker
//! sends ([`FromWorker`]), with the knob values' form in them ([`knob_list`]).

use costlab_core::knobs::{Engine, EngineVersion, KnobValues, KNOBS};
use costlab_core::scenario::ServerSettings;
use costlab_core::sim::profile::MachineProfile;
use costlab_core::validation::Scatter;
use serde::{Deserialize, Serialize};

/// What the page asks of the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToWorker {
    Dbt3(Box<Request>),
    /// Both plan trees of one query, as the worker last planned them (the detail panel asks
    /// when a row opens; replies carry no trees).
    Trees(TreesRequest),
    Calibration(CalibrationRequest),
    Validation(ValidationRequest),
    /// A scenario file for the user's workload.
    Scenario(ScenarioRequest),
    /// A plan diagram (or the flip map) over the last DBT3 request's queries.
    Diagram(DiagramRequest),
    /// The third seed's ordering workload: its shapes planned and timed, and the mix.
    Ordering(Box<OrderingRequest>),
}

/// Plan and time the ordering workload's shapes stock and with the build the page names,
/// then run the closed-loop mix over w.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderingRequest {
    /// Replies carry it back, so the reply to older inputs can be dropped.
    pub id: u64,
    pub sf: f64,
    /// The functions' declared cost (pg_proc.procost).
    pub procost: f64,
    /// Compare the series with stock (else stock with itself).
    pub series: bool,
    pub version: EngineVersion,
    pub machine: MachineProfile,
    /// Every knob's value in `KNOBS` order.
    pub current: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderingReply {
    pub id: u64,
    pub result: Result<OrderingView, String>,
}

/// What the ordering view shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderingView {
    pub rows: Vec<OrderingRow>,
    /// Over w from 0 to 1: (w, stock q/s, the build's q/s) on the simulated times.
    pub mix: Vec<(f64, f64, f64)>,
    /// The same on the seed's stock service times (`ordering::mix_on_seed_times`).
    pub seed_times_mix: Vec<(f64, f64, f64)>,
    /// The PostgreSQL model's planning time for DBT3's 22 queries at SF 30 in this worker,
    /// ms (median of the rounds), beside the seed's 18.47 ms for TPROC-H's.
    pub planning_ms: Option<f64>,
}

/// One shape, stock against the build.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderingRow {
    pub name: String,
    pub title: String,
    /// The seed's change for this shape, as text ("-64 %", "+8.5 %", "~0 %").
    pub seed: String,
    pub positive: bool,
    pub stock_ms: f64,
    pub build_ms: f64,
    pub stock_calls: f64,
    pub build_calls: f64,
    pub stock_plan: String,
    pub build_plan: String,
}

/// One axis of a diagram: a knob (by name) from `lo` to `hi` in `n` values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AxisRequest {
    pub knob: String,
    pub lo: f64,
    pub hi: f64,
    pub n: usize,
}

/// A plan diagram of one query over `x` and `y`, or (no query) the flip map of every query
/// over `x`, with the other knobs at `current`, planned by the planner of the last DBT3
/// request for `engine`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiagramRequest {
    /// Replies carry it back, so the reply to older inputs can be dropped.
    pub id: u64,
    /// The DBT3 request whose planners draw it (the page asks once that reply is shown).
    pub table: u64,
    pub engine: Engine,
    pub query: Option<u8>,
    pub x: AxisRequest,
    pub y: Option<AxisRequest>,
    /// Every knob's value in `KNOBS` order.
    pub current: Vec<f64>,
    /// Locate the boundaries (the fine picture) or not (the first, coarse one).
    pub fine: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiagramReply {
    pub id: u64,
    pub fine: bool,
    /// The request's axes' knobs and query: the picture is drawn with these, not with
    /// whatever the controls show meanwhile.
    pub x: String,
    pub y: Option<String>,
    pub query: Option<u8>,
    pub result: Result<DiagramView, String>,
}

/// A diagram (or the flip map) drawn by the worker (`diagram_render`): the page injects
/// the SVG and the legend as they come, so its bundle carries no drawing code for them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiagramView {
    pub svg: String,
    /// The same picture with cells shaded by the time their plan loses.
    pub regret_svg: String,
    /// HTML: per query, each plan's colour, letter, summary, cells, time and regret.
    pub legend: String,
    /// A line per cell, for the export.
    pub csv: String,
    /// The axes' values (a click picks a cell by them); `y` empty with one axis.
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    /// The flip map's query per row, top to bottom (empty for one query's diagram): a
    /// click on a row opens that query in the table.
    pub rows: Vec<u8>,
    /// The picture's height in SVG units (its width is fixed).
    pub height: f64,
    pub boundaries: u32,
}

/// Read a scenario file (`costlab import`'s, already checked against
/// `scenario_file::MAX_BYTES` by the page) into the tables the user's workload plans on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRequest {
    /// Replies carry it back, so the reply to an older file can be dropped.
    pub id: u64,
    /// The file's name, as the link and the page name the tables.
    pub name: String,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioReply {
    pub id: u64,
    pub result: Result<ScenarioLoaded, String>,
}

/// A scenario file as the page keeps it: its tables as compact JSON (which only the worker
/// reads), its queries, and a line per table to show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioLoaded {
    pub name: String,
    pub tables_json: String,
    pub queries: String,
    pub lines: Vec<String>,
}

/// One query's trees from the worker's last DBT3 reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TreesRequest {
    pub engine: Engine,
    pub number: u8,
}

/// The trees of one query; `id` is the DBT3 reply they belong to, so the page can drop
/// trees of plans it no longer shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TreesReply {
    pub id: u64,
    pub engine: Engine,
    pub number: u8,
    pub trees: Result<Trees, String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trees {
    pub baseline: Node,
    pub current: Node,
}

/// Read a `costlab-probe` calibration file (already checked against
/// `calibration::MAX_BYTES` by the page) into a machine profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CalibrationRequest {
    /// Replies carry it back, so the reply to an older file can be dropped.
    pub id: u64,
    pub text: String,
}

/// The calibration file's machine and what the page says about it, or why it cannot be used.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CalibrationReply {
    pub id: u64,
    pub result: Result<Calibrated, String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibrated {
    pub profile: Box<MachineProfile>,
    /// The machine, the figures the profile uses with their confidence intervals, warnings.
    pub lines: Vec<String>,
}

/// Read a `costlab-probe validate` report (already checked against
/// `validation::MAX_BYTES` by the page) into its scatter and summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationRequest {
    /// Replies carry it back, so the reply to an older file can be dropped.
    pub id: u64,
    pub text: String,
}

/// What the page shows of a validation report, or why the file cannot be read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationReply {
    pub id: u64,
    pub result: Result<ValidationShown, String>,
}

/// A validation report reduced to what the page draws and says, all computed by the core
/// (`ValidationReport::scatter`, `summary_rows`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationShown {
    /// The engine release the model planned with ("PostgreSQL 15").
    pub engine: String,
    /// As the server reported it.
    pub server_version: String,
    /// The machine profile the times are simulated on (its label).
    pub machine: String,
    /// When the run finished (UTC, ISO 8601).
    pub created: String,
    pub scatter: Scatter,
    /// `SummaryRow::line` of each workload and cache state, then of all queries.
    pub summary: Vec<String>,
}

/// Which queries a request plans.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Queries {
    /// DBT3's 22 at a scale factor, on the built-in catalog.
    Dbt3 { sf: f64 },
    /// The user's: `tables` a scenario file's tables as compact JSON (`None`: the example's),
    /// `text` the queries (`workload::user::split_queries`).
    User {
        tables: Option<String>,
        text: String,
    },
}

/// Plan every query of each engine under `baseline` and `current`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Increases with every request; replies carry it back so stale ones can be dropped.
    pub id: u64,
    pub queries: Queries,
    /// One entry per engine on show, in the page's order.
    pub versions: Vec<EngineVersion>,
    pub machine: MachineProfile,
    /// MySQL's server settings (the scenario's; never derived from the machine's id).
    pub server: ServerSettings,
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
    Trees(TreesReply),
    Calibration(CalibrationReply),
    Validation(ValidationReply),
    Scenario(ScenarioReply),
    Diagram(DiagramReply),
    Ordering(OrderingReply),
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
    /// The user's queries this engine's SQL front end refused (none for DBT3), by number.
    pub refused: Vec<Refused>,
    /// The worker's milliseconds for this table (preparing the planner when its inputs
    /// changed, planning and timing every query); 0 from a worker without a clock.
    #[serde(default)]
    pub planning_ms: f64,
}

/// A query the engine cannot plan, and why: `start..end` marks the part of `text` the
/// front end names (byte offsets; empty when it names none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Refused {
    pub number: u8,
    pub text: String,
    pub message: String,
    pub start: usize,
    pub end: usize,
}

/// One query as the table shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub number: u8,
    pub title: String,
    /// Where the plan first changed (`costlab_core::plan::change_site`); `None`: same plan.
    pub change: Option<String>,
    pub baseline: Side,
    pub current: Side,
}

impl Row {
    pub fn changed(&self) -> bool {
        self.change.is_some()
    }

    /// Change of simulated time from baseline to current, in percent (negative: faster).
    pub fn change_pct(&self) -> f64 {
        if self.baseline.time_s > 0.0 {
            100.0 * (self.current.time_s - self.baseline.time_s) / self.baseline.time_s
        } else {
            0.0
        }
    }
}

/// One query's plan under one set of constants, as its row shows it (the trees travel
/// apart, on demand: see [`ToWorker::Trees`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// `compare::plan_summary`: first access, then the join order.
    pub summary: String,
    pub cost: f64,
    pub rows: f64,
    pub time_s: f64,
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
