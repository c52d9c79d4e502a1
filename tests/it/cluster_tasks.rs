//! The shared perft queue of a cluster, on a real PostgreSQL (started by the test): a perft job
//! started on one node is counted by every node's task threads and by a remote
//! `chessd worker --server` (the Grand Chess Tree's client, over the work API), while a worker
//! node and the remote worker are killed with `kill -9` and a lease is abandoned: their tasks
//! are leased again, and the job ends with the Grand Chess Tree's reference statistics, each
//! task counted once. A result submitted twice is counted once (`counted: false`), a renewal
//! after the result is refused (`task_gone`), the work API wants a worker token, and a
//! cancelled job's open tasks leave the queue.

use std::{
    collections::BTreeSet,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use chessd_core::{FenMode, Position};
use serde_json::{json, Value};

use crate::common::{
    self, client,
    cluster::{settled, start_node},
    gct, get_json,
    postgres::PgServer,
    Server,
};

const TOKEN: &str = "worker-secret";

fn node(pg: &PgServer) -> Server {
    // Leases long enough that a node slowed by the counting (two cores for two nodes, two
    // workers and PostgreSQL) is not taken for dead.
    start_node(
        pg,
        3000,
        &[
            ("CHESSD_CLUSTER__PERFT_TASK_DEPTH", "4"),
            ("CHESSD_CLUSTER__TASK_THREADS", "1"),
            ("CHESSD_CLUSTER__TASK_LEASE_MS", "2000"),
            ("CHESSD_AUTH__WORKER_TOKENS", "[\"worker-secret\"]"),
        ],
    )
}

/// A remote `chessd worker --server`, killed when dropped.
struct RemoteWorker(Child);

impl RemoteWorker {
    fn start(server: &str, name: &str) -> RemoteWorker {
        let child = Command::new(env!("CARGO_BIN_EXE_chessd"))
            .args(["worker", "--server", server, "--name", name, "--hash", "16"])
            .env("CHESSD_WORKER_TOKEN", TOKEN)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        RemoteWorker(child)
    }

    fn kill9(&mut self) {
        let _ = Command::new("kill")
            .args(["-9", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

impl Drop for RemoteWorker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// POSTs JSON to the work API with `token`; the status and the body (`Null` when empty).
async fn work(c: &awc::Client, url: &str, token: &str, body: &Value) -> (u16, Value) {
    let mut resp = c
        .post(url)
        .bearer_auth(token)
        .send_json(body)
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let body = resp.json::<Value>().await.unwrap_or(Value::Null);
    (status, body)
}

/// Leases a task through `base` as worker `name`, waiting for one up to 30 s.
async fn lease(c: &awc::Client, base: &str, name: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, v) = work(
            c,
            &format!("{base}/v1/work/lease"),
            TOKEN,
            &json!({ "worker": name }),
        )
        .await;
        if status == 200 {
            return v;
        }
        assert_eq!(status, 204, "{v}");
        assert!(Instant::now() < deadline, "no task to lease");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Who counted the job's finished tasks so far (read from the store itself).
async fn workers_of(db: &sqlx::PgPool, job: &uuid::Uuid) -> BTreeSet<String> {
    sqlx::query_scalar::<_, Option<String>>("SELECT DISTINCT worker FROM job_tasks WHERE job = $1")
        .bind(job.as_bytes().as_slice())
        .fetch_all(db)
        .await
        .unwrap()
        .into_iter()
        .flatten()
        .collect()
}

async fn open_tasks(db: &sqlx::PgPool, job: &uuid::Uuid) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM perft_tasks WHERE job = $1")
        .bind(job.as_bytes().as_slice())
        .fetch_one(db)
        .await
        .unwrap()
}

#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn shared_perft_tasks_are_taken_by_every_node_and_worker_and_counted_once() {
    let pg = PgServer::start();
    let (a, mut b) = (node(&pg), Some(node(&pg)));
    let c = client();
    settled(&c, &a.base, 2).await;
    let b_base = b.as_ref().unwrap().base.clone();
    let db = sqlx::PgPool::connect(&pg.url).await.unwrap();

    // The work API wants a worker token, and has nothing to give yet.
    let lease_url = format!("{}/v1/work/lease", a.base);
    let (status, v) = work(&c, &lease_url, "nope", &json!({ "worker": "x" })).await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (403, &json!("forbidden")),
        "{v}"
    );
    let (status, v) = work(&c, &lease_url, TOKEN, &json!({ "worker": "a b" })).await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (400, &json!("invalid_request")),
        "{v}"
    );
    let (status, _) = work(&c, &lease_url, TOKEN, &json!({ "worker": "x" })).await;
    assert_eq!(status, 204);

    let mut remote = RemoteWorker::start(&b_base, "remote");
    let (status, job) = common::post_json(
        &c,
        &format!("{}/v1/perft", a.base),
        None,
        &json!({"depth": 6, "stats": true}),
    )
    .await;
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let job_id = uuid::Uuid::parse_str(&id).unwrap();
    let view_url = format!("{}/v1/perft/{id}", a.base);

    // A probe worker leases two tasks: it counts the first and submits it twice; it abandons
    // the second, which must be leased again for the job to end.
    let first = lease(&c, &b_base, "probe").await;
    let abandoned = lease(&c, &a.base, "probe").await;
    assert_ne!(first["task"], abandoned["task"]);
    assert_eq!(first["job"], json!(id));
    assert_eq!(first["depth"], 4);
    let pos = Position::from_fen(first["fen"].as_str().unwrap(), FenMode::Lenient).unwrap();
    let stats = chessd_core::perft::perft_stats(&pos, 4);
    let task_url = format!("{b_base}/v1/work/{id}/{}", first["task"]);
    let result = json!({ "worker": "probe", "lease": first["lease"], "stats": stats });
    let (status, v) = work(&c, &format!("{task_url}/result"), TOKEN, &result).await;
    assert_eq!((status, &v), (200, &json!({ "counted": true })));
    let (status, v) = work(&c, &format!("{task_url}/result"), TOKEN, &result).await;
    assert_eq!((status, &v), (200, &json!({ "counted": false })));
    let renew = json!({ "lease": first["lease"] });
    let (status, v) = work(&c, &format!("{task_url}/renew"), TOKEN, &renew).await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (409, &json!("task_gone")),
        "{v}"
    );

    // Once a quarter of the tasks are done, node b and the remote worker die with their leases;
    // a second remote worker joins through node a.
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut seen = BTreeSet::new();
    loop {
        let (_, v) = get_json(&c, &view_url).await;
        let (done, total) = (
            v["progress"]["done"].as_u64().unwrap_or(0),
            v["progress"]["total"].as_u64().unwrap_or(0),
        );
        seen.extend(workers_of(&db, &job_id).await);
        if total > 0 && done >= total / 4 {
            assert!(done < total, "the job ended before the kills: {v}");
            break;
        }
        assert!(Instant::now() < deadline, "the job is stuck: {v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let b_pid = b.as_ref().unwrap().pid().to_string();
    let _ = Command::new("kill").args(["-9", &b_pid]).status();
    drop(b.take());
    remote.kill9();
    let _second = RemoteWorker::start(&a.base, "second");

    let deadline = Instant::now() + Duration::from_secs(180);
    let view = loop {
        let (status, v) = get_json(&c, &view_url).await;
        assert_eq!(status, 200, "{v}");
        if v["state"] == "done" {
            break v;
        }
        assert!(
            ["queued", "running"].contains(&v["state"].as_str().unwrap()),
            "{v}"
        );
        seen.extend(workers_of(&db, &job_id).await);
        assert!(Instant::now() < deadline, "the job did not end: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // Every task once: the reference statistics exactly.
    gct::assert_gct_row(&view["result"], &gct::gct_row("start", 6));
    assert_eq!(
        view["progress"]["done"], view["progress"]["total"],
        "{view}"
    );
    // Both nodes' threads and the workers counted tasks.
    assert!(seen.contains("worker:probe"), "{seen:?}");
    assert!(seen.contains("worker:remote"), "{seen:?}");
    assert!(
        seen.iter().filter(|w| !w.starts_with("worker:")).count() >= 2,
        "both nodes' threads: {seen:?}"
    );
    assert_eq!(open_tasks(&db, &job_id).await, 0);
    let metrics = c
        .get(format!("{}/metrics", a.base))
        .send()
        .await
        .unwrap()
        .body()
        .await
        .unwrap();
    let metrics = String::from_utf8_lossy(&metrics);
    assert!(
        metrics.contains("chessd_perft_tasks_total{outcome=\"counted\"}"),
        "{metrics}"
    );

    // A cancelled job's open tasks leave the queue, and the queue workers go idle.
    let (status, job) = common::post_json(
        &c,
        &format!("{}/v1/perft", a.base),
        None,
        &json!({"depth": 8}),
    )
    .await;
    assert_eq!(status, 202, "{job}");
    let id = uuid::Uuid::parse_str(job["id"].as_str().unwrap()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while open_tasks(&db, &id).await == 0 {
        assert!(Instant::now() < deadline, "no task queued");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cancel = format!("{}/v1/perft/{id}", a.base);
    let secret = job["secret"].as_str().unwrap();
    let (status, v) = common::delete_authed(&c, &cancel, secret).await;
    assert_eq!((status, &v["state"]), (200, &json!("cancelled")), "{v}");
    assert_eq!(open_tasks(&db, &id).await, 0);
    let (status, _) = work(&c, &lease_url, TOKEN, &json!({ "worker": "x" })).await;
    assert_eq!(status, 204);
    db.close().await;
}

/// A job runs while its creation is still on its way to the store: its coordinator, finding
/// no row for the job yet, waits for it and folds the finished tasks in, instead of taking the
/// job for another node's and stopping (which left the job shown as queued forever, with no
/// node to take it over).
#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn a_coordinator_waits_for_the_row_of_its_job() {
    use std::sync::{atomic::AtomicBool, Arc};

    use chessd_server::{
        jobs::{
            record,
            workers::{
                queue_runner::QueueRunner,
                runner::{PerftTask, TaskBatch, TaskRunner},
            },
        },
        store::perft_tasks::{Leased, Submission, Submitted},
    };

    let pg = PgServer::start();
    let store =
        chessd_server::store::Store::open(&pg.url, chessd_server::store::SqliteSync::Full, 512)
            .await
            .unwrap();
    let queue = store.task_queue().expect("PostgreSQL has the task queue");
    let runner = QueueRunner::new(queue.clone(), "n1", tokio::runtime::Handle::current(), 5);
    let job = uuid::Uuid::new_v4();
    let fens = [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1",
    ];
    let tasks: Vec<PerftTask> = fens
        .iter()
        .enumerate()
        .map(|(index, fen)| PerftTask {
            index,
            fen: fen.to_string(),
            depth: 2,
            occurrences: 1,
        })
        .collect();
    let coordinator = tokio::task::spawn_blocking(move || {
        let (interrupted, unverified) = (AtomicBool::new(false), AtomicBool::new(false));
        let mut done = Vec::new();
        let batch = TaskBatch {
            job,
            tasks,
            stats: false,
            cancel: Arc::new(AtomicBool::new(false)),
            interrupted: &interrupted,
            unverified: &unverified,
        };
        let ended = runner.run(batch, &mut |j, stats| done.push((j, stats.nodes)));
        (ended, done, interrupted.into_inner())
    });

    // The tasks are queued and counted while the job has no row yet.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut counted = 0;
    while counted < fens.len() {
        assert!(Instant::now() < deadline, "the tasks were not queued");
        let Leased::Task(task) = queue.lease("t", "node:t", 10_000, None).await.unwrap() else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let pos = Position::from_fen(&task.fen, FenMode::Lenient).unwrap();
        let stats = chessd_core::perft::perft_stats(&pos, task.depth);
        let result = record::task(&stats);
        let submitted = queue
            .submit(&Submission {
                job: &job,
                task: task.task,
                lease: &task.lease,
                owner: "node:t",
                worker: "t",
                result: &result,
            })
            .await
            .unwrap();
        assert_eq!(submitted, Submitted::Counted);
        counted += 1;
    }
    // The coordinator polls several times before the creation commits.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let db = sqlx::PgPool::connect(&pg.url).await.unwrap();
    sqlx::query(
        "INSERT INTO jobs (id, kind, request_key, request, state, secret, created_ms, \
         updated_ms, node) VALUES ($1, 'perft', 'k', '{}', 'running', '\\x00', 0, 0, 'n1')",
    )
    .bind(job.as_bytes().as_slice())
    .execute(&db)
    .await
    .unwrap();

    let (ended, mut done, interrupted) = tokio::time::timeout(Duration::from_secs(30), coordinator)
        .await
        .expect("the coordinator did not end")
        .unwrap();
    assert_eq!(ended, Ok(()));
    assert!(!interrupted, "the job was taken for another node's");
    done.sort_unstable();
    // 20 replies to each of 1. e4 and 1. d4, then 20 or more moves for White after each.
    assert_eq!(done, vec![(0, 600), (1, 560)]);
    db.close().await;
    store.close().await;
}

/// Issue 27, the work API's row: a result counts only under a lease the submitting worker's
/// token holds (not for a task never leased to it, not under another worker's lease), leases
/// are random and capped per token, and a worker that submits wrong counts cannot make a job
/// end with a wrong answer: the job's node counts a sample of each remote worker's results
/// again and fails the job (`result_mismatch`); the wrong result is never answered to a later
/// request, while a job the nodes counted alone is.
#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn the_work_api_counts_only_held_leases_and_never_accepts_a_wrong_count() {
    const OTHER: &str = "other-secret";
    let pg = PgServer::start();
    let a = start_node(
        &pg,
        3000,
        &[
            ("CHESSD_CLUSTER__PERFT_TASK_DEPTH", "4"),
            ("CHESSD_CLUSTER__TASK_THREADS", "1"),
            ("CHESSD_CLUSTER__TASK_LEASE_MS", "5000"),
            (
                "CHESSD_AUTH__WORKER_TOKENS",
                "[\"worker-secret\", \"other-secret\"]",
            ),
        ],
    );
    let c = client();
    settled(&c, &a.base, 1).await;
    let db = sqlx::PgPool::connect(&pg.url).await.unwrap();
    let request = json!({"depth": 6, "stats": true});
    let (status, job) =
        common::post_json(&c, &format!("{}/v1/perft", a.base), None, &request).await;
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let job_id = uuid::Uuid::parse_str(&id).unwrap();

    // A bad worker takes leases: random ones, at most cluster.worker_max_leases (4) at once.
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(lease(&c, &a.base, "bad").await);
    }
    let leases: BTreeSet<String> = held
        .iter()
        .map(|t| {
            t["lease"]
                .as_str()
                .expect("a lease is a string")
                .to_string()
        })
        .collect();
    assert_eq!(leases.len(), 4);
    assert!(
        leases.iter().all(|l| uuid::Uuid::parse_str(l).is_ok()),
        "leases are random UUIDs: {leases:?}"
    );
    let lease_url = format!("{}/v1/work/lease", a.base);
    let (status, v) = work(&c, &lease_url, TOKEN, &json!({ "worker": "bad" })).await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (429, &json!("quota_exceeded")),
        "{v}"
    );
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("cluster.worker_max_leases"));

    // Results that name no lease the token holds are refused and counted nowhere: a task never
    // leased (the queue's last), a held task under a made-up lease, and another token's lease.
    let stats_of = |task: &Value| {
        let pos = Position::from_fen(task["fen"].as_str().unwrap(), FenMode::Lenient).unwrap();
        chessd_core::perft::perft_stats(&pos, task["depth"].as_u64().unwrap() as u32)
    };
    let first = &held[0];
    let made_up = uuid::Uuid::new_v4().to_string();
    let never_leased = json!({"worker": "bad", "lease": made_up, "stats": stats_of(first)});
    let (status, v) = work(
        &c,
        &format!("{}/v1/work/{id}/399/result", a.base),
        TOKEN,
        &never_leased,
    )
    .await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (409, &json!("lease_not_held")),
        "{v}"
    );
    let first_url = format!("{}/v1/work/{id}/{}", a.base, first["task"]);
    let (status, v) = work(&c, &format!("{first_url}/result"), TOKEN, &never_leased).await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (409, &json!("lease_not_held")),
        "{v}"
    );
    let stolen = json!({"worker": "thief", "lease": first["lease"], "stats": stats_of(first)});
    let (status, v) = work(&c, &format!("{first_url}/result"), OTHER, &stolen).await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (409, &json!("lease_not_held")),
        "{v}"
    );
    let (status, _) = work(
        &c,
        &format!("{first_url}/renew"),
        OTHER,
        &json!({"lease": first["lease"]}),
    )
    .await;
    assert_eq!(status, 409);
    let counted: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM job_tasks WHERE job = $1 AND worker IN ('worker:bad', 'worker:thief')",
    )
    .bind(job_id.as_bytes().as_slice())
    .fetch_one(&db)
    .await
    .unwrap();
    assert_eq!(counted, 0, "refused results were counted");

    // Under its own leases the bad worker's wrong counts are taken...
    for task in &held {
        let mut stats = stats_of(task);
        stats.nodes += 1;
        let body = json!({"worker": "bad", "lease": task["lease"], "stats": stats});
        let url = format!("{}/v1/work/{id}/{}/result", a.base, task["task"]);
        let (status, v) = work(&c, &url, TOKEN, &body).await;
        assert_eq!((status, &v), (200, &json!({ "counted": true })), "{v}");
    }
    // ...but the job's node counts some again before it accepts the job: it fails.
    let view_url = format!("{}/v1/perft/{id}", a.base);
    let view = wait_end(&c, &view_url).await;
    assert_eq!(view["state"], "failed", "{view}");
    assert_eq!(view["error"]["code"], "result_mismatch", "{view}");
    assert!(
        view["error"]["message"]
            .as_str()
            .unwrap()
            .contains("worker:bad"),
        "{view}"
    );
    eprintln!(
        "a job with wrong remote counts: {}",
        view["error"]["message"]
    );

    // The same request again is not answered from it: it is counted anew, by the node alone,
    // and that (verified) result is the one answered from then on.
    let (status, again) =
        common::post_json(&c, &format!("{}/v1/perft", a.base), None, &request).await;
    assert_eq!((status, &again["cached"]), (202, &json!(false)), "{again}");
    let again_url = format!("{}/v1/perft/{}", a.base, again["id"].as_str().unwrap());
    let done = wait_end(&c, &again_url).await;
    assert_eq!(done["state"], "done", "{done}");
    gct::assert_gct_row(&done["result"], &gct::gct_row("start", 6));
    let (status, cached) =
        common::post_json(&c, &format!("{}/v1/perft", a.base), None, &request).await;
    assert_eq!((status, &cached["cached"]), (202, &json!(true)), "{cached}");
    gct::assert_gct_row(&cached["result"], &gct::gct_row("start", 6));
    db.close().await;
}

/// Polls a job until it ends (180 s at most).
async fn wait_end(c: &awc::Client, url: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let (status, v) = get_json(c, url).await;
        assert_eq!(status, 200, "{v}");
        if ["done", "cancelled", "failed"].contains(&v["state"].as_str().unwrap_or("")) {
            return v;
        }
        assert!(Instant::now() < deadline, "{url} did not end: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
