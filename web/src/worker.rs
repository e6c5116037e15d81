//! The helper worker's request handler: plans DBT3's 22 queries with the core's
//! `WorkloadPlanner` and answers with the table's view model; reads calibration files with the
//! core's `Calibration` into a machine profile and the lines the page shows about it, and
//! validation reports with the core's `ValidationReport` into their scatter and summary.
//!
//! Only the worker binary (`src/worker_main.rs`) may call this module: it is what pulls the
//! planners and the calibration file's and validation report's parsers into a wasm, and the page's binary must stay
//! without them (the linker drops this module from the page because nothing there reaches it).

use crate::diagram_render;
use crate::worker_protocol::{
    knob_values, to_json, AxisRequest, Calibrated, CalibrationReply, CalibrationRequest,
    DiagramReply, DiagramRequest, EngineTable, FromWorker, Node, OrderingReply, OrderingRequest,
    OrderingRow, OrderingView, Queries, Refused, Reply, Request, Row, ScenarioLoaded,
    ScenarioReply, ScenarioRequest, Side, Table, ToWorker, Trees, TreesReply, TreesRequest,
    ValidationReply, ValidationRequest, ValidationShown,
};
use costlab_core::calibration::{Calibration, Estimate};
use costlab_core::catalog::{Function, Table as CatalogTable};
use costlab_core::compare::{plan_summary, QueryOutcome, WorkloadPlanner};
use costlab_core::diagram::{Axis, Boundaries};
use costlab_core::knobs::Engine;
use costlab_core::knobs::{EngineVersion, Knob, KnobValues};
use costlab_core::plan::{change_site, PlanNode};
use costlab_core::scenario::ServerSettings;
use costlab_core::scenario_file::ScenarioFile;
use costlab_core::sim::profile::MachineProfile;
use costlab_core::sql::Dialect;
use costlab_core::validation::{SummaryRow, ValidationReport};
use costlab_core::workload::user::{read_workload, split_queries};

/// The example workload's scenario file, built in: the view works without a server.
const EXAMPLE: &str = include_str!("../../static/example-shop.json");

/// What one engine's planner and baseline plans depend on.
#[derive(Clone, PartialEq)]
struct Key {
    version: EngineVersion,
    queries: Queries,
    machine: MachineProfile,
    server: ServerSettings,
    baseline: Vec<f64>,
}

/// A plan: its signature decides whether the current plan changed; its tree is sent only
/// when the page opens the query's detail.
struct Planned {
    signature: String,
    side: Side,
    tree: PlanNode,
}

/// One engine's planner with every query's baseline plan, kept while its key holds, and
/// its last current column, kept while this engine's own constants hold (moving a MySQL
/// constant leaves PostgreSQL's table as it was, unplanned) with its plan trees.
struct Prepared {
    key: Key,
    planner: Result<(WorkloadPlanner, Vec<Planned>), String>,
    /// The user's queries this engine's front end refused.
    refused: Vec<Refused>,
    last: Option<(Vec<f64>, Table, Vec<PlanNode>)>,
}

/// A scenario file's schema as the page keeps it (compact JSON in `tables_json`): its
/// tables and its functions' planner costs.
#[derive(serde::Serialize, serde::Deserialize)]
struct Schema {
    tables: Vec<CatalogTable>,
    #[serde(default)]
    functions: Vec<Function>,
}

/// The schema of a user workload: a scenario file's (compact JSON: the [`Schema`], or the
/// bare table list pages before functions kept), or the example's.
fn user_tables(json: Option<&str>) -> Result<(Vec<CatalogTable>, Vec<Function>), String> {
    match json {
        Some(j) => {
            let schema: Schema = serde_json::from_str::<Schema>(j)
                .or_else(|_| {
                    serde_json::from_str::<Vec<CatalogTable>>(j).map(|tables| Schema {
                        tables,
                        functions: Vec::new(),
                    })
                })
                .map_err(|e| format!("the tables cannot be read: {e}"))?;
            for t in &schema.tables {
                t.validate().map_err(|e| e.to_string())?;
            }
            for f in &schema.functions {
                f.validate().map_err(|e| e.to_string())?;
            }
            Ok((schema.tables, schema.functions))
        }
        None => ScenarioFile::from_json(EXAMPLE)
            .map(|f| (f.tables, f.functions))
            .map_err(|e| e.to_string()),
    }
}

/// A planner over the user's tables with every query this engine's front end reads; the
/// others, with the span the front end names.
fn user_planner(
    key: &Key,
    tables: Option<&str>,
    text: &str,
) -> Result<(WorkloadPlanner, Vec<Refused>), String> {
    let (tables, functions) = user_tables(tables)?;
    let texts = split_queries(text).map_err(|e| e.to_string())?;
    let dialect = match key.version.engine() {
        Engine::Postgres => Dialect::Postgres,
        Engine::Mysql => Dialect::Mysql,
    };
    let (queries, refused) = read_workload(&texts, dialect, &tables);
    let refused = refused
        .into_iter()
        .map(|r| Refused {
            number: r.number,
            text: r.text,
            message: r.error,
            start: r.start,
            end: r.end,
        })
        .collect();
    let planner = WorkloadPlanner::new(
        key.version,
        &tables,
        &functions,
        false,
        queries,
        &key.machine,
        &key.server,
    )
    .map_err(|e| e.to_string())?;
    Ok((planner, refused))
}

impl Prepared {
    fn new(key: Key, baseline: &Result<KnobValues, String>) -> Prepared {
        let mut refused = Vec::new();
        let planner = (|| {
            let baseline = baseline.as_ref().map_err(Clone::clone)?;
            let planner = match &key.queries {
                Queries::Dbt3 { sf } => {
                    WorkloadPlanner::dbt3(key.version, *sf, &key.machine, &key.server)
                        .map_err(|e| e.to_string())?
                }
                Queries::User { tables, text } => {
                    let (p, r) = user_planner(&key, tables.as_deref(), text)?;
                    refused = r;
                    p
                }
            };
            let plans = planner
                .queries()
                .iter()
                .map(|q| planner.outcome(q.number, baseline).map(planned))
                .collect::<costlab_core::Result<Vec<_>>>()
                .map_err(|e| e.to_string())?;
            Ok((planner, plans))
        })();
        Prepared {
            key,
            planner,
            refused,
            last: None,
        }
    }

    fn rows(&mut self, current: &Result<KnobValues, String>) -> Table {
        let current = current.as_ref().map_err(Clone::clone)?;
        let mine: Vec<f64> = Knob::for_engine(self.key.version.engine())
            .map(|k| current.get(k))
            .collect();
        if let Some((knobs, rows, _)) = &self.last {
            if *knobs == mine {
                return rows.clone();
            }
        }
        let mut trees = Vec::new();
        let rows = self
            .planner
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|(p, base)| {
                p.queries()
                    .iter()
                    .zip(base)
                    .map(|(q, b)| {
                        let cur = planned(p.outcome(q.number, current).map_err(|e| e.to_string())?);
                        let change = (cur.signature != b.signature).then(|| {
                            change_site(&b.tree, &cur.tree)
                                .unwrap_or_else(|| "the plan changed".into())
                        });
                        trees.push(cur.tree);
                        Ok(Row {
                            number: q.number,
                            title: q.title.to_string(),
                            change,
                            baseline: b.side.clone(),
                            current: cur.side,
                        })
                    })
                    .collect()
            });
        self.last = Some((mine, rows.clone(), trees));
        rows
    }

    /// Both trees of query `number` from the last rows, as the detail panel prints them.
    fn trees(&self, number: u8) -> Result<Trees, String> {
        let (p, base) = self.planner.as_ref().map_err(Clone::clone)?;
        let Some((_, Ok(_), current)) = &self.last else {
            return Err("no plans yet".into());
        };
        let i = p
            .queries()
            .iter()
            .position(|q| q.number == number)
            .ok_or_else(|| format!("no query {number}"))?;
        match (base.get(i), current.get(i)) {
            (Some(b), Some(c)) => Ok(Trees {
                baseline: node(&b.tree),
                current: node(c),
            }),
            _ => Err(format!("no plans of query {number}")),
        }
    }
}

fn planned(o: QueryOutcome) -> Planned {
    Planned {
        side: Side {
            summary: plan_summary(&o.tree),
            cost: o.cost,
            rows: o.rows,
            time_s: o.time_s,
        },
        signature: o.signature,
        tree: o.tree,
    }
}

fn node(n: &PlanNode) -> Node {
    Node {
        op: n.op.to_string(),
        relation: n.relation.as_ref().map(|r| r.to_string()),
        index: n.index.as_ref().map(|i| i.to_string()),
        rows: n.rows,
        cost: n.cost.total,
        children: n.children.iter().map(node).collect(),
    }
}

/// The worker's state between messages: the prepared planners of the last DBT3 request.
pub struct Worker {
    engines: Vec<Prepared>,
    /// The id of the last DBT3 request answered: trees are of its plans.
    last_id: u64,
    /// The PostgreSQL model's planning time of DBT3's 22 at SF 30 (per release), measured
    /// once: the ordering view shows it beside the seed's.
    tproc_planning: Vec<(EngineVersion, f64)>,
    /// Milliseconds on some clock (the worker's `performance.now()`), read around each
    /// engine's planning for [`EngineTable::planning_ms`].
    clock: Box<dyn Fn() -> f64>,
}

impl Default for Worker {
    /// A worker whose clock stands still: replies say 0 ms (tests compare them whole).
    fn default() -> Self {
        Worker::with_clock(Box::new(|| 0.0))
    }
}

impl Worker {
    pub fn with_clock(clock: Box<dyn Fn() -> f64>) -> Worker {
        Worker {
            engines: Vec::new(),
            last_id: 0,
            tproc_planning: Vec::new(),
            clock,
        }
    }

    /// Plans one DBT3 request; planners whose inputs did not change are reused.
    pub fn handle(&mut self, req: &Request) -> Reply {
        self.last_id = req.id;
        let baseline = knob_values(&req.baseline);
        let current = knob_values(&req.current);
        let mut kept = std::mem::take(&mut self.engines);
        let tables = req
            .versions
            .iter()
            .map(|&version| {
                let key = Key {
                    version,
                    queries: req.queries.clone(),
                    machine: req.machine.clone(),
                    server: req.server,
                    baseline: req.baseline.clone(),
                };
                let start = (self.clock)();
                let mut p = match kept.iter().position(|p| p.key == key) {
                    Some(i) => kept.swap_remove(i),
                    None => Prepared::new(key, &baseline),
                };
                let rows = p.rows(&current);
                let refused = p.refused.clone();
                self.engines.push(p);
                EngineTable {
                    engine: version.engine(),
                    rows,
                    refused,
                    planning_ms: (self.clock)() - start,
                }
            })
            .collect();
        Reply { id: req.id, tables }
    }

    /// Plans every query of the planners kept for `req` `rounds` times at its current
    /// knobs, keeping nothing: the page's planner runs this while idle after it primed, so
    /// that the browser has optimised the planners' code before the first knob moves (the
    /// first replans otherwise run on the baseline compiler, about twice as long).
    pub fn warm(&self, req: &Request, rounds: u32) {
        let Ok(current) = knob_values(&req.current) else {
            return;
        };
        for p in &self.engines {
            if let Ok((planner, _)) = &p.planner {
                for _ in 0..rounds {
                    for q in planner.queries() {
                        let _ = planner.outcome(q.number, &current);
                    }
                }
            }
        }
    }

    /// Both trees of one query as the last reply planned it, with that reply's id.
    pub fn trees(&self, req: &TreesRequest) -> TreesReply {
        let trees = self
            .engines
            .iter()
            .find(|p| p.key.version.engine() == req.engine)
            .ok_or_else(|| format!("{} is not planned", req.engine.name()))
            .and_then(|p| p.trees(req.number));
        TreesReply {
            id: self.last_id,
            engine: req.engine,
            number: req.number,
            trees,
        }
    }

    /// A plan diagram, or the flip map, with the planner the last DBT3 request prepared for
    /// the engine.
    pub fn diagram(&self, req: &DiagramRequest) -> DiagramReply {
        let result = (|| {
            if req.table != self.last_id {
                return Err("the tables are being planned again; the diagram follows".into());
            }
            let (p, _) = self
                .engines
                .iter()
                .find(|p| p.key.version.engine() == req.engine)
                .ok_or_else(|| format!("{} is not planned yet", req.engine.name()))?
                .planner
                .as_ref()
                .map_err(Clone::clone)?;
            let current = knob_values(&req.current)?;
            let axis = |a: &AxisRequest| -> Result<(Knob, Axis), String> {
                let knob = Knob::lookup(&a.knob).map_err(|e| e.to_string())?;
                let axis = Axis::of_knob(knob, a.lo, a.hi, a.n).map_err(|e| e.to_string())?;
                Ok((knob, axis))
            };
            let boundaries = if req.fine {
                Boundaries::Locate
            } else {
                Boundaries::Skip
            };
            let (kx, ax) = axis(&req.x)?;
            let diagrams = match (req.query, &req.y) {
                (None, _) => p.flip_map(&current, kx, &ax, boundaries),
                (Some(q), None) => p
                    .diagram(q, &current, (kx, &ax), None, boundaries)
                    .map(|d| vec![(q, d)]),
                (Some(q), Some(y)) => {
                    let (ky, ay) = axis(y)?;
                    p.diagram(q, &current, (kx, &ax), Some((ky, &ay)), boundaries)
                        .map(|d| vec![(q, d)])
                }
            }
            .map_err(|e| e.to_string())?;
            let title = |n: u8| {
                p.queries()
                    .iter()
                    .find(|q| q.number == n)
                    .map_or_else(String::new, |q| q.title.to_string())
            };
            let shown: Vec<_> = diagrams
                .into_iter()
                .map(|(q, d)| diagram_render::shown(q, title(q), &d))
                .collect();
            Ok(diagram_render::view(
                &shown,
                diagram_render::Axes {
                    query: req.query,
                    x: kx,
                    y: req.y.as_ref().and_then(|y| Knob::lookup(&y.knob).ok()),
                },
            ))
        })();
        DiagramReply {
            id: req.id,
            fine: req.fine,
            x: req.x.knob.clone(),
            y: req.y.as_ref().map(|y| y.knob.clone()),
            query: req.query,
            result,
        }
    }

    /// The ordering workload's shapes planned and timed, stock against the build the page
    /// names, and the closed-loop mix over w (`ordering`, `sim::mix`).
    pub fn ordering(&mut self, req: &OrderingRequest) -> OrderingReply {
        use costlab_core::ordering::{self, Role};
        use costlab_core::sim::{mix, time::Simulator};
        let result = (|| -> Result<OrderingView, String> {
            if req.version.engine() != Engine::Postgres {
                return Err(format!(
                    "{} is not a PostgreSQL release",
                    req.version.label()
                ));
            }
            let knobs = knob_values(&req.current)?;
            let sim =
                Simulator::for_release(&req.machine, req.version).map_err(|e| e.to_string())?;
            let mut rows = ordering::run_at(req.sf, req.procost, req.version, &knobs, &sim)
                .map_err(|e| e.to_string())?;
            if !req.series {
                // Stock against itself: the build's column is stock's.
                for r in &mut rows {
                    r.variant_s = r.stock_s;
                    r.variant_calls = r.stock_calls;
                    r.variant_plan = r.stock_plan.clone();
                }
            }
            let ws: Vec<f64> = (0..=20).map(|i| i as f64 / 20.0).collect();
            let users = ordering::SEED_USERS;
            let curve = |shapes: &[mix::Shape]| -> Result<Vec<(f64, f64, f64)>, String> {
                Ok(mix::curve(users, users, shapes, &ws)
                    .map_err(|e| e.to_string())?
                    .into_iter()
                    .map(|p| (p.w, p.stock_qps, p.variant_qps))
                    .collect())
            };
            let view = OrderingView {
                mix: curve(&ordering::mix_shapes(&rows))?,
                seed_times_mix: curve(&ordering::mix_on_seed_times(&rows))?,
                planning_ms: self.tproc_planning(req),
                rows: rows
                    .into_iter()
                    .map(|r| OrderingRow {
                        name: r.shape.name.into(),
                        title: r.shape.title.into(),
                        seed: match r.shape.role {
                            Role::Positive { seed_change } => {
                                format!("{:+.0} %", 100.0 * seed_change)
                            }
                            Role::Regression => "+8.5 %".into(),
                            Role::Neutral => "~0 %".into(),
                        },
                        positive: r.shape.role != Role::Neutral,
                        stock_ms: r.stock_s * 1e3,
                        build_ms: r.variant_s * 1e3,
                        stock_calls: r.stock_calls,
                        build_calls: r.variant_calls,
                        stock_plan: r.stock_plan,
                        build_plan: r.variant_plan,
                    })
                    .collect(),
            };
            Ok(view)
        })();
        OrderingReply { id: req.id, result }
    }

    /// The PostgreSQL model planning DBT3's 22 queries at SF 30 (TPROC-H's are TPC-H's),
    /// median of five rounds after a first, on this worker's clock; measured once per
    /// release. `None` when a query cannot be planned.
    fn tproc_planning(&mut self, req: &OrderingRequest) -> Option<f64> {
        if let Some((_, ms)) = self.tproc_planning.iter().find(|(v, _)| *v == req.version) {
            return Some(*ms);
        }
        let planner =
            WorkloadPlanner::dbt3(req.version, 30.0, &req.machine, &ServerSettings::default())
                .ok()?;
        let knobs = KnobValues::defaults(req.version, EngineVersion::latest(Engine::Mysql));
        let round = || {
            (1..=22)
                .try_for_each(|n| planner.plan(n, &knobs).map(|_| ()))
                .ok()
        };
        round()?;
        let mut ms: Vec<f64> = (0..5)
            .map(|_| {
                let t = (self.clock)();
                round().map(|()| (self.clock)() - t)
            })
            .collect::<Option<_>>()?;
        ms.sort_by(f64::total_cmp);
        let median = ms[ms.len() / 2];
        self.tproc_planning.push((req.version, median));
        Some(median)
    }

    /// A message as the worker receives it (a JSON [`ToWorker`]) to the JSON [`FromWorker`]
    /// it posts back.
    pub fn handle_json(&mut self, message: &str) -> String {
        let answer = match serde_json::from_str::<ToWorker>(message) {
            Ok(ToWorker::Dbt3(req)) => FromWorker::Reply(self.handle(&req)),
            Ok(ToWorker::Trees(req)) => FromWorker::Trees(self.trees(&req)),
            Ok(ToWorker::Calibration(req)) => FromWorker::Calibration(calibration(&req)),
            Ok(ToWorker::Validation(req)) => FromWorker::Validation(validation(&req)),
            Ok(ToWorker::Scenario(req)) => FromWorker::Scenario(scenario(&req)),
            Ok(ToWorker::Diagram(req)) => FromWorker::Diagram(self.diagram(&req)),
            Ok(ToWorker::Ordering(req)) => FromWorker::Ordering(self.ordering(&req)),
            // Both sides are built together, so this is a bug; say so rather than go quiet.
            Err(e) => FromWorker::Failed(format!("the worker cannot read a request: {e}")),
        };
        to_json(&answer)
    }
}

/// Reads one calibration file: its machine profile and the lines the page shows, or the
/// problem (malformed, truncated, a newer format, values out of range) in words.
pub fn calibration(req: &CalibrationRequest) -> CalibrationReply {
    let result = Calibration::from_json(&req.text)
        .and_then(|c| Ok((c.to_profile()?, c)))
        .map(|(profile, c)| Calibrated {
            profile: Box::new(profile),
            lines: summary(&c),
        })
        .map_err(|e| e.to_string());
    CalibrationReply { id: req.id, result }
}

/// Reads one scenario file into the tables (compact JSON) and queries the page keeps, and a
/// line per table; or what is wrong with it.
pub fn scenario(req: &ScenarioRequest) -> ScenarioReply {
    let result = ScenarioFile::from_json(&req.text)
        .map(|f| ScenarioLoaded {
            name: req.name.clone(),
            tables_json: serde_json::to_string(&Schema {
                tables: f.tables.clone(),
                functions: f.functions.clone(),
            })
            .unwrap_or_default(),
            queries: f.queries.clone(),
            lines: f
                .tables
                .iter()
                .map(|t| {
                    let pages =
                        t.pg.as_ref()
                            .map_or(String::new(), |p| format!(", {} pages", p.pages));
                    format!(
                        "{}: {} rows{pages}, {} columns, {} indexes",
                        t.name,
                        t.rows,
                        t.columns.len(),
                        t.indexes.len()
                    )
                })
                .collect(),
        })
        .map_err(|e| e.to_string());
    ScenarioReply { id: req.id, result }
}

/// Reads one validation report (`ValidationReport::from_json`) into what the page shows:
/// the core's scatter and summary lines, the engine, server and machine; or what is wrong.
pub fn validation(req: &ValidationRequest) -> ValidationReply {
    let result = ValidationReport::from_json(&req.text)
        .map(|r| ValidationShown {
            engine: r.engine_version.label().to_string(),
            server_version: r.server_version.clone(),
            machine: r.profile.label.clone(),
            created: r.created.clone(),
            scatter: r.scatter(),
            summary: r.summary_rows().iter().map(SummaryRow::line).collect(),
        })
        .map_err(|e| e.to_string());
    ValidationReply { id: req.id, result }
}

fn interval(e: &Estimate, unit: &str) -> String {
    let f = crate::components::knobs::format_value;
    format!("{} {unit} [{} to {}]", f(e.median), f(e.lo), f(e.hi))
}

/// What the page says about a loaded file: the figures the profile uses, with intervals.
pub fn summary(c: &Calibration) -> Vec<String> {
    let mut lines = vec![format!(
        "{} · {} · {}{}",
        c.machine.cpu_model,
        c.machine.kernel,
        c.machine.filesystem,
        if c.machine.virtual_machine {
            " · virtual machine"
        } else {
            ""
        }
    )];
    lines.push(format!(
        "sequential read: {}",
        interval(&c.seq_read.large.mbps, "MB/s")
    ));
    for s in &c.random_reads {
        if let Some(p) = s.points.iter().find(|p| p.queue_depth == 1) {
            lines.push(format!(
                "random {} kB read at queue depth 1: {}",
                s.page_bytes / 1024,
                interval(&p.mean_us, "µs")
            ));
        }
    }
    lines.push(format!("buffer hit: {}", interval(&c.buffer_hit_ns, "ns")));
    lines.push(format!(
        "CPU per row: {}",
        interval(&c.cpu_ns_per_row, "ns")
    ));
    lines.push(format!(
        "random / sequential page time: {}",
        interval(&c.ratios.random_over_seq_8k, "")
    ));
    if let Some(pg) = &c.postgres {
        lines.push(format!(
            "PostgreSQL experiment: random_page_cost {}",
            interval(&pg.random_page_cost, "")
        ));
    }
    lines.extend(c.warnings.iter().map(|w| format!("warning: {w}")));
    lines
}
