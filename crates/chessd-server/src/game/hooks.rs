//! Terminate hooks: when a game ends, an in-process callback (exactly once) and a webhook POST
//! to an allowed host (at least once, through the outbox, `outbox.rs`) receive the game id,
//! the reason and the final state. Hooks run off the game actors' threads, so a slow or failing
//! hook blocks no game.

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use serde::Serialize;
use tokio::sync::Notify;
use uuid::Uuid;

use super::outbox::{self, RetryPolicy};
use crate::{
    config::WebhookConfig,
    game::state::SavedState,
    game::GameError,
    store::{self, OutboxRow, Store, WriteOp},
};

/// Why a game's actor stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// No message within the idle timeout.
    IdleTimeout,
    /// Stopped through the API.
    Stopped,
    /// The server shut down.
    Shutdown,
    /// No move was played within `games.abandon_after_secs` of the game's creation.
    Abandoned,
    /// A write to the store failed: the game leaves memory and comes back from the store.
    StoreFailed,
    /// The game was untouched for `store.evict_after_secs`: it leaves memory and comes back
    /// from the store at its next request.
    Evicted,
    /// The node gave up the game's shard (another node of the cluster owns it now): the game
    /// leaves this node's memory and is served by the new owner from the store.
    Moved,
}

impl StopReason {
    /// The reason as JSON text.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::IdleTimeout => "idle_timeout",
            StopReason::Stopped => "stopped",
            StopReason::Shutdown => "shutdown",
            StopReason::Abandoned => "abandoned",
            StopReason::StoreFailed => "store_failed",
            StopReason::Evicted => "evicted",
            StopReason::Moved => "moved",
        }
    }

    /// Whether the stop ends the game for good (else, with a store, the game comes back from
    /// it at the next request).
    pub fn ends_the_game(self) -> bool {
        !matches!(
            self,
            StopReason::Shutdown
                | StopReason::StoreFailed
                | StopReason::Evicted
                | StopReason::Moved
        )
    }
}

/// What hooks receive.
#[derive(Clone, Debug, Serialize)]
pub struct TerminateInfo {
    /// The game.
    pub id: Uuid,
    /// Why it stopped.
    pub reason: StopReason,
    /// Its final state.
    pub state: SavedState,
}

/// An in-process terminate callback, for programs embedding chessd.
pub type TerminateCallback = Arc<dyn Fn(&TerminateInfo) + Send + Sync>;

/// Hook settings shared by all games, and a count of hooks still running (shutdown waits for it).
pub struct Hooks {
    allowed_hosts: Vec<String>,
    timeout: Duration,
    retry: RetryPolicy,
    store: Store,
    callback: Option<TerminateCallback>,
    pending: AtomicUsize,
    idle: Notify,
}

impl Hooks {
    /// Hooks as `config` says, keeping the webhook outbox in `store`.
    pub fn new(config: &WebhookConfig, store: Store, callback: Option<TerminateCallback>) -> Hooks {
        Hooks {
            allowed_hosts: config.allowed_hosts.clone(),
            timeout: Duration::from_millis(config.timeout_ms),
            retry: RetryPolicy::from_config(config),
            store,
            callback,
            pending: AtomicUsize::new(0),
            idle: Notify::new(),
        }
    }

    /// Checks a webhook URL: plain http to a `host:port` listed in the configuration (the port
    /// counts: a host allowed on one port is not allowed on another).
    pub fn check_webhook(&self, url: &str) -> Result<url::Url, GameError> {
        let parsed = url::Url::parse(url)
            .map_err(|e| GameError::InvalidRequest(format!("webhook URL '{url}': {e}")))?;
        // Webhooks go to hosts listed in the configuration (typically on a private network);
        // the client is built without TLS, so only plain http is accepted.
        if parsed.scheme() != "http" {
            return Err(GameError::WebhookNotAllowed(
                "webhooks must use http:// (TLS is not supported for webhooks)".into(),
            ));
        }
        let host = parsed.host_str().unwrap_or_default();
        let port = parsed.port_or_known_default().unwrap_or(80);
        let listener = format!("{host}:{port}");
        if !self.allowed_hosts.iter().any(|h| h == &listener) {
            return Err(GameError::WebhookNotAllowed(format!(
                "webhook listener '{listener}' is not in webhooks.allowed_hosts"
            )));
        }
        Ok(parsed)
    }

    /// The outbox row of a game's terminate webhook to `url`, due now.
    pub fn terminate_webhook(&self, url: &url::Url, info: &TerminateInfo) -> OutboxRow {
        let body = serde_json::to_string(info).unwrap_or_default();
        outbox::new_row(
            outbox::terminate_key(&info.id),
            url,
            body,
            store::now_ms(),
            &self.retry,
        )
    }

    /// Runs the hooks of a game that ended, in the background: the callback, and the delivery
    /// of its webhook (already in the store's outbox when the store is durable).
    pub fn fire(self: &Arc<Self>, webhook: Option<OutboxRow>, info: TerminateInfo) {
        if let Some(callback) = self.callback.clone() {
            let guard = PendingGuard::new(self.clone());
            tokio::task::spawn_blocking(move || {
                let _guard = guard;
                if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(&info)))
                    .is_err()
                {
                    tracing::error!(game = %info.id, "terminate callback panicked");
                }
            });
        }
        if let Some(row) = webhook {
            self.send(row);
        }
    }

    /// Takes up every webhook left in the outbox by an earlier run; gives how many.
    pub async fn resume_outbox(self: &Arc<Self>) -> Result<usize, store::StoreError> {
        let rows = self.store.pending_webhooks().await?;
        let n = rows.len();
        for row in rows {
            self.send(row);
        }
        if n > 0 {
            tracing::info!(webhooks = n, "webhooks taken up from the outbox");
        }
        Ok(n)
    }

    /// Delivers `row` in the background until it is delivered or expires. A webhook due now
    /// counts as running at once, so a shutdown waits for its first attempt.
    fn send(self: &Arc<Self>, row: OutboxRow) {
        let first = (row.next_ms <= store::now_ms()).then(|| PendingGuard::new(self.clone()));
        let hooks = self.clone();
        actix::spawn(async move { hooks.deliver(row, first).await });
    }

    /// Attempts `row` until its listener accepts it or it expires, recording each failure in
    /// the store so that a restart goes on with the same back-off.
    async fn deliver(self: Arc<Self>, mut row: OutboxRow, mut first: Option<PendingGuard>) {
        loop {
            let wait = row.next_ms - store::now_ms();
            if wait > 0 {
                tokio::time::sleep(Duration::from_millis(wait as u64)).await;
            }
            if store::now_ms() >= row.expires_ms {
                tracing::warn!(key = %row.key, attempts = row.attempts, "webhook expired undelivered");
                crate::metrics::count_webhook("expired");
                self.forget(row.key).await;
                return;
            }
            let attempt = {
                let _running = first
                    .take()
                    .unwrap_or_else(|| PendingGuard::new(self.clone()));
                self.post(&row).await
            };
            match attempt {
                Ok(()) => {
                    tracing::debug!(key = %row.key, "webhook delivered");
                    crate::metrics::count_webhook("delivered");
                    self.forget(row.key).await;
                    return;
                }
                Err(why) => {
                    row.attempts += 1;
                    let delay = self.retry.delay(row.attempts);
                    row.next_ms = store::now_ms() + delay.as_millis() as i64;
                    tracing::warn!(key = %row.key, attempts = row.attempts, error = %why,
                        retry_in_ms = delay.as_millis() as u64, "webhook not delivered");
                    crate::metrics::count_webhook("failed");
                    let retry = WriteOp::WebhookRetry {
                        key: row.key.clone(),
                        attempts: row.attempts,
                        next_ms: row.next_ms,
                    };
                    if let Err(e) = self.store.write(retry).await {
                        tracing::warn!(key = %row.key, error = %e, "webhook retry not recorded");
                    }
                }
            }
        }
    }

    /// One POST of `row`: `Ok` when its listener answers 2xx.
    async fn post(&self, row: &OutboxRow) -> Result<(), String> {
        // A redirect would send the game to a listener nobody allowed: never follow one.
        let client = awc::Client::builder()
            .timeout(self.timeout)
            .disable_redirects()
            .finish();
        let response = client
            .post(row.url.as_str())
            .insert_header(("Idempotency-Key", row.key.as_str()))
            .content_type("application/json")
            .send_body(row.body.clone())
            .await
            .map_err(|e| e.to_string())?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(format!("the listener answered {}", response.status()))
        }
    }

    /// Takes a webhook out of the outbox. If that fails it stays, and is delivered again after
    /// a restart: at least once, under the same idempotency key.
    async fn forget(&self, key: String) {
        if let Err(e) = self.store.write(WriteOp::WebhookDone { key }).await {
            tracing::warn!(error = %e, "webhook left in the outbox");
        }
    }

    /// Waits until no hook is running, or `limit` has passed.
    pub async fn wait_idle(&self, limit: Duration) {
        let wait = async {
            loop {
                let notified = self.idle.notified();
                if self.pending.load(Ordering::Acquire) == 0 {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(limit, wait).await;
    }
}

/// Counts one running hook for as long as it lives.
struct PendingGuard(Arc<Hooks>);

impl PendingGuard {
    fn new(hooks: Arc<Hooks>) -> PendingGuard {
        hooks.pending.fetch_add(1, Ordering::AcqRel);
        PendingGuard(hooks)
    }
}

impl Drop for PendingGuard {
    fn drop(&mut self) {
        if self.0.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}
