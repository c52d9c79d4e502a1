//! Players (issue 32): anonymous and named players, login and name claims, their limits, the
//! password kept only as its argon2id hash, identities on seeks and games, and Glicko-2 ratings
//! changed by a rated game's end (checked against a reference computation written here) and not
//! by an aborted one.

use actix_web::http::{header, StatusCode};
use serde_json::{json, Value};

use crate::common::{
    app::{request, scratch_state, until_no_game_in_memory, TestApp},
    GameSecrets,
};

const TOKEN: &str = "X-Player-Token";

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// The app with unlimited quotas and player limits (every in-process request is one client),
/// changed by `tweak`; and its SQLite file.
async fn app(tweak: impl FnOnce(&mut chessd_server::Config)) -> (TestApp, std::path::PathBuf) {
    let mut config = chessd_server::Config::defaults();
    config.quotas = chessd_server::config::QuotasConfig::unlimited();
    config.players.creates_per_minute = 0;
    config.players.creates_per_minute_total = 0;
    config.players.logins_per_minute = 0;
    config.players.logins_per_minute_per_name = 0;
    tweak(&mut config);
    let (state, scratch) = scratch_state(config, None).await;
    let path = scratch.clone().expect("a scratch SQLite file");
    (TestApp::with_scratch_state(state, scratch).await, path)
}

/// Sends `method uri` with a player token and an optional bearer secret and JSON body.
async fn call(
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

/// Creates a player (named when `named` is given); returns (id, token).
async fn player(app: &TestApp, named: Option<(&str, &str)>) -> (String, String) {
    let body = named.map(|(name, password)| json!({"name": name, "password": password}));
    let (status, v) = call(app, "POST", "/v1/players", None, None, body).await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    (
        v["id"].as_str().unwrap().to_string(),
        v["token"].as_str().unwrap().to_string(),
    )
}

#[actix_web::test]
async fn players_are_created_log_in_and_claim_names_and_passwords_are_kept_as_argon2id_only() {
    let (app, db_path) = app(|_| {}).await;
    // Anonymous: an id and a token, also set as an HttpOnly, SameSite=Lax cookie.
    let answer = app.send(request("POST", "/v1/players", None, None)).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    let cookie = answer.header(header::SET_COOKIE).to_string();
    let anon = answer.json();
    let token = anon["token"].as_str().unwrap().to_string();
    assert!(anon["name"].is_null(), "{anon}");
    assert!(
        cookie.starts_with(&format!("chessd_player={token}")),
        "{cookie}"
    );
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    let (status, me) = call(&app, "GET", "/v1/player", Some(&token), None, None).await;
    assert_eq!((status, &me["id"]), (StatusCode::OK, &anon["id"]), "{me}");
    // The cookie proves the player as the header does.
    let (status, me) = app
        .call(
            request("GET", "/v1/player", None, None).cookie(actix_web::cookie::Cookie::new(
                "chessd_player",
                token.clone(),
            )),
        )
        .await;
    assert_eq!((status, &me["id"]), (StatusCode::OK, &anon["id"]), "{me}");
    let (status, v) = call(&app, "GET", "/v1/player", Some("nope"), None, None).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::UNAUTHORIZED, "bad_credentials")
    );

    // A named player; names are unique whatever their case, and checked.
    let password = "correct horse battery staple";
    let (alice, _) = player(&app, Some(("Alice", password))).await;
    for (name, want) in [
        ("alice", (StatusCode::CONFLICT, "name_taken")),
        ("a", (StatusCode::BAD_REQUEST, "invalid_request")),
        ("1abc", (StatusCode::BAD_REQUEST, "invalid_request")),
        ("al ice", (StatusCode::BAD_REQUEST, "invalid_request")),
    ] {
        let body = json!({"name": name, "password": "long enough password"});
        let (status, v) = call(&app, "POST", "/v1/players", None, None, Some(body)).await;
        assert_eq!((status, code(&v)), want, "{name}: {v}");
    }
    let body = json!({"name": "Bobby", "password": "short"});
    let (status, v) = call(&app, "POST", "/v1/players", None, None, Some(body)).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::BAD_REQUEST, "invalid_request"),
        "{v}"
    );

    // Login, in any case of the name: a fresh token that proves the player.
    let body = json!({"name": "ALICE", "password": password});
    let (status, v) = call(&app, "POST", "/v1/players/login", None, None, Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["id"], alice.as_str());
    let fresh = v["token"].as_str().unwrap();
    let (_, me) = call(&app, "GET", "/v1/player", Some(fresh), None, None).await;
    assert_eq!(me["name"], "Alice");
    let body = json!({"name": "alice", "password": "wrong password!"});
    let (status, v) = call(&app, "POST", "/v1/players/login", None, None, Some(body)).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::UNAUTHORIZED, "bad_credentials"),
        "{v}"
    );
    let body = json!({"name": "nobody", "password": password});
    let (status, v) = call(&app, "POST", "/v1/players/login", None, None, Some(body)).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::UNAUTHORIZED, "bad_credentials"),
        "{v}"
    );

    // The anonymous player claims a name; its token stays good; it cannot claim twice.
    let claim_password = "another fine password";
    let body = json!({"name": "Carol", "password": claim_password});
    let (status, v) = call(&app, "POST", "/v1/players", Some(&token), None, Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!((&v["id"], &v["name"]), (&anon["id"], &json!("Carol")));
    let (_, me) = call(&app, "GET", "/v1/player", Some(&token), None, None).await;
    assert_eq!(me["name"], "Carol");
    let body = json!({"name": "Carol2", "password": claim_password});
    let (status, v) = call(&app, "POST", "/v1/players", Some(&token), None, Some(body)).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::CONFLICT, "already_named"),
        "{v}"
    );
    let body = json!({"name": "carol", "password": claim_password});
    let (status, _) = call(&app, "POST", "/v1/players/login", None, None, Some(body)).await;
    assert_eq!(status, StatusCode::OK);
    // The page finds a player by name (any case) or id.
    let page = app.get_ok("/v1/players/CAROL").await;
    assert_eq!(page["player"]["id"], anon["id"]);
    let page = app.get_ok(&format!("/v1/players/{alice}")).await;
    assert_eq!(page["player"]["name"], "Alice");
    let (status, v) = app.get("/v1/players/nobody").await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::NOT_FOUND, "player_not_found")
    );

    // The passwords are argon2id hashes in the database, and their text is nowhere in it (nor
    // in its log).
    let url = format!("sqlite://{}?mode=ro", db_path.display());
    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    let hashes: Vec<(String, String)> =
        sqlx::query_as("SELECT name, password FROM players WHERE password IS NOT NULL")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(hashes.len(), 2, "{hashes:?}");
    for (name, hash) in &hashes {
        assert!(hash.starts_with("$argon2id$"), "{name}: {hash}");
    }
    pool.close().await;
    let mut bytes = Vec::new();
    for suffix in ["", "-wal"] {
        if let Ok(b) = std::fs::read(format!("{}{suffix}", db_path.display())) {
            bytes.extend(b);
        }
    }
    assert!(!bytes.is_empty());
    for secret in [password, claim_password, token.as_str()] {
        let found = bytes.windows(secret.len()).any(|w| w == secret.as_bytes());
        assert!(!found, "'{secret}' is stored in clear");
    }
    drop(app);
}

#[actix_web::test]
async fn login_guesses_and_player_creation_are_rate_limited() {
    let (app, _db) = app(|c| {
        c.players.logins_per_minute_per_name = 3;
        c.players.creates_per_minute = 4;
    })
    .await;
    player(&app, Some(("Dave", "the right password"))).await;
    for _ in 0..2 {
        let body = json!({"name": "dave", "password": "a wrong guess"});
        let (status, v) = call(&app, "POST", "/v1/players/login", None, None, Some(body)).await;
        assert_eq!(
            (status, code(&v)),
            (StatusCode::UNAUTHORIZED, "bad_credentials")
        );
    }
    let body = json!({"name": "dave", "password": "the right password"});
    let (status, _) = call(&app, "POST", "/v1/players/login", None, None, Some(body)).await;
    assert_eq!(status, StatusCode::OK);
    // Over the name's rate: refused before the password is looked at, even the right one.
    for password in ["another guess", "the right password"] {
        let body = json!({"name": "DAVE", "password": password});
        let answer = app
            .send(request("POST", "/v1/players/login", None, Some(&body)))
            .await;
        let v = answer.json();
        assert_eq!(
            (answer.status, code(&v)),
            (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
            "{v}"
        );
        let retry: u64 = answer.header(header::RETRY_AFTER).parse().unwrap();
        assert!((1..=60).contains(&retry), "{retry}");
    }
    // Another name is not limited by Dave's guesses.
    player(&app, Some(("Erin", "erin's password"))).await;
    let body = json!({"name": "erin", "password": "erin's password"});
    let (status, _) = call(&app, "POST", "/v1/players/login", None, None, Some(body)).await;
    assert_eq!(status, StatusCode::OK);
    // Creation: Dave and Erin made two; two more pass, the fifth is refused.
    player(&app, None).await;
    player(&app, None).await;
    let (status, v) = call(&app, "POST", "/v1/players", None, None, None).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
        "{v}"
    );
}

/// One Glicko-2 rating period, written from Glickman's paper ("Example of the Glicko-2
/// system") apart from the server's: (rating, deviation, volatility) after scoring `s` against
/// each (rating, deviation) of `games`, with the system constant `tau`.
fn reference_glicko2(
    me: (f64, f64, f64),
    games: &[((f64, f64), f64)],
    tau: f64,
) -> (f64, f64, f64) {
    let k = 173.7178;
    let (mu, phi, sigma) = ((me.0 - 1500.0) / k, me.1 / k, me.2);
    let g = |phi_j: f64| 1.0 / (1.0 + 3.0 * phi_j.powi(2) / std::f64::consts::PI.powi(2)).sqrt();
    let e = |mu_j: f64, phi_j: f64| 1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp());
    let (mut v_inv, mut gain) = (0.0, 0.0);
    for ((r, rd), s) in games {
        let (mu_j, phi_j) = ((r - 1500.0) / k, rd / k);
        v_inv += g(phi_j).powi(2) * e(mu_j, phi_j) * (1.0 - e(mu_j, phi_j));
        gain += g(phi_j) * (s - e(mu_j, phi_j));
    }
    let v = 1.0 / v_inv;
    let delta = v * gain;
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        x.exp() * (delta * delta - phi * phi - v - x.exp())
            / (2.0 * (phi * phi + v + x.exp()).powi(2))
            - (x - a) / (tau * tau)
    };
    let mut lo = a;
    let mut hi = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut f_lo, mut f_hi) = (f(lo), f(hi));
    while (hi - lo).abs() > 1e-6 {
        let c = lo + (lo - hi) * f_lo / (f_hi - f_lo);
        let f_c = f(c);
        if f_c * f_hi <= 0.0 {
            lo = hi;
            f_lo = f_hi;
        } else {
            f_lo /= 2.0;
        }
        hi = c;
        f_hi = f_c;
    }
    let sigma2 = (lo / 2.0).exp();
    let phi_star = (phi * phi + sigma2 * sigma2).sqrt();
    let phi2 = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu2 = mu + phi2 * phi2 * gain;
    (mu2 * k + 1500.0, phi2 * k, sigma2)
}

/// One rated game as chessd rates it (lichess's τ = 0.75).
pub(crate) fn reference_game(me: (f64, f64, f64), opp: (f64, f64), s: f64) -> (f64, f64, f64) {
    reference_glicko2(me, &[(opp, s)], 0.75)
}

#[test]
fn the_reference_glicko2_gives_the_worked_example_of_glickmans_paper() {
    // 1500/200/0.06 against 1400/30 (won), 1550/100 and 1700/300 (lost), τ = 0.5.
    let games = [
        ((1400.0, 30.0), 1.0),
        ((1550.0, 100.0), 0.0),
        ((1700.0, 300.0), 0.0),
    ];
    let (r, rd, vol) = reference_glicko2((1500.0, 200.0, 0.06), &games, 0.5);
    assert!((r - 1464.06).abs() < 0.01, "{r}");
    assert!((rd - 151.52).abs() < 0.01, "{rd}");
    assert!((vol - 0.05999).abs() < 0.00001, "{vol}");
}

/// Posts a seek as `owner` (token), accepts it as `accepter`; the game's seats.
async fn seek_game(app: &TestApp, owner: &str, accepter: &str, rated: bool) -> GameSecrets {
    let body = json!({"time_control": {"initial_ms": 180000, "increment_ms": 2000},
                      "color": "white", "rated": rated});
    let (status, posted) = call(app, "POST", "/v1/seeks", Some(owner), None, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{posted}");
    let id = posted["id"].as_str().unwrap();
    let secret = posted["secret"].as_str().unwrap();
    let uri = format!("/v1/seeks/{id}/accept");
    let (status, seat) = call(app, "POST", &uri, Some(accepter), None, None).await;
    assert_eq!(status, StatusCode::CREATED, "{seat}");
    let (_, owned) = call(
        app,
        "GET",
        &format!("/v1/seeks/{id}"),
        None,
        Some(secret),
        None,
    )
    .await;
    assert_eq!(owned["game"]["color"], "white", "{owned}");
    GameSecrets {
        id: seat["id"].as_str().unwrap().to_string(),
        white: owned["game"]["secret"].as_str().unwrap().to_string(),
        black: seat["secret"].as_str().unwrap().to_string(),
        admin: String::new(),
    }
}

/// A game brought back from the store keeps its players (read from `game_players` only for a
/// game whose listed rating says it has players); a game without players comes back without.
#[actix_web::test]
async fn a_game_brought_back_from_the_store_keeps_its_players() {
    let mut config = chessd_server::Config::defaults();
    config.quotas = chessd_server::config::QuotasConfig::unlimited();
    config.players.creates_per_minute = 0;
    config.players.creates_per_minute_total = 0;
    config.store.evict_after_secs = 1;
    let (state, scratch) = scratch_state(config, None).await;
    let games = state.games.clone();
    let app = TestApp::with_scratch_state(state, scratch).await;
    let (_, owner) = player(&app, Some(("ada", "correct horse battery"))).await;
    let (_, accepter) = player(&app, Some(("bob", "correct horse battery"))).await;
    let seated = seek_game(&app, &owner, &accepter, false).await;
    app.play(&seated, &["e2e4", "e7e5"]).await;
    // Over, its clocks stopped: a game whose clock runs stays in memory to flag.
    let (status, v) = app
        .post(&seated.uri("/resign"), Some(&seated.white), json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let plain = app.create_game(json!({})).await;
    app.play(&plain, &["d2d4"]).await;
    let before = (app.view(&seated).await, app.view(&plain).await);
    assert_eq!(before.0["players"]["white"]["name"], "ada", "{}", before.0);
    assert!(before.1["players"].is_null(), "{}", before.1);
    until_no_game_in_memory(&games, "the games never left memory").await;
    let after = (app.view(&seated).await, app.view(&plain).await);
    assert_eq!(after.0["players"], before.0["players"]);
    assert_eq!(after.0["fen"], before.0["fen"]);
    assert!(after.1["players"].is_null(), "{}", after.1);
    assert_eq!(after.1["fen"], before.1["fen"]);
}

fn blitz(page: &Value) -> Option<&Value> {
    page["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["variant"] == "standard" && r["class"] == "blitz")
}

#[actix_web::test]
async fn a_rated_game_to_mate_changes_both_ratings_by_glicko2_and_an_aborted_one_does_not() {
    let (app, _db) = app(|_| {}).await;
    rated_games(&app).await;
}

#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
#[actix_web::test]
async fn ratings_are_kept_the_same_way_in_postgresql() {
    let pg = crate::common::postgres::PgServer::start();
    let url = pg.url.clone();
    let app = TestApp::tweaked(move |c| {
        c.store.url = url;
        c.quotas = chessd_server::config::QuotasConfig::unlimited();
        c.players.creates_per_minute = 0;
    })
    .await;
    rated_games(&app).await;
}

/// Two players (one named, one anonymous) play a rated blitz game to mate, an aborted rated
/// game and a casual one; only the first changes their ratings, exactly as the reference says.
async fn rated_games(app: &TestApp) {
    let (_, white) = player(app, Some(("Wanda", "wanda's password"))).await;
    let (black_id, black) = player(app, None).await;

    // Rated needs a player on both sides.
    let body = json!({"rated": true});
    let (status, v) = call(app, "POST", "/v1/seeks", None, None, Some(body.clone())).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::UNAUTHORIZED, "player_required"),
        "{v}"
    );
    let (_, posted) = call(app, "POST", "/v1/seeks", Some(&white), None, Some(body)).await;
    let uri = format!("/v1/seeks/{}/accept", posted["id"].as_str().unwrap());
    let (status, v) = call(app, "POST", &uri, None, None, None).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::UNAUTHORIZED, "player_required"),
        "{v}"
    );
    let (status, v) = call(app, "POST", &uri, Some(&white), None, None).await;
    assert_eq!(
        (status, code(&v)),
        (StatusCode::CONFLICT, "own_seek"),
        "{v}"
    );
    let secret = posted["secret"].as_str().unwrap();
    let seek = format!("/v1/seeks/{}", posted["id"].as_str().unwrap());
    app.delete(&seek, Some(secret)).await;

    // A rated 3+2 game (blitz) played to mate: Black mates.
    let g = seek_game(app, &white, &black, true).await;
    let view = app.view(&g).await;
    assert_eq!(view["players"]["rated"], true, "{view}");
    assert_eq!(view["players"]["white"]["name"], "Wanda");
    assert_eq!(view["players"]["black"]["id"], black_id.as_str());
    assert!(view["players"]["black"]["name"].is_null());
    assert_eq!(view["players"]["class"], "blitz");
    let last = app.play(&g, &["f2f3", "e7e5", "g2g4", "d8h4"]).await;
    assert_eq!(last["status"]["result"], "black_wins", "{last}");

    let want_w = reference_game((1500.0, 350.0, 0.06), (1500.0, 350.0), 0.0);
    let want_b = reference_game((1500.0, 350.0, 0.06), (1500.0, 350.0), 1.0);
    let wanda = app.get_ok("/v1/players/wanda").await;
    let anon = app.get_ok(&format!("/v1/players/{black_id}")).await;
    for (page, want) in [(&wanda, want_w), (&anon, want_b)] {
        let r = blitz(page).unwrap_or_else(|| panic!("no blitz rating: {page}"));
        assert!(
            (r["rating"].as_f64().unwrap() - want.0).abs() < 1e-6,
            "{r} {want:?}"
        );
        assert!(
            (r["rd"].as_f64().unwrap() - want.1).abs() < 1e-6,
            "{r} {want:?}"
        );
        assert!(
            (r["volatility"].as_f64().unwrap() - want.2).abs() < 1e-9,
            "{r}"
        );
        assert_eq!(r["games"], 1);
        assert_eq!(r["provisional"], true);
        assert_eq!(page["recent_games"][0]["id"], g.id.as_str());
        assert_eq!(page["recent_games"][0]["result"], "black_wins");
    }
    assert!(want_b.0 > 1500.0 && want_w.0 < 1500.0);

    // The next game's players carry their ratings at its start; aborted (Black never moved,
    // then resigned), it changes nothing.
    let g2 = seek_game(app, &white, &black, true).await;
    let view = app.view(&g2).await;
    assert_eq!(
        view["players"]["white"]["rating"].as_i64(),
        Some(want_w.0.round() as i64),
        "{view}"
    );
    app.play(&g2, &["e2e4"]).await;
    let (status, v) = app
        .post(
            &format!("/v1/games/{}/resign", g2.id),
            Some(&g2.black),
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let again = app.get_ok("/v1/players/wanda").await;
    assert_eq!(blitz(&again), blitz(&wanda), "an aborted game was rated");
    assert_eq!(again["recent_games"][0]["id"], g2.id.as_str());

    // A casual game between players records them but rates nothing.
    let g3 = seek_game(app, &white, &black, false).await;
    assert_eq!(app.view(&g3).await["players"]["rated"], false);
    app.play(&g3, &["f2f3", "e7e5", "g2g4", "d8h4"]).await;
    assert_eq!(blitz(&app.get_ok("/v1/players/wanda").await), blitz(&wanda));

    // The PGN of a player's games names them, newest first, paged.
    let answer = app
        .send(request(
            "GET",
            "/v1/players/wanda/games.pgn?limit=2",
            None,
            None,
        ))
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    let pgn = answer.text();
    assert_eq!(pgn.matches("[Event ").count(), 2, "{pgn}");
    assert!(pgn.contains("[White \"Wanda\"]"), "{pgn}");
    assert!(pgn.contains(&format!("[Black \"{black_id}\"]")), "{pgn}");
    assert!(
        pgn.contains(&format!("[Site \"chessd {}\"]", g3.id)),
        "{pgn}"
    );
    assert!(!pgn.contains(&g.id), "{pgn}");

    // A game without players stays as it was: no players in its view.
    let plain = app.create_game(json!({})).await;
    assert!(app.view(&plain).await.get("players").is_none());
}

#[actix_web::test]
async fn without_a_database_players_answer_503() {
    let app = TestApp::tweaked(|c| c.store.url = "memory".into()).await;
    for (method, uri, body) in [
        ("POST", "/v1/players", None),
        (
            "POST",
            "/v1/players/login",
            Some(json!({"name": "abc", "password": "whatever1"})),
        ),
        ("GET", "/v1/players/abc", None),
        ("GET", "/v1/player", None),
    ] {
        let (status, v) = app.call(request(method, uri, None, body.as_ref())).await;
        assert_eq!(
            (status, code(&v)),
            (StatusCode::SERVICE_UNAVAILABLE, "players_unavailable"),
            "{method} {uri}: {v}"
        );
    }
}
