//! Writing a scenario as a fragment: the non-default `key=value` pairs, percent-encoded.

use super::format::*;
use super::profile::*;
use crate::scenario::{Scenario, ServerSettings, UserTables, Workload, CUSTOM_MACHINE};

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
