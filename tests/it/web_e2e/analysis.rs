//! The analysis panel with a real Stockfish: the engine chooser (Stockfish preselected among the
//! reachable engines), MultiPV 3 with scores from White's side, another engine chosen while
//! analysing, the position shown in the move list analysed, and a finished game analysed; no
//! analysis while the engine is the opponent, until the game is over.

use serde_json::{json, Value};

use super::{
    assert_clean_console, click_move, common, open, run, screenshot_path, select_option, shot,
    wait_live,
    webdriver::{Driver, Session},
    DESKTOP,
};
use crate::common::Server;

/// Where Debian (and the other layouts build.rs knows) installs Stockfish.
fn stockfish_path() -> String {
    [
        "/usr/games/stockfish",
        "/usr/bin/stockfish",
        "/usr/local/bin/stockfish",
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).is_file())
    .expect("stockfish is installed (build.rs said so)")
    .to_string()
}

/// The server's environment: Stockfish configured as `sf` (as engines_stockfish.rs does).
fn sf_env(sf: &str) -> [(&'static str, &str); 2] {
    [
        ("CHESSD_ENGINES__SF__COMMAND", sf),
        ("CHESSD_ENGINES__SF__OPTIONS", "{Hash = 16, Threads = 1}"),
    ]
}

/// The lines the panel shows: `[{score, depth, moves}]`.
const LINES_JS: &str = "[...document.querySelectorAll('#pv-lines .pv-line')].map(l => ({score: l.querySelector('.pv-score').textContent, depth: Number(l.querySelector('.pv-depth').textContent.slice(1)), moves: l.querySelector('.pv-moves').textContent}))";

/// Waits until the panel, analysing with `engine`, shows `count` lines, each with a score and a
/// PV starting with `start` (a move number: `"3… "`), searched to at least `depth`; returns them.
async fn wait_lines(
    s: &Session,
    engine: &str,
    count: usize,
    start: &str,
    depth: u32,
    what: &str,
) -> Vec<Value> {
    let expr = format!(
        "(() => {{ const box = document.querySelector('#analysis'); const ls = {LINES_JS}; \
         return box.dataset.state === 'on' && box.dataset.engine === {engine} && ls.length === {count} \
         && ls.every(l => /^([+-]?\\d+\\.\\d\\d|-?#\\d+)$/.test(l.score) && l.depth >= {depth} && l.moves.startsWith({start})) && ls; }})()",
        engine = json!(engine),
        start = json!(start),
    );
    s.wait_for(&expr, what).await.as_array().unwrap().clone()
}

/// A score as pawns from White's side (a mate for White counts as 100).
fn pawns(line: &Value) -> f64 {
    let text = line["score"].as_str().unwrap();
    match text.strip_prefix('#') {
        Some(_) => 100.0,
        None if text.starts_with("-#") => -100.0,
        None => text.parse().unwrap(),
    }
}

/// Saves a PNG of the analysis panel alone next to the page screenshots.
async fn panel_shot(s: &Session, name: &str) {
    s.exec(
        "document.querySelector('#analysis').scrollIntoView({block: 'center'});",
        json!([]),
    )
    .await;
    let png = s.element_screenshot("#analysis").await;
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    let path = screenshot_path(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, png).unwrap();
}

/// Chooses `engine` in the panel's chooser, as a user does (a change event).
async fn choose(s: &Session, engine: &str) {
    select_option(s, "#analysis-engine", engine).await;
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
#[cfg_attr(
    all(has_chromium, has_chromedriver, not(has_stockfish)),
    ignore = "stockfish is not installed (apt-get install stockfish)"
)]
fn the_analysis_panel_chooses_stockfish_shows_three_lines_and_analyses_a_finished_game() {
    run("analysis_stockfish", || async {
        let sf = stockfish_path();
        let server = Server::start(&sf_env(&sf));
        let c = common::client();
        // Black to move a queen down (2… Qh4?? 3. Nxh4): from White's side every line scores
        // far above zero, while the engine scores for Black, the side to move.
        let game = common::create_game(
            &c,
            &server.base,
            &json!({"pgn": "1. e4 e5 2. Nf3 Qh4 3. Nxh4 *"}),
        )
        .await;
        let driver = Driver::start().await;
        let s = open(
            &driver,
            &format!("{}/#/game/{}?seat={}", server.base, game.id, game.black),
            DESKTOP,
        )
        .await;
        wait_live(&s, "black").await;

        // The chooser offers the reachable engines and starts on Stockfish.
        let chosen = s
            .wait_for(
                "!document.querySelector('#analysis-toggle').disabled && document.querySelector('#analysis-engine').value",
                "the engine chooser",
            )
            .await;
        let chosen = chosen.as_str().unwrap().to_string();
        assert!(
            chosen == "sf" || chosen == "stockfish",
            "Stockfish is preselected: {chosen}"
        );
        let offered = s
            .exec(
                "return [...document.querySelectorAll('#analysis-engine option')].map(o => o.value);",
                json!([]),
            )
            .await;
        let offered: Vec<&str> = offered
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(
            offered.contains(&"builtin") && offered.contains(&chosen.as_str()),
            "{offered:?}"
        );
        // Named for assistive technology: a label for the chooser, a pressed state on the toggle.
        assert_eq!(s.text("label[for='analysis-engine']").await, "Engine");
        assert_eq!(
            s.exec(
                "return document.querySelector('#analysis-toggle').getAttribute('aria-pressed');",
                json!([])
            )
            .await,
            json!("false")
        );

        // Three lines, scored from White's side: the queen up shows as a big plus.
        s.click("#analysis-toggle").await;
        let lines = wait_lines(&s, &chosen, 3, "3… ", 6, "three Stockfish lines").await;
        for line in &lines {
            assert!(
                pawns(line) > 3.0,
                "White is a queen up, from White's side: {line}"
            );
        }
        assert_eq!(
            s.exec(
                "return document.querySelector('#analysis-toggle').getAttribute('aria-pressed');",
                json!([])
            )
            .await,
            json!("true")
        );
        assert!(s.text("#analysis-position").await.contains("after 3. Nxh4"));
        shot(&s, "analysis-stockfish").await;
        panel_shot(&s, "analysis-stockfish-panel").await;

        // Another engine chosen while analysing: the analysis goes on with it (the built-in
        // engine searches one line), and back.
        choose(&s, "builtin").await;
        let lines = wait_lines(&s, "builtin", 1, "3… ", 1, "the built-in engine's line").await;
        assert!(pawns(&lines[0]) > 3.0, "{lines:?}");
        choose(&s, &chosen).await;
        wait_lines(&s, &chosen, 3, "3… ", 1, "Stockfish again").await;

        // Looking back during the game: the position shown (after 2. Nf3, Black to move) is
        // analysed, then the live one again.
        s.click("#moves button[data-ply='3']").await;
        wait_lines(
            &s,
            &chosen,
            3,
            "2… ",
            1,
            "lines of the position after 2. Nf3",
        )
        .await;
        assert_eq!(
            s.exec(
                "return document.querySelector('#analysis-position').dataset.ply;",
                json!([])
            )
            .await,
            json!("3")
        );
        s.click(".nav-last").await;
        wait_lines(&s, &chosen, 3, "3… ", 1, "lines of the live position").await;

        // Black resigns (through the API): the game is over, and analysing it goes on.
        let (status, answer) = common::post_json(
            &c,
            &format!("{}/v1/games/{}/resign", server.base, game.id),
            Some(&game.black),
            &json!({}),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        s.wait_for(
            "document.querySelector('#game-status').dataset.result === 'white_wins'",
            "the resignation",
        )
        .await;
        wait_lines(&s, &chosen, 3, "3… ", 1, "lines of the finished game").await;
        // Stopped, then started again on the finished game.
        s.click("#analysis-toggle").await;
        s.wait_for(
            "!document.querySelector('#pv-lines') && document.querySelector('#analysis').dataset.state === 'off'",
            "the analysis to stop",
        )
        .await;
        s.click("#analysis-toggle").await;
        let lines = wait_lines(
            &s,
            &chosen,
            3,
            "3… ",
            6,
            "a new analysis of the finished game",
        )
        .await;
        for line in &lines {
            assert!(pawns(line) > 3.0, "{line}");
        }
        // Any position of the finished game: after 1… e5, White to move.
        s.click("#moves button[data-ply='2']").await;
        wait_lines(
            &s,
            &chosen,
            3,
            "2. ",
            1,
            "lines of the position after 1… e5",
        )
        .await;
        shot(&s, "analysis-finished-game").await;
        panel_shot(&s, "analysis-finished-game-panel").await;
        s.click("#analysis-toggle").await;
        s.wait_for(
            "document.querySelector('#analysis').dataset.state === 'off'",
            "the analysis to stop",
        )
        .await;
        assert_clean_console(&s, "analysis").await;
        s.quit().await;
    });
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
#[cfg_attr(
    all(has_chromium, has_chromedriver, not(has_stockfish)),
    ignore = "stockfish is not installed (apt-get install stockfish)"
)]
fn against_the_computer_analysis_waits_for_the_end_of_the_game() {
    run("analysis_vs_engine", || async {
        let sf = stockfish_path();
        let server = Server::start(&sf_env(&sf));
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/", server.base), DESKTOP).await;
        s.wait_for(
            "document.querySelector('#engine option') && !document.querySelector('#opponent-engine').disabled",
            "the engine list",
        )
        .await;
        // White against the built-in engine (the lobby's default).
        s.click("label[for='opponent-engine']").await;
        s.click("label[for='color-white']").await;
        select_option(&s, "#engine", "builtin").await;
        s.click("#create-game").await;
        wait_live(&s, "the player").await;
        click_move(&s, "e2", "e4").await;
        s.wait_for(
            "document.querySelectorAll('#moves button.move[data-ply]').length === 2",
            "the engine's reply",
        )
        .await;
        // While the engine plays: no analysis, and the panel says why.
        s.wait_for(
            "document.querySelector('#analysis-toggle').hidden && document.querySelector('#analysis').innerText.includes('your opponent')",
            "no analysis against the computer",
        )
        .await;
        // No engine chooser either (it used to preselect Stockfish, then refuse it).
        assert_eq!(
            s.exec(
                "const e = document.querySelector('#analysis-engine'); return !e || e.offsetParent === null;",
                json!([])
            )
            .await,
            json!(true),
            "the engine chooser is hidden while the computer plays"
        );
        // Resigned: the game is over, so its analysis is allowed (with Stockfish, which
        // replaces the idle opponent), and the bar still names the computer.
        s.click("#resign").await;
        s.click("#resign").await;
        s.wait_for(
            "document.querySelector('#game-status').dataset.result === 'black_wins'",
            "the resignation",
        )
        .await;
        let chosen = s
            .wait_for(
                "!document.querySelector('#analysis-toggle').hidden && !document.querySelector('#analysis-toggle').disabled && document.querySelector('#analysis-engine').value",
                "the analysis offered after the game",
            )
            .await;
        let chosen = chosen.as_str().unwrap().to_string();
        assert!(chosen == "sf" || chosen == "stockfish", "{chosen}");
        s.click("#analysis-toggle").await;
        wait_lines(&s, &chosen, 3, "2. ", 1, "lines of the finished game").await;
        // The opponent keeps its name: the analysis engine attached now is not the one that
        // played (the bar used to say "Computer · stockfish").
        assert_eq!(
            s.text(".player-bar.top .player-name").await,
            "Computer · builtin",
            "the opponent is still named"
        );
        panel_shot(&s, "analysis-after-engine-game-panel").await;
        s.click("#analysis-toggle").await;
        s.wait_for(
            "document.querySelector('#analysis').dataset.state === 'off'",
            "the analysis to stop",
        )
        .await;
        assert_clean_console(&s, "analysis after an engine game").await;
        s.quit().await;
    });
}

/// A spectator of a finished game, who holds no secret of it, analyses a copy of it made from
/// its PGN: the copy opens with its own admin secret, has the same moves and result, and the
/// panel shows the engine's lines there.
#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn a_spectator_analyses_a_copy_of_a_finished_game() {
    run("analysis_spectator_copy", || async {
        let server = Server::start(&[]);
        let c = common::client();
        let g = common::create_game(&c, &server.base, &json!({})).await;
        for (uci, secret) in [
            ("e2e4", &g.white),
            ("e7e5", &g.black),
            ("g1f3", &g.white),
            ("b8c6", &g.black),
        ] {
            let (status, v) = common::post_json(
                &c,
                &format!("{}/v1/games/{}/moves", server.base, g.id),
                Some(secret),
                &json!({ "uci": uci }),
            )
            .await;
            assert_eq!(status, 200, "{v}");
        }
        let (status, v) = common::post_json(
            &c,
            &format!("{}/v1/games/{}/resign", server.base, g.id),
            Some(&g.white),
            &json!({}),
        )
        .await;
        assert_eq!(status, 200, "{v}");
        let driver = Driver::start().await;
        let s = open(
            &driver,
            &format!("{}/#/game/{}", server.base, g.id),
            DESKTOP,
        )
        .await;
        s.wait_for(
            "document.querySelector('#analyse-copy') && !document.querySelector('#analyse-copy').disabled",
            "the spectator's copy button",
        )
        .await;
        assert_eq!(s.text("#role").await, "Spectating");
        s.click("#analyse-copy").await;
        let hash = s
            .wait_for(
                &format!(
                    "location.hash.startsWith('#/game/') && !location.hash.includes({}) && location.hash.includes('seat=') && location.hash",
                    json!(g.id)
                ),
                "the copy's page",
            )
            .await;
        let copy = hash.as_str().unwrap()["#/game/".len()..]
            .split('?')
            .next()
            .unwrap()
            .to_string();
        let (status, view) =
            common::get_json(&c, &format!("{}/v1/games/{copy}", server.base)).await;
        assert_eq!(status, 200, "{view}");
        assert_eq!(view["moves"].as_array().map(Vec::len), Some(4), "{view}");
        assert_eq!(view["status"]["result"], "black_wins", "{view}");
        s.wait_for(
            "!document.querySelector('#analysis-toggle').hidden && !document.querySelector('#analysis-toggle').disabled",
            "analysis offered on the copy",
        )
        .await;
        s.click("#analysis-toggle").await;
        s.wait_for(
            &format!("document.querySelector('#analysis').dataset.state === 'on' && {LINES_JS}.length >= 1"),
            "the engine's lines on the copy",
        )
        .await;
        shot(&s, "analysis-spectator-copy").await;
        s.click("#analysis-toggle").await;
        s.wait_for(
            "document.querySelector('#analysis').dataset.state === 'off'",
            "the analysis to stop",
        )
        .await;
        assert_clean_console(&s, "a spectator's analysis copy").await;
        s.quit().await;
    });
}
