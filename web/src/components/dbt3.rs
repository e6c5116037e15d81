//! The DBT3 view: every query's plan under the baseline and under the current constants,
//! their simulated times and the change, one table per engine; flipped plans are marked with
//! a symbol and a word as well as a colour. A row (click, Enter or Space) opens both plans
//! as trees.
//!
//! The planning happens in the helper web worker (`worker`): the view sends the inputs, keeps
//! showing the last reply meanwhile, and redraws when the reply for the latest inputs comes.

use crate::infra::{self, WorkerLink};
use crate::model::{seconds, Shared};
use crate::worker_protocol::{self, knob_list, FromWorker, Node, Reply, Request, Table, ToWorker};
use costlab_core::analysis;
use costlab_core::knobs::{Engine, Preset};
use costlab_core::scenario::{Scenario, Workload};
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
    latest: u64,
}

impl Conversation {
    /// New inputs; returns the message to post now, if the worker is free.
    pub fn request(&mut self, r: Request) -> Option<String> {
        self.latest = r.id;
        self.waiting = Some(r);
        self.next()
    }

    /// The worker announced that it listens.
    pub fn ready(&mut self) -> Option<String> {
        self.ready = true;
        self.next()
    }

    /// A reply came: the reply if it answers the latest request, and the message to post next.
    pub fn reply(&mut self, r: Reply) -> (Option<Reply>, Option<String>) {
        self.in_flight = false;
        let current = (r.id == self.latest).then_some(r);
        (current, self.next())
    }

    fn next(&mut self) -> Option<String> {
        if !self.ready || self.in_flight {
            return None;
        }
        let r = self.waiting.take()?;
        self.in_flight = true;
        Some(worker_protocol::to_json(&ToWorker::Dbt3(Box::new(r))))
    }
}

/// What the view shows: the last current reply, or why the worker cannot answer.
#[derive(Default, PartialEq)]
pub struct Shown {
    pub id: u64,
    pub tables: Vec<(Engine, Shared<Table>)>,
    pub failed: Option<String>,
}

pub enum Received {
    Reply(Reply),
    Failed(String),
}

impl Reducible for Shown {
    type Action = Received;

    fn reduce(self: Rc<Self>, action: Received) -> Rc<Self> {
        match action {
            Received::Reply(r) => Rc::new(Shown {
                id: r.id,
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
                failed: None,
            }),
            Received::Failed(m) => Rc::new(Shown {
                id: self.id,
                tables: self.tables.clone(),
                failed: Some(m),
            }),
        }
    }
}

/// The request for a scenario, without its id; `Err` when the scenario cannot be planned
/// (its machine or baseline is not valid), shown in place of every table.
fn inputs(s: &Scenario) -> Result<Request, String> {
    let Workload::Dbt3 { sf, .. } = s.workload else {
        return Err("the workload is not DBT3".into());
    };
    let machine = analysis::machine(s).map_err(|e| e.to_string())?;
    let baseline = s
        .dbt3_baseline()
        .ok_or("the workload is not DBT3")?
        .map_err(|e| e.to_string())?;
    Ok(Request {
        id: 0,
        sf,
        versions: s
            .engines
            .list()
            .into_iter()
            .map(|e| s.version_of(e))
            .collect(),
        machine,
        baseline: knob_list(&baseline),
        current: knob_list(&s.knobs),
    })
}

#[derive(Properties, PartialEq)]
pub struct Dbt3ViewProps {
    pub scenario: Scenario,
}

#[function_component(Dbt3View)]
pub fn dbt3_view(props: &Dbt3ViewProps) -> Html {
    let s = &props.scenario;
    let shown = use_reducer(Shown::default);
    let conversation = use_mut_ref(Conversation::default);
    let link = use_mut_ref(|| None::<WorkerLink>);
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
        let (conversation, link, shown) = (conversation.clone(), link.clone(), shown.clone());
        use_effect_with((), move |_| {
            start_worker(&conversation, &link, shown.dispatcher());
            move || drop(link.borrow_mut().take())
        });
    }
    {
        let (conversation, link) = (conversation.clone(), link.clone());
        use_effect_with(request.clone(), move |r| {
            if let Ok(r) = &**r {
                if let Some(message) = conversation.borrow_mut().request(r.clone()) {
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

    let requested = request.as_ref().as_ref().map(|r| r.id).unwrap_or(0);
    let Workload::Dbt3 { sf, baseline } = &s.workload else {
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
        html! {
            <Dbt3Table key={e.name()} engine={e} {table} baseline={baseline} {requested} shown={shown.id}
                title={format!("{}: DBT3 at scale factor {sf} on {}", s.version_of(e).label(), analysis::machine_label(s))} />
        }
    });
    html! { <>{ for tables }</> }
}

/// Starts the worker and wires its messages to the conversation and the view.
fn start_worker(
    conversation: &Rc<RefCell<Conversation>>,
    link: &Rc<RefCell<Option<WorkerLink>>>,
    shown: UseReducerDispatcher<Shown>,
) {
    let on_message = {
        let (conversation, link, shown) = (conversation.clone(), link.clone(), shown.clone());
        Callback::from(move |text: String| {
            let next = match worker_protocol::parse(&text) {
                Ok(FromWorker::Ready) => conversation.borrow_mut().ready(),
                Ok(FromWorker::Reply(r)) => {
                    let (current, next) = conversation.borrow_mut().reply(r);
                    if let Some(r) = current {
                        shown.dispatch(Received::Reply(r));
                    }
                    next
                }
                // This view asks for no calibration files.
                Ok(FromWorker::Calibration(_)) => None,
                Ok(FromWorker::Failed(m)) | Err(m) => {
                    shown.dispatch(Received::Failed(m));
                    None
                }
            };
            if let (Some(message), Some(l)) = (next, &*link.borrow()) {
                l.post(&message);
            }
        })
    };
    let on_error = {
        let shown = shown.clone();
        Callback::from(move |m: String| shown.dispatch(Received::Failed(m)))
    };
    match WorkerLink::start(infra::WORKER_URL, on_message, on_error) {
        Ok(l) => *link.borrow_mut() = Some(l),
        Err(e) => shown.dispatch(Received::Failed(e)),
    }
}

#[derive(Properties, PartialEq)]
pub struct Dbt3Props {
    pub engine: Engine,
    /// `None` while the first reply is pending.
    pub table: Option<Shared<Table>>,
    /// The heading: engine, scale factor, machine.
    pub title: AttrValue,
    /// The baseline's name, e.g. "MySQL 5.7 defaults".
    pub baseline: AttrValue,
    /// The latest request's id and the id of the reply shown (equal: up to date).
    #[prop_or_default]
    pub requested: u64,
    #[prop_or_default]
    pub shown: u64,
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

#[function_component(Dbt3Table)]
pub fn dbt3_table(props: &Dbt3Props) -> Html {
    let selected = use_state(|| None::<u8>);
    let id = if props.engine == Engine::Postgres {
        "pg"
    } else {
        "mysql"
    };
    let title_id = format!("dbt3-{id}-title");
    let detail_id = format!("dbt3-{id}-detail");
    let section = |body: Html| {
        html! {
            <section class="dbt3" id={format!("dbt3-{id}")} aria-labelledby={title_id.clone()}
                data-requested={props.requested.to_string()} data-shown={props.shown.to_string()}>
                <h2 id={title_id.clone()}>{ props.title.clone() }</h2>
                { body }
            </section>
        }
    };
    let rows = match props.table.as_ref().map(|t| &*t.0) {
        None => return section(html! { <p class="note" aria-live="polite">{ "planning…" }</p> }),
        Some(Err(e)) => {
            return section(html! {
                <p class="error" role="alert">{ format!("{} cannot plan DBT3 here: {e}", props.engine.name()) }</p>
            })
        }
        Some(Ok(rows)) => rows,
    };
    let toggle = |n: u8| {
        let selected = selected.clone();
        move || selected.set(if *selected == Some(n) { None } else { Some(n) })
    };
    let (base_s, cur_s) = rows.iter().fold((0.0, 0.0), |(b, c), r| {
        (b + r.baseline.time_s, c + r.current.time_s)
    });
    let flipped = rows.iter().filter(|r| r.changed).count();
    let detail = (*selected).and_then(|n| rows.iter().find(|r| r.number == n));
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
                { for rows.iter().map(|r| {
                    let open = *selected == Some(r.number);
                    let onclick = { let t = toggle(r.number); move |_: MouseEvent| t() };
                    let onkeydown = {
                        let t = toggle(r.number);
                        move |e: KeyboardEvent| if e.key() == "Enter" || e.key() == " " {
                            e.prevent_default();
                            t();
                        }
                    };
                    html! {
                        <tr key={r.number} class={classes!(r.changed.then_some("flipped"), open.then_some("open"))}
                            tabindex="0" aria-expanded={open.to_string()} aria-controls={detail_id.clone()}
                            data-q={r.number.to_string()} data-changed={r.changed.to_string()}
                            data-base-s={r.baseline.time_s.to_string()} data-cur-s={r.current.time_s.to_string()}
                            {onclick} {onkeydown}>
                            <th scope="row">{ format!("Q{}", r.number) }</th>
                            <td>{ &r.title }</td>
                            <td class="flag">{ if r.changed { "⇄ changed" } else { "same" } }</td>
                            <td class="plan">{ &r.baseline.summary }</td>
                            <td class="plan">{ &r.current.summary }</td>
                            <td class="num">{ seconds(r.baseline.time_s) }</td>
                            <td class="num">{ seconds(r.current.time_s) }</td>
                            <td class="num">{ change(r.change_pct()) }</td>
                        </tr>
                    }
                }) }
                </tbody>
                <tfoot><tr class="totals">
                    <th scope="row">{ "all" }</th><td>{ format!("{} queries", rows.len()) }</td>
                    <td class="flag">{ format!("{flipped} changed") }</td><td></td><td></td>
                    <td class="num">{ seconds(base_s) }</td><td class="num">{ seconds(cur_s) }</td>
                    <td class="num">{ change(if base_s > 0.0 { 100.0 * (cur_s - base_s) / base_s } else { 0.0 }) }</td>
                </tr></tfoot>
            </table>
            </div>
            <div id={detail_id.clone()} class="dbt3-detail" aria-live="polite">
                if let Some(r) = detail {
                    <h3>{ format!("Q{} {}: {}", r.number, r.title, if r.changed { "the plan changed" } else { "same plan" }) }</h3>
                    <div class="plans">
                        { for [("baseline", &r.baseline), ("current", &r.current)].into_iter().map(|(which, o)| html! {
                            <div class={classes!("plan-tree", which)}>
                                <h4>{ format!("{which}: cost {}, {} rows, {}", amount(o.cost), amount(o.rows), seconds(o.time_s)) }</h4>
                                <ul>{ tree(&o.tree) }</ul>
                            </div>
                        }) }
                    </div>
                    <button type="button" onclick={let s = selected.clone(); move |_| s.set(None)}>{ "Close" }</button>
                }
            </div>
        </>
    })
}
