//! What an engine session is asked and answers, whatever the protocol: the position and limits
//! of a search, its result, the engine's identity, and the events a session reports. Shared by
//! the engine handle (`engine.rs`), the session and its dialects.

use chessd_protocol::uci::{EngineLine, GoLimits, GuiCommand, Info, OptionDecl, StartPosition};
use std::{collections::BTreeMap, sync::Arc, time::Duration};

use crate::{config::EngineProtocol, engine::error::EngineError};

/// What a session reports as it runs.
#[derive(Clone, Debug)]
pub enum EngineEvent {
    /// A line the engine printed (after the handshake), raw and parsed.
    Line {
        /// The line as received.
        raw: String,
        /// The line, typed.
        parsed: EngineLine,
    },
    /// The session ended on its own: the engine died, closed the connection or stopped
    /// answering. No more events follow.
    Died(EngineError),
}

/// Receives a session's events (called on the session's task; keep it cheap).
pub type EventSink = Arc<dyn Fn(EngineEvent) + Send + Sync>;

/// What the engine said about itself in the handshake.
#[derive(Clone, Debug, Default)]
pub struct Identity {
    /// The protocol it speaks.
    pub protocol: EngineProtocol,
    /// `id name` (XBoard: `feature myname`).
    pub name: Option<String>,
    /// `id author` (XBoard engines do not say).
    pub author: Option<String>,
    /// The declared options, in order. For XBoard: `Hash` (its `memory` feature), `Threads`
    /// (`smp`) and its `feature option=…` declarations, as UCI options of the same types.
    pub options: Vec<OptionDecl>,
    /// XBoard: the features it declared (`ping`, `setboard`, `variants`, …), as sent; empty
    /// for UCI.
    pub features: BTreeMap<String, String>,
}

impl Identity {
    /// The declared option called `name` (UCI option names are case-insensitive).
    pub fn option(&self, name: &str) -> Option<&OptionDecl> {
        self.options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// Whether the engine can play Chess960 (UCI: it declares `UCI_Chess960`; XBoard: its
    /// `variants` feature lists `fischerandom`); games from other starts must not be sent to
    /// an engine that cannot, which may die on their FEN.
    pub fn supports_chess960(&self) -> bool {
        match self.protocol {
            EngineProtocol::Uci => self.option("UCI_Chess960").is_some(),
            EngineProtocol::Xboard => self
                .features
                .get("variants")
                .is_some_and(|v| v.split(',').any(|v| v.trim() == "fischerandom")),
        }
    }
}

/// A position to search: a start and the moves from there (UCI text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionSpec {
    /// Where the moves start.
    pub start: StartPosition,
    /// The moves.
    pub moves: Vec<String>,
    /// Whether the game is Chess960 (sets `UCI_Chess960` when the engine has it; XBoard:
    /// `variant fischerandom`).
    pub chess960: bool,
}

impl PositionSpec {
    /// The UCI `position` command.
    pub(crate) fn command(&self) -> GuiCommand {
        GuiCommand::Position {
            start: self.start.clone(),
            moves: self.moves.clone(),
        }
    }

    /// Whether `self` is `earlier` with more moves (the same game, further on).
    pub(crate) fn continues(&self, earlier: &PositionSpec) -> bool {
        self.start == earlier.start && self.moves.starts_with(&earlier.moves)
    }
}

/// One search.
#[derive(Clone, Debug)]
pub struct SearchRequest {
    /// The position.
    pub position: PositionSpec,
    /// The `go` limits.
    pub limits: GoLimits,
    /// Lines to search (`MultiPV`), when the engine has that option; `None` = 1.
    pub multipv: Option<u32>,
    /// The whole time allowed from the `go` to the `bestmove`; `None` = no deadline (infinite
    /// analysis, stopped on request).
    pub timeout: Option<Duration>,
}

/// A finished search.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    /// The best move (UCI text), `None` for `bestmove (none)` (XBoard: `resign` or a result).
    pub best: Option<String>,
    /// The move the engine expects in reply.
    pub ponder: Option<String>,
    /// The last `info` of the main line (line 1) that had a score or a PV.
    pub info: Option<Info>,
    /// The last `info` of every line (MultiPV), in line order.
    pub lines: Vec<Info>,
    /// From `go` to `bestmove`.
    pub elapsed: Duration,
}

/// `engine_died` with a message.
pub fn died(message: impl Into<String>) -> EngineError {
    EngineError::Died(message.into())
}
