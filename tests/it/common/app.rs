//! The in-process server for API tests: the same `configure_app` as `main`, driven by
//! `actix_web::test`, with helpers to send requests, read answers, create games and play moves.

use std::rc::Rc;

use actix_web::{
    http::{header, Method, StatusCode},
    test::{self, TestRequest},
    web, App,
};
use chessd_server::{configure_app, AppState, Config};
use futures_util::future::LocalBoxFuture;
use serde::Serialize;
use serde_json::{json, Value};

use super::GameSecrets;

/// A whole answer: status, headers and body.
pub(crate) struct Answer {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: header::HeaderMap,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl Answer {
    /// A header's value, or `""` when absent or not visible ASCII.
    pub(crate) fn header(&self, name: header::HeaderName) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    /// The `Content-Type` (`""` when absent); panics when it is not visible ASCII.
    pub(crate) fn content_type(&self) -> String {
        self.headers
            .get(header::CONTENT_TYPE)
            .map(|v| v.to_str().expect("an ASCII Content-Type").to_string())
            .unwrap_or_default()
    }

    /// The body as text; panics when it is not UTF-8.
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("a UTF-8 body")
    }

    /// The body as JSON (`Null` when empty or not JSON); panics when it is not UTF-8.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.text()).unwrap_or(Value::Null)
    }

    /// The body as JSON, or its text (lossily decoded) as a JSON string when it is not JSON.
    pub(crate) fn json_or_text(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&self.body).into_owned()))
    }
}

/// Sends one request to the service and reads the whole answer. (The service's own type cannot
/// be named, so it hides behind this closure and `TestApp` needs no type parameters.)
type Service = Box<dyn Fn(actix_http::Request) -> LocalBoxFuture<'static, Answer>>;

/// An answer read as the body's chunks, as the server produced them.
pub(crate) struct Chunked {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: header::HeaderMap,
    /// Whether the body was a stream of unknown length (sent chunked on the wire).
    pub streamed: bool,
    /// The body's chunks, in order.
    pub chunks: Vec<Vec<u8>>,
}

impl Chunked {
    /// The whole body as text; panics when it is not UTF-8.
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.chunks.concat()).expect("a UTF-8 body")
    }
}

/// Sends one request and reads the answer's body chunk by chunk.
type ChunkService = Box<dyn Fn(actix_http::Request) -> LocalBoxFuture<'static, Chunked>>;

/// The app in process, with request helpers.
pub(crate) struct TestApp {
    service: Service,
    chunked: ChunkService,
    /// The SQLite file made for this app, deleted on drop.
    scratch: Option<std::path::PathBuf>,
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(path) = &self.scratch {
            super::remove_sqlite(path);
        }
    }
}

/// State for `config`, kept in a fresh SQLite file (returned, to delete) unless the
/// configuration names a store other than the default.
pub(crate) async fn scratch_state(
    mut config: Config,
    callback: Option<chessd_server::TerminateCallback>,
) -> (AppState, Option<std::path::PathBuf>) {
    let scratch = (config.store.url == Config::defaults().store.url).then(super::scratch_store);
    if let Some(path) = &scratch {
        config.store.url = format!("sqlite://{}", path.display());
    }
    let state = AppState::open(config, callback)
        .await
        .expect("the store opens");
    (state, scratch)
}

impl TestApp {
    /// The app with `Config::defaults()`.
    pub(crate) async fn start() -> TestApp {
        TestApp::new(Config::defaults()).await
    }

    /// The app with `Config::defaults()` changed by `tweak`.
    pub(crate) async fn tweaked(tweak: impl FnOnce(&mut Config)) -> TestApp {
        let mut config = Config::defaults();
        tweak(&mut config);
        TestApp::new(config).await
    }

    /// The app with a configuration (its games kept in a fresh SQLite file unless the
    /// configuration names another store).
    pub(crate) async fn new(config: Config) -> TestApp {
        TestApp::with_callback(config, None).await
    }

    /// The app with a configuration and an in-process terminate callback.
    pub(crate) async fn with_callback(
        config: Config,
        callback: Option<chessd_server::TerminateCallback>,
    ) -> TestApp {
        let (state, scratch) = scratch_state(config, callback).await;
        TestApp::with_scratch_state(state, scratch).await
    }

    /// The app over a state from [`scratch_state`], deleting its scratch file on drop.
    pub(crate) async fn with_scratch_state(
        state: AppState,
        scratch: Option<std::path::PathBuf>,
    ) -> TestApp {
        let mut app = TestApp::with_state(state).await;
        app.scratch = scratch;
        app
    }

    /// The app over a state built by the caller.
    pub(crate) async fn with_state(state: AppState) -> TestApp {
        let state = web::Data::new(state);
        let inner = Rc::new(test::init_service(App::new().configure(configure_app(state))).await);
        let by_chunk = inner.clone();
        let chunked: ChunkService = Box::new(move |req| {
            let service = by_chunk.clone();
            Box::pin(async move {
                use actix_web::body::{BodySize, MessageBody};
                let resp = test::call_service(&*service, req).await;
                let status = resp.status();
                let headers = resp.headers().clone();
                let mut body = Box::pin(resp.into_body());
                let streamed = matches!(body.size(), BodySize::Stream);
                let mut chunks = Vec::new();
                while let Some(chunk) = std::future::poll_fn(|cx| body.as_mut().poll_next(cx)).await
                {
                    let chunk = chunk.expect("a body chunk");
                    chunks.push(chunk.to_vec());
                }
                Chunked {
                    status,
                    headers,
                    streamed,
                    chunks,
                }
            })
        });
        let service: Service = Box::new(move |req| {
            let service = inner.clone();
            Box::pin(async move {
                let resp = test::call_service(&*service, req).await;
                let status = resp.status();
                let headers = resp.headers().clone();
                let body = test::read_body(resp).await.to_vec();
                Answer {
                    status,
                    headers,
                    body,
                }
            })
        });
        TestApp {
            service,
            chunked,
            scratch: None,
        }
    }

    /// Sends a request; returns the whole answer.
    pub(crate) async fn send(&self, req: TestRequest) -> Answer {
        (self.service)(req.to_request()).await
    }

    /// Sends a request; returns the answer with its body as the chunks the server produced.
    pub(crate) async fn send_chunked(&self, req: TestRequest) -> Chunked {
        (self.chunked)(req.to_request()).await
    }

    /// Sends a request; returns the status and the JSON body (`Null` when empty or not JSON).
    pub(crate) async fn call(&self, req: TestRequest) -> (StatusCode, Value) {
        let answer = self.send(req).await;
        (answer.status, answer.json())
    }

    /// Sends a request; returns the status, the content type and the body text.
    pub(crate) async fn raw(&self, req: TestRequest) -> (StatusCode, String, String) {
        let answer = self.send(req).await;
        (answer.status, answer.content_type(), answer.text())
    }

    /// Sends a request; returns the status, the content type and the body as JSON, or as a JSON
    /// string of its text when it is not JSON (so that an empty body is `""`).
    pub(crate) async fn exchange(&self, req: TestRequest) -> (StatusCode, String, Value) {
        let answer = self.send(req).await;
        (answer.status, answer.content_type(), answer.json_or_text())
    }

    /// `GET uri`: the status and the JSON body.
    pub(crate) async fn get(&self, uri: &str) -> (StatusCode, Value) {
        self.call(request("GET", uri, None, None)).await
    }

    /// `GET uri`, which must answer 200: the JSON body.
    pub(crate) async fn get_ok(&self, uri: &str) -> Value {
        let (status, v) = self.get(uri).await;
        assert_eq!(status, StatusCode::OK, "GET {uri}: {v}");
        v
    }

    /// `POST uri` with a JSON body and an optional bearer secret.
    pub(crate) async fn post(
        &self,
        uri: &str,
        secret: Option<&str>,
        body: impl Serialize,
    ) -> (StatusCode, Value) {
        self.call(with_json(TestRequest::post(), uri, secret, body))
            .await
    }

    /// `PUT uri` with a JSON body and an optional bearer secret.
    pub(crate) async fn put(
        &self,
        uri: &str,
        secret: Option<&str>,
        body: impl Serialize,
    ) -> (StatusCode, Value) {
        self.call(with_json(TestRequest::put(), uri, secret, body))
            .await
    }

    /// `PATCH uri` with a JSON body and an optional bearer secret.
    pub(crate) async fn patch(
        &self,
        uri: &str,
        secret: Option<&str>,
        body: impl Serialize,
    ) -> (StatusCode, Value) {
        self.call(with_json(TestRequest::patch(), uri, secret, body))
            .await
    }

    /// `DELETE uri` with an optional bearer secret.
    pub(crate) async fn delete(&self, uri: &str, secret: Option<&str>) -> (StatusCode, Value) {
        self.call(request("DELETE", uri, secret, None)).await
    }

    /// `POST /v1/games` with `body`; asserts 201 and returns the id and secrets.
    pub(crate) async fn create_game(&self, body: impl Serialize) -> GameSecrets {
        self.create_game_answer(body).await.0
    }

    /// `POST /v1/games` with `body`; asserts 201 and returns the id and secrets with the answer.
    pub(crate) async fn create_game_answer(&self, body: impl Serialize) -> (GameSecrets, Value) {
        let (status, v) = self.post("/v1/games", None, body).await;
        assert_eq!(status, StatusCode::CREATED, "{v}");
        (GameSecrets::from_answer(&v), v)
    }

    /// A game's whole public state (`GET /v1/games/{id}`, which must answer 200).
    pub(crate) async fn view(&self, g: &GameSecrets) -> Value {
        self.get_ok(&g.uri("")).await
    }

    /// A move by the seat of the side to move.
    pub(crate) async fn mv(&self, g: &GameSecrets, body: Value) -> (StatusCode, Value) {
        let turn = self.get_ok(&g.uri("/turn")).await["turn"]
            .as_str()
            .expect("a turn")
            .to_string();
        self.post(&g.uri("/moves"), Some(g.seat(&turn)), body).await
    }

    /// A move that must be accepted; returns the answer.
    pub(crate) async fn ok_move(&self, g: &GameSecrets, body: Value) -> Value {
        let (status, v) = self.mv(g, body.clone()).await;
        assert_eq!(status, StatusCode::OK, "move {body}: {v}");
        v
    }

    /// Plays UCI moves that must all be accepted; returns the last answer.
    pub(crate) async fn play(&self, g: &GameSecrets, moves: &[&str]) -> Value {
        let mut last = Value::Null;
        for m in moves {
            last = self.ok_move(g, json!({ "uci": m })).await;
        }
        last
    }

    /// A move that must be refused with `status` and `code`, leaving the game unchanged.
    pub(crate) async fn refused_move(
        &self,
        g: &GameSecrets,
        body: Value,
        status: StatusCode,
        code: &str,
    ) {
        let before = self.view(g).await;
        let (got, v) = self.mv(g, body.clone()).await;
        assert_eq!(
            (got, v["error"]["code"].as_str()),
            (status, Some(code)),
            "move {body}: {v}"
        );
        assert_eq!(
            self.view(g).await,
            before,
            "refused move {body} changed the game"
        );
    }

    /// Asserts that `body` is refused as `illegal_move` with the machine-readable `reason`,
    /// changing nothing.
    pub(crate) async fn refused_because(&self, g: &GameSecrets, body: Value, reason: &str) {
        let before = self.view(g).await;
        let (got, v) = self.mv(g, body.clone()).await;
        assert_eq!(
            (
                got,
                v["error"]["code"].as_str(),
                v["error"]["reason"].as_str()
            ),
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                Some("illegal_move"),
                Some(reason)
            ),
            "move {body}: {v}"
        );
        assert_eq!(
            self.view(g).await,
            before,
            "refused move {body} changed the game"
        );
    }
}

/// Where in-process requests come from: a client on the server's machine, as the real binary's
/// tests are (so the operator's routes answer them).
pub(crate) const LOCAL_PEER: std::net::SocketAddr =
    std::net::SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 50_000);

/// Waits until no game is in `games`' memory (they were evicted, stopped or moved away),
/// failing with `what` after ten seconds.
pub(crate) async fn until_no_game_in_memory(games: &chessd_server::game::Games, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !games.is_empty() {
        assert!(std::time::Instant::now() < deadline, "{what}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// A request: `method` (any case), `uri`, an optional bearer secret and an optional JSON body.
pub(crate) fn request(
    method: &str,
    uri: &str,
    secret: Option<&str>,
    body: Option<&Value>,
) -> TestRequest {
    let method = Method::from_bytes(method.to_ascii_uppercase().as_bytes()).expect("a method");
    let mut req = TestRequest::default()
        .method(method)
        .uri(uri)
        .peer_addr(LOCAL_PEER);
    if let Some(b) = body {
        req = req.set_json(b);
    }
    if let Some(s) = secret {
        req = authed(req, s);
    }
    req
}

/// Adds `Authorization: Bearer secret`.
pub(crate) fn authed(req: TestRequest, secret: &str) -> TestRequest {
    req.insert_header((header::AUTHORIZATION, format!("Bearer {secret}")))
}

/// `req` to `uri` with a JSON body and an optional bearer secret.
fn with_json(
    req: TestRequest,
    uri: &str,
    secret: Option<&str>,
    body: impl Serialize,
) -> TestRequest {
    let req = req.uri(uri).peer_addr(LOCAL_PEER).set_json(body);
    match secret {
        Some(s) => authed(req, s),
        None => req,
    }
}
