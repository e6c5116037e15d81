//! MySQL's tabular EXPLAIN for the chosen plan, as the `mysql` client prints it.

use costlab_model::plan::{PlanNode, Planned};

const HEADERS: [&str; 12] = [
    "id",
    "select_type",
    "table",
    "partitions",
    "type",
    "possible_keys",
    "key",
    "key_len",
    "ref",
    "rows",
    "filtered",
    "Extra",
];

/// Columns the client right-aligns (numeric result columns).
const RIGHT: [bool; 12] = [
    true, false, false, false, false, false, false, false, false, true, true, false,
];

/// Value of a `name: value` detail line.
fn detail<'a>(node: &'a PlanNode, name: &str) -> Option<&'a str> {
    node.details.iter().find_map(|d| {
        d.strip_prefix(name)
            .and_then(|rest| rest.strip_prefix(": "))
    })
}

/// Extra items are the details that are not `name: value` lines.
fn extra(node: &PlanNode) -> String {
    let items: Vec<&str> = node
        .details
        .iter()
        .filter(|d| !d.contains(": "))
        .map(String::as_str)
        .collect();
    if items.is_empty() {
        "NULL".into()
    } else {
        items.join("; ")
    }
}

fn row_of(node: &PlanNode) -> [String; 12] {
    let null = || "NULL".to_string();
    if node.op == "NULL" {
        // Impossible WHERE: no table is read.
        let mut r: [String; 12] = std::array::from_fn(|_| null());
        r[0] = "1".into();
        r[1] = "SIMPLE".into();
        r[11] = extra(node);
        return r;
    }
    let key_len = detail(node, "key_len").map_or_else(null, |s| {
        s.parse::<f64>()
            .map(|x| format!("{}", x.round() as i64))
            .unwrap_or_else(|_| s.to_string())
    });
    [
        "1".into(),
        "SIMPLE".into(),
        node.relation.as_deref().map_or_else(null, str::to_string),
        null(),
        node.op.to_string(),
        detail(node, "possible_keys").map_or_else(null, str::to_string),
        node.index.as_deref().map_or_else(null, str::to_string),
        key_len,
        detail(node, "ref").map_or_else(null, str::to_string),
        format!("{}", node.rows.round() as i64),
        detail(node, "filtered").map_or_else(|| "100.00".into(), str::to_string),
        extra(node),
    ]
}

/// The chosen plan as MySQL's tabular `EXPLAIN SELECT ...` prints it.
pub fn explain_text(planned: &Planned) -> String {
    let Some(chosen) = planned.candidates.get(planned.chosen) else {
        return String::new();
    };
    let row = row_of(&chosen.plan);
    let widths: Vec<usize> = HEADERS
        .iter()
        .zip(&row)
        .map(|(h, v)| h.chars().count().max(v.chars().count()))
        .collect();
    let rule = {
        let mut s = String::from("+");
        for w in &widths {
            s.push_str(&"-".repeat(w + 2));
            s.push('+');
        }
        s
    };
    let line = |cells: &[String], align: bool| {
        let mut s = String::from("|");
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            if align && RIGHT[i] {
                s.push_str(&format!(" {c:>w$} |"));
            } else {
                s.push_str(&format!(" {c:<w$} |"));
            }
        }
        s
    };
    let headers: Vec<String> = HEADERS.iter().map(|h| h.to_string()).collect();
    let mut out = String::new();
    for l in [
        rule.clone(),
        line(&headers, false),
        rule.clone(),
        line(&row, true),
        rule,
    ] {
        out.push_str(&l);
        out.push('\n');
    }
    out.push_str("1 row in set, 1 warning\n");
    out
}
