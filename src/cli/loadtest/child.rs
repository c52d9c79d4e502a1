//! The server under test: `chessd serve --bind 127.0.0.1:0` started as a child process of this
//! very binary, its address read from its first line of output, killed when dropped.

use std::{
    io::{BufRead, BufReader},
    process::{Child, Command, Stdio},
    sync::mpsc,
    time::Duration,
};

/// How long the child may take to print its address.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Clock ticks per second in `/proc/<pid>/stat` (`USER_HZ`, 100 on every Linux ABI).
const USER_HZ: f64 = 100.0;

/// A running `chessd serve` child; killed on drop (and its scratch store deleted).
pub(super) struct ChildServer {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// The SQLite file made for this run, when the caller named no store.
    scratch: Option<std::path::PathBuf>,
}

/// A fresh SQLite file under the system's temporary directory.
pub(super) fn scratch_store() -> std::path::PathBuf {
    std::env::temp_dir()
        .join("chessd-loadtest")
        .join(format!("{}.sqlite", uuid::Uuid::new_v4().simple()))
}

impl ChildServer {
    /// Starts the server with extra `CHESSD_…` environment variables and waits for its address.
    pub(super) fn start(env: &[(&str, String)]) -> Result<ChildServer, String> {
        ChildServer::start_on("127.0.0.1:0", env)
    }

    /// [`ChildServer::start`] on a given address (a cluster node must know its own).
    pub(super) fn start_on(bind: &str, env: &[(&str, String)]) -> Result<ChildServer, String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find chessd itself: {e}"))?;
        let mut cmd = Command::new(exe);
        cmd.args(["serve", "--bind", bind])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            // The load comes from one client: lift the per-client quotas, which would measure
            // the limiter instead of the server (the caller's variables still override these).
            .env("CHESSD_QUOTAS__GAMES_PER_MINUTE", "0")
            .env("CHESSD_QUOTAS__MAX_ONGOING_GAMES", "1000000000")
            .env("CHESSD_QUOTAS__MAX_ENGINES", "1000000")
            .env("CHESSD_QUOTAS__MAX_SOCKETS", "1000000")
            .env("CHESSD_LIMITS__MAX_CONNECTIONS_PER_ADDRESS", "1000000")
            .env("CHESSD_ENGINES__MAX_PROCESSES", "1000000");
        for (k, v) in env {
            cmd.env(k, v);
        }
        // Unless told otherwise, the server keeps its games in a store of its own (the
        // default, SQLite), never in the working directory's.
        let scratch = (!env.iter().any(|(k, _)| *k == "CHESSD_STORE__URL")).then(scratch_store);
        if let Some(path) = &scratch {
            cmd.env("CHESSD_STORE__URL", format!("sqlite://{}", path.display()));
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start chessd serve: {e}"))?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("chessd serve has no stdout".into());
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let _ = tx.send(lines.next());
            // Keep draining stdout so the server never blocks on a full pipe.
            for _ in lines {}
        });
        let mut server = ChildServer {
            child,
            base: String::new(),
            scratch,
        };
        let line = match rx.recv_timeout(START_TIMEOUT) {
            Ok(Some(Ok(line))) => line,
            Ok(_) => return Err("chessd serve exited before printing its address".into()),
            Err(_) => return Err("chessd serve did not print its address in time".into()),
        };
        server.base = line
            .strip_prefix("chessd listening on ")
            .ok_or_else(|| format!("unexpected first line from chessd serve: {line}"))?
            .to_string();
        Ok(server)
    }

    /// The child's process id.
    pub(super) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The child's resident set size in bytes (`VmRSS` of `/proc/<pid>/status`).
    pub(super) fn rss_bytes(&self) -> Result<u64, String> {
        let path = format!("/proc/{}/status", self.pid());
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
        text.lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().strip_suffix("kB"))
            .and_then(|kb| kb.trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
            .ok_or_else(|| format!("{path}: no VmRSS line"))
    }

    /// CPU seconds (user + system, all threads) the child has used so far.
    pub(super) fn cpu_seconds(&self) -> f64 {
        cpu_seconds(&format!("/proc/{}/stat", self.pid()))
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(path) = &self.scratch {
            remove_sqlite(path);
        }
    }
}

/// Deletes an SQLite file with its WAL and shared-memory files.
pub(super) fn remove_sqlite(path: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        let _ = std::fs::remove_file(file);
    }
}

/// CPU seconds (user + system, all threads) this process has used so far.
pub(super) fn own_cpu_seconds() -> f64 {
    cpu_seconds("/proc/self/stat")
}

/// User + system time from a `/proc/<pid>/stat` file, 0 when unreadable.
fn cpu_seconds(path: &str) -> f64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| parse_stat_cpu(&text))
        .unwrap_or(0.0)
}

/// Fields 14 (utime) and 15 (stime) of a stat line; the command name (field 2, in parentheses)
/// may itself hold spaces, so counting starts after its closing parenthesis.
fn parse_stat_cpu(text: &str) -> Option<f64> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) as f64 / USER_HZ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_cpu_counts_after_the_command_name() {
        let line = "42 (a b) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 1 2 3";
        assert_eq!(parse_stat_cpu(line), Some(3.0));
        assert_eq!(parse_stat_cpu("garbage"), None);
    }

    #[test]
    fn own_cpu_time_is_readable() {
        // Burn a little CPU so the counter is certainly positive.
        let mut x = 0u64;
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_millis(30) {
            x = x.wrapping_mul(31).wrapping_add(7);
        }
        assert!(x != 1);
        assert!(own_cpu_seconds() > 0.0);
    }
}
