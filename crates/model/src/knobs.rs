//! The knob table: every optimizer constant the product lets a user move, described once.
//!
//! Sliders, validation, presets, the URL codec, the command line's `--set` and the docs all
//! read [`KNOBS`]. Adding a knob is one entry here plus the place its engine reads it.

use crate::error::{check_range, Error, Result};
use crate::guc::{self, PgMemoryUnit};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Postgres,
    Mysql,
}

impl Engine {
    pub const ALL: [Engine; 2] = [Engine::Postgres, Engine::Mysql];

    pub fn name(self) -> &'static str {
        match self {
            Engine::Postgres => "PostgreSQL",
            Engine::Mysql => "MySQL",
        }
    }

    pub fn parse(s: &str) -> Result<Engine> {
        match s.to_ascii_lowercase().as_str() {
            "postgres" | "postgresql" | "pg" => Ok(Engine::Postgres),
            "mysql" | "innodb" => Ok(Engine::Mysql),
            _ => Err(Error::invalid(
                "engine",
                format!("`{s}` is not an engine; use postgres or mysql"),
            )),
        }
    }
}

/// Engine releases whose defaults differ (or are documented to be the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum EngineVersion {
    Pg15,
    Pg16,
    Pg17,
    Pg18,
    Mysql57,
    Mysql80,
    Mysql84,
}

impl EngineVersion {
    pub const ALL: [EngineVersion; 7] = [
        EngineVersion::Pg15,
        EngineVersion::Pg16,
        EngineVersion::Pg17,
        EngineVersion::Pg18,
        EngineVersion::Mysql57,
        EngineVersion::Mysql80,
        EngineVersion::Mysql84,
    ];

    pub fn engine(self) -> Engine {
        match self {
            EngineVersion::Pg15
            | EngineVersion::Pg16
            | EngineVersion::Pg17
            | EngineVersion::Pg18 => Engine::Postgres,
            _ => Engine::Mysql,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            EngineVersion::Pg15 => "PostgreSQL 15",
            EngineVersion::Pg16 => "PostgreSQL 16",
            EngineVersion::Pg17 => "PostgreSQL 17",
            EngineVersion::Pg18 => "PostgreSQL 18",
            EngineVersion::Mysql57 => "MySQL 5.7",
            EngineVersion::Mysql80 => "MySQL 8.0",
            EngineVersion::Mysql84 => "MySQL 8.4",
        }
    }

    /// The release a user gets when they only name the engine.
    pub fn latest(engine: Engine) -> EngineVersion {
        match engine {
            Engine::Postgres => EngineVersion::Pg18,
            Engine::Mysql => EngineVersion::Mysql84,
        }
    }
}

/// How a slider maps its position to a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// For ranges that span decades (random_page_cost 0.1 to 200).
    Log,
    /// An on/off switch stored as 0.0 or 1.0.
    Switch,
    /// Whole numbers only.
    Integer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Knob {
    SeqPageCost,
    RandomPageCost,
    CpuTupleCost,
    CpuIndexTupleCost,
    CpuOperatorCost,
    ParallelTupleCost,
    ParallelSetupCost,
    EffectiveCacheSize,
    WorkMem,
    MaxParallelWorkersPerGather,
    RowEvaluateCost,
    KeyCompareCost,
    MemoryTemptableCreateCost,
    MemoryTemptableRowCost,
    DiskTemptableCreateCost,
    DiskTemptableRowCost,
    MemoryBlockReadCost,
    IoBlockReadCost,
    MrrCostBased,
}

pub const KNOB_COUNT: usize = 19;

pub struct KnobDef {
    pub knob: Knob,
    pub engine: Engine,
    /// The engine's own parameter name, as SET / server_cost would take it.
    pub name: &'static str,
    pub unit: &'static str,
    pub min: f64,
    pub max: f64,
    pub scale: Scale,
    /// Short key used in links; frozen once released (links must open forever).
    pub url_key: &'static str,
    pub help: &'static str,
    /// Default per release of the knob's engine, oldest first.
    pub defaults: &'static [(EngineVersion, f64)],
    /// A PostgreSQL memory parameter: read with units as `SET` reads it.
    pub pg_memory: Option<PgMemory>,
}

/// How a PostgreSQL memory parameter's text maps to the knob's value: PostgreSQL's base
/// unit (what a bare number counts) and the unit the knob stores (its `unit`), in bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PgMemory {
    pub base: PgMemoryUnit,
    pub stored_unit_bytes: f64,
}

use EngineVersion::*;

const PG_ALL: [EngineVersion; 4] = [Pg15, Pg16, Pg17, Pg18];

macro_rules! same_pg {
    ($v:expr) => {
        &[(Pg15, $v), (Pg16, $v), (Pg17, $v), (Pg18, $v)]
    };
}

/// Indexed by `Knob as usize`; a unit test checks the order.
pub static KNOBS: [KnobDef; KNOB_COUNT] = [
    KnobDef {
        knob: Knob::SeqPageCost,
        engine: Engine::Postgres,
        name: "seq_page_cost",
        unit: "cost units per page",
        min: 0.01,
        max: 100.0,
        scale: Scale::Log,
        url_key: "spc",
        help: "Cost of reading one page as part of a sequential run; the unit all other costs are measured in.",
        defaults: same_pg!(1.0),
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::RandomPageCost,
        engine: Engine::Postgres,
        name: "random_page_cost",
        unit: "cost units per page",
        min: 0.1,
        max: 200.0,
        scale: Scale::Log,
        url_key: "rpc",
        help: "Cost of reading one page out of order (index scans); 4.0 assumes most random reads hit a cache.",
        defaults: same_pg!(4.0),
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::CpuTupleCost,
        engine: Engine::Postgres,
        name: "cpu_tuple_cost",
        unit: "cost units per row",
        min: 0.0001,
        max: 10.0,
        scale: Scale::Log,
        url_key: "ctc",
        help: "CPU cost of processing one heap row.",
        defaults: same_pg!(0.01),
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::CpuIndexTupleCost,
        engine: Engine::Postgres,
        name: "cpu_index_tuple_cost",
        unit: "cost units per index entry",
        min: 0.0001,
        max: 10.0,
        scale: Scale::Log,
        url_key: "citc",
        help: "CPU cost of processing one index entry during an index scan.",
        defaults: same_pg!(0.005),
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::CpuOperatorCost,
        engine: Engine::Postgres,
        name: "cpu_operator_cost",
        unit: "cost units per operator call",
        min: 0.00001,
        max: 10.0,
        scale: Scale::Log,
        url_key: "coc",
        help: "CPU cost of one operator or function call, such as a comparison in WHERE.",
        defaults: same_pg!(0.0025),
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::ParallelTupleCost,
        engine: Engine::Postgres,
        name: "parallel_tuple_cost",
        unit: "cost units per row",
        min: 0.0,
        max: 100.0,
        scale: Scale::Linear,
        url_key: "ptc",
        help: "Cost of passing one row from a parallel worker to the leader through Gather.",
        defaults: same_pg!(0.1),
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::ParallelSetupCost,
        engine: Engine::Postgres,
        name: "parallel_setup_cost",
        unit: "cost units",
        min: 0.0,
        max: 1_000_000.0,
        scale: Scale::Linear,
        url_key: "psc",
        help: "Cost of starting parallel workers for one Gather.",
        defaults: same_pg!(1000.0),
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::EffectiveCacheSize,
        engine: Engine::Postgres,
        name: "effective_cache_size",
        unit: "MB",
        // PostgreSQL's minimum: one 8 kB page.
        min: 1.0 / 128.0,
        max: 4_194_304.0,
        scale: Scale::Log,
        url_key: "ecs",
        help: "Cache the planner assumes one index scan can use (shared_buffers plus OS cache); lowers repeated page fetches.",
        defaults: same_pg!(4096.0),
        // guc_tables.c: GUC_UNIT_BLOCKS; the knob stores MB.
        pg_memory: Some(PgMemory {
            base: PgMemoryUnit::Blocks,
            stored_unit_bytes: 1024.0 * 1024.0,
        }),
    },
    KnobDef {
        knob: Knob::WorkMem,
        engine: Engine::Postgres,
        name: "work_mem",
        unit: "kB",
        min: 64.0,
        max: 16_777_216.0,
        scale: Scale::Log,
        url_key: "wm",
        help: "Memory per sort or bitmap before it spills to disk or goes lossy.",
        defaults: same_pg!(4096.0),
        // guc_tables.c: GUC_UNIT_KB, as the knob stores it.
        pg_memory: Some(PgMemory {
            base: PgMemoryUnit::Kb,
            stored_unit_bytes: 1024.0,
        }),
    },
    KnobDef {
        knob: Knob::MaxParallelWorkersPerGather,
        engine: Engine::Postgres,
        name: "max_parallel_workers_per_gather",
        unit: "workers",
        min: 0.0,
        max: 64.0,
        scale: Scale::Integer,
        url_key: "mpw",
        help: "Most workers one Gather may use; 0 turns parallel plans off.",
        defaults: same_pg!(2.0),
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::RowEvaluateCost,
        engine: Engine::Mysql,
        name: "row_evaluate_cost",
        unit: "cost units per row",
        min: 0.001,
        max: 100.0,
        scale: Scale::Log,
        url_key: "rec",
        help: "Cost of evaluating the condition on one row (server_cost).",
        defaults: &[(Mysql57, 0.2), (Mysql80, 0.1), (Mysql84, 0.1)],
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::KeyCompareCost,
        engine: Engine::Mysql,
        name: "key_compare_cost",
        unit: "cost units per comparison",
        min: 0.001,
        max: 100.0,
        scale: Scale::Log,
        url_key: "kcc",
        help: "Cost of comparing two keys, in sorts and rowid merges (server_cost).",
        defaults: &[(Mysql57, 0.1), (Mysql80, 0.05), (Mysql84, 0.05)],
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::MemoryTemptableCreateCost,
        engine: Engine::Mysql,
        name: "memory_temptable_create_cost",
        unit: "cost units",
        min: 0.001,
        max: 1000.0,
        scale: Scale::Log,
        url_key: "mtc",
        help: "Cost of creating an in-memory temporary table (server_cost).",
        defaults: &[(Mysql57, 2.0), (Mysql80, 1.0), (Mysql84, 1.0)],
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::MemoryTemptableRowCost,
        engine: Engine::Mysql,
        name: "memory_temptable_row_cost",
        unit: "cost units per row",
        min: 0.001,
        max: 100.0,
        scale: Scale::Log,
        url_key: "mtr",
        help: "Cost of writing or reading one row of an in-memory temporary table (server_cost).",
        defaults: &[(Mysql57, 0.2), (Mysql80, 0.1), (Mysql84, 0.1)],
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::DiskTemptableCreateCost,
        engine: Engine::Mysql,
        name: "disk_temptable_create_cost",
        unit: "cost units",
        min: 0.001,
        max: 10000.0,
        scale: Scale::Log,
        url_key: "dtc",
        help: "Cost of creating an on-disk temporary table (server_cost).",
        defaults: &[(Mysql57, 40.0), (Mysql80, 20.0), (Mysql84, 20.0)],
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::DiskTemptableRowCost,
        engine: Engine::Mysql,
        name: "disk_temptable_row_cost",
        unit: "cost units per row",
        min: 0.001,
        max: 100.0,
        scale: Scale::Log,
        url_key: "dtr",
        help: "Cost of writing or reading one row of an on-disk temporary table (server_cost).",
        defaults: &[(Mysql57, 1.0), (Mysql80, 0.5), (Mysql84, 0.5)],
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::MemoryBlockReadCost,
        engine: Engine::Mysql,
        name: "memory_block_read_cost",
        unit: "cost units per page",
        min: 0.001,
        max: 100.0,
        scale: Scale::Log,
        url_key: "mbrc",
        help: "Cost of reading a page that is already in the InnoDB buffer pool (engine_cost).",
        defaults: &[(Mysql57, 1.0), (Mysql80, 0.25), (Mysql84, 0.25)],
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::IoBlockReadCost,
        engine: Engine::Mysql,
        name: "io_block_read_cost",
        unit: "cost units per page",
        min: 0.001,
        max: 100.0,
        scale: Scale::Log,
        url_key: "iobrc",
        help: "Cost of reading a page from storage (engine_cost); the unit of MySQL costs.",
        defaults: &[(Mysql57, 1.0), (Mysql80, 1.0), (Mysql84, 1.0)],
        pg_memory: None,
    },
    KnobDef {
        knob: Knob::MrrCostBased,
        engine: Engine::Mysql,
        name: "mrr_cost_based",
        unit: "switch",
        min: 0.0,
        max: 1.0,
        scale: Scale::Switch,
        url_key: "mrrcb",
        help: "optimizer_switch mrr_cost_based: on lets cost decide DS-MRR; off uses DS-MRR whenever it is allowed.",
        defaults: &[(Mysql57, 1.0), (Mysql80, 1.0), (Mysql84, 1.0)],
        pg_memory: None,
    },
];

impl Knob {
    pub fn def(self) -> &'static KnobDef {
        &KNOBS[self as usize]
    }

    pub fn all() -> impl Iterator<Item = Knob> {
        KNOBS.iter().map(|d| d.knob)
    }

    pub fn for_engine(engine: Engine) -> impl Iterator<Item = Knob> {
        KNOBS
            .iter()
            .filter(move |d| d.engine == engine)
            .map(|d| d.knob)
    }

    /// Finds a knob by its engine parameter name or its URL key.
    pub fn lookup(name: &str) -> Result<Knob> {
        KNOBS
            .iter()
            .find(|d| d.name.eq_ignore_ascii_case(name) || d.url_key == name)
            .map(|d| d.knob)
            .ok_or_else(|| Error::UnknownKnob(name.to_string()))
    }
}

impl KnobDef {
    pub fn default_for(&self, version: EngineVersion) -> f64 {
        self.defaults
            .iter()
            .find(|(v, _)| *v == version)
            .or_else(|| self.defaults.last())
            .map(|(_, x)| *x)
            .unwrap_or(self.min)
    }

    /// A value typed as text, as the engine reads it: for PostgreSQL as `SET` does (memory
    /// with units B/kB/MB/GB/TB or a bare number in the base unit, integers rounded, reals
    /// without units), for MySQL a plain number. Not validated against the range.
    pub fn parse_value(&self, text: &str) -> Result<f64> {
        let named = |e: guc::GucError| Error::invalid(self.name, e.to_string());
        match (self.engine, self.pg_memory, self.scale) {
            (Engine::Postgres, Some(m), _) => Ok(guc::parse_int(text, Some(m.base))
                .map_err(named)?
                * m.base.bytes()
                / m.stored_unit_bytes),
            (Engine::Postgres, None, Scale::Integer) => guc::parse_int(text, None).map_err(named),
            _ => guc::parse_real(text).map_err(named),
        }
    }

    /// The value as the entry field shows it: a memory parameter as PostgreSQL's `SHOW`
    /// prints it (`4GB`, `512kB`); `None` for plain numbers.
    pub fn show_value(&self, value: f64) -> Option<String> {
        let m = self.pg_memory?;
        Some(guc::format_memory(
            value * m.stored_unit_bytes / m.base.bytes(),
            m.base,
        ))
    }

    /// What the entry field takes, in words (for memory: the units and the bare unit).
    pub fn entry_hint(&self) -> String {
        match self.pg_memory {
            Some(m) => format!("B, kB, MB, GB, TB; a bare number is in {}", m.base.name()),
            None => self.unit.to_string(),
        }
    }

    pub fn validate(&self, value: f64) -> Result<f64> {
        let v = check_range(self.name, value, self.min, self.max)?;
        match self.scale {
            Scale::Switch if v != 0.0 && v != 1.0 => Err(Error::invalid(
                self.name,
                format!("{v} is not a switch value; use 0 (off) or 1 (on)"),
            )),
            Scale::Integer if v.fract() != 0.0 => Err(Error::invalid(
                self.name,
                format!("{v} is not a whole number"),
            )),
            _ => Ok(v),
        }
    }

    /// Slider position in [0, 1] for a value, and back; log-scaled knobs spread decades evenly.
    pub fn to_position(&self, value: f64) -> f64 {
        let v = value.clamp(self.min, self.max);
        match self.scale {
            Scale::Log if self.min > 0.0 => {
                (v.ln() - self.min.ln()) / (self.max.ln() - self.min.ln())
            }
            _ if self.max > self.min => (v - self.min) / (self.max - self.min),
            _ => 0.0,
        }
    }

    /// The value a slider at `pos` sets: `from_position` rounded to three significant digits,
    /// so dragging lands on values a person would type (1.78, not 1.7782794).
    pub fn from_slider(&self, pos: f64) -> f64 {
        let v = self.from_position(pos);
        match self.scale {
            Scale::Switch | Scale::Integer => v,
            _ => round_significant(v, 3).clamp(self.min, self.max),
        }
    }

    pub fn from_position(&self, pos: f64) -> f64 {
        let p = if pos.is_finite() {
            pos.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let v = match self.scale {
            Scale::Log if self.min > 0.0 => {
                (self.min.ln() + p * (self.max.ln() - self.min.ln())).exp()
            }
            _ => self.min + p * (self.max - self.min),
        };
        match self.scale {
            Scale::Switch | Scale::Integer => v.round(),
            _ => v.clamp(self.min, self.max),
        }
    }
}

/// `x` rounded to `digits` significant decimal digits (0 and non-finite values unchanged).
pub fn round_significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(digits - 1 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// One value per knob of both engines. Knobs of the other engine are carried along
/// untouched so that switching engines in the page loses nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct KnobValues {
    values: [f64; KNOB_COUNT],
}

impl KnobValues {
    /// Defaults of the given PostgreSQL and MySQL releases.
    pub fn defaults(pg: EngineVersion, mysql: EngineVersion) -> KnobValues {
        let mut values = [0.0; KNOB_COUNT];
        for d in &KNOBS {
            let version = if d.engine == Engine::Postgres {
                pg
            } else {
                mysql
            };
            values[d.knob as usize] = d.default_for(version);
        }
        KnobValues { values }
    }

    pub fn get(&self, knob: Knob) -> f64 {
        self.values[knob as usize]
    }

    /// Sets a knob after validating it against the table; on error nothing changes.
    pub fn set(&mut self, knob: Knob, value: f64) -> Result<()> {
        self.values[knob as usize] = knob.def().validate(value)?;
        Ok(())
    }

    /// `name=value` as the command line's `--set` takes it.
    pub fn set_assignment(&mut self, assignment: &str) -> Result<Knob> {
        let (name, value) = assignment.split_once('=').ok_or_else(|| {
            Error::invalid(
                "--set",
                format!("`{assignment}` is not of the form name=value"),
            )
        })?;
        let knob = Knob::lookup(name.trim())?;
        self.set_text(knob, value)?;
        Ok(knob)
    }

    /// A value typed as text (the command line's `--set`, the page's entry fields), read
    /// as the engine reads it ([`KnobDef::parse_value`]), then validated.
    pub fn set_text(&mut self, knob: Knob, text: &str) -> Result<()> {
        let value = knob.def().parse_value(text)?;
        self.set(knob, value)
    }

    /// Multiplies every cost constant of one engine by `factor` (switches and sizes stay).
    pub fn scale_costs(&mut self, engine: Engine, factor: f64) {
        for d in KNOBS.iter().filter(|d| d.engine == engine) {
            if d.unit.starts_with("cost units") {
                self.values[d.knob as usize] *= factor;
            }
        }
    }
}

/// A named set of constants, applied on top of an engine release's defaults.
pub struct Preset {
    pub id: &'static str,
    pub label: &'static str,
    pub engine: Engine,
    pub base: EngineVersion,
    pub values: &'static [(Knob, f64)],
    /// Where the numbers come from.
    pub source: &'static str,
}

pub static PRESETS: &[Preset] = &[
    Preset {
        id: "pg-default",
        label: "PostgreSQL defaults",
        engine: Engine::Postgres,
        base: Pg18,
        values: &[],
        source: "cost.h defaults, unchanged from PostgreSQL 15 to 18",
    },
    Preset {
        id: "pg-ssd",
        label: "Common SSD advice (random_page_cost 1.1)",
        engine: Engine::Postgres,
        base: Pg18,
        values: &[(Knob::RandomPageCost, 1.1)],
        source: "pgtune and common tuning guides for SSD and NVMe",
    },
    Preset {
        id: "pg-seed-nvme",
        label: "Measured on NVMe (random_page_cost 20.4)",
        engine: Engine::Postgres,
        base: Pg18,
        values: &[(Knob::RandomPageCost, 20.4)],
        source: "pgsql-hackers random_page_cost thread: NVMe, 98 s seq vs 42,232 s index scan",
    },
    Preset {
        id: "pg-seed-raid0",
        label: "Measured on NVMe RAID0 (random_page_cost 49.3)",
        engine: Engine::Postgres,
        base: Pg18,
        values: &[(Knob::RandomPageCost, 49.3)],
        source: "pgsql-hackers random_page_cost thread: 4x NVMe RAID0",
    },
    Preset {
        id: "pg-seed-hdd",
        label: "Azure standard HDD as the seed prints it (random_page_cost 62.6; its own timings give 6.26)",
        engine: Engine::Postgres,
        base: Pg18,
        values: &[(Knob::RandomPageCost, 62.6)],
        source: "pgsql-hackers random_page_cost thread: Azure standard HDD, seqscan 209.8 s, index scan 27,586 s over 10M rows (~3.7 GB, 476,190 pages at the 500M table's 21 rows per page); the seed's formula T(idx) × P / (T(seq) × N) gives 27,586 × 476,190 / (209.8 × 1e7) = 6.26, not the 62.6 printed, which would need a 20.98 s seqscan",
    },
    Preset {
        id: "mysql-5.7",
        label: "MySQL 5.7 defaults",
        engine: Engine::Mysql,
        base: Mysql57,
        values: &[],
        source: "opt_costconstants.cc, 5.7",
    },
    Preset {
        id: "mysql-8.0",
        label: "MySQL 8.0 / 8.4 defaults",
        engine: Engine::Mysql,
        base: Mysql80,
        values: &[],
        source: "opt_costconstants.cc, 8.0 (WL#8737 Alt 2 divided by io_block_read_cost 2.0)",
    },
    Preset {
        id: "wl8737-alt0",
        label: "WL#8737 Alt 0 (memory = io = 1.0)",
        engine: Engine::Mysql,
        base: Mysql57,
        values: &[
            (Knob::MemoryBlockReadCost, 1.0),
            (Knob::IoBlockReadCost, 1.0),
        ],
        source: "WL#8737: keep memory_block_read_cost equal to io_block_read_cost",
    },
    Preset {
        id: "wl8737-alt1",
        label: "WL#8737 Alt 1 (memory 0.5, io 1.0)",
        engine: Engine::Mysql,
        base: Mysql57,
        values: &[
            (Knob::MemoryBlockReadCost, 0.5),
            (Knob::IoBlockReadCost, 1.0),
        ],
        source: "WL#8737: lower memory_block_read_cost only (0.5 was the suggested value)",
    },
    Preset {
        id: "wl8737-alt2",
        label: "WL#8737 Alt 2 (memory 0.5, io 2.0)",
        engine: Engine::Mysql,
        base: Mysql57,
        values: &[
            (Knob::MemoryBlockReadCost, 0.5),
            (Knob::IoBlockReadCost, 2.0),
        ],
        source: "WL#8737: raise io_block_read_cost to 2.0, memory 0.5, before normalisation",
    },
    Preset {
        id: "wl8737-alt2-normalised",
        label: "WL#8737 Alt 2 divided by 2.0 (= 8.0 defaults)",
        engine: Engine::Mysql,
        base: Mysql80,
        values: &[],
        source: "WL#8737: Alt 2 with every constant divided by the new io_block_read_cost",
    },
];

impl Preset {
    pub fn find(id: &str) -> Result<&'static Preset> {
        PRESETS.iter().find(|p| p.id == id).ok_or_else(|| {
            Error::invalid(
                "preset",
                format!(
                    "`{id}` is not a preset; known: {}",
                    PRESETS.iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
                ),
            )
        })
    }

    /// Resets this preset's engine to its base release and applies the preset's values.
    pub fn apply(&self, values: &mut KnobValues) {
        for d in KNOBS.iter().filter(|d| d.engine == self.engine) {
            values.values[d.knob as usize] = d.default_for(self.base);
        }
        for &(k, v) in self.values {
            values.values[k as usize] = v;
        }
    }
}

pub fn pg_versions() -> &'static [EngineVersion] {
    &PG_ALL
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_indexed_by_knob() {
        for (i, d) in KNOBS.iter().enumerate() {
            assert_eq!(d.knob as usize, i, "{} is out of order", d.name);
            assert!(d.min <= d.max, "{}", d.name);
            for (v, x) in d.defaults {
                assert_eq!(v.engine(), d.engine, "{}", d.name);
                assert!(
                    d.validate(*x).is_ok(),
                    "default of {} outside its range",
                    d.name
                );
            }
        }
    }

    #[test]
    fn url_keys_and_names_are_unique() {
        let mut keys: Vec<_> = KNOBS.iter().map(|d| d.url_key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), KNOB_COUNT);
        let mut names: Vec<_> = KNOBS.iter().map(|d| d.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), KNOB_COUNT);
    }

    #[test]
    fn mysql_80_defaults_are_alt2_divided_by_two() {
        // mysql-cost-model.md 1.2: 5.7 server constants, mbrc 0.5, io 2.0, all divided by 2.0.
        let v57 = KnobValues::defaults(Pg18, Mysql57);
        let v80 = KnobValues::defaults(Pg18, Mysql80);
        for k in Knob::for_engine(Engine::Mysql).filter(|k| k.def().unit.starts_with("cost")) {
            let alt2 = match k {
                Knob::MemoryBlockReadCost => 0.5,
                Knob::IoBlockReadCost => 2.0,
                _ => v57.get(k),
            };
            assert_eq!(alt2 / 2.0, v80.get(k), "{}", k.def().name);
        }
    }

    #[test]
    fn set_rejects_bad_values_and_keeps_the_old_one() {
        let mut v = KnobValues::defaults(Pg18, Mysql80);
        for bad in [f64::NAN, -1.0, 0.0, 1e9, f64::INFINITY] {
            assert!(v.set(Knob::RandomPageCost, bad).is_err(), "{bad}");
        }
        assert_eq!(v.get(Knob::RandomPageCost), 4.0);
        assert!(v.set(Knob::MrrCostBased, 0.5).is_err());
        assert!(v.set(Knob::MaxParallelWorkersPerGather, 1.5).is_err());
        let err = v.set_assignment("random_page_cost=abc").unwrap_err();
        assert!(err.to_string().contains("random_page_cost"), "{err}");
        assert!(matches!(
            v.set_assignment("nope=1"),
            Err(Error::UnknownKnob(_))
        ));
        assert_eq!(v.set_assignment("rpc = 1.1").unwrap(), Knob::RandomPageCost);
        assert_eq!(v.get(Knob::RandomPageCost), 1.1);
    }

    /// `--set` and the page's entries read PostgreSQL's settings as `SET` does (PostgreSQL
    /// 15: `SET effective_cache_size = 64; SHOW effective_cache_size` prints 512kB;
    /// `SET work_mem = '64MB'` stores 65536 kB; units are case-sensitive).
    #[test]
    fn postgresql_settings_read_with_units_as_set_does() {
        let mut v = KnobValues::defaults(EngineVersion::Pg16, EngineVersion::Mysql80);
        let ecs = Knob::EffectiveCacheSize;
        v.set_assignment("effective_cache_size=64").unwrap();
        assert_eq!(v.get(ecs), 0.5, "64 pages of 8 kB = 512 kB");
        assert_eq!(ecs.def().show_value(v.get(ecs)).as_deref(), Some("512kB"));
        // costlab-pg reads it as 64 pages (pg's tests: effective_cache_size_in_pages).
        v.set_assignment("effective_cache_size=4GB").unwrap();
        assert_eq!(v.get(ecs), 4096.0);
        assert_eq!(ecs.def().show_value(v.get(ecs)).as_deref(), Some("4GB"));
        v.set_assignment("ecs=1").unwrap();
        assert_eq!(v.get(ecs), 1.0 / 128.0);
        v.set_assignment("work_mem=64MB").unwrap();
        assert_eq!(v.get(Knob::WorkMem), 65_536.0);
        v.set_assignment("work_mem=64").unwrap();
        assert_eq!(v.get(Knob::WorkMem), 64.0);
        assert_eq!(
            Knob::WorkMem.def().show_value(4096.0).as_deref(),
            Some("4MB")
        );
        v.set_assignment("random_page_cost=1.1").unwrap();
        assert_eq!(v.get(Knob::RandomPageCost), 1.1);
        v.set_assignment("max_parallel_workers_per_gather=2.6")
            .unwrap();
        assert_eq!(v.get(Knob::MaxParallelWorkersPerGather), 3.0);
        for (bad, want) in [
            ("work_mem=64mb", "`64mb`"),
            ("effective_cache_size=4 GiB", "`4 GiB`"),
            ("work_mem=64KB", "`64KB`"),
        ] {
            let e = v.set_assignment(bad).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
            assert!(e.contains("B, kB, MB, GB and TB"), "{e}");
        }
        let e = v
            .set_assignment("random_page_cost=2MB")
            .unwrap_err()
            .to_string();
        assert!(e.contains("random_page_cost") && e.contains("`2MB`"), "{e}");
        // Below PostgreSQL's minimum of 64 kB: refused by the range, naming it.
        let e = v.set_assignment("work_mem=1536B").unwrap_err().to_string();
        assert!(e.contains("work_mem"), "{e}");
        // MySQL's constants stay plain numbers.
        v.set_assignment("memory_block_read_cost=0.25").unwrap();
        assert_eq!(v.get(Knob::MemoryBlockReadCost), 0.25);
        assert!(v.set_assignment("memory_block_read_cost=1kB").is_err());
    }

    #[test]
    fn log_slider_round_trips_and_spreads_decades() {
        let d = Knob::RandomPageCost.def();
        for x in [0.1, 1.0, 4.0, 20.4, 200.0] {
            let back = d.from_position(d.to_position(x));
            assert!((back - x).abs() / x < 1e-12, "{x} -> {back}");
        }
        let p1 = d.to_position(1.0);
        let p10 = d.to_position(10.0);
        let p100 = d.to_position(100.0);
        assert!(((p10 - p1) - (p100 - p10)).abs() < 1e-12);
    }

    #[test]
    fn sliders_land_on_round_values_inside_the_range() {
        let d = Knob::RandomPageCost.def();
        assert_eq!(round_significant(1.7782794, 3), 1.78);
        assert_eq!(round_significant(0.00123456, 3), 0.00123);
        assert_eq!(round_significant(176543.0, 3), 177000.0);
        for i in 0..=1000 {
            let v = d.from_slider(i as f64 / 1000.0);
            assert!(d.validate(v).is_ok(), "{v}");
            assert_eq!(v, round_significant(v, 3));
        }
        assert_eq!(
            Knob::MaxParallelWorkersPerGather.def().from_slider(0.5),
            32.0
        );
    }

    #[test]
    fn presets_apply_on_their_base_release() {
        let mut v = KnobValues::defaults(Pg18, Mysql80);
        Preset::find("wl8737-alt1").unwrap().apply(&mut v);
        assert_eq!(v.get(Knob::RowEvaluateCost), 0.2);
        assert_eq!(v.get(Knob::MemoryBlockReadCost), 0.5);
        assert!(Preset::find("nope").is_err());
        for p in PRESETS {
            for (k, x) in p.values {
                assert_eq!(k.def().engine, p.engine, "{}", p.id);
                assert!(k.def().validate(*x).is_ok(), "{}", p.id);
            }
        }
    }
}
