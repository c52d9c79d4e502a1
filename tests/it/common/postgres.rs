//! A real PostgreSQL server for a test: `initdb` and `pg_ctl` (Debian's `postgresql` package)
//! on a free loopback port, in a scratch directory; stopped and deleted on drop. PostgreSQL
//! refuses to run as root, so as root it runs as the `postgres` user the package creates.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

/// A running PostgreSQL server.
pub(crate) struct PgServer {
    dir: PathBuf,
    bin: PathBuf,
    /// The server's options (port, socket directory).
    options: String,
    /// `postgres://chessd@127.0.0.1:PORT/postgres`
    pub url: String,
}

/// The newest installed PostgreSQL's programs.
fn bin_dir() -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is installed (apt-get install postgresql)")
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|p| p.join("initdb").is_file())
        .collect();
    versions.sort();
    versions.pop().expect("an initdb under /usr/lib/postgresql")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Runs a PostgreSQL program (as `postgres` when we are root); panics when it fails.
fn run(bin: &Path, program: &str, args: &[&str]) {
    let exe = bin.join(program);
    let mut cmd = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(&exe);
        c
    } else {
        Command::new(&exe)
    };
    let out = cmd.args(args).output().expect("PostgreSQL program runs");
    assert!(
        out.status.success(),
        "{program} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl PgServer {
    /// Creates a cluster and starts it; returns once it accepts connections.
    pub(crate) fn start() -> PgServer {
        let bin = bin_dir();
        let dir = std::env::temp_dir().join(format!("chessd-pg-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        if is_root() {
            let status = Command::new("chown")
                .args(["postgres:postgres", dir.to_str().unwrap()])
                .status()
                .unwrap();
            assert!(status.success());
        }
        let data = dir.join("data");
        let data = data.to_str().unwrap();
        run(
            &bin,
            "initdb",
            &[
                "-D",
                data,
                "-U",
                "chessd",
                "--auth=trust",
                "-E",
                "UTF8",
                "-N",
            ],
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c max_connections=100",
            dir.display()
        );
        let server = PgServer {
            url: format!("postgres://chessd@127.0.0.1:{port}/postgres"),
            dir,
            bin,
            options,
        };
        server.start_again();
        server
    }

    /// Stops the server at once, as a crash would (`pg_ctl stop -m immediate`).
    pub(crate) fn stop(&self) {
        let data = self.dir.join("data");
        run(
            &self.bin,
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
        );
    }

    /// Starts the server (again) on the same port and data; returns once it accepts
    /// connections.
    pub(crate) fn start_again(&self) {
        let data = self.dir.join("data");
        let log = self.dir.join("log");
        run(
            &self.bin,
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-o",
                &self.options,
                "-l",
                log.to_str().unwrap(),
                "-w",
                "start",
            ],
        );
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        let exe = self.bin.join("pg_ctl");
        let mut cmd = if is_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        let _ = cmd
            .args([
                "-D",
                data.to_str().unwrap(),
                "-m",
                "immediate",
                "-w",
                "stop",
            ])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
