//! A stored game that leaves memory between a request's lookup and the request itself (idle
//! eviction) is brought back and answers: the request never sees `game_not_found`. In process,
//! over a scratch SQLite store, with the handle held across the eviction the way a request
//! holds it. And whatever was played, a game taken out of memory comes back from its journal
//! as it was: random games of both variants, Chess 2 duels with every bid and gain choice,
//! chessd's own player on one side.

use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use chessd_server::{
    game::{packing::pack_game, GameError, Games},
    store::{StoreError, StoredGame, WriteOp},
    Config,
};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::common::{
    app::{scratch_state, until_no_game_in_memory, TestApp},
    GameSecrets, Rng,
};

/// A server on a scratch store whose games leave memory after a second untouched, and its
/// games.
async fn evicting_app() -> (TestApp, std::sync::Arc<Games>) {
    let mut config = Config::defaults();
    config.store.evict_after_secs = 1;
    let (state, scratch) = scratch_state(config, None).await;
    let games = state.games.clone();
    (TestApp::with_scratch_state(state, scratch).await, games)
}

#[actix_web::test]
async fn a_handle_whose_game_left_memory_brings_it_back() {
    let (app, games) = evicting_app().await;

    let g = app.create_game(json!({})).await;
    let (status, v) = app.mv(&g, json!({"uci": "e2e4"})).await;
    assert_eq!(status, StatusCode::OK, "{v}");

    // The lookup a request makes, then the game leaves memory before the request is sent.
    let handle = games.get(&g.id).await.unwrap();
    until_no_game_in_memory(&games, "the game never left memory").await;

    let snapshot = handle.snapshot().await.expect("the game comes back");
    assert_eq!(snapshot.version, 1);
    assert_eq!(snapshot.game.plies(), 1);
    assert_eq!(games.len(), 1, "brought back once, into memory");

    // A game stopped for good stays gone, through an old handle too.
    let (status, v) = app.delete(&g.uri(""), Some(&g.admin)).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{v}");
    until_no_game_in_memory(&games, "the stopped game stayed in memory").await;
    let err = handle.snapshot().await.unwrap_err();
    assert!(matches!(err, GameError::NotFound(_)), "{err:?}");
}

/// A Chess 2 capture of a pawn by a pawn, White to move.
const PAWN_TAKES_PAWN: &str = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 33";

/// Takes `id` out of memory (it stays in the store) and waits until it has left; then packs
/// its journal, as the server does with a game that leaves memory: the store keeps one record
/// and no journal rows.
async fn evict(games: &Games, id: &str) {
    let id: Uuid = id.parse().unwrap();
    games.leave_node(|g| *g == id);
    let deadline = Instant::now() + Duration::from_secs(10);
    while games.count_where(|g| *g == id) > 0 {
        assert!(Instant::now() < deadline, "the game never left memory");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Packed now, or at an earlier eviction with no move since.
    pack_game(games.store(), id, None).await.unwrap();
    let stored = games.store().load_game(&id).await.unwrap().unwrap();
    assert!(stored.packed.is_some() && stored.entries.is_empty());
    assert_eq!(stored.setup, "", "the setup is in the record");
}

/// Evicts the game and reads it back from the store: it must answer as it did before.
async fn assert_comes_back_unchanged(app: &TestApp, games: &Games, g: &GameSecrets) {
    let before = app.view(g).await;
    evict(games, &g.id).await;
    let (status, after) = app.get(&g.uri("")).await;
    assert_eq!(status, StatusCode::OK, "after eviction: {after}");
    assert_eq!(after, before, "the game came back changed");
}

#[actix_web::test]
async fn a_duel_bid_of_stones_sent_with_a_gain_survives_eviction_and_export() {
    let (state, scratch) = scratch_state(Config::defaults(), None).await;
    let games = state.games.clone();
    let app = TestApp::with_scratch_state(state, scratch).await;
    let g = app
        .create_game(json!({"variant": "chess2", "fen": PAWN_TAKES_PAWN}))
        .await;
    let duel = g.uri("/duel");
    app.play(&g, &["e4d5"]).await;
    for (secret, body) in [
        (&g.black, json!({"action": "challenge"})),
        (&g.black, json!({"action": "bid", "stones": 1})),
        (
            &g.white,
            json!({"action": "bid", "stones": 2, "gain": true}),
        ),
    ] {
        let (status, v) = app.post(&duel, Some(secret), body.clone()).await;
        assert_eq!(status, StatusCode::OK, "{body}: {v}");
    }
    assert_eq!(app.view(&g).await["moves"][0]["uci"], "e4d5:12");
    assert_comes_back_unchanged(&app, &games, &g).await;
    // The export replays it from the store too.
    evict(&games, &g.id).await;
    let export = app
        .send(actix_web::test::TestRequest::get().uri("/v1/games/export"))
        .await;
    assert_eq!(export.status, StatusCode::OK);
    assert!(export.text().contains("1. e4d5:12"), "{}", export.text());
}

/// Whether the game in `view` waits for a step from `side`.
fn awaits(view: &Value, side: &str) -> bool {
    if view["status"]["result"] != "ongoing" {
        return false;
    }
    let duel = &view["chess2"]["duel"];
    match duel["stage"].as_str() {
        None => view["turn"] == side,
        Some("challenge") => duel["defender"] == side,
        Some(_) => !duel["bids_in"].as_array().unwrap().contains(&json!(side)),
    }
}

/// The game's view once chessd's player (on the sides `bots` names) has nothing left to do.
async fn settled_view(app: &TestApp, g: &GameSecrets, bots: &[&str]) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let view = app.view(g).await;
        if !bots.iter().any(|side| awaits(&view, side)) {
            return view;
        }
        assert!(
            Instant::now() < deadline,
            "chessd's player never acted: {view}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// One random step of the side the settled game waits for (none when it is over): a legal
/// move, a challenge or decline, or a bid of random stones sent with a random gain choice
/// (another bid when that one is over what the side may bid).
async fn random_step(app: &TestApp, g: &GameSecrets, view: &Value, rng: &mut Rng) -> bool {
    let Some(side) = ["white", "black"].into_iter().find(|s| awaits(view, s)) else {
        return false;
    };
    let secret = Some(g.seat(side));
    let duel = &view["chess2"]["duel"];
    let (uri, bodies) = match duel["stage"].as_str() {
        None => {
            let moves = app.get_ok(&g.uri("/legal-moves")).await["moves"].clone();
            let list = moves.as_array().unwrap();
            let mv = list[rng.below(list.len())].clone();
            (g.uri("/moves"), vec![json!({ "uci": mv })])
        }
        Some("challenge") => {
            let action = ["challenge", "decline"][rng.below(2)];
            (g.uri("/duel"), vec![json!({ "action": action })])
        }
        Some(_) => {
            let gain = [None, Some(true), Some(false)][rng.below(3)];
            let first = rng.below(3);
            let bids = [first, 0, 1, 2].map(|stones| {
                let mut body = json!({"action": "bid", "stones": stones});
                if let Some(gain) = gain {
                    body["gain"] = json!(gain);
                }
                body
            });
            (g.uri("/duel"), bids.to_vec())
        }
    };
    for body in bodies {
        let (status, v) = app.post(&uri, secret, body.clone()).await;
        if status == StatusCode::OK {
            return true;
        }
        assert_eq!(v["error"]["code"], "invalid_bid", "{body}: {v}");
    }
    panic!("no bid was accepted: {view}");
}

#[actix_web::test]
async fn random_games_of_both_variants_come_back_from_the_store_as_played() {
    let (state, scratch) = scratch_state(Config::defaults(), None).await;
    let games = state.games.clone();
    let app = TestApp::with_scratch_state(state, scratch).await;
    let mut rng = Rng(0x0ddb_a11c_0ffe_e123);
    let armies = ["c", "n", "e", "r", "k", "a"];
    let bot = |plays: &str| json!({"engine": "builtin", "plays": plays, "go": {"depth": 1}});
    let mut bodies = vec![
        (json!({}), vec![]),
        (
            json!({"fen": PAWN_TAKES_PAWN.replace(" cc 33", "")}),
            vec![],
        ),
    ];
    for bots in [vec![], vec!["black"], vec!["white"], vec![]] {
        let mut body = json!({"variant": "chess2", "armies": {
            "white": armies[rng.below(6)], "black": armies[rng.below(6)]}});
        if let [side] = bots[..] {
            body["opponent"] = bot(side);
        }
        bodies.push((body, bots));
    }
    for (body, bots) in bodies {
        let g = app.create_game(body.clone()).await;
        for _round in 0..4 {
            for _ in 0..12 {
                let view = settled_view(&app, &g, &bots).await;
                if !random_step(&app, &g, &view, &mut rng).await {
                    break;
                }
            }
            settled_view(&app, &g, &bots).await;
            assert_comes_back_unchanged(&app, &games, &g).await;
        }
        eprintln!(
            "{body}: {} moves",
            app.view(&g).await["moves"].as_array().unwrap().len()
        );
    }
}

/// Waits until the store holds game `id` packed, every entry in its record.
async fn packed_in_store(games: &Games, id: &str) -> StoredGame {
    let id: Uuid = id.parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let stored = games.store().load_game(&id).await.unwrap().unwrap();
        if stored.packed.is_some() && stored.entries.is_empty() {
            return stored;
        }
        assert!(Instant::now() < deadline, "the journal was never packed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A game that leaves memory is packed by the server itself; it comes back from its record,
/// plays on (its new moves are rows after the record, and no entry can be written again at a
/// version the record holds), and is packed again once over.
#[actix_web::test]
async fn a_game_leaving_memory_is_packed_and_plays_on_from_its_record() {
    let (app, games) = evicting_app().await;
    let g = app.create_game(json!({})).await;
    app.play(&g, &["e2e4", "c7c5", "g1f3", "d7d6"]).await;
    let (status, v) = app
        .post(&g.uri("/draw-offer"), Some(&g.white), json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let before = app.view(&g).await;
    assert_eq!(before["draw_offer"], "white", "{before}");

    let stored = packed_in_store(&games, &g.id).await;
    assert_eq!(stored.packed_through, before["version"].as_i64().unwrap());
    assert!(
        stored.packed.as_ref().unwrap().len() < 16,
        "{} bytes",
        stored.packed.as_ref().unwrap().len()
    );
    let (status, after) = app.get(&g.uri("")).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after, before, "the game came back changed");

    // New moves go after the record; a version the record holds is refused.
    app.play(&g, &["d2d4"]).await;
    let seq = stored.seq;
    let again = games.store().write(WriteOp::Append {
        game: seq,
        version: 2,
        body: "c7c6".into(),
        status: None,
        now_ms: 0,
    });
    let err = again.await.unwrap_err();
    assert!(
        matches!(err, StoreError::Conflict { version: 2 }),
        "{err:?}"
    );
    let (status, v) = app.post(&g.uri("/resign"), Some(&g.black), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let over = app.view(&g).await;
    let stored = packed_in_store(&games, &g.id).await;
    assert_eq!(stored.packed_through, over["version"].as_i64().unwrap());
    let (_, after) = app.get(&g.uri("")).await;
    assert_eq!(after["moves"], over["moves"]);
    assert_eq!(after["status"], over["status"]);
    let export = app
        .send(actix_web::test::TestRequest::get().uri("/v1/games/export"))
        .await;
    let pgn = export.text();
    assert!(pgn.contains("1. e4 c5 2. Nf3 d6 3. d4 1-0"), "{pgn}");
}

/// Whether the stored game `id` has a packed record, and whether it has journal rows.
async fn journal_form(games: &Games, id: &str) -> (bool, bool) {
    let stored = games.store().load_game(&id.parse().unwrap()).await;
    let stored = stored.unwrap().unwrap();
    (stored.packed.is_some(), !stored.entries.is_empty())
}

/// Journals written before packing (a store of an earlier version), of games over, are packed
/// by the backlog: each comes back exactly as it was.
#[actix_web::test]
async fn journals_of_an_older_store_are_packed_and_read_the_same() {
    let (state, scratch) = scratch_state(Config::defaults(), None).await;
    let games = state.games.clone();
    let app = TestApp::with_scratch_state(state, scratch).await;
    let timed = json!({"time_control": {"initial_ms": 60_000, "increment_ms": 1_000}});
    let mut played = Vec::new();
    for body in [
        json!({}),
        timed,
        json!({"variant": "chess2", "fen": PAWN_TAKES_PAWN}),
    ] {
        let g = app.create_game(body).await;
        let chess2 = app.view(&g).await["variant"] == "chess2";
        let moves: &[&str] = if chess2 {
            &["e1d2", "e8d7"]
        } else {
            &["e2e4", "e7e5", "d1h5"]
        };
        app.play(&g, moves).await;
        let (status, v) = app.post(&g.uri("/resign"), Some(&g.white), json!({})).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        let view = app.view(&g).await;
        // Left in memory, the game is not packed yet: its journal is rows, as an older
        // server kept every journal.
        assert_eq!(
            journal_form(&games, &g.id).await,
            (false, true),
            "rows only"
        );
        played.push((g, view));
    }
    for (g, _) in &played {
        let id: Uuid = g.id.parse().unwrap();
        games.leave_node(|game| *game == id);
    }
    // Out of memory without being packed (moved away), then packed by the backlog.
    until_no_game_in_memory(&games, "the games never left memory").await;
    assert_eq!(games.packer().pack_backlog().await.unwrap(), played.len());
    assert_eq!(
        games.packer().pack_backlog().await.unwrap(),
        0,
        "nothing is left"
    );
    for (g, before) in played {
        assert_eq!(journal_form(&games, &g.id).await, (true, false), "packed");
        let (status, after) = app.get(&g.uri("")).await;
        assert_eq!(status, StatusCode::OK, "{after}");
        assert_eq!(after["moves"], before["moves"]);
        assert_eq!(after["status"], before["status"]);
        assert_eq!(after["fen"], before["fen"]);
        // A finished game's clocks are kept to the centisecond.
        for side in ["white_ms", "black_ms"] {
            let centis = |v: &Value| v["clocks"][side].as_u64().map(|ms| (ms + 5) / 10 * 10);
            assert_eq!(centis(&after), centis(&before), "{side}");
            assert_eq!(after["clocks"][side].as_u64(), centis(&before), "{side}");
        }
        assert_eq!(after["version"], before["version"]);
    }
}
