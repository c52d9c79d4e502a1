//! chessd's integration tests, in one test binary: one module per area (linking one binary
//! instead of one per file saves most of the tests' build time). `common` is the shared harness:
//! the real `chessd` binary on a free loopback port, the app in process, PostgreSQL, engines,
//! Grand Chess Tree workers. Run one area with `cargo test --test it -- AREA::` (docs/testing.md).
//!
//! Tests needing a program this machine lacks are ignored with the reason (build.rs sets a
//! `has_PROGRAM` cfg for each program it finds).

// Test helpers outside #[test] functions may fail loudly (clippy.toml allows it inside tests).
#![allow(clippy::unwrap_used)]

mod common;

mod api_binbo;
mod api_chess2;
mod api_chess2_games;
mod api_export;
mod api_games;
mod api_jobs;
mod blackbox;
mod cli_engine;
mod cli_loadtest;
mod cli_match;
mod cli_perft;
mod cli_serve;
mod cli_solve;
mod cluster;
mod cluster_chaos;
mod cluster_stale;
mod cluster_tasks;
mod concurrency;
mod deploy_nginx;
mod durable_games;
mod durable_jobs;
mod engine_matches;
mod engines_analysis;
mod engines_builtin;
mod engines_faults;
mod engines_stockfish;
mod engines_xboard;
mod fair_jobs;
mod game_reload;
mod gct_pool;
mod gct_worker;
mod in_game;
mod live_games;
mod lobby;
mod openapi;
mod pairing;
mod players;
mod security;
mod seek_ratings;
mod store_writes;
mod web_e2e;
mod web_static;
mod webhooks;
mod ws_limits;
