//! The front end's tests: statements read over the DBT3 catalog, refusals by name and
//! position, and texts that must not panic it.

use costlab_model::block::{FilterKind, NestKind, NestOrigin, QueryBlock, Source, SubqueryKind};
use costlab_model::catalog::{Table, Value};
use costlab_model::error::{Error, Result};
use costlab_model::plan::Name;
use costlab_model::query::{CmpOp, Predicate};
use costlab_workload::dbt3::catalog::dbt3;

use super::*;

fn tables() -> Vec<Table> {
    dbt3(0.01).unwrap().pg
}

fn read(sql: &str, d: Dialect) -> Result<QueryBlock> {
    read_query(sql, d, &tables())
}

fn pg(sql: &str) -> QueryBlock {
    read(sql, Dialect::Postgres).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The error and the text it marks.
fn refused(sql: &str) -> (String, String) {
    match read(sql, Dialect::Postgres) {
        Err(Error::Sql {
            msg, start, end, ..
        }) => (msg, sql[start..end].to_string()),
        other => panic!("{sql}: {other:?}"),
    }
}

fn day(s: &str) -> Value {
    Value::Num(costlab_model::date::parse(s).unwrap() as f64)
}

/// Filter texts cleared: the same query in two spellings differs only in them.
fn without_texts(mut b: QueryBlock) -> QueryBlock {
    for f in &mut b.filters {
        f.sql = Name::from_static("");
    }
    for s in &mut b.subqueries {
        s.block = without_texts(s.block.clone());
    }
    b
}

#[test]
fn joins_written_either_way_and_both_dialects_read_the_same() {
    let kit = read(
        &costlab_workload::dbt3::queries::query(3, 1.0).unwrap().sql,
        Dialect::Mysql,
    )
    .unwrap();
    let explicit = pg(
        "SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue,
            o_orderdate, o_shippriority
        FROM customer JOIN orders ON c_custkey = o_custkey
            JOIN lineitem ON l_orderkey = o_orderkey
        WHERE c_mktsegment = 'BUILDING' AND o_orderdate < date '1995-03-15'
            AND l_shipdate > date '1995-03-15'
        GROUP BY l_orderkey, o_orderdate, o_shippriority
        ORDER BY revenue DESC, o_orderdate LIMIT 10",
    );
    assert_eq!(without_texts(kit.clone()), without_texts(explicit));
    assert_eq!(kit.tables.len(), 3);
    assert_eq!(kit.joins.len(), 2);
    assert_eq!(
        kit.tables[1].preds,
        vec![Predicate::Cmp {
            column: "o_orderdate".into(),
            op: CmpOp::Lt,
            value: day("1995-03-15"),
        }]
    );
    assert!(kit.order_by_expression && kit.order_by.is_empty());
    assert_eq!(kit.limit, Some(10.0));
    // USING names the column once for both sides.
    let using = pg("SELECT count(*) FROM nation n1 JOIN nation n2 USING (n_regionkey)");
    assert_eq!(using.joins.len(), 1);
    assert_eq!(
        (using.joins[0].a.table, using.joins[0].b.table),
        (0, 1),
        "{using:?}"
    );
    assert_eq!(using.joins[0].a.column, "n_regionkey");
}

#[test]
fn constants_fold_as_the_servers_compute_them() {
    // DECIMAL arithmetic: exactly 0.05 and 0.07, not 0.049999...
    let q6 = read(
        &costlab_workload::dbt3::queries::query(6, 1.0).unwrap().sql,
        Dialect::Mysql,
    )
    .unwrap();
    assert!(q6.tables[0].preds.contains(&Predicate::Between {
        column: "l_discount".into(),
        lo: Value::Num(0.05),
        hi: Value::Num(0.07),
    }));
    assert!(q6.tables[0].preds.contains(&Predicate::Cmp {
        column: "l_shipdate".into(),
        op: CmpOp::Lt,
        value: day("1995-01-01"),
    }));
    let q1 = read(
        &costlab_workload::dbt3::queries::query(1, 1.0).unwrap().sql,
        Dialect::Mysql,
    )
    .unwrap();
    assert_eq!(
        q1.tables[0].preds[0],
        Predicate::Cmp {
            column: "l_shipdate".into(),
            op: CmpOp::Le,
            value: day("1998-09-02"),
        }
    );
    for (text, want) in [
        ("date '1998-12-01' - interval '90 days'", "1998-09-02"),
        ("date '1998-12-01' - interval '90' day", "1998-09-02"),
        ("'1993-07-01'::date + interval '3 month'", "1993-10-01"),
        ("date '1996-01-31' + interval '1 month'", "1996-02-29"),
        ("date '1995-01-31' + interval '1 month'", "1995-02-28"),
        ("date '1994-01-01' + interval '1 year'", "1995-01-01"),
        ("cast('1994-03-01' as date) - 1", "1994-02-28"),
    ] {
        let b = pg(&format!("SELECT * FROM lineitem WHERE l_shipdate < {text}"));
        assert_eq!(
            b.tables[0].preds[0],
            Predicate::Cmp {
                column: "l_shipdate".into(),
                op: CmpOp::Lt,
                value: day(want),
            },
            "{text}"
        );
    }
    // A constant on the left turns the comparison round.
    let b = pg("SELECT * FROM lineitem WHERE 24 > l_quantity");
    assert_eq!(
        b.tables[0].preds[0],
        Predicate::Cmp {
            column: "l_quantity".into(),
            op: CmpOp::Lt,
            value: Value::Num(24.0),
        }
    );
}

/// Every condition, select item, grouping and ordering key is typed once here: each
/// column names its table reference (a table read twice gives two), a merged derived
/// table's column is its expression, constants keep their digits.
#[test]
fn expressions_are_typed_with_their_table_references() {
    use costlab_model::expr::{BinOp, Column, Expr as T};
    let col = |t: usize, q: &str, n: &str| {
        T::Column(Column {
            table: Some(t),
            qualifier: Some(Name::from(q)),
            name: Name::from(n),
        })
    };
    let b = pg(
        "SELECT count(*) FROM orders e1 JOIN orders e2 ON e2.o_orderkey = e1.o_orderkey + 1
        WHERE e1.o_totalprice BETWEEN 2000 AND 2020",
    );
    assert_eq!(b.filters.len(), 1);
    assert_eq!(
        b.filters[0].expr,
        T::Binary {
            op: BinOp::Eq,
            left: Box::new(col(1, "e2", "o_orderkey")),
            right: Box::new(T::Binary {
                op: BinOp::Add,
                left: Box::new(col(0, "e1", "o_orderkey")),
                right: Box::new(T::Number(Name::from("1"))),
            }),
        }
    );
    assert_eq!(
        b.select[0].expr,
        T::Call {
            name: Name::from("count"),
            args: vec![T::Star],
            distinct: false
        }
    );
    let b = pg("SELECT v.yr, sum(v.amount) AS total FROM
          (SELECT extract(year FROM o_orderdate) AS yr, o_totalprice * 0.10 AS amount FROM orders) v
        GROUP BY v.yr HAVING sum(v.amount) > 5 ORDER BY total DESC, 1");
    assert_eq!(b.select[1].alias.as_deref(), Some("total"));
    let T::Call { args, .. } = &b.select[1].expr else {
        panic!("{:?}", b.select[1].expr)
    };
    // The merged derived table's column is the expression it stands for, named.
    let T::Derived { name, expr } = &args[0] else {
        panic!("{:?}", args[0])
    };
    assert_eq!(name, "amount");
    let T::Binary { op, right, .. } = &**expr else {
        panic!("{expr:?}")
    };
    assert_eq!(*op, BinOp::Mul);
    assert_eq!(**right, T::Number(Name::from("0.10")));
    assert!(
        matches!(&b.group_items[0], T::Derived { expr, .. } if matches!(&**expr, T::Extract { field, .. } if field == "year"))
    );
    assert!(b.having.as_ref().is_some_and(T::has_aggregate));
    assert_eq!(b.order_items.len(), 2);
    assert!(b.order_items[0].1 && !b.order_items[1].1);
}

#[test]
fn conditions_become_edges_predicates_and_filters_of_their_kind() {
    let b = pg("SELECT * FROM orders o, lineitem l
        WHERE o.o_orderkey = l.l_orderkey AND l.l_commitdate < l.l_receiptdate
          AND o.o_comment NOT LIKE '%special%' AND o.o_orderstatus <> 'F'
          AND l.l_shipmode IN ('MAIL', 'SHIP') AND upper(o.o_clerk) = 'X'
          AND o.o_totalprice IS NULL AND NOT (l.l_quantity BETWEEN 1 AND 5)");
    assert_eq!(b.joins.len(), 1);
    assert_eq!(
        b.tables[1].preds,
        vec![Predicate::In {
            column: "l_shipmode".into(),
            values: vec![Value::Text("MAIL".into()), Value::Text("SHIP".into())],
        }]
    );
    let kinds: Vec<&FilterKind> = b.filters.iter().map(|f| &f.kind).collect();
    assert_eq!(
        kinds,
        vec![
            &FilterKind::Ineq,
            &FilterKind::NotLike,
            &FilterKind::Ne,
            &FilterKind::Function,
            &FilterKind::IsNull,
            &FilterKind::Not(Box::new(FilterKind::Between)),
        ]
    );
    assert!(b.filters.iter().all(|f| f.true_selectivity.is_nan()));
    assert_eq!(b.filters[0].tables, vec![1]);
    assert_eq!(b.filters[1].sql, "o.o_comment NOT LIKE '%special%'");
    // `*` uses every column, in the table's order.
    let orders = tables().into_iter().find(|t| t.name == "orders").unwrap();
    let all: Vec<Name> = orders
        .columns
        .iter()
        .map(|c| Name::from(c.name.as_str()))
        .collect();
    assert_eq!(b.tables[0].uses, all);
    // Otherwise what the query reads.
    let b = pg("SELECT o_orderdate FROM orders WHERE o_orderkey < 10 ORDER BY o_custkey");
    assert_eq!(
        b.tables[0].uses,
        vec![
            Name::from("o_orderkey"),
            Name::from("o_custkey"),
            Name::from("o_orderdate")
        ]
    );
    assert_eq!(b.order_by.len(), 1);
}

#[test]
fn an_or_gives_up_the_join_equality_every_arm_holds() {
    let q19 = read(
        &costlab_workload::dbt3::queries::query(19, 1.0).unwrap().sql,
        Dialect::Mysql,
    )
    .unwrap();
    assert_eq!(q19.joins.len(), 1);
    assert_eq!(q19.joins[0].a.column, "p_partkey");
    assert_eq!(q19.filters.len(), 1);
    let FilterKind::Or(arms) = &q19.filters[0].kind else {
        panic!("{:?}", q19.filters[0].kind)
    };
    assert_eq!(arms.len(), 3);
    assert!(arms
        .iter()
        .all(|a| matches!(a, FilterKind::And(v) if v.len() == 7)));
    // An equality only some arms hold stays in the filter.
    let b = pg("SELECT * FROM part, lineitem
        WHERE (p_partkey = l_partkey AND p_size = 1) OR p_size = 2");
    assert!(b.joins.is_empty());
    assert_eq!(b.filters[0].tables, vec![0, 1]);
}

#[test]
fn sub_selects_become_nests_and_subqueries() {
    // Q20: an IN inside an IN joins the same semi-join nest; the correlated scalar
    // sub-select correlates by its two equalities.
    let q20 = read(
        &costlab_workload::dbt3::queries::query(20, 1.0).unwrap().sql,
        Dialect::Mysql,
    )
    .unwrap();
    assert_eq!(q20.nests.len(), 1);
    assert_eq!(q20.nests[0].tables, vec![2, 3]);
    assert_eq!(q20.nests[0].origin, NestOrigin::In);
    assert_eq!(q20.subqueries.len(), 1);
    assert_eq!(q20.subqueries[0].correlation.len(), 2);
    assert_eq!(q20.subqueries[0].filter, Some(1));
    // Q21: EXISTS and NOT EXISTS over the same table, aliased.
    let q21 = read(
        &costlab_workload::dbt3::queries::query(21, 1.0).unwrap().sql,
        Dialect::Mysql,
    )
    .unwrap();
    let kinds: Vec<NestKind> = q21.nests.iter().map(|n| n.kind).collect();
    assert_eq!(kinds, vec![NestKind::Semi, NestKind::Anti]);
    assert_eq!(q21.tables[4].alias, "l2");
    // Q18: an IN over a grouped sub-select is a subquery of its own.
    let q18 = read(
        &costlab_workload::dbt3::queries::query(18, 1.0).unwrap().sql,
        Dialect::Mysql,
    )
    .unwrap();
    assert_eq!(q18.subqueries[0].kind, SubqueryKind::InGrouped);
    assert_eq!(q18.filters[0].kind, FilterKind::InSubquery);
    // Q15: the view is a derived table, in the query and in its sub-select.
    let q15 = read(
        &costlab_workload::dbt3::queries::query(15, 1.0).unwrap().sql,
        Dialect::Mysql,
    )
    .unwrap();
    let Source::Derived { columns, block } = &q15.tables[1].source else {
        panic!("{:?}", q15.tables[1])
    };
    assert_eq!(
        columns,
        &vec![Name::from("supplier_no"), Name::from("total_revenue")]
    );
    assert_eq!(block.group_by.len(), 1);
    // A derived table without grouping is merged (Q7's shipping).
    let q7 = read(
        &costlab_workload::dbt3::queries::query(7, 1.0).unwrap().sql,
        Dialect::Mysql,
    )
    .unwrap();
    assert_eq!(q7.tables.len(), 6);
    assert!(q7.order_by_expression);
    assert_eq!(q7.group_by.len(), 3);
}

#[test]
fn a_left_join_orders_its_nullable_side_after_the_preserved() {
    let b = pg("SELECT c_custkey, count(o_orderkey) FROM customer
        LEFT JOIN orders ON c_custkey = o_custkey AND o_orderstatus = 'F'
        GROUP BY c_custkey");
    assert_eq!(b.tables[1].outer_join_after, vec![0]);
    assert_eq!(b.tables[1].preds.len(), 1);
    assert_eq!(b.joins.len(), 1);
    let (msg, _) = refused(
        "SELECT * FROM customer LEFT JOIN orders ON c_custkey = o_custkey AND c_acctbal > 0",
    );
    assert!(msg.contains("preserved side"), "{msg}");
}

#[test]
fn what_the_models_cannot_plan_is_refused_by_name_and_position() {
    let (msg, at) = refused("SELECT l_orderkey, sum(l_quantity) OVER () FROM lineitem");
    assert_eq!(msg, "window functions are not modelled");
    assert!(at.starts_with("sum(l_quantity"), "{at}");
    let (msg, at) = refused("SELECT * FROM lineitem\n  JOIN nosuch ON l_orderkey = 1");
    assert_eq!(msg, "unknown table `nosuch`");
    assert_eq!(at, "nosuch");
    match read(
        "SELECT *\nFROM lineitem\nWHERE l_nosuch = 1",
        Dialect::Postgres,
    ) {
        Err(Error::Sql {
            msg, line, column, ..
        }) => {
            assert_eq!(msg, "unknown column `l_nosuch`");
            assert_eq!((line, column), (3, 7));
        }
        other => panic!("{other:?}"),
    }
    for (sql, what) in [
        ("SELECT * FROM part UNION SELECT * FROM part", "UNION"),
        ("SELECT DISTINCT p_size FROM part", "SELECT DISTINCT"),
        ("SELECT * FROM part RIGHT JOIN partsupp ON p_partkey = ps_partkey", "this kind of join"),
        (
            "SELECT * FROM part WHERE p_size > (SELECT max(ps_availqty) FROM partsupp WHERE ps_partkey < p_partkey)",
            "correlated",
        ),
        ("SELECT * FROM part, partsupp p2, partsupp WHERE p_size = 1 OR EXISTS (SELECT 1 FROM nation)", "under OR"),
        ("SELECT * FROM part LIMIT 5 OFFSET 2", "OFFSET"),
        ("SELECT * FROM part, part", "named twice"),
        ("SELECT n_name FROM nation, region WHERE n_regionkey = r_regionkey AND n_nationkey = 1 GROUP BY ROLLUP (n_name)", "ROLLUP"),
    ] {
        let (msg, _) = refused(sql);
        assert!(msg.contains(what), "{sql}: {msg}");
    }
    // A syntax error keeps the parser's words and points where it stopped.
    match read("SELECT * FROM lineitem WHERE", Dialect::Postgres) {
        Err(Error::Sql { msg, start, .. }) => {
            assert!(msg.contains("Expected"), "{msg}");
            assert_eq!(start, "SELECT * FROM lineitem WHERE".len());
        }
        other => panic!("{other:?}"),
    }
    match read(
        "SELECT * FROM lineitem WHERE l_shipmode = 'MAIL",
        Dialect::Mysql,
    ) {
        Err(Error::Sql { line, column, .. }) => assert_eq!((line, column), (1, 43)),
        other => panic!("{other:?}"),
    }
    // An impossible date is the engines' error, at the literal.
    let (msg, _) = refused("SELECT * FROM lineitem WHERE l_shipdate < '1995-02-30'");
    assert!(msg.contains("1995-02-30"), "{msg}");
}

/// Nothing panics on generated text: token soup from SQL's words and the DBT3 names,
/// and the 22 queries with characters cut out or put in.
#[test]
fn no_text_panics_the_front_end() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let t = tables();
    let words: Vec<String> = [
        "SELECT",
        "FROM",
        "WHERE",
        "AND",
        "OR",
        "NOT",
        "IN",
        "EXISTS",
        "(",
        ")",
        ",",
        "=",
        "<",
        ">=",
        "<>",
        "+",
        "-",
        "*",
        "/",
        "BETWEEN",
        "LIKE",
        "IS",
        "NULL",
        "GROUP BY",
        "ORDER BY",
        "HAVING",
        "LIMIT",
        "JOIN",
        "LEFT JOIN",
        "ON",
        "USING",
        "AS",
        "UNION",
        "count(*)",
        "sum(",
        "date",
        "interval",
        "'1995-01-01'",
        "'3 month'",
        "90",
        "0.5",
        "DAY",
        "MONTH",
        "CASE WHEN",
        "THEN",
        "ELSE",
        "END",
        "DISTINCT",
        "l1",
        "l1.",
        "CREATE VIEW v AS",
        ";",
        "WITH w AS",
        "DATE_ADD(",
        "INTERVAL",
        "EXTRACT(YEAR FROM",
        "SUBSTR(",
        "FOR",
        "OVER ()",
        "-1e400",
        "'2020-02-30'",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain(t.iter().map(|x| x.name.clone()))
    .chain(
        t.iter()
            .flat_map(|x| x.columns.iter().map(|c| c.name.clone())),
    )
    .collect();
    let texts: Vec<&str> = costlab_workload::dbt3::sql::SQL
        .iter()
        .map(|q| q.2)
        .collect();
    let mut runner = TestRunner::new(Config::with_cases(5_000));
    runner
        .run(
            &(
                proptest::collection::vec(0..words.len(), 1..40),
                any::<bool>(),
            ),
            |(picks, mysql)| {
                let sql: Vec<&str> = picks.iter().map(|&i| words[i].as_str()).collect();
                let d = if mysql {
                    Dialect::Mysql
                } else {
                    Dialect::Postgres
                };
                let _ = read_query(&sql.join(" "), d, &t);
                Ok(())
            },
        )
        .unwrap();
    let mut runner = TestRunner::new(Config::with_cases(5_000));
    runner
        .run(
            &(0..texts.len(), 0usize..2000, 0usize..6, 0..words.len()),
            |(q, at, cut, word)| {
                let text = texts[q];
                let mut at = at.min(text.len());
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                let mut end = (at + cut).min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                let mutated = format!("{}{}{}", &text[..at], words[word], &text[end..]);
                let _ = read_query(&mutated, Dialect::Mysql, &t);
                Ok(())
            },
        )
        .unwrap();
}
