//! What the view shows ([`Shown`]): the latest current reply per engine, the open rows'
//! trees and the diagram, reduced from what the worker and the page's planner send
//! ([`Received`]).

use crate::model::Shared;
use crate::worker_protocol::{DiagramReply, Refused, Reply, Table, TreesReply};
use costlab_core::knobs::Engine;
use std::rc::Rc;
use yew::prelude::*;

/// What the view shows: the last current reply, or why the worker cannot answer.
#[derive(Default, PartialEq)]
pub struct Shown {
    pub id: u64,
    pub tables: Vec<(Engine, Shared<Table>)>,
    /// Per engine, the user's queries its front end refused.
    pub refused: Vec<(Engine, Shared<Vec<Refused>>)>,
    /// Per engine, the last trees that belong to the reply shown.
    pub trees: Vec<Shared<TreesReply>>,
    pub failed: Option<String>,
    /// The last diagram reply for the latest diagram inputs.
    pub diagram: Option<Shared<DiagramReply>>,
    /// Per engine, the worker's milliseconds for the reply shown.
    pub planning_ms: Vec<(Engine, f64)>,
    /// The reply shown was planned on the page's thread (see `PagePlanner`).
    pub on_page: bool,
    /// The latest request the worker has planned: diagrams are drawn over its planners.
    pub worker_id: u64,
}

pub enum Received {
    /// A reply, and whether the page's planner made it.
    Reply(Reply, bool),
    /// The worker has planned the request the page's planner answered (it follows, for
    /// the diagrams).
    WorkerCaughtUp(u64),
    Trees(Box<TreesReply>),
    Diagram(Box<DiagramReply>),
    Failed(String),
}

impl Reducible for Shown {
    type Action = Received;

    fn reduce(self: Rc<Self>, action: Received) -> Rc<Self> {
        match action {
            Received::Reply(r, on_page) => Rc::new(Shown {
                id: r.id,
                on_page,
                worker_id: if on_page { self.worker_id } else { r.id },
                planning_ms: r.tables.iter().map(|t| (t.engine, t.planning_ms)).collect(),
                refused: r
                    .tables
                    .iter()
                    .map(|t| {
                        let kept = self
                            .refused
                            .iter()
                            .find(|(e, old)| *e == t.engine && *old.0 == t.refused)
                            .map(|(_, old)| old.clone());
                        (
                            t.engine,
                            kept.unwrap_or_else(|| Shared(Rc::new(t.refused.clone()))),
                        )
                    })
                    .collect(),
                // An engine whose table did not change keeps it, so its panel is not redrawn.
                tables: r
                    .tables
                    .into_iter()
                    .map(|t| {
                        let kept = self
                            .tables
                            .iter()
                            .find(|(e, old)| *e == t.engine && *old.0 == t.rows)
                            .map(|(_, old)| old.clone());
                        (t.engine, kept.unwrap_or_else(|| Shared(Rc::new(t.rows))))
                    })
                    .collect(),
                trees: self.trees.clone(),
                failed: None,
                diagram: self.diagram.clone(),
            }),
            Received::Diagram(d) => Rc::new(Shown {
                id: self.id,
                tables: self.tables.clone(),
                refused: self.refused.clone(),
                trees: self.trees.clone(),
                failed: self.failed.clone(),
                diagram: Some(Shared(Rc::new(*d))),
                planning_ms: self.planning_ms.clone(),
                on_page: self.on_page,
                worker_id: self.worker_id,
            }),
            Received::WorkerCaughtUp(id) => Rc::new(Shown {
                worker_id: id,
                id: self.id,
                tables: self.tables.clone(),
                refused: self.refused.clone(),
                trees: self.trees.clone(),
                failed: self.failed.clone(),
                diagram: self.diagram.clone(),
                planning_ms: self.planning_ms.clone(),
                on_page: self.on_page,
            }),
            // Trees of plans no longer shown are dropped; the table asks again.
            Received::Trees(t) if t.id != self.id => self,
            Received::Trees(t) => {
                let mut trees: Vec<_> = self
                    .trees
                    .iter()
                    .filter(|o| o.0.engine != t.engine)
                    .cloned()
                    .collect();
                trees.push(Shared(Rc::new(*t)));
                Rc::new(Shown {
                    id: self.id,
                    tables: self.tables.clone(),
                    refused: self.refused.clone(),
                    trees,
                    failed: self.failed.clone(),
                    diagram: self.diagram.clone(),
                    planning_ms: self.planning_ms.clone(),
                    on_page: self.on_page,
                    worker_id: self.worker_id,
                })
            }
            Received::Failed(m) => Rc::new(Shown {
                id: self.id,
                tables: self.tables.clone(),
                refused: self.refused.clone(),
                trees: self.trees.clone(),
                failed: Some(m),
                diagram: self.diagram.clone(),
                planning_ms: self.planning_ms.clone(),
                on_page: self.on_page,
                worker_id: self.worker_id,
            }),
        }
    }
}
