//! Two strangers meet through a quick-pairing pool, play a rated 3+2 game to mate while a
//! spectator who found it on the live-games page watches, and their ratings change as
//! Glicko-2 says (against an independent computation, `players::reference_game`).

use serde_json::{json, Value};

use super::{
    assert_clean_console, click_move, open, run, shot, wait_live, wait_moves, DESKTOP, PHONE,
};
use crate::common::{self, Server};

/// The player id this browser plays as (kept by the page once it made its player).
async fn player_id(s: &super::webdriver::Session) -> String {
    let v = s
        .exec(
            "return JSON.parse(localStorage.getItem('chessd.player')).id;",
            json!([]),
        )
        .await;
    v.as_str().unwrap().to_string()
}

/// A player's blitz rating row from its page.
async fn blitz(base: &str, id: &str) -> Value {
    let c = common::client();
    let (status, page) = common::get_json(&c, &format!("{base}/v1/players/{id}")).await;
    assert_eq!(status, 200, "{page}");
    page["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["variant"] == "standard" && r["class"] == "blitz")
        .cloned()
        .unwrap_or_else(|| panic!("no blitz rating: {page}"))
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn strangers_paired_in_a_pool_play_a_rated_game_watched_live_and_their_ratings_change_by_glicko2() {
    run("rated_pool", || async {
        // Every browser of the test comes from 127.0.0.1, one client to the quotas.
        let server = Server::start(&[("CHESSD_QUOTAS__MAX_PAIRING_ENTRIES", "4")]);
        let base = &server.base;
        let driver = super::webdriver::Driver::start().await;
        let first = open(&driver, &format!("{base}/"), DESKTOP).await;
        let second = open(&driver, &format!("{base}/"), PHONE).await;
        for s in [&first, &second] {
            s.wait_for(
                "document.querySelector(\"#pools button.pool[data-pool='3-2']\")",
                "the quick-pairing pools",
            )
            .await;
        }
        shot(&first, "lobby-pools").await;
        first.click("#pools button.pool[data-pool='3-2']").await;
        first
            .wait_for(
                "!document.querySelector('#seek-waiting').hidden && document.querySelector('#pool-leave')",
                "the first player waiting in the pool",
            )
            .await;
        second.click("#pools button.pool[data-pool='3-2']").await;
        for (s, who) in [(&first, "first"), (&second, "second")] {
            s.wait_for(
                "location.hash.startsWith('#/game/')",
                &format!("{who} paired"),
            )
            .await;
            wait_live(s, who).await;
        }
        let game_of = "return location.hash.split('?')[0].split('/')[2];";
        let game = first.exec(game_of, json!([])).await;
        assert_eq!(game, second.exec(game_of, json!([])).await, "one game");
        let game = game.as_str().unwrap().to_string();
        let (white, black) = if first.text("#role").await == "You play white" {
            (&first, &second)
        } else {
            (&second, &first)
        };
        assert_eq!(black.text("#role").await, "You play black");
        let (white_id, black_id) = (player_id(white).await, player_id(black).await);
        assert_ne!(white_id, black_id);
        // The game knows its players and is rated; takebacks are off in a rated game.
        let c = common::client();
        let (status, view) = common::get_json(&c, &format!("{base}/v1/games/{game}")).await;
        assert_eq!(status, 200, "{view}");
        assert_eq!(view["players"]["rated"], json!(true), "{view}");
        assert_eq!(view["players"]["white"]["id"], json!(white_id));
        assert_eq!(view["players"]["class"], json!("blitz"));
        assert_eq!(view["in_game"]["takebacks"], json!(false));
        assert_eq!(
            view["options"]["time_control"],
            json!({"initial_ms": 180_000, "increment_ms": 2000}),
            "{view}"
        );

        // A spectator finds it on the live-games page and watches it.
        let spectator = open(&driver, &format!("{base}/#/watch"), DESKTOP).await;
        spectator
            .wait_for(
                &format!("document.querySelector(\"li.live-game[data-game='{game}'] a\")"),
                "the game on the live-games page",
            )
            .await;
        spectator
            .click(&format!("li.live-game[data-game='{game}'] a"))
            .await;
        wait_live(&spectator, "the spectator").await;
        assert_eq!(spectator.text("#role").await, "Spectating");

        let plies = [
            ("f2", "f3", "f3"),
            ("e7", "e5", "e5"),
            ("g2", "g4", "g4"),
            ("d8", "h4", "Qh4#"),
        ];
        let mut sans = Vec::new();
        for (i, (from, to, san)) in plies.iter().enumerate() {
            let mover = if i % 2 == 0 { white } else { black };
            click_move(mover, from, to).await;
            sans.push(*san);
            for (s, who) in [
                (white, "white"),
                (black, "black"),
                (&spectator, "spectator"),
            ] {
                wait_moves(s, &sans, who).await;
            }
        }
        for s in [white, black, &spectator] {
            s.wait_for(
                "document.querySelector('#game-status').dataset.result === 'black_wins'",
                "the mate",
            )
            .await;
        }
        shot(&spectator, "rated-game-spectator").await;
        shot(&first, "rated-game-desktop").await;
        shot(&second, "rated-game-phone").await;

        // Both started at Glicko-2's 1500 / 350 / 0.06: Black won.
        let expected_white =
            crate::players::reference_game((1500.0, 350.0, 0.06), (1500.0, 350.0), 0.0);
        let expected_black =
            crate::players::reference_game((1500.0, 350.0, 0.06), (1500.0, 350.0), 1.0);
        for (id, (rating, rd, vol)) in [(&white_id, expected_white), (&black_id, expected_black)] {
            let row = blitz(base, id).await;
            assert!(
                (row["rating"].as_f64().unwrap() - rating).abs() < 1e-6,
                "{row} vs {rating}"
            );
            assert!(
                (row["rd"].as_f64().unwrap() - rd).abs() < 1e-6,
                "{row} vs {rd}"
            );
            assert!(
                (row["volatility"].as_f64().unwrap() - vol).abs() < 1e-9,
                "{row} vs {vol}"
            );
            assert_eq!(row["games"], json!(1));
            assert_eq!(row["provisional"], json!(true));
        }
        // The winner's page shows it.
        black.exec("location.hash = '#/player';", json!([])).await;
        let shown = black
            .wait_for(
                "document.querySelector(\"#ratings tr[data-class='blitz'] td.rating\") && document.querySelector(\"#ratings tr[data-class='blitz'] td.rating\").textContent",
                "the winner's rating on its page",
            )
            .await;
        assert_eq!(shown, json!(format!("{}?", expected_black.0.round())));
        let black_is_phone = std::ptr::eq(black, &second);
        shot(
            black,
            if black_is_phone {
                "player-page-phone"
            } else {
                "player-page-own-desktop"
            },
        )
        .await;
        // Anyone's page of the winner, at desktop size.
        spectator
            .exec(
                &format!("location.hash = '#/player/{black_id}';"),
                json!([]),
            )
            .await;
        let shown = spectator
            .wait_for(
                "document.querySelector(\"#ratings tr[data-class='blitz'] td.rating\") && document.querySelector(\"#ratings tr[data-class='blitz'] td.rating\").textContent",
                "the winner's page seen by another",
            )
            .await;
        assert_eq!(shown, json!(format!("{}?", expected_black.0.round())));
        shot(&spectator, "player-page-desktop").await;
        for (s, who) in [
            (white, "white"),
            (black, "black"),
            (&spectator, "spectator"),
        ] {
            assert_clean_console(s, who).await;
        }
    });
}
