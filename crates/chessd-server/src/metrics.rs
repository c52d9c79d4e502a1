//! Prometheus metrics: games alive, moves, events, errors by code, request latency.

use std::sync::LazyLock;

use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, Opts, Registry,
    TextEncoder,
};

struct Metrics {
    registry: Registry,
    games_alive: IntGauge,
    moves: IntCounter,
    events: IntCounter,
    errors: IntCounterVec,
    latency: HistogramVec,
    store_commits: IntCounter,
    store_writes: IntCounter,
    webhooks: IntCounterVec,
    cluster_shards: IntGauge,
    cluster_nodes: IntGauge,
    forwarded: IntCounter,
    perft_tasks: IntCounterVec,
    ponders: IntCounterVec,
}

static METRICS: LazyLock<Metrics> = LazyLock::new(|| {
    let registry = Registry::new();
    let games_alive = IntGauge::new("chessd_games_alive", "Games whose actor is running")
        .unwrap_or_else(|e| panic!("metric: {e}"));
    let moves = IntCounter::new("chessd_moves_total", "Moves played")
        .unwrap_or_else(|e| panic!("metric: {e}"));
    let events = IntCounter::new("chessd_events_total", "Game events published")
        .unwrap_or_else(|e| panic!("metric: {e}"));
    let errors = IntCounterVec::new(
        Opts::new("chessd_errors_total", "Error answers by code"),
        &["code"],
    )
    .unwrap_or_else(|e| panic!("metric: {e}"));
    let latency = HistogramVec::new(
        HistogramOpts::new("chessd_request_seconds", "HTTP request latency").buckets(vec![
            0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0,
        ]),
        &["method", "route", "status"],
    )
    .unwrap_or_else(|e| panic!("metric: {e}"));
    let store_commits = IntCounter::new(
        "chessd_store_commits_total",
        "Transactions the store's writer committed",
    )
    .unwrap_or_else(|e| panic!("metric: {e}"));
    let store_writes = IntCounter::new(
        "chessd_store_writes_total",
        "Writes committed (several share a transaction)",
    )
    .unwrap_or_else(|e| panic!("metric: {e}"));
    let webhooks = IntCounterVec::new(
        Opts::new(
            "chessd_webhook_attempts_total",
            "Webhook attempts by outcome (delivered, failed) and webhooks given up (expired)",
        ),
        &["outcome"],
    )
    .unwrap_or_else(|e| panic!("metric: {e}"));
    let gauge = |name: &str, help: &str| {
        IntGauge::new(name, help).unwrap_or_else(|e| panic!("metric: {e}"))
    };
    let cluster_shards = gauge(
        "chessd_cluster_shards_owned",
        "Shards this node owns (0 outside a cluster)",
    );
    let cluster_nodes = gauge(
        "chessd_cluster_nodes_live",
        "Cluster nodes whose lease holds, as this node last saw them",
    );
    let forwarded = IntCounter::new(
        "chessd_forwarded_requests_total",
        "Requests (and WebSocket connections) forwarded to the node owning their game",
    )
    .unwrap_or_else(|e| panic!("metric: {e}"));
    let perft_tasks = IntCounterVec::new(
        Opts::new(
            "chessd_perft_tasks_total",
            "Shared perft tasks this node's threads counted, by what became of the result \
             (counted, duplicate: another worker's came first, gone: the job had ended)",
        ),
        &["outcome"],
    )
    .unwrap_or_else(|e| panic!("metric: {e}"));
    let ponders = IntCounterVec::new(
        Opts::new(
            "chessd_engine_ponders_total",
            "Ponder searches of engine opponents, by how they ended (hit: the expected reply was \
             played; miss: another was, or the game ended)",
        ),
        &["outcome"],
    )
    .unwrap_or_else(|e| panic!("metric: {e}"));
    for m in [
        Box::new(games_alive.clone()) as Box<dyn prometheus::core::Collector>,
        Box::new(moves.clone()),
        Box::new(events.clone()),
        Box::new(errors.clone()),
        Box::new(latency.clone()),
        Box::new(store_commits.clone()),
        Box::new(store_writes.clone()),
        Box::new(webhooks.clone()),
        Box::new(cluster_shards.clone()),
        Box::new(cluster_nodes.clone()),
        Box::new(forwarded.clone()),
        Box::new(perft_tasks.clone()),
        Box::new(ponders.clone()),
    ] {
        registry
            .register(m)
            .unwrap_or_else(|e| panic!("metric: {e}"));
    }
    Metrics {
        registry,
        games_alive,
        moves,
        events,
        errors,
        latency,
        store_commits,
        store_writes,
        webhooks,
        cluster_shards,
        cluster_nodes,
        forwarded,
        perft_tasks,
        ponders,
    }
});

/// Sets this node's cluster figures: shards owned and live nodes.
pub(crate) fn set_cluster(shards_owned: usize, nodes_live: usize) {
    METRICS.cluster_shards.set(shards_owned as i64);
    METRICS.cluster_nodes.set(nodes_live as i64);
}

/// Counts a request forwarded to another node.
pub(crate) fn count_forwarded() {
    METRICS.forwarded.inc();
}

/// Counts a shared perft task this node's threads counted (`counted`, `duplicate`, `gone`).
pub(crate) fn count_perft_task(outcome: &str) {
    METRICS.perft_tasks.with_label_values(&[outcome]).inc();
}

/// Counts how an engine opponent's ponder search ended: a hit or a miss.
pub(crate) fn count_ponder(hit: bool) {
    let outcome = if hit { "hit" } else { "miss" };
    METRICS.ponders.with_label_values(&[outcome]).inc();
}

/// Counts a webhook attempt (`delivered`, `failed`) or a webhook given up (`expired`).
pub(crate) fn count_webhook(outcome: &str) {
    METRICS.webhooks.with_label_values(&[outcome]).inc();
}

/// Counts one store commit of `writes` writes.
pub(crate) fn count_store_commit(writes: usize) {
    METRICS.store_commits.inc();
    METRICS.store_writes.inc_by(writes as u64);
}

/// Counts games coming alive (`delta` > 0) or stopping. A count, not a set value, so that
/// several registries in one process (in-process test servers) add up instead of overwriting
/// each other.
pub(crate) fn add_games_alive(delta: i64) {
    METRICS.games_alive.add(delta);
}

/// Counts a move.
pub(crate) fn count_move() {
    METRICS.moves.inc();
}

/// Counts a published event.
pub(crate) fn count_event() {
    METRICS.events.inc();
}

/// Counts an error answer.
pub(crate) fn count_error(code: &str) {
    METRICS.errors.with_label_values(&[code]).inc();
}

/// Records a request's latency under its route pattern.
pub(crate) fn observe_request(method: &str, route: &str, status: u16, seconds: f64) {
    METRICS
        .latency
        .with_label_values(&[method, route, &status.to_string()])
        .observe(seconds);
}

/// The text exposition of every metric.
pub(crate) fn render() -> String {
    let mut buf = Vec::new();
    let families = METRICS.registry.gather();
    if let Err(e) = TextEncoder::new().encode(&families, &mut buf) {
        tracing::error!(error = %e, "metrics encoding failed");
    }
    String::from_utf8(buf).unwrap_or_default()
}
