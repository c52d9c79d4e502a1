//! What the two benches against Popeye (`exact_popeye.rs`, direct mates, and
//! `stipulations.rs`, helpmates and selfmates) share: a problem written as Popeye's input, one
//! Popeye run timed three ways (wall, CPU, its own printed time, repaired), and medians. Each
//! bench includes it with `#[path = "support/popeye.rs"] mod popeye;`.

use std::{
    io::{Read, Write},
    process::{Command, Stdio},
    time::Instant,
};

/// Popeye's input for `fen` with `stip` (English keywords, its piece letters).
pub(crate) fn popeye_input(fen: &str, stip: &str) -> String {
    let (mut white, mut black) = (Vec::new(), Vec::new());
    for (r, row) in fen.split(' ').next().unwrap_or("").split('/').enumerate() {
        let mut file = 0u8;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                file += d as u8;
                continue;
            }
            let sq = format!("{}{}", (b'a' + file) as char, 8 - r);
            let role = match c.to_ascii_uppercase() {
                'N' => 's',
                other => other.to_ascii_lowercase(),
            };
            let list = if c.is_ascii_uppercase() {
                &mut white
            } else {
                &mut black
            };
            list.push(format!("{role}{sq}"));
            file += 1;
        }
    }
    format!(
        "beginproblem\nstipulation {stip}\npieces white {}\n black {}\nendproblem\n",
        white.join(" "),
        black.join(" ")
    )
}

/// Seconds a thread or process has run on a CPU, from the first field of a `schedstat` file
/// of /proc (nanoseconds; it stays readable while a finished child is not yet reaped).
fn cpu_seconds(schedstat: &str) -> Option<f64> {
    let text = std::fs::read_to_string(schedstat).ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// What one Popeye run took.
pub(crate) struct PopeyeRun {
    /// Wall seconds of the whole process.
    pub(crate) wall: f64,
    /// CPU seconds of the whole process (start-up included).
    pub(crate) cpu: f64,
    /// Its own solving time as printed.
    pub(crate) printed: f64,
}

/// Runs Popeye on `input`, or `None` when it did not finish.
pub(crate) fn popeye(py: &str, input: &str) -> Option<PopeyeRun> {
    let start = Instant::now();
    let mut child = Command::new(py)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(input.as_bytes()).ok()?;
    let mut text = String::new();
    child.stdout.take()?.read_to_string(&mut text).ok()?;
    // Its output has ended, so it is exiting: read its CPU time before reaping it (an exit
    // still under way costs microseconds).
    let cpu = cpu_seconds(&format!("/proc/{}/schedstat", child.id())).unwrap_or(f64::NAN);
    child.wait().ok()?;
    let wall = start.elapsed().as_secs_f64();
    let at = text.find("solution finished. Time = ")?;
    let rest = &text[at + "solution finished. Time = ".len()..];
    let time = rest.split_whitespace().next()?;
    // "0.013" or "1:02.500" (minutes).
    let mut secs = 0.0;
    for part in time.split(':') {
        secs = secs * 60.0 + part.parse::<f64>().ok()?;
    }
    Some(PopeyeRun {
        wall,
        cpu,
        printed: secs,
    })
}

/// Popeye's own solving time, repaired. Popeye 4.104 (`platform/unix/pytime.c`) prints whole
/// seconds of wall time from `time()` (off by one whenever a second boundary falls inside
/// the run) and milliseconds of CPU time from `clock()` modulo one second, so a 40 ms solve
/// may print as 1.040 s. Kept: the milliseconds, plus the whole seconds that bring them
/// nearest to the process's CPU time (which adds only its start-up), or to its wall time
/// where the CPU time could not be read.
pub(crate) fn popeye_own(run: &PopeyeRun) -> f64 {
    let millis = run.printed.fract();
    let reference = if run.cpu.is_finite() {
        run.cpu
    } else {
        run.wall
    };
    millis + (reference - millis).round().max(0.0)
}

/// The median (NaN for none).
pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}
