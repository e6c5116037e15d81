//! The join order search of sql/sql_planner.cc (§5.3): `greedy_search`,
//! `best_extension_by_limited_search` with prune level 1, the eq_ref shortcut of
//! `eq_ref_extension_by_limited_search`, and `consider_plan` with the sort cost.

use super::*;

impl<'a, 'b> Planner<'a, 'b> {
    /// `greedy_search` (§5.3): extend the prefix by the first table of the best depth-d
    /// extension until the remaining tables fit the depth.
    pub(super) fn greedy_search(&mut self) -> Result<()> {
        let all: u64 = self.order.iter().fold(0, |m, t| m | bit(*t));
        let depth = self.ctx.db.env.optimizer_search_depth.max(1);
        let mut fixed: Vec<Pos> = Vec::new();
        loop {
            let remaining = all & !Self::mask_of(&fixed);
            if remaining == 0 {
                break;
            }
            self.positions = fixed.clone();
            self.best.clear();
            self.best_read = f64::MAX;
            self.best_extension_by_limited_search(remaining, depth);
            if self.best.is_empty() {
                return Err(Error::invalid("join order", "no valid plan"));
            }
            if (remaining.count_ones() as usize) <= depth {
                return Ok(());
            }
            let next = self.best[fixed.len()].clone();
            fixed.push(next);
            // The complete best plan found so far stays in `self.best` if it ends here.
            if Self::mask_of(&fixed) == all {
                self.best = fixed;
                return Ok(());
            }
        }
        Ok(())
    }

    pub(super) fn push(&mut self, t: usize) -> bool {
        let pos = self.best_access_path(t, &self.positions, true);
        self.positions.push(pos);
        self.advance_sj_state()
    }

    /// `best_extension_by_limited_search` with prune level 1 and the eq_ref shortcut.
    pub(super) fn best_extension_by_limited_search(&mut self, remaining: u64, depth: usize) {
        let mut best_rowcount = f64::MAX;
        let mut best_cost = f64::MAX;
        let mut eq_ref_extended: u64 = 0;
        let prune = self.ctx.db.env.optimizer_prune_level == 1;
        let order = self.order.clone();
        for t in order {
            if remaining & bit(t) == 0 || eq_ref_extended & bit(t) != 0 {
                continue;
            }
            let prefix = Self::mask_of(&self.positions);
            if !self.allowed(t, prefix) {
                continue;
            }
            if !self.push(t) {
                self.positions.pop();
                continue;
            }
            let pos = self.positions.last().expect("pushed").clone();
            // Prune by cost.
            if pos.prefix_cost >= self.best_read {
                self.positions.pop();
                continue;
            }
            if prune {
                let first = self.positions.len() == 1;
                if best_rowcount > pos.rows_before_filter
                    || best_cost > pos.prefix_cost
                    || (first && self.sort_by_table == Some(t))
                {
                    // Only a table without a key dependency on the remaining tables (or
                    // fetching under 2 rows) sets the bar.
                    let key_dependent = self.key_deps[t] & remaining & !bit(t) != 0;
                    if best_rowcount >= pos.rows_before_filter
                        && best_cost >= pos.prefix_cost
                        && (!key_dependent || pos.rows_fetched < 2.0)
                    {
                        best_rowcount = pos.rows_before_filter;
                        best_cost = pos.prefix_cost;
                    }
                } else {
                    self.positions.pop();
                    continue;
                }
            }
            let rest = remaining & !bit(t);
            if prune && matches!(pos.access, Access::EqRef { .. }) && rest != 0 {
                let ext = self.eq_ref_extension_by_limited_search(rest, depth.saturating_sub(1));
                eq_ref_extended = bit(t) | ext;
                self.positions.pop();
                if eq_ref_extended == remaining {
                    break;
                }
                continue;
            }
            if depth > 1 && rest != 0 {
                self.best_extension_by_limited_search(rest, depth - 1);
            } else {
                self.consider_plan();
            }
            self.positions.pop();
        }
    }

    /// `eq_ref_extension_by_limited_search`: append eq_ref-joinable tables in one order
    /// only, then search the rest. Returns the tables it appended.
    pub(super) fn eq_ref_extension_by_limited_search(
        &mut self,
        remaining: u64,
        depth: usize,
    ) -> u64 {
        if remaining == 0 || depth == 0 {
            self.consider_plan_or_search(remaining, depth);
            return 0;
        }
        let order = self.order.clone();
        for t in order {
            if remaining & bit(t) == 0 || !self.allowed(t, Self::mask_of(&self.positions)) {
                continue;
            }
            let pos = self.best_access_path(t, &self.positions, true);
            if !matches!(pos.access, Access::EqRef { .. }) {
                continue;
            }
            if !self.push(t) {
                self.positions.pop();
                continue;
            }
            if self
                .positions
                .last()
                .is_some_and(|p| p.prefix_cost >= self.best_read)
            {
                self.positions.pop();
                return bit(t);
            }
            let ext = self.eq_ref_extension_by_limited_search(remaining & !bit(t), depth - 1);
            self.positions.pop();
            return bit(t) | ext;
        }
        self.consider_plan_or_search(remaining, depth);
        0
    }

    pub(super) fn consider_plan_or_search(&mut self, remaining: u64, depth: usize) {
        if remaining == 0 {
            self.consider_plan();
        } else if depth > 0 {
            self.best_extension_by_limited_search(remaining, depth);
        } else {
            self.consider_plan();
        }
    }

    /// `consider_plan`: the sort cost of §5.3, every flattened nest handled, keep the
    /// cheapest (ties keep the first; best_read = cost - 0.001).
    pub(super) fn consider_plan(&mut self) {
        let Some(last) = self.positions.last() else {
            return;
        };
        let mut cost = last.prefix_cost;
        if self.needs_sort && self.sort_by_table != Some(self.positions[0].t) {
            cost += last.prefix_rows;
        }
        let handled = self.sj_nests.iter().all(|(n, inner, _)| {
            let present = Self::mask_of(&self.positions) & inner == *inner;
            !present
                || self
                    .positions
                    .iter()
                    .any(|p| p.sj.is_some_and(|(x, _)| x == *n))
        });
        if !handled {
            return;
        }
        if cost < self.best_read {
            self.best_read = cost - 0.001;
            self.best = self.positions.clone();
            if let Some(l) = self.best.last_mut() {
                l.prefix_cost = cost;
            }
        }
    }
}
