//! Test harnesses: the real `chessd` binary on a free loopback port for black-box tests (this
//! module), and the app in process for API tests ([`app`]).

pub(crate) mod app;
pub(crate) mod cluster;
pub(crate) mod engines;
pub(crate) mod fault_proxy;
pub(crate) mod gct;
pub(crate) mod postgres;
pub(crate) mod schema;

use std::{
    io::{BufRead, BufReader},
    process::{Child, Command, Stdio},
    time::Duration,
};

use serde_json::Value;

/// A small deterministic generator (xorshift), for reproducible random choices in tests: a run
/// seeded the same way makes the same choices.
pub(crate) struct Rng(pub u64);

impl Rng {
    /// The next number of the sequence.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// The job limits every client had before issue 27: clients without an API key as high as
/// those with one (`jobs.anonymous_*`), and one client may hold the whole pool. For tests of
/// other things that count deep perfts without a key (`fair_jobs.rs` tests the limits).
pub(crate) const KEYED_LIMITS_FOR_ALL: [(&str, &str); 4] = [
    ("CHESSD_JOBS__ANONYMOUS_MAX_PERFT_DEPTH", "9"),
    ("CHESSD_JOBS__ANONYMOUS_MAX_THREADS", "0"),
    ("CHESSD_JOBS__ANONYMOUS_MAX_HASH_MB", "1024"),
    ("CHESSD_JOBS__MAX_CLIENT_THREADS", "1024"),
];

/// [`KEYED_LIMITS_FOR_ALL`] in a configuration (for the app in process).
pub(crate) fn keyed_limits_for_all(config: &mut chessd_server::Config) {
    let jobs = &mut config.jobs;
    jobs.anonymous_max_perft_depth = jobs.max_perft_depth;
    jobs.anonymous_max_threads = 0;
    jobs.anonymous_max_hash_mb = jobs.max_hash_mb;
    jobs.max_client_threads = 1024;
}

/// Points the builtin engines and workers of the app in process at the real `chessd` binary
/// (`CHESSD_SELF_EXE`; by default they run the current executable, and this test binary is not
/// chessd). The tests share one process: the variable is set once, to the one value every test
/// wants, so no test changes the environment under another (the servers the tests start inherit
/// it, and it names their own binary).
pub(crate) fn builtin_runs_the_real_binary() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::env::set_var("CHESSD_SELF_EXE", env!("CARGO_BIN_EXE_chessd")));
}

/// A running server process; killed on drop (and its scratch store deleted).
pub(crate) struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// The SQLite file made for this server, when the test named no store.
    scratch: Option<std::path::PathBuf>,
}

/// The live (not zombie) processes whose parent is `parent`, with their command names.
pub(crate) fn children_of(parent: u32) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid …; comm may contain spaces, so split at the last ')'.
        let Some((head, tail)) = stat.rsplit_once(')') else {
            continue;
        };
        let comm = head.split_once('(').map(|(_, c)| c).unwrap_or("");
        let mut fields = tail.split_whitespace();
        let state = fields.next().unwrap_or("");
        let ppid: u32 = fields.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        if ppid == parent && state != "Z" {
            out.push((pid, comm.to_string()));
        }
    }
    out
}

/// A loopback port free right now.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A fresh SQLite file under the tests' scratch directory (`target/tmp/stores`).
pub(crate) fn scratch_store() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("stores")
        .join(format!("{}.sqlite", uuid::Uuid::new_v4().simple()))
}

/// Deletes an SQLite file with its WAL and shared-memory files.
pub(crate) fn remove_sqlite(path: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        let _ = std::fs::remove_file(file);
    }
}

impl Server {
    /// Starts `chessd serve --bind 127.0.0.1:0` with extra environment variables and waits for
    /// the address it prints.
    pub(crate) fn start(env: &[(&str, &str)]) -> Server {
        Server::spawn(Command::new(env!("CARGO_BIN_EXE_chessd")), env)
    }

    /// [`Server::start`] with `dir` as the working directory.
    pub(crate) fn start_in(dir: &std::path::Path, env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_chessd"));
        cmd.current_dir(dir);
        Server::spawn(cmd, env)
    }

    /// [`Server::start`] on a given address (`127.0.0.1:PORT`), for servers that must know
    /// their address before they start (a cluster node's `advertise_url`).
    pub(crate) fn start_on(bind: &str, env: &[(&str, &str)]) -> Server {
        Server::spawn_on(Command::new(env!("CARGO_BIN_EXE_chessd")), bind, env)
    }

    fn spawn(cmd: Command, env: &[(&str, &str)]) -> Server {
        Server::spawn_on(cmd, "127.0.0.1:0", env)
    }

    fn spawn_on(mut cmd: Command, bind: &str, env: &[(&str, &str)]) -> Server {
        cmd.args(["serve", "--bind", bind])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in env {
            cmd.env(k, v);
        }
        // Unless the test names one, each server keeps its games in a store of its own.
        let scratch = (!env.iter().any(|(k, _)| *k == "CHESSD_STORE__URL")).then(scratch_store);
        if let Some(path) = &scratch {
            cmd.env("CHESSD_STORE__URL", format!("sqlite://{}", path.display()));
        }
        let mut child = cmd.spawn().expect("start chessd");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let line = lines
            .next()
            .expect("chessd printed its address")
            .expect("readable stdout");
        let base = line
            .strip_prefix("chessd listening on ")
            .unwrap_or_else(|| panic!("unexpected first line: {line}"))
            .to_string();
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Server {
            child,
            base,
            scratch,
        }
    }

    /// The SQLite file made for this server, when the test named no store.
    pub(crate) fn store_path(&self) -> Option<&std::path::Path> {
        self.scratch.as_deref()
    }

    /// The server's address (`127.0.0.1:PORT`).
    pub(crate) fn addr(&self) -> std::net::SocketAddr {
        self.base
            .strip_prefix("http://")
            .and_then(|a| a.parse().ok())
            .expect("the server's address")
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The WebSocket URL of a game.
    pub(crate) fn ws_url(&self, id: &str, query: &str) -> String {
        format!(
            "{}/v1/games/{id}/ws?{query}",
            self.base.replacen("http", "ws", 1)
        )
    }

    /// kill -9, then waits until the process is gone: until then the kernel still takes
    /// connections on its listening socket, and a request sent into one is neither refused nor
    /// answered (a client can only be told "outcome unknown").
    pub(crate) fn kill_now(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends SIGTERM and waits for the process to exit (up to `limit`). Returns whether it exited.
    pub(crate) fn terminate(&mut self, limit: Duration) -> bool {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = std::time::Instant::now() + limit;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Its engines and workers first: once the server is gone they can no longer be found,
        // and an engine such as Sjeng spins on its closed input instead of exiting.
        for (pid, _) in children_of(self.child.id()) {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(path) = &self.scratch {
            remove_sqlite(path);
        }
    }
}

/// An HTTP client for tests.
pub(crate) fn client() -> awc::Client {
    awc::Client::builder()
        .timeout(Duration::from_secs(30))
        .finish()
}

/// POSTs JSON (with an optional bearer secret); returns the status and JSON body.
pub(crate) async fn post_json(
    c: &awc::Client,
    url: &str,
    secret: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    let mut req = c.post(url);
    if let Some(s) = secret {
        req = req.bearer_auth(s);
    }
    let mut resp = req.send_json(body).await.expect("request sent");
    let status = resp.status().as_u16();
    let bytes = resp.body().limit(16 << 20).await.expect("body");
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// GETs JSON.
pub(crate) async fn get_json(c: &awc::Client, url: &str) -> (u16, Value) {
    let mut resp = c.get(url).send().await.expect("request sent");
    let status = resp.status().as_u16();
    let bytes = resp.body().limit(16 << 20).await.expect("body");
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// DELETEs (no secret: job secrets go in the query); returns the status and JSON body.
pub(crate) async fn delete_json(c: &awc::Client, url: &str) -> (u16, Value) {
    let mut resp = c.delete(url).send().await.expect("request sent");
    let status = resp.status().as_u16();
    let bytes = resp.body().limit(16 << 20).await.expect("body");
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// Sends `request` (raw HTTP/1.1, which should say `Connection: close`) to `server` from the
/// loopback address `source` (any of 127.0.0.0/8, so a test can be several clients); gives the
/// answer's status and body.
pub(crate) async fn raw_request_from(
    source: std::net::IpAddr,
    server: std::net::SocketAddr,
    request: &str,
) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket
        .bind(std::net::SocketAddr::new(source, 0))
        .expect("bind the source address");
    let mut stream = socket.connect(server).await.expect("connect");
    stream
        .write_all(request.as_bytes())
        .await
        .expect("send the request");
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    let text = String::from_utf8_lossy(&answer).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// Opens a WebSocket to `path` on `server` from the loopback address `source`, by hand (the
/// upgrade request and its answer only): gives the answer's status and the connection, for a
/// test to write frames of its own on.
pub(crate) async fn raw_websocket(
    source: std::net::IpAddr,
    server: std::net::SocketAddr,
    path: &str,
    extra_headers: &str,
) -> (u16, tokio::net::TcpStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket
        .bind(std::net::SocketAddr::new(source, 0))
        .expect("bind the source address");
    let mut stream = socket.connect(server).await.expect("connect");
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: chessd\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
         {extra_headers}\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .await
        .expect("send the upgrade");
    // The answer's head, byte by byte (the frames after it stay unread).
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut byte)).await {
            Ok(Ok(1)) => head.push(byte[0]),
            _ => break,
        }
    }
    let status = String::from_utf8_lossy(&head)
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, stream)
}

/// A client WebSocket frame (masked, as clients send them): `first` is the FIN bit and opcode
/// byte (`0x81` a whole text frame, `0x01` a text frame to be continued, `0x00` a continuation).
pub(crate) fn client_frame(first: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = vec![first];
    match payload.len() {
        n if n < 126 => frame.push(0x80 | n as u8),
        n if n <= 0xffff => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    let mask = [0x12, 0x34, 0x56, 0x78];
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    frame
}

/// Reads a raw WebSocket connection until it closes (or `limit`); gives the close code the
/// server sent, if it sent one.
pub(crate) async fn raw_close_code(
    stream: &mut tokio::net::TcpStream,
    limit: Duration,
) -> Option<u16> {
    use tokio::io::AsyncReadExt;
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + limit;
    let mut buf = [0u8; 65536];
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => break,
            Ok(Ok(n)) => seen.extend_from_slice(&buf[..n]),
        }
    }
    // Walk the server's (unmasked) frames to the close frame.
    let mut at = 0;
    while at + 2 <= seen.len() {
        let opcode = seen[at] & 0x0f;
        let (len, head) = match seen[at + 1] & 0x7f {
            126 if at + 4 <= seen.len() => {
                (u16::from_be_bytes([seen[at + 2], seen[at + 3]]) as usize, 4)
            }
            127 if at + 10 <= seen.len() => {
                let mut n = [0u8; 8];
                n.copy_from_slice(&seen[at + 2..at + 10]);
                (u64::from_be_bytes(n) as usize, 10)
            }
            n => (n as usize, 2),
        };
        if opcode == 0x8 && len >= 2 && at + head + 2 <= seen.len() {
            return Some(u16::from_be_bytes([seen[at + head], seen[at + head + 1]]));
        }
        at += head + len;
    }
    None
}

/// A raw HTTP/1.1 request: `method path`, a JSON body, `Connection: close`.
pub(crate) fn raw_json(method: &str, path: &str, body: &str) -> String {
    format!(
        "{method} {path} HTTP/1.1\r\nHost: chessd\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// `DELETE url` with `Authorization: Bearer secret`: the status and JSON body.
pub(crate) async fn delete_authed(c: &awc::Client, url: &str, secret: &str) -> (u16, Value) {
    let mut resp = c
        .delete(url)
        .bearer_auth(secret)
        .send()
        .await
        .expect("request sent");
    let status = resp.status().as_u16();
    let bytes = resp.body().limit(16 << 20).await.expect("body");
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// A created game's id and secrets.
pub(crate) struct GameSecrets {
    /// The game id.
    pub id: String,
    /// White's seat secret.
    pub white: String,
    /// Black's seat secret.
    pub black: String,
    /// The admin secret.
    pub admin: String,
}

impl GameSecrets {
    /// The id and secrets in a `POST /v1/games` answer.
    pub(crate) fn from_answer(v: &Value) -> GameSecrets {
        let s = |k: &str| v["secrets"][k].as_str().expect("secret").to_string();
        GameSecrets {
            id: v["id"].as_str().expect("id").to_string(),
            white: s("white"),
            black: s("black"),
            admin: s("admin"),
        }
    }

    /// The path of the game's resource `tail` (`""`, `"/moves"`, …), for in-process requests.
    pub(crate) fn uri(&self, tail: &str) -> String {
        format!("/v1/games/{}{tail}", self.id)
    }

    /// The seat secret of `side` (`"white"` or `"black"`).
    pub(crate) fn seat(&self, side: &str) -> &str {
        match side {
            "white" => &self.white,
            "black" => &self.black,
            other => panic!("no seat {other}"),
        }
    }
}

/// `POST /v1/games` with `body`; asserts 201 and returns the id and secrets.
pub(crate) async fn create_game(c: &awc::Client, base: &str, body: &Value) -> GameSecrets {
    let (status, v) = post_json(c, &format!("{base}/v1/games"), None, body).await;
    assert_eq!(status, 201, "{v}");
    GameSecrets::from_answer(&v)
}

/// A client WebSocket connection.
pub(crate) type WsConn = actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec>;

/// Opens a WebSocket.
pub(crate) async fn ws_connect(c: &awc::Client, url: &str) -> WsConn {
    let (_resp, conn) = c.ws(url).connect().await.expect("websocket connects");
    conn
}

/// The next frame of any kind, or `None` when the stream ends; panics after `limit`.
pub(crate) async fn ws_frame(conn: &mut WsConn, limit: Duration) -> Option<awc::ws::Frame> {
    use futures_util::StreamExt;
    tokio::time::timeout(limit, conn.next())
        .await
        .expect("a frame in time")
        .map(|f| f.expect("a valid frame"))
}

/// The next JSON text frame, skipping pings and pongs WITHOUT answering them; panics on a
/// close, on the end of the stream or after 10 s.
pub(crate) async fn ws_json(conn: &mut WsConn) -> Value {
    loop {
        match ws_frame(conn, Duration::from_secs(10)).await {
            Some(awc::ws::Frame::Text(bytes)) => {
                return serde_json::from_slice(&bytes).expect("a JSON frame")
            }
            Some(awc::ws::Frame::Ping(_) | awc::ws::Frame::Pong(_)) => {}
            other => panic!("expected a text frame, got {other:?}"),
        }
    }
}

/// Sends a JSON text frame.
pub(crate) async fn ws_send(conn: &mut WsConn, v: &Value) {
    use futures_util::SinkExt;
    conn.send(awc::ws::Message::Text(v.to_string().into()))
        .await
        .expect("send");
}

/// Reads until the server's close frame (skipping and not answering pings, collecting text
/// frames) and returns the close code with the text frames seen before it; panics after `limit`.
pub(crate) async fn ws_until_close(
    conn: &mut WsConn,
    limit: Duration,
) -> (Option<awc::ws::CloseCode>, Vec<Value>) {
    let deadline = tokio::time::Instant::now() + limit;
    let mut texts = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match ws_frame(conn, left).await {
            Some(awc::ws::Frame::Close(reason)) => return (reason.map(|r| r.code), texts),
            Some(awc::ws::Frame::Text(bytes)) => {
                texts.push(serde_json::from_slice(&bytes).unwrap_or(Value::Null))
            }
            Some(_) => {}
            None => panic!("the stream ended without a close frame"),
        }
    }
}
