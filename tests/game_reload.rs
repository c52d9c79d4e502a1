//! A stored game that leaves memory between a request's lookup and the request itself (idle
//! eviction) is brought back and answers: the request never sees `game_not_found`. In process,
//! over a scratch SQLite store, with the handle held across the eviction the way a request
//! holds it.

#![allow(clippy::unwrap_used)] // test helpers may fail loudly

mod common;

use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use chessd::{game::GameError, Config};
use common::app::{scratch_state, TestApp};
use serde_json::json;

#[actix_web::test]
async fn a_handle_whose_game_left_memory_brings_it_back() {
    let mut config = Config::defaults();
    config.store.evict_after_secs = 1;
    let (state, scratch) = scratch_state(config, None).await;
    let games = state.games.clone();
    let app = TestApp::with_scratch_state(state, scratch).await;

    let g = app.create_game(json!({})).await;
    let (status, v) = app.mv(&g, json!({"uci": "e2e4"})).await;
    assert_eq!(status, StatusCode::OK, "{v}");

    // The lookup a request makes, then the game leaves memory before the request is sent.
    let handle = games.get(&g.id).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !games.is_empty() {
        assert!(Instant::now() < deadline, "the game never left memory");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let snapshot = handle.snapshot().await.expect("the game comes back");
    assert_eq!(snapshot.version, 1);
    assert_eq!(snapshot.game.plies(), 1);
    assert_eq!(games.len(), 1, "brought back once, into memory");

    // A game stopped for good stays gone, through an old handle too.
    let (status, v) = app.delete(&g.uri(""), Some(&g.admin)).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{v}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !games.is_empty() {
        assert!(
            Instant::now() < deadline,
            "the stopped game stayed in memory"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let err = handle.snapshot().await.unwrap_err();
    assert!(matches!(err, GameError::NotFound(_)), "{err:?}");
}
