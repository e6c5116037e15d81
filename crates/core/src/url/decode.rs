//! Reading a fragment back into a scenario: unescaping, the version's keys, every bad
//! value named and replaced by its default (format 1; the first-load subset `t1`).

use super::format::*;
use super::profile::*;
use crate::scenario::{
    CacheState, Engines, InnodbCacheReport, Scenario, ServerSettings, UserTables, UserWorkload,
    View, Workload, CUSTOM_MACHINE,
};
use costlab_model::knobs::{Engine, KNOBS};

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
pub(super) fn decode_as<const ALL: bool>(fragment: &str) -> Decoded {
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

/// The pairs of a version 1 link; with `ALL` false, only the t1 sweep's (see [`decode_t1`]).
pub(super) fn decode_v1<const ALL: bool>(
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
