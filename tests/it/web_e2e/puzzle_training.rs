//! Training on a puzzle ("Try it"), as lichess puzzles train: the solution stays hidden, a
//! wrong move is told so and taken back, a right one is answered by the defence, the mate
//! solves it and shows the solution; "Reveal" shows it at any time; on a phone the board comes
//! back into view once the solution is in. A long mate is asked for in the find mode.

use serde_json::{json, Value};

use super::{
    assert_clean_console, click_move, common, csv_rows, next_moves_to_mate, open, run,
    select_option, shot,
    webdriver::{Driver, Session},
    DATA, DESKTOP, PHONE,
};
use crate::common::Server;

/// The legal moves of `fen`, and for each whether it mates (from the server's stateless API).
async fn moves_of(base: &str, fen: &str) -> Vec<(String, bool)> {
    let c = common::client();
    let url = format!(
        "{base}/v1/position?fen={}",
        url::form_urlencoded::byte_serialize(fen.as_bytes()).collect::<String>()
    );
    let mut resp = c.get(url).send().await.unwrap();
    let info: Value = resp.json().await.unwrap();
    let mut out = Vec::new();
    for m in info["moves"].as_array().unwrap() {
        let uci = m.as_str().unwrap().to_string();
        let (status, after) = common::post_json(
            &c,
            &format!("{base}/v1/position/move"),
            None,
            &json!({"fen": fen, "move": uci}),
        )
        .await;
        assert_eq!(status, 200, "{after}");
        out.push((uci, after["status"]["reason"] == "checkmate"));
    }
    out
}

async fn verdict(s: &Session, want: &str, what: &str) {
    s.wait_for(
        &format!("document.querySelector('#puzzle-status').dataset.verdict === '{want}'"),
        what,
    )
    .await;
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn a_puzzle_is_tried_told_right_or_wrong_and_solved_or_revealed() {
    run("puzzle_training", || async {
        let server = Server::start(&[]);
        let base = &server.base;
        // A mate in 2 of the shared data with one key that is not a promotion.
        let rows = csv_rows(&format!("{DATA}/puzzles/lichess_m2_m3_sample50.csv"));
        let row = rows
            .iter()
            .find(|r| {
                r["mate"] == "2"
                    && r["n_mating_first_moves"] == "1"
                    && r["mating_first_moves_uci"].len() == 4
            })
            .unwrap();
        let (fen, key) = (&row["fen"], &row["mating_first_moves_uci"]);
        let wrong = moves_of(base, fen)
            .await
            .into_iter()
            .map(|(uci, _)| uci)
            .find(|uci| uci != key && uci.len() == 4)
            .unwrap();

        let driver = Driver::start().await;
        let s = open(&driver, &format!("{base}/#/puzzles"), DESKTOP).await;
        s.wait_for("document.querySelector('#puzzle-try')", "the puzzles page")
            .await;
        s.type_into("#puzzle-fen", fen).await;
        select_option(&s, "#puzzle-mate", "2").await;
        s.click("#puzzle-try").await;
        s.wait_for(
            "document.querySelector('svg.board').dataset.movable === 'true' && document.querySelector('#puzzle-hidden')",
            "the board, ready for a try",
        )
        .await;
        // Hidden: no key, no line on the page.
        assert_eq!(
            s.exec("return document.querySelector('#puzzle-keys');", json!([]))
                .await,
            Value::Null
        );
        // A wrong move is told so and taken back.
        click_move(&s, &wrong[..2], &wrong[2..4]).await;
        verdict(&s, "wrong", "the wrong move's verdict").await;
        assert!(s.text("#puzzle-status").await.contains("Not the solution"));
        assert_eq!(
            s.exec(
                "return document.querySelector('svg.board').dataset.ply;",
                json!([])
            )
            .await,
            json!("0")
        );
        shot(&s, "puzzle-try-wrong").await;
        // The key: right, and the defence answers.
        click_move(&s, &key[..2], &key[2..4]).await;
        s.wait_for(
            "document.querySelector('svg.board').dataset.ply === '2' && document.querySelector('#puzzle-status').dataset.fen && document.querySelector('svg.board').dataset.movable === 'true'",
            "the defence",
        )
        .await;
        assert_eq!(
            s.exec(
                "return document.querySelector('#puzzle-status').dataset.verdict;",
                json!([])
            )
            .await,
            json!("right")
        );
        // The mate, found by asking the server which move mates in the position shown.
        let now = s
            .exec(
                "return document.querySelector('#puzzle-status').dataset.fen;",
                json!([]),
            )
            .await;
        let mate = moves_of(base, now.as_str().unwrap())
            .await
            .into_iter()
            .find(|(_, mates)| *mates)
            .map(|(uci, _)| uci)
            .unwrap();
        click_move(&s, &mate[..2], &mate[2..4]).await;
        verdict(&s, "solved", "the solved puzzle").await;
        assert!(s.text("#puzzle-status").await.contains("1 wrong move"));
        let keys = s
            .wait_for(
                "document.querySelector('#puzzle-keys')?.dataset.keys",
                "the solution, shown",
            )
            .await;
        assert_eq!(keys, json!(key));
        shot(&s, "puzzle-try-solved").await;

        // Another try, revealed at once.
        s.click("#puzzle-try").await;
        s.wait_for("document.querySelector('#puzzle-hidden')", "a new try")
            .await;
        s.click("#puzzle-reveal").await;
        s.wait_for(
            "document.querySelector('#puzzle-keys')?.dataset.keys",
            "the revealed solution",
        )
        .await;
        assert_clean_console(&s, "puzzle training").await;
        s.quit().await;

        // On a phone the board (above the form) comes back into view after Solve.
        let s = open(&driver, &format!("{base}/#/puzzles"), PHONE).await;
        s.wait_for("document.querySelector('#solve')", "the puzzles page")
            .await;
        s.type_into("#puzzle-fen", fen).await;
        select_option(&s, "#puzzle-mate", "2").await;
        s.click("#solve").await;
        s.wait_for(
            "document.querySelector('#puzzle-keys') && Math.abs(document.querySelector('svg.board').getBoundingClientRect().top) < innerHeight / 2",
            "the board in view after Solve",
        )
        .await;
        shot(&s, "puzzle-phone-solved").await;
        assert_clean_console(&s, "puzzle on a phone").await;
        s.quit().await;
    });
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn a_long_mate_is_found_in_the_find_mode_and_stepped_through_to_mate() {
    run("puzzle_find_mode", || async {
        let server = Server::start(&[]);
        // A mate in 6 from engine games (`mates_2_8.csv`, the `dev` set).
        let rows = csv_rows(&format!("{DATA}/puzzles/mates_2_8.csv"));
        let row = rows
            .iter()
            .find(|r| r["mate"] == "6" && r["set"] == "dev")
            .unwrap();
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/#/puzzles", server.base), DESKTOP).await;
        s.wait_for("document.querySelector('#solve')", "the puzzles page")
            .await;
        s.type_into("#puzzle-fen", &row["fen"]).await;
        select_option(&s, "#puzzle-mate", "6").await;
        // The page says which mode it asks for, and that every key is not searched for.
        assert!(s.text("#puzzle-mode-note").await.contains("find mode"));
        assert_eq!(
            s.exec(
                "return document.querySelector('#puzzle-all-keys').disabled;",
                json!([])
            )
            .await,
            json!(true)
        );
        s.click("#solve").await;
        let verdict = s
            .wait_for(
                "document.querySelector('#puzzle-keys') && document.querySelector('#puzzle-verdict').textContent",
                "the found mate",
            )
            .await;
        let verdict = verdict.as_str().unwrap().to_string();
        let mate: usize = verdict
            .split("mates in ")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{verdict}"));
        assert!((1..=6).contains(&mate), "{verdict}");
        // The proof tree plays to mate with "Next move".
        next_moves_to_mate(&s, mate).await;
        shot(&s, "puzzle-find-mode").await;
        assert_clean_console(&s, "puzzle find mode").await;
        s.quit().await;
    });
}
