//! 2 000 games alive at once on the real binary, all played to the end at the same time through
//! the REST API with seeded random legal moves; then every game's final FEN, status and move list
//! from the server are compared with a replay of the same moves in `chessd_core::game::Game`.
//!
//! Moves are chosen from a local `chessd_core` position (the test binary is optimised), so the
//! server only sees the moves themselves. A game still going after `MAX_PLIES` is ended with a
//! manual draw by its admin. Run with `--nocapture` to see the timings.

use std::time::{Duration, Instant};

use chessd_core::{
    game::{Game, GameResult, Reason, Status},
    Position,
};
use futures_util::{future::join_all, stream, StreamExt};
use serde_json::{json, Value};

use crate::common::{create_game, get_json, post_json, GameSecrets, Server};

/// Games played at the same time.
const GAMES: usize = 2_000;
/// Half-moves after which a game still going is drawn by its admin.
const MAX_PLIES: usize = 300;
/// HTTP connections the client keeps open to the server.
const CONNECTIONS: usize = 128;
/// The note of the admin's draw at the ply cap.
const CAP_NOTE: &str = "ply cap";

/// SplitMix64: a small seeded generator, so every game's moves are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// What the test sent to one game.
struct Played {
    moves: Vec<String>,
    capped: bool,
}

/// The JSON status the API should report for a core status (written out independently of the
/// server's own mapping).
fn expected_status(s: &Status) -> Value {
    let result = match s.result {
        GameResult::Ongoing => "ongoing",
        GameResult::WhiteWins => "white_wins",
        GameResult::BlackWins => "black_wins",
        GameResult::Draw => "draw",
        GameResult::Aborted => "aborted",
    };
    let reason = s.reason.map(|r| match r {
        Reason::Checkmate => "checkmate",
        Reason::Stalemate => "stalemate",
        Reason::InsufficientMaterial => "insufficient_material",
        Reason::FiftyMoves => "fifty_moves",
        Reason::ThreefoldRepetition => "threefold_repetition",
        Reason::FivefoldRepetition => "fivefold_repetition",
        Reason::SeventyFiveMoves => "seventy_five_moves",
        Reason::Resignation => "resignation",
        Reason::Timeout => "timeout",
        Reason::Agreement => "agreement",
        Reason::Manual => "manual",
        Reason::MidlineInvasion => "midline_invasion",
        Reason::NoLegalMoves => "no_legal_moves",
    });
    json!({ "result": result, "reason": reason, "note": s.note })
}

/// Plays one game to its end with moves drawn from `seed`.
async fn play(c: &awc::Client, base: &str, g: &GameSecrets, seed: u64) -> Played {
    let mut rng = Rng(seed);
    let mut pos = Position::startpos();
    let mut moves = Vec::new();
    let url = format!("{base}/v1/games/{}/moves", g.id);
    loop {
        let legal = pos.legal_moves();
        assert!(!legal.is_empty(), "the server let a finished game go on");
        let mv = legal[rng.below(legal.len())];
        let uci = pos.uci(mv);
        let seat = if pos.turn() == chessd_core::Color::White {
            &g.white
        } else {
            &g.black
        };
        let (status, v) = post_json(c, &url, Some(seat), &json!({ "uci": uci })).await;
        assert_eq!(status, 200, "game {} move {uci}: {v}", g.id);
        pos = pos.after(mv);
        assert_eq!(v["fen"], pos.fen(), "game {} after {uci}", g.id);
        moves.push(uci);
        if v["status"]["result"] != "ongoing" {
            return Played {
                moves,
                capped: false,
            };
        }
        if moves.len() == MAX_PLIES {
            let (status, v) = post_json(
                c,
                &format!("{base}/v1/games/{}/draw", g.id),
                Some(&g.admin),
                &json!({ "note": CAP_NOTE }),
            )
            .await;
            assert_eq!(status, 200, "game {}: {v}", g.id);
            return Played {
                moves,
                capped: true,
            };
        }
    }
}

#[actix_web::test]
async fn two_thousand_concurrent_games_agree_with_a_core_replay() {
    // One client plays all 2 000 games: lift its quotas (security.rs tests them).
    let server = Server::start(&[
        ("CHESSD_QUOTAS__GAMES_PER_MINUTE", "0"),
        ("CHESSD_QUOTAS__MAX_ONGOING_GAMES", "100000"),
    ]);
    let base = server.base.clone();
    let c = awc::Client::builder()
        .connector(awc::Connector::new().limit(CONNECTIONS))
        .timeout(Duration::from_secs(120))
        .finish();
    let t0 = Instant::now();

    let games: Vec<GameSecrets> = stream::iter(0..GAMES)
        .map(|_| {
            let (c, base) = (&c, &base);
            async move { create_game(c, base, &json!({})).await }
        })
        .buffer_unordered(CONNECTIONS)
        .collect()
        .await;
    let created = t0.elapsed();
    let (_, health) = get_json(&c, &format!("{base}/health")).await;
    assert_eq!(health["games"], GAMES, "all games are alive at once");

    // Every game plays at the same time; the connection pool bounds requests in flight.
    let t1 = Instant::now();
    let played: Vec<Played> = join_all(
        games
            .iter()
            .enumerate()
            .map(|(i, g)| play(&c, &base, g, 0xC0FF_EE00 + i as u64)),
    )
    .await;
    let play_time = t1.elapsed();
    let (_, health) = get_json(&c, &format!("{base}/health")).await;
    assert_eq!(health["games"], GAMES, "no game stopped while being played");

    // Compare every game with a replay in the core.
    let t2 = Instant::now();
    let views: Vec<(u16, Value)> = stream::iter(games.iter())
        .map(|g| {
            let (c, url) = (&c, format!("{base}/v1/games/{}", g.id));
            async move { get_json(c, &url).await }
        })
        .buffered(CONNECTIONS)
        .collect()
        .await;
    let mut outcomes = std::collections::BTreeMap::<String, usize>::new();
    let mut plies = 0;
    for ((g, p), (status, view)) in games.iter().zip(&played).zip(&views) {
        assert_eq!(*status, 200, "game {}: {view}", g.id);
        let mut replay = Game::new(Position::startpos());
        for uci in &p.moves {
            replay.play_uci(uci).unwrap();
        }
        assert_eq!(replay.is_over(), !p.capped, "game {}", g.id);
        if p.capped {
            replay.set_draw(Some(CAP_NOTE.to_string())).unwrap();
        }
        assert_eq!(view["fen"], replay.position().fen(), "game {}", g.id);
        assert_eq!(
            view["status"],
            expected_status(replay.status()),
            "game {}",
            g.id
        );
        let server_moves: Vec<&str> = view["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["uci"].as_str().unwrap())
            .collect();
        assert_eq!(server_moves, p.moves, "game {}", g.id);
        let sans: Vec<&str> = view["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["san"].as_str().unwrap())
            .collect();
        let notated = replay.notated_history();
        let replay_sans: Vec<&str> = notated.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, replay_sans, "game {}", g.id);
        plies += p.moves.len();
        let reason = view["status"]["reason"]
            .as_str()
            .unwrap_or("none")
            .to_string();
        *outcomes.entry(reason).or_default() += 1;
    }
    let verify_time = t2.elapsed();
    // Random games end in every way the rules allow; check that the sample is not degenerate.
    assert!(outcomes.len() >= 3, "{outcomes:?}");
    println!(
        "{GAMES} games, {plies} moves: created in {created:.2?}, played in {play_time:.2?} \
         ({:.0} moves/s), verified in {verify_time:.2?}, total {:.2?}; endings {outcomes:?}",
        plies as f64 / play_time.as_secs_f64(),
        t0.elapsed()
    );
}
