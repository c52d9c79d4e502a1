//! The webhook outbox: a terminate webhook is delivered at least once, or dropped when it
//! expires.
//!
//! With a durable store the webhook enters the outbox table in the transaction that stops its
//! game, so a game is never stopped without its webhook queued. Each webhook is then POSTed
//! until its listener answers 2xx, waiting longer after each failure (doubling from
//! `webhooks.retry_first_ms` up to `webhooks.retry_max_ms`, with a little randomness so that
//! webhooks failing together do not retry together), until `webhooks.expire_after_secs` after
//! the game stopped. Each failure is recorded, and at start the server takes up every webhook
//! still in the outbox, so a crash or restart neither loses one nor restarts its back-off.
//! Every attempt carries the same `Idempotency-Key` header, so a listener that saw a delivery
//! whose answer was lost can recognise the next one. In memory, webhooks are retried the same
//! way but do not survive a restart.

use std::{
    hash::{BuildHasher, Hasher},
    time::Duration,
};

use uuid::Uuid;

use crate::{config::WebhookConfig, store::OutboxRow};

/// When to retry a webhook and when to give it up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RetryPolicy {
    /// The wait after the first failure.
    pub first: Duration,
    /// The longest wait between attempts.
    pub max: Duration,
    /// How long after its game stopped a webhook is still tried.
    pub expire_after: Duration,
}

impl RetryPolicy {
    /// The policy of the `[webhooks]` configuration.
    pub(crate) fn from_config(config: &WebhookConfig) -> RetryPolicy {
        RetryPolicy {
            first: Duration::from_millis(config.retry_first_ms.max(1)),
            max: Duration::from_millis(config.retry_max_ms.max(config.retry_first_ms.max(1))),
            expire_after: Duration::from_secs(config.expire_after_secs),
        }
    }

    /// The wait after `failures` failed attempts (at least one): `first` doubled for each
    /// earlier failure, at most `max`, plus up to a tenth of it at random.
    pub(crate) fn delay(&self, failures: i64) -> Duration {
        let doublings = failures.saturating_sub(1).clamp(0, 30) as u32;
        let base = self
            .first
            .saturating_mul(1u32 << doublings.min(31))
            .min(self.max);
        let spread = base.as_millis() as u64 / 10;
        let jitter = if spread == 0 {
            0
        } else {
            random_u64() % (spread + 1)
        };
        base + Duration::from_millis(jitter)
    }
}

/// The idempotency key of a game's terminate webhook: a game terminates once.
pub(crate) fn terminate_key(game: &Uuid) -> String {
    format!("terminate-{game}")
}

/// A new outbox row: `body` to `url` under `key`, due now, expiring per `policy`.
pub(crate) fn new_row(
    key: String,
    url: &url::Url,
    body: String,
    now_ms: i64,
    policy: &RetryPolicy,
) -> OutboxRow {
    OutboxRow {
        key,
        url: url.to_string(),
        body,
        attempts: 0,
        next_ms: now_ms,
        expires_ms: now_ms.saturating_add(policy.expire_after.as_millis() as i64),
    }
}

/// A random number from the standard library's per-process hash keys (jitter needs no more).
fn random_u64() -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(crate::store::now_ms() as u64);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            first: Duration::from_millis(1000),
            max: Duration::from_millis(60_000),
            expire_after: Duration::from_secs(3600),
        }
    }

    #[test]
    fn the_wait_doubles_up_to_the_maximum_with_at_most_a_tenth_more() {
        let p = policy();
        for (failures, base) in [
            (1, 1000),
            (2, 2000),
            (3, 4000),
            (6, 32_000),
            (7, 60_000),
            (40, 60_000),
        ] {
            for _ in 0..20 {
                let ms = p.delay(failures).as_millis() as u64;
                assert!(
                    (base..=base + base / 10).contains(&ms),
                    "after {failures} failures: {ms} ms, expected {base}..={}",
                    base + base / 10
                );
            }
        }
    }

    #[test]
    fn a_new_row_is_due_now_and_expires_after_the_policy() {
        let url = url::Url::parse("http://127.0.0.1:9/hook").expect("url");
        let id = Uuid::nil();
        let row = new_row(terminate_key(&id), &url, "{}".into(), 5_000, &policy());
        assert_eq!(
            row,
            OutboxRow {
                key: "terminate-00000000-0000-0000-0000-000000000000".into(),
                url: "http://127.0.0.1:9/hook".into(),
                body: "{}".into(),
                attempts: 0,
                next_ms: 5_000,
                expires_ms: 3_605_000,
            }
        );
    }
}
