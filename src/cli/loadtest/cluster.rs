//! The cluster figures: three `chessd serve` nodes on the PostgreSQL that `--store` names, on
//! loopback ports. Moves per second through one node and spread over three (each connection
//! sticking to a node, and each request to the next node in turn, so that most are
//! forwarded); the latency a forwarded move adds (the same game's moves alternately through
//! its owner and through another node); and the failover time over `--kills` kills: a game
//! created on a node (so owned by it), the node killed with `kill -9`, the time until a move
//! of that game is accepted through another node.

use std::time::{Duration, Instant};

use chessd_core::Position;
use serde::Serialize;

use super::{
    child::ChildServer,
    client::{create_game, http_client, on_threads, request, Versioned},
    rest::{move_figures, MoveFigures, Route},
    stats::{micros, Latency},
    Settings,
};

/// How long a failover may take before the run gives up.
const FAILOVER_LIMIT: Duration = Duration::from_secs(30);

/// Moves played alternately through the owner and through another node.
const FORWARD_SAMPLES: usize = 1000;

/// The cluster figures.
#[derive(Debug, Serialize)]
pub(super) struct ClusterReport {
    /// Nodes.
    pub nodes: usize,
    /// Moves per second, every connection on one node.
    pub one_node_moves_per_sec: f64,
    /// Their latency.
    pub one_node_latency_ms: Latency,
    /// Moves per second, connections spread over the nodes, each on its own node.
    pub three_nodes_moves_per_sec: f64,
    /// Their latency.
    pub three_nodes_latency_ms: Latency,
    /// Moves per second, each request to the next node in turn (two in three forwarded).
    pub round_robin_moves_per_sec: f64,
    /// Their latency.
    pub round_robin_latency_ms: Latency,
    /// A move through the game's owner.
    pub direct_move_ms: Latency,
    /// A move through another node (forwarded to the owner).
    pub forwarded_move_ms: Latency,
    /// Failover: from `kill -9` of a game's owner to its first move accepted elsewhere.
    pub failover_ms: Latency,
    /// Kills measured.
    pub kills: usize,
    /// Failed requests in the throughput parts.
    pub errors: u64,
}

/// A node's environment: the store, its address, the lease settings of the defaults.
fn node_env(store: &str, port: u16) -> Vec<(&'static str, String)> {
    vec![
        ("CHESSD_STORE__URL", store.to_string()),
        (
            "CHESSD_CLUSTER__ADVERTISE_URL",
            format!("http://127.0.0.1:{port}"),
        ),
    ]
}

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

fn start_node(store: &str, port: u16) -> Result<ChildServer, String> {
    ChildServer::start_on(&format!("127.0.0.1:{port}"), &node_env(store, port))
}

/// Runs the cluster part; `--store` must be a `postgres://` URL.
pub(super) fn run(settings: &Settings, kills: usize) -> Result<ClusterReport, String> {
    let store = match &settings.store {
        Some(url) if url.starts_with("postgres://") => url.clone(),
        _ => return Err("loadtest cluster needs --store postgres://…".into()),
    };
    let ports = (0..3).map(|_| free_port()).collect::<Result<Vec<_>, _>>()?;
    let mut nodes = ports
        .iter()
        .map(|&p| start_node(&store, p))
        .collect::<Result<Vec<_>, _>>()?;
    let bases: Vec<String> = nodes.iter().map(|n| n.base.clone()).collect();
    settle(&bases[0], 3)?;
    eprintln!("chessd loadtest: cluster: 3 nodes settled; moves through one node, then three");
    let window = settings.seconds;
    let one: MoveFigures = move_figures(settings, &[bases[0].as_str()], Route::Sticky, window);
    let all: Vec<&str> = bases.iter().map(String::as_str).collect();
    let three = move_figures(settings, &all, Route::Sticky, window);
    let spread = move_figures(settings, &all, Route::RoundRobin, window);
    eprintln!("chessd loadtest: cluster: forwarding overhead ({FORWARD_SAMPLES} moves each way)");
    let (direct, forwarded) = forwarding(&bases)?;
    eprintln!("chessd loadtest: cluster: failover over {kills} kills");
    let mut failovers = Vec::with_capacity(kills);
    for k in 0..kills {
        let victim = k % 3;
        let other = bases[(victim + 1) % 3].clone();
        let took = failover(&mut nodes[victim], &bases[victim], &other)?;
        eprintln!("  kill {}: {} ms", k + 1, took.as_millis());
        failovers.push(micros(took));
        nodes[victim] = start_node(&store, ports[victim])?;
        settle(&other, 3)?;
    }
    Ok(ClusterReport {
        nodes: 3,
        one_node_moves_per_sec: one.per_sec,
        one_node_latency_ms: one.latency,
        three_nodes_moves_per_sec: three.per_sec,
        three_nodes_latency_ms: three.latency,
        round_robin_moves_per_sec: spread.per_sec,
        round_robin_latency_ms: spread.latency,
        direct_move_ms: direct,
        forwarded_move_ms: forwarded,
        failover_ms: Latency::of(failovers),
        kills,
        errors: one.errors + three.errors + spread.errors,
    })
}

/// Waits until `base` sees `live` live nodes and every shard owned.
fn settle(base: &str, live: usize) -> Result<(), String> {
    let url = format!("{base}/v1/cluster");
    let settled = on_threads(1, |_| {
        let url = url.clone();
        async move {
            let client = http_client();
            let deadline = Instant::now() + Duration::from_secs(30);
            while Instant::now() < deadline {
                if let Ok((200, body)) = request(client.get(&url), None).await {
                    let v: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                    let up = v["nodes"]
                        .as_array()
                        .map_or(0, |n| n.iter().filter(|n| n["live"] == true).count());
                    if up == live && v["unowned_shards"].as_array().is_some_and(Vec::is_empty) {
                        return true;
                    }
                }
                actix_web::rt::time::sleep(Duration::from_millis(100)).await;
            }
            false
        }
    });
    if settled.first().copied().unwrap_or(false) {
        Ok(())
    } else {
        Err(format!("the cluster did not settle ({url})"))
    }
}

/// Moves of one game (owned by node 0) alternately through node 0 and node 1.
fn forwarding(bases: &[String]) -> Result<(Latency, Latency), String> {
    let result = on_threads(1, |_| async move {
        let client = http_client();
        let mut direct = Vec::with_capacity(FORWARD_SAMPLES);
        let mut forwarded = Vec::with_capacity(FORWARD_SAMPLES);
        let mut game = None;
        let mut pos = Position::startpos();
        let mut rng = super::stats::Rng::new(7);
        while direct.len() < FORWARD_SAMPLES || forwarded.len() < FORWARD_SAMPLES {
            let legal = pos.legal_moves();
            if game.is_none() || legal.is_empty() {
                game = Some(create_game(&client, &bases[0]).await?);
                pos = Position::startpos();
                continue;
            }
            let Some(g) = game.as_ref() else { continue };
            let through_owner = direct.len() <= forwarded.len();
            let base = if through_owner { &bases[0] } else { &bases[1] };
            let mv = legal[rng.below(legal.len())];
            let req = client
                .post(format!("{base}/v1/games/{}/moves", g.id))
                .bearer_auth(g.seat(pos.turn()));
            let t = Instant::now();
            let (status, body) =
                request(req, Some(format!("{{\"uci\":\"{}\"}}", pos.uci(mv)))).await?;
            let took = micros(t.elapsed());
            if status != 200 {
                return Err(format!(
                    "a move through {base}: {status} {}",
                    String::from_utf8_lossy(&body)
                ));
            }
            let reply: Versioned = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
            pos.play_unchecked(mv);
            if !reply.status.ongoing() {
                game = None;
            }
            if through_owner {
                direct.push(took);
            } else {
                forwarded.push(took);
            }
        }
        Ok((Latency::of(direct), Latency::of(forwarded)))
    });
    result
        .into_iter()
        .next()
        .unwrap_or_else(|| Err("no result".into()))
}

/// Creates a game on `victim` (so it owns it), kills it with `kill -9`, and times until a move
/// of that game is accepted through `other`.
fn failover(victim: &mut ChildServer, base: &str, other: &str) -> Result<Duration, String> {
    let pid = victim.pid();
    let result = on_threads(1, |_| async move {
        let client = http_client();
        let game = create_game(&client, base).await?;
        let killed = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .map_err(|e| format!("kill: {e}"))?;
        if !killed.success() {
            return Err("kill -9 failed".into());
        }
        let died = Instant::now();
        let url = format!("{other}/v1/games/{}/moves", game.id);
        while died.elapsed() < FAILOVER_LIMIT {
            let req = client.post(&url).bearer_auth(&game.secrets.white);
            if let Ok((200, _)) = request(req, Some("{\"uci\":\"e2e4\"}".into())).await {
                return Ok(died.elapsed());
            }
            actix_web::rt::time::sleep(Duration::from_millis(20)).await;
        }
        Err(format!(
            "game {} not served again within {FAILOVER_LIMIT:?}",
            game.id
        ))
    });
    result
        .into_iter()
        .next()
        .unwrap_or_else(|| Err("no result".into()))
}
