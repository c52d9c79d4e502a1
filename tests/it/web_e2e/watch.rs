//! The live-games page (`#/watch`): the ongoing games of the server, each a small board that
//! follows its game, with its players' names and ratings, newest or highest rated first, and a
//! click on one watches it as a spectator.

use serde_json::json;

use super::{assert_clean_console, common, open, run, shot, DESKTOP, MOVES_JS, PHONE};
use crate::common::Server;

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn the_live_games_page_lists_ongoing_games_follows_them_and_opens_one_to_watch() {
    run("watch_page", || async {
        let server = Server::start(&[]);
        let base = &server.base;
        let c = common::client();
        // A game between players of known ratings (a seek): named on its card, first by rating
        // though the oldest.
        let rated = players_game(&server, &c).await;
        let played = common::create_game(&c, base, &json!({})).await;
        let moves = format!("{base}/v1/games/{}/moves", played.id);
        for (secret, uci) in [(&played.white, "e2e4"), (&played.black, "e7e5")] {
            let (status, v) =
                common::post_json(&c, &moves, Some(secret), &json!({"uci": uci})).await;
            assert_eq!(status, 200, "{v}");
        }
        let chess2 = common::create_game(
            &c,
            base,
            &json!({"variant": "chess2", "armies": {"white": "r", "black": "a"}}),
        )
        .await;
        // A finished game is not listed.
        let over = common::create_game(&c, base, &json!({})).await;
        let (status, v) = common::post_json(
            &c,
            &format!("{base}/v1/games/{}/resign", over.id),
            Some(&over.white),
            &json!({}),
        )
        .await;
        assert_eq!(status, 200, "{v}");

        let driver = super::webdriver::Driver::start().await;
        let s = open(&driver, &format!("{base}/#/watch"), DESKTOP).await;
        let cards = s
            .wait_for(
                "document.querySelectorAll('#live-games li.live-game').length === 3 && [...document.querySelectorAll('#live-games li.live-game')].map((li) => [li.dataset.game, li.querySelector('.live-players').textContent, li.querySelector('.live-state').textContent])",
                "the three ongoing games",
            )
            .await;
        let cards = cards.as_array().unwrap();
        let of = |id: &str| {
            cards
                .iter()
                .find(|c| c[0] == json!(id))
                .unwrap_or_else(|| panic!("game {id} is not listed: {cards:?}"))
                .clone()
        };
        assert_eq!(of(&played.id)[1], "White vs Black");
        assert_eq!(of(&played.id)[2], "Move 1 · White to play");
        assert_eq!(of(&chess2.id)[1], "White vs Black · Reaper vs Animals");
        assert!(!cards.iter().any(|c| c[0] == json!(over.id)));
        assert_eq!(of(&rated)[1], "Anna (1800) vs Anonymous (1600)");
        // By rating, the players' game (the oldest) comes first and the unrated ones follow
        // newest first; back to newest first, it is last.
        let order = "[...document.querySelectorAll('#live-games li.live-game')].map((li) => li.dataset.game).join(' ')";
        s.click("#live-tab-rating").await;
        s.wait_for(
            &format!(
                "document.querySelector('#live-tab-rating').getAttribute('aria-selected') === 'true' && {order} === '{} {} {}'",
                rated, chess2.id, played.id
            ),
            "the highest rated first",
        )
        .await;
        s.click("#live-tab-newest").await;
        s.wait_for(
            &format!(
                "document.querySelector('#live-tab-newest').getAttribute('aria-selected') === 'true' && {order} === '{} {} {}'",
                chess2.id, played.id, rated
            ),
            "the newest first",
        )
        .await;
        // The board follows the game: a move played elsewhere shows at the next reading.
        let (status, v) =
            common::post_json(&c, &moves, Some(&played.white), &json!({"uci": "g1f3"})).await;
        assert_eq!(status, 200, "{v}");
        s.wait_for(
            &format!(
                "document.querySelector(\"li.live-game[data-game='{}'] .live-state\").textContent === 'Move 2 · Black to play'",
                played.id
            ),
            "the board to follow the move",
        )
        .await;
        shot(&s, "watch-desktop").await;
        // A click watches the game, as a spectator.
        s.click(&format!("li.live-game[data-game='{}'] a", played.id))
            .await;
        s.wait_for(
            &format!(
                "location.hash === '#/game/{}' && {MOVES_JS} === 'e4 e5 Nf3'",
                played.id
            ),
            "the game page",
        )
        .await;
        assert_clean_console(&s, "watch").await;
        s.quit().await;

        // On a phone the cards stack in one column.
        let s = open(&driver, &format!("{base}/#/watch"), PHONE).await;
        s.wait_for(
            "document.querySelectorAll('#live-games li.live-game').length === 3",
            "the games on a phone",
        )
        .await;
        shot(&s, "watch-phone").await;
        assert_clean_console(&s, "watch on a phone").await;
        s.quit().await;
    });
}

/// A casual blitz game from a seek by Anna (1800, White) accepted by an anonymous player
/// (1600), their ratings set in the server's database; its id.
async fn players_game(server: &Server, c: &awc::Client) -> String {
    use crate::seek_ratings::{post_as, set_rating};
    let base = &server.base;
    let db = format!("sqlite://{}", server.store_path().unwrap().display());
    let mut tokens = Vec::new();
    for (body, rating) in [
        (
            json!({"name": "Anna", "password": "anna's password"}),
            1800.0,
        ),
        (json!({}), 1600.0),
    ] {
        let (status, made) = post_as(c, &format!("{base}/v1/players"), None, &body).await;
        assert_eq!(status, 201, "{made}");
        set_rating(
            &db,
            made["id"].as_str().unwrap(),
            "standard",
            "blitz",
            rating,
            60.0,
        )
        .await;
        tokens.push(made["token"].as_str().unwrap().to_string());
    }
    let seek =
        json!({"time_control": {"initial_ms": 180000, "increment_ms": 2000}, "color": "white"});
    let (status, posted) = post_as(c, &format!("{base}/v1/seeks"), Some(&tokens[0]), &seek).await;
    assert_eq!(status, 201, "{posted}");
    let accept = format!("{base}/v1/seeks/{}/accept", posted["id"].as_str().unwrap());
    let (status, seat) = post_as(c, &accept, Some(&tokens[1]), &json!({})).await;
    assert_eq!(status, 201, "{seat}");
    seat["id"].as_str().unwrap().to_string()
}
