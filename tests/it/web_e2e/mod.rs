//! End-to-end tests of the web client in a real headless browser: Debian's Chromium driven
//! through chromedriver (WebDriver), against the real server on a free loopback port.
//!
//! Screenshots of every page go to `target/web-screenshots/` (not committed). Without
//! chromium/chromedriver the tests are ignored with that reason (see build.rs; under `CI=true` the build
//! fails instead).

mod analysis;
mod chess2;
mod engine_match;
mod first_hour;
mod in_game;
mod lobby;
mod puzzle_genres;
mod puzzle_training;
mod rated_pool;
mod watch;
mod webdriver;

use std::{
    path::PathBuf,
    sync::{Mutex, MutexGuard},
};

use serde_json::{json, Value};
use webdriver::{Driver, Session};

use crate::common::{self, Server};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
const DESKTOP: (u32, u32) = (1280, 900);
/// Makes the page keep the JSON body of every POST it sends in `window.sentBodies`.
const RECORD_POSTS_JS: &str = "window.sentBodies = []; const f = window.fetch; window.fetch = (u, o) => { if (o && o.method === 'POST') sentBodies.push(JSON.parse(o.body)); return f(u, o); };";
const PHONE: (u32, u32) = (390, 844);

/// Browsers are heavy on 2 cores: one test at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs an async test body on an actix system, one browser test at a time.
fn run<F: std::future::Future<Output = ()>>(test: &str, body: impl FnOnce() -> F) {
    let _guard = serial();
    let start = std::time::Instant::now();
    actix_web::rt::System::new().block_on(body());
    eprintln!("{test}: {:.1} s", start.elapsed().as_secs_f64());
}

fn screenshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/web-screenshots")
        .join(format!("{name}.png"))
}

async fn shot(s: &Session, name: &str) {
    s.screenshot(&screenshot_path(name)).await;
}

/// Fails on any console error or warning the page logged (JavaScript errors, failed loads,
/// CSP violations).
async fn assert_clean_console(s: &Session, page: &str) {
    let bad: Vec<Value> = s
        .console()
        .await
        .into_iter()
        .filter(|e| matches!(e["level"].as_str(), Some("SEVERE") | Some("WARNING")))
        .collect();
    assert!(
        bad.is_empty(),
        "{page}: console errors: {}",
        serde_json::to_string_pretty(&bad).unwrap()
    );
}

async fn open(driver: &Driver, url: &str, size: (u32, u32)) -> Session {
    let s = driver.session(size.0, size.1).await;
    s.goto(url).await;
    s
}

/// Clicks `from` then `to` on the board, once the page lets the player move.
async fn click_move(s: &Session, from: &str, to: &str) {
    s.wait_for(
        "document.querySelector('svg.board').dataset.movable === 'true'",
        "the board to accept a move",
    )
    .await;
    s.click(&format!("svg.board rect[data-square='{from}']"))
        .await;
    s.wait_for(
        &format!("document.querySelector(\"[data-hint='{to}']\")"),
        &format!("a legal-move hint on {to}"),
    )
    .await;
    s.click(&format!("svg.board rect[data-square='{to}']"))
        .await;
}

/// The SAN moves of the page's move list.
const MOVES_JS: &str =
    "Array.from(document.querySelectorAll('#moves button.move[data-ply]')).map(b => b.textContent).join(' ')";

async fn wait_moves(s: &Session, sans: &[&str], who: &str) {
    let expected = sans.join(" ");
    s.wait_for(
        &format!("{MOVES_JS} === {}", json!(expected)),
        &format!("{who} to show the moves {expected}"),
    )
    .await;
}

async fn wait_live(s: &Session, who: &str) {
    s.wait_for(
        "document.querySelector('#conn').dataset.state === 'open'",
        &format!("{who}'s connection"),
    )
    .await;
}

/// Chooses `value` in the `<select>` matched by `css`, as a user does (a change event).
async fn select_option(s: &Session, css: &str, value: &str) {
    s.exec(
        "const e = document.querySelector(arguments[0]); e.value = arguments[1]; e.dispatchEvent(new Event('change'));",
        json!([css, value]),
    )
    .await;
}

async fn input_value(s: &Session, css: &str) -> String {
    s.exec(
        "return document.querySelector(arguments[0]).value;",
        json!([css]),
    )
    .await
    .as_str()
    .unwrap()
    .to_string()
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn friends_play_scholars_mate_a_spectator_watches_and_a_reload_restores_the_game() {
    run("scholars_mate", || async {
        let server = Server::start(&[]);
        let driver = Driver::start().await;
        let white = open(&driver, &format!("{}/", server.base), DESKTOP).await;
        white
            .wait_for("document.querySelector('#create-game')", "the lobby")
            .await;
        shot(&white, "lobby").await;
        assert_clean_console(&white, "lobby").await;

        // Create a game against a friend, playing White, with a 5+0 clock.
        white.click("label[for='color-white']").await;
        select_option(&white, "#tc", "5+0").await;
        white.click("#create-game").await;
        white
            .wait_for(
                "document.querySelector('#invite-link')",
                "the invitation links",
            )
            .await;
        shot(&white, "lobby-created").await;
        let invite = input_value(&white, "#invite-link").await;
        let watch = input_value(&white, "#watch-link").await;
        assert!(
            invite.contains("#/game/") && invite.contains("?seat="),
            "{invite}"
        );
        assert!(
            watch.contains("#/game/") && !watch.contains("seat="),
            "{watch}"
        );
        white.click("#go-to-game").await;

        let black = open(&driver, &invite, DESKTOP).await;
        let spectator = open(&driver, &watch, DESKTOP).await;
        for (s, who) in [
            (&white, "white"),
            (&black, "black"),
            (&spectator, "spectator"),
        ] {
            wait_live(s, who).await;
        }
        assert_eq!(white.text("#role").await, "You play white");
        assert_eq!(black.text("#role").await, "You play black");
        assert_eq!(spectator.text("#role").await, "Spectating");
        assert!(
            spectator
                .exec("return document.querySelector('#resign') === null && document.querySelector('svg.board').dataset.movable !== 'true';", json!([]))
                .await
                == json!(true),
            "a spectator has no controls"
        );
        // Black sees the board from its side.
        assert_eq!(
            black
                .exec(
                    "return document.querySelector('.player-bar.bottom').dataset.color;",
                    json!([])
                )
                .await,
            json!("black")
        );

        let plies: [(&str, &str, &str); 7] = [
            ("e2", "e4", "e4"),
            ("e7", "e5", "e5"),
            ("f1", "c4", "Bc4"),
            ("b8", "c6", "Nc6"),
            ("d1", "h5", "Qh5"),
            ("g8", "f6", "Nf6"),
            ("h5", "f7", "Qxf7#"),
        ];
        let mut sans = Vec::new();
        for (i, (from, to, san)) in plies.iter().enumerate() {
            let mover = if i % 2 == 0 { &white } else { &black };
            if i == 5 {
                // Black reloads its page in the middle of the game: the game comes back.
                black.refresh().await;
                wait_live(&black, "black after reloading").await;
                wait_moves(&black, &sans, "black after reloading").await;
                assert_eq!(black.text("#role").await, "You play black");
                shot(&black, "game-black-reloaded").await;
            }
            click_move(mover, from, to).await;
            sans.push(*san);
            for (s, who) in [
                (&white, "white"),
                (&black, "black"),
                (&spectator, "spectator"),
            ] {
                wait_moves(s, &sans, who).await;
            }
            if i == 2 {
                // The clocks run once both sides have moved: White's ticked down from 5:00.
                let clock = white.text(".clock-black").await;
                assert!(clock.starts_with("4:5"), "black's clock runs: {clock}");
            }
        }

        for (s, who) in [
            (&white, "white"),
            (&black, "black"),
            (&spectator, "spectator"),
        ] {
            let status = s
                .wait_for(
                    "document.querySelector('#game-status').dataset.result === 'white_wins' && document.querySelector('#game-status').innerText",
                    &format!("{who} to see the checkmate"),
                )
                .await;
            let status = status.as_str().unwrap();
            // The reason, once (it used to read "White wins · Checkmate … by checkmate").
            assert!(
                status.contains("1–0")
                    && status.contains("by checkmate")
                    && status.to_lowercase().matches("checkmate").count() == 1,
                "{who}: {status}"
            );
            // The mated king glows on e8.
            s.wait_for(
                "document.querySelector(\"[data-check='e8']\")",
                "the check highlight",
            )
            .await;
        }
        assert!(white.text("#game-status").await.contains("You won"));
        assert!(black.text("#game-status").await.contains("You lost"));

        // Looking back: a click on the third move shows that position (Bc4 played, no knight on c6).
        spectator.click("#moves button[data-ply='3']").await;
        spectator
            .wait_for(
                "document.querySelector('svg.board').dataset.ply === '3'",
                "the third move",
            )
            .await;
        assert_eq!(
            spectator
                .exec("return [document.querySelector(\"use[data-square='c4']\")?.dataset.piece, document.querySelector(\"use[data-square='c6']\")?.dataset.piece ?? null];", json!([]))
                .await,
            json!(["B", null])
        );
        shot(&spectator, "game-spectator-looking-back").await;
        spectator.click(".nav-last").await;

        // Export: the PGN holds the moves and the result.
        // (Opened by itself for the creator before the first move; open it otherwise.)
        if white
            .exec("return document.querySelector('#export').open;", json!([]))
            .await
            != json!(true)
        {
            white.click("#export summary").await;
        }
        let pgn = white
            .wait_for(
                "document.querySelector('#pgn-text').value.includes('Qxf7#') && document.querySelector('#pgn-text').value",
                "the PGN",
            )
            .await;
        assert!(pgn.as_str().unwrap().contains("1-0"), "{pgn}");
        shot(&white, "game-white-mate").await;
        shot(&black, "game-black-mate").await;
        shot(&spectator, "game-spectator-mate").await;
        for (s, who) in [
            (&white, "white"),
            (&black, "black"),
            (&spectator, "spectator"),
        ] {
            assert_clean_console(s, who).await;
            s.quit().await;
        }
    });
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn pages_fit_a_phone_screen() {
    run("phone", || async {
        let server = Server::start(&[]);
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/", server.base), PHONE).await;
        s.wait_for("document.querySelector('#create-game')", "the lobby")
            .await;
        let fits = "document.documentElement.scrollWidth <= window.innerWidth";
        assert_eq!(
            s.exec(&format!("return {fits};"), json!([])).await,
            json!(true),
            "lobby fits"
        );
        shot(&s, "phone-lobby").await;
        s.click("#create-game").await;
        s.click("#go-to-game").await;
        wait_live(&s, "the phone player").await;
        let board_width = s
            .exec(
                "return document.querySelector('svg.board').getBoundingClientRect().width;",
                json!([]),
            )
            .await
            .as_f64()
            .unwrap();
        assert!(
            board_width > 340.0 && board_width <= 390.0,
            "the board fills the phone: {board_width}"
        );
        assert_eq!(
            s.exec(&format!("return {fits};"), json!([])).await,
            json!(true),
            "game fits"
        );
        shot(&s, "phone-game").await;
        for page in ["#/puzzles", "#/perft"] {
            s.goto(&format!("{}/{page}", server.base)).await;
            s.wait_for("document.querySelector('svg.board')", page)
                .await;
            assert_eq!(
                s.exec(&format!("return {fits};"), json!([])).await,
                json!(true),
                "{page} fits"
            );
            shot(&s, &format!("phone-{}", &page[2..])).await;
        }
        assert_clean_console(&s, "phone").await;
        s.quit().await;
    });
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn the_board_is_played_by_keyboard_and_by_drag_and_drop() {
    run("keyboard_and_drag", || async {
        let server = Server::start(&[]);
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/", server.base), DESKTOP).await;
        s.click("label[for='color-white']").await;
        s.click("#create-game").await;
        s.click("#go-to-game").await;
        wait_live(&s, "white").await;
        s.wait_for(
            "document.querySelector('svg.board').dataset.movable === 'true'",
            "a movable board",
        )
        .await;
        // Keyboard: focus the board (cursor starts on e2), Enter, up twice, Enter: e2-e4.
        s.exec("document.querySelector('svg.board').focus();", json!([]))
            .await;
        s.press_keys(&['\u{E007}', '\u{E013}', '\u{E013}', '\u{E007}'])
            .await;
        wait_moves(&s, &["e4"], "the keyboard player").await;
        // Black opens the invitation (remembered by White's browser) and types its reply.
        let invite = s
            .exec(
                "return JSON.parse(localStorage.getItem('chessd.games'))[0].invite;",
                json!([]),
            )
            .await;
        let id = s
            .exec(
                "return JSON.parse(localStorage.getItem('chessd.games'))[0].id;",
                json!([]),
            )
            .await;
        let black = open(
            &driver,
            &format!(
                "{}/#/game/{}?seat={}",
                server.base,
                id.as_str().unwrap(),
                invite.as_str().unwrap()
            ),
            DESKTOP,
        )
        .await;
        wait_live(&black, "black").await;
        black.type_into("#move-input", "e5\n").await;
        wait_moves(&s, &["e4", "e5"], "white").await;
        // Drag and drop: g1 to f3 with the pointer.
        s.wait_for(
            "document.querySelector('svg.board').dataset.movable === 'true'",
            "a movable board",
        )
        .await;
        s.drag(
            "svg.board rect[data-square='g1']",
            "svg.board rect[data-square='f3']",
        )
        .await;
        wait_moves(&s, &["e4", "e5", "Nf3"], "the dragging player").await;
        wait_moves(&black, &["e4", "e5", "Nf3"], "black").await;
        assert_clean_console(&s, "keyboard").await;
        assert_clean_console(&black, "typed move").await;
        s.quit().await;
        black.quit().await;
    });
}

/// Asserts that the server lists the builtin engine (`GET /v1/engines`), which the engine tests
/// play and analyse with: they fail, never pass, on a server without it.
async fn assert_builtin_engine(base: &str) {
    let (status, list) = common::get_json(&common::client(), &format!("{base}/v1/engines")).await;
    assert_eq!(status, 200, "GET /v1/engines: {list}");
    let names: Vec<&str> = list["engines"]
        .as_array()
        .unwrap_or_else(|| panic!("an engine list: {list}"))
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert!(names.contains(&"builtin"), "no builtin engine in {list}");
}

/// Asserts that `POST path` with `body` gets the documented client error `status`/`code` (an
/// unknown route would be 404 `not_found`): the route the page is about to use exists.
async fn assert_refused(base: &str, path: &str, body: &Value, status: u16, code: &str) {
    let (got, v) = common::post_json(&common::client(), &format!("{base}{path}"), None, body).await;
    assert_eq!(
        (got, v["error"]["code"].as_str()),
        (status, Some(code)),
        "POST {path} {body}: {v}"
    );
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn a_game_against_the_builtin_engine_gets_a_reply_to_each_move() {
    run("engine_game", || async {
        let server = Server::start(&[]);
        assert_builtin_engine(&server.base).await;
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/", server.base), DESKTOP).await;
        s.wait_for(
            "document.querySelector('#engine option') && !document.querySelector('#opponent-engine').disabled",
            "the engine list",
        )
        .await;
        s.click("label[for='opponent-engine']").await;
        s.click("label[for='color-white']").await;
        assert!(s.text("#engine").await.contains("builtin"));
        shot(&s, "lobby-vs-computer").await;
        s.click("#create-game").await;
        wait_live(&s, "the player").await;
        click_move(&s, "e2", "e4").await;
        s.wait_for(
            "document.querySelectorAll('#moves button.move[data-ply]').length === 2",
            "the engine's first reply",
        )
        .await;
        click_move(&s, "g1", "f3").await;
        s.wait_for(
            "document.querySelectorAll('#moves button.move[data-ply]').length === 4",
            "the engine's second reply",
        )
        .await;
        shot(&s, "game-vs-engine").await;
        assert_clean_console(&s, "engine game").await;
        s.quit().await;
    });
}

/// A row of a CSV file with a header, as field name → value (no quoted commas in the columns
/// we read, except the FEN of the perft files, which we do not read from CSV).
fn csv_rows(path: &str) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            // Split on commas outside double quotes.
            let mut fields = Vec::new();
            let mut cur = String::new();
            let mut quoted = false;
            for c in l.chars() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => fields.push(std::mem::take(&mut cur)),
                    _ => cur.push(c),
                }
            }
            fields.push(cur);
            header.iter().cloned().zip(fields).collect()
        })
        .collect()
}

/// Plays a solved puzzle's main line with "Next move", ply by ply, to the mate in `mate`.
async fn next_moves_to_mate(s: &Session, mate: usize) {
    next_plies_to_mate(s, 2 * mate - 1).await;
}

/// Presses "Next move" `plies` times on the puzzles page, each ply shown in turn, then expects
/// the mate on the board.
async fn next_plies_to_mate(s: &Session, plies: usize) {
    for ply in 1..=plies {
        s.click("#next-move").await;
        s.wait_for(
            &format!("document.querySelector('svg.board').dataset.ply === '{ply}'"),
            "the next move",
        )
        .await;
    }
    s.wait_for(
        "document.querySelector('#puzzle-status').dataset.state === 'mate'",
        "the mate",
    )
    .await;
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn a_shared_puzzle_is_solved_and_stepped_through_to_mate() {
    run("puzzle", || async {
        let server = Server::start(&[]);
        let rows = csv_rows(&format!("{DATA}/puzzles/lichess_m2_m3_sample50.csv"));
        // A mate in 3 from the shared data that is not among the page's built-in samples, pasted.
        let row = rows.iter().filter(|r| r["mate"] == "3").nth(10).unwrap();
        let (fen, mate, key) = (
            &row["fen"],
            row["mate"].parse::<usize>().unwrap(),
            &row["mating_first_moves_uci"],
        );
        // The route the page solves with (`mate_in` 0 is its documented 400).
        assert_refused(
            &server.base,
            "/v1/puzzles",
            &json!({"fen": fen, "mate_in": 0}),
            400,
            "invalid_request",
        )
        .await;
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/#/puzzles", server.base), DESKTOP).await;
        s.wait_for("document.querySelector('#solve')", "the puzzles page")
            .await;
        shot(&s, "puzzles").await;
        s.type_into("#puzzle-fen", fen).await;
        select_option(&s, "#puzzle-mate", &mate.to_string()).await;
        s.click("#solve").await;
        let keys = s
            .wait_for(
                "document.querySelector('#puzzle-keys')?.dataset.keys",
                "the keys",
            )
            .await;
        assert_eq!(keys, json!(key), "the key of puzzle {}", row["puzzle_id"]);
        assert_eq!(s.text("#puzzle-unique").await, "unique solution");
        assert!(s
            .text("#puzzle-verdict")
            .await
            .contains(&format!("mates in {mate}")));
        // Step through the main line with "Next move" to the mate: 2N-1 plies.
        next_moves_to_mate(&s, mate).await;
        assert!(s.text("#explore-line").await.ends_with('#'));
        shot(&s, "puzzle-mate").await;
        // Another defence: back to the key, choose a defence the main line did not, play on
        // with "Next move" until mate.
        s.click("#puzzle-reset").await;
        s.click("#next-move").await;
        let others = s
            .exec(
                "return document.querySelectorAll('#defences button.chip:not(.main)').length;",
                json!([]),
            )
            .await;
        assert!(
            others.as_u64().unwrap() >= 1,
            "the key allows several defences"
        );
        s.click("#defences button.chip:not(.main)").await;
        for _ in 0..(2 * mate) {
            let done = s
                .exec(
                    "return document.querySelector('#puzzle-status').dataset.state === 'mate';",
                    json!([]),
                )
                .await;
            if done == json!(true) {
                break;
            }
            s.click("#next-move").await;
        }
        s.wait_for(
            "document.querySelector('#puzzle-status').dataset.state === 'mate'",
            "the mate after another defence",
        )
        .await;
        shot(&s, "puzzle-other-defence").await;
        assert_clean_console(&s, "puzzles").await;
        s.quit().await;
    });
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn a_perft_job_fills_the_grand_chess_tree_table() {
    run("perft", || async {
        let server = Server::start(&[]);
        // The route the page starts its job with (a bad FEN is its documented 422).
        assert_refused(
            &server.base,
            "/v1/perft",
            &json!({"fen": "not a position", "depth": 1}),
            422,
            "invalid_fen",
        )
        .await;
        // Expected figures from the shared data (chessprogramming.org convention: checks
        // include mates), never from our own output.
        let rows = csv_rows(&format!("{DATA}/perft/perft_cpw_stats.csv"));
        let row = rows
            .iter()
            .find(|r| r["position"] == "start" && r["depth"] == "4")
            .unwrap();
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/#/perft", server.base), DESKTOP).await;
        s.wait_for("document.querySelector('#perft-start')", "the perft page")
            .await;
        s.type_into("#perft-depth", "4").await;
        assert_eq!(
            s.exec(
                "return document.querySelector('#perft-stats').checked;",
                json!([])
            )
            .await,
            json!(true)
        );
        s.click("#perft-start").await;
        s.wait_for(
            "document.querySelector('#perft-state').textContent === 'done'",
            "the job to finish",
        )
        .await;
        let field = |name: &str| {
            format!(
                "document.querySelector(\"#perft-table tr[data-field='{name}']\").dataset.value"
            )
        };
        for column in [
            "nodes",
            "captures",
            "enpassants",
            "castles",
            "promotions",
            "checks",
            "checkmates",
        ] {
            let shown = s
                .exec(&format!("return {};", field(column)), json!([]))
                .await;
            assert_eq!(shown, json!(row[column]), "{column}");
        }
        assert_eq!(row["nodes"], "197281");
        assert_eq!(row["checks"], "469");
        let text = s.text("#perft-table tr[data-field='nodes'] td").await;
        assert_eq!(text, "197,281");
        assert_eq!(
            s.exec(
                "return document.querySelector('#perft-progress').getAttribute('aria-valuenow');",
                json!([])
            )
            .await,
            json!("100")
        );
        shot(&s, "perft-done").await;
        // A long job (depth 8 from Kiwipete: billions of nodes) shows progress and is cancelled.
        select_option(&s, "#perft-preset", "1").await;
        s.type_into("#perft-depth", "8").await;
        s.click("#perft-start").await;
        s.wait_for(
            "document.querySelector('#perft-state').textContent === 'running' && Number(document.querySelector('#perft-progress').dataset.total) > 0",
            "the long job to run",
        )
        .await;
        shot(&s, "perft-running").await;
        s.click("#perft-cancel").await;
        s.wait_for(
            "document.querySelector('#perft-state').textContent === 'cancelled'",
            "the job to be cancelled",
        )
        .await;
        assert_eq!(
            s.exec(
                "return document.querySelector('#perft-cancel').hidden;",
                json!([])
            )
            .await,
            json!(true)
        );
        assert_clean_console(&s, "perft").await;
        s.quit().await;
    });
}

/// Closes every WebSocket of the page from the browser's side (through the DevTools protocol:
/// the page keeps its sockets private), as a dropped network would. Returns how many.
async fn drop_sockets(s: &Session) -> u64 {
    let cdp = |cmd: &'static str, params: Value| s.cdp(cmd, params);
    let proto = cdp(
        "Runtime.evaluate",
        json!({"expression": "WebSocket.prototype"}),
    )
    .await;
    let list = cdp(
        "Runtime.queryObjects",
        json!({"prototypeObjectId": proto["result"]["objectId"]}),
    )
    .await;
    let closed = cdp(
        "Runtime.callFunctionOn",
        json!({
            "objectId": list["objects"]["objectId"],
            "functionDeclaration": "function () { const open = this.filter(ws => ws.readyState === WebSocket.OPEN); open.forEach(ws => ws.close(4001, 'test drop')); return open.length; }",
            "returnByValue": true,
        }),
    )
    .await;
    closed["result"]["value"].as_u64().unwrap()
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn a_dropped_connection_shows_reconnects_and_catches_up() {
    run("reconnect", || async {
        let server = Server::start(&[]);
        let c = common::client();
        let game = common::create_game(&c, &server.base, &json!({})).await;
        let driver = Driver::start().await;
        let black = open(
            &driver,
            &format!("{}/#/game/{}?seat={}", server.base, game.id, game.black),
            DESKTOP,
        )
        .await;
        wait_live(&black, "black").await;
        // Record every state the connection indicator goes through.
        black
            .exec(
                "window.connStates = []; new MutationObserver(() => connStates.push(document.querySelector('#conn').dataset.state)).observe(document.querySelector('#conn'), {attributes: true});",
                json!([]),
            )
            .await;
        assert_eq!(drop_sockets(&black).await, 1, "the game's socket");
        // White moves while Black's page is away.
        let (status, answer) = common::post_json(
            &c,
            &format!("{}/v1/games/{}/moves", server.base, game.id),
            Some(&game.white),
            &json!({"uci": "e2e4"}),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        wait_moves(&black, &["e4"], "black after reconnecting").await;
        wait_live(&black, "black after reconnecting").await;
        let states = black.exec("return connStates;", json!([])).await;
        assert!(
            states.as_array().unwrap().contains(&json!("reconnecting")),
            "the page showed the drop: {states}"
        );
        // The new socket carries Black's reply.
        click_move(&black, "e7", "e5").await;
        wait_moves(&black, &["e4", "e5"], "black").await;
        let (_, moves) =
            common::get_json(&c, &format!("{}/v1/games/{}/moves", server.base, game.id)).await;
        assert_eq!(moves["moves"][1]["san"], "e5");
        shot(&black, "game-black-reconnected").await;
        assert_clean_console(&black, "reconnect").await;
        black.quit().await;
    });
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn the_analysis_panel_shows_the_engines_live_lines() {
    run("analysis", || async {
        let server = Server::start(&[]);
        assert_builtin_engine(&server.base).await;
        let c = common::client();
        let game =
            common::create_game(&c, &server.base, &json!({"pgn": "1. e4 e5 2. Nf3 *"})).await;
        let driver = Driver::start().await;
        let black = open(
            &driver,
            &format!("{}/#/game/{}?seat={}", server.base, game.id, game.black),
            DESKTOP,
        )
        .await;
        wait_live(&black, "black").await;
        black.click("#analysis-toggle").await;
        // Lines (up to three: as many as the engine's MultiPV allows), each with a score, a
        // depth and a PV in SAN starting with Black's move 2.
        let lines = black
            .wait_for(
                "(() => { const ls = [...document.querySelectorAll('#pv-lines .pv-line')]; return ls.length >= 1 && ls.every(l => /^2… /.test(l.querySelector('.pv-moves').textContent)) && ls.map(l => l.innerText); })()",
                "analysis lines",
            )
            .await;
        for line in lines.as_array().unwrap() {
            let text = line.as_str().unwrap();
            assert!(
                text.contains('d') && (text.contains('.') || text.contains('#')),
                "score, depth and moves: {text}"
            );
        }
        shot(&black, "game-analysis").await;
        // A move restarts the analysis on the new position: the lines start with White's move 3.
        click_move(&black, "b8", "c6").await;
        black
            .wait_for(
                "[...document.querySelectorAll('#pv-lines .pv-line .pv-moves')].some(m => /^3\\. /.test(m.textContent))",
                "lines of the new position",
            )
            .await;
        black.click("#analysis-toggle").await;
        black
            .wait_for(
                "!document.querySelector('#pv-lines')",
                "the analysis to stop",
            )
            .await;
        assert_clean_console(&black, "analysis").await;
        black.quit().await;
    });
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn promotion_flip_draw_offers_and_resignation() {
    run("promotion_and_results", || async {
        let server = Server::start(&[]);
        let c = common::client();
        let driver = Driver::start().await;
        // Promotion: the chooser offers four pieces; a knight is taken.
        let game = common::create_game(
            &c,
            &server.base,
            &json!({"fen": "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"}),
        )
        .await;
        let white = open(
            &driver,
            &format!("{}/#/game/{}?seat={}", server.base, game.id, game.white),
            DESKTOP,
        )
        .await;
        wait_live(&white, "white").await;
        click_move(&white, "e7", "e8").await;
        white
            .wait_for(
                "document.querySelectorAll('.promotion button[data-promotion]').length === 4",
                "the promotion chooser",
            )
            .await;
        shot(&white, "game-promotion").await;
        white.click(".promotion button[data-promotion='n']").await;
        wait_moves(&white, &["e8=N"], "white").await;
        assert_eq!(
            white
                .exec(
                    "return document.querySelector(\"use[data-square='e8']\").dataset.piece;",
                    json!([])
                )
                .await,
            json!("N")
        );
        // Flip: Black comes to the bottom.
        white.click(".nav-flip").await;
        assert_eq!(
            white
                .exec(
                    "return document.querySelector('.player-bar.bottom').dataset.color;",
                    json!([])
                )
                .await,
            json!("black")
        );
        white.quit().await;

        // A draw offer, seen and accepted by the other side.
        let game = common::create_game(&c, &server.base, &json!({"pgn": "1. e4 e5 *"})).await;
        let url = |seat: &str| format!("{}/#/game/{}?seat={seat}", server.base, game.id);
        let white = open(&driver, &url(&game.white), DESKTOP).await;
        let black = open(&driver, &url(&game.black), DESKTOP).await;
        wait_live(&white, "white").await;
        wait_live(&black, "black").await;
        white.click("#offer-draw").await;
        white
            .wait_for(
                "document.querySelector('#offer-draw').disabled",
                "the offer to be sent",
            )
            .await;
        black.click("#accept-draw").await;
        for (s, who) in [(&white, "white"), (&black, "black")] {
            let text = s
                .wait_for(
                    "document.querySelector('#game-status').dataset.result === 'draw' && document.querySelector('#game-status').innerText",
                    &format!("{who} to see the draw"),
                )
                .await;
            assert!(text.as_str().unwrap().contains("agreement"), "{text}");
        }
        shot(&black, "game-draw").await;

        // Resignation takes two clicks; the other side sees the result.
        let game = common::create_game(&c, &server.base, &json!({})).await;
        let url = |seat: &str| format!("{}/#/game/{}?seat={seat}", server.base, game.id);
        white.goto(&url(&game.white)).await;
        black.goto(&url(&game.black)).await;
        wait_live(&white, "white").await;
        wait_live(&black, "black").await;
        white.click("#resign").await;
        assert_eq!(white.text("#resign").await, "Confirm resign");
        white.click("#resign").await;
        let text = black
            .wait_for(
                "document.querySelector('#game-status').dataset.result === 'black_wins' && document.querySelector('#game-status').innerText",
                "black to see the resignation",
            )
            .await;
        assert!(
            text.as_str().unwrap().contains("You won by resignation"),
            "{text}"
        );
        shot(&white, "game-resigned").await;
        for (s, who) in [(&white, "white"), (&black, "black")] {
            assert_clean_console(s, who).await;
            s.quit().await;
        }
    });
}
