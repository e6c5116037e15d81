//! A plan's normalised shape, read alike from PostgreSQL's EXPLAIN (FORMAT JSON) and from the
//! model's [`PlanNode`] tree: join order and methods, scan methods and indexes, aggregation,
//! sort, limit, materialise/memoize, subplans. Two plans with equal [`shape`] strings are
//! the same plan; the DBT3 comparison with a real server and the validation's
//! deduplication of forced plans both compare with it.
//!
//! Conventions the model's tree is read with (see [`from_model`]): `op` is EXPLAIN's node
//! name ("Hash Join", "Seq Scan", "Bitmap Heap Scan" with "Bitmap Index Scan" children,
//! "Aggregate" with a detail "Strategy: Hashed" or the text names "HashAggregate" /
//! "GroupAggregate"); `relation` is the alias, `index` the index name; a detail
//! "Join Type: Semi" gives the join type (none: Inner); a child with a detail
//! "Parent Relationship: InitPlan" or "Parent Relationship: SubPlan" is a subplan. "Hash"
//! nodes and single-child "Result" nodes are transparent. EXPLAIN's `table_1` names for a
//! second unaliased reference read as `table` on both sides.

use costlab_model::plan::PlanNode;
use serde_json::Value as Json;

/// One plan node, normalised.
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// EXPLAIN's node type ("Hash Join", "Aggregate", ...).
    pub op: String,
    pub alias: Option<String>,
    pub index: Option<String>,
    pub join_type: Option<String>,
    /// Aggregate strategy: Plain, Sorted, Hashed, Mixed.
    pub strategy: Option<String>,
    /// Parallel aggregation's half: "Partial" or "Finalize" (EXPLAIN's Partial Mode; none
    /// for a Simple aggregate).
    pub mode: Option<String>,
    /// "InitPlan" or "SubPlan" when this node heads a subplan.
    pub subplan: Option<String>,
    pub total: f64,
    pub children: Vec<Node>,
}

/// EXPLAIN names a table's second and later references without an alias `table_1`,
/// `table_2`, ... (ruleutils' unique names); both sides compare with the table name.
fn norm_alias(alias: Option<&str>) -> Option<String> {
    const TABLES: [&str; 8] = [
        "region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem",
    ];
    let a = alias?;
    if let Some((base, n)) = a.rsplit_once('_') {
        if TABLES.contains(&base) && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            return Some(base.to_string());
        }
    }
    Some(a.to_string())
}

/// An EXPLAIN (FORMAT JSON) node (the `Plan` object) normalised.
pub fn from_explain(v: &Json) -> Node {
    let s = |k: &str| v.get(k).and_then(Json::as_str).map(str::to_string);
    let rel = s("Parent Relationship");
    let mut op = s("Node Type").unwrap_or_default();
    if v.get("Parallel Aware").and_then(Json::as_bool) == Some(true) {
        op = format!("Parallel {op}");
    }
    Node {
        op,
        mode: s("Partial Mode").filter(|m| m != "Simple"),
        alias: norm_alias(v.get("Alias").and_then(Json::as_str)),
        index: s("Index Name"),
        join_type: s("Join Type"),
        strategy: s("Strategy"),
        subplan: rel.filter(|r| r == "InitPlan" || r == "SubPlan"),
        total: v
            .get("Total Cost")
            .and_then(Json::as_f64)
            .unwrap_or(f64::NAN),
        children: v
            .get("Plans")
            .and_then(Json::as_array)
            .map(|a| a.iter().map(from_explain).collect())
            .unwrap_or_default(),
    }
}

/// A model's plan node normalised.
pub fn from_model(n: &PlanNode) -> Node {
    let detail = |key: &str| {
        n.details.iter().find_map(|d| {
            d.strip_prefix(key)
                .and_then(|r| r.strip_prefix(':'))
                .map(|r| r.trim().to_string())
        })
    };
    // "Partial HashAggregate", "Finalize GroupAggregate": the half, then the node.
    let (mode, name) = match n.op.split_once(' ') {
        Some((m @ ("Partial" | "Finalize"), rest)) if rest.contains("Aggregate") => {
            (Some(m.to_string()), rest)
        }
        _ => (None, n.op.as_ref()),
    };
    let (op, strategy) = match name {
        "HashAggregate" => ("Aggregate".to_string(), Some("Hashed".to_string())),
        "GroupAggregate" => ("Aggregate".to_string(), Some("Sorted".to_string())),
        "MixedAggregate" => ("Aggregate".to_string(), Some("Mixed".to_string())),
        "Aggregate" => (
            "Aggregate".to_string(),
            Some(detail("Strategy").unwrap_or_else(|| "Plain".into())),
        ),
        other => (other.to_string(), detail("Strategy")),
    };
    let subplan = detail("Parent Relationship")
        .or_else(|| {
            n.details.iter().find_map(|d| {
                ["InitPlan", "SubPlan"]
                    .into_iter()
                    .find(|p| d.starts_with(p))
                    .map(str::to_string)
            })
        })
        .filter(|r| r == "InitPlan" || r == "SubPlan");
    Node {
        op,
        mode,
        alias: norm_alias(n.relation.as_deref()),
        index: n.index.as_deref().map(str::to_string),
        join_type: detail("Join Type"),
        strategy,
        subplan,
        total: n.cost.total,
        children: n.children.iter().map(from_model).collect(),
    }
}

/// Index names under a Bitmap Heap Scan: `a`, `a&b` (BitmapAnd), `a|b` (BitmapOr).
fn bitmap_indexes(n: &Node) -> String {
    match n.op.as_str() {
        "Bitmap Index Scan" => n.index.clone().unwrap_or_else(|| "?".into()),
        "BitmapAnd" | "BitmapOr" => {
            let sep = if n.op == "BitmapAnd" { "&" } else { "|" };
            let parts: Vec<String> = n.children.iter().map(bitmap_indexes).collect();
            format!("({})", parts.join(sep))
        }
        _ => format!("?{}", n.op),
    }
}

/// The normalised shape of one node: a compact tree expression. Subplans (InitPlan,
/// SubPlan) are collected into `subs` in tree order instead of being placed, since where
/// PostgreSQL attaches them is not a planning decision worth comparing.
fn shape_of(n: &Node, subs: &mut Vec<String>) -> String {
    // A parallel-aware node is its serial form marked P (PSeq, PIdx, PHJ); its Parallel
    // Hash is transparent like a Hash.
    if let Some(serial) = n.op.strip_prefix("Parallel ") {
        let node = Node {
            op: serial.to_string(),
            ..n.clone()
        };
        let text = shape_of(&node, subs);
        return if serial == "Hash" {
            text
        } else {
            format!("P{text}")
        };
    }
    let (main, sub): (Vec<&Node>, Vec<&Node>) =
        n.children.iter().partition(|c| c.subplan.is_none());
    for s in sub {
        let mut inner = Vec::new();
        let text = shape_of(s, &mut inner);
        subs.push(format!(
            "{}={text}",
            s.subplan.as_deref().unwrap_or("?").to_ascii_lowercase()
        ));
        subs.extend(inner);
    }
    let kids = |subs: &mut Vec<String>| -> String {
        main.iter()
            .map(|c| shape_of(c, subs))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let alias = n.alias.as_deref().unwrap_or("?");
    let index = n.index.as_deref().unwrap_or("?");
    let half = n.mode.as_deref().unwrap_or("");
    match n.op.as_str() {
        "Seq Scan" => format!("Seq({alias})"),
        "Index Scan" => format!("Idx({alias}:{index})"),
        "Index Only Scan" => format!("IOS({alias}:{index})"),
        "Bitmap Heap Scan" => {
            let idx: Vec<String> = main.iter().map(|c| bitmap_indexes(c)).collect();
            format!("Bmp({alias}:{})", idx.join(","))
        }
        "Subquery Scan" => format!("Subq[{alias}]({})", kids(subs)),
        "CTE Scan" | "Function Scan" | "Values Scan" => format!("{}({alias})", n.op),
        // Transparent.
        "Hash" => kids(subs),
        "Result" if main.len() == 1 => kids(subs),
        "Hash Join" | "Nested Loop" | "Merge Join" => {
            let m = match n.op.as_str() {
                "Hash Join" => "HJ",
                "Nested Loop" => "NL",
                _ => "MJ",
            };
            let jt = match n.join_type.as_deref() {
                None | Some("Inner") => String::new(),
                Some(t) => format!("/{}", t.to_ascii_lowercase()),
            };
            format!("{m}{jt}({})", kids(subs))
        }
        "Aggregate" => {
            let a = match n.strategy.as_deref() {
                Some("Hashed") => "HashAgg",
                Some("Sorted") => "GroupAgg",
                Some("Mixed") => "MixedAgg",
                _ => "Agg",
            };
            format!("{half}{a}({})", kids(subs))
        }
        "Sort" => format!("Sort({})", kids(subs)),
        "Incremental Sort" => format!("ISort({})", kids(subs)),
        "Limit" => format!("Limit({})", kids(subs)),
        "Materialize" => format!("Mat({})", kids(subs)),
        "Memoize" => format!("Memo({})", kids(subs)),
        other => {
            let k = kids(subs);
            if k.is_empty() {
                other.replace(' ', "")
            } else {
                format!("{}({k})", other.replace(' ', ""))
            }
        }
    }
}

/// The whole plan's shape: the main tree, then its subplans.
pub fn shape(n: &Node) -> String {
    let mut subs = Vec::new();
    let main = shape_of(n, &mut subs);
    if subs.is_empty() {
        main
    } else {
        format!("{main} ; {}", subs.join(" ; "))
    }
}

/// Relation aliases of the main tree (subplans excluded) in left-to-right order.
fn join_order(n: &Node, out: &mut Vec<String>) {
    if n.subplan.is_some() {
        return;
    }
    if n.op.ends_with("Scan") && !n.op.starts_with("Bitmap Index") && n.op != "Subquery Scan" {
        out.push(n.alias.clone().unwrap_or_else(|| "?".into()));
        return;
    }
    if n.op == "Subquery Scan" {
        out.push(format!("[{}]", n.alias.as_deref().unwrap_or("?")));
        return;
    }
    for c in &n.children {
        join_order(c, out);
    }
}

pub fn order_string(n: &Node) -> String {
    let mut v = Vec::new();
    join_order(n, &mut v);
    v.join(" ")
}

/// The shape of an EXPLAIN (FORMAT JSON) plan (its `Plan` object).
pub fn explain_shape(plan: &Json) -> String {
    shape(&from_explain(plan))
}

/// The shape of a model's plan tree.
pub fn model_shape(tree: &PlanNode) -> String {
    shape(&from_model(tree))
}

#[cfg(test)]
mod tests {
    use super::*;
    use costlab_model::plan::{Cost, Work};

    /// The normaliser reads an EXPLAIN tree and the equivalent PlanNode tree alike.
    #[test]
    fn shape_reads_explain_and_plan_nodes_alike() {
        let explain: Json = serde_json::from_str(
            r#"{"Node Type": "Aggregate", "Strategy": "Hashed", "Total Cost": 10.5, "Plans": [
                {"Node Type": "Hash Join", "Join Type": "Semi", "Parent Relationship": "Outer", "Plans": [
                  {"Node Type": "Seq Scan", "Alias": "orders", "Relation Name": "orders"},
                  {"Node Type": "Hash", "Plans": [
                    {"Node Type": "Bitmap Heap Scan", "Alias": "lineitem_1", "Relation Name": "lineitem", "Plans": [
                      {"Node Type": "BitmapOr", "Plans": [
                        {"Node Type": "Bitmap Index Scan", "Index Name": "a"},
                        {"Node Type": "Bitmap Index Scan", "Index Name": "b"}]}]}]}]},
                {"Node Type": "Aggregate", "Strategy": "Plain", "Parent Relationship": "InitPlan", "Plans": [
                  {"Node Type": "Index Only Scan", "Alias": "part", "Index Name": "pk_part"}]}]}"#,
        )
        .expect("json");
        let node = |op: &str, rel: Option<&str>, idx: Option<&str>, details: &[&str], kids| {
            let mut n = PlanNode::leaf(op, Cost::new(0.0, 10.5), 1.0, Work::default());
            n.relation = rel.map(Into::into);
            n.index = idx.map(Into::into);
            n.details = details.iter().map(|d| d.to_string()).collect();
            n.children = kids;
            n
        };
        let bitmap = node(
            "Bitmap Heap Scan",
            Some("lineitem"),
            None,
            &[],
            vec![node(
                "BitmapOr",
                None,
                None,
                &[],
                vec![
                    node("Bitmap Index Scan", None, Some("a"), &[], vec![]),
                    node("Bitmap Index Scan", None, Some("b"), &[], vec![]),
                ],
            )],
        );
        let model = node(
            "HashAggregate",
            None,
            None,
            &[],
            vec![
                node(
                    "Hash Join",
                    None,
                    None,
                    &["Join Type: Semi"],
                    vec![
                        node("Seq Scan", Some("orders"), None, &[], vec![]),
                        node("Hash", None, None, &[], vec![bitmap]),
                    ],
                ),
                node(
                    "Aggregate",
                    None,
                    None,
                    &["Parent Relationship: InitPlan"],
                    vec![node(
                        "Index Only Scan",
                        Some("part"),
                        Some("pk_part"),
                        &[],
                        vec![],
                    )],
                ),
            ],
        );
        let a = from_explain(&explain);
        let b = from_model(&model);
        assert_eq!(
            shape(&a),
            "HashAgg(HJ/semi(Seq(orders), Bmp(lineitem:(a|b)))) ; initplan=Agg(IOS(part:pk_part))"
        );
        assert_eq!(shape(&a), shape(&b));
        assert_eq!(order_string(&a), "orders lineitem");
        assert_eq!(order_string(&a), order_string(&b));
        assert_eq!(a.total, b.total);
        assert_eq!(explain_shape(&explain), model_shape(&model));
    }
}
