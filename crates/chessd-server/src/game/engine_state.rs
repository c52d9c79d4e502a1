//! A game's engine work as plain state the game's actor owns: the attached engine, what it is
//! busy with, the running analysis and the engine opponent, with the rules that decide when a
//! search may start. No actor code here: the actor's engine module runs the searches.

use std::{collections::BTreeMap, time::Duration};

use chessd_core::{Color, Position};
use chessd_protocol::uci::{GoLimits, Info};

use crate::{
    admission::Permit,
    config::EngineConfig,
    engine::handle::{Engine, Identity},
    game::{
        replies::{AnalysisReport, EngineView, OpponentView, RivalView},
        GameError,
    },
};

/// The `go` of `play` and `bestmove` when none is given (Binbo's default).
pub const DEFAULT_MOVETIME_MS: u64 = 1000;

/// The opponent's `go` when none is given and the game has no clocks.
pub const DEFAULT_OPPONENT_MOVETIME_MS: u64 = 500;

/// Longest raw engine line sent to WebSocket clients, in bytes (longer ones are cut).
pub const MAX_EVENT_LINE: usize = 4096;

/// An engine playing one side of the game by itself.
#[derive(Clone, Debug)]
pub struct Opponent {
    /// The side it plays.
    pub plays: Color,
    /// Its search limits; `None`: the clocks when the game is timed, else `movetime 500`.
    pub go: Option<GoLimits>,
}

/// What the engine is doing for the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Busy {
    /// A best-move hint.
    Hint,
    /// Choosing a move the game will play (play or opponent): the game is locked.
    Move,
    /// A position sync.
    Sync,
    /// Pondering on the opponent's time (does not lock the game).
    Ponder,
}

/// An engine opponent thinking on its opponent's time about the reply it expects.
#[derive(Clone, Debug)]
pub struct Pondering {
    /// Which ponder search (a later one gets a new number).
    pub seq: u64,
    /// The reply it expects (UCI).
    pub expected: String,
    /// The position before that reply: while the game is still there, the ponder goes on.
    pub from: Position,
    /// Whether the expected reply was played (`ponderhit` sent): the search is now the
    /// engine's move.
    pub hit: bool,
    /// The limits of the ponder search (its time bound after `ponderhit`).
    pub limits: GoLimits,
}

/// A running analysis.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Which analysis (a restarted one gets a new number).
    pub seq: u64,
    /// Its limits.
    pub limits: GoLimits,
    /// Lines searched.
    pub multipv: u32,
    /// The ply analysed; `None`: the current position, followed as the game goes on.
    pub ply: Option<usize>,
}

/// The engine attached to a game.
pub struct Attached {
    /// Its configured name.
    pub name: String,
    /// Its configuration (timeouts, caps).
    pub config: EngineConfig,
    /// The session.
    pub engine: Engine,
    /// Which attachment (tags its output).
    pub generation: u64,
    /// What it is searching for, if anything.
    pub busy: Option<Busy>,
    /// The running analysis.
    pub analysis: Option<Analysis>,
    /// The position the current (or last) search started from, for the SAN of PVs.
    pub root: Position,
    /// The last line of each PV of the running analysis.
    pub lines: BTreeMap<u32, Info>,
    /// The ponder search running, when the engine ponders (`busy` is then `Ponder`, or `Move`
    /// after a ponder hit).
    pub pondering: Option<Pondering>,
    /// Its place in the engine-session counts, given back when it is detached.
    pub _permit: Permit,
}

impl Attached {
    /// Whether the game must refuse moves and re-initialisations now.
    pub fn locks_game(&self) -> bool {
        self.busy == Some(Busy::Move)
    }

    /// Whether it is neither searching nor analysing.
    pub fn is_idle(&self) -> bool {
        self.busy.is_none() && self.analysis.is_none()
    }
}

/// The second engine of a game two engines play, one side each: a session of its own, kept
/// for the whole game (its hash with it), that only plays its side. Hints and analyses use the
/// game's attached engine.
pub struct Rival {
    /// The engine.
    pub attached: Attached,
    /// The side it plays and its limits.
    pub opponent: Opponent,
}

/// Which of a game's engine sessions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The attached engine (hints, analyses, and the engine opponent when there is one).
    Main,
    /// The rival: the engine playing the other side in a game two engines play.
    Rival,
}

/// Everything a game knows of its engine.
#[derive(Default)]
pub struct EngineState {
    /// The attached engine (boxed, as the rival and the opponent: most games have none, and
    /// every game's actor carries this state).
    pub attached: Option<Box<Attached>>,
    /// The engine opponent (plays one side by itself).
    pub opponent: Option<Box<Opponent>>,
    /// The engine playing the other side, when two engines play the game.
    pub rival: Option<Box<Rival>>,
    /// The sides engines play and the engines' configured names (kept after the engines are
    /// released, for PGN).
    pub seats: Vec<(Color, String)>,
    /// Attachments so far.
    pub next_engine: u64,
    /// Analyses so far.
    pub next_analysis: u64,
    /// Ponder searches so far.
    pub next_ponder: u64,
    /// The result of the last analysis that ended by itself (a finite one), kept until the next
    /// analysis starts so that `DELETE …/engine/analysis` still answers it.
    pub last_analysis: Option<Box<AnalysisReport>>,
}

impl EngineState {
    /// The attached engine, or `no_engine`.
    pub fn attached(&mut self) -> Result<&mut Attached, GameError> {
        self.attached.as_deref_mut().ok_or(GameError::NoEngine)
    }

    /// The engine of attachment `generation` (the attached engine or the rival), if it is
    /// still attached.
    pub fn current(&mut self, generation: u64) -> Option<&mut Attached> {
        let rival = self.rival.as_mut().map(|r| &mut r.attached);
        self.attached
            .as_deref_mut()
            .into_iter()
            .chain(rival)
            .find(|a| a.generation == generation)
    }

    /// The session in `slot`, if there is one.
    pub fn slot(&mut self, slot: Slot) -> Option<&mut Attached> {
        match slot {
            Slot::Main => self.attached.as_deref_mut(),
            Slot::Rival => self.rival.as_mut().map(|r| &mut r.attached),
        }
    }

    /// The engine that plays `side` by itself, if one does and is attached: its slot and how
    /// it plays.
    pub fn player_of(&self, side: Color) -> Option<(Slot, Opponent)> {
        if let Some(r) = self.rival.as_ref().filter(|r| r.opponent.plays == side) {
            return Some((Slot::Rival, r.opponent.clone()));
        }
        self.opponent
            .as_ref()
            .filter(|o| o.plays == side && self.attached.is_some())
            .map(|o| (Slot::Main, Opponent::clone(o)))
    }

    /// Records that engine `name` plays `side` (for the game's view and PGN).
    pub fn seat(&mut self, side: Color, name: &str) {
        self.seats.retain(|(s, _)| *s != side);
        self.seats.push((side, name.to_string()));
        self.seats.sort_by_key(|(s, _)| *s != Color::White);
    }

    /// Whether an engine plays a side of the game by itself.
    pub fn has_opponent(&self) -> bool {
        self.opponent.is_some() || self.rival.is_some()
    }

    /// Whether the game must refuse moves and re-initialisations now.
    pub fn locks_game(&self) -> bool {
        self.attached.as_deref().is_some_and(Attached::locks_game)
            || self.rival.as_ref().is_some_and(|r| r.attached.locks_game())
    }

    /// Whether an engine is attached and idle.
    pub fn is_idle(&self) -> bool {
        self.attached.as_deref().is_some_and(Attached::is_idle)
    }

    /// The attached engine as JSON.
    pub fn view(&self) -> Result<EngineView, GameError> {
        let a = self.attached.as_ref().ok_or(GameError::NoEngine)?;
        let id = a.engine.identity();
        Ok(EngineView {
            name: a.name.clone(),
            id_name: id.name.clone(),
            id_author: id.author.clone(),
            options: id.options.clone(),
            busy: a.busy.is_some(),
            analysing: a.analysis.is_some(),
            opponent: self.opponent.as_ref().map(|o| OpponentView {
                plays: o.plays,
                go: o.go.clone(),
            }),
            rival: self.rival.as_ref().map(|r| RivalView {
                name: r.attached.name.clone(),
                id_name: r.attached.engine.identity().name.clone(),
                plays: r.opponent.plays,
                go: r.opponent.go.clone(),
                busy: r.attached.busy.is_some(),
            }),
        })
    }
}

/// The whole allowance of a search: `timeout` if given, none for infinite searches, else the
/// search's own time bound (or none) plus `search_timeout_ms`.
pub fn allowance(
    config: &EngineConfig,
    limits: &GoLimits,
    white: bool,
    timeout: Option<Duration>,
) -> Option<Duration> {
    if timeout.is_some() {
        return timeout;
    }
    if limits.infinite || limits.ponder {
        return None;
    }
    let extra = config.search_timeout_ms;
    let total = limits
        .time_bound_ms(white)
        .map_or(extra, |t| t.saturating_add(extra));
    Some(Duration::from_millis(total))
}

/// Checks limits a client gave by the rules of a raw `go` (no `depth 0`, no `movetime 0`,
/// nothing over a day or 256 plies): `invalid_request` otherwise.
pub fn checked_limits(limits: &GoLimits) -> Result<(), GameError> {
    crate::engine::policy::check_go(limits)
        .map_err(|e| GameError::invalid(format!("invalid search limits: {e}")))
}

/// Refuses limits that give a search more time than `max_ms` (`engines.max_movetime_ms`).
pub fn bounded_limits(limits: &GoLimits, max_ms: u64) -> Result<(), GameError> {
    let times = [
        ("movetime", limits.movetime),
        ("wtime", limits.wtime),
        ("btime", limits.btime),
        ("winc", limits.winc),
        ("binc", limits.binc),
    ];
    match times
        .into_iter()
        .find(|(_, t)| t.is_some_and(|t| t > max_ms))
    {
        Some((name, Some(t))) => Err(GameError::LimitExceeded(format!(
            "{name} {t} is over engines.max_movetime_ms ({max_ms})"
        ))),
        _ => Ok(()),
    }
}

/// Limits for a search that must end by itself.
pub fn finite_limits(limits: GoLimits) -> Result<GoLimits, GameError> {
    if limits.infinite || limits.ponder {
        return Err(GameError::invalid(
            "infinite and ponder searches never end by themselves: use the analysis route",
        ));
    }
    checked_limits(&limits)?;
    let without_moves = GoLimits {
        searchmoves: Vec::new(),
        ..limits.clone()
    };
    if without_moves.is_empty() {
        return Ok(GoLimits {
            movetime: Some(DEFAULT_MOVETIME_MS),
            ..limits
        });
    }
    Ok(limits)
}

/// Refuses an engine that cannot play a game from `start`: a Chess960 start needs an engine
/// that declares Chess960 (an engine without it may die on the FEN, as Toga II does).
pub fn check_can_play(name: &str, identity: &Identity, start: &Position) -> Result<(), GameError> {
    if start.is_chess960() && !identity.supports_chess960() {
        return Err(crate::engine::EngineError::Unsupported(format!(
            "engine {name} cannot play Chess960 (it declares no UCI_Chess960 option, or no \
             fischerandom among its XBoard variants), and this game starts from a Chess960 \
             position"
        ))
        .into());
    }
    Ok(())
}

/// The engine's move from a search's `best`, checked against `root`; an illegal or missing
/// move is `engine_illegal_move`.
pub fn checked_move(root: &Position, best: Option<&str>) -> Result<(String, String), GameError> {
    use crate::engine::EngineError;
    let Some(best) = best else {
        return Err(EngineError::IllegalMove(
            "the engine answered bestmove (none) in a position with legal moves".into(),
        )
        .into());
    };
    let mv = root
        .parse_uci(best)
        .map_err(|e| EngineError::IllegalMove(format!("the engine's move was refused: {e}")))?;
    Ok((root.uci(mv), root.san(mv)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_allowances() {
        let empty = finite_limits(GoLimits::default()).unwrap();
        assert_eq!(empty.movetime, Some(DEFAULT_MOVETIME_MS));
        assert!(finite_limits(GoLimits {
            infinite: true,
            ..GoLimits::default()
        })
        .is_err());
        let depth = GoLimits {
            depth: Some(3),
            ..GoLimits::default()
        };
        assert_eq!(finite_limits(depth.clone()).unwrap(), depth);
        let config: EngineConfig = serde_json::from_value(serde_json::json!({
            "tcp": "127.0.0.1:1", "search_timeout_ms": 1000
        }))
        .unwrap();
        let movetime = GoLimits {
            movetime: Some(100),
            ..GoLimits::default()
        };
        assert_eq!(
            allowance(&config, &movetime, true, None),
            Some(Duration::from_millis(1100))
        );
        assert_eq!(
            allowance(&config, &depth, true, None),
            Some(Duration::from_millis(1000))
        );
        assert_eq!(
            allowance(&config, &depth, true, Some(Duration::from_millis(5))),
            Some(Duration::from_millis(5))
        );
        let infinite = GoLimits {
            infinite: true,
            ..GoLimits::default()
        };
        assert_eq!(allowance(&config, &infinite, true, None), None);
    }
}
