//! The DBT3 table of one engine: every query's plan under the baseline and under the
//! current constants, their simulated times and the change; flipped plans are marked with a
//! symbol and a word as well as a colour. A row (click, Enter or Space) opens both plans as
//! trees.

use crate::model::{seconds, Shared};
use costlab_core::knobs::Engine;
use costlab_core::plan::PlanNode;
use costlab_core::workload::dbt3::compare::{plan_summary, Dbt3Row};
use costlab_core::Result;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Dbt3Props {
    pub engine: Engine,
    pub table: Shared<Result<Vec<Dbt3Row>>>,
    /// The heading: engine, scale factor, machine.
    pub title: AttrValue,
    /// The baseline's name, e.g. "MySQL 5.7 defaults".
    pub baseline: AttrValue,
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

fn tree(n: &PlanNode) -> Html {
    html! {
        <li>
            <span class="op">{ &*n.op }</span>
            if let Some(r) = &n.relation { { " " }<strong>{ &**r }</strong> }
            if let Some(i) = &n.index { { " using " }<code>{ &**i }</code> }
            <span class="nums">{ format!(" rows {} · cost {}", amount(n.rows), amount(n.cost.total)) }</span>
            if !n.children.is_empty() {
                <ul>{ for n.children.iter().map(tree) }</ul>
            }
        </li>
    }
}

#[function_component(Dbt3Table)]
pub fn dbt3_table(props: &Dbt3Props) -> Html {
    let selected = use_state(|| None::<u8>);
    use_effect_with(props.table.clone(), |_| crate::infra::mark("costlab-drawn"));
    let id = if props.engine == Engine::Postgres {
        "pg"
    } else {
        "mysql"
    };
    let title_id = format!("dbt3-{id}-title");
    let detail_id = format!("dbt3-{id}-detail");
    let rows = match &*props.table.0 {
        Ok(rows) => rows,
        Err(e) => {
            return html! {
                <section class="dbt3" id={format!("dbt3-{id}")} aria-labelledby={title_id.clone()}>
                    <h2 id={title_id}>{ props.title.clone() }</h2>
                    <p class="error" role="alert">{ format!("{} cannot plan DBT3 here: {e}", props.engine.name()) }</p>
                </section>
            };
        }
    };
    let toggle = |n: u8| {
        let selected = selected.clone();
        move || selected.set(if *selected == Some(n) { None } else { Some(n) })
    };
    let (base_s, cur_s) = rows.iter().fold((0.0, 0.0), |(b, c), r| {
        (b + r.baseline.time_s, c + r.current.time_s)
    });
    let flipped = rows.iter().filter(|r| r.plan_changed()).count();
    let detail = (*selected).and_then(|n| rows.iter().find(|r| r.number == n));
    html! {
        <section class="dbt3" id={format!("dbt3-{id}")} aria-labelledby={title_id.clone()}>
            <h2 id={title_id}>{ props.title.clone() }</h2>
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
                    let changed = r.plan_changed();
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
                        <tr key={r.number} class={classes!(changed.then_some("flipped"), open.then_some("open"))}
                            tabindex="0" aria-expanded={open.to_string()} aria-controls={detail_id.clone()}
                            data-q={r.number.to_string()} data-changed={changed.to_string()}
                            data-base-s={r.baseline.time_s.to_string()} data-cur-s={r.current.time_s.to_string()}
                            {onclick} {onkeydown}>
                            <th scope="row">{ format!("Q{}", r.number) }</th>
                            <td>{ r.title }</td>
                            <td class="flag">{ if changed { "⇄ changed" } else { "same" } }</td>
                            <td class="plan">{ plan_summary(&r.baseline.tree) }</td>
                            <td class="plan">{ plan_summary(&r.current.tree) }</td>
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
            <div id={detail_id} class="dbt3-detail" aria-live="polite">
                if let Some(r) = detail {
                    <h3>{ format!("Q{} {}: {}", r.number, r.title, if r.plan_changed() { "the plan changed" } else { "same plan" }) }</h3>
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
        </section>
    }
}
