//! The DBT3 planners a second time, on the page's own thread ([`PagePlanner`]): loaded
//! once the worker has answered, primed when the planners' inputs have rested, warmed
//! while they rest, and asked only for knob-only replans that stay under a frame.

use super::conversation::Conversation;
use crate::infra;
use crate::worker_protocol::{
    self, FromWorker, Reply, Request, ToWorker, TreesReply, TreesRequest,
};
use std::cell::RefCell;
use std::rc::Rc;

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

/// After the worker's reply to the latest inputs: primes the page's planner when they have
/// rested, loading the planner first if it is not there yet.
pub(super) fn prime_or_load(
    conversation: &Rc<RefCell<Conversation>>,
    page: &Rc<RefCell<PagePlanner>>,
) {
    if page.borrow().plan.is_some() {
        prime_when_rested(conversation, page);
    } else {
        let (conversation, primed) = (conversation.clone(), page.clone());
        load_page_planner(page, move || prime_when_rested(&conversation, &primed));
    }
}
