//! The test file: created by the probe, owned by it, removed when done.
//!
//! Rules (each one is tested):
//! * the probe creates `costlab-probe-<pid>.dat` (or the `--file` path) with O_EXCL, so it
//!   never truncates anything that was there; it fills it with incompressible random data,
//!   written through, so no block is sparse or unwritten;
//! * an existing file is refused unless `--reuse`, and then it is only read: neither written
//!   nor removed;
//! * anything but a regular file (a block device, a FIFO, a directory) is refused: the probe
//!   never writes to a device;
//! * free space is checked (statvfs) before writing;
//! * a file the probe created is removed when the [`TestFile`] drops, and by the Ctrl-C
//!   handler through [`registered`].

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Name prefix of the files the probe creates.
pub const MARKER: &str = "costlab-probe-";
/// The smallest test file worth measuring.
pub const MIN_BYTES: u64 = 16 * 1024 * 1024;
/// Free space left over after the test file.
const SPARE_BYTES: u64 = 256 * 1024 * 1024;
const CHUNK: usize = 4 * 1024 * 1024;

/// Files to remove if the process is interrupted.
static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The files the probe created and has not removed yet.
#[cfg(test)]
pub fn registered() -> Vec<PathBuf> {
    REGISTERED.lock().map(|v| v.clone()).unwrap_or_default()
}

/// Removes every registered file (Ctrl-C).
pub fn remove_registered() {
    if let Ok(mut v) = REGISTERED.lock() {
        for p in v.drain(..) {
            let _ = std::fs::remove_file(&p);
        }
    }
}

fn register(p: &Path) {
    if let Ok(mut v) = REGISTERED.lock() {
        v.push(p.to_path_buf());
    }
}

fn unregister(p: &Path) {
    if let Ok(mut v) = REGISTERED.lock() {
        v.retain(|x| x != p);
    }
}

/// Where the test file goes.
#[derive(Clone, Debug)]
pub enum Target {
    /// A directory: the probe names the file `costlab-probe-<pid>.dat`.
    Dir(PathBuf),
    /// An exact path.
    File(PathBuf),
}

impl Target {
    pub fn path(&self) -> PathBuf {
        match self {
            Target::Dir(d) => d.join(format!("{MARKER}{}.dat", std::process::id())),
            Target::File(f) => f.clone(),
        }
    }
}

#[derive(Debug)]
pub struct TestFile {
    pub path: PathBuf,
    pub bytes: u64,
    /// The probe created it (and removes it); false for a `--reuse`d file.
    pub owned: bool,
    pub warnings: Vec<String>,
}

impl Drop for TestFile {
    fn drop(&mut self) {
        if self.owned {
            let _ = std::fs::remove_file(&self.path);
            unregister(&self.path);
        }
    }
}

/// Bytes free for an unprivileged writer on the filesystem holding `dir`.
pub fn free_bytes(dir: &Path) -> io::Result<u64> {
    let st = rustix::fs::statvfs(dir)?;
    Ok(st.f_bavail.saturating_mul(st.f_frsize))
}

/// Opens an existing `--reuse` file or creates and fills a new one of `bytes` bytes.
/// `progress` gets the bytes written so far; `cancel` stops the writing (the partial file is
/// removed).
pub fn prepare(
    target: &Target,
    bytes: u64,
    reuse: bool,
    seed: u64,
    cancel: &AtomicBool,
    progress: &dyn Fn(u64),
) -> Result<TestFile, String> {
    if let Target::Dir(d) = target {
        if !d.is_dir() {
            return Err(format!("--dir {}: not a directory", d.display()));
        }
    }
    let path = target.path();
    match std::fs::metadata(&path) {
        Ok(meta) => {
            let ft = meta.file_type();
            if !ft.is_file() {
                let what = if ft.is_block_device() {
                    "a block device (costlab-probe never writes to devices; give a file on its filesystem)"
                } else if ft.is_dir() {
                    "a directory (use --dir)"
                } else {
                    "not a regular file"
                };
                return Err(format!("{}: {what}", path.display()));
            }
            if !reuse {
                return Err(format!(
                    "{} already exists and costlab-probe did not create it; pass --reuse to \
                     measure it as it is (it is then only read, never written or removed), or \
                     choose another path",
                    path.display()
                ));
            }
            let len = meta.len();
            if len < MIN_BYTES {
                return Err(format!(
                    "{}: {len} bytes is smaller than the {MIN_BYTES} bytes a measurement needs",
                    path.display()
                ));
            }
            let mut warnings = Vec::new();
            use std::os::unix::fs::MetadataExt;
            if meta.blocks().saturating_mul(512) < len / 100 * 99 {
                warnings.push(format!(
                    "{} is sparse ({} of {len} bytes allocated): unwritten blocks read as zeros \
                     without touching the device",
                    path.display(),
                    meta.blocks() * 512
                ));
            }
            warnings.push(format!(
                "reused {}: its content was not written by this run (random data is assumed)",
                path.display()
            ));
            Ok(TestFile {
                path,
                bytes: len,
                owned: false,
                warnings,
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            create(&path, bytes, seed, cancel, progress)
        }
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

fn create(
    path: &Path,
    bytes: u64,
    seed: u64,
    cancel: &AtomicBool,
    progress: &dyn Fn(u64),
) -> Result<TestFile, String> {
    if bytes < MIN_BYTES {
        return Err(format!(
            "--size {bytes} is smaller than the {MIN_BYTES} bytes a measurement needs"
        ));
    }
    // Whole 4 MiB chunks, at least the size asked for.
    let bytes = bytes.div_ceil(CHUNK as u64) * CHUNK as u64;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let free = free_bytes(&parent).map_err(|e| format!("statvfs {}: {e}", parent.display()))?;
    if free < bytes + SPARE_BYTES {
        return Err(format!(
            "{}: {} MiB free, the test file needs {} MiB plus {} MiB to spare; use --size or \
             another --dir",
            parent.display(),
            free >> 20,
            bytes >> 20,
            SPARE_BYTES >> 20
        ));
    }
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| format!("create {}: {e}", path.display()))?;
    register(path);
    // From here on the file is ours: dropping `tf` removes it on every error path.
    let tf = TestFile {
        path: path.to_path_buf(),
        bytes,
        owned: true,
        warnings: Vec::new(),
    };
    fill(&file, path, bytes, seed, cancel, progress)
        .map_err(|e| format!("write {}: {e}", path.display()))?;
    Ok(tf)
}

/// Writes `bytes` of random data (a generator thread feeding a writer), with O_DIRECT when
/// the filesystem takes it, then fdatasync and drops the file's cached pages.
fn fill(
    file: &File,
    path: &Path,
    bytes: u64,
    seed: u64,
    cancel: &AtomicBool,
    progress: &dyn Fn(u64),
) -> io::Result<()> {
    use crate::io::AlignedBuf;
    use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
    let chunks = bytes / CHUNK as u64;
    let (tx, rx) = sync_channel::<AlignedBuf>(2);
    let (back_tx, back_rx) = channel::<AlignedBuf>();
    for _ in 0..3 {
        let _ = back_tx.send(AlignedBuf::new(CHUNK));
    }
    // Takes the channel ends by value: when it returns, early or not, they drop and the
    // generator's next send or receive fails, so the scope never waits forever.
    let write = |rx: Receiver<AlignedBuf>, back_tx: Sender<AlignedBuf>| -> io::Result<()> {
        let mut direct = crate::io::open_write_direct(path).ok();
        let mut buffered = file;
        let mut written = 0u64;
        for _ in 0..chunks {
            if cancel.load(Ordering::Relaxed) {
                return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
            }
            let buf = rx
                .recv()
                .map_err(|_| io::Error::other("the data generator stopped"))?;
            let mut done = false;
            if let Some(d) = &direct {
                use std::os::unix::fs::FileExt;
                match d.write_all_at(buf.as_slice(), written) {
                    Ok(()) => done = true,
                    // O_DIRECT writes refused after opening: carry on buffered.
                    Err(e) if e.raw_os_error() == Some(libc::EINVAL) => direct = None,
                    Err(e) => return Err(e),
                }
            }
            if !done {
                use std::io::Seek;
                buffered.seek(io::SeekFrom::Start(written))?;
                buffered.write_all(buf.as_slice())?;
            }
            written += CHUNK as u64;
            progress(written);
            let _ = back_tx.send(buf);
        }
        Ok(())
    };
    std::thread::scope(|s| {
        s.spawn(move || {
            let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed_f11e);
            for _ in 0..chunks {
                let Ok(mut buf) = back_rx.recv() else { return };
                rng.fill_bytes(buf.as_mut_slice());
                if tx.send(buf).is_err() {
                    return;
                }
            }
        });
        write(rx, back_tx)
    })?;
    file.sync_data()?;
    crate::io::drop_cache(file, 0, 0);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_progress(_: u64) {}

    #[test]
    fn creates_fills_and_removes_its_own_file() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = AtomicBool::new(false);
        let t = Target::Dir(dir.path().to_path_buf());
        let f = prepare(&t, MIN_BYTES, false, 1, &cancel, &no_progress).unwrap();
        assert!(f.owned);
        let name = f.path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(MARKER) && name.ends_with(".dat"), "{name}");
        let meta = std::fs::metadata(&f.path).unwrap();
        assert_eq!(meta.len(), MIN_BYTES);
        use std::os::unix::fs::MetadataExt;
        assert!(meta.blocks() * 512 >= MIN_BYTES, "not sparse");
        // Random content: no 4 kB block of zeros in the first MiB.
        let data = std::fs::read(&f.path).unwrap();
        assert!(data[..1 << 20]
            .chunks(4096)
            .all(|c| c.iter().any(|&b| b != 0)));
        assert!(registered().contains(&f.path));
        let p = f.path.clone();
        drop(f);
        assert!(!p.exists(), "removed when done");
        assert!(!registered().contains(&p));
        // Nothing else was left in the directory.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn refuses_a_foreign_file_unless_reuse_and_then_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let foreign = dir.path().join("precious.dat");
        std::fs::write(&foreign, vec![7u8; MIN_BYTES as usize]).unwrap();
        let cancel = AtomicBool::new(false);
        let t = Target::File(foreign.clone());
        let e = prepare(&t, MIN_BYTES, false, 1, &cancel, &no_progress).unwrap_err();
        assert!(
            e.contains("did not create it") && e.contains("--reuse"),
            "{e}"
        );
        assert_eq!(
            std::fs::read(&foreign).unwrap(),
            vec![7u8; MIN_BYTES as usize]
        );

        let f = prepare(&t, MIN_BYTES, true, 1, &cancel, &no_progress).unwrap();
        assert!(!f.owned);
        drop(f);
        assert_eq!(
            std::fs::read(&foreign).unwrap(),
            vec![7u8; MIN_BYTES as usize],
            "a reused file is neither written nor removed"
        );
    }

    #[test]
    fn refuses_devices_directories_and_too_little_space() {
        let cancel = AtomicBool::new(false);
        let e = prepare(
            &Target::File("/dev/null".into()),
            MIN_BYTES,
            true,
            1,
            &cancel,
            &no_progress,
        )
        .unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        if let Some(dev) = ["/dev/loop0", "/dev/vda", "/dev/sda", "/dev/nvme0n1"]
            .iter()
            .find(|p| Path::new(p).exists())
        {
            let e = prepare(
                &Target::File(dev.into()),
                MIN_BYTES,
                true,
                1,
                &cancel,
                &no_progress,
            )
            .unwrap_err();
            assert!(e.contains("block device"), "{e}");
        }
        let dir = tempfile::tempdir().unwrap();
        let e = prepare(
            &Target::File(dir.path().to_path_buf()),
            MIN_BYTES,
            true,
            1,
            &cancel,
            &no_progress,
        )
        .unwrap_err();
        assert!(e.contains("directory"), "{e}");
        let e = prepare(
            &Target::Dir(dir.path().join("missing")),
            MIN_BYTES,
            false,
            1,
            &cancel,
            &no_progress,
        )
        .unwrap_err();
        assert!(e.contains("not a directory"), "{e}");
        // More than the filesystem has: refused before anything is written.
        let e = prepare(
            &Target::Dir(dir.path().to_path_buf()),
            1 << 60,
            false,
            1,
            &cancel,
            &no_progress,
        )
        .unwrap_err();
        assert!(e.contains("free"), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn an_interrupted_fill_removes_the_partial_file() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = AtomicBool::new(true);
        let e = prepare(
            &Target::Dir(dir.path().to_path_buf()),
            MIN_BYTES,
            false,
            1,
            &cancel,
            &no_progress,
        )
        .unwrap_err();
        assert!(e.contains("interrupted"), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
