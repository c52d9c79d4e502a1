//! Terminate hooks: when a game's actor stops, a webhook POST (to an allowed host) and an
//! in-process callback receive the game id, the reason and the final state, exactly once.
//! Hooks run off the game actors' threads, so a slow or failing hook blocks no game.

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

use crate::{game::state::SavedState, game::GameError};

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
        }
    }

    /// Whether the stop ends the game for good (else, with a store, the game comes back from
    /// it at the next request).
    pub fn ends_the_game(self) -> bool {
        !matches!(
            self,
            StopReason::Shutdown | StopReason::StoreFailed | StopReason::Evicted
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
    callback: Option<TerminateCallback>,
    pending: AtomicUsize,
    idle: Notify,
}

impl Hooks {
    /// Hooks allowing webhooks to `allowed_hosts`, each POST limited to `timeout`.
    pub fn new(
        allowed_hosts: Vec<String>,
        timeout: Duration,
        callback: Option<TerminateCallback>,
    ) -> Hooks {
        Hooks {
            allowed_hosts,
            timeout,
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

    /// Runs the hooks of a stopped game in the background.
    pub fn fire(self: &Arc<Self>, webhook: Option<url::Url>, info: TerminateInfo) {
        let info = Arc::new(info);
        if let Some(callback) = self.callback.clone() {
            let guard = PendingGuard::new(self.clone());
            let info = info.clone();
            tokio::task::spawn_blocking(move || {
                let _guard = guard;
                if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(&info)))
                    .is_err()
                {
                    tracing::error!(game = %info.id, "terminate callback panicked");
                }
            });
        }
        if let Some(url) = webhook {
            let guard = PendingGuard::new(self.clone());
            let timeout = self.timeout;
            actix::spawn(async move {
                let _guard = guard;
                // A redirect would send the game to a listener nobody allowed: never follow one.
                let client = awc::Client::builder()
                    .timeout(timeout)
                    .disable_redirects()
                    .finish();
                match client.post(url.as_str()).send_json(&*info).await {
                    Ok(resp) if resp.status().is_success() => {
                        tracing::debug!(game = %info.id, "terminate webhook delivered")
                    }
                    Ok(resp) => {
                        tracing::warn!(game = %info.id, status = %resp.status(), "terminate webhook refused")
                    }
                    Err(e) => {
                        tracing::warn!(game = %info.id, error = %e, "terminate webhook failed")
                    }
                }
            });
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
