//! A base table's relation (relnode.c's build_simple_rel); which columns each relation
//! carries up the join tree and their width (initsplan.c's attr_needed, relnode.c's
//! build_joinrel_tlist, costsize.c's set_rel_width).

use crate::pathnodes::QualOps;
use costlab_model::block::TableRef;
use costlab_model::error::Result;
use costlab_model::plan::Name;
use costlab_model::query::Query;

use super::costs::Qual;

use super::pathnodes::*;

impl<'a> Block<'a> {
    /// Columns of table relation `r` its scan must produce: those needed above it and
    /// those its conditions read, leaving out conditions a partial index implies.
    pub fn needed_cols(
        &self,
        r: usize,
        skip_filters: &[usize],
        skip_clauses: &[usize],
    ) -> Vec<Name> {
        let br = &self.rels[r];
        let RelKind::Table { rel, .. } = &br.kind else {
            return Vec::new();
        };
        let mut out: Vec<Name> = Vec::new();
        for u in &br.uses {
            // Each index's paths ask again: the name is shared where it is lower case.
            let col = if u.bytes().any(|c| c.is_ascii_uppercase()) {
                u.to_ascii_lowercase().into()
            } else {
                u.clone()
            };
            let k = ColKey { rel: r, col };
            let by_clause = rel.clauses.iter().enumerate().any(|(i, cl)| {
                let col = &rel.cols[cl.col];
                // An indexed expression reads its heap columns (stock check_index_only).
                let reads = col.expression.as_ref().is_some_and(|e| {
                    e.reads
                        .iter()
                        .any(|&c| rel.cols[c].name.eq_ignore_ascii_case(u))
                });
                !skip_clauses.contains(&i) && (col.name.eq_ignore_ascii_case(u) || reads)
            });
            let by_filter = br.filters.iter().enumerate().any(|(i, f)| {
                !skip_filters.contains(&i) && f.cols.iter().any(|c| c.eq_ignore_ascii_case(u))
            });
            if self.needed_above(&k, bit(r)) || by_clause || by_filter {
                match br.handed_up.iter().find(|(h, _)| h.eq_ignore_ascii_case(u)) {
                    Some((_, expr)) => {
                        let e: Name = expr.to_ascii_lowercase().into();
                        if !out.contains(&e) {
                            out.push(e);
                        }
                    }
                    None => out.push(k.col),
                }
            }
        }
        out
    }

    /// Width of the columns of relations `relids` needed above a join of them (output
    /// lists, join keys or filters with relations outside).
    pub fn width_above(&self, relids: u64, only: usize) -> f64 {
        let mut w = 0.0;
        for (r, br) in self.rels.iter().enumerate() {
            if relids & bit(r) == 0 || (relids.count_ones() == 1 && r != only) {
                continue;
            }
            let needs = &self.col_needs[r];
            match &br.kind {
                RelKind::Table { .. } => {
                    for c in needs.iter().filter(|c| c.above(relids)) {
                        w += c.width;
                    }
                }
                RelKind::Sub { path, .. } => {
                    // Only the referenced output columns leave a Subquery Scan.
                    let n = needs.iter().filter(|c| c.above(relids)).count() as f64;
                    w += (8.0 * n).min(path.width.max(8.0));
                }
            }
        }
        w
    }

    /// `col_needs`' entries, from the final classes, join filters and outputs.
    pub(crate) fn col_needs(&self) -> Vec<Vec<ColNeed>> {
        let need = |k: ColKey, width: f64| ColNeed {
            out: self.out_keys.contains(&k),
            ec_rels: self
                .ec_of
                .get(&k)
                .map_or(0, |&e| self.ecs[e].iter().fold(0, |a, m| a | bit(m.rel))),
            filter_rels: self
                .jfilters
                .iter()
                .filter(|f| f.cols.contains(&k))
                .map(|f| f.rels)
                .collect(),
            width,
        };
        self.rels
            .iter()
            .enumerate()
            .map(|(r, br)| match &br.kind {
                RelKind::Table { rel, .. } => br
                    .uses
                    .iter()
                    .map(|u| {
                        let width = rel
                            .cols
                            .iter()
                            .find(|c| c.name.eq_ignore_ascii_case(u))
                            .map_or(0.0, |c| c.width);
                        need(
                            ColKey {
                                rel: r,
                                col: u.clone(),
                            },
                            width,
                        )
                    })
                    .collect(),
                RelKind::Sub { cols, .. } => cols
                    .iter()
                    .map(|c| {
                        let k = ColKey {
                            rel: r,
                            col: c.to_ascii_lowercase().into(),
                        };
                        need(k, 0.0)
                    })
                    .collect(),
            })
            .collect()
    }

    pub(crate) fn needed_above(&self, k: &ColKey, relids: u64) -> bool {
        if self.out_keys.contains(k) {
            return true;
        }
        if let Some(&e) = self.ec_of.get(k) {
            if self.ecs[e].iter().any(|m| relids & bit(m.rel) == 0) {
                return true;
            }
        }
        self.jfilters
            .iter()
            .any(|f| f.rels & !relids != 0 && f.cols.contains(k))
    }
}

impl Block<'_> {
    /// Width of one column of a relation.
    pub fn width_of(&self, k: &ColKey) -> f64 {
        match &self.rels[k.rel].kind {
            RelKind::Table { rel, .. } => rel
                .cols
                .iter()
                .find(|c| c.name.eq_ignore_ascii_case(&k.col))
                .map_or(8.0, |c| c.width),
            RelKind::Sub { .. } => 8.0,
        }
    }
}

/// A base table's relation before its conditions are known (build_simple_rel): the
/// single-table model's relation without predicates; `set_base_rel_sizes` fills it.
pub(crate) fn build_simple_rel<'a>(
    pl: &Planner<'a>,
    t: &TableRef,
    tidx: usize,
) -> Result<BaseRel<'a>> {
    Ok(BaseRel {
        alias: t.alias.clone(),
        kind: RelKind::Table {
            tidx,
            rel: Box::new(pl.empty_rel(tidx)?),
            query: Query {
                table: t.table.to_string(),
                select: Vec::new(),
                predicates: Vec::new(),
                order_by: Vec::new(),
                limit: None,
            },
        },
        rows: 0.0,
        tuples: pl.db.infos[tidx].tuples,
        width: 0.0,
        filter_ops: QualOps::default(),
        filter_sel: 1.0,
        true_sel: 1.0,
        true_rows: 0.0,
        extra: Qual::default(),
        filter_text: Vec::new(),
        filters: Vec::new(),
        paths: Vec::new(),
        partial: Vec::new(),
        uses: t.uses.clone(),
        handed_up: Vec::new(),
    })
}
