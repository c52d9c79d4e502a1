//! Live games by rating (issue 32): `GET /v1/games?status=ongoing&order=rating` lists the
//! highest rated games first (the average of the players' ratings when the game started, a
//! side without a rating counting 1500; games without players last, newest first among
//! equals), page by page with its cursor, on SQLite and on PostgreSQL.

use actix_web::http::StatusCode;
use serde_json::{json, Value};

use crate::{
    common::app::TestApp,
    seek_ratings::{app, call, player, post_seek, set_rating},
};

/// A game made from a seek posted by `owner` (White) and accepted by `accepter` (tokens; `None`:
/// no player): its id and the accepter's (Black's) seat secret.
async fn seek_game(app: &TestApp, owner: Option<&str>, accepter: Option<&str>) -> (String, String) {
    let posted = post_seek(
        app,
        owner,
        json!({"time_control": {"initial_ms": 180000, "increment_ms": 2000}, "color": "white"}),
    )
    .await;
    let uri = format!("/v1/seeks/{}/accept", posted["id"].as_str().unwrap());
    let (status, seat) = call(app, "POST", &uri, accepter, None, None).await;
    assert_eq!(status, StatusCode::CREATED, "{seat}");
    (
        seat["id"].as_str().unwrap().to_string(),
        seat["secret"].as_str().unwrap().to_string(),
    )
}

/// Every page of `GET /v1/games?{query}&limit={limit}`, followed by cursor: (id, rating) each.
async fn walk(app: &TestApp, query: &str, limit: usize) -> Vec<(String, Value)> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..50 {
        let mut uri = format!("/v1/games?{query}&limit={limit}");
        if let Some(c) = &cursor {
            uri.push_str(&format!("&cursor={c}"));
        }
        let page = app.get_ok(&uri).await;
        let games = page["games"].as_array().unwrap();
        assert!(games.len() <= limit, "{page}");
        all.extend(
            games
                .iter()
                .map(|g| (g["id"].as_str().unwrap().to_string(), g["rating"].clone())),
        );
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return all,
        }
    }
    panic!("the pages never end");
}

#[actix_web::test]
async fn ongoing_games_are_listed_highest_rated_first_page_by_page() {
    let (app, url) = app(None).await;
    rating_order(&app, &url).await;
}

#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
#[actix_web::test]
async fn games_are_listed_by_rating_the_same_way_in_postgresql() {
    let pg = crate::common::postgres::PgServer::start();
    let (app, url) = app(Some(pg.url.clone())).await;
    rating_order(&app, &url).await;
}

async fn rating_order(app: &TestApp, url: &str) {
    let mut tokens = Vec::new();
    for rating in [2100.0, 1900.0, 1700.0, 1300.0] {
        let (id, token) = player(app, None).await;
        set_rating(url, &id, "standard", "blitz", rating, 60.0).await;
        tokens.push(token);
    }
    let [a, b, c, d] = [&tokens[0], &tokens[1], &tokens[2], &tokens[3]].map(|t| Some(t.as_str()));
    let (_, never_rated) = player(app, None).await;

    // Oldest first: a game without players, then games of known ratings and games without.
    let g0 = app.create_game(json!({})).await.id;
    let (g1, _) = seek_game(app, a, b).await; // (2100 + 1900) / 2
    let (g2, _) = seek_game(app, c, d).await; // (1700 + 1300) / 2
    let (g3, _) = seek_game(app, None, None).await; // no players
    let (g4, _) = seek_game(app, b, Some(&never_rated)).await; // (1900 + 1500) / 2
    let (g5, _) = seek_game(app, None, None).await;
    let (g6, _) = seek_game(app, d, c).await; // 1500 again, newer
    let (g7, black) = seek_game(app, a, c).await; // 1900, then finished
    let (status, v) = call(
        app,
        "POST",
        &format!("/v1/games/{g7}/resign"),
        None,
        Some(&black),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");

    let expected = [
        (&g1, json!(2000)),
        (&g4, json!(1700)),
        (&g6, json!(1500)),
        (&g2, json!(1500)),
        (&g5, Value::Null),
        (&g3, Value::Null),
        (&g0, Value::Null),
    ]
    .map(|(id, r)| (id.clone(), r));
    for limit in [2, 3, 7, 100] {
        let listed = walk(app, "status=ongoing&order=rating", limit).await;
        assert_eq!(listed, expected, "pages of {limit}");
    }
    // Newest first is still the default order.
    let newest: Vec<String> = walk(app, "status=ongoing", 3)
        .await
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(
        newest,
        [&g6, &g5, &g4, &g3, &g2, &g1, &g0].map(String::as_str)
    );
    let explicit: Vec<String> = walk(app, "status=ongoing&order=newest", 100)
        .await
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(explicit, newest);
    // The finished game, by rating; and every game.
    assert_eq!(
        walk(app, "status=finished&order=rating", 2).await,
        [(g7.clone(), json!(1900))]
    );
    let all: Vec<String> = walk(app, "order=rating", 4)
        .await
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(
        all,
        [&g1, &g7, &g4, &g6, &g2, &g5, &g3, &g0].map(String::as_str)
    );
    // Any positive cursor is a place in the list: past the top lists from the top.
    let top = app
        .get_ok("/v1/games?status=ongoing&order=rating&limit=1&cursor=9223372036854775807")
        .await;
    assert_eq!(top["games"][0]["id"], g1.as_str(), "{top}");
    let (status, v) = app.get("/v1/games?order=best").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    assert_eq!(v["error"]["code"], "invalid_request");
}
