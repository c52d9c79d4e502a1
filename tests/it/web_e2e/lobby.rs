//! The lobby's online play: a stranger's seek is listed live to everyone on the lobby page, one
//! click accepts it, and both players land in the same game with their own seats.

use serde_json::json;

use super::{
    assert_clean_console, click_move, open, run, select_option, shot, wait_live, wait_moves,
    DESKTOP, PHONE,
};
use crate::common::Server;

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn two_strangers_meet_through_a_seek_in_the_lobby_and_play_to_mate_with_a_premove() {
    run("lobby_seek", || async {
        let server = Server::start(&[]);
        let base = &server.base;
        let driver = super::webdriver::Driver::start().await;
        let owner = open(&driver, &format!("{base}/"), DESKTOP).await;
        let stranger = open(&driver, &format!("{base}/"), PHONE).await;
        for s in [&owner, &stranger] {
            s.wait_for(
                "document.querySelector('#seek-list li') && document.querySelector('#seek-status').textContent === ''",
                "the lobby's open seeks",
            )
            .await;
        }
        assert!(stranger
            .text("#seek-list")
            .await
            .contains("No one is waiting"));

        // The owner posts a 3+2 seek through the create form's "Anyone".
        owner.click("label[for='opponent-anyone']").await;
        select_option(&owner, "#tc", "3+2").await;
        assert_eq!(owner.text("#create-game").await, "Post a seek");
        owner.click("#create-game").await;
        owner
            .wait_for(
                "!document.querySelector('#seek-waiting').hidden",
                "the owner's waiting card",
            )
            .await;

        // The stranger's lobby lists it live, without a reload.
        let row = stranger
            .wait_for(
                "document.querySelector('#seek-list li.seek .seek-accept') && document.querySelector('#seek-list li.seek').innerText",
                "the seek in the stranger's lobby",
            )
            .await;
        let row = row.as_str().unwrap().to_string();
        assert!(
            row.contains("Chess") && row.contains("3 + 2 · Blitz"),
            "{row}"
        );
        // Posted by the owner's anonymous player, never rated: 1500, provisional.
        assert!(row.contains("Anonymous (1500?)"), "{row}");
        // The owner's own row offers a cancel, not an accept.
        let own = owner
            .wait_for(
                "document.querySelector('#seek-list li.seek') && document.querySelector('#seek-list li.seek').innerText",
                "the owner's seek in its own list",
            )
            .await;
        assert!(own.as_str().unwrap().contains("yours"), "{own}");
        assert!(
            owner
                .exec(
                    "return document.querySelector('#seek-list .seek-accept') === null;",
                    json!([])
                )
                .await
                == json!(true)
        );
        shot(&owner, "lobby-seek-waiting").await;
        shot(&stranger, "lobby-seek-phone").await;

        stranger.click("#seek-list .seek-accept").await;
        for (s, who) in [(&owner, "owner"), (&stranger, "stranger")] {
            s.wait_for(
                "location.hash.startsWith('#/game/')",
                &format!("{who} in the game"),
            )
            .await;
            wait_live(s, who).await;
        }
        let game_of = "return location.hash.split('?')[0];";
        assert_eq!(
            owner.exec(game_of, json!([])).await,
            stranger.exec(game_of, json!([])).await,
            "the same game"
        );
        let owner_role = owner.text("#role").await;
        let stranger_role = stranger.text("#role").await;
        let (white, black) = match (owner_role.as_str(), stranger_role.as_str()) {
            ("You play white", "You play black") => (&owner, &stranger),
            ("You play black", "You play white") => (&stranger, &owner),
            other => panic!("one seat each: {other:?}"),
        };
        // The seek is gone from the lobby now that it was accepted.
        let (status, seeks) = {
            let c = crate::common::client();
            crate::common::get_json(&c, &format!("{base}/v1/seeks")).await
        };
        assert_eq!(status, 200);
        assert_eq!(seeks["seeks"], json!([]), "{seeks}");

        // Black premoves e7-e5 while White thinks; White's f3 sets it off.
        black
            .wait_for(
                "document.querySelector('svg.board').dataset.premove === 'true'",
                "black's board to take a premove",
            )
            .await;
        black.click("svg.board rect[data-square='e7']").await;
        black
            .wait_for(
                "document.querySelector(\"[data-premove-hint='e5']\")",
                "a premove hint on e5",
            )
            .await;
        black.click("svg.board rect[data-square='e5']").await;
        black
            .wait_for(
                "document.querySelector('svg.board').dataset.premoveQueued === 'e7e5' && document.querySelectorAll('svg.board .mark-premove').length === 2",
                "the premove marked",
            )
            .await;
        shot(black, "game-premove").await;
        click_move(white, "f2", "f3").await;
        let mut sans = vec!["f3", "e5"];
        for (s, who) in [(white, "white"), (black, "black")] {
            wait_moves(s, &sans, &format!("{who}, after black's premove")).await;
        }
        // Fool's mate, with the 3+2 clocks running.
        let plies = [("g2", "g4", "g4"), ("d8", "h4", "Qh4#")];
        for (i, (from, to, san)) in plies.iter().enumerate() {
            let mover = if i % 2 == 0 { white } else { black };
            click_move(mover, from, to).await;
            sans.push(*san);
            for (s, who) in [(white, "white"), (black, "black")] {
                wait_moves(s, &sans, who).await;
            }
        }
        // The seek's 3+2 clock: three minutes and a bit, the two increments in.
        let clock = white.text(".clock-white").await;
        assert!(
            clock.starts_with("3:0") || clock.starts_with("2:5"),
            "{clock}"
        );
        for s in [white, black] {
            s.wait_for(
                "document.querySelector('#game-status').dataset.result === 'black_wins'",
                "the mate",
            )
            .await;
        }
        assert_clean_console(&owner, "the owner's pages").await;
        assert_clean_console(&stranger, "the stranger's pages").await;
    });
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn seeks_name_their_owners_and_one_out_of_the_viewers_range_is_shown_disabled_with_why() {
    run("lobby_ranges", || async {
        use crate::seek_ratings::{post_as, set_rating};
        let server = Server::start(&[]);
        let base = &server.base;
        let c = crate::common::client();
        let db = format!("sqlite://{}", server.store_path().unwrap().display());
        let (status, olga) = post_as(
            &c,
            &format!("{base}/v1/players"),
            None,
            &json!({"name": "Olga", "password": "olga's password"}),
        )
        .await;
        assert_eq!(status, 201, "{olga}");
        set_rating(
            &db,
            olga["id"].as_str().unwrap(),
            "standard",
            "blitz",
            1900.0,
            60.0,
        )
        .await;
        let blitz = json!({"initial_ms": 180000, "increment_ms": 2000});
        let (status, high) = post_as(
            &c,
            &format!("{base}/v1/seeks"),
            olga["token"].as_str(),
            &json!({"time_control": blitz, "rating_range": {"min": 1800, "max": 2000}}),
        )
        .await;
        assert_eq!(status, 201, "{high}");
        let (status, open_to_all) = post_as(
            &c,
            &format!("{base}/v1/seeks"),
            None,
            &json!({"time_control": blitz, "rating_range": {"min": 1400, "max": 1600}}),
        )
        .await;
        assert_eq!(status, 201, "{open_to_all}");

        // A newcomer (1500 everywhere) sees both: Olga's disabled, with why; the other open.
        let driver = super::webdriver::Driver::start().await;
        let s = open(&driver, &format!("{base}/"), DESKTOP).await;
        let rows = s
            .wait_for(
                "document.querySelectorAll('#seek-list li.seek').length === 2 && [...document.querySelectorAll('#seek-list li.seek')].map((li) => [li.dataset.seek, li.querySelector('.seek-owner').textContent, li.querySelector('.seek-accept').disabled, (li.querySelector('.seek-why') || {}).textContent || null])",
                "the two seeks",
            )
            .await;
        assert_eq!(
            rows,
            json!([
                [
                    high["id"],
                    "Olga (1900)",
                    true,
                    "For ratings 1800–2000 (yours: 1500)"
                ],
                [open_to_all["id"], "Anonymous", false, null]
            ])
        );
        shot(&s, "lobby-ranges").await;

        // The form's range: ±200 of the poster's rating (1500, never rated) is 1300–1700.
        s.click("label[for='opponent-anyone']").await;
        select_option(&s, "#tc", "3+2").await;
        select_option(&s, "#seek-range", "200").await;
        s.click("#create-game").await;
        s.wait_for(
            "!document.querySelector('#seek-waiting').hidden",
            "the poster's waiting card",
        )
        .await;
        let (_, list) = crate::common::get_json(&c, &format!("{base}/v1/seeks")).await;
        let mine = &list["seeks"][2];
        assert_eq!(
            mine["seek"]["rating_range"],
            json!({"min": 1300, "max": 1700}),
            "{list}"
        );
        assert_eq!(
            mine["owner"],
            json!({"name": null, "rating": null, "provisional": true})
        );
        assert_clean_console(&s, "lobby ranges").await;
        s.quit().await;
    });
}
