//! What the commands share: the Ctrl-C flag and its handler, progress bars, the output
//! file, the command line a report records, the default seed, calibration files read.

use crate::{pg, testfile};
use costlab_core::calibration::Calibration;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub(crate) static CANCEL: AtomicBool = AtomicBool::new(false);

pub(crate) fn default_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    t ^ (u64::from(std::process::id()) << 32)
}

pub(crate) fn install_ctrlc() {
    let _ = ctrlc::set_handler(|| {
        if CANCEL.swap(true, Ordering::SeqCst) {
            // A second Ctrl-C: leave now, still without leaving the test file behind.
            testfile::remove_registered();
            std::process::exit(130);
        }
        let token = pg::CANCEL_TOKEN.lock().ok().and_then(|mut t| t.take());
        if let Some(t) = token {
            eprintln!("\ncostlab-probe: interrupted; cancelling the query and dropping the schema");
            let _ = t.cancel_query(postgres::NoTls);
            return;
        }
        testfile::remove_registered();
        eprintln!("\ncostlab-probe: interrupted; the test file was removed");
        std::process::exit(130);
    });
}

pub(crate) fn bar(len: u64) -> ProgressBar {
    let b = ProgressBar::new(len);
    b.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    b.enable_steady_tick(Duration::from_millis(200));
    b
}

pub(crate) fn write_out(out: Option<&Path>, text: &str) -> Result<(), String> {
    match out {
        Some(p) => std::fs::write(p, format!("{text}\n"))
            .map_err(|e| format!("write {}: {e}", p.display())),
        None => {
            println!("{text}");
            Ok(())
        }
    }
}

pub(crate) fn command_line() -> String {
    std::env::args()
        .map(|a| {
            if a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn read_calibration(p: &Path) -> Result<Calibration, String> {
    let t = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
    Calibration::from_json(&t).map_err(|e| format!("{}: {e}", p.display()))
}

/// A calibration file's profile, with the server-independent settings of a validation.
pub(crate) fn profile_from_calibration(
    path: &Path,
) -> Result<costlab_core::sim::MachineProfile, String> {
    let cal = read_calibration(path)?;
    cal.to_profile()
        .map_err(|e| format!("{}: {e}", path.display()))
}
