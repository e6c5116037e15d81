//! Disk-Sweep Multi-Range Read (`DsMrr_impl`, spec §4.4): collect rowids from the index
//! into `read_rnd_buffer_size`, sort them, read the table in rowid order.

use super::cost_model::{Handler, IO_SIZE};

/// `get_sweep_read_cost`: reading `n` rows in rowid order. The table is measured in 4 KiB
/// `IO_SIZE` blocks, not InnoDB pages (spec §4.4, §8 flaw 3).
pub fn get_sweep_read_cost(h: &Handler, n: f64) -> f64 {
    let nb = (h.data_file_length() / IO_SIZE).ceil().max(1.0);
    // Expected distinct blocks touched by n uniformly spread rows.
    let busy = (nb * (1.0 - (1.0 - 1.0 / nb).powf(n))).max(1.0);
    let random = h.page_read_cost(busy);
    let mem = busy * h.f_tab;
    let disk = busy - mem;
    let distance = if disk > 1.0 { nb / disk } else { nb };
    let sequential = h.c.buffer_block_read_cost(mem) + disk * h.c.disk_seek_cost(distance);
    random.min(sequential)
}

/// `get_sort_and_sweep_cost`: sweep plus a qsort of the rowids at `kc/10` per comparison
/// (the source calls that factor a stop-gap).
pub fn get_sort_and_sweep_cost(h: &Handler, n: f64) -> f64 {
    if n <= 0.0 {
        return 0.0;
    }
    get_sweep_read_cost(h, n) + h.c.key_compare_cost(n * n.log2()) / 10.0
}

/// Rowids per buffer fill: `read_rnd_buffer_size / elem`, with `elem = ref_length` (the
/// range optimizer asks for no range association, so no +8).
pub fn rowids_per_buffer(h: &Handler, read_rnd_buffer_size: f64) -> f64 {
    (read_rnd_buffer_size / h.stats.ref_length).floor().max(1.0)
}

/// `get_disk_sweep_mrr_cost` plus the CPU `dsmrr_info_const` adds: full buffer steps,
/// the last partial step, the index entries, and `rec` per row.
pub fn dsmrr_cost(
    h: &Handler,
    rows: f64,
    key_length: f64,
    f_idx: f64,
    read_rnd_buffer_size: f64,
) -> f64 {
    let cap = rowids_per_buffer(h, read_rnd_buffer_size);
    let full_steps = (rows / cap).floor();
    let last = rows - full_steps * cap;
    let mut cost = 0.0;
    if full_steps > 0.0 {
        cost += full_steps * get_sort_and_sweep_cost(h, cap);
    }
    cost += get_sort_and_sweep_cost(h, last);
    cost += h.index_scan_cost(key_length, f_idx, rows);
    cost + h.c.row_evaluate_cost(rows)
}

/// Buffer fills for `rows` rowids: sizes of each step (for the work counts).
pub fn buffer_fills(rows: f64, cap: f64) -> (f64, f64) {
    let full = (rows / cap).floor();
    (full, rows - full * cap)
}
