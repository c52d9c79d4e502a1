//! The `handle` part: moves per second through [`GameHandle`](chessd_server::game::GameHandle),
//! in this process: no HTTP, no JSON, only the game actors, their mailboxes and the rules.
//!
//! Its peer is Binbo's `binbo:move/2` in one Erlang VM (`benches/peers/binbo_moves.escript`),
//! which replays the same games (`--games-file`): `--flat-games` games at once, each replayed
//! from its start again and again until the time is up. Here a replay is a new game (created,
//! played by its two seats' secrets, then stopped); in Binbo it is `binbo:new_game/1` on the
//! game's own server. The games are random legal games of `--plies` plies that do not end.

use std::{
    path::Path,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::Instant,
};

use chessd_core::{game::Game, Position};
use chessd_server::{
    admission::ClientKey,
    config::Config,
    game::{
        command::{Action, MoveInput},
        options::GameOptions,
        Games, NewGame,
    },
    store::Store,
    AppState,
};
use serde::Serialize;

use super::{
    client::{on_threads, share},
    stats::{random_game, round2, Rng},
    Settings,
};

/// What the handle part measured.
#[derive(Debug, Serialize)]
pub(crate) struct HandleReport {
    /// Games played at once.
    pub games: usize,
    /// Plies of each game.
    pub plies: usize,
    /// Seconds measured.
    pub seconds: f64,
    /// Moves accepted in that time.
    pub moves: u64,
    /// Moves accepted per second.
    pub moves_per_sec: f64,
    /// Games created in that time (each replay is a new game).
    pub games_created: u64,
    /// Requests refused or failed (none in a sound run).
    pub errors: u64,
}

/// The random games every player replays, in UCI: the same at every run.
pub(super) fn games_in_uci(count: usize, plies: usize) -> Vec<Vec<String>> {
    (0..count)
        .map(|i| {
            let mut pos = Position::startpos();
            random_game(&mut Rng::seeded(i as u64 + 1), plies)
                .into_iter()
                .map(|mv| {
                    let uci = pos.uci(mv);
                    pos.play_unchecked(mv);
                    uci
                })
                .collect()
        })
        .collect()
}

/// Writes `games` one a line, moves separated by spaces (the peer script's input).
fn write_games(path: &Path, games: &[Vec<String>]) -> Result<(), String> {
    let text: String = games.iter().map(|g| g.join(" ") + "\n").collect();
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A game layer keeping nothing, with no client quota in the way of one client's many games.
fn games_in_memory(settings: &Settings) -> Arc<Games> {
    let mut config = Config::defaults();
    config.quotas.games_per_minute = 0;
    config.quotas.max_ongoing_games = settings.flat_games * 2 + 16;
    config.limits.max_games = settings.flat_games * 2 + 16;
    AppState::with_store(config, None, Store::memory()).games
}

/// Counts shared by the players.
#[derive(Default)]
struct Counts {
    moves: AtomicU64,
    games: AtomicU64,
    errors: AtomicU64,
}

/// Runs the handle part; writes the games to `games_file` first when given.
pub(super) fn run(settings: &Settings, games_file: Option<&Path>) -> Result<HandleReport, String> {
    let replays = games_in_uci(settings.flat_games, settings.plies);
    if let Some(path) = games_file {
        write_games(path, &replays)?;
    }
    let games = games_in_memory(settings);
    let counts = Arc::new(Counts::default());
    let threads = settings.client_threads;
    let ready = std::sync::Barrier::new(threads);
    let deadline = std::sync::OnceLock::<Instant>::new();
    on_threads(threads, |t| {
        let (games, replays, counts) = (&games, &replays, &counts);
        let (ready, deadline) = (&ready, &deadline);
        async move {
            // Each thread plays its share of the games, on actors of its own.
            let first: usize = (0..t).map(|i| share(replays.len(), threads, i)).sum();
            let mine = &replays[first..first + share(replays.len(), threads, t)];
            ready.wait();
            let deadline = *deadline.get_or_init(|| Instant::now() + settings.seconds);
            let players: Vec<_> = mine
                .iter()
                .map(|moves| {
                    let player = play(
                        Arc::clone(games),
                        moves.clone(),
                        deadline,
                        Arc::clone(counts),
                    );
                    actix_web::rt::spawn(player)
                })
                .collect();
            for p in players {
                let _ = p.await;
            }
        }
    });
    games.shut_down();
    let seconds = settings.seconds.as_secs_f64();
    let moves = counts.moves.load(Ordering::Acquire);
    Ok(HandleReport {
        games: settings.flat_games,
        plies: settings.plies,
        seconds: round2(seconds),
        moves,
        moves_per_sec: round2(moves as f64 / seconds),
        games_created: counts.games.load(Ordering::Acquire),
        errors: counts.errors.load(Ordering::Acquire),
    })
}

/// One player: replays `moves` in new games until `deadline`, counting the moves accepted
/// before it.
async fn play(games: Arc<Games>, moves: Vec<String>, deadline: Instant, counts: Arc<Counts>) {
    let client = ClientKey::Address(std::net::Ipv4Addr::LOCALHOST.into());
    let fail = || counts.errors.fetch_add(1, Ordering::AcqRel);
    while Instant::now() < deadline {
        let new = NewGame {
            game: Game::new(Position::startpos()).into(),
            options: GameOptions::default(),
            opponents: Vec::new(),
            players: None,
        };
        let Ok((handle, secrets)) = games.create(&client, new).await else {
            fail();
            return;
        };
        counts.games.fetch_add(1, Ordering::AcqRel);
        for (ply, uci) in moves.iter().enumerate() {
            let seat = if ply % 2 == 0 {
                &secrets.white
            } else {
                &secrets.black
            };
            let played = handle
                .act(
                    Some(seat.clone()),
                    Action::Move(MoveInput::Uci(uci.clone())),
                )
                .await;
            if Instant::now() >= deadline {
                return;
            }
            if played.is_err() {
                fail();
                return;
            }
            counts.moves.fetch_add(1, Ordering::AcqRel);
        }
        if handle
            .act(Some(secrets.admin.clone()), Action::Stop)
            .await
            .is_err()
        {
            fail();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_replay_their_games_through_handles_and_the_peer_gets_the_same_games() {
        let file = std::env::temp_dir().join(format!(
            "chessd-handle-games-{}-{:?}.txt",
            std::process::id(),
            std::thread::current().id()
        ));
        let settings = Settings {
            seconds: std::time::Duration::from_millis(700),
            flat_games: 3,
            plies: 6,
            client_threads: 2,
            ..crate::cli::loadtest::tests::settings()
        };
        let report = run(&settings, Some(&file)).unwrap();
        assert_eq!(report.errors, 0, "{report:?}");
        // Each game is replayed several times over in 0.7 s: more moves than one pass.
        assert!(report.moves > 3 * 6, "{report:?}");
        assert!(report.games_created > 3, "{report:?}");
        let written = std::fs::read_to_string(&file).unwrap();
        std::fs::remove_file(&file).unwrap();
        let lines: Vec<&str> = written.lines().collect();
        assert_eq!(lines.len(), 3);
        let expected = games_in_uci(3, 6);
        for (line, game) in lines.iter().zip(&expected) {
            assert_eq!(line.split(' ').collect::<Vec<_>>(), *game);
        }
        // The games are legal, as the peer (Binbo) will check.
        for game in &expected {
            let mut pos = Position::startpos();
            for uci in game {
                let mv = pos.parse_uci(uci).unwrap();
                pos.play(mv).unwrap();
            }
        }
    }
}
