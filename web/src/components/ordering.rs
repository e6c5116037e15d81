//! The third seed's ordering workload as a view: each query shape planned by PostgreSQL
//! stock and with the "ORDER BY value handed up" series, timed, beside the seed's change;
//! then the closed-loop mix's throughput over the share w of positive queries, with the
//! seed's three HammerDB points.
//!
//! The helper worker plans and times (`worker::Worker::ordering`); the page keeps at most
//! one request in flight and the latest inputs waiting, so a dragged knob never queues
//! stale work.

use crate::chart::{ChartData, LineChart, Series};
use crate::components::chart_view::chart;
use crate::infra::{self, WorkerLink};
use crate::worker_protocol::{
    self, knob_list, FromWorker, OrderingReply, OrderingRequest, OrderingView as View, ToWorker,
};
use costlab_core::analysis;
use costlab_core::ordering::{SEED_MIX, SEED_PLANNING_MS};
use costlab_core::scenario::{Scenario, Workload};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The page's side of the conversation: one request in flight, the latest inputs waiting.
#[derive(Default)]
struct Conversation {
    ready: bool,
    in_flight: bool,
    waiting: Option<String>,
}

impl Conversation {
    fn request(&mut self, message: String) -> Option<String> {
        self.waiting = Some(message);
        self.next()
    }

    fn ready(&mut self) -> Option<String> {
        self.ready = true;
        self.next()
    }

    fn replied(&mut self) -> Option<String> {
        self.in_flight = false;
        self.next()
    }

    fn next(&mut self) -> Option<String> {
        if self.ready && !self.in_flight {
            let m = self.waiting.take();
            self.in_flight = m.is_some();
            m
        } else {
            None
        }
    }
}

/// The request for a scenario (id 0), or why it cannot be made.
fn inputs(s: &Scenario) -> Result<OrderingRequest, String> {
    let Workload::Ordering {
        sf,
        procost,
        series,
    } = s.workload
    else {
        return Err("the workload is not the ordering one".into());
    };
    Ok(OrderingRequest {
        id: 0,
        sf,
        procost,
        series,
        version: s.pg_version,
        machine: analysis::machine(s).map_err(|e| e.to_string())?,
        current: knob_list(&s.knobs),
    })
}

#[derive(Properties, PartialEq)]
pub struct OrderingViewProps {
    pub scenario: Scenario,
    pub dark: bool,
    #[prop_or_default]
    pub resize: u32,
}

fn percent(x: f64) -> String {
    format!("{:+.1} %", 100.0 * x)
}

/// The throughput chart: stock and the build on the simulated times and on the seed's
/// stock times, with the seed's measured points.
fn throughput_chart(v: &View, series_on: bool) -> ChartData {
    let build = if series_on { "series" } else { "stock" };
    let line = |label: String, color: usize, points: Vec<(f64, f64)>| Series {
        label,
        color,
        points,
    };
    let from = |mix: &[(f64, f64, f64)], build: bool| -> Vec<(f64, f64)> {
        mix.iter()
            .map(|&(w, s, b)| (w, if build { b } else { s }))
            .collect()
    };
    ChartData::Lines(LineChart {
        x_label: "w: share of positive queries".into(),
        y_label: "queries per second (96 users, 96 cores)".into(),
        series: vec![
            line("stock, simulated times".into(), 0, from(&v.mix, false)),
            line(format!("{build}, simulated times"), 1, from(&v.mix, true)),
            line(
                "stock, the seed's stock times".into(),
                2,
                from(&v.seed_times_mix, false),
            ),
            line(
                format!("{build}, the seed's stock times"),
                3,
                from(&v.seed_times_mix, true),
            ),
            line(
                "the seed: base (HammerDB)".into(),
                4,
                SEED_MIX.iter().map(|p| (p.w, p.stock_qps)).collect(),
            ),
            line(
                "the seed: 0007 (HammerDB)".into(),
                5,
                SEED_MIX
                    .iter()
                    .map(|p| (p.w, p.stock_qps * (1.0 + p.gain)))
                    .collect(),
            ),
        ],
        envelope: None,
        band: None,
        markers: Vec::new(),
        log_y: true,
    })
}

/// The gain at the seed's three w from a mix over w = 0, 0.05, ..., 1.
fn gain_at(mix: &[(f64, f64, f64)], w: f64) -> Option<f64> {
    mix.iter()
        .find(|(x, _, _)| (x - w).abs() < 1e-9)
        .map(|&(_, s, b)| b / s - 1.0)
}

#[function_component(OrderingView)]
pub fn ordering_view(props: &OrderingViewProps) -> Html {
    let s = &props.scenario;
    let shown = use_state(|| None::<(u64, Result<View, String>)>);
    // The id of the reply on show, read by the worker's callback (a state handle it
    // captured would not see later replies).
    let shown_last = use_mut_ref(|| 0u64);
    let conversation = use_mut_ref(Conversation::default);
    let link = use_mut_ref(|| None::<WorkerLink>);
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
            start(&conversation, &link, shown, shown_last);
            move || drop(link.borrow_mut().take())
        });
    }
    {
        let (conversation, link) = (conversation.clone(), link.clone());
        use_effect_with(request.clone(), move |r| {
            if let Ok(r) = &**r {
                let message = worker_protocol::to_message(&ToWorker::Ordering(Box::new(r.clone())));
                if let (Some(m), Some(l)) =
                    (conversation.borrow_mut().request(message), &*link.borrow())
                {
                    l.post(&m);
                }
            }
        });
    }
    let series_on = matches!(s.workload, Workload::Ordering { series: true, .. });
    let build = if series_on { "series" } else { "stock" };
    let requested = request.as_ref().as_ref().map_or(0, |r| r.id);
    let shown_id = shown.as_ref().map_or(0, |(id, _)| *id);
    let body = match (&*request, &*shown) {
        (Err(e), _) => {
            html! { <p class="error" role="alert">{ format!("Cannot plan the ordering workload: {e}") }</p> }
        }
        (Ok(_), None) => html! { <p class="note">{ "Planning the shapes…" }</p> },
        (Ok(_), Some((_, Err(e)))) => {
            html! { <p class="error" role="alert">{ format!("Cannot plan the ordering workload: {e}") }</p> }
        }
        (Ok(_), Some((_, Ok(v)))) => {
            let seed_ws = SEED_MIX.iter().map(|p| {
                let model = gain_at(&v.mix, p.w).map_or("–".into(), percent);
                let on_seed = gain_at(&v.seed_times_mix, p.w).map_or("–".into(), percent);
                html! {
                    <tr class="mix-row" data-w={p.w.to_string()}>
                        <td>{ format!("{:.1}", p.w) }</td>
                        <td class="gain-simulated">{ model }</td>
                        <td class="gain-seed-times">{ on_seed }</td>
                        <td>{ percent(p.gain) }</td>
                    </tr>
                }
            });
            html! {
                <>
                <table class="ordering-table" aria-label="Query shapes, stock against the build">
                    <thead><tr>
                        <th>{ "shape" }</th><th>{ "stock ms" }</th><th>{ format!("{build} ms") }</th>
                        <th>{ "change" }</th><th>{ "seed" }</th><th>{ "fgeo()/fnorm() calls" }</th>
                    </tr></thead>
                    <tbody>
                    { for v.rows.iter().map(|r| {
                        let change = r.build_ms / r.stock_ms - 1.0;
                        html! {
                            <tr class="ordering-row" data-shape={r.name.clone()} data-change={change.to_string()}>
                                <td>
                                    <details>
                                        <summary><strong>{ &r.name }</strong>{ " " }{ &r.title }</summary>
                                        <p class="note">{ "stock:" }</p>
                                        <pre class="plan-text stock-plan">{ &r.stock_plan }</pre>
                                        <p class="note">{ format!("{build}:") }</p>
                                        <pre class="plan-text build-plan">{ &r.build_plan }</pre>
                                    </details>
                                </td>
                                <td class="num">{ format!("{:.3}", r.stock_ms) }</td>
                                <td class="num">{ format!("{:.3}", r.build_ms) }</td>
                                <td class="num change">{ percent(change) }</td>
                                <td class="num">{ &r.seed }</td>
                                <td class="num calls">{ format!("{:.0} → {:.0}", r.stock_calls, r.build_calls) }</td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
                { chart("ordering-mix".into(),
                    format!("Closed-loop mix: throughput over w, stock and {build}"),
                    throughput_chart(v, series_on), props.dark, props.resize) }
                <table class="mix-table" aria-label="The mix's gain at the seed's shares">
                    <thead><tr>
                        <th>{ "w" }</th><th>{ "gain, simulated times" }</th>
                        <th>{ "gain, the seed's stock times" }</th><th>{ "the seed (0007)" }</th>
                    </tr></thead>
                    <tbody>{ for seed_ws }</tbody>
                </table>
                <p class="note">
                    { "The mix is a closed loop with no think time: 96 users on 96 cores, each query holding a core for its simulated time. \
                       Its gain tracks how slow the positive shapes are on stock next to the neutral ones. \
                       \"The seed's stock times\" takes the mean stock time of a positive and of a neutral query from the seed's base throughput \
                       (fitted to 4118 q/s at w = 0 and 893 q/s at w = 0.8, stock only) and applies each shape's change from the model above: \
                       the gains are predicted, not fitted." }
                </p>
                if let Some(ms) = v.planning_ms {
                    <p class="planning-time" data-ms={ms.to_string()}>
                        { format!("Planning DBT3's 22 queries at SF 30 (TPROC-H's are TPC-H's) with this PostgreSQL model in this browser: {ms:.1} ms \
                                   (median of 5); the seed's PostgreSQL planned TPROC-H's 22 in {SEED_PLANNING_MS} ms.") }
                    </p>
                }
                </>
            }
        }
    };
    html! {
        <section class="ordering-view" aria-labelledby="ordering-title"
            data-requested={requested.to_string()} data-shown={shown_id.to_string()}>
            <h2 id="ordering-title">{ "Ordered index scans that hand their value up (the third seed)" }</h2>
            <p class="note">
                { "TPROC-H-like tables with fgeo(address) → point and fnorm(phone) → digits, both plpgsql and declared with a COST; \
                   GiST indexes on fgeo(c_address) and fgeo(s_address), btrees on fnorm(c_phone) and fnorm(s_phone) INCLUDE (s_phone, s_nationkey). \
                   A call takes a measured 2.5 µs whatever the declared cost; each statement adds a measured 0.16 ms." }
            </p>
            { body }
        </section>
    }
}

fn start(
    conversation: &Rc<RefCell<Conversation>>,
    link: &Rc<RefCell<Option<WorkerLink>>>,
    shown: UseStateHandle<Option<(u64, Result<View, String>)>>,
    shown_last: Rc<RefCell<u64>>,
) {
    let on_message = {
        let (conversation, link, shown) = (conversation.clone(), link.clone(), shown.clone());
        Callback::from(move |text: String| {
            let next = match worker_protocol::parse(&text) {
                Ok(FromWorker::Ready) => conversation.borrow_mut().ready(),
                Ok(FromWorker::Ordering(OrderingReply { id, result })) => {
                    // Replies come in order; the newest so far is shown.
                    if id > *shown_last.borrow() {
                        *shown_last.borrow_mut() = id;
                        shown.set(Some((id, result)));
                    }
                    conversation.borrow_mut().replied()
                }
                Ok(FromWorker::Failed(m)) | Err(m) => {
                    shown.set(Some((u64::MAX, Err(m))));
                    None
                }
                Ok(_) => None,
            };
            if let (Some(m), Some(l)) = (next, &*link.borrow()) {
                l.post(&m);
            }
        })
    };
    let on_error = Callback::from(move |m: String| shown.set(Some((u64::MAX, Err(m)))));
    match WorkerLink::start(infra::WORKER_URL, on_message, on_error.clone()) {
        Ok(l) => *link.borrow_mut() = Some(l),
        Err(e) => on_error.emit(e),
    }
}
