//! The DBT3 worker's request handler: plans the 22 queries with the core's `Dbt3Planner`
//! and answers with the table's view model.
//!
//! Only the worker binary (`src/dbt3_worker_main.rs`) may call this module: it is what
//! pulls the planners into a wasm, and the page's binary must stay without them (the
//! linker drops this module from the page because nothing there reaches it).

use crate::dbt3_protocol::{
    knob_values, EngineTable, FromWorker, Node, Reply, Request, Row, Side, Table,
};
use costlab_core::knobs::{EngineVersion, Knob, KnobValues};
use costlab_core::plan::PlanNode;
use costlab_core::sim::profile::MachineProfile;
use costlab_core::workload::dbt3::compare::{plan_summary, Dbt3Planner, QueryOutcome};

/// What one engine's planner and baseline plans depend on.
#[derive(Clone, PartialEq)]
struct Key {
    version: EngineVersion,
    sf: f64,
    machine: MachineProfile,
    baseline: Vec<f64>,
}

/// A baseline plan: its signature decides whether the current plan changed.
struct Planned {
    signature: String,
    side: Side,
}

/// One engine's planner with every query's baseline plan, kept while its key holds, and
/// its last current column, kept while this engine's own constants hold (moving a MySQL
/// constant leaves PostgreSQL's table as it was, unplanned).
struct Prepared {
    key: Key,
    planner: Result<(Dbt3Planner, Vec<Planned>), String>,
    last: Option<(Vec<f64>, Table)>,
}

impl Prepared {
    fn new(key: Key, baseline: &Result<KnobValues, String>) -> Prepared {
        let planner = (|| {
            let baseline = baseline.as_ref().map_err(Clone::clone)?;
            let planner =
                Dbt3Planner::new(key.version, key.sf, &key.machine).map_err(|e| e.to_string())?;
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
            last: None,
        }
    }

    fn rows(&mut self, current: &Result<KnobValues, String>) -> Table {
        let current = current.as_ref().map_err(Clone::clone)?;
        let mine: Vec<f64> = Knob::for_engine(self.key.version.engine())
            .map(|k| current.get(k))
            .collect();
        if let Some((knobs, rows)) = &self.last {
            if *knobs == mine {
                return rows.clone();
            }
        }
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
                        Ok(Row {
                            number: q.number,
                            title: q.title.to_string(),
                            changed: cur.signature != b.signature,
                            baseline: b.side.clone(),
                            current: cur.side,
                        })
                    })
                    .collect()
            });
        self.last = Some((mine, rows.clone()));
        rows
    }
}

fn planned(o: QueryOutcome) -> Planned {
    Planned {
        side: Side {
            summary: plan_summary(&o.tree),
            cost: o.cost,
            rows: o.rows,
            time_s: o.time_s,
            tree: node(&o.tree),
        },
        signature: o.signature,
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

/// The worker's state between messages: the prepared planners of the last request.
#[derive(Default)]
pub struct Dbt3Worker {
    engines: Vec<Prepared>,
}

impl Dbt3Worker {
    /// Plans one request; planners whose inputs did not change are reused.
    pub fn handle(&mut self, req: &Request) -> Reply {
        let baseline = knob_values(&req.baseline);
        let current = knob_values(&req.current);
        let mut kept = std::mem::take(&mut self.engines);
        let tables = req
            .versions
            .iter()
            .map(|&version| {
                let key = Key {
                    version,
                    sf: req.sf,
                    machine: req.machine.clone(),
                    baseline: req.baseline.clone(),
                };
                let mut p = match kept.iter().position(|p| p.key == key) {
                    Some(i) => kept.swap_remove(i),
                    None => Prepared::new(key, &baseline),
                };
                let rows = p.rows(&current);
                self.engines.push(p);
                EngineTable {
                    engine: version.engine(),
                    rows,
                }
            })
            .collect();
        Reply { id: req.id, tables }
    }

    /// A message as the worker receives it (a JSON [`Request`]) to the JSON [`FromWorker`]
    /// it posts back.
    pub fn handle_json(&mut self, message: &str) -> String {
        let answer = match serde_json::from_str::<Request>(message) {
            Ok(req) => FromWorker::Reply(self.handle(&req)),
            // Both sides are built together, so this is a bug; say so rather than go quiet.
            Err(e) => FromWorker::Failed(format!("the DBT3 worker cannot read a request: {e}")),
        };
        to_json(&answer)
    }
}

/// Serialising these types cannot fail (no maps with non-string keys, no custom code).
pub fn to_json(m: &FromWorker) -> String {
    serde_json::to_string(m).unwrap_or_default()
}
