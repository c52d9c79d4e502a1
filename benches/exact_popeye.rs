//! The exact mode against Popeye on direct mates #2-#5: the problems of
//! `tests/data/exact/popeye_direct.tsv` (its README tells where they come from), in one run.
//!
//! Both answer the same question, one thread each: every first move that mates within N and
//! the shortest mate. chessd: `Solver::mate_in(N).find_all_keys(true).keys_within(true)` (the
//! shortest length, every key at it with a complete tree, then every key within N), the whole
//! call in process. Popeye 4.104: `stipulation #N` (every key within N with its threats and
//! variations), timed two ways: the wall time of the process (start-up, which has a floor of
//! some milliseconds, measured here on a mate in one and printed, and the writing of the
//! input included) and the `Time = … s` it prints itself (milliseconds of CPU time, with its
//! whole seconds repaired: see `popeye_own`). For each problem the
//! two are run `CHESSD_BENCH_RUNS` times (default 3) alternately, so that they see the same
//! machine load, and the medians taken; the table gives, per N, the median over the problems.
//! chessd is also timed with two threads (`--threads 2`), alternated with the other two.
//! chessd's answers are checked against the recorded Popeye answers as they are timed.
//!
//! Run with `POPEYE=/tmp/popeye/py cargo bench -p chessd-core --bench exact_popeye` (without
//! `POPEYE` only chessd is timed). `CHESSD_BENCH_SET=report|dev|all` (default `report`: the
//! set not looked at while tuning); `CHESSD_BENCH_VERBOSE=1` prints every problem;
//! `CHESSD_BENCH_ONLY=<id>` times one problem.

use std::{
    collections::{BTreeMap, BTreeSet},
    io::Write,
    process::{Command, Stdio},
    time::Instant,
};

use chessd_core::{solver::Solver, FenMode, Position};

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/exact/popeye_direct.tsv"
);

/// Popeye's input for `fen` with `stip` (English keywords, its piece letters).
fn popeye_input(fen: &str, stip: &str) -> String {
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

/// Runs Popeye on `input`: (wall seconds of the whole process, its own solving time in
/// seconds as printed), or `None` when it did not finish.
fn popeye(py: &str, input: &str) -> Option<(f64, f64)> {
    let start = Instant::now();
    let mut child = Command::new(py)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(input.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    let wall = start.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    let at = text.find("solution finished. Time = ")?;
    let rest = &text[at + "solution finished. Time = ".len()..];
    let time = rest.split_whitespace().next()?;
    // "0.013" or "1:02.500" (minutes).
    let mut secs = 0.0;
    for part in time.split(':') {
        secs = secs * 60.0 + part.parse::<f64>().ok()?;
    }
    Some((wall, secs))
}

/// Popeye's own solving time, repaired. Popeye 4.104 (`platform/unix/pytime.c`) prints whole
/// seconds of wall time from `time()` (off by one whenever a second boundary falls inside
/// the run) and milliseconds of CPU time from `clock()` modulo one second, so a 40 ms solve
/// may print as 1.040 s. Kept: the milliseconds, plus the whole seconds that bring them
/// nearest to the wall time less the start-up floor.
fn popeye_own(printed: f64, wall: f64, floor: f64) -> f64 {
    let millis = printed.fract();
    let seconds = (wall - floor - millis).round().max(0.0);
    millis + seconds
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// chessd's answer (shortest length, 0 for none; every key within N, UCI, sorted), its time
/// in seconds and the positions it searched.
fn chessd(pos: Position, n: u32, threads: usize) -> ((u32, BTreeSet<String>), f64, u64) {
    let start = Instant::now();
    let sol = Solver::new(pos)
        .mate_in(n)
        .threads(threads)
        .find_all_keys(true)
        .keys_within(true)
        .solve()
        .expect("solves");
    let secs = start.elapsed().as_secs_f64();
    assert!(sol.tree_complete);
    let keys = sol
        .keys_within
        .unwrap_or_default()
        .iter()
        .map(|&k| pos.uci(k))
        .collect();
    ((sol.mate.unwrap_or(0), keys), secs, sol.nodes)
}

/// Per N: chessd one thread, chessd two threads, Popeye wall, Popeye's own time (medians of
/// each problem), and the positions chessd searched with two threads per position searched
/// with one (the parallel search's extra work).
#[derive(Default)]
struct Row {
    one: Vec<f64>,
    two: Vec<f64>,
    extra: Vec<f64>,
    wall: Vec<f64>,
    own: Vec<f64>,
}

fn main() {
    let py = std::env::var("POPEYE").ok();
    let runs: usize = std::env::var("CHESSD_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let set = std::env::var("CHESSD_BENCH_SET").unwrap_or_else(|_| "report".into());
    let verbose = std::env::var("CHESSD_BENCH_VERBOSE").is_ok();
    let only = std::env::var("CHESSD_BENCH_ONLY").ok();
    let text = std::fs::read_to_string(DATA).expect("the data file");

    // Popeye's start-up floor: a mate in one, whose solving takes no measurable time.
    let floor = py.as_ref().map(|py| {
        let input = popeye_input("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "#1");
        median(
            (0..9)
                .filter_map(|_| popeye(py, &input).map(|(wall, _)| wall))
                .collect(),
        )
    });

    let mut table: BTreeMap<u32, Row> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        if set != "all" && f[1] != set {
            continue;
        }
        if only.as_ref().is_some_and(|id| id != f[0]) {
            continue;
        }
        let n: u32 = f[2].parse().expect("N");
        let pos = Position::from_fen(f[3], FenMode::Strict).expect("a FEN");
        let expected: (u32, BTreeSet<String>) = (
            f[4].parse().expect("a length"),
            f[5].split(' ')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        );
        let input = popeye_input(f[3], &format!("#{n}"));
        let (mut one, mut two, mut wall, mut own) = (vec![], vec![], vec![], vec![]);
        let (mut nodes_one, mut nodes_two) = (vec![], vec![]);
        for run in 0..runs {
            // Alternate who goes first, so that both see the same load.
            for step in 0..3 {
                match (step + run) % 3 {
                    0 => {
                        let (answer, secs, nodes) = chessd(pos, n, 1);
                        assert_eq!(answer, expected, "{}: chessd differs from Popeye", f[0]);
                        one.push(secs);
                        nodes_one.push(nodes as f64);
                    }
                    1 => {
                        let (answer, secs, nodes) = chessd(pos, n, 2);
                        assert_eq!(answer, expected, "{}: chessd differs from Popeye", f[0]);
                        two.push(secs);
                        nodes_two.push(nodes as f64);
                    }
                    _ => {
                        if let Some(py) = &py {
                            let (w, o) = popeye(py, &input).unwrap_or((f64::NAN, f64::NAN));
                            wall.push(w);
                            own.push(popeye_own(o, w, floor.unwrap_or(0.0)));
                        }
                    }
                }
            }
        }
        let (one, two, wall, own) = (median(one), median(two), median(wall), median(own));
        let (nodes_one, nodes_two) = (median(nodes_one), median(nodes_two));
        if verbose {
            println!(
                "{:28} #{n} chessd {:8.2} ms {:9} nodes (2 threads {:8.2} ms {:9} nodes)  Popeye {:8.1} ms wall, {:8.1} ms own",
                f[0],
                one * 1e3,
                nodes_one,
                two * 1e3,
                nodes_two,
                wall * 1e3,
                own * 1e3
            );
        }
        let row = table.entry(n).or_default();
        row.one.push(one);
        row.two.push(two);
        row.extra.push(nodes_two / nodes_one);
        row.wall.push(wall);
        row.own.push(own);
    }
    if let Some(floor) = floor {
        println!(
            "Popeye start-up floor (wall time of a mate in one, median of 9): {:.1} ms",
            floor * 1e3
        );
    }
    println!("set: {set}, {runs} runs per problem");
    println!(
        "| N | problems | chessd 1 thread (ms) | chessd 2 threads (ms) | 1 / 2 threads | nodes 2 / 1 threads | Popeye wall (ms) | Popeye own (ms) | Popeye wall / chessd | Popeye own / chessd |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (n, row) in table {
        let count = row.one.len();
        let (one, two) = (median(row.one) * 1e3, median(row.two) * 1e3);
        let (wall, own) = (median(row.wall) * 1e3, median(row.own) * 1e3);
        let extra = median(row.extra);
        println!(
            "| #{n} | {count} | {one:.3} | {two:.3} | {:.2}x | {extra:.2} | {wall:.1} | {own:.1} | {:.1}x | {:.1}x |",
            one / two,
            wall / one,
            own / one
        );
    }
}
