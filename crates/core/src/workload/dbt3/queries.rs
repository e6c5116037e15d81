//! The 22 DBT3 queries with their validation parameters (`dbt3.md` §3) as query blocks
//! ([`crate::block`]) that both engines' join planners read.
//!
//! Simplifications (documented, not hidden): Q19's join predicate appears in every OR
//! branch; MySQL extracts it for ref access (`merge_key_fields`) and PostgreSQL pulls
//! common OR arms up, so it is a join edge here and the rest of the OR one filter. Q13's
//! LEFT JOIN is an order constraint (`outer_join_after`) with the ON filter as a filter of
//! orders; its NULL-extended rows are not counted. Q13's
//! second aggregation level and the expressions of Q7/Q8/Q9 (merged derived tables) only
//! appear as grouping flags.

use crate::block::*;
use crate::catalog::Value;
use crate::error::{Error, Result};
use crate::plan::Name;
use crate::query::{CmpOp, Predicate};
use crate::workload::dbt3::catalog::check_sf;
use crate::workload::dbt3::sql::SQL;

// ---- builder ---------------------------------------------------------------------------

#[derive(Default)]
struct B {
    q: QueryBlock,
}

fn day(s: &str) -> Value {
    Value::Num(crate::date::parse(s).unwrap_or(0) as f64)
}

fn text(s: &str) -> Value {
    Value::Text(s.into())
}

fn cmp(column: &str, op: CmpOp, value: Value) -> Predicate {
    Predicate::Cmp {
        column: column.into(),
        op,
        value,
    }
}

fn eq_text(column: &str, v: &str) -> Predicate {
    cmp(column, CmpOp::Eq, text(v))
}

fn between(column: &str, lo: Value, hi: Value) -> Predicate {
    Predicate::Between {
        column: column.into(),
        lo,
        hi,
    }
}

fn in_text(column: &str, vs: &[&str]) -> Predicate {
    Predicate::In {
        column: column.into(),
        values: vs.iter().map(|v| text(v)).collect(),
    }
}

impl B {
    fn t(&mut self, alias: &'static str, table: &'static str, uses: &[&'static str]) -> usize {
        self.q.tables.push(TableRef {
            alias: Name::from_static(alias),
            table: Name::from_static(table),
            source: Source::Base,
            uses: uses.iter().map(|u| Name::from_static(u)).collect(),
            preds: Vec::new(),
            nest: None,
            outer_join_after: Vec::new(),
        });
        self.q.tables.len() - 1
    }
    fn p(&mut self, t: usize, p: Predicate) {
        self.q.tables[t].preds.push(p);
    }
    /// `lo <= column < hi` on dates.
    fn dates(&mut self, t: usize, column: &str, lo: &str, hi: &str) {
        self.p(t, cmp(column, CmpOp::Ge, day(lo)));
        self.p(t, cmp(column, CmpOp::Lt, day(hi)));
    }
    fn j(&mut self, a: usize, ac: &'static str, b: usize, bc: &'static str) {
        self.q.joins.push(JoinEdge {
            a: c(a, ac),
            b: c(b, bc),
        });
    }
    fn f(&mut self, tables: &[usize], sql: &'static str, kind: FilterKind, true_sel: f64) -> usize {
        self.q.filters.push(Filter {
            sql: Name::from_static(sql),
            tables: tables.to_vec(),
            kind,
            true_selectivity: true_sel,
        });
        self.q.filters.len() - 1
    }
    fn nest(&mut self, kind: NestKind, origin: NestOrigin, tables: &[usize], true_match: f64) {
        let n = self.q.nests.len();
        for &t in tables {
            self.q.tables[t].nest = Some(n);
        }
        self.q.nests.push(Nest {
            kind,
            origin,
            tables: tables.to_vec(),
            true_match,
        });
    }
    fn group(&mut self, cols: &[(usize, &'static str)]) {
        self.q.group_by = cols
            .iter()
            .map(|&(table, column)| c(table, column))
            .collect();
    }
    fn order(&mut self, cols: &[(usize, &'static str)]) {
        self.q.order_by = cols
            .iter()
            .map(|&(table, column)| c(table, column))
            .collect();
    }
    fn done(self) -> QueryBlock {
        self.q
    }
}

fn c(table: usize, column: &'static str) -> ColRef {
    ColRef {
        table,
        column: Name::from_static(column),
    }
}

// ---- calibration queries ---------------------------------------------------------------

/// The executor calibration's queries of hashing and sorting, by name: blocks for the join
/// planner over the probe's calibration table `cal` (`a` = 0 .. n-1, `b` random in 0 .. n,
/// `c` = `a` % 1000; n = 400,000), never over DBT3's tables, so that the figures they give
/// predict the DBT3 queries rather than fit them. Each stays within work_mem's 4 MB (no
/// spill). `None`: not one of them.
pub fn calibration_query(name: &str) -> Option<JoinQuery> {
    let (sql, block) = match name {
        // 100,000 build rows (c1, megabytes: beyond the CPU's caches), 400,000 probe rows
        // (c2) in random order; c2.b meets c1.a for a quarter.
        CAL_HASH_JOIN => (
            "SELECT count(*) FROM cal c1 JOIN cal c2 ON c2.b = c1.a WHERE c1.a < 100000",
            cal_self_join(100_000.0),
        ),
        // 1,000 build rows (a table the CPU's caches hold), the same 400,000 probes, of
        // which 1,000 meet a row.
        CAL_HASH_JOIN_SMALL => (
            "SELECT count(*) FROM cal c1 JOIN cal c2 ON c2.b = c1.a WHERE c1.a < 1000",
            cal_self_join(1000.0),
        ),
        // 100,000 rows into 1,000 groups.
        CAL_HASH_AGGREGATE => ("SELECT c, count(*) FROM cal WHERE a < 100000 GROUP BY c", {
            let mut b = B::default();
            let t = b.t("cal", "cal", &["a", "c"]);
            b.p(t, cmp("a", CmpOp::Lt, Value::Num(100_000.0)));
            b.group(&[(t, "c")]);
            b.q.true_groups = 1000.0;
            b.done()
        }),
        // 50,000 rows sorted by a random key: about 780,000 comparisons.
        CAL_SORT => ("SELECT a, b FROM cal WHERE a < 50000 ORDER BY b", {
            let mut b = B::default();
            let t = b.t("cal", "cal", &["a", "b"]);
            b.p(t, cmp("a", CmpOp::Lt, Value::Num(50_000.0)));
            b.order(&[(t, "b")]);
            b.done()
        }),
        _ => return None,
    };
    Some(JoinQuery {
        number: 0,
        title: "executor calibration",
        sql,
        block,
    })
}

/// `SELECT count(*) FROM cal c1 JOIN cal c2 ON c2.b = c1.a WHERE c1.a < build`.
fn cal_self_join(build: f64) -> QueryBlock {
    let mut b = B::default();
    let c1 = b.t("c1", "cal", &["a"]);
    let c2 = b.t("c2", "cal", &["b"]);
    b.j(c1, "a", c2, "b");
    b.p(c1, cmp("a", CmpOp::Lt, Value::Num(build)));
    b.q.scalar_aggregate = true;
    b.q.true_groups = 1.0;
    b.done()
}

/// Names of the calibration queries [`calibration_query`] knows.
pub const CAL_HASH_JOIN: &str = "cal hash join";
pub const CAL_HASH_JOIN_SMALL: &str = "cal hash join small";
pub const CAL_HASH_AGGREGATE: &str = "cal hash aggregate";
pub const CAL_SORT: &str = "cal sort";

// ---- the queries -----------------------------------------------------------------------

/// Query `n` (1..=22) at scale factor `sf` (Q11's fraction is 0.0001/SF).
pub fn query(n: u8, sf: f64) -> Result<JoinQuery> {
    check_sf(sf)?;
    if !(1..=22).contains(&n) {
        return Err(Error::invalid(
            "DBT3 query",
            format!("{n} is not a query number; use 1 to 22"),
        ));
    }
    let (_, title, sql) = SQL[n as usize - 1];
    let block = match n {
        1 => q1(),
        2 => q2(),
        3 => q3(),
        4 => q4(),
        5 => q5(),
        6 => q6(),
        7 => q7(),
        8 => q8(),
        9 => q9(),
        10 => q10(),
        11 => q11(),
        12 => q12(),
        13 => q13(),
        14 => q14(),
        15 => q15(),
        16 => q16(),
        17 => q17(),
        18 => q18(),
        19 => q19(),
        20 => q20(),
        21 => q21(),
        _ => q22(),
    };
    let mut block = block;
    scale_true_groups(&mut block, sf);
    Ok(JoinQuery {
        number: n,
        title,
        sql,
        block,
    })
}

/// True group counts given at SF 1 that grow with the data, at scale factor `sf`
/// (sub-selects and derived tables too).
fn scale_true_groups(block: &mut QueryBlock, sf: f64) {
    if block.groups_scale_with_sf {
        block.true_groups *= sf;
        block.groups_scale_with_sf = false;
    }
    for t in &mut block.tables {
        if let Source::Derived { block, .. } = &mut t.source {
            scale_true_groups(block, sf);
        }
    }
    for s in &mut block.subqueries {
        scale_true_groups(&mut s.block, sf);
    }
}

/// All 22 queries.
pub fn all(sf: f64) -> Result<Vec<JoinQuery>> {
    (1..=22).map(|n| query(n, sf)).collect()
}

const L_AGG: &[&str] = &[
    "l_orderkey",
    "l_extendedprice",
    "l_discount",
    "l_suppkey",
    "l_partkey",
];

fn q1() -> QueryBlock {
    let mut b = B::default();
    let l = b.t(
        "lineitem",
        "lineitem",
        &[
            "l_returnflag",
            "l_linestatus",
            "l_quantity",
            "l_extendedprice",
            "l_discount",
            "l_tax",
            "l_shipdate",
        ],
    );
    b.p(l, cmp("l_shipdate", CmpOp::Le, day("1998-09-02")));
    b.group(&[(l, "l_returnflag"), (l, "l_linestatus")]);
    b.order(&[(l, "l_returnflag"), (l, "l_linestatus")]);
    b.q.true_groups = 4.0;
    b.done()
}

fn q2() -> QueryBlock {
    let mut b = B::default();
    let p = b.t("part", "part", &["p_partkey", "p_mfgr", "p_size", "p_type"]);
    let s = b.t(
        "supplier",
        "supplier",
        &[
            "s_suppkey",
            "s_acctbal",
            "s_name",
            "s_address",
            "s_phone",
            "s_comment",
            "s_nationkey",
        ],
    );
    let ps = b.t(
        "partsupp",
        "partsupp",
        &["ps_partkey", "ps_suppkey", "ps_supplycost"],
    );
    let n = b.t(
        "nation",
        "nation",
        &["n_nationkey", "n_name", "n_regionkey"],
    );
    let r = b.t("region", "region", &["r_regionkey", "r_name"]);
    b.j(p, "p_partkey", ps, "ps_partkey");
    b.j(s, "s_suppkey", ps, "ps_suppkey");
    b.j(s, "s_nationkey", n, "n_nationkey");
    b.j(n, "n_regionkey", r, "r_regionkey");
    b.p(p, cmp("p_size", CmpOp::Eq, Value::Num(15.0)));
    b.p(r, eq_text("r_name", "EUROPE"));
    b.f(&[p], "p_type LIKE '%BRASS'", FilterKind::Like, 0.2);
    let f = b.f(
        &[ps, p],
        "ps_supplycost = (SELECT MIN(ps_supplycost) ...)",
        FilterKind::Eq,
        460.0 / 642.0,
    );
    // The correlated MIN per part over the four partsupp rows of a European supplier.
    let mut sb = B::default();
    let ps2 = sb.t(
        "partsupp",
        "partsupp",
        &["ps_partkey", "ps_suppkey", "ps_supplycost"],
    );
    let s2 = sb.t("supplier", "supplier", &["s_suppkey", "s_nationkey"]);
    let n2 = sb.t("nation", "nation", &["n_nationkey", "n_regionkey"]);
    let r2 = sb.t("region", "region", &["r_regionkey", "r_name"]);
    sb.j(s2, "s_suppkey", ps2, "ps_suppkey");
    sb.j(s2, "s_nationkey", n2, "n_nationkey");
    sb.j(n2, "n_regionkey", r2, "r_regionkey");
    sb.p(r2, eq_text("r_name", "EUROPE"));
    sb.q.scalar_aggregate = true;
    b.q.subqueries.push(Subquery {
        kind: SubqueryKind::Scalar,
        block: sb.done(),
        correlation: vec![(c(ps2, "ps_partkey"), c(p, "p_partkey"))],
        filter: Some(f),
    });
    b.order(&[
        (s, "s_acctbal"),
        (n, "n_name"),
        (s, "s_name"),
        (p, "p_partkey"),
    ]);
    b.q.limit = Some(100.0);
    b.q.true_groups = 460.0;
    b.q.groups_scale_with_sf = true;
    b.done()
}

fn q3() -> QueryBlock {
    let mut b = B::default();
    let cu = b.t("customer", "customer", &["c_custkey", "c_mktsegment"]);
    let o = b.t(
        "orders",
        "orders",
        &["o_orderkey", "o_custkey", "o_orderdate", "o_shippriority"],
    );
    let l = b.t("lineitem", "lineitem", &[L_AGG, &["l_shipdate"]].concat());
    b.j(cu, "c_custkey", o, "o_custkey");
    b.j(l, "l_orderkey", o, "o_orderkey");
    b.p(cu, eq_text("c_mktsegment", "BUILDING"));
    b.p(o, cmp("o_orderdate", CmpOp::Lt, day("1995-03-15")));
    b.p(l, cmp("l_shipdate", CmpOp::Gt, day("1995-03-15")));
    b.group(&[(l, "l_orderkey"), (o, "o_orderdate"), (o, "o_shippriority")]);
    b.q.order_by_expression = true;
    b.q.limit = Some(10.0);
    b.q.true_groups = 11_620.0;
    b.q.groups_scale_with_sf = true;
    b.done()
}

fn q4() -> QueryBlock {
    let mut b = B::default();
    let o = b.t(
        "orders",
        "orders",
        &["o_orderkey", "o_orderdate", "o_orderpriority"],
    );
    let l = b.t(
        "lineitem",
        "lineitem",
        &["l_orderkey", "l_commitdate", "l_receiptdate"],
    );
    b.dates(o, "o_orderdate", "1993-07-01", "1993-10-01");
    b.j(l, "l_orderkey", o, "o_orderkey");
    b.f(
        &[l],
        "l_commitdate < l_receiptdate",
        FilterKind::Ineq,
        0.6321,
    );
    b.nest(NestKind::Semi, NestOrigin::Exists, &[l], 0.918);
    b.group(&[(o, "o_orderpriority")]);
    b.order(&[(o, "o_orderpriority")]);
    b.q.true_groups = 5.0;
    b.done()
}

fn q5() -> QueryBlock {
    let mut b = B::default();
    let cu = b.t("customer", "customer", &["c_custkey", "c_nationkey"]);
    let o = b.t(
        "orders",
        "orders",
        &["o_orderkey", "o_custkey", "o_orderdate"],
    );
    let l = b.t("lineitem", "lineitem", L_AGG);
    let s = b.t("supplier", "supplier", &["s_suppkey", "s_nationkey"]);
    let n = b.t(
        "nation",
        "nation",
        &["n_nationkey", "n_name", "n_regionkey"],
    );
    let r = b.t("region", "region", &["r_regionkey", "r_name"]);
    b.j(cu, "c_custkey", o, "o_custkey");
    b.j(l, "l_orderkey", o, "o_orderkey");
    b.j(l, "l_suppkey", s, "s_suppkey");
    b.j(cu, "c_nationkey", s, "s_nationkey");
    b.j(s, "s_nationkey", n, "n_nationkey");
    b.j(n, "n_regionkey", r, "r_regionkey");
    b.p(r, eq_text("r_name", "ASIA"));
    b.dates(o, "o_orderdate", "1994-01-01", "1995-01-01");
    b.group(&[(n, "n_name")]);
    b.q.order_by_expression = true;
    b.q.true_groups = 5.0;
    b.done()
}

fn q6() -> QueryBlock {
    let mut b = B::default();
    let l = b.t(
        "lineitem",
        "lineitem",
        &["l_extendedprice", "l_discount", "l_shipdate", "l_quantity"],
    );
    b.dates(l, "l_shipdate", "1994-01-01", "1995-01-01");
    // 0.06 ± 0.01, evaluated exactly in DECIMAL by the server.
    b.p(l, between("l_discount", Value::Num(0.05), Value::Num(0.07)));
    b.p(l, cmp("l_quantity", CmpOp::Lt, Value::Num(24.0)));
    b.q.scalar_aggregate = true;
    b.q.true_groups = 1.0;
    b.done()
}

fn q7() -> QueryBlock {
    let mut b = B::default();
    let s = b.t("supplier", "supplier", &["s_suppkey", "s_nationkey"]);
    let l = b.t("lineitem", "lineitem", &[L_AGG, &["l_shipdate"]].concat());
    let o = b.t("orders", "orders", &["o_orderkey", "o_custkey"]);
    let cu = b.t("customer", "customer", &["c_custkey", "c_nationkey"]);
    let n1 = b.t("n1", "nation", &["n_nationkey", "n_name"]);
    let n2 = b.t("n2", "nation", &["n_nationkey", "n_name"]);
    b.j(s, "s_suppkey", l, "l_suppkey");
    b.j(o, "o_orderkey", l, "l_orderkey");
    b.j(cu, "c_custkey", o, "o_custkey");
    b.j(s, "s_nationkey", n1, "n_nationkey");
    b.j(cu, "c_nationkey", n2, "n_nationkey");
    b.p(
        l,
        between("l_shipdate", day("1995-01-01"), day("1996-12-31")),
    );
    let pair = FilterKind::And(vec![FilterKind::Eq, FilterKind::Eq]);
    // Not factored by MySQL: checked once both nation tables are joined; 2 of 625 pairs.
    b.f(
        &[n1, n2],
        "(n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY') OR (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE')",
        FilterKind::Or(vec![pair.clone(), pair]),
        2.0 / 625.0,
    );
    b.group(&[(n1, "n_name"), (n2, "n_name"), (l, "l_shipdate")]);
    b.q.order_by_expression = true;
    b.q.true_groups = 4.0;
    b.done()
}

fn q8() -> QueryBlock {
    let mut b = B::default();
    let p = b.t("part", "part", &["p_partkey", "p_type"]);
    let s = b.t("supplier", "supplier", &["s_suppkey", "s_nationkey"]);
    let l = b.t("lineitem", "lineitem", L_AGG);
    let o = b.t(
        "orders",
        "orders",
        &["o_orderkey", "o_custkey", "o_orderdate"],
    );
    let cu = b.t("customer", "customer", &["c_custkey", "c_nationkey"]);
    let n1 = b.t("n1", "nation", &["n_nationkey", "n_regionkey"]);
    let n2 = b.t("n2", "nation", &["n_nationkey", "n_name"]);
    let r = b.t("region", "region", &["r_regionkey", "r_name"]);
    b.j(p, "p_partkey", l, "l_partkey");
    b.j(s, "s_suppkey", l, "l_suppkey");
    b.j(l, "l_orderkey", o, "o_orderkey");
    b.j(o, "o_custkey", cu, "c_custkey");
    b.j(cu, "c_nationkey", n1, "n_nationkey");
    b.j(n1, "n_regionkey", r, "r_regionkey");
    b.j(s, "s_nationkey", n2, "n_nationkey");
    b.p(r, eq_text("r_name", "AMERICA"));
    b.p(
        o,
        between("o_orderdate", day("1995-01-01"), day("1996-12-31")),
    );
    b.p(p, eq_text("p_type", "ECONOMY ANODIZED STEEL"));
    b.q.order_by_expression = true;
    b.group(&[(o, "o_orderdate")]);
    b.q.true_groups = 2.0;
    b.done()
}

fn q9() -> QueryBlock {
    let mut b = B::default();
    let p = b.t("part", "part", &["p_partkey", "p_name"]);
    let s = b.t("supplier", "supplier", &["s_suppkey", "s_nationkey"]);
    let l = b.t("lineitem", "lineitem", &[L_AGG, &["l_quantity"]].concat());
    let ps = b.t(
        "partsupp",
        "partsupp",
        &["ps_partkey", "ps_suppkey", "ps_supplycost"],
    );
    let o = b.t("orders", "orders", &["o_orderkey", "o_orderdate"]);
    let n = b.t("nation", "nation", &["n_nationkey", "n_name"]);
    b.j(s, "s_suppkey", l, "l_suppkey");
    b.j(ps, "ps_suppkey", l, "l_suppkey");
    b.j(ps, "ps_partkey", l, "l_partkey");
    b.j(p, "p_partkey", l, "l_partkey");
    b.j(o, "o_orderkey", l, "l_orderkey");
    b.j(s, "s_nationkey", n, "n_nationkey");
    b.f(&[p], "p_name LIKE '%green%'", FilterKind::Like, 5.0 / 92.0);
    b.group(&[(n, "n_name"), (o, "o_orderdate")]);
    b.q.order_by_expression = true;
    b.q.true_groups = 175.0;
    b.done()
}

fn q10() -> QueryBlock {
    let mut b = B::default();
    let cu = b.t(
        "customer",
        "customer",
        &[
            "c_custkey",
            "c_name",
            "c_acctbal",
            "c_phone",
            "c_address",
            "c_comment",
            "c_nationkey",
        ],
    );
    let o = b.t(
        "orders",
        "orders",
        &["o_orderkey", "o_custkey", "o_orderdate"],
    );
    let l = b.t("lineitem", "lineitem", &[L_AGG, &["l_returnflag"]].concat());
    let n = b.t("nation", "nation", &["n_nationkey", "n_name"]);
    b.j(cu, "c_custkey", o, "o_custkey");
    b.j(l, "l_orderkey", o, "o_orderkey");
    b.j(cu, "c_nationkey", n, "n_nationkey");
    b.dates(o, "o_orderdate", "1993-10-01", "1994-01-01");
    b.p(l, eq_text("l_returnflag", "R"));
    b.group(&[
        (cu, "c_custkey"),
        (cu, "c_name"),
        (cu, "c_acctbal"),
        (cu, "c_phone"),
        (n, "n_name"),
        (cu, "c_address"),
        (cu, "c_comment"),
    ]);
    b.q.order_by_expression = true;
    b.q.limit = Some(20.0);
    b.q.true_groups = 37_967.0;
    b.q.groups_scale_with_sf = true;
    b.done()
}

fn nation_suppliers(b: &mut B) -> (usize, usize, usize) {
    let ps = b.t(
        "partsupp",
        "partsupp",
        &["ps_partkey", "ps_suppkey", "ps_supplycost", "ps_availqty"],
    );
    let s = b.t("supplier", "supplier", &["s_suppkey", "s_nationkey"]);
    let n = b.t("nation", "nation", &["n_nationkey", "n_name"]);
    b.j(ps, "ps_suppkey", s, "s_suppkey");
    b.j(s, "s_nationkey", n, "n_nationkey");
    b.p(n, eq_text("n_name", "GERMANY"));
    (ps, s, n)
}

fn q11() -> QueryBlock {
    let mut b = B::default();
    let (ps, _, _) = nation_suppliers(&mut b);
    // HAVING SUM(...) > (uncorrelated scalar subquery over the same join): evaluated once.
    let mut sb = B::default();
    nation_suppliers(&mut sb);
    sb.q.scalar_aggregate = true;
    b.q.subqueries.push(Subquery {
        kind: SubqueryKind::Scalar,
        block: sb.done(),
        correlation: Vec::new(),
        filter: None,
    });
    b.group(&[(ps, "ps_partkey")]);
    b.q.order_by_expression = true;
    b.q.true_groups = 1_048.0;
    b.q.groups_scale_with_sf = true;
    b.done()
}

fn q12() -> QueryBlock {
    let mut b = B::default();
    let o = b.t("orders", "orders", &["o_orderkey", "o_orderpriority"]);
    let l = b.t(
        "lineitem",
        "lineitem",
        &[
            "l_orderkey",
            "l_shipmode",
            "l_commitdate",
            "l_receiptdate",
            "l_shipdate",
        ],
    );
    b.j(o, "o_orderkey", l, "l_orderkey");
    b.p(l, in_text("l_shipmode", &["MAIL", "SHIP"]));
    b.dates(l, "l_receiptdate", "1994-01-01", "1995-01-01");
    // Jointly 0.1197 (§1.4), not the product 0.308: the second given the first.
    b.f(
        &[l],
        "l_commitdate < l_receiptdate",
        FilterKind::Ineq,
        0.6321,
    );
    b.f(
        &[l],
        "l_shipdate < l_commitdate",
        FilterKind::Ineq,
        0.1197 / 0.6321,
    );
    b.group(&[(l, "l_shipmode")]);
    b.order(&[(l, "l_shipmode")]);
    b.q.true_groups = 2.0;
    b.done()
}

fn q13() -> QueryBlock {
    let mut b = B::default();
    let cu = b.t("customer", "customer", &["c_custkey"]);
    let o = b.t(
        "orders",
        "orders",
        &["o_orderkey", "o_custkey", "o_comment"],
    );
    b.j(cu, "c_custkey", o, "o_custkey");
    b.q.tables[o].outer_join_after = vec![cu];
    b.f(
        &[o],
        "o_comment NOT LIKE '%special%requests%'",
        FilterKind::NotLike,
        0.989,
    );
    b.group(&[(cu, "c_custkey")]);
    b.q.order_by_expression = true;
    b.q.true_groups = 42.0;
    b.done()
}

fn q14() -> QueryBlock {
    let mut b = B::default();
    let l = b.t("lineitem", "lineitem", &[L_AGG, &["l_shipdate"]].concat());
    let p = b.t("part", "part", &["p_partkey", "p_type"]);
    b.j(l, "l_partkey", p, "p_partkey");
    b.dates(l, "l_shipdate", "1995-09-01", "1995-10-01");
    b.q.scalar_aggregate = true;
    b.q.true_groups = 1.0;
    b.done()
}

/// Q15's view: revenue per supplier over 90 days of ship dates.
fn revenue0() -> Source {
    let mut v = B::default();
    let l = v.t(
        "lineitem",
        "lineitem",
        &["l_suppkey", "l_extendedprice", "l_discount", "l_shipdate"],
    );
    v.dates(l, "l_shipdate", "1996-01-01", "1996-03-31");
    v.group(&[(l, "l_suppkey")]);
    v.q.true_groups = 10_000.0;
    v.q.groups_scale_with_sf = true;
    Source::Derived {
        block: Box::new(v.done()),
        columns: vec![
            Name::from_static("supplier_no"),
            Name::from_static("total_revenue"),
        ],
    }
}

fn q15() -> QueryBlock {
    let mut b = B::default();
    let s = b.t(
        "supplier",
        "supplier",
        &["s_suppkey", "s_name", "s_address", "s_phone"],
    );
    let v = b.t("revenue0", "revenue0", &["supplier_no", "total_revenue"]);
    b.q.tables[v].source = revenue0();
    b.j(s, "s_suppkey", v, "supplier_no");
    let f = b.f(
        &[v],
        "total_revenue = (SELECT MAX(total_revenue) FROM revenue0)",
        FilterKind::Eq,
        1e-4,
    );
    let mut sb = B::default();
    let v2 = sb.t("revenue0", "revenue0", &["total_revenue"]);
    sb.q.tables[v2].source = revenue0();
    sb.q.scalar_aggregate = true;
    b.q.subqueries.push(Subquery {
        kind: SubqueryKind::Scalar,
        block: sb.done(),
        correlation: Vec::new(),
        filter: Some(f),
    });
    b.order(&[(s, "s_suppkey")]);
    b.q.true_groups = 1.0;
    b.done()
}

fn q16() -> QueryBlock {
    let mut b = B::default();
    let ps = b.t("partsupp", "partsupp", &["ps_partkey", "ps_suppkey"]);
    let p = b.t(
        "part",
        "part",
        &["p_partkey", "p_brand", "p_type", "p_size"],
    );
    let s = b.t("supplier", "supplier", &["s_suppkey", "s_comment"]);
    b.j(p, "p_partkey", ps, "ps_partkey");
    b.j(ps, "ps_suppkey", s, "s_suppkey");
    b.f(&[p], "p_brand <> 'Brand#45'", FilterKind::Ne, 0.96);
    b.f(
        &[p],
        "p_type NOT LIKE 'MEDIUM POLISHED%'",
        FilterKind::NotLike,
        145.0 / 150.0,
    );
    b.p(
        p,
        Predicate::In {
            column: "p_size".into(),
            values: [49.0, 14.0, 23.0, 45.0, 19.0, 3.0, 36.0, 9.0]
                .iter()
                .map(|v| Value::Num(*v))
                .collect(),
        },
    );
    b.f(
        &[s],
        "s_comment LIKE '%Customer%Complaints%'",
        FilterKind::Like,
        0.0005,
    );
    b.nest(NestKind::Anti, NestOrigin::NotIn, &[s], 0.0005);
    b.group(&[(p, "p_brand"), (p, "p_type"), (p, "p_size")]);
    b.q.order_by_expression = true;
    b.q.true_groups = 18_314.0;
    b.done()
}

fn q17() -> QueryBlock {
    let mut b = B::default();
    let l = b.t(
        "lineitem",
        "lineitem",
        &["l_partkey", "l_quantity", "l_extendedprice"],
    );
    let p = b.t("part", "part", &["p_partkey", "p_brand", "p_container"]);
    b.j(p, "p_partkey", l, "l_partkey");
    b.p(p, eq_text("p_brand", "Brand#23"));
    b.p(p, eq_text("p_container", "MED BOX"));
    let f = b.f(
        &[l, p],
        "l_quantity < (SELECT 0.2 * AVG(l_quantity) ...)",
        FilterKind::Ineq,
        587.0 / 6_088.0,
    );
    let mut sb = B::default();
    let l2 = sb.t("lineitem", "lineitem", &["l_partkey", "l_quantity"]);
    sb.q.scalar_aggregate = true;
    b.q.subqueries.push(Subquery {
        kind: SubqueryKind::Scalar,
        block: sb.done(),
        correlation: vec![(c(l2, "l_partkey"), c(p, "p_partkey"))],
        filter: Some(f),
    });
    b.q.scalar_aggregate = true;
    b.q.true_groups = 1.0;
    b.done()
}

fn q18() -> QueryBlock {
    let mut b = B::default();
    let cu = b.t("customer", "customer", &["c_custkey", "c_name"]);
    let o = b.t(
        "orders",
        "orders",
        &["o_orderkey", "o_custkey", "o_orderdate", "o_totalprice"],
    );
    let l = b.t("lineitem", "lineitem", &["l_orderkey", "l_quantity"]);
    b.j(cu, "c_custkey", o, "o_custkey");
    b.j(o, "o_orderkey", l, "l_orderkey");
    let f = b.f(
        &[o],
        "o_orderkey IN (SELECT l_orderkey ... HAVING SUM(l_quantity) > 300)",
        FilterKind::InSubquery,
        57.0 / 1_500_000.0,
    );
    let mut sb = B::default();
    let l2 = sb.t("lineitem", "lineitem", &["l_orderkey", "l_quantity"]);
    sb.group(&[(l2, "l_orderkey")]);
    sb.q.true_groups = 57.0;
    sb.q.groups_scale_with_sf = true;
    b.q.subqueries.push(Subquery {
        kind: SubqueryKind::InGrouped,
        block: sb.done(),
        correlation: Vec::new(),
        filter: Some(f),
    });
    b.group(&[
        (cu, "c_name"),
        (cu, "c_custkey"),
        (o, "o_orderkey"),
        (o, "o_orderdate"),
        (o, "o_totalprice"),
    ]);
    b.q.order_by_expression = true;
    b.q.limit = Some(100.0);
    b.q.true_groups = 57.0;
    b.q.groups_scale_with_sf = true;
    b.done()
}

fn q19() -> QueryBlock {
    let mut b = B::default();
    let l = b.t(
        "lineitem",
        "lineitem",
        &[
            "l_partkey",
            "l_quantity",
            "l_shipmode",
            "l_shipinstruct",
            "l_extendedprice",
            "l_discount",
        ],
    );
    let p = b.t(
        "part",
        "part",
        &["p_partkey", "p_brand", "p_container", "p_size"],
    );
    b.j(p, "p_partkey", l, "l_partkey");
    let branch = FilterKind::And(vec![
        FilterKind::Eq,
        FilterKind::InList(4),
        FilterKind::Ineq,
        FilterKind::Ineq,
        FilterKind::Between,
        FilterKind::InList(2),
        FilterKind::Eq,
    ]);
    b.f(
        &[l, p],
        "(p_brand = 'Brand#12' AND p_container IN (...) AND l_quantity >= 1 AND ...) OR (...) OR (...)",
        FilterKind::Or(vec![branch.clone(), branch.clone(), branch]),
        121.0 / 6_001_215.0,
    );
    b.q.scalar_aggregate = true;
    b.q.true_groups = 1.0;
    b.done()
}

fn q20() -> QueryBlock {
    let mut b = B::default();
    let s = b.t(
        "supplier",
        "supplier",
        &["s_suppkey", "s_name", "s_address", "s_nationkey"],
    );
    let n = b.t("nation", "nation", &["n_nationkey", "n_name"]);
    let ps = b.t(
        "partsupp",
        "partsupp",
        &["ps_partkey", "ps_suppkey", "ps_availqty"],
    );
    let p = b.t("part", "part", &["p_partkey", "p_name"]);
    b.j(s, "s_suppkey", ps, "ps_suppkey");
    b.j(ps, "ps_partkey", p, "p_partkey");
    b.j(s, "s_nationkey", n, "n_nationkey");
    b.p(n, eq_text("n_name", "CANADA"));
    b.f(&[p], "p_name LIKE 'forest%'", FilterKind::Like, 1.0 / 92.0);
    let f = b.f(
        &[ps],
        "ps_availqty > (SELECT 0.5 * SUM(l_quantity) ...)",
        FilterKind::Ineq,
        0.686,
    );
    // Both INs flatten into one semi-join nest {partsupp, part} (§3 Q20).
    b.nest(NestKind::Semi, NestOrigin::In, &[ps, p], 186.0 / 412.0);
    let mut sb = B::default();
    let l = sb.t(
        "lineitem",
        "lineitem",
        &["l_partkey", "l_suppkey", "l_shipdate", "l_quantity"],
    );
    sb.dates(l, "l_shipdate", "1994-01-01", "1995-01-01");
    sb.q.scalar_aggregate = true;
    b.q.subqueries.push(Subquery {
        kind: SubqueryKind::Scalar,
        block: sb.done(),
        correlation: vec![
            (c(l, "l_partkey"), c(ps, "ps_partkey")),
            (c(l, "l_suppkey"), c(ps, "ps_suppkey")),
        ],
        filter: Some(f),
    });
    b.order(&[(s, "s_name")]);
    b.q.true_groups = 186.0;
    b.q.groups_scale_with_sf = true;
    b.done()
}

fn q21() -> QueryBlock {
    let mut b = B::default();
    let s = b.t(
        "supplier",
        "supplier",
        &["s_suppkey", "s_name", "s_nationkey"],
    );
    let l1 = b.t(
        "l1",
        "lineitem",
        &["l_orderkey", "l_suppkey", "l_receiptdate", "l_commitdate"],
    );
    let o = b.t("orders", "orders", &["o_orderkey", "o_orderstatus"]);
    let n = b.t("nation", "nation", &["n_nationkey", "n_name"]);
    let l2 = b.t("l2", "lineitem", &["l_orderkey", "l_suppkey"]);
    let l3 = b.t(
        "l3",
        "lineitem",
        &["l_orderkey", "l_suppkey", "l_receiptdate", "l_commitdate"],
    );
    b.j(s, "s_suppkey", l1, "l_suppkey");
    b.j(o, "o_orderkey", l1, "l_orderkey");
    b.j(s, "s_nationkey", n, "n_nationkey");
    b.j(l2, "l_orderkey", l1, "l_orderkey");
    b.j(l3, "l_orderkey", l1, "l_orderkey");
    b.p(o, eq_text("o_orderstatus", "F"));
    b.p(n, eq_text("n_name", "SAUDI ARABIA"));
    b.f(
        &[l1],
        "l1.l_receiptdate > l1.l_commitdate",
        FilterKind::Ineq,
        0.6321,
    );
    b.f(
        &[l2, l1],
        "l2.l_suppkey <> l1.l_suppkey",
        FilterKind::Ne,
        0.75,
    );
    b.f(
        &[l3, l1],
        "l3.l_suppkey <> l1.l_suppkey",
        FilterKind::Ne,
        0.75,
    );
    b.f(
        &[l3],
        "l3.l_receiptdate > l3.l_commitdate",
        FilterKind::Ineq,
        0.6321,
    );
    // 75,871 rows before, 4,141 after both (§3 Q21): orders with several lines nearly
    // always have another supplier (6/7), and few have no other late line.
    b.nest(NestKind::Semi, NestOrigin::Exists, &[l2], 6.0 / 7.0);
    b.nest(
        NestKind::Anti,
        NestOrigin::NotExists,
        &[l3],
        1.0 - 4_141.0 / 75_871.0 * 7.0 / 6.0,
    );
    b.group(&[(s, "s_name")]);
    b.q.order_by_expression = true;
    b.q.limit = Some(100.0);
    b.q.true_groups = 411.0;
    b.q.groups_scale_with_sf = true;
    b.done()
}

fn q22() -> QueryBlock {
    let mut b = B::default();
    let cu = b.t(
        "customer",
        "customer",
        &["c_custkey", "c_phone", "c_acctbal"],
    );
    let o = b.t("orders", "orders", &["o_custkey"]);
    b.j(o, "o_custkey", cu, "c_custkey");
    b.f(
        &[cu],
        "SUBSTR(c_phone FROM 1 FOR 2) IN ('13','31','23','29','30','18','17')",
        FilterKind::Function,
        0.28,
    );
    let f = b.f(
        &[cu],
        "c_acctbal > (SELECT AVG(c_acctbal) ...)",
        FilterKind::Ineq,
        0.455,
    );
    b.nest(NestKind::Anti, NestOrigin::NotExists, &[o], 2.0 / 3.0);
    let mut sb = B::default();
    let c2 = sb.t("customer", "customer", &["c_phone", "c_acctbal"]);
    sb.p(c2, cmp("c_acctbal", CmpOp::Gt, Value::Num(0.0)));
    sb.f(
        &[c2],
        "SUBSTR(c_phone FROM 1 FOR 2) IN (...)",
        FilterKind::Function,
        0.28,
    );
    sb.q.scalar_aggregate = true;
    b.q.subqueries.push(Subquery {
        kind: SubqueryKind::Scalar,
        block: sb.done(),
        correlation: Vec::new(),
        filter: Some(f),
    });
    b.q.order_by_expression = true;
    b.group(&[(cu, "c_phone")]);
    b.q.true_groups = 7.0;
    b.done()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::dbt3::catalog::dbt3;

    #[test]
    fn every_query_names_real_tables_and_columns() {
        let d = dbt3(1.0).unwrap();
        fn check(b: &QueryBlock, d: &crate::workload::dbt3::catalog::Dbt3) {
            for t in &b.tables {
                match &t.source {
                    Source::Base => {
                        let table = d.mysql_table(&t.table).unwrap();
                        for c in t.uses.iter() {
                            table.column(c).unwrap();
                        }
                        for p in &t.preds {
                            table.column(p.column()).unwrap();
                            assert!(
                                t.uses.iter().any(|u| u == p.column()),
                                "{}: {}",
                                t.alias,
                                p.sql()
                            );
                        }
                    }
                    Source::Derived { block, .. } => check(block, d),
                }
            }
            for j in &b.joins {
                for cr in [&j.a, &j.b] {
                    assert!(
                        b.tables[cr.table].uses.contains(&cr.column),
                        "{}.{}",
                        b.tables[cr.table].alias,
                        cr.column
                    );
                }
            }
            for f in &b.filters {
                assert!(f.tables.iter().all(|t| *t < b.tables.len()));
                assert!((0.0..=1.0).contains(&f.true_selectivity), "{}", f.sql);
            }
            for s in &b.subqueries {
                check(&s.block, d);
            }
        }
        for q in all(1.0).unwrap() {
            check(&q.block, &d);
            assert!(q.sql.contains("SELECT"));
        }
    }

    #[test]
    fn bad_query_numbers_and_scale_factors_are_errors() {
        assert!(query(0, 1.0).is_err());
        assert!(query(23, 1.0).is_err());
        assert!(query(6, 0.0).is_err());
        assert_eq!(query(22, 1.0).unwrap().number, 22);
    }

    #[test]
    fn mysql_filter_defaults_follow_item_h() {
        assert_eq!(FilterKind::Eq.mysql_filter(), 0.1);
        assert_eq!(FilterKind::InList(7).mysql_filter(), 0.5);
        let pair = FilterKind::And(vec![FilterKind::Eq, FilterKind::Eq]);
        let or = FilterKind::Or(vec![pair.clone(), pair]).mysql_filter();
        assert!((or - (0.01 + 0.01 - 0.0001)).abs() < 1e-12);
    }
}
