//! An engine's table (`Dbt3Table`): a row per query with both plans in short, their
//! simulated times and the change, refused queries with their text marked, the totals,
//! and the open row's plans.

use super::plans::plan_detail;
use crate::model::{seconds, Shared};
use crate::worker_protocol::{Refused, Row, Table, TreesReply};
use costlab_core::knobs::Engine;
use std::rc::Rc;
use yew::prelude::*;

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

fn change(pct: f64) -> String {
    format!("{pct:+.1} %")
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
                    { plan_detail(r, trees, { let d = selected.dispatcher(); Callback::from(move |_| d.dispatch(Select::Close)) }) }
                }
            </div>
        </>
    })
}
