//! What the cost functions consume (spec section 2), gathered as plancat.c's
//! get_relation_info and estimate_rel_size do: heap and index sizes, the restriction
//! clauses with their evaluation cost, row estimate (set_baserel_size_estimates) and width.
//!
//! Everything is gathered once per `plan()` call into a [`Rel`] (`pathnodes.rs`), the
//! counterpart of PostgreSQL's `RelOptInfo` for a single base table.

use costlab_model::catalog::{Column, ColumnStats, ColumnType, Index, IndexMethod, Table, Value};
use costlab_model::error::{Error, Result};
use costlab_model::plan::Name;
use costlab_model::query::{CmpOp, Predicate, Query};

use super::pathnodes::*;
use super::selfuncs;
use std::borrow::Cow;

/// BLCKSZ minus the 24-byte page header (spec 2.1 step 4).
const USABLE_BYTES_PER_PAGE: f64 = 8168.0;
/// MAXALIGN(23-byte tuple header) + 4-byte line pointer (spec 2.1 step 4).
const OVERHEAD_BYTES_PER_TUPLE: f64 = 28.0;

fn is_numeric_type(ty: &ColumnType) -> bool {
    !matches!(ty, ColumnType::Text | ColumnType::Char(_))
}

impl IndexExpression {
    /// The heap columns `text` names and its built-in cost: one operator call per
    /// function call (`name(`) and per cast of a CHAR column to text (bpchar's `text()`
    /// cast is a function; pg_get_indexdef prints it as `(col)::text`).
    fn of(text: &str, table: &Table, heap: &ColumnNames) -> IndexExpression {
        let mut reads = Vec::new();
        let mut eval_ops = 0.0;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b == b'\'' {
                // A literal: skip to its closing quote.
                i += 1;
                while i < bytes.len() && bytes[i] != b'\'' {
                    i += 1;
                }
                i += 1;
                continue;
            }
            if b.is_ascii_alphabetic() || b == b'_' {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let word = &text[start..i];
                let called = text[i..].trim_start().starts_with('(');
                let after_cast = text[..start].trim_end().ends_with("::");
                if called {
                    eval_ops += 1.0;
                } else if !after_cast {
                    if let Some(c) = heap.position(word) {
                        if !reads.contains(&c) {
                            reads.push(c);
                        }
                        if matches!(table.columns[c].ty, ColumnType::Char(_)) {
                            eval_ops += 1.0;
                        }
                    }
                }
                continue;
            }
            i += 1;
        }
        IndexExpression {
            eval_ops,
            calls: 0.0,
            reads,
        }
    }
}

/// Brings a constant to the column's type the way PostgreSQL's parser would accept it:
/// numbers for numeric columns (a quoted number or date literal is coerced), text for
/// text columns (a bare number against text is a type error in PostgreSQL).
fn coerce_value(col: &ColInfo, v: &Value) -> Result<Value> {
    match (is_numeric_type(&col.ty), v) {
        (true, Value::Num(_)) | (false, Value::Text(_)) => Ok(v.clone()),
        (true, Value::Text(s)) => {
            let parsed = match col.ty {
                // PostgreSQL's own words for a date that does not exist ('1995-02-30').
                ColumnType::Date => match costlab_model::date::parse(s) {
                    Ok(d) => Some(d as f64),
                    Err(e) => {
                        return Err(Error::invalid(
                            "predicate",
                            format!("column {}: {e}", col.name),
                        ))
                    }
                },
                ColumnType::Bool => match s.trim().to_ascii_lowercase().as_str() {
                    "t" | "true" | "yes" | "on" | "1" => Some(1.0),
                    "f" | "false" | "no" | "off" | "0" => Some(0.0),
                    _ => None,
                },
                _ => costlab_model::num::parse_f64(s.trim()).filter(|x| x.is_finite()),
            };
            parsed.map(Value::Num).ok_or_else(|| {
                Error::invalid(
                    "predicate",
                    format!("'{s}' is not a valid value for column {}", col.name),
                )
            })
        }
        (false, Value::Num(x)) => Err(Error::invalid(
            "predicate",
            format!(
                "column {} is text; compare it with a quoted string, not {x}",
                col.name
            ),
        )),
    }
}

/// Rounds the float4 catalog columns of pg_statistic (spec 11).
fn stats_as_stored(s: &ColumnStats) -> ColumnStats {
    ColumnStats {
        null_frac: float4(s.null_frac),
        n_distinct: float4(s.n_distinct),
        mcv: s.mcv.iter().map(|(v, f)| (v.clone(), float4(*f))).collect(),
        histogram: s.histogram.clone(),
        correlation: float4(s.correlation),
        // stawidth is an int4.
        avg_width: s.avg_width.round(),
    }
}

/// cost_qual_eval for one clause (spec 2.5), in operator calls. An IN list of n < 9
/// constants is a linear ScalarArrayOp charged for half the elements per row; with
/// n >= 9 the planner has already made it a hashed ScalarArrayOp: n hash calls at
/// startup to build the table, then one hash and one comparison per row.
fn clause_ops(kind: &ClauseKind) -> QualOps {
    match kind {
        ClauseKind::Op { .. } => QualOps {
            startup: 0.0,
            per_tuple: 1.0,
        },
        ClauseKind::AnyEq { values } => QualOps::in_list(values.len()),
    }
}

/// A clause on column position `col`, its selectivity still to be estimated.
fn clause(col: usize, kind: ClauseKind) -> Clause {
    Clause {
        col,
        ops: clause_ops(&kind),
        kind,
        selec: 0.0,
    }
}

/// Physical heap size when the table carries no PostgreSQL facts: a freshly loaded,
/// analyzed heap with the default density.
fn synthesize_pg_table(table: &Table, data_width: f64) -> costlab_model::catalog::PgTable {
    let density = default_density(data_width);
    let pages = (table.rows / density).ceil();
    costlab_model::catalog::PgTable {
        pages,
        reltuples: table.rows,
        relpages: pages,
        relallvisible: 0.0,
    }
}

/// Tuples per page without statistics (spec 2.1 step 4), fillfactor 100, integer division.
fn default_density(data_width: f64) -> f64 {
    let tuple_width = data_width.floor() + OVERHEAD_BYTES_PER_TUPLE;
    clamp_row_est((USABLE_BYTES_PER_PAGE / tuple_width).floor())
}

/// Index size when the index carries no PostgreSQL facts: a fresh btree with 90%-full
/// leaves of (8-byte header + MAXALIGN(keys) + 4-byte line pointer) entries, its
/// internal levels and the metapage.
fn synthesize_pg_index(tuples: f64, key_width: f64) -> costlab_model::catalog::PgIndex {
    let entry = 8.0 + (key_width / 8.0).ceil() * 8.0 + 4.0;
    let per_leaf = ((8192.0 - 24.0 - 16.0) * 0.9 / entry).floor().max(2.0);
    let per_internal = ((8192.0 - 24.0 - 16.0) * 0.7 / entry).floor().max(2.0);
    let leaves = (tuples / per_leaf).ceil().max(1.0);
    let mut pages = leaves + 1.0;
    let mut level = leaves;
    let mut height = 0.0;
    while level > 1.0 {
        level = (level / per_internal).ceil();
        pages += level;
        height += 1.0;
    }
    costlab_model::catalog::PgIndex {
        pages,
        tree_height: height,
    }
}

/// A GiST index over points built from a whole table: a leaf entry is an 8-byte index
/// tuple header, the point's 32-byte bounding box (gist_point_compress) and a 4-byte line
/// pointer; GiST's splits leave pages about 65 % full (50,000 random points: 414 pages
/// in PostgreSQL 15 and 18). The internal levels add about 1 %. Measured, not derived: an
/// imported index has its real size.
fn synthesize_gist_index(tuples: f64) -> costlab_model::catalog::PgIndex {
    let per_page = (8168.0 * 0.65 / 44.0_f64).floor();
    let leaves = (tuples / per_page).ceil().max(1.0);
    costlab_model::catalog::PgIndex {
        pages: leaves + (leaves / 100.0).ceil() + 1.0,
        tree_height: -1.0,
    }
}

impl TableInfo {
    /// The query-independent half of spec section 2: stored statistics, heap size and
    /// indexes. A prepared table builds this once; every query then borrows it.
    pub fn build(table: &Table) -> Result<TableInfo> {
        // Heap columns first, then each distinct expression key of the expression
        // indexes (by text), which quals and index keys name like columns.
        let heap_names = ColumnNames::new(table.columns.iter().map(|c| c.name.as_str()));
        let mut expressions: Vec<&Column> = Vec::new();
        for e in table.indexes.iter().flat_map(|i| &i.expressions) {
            if heap_names.position(&e.name).is_none()
                && !expressions
                    .iter()
                    .any(|x| x.name.eq_ignore_ascii_case(&e.name))
            {
                expressions.push(e);
            }
        }
        let names = if expressions.is_empty() {
            heap_names.clone()
        } else {
            let all: Vec<&str> = table
                .columns
                .iter()
                .chain(expressions.iter().copied())
                .map(|c| c.name.as_str())
                .collect();
            ColumnNames::new(all.into_iter())
        };
        let col_pos = |name: &str| names.resolve(table, name);

        let mut cols: Vec<ColInfo> = table
            .columns
            .iter()
            .chain(expressions.iter().copied())
            .map(|c| {
                let stats = stats_as_stored(&c.stats);
                let has = has_stats(&stats);
                let width = if stats.avg_width > 0.0 {
                    stats.avg_width
                } else {
                    type_width(&c.ty)
                };
                ColInfo {
                    name: c.name.clone(),
                    ty: c.ty.clone(),
                    stats,
                    has_stats: has,
                    is_unique: false,
                    has_actual_range: false,
                    width,
                    expression: None,
                }
            })
            .collect();
        for c in cols.iter_mut().skip(table.columns.len()) {
            c.expression = Some(IndexExpression::of(&c.name, table, &heap_names));
        }

        // Heap size (spec 2.1).
        let data_width: f64 = cols[..table.columns.len()].iter().map(|c| c.width).sum();
        let pg = table
            .pg
            .clone()
            .unwrap_or_else(|| synthesize_pg_table(table, data_width));
        let reltuples = float4(pg.reltuples);
        let mut curpages = pg.pages.floor();
        if curpages < 10.0 && reltuples < 0.0 {
            curpages = 10.0;
        }
        let (tuples, allvisfrac) = if curpages <= 0.0 {
            (0.0, 0.0)
        } else {
            let density = if reltuples >= 0.0 && pg.relpages > 0.0 {
                reltuples / pg.relpages.floor().max(1.0)
            } else {
                default_density(data_width)
            };
            let allvis = pg.relallvisible.floor();
            let frac = if allvis <= 0.0 {
                0.0
            } else if allvis >= curpages {
                1.0
            } else {
                allvis / curpages
            };
            ((density * curpages).round_ties_even(), frac)
        };

        // Indexes (spec 2.2): pages physical, tuples = heap estimate.
        let mut indexes = Vec::new();
        for ix in &table.indexes {
            indexes.push(Rel::index_info(ix, tuples, &cols, &col_pos)?);
        }
        for ix in indexes.iter().filter(|ix| ix.method == IndexMethod::Btree) {
            if let Some(&lead) = ix.keys.first() {
                cols[lead].has_actual_range = true;
                if ix.unique && ix.keys.len() == 1 {
                    cols[lead].is_unique = true;
                }
            }
        }
        Ok(TableInfo {
            name: Name::new(&table.name),
            pages: curpages.max(0.0),
            tuples,
            allvisfrac,
            cols,
            indexes,
            names,
        })
    }
}

impl<'a> Rel<'a> {
    /// Gathers the inputs of spec section 2 and estimates rows (set_baserel_size_estimates).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn build(table: &Table, query: &Query) -> Result<Rel<'a>> {
        let info = TableInfo::build(table)?;
        let blank = Rel::blank(
            &info,
            Cow::Owned(info.cols.clone()),
            Cow::Owned(info.indexes.clone()),
        );
        blank.with_query(&info.names, table, query)
    }

    /// [`Rel::build`] over a prepared table, whose columns and indexes it borrows: only
    /// the query's half of spec section 2 is computed.
    pub fn for_query(info: &'a TableInfo, table: &Table, query: &Query) -> Result<Rel<'a>> {
        let blank = Rel::blank(
            info,
            Cow::Borrowed(&info.cols),
            Cow::Borrowed(&info.indexes),
        );
        blank.with_query(&info.names, table, query)
    }

    /// The relation before any clause: the table's facts only.
    fn blank(info: &TableInfo, cols: Cow<'a, [ColInfo]>, indexes: Cow<'a, [IndexInfo]>) -> Rel<'a> {
        Rel {
            name: info.name.clone(),
            pages: info.pages,
            tuples: info.tuples,
            allvisfrac: info.allvisfrac,
            total_table_pages: info.pages,
            cols,
            clauses: Vec::new(),
            rows: 0.0,
            width: 0.0,
            restrict_ops: QualOps::default(),
            needed: Vec::new(),
            pathkeys: Vec::new(),
            limit: None,
            indexes,
        }
    }

    fn with_query(mut self, names: &ColumnNames, table: &Table, query: &Query) -> Result<Rel<'a>> {
        let col_pos = |name: &str| names.resolve(table, name);

        // Restriction clauses, in query order (BETWEEN expands to two); their selectivity
        // follows below, once all are in.
        let mut clauses = std::mem::take(&mut self.clauses);
        clauses.reserve(query.predicates.len() + 1);
        for p in &query.predicates {
            let c = col_pos(p.column())?;
            let column = &self.cols[c];
            match p {
                Predicate::Cmp { op, value, .. } => {
                    let mut cl = clause(
                        c,
                        ClauseKind::Op {
                            op: *op,
                            value: coerce_value(column, value)?,
                        },
                    );
                    // `flag = true` is simplified to the bare column (eval_const_expressions),
                    // which cost_qual_eval charges nothing.
                    if column.ty == ColumnType::Bool && *op == CmpOp::Eq {
                        cl.ops = QualOps::default();
                    }
                    cl.ops.per_tuple += column.eval_ops();
                    clauses.push(cl)
                }
                Predicate::Between { lo, hi, .. } => {
                    for (op, v) in [(CmpOp::Ge, lo), (CmpOp::Le, hi)] {
                        let mut cl = clause(
                            c,
                            ClauseKind::Op {
                                op,
                                value: coerce_value(column, v)?,
                            },
                        );
                        cl.ops.per_tuple += column.eval_ops();
                        clauses.push(cl);
                    }
                }
                Predicate::In { values, .. } => {
                    if values.is_empty() {
                        return Err(Error::Unsupported("an empty IN list".into()));
                    }
                    let vals = values
                        .iter()
                        .map(|v| coerce_value(column, v))
                        .collect::<Result<Vec<_>>>()?;
                    // A one-element IN list is parsed as a plain `=`.
                    let mut cl = if vals.len() == 1 {
                        clause(
                            c,
                            ClauseKind::Op {
                                op: CmpOp::Eq,
                                value: vals[0].clone(),
                            },
                        )
                    } else {
                        clause(c, ClauseKind::AnyEq { values: vals })
                    };
                    // The left side is evaluated once per row, whatever the list.
                    cl.ops.per_tuple += column.eval_ops();
                    clauses.push(cl);
                }
            }
        }

        let mut rel = self;
        rel.limit = query.limit;
        rel.clauses = clauses;
        // clause_selectivity reads the table's statistics, never the other clauses.
        for i in 0..rel.clauses.len() {
            let selec = selfuncs::clause_selectivity(&rel, &rel.clauses[i]);
            let clause = &mut rel.clauses[i];
            clause.selec = selec;
            rel.restrict_ops = rel.restrict_ops.add(clause.ops);
        }
        let all: Vec<usize> = (0..rel.clauses.len()).collect();
        rel.rows = clamp_row_est(rel.tuples * selfuncs::clauselist_selectivity(&rel, &all));

        // Output width: target list plus ORDER BY columns (resjunk), not quals. The scan
        // must also produce the quals' columns (`needed`, for index-only scans).
        if query.select.is_empty() {
            // SELECT *: every column, in order, which ORDER BY and the quals only repeat;
            // nothing to sort or deduplicate at every sweep point.
            let heap = rel.cols.iter().filter(|c| c.expression.is_none());
            rel.width = heap.map(|c| c.width).sum::<f64>();
            rel.needed = (0..rel.cols.len())
                .filter(|&c| rel.cols[c].expression.is_none())
                .collect();
        } else {
            // Room for the quals' columns: growing the list would copy it.
            let mut out: Vec<usize> =
                Vec::with_capacity(query.select.len() + query.order_by.len() + rel.clauses.len());
            for s in &query.select {
                out.push(col_pos(s)?);
            }
            for k in &query.order_by {
                out.push(col_pos(&k.column)?);
            }
            costlab_model::sort::sort_by(&mut out, usize::cmp);
            out.dedup();
            rel.width = out.iter().map(|&c| rel.cols[c].width).sum::<f64>();
            let mut needed = out;
            needed.extend(rel.clauses.iter().map(|c| c.col));
            // An expression's value comes from the heap columns it reads.
            for c in &rel.clauses {
                if let Some(e) = &rel.cols[c.col].expression {
                    needed.extend(e.reads.iter().copied());
                }
            }
            costlab_model::sort::sort_by(&mut needed, usize::cmp);
            needed.dedup();
            rel.needed = needed;
        }

        // Query pathkeys: a column equated to a constant sorts trivially (spec 11).
        for k in &query.order_by {
            let c = col_pos(&k.column)?;
            let equated = rel
                .clauses
                .iter()
                .any(|cl| cl.col == c && matches!(cl.kind, ClauseKind::Op { op: CmpOp::Eq, .. }));
            if !equated && !rel.pathkeys.iter().any(|(pc, _)| *pc == c) {
                rel.pathkeys.push((c, k.descending));
            }
        }
        Ok(rel)
    }

    fn index_info(
        ix: &Index,
        heap_tuples: f64,
        cols: &[ColInfo],
        col_pos: &impl Fn(&str) -> Result<usize>,
    ) -> Result<IndexInfo> {
        let keys = ix
            .columns
            .iter()
            .map(|c| col_pos(c))
            .collect::<Result<Vec<_>>>()?;
        let mut covers = keys.clone();
        for c in &ix.include {
            covers.push(col_pos(c)?);
        }
        let key_width: f64 = keys.iter().map(|&k| cols[k].width).sum();
        let pg = ix.pg.clone().unwrap_or_else(|| match ix.method {
            IndexMethod::Btree => synthesize_pg_index(heap_tuples, key_width),
            IndexMethod::Gist => synthesize_gist_index(heap_tuples),
        });
        let pages = pg.pages.floor();
        Ok(IndexInfo {
            name: Name::new(&ix.name),
            method: ix.method,
            pages,
            tuples: heap_tuples,
            // plancat.c reads the root level of btrees only.
            tree_height: match ix.method {
                IndexMethod::Btree => pg.tree_height.floor(),
                IndexMethod::Gist => super::costsize::assumed_tree_height(pages),
            },
            unique: ix.unique || ix.primary,
            keys,
            covers,
            path_keys: Default::default(),
        })
    }

    /// Ids of all restriction clauses, as a range: callers filter or collect it as they
    /// need, instead of every call allocating a list.
    pub fn clause_ids(&self) -> std::ops::Range<usize> {
        0..self.clauses.len()
    }

    /// The schema's function calls the clauses `ids` make on `examined` rows: the
    /// executor evaluates a scan's quals cheapest first (order_qual_clauses, stable), each
    /// on the rows the ones before it let through. Only indexed expressions call them
    /// here; an index condition on one reads the index's stored value instead.
    pub fn clause_calls(&self, ids: impl Iterator<Item = usize>, examined: f64) -> f64 {
        // Every path of every table asks: no list is made unless the table has an
        // indexed expression at all.
        if self.cols.iter().all(|c| c.expression.is_none()) {
            return 0.0;
        }
        let mut order: Vec<usize> = ids.collect();
        costlab_model::sort::sort_by(&mut order, |&a, &b| {
            self.clauses[a]
                .ops
                .per_tuple
                .total_cmp(&self.clauses[b].ops.per_tuple)
        });
        let mut reach = examined;
        let mut calls = 0.0;
        for i in order {
            let cl = &self.clauses[i];
            if let Some(e) = &self.cols[cl.col].expression {
                calls += e.calls * reach;
            }
            reach *= cl.selec;
        }
        calls
    }

    pub fn qual_ops(&self, ids: &[usize]) -> QualOps {
        ids.iter()
            .fold(QualOps::default(), |a, &i| a.add(self.clauses[i].ops))
    }
}
