//! The engine session every protocol shares: a tokio task that owns the writing half of the
//! transport and the child process, reads the engine's lines from a reading task, and serialises
//! every conversation with the engine.
//!
//! What to write and what a line means is the protocol's part, a [`Dialect`] (UCI in
//! `uci_dialect.rs`, XBoard in `xboard.rs`); the session keeps the rest: the queue of searches
//! and readiness checks, one at a time; deadlines (a search's own allowance, then the handshake
//! allowance once it was told to stop, then a kill); callers that went away; stop waiters; and
//! the end of the session, which fails everyone waiting at once.

use std::{
    collections::{BTreeMap, VecDeque},
    sync::Arc,
    time::Duration,
};

use chessd_protocol::uci::{BestMove, EngineLine, Info};
use tokio::{
    sync::{mpsc, oneshot},
    time::Instant,
};

use crate::{
    engine::{
        error::EngineError,
        search::{
            died, EngineEvent, EventSink, Identity, PositionSpec, SearchRequest, SearchResult,
        },
    },
    transport::{ChildGuard, LineReader, LineWriter},
};

/// How long a quitting engine may take to exit before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(500);

/// Lines buffered between the reading task and the session.
const LINE_BUFFER: usize = 1024;

/// What a caller waits for.
pub(crate) type Reply<T> = oneshot::Sender<Result<T, EngineError>>;

/// A request from an `Engine` handle.
pub(crate) enum Request {
    Search(Box<SearchRequest>, Reply<SearchResult>),
    Ready(Option<PositionSpec>, Reply<()>),
    Send(String, Option<Reply<()>>),
    Stop(Reply<Option<SearchResult>>),
}

/// How a search starts.
pub(crate) struct SearchPlan {
    /// The lines to write, in order.
    pub lines: Vec<String>,
    /// Whether it runs until stopped (an analysis): a new request stops it first.
    pub infinite: bool,
    /// When the engine must be told to move now (XBoard's `?` for a sub-second `movetime`).
    pub move_now_after: Option<Duration>,
}

/// How a readiness check runs.
pub(crate) struct SyncPlan {
    /// The lines to write, in order.
    pub lines: Vec<String>,
    /// Whether an answer ([`Signal::Ready`]) will come; without one the check is done once
    /// the lines are written.
    pub awaits_answer: bool,
}

/// How the running search is stopped.
pub(crate) struct StopPlan {
    /// The lines to write.
    pub lines: Vec<String>,
    /// Whether the search ends with them (no best-move line follows): its best move is then
    /// the first move of its main line.
    pub ends_search: bool,
}

/// What a line from the engine means to the session.
pub(crate) enum Signal {
    /// Nothing beyond the line itself.
    None,
    /// The running search ended with this move.
    BestMove(BestMove),
    /// The awaited readiness answer.
    Ready,
}

/// What a client's raw line becomes.
pub(crate) enum RawPlan {
    /// These lines (possibly none).
    Lines(Vec<String>),
    /// A stop of the running search.
    Stop,
}

/// One protocol's side of a session: the lines to write for each request, and what each line
/// from the engine means. Calls are synchronous; the session writes the lines.
pub(crate) trait Dialect: Send + 'static {
    /// The lines that start `search`, or why this engine cannot run it (the caller gets the
    /// error; the session goes on).
    fn search(&mut self, search: &SearchRequest) -> Result<SearchPlan, EngineError>;
    /// The lines that bring the engine to `position` (when given) and ask it for an answer.
    fn sync(&mut self, position: Option<&PositionSpec>) -> Result<SyncPlan, EngineError>;
    /// How to stop the running search (`infinite`: an analysis).
    fn stop(&mut self, infinite: bool) -> StopPlan;
    /// The lines that make a timed search move now.
    fn move_now(&mut self) -> Vec<String>;
    /// One line from the engine, typed, and what it means.
    fn line(&mut self, raw: &str) -> (EngineLine, Signal);
    /// What a client's raw line (already checked) becomes.
    fn raw(&mut self, line: &str) -> RawPlan;
}

/// The session's deadlines.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timeouts {
    /// A handshake step, a readiness answer, a best move after a stop, one write.
    pub handshake: Duration,
}

/// Starts the session's tasks over a transport whose handshake is done; returns where
/// requests go.
pub(crate) fn spawn(
    reader: LineReader,
    writer: LineWriter,
    child: Option<ChildGuard>,
    dialect: Box<dyn Dialect>,
    identity: Arc<Identity>,
    sink: EventSink,
    timeouts: Timeouts,
) -> mpsc::UnboundedSender<Request> {
    let (line_tx, line_rx) = mpsc::channel(LINE_BUFFER);
    tokio::spawn(read_lines(reader, line_tx));
    let (tx, rx) = mpsc::unbounded_channel();
    let session = Session {
        writer,
        child,
        lines: line_rx,
        requests: rx,
        sink,
        identity,
        dialect,
        timeouts,
        state: State::Idle,
        queue: VecDeque::new(),
        stop_waiters: Vec::new(),
    };
    tokio::spawn(session.run());
    tx
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
    /// When the engine is told to move now (once).
    move_now: Option<Instant>,
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
            State::Searching(r) => match (r.deadline, r.move_now.filter(|_| !r.stop_sent)) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
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
    dialect: Box<dyn Dialect>,
    timeouts: Timeouts,
    state: State,
    /// Searches and readiness checks waiting for the engine.
    queue: VecDeque<Request>,
    /// Callers of `stop` waiting for the running search's result.
    stop_waiters: Vec<Reply<Option<SearchResult>>>,
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
                Wake::Line(Some(line)) => self.on_line(line),
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

    async fn write_all(&mut self, lines: &[String]) -> Result<(), End> {
        for line in lines {
            self.write(line).await?;
        }
        Ok(())
    }

    fn on_line(&mut self, raw: String) -> Result<(), End> {
        let (parsed, signal) = self.dialect.line(&raw);
        if let (State::Searching(running), EngineLine::Info(info)) = (&mut self.state, &parsed) {
            if info.score.is_some() || !info.pv.is_empty() {
                let line = info.multipv.unwrap_or(1);
                running.lines.insert(line, (**info).clone());
            }
        }
        match signal {
            Signal::BestMove(best) => self.end_search(best),
            Signal::Ready => {
                if matches!(self.state, State::AwaitReady { .. }) {
                    if let State::AwaitReady { reply, .. } =
                        std::mem::replace(&mut self.state, State::Idle)
                    {
                        let _ = reply.send(Ok(()));
                    }
                }
            }
            Signal::None => {}
        }
        (self.sink)(EngineEvent::Line { raw, parsed });
        Ok(())
    }

    /// Ends the running search (if any) with `best`: its caller and the stop waiters get it.
    fn end_search(&mut self, best: BestMove) {
        if !matches!(self.state, State::Searching(_)) {
            return;
        }
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

    async fn on_request(&mut self, request: Request) -> Result<(), End> {
        match request {
            Request::Send(line, reply) => {
                let written = match self.dialect.raw(&line) {
                    RawPlan::Lines(lines) => self.write_all(&lines).await,
                    RawPlan::Stop => self.send_stop().await,
                };
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

    /// Tells the running search to stop (once).
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
        let plan = self.dialect.stop(running.infinite);
        self.write_all(&plan.lines).await?;
        if plan.ends_search {
            let best = match &self.state {
                State::Searching(running) => running
                    .lines
                    .get(&1)
                    .and_then(|info| info.pv.first().cloned()),
                _ => None,
            };
            self.end_search(BestMove { best, ponder: None });
        }
        Ok(())
    }

    /// The caller of the running search went away: stop it, keep the session.
    async fn stop_search(&mut self) -> Result<(), End> {
        if let State::Searching(running) = &mut self.state {
            running.reply = None;
        }
        self.send_stop().await
    }

    async fn on_deadline(&mut self) -> Result<(), End> {
        let now = Instant::now();
        match &mut self.state {
            State::Idle => Ok(()),
            State::AwaitReady { .. } => Err(End::Failed(EngineError::Timeout(format!(
                "the engine did not answer a readiness check within {:?}",
                self.timeouts.handshake
            )))),
            State::Searching(running) => {
                if running.deadline.is_none_or(|d| d > now) {
                    // Not the deadline: the time to move now.
                    if running.move_now.take().is_some() && !running.stop_sent {
                        let lines = self.dialect.move_now();
                        return self.write_all(&lines).await;
                    }
                    return Ok(());
                }
                running.move_now = None;
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
                    let plan = match self.dialect.search(&search) {
                        Ok(plan) => plan,
                        Err(e) => {
                            let _ = reply.send(Err(e));
                            continue;
                        }
                    };
                    self.write_all(&plan.lines).await?;
                    let now = Instant::now();
                    self.state = State::Searching(Box::new(Running {
                        reply: Some(reply),
                        deadline: search.timeout.map(|t| now + t),
                        move_now: plan.move_now_after.map(|t| now + t),
                        stop_sent: false,
                        infinite: plan.infinite,
                        started: std::time::Instant::now(),
                        lines: BTreeMap::new(),
                    }));
                }
                Request::Ready(position, reply) => {
                    let plan = match self.dialect.sync(position.as_ref()) {
                        Ok(plan) => plan,
                        Err(e) => {
                            let _ = reply.send(Err(e));
                            continue;
                        }
                    };
                    self.write_all(&plan.lines).await?;
                    if plan.awaits_answer {
                        self.state = State::AwaitReady {
                            reply,
                            deadline: Instant::now() + self.timeouts.handshake,
                        };
                    } else {
                        let _ = reply.send(Ok(()));
                    }
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
