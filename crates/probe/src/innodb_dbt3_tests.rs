//! DBT3's InnoDB statistics as a real InnoDB makes them, next to the built-in catalog's
//! MySQL side (issue 15): a private MariaDB 10.11 (its InnoDB's persistent statistics and
//! index dives are InnoDB's code; its optimizer is not MySQL's, and none is asked here)
//! loads tpchgen's rows at SF 0.1 in file order with the kit's types, builds the catalog's
//! secondary indexes after the load (sorted builds), and runs ANALYZE TABLE.
//!
//! What is compared, each a prediction of the catalog (nothing here is fitted to it):
//! - the row count InnoDB estimates (n_rows) and rec_per_key (n_rows / n_diff of each key
//!   prefix): both come from 20 sampled leaf pages per prefix, so they move from one
//!   ANALYZE to the next; the catalog models their expectation and the test takes the
//!   median of [`ANALYZES`] runs;
//! - leaf pages of every index;
//! - what records_in_range reports (EXPLAIN's rows for a forced range) for the date ranges
//!   of Q4, Q5, Q6 and Q12, against the MySQL model's own dive (the ×2 and the cap of
//!   btr_estimate_n_rows_in_range), far from the true counts on both sides.
//!
//! Known and kept out of the assertions, printed with the rest:
//! - partsupp's clustered index: tpchgen writes each part's four suppliers out of key
//!   order, so the load splits pages in the middle (72 rows a page at SF 1 where 15/16 full
//!   pages hold 101); the catalog assumes pages filled in key order. Its leaf pages, its
//!   sampled row count (-10 % to +8 % at SF 0.1 from one set of ANALYZEs to the next) and
//!   so its rec_per_key follow from that.
//! - an index that still lives in its segment's 32 fragment pages reports 1 leaf page
//!   (supplier's and customer's at SF 0.1).
//! - records_in_range on MariaDB runs about 9 % above the dive the model follows (MySQL's
//!   btr0cur.cc): 2.19 times the true count for a year of l_shipdate at SF 1, where the
//!   model's dive gives 2.00.

use super::{programs, Server};
use costlab_core::knobs::{EngineVersion, KnobValues};
use costlab_core::query::Query;
use costlab_core::workload::dbt3::catalog::dbt3;
use std::collections::BTreeMap;
use std::fmt::Write as _;

const SF: f64 = 0.1;

/// ANALYZE TABLE runs whose median each sampled statistic is.
const ANALYZES: usize = 7;

/// The kit's MySQL types (INTEGER keys, DECIMAL(15,2), DATE, CHAR and VARCHAR).
const DDL: &str = "
CREATE DATABASE dbt3; USE dbt3;
CREATE TABLE region (r_regionkey INT NOT NULL, r_name CHAR(25) NOT NULL, r_comment VARCHAR(152),
  PRIMARY KEY (r_regionkey)) ENGINE=InnoDB;
CREATE TABLE nation (n_nationkey INT NOT NULL, n_name CHAR(25) NOT NULL, n_regionkey INT NOT NULL,
  n_comment VARCHAR(152), PRIMARY KEY (n_nationkey)) ENGINE=InnoDB;
CREATE TABLE part (p_partkey INT NOT NULL, p_name VARCHAR(55) NOT NULL, p_mfgr CHAR(25) NOT NULL,
  p_brand CHAR(10) NOT NULL, p_type VARCHAR(25) NOT NULL, p_size INT NOT NULL,
  p_container CHAR(10) NOT NULL, p_retailprice DECIMAL(15,2) NOT NULL,
  p_comment VARCHAR(23) NOT NULL, PRIMARY KEY (p_partkey)) ENGINE=InnoDB;
CREATE TABLE supplier (s_suppkey INT NOT NULL, s_name CHAR(25) NOT NULL,
  s_address VARCHAR(40) NOT NULL, s_nationkey INT NOT NULL, s_phone CHAR(15) NOT NULL,
  s_acctbal DECIMAL(15,2) NOT NULL, s_comment VARCHAR(101) NOT NULL,
  PRIMARY KEY (s_suppkey)) ENGINE=InnoDB;
CREATE TABLE partsupp (ps_partkey INT NOT NULL, ps_suppkey INT NOT NULL,
  ps_availqty INT NOT NULL, ps_supplycost DECIMAL(15,2) NOT NULL,
  ps_comment VARCHAR(199) NOT NULL, PRIMARY KEY (ps_partkey, ps_suppkey)) ENGINE=InnoDB;
CREATE TABLE customer (c_custkey INT NOT NULL, c_name VARCHAR(25) NOT NULL,
  c_address VARCHAR(40) NOT NULL, c_nationkey INT NOT NULL, c_phone CHAR(15) NOT NULL,
  c_acctbal DECIMAL(15,2) NOT NULL, c_mktsegment CHAR(10) NOT NULL,
  c_comment VARCHAR(117) NOT NULL, PRIMARY KEY (c_custkey)) ENGINE=InnoDB;
CREATE TABLE orders (o_orderkey INT NOT NULL, o_custkey INT NOT NULL,
  o_orderstatus CHAR(1) NOT NULL, o_totalprice DECIMAL(15,2) NOT NULL,
  o_orderdate DATE NOT NULL, o_orderpriority CHAR(15) NOT NULL, o_clerk CHAR(15) NOT NULL,
  o_shippriority INT NOT NULL, o_comment VARCHAR(79) NOT NULL,
  PRIMARY KEY (o_orderkey)) ENGINE=InnoDB;
CREATE TABLE lineitem (l_orderkey INT NOT NULL, l_partkey INT NOT NULL, l_suppkey INT NOT NULL,
  l_linenumber INT NOT NULL, l_quantity DECIMAL(15,2) NOT NULL,
  l_extendedprice DECIMAL(15,2) NOT NULL, l_discount DECIMAL(15,2) NOT NULL,
  l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL, l_linestatus CHAR(1) NOT NULL,
  l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, l_receiptdate DATE NOT NULL,
  l_shipinstruct CHAR(25) NOT NULL, l_shipmode CHAR(10) NOT NULL,
  l_comment VARCHAR(44) NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber)) ENGINE=InnoDB;
";

/// The date ranges of Q4/Q5 (orders), Q6 and Q12 (lineitem), as the queries have them.
const RANGES: [(&str, &str, &str); 4] = [
    (
        "orders",
        "i_o_orderdate",
        "o_orderdate >= DATE '1993-07-01' AND o_orderdate < DATE '1993-10-01'",
    ),
    (
        "orders",
        "i_o_orderdate",
        "o_orderdate >= DATE '1994-01-01' AND o_orderdate < DATE '1995-01-01'",
    ),
    (
        "lineitem",
        "i_l_shipdate",
        "l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'",
    ),
    (
        "lineitem",
        "i_l_receiptdate",
        "l_receiptdate >= DATE '1994-01-01' AND l_receiptdate < DATE '1995-01-01'",
    ),
];

/// Writes `rows` as a tbl file without dbgen's trailing delimiter.
fn write_tbl<T: std::fmt::Display>(
    path: &std::path::Path,
    rows: impl Iterator<Item = T>,
) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut line = String::new();
    for r in rows {
        line.clear();
        let _ = write!(line, "{r}");
        if line.ends_with('|') {
            line.pop();
        }
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    w.flush()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[test]
fn dbt3_statistics_as_a_real_innodb_makes_them() {
    use tpchgen::generators::*;
    let progs = programs(None).expect("mariadb-server is installed (cargo xtask test installs it)");
    let parent = tempfile::tempdir().expect("tempdir");
    let mut server = Server::install(progs, parent.path()).expect("install a private MariaDB");
    server.start(256 << 20).expect("start it");
    server.sql(DDL).expect("the schema");
    let dir = server.dir.path().to_path_buf();
    let files = dir.join("tbl");
    std::fs::create_dir(&files).expect("mkdir");
    let tbl = |name: &str| files.join(format!("{name}.tbl"));
    write_tbl(&tbl("region"), RegionGenerator::new(SF, 1, 1).iter()).unwrap();
    write_tbl(&tbl("nation"), NationGenerator::new(SF, 1, 1).iter()).unwrap();
    write_tbl(&tbl("part"), PartGenerator::new(SF, 1, 1).iter()).unwrap();
    write_tbl(&tbl("supplier"), SupplierGenerator::new(SF, 1, 1).iter()).unwrap();
    write_tbl(&tbl("partsupp"), PartSuppGenerator::new(SF, 1, 1).iter()).unwrap();
    write_tbl(&tbl("customer"), CustomerGenerator::new(SF, 1, 1).iter()).unwrap();
    write_tbl(&tbl("orders"), OrderGenerator::new(SF, 1, 1).iter()).unwrap();
    write_tbl(&tbl("lineitem"), LineItemGenerator::new(SF, 1, 1).iter()).unwrap();
    if server.as_mysql {
        let st = std::process::Command::new("chown")
            .args(["-R", "mysql:mysql"])
            .arg(&files)
            .status()
            .expect("chown");
        assert!(st.success());
    }
    let cat = dbt3(SF).expect("the catalog at SF 0.1");
    let mut script = String::from("USE dbt3;\n");
    for t in &cat.mysql {
        let _ = writeln!(
            script,
            "LOAD DATA INFILE '{}' INTO TABLE {} FIELDS TERMINATED BY '|';",
            tbl(&t.name).display(),
            t.name
        );
    }
    // The catalog's secondary indexes, built after the load (sorted builds).
    for t in &cat.mysql {
        let adds: Vec<String> = t
            .indexes
            .iter()
            .filter(|i| !i.primary)
            .map(|i| format!("ADD INDEX {} ({})", i.name, i.columns.join(", ")))
            .collect();
        if !adds.is_empty() {
            let _ = writeln!(script, "ALTER TABLE {} {};", t.name, adds.join(", "));
        }
    }
    server.sql(&script).expect("load and index");
    let names: Vec<&str> = cat.mysql.iter().map(|t| t.name.as_str()).collect();
    // Sampled statistics, per ANALYZE: n_rows by table, n_diff by (table, index, prefix).
    let mut n_rows: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut n_diff: BTreeMap<(String, String, usize), Vec<f64>> = BTreeMap::new();
    let mut leaves: BTreeMap<(String, String), f64> = BTreeMap::new();
    for _ in 0..ANALYZES {
        server
            .sql(&format!("USE dbt3; ANALYZE TABLE {};", names.join(", ")))
            .expect("ANALYZE TABLE");
        let out = server
            .sql(
                "SELECT table_name, n_rows FROM mysql.innodb_table_stats \
                 WHERE database_name = 'dbt3';",
            )
            .unwrap();
        for l in out.lines() {
            let c: Vec<&str> = l.split('\t').collect();
            n_rows
                .entry(c[0].to_string())
                .or_default()
                .push(c[1].trim().parse().unwrap());
        }
        let out = server
            .sql(
                "SELECT table_name, index_name, stat_name, stat_value \
                 FROM mysql.innodb_index_stats WHERE database_name = 'dbt3';",
            )
            .unwrap();
        for l in out.lines() {
            let c: Vec<&str> = l.split('\t').collect();
            let v: f64 = c[3].trim().parse().unwrap();
            if let Some(k) = c[2].strip_prefix("n_diff_pfx") {
                n_diff
                    .entry((c[0].into(), c[1].into(), k.parse().unwrap()))
                    .or_default()
                    .push(v);
            } else if c[2] == "n_leaf_pages" {
                leaves.insert((c[0].into(), c[1].into()), v);
            }
        }
    }
    let mut report = String::from(
        "what                                       model       InnoDB   InnoDB/model\n",
    );
    let mut misses = Vec::new();
    let mut check = |what: String, model: f64, real: f64, tol: Option<f64>| {
        let ratio = real / model;
        let _ = writeln!(
            report,
            "{what:<40} {model:>10.1} {real:>12.1}   {ratio:.3}{}",
            if tol.is_none() {
                "  (known, not asserted)"
            } else {
                ""
            }
        );
        if let Some(tol) = tol {
            if (ratio - 1.0).abs() > tol {
                misses.push(format!("{what}: model {model:.1}, InnoDB {real:.1}"));
            }
        }
    };
    for t in &cat.mysql {
        let m = t.mysql.as_ref().unwrap();
        let rows = median(n_rows[&t.name].clone());
        // partsupp's half-full split pages (see the top) make the sampled row count swing.
        let split = t.name == "partsupp";
        check(
            format!("{} n_rows", t.name),
            m.records,
            rows,
            (!split).then_some(0.05),
        );
        for ix in &t.indexes {
            let mi = ix.mysql.as_ref().unwrap();
            let key = (t.name.clone(), ix.name.clone());
            // partsupp's rec_per_key is its sampled n_rows over n_diff: as noisy as n_rows.
            let known = split;
            let leaf = leaves[&key];
            // An index still in its segment's 32 fragment pages reports 1 leaf page;
            // partsupp's clustered leaves are split pages (see the top).
            let unasserted = mi.leaf_pages < 32.0 || (split && ix.primary);
            check(
                format!("{}.{} leaf pages", t.name, ix.name),
                mi.leaf_pages,
                leaf,
                (!unasserted).then_some(0.12),
            );
            for (k, rpk) in mi.rec_per_key.iter().enumerate() {
                // Unique prefixes are 1 on both sides by definition.
                if *rpk < 1.5 {
                    continue;
                }
                let d = median(n_diff[&(t.name.clone(), ix.name.clone(), k + 1)].clone());
                check(
                    format!("{}.{} rec_per_key[{}]", t.name, ix.name, k + 1),
                    *rpk,
                    rows / d,
                    (!known).then_some(0.12),
                );
            }
        }
    }
    // records_in_range: EXPLAIN's rows for the range forced on its index, against the
    // range the MySQL model plans on the catalog's table (its own dive).
    let knobs = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57);
    for (table, index, cond) in RANGES {
        let t = cat.mysql.iter().find(|t| t.name == table).unwrap();
        let q = Query::parse(&format!("SELECT * FROM {table} WHERE {cond}")).unwrap();
        let planned = costlab_core::mysql::plan(t, &q, &knobs, &Default::default()).unwrap();
        let model = planned
            .find(&format!("range:{index}"))
            .unwrap_or_else(|| panic!("no range on {index}"))
            .plan
            .rows;
        let sql_cond = cond.replace("DATE ", "");
        let explain = server
            .sql(&format!(
                "USE dbt3; EXPLAIN SELECT count(*) FROM {table} FORCE INDEX ({index}) \
                 WHERE {sql_cond};"
            ))
            .unwrap();
        let real: f64 = explain
            .lines()
            .next()
            .and_then(|l| l.split('\t').nth(8))
            .and_then(|r| r.trim().parse().ok())
            .unwrap_or_else(|| panic!("EXPLAIN's rows: {explain}"));
        let truth: f64 = server
            .sql(&format!(
                "USE dbt3; SELECT count(*) FROM {table} WHERE {sql_cond};"
            ))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // Where the server doubles its extrapolation, the model must too (a model that
        // counted true rows would be half the server's there).
        if real > 1.5 * truth {
            assert!(
                model > 1.5 * truth,
                "{index}: model {model}, InnoDB {real}, true {truth}"
            );
        }
        check(
            format!("records_in_range {index} ({:.0} true)", truth),
            model,
            real,
            Some(0.15),
        );
    }
    println!("{report}");
    assert!(
        misses.is_empty(),
        "the catalog's InnoDB statistics differ from a real InnoDB's:\n{}\n{report}",
        misses.join("\n")
    );
}
