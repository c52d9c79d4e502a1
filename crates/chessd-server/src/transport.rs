//! Line-framed I/O with a peer that is either a child process (stdin/stdout) or a TCP stream.
//! UCI engines and Grand Chess Tree workers both speak line protocols over it.
//!
//! Reading is framed by `\n` (a trailing `\r` is dropped), so a line split across reads is never
//! lost or cut; bytes that are not UTF-8 are replaced rather than fatal, and a line longer than
//! [`MAX_LINE_BYTES`] is cut to that length (the rest of it is dropped), so a misbehaving peer
//! cannot exhaust memory. A child is started in its own process group and killed when its
//! [`Transport`] (or its [`ChildGuard`]) is dropped. A child's stderr is drained by a task into
//! a small ring of its last lines ([`StderrTail`]: [`STDERR_LINES`] lines of at most
//! [`STDERR_LINE_BYTES`] bytes), so error messages can quote it while a noisy child can neither
//! fill memory nor block on a full pipe.

use std::{
    collections::VecDeque,
    path::{Path, PathBuf},
    process::Stdio,
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader},
    net::TcpStream,
    process::{Child, Command},
};

use crate::config::Endpoint;

/// Longest line kept, in bytes; the rest of a longer line is dropped.
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024;

/// Lines of a child's stderr kept (the last ones).
pub(crate) const STDERR_LINES: usize = 5;

/// Longest stderr line kept, in bytes; the rest of a longer line is dropped.
pub(crate) const STDERR_LINE_BYTES: usize = 300;

/// Directories searched after `PATH` for a bare program name (Debian installs games there).
const EXTRA_PROGRAM_DIRS: [&str; 2] = ["/usr/games", "/usr/local/games"];

/// Why a peer could not be reached.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TransportError {
    /// The program could not be found or started.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The program asked for.
        program: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The TCP address could not be connected to.
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        /// The address asked for.
        addr: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// Connecting took longer than the connect timeout.
    #[error("connecting to {addr} took longer than {timeout:?}")]
    ConnectTimeout {
        /// The address asked for.
        addr: String,
        /// The timeout.
        timeout: Duration,
    },
}

/// The reading half: yields one line at a time.
pub(crate) struct LineReader {
    inner: BufReader<Box<dyn AsyncRead + Send + Unpin>>,
    buf: Vec<u8>,
}

impl LineReader {
    /// Wraps any byte stream.
    pub(crate) fn new(stream: Box<dyn AsyncRead + Send + Unpin>) -> LineReader {
        LineReader {
            inner: BufReader::new(stream),
            buf: Vec::new(),
        }
    }

    /// The next line without its line ending; `Ok(None)` when the peer closed the stream. A last
    /// line without a final newline is still returned.
    pub(crate) async fn next_line(&mut self) -> std::io::Result<Option<String>> {
        self.buf.clear();
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                return Ok((!self.buf.is_empty()).then(|| self.take_line()));
            }
            let (used, complete) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let room = MAX_LINE_BYTES.saturating_sub(self.buf.len());
            self.buf.extend_from_slice(&chunk[..used.min(room)]);
            self.inner.consume(used);
            if complete {
                return Ok(Some(self.take_line()));
            }
        }
    }

    fn take_line(&mut self) -> String {
        while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
            self.buf.pop();
        }
        String::from_utf8_lossy(&self.buf).into_owned()
    }
}

/// The writing half: sends whole lines.
pub(crate) struct LineWriter {
    inner: Box<dyn AsyncWrite + Send + Unpin>,
}

impl LineWriter {
    /// Wraps any byte sink.
    pub(crate) fn new(sink: Box<dyn AsyncWrite + Send + Unpin>) -> LineWriter {
        LineWriter { inner: sink }
    }

    /// Writes `line` and a newline, then flushes. A line must not contain a newline itself: any
    /// `\r` or `\n` inside it is replaced by a space so one call is always exactly one line.
    pub(crate) async fn send(&mut self, line: &str) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend(line.bytes().map(|b| match b {
            b'\n' | b'\r' => b' ',
            b => b,
        }));
        bytes.push(b'\n');
        self.inner.write_all(&bytes).await?;
        self.inner.flush().await
    }
}

/// The last lines a child wrote to its stderr, kept by a task that drains the pipe; cheap to
/// clone (every clone sees the same lines).
#[derive(Clone, Debug, Default)]
pub(crate) struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
}

impl StderrTail {
    /// The kept lines, oldest first.
    pub(crate) fn lines(&self) -> Vec<String> {
        let lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        lines.iter().cloned().collect()
    }

    /// Keeps `line` (cut to [`STDERR_LINE_BYTES`]), dropping the oldest beyond [`STDERR_LINES`].
    fn push(&self, line: String) {
        let line = cut(line, STDERR_LINE_BYTES);
        let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// Drains `stream` until it closes, keeping its last lines.
    async fn drain(self, stream: Box<dyn AsyncRead + Send + Unpin>) {
        let mut reader = LineReader::new(stream);
        while let Ok(Some(line)) = reader.next_line().await {
            self.push(line);
        }
    }
}

/// `text` cut to at most `max` bytes, at a character boundary.
pub(crate) fn cut(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut at = max;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
    }
    text
}

/// Keeps a child process alive; kills it (and waits for it in the background) when dropped.
pub(crate) struct ChildGuard {
    child: Option<Child>,
    stderr: StderrTail,
}

impl ChildGuard {
    /// The child's process id, while it runs.
    pub(crate) fn id(&self) -> Option<u32> {
        self.child.as_ref().and_then(Child::id)
    }

    /// The last lines the child wrote to its stderr.
    pub(crate) fn stderr(&self) -> &StderrTail {
        &self.stderr
    }

    /// Waits up to `grace` for the child to exit by itself (after `quit`), then kills it.
    pub(crate) async fn shutdown(mut self, grace: Duration) {
        if let Some(mut child) = self.child.take() {
            if tokio::time::timeout(grace, child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.start_kill();
            // Reap it so it does not linger as a zombie.
            if let Ok(handle) = tokio::runtime::Handle::try_current() {
                handle.spawn(async move {
                    let _ = child.wait().await;
                });
            }
        }
    }
}

/// A connected peer: its lines in, its lines out, and the child process if there is one.
pub(crate) struct Transport {
    /// Lines from the peer.
    pub reader: LineReader,
    /// Lines to the peer.
    pub writer: LineWriter,
    /// The child process, for a local peer.
    pub child: Option<ChildGuard>,
}

impl Transport {
    /// Reaches the peer `endpoint` describes. `builtin_subcommand` is the subcommand of this
    /// binary a builtin peer runs (`engine` or `worker`).
    pub(crate) async fn open(
        endpoint: &Endpoint,
        builtin_subcommand: &str,
        connect_timeout: Duration,
    ) -> Result<Transport, TransportError> {
        match endpoint {
            Endpoint::Builtin => {
                let program = self_exe();
                let program = program.to_string_lossy();
                Transport::spawn(&program, &[builtin_subcommand.to_string()], None)
            }
            Endpoint::Command {
                program,
                args,
                working_dir,
            } => Transport::spawn(program, args, working_dir.as_deref()),
            Endpoint::Tcp(addr) => Transport::connect(addr, connect_timeout).await,
        }
    }

    /// Starts `program` (a path, or a name looked up in `PATH` and `/usr/games`) with its stdin
    /// and stdout piped, in its own process group. Its stderr is drained into the guard's
    /// [`StderrTail`] by a task (discarded when called outside a tokio runtime).
    pub(crate) fn spawn(
        program: &str,
        args: &[String],
        working_dir: Option<&Path>,
    ) -> Result<Transport, TransportError> {
        let resolved = resolve_program(program).ok_or_else(|| TransportError::Spawn {
            program: program.to_string(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "program not found"),
        })?;
        let runtime = tokio::runtime::Handle::try_current().ok();
        let mut command = Command::new(&resolved);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if runtime.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .kill_on_drop(true)
            .process_group(0);
        if let Some(dir) = working_dir {
            command.current_dir(dir);
        }
        let spawn_error = |source| TransportError::Spawn {
            program: program.to_string(),
            source,
        };
        let mut child = command.spawn().map_err(spawn_error)?;
        let missing = || spawn_error(std::io::Error::other("no pipe to the child"));
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stderr = StderrTail::default();
        if let (Some(runtime), Some(pipe)) = (runtime, child.stderr.take()) {
            runtime.spawn(stderr.clone().drain(Box::new(pipe)));
        }
        Ok(Transport {
            reader: LineReader::new(Box::new(stdout)),
            writer: LineWriter::new(Box::new(stdin)),
            child: Some(ChildGuard {
                child: Some(child),
                stderr,
            }),
        })
    }

    /// Connects to a TCP address within `timeout`.
    pub(crate) async fn connect(
        addr: &str,
        timeout: Duration,
    ) -> Result<Transport, TransportError> {
        let stream = match tokio::time::timeout(timeout, TcpStream::connect(addr)).await {
            Err(_) => {
                return Err(TransportError::ConnectTimeout {
                    addr: addr.to_string(),
                    timeout,
                })
            }
            Ok(Err(source)) => {
                return Err(TransportError::Connect {
                    addr: addr.to_string(),
                    source,
                })
            }
            Ok(Ok(stream)) => stream,
        };
        let _ = stream.set_nodelay(true);
        let (read, write) = stream.into_split();
        Ok(Transport {
            reader: LineReader::new(Box::new(read)),
            writer: LineWriter::new(Box::new(write)),
            child: None,
        })
    }
}

/// This chessd binary, which builtin peers run. `CHESSD_SELF_EXE` overrides it (tests that embed
/// the server in a test binary point it at the real `chessd`).
pub(crate) fn self_exe() -> PathBuf {
    if let Some(path) = std::env::var_os("CHESSD_SELF_EXE") {
        return PathBuf::from(path);
    }
    std::env::current_exe().unwrap_or_else(|_| PathBuf::from("chessd"))
}

/// Finds a program: a name with a `/` is used as given; a bare name is looked up in `PATH`, then
/// in `/usr/games` and `/usr/local/games`.
pub(crate) fn resolve_program(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let path = PathBuf::from(program);
        return path.is_file().then_some(path);
    }
    let path_dirs = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    path_dirs
        .into_iter()
        .chain(EXTRA_PROGRAM_DIRS.iter().map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

    #[tokio::test]
    async fn lines_split_across_reads_are_whole() {
        let (client, mut server) = tokio::io::duplex(8);
        let mut reader = LineReader::new(Box::new(client));
        let writer = tokio::spawn(async move {
            for part in ["info de", "pth 1\r\nbest", "move e2e4\nlast"] {
                server.write_all(part.as_bytes()).await.unwrap();
                tokio::task::yield_now().await;
            }
        });
        assert_eq!(reader.next_line().await.unwrap().unwrap(), "info depth 1");
        assert_eq!(reader.next_line().await.unwrap().unwrap(), "bestmove e2e4");
        writer.await.unwrap();
        assert_eq!(reader.next_line().await.unwrap().unwrap(), "last");
        assert_eq!(reader.next_line().await.unwrap(), None);
    }

    #[tokio::test]
    async fn bad_bytes_and_long_lines_are_contained() {
        let (client, mut server) = tokio::io::duplex(1 << 20);
        let mut reader = LineReader::new(Box::new(client));
        let mut long = vec![b'x'; MAX_LINE_BYTES * 2];
        long.push(b'\n');
        server.write_all(b"a\xffb\n").await.unwrap();
        server.write_all(&long).await.unwrap();
        server.write_all(b"next\n").await.unwrap();
        drop(server);
        assert_eq!(reader.next_line().await.unwrap().unwrap(), "a\u{fffd}b");
        assert_eq!(
            reader.next_line().await.unwrap().unwrap().len(),
            MAX_LINE_BYTES
        );
        assert_eq!(reader.next_line().await.unwrap().unwrap(), "next");
    }

    #[tokio::test]
    async fn a_child_process_echoes_lines_and_dies_with_its_guard() {
        let mut t = Transport::spawn("cat", &[], None).unwrap();
        t.writer.send("uci\nisready").await.unwrap();
        assert_eq!(t.reader.next_line().await.unwrap().unwrap(), "uci isready");
        let pid = t.child.as_ref().and_then(ChildGuard::id).unwrap();
        drop(t);
        tokio::time::sleep(Duration::from_millis(200)).await;
        let alive = Path::new(&format!("/proc/{pid}/status"))
            .exists()
            .then(|| std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default())
            .is_some_and(|s| !s.contains("State:\tZ"));
        assert!(!alive, "the child outlived its transport");
    }

    #[tokio::test]
    async fn stderr_keeps_a_bounded_tail_of_short_lines() {
        // 2000 lines (one very long) on stderr: the child is never blocked, the tail is small.
        let script = "i=0; while [ $i -lt 2000 ]; do echo \"noise $i\" >&2; i=$((i+1)); done; \
                      head -c 5000 /dev/zero | tr '\\0' x >&2; echo >&2; echo last >&2; echo done";
        let mut t = Transport::spawn("sh", &["-c".into(), script.into()], None).unwrap();
        assert_eq!(t.reader.next_line().await.unwrap().unwrap(), "done");
        let tail = t.child.as_ref().unwrap().stderr().clone();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while tail.lines().last().map(String::as_str) != Some("last") {
            assert!(std::time::Instant::now() < deadline, "{:?}", tail.lines());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let lines = tail.lines();
        assert_eq!(lines.len(), STDERR_LINES);
        assert_eq!(lines[0], "noise 1997");
        assert_eq!(lines[3].len(), STDERR_LINE_BYTES);
        assert!(lines.iter().all(|l| l.len() <= STDERR_LINE_BYTES));
    }

    #[test]
    fn cut_respects_character_boundaries() {
        assert_eq!(cut("héllo".into(), 2), "h");
        assert_eq!(cut("abc".into(), 5), "abc");
    }

    #[tokio::test]
    async fn unknown_programs_and_closed_ports_are_errors() {
        assert!(matches!(
            Transport::spawn("no-such-program-chessd", &[], None),
            Err(TransportError::Spawn { .. })
        ));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        drop(listener);
        assert!(matches!(
            Transport::connect(&addr, Duration::from_secs(1)).await,
            Err(TransportError::Connect { .. })
        ));
    }
}
