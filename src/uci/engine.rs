//! One UCI engine connection: a tokio task that owns the transport (a child process or a TCP
//! stream) and serialises every conversation with the engine, in the style of python-chess's
//! engine module and fishnet.
//!
//! - [`Engine::start`] reaches the engine and runs the handshake with deadlines: `uci` → `id` and
//!   `option` lines → `uciok`, then `setoption` for each configured option (checked against the
//!   declared ones), then `isready` → `readyok`.
//! - [`Engine::search`] sends `position … moves …` (the whole history) and `go` and waits for
//!   `bestmove` with a deadline (the search's own time plus `search_timeout_ms`). Every line the
//!   engine prints goes to the [`EventSink`] as it arrives.
//! - Searches and `isready` round trips run one at a time, in order; a new search queued behind
//!   an infinite one (analysis) stops it first. Raw lines ([`Engine::send`], [`Engine::cast`])
//!   and [`Engine::stop`] go out at once.
//! - When the engine exits or closes the connection, every waiting request fails at once with
//!   `engine_died`; when it overruns a deadline it is told to `stop`, the request fails with
//!   `engine_timeout`, and if it still does not answer it is killed. A request whose caller went
//!   away (its future was dropped) sends `stop` and leaves the session usable.
//! - Dropping the last [`Engine`] handle sends `quit` and kills the process after a short grace.

use std::{
    collections::{BTreeMap, VecDeque},
    sync::Arc,
    time::Duration,
};

use tokio::{
    sync::{mpsc, oneshot},
    time::Instant,
};

use crate::{
    config::EngineConfig,
    transport::{ChildGuard, LineReader, LineWriter, Transport},
    uci::{
        error::EngineError,
        protocol::{
            BestMove, EngineLine, GoLimits, GuiCommand, IdLine, Info, OptionDecl, StartPosition,
        },
    },
};

/// How long a quitting engine may take to exit before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(500);

/// Lines buffered between the reading task and the session.
const LINE_BUFFER: usize = 1024;

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
    /// `id name`.
    pub name: Option<String>,
    /// `id author`.
    pub author: Option<String>,
    /// The declared options, in order.
    pub options: Vec<OptionDecl>,
}

impl Identity {
    /// The declared option called `name` (UCI option names are case-insensitive).
    pub fn option(&self, name: &str) -> Option<&OptionDecl> {
        self.options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// Whether the engine can play Chess960 (it declares `UCI_Chess960`); games from other
    /// starts must not be sent to an engine that cannot, which may die on their FEN.
    pub fn supports_chess960(&self) -> bool {
        self.option("UCI_Chess960").is_some()
    }
}

/// A position to search: a start and the moves from there (UCI text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionSpec {
    /// Where the moves start.
    pub start: StartPosition,
    /// The moves.
    pub moves: Vec<String>,
    /// Whether the game is Chess960 (sets `UCI_Chess960` when the engine has it).
    pub chess960: bool,
}

impl PositionSpec {
    fn command(&self) -> GuiCommand {
        GuiCommand::Position {
            start: self.start.clone(),
            moves: self.moves.clone(),
        }
    }

    /// Whether `self` is `earlier` with more moves (the same game, further on).
    fn continues(&self, earlier: &PositionSpec) -> bool {
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
    /// The best move (UCI text), `None` for `bestmove (none)`.
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

/// What a caller waits for.
type Reply<T> = oneshot::Sender<Result<T, EngineError>>;

enum Request {
    Search(Box<SearchRequest>, Reply<SearchResult>),
    Ready(Option<PositionSpec>, Reply<()>),
    Send(String, Option<Reply<()>>),
    Stop(Reply<Option<SearchResult>>),
}

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
            .field("pid", &self.pid)
            .finish()
    }
}

/// `engine_died` with a message.
pub fn died(message: impl Into<String>) -> EngineError {
    EngineError::Died(message.into())
}

impl Engine {
    /// Reaches the engine `name` configured by `config` and completes the handshake. Fails with
    /// `engine_unreachable` (cannot start or connect in time) or `engine_handshake_failed` (no
    /// `uciok`/`readyok` in time, the connection closed, or a configured option the engine does
    /// not declare or whose value it would refuse).
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
        let identity = handshake(name, config, &mut reader, &mut writer, &timeouts).await?;
        let identity = Arc::new(identity);
        let pid = child.as_ref().and_then(ChildGuard::id);
        let (line_tx, line_rx) = mpsc::channel(LINE_BUFFER);
        tokio::spawn(read_lines(reader, line_tx));
        let (tx, rx) = mpsc::unbounded_channel();
        let session = Session {
            writer,
            child,
            lines: line_rx,
            requests: rx,
            sink,
            identity: identity.clone(),
            timeouts,
            state: State::Idle,
            queue: VecDeque::new(),
            stop_waiters: Vec::new(),
            last_position: None,
            multipv: 1,
            chess960: false,
        };
        tokio::spawn(session.run());
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

    /// Searches a position; see [`SearchRequest`]. Dropping the future before it resolves sends
    /// `stop` (the session stays usable).
    pub fn search(
        &self,
        request: SearchRequest,
    ) -> impl std::future::Future<Output = Result<SearchResult, EngineError>> {
        self.request(|reply| Request::Search(Box::new(request), reply))
    }

    /// Sends `position` (when given) and `isready`, and waits for `readyok`.
    pub fn sync(
        &self,
        position: Option<PositionSpec>,
    ) -> impl std::future::Future<Output = Result<(), EngineError>> {
        self.request(|reply| Request::Ready(position, reply))
    }

    /// Sends one raw line and waits until it is written.
    pub fn send(&self, line: String) -> impl std::future::Future<Output = Result<(), EngineError>> {
        self.request(|reply| Request::Send(line, Some(reply)))
    }

    /// Sends one raw line without waiting (fire and forget); fails only if the session has
    /// already ended.
    pub fn cast(&self, line: String) -> Result<(), EngineError> {
        self.tx
            .send(Request::Send(line, None))
            .map_err(|_| died("the engine is no longer running"))
    }

    /// Stops the running search (if any) and waits for its result; `None` when nothing was
    /// searching.
    pub fn stop(
        &self,
    ) -> impl std::future::Future<Output = Result<Option<SearchResult>, EngineError>> {
        self.request(Request::Stop)
    }
}

/// The session's deadlines.
#[derive(Clone, Copy, Debug)]
struct Timeouts {
    /// `uciok`, `readyok`, a `bestmove` after `stop`, one write.
    handshake: Duration,
}

/// Runs `uci`/`uciok`, the configured `setoption`s and `isready`/`readyok`.
async fn handshake(
    name: &str,
    config: &EngineConfig,
    reader: &mut LineReader,
    writer: &mut LineWriter,
    timeouts: &Timeouts,
) -> Result<Identity, EngineError> {
    let failed = |m: String| EngineError::HandshakeFailed(m);
    let limit = timeouts.handshake;
    handshake_write(writer, GuiCommand::Uci.to_string(), limit, name).await?;
    let deadline = Instant::now() + limit;
    let mut identity = Identity::default();
    loop {
        let line = next_line_by(reader, deadline, name, "uciok").await?;
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
        handshake_write(writer, command.to_string(), limit, name).await?;
    }
    handshake_write(writer, GuiCommand::IsReady.to_string(), limit, name).await?;
    let deadline = Instant::now() + limit;
    loop {
        let line = next_line_by(reader, deadline, name, "readyok").await?;
        if EngineLine::parse(&line) == EngineLine::ReadyOk {
            return Ok(identity);
        }
    }
}

/// Writes one handshake line within `limit`.
async fn handshake_write(
    writer: &mut LineWriter,
    line: String,
    limit: Duration,
    name: &str,
) -> Result<(), EngineError> {
    let failed = |m: String| EngineError::HandshakeFailed(m);
    match tokio::time::timeout(limit, writer.send(&line)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(failed(format!("engine {name}: cannot write: {e}"))),
        Err(_) => Err(failed(format!(
            "engine {name}: a write took over {limit:?}"
        ))),
    }
}

/// The next line before `deadline`, or a handshake error naming what was awaited.
async fn next_line_by(
    reader: &mut LineReader,
    deadline: Instant,
    name: &str,
    awaited: &str,
) -> Result<String, EngineError> {
    let failed = |m: String| EngineError::HandshakeFailed(m);
    match tokio::time::timeout_at(deadline, reader.next_line()).await {
        Err(_) => Err(failed(format!(
            "engine {name} did not send {awaited} in time"
        ))),
        Ok(Ok(Some(line))) => Ok(line),
        Ok(Ok(None)) => Err(failed(format!(
            "engine {name} closed the connection before {awaited}"
        ))),
        Ok(Err(e)) => Err(failed(format!(
            "engine {name}: read error before {awaited}: {e}"
        ))),
    }
}

/// Reads lines until the peer closes; the session sees the channel close.
async fn read_lines(mut reader: LineReader, tx: mpsc::Sender<String>) {
    while let Ok(Some(line)) = reader.next_line().await {
        if tx.send(line).await.is_err() {
            return;
        }
    }
}

/// A search in progress.
struct Running {
    /// The caller; `None` once it timed out or went away (the search is being drained).
    reply: Option<Reply<SearchResult>>,
    /// When the caller's allowance ends, or (draining) when the engine must have answered.
    deadline: Option<Instant>,
    stop_sent: bool,
    infinite: bool,
    started: std::time::Instant,
    lines: BTreeMap<u32, Info>,
}

impl Running {
    fn result(self, best: BestMove) -> SearchResult {
        let info = self.lines.get(&1).cloned();
        SearchResult {
            best: best.best,
            ponder: best.ponder,
            info,
            lines: self.lines.into_values().collect(),
            elapsed: self.started.elapsed(),
        }
    }
}

enum State {
    Idle,
    Searching(Box<Running>),
    AwaitReady { reply: Reply<()>, deadline: Instant },
}

impl State {
    fn deadline(&self) -> Option<Instant> {
        match self {
            State::Idle => None,
            State::Searching(r) => r.deadline,
            State::AwaitReady { deadline, .. } => Some(*deadline),
        }
    }
}

struct Session {
    writer: LineWriter,
    child: Option<ChildGuard>,
    lines: mpsc::Receiver<String>,
    requests: mpsc::UnboundedReceiver<Request>,
    sink: EventSink,
    identity: Arc<Identity>,
    timeouts: Timeouts,
    state: State,
    /// Searches and readiness checks waiting for the engine.
    queue: VecDeque<Request>,
    /// Callers of `stop` waiting for the running search's result.
    stop_waiters: Vec<Reply<Option<SearchResult>>>,
    last_position: Option<PositionSpec>,
    multipv: u32,
    chess960: bool,
}

enum Wake {
    Line(Option<String>),
    Request(Option<Request>),
    Deadline,
    CallerGone,
}

/// Why the session ends.
enum End {
    /// Every handle was dropped: quit politely.
    Quit,
    /// The engine failed; everyone waiting gets this error.
    Failed(EngineError),
}

impl Session {
    async fn run(mut self) {
        let end = loop {
            let wake = {
                let deadline = self.state.deadline();
                let state = &mut self.state;
                let lines = &mut self.lines;
                let requests = &mut self.requests;
                let caller_gone = async {
                    match state {
                        State::Searching(r) => match r.reply.as_mut() {
                            Some(reply) => reply.closed().await,
                            None => std::future::pending().await,
                        },
                        _ => std::future::pending().await,
                    }
                };
                let timer = async {
                    match deadline {
                        Some(at) => tokio::time::sleep_until(at).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    biased;
                    line = lines.recv() => Wake::Line(line),
                    request = requests.recv() => Wake::Request(request),
                    () = timer => Wake::Deadline,
                    () = caller_gone => Wake::CallerGone,
                }
            };
            let step = match wake {
                Wake::Line(Some(line)) => self.on_line(line).await,
                Wake::Line(None) => Err(End::Failed(died(
                    "the engine exited or closed the connection",
                ))),
                Wake::Request(Some(request)) => self.on_request(request).await,
                Wake::Request(None) => Err(End::Quit),
                Wake::Deadline => self.on_deadline().await,
                Wake::CallerGone => self.stop_search().await,
            };
            let step = match step {
                Ok(()) => self.start_next().await,
                Err(end) => Err(end),
            };
            if let Err(end) = step {
                break end;
            }
        };
        self.finish(end).await;
    }

    async fn write(&mut self, line: &str) -> Result<(), End> {
        match tokio::time::timeout(self.timeouts.handshake, self.writer.send(line)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(End::Failed(died(format!(
                "cannot write to the engine: {e}"
            )))),
            Err(_) => Err(End::Failed(EngineError::Timeout(
                "the engine stopped reading its input".into(),
            ))),
        }
    }

    async fn on_line(&mut self, raw: String) -> Result<(), End> {
        let parsed = EngineLine::parse(&raw);
        match (&mut self.state, &parsed) {
            (State::Searching(running), EngineLine::Info(info))
                if info.score.is_some() || !info.pv.is_empty() =>
            {
                let line = info.multipv.unwrap_or(1);
                running.lines.insert(line, (**info).clone());
            }
            (State::Searching(_), EngineLine::BestMove(best)) => {
                let best = best.clone();
                if let State::Searching(running) = std::mem::replace(&mut self.state, State::Idle) {
                    let mut running = *running;
                    let reply = running.reply.take();
                    let result = running.result(best);
                    for waiter in self.stop_waiters.drain(..) {
                        let _ = waiter.send(Ok(Some(result.clone())));
                    }
                    if let Some(reply) = reply {
                        let _ = reply.send(Ok(result));
                    }
                }
            }
            (State::AwaitReady { .. }, EngineLine::ReadyOk) => {
                if let State::AwaitReady { reply, .. } =
                    std::mem::replace(&mut self.state, State::Idle)
                {
                    let _ = reply.send(Ok(()));
                }
            }
            _ => {}
        }
        (self.sink)(EngineEvent::Line { raw, parsed });
        Ok(())
    }

    async fn on_request(&mut self, request: Request) -> Result<(), End> {
        match request {
            Request::Send(line, reply) => {
                let written = self.write(&line).await;
                if let Some(reply) = reply {
                    let _ = reply.send(match &written {
                        Ok(()) => Ok(()),
                        Err(_) => Err(died("the line could not be written")),
                    });
                }
                written
            }
            Request::Stop(reply) => match &self.state {
                State::Searching(_) => {
                    self.stop_waiters.push(reply);
                    self.send_stop().await
                }
                _ => {
                    let _ = reply.send(Ok(None));
                    Ok(())
                }
            },
            Request::Search(..) | Request::Ready(..) => {
                let preempt = matches!(&self.state, State::Searching(r) if r.infinite);
                self.queue.push_back(request);
                if preempt {
                    // A new search replaces a running analysis.
                    self.send_stop().await?;
                }
                Ok(())
            }
        }
    }

    /// Sends `stop` to the running search (once).
    async fn send_stop(&mut self) -> Result<(), End> {
        let State::Searching(running) = &mut self.state else {
            return Ok(());
        };
        if running.stop_sent {
            return Ok(());
        }
        running.stop_sent = true;
        // From now on the engine has the handshake allowance to answer.
        running.deadline = Some(Instant::now() + self.timeouts.handshake);
        self.write(&GuiCommand::Stop.to_string()).await
    }

    /// The caller of the running search went away: stop it, keep the session.
    async fn stop_search(&mut self) -> Result<(), End> {
        if let State::Searching(running) = &mut self.state {
            running.reply = None;
        }
        self.send_stop().await
    }

    async fn on_deadline(&mut self) -> Result<(), End> {
        match &mut self.state {
            State::Idle => Ok(()),
            State::AwaitReady { .. } => Err(End::Failed(EngineError::Timeout(format!(
                "the engine did not answer isready within {:?}",
                self.timeouts.handshake
            )))),
            State::Searching(running) => {
                if running.stop_sent {
                    // Told to stop and still silent: it is hung.
                    return Err(End::Failed(EngineError::Timeout(
                        "the engine did not answer stop in time and was killed".into(),
                    )));
                }
                if let Some(reply) = running.reply.take() {
                    let _ = reply.send(Err(EngineError::Timeout(
                        "the engine did not answer before the deadline; it was told to stop".into(),
                    )));
                }
                self.send_stop().await
            }
        }
    }

    /// Starts queued work while the engine is idle.
    async fn start_next(&mut self) -> Result<(), End> {
        while matches!(self.state, State::Idle) {
            let Some(request) = self.queue.pop_front() else {
                return Ok(());
            };
            match request {
                Request::Search(search, reply) => {
                    if reply.is_closed() {
                        continue;
                    }
                    self.prepare(&search.position, search.multipv).await?;
                    self.write(&GuiCommand::Go(search.limits.clone()).to_string())
                        .await?;
                    let infinite = search.limits.infinite || search.limits.ponder;
                    self.state = State::Searching(Box::new(Running {
                        reply: Some(reply),
                        deadline: search.timeout.map(|t| Instant::now() + t),
                        stop_sent: false,
                        infinite,
                        started: std::time::Instant::now(),
                        lines: BTreeMap::new(),
                    }));
                }
                Request::Ready(position, reply) => {
                    if let Some(position) = &position {
                        self.prepare(position, None).await?;
                    }
                    self.write(&GuiCommand::IsReady.to_string()).await?;
                    self.state = State::AwaitReady {
                        reply,
                        deadline: Instant::now() + self.timeouts.handshake,
                    };
                }
                other => {
                    // Only searches and readiness checks are queued.
                    self.queue.push_front(other);
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Options that change per search, `ucinewgame` for a new game, then `position`.
    async fn prepare(&mut self, position: &PositionSpec, multipv: Option<u32>) -> Result<(), End> {
        let multipv = multipv.unwrap_or(1).max(1);
        if multipv != self.multipv && self.identity.option("MultiPV").is_some() {
            self.multipv = multipv;
            let line = GuiCommand::SetOption {
                name: "MultiPV".into(),
                value: Some(multipv.to_string()),
            };
            self.write(&line.to_string()).await?;
        }
        if position.chess960 != self.chess960 && self.identity.option("UCI_Chess960").is_some() {
            self.chess960 = position.chess960;
            let line = GuiCommand::SetOption {
                name: "UCI_Chess960".into(),
                value: Some(position.chess960.to_string()),
            };
            self.write(&line.to_string()).await?;
        }
        let same_game = self
            .last_position
            .as_ref()
            .is_some_and(|last| position.continues(last));
        if !same_game {
            self.write(&GuiCommand::UciNewGame.to_string()).await?;
        }
        self.write(&position.command().to_string()).await?;
        self.last_position = Some(position.clone());
        Ok(())
    }

    /// Ends the session: fails everyone waiting, tells the sink, quits or kills the engine.
    async fn finish(mut self, end: End) {
        let error = match &end {
            End::Quit => died("the engine was detached"),
            End::Failed(e) => e.clone(),
        };
        self.requests.close();
        let state = std::mem::replace(&mut self.state, State::Idle);
        match state {
            State::Searching(running) => {
                if let Some(reply) = running.reply {
                    let _ = reply.send(Err(error.clone()));
                }
            }
            State::AwaitReady { reply, .. } => {
                let _ = reply.send(Err(error.clone()));
            }
            State::Idle => {}
        }
        for waiter in self.stop_waiters.drain(..) {
            let _ = waiter.send(Err(error.clone()));
        }
        let mut pending: Vec<Request> = self.queue.drain(..).collect();
        while let Ok(request) = self.requests.try_recv() {
            pending.push(request);
        }
        for request in pending {
            match request {
                Request::Search(_, reply) => {
                    let _ = reply.send(Err(error.clone()));
                }
                Request::Ready(_, reply) | Request::Send(_, Some(reply)) => {
                    let _ = reply.send(Err(error.clone()));
                }
                Request::Stop(reply) => {
                    let _ = reply.send(Err(error.clone()));
                }
                Request::Send(_, None) => {}
            }
        }
        match end {
            End::Quit => {
                let _ = tokio::time::timeout(QUIT_GRACE, self.writer.send("quit")).await;
                if let Some(child) = self.child.take() {
                    child.shutdown(QUIT_GRACE).await;
                }
            }
            End::Failed(e) => {
                tracing::warn!(engine = ?self.identity.name, error = %e, "engine session ended");
                // Dropping the guard kills the process.
                self.child.take();
                (self.sink)(EngineEvent::Died(e));
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::{collections::BTreeMap, sync::Mutex};

    use super::*;
    use crate::config::EndpointConfig;

    /// A shell-script engine: `body` is a POSIX sh `while read` loop body, `$l` the line.
    fn script_engine(body: &str) -> EngineConfig {
        let script = format!("while read -r l; do {body}\ndone");
        EngineConfig {
            endpoint: EndpointConfig {
                command: Some("sh".into()),
                args: vec!["-c".into(), script],
                ..EndpointConfig::default()
            },
            options: BTreeMap::new(),
            handshake_timeout_ms: 1000,
            search_timeout_ms: 1000,
            max_hash_mb: 16,
            max_threads: 1,
        }
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

    fn collecting_sink() -> (EventSink, Arc<Mutex<Vec<EngineEvent>>>) {
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
