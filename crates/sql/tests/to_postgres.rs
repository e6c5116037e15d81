//! `to_postgres`: MySQL's text made PostgreSQL's over sqlparser's tree (the DBT3 kit's
//! queries on a real PostgreSQL).

use costlab_model::block::{QueryBlock, Source};
use costlab_model::error::Error;
use costlab_model::plan::Name;
use costlab_sql::{read_query, to_postgres, Dialect};
use costlab_workload::dbt3::catalog::dbt3;
use costlab_workload::dbt3::sql::SQL;

/// The error's message and the text it marks.
fn refused(sql: &str) -> (String, String) {
    match to_postgres(sql) {
        Err(Error::Sql {
            msg, start, end, ..
        }) => (msg, sql[start..end].to_string()),
        other => panic!("{sql}: {other:?}"),
    }
}

#[test]
fn mysql_date_functions_become_literals() {
    let q = to_postgres(
        "SELECT 1 FROM t WHERE d < DATE_ADD('1996-01-01', INTERVAL 90 DAY) \
         AND e >= DATE_SUB('1998-12-01', INTERVAL 3 MONTH);",
    )
    .unwrap();
    assert_eq!(
        q.select,
        "SELECT 1 FROM t WHERE d < '1996-03-31' AND e >= '1998-09-01'"
    );
    assert!(q.setup.is_empty());
    assert_eq!(
        q.changes,
        [
            "DATE_ADD('1996-01-01', INTERVAL 90 DAY) → '1996-03-31'",
            "DATE_SUB('1998-12-01', INTERVAL 3 MONTH) → '1998-09-01'",
        ]
    );
    // As MySQL computes them: a year, a month to a shorter month's end, nested.
    let q = to_postgres(
        "SELECT 1 FROM t WHERE d < DATE_ADD('1994-01-01', INTERVAL '1' YEAR) \
         AND e < DATE_ADD('1995-01-31', INTERVAL 1 MONTH) \
         AND f < date_sub(date_add('1995-03-01', interval 1 day), interval 2 day)",
    )
    .unwrap();
    assert_eq!(
        q.select,
        "SELECT 1 FROM t WHERE d < '1995-01-01' AND e < '1995-02-28' AND f < '1995-02-28'"
    );
}

#[test]
fn views_are_setup_and_their_drop_goes() {
    let q15 = to_postgres("CREATE VIEW v AS SELECT 1; SELECT * FROM v; DROP VIEW v;").unwrap();
    assert_eq!(q15.setup, ["CREATE VIEW v AS SELECT 1"]);
    assert_eq!(q15.select, "SELECT * FROM v");
    assert_eq!(q15.changes, ["view created in a rolled-back transaction"]);
}

#[test]
fn substr_from_for_becomes_substring() {
    let q = to_postgres(
        "SELECT SUBSTR(c_phone FROM 1 FOR 2) AS code FROM customer \
         WHERE SUBSTR(c_phone FROM 1 FOR 2) IN ('13', '31')",
    )
    .unwrap();
    assert_eq!(
        q.select,
        "SELECT SUBSTRING(c_phone FROM 1 FOR 2) AS code FROM customer \
         WHERE SUBSTRING(c_phone FROM 1 FOR 2) IN ('13', '31')"
    );
    assert_eq!(q.changes, ["SUBSTR(… FROM … FOR …) → SUBSTRING (×2)"]);
}

#[test]
fn sub_selects_derived_tables_joins_and_views_are_converted_too() {
    let d = "DATE_ADD('1994-01-01', INTERVAL 1 DAY)";
    let q = to_postgres(&format!(
        "CREATE VIEW v AS SELECT a FROM t WHERE d < {d}; \
         SELECT CASE WHEN d < {d} THEN 1 ELSE 0 END \
         FROM (SELECT * FROM t WHERE d < {d}) AS x JOIN u ON u.d < {d} \
         WHERE EXISTS (SELECT 1 FROM w WHERE w.d < {d}) \
         AND x.a IN (SELECT a FROM w WHERE w.d < {d}) \
         AND x.b < (SELECT max(b) FROM w WHERE w.d < {d}) \
         GROUP BY x.a HAVING max(x.d) < {d} ORDER BY {d}"
    ))
    .unwrap();
    assert_eq!(
        q.setup,
        ["CREATE VIEW v AS SELECT a FROM t WHERE d < '1994-01-02'"]
    );
    assert!(!q.select.contains("DATE_ADD"), "{}", q.select);
    assert_eq!(q.select.matches("'1994-01-02'").count(), 8, "{}", q.select);
    assert_eq!(q.changes.len(), 9);
}

#[test]
fn what_cannot_be_converted_is_refused_by_name_and_position() {
    let (msg, at) = refused("SELECT DATE_ADD(d, INTERVAL 1 DAY) FROM t");
    assert!(msg.contains("not a constant date"), "{msg}");
    // sqlparser's span of a call ends at its last argument's start.
    assert!(at.starts_with("DATE_ADD(d, INTERVAL"), "{at}");
    let (msg, at) = refused("SELECT 1; SELECT 2");
    assert!(msg.contains("two SELECTs"), "{msg}");
    assert_eq!(at, "SELECT 2");
    let (msg, _) = refused("CREATE VIEW v AS SELECT 1");
    assert_eq!(msg, "no SELECT statement");
    let (msg, at) = refused("SELECT 1 FROM t LIMIT 5, 10");
    assert!(msg.contains("LIMIT offset, count"), "{msg}");
    assert_eq!(at, "5, 10");
    let (msg, _) = refused("DELETE FROM t");
    assert!(msg.contains("only CREATE VIEW"), "{msg}");
    assert!(matches!(to_postgres("SELECT (1"), Err(Error::Sql { .. })));
}

/// Texts of filters cleared (the printings of the two spellings differ), in the
/// derived tables' and sub-selects' blocks too.
fn without_texts(mut b: QueryBlock) -> QueryBlock {
    for f in &mut b.filters {
        f.sql = Name::from_static("");
    }
    for s in &mut b.subqueries {
        s.block = without_texts(s.block.clone());
    }
    for t in &mut b.tables {
        if let Source::Derived { block, .. } = &mut t.source {
            **block = without_texts((**block).clone());
        }
    }
    b
}

/// Each of the kit's 22 queries converts, and PostgreSQL's text reads as the same block as
/// the MySQL text it came from.
#[test]
fn the_kits_queries_read_the_same_in_both_dialects() {
    let tables = dbt3(0.01).unwrap().pg;
    for (n, _, mysql) in SQL {
        let pq = to_postgres(mysql).unwrap_or_else(|e| panic!("Q{n}: {e}"));
        let mut pg = pq.setup.join(";\n");
        if !pg.is_empty() {
            pg.push_str(";\n");
        }
        pg.push_str(&pq.select);
        for f in ["DATE_ADD", "DATE_SUB", "SUBSTR("] {
            assert!(!pg.contains(f), "Q{n}: {f} left in {pg}");
        }
        let from_mysql = read_query(mysql, Dialect::Mysql, &tables).unwrap();
        let from_pg =
            read_query(&pg, Dialect::Postgres, &tables).unwrap_or_else(|e| panic!("Q{n}: {e}"));
        // Debug's printing: the unknown truths are NaN, never equal to themselves. The
        // typed SUBSTR keeps its spelling, SUBSTRING now.
        let from_mysql = format!("{:?}", without_texts(from_mysql))
            .replace("shorthand: true", "shorthand: false");
        assert_eq!(
            format!("{:?}", without_texts(from_pg)),
            from_mysql,
            "Q{n}: {pg}"
        );
    }
}
