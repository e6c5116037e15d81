//! A link as a JSON document (`costlab url encode|decode`): the same settings as the
//! fragment, spelled out per workload section (the plan diagram, DBT3, ordering, the
//! user's workload).

use super::decode::*;
use super::encode::*;
use super::format::*;
use super::profile::*;
use crate::scenario::{DiagramSpec, Engines, Scenario, Workload, CUSTOM_MACHINE};
use costlab_model::knobs::Knob;
use costlab_sim::profile::MachineProfile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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

pub(super) fn put_user(pairs: &mut Vec<(String, String)>, k: &str, v: &Option<String>) {
    if let Some(v) = v {
        pairs.push((k.into(), v.clone()));
    }
}
