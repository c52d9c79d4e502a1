//! `chessd worker --server URL`: a remote worker of a cluster's shared perft queue, the Grand
//! Chess Tree's client in chessd's terms. It leases tasks from any node's work API
//! (`/v1/work/…`, a worker token in `--token` or `CHESSD_WORKER_TOKEN`), counts each with the
//! same core code as the stdin worker, renews the lease while it counts and submits the
//! result; `--tasks N` tasks at once, one thread each. It runs until interrupted (Ctrl-C,
//! SIGTERM): a task being counted then is dropped, and its lease runs out for another worker.

use std::{
    cell::Cell,
    process::ExitCode,
    rc::Rc,
    sync::{
        atomic::{AtomicBool, Ordering::Relaxed},
        Arc,
    },
    time::Duration,
};

use chessd_core::perft::PerftStats;
use chessd_server::{
    jobs::workers::queue_worker::{work_on_queue, TaskSource, TaskTables},
    store::perft_tasks::{LeasedTask, Submitted},
};
use serde::Deserialize;
use serde_json::{json, Value};

/// How long one request to the server may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// What `chessd worker --server` needs.
pub(crate) struct ServerWorker {
    /// The node's base URL (`http://HOST:PORT`).
    pub server: String,
    /// The worker token.
    pub token: String,
    /// The worker's name, as results record it.
    pub name: String,
    /// Tasks counted at once.
    pub tasks: usize,
    /// Hash table MiB (each of two tables), shared by the tasks.
    pub hash_mb: usize,
}

/// The work API of one node.
struct HttpSource {
    client: awc::Client,
    base: String,
    token: String,
    name: String,
    /// The lease time the server last gave.
    lease_ms: Cell<u64>,
}

impl HttpSource {
    async fn post(&self, path: &str, body: &Value) -> Result<(u16, Value), String> {
        let mut resp = self
            .client
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .send_json(body)
            .await
            .map_err(|e| format!("{path}: {e}"))?;
        let status = resp.status().as_u16();
        let body = if status == 204 {
            Value::Null
        } else {
            resp.json::<Value>()
                .limit(1 << 20)
                .await
                .map_err(|e| format!("{path}: {e}"))?
        };
        Ok((status, body))
    }
}

fn refused(status: u16, body: &Value) -> String {
    format!(
        "{status} {}",
        body["error"]["message"].as_str().unwrap_or("")
    )
}

impl TaskSource for HttpSource {
    async fn lease(&self) -> Result<Option<LeasedTask>, String> {
        let (status, v) = self
            .post("/v1/work/lease", &json!({ "worker": self.name }))
            .await?;
        match status {
            204 => Ok(None),
            // The token holds its most leases (other workers share it): wait like an idle one.
            429 => Ok(None),
            200 => {
                let task = LeasedTask::deserialize(&v).map_err(|e| format!("a lease: {e}"))?;
                if let Some(ms) = v["lease_ms"].as_u64() {
                    self.lease_ms.set(ms);
                }
                Ok(Some(task))
            }
            _ => Err(refused(status, &v)),
        }
    }

    async fn renew(&self, task: &LeasedTask) -> Result<bool, String> {
        let path = format!("/v1/work/{}/{}/renew", task.job, task.task);
        let (status, v) = self.post(&path, &json!({ "lease": task.lease })).await?;
        match status {
            200 => Ok(true),
            409 => Ok(false),
            _ => Err(refused(status, &v)),
        }
    }

    async fn submit(&self, task: &LeasedTask, stats: &PerftStats) -> Result<Submitted, String> {
        let path = format!("/v1/work/{}/{}/result", task.job, task.task);
        let body = json!({ "worker": self.name, "lease": task.lease, "stats": stats });
        let (status, v) = self.post(&path, &body).await?;
        match (status, v["counted"].as_bool()) {
            (200, Some(true)) => Ok(Submitted::Counted),
            (200, _) => Ok(Submitted::Duplicate),
            (409, _) if v["error"]["code"] == "lease_not_held" => Ok(Submitted::NotHeld),
            (409, _) => Ok(Submitted::Unknown),
            _ => Err(refused(status, &v)),
        }
    }

    fn lease_ms(&self) -> u64 {
        self.lease_ms.get()
    }
}

/// Runs the worker until it is interrupted.
pub(crate) fn run(worker: ServerWorker) -> ExitCode {
    let system = actix_web::rt::System::new();
    system.block_on(async move {
        let source = Rc::new(HttpSource {
            client: awc::Client::builder().timeout(REQUEST_TIMEOUT).finish(),
            base: worker.server.trim_end_matches('/').to_string(),
            token: worker.token,
            name: worker.name,
            lease_ms: Cell::new(10_000),
        });
        let stop = Arc::new(AtomicBool::new(false));
        let tables = Arc::new(TaskTables::new(worker.hash_mb));
        eprintln!(
            "chessd worker {}: taking perft tasks from {} ({} at once)",
            source.name,
            source.base,
            worker.tasks.max(1)
        );
        for _ in 0..worker.tasks.max(1) {
            let (source, tables, stop) =
                (Rc::clone(&source), Arc::clone(&tables), Arc::clone(&stop));
            actix_web::rt::spawn(
                async move { work_on_queue(source.as_ref(), tables, &stop).await },
            );
        }
        let _ = tokio::signal::ctrl_c().await;
        stop.store(true, Relaxed);
        eprintln!("chessd worker: stopping");
    });
    ExitCode::SUCCESS
}
