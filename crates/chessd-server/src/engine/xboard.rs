//! XBoard's (CECP's) side of an engine session, behind the same
//! `Engine` handle as UCI.
//!
//! - Handshake: `xboard`, `protover 2`, then `feature …` lines, each feature answered
//!   `accepted`/`rejected` ([`accepts_feature`]), until `done=1`. After `done=0` it waits up to
//!   the handshake timeout for `done=1`; with no feature at all after 2 seconds the engine is
//!   taken for a protocol-1 engine, but only if it answered `protover` with an XBoard error
//!   (`Error (unknown command): protover`), so that a program that is no XBoard engine fails
//!   the handshake. Then the configured options (`Hash` → `memory`, `Threads` → `cores`,
//!   others → `option NAME=VALUE`), `easy` (no pondering), and `ping` → `pong` when the engine
//!   has `ping`.
//! - Searches: the engine is kept in `force` mode with its board at the requested position:
//!   `new` (then `variant fischerandom` for Chess960, `setboard FEN` away from the start) and
//!   every move, or, when the request continues the engine's board (its own `move` answers
//!   are on it too), only the new moves; moves as `usermove X` or bare, in SAN when it asked
//!   for SAN. Limits are [`limit_commands`]; then `post` and `go`, or `post` and `analyze`
//!   for infinite searches. The engine's `move X` ends the search (in UCI notation), as do
//!   `resign` and a result line (no move). `?` makes it move now; `exit` ends an analysis,
//!   whose best move is the first move of its last PV.
//! - Readiness: `ping N` → `pong N`; an engine without `ping` is taken as ready once the lines
//!   are written. No MultiPV: none is declared.
//! - Signals are never sent; `quit` ends the engine as for UCI.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use chessd_core::{Color, FenMode, Move, Position};
use chessd_protocol::{
    uci::{BestMove, EngineLine, GuiCommand, OptionDecl, OptionType, StartPosition},
    xboard::{
        accepts_feature, feature_answer, format_move, is_error_line, is_post_line, is_result_line,
        limit_commands, option_command, parse_features, parse_move, parse_option_feature,
        parse_post, LimitCommands, HASH, THREADS,
    },
};
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

/// How long an engine that sends no feature at all is given (protocol version 1's rule).
const V1_WAIT: Duration = Duration::from_secs(2);

/// Whether a raw (UCI) line has an XBoard form: `isready` (`ping`), `ucinewgame`, `stop` and
/// `setoption`; anything else is refused with `command_refused`.
pub(crate) fn check_raw(line: &str) -> Result<(), EngineError> {
    match GuiCommand::parse(line) {
        GuiCommand::IsReady
        | GuiCommand::UciNewGame
        | GuiCommand::Stop
        | GuiCommand::SetOption { .. } => Ok(()),
        _ => Err(EngineError::CommandRefused(
            "this engine speaks XBoard: only isready, ucinewgame, stop and setoption can be sent \
             to it raw (use the bestmove, play and analysis routes to search)"
                .into(),
        )),
    }
}

/// Runs the XBoard handshake; the engine's identity and its dialect.
pub(crate) async fn handshake(
    config: &EngineConfig,
    io: &mut HandshakeIo<'_>,
) -> Result<(Arc<Identity>, Box<dyn Dialect>), EngineError> {
    let name = io.name;
    io.write("xboard").await?;
    io.write("protover 2").await?;
    let v1_wait = V1_WAIT.min(io.limit);
    let mut deadline = Instant::now() + v1_wait;
    let mut declared: Vec<(String, String)> = Vec::new();
    let mut done: Option<bool> = None;
    let mut answered_protover = false;
    while let Some(line) = io.line_until(deadline, "feature done=1").await? {
        let line = line.trim();
        if let Some(args) = line.strip_prefix("feature") {
            for (key, value) in parse_features(args) {
                io.write(&feature_answer(&key, &value)).await?;
                if key == "done" {
                    done = Some(value == "1");
                    if value != "1" {
                        deadline = Instant::now() + io.limit;
                    }
                } else {
                    declared.push((key, value));
                }
            }
            if done == Some(true) {
                break;
            }
        } else if is_error_line(line) && line.contains("protover") {
            answered_protover = true;
        }
    }
    if done == Some(false) {
        return Err(io
            .failed(format!(
                "engine {name} sent feature done=0 but not done=1 within {:?}",
                io.limit
            ))
            .await);
    }
    if declared.is_empty() && done.is_none() && !answered_protover {
        return Err(io
            .failed(format!(
                "engine {name} sent no XBoard feature within {v1_wait:?} and did not answer \
                 protover as an XBoard engine does (is it an XBoard engine? protocol = \"xboard\" \
                 is configured)"
            ))
            .await);
    }
    let identity = identity(&declared);
    let features = Features::new(&identity.features);
    for (option, value) in &config.options {
        let value = value.to_string();
        let decl = identity.option(option).ok_or_else(|| {
            EngineError::HandshakeFailed(format!(
                "engine {name} has no option {option} (configured in engines.{name}.options)"
            ))
        })?;
        decl.check_value(Some(&value))
            .map_err(|e| EngineError::HandshakeFailed(format!("engine {name}: {e}")))?;
        io.write(&option_command(decl, Some(&value))).await?;
    }
    io.write("easy").await?;
    if features.ping {
        io.write("ping 1").await?;
        let deadline = Instant::now() + io.limit;
        while io.line_by(deadline, "pong 1").await?.trim() != "pong 1" {}
    }
    let identity = Arc::new(identity);
    let dialect = XBoardDialect {
        identity: identity.clone(),
        features,
        board: None,
        search: None,
        pings: 1,
        awaited: None,
    };
    Ok((identity, Box::new(dialect)))
}

/// The identity of an engine that declared `declared`: its name (`myname`), `Hash` for
/// `memory`, `Threads` for `smp`, its `option` features (never a `MultiPV`, which chessd
/// cannot use over XBoard), and every feature as sent.
fn identity(declared: &[(String, String)]) -> Identity {
    let mut features = BTreeMap::new();
    let mut options: Vec<OptionDecl> = Vec::new();
    let spin = |name: &str| OptionDecl {
        name: name.to_string(),
        kind: OptionType::Spin,
        default: None,
        min: Some(1),
        max: None,
        vars: Vec::new(),
    };
    for (key, value) in declared {
        match key.as_str() {
            "option" => {
                if let Some(decl) = parse_option_feature(value) {
                    let taken = options
                        .iter()
                        .any(|o| o.name.eq_ignore_ascii_case(&decl.name));
                    if !taken && !decl.name.eq_ignore_ascii_case("MultiPV") {
                        options.push(decl);
                    }
                }
            }
            "memory" if value == "1" => options.insert(0, spin(HASH)),
            "smp" if value == "1" => options.push(spin(THREADS)),
            _ => {}
        }
        if key != "option" && accepts_feature(key, value) {
            features.insert(key.clone(), value.clone());
        }
    }
    Identity {
        protocol: EngineProtocol::Xboard,
        name: features.get("myname").cloned(),
        author: None,
        options,
        features,
    }
}

/// The features the session acts on.
#[derive(Clone, Debug)]
struct Features {
    ping: bool,
    setboard: bool,
    usermove: bool,
    san: bool,
    analyze: bool,
    nps: bool,
    fischerandom: bool,
}

impl Features {
    fn new(map: &BTreeMap<String, String>) -> Features {
        let flag = |key: &str, default: bool| map.get(key).map_or(default, |v| v == "1");
        Features {
            ping: flag("ping", false),
            setboard: flag("setboard", false),
            usermove: flag("usermove", false),
            san: flag("san", false),
            analyze: flag("analyze", true),
            nps: flag("nps", false),
            fischerandom: map
                .get("variants")
                .is_some_and(|v| v.split(',').any(|v| v.trim() == "fischerandom")),
        }
    }
}

/// The engine's board as chessd last set it (and the engine's own moves on it).
#[derive(Clone, Debug)]
struct Board {
    start: StartPosition,
    chess960: bool,
    moves: Vec<String>,
    position: Position,
    /// A depth limit (`sd`) is in force; only `new` lifts it.
    depth_set: bool,
    /// Node counting (`nps`) is in force; only `new` lifts it.
    nps_set: bool,
}

/// What the engine is searching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Active {
    /// `go`: it answers with `move`.
    Go,
    /// `analyze`: until `exit`.
    Analyze,
}

/// A requested position, replayed.
struct Target {
    start: Position,
    moves: Vec<Move>,
    end: Position,
}

struct XBoardDialect {
    identity: Arc<Identity>,
    features: Features,
    /// `None`: unknown (a fresh engine, or out of step), set up from scratch next time.
    board: Option<Board>,
    search: Option<Active>,
    pings: u32,
    awaited: Option<String>,
}

fn unsupported(message: impl Into<String>) -> EngineError {
    EngineError::Unsupported(message.into())
}

impl XBoardDialect {
    fn name(&self) -> &str {
        self.identity.name.as_deref().unwrap_or("engine")
    }

    /// Replays `spec` through the rules.
    fn target(&self, spec: &PositionSpec) -> Result<Target, EngineError> {
        let start = match &spec.start {
            StartPosition::StartPos => Position::startpos(),
            StartPosition::Fen(fen) => Position::from_fen(fen, FenMode::Lenient)
                .map_err(|e| unsupported(format!("bad FEN for the engine: {e}")))?,
        };
        let mut end = start;
        let mut moves = Vec::with_capacity(spec.moves.len());
        for text in &spec.moves {
            let mv = end
                .parse_uci(text)
                .map_err(|e| unsupported(format!("move {text} cannot be sent: {e}")))?;
            end.play(mv)
                .map_err(|e| unsupported(format!("move {text} cannot be sent: {e}")))?;
            moves.push(mv);
        }
        Ok(Target { start, moves, end })
    }

    /// The lines that bring the engine's board to `spec` (only the new moves when `spec`
    /// continues it and `limits` need no `new` to lift an `sd` or `nps`), in `force` mode.
    fn setup(
        &mut self,
        spec: &PositionSpec,
        target: Target,
        limits: Option<&LimitCommands>,
    ) -> Result<Vec<String>, EngineError> {
        let reuse = self.board.as_ref().filter(|b| {
            b.start == spec.start
                && b.chess960 == spec.chess960
                && spec.moves.starts_with(&b.moves)
                && !limits
                    .is_some_and(|l| (b.depth_set && !l.sets_depth) || (b.nps_set && !l.sets_nps))
        });
        let mut lines = vec![];
        let (mut pos, from, depth_set, nps_set) = match reuse {
            Some(b) => {
                lines.push("force".to_string());
                (b.position, b.moves.len(), b.depth_set, b.nps_set)
            }
            None => {
                if spec.chess960 && !self.features.fischerandom {
                    return Err(unsupported(format!(
                        "{} cannot play Chess960 (its variants feature does not list fischerandom)",
                        self.name()
                    )));
                }
                let setboard = spec.chess960 || spec.start != StartPosition::StartPos;
                if setboard && !self.features.setboard {
                    return Err(unsupported(format!(
                        "{} cannot start from a FEN (it does not declare setboard)",
                        self.name()
                    )));
                }
                lines.push("new".to_string());
                if spec.chess960 {
                    lines.push("variant fischerandom".to_string());
                }
                lines.push("force".to_string());
                if let StartPosition::Fen(fen) = &spec.start {
                    lines.push(format!("setboard {fen}"));
                } else if setboard {
                    lines.push(format!("setboard {}", target.start.fen()));
                }
                (target.start, 0, false, false)
            }
        };
        for &mv in &target.moves[from..] {
            let text = format_move(&pos, mv, self.features.san, spec.chess960);
            lines.push(if self.features.usermove {
                format!("usermove {text}")
            } else {
                text
            });
            pos.play_unchecked(mv);
        }
        self.board = Some(Board {
            start: spec.start.clone(),
            chess960: spec.chess960,
            moves: spec.moves.clone(),
            position: target.end,
            depth_set: depth_set || limits.is_some_and(|l| l.sets_depth),
            nps_set: nps_set || limits.is_some_and(|l| l.sets_nps),
        });
        Ok(lines)
    }

    /// The position thinking output is read from.
    fn root(&self) -> Position {
        self.board
            .as_ref()
            .map_or_else(Position::startpos, |b| b.position)
    }

    /// The engine's `move TEXT`: played on its board, in UCI notation (as sent when it is not
    /// legal there, which the game layer then refuses).
    fn engine_move(&mut self, text: &str) -> String {
        let played = self.board.as_mut().and_then(|b| {
            let mv = parse_move(&b.position, text)?;
            let uci = b.position.uci(mv);
            b.position.play(mv).ok()?;
            b.moves.push(uci.clone());
            Some(uci)
        });
        match played {
            Some(uci) => uci,
            None => {
                self.board = None;
                text.to_string()
            }
        }
    }
}

impl Dialect for XBoardDialect {
    fn search(&mut self, search: &SearchRequest) -> Result<SearchPlan, EngineError> {
        let limits = &search.limits;
        let analyze = limits.infinite || limits.ponder;
        if analyze && !self.features.analyze {
            return Err(unsupported(format!(
                "{} cannot analyse (it declares analyze=0)",
                self.name()
            )));
        }
        let target = self.target(&search.position)?;
        let white = target.end.turn() == Color::White;
        let commands = if analyze {
            None
        } else {
            Some(
                limit_commands(limits, white, self.features.nps, search.timeout)
                    .map_err(unsupported)?,
            )
        };
        let mut lines = self.setup(&search.position, target, commands.as_ref())?;
        let move_now_after = commands.as_ref().and_then(|c| c.move_now_after);
        if let Some(commands) = commands {
            lines.extend(commands.lines);
        }
        lines.push("post".into());
        lines.push(if analyze { "analyze" } else { "go" }.into());
        self.search = Some(if analyze { Active::Analyze } else { Active::Go });
        Ok(SearchPlan {
            lines,
            infinite: analyze,
            move_now_after,
        })
    }

    fn sync(&mut self, position: Option<&PositionSpec>) -> Result<SyncPlan, EngineError> {
        let mut lines = match position {
            Some(spec) => {
                let target = self.target(spec)?;
                self.setup(spec, target, None)?
            }
            None => Vec::new(),
        };
        if !self.features.ping {
            return Ok(SyncPlan {
                lines,
                awaits_answer: false,
            });
        }
        self.pings += 1;
        lines.push(format!("ping {}", self.pings));
        self.awaited = Some(self.pings.to_string());
        Ok(SyncPlan {
            lines,
            awaits_answer: true,
        })
    }

    fn stop(&mut self, _infinite: bool) -> StopPlan {
        if self.search == Some(Active::Analyze) {
            self.search = None;
            return StopPlan {
                lines: vec!["exit".into()],
                ends_search: true,
            };
        }
        StopPlan {
            lines: vec!["?".into()],
            ends_search: false,
        }
    }

    fn move_now(&mut self) -> Vec<String> {
        vec!["?".into()]
    }

    fn line(&mut self, raw: &str) -> (EngineLine, Signal) {
        let line = raw.trim();
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        let plain = || (EngineLine::Raw(line.to_string()), Signal::None);
        match first {
            "move" => {
                let uci = self.engine_move(words.next().unwrap_or(""));
                let best = BestMove {
                    best: Some(uci),
                    ponder: None,
                };
                let signal = if self.search == Some(Active::Go) {
                    self.search = None;
                    Signal::BestMove(best.clone())
                } else {
                    // A move nobody asked for: the board is out of step.
                    self.board = None;
                    Signal::None
                };
                (EngineLine::BestMove(best), signal)
            }
            "resign" => self.no_move(line),
            _ if is_result_line(line) => self.no_move(line),
            "pong" => {
                let answer = words.next();
                if answer.is_some() && answer == self.awaited.as_deref() {
                    self.awaited = None;
                    return (EngineLine::Raw(line.to_string()), Signal::Ready);
                }
                plain()
            }
            _ if is_post_line(line) => match parse_post(line, &self.root()) {
                Some(info) => (EngineLine::Info(Box::new(info)), Signal::None),
                None => plain(),
            },
            _ => {
                if line.starts_with("Illegal move") {
                    // It refused a move chessd sent: set its board up again next time.
                    self.board = None;
                }
                plain()
            }
        }
    }

    fn raw(&mut self, line: &str) -> RawPlan {
        match GuiCommand::parse(line) {
            GuiCommand::IsReady if self.features.ping => {
                self.pings += 1;
                RawPlan::Lines(vec![format!("ping {}", self.pings)])
            }
            GuiCommand::UciNewGame => {
                self.board = None;
                RawPlan::Lines(Vec::new())
            }
            GuiCommand::Stop => RawPlan::Stop,
            GuiCommand::SetOption { name, value } => match self.identity.option(&name) {
                Some(decl) => RawPlan::Lines(vec![option_command(decl, value.as_deref())]),
                None => RawPlan::Lines(Vec::new()),
            },
            _ => RawPlan::Lines(Vec::new()),
        }
    }
}

impl XBoardDialect {
    /// `resign` or a result line: a `go` search ends without a move.
    fn no_move(&mut self, line: &str) -> (EngineLine, Signal) {
        let signal = if self.search == Some(Active::Go) {
            self.search = None;
            Signal::BestMove(BestMove {
                best: None,
                ponder: None,
            })
        } else {
            Signal::None
        };
        (EngineLine::Raw(line.to_string()), signal)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use chessd_protocol::uci::{GoLimits, ScoreValue};

    use crate::engine::handle::{
        tests::{collecting_sink, script_engine},
        Engine, EngineEvent,
    };

    /// A shell-script XBoard engine: `body` runs for each line `$l` after it is echoed back as
    /// `# got $l` (a comment line) and added to `$hist`.
    fn xboard_engine(body: &str) -> EngineConfig {
        let mut config = script_engine(&format!(
            r##"echo "# got $l"; hist="$hist|$l"
            case "$l" in
              {body}
              quit) exit 0;;
            esac"##
        ));
        config.protocol = EngineProtocol::Xboard;
        config
    }

    /// A modern engine: usermove, SAN, ping; thinks on `go` until `?`.
    fn modern() -> EngineConfig {
        xboard_engine(
            r##""protover 2") echo 'feature ping=1 setboard=1 usermove=1 san=1 sigint=1 myname="Fake XB"'
                  echo 'feature variants="normal,fischerandom" memory=1 option="Style -combo Solid /// *Normal"'
                  echo 'feature done=1';;
              ping*) echo "pong ${l#ping }";;
              sd*) depth=1;;
              go) echo "# history $hist"; echo " 3 25 12 1234 Nf3 d5 <d4> !"; echo " 4 100003 20 2345 Nf3"
                  if [ -n "$depth" ]; then depth=; echo "move Kd2"; fi;;
              "?") echo "move Nf3";;
              analyze) echo " 5 -31 30 5000 e5 Nf3"; echo " 6 -29 60 9000 1... c5 2. Nf3";;
              resign-please) echo resign;;"##,
        )
    }

    fn request(moves: &[&str], limits: GoLimits) -> SearchRequest {
        SearchRequest {
            position: PositionSpec {
                start: StartPosition::StartPos,
                moves: moves.iter().map(|m| m.to_string()).collect(),
                chess960: false,
            },
            limits,
            multipv: None,
            timeout: Some(Duration::from_millis(3000)),
        }
    }

    fn movetime(ms: u64) -> GoLimits {
        GoLimits {
            movetime: Some(ms),
            ..GoLimits::default()
        }
    }

    /// The lines the fake engine says it got, from event `from` on.
    fn got(seen: &Mutex<Vec<EngineEvent>>, from: usize) -> Vec<String> {
        seen.lock().unwrap()[from..]
            .iter()
            .filter_map(|e| match e {
                EngineEvent::Line { raw, .. } => raw.strip_prefix("# got ").map(str::to_string),
                EngineEvent::Died(_) => None,
            })
            .collect()
    }

    #[tokio::test]
    async fn features_are_negotiated_and_a_search_moves_now_in_uci() {
        let (sink, seen) = collecting_sink();
        let mut config = modern();
        config.options.insert(
            "Hash".into(),
            crate::config::toml_value::OptionValue::Int(32),
        );
        let engine = Engine::start("xb", &config, sink).await.unwrap();
        let id = engine.identity();
        assert_eq!(id.protocol, EngineProtocol::Xboard);
        assert_eq!(id.name.as_deref(), Some("Fake XB"));
        assert!(id.supports_chess960());
        assert!(id.option("MultiPV").is_none());
        let names: Vec<&str> = id.options.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["Hash", "Style"]);
        assert_eq!(id.features.get("usermove").map(String::as_str), Some("1"));
        assert!(!id.features.contains_key("sigint"), "rejected");

        // A 300 ms search: `st 1` and `?` at 300 ms, which the fake answers with a SAN move.
        let t = std::time::Instant::now();
        let result = engine
            .search(request(&["e2e4", "e7e5"], movetime(300)))
            .await
            .unwrap();
        assert!(
            t.elapsed() >= Duration::from_millis(300),
            "{:?}",
            t.elapsed()
        );
        assert!(
            t.elapsed() < Duration::from_millis(900),
            "{:?}",
            t.elapsed()
        );
        assert_eq!(result.best.as_deref(), Some("g1f3"));
        let info = result.info.unwrap();
        assert_eq!(info.score.unwrap().value, ScoreValue::Mate(3));
        assert_eq!(
            (info.depth, info.time, info.nodes),
            (Some(4), Some(200), Some(2345))
        );
        assert_eq!(info.pv, ["g1f3"]);
        let events = seen.lock().unwrap().clone();
        let history = events
            .iter()
            .find_map(|e| match e {
                EngineEvent::Line { raw, .. } => raw.strip_prefix("# history ").map(str::to_string),
                EngineEvent::Died(_) => None,
            })
            .unwrap();
        for answer in [
            "|accepted ping|",
            "|accepted usermove|",
            "|rejected sigint|",
            "|accepted done|",
            "|memory 32|",
            "|easy|",
            "|ping 1|",
        ] {
            assert!(history.contains(answer), "{answer} not in {history}");
        }
        assert!(events.iter().any(|e| matches!(
            e,
            EngineEvent::Line { parsed: EngineLine::Info(i), raw }
                if i.pv == ["g1f3", "d7d5", "d2d4"] && raw.contains("<d4>")
        )));
        assert!(events.iter().any(|e| matches!(
            e,
            EngineEvent::Line { parsed: EngineLine::BestMove(b), .. } if b.best.as_deref() == Some("g1f3")
        )));
        assert_eq!(
            got(&seen, 0),
            [
                "new",
                "force",
                "usermove e4",
                "usermove e5",
                "st 1",
                "post",
                "go",
                "?"
            ]
        );

        // The game goes on: only the new moves (the engine's own Nf3 is on its board).
        let from = seen.lock().unwrap().len();
        let result = engine
            .search(request(&["e2e4", "e7e5", "g1f3", "b8c6"], movetime(100)))
            .await
            .unwrap();
        // The fake's Nf3 is not legal now: passed on as sent (the game layer refuses it), and
        // the engine's board is set up again next time.
        assert_eq!(result.best.as_deref(), Some("Nf3"));
        assert_eq!(
            got(&seen, from)[..5],
            ["force", "usermove Nc6", "st 1", "post", "go"]
        );
        // Another game: set up again; a depth limit, then none (only `new` lifts `sd`).
        let from = seen.lock().unwrap().len();
        let depth = GoLimits {
            depth: Some(3),
            ..GoLimits::default()
        };
        let mut fen = request(&[], depth);
        fen.position.start = StartPosition::Fen("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1".into());
        engine.search(fen.clone()).await.unwrap();
        fen.limits = movetime(100);
        engine.search(fen).await.unwrap();
        let lines = got(&seen, from);
        assert_eq!(
            lines[..7],
            [
                "new",
                "force",
                "setboard 4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
                "st 3",
                "sd 3",
                "post",
                "go"
            ]
        );
        assert_eq!(lines.iter().filter(|l| *l == "new").count(), 2, "{lines:?}");

        // ping/pong.
        engine.sync(None).await.unwrap();
        assert!(!engine.is_closed());
    }

    #[tokio::test]
    async fn analysis_streams_posts_and_exit_ends_it_with_its_best_move() {
        let (sink, seen) = collecting_sink();
        let engine = Engine::start("xb", &modern(), sink).await.unwrap();
        let mut analysis = request(
            &["e2e4"],
            GoLimits {
                infinite: true,
                ..GoLimits::default()
            },
        );
        analysis.timeout = None;
        let running = tokio::spawn({
            let engine = engine.clone();
            async move { engine.search(analysis).await }
        });
        tokio::time::sleep(Duration::from_millis(200)).await;
        let stopped = engine.stop().await.unwrap().unwrap();
        assert_eq!(stopped.best.as_deref(), Some("c7c5"));
        assert_eq!(stopped.info.as_ref().unwrap().pv, ["c7c5", "g1f3"]);
        assert_eq!(
            running.await.unwrap().unwrap().best.as_deref(),
            Some("c7c5")
        );
        engine.sync(None).await.unwrap();
        let lines = got(&seen, 0);
        assert_eq!(
            lines[..6],
            ["new", "force", "usermove e4", "post", "analyze", "exit"]
        );
        // A search queued behind an analysis ends it first.
        let mut analysis = request(
            &[],
            GoLimits {
                infinite: true,
                ..GoLimits::default()
            },
        );
        analysis.timeout = None;
        let first = engine.search(analysis);
        let second = engine.search(request(&[], movetime(50)));
        let (a, b) = tokio::join!(first, second);
        // The analysis of the start position ends (the fake's PVs are not legal there).
        assert_eq!(a.unwrap().best, None);
        assert_eq!(b.unwrap().best.as_deref(), Some("g1f3"));
    }

    #[tokio::test]
    async fn what_xboard_cannot_do_is_refused_and_the_session_goes_on() {
        let (sink, seen) = collecting_sink();
        let config = xboard_engine(
            r##""protover 2") echo 'feature ping=1 setboard=1 myname="Plain" variants="normal"'; echo 'feature done=1';;
              ping*) echo "pong ${l#ping }";;
              go) echo "move e2e4";;"##,
        );
        let engine = Engine::start("plain", &config, sink).await.unwrap();
        assert!(!engine.identity().supports_chess960());
        for limits in [
            GoLimits {
                nodes: Some(1000),
                ..GoLimits::default()
            },
            GoLimits {
                mate: Some(2),
                ..GoLimits::default()
            },
        ] {
            let err = engine.search(request(&[], limits)).await.unwrap_err();
            assert_eq!(err.code(), "engine_unsupported", "{err}");
        }
        let mut frc = request(&[], movetime(100));
        frc.position.start = StartPosition::Fen(
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9".into(),
        );
        frc.position.chess960 = true;
        let err = engine.search(frc).await.unwrap_err();
        assert_eq!(err.code(), "engine_unsupported");
        assert!(err.to_string().contains("fischerandom"), "{err}");
        // Raw lines: only those with an XBoard form.
        let err = engine.send("go movetime 100".into()).await.unwrap_err();
        assert_eq!(err.code(), "command_refused");
        assert_eq!(
            engine.cast("ponderhit".into()).unwrap_err().code(),
            "command_refused"
        );
        engine.send("isready".into()).await.unwrap();
        engine.send("ucinewgame".into()).await.unwrap();
        // Coordinate moves without usermove; the session still plays.
        let result = engine.search(request(&[], movetime(1000))).await.unwrap();
        assert_eq!(result.best.as_deref(), Some("e2e4"));
        engine.sync(None).await.unwrap();
        let lines = got(&seen, 0);
        assert!(lines.contains(&"ping 2".to_string()), "{lines:?}");
        assert!(seen.lock().unwrap().iter().any(|e| matches!(
            e, EngineEvent::Line { raw, .. } if raw == "pong 2"
        )));
    }

    #[tokio::test]
    async fn done_0_waits_for_done_1_up_to_the_handshake_timeout() {
        let (sink, _) = collecting_sink();
        let config = xboard_engine(
            r##""protover 2") echo 'feature done=0'; sleep 0.3; echo 'feature ping=1 myname="Slow"'; echo 'feature done=1';;
              ping*) echo "pong ${l#ping }";;"##,
        );
        let engine = Engine::start("slow", &config, sink.clone()).await.unwrap();
        assert_eq!(engine.identity().name.as_deref(), Some("Slow"));
        let mut config = xboard_engine(r##""protover 2") echo 'feature done=0';;"##);
        config.handshake_timeout_ms = 300;
        let t = std::time::Instant::now();
        let err = Engine::start("stuck", &config, sink).await.unwrap_err();
        assert_eq!(err.code(), "engine_handshake_failed");
        assert!(err.to_string().contains("done=0"), "{err}");
        assert!(t.elapsed() >= Duration::from_millis(300));
    }

    #[tokio::test]
    async fn protocol_1_engines_are_told_from_other_programs() {
        let (sink, _) = collecting_sink();
        let mut config = xboard_engine(
            r##"go) echo "move e2e4";;
              *) echo "Error (unknown command): $l";;"##,
        );
        config.handshake_timeout_ms = 400;
        let engine = Engine::start("old", &config, sink.clone()).await.unwrap();
        assert!(engine.identity().features.is_empty());
        engine.sync(None).await.unwrap();
        let result = engine.search(request(&[], movetime(1000))).await.unwrap();
        assert_eq!(result.best.as_deref(), Some("e2e4"));

        let mut config = xboard_engine(
            r##"*) echo "Unknown command: '$l'. Type help for more information.";;"##,
        );
        config.handshake_timeout_ms = 400;
        let err = Engine::start("stockfish", &config, sink).await.unwrap_err();
        let message = err.to_string();
        assert_eq!(err.code(), "engine_handshake_failed");
        assert!(message.contains("no XBoard feature"), "{message}");
        assert!(message.contains("Unknown command: 'xboard'"), "{message}");
    }

    #[tokio::test]
    async fn resigning_dying_and_silent_engines() {
        let (sink, seen) = collecting_sink();
        let config = xboard_engine(
            r##""protover 2") echo 'feature ping=1 setboard=1 done=1';;
              ping*) echo "pong ${l#ping }";;
              e2e4) exit 3;;
              go) echo resign;;"##,
        );
        let engine = Engine::start("xb", &config, sink).await.unwrap();
        let depth = GoLimits {
            depth: Some(2),
            ..GoLimits::default()
        };
        let result = engine.search(request(&[], depth)).await.unwrap();
        assert_eq!(result.best, None);
        let t = std::time::Instant::now();
        let err = engine
            .search(request(&["e2e4"], movetime(5000)))
            .await
            .unwrap_err();
        assert_eq!(err.code(), "engine_died");
        assert!(t.elapsed() < Duration::from_secs(1));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(matches!(
            seen.lock().unwrap().last(),
            Some(EngineEvent::Died(e)) if e.code() == "engine_died"
        ));
        assert!(engine.is_closed());
    }
}
