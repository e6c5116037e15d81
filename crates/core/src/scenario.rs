//! The scenario: everything one view of the playground depends on. The page holds one, the
//! URL carries one, the command line reads one, and tests state them.
//!
//! This is the domain type; it may change freely. Serialised forms (the URL codec, the
//! scenario file) convert to and from it and carry their own version.

use costlab_model::error::{check_range, Error, Result};
use costlab_model::knobs::{Engine, EngineVersion, Knob, KnobValues, Preset};
use serde::{Deserialize, Serialize};

/// Which engines the page compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engines {
    One(Engine),
    /// Both engines side by side on the same machine.
    Both,
}

impl Engines {
    pub fn list(self) -> Vec<Engine> {
        match self {
            Engines::One(e) => vec![e],
            Engines::Both => Engine::ALL.to_vec(),
        }
    }
}

/// What the engines are asked to plan.
#[derive(Clone, Debug, PartialEq)]
pub enum Workload {
    /// The WL#8737 query on t1, swept over the fraction of rows its range selects.
    T1Sweep { from: f64, to: f64 },
    /// DBT3's 22 queries at scale factor `sf`, each planned under the constants of the
    /// preset `baseline` and under the current ones (the seed's before/after table).
    Dbt3 { sf: f64, baseline: String },
    /// The user's own queries over their own tables (`costlab_workload::user`), each planned
    /// under the preset `baseline` and under the current constants, as DBT3's.
    User(Box<UserWorkload>),
    /// The third seed's workload (`crate::ordering`): its query shapes planned by
    /// PostgreSQL stock and by the build `series` names, at scale factor `sf`, with fgeo()
    /// and fnorm() declared at `procost`, and the closed-loop mix over the share of
    /// positive queries.
    Ordering {
        sf: f64,
        procost: f64,
        /// The build compared with stock: the "ORDER BY value handed up" series (true) or
        /// stock itself (false: every change is zero).
        series: bool,
    },
}

/// The user's workload as the page and links hold it: the tables stay text (a scenario
/// file's, or the example's name), read only by the worker that plans them.
#[derive(Clone, Debug, PartialEq)]
pub struct UserWorkload {
    pub baseline: String,
    pub tables: UserTables,
    /// The queries, as typed or loaded (`costlab_workload::user::split_queries`).
    pub queries: String,
}

/// Where the user workload's tables come from.
#[derive(Clone, Debug, PartialEq)]
pub enum UserTables {
    /// The example costlab ships (`static/example-shop.json`: four joined tables).
    Example,
    /// A scenario file's tables: `name` is the file's name, `json` its tables as compact
    /// JSON (an `Arc`: the page clones its scenario on every change).
    File {
        name: String,
        json: std::sync::Arc<str>,
    },
    /// A file a link named but could not carry (too large for a link): it must be loaded
    /// again.
    Missing { name: String },
}

impl UserTables {
    /// How the page and links name the tables.
    pub fn name(&self) -> &str {
        match self {
            UserTables::Example => EXAMPLE_FILE,
            UserTables::File { name, .. } | UserTables::Missing { name } => name,
        }
    }
}

/// The example scenario file's name (in `static/`).
pub const EXAMPLE_FILE: &str = "example-shop.json";

impl Workload {
    pub const T1_DEFAULT: Workload = Workload::T1Sweep { from: 0.0, to: 0.2 };
    /// The seed's DBT3 runs: scale factor 10.
    pub const DBT3_DEFAULT_SF: f64 = 10.0;
    /// The third seed's workload as it ran: SF 30, COST 5000, the series on.
    pub const ORDERING_DEFAULT: Workload = Workload::Ordering {
        sf: 30.0,
        procost: crate::ordering::SEED_PROCOST,
        series: true,
    };

    /// DBT3 at the seed's scale factor against the default baseline for these engines.
    pub fn dbt3_default(engines: Engines) -> Workload {
        Workload::Dbt3 {
            sf: Self::DBT3_DEFAULT_SF,
            baseline: Self::default_baseline(engines).into(),
        }
    }

    /// The baseline preset DBT3 compares against unless told otherwise: the release
    /// WL#8737 started from (MySQL 5.7) when MySQL is shown, else PostgreSQL's defaults.
    pub fn default_baseline(engines: Engines) -> &'static str {
        if engines.list().contains(&Engine::Mysql) {
            "mysql-5.7"
        } else {
            "pg-default"
        }
    }

    /// The user's workload on the example tables and queries, against the default baseline.
    pub fn user_default(engines: Engines) -> Workload {
        Workload::User(Box::new(UserWorkload {
            baseline: Self::default_baseline(engines).into(),
            tables: UserTables::Example,
            queries: costlab_workload::user::EXAMPLE_QUERIES.into(),
        }))
    }

    /// The preset the baseline column is planned with (DBT3 and the user's workload).
    pub fn baseline(&self) -> Option<&str> {
        match self {
            Workload::Dbt3 { baseline, .. } => Some(baseline),
            Workload::User(u) => Some(&u.baseline),
            Workload::T1Sweep { .. } | Workload::Ordering { .. } => None,
        }
    }

    pub fn validate(&self) -> Result<()> {
        match *self {
            Workload::Dbt3 { sf, ref baseline } => {
                costlab_workload::dbt3::catalog::check_sf(sf)?;
                Preset::find(baseline)?;
                Ok(())
            }
            Workload::User(ref u) => {
                Preset::find(&u.baseline)?;
                costlab_workload::user::split_queries(&u.queries)?;
                Ok(())
            }
            Workload::Ordering { sf, procost, .. } => {
                costlab_workload::dbt3::catalog::check_sf(sf)?;
                crate::ordering::functions_at(procost)
                    .iter()
                    .try_for_each(|f| f.validate())
            }
            Workload::T1Sweep { from, to } => {
                check_range("sweep start", from, 0.0, 1.0)?;
                check_range("sweep end", to, 0.0, 1.0)?;
                if from >= to {
                    return Err(Error::invalid(
                        "sweep range",
                        format!("start {from} must be below end {to}"),
                    ));
                }
                Ok(())
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheState {
    /// Buffers hold what a long run of this workload leaves in them.
    Warm,
    /// Nothing is cached when the query starts.
    Cold,
}

/// The chart the page shows first (and the only one in an embed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Cost,
    Time,
    FlipMap,
}

impl View {
    pub const ALL: [View; 3] = [View::Cost, View::Time, View::FlipMap];

    pub fn id(self) -> &'static str {
        match self {
            View::Cost => "cost",
            View::Time => "time",
            View::FlipMap => "flip",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            View::Cost => "Estimated cost",
            View::Time => "Simulated time",
            View::FlipMap => "Plan flip map",
        }
    }
}

/// What InnoDB tells MySQL's optimizer about the pages its buffer pool holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InnodbCacheReport {
    /// As the release does: 5.7 reports nothing (the WL#7168 size heuristic, §3.2); 8.0+
    /// reports the share of each table and index the buffer pool holds when warm, none
    /// when cold (WL#7170). DBT3's join planner always uses the size heuristic.
    Release,
    /// Every table and index fully cached while the cache is warm, on any release: the
    /// seed's in-memory server after its warm-up (WL#8737 §3.1).
    AllCached,
    /// Nothing reported on any release, so the size heuristic applies: the seed's
    /// disk-bound server (WL#8737 spec §7.4).
    Heuristic,
}

impl InnodbCacheReport {
    pub const ALL: [InnodbCacheReport; 3] = [
        InnodbCacheReport::Release,
        InnodbCacheReport::AllCached,
        InnodbCacheReport::Heuristic,
    ];

    /// The value in links and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            InnodbCacheReport::Release => "release",
            InnodbCacheReport::AllCached => "all-cached",
            InnodbCacheReport::Heuristic => "heuristic",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            InnodbCacheReport::Release => "as the release reports",
            InnodbCacheReport::AllCached => "everything cached (when warm)",
            InnodbCacheReport::Heuristic => "no report: size heuristic",
        }
    }

    pub fn parse(s: &str) -> Result<InnodbCacheReport> {
        InnodbCacheReport::ALL
            .into_iter()
            .find(|r| r.id() == s)
            .ok_or_else(|| {
                Error::invalid(
                    "innodb cache report",
                    format!("`{s}` is not one of release, all-cached, heuristic"),
                )
            })
    }
}

/// MySQL server settings beyond the cost constants and the machine: how the server was set
/// up, which the machine profile does not say (its buffer pool size is the profile's).
/// Explicit in the scenario so that no machine's id decides them: a calibration file whose
/// id happens to be a seed profile's plans on these, never on the seed's servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSettings {
    pub innodb_cache_report: InnodbCacheReport,
    /// optimizer_switch batched_key_access (DBT3's joins): ref lookups run as sorted MRR
    /// reads. Work only: the original optimizer decides it after the join order.
    pub batched_key_access: bool,
}

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings::DEFAULT
    }
}

impl ServerSettings {
    /// A server as installed: the release's own reporting, batched key access off.
    pub const DEFAULT: ServerSettings = ServerSettings {
        innodb_cache_report: InnodbCacheReport::Release,
        batched_key_access: false,
    };
    /// WL#8737's in-memory server (36 GB pool, InnoDB reporting t1 and DBT3 cached).
    pub const WL8737_MEMORY: ServerSettings = ServerSettings {
        innodb_cache_report: InnodbCacheReport::AllCached,
        batched_key_access: false,
    };
    /// WL#8737's disk-bound server (1 GB pool, no report, batched key access on).
    pub const WL8737_DISK: ServerSettings = ServerSettings {
        innodb_cache_report: InnodbCacheReport::Heuristic,
        batched_key_access: true,
    };

    /// The settings picking a built-in profile by name presets: the seed's servers for the
    /// seed's two profiles, the defaults otherwise. Only for a built-in profile chosen by
    /// its id (the page's picker, `--profile`); a profile file or a custom machine never
    /// presets anything.
    pub fn preset_for_builtin(machine_id: &str) -> ServerSettings {
        match machine_id {
            "wl8737-memory" => ServerSettings::WL8737_MEMORY,
            "wl8737-disk" => ServerSettings::WL8737_DISK,
            _ => ServerSettings::DEFAULT,
        }
    }

    /// The preset for a scenario's machine id ([`CUSTOM_MACHINE`] presets nothing).
    pub fn preset_for_scenario_machine(machine: &str) -> ServerSettings {
        if machine == CUSTOM_MACHINE {
            ServerSettings::DEFAULT
        } else {
            ServerSettings::preset_for_builtin(machine)
        }
    }
}

/// The machine id that stands for `Scenario::custom_machine`.
pub const CUSTOM_MACHINE: &str = "custom";

#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub engines: Engines,
    pub pg_version: EngineVersion,
    pub mysql_version: EngineVersion,
    pub knobs: KnobValues,
    /// Id of a built-in machine profile, or [`CUSTOM_MACHINE`] for `custom_machine`.
    pub machine: String,
    /// A profile the user edited or loaded from a calibration file.
    pub custom_machine: Option<costlab_sim::profile::MachineProfile>,
    pub cache: CacheState,
    /// MySQL server settings; picking a built-in profile presets them
    /// ([`ServerSettings::preset_for_builtin`]), links carry them when they differ.
    pub server: ServerSettings,
    pub workload: Workload,
    pub view: View,
    /// The constant on the flip map's vertical axis.
    pub flip_knob: Knob,
    /// Log scale for the cost and time axes.
    pub log_y: bool,
    /// The plan diagram panel under the DBT3 and user-workload tables; None until the user
    /// touches it ([`Scenario::diagram`] gives the default for the engines on show).
    pub diagram: Option<DiagramSpec>,
}

/// What the plan diagram panel draws: one query over one or two knobs, or every query
/// over one knob (the flip map), of one engine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiagramSpec {
    /// Drawn only when asked for: a diagram keeps the worker busy for a while.
    pub open: bool,
    pub engine: Engine,
    /// None: the flip map of every query.
    pub query: Option<u8>,
    pub x: Knob,
    /// The second axis (with a query only).
    pub y: Option<Knob>,
    /// Cells shaded by the time their plan loses instead of by plan.
    pub regret: bool,
}

impl DiagramSpec {
    /// Closed, the flip map of the first engine on show over its headline constant.
    pub fn default_for(engines: Engines) -> DiagramSpec {
        DiagramSpec {
            open: false,
            engine: engines.list()[0],
            query: None,
            x: Scenario::default_flip_knob(engines),
            y: None,
            regret: false,
        }
    }

    /// Knobs a diagram can run over: every knob of the engine but switches.
    pub fn axis_knobs(engine: Engine) -> impl Iterator<Item = Knob> {
        Knob::for_engine(engine).filter(|k| k.def().scale != costlab_model::knobs::Scale::Switch)
    }

    /// Why the spec cannot be drawn as it stands, if it cannot: an axis of another engine
    /// or a switch, the same knob twice, a second axis without a query.
    pub fn check(&self) -> std::result::Result<(), String> {
        for k in std::iter::once(self.x).chain(self.y) {
            if !DiagramSpec::axis_knobs(self.engine).any(|a| a == k) {
                return Err(format!(
                    "{} is not a {} knob a diagram can run over",
                    k.def().name,
                    self.engine.name()
                ));
            }
        }
        if self.y == Some(self.x) {
            return Err(format!("{} is on both axes", self.x.def().name));
        }
        if self.y.is_some() && self.query.is_none() {
            return Err("the flip map has one axis".into());
        }
        Ok(())
    }
}

impl Default for Scenario {
    /// The seed's first experiment: MySQL with the constants WL#8737 started from (5.7),
    /// t1 from 0 to 20 % of rows, on the server that holds everything in memory.
    fn default() -> Scenario {
        Scenario {
            engines: Engines::One(Engine::Mysql),
            pg_version: EngineVersion::Pg18,
            mysql_version: EngineVersion::Mysql57,
            knobs: KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57),
            machine: "wl8737-memory".into(),
            custom_machine: None,
            cache: CacheState::Warm,
            server: ServerSettings::WL8737_MEMORY,
            workload: Workload::T1_DEFAULT,
            view: View::Cost,
            flip_knob: Knob::MemoryBlockReadCost,
            log_y: false,
            diagram: None,
        }
    }
}

impl Scenario {
    /// The flip map's constant when none is chosen: the headline constant of the first
    /// engine on show (MySQL's memory_block_read_cost, PostgreSQL's random_page_cost).
    pub fn default_flip_knob(engines: Engines) -> Knob {
        match engines.list()[0] {
            Engine::Postgres => Knob::RandomPageCost,
            Engine::Mysql => Knob::MemoryBlockReadCost,
        }
    }

    /// Keeps the flip map's constant on an engine on show: the map of an engine not on
    /// show cannot be drawn, and its constant cannot be picked.
    pub fn keep_flip_knob_on_show(&mut self) {
        if !self.engines.list().contains(&self.flip_knob.def().engine) {
            self.flip_knob = Scenario::default_flip_knob(self.engines);
        }
        // The diagram too: its engine must be on show (it stays open if it was).
        if let Some(d) = self
            .diagram
            .filter(|d| !self.engines.list().contains(&d.engine))
        {
            self.diagram = d.open.then(|| DiagramSpec {
                open: true,
                ..DiagramSpec::default_for(self.engines)
            });
        }
    }

    /// The plan diagram's settings: the user's, or the default for the engines on show.
    pub fn diagram(&self) -> DiagramSpec {
        self.diagram
            .unwrap_or_else(|| DiagramSpec::default_for(self.engines))
    }

    /// The engine release whose defaults a knob is reset to.
    pub fn version_of(&self, engine: Engine) -> EngineVersion {
        match engine {
            Engine::Postgres => self.pg_version,
            Engine::Mysql => self.mysql_version,
        }
    }

    pub fn default_of(&self, knob: Knob) -> f64 {
        knob.def().default_for(self.version_of(knob.def().engine))
    }

    /// Knobs whose value differs from their release's default, in table order.
    pub fn changed_knobs(&self) -> Vec<Knob> {
        Knob::all()
            .filter(|k| self.knobs.get(*k) != self.default_of(*k))
            .collect()
    }

    /// The constants the baseline column (DBT3's, the user workload's) is planned with:
    /// the baseline preset on its engine (at the preset's release), the other engine at its
    /// release's defaults. `None` for the t1 sweep.
    pub fn baseline(&self) -> Option<Result<KnobValues>> {
        let baseline = self.workload.baseline()?;
        Some(Preset::find(baseline).map(|p| {
            let mut k = KnobValues::defaults(self.pg_version, self.mysql_version);
            p.apply(&mut k);
            k
        }))
    }

    pub fn validate(&self) -> Result<()> {
        self.workload.validate()?;
        if let Some(baseline) = self.workload.baseline() {
            let engine = Preset::find(baseline)?.engine;
            if !self.engines.list().contains(&engine) {
                return Err(Error::invalid(
                    "baseline",
                    format!(
                        "`{baseline}` is a {} preset, but {} is not shown",
                        engine.name(),
                        engine.name()
                    ),
                ));
            }
        }
        for k in Knob::all() {
            k.def().validate(self.knobs.get(k))?;
        }
        match (self.machine.as_str(), &self.custom_machine) {
            (CUSTOM_MACHINE, Some(p)) => p.validate()?,
            (CUSTOM_MACHINE, None) => {
                return Err(Error::invalid(
                    "machine",
                    "custom, but no custom profile is given",
                ))
            }
            (id, _) => {
                costlab_sim::builtin::find(id)?;
            }
        }
        if self.pg_version.engine() != Engine::Postgres
            || self.mysql_version.engine() != Engine::Mysql
        {
            return Err(Error::invalid(
                "engine versions",
                "a release of the wrong engine",
            ));
        }
        Ok(())
    }
}
