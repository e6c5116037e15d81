//! The DBT3 view and the user's workload view: every query's plan under the baseline and
//! under the current constants, their simulated times and the change, one table per engine;
//! flipped plans are marked with a symbol and a word as well as a colour; a query of the
//! user's that an engine's SQL front end refuses shows why, its text marked where. A row (click, Enter or Space) opens both plans
//! as trees, fetched from the worker when the row opens (replies carry only what the rows
//! show).
//!
//! The planning happens in the helper web worker (`worker`): the view sends the inputs, keeps
//! showing the last reply meanwhile, and redraws when the reply for the latest inputs comes.
//! When only knobs moved, a second instance of the worker's wasm on the page's thread
//! ([`PagePlanner`]) answers at once, and the worker follows in the background.

use crate::components::diagram::{DiagramPanel, COARSE};
use crate::infra::{self, WorkerLink};
use crate::model::{seconds, Shared};
use crate::worker_protocol::{
    self, knob_list, AxisRequest, DiagramReply, DiagramRequest, FromWorker, Node, Queries, Refused,
    Reply, Request, Row, Table, ToWorker, TreesReply, TreesRequest,
};
use costlab_core::analysis;
use costlab_core::knobs::{Engine, Knob, Preset};
use costlab_core::scenario::{Scenario, UserTables, Workload};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The page's side of the conversation: at most one request in flight and only the latest
/// waiting, so a slider drag never queues a backlog of replans; replies to anything but the
/// latest request are dropped.
#[derive(Default)]
pub struct Conversation {
    ready: bool,
    in_flight: bool,
    waiting: Option<Request>,
    /// The latest inputs: only a reply to them is shown.
    last: Option<Request>,
}

impl Conversation {
    /// New inputs; returns the message to post now, if the worker is free.
    pub fn request(&mut self, r: Request) -> Option<String> {
        self.last = Some(r.clone());
        self.waiting = Some(r);
        self.next()
    }

    /// New inputs the page's planner answered: nothing waits for the worker, and a reply
    /// it is working on will be stale.
    pub fn answered_on_page(&mut self, r: &Request) {
        self.last = Some(r.clone());
        self.waiting = None;
    }

    /// The latest inputs.
    pub fn latest(&self) -> Option<&Request> {
        self.last.as_ref()
    }

    /// The worker announced that it listens.
    pub fn ready(&mut self) -> Option<String> {
        self.ready = true;
        self.next()
    }

    /// A reply came: the reply if it answers the latest request, and the message to post next.
    pub fn reply(&mut self, r: Reply) -> (Option<Reply>, Option<String>) {
        self.in_flight = false;
        let current = self
            .last
            .as_ref()
            .is_some_and(|l| l.id == r.id)
            .then_some(r);
        (current, self.next())
    }

    fn next(&mut self) -> Option<String> {
        if !self.ready || self.in_flight {
            return None;
        }
        let r = self.waiting.take()?;
        self.in_flight = true;
        Some(worker_protocol::to_message(&ToWorker::Dbt3(Box::new(r))))
    }
}

/// The DBT3 planners a second time, on the page's own thread: the worker's wasm, loaded
/// again by `planner-loader.js` once the worker has answered.
///
/// Why: after a discrete input (a key, a click) Chromium renders the input's frame before
/// it runs anything else, the worker's reply included. A reply from the worker therefore
/// reaches the screen a frame after the input, 10 to 20 ms, however quick the planning
/// (sessions 23 to 26 traced it). When only knobs moved and replans have been quick, the
/// view plans here instead, inside the input's own task. Everything else stays in the
/// worker: new planners (another scale factor, machine, workload or engine), diagrams, and
/// any replan while this one is not primed or has been slow.
#[derive(Default)]
pub struct PagePlanner {
    /// The wasm's `plan_on_page`: a JSON `ToWorker` in, the JSON `FromWorker` out.
    plan: Option<js_sys::Function>,
    /// The wasm's `warm_on_page`: a JSON `ToWorker::Dbt3` and a number of rounds.
    warm: Option<js_sys::Function>,
    /// Loading has started (the loader script is in the page).
    loading: bool,
    /// The inputs its planners were built for, as [`PagePlanner::key`] gives them.
    primed: Option<Request>,
    /// A moving estimate of a knob-only replan's planning, ms (the page's or the worker's).
    replan_ms: Option<f64>,
    /// The last planners' inputs the worker built planners for, and how long its reply
    /// took (what priming would cost the page's thread; the worker's first reply counts a
    /// quarter, see [`PagePlanner::PRIME_BUDGET_MS`]).
    built: Option<(Request, f64)>,
}

impl PagePlanner {
    /// Above this estimate a replan goes to the worker: planning here blocks the page's
    /// thread. A reply from the worker costs a frame (16.7 ms) besides its planning, so
    /// planning here wins up to about a frame; the first replans after priming run
    /// unoptimised wasm and may take 10 to 15 ms for both engines.
    pub const BUDGET_MS: f64 = 16.0;

    /// A planner around a function of the `plan_on_page` kind (the tests pass their own).
    pub fn with_function(plan: js_sys::Function) -> PagePlanner {
        PagePlanner {
            plan: Some(plan),
            loading: true,
            ..PagePlanner::default()
        }
    }

    /// What decides the planners: the request without its id and current knobs.
    pub fn key(r: &Request) -> Request {
        Request {
            id: 0,
            current: Vec::new(),
            ..r.clone()
        }
    }

    fn call(&mut self, message: &str) -> Option<FromWorker> {
        let answer = self
            .plan
            .as_ref()?
            .call1(&wasm_bindgen::JsValue::NULL, &message.into())
            .ok()
            .and_then(|v| v.as_string())
            .and_then(|t| worker_protocol::parse(&t).ok());
        // A failure (a trap, an unreadable answer) is not tried twice: the worker does
        // everything from then on.
        match answer {
            Some(FromWorker::Failed(_)) | None => {
                self.plan = None;
                None
            }
            answer => answer,
        }
    }

    /// Whether `r` would be planned here now.
    pub fn takes(&self, r: &Request) -> bool {
        self.plan.is_some()
            && self.replan_ms.is_none_or(|ms| ms <= Self::BUDGET_MS)
            && self.primed.as_ref() == Some(&Self::key(r))
    }

    /// Plans `r` here when it [`takes`](Self::takes) it.
    pub fn replan(&mut self, r: &Request) -> Option<Reply> {
        if !self.takes(r) {
            return None;
        }
        infra::mark("costlab-page-planning");
        let answer = self.call(&worker_protocol::to_message(&ToWorker::Dbt3(Box::new(
            r.clone(),
        ))));
        infra::mark("costlab-page-planned");
        match answer? {
            FromWorker::Reply(reply) => {
                self.observe(reply.tables.iter().map(|t| t.planning_ms).sum());
                Some(reply)
            }
            _ => {
                self.plan = None;
                None
            }
        }
    }

    /// Priming builds planners on the page's thread: not when the worker took longer than
    /// this to build them (a large workload of the user's), lest the page stall. The
    /// worker's first reply runs freshly compiled code and takes about four times what
    /// priming then takes (DBT3 at SF 10 here: 131 ms against 18 to 35 ms for MySQL, 215
    /// ms against 35 to 61 ms for both engines): it counts a quarter.
    pub const PRIME_BUDGET_MS: f64 = 150.0;

    /// The worker answered `r` (the latest request) after `ms` of planning: a knob-only
    /// replan's time counts toward the estimate; the first reply for new planners' inputs
    /// says what building them costs.
    pub fn worker_answered(&mut self, r: &Request, ms: f64) {
        let key = Self::key(r);
        if self.primed.as_ref() == Some(&key) {
            self.observe(ms);
        }
        match &self.built {
            None => self.built = Some((key, ms / 4.0)),
            Some((k, _)) if *k != key => self.built = Some((key, ms)),
            Some(_) => {}
        }
    }

    fn observe(&mut self, ms: f64) {
        self.replan_ms = Some(self.replan_ms.map_or(ms, |old| 0.7 * old + 0.3 * ms));
    }

    /// Whether [`prime`](Self::prime) has anything to do for `r`.
    pub fn needs_priming(&self, r: &Request) -> bool {
        let key = Self::key(r);
        let affordable = self
            .built
            .as_ref()
            .is_none_or(|(k, ms)| *k != key || *ms <= Self::PRIME_BUDGET_MS);
        self.plan.is_some() && affordable && self.primed.as_ref() != Some(&key)
    }

    /// Builds the planners for `r`'s inputs (a long task: call it when the inputs have
    /// rested). Its reply equals the worker's and is not shown.
    pub fn prime(&mut self, r: &Request) {
        if !self.needs_priming(r) {
            return;
        }
        // Marks around the long task, so tests and curious users can see what it takes.
        infra::mark("costlab-priming");
        let answer = self.call(&worker_protocol::to_message(&ToWorker::Dbt3(Box::new(
            r.clone(),
        ))));
        infra::mark("costlab-primed");
        if let Some(FromWorker::Reply(_)) = answer {
            self.primed = Some(Self::key(r));
            self.replan_ms = None;
        }
    }

    /// Plans `r` (the inputs it was primed with) once more, keeping nothing, so that the
    /// browser optimises the planners' code before the first knob moves.
    pub fn warm(&self, r: &Request) {
        if let (Some(warm), true) = (&self.warm, self.takes(r)) {
            let message = worker_protocol::to_message(&ToWorker::Dbt3(Box::new(r.clone())));
            let _ = warm.call2(&wasm_bindgen::JsValue::NULL, &message.into(), &1.into());
        }
    }

    /// One query's trees as this planner's last reply planned them.
    pub fn trees(&mut self, r: TreesRequest) -> Option<TreesReply> {
        match self.call(&worker_protocol::to_message(&ToWorker::Trees(r)))? {
            FromWorker::Trees(t) => Some(t),
            _ => None,
        }
    }
}

/// Starts loading the page's planner (once); `loaded` runs when it is ready.
fn load_page_planner(planner: &Rc<RefCell<PagePlanner>>, loaded: impl FnOnce() + 'static) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    if std::mem::replace(&mut planner.borrow_mut().loading, true) {
        return;
    }
    // A planner that does not load leaves `plan` empty: the worker does everything.
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (Ok(script), Some(root)) = (
        document.create_element("script"),
        document.document_element(),
    ) else {
        return;
    };
    let planner = planner.clone();
    // The loader's promise: there already when an earlier mount of the view loaded it.
    let promise = || {
        web_sys::window()
            .and_then(|w| js_sys::Reflect::get(&w, &"costlabPlanner".into()).ok())
            .and_then(|p| p.dyn_into::<js_sys::Promise>().ok())
    };
    let earlier = promise();
    let loaded_before = earlier.is_some();
    let start = move || {
        let Some(promise) = earlier.or_else(promise) else {
            return;
        };
        wasm_bindgen_futures::spawn_local(async move {
            let exports = wasm_bindgen_futures::JsFuture::from(promise).await.ok();
            let export = |name: &str| {
                exports
                    .as_ref()
                    .and_then(|e| js_sys::Reflect::get(e, &name.into()).ok())
                    .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            };
            if let Some(f) = export("plan_on_page") {
                let mut p = planner.borrow_mut();
                p.plan = Some(f);
                p.warm = export("warm_on_page");
                drop(p);
                loaded();
            }
        });
    };
    if loaded_before {
        return start();
    }
    let onload = Closure::once_into_js(start);
    let _ = script.add_event_listener_with_callback("load", onload.unchecked_ref());
    let _ = script.set_attribute("src", infra::PLANNER_URL);
    let _ = root.append_with_node_1(&script);
}

/// The diagram's side of the conversation: at most one diagram in flight and the latest
/// waiting. Each diagram is asked for coarse first (no boundaries); the fine picture is
/// asked for only when the coarse reply answers the latest inputs, so moving a knob
/// cancels the refinement of a picture no longer wanted.
#[derive(Default)]
pub struct DiagramConversation {
    ready: bool,
    in_flight: bool,
    waiting: Option<DiagramRequest>,
    latest: Option<DiagramRequest>,
}

impl DiagramConversation {
    pub fn request(&mut self, r: DiagramRequest) -> Option<String> {
        let coarse_axis = |a: &AxisRequest| AxisRequest {
            n: COARSE.min(a.n),
            ..a.clone()
        };
        self.waiting = Some(DiagramRequest {
            fine: false,
            x: coarse_axis(&r.x),
            y: r.y.as_ref().map(coarse_axis),
            ..r.clone()
        });
        self.latest = Some(r);
        self.next()
    }

    pub fn ready(&mut self) -> Option<String> {
        self.ready = true;
        self.next()
    }

    /// A reply came: the reply if it answers the latest inputs, and the message to post
    /// next (the fine picture after the latest coarse one).
    pub fn reply(&mut self, r: DiagramReply) -> (Option<DiagramReply>, Option<String>) {
        self.in_flight = false;
        let current = self.latest.as_ref().is_some_and(|l| l.id == r.id);
        if current && !r.fine && self.waiting.is_none() {
            self.waiting = self.latest.clone();
        }
        (current.then_some(r), self.next())
    }

    fn next(&mut self) -> Option<String> {
        if !self.ready || self.in_flight {
            return None;
        }
        let r = self.waiting.take()?;
        self.in_flight = true;
        Some(worker_protocol::to_message(&ToWorker::Diagram(r)))
    }
}

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
    /// The reply shown was planned on the page's thread (see [`PagePlanner`]).
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

/// The request for a scenario, without its id; `Err` when the scenario cannot be planned
/// (its machine or baseline is not valid, its tables are not loaded), shown in place of
/// every table.
fn inputs(s: &Scenario) -> Result<Request, String> {
    let queries = match &s.workload {
        Workload::Dbt3 { sf, .. } => Queries::Dbt3 { sf: *sf },
        Workload::User(u) => Queries::User {
            tables: match &u.tables {
                UserTables::Example => None,
                UserTables::File { json, .. } => Some(json.to_string()),
                UserTables::Missing { name } => {
                    return Err(format!(
                        "this link names the scenario file {name}, too large for a link: \
                         load it in the Workload panel"
                    ))
                }
            },
            text: u.queries.clone(),
        },
        Workload::T1Sweep { .. } => return Err("the workload is the t1 sweep".into()),
        Workload::Ordering { .. } => return Err("the ordering workload has its own view".into()),
    };
    let machine = analysis::machine(s).map_err(|e| e.to_string())?;
    let baseline = s
        .baseline()
        .ok_or("the workload has no baseline")?
        .map_err(|e| e.to_string())?;
    Ok(Request {
        id: 0,
        queries,
        versions: s
            .engines
            .list()
            .into_iter()
            .map(|e| s.version_of(e))
            .collect(),
        machine,
        server: s.server,
        baseline: knob_list(&baseline),
        current: knob_list(&s.knobs),
    })
}

#[derive(Properties, PartialEq)]
pub struct Dbt3ViewProps {
    pub scenario: Scenario,
    /// Set knobs (a click on the plan diagram); without it the view draws no diagram (the
    /// embed).
    #[prop_or_default]
    pub on_set: Option<Callback<Vec<(Knob, f64)>>>,
    /// The diagram panel's settings changed (they live in the scenario, and so in links).
    #[prop_or_default]
    pub on_diagram: Callback<costlab_core::scenario::DiagramSpec>,
}

#[function_component(Dbt3View)]
pub fn dbt3_view(props: &Dbt3ViewProps) -> Html {
    let s = &props.scenario;
    let shown = use_reducer(Shown::default);
    let conversation = use_mut_ref(Conversation::default);
    let diagrams = use_mut_ref(DiagramConversation::default);
    let diagram_ids = use_mut_ref(|| 0u64);
    // The query a click on the flip map opened, per engine, with a click count.
    let focus = use_state(|| None::<(Engine, u8, u64)>);
    let link = use_mut_ref(|| None::<WorkerLink>);
    let page = use_mut_ref(PagePlanner::default);
    // The id of the last reply the page's planner made (its trees are there while shown).
    let on_page = use_mut_ref(|| 0u64);
    // Ids count the distinct inputs; the tables carry the latest and the shown one, so
    // tests (and the timing marks) can tell when the reply to an input is on screen.
    let counter = use_mut_ref(|| 0u64);
    let request = use_memo(inputs(s), move |r| {
        r.clone().map(|mut r| {
            *counter.borrow_mut() += 1;
            r.id = *counter.borrow();
            r
        })
    });
    {
        let view = ViewLinks {
            conversation: conversation.clone(),
            diagrams: diagrams.clone(),
            link: link.clone(),
            page: page.clone(),
            on_page: on_page.clone(),
            shown: shown.dispatcher(),
        };
        use_effect_with((), move |_| {
            let link = view.link.clone();
            start_worker(view);
            move || drop(link.borrow_mut().take())
        });
    }
    {
        let (conversation, link, page, on_page, shown) = (
            conversation.clone(),
            link.clone(),
            page.clone(),
            on_page.clone(),
            shown.dispatcher(),
        );
        use_effect_with(request.clone(), move |r| {
            if let Ok(r) = &**r {
                // Only knobs moved and the page's planner is quick: the reply is ready in
                // this task, before the input's frame.
                let on_page_reply = page.borrow_mut().replan(r);
                if let Some(reply) = on_page_reply {
                    *on_page.borrow_mut() = r.id;
                    conversation.borrow_mut().answered_on_page(r);
                    shown.dispatch(Received::Reply(reply, true));
                } else if let Some(message) = conversation.borrow_mut().request(r.clone()) {
                    if let Some(l) = &*link.borrow() {
                        l.post(&message);
                        infra::mark("costlab-posted");
                    }
                }
            }
        });
    }
    // Diagrams are drawn over the worker's planners: while the panel is open, the worker
    // plans what the page's planner answered too (in the background).
    {
        let (conversation, link) = (conversation.clone(), link.clone());
        let behind =
            s.diagram.is_some_and(|d| d.open) && shown.worker_id != shown.id && shown.on_page;
        use_effect_with((behind, shown.id), move |&(behind, _)| {
            let latest = conversation.borrow().latest().cloned();
            if let Some(r) = latest.filter(|_| behind) {
                if let Some(message) = conversation.borrow_mut().request(r) {
                    if let Some(l) = &*link.borrow() {
                        l.post(&message);
                    }
                }
            }
        });
    }
    // After the reply is in the DOM: the end of an input-to-redraw measurement.
    use_effect_with(shown.id, |id| {
        if *id > 0 {
            infra::mark("costlab-drawn");
        }
    });

    // A row opened: its trees come from the page's planner when it planned the latest
    // inputs, else from the worker (no request queue: the answer is quick, and one for
    // plans no longer shown is dropped).
    let on_open = {
        let (link, page, on_page, shown, conversation) = (
            link.clone(),
            page.clone(),
            on_page.clone(),
            shown.dispatcher(),
            conversation.clone(),
        );
        use_callback((), move |(engine, number): (Engine, u8), _| {
            let latest = conversation.borrow().latest().map(|r| r.id);
            let from_page = latest == Some(*on_page.borrow());
            if let Some(t) = from_page
                .then(|| page.borrow_mut().trees(TreesRequest { engine, number }))
                .flatten()
            {
                shown.dispatch(Received::Trees(Box::new(t)));
            } else if let Some(l) = &*link.borrow() {
                l.post(&worker_protocol::to_message(&ToWorker::Trees(
                    TreesRequest { engine, number },
                )));
            }
        })
    };
    let requested = request.as_ref().as_ref().map(|r| r.id).unwrap_or(0);
    let (Some(baseline), prefix) = (
        s.workload.baseline(),
        match s.workload {
            Workload::User(_) => "user",
            _ => "dbt3",
        },
    ) else {
        return html! {};
    };
    let tables = s.engines.list().into_iter().map(|e| {
        let baseline = Preset::find(baseline)
            .ok()
            .filter(|p| p.engine == e)
            .map(|p| p.label.to_string())
            .unwrap_or_else(|| format!("{} defaults", s.version_of(e).label()));
        let table = match (&*request, &shown.failed) {
            (Err(e), _) | (_, Some(e)) => Some(Shared(Rc::new(Err(e.clone())))),
            _ => shown
                .tables
                .iter()
                .find(|(te, _)| *te == e)
                .map(|(_, t)| t.clone()),
        };
        let trees = shown.trees.iter().find(|t| t.0.engine == e).cloned();
        let refused = shown.refused.iter().find(|(re, _)| *re == e).map(|(_, r)| r.clone());
        let what = match &s.workload {
            Workload::Dbt3 { sf, .. } => format!("DBT3 at scale factor {sf}"),
            Workload::User(u) => format!("your queries on {}", u.tables.name()),
            Workload::T1Sweep { .. } | Workload::Ordering { .. } => String::new(),
        };
        let focus = focus.filter(|f| f.0 == e).map(|(_, n, k)| (n, k));
        let planning_ms = shown.planning_ms.iter().find(|(pe, _)| *pe == e).map_or(0.0, |p| p.1);
        html! {
            <Dbt3Table key={e.name()} engine={e} {table} {refused} {trees} on_open={on_open.clone()} {focus} baseline={baseline} {requested} shown={shown.id} {planning_ms} on_page={shown.on_page}
                prefix={prefix}
                title={format!("{}: {what} on {}", s.version_of(e).label(), analysis::machine_label(s))} />
        }
    });
    let on_diagram = {
        let (diagrams, link) = (diagrams.clone(), link.clone());
        use_callback((), move |mut r: DiagramRequest, _| {
            *diagram_ids.borrow_mut() += 1;
            r.id = *diagram_ids.borrow();
            if let (Some(message), Some(l)) = (diagrams.borrow_mut().request(r), &*link.borrow()) {
                l.post(&message);
            }
        })
    };
    // The queries the diagram offers: the first table's rows.
    let queries = use_memo(shown.tables.first().map(|(_, t)| t.clone()), |t| {
        Shared(Rc::new(
            t.as_ref()
                .and_then(|t| t.0.as_ref().as_ref().ok())
                .map(|rows| rows.iter().map(|r| (r.number, r.title.clone())).collect())
                .unwrap_or_default(),
        ))
    });
    let on_focus = {
        let focus = focus.clone();
        Callback::from(move |(e, n): (Engine, u8)| {
            let clicks = focus.map_or(0, |f| f.2) + 1;
            focus.set(Some((e, n, clicks)));
        })
    };
    let diagram = match &props.on_set {
        Some(on_set) if shown.failed.is_none() && request.is_ok() => html! {
            <DiagramPanel engines={s.engines.list().into_iter().map(|e| s.version_of(e)).collect::<Vec<_>>()}
                queries={(*queries).clone()} knobs={s.knobs.clone()} reply={shown.diagram.clone()}
                table={if shown.id == requested && shown.worker_id == requested { shown.id } else { 0 }}
                on_request={on_diagram} on_set={on_set.clone()} on_open={on_focus}
                spec={s.diagram} on_spec={props.on_diagram.clone()} />
        },
        _ => html! {},
    };
    html! { <>{ for tables }{ diagram }</> }
}

/// What the worker's messages reach in the view.
#[derive(Clone)]
struct ViewLinks {
    conversation: Rc<RefCell<Conversation>>,
    diagrams: Rc<RefCell<DiagramConversation>>,
    link: Rc<RefCell<Option<WorkerLink>>>,
    page: Rc<RefCell<PagePlanner>>,
    on_page: Rc<RefCell<u64>>,
    shown: UseReducerDispatcher<Shown>,
}

/// How long the planners' inputs (all but the knobs) must hold before the page's planner
/// builds its own (a long task): a drag of the scale factor or of a machine setting goes
/// to the worker alone.
const PRIME_AFTER_MS: u32 = 300;

/// Primes the page's planner for the latest inputs if what decides its planners has not
/// changed [`PRIME_AFTER_MS`] from now (knobs may move meanwhile).
fn prime_when_rested(conversation: &Rc<RefCell<Conversation>>, page: &Rc<RefCell<PagePlanner>>) {
    let Some(latest) = conversation.borrow().latest().cloned() else {
        return;
    };
    if !page.borrow().needs_priming(&latest) {
        return;
    }
    let key = PagePlanner::key(&latest);
    let (conversation, page) = (conversation.clone(), page.clone());
    gloo_timers::callback::Timeout::new(PRIME_AFTER_MS, move || {
        let latest = conversation.borrow().latest().cloned();
        if let Some(r) = latest.filter(|r| PagePlanner::key(r) == key) {
            page.borrow_mut().prime(&r);
            warm_when_idle(conversation, page, r.id, WARM_ROUNDS);
        }
    })
    .forget();
}

/// Replans after priming that the page's planner runs while the inputs rest (see
/// [`PagePlanner::warm`]), one per task.
const WARM_ROUNDS: u32 = 4;

fn warm_when_idle(
    conversation: Rc<RefCell<Conversation>>,
    page: Rc<RefCell<PagePlanner>>,
    id: u64,
    rounds: u32,
) {
    if rounds == 0 {
        return;
    }
    gloo_timers::callback::Timeout::new(50, move || {
        // Only while nothing has moved since the priming: a moved knob warms it anyway.
        let latest = conversation
            .borrow()
            .latest()
            .filter(|r| r.id == id)
            .cloned();
        if let Some(r) = latest {
            page.borrow().warm(&r);
            if rounds == 1 {
                infra::mark("costlab-warmed");
            }
            warm_when_idle(conversation, page, id, rounds - 1);
        }
    })
    .forget();
}

/// Starts the worker and wires its messages to the conversation and the view.
fn start_worker(view: ViewLinks) {
    let on_message = {
        let ViewLinks {
            conversation,
            diagrams,
            link,
            page,
            on_page,
            shown,
        } = view.clone();
        Callback::from(move |text: String| {
            // With "costlab-posted" and "costlab-drawn", splits an input's time into the
            // page's, the worker's (and the messages'), and the redraw's.
            infra::mark("costlab-received");
            let next = match worker_protocol::parse(&text) {
                Ok(FromWorker::Ready) => {
                    let table = conversation.borrow_mut().ready();
                    let diagram = diagrams.borrow_mut().ready();
                    if let (Some(m), Some(l)) = (diagram, &*link.borrow()) {
                        l.post(&m);
                    }
                    table
                }
                Ok(FromWorker::Diagram(d)) => {
                    let (current, next) = diagrams.borrow_mut().reply(d);
                    if let Some(d) = current {
                        shown.dispatch(Received::Diagram(Box::new(d)));
                    }
                    next
                }
                Ok(FromWorker::Reply(r)) => {
                    let (current, next) = conversation.borrow_mut().reply(r);
                    if let Some(r) = current {
                        let followed = *on_page.borrow() == r.id;
                        if let Some(latest) = conversation.borrow().latest().filter(|_| !followed) {
                            let ms = r.tables.iter().map(|t| t.planning_ms).sum();
                            page.borrow_mut().worker_answered(latest, ms);
                        }
                        if followed {
                            // The page's planner showed this reply already.
                            shown.dispatch(Received::WorkerCaughtUp(r.id));
                        } else {
                            shown.dispatch(Received::Reply(r, false));
                        }
                        if page.borrow().plan.is_some() {
                            prime_when_rested(&conversation, &page);
                        } else {
                            let (conversation, primed) = (conversation.clone(), page.clone());
                            load_page_planner(&page, move || {
                                prime_when_rested(&conversation, &primed)
                            });
                        }
                    }
                    next
                }
                Ok(FromWorker::Trees(t)) => {
                    shown.dispatch(Received::Trees(Box::new(t)));
                    None
                }
                // This view asks for no files.
                Ok(
                    FromWorker::Calibration(_)
                    | FromWorker::Validation(_)
                    | FromWorker::Scenario(_)
                    | FromWorker::Ordering(_),
                ) => None,
                Ok(FromWorker::Failed(m)) | Err(m) => {
                    shown.dispatch(Received::Failed(m));
                    None
                }
            };
            if let (Some(message), Some(l)) = (next, &*link.borrow()) {
                l.post(&message);
                infra::mark("costlab-posted");
            }
        })
    };
    let on_error = {
        let shown = view.shown.clone();
        Callback::from(move |m: String| shown.dispatch(Received::Failed(m)))
    };
    match WorkerLink::start(infra::WORKER_URL, on_message, on_error) {
        Ok(l) => *view.link.borrow_mut() = Some(l),
        Err(e) => view.shown.dispatch(Received::Failed(e)),
    }
}

#[derive(Properties, PartialEq)]
pub struct Dbt3Props {
    pub engine: Engine,
    /// `None` while the first reply is pending.
    pub table: Option<Shared<Table>>,
    /// The queries this engine's SQL front end refused (the user's workload).
    #[prop_or_default]
    pub refused: Option<Shared<Vec<Refused>>>,
    /// The ids' prefix: "dbt3" or "user".
    #[prop_or(AttrValue::Static("dbt3"))]
    pub prefix: AttrValue,
    /// The heading: engine, scale factor, machine.
    pub title: AttrValue,
    /// The baseline's name, e.g. "MySQL 5.7 defaults".
    pub baseline: AttrValue,
    /// The latest request's id and the id of the reply shown (equal: up to date).
    #[prop_or_default]
    pub requested: u64,
    #[prop_or_default]
    pub shown: u64,
    /// The worker's milliseconds for the reply shown (`data-planning-ms`, for measurements).
    #[prop_or_default]
    pub planning_ms: f64,
    /// The reply shown was planned on the page's thread (`data-planned-on`, for measurements).
    #[prop_or_default]
    pub on_page: bool,
    /// The open row's trees, when the worker sent them (for the reply `shown`).
    #[prop_or_default]
    pub trees: Option<Shared<TreesReply>>,
    /// A row opened (or the reply changed under an open row): its trees are wanted.
    #[prop_or_default]
    pub on_open: Callback<(Engine, u8)>,
    /// A query to open, from a click on the flip map, with the click's number (the same
    /// query clicked twice opens it again after the user closed it).
    #[prop_or_default]
    pub focus: Option<(u8, u64)>,
}

fn amount(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

fn change(pct: f64) -> String {
    format!("{pct:+.1} %")
}

fn tree(n: &Node) -> Html {
    html! {
        <li>
            <span class="op">{ &n.op }</span>
            if let Some(r) = &n.relation { { " " }<strong>{ r }</strong> }
            if let Some(i) = &n.index { { " using " }<code>{ i }</code> }
            <span class="nums">{ format!(" rows {} · cost {}", amount(n.rows), amount(n.cost)) }</span>
            if !n.children.is_empty() {
                <ul>{ for n.children.iter().map(tree) }</ul>
            }
        </li>
    }
}

/// The query's text with the span the front end names marked (when the offsets fall on
/// characters of the text; else the whole text unmarked).
fn marked(r: &Refused) -> Html {
    let t = &r.text;
    let (start, mut end) = (r.start.min(t.len()), r.end.min(t.len()));
    if end <= start && start < t.len() {
        // An empty span points at one character.
        end = t[start..]
            .chars()
            .next()
            .map_or(start, |c| start + c.len_utf8());
    }
    if end > start && t.is_char_boundary(start) && t.is_char_boundary(end) {
        html! { <>{ &t[..start] }<mark>{ &t[start..end] }</mark>{ &t[end..] }</> }
    } else {
        html! { { t } }
    }
}

#[derive(Properties, PartialEq)]
struct RefusedProps {
    refused: Refused,
}

/// A query the engine cannot plan: why, and its text with the part named marked.
#[function_component(RefusedRow)]
fn refused_row(props: &RefusedProps) -> Html {
    let r = &props.refused;
    html! {
        <tr class="refused" data-q={r.number.to_string()}>
            <th scope="row">{ format!("Q{}", r.number) }</th>
            <td colspan="7">
                <p class="error" role="alert">{ &r.message }</p>
                <pre class="sql">{ marked(r) }</pre>
            </td>
        </tr>
    }
}

/// Which row is open: toggled by the row itself, closed by the button.
#[derive(Default, PartialEq)]
struct Selected(Option<u8>);

enum Select {
    Toggle(u8),
    Open(u8),
    Close,
}

impl Reducible for Selected {
    type Action = Select;

    fn reduce(self: Rc<Self>, action: Select) -> Rc<Self> {
        Rc::new(Selected(match action {
            Select::Toggle(n) if self.0 != Some(n) => Some(n),
            Select::Open(n) => Some(n),
            _ => None,
        }))
    }
}

#[derive(Properties, PartialEq)]
struct RowProps {
    row: Row,
    open: bool,
    detail_id: AttrValue,
    on_toggle: Callback<u8>,
}

/// One query's row; drawn again only when its own values change.
#[function_component(WorkloadRow)]
fn dbt3_row(props: &RowProps) -> Html {
    let r = &props.row;
    let n = r.number;
    // Same join order but another plan: the cell says where the plan changed.
    let (now, same_order) = match &r.change {
        Some(site) if r.current.summary == r.baseline.summary => (site, true),
        _ => (&r.current.summary, false),
    };
    let onclick = props.on_toggle.reform(move |_: MouseEvent| n);
    let onkeydown = {
        let t = props.on_toggle.clone();
        move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                t.emit(n);
            }
        }
    };
    html! {
        <tr class={classes!(r.changed().then_some("flipped"), props.open.then_some("open"))}
            tabindex="0" aria-expanded={props.open.to_string()} aria-controls={props.detail_id.clone()}
            data-q={n.to_string()} data-changed={r.changed().to_string()}
            data-base-s={r.baseline.time_s.to_string()} data-cur-s={r.current.time_s.to_string()}
            {onclick} {onkeydown}>
            <th scope="row">{ format!("Q{n}") }</th>
            <td>{ &r.title }</td>
            <td class="flag">{ if r.changed() { "⇄ changed" } else { "same" } }</td>
            <td class="plan">{ &r.baseline.summary }</td>
            <td class={if same_order { "plan change-site" } else { "plan" }}>{ now }</td>
            <td class="num">{ seconds(r.baseline.time_s) }</td>
            <td class="num">{ seconds(r.current.time_s) }</td>
            <td class="num">{ change(r.change_pct()) }</td>
        </tr>
    }
}

#[function_component(Dbt3Table)]
pub fn dbt3_table(props: &Dbt3Props) -> Html {
    let selected = use_reducer(Selected::default);
    let on_toggle = {
        let d = selected.dispatcher();
        use_callback((), move |n: u8, _| d.dispatch(Select::Toggle(n)))
    };
    // A click on the flip map opens its query's row and brings it into view.
    {
        let (d, section) = (
            selected.dispatcher(),
            format!(
                "{}-{}",
                props.prefix,
                if props.engine == Engine::Postgres {
                    "pg"
                } else {
                    "mysql"
                }
            ),
        );
        use_effect_with(props.focus, move |focus| {
            if let Some((n, _)) = *focus {
                d.dispatch(Select::Open(n));
                let row = web_sys::window().and_then(|w| w.document()).and_then(|d| {
                    d.query_selector(&format!("#{section} tr[data-q=\"{n}\"]"))
                        .ok()
                        .flatten()
                });
                if let Some(row) = row {
                    row.scroll_into_view();
                }
            }
        });
    }
    // The open row's trees come from the worker: ask when a row opens and when the reply
    // shown changes under it.
    {
        let (on_open, engine) = (props.on_open.clone(), props.engine);
        let ok = matches!(props.table.as_ref().map(|t| &*t.0), Some(Ok(_)));
        use_effect_with((selected.0, props.shown, ok), move |&(open, _, ok)| {
            if let (Some(n), true) = (open, ok) {
                on_open.emit((engine, n));
            }
        });
    }
    let id = if props.engine == Engine::Postgres {
        "pg"
    } else {
        "mysql"
    };
    let prefix = &props.prefix;
    let title_id = format!("{prefix}-{id}-title");
    let detail_id = format!("{prefix}-{id}-detail");
    let section = |body: Html| {
        html! {
            <section class="dbt3" id={format!("{prefix}-{id}")} aria-labelledby={title_id.clone()}
                data-requested={props.requested.to_string()} data-shown={props.shown.to_string()}
                data-planning-ms={format!("{:.2}", props.planning_ms)}
                data-planned-on={if props.on_page { "page" } else { "worker" }}>
                <h2 id={title_id.clone()}>{ props.title.clone() }</h2>
                { body }
            </section>
        }
    };
    let rows = match props.table.as_ref().map(|t| &*t.0) {
        None => return section(html! { <p class="note" aria-live="polite">{ "planning…" }</p> }),
        Some(Err(e)) => {
            return section(html! {
                <p class="error" role="alert">{ format!("{} cannot plan these queries here: {e}", props.engine.name()) }</p>
            })
        }
        Some(Ok(rows)) => rows,
    };
    let (base_s, cur_s) = rows.iter().fold((0.0, 0.0), |(b, c), r| {
        (b + r.baseline.time_s, c + r.current.time_s)
    });
    let flipped = rows.iter().filter(|r| r.changed()).count();
    let refused: &[Refused] = props.refused.as_ref().map_or(&[], |r| &r.0);
    // Planned and refused queries in the order of the text.
    let mut ordered: Vec<(u8, Html)> = rows
        .iter()
        .map(|r| {
            (r.number, html! {
                <WorkloadRow key={r.number} row={r.clone()} open={selected.0 == Some(r.number)}
                    detail_id={AttrValue::from(detail_id.clone())} on_toggle={on_toggle.clone()} />
            })
        })
        .chain(refused.iter().map(|r| {
            (r.number, html! { <RefusedRow key={format!("refused-{}", r.number)} refused={r.clone()} /> })
        }))
        .collect();
    // core's sort, not std's: std's stable sort would be compiled for this element type
    // alone, its only use in the page's bundle (about 4 KB of code).
    costlab_core::sort::sort_by_key(&mut ordered, |(n, _)| *n);
    let detail = selected.0.and_then(|n| rows.iter().find(|r| r.number == n));
    let trees = detail.and_then(|r| {
        props
            .trees
            .as_ref()
            .map(|t| &*t.0)
            .filter(|t| t.engine == props.engine && t.number == r.number && t.id == props.shown)
            .map(|t| &t.trees)
    });
    section(html! {
        <>
            <p class="note">{ format!("Each query planned under the baseline ({}) and under the current constants, timed on this machine. ", props.baseline) }
                <span class="flip-mark">{ "⇄" }</span>{ " marks a plan that changed. Select a row for both plans." }</p>
            <div class="table-scroll">
            <table class="dbt3-table">
                <thead><tr>
                    <th scope="col">{ "Q" }</th><th scope="col">{ "query" }</th><th scope="col">{ "plan" }</th>
                    <th scope="col">{ "baseline plan" }</th><th scope="col">{ "current plan" }</th>
                    <th scope="col">{ "baseline time" }</th><th scope="col">{ "current time" }</th><th scope="col">{ "change" }</th>
                </tr></thead>
                <tbody>
                { for ordered.iter().map(|(_, line)| line.clone()) }
                </tbody>
                <tfoot><tr class="totals">
                    <th scope="row">{ "all" }</th><td>{ match rows.len() { 1 => "1 query".to_string(), n => format!("{n} queries") } }</td>
                    <td class="flag">{ format!("{flipped} changed") }</td><td></td><td></td>
                    <td class="num">{ seconds(base_s) }</td><td class="num">{ seconds(cur_s) }</td>
                    <td class="num">{ change(if base_s > 0.0 { 100.0 * (cur_s - base_s) / base_s } else { 0.0 }) }</td>
                </tr></tfoot>
            </table>
            </div>
            <div id={detail_id.clone()} class="dbt3-detail" aria-live="polite">
                if let Some(r) = detail {
                    <h3>{ format!("Q{} {}: {}", r.number, r.title, if r.changed() { "the plan changed" } else { "same plan" }) }</h3>
                    { match trees {
                        None => html! { <p class="note">{ "fetching the plans…" }</p> },
                        Some(Err(e)) => html! { <p class="error" role="alert">{ format!("the plans cannot be shown: {e}") }</p> },
                        Some(Ok(t)) => html! {
                            <div class="plans">
                                { for [("baseline", &r.baseline, &t.baseline), ("current", &r.current, &t.current)].into_iter().map(|(which, o, tr)| html! {
                                    <div class={classes!("plan-tree", which)}>
                                        <h4>{ format!("{which}: cost {}, {} rows, {}", amount(o.cost), amount(o.rows), seconds(o.time_s)) }</h4>
                                        <ul>{ tree(tr) }</ul>
                                    </div>
                                }) }
                            </div>
                        },
                    } }
                    <button type="button" onclick={let d = selected.dispatcher(); move |_| d.dispatch(Select::Close)}>{ "Close" }</button>
                }
            </div>
        </>
    })
}
