//! The puzzles page beyond direct mates, and what it shows while it searches: a helpmate lists
//! every solution Popeye finds and steps through one to mate; a selfmate gives Popeye's keys and
//! steps through its tree until the other side is forced to mate; a long search shows the
//! positions searched and their rate as they grow, and is cancelled.

use std::collections::BTreeSet;

use serde_json::json;

use super::{
    assert_clean_console, next_plies_to_mate, open, run, select_option, shot,
    webdriver::{Driver, Session},
    DATA, DESKTOP,
};
use crate::common::Server;

/// A problem of `tests/data/stipulations/popeye_h_s.tsv`: its FEN and Popeye's answer (every
/// helpmate solution as UCI lines, or every selfmate key).
fn popeye(id: &str) -> (String, BTreeSet<String>) {
    let path = format!("{DATA}/stipulations/popeye_h_s.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let row: Vec<&str> = text
        .lines()
        .find(|l| l.split('\t').next() == Some(id))
        .unwrap_or_else(|| panic!("{id} is not in {path}"))
        .split('\t')
        .collect();
    let sep = if row[1].starts_with('h') { ';' } else { ' ' };
    let answer = row[3].split(sep).map(|s| s.trim().to_string()).collect();
    (row[2].to_string(), answer)
}

/// Asks the page for `genre` + `n` (`h#2`, `s#2`) on `fen` and waits for `answer`, the part
/// of the verdict that genre shows.
async fn solve(s: &Session, fen: &str, genre: &str, n: &str, answer: &str) {
    s.type_into("#puzzle-fen", fen).await;
    select_option(s, "#puzzle-genre", genre).await;
    select_option(s, "#puzzle-mate", n).await;
    s.click("#solve").await;
    s.wait_for(
        &format!("document.querySelector('{answer}')"),
        "the solver's verdict",
    )
    .await;
}

#[test]
#[cfg_attr(
    not(all(has_chromium, has_chromedriver)),
    ignore = "chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
)]
fn helpmates_and_selfmates_are_solved_as_popeye_solves_them_and_a_search_shows_its_progress() {
    run("puzzle_genres", || async {
        let server = Server::start(&[]);
        let driver = Driver::start().await;
        let s = open(&driver, &format!("{}/#/puzzles", server.base), DESKTOP).await;
        s.wait_for("document.querySelector('#solve')", "the puzzles page")
            .await;

        // A helpmate in 2 with two solutions (Popeye's castling examples): both listed, the
        // problem not sound, and each plays to mate on the board.
        let (fen, solutions) = popeye("py-castling-19");
        assert_eq!(solutions.len(), 2);
        solve(&s, &fen, "h#", "2", "#puzzle-solutions").await;
        assert!(s.text("#puzzle-genre-note").await.contains("cooperate"));
        let listed = s
            .exec(
                "return [...document.querySelectorAll('#puzzle-solutions [data-uci]')].map(b => b.dataset.uci);",
                json!([]),
            )
            .await;
        let listed: BTreeSet<String> = listed
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(listed, solutions);
        assert!(s.text("#puzzle-verdict").await.contains("2 solutions"));
        assert!(s.text("#puzzle-sound").await.contains("more than one"));
        shot(&s, "puzzle-helpmate").await;
        // The try is for direct mates only.
        assert_eq!(
            s.exec(
                "return document.querySelector('#puzzle-try').hidden;",
                json!([])
            )
            .await,
            json!(true)
        );
        // From the start, the solutions part at Black's first move: both are offered.
        let offered = s
            .exec(
                "return [...document.querySelectorAll('#defences [data-uci]')].map(b => b.dataset.uci).sort();",
                json!([]),
            )
            .await;
        assert_eq!(offered, json!(["d3c2", "h2f2"]));
        next_plies_to_mate(&s, 4).await;
        // The second solution, chosen in the list, plays to mate too.
        s.click("#puzzle-solutions li:nth-child(2) button").await;
        s.wait_for(
            "document.querySelector('svg.board').dataset.ply === '0'",
            "the problem position again",
        )
        .await;
        next_plies_to_mate(&s, 4).await;

        // A selfmate in 2 (Popeye's battle-play examples): Popeye's key, and the tree played
        // until Black is forced to mate.
        let (fen, keys) = popeye("py-battle_play-27");
        assert_eq!(keys.len(), 1);
        solve(&s, &fen, "s#", "2", "#puzzle-keys").await;
        let shown: BTreeSet<String> = s
            .exec(
                "return document.querySelector('#puzzle-keys').dataset.keys;",
                json!([]),
            )
            .await
            .as_str()
            .unwrap()
            .split(' ')
            .map(str::to_string)
            .collect();
        assert_eq!(shown, keys);
        assert!(s.text("#puzzle-status").await.contains("selfmate in 2"));
        next_plies_to_mate(&s, 4).await;
        let status = s.text("#puzzle-status").await;
        assert!(status.contains("Black wins"), "{status}");
        shot(&s, "puzzle-selfmate").await;

        // A quiet middlegame with no mate in 10 (asked in the find mode): while it searches, the
        // page shows the positions searched so far and their rate, growing; then it is
        // cancelled.
        select_option(&s, "#puzzle-genre", "#").await;
        s.type_into(
            "#puzzle-fen",
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
        )
        .await;
        select_option(&s, "#puzzle-mate", "10").await;
        s.type_into("#puzzle-time", "60").await;
        s.click("#solve").await;
        let first = s
            .wait_for(
                "(() => { const p = document.querySelector('#puzzle-progress'); return p && Number(p.dataset.nodes) > 0 && p.textContent.includes('positions/s') && Number(p.dataset.nodes); })()",
                "the first progress",
            )
            .await
            .as_u64()
            .unwrap();
        s.wait_for(
            &format!("Number(document.querySelector('#puzzle-progress').dataset.nodes) > {first}"),
            "the count growing",
        )
        .await;
        shot(&s, "puzzle-progress").await;
        s.click("#puzzle-cancel").await;
        s.wait_for(
            "document.querySelector('#puzzle-job').dataset.state === 'cancelled'",
            "the cancel",
        )
        .await;
        assert_clean_console(&s, "puzzle genres").await;
        s.quit().await;
    });
}
