//! Tables, indexes and column statistics, with what each engine stores about them.
//!
//! Logical facts (rows, columns, distributions) are engine-neutral; physical facts (pages,
//! tree heights, InnoDB sizes) live in the per-engine parts, because the same table occupies
//! 8 kB heap pages in PostgreSQL and 16 kB clustered-index pages in InnoDB.

use crate::error::{check_range, Error, Result};
use serde::{Deserialize, Serialize};

/// A constant in a predicate or a statistic. Dates are days since 1970-01-01.
#[derive(Clone, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Num(f64),
    Text(String),
}

impl Value {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Num(x) => Some(*x),
            Value::Text(_) => None,
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Num(x) => write!(f, "{x}"),
            Value::Text(s) => write!(f, "'{}'", s.replace('\'', "''")),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnType {
    Int4,
    Int8,
    Float8,
    Numeric,
    Date,
    Text,
    /// Fixed-width CHAR(n).
    Char(u32),
    Bool,
    /// PostgreSQL's geometric point (two float8, 16 bytes): it has no ordering, so no
    /// btree; a GiST index on it serves `ORDER BY p <-> point '(x,y)'` (kNN).
    Point,
}

/// Statistics about one column, in PostgreSQL's pg_stats conventions (MySQL uses what it
/// needs of them: distinct counts for records-per-key, the distribution for range estimates).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ColumnStats {
    pub null_frac: f64,
    /// > 0: number of distinct values; < 0: minus the fraction of rows (pg_stats.n_distinct).
    pub n_distinct: f64,
    /// Most common values with their frequencies, most common first.
    pub mcv: Vec<(Value, f64)>,
    /// Equi-depth histogram bounds over the non-MCV values, ascending.
    pub histogram: Vec<Value>,
    /// Physical order against value order, -1 to 1.
    pub correlation: f64,
    /// Average stored width in bytes.
    pub avg_width: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ColumnType,
    #[serde(default)]
    pub not_null: bool,
    #[serde(default)]
    pub stats: ColumnStats,
}

/// PostgreSQL's physical facts about a heap (pg_class and the relation's file size).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PgTable {
    /// Current number of 8 kB blocks of the heap.
    pub pages: f64,
    /// pg_class.reltuples (as stored, a float4 widened to f64).
    pub reltuples: f64,
    /// pg_class.relpages at the last VACUUM/ANALYZE.
    pub relpages: f64,
    #[serde(default)]
    pub relallvisible: f64,
}

/// InnoDB's statistics about a table (what SHOW TABLE STATUS and the handler report).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MysqlTable {
    /// handler stats.records.
    pub records: f64,
    /// Pages of the clustered index (stat_clustered_index_size).
    pub clustered_pages: f64,
    /// Pages of all secondary indexes together (stat_sum_of_other_index_sizes).
    pub secondary_pages: f64,
    #[serde(default = "innodb_page_bytes")]
    pub page_bytes: f64,
    /// Length in bytes of the primary key as stored in secondary index entries.
    #[serde(default = "four")]
    pub ref_length: f64,
}

fn innodb_page_bytes() -> f64 {
    16384.0
}
fn four() -> f64 {
    4.0
}

/// The index access method (pg_am.amname). MySQL's model knows btrees only and leaves
/// the others out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexMethod {
    #[default]
    Btree,
    /// GiST over point keys (point_ops): no range quals in costlab's model, but ordering
    /// by distance (amcanorderbyop) and index-only scans (point_ops can return the key).
    Gist,
}

impl IndexMethod {
    pub fn is_btree(&self) -> bool {
        *self == IndexMethod::Btree
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PgIndex {
    pub pages: f64,
    /// Btree levels above the leaves (root level); -1 when unknown.
    pub tree_height: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MysqlIndex {
    /// Bytes of the user key parts (key_length).
    pub key_length: f64,
    pub leaf_pages: f64,
    /// rec_per_key for each key prefix length, from index statistics.
    #[serde(default)]
    pub rec_per_key: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Index {
    pub name: String,
    pub columns: Vec<String>,
    #[serde(default)]
    pub include: Vec<String>,
    #[serde(default)]
    pub unique: bool,
    #[serde(default)]
    pub primary: bool,
    #[serde(default)]
    pub pg: Option<PgIndex>,
    #[serde(default)]
    pub mysql: Option<MysqlIndex>,
    /// The expression keys of an expression index (`CREATE INDEX ON supplier
    /// (fnorm(s_phone))`), with the statistics ANALYZE gathers for them (pg_stats rows
    /// under the index's name). A key of `columns` that is not a table column names one
    /// of these by its text, as pg_get_indexdef prints it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expressions: Vec<Column>,
    /// btree unless said otherwise.
    #[serde(default, skip_serializing_if = "IndexMethod::is_btree")]
    pub method: IndexMethod,
}

impl Index {
    /// The expression key named `key`, if `key` is one.
    pub fn expression(&self, key: &str) -> Option<&Column> {
        self.expressions
            .iter()
            .find(|e| e.name.eq_ignore_ascii_case(key))
    }

    /// Whether some key is an expression rather than a column.
    pub fn has_expression_keys(&self) -> bool {
        self.columns.iter().any(|c| self.expression(c).is_some())
    }

    /// Whether MySQL's model has this index: a btree on columns. MySQL 8 builds a
    /// functional index on hidden generated columns, which the model does not have, and
    /// a spatial index (its R-tree) is not modelled.
    pub fn in_mysql_model(&self) -> bool {
        self.method.is_btree() && !self.has_expression_keys()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub name: String,
    /// True number of rows (what the data holds; engines see their own estimates).
    pub rows: f64,
    pub columns: Vec<Column>,
    #[serde(default)]
    pub indexes: Vec<Index>,
    #[serde(default)]
    pub pg: Option<PgTable>,
    #[serde(default)]
    pub mysql: Option<MysqlTable>,
}

impl Table {
    pub fn column(&self, name: &str) -> Result<&Column> {
        self.columns
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::UnknownColumn {
                table: self.name.clone(),
                column: name.to_string(),
            })
    }

    pub fn index(&self, name: &str) -> Option<&Index> {
        self.indexes
            .iter()
            .find(|i| i.name.eq_ignore_ascii_case(name))
    }

    /// Checks every number a cost formula will divide by or take a log of.
    pub fn validate(&self) -> Result<()> {
        let t = &self.name;
        check_range(&format!("{t}.rows"), self.rows, 0.0, 1e15)?;
        let expressions = self.indexes.iter().flat_map(|i| &i.expressions);
        for c in self.columns.iter().chain(expressions) {
            let f = |x: &str| format!("{t}.{}.{x}", c.name);
            check_range(&f("null_frac"), c.stats.null_frac, 0.0, 1.0)?;
            check_range(&f("correlation"), c.stats.correlation, -1.0, 1.0)?;
            check_range(&f("n_distinct"), c.stats.n_distinct, -1.0, 1e15)?;
            check_range(&f("avg_width"), c.stats.avg_width, 0.0, 1e9)?;
            let mut total = 0.0;
            for (_, freq) in &c.stats.mcv {
                total += check_range(&f("mcv frequency"), *freq, 0.0, 1.0)?;
            }
            if total > 1.0 + 1e-6 {
                return Err(Error::invalid(
                    f("mcv"),
                    format!("frequencies add up to {total}"),
                ));
            }
            let nums: Vec<f64> = c.stats.histogram.iter().filter_map(Value::as_f64).collect();
            if nums.iter().any(|x| !x.is_finite()) || nums.windows(2).any(|w| w[0] > w[1]) {
                return Err(Error::invalid(
                    f("histogram"),
                    "bounds must be finite and ascending",
                ));
            }
        }
        if let Some(pg) = &self.pg {
            check_range(&format!("{t}.pg.pages"), pg.pages, 0.0, 1e13)?;
            check_range(&format!("{t}.pg.reltuples"), pg.reltuples, -1.0, 1e15)?;
            check_range(&format!("{t}.pg.relpages"), pg.relpages, 0.0, 1e13)?;
            check_range(
                &format!("{t}.pg.relallvisible"),
                pg.relallvisible,
                0.0,
                1e13,
            )?;
        }
        if let Some(m) = &self.mysql {
            check_range(&format!("{t}.mysql.records"), m.records, 0.0, 1e15)?;
            check_range(
                &format!("{t}.mysql.clustered_pages"),
                m.clustered_pages,
                0.0,
                1e13,
            )?;
            check_range(
                &format!("{t}.mysql.secondary_pages"),
                m.secondary_pages,
                0.0,
                1e13,
            )?;
            check_range(
                &format!("{t}.mysql.page_bytes"),
                m.page_bytes,
                1024.0,
                65536.0,
            )?;
            check_range(&format!("{t}.mysql.ref_length"), m.ref_length, 1.0, 3072.0)?;
        }
        for i in &self.indexes {
            for c in &i.columns {
                let ty = match i.expression(c) {
                    Some(e) => &e.ty,
                    None => &self.column(c)?.ty,
                };
                // A point has no btree operator class; the model's GiST knows points only.
                if (*ty == ColumnType::Point) != (i.method == IndexMethod::Gist) {
                    return Err(Error::invalid(
                        format!("index {}", i.name),
                        // ASCII lowercasing: `str::to_lowercase` would put Unicode's case
                        // tables (about 5 KB gzipped) in the page for one message.
                        format!(
                            "a {} index on {c} of type {}: btree keys cannot be points, \
                             and costlab models GiST over points only",
                            format!("{:?}", i.method).to_ascii_lowercase(),
                            format!("{ty:?}").to_ascii_lowercase()
                        ),
                    ));
                }
            }
            if i.method == IndexMethod::Gist && (i.unique || i.primary) {
                return Err(Error::invalid(
                    format!("index {}", i.name),
                    "GiST cannot be unique",
                ));
            }
            for c in &i.include {
                self.column(c)?;
            }
            if i.columns.is_empty() {
                return Err(Error::invalid(
                    format!("index {}", i.name),
                    "has no key columns",
                ));
            }
            if let Some(p) = &i.pg {
                check_range(&format!("{}.pg.pages", i.name), p.pages, 0.0, 1e13)?;
                check_range(
                    &format!("{}.pg.tree_height", i.name),
                    p.tree_height,
                    -1.0,
                    100.0,
                )?;
            }
            if let Some(m) = &i.mysql {
                check_range(
                    &format!("{}.mysql.key_length", i.name),
                    m.key_length,
                    1.0,
                    3072.0,
                )?;
                check_range(
                    &format!("{}.mysql.leaf_pages", i.name),
                    m.leaf_pages,
                    0.0,
                    1e13,
                )?;
            }
        }
        Ok(())
    }
}

/// A function of the user's schema as PostgreSQL's planner prices it (pg_proc.procost): a
/// call costs `procost` times cpu_operator_cost (cost_qual_eval_walker's FuncExpr and
/// OpExpr cases). Built-in functions and operators cost 1; a plpgsql function declared
/// without COST costs 100; the third seed's fnorm() and fgeo() are declared COST 5000.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Function {
    /// The name as the queries call it (unqualified, lower case).
    pub name: String,
    pub procost: f64,
    /// Measured wall time of one call in ns, when known. The simulation times a call
    /// with it; without it a call takes what the planner believes, procost operator
    /// evaluations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_ns: Option<f64>,
}

impl Function {
    /// A function priced at `procost` whose call time is not known.
    pub fn priced(name: impl Into<String>, procost: f64) -> Function {
        Function {
            name: name.into(),
            procost,
            call_ns: None,
        }
    }

    pub fn validate(&self) -> Result<()> {
        if self.name.trim().is_empty() {
            return Err(Error::invalid("function", "a function needs a name"));
        }
        if !(self.procost.is_finite() && self.procost >= 0.0 && self.procost <= 1e9) {
            return Err(Error::invalid(
                format!("function {} procost", self.name),
                format!(
                    "{} is not a cost (0 to 1e9 units of cpu_operator_cost)",
                    self.procost
                ),
            ));
        }
        if let Some(ns) = self.call_ns {
            if !(ns.is_finite() && ns > 0.0 && ns <= 1e12) {
                return Err(Error::invalid(
                    format!("function {} call_ns", self.name),
                    format!("{ns} is not the time of a call (ns, above 0, at most 1e12)"),
                ));
            }
        }
        Ok(())
    }
}
