//! UCI's side of an engine session: the handshake (`uci` → `id`/`option` lines → `uciok`, the
//! configured `setoption`s checked against the declared options, `isready` → `readyok`) and
//! the lines of each request: `setoption` for `MultiPV` and `UCI_Chess960` when they change,
//! `ucinewgame` for a new game, `position … moves …` (the whole history) and `go`; `stop`;
//! `isready` answered by `readyok`.

use std::sync::Arc;

use chessd_protocol::uci::{EngineLine, GuiCommand, IdLine};
use tokio::time::Instant;

use crate::{
    config::{EngineConfig, EngineProtocol},
    engine::{
        error::EngineError,
        handshake::HandshakeIo,
        search::{Identity, PositionSpec, SearchRequest},
        session::{Dialect, RawPlan, SearchPlan, Signal, StopPlan, SyncPlan},
    },
};

/// Runs the UCI handshake; the engine's identity and its dialect.
pub(crate) async fn handshake(
    config: &EngineConfig,
    io: &mut HandshakeIo<'_>,
) -> Result<(Arc<Identity>, Box<dyn Dialect>), EngineError> {
    let name = io.name;
    let failed = |m: String| EngineError::HandshakeFailed(m);
    io.write(&GuiCommand::Uci.to_string()).await?;
    let deadline = Instant::now() + io.limit;
    let mut identity = Identity {
        protocol: EngineProtocol::Uci,
        ..Identity::default()
    };
    loop {
        let line = io.line_by(deadline, "uciok").await?;
        match EngineLine::parse(&line) {
            EngineLine::UciOk => break,
            EngineLine::Id(IdLine::Name(n)) => identity.name = Some(n),
            EngineLine::Id(IdLine::Author(a)) => identity.author = Some(a),
            EngineLine::Option(o) => identity.options.push(o),
            _ => {}
        }
    }
    for (option, value) in &config.options {
        let value = value.to_string();
        let decl = identity.option(option).ok_or_else(|| {
            failed(format!(
                "engine {name} has no option {option} (configured in engines.{name}.options)"
            ))
        })?;
        decl.check_value(Some(&value))
            .map_err(|e| failed(format!("engine {name}: {e}")))?;
        let command = GuiCommand::SetOption {
            name: decl.name.clone(),
            value: Some(value),
        };
        io.write(&command.to_string()).await?;
    }
    io.write(&GuiCommand::IsReady.to_string()).await?;
    let deadline = Instant::now() + io.limit;
    loop {
        let line = io.line_by(deadline, "readyok").await?;
        if EngineLine::parse(&line) == EngineLine::ReadyOk {
            break;
        }
    }
    let identity = Arc::new(identity);
    let dialect = UciDialect {
        identity: identity.clone(),
        last_position: None,
        multipv: 1,
        chess960: false,
    };
    Ok((identity, Box::new(dialect)))
}

/// The UCI session's own state: what the engine was last told.
struct UciDialect {
    identity: Arc<Identity>,
    last_position: Option<PositionSpec>,
    multipv: u32,
    chess960: bool,
}

impl UciDialect {
    /// Options that change per search, `ucinewgame` for a new game, then `position`.
    fn prepare(&mut self, position: &PositionSpec, multipv: Option<u32>, lines: &mut Vec<String>) {
        let multipv = multipv.unwrap_or(1).max(1);
        if multipv != self.multipv && self.identity.option("MultiPV").is_some() {
            self.multipv = multipv;
            let line = GuiCommand::SetOption {
                name: "MultiPV".into(),
                value: Some(multipv.to_string()),
            };
            lines.push(line.to_string());
        }
        if position.chess960 != self.chess960 && self.identity.option("UCI_Chess960").is_some() {
            self.chess960 = position.chess960;
            let line = GuiCommand::SetOption {
                name: "UCI_Chess960".into(),
                value: Some(position.chess960.to_string()),
            };
            lines.push(line.to_string());
        }
        let same_game = self
            .last_position
            .as_ref()
            .is_some_and(|last| position.continues(last));
        if !same_game {
            lines.push(GuiCommand::UciNewGame.to_string());
        }
        lines.push(position.command().to_string());
        self.last_position = Some(position.clone());
    }
}

impl Dialect for UciDialect {
    fn search(&mut self, search: &SearchRequest) -> Result<SearchPlan, EngineError> {
        let mut lines = Vec::new();
        self.prepare(&search.position, search.multipv, &mut lines);
        lines.push(GuiCommand::Go(search.limits.clone()).to_string());
        Ok(SearchPlan {
            lines,
            infinite: search.limits.infinite || search.limits.ponder,
            move_now_after: None,
        })
    }

    fn sync(&mut self, position: Option<&PositionSpec>) -> Result<SyncPlan, EngineError> {
        let mut lines = Vec::new();
        if let Some(position) = position {
            self.prepare(position, None, &mut lines);
        }
        lines.push(GuiCommand::IsReady.to_string());
        Ok(SyncPlan {
            lines,
            awaits_answer: true,
        })
    }

    fn stop(&mut self, _infinite: bool) -> StopPlan {
        StopPlan {
            lines: vec![GuiCommand::Stop.to_string()],
            ends_search: false,
        }
    }

    fn move_now(&mut self) -> Vec<String> {
        Vec::new()
    }

    fn line(&mut self, raw: &str) -> (EngineLine, Signal) {
        let parsed = EngineLine::parse(raw);
        let signal = match &parsed {
            EngineLine::BestMove(best) => Signal::BestMove(best.clone()),
            EngineLine::ReadyOk => Signal::Ready,
            _ => Signal::None,
        };
        (parsed, signal)
    }

    fn raw(&mut self, line: &str) -> RawPlan {
        RawPlan::Lines(vec![line.to_string()])
    }
}
