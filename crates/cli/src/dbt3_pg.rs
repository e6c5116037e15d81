//! DBT3 (TPC-H) in a real PostgreSQL: the schema and §2.2 index set of the core's derived
//! catalog (`costlab_core::workload::dbt3::catalog::dbt3`), data generated with the `tpchgen`
//! crate (dbgen's rows, streamed in with COPY), the imported statistics completed with the
//! indexes `costlab import` leaves out (BRIN, partial), and the kit's MySQL query text made
//! PostgreSQL's. The real-server DBT3 test and `costlab-probe validate postgres --workload
//! dbt3` load and query with it.

use costlab_core::catalog::{Index, PgIndex, Table};
use costlab_core::workload::dbt3::catalog::Dbt3;
use postgres::{Client, NoTls};
use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Instant;

/// The tpchgen release the data comes from (its rows are dbgen's for a given release).
pub const TPCHGEN: &str = "4.0.0";

fn db_err(what: &str, e: &postgres::Error) -> String {
    let msg = e
        .as_db_error()
        .map(|d| d.message().to_string())
        .unwrap_or_else(|| e.to_string());
    format!("{what}: {msg}")
}

/// The PostgreSQL type of a catalog column.
fn sql_type(c: &costlab_core::catalog::Column) -> String {
    use costlab_core::catalog::ColumnType as T;
    match c.ty {
        T::Int4 => "integer".into(),
        T::Int8 => "bigint".into(),
        T::Float8 => "double precision".into(),
        T::Numeric => "numeric(15,2)".into(),
        T::Date => "date".into(),
        T::Text => "varchar".into(),
        T::Char(n) => format!("char({n})"),
        T::Bool => "boolean".into(),
        T::Point => "point".into(),
    }
}

/// CREATE TABLE statements, then index statements, from the derived catalog. The
/// statements that could not be expressed are returned as notes.
pub fn ddl(cat: &Dbt3) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut tables = Vec::new();
    let mut indexes = Vec::new();
    let mut notes = Vec::new();
    for t in &cat.pg {
        let cols: Vec<String> = t
            .columns
            .iter()
            .map(|c| {
                format!(
                    "{} {}{}",
                    c.name,
                    sql_type(c),
                    if c.not_null { " NOT NULL" } else { "" }
                )
            })
            .collect();
        tables.push(format!("CREATE TABLE {} ({})", t.name, cols.join(", ")));
        for i in &t.indexes {
            let note = cat
                .pg_index_notes
                .iter()
                .find(|n| n.index == i.name && n.table == t.name);
            let include = if i.include.is_empty() {
                String::new()
            } else {
                format!(" INCLUDE ({})", i.include.join(", "))
            };
            if i.primary {
                indexes.push(format!(
                    "ALTER TABLE {} ADD CONSTRAINT {} PRIMARY KEY ({}){include}",
                    t.name,
                    i.name,
                    i.columns.join(", ")
                ));
                continue;
            }
            let method = note.map_or("btree", |n| n.method);
            if method != "btree" && method != "brin" {
                notes.push(format!("{}: unknown method {method}", i.name));
                continue;
            }
            let predicate = note
                .and_then(|n| n.predicate)
                .map(|p| format!(" WHERE {p}"))
                .unwrap_or_default();
            indexes.push(format!(
                "CREATE {}INDEX {} ON {} USING {method} ({}){include}{predicate}",
                if i.unique { "UNIQUE " } else { "" },
                i.name,
                t.name,
                i.columns.join(", ")
            ));
        }
    }
    for n in &cat.pg_index_notes {
        let listed = cat
            .pg
            .iter()
            .any(|t| t.name == n.table && t.indexes.iter().any(|i| i.name == n.index));
        if !listed {
            notes.push(format!(
                "{} ({}) is a note without an index in the catalog: not created",
                n.index, n.table
            ));
        }
    }
    (tables, indexes, notes)
}

/// Streams `rows` (dbgen's `a|b|c|` lines from tpchgen's Display) into `table` with COPY;
/// the number of rows copied.
pub fn copy_rows<T: std::fmt::Display>(
    client: &mut Client,
    table: &str,
    rows: impl Iterator<Item = T>,
) -> Result<u64, String> {
    let what = format!("COPY {table}");
    let mut w = client
        .copy_in(&format!("COPY {table} FROM STDIN (DELIMITER '|')"))
        .map_err(|e| db_err(&what, &e))?;
    let mut buf = String::with_capacity(1 << 20);
    for r in rows {
        // Writing to a String cannot fail.
        let _ = write!(buf, "{r}");
        // dbgen's lines end with the delimiter.
        if buf.ends_with('|') {
            buf.pop();
        }
        buf.push('\n');
        if buf.len() >= 1 << 20 {
            w.write_all(buf.as_bytes())
                .map_err(|e| format!("{what}: {e}"))?;
            buf.clear();
        }
    }
    w.write_all(buf.as_bytes())
        .map_err(|e| format!("{what}: {e}"))?;
    w.finish().map_err(|e| db_err(&what, &e))
}

/// A connection with `session` (e.g. `SET search_path = s`) run on it.
fn connect(dsn: &str, session: &str) -> Result<Client, String> {
    let mut c =
        Client::connect(dsn, NoTls).map_err(|e| db_err(&format!("connect to {dsn}"), &e))?;
    if !session.is_empty() {
        c.batch_execute(session).map_err(|e| db_err(session, &e))?;
    }
    Ok(c)
}

/// Generates DBT3 at `sf` and loads the eight tables of `cat` (dropped first if they are
/// there) on the server at `dsn`, each connection running `session` first (a search_path,
/// so the tables go into a schema of the caller's): lineitem on a connection of its own,
/// in parallel with the rest. Then the indexes and VACUUM (FREEZE, ANALYZE) of the eight
/// tables. Returns the index statements that could not be made (notes); `progress` hears
/// each step with its time.
pub fn load(
    dsn: &str,
    session: &str,
    cat: &Dbt3,
    sf: f64,
    progress: &dyn Fn(&str),
) -> Result<Vec<String>, String> {
    use tpchgen::generators::*;
    let (tables, indexes, notes) = ddl(cat);
    let mut c = connect(dsn, session)?;
    let names: Vec<&str> = cat.pg.iter().map(|t| t.name.as_str()).collect();
    let drop = format!("DROP TABLE IF EXISTS {} CASCADE", names.join(", "));
    c.batch_execute(&drop).map_err(|e| db_err(&drop, &e))?;
    for t in &tables {
        c.batch_execute(t).map_err(|e| db_err(t, &e))?;
    }
    let t0 = Instant::now();
    let (big, counts) = std::thread::scope(|s| {
        let big = s.spawn(|| -> Result<(u64, f64), String> {
            let mut c2 = connect(dsn, session)?;
            let n = copy_rows(&mut c2, "lineitem", LineItemGenerator::new(sf, 1, 1).iter())?;
            Ok((n, t0.elapsed().as_secs_f64()))
        });
        let mut counts = Vec::new();
        let mut rest = || -> Result<(), String> {
            counts.push((
                "region",
                copy_rows(&mut c, "region", RegionGenerator::new(sf, 1, 1).iter())?,
            ));
            counts.push((
                "nation",
                copy_rows(&mut c, "nation", NationGenerator::new(sf, 1, 1).iter())?,
            ));
            counts.push((
                "supplier",
                copy_rows(&mut c, "supplier", SupplierGenerator::new(sf, 1, 1).iter())?,
            ));
            counts.push((
                "part",
                copy_rows(&mut c, "part", PartGenerator::new(sf, 1, 1).iter())?,
            ));
            counts.push((
                "partsupp",
                copy_rows(&mut c, "partsupp", PartSuppGenerator::new(sf, 1, 1).iter())?,
            ));
            counts.push((
                "customer",
                copy_rows(&mut c, "customer", CustomerGenerator::new(sf, 1, 1).iter())?,
            ));
            counts.push((
                "orders",
                copy_rows(&mut c, "orders", OrderGenerator::new(sf, 1, 1).iter())?,
            ));
            Ok(())
        };
        let r = rest().map(|()| (counts, t0.elapsed().as_secs_f64()));
        let big = big
            .join()
            .unwrap_or_else(|_| Err("the lineitem loader panicked".into()));
        (big, r)
    });
    let (counts, rest_s) = counts?;
    let (lineitem, lineitem_s) = big?;
    progress(&format!(
        "{} in {rest_s:.1} s; lineitem {lineitem} in {lineitem_s:.1} s",
        counts
            .iter()
            .map(|(t, n)| format!("{t} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let t1 = Instant::now();
    for i in &indexes {
        c.batch_execute(i).map_err(|e| db_err(i, &e))?;
    }
    progress(&format!(
        "{} indexes in {:.1} s",
        indexes.len(),
        t1.elapsed().as_secs_f64()
    ));
    let t2 = Instant::now();
    // Alone: a multi-statement batch is one implicit transaction, where VACUUM may not run.
    // FREEZE visits every page: the visibility map covers the tables (index-only scans).
    c.batch_execute("SET default_statistics_target = 100")
        .map_err(|e| db_err("SET default_statistics_target", &e))?;
    let vacuum = format!("VACUUM (FREEZE, ANALYZE) {}", names.join(", "));
    c.batch_execute(&vacuum).map_err(|e| db_err(&vacuum, &e))?;
    // An autoanalyze that started on lineitem during the load holds back the horizon until
    // the VACUUM reaches lineitem and cancels it, so the tables vacuumed before it can be
    // left partly not all-visible (seen at SF 1: customer 1,818 of 3,585 pages, and the
    // server chose a Seq Scan where the model, with every page all-visible, took an
    // index-only scan). Once more for those: the visibility map the model assumes.
    let mut again = Vec::new();
    for t in &names {
        let row = c
            .query_one(
                "SELECT relpages, relallvisible FROM pg_class WHERE oid = $1::text::regclass",
                &[t],
            )
            .map_err(|e| db_err("pg_class", &e))?;
        let (pages, visible): (i32, i32) = (row.get(0), row.get(1));
        if visible < pages {
            again.push(*t);
        }
    }
    if !again.is_empty() {
        let vacuum = format!("VACUUM (FREEZE) {}", again.join(", "));
        c.batch_execute(&vacuum).map_err(|e| db_err(&vacuum, &e))?;
    }
    progress(&format!(
        "VACUUM (FREEZE, ANALYZE) in {:.1} s{}",
        t2.elapsed().as_secs_f64(),
        if again.is_empty() {
            String::new()
        } else {
            format!(
                " (again for {}: pages left not all-visible)",
                again.join(", ")
            )
        }
    ));
    Ok(notes)
}

/// What identifies a load (a kept cluster skips loading the same again): the scale
/// factor, the generator's release and every DDL statement.
pub fn fingerprint(cat: &Dbt3, sf: f64) -> String {
    let (t, i, _) = ddl(cat);
    format!(
        "sf={sf}\ntpchgen={TPCHGEN}\n{}\n{}\n",
        t.join(";\n"),
        i.join(";\n")
    )
}

/// The imported tables in the derived catalog's order, each with the derived catalog's
/// indexes in its order. `costlab import` skips BRIN and partial indexes (it does not model
/// them); those are added from the server: pages from pg_relation_size, the btree level
/// from pageinspect (0 for BRIN, as the derived catalog has it; -1 without pageinspect).
/// `notes` hears of imported indexes the catalog does not have (kept, at the end).
pub fn complete_import(
    client: &mut Client,
    cat: &Dbt3,
    imported: &[Table],
    notes: &mut Vec<String>,
) -> Result<Vec<Table>, String> {
    let mut out = Vec::new();
    for derived in &cat.pg {
        let mut t = imported
            .iter()
            .find(|t| t.name == derived.name)
            .ok_or_else(|| format!("{} was not imported", derived.name))?
            .clone();
        let mut indexes = Vec::new();
        for di in &derived.indexes {
            if let Some(i) = t.indexes.iter().find(|i| i.name == di.name) {
                indexes.push(i.clone());
                continue;
            }
            let brin = cat
                .pg_index_notes
                .iter()
                .any(|n| n.index == di.name && n.method == "brin");
            let row = client
                .query_one(
                    "SELECT pg_relation_size($1::text::regclass)::int8",
                    &[&di.name],
                )
                .map_err(|e| db_err(&format!("size of {}", di.name), &e))?;
            let bytes: i64 = row.get(0);
            let height = if brin {
                0.0
            } else {
                client
                    .query_one(
                        "SELECT fastlevel::int8 FROM bt_metap($1)",
                        &[&di.name.as_str()],
                    )
                    .map(|r| r.get::<_, i64>(0) as f64)
                    .unwrap_or(-1.0)
            };
            indexes.push(Index {
                name: di.name.clone(),
                columns: di.columns.clone(),
                include: di.include.clone(),
                unique: di.unique,
                primary: di.primary,
                pg: Some(PgIndex {
                    pages: (bytes / 8192) as f64,
                    tree_height: height,
                }),
                mysql: None,
                expressions: Vec::new(),
                method: Default::default(),
            });
        }
        for i in &t.indexes {
            if !indexes.iter().any(|x| x.name == i.name) {
                notes.push(format!(
                    "{}: imported index {} is not in the catalog",
                    t.name, i.name
                ));
                indexes.push(i.clone());
            }
        }
        t.indexes = indexes;
        out.push(t);
    }
    Ok(out)
}

pub use costlab_core::sql::PgQuery;

/// The kit's MySQL text made PostgreSQL's: [`costlab_core::sql::to_postgres`] (over
/// sqlparser's tree: `DATE_ADD` / `DATE_SUB` of constants evaluated to a date literal,
/// `SUBSTR(x FROM a FOR b)` as `SUBSTRING`, Q15's `CREATE VIEW` as `setup`, `DROP VIEW`
/// dropped), its error as text.
pub fn pg_dialect(sql: &str) -> Result<PgQuery, String> {
    costlab_core::sql::to_postgres(sql).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mysql_date_functions_become_literals() {
        assert_eq!(
            pg_dialect("SELECT 1 FROM t WHERE d < DATE_ADD('1996-01-01', INTERVAL 90 DAY) AND e >= DATE_SUB('1998-12-01', INTERVAL 3 MONTH);")
                .map(|q| q.select),
            Ok("SELECT 1 FROM t WHERE d < '1996-03-31' AND e >= '1998-09-01'".to_string())
        );
        let q15 = pg_dialect("CREATE VIEW v AS SELECT 1; SELECT * FROM v; DROP VIEW v;")
            .expect("Q15-like text");
        assert_eq!(q15.setup, vec!["CREATE VIEW v AS SELECT 1".to_string()]);
        assert_eq!(q15.select, "SELECT * FROM v");
        assert!(pg_dialect("SELECT 1; SELECT 2").is_err_and(|e| e.contains("two SELECTs")));
        assert!(pg_dialect("SELECT DATE_ADD(d, INTERVAL 1 DAY) FROM t")
            .is_err_and(|e| e.contains("not a constant date")));
    }
}
