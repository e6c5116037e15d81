//! The view itself ([`Dbt3View`]): the request for the scenario, the worker and the page's
//! planner that answer it, a table per engine and the plan diagram under them.

use super::conversation::{Conversation, DiagramConversation};
use super::page_planner::{prime_or_load, PagePlanner};
use super::shown::{Received, Shown};
use super::table::Dbt3Table;
use crate::components::diagram::DiagramPanel;
use crate::infra::{self, WorkerLink};
use crate::model::Shared;
use crate::worker_protocol::{
    self, knob_list, DiagramRequest, FromWorker, Queries, Request, ToWorker, TreesRequest,
};
use costlab_core::analysis;
use costlab_core::knobs::{Engine, Knob, Preset};
use costlab_core::scenario::{Scenario, UserTables, Workload};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

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
                        prime_or_load(&conversation, &page);
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
