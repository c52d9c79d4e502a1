//! In the game, in two browsers: one player offers a takeback the other accepts, they chat (the
//! text shown as text), and after the end a rematch starts with colours swapped, each browser
//! opening the new game with its own seat.

use serde_json::json;

use super::{
    assert_clean_console, click_move, common, open, run, shot, wait_live, wait_moves, DESKTOP,
};
use crate::common::Server;

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn players_take_back_chat_and_start_a_rematch_with_colours_swapped() {
    run("in_game", || async {
        let server = Server::start(&[]);
        let base = &server.base;
        let c = common::client();
        let g = common::create_game(&c, base, &json!({})).await;
        let driver = super::webdriver::Driver::start().await;
        let url = |secret: &str| format!("{base}/#/game/{}?seat={secret}", g.id);
        let white = open(&driver, &url(&g.white), DESKTOP).await;
        let black = open(&driver, &url(&g.black), DESKTOP).await;
        wait_live(&white, "white").await;
        wait_live(&black, "black").await;
        // Abort is offered while not both sides have moved.
        white
            .wait_for("document.querySelector('#abort')", "the abort button")
            .await;

        click_move(&white, "e2", "e4").await;
        wait_moves(&black, &["e4"], "black").await;
        click_move(&black, "e7", "e5").await;
        wait_moves(&white, &["e4", "e5"], "white").await;
        white
            .wait_for(
                "document.querySelector('#abort') === null",
                "abort to go once both moved",
            )
            .await;
        click_move(&white, "g1", "f3").await;
        wait_moves(&black, &["e4", "e5", "Nf3"], "black").await;

        // White asks to take Nf3 back; Black accepts.
        white.click("#offer-takeback").await;
        black
            .wait_for(
                "document.querySelector('#accept-takeback')",
                "the takeback prompt",
            )
            .await;
        shot(&black, "takeback-prompt").await;
        black.click("#accept-takeback").await;
        wait_moves(&white, &["e4", "e5"], "white").await;
        wait_moves(&black, &["e4", "e5"], "black").await;

        // They chat: the text arrives as text, never as markup.
        white
            .wait_for("document.querySelector('#chat-input')", "the chat")
            .await;
        white.type_into("#chat-input", "hi <b>there</b>").await;
        white.click("#chat-send").await;
        black
            .wait_for(
                "[...document.querySelectorAll('#chat-lines .chat-text')].some((e) => e.textContent === 'hi <b>there</b>' && e.children.length === 0)",
                "White's message at Black's",
            )
            .await;
        shot(&black, "chat").await;

        // White resigns; Black offers a rematch, White accepts: both open the new game, colours
        // swapped.
        white.click("#resign").await;
        white.click("#resign").await;
        black
            .wait_for(
                "document.querySelector('#offer-rematch:not([disabled])')",
                "the rematch button",
            )
            .await;
        black.click("#offer-rematch").await;
        white
            .wait_for(
                "document.querySelector('#accept-rematch')",
                "the rematch offer",
            )
            .await;
        white.click("#accept-rematch").await;
        let old = format!("#/game/{}", g.id);
        for (s, who, color) in [(&white, "white", "black"), (&black, "black", "white")] {
            s.wait_for(
                &format!(
                    "!location.hash.startsWith({}) && document.querySelector('#role') && document.querySelector('#role').textContent === 'You play {color}'",
                    json!(old)
                ),
                &format!("{who} in the rematch playing {color}"),
            )
            .await;
            wait_live(s, who).await;
        }
        const HASH: &str = "return location.hash.split('?')[0];";
        assert_eq!(
            white.exec(HASH, json!([])).await,
            black.exec(HASH, json!([])).await,
            "the same rematch"
        );
        // Black (White now) opens the rematch.
        click_move(&black, "d2", "d4").await;
        wait_moves(&white, &["d4"], "white").await;
        shot(&white, "rematch").await;
        assert_clean_console(&white, "white").await;
        assert_clean_console(&black, "black").await;
        white.quit().await;
        black.quit().await;
    });
}
