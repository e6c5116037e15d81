//! Physical work of each MySQL access path: page requests, rows, entries, comparisons.
//! No cost constant appears here; counts come from the true data (column statistics and
//! `Table::rows`), not from the optimizer's estimates.

use costlab_model::plan::{AccessPattern, Name, PageReads, Work};

/// Expected distinct pages hit by `requests` uniformly random requests over `pages` pages
/// (Cardenas' formula, sampling with replacement).
pub fn cardenas(pages: f64, requests: f64) -> f64 {
    if pages <= 0.0 || requests <= 0.0 {
        return 0.0;
    }
    if pages <= 1.0 {
        return 1.0;
    }
    // 1 - (1 - 1/P)^n, computed via logs so that huge P and n stay accurate.
    let hit = -(requests * (-1.0 / pages).ln_1p()).exp_m1();
    (pages * hit).min(requests).min(pages)
}

/// WHERE evaluations with AND short-circuit: the i-th predicate runs only on rows that
/// passed the earlier ones.
pub fn where_evals(rows_in: f64, selectivities: &[f64]) -> f64 {
    let mut passing = rows_in;
    let mut evals = 0.0;
    for s in selectivities {
        evals += passing;
        passing *= s;
    }
    evals
}

/// Leaf pages touched by a run of `rows` consecutive entries starting at a random place.
pub fn leaf_pages_for_run(rows: f64, entries_per_page: f64, total_pages: f64) -> f64 {
    let pages = if entries_per_page > 0.0 {
        1.0 + rows.max(0.0) / entries_per_page
    } else {
        1.0
    };
    pages.min(total_pages.max(1.0))
}

/// One object's page requests.
pub fn reads(
    object: &Name,
    object_pages: f64,
    page_bytes: f64,
    pattern: AccessPattern,
    requests: f64,
    distinct: f64,
) -> PageReads {
    PageReads {
        object: object.clone(),
        object_pages,
        page_bytes,
        pattern,
        requests,
        distinct: distinct.min(requests),
        span_pages: None,
    }
}

/// Work of reading `runs` index ranges (true rows per range) in one B-tree's leaves.
pub fn index_leaf_reads(
    object: &Name,
    leaf_pages: f64,
    page_bytes: f64,
    entries_per_page: f64,
    runs: &[f64],
) -> PageReads {
    let requests: f64 = runs
        .iter()
        .map(|r| leaf_pages_for_run(*r, entries_per_page, leaf_pages))
        .sum();
    let total: f64 = runs.iter().sum();
    let distinct = leaf_pages_for_run(total, entries_per_page, leaf_pages).min(requests);
    reads(
        object,
        leaf_pages,
        page_bytes,
        AccessPattern::Sequential,
        requests,
        distinct,
    )
}

/// Sum of `n log2 n` over rowid buffer fills: the comparisons of DS-MRR's sorts.
pub fn sort_comparisons(full_steps: f64, cap: f64, last: f64) -> f64 {
    let nlogn = |n: f64| if n > 1.0 { n * n.log2() } else { 0.0 };
    full_steps * nlogn(cap) + nlogn(last)
}

/// An empty work record with the row counts filled in.
pub fn rows_work(
    rows_examined: f64,
    index_entries: f64,
    operator_evals: f64,
    rows_out: f64,
) -> Work {
    Work {
        rows_examined,
        index_entries,
        operator_evals,
        rows_out,
        ..Work::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cardenas_matches_small_cases() {
        assert_eq!(cardenas(100.0, 0.0), 0.0);
        assert!((cardenas(100.0, 1.0) - 1.0).abs() < 1e-9);
        // 2 requests over 2 pages: 2 * (1 - 1/4) = 1.5
        assert!((cardenas(2.0, 2.0) - 1.5).abs() < 1e-12);
        assert!(cardenas(177_002.0, 1e9) <= 177_002.0);
    }

    #[test]
    fn short_circuit_counts_only_survivors() {
        assert_eq!(where_evals(100.0, &[0.5, 0.1]), 150.0);
        assert_eq!(where_evals(100.0, &[]), 0.0);
    }
}
