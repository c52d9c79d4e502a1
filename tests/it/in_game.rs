//! In the game (issue 32): abort in the first moves, takeback offers (and a takeback surviving
//! a restart on SQLite), rematches with colours swapped and a secret per seat, and the
//! players' and spectators' chats with their limits, over REST and WebSocket on the real binary.

use serde_json::{json, Value};

use crate::common::{
    self, client, create_game, scratch_store, ws_connect, ws_json, ws_send, GameSecrets, Server,
    WsConn,
};

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// A test's server and HTTP client.
struct Api {
    c: awc::Client,
    server: Server,
}

impl Api {
    fn start(env: &[(&str, &str)]) -> Api {
        Api {
            c: client(),
            server: Server::start(env),
        }
    }

    fn url(&self, g: &GameSecrets, tail: &str) -> String {
        format!("{}/v1/games/{}{tail}", self.server.base, g.id)
    }

    async fn post(&self, g: &GameSecrets, tail: &str, secret: Option<&str>) -> (u16, Value) {
        common::post_json(&self.c, &self.url(g, tail), secret, &json!({})).await
    }

    async fn post_body(
        &self,
        g: &GameSecrets,
        tail: &str,
        secret: Option<&str>,
        body: Value,
    ) -> (u16, Value) {
        common::post_json(&self.c, &self.url(g, tail), secret, &body).await
    }

    async fn get(&self, g: &GameSecrets, tail: &str, secret: Option<&str>) -> (u16, Value) {
        let mut req = self.c.get(self.url(g, tail));
        if let Some(s) = secret {
            req = req.bearer_auth(s);
        }
        let mut resp = req.send().await.expect("request sent");
        let status = resp.status().as_u16();
        let bytes = resp.body().await.expect("body");
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    async fn play(&self, g: &GameSecrets, side: &str, uci: &str) -> Value {
        let (status, v) = self
            .post_body(g, "/moves", Some(g.seat(side)), json!({ "uci": uci }))
            .await;
        assert_eq!(status, 200, "{uci}: {v}");
        v
    }

    async fn view(&self, g: &GameSecrets) -> Value {
        let (status, v) = self.get(g, "", None).await;
        assert_eq!(status, 200, "{v}");
        v
    }

    async fn ws(&self, g: &GameSecrets, secret: Option<&str>) -> WsConn {
        let query = secret.map(|s| format!("token={s}")).unwrap_or_default();
        let mut conn = ws_connect(&self.c, &self.server.ws_url(&g.id, &query)).await;
        assert_eq!(ws_json(&mut conn).await["type"], "hello");
        assert_eq!(ws_json(&mut conn).await["type"], "state");
        conn
    }
}

/// The next frame of `conn` whose `type` is `kind`, skipping others.
async fn next_of(conn: &mut WsConn, kind: &str) -> Value {
    loop {
        let v = ws_json(conn).await;
        if v["type"] == kind {
            return v;
        }
    }
}

#[actix_web::test]
async fn a_game_is_aborted_in_its_first_moves_only() {
    let api = Api::start(&[]);
    let g = create_game(&api.c, &api.server.base, &json!({})).await;
    let view = api.view(&g).await;
    assert_eq!(view["in_game"]["abortable"], true, "{view}");
    // A spectator may not abort.
    let (status, v) = api.post(&g, "/abort", None).await;
    assert_eq!((status, code(&v)), (401, "unauthorized"), "{v}");
    api.play(&g, "white", "e2e4").await;
    let (status, v) = api.post(&g, "/abort", Some(&g.black)).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"]["result"], "aborted", "{v}");
    assert_eq!(v["in_game"]["abortable"], false);
    let version = v["version"].as_u64().unwrap();
    let (status, v) = api.post(&g, "/abort", Some(&g.white)).await;
    assert_eq!((status, code(&v)), (409, "abort_not_allowed"), "{v}");
    assert_eq!(
        api.view(&g).await["version"],
        version,
        "a refusal changes nothing"
    );

    // Once both sides moved, abort is refused and the game goes on unchanged.
    let g = create_game(&api.c, &api.server.base, &json!({})).await;
    api.play(&g, "white", "e2e4").await;
    let after = api.play(&g, "black", "e7e5").await;
    let (status, v) = api.post(&g, "/abort", Some(&g.white)).await;
    assert_eq!((status, code(&v)), (409, "abort_not_allowed"), "{v}");
    let view = api.view(&g).await;
    assert_eq!(view["status"]["result"], "ongoing");
    assert_eq!(view["version"], after["version"]);
}

#[actix_web::test]
async fn a_takeback_is_offered_declined_accepted_and_survives_a_restart() {
    let store = scratch_store();
    let url = format!("sqlite://{}", store.display());
    let env = [("CHESSD_STORE__URL", url.as_str())];
    let mut api = Api::start(&env);
    let g = create_game(
        &api.c,
        &api.server.base,
        &json!({"time_control": {"initial_ms": 300000, "increment_ms": 0}}),
    )
    .await;
    api.play(&g, "white", "e2e4").await;
    api.play(&g, "black", "e7e5").await;
    let before = api.play(&g, "white", "g1f3").await;
    let mut black = api.ws(&g, Some(&g.black)).await;
    let mut watcher = api.ws(&g, None).await;

    // Nothing to accept yet; Black has no offer of its own to accept either.
    let (status, v) = api.post(&g, "/takeback/accept", Some(&g.black)).await;
    assert_eq!((status, code(&v)), (409, "no_offer"), "{v}");
    // White offers (its own last move, Black to move: one move back); Black declines.
    let (status, v) = api.post(&g, "/takeback", Some(&g.white)).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["in_game"]["takeback_offer"], "white");
    assert_eq!(next_of(&mut black, "takeback_offered").await["by"], "white");
    let (status, v) = api.post(&g, "/takeback/decline", Some(&g.black)).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["in_game"]["takeback_offer"], Value::Null);
    assert_eq!(v["moves"].as_array().unwrap().len(), 3);
    // Offered again, and accepted over the WebSocket.
    api.post(&g, "/takeback", Some(&g.white)).await;
    ws_send(&mut black, &json!({"type": "takeback_accept", "ack": 1})).await;
    let ack = next_of(&mut black, "ack").await;
    assert_eq!(ack["ack"], 1, "{ack}");
    let back = next_of(&mut watcher, "taken_back").await;
    assert_eq!(back["plies"], 1, "{back}");
    assert_eq!(back["moves"], json!(["e2e4", "e7e5"]));
    let view = api.view(&g).await;
    let fen_after = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    assert_eq!(view["fen"], fen_after, "{view}");
    assert_eq!(view["turn"], "white");
    assert_eq!(view["clocks"]["running"], "white", "{view}");
    // A client reconnecting from before the takeback does not replay the undone move.
    let mut late = ws_connect(
        &api.c,
        &api.server
            .ws_url(&g.id, &format!("since={}", before["version"])),
    )
    .await;
    assert_eq!(ws_json(&mut late).await["type"], "hello");
    let resync = ws_json(&mut late).await;
    assert_eq!(resync["type"], "resync", "{resync}");
    assert_eq!(resync["fen"], fen_after);

    // White to move again: its offer takes back two moves (its own and Black's answer).
    api.play(&g, "white", "d2d4").await;
    api.play(&g, "black", "d7d5").await;
    let (status, v) = api.post(&g, "/takeback", Some(&g.white)).await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = api.post(&g, "/takeback/accept", Some(&g.black)).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["fen"], fen_after, "{v}");
    let version = v["version"].clone();
    drop((black, watcher, late));

    // kill -9 and a restart on the same store: the takeback stays.
    api.server.kill_now();
    api.server = Server::start(&env);
    let view = api.view(&g).await;
    assert_eq!(view["fen"], fen_after, "{view}");
    assert_eq!(view["version"], version);
    assert_eq!(view["moves"].as_array().unwrap().len(), 2);
    api.play(&g, "white", "b1c3").await;
    common::remove_sqlite(&store);
}

#[actix_web::test]
async fn a_rematch_swaps_colours_and_gives_each_seat_its_own_secret_once() {
    let api = Api::start(&[]);
    let g = create_game(
        &api.c,
        &api.server.base,
        &json!({"time_control": {"initial_ms": 180000, "increment_ms": 2000}}),
    )
    .await;
    let (status, v) = api.post(&g, "/rematch", Some(&g.white)).await;
    assert_eq!((status, code(&v)), (409, "game_not_over"), "{v}");
    api.play(&g, "white", "e2e4").await;
    api.post(&g, "/resign", Some(&g.black)).await;
    let mut white = api.ws(&g, Some(&g.white)).await;
    let mut watcher = api.ws(&g, None).await;

    let (status, v) = api.post(&g, "/rematch", Some(&g.white)).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["in_game"]["rematch_offer"], "white");
    let (status, v) = api.post(&g, "/rematch/accept", Some(&g.white)).await;
    assert_eq!((status, code(&v)), (409, "no_offer"), "{v}");
    let (status, v) = api.post(&g, "/rematch/accept", None).await;
    assert_eq!(status, 401, "{v}");

    let (status, accepted) = api.post(&g, "/rematch/accept", Some(&g.black)).await;
    assert_eq!(status, 201, "{accepted}");
    assert_eq!(
        accepted["color"], "white",
        "Black plays White in the rematch"
    );
    let id = accepted["id"].as_str().unwrap().to_string();
    assert_ne!(id, g.id);
    // A retried accept gives the same game and secret.
    let (status, again) = api.post(&g, "/rematch/accept", Some(&g.black)).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again, accepted);

    // The offerer's socket is told its own seat; a spectator learns the game only.
    let event = next_of(&mut white, "rematch").await;
    assert_eq!(event["game"], id.as_str());
    let seat = next_of(&mut white, "rematch_seat").await;
    assert_eq!(seat["id"], id.as_str());
    assert_eq!(seat["color"], "black");
    assert_eq!(next_of(&mut watcher, "rematch").await["game"], id.as_str());
    ws_send(&mut watcher, &json!({"type": "ping", "ack": "p"})).await;
    let next = ws_json(&mut watcher).await;
    assert_eq!(next["type"], "pong", "a spectator gets no seat: {next}");
    // The offerer reads the same seat with its old secret; others cannot.
    let (status, read) = api.get(&g, "/rematch", Some(&g.white)).await;
    assert_eq!(status, 200, "{read}");
    assert_eq!(read["secret"], seat["secret"]);
    assert_ne!(read["secret"], accepted["secret"]);
    let (status, _) = api.get(&g, "/rematch", None).await;
    assert_eq!(status, 401);
    let (status, _) = api.get(&g, "/rematch", Some(&g.admin)).await;
    assert_eq!(status, 403);

    // The new game: same time control, colours swapped, each secret proving its own seat.
    let new = GameSecrets {
        id: id.clone(),
        white: accepted["secret"].as_str().unwrap().to_string(),
        black: read["secret"].as_str().unwrap().to_string(),
        admin: String::new(),
    };
    let view = api.view(&new).await;
    assert_eq!(view["options"]["time_control"]["initial_ms"], 180000);
    assert_eq!(view["moves"], json!([]));
    let (status, v) = api
        .post_body(&new, "/moves", Some(&new.black), json!({"uci": "e2e4"}))
        .await;
    assert_eq!((status, code(&v)), (409, "not_your_turn"), "{v}");
    api.play(&new, "white", "e2e4").await;
    api.play(&new, "black", "e7e5").await;
}

#[actix_web::test]
async fn players_and_spectators_chat_apart_within_limits() {
    let api = Api::start(&[
        ("CHESSD_CHAT__MAX_LENGTH", "20"),
        ("CHESSD_CHAT__BURST", "4"),
        ("CHESSD_CHAT__MESSAGES_PER_MINUTE", "4"),
    ]);
    let g = create_game(&api.c, &api.server.base, &json!({})).await;
    let mut white = api.ws(&g, Some(&g.white)).await;
    let mut black = api.ws(&g, Some(&g.black)).await;
    let mut watcher = api.ws(&g, None).await;

    ws_send(
        &mut white,
        &json!({"type": "chat", "text": "good luck", "ack": 1}),
    )
    .await;
    assert_eq!(next_of(&mut white, "ack").await["ack"], 1);
    let line = next_of(&mut black, "chat").await;
    assert_eq!(
        (line["room"].as_str(), line["from"].as_str()),
        (Some("players"), Some("white"))
    );
    assert_eq!(line["text"], "good luck");
    let (status, v) = api
        .post_body(&g, "/chat", None, json!({"text": "<b>nice</b>"}))
        .await;
    assert_eq!(status, 201, "{v}");
    // The spectator's next chat frame is the spectators' line: it never saw the players'.
    let seen = next_of(&mut watcher, "chat").await;
    assert_eq!(
        (seen["room"].as_str(), seen["text"].as_str()),
        (Some("spectators"), Some("<b>nice</b>"))
    );
    // Players do not see the spectators' chat: Black's next chat frame is White's next line.
    let (status, _) = api
        .post_body(&g, "/chat", Some(&g.white), json!({"text": "gg"}))
        .await;
    assert_eq!(status, 201);
    assert_eq!(next_of(&mut black, "chat").await["text"], "gg");
    let (_, log) = api.get(&g, "/chat", Some(&g.black)).await;
    assert_eq!(log["room"], "players");
    let texts: Vec<&str> = log["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["good luck", "gg"]);
    let (_, log) = api.get(&g, "/chat", None).await;
    assert_eq!(log["room"], "spectators");
    assert_eq!(log["lines"].as_array().unwrap().len(), 1);

    // Too long, then flooding: refused, nothing sent.
    let (status, v) = api
        .post_body(&g, "/chat", Some(&g.white), json!({"text": "x".repeat(21)}))
        .await;
    assert_eq!((status, code(&v)), (422, "chat_too_long"), "{v}");
    let mut refused = 0;
    for i in 0..6 {
        let (status, v) = api
            .post_body(
                &g,
                "/chat",
                Some(&g.black),
                json!({"text": format!("flood {i}")}),
            )
            .await;
        if status == 429 {
            assert_eq!(code(&v), "rate_limited");
            refused += 1;
        }
    }
    assert!(
        refused >= 4,
        "the burst of 4 was used by 3 messages before: {refused} refused"
    );
    let (_, log) = api.get(&g, "/chat", Some(&g.white)).await;
    assert!(log["lines"].as_array().unwrap().len() <= 4, "{log}");
    assert!(!log.to_string().contains(&"x".repeat(21)));
}

#[actix_web::test]
async fn chat_is_off_against_an_engine() {
    let api = Api::start(&[]);
    let g = create_game(
        &api.c,
        &api.server.base,
        &json!({"opponent": {"engine": "builtin", "plays": "black", "go": {"depth": 1}}}),
    )
    .await;
    assert_eq!(api.view(&g).await["in_game"]["chat"], false);
    let (status, v) = api
        .post_body(&g, "/chat", Some(&g.white), json!({"text": "hello"}))
        .await;
    assert_eq!((status, code(&v)), (409, "chat_disabled"), "{v}");
    let (status, v) = api.get(&g, "/chat", None).await;
    assert_eq!((status, code(&v)), (409, "chat_disabled"), "{v}");
}
