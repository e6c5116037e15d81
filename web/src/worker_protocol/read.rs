//! The page's reader of the worker's messages: the browser's own JSON parser (exact for
//! every number) and small hand-written readers, one per type. Each reader mirrors the
//! serde form of its type (serde_json's: enums externally tagged, `Result` as
//! `{"Ok": ...}` or `{"Err": ...}`, `Option` as null); `None` when a value does not fit.
//! `parse(to_json(x)) == x` is tested in web/tests/browser.rs.

use super::messages::{
    Calibrated, CalibrationReply, DiagramReply, DiagramView, EngineTable, FromWorker, Node,
    OrderingReply, OrderingRow, OrderingView, Refused, Reply, Row, ScenarioLoaded, ScenarioReply,
    Side, Trees, TreesReply, ValidationReply, ValidationShown,
};
use costlab_core::knobs::Engine;
use costlab_core::sim::profile::{
    Confidence, Device, HashRowCost, MachineProfile, QdPoint, RandomRead,
};
use costlab_core::validation::{CacheState, Scatter, ScatterPoint};
use js_sys::{Array, Reflect};
use wasm_bindgen::JsValue;

/// Reads a message from the worker with the browser's own JSON parser and the readers
/// below: serde's derived deserialisers with serde_json's parser cost the page's bundle
/// 22 KB gzipped more (measured). Browser only.
pub fn parse(text: &str) -> Result<FromWorker, String> {
    js_sys::JSON::parse(text)
        .ok()
        .and_then(|v| from_worker(&v))
        .ok_or_else(|| format!("the worker sent an unreadable message: {text:.80}"))
}

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

fn from_worker(v: &JsValue) -> Option<FromWorker> {
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
        cpu_cores: opt(get(v, "cpu_cores"), JsValue::as_f64)?,
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
