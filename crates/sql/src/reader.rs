//! The reader's state: the statements' views, the scopes names resolve in, the blocks
//! being read and the columns they use.

use sqlparser::ast::{self, Expr};

use costlab_model::block::{ColRef, QueryBlock};
use costlab_model::catalog::{ColumnType, Table};
use costlab_model::plan::Name;

/// A view or a WITH query, borrowed from the parsed statements (never copied: a view read
/// for each FROM item naming it).
pub(crate) struct View<'a> {
    pub(crate) name: String,
    pub(crate) columns: Vec<String>,
    pub(crate) query: &'a ast::Query,
}

/// Names visible at one level of the statement.
pub(crate) struct Scope<'a> {
    /// The block (index into `Reader::blocks`) whose tables this scope names.
    pub(crate) block: usize,
    pub(crate) parent: Option<usize>,
    pub(crate) rels: Vec<Rel<'a>>,
    /// The nest this scope's tables belong to (a flattened EXISTS / IN).
    pub(crate) nest: Option<usize>,
}

pub(crate) struct Rel<'a> {
    /// Lower case, as both engines compare unquoted names.
    pub(crate) alias: String,
    pub(crate) kind: RelKind<'a>,
}

pub(crate) enum RelKind<'a> {
    /// Table `index` of the scope's block, with its columns.
    Table {
        index: usize,
        columns: TableColumns<'a>,
    },
    /// A merged derived table: each output column (lower case) is an expression of scope
    /// `scope`, borrowed from the statement.
    Merged {
        columns: Vec<(String, &'a Expr)>,
        scope: usize,
    },
}

/// The columns of a FROM item: a base table's are the catalog's, named (a [`Name`]
/// allocated) only once a query uses them; a derived table's as its block names them.
pub(crate) enum TableColumns<'a> {
    Base(&'a Table),
    Derived(Vec<(Name, ColumnType)>),
}

impl TableColumns<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            TableColumns::Base(t) => t.columns.len(),
            TableColumns::Derived(c) => c.len(),
        }
    }

    pub(crate) fn name_str(&self, k: usize) -> &str {
        match self {
            TableColumns::Base(t) => &t.columns[k].name,
            TableColumns::Derived(c) => &c[k].0,
        }
    }

    pub(crate) fn ty(&self, k: usize) -> &ColumnType {
        match self {
            TableColumns::Base(t) => &t.columns[k].ty,
            TableColumns::Derived(c) => &c[k].1,
        }
    }

    /// The position of column `col` (any case).
    pub(crate) fn find(&self, col: &str) -> Option<usize> {
        match self {
            TableColumns::Base(t) => t
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(col)),
            TableColumns::Derived(c) => c.iter().position(|(n, _)| n.eq_ignore_ascii_case(col)),
        }
    }

    /// Column `k` as the name `uses` (a table's used columns) holds, added there when it is
    /// not yet.
    pub(crate) fn use_column(&self, k: usize, uses: &mut Vec<Name>) -> Name {
        let s = self.name_str(k);
        if let Some(u) = uses.iter().find(|u| **u == *s) {
            return u.clone();
        }
        let n = match self {
            TableColumns::Base(_) => Name::from(s),
            TableColumns::Derived(c) => c[k].0.clone(),
        };
        uses.push(n.clone());
        n
    }
}

/// A block being read: its tables' used columns collect as names resolve.
pub(crate) struct BlockB {
    pub(crate) q: QueryBlock,
    /// Correlation equalities of a sub-select: (its column, the outer column).
    pub(crate) correlation: Vec<(ColRef, ColRef)>,
}

/// A column resolved: which block (index into `Reader::blocks`), table and column.
#[derive(Clone, Debug)]
pub(crate) struct Col {
    pub(crate) block: usize,
    pub(crate) table: usize,
    pub(crate) column: Name,
    pub(crate) ty: ColumnType,
}

impl Col {
    pub(crate) fn colref(&self) -> ColRef {
        ColRef {
            table: self.table,
            column: self.column.clone(),
        }
    }
}

/// Reads statements that live for `'a`: what it keeps of them (views, merged derived
/// columns) it borrows.
pub(crate) struct Reader<'a> {
    pub(crate) text: &'a str,
    pub(crate) tables: &'a [Table],
    pub(crate) views: Vec<View<'a>>,
    pub(crate) scopes: Vec<Scope<'a>>,
    pub(crate) blocks: Vec<BlockB>,
}
