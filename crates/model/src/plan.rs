//! What every engine produces: plan nodes that carry both what the optimizer believes (cost)
//! and what the machine has to do (work). The hardware simulation reads only the work.

use serde::{Serialize, Serializer};
use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An immutable string shared between plans: node names, relation and index names,
/// candidate keys. Sweeps plan the same table thousands of times, so cloning a name must
/// not allocate: it is either a `'static` literal or a reference-counted string made once
/// (per prepared table or per key). It compares, orders, hashes, prints and serializes
/// exactly like the string it holds.
#[derive(Clone)]
pub struct Name(Repr);

#[derive(Clone)]
enum Repr {
    Static(&'static str),
    Shared(Arc<str>),
}

impl Name {
    /// A name from a literal; never allocates.
    pub const fn from_static(s: &'static str) -> Name {
        Name(Repr::Static(s))
    }

    /// A name copied once into shared storage; clones of it are free.
    pub fn new(s: &str) -> Name {
        Name(Repr::Shared(Arc::from(s)))
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Static(s) => s,
            Repr::Shared(s) => s,
        }
    }
}

/// The candidate keys one prepared table has produced, so that planning it again hands out
/// the same [`Name`]s instead of allocating new strings. Keys only ever get added, and a
/// key's text fully determines its entry, so there is nothing to invalidate; the set is
/// bounded by the access paths the table's indexes allow.
#[derive(Debug, Default)]
pub struct KeyNames {
    known: std::cell::RefCell<std::collections::HashSet<Name>>,
    scratch: std::cell::RefCell<String>,
}

impl KeyNames {
    /// The key spelled by concatenating `parts`.
    pub fn get(&self, parts: &[&str]) -> Name {
        let mut buf = self.scratch.borrow_mut();
        buf.clear();
        for p in parts {
            buf.push_str(p);
        }
        let mut known = self.known.borrow_mut();
        if let Some(n) = known.get(buf.as_str()) {
            return n.clone();
        }
        let n = Name::new(&buf);
        known.insert(n.clone());
        n
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

/// Copies the string; for literals in hot paths, [`Name::from_static`] avoids that.
impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name::new(s)
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name(Repr::Shared(Arc::from(s)))
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.as_str().to_string()
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Name {}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for Name {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

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
    pub object: Name,
    /// Size of that object in pages (for cache hit ratios).
    pub object_pages: f64,
    /// Page size in bytes of the object (8192 PostgreSQL, 16384 InnoDB).
    pub page_bytes: f64,
    pub pattern: AccessPattern,
    /// Page requests, counting repeats of the same page.
    pub requests: f64,
    /// Distinct pages among them.
    pub distinct: f64,
    /// Pages of the object that the reads lie within, in order (a bitmap heap scan on a
    /// correlated key reads one contiguous run); `None`: spread over the whole object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span_pages: Option<f64>,
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
    /// Calls of the schema's own functions (PostgreSQL; `catalog::Function`), each as the
    /// executor makes it: a qual's calls on the rows that reach it, cheaper quals first.
    #[serde(skip_serializing_if = "is_zero")]
    pub function_calls: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// How much EXPLAIN text an engine writes into plan nodes ([`PlanNode::details`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Detail {
    /// Every line EXPLAIN prints: conditions, sort keys, MySQL's JSON cost figures.
    #[default]
    Full,
    /// No detail lines; costs, rows and work are the same as with `Full`. Sweeps compare
    /// costs at thousands of points and never print these lines, whose formatting would
    /// otherwise take most of the planning time.
    Omit,
}

impl Detail {
    /// Whether plans carry EXPLAIN's text lines. Builds without the `explain-text` feature
    /// (the web page, which never prints them) leave the formatting code out entirely.
    pub fn keeps_text(self) -> bool {
        cfg!(feature = "explain-text") && self == Detail::Full
    }
}

/// One node of a plan, with its children. Costs are cumulative as EXPLAIN shows them;
/// work is the node's own (add the children's to get the plan's).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanNode {
    /// EXPLAIN's node name: "Seq Scan", "Index Scan", "range", ...
    pub op: Name,
    pub relation: Option<Name>,
    pub index: Option<Name>,
    /// Extra EXPLAIN lines: conditions, "Using MRR", sort keys.
    pub details: Vec<String>,
    pub cost: Cost,
    pub rows: f64,
    pub width: f64,
    pub work: Work,
    pub children: Vec<PlanNode>,
}

impl PlanNode {
    pub fn leaf(op: impl Into<Name>, cost: Cost, rows: f64, work: Work) -> PlanNode {
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

    /// The choices the planner made at this node beyond its name, relation and index:
    /// PostgreSQL's join type, MySQL's join buffer, semijoin strategy and the "Using ..."
    /// strategies of its Extra column ("Using where" says where predicates run, not a
    /// choice). Never an estimate.
    fn choices(&self) -> impl Iterator<Item = &str> {
        self.details
            .iter()
            .flat_map(|d| d.split("; "))
            .filter_map(|d| {
                if let Some(jt) = d.strip_prefix("Join Type: ") {
                    Some(jt)
                } else if d.starts_with("semijoin: ")
                    || (d.starts_with("Using ") && d != "Using where")
                {
                    Some(d)
                } else {
                    None
                }
            })
    }

    /// This node alone, as a change names it: "range using i_l_shipdate on lineitem",
    /// "Hash Join [Semi]".
    pub fn node_label(&self) -> String {
        let mut s = self.op.to_string();
        if let Some(i) = &self.index {
            s.push_str(" using ");
            s.push_str(i);
        }
        if let Some(r) = &self.relation {
            s.push_str(" on ");
            s.push_str(r);
        }
        for c in self.choices() {
            s.push_str(" [");
            s.push_str(c);
            s.push(']');
        }
        s
    }

    /// The plan's shape in tree order: every node's name, choices, relation and index,
    /// and its children; no estimate. Equal shapes mean the same plan, wherever in the
    /// tree (a derived table, a subquery) a choice differs. PostgreSQL's plan signature
    /// is this string, which its golden plans store.
    pub fn shape(&self) -> String {
        fn rec(n: &PlanNode, out: &mut String) {
            out.push_str(&n.op);
            for c in n.choices() {
                out.push('[');
                out.push_str(c);
                out.push(']');
            }
            if let Some(r) = &n.relation {
                out.push(' ');
                out.push_str(r);
            }
            if let Some(i) = &n.index {
                out.push_str(" using ");
                out.push_str(i);
            }
            if !n.children.is_empty() {
                out.push('(');
                for (k, c) in n.children.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    rec(c, out);
                }
                out.push(')');
            }
        }
        let mut s = String::new();
        rec(self, &mut s);
        s
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
    pub key: Name,
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

/// Where two plans of one query first differ, in tree order, as the table says it:
/// `"in Materialize (derived) on revenue0: ALL on lineitem, was range using i_l_shipdate
/// on lineitem"`. `None` when the shapes are equal. The place is the nearest enclosing
/// node that names a relation (a derived table, a materialized subquery) or a subquery
/// node; the top of the plan is not named.
pub fn change_site(before: &PlanNode, after: &PlanNode) -> Option<String> {
    fn same_node(a: &PlanNode, b: &PlanNode) -> bool {
        a.op == b.op
            && a.relation == b.relation
            && a.index == b.index
            && a.choices().eq(b.choices())
            && a.children.len() == b.children.len()
    }
    fn rec<'a>(
        a: &'a PlanNode,
        b: &'a PlanNode,
        place: Option<&'a PlanNode>,
    ) -> Option<(Option<&'a PlanNode>, &'a PlanNode, &'a PlanNode)> {
        if !same_node(a, b) {
            return Some((place, a, b));
        }
        let encloses =
            !a.children.is_empty() && (a.relation.is_some() || a.op.starts_with("subquery"));
        let place = if encloses { Some(b) } else { place };
        a.children
            .iter()
            .zip(&b.children)
            .find_map(|(x, y)| rec(x, y, place))
    }
    let (place, was, now) = rec(before, after, None)?;
    let mut s = String::new();
    if let Some(p) = place {
        s.push_str("in ");
        s.push_str(&p.node_label());
        s.push_str(": ");
    }
    let (was_label, now_label) = (was.node_label(), now.node_label());
    if was_label == now_label {
        // Same node, other inputs: name the children.
        let kids = |n: &PlanNode| {
            n.children
                .iter()
                .map(PlanNode::node_label)
                .collect::<Vec<_>>()
                .join(", ")
        };
        s.push_str(&format!(
            "{now_label} over {}, was over {}",
            kids(now),
            kids(was)
        ));
    } else {
        s.push_str(&format!("{now_label}, was {was_label}"));
    }
    Some(s)
}
