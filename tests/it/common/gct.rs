//! Shared by the Grand Chess Tree worker tests: the reference rows of
//! `tests/data/perft/perft_gct_stats.csv`, and socat (a TCP worker).

use std::{
    net::TcpStream,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

const GCT_CSV: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/perft/perft_gct_stats.csv"
);

/// The counters of the CSV, in the order of `PerftStats::to_array` (nodes first, then the
/// four move counts and the eight check and mate classes).
pub(crate) const STATS_COLUMNS: [&str; 13] = [
    "nodes",
    "captures",
    "enpassants",
    "castles",
    "promotions",
    "direct_checks",
    "single_discovered_checks",
    "direct_discovered_checks",
    "double_discovered_checks",
    "direct_mates",
    "single_discovered_mates",
    "direct_discovered_mates",
    "double_discovered_mates",
];

/// One row of the CSV.
#[derive(Clone, Debug)]
pub(crate) struct GctRow {
    /// `start`, `kiwipete` or `cpw-pos6`.
    pub position: String,
    /// The FEN.
    pub fen: String,
    /// The depth.
    pub depth: u32,
    /// The counters in [`STATS_COLUMNS`] order.
    pub stats: [u64; 13],
    /// `total_checks` (checks without mates).
    pub total_checks: u64,
    /// `total_mates`.
    pub total_mates: u64,
}

impl GctRow {
    fn get(&self, column: &str) -> u64 {
        self.stats[STATS_COLUMNS
            .iter()
            .position(|c| *c == column)
            .unwrap_or_else(|| panic!("no column {column}"))]
    }

    /// The nine counts of a worker result, as the protocol defines them from the GCT classes:
    /// `checks` counts every checking leaf (mates included), `discovered_checks` those where
    /// the moved piece is not a checker, `double_checks` those with two checkers.
    pub(crate) fn protocol_counts(&self) -> Vec<(&'static str, u64)> {
        let g = |c| self.get(c);
        vec![
            ("nodes", g("nodes")),
            ("captures", g("captures")),
            ("enpassants", g("enpassants")),
            ("castles", g("castles")),
            ("promotions", g("promotions")),
            ("checks", self.total_checks + self.total_mates),
            (
                "discovered_checks",
                g("single_discovered_checks")
                    + g("double_discovered_checks")
                    + g("single_discovered_mates")
                    + g("double_discovered_mates"),
            ),
            (
                "double_checks",
                g("direct_discovered_checks")
                    + g("double_discovered_checks")
                    + g("direct_discovered_mates")
                    + g("double_discovered_mates"),
            ),
            ("check_mates", self.total_mates),
        ]
    }

    /// The eight classes (the `:classes` extension lines).
    pub(crate) fn class_counts(&self) -> Vec<(&'static str, u64)> {
        STATS_COLUMNS[5..]
            .iter()
            .map(|&c| (c, self.get(c)))
            .collect()
    }
}

/// Every row of the CSV.
pub(crate) fn gct_rows() -> Vec<GctRow> {
    let text = std::fs::read_to_string(GCT_CSV).expect("the GCT statistics CSV");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            // No field contains a comma; the FEN is quoted.
            let f: Vec<&str> = line.split(',').map(|x| x.trim_matches('"')).collect();
            let num = |name: &str| -> u64 { f[col(name)].parse().expect("a count") };
            GctRow {
                position: f[col("position")].to_string(),
                fen: f[col("fen")].to_string(),
                depth: num("depth") as u32,
                stats: STATS_COLUMNS.map(num),
                total_checks: num("total_checks"),
                total_mates: num("total_mates"),
            }
        })
        .collect()
}

/// The row of `position` at `depth`.
pub(crate) fn gct_row(position: &str, depth: u32) -> GctRow {
    gct_rows()
        .into_iter()
        .find(|r| r.position == position && r.depth == depth)
        .unwrap_or_else(|| panic!("no row {position} d{depth}"))
}

/// A free loopback port.
pub(crate) fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("an address").port()
}

/// `socat TCP-LISTEN:port,reuseaddr,fork EXEC:"chessd worker …"`, killed on drop.
pub(crate) struct Socat {
    child: Child,
    /// `127.0.0.1:port`
    pub addr: String,
}

impl Socat {
    /// Starts socat serving `chessd worker` (with `worker_args`) on a free port and waits
    /// until it accepts connections.
    pub(crate) fn start(worker_args: &str) -> Socat {
        let port = free_port();
        let exec = format!("EXEC:{} worker {worker_args}", env!("CARGO_BIN_EXE_chessd"));
        let child = Command::new("socat")
            .arg(format!("TCP-LISTEN:{port},reuseaddr,fork,bind=127.0.0.1"))
            .arg(exec)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("socat starts");
        let addr = format!("127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(5);
        while TcpStream::connect(&addr).is_err() {
            assert!(Instant::now() < deadline, "socat did not listen on {addr}");
            std::thread::sleep(Duration::from_millis(20));
        }
        Socat { child, addr }
    }

    /// The process ids of the `chessd worker` processes socat started that still run.
    pub(crate) fn worker_pids(&self) -> Vec<u32> {
        descendants(self.child.id())
            .into_iter()
            .filter(|&pid| is_chessd_worker(pid))
            .collect()
    }
}

impl Drop for Socat {
    fn drop(&mut self) {
        let pids = descendants(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
        for pid in pids {
            kill9(pid);
        }
    }
}

/// The parent process id of `pid`, from `/proc`.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces: read after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Every live process below `root`.
pub(crate) fn descendants(root: u32) -> Vec<u32> {
    let all: Vec<u32> = std::fs::read_dir("/proc")
        .map(|dir| {
            dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        for &pid in &all {
            if parent_of(pid) == Some(parent) && !found.contains(&pid) {
                found.push(pid);
            }
        }
        i += 1;
    }
    found.remove(0);
    found
}

/// Whether `pid` runs `chessd worker` (and is not a zombie).
pub(crate) fn is_chessd_worker(pid: u32) -> bool {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
    args.len() >= 2 && args[0] == env!("CARGO_BIN_EXE_chessd").as_bytes() && args[1] == b"worker"
}

/// `kill -9 pid`.
pub(crate) fn kill9(pid: u32) {
    let _ = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .stderr(Stdio::null())
        .status();
}

/// Asserts every counter of a perft result (chessd's JSON) against a reference row: the
/// thirteen statistics columns and the counts of the worker protocol.
pub(crate) fn assert_gct_row(result: &serde_json::Value, row: &GctRow) {
    let at = format!("{} d{}", row.position, row.depth);
    for (i, column) in STATS_COLUMNS.iter().enumerate() {
        let got = if i < 5 {
            &result[*column]
        } else {
            &result["classes"][*column]
        };
        assert_eq!(got.as_u64(), Some(row.stats[i]), "{at} {column}: {result}");
    }
    for (name, value) in row.protocol_counts() {
        let name = if name == "check_mates" {
            "checkmates"
        } else {
            name
        };
        assert_eq!(result[name].as_u64(), Some(value), "{at} {name}: {result}");
    }
}
