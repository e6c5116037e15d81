//! A throwaway PostgreSQL server for tests (dev-dependency only).
//!
//! [`PgServer::start`] finds the newest server under `/usr/lib/postgresql/*/bin`, runs
//! `initdb` into a temporary directory (as the `postgres` OS user through `runuser` when
//! the tests run as root, because initdb refuses root), starts it with `pg_ctl` on a free
//! loopback port with durability off, and stops it (`-m immediate`) when dropped; the
//! directory goes with it. `cargo xtask test` installs PostgreSQL.

use postgres::{Client, NoTls};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct PgServer {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
    as_postgres: bool,
    // Dropped after `drop` below has stopped the server.
    dir: tempfile::TempDir,
}

/// initdb's arguments before the data directory: a throwaway cluster (trust, no fsync).
pub const INITDB_ARGS: [&str; 9] = [
    "-A",
    "trust",
    "-U",
    "postgres",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
    "-D",
];

/// The newest PostgreSQL binaries directory with initdb and pg_ctl, if any.
pub fn find_pg_bin() -> Option<PathBuf> {
    find_pg_bin_under(Path::new("/usr/lib/postgresql"))
}

/// The newest `root/<major>/bin` with initdb and pg_ctl, if any.
fn find_pg_bin_under(root: &Path) -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(root)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let major: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            (bin.join("initdb").exists() && bin.join("pg_ctl").exists()).then_some((major, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, b)| b)
}

/// What a test that needs a server says when there is none: the package to install.
pub const MISSING_PG: &str = "no PostgreSQL server binaries (initdb, pg_ctl) under \
     /usr/lib/postgresql/*/bin: install Debian's `postgresql` package \
     (`apt-get install postgresql`), or run `cargo xtask test`, which installs it";

/// [`find_pg_bin`], or a panic naming the package to install: a test that needs a server
/// fails without one rather than passing a check it never ran.
pub fn require_pg_bin() -> PathBuf {
    find_pg_bin().unwrap_or_else(|| panic!("{MISSING_PG}"))
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    l.local_addr().expect("local address").port()
}

impl PgServer {
    fn command(&self, program: &str) -> Command {
        let exe = self.bin.join(program);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(exe);
            c
        } else {
            Command::new(exe)
        }
    }

    /// Starts a server with `shared_buffers = 128MB` (PostgreSQL's default) and durability
    /// off. Panics with the server's log when anything fails.
    pub fn start() -> PgServer {
        PgServer::start_with("")
    }

    /// Like [`start`](Self::start), with `extra_conf` appended to postgresql.conf.
    pub fn start_with(extra_conf: &str) -> PgServer {
        let bin = require_pg_bin();
        PgServer::try_start(&bin, None, extra_conf).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Starts a private server from the binaries in `bin`, its directory under `parent`
    /// (default: the system's temporary directory), `extra_conf` appended to
    /// postgresql.conf. Every failure comes back as one message (with the server's log when
    /// it did not start); nothing is left behind.
    pub fn try_start(
        bin: &Path,
        parent: Option<&Path>,
        extra_conf: &str,
    ) -> Result<PgServer, String> {
        for tool in ["initdb", "pg_ctl", "postgres"] {
            if !bin.join(tool).exists() {
                return Err(format!(
                    "{} has no `{tool}`: not a PostgreSQL bin directory",
                    bin.display()
                ));
            }
        }
        let as_postgres = std::fs::metadata("/proc/self")
            .map(|m| m.uid())
            .unwrap_or(0)
            == 0;
        let mut builder = tempfile::Builder::new();
        builder.prefix("costlab-pg-");
        let dir = match parent {
            Some(p) => builder.tempdir_in(p),
            None => builder.tempdir(),
        }
        .map_err(|e| format!("cannot create a directory for the cluster: {e}"))?;
        if as_postgres {
            // initdb refuses to run as root: the cluster belongs to the postgres OS user.
            let ok = Command::new("chown")
                .args(["postgres:postgres"])
                .arg(dir.path())
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            if !ok {
                return Err(format!(
                    "chown of {} to the postgres user failed (is there a `postgres` OS user?)",
                    dir.path().display()
                ));
            }
        }
        let server = PgServer {
            bin: bin.to_path_buf(),
            data: dir.path().join("data"),
            port: free_port(),
            as_postgres,
            dir,
        };
        let out = server
            .command("initdb")
            .args(INITDB_ARGS)
            .arg(&server.data)
            .output()
            .map_err(|e| format!("cannot run initdb: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "initdb failed: {}{}",
                String::from_utf8_lossy(&out.stderr),
                if as_postgres {
                    " (the binaries must be readable by the postgres OS user)"
                } else {
                    ""
                }
            ));
        }
        let conf = format!(
            "\nport = {}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\n\
             fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n\
             shared_buffers = 128MB\njit = off\nautovacuum = off\nmax_wal_size = 4GB\n{extra_conf}\n",
            server.port,
            server.dir.path().display()
        );
        let conf_path = server.data.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf_path)
            .map_err(|e| format!("read postgresql.conf: {e}"))?;
        text.push_str(&conf);
        std::fs::write(&conf_path, text).map_err(|e| format!("write postgresql.conf: {e}"))?;
        server.pg_ctl("start")?;
        Ok(server)
    }

    /// `pg_ctl start` or `restart` (fast shutdown), waiting until the server accepts
    /// connections.
    fn pg_ctl(&self, action: &str) -> Result<(), String> {
        let log = self.dir.path().join("server.log");
        let mut cmd = self.command("pg_ctl");
        cmd.args(["-w", "-t", "120", "-D"])
            .arg(&self.data)
            .arg("-l")
            .arg(&log);
        if action == "restart" {
            cmd.args(["-m", "fast"]);
        }
        let out = cmd
            .arg(action)
            .output()
            .map_err(|e| format!("cannot run pg_ctl {action}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "pg_ctl {action} failed: {}\n{}",
                String::from_utf8_lossy(&out.stderr),
                std::fs::read_to_string(&log).unwrap_or_default()
            ));
        }
        Ok(())
    }

    /// Stops and starts the server: shared_buffers comes back empty.
    pub fn restart(&self) -> Result<(), String> {
        self.pg_ctl("restart")
    }

    /// Connection string over loopback TCP, user and database `postgres`.
    pub fn dsn(&self) -> String {
        format!(
            "host=127.0.0.1 port={} user=postgres dbname=postgres",
            self.port
        )
    }

    pub fn connect(&self) -> Client {
        Client::connect(&self.dsn(), NoTls).expect("connect to the test server")
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The directory of the server's binaries (pgbench, psql, ... where installed).
    pub fn bin(&self) -> &Path {
        &self.bin
    }

    /// The temporary directory holding the cluster, its socket and log; removed on drop.
    /// Tests may put their own scratch files here.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .args(["-D"])
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_newest_complete_server_or_none() {
        let root = tempfile::tempdir().expect("tempdir");
        assert_eq!(find_pg_bin_under(root.path()), None);
        assert_eq!(find_pg_bin_under(&root.path().join("absent")), None);
        let bin = |major: &str, programs: &[&str]| {
            let b = root.path().join(major).join("bin");
            std::fs::create_dir_all(&b).expect("mkdir");
            for p in programs {
                std::fs::write(b.join(p), "").expect("write");
            }
            b
        };
        let v9 = bin("9", &["initdb", "pg_ctl"]);
        assert_eq!(find_pg_bin_under(root.path()), Some(v9));
        let v15 = bin("15", &["initdb", "pg_ctl"]);
        // Numeric order (15 > 9), and a release without pg_ctl (a client-only package) is
        // not a server.
        bin("16", &["initdb"]);
        bin("common", &["initdb", "pg_ctl"]);
        assert_eq!(find_pg_bin_under(root.path()), Some(v15));
        assert!(MISSING_PG.contains("apt-get install postgresql"));
    }
}
