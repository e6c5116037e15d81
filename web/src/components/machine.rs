//! Editing a machine profile in the page: start from the shown profile, change a physical
//! quantity, and the page runs on the custom profile (which the link carries whole).

use crate::state::Action;
use costlab_core::scenario::CUSTOM_MACHINE;
use costlab_core::sim::profile::{Confidence, MachineProfile, RandomRead};
use yew::prelude::*;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

#[derive(Clone, Copy, PartialEq)]
enum Field {
    SeqMbps,
    Random8kUs,
    Random16kUs,
    BufferGib,
    RamGib,
    CpuNsPerRow,
}

impl Field {
    const ALL: [Field; 6] = [
        Field::SeqMbps,
        Field::Random8kUs,
        Field::Random16kUs,
        Field::BufferGib,
        Field::RamGib,
        Field::CpuNsPerRow,
    ];

    fn id(self) -> &'static str {
        match self {
            Field::SeqMbps => "m-seq",
            Field::Random8kUs => "m-r8",
            Field::Random16kUs => "m-r16",
            Field::BufferGib => "m-buf",
            Field::RamGib => "m-ram",
            Field::CpuNsPerRow => "m-row",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Field::SeqMbps => "sequential read, MB/s",
            Field::Random8kUs => "random 8 kB read at queue depth 1, µs",
            Field::Random16kUs => "random 16 kB read at queue depth 1, µs",
            Field::BufferGib => "buffer pool / shared_buffers, GiB",
            Field::RamGib => "RAM, GiB",
            Field::CpuNsPerRow => "CPU per row, ns",
        }
    }

    fn get(self, p: &MachineProfile) -> f64 {
        match self {
            Field::SeqMbps => p.device.seq_read_mbps,
            Field::Random8kUs => p.device.random_8k.qd1_latency_us,
            Field::Random16kUs => p.device.random_16k.qd1_latency_us,
            Field::BufferGib => p.buffer_pool_bytes / GIB,
            Field::RamGib => p.ram_bytes / GIB,
            Field::CpuNsPerRow => p.cpu_ns_per_row,
        }
    }

    fn set(self, p: &mut MachineProfile, v: f64) {
        // A new QD1 latency scales the whole IOPS curve, so depth 1 stays consistent with it.
        fn latency(r: &mut RandomRead, v: f64) {
            let ratio = r.qd1_latency_us / v;
            r.qd1_latency_us = v;
            for q in &mut r.iops_by_qd {
                q.iops *= ratio;
            }
        }
        match self {
            Field::SeqMbps => p.device.seq_read_mbps = v,
            Field::Random8kUs => latency(&mut p.device.random_8k, v),
            Field::Random16kUs => latency(&mut p.device.random_16k, v),
            Field::BufferGib => p.buffer_pool_bytes = v * GIB,
            Field::RamGib => p.ram_bytes = v * GIB,
            Field::CpuNsPerRow => p.cpu_ns_per_row = v,
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct MachineEditorProps {
    /// The profile the page runs on now.
    pub profile: MachineProfile,
    pub dispatch: Callback<Action>,
}

#[function_component(MachineEditor)]
pub fn machine_editor(props: &MachineEditorProps) -> Html {
    let error = use_state(|| None::<String>);
    let change = |field: Field| {
        let base = props.profile.clone();
        let dispatch = props.dispatch.clone();
        let error = error.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let v = costlab_core::num::parse_f64(input.value().trim()).unwrap_or(f64::NAN);
            let mut p = base.clone();
            if p.id != CUSTOM_MACHINE {
                p.label = format!("Custom, from {}", base.label);
                p.id = CUSTOM_MACHINE.into();
                p.source = format!("edited in the playground from: {}", base.source);
                // Edited: the base's figure-by-figure sources no longer hold (as in links).
                p.figures.clear();
                p.confidence = Confidence::Derived;
            }
            field.set(&mut p, v);
            match p.validate() {
                Ok(()) => {
                    error.set(None);
                    dispatch.emit(Action::SetCustomMachine(Box::new(p)));
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        })
    };
    let toggle_direct = {
        let base = props.profile.clone();
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let mut p = base.clone();
            if p.id != CUSTOM_MACHINE {
                p.label = format!("Custom, from {}", base.label);
                p.id = CUSTOM_MACHINE.into();
                p.figures.clear();
                p.confidence = Confidence::Derived;
            }
            p.bypass_os_cache = input.checked();
            dispatch.emit(Action::SetCustomMachine(Box::new(p)));
        })
    };
    html! {
        <details class="machine-editor">
            <summary>{ "Customise this machine" }</summary>
            { for Field::ALL.into_iter().map(|f| html! {
                <div class="panel-row field">
                    <label for={f.id()}>{ f.label() }</label>
                    <input id={f.id()} type="number" step="any" min="0"
                        value={crate::components::knobs::format_value(f.get(&props.profile))}
                        onchange={change(f)} />
                </div>
            }) }
            <div class="panel-row">
                <label class="radio">
                    <input id="m-direct" type="checkbox" checked={props.profile.bypass_os_cache} onchange={toggle_direct} />
                    { "the engine bypasses the OS cache (O_DIRECT)" }
                </label>
            </div>
            if let Some(e) = &*error {
                <p class="error" role="alert">{ format!("{e}; the machine is unchanged") }</p>
            }
        </details>
    }
}
