//! The page's state: one scenario plus what the controls need to show about bad entries.
//! Every control dispatches an [`Action`]; the reducer never touches the browser.

use costlab_core::knobs::{Engine, EngineVersion, Knob, KnobValues, Preset};
use costlab_core::scenario::{CacheState, Engines, Scenario, View, Workload};
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::Reducible;

#[derive(Clone, Debug, PartialEq, Default)]
pub struct State {
    pub scenario: Scenario,
    /// Rejected entries by knob: the message shown beside it (the knob keeps its value).
    pub knob_errors: BTreeMap<Knob, String>,
    /// A rejected entry of another control.
    pub error: Option<String>,
}

pub enum Action {
    SetKnob(Knob, f64),
    ResetKnob(Knob),
    ResetEngine(Engine),
    Preset(&'static str),
    SetEngines(Engines),
    SetVersion(EngineVersion),
    SetMachine(String),
    SetCache(CacheState),
    SetSweep { from: f64, to: f64 },
    SetView(View),
    SetFlipKnob(Knob),
    SetLogY(bool),
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        let s = &mut next.scenario;
        match action {
            Action::SetKnob(knob, value) => match s.knobs.set(knob, value) {
                Ok(()) => {
                    next.knob_errors.remove(&knob);
                }
                Err(e) => {
                    next.knob_errors.insert(knob, e.to_string());
                }
            },
            Action::ResetKnob(knob) => {
                let v = s.default_of(knob);
                // Defaults come from the same table that validates; this cannot fail.
                let _ = s.knobs.set(knob, v);
                next.knob_errors.remove(&knob);
            }
            Action::ResetEngine(engine) => {
                let defaults = KnobValues::defaults(s.pg_version, s.mysql_version);
                for k in Knob::for_engine(engine) {
                    let _ = s.knobs.set(k, defaults.get(k));
                    next.knob_errors.remove(&k);
                }
            }
            Action::Preset(id) => match Preset::find(id) {
                Ok(p) => {
                    p.apply(&mut s.knobs);
                    match p.engine {
                        Engine::Postgres => s.pg_version = p.base,
                        Engine::Mysql => s.mysql_version = p.base,
                    }
                    next.knob_errors.retain(|k, _| k.def().engine != p.engine);
                }
                Err(e) => next.error = Some(e.to_string()),
            },
            Action::SetEngines(e) => s.engines = e,
            Action::SetVersion(v) => match v.engine() {
                Engine::Postgres => s.pg_version = v,
                Engine::Mysql => s.mysql_version = v,
            },
            Action::SetMachine(id) => s.machine = id,
            Action::SetCache(c) => s.cache = c,
            Action::SetSweep { from, to } => {
                let w = Workload::T1Sweep { from, to };
                match w.validate() {
                    Ok(()) => {
                        s.workload = w;
                        next.error = None;
                    }
                    Err(e) => next.error = Some(e.to_string()),
                }
            }
            Action::SetView(v) => s.view = v,
            Action::SetFlipKnob(k) => s.flip_knob = k,
            Action::SetLogY(b) => s.log_y = b,
        }
        if next == *self {
            // Yew skips the re-render when the same Rc comes back.
            return self;
        }
        Rc::new(next)
    }
}
