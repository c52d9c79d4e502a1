//! Helpers of the engine tests: finding Stockfish and socat (tests needing them are ignored where
//! they are missing, see build.rs),
//! fake engines, a socat bridge, and JSON calls on a game.

use std::{
    os::unix::process::CommandExt,
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::{json, Value};

use crate::common::{self, free_port, GameSecrets};

/// The path of a program the test needs. Tests that need one carry
/// `#[cfg_attr(not(has_PROGRAM), ignore = "…")]` (the build script looks for it), so they only
/// run where it is installed.
pub(crate) fn required(program: &str, candidates: &[&str]) -> String {
    candidates
        .iter()
        .find(|p| Path::new(p).is_file())
        .map(|p| p.to_string())
        .unwrap_or_else(|| panic!("{program} is not installed (apt-get install {program})"))
}

/// Stockfish (`/usr/games/stockfish` on Debian).
pub(crate) fn stockfish() -> String {
    required(
        "stockfish",
        &[
            "/usr/games/stockfish",
            "/usr/bin/stockfish",
            "/usr/local/bin/stockfish",
        ],
    )
}

/// socat.
pub(crate) fn socat() -> String {
    required("socat", &["/usr/bin/socat", "/usr/local/bin/socat"])
}

/// The fake engine script.
pub(crate) fn fake_engine_script() -> String {
    format!(
        "{}/tests/fixtures/fake_engine.sh",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Environment configuring engine `name` as the fake engine in `mode`.
pub(crate) fn fake_engine(name: &str, mode: &str) -> Vec<(String, String)> {
    let key = name.to_uppercase();
    vec![
        (format!("CHESSD_ENGINES__{key}__COMMAND"), "sh".to_string()),
        (
            format!("CHESSD_ENGINES__{key}__ARGS"),
            format!("[\"{}\", \"{mode}\"]", fake_engine_script()),
        ),
    ]
}

/// Starts the server with owned environment pairs.
pub(crate) fn start(env: &[(String, String)]) -> common::Server {
    let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    common::Server::start(&pairs)
}

/// `socat TCP-LISTEN:port,reuseaddr,fork,nodelay EXEC:<engine>` in its own process group,
/// killed (the group) on drop. `nodelay`: without it socat's side waits for delayed
/// acknowledgements, and short searches over TCP stall about 40 ms.
pub(crate) struct Socat {
    child: Child,
    /// The port it listens on.
    pub port: u16,
}

impl Socat {
    /// Starts socat in front of `engine` and waits until it accepts connections.
    pub(crate) fn start(socat: &str, engine: &str) -> Socat {
        let port = free_port();
        let child = Command::new(socat)
            .arg(format!(
                "TCP-LISTEN:{port},bind=127.0.0.1,reuseaddr,fork,nodelay"
            ))
            .arg(format!("EXEC:{engine}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("socat starts");
        let deadline = Instant::now() + Duration::from_secs(5);
        // Wait until it accepts a connection (the engine it starts for it sees end of input
        // and exits).
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "socat did not listen on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        Socat { child, port }
    }

    /// `127.0.0.1:port`.
    pub(crate) fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

impl Drop for Socat {
    fn drop(&mut self) {
        // The whole group: socat and the engines it forked for each connection.
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
    }
}

/// The ids of the processes whose parent is `parent` and whose command name is `name`.
pub(crate) fn children_named(parent: u32, name: &str) -> Vec<u32> {
    common::children_of(parent)
        .into_iter()
        .filter(|(_, comm)| comm == name)
        .map(|(pid, _)| pid)
        .collect()
}

/// JSON calls on one server.
pub(crate) struct Api {
    /// The HTTP client.
    pub client: awc::Client,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Api {
    /// A client of `server`.
    pub(crate) fn new(server: &common::Server) -> Api {
        Api {
            client: common::client(),
            base: server.base.clone(),
        }
    }

    /// POSTs JSON to `path` (relative to the base).
    pub(crate) async fn post(&self, path: &str, secret: Option<&str>, body: Value) -> (u16, Value) {
        common::post_json(&self.client, &format!("{}{path}", self.base), secret, &body).await
    }

    /// GETs `path`.
    pub(crate) async fn get(&self, path: &str) -> (u16, Value) {
        common::get_json(&self.client, &format!("{}{path}", self.base)).await
    }

    /// DELETEs `path`.
    pub(crate) async fn delete(&self, path: &str, secret: Option<&str>) -> (u16, Value) {
        let mut req = self.client.delete(format!("{}{path}", self.base));
        if let Some(s) = secret {
            req = req.bearer_auth(s);
        }
        let mut resp = req.send().await.expect("request sent");
        let status = resp.status().as_u16();
        let bytes = resp.body().await.expect("body");
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// The server's `/metrics` text.
    pub(crate) async fn metrics(&self) -> String {
        self.text("/metrics").await
    }

    /// The body of `GET path` as text (metrics, PGN).
    pub(crate) async fn text(&self, path: &str) -> String {
        let mut resp = self
            .client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("request sent");
        let bytes = resp.body().await.expect("body");
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Creates a game from `body`.
    pub(crate) async fn game(&self, body: Value) -> GameSecrets {
        common::create_game(&self.client, &self.base, &body).await
    }

    /// Attaches engine `name` to game `g` as its admin; asserts success.
    pub(crate) async fn attach(&self, g: &GameSecrets, name: &str) -> Value {
        let (status, v) = self
            .post(
                &format!("/v1/games/{}/engine", g.id),
                Some(&g.admin),
                json!({ "name": name }),
            )
            .await;
        assert_eq!(status, 200, "attach {name}: {v}");
        v
    }

    /// `GET /v1/games/{id}`.
    pub(crate) async fn state(&self, g: &GameSecrets) -> Value {
        let (status, v) = self.get(&format!("/v1/games/{}", g.id)).await;
        assert_eq!(status, 200, "{v}");
        v
    }

    /// Reads game `id` until it is over (within `limit`); returns its state.
    pub(crate) async fn until_over(&self, id: &str, limit: Duration) -> Value {
        let deadline = Instant::now() + limit;
        loop {
            let (_, state) = self.get(&format!("/v1/games/{id}")).await;
            if state["status"]["result"] != "ongoing" {
                return state;
            }
            assert!(Instant::now() < deadline, "the game did not end: {state}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The legal moves of the game now (UCI).
    pub(crate) async fn legal(&self, g: &GameSecrets) -> Vec<String> {
        let (_, v) = self.get(&format!("/v1/games/{}/legal-moves", g.id)).await;
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect()
    }

    /// Lets the attached engine play both sides to the end through `engine/play` (at most
    /// `max_plies`); returns the final state.
    pub(crate) async fn self_play(&self, g: &GameSecrets, go: Value, max_plies: usize) -> Value {
        for ply in 0..max_plies {
            let legal = self.legal(g).await;
            let (status, v) = self
                .post(
                    &format!("/v1/games/{}/engine/play", g.id),
                    Some(&g.admin),
                    json!({ "go": go }),
                )
                .await;
            assert_eq!(status, 200, "ply {ply}: {v}");
            let uci = v["engine_move"]["uci"].as_str().unwrap().to_string();
            assert!(legal.contains(&uci), "ply {ply}: {uci} is not in {legal:?}");
            let state = &v["state"];
            assert_eq!(state["moves"].as_array().unwrap().len(), ply + 1);
            assert_eq!(state["moves"][ply]["uci"], uci.as_str());
            if state["status"]["result"] != "ongoing" {
                return state.clone();
            }
        }
        panic!("the game did not end within {max_plies} plies");
    }
}

/// Reads WebSocket frames until `pred` matches one (10 s at most); returns every frame read.
pub(crate) async fn ws_until(
    conn: &mut common::WsConn,
    pred: impl Fn(&Value) -> bool,
) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        let v = common::ws_json(conn).await;
        let done = pred(&v);
        seen.push(v);
        if done {
            return seen;
        }
    }
    panic!("no matching frame in {seen:?}");
}

/// The OpenAPI document, as served.
pub(crate) fn openapi() -> Value {
    common::schema::document()
}

/// Checks `v` against `schema` of `doc`; `Err` names the mismatches.
pub(crate) fn conforms(doc: &Value, schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    common::schema::check(doc, schema, v, at)
}

/// Asserts that `v`, answered with `status` by `method path`, is the documented JSON.
pub(crate) fn assert_documented(doc: &Value, path: &str, method: &str, status: u16, v: &Value) {
    let schema = &doc["paths"][path][method]["responses"][status.to_string()];
    assert!(
        schema.is_object(),
        "{method} {path} does not document {status}"
    );
    let schema = match schema["$ref"].as_str() {
        Some(r) => &doc["components"]["responses"][r.rsplit('/').next().unwrap()],
        None => schema,
    };
    let body = &schema["content"]["application/json"]["schema"];
    if body.is_null() {
        return;
    }
    if let Err(e) = conforms(doc, body, v, &format!("{method} {path} {status}")) {
        panic!("{e}");
    }
}
