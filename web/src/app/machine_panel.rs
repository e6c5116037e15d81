//! The machine panel: the profile the plans are timed on (a built-in one or a calibration
//! file's), its cache state and where its figures come from, the MySQL server's settings,
//! and the editor of the profile's figures.

use crate::components::machine::MachineEditor;
use crate::components::per_build::CalibrationLoader;
use crate::components::select::{fixed_options, select};
use crate::state::Action;
use costlab_core::analysis;
use costlab_core::knobs::Engine;
use costlab_core::scenario::{CacheState, InnodbCacheReport, Scenario, ServerSettings};
use costlab_core::sim::profile::MachineProfile;
use yew::prelude::*;

fn bytes(b: f64) -> String {
    if b >= 1024f64.powi(4) {
        format!("{:.0} TiB", b / 1024f64.powi(4))
    } else if b >= 1024f64.powi(3) {
        format!("{:.0} GiB", b / 1024f64.powi(3))
    } else {
        format!("{:.0} MiB", b / 1024f64.powi(2))
    }
}

fn device_summary(p: &MachineProfile) -> String {
    format!(
        "{:.0} MB/s sequential, {:.0} µs per random 8 kB read",
        p.device.seq_read_mbps, p.device.random_8k.qd1_latency_us
    )
}

/// The MySQL server's settings: how it was set up, which no machine profile says. Picking
/// the seed's profiles presets the seed's servers; everything else starts from defaults.
fn server_settings(server: ServerSettings, dispatch: &Callback<Action>) -> Html {
    let report = {
        let dispatch = dispatch.clone();
        move |v: String| {
            if let Ok(r) = InnodbCacheReport::parse(&v) {
                dispatch.emit(Action::SetServer(ServerSettings {
                    innodb_cache_report: r,
                    ..server
                }));
            }
        }
    };
    let bka = {
        let dispatch = dispatch.clone();
        move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            dispatch.emit(Action::SetServer(ServerSettings {
                batched_key_access: input.checked(),
                ..server
            }));
        }
    };
    html! {
        <fieldset class="server-settings">
            <legend>{ "MySQL server settings" }</legend>
            <div class="panel-row">
                <label for="innodb-cache-report">{ "InnoDB reports cached" }</label>
                { select("innodb-cache-report".into(), server.innodb_cache_report.id().into(),
                    InnodbCacheReport::ALL.iter().map(|r| (AttrValue::from(r.id()), AttrValue::from(r.label()), None)).collect(),
                    Callback::from(report)) }
            </div>
            <div class="panel-row">
                <label class="radio">
                    <input id="batched-key-access" type="checkbox" checked={server.batched_key_access} onchange={bka} />
                    { "batched_key_access (DBT3 joins)" }
                </label>
            </div>
        </fieldset>
    }
}

/// The machine's profile, cache and settings.
pub fn machine_panel(s: &Scenario, dispatch: &Callback<Action>) -> Html {
    let mut profiles = costlab_core::sim::builtin::profiles();
    if let Some(custom) = &s.custom_machine {
        profiles.insert(0, custom.clone());
    }
    let current_profile = analysis::machine(s).ok();
    html! {
        <section class="panel" aria-labelledby="machine-title">
            <h2 id="machine-title">{ "Machine" }</h2>
            <div class="panel-row">
                <label for="machine">{ "Profile" }</label>
                { select("machine".into(), s.machine.clone().into(),
                    profiles.iter().map(|p| (AttrValue::from(p.id.clone()),
                        AttrValue::from(format!("{} [{}]", p.label, p.confidence_summary())),
                        Some(AttrValue::from(p.source.clone())))).collect(),
                    dispatch.reform(Action::SetMachine)) }
            </div>
            <div class="panel-row">
                <label for="cache">{ "Cache" }</label>
                { select("cache".into(), (if s.cache == CacheState::Cold { "cold" } else { "warm" }).into(),
                    fixed_options(&[("warm", "warm (steady state)"), ("cold", "cold (nothing cached)")]),
                    dispatch.reform(|v: String| Action::SetCache(if v == "cold" { CacheState::Cold } else { CacheState::Warm }))) }
            </div>
            if let Some(p) = &current_profile {
                <p class="note machine-source">
                    { format!("{} · buffer {} · RAM {} · {}", device_summary(p), bytes(p.buffer_pool_bytes), bytes(p.ram_bytes),
                        if p.bypass_os_cache { "O_DIRECT" } else { "buffered I/O" }) }
                    <br />{ format!("Source ({}): {}", p.confidence_summary(), p.source) }
                    { for p.figures.iter().map(|f| html! {
                        <><br />{ format!("{}: {} ({})", f.figure, f.confidence.label(), f.source) }</>
                    }) }
                </p>
                if s.engines.list().contains(&Engine::Mysql) {
                    { server_settings(s.server, dispatch) }
                }
                <MachineEditor profile={p.clone()} dispatch={dispatch.clone()} />
                <CalibrationLoader dispatch={dispatch.clone()} />
            }
        </section>
    }
}
