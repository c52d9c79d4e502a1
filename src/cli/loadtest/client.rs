//! The client side: one actix `System` (with its own awc client) per thread, and the few REST
//! calls every phase needs.

use std::{future::Future, time::Duration};

use serde::Deserialize;

/// Time allowed for one HTTP request or WebSocket frame before it counts as an error.
pub(super) const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs `make(i)` to completion on `threads` threads, each in its own actix `System`, and
/// returns their results in thread order.
pub(super) fn on_threads<R, F, Fut>(threads: usize, make: F) -> Vec<R>
where
    R: Send,
    F: Fn(usize) -> Fut + Sync,
    Fut: Future<Output = R>,
{
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let make = &make;
                s.spawn(move || actix_web::rt::System::new().block_on(make(i)))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// The share of `total` items (tasks, games) that thread `i` of `threads` takes.
pub(super) fn share(total: usize, threads: usize, i: usize) -> usize {
    total / threads + usize::from(i < total % threads)
}

/// An HTTP client with keep-alive and no connection limit (the callers bound their
/// concurrency, one request in flight per task).
pub(super) fn http_client() -> awc::Client {
    awc::Client::builder()
        .connector(awc::Connector::new().limit(0))
        .timeout(REQUEST_TIMEOUT)
        .finish()
}

/// A game created for the benchmark.
#[derive(Debug, Deserialize)]
pub(super) struct NewGame {
    /// The id.
    pub id: String,
    /// The seat and admin secrets.
    pub secrets: Secrets,
}

/// The secrets of a new game.
#[derive(Debug, Deserialize)]
pub(super) struct Secrets {
    /// White's seat.
    pub white: String,
    /// Black's seat.
    pub black: String,
    /// The admin.
    pub admin: String,
}

impl NewGame {
    /// The seat secret of `color`.
    pub(super) fn seat(&self, color: chessd_core::Color) -> &str {
        match color {
            chessd_core::Color::White => &self.secrets.white,
            chessd_core::Color::Black => &self.secrets.black,
        }
    }
}

/// `status.result` and `version` of a move reply, a game view or a WebSocket event.
#[derive(Debug, Deserialize)]
pub(super) struct Versioned {
    /// The version after the change.
    pub version: u64,
    /// The status after it.
    pub status: ResultOnly,
}

/// The `result` field of a status object.
#[derive(Debug, Deserialize)]
pub(super) struct ResultOnly {
    /// `ongoing`, `white_wins`, `black_wins` or `draw`.
    pub result: String,
}

impl ResultOnly {
    /// Whether the game goes on.
    pub(super) fn ongoing(&self) -> bool {
        self.result == "ongoing"
    }
}

/// A JSON request to `url`; returns the status and the body, or a transport error.
pub(super) async fn request(
    req: awc::ClientRequest,
    body: Option<String>,
) -> Result<(u16, actix_web::web::Bytes), String> {
    let req = req.timeout(REQUEST_TIMEOUT);
    let sent = match body {
        Some(text) => {
            req.insert_header(("content-type", "application/json"))
                .send_body(text)
                .await
        }
        None => req.send().await,
    };
    let mut resp = sent.map_err(|e| e.to_string())?;
    let bytes = resp
        .body()
        .limit(1 << 20)
        .await
        .map_err(|e| e.to_string())?;
    Ok((resp.status().as_u16(), bytes))
}

/// `POST /v1/games` from the start position.
pub(super) async fn create_game(client: &awc::Client, base: &str) -> Result<NewGame, String> {
    create_game_with(client, base, "{}").await
}

/// Creates a game with `body` (JSON), as a client does.
pub(super) async fn create_game_with(
    client: &awc::Client,
    base: &str,
    body: &str,
) -> Result<NewGame, String> {
    let (status, body) = request(
        client.post(format!("{base}/v1/games")),
        Some(body.to_string()),
    )
    .await?;
    if status != 201 {
        return Err(format!(
            "POST /v1/games: {status} {}",
            String::from_utf8_lossy(&body)
        ));
    }
    serde_json::from_slice(&body).map_err(|e| format!("POST /v1/games: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up() {
        for total in [0, 1, 7, 1000] {
            for threads in 1..5 {
                let sum: usize = (0..threads).map(|i| share(total, threads, i)).sum();
                assert_eq!(sum, total);
            }
        }
        assert_eq!(share(7, 2, 0), 4);
    }

    #[test]
    fn threads_run_their_own_systems() {
        let got = on_threads(3, |i| async move {
            actix_web::rt::time::sleep(Duration::from_millis(1)).await;
            i * 10
        });
        assert_eq!(got, [0, 10, 20]);
    }
}
