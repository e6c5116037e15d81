use super::decode::*;
use super::encode::*;
use super::format::*;
use super::link_file::*;
use super::profile::*;
use super::*;
use crate::scenario::{
    CacheState, DiagramSpec, Engines, InnodbCacheReport, Scenario, ServerSettings, UserTables,
    UserWorkload, View, Workload, CUSTOM_MACHINE,
};
use costlab_model::knobs::{Engine, EngineVersion, Knob};
use costlab_sim::profile::{Confidence, MachineProfile};

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
        json.contains(r#""ordering":{"scale_factor":1.0,"function_cost":100.0,"series":false}"#),
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
            .prop_map(
                |(base, queries, file)| Workload::User(Box::new(UserWorkload {
                    baseline: base.into(),
                    tables: match file {
                        None => UserTables::Example,
                        Some((name, json)) => UserTables::File {
                            name,
                            json: json.into(),
                        },
                    },
                    queries,
                }))
            ),
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
