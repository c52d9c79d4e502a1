//! The live-games page (`#/watch`): the ongoing games of the server, each a small board that
//! follows its game, and a click on one watches it as a spectator.

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
                "document.querySelectorAll('#live-games li.live-game').length === 2 && [...document.querySelectorAll('#live-games li.live-game')].map((li) => [li.dataset.game, li.querySelector('.live-players').textContent, li.querySelector('.live-state').textContent])",
                "the two ongoing games",
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
            "document.querySelectorAll('#live-games li.live-game').length === 2",
            "the games on a phone",
        )
        .await;
        shot(&s, "watch-phone").await;
        assert_clean_console(&s, "watch on a phone").await;
        s.quit().await;
    });
}
