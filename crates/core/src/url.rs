//! Scenarios in links: the fragment after `#` carries the whole scenario as readable
//! `key=value` pairs, and only the values that differ from the defaults.
//!
//! `#v=1&e=pg&rpc=20.4&m=seed-nvme&view=time`
//!
//! The format is a boundary: a link written by any released version must open the same
//! scenario forever. `v` names the format version; a new version adds a migration in
//! [`decode`] and golden tests keep old links working. Defaults are part of the format: a
//! key that is absent means the default *of that format version*.
//!
//! A link is untrusted input. Decoding never fails and never panics: an invalid value is
//! reported by name and replaced by its default, keeping the rest; an unknown version or an
//! oversized link gives the default scenario and a message.

use crate::scenario::{
    CacheState, DiagramSpec, Engines, InnodbCacheReport, Scenario, ServerSettings, UserTables,
    UserWorkload, View, Workload, CUSTOM_MACHINE,
};
use costlab_model::knobs::{Engine, EngineVersion, Knob, KNOBS};
use costlab_sim::profile::{Confidence, MachineProfile, QdPoint};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const VERSION: u32 = 1;
/// Longer fragments are refused before parsing (RFC 9110 asks servers to take 8,000).
pub const MAX_FRAGMENT: usize = 8000;
/// Most pairs read from one link.
const MAX_PAIRS: usize = 200;
/// Longest custom machine name a link carries, in characters; longer names are cut, by the
/// encoder and the decoder alike. A measured machine's name ("Measured: <CPU model>, <file
/// system> on <device> (<model>)") is often over 80 characters, the limit before; even
/// fully percent-encoded (12 bytes a character) 200 keep a link far below [`MAX_FRAGMENT`].
pub const MAX_NAME_CHARS: usize = 200;

/// What went wrong with part of a link; the rest of it was used.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkProblem {
    /// The key (or "link" for the whole thing).
    pub key: String,
    pub message: String,
}

impl std::fmt::Display for LinkProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

/// Presentation options of an embed: outside the scenario, so authors can change them
/// without re-encoding it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EmbedOptions {
    pub embed: bool,
    pub read_only: bool,
    /// "light", "dark", or None to follow the system.
    pub theme: Option<String>,
    /// Knobs shown beside the chart in an embed (empty: none).
    pub knobs: Vec<Knob>,
}

/// A decoded link: the scenario, the embed options and every problem found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decoded {
    pub scenario: Scenario,
    pub embed: EmbedOptions,
    pub problems: Vec<LinkProblem>,
}

/// `dg`: engine, query (or `all`), x knob, y knob (or `-`), then the words `open` and
/// `regret` when they hold, comma-separated: `pg,12,rpc,ecs,open`.
fn diagram_value(d: &DiagramSpec) -> String {
    let mut parts = vec![
        engines_key(Engines::One(d.engine)).to_string(),
        d.query.map_or("all".into(), |q| q.to_string()),
        d.x.def().url_key.to_string(),
        d.y.map_or("-", |k| k.def().url_key).to_string(),
    ];
    if d.open {
        parts.push("open".into());
    }
    if d.regret {
        parts.push("regret".into());
    }
    parts.join(",")
}

/// Reads `dg` (see [`diagram_value`]) for the engines on show.
fn parse_diagram(v: &str, engines: Engines) -> std::result::Result<DiagramSpec, String> {
    let parts: Vec<&str> = v.split(',').collect();
    let [engine, query, x, y, flags @ ..] = parts.as_slice() else {
        return Err("is not a diagram (engine,query,x,y[,open][,regret])".into());
    };
    let engine = match *engine {
        "mysql" => Engine::Mysql,
        "pg" => Engine::Postgres,
        _ => {
            return Err(format!(
                "names no engine (mysql, pg) but `{}`",
                truncate(engine)
            ))
        }
    };
    if !engines.list().contains(&engine) {
        return Err(format!(
            "is a {} diagram, but {} is not shown",
            engine.name(),
            engine.name()
        ));
    }
    let query = match *query {
        "all" => None,
        q => match q.parse::<u8>() {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                return Err(format!(
                    "names no query (all or a number) but `{}`",
                    truncate(q)
                ))
            }
        },
    };
    let knob = |key: &str| {
        KNOBS
            .iter()
            .find(|d| d.url_key == key)
            .map(|d| d.knob)
            .ok_or_else(|| format!("names no knob `{}`", truncate(key)))
    };
    let x = knob(x)?;
    let y = match *y {
        "-" => None,
        k => Some(knob(k)?),
    };
    let (mut open, mut regret) = (false, false);
    for f in flags {
        match *f {
            "open" => open = true,
            "regret" => regret = true,
            other => {
                return Err(format!(
                    "has `{}`, neither open nor regret",
                    truncate(other)
                ))
            }
        }
    }
    let d = DiagramSpec {
        open,
        engine,
        query,
        x,
        y,
        regret,
    };
    d.check()?;
    Ok(d)
}

fn engines_key(e: Engines) -> &'static str {
    match e {
        Engines::One(Engine::Mysql) => "mysql",
        Engines::One(Engine::Postgres) => "pg",
        Engines::Both => "both",
    }
}

fn version_key(v: EngineVersion) -> &'static str {
    match v {
        EngineVersion::Pg15 => "15",
        EngineVersion::Pg16 => "16",
        EngineVersion::Pg17 => "17",
        EngineVersion::Pg18 => "18",
        EngineVersion::Mysql57 => "5.7",
        EngineVersion::Mysql80 => "8.0",
        EngineVersion::Mysql84 => "8.4",
    }
}

fn parse_version(engine: Engine, s: &str) -> Option<EngineVersion> {
    EngineVersion::ALL
        .into_iter()
        .find(|v| v.engine() == engine && version_key(*v) == s)
}

/// Numbers as the shortest text that reads back to the same f64.
fn num(x: f64) -> String {
    format!("{x}")
}

/// The fragment (without `#`) for a scenario and its embed options.
pub fn encode(s: &Scenario, embed: &EmbedOptions) -> String {
    let d = Scenario::default();
    let mut pairs: Vec<(String, String)> = vec![("v".into(), VERSION.to_string())];
    if s.engines != d.engines {
        pairs.push(("e".into(), engines_key(s.engines).into()));
    }
    if s.pg_version != d.pg_version {
        pairs.push(("pg".into(), version_key(s.pg_version).into()));
    }
    if s.mysql_version != d.mysql_version {
        pairs.push(("my".into(), version_key(s.mysql_version).into()));
    }
    for k in s.changed_knobs() {
        pairs.push((k.def().url_key.into(), num(s.knobs.get(k))));
    }
    if s.machine != d.machine {
        pairs.push(("m".into(), s.machine.clone()));
        if let (CUSTOM_MACHINE, Some(p)) = (s.machine.as_str(), &s.custom_machine) {
            pairs.extend(profile_pairs(p));
        }
    }
    if s.cache != d.cache {
        pairs.push(("c".into(), "cold".into()));
    }
    // Server settings only where they differ from what the machine presets (so a link
    // written before they existed keeps its meaning).
    let preset = ServerSettings::preset_for_scenario_machine(&s.machine);
    if s.server.innodb_cache_report != preset.innodb_cache_report {
        pairs.push(("icr".into(), s.server.innodb_cache_report.id().into()));
    }
    if s.server.batched_key_access != preset.batched_key_access {
        pairs.push((
            "bka".into(),
            if s.server.batched_key_access {
                "1"
            } else {
                "0"
            }
            .into(),
        ));
    }
    match &s.workload {
        w if *w == d.workload => {}
        Workload::T1Sweep { from, to } => pairs.push((
            "w".into(),
            format!("t1:{},{}", num(from * 100.0), num(to * 100.0)),
        )),
        Workload::Dbt3 { sf, baseline } => {
            pairs.push(("w".into(), "dbt3".into()));
            if *sf != Workload::DBT3_DEFAULT_SF {
                pairs.push(("sf".into(), num(*sf)));
            }
            if baseline != Workload::default_baseline(s.engines) {
                pairs.push(("base".into(), baseline.clone()));
            }
        }
        Workload::Ordering {
            sf,
            procost,
            series,
        } => {
            pairs.push(("w".into(), "ordering".into()));
            let Workload::Ordering {
                sf: sf0,
                procost: procost0,
                ..
            } = Workload::ORDERING_DEFAULT
            else {
                unreachable!("the default is the ordering workload")
            };
            if *sf != sf0 {
                pairs.push(("sf".into(), num(*sf)));
            }
            if *procost != procost0 {
                pairs.push(("fc".into(), num(*procost)));
            }
            if !series {
                pairs.push(("series".into(), "0".into()));
            }
        }
        Workload::User(u) => {
            pairs.push(("w".into(), "user".into()));
            if u.baseline != Workload::default_baseline(s.engines) {
                pairs.push(("base".into(), u.baseline.clone()));
            }
            match &u.tables {
                UserTables::Example => {}
                UserTables::File { name, json } => {
                    pairs.push(("uf".into(), name.clone()));
                    pairs.push(("ut".into(), json.to_string()));
                }
                UserTables::Missing { name } => pairs.push(("uf".into(), name.clone())),
            }
            // The example's own queries are what a link without `uq` means.
            if !(u.tables == UserTables::Example
                && u.queries == costlab_workload::user::EXAMPLE_QUERIES)
            {
                pairs.push(("uq".into(), u.queries.clone()));
            }
        }
    }
    if s.view != d.view {
        pairs.push(("view".into(), s.view.id().into()));
    }
    if s.flip_knob != d.flip_knob {
        pairs.push(("fk".into(), s.flip_knob.def().url_key.into()));
    }
    if s.log_y {
        pairs.push(("log".into(), "1".into()));
    }
    if let Some(d) = &s.diagram {
        pairs.push(("dg".into(), diagram_value(d)));
    }
    if embed.embed {
        pairs.push(("embed".into(), "1".into()));
    }
    if embed.read_only {
        pairs.push(("ro".into(), "1".into()));
    }
    if let Some(t) = &embed.theme {
        pairs.push(("theme".into(), t.clone()));
    }
    if !embed.knobs.is_empty() {
        let keys: Vec<&str> = embed.knobs.iter().map(|k| k.def().url_key).collect();
        pairs.push(("knobs".into(), keys.join(",")));
    }
    let join = |pairs: &[(String, String)]| {
        pairs
            .iter()
            .map(|(k, v)| format!("{k}={}", escape(v)))
            .collect::<Vec<_>>()
            .join("&")
    };
    let mut fragment = join(&pairs);
    // A user workload too large for a link leaves out its tables (the link names the file,
    // which must be loaded again), then its queries (the link says they were left out).
    for (key, mark) in [("ut", None), ("uq", Some(("uqx", "1")))] {
        if fragment.len() <= MAX_FRAGMENT {
            break;
        }
        if let Some(i) = pairs.iter().position(|(k, _)| k == key) {
            pairs.remove(i);
            if let Some((k, v)) = mark {
                pairs.push((k.into(), v.into()));
            }
            fragment = join(&pairs);
        }
    }
    fragment
}

/// Percent-encodes every byte outside a small readable set, so that any text a user can type
/// (a machine named `NVMe+RAID`, `50% & more`, `ü`, a tab) reads back exactly. Non-ASCII text is
/// written as its UTF-8 bytes in `%XX`, as the browser itself writes it into `location.hash`,
/// so the fragment the page writes is the one it reads back.
fn escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for &b in v.as_bytes() {
        match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b':'
            | b','
            | b'!'
            | b'*'
            | b'\''
            | b'('
            | b')'
            | b'/'
            | b'?'
            | b'@'
            | b';'
            | b'$' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn truncate_chars(v: &str, max: usize) -> String {
    v.chars().take(max).collect()
}

/// Reverses [`escape`]. A `+` is a plus sign: costlab never wrote `+` for a space (it wrote
/// `%20`), so reading it as a space, as HTML forms do, turned every `+` a link carried
/// into a space (`NVMe+RAID` came back as `NVMe RAID`, `1e+5` as a non-number).
fn unescape(v: &str) -> Option<String> {
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            // Exactly two hex digits (`from_str_radix` alone would take `%+F`).
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Reads a fragment (with or without the leading `#`). Never fails: see the module docs.
pub fn decode(fragment: &str) -> Decoded {
    decode_as::<true>(fragment)
}

/// Whether a link is for more than the t1 sweep: another workload, or a plan diagram.
pub fn needs_more_than_t1(fragment: &str) -> bool {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    f.split('&').any(|p| {
        matches!(
            p.split_once('='),
            Some(("w", "dbt3" | "user" | "ordering")) | Some(("dg", _))
        )
    })
}

/// Reads a link as [`decode`] does, for a page that has the t1 sweep alone (the web page's
/// first load): `None` for a link that [`needs_more_than_t1`]. The other workloads' keys
/// are then never read here, so that their code stays out of such a page.
pub fn decode_t1(fragment: &str) -> Option<Decoded> {
    (!needs_more_than_t1(fragment)).then(|| decode_as::<false>(fragment))
}

/// [`decode`], or with `ALL` false [`decode_t1`]'s reading.
fn decode_as<const ALL: bool>(fragment: &str) -> Decoded {
    let mut out = Decoded {
        scenario: Scenario::default(),
        embed: EmbedOptions::default(),
        problems: Vec::new(),
    };
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    // No pairs at all: an in-page anchor (#top), not a scenario.
    if f.is_empty() || !f.contains('=') {
        return out;
    }
    let mut problem = |key: &str, message: String| {
        out.problems.push(LinkProblem {
            key: key.to_string(),
            message,
        });
    };
    if f.len() > MAX_FRAGMENT {
        problem(
            "link",
            format!(
                "is {} characters long; links over {MAX_FRAGMENT} are not read",
                f.len()
            ),
        );
        return out;
    }
    let mut pairs = Vec::new();
    for part in f.split('&').filter(|p| !p.is_empty()).take(MAX_PAIRS + 1) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        match (unescape(k), unescape(v)) {
            (Some(k), Some(v)) => pairs.push((k, v)),
            _ => problem(
                &truncate(k),
                "is not valid percent-encoded UTF-8; ignored".into(),
            ),
        }
    }
    if pairs.len() > MAX_PAIRS {
        problem(
            "link",
            format!("has more than {MAX_PAIRS} settings; the rest were ignored"),
        );
        pairs.truncate(MAX_PAIRS);
    }
    let version = pairs.iter().find(|(k, _)| k == "v").map(|(_, v)| v.clone());
    match version.as_deref() {
        Some("1") => {}
        Some(v) => {
            problem(
                "v",
                format!("link format version `{}` is not one this page reads (it reads 1); showing the defaults", truncate(v)),
            );
            return out;
        }
        None => {
            problem(
                "v",
                "the link has no format version; showing the defaults".into(),
            );
            return out;
        }
    }
    let problems = decode_v1::<ALL>(&pairs, &mut out.scenario, &mut out.embed);
    out.problems.extend(problems);
    out
}

fn truncate(s: &str) -> String {
    let t: String = s.chars().take(40).collect();
    if t.len() < s.len() {
        format!("{t}…")
    } else {
        t
    }
}

/// The pairs of a version 1 link; with `ALL` false, only the t1 sweep's (see [`decode_t1`]).
fn decode_v1<const ALL: bool>(
    pairs: &[(String, String)],
    s: &mut Scenario,
    embed: &mut EmbedOptions,
) -> Vec<LinkProblem> {
    let mut problems = Vec::new();
    let mut bad = |key: &str, value: &str, why: String| {
        problems.push(LinkProblem {
            key: truncate(key),
            message: format!("`{}` {why}", truncate(value)),
        });
    };
    // Versions first: knob defaults depend on them.
    for (k, v) in pairs {
        match k.as_str() {
            "pg" => match parse_version(Engine::Postgres, v) {
                Some(ver) => s.pg_version = ver,
                None => bad(
                    k,
                    v,
                    "is not a PostgreSQL release (15 to 18); using the default".into(),
                ),
            },
            "my" => match parse_version(Engine::Mysql, v) {
                Some(ver) => s.mysql_version = ver,
                None => bad(
                    k,
                    v,
                    "is not a MySQL release (5.7, 8.0, 8.4); using the default".into(),
                ),
            },
            _ => {}
        }
    }
    s.knobs = costlab_model::knobs::KnobValues::defaults(s.pg_version, s.mysql_version);
    // DBT3's keys are read after the loop: the baseline's default depends on the engines.
    let (mut dbt3, mut sf, mut base) = (false, None, None);
    let (mut user, mut user_file, mut user_tables, mut user_queries) = (false, None, None, None);
    let mut user_queries_left_out = false;
    let (mut ordering, mut procost, mut series) = (false, None, None);
    // Server settings apply over the machine's preset, once the machine is known.
    let (mut icr, mut bka) = (None, None);
    // The diagram is read after the loop: it must be of an engine on show.
    let mut diagram = None;
    for (k, v) in pairs {
        match k.as_str() {
            "v" | "pg" | "my" => {}
            "dg" if ALL => diagram = Some(v),
            "e" => match v.as_str() {
                "mysql" => s.engines = Engines::One(Engine::Mysql),
                "pg" => s.engines = Engines::One(Engine::Postgres),
                "both" => s.engines = Engines::Both,
                _ => bad(
                    k,
                    v,
                    "is not an engine (mysql, pg, both); using the default".into(),
                ),
            },
            "m" => {
                if v == CUSTOM_MACHINE || crate::analysis::is_machine(v) {
                    s.machine = v.clone();
                } else {
                    bad(
                        k,
                        v,
                        "is not a machine profile this page knows; using the default".into(),
                    )
                }
            }
            "c" => match v.as_str() {
                "cold" => s.cache = CacheState::Cold,
                "warm" => s.cache = CacheState::Warm,
                _ => bad(
                    k,
                    v,
                    "is not a cache state (warm, cold); using the default".into(),
                ),
            },
            "icr" => match InnodbCacheReport::parse(v) {
                Ok(r) => icr = Some(r),
                Err(_) => bad(
                    k,
                    v,
                    "is not an InnoDB cache report (release, all-cached, heuristic); using the machine's preset".into(),
                ),
            },
            "bka" => match v.as_str() {
                "1" => bka = Some(true),
                "0" => bka = Some(false),
                _ => bad(
                    k,
                    v,
                    "is not batched key access on or off (1, 0); using the machine's preset"
                        .into(),
                ),
            },
            "w" if ALL && v == "dbt3" => dbt3 = true,
            "w" if ALL && v == "user" => user = true,
            "w" if ALL && v == "ordering" => ordering = true,
            "fc" => procost = Some(v),
            "series" => series = Some(v),
            "sf" => sf = Some(v),
            "base" => base = Some(v),
            "uf" => user_file = Some(v),
            "ut" => user_tables = Some(v),
            "uq" => user_queries = Some(v),
            "uqx" => user_queries_left_out = true,
            "w" => {
                let parsed = v
                    .strip_prefix("t1:")
                    .and_then(|r| r.split_once(','))
                    .and_then(|(a, b)| {
                        Some(Workload::T1Sweep {
                            from: costlab_model::num::parse_f64(a)? / 100.0,
                            to: costlab_model::num::parse_f64(b)? / 100.0,
                        })
                    });
                match parsed {
                    Some(w) => match w.validate() {
                        Ok(()) => s.workload = w,
                        Err(e) => bad(
                            k,
                            v,
                            format!("is not a valid sweep ({e}); using the default"),
                        ),
                    },
                    None => bad(
                        k,
                        v,
                        "is not a workload (t1:FROM,TO in percent, dbt3, user or ordering); using the default"
                            .into(),
                    ),
                }
            }
            "view" => match View::ALL.into_iter().find(|x| x.id() == v) {
                Some(view) => s.view = view,
                None => bad(
                    k,
                    v,
                    "is not a view (cost, time, flip); using the default".into(),
                ),
            },
            "fk" => match KNOBS.iter().find(|d| d.url_key == v) {
                Some(def) => s.flip_knob = def.knob,
                None => bad(k, v, "is not a knob".into()),
            },
            "log" => s.log_y = v == "1",
            "embed" => embed.embed = v == "1",
            "ro" => embed.read_only = v == "1",
            "theme" => match v.as_str() {
                "light" | "dark" => embed.theme = Some(v.clone()),
                "auto" => embed.theme = None,
                _ => bad(k, v, "is not a theme (light, dark, auto)".into()),
            },
            "knobs" => {
                for key in v.split(',').filter(|x| !x.is_empty()).take(KNOBS.len()) {
                    match KNOBS.iter().find(|d| d.url_key == key) {
                        Some(def) if !embed.knobs.contains(&def.knob) => embed.knobs.push(def.knob),
                        Some(_) => {}
                        None => bad(k, key, "is not a knob".into()),
                    }
                }
            }
            other if other.starts_with("p.") => {}
            other => match KNOBS.iter().find(|d| d.url_key == other) {
                Some(def) => match costlab_model::num::parse_f64(v) {
                    Some(x) => {
                        if let Err(e) = s.knobs.set(def.knob, x) {
                            bad(
                                def.name,
                                v,
                                format!("is not allowed ({e}); using the default"),
                            );
                        }
                    }
                    None => bad(def.name, v, "is not a number; using the default".into()),
                },
                None => bad(other, v, "is not a setting this page knows; ignored".into()),
            },
        }
    }
    let resolve_base = |bad: &mut dyn FnMut(&str, &str, String)| {
        let default_base = Workload::default_baseline(s.engines);
        let shown = s.engines.list();
        match base.map(|v| (v, costlab_model::knobs::Preset::find(v))) {
            None => default_base,
            Some((_, Ok(p))) if shown.contains(&p.engine) => p.id,
            Some((v, Ok(p))) => {
                bad(
                    "base",
                    v,
                    format!(
                        "is a {} preset, but {} is not shown; using {default_base}",
                        p.engine.name(),
                        p.engine.name()
                    ),
                );
                default_base
            }
            Some((v, Err(_))) => {
                bad("base", v, format!("is not a preset; using {default_base}"));
                default_base
            }
        }
    };
    if !ordering {
        for (k, v) in [("fc", procost), ("series", series)] {
            if let Some(v) = v {
                bad(
                    k,
                    v,
                    "applies only to the ordering workload (w=ordering); ignored".into(),
                );
            }
        }
    }
    if ALL && dbt3 {
        let sf = match sf.map(|v| (v, costlab_model::num::parse_f64(v))) {
            None => Workload::DBT3_DEFAULT_SF,
            Some((_, Some(x))) if costlab_workload::dbt3::catalog::check_sf(x).is_ok() => x,
            Some((v, _)) => {
                bad(
                    "sf",
                    v,
                    format!(
                        "is not a DBT3 scale factor (0.01 to 1000); using {}",
                        Workload::DBT3_DEFAULT_SF
                    ),
                );
                Workload::DBT3_DEFAULT_SF
            }
        };
        let baseline = resolve_base(&mut bad);
        s.workload = Workload::Dbt3 {
            sf,
            baseline: baseline.into(),
        };
    } else if ALL && user {
        let baseline = resolve_base(&mut bad).to_string();
        let tables = match (user_file, user_tables) {
            (None, None) => UserTables::Example,
            (Some(name), Some(json)) => UserTables::File {
                name: truncate_chars(name, MAX_NAME_CHARS),
                json: json.as_str().into(),
            },
            (Some(name), None) => {
                bad(
                    "uf",
                    name,
                    "was too large for a link: load this scenario file again to plan its queries"
                        .into(),
                );
                UserTables::Missing {
                    name: truncate_chars(name, MAX_NAME_CHARS),
                }
            }
            (None, Some(_)) => {
                bad(
                    "ut",
                    "…",
                    "are tables without their file's name (uf); using the example".into(),
                );
                UserTables::Example
            }
        };
        let mut queries = match (user_queries, &tables) {
            (Some(q), _) => q.clone(),
            (None, UserTables::Example) => costlab_workload::user::EXAMPLE_QUERIES.into(),
            (None, _) => String::new(),
        };
        if let Err(e) = costlab_workload::user::split_queries(&queries) {
            bad("uq", &queries, format!("cannot be read ({e}); left out"));
            queries.clear();
        }
        if user_queries_left_out {
            queries.clear();
            bad(
                "uq",
                "",
                "the queries were too long for a link and were left out: paste them again".into(),
            );
        }
        s.workload = Workload::User(Box::new(UserWorkload {
            baseline,
            tables,
            queries,
        }));
    } else if ALL && ordering {
        let Workload::Ordering {
            sf: sf0,
            procost: procost0,
            series: series0,
        } = Workload::ORDERING_DEFAULT
        else {
            unreachable!("the default is the ordering workload")
        };
        let sf = match sf.map(|v| (v, costlab_model::num::parse_f64(v))) {
            None => sf0,
            Some((_, Some(x))) if costlab_workload::dbt3::catalog::check_sf(x).is_ok() => x,
            Some((v, _)) => {
                bad(
                    "sf",
                    v,
                    format!("is not a scale factor (0.01 to 1000); using {sf0}"),
                );
                sf0
            }
        };
        let procost = match procost.map(|v| (v, costlab_model::num::parse_f64(v))) {
            None => procost0,
            Some((_, Some(x))) if (0.0..=1e9).contains(&x) => x,
            Some((v, _)) => {
                bad(
                    "fc",
                    v,
                    format!("is not a function cost (0 to 1e9); using {procost0}"),
                );
                procost0
            }
        };
        let series = match series.map(String::as_str) {
            None => series0,
            Some("1") => true,
            Some("0") => false,
            Some(v) => {
                bad(
                    "series",
                    v,
                    "is not the series on or off (1, 0); using on".into(),
                );
                series0
            }
        };
        s.workload = Workload::Ordering {
            sf,
            procost,
            series,
        };
        if let Some(v) = base {
            bad(
                "base",
                v,
                "applies only to DBT3 and the user's workload; ignored".into(),
            );
        }
    } else {
        for (k, v) in [("uf", user_file), ("ut", user_tables), ("uq", user_queries)] {
            if v.is_some() {
                bad(
                    k,
                    "…",
                    "applies only to the user's workload (w=user); ignored".into(),
                );
            }
        }
        for (k, v) in [("sf", sf), ("base", base)] {
            if let Some(v) = v {
                bad(
                    k,
                    v,
                    "applies only to the DBT3 workload (w=dbt3); ignored".into(),
                );
            }
        }
    }
    s.diagram = match diagram.map(|v| (v, parse_diagram(v, s.engines))) {
        None => None,
        Some((_, Ok(d))) => Some(d),
        Some((v, Err(why))) => {
            bad("dg", v, format!("{why}; drawing the default diagram"));
            None
        }
    };
    if s.machine == CUSTOM_MACHINE {
        match profile_from_pairs(pairs) {
            Ok(p) => s.custom_machine = Some(p),
            Err(e) => {
                problems.push(LinkProblem {
                    key: "custom machine".into(),
                    message: format!("{e}; using the default machine"),
                });
                s.machine = Scenario::default().machine;
            }
        }
    }
    s.server = ServerSettings::preset_for_scenario_machine(&s.machine);
    if let Some(r) = icr {
        s.server.innodb_cache_report = r;
    }
    if let Some(b) = bka {
        s.server.batched_key_access = b;
    }
    problems
}

/// Base of a custom profile from a link: fields the link leaves out keep these values.
const CUSTOM_BASE: &str = "nvme-consumer-gen4";

fn qd_curve(points: &[QdPoint]) -> String {
    points
        .iter()
        .map(|p| format!("{}:{}", num(p.queue_depth), num(p.iops)))
        .collect::<Vec<_>>()
        .join(",")
}

fn parse_qd_curve(v: &str) -> Option<Vec<QdPoint>> {
    v.split(',')
        .filter(|x| !x.is_empty())
        .take(64)
        .map(|pair| {
            let (qd, iops) = pair.split_once(':')?;
            Some(QdPoint {
                queue_depth: costlab_model::num::parse_f64(qd)?,
                iops: costlab_model::num::parse_f64(iops)?,
            })
        })
        .collect()
}

/// A custom machine profile as `p.*` pairs: every field, so the link does not depend on
/// the defaults of any built-in profile.
fn profile_pairs(p: &MachineProfile) -> Vec<(String, String)> {
    let mut v: Vec<(&str, String)> = vec![
        ("p.name", p.label.chars().take(MAX_NAME_CHARS).collect()),
        ("p.conf", confidence_key(p.confidence).into()),
        ("p.seq", num(p.device.seq_read_mbps)),
        ("p.r8", num(p.device.random_8k.qd1_latency_us)),
        ("p.q8", qd_curve(&p.device.random_8k.iops_by_qd)),
        ("p.r16", num(p.device.random_16k.qd1_latency_us)),
        ("p.q16", qd_curve(&p.device.random_16k.iops_by_qd)),
        ("p.hit", num(p.buffer_hit_ns)),
        ("p.os", num(p.os_cache_hit_ns)),
        ("p.row", num(p.cpu_ns_per_row)),
        ("p.ent", num(p.cpu_ns_per_index_entry)),
        ("p.op", num(p.cpu_ns_per_operator)),
        ("p.cmp", num(p.cpu_ns_per_comparison)),
        ("p.ram", num(p.ram_bytes)),
        ("p.buf", num(p.buffer_pool_bytes)),
        ("p.direct", if p.bypass_os_cache { "1" } else { "0" }.into()),
        ("p.eic", num(p.effective_io_concurrency)),
    ];
    if let Some(h) = &p.hash_rows {
        let f = [h.small_bytes, h.small_ns, h.large_bytes, h.large_ns].map(num);
        v.push(("p.hash", f.join("_")));
    }
    if let Some(x) = p.device.skip_read_us {
        v.push(("p.skip", num(x)));
    }
    if let Some(x) = p.device.iops_cap {
        v.push(("p.iops", num(x)));
    }
    if let Some(x) = p.device.mbps_cap {
        v.push(("p.mbps", num(x)));
    }
    v.into_iter().map(|(k, x)| (k.to_string(), x)).collect()
}

fn confidence_key(c: Confidence) -> &'static str {
    c.id()
}

fn profile_from_pairs(pairs: &[(String, String)]) -> costlab_model::Result<MachineProfile> {
    let mut p = costlab_sim::builtin::find(CUSTOM_BASE)?;
    p.id = CUSTOM_MACHINE.into();
    p.label = "Custom machine".into();
    p.source = "edited in the playground; shared by link".into();
    p.confidence = Confidence::Derived;
    // Edited figures: the base profile's sources no longer hold.
    p.figures.clear();
    let bad = |k: &str, v: &str| {
        costlab_model::Error::invalid(
            format!("custom machine {k}"),
            format!("`{}` is not valid", truncate(v)),
        )
    };
    for (k, v) in pairs.iter().filter(|(k, _)| k.starts_with("p.")) {
        let n = || costlab_model::num::parse_f64(v).ok_or_else(|| bad(k, v));
        match k.as_str() {
            "p.name" => p.label = v.chars().take(MAX_NAME_CHARS).collect(),
            "p.conf" => p.confidence = Confidence::parse(v).ok_or_else(|| bad(k, v))?,
            "p.seq" => p.device.seq_read_mbps = n()?,
            "p.r8" => p.device.random_8k.qd1_latency_us = n()?,
            "p.q8" => p.device.random_8k.iops_by_qd = parse_qd_curve(v).ok_or_else(|| bad(k, v))?,
            "p.r16" => p.device.random_16k.qd1_latency_us = n()?,
            "p.q16" => {
                p.device.random_16k.iops_by_qd = parse_qd_curve(v).ok_or_else(|| bad(k, v))?
            }
            "p.skip" => p.device.skip_read_us = Some(n()?),
            "p.iops" => p.device.iops_cap = Some(n()?),
            "p.mbps" => p.device.mbps_cap = Some(n()?),
            "p.hit" => p.buffer_hit_ns = n()?,
            "p.os" => p.os_cache_hit_ns = n()?,
            "p.row" => p.cpu_ns_per_row = n()?,
            "p.ent" => p.cpu_ns_per_index_entry = n()?,
            "p.op" => p.cpu_ns_per_operator = n()?,
            "p.cmp" => p.cpu_ns_per_comparison = n()?,
            "p.hash" => {
                let f: Vec<f64> = v
                    .split('_')
                    .map(|x| costlab_model::num::parse_f64(x).ok_or_else(|| bad(k, v)))
                    .collect::<costlab_model::Result<_>>()?;
                let [small_bytes, small_ns, large_bytes, large_ns] = f[..] else {
                    return Err(bad(k, v));
                };
                p.hash_rows = Some(costlab_sim::HashRowCost {
                    small_bytes,
                    small_ns,
                    large_bytes,
                    large_ns,
                });
            }
            "p.ram" => p.ram_bytes = n()?,
            "p.buf" => p.buffer_pool_bytes = n()?,
            "p.direct" => p.bypass_os_cache = v == "1",
            "p.eic" => p.effective_io_concurrency = n()?,
            _ => {
                return Err(costlab_model::Error::invalid(
                    "custom machine",
                    format!("`{}` is not a profile field", truncate(k)),
                ))
            }
        }
    }
    p.validate()?;
    Ok(p)
}

/// A link as a JSON document, for people who generate documentation: the same settings
/// as the fragment, spelled out (`costlab url encode|decode`). Absent fields mean the
/// defaults of the link format, exactly as absent keys do in a link.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkFile {
    /// The link format version (1).
    pub costlab_link: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engines: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postgresql: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mysql: Option<String>,
    /// Changed knobs by engine parameter name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_machine: Option<MachineProfile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    /// What InnoDB reports as cached (release, all-cached, heuristic); absent: what the
    /// machine presets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub innodb_cache_report: Option<String>,
    /// optimizer_switch batched_key_access; absent: what the machine presets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batched_key_access: Option<bool>,
    /// t1 sweep range in percent of rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep_percent: Option<(f64, f64)>,
    /// The DBT3 workload instead of the t1 sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dbt3: Option<Dbt3Link>,
    /// The user's own workload instead of the t1 sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<UserLink>,
    /// The third seed's ordering workload instead of the t1 sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ordering: Option<OrderingLink>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flip_knob: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub log_y: bool,
    /// The plan diagram panel's settings, once the user has touched them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagram: Option<DiagramLink>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub embed: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub embed_knobs: Vec<String>,
}

/// The plan diagram in a link document: knobs by their parameter names, the engine as
/// `engines` names it (`mysql`, `pg`), no query for the flip map of every query.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiagramLink {
    pub engine: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<u8>,
    pub x: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub open: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub regret: bool,
}

impl DiagramLink {
    fn from_spec(d: &DiagramSpec) -> DiagramLink {
        DiagramLink {
            engine: engines_key(Engines::One(d.engine)).into(),
            query: d.query,
            x: d.x.def().name.into(),
            y: d.y.map(|k| k.def().name.into()),
            open: d.open,
            regret: d.regret,
        }
    }

    /// The `dg` value; knob names are looked up here (an unknown one is an error naming
    /// it), the rest is checked by the link decoder.
    fn value(&self) -> costlab_model::Result<String> {
        let key = |name: &str| Ok::<_, costlab_model::Error>(Knob::lookup(name)?.def().url_key);
        let mut parts = vec![
            self.engine.clone(),
            self.query.map_or("all".into(), |q| q.to_string()),
            key(&self.x)?.to_string(),
            match &self.y {
                Some(y) => key(y)?.to_string(),
                None => "-".into(),
            },
        ];
        if self.open {
            parts.push("open".into());
        }
        if self.regret {
            parts.push("regret".into());
        }
        Ok(parts.join(","))
    }
}

/// DBT3 in a link document: the scale factor and the baseline preset's id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dbt3Link {
    pub scale_factor: f64,
    pub baseline: String,
}

/// The ordering workload in a link document: scale factor, the functions' declared cost
/// and whether the series is compared with stock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderingLink {
    pub scale_factor: f64,
    pub function_cost: f64,
    pub series: bool,
}

/// The user's workload in a link document: the baseline preset, the scenario file's name
/// (absent: the example) with its tables as compact JSON when the link carries them, and
/// the queries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserLink {
    pub baseline: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables_json: Option<String>,
    #[serde(default)]
    pub queries: String,
}

impl LinkFile {
    /// The document for a decoded link (only what differs from the defaults).
    pub fn from_link(s: &Scenario, embed: &EmbedOptions) -> LinkFile {
        let pairs: BTreeMap<String, String> = encode(s, embed)
            .split('&')
            .filter_map(|p| p.split_once('='))
            .map(|(k, v)| (k.to_string(), unescape(v).unwrap_or_default()))
            .collect();
        let get = |k: &str| pairs.get(k).cloned();
        let (mut sweep, mut dbt3, mut user, mut ordering) = (None, None, None, None);
        match &s.workload {
            Workload::T1Sweep { from, to } => sweep = Some((from * 100.0, to * 100.0)),
            Workload::Dbt3 { sf, baseline } => {
                dbt3 = Some(Dbt3Link {
                    scale_factor: *sf,
                    baseline: baseline.clone(),
                })
            }
            Workload::User(u) => {
                user = Some(UserLink {
                    baseline: u.baseline.clone(),
                    file: get("uf"),
                    tables_json: get("ut"),
                    queries: get("uq").unwrap_or_default(),
                })
            }
            Workload::Ordering {
                sf,
                procost,
                series,
            } => {
                ordering = Some(OrderingLink {
                    scale_factor: *sf,
                    function_cost: *procost,
                    series: *series,
                })
            }
        }
        LinkFile {
            costlab_link: VERSION,
            engines: get("e"),
            postgresql: get("pg"),
            mysql: get("my"),
            settings: s
                .changed_knobs()
                .into_iter()
                .map(|k| (k.def().name.to_string(), s.knobs.get(k)))
                .collect(),
            machine: get("m"),
            custom_machine: (s.machine == CUSTOM_MACHINE)
                .then(|| s.custom_machine.clone())
                .flatten(),
            cache: get("c"),
            innodb_cache_report: get("icr"),
            batched_key_access: get("bka").map(|v| v == "1"),
            sweep_percent: get("w").and(sweep),
            dbt3,
            user,
            ordering,
            view: get("view"),
            flip_knob: get("fk")
                .and_then(|k| Knob::lookup(&k).ok())
                .map(|k| k.def().name.to_string()),
            log_y: s.log_y,
            diagram: s.diagram.as_ref().map(DiagramLink::from_spec),
            embed: embed.embed,
            read_only: embed.read_only,
            theme: embed.theme.clone(),
            embed_knobs: embed
                .knobs
                .iter()
                .map(|k| k.def().name.to_string())
                .collect(),
        }
    }

    /// The fragment for this document. Every value goes through the same decoder a link
    /// does; anything it would reject is an error here, naming the field.
    pub fn to_fragment(&self) -> costlab_model::Result<String> {
        if self.costlab_link != VERSION {
            return Err(costlab_model::Error::invalid(
                "costlab_link",
                format!(
                    "format version {} is not one this costlab writes ({VERSION})",
                    self.costlab_link
                ),
            ));
        }
        let mut pairs: Vec<(String, String)> = vec![("v".into(), VERSION.to_string())];
        let mut put = |k: &str, v: &Option<String>| {
            if let Some(v) = v {
                pairs.push((k.into(), v.clone()));
            }
        };
        put("e", &self.engines);
        put("pg", &self.postgresql);
        put("my", &self.mysql);
        put("m", &self.machine);
        put("c", &self.cache);
        put("icr", &self.innodb_cache_report);
        put(
            "bka",
            &self
                .batched_key_access
                .map(|b| if b { "1" } else { "0" }.to_string()),
        );
        put("view", &self.view);
        put("theme", &self.theme);
        for (name, value) in &self.settings {
            pairs.push((Knob::lookup(name)?.def().url_key.into(), num(*value)));
        }
        if let Some(k) = &self.flip_knob {
            pairs.push(("fk".into(), Knob::lookup(k)?.def().url_key.into()));
        }
        if let Some((a, b)) = self.sweep_percent {
            pairs.push(("w".into(), format!("t1:{},{}", num(a), num(b))));
        }
        if let Some(d) = &self.dbt3 {
            pairs.push(("w".into(), "dbt3".into()));
            pairs.push(("sf".into(), num(d.scale_factor)));
            pairs.push(("base".into(), d.baseline.clone()));
        }
        if let Some(u) = &self.user {
            pairs.push(("w".into(), "user".into()));
            pairs.push(("base".into(), u.baseline.clone()));
            put_user(&mut pairs, "uf", &u.file);
            put_user(&mut pairs, "ut", &u.tables_json);
            pairs.push(("uq".into(), u.queries.clone()));
        }
        if let Some(o) = &self.ordering {
            pairs.push(("w".into(), "ordering".into()));
            pairs.push(("sf".into(), num(o.scale_factor)));
            pairs.push(("fc".into(), num(o.function_cost)));
            pairs.push(("series".into(), if o.series { "1" } else { "0" }.into()));
        }
        if let Some(p) = &self.custom_machine {
            pairs.extend(profile_pairs(p));
        }
        if let Some(d) = &self.diagram {
            pairs.push(("dg".into(), d.value()?));
        }
        for (flag, key) in [
            (self.log_y, "log"),
            (self.embed, "embed"),
            (self.read_only, "ro"),
        ] {
            if flag {
                pairs.push((key.into(), "1".into()));
            }
        }
        if !self.embed_knobs.is_empty() {
            let keys: costlab_model::Result<Vec<&str>> = self
                .embed_knobs
                .iter()
                .map(|n| Ok(Knob::lookup(n)?.def().url_key))
                .collect();
            pairs.push(("knobs".into(), keys?.join(",")));
        }
        let fragment = pairs
            .iter()
            .map(|(k, v)| format!("{k}={}", escape(v)))
            .collect::<Vec<_>>()
            .join("&");
        let d = decode(&fragment);
        if let Some(p) = d.problems.first() {
            return Err(costlab_model::Error::invalid(
                p.key.clone(),
                p.message.clone(),
            ));
        }
        Ok(encode(&d.scenario, &d.embed))
    }
}

fn put_user(pairs: &mut Vec<(String, String)>, k: &str, v: &Option<String>) {
    if let Some(v) = v {
        pairs.push((k.into(), v.clone()));
    }
}

/// One line a person can read next to the copy-link button.
pub fn describe(s: &Scenario) -> String {
    let mut parts = Vec::new();
    let engines: Vec<String> = s
        .engines
        .list()
        .into_iter()
        .map(|e| s.version_of(e).label().to_string())
        .collect();
    parts.push(engines.join(" and "));
    for k in s.changed_knobs() {
        if s.engines.list().contains(&k.def().engine) {
            parts.push(format!("{} {}", k.def().name, num(s.knobs.get(k))));
        }
    }
    parts.push(crate::analysis::machine_label(s));
    if s.engines.list().contains(&Engine::Mysql)
        && s.server != ServerSettings::preset_for_scenario_machine(&s.machine)
    {
        parts.push(format!(
            "InnoDB cache report {}, batched key access {}",
            s.server.innodb_cache_report.id(),
            if s.server.batched_key_access {
                "on"
            } else {
                "off"
            }
        ));
    }
    if s.cache == CacheState::Cold {
        parts.push("cold cache".into());
    }
    match &s.workload {
        Workload::T1Sweep { from, to } => {
            parts.push(format!(
                "t1 from {}% to {}% of rows",
                num(from * 100.0),
                num(to * 100.0)
            ));
            parts.push(s.view.label().to_ascii_lowercase());
        }
        Workload::Dbt3 { sf, baseline } => {
            parts.push(format!("DBT3 at SF {} against {baseline}", num(*sf)))
        }
        Workload::Ordering {
            sf,
            procost,
            series,
        } => parts.push(format!(
            "ordering shapes at SF {}, functions at COST {}, {}",
            num(*sf),
            num(*procost),
            if *series {
                "stock against the series"
            } else {
                "stock only"
            }
        )),
        Workload::User(u) => {
            let n = costlab_workload::user::split_queries(&u.queries).map_or(0, |q| q.len());
            parts.push(format!(
                "{n} queries on {} against {}",
                u.tables.name(),
                u.baseline
            ))
        }
    }
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed() -> Scenario {
        let mut s = Scenario {
            engines: Engines::Both,
            view: View::Cost,
            log_y: true,
            workload: Workload::T1Sweep {
                from: 0.01,
                to: 0.25,
            },
            ..Scenario::default()
        };
        s.knobs.set(Knob::MemoryBlockReadCost, 0.5).unwrap();
        s.knobs.set(Knob::RandomPageCost, 20.4).unwrap();
        s.knobs.set(Knob::CpuOperatorCost, 0.00125).unwrap();
        s
    }

    type ScenarioOf = fn() -> Scenario;

    fn dbt3_seed() -> Scenario {
        Scenario {
            workload: Workload::dbt3_default(Engines::One(Engine::Mysql)),
            ..Scenario::default()
        }
    }

    fn dbt3_seed_disk() -> Scenario {
        Scenario {
            machine: "wl8737-disk".into(),
            server: ServerSettings::WL8737_DISK,
            ..dbt3_seed()
        }
    }

    fn pg_seed_nvme() -> Scenario {
        Scenario {
            engines: Engines::One(Engine::Postgres),
            machine: "seed-nvme".into(),
            server: ServerSettings::DEFAULT,
            ..Scenario::default()
        }
    }

    fn dbt3_both() -> Scenario {
        let mut s = Scenario {
            engines: Engines::Both,
            workload: Workload::Dbt3 {
                sf: 1.0,
                baseline: "pg-ssd".into(),
            },
            ..Scenario::default()
        };
        s.knobs.set(Knob::MemoryBlockReadCost, 0.45).unwrap();
        s
    }

    #[test]
    fn dbt3_writes_only_what_differs_and_reads_back() {
        assert_eq!(encode(&dbt3_seed(), &EmbedOptions::default()), "v=1&w=dbt3");
        let s = dbt3_both();
        let link = encode(&s, &EmbedOptions::default());
        assert_eq!(link, "v=1&e=both&mbrc=0.45&w=dbt3&sf=1&base=pg-ssd");
        let d = decode(&link);
        assert_eq!(d.problems, vec![]);
        assert_eq!(d.scenario, s);
        assert!(
            describe(&s).contains("DBT3 at SF 1 against pg-ssd"),
            "{}",
            describe(&s)
        );
        // PostgreSQL alone: its defaults are the default baseline.
        let pg = Scenario {
            engines: Engines::One(Engine::Postgres),
            workload: Workload::dbt3_default(Engines::One(Engine::Postgres)),
            ..Scenario::default()
        };
        assert_eq!(encode(&pg, &EmbedOptions::default()), "v=1&e=pg&w=dbt3");
        assert_eq!(decode("v=1&e=pg&w=dbt3").scenario, pg);
    }

    #[test]
    fn the_plan_diagram_travels_in_the_link_and_bad_ones_are_named() {
        let s = Scenario {
            engines: Engines::Both,
            workload: Workload::dbt3_default(Engines::Both),
            diagram: Some(DiagramSpec {
                open: true,
                engine: Engine::Postgres,
                query: Some(12),
                x: Knob::RandomPageCost,
                y: Some(Knob::EffectiveCacheSize),
                regret: false,
            }),
            ..Scenario::default()
        };
        let link = encode(&s, &EmbedOptions::default());
        assert!(link.ends_with("&dg=pg,12,rpc,ecs,open"), "{link}");
        let d = decode(&link);
        assert_eq!(d.problems, vec![]);
        assert_eq!(d.scenario, s);
        // The flip map with the regret layer, closed.
        let d = decode("v=1&w=dbt3&dg=mysql,all,mbrc,-,regret");
        assert_eq!(d.problems, vec![]);
        let g = d.scenario.diagram.expect("a diagram");
        assert_eq!(
            (g.open, g.query, g.x, g.y, g.regret),
            (false, None, Knob::MemoryBlockReadCost, None, true)
        );
        // Each broken value is named, and the default diagram is drawn.
        for (dg, why) in [
            (
                "pg,12,rpc,ecs",
                "is a PostgreSQL diagram, but PostgreSQL is not shown",
            ),
            ("mysql,x,mbrc,-", "names no query (all or a number) but `x`"),
            ("mysql,0,mbrc,-", "names no query"),
            ("mysql,8,zz,-", "names no knob `zz`"),
            (
                "mysql,8,rpc,-",
                "random_page_cost is not a MySQL knob a diagram can run over",
            ),
            (
                "mysql,8,mbrc,mbrc",
                "memory_block_read_cost is on both axes",
            ),
            ("mysql,all,mbrc,iobrc", "the flip map has one axis"),
            ("mysql,8,mbrc,-,shut", "has `shut`, neither open nor regret"),
            ("mysql,8", "is not a diagram"),
        ] {
            let d = decode(&format!("v=1&w=dbt3&dg={dg}"));
            assert_eq!(d.scenario.diagram, None, "{dg}");
            assert_eq!(d.problems.len(), 1, "{dg}: {:?}", d.problems);
            assert_eq!(d.problems[0].key, "dg");
            assert!(
                d.problems[0].message.contains(why),
                "{dg}: {}",
                d.problems[0].message
            );
        }
    }

    #[test]
    fn link_documents_carry_the_diagram_by_knob_names() {
        let s = Scenario {
            engines: Engines::Both,
            workload: Workload::dbt3_default(Engines::Both),
            diagram: Some(DiagramSpec {
                open: true,
                engine: Engine::Mysql,
                query: Some(8),
                x: Knob::IoBlockReadCost,
                y: Some(Knob::MemoryBlockReadCost),
                regret: true,
            }),
            ..Scenario::default()
        };
        let file = LinkFile::from_link(&s, &EmbedOptions::default());
        let json = serde_json::to_string(&file).unwrap();
        assert!(
            json.contains(
                r#""diagram":{"engine":"mysql","query":8,"x":"io_block_read_cost","y":"memory_block_read_cost","open":true,"regret":true}"#
            ),
            "{json}"
        );
        let back: LinkFile = serde_json::from_str(&json).unwrap();
        let link = back.to_fragment().unwrap();
        assert_eq!(link, encode(&s, &EmbedOptions::default()));
        assert!(
            link.ends_with("&dg=mysql,8,iobrc,mbrc,open,regret"),
            "{link}"
        );
        // The flip map: no query, one axis.
        let flip: LinkFile = serde_json::from_str(
            r#"{"costlab_link":1,"dbt3":{"scale_factor":10,"baseline":"mysql-5.7"},
                "diagram":{"engine":"mysql","x":"memory_block_read_cost"}}"#,
        )
        .unwrap();
        let g = decode(&flip.to_fragment().unwrap())
            .scenario
            .diagram
            .unwrap();
        assert_eq!(
            (g.query, g.x, g.y, g.open),
            (None, Knob::MemoryBlockReadCost, None, false)
        );
        // Unknown knob names and drawings the decoder refuses are errors naming them.
        let mut bad = back.clone();
        bad.diagram.as_mut().unwrap().y = Some("no_such_cost".into());
        let e = bad.to_fragment().unwrap_err().to_string();
        assert!(e.contains("no_such_cost"), "{e}");
        let mut bad = back;
        bad.diagram.as_mut().unwrap().y = Some("random_page_cost".into());
        let e = bad.to_fragment().unwrap_err().to_string();
        assert!(
            e.contains("dg") && e.contains("random_page_cost is not a MySQL knob"),
            "{e}"
        );
        // A field the document does not have is refused.
        assert!(serde_json::from_str::<LinkFile>(
            r#"{"costlab_link":1,"diagram":{"engine":"mysql","x":"memory_block_read_cost","z":1}}"#
        )
        .is_err());
    }

    #[test]
    fn broken_dbt3_values_are_named_and_fall_back_one_by_one() {
        let d = decode("#v=1&w=dbt3&sf=5000&base=mysql-8.0");
        assert_eq!(
            d.scenario.workload,
            Workload::Dbt3 {
                sf: 10.0,
                baseline: "mysql-8.0".into()
            }
        );
        assert_eq!(d.problems.len(), 1);
        assert_eq!(d.problems[0].key, "sf");
        assert!(
            d.problems[0].message.contains("0.01 to 1000"),
            "{}",
            d.problems[0]
        );
        for (link, key, says) in [
            ("#v=1&w=dbt3&sf=ten", "sf", "scale factor"),
            (
                "#v=1&w=dbt3&base=nope",
                "base",
                "not a preset; using mysql-5.7",
            ),
            (
                "#v=1&w=dbt3&base=pg-ssd",
                "base",
                "PostgreSQL preset, but PostgreSQL is not shown",
            ),
            (
                "#v=1&e=pg&w=dbt3&base=mysql-5.7",
                "base",
                "using pg-default",
            ),
            ("#v=1&sf=10", "sf", "only to the DBT3 workload"),
            ("#v=1&w=dbt4", "w", "dbt3, user or ordering"),
        ] {
            let d = decode(link);
            assert_eq!(d.problems.len(), 1, "{link}: {:?}", d.problems);
            assert_eq!(d.problems[0].key, key, "{link}");
            assert!(
                d.problems[0].message.contains(says),
                "{link}: {}",
                d.problems[0]
            );
            assert!(d.scenario.validate().is_ok(), "{link}");
        }
    }

    #[test]
    fn dbt3_link_files_round_trip() {
        let s = dbt3_both();
        let file = LinkFile::from_link(&s, &EmbedOptions::default());
        assert_eq!(file.sweep_percent, None);
        assert_eq!(file.dbt3.as_ref().unwrap().baseline, "pg-ssd");
        let json = serde_json::to_string(&file).unwrap();
        assert!(
            json.contains(r#""dbt3":{"scale_factor":1.0,"baseline":"pg-ssd"}"#),
            "{json}"
        );
        let back: LinkFile = serde_json::from_str(&json).unwrap();
        assert_eq!(
            back.to_fragment().unwrap(),
            encode(&s, &EmbedOptions::default())
        );
        let mut bad = file;
        bad.dbt3.as_mut().unwrap().scale_factor = 0.0;
        assert!(bad.to_fragment().unwrap_err().to_string().contains("sf"));
    }

    /// The ordering workload travels with what differs from the seed's run; its keys are
    /// checked as the others are, and belong to it alone.
    #[test]
    fn ordering_links_round_trip_and_refuse_bad_values() {
        let s = Scenario {
            engines: Engines::One(Engine::Postgres),
            workload: Workload::Ordering {
                sf: 1.0,
                procost: 100.0,
                series: false,
            },
            ..Scenario::default()
        };
        let link = encode(&s, &EmbedOptions::default());
        assert!(link.contains("w=ordering&sf=1&fc=100&series=0"), "{link}");
        let d = decode(&link);
        assert_eq!(d.problems, vec![]);
        assert_eq!(d.scenario, s);
        let plain = encode(
            &Scenario {
                workload: Workload::ORDERING_DEFAULT,
                ..s.clone()
            },
            &EmbedOptions::default(),
        );
        assert!(plain.ends_with("w=ordering"), "{plain}");
        let file = LinkFile::from_link(&s, &EmbedOptions::default());
        let json = serde_json::to_string(&file).unwrap();
        assert!(
            json.contains(
                r#""ordering":{"scale_factor":1.0,"function_cost":100.0,"series":false}"#
            ),
            "{json}"
        );
        let back: LinkFile = serde_json::from_str(&json).unwrap();
        assert_eq!(decode(&back.to_fragment().unwrap()).scenario, s);
        for (link, key) in [
            ("v=1&w=ordering&fc=-1", "fc"),
            ("v=1&w=ordering&fc=NaN", "fc"),
            ("v=1&w=ordering&sf=0", "sf"),
            ("v=1&w=ordering&series=maybe", "series"),
            ("v=1&w=dbt3&series=0", "series"),
            ("v=1&w=ordering&base=pg-ssd", "base"),
        ] {
            let d = decode(link);
            assert_eq!(d.problems.len(), 1, "{link}: {:?}", d.problems);
            assert_eq!(d.problems[0].key, key, "{link}");
            assert!(d.scenario.validate().is_ok(), "{link}");
        }
    }

    #[test]
    fn default_scenario_is_just_the_version() {
        assert_eq!(
            encode(&Scenario::default(), &EmbedOptions::default()),
            "v=1"
        );
    }

    #[test]
    fn round_trips_exactly_and_stays_short() {
        let s = changed();
        let link = encode(&s, &EmbedOptions::default());
        assert!(link.len() <= 300, "{} chars: {link}", link.len());
        let d = decode(&format!("#{link}"));
        assert_eq!(d.problems, vec![]);
        assert_eq!(d.scenario, s);
    }

    /// Server settings travel when they differ from what the machine presets, and only
    /// then; a custom machine presets the defaults, whatever its profile's id.
    #[test]
    fn server_settings_round_trip_and_stay_out_when_preset() {
        // The seed's disk profile presets the seed's server: nothing to write.
        let seed_disk = Scenario {
            machine: "wl8737-disk".into(),
            server: ServerSettings::WL8737_DISK,
            ..Scenario::default()
        };
        assert_eq!(
            encode(&seed_disk, &EmbedOptions::default()),
            "v=1&m=wl8737-disk"
        );
        // Changed from the preset: written, and read back exactly.
        let mut cases = Vec::new();
        let mut s = seed_disk.clone();
        s.server.batched_key_access = false;
        cases.push((s, "bka=0"));
        let mut s = Scenario {
            machine: "nvme-consumer-gen4".into(),
            ..Scenario::default()
        };
        s.server = ServerSettings {
            innodb_cache_report: InnodbCacheReport::Heuristic,
            batched_key_access: true,
        };
        cases.push((s, "icr=heuristic&bka=1"));
        let mut custom = costlab_sim::builtin::find("wl8737-disk").unwrap();
        custom.id = CUSTOM_MACHINE.into();
        let s = Scenario {
            machine: CUSTOM_MACHINE.into(),
            custom_machine: Some(custom),
            server: ServerSettings::WL8737_MEMORY,
            ..Scenario::default()
        };
        cases.push((s, "icr=all-cached"));
        for (s, want) in cases {
            let link = encode(&s, &EmbedOptions::default());
            assert!(link.contains(want), "{link}");
            let d = decode(&link);
            assert_eq!(d.problems, vec![], "{link}");
            assert_eq!(d.scenario.server, s.server, "{link}");
            if s.machine != CUSTOM_MACHINE {
                // (A custom machine's source text stays out of links.)
                assert_eq!(d.scenario, s, "{link}");
            }
            let file = LinkFile::from_link(&s, &EmbedOptions::default());
            let json = serde_json::to_string(&file).unwrap();
            let back: LinkFile = serde_json::from_str(&json).unwrap();
            assert_eq!(back.to_fragment().unwrap(), link);
        }
        // A custom machine without server keys has the default server.
        let mut s = seed_disk;
        let mut custom = costlab_sim::builtin::find("wl8737-disk").unwrap();
        custom.id = CUSTOM_MACHINE.into();
        s.machine = CUSTOM_MACHINE.into();
        s.custom_machine = Some(custom);
        s.server = ServerSettings::DEFAULT;
        let link = encode(&s, &EmbedOptions::default());
        assert!(!link.contains("bka") && !link.contains("icr"), "{link}");
        assert_eq!(decode(&link).scenario.server, ServerSettings::DEFAULT);
        let mut s = Scenario::default();
        s.server.batched_key_access = true;
        assert!(
            describe(&s).contains("batched key access on"),
            "{}",
            describe(&s)
        );
        assert!(!describe(&Scenario::default()).contains("batched"));
        let d = decode("v=1&icr=some&bka=2");
        assert_eq!(d.problems.len(), 2, "{:?}", d.problems);
        assert_eq!(d.scenario, Scenario::default());
    }

    #[test]
    fn a_bad_value_is_named_and_only_it_falls_back() {
        let d = decode("#v=1&e=both&mbrc=-3&rpc=20.4&view=nope&zzz=1");
        assert_eq!(d.scenario.engines, Engines::Both);
        assert_eq!(d.scenario.knobs.get(Knob::RandomPageCost), 20.4);
        assert_eq!(d.scenario.knobs.get(Knob::MemoryBlockReadCost), 1.0);
        assert_eq!(d.scenario.view, View::Cost);
        let keys: Vec<&str> = d.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, vec!["memory_block_read_cost", "view", "zzz"]);
        assert!(d.problems[0].message.contains("-3"), "{}", d.problems[0]);
    }

    #[test]
    fn unknown_versions_and_huge_links_give_defaults_with_a_message() {
        let d = decode("#v=9&rpc=2");
        assert_eq!(d.scenario, Scenario::default());
        assert!(d.problems[0].message.contains("version `9`"));
        let d = decode(&format!("#v=1&{}", "x".repeat(MAX_FRAGMENT)));
        assert_eq!(d.scenario, Scenario::default());
        assert_eq!(d.problems[0].key, "link");
        assert!(decode("#rpc=2").problems[0]
            .message
            .contains("no format version"));
    }

    fn user(tables: UserTables, queries: &str) -> Scenario {
        Scenario {
            engines: Engines::One(Engine::Postgres),
            workload: Workload::User(Box::new(UserWorkload {
                baseline: "pg-default".into(),
                tables,
                queries: queries.into(),
            })),
            ..Scenario::default()
        }
    }

    /// The example and small files travel whole; a file too large for a link travels by
    /// name (the page asks for it), and queries too long for one are left out, said so.
    #[test]
    fn a_user_workload_travels_whole_when_it_fits() {
        let q = "SELECT c.city, count(*) FROM customers c JOIN orders o ON o.cust_id = c.cust_id\n\
                 GROUP BY c.city;\nSELECT 'a&b=c%' FROM t;";
        for s in [
            user(UserTables::Example, q),
            user(
                UserTables::File {
                    name: "my shop.json".into(),
                    json: r#"[{"name":"t","rows":5}]"#.into(),
                },
                q,
            ),
        ] {
            let link = encode(&s, &EmbedOptions::default());
            let d = decode(&link);
            assert_eq!(d.problems, []);
            assert_eq!(d.scenario, s, "{link}");
        }
        let big = user(
            UserTables::File {
                name: "big.json".into(),
                json: "x".repeat(MAX_FRAGMENT).into(),
            },
            q,
        );
        let link = encode(&big, &EmbedOptions::default());
        assert!(link.len() <= MAX_FRAGMENT);
        let d = decode(&link);
        let Workload::User(u) = &d.scenario.workload else {
            panic!("{link}")
        };
        assert_eq!(
            u.tables,
            UserTables::Missing {
                name: "big.json".into()
            }
        );
        assert_eq!(u.queries, q);
        assert_eq!(d.problems.len(), 1);
        assert!(d.problems[0]
            .message
            .contains("load this scenario file again"));

        let long = format!("SELECT {} FROM t", "x, ".repeat(3000));
        let d = decode(&encode(
            &user(UserTables::Example, &long),
            &EmbedOptions::default(),
        ));
        let Workload::User(u) = &d.scenario.workload else {
            panic!()
        };
        assert_eq!(u.queries, "");
        assert!(d.problems[0].message.contains("too long for a link"));
    }

    #[test]
    fn a_user_workload_link_document_reads_back() {
        let s = user(UserTables::Example, "SELECT 1 FROM t");
        let doc = LinkFile::from_link(&s, &EmbedOptions::default());
        assert_eq!(doc.user.as_ref().unwrap().queries, "SELECT 1 FROM t");
        let fragment = doc.to_fragment().unwrap();
        assert_eq!(decode(&fragment).scenario, s);
        assert!(describe(&s).contains("1 queries on example-shop.json against pg-default"));
    }

    #[test]
    fn a_custom_machine_travels_whole_and_stays_far_below_2000_characters() {
        let mut p = costlab_sim::builtin::find("hdd-7200").unwrap();
        p.id = CUSTOM_MACHINE.into();
        p.label = "My disk & me".into();
        p.device.seq_read_mbps = 180.5;
        let s = Scenario {
            machine: CUSTOM_MACHINE.into(),
            custom_machine: Some(p.clone()),
            ..changed()
        };
        let link = encode(&s, &EmbedOptions::default());
        assert!(link.len() < 1000, "{} chars: {link}", link.len());
        let d = decode(&link);
        assert_eq!(d.problems, vec![]);
        let got = d.scenario.custom_machine.clone().unwrap();
        assert_eq!(got.device, p.device);
        assert_eq!(got.label, "My disk & me");
        assert_eq!(got.cpu_ns_per_row, p.cpu_ns_per_row);
        assert_eq!(got.buffer_pool_bytes, p.buffer_pool_bytes);
        // A custom profile that does not validate falls back to the default machine only.
        let broken = link.replace("p.seq=180.5", "p.seq=0");
        let d = decode(&broken);
        assert_eq!(d.scenario.machine, Scenario::default().machine);
        assert_eq!(d.scenario.knobs, s.knobs);
        assert!(
            d.problems
                .iter()
                .any(|x| x.key == "custom machine" && x.message.contains("seq_read_mbps")),
            "{:?}",
            d.problems
        );
    }

    #[test]
    fn link_files_round_trip_and_name_bad_fields() {
        let s = changed();
        let e = EmbedOptions {
            embed: true,
            read_only: false,
            theme: Some("dark".into()),
            knobs: vec![Knob::RandomPageCost],
        };
        let file = LinkFile::from_link(&s, &e);
        assert_eq!(file.settings["random_page_cost"], 20.4);
        assert_eq!(file.engines.as_deref(), Some("both"));
        let json = serde_json::to_string(&file).unwrap();
        let back: LinkFile = serde_json::from_str(&json).unwrap();
        let fragment = back.to_fragment().unwrap();
        assert_eq!(fragment, encode(&s, &e));
        let mut bad = file.clone();
        bad.settings.insert("random_page_cost".into(), -1.0);
        assert!(bad
            .to_fragment()
            .unwrap_err()
            .to_string()
            .contains("random_page_cost"));
        let mut bad = file;
        bad.settings.insert("no_such".into(), 1.0);
        assert!(bad.to_fragment().is_err());
    }

    #[test]
    fn an_anchor_is_not_a_scenario_nor_a_problem() {
        assert_eq!(decode("#top"), decode(""));
        assert!(decode("#top").problems.is_empty());
    }

    #[test]
    fn versions_apply_before_knobs() {
        // A value equal to the 8.0 default is not written for an 8.0 scenario and reads back.
        let mut s = Scenario {
            mysql_version: EngineVersion::Mysql80,
            knobs: costlab_model::knobs::KnobValues::defaults(
                EngineVersion::Pg18,
                EngineVersion::Mysql80,
            ),
            ..Scenario::default()
        };
        s.knobs.set(Knob::IoBlockReadCost, 2.0).unwrap();
        let link = encode(&s, &EmbedOptions::default());
        assert_eq!(link, "v=1&my=8.0&iobrc=2");
        assert_eq!(decode(&link).scenario, s);
    }

    #[test]
    fn embed_options_ride_outside_the_scenario() {
        let e = EmbedOptions {
            embed: true,
            read_only: true,
            theme: Some("dark".into()),
            knobs: vec![Knob::RandomPageCost],
        };
        let link = encode(&Scenario::default(), &e);
        assert_eq!(link, "v=1&embed=1&ro=1&theme=dark&knobs=rpc");
        let d = decode(&link);
        assert_eq!(d.embed, e);
        assert_eq!(d.scenario, Scenario::default());
    }

    /// Links written by released versions: each must open the same scenario forever.
    #[test]
    fn golden_links_of_format_1() {
        let golden: &[(&str, ScenarioOf)] = &[
            ("v=1", Scenario::default),
            (
                "v=1&e=both&rpc=20.4&mbrc=0.5&coc=0.00125&w=t1:1,25&log=1",
                changed,
            ),
            ("v=1&w=dbt3", dbt3_seed),
            ("v=1&w=dbt3&sf=10&base=mysql-5.7", dbt3_seed),
            ("v=1&e=both&mbrc=0.45&w=dbt3&sf=1&base=pg-ssd", dbt3_both),
            // Written before server settings were explicit: the seed's profiles meant the
            // seed's servers, other machines the defaults.
            ("v=1&m=wl8737-disk&w=dbt3", dbt3_seed_disk),
            ("v=1&e=pg&m=seed-nvme", pg_seed_nvme),
        ];
        for (link, want) in golden {
            let d = decode(link);
            assert_eq!(d.problems, vec![], "{link}");
            assert_eq!(d.scenario, want(), "{link}");
        }
    }

    /// Names as format 1's first encoder wrote them: it escaped only `&=#% "<>\``
    /// and controls, and left everything else raw (`+`, non-ASCII). Each opens with the
    /// name the user typed; a `+` is a plus (that encoder never wrote `+` for a space, so
    /// the old reading as a space was the bug, not a meaning to keep).
    #[test]
    fn golden_custom_machine_names_of_format_1() {
        for (link, name) in [
            ("v=1&m=custom&p.name=My%20disk%20%26%20me", "My disk & me"),
            ("v=1&m=custom&p.name=NVMe+RAID", "NVMe+RAID"),
            ("v=1&m=custom&p.name=Stra%C3%9Fe", "Straße"),
            ("v=1&m=custom&p.name=Straße 日本", "Straße 日本"),
            ("v=1&m=custom&p.name=50%25%3D%23", "50%=#"),
        ] {
            let d = decode(link);
            assert_eq!(d.problems, vec![], "{link}");
            assert_eq!(d.scenario.custom_machine.unwrap().label, name, "{link}");
        }
        // Percent signs need two hex digits.
        assert_eq!(unescape("%+F"), None);
        assert_eq!(unescape("%4"), None);
    }

    #[test]
    fn description_names_what_changed() {
        let text = describe(&changed());
        assert!(text.contains("memory_block_read_cost 0.5"), "{text}");
        assert!(text.contains("random_page_cost 20.4"), "{text}");
        assert!(text.contains("t1 from 1% to 25% of rows"), "{text}");
    }

    #[test]
    fn every_character_a_name_can_hold_travels() {
        for name in [
            "NVMe+RAID",
            "50% & more = less #1",
            "a+b c",
            "tab\there",
            "ü, 日本, 🙂",
            "%2B",
            "\u{85}\u{a0}\u{2028}\u{feff}",
        ] {
            let mut p = custom_base();
            p.label = name.into();
            let s = Scenario {
                machine: CUSTOM_MACHINE.into(),
                custom_machine: Some(p),
                ..Scenario::default()
            };
            let link = encode(&s, &EmbedOptions::default());
            let d = decode(&link);
            assert_eq!(d.problems, vec![], "{name}: {link}");
            assert_eq!(d.scenario.custom_machine.unwrap().label, name, "{link}");
        }
    }

    /// A measured machine's name as `Calibration::to_profile` writes it is over the old
    /// limit of 80 characters and travels whole; a name over [`MAX_NAME_CHARS`] comes back
    /// as its start, in a link still far below the size limit.
    #[test]
    fn long_names_travel_up_to_the_limit() {
        let measured =
            "Measured: AMD EPYC 7763 64-Core Processor, ext4 on nvme0n1 (Samsung SSD 980 PRO 1TB)";
        assert!(measured.chars().count() > 80);
        let long: String = "🙂".repeat(MAX_NAME_CHARS + 50);
        for (name, want) in [
            (measured.to_string(), measured.to_string()),
            (long.clone(), "🙂".repeat(MAX_NAME_CHARS)),
        ] {
            let mut p = custom_base();
            p.label = name;
            let s = Scenario {
                machine: CUSTOM_MACHINE.into(),
                custom_machine: Some(p),
                ..Scenario::default()
            };
            let link = encode(&s, &EmbedOptions::default());
            assert!(link.len() < MAX_FRAGMENT / 2, "{} characters", link.len());
            let d = decode(&link);
            assert_eq!(d.problems, vec![]);
            assert_eq!(d.scenario.custom_machine.unwrap().label, want);
        }
    }

    /// What `profile_from_pairs` makes of a link before its `p.*` values: the fields a link
    /// does not carry.
    fn custom_base() -> MachineProfile {
        let mut p = costlab_sim::builtin::find(CUSTOM_BASE).unwrap();
        p.id = CUSTOM_MACHINE.into();
        p.source = "edited in the playground; shared by link".into();
        p.figures.clear();
        p
    }

    fn arb_embed() -> impl proptest::strategy::Strategy<Value = EmbedOptions> {
        use proptest::prelude::*;
        (
            any::<bool>(),
            any::<bool>(),
            prop::sample::select(vec![None, Some("light"), Some("dark")]),
            prop::sample::subsequence(Knob::all().collect::<Vec<_>>(), 0..4),
        )
            .prop_map(|(embed, read_only, theme, knobs)| EmbedOptions {
                embed,
                read_only,
                theme: theme.map(String::from),
                knobs,
            })
    }

    /// Any scenario the page can hold: every string a link carries (the custom machine's
    /// name is free text, any Unicode up to the characters a link keeps; the others are
    /// ids) and every number within its allowed range.
    fn arb_scenario() -> impl proptest::strategy::Strategy<Value = Scenario> {
        use proptest::prelude::*;
        let versions = |e: Engine| {
            prop::sample::select(
                EngineVersion::ALL
                    .into_iter()
                    .filter(|v| v.engine() == e)
                    .collect::<Vec<_>>(),
            )
        };
        let knob_values = prop::collection::vec(
            (
                prop::sample::select(Knob::all().collect::<Vec<_>>()),
                0.0..=1.0f64,
            ),
            0..6,
        );
        let machine = prop_oneof![
            prop::sample::select(
                costlab_sim::builtin::profiles()
                    .into_iter()
                    .map(|p| p.id)
                    .collect::<Vec<_>>()
            )
            .prop_map(|id| (id, None)),
            (
                prop::collection::vec(any::<char>(), 0..=MAX_NAME_CHARS),
                prop::sample::select(vec![
                    Confidence::Measured,
                    Confidence::Vendor,
                    Confidence::Derived
                ]),
                1.0..1e5f64,
                0.01..1e3f64,
                any::<bool>(),
            )
                .prop_map(|(name, confidence, seq, row, direct)| {
                    let mut p = custom_base();
                    p.label = name.into_iter().collect();
                    p.confidence = confidence;
                    p.device.seq_read_mbps = seq;
                    p.cpu_ns_per_row = row;
                    p.bypass_os_cache = direct;
                    (CUSTOM_MACHINE.to_string(), Some(p))
                }),
        ];
        let workload = prop_oneof![
            // As the page makes them: the percent typed, divided by 100. The link carries the
            // percent, so a fraction made otherwise may not survive: 0.4127123474892112
            // reads back as 0.41271234748921126, and no percent text divides back to it.
            (0.0..100.0f64, 0.0..=100.0f64).prop_filter_map("empty range", |(a, b)| {
                let (from, to) = (a / 100.0, b / 100.0);
                (from < to).then_some(Workload::T1Sweep { from, to })
            }),
            (
                0.01..=1000.0f64,
                prop::sample::select(
                    costlab_model::knobs::PRESETS
                        .iter()
                        .map(|p| p.id)
                        .collect::<Vec<_>>()
                )
            )
                .prop_map(|(sf, base)| Workload::Dbt3 {
                    sf,
                    baseline: base.into()
                }),
            // Any text a user may type, with the example's tables or a small file's.
            (
                prop::sample::select(
                    costlab_model::knobs::PRESETS
                        .iter()
                        .map(|p| p.id)
                        .collect::<Vec<_>>()
                ),
                "\\PC{0,200}",
                prop::option::of(("\\PC{1,40}", "\\PC{0,300}")),
            )
                .prop_map(|(base, queries, file)| Workload::User(Box::new(
                    UserWorkload {
                        baseline: base.into(),
                        tables: match file {
                            None => UserTables::Example,
                            Some((name, json)) => UserTables::File {
                                name,
                                json: json.into(),
                            },
                        },
                        queries,
                    }
                ))),
            (0.01..=1000.0f64, 0.0..=1e9f64, any::<bool>()).prop_map(|(sf, procost, series)| {
                Workload::Ordering {
                    sf,
                    procost,
                    series,
                }
            }),
        ];
        (
            prop::sample::select(vec![
                Engines::One(Engine::Mysql),
                Engines::One(Engine::Postgres),
                Engines::Both,
            ]),
            versions(Engine::Postgres),
            versions(Engine::Mysql),
            knob_values,
            machine,
            any::<bool>(),
            workload,
            prop::sample::select(View::ALL.to_vec()),
            prop::sample::select(Knob::all().collect::<Vec<_>>()),
            (
                any::<bool>(),
                (
                    any::<(bool, bool, bool)>(),
                    prop::option::of(1u8..=40),
                    any::<(prop::sample::Index, prop::sample::Index)>(),
                    prop::option::of(any::<prop::sample::Index>()),
                ),
            ),
            (
                prop::sample::select(crate::scenario::InnodbCacheReport::ALL.to_vec()),
                any::<bool>(),
            ),
        )
            .prop_filter_map(
                "baseline of an engine not shown",
                |(
                    engines,
                    pg,
                    my,
                    knobs,
                    (machine, custom),
                    cold,
                    workload,
                    view,
                    flip,
                    (log_y, ((touched, open, regret), query, (ie, ix), iy)),
                    (icr, bka),
                )| {
                    if let Some(baseline) = workload.baseline() {
                        let p = costlab_model::knobs::Preset::find(baseline).ok()?;
                        if !engines.list().contains(&p.engine) {
                            return None;
                        }
                    }
                    let mut s = Scenario {
                        engines,
                        pg_version: pg,
                        mysql_version: my,
                        knobs: costlab_model::knobs::KnobValues::defaults(pg, my),
                        machine,
                        custom_machine: custom,
                        cache: if cold {
                            CacheState::Cold
                        } else {
                            CacheState::Warm
                        },
                        server: crate::scenario::ServerSettings {
                            innodb_cache_report: icr,
                            batched_key_access: bka,
                        },
                        workload,
                        view,
                        flip_knob: flip,
                        log_y,
                        diagram: touched.then(|| {
                            let engine = *ie.get(&engines.list());
                            let axes: Vec<Knob> = DiagramSpec::axis_knobs(engine).collect();
                            let x = *ix.get(&axes);
                            DiagramSpec {
                                open,
                                engine,
                                query,
                                x,
                                y: iy
                                    .map(|i| *i.get(&axes))
                                    .filter(|y| *y != x && query.is_some()),
                                regret,
                            }
                        }),
                    };
                    for (k, t) in knobs {
                        let d = k.def();
                        // Knobs that only take some values in their range keep the default.
                        let _ = s.knobs.set(k, d.min + t * (d.max - d.min));
                    }
                    Some(s)
                },
            )
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]

        /// Encode then decode gives back the same scenario and embed options, whatever the
        /// user typed or chose.
        #[test]
        fn any_scenario_round_trips(s in arb_scenario(), e in arb_embed()) {
            let link = encode(&s, &e);
            let d = decode(&link);
            proptest::prop_assert_eq!(&d.problems, &vec![], "{}", link);
            proptest::prop_assert_eq!(&d.scenario, &s, "{}", link);
            proptest::prop_assert_eq!(&d.embed, &e, "{}", link);
        }

        /// The first load's reading: the same as the full one for every t1 link, and no
        /// reading at all (the full playground's) for the rest.
        #[test]
        fn t1_reading_matches_or_declines(s in arb_scenario(), e in arb_embed()) {
            let link = encode(&s, &e);
            let t1 = matches!(s.workload, Workload::T1Sweep { .. }) && s.diagram.is_none();
            proptest::prop_assert_eq!(needs_more_than_t1(&link), !t1, "{}", link);
            match decode_t1(&link) {
                Some(d) => proptest::prop_assert_eq!(d, decode(&link), "{}", link),
                None => proptest::prop_assert!(!t1, "{}", link),
            }
        }
    }

    /// Inputs per decoder property: a link is untrusted input, so these run in every test
    /// run (5,000 links in all, a few seconds in a debug build).
    const DECODER_CASES: u32 = 2_500;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(DECODER_CASES))]

        #[test]
        fn decoder_never_panics(s in "\\PC{0,300}") {
            let _ = decode(&s);
        }

        #[test]
        fn t1_decoder_reads_linkish_input_as_the_full_one(s in "(v=1|&|=|e=|mbrc=|rpc=|w=t1:|w=dbt3|w=user|dg=|sf=|base=|mysql-5.7|pg-ssd|,|%[0-9A-Fa-f]{0,2}|[a-z0-9.-]{1,6}|view=|knobs=|pg=|my=){0,40}") {
            match decode_t1(&s) {
                Some(d) => proptest::prop_assert_eq!(d, decode(&s)),
                None => proptest::prop_assert!(needs_more_than_t1(&s)),
            }
        }

        #[test]
        fn decoder_never_panics_on_linkish_input(s in "(v=1|&|=|e=|mbrc=|rpc=|w=t1:|w=dbt3|sf=|base=|mysql-5.7|pg-ssd|,|%[0-9A-Fa-f]{0,2}|[a-z0-9.-]{1,6}|view=|knobs=|pg=|my=){0,40}") {
            let d = decode(&s);
            proptest::prop_assert!(d.scenario.validate().is_ok());
        }
    }
}
