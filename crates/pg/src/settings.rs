//! The planner's settings that are not cost constants: the enable_* switches and the
//! parallel-query GUCs, with PostgreSQL's defaults.

use costlab_model::error::{Error, Result};

/// Planner settings that are not cost constants (PostgreSQL GUCs).
#[derive(Clone, Debug, PartialEq)]
pub struct PgOptions {
    pub enable_seqscan: bool,
    pub enable_indexscan: bool,
    pub enable_indexonlyscan: bool,
    pub enable_bitmapscan: bool,
    pub enable_sort: bool,
    pub enable_gathermerge: bool,
    /// Join methods and the join planner's helpers (the DBT3 join planner reads them;
    /// the single-table planner has no joins).
    pub enable_hashjoin: bool,
    pub enable_mergejoin: bool,
    pub enable_nestloop: bool,
    pub enable_material: bool,
    pub enable_memoize: bool,
    pub enable_hashagg: bool,
    /// enable_parallel_hash: a partial hash join may build one shared table (Parallel Hash).
    pub enable_parallel_hash: bool,
    pub parallel_leader_participation: bool,
    /// min_parallel_table_scan_size in 8 kB pages.
    pub min_parallel_table_scan_size: f64,
    /// min_parallel_index_scan_size in 8 kB pages.
    pub min_parallel_index_scan_size: f64,
}

impl Default for PgOptions {
    fn default() -> Self {
        PgOptions {
            enable_seqscan: true,
            enable_indexscan: true,
            enable_indexonlyscan: true,
            enable_bitmapscan: true,
            enable_sort: true,
            enable_gathermerge: true,
            enable_hashjoin: true,
            enable_mergejoin: true,
            enable_nestloop: true,
            enable_material: true,
            enable_memoize: true,
            enable_hashagg: true,
            enable_parallel_hash: true,
            parallel_leader_participation: true,
            min_parallel_table_scan_size: 1024.0,
            min_parallel_index_scan_size: 64.0,
        }
    }
}

impl PgOptions {
    /// The enable_* switches a user turns off (names without `enable_`): the scans and
    /// sorts, then the join methods and the join planner's helpers.
    pub const SWITCHES: [&'static str; 11] = [
        "seqscan",
        "indexscan",
        "indexonlyscan",
        "bitmapscan",
        "sort",
        "hashjoin",
        "mergejoin",
        "nestloop",
        "material",
        "memoize",
        "hashagg",
    ];

    /// The switch `name` (one of [`Self::SWITCHES`], without `enable_`).
    pub fn switch_mut(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "seqscan" => &mut self.enable_seqscan,
            "indexscan" => &mut self.enable_indexscan,
            "indexonlyscan" => &mut self.enable_indexonlyscan,
            "bitmapscan" => &mut self.enable_bitmapscan,
            "sort" => &mut self.enable_sort,
            "hashjoin" => &mut self.enable_hashjoin,
            "mergejoin" => &mut self.enable_mergejoin,
            "nestloop" => &mut self.enable_nestloop,
            "material" => &mut self.enable_material,
            "memoize" => &mut self.enable_memoize,
            "hashagg" => &mut self.enable_hashagg,
            "parallel_hash" => &mut self.enable_parallel_hash,
            _ => return None,
        })
    }

    /// The switches turned off, as `enable_nestloop`.
    pub fn switches_off(&self) -> Vec<String> {
        let mut o = self.clone();
        Self::SWITCHES
            .iter()
            .filter(|n| o.switch_mut(n).is_some_and(|on| !*on))
            .map(|n| format!("enable_{n}"))
            .collect()
    }

    /// The model's options with the switches `forced_with` names (`enable_hashjoin=off`, as
    /// a validation report's `forced_with` holds them) turned off, every other as PostgreSQL's default.
    pub fn with_switches_off(forced_with: &[String]) -> Result<PgOptions> {
        let mut o = PgOptions::default();
        for f in forced_with {
            let name = f.strip_suffix("=off").ok_or_else(|| {
                Error::invalid("forced_with", format!("{f}: not `enable_...=off`"))
            })?;
            let flag = name
                .strip_prefix("enable_")
                .and_then(|n| o.switch_mut(n))
                .ok_or_else(|| {
                    Error::invalid("forced_with", format!("{f}: not a switch the model knows"))
                })?;
            *flag = false;
        }
        Ok(o)
    }
}
