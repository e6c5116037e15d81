//! What machine the figures come from: CPU, kernel, OS, memory, the filesystem and block
//! device under the test file, and whether any of it is virtual.

use costlab_core::calibration::Machine;
use std::path::Path;

fn read_trim(p: impl AsRef<Path>) -> Option<String> {
    let s = std::fs::read_to_string(p).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

fn cpu_model() -> String {
    if let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") {
        for key in ["model name", "Hardware", "cpu model", "Processor"] {
            if let Some(v) = text
                .lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_once(':'))
            {
                return v.1.trim().to_string();
            }
        }
    }
    #[cfg(target_os = "macos")]
    if let Ok(o) = std::process::Command::new("sysctl")
        .args(["-n", "machdep.cpu.brand_string"])
        .output()
    {
        let s = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if !s.is_empty() {
            return s;
        }
    }
    std::env::consts::ARCH.to_string()
}

fn kernel() -> String {
    let u = rustix::system::uname();
    format!(
        "{} {}",
        u.sysname().to_string_lossy(),
        u.release().to_string_lossy()
    )
}

fn os_name() -> String {
    std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string())
}

/// Physical memory in bytes.
pub fn ram_bytes() -> f64 {
    // SAFETY: sysconf takes no pointers.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages > 0 && size > 0 {
        pages as f64 * size as f64
    } else {
        0.0
    }
}

/// CPU time counters (Linux /proc, clock ticks): the whole machine's busy and steal time,
/// every tick, and this process's (all threads).
#[derive(Clone, Copy, Debug)]
pub struct CpuTimes {
    busy: u64,
    steal: u64,
    total: u64,
    own: u64,
}

/// The rest of the machine's CPU use over an interval, as shares of all CPUs' time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuShare {
    /// Busy time of other processes (and the kernel on their behalf).
    pub others: f64,
    /// Time the hypervisor ran something else while this guest wanted to run.
    pub steal: f64,
    /// One-minute load average at the end.
    pub load_avg: f64,
}

impl CpuTimes {
    /// Parses the aggregate `cpu` line of /proc/stat and the utime + stime of
    /// /proc/self/stat; None where they cannot be read.
    pub fn parse(proc_stat: &str, self_stat: &str) -> Option<CpuTimes> {
        let f: Vec<u64> = proc_stat
            .lines()
            .find(|l| l.starts_with("cpu "))?
            .split_whitespace()
            .skip(1)
            .take(8)
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        if f.len() < 8 {
            return None;
        }
        // user nice system idle iowait irq softirq steal
        let busy = f[0] + f[1] + f[2] + f[5] + f[6];
        let total = f.iter().sum();
        // The command may contain spaces and parentheses: fields after the last ')'.
        let rest: Vec<&str> = self_stat
            .get(self_stat.rfind(')')? + 1..)?
            .split_whitespace()
            .collect();
        let own = rest.get(11)?.parse::<u64>().ok()? + rest.get(12)?.parse::<u64>().ok()?;
        Some(CpuTimes {
            busy,
            steal: f[7],
            total,
            own,
        })
    }

    pub fn now() -> Option<CpuTimes> {
        CpuTimes::parse(
            &std::fs::read_to_string("/proc/stat").ok()?,
            &std::fs::read_to_string("/proc/self/stat").ok()?,
        )
    }

    /// What the rest of the machine used since `before`.
    pub fn share_since(&self, before: &CpuTimes) -> Option<CpuShare> {
        let total = self.total.checked_sub(before.total)?;
        if total == 0 {
            return None;
        }
        let busy = self.busy.saturating_sub(before.busy);
        let own = self.own.saturating_sub(before.own);
        let load_avg = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|t| t.split_whitespace().next()?.parse().ok())
            .unwrap_or(f64::NAN);
        Some(CpuShare {
            others: busy.saturating_sub(own) as f64 / total as f64,
            steal: self.steal.saturating_sub(before.steal) as f64 / total as f64,
            load_avg,
        })
    }
}

/// The filesystem type of the path, by its statfs magic number (Linux) or name (macOS).
pub fn filesystem(path: &Path) -> String {
    #[cfg(target_os = "linux")]
    {
        let Ok(st) = rustix::fs::statfs(path) else {
            return "unknown".into();
        };
        #[allow(clippy::unnecessary_cast)]
        let magic = st.f_type as i64 as u64 & 0xffff_ffff;
        let name = match magic {
            0xEF53 => "ext4",
            0x5846_5342 => "xfs",
            0x0102_1994 => "tmpfs",
            0x8584_58f6 => "ramfs",
            0x9123_683E => "btrfs",
            0x794c_7630 => "overlayfs",
            0x2fc1_2fc1 => "zfs",
            0x6969 => "nfs",
            0xF2F5_2010 => "f2fs",
            0x6573_5546 => "fuse",
            0x6a65_6a62 => "9p",
            0x0102_1997 => "9p",
            0x5346_544e => "ntfs",
            0x4d44 => "vfat",
            _ => return format!("unknown (statfs magic {magic:#x})"),
        };
        name.into()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = path;
        "unknown".into()
    }
}

/// The whole-disk block device under a path, from the file's st_dev through
/// /sys/dev/block (Linux): its name and the sysfs directory of the disk.
fn block_device(path: &Path) -> Option<(String, std::path::PathBuf)> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let link = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    let disk = if link.join("partition").exists() {
        link.parent()?.to_path_buf()
    } else {
        link
    };
    let name = disk.file_name()?.to_string_lossy().into_owned();
    Some((name, disk))
}

/// Reasons to believe the machine or its disk is virtual.
fn virtualization(device: Option<&str>, vendor_model: Option<&str>) -> Option<String> {
    let mut why = Vec::new();
    if let Ok(o) = std::process::Command::new("systemd-detect-virt").output() {
        let s = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if o.status.success() && !s.is_empty() && s != "none" {
            why.push(format!("systemd-detect-virt: {s}"));
        }
    }
    if let Some(p) = read_trim("/sys/class/dmi/id/product_name") {
        let l = p.to_lowercase();
        if [
            "kvm",
            "qemu",
            "vmware",
            "virtualbox",
            "virtual machine",
            "hvm",
            "bochs",
            "xen",
            "cloud",
        ]
        .iter()
        .any(|k| l.contains(k))
        {
            why.push(format!("DMI product: {p}"));
        }
    }
    if let Ok(t) = std::fs::read_to_string("/proc/cpuinfo") {
        if t.lines()
            .any(|l| l.starts_with("flags") && l.split_whitespace().any(|f| f == "hypervisor"))
        {
            why.push("CPU flag: hypervisor".into());
        }
    }
    if let Some(vm) = vendor_model {
        let l = vm.to_lowercase();
        if [
            "qemu",
            "virtio",
            "vmware",
            "vbox",
            "0x1af4",
            "msft virtual",
            "google",
            "amazon elastic",
            "xen",
        ]
        .iter()
        .any(|k| l.contains(k))
        {
            why.push(format!("disk: {vm}"));
        }
    }
    if let Some(d) = device {
        if d.starts_with("vd") || d.starts_with("xvd") {
            why.push(format!("disk name {d} (virtio/xen)"));
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// The machine details for the calibration file; `path` is the test file.
pub fn details(path: &Path) -> Machine {
    let dev = block_device(path);
    let (device, vendor_model, rotational) = match &dev {
        Some((name, dir)) => {
            let vendor = read_trim(dir.join("device/vendor"));
            let model = read_trim(dir.join("device/model"));
            let vm = match (vendor, model) {
                (Some(v), Some(m)) => Some(format!("{v} {m}")),
                (Some(v), None) if v == "0x1af4" => Some(format!("{v} (virtio)")),
                (Some(v), None) => Some(v),
                (None, Some(m)) => Some(m),
                (None, None) => None,
            };
            let rot = read_trim(dir.join("queue/rotational")).map(|r| r == "1");
            (Some(name.clone()), vm, rot)
        }
        None => (None, None, None),
    };
    let virt = virtualization(device.as_deref(), vendor_model.as_deref());
    Machine {
        cpu_model: cpu_model(),
        cpus: std::thread::available_parallelism()
            .map(|n| n.get() as u32)
            .unwrap_or(1),
        kernel: kernel(),
        os: os_name(),
        filesystem: filesystem(path),
        device,
        device_model: vendor_model,
        rotational,
        ram_bytes: ram_bytes(),
        virtual_machine: virt.is_some(),
        virtualization: virt,
    }
}

/// UTC now as ISO 8601 (`2026-05-01T12:00:00Z`).
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    iso8601(secs)
}

pub fn iso8601(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        costlab_core::date::format(days),
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_share_of_the_other_processes() {
        let stat = |user: u64, idle: u64, steal: u64| {
            format!("cpu  {user} 0 100 {idle} 5 0 0 {steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n")
        };
        let me = |t: u64| format!("42 (my (odd) name) R 1 2 3 4 5 6 7 8 9 10 {t} 0 0 0");
        let a = CpuTimes::parse(&stat(1000, 5000, 0), &me(300)).unwrap();
        let b = CpuTimes::parse(&stat(1600, 5300, 100), &me(600)).unwrap();
        // 1000 ticks passed: 600 busy, 300 of them ours, 100 stolen.
        let s = b.share_since(&a).unwrap();
        assert!((s.others - 0.3).abs() < 1e-12, "{s:?}");
        assert!((s.steal - 0.1).abs() < 1e-12);
        assert!(CpuTimes::parse("intr 1 2", &me(1)).is_none());
        assert!(CpuTimes::parse(&stat(1, 2, 3), "garbage").is_none());
        if cfg!(target_os = "linux") {
            assert!(CpuTimes::now().is_some());
        }
    }

    #[test]
    fn dates() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso8601(1_777_636_800), "2026-05-01T12:00:00Z");
    }

    #[test]
    fn details_of_the_temp_dir() {
        let m = details(&std::env::temp_dir());
        assert!(m.ram_bytes > 0.0 && m.cpus >= 1);
        assert!(!m.kernel.is_empty() && !m.cpu_model.is_empty());
    }
}
