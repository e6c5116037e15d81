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

mod decode;
mod encode;
mod format;
mod link_file;
mod profile;
#[cfg(test)]
mod tests;

pub use decode::{decode, decode_t1, needs_more_than_t1};
pub use encode::encode;
pub use format::*;
pub use link_file::*;

use crate::scenario::{CacheState, Scenario, ServerSettings, Workload};
use costlab_model::knobs::Engine;

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
