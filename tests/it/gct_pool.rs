//! `WorkerPool`: perft tasks shared between a local builtin worker (`chessd worker` as a child
//! process) and a TCP worker (`socat … EXEC:"chessd worker"`). The tasks are the core's
//! `perft::split` of a position of `tests/data/perft/perft_gct_stats.csv`; each result
//! times its occurrences must add up to the CSV row in every column, also when workers are
//! killed mid-task. Without socat the tests that need it are ignored (see build.rs).

use std::{
    collections::BTreeMap,
    sync::{
        atomic::{AtomicBool, Ordering::Relaxed},
        Arc,
    },
    time::{Duration, Instant},
};

use chessd_core::{
    perft::{split, PerftStats},
    FenMode, Position,
};
use chessd_server::{
    config::EndpointConfig,
    jobs::workers::{WorkerPool, WorkerPoolError, WorkerTask},
};
use serde_json::{json, Value};

use crate::common::{
    self,
    gct::{self, gct_row, kill9, GctRow, Socat, STATS_COLUMNS},
};

/// Builtin workers of the pool run the real `chessd`.
fn use_real_binary() {
    crate::common::builtin_runs_the_real_binary();
}

fn builtin() -> EndpointConfig {
    EndpointConfig {
        builtin: true,
        ..EndpointConfig::default()
    }
}

fn tcp(addr: &str) -> EndpointConfig {
    EndpointConfig {
        tcp: Some(addr.to_string()),
        ..EndpointConfig::default()
    }
}

fn pool(entries: Vec<(&str, EndpointConfig)>) -> WorkerPool {
    let config: BTreeMap<String, EndpointConfig> = entries
        .into_iter()
        .map(|(name, c)| (name.to_string(), c))
        .collect();
    WorkerPool::new(&config)
}

/// The tasks of `row` split `plies` below its position.
fn tasks(row: &GctRow, plies: u32) -> Vec<WorkerTask> {
    let pos = Position::from_fen(&row.fen, FenMode::Strict).unwrap();
    split(&pos, plies)
        .into_iter()
        .map(|(p, occurrences)| WorkerTask {
            fen: p.fen(),
            depth: row.depth - plies,
            occurrences,
        })
        .collect()
}

/// Runs `tasks` on `pool`, calling `during(done_so_far)` after each result, and returns the
/// total (each result times its occurrences); every task must be reported exactly once.
async fn total(
    pool: &WorkerPool,
    tasks: &[WorkerTask],
    mut during: impl FnMut(usize),
) -> Result<PerftStats, WorkerPoolError> {
    let mut sum = PerftStats::default();
    let mut seen = vec![false; tasks.len()];
    let mut done = 0;
    pool.run(
        tasks.to_vec(),
        Arc::new(AtomicBool::new(false)),
        |i, stats| {
            assert!(!seen[i], "task {i} reported twice");
            seen[i] = true;
            sum += stats * tasks[i].occurrences;
            done += 1;
            during(done);
        },
    )
    .await?;
    assert!(seen.iter().all(|&s| s), "every task reported");
    Ok(sum)
}

fn assert_row(sum: &PerftStats, row: &GctRow) {
    let got = sum.to_array();
    for (i, column) in STATS_COLUMNS.iter().enumerate() {
        assert_eq!(
            got[i], row.stats[i],
            "{} d{} {column}",
            row.position, row.depth
        );
    }
    assert_eq!(sum.total_checks(), row.total_checks);
    assert_eq!(sum.total_mates(), row.total_mates);
}

#[tokio::test]
#[cfg_attr(
    not(has_socat),
    ignore = "socat is not installed (apt-get install socat)"
)]
async fn a_builtin_and_a_tcp_worker_reproduce_csv_rows() {
    use_real_binary();
    let socat = Socat::start("--hash 16");
    let pool = pool(vec![("local", builtin()), ("remote", tcp(&socat.addr))]);
    assert_eq!(pool.names(), ["local", "remote"]);
    for (position, depth, plies) in [("kiwipete", 4, 2), ("cpw-pos6", 5, 1), ("start", 5, 2)] {
        let row = gct_row(position, depth);
        let tasks = tasks(&row, plies);
        let sum = total(&pool, &tasks, |_| {}).await.unwrap();
        assert_row(&sum, &row);
    }
    // Both workers took part, each started once and kept between runs.
    for status in pool.status() {
        assert!(status.tasks_done > 0, "{status:?}");
        assert_eq!((status.connects, status.failures), (1, 0), "{status:?}");
        assert!(status.connected, "{status:?}");
    }
    assert!(pool.status()[0].pid.is_some());
    pool.close().await;
    assert!(pool.status().iter().all(|s| !s.connected));
}

#[tokio::test]
#[cfg_attr(
    not(has_socat),
    ignore = "socat is not installed (apt-get install socat)"
)]
async fn killed_workers_lose_no_task() {
    use_real_binary();
    let socat = Socat::start("--hash 16");
    let pool = pool(vec![("local", builtin()), ("remote", tcp(&socat.addr))]);
    // 48 tasks of depth 4 below Kiwipete: some milliseconds each.
    let row = gct_row("kiwipete", 5);
    let tasks = tasks(&row, 1);
    let mut killed = Vec::new();
    let sum = total(&pool, &tasks, |done| {
        // After a few results both workers are busy with their next task: kill -9 both, the
        // builtin process and the one socat started.
        if done == 4 {
            let local = pool.status()[0].pid.expect("the builtin worker runs");
            kill9(local);
            killed.push(local);
            for pid in socat.worker_pids() {
                kill9(pid);
                killed.push(pid);
            }
        }
    })
    .await
    .unwrap();
    assert_row(&sum, &row);
    assert!(killed.len() >= 2, "{killed:?}");
    // Each worker lost its connection at least once and was restarted or reconnected.
    for status in pool.status() {
        assert!(status.failures >= 1, "{status:?}");
        assert!(status.connects >= 2, "{status:?}");
    }
}

#[tokio::test]
#[cfg_attr(
    not(has_socat),
    ignore = "socat is not installed (apt-get install socat)"
)]
async fn cancel_returns_at_once_and_the_workers_serve_the_next_run() {
    use_real_binary();
    let socat = Socat::start("--hash 16");
    let pool = pool(vec![("local", builtin()), ("remote", tcp(&socat.addr))]);
    // Start position depth 8 split at 2 plies: minutes of work.
    let row = gct_row("start", 8);
    let big = tasks(&row, 2);
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let setter = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        flag.store(true, Relaxed);
        Instant::now()
    });
    let result = pool.run(big, cancel, |_, _| {}).await;
    let returned = Instant::now();
    let cancelled_at = setter.await.unwrap();
    assert_eq!(result, Err(WorkerPoolError::Cancelled));
    let delay = returned.duration_since(cancelled_at);
    assert!(delay < Duration::from_millis(100), "{delay:?}");
    // The busy workers were reset: the next run gets exact results from the same processes.
    let row = gct_row("cpw-pos6", 4);
    let sum = total(&pool, &tasks(&row, 1), |_| {}).await.unwrap();
    assert_row(&sum, &row);
    for status in pool.status() {
        assert_eq!((status.connects, status.failures), (1, 0), "{status:?}");
    }
}

#[tokio::test]
async fn workers_that_cannot_be_reached_fail_the_run_clearly() {
    use_real_binary();
    // A port nobody listens on, and a program that exits before saying ready.
    let closed = format!("127.0.0.1:{}", gct::free_port());
    let quitter = EndpointConfig {
        command: Some("true".to_string()),
        ..EndpointConfig::default()
    };
    let pool = pool(vec![("gone", tcp(&closed)), ("quitter", quitter)]);
    let row = gct_row("start", 2);
    let started = Instant::now();
    match total(&pool, &tasks(&row, 1), |_| {}).await {
        Err(WorkerPoolError::AllWorkersGone { left, reasons }) => {
            assert_eq!(left, 20);
            assert!(reasons.contains("gone: cannot connect"), "{reasons}");
            assert!(
                reasons.contains("quitter: closed the connection"),
                "{reasons}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// A perft job through the REST API of the real server, configured (by environment) with a
/// builtin worker and a TCP worker, gives the CSV row.
#[actix_web::test]
#[cfg_attr(
    not(has_socat),
    ignore = "socat is not installed (apt-get install socat)"
)]
async fn a_perft_job_on_the_configured_workers_gives_the_csv_row() {
    let socat = Socat::start("--hash 16");
    let server = common::Server::start(&[
        ("CHESSD_GCT_WORKERS__LOCAL__BUILTIN", "true"),
        ("CHESSD_GCT_WORKERS__REMOTE__TCP", &socat.addr),
    ]);
    let c = common::client();
    let row = gct_row("kiwipete", 5);
    let body = json!({"fen": row.fen, "depth": row.depth, "stats": true});
    let (status, created) =
        common::post_json(&c, &format!("{}/v1/perft", server.base), None, &body).await;
    assert_eq!(status, 202, "{created}");
    assert_eq!(created["workers"], json!(["local", "remote"]));
    let uri = format!(
        "{}/v1/perft/{}",
        server.base,
        created["id"].as_str().unwrap()
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let view = loop {
        let (status, view) = common::get_json(&c, &uri).await;
        assert_eq!(status, 200, "{view}");
        if ["done", "cancelled", "failed"].contains(&view["state"].as_str().unwrap()) {
            break view;
        }
        assert!(Instant::now() < deadline, "the job did not end: {view}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(view["state"], "done", "{view}");
    let r = &view["result"];
    let n = |column: &str| row.stats[STATS_COLUMNS.iter().position(|c| *c == column).unwrap()];
    let protocol: Vec<(&str, u64)> = row.protocol_counts();
    for (field, expected) in [
        ("nodes", n("nodes")),
        ("captures", n("captures")),
        ("enpassants", n("enpassants")),
        ("castles", n("castles")),
        ("promotions", n("promotions")),
        ("checks", protocol[5].1),
        ("discovered_checks", protocol[6].1),
        ("double_checks", protocol[7].1),
        ("checkmates", protocol[8].1),
    ] {
        assert_eq!(r[field].as_u64(), Some(expected), "{field}: {r}");
    }
    // The workers report the eight classes exactly; when the job shows them, they match.
    if r["classes"] != Value::Null {
        for (class, expected) in row.class_counts() {
            assert_eq!(r["classes"][class].as_u64(), Some(expected), "{class}: {r}");
        }
    }
}

/// `run_blocking` from a plain thread (as a job pool thread calls it), on a builtin worker.
#[test]
fn run_blocking_serves_plain_threads() {
    use_real_binary();
    let pool = pool(vec![("local", builtin())]);
    let row = gct_row("cpw-pos6", 4);
    let tasks = tasks(&row, 1);
    let mut sum = PerftStats::default();
    let mut count = 0;
    pool.run_blocking(
        tasks.clone(),
        Arc::new(AtomicBool::new(false)),
        |i, stats| {
            sum += stats * tasks[i].occurrences;
            count += 1;
        },
    )
    .unwrap();
    assert_eq!(count, tasks.len());
    assert_row(&sum, &row);
}
