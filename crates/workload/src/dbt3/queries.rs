//! The 22 DBT3 queries with their validation parameters (`dbt3.md` §3), read from their SQL
//! text (`sql.rs`, the kit's MySQL dialect) by the SQL front end ([`costlab_sql`]) into the
//! query blocks both engines' join planners read, and beside each the truth the simulation
//! counts with ([`TRUTH`]). Also the executor calibration's hashing and sorting queries.

use crate::dbt3::catalog::check_sf;
use crate::dbt3::sql::SQL;
use costlab_model::block::*;
use costlab_model::catalog::Table;
use costlab_model::error::{Error, Result};
use costlab_model::plan::Name;

// ---- calibration queries ---------------------------------------------------------------

/// The executor calibration's queries of hashing and sorting, by name: SQL over the probe's
/// calibration table `cal` (`a` = 0 .. n-1, `b` random in 0 .. n, `c` = `a` % 1000; n =
/// 400,000), never over DBT3's tables, so that the figures they give predict the DBT3
/// queries rather than fit them. Each stays within work_mem's 4 MB (no spill). `None`: not
/// one of them.
pub fn calibration_sql(name: &str) -> Option<&'static str> {
    Some(match name {
        // 100,000 build rows (c1, megabytes: beyond the CPU's caches), 400,000 probe rows
        // (c2) in random order; c2.b meets c1.a for a quarter.
        CAL_HASH_JOIN => {
            "SELECT count(*) FROM cal c1 JOIN cal c2 ON c2.b = c1.a WHERE c1.a < 100000"
        }
        // 1,000 build rows (a table the CPU's caches hold), the same 400,000 probes, of
        // which 1,000 meet a row.
        CAL_HASH_JOIN_SMALL => {
            "SELECT count(*) FROM cal c1 JOIN cal c2 ON c2.b = c1.a WHERE c1.a < 1000"
        }
        // 100,000 rows into 1,000 groups.
        CAL_HASH_AGGREGATE => "SELECT c, count(*) FROM cal WHERE a < 100000 GROUP BY c",
        // 50,000 rows sorted by a random key: about 780,000 comparisons.
        CAL_SORT => "SELECT a, b FROM cal WHERE a < 50000 ORDER BY b",
        _ => return None,
    })
}

/// A calibration query ([`calibration_sql`]) read against `tables` (the calibration
/// scenario's, with `cal`), with its true output rows.
pub fn calibration_query(name: &str, tables: &[Table]) -> Option<Result<JoinQuery>> {
    let sql = calibration_sql(name)?;
    let groups = match name {
        CAL_HASH_AGGREGATE => 1000.0,
        CAL_SORT => 0.0,
        _ => 1.0,
    };
    Some(
        costlab_sql::read_query(sql, costlab_sql::Dialect::Postgres, tables).map(|mut block| {
            block.true_groups = groups;
            JoinQuery {
                number: 0,
                title: Name::from_static("executor calibration"),
                sql: Name::from_static(sql),
                block,
            }
        }),
    )
}

/// Names of the calibration queries [`calibration_sql`] knows.
pub const CAL_HASH_JOIN: &str = "cal hash join";
pub const CAL_HASH_JOIN_SMALL: &str = "cal hash join small";
pub const CAL_HASH_AGGREGATE: &str = "cal hash aggregate";
pub const CAL_SORT: &str = "cal sort";

// ---- the queries -----------------------------------------------------------------------

/// Query `n` (1..=22) at scale factor `sf` (Q11's fraction is 0.0001/SF), read from its SQL
/// text with its truth.
pub fn query(n: u8, sf: f64) -> Result<JoinQuery> {
    check_sf(sf)?;
    read(n, sf, &crate::dbt3::catalog::dbt3(sf)?.pg)
}

/// All 22 queries.
pub fn all(sf: f64) -> Result<Vec<JoinQuery>> {
    check_sf(sf)?;
    let tables = crate::dbt3::catalog::dbt3(sf)?.pg;
    (1..=22).map(|n| read(n, sf, &tables)).collect()
}

/// Query `n` read against `tables` (DBT3's at scale factor `sf`), with its truth at `sf`.
pub fn read(n: u8, sf: f64, tables: &[Table]) -> Result<JoinQuery> {
    if !(1..=22).contains(&n) {
        return Err(Error::invalid(
            "DBT3 query",
            format!("{n} is not a query number; use 1 to 22"),
        ));
    }
    let (_, title, sql) = SQL[n as usize - 1];
    let mut block = costlab_sql::read_query(sql, costlab_sql::Dialect::Mysql, tables)?;
    TRUTH[n as usize - 1].apply(&mut block, sf)?;
    Ok(JoinQuery {
        number: n,
        title: Name::from_static(title),
        sql: Name::from_static(sql),
        block,
    })
}

/// What the simulation counts with, from the generated data (`dbt3.md` §1.4 and §3), beside
/// each query's SQL: a filter's true selectivity by the start of its text, each semi or anti
/// nest's true share of outer rows with a match (in the order the query names them), and
/// true output groups by block (0 the query, then depth first: a table's derived block,
/// then the sub-selects, in order) at scale factor 1, `true` where they grow with it.
pub(crate) struct Truth {
    pub filters: &'static [(&'static str, f64)],
    pub nests: &'static [f64],
    pub groups: &'static [(usize, f64, bool)],
}

const fn truth(
    filters: &'static [(&'static str, f64)],
    nests: &'static [f64],
    groups: &'static [(usize, f64, bool)],
) -> Truth {
    Truth {
        filters,
        nests,
        groups,
    }
}

/// The truth of query n at index n - 1.
pub(crate) const TRUTH: [Truth; 22] = [
    truth(&[], &[], &[(0, 4.0, false)]),
    truth(
        &[
            ("p_type LIKE '%BRASS'", 0.2),
            // The correlated MIN per part over the four partsupp rows of a European
            // supplier.
            ("ps_supplycost = (SELECT", 460.0 / 642.0),
        ],
        &[],
        &[(0, 460.0, true)],
    ),
    truth(&[], &[], &[(0, 11_620.0, true)]),
    truth(
        &[("l_commitdate < l_receiptdate", 0.6321)],
        &[0.918],
        &[(0, 5.0, false)],
    ),
    truth(&[], &[], &[(0, 5.0, false)]),
    truth(&[], &[], &[(0, 1.0, false)]),
    // 2 of 625 nation pairs.
    truth(
        &[("(n1.n_name = 'FRANCE'", 2.0 / 625.0)],
        &[],
        &[(0, 4.0, false)],
    ),
    truth(&[], &[], &[(0, 2.0, false)]),
    truth(
        &[("p_name LIKE '%green%'", 5.0 / 92.0)],
        &[],
        &[(0, 175.0, false)],
    ),
    truth(&[], &[], &[(0, 37_967.0, true)]),
    truth(&[], &[], &[(0, 1_048.0, true)]),
    truth(
        &[
            ("l_commitdate < l_receiptdate", 0.6321),
            // Jointly 0.1197 (§1.4), not the product 0.308: the second given the first.
            ("l_shipdate < l_commitdate", 0.1197 / 0.6321),
        ],
        &[],
        &[(0, 2.0, false)],
    ),
    // The second aggregation level's 42 rows.
    truth(&[("o_comment NOT LIKE", 0.989)], &[], &[(0, 42.0, false)]),
    truth(&[], &[], &[(0, 1.0, false)]),
    // Revenue per supplier over 90 days of ship dates, in the query and in its sub-select.
    truth(
        &[("total_revenue = (SELECT", 1e-4)],
        &[],
        &[(0, 1.0, false), (1, 10_000.0, true), (3, 10_000.0, true)],
    ),
    truth(
        &[
            ("p_brand <> 'Brand#45'", 0.96),
            ("p_type NOT LIKE 'MEDIUM POLISHED%'", 145.0 / 150.0),
            ("s_comment LIKE", 0.0005),
        ],
        &[0.0005],
        &[(0, 18_314.0, false)],
    ),
    truth(
        &[("l_quantity < (SELECT", 587.0 / 6_088.0)],
        &[],
        &[(0, 1.0, false)],
    ),
    truth(
        &[("o_orderkey IN (SELECT", 57.0 / 1_500_000.0)],
        &[],
        &[(0, 57.0, true), (1, 57.0, true)],
    ),
    truth(
        &[(
            "(p_partkey = l_partkey AND p_brand = 'Brand#12'",
            121.0 / 6_001_215.0,
        )],
        &[],
        &[(0, 1.0, false)],
    ),
    // Both INs flatten into one semi-join nest {partsupp, part} (§3 Q20).
    truth(
        &[
            ("p_name LIKE 'forest%'", 1.0 / 92.0),
            ("ps_availqty > (SELECT", 0.686),
        ],
        &[186.0 / 412.0],
        &[(0, 186.0, true)],
    ),
    // 75,871 rows before, 4,141 after both (§3 Q21): orders with several lines nearly
    // always have another supplier (6/7), and few have no other late line.
    truth(
        &[
            ("l1.l_receiptdate > l1.l_commitdate", 0.6321),
            ("l2.l_suppkey <> l1.l_suppkey", 0.75),
            ("l3.l_suppkey <> l1.l_suppkey", 0.75),
            ("l3.l_receiptdate > l3.l_commitdate", 0.6321),
        ],
        &[6.0 / 7.0, 1.0 - 4_141.0 / 75_871.0 * 7.0 / 6.0],
        &[(0, 411.0, true)],
    ),
    truth(
        &[
            ("SUBSTR(c_phone FROM 1 FOR 2) IN", 0.28),
            ("c_acctbal > (SELECT", 0.455),
        ],
        &[2.0 / 3.0],
        &[(0, 7.0, false)],
    ),
];

impl Truth {
    /// Sets the truth of every filter, nest and block of `block` (from SQL text), with
    /// true groups at scale factor `sf`; a filter or nest without its truth is an error.
    pub(crate) fn apply(&self, block: &mut QueryBlock, sf: f64) -> Result<()> {
        let mut next = 0;
        self.apply_block(block, sf, &mut next)
    }

    fn apply_block(&self, block: &mut QueryBlock, sf: f64, next: &mut usize) -> Result<()> {
        let me = *next;
        *next += 1;
        block.true_groups = 0.0;
        if let Some(&(_, g, scales)) = self.groups.iter().find(|(i, _, _)| *i == me) {
            block.true_groups = if scales { g * sf } else { g };
        }
        for f in &mut block.filters {
            let Some(&(_, sel)) = self.filters.iter().find(|(p, _)| f.sql.starts_with(p)) else {
                return Err(Error::invalid(
                    "DBT3 truth",
                    format!("no true selectivity for `{}`", f.sql),
                ));
            };
            f.true_selectivity = sel;
        }
        for (k, n) in block.nests.iter_mut().enumerate() {
            n.true_match = *self.nests.get(k).ok_or_else(|| {
                Error::invalid("DBT3 truth", format!("no true match share for nest {k}"))
            })?;
        }
        for t in &mut block.tables {
            if let Source::Derived { block, .. } = &mut t.source {
                self.apply_block(block, sf, next)?;
            }
        }
        for s in &mut block.subqueries {
            self.apply_block(&mut s.block, sf, next)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dbt3::catalog::dbt3;

    #[test]
    fn every_query_names_real_tables_and_columns() {
        let d = dbt3(1.0).unwrap();
        fn check(b: &QueryBlock, d: &crate::dbt3::catalog::Dbt3) {
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
