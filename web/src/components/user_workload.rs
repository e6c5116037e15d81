//! The user's workload controls: the tables (a scenario file from `costlab import`, picked or
//! dropped, or the example) and the queries (typed, pasted, or loaded from a SQL file). The
//! table of plans is the DBT3 view's (`dbt3::Dbt3View`), fed by the same worker.
//!
//! A scenario file is read by the helper worker (`worker::scenario`): the page keeps its
//! tables as the compact JSON the worker returns and never parses them itself, so the
//! catalog's deserialisers stay out of the page's bundle.

use crate::components::file_drop::FileDrop;
use crate::components::loader::use_file_loader;
use crate::components::select::{preset_options, select};
use crate::state::Action;
use crate::worker_protocol::{FromWorker, ScenarioLoaded, ScenarioRequest, ToWorker};
use costlab_core::scenario::{Scenario, UserTables, UserWorkload};
use costlab_core::workload::user::MAX_TEXT_BYTES;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct UserWorkloadProps {
    pub scenario: Scenario,
    pub workload: UserWorkload,
    /// Why the last queries were not taken.
    pub queries_error: Option<String>,
    pub dispatch: Callback<Action>,
}

/// What the scenario loader says: the loaded file's tables, or what was wrong.
type Message = UseStateHandle<Option<Result<Vec<String>, String>>>;

/// The worker's request for a scenario file.
fn request(id: u64, name: String, text: String) -> ToWorker {
    ToWorker::Scenario(ScenarioRequest { id, name, text })
}

/// The scenario reply among the worker's messages.
fn reply(m: FromWorker) -> Option<(u64, Result<ScenarioLoaded, String>)> {
    match m {
        FromWorker::Scenario(r) => Some((r.id, r.result)),
        _ => None,
    }
}

#[function_component(UserWorkloadPanel)]
pub fn user_workload_panel(props: &UserWorkloadProps) -> Html {
    let message: Message = use_state(|| None);
    let dispatch = props.dispatch.clone();
    // The latest file's tables (and queries, if it has any) go to the workload; what it
    // gave, or why not, is shown.
    let on_answer = {
        let (dispatch, message) = (dispatch.clone(), message.clone());
        Callback::from(
            move |(name, result): (String, Result<ScenarioLoaded, String>)| {
                match result {
                    Ok(loaded) => {
                        message.set(Some(Ok(loaded.lines)));
                        dispatch.emit(Action::SetUserTables(UserTables::File {
                            name: loaded.name,
                            json: loaded.tables_json.into(),
                        }));
                        // A file with queries brings them; one without keeps those typed.
                        if !loaded.queries.trim().is_empty() {
                            dispatch.emit(Action::SetQueries(loaded.queries));
                        }
                    }
                    Err(e) => {
                        message.set(Some(Err(format!("{name}: {e}; the tables are unchanged"))))
                    }
                }
            },
        )
    };
    let on_file = use_file_loader(request, reply, on_answer);
    let on_file_error = {
        let message = message.clone();
        Callback::from(move |e: String| message.set(Some(Err(e))))
    };
    let queries_message = use_state(|| None::<String>);
    let on_sql = {
        let (dispatch, m) = (dispatch.clone(), queries_message.clone());
        Callback::from(move |(_, text): (String, String)| {
            m.set(None);
            dispatch.emit(Action::SetQueries(text));
        })
    };
    let on_sql_error = {
        let m = queries_message.clone();
        Callback::from(move |e: String| m.set(Some(e)))
    };
    // The text box shows what was typed even when it is refused (too many queries), so
    // nothing typed is lost; a change from elsewhere (a link, a file) replaces it.
    let draft = use_state(|| props.workload.queries.clone());
    {
        let draft = draft.clone();
        use_effect_with(props.workload.queries.clone(), move |q| {
            draft.set(q.clone())
        });
    }
    let on_input = {
        let (dispatch, draft) = (dispatch.clone(), draft.clone());
        Callback::from(move |e: InputEvent| {
            let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            draft.set(area.value());
            dispatch.emit(Action::SetQueries(area.value()));
        })
    };
    let use_example = {
        let (dispatch, message) = (dispatch.clone(), message.clone());
        Callback::from(move |_: MouseEvent| {
            message.set(None);
            dispatch.emit(Action::SetUserTables(UserTables::Example));
            dispatch.emit(Action::SetQueries(
                costlab_core::workload::user::EXAMPLE_QUERIES.into(),
            ));
        })
    };
    let w = &props.workload;
    let tables_line = match &w.tables {
        UserTables::Example => format!(
            "{} (the example: customers, orders, order_lines, products)",
            w.tables.name()
        ),
        UserTables::File { name, .. } => format!("{name} (loaded)"),
        UserTables::Missing { name } => format!("{name}: not loaded (too large for a link)"),
    };
    html! {
        <>
            <p class="note">{ "Your own tables and queries: a scenario file from " }<code>{ "costlab import postgres" }</code>
                { " (its tables and statistics), or the example; every query planned under a baseline preset and under the constants below." }</p>
            <p class="note user-tables" data-tables={w.tables.name().to_string()}>{ "Tables: " }<strong>{ tables_line }</strong>
                { " " }<button type="button" id="use-example" onclick={use_example}>{ "Use the example" }</button></p>
            <FileDrop id="scenario-file" class="scenario-drop"
                label="Load a scenario file (or drop it here)"
                max_bytes={costlab_core::scenario_file::MAX_BYTES} kind="a scenario file"
                on_text={on_file} on_error={on_file_error}>
                { match &*message {
                    Some(Ok(lines)) => html! {
                        <ul class="scenario-summary" aria-label="Loaded tables">
                            { for lines.iter().map(|l| html! { <li>{ l }</li> }) }
                        </ul>
                    },
                    Some(Err(e)) => html! { <p class="error" role="alert">{ e }</p> },
                    None => html! {},
                } }
            </FileDrop>
            <div class="panel-row">
                <label for="user-base">{ "baseline" }</label>
                { select("user-base".into(), w.baseline.clone().into(), preset_options(&props.scenario.engines),
                    dispatch.reform(Action::SetBaseline)) }
            </div>
            <label for="user-queries">{ "Queries (one per line, or SQL statements ending in ;)" }</label>
            <textarea id="user-queries" class="user-queries" rows="10" spellcheck="false"
                aria-invalid={props.queries_error.is_some().to_string()}
                value={(*draft).clone()} oninput={on_input} />
            if let Some(e) = &props.queries_error {
                <p class="error" role="alert">{ format!("{e}; the queries above are not planned") }</p>
            }
            <FileDrop id="queries-file" class="queries-drop" label="Load queries from a SQL file"
                accept=".sql,.txt,text/plain,application/sql" max_bytes={MAX_TEXT_BYTES}
                kind="a workload's SQL" on_text={on_sql} on_error={on_sql_error}>
                if let Some(e) = &*queries_message {
                    <p class="error" role="alert">{ e }</p>
                }
            </FileDrop>
        </>
    }
}
