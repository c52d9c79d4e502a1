//! Running the HTTP server, with graceful shutdown on SIGINT/SIGTERM: stop accepting, stop
//! every job (it stays unfinished in the store, to start again), take every game out of memory
//! (reason `shutdown`: a stored game comes back at the next start; in memory, its terminate
//! hooks run), wait for the hooks, close the store, exit.

use std::time::{Duration, Instant};

use actix_web::{dev::ServerHandle, web, App, HttpServer};

use crate::{
    api::connections::{per_worker_connections, ConnectionCounts},
    configure_app, AppState, Config,
};

/// Starts the server on `config.bind` and runs until a shutdown signal. Prints the bound address
/// on stdout (`chessd listening on http://ADDR`), so that a port of 0 can be discovered.
pub async fn serve(config: Config) -> std::io::Result<()> {
    // The address first: a second server on a port in use fails before it creates or opens
    // a store (it used to leave a fresh `data/chessd.sqlite` behind).
    let listeners = listen_on(&config.bind)?;
    let state = AppState::open(config.clone(), None)
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    tracing::info!(store = ?state.games.store(), url = %config.store.url, "store open");
    // Webhooks an earlier run could not deliver are tried again.
    state
        .games
        .hooks()
        .resume_outbox()
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    // Jobs an earlier run did not finish start again (a perft from its finished tasks); in a
    // cluster, the lease loop takes over the jobs of nodes that are gone instead.
    let resumed = if state.cluster.is_some() {
        0
    } else {
        state
            .jobs
            .restore()
            .await
            .map_err(|e| std::io::Error::other(e.to_string()))?
    };
    if resumed > 0 {
        tracing::info!(resumed, "unfinished jobs started again");
    }
    // Journals of games over or stopped that are not packed yet (an earlier run's, an older
    // store's) are packed in the background.
    let packer = state.games.packer().clone();
    actix_web::rt::spawn(async move {
        match packer.pack_backlog().await {
            Ok(0) => {}
            Ok(packed) => tracing::info!(packed, "stored journals packed"),
            Err(e) => tracing::warn!(error = %e, "stored journals not packed"),
        }
    });
    let state = web::Data::new(state);
    let app_state = state.clone();
    let counts = ConnectionCounts::default();
    let workers = match config.workers {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    let server = HttpServer::new(move || App::new().configure(configure_app(app_state.clone())))
        .disable_signals()
        .tcp_nodelay(true)
        .shutdown_timeout(5)
        .workers(workers)
        .on_connect(counts.on_connect(&config))
        .max_connections(per_worker_connections(&config, workers))
        .client_request_timeout(Duration::from_millis(config.limits.head_timeout_ms));
    let server = listeners
        .into_iter()
        .try_fold(server, |server, listener| server.listen(listener))?;
    for addr in server.addrs() {
        println!("chessd listening on http://{addr}");
    }
    let server = server.run();
    let handle = server.handle();
    actix_web::rt::spawn(async move {
        wait_for_signal().await;
        shutdown(state, handle).await;
    });
    server.await
}

/// Listens on every address `bind` names, as actix's own `bind` would (address reuse, so that a
/// restart finds its port free while old connections linger, and the same backlog).
fn listen_on(bind: &str) -> std::io::Result<Vec<std::net::TcpListener>> {
    use socket2::{Domain, Protocol, Socket, Type};
    let failed =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("cannot listen on {bind}: {e}"));
    let addrs: Vec<_> = std::net::ToSocketAddrs::to_socket_addrs(bind)
        .map_err(failed)?
        .collect();
    addrs
        .into_iter()
        .map(|addr| {
            let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
            socket.set_reuse_address(true)?;
            socket.bind(&addr.into())?;
            socket.listen(LISTEN_BACKLOG)?;
            Ok(socket.into())
        })
        .collect::<std::io::Result<_>>()
        .map_err(failed)
}

/// Connections the kernel holds for a listener before they are accepted (actix's default).
const LISTEN_BACKLOG: i32 = 2048;

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Stops accepting, stops every perft and puzzle job (the store keeps them unfinished, so that
/// the next start resumes them), stops every game (reason `shutdown`), waits for their hooks,
/// stops the server.
pub async fn shutdown(state: web::Data<AppState>, handle: ServerHandle) {
    tracing::info!("shutting down");
    handle.pause().await;
    state.jobs.interrupt_all();
    // Shared perft tasks being counted here are dropped: their leases run out and another
    // node or worker counts them.
    if let Some(queue_workers) = &state.queue_workers {
        queue_workers.stop();
    }
    let grace = Duration::from_secs(state.config.games.shutdown_grace_secs);
    let deadline = Instant::now() + grace;
    state.games.shut_down();
    while !state.games.is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    state
        .games
        .hooks()
        .wait_idle(deadline.saturating_duration_since(Instant::now()))
        .await;
    // The games are out of memory: their shards go to the other nodes at once (not after the
    // lease); a write still queued is fenced if another node has taken its shard meanwhile.
    if let Some(cluster) = &state.cluster {
        cluster.leave().await;
    }
    // Every acknowledged write is committed already; this drains what is still queued.
    state.games.store().close().await;
    handle.stop(true).await;
}
