//! What the handshakes of both protocols share: writes and reads with deadlines, and failures
//! that quote what the engine said, its last output lines and its last stderr lines, so that
//! "did not send uciok in time" comes with the engine's "Invalid move: uci".

use std::{collections::VecDeque, time::Duration};

use tokio::time::Instant;

use crate::{
    engine::error::EngineError,
    transport::{cut, LineReader, LineWriter, StderrTail},
};

/// Output lines of the engine a handshake failure quotes (the last ones).
pub(crate) const QUOTED_LINES: usize = 5;

/// Longest quoted line, in bytes.
pub(crate) const QUOTED_LINE_BYTES: usize = 300;

/// How long a failure waits for the stderr task to catch up before quoting it.
const STDERR_SETTLE: Duration = Duration::from_millis(30);

/// The engine's connection during its handshake.
pub(crate) struct HandshakeIo<'a> {
    /// The engine's configured name.
    pub name: &'a str,
    reader: &'a mut LineReader,
    writer: &'a mut LineWriter,
    stderr: Option<StderrTail>,
    /// The allowance of one step.
    pub limit: Duration,
    recent: VecDeque<String>,
}

impl<'a> HandshakeIo<'a> {
    /// The handshake over `reader`/`writer` of engine `name`; `stderr` is its child's, if any.
    pub(crate) fn new(
        name: &'a str,
        reader: &'a mut LineReader,
        writer: &'a mut LineWriter,
        stderr: Option<StderrTail>,
        limit: Duration,
    ) -> HandshakeIo<'a> {
        HandshakeIo {
            name,
            reader,
            writer,
            stderr,
            limit,
            recent: VecDeque::new(),
        }
    }

    /// Writes one line within the step allowance.
    pub(crate) async fn write(&mut self, line: &str) -> Result<(), EngineError> {
        let name = self.name;
        match tokio::time::timeout(self.limit, self.writer.send(line)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                // It is gone: what it said on its way out is the useful part.
                let until = Instant::now() + STDERR_SETTLE;
                while let Ok(Ok(Some(line))) =
                    tokio::time::timeout_at(until, self.reader.next_line()).await
                {
                    self.remember(line);
                }
                Err(self
                    .failed(format!("engine {name}: cannot write: {e}"))
                    .await)
            }
            Err(_) => Err(self
                .failed(format!("engine {name}: a write took over {:?}", self.limit))
                .await),
        }
    }

    /// The next line before `deadline` (`None` once it passed); a closed connection or a read
    /// error fails the handshake, naming what was `awaited`.
    pub(crate) async fn line_until(
        &mut self,
        deadline: Instant,
        awaited: &str,
    ) -> Result<Option<String>, EngineError> {
        let name = self.name;
        match tokio::time::timeout_at(deadline, self.reader.next_line()).await {
            Err(_) => Ok(None),
            Ok(Ok(Some(line))) => {
                self.remember(line.clone());
                Ok(Some(line))
            }
            Ok(Ok(None)) => Err(self
                .failed(format!(
                    "engine {name} closed the connection before {awaited}"
                ))
                .await),
            Ok(Err(e)) => Err(self
                .failed(format!("engine {name}: read error before {awaited}: {e}"))
                .await),
        }
    }

    /// Keeps `line` (unless blank) among the last few quoted by a failure.
    fn remember(&mut self, line: String) {
        if line.trim().is_empty() {
            return;
        }
        if self.recent.len() == QUOTED_LINES {
            self.recent.pop_front();
        }
        self.recent.push_back(cut(line, QUOTED_LINE_BYTES));
    }

    /// The next line before `deadline`, or a failure saying `awaited` did not come in time.
    pub(crate) async fn line_by(
        &mut self,
        deadline: Instant,
        awaited: &str,
    ) -> Result<String, EngineError> {
        match self.line_until(deadline, awaited).await? {
            Some(line) => Ok(line),
            None => {
                let name = self.name;
                Err(self
                    .failed(format!(
                        "engine {name} did not send {awaited} in time ({:?})",
                        self.limit
                    ))
                    .await)
            }
        }
    }

    /// A handshake failure: `message`, then the engine's last output lines and its last
    /// stderr lines, quoted.
    pub(crate) async fn failed(&mut self, message: String) -> EngineError {
        let mut message = message;
        if self.recent.is_empty() {
            message.push_str("; it printed nothing");
        } else {
            message.push_str("; its last output: ");
            message.push_str(&quote(self.recent.iter()));
        }
        if let Some(stderr) = &self.stderr {
            tokio::time::sleep(STDERR_SETTLE).await;
            let lines = stderr.lines();
            if !lines.is_empty() {
                message.push_str("; its stderr: ");
                message.push_str(&quote(lines.iter()));
            }
        }
        EngineError::HandshakeFailed(message)
    }
}

/// Lines quoted and joined: `"a" | "b"`.
fn quote<'s>(lines: impl Iterator<Item = &'s String>) -> String {
    lines
        .map(|l| format!("{l:?}"))
        .collect::<Vec<_>>()
        .join(" | ")
}
