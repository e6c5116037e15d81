//! A custom machine profile in a link: its figures as `key=value` pairs over a built-in
//! base, and back.

use super::format::*;
use crate::scenario::CUSTOM_MACHINE;
use costlab_sim::profile::{Confidence, MachineProfile, QdPoint};

/// Base of a custom profile from a link: fields the link leaves out keep these values.
pub(super) const CUSTOM_BASE: &str = "nvme-consumer-gen4";

pub(super) fn qd_curve(points: &[QdPoint]) -> String {
    points
        .iter()
        .map(|p| format!("{}:{}", num(p.queue_depth), num(p.iops)))
        .collect::<Vec<_>>()
        .join(",")
}

pub(super) fn parse_qd_curve(v: &str) -> Option<Vec<QdPoint>> {
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
pub(super) fn profile_pairs(p: &MachineProfile) -> Vec<(String, String)> {
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

pub(super) fn confidence_key(c: Confidence) -> &'static str {
    c.id()
}

pub(super) fn profile_from_pairs(
    pairs: &[(String, String)],
) -> costlab_model::Result<MachineProfile> {
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
