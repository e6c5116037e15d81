//! The SQL text analysis of the join planner, computed once per text. Every plan of a
//! query reads the same texts (the query, its filters, its sub-selects), and parsing
//! them again for each plan cost a quarter of the planning time. The results are pure
//! functions of the text, so caching them changes no plan.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Arc, Mutex};

use super::sqlexpr::{self, Expr};

/// FNV-1a over 8-byte words: the keys are SQL texts, hashed on every lookup.
#[derive(Default)]
pub(crate) struct TextHasher(u64);

impl std::hash::Hasher for TextHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0 ^ 0xcbf2_9ce4_8422_2325;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
            h = (h ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29);
        }
        for &b in chunks.remainder() {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// A condition parsed: whether it is an OR, and its conjuncts after OR factoring.
pub(crate) type Factored = (bool, Vec<Expr>);

/// One function's results by input text.
pub(crate) struct Cache<T>(Mutex<HashMap<Box<str>, Arc<T>, BuildHasherDefault<TextHasher>>>);

impl<T> Default for Cache<T> {
    fn default() -> Self {
        Cache(Mutex::new(HashMap::default()))
    }
}

impl<T> Cache<T> {
    /// `f(key)`, computed on the first call with this key.
    pub fn get(&self, key: &str, f: impl FnOnce(&str) -> T) -> Arc<T> {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = m.get(key) {
            return v.clone();
        }
        let v = Arc::new(f(key));
        m.insert(key.into(), v.clone());
        v
    }
}

/// The cached analyses (see the sqlexpr functions of the same names).
#[derive(Default)]
pub(crate) struct SqlMemo {
    /// outer_list(sql, "ORDER BY").
    pub order_items: Cache<Vec<String>>,
    pub order_within_group: Cache<bool>,
    pub derived_grouped: Cache<bool>,
    pub subselect: Cache<String>,
}

impl SqlMemo {
    pub fn order_items(&self, sql: &str) -> Arc<Vec<String>> {
        self.order_items.get(sql, |s| {
            sqlexpr::outer_list(s, "ORDER BY").unwrap_or_default()
        })
    }

    pub fn order_within_group(&self, sql: &str) -> bool {
        *self
            .order_within_group
            .get(sql, sqlexpr::order_within_group)
    }

    pub fn derived_grouped(&self, sql: &str) -> bool {
        *self.derived_grouped.get(sql, sqlexpr::derived_grouped)
    }
}

/// `tlist::target_ops`' figures: operator calls (cost) and calls of the schema's functions
/// (work) per scan/join row and per group.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TargetOps {
    pub(super) scanjoin_ops: f64,
    pub(super) scanjoin_calls: f64,
    pub(super) agg_out_ops: f64,
    pub(super) agg_out_calls: f64,
}
