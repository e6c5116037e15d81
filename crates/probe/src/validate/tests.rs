use super::options::*;
use super::timing::*;
use super::*;
use serde_json::Value as Json;

/// Rounds over the plans, so a slow spell hits one run of each; a plan past the limit
/// is not run again, the others go on.
#[test]
fn runs_interleave_and_a_plan_past_the_limit_stops() {
    let mut order = Vec::new();
    let runs = interleaved_runs(3, 3, |i| {
        order.push(i);
        Ok(Exec {
            // Plan 1 runs past the limit on its second execution.
            seconds: (i != 1 || order.iter().filter(|&&p| p == 1).count() < 2).then_some(i as f64),
            key: format!("p{i}"),
            real_plan: String::new(),
            hit: 0.0,
            read: 0.0,
        })
    })
    .expect("no error");
    assert_eq!(order, [0, 1, 2, 0, 1, 2, 0, 2]);
    assert_eq!(runs[0].0, [0.0; 3]);
    assert_eq!(runs[1].0, [1.0]);
    assert!(runs[1].1.as_ref().is_some_and(|e| e.seconds.is_none()));
    assert_eq!(runs[2].0, [2.0; 3]);
}

#[test]
fn scan_keys_from_explain_json() {
    let bitmap: Json = serde_json::from_str(
        r#"{"Node Type": "Bitmap Heap Scan", "Plans": [
             {"Node Type": "Bitmap Index Scan", "Index Name": "t1_i7"}]}"#,
    )
    .expect("json");
    assert_eq!(
        scan_of(&bitmap).map(|k| k.0).as_deref(),
        Some("bitmap:t1_i7")
    );
    let agg: Json = serde_json::from_str(
        r#"{"Node Type": "Aggregate", "Plans": [
             {"Node Type": "Index Only Scan", "Index Name": "t1_c7"}]}"#,
    )
    .expect("json");
    assert_eq!(
        scan_of(&agg).map(|k| k.0).as_deref(),
        Some("indexonly:t1_c7")
    );
    assert_eq!(switches_for("gather-seq"), None);
    assert_eq!(
        switches_for("bitmap:t1_i7"),
        Some(vec!["seqscan", "indexscan", "indexonlyscan"])
    );
}

#[test]
fn default_table_is_twice_shared_buffers() {
    let rows = default_rows(128);
    assert!(rows as f64 * ROW_BYTES >= 2.0 * 128.0 * 1048576.0);
    assert_eq!(default_rows(1024) % 100_000, 0);
    assert!(default_rows(1024) as f64 * ROW_BYTES >= 2.0 * 1024.0 * 1048576.0);
}
