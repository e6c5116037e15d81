//! Platform I/O: aligned buffers, opening around the page cache, fadvise.
//!
//! Linux opens with O_DIRECT (buffers, offsets and lengths aligned to 4096, which covers
//! 512e and 4Kn devices); macOS sets F_NOCACHE on the descriptor; where neither works
//! (tmpfs refuses O_DIRECT with EINVAL) reads are buffered and every run starts with the
//! file's clean pages dropped (fdatasync was done after writing, then
//! POSIX_FADV_DONTNEED), and the result carries a warning.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Alignment of every buffer, offset and length of a direct read.
pub const ALIGN: usize = 4096;

/// A zeroed buffer whose start is aligned to [`ALIGN`], without unsafe code: a slightly
/// larger vector, used from its first aligned byte.
pub struct AlignedBuf {
    v: Vec<u8>,
    off: usize,
    len: usize,
}

impl AlignedBuf {
    pub fn new(len: usize) -> AlignedBuf {
        let v = vec![0u8; len + ALIGN];
        let off = v.as_ptr().align_offset(ALIGN);
        AlignedBuf { v, off, len }
    }
    pub fn as_slice(&self) -> &[u8] {
        &self.v[self.off..self.off + self.len]
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.v[self.off..self.off + self.len]
    }
}

/// How reads avoid the page cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoMode {
    ODirect,
    #[cfg_attr(not(target_os = "macos"), allow(dead_code))]
    FNoCache,
    BufferedDontNeed,
}

impl IoMode {
    pub fn name(self) -> &'static str {
        match self {
            IoMode::ODirect => "o_direct",
            IoMode::FNoCache => "f_nocache",
            IoMode::BufferedDontNeed => "buffered_dontneed",
        }
    }
}

#[cfg(target_os = "linux")]
fn direct_flags() -> i32 {
    libc::O_DIRECT
}
#[cfg(not(target_os = "linux"))]
fn direct_flags() -> i32 {
    0
}

/// Opens `path` for writing with O_DIRECT (Linux); an error where that is refused.
pub fn open_write_direct(path: &Path) -> io::Result<File> {
    if direct_flags() == 0 {
        return Err(io::Error::from(io::ErrorKind::Unsupported));
    }
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .write(true)
        .custom_flags(direct_flags())
        .open(path)
}

/// Opens `path` for reads that bypass the page cache where the platform and filesystem
/// allow it, and says how. Also returns why direct I/O was refused, if it was.
pub fn open_read_uncached(path: &Path) -> io::Result<(File, IoMode, Option<String>)> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::{FileExt, OpenOptionsExt};
        match OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
        {
            Ok(f) => {
                // Some filesystems accept the open and refuse the read.
                let mut b = AlignedBuf::new(ALIGN);
                match f.read_at(b.as_mut_slice(), 0) {
                    Ok(_) => return Ok((f, IoMode::ODirect, None)),
                    Err(e) => {
                        let why = format!("an O_DIRECT read failed: {e}");
                        let f = File::open(path)?;
                        return Ok((f, IoMode::BufferedDontNeed, Some(why)));
                    }
                }
            }
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                let f = File::open(path)?;
                return Ok((
                    f,
                    IoMode::BufferedDontNeed,
                    Some(format!("O_DIRECT open refused: {e}")),
                ));
            }
            Err(e) => return Err(e),
        }
    }
    #[cfg(target_os = "macos")]
    {
        let f = File::open(path)?;
        use std::os::fd::AsRawFd;
        // SAFETY: fcntl on a descriptor we own, with an integer argument.
        let r = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_NOCACHE, 1) };
        if r == 0 {
            return Ok((f, IoMode::FNoCache, None));
        }
        return Ok((
            f,
            IoMode::BufferedDontNeed,
            Some("F_NOCACHE refused".into()),
        ));
    }
    #[allow(unreachable_code)]
    {
        let f = File::open(path)?;
        Ok((
            f,
            IoMode::BufferedDontNeed,
            Some("no direct I/O on this platform".into()),
        ))
    }
}

/// Drops the clean cached pages of a range (`len` 0: to the end). Best effort.
pub fn drop_cache(f: &File, off: u64, len: u64) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let _ = rustix::fs::fadvise(
            f,
            off,
            std::num::NonZeroU64::new(len),
            rustix::fs::Advice::DontNeed,
        );
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (f, off, len);
    }
}

/// Turns off read-ahead for buffered random reads on this descriptor. Best effort.
pub fn advise_random(f: &File) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let _ = rustix::fs::fadvise(f, 0, None, rustix::fs::Advice::Random);
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = f;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned() {
        for len in [4096, 8192, 16384, 1 << 20] {
            let mut b = AlignedBuf::new(len);
            assert_eq!(b.as_slice().as_ptr() as usize % ALIGN, 0);
            assert_eq!(b.as_mut_slice().len(), len);
        }
    }
}
