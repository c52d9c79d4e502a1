//! One engine connection behind one handle, whatever protocol the engine speaks: UCI, or
//! XBoard (CECP) for engines configured with `protocol = "xboard"`. In the style of
//! python-chess's engine module and fishnet.
//!
//! - [`Engine::start`] reaches the engine and runs its protocol's handshake with deadlines
//!   (UCI: `uci` → `uciok`, the configured `setoption`s, `isready` → `readyok`; XBoard:
//!   `xboard`/`protover 2` → `feature … done=1`, the configured options, `ping` → `pong`). A
//!   failed handshake quotes the engine's last output lines and its last stderr lines.
//! - [`Engine::search`] brings the engine to the position and starts the search, and waits for
//!   its end (UCI `bestmove`, XBoard `move`) with a deadline (the search's own time plus
//!   `search_timeout_ms`). Every line the engine prints goes to the [`EventSink`] as it
//!   arrives, typed: XBoard's thinking output becomes the same [`Info`](chessd_protocol::uci::Info) as UCI's, with its PV
//!   in UCI notation.
//! - Searches and readiness checks run one at a time, in order; a new search queued behind an
//!   infinite one (analysis) stops it first. Raw lines ([`Engine::send`], [`Engine::cast`])
//!   and [`Engine::stop`] go out at once.
//! - When the engine exits or closes the connection, every waiting request fails at once with
//!   `engine_died`; when it overruns a deadline it is told to stop, the request fails with
//!   `engine_timeout`, and if it still does not answer it is killed. A request whose caller went
//!   away (its future was dropped) stops the search and leaves the session usable.
//! - Dropping the last [`Engine`] handle sends `quit` and kills the process after a short grace.
//!
//! The session itself (`session.rs`) is protocol-neutral; each protocol is a dialect of it:
//! `uci_dialect.rs`, and `xboard.rs` with the pure parsing and formatting of
//! `xboard_protocol.rs`.

use std::{sync::Arc, time::Duration};

use tokio::sync::{mpsc, oneshot};

use crate::{
    config::{EngineConfig, EngineProtocol},
    engine::{
        error::EngineError,
        handshake::HandshakeIo,
        session::{self, Reply, Request, Timeouts},
        uci, xboard,
    },
    transport::{ChildGuard, Transport},
};

pub use super::search::{
    died, EngineEvent, EventSink, Identity, PositionSpec, SearchRequest, SearchResult,
};

/// A handle on an engine session; cheap to clone. The session ends (`quit`, then kill) when the
/// last handle is dropped.
#[derive(Clone)]
pub struct Engine {
    tx: mpsc::UnboundedSender<Request>,
    identity: Arc<Identity>,
    pid: Option<u32>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("name", &self.identity.name)
            .field("protocol", &self.identity.protocol)
            .field("pid", &self.pid)
            .finish()
    }
}

impl Engine {
    /// Reaches the engine `name` configured by `config` and completes the handshake of its
    /// protocol. Fails with `engine_unreachable` (cannot start or connect in time) or
    /// `engine_handshake_failed` (no `uciok`/`readyok`, XBoard features or `pong` in time, the
    /// connection closed, or a configured option the engine does not declare or whose value
    /// it would refuse); the message quotes the engine's last output and stderr lines.
    pub async fn start(
        name: &str,
        config: &EngineConfig,
        sink: EventSink,
    ) -> Result<Engine, EngineError> {
        let endpoint = config.endpoint.endpoint().map_err(|e| {
            EngineError::Unreachable(format!("engine {name} is misconfigured: {e}"))
        })?;
        let transport = Transport::open(&endpoint, "engine", config.endpoint.connect_timeout())
            .await
            .map_err(|e| EngineError::Unreachable(format!("engine {name}: {e}")))?;
        let Transport {
            mut reader,
            mut writer,
            child,
        } = transport;
        let timeouts = Timeouts {
            handshake: Duration::from_millis(config.handshake_timeout_ms),
        };
        let stderr = child.as_ref().map(|c| c.stderr().clone());
        let mut io = HandshakeIo::new(name, &mut reader, &mut writer, stderr, timeouts.handshake);
        let (identity, dialect) = match config.protocol {
            EngineProtocol::Uci => uci::handshake(config, &mut io).await?,
            EngineProtocol::Xboard => xboard::handshake(config, &mut io).await?,
        };
        let pid = child.as_ref().and_then(ChildGuard::id);
        let tx = session::spawn(
            reader,
            writer,
            child,
            dialect,
            identity.clone(),
            sink,
            timeouts,
        );
        Ok(Engine { tx, identity, pid })
    }

    /// What the engine declared in its handshake.
    pub fn identity(&self) -> &Arc<Identity> {
        &self.identity
    }

    /// The engine's process id, for a local engine.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Whether the session has ended (the engine died or was closed).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    fn request<T>(
        &self,
        make: impl FnOnce(Reply<T>) -> Request,
    ) -> impl std::future::Future<Output = Result<T, EngineError>> {
        let (reply, rx) = oneshot::channel();
        let sent = self.tx.send(make(reply)).is_ok();
        async move {
            if !sent {
                return Err(died("the engine is no longer running"));
            }
            rx.await
                .unwrap_or_else(|_| Err(died("the engine is no longer running")))
        }
    }

    /// Searches a position; see [`SearchRequest`]. Dropping the future before it resolves stops
    /// the search (the session stays usable). An engine that cannot run the search (an XBoard
    /// engine asked for `mate`, `searchmoves`, or a variant it does not list) answers
    /// `engine_unsupported` at once.
    pub fn search(
        &self,
        request: SearchRequest,
    ) -> impl std::future::Future<Output = Result<SearchResult, EngineError>> {
        self.request(|reply| Request::Search(Box::new(request), reply))
    }

    /// Brings the engine to `position` (when given) and waits for its readiness answer (UCI:
    /// `isready`/`readyok`; XBoard: `ping`/`pong`).
    pub fn sync(
        &self,
        position: Option<PositionSpec>,
    ) -> impl std::future::Future<Output = Result<(), EngineError>> {
        self.request(|reply| Request::Ready(position, reply))
    }

    /// Sends one raw line (a UCI command, checked by `crate::engine::policy`) and waits until it
    /// is written. An XBoard engine gets its own form of `isready` (`ping`), `ucinewgame`,
    /// `stop` and `setoption`; other commands are refused with `command_refused`.
    pub fn send(&self, line: String) -> impl std::future::Future<Output = Result<(), EngineError>> {
        let refused = self.check_raw(&line).err();
        let sending = refused
            .is_none()
            .then(|| self.request(|reply| Request::Send(line, Some(reply))));
        async move {
            match (refused, sending) {
                (Some(e), _) => Err(e),
                (None, Some(sending)) => sending.await,
                (None, None) => Err(died("the engine is no longer running")),
            }
        }
    }

    /// Sends one raw line without waiting (fire and forget); fails only if the session has
    /// already ended, or if the engine's protocol has no form of the line.
    pub fn cast(&self, line: String) -> Result<(), EngineError> {
        self.check_raw(&line)?;
        self.tx
            .send(Request::Send(line, None))
            .map_err(|_| died("the engine is no longer running"))
    }

    /// Whether the engine's protocol can carry the raw line.
    fn check_raw(&self, line: &str) -> Result<(), EngineError> {
        match self.identity.protocol {
            EngineProtocol::Uci => Ok(()),
            EngineProtocol::Xboard => xboard::check_raw(line),
        }
    }

    /// Stops the running search (if any) and waits for its result; `None` when nothing was
    /// searching.
    pub fn stop(
        &self,
    ) -> impl std::future::Future<Output = Result<Option<SearchResult>, EngineError>> {
        self.request(Request::Stop)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod tests {
    use std::sync::Mutex;

    use super::*;
    use chessd_protocol::uci::{EngineLine, GoLimits, StartPosition};

    /// A shell-script engine: `body` is a POSIX sh `while read` loop body, `$l` the line.
    pub(crate) fn script_engine(body: &str) -> EngineConfig {
        let script = format!("while read -r l; do {body}\ndone");
        // Through serde, so that keys with defaults need not be listed here.
        serde_json::from_value(serde_json::json!({
            "command": "sh",
            "args": ["-c", script],
            "handshake_timeout_ms": 1000,
            "search_timeout_ms": 1000,
            "max_hash_mb": 16,
            "max_threads": 1,
        }))
        .unwrap()
    }

    /// Answers the handshake; `go` gets `go_answer`.
    fn uci_engine(go_answer: &str) -> EngineConfig {
        script_engine(&format!(
            r#"case "$l" in
              uci) echo "id name Fake"; echo "id author Tests"; echo "option name Hash type spin default 16 min 1 max 128"; echo uciok;;
              isready) echo readyok;;
              go*) {go_answer};;
              quit) exit 0;;
            esac"#
        ))
    }

    /// A sink that keeps every event.
    pub(crate) fn collecting_sink() -> (EventSink, Arc<Mutex<Vec<EngineEvent>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        (Arc::new(move |e| s.lock().unwrap().push(e)), seen)
    }

    fn search(timeout_ms: u64) -> SearchRequest {
        SearchRequest {
            position: PositionSpec {
                start: StartPosition::StartPos,
                moves: vec![],
                chess960: false,
            },
            limits: GoLimits {
                movetime: Some(10),
                ..GoLimits::default()
            },
            multipv: None,
            timeout: Some(Duration::from_millis(timeout_ms)),
        }
    }

    #[tokio::test]
    async fn handshake_search_and_events() {
        let (sink, seen) = collecting_sink();
        let mut config = uci_engine(
            r#"echo "info depth 3 score cp 12 pv e2e4 e7e5"; echo "bestmove e2e4 ponder e7e5""#,
        );
        config.options.insert(
            "hash".into(),
            crate::config::toml_value::OptionValue::Int(32),
        );
        let engine = Engine::start("fake", &config, sink).await.unwrap();
        assert_eq!(engine.identity().name.as_deref(), Some("Fake"));
        assert_eq!(engine.identity().author.as_deref(), Some("Tests"));
        assert_eq!(engine.identity().options.len(), 1);
        let result = engine.search(search(1000)).await.unwrap();
        assert_eq!(result.best.as_deref(), Some("e2e4"));
        assert_eq!(result.ponder.as_deref(), Some("e7e5"));
        assert_eq!(result.info.unwrap().pv, vec!["e2e4", "e7e5"]);
        engine.sync(None).await.unwrap();
        let events = seen.lock().unwrap();
        assert!(events.iter().any(|e| matches!(
            e,
            EngineEvent::Line {
                parsed: EngineLine::BestMove(_),
                ..
            }
        )));
    }

    #[tokio::test]
    async fn configured_options_are_checked() {
        let (sink, _) = collecting_sink();
        let mut config = uci_engine("echo bestmove e2e4");
        config.options.insert(
            "Threads".into(),
            crate::config::toml_value::OptionValue::Int(2),
        );
        let err = Engine::start("fake", &config, sink.clone())
            .await
            .unwrap_err();
        assert_eq!(err.code(), "engine_handshake_failed", "{err:?}");
        let mut config = uci_engine("echo bestmove e2e4");
        config.options.insert(
            "Hash".into(),
            crate::config::toml_value::OptionValue::Int(1000),
        );
        let err = Engine::start("fake", &config, sink).await.unwrap_err();
        assert_eq!(err.code(), "engine_handshake_failed", "{err:?}");
        assert!(err.to_string().contains("outside"), "{}", err.to_string());
    }

    #[tokio::test]
    async fn no_uciok_fails_the_handshake_at_its_deadline() {
        let (sink, _) = collecting_sink();
        let mut config = script_engine(r#"echo "id name Mute""#);
        config.handshake_timeout_ms = 300;
        let t = std::time::Instant::now();
        let err = Engine::start("mute", &config, sink).await.unwrap_err();
        assert_eq!(err.code(), "engine_handshake_failed");
        assert!(t.elapsed() >= Duration::from_millis(300));
        assert!(t.elapsed() < Duration::from_secs(2));
    }

    #[tokio::test]
    async fn a_failed_handshake_quotes_the_engines_output_and_stderr() {
        let (sink, _) = collecting_sink();
        // An XBoard engine configured as UCI: it answers `uci` as a move.
        let mut config =
            script_engine(r#"echo "Invalid move: $l"; echo "warning: no book for $l" >&2"#);
        config.handshake_timeout_ms = 300;
        let err = Engine::start("confused", &config, sink.clone())
            .await
            .unwrap_err();
        let message = err.to_string();
        assert_eq!(err.code(), "engine_handshake_failed");
        assert!(message.contains("did not send uciok in time"), "{message}");
        assert!(
            message.contains(r#"its last output: "Invalid move: uci""#),
            "{message}"
        );
        assert!(
            message.contains(r#"its stderr: "warning: no book for uci""#),
            "{message}"
        );
        // A program that exits at once: its last words are quoted too.
        let mut config = script_engine("");
        config.endpoint.args = vec!["-c".into(), "echo bye; echo 'fatal: no tables' >&2".into()];
        let err = Engine::start("quitter", &config, sink.clone())
            .await
            .unwrap_err();
        let message = err.to_string();
        // (Whether the pipe broke before or after it exited is a race.)
        assert!(
            message.contains("closed the connection before uciok")
                || message.contains("cannot write"),
            "{message}"
        );
        assert!(message.contains(r#""bye""#), "{message}");
        assert!(message.contains(r#""fatal: no tables""#), "{message}");
        // Silence says so.
        let mut config = script_engine(":");
        config.handshake_timeout_ms = 200;
        let message = Engine::start("mute", &config, sink)
            .await
            .unwrap_err()
            .to_string();
        assert!(message.contains("it printed nothing"), "{message}");
    }

    #[tokio::test]
    async fn a_silent_search_times_out_and_a_hung_engine_is_killed() {
        let (sink, seen) = collecting_sink();
        let engine = Engine::start("silent", &uci_engine(":"), sink)
            .await
            .unwrap();
        let t = std::time::Instant::now();
        let err = engine.search(search(200)).await.unwrap_err();
        assert_eq!(err.code(), "engine_timeout");
        assert!(
            t.elapsed() < Duration::from_millis(800),
            "{:?}",
            t.elapsed()
        );
        // It ignores `stop` too: after the grace it is killed and later calls fail.
        tokio::time::sleep(Duration::from_millis(1300)).await;
        assert!(engine.is_closed());
        assert!(matches!(
            seen.lock().unwrap().last(),
            Some(EngineEvent::Died(e)) if e.code() == "engine_timeout"
        ));
        let err = engine.sync(None).await.unwrap_err();
        assert_eq!(err.code(), "engine_died");
    }

    #[tokio::test]
    async fn stop_ends_an_infinite_search_and_the_session_goes_on() {
        let (sink, _) = collecting_sink();
        // `go` is ignored; `stop` makes the fake answer.
        let config = script_engine(
            r#"case "$l" in
              uci) echo uciok;;
              isready) echo readyok;;
              stop) echo "info depth 9 multipv 2 score cp 1 pv d2d4"; echo "info depth 9 multipv 1 score cp 5 pv e2e4"; echo "bestmove e2e4";;
            esac"#,
        );
        let engine = Engine::start("stopper", &config, sink).await.unwrap();
        let mut analysis = search(0);
        analysis.timeout = None;
        analysis.limits = GoLimits {
            infinite: true,
            ..GoLimits::default()
        };
        let running = tokio::spawn({
            let engine = engine.clone();
            async move { engine.search(analysis).await }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        let stopped = engine.stop().await.unwrap().unwrap();
        assert_eq!(stopped.best.as_deref(), Some("e2e4"));
        assert_eq!(stopped.lines.len(), 2);
        assert_eq!(stopped.lines[0].pv, vec!["e2e4"]);
        assert_eq!(
            running.await.unwrap().unwrap().best.as_deref(),
            Some("e2e4")
        );
        assert!(engine.stop().await.unwrap().is_none(), "nothing runs now");
        // A dropped search is stopped and the next one still works.
        let gave_up = tokio::time::timeout(Duration::from_millis(100), engine.search(search(5000)));
        assert!(gave_up.await.is_err());
        engine.sync(None).await.unwrap();
        assert!(!engine.is_closed());
    }

    #[tokio::test]
    async fn a_dying_engine_fails_every_waiting_request_at_once() {
        let (sink, seen) = collecting_sink();
        let engine = Engine::start("dies", &uci_engine("exit 0"), sink)
            .await
            .unwrap();
        let t = std::time::Instant::now();
        let first = engine.search(search(5000));
        let second = engine.search(search(5000));
        let (a, b) = tokio::join!(first, second);
        assert_eq!(a.unwrap_err().code(), "engine_died");
        assert_eq!(b.unwrap_err().code(), "engine_died");
        assert!(t.elapsed() < Duration::from_secs(1));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(matches!(
            seen.lock().unwrap().last(),
            Some(EngineEvent::Died(e)) if e.code() == "engine_died"
        ));
        assert_eq!(
            engine.send("isready".into()).await.unwrap_err().code(),
            "engine_died"
        );
    }

    #[tokio::test]
    async fn positions_carry_the_whole_history_and_new_games_say_so() {
        let (sink, seen) = collecting_sink();
        // Echoes what it receives, declares MultiPV, answers go.
        let config = script_engine(
            r#"echo "info string got $l"
            case "$l" in
              uci) echo "option name MultiPV type spin default 1 min 1 max 5"; echo uciok;;
              isready) echo readyok;;
              go*) echo "bestmove e2e4";;
            esac"#,
        );
        let engine = Engine::start("echo", &config, sink).await.unwrap();
        let mut request = search(1000);
        engine.search(request.clone()).await.unwrap();
        request.position.moves = vec!["e2e4".into(), "e7e5".into()];
        request.multipv = Some(3);
        engine.search(request.clone()).await.unwrap();
        request.position.start = StartPosition::Fen("8/8/8/8/8/8/4k3/4K3 w - - 0 1".into());
        request.position.moves = vec![];
        engine.search(request).await.unwrap();
        let got: Vec<String> = seen
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                EngineEvent::Line { raw, .. } => {
                    raw.strip_prefix("info string got ").map(str::to_string)
                }
                EngineEvent::Died(_) => None,
            })
            .collect();
        assert_eq!(
            got,
            vec![
                "ucinewgame",
                "position startpos",
                "go movetime 10",
                "setoption name MultiPV value 3",
                "position startpos moves e2e4 e7e5",
                "go movetime 10",
                "ucinewgame",
                "position fen 8/8/8/8/8/8/4k3/4K3 w - - 0 1",
                "go movetime 10",
            ]
        );
    }

    #[tokio::test]
    async fn unreachable_engines() {
        let (sink, _) = collecting_sink();
        let mut config = uci_engine(":");
        config.endpoint.command = Some("no-such-engine-chessd".into());
        let err = Engine::start("none", &config, sink.clone())
            .await
            .unwrap_err();
        assert_eq!(err.code(), "engine_unreachable");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        drop(listener);
        config.endpoint.command = None;
        config.endpoint.tcp = Some(addr);
        let err = Engine::start("closed", &config, sink).await.unwrap_err();
        assert_eq!(err.code(), "engine_unreachable");
    }
}
