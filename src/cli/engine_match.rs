//! `chessd match [--stockfish PATH] [--skill N] [--movetime MS] [--games N]`: a short match of
//! the built-in engine (`chessd engine`, as a child process speaking UCI) against Stockfish at
//! a low skill level, from a fixed set of openings, each played with both colours. The core's
//! [`Game`] judges every move and ends games (mate, stalemate, repetition, fifty moves, dead
//! position); a game reaching `--max-plies` is adjudicated a draw, an engine that sends an
//! illegal move or no move in time loses. Prints each game and the result (W/D/L for chessd,
//! score, Elo difference estimate).

use std::{
    io::{BufRead, BufReader, Write},
    path::PathBuf,
    process::{Child, ChildStdin, Command, ExitCode, Stdio},
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use chessd::uci::protocol::{EngineLine, GoLimits, GuiCommand, StartPosition};
use chessd_core::{
    game::{Game, GameResult},
    Color,
};
use clap::Args;

use super::usage_error;

/// Arguments of `chessd match`.
#[derive(Debug, Args)]
pub struct MatchArgs {
    /// The Stockfish binary.
    #[arg(long, value_name = "PATH", default_value = "/usr/games/stockfish")]
    pub stockfish: PathBuf,
    /// Stockfish's `Skill Level` (0 to 20).
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=20))]
    pub skill: u32,
    /// Thinking time per move for both engines, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 100,
          value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub movetime: u64,
    /// Number of games (openings are taken in turn, each with both colours).
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub games: u32,
    /// Plies after which a game is adjudicated a draw.
    #[arg(long, value_name = "N", default_value_t = 300)]
    pub max_plies: u32,
    /// Also print the moves of each game (SAN, from the start position).
    #[arg(long)]
    pub moves: bool,
    /// The built-in engine's `Hash` in MiB.
    #[arg(long, value_name = "MiB", default_value_t = 16)]
    pub hash: usize,
}

/// Openings (UCI moves from the start position): main lines of common openings.
const OPENINGS: [&str; 10] = [
    "",
    "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6",
    "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6",
    "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6",
    "c2c4 e7e5 b1c3 g8f6 g1f3 b8c6",
    "e2e4 e7e6 d2d4 d7d5 b1c3 g8f6",
    "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6",
    "e2e4 c7c6 d2d4 d7d5 e4e5 c8f5",
    "d2d4 g8f6 c2c4 e7e6 g1f3 b7b6",
    "e2e4 e7e5 g1f3 g8f6 f3e5 d7d6",
];

/// Extra time an engine gets over the move time before it forfeits.
const GRACE: Duration = Duration::from_secs(3);

/// A UCI engine as a child process, read by a thread that forwards its lines.
struct Engine {
    name: String,
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Engine {
    fn spawn(name: &str, mut command: Command) -> Result<Engine, String> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = Engine {
            name: name.to_string(),
            child,
            stdin,
            lines,
        };
        engine.send(&GuiCommand::Uci)?;
        engine.wait_for(Duration::from_secs(10), |l| matches!(l, EngineLine::UciOk))?;
        Ok(engine)
    }

    fn send(&mut self, command: &GuiCommand) -> Result<(), String> {
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("{}: {e}", self.name))
    }

    /// Reads lines until one matches, within `timeout`.
    fn wait_for(
        &mut self,
        timeout: Duration,
        mut want: impl FnMut(&EngineLine) -> bool,
    ) -> Result<EngineLine, String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(text) => {
                    let line = EngineLine::parse(&text);
                    if want(&line) {
                        return Ok(line);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(format!("{}: no answer within {timeout:?}", self.name))
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(format!("{}: the engine exited", self.name))
                }
            }
        }
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.send(&GuiCommand::SetOption {
            name: name.to_string(),
            value: Some(value.to_string()),
        })
    }

    fn new_game(&mut self) -> Result<(), String> {
        self.send(&GuiCommand::UciNewGame)?;
        self.send(&GuiCommand::IsReady)?;
        self.wait_for(Duration::from_secs(10), |l| {
            matches!(l, EngineLine::ReadyOk)
        })
        .map(drop)
    }

    /// The engine's move after `moves` from the start position.
    fn best_move(&mut self, moves: &[String], movetime: u64) -> Result<Option<String>, String> {
        self.send(&GuiCommand::Position {
            start: StartPosition::StartPos,
            moves: moves.to_vec(),
        })?;
        self.send(&GuiCommand::Go(GoLimits {
            movetime: Some(movetime),
            ..GoLimits::default()
        }))?;
        let timeout = Duration::from_millis(movetime) + GRACE;
        match self.wait_for(timeout, |l| matches!(l, EngineLine::BestMove(_)))? {
            EngineLine::BestMove(b) => Ok(b.best),
            _ => Ok(None),
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.send(&GuiCommand::Quit);
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How one game ended, from chessd's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Win,
    Draw,
    Loss,
}

/// Runs `chessd match`.
pub fn run(args: &MatchArgs) -> ExitCode {
    if !args.stockfish.exists() {
        return usage_error(
            "match",
            &format!("Stockfish not found at {}", args.stockfish.display()),
        );
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return usage_error("match", &format!("cannot find chessd itself: {e}")),
    };
    let start = || -> Result<(Engine, Engine), String> {
        let mut ours = Command::new(&exe);
        ours.args(["engine", "--hash", &args.hash.to_string()]);
        let chessd = Engine::spawn("chessd", ours)?;
        let mut stockfish = Engine::spawn("stockfish", Command::new(&args.stockfish))?;
        stockfish.set_option("Threads", "1")?;
        stockfish.set_option("Hash", "16")?;
        stockfish.set_option("Skill Level", &args.skill.to_string())?;
        Ok((chessd, stockfish))
    };
    let (mut chessd, mut stockfish) = match start() {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("chessd match: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "chessd match: built-in engine vs Stockfish (Skill Level {}), movetime {} ms, {} games",
        args.skill, args.movetime, args.games
    );
    let (mut wins, mut draws, mut losses) = (0u32, 0u32, 0u32);
    let match_start = Instant::now();
    for i in 0..args.games {
        let opening = OPENINGS[(i as usize / 2) % OPENINGS.len()];
        let chessd_white = i % 2 == 0;
        let played = play_game(
            &mut chessd,
            &mut stockfish,
            chessd_white,
            opening,
            args.movetime,
            args.max_plies,
        );
        let (outcome, text, sans) = match played {
            Ok(r) => r,
            Err(e) => {
                eprintln!("chessd match: game {} aborted: {e}", i + 1);
                // Restart both engines for the next game.
                drop((chessd, stockfish));
                match start() {
                    Ok(pair) => (chessd, stockfish) = pair,
                    Err(e) => {
                        eprintln!("chessd match: {e}");
                        return ExitCode::FAILURE;
                    }
                }
                continue;
            }
        };
        match outcome {
            Outcome::Win => wins += 1,
            Outcome::Draw => draws += 1,
            Outcome::Loss => losses += 1,
        }
        println!(
            "game {:>2}: chessd {} | {text} | opening: {}",
            i + 1,
            if chessd_white { "white" } else { "black" },
            if opening.is_empty() { "start" } else { opening }
        );
        if args.moves {
            println!("         {sans}");
        }
    }
    let played = wins + draws + losses;
    let score = if played == 0 {
        0.0
    } else {
        (f64::from(wins) + 0.5 * f64::from(draws)) / f64::from(played)
    };
    let elo = if score > 0.0 && score < 1.0 {
        format!("{:+.0}", -400.0 * (1.0 / score - 1.0).log10())
    } else if score >= 1.0 {
        "+inf".to_string()
    } else {
        "-inf".to_string()
    };
    println!(
        "result: chessd +{wins} ={draws} -{losses} of {played} (score {:.1}%, Elo difference {elo}) in {:.0} s",
        score * 100.0,
        match_start.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

/// Plays one game; returns the outcome for chessd and a line describing the end.
fn play_game(
    chessd: &mut Engine,
    stockfish: &mut Engine,
    chessd_white: bool,
    opening: &str,
    movetime: u64,
    max_plies: u32,
) -> Result<(Outcome, String, String), String> {
    chessd.new_game()?;
    stockfish.new_game()?;
    let mut game = Game::default();
    let mut moves: Vec<String> = Vec::new();
    for mv in opening.split_whitespace() {
        game.play_uci(mv)
            .map_err(|e| format!("opening move {mv}: {e}"))?;
        moves.push(mv.to_string());
    }
    let chessd_color = if chessd_white {
        Color::White
    } else {
        Color::Black
    };
    let mut plies = 0;
    while !game.is_over() {
        if plies >= max_plies {
            return Ok((
                Outcome::Draw,
                format!("1/2-1/2 adjudicated after {plies} plies"),
                san_text(&game),
            ));
        }
        let ours = game.turn() == chessd_color;
        let engine = if ours { &mut *chessd } else { &mut *stockfish };
        let forfeit = if ours { Outcome::Loss } else { Outcome::Win };
        let Some(mv) = engine.best_move(&moves, movetime)? else {
            return Ok((
                forfeit,
                format!("{} sent no move in a live position", engine.name),
                san_text(&game),
            ));
        };
        if let Err(e) = game.play_uci(&mv) {
            let text = format!("{} played {mv}: {e}", engine.name);
            return Ok((forfeit, text, san_text(&game)));
        }
        moves.push(mv);
        plies += 1;
    }
    let status = game.status();
    let reason = status.reason.map_or("?", |r| r.name());
    let outcome = match status.result {
        GameResult::Draw | GameResult::Ongoing => Outcome::Draw,
        r if r.winner() == Some(chessd_color) => Outcome::Win,
        _ => Outcome::Loss,
    };
    Ok((
        outcome,
        format!("{} {reason} after {plies} plies", status.result.pgn()),
        san_text(&game),
    ))
}

/// The game's moves in SAN with move numbers (`1. e4 e5 2. Nf3 …`).
fn san_text(game: &Game) -> String {
    let mut out = String::new();
    for (i, played) in game.history().iter().enumerate() {
        if i % 2 == 0 {
            out.push_str(&format!("{}. ", i / 2 + 1));
        }
        out.push_str(&played.san);
        out.push(' ');
    }
    out.trim_end().to_string()
}
