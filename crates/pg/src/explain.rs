//! EXPLAIN-style text: conditions as PostgreSQL deparses them and the indented plan.

use costlab_model::catalog::{ColumnType, Value};
use costlab_model::plan::{PlanNode, Planned};

use super::pathnodes::{ClauseKind, Rel};

/// PostgreSQL's name of a column type, as EXPLAIN shows casts.
fn type_name(ty: &ColumnType) -> &'static str {
    match ty {
        ColumnType::Int4 => "integer",
        ColumnType::Int8 => "bigint",
        ColumnType::Float8 => "double precision",
        ColumnType::Numeric => "numeric",
        ColumnType::Date => "date",
        ColumnType::Text => "text",
        ColumnType::Char(_) => "bpchar",
        ColumnType::Bool => "boolean",
        ColumnType::Point => "point",
    }
}

/// A constant as it appears inside an array literal or a quoted cast.
fn raw_value(ty: &ColumnType, v: &Value) -> String {
    match (ty, v) {
        // Clamped so absurd statistics cannot overflow the day arithmetic.
        (ColumnType::Date, Value::Num(x)) => {
            costlab_model::date::format(x.clamp(-1e12, 1e12).floor() as i64)
        }
        (ColumnType::Bool, Value::Num(x)) => (if *x != 0.0 { "true" } else { "false" }).into(),
        (_, Value::Num(x)) => format!("{x}"),
        (_, Value::Text(s)) => s.replace('\'', "''"),
    }
}

/// A constant as EXPLAIN prints it: bare integers and numeric decimals (ruleutils prints
/// a numeric Const that looks like a decimal without quotes: `(l_discount >= 0.05)`),
/// otherwise a quoted literal with a cast (`'24'::numeric`).
fn const_text(ty: &ColumnType, v: &Value) -> String {
    match (ty, v) {
        (ColumnType::Int4 | ColumnType::Int8, Value::Num(x)) if x.fract() == 0.0 => {
            format!("{x}")
        }
        (ColumnType::Numeric, Value::Num(x)) if x.fract() != 0.0 && *x > 0.0 => format!("{x}"),
        _ => format!("'{}'::{}", raw_value(ty, v), type_name(ty)),
    }
}

/// One clause, parenthesized: `(a > 400000000)`, `(a = ANY ('{1,2}'::integer[]))`.
fn clause_text(rel: &Rel, i: usize) -> String {
    let cl = &rel.clauses[i];
    let col = &rel.cols[cl.col];
    match &cl.kind {
        ClauseKind::Op { op, value } => {
            format!(
                "({} {} {})",
                col.name,
                op.symbol(),
                const_text(&col.ty, value)
            )
        }
        ClauseKind::AnyEq { values } => {
            let items: Vec<String> = values.iter().map(|v| raw_value(&col.ty, v)).collect();
            format!(
                "({} = ANY ('{{{}}}'::{}[]))",
                col.name,
                items.join(","),
                type_name(&col.ty)
            )
        }
    }
}

/// Clauses ANDed as EXPLAIN shows them: one clause as is, several wrapped once more.
pub(crate) fn cond_text(rel: &Rel, ids: &[usize]) -> String {
    let parts: Vec<String> = ids.iter().map(|&i| clause_text(rel, i)).collect();
    if parts.len() == 1 {
        parts[0].clone()
    } else {
        format!("({})", parts.join(" AND "))
    }
}

pub(crate) fn sort_key_text(rel: &Rel) -> String {
    rel.pathkeys
        .iter()
        .map(|(c, desc)| {
            let name = &rel.cols[*c].name;
            if *desc {
                format!("{name} DESC")
            } else {
                name.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The node's header line: `Index Scan using i on t  (cost=0.43..8.45 rows=1 width=4)`.
fn header(n: &PlanNode) -> String {
    let mut s = join_name(n);
    let bitmap_index = n.op == "Bitmap Index Scan";
    match (&n.index, &n.relation) {
        (Some(i), _) if bitmap_index => {
            s.push_str(" on ");
            s.push_str(i);
        }
        (Some(i), Some(r)) => {
            s.push_str(&format!(" using {i} on {r}"));
        }
        (None, Some(r)) => {
            s.push_str(&format!(" on {r}"));
        }
        _ => {}
    }
    format!(
        "{s}  (cost={:.2}..{:.2} rows={:.0} width={:.0})",
        n.cost.startup, n.cost.total, n.rows, n.width
    )
}

/// A join's node name with its join type as text EXPLAIN prints it (explain.c): "Hash
/// Semi Join", "Merge Left Join", "Parallel Hash Right Anti Join", "Nested Loop Anti
/// Join"; an inner join keeps its plain name. The type comes from the node's "Join Type:"
/// detail, which only EXPLAIN's other formats show as a line.
fn join_name(n: &PlanNode) -> String {
    let op = n.op.as_str();
    let jt = n
        .details
        .iter()
        .find_map(|d| d.strip_prefix("Join Type: "))
        .filter(|t| *t != "Inner");
    match (jt, op.strip_suffix(" Join")) {
        (Some(t), Some(method)) => format!("{method} {t} Join"),
        (Some(t), None) if op == "Nested Loop" => format!("Nested Loop {t} Join"),
        _ => op.to_string(),
    }
}

fn write_node(out: &mut String, n: &PlanNode, depth: usize) {
    let (prefix, detail_indent) = if depth == 0 {
        (String::new(), 2)
    } else {
        (
            format!("{}->  ", " ".repeat(6 * (depth - 1) + 2)),
            6 * depth + 2,
        )
    };
    out.push_str(&prefix);
    out.push_str(&header(n));
    out.push('\n');
    for d in n.details.iter().filter(|d| !d.starts_with("Join Type: ")) {
        out.push_str(&" ".repeat(detail_indent));
        out.push_str(d);
        out.push('\n');
    }
    for c in &n.children {
        write_node(out, c, depth + 1);
    }
}

/// Prints a plan tree the way PostgreSQL's text EXPLAIN does.
pub fn explain_node(n: &PlanNode) -> String {
    let mut out = String::new();
    write_node(&mut out, n, 0);
    out
}

/// Prints the chosen plan like PostgreSQL's EXPLAIN (costs "%.2f", rows "%.0f").
pub fn explain_text(planned: &Planned) -> String {
    explain_node(&planned.chosen().plan)
}
