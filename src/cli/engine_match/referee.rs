//! One game of a match. The engines move in turn on the core's [`Game`], which judges every
//! move and ends the game by the rules (checkmate, stalemate, repetition, the fifty-move
//! rule, insufficient material). Otherwise: a game reaching the ply limit is adjudicated a
//! draw; an engine that runs out of time (its clock, or its move time plus its configured
//! `search_timeout_ms`) loses on time, or draws when the other side cannot mate
//! ([`Game::flag`]); an engine that plays an illegal move, gives no move without resigning,
//! dies or fails loses.

use std::time::{Instant, SystemTime};

use chessd_core::{
    game::{Game, GameResult},
    Color,
};
use chessd_server::{engine::EngineError, game::archive::Termination};

use super::{pace::Pace, player::Player};

/// The PGN `Termination` of a game lost by breaking the rules (PGN standard, 9.8.1).
const RULES_INFRACTION: &str = "rules infraction";

/// How a game ended beyond its result, with what is said about it in its PGN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// By the rules (checkmate, stalemate, a draw rule), or an engine resigned (said so).
    Normal(Option<String>),
    /// An engine ran out of time.
    TimeForfeit(String),
    /// Adjudicated a draw at the ply limit.
    Adjudication(String),
    /// An engine played an illegal move, or gave no move without resigning.
    RulesInfraction(String),
    /// An engine died or failed.
    Abandoned(String),
}

impl Ending {
    /// The PGN `Termination` tag's value.
    pub(super) fn termination(&self) -> &'static str {
        match self {
            Ending::Normal(_) => Termination::Normal.pgn(),
            Ending::TimeForfeit(_) => Termination::TimeForfeit.pgn(),
            Ending::Adjudication(_) => Termination::Adjudication.pgn(),
            Ending::RulesInfraction(_) => RULES_INFRACTION,
            Ending::Abandoned(_) => Termination::Abandoned.pgn(),
        }
    }

    /// What is said about the end, if anything (a PGN comment after the last move).
    pub(super) fn note(&self) -> Option<&str> {
        match self {
            Ending::Normal(note) => note.as_deref(),
            Ending::TimeForfeit(note)
            | Ending::Adjudication(note)
            | Ending::RulesInfraction(note)
            | Ending::Abandoned(note) => Some(note),
        }
    }
}

/// A finished game.
#[derive(Clone, Debug)]
pub(super) struct Played {
    /// The game, its status set (never ongoing).
    pub game: Game,
    /// When it began.
    pub began: SystemTime,
    /// White's configured engine name.
    pub white: String,
    /// Black's configured engine name.
    pub black: String,
    /// How it ended.
    pub ending: Ending,
}

impl Played {
    /// The result, its reason and the note, in a few words: `1-0 checkmate`,
    /// `0-1 time forfeit (toga sent no move within 1.23 s)`.
    pub(super) fn summary(&self) -> String {
        let status = self.game.status();
        let how = match (&self.ending, status.reason) {
            (Ending::Normal(_), Some(reason)) => reason.to_string(),
            (ending, _) => ending.termination().to_string(),
        };
        match self.ending.note() {
            Some(note) => format!("{} {how} ({note})", status.result.pgn()),
            None => format!("{} {how}", status.result.pgn()),
        }
    }
}

/// Plays `start` (the position after the opening) to its end between `white` and `black`,
/// both ready for a new game.
pub(super) async fn play(
    white: &mut Player,
    black: &mut Player,
    start: Game,
    pace: Pace,
    max_plies: usize,
) -> Played {
    let began = SystemTime::now();
    let mut game = start;
    let ending = referee(&mut game, white, black, pace, max_plies).await;
    Played {
        game,
        began,
        white: white.name.clone(),
        black: black.name.clone(),
        ending,
    }
}

/// Runs the game until it ends; how it ended.
async fn referee(
    game: &mut Game,
    white: &mut Player,
    black: &mut Player,
    pace: Pace,
    max_plies: usize,
) -> Ending {
    let names = [white.name.clone(), black.name.clone()];
    let mut timer = pace.timer();
    loop {
        if game.is_over() {
            return Ending::Normal(None);
        }
        if game.history().len() >= max_plies {
            let note = format!("adjudicated a draw at {max_plies} plies");
            // Cannot fail: the game is not over.
            let _ = game.set_draw(Some(note.clone()));
            return Ending::Adjudication(note);
        }
        let mover = game.turn();
        let player = match mover {
            Color::White => &mut *white,
            Color::Black => &mut *black,
        };
        let (limits, timeout) = timer.search(mover, player.config(), Instant::now());
        let result = player.think(game, limits, timeout).await;
        let other = match mover {
            Color::White => &names[1],
            Color::Black => &names[0],
        };
        let best = match result {
            Ok(result) => {
                if timer.on_move(mover, Instant::now()).is_err() {
                    let why = format!(
                        "{} ran out of time: its move came after {:.2} s",
                        player.name,
                        result.elapsed.as_secs_f64()
                    );
                    return flag(game, mover, why, other);
                }
                result.best
            }
            Err(EngineError::Timeout(_)) => {
                let within = timeout.map_or(0.0, |t| t.as_secs_f64());
                let why = format!("{} sent no move within {within:.2} s", player.name);
                return flag(game, mover, why, other);
            }
            Err(e @ EngineError::Died(_)) => {
                let why = format!("{} died: {e}", player.name);
                return forfeit(game, mover, Ending::Abandoned(why));
            }
            Err(e) => {
                let why = format!("{} failed: {e}", player.name);
                return forfeit(game, mover, Ending::Abandoned(why));
            }
        };
        if let Some(ending) = judge(game, player, mover, best) {
            return ending;
        }
    }
}

/// Plays the engine's answer on `game` (`best`: its move; `None` for a bare
/// `bestmove (none)`, XBoard's `resign` or a result claim); how the game ended if the answer
/// ended it by a resignation or an infraction (an end by the rules is seen by the caller).
fn judge(game: &mut Game, player: &Player, mover: Color, best: Option<String>) -> Option<Ending> {
    let name = &player.name;
    let Some(best) = best else {
        let said = player.last_word().unwrap_or("bestmove (none)");
        if said.split_whitespace().next() == Some("resign") {
            // Cannot fail: the game is not over.
            let _ = game.resign(mover);
            return Some(Ending::Normal(Some(format!("{name} resigns"))));
        }
        let why = format!("{name} gave no move in a position with legal moves: {said:?}");
        return Some(forfeit(game, mover, Ending::RulesInfraction(why)));
    };
    match game.play_uci(&best) {
        Ok(_) => None,
        Err(e) => {
            let why = format!("{name} played {best}, which the rules refuse: {e}");
            Some(forfeit(game, mover, Ending::RulesInfraction(why)))
        }
    }
}

/// `loser`'s time ran out: `other` (the other side) wins, or draws when it cannot mate.
fn flag(game: &mut Game, loser: Color, why: String, other: &str) -> Ending {
    // Cannot fail: the game is not over.
    let _ = game.flag(loser);
    if game.status().result == GameResult::Draw {
        return Ending::TimeForfeit(format!("{why}; a draw, as {other} cannot mate"));
    }
    Ending::TimeForfeit(why)
}

/// `loser` forfeits the game: the other side wins, whatever its material.
fn forfeit(game: &mut Game, loser: Color, ending: Ending) -> Ending {
    // Cannot fail: the game is not over.
    let _ = game.set_winner(!loser, ending.note().map(str::to_string));
    ending
}

#[cfg(test)]
pub(super) mod tests {
    use chessd_core::game::Reason;
    use chessd_server::{config::EngineConfig, Config};

    use super::*;
    use crate::cli::engine_match::player::Lineup;

    /// A UCI engine as a shell loop that answers `go` with `on_go`.
    pub(in crate::cli::engine_match) fn script(on_go: &str) -> EngineConfig {
        let body = format!(
            r#"while read -r l; do case "$l" in
              uci) echo "id name Script"; echo uciok;;
              isready) echo readyok;;
              go*) {on_go};;
              quit) exit 0;;
            esac; done"#
        );
        serde_json::from_value(serde_json::json!({
            "command": "sh",
            "args": ["-c", body],
            "handshake_timeout_ms": 1000,
            "search_timeout_ms": 300,
        }))
        .unwrap()
    }

    /// Plays one game from `fen` between the scripted engines `white` and `black`.
    async fn game(fen: &str, white: &str, black: &str, pace: Pace) -> Played {
        let mut config = Config::defaults();
        for (name, on_go) in [
            ("liar", "echo bestmove e2e5"),
            ("mute", ":"),
            ("none", "echo 'bestmove (none)'"),
            ("dies", "exit 0"),
            ("e4", "echo bestmove e2e4"),
        ] {
            config.engines.named.insert(name.into(), script(on_go));
        }
        let lineup = Lineup::new(&config, None);
        let mut w = lineup
            .start(white)
            .await
            .unwrap_or_else(|_| panic!("{white}"));
        let mut b = lineup
            .start(black)
            .await
            .unwrap_or_else(|_| panic!("{black}"));
        play(&mut w, &mut b, Game::from_fen(fen).unwrap(), pace, 300).await
    }

    const START: &str = chessd_core::START_FEN;

    #[tokio::test]
    async fn an_illegal_move_loses_and_says_which() {
        let p = game(START, "liar", "e4", Pace::MoveTime(10)).await;
        assert_eq!(p.game.status().result, GameResult::BlackWins);
        assert_eq!(p.ending.termination(), "rules infraction");
        let note = p.ending.note().unwrap();
        assert!(
            note.starts_with("liar played e2e5, which the rules refuse"),
            "{note}"
        );
        assert!(p.game.history().is_empty());
        assert!(p
            .summary()
            .starts_with("0-1 rules infraction (liar played e2e5"));
    }

    #[tokio::test]
    async fn no_move_without_resigning_and_a_dead_engine_lose() {
        let p = game(START, "e4", "none", Pace::MoveTime(10)).await;
        assert_eq!(p.game.status().result, GameResult::WhiteWins);
        assert_eq!(p.ending.termination(), "rules infraction");
        assert!(p.ending.note().unwrap().contains(r#""bestmove (none)""#));
        assert_eq!(p.game.history().len(), 1);
        let p = game(START, "dies", "e4", Pace::MoveTime(10)).await;
        assert_eq!(p.game.status().result, GameResult::BlackWins);
        assert_eq!(p.ending.termination(), "abandoned");
        assert!(p.ending.note().unwrap().starts_with("dies died: "));
    }

    #[tokio::test]
    async fn a_silent_engine_loses_on_time_or_draws_when_the_other_cannot_mate() {
        let clock = Pace::Clock(chessd_server::game::clock::TimeControl {
            initial_ms: 200,
            increment_ms: 0,
        });
        let t = Instant::now();
        let p = game(START, "mute", "e4", clock).await;
        assert!(t.elapsed() < std::time::Duration::from_secs(2));
        assert_eq!(p.game.status().result, GameResult::BlackWins);
        assert_eq!(p.game.status().reason, Some(Reason::Timeout));
        assert_eq!(p.ending.termination(), "time forfeit");
        assert_eq!(p.ending.note(), Some("mute sent no move within 0.25 s"));
        // White has a queen, Black a bare king: White flags, and it is a draw.
        let p = game("k7/8/8/8/8/8/8/KQ6 w - - 0 1", "mute", "e4", clock).await;
        assert_eq!(p.game.status().result, GameResult::Draw);
        assert_eq!(p.ending.termination(), "time forfeit");
        let note = p.ending.note().unwrap();
        assert!(note.ends_with("a draw, as e4 cannot mate"), "{note}");
        // With a move time, the engine's search_timeout_ms is its grace.
        let p = game(START, "mute", "e4", Pace::MoveTime(10)).await;
        assert_eq!(p.ending.note(), Some("mute sent no move within 0.31 s"));
    }

    #[tokio::test]
    async fn the_ply_limit_adjudicates_a_draw() {
        let mut config = Config::defaults();
        config
            .engines
            .named
            .insert("e4".into(), script("echo bestmove e2e4"));
        let lineup = Lineup::new(&config, None);
        let mut w = lineup.start("e4").await.unwrap_or_else(|_| panic!("e4"));
        let mut b = lineup.start("e4").await.unwrap_or_else(|_| panic!("e4"));
        let p = play(&mut w, &mut b, Game::default(), Pace::MoveTime(10), 0).await;
        assert_eq!(p.game.status().result, GameResult::Draw);
        assert_eq!(p.ending.termination(), "adjudication");
        assert_eq!(p.ending.note(), Some("adjudicated a draw at 0 plies"));
    }
}
