//! The SQL front end: a SELECT statement, in PostgreSQL's or MySQL's dialect, read over
//! sqlparser-rs into the [`QueryBlock`] both engines' join planners read.
//!
//! What it reads: joins written either way (comma lists, `JOIN ... ON` / `USING`, `LEFT
//! JOIN`), WHERE conditions with AND / OR / NOT, comparisons, BETWEEN, IN lists, LIKE, IS
//! NULL, expressions and function calls, EXISTS / IN / NOT EXISTS / NOT IN sub-selects and
//! scalar sub-selects (correlated by equalities or not), derived tables, views (`CREATE
//! VIEW` before the query) and `WITH`, GROUP BY / HAVING / ORDER BY / LIMIT, date literals,
//! `DATE '...'`, intervals and MySQL's `DATE_ADD` / `DATE_SUB`.
//!
//! How a statement becomes a block (the shapes both optimizers give it):
//! - Tables of the FROM list are the block's tables; a derived table or view without
//!   grouping, aggregates, DISTINCT or LIMIT is merged into the block (both engines merge
//!   it), any other is a [`Source::Derived`] with its own block.
//! - A WHERE conjunct `a.x = b.y` between two tables is a join edge; `col op constant`,
//!   `BETWEEN` and `IN (constants)` on one table are its sargable predicates (constants
//!   folded: `0.06 - 0.01` in decimal, dates with intervals); anything else is a
//!   [`Filter`] with its text and a [`FilterKind`]. An OR whose every arm holds the same
//!   join equality gives that equality up as a join edge (MySQL's `merge_key_fields`,
//!   PostgreSQL's OR arm factoring).
//! - EXISTS, NOT EXISTS, IN and NOT IN over a sub-select that could be merged are semi or
//!   anti [`Nest`]s of the block (an IN inside an IN joins the same nest); an IN over a
//!   grouped sub-select and every scalar sub-select are [`Subquery`]s, correlated through
//!   equalities `inner = outer`.
//! - A query whose only FROM item is a grouped derived table and which groups again (a
//!   second aggregation level, TPC-H Q13) is read as the derived table's block with a sort
//!   after grouping: the second level's own work is not modelled.
//!
//! What the models cannot plan is refused by name and position ([`Error::Sql`]), never read
//! wrongly in silence. The truth a simulation counts with (true selectivities, matches and
//! groups) is not in the text: a block comes back with it unknown (NaN, 0 groups) and a
//! workload fills it in.
//!
//! [`to_postgres`] makes a MySQL text PostgreSQL's over the same parse (the DBT3 kit's queries
//! on a real PostgreSQL): constant `DATE_ADD` / `DATE_SUB` evaluated, `SUBSTR` as `SUBSTRING`,
//! the statements printed again.
//!
//! [`Source::Derived`]: costlab_model::block::Source::Derived
//! [`Filter`]: costlab_model::block::Filter
//! [`FilterKind`]: costlab_model::block::FilterKind
//! [`Nest`]: costlab_model::block::Nest
//! [`Subquery`]: costlab_model::block::Subquery
//! [`Error::Sql`]: costlab_model::error::Error::Sql

mod conditions;
mod constants;
mod errors;
mod exprs;
mod from;
mod lower;
mod names;
mod nests;
mod postgres;
mod reader;
mod select;
#[cfg(test)]
mod tests;

use sqlparser::ast::{Spanned, Statement};
use sqlparser::dialect::{MySqlDialect, PostgreSqlDialect};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Span;

use costlab_model::block::QueryBlock;
use costlab_model::catalog::Table;
use costlab_model::error::Result;

use crate::errors::parse_error;
use crate::exprs::object_name;
use crate::reader::{Reader, View};

pub use crate::postgres::{to_postgres, PgQuery};

/// Whose SQL the text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Postgres,
    Mysql,
}

/// `sql` read over `tables` as a query of one's own: number 1, its true selectivities
/// unknown (the estimates stand for them).
pub fn own_query(
    sql: &str,
    dialect: Dialect,
    tables: &[costlab_model::catalog::Table],
    title: costlab_model::plan::Name,
) -> costlab_model::Result<costlab_model::block::JoinQuery> {
    let mut block = read_query(sql, dialect, tables)?;
    block.assume_unknown_truth();
    Ok(costlab_model::block::JoinQuery {
        number: 1,
        title,
        sql: costlab_model::plan::Name::from(sql),
        block,
    })
}

/// Reads `text` (optionally `CREATE VIEW` statements, then one SELECT, then `DROP VIEW`s)
/// against `tables`, into a block whose truth is unknown.
pub fn read_query(text: &str, dialect: Dialect, tables: &[Table]) -> Result<QueryBlock> {
    let statements = match dialect {
        Dialect::Postgres => Parser::parse_sql(&PostgreSqlDialect {}, text),
        Dialect::Mysql => Parser::parse_sql(&MySqlDialect {}, text),
    }
    .map_err(|e| parse_error(text, &e.to_string()))?;
    let mut r = Reader {
        text,
        tables,
        views: Vec::new(),
        scopes: Vec::new(),
        blocks: Vec::new(),
    };
    let mut query = None;
    for st in &statements {
        match st {
            Statement::CreateView(v) if query.is_none() => {
                let columns = v.columns.iter().map(|c| c.name.value.clone()).collect();
                r.views.push(View {
                    name: object_name(&v.name).into_owned(),
                    columns,
                    query: &v.query,
                });
            }
            Statement::Query(q) if query.is_none() => query = Some(q),
            Statement::Drop { .. } if query.is_some() => {}
            other => {
                return Err(r.err(
                    other.span(),
                    "only one SELECT (after any CREATE VIEW, before any DROP VIEW) is read",
                ))
            }
        }
    }
    let Some(q) = query else {
        return Err(r.err(Span::empty(), "no SELECT statement"));
    };
    let (block, corr) = r.read_block(q, None)?;
    debug_assert!(corr.is_empty());
    Ok(block)
}
