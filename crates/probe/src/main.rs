//! costlab-probe: measures this machine's storage, buffer-hit and CPU costs and writes a
//! calibration file (`costlab_core::calibration`) the playground loads as a machine profile.
//!
//! ```text
//! costlab-probe [--dir DIR | --file FILE] [--size 4G] [--quick] [--max-seconds N]
//!               [--out FILE] [--reuse] [--seed N]
//! costlab-probe postgres --dsn DSN [--rows N] [--repetitions N] [--out FILE | --into CAL]
//! costlab-probe compare A.json B.json [--all] [--criterion overlap|difference|contains]
//! costlab-probe io --file FILE --rw read|randread --bs 8k --qd N --seconds S [--ramp S]
//! ```
//!
//! It writes one test file it owns (see `testfile`) and the output file, nothing else, and
//! removes the test file when done or interrupted.
//!
//! `cli.rs` holds the commands' arguments, `session.rs` what the commands share (Ctrl-C,
//! progress, output files) and `validate_commands.rs` the validation commands.

mod cli;
mod compare;
mod innodb;
mod io;
mod machine;
mod measure;
mod pg;
mod scatter;
mod session;
mod stats;
mod testfile;
mod validate;
mod validate_commands;

use clap::Parser;
use cli::*;
use costlab_core::calibration::{
    Calibration, Estimate, Method, Ratios, SeqPoint, SeqRead, VERSION,
};
use indicatif::ProgressBar;
use session::*;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use validate_commands::*;

fn main() {
    let cli = Cli::parse();
    install_ctrlc();
    let r = match cli.cmd {
        Some(Cmd::Postgres(a)) => run_postgres(a),
        Some(Cmd::Compare(a)) => run_compare(a),
        Some(Cmd::Io(a)) => run_io(a),
        Some(Cmd::Validate(ValidateCmd::Postgres(a))) => run_validate_pg(a),
        Some(Cmd::Validate(ValidateCmd::Rescore(a))) => run_rescore(a),
        Some(Cmd::Validate(ValidateCmd::Repeat(a))) => run_repeat(a),
        Some(Cmd::Validate(ValidateCmd::Innodb(a))) => run_validate_innodb(a),
        None => run_probe(cli.run),
    };
    if let Err(e) = r {
        eprintln!("costlab-probe: {e}");
        std::process::exit(if CANCEL.load(Ordering::SeqCst) {
            130
        } else {
            1
        });
    }
}

fn run_probe(a: RunArgs) -> Result<(), String> {
    let started = Instant::now();
    let max_seconds = a.max_seconds.unwrap_or(if a.quick { 10.0 } else { 60.0 });
    if !(max_seconds.is_finite() && (2.0..=86_400.0).contains(&max_seconds)) {
        return Err(format!("--max-seconds {max_seconds}: use 2 to 86400"));
    }
    let deadline = started + Duration::from_secs_f64(max_seconds - 0.4);
    let size = a.size.unwrap_or(if a.quick { 1 << 30 } else { 4 << 30 });
    let seed = a.seed.unwrap_or_else(default_seed);
    let target = match (&a.dir, &a.file) {
        (_, Some(f)) => testfile::Target::File(f.clone()),
        (Some(d), None) => testfile::Target::Dir(d.clone()),
        (None, None) => testfile::Target::Dir(PathBuf::from(".")),
    };
    if let Some(out) = &a.out {
        if out.exists()
            && std::fs::canonicalize(out).ok() == std::fs::canonicalize(target.path()).ok()
        {
            return Err("--out must not be the test file".into());
        }
    }

    let wbar = bar(size);
    wbar.set_message("writing the test file (random data)");
    let tf = testfile::prepare(&target, size, a.reuse, seed, &CANCEL, &|n| {
        wbar.set_position(n)
    })?;
    wbar.finish_and_clear();
    let written_s = started.elapsed().as_secs_f64();
    let mut warnings = tf.warnings.clone();

    let (file, mode, refused) =
        io::open_read_uncached(&tf.path).map_err(|e| format!("open {}: {e}", tf.path.display()))?;
    let machine = machine::details(&tf.path);
    if let Some(why) = refused {
        warnings.push(format!(
            "direct I/O not available on {} ({why}): reads went through the page cache, \
             emptied before each run with fdatasync + POSIX_FADV_DONTNEED",
            machine.filesystem
        ));
    }
    if machine.filesystem == "tmpfs" || machine.filesystem == "ramfs" {
        warnings.push(format!(
            "the test file is on {}: every figure measures memory, not a storage device",
            machine.filesystem
        ));
    }
    if mode == io::IoMode::BufferedDontNeed && (tf.bytes as f64) < machine.ram_bytes {
        warnings.push(format!(
            "the test file ({} MiB) is smaller than RAM ({} MiB) and is read without direct \
             I/O: the page cache can hold all of it",
            tf.bytes >> 20,
            (machine.ram_bytes as u64) >> 20
        ));
    }
    if let Some(v) = &machine.virtualization {
        warnings.push(format!(
            "virtual machine or disk ({v}): the host may cache, share or throttle the disk, \
             so its rates can change between runs by more than one run's interval shows \
             (compare two runs with `costlab-probe compare A.json B.json`); the figures \
             describe this guest, not the hardware"
        ));
    }
    if written_s > 0.4 * max_seconds {
        warnings.push(format!(
            "writing the test file took {written_s:.1} s of the {max_seconds} s budget; \
             measure with --reuse or a smaller --size to leave more for the measurements"
        ));
    }

    let plan = measure::Plan::new(a.quick, seed);
    let mbar = bar(plan.total_runs());
    let m = measure::measure(
        &tf.path, tf.bytes, &file, mode, &plan, deadline, &CANCEL, &mbar,
    )?;
    mbar.finish_and_clear();
    drop(file);
    drop(tf); // removes the test file

    let random8 = m.random.iter().find(|s| s.page_bytes == 8192);
    let random16 = m.random.iter().find(|s| s.page_bytes == 16384);
    let qd1 = |s: Option<&costlab_core::calibration::RandomSeries>| -> Result<Estimate, String> {
        s.and_then(|s| s.points.iter().find(|p| p.queue_depth == 1))
            .map(|p| stats::reciprocal(1e9, &p.iops))
            .ok_or_else(|| "no QD1 random reads measured".to_string())
    };
    // Nanoseconds per random read at QD1 (wall time per read).
    let r8 = qd1(random8)?;
    let r16 = qd1(random16)?;
    let seq8_ns = stats::reciprocal(8192.0 * 1e3, &m.seq_large_mbps);
    let seq_page8_ns = stats::reciprocal(8192.0 * 1e3, &m.seq_page_mbps);
    let ratios = Ratios {
        random_over_seq_8k: r8.ratio(&seq8_ns),
        random_over_seq_page_8k: r8.ratio(&seq_page8_ns),
        disk_over_memory_16k: r16.ratio(&m.buffer_hit_16k_ns),
        disk_over_os_cache_8k: r8.ratio(&m.os_cache_hit_ns),
    };

    // Figures whose interval is too wide for a stable value.
    let mut wide = Vec::new();
    let mut note = |name: String, e: &Estimate| {
        let w = e.relative_width();
        if w > 0.10 {
            wide.push(format!("{name} ±{:.0} %", 100.0 * w));
        }
    };
    note("seq_read.large".into(), &m.seq_large_mbps);
    note("seq_read.page".into(), &m.seq_page_mbps);
    for s in &m.random {
        for p in &s.points {
            note(
                format!("random {} kB QD{} IOPS", s.page_bytes / 1024, p.queue_depth),
                &p.iops,
            );
        }
    }
    note("buffer_hit_ns".into(), &m.buffer_hit_ns);
    note("os_cache_hit_ns".into(), &m.os_cache_hit_ns);
    note("cpu_ns_per_row".into(), &m.cpu_ns_per_row);
    if !wide.is_empty() {
        warnings.push(format!(
            "no stable figure (95 % interval wider than ±10 %): {}; the run was short or \
             the machine noisy (see the other warnings): run longer (--max-seconds), \
             without --quick, or on a quieter machine",
            wide.join(", ")
        ));
    }
    if !m.drift.is_empty() {
        warnings.push(format!(
            "unstable during the run (the medians of its {} consecutive segments differ by \
             more than {:.0} %): {}; the intervals are widened by as much, but another run \
             may find another level",
            stats::segments(m.blocks).unwrap_or(0),
            100.0 * measure::DRIFT_WARN,
            m.drift
                .iter()
                .map(|(n, lo, hi, rel)| format!(
                    "{n} changed {:.0} % ({} to {})",
                    100.0 * rel,
                    sig(*lo),
                    sig(*hi)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(o) = m.others_cpu {
        if o.others > 0.10 || o.steal > 0.05 {
            warnings.push(format!(
                "other processes kept {:.0} % of the {} CPUs busy while measuring (steal {:.0} %, \
                 load average {:.1} at the end): they share the disk, memory bandwidth and \
                 CPUs, so every figure is lower than on a quiet machine and moves with \
                 their load",
                100.0 * o.others,
                machine.cpus,
                100.0 * o.steal,
                o.load_avg
            ));
        }
    }
    if mode == io::IoMode::ODirect && r8.median < 5_000.0 {
        warnings.push(format!(
            "random 8 kB reads at QD1 take {:.1} µs: faster than any flash device; a cache \
             (the host's, on a virtual disk) is suspected",
            r8.median / 1e3
        ));
    }

    let cal = Calibration {
        costlab_calibration: VERSION,
        created: machine::utc_now(),
        tool: format!("costlab-probe {}", env!("CARGO_PKG_VERSION")),
        command: command_line(),
        machine,
        method: Method {
            test_file_bytes: size_of_file(&a, size),
            io_mode: mode.name().into(),
            seconds: (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
            quick: a.quick,
            seed,
            warmup_discarded: true,
            blocks: m.blocks as u32,
            bootstrap_resamples: stats::RESAMPLES,
        },
        seq_read: SeqRead {
            large: SeqPoint {
                request_bytes: measure::LARGE_REQUEST as u32,
                mbps: m.seq_large_mbps,
            },
            page: SeqPoint {
                request_bytes: measure::PAGE_REQUEST as u32,
                mbps: m.seq_page_mbps,
            },
        },
        random_reads: m.random,
        buffer_hit_ns: m.buffer_hit_ns,
        buffer_hit_16k_ns: Some(m.buffer_hit_16k_ns),
        os_cache_hit_ns: m.os_cache_hit_ns,
        cpu_ns_per_row: m.cpu_ns_per_row,
        ratios,
        warnings,
        postgres: None,
    };
    // What we write must load.
    cal.validate()
        .map_err(|e| format!("the measurement is not usable: {e}"))?;
    summary(&cal);
    write_out(a.out.as_deref(), &cal.to_json())
}

fn size_of_file(a: &RunArgs, size: u64) -> f64 {
    if a.reuse {
        if let Some(f) = &a.file {
            if let Ok(m) = std::fs::metadata(f) {
                return m.len() as f64;
            }
        }
    }
    (size.div_ceil(4 << 20) * (4 << 20)) as f64
}

/// A figure with three significant digits or none after the point.
fn sig(v: f64) -> String {
    let a = v.abs();
    let d = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.d$}")
}

fn run_compare(a: CompareArgs) -> Result<(), String> {
    let ca = read_calibration(&a.a)?;
    let cb = read_calibration(&a.b)?;
    for (tag, p, c) in [("A", &a.a, &ca), ("B", &a.b, &cb)] {
        println!(
            "{tag}: {} ({}, {} blocks, {:.1} s, {})",
            p.display(),
            c.created,
            c.method.blocks,
            c.method.seconds,
            c.command
        );
    }
    let rows = compare::compare(&ca, &cb, a.all);
    if rows.is_empty() {
        return Err("the two files have no figure in common".into());
    }
    let (text, agree) = compare::report(&rows, a.criterion);
    print!("{text}");
    if agree < rows.len() {
        std::process::exit(3);
    }
    Ok(())
}

fn run_io(a: IoArgs) -> Result<(), String> {
    let meta = std::fs::metadata(&a.file).map_err(|e| format!("{}: {e}", a.file.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", a.file.display()));
    }
    let bytes = meta.len();
    let bs = usize::try_from(a.bs).map_err(|_| "--bs too large".to_string())?;
    if bs % io::ALIGN != 0 || bs as u64 > bytes {
        return Err(format!(
            "--bs {bs}: use a multiple of {} no larger than the file",
            io::ALIGN
        ));
    }
    if !(1..=1024).contains(&a.qd) {
        return Err(format!("--qd {}: use 1 to 1024", a.qd));
    }
    if !(a.seconds > 0.0 && a.seconds <= 3600.0 && (0.0..=600.0).contains(&a.ramp)) {
        return Err("--seconds must be in (0, 3600] and --ramp in [0, 600]".into());
    }
    let (file, mode, _) =
        io::open_read_uncached(&a.file).map_err(|e| format!("{}: {e}", a.file.display()))?;
    let seed = a.seed.unwrap_or_else(default_seed);
    let run = |secs: f64, seed: u64| -> Result<serde_json::Value, String> {
        let len = Duration::from_secs_f64(secs);
        if mode == io::IoMode::BufferedDontNeed {
            io::drop_cache(&file, 0, 0);
        }
        let ctx = |e: std::io::Error| format!("{}: {e}", a.file.display());
        Ok(match a.rw.as_str() {
            "read" => {
                if a.qd != 1 {
                    return Err("--rw read runs at --qd 1 (one thread)".into());
                }
                let mbps = measure::seq_run(&file, bytes, bs, len, seed).map_err(ctx)?;
                serde_json::json!({ "mbps": mbps, "iops": mbps * 1e6 / bs as f64 })
            }
            "randread" => {
                let r = measure::random_run(&file, bytes, bs, a.qd, len, seed).map_err(ctx)?;
                serde_json::json!({
                    "mbps": r.iops * bs as f64 / 1e6,
                    "iops": r.iops,
                    "mean_us": r.mean_us,
                    "p50_us": r.p50_us,
                    "p99_us": r.p99_us,
                })
            }
            other => return Err(format!("--rw {other}: use read or randread")),
        })
    };
    if a.ramp > 0.0 {
        run(a.ramp, seed ^ 0x5eed)?;
    }
    let mut v = run(a.seconds, seed)?;
    v["rw"] = a.rw.clone().into();
    v["bs"] = bs.into();
    v["qd"] = a.qd.into();
    v["seconds"] = a.seconds.into();
    v["ramp"] = a.ramp.into();
    v["io_mode"] = mode.name().into();
    println!("{v}");
    Ok(())
}

fn fmt_est(e: &Estimate, digits: usize) -> String {
    format!("{:.d$} [{:.d$}, {:.d$}]", e.median, e.lo, e.hi, d = digits)
}

fn summary(c: &Calibration) {
    let m = &c.machine;
    eprintln!(
        "costlab-probe: {} ({} CPUs), {}, {} on {} {}, {} in {:.1} s",
        m.cpu_model,
        m.cpus,
        m.kernel,
        m.filesystem,
        m.device.as_deref().unwrap_or("?"),
        m.device_model.as_deref().unwrap_or(""),
        c.method.io_mode,
        c.method.seconds
    );
    eprintln!(
        "  seq read MB/s: 1 MiB requests {}, 8 kB requests {}",
        fmt_est(&c.seq_read.large.mbps, 0),
        fmt_est(&c.seq_read.page.mbps, 0)
    );
    for s in &c.random_reads {
        for p in &s.points {
            eprintln!(
                "  random {:>2} kB QD{:<2}  IOPS {:<28} p50 {:>8.1} µs  p99 {:>8.1} µs",
                s.page_bytes / 1024,
                p.queue_depth,
                fmt_est(&p.iops, 0),
                p.p50_us.median,
                p.p99_us.median
            );
        }
    }
    eprintln!(
        "  buffer hit {} ns, page-cache hit {} ns, CPU per row {} ns",
        fmt_est(&c.buffer_hit_ns, 0),
        fmt_est(&c.os_cache_hit_ns, 0),
        fmt_est(&c.cpu_ns_per_row, 2)
    );
    eprintln!(
        "  random/seq 8 kB (PostgreSQL view) {}, disk/memory 16 kB (MySQL view) {}",
        fmt_est(&c.ratios.random_over_seq_8k, 1),
        fmt_est(&c.ratios.disk_over_memory_16k, 0)
    );
    for w in &c.warnings {
        eprintln!("  warning: {w}");
    }
}

fn run_postgres(a: PgArgs) -> Result<(), String> {
    if a.rows < 1000 {
        return Err(format!("--rows {}: use at least 1000", a.rows));
    }
    // Check the target file before spending minutes on the experiment.
    let base = match &a.into {
        Some(p) => Some(
            std::fs::read_to_string(p)
                .map_err(|e| format!("{}: {e}", p.display()))
                .and_then(|t| {
                    Calibration::from_json(&t).map_err(|e| format!("{}: {e}", p.display()))
                })?,
        ),
        None => None,
    };
    let prediction_profile = match &a.calibration {
        Some(p) => Some(profile_from_calibration(p)?),
        None => None,
    };
    // A private server, when asked for: stopped and removed when `server` drops.
    let server = match &a.pg_bin {
        Some(bin) => {
            let dir = match &a.dir {
                Some(d) => d.clone(),
                None => std::env::current_dir().map_err(|e| e.to_string())?,
            };
            let conf = format!(
                "shared_buffers = {}MB\nmax_parallel_workers_per_gather = 0\n{}",
                a.shared_buffers_mb,
                if a.direct_io {
                    "debug_io_direct = data\n"
                } else {
                    ""
                }
            );
            Some(costlab_testpg::PgServer::try_start(bin, Some(&dir), &conf)?)
        }
        None => None,
    };
    let dsn = match (&a.dsn, &server) {
        (Some(d), _) => d.clone(),
        (None, Some(s)) => s.dsn(),
        (None, None) => return Err("--dsn or --pg-bin is required".into()),
    };
    let opts = pg::Options {
        dsn,
        rows: a.rows,
        repetitions: a.repetitions,
        seed: a.seed.unwrap_or_else(default_seed),
    };
    let b = ProgressBar::new_spinner();
    b.enable_steady_tick(Duration::from_millis(200));
    let started = Instant::now();
    let r = pg::run(&opts, &CANCEL, &|msg| b.set_message(msg.to_string()));
    b.finish_and_clear();
    let x = r?;
    eprintln!(
        "costlab-probe postgres: PostgreSQL {}, {} rows, {} pages, {} repetitions in {:.1} s",
        x.server_version,
        x.rows,
        x.pages,
        x.repetitions,
        started.elapsed().as_secs_f64()
    );
    let cached = x.notes.iter().any(|n| n.starts_with("cached reads"));
    eprintln!(
        "  T(seq) {} ms, T(idx) {} ms, random_page_cost = T(idx)×P/(T(seq)×N) = {}{}",
        fmt_est(&x.seq_scan_ms, 1),
        fmt_est(&x.index_scan_ms, 1),
        fmt_est(&x.random_page_cost, 2),
        if cached {
            " (CACHED READS: the table fits in the page cache, see below)"
        } else {
            ""
        }
    );
    eprintln!("  caches: {}", x.cache_eviction);
    for n in &x.notes {
        eprintln!("  {n}");
    }
    if let Some(profile) = prediction_profile {
        print_seed_rpc_prediction(&x, profile, a.direct_io, a.shared_buffers_mb)?;
    }
    drop(server);
    match (base, &a.into) {
        (Some(mut cal), Some(p)) => {
            cal.postgres = Some(x);
            cal.validate()
                .map_err(|e| format!("the result is not usable: {e}"))?;
            write_out(Some(p), &cal.to_json())
        }
        _ => {
            let text = serde_json::to_string_pretty(&x).map_err(|e| e.to_string())?;
            write_out(a.out.as_deref(), &text)
        }
    }
}
