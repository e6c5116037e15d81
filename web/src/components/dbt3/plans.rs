//! The plan panel under a table: the open row's two plans as trees, each node with its
//! relation, index, rows and cost.

use crate::model::seconds;
use crate::worker_protocol::{Node, Row, Trees};
use yew::prelude::*;

fn amount(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
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

/// The open row `r`: its heading, both plans as trees (or why they are not there yet, or
/// cannot be shown), and the button that closes it.
pub(super) fn plan_detail(
    r: &Row,
    trees: Option<&Result<Trees, String>>,
    on_close: Callback<MouseEvent>,
) -> Html {
    html! {
        <>
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
            <button type="button" onclick={on_close}>{ "Close" }</button>
        </>
    }
}
