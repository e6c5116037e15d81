//! Paths, plan trees and add_path for the join planner (§6.3, §6.4).

use std::rc::Rc;

use smallvec::SmallVec;

use crate::costsize::STD_FUZZ_FACTOR;

use costlab_model::plan::{Cost, Name, PlanNode, Work};

/// A plan node whose children are shared between the paths that use them: the join
/// search builds many paths over the same inputs, and copying whole trees into each
/// would cost more than the costing.
// Nodes live in Rc allocations and the Repeated ones are few (kept nested loops'
// inners): boxing the plan would cost every node an allocation more.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Node {
    /// One node; `plan.children` stays empty, the children are `kids`. `true_rows`:
    /// the rows the node really returns per loop, where the planner knows them
    /// (NaN: as many times its estimate as its first input's).
    Op {
        plan: PlanNode,
        kids: Kids,
        true_rows: TrueRows,
    },
    /// `node`'s subtree with its work repeated `loops` times (the inner of a nested loop,
    /// a SubPlan), applied when the tree is built (`to_plan`): scaling a copy of the
    /// whole subtree for every nested-loop candidate cost more than planning.
    Repeated { node: Rc<Node>, loops: f64 },
}

impl Node {
    pub fn op(plan: PlanNode, kids: impl IntoIterator<Item = Rc<Node>>) -> Rc<Node> {
        Rc::new(Node::Op {
            plan,
            kids: kids.into_iter().collect(),
            true_rows: TrueRows::UNKNOWN,
        })
    }

    /// The node with its true rows set (the node is new: no copy is made then).
    pub fn with_true_rows(mut n: Rc<Node>, t: TrueRows) -> Rc<Node> {
        if let Some(Node::Op { true_rows, .. }) = Rc::get_mut(&mut n) {
            *true_rows = t;
            return n;
        }
        match &*n {
            Node::Op { plan, kids, .. } => Rc::new(Node::Op {
                plan: plan.clone(),
                kids: kids.clone(),
                true_rows: t,
            }),
            Node::Repeated { .. } => n,
        }
    }

    /// The equivalence classes the node's rows come out in, ascending (bits): its own
    /// (`TrueRows::order`), or its outer's through joins that keep the outer's order.
    pub fn order(&self) -> u64 {
        match self {
            Node::Repeated { node, .. } => node.order(),
            Node::Op {
                plan,
                kids,
                true_rows,
            } => {
                if true_rows.order != 0 {
                    true_rows.order
                } else if matches!(plan.op.as_str(), "Nested Loop" | "Hash Join" | "Merge Join") {
                    kids.first().map_or(0, |k| k.order())
                } else {
                    0
                }
            }
        }
    }

    /// The outer values a parameterized scan looks up (bits of equivalence classes),
    /// through a Bitmap Heap Scan to its index scan.
    pub fn probes(&self) -> u64 {
        match self {
            Node::Repeated { node, .. } => node.probes(),
            Node::Op {
                kids, true_rows, ..
            } => {
                if true_rows.probes != 0 {
                    true_rows.probes
                } else if kids.len() == 1 {
                    kids[0].probes()
                } else {
                    0
                }
            }
        }
    }

    /// The true rows per loop the node was given, if any.
    pub fn true_rows(&self) -> Option<f64> {
        match self {
            Node::Op { true_rows, .. } => Some(true_rows.rows).filter(|r| r.is_finite()),
            Node::Repeated { node, .. } => node.true_rows(),
        }
    }

    pub fn leaf(plan: PlanNode) -> Rc<Node> {
        Node::op(plan, Vec::new())
    }

    #[allow(clippy::too_many_arguments)]
    pub fn new(
        op: &'static str,
        startup: f64,
        total: f64,
        rows: f64,
        width: f64,
        work: Work,
        details: Vec<String>,
        kids: impl IntoIterator<Item = Rc<Node>>,
    ) -> Rc<Node> {
        Node::op(
            PlanNode {
                op: Name::from_static(op),
                relation: None,
                index: None,
                details,
                cost: Cost::new(startup, total),
                rows,
                width,
                work,
                children: Vec::new(),
            },
            kids,
        )
    }

    /// The node returning its rows through a target list that costs `per_row` more per
    /// row, `ops_per_row` operator calls (create_projection_path over a path that can
    /// project: no Result node, the target's cost added to the path's).
    pub fn projected(n: &Rc<Node>, per_row: f64, ops_per_row: f64, calls_per_row: f64) -> Rc<Node> {
        Node::with_plan(n, |plan, true_rows| {
            plan.cost.total += per_row * plan.rows;
            plan.work.operator_evals += ops_per_row * plan.work.rows_out.max(0.0);
            plan.work.function_calls += calls_per_row * plan.work.rows_out.max(0.0);
            true_rows.calls_per_row_out += calls_per_row;
        })
    }

    /// A copy of an operator node with `f` applied to its plan and true rows (the same
    /// children); a repeated node is returned as it is.
    pub fn with_plan(n: &Rc<Node>, f: impl FnOnce(&mut PlanNode, &mut TrueRows)) -> Rc<Node> {
        match &**n {
            Node::Op {
                plan,
                kids,
                true_rows,
            } => {
                let (mut plan, mut true_rows) = (plan.clone(), *true_rows);
                f(&mut plan, &mut true_rows);
                Rc::new(Node::Op {
                    plan,
                    kids: kids.clone(),
                    true_rows,
                })
            }
            Node::Repeated { .. } => n.clone(),
        }
    }

    /// The node's work repeated `loops` times (nothing to repeat for one loop or less).
    pub fn repeated(n: &Rc<Node>, loops: f64) -> Rc<Node> {
        if loops <= 1.0 {
            return n.clone();
        }
        Rc::new(Node::Repeated {
            node: n.clone(),
            loops,
        })
    }

    /// The tree's work when a Limit above stops it after a share `f` of its rows: what
    /// streams does `f` of its work (a scan's pages and rows, but an index scan's
    /// descent whole; a nested loop's inner loops); what must take all of its input
    /// first (Sort, Hash, aggregation, Materialize) reads it whole and only returns less.
    /// Costs and estimated rows stay as EXPLAIN shows them.
    pub fn limited(n: &Rc<Node>, f: f64) -> Rc<Node> {
        if f >= 1.0 || f.is_nan() {
            return n.clone();
        }
        match &**n {
            Node::Repeated { node, loops } => Rc::new(Node::Repeated {
                node: node.clone(),
                loops: (loops * f).max(1.0),
            }),
            Node::Op {
                plan,
                kids,
                true_rows,
            } => {
                let mut plan = plan.clone();
                let blocking = matches!(
                    plan.op.as_str(),
                    "Sort" | "Hash" | "HashAggregate" | "Aggregate" | "Materialize" | "SetOp"
                );
                let kids = if blocking {
                    plan.work.rows_out *= f;
                    kids.clone()
                } else {
                    crate::paths::scale_streaming_work(&mut plan, f);
                    kids.iter().map(|k| Node::limited(k, f)).collect()
                };
                Rc::new(Node::Op {
                    plan,
                    kids,
                    true_rows: *true_rows,
                })
            }
        }
    }

    /// The tree with `f` applied to every detail line: costs, rows and work stay.
    pub fn map_details(n: &Rc<Node>, f: &dyn Fn(&str) -> String) -> Rc<Node> {
        match &**n {
            Node::Op {
                plan,
                kids,
                true_rows,
            } => {
                let mut plan = plan.clone();
                for d in &mut plan.details {
                    *d = f(d);
                }
                Rc::new(Node::Op {
                    plan,
                    kids: kids.iter().map(|k| Node::map_details(k, f)).collect(),
                    true_rows: *true_rows,
                })
            }
            Node::Repeated { node, loops } => Rc::new(Node::Repeated {
                node: Node::map_details(node, f),
                loops: *loops,
            }),
        }
    }

    /// A copy of the top node (its work repeated as the tree would show it) and its
    /// children, to change the top node.
    pub fn root_parts(&self) -> (PlanNode, Kids) {
        match self {
            Node::Op { plan, kids, .. } => (plan.clone(), kids.clone()),
            Node::Repeated { node, loops } => {
                let (mut plan, kids) = node.root_parts();
                Work::repeat(&mut plan.work, *loops);
                let kids = if keeps_input(&plan) {
                    kids
                } else {
                    kids.iter().map(|k| Node::repeated(k, *loops)).collect()
                };
                (plan, kids)
            }
        }
    }

    /// The owned EXPLAIN tree. Costs and rows are the planner's; the work is counted
    /// from the true rows where nodes know them (see [`TrueRows`]), so that a
    /// misestimate costs time as it does in the executor.
    pub fn to_plan(&self) -> PlanNode {
        self.build(&mut Vec::new(), None).0
    }

    /// `factors`: the repetitions of the Repeated nodes above, outermost first. They
    /// are applied innermost first, the order in which nested loops were built: each
    /// level multiplies what the level below produced (bit-exact with scaling copies).
    /// `loops_override`: the true loops of a Repeated node (a nested loop's inner runs
    /// once per true outer row). Returns the node and its true/estimated rows factor.
    fn build(&self, factors: &mut Vec<f64>, loops_override: Option<f64>) -> (PlanNode, f64) {
        match self {
            Node::Repeated { node, loops } => {
                factors.push(loops_override.unwrap_or(*loops));
                let p = node.build(factors, None);
                factors.pop();
                p
            }
            Node::Op { .. } if loops_override.is_some() => {
                // An inner planned to run once (at most one outer row estimated).
                factors.push(loops_override.unwrap_or(1.0));
                let p = self.build(factors, None);
                factors.pop();
                p
            }
            Node::Op {
                plan,
                kids,
                true_rows,
            } => {
                let mut p = plan.clone();
                let keeps = keeps_input(&p);
                // The true calls of this node (a Memoize's), before its kids are built.
                let calls: f64 = factors.iter().product();
                let mut none = Vec::new();
                let mut kid_factors = Vec::with_capacity(kids.len());
                let mut true_outer = None;
                // Lookups in the order of the inner's key (see `read_in_order`).
                let in_order = p.op.as_str() == "Nested Loop"
                    && kids.len() == 2
                    && kids[0].order() & kids[1].probes() != 0;
                for (i, k) in kids.iter().enumerate() {
                    // A Material, Hash or Sort replays what it keeps: its input runs once.
                    let fs = if keeps { &mut none } else { &mut *factors };
                    let over = if i == 1 && p.op.as_str() == "Nested Loop" {
                        true_outer
                    } else if p.op.as_str() == "Memoize" {
                        // Misses as planned, but no more than the true calls.
                        match &**k {
                            Node::Repeated { loops, .. } => Some(loops.min(calls)),
                            Node::Op { .. } => None,
                        }
                    } else {
                        None
                    };
                    let (mut c, f) = k.build(fs, over);
                    if i == 0 {
                        true_outer = Some(c.rows * f);
                    } else if in_order {
                        read_in_order(&mut c);
                    }
                    kid_factors.push(f);
                    p.children.push(c);
                }
                let in_f = kid_factors.first().copied().unwrap_or(1.0);
                // A nested loop reads the inner's rows of every outer row.
                let pair_f = in_f * kid_factors.get(1).copied().unwrap_or(1.0);
                let out_f = if true_rows.rows.is_finite() && p.rows > 0.0 {
                    true_rows.rows / p.rows
                } else {
                    in_f
                };
                true_work(
                    &mut p,
                    (in_f, pair_f, out_f),
                    true_rows.whole,
                    kids.is_empty(),
                    true_rows.calls_per_row_out,
                );
                for &f in factors.iter().rev() {
                    Work::repeat(&mut p.work, f);
                }
                (p, out_f)
            }
        }
    }
}

/// What a node really returns, as the planner knows it from the workload's true
/// selectivities (the estimates stay in the costs and rows EXPLAIN prints), and in
/// which order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TrueRows {
    /// True rows per loop; NaN when unknown.
    pub rows: f64,
    /// All of the node's work follows its own rows (a parameterized scan's per-loop
    /// fetches), not only its output.
    pub whole: bool,
    /// Equivalence classes (bits) whose values the rows come out in, ascending: the heap
    /// stores them so (a sequential scan of a correlated column), or a btree scan reads
    /// them so (its first key); joins that keep their outer's order pass it on
    /// (`Node::order`).
    pub order: u64,
    /// A parameterized scan's equivalence classes (bits): the outer values it looks up.
    pub probes: u64,
    /// Function calls per returned row of a target list the node computes
    /// ([`Node::projected`]): they follow the rows it really returns, where the rest of
    /// its calls (a join filter's) follow the rows it reads.
    pub calls_per_row_out: f64,
}

impl TrueRows {
    pub const UNKNOWN: TrueRows = TrueRows {
        rows: f64::NAN,
        whole: false,
        order: 0,
        probes: 0,
        calls_per_row_out: 0.0,
    };

    pub fn out(rows: f64) -> TrueRows {
        TrueRows {
            rows,
            ..TrueRows::UNKNOWN
        }
    }

    pub fn whole(rows: f64) -> TrueRows {
        TrueRows {
            rows,
            whole: true,
            ..TrueRows::UNKNOWN
        }
    }
}

/// The node's work re-counted from true rows: `in_f` is its first input's true/estimated
/// factor, `pair_f` its first two inputs' together, `out_f` its own. What it returns
/// follows `out_f`; what it reads follows its input's, a nested loop's the pairs it
/// tries, a sort's comparisons n·log n. Leaves read what the table holds, unless
/// `whole` (a parameterized scan: its entries and rows per loop; its pages, mostly the
/// descent, stay as planned). A target list's calls (`calls_per_row_out`) follow `out_f`.
fn true_work(
    p: &mut PlanNode,
    (in_f, pair_f, out_f): (f64, f64, f64),
    whole: bool,
    leaf: bool,
    calls_per_row_out: f64,
) {
    if in_f == 1.0 && out_f == 1.0 && pair_f == 1.0 {
        return;
    }
    let w = &mut p.work;
    let projected = (calls_per_row_out * w.rows_out).min(w.function_calls);
    w.function_calls -= projected;
    w.rows_out *= out_f;
    if leaf && !whole {
        w.function_calls += projected * out_f;
        return;
    }
    let f = if whole {
        out_f
    } else if p.op.as_str() == "Nested Loop" {
        pair_f
    } else {
        in_f
    };
    w.rows_examined *= f;
    w.index_entries *= f;
    w.operator_evals *= f;
    w.function_calls = w.function_calls * f + projected * out_f;
    w.spill_bytes *= f;
    if p.op.as_str() == "Sort" && w.comparisons > 0.0 {
        let n = p.rows.max(2.0);
        let t = (n * f).max(2.0);
        w.comparisons *= (t * t.log2()) / (n * n.log2());
    } else {
        w.comparisons *= f;
    }
}

/// The page reads of a nested loop's inner whose lookups come in the order of its key
/// (the outer's rows ascend in the key they look up): all loops together sweep the
/// index and the heap once, in order. Each object's distinct pages become one sorted
/// sweep (dense sweeps are read like in-order reads, sparse ones like random reads:
/// `sim::time` assumption 8), the repeats of a page hit the buffer the sweep just
/// filled. Measured on PostgreSQL 15 (Q4, SF 0.1, cold): orders scanned in key order
/// probing a lineitem index, 5,459 lookups over its 1,463 pages in 72 ms with the scan
/// of orders, where random reads of those pages would take 0.19 s.
fn read_in_order(p: &mut PlanNode) {
    use costlab_model::plan::{AccessPattern, PageReads};
    let mut reads: Vec<PageReads> = Vec::with_capacity(p.work.page_reads.len());
    for r in p.work.page_reads.drain(..) {
        if r.pattern == AccessPattern::Sorted && r.requests <= r.distinct {
            reads.push(r);
            continue;
        }
        let d = r.distinct.min(r.requests);
        let repeats = r.requests - d;
        if repeats > 0.0 {
            reads.push(PageReads {
                pattern: AccessPattern::Random,
                requests: repeats,
                distinct: 0.0,
                ..r.clone()
            });
        }
        reads.push(PageReads {
            pattern: AccessPattern::Sorted,
            requests: d,
            distinct: d,
            ..r
        });
    }
    p.work.page_reads = reads;
    for c in &mut p.children {
        read_in_order(c);
    }
}

/// Nodes whose input runs once however often they are rescanned (a Memoize's runs once
/// per cache miss, which its child's Repeated says).
fn keeps_input(p: &PlanNode) -> bool {
    matches!(p.op.as_str(), "Materialize" | "Hash" | "Sort" | "Memoize")
}

/// A node's children: one or two but for the top node's sub-selects, so inline.
pub(crate) type Kids = SmallVec<[Rc<Node>; 2]>;

/// How a rescan of a path is costed (cost_rescan, §2.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Rescan {
    /// Every rescan costs what the first scan did.
    Same,
    /// Given (startup, total) per rescan: Material, Sort, one-batch Hash Join, Memoize.
    Fixed(f64, f64),
}

/// A path's sort order: most are one or two classes long, and paths are built and cloned
/// for every join candidate, so the keys live inline.
pub(crate) type PathKeys = SmallVec<[usize; 4]>;

/// A copy of short keys (pathkeys, classes), made inline: SmallVec's from_slice and
/// clone call memcpy for any length, and join_paths copies thousands of these a round.
pub(crate) fn copy_keys(k: &[usize]) -> PathKeys {
    match *k {
        [] => PathKeys::new(),
        [a] => PathKeys::from_buf_and_len([a, 0, 0, 0], 1),
        [a, b] => PathKeys::from_buf_and_len([a, b, 0, 0], 2),
        [a, b, c] => PathKeys::from_buf_and_len([a, b, c, 0], 3),
        [a, b, c, d] => PathKeys::from_buf([a, b, c, d]),
        _ => PathKeys::from_slice(k),
    }
}

/// `keys` starts with `prefix`, element by element (slice equality calls memcmp, which
/// costs more than comparing the few entries of pathkeys).
pub(crate) fn is_prefix(prefix: &[usize], keys: &[usize]) -> bool {
    prefix.len() <= keys.len() && prefix.iter().zip(keys).all(|(a, b)| a == b)
}

/// One path of a relation.
#[derive(Clone, Debug)]
pub(crate) struct JPath {
    pub startup: f64,
    pub total: f64,
    pub rows: f64,
    pub width: f64,
    /// Sort order as equivalence-class ids, ascending.
    pub pathkeys: PathKeys,
    /// Required outer relations (parameterized paths), as a relid bitmap.
    pub param: u64,
    pub rescan: Rescan,
    pub node: Rc<Node>,
    /// For a parameterized index path: the equivalence classes whose join clause the
    /// index enforces (has_indexed_join_quals).
    pub param_ecs: SmallVec<[usize; 4]>,
    /// The path can restore a mark (plain index scans, Material, Sort) — merge join.
    pub can_mark: bool,
    /// Disabled nodes in the path, its own and its children's (PostgreSQL 18, where
    /// add_path compares them before the costs; always 0 before 18, where a disabled
    /// node's disable_cost is in the costs instead).
    pub disabled: u32,
    /// A join candidate kept by add_path whose node is not built yet: its number in the
    /// deferred list of the join_paths call that offered it (0: the node is built).
    pub pending: u32,
    /// A partial path's planned workers (its rows and costs are one participant's);
    /// 0 for a complete path.
    pub workers: u32,
    /// parallel_safe: the path may run inside a worker (its relation's
    /// consider_parallel, and no Gather below).
    pub safe: bool,
}

impl JPath {
    pub fn rescan_cost(&self) -> (f64, f64) {
        match self.rescan {
            Rescan::Same => (self.startup, self.total),
            Rescan::Fixed(s, t) => (s, t),
        }
    }

    pub fn input(&self) -> super::costs::In {
        super::costs::In {
            startup: self.startup,
            total: self.total,
            rows: self.rows,
            width: self.width,
        }
    }
}

/// What add_path compares of a path: a new path is offered as this, and built
/// (`add_path_head`) only if add_path keeps it, where most are rejected.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PathHead<'k> {
    pub startup: f64,
    pub total: f64,
    pub rows: f64,
    pub pathkeys: &'k [usize],
    pub param: u64,
    pub disabled: u32,
    /// parallel_safe: add_path keeps a cheaper unsafe path (a Gather) beside a safe one.
    pub safe: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cmp {
    Equal,
    Better1,
    Better2,
    Different,
}

/// compare_path_costs_fuzzily. `startup`: the relation's consider_startup (a LIMIT above,
/// root->tuple_fraction > 0), which counts for unparameterized paths only
/// (CONSIDER_PATH_STARTUP_COST; consider_param_startup, set for the single-relation RHS of
/// a semi or anti join, is not modelled): a path fuzzily worse on total but better on
/// startup is then kept beside the other.
fn compare_costs(p1: &PathHead, p2: &JPath, fuzz: f64, startup: bool) -> Cmp {
    // PostgreSQL 18's compare_path_costs_fuzzily: fewer disabled nodes win outright.
    if p1.disabled != p2.disabled {
        return if p1.disabled < p2.disabled {
            Cmp::Better1
        } else {
            Cmp::Better2
        };
    }
    if p1.total > p2.total * fuzz {
        if startup && p1.param == 0 && p2.startup > p1.startup * fuzz {
            return Cmp::Different;
        }
        return Cmp::Better2;
    }
    if p2.total > p1.total * fuzz {
        if startup && p2.param == 0 && p1.startup > p2.startup * fuzz {
            return Cmp::Different;
        }
        return Cmp::Better1;
    }
    if p1.startup > p2.startup * fuzz {
        return Cmp::Better2;
    }
    if p2.startup > p1.startup * fuzz {
        return Cmp::Better1;
    }
    Cmp::Equal
}

fn compare_keys(k1: &[usize], k2: &[usize]) -> Cmp {
    // Element by element: the keys are a few entries, and slice equality calls memcmp,
    // which add_path's many comparisons spent a tenth of the planning time in.
    if k1.iter().zip(k2).any(|(a, b)| a != b) {
        Cmp::Different
    } else if k1.len() == k2.len() {
        Cmp::Equal
    } else if k1.len() > k2.len() {
        Cmp::Better1
    } else {
        Cmp::Better2
    }
}

fn compare_param(p1: u64, p2: u64) -> Cmp {
    if p1 == p2 {
        Cmp::Equal
    } else if p1 & p2 == p1 {
        Cmp::Better1
    } else if p1 & p2 == p2 {
        Cmp::Better2
    } else {
        Cmp::Different
    }
}

/// add_path (§6.4): keeps `list` free of dominated paths; older paths win ties.
/// Returns whether the new path was kept.
/// `startup`: the relation's consider_startup (see [`compare_costs`]).
pub(crate) fn add_path(list: &mut Vec<JPath>, mut new: JPath, startup: bool) -> bool {
    let keys = std::mem::take(&mut new.pathkeys);
    let head = PathHead {
        startup: new.startup,
        total: new.total,
        rows: new.rows,
        pathkeys: &keys,
        param: new.param,
        disabled: new.disabled,
        safe: new.safe,
    };
    add_path_head(list, head, startup, || JPath {
        pathkeys: copy_keys(&keys),
        ..new
    })
}

/// add_path for a path `new` that `make` builds only if it is kept (moving or building
/// a whole path for each of the many candidates add_path rejects cost more than the
/// comparisons).
pub(crate) fn add_path_head(
    list: &mut Vec<JPath>,
    new: PathHead,
    startup: bool,
    make: impl FnOnce() -> JPath,
) -> bool {
    if !new.total.is_finite() || !new.startup.is_finite() {
        return false;
    }
    let keys = new.pathkeys;
    let mut accept = true;
    let mut i = 0;
    while i < list.len() {
        let old = &list[i];
        let mut remove_old = false;
        // parallel_safe is one more dimension (pathnode.c): a path dominates only one
        // no safer than itself; of equal ones the safe path wins the tie.
        let (new_safer, old_safer) = (new.safe >= old.safe, old.safe >= new.safe);
        let costcmp = compare_costs(&new, old, STD_FUZZ_FACTOR, startup);
        if costcmp != Cmp::Different {
            // Parameterized paths are compared as if unordered.
            let keyscmp = if new.param != 0 || old.param != 0 {
                Cmp::Equal
            } else {
                compare_keys(keys, &old.pathkeys)
            };
            if keyscmp != Cmp::Different {
                let outercmp = compare_param(new.param, old.param);
                match costcmp {
                    Cmp::Equal => {
                        if keyscmp == Cmp::Better1 {
                            if matches!(outercmp, Cmp::Equal | Cmp::Better1)
                                && new.rows <= old.rows
                                && new_safer
                            {
                                remove_old = true;
                            }
                        } else if keyscmp == Cmp::Better2 {
                            if matches!(outercmp, Cmp::Equal | Cmp::Better2)
                                && new.rows >= old.rows
                                && old_safer
                            {
                                accept = false;
                            }
                        } else if outercmp == Cmp::Better1 && new.rows <= old.rows && new_safer {
                            remove_old = true;
                        } else if outercmp == Cmp::Better2 && new.rows >= old.rows && old_safer {
                            accept = false;
                        } else if outercmp == Cmp::Equal {
                            if new.safe != old.safe {
                                if new.safe {
                                    remove_old = true;
                                } else {
                                    accept = false;
                                }
                            } else if new.rows < old.rows {
                                remove_old = true;
                            } else if new.rows > old.rows {
                                accept = false;
                            } else if compare_costs(&new, old, 1.000_000_000_1, startup)
                                == Cmp::Better1
                            {
                                remove_old = true;
                            } else {
                                accept = false;
                            }
                        }
                    }
                    Cmp::Better1 => {
                        if keyscmp != Cmp::Better2
                            && matches!(outercmp, Cmp::Equal | Cmp::Better1)
                            && new.rows <= old.rows
                            && new_safer
                        {
                            remove_old = true;
                        }
                    }
                    Cmp::Better2 => {
                        if keyscmp != Cmp::Better1
                            && matches!(outercmp, Cmp::Equal | Cmp::Better2)
                            && new.rows >= old.rows
                            && old_safer
                        {
                            accept = false;
                        }
                    }
                    Cmp::Different => {}
                }
            }
        }
        if remove_old {
            list.remove(i);
            continue;
        }
        if !accept {
            return false;
        }
        i += 1;
    }
    list.push(make());
    true
}

/// set_cheapest's cheapest total (then startup) unparameterized path; fewer disabled
/// nodes first (PostgreSQL 18's compare_path_costs).
pub(crate) fn cheapest_total(list: &[JPath]) -> Option<&JPath> {
    list.iter()
        .filter(|p| p.param == 0)
        .min_by(|a, b| cheaper_total(a, b))
}

/// compare_path_costs(TOTAL_COST): disabled nodes, total, then startup cost.
pub(crate) fn cheaper_total(a: &JPath, b: &JPath) -> std::cmp::Ordering {
    a.disabled
        .cmp(&b.disabled)
        .then(a.total.total_cmp(&b.total))
        .then(a.startup.total_cmp(&b.startup))
}

/// add_partial_path (pathnode.c): a partial path is compared on total cost and pathkeys
/// only, and the list stays sorted by total cost, the cheapest partial path first.
/// Returns whether the new path was kept.
pub(crate) fn add_partial_path(list: &mut Vec<JPath>, mut new: JPath) -> bool {
    let keys = std::mem::take(&mut new.pathkeys);
    let (total, disabled) = (new.total, new.disabled);
    add_partial_path_head(list, total, disabled, &keys, || JPath {
        pathkeys: copy_keys(&keys),
        ..new
    })
}

/// add_partial_path for a path that `make` builds only if it is kept.
pub(crate) fn add_partial_path_head(
    list: &mut Vec<JPath>,
    total: f64,
    disabled: u32,
    keys: &[usize],
    make: impl FnOnce() -> JPath,
) -> bool {
    if !total.is_finite() {
        return false;
    }
    let mut insert_at = 0;
    let mut accept = true;
    let mut i = 0;
    while i < list.len() {
        let old = &list[i];
        let mut remove_old = false;
        let keyscmp = compare_keys(keys, &old.pathkeys);
        if keyscmp != Cmp::Different {
            if disabled != old.disabled {
                // PostgreSQL 18: fewer disabled nodes first.
                if disabled > old.disabled {
                    if keyscmp != Cmp::Better1 {
                        accept = false;
                    }
                } else if keyscmp != Cmp::Better2 {
                    remove_old = true;
                }
            } else if total > old.total * STD_FUZZ_FACTOR {
                if keyscmp != Cmp::Better1 {
                    accept = false;
                }
            } else if old.total > total * STD_FUZZ_FACTOR {
                if keyscmp != Cmp::Better2 {
                    remove_old = true;
                }
            } else if keyscmp == Cmp::Better1 {
                remove_old = true;
            } else if keyscmp == Cmp::Better2 {
                accept = false;
            } else if old.total > total * 1.000_000_000_1 {
                remove_old = true;
            } else {
                accept = false;
            }
        }
        if remove_old {
            list.remove(i);
            continue;
        }
        if (old.disabled, old.total) <= (disabled, total) {
            insert_at = i + 1;
        }
        if !accept {
            return false;
        }
        i += 1;
    }
    list.insert(insert_at.min(list.len()), make());
    true
}

/// add_partial_path_precheck (pathnode.c): whether a partial join path of this total cost
/// and pathkeys could survive, against the relation's partial paths and then against its
/// complete ones (a partial path that no complete path of the same order beats, on its
/// per-worker cost before any Gather, is worth building).
pub(crate) fn add_partial_path_precheck(
    partial: &[JPath],
    complete: &[JPath],
    disabled: u32,
    total: f64,
    pathkeys: &[usize],
) -> bool {
    for old in partial {
        let keyscmp = compare_keys(pathkeys, &old.pathkeys);
        if keyscmp != Cmp::Different {
            if (disabled, total) > (old.disabled, old.total * STD_FUZZ_FACTOR)
                && keyscmp != Cmp::Better1
            {
                return false;
            }
            if (old.disabled, old.total) > (disabled, total * STD_FUZZ_FACTOR)
                && keyscmp != Cmp::Better2
            {
                return true;
            }
        }
    }
    // add_path_precheck against the complete paths (consider_startup off: a partial
    // path's startup never counts).
    for old in complete.iter().filter(|p| p.param == 0) {
        if (disabled, total) > (old.disabled, old.total * STD_FUZZ_FACTOR) {
            let keyscmp = compare_keys(pathkeys, &old.pathkeys);
            if matches!(keyscmp, Cmp::Equal | Cmp::Better2) {
                return false;
            }
        }
    }
    true
}

/// Whether some path of `list` would make add_path reject `new` (fuzzily no cheaper, keys
/// no better, parameterization no better, rows no fewer, no safer): a Gather is tested
/// before its node is built. (add_path may drop an old path before it rejects the new
/// one; for the Gathers tested here that never changed a DBT3 plan: `pg_join_rounds`'
/// dump.)
pub(crate) fn dominated(list: &[JPath], new: &PathHead, startup: bool) -> bool {
    list.iter().any(|old| {
        old.safe >= new.safe
            && new.rows >= old.rows
            && matches!(
                compare_param(new.param, old.param),
                Cmp::Equal | Cmp::Better2
            )
            && {
                let keys = if new.param != 0 || old.param != 0 {
                    Cmp::Equal
                } else {
                    compare_keys(new.pathkeys, &old.pathkeys)
                };
                matches!(keys, Cmp::Equal | Cmp::Better2)
            }
            && compare_costs(new, old, STD_FUZZ_FACTOR, startup) == Cmp::Better2
    })
}

#[cfg(test)]
mod partial_tests {
    use super::*;

    fn path(total: f64, keys: &[usize]) -> JPath {
        JPath {
            startup: 0.0,
            total,
            rows: 1.0,
            width: 8.0,
            pathkeys: copy_keys(keys),
            param: 0,
            rescan: Rescan::Same,
            node: Node::new(
                "Seq Scan",
                0.0,
                total,
                1.0,
                8.0,
                Work::default(),
                Vec::new(),
                [],
            ),
            param_ecs: SmallVec::new(),
            can_mark: false,
            disabled: 0,
            pending: 0,
            workers: 2,
            safe: true,
        }
    }

    /// add_partial_path keeps the list sorted by total cost, rejects a path 1 % dearer
    /// with the same keys and keeps one with better keys (spec U5).
    #[test]
    fn add_partial_path_keeps_the_cheapest_first_and_better_keys() {
        let mut list = Vec::new();
        assert!(add_partial_path(&mut list, path(100.0, &[])));
        assert!(!add_partial_path(&mut list, path(102.0, &[])));
        assert!(add_partial_path(&mut list, path(102.0, &[1])));
        assert!(add_partial_path(&mut list, path(90.0, &[])));
        let totals: Vec<f64> = list.iter().map(|p| p.total).collect();
        assert_eq!(totals, vec![90.0, 102.0]);
        // The precheck: a partial path beaten by a complete one of the same order loses.
        assert!(!add_partial_path_precheck(
            &[],
            &[path(50.0, &[])],
            0,
            80.0,
            &[]
        ));
        assert!(add_partial_path_precheck(
            &[],
            &[path(50.0, &[])],
            0,
            80.0,
            &[1]
        ));
    }

    /// A cheaper Gather (parallel-unsafe) does not evict the safe path partial joins need.
    #[test]
    fn add_path_keeps_a_safe_path_beside_a_cheaper_unsafe_one() {
        let mut list = Vec::new();
        add_path(&mut list, path(100.0, &[]), false);
        let gather = JPath {
            safe: false,
            workers: 0,
            ..path(60.0, &[])
        };
        assert!(add_path(&mut list, gather, false));
        assert_eq!(list.len(), 2);
        // A dearer unsafe path still loses to a cheaper safe one.
        let dear = JPath {
            safe: false,
            ..path(200.0, &[])
        };
        assert!(!add_path(&mut list, dear, false));
    }
}
