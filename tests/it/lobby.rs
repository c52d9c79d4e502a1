//! The lobby (issue 32): seeks over the API (post, list, read, cancel, accept once), their
//! limits, the lobby socket on the real binary (a seek appears, its owner is told of the accept,
//! it disappears; a held seek outlives its socket by the grace period only), and Glicko-2
//! against the worked example of Glickman's paper.

use std::time::Duration;

use actix_web::http::StatusCode;
use serde_json::{json, Value};

use crate::common::{
    self,
    app::{request, TestApp},
    Server,
};

/// The app with unlimited game quotas (every in-process request is the same client).
async fn app(tweak: impl FnOnce(&mut chessd_server::Config)) -> TestApp {
    TestApp::tweaked(|c| {
        c.quotas = chessd_server::config::QuotasConfig::unlimited();
        tweak(c);
    })
    .await
}

/// Posts a seek; asserts 201 and returns the answer.
async fn post_seek(app: &TestApp, body: Value) -> Value {
    let (status, v) = app.post("/v1/seeks", None, body).await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    v
}

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

#[actix_web::test]
async fn a_seek_is_posted_listed_accepted_once_and_both_players_get_their_seats() {
    let app = app(|_| {}).await;
    let posted = post_seek(
        &app,
        json!({"variant": "chess", "time_control": {"initial_ms": 180000, "increment_ms": 2000},
               "color": "white", "rated": false}),
    )
    .await;
    let id = posted["id"].as_str().unwrap().to_string();
    let secret = posted["secret"].as_str().unwrap().to_string();
    assert_eq!(posted["view"]["seek"]["variant"], "standard");
    let list = app.get_ok("/v1/seeks").await;
    let ids: Vec<&str> = list["seeks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [id.as_str()]);
    assert_eq!(list["seeks"][0]["seek"]["color"], "white");
    assert!(list["seeks"][0].get("secret").is_none(), "{list}");

    // Its owner reads it with its secret only.
    let uri = format!("/v1/seeks/{id}");
    let (status, v) = app.get(&uri).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    let (status, v) = app
        .call(request(
            "GET",
            &uri,
            Some("0123456789abcdef0123456789abcdef"),
            None,
        ))
        .await;
    assert_eq!((status, code(&v)), (StatusCode::FORBIDDEN, "forbidden"));
    let (status, v) = app.call(request("GET", &uri, Some(&secret), None)).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["status"], "open");
    assert!(v.get("game").is_none());

    // Never accepted with its own secret.
    let accept = format!("/v1/seeks/{id}/accept");
    let (status, v) = app.post(&accept, Some(&secret), json!({})).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::CONFLICT, "own_seek"),
        "{v}"
    );

    // Accepted: the accepter plays Black (the owner asked for White), in a 3+2 game.
    let (status, seat) = app.post(&accept, None, json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{seat}");
    assert_eq!(seat["color"], "black");
    let game = seat["id"].as_str().unwrap().to_string();
    let view = app.get_ok(&format!("/v1/games/{game}")).await;
    assert_eq!(
        view["options"]["time_control"]["initial_ms"], 180000,
        "{view}"
    );
    assert_eq!(
        view["options"]["time_control"]["increment_ms"], 2000,
        "{view}"
    );

    // The seek is gone from the list; a second accept is refused.
    assert_eq!(app.get_ok("/v1/seeks").await["seeks"], json!([]));
    let (status, v) = app.post(&accept, None, json!({})).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::CONFLICT, "seek_taken"),
        "{v}"
    );
    let (status, v) = app.delete(&uri, Some(&secret)).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::CONFLICT, "seek_taken"),
        "{v}"
    );

    // The owner reads its seat: White, in the same game.
    let (status, owned) = app.call(request("GET", &uri, Some(&secret), None)).await;
    assert_eq!(status, StatusCode::OK, "{owned}");
    assert_eq!(owned["status"], "accepted");
    assert_eq!(owned["game"]["id"], game.as_str());
    assert_eq!(owned["game"]["color"], "white");
    let white = owned["game"]["secret"].as_str().unwrap();
    let black = seat["secret"].as_str().unwrap();
    let moves = format!("/v1/games/{game}/moves");
    // Each seat is its own: Black cannot move for White, White can; then Black.
    let (status, v) = app.post(&moves, Some(black), json!({"uci": "e2e4"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{v}");
    let (status, v) = app.post(&moves, Some(white), json!({"uci": "e2e4"})).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let (status, v) = app.post(&moves, Some(black), json!({"uci": "e7e5"})).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    // The seek's secret itself is not a seat.
    let (status, v) = app
        .post(&moves, Some(&secret), json!({"uci": "g1f3"}))
        .await;
    assert!(
        status == StatusCode::FORBIDDEN || status == StatusCode::UNAUTHORIZED,
        "{v}"
    );
}

#[actix_web::test]
async fn a_chess2_seek_makes_a_chess2_game_with_its_armies_and_random_colours_vary() {
    let app = app(|_| {}).await;
    let posted = post_seek(
        &app,
        json!({"variant": "chess2", "armies": {"white": "a", "black": "r"},
               "time_control": {"initial_ms": 300000, "increment_ms": 3000}}),
    )
    .await;
    let id = posted["id"].as_str().unwrap();
    let (status, seat) = app
        .post(&format!("/v1/seeks/{id}/accept"), None, json!({}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{seat}");
    let view = app
        .get_ok(&format!("/v1/games/{}", seat["id"].as_str().unwrap()))
        .await;
    assert_eq!(
        view["chess2"]["armies"],
        json!({"white": "a", "black": "r"}),
        "{view}"
    );
    // A bad army or variant is refused before anything is stored.
    let (status, v) = app
        .post(
            "/v1/seeks",
            None,
            json!({"variant": "chess2", "armies": {"white": "z"}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    let (status, v) = app.post("/v1/seeks", None, json!({"variant": "go"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    let (status, v) = app
        .post("/v1/seeks", None, json!({"armies": {"white": "a"}}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    assert_eq!(app.get_ok("/v1/seeks").await["seeks"], json!([]));
    // `random`: over 24 accepts both colours come up (the chance of one colour only is 2^-23).
    let mut colours = std::collections::BTreeSet::new();
    for _ in 0..24 {
        let posted = post_seek(&app, json!({})).await;
        let id = posted["id"].as_str().unwrap();
        let (_, seat) = app
            .post(&format!("/v1/seeks/{id}/accept"), None, json!({}))
            .await;
        colours.insert(seat["color"].as_str().unwrap().to_string());
    }
    assert_eq!(colours.len(), 2, "{colours:?}");
}

#[actix_web::test]
async fn a_seek_is_cancelled_with_its_secret_only() {
    let app = app(|_| {}).await;
    let posted = post_seek(&app, json!({})).await;
    let id = posted["id"].as_str().unwrap();
    let secret = posted["secret"].as_str().unwrap();
    let uri = format!("/v1/seeks/{id}");
    let (status, v) = app.delete(&uri, None).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    let (status, v) = app
        .delete(&uri, Some("0123456789abcdef0123456789abcdef"))
        .await;
    assert_eq!((status, code(&v)), (StatusCode::FORBIDDEN, "forbidden"));
    assert_eq!(
        app.get_ok("/v1/seeks").await["seeks"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let (status, _) = app.delete(&uri, Some(secret)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(app.get_ok("/v1/seeks").await["seeks"], json!([]));
    let (status, v) = app.post(&format!("{uri}/accept"), None, json!({})).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::NOT_FOUND, "seek_not_found")
    );
}

#[actix_web::test]
async fn of_concurrent_accepts_exactly_one_wins() {
    let app = app(|_| {}).await;
    for _ in 0..5 {
        let posted = post_seek(&app, json!({})).await;
        let accept = format!("/v1/seeks/{}/accept", posted["id"].as_str().unwrap());
        let tries: Vec<_> = (0..6).map(|_| app.post(&accept, None, json!({}))).collect();
        let answers = futures_util::future::join_all(tries).await;
        let won: Vec<&Value> = answers
            .iter()
            .filter(|(s, _)| *s == StatusCode::CREATED)
            .map(|(_, v)| v)
            .collect();
        assert_eq!(won.len(), 1, "{answers:?}");
        for (status, v) in &answers {
            if *status != StatusCode::CREATED {
                assert_eq!(
                    (*status, code(v)),
                    (StatusCode::CONFLICT, "seek_taken"),
                    "{v}"
                );
            }
        }
        // The winner's game exists.
        let game = won[0]["id"].as_str().unwrap();
        app.get_ok(&format!("/v1/games/{game}")).await;
    }
}

#[actix_web::test]
async fn seek_flooding_is_refused_per_client_and_in_total() {
    let app = app(|c| c.quotas.max_seeks = 3).await;
    let mut posted = Vec::new();
    for _ in 0..3 {
        posted.push(post_seek(&app, json!({})).await);
    }
    let (status, v) = app.post("/v1/seeks", None, json!({})).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::TOO_MANY_REQUESTS, "quota_exceeded"),
        "{v}"
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("quotas.max_seeks"),
        "{v}"
    );
    assert_eq!(
        app.get_ok("/v1/seeks").await["seeks"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    // A place comes back when a seek is cancelled (or accepted).
    let first = &posted[0];
    let uri = format!("/v1/seeks/{}", first["id"].as_str().unwrap());
    let (status, _) = app.delete(&uri, first["secret"].as_str()).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    post_seek(&app, json!({})).await;

    let app = app_total(2).await;
    post_seek(&app, json!({})).await;
    post_seek(&app, json!({})).await;
    let (status, v) = app.post("/v1/seeks", None, json!({})).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::SERVICE_UNAVAILABLE, "too_many_seeks"),
        "{v}"
    );
}

async fn app_total(total: usize) -> TestApp {
    app(|c| c.limits.max_seeks = total).await
}

#[actix_web::test]
async fn a_seek_expires_after_its_ttl() {
    let app = app(|c| c.lobby.seek_ttl_secs = 1).await;
    let posted = post_seek(&app, json!({})).await;
    assert_eq!(
        app.get_ok("/v1/seeks").await["seeks"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(app.get_ok("/v1/seeks").await["seeks"], json!([]));
    let accept = format!("/v1/seeks/{}/accept", posted["id"].as_str().unwrap());
    let (status, v) = app.post(&accept, None, json!({})).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::NOT_FOUND, "seek_not_found")
    );
}

#[actix_web::test]
async fn without_a_database_the_lobby_says_so() {
    let app = app(|c| c.store.url = "memory".into()).await;
    let (status, v) = app.post("/v1/seeks", None, json!({})).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::SERVICE_UNAVAILABLE, "lobby_unavailable")
    );
}

/// The next JSON frame of `type` on a lobby socket, skipping others; panics after 10 s.
async fn frame_of(conn: &mut common::WsConn, kind: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        assert!(tokio::time::Instant::now() < deadline, "no {kind} frame");
        let v = common::ws_json(conn).await;
        if v["type"] == kind {
            return v;
        }
    }
}

#[actix_web::test]
async fn the_lobby_socket_sees_seeks_come_and_go_and_tells_the_owner_of_the_accept() {
    let server = Server::start(&[
        ("CHESSD_LOBBY__POLL_MS", "50"),
        ("CHESSD_LOBBY__SEEK_GRACE_SECS", "1"),
    ]);
    let base = server.base.clone();
    let c = common::client();
    let ws_url = format!("{}/v1/lobby/ws", base.replacen("http", "ws", 1));
    let mut watcher = common::ws_connect(&c, &ws_url).await;
    assert_eq!(frame_of(&mut watcher, "seeks").await["seeks"], json!([]));

    // The owner posts a seek and holds it from its own socket.
    let (status, posted) = common::post_json(
        &c,
        &format!("{base}/v1/seeks"),
        None,
        &json!({"color": "black", "time_control": {"initial_ms": 60000, "increment_ms": 0}}),
    )
    .await;
    assert_eq!(status, 201, "{posted}");
    let id = posted["id"].as_str().unwrap().to_string();
    let secret = posted["secret"].as_str().unwrap().to_string();
    let added = frame_of(&mut watcher, "seek_added").await;
    assert_eq!(added["seek"]["id"], id.as_str());
    assert_eq!(added["seek"]["seek"]["color"], "black");
    let mut owner = common::ws_connect(&c, &ws_url).await;
    let listed = frame_of(&mut owner, "seeks").await;
    assert_eq!(listed["seeks"][0]["id"], id.as_str(), "{listed}");
    common::ws_send(
        &mut owner,
        &json!({"type": "hold", "id": id, "secret": "wrong"}),
    )
    .await;
    assert_eq!(frame_of(&mut owner, "error").await["code"], "forbidden");
    common::ws_send(
        &mut owner,
        &json!({"type": "hold", "id": id, "secret": secret}),
    )
    .await;
    assert_eq!(frame_of(&mut owner, "holding").await["id"], id.as_str());

    // Accepted by another player: the owner hears its seat, the watcher sees the seek go.
    let (status, seat) = common::post_json(
        &c,
        &format!("{base}/v1/seeks/{id}/accept"),
        None,
        &json!({}),
    )
    .await;
    assert_eq!(status, 201, "{seat}");
    assert_eq!(seat["color"], "white");
    let told = frame_of(&mut owner, "accepted").await;
    assert_eq!(told["seek"], id.as_str());
    assert_eq!(told["game"]["id"], seat["id"]);
    assert_eq!(told["game"]["color"], "black");
    assert_eq!(
        frame_of(&mut watcher, "seek_removed").await["id"],
        id.as_str()
    );
    // Both seats play: White's move, then Black's with the secret the socket told.
    let game = seat["id"].as_str().unwrap();
    let moves = format!("{base}/v1/games/{game}/moves");
    let white = seat["secret"].as_str();
    let (status, v) = common::post_json(&c, &moves, white, &json!({"uci": "d2d4"})).await;
    assert_eq!(status, 200, "{v}");
    let black = told["game"]["secret"].as_str();
    let (status, v) = common::post_json(&c, &moves, black, &json!({"uci": "d7d5"})).await;
    assert_eq!(status, 200, "{v}");

    // A held seek outlives its TTL while the socket is open, and goes a grace period after
    // the socket closes.
    let (_, posted) = common::post_json(&c, &format!("{base}/v1/seeks"), None, &json!({})).await;
    let id = posted["id"].as_str().unwrap().to_string();
    common::ws_send(
        &mut owner,
        &json!({"type": "hold", "id": id, "secret": posted["secret"]}),
    )
    .await;
    assert_eq!(frame_of(&mut owner, "holding").await["id"], id.as_str());
    assert_eq!(
        frame_of(&mut watcher, "seek_added").await["seek"]["id"],
        id.as_str()
    );
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (_, list) = common::get_json(&c, &format!("{base}/v1/seeks")).await;
    assert_eq!(
        list["seeks"][0]["id"],
        id.as_str(),
        "held past the grace: {list}"
    );
    drop(owner);
    let removed = frame_of(&mut watcher, "seek_removed").await;
    assert_eq!(removed["id"], id.as_str());
    let (_, list) = common::get_json(&c, &format!("{base}/v1/seeks")).await;
    assert_eq!(list["seeks"], json!([]));
}

#[test]
fn glicko2_matches_the_worked_example_of_glickmans_paper() {
    use chessd_server::lobby::glicko::{update, Outcome, Rating};
    let player = Rating {
        rating: 1500.0,
        deviation: 200.0,
        volatility: 0.06,
    };
    let opponent = |rating, deviation| Rating {
        rating,
        deviation,
        volatility: 0.06,
    };
    let outcomes = [
        Outcome {
            opponent: opponent(1400.0, 30.0),
            score: 1.0,
        },
        Outcome {
            opponent: opponent(1550.0, 100.0),
            score: 0.0,
        },
        Outcome {
            opponent: opponent(1700.0, 300.0),
            score: 0.0,
        },
    ];
    let after = update(player, &outcomes, 0.5);
    assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
    assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
    assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    // A period without games only widens the deviation.
    let idle = update(player, &[], 0.5);
    assert_eq!(idle.rating, 1500.0);
    assert!(idle.deviation > 200.0 && idle.deviation < 201.0, "{idle:?}");
    assert!(!after.provisional() || after.deviation > 110.0);
    assert!(Rating::default().provisional());
}

#[test]
fn time_controls_fall_in_lichess_classes_by_estimated_duration() {
    use chessd_server::lobby::glicko::Class;
    let class = |base_s: u64, inc_s: u64| Class::of(base_s * 1000, inc_s * 1000);
    assert_eq!(class(60, 0), Class::Bullet);
    assert_eq!(class(120, 1), Class::Bullet); // 160 s
    assert_eq!(class(180, 0), Class::Blitz); // 180 s
    assert_eq!(class(178, 0), Class::Bullet);
    assert_eq!(class(179, 0), Class::Blitz);
    assert_eq!(class(180, 2), Class::Blitz); // 260 s
    assert_eq!(class(300, 3), Class::Blitz); // 420 s
    assert_eq!(class(478, 0), Class::Blitz);
    assert_eq!(class(479, 0), Class::Rapid);
    assert_eq!(class(600, 0), Class::Rapid);
    assert_eq!(class(900, 10), Class::Rapid); // 1300 s
    assert_eq!(class(1498, 0), Class::Rapid);
    assert_eq!(class(1499, 0), Class::Classical);
    assert_eq!(class(1800, 0), Class::Classical);
    assert_eq!(Class::of(178_999, 0), Class::Bullet);
}

#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn a_seek_posted_on_one_node_is_seen_and_accepted_on_another() {
    use crate::common::{
        cluster::{settled, start_node},
        postgres::PgServer,
    };
    let pg = PgServer::start();
    let lobby = [("CHESSD_LOBBY__POLL_MS", "50")];
    let a = start_node(&pg, 1500, &lobby);
    let b = start_node(&pg, 1500, &lobby);
    let c = common::client();
    settled(&c, &a.base, 2).await;
    let ws = |s: &Server| format!("{}/v1/lobby/ws", s.base.replacen("http", "ws", 1));
    let mut on_b = common::ws_connect(&c, &ws(&b)).await;
    assert_eq!(frame_of(&mut on_b, "seeks").await["seeks"], json!([]));

    // Posted and held on A; B's socket hears of it from the database.
    let (status, posted) = common::post_json(
        &c,
        &format!("{}/v1/seeks", a.base),
        None,
        &json!({"color": "white", "time_control": {"initial_ms": 300000, "increment_ms": 3000}}),
    )
    .await;
    assert_eq!(status, 201, "{posted}");
    let id = posted["id"].as_str().unwrap().to_string();
    let mut owner = common::ws_connect(&c, &ws(&a)).await;
    frame_of(&mut owner, "seeks").await;
    common::ws_send(
        &mut owner,
        &json!({"type": "hold", "id": id, "secret": posted["secret"]}),
    )
    .await;
    assert_eq!(frame_of(&mut owner, "holding").await["id"], id.as_str());
    assert_eq!(
        frame_of(&mut on_b, "seek_added").await["seek"]["id"],
        id.as_str()
    );

    // Accepted on B: A's owner socket is told, B's socket sees it go, both seats play.
    let accept = format!("{}/v1/seeks/{id}/accept", b.base);
    let (status, seat) = common::post_json(&c, &accept, None, &json!({})).await;
    assert_eq!(status, 201, "{seat}");
    assert_eq!(seat["color"], "black");
    let (status, v) = common::post_json(&c, &accept, None, &json!({})).await;
    assert_eq!((status, code(&v)), (409, "seek_taken"), "{v}");
    let told = frame_of(&mut owner, "accepted").await;
    assert_eq!(told["game"]["id"], seat["id"], "{told}");
    assert_eq!(frame_of(&mut on_b, "seek_removed").await["id"], id.as_str());
    let game = seat["id"].as_str().unwrap();
    for (node, secret, mv) in [
        (&a, told["game"]["secret"].as_str(), "e2e4"),
        (&b, seat["secret"].as_str(), "c7c5"),
    ] {
        let url = format!("{}/v1/games/{game}/moves", node.base);
        let (status, v) = common::post_json(&c, &url, secret, &json!({"uci": mv})).await;
        assert_eq!(status, 200, "{mv} on {}: {v}", node.base);
    }
}
