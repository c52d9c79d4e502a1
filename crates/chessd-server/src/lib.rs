//! # chessd-server
//!
//! An actor-based chess game server: every game is an actix actor reachable over REST and
//! WebSocket. The chess rules live in the pure crate `chessd-core`, the wire protocols in
//! `chessd-protocol`; this crate adds the store, the actors, the engines, the jobs, the cluster
//! and the HTTP API. The `chessd` command line sits on top of it.
//!
//! [`configure_app`] builds the whole application (state, limits, routes, middleware) onto an
//! actix `App`, so that `main` and the tests run the very same service.

// No unsafe code, but for one call into the C allocator (`game::trim`) and the unit tests'
// counting allocator (`allocations`), allowed there alone.
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod admission;
#[cfg(test)]
mod allocations;
pub mod api;
pub mod cluster;
pub mod config;
pub mod engine;
pub mod game;
pub mod jobs;
pub mod lobby;
pub(crate) mod metrics;
pub mod openapi;
pub mod players;
pub(crate) mod schemas;
pub mod server;
pub mod store;
#[cfg(test)]
mod test_games;
pub(crate) mod transport;

use std::sync::Arc;

use actix_web::web;

use crate::game::{engines::EngineFactory, hooks::Hooks, Games};
pub use crate::{
    api::{configure, error::ApiError},
    config::Config,
    game::hooks::TerminateCallback,
};

/// What every request handler shares.
pub struct AppState {
    /// The configuration.
    pub(crate) config: Arc<Config>,
    /// Games: create them, find them.
    pub games: Arc<Games>,
    /// Perft and puzzle jobs.
    pub(crate) jobs: jobs::supervisor::JobSupervisor,
    /// What each client may spend: rates, quotas, the engine-session total.
    pub(crate) admission: admission::Admission,
    /// The lobby: seeks, in the store.
    pub(crate) lobby: lobby::Lobby,
    /// Quick pairing: pools of waiting players, in the store.
    pub(crate) pairing: lobby::pairing::Pairing,
    /// Players: names, tokens, ratings, in the store.
    pub(crate) players: players::Players,
    /// This node's part in a cluster (`None`: a single node).
    pub(crate) cluster: Option<cluster::Cluster>,
    /// The cluster's shared perft task queue, for the work API (`None`: a single node).
    pub(crate) tasks: Option<store::perft_tasks::TaskQueue>,
    /// This node's queue workers of shared perft tasks (stopped when the state goes).
    pub(crate) queue_workers: Option<jobs::workers::queue_worker::NodeWorkers>,
}

impl AppState {
    /// State for a configuration, with an optional in-process terminate callback (for programs
    /// that embed chessd as a library): opens the store `config.store` names (applying its
    /// migrations) on the current runtime, which must outlive the state. (The jobs the store
    /// holds are taken back by `jobs::supervisor::JobSupervisor::restore`, which `serve`
    /// calls.)
    pub async fn open(
        config: Config,
        callback: Option<TerminateCallback>,
    ) -> Result<AppState, store::StoreError> {
        let store = store::Store::open(
            &config.store.url,
            config.store.sqlite_sync,
            config.store.max_batch,
        )
        .await?;
        if !config.cluster.enabled() {
            return Ok(AppState::with_store(config, callback, store));
        }
        // A renewal must end well inside the lease: a third of it at most to get a connection,
        // and as much for each statement.
        let bound = std::time::Duration::from_millis(config.cluster.lease_ms / 3);
        let db = store.cluster_db(bound).ok_or_else(|| {
            store::StoreError::Url(
                "cluster.advertise_url is set: a cluster needs a postgres:// store".into(),
            )
        })?;
        let tasks = store.task_queue();
        let cluster = cluster::Cluster::join(&config.cluster, db).await?;
        let mut state = AppState::build(config, callback, store, Some(cluster.clone()));
        cluster.attach(&state.games);
        cluster.attach_jobs(&state.jobs);
        if let Some(queue) = tasks {
            state.share_perft_tasks(&cluster, queue);
        }
        tokio::spawn(cluster.run());
        Ok(state)
    }

    /// Sends deep perft jobs' tasks to the cluster's shared queue and starts this node's
    /// queue workers.
    fn share_perft_tasks(
        &mut self,
        cluster: &cluster::Cluster,
        queue: store::perft_tasks::TaskQueue,
    ) {
        let c = &self.config.cluster;
        let runner = jobs::workers::queue_runner::QueueRunner::new(
            queue.clone(),
            cluster.node(),
            tokio::runtime::Handle::current(),
            c.verify_percent,
        );
        self.jobs.share_tasks(Arc::new(runner), c.perft_task_depth);
        let threads = match c.task_threads {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        };
        let source = jobs::workers::queue_worker::QueueSource::new(
            queue.clone(),
            cluster.node(),
            c.task_lease_ms,
        );
        self.queue_workers = Some(jobs::workers::queue_worker::NodeWorkers::start(
            source,
            threads,
            c.task_hash_mb,
        ));
        self.tasks = Some(queue);
    }

    /// State for a configuration over a store already open.
    pub fn with_store(
        config: Config,
        callback: Option<TerminateCallback>,
        store: store::Store,
    ) -> AppState {
        AppState::build(config, callback, store, None)
    }

    fn build(
        config: Config,
        callback: Option<TerminateCallback>,
        store: store::Store,
        cluster: Option<cluster::Cluster>,
    ) -> AppState {
        let ownership: Arc<dyn game::ownership::Ownership> = match &cluster {
            Some(c) => Arc::new(c.clone()),
            None => Arc::new(game::ownership::SingleNode),
        };
        let hooks = Hooks::new(&config.webhooks, store.clone(), callback);
        let admission = admission::Admission::from_config(&config);
        let jobs = jobs::supervisor::JobSupervisor::from_config(&config, store.clone());
        let lobby = lobby::Lobby::new(&store, &config);
        let pairing = lobby::pairing::Pairing::new(&store, &config);
        let players = players::Players::new(&store, &config.players);
        let games = Games::new(game::service::GamesParts {
            max_games: config.limits.max_games,
            hooks: Arc::new(hooks),
            event_history: config.games.event_history,
            keys_per_caller: config.games.idempotency_keys,
            engines: EngineFactory::new(config.engines.clone(), admission.clone()),
            admission: admission.clone(),
            store,
            evict_after: config.store.evict_after(),
            ownership,
        });
        AppState {
            jobs,
            admission,
            lobby,
            pairing,
            players,
            config: Arc::new(config),
            games,
            cluster,
            tasks: None,
            queue_workers: None,
        }
    }
}

/// Registers the state, the body limits and every route: the one way to build the app.
pub fn configure_app(state: web::Data<AppState>) -> impl FnOnce(&mut web::ServiceConfig) {
    move |cfg| {
        let limit = state.config.limits.max_body_bytes;
        cfg.app_data(state)
            .app_data(api::json_config(limit))
            .app_data(web::PayloadConfig::default().limit(limit))
            .configure(configure);
    }
}
