//! The exact mode against Popeye on direct mates #2-#5: the problems of
//! `tests/data/exact/popeye_direct.tsv` (its README tells where they come from), in one run.
//!
//! Both answer the same question, one thread each: every first move that mates within N and
//! the shortest mate. chessd: `Solver::mate_in(N).find_all_keys(true).keys_within(true)` (the
//! shortest length, every key at it with a complete tree, then every key within N), the whole
//! call in process. Popeye 4.104: `stipulation #N` (every key within N with its threats and
//! variations) in a process of its own. Each is timed by the wall clock and by the CPU time
//! the kernel counts (chessd's solving thread by `clock_gettime`, Popeye's whole process, with
//! its start-up, from its `/proc/<pid>/schedstat` as it exits; the start-up floor is measured
//! on a mate in one before each problem): on a shared
//! machine the wall times mostly measure waiting for a core, the CPU times do not. Popeye's
//! own printed `Time` is shown too (repaired: see `popeye_own`). For each problem chessd with
//! one thread, chessd with two (`--threads 2`) and Popeye run `CHESSD_BENCH_RUNS` times
//! (default 3), taking turns so that they see the same load; the medians per problem are
//! taken, and the table gives their medians per N, with the positions searched by two threads
//! per position searched by one. Each chessd timing follows one untimed run of the same solve
//! (a Popeye process may just have emptied the caches). chessd's answers are checked against
//! the recorded Popeye answers as they are timed.
//!
//! Run with `POPEYE=/tmp/popeye/py cargo bench -p chessd-core --bench exact_popeye` (without
//! `POPEYE` only chessd is timed). `CHESSD_BENCH_SET=report|dev|all` (default `report`: the
//! set not looked at while tuning); `CHESSD_BENCH_VERBOSE=1` prints every problem;
//! `CHESSD_BENCH_ONLY=<id>` times one problem.

use std::{
    collections::{BTreeMap, BTreeSet},
    time::Instant,
};

use chessd_core::{solver::Solver, FenMode, Position};

#[path = "support/env.rs"]
mod env;
#[path = "support/popeye.rs"]
mod popeye;
use popeye::{median, popeye, popeye_input, popeye_own, PopeyeRun};

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/exact/popeye_direct.tsv"
);

/// CPU seconds of the calling thread (`CLOCK_THREAD_CPUTIME_ID`: exact to the call, where
/// the kernel's schedstat counts only at scheduler ticks).
#[allow(unsafe_code)]
fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc == 0 {
        ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
    } else {
        f64::NAN
    }
}

/// What one chessd solve gave and took.
struct ChessdRun {
    /// The shortest length (0: none) and every key within N (UCI, sorted).
    answer: (u32, BTreeSet<String>),
    /// Wall seconds.
    wall: f64,
    /// CPU seconds of the calling thread (with one thread the whole search runs on it).
    cpu: f64,
    /// Positions searched.
    nodes: u64,
}

/// Solves `#n` from `pos` as the exact mode does for `--mate n --within`.
fn chessd(pos: Position, n: u32, threads: usize) -> ChessdRun {
    let cpu_start = thread_cpu_seconds();
    let start = Instant::now();
    let sol = Solver::new(pos)
        .mate_in(n)
        .threads(threads)
        .find_all_keys(true)
        .keys_within(true)
        .solve()
        .expect("solves");
    let wall = start.elapsed().as_secs_f64();
    let cpu = thread_cpu_seconds() - cpu_start;
    assert!(sol.tree_complete);
    let keys = sol
        .keys_within
        .unwrap_or_default()
        .iter()
        .map(|&k| pos.uci(k))
        .collect();
    ChessdRun {
        answer: (sol.mate.unwrap_or(0), keys),
        wall,
        cpu,
        nodes: sol.nodes,
    }
}

/// Medians per problem, gathered per N.
#[derive(Default)]
struct Row {
    /// chessd, one thread: wall and CPU seconds.
    one: Vec<f64>,
    one_cpu: Vec<f64>,
    /// chessd, two threads: wall seconds.
    two: Vec<f64>,
    /// Positions searched with two threads per position searched with one (the parallel
    /// search's extra work).
    extra: Vec<f64>,
    /// Popeye: wall, CPU and its own printed (repaired) seconds.
    wall: Vec<f64>,
    cpu: Vec<f64>,
    own: Vec<f64>,
}

fn main() {
    let py = std::env::var("POPEYE").ok();
    let runs: usize = env::env_or("CHESSD_BENCH_RUNS", 3);
    let set = std::env::var("CHESSD_BENCH_SET").unwrap_or_else(|_| "report".into());
    let verbose = std::env::var("CHESSD_BENCH_VERBOSE").is_ok();
    let only = std::env::var("CHESSD_BENCH_ONLY").ok();
    let text = std::fs::read_to_string(DATA).expect("the data file");

    // Popeye's start-up floor: a mate in one, whose solving takes no measurable time, run
    // once before each problem's runs (so under the same load).
    let trivial = popeye_input("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "#1");
    let (mut floor_wall, mut floor_cpu) = (Vec::new(), Vec::new());
    let mut floor_run = || {
        if let Some(run) = py.as_ref().and_then(|py| popeye(py, &trivial)) {
            floor_wall.push(run.wall);
            floor_cpu.push(run.cpu);
        }
    };

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
        floor_run();
        let mut one: Vec<ChessdRun> = Vec::new();
        let mut two: Vec<ChessdRun> = Vec::new();
        let mut theirs: Vec<PopeyeRun> = Vec::new();
        for run in 0..runs {
            // Take turns, so that all three see the same load.
            for step in 0..3 {
                match (step + run) % 3 {
                    t @ (0 | 1) => {
                        let threads = t + 1;
                        // Once untimed first: a Popeye process may just have emptied the
                        // caches, which the sub-millisecond solves would otherwise measure.
                        chessd(pos, n, threads);
                        let ours = chessd(pos, n, threads);
                        assert_eq!(
                            ours.answer, expected,
                            "{}: chessd differs from Popeye",
                            f[0]
                        );
                        if threads == 1 {
                            one.push(ours)
                        } else {
                            two.push(ours)
                        }
                    }
                    _ => {
                        if let Some(run) = py.as_ref().and_then(|py| popeye(py, &input)) {
                            theirs.push(run);
                        }
                    }
                }
            }
        }
        let of = |v: &[ChessdRun], get: fn(&ChessdRun) -> f64| median(v.iter().map(get).collect());
        let of_popeye = |get: &dyn Fn(&PopeyeRun) -> f64| median(theirs.iter().map(get).collect());
        let (one_wall, one_cpu) = (of(&one, |r| r.wall), of(&one, |r| r.cpu));
        let two_wall = of(&two, |r| r.wall);
        let extra = of(&two, |r| r.nodes as f64) / of(&one, |r| r.nodes as f64);
        let (wall, cpu, own) = (
            of_popeye(&|r| r.wall),
            of_popeye(&|r| r.cpu),
            of_popeye(&popeye_own),
        );
        if verbose {
            println!(
                "{:28} #{n} chessd {:8.2} ms wall {:8.2} ms CPU {:9} nodes (2 threads {:8.2} ms)  Popeye {:8.1} ms wall {:8.1} ms CPU {:8.1} ms own",
                f[0],
                one_wall * 1e3,
                one_cpu * 1e3,
                of(&one, |r| r.nodes as f64),
                two_wall * 1e3,
                wall * 1e3,
                cpu * 1e3,
                own * 1e3
            );
        }
        let row = table.entry(n).or_default();
        row.one.push(one_wall);
        row.one_cpu.push(one_cpu);
        row.two.push(two_wall);
        row.extra.push(extra);
        row.wall.push(wall);
        row.cpu.push(cpu);
        row.own.push(own);
    }
    if py.is_some() {
        println!(
            "Popeye start-up floor (a mate in one, median of {} runs, one before each problem): {:.1} ms wall, {:.1} ms CPU",
            floor_wall.len(),
            median(floor_wall) * 1e3,
            median(floor_cpu) * 1e3
        );
    }
    println!(
        "set: {set}, {runs} runs per problem; times in ms, medians over the problems of each N"
    );
    println!(
        "| N | problems | chessd wall | chessd CPU | chessd 2 threads wall | 1 / 2 threads | nodes 2 / 1 threads | Popeye wall | Popeye CPU | Popeye own | Popeye / chessd, wall | Popeye / chessd, CPU | Popeye own / chessd CPU |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (n, row) in table {
        let count = row.one.len();
        let (one, one_cpu, two) = (median(row.one), median(row.one_cpu), median(row.two));
        let (wall, cpu, own) = (median(row.wall), median(row.cpu), median(row.own));
        println!(
            "| #{n} | {count} | {:.3} | {:.3} | {:.3} | {:.2}x | {:.2} | {:.1} | {:.1} | {:.1} | {:.1}x | {:.1}x | {:.1}x |",
            one * 1e3,
            one_cpu * 1e3,
            two * 1e3,
            one / two,
            median(row.extra),
            wall * 1e3,
            cpu * 1e3,
            own * 1e3,
            wall / one,
            cpu / one_cpu,
            own / one_cpu
        );
    }
}
