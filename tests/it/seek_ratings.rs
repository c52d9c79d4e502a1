//! Seeks and ratings (issue 32): a seek names its owner (name, rating in the seek's variant and
//! class, provisional flag) in `GET /v1/seeks` and on the lobby socket, and its `rating_range`
//! is enforced when it is accepted (`409 rating_out_of_range`, the seek left open and unchanged),
//! on SQLite and on PostgreSQL. Ratings are set in the database directly, so that they are
//! known exactly.

use actix_web::http::StatusCode;
use serde_json::{json, Value};

use crate::common::{
    self,
    app::{request, TestApp},
    Server,
};

const TOKEN: &str = "X-Player-Token";

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// Sets a player's rating (and deviation) in a variant and class, in the database at `url`
/// (`sqlite://…` or `postgres://…`).
pub(crate) async fn set_rating(
    url: &str,
    player: &str,
    variant: &str,
    class: &str,
    rating: f64,
    deviation: f64,
) {
    use sqlx::Connection;
    let sql = "INSERT INTO player_ratings (player, variant, class, rating, deviation, volatility, \
               games, updated_ms) VALUES ($1, $2, $3, $4, $5, 0.06, 10, 0) \
               ON CONFLICT (player, variant, class) \
               DO UPDATE SET rating = excluded.rating, deviation = excluded.deviation";
    macro_rules! run {
        ($conn:expr) => {
            sqlx::query(sql)
                .bind(player)
                .bind(variant)
                .bind(class)
                .bind(rating)
                .bind(deviation)
                .execute(&mut $conn)
                .await
                .expect("the rating is written")
        };
    }
    if url.starts_with("sqlite://") {
        let mut conn = sqlx::SqliteConnection::connect(url).await.unwrap();
        run!(conn);
    } else {
        let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
        run!(conn);
    }
}

/// The app with unlimited quotas and player creations, on the store at `url` (`None`: a
/// scratch SQLite file); and the store's URL.
pub(crate) async fn app(url: Option<String>) -> (TestApp, String) {
    let mut config = chessd_server::Config::defaults();
    config.quotas = chessd_server::config::QuotasConfig::unlimited();
    config.players.creates_per_minute = 0;
    config.players.creates_per_minute_total = 0;
    if let Some(url) = &url {
        config.store.url = url.clone();
    }
    let (state, scratch) = common::app::scratch_state(config, None).await;
    let url = match &scratch {
        Some(path) => format!("sqlite://{}", path.display()),
        None => url.expect("a store named"),
    };
    (TestApp::with_scratch_state(state, scratch).await, url)
}

/// Sends `method uri` with an optional player token, bearer secret and JSON body.
pub(crate) async fn call(
    app: &TestApp,
    method: &str,
    uri: &str,
    token: Option<&str>,
    secret: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut req = request(method, uri, secret, body.as_ref());
    if let Some(t) = token {
        req = req.insert_header((TOKEN, t));
    }
    app.call(req).await
}

/// A new player (named when `name` is given): (id, token).
pub(crate) async fn player(app: &TestApp, name: Option<&str>) -> (String, String) {
    let body = name.map(|n| json!({"name": n, "password": format!("{n}'s password")}));
    let (status, v) = call(app, "POST", "/v1/players", None, None, body).await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    (
        v["id"].as_str().unwrap().to_string(),
        v["token"].as_str().unwrap().to_string(),
    )
}

/// Posts a seek (as `token`'s player, if any); asserts 201.
pub(crate) async fn post_seek(app: &TestApp, token: Option<&str>, body: Value) -> Value {
    let (status, v) = call(app, "POST", "/v1/seeks", token, None, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    v
}

/// 3+2: blitz by lichess's rule (180 + 40 × 2 = 260 s).
fn blitz() -> Value {
    json!({"initial_ms": 180000, "increment_ms": 2000})
}

#[actix_web::test]
async fn a_seeks_rating_range_is_enforced_at_accept_and_a_refused_accept_leaves_it_open() {
    let (app, url) = app(None).await;
    rating_ranges(&app, &url).await;
}

#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
#[actix_web::test]
async fn rating_ranges_are_enforced_the_same_way_in_postgresql() {
    let pg = common::postgres::PgServer::start();
    let (app, url) = app(Some(pg.url.clone())).await;
    rating_ranges(&app, &url).await;
}

async fn rating_ranges(app: &TestApp, url: &str) {
    let (olga_id, olga) = player(app, Some("Olga")).await;
    let (low_id, low) = player(app, None).await;
    let (high_id, high) = player(app, None).await;
    let (_, fresh) = player(app, None).await;
    set_rating(url, &olga_id, "standard", "blitz", 1650.4, 60.0).await;
    set_rating(url, &low_id, "standard", "blitz", 1400.0, 60.0).await;
    // A rating of another class or variant does not count.
    set_rating(url, &low_id, "standard", "bullet", 1700.0, 60.0).await;
    set_rating(url, &low_id, "chess2", "blitz", 1700.0, 60.0).await;
    set_rating(url, &high_id, "standard", "blitz", 1749.6, 200.0).await;

    // Posted upside down, read in order; the listing names the owner as it is now.
    let posted = post_seek(
        app,
        Some(&olga),
        json!({"time_control": blitz(), "color": "white",
               "rating_range": {"min": 1800, "max": 1600}}),
    )
    .await;
    let id = posted["id"].as_str().unwrap().to_string();
    let secret = posted["secret"].as_str().unwrap().to_string();
    let view = posted["view"].clone();
    assert_eq!(view["class"], "blitz", "{view}");
    assert_eq!(
        view["owner"],
        json!({"name": "Olga", "rating": 1650, "provisional": false})
    );
    assert_eq!(
        view["seek"]["rating_range"],
        json!({"min": 1600, "max": 1800})
    );
    let listed = app.get_ok("/v1/seeks").await;
    assert_eq!(listed["seeks"], json!([view.clone()]));

    // Refused: 1400 (its 1700s are in another class and variant), no player (1500), a player
    // never rated (1500); and again, the same (a retry is as safe as the first try).
    let accept = format!("/v1/seeks/{id}/accept");
    for (who, token) in [
        ("1400", Some(low.as_str())),
        ("no player", None),
        ("never rated", Some(fresh.as_str())),
        ("1400 again", Some(low.as_str())),
    ] {
        let (status, v) = call(app, "POST", &accept, token, None, None).await;
        assert_eq!(
            (status, code(&v)),
            (StatusCode::CONFLICT, "rating_out_of_range"),
            "{who}: {v}"
        );
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("1600 to 1800"),
            "{v}"
        );
        // The seek is open and unchanged.
        let listed = app.get_ok("/v1/seeks").await;
        assert_eq!(listed["seeks"], json!([view.clone()]), "after {who}");
        let (status, owned) = call(
            app,
            "GET",
            &format!("/v1/seeks/{id}"),
            None,
            Some(&secret),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(owned["status"], "open", "after {who}: {owned}");
        assert_eq!(owned["view"], view);
    }

    // 1750 (1749.6 rounded) is inside: the game is made with both players' ratings.
    let (status, seat) = call(app, "POST", &accept, Some(&high), None, None).await;
    assert_eq!(status, StatusCode::CREATED, "{seat}");
    assert_eq!(seat["color"], "black");
    let game = app
        .get_ok(&format!("/v1/games/{}", seat["id"].as_str().unwrap()))
        .await;
    assert_eq!(game["players"]["white"]["name"], "Olga", "{game}");
    assert_eq!(game["players"]["white"]["rating"], 1650);
    assert_eq!(game["players"]["black"]["id"], high_id.as_str());
    assert_eq!(game["players"]["black"]["rating"], 1750);
    assert_eq!(app.get_ok("/v1/seeks").await["seeks"], json!([]));
    let (status, v) = call(app, "POST", &accept, Some(&high), None, None).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::CONFLICT, "seek_taken"),
        "{v}"
    );

    // A range around 1500 lets anyone without a rating in: a seek without a player, untimed
    // (classical), accepted by a client without one.
    let posted = post_seek(
        app,
        None,
        json!({"rating_range": {"min": 1400, "max": 1600}}),
    )
    .await;
    assert_eq!(posted["view"]["class"], "classical");
    assert_eq!(posted["view"]["owner"], Value::Null, "{posted}");
    let uri = format!("/v1/seeks/{}/accept", posted["id"].as_str().unwrap());
    let (status, v) = call(app, "POST", &uri, None, None, None).await;
    assert_eq!(status, StatusCode::CREATED, "{v}");

    // An anonymous player never rated: no name, no rating, provisional.
    let posted = post_seek(app, Some(&fresh), json!({"time_control": blitz()})).await;
    assert_eq!(
        posted["view"]["owner"],
        json!({"name": null, "rating": null, "provisional": true})
    );
    // With a rating: its own, provisional while the deviation is over 110.
    let posted = post_seek(app, Some(&high), json!({"time_control": blitz()})).await;
    assert_eq!(
        posted["view"]["owner"],
        json!({"name": null, "rating": 1750, "provisional": true})
    );

    // A rated seek still needs a player first: no player is 401 player_required, not a range
    // refusal.
    let posted = post_seek(
        app,
        Some(&olga),
        json!({"time_control": blitz(), "rated": true,
               "rating_range": {"min": 1000, "max": 1200}}),
    )
    .await;
    let uri = format!("/v1/seeks/{}/accept", posted["id"].as_str().unwrap());
    let (status, v) = call(app, "POST", &uri, None, None, None).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::UNAUTHORIZED, "player_required"),
        "{v}"
    );
    let (status, v) = call(app, "POST", &uri, Some(&low), None, None).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::CONFLICT, "rating_out_of_range"),
        "{v}"
    );
    // Its owner, outside its own range, is told it is its own, by player or by secret.
    let (status, v) = call(app, "POST", &uri, Some(&olga), None, None).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::CONFLICT, "own_seek"),
        "{v}"
    );
    let own_secret = posted["secret"].as_str();
    let (status, v) = call(app, "POST", &uri, Some(&low), own_secret, None).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::CONFLICT, "own_seek"),
        "{v}"
    );
}

/// POSTs JSON over awc with an optional player token; the status and JSON body.
pub(crate) async fn post_as(
    c: &awc::Client,
    url: &str,
    token: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    let mut req = c.post(url);
    if let Some(t) = token {
        req = req.insert_header((TOKEN, t));
    }
    let mut resp = req.send_json(body).await.expect("request sent");
    let status = resp.status().as_u16();
    let bytes = resp.body().await.expect("body");
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// The next JSON frame of `type` on a lobby socket, skipping others; panics after 10 s.
async fn frame_of(conn: &mut common::WsConn, kind: &str) -> Value {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        assert!(tokio::time::Instant::now() < deadline, "no {kind} frame");
        let v = common::ws_json(conn).await;
        if v["type"] == kind {
            return v;
        }
    }
}

#[actix_web::test]
async fn the_lobby_socket_names_a_seeks_owner_with_their_rating() {
    let server = Server::start(&[("CHESSD_LOBBY__POLL_MS", "50")]);
    let base = server.base.clone();
    let db = format!("sqlite://{}", server.store_path().unwrap().display());
    let c = common::client();
    let ws_url = format!("{}/v1/lobby/ws", base.replacen("http", "ws", 1));
    let mut watcher = common::ws_connect(&c, &ws_url).await;
    assert_eq!(frame_of(&mut watcher, "seeks").await["seeks"], json!([]));

    let (status, made) = post_as(
        &c,
        &format!("{base}/v1/players"),
        None,
        &json!({"name": "Rita", "password": "rita's password"}),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let token = made["token"].as_str().unwrap();
    set_rating(
        &db,
        made["id"].as_str().unwrap(),
        "standard",
        "bullet",
        1987.0,
        45.0,
    )
    .await;

    let (status, posted) = post_as(
        &c,
        &format!("{base}/v1/seeks"),
        Some(token),
        &json!({"time_control": {"initial_ms": 60000, "increment_ms": 0},
                "rating_range": {"min": 1800, "max": 2200}}),
    )
    .await;
    assert_eq!(status, 201, "{posted}");
    let owner = json!({"name": "Rita", "rating": 1987, "provisional": false});
    let added = frame_of(&mut watcher, "seek_added").await;
    assert_eq!(added["seek"]["id"], posted["id"], "{added}");
    assert_eq!(added["seek"]["owner"], owner);
    assert_eq!(added["seek"]["class"], "bullet");
    assert_eq!(added["seek"], posted["view"]);
    // A socket opened later lists it the same way.
    let mut late = common::ws_connect(&c, &ws_url).await;
    let listed = frame_of(&mut late, "seeks").await;
    assert_eq!(listed["seeks"], json!([posted["view"].clone()]));

    // Accepted by a client without a player (1500): refused, still listed.
    let accept = format!("{base}/v1/seeks/{}/accept", posted["id"].as_str().unwrap());
    let (status, v) = post_as(&c, &accept, None, &json!({})).await;
    assert_eq!((status, code(&v)), (409, "rating_out_of_range"), "{v}");
    let (_, list) = common::get_json(&c, &format!("{base}/v1/seeks")).await;
    assert_eq!(list["seeks"], json!([posted["view"].clone()]));
}
