//! The page's state: one scenario plus what the controls need to show about bad entries.
//! Every control dispatches an [`Action`]; the reducer never touches the browser.

use costlab_core::knobs::{Engine, EngineVersion, Knob, KnobValues, Preset};
use costlab_core::scenario::{CacheState, Engines, Scenario, ServerSettings, View, Workload};
use costlab_core::url::{self, EmbedOptions, LinkProblem};
use std::rc::Rc;
use yew::Reducible;

/// How the latest change should reach the address bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HistoryWrite {
    /// Nothing to write (the change came from the address bar).
    #[default]
    None,
    /// A slider drag or typed value: rewrite the current entry, debounced.
    Replace,
    /// A meaningful step (preset, engine, view, machine): a new entry the back button returns to.
    Push,
}

/// Rejected entries by knob, a handful at most: a list, because a `BTreeMap` here was
/// the only one in the page's first load and brought about 5 KB of tree code.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct KnobErrors(Vec<(Knob, String)>);

impl KnobErrors {
    pub fn get(&self, knob: &Knob) -> Option<&String> {
        self.0.iter().find(|(k, _)| k == knob).map(|(_, e)| e)
    }

    pub fn insert(&mut self, knob: Knob, error: String) {
        self.remove(&knob);
        self.0.push((knob, error));
    }

    pub fn remove(&mut self, knob: &Knob) {
        self.0.retain(|(k, _)| k != knob);
    }

    pub fn retain(&mut self, keep: impl Fn(&Knob) -> bool) {
        self.0.retain(|(k, _)| keep(k));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct State {
    pub scenario: Scenario,
    /// Embed mode and its options (from the link; not part of the scenario).
    pub embed: EmbedOptions,
    /// Problems found in the link the page was opened with.
    pub link_problems: Vec<LinkProblem>,
    pub history: HistoryWrite,
    /// Rejected entries by knob: the message shown beside it (the knob keeps its value).
    pub knob_errors: KnobErrors,
    /// A rejected entry of another control.
    pub error: Option<String>,
    /// A rejected DBT3 scale factor, shown beside its entry (the last valid one stays).
    pub sf_error: Option<String>,
    /// The workloads not on show, so switching back restores their settings.
    pub other_workloads: Vec<Workload>,
    /// Why the user workload's queries were not taken (too many, too long); they stay as
    /// they were.
    pub queries_error: Option<String>,
}

/// Which kind of workload is on show (the Workload panel's choice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkloadKind {
    T1,
    Dbt3,
    User,
    Ordering,
}

/// The machine the ordering workload opens on: the third seed's server.
pub const ORDERING_MACHINE: &str = "seed-nvme";

impl WorkloadKind {
    pub fn of(w: &Workload) -> WorkloadKind {
        match w {
            Workload::T1Sweep { .. } => WorkloadKind::T1,
            Workload::Dbt3 { .. } => WorkloadKind::Dbt3,
            Workload::User(_) => WorkloadKind::User,
            Workload::Ordering { .. } => WorkloadKind::Ordering,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            WorkloadKind::T1 => "t1",
            WorkloadKind::Dbt3 => "dbt3",
            WorkloadKind::User => "user",
            WorkloadKind::Ordering => "ordering",
        }
    }

    pub fn parse(id: &str) -> Option<WorkloadKind> {
        [
            WorkloadKind::T1,
            WorkloadKind::Dbt3,
            WorkloadKind::User,
            WorkloadKind::Ordering,
        ]
        .into_iter()
        .find(|k| k.id() == id)
    }
}

impl State {
    /// The state a link opens: its scenario, embed options and the problems to show.
    pub fn from_link(fragment: &str) -> State {
        #[cfg(feature = "full")]
        let mut d = url::decode(fragment);
        // The first load reads t1 links alone: `lib::start` and the app hand any other
        // link to the full playground before it gets here.
        #[cfg(not(feature = "full"))]
        let mut d = url::decode_t1(fragment).unwrap_or_default();
        // A link of one engine opens its map (`#e=pg` names no flip constant, and the
        // default one is MySQL's).
        d.scenario.keep_flip_knob_on_show();
        State {
            scenario: d.scenario,
            embed: d.embed,
            link_problems: d.problems,
            ..State::default()
        }
    }
}

pub enum Action {
    /// The address bar changed (back, forward, a pasted link).
    Load(String),
    DismissLinkProblems,
    SetKnob(Knob, f64),
    /// A value typed into a knob's entry, read as the engine reads it (PostgreSQL memory
    /// with units: `64MB`, or a bare number in the parameter's base unit).
    SetKnobText(Knob, String),
    ResetKnob(Knob),
    ResetEngine(Engine),
    Preset(&'static str),
    SetEngines(Engines),
    SetVersion(EngineVersion),
    SetMachine(String),
    /// Run on an edited or loaded profile.
    SetCustomMachine(Box<costlab_core::sim::profile::MachineProfile>),
    SetCache(CacheState),
    /// MySQL's server settings (the machine panel's "Server settings" group).
    SetServer(ServerSettings),
    SetSweep {
        from: f64,
        to: f64,
    },
    /// Show the t1 sweep, the DBT3 table or the user's workload.
    SetWorkload(WorkloadKind),
    /// The scale factor of DBT3 or of the ordering workload.
    #[cfg(feature = "full")]
    SetScaleFactor(f64),
    /// The ordering workload's declared function cost (procost).
    #[cfg(feature = "full")]
    SetFunctionCost(f64),
    /// The ordering workload's build: the series against stock, or stock alone.
    #[cfg(feature = "full")]
    SetSeries(bool),
    /// The baseline preset of DBT3 or the user's workload.
    #[cfg(feature = "full")]
    SetBaseline(String),
    /// The user workload's tables (a loaded scenario file, or the example).
    #[cfg(feature = "full")]
    SetUserTables(costlab_core::scenario::UserTables),
    /// The user workload's queries (typed, pasted or loaded from a SQL file).
    #[cfg(feature = "full")]
    SetQueries(String),
    SetView(View),
    SetFlipKnob(Knob),
    SetLogY(bool),
    /// The plan diagram panel's settings.
    #[cfg(feature = "full")]
    SetDiagram(costlab_core::scenario::DiagramSpec),
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        next.history = match action {
            Action::Load(_) | Action::DismissLinkProblems => HistoryWrite::None,
            Action::SetKnob(..)
            | Action::SetKnobText(..)
            | Action::SetSweep { .. }
            | Action::SetLogY(_) => HistoryWrite::Replace,
            #[cfg(feature = "full")]
            Action::SetScaleFactor(_) | Action::SetQueries(_) => HistoryWrite::Replace,
            _ => HistoryWrite::Push,
        };
        let s = &mut next.scenario;
        match action {
            Action::Load(fragment) => {
                let loaded = State::from_link(&fragment);
                if loaded.scenario == self.scenario && loaded.embed == self.embed {
                    return self;
                }
                next = loaded;
            }
            Action::DismissLinkProblems => next.link_problems.clear(),
            Action::SetKnob(knob, value) => match s.knobs.set(knob, value) {
                Ok(()) => {
                    next.knob_errors.remove(&knob);
                }
                Err(e) => {
                    next.knob_errors.insert(knob, e.to_string());
                }
            },
            Action::SetKnobText(knob, text) => match s.knobs.set_text(knob, &text) {
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
                    next.knob_errors.retain(|k| k.def().engine != p.engine);
                }
                Err(e) => next.error = Some(e.to_string()),
            },
            Action::SetEngines(e) => {
                s.engines = e;
                // The baseline must be a preset of an engine on show.
                let baseline = match &mut s.workload {
                    Workload::Dbt3 { baseline, .. } => Some(baseline),
                    Workload::User(u) => Some(&mut u.baseline),
                    Workload::T1Sweep { .. } | Workload::Ordering { .. } => None,
                };
                if let Some(baseline) = baseline {
                    if Preset::find(baseline).map_or(true, |p| !e.list().contains(&p.engine)) {
                        *baseline = Workload::default_baseline(e).into();
                    }
                }
                // The flip map needs a constant of an engine on show.
                s.keep_flip_knob_on_show();
            }
            Action::SetVersion(v) => match v.engine() {
                Engine::Postgres => s.pg_version = v,
                Engine::Mysql => s.mysql_version = v,
            },
            Action::SetMachine(id) => {
                // Picking a built-in profile presets its server (the seed's servers for the
                // seed's profiles); a loaded or edited profile presets nothing.
                s.server = ServerSettings::preset_for_builtin(&id);
                s.machine = id;
            }
            Action::SetCustomMachine(p) => {
                let mut p = *p;
                // One custom machine at a time; its id is what the picker and the link use.
                p.id = costlab_core::scenario::CUSTOM_MACHINE.into();
                s.machine = p.id.clone();
                s.custom_machine = Some(p);
            }
            Action::SetCache(c) => s.cache = c,
            Action::SetServer(server) => s.server = server,
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
            Action::SetWorkload(kind) => {
                if kind != WorkloadKind::of(&s.workload) {
                    let restored = match next
                        .other_workloads
                        .iter()
                        .position(|w| WorkloadKind::of(w) == kind)
                    {
                        Some(i) => next.other_workloads.remove(i),
                        None => match kind {
                            WorkloadKind::T1 => Workload::T1_DEFAULT,
                            WorkloadKind::Dbt3 => Workload::dbt3_default(s.engines),
                            WorkloadKind::User => Workload::user_default(s.engines),
                            WorkloadKind::Ordering => Workload::ORDERING_DEFAULT,
                        },
                    };
                    if kind == WorkloadKind::Ordering {
                        // The ordering workload is PostgreSQL's: its constants must be on show.
                        if s.engines == Engines::One(Engine::Mysql) {
                            s.engines = Engines::One(Engine::Postgres);
                            s.keep_flip_knob_on_show();
                        }
                        // The default machine is WL#8737's disk-bound MySQL server; the seed
                        // ran on local NVMe with the database in shared buffers.
                        if s.machine == Scenario::default().machine {
                            s.machine = ORDERING_MACHINE.into();
                            s.server = ServerSettings::preset_for_builtin(ORDERING_MACHINE);
                        }
                    }
                    next.other_workloads
                        .push(std::mem::replace(&mut s.workload, restored));
                    next.sf_error = None;
                    next.queries_error = None;
                    // A kept baseline may belong to an engine no longer shown.
                    if s.validate().is_err() {
                        match kind {
                            WorkloadKind::Dbt3 => s.workload = Workload::dbt3_default(s.engines),
                            WorkloadKind::User => {
                                if let Workload::User(u) = &mut s.workload {
                                    u.baseline = Workload::default_baseline(s.engines).into();
                                }
                            }
                            WorkloadKind::T1 | WorkloadKind::Ordering => {}
                        }
                    }
                }
            }
            #[cfg(feature = "full")]
            Action::SetFunctionCost(x) => {
                if let Workload::Ordering { procost, .. } = &mut s.workload {
                    match costlab_core::ordering::functions_at(x)[0].validate() {
                        Ok(()) => {
                            *procost = x;
                            next.sf_error = None;
                        }
                        Err(e) => next.sf_error = Some(e.to_string()),
                    }
                }
            }
            #[cfg(feature = "full")]
            Action::SetSeries(on) => {
                if let Workload::Ordering { series, .. } = &mut s.workload {
                    *series = on;
                }
            }
            #[cfg(feature = "full")]
            Action::SetScaleFactor(x) => {
                if let Workload::Ordering { sf, .. } = &mut s.workload {
                    match costlab_core::workload::dbt3::catalog::check_sf(x) {
                        Ok(x) => {
                            *sf = x;
                            next.sf_error = None;
                        }
                        Err(e) => next.sf_error = Some(e.to_string()),
                    }
                }
                if let Workload::Dbt3 { sf, .. } = &mut s.workload {
                    match costlab_core::workload::dbt3::catalog::check_sf(x) {
                        Ok(x) => {
                            *sf = x;
                            next.sf_error = None;
                        }
                        Err(e) => next.sf_error = Some(e.to_string()),
                    }
                }
            }
            #[cfg(feature = "full")]
            Action::SetUserTables(tables) => {
                if let Workload::User(u) = &mut s.workload {
                    u.tables = tables;
                }
            }
            #[cfg(feature = "full")]
            Action::SetQueries(text) => {
                if let Workload::User(u) = &mut s.workload {
                    match costlab_core::workload::user::split_queries(&text) {
                        Ok(_) => {
                            u.queries = text;
                            next.queries_error = None;
                        }
                        Err(e) => next.queries_error = Some(e.to_string()),
                    }
                }
            }
            #[cfg(feature = "full")]
            Action::SetBaseline(id) => {
                let engines = s.engines;
                let baseline = match &mut s.workload {
                    Workload::Dbt3 { baseline, .. } => Some(baseline),
                    Workload::User(u) => Some(&mut u.baseline),
                    Workload::T1Sweep { .. } | Workload::Ordering { .. } => None,
                };
                if let Some(baseline) = baseline {
                    match Preset::find(&id) {
                        Ok(p) if engines.list().contains(&p.engine) => *baseline = id,
                        Ok(p) => {
                            next.error = Some(format!(
                                "{} is not shown; pick a baseline of an engine on show",
                                p.engine.name()
                            ))
                        }
                        Err(e) => next.error = Some(e.to_string()),
                    }
                }
            }
            Action::SetView(v) => s.view = v,
            Action::SetFlipKnob(k) => s.flip_knob = k,
            #[cfg(feature = "full")]
            Action::SetDiagram(d) => s.diagram = Some(d),
            Action::SetLogY(b) => s.log_y = b,
        }
        if (State {
            history: self.history,
            ..next.clone()
        }) == *self
        {
            // Yew skips the re-render when the same Rc comes back.
            return self;
        }
        Rc::new(next)
    }
}
