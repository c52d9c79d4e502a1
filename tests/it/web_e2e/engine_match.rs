//! A spectator watches an engine match (an engine on each side) on the game page: both bars
//! name their engine, the moves arrive live, and the page shows the end of the game.

use serde_json::json;

use super::{
    assert_clean_console, common, open, run, shot, wait_live, webdriver::Driver, DESKTOP, MOVES_JS,
};
use crate::common::Server;

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn a_spectator_watches_two_engines_play() {
    run("engine_match", || async {
        let server = Server::start(&[("CHESSD_ENGINES__MINI__BUILTIN", "true")]);
        let c = common::client();
        // Slow enough to be watched move by move.
        let game = common::create_game(
            &c,
            &server.base,
            &json!({"opponents": [
                {"engine": "builtin", "plays": "white", "go": {"movetime": 150}},
                {"engine": "mini", "plays": "black", "go": {"movetime": 150}},
            ]}),
        )
        .await;
        let driver = Driver::start().await;
        let s = open(
            &driver,
            &format!("{}/#/game/{}", server.base, game.id),
            DESKTOP,
        )
        .await;
        wait_live(&s, "the spectator").await;
        let bars =
            "[...document.querySelectorAll('.player-bar')].map(b => b.textContent).join(' | ')";
        s.wait_for(
            &format!("(() => {{ const t = {bars}; return t.includes('Computer · builtin') && t.includes('Computer · mini') && t; }})()"),
            "both bars to name their engine",
        )
        .await;
        // The moves arrive while the spectator watches.
        let count = format!("{MOVES_JS}.split(' ').filter(m => m).length");
        let first: u64 = s
            .wait_for(&format!("{count} >= 2 && {count}"), "the first moves")
            .await
            .as_u64()
            .unwrap();
        s.wait_for(
            &format!("{count} >= {} && {count}", first + 4),
            "more moves, live",
        )
        .await;
        shot(&s, "engine_match").await;
        // The page shows the moves the server has.
        let (status, view) =
            common::get_json(&c, &format!("{}/v1/games/{}", server.base, game.id)).await;
        assert_eq!(status, 200, "{view}");
        assert_eq!(
            view["options"]["opponents"],
            json!([{"engine": "builtin", "plays": "white"}, {"engine": "mini", "plays": "black"}])
        );
        assert_clean_console(&s, "engine match").await;
        s.quit().await;
    });
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn the_lobby_starts_an_engine_match_and_shows_it() {
    run("engine_match_lobby", || async {
        let server = Server::start(&[("CHESSD_ENGINES__MINI__BUILTIN", "true")]);
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/", server.base), DESKTOP).await;
        s.wait_for(
            "document.querySelector('#engine option[value=mini]') && !document.querySelector('#opponent-match').disabled",
            "the engines in the lobby",
        )
        .await;
        s.click("label[for='opponent-match']").await;
        assert_eq!(
            s.exec(
                "return [document.querySelector('#engine-rival').hidden, document.querySelector('label[for=engine]').textContent];",
                json!([])
            )
            .await,
            json!([false, "White's engine"])
        );
        super::select_option(&s, "#engine", "builtin").await;
        super::select_option(&s, "#engine-rival", "mini").await;
        super::select_option(&s, "#think", "200").await;
        s.click("#create-game").await;
        // The match opens for watching: no seat, both engines named.
        s.wait_for(
            "location.hash.startsWith('#/game/') && !location.hash.includes('seat=')",
            "the match's page",
        )
        .await;
        wait_live(&s, "the watcher").await;
        assert_eq!(s.text("#role").await, "Spectating");
        let count = format!("{MOVES_JS}.split(' ').filter(m => m).length");
        s.wait_for(&format!("{count} >= 2 && {count}"), "the engines' moves")
            .await;
        let id = s
            .exec("return location.hash.split('/')[2];", json!([]))
            .await;
        let c = common::client();
        let (status, view) = common::get_json(
            &c,
            &format!("{}/v1/games/{}", server.base, id.as_str().unwrap()),
        )
        .await;
        assert_eq!(status, 200, "{view}");
        assert_eq!(
            view["options"]["opponents"],
            json!([{"engine": "builtin", "plays": "white"}, {"engine": "mini", "plays": "black"}])
        );
        // The match holds both of this client's engine sessions (quotas.max_engines = 2): the
        // lobby says which game holds them, and frees them by ending the match.
        s.exec("location.hash = '#/';", json!([])).await;
        s.wait_for(
            "!document.querySelector('#engine-sessions-card').hidden && document.querySelectorAll('#engine-sessions li').length === 2",
            "the engine sessions card",
        )
        .await;
        assert_eq!(s.text("#engine-sessions-count").await, "2 of 2");
        let rows = s
            .exec(
                "return [...document.querySelectorAll('#engine-sessions li')].map(li => [li.dataset.game, li.querySelector('a').textContent, li.querySelector('button').textContent]);",
                json!([]),
            )
            .await;
        assert_eq!(
            rows,
            json!([
                [id, "builtin · playing", "End (draw)"],
                [id, "mini · playing", "End (draw)"]
            ])
        );
        shot(&s, "engine-sessions").await;
        s.click("#engine-sessions li button").await;
        s.wait_for(
            "document.querySelector('#engine-sessions-card').hidden",
            "the sessions freed",
        )
        .await;
        let (_, status) = common::get_json(
            &c,
            &format!("{}/v1/games/{}/status", server.base, id.as_str().unwrap()),
        )
        .await;
        assert_eq!(status["status"]["result"], "draw", "{status}");
        assert_clean_console(&s, "engine match from the lobby").await;
        s.quit().await;
    });
}
