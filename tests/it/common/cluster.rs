//! Helpers of the cluster tests: starting a node, waiting for a cluster to settle, replaying a
//! game's moves.

use std::time::{Duration, Instant};

use serde_json::Value;
use shakmaty::{uci::UciMove, Chess, Position};

use super::{free_port, postgres::PgServer, Server};

/// Starts a cluster node on a free loopback port over `pg`: heartbeats every 200 ms, leases of
/// `lease_ms`, no rate limit on creating games, and the `extra` environment.
pub(crate) fn start_node(pg: &PgServer, lease_ms: u64, extra: &[(&str, &str)]) -> Server {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let lease = lease_ms.to_string();
    let mut env = vec![
        ("CHESSD_STORE__URL", pg.url.as_str()),
        ("CHESSD_CLUSTER__ADVERTISE_URL", url.as_str()),
        ("CHESSD_CLUSTER__HEARTBEAT_MS", "200"),
        ("CHESSD_CLUSTER__LEASE_MS", lease.as_str()),
        ("CHESSD_QUOTAS__GAMES_PER_MINUTE", "0"),
    ];
    env.extend_from_slice(extra);
    Server::start_on(&format!("127.0.0.1:{port}"), &env)
}

/// Waits until `base` sees `live` live nodes, every shard owned and each live node owning some;
/// returns that view of the cluster (`GET /v1/cluster`). Panics after 30 s.
pub(crate) async fn settled(c: &awc::Client, base: &str, live: usize) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, v) = super::get_json(c, &format!("{base}/v1/cluster")).await;
        assert_eq!(status, 200, "{v}");
        let nodes: Vec<&Value> = v["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .filter(|n| n["live"] == true)
            .collect();
        if nodes.len() == live
            && v["unowned_shards"].as_array().is_some_and(Vec::is_empty)
            && nodes
                .iter()
                .all(|n| n["shards"].as_array().is_some_and(|s| !s.is_empty()))
        {
            return v;
        }
        assert!(Instant::now() < deadline, "the cluster never settled: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The position after `moves` (UCI) from the start; panics on an illegal one.
pub(crate) fn replay(moves: &[String]) -> Chess {
    let mut pos = Chess::default();
    for m in moves {
        let mv = m
            .parse::<UciMove>()
            .expect("a UCI move")
            .to_move(&pos)
            .expect("a legal move");
        pos.play_unchecked(mv);
    }
    pos
}
