//! MySQL's primitive cost functions (`Cost_model_server` / `Cost_model_table`) and the
//! handler functions built on them (`scan_time`, `read_time`, `index_only_read_time`, ...).
//!
//! Every function here is linear in the cost constants; the only terms that are not are the
//! optimizer's fixed fudge numbers (+1.1, +1, +0.01), which the callers add (spec §8 flaw 2).

use costlab_model::catalog::MysqlTable;
use costlab_model::error::{Error, Result};
use costlab_model::knobs::{Knob, KnobValues};

/// `IO_SIZE` (include/my_io.h): the DS-MRR sweep measures the table in these, not in
/// InnoDB pages (spec §2, §8 flaw 3).
pub const IO_SIZE: f64 = 4096.0;
/// `DISK_SEEK_BASE_COST` and `BLOCKS_IN_AVG_SEEK` of the disk seek model (spec §2).
pub const DISK_SEEK_BASE_COST: f64 = 0.9;
pub const BLOCKS_IN_AVG_SEEK: f64 = 128.0;
/// What `get_memory_buffer_size()` falls back to when the pool size is unknown (spec §3.2).
pub const DEFAULT_BUFFER_BYTES: f64 = 100.0 * 1024.0 * 1024.0;

/// The four constants single-table costing reads (spec §1.1 notation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constants {
    /// row_evaluate_cost
    pub rec: f64,
    /// key_compare_cost
    pub kc: f64,
    /// memory_block_read_cost
    pub mbrc: f64,
    /// io_block_read_cost
    pub io: f64,
}

impl Constants {
    /// Reads the MySQL constants from the knob table. With `from_tables` each value goes
    /// through `f32`, as values loaded from `mysql.server_cost` / `engine_cost` do
    /// (spec §1.3 precision trap); compiled defaults are exact doubles.
    pub fn from_knobs(knobs: &KnobValues, from_tables: bool) -> Result<Constants> {
        let read = |k: Knob| -> Result<f64> {
            let v = knobs.get(k);
            // MySQL ignores values <= 0 with a warning (spec §1.3); here that is a typed
            // error so the page can say why. No upper bound: scaling all constants by a
            // factor (Bug #75695 test) may leave the slider ranges.
            if !v.is_finite() {
                return Err(Error::NotFinite {
                    field: k.def().name.to_string(),
                    value: v,
                });
            }
            if v <= 0.0 {
                return Err(Error::OutOfRange {
                    field: k.def().name.to_string(),
                    value: v,
                    min: f64::MIN_POSITIVE,
                    max: f64::MAX,
                });
            }
            Ok(if from_tables { v as f32 as f64 } else { v })
        };
        Ok(Constants {
            rec: read(Knob::RowEvaluateCost)?,
            kc: read(Knob::KeyCompareCost)?,
            mbrc: read(Knob::MemoryBlockReadCost)?,
            io: read(Knob::IoBlockReadCost)?,
        })
    }

    /// `row_evaluate_cost(rows)`.
    pub fn row_evaluate_cost(&self, rows: f64) -> f64 {
        rows * self.rec
    }

    /// `key_compare_cost(keys)`.
    pub fn key_compare_cost(&self, keys: f64) -> f64 {
        keys * self.kc
    }

    /// `io_block_read_cost(blocks)`.
    pub fn io_block_read_cost(&self, blocks: f64) -> f64 {
        blocks * self.io
    }

    /// `buffer_block_read_cost(blocks)`.
    pub fn buffer_block_read_cost(&self, blocks: f64) -> f64 {
        blocks * self.mbrc
    }

    /// `page_read_cost` / `page_read_cost_index`: pages blended by the in-memory fraction
    /// (spec §2).
    pub fn blended_page_read_cost(&self, pages: f64, in_memory: f64) -> f64 {
        self.buffer_block_read_cost(pages * in_memory)
            + self.io_block_read_cost(pages * (1.0 - in_memory))
    }

    /// `disk_seek_cost(distance)`: a seek over 128 blocks costs exactly one io (spec §2).
    pub fn disk_seek_cost(&self, distance: f64) -> f64 {
        self.io
            * (DISK_SEEK_BASE_COST + (1.0 - DISK_SEEK_BASE_COST) / BLOCKS_IN_AVG_SEEK * distance)
    }
}

/// `handler::estimate_in_memory_buffer` (WL#7168, spec §3.2): the share of an object
/// assumed cached when the engine reports nothing, from its size against the pool.
pub fn estimate_in_memory_buffer(size_bytes: f64, buffer_bytes: f64) -> f64 {
    let buf = if buffer_bytes > 0.0 {
        buffer_bytes
    } else {
        DEFAULT_BUFFER_BYTES
    };
    let ratio = size_bytes / buf;
    if ratio < 0.2 {
        1.0
    } else if ratio > 1.0 {
        0.0
    } else {
        1.0 - (ratio - 0.2) / 0.8
    }
}

/// The handler-level view of one InnoDB table: its statistics plus the constants and the
/// table's in-memory fraction (`f_tab`).
#[derive(Clone, Debug)]
pub struct Handler<'a> {
    pub stats: &'a MysqlTable,
    pub c: Constants,
    /// `handler::table_in_memory_estimate()`.
    pub f_tab: f64,
}

impl Handler<'_> {
    /// `stats.records`.
    pub fn records(&self) -> f64 {
        self.stats.records
    }

    /// `stats.data_file_length` = clustered pages × page size (spec §3.2).
    pub fn data_file_length(&self) -> f64 {
        self.stats.clustered_pages * self.stats.page_bytes
    }

    /// `stats.index_file_length` = all secondary index pages × page size (spec §3.2).
    pub fn index_file_length(&self) -> f64 {
        self.stats.secondary_pages * self.stats.page_bytes
    }

    /// `Cost_model_table::page_read_cost(pages)`, blended with the table estimate.
    pub fn page_read_cost(&self, pages: f64) -> f64 {
        self.c.blended_page_read_cost(pages, self.f_tab)
    }

    /// `page_read_cost_index(idx, pages)` with that index's estimate.
    pub fn page_read_cost_index(&self, f_idx: f64, pages: f64) -> f64 {
        self.c.blended_page_read_cost(pages, f_idx)
    }

    /// `ha_innobase::scan_time()`: clustered-index pages (spec §4.1).
    pub fn scan_time(&self) -> f64 {
        self.stats.clustered_pages
    }

    /// `handler::table_scan_cost()`: IO only; the caller adds CPU (spec §4.1).
    pub fn table_scan_cost(&self) -> f64 {
        self.scan_time() * self.page_read_cost(1.0)
    }

    /// `ha_innobase::read_time(index, ranges, rows)` (spec §4.2): one page per range plus
    /// one per row for a secondary index; a share of the scan for the clustered index.
    pub fn read_time(&self, clustered: bool, ranges: f64, rows: f64) -> f64 {
        if !clustered {
            return ranges + rows;
        }
        if rows <= 2.0 {
            return rows;
        }
        let total = self.records();
        // estimate_rows_upper_bound() is above stats.records; past it the scan is the cap.
        if total <= 0.0 || rows > total {
            return self.scan_time();
        }
        ranges + rows / total * self.scan_time()
    }

    /// `handler::read_cost(idx, ranges, rows)`: read_time pages at the **table** blend,
    /// since every row costs a clustered page (spec §4.2).
    pub fn read_cost(&self, clustered: bool, ranges: f64, rows: f64) -> f64 {
        self.read_time(clustered, ranges, rows) * self.page_read_cost(1.0)
    }

    /// `handler::index_only_read_time(k, rows)`: entries on half-full pages (spec §4.2).
    pub fn index_only_read_time(&self, key_length: f64, rows: f64) -> f64 {
        let kpb = self.keys_per_block(key_length);
        (rows + kpb - 1.0) / kpb
    }

    /// `keys_per_block = block_size/2 / (key_length + ref_length) + 1`, integer division.
    pub fn keys_per_block(&self, key_length: f64) -> f64 {
        (self.stats.page_bytes / 2.0 / (key_length + self.stats.ref_length)).floor() + 1.0
    }

    /// `handler::index_scan_cost(k, ranges, rows)`: `ranges` is ignored (spec §4.2, §8 flaw 1).
    pub fn index_scan_cost(&self, key_length: f64, f_idx: f64, rows: f64) -> f64 {
        self.index_only_read_time(key_length, rows) * self.page_read_cost_index(f_idx, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_memory_heuristic_is_linear_between_twenty_and_hundred_percent() {
        // spec §3.2: 1 below 0.2, 0 above 1.0, linear between.
        let gib = 1024.0 * 1024.0 * 1024.0;
        for (size, pool, want) in [
            (0.1 * gib, gib, 1.0),
            (0.2 * gib, gib, 1.0),
            (0.6 * gib, gib, 0.5),
            (gib, gib, 0.0),
            (2.9e9, gib, 0.0),
            (1.6e9, gib, 0.0),
            (2.9e9, 36.0 * gib, 1.0),
            // unknown pool: 100 MiB
            (60.0 * 1024.0 * 1024.0, 0.0, 0.5),
        ] {
            let got = estimate_in_memory_buffer(size, pool);
            assert!((got - want).abs() < 1e-12, "{size} / {pool}: {got}");
        }
    }

    #[test]
    fn seek_of_128_blocks_costs_one_io() {
        // spec §2: disk_seek_cost(128) = io.
        let c = Constants {
            rec: 0.1,
            kc: 0.05,
            mbrc: 0.25,
            io: 2.0,
        };
        assert!((c.disk_seek_cost(128.0) - 2.0).abs() < 1e-12);
        assert!((c.disk_seek_cost(0.0) - 1.8).abs() < 1e-12);
    }
}
