//! Paths, plan trees and add_path for the join planner (§6.3, §6.4).

use std::rc::Rc;

use crate::plan::{Cost, Name, PlanNode, Work};

/// A plan node whose children are shared between the paths that use them: the join
/// search builds many paths over the same inputs, and copying whole trees into each
/// would cost more than the costing.
#[derive(Debug)]
pub(crate) struct Node {
    pub plan: PlanNode,
    pub kids: Vec<Rc<Node>>,
}

impl Node {
    pub fn leaf(plan: PlanNode) -> Rc<Node> {
        Rc::new(Node {
            plan,
            kids: Vec::new(),
        })
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
        kids: Vec<Rc<Node>>,
    ) -> Rc<Node> {
        Rc::new(Node {
            plan: PlanNode {
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
        })
    }

    /// The owned EXPLAIN tree.
    pub fn to_plan(&self) -> PlanNode {
        let mut p = self.plan.clone();
        p.children.extend(self.kids.iter().map(|k| k.to_plan()));
        p
    }
}

/// How a rescan of a path is costed (cost_rescan, §2.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Rescan {
    /// Every rescan costs what the first scan did.
    Same,
    /// Given (startup, total) per rescan: Material, Sort, one-batch Hash Join, Memoize.
    Fixed(f64, f64),
}

/// One path of a relation.
#[derive(Clone, Debug)]
pub(crate) struct JPath {
    pub startup: f64,
    pub total: f64,
    pub rows: f64,
    pub width: f64,
    /// Sort order as equivalence-class ids, ascending.
    pub pathkeys: Vec<usize>,
    /// Required outer relations (parameterized paths), as a relid bitmap.
    pub param: u64,
    pub rescan: Rescan,
    pub node: Rc<Node>,
    /// For a parameterized index path: the equivalence classes whose join clause the
    /// index enforces (has_indexed_join_quals).
    pub param_ecs: Vec<usize>,
    /// The path can restore a mark (plain index scans, Material, Sort) — merge join.
    pub can_mark: bool,
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

/// add_path's fuzz factor (§6.4).
pub(crate) const FUZZ: f64 = 1.01;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cmp {
    Equal,
    Better1,
    Better2,
    Different,
}

fn compare_costs(p1: &JPath, p2: &JPath, fuzz: f64) -> Cmp {
    if p1.total > p2.total * fuzz {
        return Cmp::Better2;
    }
    if p2.total > p1.total * fuzz {
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
    if k1 == k2 {
        Cmp::Equal
    } else if k1.starts_with(k2) {
        Cmp::Better1
    } else if k2.starts_with(k1) {
        Cmp::Better2
    } else {
        Cmp::Different
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
pub(crate) fn add_path(list: &mut Vec<JPath>, new: JPath) -> bool {
    if !new.total.is_finite() || !new.startup.is_finite() {
        return false;
    }
    let mut accept = true;
    let mut i = 0;
    while i < list.len() {
        let old = &list[i];
        let mut remove_old = false;
        let costcmp = compare_costs(&new, old, FUZZ);
        if costcmp != Cmp::Different {
            // Parameterized paths are compared as if unordered.
            let keyscmp = if new.param != 0 || old.param != 0 {
                Cmp::Equal
            } else {
                compare_keys(&new.pathkeys, &old.pathkeys)
            };
            if keyscmp != Cmp::Different {
                let outercmp = compare_param(new.param, old.param);
                match costcmp {
                    Cmp::Equal => {
                        if keyscmp == Cmp::Better1 {
                            if matches!(outercmp, Cmp::Equal | Cmp::Better1) && new.rows <= old.rows
                            {
                                remove_old = true;
                            }
                        } else if keyscmp == Cmp::Better2 {
                            if matches!(outercmp, Cmp::Equal | Cmp::Better2) && new.rows >= old.rows
                            {
                                accept = false;
                            }
                        } else if outercmp == Cmp::Better1 && new.rows <= old.rows {
                            remove_old = true;
                        } else if outercmp == Cmp::Better2 && new.rows >= old.rows {
                            accept = false;
                        } else if outercmp == Cmp::Equal {
                            if new.rows < old.rows {
                                remove_old = true;
                            } else if new.rows > old.rows {
                                accept = false;
                            } else if compare_costs(&new, old, 1.000_000_000_1) == Cmp::Better1 {
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
                        {
                            remove_old = true;
                        }
                    }
                    Cmp::Better2 => {
                        if keyscmp != Cmp::Better1
                            && matches!(outercmp, Cmp::Equal | Cmp::Better2)
                            && new.rows >= old.rows
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
    list.push(new);
    true
}

/// set_cheapest's cheapest total (then startup) unparameterized path.
pub(crate) fn cheapest_total(list: &[JPath]) -> Option<&JPath> {
    list.iter().filter(|p| p.param == 0).min_by(|a, b| {
        a.total
            .total_cmp(&b.total)
            .then(a.startup.total_cmp(&b.startup))
    })
}

/// add_path_precheck (§6.3): could a path with these lower bounds survive?
pub(crate) fn precheck(list: &[JPath], total: f64, pathkeys: &[usize]) -> bool {
    // Without consider_startup only the total matters.
    !list.iter().filter(|p| p.param == 0).any(|old| {
        total > old.total * FUZZ
            && matches!(
                compare_keys(&old.pathkeys, pathkeys),
                Cmp::Equal | Cmp::Better1
            )
    })
}
