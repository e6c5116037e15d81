//! What the page and its helper worker say to each other: one JSON string per message.
//!
//! The worker (`worker`, its own wasm, loaded only when needed) holds the code the page's
//! bundle does without: the DBT3 planners and the calibration-file and validation-report
//! readers. The page sends
//! the inputs and receives what it shows, already reduced to text and numbers. These types
//! are the only thing both sides share.
//!
//! Numbers travel as JSON text. The page reads the worker's messages with the browser's
//! JSON parser (exact); the worker reads the page's with serde_json, whose build leaves out
//! the exact float parser (`float_roundtrip`, a size cost), so a long decimal sent to the
//! worker may arrive one ulp off: within the end-to-end tests' 1e-9 comparison.

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
    /// The same on the seed's stock service times (`workload::ordering::mix_on_seed_times`).
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

/// Reads a message from the worker with the browser's own JSON parser (exact for every
/// number) and the readers in [`read`]: serde's derived deserialisers with serde_json's
/// parser cost the page's bundle 22 KB gzipped more (measured). Browser only.
pub fn parse(text: &str) -> Result<FromWorker, String> {
    js_sys::JSON::parse(text)
        .ok()
        .and_then(|v| read::from_worker(&v))
        .ok_or_else(|| format!("the worker sent an unreadable message: {text:.80}"))
}

/// Each reader mirrors the serde form of its type (serde_json's: enums externally tagged,
/// `Result` as `{"Ok": ...}` or `{"Err": ...}`, `Option` as null); `None` when a value does
/// not fit. `parse(to_json(x)) == x` is tested in web/tests/browser.rs.
mod read {
    use super::*;
    use costlab_core::sim::profile::{Confidence, Device, HashRowCost, QdPoint, RandomRead};
    use costlab_core::validation::{CacheState, ScatterPoint};
    use js_sys::{Array, Reflect};
    use wasm_bindgen::JsValue;

    fn get(v: &JsValue, key: &str) -> JsValue {
        Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    }

    fn num(v: &JsValue, key: &str) -> Option<f64> {
        get(v, key).as_f64()
    }

    fn text(v: &JsValue, key: &str) -> Option<String> {
        get(v, key).as_string()
    }

    fn flag(v: &JsValue, key: &str) -> Option<bool> {
        get(v, key).as_bool()
    }

    /// A missing or null value is `None`; anything else must read.
    fn opt<T>(v: JsValue, f: impl Fn(&JsValue) -> Option<T>) -> Option<Option<T>> {
        if v.is_null() || v.is_undefined() {
            Some(None)
        } else {
            f(&v).map(Some)
        }
    }

    fn list<T>(v: &JsValue, f: impl Fn(&JsValue) -> Option<T>) -> Option<Vec<T>> {
        if !Array::is_array(v) {
            return None;
        }
        Array::from(v).iter().map(|x| f(&x)).collect()
    }

    fn result<T>(v: &JsValue, f: impl Fn(&JsValue) -> Option<T>) -> Option<Result<T, String>> {
        let ok = get(v, "Ok");
        if ok.is_undefined() {
            get(v, "Err").as_string().map(Err)
        } else {
            f(&ok).map(Ok)
        }
    }

    pub fn from_worker(v: &JsValue) -> Option<FromWorker> {
        if v.as_string().as_deref() == Some("Ready") {
            return Some(FromWorker::Ready);
        }
        if let Some(m) = text(v, "Failed") {
            return Some(FromWorker::Failed(m));
        }
        let r = get(v, "Reply");
        if !r.is_undefined() {
            return Some(FromWorker::Reply(Reply {
                id: num(&r, "id")? as u64,
                tables: list(&get(&r, "tables"), engine_table)?,
            }));
        }
        let t = get(v, "Trees");
        if !t.is_undefined() {
            return Some(FromWorker::Trees(TreesReply {
                id: num(&t, "id")? as u64,
                engine: engine(&get(&t, "engine"))?,
                number: num(&t, "number")? as u8,
                trees: result(&get(&t, "trees"), |v| {
                    Some(Trees {
                        baseline: node(&get(v, "baseline"))?,
                        current: node(&get(v, "current"))?,
                    })
                })?,
            }));
        }
        let r = get(v, "Scenario");
        if !r.is_undefined() {
            return Some(FromWorker::Scenario(ScenarioReply {
                id: num(&r, "id")? as u64,
                result: result(&get(&r, "result"), |v| {
                    Some(ScenarioLoaded {
                        name: text(v, "name")?,
                        tables_json: text(v, "tables_json")?,
                        queries: text(v, "queries")?,
                        lines: list(&get(v, "lines"), JsValue::as_string)?,
                    })
                })?,
            }));
        }
        let r = get(v, "Diagram");
        if !r.is_undefined() {
            return Some(FromWorker::Diagram(DiagramReply {
                id: num(&r, "id")? as u64,
                fine: flag(&r, "fine")?,
                x: text(&r, "x")?,
                y: opt(get(&r, "y"), JsValue::as_string)?,
                query: opt(get(&r, "query"), |q| q.as_f64().map(|n| n as u8))?,
                result: result(&get(&r, "result"), diagram_view)?,
            }));
        }
        let r = get(v, "Ordering");
        if !r.is_undefined() {
            return Some(FromWorker::Ordering(OrderingReply {
                id: num(&r, "id")? as u64,
                result: result(&get(&r, "result"), ordering_view)?,
            }));
        }
        let r = get(v, "Validation");
        if !r.is_undefined() {
            return Some(FromWorker::Validation(ValidationReply {
                id: num(&r, "id")? as u64,
                result: result(&get(&r, "result"), validation_shown)?,
            }));
        }
        let c = get(v, "Calibration");
        Some(FromWorker::Calibration(CalibrationReply {
            id: num(&c, "id")? as u64,
            result: result(&get(&c, "result"), |v| {
                Some(Calibrated {
                    profile: Box::new(profile(&get(v, "profile"))?),
                    lines: list(&get(v, "lines"), JsValue::as_string)?,
                })
            })?,
        }))
    }

    fn triple(v: &JsValue) -> Option<(f64, f64, f64)> {
        match list(v, JsValue::as_f64)?.as_slice() {
            [a, b, c] => Some((*a, *b, *c)),
            _ => None,
        }
    }

    fn ordering_view(v: &JsValue) -> Option<OrderingView> {
        Some(OrderingView {
            rows: list(&get(v, "rows"), |r| {
                Some(OrderingRow {
                    name: text(r, "name")?,
                    title: text(r, "title")?,
                    seed: text(r, "seed")?,
                    positive: flag(r, "positive")?,
                    stock_ms: num(r, "stock_ms")?,
                    build_ms: num(r, "build_ms")?,
                    stock_calls: num(r, "stock_calls")?,
                    build_calls: num(r, "build_calls")?,
                    stock_plan: text(r, "stock_plan")?,
                    build_plan: text(r, "build_plan")?,
                })
            })?,
            mix: list(&get(v, "mix"), triple)?,
            seed_times_mix: list(&get(v, "seed_times_mix"), triple)?,
            planning_ms: opt(get(v, "planning_ms"), JsValue::as_f64)?,
        })
    }

    fn pair(v: &JsValue) -> Option<(f64, f64)> {
        match list(v, JsValue::as_f64)?.as_slice() {
            [a, b] => Some((*a, *b)),
            _ => None,
        }
    }

    fn diagram_view(v: &JsValue) -> Option<DiagramView> {
        Some(DiagramView {
            svg: text(v, "svg")?,
            regret_svg: text(v, "regret_svg")?,
            legend: text(v, "legend")?,
            csv: text(v, "csv")?,
            x: list(&get(v, "x"), JsValue::as_f64)?,
            y: list(&get(v, "y"), JsValue::as_f64)?,
            rows: list(&get(v, "rows"), |q| q.as_f64().map(|q| q as u8))?,
            height: num(v, "height")?,
            boundaries: num(v, "boundaries")? as u32,
        })
    }

    fn validation_shown(v: &JsValue) -> Option<ValidationShown> {
        let s = get(v, "scatter");
        Some(ValidationShown {
            engine: text(v, "engine")?,
            server_version: text(v, "server_version")?,
            machine: text(v, "machine")?,
            created: text(v, "created")?,
            scatter: Scatter {
                points: list(&get(&s, "points"), scatter_point)?,
                range: pair(&get(&s, "range"))?,
                limit_s: num(&s, "limit_s")?,
            },
            summary: list(&get(v, "summary"), JsValue::as_string)?,
        })
    }

    fn scatter_point(v: &JsValue) -> Option<ScatterPoint> {
        Some(ScatterPoint {
            workload: text(v, "workload")?,
            query: text(v, "query")?,
            cache: match text(v, "cache")?.as_str() {
                "warm" => CacheState::Warm,
                "cold" => CacheState::Cold,
                _ => return None,
            },
            key: text(v, "key")?,
            real_s: opt(get(v, "real_s"), JsValue::as_f64)?,
            sim_s: num(v, "sim_s")?,
            at: pair(&get(v, "at"))?,
        })
    }

    fn engine_table(v: &JsValue) -> Option<EngineTable> {
        Some(EngineTable {
            engine: engine(&get(v, "engine"))?,
            rows: result(&get(v, "rows"), |v| list(v, row))?,
            refused: list(&get(v, "refused"), |v| {
                Some(Refused {
                    number: num(v, "number")? as u8,
                    text: text(v, "text")?,
                    message: text(v, "message")?,
                    start: num(v, "start")? as usize,
                    end: num(v, "end")? as usize,
                })
            })?,
            planning_ms: num(v, "planning_ms").unwrap_or(0.0),
        })
    }

    fn engine(v: &JsValue) -> Option<Engine> {
        match v.as_string()?.as_str() {
            "postgres" => Some(Engine::Postgres),
            "mysql" => Some(Engine::Mysql),
            _ => None,
        }
    }

    fn row(v: &JsValue) -> Option<Row> {
        Some(Row {
            number: num(v, "number")? as u8,
            title: text(v, "title")?,
            change: opt(get(v, "change"), |c| c.as_string())?,
            baseline: side(&get(v, "baseline"))?,
            current: side(&get(v, "current"))?,
        })
    }

    fn side(v: &JsValue) -> Option<Side> {
        Some(Side {
            summary: text(v, "summary")?,
            cost: num(v, "cost")?,
            rows: num(v, "rows")?,
            time_s: num(v, "time_s")?,
        })
    }

    fn node(v: &JsValue) -> Option<Node> {
        Some(Node {
            op: text(v, "op")?,
            relation: opt(get(v, "relation"), JsValue::as_string)?,
            index: opt(get(v, "index"), JsValue::as_string)?,
            rows: num(v, "rows")?,
            cost: num(v, "cost")?,
            children: list(&get(v, "children"), node)?,
        })
    }

    fn profile(v: &JsValue) -> Option<MachineProfile> {
        let d = get(v, "device");
        Some(MachineProfile {
            id: text(v, "id")?,
            label: text(v, "label")?,
            source: text(v, "source")?,
            confidence: Confidence::parse(&text(v, "confidence")?)?,
            // Calibration files are measured throughout: no per-figure sources.
            figures: Vec::new(),
            device: Device {
                seq_read_mbps: num(&d, "seq_read_mbps")?,
                random_8k: random(&get(&d, "random_8k"))?,
                random_16k: random(&get(&d, "random_16k"))?,
                skip_read_us: opt(get(&d, "skip_read_us"), JsValue::as_f64)?,
                iops_cap: opt(get(&d, "iops_cap"), JsValue::as_f64)?,
                mbps_cap: opt(get(&d, "mbps_cap"), JsValue::as_f64)?,
                ordered_read_mbps: opt(get(&d, "ordered_read_mbps"), JsValue::as_f64)?,
                direct_page_read_mbps: opt(get(&d, "direct_page_read_mbps"), JsValue::as_f64)?,
            },
            buffer_hit_ns: num(v, "buffer_hit_ns")?,
            os_cache_hit_ns: num(v, "os_cache_hit_ns")?,
            os_cache_evict_hit_ns: opt(get(v, "os_cache_evict_hit_ns"), JsValue::as_f64)?,
            cpu_ns_per_row: num(v, "cpu_ns_per_row")?,
            cpu_ns_per_index_entry: num(v, "cpu_ns_per_index_entry")?,
            cpu_ns_per_operator: num(v, "cpu_ns_per_operator")?,
            cpu_ns_per_comparison: num(v, "cpu_ns_per_comparison")?,
            hash_rows: opt(get(v, "hash_rows"), |h| {
                Some(HashRowCost {
                    small_bytes: num(h, "small_bytes")?,
                    small_ns: num(h, "small_ns")?,
                    large_bytes: num(h, "large_bytes")?,
                    large_ns: num(h, "large_ns")?,
                })
            })?,
            ram_bytes: num(v, "ram_bytes")?,
            buffer_pool_bytes: num(v, "buffer_pool_bytes")?,
            bypass_os_cache: flag(v, "bypass_os_cache")?,
            warm_cache: flag(v, "warm_cache")?,
            effective_io_concurrency: num(v, "effective_io_concurrency")?,
            executor_start_ns: opt(get(v, "executor_start_ns"), JsValue::as_f64)?.unwrap_or(0.0),
        })
    }

    fn random(v: &JsValue) -> Option<RandomRead> {
        Some(RandomRead {
            qd1_latency_us: num(v, "qd1_latency_us")?,
            iops_by_qd: list(&get(v, "iops_by_qd"), |q| {
                Some(QdPoint {
                    queue_depth: num(q, "queue_depth")?,
                    iops: num(q, "iops")?,
                })
            })?,
        })
    }
}

/// The worker's writer. Serialising these types cannot fail (no maps with non-string keys,
/// no custom code).
pub fn to_json<T: Serialize>(m: &T) -> String {
    serde_json::to_string(m).unwrap_or_default()
}

/// The page's writer, for what it sends the worker: serde-wasm-bindgen builds the message
/// as a JS value and the browser's `JSON.stringify` writes it, so the page's bundle carries
/// no JSON writer (serde_json's and its float printer's code) of its own. The text is the
/// same JSON serde_json reads, with numbers in JS's shortest round-trip form (exact):
/// `json_compatible` writes `None` as null and maps as objects, as serde_json does.
pub fn to_message<T: Serialize>(m: &T) -> String {
    m.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .ok()
        .and_then(|v| js_sys::JSON::stringify(&v).ok())
        .and_then(|s| s.as_string())
        .unwrap_or_default()
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
