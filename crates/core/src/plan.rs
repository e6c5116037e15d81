//! What every engine produces: plan nodes that carry both what the optimizer believes (cost)
//! and what the machine has to do (work). The hardware simulation reads only the work.

use serde::Serialize;

/// Cost in the engine's own units, split as EXPLAIN prints it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Cost {
    pub startup: f64,
    pub total: f64,
}

impl Cost {
    pub fn new(startup: f64, total: f64) -> Cost {
        Cost { startup, total }
    }
}

/// The order in which a node asks for pages; it decides what each read costs on a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessPattern {
    /// Consecutive pages of one object, read ahead by the engine or the OS.
    Sequential,
    /// Pages in no useful order, one at a time (index scan heap fetches).
    Random,
    /// Pages sorted by position but with gaps (bitmap heap scan, DS-MRR).
    Sorted,
}

/// Page requests a node makes against one relation or index.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PageReads {
    /// Name of the table or index read.
    pub object: String,
    /// Size of that object in pages (for cache hit ratios).
    pub object_pages: f64,
    /// Page size in bytes of the object (8192 PostgreSQL, 16384 InnoDB).
    pub page_bytes: f64,
    pub pattern: AccessPattern,
    /// Page requests, counting repeats of the same page.
    pub requests: f64,
    /// Distinct pages among them.
    pub distinct: f64,
}

/// Physical work of one plan node, independent of every cost constant.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Work {
    pub page_reads: Vec<PageReads>,
    /// Heap or clustered-index rows handed to the executor.
    pub rows_examined: f64,
    /// Index entries read.
    pub index_entries: f64,
    /// Operator (comparison) evaluations on rows and index entries.
    pub operator_evals: f64,
    /// Rows this node returns.
    pub rows_out: f64,
    /// Comparisons made by a sort, hash or merge.
    pub comparisons: f64,
    /// Bytes written to and read back from temporary files.
    pub spill_bytes: f64,
    /// Rows passed between processes (Gather).
    pub rows_transferred: f64,
    /// Parallel workers sharing the CPU part of this node (0 = serial).
    pub workers: f64,
}

/// One node of a plan, with its children. Costs are cumulative as EXPLAIN shows them;
/// work is the node's own (add the children's to get the plan's).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanNode {
    /// EXPLAIN's node name: "Seq Scan", "Index Scan", "range", ...
    pub op: String,
    pub relation: Option<String>,
    pub index: Option<String>,
    /// Extra EXPLAIN lines: conditions, "Using MRR", sort keys.
    pub details: Vec<String>,
    pub cost: Cost,
    pub rows: f64,
    pub width: f64,
    pub work: Work,
    pub children: Vec<PlanNode>,
}

impl PlanNode {
    pub fn leaf(op: impl Into<String>, cost: Cost, rows: f64, work: Work) -> PlanNode {
        PlanNode {
            op: op.into(),
            relation: None,
            index: None,
            details: Vec::new(),
            cost,
            rows,
            width: 0.0,
            work,
            children: Vec::new(),
        }
    }

    /// Visits this node and every descendant, parents first.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a PlanNode)) {
        f(self);
        for c in &self.children {
            c.walk(f);
        }
    }

    /// Short one-line description used in chart legends: "Index Scan using k7".
    pub fn label(&self) -> String {
        let mut s = String::new();
        self.walk(&mut |n| {
            if !s.is_empty() {
                s.push_str(" → ");
            }
            s.push_str(&n.op);
            if let Some(i) = &n.index {
                s.push_str(" using ");
                s.push_str(i);
            }
        });
        s
    }
}

/// A candidate plan an engine considered, and whether it won.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// Stable identifier of the access path kind, used to match paths across a sweep
    /// ("seq", "index:k7", "bitmap:k7", "range:k7", "dsmrr:k7", ...).
    pub key: String,
    pub plan: PlanNode,
}

/// Everything an engine says about one query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Planned {
    pub candidates: Vec<Candidate>,
    /// Index into `candidates` of the plan the engine would run.
    pub chosen: usize,
}

impl Planned {
    pub fn chosen(&self) -> &Candidate {
        &self.candidates[self.chosen]
    }

    pub fn find(&self, key: &str) -> Option<&Candidate> {
        self.candidates.iter().find(|c| c.key == key)
    }
}
