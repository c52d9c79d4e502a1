//! The web page's defects a newcomer's first hour found, each checked in the real browser: the
//! result banner names its reason once, no focus ring is drawn around the whole page, black piece
//! icons stay visible in the dark theme, the move box is on screen at 1280×900, and the perft
//! page lets the server use all its threads by default; a link to an unknown game opens no
//! socket, and the header's theme button overrides the system's colour scheme.

use base64::Engine as _;
use serde_json::{json, Value};

use super::{
    assert_clean_console, common, open, run, select_option, shot, wait_live,
    webdriver::{Driver, Session},
    DESKTOP, RECORD_POSTS_JS,
};
use crate::common::Server;

/// Scholar's mate, finished: White wins by checkmate.
const SCHOLARS_MATE: &str = "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0";

/// The lines of the result banner.
async fn banner_lines(s: &Session) -> Vec<String> {
    let text = s
        .wait_for(
            "document.querySelector('#game-status')?.dataset.result === 'white_wins' && document.querySelector('#game-status').innerText",
            "the result banner",
        )
        .await;
    text.as_str()
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn the_result_banner_names_its_reason_once() {
    run("result_banner", || async {
        let server = Server::start(&[]);
        let c = common::client();
        let game = common::create_game(&c, &server.base, &json!({"pgn": SCHOLARS_MATE})).await;
        let driver = Driver::start().await;
        let url = |seat: Option<&str>| match seat {
            Some(seat) => format!("{}/#/game/{}?seat={seat}", server.base, game.id),
            None => format!("{}/#/game/{}", server.base, game.id),
        };
        let spectator = open(&driver, &url(None), DESKTOP).await;
        assert_eq!(
            banner_lines(&spectator).await,
            ["1–0", "White wins by checkmate"]
        );
        shot(&spectator, "banner-spectator").await;
        let white = open(&driver, &url(Some(&game.white)), DESKTOP).await;
        // A seat's page knows whose it is once its socket says so.
        super::wait_live(&white, "white").await;
        assert_eq!(
            banner_lines(&white).await,
            ["1–0", "You won by checkmate", "White wins"]
        );
        let black = open(&driver, &url(Some(&game.black)), DESKTOP).await;
        super::wait_live(&black, "black").await;
        assert_eq!(
            banner_lines(&black).await,
            ["1–0", "You lost by checkmate", "White wins"]
        );
        for (s, who) in [
            (&spectator, "spectator"),
            (&white, "white"),
            (&black, "black"),
        ] {
            assert_clean_console(s, who).await;
            s.quit().await;
        }
    });
}

/// The focused element and the outline drawn around it: `[tag, id, outline-style, drawn width]`
/// (no width is drawn when the style is `none`, whatever `outline-width` computes to).
const FOCUS_OUTLINE_JS: &str = "const e = document.activeElement; const cs = getComputedStyle(e); return [e.tagName, e.id, cs.outlineStyle, cs.outlineStyle === 'none' ? '0px' : cs.outlineWidth];";

async fn focus_outline(s: &Session) -> Value {
    s.exec(FOCUS_OUTLINE_JS, json!([])).await
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn a_route_change_focuses_the_page_without_a_ring_and_the_keyboard_still_shows_focus() {
    run("focus_ring", || async {
        let server = Server::start(&[]);
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/", server.base), DESKTOP).await;
        s.wait_for("document.querySelector('#create-game')", "the lobby")
            .await;
        // Each route focuses <main> (screen readers and Tab start from the new page) but draws
        // no outline around it: that was the blue bar across every page.
        for (how, route, ready) in [
            ("loading", None, "#create-game"),
            (
                "a click on Perft",
                Some("a[data-section='perft']"),
                "#perft-start",
            ),
            (
                "a click on Puzzles",
                Some("a[data-section='puzzles']"),
                "#solve",
            ),
            (
                "a click on Play",
                Some("a[data-section='play']"),
                "#create-game",
            ),
        ] {
            if let Some(link) = route {
                s.click(link).await;
            }
            s.wait_for(&format!("document.querySelector(\"{ready}\")"), how)
                .await;
            assert_eq!(
                focus_outline(&s).await,
                json!(["MAIN", "app", "none", "0px"]),
                "after {how}"
            );
        }
        shot(&s, "focus-lobby").await;
        // Script-driven route changes too (the lobby's "Go to the game" and links in the page).
        s.exec("location.hash = '#/perft';", json!([])).await;
        s.wait_for("document.querySelector('#perft-start')", "the perft page")
            .await;
        assert_eq!(
            focus_outline(&s).await,
            json!(["MAIN", "app", "none", "0px"])
        );
        // The keyboard: Tab from the page reaches its first control, which shows its ring.
        s.press_keys(&['\u{E004}']).await;
        assert_eq!(
            focus_outline(&s).await,
            json!(["SELECT", "perft-variant", "solid", "3px"])
        );
        shot(&s, "focus-keyboard").await;
        assert_clean_console(&s, "focus").await;
        s.quit().await;
    });
}

/// In the page: the share of a PNG's pixels (base64) whose contrast with its top-left pixel (the
/// background behind the icon) is at least 3:1, the WCAG minimum for graphics.
const CONTRAST_JS: &str = r#"
const [png, done] = [arguments[0], arguments[arguments.length - 1]];
const img = new Image();
img.onload = () => {
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  const chan = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = (i) => 0.2126 * chan(d[i]) + 0.7152 * chan(d[i + 1]) + 0.0722 * chan(d[i + 2]);
  const bg = lum(0);
  let strong = 0;
  for (let i = 0; i < d.length; i += 4) {
    const l = lum(i);
    if ((Math.max(l, bg) + 0.05) / (Math.min(l, bg) + 0.05) >= 3) strong += 1;
  }
  done(strong / (d.length / 4));
};
img.onerror = () => done(null);
img.src = 'data:image/png;base64,' + png;
"#;

/// The share of an element's pixels that stand out from its background (see [`CONTRAST_JS`]).
pub(super) async fn visible_share(s: &Session, css: &str) -> f64 {
    let png = base64::engine::general_purpose::STANDARD.encode(s.element_screenshot(css).await);
    let share = s.exec_async(CONTRAST_JS, json!([png])).await;
    share
        .as_f64()
        .unwrap_or_else(|| panic!("{css}: screenshot not decoded"))
}

/// Puts the twelve piece icons (as the page draws them outside the board) in a row on the
/// panels' background, each as `#icons svg[data-icon=X]`.
const ICON_ROW_JS: &str = r#"
const done = arguments[arguments.length - 1];
import('/js/pieces.js').then((m) => {
  const row = document.createElement('div');
  row.id = 'icons';
  row.style.cssText = 'display: flex; gap: 6px; padding: 6px; background: var(--panel-2)';
  for (const p of 'KQRBNPkqrbnp') {
    const svg = m.pieceSvg(p, 26);
    svg.dataset.icon = p;
    row.append(svg);
  }
  document.querySelector('.create-game').prepend(row);
  done(true);
}, (e) => done(String(e)));
"#;

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn every_piece_icon_stands_out_in_the_light_and_the_dark_theme() {
    run("piece_icons", || async {
        let server = Server::start(&[]);
        let driver = Driver::start().await;
        // Every icon that blends into its background, in both themes (reported together).
        let mut faint = Vec::new();
        // The system's light and dark schemes, then the dark theme chosen with the header's
        // button on a light system.
        for (system, chosen) in [("light", None), ("dark", None), ("light", Some("dark"))] {
            let theme = chosen.unwrap_or(system);
            let s = driver.session(DESKTOP.0, DESKTOP.1).await;
            s.cdp(
                "Emulation.setEmulatedMedia",
                json!({"features": [{"name": "prefers-color-scheme", "value": system}]}),
            )
            .await;
            s.goto(&format!("{}/", server.base)).await;
            s.wait_for("document.querySelector('#create-game')", "the lobby")
                .await;
            if let Some(chosen) = chosen {
                s.exec(
                    "localStorage.setItem('chessd-theme', arguments[0]); location.reload();",
                    json!([chosen]),
                )
                .await;
                s.wait_for(
                    "document.documentElement.dataset.theme === 'dark' && document.querySelector('#create-game')",
                    "the lobby in the chosen theme",
                )
                .await;
            }
            assert_eq!(
                s.exec(
                    "return matchMedia('(prefers-color-scheme: dark)').matches;",
                    json!([])
                )
                .await,
                json!(system == "dark")
            );
            // The colour chooser's kings, as the user sees them (the black one was invisible in
            // the dark theme: a dark piece with a dark outline on a dark panel), then all twelve
            // icons on the panels' background.
            let mut icons: Vec<(String, String)> = ["white", "black"]
                .iter()
                .map(|side| {
                    (
                        format!("the {side} king of the colour chooser"),
                        format!("label[for='color-{side}'] svg"),
                    )
                })
                .collect();
            assert_eq!(s.exec_async(ICON_ROW_JS, json!([])).await, json!(true));
            icons.extend("KQRBNPkqrbnp".chars().map(|piece| {
                (
                    format!("the {piece} icon"),
                    format!("#icons svg[data-icon='{piece}']"),
                )
            }));
            for (what, css) in icons {
                let share = visible_share(&s, &css).await;
                if share < 0.04 {
                    faint.push(format!(
                        "{theme} theme: {what} ({:.1} % of its pixels stand out)",
                        share * 100.0
                    ));
                }
            }
            let name = match chosen {
                Some(chosen) => format!("piece-icons-{chosen}-chosen"),
                None => format!("piece-icons-{theme}"),
            };
            shot(&s, &name).await;
            assert_clean_console(&s, theme).await;
            s.quit().await;
        }
        assert!(
            faint.is_empty(),
            "piece icons that blend into their background: {faint:#?}"
        );
    });
}

/// `[top, bottom]` of an element's box and the viewport's height.
const BOXES_JS: &str = "const b = (q) => { const r = document.querySelector(q).getBoundingClientRect(); return [r.top, r.bottom]; }; return {board: b('svg.board'), input: b('#move-input'), play: b('.move-form button'), height: innerHeight, scrolled: scrollY};";

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn the_board_and_the_move_box_fit_a_1280_by_900_screen() {
    run("move_box", || async {
        let server = Server::start(&[]);
        let c = common::client();
        let game = common::create_game(&c, &server.base, &json!({})).await;
        let driver = Driver::start().await;
        let s = open(
            &driver,
            &format!("{}/#/game/{}?seat={}", server.base, game.id, game.white),
            DESKTOP,
        )
        .await;
        wait_live(&s, "white").await;
        s.wait_for(
            "!document.querySelector('.move-form').hidden",
            "the move box",
        )
        .await;
        // The 1280×900 window itself (its viewport is smaller: the browser keeps room for its
        // own bars), then viewports of exactly 1280×900 and 1280×720.
        for viewport in [None, Some(900), Some(720)] {
            if let Some(height) = viewport {
                s.cdp(
                    "Emulation.setDeviceMetricsOverride",
                    json!({"width": 1280, "height": height, "deviceScaleFactor": 1, "mobile": false}),
                )
                .await;
            }
            let boxes = s
                .wait_for(&format!("(() => {{ {BOXES_JS} }})()"), "the layout")
                .await;
            let height = boxes["height"].as_f64().unwrap();
            if let Some(h) = viewport {
                assert_eq!(height, h as f64, "the emulated viewport");
            }
            assert_eq!(boxes["scrolled"], json!(0), "{boxes}");
            for part in ["board", "input", "play"] {
                let (top, bottom) = (
                    boxes[part][0].as_f64().unwrap(),
                    boxes[part][1].as_f64().unwrap(),
                );
                assert!(
                    top >= 0.0 && bottom <= height,
                    "the {part} is on screen without scrolling at a {height} px high viewport: {boxes}"
                );
            }
            let board = boxes["board"][1].as_f64().unwrap() - boxes["board"][0].as_f64().unwrap();
            assert!(board >= 400.0, "the board stays large: {board} px");
            shot(
                &s,
                &format!(
                    "move-box-{}",
                    viewport.map_or("window".to_string(), |h| h.to_string())
                ),
            )
            .await;
        }
        // A move typed in the box is played.
        s.type_into("#move-input", "e4\n").await;
        s.wait_for(
            "document.querySelectorAll('#moves button.move[data-ply]').length === 1",
            "the typed move",
        )
        .await;
        assert_clean_console(&s, "move box").await;
        s.quit().await;
    });
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn the_perft_page_lets_the_server_use_all_its_threads_by_default() {
    run("perft_threads", || async {
        // A pool of 3 threads: neither the page's old default (1) nor this machine's core count;
        // a client without an API key may have all of it here.
        let server = Server::start(&[
            ("CHESSD_JOBS__POOL_THREADS", "3"),
            ("CHESSD_JOBS__ANONYMOUS_MAX_THREADS", "3"),
            ("CHESSD_JOBS__MAX_CLIENT_THREADS", "3"),
        ]);
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/#/perft", server.base), DESKTOP).await;
        s.wait_for(
            "document.querySelector('#perft-threads option[value=\"3\"]')",
            "the thread choices from the server's pool",
        )
        .await;
        assert_eq!(
            s.exec(
                "const t = document.querySelector('#perft-threads'); return [t.value, t.selectedOptions[0].textContent];",
                json!([])
            )
            .await,
            json!(["", "All threads"])
        );
        // Record what the page sends.
        s.exec(RECORD_POSTS_JS, json!([])).await;
        s.type_into("#perft-depth", "3").await;
        s.click("#perft-start").await;
        s.wait_for(
            "document.querySelector('#perft-state').textContent === 'done'",
            "the job to finish",
        )
        .await;
        let sent = s.exec("return sentBodies;", json!([])).await;
        assert_eq!(
            sent,
            json!([{"depth": 3, "stats": true}]),
            "no `threads`: the server's default"
        );
        assert_eq!(
            s.text("#perft-table tr[data-field='threads'] td").await,
            "3",
            "the job ran on the whole pool"
        );
        // Choosing a number still sends it.
        select_option(&s, "#perft-threads", "2").await;
        s.exec("window.sentBodies = [];", json!([])).await;
        s.click("#perft-start").await;
        s.wait_for(
            "document.querySelector('#perft-state').textContent === 'done' && document.querySelector(\"#perft-table tr[data-field='threads'] td\").textContent === '2'",
            "the two-thread job to finish",
        )
        .await;
        assert_eq!(
            s.exec("return sentBodies;", json!([])).await,
            json!([{"depth": 3, "stats": true, "threads": 2}])
        );
        shot(&s, "perft-all-threads").await;
        assert_clean_console(&s, "perft threads").await;
        s.quit().await;
    });
}

/// The console entries of the page other than the one expected 404 of reading a game that does
/// not exist: what is left is an error the page made (a refused WebSocket above all).
async fn console_beyond_the_404(s: &Session) -> Vec<Value> {
    s.console()
        .await
        .into_iter()
        .filter(|e| matches!(e["level"].as_str(), Some("SEVERE") | Some("WARNING")))
        .filter(|e| {
            // Chromium logs the refused read as "<url> - Failed to load resource: … 404"; a
            // refused socket says "WebSocket connection to '…/ws' failed", which stays.
            let message = e["message"].as_str().unwrap_or_default();
            !(message.contains("/v1/games/no-such-game -")
                && message.contains("Failed to load resource")
                && message.contains("404"))
        })
        .collect()
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn a_link_to_an_unknown_game_says_not_found_and_opens_no_socket() {
    run("unknown_game_link", || async {
        let server = Server::start(&[]);
        let driver = Driver::start().await;
        for route in ["game", "chess2"] {
            let s = open(
                &driver,
                &format!("{}/#/{route}/no-such-game", server.base),
                DESKTOP,
            )
            .await;
            let title = s
                .wait_for(
                    "document.querySelector('section.page h1')?.textContent === 'Game not found' && document.querySelector('section.page h1').textContent",
                    "the not-found card",
                )
                .await;
            assert_eq!(title, json!("Game not found"), "{route}");
            // Any socket would have been refused by now: give it the time to say so.
            actix_web::rt::time::sleep(std::time::Duration::from_millis(500)).await;
            let bad = console_beyond_the_404(&s).await;
            assert!(bad.is_empty(), "{route}: {bad:#?}");
            s.quit().await;
        }
    });
}

/// The page's background colour, as computed.
const BACKGROUND_JS: &str = "return getComputedStyle(document.body).backgroundColor;";

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn the_theme_button_overrides_the_system_scheme_and_is_remembered() {
    run("theme_button", || async {
        let server = Server::start(&[]);
        let driver = Driver::start().await;
        let s = driver.session(DESKTOP.0, DESKTOP.1).await;
        s.cdp(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
        )
        .await;
        s.goto(&format!("{}/", server.base)).await;
        s.wait_for("document.querySelector('#create-game')", "the lobby")
            .await;
        const DARK: &str = "rgb(24, 25, 27)";
        const LIGHT: &str = "rgb(243, 242, 238)";
        assert_eq!(s.text("#theme-toggle").await, "Theme: system");
        assert_eq!(s.exec(BACKGROUND_JS, json!([])).await, json!(DARK));
        // system → light → dark, each applied at once.
        s.click("#theme-toggle").await;
        assert_eq!(s.text("#theme-toggle").await, "Theme: light");
        assert_eq!(s.exec(BACKGROUND_JS, json!([])).await, json!(LIGHT));
        s.click("#theme-toggle").await;
        assert_eq!(s.text("#theme-toggle").await, "Theme: dark");
        assert_eq!(s.exec(BACKGROUND_JS, json!([])).await, json!(DARK));
        // Remembered: a light system still gets the dark theme after a reload.
        s.cdp(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": "light"}]}),
        )
        .await;
        s.exec("location.reload();", json!([])).await;
        s.wait_for(
            "document.querySelector('#create-game') && document.querySelector('#theme-toggle').textContent === 'Theme: dark'",
            "the lobby after a reload",
        )
        .await;
        assert_eq!(s.exec(BACKGROUND_JS, json!([])).await, json!(DARK));
        // Back to the system's (now light) scheme.
        s.click("#theme-toggle").await;
        assert_eq!(s.text("#theme-toggle").await, "Theme: system");
        assert_eq!(s.exec(BACKGROUND_JS, json!([])).await, json!(LIGHT));
        shot(&s, "theme-button").await;
        assert_clean_console(&s, "theme button").await;
        s.quit().await;
    });
}
