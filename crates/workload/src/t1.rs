//! Table `t1` of WL#8737 (seed `mysql-wl8737-io-aware-cost-defaults.txt`): ten million rows
//! of `pk, i1..i8 INT NOT NULL, c1 CHAR(200)` with one-column indexes k1..k7 on i1..i7,
//! and the range query the worklog timed against a table scan.
//!
//! Seed facts: 10M records, average record 302 bytes, 2.9 GB data, 1.6 GB indexes. InnoDB's
//! view follows spec §7.1 (P = 2.9e9/16384 ≈ 177,002 pages). PostgreSQL's view is derived
//! from the column layout (see [`pg_tuple_bytes`]): the 302 bytes are InnoDB's average
//! *record* and include its own overhead (5-byte header, 6-byte trx id, 7-byte roll pointer)
//! and page fill, so they are not PostgreSQL's payload.

use costlab_model::catalog::{
    Column, ColumnStats, ColumnType, Index, MysqlIndex, MysqlTable, PgIndex, PgTable, Table, Value,
};
use costlab_model::error::{check_range, Result};
use costlab_model::query::{CmpOp, Predicate, Query};
/// The seed's two servers, as the MySQL model reads them.
pub use costlab_mysql::servers::{wl8737_disk_bound_env, wl8737_in_memory_env};

/// Rows in t1 (seed).
pub const ROWS: f64 = 10_000_000.0;
/// Clustered index ("data") and all secondary indexes, bytes (seed: 2.9 GB and 1.6 GB).
pub const DATA_BYTES: f64 = 2.9e9;
pub const INDEX_BYTES: f64 = 1.6e9;
/// Seed: "The average record size is 302 bytes" (InnoDB's figure).
pub const AVG_RECORD_BYTES: f64 = 302.0;
/// Distinct values of i8, equally frequent, so that `i8 = 2` keeps 10% of the rows
/// (the filter MySQL assumes for `=` without a histogram, spec §7.1).
pub const I8_VALUES: usize = 10;

const INNODB_PAGE: f64 = 16_384.0;

// ---- PostgreSQL storage layout ---------------------------------------------------------

/// BLCKSZ and the page header: 8192 - 24 = 8168 bytes for tuples and line pointers.
pub const PG_PAGE: f64 = 8192.0;
pub const PG_PAGE_USABLE: f64 = 8168.0;
/// HeapTupleHeaderData is 23 bytes, MAXALIGNed to 24 (no null bitmap: no NULLs stored).
pub const PG_TUPLE_HEADER: f64 = 24.0;
/// ItemIdData.
pub const PG_LINE_POINTER: f64 = 4.0;

fn maxalign(x: f64) -> f64 {
    (x / 8.0).ceil() * 8.0
}

fn align(x: f64, a: f64) -> f64 {
    (x / a).ceil() * a
}

/// (length, alignment) of a column's stored value in a heap tuple. CHAR(n) is a varlena
/// (`bpchar`) of n single-byte characters: a 4-byte header once it exceeds 126 bytes,
/// 1-byte (unaligned) below that.
fn pg_attr_layout(ty: &ColumnType, avg_width: f64) -> (f64, f64) {
    match ty {
        ColumnType::Int4 | ColumnType::Date => (4.0, 4.0),
        ColumnType::Int8 | ColumnType::Float8 => (8.0, 8.0),
        ColumnType::Bool => (1.0, 1.0),
        // Two float8, double-aligned.
        ColumnType::Point => (16.0, 8.0),
        ColumnType::Char(n) => varlena(*n as f64),
        // pg_stats.avg_width of a varlena is its stored size, header included.
        ColumnType::Numeric | ColumnType::Text => {
            if avg_width <= 127.0 {
                (avg_width, 1.0)
            } else {
                (avg_width, 4.0)
            }
        }
    }
}

fn varlena(payload: f64) -> (f64, f64) {
    if payload + 1.0 <= 127.0 {
        (payload + 1.0, 1.0)
    } else {
        (payload + 4.0, 4.0)
    }
}

/// Bytes of one heap tuple: header plus the aligned column data, MAXALIGNed.
pub fn pg_tuple_bytes(columns: &[Column]) -> f64 {
    maxalign(pg_tuple_data_bytes(columns))
}

/// Header plus the aligned column data, before the tuple's MAXALIGN.
pub fn pg_tuple_data_bytes(columns: &[Column]) -> f64 {
    let mut off = 0.0;
    for c in columns {
        let (len, a) = pg_attr_layout(&c.ty, c.stats.avg_width);
        off = align(off, a) + len;
    }
    PG_TUPLE_HEADER + off
}

/// Tuples per 8 kB heap page (each also takes a line pointer), at fillfactor 100.
pub fn pg_tuples_per_page(tuple_bytes: f64) -> f64 {
    (PG_PAGE_USABLE / (tuple_bytes + PG_LINE_POINTER)).floor()
}

/// A btree built by CREATE INDEX on `rows` single int4 keys: (pages incl. the metapage,
/// levels above the leaves). Index tuples are 8 + 4 bytes MAXALIGNed to 16, plus a line
/// pointer; pages have 8152 bytes after header and special space; nbtsort fills leaves to
/// 90% and inner pages to 70%, and each full page gives one item up as its high key.
pub fn pg_int4_btree(rows: f64) -> (f64, f64) {
    let item = 16.0 + PG_LINE_POINTER;
    let free = PG_PAGE - 24.0 - 16.0;
    let per_page = |fill: f64| {
        // Items go in while the free space is at least the fill target: that is
        // floor((free - stop) / item) + 1 of them, one of which becomes the high key.
        let stop = PG_PAGE * (1.0 - fill);
        ((free - stop) / item).floor()
    };
    let leaf = (rows / per_page(0.9)).ceil().max(1.0);
    let mut pages = leaf;
    let mut level = leaf;
    let mut height = 0.0;
    while level > 1.0 {
        level = (level / per_page(0.7)).ceil();
        pages += level;
        height += 1.0;
    }
    (pages + 1.0, height)
}

// ---- InnoDB layout ---------------------------------------------------------------------

/// Leaf pages of an InnoDB B-tree of `total_pages` pages whose node pointers are
/// `ptr_bytes` long (non-leaf pages filled to 15/16).
fn innodb_leaf_pages(total_pages: f64, ptr_bytes: f64) -> f64 {
    let fanout = (INNODB_PAGE * 15.0 / 16.0 / ptr_bytes).floor();
    let mut internal = 0.0;
    let mut level = total_pages;
    while level > 1.0 {
        level = (level / fanout).ceil();
        internal += level;
    }
    (total_pages - internal).max(1.0)
}

fn int_col(name: &str, stats: ColumnStats) -> Column {
    Column {
        name: name.into(),
        ty: ColumnType::Int4,
        not_null: true,
        stats,
    }
}

/// Values spread evenly over `lo..hi`, one row each: 101 histogram bounds.
fn uniform_unique(lo: f64, hi: f64, correlation: f64) -> ColumnStats {
    ColumnStats {
        null_frac: 0.0,
        n_distinct: -1.0,
        mcv: Vec::new(),
        histogram: (0..=100)
            .map(|i| Value::Num(lo + (hi - lo) * i as f64 / 100.0))
            .collect(),
        correlation,
        avg_width: 4.0,
    }
}

/// InnoDB's page counts of a t1-like table (16 kB pages), as `mysql.innodb_table_stats`
/// and `mysql.innodb_index_stats` report them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InnodbSizes {
    /// The clustered index, all levels.
    pub clustered_pages: f64,
    /// All seven secondary indexes together, all levels.
    pub secondary_pages: f64,
    pub clustered_leaf_pages: f64,
    /// Leaf pages of one secondary index.
    pub secondary_leaf_pages: f64,
}

impl InnodbSizes {
    /// The seed's t1 (spec §7.1): 2.9 GB of data and 1.6 GB of indexes.
    pub fn seed() -> InnodbSizes {
        let clustered_pages = (DATA_BYTES / INNODB_PAGE).round();
        let secondary_pages = (INDEX_BYTES / INNODB_PAGE).round();
        // Node pointers: key (4) + PK (4, secondary only) + child page (4) + header and
        // directory (7).
        InnodbSizes {
            clustered_pages,
            secondary_pages,
            clustered_leaf_pages: innodb_leaf_pages(clustered_pages, 4.0 + 11.0).round(),
            secondary_leaf_pages: innodb_leaf_pages(secondary_pages / 7.0, 4.0 + 4.0 + 11.0)
                .round(),
        }
    }
}

/// The table as both engines store it, with statistics.
pub fn t1_table() -> Table {
    t1_like_table(ROWS, &InnodbSizes::seed())
}

/// A table shaped like t1 with `rows` rows (pk 1..=rows; i1..i7 spread evenly over
/// 0..rows; i8 ten values; c1 CHAR(200)) and InnoDB's measured sizes: what
/// `costlab-probe validate innodb` builds on a real server. PostgreSQL's sizes follow
/// from the rows.
pub fn t1_like_table(rows: f64, innodb: &InnodbSizes) -> Table {
    let mut columns = vec![int_col("pk", uniform_unique(1.0, rows + 1.0, 1.0))];
    for i in 1..=7 {
        columns.push(int_col(&format!("i{i}"), uniform_unique(0.0, rows, 0.0)));
    }
    columns.push(int_col(
        "i8",
        ColumnStats {
            n_distinct: I8_VALUES as f64,
            mcv: (0..I8_VALUES)
                .map(|v| (Value::Num(v as f64), 1.0 / I8_VALUES as f64))
                .collect(),
            avg_width: 4.0,
            ..Default::default()
        },
    ));
    columns.push(Column {
        name: "c1".into(),
        ty: ColumnType::Char(200),
        not_null: false,
        stats: ColumnStats {
            n_distinct: -1.0,
            // bpchar(200): 200 bytes plus a 4-byte varlena header.
            avg_width: 204.0,
            ..Default::default()
        },
    });

    // PostgreSQL: heap from the tuple layout, btrees for int4 keys.
    let tuple = pg_tuple_bytes(&columns);
    let heap_pages = (rows / pg_tuples_per_page(tuple)).ceil();
    let (btree_pages, btree_height) = pg_int4_btree(rows);
    let pg_index = || {
        Some(PgIndex {
            pages: btree_pages,
            tree_height: btree_height,
        })
    };

    let clustered_leaf = innodb.clustered_leaf_pages;
    let secondary_leaf = innodb.secondary_leaf_pages;

    let mut indexes = vec![Index {
        name: "PRIMARY".into(),
        columns: vec!["pk".into()],
        include: Vec::new(),
        unique: true,
        primary: true,
        pg: pg_index(),
        mysql: Some(MysqlIndex {
            key_length: 4.0,
            leaf_pages: clustered_leaf,
            rec_per_key: vec![1.0],
        }),
        expressions: Vec::new(),
        method: Default::default(),
    }];
    for i in 1..=7 {
        indexes.push(Index {
            name: format!("k{i}"),
            columns: vec![format!("i{i}")],
            include: Vec::new(),
            unique: false,
            primary: false,
            pg: pg_index(),
            mysql: Some(MysqlIndex {
                key_length: 4.0,
                leaf_pages: secondary_leaf,
                rec_per_key: vec![1.0],
            }),
            expressions: Vec::new(),
            method: Default::default(),
        });
    }
    Table {
        name: "t1".into(),
        rows,
        columns,
        indexes,
        pg: Some(PgTable {
            pages: heap_pages,
            reltuples: rows,
            relpages: heap_pages,
            // Loaded, then VACUUM ANALYZE: every page all-visible.
            relallvisible: heap_pages,
        }),
        mysql: Some(MysqlTable {
            records: rows,
            clustered_pages: innodb.clustered_pages,
            secondary_pages: innodb.secondary_pages,
            page_bytes: INNODB_PAGE,
            ref_length: 4.0,
        }),
    }
}

/// `(L, U)` such that `i7 > L AND i7 < U` holds `round(fraction × 10M)` rows: i7 takes
/// each value of 0..10M once, so L = -1 and U = the row count.
pub fn t1_bounds(fraction: f64) -> Result<(f64, f64)> {
    let f = check_range("fraction of t1", fraction, 0.0, 1.0)?;
    Ok((-1.0, (f * ROWS).round()))
}

/// The SQL of [`t1_query`] on a t1-like table of `rows` rows (i7 spread evenly over
/// 0..rows): about `fraction × rows` rows in the range.
pub fn t1_like_sql(rows: f64, fraction: f64) -> Result<String> {
    let f = check_range("fraction of t1", fraction, 0.0, 1.0)?;
    Ok(format!(
        "SELECT * FROM t1 WHERE i7 > -1 AND i7 < {} AND i8 = 2",
        (f * rows).round()
    ))
}

/// `SELECT * FROM t1 WHERE i7 > L AND i7 < U AND i8 = 2` with the range holding the true
/// `fraction` (0..=1) of the rows; out of range or NaN is a typed error.
pub fn t1_query(fraction: f64) -> Result<Query> {
    let (lo, hi) = t1_bounds(fraction)?;
    Ok(query_between(lo, hi))
}

/// [`t1_query`] kept for a sweep: [`T1Query::at`] moves the bounds of the one query in
/// place, where building a new query per point would allocate its strings every time.
#[derive(Clone, Debug)]
pub struct T1Query(Query);

impl Default for T1Query {
    fn default() -> T1Query {
        T1Query(query_between(-1.0, 0.0))
    }
}

impl T1Query {
    pub fn new() -> T1Query {
        T1Query::default()
    }

    /// The query at `fraction`: the same as `t1_query(fraction)`, same errors.
    pub fn at(&mut self, fraction: f64) -> Result<&Query> {
        let (lo, hi) = t1_bounds(fraction)?;
        // The two i7 bounds lead the predicates (see `query_between`).
        for (p, bound) in self.0.predicates.iter_mut().zip([lo, hi]) {
            if let Predicate::Cmp { value, .. } = p {
                *value = Value::Num(bound);
            }
        }
        Ok(&self.0)
    }
}

/// `i7 > lo AND i7 < hi AND i8 = 2`.
fn query_between(lo: f64, hi: f64) -> Query {
    let cmp = |column: &str, op, v: f64| Predicate::Cmp {
        column: column.into(),
        op,
        value: Value::Num(v),
    };
    Query {
        table: "t1".into(),
        select: Vec::new(),
        predicates: vec![
            cmp("i7", CmpOp::Gt, lo),
            cmp("i7", CmpOp::Lt, hi),
            cmp("i8", CmpOp::Eq, 2.0),
        ],
        order_by: Vec::new(),
        limit: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use costlab_model::Error;

    #[test]
    fn innodb_sizes_follow_spec_7_1() {
        let t = t1_table();
        t.validate().unwrap();
        let m = t.mysql.as_ref().unwrap();
        // spec §7.1: P = 2.9e9/16384 ≈ 177,002.
        assert_eq!(m.clustered_pages, 177_002.0);
        assert_eq!(m.secondary_pages, 97_656.0);
        let k7 = t.index("k7").unwrap().mysql.as_ref().unwrap();
        // Leaves are the pages minus a few dozen node-pointer pages.
        assert!(
            (13_900.0..13_951.0).contains(&k7.leaf_pages),
            "{}",
            k7.leaf_pages
        );
    }

    #[test]
    fn postgres_layout_of_t1() {
        let t = t1_table();
        // 9 int4 (36 B) + bpchar(200) with a 4-byte header (204 B) = 240 B of data,
        // + 24 B header = 264 B, + 4 B line pointer: 30 tuples per 8168 B.
        assert_eq!(pg_tuple_bytes(&t.columns), 264.0);
        assert_eq!(pg_tuples_per_page(264.0), 30.0);
        assert_eq!(t.pg.as_ref().unwrap().pages, 333_334.0);
        // A 10M-row int4 btree: 366 keys per 90%-full leaf -> 27,323 leaves, 2 levels above,
        // 27,422 pages with the metapage (the size of pgbench_accounts_pkey at scale 100).
        let (pages, height) = pg_int4_btree(ROWS);
        assert_eq!(height, 2.0);
        assert_eq!(pages, 27_422.0);
    }

    #[test]
    fn query_selects_the_true_fraction() {
        for f in [0.0, 0.01, 0.09, 0.2, 1.0] {
            let q = t1_query(f).unwrap();
            let (lo, hi) = t1_bounds(f).unwrap();
            // i7 takes 0..10M once each: values lo+1 ..= hi-1.
            assert_eq!(hi - lo - 1.0, (f * ROWS).round());
            assert_eq!(q.predicates.len(), 3);
            q.check(&t1_table()).unwrap();
        }
    }

    #[test]
    fn the_kept_query_is_the_query_at_each_fraction() {
        let mut kept = T1Query::new();
        for f in [0.3, 0.0, 0.01, 0.123456789, 1.0, 0.2] {
            assert_eq!(kept.at(f).unwrap(), &t1_query(f).unwrap());
        }
        assert!(kept.at(f64::NAN).is_err());
        assert_eq!(kept.at(0.05).unwrap(), &t1_query(0.05).unwrap());
    }

    #[test]
    fn fraction_outside_zero_to_one_is_a_typed_error() {
        for bad in [-0.01, 1.5, f64::NAN, f64::INFINITY] {
            match t1_query(bad) {
                Err(Error::OutOfRange { .. }) | Err(Error::NotFinite { .. }) => {}
                other => panic!("{bad}: {other:?}"),
            }
        }
    }
}
