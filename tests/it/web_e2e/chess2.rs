//! The Chess 2 pages in a real browser: the lobby creates a game of two armies against
//! chessd's own player, and a player settles a duel with the page's buttons.

use serde_json::json;

use super::first_hour::visible_share;
use super::{
    assert_clean_console, click_move, common, input_value, open, run, select_option, shot, Driver,
    Server, DESKTOP, PHONE, RECORD_POSTS_JS,
};

/// The army pieces on the board, sorted: `piece:drawing` for each piece drawn as its army's
/// own piece, once its `href` is checked to name the drawing of its colour.
const DRAWINGS_JS: &str = "return [...document.querySelectorAll('svg.board use.piece[data-drawing]')].map((u) => { const want = '#piece-' + (u.dataset.piece === u.dataset.piece.toUpperCase() ? 'w' : 'b') + '-' + u.dataset.drawing; if (u.getAttribute('href') !== want || !document.querySelector(want + ' path')) throw new Error(u.getAttribute('href') + ' for ' + want); return u.dataset.piece + ':' + u.dataset.drawing; }).sort();";

/// The move strings of the Chess 2 page's move list.
const MOVES_JS: &str =
    "Array.from(document.querySelectorAll('#moves button.move[data-ply]')).map(b => b.textContent)";

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn the_lobby_creates_a_chess2_game_against_the_computer_and_it_answers() {
    run("chess2_lobby", || async {
        let server = Server::start(&[]);
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/", server.base), DESKTOP).await;
        s.wait_for("document.querySelector('#create-game')", "the lobby")
            .await;
        s.click("label[for='variant-chess2']").await;
        s.exec(
            "document.querySelector('#army-white').value = 'k'; document.querySelector('#army-black').value = 'a';",
            json!([]),
        )
        .await;
        s.click("label[for='opponent-engine']").await;
        // Only chessd's own engine plays Chess 2: the others (Stockfish in the default
        // configuration) are shown, disabled, with the reason; so is why Strength is grey.
        let engines = s
            .exec(
                "return [...document.querySelectorAll('#engine option')].map((o) => [o.value, o.disabled, o.textContent]);",
                json!([]),
            )
            .await;
        let engines = engines.as_array().unwrap();
        assert!(
            engines.contains(&json!(["builtin", false, "builtin (default)"])),
            "{engines:?}"
        );
        assert!(
            engines.contains(&json!([
                "stockfish",
                true,
                "stockfish – plays standard chess only"
            ])) || engines.contains(&json!(["stockfish", true, "stockfish – unreachable"])),
            "{engines:?}"
        );
        assert_eq!(
            s.exec("return document.querySelector('#engine').value;", json!([]))
                .await,
            json!("builtin")
        );
        assert!(s
            .text("#think-note")
            .await
            .contains("its strength is fixed"));
        s.click("label[for='color-white']").await;
        s.click("#create-game").await;
        s.wait_for(
            "document.querySelector('#c2-title') && document.querySelector('#c2-title').textContent === 'Chess 2 · Two Kings vs Animals'",
            "the Chess 2 page",
        )
        .await;
        assert_eq!(s.text("#c2-stones").await, "Stones: White 3 · Black 3");
        // White (Two Kings) moves, then takes its king turn by passing; the computer answers.
        click_move(&s, "e2", "e4").await;
        s.wait_for(
            "document.querySelector(\"#c2-extra button[data-move='0000']\")",
            "the king turn's pass",
        )
        .await;
        s.click("#c2-extra button[data-move='0000']").await;
        s.wait_for(&format!("{MOVES_JS}.length === 3"), "the computer's answer")
            .await;
        shot(&s, "chess2-game").await;
        // The list is numbered by turn: White's move and its king turn's pass, then Black's.
        let rows = s
            .exec(
                "return Array.from(document.querySelectorAll('#moves li.c2-row')).map(li => li.innerText.replace(/\\s+/g, ' ').trim());",
                json!([]),
            )
            .await;
        let rows = rows.as_array().unwrap();
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert!(
            rows[0].as_str().unwrap().starts_with("1. e2–e4 pass "),
            "{rows:?}"
        );
        assert_eq!(s.text("#role").await, "You play white");
        // The armies' special pieces are drawn as their own pieces, and the legend says what
        // they do.
        let drawn = s.exec(DRAWINGS_JS, json!([])).await;
        assert_eq!(
            drawn,
            json!([
                "K:warrior-king",
                "K:warrior-king",
                "b:tiger",
                "b:tiger",
                "n:wild-horse",
                "n:wild-horse",
                "q:jungle-queen",
                "r:elephant",
                "r:elephant"
            ]),
            "two Warrior kings; Black's Elephants, Wild Horses, Tigers and Jungle Queen"
        );
        let legend = s.text("#c2-legend").await;
        assert!(
            legend.contains("Warrior king") && legend.contains("Jungle Queen"),
            "{legend}"
        );
        // Stepping back shows the position after the first move; End comes back to the game.
        s.click("#moves button.move[data-ply='1']").await;
        s.wait_for(
            "document.querySelector('svg.board').dataset.ply === '1' && document.querySelector('svg.board').dataset.live === 'false' && document.querySelector(\"svg.board use[data-square='e4']\")",
            "the position after e2-e4",
        )
        .await;
        s.click("#c2-last").await;
        s.wait_for(
            "document.querySelector('svg.board').dataset.live === 'true'",
            "the game as it stands",
        )
        .await;
        s.click("#c2-flip").await;
        s.wait_for(
            "document.querySelector(\"svg.board rect[data-square='h8']\").getAttribute('x') === '0'",
            "the board flipped (h8 on the left)",
        )
        .await;
        // The game's link pasted into the lobby's "Open a game" opens it again.
        let link = s.exec("return location.href;", json!([])).await;
        s.exec("location.hash = '#/';", json!([])).await;
        s.wait_for("document.querySelector('#join-input')", "the lobby")
            .await;
        s.exec(
            "document.querySelector('#join-input').value = arguments[0]; document.querySelector('#join-input').form.requestSubmit();",
            json!([link]),
        )
        .await;
        s.wait_for(
            "document.querySelector('#c2-title')?.textContent === 'Chess 2 · Two Kings vs Animals'",
            "the Chess 2 page opened from its link",
        )
        .await;
        assert_clean_console(&s, "chess2 game").await;
        s.quit().await;
    });
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn a_player_settles_a_duel_with_the_pages_buttons() {
    run("chess2_duel", || async {
        let server = Server::start(&[]);
        let c = common::client();
        // A white pawn can take a black rook; chessd's player (Black) defends its rook.
        let game = common::create_game(
            &c,
            &server.base,
            &json!({"variant": "chess2", "fen": "4k3/8/8/3r4/4P3/8/8/4K3 w - - 0 1 cc 33",
                "opponent": {"engine": "builtin", "plays": "black", "go": {"depth": 1}}}),
        )
        .await;
        let driver = Driver::start().await;
        let url = format!("{}/#/chess2/{}?seat={}", server.base, game.id, game.white);
        let s = open(&driver, &url, DESKTOP).await;
        click_move(&s, "e4", "d5").await;
        // The computer challenged and bid (hidden): White's bid buttons show.
        s.wait_for(
            "document.querySelector(\"#c2-bid button[data-bid='1']\")",
            "White's bid buttons",
        )
        .await;
        shot(&s, "chess2-duel").await;
        // The page says what the server allows: a pawn taking a rook costs the defender nothing
        // extra, and White may bid any of its three stones' worth up to 2.
        assert_eq!(s.text("#c2-allowed-bids").await, "You may bid 0 or 1 or 2.");
        assert!(s.text("#c2-duel-cost").await.contains("costs nothing"));
        s.click("#c2-bid button[data-bid='1']").await;
        // Black bid 2 for its rook: the capture stands, and the pawn that took is destroyed.
        s.wait_for(
            &format!("{MOVES_JS}[0] === 'e4×d5 ⚔ 2–1'"),
            "the settled duel in the move list",
        )
        .await;
        s.wait_for(
            "document.querySelector('#c2-stones').dataset.white === '2' && document.querySelector('#c2-stones').dataset.black === '2'",
            "the stones: White 3 - 1, Black 3 - 2 + 1 for the pawn it destroyed",
        )
        .await;
        // Both bids and the outcome are said once revealed.
        let told = s.text("#c2-duel-result").await;
        assert!(
            told.contains("e4d5: Duel on d5: the defender bid 2, the attacker 1. The defender wins: the capturing piece is destroyed too."),
            "{told:?}"
        );
        assert_clean_console(&s, "chess2 duel").await;
        s.quit().await;
    });
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn the_perft_page_counts_a_chess2_position() {
    run("chess2_perft", || async {
        // The Go engine's count for Reaper vs Classic at depth 3, from the reference file.
        let file = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/chess2/chess2_perft.epd"),
        )
        .unwrap();
        let row = file.lines().find(|l| l.contains(" rc 33")).unwrap();
        let (epd, counts) = row.split_once(" ; ").unwrap();
        let expected = counts.split('/').nth(2).unwrap().trim();

        let server = Server::start(&[]);
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/#/perft", server.base), DESKTOP).await;
        s.wait_for("document.querySelector('#perft-start')", "the perft page")
            .await;
        s.exec(RECORD_POSTS_JS, json!([])).await;
        select_option(&s, "#perft-variant", "chess2").await;
        // Chess 2 positions are EPDs, and its perft counts nodes only.
        assert_eq!(
            s.exec(
                "const st = document.querySelector('#perft-stats'); return [st.disabled, st.checked, document.querySelector(\"label[for='perft-fen']\").textContent];",
                json!([])
            )
            .await,
            json!([true, false, "EPD"])
        );
        s.exec(
            "const p = document.querySelector('#perft-preset'); p.value = Array.from(p.options).find(o => o.textContent === 'Start: Reaper vs Classic').value; p.dispatchEvent(new Event('change'));",
            json!([]),
        )
        .await;
        assert_eq!(input_value(&s, "#perft-fen").await, epd);
        s.type_into("#perft-depth", "3").await;
        s.click("#perft-start").await;
        s.wait_for(
            "document.querySelector('#perft-state').textContent === 'done'",
            "the Chess 2 perft job to finish",
        )
        .await;
        assert_eq!(
            s.exec(
                "return document.querySelector(\"#perft-table tr[data-field='nodes']\").dataset.value;",
                json!([])
            )
            .await,
            json!(expected)
        );
        assert_eq!(
            s.text("#perft-table tr[data-field='captures'] td").await,
            "off"
        );
        assert_eq!(
            s.exec("return sentBodies;", json!([])).await,
            json!([{"variant": "chess2", "depth": 3, "fen": epd}])
        );
        // Back to standard chess: the statistics choice comes back.
        select_option(&s, "#perft-variant", "standard").await;
        assert_eq!(
            s.exec(
                "const st = document.querySelector('#perft-stats'); return [st.disabled, st.checked, document.querySelector('#perft-fen').value];",
                json!([])
            )
            .await,
            json!([false, true, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"])
        );
        shot(&s, "chess2-perft").await;
        assert_clean_console(&s, "chess2 perft").await;
        s.quit().await;
    });
}

/// The window the Animals-against-Reaper screenshots are taken at on a desktop.
const WIDE: (u32, u32) = (1366, 900);

/// Each clock's text, and whether it runs, is low or flagged: `[text, running, low, flagged]`
/// of White's then Black's clock in the players' bars.
const CLOCKS_JS: &str = "return ['white', 'black'].map((c) => { const e = document.querySelector('.player-bar .clock-' + c); return e && !e.hidden ? [e.textContent, e.classList.contains('running'), e.classList.contains('low'), e.classList.contains('flagged')] : null; });";

/// The drawings the legend shows: `color:drawing` in the legend's order.
const LEGEND_JS: &str = "return [...document.querySelectorAll('#c2-legend svg[data-drawing]')].map((s) => s.dataset.color + ':' + s.dataset.drawing);";

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn animals_against_reaper_shows_the_armies_own_pieces_and_running_clocks() {
    run("chess2_armies_clocks", || async {
        let server = Server::start(&[]);
        let base = &server.base;
        let c = common::client();
        let game = common::create_game(
            &c,
            base,
            &json!({"variant": "chess2", "armies": {"white": "a", "black": "r"},
                "time_control": {"initial_ms": 300_000, "increment_ms": 2_000}}),
        )
        .await;
        // White's first move (untimed) starts Black's clock.
        let moves = format!("{base}/v1/games/{}/moves", game.id);
        let (status, v) =
            common::post_json(&c, &moves, Some(&game.white), &json!({"uci": "e2e4"})).await;
        assert_eq!(status, 200, "{v}");

        let driver = Driver::start().await;
        let url = format!("{base}/#/chess2/{}?seat={}", game.id, game.white);
        let s = open(&driver, &url, WIDE).await;
        s.wait_for(
            "document.querySelector('#conn').dataset.state === 'open' && document.querySelector('svg.board use.piece[data-drawing]')",
            "the Chess 2 page",
        )
        .await;
        // White's Animals and Black's Reaper and Ghosts are drawn as their own pieces; the
        // others (kings, pawns, Black's knights and bishops) as plain pieces.
        assert_eq!(
            s.exec(DRAWINGS_JS, json!([])).await,
            json!([
                "B:tiger",
                "B:tiger",
                "N:wild-horse",
                "N:wild-horse",
                "Q:jungle-queen",
                "R:elephant",
                "R:elephant",
                "q:reaper",
                "r:ghost",
                "r:ghost"
            ])
        );
        assert_eq!(
            s.exec(
                "return ['e1', 'e8', 'b8', 'c8', 'e4'].map((sq) => document.querySelector(`svg.board use.piece[data-square='${sq}']`).getAttribute('href'));",
                json!([])
            )
            .await,
            json!(["#piece-wK", "#piece-bK", "#piece-bN", "#piece-bB", "#piece-wP"])
        );
        // The legend shows each drawing beside its name and rule.
        assert_eq!(
            s.exec(LEGEND_JS, json!([])).await,
            json!([
                "w:wild-horse",
                "w:tiger",
                "w:elephant",
                "w:jungle-queen",
                "b:reaper",
                "b:ghost"
            ])
        );
        let legend = s.text("#c2-legend").await;
        assert!(
            legend.contains("Reaper: goes to any square but the enemy back rank")
                && legend.contains("Tiger: up to 2 squares diagonally"),
            "{legend}"
        );
        // A screen reader hears the army piece's name: the keyboard cursor from e2 to d1.
        s.exec(
            "const b = document.querySelector('svg.board'); b.focus(); for (const key of ['ArrowLeft', 'ArrowDown']) b.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));",
            json!([]),
        )
        .await;
        assert_eq!(
            s.exec(
                "return document.querySelector('.board-wrap [aria-live]').textContent;",
                json!([])
            )
            .await,
            json!("d1, white Jungle Queen")
        );
        s.exec("document.querySelector('svg.board').blur();", json!([]))
            .await;

        // The clocks are in the players' bars: Black's runs and ticks between the server's
        // updates, White's (whose first move was not timed) stands.
        let first = s
            .wait_for(
                "(() => { const c = (() => { CLOCKS })(); return c[0] && c[1] && c[1][1] && !c[0][1] && c; })()"
                    .replace("CLOCKS", CLOCKS_JS)
                    .as_str(),
                "Black's clock running",
            )
            .await;
        assert_eq!(first[0], json!(["5:00", false, false, false]), "{first}");
        let black_before = first[1][0].as_str().unwrap().to_string();
        s.wait_for(
            &format!(
                "document.querySelector('.player-bar .clock-black').textContent !== {}",
                json!(black_before)
            ),
            "Black's clock to tick",
        )
        .await;
        // White plays at the bottom, Black at the top, each bar naming the army.
        assert_eq!(
            s.exec(
                "return ['top', 'bottom'].map((p) => [document.querySelector('.player-bar.' + p).dataset.color, document.querySelector('.player-bar.' + p + ' .player-name').textContent]);",
                json!([])
            )
            .await,
            json!([["black", "Black · Reaper"], ["white", "You · Animals"]])
        );
        shot(&s, "chess2-animals-reaper-desktop").await;
        assert_clean_console(&s, "Animals against Reaper").await;
        // The legend in the dark theme: every drawing stands out from the panel (a black piece
        // gets its light outline there, as the plain pieces' icons do).
        s.exec(
            "localStorage.setItem('chessd-theme', 'dark'); location.reload();",
            json!([]),
        )
        .await;
        s.wait_for(
            "document.documentElement.dataset.theme === 'dark' && document.querySelectorAll('#c2-legend svg[data-drawing]').length === 6",
            "the page in the dark theme",
        )
        .await;
        s.exec(
            "document.querySelector('#c2-legend-card').scrollIntoView();",
            json!([]),
        )
        .await;
        let mut faint = Vec::new();
        for drawing in s.exec(LEGEND_JS, json!([])).await.as_array().unwrap() {
            let (color, kind) = drawing.as_str().unwrap().split_once(':').unwrap();
            let css = format!("#c2-legend svg[data-color='{color}'][data-drawing='{kind}']");
            let share = visible_share(&s, &css).await;
            if share < 0.04 {
                faint.push(format!("{drawing}: {:.1} %", share * 100.0));
            }
        }
        assert!(
            faint.is_empty(),
            "legend drawings lost in the dark theme: {faint:?}"
        );
        shot(&s, "chess2-animals-reaper-legend-dark").await;
        s.quit().await;

        // On a phone: the same pieces, the clocks above and below the board.
        let s = open(&driver, &url, PHONE).await;
        s.wait_for(
            "document.querySelector('#conn').dataset.state === 'open' && document.querySelector('.player-bar .clock-black.running')",
            "the Chess 2 page on a phone",
        )
        .await;
        assert_eq!(
            s.exec(DRAWINGS_JS, json!([]))
                .await
                .as_array()
                .unwrap()
                .len(),
            10
        );
        shot(&s, "chess2-animals-reaper-phone").await;
        assert_clean_console(&s, "Animals against Reaper on a phone").await;
        s.quit().await;

        // The live-games page draws the same army pieces on its small board.
        let s = open(&driver, &format!("{base}/#/watch"), WIDE).await;
        s.wait_for(
            &format!(
                "document.querySelector(\"li.live-game[data-game='{}'] use.piece[data-drawing]\")",
                game.id
            ),
            "the game's card on the live-games page",
        )
        .await;
        assert_eq!(
            s.exec(
                "return [...document.querySelectorAll(`li.live-game[data-game='${arguments[0]}'] use.piece[data-drawing]`)].map((u) => u.getAttribute('href')).sort();",
                json!([game.id])
            )
            .await,
            json!([
                "#piece-b-ghost",
                "#piece-b-ghost",
                "#piece-b-reaper",
                "#piece-w-elephant",
                "#piece-w-elephant",
                "#piece-w-jungle-queen",
                "#piece-w-tiger",
                "#piece-w-tiger",
                "#piece-w-wild-horse",
                "#piece-w-wild-horse"
            ])
        );
        shot(&s, "chess2-animals-reaper-watch").await;
        assert_clean_console(&s, "the live-games page").await;
        s.quit().await;

        // A side whose time runs out: its clock stops at 0, flagged, and the game says so.
        let short = common::create_game(
            &c,
            base,
            &json!({"variant": "chess2", "armies": {"white": "a", "black": "r"},
                "time_control": {"initial_ms": 1_500, "increment_ms": 0}}),
        )
        .await;
        let (status, v) = common::post_json(
            &c,
            &format!("{base}/v1/games/{}/moves", short.id),
            Some(&short.white),
            &json!({"uci": "e2e4"}),
        )
        .await;
        assert_eq!(status, 200, "{v}");
        let s = open(
            &driver,
            &format!("{base}/#/chess2/{}?seat={}", short.id, short.white),
            WIDE,
        )
        .await;
        let clocks = s
            .wait_for(
                "(() => { const c = (() => { CLOCKS })(); return !document.querySelector('#c2-result').hidden && c[1] && c[1][3] && c; })()"
                    .replace("CLOCKS", CLOCKS_JS)
                    .as_str(),
                "Black's flag",
            )
            .await;
        assert_eq!(
            clocks,
            json!([
                ["0:01.5", false, true, false],
                ["0:00.0", false, true, true]
            ])
        );
        shot(&s, "chess2-flagged").await;
        s.quit().await;
    });
}
