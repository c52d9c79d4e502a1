//! Terminate webhooks against the real binary: a refused webhook is retried with back-off under
//! one idempotency key until its listener accepts it; with a store it waits in the outbox and
//! survives `kill -9` (SQLite and a real PostgreSQL); it is given up when it expires.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpListener,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use serde_json::{json, Value};

use crate::common::{self, client, create_game, scratch_store, GameSecrets, Server};

/// One POST the listener received.
#[derive(Clone, Debug)]
struct Attempt {
    /// Its `Idempotency-Key` header.
    key: String,
    /// Its JSON body.
    body: Value,
    /// The status the listener answered.
    answered: u16,
}

/// An HTTP listener that answers `503` to the first `refusals` POSTs, then `204`, and records
/// every attempt.
struct Listener {
    url: String,
    attempts: Arc<Mutex<Vec<Attempt>>>,
    refusals: Arc<AtomicUsize>,
}

impl Listener {
    fn start(refusals: usize) -> Listener {
        let socket = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/hook", socket.local_addr().expect("addr"));
        let attempts = Arc::new(Mutex::new(Vec::new()));
        let refusals = Arc::new(AtomicUsize::new(refusals));
        let (seen, left) = (attempts.clone(), refusals.clone());
        std::thread::spawn(move || {
            for stream in socket.incoming().flatten() {
                let mut reader = BufReader::new(stream);
                let (mut length, mut key) = (0usize, String::new());
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    let lower = line.to_ascii_lowercase();
                    if let Some(v) = lower.strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    if lower.starts_with("idempotency-key:") {
                        key = line["idempotency-key:".len()..].trim().to_string();
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    continue;
                }
                let refuse = left
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok();
                let answered = if refuse { 503 } else { 204 };
                seen.lock().unwrap().push(Attempt {
                    key,
                    body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                    answered,
                });
                let reply = format!(
                    "HTTP/1.1 {answered} {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    if refuse {
                        "Service Unavailable"
                    } else {
                        "No Content"
                    }
                );
                let _ = reader.into_inner().write_all(reply.as_bytes());
            }
        });
        Listener {
            url,
            attempts,
            refusals,
        }
    }

    /// The `host:port` to allow in `webhooks.allowed_hosts`.
    fn allowed(&self) -> String {
        let listener = self.url.trim_start_matches("http://").split('/').next();
        format!("[\"{}\"]", listener.unwrap())
    }

    fn attempts(&self) -> Vec<Attempt> {
        self.attempts.lock().unwrap().clone()
    }

    fn delivered(&self) -> usize {
        self.attempts().iter().filter(|a| a.answered == 204).count()
    }

    /// Waits (up to `limit`) until `done` holds for the attempts seen.
    async fn wait_for(&self, limit: Duration, done: impl Fn(&[Attempt]) -> bool) -> Vec<Attempt> {
        let deadline = Instant::now() + limit;
        loop {
            let seen = self.attempts();
            if done(&seen) || Instant::now() > deadline {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Creates a game with a webhook to `listener`, plays a move and stops it with `DELETE`.
async fn play_and_stop(server: &Server, listener: &Listener) -> GameSecrets {
    let c = client();
    let g = create_game(&c, &server.base, &json!({"webhook_url": listener.url})).await;
    let (status, v) = common::post_json(
        &c,
        &format!("{}/v1/games/{}/moves", server.base, g.id),
        Some(&g.white),
        &json!({"uci": "e2e4"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let resp = c
        .delete(format!("{}/v1/games/{}", server.base, g.id))
        .bearer_auth(&g.admin)
        .send()
        .await
        .expect("request sent");
    assert!(resp.status().is_success(), "DELETE: {}", resp.status());
    g
}

/// Every attempt is the same delivery: the game's key and the same body.
fn assert_one_delivery(attempts: &[Attempt], g: &GameSecrets) {
    let key = format!("terminate-{}", g.id);
    for a in attempts {
        assert_eq!(a.key, key, "{attempts:?}");
        assert_eq!(a.body, attempts[0].body, "{attempts:?}");
    }
    let body = &attempts[0].body;
    assert_eq!(
        (body["id"].as_str(), body["reason"].as_str()),
        (Some(g.id.as_str()), Some("stopped"))
    );
    assert_eq!(body["state"]["moves"], json!(["e2e4"]));
}

async fn refused_then_delivered(store: &str) {
    let listener = Listener::start(2);
    let allowed = listener.allowed();
    let server = Server::start(&[
        ("CHESSD_WEBHOOKS__ALLOWED_HOSTS", allowed.as_str()),
        ("CHESSD_WEBHOOKS__RETRY_FIRST_MS", "100"),
        ("CHESSD_STORE__URL", store),
    ]);
    let started = Instant::now();
    let g = play_and_stop(&server, &listener).await;
    let seen = listener
        .wait_for(Duration::from_secs(10), |a| a.len() >= 3)
        .await;
    let answers: Vec<u16> = seen.iter().map(|a| a.answered).collect();
    assert_eq!(answers, [503, 503, 204], "{seen:?}");
    assert_one_delivery(&seen, &g);
    // Back-off: 100 ms, then 200 ms (each up to a tenth more).
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
    // Delivered: never sent again.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(listener.attempts().len(), 3);
}

#[actix_web::test]
async fn a_refused_webhook_is_retried_under_one_key_until_delivered() {
    let path = scratch_store();
    refused_then_delivered(&format!("sqlite://{}", path.display())).await;
    common::remove_sqlite(&path);
}

#[actix_web::test]
async fn in_memory_a_refused_webhook_is_retried_too() {
    refused_then_delivered("memory").await;
}

/// A webhook refused before a `kill -9` is delivered by the next start, under the same key.
async fn survives_kill_9(store: &str) {
    let listener = Listener::start(usize::MAX);
    let allowed = listener.allowed();
    let env = [
        ("CHESSD_WEBHOOKS__ALLOWED_HOSTS", allowed.as_str()),
        ("CHESSD_WEBHOOKS__RETRY_FIRST_MS", "200"),
        ("CHESSD_STORE__URL", store),
    ];
    let server = Server::start(&env);
    let g = play_and_stop(&server, &listener).await;
    let refused = listener
        .wait_for(Duration::from_secs(10), |a| a.len() >= 2)
        .await;
    assert!(refused.len() >= 2, "{refused:?}");
    drop(server); // SIGKILL
    listener.refusals.store(0, Ordering::SeqCst);
    let before = listener.attempts().len();
    let _server = Server::start(&env);
    let seen = listener
        .wait_for(Duration::from_secs(10), |a| {
            a.iter().any(|a| a.answered == 204)
        })
        .await;
    assert_eq!(listener.delivered(), 1, "{seen:?}");
    assert_eq!(seen.len(), before + 1, "{seen:?}");
    assert_one_delivery(&seen, &g);
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(listener.attempts().len(), before + 1);
}

#[actix_web::test]
async fn a_waiting_webhook_survives_kill_9_on_sqlite() {
    let path = scratch_store();
    survives_kill_9(&format!("sqlite://{}", path.display())).await;
    common::remove_sqlite(&path);
}

#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
#[actix_web::test]
async fn a_waiting_webhook_survives_kill_9_on_postgresql() {
    let pg = common::postgres::PgServer::start();
    survives_kill_9(&pg.url).await;
}

#[actix_web::test]
async fn a_webhook_is_given_up_when_it_expires() {
    let listener = Listener::start(usize::MAX);
    let allowed = listener.allowed();
    let path = scratch_store();
    let store = format!("sqlite://{}", path.display());
    let env = [
        ("CHESSD_WEBHOOKS__ALLOWED_HOSTS", allowed.as_str()),
        ("CHESSD_WEBHOOKS__RETRY_FIRST_MS", "100"),
        ("CHESSD_WEBHOOKS__RETRY_MAX_MS", "200"),
        ("CHESSD_WEBHOOKS__EXPIRE_AFTER_SECS", "1"),
        ("CHESSD_STORE__URL", store.as_str()),
    ];
    let server = Server::start(&env);
    let g = play_and_stop(&server, &listener).await;
    tokio::time::sleep(Duration::from_millis(1800)).await;
    let tried = listener.attempts();
    assert!(tried.len() >= 3, "{tried:?}");
    assert_one_delivery(&tried, &g);
    // Expired: no more attempts, and the next start finds nothing in the outbox.
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(listener.attempts().len(), tried.len());
    drop(server);
    let _server = Server::start(&env);
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(listener.attempts().len(), tried.len());
    assert_eq!(listener.delivered(), 0);
    drop(_server);
    common::remove_sqlite(&path);
}
