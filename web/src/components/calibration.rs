//! Loading a `costlab-probe` calibration file (file picker or drag and drop): the page runs
//! on the measured machine and shows the measurements with their confidence intervals.
//! A malformed, truncated or newer file is named and changes nothing.

use crate::state::Action;
use costlab_core::calibration::{Calibration, Estimate, MAX_BYTES};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CalibrationLoaderProps {
    pub dispatch: Callback<Action>,
}

fn interval(e: &Estimate, unit: &str) -> String {
    let f = crate::components::knobs::format_value;
    format!("{} {unit} [{} to {}]", f(e.median), f(e.lo), f(e.hi))
}

/// What the page says about a loaded file: the figures the profile uses, with intervals.
pub fn summary(c: &Calibration) -> Vec<String> {
    let mut lines = vec![format!(
        "{} · {} · {}{}",
        c.machine.cpu_model,
        c.machine.kernel,
        c.machine.filesystem,
        if c.machine.virtual_machine {
            " · virtual machine"
        } else {
            ""
        }
    )];
    lines.push(format!(
        "sequential read: {}",
        interval(&c.seq_read.large.mbps, "MB/s")
    ));
    for s in &c.random_reads {
        if let Some(p) = s.points.iter().find(|p| p.queue_depth == 1) {
            lines.push(format!(
                "random {} kB read at queue depth 1: {}",
                s.page_bytes / 1024,
                interval(&p.mean_us, "µs")
            ));
        }
    }
    lines.push(format!("buffer hit: {}", interval(&c.buffer_hit_ns, "ns")));
    lines.push(format!(
        "CPU per row: {}",
        interval(&c.cpu_ns_per_row, "ns")
    ));
    lines.push(format!(
        "random / sequential page time: {}",
        interval(&c.ratios.random_over_seq_8k, "")
    ));
    if let Some(pg) = &c.postgres {
        lines.push(format!(
            "PostgreSQL experiment: random_page_cost {}",
            interval(&pg.random_page_cost, "")
        ));
    }
    lines.extend(c.warnings.iter().map(|w| format!("warning: {w}")));
    lines
}

#[function_component(CalibrationLoader)]
pub fn calibration_loader(props: &CalibrationLoaderProps) -> Html {
    let message = use_state(|| None::<Result<Vec<String>, String>>);
    let load = {
        let dispatch = props.dispatch.clone();
        let message = message.clone();
        Callback::from(move |file: web_sys::File| {
            let dispatch = dispatch.clone();
            let message = message.clone();
            let name = file.name();
            if file.size() > MAX_BYTES as f64 {
                message.set(Some(Err(format!(
                    "{name}: {} bytes is larger than a calibration file can be",
                    file.size()
                ))));
                return;
            }
            wasm_bindgen_futures::spawn_local(async move {
                let text = match wasm_bindgen_futures::JsFuture::from(file.text()).await {
                    Ok(t) => t.as_string().unwrap_or_default(),
                    Err(_) => {
                        message.set(Some(Err(format!(
                            "{name}: the browser could not read the file"
                        ))));
                        return;
                    }
                };
                match Calibration::from_json(&text).and_then(|c| Ok((c.to_profile()?, c))) {
                    Ok((profile, c)) => {
                        message.set(Some(Ok(summary(&c))));
                        dispatch.emit(Action::SetCustomMachine(Box::new(profile)));
                    }
                    Err(e) => {
                        message.set(Some(Err(format!("{name}: {e}; the machine is unchanged"))))
                    }
                }
            });
        })
    };
    let on_pick = {
        let load = load.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Some(f) = input.files().and_then(|l| l.get(0)) {
                load.emit(f);
            }
            input.set_value("");
        })
    };
    let on_drop = {
        let load = load.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if let Some(f) = e
                .data_transfer()
                .and_then(|d| d.files())
                .and_then(|l| l.get(0))
            {
                load.emit(f);
            }
        })
    };
    let on_drag_over = Callback::from(|e: DragEvent| e.prevent_default());
    html! {
        <div class="calibration-drop" ondrop={on_drop} ondragover={on_drag_over}>
            <label for="calibration-file">{ "Load a costlab-probe calibration file (or drop it here)" }</label>
            <input id="calibration-file" type="file" accept=".json,application/json" onchange={on_pick} />
            { match &*message {
                Some(Ok(lines)) => html! {
                    <ul class="calibration-summary" aria-label="Loaded calibration">
                        { for lines.iter().map(|l| html! { <li>{ l }</li> }) }
                    </ul>
                },
                Some(Err(e)) => html! { <p class="error" role="alert">{ e }</p> },
                None => html! {},
            } }
        </div>
    }
}
