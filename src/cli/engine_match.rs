//! `chessd match [ENGINE ENGINE] [--games N] [--movetime MS | --tc BASE+INC | --nodes N] [--max-plies N]
//! [--skill N] [--pgn FILE] [--config FILE]`: a match between two engines configured in the
//! server's configuration (`[engines.NAME]`: the embedded defaults, `--config FILE`, then
//! `CHESSD_ENGINES__…` variables, as `chessd serve` loads them), by default `builtin` against
//! `stockfish` at `Skill Level 0`.
//!
//! The engines are started and driven as the server drives them (its engine factory and the
//! protocol-neutral engine session, so UCI and XBoard engines alike), from a fixed set of
//! openings each played with both colours; the core's `Game` judges every move (see
//! [`referee`]). Each game's result goes to stderr as it ends; at the end the score from the
//! first engine's point of view goes to stdout as PGN escape lines (`% …`), followed by the
//! PGN of every game, or with `--pgn FILE` the PGN goes to the file. So stdout as a whole is a
//! PGN file.

mod openings;
mod output;
mod pace;
mod player;
mod record;
mod referee;
mod score;

use std::{path::PathBuf, process::ExitCode, time::Instant};

use chessd_core::Color;
use chessd_server::{game::clock::TimeControl, Config};
use clap::Args;

use self::{
    pace::Pace,
    player::{Lineup, Player, StartError},
    score::Tally,
};
use super::usage_error;

/// The engines played when none are named.
const DEFAULT_ENGINES: [&str; 2] = ["builtin", "stockfish"];

/// Arguments of `chessd match`.
#[derive(Debug, Args)]
pub(crate) struct MatchArgs {
    /// The two engines, by their configured names (`[engines.NAME]`); the score is the
    /// first's. None: builtin and stockfish, with `--skill 0` unless given.
    #[arg(value_name = "ENGINE", num_args = 0..=2)]
    pub engines: Vec<String>,
    /// Number of games (openings are taken in turn, each with both colours).
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub games: u32,
    /// Thinking time per move for both engines, in milliseconds (without `--tc`).
    #[arg(long, value_name = "MS", default_value_t = 100, conflicts_with = "tc",
          value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub movetime: u64,
    /// A clock per side instead of a move time: base seconds + increment seconds per move
    /// (`10+0.1`; `60` for no increment). An engine whose clock runs out loses on time.
    #[arg(long, value_name = "BASE+INC", value_parser = pace::parse_tc)]
    pub tc: Option<TimeControl>,
    /// A node count per move instead of a time (`go nodes N`): equal work for both engines.
    #[arg(long, value_name = "N", conflicts_with = "tc",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub nodes: Option<u64>,
    /// Plies (the opening's included) after which a game is adjudicated a draw.
    #[arg(long, value_name = "N", default_value_t = 300,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_plies: u32,
    /// `Skill Level` (0 to 20) for each engine of the match that declares that option
    /// (Stockfish). Default: 0 when no engines are named, else not set.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=20))]
    pub skill: Option<u32>,
    /// Write the PGN of the games to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,
    /// A TOML file overriding the embedded defaults (CHESSD_… variables override it in turn),
    /// as for `chessd serve`.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Runs `chessd match`.
pub(crate) fn run(args: &MatchArgs) -> ExitCode {
    let (names, skill) = match args.engines.as_slice() {
        [] => (
            DEFAULT_ENGINES.map(str::to_string),
            Some(args.skill.unwrap_or(0)),
        ),
        [first, second] => ([first.clone(), second.clone()], args.skill),
        _ => {
            return usage_error(
                "match",
                "name two engines, or none for builtin against stockfish",
            )
        }
    };
    let config = match Config::load(args.config.as_deref()) {
        Ok(config) => config,
        Err(e) => return usage_error("match", &e.to_string()),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("chessd match: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let pace = match (args.tc, args.nodes) {
        (Some(control), _) => Pace::Clock(control),
        (None, Some(n)) => Pace::Nodes(n),
        (None, None) => Pace::MoveTime(args.movetime),
    };
    let settings = Settings {
        names,
        games: args.games,
        pace,
        max_plies: args.max_plies as usize,
        pgn: args.pgn.clone(),
    };
    runtime.block_on(play_match(&config, skill, &settings))
}

/// What the match plays.
struct Settings {
    names: [String; 2],
    games: u32,
    pace: Pace,
    max_plies: usize,
    pgn: Option<PathBuf>,
}

impl Settings {
    /// `20 games, movetime 100 ms` or `1 game, tc 10+0.1`.
    fn games_and_pace(&self) -> String {
        let pace = match self.pace {
            Pace::MoveTime(ms) => format!("movetime {ms} ms"),
            Pace::Clock(control) => format!("tc {}", control.pgn()),
            Pace::Nodes(n) => format!("nodes {n}"),
        };
        let plural = if self.games == 1 { "" } else { "s" };
        format!("{} game{plural}, {pace}", self.games)
    }
}

/// Starts the engines, plays the games and reports.
async fn play_match(config: &Config, skill: Option<u32>, settings: &Settings) -> ExitCode {
    let lineup = Lineup::new(config, skill);
    let mut first = match lineup.start(&settings.names[0]).await {
        Ok(player) => player,
        Err(e) => return start_failed(&e),
    };
    let mut second = match lineup.start(&settings.names[1]).await {
        Ok(player) => player,
        Err(e) => return start_failed(&e),
    };
    eprintln!(
        "chessd match: {} vs {}; {}",
        first.describe(),
        second.describe(),
        settings.games_and_pace()
    );
    let began = Instant::now();
    let mut tally = Tally::default();
    let mut pgn = String::new();
    let mut failure = None;
    for index in 0..settings.games {
        if let Err(e) = prepare(&lineup, &mut first, &mut second).await {
            failure = Some(e);
            break;
        }
        let start = match openings::start(index) {
            Ok(game) => game,
            Err(e) => {
                failure = Some(StartError::Failed(e));
                break;
            }
        };
        let opening_plies = start.history().len();
        let first_side = if index % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let (white, black) = match first_side {
            Color::White => (&mut first, &mut second),
            Color::Black => (&mut second, &mut first),
        };
        let played = referee::play(white, black, start, settings.pace, settings.max_plies).await;
        tally.add(played.game.status().result, first_side);
        eprintln!(
            "{}",
            output::game_line(&played, index, settings.games, opening_plies)
        );
        let event = format!(
            "chessd match {} vs {}",
            settings.names[0], settings.names[1]
        );
        let round = index + 1;
        pgn.push_str(&record::pgn(
            &played,
            &event,
            round,
            settings.pace.time_control(),
        ));
        pgn.push('\n');
    }
    drop((first, second));
    let heading = format!(
        "{} vs {}, {}",
        settings.names[0],
        settings.names[1],
        settings.games_and_pace()
    );
    let first = &settings.names[0];
    let reported = output::report(
        &heading,
        first,
        &tally,
        began.elapsed(),
        &pgn,
        settings.pgn.as_deref(),
    );
    if let Err(e) = reported {
        eprintln!("chessd match: {e}");
        return ExitCode::FAILURE;
    }
    match failure {
        Some(e) => {
            start_failed(&e);
            ExitCode::FAILURE
        }
        None => ExitCode::SUCCESS,
    }
}

/// Makes both engines ready for a new game; an engine whose session ended (it died, or was
/// killed after overrunning a deadline) or that does not answer is started again.
async fn prepare(
    lineup: &Lineup,
    first: &mut Player,
    second: &mut Player,
) -> Result<(), StartError> {
    for player in [first, second] {
        if !player.is_closed() && player.new_game().await.is_ok() {
            continue;
        }
        let name = player.name.clone();
        eprintln!("chessd match: restarting {name}");
        *player = lineup.start(&name).await?;
        player.new_game().await.map_err(|e| {
            StartError::Failed(format!(
                "{name} was not ready for a new game after a restart: {e}"
            ))
        })?;
    }
    Ok(())
}

/// Says why an engine could not be started; the exit code (2 for an unknown name).
fn start_failed(error: &StartError) -> ExitCode {
    match error {
        StartError::Unknown(message) => usage_error("match", message),
        StartError::Failed(message) => {
            eprintln!("chessd match: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use chessd_core::game::Game;

    use super::*;

    #[tokio::test]
    async fn a_dead_engine_is_started_again_for_the_next_game() {
        let mut config = Config::defaults();
        for (name, on_go) in [("dies", "exit 0"), ("e4", "echo bestmove e2e4")] {
            let engine = referee::tests::script(on_go);
            config.engines.named.insert(name.into(), engine);
        }
        let lineup = Lineup::new(&config, None);
        let mut dies = lineup
            .start("dies")
            .await
            .unwrap_or_else(|_| panic!("dies"));
        let mut e4 = lineup.start("e4").await.unwrap_or_else(|_| panic!("e4"));
        let played =
            referee::play(&mut dies, &mut e4, Game::default(), Pace::MoveTime(10), 300).await;
        assert_eq!(played.ending.termination(), "abandoned");
        assert!(dies.is_closed());
        prepare(&lineup, &mut dies, &mut e4)
            .await
            .unwrap_or_else(|_| panic!("prepare"));
        assert!(!dies.is_closed(), "started again");
        assert!(!e4.is_closed());
    }
}
